"""Python's math.frexp, math.ldexp, math.modf and math.remainder, written in the compiled subset
(numba-cuda kernels and @njit code take them; the floating-point formats are reached through
exact scalings by powers of two, so the results are CPython's, the one rounding of ldexp
included). A float32 argument gives a float32 result, as pyjit's other math functions do; an
out-of-range ldexp is inf, as NumPy and Numba give it (pyjit raises no range errors), and
remainder of an infinity or by zero a NaN, as libdevice's (CPython raises ValueError). Also
math.exp2 and math.nextafter, and math.cbrt and math.lcm (of two integers), which Numba lacks,
and round(n, ndigits) of an integer, an int as CPython's (Numba's is a float)."""
import math

import numpy as np

from .. import types
from ..extending import overload, register_jitable


def _number(x):
    return isinstance(x, (types.Float, types.Integer, types.Boolean))


@register_jitable
def _frexp64(v):
    if v == 0.0 or v != v or v - v != 0.0:      # zero (its sign kept), nan, inf
        return v, 0
    e = int(math.floor(math.log2(abs(v)))) + 1
    h = e // 2
    m = (v * 2.0 ** (-h)) * 2.0 ** (h - e)      # each factor a normal power of two: exact
    if abs(m) >= 1.0:                           # log2 rounded up to the next power
        m *= 0.5
        e += 1
    elif abs(m) < 0.5:
        m *= 2.0
        e -= 1
    return m, e


@register_jitable
def _ldexp64(v, i):
    m, e = _frexp64(v)
    if m == 0.0 or m != m or m - m != 0.0:
        return v
    t = e + i                                   # the result is m * 2**t, 0.5 <= |m| < 1
    if t > 1024:
        return math.copysign(math.inf, v)
    if t >= -1021:
        return (m * 2.0) * 2.0 ** (t - 1)       # a normal result: one exact product
    if t < -1080:
        return math.copysign(0.0, v)
    return (m * 2.0 ** (t + 1074)) * 2.0 ** -1074   # subnormal: rounded once, by the last


@overload(math.frexp)
def _frexp(x):
    if not _number(x):
        raise TypeError(f"math.frexp() takes a number, not {x}")
    if isinstance(x, types.Float) and x.bitwidth == 32:
        def impl32(x):
            m, e = _frexp64(float(x))
            return np.float32(m), e
        return impl32

    def impl(x):
        return _frexp64(float(x))
    return impl


@overload(math.ldexp)
def _ldexp(x, i):
    if not _number(x) or not isinstance(i, (types.Integer, types.Boolean)):
        raise TypeError(f"math.ldexp() takes a number and an int, not {x} and {i}")
    if isinstance(x, types.Float) and x.bitwidth == 32:
        def impl32(x, i):
            return np.float32(_ldexp64(float(x), int(i)))
        return impl32

    def impl(x, i):
        return _ldexp64(float(x), int(i))
    return impl


@overload(math.exp2)
def _exp2(x):
    if not _number(x):
        raise TypeError(f"math.exp2() takes a number, not {x}")
    return lambda x: float(np.exp2(float(x)))


@overload(math.nextafter)
def _nextafter(x, y):
    if not _number(x) or not _number(y):
        raise TypeError(f"math.nextafter() takes numbers, not {x} and {y}")
    return lambda x, y: float(np.nextafter(float(x), float(y)))


@register_jitable
def _modf64(v):
    if v != v:
        return v, v
    if v - v != 0.0:                            # an infinity: no fraction
        return math.copysign(0.0, v), v
    frac = math.fmod(v, 1.0)                    # exact, with v's sign
    return math.copysign(frac, v), math.copysign(v - frac, v)


@overload(math.modf)
def _modf(x):
    if not _number(x):
        raise TypeError(f"math.modf() takes a number, not {x}")
    if isinstance(x, types.Float) and x.bitwidth == 32:
        def impl32(x):
            f, i = _modf64(float(x))
            return np.float32(f), np.float32(i)
        return impl32
    return lambda x: _modf64(float(x))


@register_jitable
def _remainder64(x, y):
    if x != x or y != y or x - x != 0.0 or y == 0.0:
        return math.nan                         # CPython raises ValueError; libdevice's NaN
    ax = abs(x)
    ay = abs(y)
    m = math.fmod(ax, ay)                       # exact
    c = ay - m
    if m < c:
        r = m
    elif m > c:
        r = -c
    else:                                       # halfway: the even multiple
        r = m - 2.0 * math.fmod(0.5 * (ax - m), ay)
    return math.copysign(1.0, x) * r


@overload(math.remainder)
def _remainder(x, y):
    if not _number(x) or not _number(y):
        raise TypeError(f"math.remainder() takes numbers, not {x} and {y}")
    return lambda x, y: _remainder64(float(x), float(y))


@overload(math.cbrt)
def _cbrt(x):
    if not _number(x):
        raise TypeError(f"math.cbrt() takes a number, not {x}")
    return lambda x: float(np.cbrt(float(x)))


def _integer(x):
    return isinstance(x, (types.Integer, types.Boolean))


@overload(math.lcm)
def _lcm(a, b):
    """math.lcm of two integers (the form with more arguments is not taken), 0 when one is 0."""
    if not _integer(a) or not _integer(b):
        raise TypeError(f"math.lcm() takes two integers, not {a} and {b}")

    def impl(a, b):
        if a == 0 or b == 0:
            return 0
        return abs(a // math.gcd(a, b) * b)
    return impl


@overload(round)
def _round_integer(number, ndigits=None):
    """round(n, ndigits) of an integer: n itself for ndigits >= 0, else the nearest multiple of
    10**-ndigits, halves to the even multiple, an int as CPython's (floats are the builtin's)."""
    if not isinstance(number, types.Integer) or not isinstance(ndigits, types.Integer):
        return None

    def impl(number, ndigits=None):
        if ndigits >= 0:
            return number
        if ndigits < -18:   # 10**19 is past int64: 0 is the multiple, or one past int64
            if ndigits == -19 and (number > 5 * 10 ** 18 or number < -5 * 10 ** 18):
                raise OverflowError("round() result does not fit in int64")
            return number - number
        p = 10 ** (-ndigits)
        q = number // p
        twice = 2 * (number - q * p)
        if twice > p or (twice == p and q % 2 == 1):
            q += 1
        return q * p
    return impl
