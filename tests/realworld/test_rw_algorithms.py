"""Real-world patterns: classic algorithms as public projects compile them with Numba.

Edit distances between strings (a NumPy table filled with `min` of three, and a list-of-lists
table built by a comprehension), the longest common subsequence read back into a string, a
recursive quicksort and a memo-free recursive Fibonacci, union-find with path compression
labelling connected components, Floyd-Warshall over a distance matrix, Dijkstra's algorithm over
a CSR graph with a `heapq` of tuples, a sieve of Eratosthenes, ray casting for points in a
polygon, Andrew's monotone-chain convex hull with a list as a stack, and Moeller-Trumbore
ray-triangle intersection with `np.cross` and `np.dot`. Restated from text-processing,
bioinformatics, graph, geometry and course code with `from numba import njit` switched to pyjit;
each is compared with CPython (`py_func`) and with Numba.
"""
import heapq

import numpy as np
import pytest

from pyjit import njit
from util import numba_or_none


@njit(fastmath=True)
def levenshtein(a, b):
    m = len(a)
    n = len(b)
    d = np.zeros((m + 1, n + 1), dtype=np.uintc)
    for i in range(m + 1):
        d[i, 0] = i
    for j in range(n + 1):
        d[0, j] = j
    for j in range(1, n + 1):
        for i in range(1, m + 1):
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + int(a[i - 1] != b[j - 1]))
    return d[m, n]


@njit(cache=False)
def edit_distance_lists(a, b):
    m, n = len(a), len(b)
    dp = [[0] * (n + 1) for _ in range(m + 1)]
    for j in range(n + 1):
        dp[0][j] = j
    for i in range(m + 1):
        dp[i][0] = i
    for i in range(1, m + 1):
        ai = a[i - 1]
        row = dp[i]
        prev = dp[i - 1]
        for j in range(1, n + 1):
            cost = 0 if ai == b[j - 1] else 1
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost)
    return dp[m][n]


@njit
def lcs(a, b):
    m, n = len(a), len(b)
    L = np.zeros((m + 1, n + 1), dtype=np.int64)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if a[i - 1] == b[j - 1]:
                L[i, j] = L[i - 1, j - 1] + 1
            else:
                L[i, j] = max(L[i - 1, j], L[i, j - 1])
    out = ""
    i, j = m, n
    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            out = a[i - 1] + out
            i -= 1
            j -= 1
        elif L[i - 1, j] >= L[i, j - 1]:
            i -= 1
        else:
            j -= 1
    return L[m, n], out


@njit
def partition(a, lo, hi):
    pivot = a[hi]
    i = lo
    for j in range(lo, hi):
        if a[j] < pivot:
            a[i], a[j] = a[j], a[i]
            i += 1
    a[i], a[hi] = a[hi], a[i]
    return i


@njit
def quicksort(a, lo, hi):
    if lo < hi:
        p = partition(a, lo, hi)
        quicksort(a, lo, p - 1)
        quicksort(a, p + 1, hi)


@njit
def sort_copy(a):
    b = a.copy()
    quicksort(b, 0, b.shape[0] - 1)
    return b


@njit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@njit
def find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@njit
def connected_components(n, edges):
    parent = np.arange(n)
    rank = np.zeros(n, dtype=np.int64)
    for k in range(edges.shape[0]):
        ra = find(parent, edges[k, 0])
        rb = find(parent, edges[k, 1])
        if ra == rb:
            continue
        if rank[ra] < rank[rb]:
            ra, rb = rb, ra
        parent[rb] = ra
        if rank[ra] == rank[rb]:
            rank[ra] += 1
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        labels[i] = find(parent, i)
    return labels, len(set(labels))


@njit
def floyd_warshall(dist):
    n = dist.shape[0]
    d = dist.copy()
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i, k] + d[k, j] < d[i, j]:
                    d[i, j] = d[i, k] + d[k, j]
    return d


@njit
def dijkstra(indptr, indices, weights, source):
    n = indptr.shape[0] - 1
    dist = np.full(n, np.inf)
    prev = np.full(n, -1, dtype=np.int64)
    dist[source] = 0.0
    heap = [(0.0, source)]
    while len(heap) > 0:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            nd = d + weights[k]
            if nd < dist[v]:
                dist[v] = nd
                prev[v] = u
                heapq.heappush(heap, (nd, v))
    return dist, prev


@njit
def sieve(n):
    is_prime = np.ones(n + 1, dtype=np.bool_)
    is_prime[:2] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            is_prime[i * i::i] = False
        i += 1
    return np.nonzero(is_prime)[0]


@njit
def point_in_polygon(x, y, poly):
    n = len(poly)
    inside = False
    p1x, p1y = poly[0]
    for i in range(n + 1):
        p2x, p2y = poly[i % n]
        if y > min(p1y, p2y):
            if y <= max(p1y, p2y):
                if x <= max(p1x, p2x):
                    if p1y != p2y:
                        xints = (y - p1y) * (p2x - p1x) / (p2y - p1y) + p1x
                    if p1x == p2x or x <= xints:
                        inside = not inside
        p1x, p1y = p2x, p2y
    return inside


@njit
def points_in_polygon(points, poly):
    out = np.empty(points.shape[0], dtype=np.bool_)
    for i in range(points.shape[0]):
        out[i] = point_in_polygon(points[i, 0], points[i, 1], poly)
    return out


@njit
def cross2(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


@njit
def convex_hull(points):
    order = np.lexsort((points[:, 1], points[:, 0]))
    pts = points[order]
    lower = []
    for k in range(pts.shape[0]):
        while len(lower) >= 2 and cross2(pts[lower[-2]], pts[lower[-1]], pts[k]) <= 0:
            lower.pop()
        lower.append(k)
    upper = []
    for k in range(pts.shape[0] - 1, -1, -1):
        while len(upper) >= 2 and cross2(pts[upper[-2]], pts[upper[-1]], pts[k]) <= 0:
            upper.pop()
        upper.append(k)
    hull = lower[:-1] + upper[:-1]
    out = np.empty((len(hull), 2))
    for i, k in enumerate(hull):
        out[i] = pts[k]
    return out


@njit
def ray_triangle(orig, direction, v0, v1, v2):
    eps = 1e-9
    e1 = v1 - v0
    e2 = v2 - v0
    p = np.cross(direction, e2)
    det = np.dot(e1, p)
    if abs(det) < eps:
        return -1.0
    inv = 1.0 / det
    t = orig - v0
    u = np.dot(t, p) * inv
    if u < 0.0 or u > 1.0:
        return -1.0
    q = np.cross(t, e1)
    v = np.dot(direction, q) * inv
    if v < 0.0 or u + v > 1.0:
        return -1.0
    return np.dot(e2, q) * inv


@njit
def first_hits(origins, direction, tris):
    out = np.full(origins.shape[0], np.inf)
    for i in range(origins.shape[0]):
        for k in range(tris.shape[0]):
            t = ray_triangle(origins[i], direction, tris[k, 0], tris[k, 1], tris[k, 2])
            if t > 0 and t < out[i]:
                out[i] = t
    return out


rng = np.random.default_rng(3)


def _graph():
    n = 12
    rows = [[] for _ in range(n)]
    for _ in range(30):
        a, b = rng.integers(0, n, 2)
        rows[a].append((int(b), float(rng.uniform(0.5, 3.0))))
    indptr = np.zeros(n + 1, dtype=np.int64)
    idx, w = [], []
    for i, r in enumerate(rows):
        indptr[i + 1] = indptr[i] + len(r)
        idx += [b for b, _ in r]
        w += [x for _, x in r]
    return indptr, np.array(idx, dtype=np.int64), np.array(w), 0


def _dist_matrix():
    d = rng.uniform(1, 10, (8, 8))
    d[rng.uniform(size=(8, 8)) < 0.4] = np.inf
    np.fill_diagonal(d, 0.0)
    return (d,)


_POLY = [(0.0, 0.0), (4.0, 0.0), (4.0, 3.0), (2.0, 5.0), (0.0, 3.0)]
_TRIS = rng.uniform(-1, 1, (6, 3, 3)) + np.array([0.0, 0.0, 3.0])

CASES = [
    (levenshtein, lambda: ("kitten sitting", "sitting kitten")),
    (levenshtein, lambda: ("", "abc")),
    (edit_distance_lists, lambda: ("intention", "execution")),
    (lcs, lambda: ("AGGTABQXT", "GXTXAYBQT")),
    (sort_copy, lambda: (rng.integers(0, 100, 40),)),
    (sort_copy, lambda: (rng.normal(size=33),)),
    (fib, lambda: (18,)),
    (connected_components, lambda: (15, rng.integers(0, 15, (9, 2)))),
    (floyd_warshall, _dist_matrix),
    (dijkstra, _graph),
    (sieve, lambda: (200,)),
    (points_in_polygon, lambda: (rng.uniform(-1, 5, (30, 2)), _POLY)),
    (convex_hull, lambda: (rng.normal(size=(40, 2)),)),
    (first_hits, lambda: (np.column_stack([rng.uniform(-1, 1, (10, 2)), np.zeros(10)]),
                          np.array([0.0, 0.0, 1.0]), _TRIS)),
]


def _same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and np.allclose(a, b, equal_nan=True)
    return a == b or (isinstance(a, float) and np.isclose(a, b))


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = make()
    want = f.py_func(*args)
    assert _same(f(*args), want)
    nb = numba_or_none(f)
    if nb is not None:
        try:
            got = nb(*args)
        except Exception as exc:   # noqa: BLE001 - what this Numba cannot compile (np.lexsort)
            assert type(exc).__name__ == "TypingError", exc
            return
        assert _same(got, want)
