"""Real-world patterns: results of unknown length built in lists.

Numba code in public projects collects what a loop finds in a list and turns it into an array
at the end (peak finders in signal-processing code, prime sieves in tutorials, run-length
encoders, breadth-first searches over CSR graphs, neighbour lists in particle codes). Written here
in the style of those projects, with `from numba import njit` switched to pyjit. Each is
compared with the same source run by CPython (`py_func`), and with Numba when it is installed.
"""
import numpy as np
import pytest

from pyjit import njit
from util import numba_or_none


@njit
def find_peaks(signal, threshold):
    peaks = []
    for i in range(1, signal.shape[0] - 1):
        if signal[i] > threshold and signal[i - 1] < signal[i] >= signal[i + 1]:
            peaks.append(i)
    return np.array(peaks)


@njit
def primes_below(n):
    sieve = np.ones(n, dtype=np.bool_)
    primes = []
    for p in range(2, n):
        if sieve[p]:
            primes.append(p)
            for k in range(p * p, n, p):
                sieve[k] = False
    return primes


@njit
def run_lengths(x):
    values = []
    counts = []
    if x.shape[0] == 0:
        return values, counts
    current, count = x[0], 1
    for i in range(1, x.shape[0]):
        if x[i] == current:
            count += 1
        else:
            values.append(current)
            counts.append(count)
            current, count = x[i], 1
    values.append(current)
    counts.append(count)
    return values, counts


@njit
def bfs_order(indptr, indices, start):
    n = indptr.shape[0] - 1
    seen = np.zeros(n, dtype=np.bool_)
    order = []
    queue = [start]
    seen[start] = True
    while len(queue) > 0:
        v = queue.pop(0)
        order.append(v)
        for k in range(indptr[v], indptr[v + 1]):
            w = indices[k]
            if not seen[w]:
                seen[w] = True
                queue.append(w)
    return order


@njit
def neighbour_lists(pos, cutoff):
    n = pos.shape[0]
    neighbours = []
    for i in range(n):
        mine = []
        for j in range(n):
            if i != j:
                d = 0.0
                for k in range(pos.shape[1]):
                    t = pos[i, k] - pos[j, k]
                    d += t * t
                if d < cutoff * cutoff:
                    mine.append(j)
        neighbours.append(mine)
    counts = np.zeros(n, dtype=np.int64)
    for i in range(n):
        counts[i] = len(neighbours[i])
    return neighbours, counts


def _same(a, b):
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _csr(n, seed):
    rng = np.random.default_rng(seed)
    edges = {(i, (i + 1) % n) for i in range(n)} | {tuple(rng.integers(0, n, 2)) for _ in range(2 * n)}
    adj = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    indptr = np.cumsum([0] + [len(x) for x in adj])
    return indptr, np.array([w for x in adj for w in sorted(x)], dtype=np.int64)


CASES = [
    (find_peaks, lambda: (np.sin(np.linspace(0, 20, 500)) + np.random.default_rng(1).normal(0, 0.1, 500), 0.5)),
    (primes_below, lambda: (200,)),
    (run_lengths, lambda: (np.array([1, 1, 2, 2, 2, 3, 1, 1]),)),
    (run_lengths, lambda: (np.array([], dtype=np.int64),)),
    (bfs_order, lambda: (*_csr(40, 3), 0)),
    (neighbour_lists, lambda: (np.random.default_rng(2).uniform(0, 1, (30, 2)), 0.3)),
]


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = make()
    got = f(*args)
    assert _same(f.py_func(*args), got)
    nb = numba_or_none(f)
    if nb is not None:
        assert _same(nb(*args), got)
