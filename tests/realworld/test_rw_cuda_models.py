"""numba-cuda kernels of statistical models from public projects, the import switched to pyjit:
Baum-Welch for a discrete hidden Markov model split into segments that run in parallel (a
numba-cuda HMM library's scheme: each block runs the scaled forward or backward recursion over
one segment from the previous iteration's boundary values, shared arrays shaped by the model's
sizes captured from the enclosing function, tree reductions in a device function that syncs,
expected counts gathered per block and added with `atomic.add` on (row, column) tuples, columns
normalised, boundaries handed to the next iteration); gradient-boosted trees evaluated one
sample a thread over a forest kept as a `np.recarray` of node records (`forest[t, n].left`,
`forest.value`), the booster's settings passed as one record (`np.void`) and a device function
reading a record; geofencing GPS points against polygons given as flat interleaved vertex
arrays with offsets (ray casting in a device function, great-circle distances to each
polygon's first vertex by the haversine formula).

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark).
Results are compared with the same models computed by NumPy or plain Python.
"""
import math
import os
import sys

import numpy as np

from pyjit import float64

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


# ---- a segmented Baum-Welch step for a discrete HMM (columns of pi and B are distributions:
# pi[i, j] = P(next i | now j), B[m, i] = P(observe m | state i)) ----

def _hmm_reference(Y, p0, pi, B, D, L, U, V):
    """One EM step as the library's NumPy code computes it: mu and nu (scaled forward and
    backward variables) over L + 1 segments of D steps that start from U and V, then the new
    parameters and the boundary values for the next step."""
    N, T = pi.shape[0], Y.size
    Yp = np.concatenate([Y, np.zeros(1 + D * (L + 1) - T, Y.dtype)])
    mu = np.empty((N, L + 1, D))
    nu = np.empty((N, L + 1, D))
    g0 = B[Yp[0]] * p0
    mu0 = g0 / g0.sum()
    last = np.concatenate([mu0[:, None], U], axis=1)
    at = np.arange(L + 1) * D + 1
    for k in range(D):
        g = B[Yp[at]].T * (pi @ last)
        mu[:, :, k] = last = g / g.sum(axis=0)
        at = at + 1
    last = np.concatenate([V, np.full((N, 1), np.nan)], axis=1)
    for k in range(D):
        at = at - 1
        if at[-1] == T - 1:
            last[:, -1] = 1.0 / N
        g = pi.T @ (B[Yp[at]].T * last)
        nu[:, :, D - 1 - k] = last = g / g.sum(axis=0)
    mu = np.concatenate([mu0[:, None], mu.reshape(N, -1)[:, :T - 1]], axis=1)
    nu = np.concatenate([nu.reshape(N, -1)[:, :T - 1], np.full((N, 1), 1.0 / N)], axis=1)
    weighted = B[Y].T * nu
    norms = (weighted[:, 1:] * (pi @ mu[:, :-1])).sum(axis=0)
    counts = pi * ((weighted[:, 1:] / norms) @ mu[:, :-1].T)
    new_pi = counts / counts.sum(axis=0)
    post = mu * nu / (mu * nu).sum(axis=0)
    onehot = np.zeros((B.shape[0], T))
    onehot[Y, np.arange(T)] = 1
    new_B = onehot @ post.T
    new_B /= new_B.sum(axis=0)
    new_p0 = post[:, 0]
    cut = (np.arange(L) + 1) * D
    return new_p0, new_pi, new_B, mu[:, cut], nu[:, cut]


def _hmm_kernels(cuda, N, M, T, D, L, n_blocks):
    HALF = 1 if N == 1 else 2 ** math.ceil(math.log2(N) - 1)   # the reduction's first width
    SEGS = L + 1

    @cuda.jit(device=True)
    def block_total(vals, part, i):
        """The sum of vals[0:N] over the block's N threads (all of them call it)."""
        if i < N - HALF:
            part[i] = vals[i] + vals[i + HALF]
        elif i < HALF:
            part[i] = vals[i]
        cuda.syncthreads()
        width = HALF // 2
        while width > 0:
            if i < width:
                part[i] += part[i + width]
            cuda.syncthreads()
            width //= 2
        return part[0]

    @cuda.jit
    def forward_backward(Y, p0, pi, B, U, V, mu, nu):
        i = cuda.threadIdx.x
        b = cuda.blockIdx.x
        last = cuda.shared.array(N, dtype=float64)
        cur = cuda.shared.array(N, dtype=float64)
        emit = cuda.shared.array(N, dtype=float64)
        part = cuda.shared.array(HALF, dtype=float64)
        if b < SEGS:                                   # forward over segment b
            if b == 0:
                last[i] = B[Y[0], i] * p0[i]
                cuda.syncthreads()
                total = block_total(last, part, i)
                last[i] = last[i] / total
                mu[i, 0] = last[i]
            else:
                last[i] = U[i, b - 1]
            cuda.syncthreads()
            for k in range(D):
                t = 1 + k + b * D
                if t < Y.size:
                    acc = pi[i, 0] * last[0]
                    for j in range(1, N):
                        acc += pi[i, j] * last[j]
                    cur[i] = B[Y[t], i] * acc
                    cuda.syncthreads()
                    total = block_total(cur, part, i)
                    last[i] = cur[i] / total
                    mu[i, t] = last[i]
                    cuda.syncthreads()
        else:                                          # backward over segment b - SEGS
            s = b - SEGS
            if s < L:
                last[i] = V[i, s]
            cuda.syncthreads()
            for k in range(D):
                t = (s + 1) * D - k
                if t == Y.size - 1:
                    last[i] = 1.0 / N
                    nu[i, t] = 1.0 / N
                if t < Y.size:
                    emit[i] = B[Y[t], i] * last[i]
                    cuda.syncthreads()
                    acc = pi[0, i] * emit[0]
                    for j in range(1, N):
                        acc += pi[j, i] * emit[j]
                    cur[i] = acc
                    cuda.syncthreads()
                    total = block_total(cur, part, i)
                    last[i] = cur[i] / total
                    nu[i, t - 1] = last[i]
                    cuda.syncthreads()

    @cuda.jit
    def transitions(Y, pi, B, mu, nu, counts):
        i = cuda.threadIdx.x
        w = cuda.shared.array((N, N), dtype=float64)
        acc = cuda.shared.array((N, N), dtype=float64)
        rows = cuda.shared.array(N, dtype=float64)
        part = cuda.shared.array(HALF, dtype=float64)
        for j in range(N):
            acc[i, j] = 0.0
        for k in range(cuda.blockIdx.x, Y.size - 1, n_blocks):
            g = nu[i, k + 1] * B[Y[k + 1], i]
            rows[i] = 0.0
            for j in range(N):
                w[i, j] = g * pi[i, j] * mu[j, k]
                rows[i] += w[i, j]
            cuda.syncthreads()
            total = block_total(rows, part, i)
            for j in range(N):
                acc[i, j] += w[i, j] / total
            cuda.syncthreads()             # every thread has read the total before the next
        for j in range(N):
            cuda.atomic.add(counts, (i, j), acc[i, j])

    @cuda.jit
    def emissions(Y, mu, nu, counts, new_p0):
        i = cuda.threadIdx.x
        post = cuda.shared.array(N, dtype=float64)
        acc = cuda.shared.array((M, N), dtype=float64)
        part = cuda.shared.array(HALF, dtype=float64)
        for m in range(M):
            acc[m, i] = 0.0
        for k in range(cuda.blockIdx.x, Y.size, n_blocks):
            post[i] = mu[i, k] * nu[i, k]
            cuda.syncthreads()
            total = block_total(post, part, i)
            acc[Y[k], i] += post[i] / total
            if k == 0:
                new_p0[i] = post[i] / total
        for m in range(M):
            cuda.atomic.add(counts, (m, i), acc[m, i])

    @cuda.jit
    def normalize_columns(a):
        j = cuda.grid(1)
        if j < a.shape[1]:
            s = 0.0
            for r in range(a.shape[0]):
                s += a[r, j]
            for r in range(a.shape[0]):
                a[r, j] /= s

    @cuda.jit
    def boundaries(mu, nu, U, V):
        ind = cuda.grid(1)
        if ind < N * L:
            seg, i = ind // N, ind % N
            U[i, seg] = mu[i, (1 + seg) * D]
            V[i, seg] = nu[i, (1 + seg) * D]

    return forward_backward, transitions, emissions, normalize_columns, boundaries


def test_segmented_baum_welch_of_a_discrete_hmm(cuda):
    N, M, D, L = 5, 6, 12, 9
    T = 1 + D * L + 7                        # 1 + D*L < T <= 1 + D*(L+1)
    rng = np.random.default_rng(11)
    pi_true = rng.random((N, N)) + 4 * np.eye(N)
    pi_true /= pi_true.sum(axis=0)
    B_true = rng.random((M, N)) + 3 * np.eye(M, N)
    B_true /= B_true.sum(axis=0)
    states = np.empty(T, np.int64)
    states[0] = 0
    for t in range(1, T):
        states[t] = rng.choice(N, p=pi_true[:, states[t - 1]])
    Y = np.array([rng.choice(M, p=B_true[:, s]) for s in states], np.int32)

    p0 = np.full(N, 1.0 / N)
    pi = (np.ones((N, N)) + np.eye(N)) / (N + 1)
    B = np.ones((M, N)) + np.eye(M, N)
    B /= B.sum(axis=0)
    U = np.full((N, L), 1.0 / N)
    V = np.full((N, L), 1.0 / N)
    n_blocks = 8
    fb, trans, emis, normalize, bounds = _hmm_kernels(cuda, N, M, T, D, L, n_blocks)

    dY = cuda.to_device(Y)
    dp0, dpi, dB = cuda.to_device(p0), cuda.to_device(pi), cuda.to_device(B)
    dU, dV = cuda.to_device(U), cuda.to_device(V)
    mu, nu = cuda.device_array((N, T)), cuda.device_array((N, T))
    want = (p0, pi, B, U, V)
    for _ in range(2):                       # two EM steps, the boundaries carried over
        want = _hmm_reference(Y, *want[:3], D, L, *want[3:])
        fb[2 * (L + 1), N](dY, dp0, dpi, dB, dU, dV, mu, nu)
        new_pi = cuda.to_device(np.zeros((N, N)))
        new_B = cuda.to_device(np.zeros((M, N)))
        trans[n_blocks, N](dY, dpi, dB, mu, nu, new_pi)
        emis[n_blocks, N](dY, mu, nu, new_B, dp0)
        normalize[1, 32](new_pi)
        normalize[1, 32](new_B)
        bounds[(N * L + 31) // 32, 32](mu, nu, dU, dV)
        dpi, dB = new_pi, new_B
        got = (dp0.copy_to_host(), dpi.copy_to_host(), dB.copy_to_host(), dU.copy_to_host(),
               dV.copy_to_host())
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-13)


# ---- gradient-boosted trees over node records (a histogram-GBM's node layout) ----

NODE = np.dtype([("is_leaf", np.uint8), ("feature", np.uint32), ("threshold", np.float32),
                 ("left", np.uint32), ("right", np.uint32), ("value", np.float32)], align=True)
BOOSTER = np.dtype([("learning_rate", np.float64), ("base_score", np.float64),
                    ("n_trees", np.int32), ("logistic", np.bool_)], align=True)


def _random_forest(rng, n_trees, depth, n_features):
    n_nodes = 2 ** (depth + 1) - 1
    forest = np.zeros((n_trees, n_nodes), NODE).view(np.recarray)
    for t in range(n_trees):
        for n in range(n_nodes):
            if n >= 2 ** depth - 1 or rng.random() < 0.15:     # leaves, some early
                forest[t, n].is_leaf = 1
                forest[t, n].value = rng.normal()
            else:
                forest[t, n].feature = rng.integers(n_features)
                forest[t, n].threshold = rng.normal()
                forest[t, n].left, forest[t, n].right = 2 * n + 1, 2 * n + 2
    return forest


def _predict_reference(forest, booster, X):
    out = np.empty(X.shape[0])
    for s in range(X.shape[0]):
        score = booster["base_score"]
        for t in range(booster["n_trees"]):
            n = 0
            while not forest[t, n].is_leaf:
                f = forest[t, n].feature
                n = forest[t, n].left if X[s, f] < forest[t, n].threshold else forest[t, n].right
            score += booster["learning_rate"] * np.float64(forest[t, n].value)
        out[s] = 1 / (1 + math.exp(-score)) if booster["logistic"] else score
    return out


def test_boosted_trees_over_a_recarray_of_nodes_with_a_settings_record(cuda):
    @cuda.jit(device=True)
    def leaf_of(forest, t, x):
        n = 0
        while not forest[t, n].is_leaf:
            node = forest[t, n]
            n = node.left if x[node.feature] < node.threshold else node.right
        return n

    @cuda.jit(device=True)
    def link(booster, score):
        if booster.logistic:
            return 1.0 / (1.0 + math.exp(-score))
        return score

    @cuda.jit
    def predict(forest, booster, X, out):
        s = cuda.grid(1)
        if s < X.shape[0]:
            score = booster.base_score
            for t in range(booster["n_trees"]):
                score += booster.learning_rate * forest.value[t, leaf_of(forest, t, X[s])]
            out[s] = link(booster, score)

    rng = np.random.default_rng(5)
    forest = _random_forest(rng, 10, 4, 6)
    X = rng.normal(size=(96, 6)).astype(np.float32)
    settings = np.zeros(2, BOOSTER)
    settings[0] = (0.1, 0.5, 10, False)
    settings[1] = (0.3, -0.2, 8, True)                 # fewer trees, through the logistic link
    want = [_predict_reference(forest, b, X) for b in settings]
    for booster, w in ((settings[0], want[0]), (settings[1], want[1]),
                       (settings.view(np.recarray)[1], want[1])):
        out = np.zeros(X.shape[0])
        predict[(X.shape[0] + 63) // 64, 64](forest, booster, X, out)
        np.testing.assert_allclose(out, w, rtol=1e-12)
    d_forest = cuda.to_device(forest)                  # the forest kept on the device
    out = cuda.device_array(X.shape[0])
    predict[(X.shape[0] + 63) // 64, 64](d_forest, settings[1], cuda.to_device(X), out)
    np.testing.assert_allclose(out.copy_to_host(), want[1], rtol=1e-12)


# ---- geofencing: GPS points in polygons given as flat interleaved vertices with offsets ----

EARTH_KM = 6371.0


def _inside_reference(px, py, xy):
    inside = False
    n = xy.size // 2
    j = n - 1
    for i in range(n):
        xi, yi, xj, yj = xy[2 * i], xy[2 * i + 1], xy[2 * j], xy[2 * j + 1]
        if (yi > py) != (yj > py) and px < (xj - xi) * (py - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def _haversine_reference(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_KM * math.asin(math.sqrt(a))


def test_geofencing_points_against_polygons(cuda):
    @cuda.jit(device=True)
    def point_in_polygon(px, py, xy, first, count):
        inside = False
        j = count - 1
        for i in range(count):
            xi, yi = xy[2 * (first + i)], xy[2 * (first + i) + 1]
            xj, yj = xy[2 * (first + j)], xy[2 * (first + j) + 1]
            if ((yi > py) != (yj > py)) and px < (xj - xi) * (py - yi) / (yj - yi) + xi:
                inside = not inside
            j = i
        return inside

    @cuda.jit(device=True)
    def haversine(lat1, lon1, lat2, lon2):
        p1, p2 = math.radians(lat1), math.radians(lat2)
        a = math.sin((p2 - p1) / 2) ** 2 + \
            math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
        return 2 * EARTH_KM * math.asin(math.sqrt(a))

    @cuda.jit
    def fence(lon, lat, xy, offsets, zone, dist):
        p = cuda.grid(1)
        if p >= lon.size:
            return
        zone[p] = -1
        for z in range(offsets.size - 1):
            first, count = offsets[z], offsets[z + 1] - offsets[z]
            dist[p, z] = haversine(lat[p], lon[p], xy[2 * first + 1], xy[2 * first])
            if zone[p] < 0 and point_in_polygon(lon[p], lat[p], xy, first, count):
                zone[p] = z

    rng = np.random.default_rng(8)
    polygons = []
    for cx, cy, r, k in [(2.35, 48.85, 0.2, 7), (13.4, 52.5, 0.35, 9), (-0.12, 51.5, 0.25, 5)]:
        ang = np.sort(rng.uniform(0, 2 * np.pi, k))
        rad = r * rng.uniform(0.6, 1.0, k)
        polygons.append(np.column_stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)]))
    xy = np.concatenate([p.ravel() for p in polygons])
    offsets = np.cumsum([0] + [len(p) for p in polygons]).astype(np.int64)
    centres = np.array([[2.35, 48.85], [13.4, 52.5], [-0.12, 51.5]])
    pts = centres[rng.integers(0, 3, 400)] + rng.normal(scale=0.25, size=(400, 2))
    lon, lat = pts[:, 0], pts[:, 1]                  # strided column views
    zone = cuda.device_array(400, np.int32)
    dist = cuda.device_array_like(np.empty((400, 3)).T).T   # F-ordered, seen through .T
    fence[(400 + 127) // 128, 128](lon, lat, xy, offsets, zone, dist)
    want_zone = [next((z for z, poly in enumerate(polygons)
                       if _inside_reference(lon[p], lat[p], poly.ravel())), -1)
                 for p in range(400)]
    np.testing.assert_array_equal(zone.copy_to_host(), want_zone)
    assert len(set(want_zone)) == 4                     # each zone and outside all occur
    want_dist = [[_haversine_reference(lat[p], lon[p], poly[0, 1], poly[0, 0])
                  for poly in polygons] for p in range(400)]
    np.testing.assert_allclose(dist.copy_to_host(), want_dist, rtol=1e-12)
