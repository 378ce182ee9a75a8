"""Real-world patterns: geodesy, sequence analysis and clustering code as public projects write it.

Great-circle distances four ways (a geomatching package's `math` version with Greek-letter names
and a `prange` filter over it, a trip-chaining study's tuple assignment of `np.radians` of
scalars, a spatial-treatment example's whole-array `np.subtract`/`np.power`/`np.multiply` calls,
a fastmath version over 2-vectors with type annotations), the Viterbi decoder of a secondary-
structure predictor (`np.multiply` of columns, `np.argmax`, `.astype(np.int32)`), a dolphin-call
aligner's Needleman-Wunsch with helpers and a default gap, the benchmark game's k-nucleotide
(substring counts in a dict, frequencies as a list of tuples, `dict.get` with a default), a
course's k-means given an explicit `Tuple((float32[:, :], int64[:]))(...)` signature with boolean
row masks and `np.sum(..., axis=0)`, dpbench's cluster assignment with `prange` and a -1
sentinel, and an image-processing class's flood-fill labelling with a list of tuples as a queue
(`pop(0)`, a list of neighbour tuples, `img[v]` indexed by a tuple). Restated in our own words
with the imports switched to pyjit; each is compared with CPython (`py_func`) and with Numba.
"""
import math

import numpy as np
import pytest

import pyjit as nb
from pyjit import jit, njit, prange
from util import numba_or_none


@jit(nopython=True)
def haversine_greek(lat1, lon1, lat2, lon2):
    R = 6371
    φ1 = lat1 * np.pi / 180
    φ2 = lat2 * np.pi / 180
    Δφ = (lat2 - lat1) * np.pi / 180
    Δλ = (lon2 - lon1) * np.pi / 180
    a = (math.sin(Δφ / 2) * math.sin(Δφ / 2)
         + math.cos(φ1) * math.cos(φ2) * math.sin(Δλ / 2) * math.sin(Δλ / 2))
    return R * 2 * math.atan2(math.sqrt(a), math.sqrt(1 - a))


@jit(nopython=True, parallel=True)
def within_distance(lats, lons, lat, lon, distance):
    result = np.full(lats.size, False)
    for i in prange(0, lats.size):
        result[i] = haversine_greek(lats[i], lons[i], lat, lon) <= distance
    return result


@njit
def haversine_feet(lon1, lat1, lon2, lat2):
    R = 3959.87433
    lon1, lat1, lon2, lat2 = np.radians(lon1), np.radians(lat1), np.radians(lon2), np.radians(lat2)
    dlat = lat2 - lat1
    dlon = lon2 - lon1
    a = np.sin(dlat / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin(dlon / 2) ** 2
    return R * 2 * np.arcsin(np.sqrt(a)) * 5280


@nb.jit
def distance_vec(lon1, lat1, lon2, lat2):
    lon1 = np.deg2rad(lon1)
    lat1 = np.deg2rad(lat1)
    lon2 = np.deg2rad(lon2)
    lat2 = np.deg2rad(lat2)
    dlon = np.subtract(lon2, lon1)
    dlat = np.subtract(lat2, lat1)
    a = np.add(np.power(np.sin(np.divide(dlat, 2)), 2),
               np.multiply(np.cos(lat1),
                           np.multiply(np.cos(lat2), np.power(np.sin(np.divide(dlon, 2)), 2))))
    return np.multiply(2, np.arcsin(np.sqrt(a))) * 6378137


@jit(nopython=True, fastmath=True)
def haversine_angle(p: np.ndarray, q: np.ndarray) -> float:
    d = q - p
    a = math.sin(d[0] / 2.0) ** 2 + math.cos(p[0]) * math.cos(q[0]) * math.sin(d[1] / 2.0) ** 2
    return 2 * math.atan2(math.sqrt(a), math.sqrt(1.0 - a))


@jit(nopython=True)
def viterbi(A, C, B, O):
    I = A.shape[0]   # noqa: E741
    N = len(O)
    D = np.zeros((I, N))
    E = np.zeros((I, N - 1)).astype(np.int32)
    D[:, 0] = np.multiply(C, B[:, O[0]])
    for n in range(1, N):
        for i in range(I):
            temp_product = np.multiply(A[:, i], D[:, n - 1])
            D[i, n] = np.max(temp_product) * B[i, O[n]]
            E[i, n - 1] = np.argmax(temp_product)
    S_opt = np.zeros(N).astype(np.int32)
    S_opt[-1] = np.argmax(D[:, -1])
    for n in range(N - 2, -1, -1):
        S_opt[n] = E[int(S_opt[n + 1]), n]
    return S_opt, D, E


@jit(nopython=True)
def max3(a, b, c):
    x = a
    if b > x:
        x = b
    if c > x:
        x = c
    return x


@jit(nopython=True)
def similarity(symbol_a, type_a, symbol_b, type_b):
    if symbol_a == symbol_b:
        return 1.0
    elif type_a == type_b:
        return 0.5
    return -1.0


@jit(nopython=True)
def needleman_wunsch(symbols_a, symbols_b, types_a, types_b, gap=-1):
    N = len(symbols_a)
    M = len(symbols_b)
    dp = np.zeros((N + 1, M + 1))
    dp[1:, 0] = -np.arange(1, N + 1)
    dp[0, 1:] = -np.arange(1, M + 1)
    for i in range(1, N + 1):
        for j in range(1, M + 1):
            match = similarity(symbols_a[i - 1], types_a[i - 1], symbols_b[j - 1], types_b[j - 1])
            dp[i, j] = max3(dp[i - 1, j - 1] + match, dp[i - 1, j] + gap, dp[i, j - 1] + gap)
    return dp


@njit
def base_counts(bases, seq):
    counts = {}
    size = len(seq) + 1 - bases
    for i in range(size):
        nucleo = seq[i: i + bases]
        if nucleo in counts:
            counts[nucleo] += 1
        else:
            counts[nucleo] = 1
    return counts


@njit
def sorted_freq(bases, seq):
    pairs = base_counts(bases, seq).items()
    size = len(seq) + 1 - bases
    return [(kv[0], 100.0 * kv[1] / size) for kv in pairs]


@njit
def specific_count(code, seq):
    return base_counts(len(code), seq).get(code, 0)


@njit(nb.types.Tuple((nb.float32[:, :], nb.int64[:]))(nb.float32[:, :], nb.float32[:, :],
                                                       nb.int64, nb.int64),
      parallel=True, fastmath=True)
def k_means(features, initial_centroids, num_centers, num_iterations):
    centroids = initial_centroids
    num_samples, num_features = features.shape
    dist = np.zeros((num_samples, num_centers), dtype=np.float32)
    for it in range(num_iterations + 1):
        for i in range(num_samples):
            for j in range(num_centers):
                dist[i, j] = np.sqrt(np.sum((features[i, :] - centroids[j, :]) ** 2))
        labels = np.array([dist[i, :].argmin() for i in range(num_samples)])
        if it == num_iterations:
            break
        for i in range(num_centers):
            centroids[i, :] = np.sum(features[labels == i, :], axis=0) / np.sum(labels == i)
    return centroids, labels


@nb.njit(parallel=True, fastmath=True)
def group_by_cluster(points, cluster, centroids, num_points, num_centroids):
    for i0 in nb.prange(num_points):
        minor_distance = -1
        for i1 in range(num_centroids):
            dx = points[i0, 0] - centroids[i1, 0]
            dy = points[i0, 1] - centroids[i1, 1]
            my_distance = np.sqrt(dx * dx + dy * dy)
            if minor_distance > my_distance or minor_distance == -1:
                minor_distance = my_distance
                cluster[i0] = i1
    return cluster


@njit
def flood_fill(img):
    num_rows, num_cols = img.shape
    labels = np.zeros((num_rows, num_cols), dtype=np.int64)
    current_label = 1
    for row in range(num_rows):
        for col in range(num_cols):
            if img[row, col] == 1 and labels[row, col] == 0:
                queue = []
                queue.append((row, col))
                labels[row, col] = current_label
                while len(queue) > 0:
                    here = queue.pop(0)
                    around = [(here[0], here[1] + 1), (here[0] + 1, here[1]),
                              (here[0], here[1] - 1), (here[0] - 1, here[1])]
                    for v in around:
                        if 0 <= v[0] < num_rows and 0 <= v[1] < num_cols:
                            if img[v] == 1 and labels[v] == 0:
                                labels[v] = current_label
                                queue.append(v)
                current_label += 1
    return labels


rng = np.random.default_rng(20)
_lat, _lon = rng.uniform(-60, 60, 40), rng.uniform(-170, 170, 40)
_dna = "".join(rng.choice(list("ACGT"), 300))
_A = np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.3, 0.6]])
_B = np.array([[0.7, 0.0, 0.3], [0.1, 0.9, 0.0], [0.0, 0.2, 0.8]])


def _features():
    f = np.concatenate([rng.normal(c, 0.3, size=(20, 3)) for c in (0.0, 2.0, 4.0)])
    return f.astype(np.float32), f[::20].astype(np.float32).copy()


CASES = [
    (haversine_greek, lambda: (48.14, 11.58, 52.52, 13.40)),
    (within_distance, lambda: (_lat, _lon, 10.0, 20.0, 5000.0)),
    (haversine_feet, lambda: (11.58, 48.14, 13.40, 52.52)),
    (distance_vec, lambda: (_lon, _lat, _lon[::-1].copy(), _lat[::-1].copy())),
    (haversine_angle, lambda: (np.radians([48.14, 11.58]), np.radians([52.52, 13.40]))),
    (viterbi, lambda: (_A, np.array([0.6, 0.2, 0.2]), _B, rng.integers(0, 3, 15))),
    (needleman_wunsch, lambda: (rng.integers(0, 4, 9), rng.integers(0, 4, 7),
                                rng.integers(0, 2, 9), rng.integers(0, 2, 7))),
    (base_counts, lambda: (2, _dna)),
    (sorted_freq, lambda: (1, _dna)),
    (specific_count, lambda: ("GGT", _dna)),
    (k_means, _features),
    (group_by_cluster, lambda: (rng.uniform(size=(30, 2)), np.zeros(30, np.int64),
                                rng.uniform(size=(4, 2)), 30, 4)),
    (flood_fill, lambda: ((rng.uniform(size=(12, 14)) < 0.45).astype(np.int64),)),
]
_EXTRA = {k_means: (3, 4)}   # the scalar arguments after the arrays


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, dict):
        assert dict(a).keys() == dict(b).keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype
        rtol = 1e-5 if a.dtype == np.float32 else 1e-9
        np.testing.assert_allclose(b, a, rtol=rtol, atol=1e-6 if a.dtype == np.float32 else 0)
    elif isinstance(a, (float, np.floating)):
        assert math.isclose(a, b, rel_tol=1e-9)
    else:
        assert a == b


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = tuple(make()) + _EXTRA.get(f, ())
    want = f.py_func(*_copies(args))
    _same(want, f(*_copies(args)))
    nb_f = numba_or_none(f)
    if nb_f is not None:
        _same(want, nb_f(*_copies(args)))


def test_k_means_signature_is_the_only_version():
    """An explicit signature compiles at decoration; float64 arguments are refused, as Numba's."""
    assert len(k_means.signatures) == 1
    with pytest.raises(TypeError):
        k_means(np.zeros((4, 3)), np.zeros((2, 3)), 2, 1)
