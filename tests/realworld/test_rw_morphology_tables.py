"""Real-world patterns: image morphology, cellular automata and table kernels written for Numba,
restated in our own words with the import switched: binary erosion with a structuring element
(nested loops with `break` flags), dilation as the complement's erosion with a flipped element
(`~` of bool arrays), opening and closing, a `prange` grey dilation by the `max` of clipped
windows, a two-pass chamfer distance transform, a 3x3 median filter through a reused buffer
(`buf[:] = window.ravel()`), Zhang-Suen thinning (neighbourhoods as 8-tuples, `sum` of a tuple,
marks kept as a list of pairs); elementary automata (rules 30 and 110) from a rule table built
by a comprehension over bit shifts, Langton's ant with direction tuples and `^=`, a forest fire
over pre-drawn numbers, the game of life as a `@stencil` applied from a compiled loop; pandas-style
kernels: factorize through a typed `Dict` and `List`, group sums, counts, means, minima and
maxima skipping NaN, cumulative counts, average ranks within groups by `np.lexsort`, a sorted
merge join into lists, a pivot over `zip` of three arrays, and value counts sorted by a key of
`(-count, word)`. Each is compared with CPython running the same source."""
import math

import numpy as np
import pytest

import pyjit as numba  # noqa: F401
from pyjit import njit, prange, stencil, types, uint8, int64, float64  # noqa: F401
from pyjit.typed import Dict, List
from util import check


# ---- binary morphology ----
@njit
def erode(img, se):
    h, w = img.shape
    kh, kw = se.shape
    ph, pw = kh // 2, kw // 2
    out = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            ok = True
            for a in range(kh):
                for b in range(kw):
                    if se[a, b]:
                        y, x = i + a - ph, j + b - pw
                        if y < 0 or y >= h or x < 0 or x >= w or not img[y, x]:
                            ok = False
                            break
                if not ok:
                    break
            out[i, j] = ok
    return out

@njit
def dilate(img, se):
    return ~erode(~img, se[::-1, ::-1])

@njit
def opening(img, se):
    return dilate(erode(img, se), se)

@njit
def closing(img, se):
    return erode(dilate(img, se), se)

@njit(parallel=True)
def grey_dilate(img, size):
    h, w = img.shape
    r = size // 2
    out = np.empty_like(img)
    for i in prange(h):
        for j in range(w):
            out[i, j] = img[max(0, i - r):i + r + 1, max(0, j - r):j + r + 1].max()
    return out

@njit
def chamfer_distance(mask):
    h, w = mask.shape
    INF = 1e9
    d = np.where(mask, 0.0, INF)
    a, b = 1.0, math.sqrt(2.0)
    for i in range(h):
        for j in range(w):
            if i > 0:
                d[i, j] = min(d[i, j], d[i - 1, j] + a)
                if j > 0:
                    d[i, j] = min(d[i, j], d[i - 1, j - 1] + b)
                if j < w - 1:
                    d[i, j] = min(d[i, j], d[i - 1, j + 1] + b)
            if j > 0:
                d[i, j] = min(d[i, j], d[i, j - 1] + a)
    for i in range(h - 1, -1, -1):
        for j in range(w - 1, -1, -1):
            if i < h - 1:
                d[i, j] = min(d[i, j], d[i + 1, j] + a)
                if j < w - 1:
                    d[i, j] = min(d[i, j], d[i + 1, j + 1] + b)
                if j > 0:
                    d[i, j] = min(d[i, j], d[i + 1, j - 1] + b)
            if j < w - 1:
                d[i, j] = min(d[i, j], d[i, j + 1] + a)
    return d

@njit
def median_filter3(img):
    out = img.copy()
    buf = np.empty(9, dtype=img.dtype)
    for i in range(1, img.shape[0] - 1):
        for j in range(1, img.shape[1] - 1):
            buf[:] = img[i - 1:i + 2, j - 1:j + 2].ravel()
            out[i, j] = np.median(buf)
    return out

@njit
def zhang_suen(img):
    im = img.astype(np.uint8).copy()
    changed = True
    while changed:
        changed = False
        for step in range(2):
            marks = []
            for i in range(1, im.shape[0] - 1):
                for j in range(1, im.shape[1] - 1):
                    if im[i, j] != 1:
                        continue
                    p = (im[i - 1, j], im[i - 1, j + 1], im[i, j + 1], im[i + 1, j + 1],
                         im[i + 1, j], im[i + 1, j - 1], im[i, j - 1], im[i - 1, j - 1])
                    B = sum(p)
                    A = 0
                    for k in range(8):
                        if p[k] == 0 and p[(k + 1) % 8] == 1:
                            A += 1
                    if step == 0:
                        c = p[0] * p[2] * p[4] == 0 and p[2] * p[4] * p[6] == 0
                    else:
                        c = p[0] * p[2] * p[6] == 0 and p[0] * p[4] * p[6] == 0
                    if 2 <= B <= 6 and A == 1 and c:
                        marks.append((i, j))
            for i, j in marks:
                im[i, j] = 0
            if marks:
                changed = True
    return im

# ---- cellular automata ----
@njit
def elementary_ca(rule, width, steps):
    table = np.array([(rule >> k) & 1 for k in range(8)], dtype=np.uint8)
    grid = np.zeros((steps, width), dtype=np.uint8)
    grid[0, width // 2] = 1
    for t in range(1, steps):
        prev = grid[t - 1]
        for x in range(width):
            l = prev[(x - 1) % width]
            c = prev[x]
            r = prev[(x + 1) % width]
            grid[t, x] = table[(l << 2) | (c << 1) | r]
    return grid

@njit
def langtons_ant(n, steps):
    grid = np.zeros((n, n), dtype=np.int8)
    y = x = n // 2
    d = 0   # 0 up, 1 right, 2 down, 3 left
    dy = (-1, 0, 1, 0)
    dx = (0, 1, 0, -1)
    for _ in range(steps):
        if grid[y, x] == 0:
            d = (d + 1) % 4
        else:
            d = (d - 1) % 4
        grid[y, x] ^= 1
        y = (y + dy[d]) % n
        x = (x + dx[d]) % n
    return grid, (y, x)

@njit
def forest_fire(grid, p_grow, p_light, steps, rnd):
    EMPTY, TREE, FIRE = 0, 1, 2
    n, m = grid.shape
    g = grid.copy()
    k = 0
    for _ in range(steps):
        new = g.copy()
        for i in range(n):
            for j in range(m):
                u = rnd[k % rnd.size]
                k += 1
                if g[i, j] == FIRE:
                    new[i, j] = EMPTY
                elif g[i, j] == EMPTY:
                    if u < p_grow:
                        new[i, j] = TREE
                else:
                    burning = False
                    for di in (-1, 0, 1):
                        for dj in (-1, 0, 1):
                            if (di or dj) and g[(i + di) % n, (j + dj) % m] == FIRE:
                                burning = True
                    if burning or u < p_light:
                        new[i, j] = FIRE
        g = new
    return g

@stencil
def life_kernel(a):
    s = (a[-1, -1] + a[-1, 0] + a[-1, 1] + a[0, -1] + a[0, 1] + a[1, -1] + a[1, 0] + a[1, 1])
    return 1 if s == 3 or (s == 2 and a[0, 0] == 1) else 0

@njit
def life_steps(board, n):
    for _ in range(n):
        board = life_kernel(board)
    return board

# ---- tabular group-by kernels ----
@njit
def factorize(keys):
    codes = np.empty(keys.size, dtype=np.int64)
    table = Dict.empty(key_type=types.int64, value_type=types.int64)
    uniques = List.empty_list(types.int64)
    for i in range(keys.size):
        k = keys[i]
        c = table.get(k, -1)
        if c == -1:
            c = len(uniques)
            table[k] = c
            uniques.append(k)
        codes[i] = c
    return codes, np.asarray(uniques)

@njit
def groupby_agg(codes, ngroups, values):
    sums = np.zeros(ngroups)
    counts = np.zeros(ngroups, dtype=np.int64)
    mins = np.full(ngroups, np.inf)
    maxs = np.full(ngroups, -np.inf)
    for i in range(codes.size):
        v = values[i]
        if np.isnan(v):
            continue
        g = codes[i]
        sums[g] += v
        counts[g] += 1
        mins[g] = min(mins[g], v)
        maxs[g] = max(maxs[g], v)
    means = sums / np.where(counts > 0, counts, 1)
    means[counts == 0] = np.nan
    return sums, counts, means, mins, maxs

@njit
def group_cumcount(codes, ngroups):
    seen = np.zeros(ngroups, dtype=np.int64)
    out = np.empty_like(codes)
    for i in range(codes.size):
        out[i] = seen[codes[i]]
        seen[codes[i]] += 1
    return out

@njit
def group_rank(codes, values):
    order = np.lexsort((values, codes))
    ranks = np.empty(values.size)
    i = 0
    n = values.size
    while i < n:
        j = i
        while j + 1 < n and codes[order[j + 1]] == codes[order[i]]:
            j += 1
        # average rank for ties within the group
        start = i
        k = i
        while k <= j:
            m = k
            while m + 1 <= j and values[order[m + 1]] == values[order[k]]:
                m += 1
            avg = 0.5 * ((k - start + 1) + (m - start + 1))
            for q in range(k, m + 1):
                ranks[order[q]] = avg
            k = m + 1
        i = j + 1
    return ranks

@njit
def merge_join(lk, lv, rk, rv):
    li = np.argsort(lk, kind="mergesort")
    ri = np.argsort(rk, kind="mergesort")
    out_k, out_l, out_r = [], [], []
    i = j = 0
    while i < li.size and j < ri.size:
        a, b = lk[li[i]], rk[ri[j]]
        if a < b:
            i += 1
        elif a > b:
            j += 1
        else:
            j0 = j
            while j < ri.size and rk[ri[j]] == a:
                out_k.append(a)
                out_l.append(lv[li[i]])
                out_r.append(rv[ri[j]])
                j += 1
            i += 1
            if i < li.size and lk[li[i]] == a:
                j = j0
    return np.array(out_k), np.array(out_l), np.array(out_r)

@njit
def pivot_sum(rows, cols, vals, nr, nc):
    out = np.zeros((nr, nc))
    for r, c, v in zip(rows, cols, vals):
        out[r, c] += v
    return out

@njit
def value_counts(words):
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return items

rng = np.random.default_rng(8)
img = rng.random((24, 24)) > 0.45
se = np.ones((3, 3), dtype=np.bool_)
cross = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=np.bool_)
blob = np.zeros((20, 20), dtype=np.bool_); blob[4:16, 3:17] = True; blob[8:12, 1:19] = True
keys = rng.integers(0, 7, 60) * 13
vals = rng.normal(size=60); vals[::11] = np.nan
codes = factorize.py_func(keys)[0]
glider = np.zeros((12, 12), dtype=np.int64); glider[1, 2] = glider[2, 3] = glider[3, 1] = glider[3, 2] = glider[3, 3] = 1
CASES = [
    ("erode", erode, (img, se)),
    ("dilate", dilate, (img, cross)),
    ("opening", opening, (img, se)),
    ("closing", closing, (img, cross)),
    ("grey_dilate", grey_dilate, (rng.random((15, 17)), 3)),
    ("chamfer", chamfer_distance, (rng.random((16, 16)) > 0.9,)),
    ("median3", median_filter3, (rng.random((10, 12)),)),
    ("zhang_suen", zhang_suen, (blob,)),
    ("rule30", elementary_ca, (30, 41, 20)),
    ("rule110", elementary_ca, (110, 41, 20)),
    ("langton", langtons_ant, (21, 500)),
    ("forest_fire", forest_fire, (rng.integers(0, 3, (12, 12)), 0.05, 0.001, 10, rng.random(997))),
    ("life", life_steps, (glider, 8)),
    ("factorize", factorize, (keys,)),
    ("groupby_agg", groupby_agg, (codes, 7, vals)),
    ("cumcount", group_cumcount, (codes, 7)),
    ("group_rank", group_rank, (codes, np.round(rng.normal(size=60), 1))),
    ("merge_join", merge_join, (np.array([1, 3, 3, 5, 7, 9]), np.arange(6.0), np.array([3, 5, 5, 8, 9, 1]), np.arange(6.0) * 10)),
    ("pivot_sum", pivot_sum, (rng.integers(0, 4, 40), rng.integers(0, 5, 40), rng.random(40), 4, 5)),
    ("value_counts", value_counts, (List(["a", "b", "a", "c", "b", "a", "d"]),)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    check(f.py_func, *args, jit=f)
