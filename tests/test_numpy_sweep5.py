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
