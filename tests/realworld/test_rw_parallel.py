"""Real-world patterns: functions written for `@njit(parallel=True)` with `prange`.

The shapes public projects give their parallel loops, restated in our own words with the import
switched to pyjit: coordinates converted per point with a tuple unpacked from a row, per-frame
means and medians of a video (a calcium-imaging trace), a 5-d patch copy, a genetic algorithm's
fitness over a list of arrays calling a compiled helper, Monte Carlo pi with a counting
reduction, great-circle distances, a k-means assignment step with its inertia, n-body
accelerations, image grayscale and box blur, a 1-d correlation, per-chunk histograms folded by
`hist += local` (1-d and 2-d), Numba's logistic regression (whole-array code, no prange), a
PageRank step over CSR arrays, GC content of sequences, Black-Scholes prices, NaN-skipping
moments with `continue` and min/max, an extremum written as an `if` update, a relaxation with
prange inside a time loop, and the loop variable read after the loop. Each runs compiled (on
the pool) and in CPython on the same source (prange is range there); float reductions within a
tolerance, as the threads' partials reassociate them.
"""
import math

import numpy as np
import pytest

import pyjit
from pyjit import njit, prange
from util import check

RNG = np.random.default_rng(2014)


@njit
def sphere_fitness(x, dimension):
    s = 0.0
    for k in range(dimension):
        s += x[k] * x[k]
    return s


def to_spherical(arr):
    n = arr.shape[0]
    out = np.zeros((n, 3), dtype=np.float64)
    for i in prange(n):
        x, y, z = arr[i]
        r = np.sqrt(x**2 + y**2 + z**2)
        theta = np.arccos(z / r) if r != 0 else 0.0
        phi = np.arctan2(y, x)
        out[i, 0] = 0 if np.abs(r) < 1e-14 else r
        out[i, 1] = 0 if np.abs(theta) < 1e-14 else theta
        out[i, 2] = 0 if np.abs(phi) < 1e-14 else phi
    return out


def frame_means(video, trace):
    for t in prange(video.shape[0]):
        trace[t] = np.mean(video[t, :])
    return trace


def frame_medians(video):
    bg = np.empty(video.shape[0])
    for t in prange(video.shape[0]):
        bg[t] = np.median(video[t, :])
    return bg


def flatten_patches(sequence, out):
    n_leaves, channels, timesteps, patch_h, patch_w = sequence.shape
    for leaf in prange(n_leaves):
        for t_idx in range(timesteps):
            offset = t_idx * channels
            for ch in range(channels):
                for yy in range(patch_h):
                    for xx in range(patch_w):
                        out[leaf, offset + ch, yy, xx] = sequence[leaf, ch, t_idx, yy, xx]
    return out


def population_fitness(population, dimension):
    values = np.empty(len(population), dtype=np.float64)
    for i in prange(len(population)):
        values[i] = sphere_fitness(population[i], dimension)
    return values


def monte_carlo_pi(nsamples):
    acc = 0
    for i in prange(nsamples):
        x = np.random.random()
        y = np.random.random()
        if (x ** 2 + y ** 2) < 1.0:
            acc += 1
    return 4.0 * acc / nsamples


def haversine(lat1, lon1, lat2, lon2):
    out = np.empty(lat1.shape[0])
    for i in prange(lat1.shape[0]):
        dlat = np.radians(lat2[i] - lat1[i])
        dlon = np.radians(lon2[i] - lon1[i])
        a = np.sin(dlat / 2) ** 2 + \
            np.cos(np.radians(lat1[i])) * np.cos(np.radians(lat2[i])) * np.sin(dlon / 2) ** 2
        out[i] = 6371.0 * 2 * np.arcsin(np.sqrt(a))
    return out


def kmeans_assign(X, C):
    labels = np.empty(X.shape[0], np.int64)
    inertia = 0.0
    for i in prange(X.shape[0]):
        best = np.inf
        bj = -1
        for j in range(C.shape[0]):
            d = 0.0
            for k in range(X.shape[1]):
                t = X[i, k] - C[j, k]
                d += t * t
            if d < best:
                best = d
                bj = j
        labels[i] = bj
        inertia += best
    return labels, inertia


def nbody_accelerations(pos, mass, soft):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in prange(n):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                dz = pos[j, 2] - pos[i, 2]
                inv = (dx * dx + dy * dy + dz * dz + soft) ** -1.5
                ax += mass[j] * dx * inv
                ay += mass[j] * dy * inv
                az += mass[j] * dz * inv
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az
    return acc


def grayscale(img):
    h, w, _ = img.shape
    out = np.empty((h, w), np.uint8)
    for y in prange(h):
        for x in range(w):
            out[y, x] = np.uint8(0.299 * img[y, x, 0] + 0.587 * img[y, x, 1] +
                                 0.114 * img[y, x, 2])
    return out


def box_blur(img):
    h, w = img.shape
    out = np.zeros_like(img)
    for y in prange(1, h - 1):
        for x in range(1, w - 1):
            s = 0.0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    s += img[y + dy, x + dx]
            out[y, x] = s / 9.0
    return out


def correlate(x, k):
    n = x.shape[0] - k.shape[0] + 1
    out = np.zeros(n)
    for i in prange(n):
        s = 0.0
        for j in range(k.shape[0]):
            s += x[i + j] * k[j]
        out[i] = s
    return out


def chunked_histogram(x, nbins, nchunks):
    hist = np.zeros(nbins, np.int64)
    size = (x.shape[0] + nchunks - 1) // nchunks
    for c in prange(nchunks):
        local = np.zeros(nbins, np.int64)
        for i in range(c * size, min(x.shape[0], (c + 1) * size)):
            b = int(x[i] * nbins)
            local[min(b, nbins - 1)] += 1
        hist += local
    return hist


def chunked_histogram2d(x, y, nb, nchunks):
    h = np.zeros((nb, nb))
    size = (x.shape[0] + nchunks - 1) // nchunks
    for c in prange(nchunks):
        local = np.zeros((nb, nb))
        for i in range(c * size, min(x.shape[0], (c + 1) * size)):
            local[int(x[i] * nb), int(y[i] * nb)] += 1.0
        h += local
    return h


def logistic_regression(Y, X, w, iterations):
    for i in range(iterations):
        w -= np.dot(((1.0 / (1.0 + np.exp(-Y * np.dot(X, w))) - 1.0) * Y), X)
    return w


def pagerank_step(indptr, indices, rank, outdeg, d):
    n = indptr.shape[0] - 1
    new = np.empty(n)
    for v in prange(n):
        s = 0.0
        for k in range(indptr[v], indptr[v + 1]):
            u = indices[k]
            s += rank[u] / outdeg[u]
        new[v] = (1 - d) / n + d * s
    return new


def gc_content(seqs):
    out = np.empty(seqs.shape[0])
    for i in prange(seqs.shape[0]):
        c = 0
        for j in range(seqs.shape[1]):
            ch = seqs[i, j]
            if ch == 71 or ch == 67:
                c += 1
        out[i] = c / seqs.shape[1]
    return out


def black_scholes_calls(S, K, T, r, v):
    call = np.empty(S.shape[0])
    for i in prange(S.shape[0]):
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * v * v) * T[i]) / (v * math.sqrt(T[i]))
        d2 = d1 - v * math.sqrt(T[i])
        nd1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
        nd2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
        call[i] = S[i] * nd1 - K[i] * math.exp(-r * T[i]) * nd2
    return call


def nan_moments(a):
    s1 = 0.0
    s2 = 0.0
    lo = np.inf
    hi = -np.inf
    count = 0
    for i in prange(a.shape[0]):
        v = a[i]
        if np.isnan(v):
            continue
        s1 += v
        s2 += v * v
        lo = min(lo, v)
        hi = max(hi, v)
        count += 1
    mean = s1 / count
    return mean, s2 / count - mean * mean, lo, hi, count


def max_abs_residual(a, b):
    worst = 0.0
    for i in prange(a.shape[0]):
        if abs(a[i] - b[i]) > worst:
            worst = abs(a[i] - b[i])
    return worst


def relax(u, steps):
    for t in range(steps):
        new = np.empty_like(u)
        for i in prange(1, u.shape[0] - 1):
            new[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1])
        new[0] = u[0]
        new[-1] = u[-1]
        u = new
    return u


def fill_until(a):
    for i in prange(a.shape[0]):
        a[i] = i * i
    return a, i


CASES = [
    (to_spherical, lambda: (RNG.random((2000, 3)) - 0.5,)),
    (frame_means, lambda: (RNG.random((60, 700)), np.empty(60))),
    (frame_medians, lambda: (RNG.random((40, 501)),)),
    (flatten_patches, lambda: (RNG.random((6, 3, 2, 5, 4)), np.empty((6, 6, 5, 4)))),
    (population_fitness, lambda: ([RNG.random(4) for _ in range(30)], 4)),
    (haversine, lambda: tuple(RNG.random(3000) * 80 for _ in range(4))),
    (kmeans_assign, lambda: (RNG.random((800, 3)), RNG.random((6, 3)))),
    (nbody_accelerations, lambda: (RNG.random((150, 3)), RNG.random(150), 0.01)),
    (grayscale, lambda: (RNG.integers(0, 256, (64, 48, 3)).astype(np.uint8),)),
    (box_blur, lambda: (RNG.random((80, 70)),)),
    (correlate, lambda: (RNG.random(6000), RNG.random(9))),
    (chunked_histogram, lambda: (RNG.random(200000), 64, 24)),
    (chunked_histogram2d, lambda: (RNG.random(20000), RNG.random(20000), 8, 12)),
    (logistic_regression, lambda: (np.sign(RNG.random(400) - 0.5), RNG.random((400, 5)),
                                   np.zeros(5), 6)),
    (pagerank_step, lambda: (np.array([0, 2, 3, 5, 6]), np.array([1, 2, 0, 0, 3, 1]),
                             np.full(4, 0.25), np.array([2.0, 1.0, 2.0, 1.0]), 0.85)),
    (gc_content, lambda: (RNG.choice(np.array([65, 67, 71, 84], np.uint8), (30, 400)),)),
    (black_scholes_calls, lambda: (RNG.random(2000) * 50 + 50, RNG.random(2000) * 50 + 50,
                                   RNG.random(2000) + 0.1, 0.02, 0.3)),
    (nan_moments, lambda: (np.where(RNG.random(20000) < 0.1, np.nan, RNG.random(20000)),)),
    (max_abs_residual, lambda: (RNG.random(30000), RNG.random(30000))),
    (relax, lambda: (RNG.random(3000), 15)),
    (fill_until, lambda: (np.zeros(5000, np.int64),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_parallel_functions_match_cpython(fn, args):
    check(fn, *args(), parallel=True, rtol=1e-9)


def test_monte_carlo_pi_counts_every_sample():
    # np.random in each thread draws its own stream: the estimate, not the draws, is compared
    f = njit(parallel=True)(monte_carlo_pi)
    assert abs(f(400000) - math.pi) < 0.02


def test_every_loop_runs_on_the_pool():
    # none of the loops above falls back to running serially
    for fn, _ in CASES:
        if fn is logistic_regression:
            continue
        text = njit(parallel=True)(fn).parallel_diagnostics(level=1)
        assert "runs in parallel" in text and "serially" not in text, text
    text = njit(parallel=True)(max_abs_residual).parallel_diagnostics(level=1)
    assert "worst max" in text


def test_results_do_not_depend_on_the_thread_count():
    x = RNG.random(100000)
    f = njit(parallel=True)(chunked_histogram)
    first = None
    for n in range(1, pyjit._parallel.NUMBA_NUM_THREADS + 1):
        pyjit.set_num_threads(n)
        h = f(x, 32, 10)
        first = h if first is None else first
        assert np.array_equal(h, first)
    pyjit.set_num_threads(pyjit._parallel.NUMBA_NUM_THREADS)
    assert np.array_equal(first, np.histogram(x, 32, (0.0, 1.0))[0])
