"""Real-world patterns: statistical-physics and molecular-dynamics code written for Numba,
restated in our own words with the import switched: Wolff cluster updates of the 2-d Ising model
(a list of site tuples as the stack, uniforms drawn per step by the caller), the XY model's
energy (`fastmath=True`) and a Metropolis sweep looping over a tuple of neighbour tuples, a Potts
order parameter by `np.bincount(minlength=q)`, Lennard-Jones forces over a linked cell list with
the minimum image (`d -= box * np.round(d / box)`, `d @ d`, `cx, cy, cz = cell[i]`), velocity
Verlet with a Berendsen thermostat storing `ep, ek, T` into an array row, a `prange` radial
distribution function, mean squared displacements over lags, site percolation by union-find
written as inner functions closing over the parent array, a percolation curve over seeds, a
tight-binding density of states from complex `np.linalg.inv`, harmonic-oscillator levels from
`eigh` of a matrix built by `np.diag` with offsets, and a Bloch sum through `cmath`. Each is
compared with CPython running the same source."""
import cmath
import math

import numpy as np
import pytest

import pyjit as numba  # noqa: F401
from pyjit import njit, prange, float64, int64, types  # noqa: F401
from pyjit.typed import List  # noqa: F401
from util import check


# ---- Wolff cluster update for the 2-d Ising model ----
@njit
def wolff_step(spins, beta, rnd):
    L = spins.shape[0]
    p_add = 1.0 - math.exp(-2.0 * beta)
    k = 0
    i, j = int(rnd[k] * L), int(rnd[k + 1] * L)
    k += 2
    s0 = spins[i, j]
    stack = [(i, j)]
    spins[i, j] = -s0
    size = 1
    while len(stack) > 0:
        a, b = stack.pop()
        for da, db in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            na, nb = (a + da) % L, (b + db) % L
            if spins[na, nb] == s0:
                u = rnd[k % rnd.size]
                k += 1
                if u < p_add:
                    spins[na, nb] = -s0
                    stack.append((na, nb))
                    size += 1
    return size

@njit
def wolff_run(L, beta, n_steps, seed):
    np.random.seed(seed)
    spins = np.ones((L, L), dtype=np.int8)
    sizes = np.empty(n_steps, dtype=np.int64)
    mags = np.empty(n_steps)
    for t in range(n_steps):
        sizes[t] = wolff_step(spins, beta, np.random.random(4 * L * L))
        mags[t] = abs(spins.sum()) / spins.size
    return sizes, mags

# ---- XY model energy and Metropolis with pre-drawn numbers ----
@njit(fastmath=True)
def xy_energy(theta, J=1.0):
    L = theta.shape[0]
    E = 0.0
    for i in range(L):
        for j in range(L):
            E -= J * (math.cos(theta[i, j] - theta[(i + 1) % L, j]) + math.cos(theta[i, j] - theta[i, (j + 1) % L]))
    return E

@njit
def xy_sweep(theta, beta, proposals, accept_u, delta=1.0):
    L = theta.shape[0]
    acc = 0
    for n in range(L * L):
        i, j = n // L, n % L
        old = theta[i, j]
        new = old + delta * (proposals[n] - 0.5)
        dE = 0.0
        for ni, nj in ((i + 1) % L, j), ((i - 1) % L, j), (i, (j + 1) % L), (i, (j - 1) % L):
            dE -= math.cos(new - theta[ni, nj]) - math.cos(old - theta[ni, nj])
        if dE <= 0 or accept_u[n] < math.exp(-beta * dE):
            theta[i, j] = new % (2 * math.pi)
            acc += 1
    return acc / (L * L)

# ---- Potts model magnetisation ----
@njit
def potts_order(spins, q):
    counts = np.bincount(spins.ravel(), minlength=q)
    return (q * counts.max() / spins.size - 1) / (q - 1)

# ---- MD: cell list + Lennard-Jones + Berendsen thermostat ----
@njit
def lj_forces_cells(pos, box, rc):
    n = pos.shape[0]
    nc = max(1, int(box / rc))
    cs = box / nc
    cell = np.floor(pos / cs).astype(np.int64) % nc
    head = np.full(nc ** 3, -1)
    nxt = np.full(n, -1)
    for i in range(n):
        c = (cell[i, 0] * nc + cell[i, 1]) * nc + cell[i, 2]
        nxt[i] = head[c]
        head[c] = i
    f = np.zeros_like(pos)
    epot = 0.0
    rc2 = rc * rc
    for i in range(n):
        cx, cy, cz = cell[i]
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                for dz in range(-1, 2):
                    c = (((cx + dx) % nc) * nc + (cy + dy) % nc) * nc + (cz + dz) % nc
                    j = head[c]
                    while j >= 0:
                        if j > i:
                            d = pos[i] - pos[j]
                            d -= box * np.round(d / box)
                            r2 = d @ d
                            if r2 < rc2:
                                ir6 = 1.0 / r2 ** 3
                                epot += 4.0 * (ir6 * ir6 - ir6)
                                fmag = 24.0 * (2.0 * ir6 * ir6 - ir6) / r2
                                f[i] += fmag * d
                                f[j] -= fmag * d
                        j = nxt[j]
    return f, epot

@njit
def md_run(pos, vel, box, dt, steps, T_target, tau):
    rc = 2.5
    f, ep = lj_forces_cells(pos, box, rc)
    n = pos.shape[0]
    energies = np.empty((steps, 3))
    for s in range(steps):
        vel += 0.5 * dt * f
        pos += dt * vel
        pos %= box
        f, ep = lj_forces_cells(pos, box, rc)
        vel += 0.5 * dt * f
        ek = 0.5 * np.sum(vel ** 2)
        T = 2.0 * ek / (3 * n)
        lam = math.sqrt(1 + dt / tau * (T_target / T - 1))
        vel *= lam
        energies[s] = ep, ek, T
    return pos, vel, energies

@njit(parallel=True)
def rdf(pos, box, nbins, rmax):
    n = pos.shape[0]
    hist = np.zeros((n, nbins))
    dr = rmax / nbins
    for i in prange(n):
        for j in range(n):
            if i == j:
                continue
            d = pos[i] - pos[j]
            d -= box * np.rint(d / box)
            r = np.sqrt(np.sum(d * d))
            if r < rmax:
                hist[i, int(r / dr)] += 1
    h = hist.sum(axis=0)
    rho = n / box ** 3
    edges = np.arange(nbins + 1) * dr
    shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    return edges[:-1] + dr / 2, h / (n * rho * shell)

@njit
def msd(traj):
    nt = traj.shape[0]
    out = np.zeros(nt)
    for lag in range(1, nt):
        d = traj[lag:] - traj[:-lag]
        out[lag] = np.mean(np.sum(d ** 2, axis=2))
    return out

# ---- percolation: clusters by union-find on a random lattice ----
@njit
def percolates(open_sites):
    n, m = open_sites.shape
    parent = np.arange(n * m + 2)
    top, bottom = n * m, n * m + 1

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb

    for i in range(n):
        for j in range(m):
            if not open_sites[i, j]:
                continue
            k = i * m + j
            if i == 0:
                union(k, top)
            if i == n - 1:
                union(k, bottom)
            if i > 0 and open_sites[i - 1, j]:
                union(k, k - m)
            if j > 0 and open_sites[i, j - 1]:
                union(k, k - 1)
    return root(top) == root(bottom)

@njit
def percolation_curve(ps, n, trials, seed):
    np.random.seed(seed)
    out = np.zeros(ps.size)
    for a in range(ps.size):
        hits = 0
        for t in range(trials):
            hits += percolates(np.random.random((n, n)) < ps[a])
        out[a] = hits / trials
    return out

# ---- quantum: 1-d tight-binding Green's function and a split-step propagator ----
@njit
def tight_binding_dos(energies, n, t, eta):
    H = np.zeros((n, n), dtype=np.complex128)
    for i in range(n - 1):
        H[i, i + 1] = H[i + 1, i] = -t
    dos = np.empty(energies.size)
    for k in range(energies.size):
        G = np.linalg.inv((energies[k] + 1j * eta) * np.eye(n) - H)
        dos[k] = -np.trace(G).imag / (np.pi * n)
    return dos

@njit
def harmonic_eigs(n, L):
    x = np.linspace(-L, L, n)
    h = x[1] - x[0]
    H = np.diag(1.0 / h ** 2 + 0.5 * x ** 2) + np.diag(np.full(n - 1, -0.5 / h ** 2), 1) + np.diag(np.full(n - 1, -0.5 / h ** 2), -1)
    w, v = np.linalg.eigh(H)
    return w[:5]

@njit
def bloch_phase(k, positions):
    acc = 0j
    for r in positions:
        acc += cmath.exp(1j * k * r)
    return abs(acc) ** 2, cmath.phase(acc)

rng = np.random.default_rng(4)
def lattice(n, a):
    g = np.arange(n) * a
    return np.array([[x, y, z] for x in g for y in g for z in g]) + 0.01 * rng.normal(size=(n ** 3, 3))
P = lattice(4, 1.6)
V = rng.normal(0, 0.5, P.shape); V -= V.mean(axis=0)
traj = np.cumsum(rng.normal(size=(30, 10, 3)), axis=0)
theta = rng.uniform(0, 2 * np.pi, (8, 8))
CASES = [
    ("wolff_run", wolff_run, (12, 0.44, 20, 1)),
    ("xy_energy", xy_energy, (theta,)),
    ("xy_sweep", xy_sweep, (theta.copy(), 1.2, rng.random(64), rng.random(64))),
    ("potts_order", potts_order, (rng.integers(0, 3, (10, 10)), 3)),
    ("lj_forces", lj_forces_cells, (P, 6.4, 2.5)),
    ("md_run", md_run, (P.copy(), V.copy(), 6.4, 0.002, 10, 1.0, 0.1)),
    ("rdf", rdf, (P, 6.4, 20, 3.0)),
    ("msd", msd, (traj,)),
    ("percolates", percolates, (rng.random((15, 15)) < 0.6,)),
    ("percolation_curve", percolation_curve, (np.array([0.4, 0.6, 0.8]), 10, 20, 3)),
    ("tb_dos", tight_binding_dos, (np.linspace(-2.5, 2.5, 9), 20, 1.0, 0.05)),
    ("harmonic", harmonic_eigs, (120, 6.0)),
    ("bloch", bloch_phase, (0.7, np.linspace(0, 5, 11))),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    check(f.py_func, *args, jit=f)
