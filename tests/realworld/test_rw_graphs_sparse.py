"""Real-world patterns: graph and sparse-matrix code written for Numba, restated in our own words
with the import switched: CSR built from edge lists (`np.argsort(kind="mergesort")`, row
pointers by `np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])`), Kahn's topological sort
with a list as a queue and a `ValueError` on a cycle, Tarjan's strongly connected components with
an explicit call stack of `(node, next edge)` tuples (`call[-1] = (v, k + 1)`), Kruskal's tree over
union-find appending edge tuples to a typed `List()`, Prim's tree from `heapq` of `(weight, node,
parent)` tuples, PageRank with dangling mass (`np.where` of a division, a `prange` error sum),
Edmonds-Karp max flow by BFS (`q.pop(0)`), a bipartiteness check over a typed list of typed lists;
sparse matrices: CSR addition through a per-row typed `Dict` and `sorted(acc.keys())`, SpMV by
`np.dot` of slices, conjugate gradients with `@`, a CSR forward substitution, a 2-d Laplacian
assembled into lists from a tuple of stencil offsets. Each is compared with CPython running the
same source."""
import heapq

import numpy as np
import pytest

import pyjit as numba  # noqa: F401
from pyjit import njit, prange, types
from pyjit.typed import List, Dict
from util import check


# ---- graphs (CSR) ----
@njit
def to_csr(n, src, dst):
    order = np.argsort(src, kind="mergesort")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst[order]

@njit
def kahn_toposort(n, indptr, indices):
    indeg = np.zeros(n, dtype=np.int64)
    for v in indices:
        indeg[v] += 1
    queue = [v for v in range(n) if indeg[v] == 0]
    order = []
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        order.append(u)
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            indeg[v] -= 1
            if indeg[v] == 0:
                queue.append(v)
    if len(order) != n:
        raise ValueError("graph has a cycle")
    return np.array(order)

@njit
def tarjan_scc(n, indptr, indices):
    index = np.full(n, -1)
    low = np.zeros(n, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    comp = np.full(n, -1)
    stack = []
    counter = 0
    ncomp = 0
    # iterative DFS with an explicit call stack of (node, next edge)
    for s in range(n):
        if index[s] != -1:
            continue
        call = [(s, indptr[s])]
        index[s] = low[s] = counter
        counter += 1
        stack.append(s)
        on_stack[s] = True
        while call:
            v, k = call[-1]
            if k < indptr[v + 1]:
                call[-1] = (v, k + 1)
                w = indices[k]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    call.append((w, indptr[w]))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
            else:
                call.pop()
                if call:
                    u = call[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    while True:
                        w = stack.pop()
                        on_stack[w] = False
                        comp[w] = ncomp
                        if w == v:
                            break
                    ncomp += 1
    return ncomp, comp

@njit
def find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x

@njit
def kruskal(n, edges, weights):
    order = np.argsort(weights)
    parent = np.arange(n)
    rank = np.zeros(n, dtype=np.int64)
    total = 0.0
    chosen = List()
    for e in order:
        a, b = find(parent, edges[e, 0]), find(parent, edges[e, 1])
        if a == b:
            continue
        if rank[a] < rank[b]:
            a, b = b, a
        parent[b] = a
        if rank[a] == rank[b]:
            rank[a] += 1
        total += weights[e]
        chosen.append((edges[e, 0], edges[e, 1]))
    return total, chosen

@njit
def prim(W):
    n = W.shape[0]
    seen = np.zeros(n, dtype=np.bool_)
    heap = [(0.0, 0, -1)]
    total = 0.0
    parent = np.full(n, -1)
    while heap:
        w, v, p = heapq.heappop(heap)
        if seen[v]:
            continue
        seen[v] = True
        total += w
        parent[v] = p
        for u in range(n):
            if not seen[u] and W[v, u] > 0:
                heapq.heappush(heap, (W[v, u], u, v))
    return total, parent

@njit(parallel=True)
def pagerank(n, indptr, indices, d=0.85, tol=1e-12, max_iter=200):
    outdeg = np.diff(indptr)
    pr = np.full(n, 1.0 / n)
    for it in range(max_iter):
        contrib = np.where(outdeg > 0, pr / np.maximum(outdeg, 1), 0.0)
        dangling = pr[outdeg == 0].sum()
        new = np.full(n, (1 - d) / n + d * dangling / n)
        # push along edges (serial: scattered writes)
        for u in range(n):
            for k in range(indptr[u], indptr[u + 1]):
                new[indices[k]] += d * contrib[u]
        err = 0.0
        for i in prange(n):
            err += abs(new[i] - pr[i])
        pr = new
        if err < tol:
            break
    return pr

@njit
def edmonds_karp(C, s, t):
    n = C.shape[0]
    F = np.zeros_like(C)
    flow = 0
    while True:
        parent = np.full(n, -1)
        parent[s] = s
        q = [s]
        while q and parent[t] == -1:
            u = q.pop(0)
            for v in range(n):
                if parent[v] == -1 and C[u, v] - F[u, v] > 0:
                    parent[v] = u
                    q.append(v)
        if parent[t] == -1:
            return flow, F
        b = C.max()
        v = t
        while v != s:
            u = parent[v]
            b = min(b, C[u, v] - F[u, v])
            v = u
        v = t
        while v != s:
            u = parent[v]
            F[u, v] += b
            F[v, u] -= b
            v = u
        flow += b

@njit
def is_bipartite(adj):
    n = len(adj)
    color = np.full(n, -1, dtype=np.int8)
    for s in range(n):
        if color[s] != -1:
            continue
        color[s] = 0
        stack = [s]
        while len(stack) > 0:
            u = stack.pop()
            for v in adj[u]:
                if color[v] == -1:
                    color[v] = 1 - color[u]
                    stack.append(v)
                elif color[v] == color[u]:
                    return False, color
    return True, color

# ---- sparse matrices ----
@njit
def csr_add(n, ip_a, ix_a, va, ip_b, ix_b, vb):
    ip = np.zeros(n + 1, dtype=np.int64)
    ix = np.empty(ix_a.size + ix_b.size, dtype=np.int64)
    vals = np.empty(ix_a.size + ix_b.size)
    nnz = 0
    for r in range(n):
        acc = Dict.empty(key_type=types.int64, value_type=types.float64)
        for k in range(ip_a[r], ip_a[r + 1]):
            acc[ix_a[k]] = acc.get(ix_a[k], 0.0) + va[k]
        for k in range(ip_b[r], ip_b[r + 1]):
            acc[ix_b[k]] = acc.get(ix_b[k], 0.0) + vb[k]
        for c in sorted(acc.keys()):
            ix[nnz] = c
            vals[nnz] = acc[c]
            nnz += 1
        ip[r + 1] = nnz
    return ip, ix[:nnz], vals[:nnz]

@njit
def csr_matvec(ip, ix, v, x):
    y = np.zeros(ip.size - 1)
    for r in range(ip.size - 1):
        y[r] = np.dot(v[ip[r]:ip[r + 1]], x[ix[ip[r]:ip[r + 1]]])
    return y

@njit
def conjugate_gradient(ip, ix, v, b, tol=1e-10, maxiter=500):
    x = np.zeros_like(b)
    r = b - csr_matvec(ip, ix, v, x)
    p = r.copy()
    rs = r @ r
    for k in range(maxiter):
        Ap = csr_matvec(ip, ix, v, p)
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        if np.sqrt(rs_new) < tol:
            return x, k + 1
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x, maxiter

@njit
def csr_lower_solve(ip, ix, v, b):
    n = b.size
    x = np.zeros(n)
    for i in range(n):
        s = b[i]
        diag = 0.0
        for k in range(ip[i], ip[i + 1]):
            j = ix[k]
            if j < i:
                s -= v[k] * x[j]
            elif j == i:
                diag = v[k]
        x[i] = s / diag
    return x

@njit
def laplacian_csr(m):
    n = m * m
    ip = [0]
    ix = []
    vv = []
    for i in range(m):
        for j in range(m):
            for di, dj, w in ((-1, 0, -1.0), (0, -1, -1.0), (0, 0, 4.0), (0, 1, -1.0), (1, 0, -1.0)):
                a, b = i + di, j + dj
                if 0 <= a < m and 0 <= b < m:
                    ix.append(a * m + b)
                    vv.append(w)
            ip.append(len(ix))
    return np.array(ip), np.array(ix), np.array(vv)

@njit
def solve_poisson(m):
    ip, ix, v = laplacian_csr(m)
    b = np.ones(m * m)
    return conjugate_gradient(ip, ix, v, b)

rng = np.random.default_rng(2)
n = 12
src = rng.integers(0, n, 30); dst = rng.integers(0, n, 30)
ip, ix = to_csr.py_func(n, src, dst)
dag_src = np.array([0, 0, 1, 2, 3, 3, 4, 5]); dag_dst = np.array([1, 2, 3, 3, 4, 5, 6, 6])
dip, dix = to_csr.py_func(7, dag_src, dag_dst)
edges = rng.integers(0, 10, (25, 2)); wts = rng.random(25)
Wm = np.triu(rng.random((8, 8)) * (rng.random((8, 8)) < 0.6), 1); Wm = Wm + Wm.T
Cap = rng.integers(0, 10, (7, 7)) * (rng.random((7, 7)) < 0.5); np.fill_diagonal(Cap, 0)
adj = List([List([1, 3]), List([0, 2]), List([1, 3]), List([0, 2]), List([5]), List([4])])
adj2 = List([List([1, 2]), List([0, 2]), List([0, 1])])
A = (rng.random((6, 6)) < 0.4) * rng.normal(size=(6, 6)); B = (rng.random((6, 6)) < 0.4) * rng.normal(size=(6, 6))
def csr_of(M):
    ipx = [0]; ixx = []; vx = []
    for r in M:
        for c in np.flatnonzero(r):
            ixx.append(c); vx.append(r[c])
        ipx.append(len(ixx))
    return np.array(ipx), np.array(ixx, dtype=np.int64), np.array(vx)
ia, xa, va = csr_of(A); ib, xb, vb = csr_of(B)
L = np.tril(rng.normal(size=(6, 6))) + 4 * np.eye(6); il, xl, vl = csr_of(L)
CASES = [
    ("to_csr", to_csr, (n, src, dst)),
    ("toposort", kahn_toposort, (7, dip, dix)),
    ("toposort_cycle", kahn_toposort, (n, ip, ix)),
    ("tarjan", tarjan_scc, (n, ip, ix)),
    ("kruskal", kruskal, (10, edges, wts)),
    ("prim", prim, (Wm,)),
    ("pagerank", pagerank, (n, ip, ix)),
    ("edmonds_karp", edmonds_karp, (Cap, 0, 6)),
    ("bipartite", is_bipartite, (adj,)),
    ("bipartite_odd", is_bipartite, (adj2,)),
    ("csr_add", csr_add, (6, ia, xa, va, ib, xb, vb)),
    ("lower_solve", csr_lower_solve, (il, xl, vl, rng.normal(size=6))),
    ("poisson_cg", solve_poisson, (8,)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    check(f.py_func, *args, jit=f)
