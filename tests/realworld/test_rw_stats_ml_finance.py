"""Real-world patterns: statistics, machine learning, trading backtests, pandas-style rolling
windows and bioinformatics strings, restated in our own words with the import switched.

Average ranks with ties (`np.argsort(kind='mergesort')`), Spearman through `np.corrcoef`,
Kendall's tau-b by `np.sign` of pair differences, Mann-Whitney U over `np.concatenate`, weighted
quantiles (`np.interp` of a cumulative weight), Welford's moments skipping NaN, `prange`
bootstrap means over fancy-indexed rows, an ECDF; a decision-tree split search over Gini
impurities (`np.bincount(minlength=).astype`), a gradient-boosting histogram in a structured
array (`histogram[bin]['sum_gradients'] += g` over `enumerate(sample_indices)`), logistic SGD,
`prange` k-nearest neighbours voting by `np.bincount`, CSR products, pynndescent's sorted-array
intersection (`aux[:-1][aux[1:] == aux[:-1]]`), k-means++ seeding, a softmax cross-entropy;
an OHLC backtester with stop-loss and take-profit under `@jit(nopython=True, cache=True,
nogil=True)` returning trimmed arrays, a position book that deletes rows by
`positions[i:-1] = positions[i + 1:]` and prices in pips with `np.around`, RSI and ATR with
`np.full(nan)`, a `prange` moving-average grid search; rolling means with `min_periods`, a
monotonic-deque rolling maximum, `ewm` means with and without `adjust`, a group-by sum over codes,
forward fill; reverse complements through a dict literal, GC content, 2-bit k-mer counts through
an `ord()` lookup table, Smith-Waterman with defaults, Hamming distances of `bytes`, codon
translation through a typed `Dict` of str values filled in Python. Each is compared with CPython
running the same source."""
import math

import numpy as np
import pytest

import pyjit as nb
import pyjit as numba
from pyjit import guvectorize, jit, njit, prange, stencil, types, vectorize
from pyjit.typed import Dict
from util import check

@njit
def rankdata_avg(a):
    n = a.size
    sorter = np.argsort(a, kind='mergesort')
    ranks = np.empty(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and a[sorter[j + 1]] == a[sorter[i]]:
            j += 1
        r = 0.5 * (i + j) + 1
        for k in range(i, j + 1):
            ranks[sorter[k]] = r
        i = j + 1
    return ranks

@njit
def spearman(x, y):
    rx = rankdata_avg(x)
    ry = rankdata_avg(y)
    return np.corrcoef(rx, ry)[0, 1]

@njit(cache=True)
def kendall_tau_b(x, y):
    n = len(x)
    conc = disc = tx = ty = 0
    for i in range(n - 1):
        for j in range(i + 1, n):
            dx = np.sign(x[i] - x[j])
            dy = np.sign(y[i] - y[j])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif dx == dy:
                conc += 1
            else:
                disc += 1
    denom = math.sqrt((conc + disc + tx) * (conc + disc + ty))
    return (conc - disc) / denom if denom > 0 else np.nan

@njit
def mann_whitney_u(x, y):
    allv = np.concatenate((x, y))
    r = rankdata_avg(allv)
    r1 = r[:x.size].sum()
    u1 = r1 - x.size * (x.size + 1) / 2.0
    return u1, x.size * y.size - u1

@njit
def weighted_quantile(values, weights, qs):
    order = np.argsort(values)
    v = values[order]
    w = weights[order]
    cw = np.cumsum(w) - 0.5 * w
    cw /= np.sum(w)
    return np.interp(qs, cw, v)

@njit
def welford(x):
    n = 0
    mean = 0.0
    m2 = 0.0
    for v in x:
        if np.isnan(v):
            continue
        n += 1
        d = v - mean
        mean += d / n
        m2 += d * (v - mean)
    return mean, m2 / (n - 1) if n > 1 else np.nan, n

@njit(parallel=True)
def bootstrap_means(x, idx):
    B = idx.shape[0]
    out = np.empty(B)
    for b in prange(B):
        out[b] = x[idx[b]].mean()
    return out

@njit
def ecdf(sample, x):
    s = np.sort(sample)
    return np.searchsorted(s, x, side='right') / s.size

# --- ML ---
@njit
def gini_impurity(counts):
    total = counts.sum()
    if total == 0:
        return 0.0
    p = counts / total
    return 1.0 - np.sum(p * p)

@njit
def best_split(X, y, n_classes):
    n, d = X.shape
    best_gain = 0.0
    best_feat = -1
    best_thr = 0.0
    parent = gini_impurity(np.bincount(y, minlength=n_classes).astype(np.float64))
    for f in range(d):
        order = np.argsort(X[:, f])
        xs = X[order, f]
        ys = y[order]
        left = np.zeros(n_classes)
        right = np.bincount(ys, minlength=n_classes).astype(np.float64)
        for i in range(1, n):
            c = ys[i - 1]
            left[c] += 1
            right[c] -= 1
            if xs[i] == xs[i - 1]:
                continue
            g = parent - (i * gini_impurity(left) + (n - i) * gini_impurity(right)) / n
            if g > best_gain:
                best_gain = g
                best_feat = f
                best_thr = 0.5 * (xs[i] + xs[i - 1])
    return best_feat, best_thr, best_gain

HIST_DTYPE = np.dtype([('sum_gradients', np.float64), ('sum_hessians', np.float64), ('count', np.uint32)])

@njit(fastmath=True)
def build_histogram(n_bins, sample_indices, binned_feature, gradients, hessians):
    histogram = np.zeros(n_bins, dtype=HIST_DTYPE)
    for i, sample_idx in enumerate(sample_indices):
        bin_idx = binned_feature[sample_idx]
        histogram[bin_idx]['sum_gradients'] += gradients[i]
        histogram[bin_idx]['sum_hessians'] += hessians[i]
        histogram[bin_idx]['count'] += 1
    return histogram

@njit
def hist_sums(n_bins, sample_indices, binned_feature, gradients, hessians):
    h = build_histogram(n_bins, sample_indices, binned_feature, gradients, hessians)
    return h['sum_gradients'].copy(), h['sum_hessians'].copy(), h['count'].copy()

@njit
def logistic_sgd(X, y, lr, epochs):
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    for _ in range(epochs):
        for i in range(n):
            z = np.dot(X[i], w) + b
            p = 1.0 / (1.0 + np.exp(-z))
            g = p - y[i]
            w -= lr * g * X[i]
            b -= lr * g
    return w, b

@njit(parallel=True, fastmath=True)
def knn_predict(Xtr, ytr, Xte, k):
    out = np.empty(Xte.shape[0], dtype=ytr.dtype)
    for i in prange(Xte.shape[0]):
        d = np.sum((Xtr - Xte[i]) ** 2, axis=1)
        nn = np.argsort(d)[:k]
        votes = np.bincount(ytr[nn])
        out[i] = np.argmax(votes)
    return out

@njit
def csr_matvec(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n, dtype=data.dtype)
    for i in range(n):
        for jj in range(indptr[i], indptr[i + 1]):
            y[i] += data[jj] * x[indices[jj]]
    return y

@njit
def arr_intersect(ar1, ar2):
    aux = np.concatenate((ar1, ar2))
    aux.sort()
    return aux[:-1][aux[1:] == aux[:-1]]

@njit
def sparse_dot(ind1, data1, ind2, data2):
    common = arr_intersect(ind1, ind2)
    s = 0.0
    for c in common:
        s += data1[np.searchsorted(ind1, c)] * data2[np.searchsorted(ind2, c)]
    return s

@njit
def kmeans_pp_init(X, k, u):
    n = X.shape[0]
    centers = np.empty((k, X.shape[1]))
    centers[0] = X[int(u[0] * n)]
    d2 = np.full(n, np.inf)
    for c in range(1, k):
        d2 = np.minimum(d2, ((X - centers[c - 1]) ** 2).sum(axis=1))
        probs = d2 / d2.sum()
        idx = np.searchsorted(np.cumsum(probs), u[c])
        centers[c] = X[min(idx, n - 1)]
    return centers

@njit
def softmax_xent(logits, labels):
    m = logits.max(axis=1)
    z = logits - m.reshape(-1, 1)
    lse = np.log(np.exp(z).sum(axis=1))
    loss = 0.0
    for i in range(logits.shape[0]):
        loss += lse[i] - z[i, labels[i]]
    return loss / logits.shape[0]

rng = np.random.default_rng(7)
x = rng.normal(size=40); y = x + rng.normal(size=40); xt = np.round(x, 1)
X = rng.normal(size=(60, 3)); yl = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
CASES_C_STATS_ML = [
    ("rankdata", rankdata_avg, (xt,)),
    ("spearman", spearman, (xt, y)),
    ("kendall", kendall_tau_b, (xt, np.round(y, 1))),
    ("mann_whitney", mann_whitney_u, (x[:15], y[:20])),
    ("weighted_quantile", weighted_quantile, (x, np.abs(y), np.array([0.1, 0.5, 0.9]))),
    ("welford", welford, (np.where(x > 1.5, np.nan, x),)),
    ("bootstrap_means", bootstrap_means, (x, rng.integers(0, 40, size=(50, 40)))),
    ("ecdf", ecdf, (x, np.linspace(-2, 2, 9))),
    ("best_split", best_split, (X, yl, 2)),
    ("hist_sums", hist_sums, (8, np.arange(50), rng.integers(0, 8, 60).astype(np.uint8), rng.normal(size=50), np.ones(50))),
    ("logistic_sgd", logistic_sgd, (X, yl.astype(np.float64), 0.1, 5)),
    ("knn_predict", knn_predict, (X[:50], yl[:50], X[50:], 5)),
    ("csr_matvec", csr_matvec, (np.array([0, 2, 3, 5]), np.array([0, 2, 1, 0, 2]), np.array([1., 2, 3, 4, 5]), np.array([1., 1, 2]))),
    ("sparse_dot", sparse_dot, (np.array([0, 3, 5, 9]), np.array([1., 2, 3, 4]), np.array([1, 3, 9]), np.array([5., 6, 7]))),
    ("kmeans_pp", kmeans_pp_init, (X, 4, rng.random(4))),
    ("softmax_xent", softmax_xent, (rng.normal(size=(10, 4)), rng.integers(0, 4, 10))),
]

BUY = 1
SELL = -1

@jit(nopython=True, cache=True, nogil=True)
def run_backtest(opens, highs, lows, closes, entry_long, exit_long, sl_pct, tp_pct):
    n = len(closes)
    out_entry = np.zeros(n, dtype=np.int64)
    out_exit = np.zeros(n, dtype=np.int64)
    pnls = np.zeros(n)
    reasons = np.zeros(n, dtype=np.int8)
    k = 0
    in_pos = False
    entry_price = 0.0
    entry_i = 0
    for i in range(1, n):
        if not in_pos:
            if entry_long[i - 1]:
                in_pos = True
                entry_price = opens[i]
                entry_i = i
            continue
        sl = entry_price * (1 - sl_pct)
        tp = entry_price * (1 + tp_pct)
        exit_price = -1.0
        reason = 0
        if lows[i] <= sl:
            exit_price, reason = sl, 1
        elif highs[i] >= tp:
            exit_price, reason = tp, 2
        elif exit_long[i]:
            exit_price, reason = closes[i], 3
        if exit_price > 0:
            out_entry[k] = entry_i
            out_exit[k] = i
            pnls[k] = exit_price / entry_price - 1
            reasons[k] = reason
            k += 1
            in_pos = False
    return out_entry[:k], out_exit[:k], pnls[:k], reasons[:k]

@njit
def convert_to_pips(x):
    return np.around(x * 10000, 2)

@njit
def del_position(positions, i):
    positions[i:-1] = positions[i + 1:]
    positions[-1] = np.zeros((4,))
    return positions

@njit
def positions_book(ohlc, signals):
    positions = np.zeros((5, 4))
    result = 0.0
    for t in range(ohlc.shape[0]):
        bar = ohlc[t]
        for i in range(positions.shape[0] - 1, -1, -1):
            pos = positions[i]
            if pos[0] != 0 and (bar[2] <= pos[2] or bar[1] >= pos[3]):
                result += convert_to_pips(bar[3] - pos[1]) * pos[0]
                positions = del_position(positions, i)
        if signals[t] != 0:
            for i in range(positions.shape[0]):
                if positions[i][0] == 0:
                    positions[i][0] = signals[t]
                    positions[i][1] = bar[3]
                    positions[i][2] = bar[3] - 0.002
                    positions[i][3] = bar[3] + 0.003
                    break
    return result, positions

@njit
def rsi(close, period=14):
    n = close.shape[0]
    out = np.full(n, np.nan)
    delta = np.diff(close)
    gain = np.where(delta > 0, delta, 0.0)
    loss = np.where(delta < 0, -delta, 0.0)
    avg_g = gain[:period].mean()
    avg_l = loss[:period].mean()
    out[period] = 100 - 100 / (1 + avg_g / avg_l) if avg_l != 0 else 100.0
    for i in range(period + 1, n):
        avg_g = (avg_g * (period - 1) + gain[i - 1]) / period
        avg_l = (avg_l * (period - 1) + loss[i - 1]) / period
        out[i] = 100 - 100 / (1 + avg_g / avg_l) if avg_l != 0 else 100.0
    return out

@njit
def atr(high, low, close, n=14):
    tr = np.empty_like(close)
    tr[0] = high[0] - low[0]
    for i in range(1, close.size):
        tr[i] = max(high[i] - low[i], abs(high[i] - close[i - 1]), abs(low[i] - close[i - 1]))
    out = np.full_like(close, np.nan)
    out[n - 1] = tr[:n].mean()
    for i in range(n, close.size):
        out[i] = (out[i - 1] * (n - 1) + tr[i]) / n
    return out

@njit(parallel=True)
def grid_search_ma(close, fasts, slows):
    res = np.full((fasts.size, slows.size), np.nan)
    for a in prange(fasts.size):
        for b in range(slows.size):
            f, s = fasts[a], slows[b]
            if f >= s:
                continue
            cs = np.cumsum(close)
            ret = 0.0
            pos = 0
            for i in range(s, close.size):
                mf = (cs[i] - cs[i - f]) / f
                ms = (cs[i] - cs[i - s]) / s
                if pos:
                    ret += close[i] / close[i - 1] - 1
                pos = 1 if mf > ms else 0
            res[a, b] = ret
    return res

# --- pandas-adjacent rolling windows ---
@njit
def rolling_mean_minp(x, window, min_periods):
    n = x.size
    out = np.empty(n)
    s = 0.0
    cnt = 0
    for i in range(n):
        v = x[i]
        if not np.isnan(v):
            s += v
            cnt += 1
        if i >= window:
            old = x[i - window]
            if not np.isnan(old):
                s -= old
                cnt -= 1
        out[i] = s / cnt if cnt >= min_periods else np.nan
    return out

@njit
def rolling_max_deque(x, w):
    n = x.size
    out = np.empty(n - w + 1)
    dq = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for i in range(n):
        while tail > head and x[dq[tail - 1]] <= x[i]:
            tail -= 1
        dq[tail] = i
        tail += 1
        if dq[head] <= i - w:
            head += 1
        if i >= w - 1:
            out[i - w + 1] = x[dq[head]]
    return out

@njit
def ewm_mean(x, alpha, adjust=True):
    out = np.empty_like(x)
    if adjust:
        num = 0.0
        den = 0.0
        for i in range(x.size):
            num = x[i] + (1 - alpha) * num
            den = 1 + (1 - alpha) * den
            out[i] = num / den
    else:
        out[0] = x[0]
        for i in range(1, x.size):
            out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out

@njit
def groupby_sum(codes, values, ngroups):
    out = np.zeros(ngroups)
    cnt = np.zeros(ngroups, dtype=np.int64)
    for i in range(codes.size):
        c = codes[i]
        if c < 0:
            continue
        out[c] += values[i]
        cnt[c] += 1
    return out, cnt

@njit
def ffill(a):
    out = a.copy()
    last = np.nan
    for i in range(a.shape[0]):
        if np.isnan(out[i]):
            out[i] = last
        else:
            last = out[i]
    return out

# --- bioinformatics strings ---
COMP = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A', 'N': 'N'}

@njit
def reverse_complement(seq):
    comp = {'A': 'T', 'C': 'G', 'G': 'C', 'T': 'A', 'N': 'N'}
    out = ''
    for i in range(len(seq) - 1, -1, -1):
        out += comp[seq[i]]
    return out

@njit
def gc_content(seq):
    gc = 0
    for ch in seq:
        if ch == 'G' or ch == 'C':
            gc += 1
    return gc / len(seq)

@njit
def kmer_encode(seq, k):
    lut = np.full(128, -1, dtype=np.int64)
    lut[ord('A')] = 0
    lut[ord('C')] = 1
    lut[ord('G')] = 2
    lut[ord('T')] = 3
    counts = np.zeros(4 ** k, dtype=np.int64)
    code = 0
    mask = (1 << (2 * k)) - 1
    valid = 0
    for ch in seq:
        v = lut[ord(ch)]
        if v < 0:
            valid = 0
            code = 0
            continue
        code = ((code << 2) | v) & mask
        valid += 1
        if valid >= k:
            counts[code] += 1
    return counts

@njit
def smith_waterman(a, b, match=2, mismatch=-1, gap=-2):
    n, m = len(a), len(b)
    H = np.zeros((n + 1, m + 1), dtype=np.int32)
    best = 0
    bi = bj = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            h = max(0, H[i - 1, j - 1] + s, H[i - 1, j] + gap, H[i, j - 1] + gap)
            H[i, j] = h
            if h > best:
                best, bi, bj = h, i, j
    return best, bi, bj

@njit
def hamming_bytes(a, b):
    d = 0
    for x, y in zip(a, b):
        if x != y:
            d += 1
    return d

@njit
def translate_codons(seq, table):
    prot = ''
    for i in range(0, len(seq) - 2, 3):
        prot += table.get(seq[i:i + 3], 'X')
    return prot

rng = np.random.default_rng(11)
n = 300
close = 100 + np.cumsum(rng.normal(0, 1, n)); opens = close + rng.normal(0, 0.3, n)
highs = np.maximum(opens, close) + 0.5; lows = np.minimum(opens, close) - 0.5
ohlc = np.column_stack((opens / 100, highs / 100, lows / 100, close / 100))
sig = rng.choice(np.array([0, 0, 0, 1, -1]), n).astype(np.float64)
tbl = Dict.empty(types.unicode_type, types.unicode_type)
for k_, v_ in {'ATG': 'M', 'GCC': 'A', 'TTT': 'F', 'GGG': 'G', 'TAA': '*'}.items():
    tbl[k_] = v_
xs = rng.normal(size=50); xs[[3, 10, 11]] = np.nan
CASES_C_FIN_BIO = [
    ("run_backtest", run_backtest, (opens, highs, lows, close, rng.random(n) > 0.9, rng.random(n) > 0.9, 0.02, 0.03)),
    ("positions_book", positions_book, (ohlc, sig)),
    ("rsi", rsi, (close,)),
    ("atr", atr, (highs, lows, close)),
    ("grid_search_ma", grid_search_ma, (close, np.array([3, 5, 8]), np.array([10, 20]))),
    ("rolling_mean_minp", rolling_mean_minp, (xs, 5, 3)),
    ("rolling_max_deque", rolling_max_deque, (xs[12:], 4)),
    ("ewm_mean", ewm_mean, (close[:30], 0.3)),
    ("ewm_mean_noadj", ewm_mean, (close[:30], 0.3, False)),
    ("groupby_sum", groupby_sum, (rng.integers(-1, 4, 40), rng.random(40), 4)),
    ("ffill", ffill, (xs,)),
    ("reverse_complement", reverse_complement, ("ACGTTGCAN",)),
    ("gc_content", gc_content, ("ACGTTGCAGG",)),
    ("kmer_encode", kmer_encode, ("ACGTNACGTTGCA", 3)),
    ("smith_waterman", smith_waterman, ("ACACACTA", "AGCACACA")),
    ("hamming_bytes", hamming_bytes, (b"GATTACA", b"GACTATA")),
    ("translate_codons", translate_codons, ("ATGGCCTTTGGGTAACCC", tbl)),
]

CASES = CASES_C_STATS_ML + CASES_C_FIN_BIO


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    check(f.py_func, *args, jit=f)
