"""np.datetime64 and np.timedelta64 called in compiled code.

The unit, and a date given as a string, are constants: NumPy itself makes the value when
compiling, which the implementation returns as a frozen constant (a string is parsed as NumPy
parses it). A count given at run time is added to the zero of the unit, as an int beside a
datetime or timedelta counts in its unit.
"""
import numpy as np

from pyjit import types
from pyjit.extending import overload


def _constant(t):
    """The value of a constant argument (a string, an omitted one), or raise TypeError."""
    if t is None or isinstance(t, types.Omitted):
        return None
    if isinstance(t, types.StringLiteral):
        return t.literal_value
    raise TypeError("the unit and a date given as a string must be constants")


def _overload_scalar(kind):
    def typer(value, unit=None):
        u = _constant(unit)
        if isinstance(value, types.StringLiteral):
            made = kind(value.literal_value, u) if u else kind(value.literal_value)

            def impl(value, unit=None):
                return made
            return impl
        if isinstance(value, types.Integer) and not isinstance(value, types.Boolean):
            zero = kind(0, u) if u else kind(0)

            def impl(value, unit=None):
                return zero + value
            return impl
        return None
    return typer


overload(np.datetime64)(_overload_scalar(np.datetime64))
overload(np.timedelta64)(_overload_scalar(np.timedelta64))
