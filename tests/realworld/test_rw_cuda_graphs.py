"""numba-cuda kernels over graphs, sparse matrices, sorting and reductions from public projects,
the import switched to pyjit: single-source shortest paths by Harish and Narayanan's two kernels
(relaxations through atomic.min over CSR slices zipped, a @cuda.reduce deciding when to stop),
Floyd-Warshall one launch per pivot, sliced-ELLPACK SpMV with padded columns, an LSD radix sort
from per-block digit histograms in shared memory, bounding boxes of labelled regions through
atomic.min/atomic.max on interleaved slots, a positive min/max by grid-stride atomics before a
colour shading kernel into an RGBA image, connected components by union-find with
compare_and_swap, brute-force k nearest neighbours keeping the best k in local arrays.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy or plain Python.
"""
import math
import os
import sys

import numpy as np

from pyjit import float32, int32

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


def _random_csr(n, degree, seed):
    rng = np.random.default_rng(seed)
    rows = [sorted(set(rng.integers(0, n, degree).tolist()) - {v}) for v in range(n)]
    V = np.zeros(n + 1, dtype=np.int64)
    V[1:] = np.cumsum([len(r) for r in rows])
    E = np.array([u for r in rows for u in r], dtype=np.int64)
    W = rng.integers(1, 20, E.size).astype(np.int64)
    return V, E, W


# ---- SSSP after Harish and Narayanan: masked vertices relax their edges into an update array by
# atomic.min, a second kernel accepts improvements and re-masks; the host loops while a
# @cuda.reduce of the mask is non-zero (a cost-map package's GPU Dijkstra) ----

def test_sssp_harish_narayanan(cuda):
    @cuda.jit
    def relax(V, E, W, M, C, U, n):
        tid = cuda.grid(1)
        if tid < n and M[tid] == 1:
            M[tid] = 0
            start = V[tid]
            end = V[tid + 1]
            for nid, w in zip(E[start:end], W[start:end]):
                cuda.atomic.min(U, nid, C[tid] + w)

    @cuda.jit
    def settle(M, C, U, n):
        tid = cuda.grid(1)
        if tid < n:
            if C[tid] > U[tid]:
                C[tid] = U[tid]
                M[tid] = 1
            U[tid] = C[tid]

    @cuda.jit
    def initialise(source, n, INF, M, C, U):
        tid = cuda.grid(1)
        if tid < n:
            C[tid] = INF
            U[tid] = INF
            M[tid] = 0
            if tid == source:
                M[tid] = 1
                C[tid] = 0
                U[tid] = 0

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    n = 60
    V, E, W = _random_csr(n, 3, 4)
    INF = np.int64(2**40)
    dV, dE, dW = cuda.to_device(V), cuda.to_device(E), cuda.to_device(W)
    M = cuda.device_array(n, dtype=np.int32)
    C = cuda.device_array(n, dtype=np.int64)
    U = cuda.device_array(n, dtype=np.int64)
    tpb = 32
    bpg = _blocks(n, tpb)
    initialise[bpg, tpb](0, n, INF, M, C, U)
    rounds = 0
    while sum_reduce(M) > 0:
        relax[bpg, tpb](dV, dE, dW, M, C, U, n)
        settle[bpg, tpb](M, C, U, n)
        rounds += 1
        assert rounds < 10 * n
    # Bellman-Ford in Python
    dist = [int(INF)] * n
    dist[0] = 0
    for _ in range(n):
        for v in range(n):
            for k in range(V[v], V[v + 1]):
                dist[E[k]] = min(dist[E[k]], dist[v] + int(W[k]))
    np.testing.assert_array_equal(C.copy_to_host(), dist)


# ---- Floyd-Warshall: one launch per pivot k over a 2-d grid, float32 distances with inf for no
# edge and the successor matrix kept alongside (an all-pairs shortest-path notebook) ----

def test_floyd_warshall_per_pivot(cuda):
    @cuda.jit('void(float32[:, :], int32[:, :], int32)')
    def fw_step(D, nxt, k):
        i, j = cuda.grid(2)
        n = D.shape[0]
        if i < n and j < n:
            through = D[i, k] + D[k, j]
            if through < D[i, j]:
                D[i, j] = through
                nxt[i, j] = nxt[i, k]

    n = 24
    rng = np.random.default_rng(2)
    D = np.where(rng.random((n, n)) < 0.2, rng.integers(1, 10, (n, n)), np.inf).astype(np.float32)
    np.fill_diagonal(D, 0)
    nxt = np.where(np.isfinite(D), np.arange(n)[None, :], -1).astype(np.int32)
    dD, dN = cuda.to_device(D), cuda.to_device(nxt)
    for k in range(n):
        fw_step[(2, 2), (16, 16)](dD, dN, k)
    want = D.astype(np.float64)
    wnext = nxt.copy()
    for k in range(n):
        through = want[:, k:k + 1] + want[k:k + 1, :]
        better = through < want
        want = np.where(better, through, want)
        wnext = np.where(better, wnext[:, k:k + 1], wnext)
    np.testing.assert_array_equal(dD.copy_to_host(), want.astype(np.float32))
    np.testing.assert_array_equal(dN.copy_to_host(), wnext)


# ---- sliced ELLPACK SpMV: rows in slices of equal height, each slice's columns padded with -1
# and stored column-major from its slice pointer; one thread a row (a sparse-format study) ----

def test_sliced_ellpack_spmv(cuda):
    @cuda.jit
    def sell_spmv(slice_ptr, col_idx, vals, x, slice_height, y):
        row = cuda.grid(1)
        if row >= y.shape[0]:
            return
        s = row // slice_height
        lane = row % slice_height
        start = slice_ptr[s]
        width = (slice_ptr[s + 1] - start) // slice_height
        acc = 0.0
        for k in range(width):
            p = start + k * slice_height + lane
            c = col_idx[p]
            if c >= 0:
                acc += vals[p] * x[c]
        y[row] = acc

    rng = np.random.default_rng(8)
    n, h = 37, 8
    A = np.where(rng.random((n, n)) < 0.15, rng.standard_normal((n, n)), 0.0)
    nslices = _blocks(n, h)
    ptr, cols, vals = [0], [], []
    for s in range(nslices):
        rows = [np.flatnonzero(A[r]) if r < n else np.array([], int)
                for r in range(s * h, s * h + h)]
        width = max(len(r) for r in rows)
        for k in range(width):
            for lane, r in enumerate(rows):
                if k < len(r):
                    cols.append(r[k])
                    vals.append(A[s * h + lane, r[k]])
                else:
                    cols.append(-1)
                    vals.append(0.0)
        ptr.append(len(cols))
    x = rng.standard_normal(n)
    d_y = cuda.device_array(n)
    sell_spmv[_blocks(n, 32), 32](cuda.to_device(np.array(ptr, np.int32)),
                                  cuda.to_device(np.array(cols, np.int32)),
                                  cuda.to_device(np.array(vals)), cuda.to_device(x),
                                  np.int32(h), d_y)
    np.testing.assert_allclose(d_y.copy_to_host(), A @ x, rtol=1e-12, atol=1e-12)


# ---- LSD radix sort of uint32 keys, 4 bits a pass: each block counts its digits in shared memory
# with atomics, the host scans the (digit, block) table, and each block's first thread scatters
# its slice in order so the pass is stable (a GPU sorting assignment) ----

RADIX_BITS = 4
BUCKETS = 1 << RADIX_BITS
RADIX_TPB = 64


def test_radix_sort_block_histograms(cuda):
    @cuda.jit
    def count_digits(keys, shift, counts):
        local = cuda.shared.array(BUCKETS, dtype=int32)
        t = cuda.threadIdx.x
        if t < BUCKETS:
            local[t] = 0
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < keys.shape[0]:
            cuda.atomic.add(local, (keys[i] >> shift) & (BUCKETS - 1), 1)
        cuda.syncthreads()
        if t < BUCKETS:
            counts[t, cuda.blockIdx.x] = local[t]

    @cuda.jit
    def scatter(keys, out, shift, offsets):
        if cuda.threadIdx.x != 0:
            return
        b = cuda.blockIdx.x
        start = b * cuda.blockDim.x
        stop = min(start + cuda.blockDim.x, keys.shape[0])
        for i in range(start, stop):
            d = (keys[i] >> shift) & (BUCKETS - 1)
            out[offsets[d, b]] = keys[i]
            offsets[d, b] += 1

    keys = np.random.default_rng(6).integers(0, 2**32, 500, dtype=np.uint64).astype(np.uint32)
    nb = _blocks(keys.size, RADIX_TPB)
    d_a = cuda.to_device(keys)
    d_b = cuda.device_array_like(keys)
    d_counts = cuda.device_array((BUCKETS, nb), dtype=np.int32)
    for shift in range(0, 32, RADIX_BITS):
        count_digits[nb, RADIX_TPB](d_a, shift, d_counts)
        counts = d_counts.copy_to_host()
        flat = counts.ravel()
        offsets = (np.cumsum(flat) - flat).reshape(counts.shape).astype(np.int64)
        scatter[nb, RADIX_TPB](d_a, d_b, shift, cuda.to_device(offsets))
        d_a, d_b = d_b, d_a
    np.testing.assert_array_equal(d_a.copy_to_host(), np.sort(keys))


# ---- bounding boxes of labelled regions in a flattened label image: pixel counts by atomic.add,
# then min/max of row and column in four interleaved slots per label by atomic.min/atomic.max,
# the row recovered with int(index / width) (a crystal-segmentation tool) ----

def test_region_boxes_atomic_min_max(cuda):
    @cuda.jit
    def count_pixels(data, n, NUM):
        index = cuda.grid(1)
        if index < n and data[index] > 0:
            cuda.atomic.add(NUM, data[index] - 1, 1)

    @cuda.jit
    def region_box(data, n, width, PIVOT):
        index = cuda.grid(1)
        if index < n and data[index] > 0:
            row = int(index / width)
            col = int(index % width)
            base = (data[index] - 1) * 4
            cuda.atomic.min(PIVOT, base, row)
            cuda.atomic.max(PIVOT, base + 1, row)
            cuda.atomic.min(PIVOT, base + 2, col)
            cuda.atomic.max(PIVOT, base + 3, col)

    rng = np.random.default_rng(12)
    h, w, labels = 30, 40, 5
    img = np.zeros((h, w), dtype=np.int32)
    for lab in range(1, labels + 1):
        r, c = rng.integers(0, h - 6), rng.integers(0, w - 6)
        img[r:r + rng.integers(2, 6), c:c + rng.integers(2, 6)] = lab
    flat = img.ravel()
    NUM = np.zeros(labels, dtype=np.int32)
    PIVOT = np.tile(np.array([h, -1, w, -1], dtype=np.int32), labels)
    d_flat = cuda.to_device(flat)
    count_pixels[_blocks(flat.size, 128), 128](d_flat, flat.size, NUM)
    region_box[_blocks(flat.size, 128), 128](d_flat, flat.size, w, PIVOT)
    for lab in range(1, labels + 1):
        rows, cols = np.nonzero(img == lab)
        assert NUM[lab - 1] == rows.size
        if rows.size:
            np.testing.assert_array_equal(PIVOT[4 * (lab - 1):4 * lab],
                                          [rows.min(), rows.max(), cols.min(), cols.max()])


# ---- the positive minimum and the maximum of an aggregate by grid-stride loops finished with
# float atomic.min/atomic.max (declared signature), then a shading kernel interpolating two colours
# into an RGBA uint8 image on a log scale (a plotting library's GPU shader) ----

def test_min_max_then_shade(cuda):
    @cuda.jit('void(float64[:], float64[:])')
    def min_max(vals, out):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        local_min = out[0]
        local_max = out[1]
        for i in range(start, vals.size, stride):
            v = vals[i]
            if v > 0.0:
                local_min = min(v, local_min)
            local_max = max(v, local_max)
        cuda.atomic.min(out, 0, local_min)
        cuda.atomic.max(out, 1, local_max)

    @cuda.jit
    def shade_log(agg, lo, hi, rgb0, rgb1, out):
        x, y = cuda.grid(2)
        if x < out.shape[0] and y < out.shape[1]:
            v = agg[x, y]
            if v <= 0.0:
                for c in range(4):
                    out[x, y, c] = 0
                return
            prop = (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))
            for c in range(3):
                out[x, y, c] = int(rgb0[c] + prop * (rgb1[c] - rgb0[c]))
            out[x, y, 3] = 255

    rng = np.random.default_rng(13)
    agg = np.where(rng.random((20, 30)) < 0.3, 0.0, rng.exponential(5.0, (20, 30)))
    mm = cuda.to_device(np.array([np.finfo(np.float64).max, np.finfo(np.float64).min]))
    min_max[4, 32](cuda.to_device(agg.ravel()), mm)
    lo, hi = mm.copy_to_host()
    assert lo == agg[agg > 0].min() and hi == agg.max()
    rgb0 = np.array([173, 216, 230], dtype=np.int32)
    rgb1 = np.array([0, 0, 139], dtype=np.int32)
    out = np.zeros((20, 30, 4), dtype=np.uint8)
    shade_log[(2, 2), (16, 16)](agg, lo, hi, rgb0, rgb1, out)
    prop = (np.log(np.where(agg > 0, agg, 1.0)) - np.log(lo)) / (np.log(hi) - np.log(lo))
    want = (rgb0 + prop[..., None] * (rgb1 - rgb0)).astype(np.int64)
    np.testing.assert_array_equal(out[agg > 0][:, :3], want[agg > 0])
    assert (out[agg > 0][:, 3] == 255).all() and not out[agg <= 0].any()


# ---- connected components by union-find: each edge links the roots of its ends with
# compare_and_swap (the larger root under the smaller), retried until it holds; a final pass
# compresses paths (a graph-analytics kernel) ----

def test_union_find_compare_and_swap(cuda):
    @cuda.jit(device=True)
    def find(parent, x):
        p = parent[x]
        while p != x:
            x = p
            p = parent[x]
        return x

    @cuda.jit
    def link(src, dst, parent):
        e = cuda.grid(1)
        if e >= src.shape[0]:
            return
        a = src[e]
        b = dst[e]
        while True:
            ra = find(parent, a)
            rb = find(parent, b)
            if ra == rb:
                return
            lo = min(ra, rb)
            hi = max(ra, rb)
            if cuda.atomic.compare_and_swap(parent[hi:], hi, lo) == hi:
                return

    @cuda.jit
    def compress(parent, label):
        v = cuda.grid(1)
        if v < parent.shape[0]:
            label[v] = find(parent, v)

    n = 80
    rng = np.random.default_rng(21)
    src = rng.integers(0, n, 50).astype(np.int32)
    dst = rng.integers(0, n, 50).astype(np.int32)
    parent = cuda.to_device(np.arange(n, dtype=np.int32))
    label = cuda.device_array(n, dtype=np.int32)
    link[_blocks(50, 32), 32](src, dst, parent)
    compress[_blocks(n, 32), 32](parent, label)
    got = label.copy_to_host()
    # components in Python: each labelled by its smallest vertex
    comp = list(range(n))

    def root(v):
        while comp[v] != v:
            v = comp[v]
        return v
    for a, b in zip(src, dst):
        ra, rb = root(a), root(b)
        if ra != rb:
            comp[max(ra, rb)] = min(ra, rb)
    np.testing.assert_array_equal(got, [root(v) for v in range(n)])


# ---- k nearest neighbours by brute force: each query thread keeps its best K distances and
# indices in local arrays by insertion, then votes among their labels (a GPU kNN classifier) ----

K = 5


def test_knn_local_insertion(cuda):
    @cuda.jit
    def knn(train, labels, queries, nclass, out_idx, out_label):
        q = cuda.grid(1)
        if q >= queries.shape[0]:
            return
        best_d = cuda.local.array(K, dtype=float32)
        best_i = cuda.local.array(K, dtype=int32)
        for k in range(K):
            best_d[k] = math.inf
            best_i[k] = -1
        for t in range(train.shape[0]):
            d = float32(0.0)
            for f in range(train.shape[1]):
                diff = train[t, f] - queries[q, f]
                d += diff * diff
            if d < best_d[K - 1]:
                k = K - 1
                while k > 0 and best_d[k - 1] > d:
                    best_d[k] = best_d[k - 1]
                    best_i[k] = best_i[k - 1]
                    k -= 1
                best_d[k] = d
                best_i[k] = t
        votes = cuda.local.array(8, dtype=int32)
        for c in range(nclass):
            votes[c] = 0
        for k in range(K):
            out_idx[q, k] = best_i[k]
            votes[labels[best_i[k]]] += 1
        winner = 0
        for c in range(1, nclass):
            if votes[c] > votes[winner]:
                winner = c
        out_label[q] = winner

    rng = np.random.default_rng(30)
    train = rng.standard_normal((120, 3)).astype(np.float32)
    labels = rng.integers(0, 3, 120).astype(np.int32)
    queries = rng.standard_normal((40, 3)).astype(np.float32)
    out_idx = np.zeros((40, K), dtype=np.int32)
    out_label = np.zeros(40, dtype=np.int32)
    knn[2, 32](train, labels, queries, 3, out_idx, out_label)
    d = ((queries[:, None, :] - train[None, :, :]) ** 2).sum(-1)
    want_idx = np.argsort(d, axis=1, kind="stable")[:, :K]
    np.testing.assert_array_equal(out_idx, want_idx)
    votes = np.stack([(labels[want_idx] == c).sum(1) for c in range(3)], axis=1)
    np.testing.assert_array_equal(out_label, votes.argmax(1))


# ---- per-sample statistics with array methods on a thread's row: z-scores from r.mean() and
# r.std(), the prediction by r.argmax(), a margin from r.max() and r.min(), a score by
# r.dot(weights) (a classifier's post-processing kernel) ----

def test_row_methods_per_sample(cuda):
    @cuda.jit
    def postprocess(logits, w, z, pred, margin, score):
        i = cuda.grid(1)
        if i < logits.shape[0]:
            r = logits[i]
            mu = r.mean()
            sd = r.std()
            for j in range(r.shape[0]):
                z[i, j] = (r[j] - mu) / sd
            pred[i] = r.argmax()
            margin[i] = r.max() - r.min()
            score[i] = r.dot(w) + r.sum() * 0.5

    rng = np.random.default_rng(14)
    logits = rng.standard_normal((30, 6))
    w = rng.standard_normal(6)
    z = np.zeros_like(logits)
    pred = np.zeros(30, np.int64)
    margin, score = np.zeros(30), np.zeros(30)
    postprocess[1, 32](logits, w, z, pred, margin, score)
    np.testing.assert_allclose(z, (logits - logits.mean(1, keepdims=True))
                               / logits.std(1, keepdims=True), rtol=1e-12)
    np.testing.assert_array_equal(pred, logits.argmax(1))
    np.testing.assert_allclose(margin, logits.max(1) - logits.min(1), rtol=1e-12)
    np.testing.assert_allclose(score, logits @ w + logits.sum(1) * 0.5, rtol=1e-12)
