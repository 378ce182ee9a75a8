"""np.array_equal, convolve, correlate, kron, trapezoid, cov, corrcoef and array.any()/all() in
compiled code (pyjit/lib/numpy_signal.py), against NumPy itself."""
import numpy as np
import pytest

import pyjit

_JIT = {}


def jit(f):
    if f not in _JIT:
        _JIT[f] = pyjit.njit(f)
    return _JIT[f]


def same(f, *args, rtol=1e-12):
    try:
        want = f(*args)
    except Exception as exc:   # noqa: BLE001
        with pytest.raises(type(exc)):
            jit(f)(*args)
        return
    got = jit(f)(*args)
    if isinstance(want, np.ndarray) and want.ndim:
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12, equal_nan=True)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)


def array_equal(a, b): return np.array_equal(a, b)
def array_equal_nan(a, b): return np.array_equal(a, b, equal_nan=True)
def conv_full(a, v): return np.convolve(a, v)
def conv_same(a, v): return np.convolve(a, v, "same")
def conv_valid(a, v): return np.convolve(a, v, mode="valid")
def corr_valid(a, v): return np.correlate(a, v)
def corr_full(a, v): return np.correlate(a, v, "full")
def corr_same(a, v): return np.correlate(a, v, mode="same")
def kron(a, b): return np.kron(a, b)
def trap_dx(y): return np.trapezoid(y)
def trap_dx2(y): return np.trapezoid(y, dx=0.5)
def trap_x(y, x): return np.trapezoid(y, x)
def cov(m): return np.cov(m)
def cov_cols(m): return np.cov(m, rowvar=False)
def cov_bias(m): return np.cov(m, bias=True)
def cov_ddof(m): return np.cov(m, ddof=0)
def cov_xy(x, y): return np.cov(x, y)
def corrcoef(m): return np.corrcoef(m)
def corrcoef_xy(x, y): return np.corrcoef(x, y)
def any_all(a): return a.any(), a.all()


rng = np.random.default_rng(3)


def test_array_equal():
    a = np.array([1.0, np.nan, 3.0])
    for x, y in [(a, a.copy()), (a, a[::-1]), (np.arange(3), np.arange(3.0)), (np.ones((2, 2)), np.ones(4)),
                 (np.arange(4).reshape(2, 2), np.arange(4).reshape(2, 2).T)]:
        same(array_equal, x, y)
        same(array_equal_nan, x, y)


@pytest.mark.parametrize("n,m", [(7, 3), (3, 7), (5, 5), (1, 4), (6, 1)])
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128])
def test_convolve_and_correlate_every_mode(n, m, dtype):
    a = (rng.normal(size=n) * 5).astype(dtype) + (1j * rng.normal(size=n) if dtype == np.complex128 else 0)
    v = (rng.normal(size=m) * 5).astype(dtype)
    for f in (conv_full, conv_same, conv_valid, corr_valid, corr_full, corr_same):
        same(f, a, v)
        same(f, a[::-1], v)
    same(conv_full, a, np.array([], dtype))   # ValueError


def test_kron_trapezoid():
    for a, b in [(np.arange(3), np.arange(1.0, 3.0)), (np.arange(4.0).reshape(2, 2), np.eye(3))]:
        same(kron, a, b)
    y, x = np.sin(np.linspace(0, 3, 31)), np.linspace(0, 3, 31) ** 2
    same(trap_dx, y)
    same(trap_dx2, y)
    same(trap_x, y, x)
    same(trap_x, y, x[:5])   # ValueError


def test_cov_and_corrcoef():
    m = rng.normal(size=(3, 10))
    for f in (cov, cov_cols, cov_bias, cov_ddof, corrcoef):
        same(f, m)
        same(f, m[:, ::2])
    same(cov, m[0])
    same(corrcoef, m[0])
    same(cov_xy, m[0], m[1])
    same(cov_xy, m[:2], m[2])
    same(corrcoef_xy, m[0], m[2])
    same(cov, np.arange(12).reshape(3, 4))


def test_any_all_methods():
    for a in (np.zeros(3), np.array([0.0, 2.0]), np.ones((2, 2), bool), np.array([], float)):
        assert jit(any_all)(a) == any_all(a)
