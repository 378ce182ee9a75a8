"""NumPy's polynomials written in the compiled subset: the old interface's np.polyadd, np.polysub,
np.polymul, np.polydiv, np.polyder and np.polyint (coefficients highest power first, as NumPy's
lib/_polynomial_impl.py computes them, operation for operation), and np.polynomial.Polynomial
objects made in compiled code (Numba's: the coefficients, domain and window, read as
attributes). np.polynomial.polynomial's functions (lowest power first) are numpy_misc's.

A Polynomial is, to compiled code, the namedtuple (coef, domain, window) of its class
(pyjit/_registry.py: ATTRIBUTE_CLASSES registers the class with the runtime): one passed in
is read from its attributes, one returned is Polynomial(coef, domain, window). Its call, methods
and operators are the overloads of "method.Polynomial.<name>" at the end of this file, which
inference looks up for a value of the class (compiler/infer_calls.c: namedtuple_method)."""
import numpy as np

from ._util import (given, is_array, is_number, overload, promote, register_jitable, types,
                    value_or)
from .numpy_misc import _series


def _coefficients(t):
    """Whether t is what the old interface takes as coefficients: a 1-d array or a number."""
    return is_array(t) and t.ndim == 1 or is_number(t)


def _dtype(t):
    return t.dtype if is_array(t) else t


# ---- the old interface: coefficients highest power first ----

def _padded_sum(sign):
    """np.polyadd (sign 1) and np.polysub (-1): the shorter sequence padded with leading
    zeros, then added or subtracted in NumPy's promoted type."""
    def typing(a1, a2):
        if not (_coefficients(a1) and _coefficients(a2)):
            return None
        dt = promote(_dtype(a1), _dtype(a2))
        if sign < 0 and isinstance(dt, types.Boolean):
            raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use "
                            "the bitwise_xor, the `^` operator, or the logical_xor function "
                            "instead.")

        def impl(a1, a2):
            r1, r2 = _padded(a1, a2, dt)
            return r1 + r2

        def sub(a1, a2):
            r1, r2 = _padded(a1, a2, dt)
            return r1 - r2
        return impl if sign > 0 else sub
    return typing


@register_jitable
def _padded(a1, a2, dt):
    """a1 and a2 as 1-d arrays of dt of the longer's length, leading zeros added."""
    p1 = np.atleast_1d(np.asarray(a1))
    p2 = np.atleast_1d(np.asarray(a2))
    n = max(p1.shape[0], p2.shape[0])
    r1 = np.zeros(n, dt)
    r2 = np.zeros(n, dt)
    r1[n - p1.shape[0]:] = p1
    r2[n - p2.shape[0]:] = p2
    return r1, r2


overload(np.polyadd)(_padded_sum(1))
overload(np.polysub)(_padded_sum(-1))


def _leading_trimmed(p):
    pass


@overload(_leading_trimmed)
def _leading_trimmed_impl(p):
    """What np.poly1d keeps of a 1-d coefficient array: it without its leading zeros, or [0]
    when all are zero."""
    def impl(p):
        s = 0
        while s < p.shape[0] and p[s] == 0:
            s += 1
        if s == p.shape[0]:
            return np.zeros(1, p.dtype)
        return p[s:].copy()
    return impl


@overload(np.polymul)
def _polymul(a1, a2):
    """np.polymul: the convolution of the two sequences, each without its leading zeros (NumPy
    makes a poly1d of each first)."""
    if not (_coefficients(a1) and _coefficients(a2)):
        return None
    if isinstance(_dtype(a1), types.Boolean) and isinstance(_dtype(a2), types.Boolean):
        def logical(a1, a2):     # NumPy's bool products and sums: and, or
            return np.convolve(_leading_trimmed(np.atleast_1d(np.asarray(a1))).astype(np.int64),
                               _leading_trimmed(np.atleast_1d(np.asarray(a2))).astype(np.int64)
                               ) != 0
        return logical

    def impl(a1, a2):
        return np.convolve(_leading_trimmed(np.atleast_1d(np.asarray(a1))),
                           _leading_trimmed(np.atleast_1d(np.asarray(a2))))
    return impl


def _float_of(dt):
    """The type of an array of dt plus 0.0 (NumPy 2: a float32 array stays float32)."""
    if isinstance(dt, (types.Float, types.Complex)):
        return dt
    return types.float64


@overload(np.polydiv, jit_options={"error_model": "numpy"})
def _polydiv(u, v):
    """np.polydiv: the quotient and remainder of the long division, the remainder without the
    leading items within 1e-8 of zero (NumPy's allclose test), as NumPy's."""
    if not (_coefficients(u) and _coefficients(v)):
        return None
    ut, vt = _float_of(_dtype(u)), _float_of(_dtype(v))
    wt = promote(ut, vt)

    def impl(u, v):
        uu = np.atleast_1d(np.asarray(u)).astype(ut)
        vv = np.atleast_1d(np.asarray(v)).astype(vt)
        m = uu.shape[0] - 1
        n = vv.shape[0] - 1
        scale = 1. / vv[0]
        q = np.zeros(max(m - n + 1, 1), wt)
        r = uu.astype(wt)
        for k in range(0, m - n + 1):
            d = scale * r[k]
            q[k] = d
            r[k:k + n + 1] -= d * vv
        s = 0
        while s < r.shape[0] - 1 and abs(r[s]) <= 1e-8:
            s += 1
        return q, r[s:].copy()
    return impl


@overload(np.polyder)
def _polyder(p, m=1):
    """np.polyder: each coefficient times its power, m times. The result's dtype is the one
    NumPy's first step gives (the coefficients' promoted with int64), also for m=0, where
    NumPy returns p itself."""
    if not (is_array(p) and p.ndim == 1):
        return None
    rt = promote(p.dtype, types.int64)

    def impl(p, m=1):
        if m < 0:
            raise ValueError("Order of derivative must be positive (see polyint)")
        r = p.astype(rt)
        for _ in range(m):
            n = r.shape[0] - 1
            if n <= 0:
                return np.zeros(0, rt)
            r = r[:-1] * np.arange(n, 0, -1)
        return r
    return impl


def _integration_constants(k, m, dt):
    pass


@overload(_integration_constants)
def _integration_constants_impl(k, m, dt):
    """np.polyint's k: zeros without one, a number or an array of length 1 repeated m times,
    else an array of at least m constants (NumPy's ValueError for fewer)."""
    def impl(k, m, dt):
        if k is None:
            return np.zeros(m, dt)
        kk = np.atleast_1d(np.asarray(k)).astype(dt)
        if kk.shape[0] == 1 and m > 1:
            return np.full(m, kk[0], dt)
        if kk.shape[0] < m:
            raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
        return kk
    return impl


@overload(np.polyint)
def _polyint(p, m=1, k=None):
    """np.polyint: each coefficient divided by its power plus one, the constant k[i] appended at
    step i, m times (float or complex, as NumPy's true division makes them)."""
    if not (is_array(p) and p.ndim == 1):
        return None
    if given(k) and not (is_number(k) or is_array(k) and k.ndim <= 1):
        return None
    kt = _dtype(k) if given(k) else types.float64
    rt = promote(promote(p.dtype, types.int64) if isinstance(p.dtype, (types.Float,
                                                                       types.Complex))
                 else types.float64, kt)
    if isinstance(rt, types.Complex):
        def step(x, power):
            return x * (1.0 / power)     # NumPy divides complex by real through its reciprocal
    else:
        def step(x, power):
            return x / power
    step = register_jitable(step)

    def impl(p, m=1, k=None):
        if m < 0:
            raise ValueError("Order of integral must be positive (see polyder)")
        constants = _integration_constants(k, m, rt)
        r = p.astype(rt)
        for i in range(m):
            n = r.shape[0]
            y = np.empty(n + 1, rt)
            for j in range(n):
                y[j] = step(r[j], n - j)
            y[n] = constants[i]
            r = y
        return r
    return impl


# ---- np.polynomial.Polynomial ----

_Polynomial = np.polynomial.Polynomial


class _Build:
    """Polynomial's raw constructor in compiled code (frontend/consts.c: builder_of):
    _build(coef, domain, window) is the record of the three values as they are."""
    _pyjit_builds = _Polynomial


_build = _Build()


def _series_dtype(t, what):
    """The dtype NumPy's as_series gives a series of type t (ints become float64, floats and
    complex numbers stay); NumPy's error for what it refuses."""
    if isinstance(t, types.List):
        t = t.dtype
    dt = _dtype(t)
    if is_array(t) and t.ndim > 1:
        raise ValueError(f"{what} array is not 1-d")
    if isinstance(dt, types.Boolean):
        raise ValueError("Coefficient arrays have no common type")
    if isinstance(dt, (types.Float, types.Complex)):
        return dt
    if isinstance(dt, types.Integer):
        return types.float64
    raise TypeError(f"np.polynomial.Polynomial: {what.lower()} must be a 1-d array, a list or a "
                    f"number, not {t}")


def _interval(x, dt, default, is_domain):
    pass


@overload(_interval)
def _interval_impl(x, dt, default, is_domain):
    """A domain or window: the class's default (a copy) where None, else the series of two."""
    if not given(x):
        return lambda x, dt, default, is_domain: default.copy()

    def impl(x, dt, default, is_domain):
        r = _series(x, dt)
        if r.shape[0] != 2:
            if is_domain:
                raise ValueError("Domain has wrong number of elements.")
            raise ValueError("Window has wrong number of elements.")
        return r
    return impl


@overload(_Polynomial)
def _polynomial(coef, domain=None, window=None):
    """np.polynomial.Polynomial(coef, domain=None, window=None) made in compiled code, as NumPy
    makes one: the coefficients a copy of their series type (ints become float64), domain and
    window the class's defaults or series of two items; .coef, .domain and .window read them."""
    ct = _series_dtype(coef, "Coefficient")
    dts = [_series_dtype(x, "Domain" if k == 0 else "Window") if given(x) else None
           for k, x in enumerate((domain, window))]
    default_domain = np.array(_Polynomial.domain)
    default_window = np.array(_Polynomial.window)
    dd = dts[0] or types._as_type(default_domain.dtype)
    wd = dts[1] or types._as_type(default_window.dtype)
    d0, d1 = (float(v) for v in default_domain)
    w0, w1 = (float(v) for v in default_window)

    def impl(coef, domain=None, window=None):
        c = _series(coef, ct)
        d = _interval(domain, dd, np.array([d0, d1]).astype(dd), True)
        w = _interval(window, wd, np.array([w0, w1]).astype(wd), False)
        return _build(c, d, w)
    return impl


# ---- a Polynomial's call, methods and operators (keys "method.Polynomial.<name>", which
# compiler/infer_calls.c: namedtuple_method finds for a value of the class) ----

_P = np.polynomial.polynomial


def _is_polynomial(t):
    return getattr(t, "fields", None) == ("coef", "domain", "window") and \
        t.name.startswith("Polynomial(")


def _method(name):
    from ..extending import _METHODS
    key = f"method.Polynomial.{name}"
    return overload(_METHODS.setdefault(key, key), strict=False)


@register_jitable
def _mapparms(old, new):
    """NumPy's polyutils.mapparms: (off, scl) of the linear map taking old's interval to new's."""
    oldlen = old[1] - old[0]
    newlen = new[1] - new[0]
    return (old[1] * new[0] - old[0] * new[1]) / oldlen, newlen / oldlen


@_method("__call__")
def _poly_call(p, x):
    """p(x): the coefficients' series at x mapped from p's domain to its window, as NumPy's
    __call__ (a number gives a number, an array an array)."""
    if not (is_number(x) or is_array(x) or isinstance(x, (types.List, types.UniTuple))):
        return None
    if is_number(x) or is_array(x):
        def impl(p, x):
            off, scl = _mapparms(p.domain, p.window)
            return _P.polyval(off + scl * x, p.coef)
    else:
        def impl(p, x):
            off, scl = _mapparms(p.domain, p.window)
            return _P.polyval(off + scl * np.asarray(x), p.coef)
    return impl


@_method("degree")
def _poly_degree(p):
    return lambda p: len(p.coef) - 1


@_method("copy")
def _poly_copy(p):
    return lambda p: _build(p.coef.copy(), p.domain.copy(), p.window.copy())


@_method("mapparms")
def _poly_mapparms(p):
    return lambda p: _mapparms(p.domain, p.window)


@_method("deriv")
def _poly_deriv(p, m=1):
    def impl(p, m=1):
        off, scl = _mapparms(p.domain, p.window)
        return _Polynomial(_P.polyder(p.coef, m, scl), p.domain, p.window)
    return impl


@_method("integ")
def _poly_integ(p, m=1, k=None, lbnd=None):
    """p.integ(m, k, lbnd): k a number (NumPy's default [] is k=0), lbnd mapped to the window."""
    if given(k) and not is_number(k):
        raise TypeError(f"Polynomial.integ: k= takes a number in compiled code, not {k}")

    def impl(p, m=1, k=None, lbnd=None):
        off, scl = _mapparms(p.domain, p.window)
        lo = off + scl * value_or(lbnd, 0.0) if lbnd is not None else 0.0
        return _Polynomial(_P.polyint(p.coef, m, value_or(k, 0), lo, 1.0 / scl),
                           p.domain, p.window)
    return impl


@register_jitable
def _same_interval(p, q):
    if p.domain[0] != q.domain[0] or p.domain[1] != q.domain[1]:
        raise TypeError("Domains differ")
    if p.window[0] != q.window[0] or p.window[1] != q.window[1]:
        raise TypeError("Windows differ")


def _operand(name, other):
    """Whether other may stand beside a Polynomial in operator name: another Polynomial or a
    number; a TypeError naming what was given otherwise (never the tuple's own operator)."""
    if _is_polynomial(other) or is_number(other):
        return _is_polynomial(other)
    raise TypeError(f"Polynomial {name}: the other operand must be a Polynomial or a number in "
                    f"compiled code, not {other}")


def _binary(name, func, reflected=False):
    def typing(p, other):
        if not _is_polynomial(p):
            return None
        if _operand(name, other):
            def impl(p, other):
                _same_interval(p, other)
                return _Polynomial(func(p.coef, other.coef), p.domain, p.window)
        elif reflected:
            def impl(p, other):
                return _Polynomial(func(other, p.coef), p.domain, p.window)
        else:
            def impl(p, other):
                return _Polynomial(func(p.coef, other), p.domain, p.window)
        return impl
    typing.__name__ = typing.__qualname__ = f"_poly_{name.strip('_')}"
    _method(name)(typing)


for _name, _func in (("add", _P.polyadd), ("sub", _P.polysub), ("mul", _P.polymul)):
    _binary(f"__{_name}__", _func)
    _binary(f"__r{_name}__", _func, reflected=True)


@_method("__truediv__")
def _poly_truediv(p, other):
    if not _is_polynomial(p):
        return None
    if not is_number(other):
        raise TypeError(f"Polynomial /: the divisor must be a number, not {other}")
    # NumPy's __truediv__ is __floordiv__: polydiv's quotient, in as_series's common type
    return lambda p, other: _Polynomial(_P.polydiv(p.coef, other)[0], p.domain, p.window)


@_method("__neg__")
def _poly_neg(p):
    return lambda p: _build(-p.coef, p.domain.copy(), p.window.copy())


@_method("__pos__")
def _poly_pos(p):
    return lambda p: p


def _equality(negate):
    def typing(p, other):
        if not _is_polynomial(p):
            return None
        if not _is_polynomial(other):
            return lambda p, other: negate      # NumPy: a Polynomial equals only a Polynomial

        def impl(p, other):
            same = p.coef.shape == other.coef.shape and np.all(p.domain == other.domain) and \
                np.all(p.window == other.window) and np.all(p.coef == other.coef)
            return not same if negate else same
        return impl
    typing.__name__ = typing.__qualname__ = "_poly_ne" if negate else "_poly_eq"
    return typing


_method("__eq__")(_equality(False))
_method("__ne__")(_equality(True))
