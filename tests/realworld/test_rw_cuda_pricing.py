"""numba-cuda option pricers from public finance notebooks, the import switched to pyjit: an Asian
barrier option over paths driven by normals drawn beforehand into another library's GPU array
(reached through `__cuda_array_interface__`, the output written into one as well), a grid-stride
loop with early exit at the barrier and float32 parameters; an arithmetic Asian call from
per-thread `xoroshiro128p_normal_float32` draws with the payoffs and their squares summed by
`@cuda.reduce`; Black-Scholes through a polynomial normal CDF device function, as a kernel and
as a GPU ufunc; American puts on a binomial lattice, one block per option rolling the lattice
back in shared memory.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy or plain Python.
"""
import math
import os
import sys

import numpy as np

from pyjit import float64

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


class _GpuArray:
    """Another library's GPU array (CuPy's shape): device memory behind the interface only."""

    def __init__(self, cuda, host):
        self._mem = cuda.to_device(host)
        self.shape = host.shape
        self.dtype = host.dtype

    @property
    def __cuda_array_interface__(self):
        return self._mem.__cuda_array_interface__

    def get(self):
        return self._mem.copy_to_host()


# ---- Asian barrier option: normals laid out step-major (path i, step n at i + n * paths), the
# running average checked against the barrier each step (an NVIDIA blog's numba-cuda pricer) ----

def test_asian_barrier_from_external_normals(cuda):
    @cuda.jit
    def barrier_option(d_s, T, K, B, S0, sigma, mu, r, d_normals, N_STEPS, N_PATHS):
        ii = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        stride = cuda.gridDim.x * cuda.blockDim.x
        tmp1 = mu * T / N_STEPS
        tmp2 = math.exp(-r * T)
        tmp3 = math.sqrt(T / N_STEPS)
        for i in range(ii, N_PATHS, stride):
            s_curr = S0
            running_average = 0.0
            for n in range(N_STEPS):
                s_curr += tmp1 * s_curr + sigma * s_curr * tmp3 * d_normals[i + n * N_PATHS]
                running_average += (s_curr - running_average) / (n + 1.0)
                if running_average <= B:
                    break
            payoff = running_average - K if running_average > K else 0
            d_s[i] = tmp2 * payoff

    paths, steps = 300, 40
    T, K, B, S0, sigma, mu, r = (np.float32(v) for v in (1.0, 110.0, 100.0, 120.0, 0.35, 0.1,
                                                          0.05))
    rng = np.random.default_rng(21)
    normals = rng.standard_normal(paths * steps).astype(np.float32)
    d_normals = _GpuArray(cuda, normals)
    out = _GpuArray(cuda, np.zeros(paths, np.float32))
    barrier_option[4, 32](out, T, K, B, S0, sigma, mu, r, d_normals, steps, paths)
    cuda.synchronize()
    got = out.get()

    want = np.zeros(paths)
    f = float
    for i in range(paths):
        s = f(S0)
        avg = 0.0
        for n in range(steps):
            s += f(mu) * f(T) / steps * s + f(sigma) * s * math.sqrt(f(T) / steps) * \
                f(normals[i + n * paths])
            avg += (s - avg) / (n + 1.0)
            if avg <= f(B):
                break
        want[i] = math.exp(-f(r) * f(T)) * (avg - f(K) if avg > f(K) else 0)
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-3)
    assert (got > 0).sum() > 10


# ---- arithmetic Asian call from xoroshiro128+ normals, one path a thread, the payoffs and their
# squares reduced by @cuda.reduce into a price and a standard error (a pricing library's
# numba-cuda module); the normals each thread draws are replayed from a copy of the states ----

def test_asian_xoroshiro_and_reduce(cuda):
    from pyjit.cuda.random import xoroshiro128p_normal_float32

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    @cuda.jit
    def asian_paths(rng_states, S, X, X_sq, n_paths, n_steps, dt, r, sigma, K):
        i = cuda.grid(1)
        if i >= n_paths:
            return
        s = S
        acc = 0.0
        for _ in range(n_steps):
            z = xoroshiro128p_normal_float32(rng_states, i)
            s = s * math.exp((r - 0.5 * sigma * sigma) * dt + sigma * math.sqrt(dt) * z)
            acc += s
        payoff = max(acc / n_steps - K, 0.0) * math.exp(-r * dt * n_steps)
        X[i] = payoff
        X_sq[i] = payoff * payoff

    @cuda.jit
    def replay(rng_states, Z, n_paths):
        i = cuda.grid(1)
        if i < n_paths:
            for k in range(Z.shape[1]):
                Z[i, k] = xoroshiro128p_normal_float32(rng_states, i)

    n, steps = 200, 12
    states = cuda.random.create_xoroshiro128p_states(n, seed=7)   # the backend's own
    saved = states.copy_to_host()
    X = cuda.device_array(n)
    X_sq = cuda.device_array(n)
    asian_paths[_blocks(n, 64), 64](states, 100.0, X, X_sq, n, steps, 1 / 12, 0.03, 0.25, 95.0)
    total = sum_reduce(X)
    total_sq = sum_reduce(X_sq)
    Z = cuda.device_array((n, steps), np.float32)
    replay[_blocks(n, 64), 64](cuda.to_device(saved), Z, n)
    z = Z.copy_to_host().astype(np.float64)
    dt, r, sigma = 1 / 12, 0.03, 0.25
    s = 100.0 * np.cumprod(np.exp((r - 0.5 * sigma ** 2) * dt + sigma * math.sqrt(dt) * z), 1)
    pay = np.maximum(s.mean(1) - 95.0, 0) * math.exp(-r * dt * steps)
    np.testing.assert_allclose(X.copy_to_host(), pay, rtol=1e-10)
    assert math.isclose(total, pay.sum(), rel_tol=1e-10)
    assert math.isclose(total_sq, (pay ** 2).sum(), rel_tol=1e-10)
    # the states advanced: a second run draws other numbers
    asian_paths[_blocks(n, 64), 64](states, 100.0, X, X_sq, n, steps, dt, r, sigma, 95.0)
    assert not np.allclose(X.copy_to_host(), pay)


# ---- Black-Scholes: the Abramowitz-Stegun normal CDF as a device function, calls and puts from
# one grid-stride kernel, and the same call price as a float64 GPU ufunc (numbapro's example) ----

RSQRT2PI = 0.39894228040143267793994605993438
A1, A2, A3, A4, A5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429


def test_black_scholes_kernel_and_ufunc(cuda):
    @cuda.jit(device=True)
    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
        ret = RSQRT2PI * math.exp(-0.5 * d * d) * \
            (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
        if d > 0:
            ret = 1.0 - ret
        return ret

    @cuda.jit
    def black_scholes(call, put, S, X, T, R, V):
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for i in range(start, S.shape[0], stride):
            sqrt_t = math.sqrt(T[i])
            d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrt_t)
            d2 = d1 - V * sqrt_t
            exp_rt = math.exp(-R * T[i])
            call[i] = S[i] * cnd(d1) - X[i] * exp_rt * cnd(d2)
            put[i] = X[i] * exp_rt * (1.0 - cnd(d2)) - S[i] * (1.0 - cnd(d1))

    @cuda.vectorize([float64(float64, float64, float64, float64, float64)])
    def call_price(S, X, T, R, V):
        sqrt_t = math.sqrt(T)
        d1 = (math.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrt_t)
        d2 = d1 - V * sqrt_t
        return S * cnd(d1) - X * math.exp(-R * T) * cnd(d2)

    rng = np.random.default_rng(22)
    n = 500
    S = rng.uniform(5, 30, n)
    X = rng.uniform(1, 100, n)
    T = rng.uniform(0.25, 10, n)
    R, V = 0.02, 0.30
    call = np.zeros(n)
    put = np.zeros(n)
    black_scholes[3, 64](call, put, S, X, T, R, V)

    def cnd_np(d):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        ret = RSQRT2PI * np.exp(-0.5 * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
        return np.where(d > 0, 1.0 - ret, ret)

    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * np.sqrt(T))
    d2 = d1 - V * np.sqrt(T)
    wcall = S * cnd_np(d1) - X * np.exp(-R * T) * cnd_np(d2)
    wput = X * np.exp(-R * T) * (1 - cnd_np(d2)) - S * (1 - cnd_np(d1))
    np.testing.assert_allclose(call, wcall, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(put, wput, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(call_price(S, X, T, R, V), wcall, rtol=1e-12, atol=1e-12)


# ---- American puts on a Cox-Ross-Rubinstein lattice: one block per option, the terminal payoffs
# in a shared array, rolled back level by level with early exercise, syncthreads between
# levels (a derivatives course's GPU lattice) ----

LATTICE = 128


def test_american_put_binomial_lattice(cuda):
    @cuda.jit
    def american_put(S, K, T, r, sigma, steps, out):
        values = cuda.shared.array(LATTICE + 1, float64)
        opt = cuda.blockIdx.x
        tid = cuda.threadIdx.x
        dt = T[opt] / steps
        u = math.exp(sigma[opt] * math.sqrt(dt))
        d = 1.0 / u
        p = (math.exp(r * dt) - d) / (u - d)
        disc = math.exp(-r * dt)
        for j in range(tid, steps + 1, cuda.blockDim.x):
            values[j] = max(K[opt] - S[opt] * u ** j * d ** (steps - j), 0.0)
        cuda.syncthreads()
        for level in range(steps - 1, -1, -1):
            new = cuda.local.array(4, float64)
            k = 0
            for j in range(tid, level + 1, cuda.blockDim.x):
                cont = disc * (p * values[j + 1] + (1.0 - p) * values[j])
                ex = K[opt] - S[opt] * u ** j * d ** (level - j)
                new[k] = max(cont, ex)
                k += 1
            cuda.syncthreads()
            k = 0
            for j in range(tid, level + 1, cuda.blockDim.x):
                values[j] = new[k]
                k += 1
            cuda.syncthreads()
        if tid == 0:
            out[opt] = values[0]

    rng = np.random.default_rng(23)
    n, steps = 6, 100
    S = rng.uniform(80, 120, n)
    K = rng.uniform(90, 110, n)
    T = rng.uniform(0.2, 2.0, n)
    sigma = rng.uniform(0.15, 0.4, n)
    r = 0.04
    out = np.zeros(n)
    american_put[n, 32](S, K, T, r, sigma, steps, out)
    want = []
    for o in range(n):
        dt = T[o] / steps
        u = math.exp(sigma[o] * math.sqrt(dt))
        d = 1 / u
        p = (math.exp(r * dt) - d) / (u - d)
        v = [max(K[o] - S[o] * u ** j * d ** (steps - j), 0.0) for j in range(steps + 1)]
        for level in range(steps - 1, -1, -1):
            v = [max(math.exp(-r * dt) * (p * v[j + 1] + (1 - p) * v[j]),
                     K[o] - S[o] * u ** j * d ** (level - j)) for j in range(level + 1)]
        want.append(v[0])
    np.testing.assert_allclose(out, want, rtol=1e-10)
