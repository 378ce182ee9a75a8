"""Real-world patterns: dicts and sets in numeric code.

Numba code in public projects counts labels or k-mers in a dict, groups the rows of a table by a
key column, keeps the visited nodes of a graph search in a set, drops duplicate edges through a
set of pairs and maps sparse coordinates to values. Written here in the style of those projects,
with `from numba import njit` switched to pyjit. Each is compared with the same source run by
CPython (`py_func`), and with Numba when it is installed.
"""
import numpy as np
import pytest

from pyjit import njit
from pyjit.typed import Dict
from util import numba_or_none


@njit
def label_counts(labels):
    counts = {}
    for x in labels:
        if x in counts:
            counts[x] += 1
        else:
            counts[x] = 1
    keys = np.empty(len(counts), dtype=np.int64)
    values = np.empty(len(counts), dtype=np.int64)
    i = 0
    for k in counts:
        keys[i] = k
        values[i] = counts[k]
        i += 1
    return keys, values


@njit
def group_sums(keys, values):
    """The sum and count of the values of each key (a group-by on one column)."""
    sums = {}
    sizes = {}
    for i in range(keys.shape[0]):
        k = keys[i]
        if k in sums:
            sums[k] += values[i]
            sizes[k] += 1
        else:
            sums[k] = values[i]
            sizes[k] = 1
    out = np.empty((len(sums), 3))
    i = 0
    for k in sums:
        out[i, 0] = k
        out[i, 1] = sums[k]
        out[i, 2] = sizes[k]
        i += 1
    return out


@njit
def reachable(indptr, indices, start):
    """Depth-first search over a CSR graph, the visited nodes in a set."""
    seen = {start}
    stack = [start]
    order = []
    while len(stack) > 0:
        v = stack.pop()
        order.append(v)
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return np.array(order), len(seen)


@njit
def unique_edges(edges):
    """Undirected edges with duplicates and both orientations, each kept once in first-seen order."""
    seen = set()
    keep = []
    for i in range(edges.shape[0]):
        a, b = edges[i, 0], edges[i, 1]
        key = (min(a, b), max(a, b))
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return np.array(keep)


@njit
def sparse_accumulate(rows, cols, vals):
    """COO triplets summed by (row, col), as a sparse assembly does, then read back in order."""
    acc = {}
    for i in range(rows.shape[0]):
        key = (rows[i], cols[i])
        if key in acc:
            acc[key] += vals[i]
        else:
            acc[key] = vals[i]
    out = np.empty((len(acc), 3))
    i = 0
    for k in acc:
        out[i, 0] = k[0]
        out[i, 1] = k[1]
        out[i, 2] = acc[k]
        i += 1
    return out


def _same(a, b):
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=0)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, Dict)):
        return list(a.items()) == list(b.items())
    return a == b


def _csr(n, seed):
    rng = np.random.default_rng(seed)
    adj = [[] for _ in range(n)]
    for a, b in rng.integers(0, n, (2 * n, 2)):
        adj[a].append(b)
        adj[b].append(a)
    indptr = np.cumsum([0] + [len(x) for x in adj])
    return indptr, np.array([w for x in adj for w in x], dtype=np.int64)


RNG = np.random.default_rng(7)
CASES = [
    (label_counts, lambda: (RNG.integers(0, 50, 2000),)),
    (group_sums, lambda: (RNG.integers(-5, 5, 500), RNG.random(500))),
    (reachable, lambda: (*_csr(60, 3), 0)),
    (unique_edges, lambda: (RNG.integers(0, 20, (200, 2)),)),
    (sparse_accumulate, lambda: (RNG.integers(0, 8, 300), RNG.integers(0, 8, 300), RNG.random(300))),
]


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = make()
    got = f(*args)
    assert _same(f.py_func(*args), got)
    nb = numba_or_none(f)
    if nb is not None:
        assert _same(nb(*args), got)
