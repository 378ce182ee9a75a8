"""Scalars: arithmetic, comparison, bitwise and unary operators, conversions, across types.

Every test runs the same function in CPython and compiled (util.check) and compares."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import pyjit
from util import assert_same, check, check_raises, wrap64

HYP = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def add(a, b): return a + b
def sub(a, b): return a - b
def mul(a, b): return a * b
def truediv(a, b): return a / b
def floordiv(a, b): return a // b
def mod(a, b): return a % b
def power(a, b): return a ** b
def lt(a, b): return a < b
def le(a, b): return a <= b
def gt(a, b): return a > b
def ge(a, b): return a >= b
def eq(a, b): return a == b
def ne(a, b): return a != b
def band(a, b): return a & b
def bor(a, b): return a | b
def bxor(a, b): return a ^ b
def lshift(a, b): return a << b
def rshift(a, b): return a >> b
def neg(a): return -a
def pos(a): return +a
def inv(a): return ~a
def lnot(a): return not a


ARITH = [add, sub, mul, truediv, floordiv, mod]
CMP = [lt, le, gt, ge, eq, ne]

_jitted = {}


def jitted(f):
    """One dispatcher per Python function for the whole module (compiles once per type tuple)."""
    if f not in _jitted:
        _jitted[f] = pyjit.njit(f)
    return _jitted[f]


# --- ints (int64) -------------------------------------------------------------------------------

INT_VALUES = [0, 1, -1, 2, -2, 3, -3, 7, -7, 10, -10, 123456789, -987654321]


@pytest.mark.parametrize("op", ARITH + [power], ids=lambda f: f.__name__)
def test_int_arith_table(op):
    for a in INT_VALUES:
        for b in INT_VALUES:
            if op is power and not (0 <= b <= 3 and abs(a) < 10**6):
                continue
            check(op, a, b, jit=jitted(op))


@given(st.integers(-2**31, 2**31), st.integers(-2**31, 2**31))
@HYP
def test_int_arith_hypothesis(a, b):
    for op in ARITH:
        check(op, a, b, jit=jitted(op))


@given(st.integers(-2**31, 2**31), st.integers(-3, 3))
@HYP
def test_int_small_divisors_hypothesis(a, b):
    # divisors around zero: ZeroDivisionError for 0, floor semantics for negatives
    for op in (floordiv, mod, truediv):
        check(op, a, b, jit=jitted(op))


@given(st.integers(-50, 50), st.integers(0, 10))
@HYP
def test_int_pow_hypothesis(a, b):
    check(power, a, b, jit=jitted(power))


def test_int_division_by_zero_raises():
    for op in (truediv, floordiv, mod):
        check_raises(ZeroDivisionError, jitted(op), 5, 0)
        check_raises(ZeroDivisionError, jitted(op), 0, 0)
        check_raises(ZeroDivisionError, jitted(op), -5, 0)


def test_int_floor_semantics_exact():
    assert jitted(floordiv)(-7, 2) == -4
    assert jitted(floordiv)(7, -2) == -4
    assert jitted(mod)(-7, 2) == 1
    assert jitted(mod)(7, -2) == -1
    assert jitted(mod)(-7, -2) == -1
    assert jitted(truediv)(7, 2) == 3.5
    assert isinstance(jitted(truediv)(4, 2), float)


@pytest.mark.parametrize("op", CMP, ids=lambda f: f.__name__)
def test_int_compare(op):
    for a in INT_VALUES:
        for b in INT_VALUES[:6]:
            check(op, a, b, jit=jitted(op))


@given(st.integers(-2**62, 2**62), st.integers(-2**62, 2**62))
@HYP
def test_int_compare_hypothesis(a, b):
    for op in CMP:
        check(op, a, b, jit=jitted(op))


@given(st.integers(-2**40, 2**40), st.integers(-2**40, 2**40), st.integers(0, 20))
@HYP
def test_int_bitwise_hypothesis(a, b, s):
    for op in (band, bor, bxor):
        check(op, a, b, jit=jitted(op))
    check(lshift, a, s, jit=jitted(lshift))
    check(rshift, a, s, jit=jitted(rshift))
    check(inv, a, jit=jitted(inv))


def test_int_unary():
    for a in INT_VALUES:
        check(neg, a, jit=jitted(neg))
        check(pos, a, jit=jitted(pos))
        check(inv, a, jit=jitted(inv))
        check(lnot, a, jit=jitted(lnot))


# --- int64 wrapping (NumPy int64 semantics, not Python's big ints) ------------------------------

@given(st.integers(-2**63, 2**63 - 1), st.integers(-2**63, 2**63 - 1))
@HYP
def test_int64_wraps(a, b):
    assert jitted(add)(a, b) == wrap64(a + b)
    assert jitted(sub)(a, b) == wrap64(a - b)
    assert jitted(mul)(a, b) == wrap64(a * b)
    with np.errstate(all="ignore"):
        assert jitted(add)(a, b) == int(np.int64(a) + np.int64(b))
        assert jitted(mul)(a, b) == int(np.int64(a) * np.int64(b))


def test_int64_wrap_edges():
    big = 2**63 - 1
    assert jitted(add)(big, 1) == -2**63
    assert jitted(sub)(-2**63, 1) == big
    assert jitted(neg)(-2**63) == -2**63
    assert jitted(mul)(2**62, 4) == 0
    assert jitted(power)(3, 40) == wrap64(3**40)
    assert jitted(lshift)(1, 63) == -2**63


# --- floats (float64) ---------------------------------------------------------------------------

FLOAT_VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-300, -7.25, 1e300, 0.1, 123.456]

finite = st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("op", ARITH, ids=lambda f: f.__name__)
def test_float_arith_table(op):
    for a in FLOAT_VALUES:
        for b in FLOAT_VALUES:
            check(op, a, b, jit=jitted(op), exact=True)


@given(finite, finite)
@HYP
def test_float_arith_hypothesis(a, b):
    for op in ARITH:
        check(op, a, b, jit=jitted(op), exact=True)


@given(finite, st.sampled_from([0.0, -0.0, 0.1, -0.1, 0.3, 1.0, -1.0, 2.0, -3.0, 7.5]))
@HYP
def test_float_floordiv_mod_hypothesis(a, b):
    for op in (floordiv, mod, truediv):
        check(op, a, b, jit=jitted(op), exact=True)


def test_float_floor_semantics_exact():
    # CPython's algorithm, not floor(a / b): 1.0 // 0.1 is 9.0
    assert jitted(floordiv)(1.0, 0.1) == 9.0
    assert jitted(mod)(1.0, 0.1) == 1.0 % 0.1
    assert jitted(floordiv)(-7.5, 2.0) == -4.0
    assert jitted(mod)(-7.5, 2.0) == 0.5
    assert jitted(mod)(7.5, -2.0) == -0.5
    assert math.copysign(1.0, jitted(mod)(-0.0, 5.0)) == math.copysign(1.0, -0.0 % 5.0)
    assert math.copysign(1.0, jitted(mod)(4.0, -2.0)) == -1.0


def test_float_division_by_zero_raises():
    for op in (truediv, floordiv, mod):
        check_raises(ZeroDivisionError, jitted(op), 1.0, 0.0)
        check_raises(ZeroDivisionError, jitted(op), 1.0, -0.0)
        check_raises(ZeroDivisionError, jitted(op), 1, 0.0)


@given(st.floats(1e-3, 1e3), st.floats(-20, 20))
@HYP
def test_float_pow_hypothesis(a, b):
    check(power, a, b, jit=jitted(power), rtol=1e-14)


def test_float_pow_special():
    check(power, -2.0, 3.0, jit=jitted(power))
    check(power, -2.0, -2.0, jit=jitted(power))
    check(power, 0.0, 0.0, jit=jitted(power))
    check(power, 2.0, 0.5, jit=jitted(power))
    check(power, 2, 0.5, jit=jitted(power))
    check(power, 2.0, 3, jit=jitted(power))


@given(st.floats(allow_nan=True, allow_infinity=True), st.floats(allow_nan=True, allow_infinity=True))
@HYP
def test_float_compare_hypothesis(a, b):
    for op in CMP:
        check(op, a, b, jit=jitted(op))


def test_nan_compares():
    nan = float("nan")
    for op in CMP:
        check(op, nan, 1.0, jit=jitted(op))
        check(op, nan, nan, jit=jitted(op))


def test_float_unary():
    for a in FLOAT_VALUES + [float("inf"), float("nan")]:
        check(neg, a, jit=jitted(neg), exact=True)
        check(pos, a, jit=jitted(pos), exact=True)
        check(lnot, a, jit=jitted(lnot))
    assert math.copysign(1.0, jitted(neg)(0.0)) == -1.0


# --- mixed int / float / bool -------------------------------------------------------------------

@given(st.integers(-10**6, 10**6), finite)
@HYP
def test_mixed_int_float_hypothesis(a, b):
    for op in ARITH + CMP:
        check(op, a, b, jit=jitted(op), exact=True)
        check(op, b, a, jit=jitted(op), exact=True)


@pytest.mark.parametrize("op", [add, sub, mul, truediv, floordiv, mod, band, bor, bxor] + CMP,
                         ids=lambda f: f.__name__)
def test_bool_operands(op):
    # Python semantics: True + True is 2, True & False is False (a bool)
    for a in (True, False):
        for b in (True, False):
            check(op, a, b, jit=jitted(op))
        check(op, a, 3, jit=jitted(op))
        check(op, 3, a, jit=jitted(op))
        if op not in (band, bor, bxor):
            check(op, a, 2.5, jit=jitted(op))


def test_bool_unary():
    for a in (True, False):
        check(neg, a, jit=jitted(neg))
        check(lnot, a, jit=jitted(lnot))


# --- complex ------------------------------------------------------------------------------------

COMPLEX_VALUES = [0j, 1 + 0j, -1j, 1.5 - 2.5j, -3 + 4j, 1e-3 + 1e3j]


@pytest.mark.parametrize("op", [add, sub, mul, truediv, eq, ne], ids=lambda f: f.__name__)
def test_complex_arith(op):
    for a in COMPLEX_VALUES:
        for b in COMPLEX_VALUES:
            check(op, a, b, jit=jitted(op))
        check(op, a, 2.0, jit=jitted(op))
        check(op, 3, a, jit=jitted(op))


def test_complex_division_by_zero():
    check_raises(ZeroDivisionError, jitted(truediv), 1 + 1j, 0j)


def test_complex_pow_and_unary():
    for a in COMPLEX_VALUES[1:]:
        check(power, a, 2, jit=jitted(power), rtol=1e-12)
        check(power, a, 0.5 + 0.5j, jit=jitted(power), rtol=1e-12)
        check(neg, a, jit=jitted(neg))
        check(lnot, a, jit=jitted(lnot))


def complex_parts(z):
    return z.real, z.imag, z.conjugate(), abs(z)


def test_complex_attributes():
    for z in COMPLEX_VALUES:
        check(complex_parts, z)
    check(complex_parts, np.complex64(1.5 - 2j))
    nan, inf = float("nan"), float("inf")
    for re, im in [(nan, 1.0), (1.0, nan), (inf, 2.0), (-inf, -3.0), (2.0, inf), (inf, nan),
                   (nan, -inf), (-0.0, -0.0)]:   # each part is read, whatever the other is
        check(complex_parts, complex(re, im), exact=True)
        check(complex_parts, np.complex64(complex(re, im)), exact=True)


# --- NumPy scalar types -------------------------------------------------------------------------

SMALL_INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                   np.uint64]


@pytest.mark.parametrize("t", SMALL_INT_TYPES, ids=lambda t: t.__name__)
def test_numpy_int_scalars(t):
    for a, b in [(7, 3), (11, 9), (5, 5), (1, 5)]:
        for op in [add, mul, floordiv, mod, truediv] + CMP + [band, bor, bxor]:
            check(op, t(a), t(b), jit=jitted(op))
        check(add, t(a), b, jit=jitted(add))     # numpy scalar with a Python int
        check(mul, a, t(b), jit=jitted(mul))
        check(add, t(a), 0.5, jit=jitted(add))
    check_raises(ZeroDivisionError, jitted(floordiv), t(3), t(0))


@pytest.mark.parametrize("t", [np.int8, np.int32, np.uint8, np.uint16], ids=lambda t: t.__name__)
def test_numpy_small_int_wraps_like_numpy(t):
    # NEP 50: t + Python int stays t, and wraps like NumPy
    info = np.iinfo(t)
    check(add, t(info.max), 1, jit=jitted(add))
    check(sub, t(info.min), 1, jit=jitted(sub))
    check(add, t(info.max), t(info.max), jit=jitted(add))


def test_mixed_numpy_int_types_promote():
    check(add, np.int8(100), np.int16(1000))
    check(add, np.uint8(200), np.int8(-100))
    check(mul, np.int32(3), np.float32(0.5))
    check(add, np.uint32(7), np.int32(-9))
    check(mul, np.int16(300), np.int16(300))   # wraps in int16, as NumPy does


@pytest.mark.parametrize("op", ARITH + CMP, ids=lambda f: f.__name__)
def test_float32_scalars(op):
    vals = [np.float32(1.5), np.float32(-0.1), np.float32(3.0), np.float32(1e-3)]
    for a in vals:
        for b in vals:
            check(op, a, b, jit=jitted(op), exact=True)


def mul_two(x):
    return x * 2.0 + 0.1


def div_three(x):
    return x / 3


def test_float32_weak_literal_stays_float32():
    # NEP 50: float32 * 2.0 + 0.1 is computed in float32; a float64 computation gives a different
    # value, so comparing exactly with NumPy 2's float32 answer checks the precision.
    f = pyjit.njit(mul_two)
    g = pyjit.njit(div_three)
    for v in (0.1, 1.7, -3.3, 12345.678):
        x = np.float32(v)
        assert mul_two(x).dtype == np.float32
        got = f(x)
        assert got == mul_two(x), (v, got, mul_two(x))
        assert g(x) == div_three(x), (v, g(x), div_three(x))
        if isinstance(got, np.generic):
            assert got.dtype == np.float32
    # the data discriminates: a float64 computation would give other values
    assert any(float(mul_two(np.float32(v))) != float(np.float32(v)) * 2.0 + 0.1
               for v in (0.1, 1.7, -3.3, 12345.678))


def test_float64_with_float32_promotes():
    check(add, np.float32(0.1), 0.2)      # weak float: float32
    check(add, np.float32(0.1), np.float64(0.2))   # strong float64: float64
    check(mul, np.float32(1.1), np.int64(3))       # float32 with int64: float64


# --- conversions and builtins -------------------------------------------------------------------

def conv_int(x): return int(x)
def conv_float(x): return float(x)
def conv_bool(x): return bool(x)
def conv_complex(a, b): return complex(a, b)
def conv_complex1(a): return complex(a)
def do_round(x): return round(x)
def do_round2(x): return round(x, 2)
def do_abs(x): return abs(x)
def do_min2(a, b): return min(a, b)
def do_max2(a, b): return max(a, b)
def do_min3(a, b, c): return min(a, b, c)
def do_max3(a, b, c): return max(a, b, c)
def do_pow(a, b): return pow(a, b)
def do_divmod(a, b): return divmod(a, b)


def test_int_float_bool_conversions():
    for x in [0, 5, -5, 2**40, 3.7, -3.7, 0.0, -0.5, 1e15, np.float32(2.5),
              np.int32(-7), np.uint8(200)]:
        check(conv_int, x, jit=jitted(conv_int))
        check(conv_float, x, jit=jitted(conv_float))
        check(conv_bool, x, jit=jitted(conv_bool))
    check(conv_bool, 0j, jit=jitted(conv_bool))
    check(conv_bool, 1j, jit=jitted(conv_bool))


def test_bool_conversions():
    for x in (True, False):
        check(conv_int, x, jit=jitted(conv_int))
        check(conv_float, x, jit=jitted(conv_float))
        check(conv_bool, x, jit=jitted(conv_bool))


def test_complex_constructor():
    check(conv_complex, 1.5, -2.0)
    check(conv_complex, 3, 4)
    check(conv_complex1, 2.5)
    check(conv_complex1, 7)


def test_round():
    for x in [0.5, 1.5, 2.5, -0.5, -1.5, 3.14159, -2.71828, 1e10 + 0.5, 7.0, 0.125]:
        check(do_round, x, jit=jitted(do_round))
        check(do_round2, x, jit=jitted(do_round2))
    assert jitted(do_round)(2.5) == 2 and isinstance(jitted(do_round)(2.5), int)


def test_round_ndigits_is_correctly_rounded():
    # CPython rounds the exact binary value: 2.675 is 2.67499999..., so round(2.675, 2) is 2.67
    for x in [2.675, 1.005, 0.285, -2.675]:
        check(do_round2, x, jit=jitted(do_round2), exact=True)


def test_abs():
    for x in [0, -3, 3, -2**40, -0.0, -2.5, 2.5, float("-inf"), 3 - 4j, np.float32(-1.25),
              np.int8(-100), True]:
        check(do_abs, x, jit=jitted(do_abs))


def test_min_max():
    for a, b in [(1, 2), (2, 1), (-1.5, 2.0), (3.0, 2.5), (np.int32(4), np.int32(-4)), (-0.0, 0.0)]:
        check(do_min2, a, b, jit=jitted(do_min2))
        check(do_max2, a, b, jit=jitted(do_max2))
    for a, b, c in [(1, 2, 3), (3, 1, 2), (2.5, -1.0, 0.0), (5, -5, 4)]:
        check(do_min3, a, b, c, jit=jitted(do_min3))
        check(do_max3, a, b, c, jit=jitted(do_max3))


def test_min_max_mixed_types_promote():
    # an int and a float give a float (the compiled result has one type)
    assert_same(2.0, jitted(do_max2)(-1.5, 2))
    assert_same(-1.5, jitted(do_min2)(-1.5, 2))
    assert_same(5.5, jitted(do_max3)(5, 5.5, 4))


def test_pow_builtin():
    for a, b in [(2, 10), (-3, 3), (2.0, -1.5), (9, 0.5), (1.5, 2)]:
        check(do_pow, a, b, jit=jitted(do_pow))


@given(st.integers(-10**9, 10**9), st.integers(-10**4, 10**4))
@HYP
def test_divmod_int_hypothesis(a, b):
    check(do_divmod, a, b, jit=jitted(do_divmod))


@given(finite, st.sampled_from([0.0, 0.25, -0.25, 3.0, -7.5, 1e-3]))
@HYP
def test_divmod_float_hypothesis(a, b):
    check(do_divmod, a, b, jit=jitted(do_divmod), exact=True)


def to_np_float32(x): return np.float32(x)
def to_pyjit_float32(x): return pyjit.float32(x)
def to_np_int32(x): return np.int32(x)
def to_np_uint8(x): return np.uint8(x)
def to_np_float64(x): return np.float64(x)
def to_np_complex64(x): return np.complex64(x)


def f32_roundtrip(x):
    return np.float32(x) * np.float32(3.0)


def test_numpy_type_constructors():
    for x in [0.1, 1.0 / 3.0, -2.5, 7, 1e30]:
        expect = float(np.float32(x))
        assert float(pyjit.njit(to_np_float32)(x)) == expect
        assert float(pyjit.njit(to_pyjit_float32)(x)) == expect
        assert float(pyjit.njit(f32_roundtrip)(x)) == float(np.float32(x) * np.float32(3.0))
    check(to_np_int32, 7.9)
    check(to_np_int32, -7.9)
    check(to_np_uint8, 200)
    check(to_np_float64, 3)
    check(to_np_complex64, 1.5)


def test_pyjit_float32_global():
    from pyjit import float32

    def h(x):
        return float32(x) + float32(0.1)
    got = pyjit.njit(h)(0.2)
    assert float(got) == float(np.float32(0.2) + np.float32(0.1))


# --- None ---------------------------------------------------------------------------------------

def returns_none(x):
    y = x + 1  # noqa: F841


def returns_none_explicit(x):
    return None


def is_none(x):
    return x is None


def none_default(x, y=None):
    if y is None:
        return x
    return x + y


def test_none():
    check(returns_none, 1)
    check(returns_none_explicit, 1.5)
    check(is_none, None)
    check(is_none, 3)
    check(none_default, 4)
    check(none_default, 4, 5)
    check(none_default, 4, None)


# --- fastmath and nogil options are accepted and keep results -----------------------------------

def poly(x):
    return 3.0 * x * x + 2.0 * x + 1.0


def test_fastmath_and_nogil_options():
    for opts in ({"fastmath": True}, {"nogil": True}, {"nogil": True, "fastmath": True}):
        f = pyjit.njit(**opts)(poly)
        for x in (0.5, -2.0, 10.0):
            assert_same(poly(x), f(x), rtol=1e-12)
    f = pyjit.njit(fastmath=True)(add)
    assert f(2, 3) == 5


def test_fastmath_flag_sets_as_numba_takes_them():
    # Numba's performance tips pass LLVM's flag names as a set or a dict
    for flags in ({"reassoc", "nsz"}, {"nnan": True, "ninf": False}, {"fast"}, set(), {}):
        f = pyjit.njit(fastmath=flags)(poly)
        assert_same(poly(1.5), f(1.5), rtol=1e-12)
    with pytest.raises(ValueError, match="Unrecognized fastmath flags"):
        pyjit.njit(fastmath={"reassoc", "speedy"})(poly)
    with pytest.raises(ValueError, match="bool, dict or set"):
        pyjit.njit(fastmath="fast")(poly)


# --- more edge cases ----------------------------------------------------------------------------

f32 = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32).map(np.float32)


@given(f32, f32)
@HYP
def test_float32_arith_hypothesis(a, b):
    # float32 basic arithmetic is correctly rounded: compiled and NumPy agree bit for bit
    for op in (add, sub, mul) + ((truediv,) if b != 0 else ()):
        check(op, a, b, jit=jitted(op), exact=True)


def test_float32_division_by_zero_raises_unless_numpy_error_model():
    check_raises(ZeroDivisionError, jitted(truediv), np.float32(1), np.float32(0))
    f = pyjit.njit(error_model="numpy")(truediv)
    assert f(1.0, 0.0) == float("inf")
    assert math.isnan(f(0.0, 0.0))
    assert f(np.float32(-1), np.float32(0)) == float("-inf")


def test_complex64_arith():
    a, b = np.complex64(1.5 - 2j), np.complex64(-0.25 + 4j)
    for op in (add, sub, mul, truediv):
        check(op, a, b, jit=jitted(op))


@pytest.mark.parametrize("op", [add, mul, floordiv, mod, lt, eq, ge], ids=lambda f: f.__name__)
def test_uint64_beyond_int64(op):
    big = np.uint64(2**64 - 5)
    for b in (np.uint64(3), np.uint64(2**63 + 1), np.uint64(1)):
        check(op, big, b, jit=jitted(op))


def test_uint64_with_int64_gives_float64():
    # NumPy 2: uint64 and int64 promote to float64
    check(add, np.uint64(3), np.int64(4))
    check(mul, np.uint64(2**63), np.int64(-1))


def test_int8_floor_semantics():
    for a, b in [(-7, 2), (7, -2), (-128, 3), (127, -1)]:
        check(floordiv, np.int8(a), np.int8(b), jit=jitted(floordiv))
        check(mod, np.int8(a), np.int8(b), jit=jitted(mod))


def test_min_max_nan_order_matches_python():
    # Python's min/max keep the first argument unless another compares smaller/larger
    nan = float("nan")
    for a, b in [(nan, 1.0), (1.0, nan), (nan, nan), (-0.0, 0.0), (0.0, -0.0)]:
        check(do_min2, a, b, jit=jitted(do_min2), exact=True)
        check(do_max2, a, b, jit=jitted(do_max2), exact=True)


def test_abs_of_min_int64_wraps():
    assert jitted(do_abs)(-2**63) == -2**63


def test_round_float32_and_large():
    check(do_round, np.float32(2.5), jit=jitted(do_round))
    check(do_round, 1e15 + 0.5, jit=jitted(do_round))
    check(do_round2, np.float32(1.25), jit=jitted(do_round2))


def zero_compare(x):
    return x == 0.0, x < 0.0, -x


def test_negative_zero():
    check(zero_compare, -0.0, exact=True)
    assert math.copysign(1.0, pyjit.njit(zero_compare)(0.0)[2]) == -1.0


def test_uint64_compared_with_negative_python_int():
    # NumPy 2 compares the values exactly: uint64(2**63) is not less than -1
    for op in CMP:
        check(op, np.uint64(2**63), -1, jit=jitted(op))
        check(op, np.uint64(5), -1, jit=jitted(op))
        check(op, np.uint64(2**63), np.int64(-1), jit=jitted(op))


def _power(x, y):
    return x ** y


def _complex_power(x, y):
    return complex(x) ** y


def test_negative_float_to_a_fractional_power_is_nan():
    """docs/guarantees.md: nan (as Numba), where CPython makes a complex number; a complex base
    gives CPython's result."""
    f = pyjit.njit(_power)
    assert math.isnan(f(-8.0, 1 / 3)) and isinstance(_power(-8.0, 1 / 3), complex)
    assert f(-8.0, 2.0) == _power(-8.0, 2.0) and f(8.0, 1 / 3) == _power(8.0, 1 / 3)
    check(_complex_power, -8.0, 1 / 3)


# ---- a Python int accumulator meeting narrow ints ----------------------------------------------

def _sum_items(a):
    s = 0
    for i in range(a.size):
        s += a[i]
    return s


def _hash_bytes(data):
    h = 0
    for c in data:
        h = (h * 31 + c) & 0xFFFFFFFF
    return h


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.uint32])
def test_an_int_accumulator_of_narrow_items_sums_in_int64(dtype):
    # as Numba types `s = 0`: NumPy 2 would keep s a uint8 and wrap (NEP 50 leaves operands weak,
    # and a loop's accumulator is not an operand)
    info = np.iinfo(dtype)
    a = np.full(3000, info.max, dtype)
    a[::7] = info.min
    f = pyjit.njit(_sum_items)
    got = f(a)
    assert got == int(a.astype(np.int64).sum())
    assert "int64" in f.inspect_types()


def test_a_hash_over_bytes_is_cpythons():
    data = bytes(range(256)) * 3 + b"hello world"
    assert pyjit.njit(_hash_bytes)(data) == _hash_bytes(data)
    arr = np.frombuffer(data, np.uint8)
    assert pyjit.njit(_hash_bytes)(arr) == _hash_bytes(data)


def test_weak_operands_and_wide_accumulators_keep_their_types():
    @pyjit.njit
    def step(x):
        return x + 1       # a literal operand: NEP 50, the uint8 wraps as NumPy's does

    assert step(np.uint8(255)) == np.uint8(255) + 1 == 0

    @pyjit.njit
    def acc32(a):
        s = 0.0
        for v in a:
            s += v
        return s

    x = np.full(10, 0.1, np.float32)
    want = np.float32(0)
    for v in x:
        want += v
    assert acc32(x) == want      # float32 arithmetic, as NumPy 2's

    @pyjit.njit
    def acc64(a):
        s = 0
        for v in a:
            s += v
        return s

    u = np.array([2**63, 2**63 - 1, 5], np.uint64)
    assert acc64(u) == int(u.sum())      # uint64 stays uint64 (wrapping as NumPy's sum)


def scalar_methods(a, k):
    x = a[k]
    total = np.sum(a).item() + a.sum().item()      # NumPy scalars turned into numbers
    flag = (a[0] > 0).item()
    z = (x + 2j).conjugate()
    return x.item(), np.int64(k).item(), np.float32(x).item(), total, flag, z, \
        x.conjugate(), (3).conjugate(), True.conjugate()


def test_methods_of_numbers():
    check(scalar_methods, np.arange(5.0), 3)
    with pytest.raises(pyjit.TypingError, match="float64 has no attribute 'foo'"):
        pyjit.njit(lambda a: a[0].foo())(np.ones(2))


def test_overload_method_on_number_types():
    from pyjit import types
    from pyjit.extending import overload_method

    @overload_method(types.Float, "halved")
    def _halved(x):
        return lambda x: x / 2

    assert pyjit.njit(lambda a: a[1].halved() + np.float32(3.0).halved())(np.arange(3.0)) == 2.0


def invert_compared(x, y):
    link = x[0] > y
    return ~link, (~link) * 2.5 - (link) * 1.5, ~(x[1] > y)


def test_invert_of_a_comparison_is_numpy_bools():
    # the comparison of NumPy values is a NumPy bool in CPython, whose ~ is a logical not (as
    # Numba's ~ of any bool): librosa's rqa subtracts (~link) * gap_extend
    x = np.array([0.0, 2.0])
    for y in (-1.0, 0.5, 3.0):
        check(invert_compared, x, y, jit=jitted(invert_compared))
