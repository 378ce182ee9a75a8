"""np.diff, np.cumprod, np.interp, np.isclose, np.allclose, np.nan_to_num, np.angle, np.sign of
arrays, np.polyval, written in the compiled subset."""
import numpy as np

from ._util import (
    given, is_array, is_number, math, overload, overload_method, promote, register_jitable, types,
    value_or,
)


@overload(np.diff)
def _diff(a, n=1, axis=-1):
    if not is_array(a):
        return None
    if a.ndim == 0:
        raise TypeError("diff requires input that is at least one dimensional")
    if isinstance(axis, types.Type) and not isinstance(axis, types.Integer):
        raise TypeError(f"np.diff() takes an int as axis in compiled code, not {axis}")
    boolean = isinstance(a.dtype, types.Boolean)   # NumPy's diff of bools is !=

    if a.ndim == 1:
        def impl(a, n=1, axis=-1):
            if n < 0:
                raise ValueError("order must be non-negative")
            if axis < -1 or axis > 0:
                raise np.exceptions.AxisError("axis out of bounds")
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
    return _diff_rows(a.ndim, boolean)


def _diff_rows(nd, boolean):
    """np.diff along any axis of an array of nd >= 2 dimensions: the axis moved last in a C
    copy seen as rows, each differenced in place, then moved back."""
    lead = [f"moved.shape[{d}]" for d in range(nd - 1)]
    step = "out[r, i + 1] != out[r, i]" if boolean else "out[r, i + 1] - out[r, i]"
    source = f"""def impl(a, n=1, axis=-1):
    if n < 0:
        raise ValueError("order must be non-negative")
    ax = _norm_axis(axis, {nd})
    moved = np.moveaxis(a, ax, -1).copy()
    m = moved.shape[{nd - 1}]
    rows = {" * ".join(lead)}
    out = moved.reshape((rows, m))
    for _ in range(n):
        if m == 0:
            break
        for r in range(rows):
            for i in range(m - 1):
                out[r, i] = {step}
        m -= 1
    res = out[:, :m].copy().reshape(({"".join(x + ", " for x in lead)}m))
    return np.moveaxis(res, -1, ax).copy()
"""
    from .numpy_shape import _norm_axis
    from ._util import generated
    return generated("impl", source, {"_norm_axis": _norm_axis})


@overload(np.cumprod)
def _cumprod(a, axis=None, dtype=None, out=None):
    from .numpy_axis import accumulate_into
    into = accumulate_into("cumprod", a, axis, out)
    if into is not None:
        return into
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


def _conj_method(a):
    """a.conj() and a.conjugate(): np.conjugate(a), a new array; of a real or bool array, the
    array itself, as NumPy's method gives (the ufunc makes a bool array int8)."""
    if not isinstance(a.dtype, types.Complex):
        return lambda a: a
    return lambda a: np.conjugate(a)


@overload_method(types.Array, "_imag_of_real")
def _imag_of_real(a):
    """a.imag of a real or bool array: zeros of its shape and dtype (NumPy's is read-only)."""
    return lambda a: np.zeros_like(a)


overload_method(types.Array, "conj")(_conj_method)
overload_method(types.Array, "conjugate")(_conj_method)


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


@register_jitable
def _close_complex(x, y, rtol, atol, equal_nan):
    """_close of complex numbers as NumPy's isclose compares them: NaN where a part is, finite
    where both parts are, the distance their absolute difference."""
    if x == y:
        return True
    xnan = x.real != x.real or x.imag != x.imag
    ynan = y.real != y.real or y.imag != y.imag
    if xnan or ynan:
        return equal_nan and xnan and ynan
    if not (math.isfinite(x.real) and math.isfinite(x.imag) and math.isfinite(y.real) and
            math.isfinite(y.imag)):
        return False
    return abs(x - y) <= atol + rtol * abs(y)


def _isclose_typing(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    if not (is_array(a) or is_number(a)) or not (is_array(b) or is_number(b)):
        return None
    if any(isinstance(t.dtype if is_array(t) else t, types.Complex) for t in (a, b)):
        return _isclose_complex(a, b)
    if is_number(a) and is_number(b):
        def impl(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
            return _close(float(a), float(b), rtol, atol, equal_nan)
        return impl

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


def _isclose_complex(a, b):
    if is_number(a) and is_number(b):
        def impl(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
            return _close_complex(complex(a), complex(b), rtol, atol, equal_nan)
        return impl

    def impl_array(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        d = np.zeros_like(a - b)   # the broadcast shape, as NumPy broadcasts a and b
        fx = (d + a).ravel()
        fy = (d + b).ravel()
        out = np.empty(fx.size, dtype=np.bool_)
        for i in range(fx.size):
            out[i] = _close_complex(complex(fx[i]), complex(fy[i]), rtol, atol, equal_nan)
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



def _real_part_type(dt):
    if isinstance(dt, types.Complex):
        return types.float32 if dt == types.complex64 else types.float64
    return dt


@register_jitable
def _fix_parts(b, n, p, m):
    """The real 1-d array (or view) b with NaN as n, inf as p and -inf as m, in place."""
    for i in range(b.size):
        v = b[i]
        if v != v:
            b[i] = n
        elif v == np.inf:
            b[i] = p
        elif v == -np.inf:
            b[i] = m


@overload(np.nan_to_num)
def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN as nan, infinities as posinf and neginf (the dtype's largest finite values when left
    out), in each part of a complex number; arrays of ints and bools copied unchanged. Complex
    numbers are worked on through the .real and .imag views of a 1-d copy."""
    if not (is_array(x) or is_number(x)):
        return None
    dt = x.dtype if is_array(x) else x
    if not isinstance(dt, (types.Float, types.Complex)):
        if is_array(x):
            return lambda x, copy=True, nan=0.0, posinf=None, neginf=None: x.copy()
        return lambda x, copy=True, nan=0.0, posinf=None, neginf=None: x
    ft = _real_part_type(dt)
    big = float(np.finfo(ft.name).max)
    complex_ = isinstance(dt, types.Complex)
    array = is_array(x)

    def impl(x, copy=True, nan=0.0, posinf=None, neginf=None):
        n = ft(nan)
        p = ft(value_or(posinf, big))
        m = ft(value_or(neginf, -big))
        out = np.full(1, x) if not array else x.copy().reshape(x.size)
        if complex_:
            _fix_parts(out.real, n, p, m)
            _fix_parts(out.imag, n, p, m)
        else:
            _fix_parts(out, n, p, m)
        return out[0] if not array else out.reshape(x.shape)
    return impl


@overload(np.angle)
def _angle(z, deg=False):
    """The argument of z (0 or pi for real numbers), in degrees when deg is true."""
    if not (is_array(z) or is_number(z)):
        return None
    dt = z.dtype if is_array(z) else z
    rt = _real_part_type(dt) if isinstance(dt, (types.Float, types.Complex)) else \
        np.result_type(dt.name, np.float16).name
    if rt == "float16":     # bools and 8-bit ints: NumPy computes in float16
        return None
    rt = types._as_type(np.dtype(rt)) if isinstance(rt, str) else rt
    complex_ = isinstance(dt, types.Complex)
    array = is_array(z)

    def impl(z, deg=False):
        flat = z.ravel() if array else np.full(1, z)
        out = np.empty(flat.size, dtype=rt)
        if complex_:
            re = flat.real      # the parts through views (see _nan_to_num)
            im = flat.imag
            for i in range(flat.size):
                out[i] = np.arctan2(im[i], re[i])
        else:
            for i in range(flat.size):
                out[i] = np.arctan2(rt(0), rt(flat[i]))
        if deg:
            out *= rt(180.0 / np.pi)
        return out.reshape(z.shape) if array else out[0]
    return impl


@overload(np.sign)
def _sign(x):
    """np.sign of arrays (the builtin serves numbers): -1, 0 or 1 in x's dtype, NaN for NaN,
    z / |z| for complex numbers (complex scalars too: the builtin does not take them)."""
    if isinstance(x, types.Complex):
        return lambda x: np.sign(np.full(1, x))[0]
    if not is_array(x):
        return None
    dt = x.dtype
    if isinstance(dt, types.Boolean):
        def boolean(x):
            raise TypeError("ufunc 'sign' did not contain a loop with signature matching types "
                            "<class 'numpy.dtypes.BoolDType'> -> None")
        return boolean
    complex_ = isinstance(dt, types.Complex)

    def impl(x):
        flat = x.ravel()
        out = np.empty(flat.size, dtype=dt)
        for i in range(flat.size):
            v = flat[i]
            if complex_:
                out[i] = v / abs(v) if v != 0 else v
            elif v != v:
                out[i] = v
            else:
                out[i] = dt(1) if v > 0 else (dt(-1) if v < 0 else dt(0))
        return out.reshape(x.shape)
    return impl


@overload(np.polyval)
def _polyval(p, x):
    """Horner's rule from the first (highest) coefficient, in NumPy's promoted dtype."""
    if not is_array(p) or p.ndim != 1 or not (is_array(x) or is_number(x)):
        return None
    xt = x.dtype if is_array(x) else x
    rt = promote(p.dtype, xt)
    if is_number(x):
        def scalar(p, x):
            y = rt(0)
            for k in range(p.size):
                y = y * rt(x) + rt(p[k])
            return y
        return scalar

    def impl(p, x):
        flat = x.ravel()
        out = np.zeros(flat.size, dtype=rt)
        for k in range(p.size):
            for i in range(flat.size):
                out[i] = out[i] * rt(flat[i]) + rt(p[k])
        return out.reshape(x.shape)
    return impl


@overload(np.roots)
def _roots(p):
    """The eigenvalues of the companion matrix of p without its leading and trailing zeros,
    then a zero root per trailing zero, as NumPy computes them. As in Numba, real coefficients
    give real roots (complex ones raise the eigvals ValueError: the dtype cannot depend on the
    values when compiling), complex coefficients complex roots."""
    if not is_array(p) or not isinstance(p.dtype, (types.Integer, types.Boolean, types.Float,
                                                   types.Complex)):
        return None
    if p.ndim != 1:
        def rank(p):
            raise ValueError("Input must be a rank-1 array.")
        return rank
    dt = p.dtype if isinstance(p.dtype, (types.Float, types.Complex)) else types.float64

    def impl(p):
        nz = np.nonzero(p)[0]
        if nz.size == 0:
            return np.empty(0, dt)
        trailing = p.size - nz[-1] - 1
        q = p[nz[0]:nz[-1] + 1].astype(dt)
        n = q.size - 1
        a = np.zeros((n, n), dt)
        for i in range(n - 1):
            a[i + 1, i] = 1
        for j in range(n):
            a[0, j] = -q[j + 1] / q[0]
        return np.concatenate((np.linalg.eigvals(a), np.zeros(trailing, dt)))
    return impl


# ---- np.fix and np.sort_complex ----

@overload(np.fix)
def _fix(x, out=None):
    """Rounding toward zero, as np.trunc (floats stay their type, ints and bools as they are)."""
    if not (is_array(x) or is_number(x)) or given(out):
        return None
    if isinstance(x.dtype if is_array(x) else x, (types.Integer, types.Boolean)):
        if is_array(x):                  # NumPy 2's ceil and floor keep ints
            return lambda x, out=None: x.copy()
        return lambda x, out=None: x
    return lambda x, out=None: np.trunc(x)


@overload(np.sort_complex)
def _sort_complex(a):
    """The items sorted (by real, then imaginary part), as complex: complex64 of 8- and 16-bit
    ints, complex128 of the other real types, as NumPy's."""
    if not is_array(a):
        return None
    small = (types.int8, types.uint8, types.int16, types.uint16)
    ct = a.dtype if isinstance(a.dtype, types.Complex) else \
        types.complex64 if a.dtype in small else types.complex128
    return lambda a: np.sort(a).astype(ct)
