"""Smaller NumPy functions Numba users write, in the compiled subset: np.shape, np.ndim, np.size,
np.isscalar, np.iscomplexobj, np.isrealobj, np.iscomplex, np.isreal, np.isposinf, np.isneginf,
np.asarray_chkfinite, the windows (np.bartlett, np.blackman, np.hamming, np.hanning, np.kaiser)
and np.i0, np.extract,
np.place, np.copyto, np.indices, np.tril_indices, np.triu_indices and their _from forms,
np.trim_zeros, np.unwrap, np.resize, np.diagonal, np.iinfo and np.finfo (their numbers, folded
when compiling); and the array methods that are these functions (a.dot, a.repeat, a.nonzero,
a.round, a.clip, a.searchsorted, a.diagonal, a.trace)."""
import collections
import math

import numpy as np

from ._util import (generated, given, is_array, is_number, overload, overload_method, promote,
                    register_jitable, types)


def _value(t):
    return is_array(t) or is_number(t)


def _is_complex(t):
    return isinstance(t.dtype if is_array(t) else t, types.Complex)


# ---- what an argument is ----

@overload(np.shape)
def _shape(a):
    if is_array(a):
        return lambda a: a.shape
    if is_number(a):
        return lambda a: ()
    return None


@overload(np.ndim)
def _ndim(a):
    if is_array(a):
        nd = a.ndim
        return lambda a: nd
    if is_number(a):
        return lambda a: 0
    return None


@overload(np.size)
def _size(a, axis=None):
    if is_array(a) and not (isinstance(axis, types.Type) and given(axis)):
        return lambda a, axis=None: a.size
    if is_array(a) and isinstance(axis, types.Integer):
        from .numpy_shape import _norm_axis
        nd = a.ndim
        return generated("impl", "def impl(a, axis=None):\n"
                                 f"    return a.shape[_norm_axis(axis, {nd})]\n",
                         {"_norm_axis": _norm_axis})
    if is_number(a):
        return lambda a, axis=None: 1
    return None


@overload(np.isscalar)
def _isscalar(element):
    answer = is_number(element) or isinstance(element, types.UnicodeType)
    return lambda element: answer


@overload(np.iscomplexobj)
def _iscomplexobj(x):
    if not _value(x):
        return None
    answer = _is_complex(x)
    return lambda x: answer


@overload(np.isrealobj)
def _isrealobj(x):
    if not _value(x):
        return None
    answer = not _is_complex(x)
    return lambda x: answer


def _elementwise_test(complex_test, real_value):
    def typing(x):
        if not _value(x):
            return None
        if _is_complex(x):
            return complex_test
        if is_array(x):
            return lambda x: np.full(x.shape, real_value, np.bool_)
        return lambda x: real_value
    return typing


overload(np.iscomplex)(_elementwise_test(lambda x: np.imag(x) != 0, False))
overload(np.isreal)(_elementwise_test(lambda x: np.imag(x) == 0, True))


def _infinity_test(sign):
    def typing(x, out=None):
        if not _value(x) or _is_complex(x) or given(out):
            return None
        if is_array(x):
            return lambda x, out=None: np.isinf(x) & (np.signbit(x) == sign)
        return lambda x, out=None: math.isinf(x) and (x < 0) == sign
    return typing


overload(np.isposinf)(_infinity_test(False))
overload(np.isneginf)(_infinity_test(True))


@overload(np.asarray_chkfinite)
def _asarray_chkfinite(a, dtype=None):
    if not is_array(a) and not isinstance(a, (types.List, types.Tuple)):
        return None

    def impl(a, dtype=None):
        r = np.asarray(a, dtype)
        if not np.isfinite(r).all():
            raise ValueError("array must not contain infs or NaNs")
        return r
    return impl


# ---- windows (NumPy's formulas) ----

def _window(body):
    def typing(M):
        if not isinstance(M, (types.Integer, types.Float, types.Boolean)):
            return None
        return generated("impl", "def impl(M):\n"
                                 "    if M < 1:\n"
                                 "        return np.empty(0, np.float64)\n"
                                 "    if M == 1:\n"
                                 "        return np.ones(1, np.float64)\n"
                                 "    n = np.arange(1 - M, M, 2).astype(np.float64)\n"
                                 f"    return {body}\n", {"pi": math.pi})
    return typing


overload(np.bartlett)(_window("np.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))"))
overload(np.blackman)(_window("0.42 + 0.5 * np.cos(pi * n / (M - 1)) + "
                              "0.08 * np.cos(2.0 * pi * n / (M - 1))"))
overload(np.hamming)(_window("0.54 + 0.46 * np.cos(pi * n / (M - 1))"))
overload(np.hanning)(_window("0.5 + 0.5 * np.cos(pi * n / (M - 1))"))


def _i0_scalar(x):
    """The modified Bessel function of the first kind, order 0: its power series, whose terms
    are all positive (no cancellation), summed until they no longer change the sum."""
    q = x * x / 4.0
    term = 1.0
    total = 1.0
    k = 1
    while True:
        term *= q / (k * k)
        new = total + term
        if new == total or term != term:
            return new
        total = new
        k += 1


register_jitable(_i0_scalar)


@overload(np.i0)
def _i0(x):
    if is_array(x) and not _is_complex(x):
        def impl(x):
            out = np.empty(x.shape, np.float64)
            flat = out.reshape(out.size)
            src = np.ravel(x)
            for i in range(src.size):
                flat[i] = _i0_scalar(float(src[i]))
            return out
        return impl
    if is_number(x) and not _is_complex(x):
        return lambda x: _i0_scalar(float(x))
    return None


@overload(np.kaiser)
def _kaiser(M, beta):
    if not isinstance(M, (types.Integer, types.Float, types.Boolean)) or not is_number(beta):
        return None

    def impl(M, beta):
        if M < 1:
            return np.empty(0, np.float64)
        if M == 1:
            return np.ones(1, np.float64)
        alpha = (M - 1) / 2.0
        out = np.empty(int(M), np.float64)
        for i in range(out.size):
            r = (i - alpha) / alpha
            out[i] = _i0_scalar(beta * math.sqrt(1.0 - r * r)) / _i0_scalar(float(beta))
        return out
    return impl


# ---- selecting and placing ----

@overload(np.extract)
def _extract(condition, arr):
    if not (_value(condition) and is_array(arr)):
        return None

    def impl(condition, arr):
        return np.ravel(arr)[np.flatnonzero(np.asarray(condition))]
    return impl


@overload(np.place)
def _place(arr, mask, vals):
    if not (is_array(arr) and _value(mask)):
        return None

    def impl(arr, mask, vals):
        m = np.ravel(np.asarray(mask))
        v = np.ravel(np.asarray(vals))
        if m.size != arr.size:
            raise ValueError("place: mask and data must be the same size")
        j = 0
        for i in range(m.size):
            if m[i]:
                if v.size == 0:
                    raise ValueError("Cannot insert from an empty array!")
                arr.flat[i] = v[j % v.size]
                j += 1
    return impl


@overload(np.copyto)
def _copyto(dst, src, casting="same_kind", where=True):
    if not is_array(dst) or not _value(src):
        return None
    if isinstance(where, types.Type) and given(where) and not isinstance(where,
                                                                         types.BooleanLiteral):
        def masked(dst, src, casting="same_kind", where=True):
            w = np.broadcast_to(where, dst.shape)
            s = np.broadcast_to(src, dst.shape)
            for idx in np.ndindex(dst.shape):
                if w[idx]:
                    dst[idx] = s[idx]
        return masked

    def impl(dst, src, casting="same_kind", where=True):
        dst[...] = src
    return impl


@overload_method(types.Array, "_set_all")
def _set_all(view, src):
    """rec['field'] = src for a subarray field of a record (compiler/infer_structured.c): src
    (an array or a number) copied into the field's view, broadcast as NumPy assigns it."""
    if not _value(src):
        return None

    def impl(view, src):
        view[...] = src
    return impl


# ---- index grids ----

@overload(np.indices)
def _indices(dimensions, dtype=None, sparse=False):
    if not (isinstance(dimensions, types.Tuple) and
            all(isinstance(t, types.Integer) for t in dimensions.types)):
        return None
    if isinstance(sparse, types.Type) and given(sparse):
        raise TypeError("np.indices: sparse= is not supported in compiled code")
    from .lists import _dtype_of
    dt = _dtype_of(dtype) if isinstance(dtype, types.Type) and given(dtype) else types.int64
    n = len(dimensions.types)
    shape = "".join(f"dimensions[{d}], " for d in range(n))
    lines = ["def impl(dimensions, dtype=None, sparse=False):",
             f"    r = np.empty(({n}, {shape}), DT)"]
    if n:
        lines += [f"    for idx in np.ndindex(({shape})):"]
        lines += [f"        r[({d}, ) + idx] = idx[{d}]" for d in range(n)]
    lines.append("    return r")
    return generated("impl", "\n".join(lines) + "\n", {"DT": dt})


@overload(np.diag_indices)
def _diag_indices(n, ndim=2):
    if not isinstance(n, types.Integer):
        return None
    k = ndim if isinstance(ndim, int) else getattr(ndim, "literal_value", None)
    if not isinstance(k, int):
        raise TypeError("np.diag_indices: ndim= must be a constant int in compiled code")
    return generated("impl", "def impl(n, ndim=2):\n    i = np.arange(n)\n"
                             f"    return ({'i, ' * k})\n", {})


@overload(np.tril_indices)
def _tril_indices(n, k=0, m=None):
    if not isinstance(n, types.Integer):
        return None

    def impl(n, k=0, m=None):
        cols = n if m is None else m
        return np.nonzero(np.tri(n, cols, k, dtype=np.bool_))
    return impl


@overload(np.triu_indices)
def _triu_indices(n, k=0, m=None):
    if not isinstance(n, types.Integer):
        return None

    def impl(n, k=0, m=None):
        cols = n if m is None else m
        return np.nonzero(~np.tri(n, cols, k - 1, dtype=np.bool_))
    return impl


def _from(which):
    def typing(arr, k=0):
        if not is_array(arr):
            return None
        if arr.ndim != 2:
            raise TypeError("input array must be 2-d")
        if which == "tril":
            return lambda arr, k=0: np.tril_indices(arr.shape[-2], k, arr.shape[-1])
        return lambda arr, k=0: np.triu_indices(arr.shape[-2], k, arr.shape[-1])
    return typing


overload(np.tril_indices_from)(_from("tril"))
overload(np.triu_indices_from)(_from("triu"))


# ---- 1-d helpers ----

@overload(np.trim_zeros)
def _trim_zeros(filt, trim="fb"):
    if not (is_array(filt) and filt.ndim == 1):
        return None
    how = getattr(trim, "literal_value", trim)
    if not isinstance(how, str):
        raise TypeError("np.trim_zeros: trim= must be a constant string")
    front, back = "f" in how.lower(), "b" in how.lower()

    def impl(filt, trim="fb"):
        lo, hi = 0, filt.shape[0]
        if front:
            while lo < hi and filt[lo] == 0:
                lo += 1
        if back:
            while hi > lo and filt[hi - 1] == 0:
                hi -= 1
        return filt[lo:hi]
    return impl


@overload(np.unwrap)
def _unwrap(p, discont=None, axis=-1, period=2 * math.pi):
    if not (is_array(p) and p.ndim == 1) or (isinstance(axis, types.Type) and given(axis)):
        return None

    def impl(p, discont=None, axis=-1, period=2 * math.pi):
        half = period / 2
        d = half if discont is None else max(discont, half)
        out = np.empty(p.shape[0], np.float64)
        if p.shape[0] == 0:
            return out
        out[0] = p[0]
        correction = 0.0
        for i in range(1, p.shape[0]):
            dd = p[i] - p[i - 1]
            ddmod = np.mod(dd + half, period) - half
            if ddmod == -half and dd > 0:
                ddmod = half
            if not abs(dd) < d:             # a NaN step too, which NumPy carries onward
                correction += ddmod - dd
            out[i] = p[i] + correction
        return out
    return impl


@overload(np.resize)
def _resize(a, new_shape):
    if not is_array(a):
        return None
    if isinstance(new_shape, types.Integer):
        def flat(a, new_shape):
            return np.resize(a, (new_shape,))
        return flat
    if not (isinstance(new_shape, types.Tuple) and
            all(isinstance(t, types.Integer) for t in new_shape.types)):
        return None

    def impl(a, new_shape):
        size = 1
        for s in new_shape:
            if s < 0:
                raise ValueError("all elements of `new_shape` must be non-negative")
            size *= s
        src = np.ravel(a)
        out = np.empty(size, a.dtype)
        if src.size == 0:
            out[:] = 0
        else:
            for i in range(size):
                out[i] = src[i % src.size]
        return out.reshape(new_shape)
    return impl


@overload(np.diagonal)
def _diagonal(a, offset=0, axis1=0, axis2=1):
    if not (is_array(a) and a.ndim == 2) or (isinstance(axis1, types.Type) and given(axis1)) \
            or (isinstance(axis2, types.Type) and given(axis2)):
        return None

    def impl(a, offset=0, axis1=0, axis2=1):
        r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
        n = max(min(a.shape[0] - r0, a.shape[1] - c0), 0)
        out = np.empty(n, a.dtype)
        for i in range(n):
            out[i] = a[r0 + i, c0 + i]
        return out
    return impl


@overload(np.concatenate)
def _concatenate_flat(arrays, axis=0):
    """np.concatenate(arrays, axis=None): the arrays flattened, then joined."""
    if not isinstance(axis, types.NoneType):
        return None
    if isinstance(arrays, types.Tuple) and all(is_array(t) for t in arrays.types):
        parts = "".join(f"np.ravel(arrays[{i}]), " for i in range(len(arrays.types)))
        return generated("impl", "def impl(arrays, axis=0):\n"
                                 f"    return np.concatenate(({parts}))\n", {})
    if isinstance(arrays, types.List) and is_array(arrays.dtype):
        def impl(arrays, axis=0):
            return np.concatenate([np.ravel(x) for x in arrays])
        return impl
    return None


@overload(np.expand_dims)
def _expand_dims_axes(a, axis):
    """np.expand_dims(a, (i, j, ...)): a view with a new axis of length 1 at each place."""
    if not (is_array(a) and isinstance(axis, types.Tuple) and
            all(isinstance(t, types.Integer) for t in axis.types)):
        return None
    from numpy.lib.stride_tricks import as_strided

    from .numpy_axis import _mark_axes
    from .numpy_shape import _norm_axis
    k, nd = len(axis.types), a.ndim
    out = nd + k
    lines = ["def impl(a, axis):", f"    red = np.zeros({max(out, 1)}, np.bool_)",
             *_mark_axes(k, out),
             f"    shape = np.ones({max(out, 1)}, np.int64)",
             f"    strides = np.zeros({max(out, 1)}, np.int64)",
             "    j = 0",
             f"    for d in range({out}):",
             "        if not red[d]:",
             "            shape[d] = a.shape[j]",
             "            strides[d] = a.strides[j]",
             "            j += 1",
             "    return as_strided(a, (" + "".join(f"shape[{d}], " for d in range(out)) +
             "), (" + "".join(f"strides[{d}], " for d in range(out)) + "))"]
    return generated("impl", "\n".join(lines) + "\n",
                     {"as_strided": as_strided, "_norm_axis": _norm_axis})


# ---- machine limits: folded into constants when compiling ----

IInfo = collections.namedtuple("iinfo", ("bits", "min", "max"))
FInfo = collections.namedtuple("finfo", (
    "bits", "eps", "epsneg", "max", "min", "tiny", "smallest_normal", "smallest_subnormal",
    "resolution", "precision", "iexp", "machep", "maxexp", "minexp", "negep", "nexp", "nmant"))


def _dtype_arg(t):
    from .lists import _dtype_of
    if is_number(t):
        return t
    return _dtype_of(t)


@overload(np.iinfo)
def _iinfo(int_type):
    dt = _dtype_arg(int_type)
    if not isinstance(dt, types.Integer):
        return None
    info = np.iinfo(np.dtype(dt.name))
    bits, lo, hi = info.bits, int(info.min), int(info.max)
    if hi > 2 ** 63 - 1:
        raise TypeError("np.iinfo(np.uint64).max does not fit compiled code's int64")
    return lambda int_type: IInfo(bits, lo, hi)


@overload(np.finfo)
def _finfo(dtype):
    dt = _dtype_arg(dtype)
    if isinstance(dt, types.Complex):
        dt = types.float32 if dt == types.complex64 else types.float64
    if not isinstance(dt, types.Float):
        return None
    f = np.finfo(np.dtype(dt.name))
    values = tuple(float(getattr(f, name)) if name in ("eps", "epsneg", "max", "min", "tiny",
                                                       "smallest_normal", "smallest_subnormal",
                                                       "resolution") else int(getattr(f, name))
                   for name in FInfo._fields)
    source = ("def impl(dtype):\n    return FInfo(" +
              ", ".join(repr(v) if not (isinstance(v, float) and math.isinf(v)) else "math.inf"
                        for v in values) + ")\n")
    return generated("impl", source, {"FInfo": FInfo, "math": math})


# ---- array methods that are these functions ----

def _method(name, signature, call, refused=()):
    """a.name(...) as call (the function); the parameters in refused must not be given."""
    impl = generated("impl", f"def impl({signature}):\n    return {call}\n", {})

    def check(a, kws):
        if not is_array(a):
            return None
        for k in refused:
            t = kws.get(k)
            if isinstance(t, types.Type) and given(t):
                raise TypeError(f"a.{name}(): {k}= is not supported in compiled code")
        return impl
    params = [p.strip().split("=")[0] for p in signature.split(",")][1:]
    given_ = ", ".join(f"{p}={p}" for p in params)
    typing = generated("typing", f"def typing({signature}):\n"
                                 f"    return check(a, dict({given_}))\n", {"check": check})
    typing.__module__ = __name__
    overload_method(types.Array, name)(typing)


_method("dot", "a, b, out=None", "np.dot(a, b)", ("out",))
_method("repeat", "a, repeats, axis=None", "np.repeat(a, repeats, axis)")
_method("nonzero", "a", "np.nonzero(a)")
_method("round", "a, decimals=0, out=None", "np.round(a, decimals, out)")
_method("clip", "a, min=None, max=None, out=None", "np.clip(a, min, max, out)")
_method("searchsorted", "a, v, side='left', sorter=None", "np.searchsorted(a, v, side, sorter)")
_method("diagonal", "a, offset=0, axis1=0, axis2=1", "np.diagonal(a, offset)",
        ("axis1", "axis2"))
_method("trace", "a, offset=0, axis1=0, axis2=1, dtype=None, out=None", "np.trace(a, offset)",
        ("axis1", "axis2", "dtype", "out"))


@overload_method(types.Array, "tobytes")
def _tobytes(a, order="C"):
    """a.tobytes() is refused: compiled code has no bytes objects of its own (a bytes argument
    is a read-only uint8 array there), and such an array compares, hashes and prints as an
    array, not as bytes."""
    raise TypeError("a.tobytes() is not supported in compiled code: compiled code has no bytes "
                    "objects (a bytes argument is a read-only uint8 array there); for the "
                    "array's bytes as a uint8 array write "
                    "np.ascontiguousarray(a).ravel().view(np.uint8)")


# ---- np.polynomial.polynomial: coefficient arrays, lowest power first ----

_P = np.polynomial.polynomial


def _series_type(*ts):
    """The dtype NumPy's as_series gives coefficient arrays of these types, np.common_type's:
    ints (and bools) become float64, float32 and complex64 stay as they are."""
    if not all(is_array(t) and t.ndim == 1 or is_number(t) for t in ts):
        return None
    samples = []
    for t in ts:
        dt = np.dtype((t.dtype if is_array(t) else t).name)
        samples.append(np.ones(1, np.float64 if dt.kind in "biu" else dt))
    return types._as_type(np.dtype(np.common_type(*samples)))


def _series(c, dt):
    pass


@overload(_series)
def _series_impl(c, dt):
    def impl(c, dt):
        r = np.atleast_1d(np.asarray(c)).astype(dt)
        if r.size == 0:
            raise ValueError("Coefficient array is empty")
        return r
    return impl


def _trimseq(seq):
    pass


@overload(_trimseq)
def _trimseq_impl(seq):
    def impl(seq):
        n = seq.shape[0]
        while n > 1 and seq[n - 1] == 0:
            n -= 1
        return seq[:n].copy()
    return impl


def _add_or_sub(sign):
    def typing(c1, c2):
        dt = _series_type(c1, c2)
        if dt is None:
            return None

        def impl(c1, c2):
            a = _series(c1, dt)
            b = _series(c2, dt)
            n = max(a.shape[0], b.shape[0])
            r = np.zeros(n, dt)
            r[:a.shape[0]] += a
            r[:b.shape[0]] += sign * b
            return _trimseq(r)
        return impl
    return typing


overload(_P.polyadd)(_add_or_sub(1))
overload(_P.polysub)(_add_or_sub(-1))


@overload(_P.polymul)
def _polymul(c1, c2):
    dt = _series_type(c1, c2)
    if dt is None:
        return None

    def impl(c1, c2):
        return _trimseq(np.convolve(_series(c1, dt), _series(c2, dt)))
    return impl


@overload(_P.polydiv)
def _polydiv(c1, c2):
    dt = _series_type(c1, c2)
    if dt is None:
        return None

    def impl(c1, c2):
        a = _series(c1, dt)
        b = _series(c2, dt)
        if b[-1] == 0:
            raise ZeroDivisionError("polydiv: the divisor's leading coefficient is zero")
        la, lb = a.shape[0], b.shape[0]
        if la < lb:
            return a[:1] * 0, a
        if lb == 1:
            return a / b[-1], a[:1] * 0
        scl = b[-1]
        d = b[:-1] / scl
        i, j = la - lb, la - 1
        while i >= 0:
            a[i:j] -= d * a[j]
            i -= 1
            j -= 1
        return a[j + 1:] / scl, _trimseq(a[:j + 1])
    return impl


@overload(_P.polyval)
def _polyval(x, c, tensor=True):
    dt = _series_type(c)
    if dt is None or not _value(x):
        return None
    if is_array(c) and c.ndim != 1:
        return None

    def impl(x, c, tensor=True):
        cc = np.atleast_1d(np.asarray(c)).astype(dt)     # NumPy's c + 0.0 of ints
        r = cc[-1] + x * 0
        for i in range(2, cc.shape[0] + 1):
            r = cc[-i] + r * x
        return r
    return impl


@overload(_P.polyder)
def _polyder(c, m=1, scl=1, axis=0):
    dt = _series_type(c)
    if dt is None or (isinstance(axis, types.Type) and given(axis)):
        return None

    def impl(c, m=1, scl=1, axis=0):
        if m < 0:
            raise ValueError("The order of derivation must be non-negative")
        r = _series(c, dt)
        for _ in range(m):
            n = r.shape[0]
            if n <= 1:
                return r[:1] * 0
            r = (r[1:] * scl).astype(dt) * np.arange(1, n).astype(dt)   # NumPy's c *= scl
        return r
    return impl


@overload(_P.polyint)
def _polyint(c, m=1, k=0, lbnd=0, scl=1, axis=0):
    dt = _series_type(c)
    if dt is None or (isinstance(axis, types.Type) and given(axis)) or not is_number(k) \
            and isinstance(k, types.Type):
        return None

    def impl(c, m=1, k=0, lbnd=0, scl=1, axis=0):
        if m < 0:
            raise ValueError("The order of integration must be non-negative")
        r = _series(c, dt)
        for step in range(m):
            n = r.shape[0]
            out = np.zeros(n + 1, dt)
            for j in range(n):
                out[j + 1] = r[j] * scl / (j + 1)
            out[0] += (k if step == 0 else 0) - _P.polyval(lbnd, out)
            r = out
        return r
    return impl


# ---- np.gradient: central differences inside, one-sided at the edges (NumPy's formulas) ----

def _gradient_rows(f, h, x, uniform, edge_order):
    pass


@overload(_gradient_rows)
def _gradient_rows_impl(f, h, x, uniform, edge_order):
    """The gradient along the last axis of the 2-d array f: spacing h, or the coordinates x
    where not uniform."""
    def impl(f, h, x, uniform, edge_order):
        rows, n = f.shape
        if n < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                             "least (edge_order + 1) elements are required.")
        out = np.empty((rows, n), f.dtype)
        if not uniform and x.shape[0] != n:
            raise ValueError("when 1d, distances must match the length of the corresponding "
                             "dimension")
        for r in range(rows):
            for i in range(1, n - 1):
                if uniform:
                    out[r, i] = (f[r, i + 1] - f[r, i - 1]) / (2.0 * h)
                else:
                    d1 = x[i] - x[i - 1]
                    d2 = x[i + 1] - x[i]
                    out[r, i] = (-d2 / (d1 * (d1 + d2)) * f[r, i - 1] +
                                 (d2 - d1) / (d1 * d2) * f[r, i] +
                                 d1 / (d2 * (d1 + d2)) * f[r, i + 1])
            if edge_order == 1:
                d0 = h if uniform else x[1] - x[0]
                dn = h if uniform else x[n - 1] - x[n - 2]
                out[r, 0] = (f[r, 1] - f[r, 0]) / d0
                out[r, n - 1] = (f[r, n - 1] - f[r, n - 2]) / dn
            else:
                d1 = h if uniform else x[1] - x[0]
                d2 = h if uniform else x[2] - x[1]
                out[r, 0] = (-(2.0 * d1 + d2) / (d1 * (d1 + d2)) * f[r, 0] +
                             (d1 + d2) / (d1 * d2) * f[r, 1] - d1 / (d2 * (d1 + d2)) * f[r, 2])
                d1 = h if uniform else x[n - 2] - x[n - 3]
                d2 = h if uniform else x[n - 1] - x[n - 2]
                out[r, n - 1] = (d2 / (d1 * (d1 + d2)) * f[r, n - 3] -
                                 (d2 + d1) / (d1 * d2) * f[r, n - 2] +
                                 (2.0 * d2 + d1) / (d2 * (d1 + d2)) * f[r, n - 1])
        return out
    return impl


def _gradient_along(f, axis, h, x, uniform, edge_order):
    pass


@overload(_gradient_along)
def _gradient_along_impl(f, axis, h, x, uniform, edge_order):
    def impl(f, axis, h, x, uniform, edge_order):
        m = np.moveaxis(f, axis, -1)
        rows = np.ascontiguousarray(m).reshape((-1, m.shape[-1])) if m.shape[-1] > 0 \
            else np.empty((0, 0), m.dtype)
        g = _gradient_rows(rows, h, x, uniform, edge_order)
        return np.moveaxis(g.reshape(m.shape), -1, axis)
    return impl


@overload(np.gradient, strict=False)
def _gradient(f, *varargs, axis=None, edge_order=1):
    if not is_array(f) or f.ndim == 0 or _is_complex(f) or len(varargs) > 1:
        return None
    ft = f.dtype if isinstance(f.dtype, types.Float) else types.float64
    spacing = varargs[0] if varargs else None
    uniform = spacing is None or is_number(spacing)
    if not uniform and not (is_array(spacing) and spacing.ndim == 1):
        raise TypeError("np.gradient in compiled code takes one spacing: a number or a 1-d "
                        "array of coordinates")
    whole = not (isinstance(axis, types.Type) and given(axis))
    if whole and f.ndim > 1 and not uniform:
        raise TypeError("np.gradient of an n-d array takes coordinates with axis= only")
    h = "float(spacing)" if spacing is not None and uniform else "1.0"
    x = "spacing.astype(np.float64)" if not uniform else "np.empty(0, np.float64)"
    # the call's one spacing binds to a positional parameter (compiled code takes no *args
    # beside keywords)
    lines = ["def impl(f, spacing=None, axis=None, edge_order=1):",
             "    if edge_order != 1 and edge_order != 2:",
             "        raise ValueError(\"'edge_order' greater than 2 not supported\")",
             "    g = f.astype(FT)",
             f"    h = {h}",
             f"    x = {x}"]
    if not whole:
        lines.append(f"    return _gradient_along(g, axis, h, x, {uniform}, edge_order)")
    elif f.ndim == 1:
        lines.append(f"    return _gradient_along(g, 0, h, x, {uniform}, edge_order)")
    else:
        items = "".join(f"_gradient_along(g, {d}, h, x, True, edge_order), "
                        for d in range(f.ndim))
        lines.append(f"    return ({items})")
    return generated("impl", "\n".join(lines) + "\n",
                     {"FT": ft, "_gradient_along": _gradient_along})


# ---- np.histogram2d: NumPy's histogramdd for two coordinates ----

def _hist_edges(v, n, lo, hi, given_range):
    pass


@overload(_hist_edges)
def _hist_edges_impl(v, n, lo, hi, given_range):
    def impl(v, n, lo, hi, given_range):
        if n < 1:
            raise ValueError("`bins[0]` must be positive, when an integer")
        if not given_range:
            if v.size == 0:
                lo, hi = 0.0, 1.0
            else:
                lo, hi = float(v.min()), float(v.max())
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError("autodetected range of [nan, nan] is not finite")
        if lo > hi:
            raise ValueError("max must be larger than min in range parameter.")
        if lo == hi:
            lo -= 0.5
            hi += 0.5
        return np.linspace(lo, hi, n + 1)
    return impl


def _hist_bin(e, x):
    pass


@overload(_hist_bin)
def _hist_bin_impl(e, x):
    def impl(e, x):
        """The bin of x among the edges e, -1 outside (the last edge belongs to the last bin)."""
        k = np.searchsorted(e, x, "right")
        if x == e[-1]:
            k -= 1
        if k < 1 or k >= e.shape[0]:
            return -1
        return k - 1
    return impl


@overload(np.histogram2d)
def _histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    if not (is_array(x) and x.ndim == 1 and is_array(y) and y.ndim == 1):
        return None
    if isinstance(bins, (types.Integer, types.Omitted)) or not isinstance(bins, types.Type):
        edges = ("    ex = _hist_edges(x, bins, rx0, rx1, has_range)\n"
                 "    ey = _hist_edges(y, bins, ry0, ry1, has_range)\n")
    elif isinstance(bins, types.Tuple) and len(bins.types) == 2 and \
            all(isinstance(t, types.Integer) for t in bins.types):
        edges = ("    ex = _hist_edges(x, bins[0], rx0, rx1, has_range)\n"
                 "    ey = _hist_edges(y, bins[1], ry0, ry1, has_range)\n")
    elif isinstance(bins, types.Tuple) and len(bins.types) == 2 and all(
            is_array(t) and t.ndim == 1 for t in bins.types):
        edges = ("    ex = bins[0].astype(np.float64)\n"
                 "    ey = bins[1].astype(np.float64)\n")
    else:
        raise TypeError("np.histogram2d in compiled code takes bins= an int, a pair of ints or "
                        f"a pair of 1-d arrays of edges, not {bins}")
    has_range = isinstance(range, types.Type) and given(range)
    ranges = ("    rx0, rx1 = float(range[0][0]), float(range[0][1])\n"
              "    ry0, ry1 = float(range[1][0]), float(range[1][1])\n" if has_range else
              "    rx0 = rx1 = ry0 = ry1 = 0.0\n")
    weighted = isinstance(weights, types.Type) and given(weights)
    dense = isinstance(density, types.Type) and given(density)
    source = ("def impl(x, y, bins=10, range=None, density=None, weights=None):\n"
              "    if x.shape[0] != y.shape[0]:\n"
              "        raise ValueError('x and y must have the same length')\n"
              f"    has_range = {has_range}\n" + ranges + edges +
              "    h = np.zeros((ex.shape[0] - 1, ey.shape[0] - 1), np.float64)\n"
              "    for i in np.arange(x.shape[0]):\n"
              "        bx = _hist_bin(ex, x[i])\n"
              "        by = _hist_bin(ey, y[i])\n"
              "        if bx >= 0 and by >= 0:\n"
              f"            h[bx, by] += {'weights[i]' if weighted else '1.0'}\n")
    if dense:
        source += ("    if density:\n"
                   "        area = np.diff(ex).reshape((-1, 1)) * np.diff(ey).reshape((1, -1))\n"
                   "        h = h / area / h.sum()\n")
    source += "    return h, ex, ey\n"
    return generated("impl", source, {"_hist_edges": _hist_edges, "_hist_bin": _hist_bin})


# ---- np.polynomial.polyutils: trimseq, as_series ----

_PU = np.polynomial.polyutils


@overload(_PU.trimseq)
def _polyutils_trimseq(seq):
    """seq without its trailing zeros (one item kept), as a view; an empty seq as it is."""
    if not is_array(seq) or seq.ndim != 1:
        return None

    def impl(seq):
        n = seq.shape[0]
        if n == 0 or seq[n - 1] != 0:
            return seq[:]
        i = n - 1
        while i > 0 and seq[i] == 0:
            i -= 1
        return seq[:i + 1]
    return impl


def _series_dtype(items):
    """np.common_type of the coefficient arrays: float64 for ints and bools, else the widest
    float or complex type."""
    dts = [t.dtype if is_array(t) else t for t in items]
    inexact = [d for d in dts if isinstance(d, (types.Float, types.Complex))]
    if len(inexact) < len(dts):
        inexact.append(types.float64)
    return promote(*inexact)


@overload(_PU.as_series)
def _polyutils_as_series(alist, trim=True):
    """as_series(alist, trim=True): a list of 1-d copies of the coefficient arrays (the rows of a
    2-d array, or the items of a tuple of 1-d arrays and numbers), of their common type, trailing
    zeros trimmed; NumPy's ValueErrors for an empty or n-d item."""
    if is_array(alist) and alist.ndim == 2:
        dt = _series_dtype([alist])

        def rows(alist, trim=True):
            if alist.shape[1] == 0:
                raise ValueError("Coefficient array is empty")
            out = []
            for k in range(alist.shape[0]):
                r = alist[k]
                out.append((_PU.trimseq(r) if trim else r).astype(dt))
            return out
        return rows
    if not (isinstance(alist, types.Tuple) and alist.types and
            all((is_array(t) and t.ndim <= 1) or is_number(t) for t in alist.types)):
        return None
    dt = _series_dtype(alist.types)
    lines = ["def impl(alist, trim=True):", "    out = []"]
    for k, t in enumerate(alist.types):
        lines += [f"    a{k} = np.atleast_1d(np.asarray(alist[{k}]))",
                  f"    if a{k}.size == 0:",
                  "        raise ValueError('Coefficient array is empty')"]
    for k in range(len(alist.types)):
        lines += [f"    out.append((trimseq(a{k}) if trim else a{k}).astype(DT))"]
    lines.append("    return out")
    return generated("impl", "\n".join(lines) + "\n", {"DT": dt, "trimseq": _PU.trimseq})


# ---- methods of numbers (compiler/infer_items.c: scalar_getattr) ------------------------------

@overload_method(types.Number, "item")
def _number_item(x):
    """x.item() of a number (a NumPy scalar read from an array): the number itself, as Numba
    gives it."""
    if isinstance(x, (types.Number, types.Boolean)):
        return lambda x: x
    return None


overload_method(types.Boolean, "item")(_number_item)


@overload_method(types.Number, "conjugate")
def _number_conjugate(x):
    """x.conjugate() of a real number: itself, a bool's as an int as CPython's (complex numbers
    have the builtin's)."""
    if isinstance(x, types.Boolean):
        return lambda x: int(x)
    if isinstance(x, (types.Integer, types.Float)):
        return lambda x: x
    return None


overload_method(types.Boolean, "conjugate")(_number_conjugate)
