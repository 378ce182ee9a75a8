"""Calls between compiled functions: other @njit functions, chains of them, recursion through an
explicit signature or an already-compiled one, globals and closures frozen at compile time,
default arguments, keyword arguments."""
import numpy as np
import pytest

from pyjit import njit, int64
from util import check, check_raises


@njit
def square(x):
    return x * x


@njit
def hyp2(a, b):
    return square(a) + square(b)


@njit
def hyp3(a, b, c):
    return hyp2(a, b) + square(c)


def uses_helpers(a, b, c):
    return hyp3(a, b, c) - hyp2(c, a)


def test_call_other_njit_functions():
    assert hyp2(3, 4) == 25
    assert hyp3(1.5, 2, 3) == 1.5 ** 2 + 4 + 9
    check(uses_helpers, 1, 2, 3)
    check(uses_helpers, 1.5, -2.0, 0.25)
    check(uses_helpers, np.float32(1.5), np.float32(2), np.float32(3))


@njit
def mutate(a, i, v):
    a[i] = v
    return a[i] * 2


def call_with_array(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += mutate(a, i, i * 1.5)
    return s


@njit
def make_array(n):
    return np.arange(n) * 2


def call_returning_array(n):
    a = make_array(n)
    b = make_array(n + 1)
    return a.sum() + b.sum()


@njit
def pair(x):
    return x, x + 1.0


def call_returning_tuple(x):
    a, b = pair(x)
    return a * b


def test_calls_with_arrays_and_tuples():
    check(call_with_array, np.zeros(5))
    check(call_returning_array, 5)
    check(call_returning_tuple, 2.5)


@njit("int64(int64)")
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


@njit("float64(int64)")
def fib(n):
    if n < 2:
        return float(n)
    return fib(n - 1) + fib(n - 2)


@njit(int64(int64, int64))
def ackermann_small(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann_small(m - 1, 1)
    return ackermann_small(m - 1, ackermann_small(m, n - 1))


def test_recursion_with_signatures():
    for n in (0, 1, 5, 20):
        assert fact(n) == [1, 1, 2, 6, 24, 120][n] if n <= 5 else fact(n) == 2432902008176640000
    assert fib(20) == 6765.0
    assert isinstance(fib(10), float)
    assert ackermann_small(2, 3) == 9
    assert len(fact.signatures) == 1


def _sum_to(n):
    if n <= 0:
        return 0
    return n + sum_to(n - 1)


sum_to = njit(_sum_to)      # lazy: the recursion is typed through the compiled signature


def test_recursion_after_compiled_signature():
    sum_to.compile("int64(int64)")
    assert sum_to(10) == 55
    assert sum_to(1000) == 500500


SCALE = 3.5
TABLE = (1, 4, 9)
LOOKUP = np.array([10.0, 20.0, 30.0])


def uses_globals(x):
    return x * SCALE + TABLE[1] + LOOKUP[2]


def test_globals_are_frozen_at_compile_time():
    global SCALE
    f = njit(uses_globals)
    assert f(2.0) == 2.0 * 3.5 + 4 + 30.0
    old = SCALE
    try:
        SCALE = 100.0
        assert f(2.0) == 2.0 * 3.5 + 4 + 30.0      # already compiled for float64
    finally:
        SCALE = old


def make_closure(k):
    def inner(x):
        return x * k + 1
    return inner


def test_closures():
    for k in (2, 3.5):
        inner = make_closure(k)
        check(inner, 4)
        check(inner, 1.5)


def with_defaults(x, y=2, z=0.5):
    return x * y + z


def test_defaults_and_keywords():
    f = njit(with_defaults)
    assert f(3) == with_defaults(3)
    assert f(3, 4) == with_defaults(3, 4)
    assert f(3, z=1.5) == with_defaults(3, z=1.5)
    assert f(x=1, y=2, z=3.0) == with_defaults(1, 2, 3.0)
    assert f(3, 4, 5.0) == with_defaults(3, 4, 5.0)


@njit
def kw_callee(a, b=10):
    return a - b


def calls_with_keywords(x):
    return kw_callee(x) + kw_callee(x, b=1) + kw_callee(b=x, a=2)


def test_calls_with_keywords_between_compiled_functions():
    check(calls_with_keywords, 5)


@njit
def raises_inside(x):
    if x < 0:
        raise ValueError("negative input")
    return x


def propagates(x):
    return raises_inside(x) + 1


def test_exception_propagates_through_calls():
    f = njit(propagates)
    assert f(1) == 2
    exc = check_raises(ValueError, f, -1)
    assert "negative input" in str(exc)


def test_py_func_and_signatures():
    f = njit(with_defaults)
    assert f.py_func is with_defaults
    f(1, 2, 0.5)
    f(1.0, 2, 0.5)
    assert len(f.signatures) == 2
    g = njit("float64(float64, int64)")(lambda_free_mul)
    assert len(g.signatures) == 1
    assert g(1.5, 2) == 3.0


def lambda_free_mul(a, b):
    return a * b


def test_explicit_signature_casts_arguments():
    g = njit("float64(float64, int64)")(lambda_free_mul)
    assert g(2, 3) == 6.0
    assert isinstance(g(2, 3), float)


@pytest.mark.parametrize("sig", ["float32(float32, float32)", "int32(int32, int32)",
                                 "complex128(complex128, float64)", "uint8(uint8, uint8)",
                                 "float64(float64[:], int64)", "float64(float64[:, :], int64)"])
def test_signature_strings(sig):
    if "[" in sig:
        def idx(a, i):
            return a[i]

        def idx2(a, i):
            return a[i, i]
        if "[:, :]" in sig:
            idx = idx2
        f = njit(sig)(idx)
        a = np.arange(9.0).reshape(3, 3) if "[:, :]" in sig else np.arange(9.0)
        assert f(a, 2) == idx(a, 2)
    else:
        f = njit(sig)(lambda_free_mul)
        assert f(3, 5) == 15
    assert len(f.signatures) == 1


# ---- each function compiled under its own options ----

def quotient(a, b):
    return a / b


def tenth(a):
    return a[10]


divide_numpy = njit(error_model="numpy")(quotient)
divide_python = njit(quotient)
tenth_checked = njit(boundscheck=True)(tenth)
tenth_unchecked = njit(boundscheck=False)(tenth)


def calls_divide_numpy(a, b):
    return divide_numpy(a, b)


def calls_divide_python(a, b):
    return divide_python(a, b)


def calls_tenth_checked(a):
    return tenth_checked(a)


def calls_tenth_unchecked(a):
    return tenth_unchecked(a)


def test_callee_keeps_its_error_model():
    # a numpy-model callee divides by zero to inf under a default caller, and the reverse raises
    assert njit(calls_divide_numpy)(1.0, 0.0) == float("inf")
    assert njit(error_model="numpy")(calls_divide_numpy)(-1.0, 0.0) == float("-inf")
    check_raises(ZeroDivisionError, njit(error_model="numpy")(calls_divide_python), 1.0, 0.0)
    check_raises(ZeroDivisionError, njit(calls_divide_python), 1.0, 0.0)


def test_callee_keeps_its_boundscheck():
    a = np.arange(3.0)
    check_raises(IndexError, njit(boundscheck=False)(calls_tenth_checked), a,
                 match="index 10 is out of bounds for axis 0 with size 3")
    b = np.arange(20.0)
    assert njit(boundscheck=False)(calls_tenth_checked)(b) == 10.0
    assert njit(boundscheck=True)(calls_tenth_unchecked)(b) == 10.0
    check_raises(IndexError, njit(boundscheck=True)(calls_tenth_checked), a)


# More than 30 arguments or items: CPython builds a list item by item (LIST_APPEND), made a
# tuple for a call (CALL_FUNCTION_EX) or a tuple display, each item keeping its own type.
@njit
def many_params(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, b0, b1, b2, b3, b4, b5, b6, b7, b8, b9,
                c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, d0, d1):
    return a0 + b5 * c9 + d0[1] + len(d1)


def calls_many(x, arr, t):
    return many_params(x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x,
                       x, x, x, x, x, x + 1.5 if x > 0 else 2.0, arr, t)


def big_displays(x, y, arr):
    t = (x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x,
         y if x > 1 else 2.5, arr)
    l = [y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y,
         y * x if x > 1 else y, y]
    l.append(3.5)
    return t[30], t[31][0], len(t), l


def test_more_than_30_arguments_and_items():
    arr = np.arange(3.0)
    for x in (2, -1):
        check(calls_many, x, arr, (1, 2.5))
        check(big_displays, x, 1.5, arr)
