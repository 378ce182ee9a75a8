"""The fourth NumPy sweep: ufunc methods (reduce, accumulate, reduceat, outer, at) of NumPy's
ufuncs and of @vectorize ones, tuple axes on the reductions, partition along an axis, complex
sorting, frombuffer of bytes and empty array literals; each compared with NumPy itself."""
import os
import sys

import numpy as np
import pytest

from pyjit import njit, vectorize
from pyjit.errors import TypingError
from pyjit.extending import register_jitable

sys.path.insert(0, os.path.dirname(__file__))
from util import same_as_numpy as same  # noqa: E402


def compare(jitted, pyfunc, *args):
    """The compiled function against NumPy on the same arguments; errors must agree in kind (a
    TypingError where NumPy raises a TypeError for types it has no loop for)."""
    try:
        want = pyfunc(*args)
    except Exception as exc:   # noqa: BLE001 - NumPy's error, expected of the compiled call
        kind = (TypeError, TypingError) if isinstance(exc, TypeError) else type(exc)
        with pytest.raises(kind):
            jitted(*args)
        return
    same(jitted(*args), want)


_RNG = np.random.default_rng(7)
ARRAYS = {
    "int8": _RNG.integers(-5, 6, (3, 4)).astype(np.int8),
    "float64": _RNG.standard_normal((3, 4)),
    "bool": _RNG.integers(0, 2, (3, 4)).astype(bool),
    "float32_F_strided": np.asfortranarray(_RNG.standard_normal((3, 8)).astype(np.float32))[:, ::2],
    "uint16": _RNG.integers(1, 4, (3, 4)).astype(np.uint16),
}
ARRAYS["float64"][1, 2] = np.nan


def _methods(u):
    def red(a, axis):
        return u.reduce(a, axis=axis)

    def red_default(a):
        return u.reduce(a)

    def red_keep(a, axis):
        return u.reduce(a, axis=axis, keepdims=True)

    def acc(a, axis):
        return u.accumulate(a, axis)

    def outer(a, b):
        return u.outer(a, b)

    def reduceat(a, idx, axis):
        return u.reduceat(a, idx, axis=axis)

    def at(a, idx, b):
        a = a.copy()
        u.at(a, idx, b)
        return a
    return red, red_default, red_keep, acc, outer, reduceat, at


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("ufunc, key", [
    (np.add, "float64"), (np.subtract, "int8"), (np.maximum, "float32_F_strided"),
    (np.logical_and, "float64"), (np.bitwise_or, "bool"), (np.divide, "uint16"),
    (np.fmin, "float64"), (np.subtract, "bool")], ids=lambda x: getattr(x, "__name__", x))
def test_ufunc_methods(ufunc, key):
    py = _methods(ufunc)
    red, red_default, red_keep, acc, outer, reduceat, at = (njit(f) for f in py)
    a = ARRAYS[key]
    for axis in (0, None, (0, 1)):
        compare(red, py[0], a, axis)
    compare(red, py[0], a, -1)
    compare(red_default, py[1], a[0])
    compare(red_default, py[1], a[:0])          # empty: the identity, or NumPy's error
    compare(red_keep, py[2], a, 1)
    compare(acc, py[3], a, 1)
    compare(acc, py[3], a[1], 0)
    compare(outer, py[4], a[0], a[1, ::2])
    compare(reduceat, py[5], a[0], np.array([0, 2, 1, 3]), 0)
    compare(reduceat, py[5], a, np.array([0, 2, 1]), 1)
    compare(at, py[6], a[0], np.array([0, 0, 3, -1]), a[1])
    compare(at, py[6], a, (np.array([0, 0, 2]), np.array([1, 1, -4])), a[2, 0])


def test_ufunc_method_errors():
    red = njit(lambda a, axis: np.subtract.reduce(a, axis=axis))
    with pytest.raises(ValueError, match="not reorderable"):
        red(np.ones((2, 2)), (0, 1))
    with pytest.raises(ValueError, match="duplicate value"):
        njit(lambda a: np.add.reduce(a, axis=(0, 0)))(np.ones((2, 2)))
    with pytest.raises(ValueError, match="no identity"):
        njit(lambda a: np.maximum.reduce(a))(np.ones(0))
    with pytest.raises(IndexError, match="out-of-bounds in add.reduceat"):
        njit(lambda a, i: np.add.reduceat(a, i))(np.ones(5), np.array([0, 7]))
    with pytest.raises(IndexError, match="out of bounds"):
        njit(lambda a: np.add.at(a, np.array([0, 5]), 1.0))(np.ones(3))
    with pytest.raises(TypingError, match="boolean subtract"):
        njit(lambda a: np.subtract.reduce(a))(np.ones(3, bool))


def test_ufunc_methods_more():
    a = np.arange(24.0).reshape(2, 3, 4)
    compare(njit(lambda a: np.add.reduce(a, axis=(0, 2))), lambda a: np.add.reduce(a, axis=(0, 2)),
            a)
    compare(njit(lambda a: np.multiply.reduce(a, axis=(2, 0), keepdims=True)),
            lambda a: np.multiply.reduce(a, axis=(2, 0), keepdims=True), a)
    compare(njit(lambda a: np.add.reduce(a, axis=1, initial=10.0)),
            lambda a: np.add.reduce(a, axis=1, initial=10.0), a)
    compare(njit(lambda a: np.maximum.reduce(a, axis=0, initial=5.0)),
            lambda a: np.maximum.reduce(a, axis=0, initial=5.0), a[:, :0])
    compare(njit(lambda a: np.add.reduce(a, dtype=np.float32)),
            lambda a: np.add.reduce(a, dtype=np.float32), a[0, 0])
    compare(njit(lambda a: np.add.reduce(a)), lambda a: np.add.reduce(a), np.array(3.5))
    # outer of scalars and 0-d operands, and of different dtypes
    compare(njit(lambda a, b: np.multiply.outer(a, b)), np.multiply.outer, 2.0, a[0, 0])
    compare(njit(lambda a, b: np.subtract.outer(a, b)), np.subtract.outer,
            np.arange(3, dtype=np.int8), a[0, :, 1])

    def at_unary(a, i):
        a = a.copy()
        np.negative.at(a, (0, slice(None), i))
        np.negative.at(a[1, 1], i)
        return a
    compare(njit(at_unary), at_unary, a, np.array([1, 1, 3]))

    def at_mask(a, m):
        a = a.copy()
        np.add.at(a, m, 1.0)
        return a
    compare(njit(at_mask), at_mask, a[0], a[0] > 5)

    def hist2d(ix, iy, n):   # the common use: counts of index pairs, repeated ones added
        h = np.zeros((n, n), np.int64)
        np.add.at(h, (ix, iy), 1)
        return h
    ix, iy = _RNG.integers(0, 4, 50), _RNG.integers(0, 4, 50)
    compare(njit(hist2d), hist2d, ix, iy, 4)

    def acc_out(a):
        out = np.empty(a.shape, np.float64)
        np.add.accumulate(a, axis=1, out=out)
        return out
    compare(njit(acc_out), acc_out, a[0])


def test_ufunc_method_edges():
    def at_one(a, b):
        a = a.copy()
        np.add.at(a, 1, b)
        return a
    compare(njit(at_one), at_one, np.arange(3.0), 5.0)
    compare(njit(at_one), at_one, np.arange(6.0).reshape(2, 3), 5.0)
    compare(njit(at_one), at_one, np.arange(3.0), np.array([5.0]))   # NumPy's ValueError
    red0 = njit(lambda a: np.maximum.reduce(a, axis=0))
    for shape in ((0, 0), (3, 0), (0, 3)):   # an empty axis without identity raises
        compare(red0, lambda a: np.maximum.reduce(a, axis=0), np.zeros(shape))
    compare(njit(lambda a: np.add.reduce(a, axis=1)), lambda a: np.add.reduce(a, axis=1),
            np.arange(3.0))
    compare(njit(lambda a: np.minimum.reduce(a)), np.minimum.reduce,
            np.array([1.0, np.nan, 0.0]))
    compare(njit(lambda a: np.multiply.accumulate(a)), np.multiply.accumulate,
            np.array([1 + 1j, 2j, 3]))
    compare(njit(lambda a: np.gcd.reduce(a)), np.gcd.reduce, np.array([12, 18, 27]))


def test_vectorize_methods():
    @vectorize(["float64(float64, float64)", "int64(int64, int64)"], identity=0)
    def vadd(x, y):
        return x + y

    @vectorize
    def vmax(x, y):
        return x if x > y else y

    a = np.arange(12.0).reshape(3, 4) % 5
    for v in (vadd, vmax):
        py = _methods(v)
        red, red_default, _, acc, outer, reduceat, at = (njit(f) for f in py)
        compare(red, py[0], a, 1)
        compare(red, py[0], a, None)
        compare(red_default, py[1], a)
        compare(acc, py[3], a, 0)
        compare(outer, py[4], a[0], a[1])
        compare(reduceat, py[5], a, np.array([0, 2]), 1)
        compare(at, py[6], a[0], np.array([0, 0, 2]), 7.0)


def _tuple_axis_reductions():
    def make(f, keep):
        if keep:
            return lambda a, axis: f(a, axis=axis, keepdims=True)
        return lambda a, axis: f(a, axis=axis)
    return [(f.__name__, keep, make(f, keep))
            for f in (np.sum, np.prod, np.mean, np.std, np.var, np.min, np.max, np.any, np.all)
            for keep in ((False, True) if f in (np.sum, np.std, np.max, np.any) else (False,))]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, keep, pyfunc", _tuple_axis_reductions(),
                         ids=lambda x: x if isinstance(x, str) else None)
def test_tuple_axis(name, keep, pyfunc):
    a = _RNG.standard_normal((2, 3, 4))
    a[0, 1, 2] = np.nan
    b = _RNG.integers(-3, 4, (3, 2, 4)).astype(np.int32).transpose(1, 0, 2)   # a strided view
    f = njit(pyfunc)
    for axis in ((0, 2), (2, -3)):
        compare(f, pyfunc, a, axis)
        compare(f, pyfunc, b, axis)
        compare(f, pyfunc, a[:, :0], axis)          # empty: NumPy's value or error
    if not keep:
        compare(f, pyfunc, a, (0, 1, 2))
        compare(f, pyfunc, b, ())
    with pytest.raises(ValueError, match="duplicate value"):
        f(a, (0, -3))
    with pytest.raises(np.exceptions.AxisError):
        f(a, (0, 3))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("func", [np.nansum, np.nanmean, np.nanmax, np.nanmin, np.nanstd,
                                  np.nanvar, np.nanprod, np.ptp, np.count_nonzero, np.median,
                                  np.nanmedian],
                         ids=lambda f: f.__name__)
def test_tuple_axis_more(func):
    a = _RNG.standard_normal((2, 3, 4))
    a[0, 1, 2] = np.nan
    a[1, :, 1] = np.nan

    def plain(a):
        return func(a, axis=(0, 2))

    def kept(a):
        return func(a, axis=(2, -2), keepdims=True)
    compare(njit(plain), plain, a)
    compare(njit(kept), kept, a[:, ::-1])


def test_tuple_axis_methods():
    a = _RNG.standard_normal((3, 4, 2))
    compare(njit(lambda a: a.mean(axis=(0, 1))), lambda a: a.mean(axis=(0, 1)), a)
    compare(njit(lambda a: a.sum((2, 0))), lambda a: a.sum((2, 0)), a)
    compare(njit(lambda a: a.std(axis=(0, 2), ddof=1)), lambda a: a.std(axis=(0, 2), ddof=1), a)
    compare(njit(lambda a: a.max(axis=(1, 2), keepdims=True)),
            lambda a: a.max(axis=(1, 2), keepdims=True), a)


def _partition_checked(got, want, kth, axis):
    """got (compiled) against NumPy's partition: the same shape and dtype, the same elements at
    the kth places (the others' order is NumPy's own business)."""
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    ks = np.atleast_1d(kth)
    assert np.array_equal(np.take(got, ks, axis=axis), np.take(want, ks, axis=axis),
                          equal_nan=True)


def test_partition_axis():
    a = _RNG.standard_normal((4, 5, 3))
    a[1, 2, 0] = np.nan
    b = _RNG.integers(0, 9, (5, 6)).astype(np.int16)[:, ::2]
    part = njit(lambda a, k, ax: np.partition(a, k, axis=ax))
    argpart = njit(lambda a, k, ax: np.argpartition(a, k, axis=ax))

    def method(a, k, ax):
        b = a.copy()
        b.partition(k, axis=ax)
        return b
    jmethod = njit(method)
    argmethod = njit(lambda a, k, ax: a.argpartition(k, axis=ax))
    for x in (a, b):
        for axis in (0, -2):
            for kth in (1, -1, np.array([0, 2])):
                want = np.partition(x, kth, axis=axis)
                _partition_checked(part(x, kth, axis), want, kth, axis)
                _partition_checked(jmethod(x, kth, axis), want, kth, axis)
                _partition_checked(np.take_along_axis(x, argpart(x, kth, axis), axis), want,
                                   kth, axis)
                _partition_checked(np.take_along_axis(x, argmethod(x, kth, axis), axis), want,
                                   kth, axis)
    flat = njit(lambda a, k: np.partition(a, k, axis=None))
    _partition_checked(flat(a, (3, 7)), np.partition(a, (3, 7), axis=None), (3, 7), 0)
    with pytest.raises(ValueError, match="out of bounds"):
        part(a, np.array([0, 9]), 0)
    with pytest.raises(np.exceptions.AxisError):
        part(a, 1, 3)


def test_frombuffer_bytes():
    raw = np.arange(6, dtype=np.float64).tobytes() + b"\x01\x02\x03\x04"
    for buf in (raw, bytearray(raw)):
        for f in (lambda b: np.frombuffer(b, dtype=np.int32),
                  lambda b: np.frombuffer(b, dtype=np.float64, count=3, offset=8),
                  lambda b: np.frombuffer(b, np.uint8, -1, 44),
                  lambda b: np.frombuffer(b, dtype=np.int64, offset=4)):
            compare(njit(f), f, buf)
        compare(njit(lambda b: np.frombuffer(b)), lambda b: np.frombuffer(b), buf[:48])
        assert njit(lambda b: np.frombuffer(b).flags.writeable)(buf[:8]) == \
            np.frombuffer(buf[:8]).flags.writeable

    def scan(b):   # bytes are arrays of uint8: len, indexing and iteration
        n = 0
        for x in b:
            n += int(x)   # an item is a uint8 (NEP 50 would keep n + x a uint8)
        return len(b), b[3], b[-1], n
    assert njit(scan)(raw) == scan(raw)
    assert njit(scan)(bytearray(raw)) == scan(bytearray(raw))
    with pytest.raises(IndexError):
        njit(scan)(b"")

    def poke(b):
        b[0] = 200
    ba = bytearray(raw)
    njit(poke)(ba)
    assert ba[0] == 200
    with pytest.raises(TypingError, match="read-only"):
        njit(poke)(raw)
    view = njit(lambda b: np.frombuffer(b, dtype=np.uint8))(ba)
    with pytest.raises(BufferError):   # the array holds the bytearray's buffer, as NumPy's
        ba.extend(b"xx")
    del view
    ba.extend(b"xx")


@pytest.mark.parametrize("pyfunc", [
    lambda: np.array([]), lambda: np.array([], dtype=np.int32),
    lambda: np.array([], np.complex64), lambda: np.asarray([]),
    lambda: np.array([], dtype="f4"), lambda: np.array(()), lambda: np.array((), dtype=np.int8),
    lambda: np.asarray([], dtype=np.bool_)])
def test_empty_literals(pyfunc):
    compare(njit(pyfunc), pyfunc)


def test_empty_literal_grows():
    def f(n):
        a = np.array([], dtype=np.int64)
        for i in range(n):
            a = np.append(a, i * i)
        return a
    compare(njit(f), f, 4)
    compare(njit(f), f, 0)


_NAN = np.nan
COMPLEX = np.array([3 + 1j, 1 + 2j, 1 + 1j, complex(_NAN, 0), complex(1, _NAN),
                    complex(_NAN, _NAN), complex(_NAN, -1), complex(0, _NAN), -1 - 1j, 1 + 1j,
                    2 + 0j, complex(2, -0.0), 1 + 2j])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_sorting(dtype):
    x = COMPLEX.astype(dtype)
    grid = (_RNG.integers(0, 3, (4, 9)) + 1j * _RNG.integers(0, 3, (4, 9))).astype(dtype)

    def sort_method(a):
        b = a.copy()
        b.sort()
        return b
    def sort(a):
        return np.sort(a)
    for f in (sort, lambda a: np.argsort(a, kind="stable"), sort_method,
              lambda a: np.sort(a, axis=0), lambda a: np.argsort(a, axis=0, kind="stable"),
              lambda a: np.unique(a, return_counts=True),
              lambda a: np.unique(a, return_index=True, return_inverse=True)):
        for a in (x, grid, x[::-2]):
            got, want = njit(f)(a), f(a)
            for g, w in zip(got if isinstance(want, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                assert np.array_equal(g, w, equal_nan=True), (f, a, g, w)
    # np.unique without flags: NumPy keeps some value with a NaN (which one depends on its
    # hashing path); the values without NaNs must agree
    got = njit(lambda a: np.unique(a))(x)
    want = np.unique(x)
    assert np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    assert np.isnan(got).sum() == np.isnan(want).sum()
    part = njit(lambda a, k: np.partition(a, k))(x, 5)
    assert np.array_equal(part[5], np.partition(x, 5)[5], equal_nan=True)
    s = np.sort(x)
    v = np.array([1 + 1j, 1 + 1.5j, 0, complex(_NAN, 5), 3 + 1j, complex(1, _NAN)], dtype)
    compare(njit(lambda a, v: np.searchsorted(a, v)), np.searchsorted, s, v)
    compare(njit(lambda a, v: np.searchsorted(a, v, side="right")),
            lambda a, v: np.searchsorted(a, v, side="right"), s, v)
    compare(njit(lambda a: np.searchsorted(a, 1 + 1.5j)), lambda a: np.searchsorted(a, 1 + 1.5j),
            s)


def test_squeeze():
    a = np.arange(6.0).reshape(1, 3, 1, 2)
    f = njit(lambda a, ax: np.squeeze(a, axis=ax))
    for axis in ((0, 2), (2,), (), (-4, -2), 0, (0, 1), (0, 0)):
        compare(f, lambda a, ax: np.squeeze(a, axis=ax), a, axis)
    compare(njit(lambda a: a.squeeze((0, 2))), lambda a: a.squeeze((0, 2)), a[:, ::2])
    compare(njit(lambda a: np.squeeze(a)), lambda a: np.squeeze(a), np.array(2.5))
    view = njit(lambda a: a.squeeze((0, 2)))(a)
    view[0, 0] = 42.0                       # a view, as NumPy's
    assert a[0, 0, 0, 0] == 42.0
    # without axis= the result's ndim would depend on the shape: refused at compile time, as
    # Numba refuses it, naming the line
    with pytest.raises(TypingError, match="pass axis=") as info:
        njit(lambda a: np.squeeze(a))(a)
    assert "line" in str(info.value)


_V = np.array([3.0, -np.inf, 2.0, 0.0, np.inf, np.nan])
_A = np.arange(12.0).reshape(3, 4)
_C = np.array([1 + 0j, 2 + 1e-20j, 3 - 2j])
P = np.polynomial.polynomial


@register_jitable
def _sorted_copy(a, axis):
    b = a.copy()
    b.sort(axis=axis)
    return b


MISC = {
    "shape": (lambda a: np.shape(a), _A), "shape scalar": (lambda x: np.shape(x), 2.5),
    "ndim": (lambda a: np.ndim(a), _A), "size": (lambda a: np.size(a), _A),
    "size axis": (lambda a: np.size(a, -1), _A), "isscalar": (lambda x: np.isscalar(x), 2.5),
    "isscalar array": (lambda a: np.isscalar(a), _A),
    "iscomplexobj": (lambda a: (np.iscomplexobj(a), np.isrealobj(a)), _C),
    "iscomplex": (lambda a: np.iscomplex(a), _C), "isreal": (lambda a: np.isreal(a), _C),
    "isreal of reals": (lambda a: np.isreal(a), _V),
    "isposinf": (lambda a: np.isposinf(a), _V), "isneginf": (lambda a: np.isneginf(a), _V),
    "isneginf scalar": (lambda x: np.isneginf(x), -np.inf),
    "asarray_chkfinite": (lambda a: np.asarray_chkfinite(a), _A),
    "asarray_chkfinite inf": (lambda a: np.asarray_chkfinite(a), _V),
    "windows": (lambda n: (np.bartlett(n), np.blackman(n), np.hamming(n), np.hanning(n)), 7),
    "windows small": (lambda n: (np.bartlett(n), np.hanning(n), np.kaiser(n, 3.0)), 1),
    "kaiser": (lambda n: (np.kaiser(n, 0.0), np.kaiser(n, 8.6), np.kaiser(n + 1, 14.0)), 8),
    "i0": (lambda a: np.i0(a), np.array([0.0, -1.5, 3.0, 20.0, 300.0])),
    "windows empty": (lambda n: (np.hamming(n), np.blackman(n)), 0),
    "extract": (lambda a: np.extract(a % 3 == 0, a), _A),
    "indices": (lambda a: np.indices((2, 3)), _A),
    "meshgrid 3": (lambda a: np.meshgrid(a[0], a[1, :2], a[2, ::3]), _A),
    "meshgrid 3 ij": (lambda a: np.meshgrid(a[0], a[1, :2], a[2, ::3], indexing="ij"), _A),
    "meshgrid 1": (lambda a: np.meshgrid(a[0]), _A),
    "indices dtype": (lambda a: np.indices((2, 1, 3), dtype=np.int32), _A),
    "diag_indices": (lambda n: np.diag_indices(n), 3),
    "tril_indices": (lambda n: np.tril_indices(n, -1), 4),
    "triu_indices": (lambda n: np.triu_indices(n, 1, 5), 4),
    "tril_indices_from": (lambda a: np.tril_indices_from(a), _A),
    "triu_indices_from": (lambda a: np.triu_indices_from(a, 2), _A),
    "trim_zeros": (lambda a: np.trim_zeros(a), np.array([0, 0, 1, 0, 2, 0])),
    "trim_zeros f": (lambda a: np.trim_zeros(a, "f"), np.array([0.0, 1.0, 0.0])),
    "trim_zeros all": (lambda a: np.trim_zeros(a), np.zeros(3)),
    "unwrap": (lambda a: np.unwrap(a), np.array([0.0, 3.0, 6.5, -1.0, 12.0, 0.5])),
    "resize": (lambda a: np.resize(a, (2, 7)), _A),
    "resize int": (lambda a: np.resize(a, 5), _A[:, 1]),
    "diagonal": (lambda a: (np.diagonal(a), np.diagonal(a, 1), np.diagonal(a, -2)), _A),
    "iinfo": (lambda a: (np.iinfo(np.int16).max, np.iinfo(a.dtype).min, np.iinfo(np.uint8).bits),
              np.arange(3, dtype=np.int8)),
    "finfo": (lambda a: (np.finfo(np.float32).eps, np.finfo(a.dtype).max, np.finfo(a[0, 0]).tiny,
                         np.finfo(np.float64).precision), _A),
    "concatenate None": (lambda a: np.concatenate((a, a[:, :2]), axis=None), _A),
    "expand_dims tuple": (lambda a: np.expand_dims(a, (0, -1)), _A),
    "expand_dims repeated": (lambda a: np.expand_dims(a, (1, 1)), _A),
    "polynomial": (lambda c: (P.polyadd(c, c[:2]), P.polysub(c, c), P.polymul(c, c[:3]),
                              P.polyval(2.0, c), P.polyval(c, c), P.polyint(c),
                              P.polyint(c, 2, 3.0, 1.0, 2.0), P.polyder(c), P.polyder(c, 3, 2.0),
                              P.polyder(c, 9), P.polyadd(c + 1j, c), P.polymul(2.0, c)),
                   np.array([3.0, 1.0, 2.0, 0.0, 5.0])),
    "polydiv": (lambda c: (P.polydiv(c, c[:2] + 1.0), P.polydiv(c[:2], c),
                           P.polydiv(c, np.array([2.0]))), np.array([3.0, 1.0, 2.0, 0.0, 5.0])),
    "sort methods along an axis": (lambda a: (a.argsort(axis=0, kind="stable"),
                                              a[:, ::-1].argsort(axis=-2, kind="stable"),
                                              _sorted_copy(a[::-1], 0)), _A[::-1] % 5),
    "gradient": (lambda f: (np.gradient(f), np.gradient(f, 2.0), np.gradient(f, f * f + f),
                            np.gradient(f, edge_order=2), np.gradient(f, f * f + f, edge_order=2),
                            np.gradient(f.astype(np.int64)), np.gradient(f.astype(np.float32))),
                 np.array([1.0, 2.0, 4.0, 7.0, 11.0, 16.0])),
    "gradient nd": (lambda a: (np.gradient(a), np.gradient(a, 0.5, axis=1),
                               np.gradient(a[:, ::-1], axis=0)), _A),
    "gradient nd tuple": (lambda a: np.gradient(a), _A),
    "gradient too short": (lambda f: np.gradient(f), np.ones(1)),
    "mean dtype": (lambda a: (np.mean(a, axis=1, dtype=np.float32),
                              np.var(a, axis=(0, 1), dtype=np.float32, keepdims=True),
                              np.std(a.astype(np.float32), dtype=np.float64, ddof=1),
                              a.mean(axis=0, dtype=np.float64)), _A.astype(np.int32)),
    "searchsorted sorter": (lambda a: (np.searchsorted(a, 4.5, sorter=np.argsort(a)),
                                       np.searchsorted(a, a[::2], "right", np.argsort(a)),
                                       a.searchsorted(3.0, sorter=np.argsort(a))),
                            np.array([5.0, 1.0, 4.0, 4.0, 9.0, 2.0])),
    "unique axis": (lambda a: (np.unique(a, axis=0), np.unique(a, axis=1),
                               np.unique(a, axis=0, return_counts=True),
                               np.unique(a, return_index=True, return_inverse=True, axis=-2),
                               np.unique(a.reshape(5, 3, 1), axis=0), np.unique(a[:0], axis=0)),
                    np.array([[1, 2, 3], [0, 5, 1], [1, 2, 3], [0, 5, 0], [0, 5, 1]])),
    "histogram2d": (lambda x: (np.histogram2d(x, x[::-1] * 2), np.histogram2d(x, x, bins=5),
                               np.histogram2d(x, x[::-1], (3, 4), ((-1, 1), (-2, 2))),
                               np.histogram2d(x, x, (np.array([-2.0, 0.0, 1.0]),
                                                     np.array([-3.0, 0.0, 3.0]))),
                               np.histogram2d(x, x[::-1], bins=4, weights=x * x),
                               np.histogram2d(x, x[::-1], bins=4, density=True),
                               np.histogram2d(x[:0], x[:0], bins=2),
                               np.histogram2d(x[:1], x[:1], bins=2)),
                    np.random.default_rng(3).standard_normal(50)),
    "methods": (lambda a: (a.dot(a.T), a.repeat(2), a.nonzero(), a.round(-1), a.clip(2, 5),
                           a[0].searchsorted(2.5), a.diagonal(1), a.trace()), _A),
}


@pytest.mark.parametrize("name", list(MISC))
def test_misc(name):
    pyfunc, arg = MISC[name]
    try:
        want = pyfunc(arg)
    except ValueError:
        with pytest.raises(ValueError):
            njit(pyfunc)(arg)
        return
    got = njit(pyfunc)(arg)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, tuple):
            assert all(np.allclose(x, y) and np.shape(x) == np.shape(y)
                       for x, y in zip(g, w)), (g, w)
        else:
            same(g, w)


def test_place_and_copyto():
    def place(a, vals):
        a = a.copy()
        np.place(a, a > 4, vals)
        return a

    def copyto(a, b):
        a = a.copy()
        np.copyto(a, b)
        np.copyto(a[0], -1.0, where=a[0] > 1)
        return a
    compare(njit(place), place, _A, np.array([-1.0, -2.0]))
    compare(njit(copyto), copyto, _A, _A[0] * 10)
    with pytest.raises(ValueError, match="empty array"):
        njit(place)(_A, np.zeros(0))


# ---- array.array and memoryview arguments (the buffer protocol, as Numba takes them) ----

def buffer_stats(a):
    s = 0.0
    for x in a:
        s += x
    return len(a), a[len(a) - 1], s


def test_array_array_and_memoryview_arguments():
    import array
    for code, values in (("d", [1.5, -2.0, 4.25]), ("f", [0.5, 1.5]), ("i", [3, -4, 5]),
                         ("l", [7, 8]), ("B", [1, 255]), ("H", [65535, 2]), ("q", [-1, 2 ** 40])):
        a = array.array(code, values)
        assert njit(buffer_stats)(a) == buffer_stats(a)
    grid = np.arange(12.0).reshape(3, 4)[:, ::2]
    m = memoryview(grid)

    def total(m):
        return m.sum(), m.shape

    assert njit(total)(m) == (grid.sum(), grid.shape)

    def poke(a):
        a[0] = 42
        return a

    aa = array.array("l", [1, 2, 3])
    view = njit(poke)(aa)
    assert list(aa) == [42, 2, 3] and list(view) == [42, 2, 3]
    with pytest.raises(BufferError):      # the returned view holds the array's buffer
        aa.append(4)
    del view
    aa.append(4)
    with pytest.raises(TypingError, match="read-only"):
        njit(poke)(memoryview(b"abc"))
    with pytest.raises(TypeError, match="accepted:.*array.array and memoryview"):
        njit(poke)(memoryview(np.zeros(2, dtype=">f8")))   # a byte order it does not take
