"""Real-world patterns: how numerical libraries built on Numba write their compiled code, restated
in our own words with `import numba` switched to pyjit.

A Nelder-Mead maximiser in QuantEcon's manner: the simplex kept sorted by shifting an index
array in place (`sort_ind[i + 1:] = sort_ind[i:-1]`, which reads its source before writing as
NumPy does), vertices shrunk through `for i in sort_ind[1:]`, the objective a compiled function
passed in with `*args`, results in a namedtuple; a family of distance functions sharing one
`locals=` dict that names variables some of them lack, under two explicit signatures of
contiguous and read-only float32 arrays (pynndescent); distributions written once for float32
and float64 by `T = type(p); one = T(1)`, helpers declared `overload(..., inline='always')`, a
sampler declared `float64[:](float64, uint64, optional(uint64))` called with Python ints, and
scipy.special's C functions reached through a `types.WrapperAddressProtocol` subclass made on
the fly around `get_cython_function_address` (numba-stats); a time series' window statistics by
in-place shifting (`buf[:-1] = buf[1:]`) and a rolling update of a sorted window
(`win[j + 1:k + 1] = win[j:k]`). Each is compared with CPython running the same source.
"""
import math
from collections import namedtuple

import numpy as np
import pytest

import pyjit as numba
from pyjit import njit, types
from pyjit.extending import get_cython_function_address, overload
from util import check

# ---- QuantEcon-style Nelder-Mead ------------------------------------------------------------

Result = namedtuple("Result", "x fun nit")


@njit
def _neg(fun, x, args=()):
    return -fun(x, *args)


@njit
def nelder_mead(fun, x0, args=(), rho=1.0, chi=2.0, gamma=0.5, sigma=0.5, tol=1e-10,
                max_iter=500):
    n = x0.size
    v = np.empty((n + 1, n))
    v[:] = x0
    for i in range(n):
        v[i + 1, i] = v[i + 1, i] * 1.05 if v[i + 1, i] != 0 else 0.00025
    f = np.empty(n + 1)
    for i in range(n + 1):
        f[i] = _neg(fun, v[i], args)
    sort_ind = f.argsort()
    x_bar = v[sort_ind[:n]].sum(axis=0) / n
    nit = 0
    while nit < max_iter:
        best, worst = sort_ind[0], sort_ind[n]
        if f[worst] - f[best] < tol:
            break
        x_r = x_bar + rho * (x_bar - v[worst])
        f_r = _neg(fun, x_r, args)
        shrink = False
        if f[best] <= f_r < f[sort_ind[n - 1]]:
            v[worst] = x_r
        elif f_r < f[best]:
            x_e = x_bar + chi * (x_r - x_bar)
            f_e = _neg(fun, x_e, args)
            v[worst] = x_e if f_e < f_r else x_r
        else:
            t = gamma * (x_r - x_bar)
            x_c = x_bar + t if f_r < f[worst] else x_bar - t
            f_c = _neg(fun, x_c, args)
            if f_c < min(f_r, f[worst]):
                v[worst] = x_c
            else:
                shrink = True
                for i in sort_ind[1:]:
                    v[i] = v[best] + sigma * (v[i] - v[best])
                    f[i] = _neg(fun, v[i], args)
                sort_ind[1:] = f[sort_ind[1:]].argsort() + 1
                x_bar = v[sort_ind[:n]].sum(axis=0) / n
        if not shrink:
            f[worst] = _neg(fun, v[worst], args)
            for i, j in enumerate(sort_ind):
                if f[worst] < f[j]:
                    sort_ind[i + 1:] = sort_ind[i:-1]   # overlapping: shifts right by one
                    sort_ind[i] = worst
                    break
            x_bar += (v[worst] - v[sort_ind[n]]) / n
        nit += 1
    return Result(v[sort_ind[0]], -f[sort_ind[0]], nit)


@njit
def rosenbrock(x, a, b):
    return -((a - x[0]) ** 2 + b * (x[1] - x[0] ** 2) ** 2)


@njit
def bowl(x):
    return -np.sum((x - np.arange(x.size)) ** 2)


def test_nelder_mead_keeps_its_simplex_sorted():
    for fun, x0, args in ((rosenbrock, np.array([-1.2, 1.0]), (1.0, 100.0)),
                          (bowl, np.array([3.0, -1.0, 2.0, 0.5]), ())):
        got = nelder_mead(fun, x0, args)
        expect = nelder_mead.py_func(fun, x0, args)
        assert got.nit == expect.nit
        np.testing.assert_allclose(got.x, expect.x, rtol=1e-12)
        assert got.fun == pytest.approx(expect.fun, rel=1e-12, abs=1e-300)
    assert np.allclose(nelder_mead(rosenbrock, np.array([-1.2, 1.0]), (1.0, 100.0)).x, 1.0,
                       atol=1e-4)


# ---- pynndescent-style distances: one locals dict, two signatures ---------------------------

_LOCALS = {"result": numba.types.float32, "num_non_zero": numba.types.float32,
           "num_equal": numba.types.float32, "dim": numba.types.intp, "i": numba.types.uint16}
_SIGS = ["f4(f4[::1],f4[::1])",
         numba.types.float32(numba.types.Array(numba.types.float32, 1, "C", readonly=True),
                             numba.types.Array(numba.types.float32, 1, "C", readonly=True))]


@numba.njit(_SIGS, fastmath=True, locals=_LOCALS)
def squared_euclidean(x, y):
    result = 0.0
    dim = x.shape[0]
    for i in range(dim):
        diff = x[i] - y[i]
        result += diff * diff
    return result


@numba.njit(_SIGS, fastmath=True, locals=_LOCALS)
def jaccard(x, y):
    num_non_zero = 0.0
    num_equal = 0.0
    for i in range(x.shape[0]):
        x_true = x[i] != 0
        y_true = y[i] != 0
        num_non_zero += x_true or y_true
        num_equal += x_true and y_true
    if num_non_zero == 0.0:
        return 0.0
    return float(num_non_zero - num_equal) / num_non_zero


def test_distances_share_a_locals_dict():
    rng = np.random.default_rng(4)
    x = rng.random(16).astype(np.float32)
    y = rng.random(16).astype(np.float32)
    xb = (x > 0.5).astype(np.float32)
    yb = (y > 0.4).astype(np.float32)
    ro = y.copy()
    ro.flags.writeable = False
    d = x - y
    assert squared_euclidean(x, y) == pytest.approx(float(np.dot(d, d)), rel=1e-5)
    assert squared_euclidean(x, ro) == squared_euclidean(x, y)
    both, either = np.sum((xb != 0) & (yb != 0)), np.sum((xb != 0) | (yb != 0))
    assert jaccard(xb, yb) == pytest.approx((either - both) / either, rel=1e-6)
    with pytest.raises(TypeError, match="no matching definition"):
        jaccard(x.astype(np.float64), y.astype(np.float64))


# ---- numba-stats-style distributions ---------------------------------------------------------

def _special(name, signature):
    addr = get_cython_function_address("scipy.special.cython_special", name)
    cls = type(name, (types.WrapperAddressProtocol,),
               {"__wrapper_address__": lambda self: addr, "signature": lambda self: signature})
    return cls()


def _erf_inplace(x):
    for i in range(len(x)):
        x[i] = math.erf(x[i])


@overload(_erf_inplace, inline="always")
def _erf_inplace_ol(x):
    def impl(x):
        for i in range(len(x)):
            x[i] = math.erf(x[i])
    return impl


_T = (numba.float32, numba.float64)


@njit([T[:](numba.types.Array(T, 1, "A", readonly=True), T, T) for T in _T],
      error_model="numpy")
def norm_cdf(x, loc, scale):
    T = type(scale)
    inv = T(1) / scale
    z = (x - loc) * inv * T(1 / np.sqrt(2))
    _erf_inplace(z)
    return T(0.5) * (T(1) + z)


@njit(numba.float64[:](numba.float64, numba.float64, numba.uint64, numba.optional(numba.uint64)))
def expon_rvs(loc, scale, size, random_state):
    if random_state is not None:
        np.random.seed(random_state)
    return loc + scale * np.random.exponential(1.0, size)


def test_distributions_for_both_float_types():
    for dt in (np.float32, np.float64):
        x = np.linspace(-3, 3, 13).astype(dt)
        got = norm_cdf(x, dt(0.5), dt(2.0))
        assert got.dtype == dt
        z = (x.astype(np.float64) - 0.5) / 2.0 / np.sqrt(2)
        expect = 0.5 * (1 + np.array([math.erf(v) for v in z]))
        np.testing.assert_allclose(got, expect, rtol=1e-6 if dt == np.float32 else 1e-14)
    a = expon_rvs(1, 2, 5, 42)
    b = expon_rvs(1.0, 2.0, 5, 42)
    assert a.shape == (5,) and np.array_equal(a, b) and np.all(a >= 1.0)
    assert expon_rvs(0, 1, 3, None).shape == (3,)


def test_scipy_special_through_wrapper_address_protocol():
    sc = pytest.importorskip("scipy.special")
    f8 = numba.float64
    ndtri = _special("ndtri", f8(f8))
    xlogy = _special("__pyx_fuse_1xlogy", f8(f8, f8))

    @njit
    def norm_ppf(p, loc, scale):
        out = np.empty_like(p)
        for i in range(p.size):
            out[i] = loc + scale * ndtri(p[i])
        return out

    @njit
    def entropy(p):
        s = 0.0
        for v in p:
            s -= xlogy(v, v)
        return s

    p = np.array([0.01, 0.25, 0.5, 0.9])
    np.testing.assert_allclose(norm_ppf(p, 1.0, 2.0), 1.0 + 2.0 * sc.ndtri(p), rtol=1e-15)
    assert entropy(p) == pytest.approx(-np.sum(sc.xlogy(p, p)), rel=1e-14)


# ---- sliding windows updated in place ---------------------------------------------------------

@njit
def moving_stats(x, w):
    buf = x[:w].copy()
    means = np.empty(x.size - w + 1)
    means[0] = buf.mean()
    for t in range(w, x.size):
        buf[:-1] = buf[1:]      # shift left, overlapping
        buf[-1] = x[t]
        means[t - w + 1] = buf.mean()
    return means


@njit
def rolling_median(x, w):
    win = np.sort(x[:w])
    out = np.empty(x.size - w + 1)
    out[0] = win[w // 2] if w % 2 else 0.5 * (win[w // 2 - 1] + win[w // 2])
    for t in range(w, x.size):
        old, new = x[t - w], x[t]
        k = np.searchsorted(win, old)
        win[k:-1] = win[k + 1:]            # drop the oldest value
        j = np.searchsorted(win[:-1], new)
        win[j + 1:] = win[j:-1]            # make room for the new one
        win[j] = new
        out[t - w + 1] = win[w // 2] if w % 2 else 0.5 * (win[w // 2 - 1] + win[w // 2])
    return out


@pytest.mark.parametrize("w", [4, 5])
def test_windows_shifted_in_place(w):
    x = np.random.default_rng(9).normal(size=60)
    check(moving_stats.py_func, x, w, jit=moving_stats)
    check(rolling_median.py_func, x, w, jit=rolling_median)
    expect = np.array([np.median(x[i:i + w]) for i in range(x.size - w + 1)])
    np.testing.assert_allclose(rolling_median(x, w), expect)
