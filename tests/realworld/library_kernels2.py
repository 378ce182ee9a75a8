"""More Numba code as libraries write it, restated in our own words with the import switched to
pyjit (tests/realworld/test_rw_libraries.py runs each case compiled and under
PYJIT_DISABLE_JIT=1 and compares): pymatting's local smoothing (pndindex loops one after another
under parallel=True, each with its own per-pixel arrays and a `continue`); fast_hdbscan's kd-tree
held in a namedtuple and named in explicit signatures by `types.NamedTuple(types, cls)`, its
block-wise Boruvka helper declared for two signatures with `inline='always'` and called with
types neither names, its label vector testing `if lam[child == n] >= t:` (a one-element array's
truth) and its epsilon search filling `list()`; pyts' shapelet extraction returning typed Lists,
annotated `List[npt.NDArray[np.float64]]`; window-ops' rolling and expanding windows passing
compiled comparison functions and tuple windows."""
from collections import namedtuple
from math import sqrt

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

import pyjit as numba
from pyjit import njit, pndindex, prange
from pyjit.typed import List

# ---------------- pymatting: local smoothing of foreground and background ----------------


@njit("f4(f4[::1], f4[::1], f4[::1])", cache=False, nogil=True)
def _blend_alpha(c, f, b):
    num = 0.0
    den = 0.0
    for k in range(3):
        d = f[k] - b[k]
        num += (c[k] - b[k]) * d
        den += d * d
    return min(max(num / (den + 1e-5), 0.0), 1.0)


@njit("void(f4[:, :, ::1], f4[:, :, ::1], f4[:, ::1], f4[:, :, ::1], f4[:, :, ::1], "
      "f4[:, ::1], f4[:, :, ::1], f4[:, ::1], i8, f4)", parallel=True, nogil=True)
def _smooth_layers(out_f, out_b, out_a, fg, bg, alpha, image, trimap, radius, sigma2):
    h, w = trimap.shape
    weight = np.zeros((h, w), dtype=np.float32)
    out_f[:] = fg
    out_b[:] = bg
    for y, x in pndindex((h, w)):
        if trimap[y, x] == 0 or trimap[y, x] == 1:
            continue
        f_p = np.zeros(3, dtype=np.float32)
        b_p = np.zeros(3, dtype=np.float32)
        sum_f = 0.0
        sum_b = 0.0
        for dy in range(-radius, radius + 1):
            for dx in range(-radius, radius + 1):
                y2, x2 = y + dy, x + dx
                if 0 <= y2 < h and 0 <= x2 < w:
                    g = np.exp(-(dx * dx + dy * dy) / sigma2)
                    a2 = alpha[y2, x2]
                    wf = max(g * a2, 1e-5)
                    wb = max(g * (1.0 - a2), 1e-5)
                    sum_f += wf
                    sum_b += wb
                    for c in range(3):
                        f_p[c] += wf * fg[y2, x2, c]
                        b_p[c] += wb * bg[y2, x2, c]
        f_p /= sum_f
        b_p /= sum_b
        out_f[y, x] = f_p
        out_b[y, x] = b_p
        out_a[y, x] = _blend_alpha(image[y, x], f_p, b_p)
        weight[y, x] = alpha[y, x] * (1.0 - alpha[y, x])
    for y, x in pndindex((h, w)):
        if trimap[y, x] == 0 or trimap[y, x] == 1:
            out_a[y, x] = trimap[y, x]
            continue
        f_p = out_f[y, x]          # the same names, another loop: private to this one
        b_p = out_b[y, x]
        total = 0.0
        for dy in range(-radius, radius + 1):
            for dx in range(-radius, radius + 1):
                y2, x2 = y + dy, x + dx
                if 0 <= y2 < h and 0 <= x2 < w:
                    total += weight[y2, x2]
        out_a[y, x] = 0.5 * out_a[y, x] + 0.5 * _blend_alpha(image[y, x], f_p, b_p) * (
            total / (total + 1e-5))


def case_pymatting_local_smoothing():
    rng = np.random.default_rng(3)
    h, w = 9, 11
    image = rng.uniform(0, 1, (h, w, 3)).astype(np.float32)
    fg = rng.uniform(0, 1, (h, w, 3)).astype(np.float32)
    bg = rng.uniform(0, 1, (h, w, 3)).astype(np.float32)
    alpha = rng.uniform(0, 1, (h, w)).astype(np.float32)
    trimap = rng.choice(np.array([0.0, 0.5, 1.0], dtype=np.float32), (h, w))
    out_f, out_b = np.empty_like(fg), np.empty_like(bg)
    out_a = np.zeros((h, w), dtype=np.float32)
    _smooth_layers(out_f, out_b, out_a, fg, bg, alpha, image, trimap, 2, np.float32(3.0))
    return out_f, out_b, out_a


# ---------------- fast_hdbscan: a kd-tree in a namedtuple, Boruvka blocks, labels ----------------

KDTree = namedtuple("KDTree", ["data", "idx_array", "idx_start", "idx_end", "radius", "is_leaf",
                               "node_bounds"])
Bounds = namedtuple("Bounds", ["lo", "hi"])

KDTreeType = numba.types.NamedTuple(
    [numba.types.float32[:, ::1], numba.types.intp[::1], numba.types.intp[::1],
     numba.types.intp[::1], numba.types.float32[::1], numba.types.bool_[::1],
     numba.types.float32[:, :, ::1]],
    KDTree,
)
BoundsType = numba.types.NamedUniTuple(numba.types.float64, 2, Bounds)


@njit(numba.types.float32(KDTreeType, numba.types.intp, numba.types.float32[::1]), fastmath=True)
def _node_lower_rdist(tree, node, point):
    d = 0.0
    for j in range(point.shape[0]):
        lo = tree.node_bounds[0, node, j] - point[j]
        hi = point[j] - tree.node_bounds[1, node, j]
        gap = max(lo, hi, 0.0)
        d += gap * gap
    return d


@njit(numba.types.intp(KDTreeType, numba.types.float32[::1]))
def _nearest_leaf(tree, point):
    best, best_d = -1, np.inf
    for node in range(tree.is_leaf.shape[0]):
        if tree.is_leaf[node]:
            d = _node_lower_rdist(tree, node, point)
            if d < best_d:
                best, best_d = node, d
    return best


@njit(numba.types.float64(BoundsType, numba.types.float64))
def _clamp(bounds, v):
    return min(max(v, bounds.lo), bounds.hi)


def _small_tree():
    rng = np.random.default_rng(5)
    data = rng.normal(size=(12, 2)).astype(np.float32)
    idx = np.argsort(data[:, 0]).astype(np.intp)
    starts = np.array([0, 0, 6], dtype=np.intp)
    ends = np.array([12, 6, 12], dtype=np.intp)
    bounds = np.empty((2, 3, 2), dtype=np.float32)
    for node in range(3):
        pts = data[idx[starts[node]:ends[node]]]
        bounds[0, node], bounds[1, node] = pts.min(axis=0), pts.max(axis=0)
    radius = np.linalg.norm(bounds[1] - bounds[0], axis=1).astype(np.float32) / 2
    return KDTree(data, idx, starts, ends, radius, np.array([False, True, True]), bounds)


def case_hdbscan_namedtuple_signature():
    tree = _small_tree()
    pts = np.array([[-2, 0], [2, 0.5], [0, 0], [0.3, -1]], dtype=np.float32)
    leaves = [_nearest_leaf(tree, p) for p in pts]
    dists = [_node_lower_rdist(tree, 0, p) for p in pts]
    return leaves, dists, _clamp(Bounds(-1.0, 1.0), 3.5), _clamp(Bounds(-1.0, 1.0), -0.25)


@njit(["void(float32[:], float32[:], int32[:], int32, int32)",
       "void(float64[:], float64[:], int64[:], int64, int64)"],
      locals={"i": numba.types.int32, "component": numba.types.int32},
      fastmath=True, inline="always")
def _update_bounds_from_block(nearest, block_bounds, components, start, end):
    for i in range(start, end):
        component = components[i]
        b = block_bounds[i - start]
        if b < nearest[component]:
            nearest[component] = b


@njit(locals={"block_start": numba.types.int32, "block_end": numba.types.int32})
def _blockwise_bounds(dist, components, n_components, block_size):
    nearest = np.full(n_components, np.inf, dtype=np.float32)
    block = np.full(block_size, np.inf, dtype=np.float32)
    for block_start in range(0, dist.shape[0], block_size):
        block_end = min(block_start + block_size, dist.shape[0])
        block[:] = np.inf
        for i in range(block_start, block_end):
            block[i - block_start] = dist[i]
        # float32 buffers, int64 components, int32 bounds: neither declared signature
        _update_bounds_from_block(nearest, block, components, block_start, block_end)
    return nearest


def case_hdbscan_inline_always_blocks():
    rng = np.random.default_rng(11)
    dist = rng.uniform(0, 5, 23).astype(np.float32)
    components = rng.integers(0, 4, 23)
    return _blockwise_bounds(dist, components, 4, 5)


@njit
def _label_vector(parent, child, lambda_val, selected, epsilon, n_samples):
    result = np.full(n_samples, -1, dtype=np.intp)
    label_of = {c: n for n, c in enumerate(np.sort(selected))}
    root = parent.min()
    for n in range(n_samples):
        cluster = parent[child == n][0] if np.any(child == n) else root
        if cluster in label_of:
            cur_lambda = lambda_val[child == n]       # a one-element array
            max_lambda = lambda_val[parent == cluster].max()
            if epsilon > 0.0:
                if cur_lambda >= 1 / epsilon:
                    result[n] = label_of[cluster]
            elif cur_lambda >= max_lambda:
                result[n] = label_of[cluster]
            elif not (cur_lambda > 0):
                result[n] = -2
    return result


@njit
def _truth_errors(a):
    messages = 0
    try:
        if a:
            messages += 1
    except ValueError:
        messages += 10
    return messages + bool(a[:1]) * 100 if a.size else messages


def case_hdbscan_array_truth():
    parent = np.array([10, 10, 10, 10, 11, 11, 11])
    child = np.array([0, 1, 2, 3, 4, 5, 6])
    lam = np.array([0.5, 2.0, 0.0, 1.0, 0.7, 0.3, 0.9])
    labels = [_label_vector(parent, child, lam, np.array([10, 11]), e, 7) for e in (0.0, 1.5)]
    truths = [_truth_errors(a) for a in (np.array([3.0]), np.array([0.0]), np.array([1.0, 2.0]),
                                         np.zeros(0), np.array([[True]]))]
    return labels, truths


@njit
def _epsilon_search(leaves, parent_of, birth_eps, min_epsilon):
    selected = list()
    processed = list()
    for leaf in leaves:
        eps = birth_eps[leaf]
        if eps < min_epsilon:
            if leaf in processed:
                continue
            node = leaf
            while parent_of[node] >= 0 and birth_eps[node] < min_epsilon:
                node = parent_of[node]
            if node not in selected:
                selected.append(node)
            processed.append(leaf)
        else:
            selected.append(leaf)
    return np.asarray(selected)


def case_hdbscan_epsilon_search():
    parent_of = np.array([-1, 0, 0, 1, 1, 2, 2])
    birth = np.array([0.0, 0.4, 0.9, 0.1, 0.3, 1.2, 0.2])
    leaves = np.array([3, 4, 5, 6])
    return [_epsilon_search(leaves, parent_of, birth, m) for m in (0.05, 0.35, 1.0)]


# ---------------- pyts: shapelets returned as typed Lists, annotated ----------------

_WINDOWS_SIG = numba.types.Tuple((numba.types.ListType(numba.types.float64[:, ::1]),
                                  numba.types.ListType(numba.types.int64[::1])))(
    numba.types.float64[:], numba.types.int64[:], numba.types.int64[:], numba.types.int64)


@njit([_WINDOWS_SIG])
def _extract_windows(
    x: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.int64],
    steps: npt.NDArray[np.int64],
    n: int,
) -> tuple[List[npt.NDArray[np.float64]], List[npt.NDArray[np.int64]]]:
    windows = List()
    starts = List()
    for size, step in zip(sizes, steps):
        count = (n - (size - step)) // step
        view = as_strided(x, shape=(count, size), strides=(step * x.strides[0], x.strides[0]))
        windows.append(np.copy(view))
        starts.append(np.arange(0, n - size + 1, step))
    return windows, starts


def case_pyts_typed_list_annotations():
    x = np.sin(np.arange(14.0))
    windows, starts = _extract_windows(x, np.array([3, 5]), np.array([1, 2]), 14)
    return [np.asarray(w) for w in windows], [np.asarray(s) for s in starts], \
        str(List[npt.NDArray[np.float64]]).startswith("pyjit.typed.List[")


# ---------------- window-ops: rolling windows with compiled comparisons ----------------


@njit
def _gt(x, y):
    return x - y


@njit
def _lt(x, y):
    return -_gt(x, y)


@njit
def _rolling_comp(comp, x, window_size, min_samples):
    n = x.size
    out = np.full_like(x, np.nan)
    upper = min(window_size, n)
    pm = x[0]
    for i in range(upper):
        if comp(x[i], pm) > 0:
            pm = x[i]
        if i + 1 >= min_samples:
            out[i] = pm
    for i in range(window_size, n):
        pm = x[i - window_size + 1]
        for j in range(i - window_size + 2, i + 1):
            if comp(x[j], pm) > 0:
                pm = x[j]
        out[i] = pm
    return out


@njit
def _expanding_std(x):
    out = np.full_like(x, np.nan)
    mean = 0.0
    m2 = 0.0
    for i in range(x.size):
        d = x[i] - mean
        mean += d / (i + 1)
        m2 += d * (x[i] - mean)
        if i > 0:
            out[i] = sqrt(m2 / i)
    return out


def case_window_ops_rolling():
    x = np.random.default_rng(2).normal(size=25)
    window = tuple(x[-4:])
    return (_rolling_comp(_gt, x, 4, 2), _rolling_comp(_lt, x, 6, 1),
            _expanding_std(x), sum(window) / len(window), max(window))


# ---------------- tslearn: soft-DTW with gamma given as a 0-d array ----------------

_DBL_MAX = np.finfo("double").max


@njit(fastmath=True)
def _softmin3(a, b, c, gamma):
    a /= -gamma           # gamma a 0-d array: a stays a float, as NumPy's and Numba's operators give
    b /= -gamma
    c /= -gamma
    top = max(max(a, b), c)
    total = 0
    total += np.exp(a - top)
    total += np.exp(b - top)
    total += np.exp(c - top)
    return -gamma * (np.log(total) + top)


@njit(fastmath=True)
def _soft_dtw(D, R, gamma):
    m, n = D.shape
    R[: m + 1, 0] = _DBL_MAX
    R[0, : n + 1] = _DBL_MAX
    R[0, 0] = 0
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            R[i, j] = D[i - 1, j - 1] + _softmin3(R[i - 1, j], R[i - 1, j - 1], R[i, j - 1], gamma)


@njit
def _zero_d_operations(x, y):
    s = x * 2.0 + y                    # 0-d arrays and a number: a number
    t = -x
    q = y / (x - x)                    # NumPy's error model: inf, not ZeroDivisionError
    x += 1.0                           # in place: the array itself changes
    w = np.where(s > t, s, t)          # numbers only: a 0-d array
    return s, t, q, x[()], w, x > y, np.sqrt(x)


def case_tslearn_soft_dtw_zero_d_gamma():
    rng = np.random.default_rng(8)
    a, b = rng.normal(size=(6, 1)), rng.normal(size=(5, 1))
    D = ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1)
    out = []
    for gamma in (np.array(1.0), np.array(0.1), 0.5):
        R = np.zeros((8, 7))
        _soft_dtw(D, R, gamma)
        out.append(R[1:7, 1:6].copy())
    with np.errstate(divide="ignore"):
        s, t, q, x, w, gt, root = _zero_d_operations(np.array(1.5), np.array(2.0))
    return out, [float(s), float(t), float(q), float(x), float(root)], np.asarray(w).ndim, bool(gt)


# ---------------- interpolation (EconForge): overloads taking *args, passed as functions ----------------

from pyjit.core.types.misc import NoneType  # noqa: E402  (numba.core.types is a package there)
from pyjit.extending import overload  # noqa: E402


def _cell_index(grid, x):
    """Python's answer; compiled callers get the overload's."""
    return min(max(int((x - grid[0]) // grid[2]), 0), int(grid[1]) - 2)


@overload(_cell_index)
def _ol_cell_index(grid, x):
    def impl(grid, x):
        return min(max(int((x - grid[0]) // grid[2]), 0), int(grid[1]) - 2)
    return impl


def _weights(*args):
    if len(args) == 2:
        return args[0] * (1 - args[1])
    return args[0] * (1 - args[1]) + args[2]


@overload(_weights)
def _ol_weights(*args):
    if isinstance(args[-1], NoneType):
        return None
    if len(args) == 2:
        return lambda *args: args[0] * (1 - args[1])
    return lambda *args: args[0] * (1 - args[1]) + args[2]


@njit
def _fmap(f, grid, points):
    out = np.empty(points.shape[0], dtype=np.int64)
    for i in range(points.shape[0]):
        out[i] = f(grid, points[i])
    return out


@njit
def _linear(grid, values, points):
    cells = _fmap(_cell_index, grid, points)      # an overloaded function passed as an argument
    out = np.empty(points.shape[0])
    for i in range(points.shape[0]):
        j = cells[i]
        t = (points[i] - (grid[0] + j * grid[2])) / grid[2]
        out[i] = _weights(values[j], t) + _weights(values[j + 1], 1 - t, 0.0)
    return out


@njit
def _spread(*args):
    return _weights(*args)


def case_interpolation_overloads():
    grid = (0.0, 6.0, 0.5)
    values = np.array([0.0, 1.0, 4.0, 9.0, 16.0, 25.0])
    points = np.array([-0.2, 0.1, 0.75, 1.3, 2.4, 3.1])
    return _linear(grid, values, points), _spread(2.0, 0.25), _spread(2.0, 0.25, 1.0)


# ---------------- tslearn: k-Shape's cross-correlation distances, prange in both branches ----------------


@njit(fastmath=True)
def _max_ncc(s1, s2, n1, n2):
    sz = s1.shape[0]
    best = -np.inf
    for shift in range(-sz + 1, sz):
        acc = 0.0
        for t in range(max(0, shift), min(sz, sz + shift)):
            acc += s1[t] * s2[t - shift]
        best = max(best, acc / (n1 * n2))
    return best


@njit(parallel=True, fastmath=True)
def _cdist_ncc(d1, d2, norms1, norms2, self_similarity):
    n1, n2 = d1.shape[0], d2.shape[0]
    dists = np.zeros((n1, n2))
    if (norms1 < 0.0).any():
        for i1 in prange(n1):
            norms1[i1] = np.linalg.norm(d1[i1])
    if self_similarity:
        for i in prange(1, n1):
            for j in range(i):          # j: this loop's own
                dists[i, j] = _max_ncc(d1[i], d2[j], norms1[i], norms2[j])
        dists += dists.T
    else:
        for i in prange(n1):
            for j in range(n2):         # and this one's
                dists[i, j] = _max_ncc(d1[i], d2[j], norms1[i], norms2[j])
    return dists


def case_tslearn_cdist_ncc():
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(4, 7)), rng.normal(size=(3, 7))
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    return (_cdist_ncc(a, b, na.copy(), nb, False), _cdist_ncc(a, a, np.full(4, -1.0), na, True))


@njit
def _merge_heights(hierarchy, num_points):
    out = np.zeros(hierarchy.shape[0])
    for node in range(num_points, num_points + hierarchy.shape[0]):
        left, right, dist, _ = hierarchy[node - num_points]     # a row unpacked
        out[node - num_points] = dist * (left < num_points) + right * 0.001
    for a, b, c, _ in hierarchy:
        out[0] += a - b + c
    return out


def case_hdbscan_hierarchy_rows():
    h = np.array([[0, 1, 0.5, 2], [2, 5, 0.9, 3], [3, 6, 1.4, 4]], dtype=np.float64)
    return _merge_heights(h, 4)
