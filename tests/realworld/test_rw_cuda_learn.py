"""numba-cuda kernels of machine-learning and graph-analytics code, the import switched to pyjit:
DBSCAN (neighbour counts deciding core points, then labels spread from core points by repeated
minimum passes until a device flag stays clear), a decision-tree ensemble's inference walking
node arrays per sample and voting through atomics, logistic regression trained by minibatch
gradients accumulated with `atomic.add` into a float32 gradient, PageRank by pull over the
transposed graph with the dangling mass summed by an atomic, breadth-first search by level
frontiers appended through an atomic cursor read back with `d[0]`.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy or plain Python.
"""
import math
import os
import sys

import numpy as np

from pyjit import float32

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


# ---- DBSCAN: a thread a point counts its eps-neighbours (core when >= min_pts), then labels
# start as each core point's own index and every pass lowers a point's label to the smallest
# label among its core neighbours, a changed flag set by any thread; border points take a core
# neighbour's label, noise stays -1 (a GPU clustering library's brute-force DBSCAN) ----

def test_dbscan_core_points_and_label_passes(cuda):
    @cuda.jit
    def count_neighbours(X, eps2, counts):
        i = cuda.grid(1)
        if i >= X.shape[0]:
            return
        c = 0
        for j in range(X.shape[0]):
            d = 0.0
            for k in range(X.shape[1]):
                t = X[i, k] - X[j, k]
                d += t * t
            if d <= eps2:
                c += 1
        counts[i] = c

    @cuda.jit
    def init_labels(counts, min_pts, labels):
        i = cuda.grid(1)
        if i < labels.size:
            labels[i] = i if counts[i] >= min_pts else -1

    @cuda.jit
    def propagate(X, eps2, counts, min_pts, labels, changed):
        i = cuda.grid(1)
        if i >= X.shape[0]:
            return
        best = labels[i]
        for j in range(X.shape[0]):
            if counts[j] < min_pts or labels[j] < 0:
                continue
            d = 0.0
            for k in range(X.shape[1]):
                t = X[i, k] - X[j, k]
                d += t * t
            if d <= eps2 and (best < 0 or labels[j] < best):
                best = labels[j]
        if best != labels[i]:
            labels[i] = best
            changed[0] = 1

    rng = np.random.default_rng(71)
    centres = np.array([[0, 0], [5, 5], [0, 6]])
    X = np.concatenate([c + 0.6 * rng.standard_normal((25, 2)) for c in centres]
                       + [rng.uniform(-3, 9, (8, 2))])
    n = len(X)
    eps, min_pts = 0.9, 4
    dX = cuda.to_device(X)
    counts = cuda.device_array(n, np.int32)
    labels = cuda.device_array(n, np.int64)
    changed = cuda.to_device(np.zeros(1, np.int32))
    count_neighbours[_blocks(n, 32), 32](dX, eps * eps, counts)
    init_labels[_blocks(n, 32), 32](counts, min_pts, labels)
    passes = 0
    while True:
        changed[0] = 0
        propagate[_blocks(n, 32), 32](dX, eps * eps, counts, min_pts, labels, changed)
        passes += 1
        if changed[0] == 0:
            break
        assert passes < n
    got = labels.copy_to_host()

    # plain Python: core points, connected components over core-core edges (each labelled by its
    # smallest member), border points take the smallest label of a core neighbour
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) <= eps * eps
    core = D.sum(1) >= min_pts
    np.testing.assert_array_equal(counts.copy_to_host(), D.sum(1))
    want = np.where(core, np.arange(n), -1)
    while True:
        new = want.copy()
        for i in range(n):
            nb = [want[j] for j in range(n) if D[i, j] and core[j] and want[j] >= 0]
            if nb and (new[i] < 0 or min(nb) < new[i]):
                new[i] = min(nb)
        if (new == want).all():
            break
        want = new
    np.testing.assert_array_equal(got, want)
    assert len(set(got[core])) == 3


# ---- a tree ensemble's inference: nodes as parallel arrays (feature, threshold, left, right,
# leaf class), one thread a (sample, tree) pair walking to a leaf, votes added by atomics
# (a forest inference library's sparse-forest kernel) ----

def test_forest_inference_votes(cuda):
    @cuda.jit(device=True)
    def walk(tree_root, feature, threshold, left, right, x):
        node = tree_root
        while feature[node] >= 0:
            if x[feature[node]] <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        return node

    @cuda.jit
    def predict(X, roots, feature, threshold, left, right, leaf_class, votes):
        s, t = cuda.grid(2)
        if s < X.shape[0] and t < roots.shape[0]:
            leaf = walk(roots[t], feature, threshold, left, right, X[s])
            cuda.atomic.add(votes, (s, leaf_class[leaf]), 1)

    rng = np.random.default_rng(72)
    nfeat, ntrees, depth, nclass = 5, 7, 4, 3
    feature, threshold, left, right, leaf_class, roots = [], [], [], [], [], []

    def build(d):
        idx = len(feature)
        feature.append(-1)
        threshold.append(0.0)
        left.append(-1)
        right.append(-1)
        leaf_class.append(int(rng.integers(0, nclass)))
        if d < depth and rng.random() < 0.85:
            feature[idx] = int(rng.integers(0, nfeat))
            threshold[idx] = float(rng.standard_normal())
            left[idx] = build(d + 1)
            right[idx] = build(d + 1)
        return idx

    for _ in range(ntrees):
        roots.append(build(0))
    arrs = [np.array(a) for a in (roots, feature, threshold, left, right, leaf_class)]
    X = rng.standard_normal((40, nfeat))
    votes = np.zeros((40, nclass), np.int32)
    predict[(_blocks(40, 8), 1), (8, 8)](X, *arrs, votes)
    want = np.zeros((40, nclass), np.int64)
    for s in range(40):
        for r in roots:
            node = r
            while feature[node] >= 0:
                node = left[node] if X[s, feature[node]] <= threshold[node] else right[node]
            want[s, leaf_class[node]] += 1
    np.testing.assert_array_equal(votes, want)


# ---- logistic regression: per minibatch, a thread a sample adds its gradient into a float32
# gradient vector by atomics, then a one-block kernel takes the step (a GPU ML tutorial) ----

def test_logistic_regression_sgd(cuda):
    @cuda.jit
    def gradient(X, y, w, b, grad):
        i = cuda.grid(1)
        if i >= X.shape[0]:
            return
        z = b[0]
        for k in range(X.shape[1]):
            z += X[i, k] * w[k]
        p = float32(1.0) / (float32(1.0) + math.exp(-z))
        err = (p - y[i]) / X.shape[0]
        for k in range(X.shape[1]):
            cuda.atomic.add(grad, k, err * X[i, k])
        cuda.atomic.add(grad, X.shape[1], err)

    @cuda.jit
    def step(w, b, grad, lr):
        k = cuda.threadIdx.x
        if k < w.size:
            w[k] -= lr * grad[k]
        elif k == w.size:
            b[0] -= lr * grad[k]

    rng = np.random.default_rng(73)
    n, d = 120, 4
    X = rng.standard_normal((n, d)).astype(np.float32)
    true_w = np.array([1.5, -2.0, 0.5, 0.0], np.float32)
    y = (X @ true_w + 0.3 > 0).astype(np.float32)
    w = cuda.to_device(np.zeros(d, np.float32))
    b = cuda.to_device(np.zeros(1, np.float32))
    grad = cuda.device_array(d + 1, np.float32)
    lr = np.float32(0.5)
    ww, bw = np.zeros(d), 0.0
    for epoch in range(4):
        for start in range(0, n, 40):
            xb, yb = X[start:start + 40], y[start:start + 40]
            grad.copy_to_device(np.zeros(d + 1, np.float32))
            gradient[_blocks(len(xb), 32), 32](xb, yb, w, b, grad)
            step[1, 32](w, b, grad, lr)
            p = 1 / (1 + np.exp(-(xb.astype(np.float64) @ ww + bw)))
            err = (p - yb) / len(xb)
            ww -= 0.5 * (err @ xb)
            bw -= 0.5 * err.sum()
    np.testing.assert_allclose(w.copy_to_host(), ww, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(b.copy_to_host()[0], bw, rtol=1e-3, atol=1e-4)


# ---- PageRank by pull: each vertex sums rank/outdegree over its in-edges (the transposed CSR),
# the rank of vertices without out-edges summed by an atomic and spread evenly (a graph
# analytics library's power iteration) ----

def test_pagerank_pull(cuda):
    @cuda.jit
    def dangling_sum(rank, outdeg, total):
        v = cuda.grid(1)
        if v < rank.size and outdeg[v] == 0:
            cuda.atomic.add(total, 0, rank[v])

    @cuda.jit
    def pull(in_ptr, in_idx, rank, outdeg, dangling, damping, new_rank):
        v = cuda.grid(1)
        n = rank.size
        if v >= n:
            return
        s = 0.0
        for k in range(in_ptr[v], in_ptr[v + 1]):
            u = in_idx[k]
            s += rank[u] / outdeg[u]
        new_rank[v] = (1.0 - damping) / n + damping * (s + dangling[0] / n)

    rng = np.random.default_rng(74)
    n = 50
    A = (rng.random((n, n)) < 0.08) & ~np.eye(n, dtype=bool)
    A[:3] = False                                   # three dangling vertices
    outdeg = A.sum(1)
    src, dst = np.nonzero(A)
    order = np.argsort(dst, kind="stable")
    in_idx = src[order]
    in_ptr = np.zeros(n + 1, np.int64)
    in_ptr[1:] = np.cumsum(np.bincount(dst, minlength=n))
    rank = cuda.to_device(np.full(n, 1.0 / n))
    new = cuda.device_array(n)
    d_ptr, d_idx, d_out = cuda.to_device(in_ptr), cuda.to_device(in_idx), cuda.to_device(outdeg)
    r = np.full(n, 1.0 / n)
    for _ in range(20):
        total = cuda.to_device(np.zeros(1))
        dangling_sum[2, 32](rank, d_out, total)
        pull[2, 32](d_ptr, d_idx, rank, d_out, total, 0.85, new)
        rank, new = new, rank
        dm = r[outdeg == 0].sum()
        contrib = np.where(outdeg > 0, r / np.maximum(outdeg, 1), 0.0)
        r = 0.15 / n + 0.85 * (A.T.astype(float) @ contrib + dm / n)
    np.testing.assert_allclose(rank.copy_to_host(), r, rtol=1e-12)
    assert math.isclose(rank.copy_to_host().sum(), 1.0, rel_tol=1e-12)


# ---- BFS by frontiers: each frontier vertex visits its neighbours, claiming unvisited ones by
# compare_and_swap on their level and appending them to the next frontier through an atomic
# cursor; the host reads the cursor back as d[0] (a graph course's level-synchronous BFS) ----

def test_bfs_frontiers(cuda):
    @cuda.jit
    def expand(ptr, idx, frontier, nfrontier, level, next_frontier, cursor, depth):
        t = cuda.grid(1)
        if t >= nfrontier:
            return
        u = frontier[t]
        for k in range(ptr[u], ptr[u + 1]):
            v = idx[k]
            if cuda.atomic.compare_and_swap(level[v:v + 1], -1, depth + 1) == -1:
                slot = cuda.atomic.add(cursor, 0, 1)
                next_frontier[slot] = v

    rng = np.random.default_rng(75)
    n = 70
    adj = [sorted(set(rng.integers(0, n, 3).tolist()) - {v}) for v in range(n)]
    for v in range(n):                      # undirected
        for u in adj[v]:
            if v not in adj[u]:
                adj[u].append(v)
    ptr = np.zeros(n + 1, np.int64)
    ptr[1:] = np.cumsum([len(a) for a in adj])
    idx = np.array([u for a in adj for u in a], np.int32)
    level = cuda.to_device(np.full(n, -1, np.int32))
    level[0] = 0
    frontier = cuda.to_device(np.zeros(n, np.int32))
    nxt = cuda.device_array(n, np.int32)
    cursor = cuda.to_device(np.zeros(1, np.int32))
    d_ptr, d_idx = cuda.to_device(ptr), cuda.to_device(idx)
    size, depth = 1, 0
    while size > 0:
        cursor[0] = 0
        expand[_blocks(size, 32), 32](d_ptr, d_idx, frontier, size, level, nxt, cursor, depth)
        size = int(cursor[0])
        frontier, nxt = nxt, frontier
        depth += 1
    want = [-1] * n
    want[0] = 0
    queue = [0]
    for u in queue:
        for v in adj[u]:
            if want[v] < 0:
                want[v] = want[u] + 1
                queue.append(v)
    np.testing.assert_array_equal(level.copy_to_host(), want)
