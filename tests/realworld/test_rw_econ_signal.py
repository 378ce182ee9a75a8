"""Real-world patterns: computational economics (QuantEcon-style) and audio signal processing
(librosa- and resampy-style helpers), restated in our own words with the import switched.

A Markov chain's sample path by `np.searchsorted(cdf, u, side='right')` over row cumsums, a dolo
style simulation under a bare `@jit` with `transitions.cumsum(axis=1)` and
`np.ascontiguousarray`, the GTH stationary distribution (in-place `/=` and `+=` of slices, `np.dot`
of column and row slices), Tauchen's discretisation through `math.erfc` with a default argument,
value function iteration whose Bellman step is a `prange` loop returning `(v, policy)`, a
local-level Kalman filter's log-likelihood, Lorenz curves and a `prange` Gini coefficient, linear
interpolation on a grid; librosa's peak picking into a list returned as `np.array`, its Viterbi
decoder (`np.argmax` of rows of `value[t - 1] + log_trans.T`, uint16 pointers, `value[-1:, s]`),
a local-maximum `@stencil` called from a two-signature `@guvectorize`, a linear resampler
(`nogil=True`, float32 output), YIN's cumulative mean normalised difference, a biquad whose
coefficients come as a tuple (chained `x2, x1 = x1, xn`), spectral flux, zero-crossing rates by
`np.signbit` of frame slices, and mu-law companding as a two-signature `@vectorize` used on
arrays with `.astype(np.int8)`. Each is compared with CPython running the same source."""
import math

import numpy as np
import pytest

import pyjit as nb
import pyjit as numba
from pyjit import guvectorize, jit, njit, prange, stencil, vectorize
from util import check

# QuantEcon-style sample path of a finite Markov chain
@njit(cache=True)
def mc_sample_path(P, init, ts_length, random_values):
    n = P.shape[0]
    cdfs = np.empty((n, n))
    for i in range(n):
        cdfs[i] = np.cumsum(P[i])
    out = np.empty(ts_length, dtype=np.int64)
    out[0] = init
    for t in range(ts_length - 1):
        out[t + 1] = np.searchsorted(cdfs[out[t]], random_values[t], side='right')
    return out

# dolo-style simulation with cumsum(axis=1) and ascontiguousarray, @jit no options
@jit
def simulate_chain(transitions, i0, n_exp, horizon, rnd):
    simul = np.zeros((horizon, n_exp), dtype=np.int64)
    simul[0, :] = i0
    cumuls = transitions.cumsum(axis=1)
    cumuls = np.ascontiguousarray(cumuls)
    for t in range(horizon - 1):
        for i in range(n_exp):
            s = simul[t, i]
            p = cumuls[s, :]
            j = 0
            while j < p.shape[0] - 1 and rnd[t, i] >= p[j]:
                j += 1
            simul[t + 1, i] = j
    return simul

# GTH stationary distribution (in-place slices, np.dot of slices)
@njit(cache=True)
def gth_solve(A):
    A = np.array(A, dtype=np.float64)
    n = A.shape[0]
    x = np.zeros(n)
    for k in range(n - 1):
        scale = np.sum(A[k, k + 1:n])
        if scale <= 0:
            n = k + 1
            break
        A[k + 1:n, k] /= scale
        A[k + 1:n, k + 1:n] += np.dot(A[k + 1:n, k:k + 1], A[k:k + 1, k + 1:n])
    x[n - 1] = 1
    for k in range(n - 2, -1, -1):
        x[k] = np.dot(x[k + 1:n], A[k + 1:n, k])
    x /= np.sum(x)
    return x

# Tauchen discretisation with erfc-based normal cdf
@njit
def std_norm_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))

@njit
def tauchen(rho, sigma, n, m=3):
    std_y = np.sqrt(sigma ** 2 / (1 - rho ** 2))
    x_max = m * std_y
    x = np.linspace(-x_max, x_max, n)
    step = x[1] - x[0]
    half = step / 2
    P = np.empty((n, n))
    for i in range(n):
        P[i, 0] = std_norm_cdf((x[0] - rho * x[i] + half) / sigma)
        P[i, n - 1] = 1 - std_norm_cdf((x[n - 1] - rho * x[i] - half) / sigma)
        for j in range(1, n - 1):
            z = x[j] - rho * x[i]
            P[i, j] = std_norm_cdf((z + half) / sigma) - std_norm_cdf((z - half) / sigma)
    return x, P

# Value function iteration for a cake-eating / growth model with argmax policy
@njit(parallel=True)
def bellman(v, grid, beta, alpha):
    n = grid.shape[0]
    v_new = np.empty_like(v)
    sigma = np.empty(n, dtype=np.int64)
    for i in prange(n):
        k = grid[i]
        y = k ** alpha
        best = -np.inf
        arg = 0
        for j in range(n):
            c = y - grid[j]
            if c > 0:
                val = np.log(c) + beta * v[j]
                if val > best:
                    best = val
                    arg = j
        v_new[i] = best
        sigma[i] = arg
    return v_new, sigma

@njit
def solve_vfi(grid, beta, alpha, tol=1e-6, max_iter=500):
    v = np.zeros_like(grid)
    error = tol + 1
    it = 0
    sigma = np.zeros(grid.shape[0], dtype=np.int64)
    while error > tol and it < max_iter:
        v_new, sigma = bellman(v, grid, beta, alpha)
        error = np.max(np.abs(v_new - v))
        v = v_new
        it += 1
    return v, sigma, it

# Kalman filter for a local-level model, log-likelihood
@njit
def kalman_loglike(y, sigma_eps2, sigma_eta2, a0, p0):
    n = y.shape[0]
    a = a0
    p = p0
    ll = 0.0
    filtered = np.empty(n)
    for t in range(n):
        f = p + sigma_eps2
        v = y[t] - a
        k = p / f
        ll += -0.5 * (np.log(2 * np.pi) + np.log(f) + v * v / f)
        a = a + k * v
        p = p * (1 - k) + sigma_eta2
        filtered[t] = a
    return ll, filtered

# Lorenz curve and Gini (QuantEcon inequality)
@njit
def lorenz_curve(y):
    n = len(y)
    y = np.sort(y)
    s = np.zeros(n + 1)
    s[1:] = np.cumsum(y)
    cum_people = np.zeros(n + 1)
    cum_income = np.zeros(n + 1)
    for i in range(1, n + 1):
        cum_people[i] = i / n
        cum_income[i] = s[i] / s[n]
    return cum_people, cum_income

@njit(parallel=True)
def gini_coefficient(y):
    n = len(y)
    i_sum = np.zeros(n)
    for i in prange(n):
        for j in range(n):
            i_sum[i] += abs(y[i] - y[j])
    return np.sum(i_sum) / (2 * n * np.sum(y))

# Linear interpolation on a grid (interpolation package style)
@njit
def interp_linear(grid, vals, x):
    out = np.empty_like(x)
    n = grid.size
    for k in range(x.size):
        i = max(min(np.searchsorted(grid, x[k]) - 1, n - 2), 0)
        lam = (x[k] - grid[i]) / (grid[i + 1] - grid[i])
        out[k] = (1 - lam) * vals[i] + lam * vals[i + 1]
    return out

rng = np.random.default_rng(0)
P = np.array([[0.9, 0.1, 0.0], [0.4, 0.4, 0.2], [0.1, 0.1, 0.8]])
grid = np.linspace(1e-3, 2.0, 80)
CASES_C_ECON = [
    ("mc_sample_path", mc_sample_path, (P, 0, 200, rng.random(200))),
    ("simulate_chain", simulate_chain, (P, 1, 5, 30, rng.random((30, 5)))),
    ("gth_solve", gth_solve, (P,)),
    ("tauchen", tauchen, (0.9, 0.1, 7)),
    ("solve_vfi", solve_vfi, (grid, 0.95, 0.3)),
    ("kalman_loglike", kalman_loglike, (np.cumsum(rng.normal(size=100)), 1.0, 0.5, 0.0, 10.0)),
    ("lorenz_curve", lorenz_curve, (rng.lognormal(size=50),)),
    ("gini", gini_coefficient, (rng.lognormal(size=60),)),
    ("interp_linear", interp_linear, (grid, np.sin(grid), rng.random(30) * 2)),
]

# librosa-style peak picking
@jit(nopython=True, cache=True)
def peak_pick(x, pre_max, post_max, pre_avg, post_avg, delta, wait):
    peaks = []
    n = len(x)
    last = -wait - 1
    for i in range(n):
        lo = max(0, i - pre_max)
        hi = min(n, i + post_max)
        if x[i] != np.max(x[lo:hi]):
            continue
        lo = max(0, i - pre_avg)
        hi = min(n, i + post_avg)
        if x[i] < np.mean(x[lo:hi]) + delta:
            continue
        if i - last > wait:
            peaks.append(i)
            last = i
    return np.array(peaks)

# librosa-style Viterbi with argmax over rows of a transposed sum
@jit(nopython=True, cache=True)
def viterbi(log_prob, log_trans, log_p_init):
    n_steps, n_states = log_prob.shape
    state = np.zeros(n_steps, dtype=np.uint16)
    value = np.zeros((n_steps, n_states), dtype=log_prob.dtype)
    ptr = np.zeros((n_steps, n_states), dtype=np.uint16)
    value[0] = log_prob[0] + log_p_init
    for t in range(1, n_steps):
        trans_out = value[t - 1] + log_trans.T
        for j in range(n_states):
            ptr[t, j] = np.argmax(trans_out[j])
            value[t, j] = log_prob[t, j] + trans_out[j, ptr[t, j]]
    state[-1] = np.argmax(value[-1])
    for t in range(n_steps - 2, -1, -1):
        state[t] = ptr[t + 1, state[t + 1]]
    logp = value[-1:, state[-1]]
    return state, logp

# local maximum via stencil then guvectorize (librosa localmax)
@stencil
def _localmax_sten(x):
    return (x[0] > x[-1]) & (x[0] >= x[1])

@guvectorize(["void(float32[:], bool_[:])", "void(float64[:], bool_[:])"], "(n)->(n)", cache=True, nopython=True)
def _localmax(x, y):
    y[:] = _localmax_sten(x)

@njit
def localmax_count(x):
    out = np.empty(x.shape[0], dtype=np.bool_)
    _localmax(x, out)
    return out

# linear resampler (resampy-like interpolation with a window table)
@jit(nopython=True, nogil=True)
def resample_linear(x, sr_orig, sr_new):
    ratio = sr_new / sr_orig
    n_out = int(math.ceil(x.shape[0] * ratio))
    y = np.zeros(n_out, dtype=x.dtype)
    for t in range(n_out):
        pos = t / ratio
        i = int(pos)
        frac = pos - i
        if i + 1 < x.shape[0]:
            y[t] = (1.0 - frac) * x[i] + frac * x[i + 1]
        elif i < x.shape[0]:
            y[t] = x[i]
    return y

# autocorrelation-based pitch (YIN difference function + cumulative mean normalised)
@njit(cache=True)
def yin_cmnd(frame, max_lag):
    d = np.zeros(max_lag)
    for tau in range(1, max_lag):
        s = 0.0
        for j in range(frame.shape[0] - max_lag):
            diff = frame[j] - frame[j + tau]
            s += diff * diff
        d[tau] = s
    cmnd = np.ones(max_lag)
    running = 0.0
    for tau in range(1, max_lag):
        running += d[tau]
        cmnd[tau] = d[tau] * tau / running if running > 0 else 1.0
    return cmnd

# biquad filter with coefficients as a tuple, state in float64
@njit
def biquad(x, coeffs):
    b0, b1, b2, a1, a2 = coeffs
    y = np.empty_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(x.shape[0]):
        xn = x[n]
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        y[n] = yn
    return y

# spectral flux onset envelope over a magnitude spectrogram
@njit
def spectral_flux(S, lag=1):
    n_freq, n_frames = S.shape
    out = np.zeros(n_frames)
    for t in range(lag, n_frames):
        acc = 0.0
        for f in range(n_freq):
            d = S[f, t] - S[f, t - lag]
            if d > 0:
                acc += d
        out[t] = acc
    return out

# zero crossing rate with framing and np.signbit
@njit
def zero_crossings(y, frame_length, hop):
    n_frames = 1 + (len(y) - frame_length) // hop
    out = np.empty(n_frames)
    for k in range(n_frames):
        frame = y[k * hop:k * hop + frame_length]
        sb = np.signbit(frame)
        out[k] = np.sum(sb[1:] != sb[:-1]) / frame_length
    return out

# mu-law companding as a vectorize ufunc
@vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def mu_compress(x, mu):
    return np.sign(x) * np.log1p(mu * np.abs(x)) / np.log1p(mu)

@njit
def mu_roundtrip(x, mu):
    c = mu_compress(x, mu)
    q = np.round(c * 127).astype(np.int8)
    return q

rng = np.random.default_rng(1)
sig = np.sin(np.linspace(0, 40, 400)) + 0.3 * rng.normal(size=400)
lp = np.log(rng.dirichlet(np.ones(4), size=20))
lt = np.log(np.full((4, 4), 0.1) + np.eye(4) * 0.6)
CASES_C_SIGNAL = [
    ("peak_pick", peak_pick, (np.abs(sig), 3, 3, 3, 5, 0.1, 10)),
    ("viterbi", viterbi, (lp, lt, np.log(np.full(4, 0.25)))),
    ("localmax", localmax_count, (sig,)),
    ("resample_linear", resample_linear, (sig.astype(np.float32), 22050, 16000)),
    ("yin_cmnd", yin_cmnd, (sig[:200], 50)),
    ("biquad", biquad, (sig, (0.2, 0.4, 0.2, -0.5, 0.3))),
    ("spectral_flux", spectral_flux, (np.abs(rng.normal(size=(16, 40))),)),
    ("zero_crossings", zero_crossings, (sig, 64, 32)),
    ("mu_roundtrip", mu_roundtrip, (np.clip(sig, -1, 1), 255.0)),
]

CASES = CASES_C_ECON + CASES_C_SIGNAL


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    # the resampler mixes Python floats into float32 samples: CPython (NEP 50) keeps float32
    # there, compiled code (as Numba) computes in float64 and rounds once when storing
    check(f.py_func, *args, jit=f, rtol=1e-4 if name == "resample_linear" else None)
