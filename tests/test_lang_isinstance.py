"""isinstance() in compiled code: decided by the argument's type when compiling, as Numba does,
so the branch it rules out is never typed (code there may be wrong for the type at hand). Each
function runs in CPython and compiled (util.check); where CPython and Numba differ (1.5 is a
float but no np.float64 in CPython, both in Numba), the compiled answer is Numba's."""
import numpy as np
import pytest

import pyjit
from pyjit import errors
from util import check, numba_or_none


def describe(x):
    if isinstance(x, np.ndarray):
        return x.sum() * 1.0
    if isinstance(x, (int, float)):
        return x * 2.0
    if isinstance(x, str):
        return len(x) * 1.0
    if isinstance(x, tuple):
        return x[0] + 0.5
    return -1.0


def classes(x):
    return (isinstance(x, int), isinstance(x, float), isinstance(x, bool), isinstance(x, complex),
            isinstance(x, list), isinstance(x, dict), isinstance(x, set), isinstance(x, str),
            isinstance(x, np.ndarray), isinstance(x, tuple))


def dead_branch_untyped(x):
    if isinstance(x, str):
        return len(x + "!")      # a type error for a number: never typed
    return x + 1


def numpy_scalar_classes(a):
    v = a[0]
    return isinstance(v, np.float32), isinstance(v, np.float64), isinstance(v, np.int64), \
        isinstance(v, float)


VALUES = [np.arange(3.0), 3, 2.5, True, 1 + 2j, "abcd", (1, 2.5), [1, 2], {3}]


@pytest.mark.parametrize("x", VALUES, ids=[type(v).__name__ for v in VALUES])
def test_isinstance_of_builtin_classes(x):
    check(describe, x)
    check(classes, x)


def test_isinstance_of_a_dict():
    def made_here(n):
        d = {}
        d[n] = 1.5
        return isinstance(d, dict), isinstance(d, list)
    check(made_here, 2)


@pytest.mark.parametrize("x", [3, 2.5])
def test_the_branch_ruled_out_is_not_typed(x):
    check(dead_branch_untyped, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_numpy_scalar_classes(dtype):
    check(numpy_scalar_classes, np.ones(2, dtype))


def test_python_float_is_numba_float64():
    def f(x):
        return isinstance(x, np.float64), isinstance(x, float)
    compiled = pyjit.njit(f)
    ours = compiled(1.5)
    assert ours == (True, True)
    numba_f = numba_or_none(compiled)
    if numba_f is not None:
        assert numba_f(1.5) == ours


def test_unknown_class_is_a_typing_error():
    class Point:
        pass

    def f(x):
        return isinstance(x, Point)
    with pytest.raises(errors.CompileError):
        pyjit.njit(f)(1)


def test_type_of_a_number_converts_to_its_type():
    # numba-stats writes its pdfs for float32 and float64 alike: T = type(p); one = T(1)
    def scaled(x, a, scale):
        T = type(scale)
        inv = T(1) / scale
        return inv * x, type(a[0])(2.5), type(True)(1), type(3)(2.7), T(0.1)

    f = pyjit.njit(scaled)
    for scale, a in ((np.float32(4), np.ones(2, np.float32)), (4.0, np.ones(2)),
                     (np.float64(2), np.ones(2, np.int16))):
        got, expect = f(3.0, a, scale), scaled(3.0, a, scale)
        assert got == expect    # T(0.1) rounded to float32 where scale is one


def test_type_of_an_array_is_a_compile_error():
    @pyjit.njit
    def f(a):
        return type(a)
    with pytest.raises(pyjit.errors.UnsupportedError, match=r"type\(\) takes a number or a bool"):
        f(np.ones(2))
