"""Real-world patterns: scientific kernels from physics, statistics and sparse-matrix codes.

A Metropolis sweep of the 2-d Ising model seeded with `np.random.seed` inside the compiled
function, Lennard-Jones forces under periodic boundaries (minimum image by `np.rint`), velocity
Verlet on a chain of springs, a Runge-Kutta integrator given the right-hand side as a compiled
function (Lorenz system), a Gaussian kernel density estimate, a bootstrap of the mean with
`np.random.choice`, a CSR matrix built from COO triplets with `np.bincount`/`np.cumsum` and its
transpose product, a lookup table through `np.searchsorted` and `np.interp`, Simpson's rule, a
generator of index pairs consumed by a compiled loop, a helper given a compiled implementation
with `@overload`, and ufuncs made with `@vectorize` and `@guvectorize`. Restated from
simulation tutorials, statistics notebooks and sparse-matrix code with the imports switched to
pyjit; each is compared with CPython (`py_func`) and with Numba.
"""
import math

import numpy as np
import pytest

from pyjit import guvectorize, njit, vectorize
from pyjit.extending import overload, register_jitable
from util import numba_or_none


@njit
def ising_sweeps(spins, beta, sweeps, seed):
    np.random.seed(seed)
    n = spins.shape[0]
    energy_changes = 0.0
    for _ in range(sweeps * n * n):
        i = np.random.randint(0, n)
        j = np.random.randint(0, n)
        nb = spins[(i + 1) % n, j] + spins[i - 1, j] + spins[i, (j + 1) % n] + spins[i, j - 1]
        dE = 2.0 * spins[i, j] * nb
        if dE <= 0.0 or np.random.random() < math.exp(-beta * dE):
            spins[i, j] = -spins[i, j]
            energy_changes += dE
    return spins, energy_changes, spins.mean()


@njit
def lj_forces(pos, box, rc):
    n = pos.shape[0]
    f = np.zeros_like(pos)
    epot = 0.0
    rc2 = rc * rc
    for i in range(n - 1):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            d -= box * np.rint(d / box)
            r2 = np.dot(d, d)
            if r2 < rc2:
                inv6 = 1.0 / r2 ** 3
                epot += 4.0 * (inv6 * inv6 - inv6)
                fij = (48.0 * inv6 * inv6 - 24.0 * inv6) / r2 * d
                f[i] += fij
                f[j] -= fij
    return f, epot


@njit
def spring_chain(x, v, k, m, dt, steps):
    n = x.shape[0]
    a = np.empty(n)
    energies = np.empty(steps)
    for s in range(steps):
        for i in range(n):
            left = x[i - 1] if i > 0 else 0.0
            right = x[i + 1] if i < n - 1 else 0.0
            a[i] = k / m * (left - 2.0 * x[i] + right)
        v += 0.5 * dt * a
        x += dt * v
        for i in range(n):
            left = x[i - 1] if i > 0 else 0.0
            right = x[i + 1] if i < n - 1 else 0.0
            a[i] = k / m * (left - 2.0 * x[i] + right)
        v += 0.5 * dt * a
        pe = 0.5 * k * (x[0] ** 2 + x[-1] ** 2 + np.sum(np.diff(x) ** 2))
        energies[s] = 0.5 * m * np.sum(v * v) + pe
    return energies


@njit
def lorenz(t, y, sigma, rho, beta):
    return np.array([sigma * (y[1] - y[0]), y[0] * (rho - y[2]) - y[1], y[0] * y[1] - beta * y[2]])


@njit
def rk4(f, y0, t0, dt, steps, sigma, rho, beta):
    out = np.empty((steps + 1, y0.shape[0]))
    out[0] = y0
    y = y0.copy()
    t = t0
    for s in range(steps):
        k1 = f(t, y, sigma, rho, beta)
        k2 = f(t + dt / 2, y + dt / 2 * k1, sigma, rho, beta)
        k3 = f(t + dt / 2, y + dt / 2 * k2, sigma, rho, beta)
        k4 = f(t + dt, y + dt * k3, sigma, rho, beta)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
        out[s + 1] = y
    return out


@njit
def lorenz_path(y0, steps):
    return rk4(lorenz, y0, 0.0, 0.01, steps, 10.0, 28.0, 8.0 / 3.0)


@njit
def gaussian_kde(samples, grid, bandwidth):
    norm = 1.0 / (samples.shape[0] * bandwidth * math.sqrt(2.0 * math.pi))
    out = np.zeros(grid.shape[0])
    for i in range(grid.shape[0]):
        acc = 0.0
        for s in samples:
            z = (grid[i] - s) / bandwidth
            acc += math.exp(-0.5 * z * z)
        out[i] = acc * norm
    return out


@njit
def bootstrap_mean(x, n_boot, seed):
    np.random.seed(seed)
    means = np.empty(n_boot)
    for b in range(n_boot):
        means[b] = np.random.choice(x, x.shape[0]).mean()
    return np.percentile(means, 2.5), np.percentile(means, 97.5)


@njit
def coo_to_csr(n_rows, rows, cols, vals):
    counts = np.bincount(rows, minlength=n_rows)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(counts)
    fill = indptr[:-1].copy()
    indices = np.empty(cols.shape[0], dtype=np.int64)
    data = np.empty(vals.shape[0])
    for k in range(rows.shape[0]):
        r = rows[k]
        indices[fill[r]] = cols[k]
        data[fill[r]] = vals[k]
        fill[r] += 1
    return indptr, indices, data


@njit
def csr_rmatvec(indptr, indices, data, x, n_cols):
    y = np.zeros(n_cols)
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            y[indices[k]] += data[k] * x[i]
    return y


@njit
def coo_transpose_product(n_rows, n_cols, rows, cols, vals, x):
    indptr, indices, data = coo_to_csr(n_rows, rows, cols, vals)
    return csr_rmatvec(indptr, indices, data, x, n_cols)


@njit
def lookup(table_x, table_y, queries):
    idx = np.searchsorted(table_x, queries, side="right") - 1
    idx = np.clip(idx, 0, table_x.shape[0] - 2)
    return idx, np.interp(queries, table_x, table_y)


@njit
def simpson(f_vals, h):
    n = f_vals.shape[0] - 1
    if n % 2:
        raise ValueError("Simpson's rule needs an even number of intervals")
    s = f_vals[0] + f_vals[-1] + 4.0 * f_vals[1:-1:2].sum() + 2.0 * f_vals[2:-1:2].sum()
    return s * h / 3.0


@njit
def upper_pairs(n):
    for i in range(n):
        for j in range(i + 1, n):
            yield i, j


@njit
def closest_pair(pts):
    best = np.inf
    bi, bj = -1, -1
    for i, j in upper_pairs(pts.shape[0]):
        d = np.sqrt(np.sum((pts[i] - pts[j]) ** 2))
        if d < best:
            best, bi, bj = d, i, j
    return best, bi, bj


def soft_clip(x, limit):
    """A library function whose compiled version is supplied below with @overload."""
    return limit * math.tanh(x / limit)


@overload(soft_clip)
def _soft_clip(x, limit):
    def impl(x, limit):
        return limit * math.tanh(x / limit)
    return impl


@register_jitable
def gain(x, g):
    return g * x


@njit
def saturating_amp(signal, g, limit):
    out = np.empty_like(signal)
    for i in range(signal.shape[0]):
        out[i] = soft_clip(gain(signal[i], g), limit)
    return out


@vectorize(["float64(float64, float64)", "float32(float32, float32)"])
def rel_diff(a, b):
    den = max(abs(a), abs(b))
    return 0.0 if den == 0 else abs(a - b) / den


@guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->(n)")
def moving_mean(x, w, out):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        if i >= w:
            acc -= x[i - w]
        out[i] = acc / min(i + 1, w)


rng = np.random.default_rng(9)


def _lattice():
    return (np.where(rng.uniform(size=(8, 8)) < 0.5, -1.0, 1.0), 0.4, 3, 11)


def _gas():
    g = np.stack(np.meshgrid(np.arange(3.0), np.arange(3.0), np.arange(2.0)), -1).reshape(-1, 3)
    return g * 1.2 + rng.normal(scale=0.05, size=g.shape), 4.0, 2.5


def _coo():
    nnz = 25
    return (6, 5, rng.integers(0, 6, nnz), rng.integers(0, 5, nnz), rng.normal(size=nnz),
            rng.normal(size=6))


_tx = np.sort(rng.uniform(0, 10, 12))

CASES = [
    (ising_sweeps, _lattice),
    (lj_forces, _gas),
    (spring_chain, lambda: (rng.normal(scale=0.1, size=8), np.zeros(8), 2.0, 1.0, 0.02, 30)),
    (lorenz_path, lambda: (np.array([1.0, 1.0, 1.0]), 60)),
    (gaussian_kde, lambda: (rng.normal(size=40), np.linspace(-3, 3, 13), 0.4)),
    (bootstrap_mean, lambda: (rng.normal(3.0, 1.0, 25), 50, 4)),
    (coo_transpose_product, _coo),
    (lookup, lambda: (_tx, np.sin(_tx), rng.uniform(-1, 11, 9))),
    (simpson, lambda: (np.sin(np.linspace(0, np.pi, 21)), np.pi / 20)),
    (closest_pair, lambda: (rng.uniform(size=(15, 2)),)),
    (saturating_amp, lambda: (np.linspace(-2, 2, 11), 3.0, 1.5)),
]


def _same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and np.allclose(a, b, rtol=1e-9)
    if isinstance(a, float):
        return np.isclose(a, b, rtol=1e-9)
    return a == b


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = make()
    want = f.py_func(*_copies(args))
    assert _same(f(*_copies(args)), want)
    nb = numba_or_none(f)
    if nb is not None and f is not saturating_amp:   # soft_clip's overload is pyjit's
        assert _same(nb(*_copies(args)), want)


def test_simpson_rejects_an_odd_number_of_intervals():
    with pytest.raises(ValueError, match="even number of intervals"):
        simpson(np.ones(4), 0.1)


def test_vectorized_ufuncs_against_numpy():
    a = rng.normal(size=(3, 4))
    b = rng.normal(size=4)
    want = np.abs(a - b) / np.maximum(np.abs(a), np.abs(b))
    np.testing.assert_allclose(rel_diff(a, b), want, rtol=1e-12)
    assert rel_diff(a.astype(np.float32), b.astype(np.float32)).dtype == np.float32
    assert rel_diff(0.0, 0.0) == 0.0
    x = rng.normal(size=(2, 9))
    got = moving_mean(x, 3)
    for r in range(2):
        for i in range(9):
            lo = max(0, i - 2)
            assert np.isclose(got[r, i], x[r, lo:i + 1].mean())
