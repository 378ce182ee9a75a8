"""np.array_equal, convolve, correlate, kron, trapezoid, cov, corrcoef, and
array.any()/array.all(), written in the compiled subset. Semantics and messages are NumPy's."""
import numpy as np

from ._util import (given, is_array, is_number, overload, overload_method, promote,
                    register_jitable, types)


@overload(np.array_equal)
def _array_equal(a1, a2, equal_nan=False):
    if not (is_array(a1) or is_number(a1)) or not (is_array(a2) or is_number(a2)):
        return None

    def impl(a1, a2, equal_nan=False):
        x = np.asarray(a1)
        y = np.asarray(a2)
        if x.shape != y.shape:
            return False
        fx = x.ravel()
        fy = y.ravel()
        for i in range(fx.size):
            if fx[i] != fy[i]:
                if not (equal_nan and fx[i] != fx[i] and fy[i] != fy[i]):
                    return False
        return True
    return impl


def _mode(mode, default):
    """The mode a call gives (types.StringLiteral), or default where it leaves it out."""
    if mode is None or isinstance(mode, types.Omitted):
        return default
    if isinstance(mode, str):   # the default itself
        return mode
    return getattr(mode, "literal_value", None)


def _sliding(a, v, mode, flip):
    """convolve (flip: v reversed, as convolution is) and correlate over 1-d arrays; mode is
    the constant string the call gives."""
    if not is_array(a) or not is_array(v) or a.ndim != 1 or v.ndim != 1:
        return None
    if mode not in ("full", "same", "valid"):
        return None
    dt = promote(a.dtype, v.dtype)
    if isinstance(dt, types.Boolean):
        return None
    conj = isinstance(v.dtype, types.Complex) and not flip

    full_mode, same_mode = mode == "full", mode == "same"

    def impl(a, v):
        n, m = a.size, v.size
        if m == 0:
            raise ValueError("v cannot be empty")
        if n == 0:
            raise ValueError("a cannot be empty")
        w = v[::-1] if flip else v
        full = n + m - 1
        out = np.zeros(full, dt)
        # out[k] = sum_j a[k - (m - 1) + j] * w[j], the window of a under w ending at k
        for k in range(full):
            s = dt(0)
            lo = max(0, m - 1 - k)
            hi = min(m, n + m - 1 - k)
            for j in range(lo, hi):
                s += a[k - (m - 1) + j] * (w[j].conjugate() if conj else w[j])
            out[k] = s
        if full_mode:
            return out
        if same_mode:
            size = max(n, m)
            start = (full - size) // 2
            return out[start:start + size].copy()
        size = max(n, m) - min(n, m) + 1
        start = min(n, m) - 1
        return out[start:start + size].copy()
    return register_jitable(impl)


@overload(np.convolve)
def _convolve(a, v, mode="full"):
    impl = _sliding(a, v, _mode(mode, "full"), True)
    if impl is None:
        return None

    def convolve(a, v, mode="full"):
        if a.size < v.size:   # NumPy swaps them: convolution is commutative
            return impl(v, a)
        return impl(a, v)
    return convolve


@overload(np.correlate)
def _correlate(a, v, mode="valid"):
    impl = _sliding(a, v, _mode(mode, "valid"), False)
    return None if impl is None else (lambda a, v, mode="valid": impl(a, v))


@overload(np.kron)
def _kron(a, b):
    if not is_array(a) or not is_array(b) or a.ndim != b.ndim or a.ndim not in (1, 2):
        return None
    dt = promote(a.dtype, b.dtype)
    if a.ndim == 1:
        def impl(a, b):
            out = np.empty(a.size * b.size, dt)
            for i in range(a.size):
                for j in range(b.size):
                    out[i * b.size + j] = a[i] * b[j]
            return out
        return impl

    def impl2(a, b):
        (p, q), (r, s) = a.shape, b.shape
        out = np.empty((p * r, q * s), dt)
        for i in range(p):
            for j in range(q):
                for k in range(r):
                    for m in range(s):
                        out[i * r + k, j * s + m] = a[i, j] * b[k, m]
        return out
    return impl2


def _trapezoid(y, x=None, dx=1.0, axis=-1):
    if not is_array(y) or y.ndim == 0:
        return None
    if y.ndim > 1:
        return _trapezoid_rows(y, x)
    if given(x):
        if not is_array(x) or x.ndim != 1:
            return None

        def with_x(y, x=None, dx=1.0, axis=-1):
            if x.size != y.size:
                raise ValueError("x and y must have the same length")
            s = 0.0
            for i in range(1, y.size):
                s += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2.0
            return s
        return with_x

    def with_dx(y, x=None, dx=1.0, axis=-1):
        s = 0.0
        for i in range(1, y.size):
            s += dx * (y[i] + y[i - 1]) / 2.0
        return s
    return with_dx


def _trapezoid_rows(y, x):
    """np.trapezoid along any axis of an array of 2 dimensions or more: one integral per row of
    the other axes, x a 1-d array along the axis (or dx)."""
    if given(x) and (not is_array(x) or x.ndim != 1):
        raise TypeError(f"np.trapezoid() of a {y.ndim}-d array takes x as a 1-d array along the "
                        f"axis in compiled code, not {x}")
    nd = y.ndim
    step = ("(x[i] - x[i - 1])" if given(x) else "dx")
    lead = "".join(f"moved.shape[{d}], " for d in range(nd - 1))
    source = f"""def impl(y, x=None, dx=1.0, axis=-1):
    ax = _norm_axis(axis, {nd})
    moved = np.moveaxis(y, ax, -1)
    m = moved.shape[{nd - 1}]
    {"if x.size != m: raise ValueError('x and y must have the same length')" if given(x) else ""}
    out = np.empty(({lead}), np.float64)
    for idx in np.ndindex(out.shape):
        row = moved[idx]
        s = 0.0
        for i in range(1, m):
            s += {step} * (row[i] + row[i - 1]) / 2.0
        out[idx] = s
    return out
"""
    from ._util import generated
    from .numpy_shape import _norm_axis
    return generated("impl", source, {"_norm_axis": _norm_axis})


overload(np.trapezoid)(_trapezoid)


@overload(np.cov, jit_options={"error_model": "numpy"})   # 0 / 0 degrees of freedom: NaN
def _cov(m, y=None, rowvar=True, bias=False, ddof=None):
    if not is_array(m) or m.ndim not in (1, 2) or isinstance(m.dtype, types.Complex):
        return None
    has_y = given(y)
    if has_y and (not is_array(y) or y.ndim not in (1, 2) or isinstance(y.dtype, types.Complex)):
        return None
    squeeze = m.ndim == 1 and not has_y

    def impl(m, y=None, rowvar=True, bias=False, ddof=None):
        a = _rows(m, rowvar)
        if has_y:
            b = _rows(y, rowvar)
            if a.shape[1] != b.shape[1]:
                raise ValueError("all the input array dimensions except for the concatenation "
                                 "axis must match exactly")
            x = np.concatenate((a, b))
        else:
            x = a
        nvar, nobs = x.shape
        d = (0 if bias else 1) if ddof is None else ddof
        mean = np.empty(nvar)
        for i in range(nvar):
            mean[i] = x[i].sum() / nobs
        out = np.empty((nvar, nvar))
        fact = max(nobs - d, 0)   # NumPy: no degrees of freedom left divide by 0
        for i in range(nvar):
            for j in range(i, nvar):
                s = 0.0
                for k in range(nobs):
                    s += (x[i, k] - mean[i]) * (x[j, k] - mean[j])
                out[i, j] = s / fact
                out[j, i] = out[i, j]
        return out
    return _squeezed(register_jitable(error_model="numpy")(impl)) if squeeze else impl


def _rows(m, rowvar):
    pass


@overload(_rows)
def _rows_impl(m, rowvar):
    """m as float64 variables x observations (a 1-d m is one variable)."""
    if m.ndim == 1:
        def one(m, rowvar):
            out = np.empty((1, m.size))
            for k in range(m.size):
                out[0, k] = m[k]
            return out
        return one

    def two(m, rowvar):
        src = m if rowvar else m.T
        out = np.empty(src.shape)
        for i in range(src.shape[0]):
            for k in range(src.shape[1]):
                out[i, k] = src[i, k]
        return out
    return two


def _squeezed(impl):
    """np.cov of one 1-d array is a 0-d array in NumPy; compiled code gives its one value."""
    def one(m, y=None, rowvar=True, bias=False, ddof=None):
        return impl(m, y, rowvar, bias, ddof)[0, 0]
    return one


@overload(np.corrcoef, jit_options={"error_model": "numpy"})
def _corrcoef(x, y=None, rowvar=True):
    if not is_array(x) or x.ndim not in (1, 2):
        return None
    if x.ndim == 1 and not given(y):
        def one(x, y=None, rowvar=True):
            c = np.cov(x)
            return 1.0 if c == c and c != 0 else np.nan   # NumPy's c / c
        return one

    def impl(x, y=None, rowvar=True):
        c = np.cov(x, y, rowvar)
        n = c.shape[0]
        d = np.empty(n)
        for i in range(n):
            d[i] = np.sqrt(c[i, i])
        out = np.empty((n, n))
        for i in range(n):
            for j in range(n):
                v = c[i, j] / d[i] / d[j]
                out[i, j] = max(-1.0, min(1.0, v)) if v == v else v
        return out
    return impl


def _truth_method(found):
    """a.any() and a.all(): np.any and np.all of a, with the same arguments."""
    def typing(a, axis=None, out=None, keepdims=False):
        from .numpy_logic import truth_reduction
        return truth_reduction(found)(a, axis, out, keepdims)
    return typing


overload_method(types.Array, "any")(_truth_method(True))
overload_method(types.Array, "all")(_truth_method(False))


def _register_where():
    """a.any() and a.all() with where= (numpy_where.py)."""
    from . import numpy_where
    for name in ("any", "all"):
        typing = numpy_where.reduction(name, name, "a, axis=None, out=None, keepdims=False, "
                                                   "where=True")
        typing.__module__ = __name__
        overload_method(types.Array, name)(typing)


_register_where()
