"""NumPy's ufuncs by name in compiled code (pyjit/lib/numpy_ufuncs.py), against NumPy itself:
every ufunc over its dtypes, broadcast shapes, layouts, special values (0, -0.0, nan, inf,
negative numbers), out=, and the result dtype NumPy picks."""
import itertools
import warnings

import numpy as np
import pytest

import pyjit
from pyjit.lib.numpy_ufuncs import _UFUNCS

_JIT = {}


def compiled(name, nin, with_out=False):
    key = (name, nin, with_out)
    if key not in _JIT:
        ns = {"np": np}
        args = ", ".join(f"x{i}" for i in range(nin))
        call = f"np.{name}({args}, out=out)" if with_out else f"np.{name}({args})"
        params = args + (", out" if with_out else "")
        exec(f"def f({params}):\n    return {call}\n", ns)
        _JIT[key] = pyjit.njit(ns["f"])
    return _JIT[key]


def values(dtype, shape):
    """Values with the hard cases of dtype, shape given."""
    n = int(np.prod(shape))
    kind = np.dtype(dtype).kind
    if kind == "b":
        base = np.array([True, False, True, True, False])
    elif kind == "u":
        base = np.array([0, 1, 2, 7, 200, 3, 5])
    elif kind == "i":
        base = np.array([0, -1, 2, -7, 100, 3, -5, 1])
    elif kind == "f":
        base = np.array([0.0, -0.0, 1.5, -2.5, np.nan, np.inf, -np.inf, 0.5, 3.0, -7.25, 1e-300])
    else:
        base = np.array([0j, 1 + 2j, -1.5 - 0.5j, 2.5j, 3 + 0j, np.nan + 1j])
    return np.resize(base, n).astype(dtype).reshape(shape)


TRANSCENDENTAL = {"expm1", "log1p", "exp2", "cbrt", "logaddexp", "logaddexp2", "arcsinh",
                  "arccosh", "arctanh", "deg2rad", "radians", "rad2deg", "degrees", "float_power"}
DTYPES = [np.bool_, np.int8, np.int64, np.uint8, np.float32, np.float64, np.complex128]


def supported(name, args):
    """Whether pyjit has a kernel for the kind of NumPy's loop (complex division, the inverse
    hyperbolic functions of complex numbers, ... are not written yet: refused when compiling)."""
    kernels = _UFUNCS[name][1]
    loop = getattr(np, name).resolve_dtypes(tuple(np.asarray(a).dtype for a in args) + (None,))
    kind = "i" if loop[0].kind == "u" else loop[0].kind
    return kind in kernels or "*" in kernels


def check(name, args, got_fn):
    ufunc = getattr(np, name)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = ufunc(*args)
        except TypeError:
            with pytest.raises(pyjit.errors.TypingError):
                got_fn(*args)
            return
        if not supported(name, args):
            with pytest.raises(pyjit.errors.TypingError, match="no implementation"):
                got_fn(*args)
            return
        got = got_fn(*args)
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    else:
        assert np.ndim(got) == 0
    if name in TRANSCENDENTAL:
        np.testing.assert_allclose(got, want, rtol=1e-6 if want.dtype == np.float32 else 1e-14,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)
        if np.asarray(want).dtype.kind == "f":   # the sign of zero too (a NaN's sign means nothing)
            number = ~np.isnan(want)
            if name in ("fmax", "fmin"):   # NumPy's SIMD loops pick either of two equal zeros
                number &= want != 0
            np.testing.assert_array_equal(np.signbit(got)[number], np.signbit(want)[number])


@pytest.mark.parametrize("name", sorted(n for n, (k, _) in _UFUNCS.items() if k == 1))
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_ufuncs(name, dtype):
    f = compiled(name, 1)
    for shape in [(7,), (2, 5)]:
        a = values(dtype, shape)
        if name == "reciprocal" and a.dtype.kind in "iu":
            a[a == 0] = 1   # NumPy's integer 1/0 is what the C cast of inf gives: platform-defined
        check(name, (a,), f)
        check(name, (a.T,), f)            # strided
    check(name, (values(dtype, (3,))[1],), f)   # a scalar


@pytest.mark.parametrize("name", sorted(n for n, (k, _) in _UFUNCS.items() if k == 2))
@pytest.mark.parametrize("d1,d2", [(np.int64, np.int64), (np.int8, np.int8), (np.uint8, np.int8),
                                   (np.float64, np.float64), (np.float32, np.float32),
                                   (np.int64, np.float64), (np.bool_, np.bool_),
                                   (np.complex128, np.float64)])
def test_binary_ufuncs_broadcast(name, d1, d2):
    f = compiled(name, 2)
    for s1, s2 in [((6,), (6,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((4, 1, 2), (3, 1))]:
        a = values(d1, s1)
        b = values(d2, s2)[::-1]   # other pairs of values than a's
        check(name, (a, b), f)
        check(name, (np.asfortranarray(a), b), f)
    check(name, (values(d1, (5,)), values(d2, (2,))[1]), f)     # array and scalar
    check(name, (values(d1, (3,))[2], values(d2, (3,))[1]), f)  # two scalars


@pytest.mark.parametrize("name", ["add", "floor_divide", "fmax", "logical_and", "square",
                                  "negative", "rint"])
def test_out_argument(name):
    nin = _UFUNCS[name][0]
    f = compiled(name, nin, with_out=True)
    args = [values(np.float64, (2, 3)), values(np.float64, (3,))][:nin]
    want = getattr(np, name)(*args)
    out = np.empty(want.shape, want.dtype)
    r = f(*args, out)
    assert r is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("name", ["sin", "sqrt", "exp", "absolute", "isnan", "floor", "arctan2",
                                  "hypot", "power", "maximum", "minimum"])
def test_math_ufuncs_with_an_output_array(name):
    # the builtins' np.sin(x) and friends, given out: the loop writes it, as NumPy's does
    nin = 2 if name in ("arctan2", "hypot", "power", "maximum", "minimum") else 1
    f = compiled(name, nin, with_out=True)
    arrays = [np.abs(values(np.float64, (2, 3))), values(np.float64, (3,))]
    scalars = [np.abs(values(np.float64, (3,)))[2], values(np.float64, (3,))[1]]
    for args in (arrays[:nin], scalars[:nin]):
        with np.errstate(all="ignore"):        # the hard cases: sin(inf) is nan, quietly
            want = getattr(np, name)(*args)
        out = np.zeros((2, 3), want.dtype)     # a scalar's result is broadcast into out
        r = f(*args, out)
        assert r is out
        np.testing.assert_array_equal(out, np.broadcast_to(want, out.shape))
    f32 = np.linspace(0.5, 2, 4, dtype=np.float32)
    out = np.zeros(4, np.float32)
    f(*([f32] * nin), out)
    np.testing.assert_allclose(out, getattr(np, name)(*([f32] * nin)), rtol=1e-6)


@pytest.mark.parametrize("name", ["sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan",
                                  "sinh", "cosh", "tanh"])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_math_ufuncs_of_complex_numbers(name, dtype):
    # np.exp(2j * np.pi * k / n) in FFT and signal codes: complex arrays, views and scalars,
    # with and without out
    f = compiled(name, 1)
    g = compiled(name, 1, with_out=True)
    z = (np.array([[0.5 + 1.0j, -2.0 + 0.25j, 3.0 - 1.5j], [-0.75 - 0.5j, 1.0 + 0.0j, 0.1j]])
         .astype(dtype))
    rtol = 1e-5 if dtype == np.complex64 else 1e-13
    for x in (z, z[:, ::2], z.T, z[0, 1]):
        want = getattr(np, name)(x)
        got = f(x)
        if isinstance(want, np.ndarray):   # a scalar comes back as a Python complex
            assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol)
    out = np.zeros(z.shape, dtype)
    assert g(z, out) is out
    np.testing.assert_allclose(out, getattr(np, name)(z), rtol=rtol)


def test_python_numbers_beside_arrays_are_weak():
    a = values(np.float32, (5,))
    add = compiled("add", 2)
    assert add(a, 2.5).dtype == np.float32
    i8 = values(np.int8, (5,))
    assert add(i8, 3).dtype == np.int8
    np.testing.assert_array_equal(add(i8, 3), i8 + 3)


def test_broadcast_errors():
    add = compiled("add", 2)
    with pytest.raises(ValueError, match="could not be broadcast"):
        add(np.ones(3), np.ones(4))
    f = compiled("add", 2, with_out=True)
    with pytest.raises(ValueError, match="output operand"):
        f(np.ones(3), np.ones(3), np.empty(4))


def clip(a, lo, hi):
    return np.clip(a, lo, hi)


def round_(a, d):
    return np.round(a, d)


def around(a):
    return np.around(a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
def test_clip_and_round(dtype):
    jclip, jround, jaround = pyjit.njit(clip), pyjit.njit(round_), pyjit.njit(around)
    a = values(dtype, (3, 4)) * (3 if np.dtype(dtype).kind != "u" else 1)
    for lo, hi in [(0, 5), (-2.5, 2.5), (values(dtype, (4,)), 3)]:
        with np.errstate(all="ignore"):
            want = np.clip(a, lo, hi)
        got = jclip(a, lo, hi)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    halves = (np.arange(-12, 12) * 0.25).astype(dtype) if np.dtype(dtype).kind == "f" else a
    for d in (0, 1, 2, -1):
        want, got = np.round(halves, d), jround(halves, d)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(jaround(halves), np.around(halves))
    for x in (2.5, 3.5, -0.5, 1.2345, 1e300):
        for d in (0, 2, -1):
            assert jround(x, d) == np.round(x, d)


def test_numpy_aliases_are_the_same_ufuncs():
    a, b = values(np.float64, (6,)), values(np.float64, (6,))[::-1]
    mod, true_divide = pyjit.njit(lambda x, y: np.mod(x, y)), pyjit.njit(lambda x, y: np.true_divide(x, y))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(mod(a, b), np.mod(a, b))
        np.testing.assert_array_equal(true_divide(a, b), np.true_divide(a, b))
    i = values(np.int16, (5,))
    np.testing.assert_array_equal(pyjit.njit(lambda x: np.bitwise_not(x))(i), np.bitwise_not(i))
    c = values(np.complex128, (4,))
    np.testing.assert_array_equal(pyjit.njit(lambda x: np.conj(x))(c), np.conj(c))


def test_every_ufunc_of_the_list_is_numpys():
    for name, (nin, _) in _UFUNCS.items():
        assert getattr(np, name).nin == nin, name
    assert set(itertools.chain(_UFUNCS)) <= set(dir(np))
