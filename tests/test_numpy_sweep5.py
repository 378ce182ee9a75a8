"""The fifth NumPy sweep: np.array of nested (and empty nested) lists, tuples and arrays to any
depth, ...; each compared with NumPy itself."""
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


# ---- np.array of nested lists ----------------------------------------------------------------

LITERALS = [
    "np.array([[]])", "np.array([[], []])", "np.array([[[]]])", "np.array([[[], []]])",
    "np.array([[[], []], [[], []]])", "np.array([[]], dtype=np.int32)",
    "np.array([[], []], dtype=np.float32)", "np.array([[], [], []], dtype=np.bool_)",
    "np.asarray([[]])", "np.asarray([[], []], dtype=np.complex128)", "np.array(((), ()))",
    "np.array(((),))", "np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])",
    "np.array([[[1.5], [2]], [[3], [4]]])", "np.array([[[True, False]]])",
    "np.array([[[1, 2]]], dtype=np.float32)", "np.array(([1, 2], [3, 4]))",
    "np.array(((1, 2), (3, 4)))", "np.array([[(1, 2), (3, 4)], [(5, 6), (7, 8)]])",
    "np.array([[[[1.0]]]])", "np.array(([1, 2], [3.5, 4]))", "np.array(([[1]], [[2]]))",
    "np.array(([1, 2], (3, 4)))", "np.array((np.arange(3), np.ones(3)))", "np.array([[]]).shape", "np.array([[], []]).sum()",
]


@pytest.mark.parametrize("src", LITERALS)
def test_nested_literals(src):
    f, jf = source_case(src)
    want = f()
    if isinstance(want, tuple):
        assert jf() == want
    else:
        same(jf(), want)


def test_nested_lists_of_arrays():
    def f(a, b):
        return np.array([[a, b], [b, a]])
    a, b = np.arange(3.0), np.linspace(0, 1, 3)
    same(njit(f)(a, b), f(a, b))
    m = np.arange(6).reshape(2, 3)

    def g(m):
        return np.array([m, m + 1])   # arrays of 2 dimensions: a 3-d result
    same(njit(g)(m), g(m))
    same(njit(g)(m.T), g(m.T))
    same(njit(g)(m[:, ::2]), g(m[:, ::2]))


def test_nested_lists_built_at_run_time():
    def f(n, m, k):
        x = [[[float(i * m * k + j * k + t) for t in range(k)] for j in range(m)]
             for i in range(n)]
        return np.array(x)
    for shape in [(2, 3, 4), (1, 1, 1), (3, 2, 0)]:
        same(njit(f)(*shape), f(*shape))
    # an empty list above the innermost level: the ndim is fixed when compiling, so the axes
    # below it are 0 long (NumPy's array has fewer dimensions: (0,) and (2, 0))
    assert njit(f)(0, 2, 2).shape == (0, 0, 0)
    assert njit(f)(2, 0, 3).shape == (2, 0, 0)


def test_ragged_nesting_is_valueerror():
    def f(n):
        x = [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0]]]
        x[0][0].append(float(n))
        return np.array(x)
    with pytest.raises(ValueError, match="inhomogeneous"):
        f(0)
    with pytest.raises(ValueError, match="inhomogeneous shape after 2 dimensions"):
        njit(f)(0)


def test_untyped_nested_empty_list_is_a_clear_error():
    def f():
        x = [[]]
        return len(x)
    with pytest.raises(TypingError, match="empty list needs an append"):
        njit(f)()


# ---- dtypes as values ------------------------------------------------------------------------

DT_GLOBAL = np.dtype("float32")
DTYPES = [np.float64, np.float32, np.int8, np.uint16, np.int64, np.bool_, np.complex64,
          np.complex128, np.float16]


@pytest.mark.parametrize("src", [
    "np.dtype(np.float64)", "np.dtype('float32')", "np.dtype('f4') == np.float32",
    "np.dtype('<i8')", "np.dtype(np.int8).itemsize", "np.dtype('c16').name",
    "np.dtype(np.uint16).kind", "np.empty(0, np.dtype(np.int8)).dtype",
    "np.zeros(3, dtype=np.dtype('int16'))", "np.ones((2, 2), np.dtype(np.complex64))",
    "np.arange(4).astype(np.dtype('float32'))", "DT_GLOBAL", "np.zeros(2, DT_GLOBAL)",
    "np.float32(2).dtype", "np.int16(2).dtype.itemsize", "(2.5).dtype if False else 0",
    "np.promote_types(np.int8, np.uint8)", "np.promote_types('f4', np.int64)",
    "np.can_cast(np.int32, np.float64)", "np.can_cast(np.float64, np.float32)",
    "np.can_cast(np.float64, np.float32, 'same_kind')",
    "np.issubdtype(np.float32, np.floating)", "np.issubdtype(np.int8, np.integer)",
    "np.issubdtype(np.uint8, np.signedinteger)", "np.issubdtype(np.complex64, np.inexact)",
    "np.issubdtype(np.bool_, np.number)", "np.issubdtype(np.float64, np.float64)",
])
def test_dtype_values(src):
    ns = {"np": np, "DT_GLOBAL": DT_GLOBAL}
    exec(f"def f():\n    return {src}\n", ns)
    want, got = ns["f"](), njit(ns["f"])()
    if isinstance(want, np.ndarray):
        same(got, want)
    else:
        assert got == want and type(got) is type(want) or (isinstance(want, np.dtype) and
                                                            got == want), (got, want)


@pytest.mark.parametrize("dt", DTYPES + ["M8[D]", "m8[ns]", "M8"])
def test_dtype_attributes_of_arrays(dt):
    def f(a):
        d = a.dtype
        return (d.itemsize, d.name, d.kind, d.char, d.str, d.num, d.byteorder, d.isnative,
                d.alignment, d.ndim, d.hasobject)
    a = np.zeros(3, dt)
    assert njit(f)(a) == f(a)
    assert njit(f)(a[::2]) == f(a[::2])


def test_dtype_of_structured_arrays():
    R = np.dtype([("x", "f8"), ("y", "i4"), ("v", "f4", (3,)), ("t", "M8[D]"),
                  ("n", [("a", "i2"), ("b", "u1")])], align=True)

    def f(a):
        return a.dtype.itemsize, a.dtype.name, a.dtype.kind, a.dtype.num, a.dtype.alignment
    a = np.zeros(2, R)
    assert njit(f)(a) == f(a)


@pytest.mark.parametrize("dt", DTYPES)
def test_dtype_from_an_array_makes_arrays(dt):
    def f(a, n):
        d = a.dtype
        x = np.empty(n, dtype=d)
        x[:] = 1
        return (x, np.zeros((2, n), d), np.ones(n, dtype=d), np.full(n, 3, d), a.astype(d),
                np.zeros_like(a, dtype=np.dtype(np.int32)), np.arange(n, dtype=d) if
                np.issubdtype(d, np.number) else np.zeros(n, d),
                np.issubdtype(d, np.floating), np.issubdtype(d, np.complexfloating),
                np.zeros(1, np.result_type(a, np.int8)), np.ones(1, np.promote_types(d, np.int16)),
                np.can_cast(d, np.float64), d == np.float32, d == a.dtype)
    a = (np.arange(5) % 2).astype(dt)
    got, want = njit(f)(a, 4), f(a, 4)
    for g, w in zip(got, want):
        if isinstance(w, np.ndarray):
            same(g, w)
        else:
            assert g == w, (g, w)


@pytest.mark.parametrize("dt", [np.dtype("float32"), np.float32, np.dtype("int16"),
                                np.dtype("complex128"), np.bool_])
def test_dtype_passed_from_python(dt):
    @njit
    def inner(d, n):
        return np.zeros(n, d)

    def f(d, n):
        return inner(d, n), np.dtype(d).itemsize, np.ones(n, dtype=d).sum()
    got, want = njit(f)(dt, 3), (np.zeros(3, dt), np.dtype(dt).itemsize, np.ones(3, dtype=dt).sum())
    same(got[0], want[0])
    assert got[1:] == want[1:]
    assert njit(lambda d: d)(dt) == np.dtype(dt)


def test_dtype_refusals_are_typing_errors():
    with pytest.raises(TypingError, match="numpy.dtype"):
        njit(lambda: np.dtype("not a dtype"))()
    with pytest.raises(TypingError, match="numpy.dtype"):
        njit(lambda x: np.dtype(x))(3.0)   # NumPy: TypeError, not a dtype


# ---- where= on reductions and ufuncs ---------------------------------------------------------

_R = np.random.default_rng(13)
WHERE_ARRAYS = {
    "float64": _R.standard_normal((3, 4)),
    "float32_F_strided": np.asfortranarray(_R.standard_normal((3, 8)).astype(np.float32))[:, ::2],
    "int16": _R.integers(-9, 9, (3, 4)).astype(np.int16),
    "uint8": _R.integers(0, 9, (3, 4)).astype(np.uint8),
    "bool": _R.integers(0, 2, (3, 4)).astype(bool),
    "complex128": _R.standard_normal((3, 4)) + 1j * _R.standard_normal((3, 4)),
    "float64_nan": np.where(_R.random((3, 4)) < 0.2, np.nan, _R.standard_normal((3, 4))),
    "empty": np.zeros((0, 4)),
}
MASKS = {
    "mask": _R.integers(0, 2, (3, 4)).astype(bool),
    "row": np.array([True, False, True, True]),          # broadcast along the first axis
    "none": np.zeros((3, 4), bool),
    "all": np.ones((3, 4), bool),
}

WHERE_REDUCTIONS = [
    "np.sum(a, where=m)", "a.sum(where=m)", "np.sum(a, axis=0, where=m)",
    "np.sum(a, axis=1, keepdims=True, where=m)", "np.sum(a, axis=(0, 1), where=m)",
    "np.prod(a, axis=1, where=m)", "a.prod(where=m)",
    "np.max(a, where=m, initial=1)", "np.min(a, axis=1, where=m, initial=100)",
    "a.max(axis=0, where=m, initial=0)", "np.amin(a, where=m, initial=3)",
    "np.mean(a, where=m)", "a.mean(axis=0, where=m)", "np.mean(a, axis=1, keepdims=True, where=m)",
    "np.var(a, where=m)", "np.var(a, axis=1, ddof=1, where=m)", "a.std(axis=0, where=m)",
    "np.std(a, where=m, keepdims=True)",
    "np.any(a, where=m)", "np.all(a, axis=1, where=m)", "a.any(axis=0, where=m)",
    "a.all(where=m)",
    "np.nansum(a, where=m)", "np.nansum(a, axis=0, where=m)", "np.nanprod(a, axis=1, where=m)",
    "np.nanmean(a, where=m)", "np.nanmean(a, axis=0, where=m)", "np.nanvar(a, axis=1, where=m)",
    "np.nanstd(a, where=m)",
    "np.add.reduce(a, where=m)", "np.add.reduce(a, axis=None, where=m)",
    "np.multiply.reduce(a, axis=1, where=m)", "np.maximum.reduce(a, axis=0, where=m, initial=2)",
]


def _where_case(src, a, m):
    f, jf = source_case(src, "a", "m")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = f(a, m)
        except (TypeError, ValueError, OverflowError) as exc:   # NumPy's error: no such loop,
            # no identity, an initial outside the dtype
            with pytest.raises((type(exc), TypingError)):
                jf(a, m)
            return
        got = jf(a, m)
    if np.ndim(want) == 0 and not isinstance(want, np.ndarray):
        assert np.allclose(got, want, equal_nan=True, rtol=1e-5), (got, want)
    else:
        got = np.asarray(got)
        assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
        assert np.allclose(got, want, equal_nan=True, rtol=1e-5), (got, want)


# every form on float64 with NaNs; a few on the other dtypes, layouts and the empty array (each
# case compiles: a few hundred would take minutes)
WHERE_CASES = [(src, "float64_nan") for src in WHERE_REDUCTIONS] + [
    (src, name) for name in ("float32_F_strided", "int16", "uint8", "bool", "complex128", "empty")
    for src in ("np.sum(a, axis=0, where=m)", "a.prod(where=m)", "np.mean(a, where=m)",
                "np.var(a, axis=1, ddof=1, where=m)", "np.max(a, where=m, initial=1)",
                "np.any(a, where=m)", "np.nansum(a, where=m)", "np.add.reduce(a, where=m)")]


@pytest.mark.parametrize("src,name", WHERE_CASES)
def test_where_on_reductions(src, name):
    a = WHERE_ARRAYS[name]
    if src.startswith(("np.nan", "np.var", "np.std", "a.std", "np.mean", "a.mean")) and \
            a.dtype == bool:
        return   # NumPy has no such loop for bools either way
    if "nan" in src and a.dtype.kind in "iubc":
        return   # not taken: np.nanmean of ints with where=, the nan-functions of complex arrays
    if ("max" in src or "min" in src) and a.dtype.kind == "c":
        return   # not taken: min and max of complex arrays with initial=
    for key, m in MASKS.items():
        if key == "row" and name != "float64_nan":
            continue   # a mask of another ndim compiles again: on the first array only
        if a.shape[0] == 0:
            m = np.zeros(a.shape, bool)
        _where_case(src, a, m)


WHERE_UFUNCS = [
    "np.add(a, a, out=np.zeros_like(a), where=m)", "np.subtract(a, 1, out=a.copy(), where=m)",
    "np.multiply(a, a, out=np.ones(a.shape, a.dtype), where=m)",
    "np.sqrt(a, out=np.full(a.shape, -1.0), where=m)", "np.negative(a, out=a.copy(), where=m)",
    "np.maximum(a, 0, out=a.copy(), where=m)", "np.square(a, out=a.copy(), where=m)",
    "np.equal(a, a, out=np.zeros(a.shape, bool), where=m)",
    "np.exp(a, out=np.zeros(a.shape, np.complex128), where=m)",
    "np.add(a, a, where=m).shape",
]


@pytest.mark.parametrize("src,name", [(src, "float64") for src in WHERE_UFUNCS] + [
    (src, name) for name in ("int16", "complex128", "float32_F_strided", "empty")
    for src in WHERE_UFUNCS[:2] + WHERE_UFUNCS[3:4]])
def test_where_on_ufuncs(src, name):
    a = WHERE_ARRAYS[name]
    f, jf = source_case(src, "a", "m")
    for key, m in MASKS.items():
        if key == "row" and name != "float64":
            continue
        if a.shape[0] == 0:
            m = np.zeros(a.shape, bool)
        with np.errstate(all="ignore"):
            try:
                want = f(a, m)
            except TypeError:   # NumPy casts no result of that loop into out
                continue
        got = jf(a, m)
        if isinstance(want, tuple):
            assert got == want
        else:
            same(got, want)


def test_where_in_place_keeps_the_other_items():
    def f(a, b, m):
        np.add(a, b, out=a, where=m)
        return a
    a, b, m = np.arange(6.0), np.ones(6), np.array([1, 0, 1, 0, 0, 1], bool)
    same(njit(f)(a.copy(), b, m), f(a.copy(), b, m))


def test_where_refusals():
    a, m = np.arange(4.0), np.array([True, False, True, True])
    with pytest.raises(TypingError, match="initial"):
        njit(lambda a, m: np.max(a, where=m))(a, m)   # NumPy: ValueError, no identity
    # out= beside where= is taken (tests/test_numpy_sweep6.py); out must be an array
    with pytest.raises(TypingError, match="out= must be a writable array"):
        njit(lambda a, m: np.sum(a, out=1.0, where=m))(a, m)


# ---- axis=None written out, np.copy of a number ----------------------------------------------

@pytest.mark.parametrize("src", [
    "np.sum(a, axis=None)", "np.prod(a, axis=None)", "np.mean(a, axis=None)",
    "np.max(a, axis=None)", "np.amin(a, axis=None)", "np.argmin(a, axis=None)",
    "a.argmax(axis=None)", "np.std(a, axis=None, ddof=1)", "np.var(a, axis=None)",
    "np.cumsum(a, axis=None)", "a.min(axis=None, keepdims=True)", "a.sum(axis=None)",
])
def test_axis_none_written_out(src):
    f, jf = source_case(src, "a")
    for a in (np.arange(12.0).reshape(3, 4), np.arange(24, dtype=np.int16).reshape(2, 3, 4).T,
              np.array([[1.5, np.nan], [0.5, 2.0]])[:, ::-1]):
        want = f(a)
        if isinstance(want, np.ndarray):
            same(jf(a), want)
        else:
            assert np.allclose(jf(a), want, equal_nan=True)


@pytest.mark.parametrize("x", [3.0, 2, True, 1 + 2j, np.float32(1.5), np.int8(-3)])
def test_copy_of_a_number(x):
    same(njit(lambda x: np.copy(x))(x), np.copy(x))


def test_dtype_strings_of_python_type_names():
    # hyperspy writes np.empty_like(values, dtype="uint"); NumPy reads 'int', 'uint', 'float'
    # and 'complex' as the platform's default widths
    def f(v):
        return (np.empty_like(v, dtype="uint").dtype == np.dtype("uint"),
                np.zeros(3, "int"), np.ones(2, dtype="float"), np.zeros(2, "complex"),
                np.arange(3).astype("uint"))
    got, want = njit(f)(np.ones(3)), f(np.ones(3))
    assert got[0] and want[0]
    for g, w in zip(got[1:], want[1:]):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
