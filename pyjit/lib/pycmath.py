"""cmath's inverse functions (acos, acosh, asin, asinh, atan, atanh) and the two-argument
cmath.log, written in the compiled subset with CPython's formulas (Kahan's, from
Modules/cmathmodule.c): square roots of 1 - z and 1 + z and one real inverse function, with the
large-argument forms that avoid overflow, so finite results agree with CPython's. Numbers that
are not complex are made complex128 first, as the other cmath functions take them. Infinite and
NaN parts follow the formulas, not CPython's table of special values."""
import cmath
import math

from .. import types
from ..extending import overload, register_jitable

_LARGE = 1.7976931348623157e308 / 4.0        # CPython's CM_LARGE_DOUBLE
_SQRT_LARGE = math.sqrt(_LARGE)
_SQRT_DBL_MIN = math.sqrt(2.2250738585072014e-308)
_LN2 = math.log(2.0)


def _number(z):
    return isinstance(z, (types.Complex, types.Float, types.Integer, types.Boolean))


@register_jitable
def _asinh(x, y):
    if abs(x) > _LARGE or abs(y) > _LARGE:
        h = math.log(math.hypot(x / 2.0, y / 2.0)) + _LN2 * 2.0
        re = math.copysign(h, x) if y >= 0.0 else -math.copysign(h, -x)
        return complex(re, math.atan2(y, abs(x)))
    s1 = cmath.sqrt(complex(1.0 + y, -x))
    s2 = cmath.sqrt(complex(1.0 - y, x))
    return complex(math.asinh(s1.real * s2.imag - s2.real * s1.imag),
                   math.atan2(y, s1.real * s2.real - s1.imag * s2.imag))


@register_jitable
def _acos(x, y):
    if abs(x) > _LARGE or abs(y) > _LARGE:
        h = math.log(math.hypot(x / 2.0, y / 2.0)) + _LN2 * 2.0
        im = -math.copysign(h, y) if x < 0.0 else math.copysign(h, -y)
        return complex(math.atan2(abs(y), x), im)
    s1 = cmath.sqrt(complex(1.0 - x, -y))
    s2 = cmath.sqrt(complex(1.0 + x, y))
    return complex(2.0 * math.atan2(s1.real, s2.real),
                   math.asinh(s2.real * s1.imag - s2.imag * s1.real))


@register_jitable
def _acosh(x, y):
    if abs(x) > _LARGE or abs(y) > _LARGE:
        return complex(math.log(math.hypot(x / 2.0, y / 2.0)) + _LN2 * 2.0, math.atan2(y, x))
    s1 = cmath.sqrt(complex(x - 1.0, y))
    s2 = cmath.sqrt(complex(x + 1.0, y))
    return complex(math.asinh(s1.real * s2.real + s1.imag * s2.imag),
                   2.0 * math.atan2(s1.imag, s2.real))


@register_jitable
def _atanh(x, y):
    if x < 0.0:
        r = _atanh_nonneg(-x, -y)
        return complex(-r.real, -r.imag)
    return _atanh_nonneg(x, y)


@register_jitable
def _atanh_nonneg(x, y):
    ay = abs(y)
    if x > _SQRT_LARGE or ay > _SQRT_LARGE:
        h = math.hypot(x / 2.0, y / 2.0)
        return complex(x / 4.0 / h / h, -math.copysign(math.pi / 2.0, -y))
    if x == 1.0 and ay < _SQRT_DBL_MIN:
        if ay == 0.0:
            return complex(math.inf, y)
        return complex(-math.log(math.sqrt(ay) / math.sqrt(math.hypot(ay, 2.0))),
                       math.copysign(math.atan2(2.0, -ay) / 2.0, y))
    return complex(math.log1p(4.0 * x / ((1.0 - x) * (1.0 - x) + ay * ay)) / 4.0,
                   -math.atan2(-2.0 * y, (1.0 - x) * (1.0 + x) - ay * ay) / 2.0)


def _complex_fn(name, body):
    """The overload of cmath.<name>: body(x, y) of z's real and imaginary parts."""
    def typing(z):
        if not _number(z):
            raise TypeError(f"cmath.{name}() takes a number, not {z}")

        def impl(z):
            c = complex(z)
            return body(c.real, c.imag)
        return impl
    overload(getattr(cmath, name))(typing)


@register_jitable
def _asin_of(x, y):
    s = _asinh(-y, x)           # asin(z) = -i asinh(i z)
    return complex(s.imag, -s.real)


@register_jitable
def _atan_of(x, y):
    s = _atanh(-y, x)           # atan(z) = -i atanh(i z)
    return complex(s.imag, -s.real)


for _name, _body in (("acos", _acos), ("acosh", _acosh), ("asin", _asin_of),
                     ("asinh", _asinh), ("atan", _atan_of), ("atanh", _atanh)):
    _complex_fn(_name, _body)


@overload(cmath.log)
def _log_base(z, base=None):
    """cmath.log(z, base): log(z) / log(base); the one-argument form is the builtin's."""
    if base is None or isinstance(base, (types.NoneType, types.Omitted)):
        return None
    if not _number(z) or not _number(base):
        raise TypeError(f"cmath.log() takes numbers, not {z} and {base}")

    def impl(z, base=None):
        return cmath.log(complex(z)) / cmath.log(complex(base))
    return impl
