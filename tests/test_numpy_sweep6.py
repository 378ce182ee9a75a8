"""The sixth NumPy sweep: reshape/ravel/flatten with order=, a 0-d array stored into an element,
dtype= spelled as Python's types in np.asarray/np.array, ...; each compared with NumPy itself on
several dtypes, shapes, layouts and edge cases."""
import os
import sys

import numpy as np
import pytest

from pyjit import njit
from pyjit.errors import TypingError

sys.path.insert(0, os.path.dirname(__file__))
from util import same_as_numpy as same  # noqa: E402


def source_case(src, *names):
    """The Python function `f(names...)` returning src, and its compiled twin."""
    ns = {"np": np}
    exec(f"def f({', '.join(names)}):\n    return {src}\n", ns)
    return ns["f"], njit(ns["f"])


def layouts(dtype=np.float64):
    """3x4 arrays of dtype in several layouts: C, F, a strided view, both axes reversed, a
    transposed view with a reversed axis."""
    base = np.arange(12).astype(dtype).reshape(3, 4)
    return [base, np.asfortranarray(base), np.arange(48).astype(dtype).reshape(6, 8)[::-2, 1::2],
            base[::-1, ::-1], np.arange(12).astype(dtype).reshape(4, 3).T,
            np.arange(12).astype(dtype).reshape(4, 3).T[:, ::-1]]


# ---- order= on reshape, ravel and flatten ---------------------------------------------------

ORDER_CASES = [
    "a.reshape((4, 3), order='F')", "np.reshape(a, (2, -1), order='F')",
    "np.reshape(a, -1, order='F')", "a.reshape(12, order='A')", "a.reshape((6, 2), order='A')",
    "np.reshape(a, (3, 2, 2), order='C')", "a.reshape((2, 3, 2), order='F')",
    "a.ravel(order='F')", "np.ravel(a, 'F')", "a.ravel('A')", "a.ravel(order='K')",
    "np.ravel(a, order='K')", "np.ravel(a, order='a')", "a.flatten('F')",
    "a.flatten(order='K')", "a.flatten('A')", "a.ravel('C')",
]


@pytest.mark.parametrize("src", ORDER_CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex64])
def test_order(src, dtype):
    f, jf = source_case(src, "a")
    for a in layouts(dtype):
        want, got = f(a), jf(a)
        same(got, want)
        # a view where NumPy gives one (splitting an axis of a contiguous array into two is a
        # copy in pyjit where NumPy views)
        if (a.flags.c_contiguous or a.flags.f_contiguous) and want.ndim <= 2:
            assert np.shares_memory(got, a) == np.shares_memory(want, a), (src, a.strides)


def test_order_views_write_through():
    def f(a):
        r = a.ravel(order="F")
        r[0] = 100.0
        v = a.reshape((4, 3), order="F")
        v[1, 0] = -1.0
        return a
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    same(njit(f)(a.copy(order="F")), f(a.copy(order="F")))


@pytest.mark.parametrize("src", ["np.ravel(a, order='F')", "a.reshape((2, 3), order='F')",
                                 "a.flatten('K')", "a.ravel('A')"])
def test_order_small(src):
    f, jf = source_case(src, "a")
    for a in [np.arange(6.0), np.zeros(0), np.array(2.5), np.arange(6).reshape(1, 6, 1)]:
        try:
            want = f(a)
        except ValueError:
            with pytest.raises(ValueError):
                jf(a)
            continue
        same(jf(a), want)


def test_order_errors():
    f, jf = source_case("np.reshape(a, (3, 4), order='K')", "a")
    with pytest.raises(ValueError):
        f(np.zeros(12))
    with pytest.raises(TypingError, match="order"):
        jf(np.zeros(12))

    def g(a, o):
        return a.ravel(order=o)
    with pytest.raises(TypingError, match="constant string"):
        njit(g)(np.zeros(3), "F")


# ---- a 0-d array stored into one element ----------------------------------------------------

def test_store_0d():
    def f(a, b):
        a[1] = b
        a[-1] = b[()] * 2
        return a

    def g(a, b):
        a[1, 0] = b
        a[0, -1] = np.sum(b, keepdims=True)
        return a
    for dt in [np.float64, np.int32, np.float32, np.complex128]:
        b = np.array(5, dt)
        same(njit(f)(np.zeros(3, dt), b), f(np.zeros(3, dt), b))
        same(njit(g)(np.zeros((3, 2), dt), b), g(np.zeros((3, 2), dt), b))
    # an int 0-d array into floats, floats into ints (truncated, as NumPy's store)
    same(njit(f)(np.zeros(3), np.array(7)), f(np.zeros(3), np.array(7)))
    same(njit(f)(np.zeros(3, np.int64), np.array(7.9)), f(np.zeros(3, np.int64), np.array(7.9)))


def test_store_0d_refused():
    def f(a, b):
        a[1] = b
        return a
    # NumPy drops the imaginary part of a 0-d array with a ComplexWarning (and refuses a complex
    # number); compiled code refuses both, as it cannot warn
    with pytest.raises(TypeError):
        f(np.zeros(3), 1 + 2j)
    with pytest.raises(TypingError, match="complex128"):
        njit(f)(np.zeros(3), np.array(1 + 2j))
    with pytest.raises(ValueError):
        f(np.zeros(3), np.ones(1))       # NumPy 2: only a 0-d array converts to an element
    with pytest.raises(TypingError, match="cannot store"):
        njit(f)(np.zeros(3), np.ones(1))


# ---- dtype= spelled as Python's types ---------------------------------------------------------

@pytest.mark.parametrize("src", ["np.asarray(a, dtype=float)", "np.asarray(a, float)",
                                 "np.array(a, dtype=int)", "np.asarray(a, complex)",
                                 "np.array(a, bool)", "np.asarray(a, 'f4')",
                                 "np.array(a, dtype='i2')"])
def test_python_type_dtypes(src):
    f, jf = source_case(src, "a")
    for a in [np.array([3, -1, 4], np.int32), np.arange(6.0).reshape(2, 3)[:, ::2], np.zeros(0)]:
        same(jf(a), f(a))


# ---- the features of Numba's list that differed -----------------------------------------------

INPUTS = {
    "f8": np.array([0.3, -1.2, 2.5, 0.0, 1.7, -0.4]), "i4": np.array([3, -1, 4, 1, -5], np.int32),
    "f4": np.array([2.5, -1, 0.5, 4], np.float32), "b": np.array([True, False, True]),
    "c16": np.array([1 + 2j, -1j, 3.0, 0.5 - 0.5j]), "m": np.arange(12.0).reshape(3, 4) - 5.5,
    "mF": np.asfortranarray(np.arange(12.0).reshape(3, 4)), "view": np.arange(24.0).reshape(4, 6)[::2, 1::2],
    "empty": np.zeros(0), "nan": np.array([1.0, np.nan, -2.0, 3.0, np.nan]), "0d": np.array(2.5),
    "0di": np.array(7, np.int16), "m3": np.arange(24).reshape(2, 3, 4),
}

SWEEP = [
    ("np.float32(a)", ["f8", "i4", "b", "m", "view", "empty", "0d"]),
    ("np.int16(a)", ["f8", "i4", "b", "mF", "empty"]), ("np.uint8(a)", ["i4", "b", "m3"]),
    ("np.bool_(a)", ["f8", "i4", "nan", "empty"]), ("np.complex64(a)", ["f8", "i4", "c16"]),
    ("np.complex128(a)", ["f4", "m"]), ("np.intp(a)", ["f8", "m"]), ("np.uintc(a)", ["i4"]),
    ("np.float64([1, 2, 3])", [None]), ("np.int32((1.5, 2.5))", [None]),
    ("np.tril(a)", ["f8", "i4", "m", "mF", "view", "m3", "empty", "b"]),
    ("np.triu(a, 1)", ["f8", "i4", "m", "mF", "view", "m3", "empty"]),
    ("np.tril(a, -2)", ["f8", "m3", "c16"]),
    ("np.ascontiguousarray(a)", ["0d", "0di", "f8", "mF", "view"]),
    ("np.asfortranarray(a)", ["0d", "0di", "f8", "m", "view"]),
    ("np.ascontiguousarray(a, dtype=np.float32)", ["0d", "i4", "mF", "view", "empty"]),
    ("np.asfortranarray(a, np.int64)", ["0d", "f8", "m", "view"]),
    ("np.ascontiguousarray(2.5)", [None]), ("np.flip(a)", ["0d", "0di", "f8", "m"]),
    ("np.expand_dims(a, 0)", ["0d", "f8", "m"]), ("np.expand_dims(a, -1)", ["0d", "0di"]),
    ("a.imag", ["f8", "i4", "b", "m", "mF", "view", "empty", "0d", "c16"]),
    ("a.conj()", ["f8", "b", "i4", "c16", "view"]), ("a.conjugate()", ["b", "c16"]),
    ("np.conjugate(a)", ["b", "i4", "c16"]),
    ("np.isclose(a, a[::-1])", ["c16", "f8", "nan"]), ("np.isclose(a, 3.0)", ["c16"]),
    ("np.isclose(a, a[::-1] + 1e-9j, equal_nan=True)", ["c16", "nan"]),
    ("np.allclose(a, a + 1e-12j)", ["c16", "f8"]),
    ("np.unwrap(a)", ["nan", "f8", "empty"]),
    ("a.max()", ["c16", "f8"]), ("a.min()", ["c16", "i4"]), ("np.max(a)", ["c16"]),
    ("np.amin(a)", ["c16"]), ("np.amax(a)", ["c16"]), ("a.std()", ["c16"]),
    ("a.var()", ["c16"]), ("np.var(a)", ["c16"]), ("np.std(a, ddof=1)", ["c16"]),
    ("a.var(ddof=2)", ["c16"]), ("np.std(a.astype(np.complex64))", ["c16"]),
]


def _arg(key):
    a = INPUTS[key]
    return np.array(a, copy=True, order="K") if key != "view" else a


@pytest.mark.parametrize("src, keys", SWEEP, ids=[s for s, _ in SWEEP])
def test_sweep(src, keys):
    if keys == [None]:
        f, jf = source_case(src)
        same(jf(), f())
        return
    f, jf = source_case(src, "a")
    for key in keys:
        want = f(_arg(key))
        same(jf(_arg(key)), want)


def test_complex_extremes_with_nan():
    c = np.array([1 + 2j, 5 - 1j, complex(2, np.nan), complex(np.nan, 0), 7 + 0j])
    for src in ["a.max()", "a.min()", "np.max(a[:2])", "np.min(a[::-1])"]:
        f, jf = source_case(src, "a")
        same(jf(c), f(c))
    for src in ["a.max()", "np.amin(a)"]:
        f, jf = source_case(src, "a")
        with pytest.raises(ValueError, match="zero-size"):
            f(np.zeros(0, complex))
        with pytest.raises(ValueError, match="zero-size"):
            jf(np.zeros(0, complex))


def test_imag_of_real_is_a_new_array():
    def f(a):
        z = a.imag
        return z.shape, z.dtype == a.dtype, z.sum()
    a = np.arange(6.0).reshape(2, 3)
    assert njit(f)(a) == ((2, 3), True, 0.0)
    assert f(a)[0] == (2, 3)


# ---- np.shares_memory, np.may_share_memory and ufuncs writing over their operands ------------

def _view_pairs():
    base = np.arange(48.0).reshape(6, 8)
    other = np.arange(10.0)
    views = [base, base.T, base[::2], base[1::2], base[:, ::2], base[:, 1::2], base[::-1, ::-3],
             base[2:4, 3:5], base[0], base[:, 0], base[5, 7:], base[3:3], base.ravel()[::7],
             base.view(np.int64)[1:, ::2], base.ravel().view(np.float32)[1::2], other, other[::-1]]
    return [(x, y) for x in views for y in views]


def test_shares_memory():
    def f(a, b):
        return np.shares_memory(a, b), np.may_share_memory(a, b)
    jf = njit(f)
    for x, y in _view_pairs():
        assert jf(x, y) == f(x, y), (x.shape, x.strides, y.shape, y.strides)
    assert jf(np.zeros(3), 2.0) == f(np.zeros(3), 2.0)
    assert njit(lambda a: np.shares_memory(a, a.copy()))(np.ones(4)) is False


# ---- lists and tuples where NumPy functions take arrays ---------------------------------------

L, L2, LI, T = "[3.0, 1.0, 2.0, 5.0]", "[[1.0, 2.0], [3.0, 4.5]]", "[3, 1, 2, 2]", "(1.0, 4.0, 9.0)"
SEQUENCES = [
    f"np.sum({L})", f"np.mean({T})", f"np.sort({LI})", f"np.cumsum({LI})", f"np.sqrt({L})",
    f"np.add({L}, {L})", f"np.median({L})", f"np.max({L2}, axis=0)", f"np.std({T})",
    f"np.argmax({L})", f"np.exp({T})", f"np.dot({L2}, {L2})", f"np.unique({LI})", f"np.diff({L})",
    "np.interp(2.5, [1.0, 2.0, 3.0], [0.0, 1.0, 5.0])", f"np.isin({LI}, [1, 2])",
    f"np.clip({L}, 1.5, 3)", f"np.percentile({L}, 50)", f"np.histogram({L}, 2)",
    f"np.maximum({L}, 2.0)", "np.searchsorted([1, 2, 3], 2)", f"np.transpose({L2})",
    f"np.ravel({L2})", f"np.round({L}, 1)", f"np.all({LI})", f"np.nonzero({LI})",
    f"np.abs({LI})", f"np.convolve({L}, [1.0, 1.0])", f"np.outer({T}, {T})",
    f"np.polyval([1.0, 2.0], {T})", f"np.flip({L2})", f"np.var({L2}, axis=1)",
    "np.cross([1.0, 0, 0], [0, 1.0, 0])", f"np.prod({T})", f"np.isnan({T})",
    f"np.minimum({LI}, {LI})", f"np.count_nonzero({LI})", f"np.argsort({L})",
    f"np.trapezoid({L})", f"np.bincount({LI})", "np.mean([[1, 2], [3, 4]], axis=1)",
    "np.sum((1, 2.5, True))", "np.conj([1 + 2j, 3])", "np.multiply(2, [1, 2, 3])",
    "np.where([True, False], [1, 2], [3, 4])", f"np.cov({L2})", "np.nansum([1.0, np.nan])",
    f"np.array_equal({L}, {L})", "np.sum([[[1, 2]], [[3, 4]]], axis=(0, 2))",
    f"np.linalg.inv({L2})", f"np.linalg.det({L2})", f"np.linalg.solve({L2}, [1.0, 2.0])",
    "np.linalg.norm([3.0, 4.0])", f"np.linalg.matrix_power({L2}, 2)",
]


@pytest.mark.parametrize("src", SEQUENCES)
def test_sequences_as_arrays(src):
    f, jf = source_case(src)
    same(jf(), f())


def test_sequences_built_at_run_time():
    def f(n):
        xs = [float(i) ** 0.5 for i in range(n)]
        return np.sum(xs), np.median(xs), np.sort(xs)[::-1], np.add(xs, xs)
    for n in (1, 5):
        same(njit(f)(n), f(n))


def test_sequences_not_arrays_stay_errors():
    def f():
        return np.sum(("a", "b"))
    with pytest.raises(TypingError, match=r"(?s)sum.*line"):
        njit(f)()


# ---- the complex forms of the ufuncs Numba lists ----------------------------------------------

_PARTS = [0, 0.5, -0.5, 1, -1, 2, -2, 1e-8, 1e8, -0.0]
_GRID = np.array([complex(a, b) for a in _PARTS for b in _PARTS])


@pytest.mark.parametrize("name", ["rint", "exp2", "expm1", "log1p", "reciprocal", "arcsin",
                                  "arccos", "arctan", "arcsinh", "arccosh", "arctanh"])
def test_complex_ufuncs(name):
    f, jf = source_case(f"np.{name}(a)", "a")
    with np.errstate(all="ignore"):
        for z in [_GRID, _GRID.astype(np.complex64), _GRID.reshape(10, 10)[::2, ::-3]]:
            want, got = f(z), jf(z)
            assert got.dtype == want.dtype and got.shape == want.shape
            tol = 1e-5 if z.dtype == np.complex64 else 1e-12
            assert np.allclose(got, want, rtol=tol, atol=0, equal_nan=True), name
        g, s = source_case(f"np.{name}(a)", "a")   # scalars
        assert np.isclose(s(0.3 - 0.2j), g(0.3 - 0.2j), rtol=1e-12)


# ---- np.lib.stride_tricks.sliding_window_view -------------------------------------------------

WINDOWS = [("swv(a, 3)", np.arange(6.0)), ("swv(a, (2, 2))", np.arange(12.0).reshape(3, 4)),
           ("swv(a, 2, axis=1)", np.arange(12.0).reshape(3, 4).T),
           ("swv(a, 2, axis=-1)", np.arange(24).reshape(2, 3, 4)[:, ::-1]),
           ("swv(a, (2, 3), axis=(0, 2))", np.arange(24).reshape(2, 3, 4)),
           ("swv(a, 6)", np.arange(6.0)), ("swv(a, 0)", np.arange(3.0)),
           ("swv(a, 2).sum(axis=-1)", np.arange(5, dtype=np.int32)),
           ("swv(a, 2)", np.arange(2.0))]


@pytest.mark.parametrize("src, a", WINDOWS, ids=[s for s, _ in WINDOWS])
def test_sliding_window_view(src, a):
    from numpy.lib.stride_tricks import sliding_window_view
    ns = {"np": np, "swv": sliding_window_view}
    exec(f"def f(a):\n    return {src}\n", ns)
    same(njit(ns["f"])(a), ns["f"](a))


def test_sliding_window_view_errors():
    from numpy.lib.stride_tricks import sliding_window_view

    def f(a, w):
        return sliding_window_view(a, w)
    for w in (7, -1):
        with pytest.raises(ValueError) as want:
            f(np.arange(6.0), w)
        with pytest.raises(ValueError) as got:
            njit(f)(np.arange(6.0), w)
        assert str(got.value) == str(want.value)


def test_nditer_list_comprehension():
    def f(a):
        return [x.item() * 2 for x in np.nditer(a)]
    for a in [np.arange(6.0).reshape(2, 3), np.arange(4), np.asfortranarray(np.ones((2, 2)))]:
        assert njit(f)(a) == f(a)


# ---- out= beside where= on reductions ---------------------------------------------------------

OUT_WHERE = ["np.sum(a, axis=0, out=o, where=m)", "np.prod(a, axis=1, out=o, where=m)",
             "np.mean(a, axis=0, out=o, where=m)", "np.std(a, axis=1, out=o, where=m)",
             "np.max(a, axis=0, out=o, where=m, initial=-1.0)", "a.sum(axis=1, out=o, where=m)",
             "np.var(a, axis=0, out=o, where=m, ddof=1)", "np.sum(a, out=o, where=m)",
             "np.sum(a, axis=0, out=o, where=m, keepdims=True)",
             "np.nansum(a, axis=0, out=o, where=m)", "np.min(a, axis=1, out=o, where=m, initial=99)"]


@pytest.mark.parametrize("src", OUT_WHERE)
def test_reduction_out_where(src):
    ns = {"np": np}
    exec(f"def f(a, o, m):\n    r = {src}\n    return r, o\n", ns)
    f, jf = ns["f"], njit(ns["f"])
    for a in [np.arange(12.0).reshape(3, 4), np.asfortranarray(np.arange(12.0).reshape(3, 4)) - 4,
              np.arange(24.0).reshape(6, 4)[::2]]:
        m = a % 3 != 0
        shape = (1, 4) if "keepdims" in src else (4,) if "axis=0" in src else \
            (3,) if "axis=1" in src else ()
        want, got = f(a, np.zeros(shape), m), jf(a, np.zeros(shape), m)
        same(got[1], want[1])
        same(np.asarray(got[0]), np.asarray(want[0]))


def test_reduction_out_where_errors():
    def f(a, o, m):
        return np.sum(a, axis=0, out=o, where=m)
    a = np.ones((3, 4))
    with pytest.raises(ValueError):
        f(a, np.zeros(3), a > 0)
    with pytest.raises(ValueError, match="wrong shape"):
        njit(f)(a, np.zeros(3), a > 0)


# ---- np.polynomial.polyutils ------------------------------------------------------------------

POLYUTILS = [("pu.trimseq(a)", np.array([1.0, 0, 0])), ("pu.trimseq(a)", np.array([0.0, 0])),
             ("pu.trimseq(a)", np.zeros(0)), ("pu.trimseq(a)", np.array([1, 2, 0])),
             ("pu.as_series((a, np.array([1.0, 0])))", np.arange(3)),
             ("pu.as_series((a,))", np.array([1, 2], np.float32)),
             ("pu.as_series(a)", np.arange(4.0).reshape(2, 2)),
             ("pu.as_series((a,))", np.array([1 + 1j, 0])), ("pu.as_series((a, 2.0))", np.array([0.0, 0])),
             ("pu.as_series((a,), trim=False)", np.array([1.0, 0])),
             ("pu.as_series((a, a[::-1]))", np.array([3, 0, 1], np.int16))]


@pytest.mark.parametrize("src, a", POLYUTILS, ids=[f"{s}-{k}" for k, (s, _) in enumerate(POLYUTILS)])
def test_polyutils(src, a):
    from numpy.polynomial import polyutils
    ns = {"np": np, "pu": polyutils}
    exec(f"def f(a):\n    return {src}\n", ns)
    got, want = njit(ns["f"])(a), ns["f"](a)
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    else:
        same(got, want)
    with pytest.raises(ValueError, match="empty"):
        njit(lambda a: polyutils.as_series((a,)))(np.zeros(0))


def test_bytes_constants():
    key = b"hello"

    def f(i):
        return (np.frombuffer(b"abcdefgh", np.uint8), np.frombuffer(b"\x00\x00\x80?", np.float32),
                len(b"xyz"), b"xyz"[1], key[i] + 1)
    got, want = njit(f)(1), f(1)
    same(got[0], want[0])
    same(got[1], want[1])
    assert got[2:] == want[2:]
