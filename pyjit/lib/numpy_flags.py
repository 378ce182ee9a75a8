"""a.flags in compiled code: NumPy's contiguity flags of an array, read from its shape and
strides at run time (a view may be contiguous whatever its type's layout says), as a namedtuple
whose fields are the flags Numba gives: c_contiguous, f_contiguous, contiguous (C-contiguous,
NumPy's alias), writeable and aligned."""
import collections

from .. import types
from ..extending import overload_attribute, register_jitable

# a.flags's value: the fields read as NumPy's flagsobj attributes
flags = collections.namedtuple("flags", ["c_contiguous", "f_contiguous", "contiguous",
                                         "writeable", "aligned"])


@register_jitable
def _c_contiguous(a):
    """NumPy's rule: each axis longer than one steps by the product of the later axes' lengths
    times the item size; an empty array is contiguous."""
    if a.size == 0:
        return True
    step = a.itemsize
    for k in range(a.ndim - 1, -1, -1):
        if a.shape[k] != 1:
            if a.strides[k] != step:
                return False
            step *= a.shape[k]
    return True


@register_jitable
def _f_contiguous(a):
    if a.size == 0:
        return True
    step = a.itemsize
    for k in range(a.ndim):
        if a.shape[k] != 1:
            if a.strides[k] != step:
                return False
            step *= a.shape[k]
    return True


@overload_attribute(types.Array, "flags")
def _flags(a):
    writeable = not a.readonly
    if a.ndim == 0:
        return lambda a: flags(True, True, True, writeable, True)

    def impl(a):
        c = _c_contiguous(a)
        return flags(c, _f_contiguous(a), c, writeable, True)
    return impl
