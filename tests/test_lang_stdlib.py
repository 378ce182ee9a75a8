"""Python's heapq and operator modules in compiled code, enumerate() and zip() over ranges, and
a range's start/stop/step: each compared with CPython running the same source."""
import heapq
import operator

import numpy as np
import pytest

from pyjit import njit
from pyjit.errors import TypingError


def _same(f, *args):
    want = f(*[a.copy() if hasattr(a, "copy") else a for a in args])
    got = njit(f)(*args)
    assert got == want
    return got


# ---- heapq ----

def heap_round_trip(vals):
    h = list(vals)
    heapq.heapify(h)
    layout = list(h)
    heapq.heappush(h, 0.5)
    pushed_popped = heapq.heappushpop(h, 100.0)
    replaced = heapq.heapreplace(h, -1.0)
    out = []
    while h:
        out.append(heapq.heappop(h))
    return layout, out, pushed_popped, replaced


def heap_of_tuples(n):
    h = [(9, -1)]   # seeded, as Numba needs too: an empty list's items have no type yet
    for i in range(n):
        heapq.heappush(h, ((i * 7) % 5, i))
    return [heapq.heappop(h) for _ in range(len(h))]


def dijkstra(n):
    adj = [[(1, 4.0), (2, 1.0)], [(3, 1.0)], [(1, 2.0), (3, 5.0)], [(0, 1.0)]]
    dist = [np.inf] * n
    dist[0] = 0.0
    pq = [(0.0, 0)]
    while pq:
        d, u = heapq.heappop(pq)
        if d > dist[u]:
            continue
        for v, w in adj[u]:
            if d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(pq, (dist[v], v))
    return dist


def extremes(vals, n):
    items = list(vals)
    return heapq.nsmallest(n, items), heapq.nlargest(n, items)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 20])
def test_heap_operations_keep_cpythons_layout(n):
    vals = np.random.default_rng(n).integers(0, 10, n).astype(np.float64)   # with ties
    _same(heap_round_trip, vals)


def test_pop_of_an_empty_heap_raises():
    def pop_empty(n):
        h = [1.0]
        heapq.heappop(h)
        return heapq.heappop(h)
    with pytest.raises(IndexError, match="index out of range"):
        njit(pop_empty)(0)


def test_heaps_of_tuples_and_a_shortest_path():
    _same(heap_of_tuples, 12)
    _same(dijkstra, 4)


@pytest.mark.parametrize("n", [-1, 0, 3, 50])
def test_nsmallest_nlargest(n):
    _same(extremes, np.random.default_rng(1).integers(0, 5, 9), n)


def test_heap_of_something_else_names_it():
    def bad(a):
        heapq.heapify(a)
    with pytest.raises(TypingError, match="takes a list as the heap"):
        njit(bad)(np.arange(3))


# ---- operator ----

def operator_calls(n, x):
    a = np.arange(3.0)
    b = operator.iadd(a, 1.0)   # in place, as a += 1.0
    lst = [1, 2, 3]
    operator.setitem(lst, 0, 9)
    return (operator.add(n, 2), operator.sub(n, x), operator.mul(n, 3), operator.truediv(n, 2),
            operator.floordiv(-n, 2), operator.mod(-n, 4), operator.pow(n, 2),
            operator.neg(n), operator.pos(x), operator.abs(-x), operator.invert(n),
            operator.lt(1, n), operator.ge(x, n), operator.eq("a", "a"), operator.ne(n, x),
            operator.and_(n, 6), operator.or_(n, 8), operator.xor(n, 1), operator.lshift(n, 2),
            operator.rshift(n, 1), operator.not_(n), operator.truth(0), operator.index(n),
            operator.getitem((1, 2, 3), 1), operator.contains(lst, 2), lst[0],
            b.sum(), a.sum(), operator.is_(None, None), operator.concat("ab", "c"))


def test_operator_functions_are_their_operators():
    _same(operator_calls, 5, 2.5)


# ---- enumerate and zip over ranges; range fields ----

def range_loops(n):
    r = range(2, n, 3)
    pairs = [i * x for i, x in enumerate(r, 1)]
    diffs = [a - b for a, b in zip(range(n, 0, -2), r)]
    total = 0
    for i, (a, b) in enumerate(zip(range(n), range(1, n + 1))):
        total += i * a * b
    return r.start, r.stop, r.step, pairs, diffs, total, [k for k, _ in enumerate(range(n))]


@pytest.mark.parametrize("n", [-3, 0, 1, 2, 11])
def test_enumerate_and_zip_over_ranges(n):
    _same(range_loops, n)


def test_range_has_no_other_attribute():
    def bad(n):
        return range(n).size
    with pytest.raises(TypingError, match="range has no attribute 'size'"):
        njit(bad)(3)
