"""math, cmath and NumPy scalar math in compiled code, against CPython on the same inputs."""
import cmath
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import pyjit
from util import check, check_raises

HYP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def unary(fn):
    def f(x):
        return fn(x)
    f.__name__ = f"call_{fn.__module__ if hasattr(fn, '__module__') else ''}_{fn.__name__}"
    return f


def binary(fn):
    def f(x, y):
        return fn(x, y)
    f.__name__ = f"call_{fn.__name__}"
    return f


# (function, inputs) with inputs inside the function's domain
MATH_UNARY = [
    (math.sqrt, [0.0, 2.0, 1e-300, 1e300, 16]), (math.exp, [0.0, 1.0, -745.0, 709.0, -2.5]),
    (math.expm1, [1e-10, -0.5, 3.0]), (math.log, [1e-300, 0.5, 1.0, 10.0, 7]),
    (math.log2, [0.125, 3.0, 1024]), (math.log10, [0.001, 2.0, 1e10]),
    (math.log1p, [1e-12, -0.5, 3.0]), (math.sin, [0.0, 1.0, -3.0, 100.0]),
    (math.cos, [0.0, 1.0, -3.0, 100.0]), (math.tan, [0.0, 1.0, -0.5]),
    (math.asin, [-1.0, 0.0, 0.5]), (math.acos, [-1.0, 0.25, 1.0]),
    (math.atan, [-10.0, 0.0, 0.5]), (math.sinh, [-2.0, 0.0, 3.0]),
    (math.cosh, [-2.0, 0.0, 3.0]), (math.tanh, [-20.0, 0.0, 0.5]),
    (math.asinh, [-2.0, 0.0, 3.0]), (math.acosh, [1.0, 2.0, 100.0]),
    (math.atanh, [-0.5, 0.0, 0.9]), (math.erf, [-1.0, 0.0, 0.5, 3.0]),
    (math.erfc, [-1.0, 0.0, 0.5, 3.0]), (math.gamma, [0.5, 1.0, 5.0, 10.5, -1.5]),
    (math.lgamma, [0.5, 1.0, 5.0, 100.0]), (math.fabs, [-2.5, 0.0, 3, -7]),
    (math.floor, [-2.5, 2.5, 3.0, -0.0, 7]), (math.ceil, [-2.5, 2.5, 3.0, 7]),
    (math.trunc, [-2.5, 2.5, 3.99, -7]), (math.isnan, [1.0, float("nan"), float("inf"), 3]),
    (math.isinf, [1.0, float("nan"), float("-inf"), 3]),
    (math.isfinite, [1.0, float("nan"), float("inf"), 3]),
    (math.degrees, [math.pi, 1.0]), (math.radians, [180.0, 45]),
]

MATH_BINARY = [
    (math.atan2, [(1.0, 2.0), (-1.0, -2.0), (0.0, -1.0)]),
    (math.pow, [(2.0, 10.0), (9.0, 0.5), (2, -1), (-8.0, 3.0)]),
    (math.hypot, [(3.0, 4.0), (1e200, 1e200), (0, 5)]),
    (math.copysign, [(1.0, -0.0), (-3.0, 2.0), (2, -1)]),
    (math.fmod, [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (5, 3)]),
    (math.log, [(8.0, 2.0), (100.0, 10.0), (10, 3)]),
    (math.gcd, [(12, 18), (0, 5), (-12, 18), (17, 5)]),
]


@pytest.mark.parametrize("fn,inputs", MATH_UNARY, ids=[f.__name__ for f, _ in MATH_UNARY])
def test_math_unary(fn, inputs):
    f = unary(fn)
    cf = pyjit.njit(f)
    for x in inputs:
        check(f, x, jit=cf, rtol=1e-14)
    for x in inputs:
        if isinstance(x, float) and fn not in (math.floor, math.ceil, math.trunc) and \
                math.isfinite(x) and 1e-30 < abs(x) < 1e30:
            check(f, np.float32(x), rtol=2e-6)
            break


@pytest.mark.parametrize("fn,inputs", MATH_BINARY,
                         ids=[f"{f.__name__}{i}" for i, (f, _) in enumerate(MATH_BINARY)])
def test_math_binary(fn, inputs):
    f = binary(fn)
    cf = pyjit.njit(f)
    for x, y in inputs:
        check(f, x, y, jit=cf, rtol=1e-14)


def test_math_domain_errors_raise_value_error():
    # CPython raises ValueError outside the domain: pyjit does too (Numba returns nan)
    check_raises(ValueError, pyjit.njit(unary(math.sqrt)), -1.0)
    check_raises(ValueError, pyjit.njit(unary(math.log)), 0.0)


@given(st.floats(-700, 700))
@HYP
def test_exp_sin_hypothesis(x):
    for fn in (math.exp, math.sin, math.cos, math.atan, math.tanh):
        check(unary(fn), x, jit=_cached(fn), rtol=1e-14)


_cache = {}


def _cached(fn):
    if fn not in _cache:
        _cache[fn] = pyjit.njit(unary(fn))
    return _cache[fn]


def constants():
    return math.pi, math.e, math.tau, math.inf, cmath.pi


def test_math_constants():
    check(constants)


def math_nan():
    return math.nan


def test_math_nan_constant():
    check(math_nan)


CMATH_UNARY = [cmath.sqrt, cmath.exp, cmath.log, cmath.log10, cmath.sin, cmath.cos, cmath.tan,
               cmath.sinh, cmath.cosh, cmath.tanh, cmath.phase, cmath.polar, cmath.isnan,
               cmath.isinf, cmath.isfinite]
COMPLEX_INPUTS = [1 + 1j, -2 + 0.5j, 0.5 - 3j, -1 - 1j, 3 + 0j, 2.0, 5]


@pytest.mark.parametrize("fn", CMATH_UNARY, ids=lambda f: f.__name__)
def test_cmath(fn):
    f = unary(fn)
    cf = pyjit.njit(f)
    for z in COMPLEX_INPUTS:
        check(f, z, jit=cf, rtol=1e-13)


def test_cmath_rect():
    f = binary(cmath.rect)
    for r, phi in [(1.0, 0.5), (2.0, -3.0), (0.0, 1.0)]:
        check(f, r, phi, rtol=1e-13)


NP_UNARY = [
    (np.sqrt, [0.0, 2.0, 16.0]), (np.exp, [0.0, 1.0, -2.5]), (np.log, [0.5, 1.0, 10.0]),
    (np.log2, [0.125, 3.0]), (np.log10, [0.001, 2.0]), (np.sin, [0.0, 1.0, -3.0]),
    (np.cos, [0.0, 1.0, -3.0]), (np.tan, [0.0, 1.0]), (np.arcsin, [-1.0, 0.5]),
    (np.arccos, [-1.0, 0.25]), (np.arctan, [-10.0, 0.5]), (np.sinh, [-2.0, 3.0]),
    (np.cosh, [-2.0, 3.0]), (np.tanh, [-20.0, 0.5]), (np.floor, [-2.5, 2.5]),
    (np.ceil, [-2.5, 2.5]), (np.trunc, [-2.5, 2.7]), (np.abs, [-2.5, 3.0, -4, 3 - 4j]),
    (np.absolute, [-2.5, 3.0]), (np.fabs, [-2.5, 3.0]), (np.isnan, [1.0, float("nan")]),
    (np.isinf, [1.0, float("inf")]), (np.isfinite, [1.0, float("inf")]),
    (np.sign, [-2.5, 0.0, 3.0, -4, 7]),
]

NP_BINARY = [
    (np.arctan2, [(1.0, 2.0), (-1.0, -2.0)]), (np.power, [(2.0, 10.0), (9.0, 0.5), (3, 4)]),
    (np.hypot, [(3.0, 4.0)]), (np.minimum, [(1.0, 2.0), (float("nan"), 1.0), (3, -4)]),
    (np.maximum, [(1.0, 2.0), (1.0, float("nan")), (3, -4)]),
]


@pytest.mark.parametrize("fn,inputs", NP_UNARY, ids=[f.__name__ for f, _ in NP_UNARY])
def test_numpy_scalar_math(fn, inputs):
    f = unary(fn)
    cf = pyjit.njit(f)
    for x in inputs:
        check(f, x, jit=cf, rtol=1e-14)
    x = inputs[-1]
    if isinstance(x, float):
        check(f, np.float32(x), rtol=2e-6)


@pytest.mark.parametrize("fn,inputs", NP_BINARY, ids=[f.__name__ for f, _ in NP_BINARY])
def test_numpy_scalar_math_binary(fn, inputs):
    f = binary(fn)
    cf = pyjit.njit(f)
    for x, y in inputs:
        check(f, x, y, jit=cf, rtol=1e-14)


COMPLEX_SPECIAL = [complex(math.nan, 0.0), complex(0.0, math.nan), complex(math.inf, 1.0),
                   complex(1.0, -math.inf), 1j, 0j, complex(math.nan, math.inf)]


def np_classes(z):
    return np.isnan(z), np.isinf(z), np.isfinite(z)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_numpy_nan_inf_finite_of_complex(dtype):
    # a complex number is nan or inf where a part is, finite where both are: a scalar and each
    # element of an array (strided too), as NumPy
    cf = pyjit.njit(np_classes)
    a = np.array(COMPLEX_SPECIAL, dtype=dtype)
    for z in a:
        assert cf(z) == np_classes(z)
    for view in (a, a[::2]):
        for got, want in zip(cf(view), np_classes(view)):
            np.testing.assert_array_equal(got, want)


def np_sqrt_f32(x):
    return np.sqrt(x) * 2.0


def test_numpy_math_float32_stays_float32():
    x = np.float32(2.0)
    got = pyjit.njit(np_sqrt_f32)(x)
    assert got == np_sqrt_f32(x)          # float32 all the way: a float64 sqrt differs
    assert float(np_sqrt_f32(x)) != math.sqrt(2.0) * 2.0


def np_math_on_array(a):
    return np.sqrt(a) + np.sin(a)


def test_numpy_math_elementwise_over_arrays():
    check(np_math_on_array, np.linspace(0.0, 3.0, 7))
    check(np_math_on_array, np.linspace(0.0, 3.0, 7).astype(np.float32))


def mixed_expression(x, y):
    return math.sqrt(x * x + y * y) + math.atan2(y, x) * np.cos(x) - abs(math.floor(y))


def test_mixed_math_expression():
    for x, y in [(1.0, 2.0), (-3.5, 0.25), (3, 4)]:
        check(mixed_expression, x, y, rtol=1e-13)


def test_fastmath_math():
    f = pyjit.njit(fastmath=True)(mixed_expression)
    assert abs(f(1.0, 2.0) - mixed_expression(1.0, 2.0)) < 1e-9


# ---- math.frexp and math.ldexp (pyjit/lib/pymath.py): CPython's results, subnormals and the
# one rounding of ldexp included; an overflowing ldexp is inf (no range errors, as Numba) ----

FREXP_INPUTS = [0.0, -0.0, 1.0, -3.5, 0.1, 1e308, -1e308, 5e-324, 2.2250738585072014e-308,
                1e-310, math.inf, -math.inf, 7, True, 123456789.125]


def _frexp(x):
    return math.frexp(x)


def _ldexp(x, i):
    return math.ldexp(x, i)


def _frexp_round_trip(x):
    m, e = math.frexp(x)
    return math.ldexp(m, e) == x and 0.5 <= abs(m) < 1.0


def test_frexp_against_cpython():
    f = pyjit.njit(_frexp)
    for x in FREXP_INPUTS:
        got, want = f(x), math.frexp(x)
        assert got == want and math.copysign(1, got[0]) == math.copysign(1, want[0]), x
    m, e = f(math.nan)
    assert m != m and e == 0
    check(_frexp_round_trip, 0.3)


@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(-2200, 2200))
@HYP
def test_ldexp_against_cpython(x, i):
    try:
        want = math.ldexp(x, i)
    except OverflowError:
        want = math.copysign(math.inf, x)
    got = pyjit.njit(_ldexp)(x, i)
    assert got == want and math.copysign(1, got) == math.copysign(1, want)
    assert pyjit.njit(_frexp)(x) == math.frexp(x)


def test_frexp_ldexp_float32_stay_float32():
    m, e = pyjit.njit(_frexp)(np.float32(0.1))
    assert (m, e) == (np.float32(0.8), -3)
    assert pyjit.njit(_ldexp)(np.float32(0.75), -130) == np.ldexp(np.float32(0.75), -130)
    with pytest.raises(pyjit.errors.TypingError, match="math.frexp\\(\\) takes a number, not str"):
        pyjit.njit(_frexp)("x")


# ---- math.modf and math.remainder (pyjit/lib/pymath.py, which numba-cuda kernels call too):
# CPython's results, signed zeros included; a remainder CPython refuses is NaN ----

def _modf_remainder(x, y):
    return math.modf(x), math.remainder(x, y)


@given(st.floats(allow_nan=False), st.floats(allow_nan=False))
@HYP
def test_modf_remainder_against_cpython(x, y):
    (frac, whole), r = pyjit.njit(_modf_remainder)(x, y)
    wf, ww = math.modf(x)
    assert (frac, whole) == (wf, ww) and math.copysign(1, frac) == math.copysign(1, wf) and \
        math.copysign(1, whole) == math.copysign(1, ww)
    try:
        want = math.remainder(x, y)
    except ValueError:
        assert r != r
    else:
        assert r == want and math.copysign(1, r) == math.copysign(1, want)


def test_modf_remainder_halfway_nan_and_float32():
    f = pyjit.njit(_modf_remainder)
    for x, y in [(5.0, 2.0), (7.0, 2.0), (-5.0, 2.0), (4.5, 1.0), (5.5, 1.0), (1e308, 3e-308)]:
        assert f(x, y)[1] == math.remainder(x, y), (x, y)
    (frac, whole), r = f(math.nan, 1.0)
    assert frac != frac and whole != whole and r != r
    (frac, whole), _ = pyjit.njit(lambda x: (math.modf(x), 0))(np.float32(-2.25))
    assert (frac, whole) == (np.float32(-0.25), np.float32(-2.0))


# ---- cmath's inverse functions and cmath.log(z, base), math.exp2, math.nextafter ----

INVERSE_POINTS = [complex(x, y) for x in (-3.0, -1.0, -0.5, -0.0, 0.0, 0.25, 1.0, 2.5, 1e300)
                  for y in (-2.0, -0.0, 0.0, 0.5, 1.0, 1e-310, 1e200)]


@pytest.mark.parametrize("name", ["acos", "acosh", "asin", "asinh", "atan", "atanh"])
def test_cmath_inverse_functions_match_cpython(name):
    fn = getattr(cmath, name)
    f = pyjit.njit(lambda z: fn(z))
    for z in INVERSE_POINTS:
        try:
            want = fn(z)
        except ValueError:       # CPython's domain error (atanh(1)): pyjit gives inf
            continue
        got = f(z)
        for g, w in ((got.real, want.real), (got.imag, want.imag)):
            assert g == pytest.approx(w, rel=1e-13, abs=1e-300), (name, z, got, want)
            assert math.copysign(1, g) == math.copysign(1, w) or w == 0 and abs(g) < 1e-300, \
                (name, z, got, want)
    assert f(0.5) == fn(0.5) and f(2) == fn(2)   # floats and ints are made complex


def test_cmath_log_with_a_base_and_more_math():
    f = pyjit.njit(lambda z, b: (cmath.log(z, b), cmath.log(z)))
    for z, b in ((1 + 2j, 3.0), (0.5, 2), (-4.0, 1j)):
        got, want = f(z, b), (cmath.log(z, b), cmath.log(z))
        assert abs(got[0] - want[0]) < 1e-14 and got[1] == want[1]
    g = pyjit.njit(lambda x, y: (math.exp2(x), math.nextafter(x, y), math.nextafter(y, x)))
    for x, y in ((3.0, 4.0), (-0.5, -1.0), (10, 0)):
        assert g(x, y) == (math.exp2(x), math.nextafter(x, y), math.nextafter(y, x))


def float_to_ints(x):
    return int(x), math.floor(x), math.ceil(x), math.trunc(x), round(x)


def test_float_to_int_at_the_edges_of_int64():
    # x86 truncates with a sentinel (INT64_MIN for NaN, infinities and values out of range),
    # which is also -2**63's own value: every edge case against CPython, float64 and float32
    f = pyjit.njit(float_to_ints)
    edges = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.5, 1e18, -1e18, 9.2e18, -9.2e18,
             -9.223372036854775808e18, np.nextafter(9.223372036854775808e18, 0),
             np.nextafter(-9.223372036854775808e18, 0)]
    for x in edges:
        assert f(x) == float_to_ints(x), x
        x32 = np.float32(x)
        if -2.0**63 <= float(x32) < 2.0**63:
            assert f(x32) == float_to_ints(float(x32)), x32
        else:               # rounded to float32, 2**63 itself
            with pytest.raises(OverflowError, match="float out of range"):
                f(x32)
    for x in [float("nan"), np.float32("nan")]:
        with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
            f(x)
    for x in [float("inf"), -float("inf"), np.float32("inf")]:
        with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
            f(x)
    for x in [9.223372036854775808e18, -9.3e18, 1e300, np.float32(1e30), np.float32(-1e19)]:
        with pytest.raises(OverflowError, match="float out of range for an int64 result"):
            f(x)
