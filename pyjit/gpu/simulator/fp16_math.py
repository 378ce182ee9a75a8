"""gpu.fp16 in the simulator: numba-cuda's half-precision functions on numpy.float16 scalars.

The compiled path (compiler/builtins.def, the gpu.fp16 rows) computes add, sub, mul, div and fma
in half precision and the other functions in float32, rounded back to half once; NumPy's float16
arithmetic rounds each operation once as well, so both give the same halves. fma is computed in
float64, where the product is exact and the sum rounds once more: a float64 result is close
enough to the exact one that rounding it to half gives the correctly rounded fma.
"""
import math as _math

import numpy as _np

_h = _np.float16
_f = _np.float32


def _via_float32(npf):
    def f(a):
        with _np.errstate(all="ignore"):
            return _h(npf(_f(_h(a))))
    return f


def hadd(a, b):
    with _np.errstate(all="ignore"):
        return _h(a) + _h(b)


def hsub(a, b):
    with _np.errstate(all="ignore"):
        return _h(a) - _h(b)


def hmul(a, b):
    with _np.errstate(all="ignore"):
        return _h(a) * _h(b)


def hdiv(a, b):
    with _np.errstate(all="ignore"):
        return _h(a) / _h(b)


def hfma(a, b, c):
    with _np.errstate(all="ignore"):
        return _h(float(_h(a)) * float(_h(b)) + float(_h(c)))


def hneg(a):
    return -_h(a)


def habs(a):
    return abs(_h(a))


def hmax(a, b):
    """A NaN loses to a number, as CUDA's __hmax."""
    return _np.fmax(_h(a), _h(b))


def hmin(a, b):
    return _np.fmin(_h(a), _h(b))


# Comparisons are ordered: a NaN compares false, hne included (CUDA's __hne).
def heq(a, b):
    return bool(_h(a) == _h(b))


def hne(a, b):
    a, b = _h(a), _h(b)
    return bool(a != b) and not (_math.isnan(a) or _math.isnan(b))


def hlt(a, b):
    return bool(_h(a) < _h(b))


def hle(a, b):
    return bool(_h(a) <= _h(b))


def hgt(a, b):
    return bool(_h(a) > _h(b))


def hge(a, b):
    return bool(_h(a) >= _h(b))


hsqrt = _via_float32(_np.sqrt)
hrsqrt = _via_float32(lambda x: _f(1) / _np.sqrt(x))
hrcp = _via_float32(lambda x: _f(1) / x)
hceil = _via_float32(_np.ceil)
hfloor = _via_float32(_np.floor)
htrunc = _via_float32(_np.trunc)
hrint = _via_float32(_np.rint)
hsin = _via_float32(_np.sin)
hcos = _via_float32(_np.cos)
hexp = _via_float32(_np.exp)
hexp2 = _via_float32(_np.exp2)
hexp10 = _via_float32(lambda x: _np.power(_f(10), x))
hlog = _via_float32(_np.log)
hlog2 = _via_float32(_np.log2)
hlog10 = _via_float32(_np.log10)
htanh = _via_float32(_np.tanh)
htanh_approx = htanh
