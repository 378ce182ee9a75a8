"""The fifth NumPy sweep: np.array of nested (and empty nested) lists, tuples and arrays to any
depth, ...; each compared with NumPy itself."""
import numpy as np
import pytest

from pyjit import njit
from pyjit.errors import TypingError


def same(got, want):
    """got (compiled) equals want (NumPy): values, and the dtype and shape of arrays (scalars
    come back as Python numbers, as compiled code returns them)."""
    if np.ndim(want) == 0 and not isinstance(want, np.ndarray):
        assert np.ndim(got) == 0
        assert np.allclose(got, want, equal_nan=True) or got == want, (got, want)
        return
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "fc":
        assert np.allclose(got, want, equal_nan=True, rtol=1e-6), (got, want)
    else:
        assert np.array_equal(got, want), (got, want)


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
