"""np.diff, np.cumprod, np.interp, np.isclose, np.allclose, written in the compiled subset."""
import numpy as np

from ._util import (
    given, is_array, is_number, math, overload, overload_method, register_jitable, types, value_or,
)


@overload(np.diff)
def _diff(a, n=1):
    if not is_array(a) or a.ndim not in (1, 2):
        return None
    boolean = isinstance(a.dtype, types.Boolean)   # NumPy's diff of bools is !=

    if a.ndim == 1:
        def impl(a, n=1):
            if n < 0:
                raise ValueError("order must be non-negative")
            out = a.copy()
            m = out.size
            for _ in range(n):
                if m == 0:
                    break
                for i in range(m - 1):
                    out[i] = out[i + 1] != out[i] if boolean else out[i + 1] - out[i]
                m -= 1
            return out[:m].copy()
        return impl

    def impl2(a, n=1):
        if n < 0:
            raise ValueError("order must be non-negative")
        out = a.copy()
        m = out.shape[1]
        for _ in range(n):
            if m == 0:
                break
            for r in range(out.shape[0]):
                for i in range(m - 1):
                    out[r, i] = out[r, i + 1] != out[r, i] if boolean else out[r, i + 1] - out[r, i]
            m -= 1
        return out[:, :m].copy()
    return impl2


@overload(np.cumprod)
def _cumprod(a, axis=None, dtype=None, out=None):
    if not is_array(a) or given(out) or given(dtype):
        return None
    if given(axis):
        from .numpy_axis import cumprod_along
        return cumprod_along(a, axis)
    dt = a.dtype
    if isinstance(dt, types.Boolean) or (isinstance(dt, types.Integer) and dt.signed):
        dt = types.int64
    elif isinstance(dt, types.Integer):
        dt = types.uint64

    def impl(a, axis=None, dtype=None, out=None):
        b = a.ravel()
        r = np.empty(b.size, dtype=dt)
        p = dt(1)
        for i in range(b.size):
            p *= dt(b[i])
            r[i] = p
        return r
    return impl


overload_method(types.Array, "cumprod")(_cumprod)


@register_jitable
def _interp_one(x, xp, fp, left, right):
    n = xp.size
    if x != x:
        return x
    if x < xp[0]:
        return left
    if x > xp[n - 1]:
        return right
    if x == xp[n - 1]:
        return fp[n - 1]
    lo, hi = 0, n - 1
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if xp[mid] <= x:
            lo = mid
        else:
            hi = mid
    if x == xp[lo]:
        return fp[lo]
    slope = (fp[lo + 1] - fp[lo]) / (xp[lo + 1] - xp[lo])
    r = slope * (x - xp[lo]) + fp[lo]
    if r != r:
        r = slope * (x - xp[lo + 1]) + fp[lo + 1]
        if r != r and fp[lo] == fp[lo + 1]:
            r = fp[lo]
    return r


@register_jitable
def _interp_prepare(xp, fp, left, right):
    if xp.size == 0:
        raise ValueError("array of sample points is empty")
    if xp.size != fp.size:
        raise ValueError("fp and xp are not of the same length.")
    xpf = xp.astype(np.float64)
    fpf = fp.astype(np.float64)
    return xpf, fpf, float(value_or(left, fpf[0])), float(value_or(right, fpf[fpf.size - 1]))


@overload(np.interp)
def _interp(x, xp, fp, left=None, right=None):
    if not (is_array(xp) and is_array(fp) and xp.ndim == 1 and fp.ndim == 1):
        return None
    if isinstance(fp.dtype, types.Complex) or not (is_number(x) or is_array(x)):
        return None

    if is_number(x):
        def impl(x, xp, fp, left=None, right=None):
            xpf, fpf, lv, rv = _interp_prepare(xp, fp, left, right)
            return _interp_one(float(x), xpf, fpf, lv, rv)
        return impl

    def impl_array(x, xp, fp, left=None, right=None):
        xpf, fpf, lv, rv = _interp_prepare(xp, fp, left, right)
        flat = x.ravel()
        out = np.empty(flat.size, dtype=np.float64)
        for i in range(flat.size):
            out[i] = _interp_one(float(flat[i]), xpf, fpf, lv, rv)
        return out.reshape(x.shape)
    return impl_array


@register_jitable
def _close(x, y, rtol, atol, equal_nan):
    if x == y:
        return True
    if x != x or y != y:
        return equal_nan and x != x and y != y
    if not (math.isfinite(x) and math.isfinite(y)):
        return False
    return abs(x - y) <= atol + rtol * abs(y)


def _isclose_typing(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    if is_number(a) and is_number(b):
        def impl(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
            return _close(float(a), float(b), rtol, atol, equal_nan)
        return impl
    if not (is_array(a) or is_number(a)) or not (is_array(b) or is_number(b)):
        return None

    def impl_array(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        d = np.zeros_like(a - b)   # the broadcast shape, as NumPy broadcasts a and b
        x = d + a
        y = d + b
        fx = x.ravel()
        fy = y.ravel()
        out = np.empty(fx.size, dtype=np.bool_)
        for i in range(fx.size):
            out[i] = _close(float(fx[i]), float(fy[i]), rtol, atol, equal_nan)
        return out.reshape(d.shape)
    return impl_array


overload(np.isclose)(_isclose_typing)


@overload(np.allclose)
def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    if not (is_array(a) or is_number(a)) or not (is_array(b) or is_number(b)):
        return None

    def impl(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        return bool(np.all(np.isclose(a, b, rtol, atol, equal_nan)))
    return impl

