"""Real-world patterns: jitclasses and typed containers holding a program's state.

A hydrology package's graphs of flat cells as jitclasses typed by class annotations
(`flat_edges: ListType(ListType(UniTuple(int64, 2)))`, `Array(int64, 1, "C")`, `int`): a local
graph built per tile (a typed list of typed lists of (cell, distance) pairs, edges skipped where a
shorter path exists), added into a global graph (a jitclass passed to another's method, `extend`,
`enumerate` over a typed list) and solved by Dijkstra with `heapq` over a typed list, the edge
kind chosen by a string; Numba's documented Bag (a property, a staticmethod) and a Box with a
property setter; a simulation module keeping a typed dict of histories (`DictType(unicode_type,
float64[:])` in the spec); a typed dict of arrays made in compiled code and read from Python; tiles
of an array kept in a typed list of 2-d arrays; a sparse vector in a `Dict.empty(int64, float32)`;
the union length of intervals given as a list of tuples; RK4 and Euler steps passed as functions
to a fixed-step driver (`solve_to(step, f, ...)`); inner functions used inside comprehensions.
Restated in our own words. One source runs with pyjit, with Numba (the same text, its names
bound to Numba's) and in CPython (the decorators as the identity, typed containers as list and
dict); the results must agree.
"""
import heapq  # noqa: F401  (the source's)

import numpy as np
import pytest

import pyjit
from util import numba_or_none

SOURCE = '''
Int64Pair = UniTuple(int64, 2)
Int64PairList = ListType(Int64Pair)
Int64PairListList = ListType(Int64PairList)


@jitclass
class LocalGraph:
    flat_edges: Int64PairListList
    high_edges: Int64PairList
    low_edges: Int64PairList
    tile_index: int

    def __init__(self, to_higher, to_lower, min_dists, tile_index: int):
        self.tile_index = tile_index
        cell_count = to_higher.size
        self.flat_edges = self._shortest_adjacency(min_dists)
        offset = self.tile_index * cell_count
        self.high_edges = List.empty_list(Int64Pair)
        self.low_edges = List.empty_list(Int64Pair)
        for i, distance in enumerate(to_higher):
            if distance != 0:
                self.high_edges.append((i + offset, distance))
        for i, distance in enumerate(to_lower):
            if distance != 0:
                self.low_edges.append((i + offset, distance))

    def _shortest_adjacency(self, dist):
        n = dist.shape[0]
        adjacency = List.empty_list(Int64PairList)
        for _ in range(n):
            adjacency.append(List.empty_list(Int64Pair))
        for i in range(n):
            for j in range(i + 1, n):
                if dist[i][j] != 0:
                    direct = True
                    for k in range(n):
                        if k != i and k != j and dist[i][k] + dist[k][j] == dist[i][j]:
                            direct = False
                            break
                    if direct:
                        adjacency[i].append((j + self.tile_index * n, dist[i][j]))
                        adjacency[j].append((i + self.tile_index * n, dist[i][j]))
        return adjacency


@jitclass
class GlobalGraph:
    flat_edges: Int64PairListList
    high_edges: Int64PairList
    low_edges: Int64PairList
    solved_high: Array(int64, 1, "C")
    solved_low: Array(int64, 1, "C")
    n_tiles: int
    cells_per_tile: int

    def __init__(self, n_tiles: int, cells_per_tile: int):
        self.n_tiles = n_tiles
        self.cells_per_tile = cells_per_tile
        size = n_tiles * cells_per_tile
        self.flat_edges = List.empty_list(Int64PairList)
        for _ in range(size):
            self.flat_edges.append(List.empty_list(Int64Pair))
        self.high_edges = List.empty_list(Int64Pair)
        self.low_edges = List.empty_list(Int64Pair)
        self.solved_high = np.zeros(size, dtype=np.int64)
        self.solved_low = np.zeros(size, dtype=np.int64)

    def add(self, local: LocalGraph):
        for local_index, edges in enumerate(local.flat_edges):
            self.flat_edges[local_index + local.tile_index * len(local.flat_edges)] = edges
        self.high_edges.extend(local.high_edges)
        self.low_edges.extend(local.low_edges)

    def join(self, i: int, j: int):
        self.flat_edges[i].append((j, 1))
        self.flat_edges[j].append((i, 1))

    def _init_heap(self, edges, solved):
        pq = List.empty_list(Int64Pair)
        for neighbor, weight in edges:
            if self.solved_low[neighbor] == 1:
                continue
            solved[neighbor] = weight
            heapq.heappush(pq, (weight, neighbor))
        return pq

    def _dijkstra(self, edge_type: str):
        solved = self.solved_low if edge_type == "low" else self.solved_high
        pq = self._init_heap(self.low_edges if edge_type == "low" else self.high_edges, solved)
        while pq:
            dist, node = heapq.heappop(pq)
            if 0 < solved[node] < dist:
                continue
            for neighbor, weight in self.flat_edges[node]:
                if self.solved_low[neighbor] == 1:
                    continue
                if solved[neighbor] == 0 or dist + weight < solved[neighbor]:
                    solved[neighbor] = dist + weight
                    heapq.heappush(pq, (dist + weight, neighbor))

    def solve(self):
        self._dijkstra("low")
        self._dijkstra("high")
        return (self.solved_low.reshape((self.n_tiles, self.cells_per_tile)),
                self.solved_high.reshape((self.n_tiles, self.cells_per_tile)))


@jitclass([("value", int32), ("array", float32[:])])
class Bag(object):
    def __init__(self, value):
        self.value = value
        self.array = np.zeros(value, dtype=np.float32)

    @property
    def size(self):
        return self.array.size

    def increment(self, val):
        for i in range(self.size):
            self.array[i] += val
        return self.array

    @staticmethod
    def add(x, y):
        return x + y


@njit
def use_bag(n):
    b = Bag(n)
    b.increment(2.5)
    b.increment(1.0)
    return b.array.sum(), b.size, Bag.add(b.value, 3)


@jitclass([("val", uint32)])
class Box:
    def __init__(self, val):
        self.val = val

    def inc(self):
        self.val += 1

    @property
    def value(self):
        return self.val

    @value.setter
    def value(self, new_value):
        self.val = new_value


@njit
def property_access(n):
    acc = 0
    b = Box(10)
    for i in range(n):
        b.inc()
        acc += b.value
        if i % 7 == 0:
            b.value = 3
    return acc


@jitclass([("id", types.unicode_type), ("kind", types.unicode_type),
           ("history", types.DictType(types.unicode_type, types.float64[:]))])
class Module(object):
    def __init__(self, name):
        self.id = name
        self.kind = "Generic"
        self.history = Dict.empty(key_type=types.unicode_type, value_type=types.float64[:])

    def record(self, key, n):
        self.history[key] = np.linspace(0.0, 1.0, n)

    def total(self):
        t = 0.0
        for v in self.history.values():
            t += v.sum()
        return t


@njit
def dict_of_arrays():
    d = Dict.empty(key_type=types.unicode_type, value_type=types.float64[:])
    d["posx"] = np.arange(3).astype(np.float64)
    d["posy"] = np.arange(3, 6).astype(np.float64)
    return d


@njit
def weighted_total(d):
    s = 0.0
    for k, v in d.items():
        s += v.sum() * len(k)
    return s


@njit
def tiles_of(a, size):
    out = List()
    for i in range(0, a.shape[0], size):
        for j in range(0, a.shape[1], size):
            out.append(np.ascontiguousarray(a[i:i + size, j:j + size]))
    return out


@njit
def tile_sums(tiles):
    s = np.zeros(len(tiles), dtype=np.int64)
    for i, t in enumerate(tiles):
        s[i] = t.sum()
    return s


@njit
def sparse_add(a_idx, a_val, b_idx, b_val):
    d = Dict.empty(key_type=int64, value_type=float32)
    for i in range(a_idx.shape[0]):
        d[a_idx[i]] = d.get(a_idx[i], float32(0)) + a_val[i]
    for i in range(b_idx.shape[0]):
        d[b_idx[i]] = d.get(b_idx[i], float32(0)) + b_val[i]
    keys = np.array(sorted(d.keys()))
    vals = np.empty(len(keys), dtype=np.float32)
    for i, k in enumerate(keys):
        vals[i] = d[k]
    return keys, vals


@njit
def union_length(intervals):
    xs = sorted(intervals)
    total = 0.0
    lo, hi = xs[0]
    for a, b in xs[1:]:
        if a > hi:
            total += hi - lo
            lo, hi = a, b
        else:
            hi = max(hi, b)
    return total + hi - lo


@njit
def euler_step(func, x0, t0, h):
    return x0 + func(t0, x0) * h


@njit
def rk4_step(func, x0, t0, h):
    k1 = h * func(t0, x0)
    k2 = h * func(t0 + h / 2, x0 + k1 / 2)
    k3 = h * func(t0 + h / 2, x0 + k2 / 2)
    k4 = h * func(t0 + h, x0 + k3)
    return x0 + (k1 + 2 * k2 + 2 * k3 + k4) / 6


@njit
def solve_to(step, f, x0, t0, t1, hmax):
    t = t0
    x = x0
    while t + hmax < t1:
        x = step(f, x, t, hmax)
        t += hmax
    return step(f, x, t, t1 - t)


@njit
def oscillator(t, x):
    return np.array([x[1], -x[0]])


@njit
def integrate_both(x0, t1):
    return solve_to(rk4_step, oscillator, x0, 0.0, t1, 0.01), \\
        solve_to(euler_step, oscillator, x0, 0.0, t1, 0.001)


@njit
def scaled_in_comprehensions(a, k):
    def scale(x):
        return x * k

    def twice(x):
        return scale(scale(x))
    return (np.array([scale(v) for v in a]), [twice(v) for v in a],
            sum(scale(v) for v in a), {int(v): twice(v) for v in a})
'''


class _Any:
    """Stands for Numba's type objects in plain Python: callable, indexable, with any attribute."""

    def __call__(self, *args, **kws):
        return self

    def __getitem__(self, key):
        return self

    def __getattr__(self, name):
        return self


class _Float32(_Any):
    """float32 in plain Python: a type in specs (float32[:]) and NumPy's float32 when called."""

    def __call__(self, x):
        return np.float32(x)


class _PyList(list):
    @staticmethod
    def empty_list(item_type):
        return _PyList()


class _PyDict(dict):
    @staticmethod
    def empty(key_type, value_type):
        return _PyDict()


def _identity_jitclass(cls_or_spec=None, spec=None):
    if isinstance(cls_or_spec, type):
        return cls_or_spec
    return lambda cls: cls


def _namespace(flavour):
    ns = {"np": np, "heapq": heapq}
    names = ("UniTuple", "ListType", "Array", "int64", "int32", "uint32", "float32", "types")
    if flavour == "python":
        anything = _Any()
        ns.update({n: anything for n in names})
        ns.update(njit=lambda f: f, jitclass=_identity_jitclass, List=_PyList, Dict=_PyDict,
                  float32=_Float32())
    else:
        lib = pytest.importorskip("numba") if flavour == "numba" else pyjit
        experimental = __import__(f"{lib.__name__}.experimental", fromlist=["jitclass"])
        typed = __import__(f"{lib.__name__}.typed", fromlist=["List"])
        ns.update(njit=lib.njit, jitclass=experimental.jitclass, List=typed.List,
                  Dict=typed.Dict, types=lib.types, UniTuple=lib.types.UniTuple,
                  ListType=lib.types.ListType, Array=lib.types.Array, int64=lib.int64,
                  int32=lib.int32, uint32=lib.uint32, float32=lib.float32)
    exec(compile(SOURCE, f"<containers, {flavour}>", "exec"), ns)  # noqa: S102
    return ns


@pytest.fixture(scope="module")
def flavours():
    found = {"pyjit": _namespace("pyjit"), "python": _namespace("python")}
    if numba_or_none(pyjit.njit(lambda: 0)) is not None:
        found["numba"] = _namespace("numba")
    return found


def _tile(seed, n):
    r = np.random.default_rng(seed)
    d = r.integers(1, 5, (n, n))
    d = d + d.T
    np.fill_diagonal(d, 0)
    hi = r.integers(0, 3, n)
    lo = r.integers(0, 2, n) * (hi == 0)
    return hi.astype(np.int64), lo.astype(np.int64), d.astype(np.int64)


def _graph(ns, n=6):
    g = ns["GlobalGraph"](2, n)
    for t in range(2):
        hi, lo, d = _tile(t, n)
        g.add(ns["LocalGraph"](hi, lo, d, t))
    g.join(0, n)
    g.join(n - 1, 2 * n - 1)
    low, high = g.solve()
    return low, high, len(g.high_edges), len(g.low_edges)


def _module(ns):
    m = ns["Module"]("pump")
    m.record("flow", 5)
    m.record("head", 3)
    return m.id, m.kind, m.total(), len(m.history)


def _dict_of_arrays(ns):
    d = ns["dict_of_arrays"]()
    return ns["weighted_total"](d), sorted(d.keys()), list(d["posy"])


def _tiles(ns):
    t = ns["tiles_of"](np.arange(36).reshape(6, 6), 3)
    return ns["tile_sums"](t), len(t), t[1]


RUNS = {
    "graph": _graph,
    "bag": lambda ns: ns["use_bag"](7),
    "box": lambda ns: ns["property_access"](50),
    "module": _module,
    "dict_of_arrays": _dict_of_arrays,
    "tiles": _tiles,
    "sparse_add": lambda ns: ns["sparse_add"](
        np.array([1, 5, 9]), np.array([1.0, 2.0, 3.0], np.float32), np.array([5, 7]),
        np.array([0.5, 0.25], np.float32)),
    "union_length": lambda ns: ns["union_length"]([(0.0, 1.0), (0.5, 2.0), (3.0, 4.0),
                                                  (3.5, 3.7)]),
    "integrate": lambda ns: ns["integrate_both"](np.array([0.0, 1.0]), 1.0),
    "comprehensions": lambda ns: ns["scaled_in_comprehensions"](np.arange(4.0), 1.5),
}


def _same(a, b):
    if isinstance(a, (tuple, list)):
        b = list(b)
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, dict):
        assert dict(a).keys() == dict(b).keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-6)
    elif isinstance(a, (float, np.floating)):
        assert np.isclose(a, b, rtol=1e-6)
    else:
        assert a == b


# what Numba 0.68 does not compile: a jitclass's staticmethod called through the class in
# compiled code (Bag.add), and a generator expression calling an inner function
NUMBA_LACKS = {"bag", "comprehensions"}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_same_as_cpython_and_numba(flavours, name):
    want = RUNS[name](flavours["python"])
    for flavour in ("pyjit", "numba"):
        if flavour in flavours and not (flavour == "numba" and name in NUMBA_LACKS):
            _same(want, RUNS[name](flavours[flavour]))


def test_annotation_fields_are_typed(flavours):
    """The class annotations became the fields' types, as Numba reads them."""
    cls = flavours["pyjit"]["GlobalGraph"]
    struct = cls.class_type.instance_type.struct
    assert str(struct["flat_edges"]) == str(pyjit.types.ListType(pyjit.types.ListType(
        pyjit.types.UniTuple(pyjit.int64, 2))))
    assert struct["n_tiles"] == pyjit.int64
