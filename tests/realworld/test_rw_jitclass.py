"""Real-world patterns with jitclass (numba.experimental.jitclass).

Public Numba code keeps state in jitclasses where a bundle of arrays would need many arguments:
a streaming accumulator updated chunk by chunk (running mean and variance per column, Welford's
method, as online-statistics and monitoring codes write it), and a binary min-heap of (distance,
node) pairs held in arrays that grow, driven by a Dijkstra search over a graph in CSR form (graph
and path-finding codes). Restated here in our own words. The one source below runs three ways:
with pyjit (`from pyjit.experimental import jitclass`), with Numba (the same text, its names bound
to Numba's), and in CPython (jitclass and njit as the identity); the results must agree.
"""
import numpy as np
import pytest

import pyjit
from pyjit import types as pyjit_types
from pyjit.experimental import jitclass as pyjit_jitclass
from util import numba_or_none

SOURCE = '''
@jitclass([("n", int64), ("mean", float64[:]), ("m2", float64[:]), ("lo", float64[:]),
           ("hi", float64[:])])
class OnlineStats:
    def __init__(self, ncols):
        self.n = 0
        self.mean = np.zeros(ncols)
        self.m2 = np.zeros(ncols)
        self.lo = np.full(ncols, np.inf)
        self.hi = np.full(ncols, -np.inf)

    def push(self, row):
        self.n += 1
        for j in range(row.shape[0]):
            x = row[j]
            delta = x - self.mean[j]
            self.mean[j] += delta / self.n
            self.m2[j] += delta * (x - self.mean[j])
            self.lo[j] = min(self.lo[j], x)
            self.hi[j] = max(self.hi[j], x)

    def push_chunk(self, chunk):
        for i in range(chunk.shape[0]):
            self.push(chunk[i])
        return self.n

    @property
    def variance(self):
        if self.n < 2:
            return np.zeros(self.mean.shape[0])
        return self.m2 / (self.n - 1)


@njit
def summarize(data, chunk):
    stats = OnlineStats(data.shape[1])
    for start in range(0, data.shape[0], chunk):
        stats.push_chunk(data[start:start + chunk])
    return stats.n, stats.mean, stats.variance, stats.hi - stats.lo


@jitclass([("keys", float64[:]), ("nodes", int64[:]), ("size", int64)])
class MinHeap:
    def __init__(self, capacity):
        self.keys = np.empty(capacity)
        self.nodes = np.empty(capacity, dtype=np.int64)
        self.size = 0

    def _swap(self, i, j):
        k, v = self.keys[i], self.nodes[i]
        self.keys[i], self.nodes[i] = self.keys[j], self.nodes[j]
        self.keys[j], self.nodes[j] = k, v

    def push(self, key, node):
        if self.size == self.keys.shape[0]:
            keys = np.empty(2 * self.size)
            nodes = np.empty(2 * self.size, dtype=np.int64)
            keys[:self.size] = self.keys
            nodes[:self.size] = self.nodes
            self.keys = keys
            self.nodes = nodes
        i = self.size
        self.keys[i] = key
        self.nodes[i] = node
        self.size += 1
        while i > 0:
            parent = (i - 1) // 2
            if self.keys[parent] <= self.keys[i]:
                break
            self._swap(i, parent)
            i = parent

    def pop(self):
        key, node = self.keys[0], self.nodes[0]
        self.size -= 1
        self.keys[0], self.nodes[0] = self.keys[self.size], self.nodes[self.size]
        i = 0
        while True:
            left, smallest = 2 * i + 1, i
            if left < self.size and self.keys[left] < self.keys[smallest]:
                smallest = left
            if left + 1 < self.size and self.keys[left + 1] < self.keys[smallest]:
                smallest = left + 1
            if smallest == i:
                break
            self._swap(i, smallest)
            i = smallest
        return key, node

    def __len__(self):
        return self.size


@njit
def dijkstra(indptr, indices, weights, source):
    n = indptr.shape[0] - 1
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    heap = MinHeap(2)
    heap.push(0.0, source)
    settled = 0
    while len(heap) > 0:
        d, u = heap.pop()
        if d > dist[u]:
            continue
        settled += 1
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            nd = d + weights[k]
            if nd < dist[v]:
                dist[v] = nd
                heap.push(nd, v)
    return dist, settled
'''


def _identity_jitclass(spec):
    return lambda cls: cls


def _namespace(flavour):
    ns = {"np": np}
    if flavour == "pyjit":
        ns.update(jitclass=pyjit_jitclass, njit=pyjit.njit, int64=pyjit_types.int64,
                  float64=pyjit_types.float64)
    elif flavour == "numba":
        numba = pytest.importorskip("numba")
        from numba.experimental import jitclass
        ns.update(jitclass=jitclass, njit=numba.njit, int64=numba.int64, float64=numba.float64)
    else:
        ns.update(jitclass=_identity_jitclass, njit=lambda f: f, int64=pyjit_types.int64,
                  float64=pyjit_types.float64)
    exec(compile(SOURCE, f"<jitclass patterns, {flavour}>", "exec"), ns)  # noqa: S102
    return ns


@pytest.fixture(scope="module")
def flavours():
    found = {"pyjit": _namespace("pyjit"), "python": _namespace("python")}
    if numba_or_none(pyjit.njit(lambda: 0)) is not None:
        found["numba"] = _namespace("numba")
    return found


def _random_graph(n, degree, seed):
    rng = np.random.default_rng(seed)
    indptr = np.arange(0, n * degree + 1, degree, dtype=np.int64)
    indices = rng.integers(0, n, n * degree).astype(np.int64)
    weights = rng.random(n * degree) + 0.01
    return indptr, indices, weights


def _same(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        np.testing.assert_allclose(b, a, rtol=1e-12)


@pytest.mark.parametrize("rows, chunk", [(1, 4), (57, 8), (400, 33)])
def test_online_stats_chunks(flavours, rows, chunk):
    data = np.random.default_rng(rows).normal(size=(rows, 3)) * [1.0, 10.0, 0.1]
    expected = flavours["python"]["summarize"](data, chunk)
    for name in ("pyjit", "numba"):
        if name in flavours:
            _same(expected, flavours[name]["summarize"](data, chunk))
    assert expected[0] == rows
    if rows > 1:
        np.testing.assert_allclose(expected[2], data.var(axis=0, ddof=1))


def test_numba_ran_the_same_source(flavours):
    """Numba is installed with the tests (outside the sanitizer runs): the comparison ran."""
    if numba_or_none(pyjit.njit(lambda: 0)) is not None:
        assert "numba" in flavours
        assert type(flavours["numba"]["OnlineStats"]).__module__.startswith("numba.")


def test_online_stats_used_from_python(flavours):
    """The accumulator made in Python, fed chunk by chunk across calls, read as attributes."""
    data = np.random.default_rng(3).random((90, 2))
    stats = flavours["pyjit"]["OnlineStats"](2)
    for start in range(0, 90, 25):
        stats.push_chunk(data[start:start + 25])
    assert stats.n == 90
    np.testing.assert_allclose(stats.mean, data.mean(axis=0))
    np.testing.assert_allclose(stats.variance, data.var(axis=0, ddof=1))
    np.testing.assert_allclose(stats.hi - stats.lo, np.ptp(data, axis=0))


@pytest.mark.parametrize("n, degree", [(1, 1), (50, 3), (2000, 4)])
def test_dijkstra_heap(flavours, n, degree):
    graph = _random_graph(n, degree, seed=n)
    expected = flavours["python"]["dijkstra"](*graph, 0)
    for name in ("pyjit", "numba"):
        if name in flavours:
            _same(expected, flavours[name]["dijkstra"](*graph, 0))


def test_heap_from_python(flavours):
    heap = flavours["pyjit"]["MinHeap"](1)
    keys = np.random.default_rng(5).random(40)
    for i, k in enumerate(keys):
        heap.push(k, i)
    assert len(heap) == 40 and heap.keys.shape[0] == 64   # grown twice over
    popped = [heap.pop() for _ in range(40)]
    assert [k for k, _ in popped] == sorted(keys)
    assert all(keys[i] == k for k, i in popped)
