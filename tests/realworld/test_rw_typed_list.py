"""Real-world patterns with typed lists (numba.typed.List), and Numba's documented examples.

Public Numba code reaches for typed.List where results have no known length or rows have
different lengths: adjacency lists of a graph built from an edge list and searched breadth-first,
points grouped per cluster label with each group's mean (k-means style codes), and threshold
crossings collected as (start, end) pairs into a list the caller owns across calls (event
detection in signal processing). Restated here in our own words; each source runs with pyjit
(`from pyjit.typed import List`, `from pyjit import types`), with Numba (the same source, its
globals bound to numba.typed.List and numba.types), and in CPython on pyjit's List.
Then Numba's typed-list examples from its documentation, run both ways, print the same.
"""
import os
import textwrap
import types as pytypes

import numpy as np
import pytest

from pyjit import njit, types
from pyjit.typed import List
from util import run_subprocess


def adjacency_bfs(src, dst, n, start):
    adj = List()
    for _ in range(n):
        adj.append(List.empty_list(types.int64))
    for k in range(src.shape[0]):
        adj[src[k]].append(dst[k])
        adj[dst[k]].append(src[k])
    dist = np.full(n, -1, dtype=np.int64)
    dist[start] = 0
    queue = List.empty_list(types.int64)
    queue.append(start)
    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        for w in adj[v]:
            if dist[w] < 0:
                dist[w] = dist[v] + 1
                queue.append(w)
    return dist, adj


def cluster_means(points, labels, k):
    members = List()
    for _ in range(k):
        members.append(List.empty_list(types.int64))
    for i in range(labels.shape[0]):
        members[labels[i]].append(i)
    means = List.empty_list(types.float64[:])
    for c in range(k):
        m = np.zeros(points.shape[1])
        for i in members[c]:
            m += points[i]
        if len(members[c]) > 0:
            m /= len(members[c])
        means.append(m)
    return means


def collect_crossings(signal, threshold, events):
    inside = False
    start = 0
    for i in range(signal.shape[0]):
        if signal[i] > threshold and not inside:
            inside, start = True, i
        elif signal[i] <= threshold and inside:
            inside = False
            events.append((start, i))
    return len(events)


def _numba():
    """Numba's njit, List and types, when Numba is installed (not under the sanitizers, where
    Numba's own LLVM overflows the stack of an instrumented process)."""
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        return None
    try:
        import numba
        from numba.typed import List as NumbaList
    except ImportError:
        return None
    return numba, NumbaList


def _rebound(f, **globals_):
    return pytypes.FunctionType(f.__code__, dict(f.__globals__, **globals_), f.__name__)


def _plain(x):
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (list, tuple)) or (hasattr(x, "append") and hasattr(x, "__iter__")):
        return [_plain(v) for v in x]
    return x


def _graph():
    rng = np.random.default_rng(4)
    src = rng.integers(0, 30, 45)
    dst = rng.integers(0, 30, 45)
    return src, dst, 30, 0


def _clusters():
    rng = np.random.default_rng(5)
    return rng.normal(size=(60, 3)), rng.integers(0, 4, 60), 5   # cluster 4 stays empty


CASES = [(adjacency_bfs, _graph), (cluster_means, _clusters)]


@pytest.mark.parametrize("f, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_same_as_numba_and_cpython(f, make):
    args = make()
    got = _plain(njit(f)(*args))
    assert got == _plain(f(*args))
    nb = _numba()
    if nb is not None:
        numba, NumbaList = nb
        assert got == _plain(numba.njit(_rebound(f, List=NumbaList, types=numba.types))(*args))


def test_caller_owned_list_across_calls():
    rng = np.random.default_rng(6)
    chunks = [np.sin(np.linspace(0, 12, 300) + p) + rng.normal(0, 0.05, 300) for p in (0.0, 1.0)]
    pairs = types.UniTuple(types.int64, 2)
    mine, reference = List.empty_list(pairs), List.empty_list(pairs)
    f = njit(collect_crossings)
    counts = [f(c, 0.5, mine) for c in chunks]
    assert counts == [collect_crossings(c, 0.5, reference) for c in chunks]
    assert _plain(mine) == _plain(reference)
    nb = _numba()
    if nb is not None:
        numba, NumbaList = nb
        theirs = NumbaList.empty_list(numba.types.UniTuple(numba.types.int64, 2))
        g = numba.njit(collect_crossings)
        assert [g(c, 0.5, theirs) for c in chunks] == counts
        assert _plain(theirs) == _plain(mine)


# ---- Numba's documentation (numba.typed.List), each example run with Numba and with pyjit ----

DOC_EXAMPLES = {
    "inferred_list_jit": '''
        @njit
        def foo():
            l = List()
            l.append(42)
            print(l[0])
            l[0] = 23
            print(l[0])
            print(len(l))
            l.pop()
            print(len(l))
            return l

        print(foo())
    ''',
    "inferred_list": '''
        @njit
        def foo(mylist):
            for i in range(10, 20):
                mylist.append(i)
            return mylist

        l = List()
        l.append(42)
        print(l[0])
        l[0] = 23
        print(l[0])
        print(len(l))
        l.pop()
        print(len(l))
        l = foo(l)
        print(len(l))
        py_list = [2, 3, 5]
        numba_list = List(py_list)
        print(len(numba_list))
    ''',
    "nested_list": '''
        mylist = List()
        for i in range(10):
            l = List()
            for i in range(10):
                l.append(i)
            mylist.append(l)
        print(mylist)
    ''',
    "empty_list_and_mutation": '''
        @njit
        def fill(n):
            l = List.empty_list(types.float64)
            for i in range(n):
                l.append(i / 2)
            return l

        @njit
        def bump(l):
            for i in range(len(l)):
                l[i] += 1.0

        l = fill(4)
        bump(l)
        print(l, len(l), l[-1])
        print(repr(l))
    ''',
}

PYJIT_IMPORTS = "from pyjit import njit, types\nfrom pyjit.typed import List\n"
NUMBA_IMPORTS = "from numba import njit, types\nfrom numba.typed import List\n"


def _printed(imports, body):
    """What the example prints, run in a fresh interpreter (compiled code's print writes to the
    process's stdout, which redirecting sys.stdout does not catch)."""
    rc, out, err = run_subprocess(imports + textwrap.dedent(body))
    assert rc == 0, err
    return out


@pytest.mark.parametrize("name", sorted(DOC_EXAMPLES))
def test_numba_documentation_examples(name):
    got = _printed(PYJIT_IMPORTS, DOC_EXAMPLES[name])
    assert got.strip()
    if _numba() is not None:
        assert got == _printed(NUMBA_IMPORTS, DOC_EXAMPLES[name])
