"""Calls between compiled functions honour the callee's declared signature, as calls from Python do.

A function compiled with an explicit signature converts its arguments to the signature's types
and its result to the declared return type. Called from another compiled function it must do
exactly the same: the result of `use(x)` (compiled caller) equals `f(x)` (called from Python),
for every combination of explicit and inferred signatures on both sides, with scalars, arrays
and tuples. Expected values are computed independently with NumPy's conversions.
"""
import numpy as np
import pytest

from pyjit import njit
from pyjit.errors import TypingError

BIG = np.array([3000000000, 7], dtype=np.int64)
WRAPPED = int(np.int64(3000000000).astype(np.int32))   # -1294967296


def callees():
    """The same body compiled with an explicit signature, with two, and inferred."""
    def first(state):
        return state[0]
    return {
        "explicit": njit("i4(i8[:])")(first),
        "explicit_many": njit(["i4(i8[:])", "f8(f8[:])"])(first),
        "inferred": njit(first),
    }


def callers(callee):
    def use(state):
        return callee(state)
    return {
        "inferred": njit(use),
        "explicit": njit("i8(i8[:])")(use),
    }


@pytest.mark.parametrize("callee_kind", ["explicit", "explicit_many", "inferred"])
@pytest.mark.parametrize("caller_kind", ["inferred", "explicit"])
def test_return_type_of_callee_applies(callee_kind, caller_kind):
    callee = callees()[callee_kind]
    use = callers(callee)[caller_kind]
    expected = WRAPPED if callee_kind != "inferred" else 3000000000
    assert callee(BIG) == expected
    assert use(BIG) == expected
    assert use(BIG) == callee(BIG)


def test_issue_example():
    @njit("i4(i8[:])")
    def f(state):
        return state[0]

    @njit
    def use(state):
        return f(state)

    s = np.array([3000000000], dtype=np.int64)
    assert f(s) == use(s) == -1294967296


@pytest.mark.parametrize("caller_sig", [None, "f8(f8)"])
def test_scalar_arguments_converted_to_the_declared_types(caller_sig):
    @njit("f4(f4, f4)")
    def add32(a, b):
        return a + b

    def use(x):
        return add32(x, 0.1)
    use = njit(use) if caller_sig is None else njit(caller_sig)(use)
    for x in (1.0, 1e-8, 3.3, 1e40, -2.5):
        with np.errstate(over="ignore"):
            expected = float(np.float32(np.float32(x) + np.float32(0.1)))
        assert add32(x, 0.1) == expected
        assert use(x) == expected


def test_int_argument_narrowed_as_from_python():
    @njit("i8(i2)")
    def widen(v):
        return v * 2

    @njit
    def use(v):
        return widen(v)

    for v in (1, 40000, -70000, 2**40 + 5):
        # NumPy 2 promotion: int16 times a Python int stays int16 (and wraps)
        expected = int(np.array(v).astype(np.int16) * 2)
        assert widen(v) == expected
        assert use(v) == expected


def test_best_signature_is_chosen():
    @njit(["i4(i4)", "f8(f8)"])
    def ident(x):
        return x

    @njit
    def use_int(n):
        return ident(n)

    @njit
    def use_float(x):
        return ident(x)

    for v in (2**31 + 3, np.int32(-7), np.int16(300), 2.75, np.float32(0.5)):
        got, expected = use_int(v), ident(v)
        assert got == expected and type(got) is type(expected), v
    assert type(use_int(np.int32(-7))) is int and use_int(np.int32(-7)) == -7
    assert use_float(2.75) == ident(2.75) == 2.75


@pytest.mark.parametrize("callee_explicit", [True, False])
@pytest.mark.parametrize("caller_explicit", [True, False])
def test_arrays_in_and_out(callee_explicit, caller_explicit):
    def scale(a, k):
        out = np.empty(a.shape[0], dtype=np.float32)
        for i in range(a.shape[0]):
            out[i] = a[i] * k
        return out
    scale = njit("f4[::1](f8[:], f8)")(scale) if callee_explicit else njit(scale)

    def use(a):
        return scale(a, 3.0)[1:]
    use = njit("f4[:](f8[:])")(use) if caller_explicit else njit(use)

    a = np.linspace(0.0, 1.0, 7)
    expected = (a * 3.0).astype(np.float32)[1:]
    np.testing.assert_array_equal(use(a), expected)
    np.testing.assert_array_equal(use(a[::2]), (a[::2] * 3.0).astype(np.float32)[1:])
    assert use(a).dtype == np.float32


@pytest.mark.parametrize("callee_explicit", [True, False])
@pytest.mark.parametrize("caller_explicit", [True, False])
def test_tuples_in_and_out(callee_explicit, caller_explicit):
    def split(t):
        return t[0] + t[1], t[0] - t[1]
    split = njit("UniTuple(i4, 2)(UniTuple(i8, 2))")(split) if callee_explicit else njit(split)

    def use(a, b):
        return split((a, b))
    use = njit("UniTuple(i8, 2)(i8, i8)")(use) if caller_explicit else njit(use)

    a, b = 2**31 - 1, -5
    if callee_explicit:
        wrap = lambda v: int(np.array(v).astype(np.int32))   # noqa: E731
        expected = (wrap(a + b), wrap(a - b))
    else:
        expected = (a + b, a - b)
    assert split((a, b)) == expected
    assert use(a, b) == expected


def test_signature_without_return_type_infers_it():
    @njit(["(i8,)"])
    def twice(n):
        return n * 2

    @njit
    def use(n):
        return twice(n)

    assert use(21) == twice(21) == 42


def test_declared_return_in_recursion():
    @njit("i4(i8)")
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    @njit
    def use(n):
        return fact(n)

    expected = 1
    for k in range(2, 21):
        expected = int(np.array(expected * k).astype(np.int64).astype(np.int32))
    assert fact(20) == expected
    assert use(20) == expected


def test_no_matching_signature_is_a_typing_error_naming_the_line():
    @njit("i4(i8[:])")
    def first(state):
        return state[0]

    @njit
    def use(x):
        return first(x)

    with pytest.raises(TypeError) as python_call:
        first(np.zeros(3))
    assert "no matching definition" in str(python_call.value)
    with pytest.raises(TypingError) as compiled_call:
        use(np.zeros(3))
    text = str(compiled_call.value)
    assert "no matching definition" in text
    assert "int32(array(int64, 1d, A))" in text
    assert "return first(x)" in text


def test_callee_that_still_compiles_uses_an_exact_signature_only():
    def half(x):
        return x / 2
    half = njit(half)
    half.compile("f4(f4)")

    @njit
    def use64(x):
        return half(x)

    assert use64(1.0) == half(1.0) == 0.5
    assert use64(1e-40) == 5e-41   # float64: not narrowed to the float32 signature
