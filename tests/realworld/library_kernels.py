"""Numba code as well-known libraries write it, restated in our own words with the import
switched to pyjit (tests/realworld/test_rw_libraries.py runs each case compiled and under
PYJIT_DISABLE_JIT=1 and compares): stumpy's matrix-profile kernels (Greek-letter names,
`fastmath` flag sets, `prange` over threads), umap's distances, `locals=` of float32 scalars and
arrays, xorshift under `"i4(i8[:])"`, heaps; librosa's overlap-add over `...`, DTW and interval
matching over sets; resampy's lazy `@guvectorize`; numba-stats' signature-building `_jit`
factory and `vectorize`; datashader's `ngjit = nb.jit(nopython=True, nogil=True)` and glyph
closures over compiled functions; trackpy's `try_numba_jit`; sktime/aeon and tslearn DTW;
pydata/sparse's counts and CSR products typed through `numpy_support.from_dtype`; a pymc-style
sampler; poliastro and hapsira decorator aliases; numbagg's `guvectorize` with tuple signatures."""
import math
import warnings
from functools import partial
import numpy as np
import pyjit
import pyjit as nb
from pyjit import njit, jit, prange, guvectorize, vectorize
from pyjit import float32, float64, int64, int32, uint8
from pyjit.core import types
from pyjit.core.errors import NumbaWarning, NumbaPerformanceWarning
from pyjit.np.numpy_support import from_dtype, as_dtype
from pyjit.extending import overload, register_jitable
from pyjit.typed import List as NumbaList
warnings.filterwarnings("ignore", category=NumbaWarning)

try:
    import pyjit as _nb_opt
    HAVE_NUMBA = True
except ImportError:
    HAVE_NUMBA = False

_STUMPY_FASTMATH = {"nsz", "arcp", "contract", "afn", "reassoc"}
STUMPY_DENOM_THRESHOLD = 1e-14
STUMPY_STDDEV_THRESHOLD = 1e-7

# ---------------- stumpy ----------------
@njit(fastmath=_STUMPY_FASTMATH)
def _calc_sqdist(m, QT, μ_Q, σ_Q, M_T, Σ_T, q_const, t_const):
    if np.isinf(M_T) or np.isinf(μ_Q):
        d2 = np.inf
    elif q_const and t_const:
        d2 = 0.0
    elif q_const or t_const:
        d2 = m
    else:
        denom = m * σ_Q * Σ_T
        if np.abs(denom) < STUMPY_DENOM_THRESHOLD:
            denom = STUMPY_DENOM_THRESHOLD
        ρ = (QT - m * μ_Q * M_T) / denom
        ρ = min(ρ, 1.0)
        d2 = np.abs(2 * m * (1.0 - ρ))
    return d2


@njit(parallel=True, fastmath={"nsz", "arcp", "contract", "afn", "reassoc"})
def _sliding_mean_std(T, m):
    l = T.shape[0] - m + 1
    mu = np.empty(l)
    sd = np.empty(l)
    for i in prange(l):
        mu[i] = np.mean(T[i:i + m])
        sd[i] = np.sqrt(np.var(T[i:i + m]))
    return mu, sd


@njit(parallel=True, fastmath=True)
def _stump_diagonals(T, m, excl):
    l = T.shape[0] - m + 1
    n_threads = pyjit.config.NUMBA_NUM_THREADS
    n_threads = min(n_threads, 4)
    mu, sd = _sliding_mean_std(T, m)
    P = np.full((n_threads, l), np.inf)
    I = np.full((n_threads, l), -1, np.int64)
    diags = np.arange(excl + 1, l)
    for thread_idx in prange(n_threads):
        for k in range(thread_idx, diags.shape[0], n_threads):
            g = diags[k]
            for i in range(0, l - g):
                j = i + g
                qt = np.dot(T[i:i + m], T[j:j + m])
                d = np.sqrt(_calc_sqdist(m, qt, mu[i], sd[i], mu[j], sd[j], False, False))
                if d < P[thread_idx, i]:
                    P[thread_idx, i] = d
                    I[thread_idx, i] = j
                if d < P[thread_idx, j]:
                    P[thread_idx, j] = d
                    I[thread_idx, j] = i
    for t in range(1, n_threads):
        for i in range(l):
            if P[t, i] < P[0, i]:
                P[0, i] = P[t, i]
                I[0, i] = I[t, i]
    return P[0], I[0]

def case_stumpy_stump():
    T = np.sin(np.linspace(0, 20, 120)) + np.random.RandomState(0).rand(120) * 0.1
    return _stump_diagonals(T, 10, 3)


@njit(fastmath={"nsz", "arcp", "contract", "afn", "reassoc"})
def _welford_nanvar(a, w, a_isfinite):
    all_var = np.full(a.shape[0] - w + 1, np.nan, dtype=np.float64)
    prev_mean = 0.0
    prev_var = 0.0
    for start_idx in range(a.shape[0] - w + 1):
        prev_start_idx = start_idx - 1
        stop_idx = start_idx + w
        if a_isfinite[start_idx]:
            if start_idx == 0 or not a_isfinite[prev_start_idx]:
                curr_mean = np.mean(a[start_idx:stop_idx])
                curr_var = np.var(a[start_idx:stop_idx])
            else:
                curr_mean = prev_mean + (a[stop_idx - 1] - a[prev_start_idx]) / w
                curr_var = prev_var + (a[stop_idx - 1] - a[prev_start_idx]) * (
                    a[stop_idx - 1] - curr_mean + a[prev_start_idx] - prev_mean) / w
            all_var[start_idx] = curr_var
            prev_mean = curr_mean
            prev_var = curr_var
    return all_var

def case_stumpy_welford():
    a = np.cos(np.arange(50) * 0.3)
    isf = np.ones(46, dtype=np.bool_)
    isf[20] = False
    return _welford_nanvar(a, 5, isf)


@njit
def _merge_topk_PI(PA, PB, IA, IB):
    k = PA.shape[1]
    for i in range(PA.shape[0]):
        overlap = np.flatnonzero(np.isin(IB[i], IA[i]))
        PB[i, overlap] = np.inf
        IB[i, overlap] = -1
    for i in range(PA.shape[0]):
        start = 0
        stop = k
        for j in range(k):
            if PB[i, j] < PA[i, -1]:
                idx = np.searchsorted(PA[i, start:stop], PB[i, j], side="right") + start
                for g in range(k - 1, idx, -1):
                    PA[i, g] = PA[i, g - 1]
                    IA[i, g] = IA[i, g - 1]
                PA[i, idx] = PB[i, j]
                IA[i, idx] = IB[i, j]
                start = idx
                if stop < k:
                    stop += 1
    return PA, IA

def case_stumpy_merge_topk():
    PA = np.array([[0.1, 0.5, 0.9], [0.2, 0.3, 0.4]])
    PB = np.array([[0.05, 0.5, 0.95], [0.25, 0.35, 0.1]])
    IA = np.array([[1, 2, 3], [4, 5, 6]])
    IB = np.array([[7, 2, 9], [10, 11, 12]])
    return _merge_topk_PI(PA, PB, IA, IB)


@njit(parallel=True, fastmath=True)
def _compute_P_ABBA(T_A, T_B, m, P_ABBA):
    n = T_A.shape[0] - m + 1
    for i in prange(n):
        best = np.inf
        a = T_A[i:i + m]
        for j in range(T_B.shape[0] - m + 1):
            d = np.sqrt(np.sum((a - T_B[j:j + m]) ** 2))
            if d < best:
                best = d
        P_ABBA[i] = best

def case_stumpy_mpdist():
    rs = np.random.RandomState(1)
    A = rs.rand(40); B = rs.rand(30)
    out = np.empty(40 - 5 + 1)
    _compute_P_ABBA(A, B, 5, out)
    return out

# ---------------- umap / hdbscan ----------------
_mock_ones = np.ones(2, dtype=np.float64)

@pyjit.njit(fastmath=True)
def euclidean(x, y):
    result = 0.0
    for i in range(x.shape[0]):
        result += (x[i] - y[i]) ** 2
    return np.sqrt(result)

@pyjit.njit()
def standardised_euclidean(x, y, sigma=_mock_ones):
    result = 0.0
    for i in range(x.shape[0]):
        result += ((x[i] - y[i]) ** 2) / sigma[i]
    return np.sqrt(result)

@pyjit.njit(fastmath=True)
def euclidean_grad(x, y):
    result = 0.0
    for i in range(x.shape[0]):
        result += (x[i] - y[i]) ** 2
    d = np.sqrt(result)
    grad = (x - y) / (1e-6 + d)
    return d, grad

@pyjit.njit()
def manhattan(x, y):
    result = 0.0
    for i in range(x.shape[0]):
        result += np.abs(x[i] - y[i])
    return result

named_distances = {"euclidean": euclidean, "l2": euclidean, "manhattan": manhattan}

@pyjit.njit(parallel=True)
def pairwise_special_metric(X, dist):
    n = X.shape[0]
    out = np.zeros((n, n))
    for i in pyjit.prange(n):
        for j in range(n):
            out[i, j] = dist(X[i], X[j])
    return out

def case_umap_distances():
    X = np.random.RandomState(2).rand(6, 3)
    r = [pairwise_special_metric(X, named_distances[k]) for k in ("l2", "manhattan")]
    r.append(standardised_euclidean(X[0, :2], X[1, :2]))
    r.append(standardised_euclidean(X[0], X[1], np.full(3, 2.0)))
    r.append(euclidean_grad(X[0], X[1]))
    return r


@pyjit.njit("i4(i8[:])")
def tau_rand_int(state):
    state[0] = (((state[0] & 4294967294) << 12) & 0xFFFFFFFF) ^ (
        (((state[0] << 13) & 0xFFFFFFFF) ^ state[0]) >> 19)
    state[1] = (((state[1] & 4294967288) << 4) & 0xFFFFFFFF) ^ (
        (((state[1] << 2) & 0xFFFFFFFF) ^ state[1]) >> 25)
    state[2] = (((state[2] & 4294967280) << 17) & 0xFFFFFFFF) ^ (
        (((state[2] << 3) & 0xFFFFFFFF) ^ state[2]) >> 11)
    return state[0] ^ state[1] ^ state[2]

@pyjit.njit("f4(i8[:])")
def tau_rand(state):
    integer = tau_rand_int(state)
    return abs(float(integer) / 0x7FFFFFFF)

def _todo_umap_tau_rand():
    st = np.array([12345, 67890, 13579], dtype=np.int64)
    return [tau_rand_int(st) for _ in range(5)] + [tau_rand(st) for _ in range(5)]


SMOOTH_K_TOLERANCE = 1e-5
MIN_K_DIST_SCALE = 1e-3

@pyjit.njit(locals={"psum": pyjit.types.float32, "lo": pyjit.types.float32,
                    "mid": pyjit.types.float32, "hi": pyjit.types.float32},
            fastmath=True)
def smooth_knn_dist(distances, k, n_iter=64, local_connectivity=1.0, bandwidth=1.0):
    target = np.log2(k) * bandwidth
    rho = np.zeros(distances.shape[0], dtype=np.float32)
    result = np.zeros(distances.shape[0], dtype=np.float32)
    mean_distances = np.mean(distances)
    for i in range(distances.shape[0]):
        lo = 0.0
        hi = np.inf
        mid = 1.0
        ith_distances = distances[i]
        non_zero_dists = ith_distances[ith_distances > 0.0]
        if non_zero_dists.shape[0] >= local_connectivity:
            index = int(np.floor(local_connectivity))
            interpolation = local_connectivity - index
            if index > 0:
                rho[i] = non_zero_dists[index - 1]
                if interpolation > SMOOTH_K_TOLERANCE:
                    rho[i] += interpolation * (non_zero_dists[index] - non_zero_dists[index - 1])
            else:
                rho[i] = interpolation * non_zero_dists[0]
        elif non_zero_dists.shape[0] > 0:
            rho[i] = np.max(non_zero_dists)
        for n in range(n_iter):
            psum = 0.0
            for j in range(1, distances.shape[1]):
                d = distances[i, j] - rho[i]
                if d > 0:
                    psum += np.exp(-(d / mid))
                else:
                    psum += 1.0
            if np.fabs(psum - target) < SMOOTH_K_TOLERANCE:
                break
            if psum > target:
                hi = mid
                mid = (lo + hi) / 2.0
            else:
                lo = mid
                if hi == np.inf:
                    mid *= 2
                else:
                    mid = (lo + hi) / 2.0
        result[i] = mid
        if rho[i] > 0.0:
            mean_ith_distances = np.mean(ith_distances)
            if result[i] < MIN_K_DIST_SCALE * mean_ith_distances:
                result[i] = MIN_K_DIST_SCALE * mean_ith_distances
        else:
            if result[i] < MIN_K_DIST_SCALE * mean_distances:
                result[i] = MIN_K_DIST_SCALE * mean_distances
    return result, rho

def case_umap_smooth_knn():
    d = np.sort(np.random.RandomState(3).rand(8, 5).astype(np.float32), axis=1)
    d[:, 0] = 0
    return smooth_knn_dist(d, 5.0)


@pyjit.njit(locals={"knn_dists": pyjit.types.float32[:, ::1], "sigmas": pyjit.types.float32[::1],
                    "rhos": pyjit.types.float32[::1], "val": pyjit.types.float32},
            parallel=True, fastmath=True)
def compute_membership_strengths(knn_indices, knn_dists, sigmas, rhos):
    n_samples = knn_indices.shape[0]
    n_neighbors = knn_indices.shape[1]
    rows = np.zeros(knn_indices.size, dtype=np.int32)
    cols = np.zeros(knn_indices.size, dtype=np.int32)
    vals = np.zeros(knn_indices.size, dtype=np.float32)
    for i in range(n_samples):
        for j in range(n_neighbors):
            if knn_indices[i, j] == -1:
                continue
            if knn_indices[i, j] == i:
                val = 0.0
            elif knn_dists[i, j] - rhos[i] <= 0.0 or sigmas[i] == 0.0:
                val = 1.0
            else:
                val = np.exp(-((knn_dists[i, j] - rhos[i]) / (sigmas[i])))
            rows[i * n_neighbors + j] = i
            cols[i * n_neighbors + j] = knn_indices[i, j]
            vals[i * n_neighbors + j] = val
    return rows, cols, vals

def case_umap_membership():
    rs = np.random.RandomState(4)
    idx = np.argsort(rs.rand(6, 6), axis=1)[:, :3].astype(np.int64)
    idx[0, 0] = 0; idx[1, 2] = -1
    dists = np.ascontiguousarray(rs.rand(6, 3).astype(np.float32))
    sig = np.full(6, 0.5, dtype=np.float32); rho = np.full(6, 0.1, dtype=np.float32)
    return compute_membership_strengths(idx, dists, sig, rho)


@pyjit.njit(parallel=True)
def fast_knn_indices(X, n_neighbors):
    knn_indices = np.empty((X.shape[0], n_neighbors), dtype=np.int32)
    for row in pyjit.prange(X.shape[0]):
        v = X[row].argsort(kind="quicksort")
        v = v[:n_neighbors]
        knn_indices[row] = v
    return knn_indices

def case_umap_fast_knn():
    return fast_knn_indices(np.random.RandomState(5).rand(7, 9), 3)


@pyjit.njit("f4(f4[::1],f4[::1])", fastmath=True, cache=True)
def rdist(x, y):
    result = 0.0
    dim = x.shape[0]
    for i in range(dim):
        diff = x[i] - y[i]
        result += diff * diff
    return result

@pyjit.njit()
def clip(val):
    if val > 4.0:
        return 4.0
    elif val < -4.0:
        return -4.0
    else:
        return val

@pyjit.njit(fastmath=True)
def _optimize_layout_single_epoch(head_embedding, head, tail, epochs_per_sample, a, b,
                                  rng_state, alpha, epoch_of_next_sample, n):
    for i in range(epochs_per_sample.shape[0]):
        if epoch_of_next_sample[i] <= n:
            j = head[i]
            k = tail[i]
            current = head_embedding[j]
            other = head_embedding[k]
            dist_squared = rdist(current, other)
            if dist_squared > 0.0:
                grad_coeff = -2.0 * a * b * pow(dist_squared, b - 1.0)
                grad_coeff /= a * pow(dist_squared, b) + 1.0
            else:
                grad_coeff = 0.0
            for d in range(head_embedding.shape[1]):
                grad_d = clip(grad_coeff * (current[d] - other[d]))
                current[d] += grad_d * alpha
                other[d] += -grad_d * alpha
            epoch_of_next_sample[i] += epochs_per_sample[i]
            k = tau_rand_int(rng_state) % head_embedding.shape[0]
            other = head_embedding[k]
            dist_squared = rdist(current, other)
            if dist_squared > 0.0:
                grad_coeff = 2.0 * b
                grad_coeff /= (0.001 + dist_squared) * (a * pow(dist_squared, b) + 1)
            else:
                grad_coeff = 0.0
            for d in range(head_embedding.shape[1]):
                if grad_coeff > 0.0:
                    grad_d = clip(grad_coeff * (current[d] - other[d]))
                else:
                    grad_d = 4.0
                current[d] += grad_d * alpha

def case_umap_layout():
    rs = np.random.RandomState(6)
    emb = rs.rand(10, 2).astype(np.float32)
    head = rs.randint(0, 10, 15).astype(np.int32); tail = rs.randint(0, 10, 15).astype(np.int32)
    eps = np.ones(15); nxt = np.ones(15)
    st = np.array([1, 2, 3], dtype=np.int64)
    for n in range(3):
        _optimize_layout_single_epoch(emb, head, tail, eps, 1.5, 0.9, st, 1.0 - n / 3, nxt, n + 1)
    return emb


@pyjit.njit()
def make_heap(n_points, size):
    indices = np.full((int(n_points), int(size)), -1, dtype=np.int32)
    distances = np.full((int(n_points), int(size)), np.inf, dtype=np.float32)
    flags = np.zeros((int(n_points), int(size)), dtype=np.uint8)
    result = (indices, distances, flags)
    return result

@pyjit.njit("i4(f4[::1],i4[::1],u1[::1],f4,i4,u1)", fastmath=True)
def checked_flagged_heap_push(priorities, indices, flags, p, n, f):
    if p >= priorities[0]:
        return 0
    size = priorities.shape[0]
    for i in range(size):
        if n == indices[i]:
            return 0
    priorities[0] = p
    indices[0] = n
    flags[0] = f
    i = 0
    while True:
        ic1 = 2 * i + 1
        ic2 = ic1 + 1
        if ic1 >= size:
            break
        elif ic2 >= size:
            if priorities[ic1] > p:
                i_swap = ic1
            else:
                break
        elif priorities[ic1] >= priorities[ic2]:
            if p < priorities[ic1]:
                i_swap = ic1
            else:
                break
        else:
            if p < priorities[ic2]:
                i_swap = ic2
            else:
                break
        priorities[i] = priorities[i_swap]
        indices[i] = indices[i_swap]
        flags[i] = flags[i_swap]
        i = i_swap
    priorities[i] = p
    indices[i] = n
    flags[i] = f
    return 1

@pyjit.njit()
def deheap_sort(indices, distances):
    for i in range(indices.shape[0]):
        for j in range(indices.shape[1] - 1):
            ind_heap = indices[i]
            dist_heap = distances[i]
            ind_heap[0], ind_heap[ind_heap.shape[0] - j - 1] = ind_heap[ind_heap.shape[0] - j - 1], ind_heap[0]
            dist_heap[0], dist_heap[dist_heap.shape[0] - j - 1] = dist_heap[dist_heap.shape[0] - j - 1], dist_heap[0]
            # sift down within the shrunk heap
            elements = dist_heap.shape[0] - j - 1
            root = 0
            while root * 2 + 1 < elements:
                lc = root * 2 + 1
                rc = lc + 1
                swap = root
                if dist_heap[swap] < dist_heap[lc]:
                    swap = lc
                if rc < elements and dist_heap[swap] < dist_heap[rc]:
                    swap = rc
                if swap == root:
                    break
                dist_heap[swap], dist_heap[root] = dist_heap[root], dist_heap[swap]
                ind_heap[swap], ind_heap[root] = ind_heap[root], ind_heap[swap]
                root = swap
    return indices.astype(np.int64), distances

def case_umap_heap():
    heap = make_heap(4, 3)
    rs = np.random.RandomState(7)
    cnt = 0
    for i in range(4):
        for t in range(8):
            cnt += checked_flagged_heap_push(heap[1][i], heap[0][i], heap[2][i],
                                             np.float32(rs.rand()), np.int32(rs.randint(0, 10)), np.uint8(1))
    return cnt, deheap_sort(heap[0], heap[1])

# ---------------- librosa ----------------
@jit(nopython=True, cache=True)
def __overlap_add(y, ytmp, hop_length):
    n_fft = ytmp.shape[-2]
    N = n_fft
    for frame in range(ytmp.shape[-1]):
        sample = frame * hop_length
        if N > y.shape[-1] - sample:
            N = y.shape[-1] - sample
        y[..., sample:(sample + N)] += ytmp[..., :N, frame]

def case_librosa_overlap_add():
    y = np.zeros((2, 40))
    yt = np.random.RandomState(8).rand(2, 8, 10)
    __overlap_add(y, yt, 4)
    return y


@jit(nopython=True, cache=True)
def __dtw_calc_accu_cost(C, D, steps, step_sizes_sigma, weights_mul, weights_add, max_0, max_1):
    for cur_n in range(max_0, D.shape[0]):
        for cur_m in range(max_1, D.shape[1]):
            for cur_step_idx, cur_w_add, cur_w_mul in zip(range(step_sizes_sigma.shape[0]),
                                                         weights_add, weights_mul):
                cur_D = D[cur_n - step_sizes_sigma[cur_step_idx, 0],
                          cur_m - step_sizes_sigma[cur_step_idx, 1]]
                cur_C = cur_w_mul * C[cur_n - max_0, cur_m - max_1]
                cur_C += cur_w_add
                cur_cost = cur_D + cur_C
                if cur_cost < D[cur_n, cur_m]:
                    D[cur_n, cur_m] = cur_cost
                    steps[cur_n, cur_m] = cur_step_idx
    return D, steps

@jit(nopython=True, cache=True)
def __dtw_backtracking(steps, step_sizes_sigma, subseq, start=None):
    wp = []
    if start is None:
        cur_idx = (steps.shape[0] - 1, steps.shape[1] - 1)
    else:
        cur_idx = (steps.shape[0] - 1, start)
    wp.append((cur_idx[0], cur_idx[1]))
    while (subseq and cur_idx[0] > 0) or (not subseq and cur_idx != (0, 0)):
        cur_step_idx = steps[(cur_idx[0], cur_idx[1])]
        cur_idx = (cur_idx[0] - step_sizes_sigma[cur_step_idx][0],
                   cur_idx[1] - step_sizes_sigma[cur_step_idx][1])
        if min(cur_idx) < 0:
            break
        wp.append((cur_idx[0], cur_idx[1]))
    return wp

def case_librosa_dtw():
    rs = np.random.RandomState(9)
    X = rs.rand(3, 7); Y = rs.rand(3, 9)
    C = np.sqrt(((X[:, :, None] - Y[:, None, :]) ** 2).sum(axis=0))
    sigma = np.array([[1, 1], [0, 1], [1, 0]])
    D = np.ones(C.shape + np.array([1, 1])) * np.inf
    D[0, 0] = C[0, 0]
    D[1:, 1:] = np.inf  # keep shape
    D[1, 1] = C[0, 0]
    D[0, 0] = 0
    steps = np.zeros(D.shape, dtype=np.int32)
    D, steps = __dtw_calc_accu_cost(C, D, steps, sigma, np.ones(3), np.zeros(3), 1, 1)
    D = D[1:, 1:]; steps = steps[1:, 1:]
    wp = __dtw_backtracking(steps, sigma, False)
    return D, np.asarray(wp, dtype=int)


@jit(nopython=True, cache=True)
def __match_interval_overlaps(query, intervals_to, candidates):
    best_score = -1
    best_idx = -1
    for idx in candidates:
        score = min(query[1], intervals_to[idx, 1]) - max(query[0], intervals_to[idx, 0])
        if score > best_score:
            best_score, best_idx = score, idx
    return best_idx

@jit(nopython=True, cache=True)
def __match_intervals(intervals_from, intervals_to, strict=True):
    start_index = np.argsort(intervals_to[:, 0])
    end_index = np.argsort(intervals_to[:, 1])
    start_sorted = intervals_to[start_index, 0]
    end_sorted = intervals_to[end_index, 1]
    search_ends = np.searchsorted(start_sorted, intervals_from[:, 1], side="right")
    search_starts = np.searchsorted(end_sorted, intervals_from[:, 0], side="left")
    output = np.empty(len(intervals_from), dtype=np.uint32)
    for i in range(len(intervals_from)):
        query = intervals_from[i]
        after_query = search_ends[i]
        before_query = search_starts[i]
        candidates = set(start_index[:after_query]) & set(end_index[before_query:])
        if len(candidates) > 0:
            output[i] = __match_interval_overlaps(query, intervals_to, candidates)
        elif strict:
            raise ValueError("no overlap")
        else:
            dist_before = np.inf
            dist_after = np.inf
            if search_starts[i] > 0:
                dist_before = query[0] - end_sorted[search_starts[i] - 1]
            if search_ends[i] + 1 < len(intervals_to):
                dist_after = start_sorted[search_ends[i] + 1] - query[1]
            if dist_before < dist_after:
                output[i] = end_index[search_starts[i] - 1]
            else:
                output[i] = start_index[search_ends[i] + 1]
    return output

def case_librosa_match_intervals():
    a = np.array([[0.0, 1.0], [1.0, 2.5], [2.5, 4.0], [6.0, 7.0]])
    b = np.array([[0.0, 1.5], [1.5, 3.0], [3.0, 5.0], [5.2, 5.5]])
    return __match_intervals(a, b, False), __match_intervals(a[:3], b, True)


@guvectorize("(n),(m),(p),(p),(),()->(m)", nopython=True)
def resample_f_s(x, t_out, interp_win, interp_delta, num_table, scale, y):
    index_step = int(scale * num_table)
    time_register = 0.0
    n = 0
    frac = 0.0
    index_frac = 0.0
    offset = 0
    eta = 0.0
    weight = 0.0
    nwin = interp_win.shape[0]
    n_orig = x.shape[0]
    n_out = t_out.shape[0]
    for t in range(n_out):
        time_register = t_out[t]
        n = int(time_register)
        frac = scale * (time_register - n)
        index_frac = frac * num_table
        offset = int(index_frac)
        eta = index_frac - offset
        i_max = min(n + 1, (nwin - offset) // index_step)
        for i in range(i_max):
            weight = interp_win[offset + i * index_step] + eta * interp_delta[offset + i * index_step]
            y[t] += weight * x[n - i]
        frac = scale - frac
        index_frac = frac * num_table
        offset = int(index_frac)
        eta = index_frac - offset
        k_max = min(n_orig - n - 1, (nwin - offset) // index_step)
        for k in range(k_max):
            weight = interp_win[offset + k * index_step] + eta * interp_delta[offset + k * index_step]
            y[t] += weight * x[n + k + 1]

def case_resampy_gufunc():
    x = np.sin(np.arange(64) * 0.2)
    win = np.hanning(129)[64:] ; delta = np.zeros_like(win); delta[:-1] = np.diff(win)
    t_out = np.arange(40) * 1.5
    y = np.zeros(40)
    resample_f_s(x, t_out, win, delta, 8, 1.0, y)
    return y

# ---------------- pyjit-stats ----------------
def _jit(arg, cache=True):
    if isinstance(arg, int):
        signatures = []
        for T in (nb.float32, nb.float64):
            if arg < 0:   # scalar helpers: T(T, T, T)
                sig = T(*[T for _ in range(-arg * 3)])
            else:
                sig = T[:](T[:], *[T for _ in range(arg)])
            signatures.append(sig)
        return nb.njit(signatures, cache=cache, error_model="numpy")
    return nb.njit(arg, cache=cache, error_model="numpy")

def _vectorize(narg, cache=True, **kwargs):
    return nb.vectorize([T(*[T] * narg) for T in (nb.float32, nb.float64)], cache=cache, **kwargs)

@_jit(-1)
def _norm_z(x, loc, scale):
    return (x - loc) / scale

@_jit(2)
def norm_logpdf(x, loc, scale):
    T = type(scale)
    r = np.empty_like(x)
    for i in range(len(x)):
        z = _norm_z(x[i], loc, scale)
        r[i] = -T(0.5) * z * z - T(np.log(np.sqrt(2 * np.pi))) - np.log(scale)
    return r

@_jit(2)
def norm_cdf(x, loc, scale):
    r = np.empty_like(x)
    for i in range(len(x)):
        z = _norm_z(x[i], loc, scale) * type(scale)(1 / np.sqrt(2))
        r[i] = type(scale)(0.5) * (type(scale)(1) + math.erf(z))
    return r

@_vectorize(3)
def expon_pdf(x, loc, scale):
    z = (x - loc) / scale
    if z < 0:
        return 0.0 * z
    return np.exp(-z) / scale

def case_numba_stats():
    x64 = np.linspace(-2, 3, 11)
    x32 = x64.astype(np.float32)
    return (norm_logpdf(x64, 0.5, 2.0), norm_cdf(x64, 0.5, 2.0), norm_cdf(x32, np.float32(0.5), np.float32(2.0)),
            expon_pdf(x64, 0.0, 1.5), expon_pdf(x32, np.float32(0), np.float32(1.5)).dtype)


def _poisson_pmf_py(k, mu):
    raise NotImplementedError

@overload(_poisson_pmf_py)
def _ol_poisson_pmf(k, mu):
    if isinstance(k, types.Integer) and isinstance(mu, types.Float):
        def impl(k, mu):
            return np.exp(k * np.log(mu) - mu - math.lgamma(k + 1))
        return impl
    if isinstance(k, types.Array):
        def impl(k, mu):
            out = np.empty(k.shape, dtype=np.float64)
            for i in range(k.size):
                out[i] = np.exp(k[i] * np.log(mu) - mu - math.lgamma(k[i] + 1))
            return out
        return impl

@nb.njit
def poisson_both(ks, mu):
    return _poisson_pmf_py(3, mu), _poisson_pmf_py(ks, mu)

def _todo_numba_stats_overload():
    return poisson_both(np.arange(6), 2.5)

# ---------------- datashader ----------------
ngjit = nb.jit(nopython=True, nogil=True)
ngjit_parallel = nb.jit(nopython=True, nogil=True, parallel=True)

@ngjit
def isnull(val):
    return not (val <= 0 or val > 0)

@ngjit
def nanmax_in_place(ret, other):
    ret = ret.ravel()
    other = other.ravel()
    for i in range(len(ret)):
        if isnull(ret[i]):
            if not isnull(other[i]):
                ret[i] = other[i]
        elif not isnull(other[i]) and other[i] > ret[i]:
            ret[i] = other[i]

class count:
    @staticmethod
    @ngjit
    def _append(i, x, y, agg):
        agg[y, x] += 1
        return 0

    @staticmethod
    def _combine(aggs):
        return aggs.sum(axis=0, dtype="i4")

class max_:
    @staticmethod
    @ngjit
    def _append(i, x, y, agg, field_col):
        field = field_col[i]
        if not isnull(field):
            if isnull(agg[y, x]) or field > agg[y, x]:
                agg[y, x] = field
                return 0
        return -1

def _build_map_onto_pixel(x_mapper, y_mapper):
    @ngjit
    def _map_onto_pixel(sx, tx, sy, ty, xmin, xmax, ymin, ymax, x, y):
        xx = int(x_mapper(x) * sx + tx)
        yy = int(y_mapper(y) * sy + ty)
        xxmax = round(x_mapper(xmax) * sx + tx)
        yymax = round(y_mapper(ymax) * sy + ty)
        return (xx - 1 if xx == xxmax else xx, yy - 1 if yy == yymax else yy)
    return _map_onto_pixel

@ngjit
def _identity(x):
    return x

@ngjit
def _log10(x):
    return np.log10(x)

def _build_extend_points(map_onto_pixel, append):
    @ngjit
    def _perform(i, sx, tx, sy, ty, xmin, xmax, ymin, ymax, xs, ys, *aggs_and_cols):
        x = xs[i]
        y = ys[i]
        if (xmin <= x <= xmax) and (ymin <= y <= ymax):
            xi, yi = map_onto_pixel(sx, tx, sy, ty, xmin, xmax, ymin, ymax, x, y)
            append(i, xi, yi, *aggs_and_cols)

    @ngjit
    def extend_cpu(sx, tx, sy, ty, xmin, xmax, ymin, ymax, xs, ys, *aggs_and_cols):
        for i in range(xs.shape[0]):
            _perform(i, sx, tx, sy, ty, xmin, xmax, ymin, ymax, xs, ys, *aggs_and_cols)
    return extend_cpu

def _todo_datashader_points():
    rs = np.random.RandomState(10)
    xs = rs.rand(200) * 10; ys = 10 ** (rs.rand(200) * 2)
    mop = _build_map_onto_pixel(_identity, _log10)
    agg = np.zeros((8, 10), dtype=np.int32)
    ext = _build_extend_points(mop, count._append)
    ext(1.0, 0.0, 4.0, 0.0, 0.0, 10.0, 1.0, 100.0, xs, ys, agg)
    magg = np.full((8, 10), np.nan)
    ext2 = _build_extend_points(mop, max_._append)
    ext2(1.0, 0.0, 4.0, 0.0, 0.0, 10.0, 1.0, 100.0, xs, ys, magg, xs * ys)
    other = np.full((8, 10), 5.0); other[0, 0] = np.nan
    nanmax_in_place(magg, other)
    return agg, count._combine(np.stack([agg, agg])), magg


@ngjit
def _draw_bresenham(sx, tx, sy, ty, xmin, xmax, ymin, ymax, x0, x1, y0, y1, clipped, append, agg):
    dx = x1 - x0
    ix = (dx > 0) - (dx < 0)
    dx = abs(dx) * 2
    dy = y1 - y0
    iy = (dy > 0) - (dy < 0)
    dy = abs(dy) * 2
    if dx >= dy:
        error = 2 * dy - dx
        while x0 != x1:
            if error >= 0 and (error or ix > 0):
                error -= 2 * dx
                y0 += iy
            error += 2 * dy
            x0 += ix
            append(0, x0, y0, agg)
    else:
        error = 2 * dx - dy
        while y0 != y1:
            if error >= 0 and (error or iy > 0):
                error -= 2 * dy
                x0 += ix
            error += 2 * dx
            y0 += iy
            append(0, x0, y0, agg)

def case_datashader_bresenham():
    agg = np.zeros((20, 20), dtype=np.uint32)
    _draw_bresenham(1.0, 0.0, 1.0, 0.0, 0.0, 20.0, 0.0, 20.0, 1, 15, 2, 9, False, count._append, agg)
    _draw_bresenham(1.0, 0.0, 1.0, 0.0, 0.0, 20.0, 0.0, 20.0, 18, 3, 1, 19, False, count._append, agg)
    return agg


@ngjit_parallel
def _eq_hist_interp(data, mask, nbins):
    flat = data.ravel()
    m = mask.ravel()
    vals = flat[~m]
    hist, edges = np.histogram(vals, bins=nbins)
    cdf = hist.cumsum()
    cdf = cdf / float(cdf[-1])
    centers = (edges[1:] + edges[:-1]) / 2
    out = np.full(flat.shape, np.nan)
    for i in nb.prange(flat.shape[0]):
        if not m[i]:
            out[i] = np.interp(flat[i], centers, cdf)
    return out.reshape(data.shape)

def case_datashader_eq_hist():
    d = np.random.RandomState(11).exponential(size=(6, 7))
    return _eq_hist_interp(d, d > 2.5, 16)

# ---------------- trackpy ----------------
def try_numba_jit(func=None, **kwargs):
    if func is None:
        return partial(try_numba_jit, **kwargs)
    if HAVE_NUMBA:
        return pyjit.jit(**kwargs)(func)
    return func

@try_numba_jit(nopython=True)
def _numba_refine_2D(raw_image, image, radiusY, radiusX, coords, N, max_iterations,
                     shapeY, shapeX, maskY, maskX, N_mask, results):
    SHIFT_THRESH = 0.6
    GOOD_ENOUGH_THRESH = 0.01
    upper_boundY = shapeY - radiusY - 1
    upper_boundX = shapeX - radiusX - 1
    for feat in range(N):
        coordY = coords[feat, 0]
        coordX = coords[feat, 1]
        cm_nY = 0.0
        cm_nX = 0.0
        allow_moves = True
        for iteration in range(max_iterations):
            mass_ = 0.0
            cm_nY = 0.0
            cm_nX = 0.0
            for i in range(N_mask):
                px = image[coordY + maskY[i], coordX + maskX[i]]
                cm_nY += px * maskY[i]
                cm_nX += px * maskX[i]
                mass_ += px
            cm_nY /= mass_
            cm_nX /= mass_
            off_centerY = cm_nY
            off_centerX = cm_nX
            if (abs(off_centerY) < GOOD_ENOUGH_THRESH and abs(off_centerX) < GOOD_ENOUGH_THRESH):
                break
            newY = coordY
            newX = coordX
            oc = off_centerY
            if oc > SHIFT_THRESH:
                newY += 1
            elif oc < -SHIFT_THRESH:
                newY -= 1
            oc = off_centerX
            if oc > SHIFT_THRESH:
                newX += 1
            elif oc < -SHIFT_THRESH:
                newX -= 1
            if newY > upper_boundY:
                newY = upper_boundY
            elif newY < radiusY:
                newY = radiusY
            if newX > upper_boundX:
                newX = upper_boundX
            elif newX < radiusX:
                newX = radiusX
            if newY == coordY and newX == coordX:
                break
            if not allow_moves:
                break
            coordY = newY
            coordX = newX
        results[feat, 0] = cm_nY + coordY
        results[feat, 1] = cm_nX + coordX
        raw_mass_ = 0.0
        for i in range(N_mask):
            raw_mass_ += raw_image[coordY + maskY[i], coordX + maskX[i]]
        results[feat, 2] = raw_mass_
    return 0

def case_trackpy_refine():
    yy, xx = np.mgrid[0:30, 0:30]
    img = np.exp(-((yy - 10.3) ** 2 + (xx - 12.6) ** 2) / 6.0) + np.exp(-((yy - 20.0) ** 2 + (xx - 19.2) ** 2) / 6.0)
    r = 3
    my, mx = np.nonzero(np.hypot(*np.mgrid[-r:r + 1, -r:r + 1]) <= r)
    my = (my - r).astype(np.int64); mx = (mx - r).astype(np.int64)
    coords = np.array([[9, 11], [21, 20]], dtype=np.int64)
    res = np.zeros((2, 3))
    _numba_refine_2D(img, img, r, r, coords, 2, 10, 30, 30, my, mx, my.size, res)
    return res

# ---------------- pysteps-style ----------------
try:
    from pyjit import njit as _pnjit, prange as _pprange
    NUMBA_IMPORTED = True
except ImportError:
    NUMBA_IMPORTED = False

@_pnjit(parallel=True, cache=True)
def _windowed_corr(a, b, win):
    ny, nx = a.shape
    out = np.zeros((ny, nx))
    h = win // 2
    for i in _pprange(ny):
        for j in range(nx):
            i0 = max(i - h, 0); i1 = min(i + h + 1, ny)
            j0 = max(j - h, 0); j1 = min(j + h + 1, nx)
            wa = a[i0:i1, j0:j1]
            wb = b[i0:i1, j0:j1]
            ma = np.mean(wa); mb = np.mean(wb)
            num = np.sum((wa - ma) * (wb - mb))
            den = np.sqrt(np.sum((wa - ma) ** 2) * np.sum((wb - mb) ** 2))
            out[i, j] = num / den if den > 0 else 0.0
    return out

def case_pysteps_windowed_corr():
    rs = np.random.RandomState(12)
    a = rs.rand(9, 8); b = a + rs.rand(9, 8) * 0.3
    return _windowed_corr(a, b, 3)

# ---------------- sktime / tslearn ----------------
@njit(cache=True)
def _univariate_squared_distance(x, y):
    d = 0.0
    for i in range(x.shape[0]):
        diff = x[i] - y[i]
        d += diff * diff
    return d

@njit(cache=True)
def _sakoe_chiba_bounding(x_size, y_size, window):
    bounding = np.full((x_size, y_size), False)
    w = int(window * max(x_size, y_size))
    for i in range(x_size):
        lo = max(0, i - w)
        hi = min(y_size, i + w + 1)
        bounding[i, lo:hi] = True
    return bounding

@njit(cache=True, fastmath=True)
def _dtw_cost_matrix(x, y, bounding_matrix):
    x_size = x.shape[1]
    y_size = y.shape[1]
    cost_matrix = np.full((x_size + 1, y_size + 1), np.inf)
    cost_matrix[0, 0] = 0.0
    for i in range(x_size):
        for j in range(y_size):
            if bounding_matrix[i, j]:
                cost_matrix[i + 1, j + 1] = _univariate_squared_distance(x[:, i], y[:, j]) + min(
                    cost_matrix[i, j + 1], cost_matrix[i + 1, j], cost_matrix[i, j])
    return cost_matrix[1:, 1:]

@njit(cache=True, fastmath=True)
def _dtw_pairwise_distance(X: NumbaList, window: float) -> np.ndarray:
    n_cases = len(X)
    distances = np.zeros((n_cases, n_cases))
    for i in range(n_cases):
        for j in range(i + 1, n_cases):
            x1, x2 = X[i], X[j]
            bm = _sakoe_chiba_bounding(x1.shape[1], x2.shape[1], window)
            distances[i, j] = _dtw_cost_matrix(x1, x2, bm)[x1.shape[1] - 1, x2.shape[1] - 1]
            distances[j, i] = distances[i, j]
    return distances

def case_aeon_dtw_pairwise():
    rs = np.random.RandomState(13)
    X = NumbaList()
    for n in (10, 12, 9):
        X.append(rs.rand(2, n))
    return _dtw_pairwise_distance(X, 0.3)


@njit()
def _local_squared_dist(x, y):
    dist = 0.0
    for di in range(x.shape[0]):
        diff = x[di] - y[di]
        dist += diff * diff
    return dist

@njit()
def njit_accumulated_matrix(s1, s2, mask):
    l1 = s1.shape[0]
    l2 = s2.shape[0]
    cum_sum = np.full((l1 + 1, l2 + 1), np.inf)
    cum_sum[0, 0] = 0.0
    for i in range(l1):
        for j in range(l2):
            if np.isfinite(mask[i, j]):
                cum_sum[i + 1, j + 1] = _local_squared_dist(s1[i], s2[j])
                cum_sum[i + 1, j + 1] += min(cum_sum[i, j + 1], cum_sum[i + 1, j], cum_sum[i, j])
    return cum_sum[1:, 1:]

@njit()
def _njit_return_path(acc_cost_mat):
    sz1, sz2 = acc_cost_mat.shape
    path = [(sz1 - 1, sz2 - 1)]
    while path[-1] != (0, 0):
        i, j = path[-1]
        if i == 0:
            path.append((0, j - 1))
        elif j == 0:
            path.append((i - 1, 0))
        else:
            arr = np.array([acc_cost_mat[i - 1][j - 1], acc_cost_mat[i - 1][j], acc_cost_mat[i][j - 1]])
            argmin = np.argmin(arr)
            if argmin == 0:
                path.append((i - 1, j - 1))
            elif argmin == 1:
                path.append((i - 1, j))
            else:
                path.append((i, j - 1))
    return path[::-1]

@njit()
def sakoe_chiba_mask(sz1, sz2, radius=1):
    mask = np.full((sz1, sz2), np.inf)
    if sz1 > sz2:
        width = sz1 - sz2 + radius
        for i in range(sz2):
            lower = max(0, i - radius)
            upper = min(sz1, i + width) + 1
            mask[lower:upper, i] = 0.0
    else:
        width = sz2 - sz1 + radius
        for i in range(sz1):
            lower = max(0, i - radius)
            upper = min(sz2, i + width) + 1
            mask[i, lower:upper] = 0.0
    return mask

@njit(parallel=True)
def njit_cdist_dtw(dataset1, dataset2, mask):
    n1 = dataset1.shape[0]
    n2 = dataset2.shape[0]
    dists = np.empty((n1, n2))
    for i in prange(n1):
        for j in range(n2):
            dists[i, j] = np.sqrt(njit_accumulated_matrix(dataset1[i], dataset2[j], mask)[-1, -1])
    return dists

def case_tslearn_dtw():
    rs = np.random.RandomState(14)
    a = rs.rand(3, 8, 2); b = rs.rand(2, 8, 2)
    mask = sakoe_chiba_mask(8, 8, 2)
    acc = njit_accumulated_matrix(a[0], b[1], mask)
    return njit_cdist_dtw(a, b, mask), _njit_return_path(acc), sakoe_chiba_mask(6, 4, 1)


@njit(fastmath=True)
def _njit_softmin3(a, b, c, gamma):
    a /= -gamma
    b /= -gamma
    c /= -gamma
    max_val = max(a, b, c)
    tmp = np.exp(a - max_val) + np.exp(b - max_val) + np.exp(c - max_val)
    return -gamma * (np.log(tmp) + max_val)

@njit(fastmath=True)
def _njit_soft_dtw(D, R, gamma):
    m = D.shape[0]
    n = D.shape[1]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            R[i, j] = D[i - 1, j - 1] + _njit_softmin3(R[i - 1, j], R[i - 1, j - 1], R[i, j - 1], gamma)

def case_tslearn_soft_dtw():
    rs = np.random.RandomState(15)
    D = rs.rand(5, 6)
    R = np.full((6, 7), np.inf); R[0, 0] = 0
    _njit_soft_dtw(D, R, 0.5)
    return R

# ---------------- pydata/sparse ----------------
@pyjit.jit(nopython=True, nogil=True)
def _calc_counts_invidx(groups):
    inv_idx = []
    counts = []
    if len(groups) == 0:
        return (np.array(inv_idx, dtype=groups.dtype), np.array(counts, dtype=groups.dtype))
    inv_idx.append(0)
    last_group = groups[0]
    for i in range(1, len(groups)):
        if groups[i] != last_group:
            counts.append(i - inv_idx[-1])
            inv_idx.append(i)
            last_group = groups[i]
    counts.append(len(groups) - inv_idx[-1])
    return (np.array(inv_idx, dtype=groups.dtype), np.array(counts, dtype=groups.dtype))

def case_sparse_counts():
    return _calc_counts_invidx(np.array([1, 1, 2, 5, 5, 5, 7], dtype=np.intp)), \
        _calc_counts_invidx(np.zeros(0, dtype=np.intp))


def _dot_csr_csr_type(dt1, dt2):
    dtr = np.result_type(dt1, dt2)
    nb_dtr = pyjit.np.numpy_support.from_dtype(dtr)

    @pyjit.jit(nopython=True, nogil=True, locals={"data_curr": nb_dtr})
    def _dot_csr_csr(out_shape, a_data, b_data, a_indices, b_indices, a_indptr, b_indptr):
        n_row, n_col = out_shape
        nnz = 0
        mask = np.full(n_col, -1)
        for i in range(n_row):
            row_nnz = 0
            for jj in range(a_indptr[i], a_indptr[i + 1]):
                j = a_indices[jj]
                for kk in range(b_indptr[j], b_indptr[j + 1]):
                    k = b_indices[kk]
                    if mask[k] != i:
                        mask[k] = i
                        row_nnz += 1
            nnz += row_nnz
        indptr = np.empty(n_row + 1, dtype=np.intp)
        indptr[0] = 0
        indices = np.empty(nnz, dtype=np.intp)
        data = np.empty(nnz, dtype=dtr)
        next_ = np.full(n_col, -1)
        sums = np.zeros(n_col, dtype=dtr)
        nnz = 0
        for i in range(n_row):
            head = -2
            length = 0
            next_[:] = -1
            for jj in range(a_indptr[i], a_indptr[i + 1]):
                j = a_indices[jj]
                v = a_data[jj]
                for kk in range(b_indptr[j], b_indptr[j + 1]):
                    k = b_indices[kk]
                    sums[k] += v * b_data[kk]
                    if next_[k] == -1:
                        next_[k] = head
                        head = k
                        length += 1
            start = nnz
            for _ in range(length):
                if next_[head] != -1:
                    indices[nnz] = head
                    data_curr = sums[head]
                    data[nnz] = data_curr
                    nnz += 1
                temp = head
                head = next_[head]
                next_[temp] = -1
                sums[temp] = 0
            indices[start:nnz].sort()
            # reorder data along with indices
            indptr[i + 1] = nnz
        return data, indices, indptr
    return _dot_csr_csr

def _to_csr(A):
    indptr = [0]; indices = []; data = []
    for r in A:
        nz = np.nonzero(r)[0]
        indices.extend(nz); data.extend(r[nz]); indptr.append(len(indices))
    return np.array(data, dtype=A.dtype), np.array(indices, dtype=np.intp), np.array(indptr, dtype=np.intp)

def case_sparse_dot():
    rs = np.random.RandomState(16)
    A = (rs.rand(5, 6) > 0.6) * rs.rand(5, 6)
    B = ((rs.rand(6, 4) > 0.5) * rs.randint(1, 5, (6, 4))).astype(np.int64)
    ad, ai, ap = _to_csr(A); bd, bi, bp = _to_csr(B)
    f = _dot_csr_csr_type(A.dtype, B.dtype)
    d, i, p = f((5, 4), ad, bd, ai, bi, ap, bp)
    dense = np.zeros((5, 4))
    for r in range(5):
        for t in range(p[r], p[r + 1]):
            dense[r, i[t]] = 0  # positions only
    return i, p, np.sort(d)

# ---------------- hyperspy ----------------
@njit(cache=True)
def _numba_histogram(data, bins, ranges):
    hist = np.zeros((bins,), dtype=np.intp)
    bin_width = (ranges[1] - ranges[0]) / bins
    for value in data.flat:
        if ranges[0] <= value < ranges[1]:
            bin_index = int((value - ranges[0]) / bin_width)
            hist[bin_index] += 1
    return hist

@njit(cache=True)
def numba_closest_index_round(axis_array, value_array):
    rtol = 1e-10
    machineepsilon = np.min(np.abs(np.diff(axis_array))) * rtol
    index_array = np.empty_like(value_array, dtype="uint")
    for i, v in np.ndenumerate(value_array):
        index_array[i] = np.argmin(np.abs(axis_array - (v - np.sign(v) * machineepsilon)))
    return index_array

@njit(cache=True)
def numba_closest_index_floor(axis_array, value_array):
    index_array = np.empty_like(value_array, dtype="uint")
    for i, v in np.ndenumerate(value_array):
        index_array[i] = np.argmin(np.abs(axis_array - v)) if axis_array[np.argmin(np.abs(axis_array - v))] <= v \
            else np.argmin(np.abs(axis_array - v)) - 1
    return index_array

def case_hyperspy():
    d = np.random.RandomState(17).rand(4, 5) * 10
    ax = np.linspace(0, 10, 21)
    v = np.array([[0.26, 3.3], [7.74, 9.99]])
    return _numba_histogram(d, 7, (1.0, 9.0)), numba_closest_index_round(ax, v), numba_closest_index_floor(ax, v)

# ---------------- pymc-style samplers ----------------
@njit
def _logp_normal(x, mu, sigma):
    return -0.5 * np.sum(((x - mu) / sigma) ** 2) - x.size * np.log(sigma)

@njit
def metropolis(logp, x0, n_steps, step, seed, *args):
    np.random.seed(seed)
    d = x0.shape[0]
    trace = np.empty((n_steps, d))
    x = x0.copy()
    lp = logp(x, *args)
    accepted = 0
    for t in range(n_steps):
        prop = x + step * np.random.standard_normal(d)
        lp_prop = logp(prop, *args)
        if np.log(np.random.uniform(0.0, 1.0)) < lp_prop - lp:
            x = prop
            lp = lp_prop
            accepted += 1
        trace[t] = x
    return trace, accepted / n_steps

def case_pymc_metropolis():
    tr, acc = metropolis(_logp_normal, np.zeros(2), 200, 0.8, 3, 1.5, 2.0)
    return tr.mean(axis=0), acc

# ---------------- poliastro / hapsira ----------------
jit_p = pyjit.njit

@jit_p
def rv_pqw(k, p, ecc, nu):
    pqw = np.array([[np.cos(nu), np.sin(nu), 0], [-np.sin(nu), ecc + np.cos(nu), 0]]) * np.array(
        [[p / (1 + ecc * np.cos(nu))], [np.sqrt(k / p)]])
    return pqw

@jit_p
def rotation_matrix(angle, axis):
    assert axis in (0, 1, 2)
    angle = np.asarray(angle)
    c = np.cos(angle)
    s = np.sin(angle)
    a1 = (axis + 1) % 3
    a2 = (axis + 2) % 3
    R = np.zeros(angle.shape + (3, 3))
    R[..., axis, axis] = 1.0
    R[..., a1, a1] = c
    R[..., a1, a2] = -s
    R[..., a2, a1] = s
    R[..., a2, a2] = c
    return R

@jit_p
def coe_rotation_matrix(inc, raan, argp):
    r = rotation_matrix(raan, 2)
    r = r @ rotation_matrix(inc, 0)
    r = r @ rotation_matrix(argp, 2)
    return r

@jit_p
def coe2rv(k, p, ecc, inc, raan, argp, nu):
    pqw = rv_pqw(k, p, ecc, nu)
    rm = coe_rotation_matrix(inc, raan, argp)
    ijk = pqw @ rm.T
    return ijk

@jit_p
def E_to_nu(E, ecc):
    return 2 * np.arctan(np.sqrt((1 + ecc) / (1 - ecc)) * np.tan(E / 2))

@jit_p
def c2(psi):
    eps = 1.0
    if psi > eps:
        res = (1 - np.cos(np.sqrt(psi))) / psi
    elif psi < -eps:
        res = (np.cosh(np.sqrt(-psi)) - 1) / (-psi)
    else:
        res = 1.0 / 2.0
        delta = (-psi) / math.gamma(2 + 2 + 1)
        k = 1
        while res + delta != res:
            res = res + delta
            k += 1
            delta = (-psi) ** k / math.gamma(2 * k + 2 + 1)
    return res

def _todo_poliastro():
    return (coe2rv(398600.0, 7000.0, 0.1, 0.5, 1.0, 0.3, 0.7), E_to_nu(0.4, 0.2),
            [c2(p) for p in (-3.0, 0.2, 5.0)])


def hjit(*args, **kwargs):
    """hapsira-style decorator factory: bare or with a signature."""
    if len(args) == 1 and callable(args[0]):
        return pyjit.njit(**kwargs)(args[0])
    def wrapper(func):
        return pyjit.njit(*args, **kwargs, cache=False)(func)
    return wrapper

@hjit("f8(f8,f8)", inline="never")
def M_to_E_newton(M, ecc):
    E = M
    for _ in range(50):
        dE = (E - ecc * np.sin(E) - M) / (1 - ecc * np.cos(E))
        E -= dE
        if abs(dE) < 1e-12:
            break
    return E

@hjit
def kepler_chain(M, ecc):
    return E_to_nu(M_to_E_newton(M, ecc), ecc)

def case_hapsira():
    return [kepler_chain(m, 0.3) for m in (0.1, 1.0, 2.5)]

# ---------------- EconForge interpolation ----------------
def get_index(g, x):
    raise NotImplementedError

@overload(get_index)
def _ol_get_index(g, x):
    if isinstance(g, types.UniTuple) or isinstance(g, types.Tuple):
        def impl(g, x):
            a, b, n = g
            delta = (b - a) / (n - 1)
            i = int((x - a) / delta)
            i = max(min(i, n - 2), 0)
            return i, (x - (a + i * delta)) / delta
        return impl
    elif isinstance(g, types.Array):
        def impl(g, x):
            n = g.shape[0]
            i = np.searchsorted(g, x) - 1
            i = max(min(i, n - 2), 0)
            return i, (x - g[i]) / (g[i + 1] - g[i])
        return impl

@njit
def eval_linear_2d(grid, C, points):
    out = np.empty(points.shape[0])
    g0, g1 = grid
    for k in range(points.shape[0]):
        i, lx = get_index(g0, points[k, 0])
        j, ly = get_index(g1, points[k, 1])
        out[k] = ((1 - lx) * (1 - ly) * C[i, j] + lx * (1 - ly) * C[i + 1, j]
                  + (1 - lx) * ly * C[i, j + 1] + lx * ly * C[i + 1, j + 1])
    return out

def _todo_interpolation_grids():
    x = np.linspace(0, 1, 11); y = np.linspace(0, 2, 21) ** 2 / 2
    C = np.sin(x)[:, None] * np.cos(y)[None, :]
    pts = np.random.RandomState(18).rand(7, 2) * [1, 2]
    return (eval_linear_2d(((0.0, 1.0, 11), y), C, pts), eval_linear_2d((x, y), C, pts),
            eval_linear_2d(((0.0, 1.0, 11), (0.0, 2.0, 21)), C, pts))


@njit
def interp_1d(x, y, u):
    n = x.shape[0]
    out = np.empty_like(u)
    for k in range(u.shape[0]):
        t = u[k]
        i = max(min(np.searchsorted(x, t) - 1, n - 2), 0)
        lam = (t - x[i]) / (x[i + 1] - x[i])
        out[k] = (1 - lam) * y[i] + lam * y[i + 1]
    return out

def case_interpolation_1d():
    x = np.linspace(0, 3, 8); return interp_1d(x, x ** 2, np.linspace(-0.5, 3.5, 9))

# ---------------- numbagg ----------------
class ndmoving:
    def __init__(self, signature=((float32[:], int64, int64, float32[:]),
                                  (float64[:], int64, int64, float64[:]))):
        self.signature = signature

    def __call__(self, func):
        return pyjit.guvectorize(self.signature, "(n),(),()->(n)", nopython=True)(func)

@ndmoving()
def move_mean(a, window, min_count, out):
    asum = 0.0
    count = 0
    for i in range(window):
        ai = a[i]
        if not np.isnan(ai):
            asum += ai
            count += 1
        out[i] = asum / count if count >= min_count else np.nan
    for i in range(window, len(a)):
        ai = a[i]
        aold = a[i - window]
        if not np.isnan(ai):
            asum += ai
            count += 1
        if not np.isnan(aold):
            asum -= aold
            count -= 1
        out[i] = asum / count if count >= min_count else np.nan

@pyjit.guvectorize([(float32[:], float32, float32, float32[:]), (float64[:], float64, float64, float64[:])],
                   "(n),(),()->(n)", nopython=True)
def move_exp_nanmean(a, alpha, min_weight, out):
    N = len(a)
    numer = denom = weight = 0.0
    decay = 1.0 - alpha
    for i in range(N):
        a_i = a[i]
        numer *= decay
        denom *= decay
        weight *= decay
        if not np.isnan(a_i):
            numer += a_i
            denom += 1.0
            weight += alpha
        if weight >= min_weight:
            out[i] = numer / denom
        else:
            out[i] = np.nan

@pyjit.guvectorize(["void(float32[:], float32[:])", "void(float64[:], float64[:])"], "(n)->()", nopython=True)
def nanmean_gu(a, out):
    asum = 0.0
    count = 0
    for ai in a.flat:
        if not np.isnan(ai):
            asum += ai
            count += 1
    out[0] = asum / count if count > 0 else np.nan

def case_numbagg():
    a = np.random.RandomState(19).rand(3, 12); a[1, 4] = np.nan
    return (move_mean(a, 3, 2), move_mean(a.astype(np.float32), 4, 1), move_exp_nanmean(a, 0.3, 0.5),
            nanmean_gu(a), nanmean_gu(a, axis=0))

# ---------------- extra module patterns ----------------
@register_jitable
def _kernel_gauss(u):
    return np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi)

@njit(nogil=True, cache=True)
def kde_eval(samples, grid, bw):
    out = np.zeros_like(grid)
    for i in range(grid.shape[0]):
        for s in samples:
            out[i] += _kernel_gauss((grid[i] - s) / bw)
    return out / (samples.shape[0] * bw)

def case_register_jitable_kde():
    return kde_eval(np.random.RandomState(20).randn(30), np.linspace(-3, 3, 13), 0.5)


def _make_agg(dtype):
    nbt = from_dtype(np.dtype(dtype))
    @njit(nbt[:](nbt[:, :]))
    def colmax(a):
        out = np.empty(a.shape[1], dtype=a.dtype)
        for j in range(a.shape[1]):
            out[j] = a[0, j]
            for i in range(1, a.shape[0]):
                if a[i, j] > out[j]:
                    out[j] = a[i, j]
        return out
    return colmax

def case_from_dtype_sig():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)[::-1].copy()
    return _make_agg(np.int32)(a), _make_agg("f8")(a.astype(np.float64)), str(as_dtype(types.float32))


@njit(types.float64(types.float64[:], types.int64), cache=True)
def mean_first(a, n):
    s = 0.0
    for i in range(n):
        s += a[i]
    return s / n

def case_core_types_sig():
    return mean_first(np.arange(5.0), 3)


if pyjit.config.DISABLE_JIT:
    _MODE = "python"
else:
    _MODE = "jit"

@njit(parallel=True)
def _row_norms(X, squared=False):
    out = np.empty(X.shape[0])
    for i in prange(X.shape[0]):
        s = 0.0
        for j in range(X.shape[1]):
            s += X[i, j] * X[i, j]
        out[i] = s if squared else np.sqrt(s)
    return out

def case_row_norms_threads():
    n = pyjit.get_num_threads()
    X = np.random.RandomState(21).rand(9, 4)
    return _row_norms(X), _row_norms(X, True), n >= 1

CASES = sorted(k for k in dir() if k.startswith("case_"))
