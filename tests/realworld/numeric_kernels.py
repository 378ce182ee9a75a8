"""Numeric kernels written as public Numba code writes them, in plain Python.

Each restates a pattern seen in public code: the Mandelbrot of Numba's documentation (a compiled
function calling another), a sliding-window p-norm distance profile as matrix-profile codes
compute it, Numba's 5-minute-guide `go_fast`, a Lennard-Jones energy and direct-summation gravity
as molecular-dynamics tutorials write them, a k-means assignment step, an explicit heat equation,
Floyd-Warshall, insertion sort, an exponentially weighted moving average, a Metropolis sweep of
the Ising model, an edit distance, a histogram loop, maximum drawdown, Black-Scholes with
`math.erf`, a 3x3 blur, a prime sieve, a trapezoid rule, pandas' Kahan-compensated rolling sum, a
cumulative sum over `enumerate` and the triple-loop matrix product of tutorials; from the newer
corpus files, a Viterbi decoder, Needleman-Wunsch through helpers, great-circle distances,
pygama's trapezoid filter over a batch, flood-fill labelling with a list of tuples, a direct DFT
with `cmath` and a recursive merge sort; from the library corpus (library_kernels.py), umap's
pairwise distances through its distance function, stumpy's Welford rolling variance and
librosa's accumulated cost of dynamic time warping.

`make(njit)` returns them compiled by that njit (the identity gives CPython's); `inputs(name,
small)` their arguments, small for the tests, large (tens of milliseconds) for
bench/realworld.py, which times them against Numba.
"""
import cmath
import math

import numpy as np


def make(njit):
    """name -> the kernel compiled by njit."""
    @njit
    def mandel(x, y, max_iters):
        """Numba's documentation: escape time of one point."""
        i = 0
        c = complex(x, y)
        z = 0.0j
        for i in range(max_iters):
            z = z * z + c
            if (z.real * z.real + z.imag * z.imag) >= 4:
                return i
        return 255

    @njit
    def mandel_docs(min_x, max_x, min_y, max_y, image, iters):
        height = image.shape[0]
        width = image.shape[1]
        pixel_size_x = (max_x - min_x) / width
        pixel_size_y = (max_y - min_y) / height
        for x in range(width):
            real = min_x + x * pixel_size_x
            for y in range(height):
                imag = min_y + y * pixel_size_y
                image[y, x] = mandel(real, imag, iters)
        return image

    @njit
    def pnorm_profile(Q, T, p):
        """A sliding-window p-norm distance profile, as matrix-profile codes compute it."""
        m = Q.shape[0]
        n = T.shape[0] - m + 1
        out = np.empty(n)
        for i in range(n):
            s = 0.0
            for j in range(m):
                s += abs(Q[j] - T[i + j]) ** p
            out[i] = s ** (1.0 / p)
        return out

    @njit
    def go_fast(a):
        """Numba's 5-minute guide."""
        trace = 0.0
        for i in range(a.shape[0]):
            trace += np.tanh(a[i, i])
        return a + trace

    @njit
    def sum_loop(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i]
        return s

    @njit
    def lj_energy(pos, eps, sigma):
        """Lennard-Jones energy over all pairs, as molecular-dynamics tutorials write it."""
        n = pos.shape[0]
        e = 0.0
        for i in range(n):
            for j in range(i + 1, n):
                dx = pos[i, 0] - pos[j, 0]
                dy = pos[i, 1] - pos[j, 1]
                dz = pos[i, 2] - pos[j, 2]
                r2 = dx * dx + dy * dy + dz * dz
                sr6 = (sigma * sigma / r2) ** 3
                e += 4.0 * eps * (sr6 * sr6 - sr6)
        return e

    @njit
    def kmeans_assign(X, C):
        """The assignment step of k-means: each point's nearest centroid."""
        n, d = X.shape
        k = C.shape[0]
        labels = np.empty(n, dtype=np.int64)
        for i in range(n):
            best = np.inf
            arg = 0
            for c in range(k):
                dist = 0.0
                for j in range(d):
                    t = X[i, j] - C[c, j]
                    dist += t * t
                if dist < best:
                    best = dist
                    arg = c
            labels[i] = arg
        return labels

    @njit
    def heat_1d(u0, alpha, steps):
        """Explicit finite differences of the heat equation, a course-notes staple."""
        u = u0.copy()
        v = np.empty_like(u)
        n = u.shape[0]
        for _ in range(steps):
            v[0] = u[0]
            v[n - 1] = u[n - 1]
            for i in range(1, n - 1):
                v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
            u, v = v, u
        return u

    @njit
    def floyd_warshall(dist):
        d = dist.copy()
        n = d.shape[0]
        for k in range(n):
            for i in range(n):
                dik = d[i, k]
                for j in range(n):
                    if dik + d[k, j] < d[i, j]:
                        d[i, j] = dik + d[k, j]
        return d

    @njit
    def insertion_sort(a):
        b = a.copy()
        for i in range(1, b.shape[0]):
            key = b[i]
            j = i - 1
            while j >= 0 and b[j] > key:
                b[j + 1] = b[j]
                j -= 1
            b[j + 1] = key
        return b

    @njit
    def nbody_accel(pos, mass, soft):
        """Gravitational accelerations, direct summation."""
        n = pos.shape[0]
        acc = np.zeros_like(pos)
        for i in range(n):
            for j in range(n):
                if i != j:
                    dx = pos[j, 0] - pos[i, 0]
                    dy = pos[j, 1] - pos[i, 1]
                    dz = pos[j, 2] - pos[i, 2]
                    inv = (dx * dx + dy * dy + dz * dz + soft * soft) ** -1.5
                    acc[i, 0] += mass[j] * dx * inv
                    acc[i, 1] += mass[j] * dy * inv
                    acc[i, 2] += mass[j] * dz * inv
        return acc

    @njit
    def ewma(x, alpha):
        """An exponentially weighted moving average, as finance helpers write it."""
        out = np.empty_like(x)
        out[0] = x[0]
        for i in range(1, x.shape[0]):
            out[i] = alpha * x[i] + (1.0 - alpha) * out[i - 1]
        return out

    @njit
    def ising_sweep(spins, rand, beta):
        """A Metropolis sweep of the 2-D Ising model; the uniforms come in, so both agree."""
        s = spins.copy()
        n = s.shape[0]
        k = 0
        for i in range(n):
            for j in range(n):
                nb = s[(i + 1) % n, j] + s[i - 1, j] + s[i, (j + 1) % n] + s[i, j - 1]
                de = 2.0 * s[i, j] * nb
                if de <= 0 or rand[k] < math.exp(-beta * de):
                    s[i, j] = -s[i, j]
                k += 1
        return s

    @njit
    def levenshtein(a, b):
        """Edit distance of two int sequences, one row of the table at a time."""
        n, m = a.shape[0], b.shape[0]
        prev = np.arange(m + 1)
        cur = np.empty(m + 1, dtype=np.int64)
        for i in range(1, n + 1):
            cur[0] = i
            for j in range(1, m + 1):
                cost = 0 if a[i - 1] == b[j - 1] else 1
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            prev, cur = cur, prev
        return prev[m]

    @njit
    def hist_loop(x, lo, hi, nbins):
        counts = np.zeros(nbins, dtype=np.int64)
        width = (hi - lo) / nbins
        for v in x:
            k = int((v - lo) / width)
            if 0 <= k < nbins:
                counts[k] += 1
        return counts

    @njit
    def max_drawdown(prices):
        peak = prices[0]
        worst = 0.0
        for p in prices:
            if p > peak:
                peak = p
            dd = (peak - p) / peak
            if dd > worst:
                worst = dd
        return worst

    @njit
    def black_scholes(S, K, T, r, sigma):
        out = np.empty_like(S)
        for i in range(S.shape[0]):
            d1 = (math.log(S[i] / K[i]) + (r + 0.5 * sigma * sigma) * T[i]) / (sigma * math.sqrt(T[i]))
            d2 = d1 - sigma * math.sqrt(T[i])
            n1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
            n2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
            out[i] = S[i] * n1 - K[i] * math.exp(-r * T[i]) * n2
        return out

    @njit
    def blur3x3(img):
        h, w = img.shape
        out = np.zeros_like(img)
        for i in range(1, h - 1):
            for j in range(1, w - 1):
                s = 0.0
                for di in range(-1, 2):
                    for dj in range(-1, 2):
                        s += img[i + di, j + dj]
                out[i, j] = s / 9.0
        return out

    @njit
    def sieve(n):
        flags = np.ones(n + 1, dtype=np.bool_)
        flags[0] = False
        flags[1] = False
        i = 2
        while i * i <= n:
            if flags[i]:
                for j in range(i * i, n + 1, i):
                    flags[j] = False
            i += 1
        return np.count_nonzero(flags)

    @njit
    def trapz_loop(y, x):
        s = 0.0
        for i in range(1, x.shape[0]):
            s += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2.0
        return s

    @njit
    def add_sum(val, nobs, sum_x, compensation):
        """pandas' numba window kernels: Kahan-compensated running sum, NaN skipped."""
        if not np.isnan(val):
            nobs += 1
            y = val - compensation
            t = sum_x + y
            compensation = t - sum_x - y
            sum_x = t
        return nobs, sum_x, compensation

    @njit
    def remove_sum(val, nobs, sum_x, compensation):
        if not np.isnan(val):
            nobs -= 1
            y = -val - compensation
            t = sum_x + y
            compensation = t - sum_x - y
            sum_x = t
        return nobs, sum_x, compensation

    @njit
    def rolling_sum(values, window, min_periods):
        """A fixed-window rolling sum as pandas' numba engine computes it."""
        n = values.shape[0]
        out = np.empty(n)
        nobs = 0
        sum_x = 0.0
        comp_add = 0.0
        comp_rem = 0.0
        for i in range(n):
            nobs, sum_x, comp_add = add_sum(values[i], nobs, sum_x, comp_add)
            if i >= window:
                nobs, sum_x, comp_rem = remove_sum(values[i - window], nobs, sum_x, comp_rem)
            out[i] = sum_x if nobs >= min_periods else np.nan
        return out

    @njit
    def cusum_enumerate(values):
        """A cumulative sum over enumerate, as a blog post's `_numba_fast_cusum` writes it."""
        cusum = np.zeros(values.shape[0])
        accumulator = 0
        for index, value in enumerate(values):
            accumulator += value
            cusum[index] = accumulator
        return cusum

    @njit
    def matmul_loops(A, B):
        """The triple loop of tutorials comparing Numba with NumPy's dot."""
        n, k = A.shape
        m = B.shape[1]
        C = np.zeros((n, m))
        for i in range(n):
            for p in range(k):
                aip = A[i, p]
                for j in range(m):
                    C[i, j] += aip * B[p, j]
        return C

    @njit
    def viterbi_path(A, C, B, O):
        """A secondary-structure predictor's Viterbi decoder: columns multiplied with np.multiply."""
        I = A.shape[0]   # noqa: E741
        N = len(O)
        D = np.zeros((I, N))
        E = np.zeros((I, N - 1)).astype(np.int32)
        D[:, 0] = np.multiply(C, B[:, O[0]])
        for n in range(1, N):
            for i in range(I):
                temp_product = np.multiply(A[:, i], D[:, n - 1])
                D[i, n] = np.max(temp_product) * B[i, O[n]]
                E[i, n - 1] = np.argmax(temp_product)
        S_opt = np.zeros(N).astype(np.int32)
        S_opt[-1] = np.argmax(D[:, -1])
        for n in range(N - 2, -1, -1):
            S_opt[n] = E[int(S_opt[n + 1]), n]
        return S_opt

    @njit
    def max3(a, b, c):
        x = a
        if b > x:
            x = b
        if c > x:
            x = c
        return x

    @njit
    def similarity(symbol_a, type_a, symbol_b, type_b):
        if symbol_a == symbol_b:
            return 1.0
        elif type_a == type_b:
            return 0.5
        return -1.0

    @njit
    def needleman_wunsch(symbols_a, symbols_b, types_a, types_b):
        """A dolphin-call aligner's global alignment table, through two small helpers."""
        N = len(symbols_a)
        M = len(symbols_b)
        dp = np.zeros((N + 1, M + 1))
        dp[1:, 0] = -np.arange(1, N + 1)
        dp[0, 1:] = -np.arange(1, M + 1)
        for i in range(1, N + 1):
            for j in range(1, M + 1):
                s = similarity(symbols_a[i - 1], types_a[i - 1], symbols_b[j - 1], types_b[j - 1])
                dp[i, j] = max3(dp[i - 1, j - 1] + s, dp[i - 1, j] - 1.0, dp[i, j - 1] - 1.0)
        return dp

    @njit
    def haversine_all(lats, lons, lat, lon):
        """A geomatching package's great-circle distances from one point, over `math`."""
        out = np.empty(lats.size)
        for i in range(lats.size):
            p1 = lats[i] * np.pi / 180
            p2 = lat * np.pi / 180
            dp = (lat - lats[i]) * np.pi / 180
            dl = (lon - lons[i]) * np.pi / 180
            a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
            out[i] = 6371 * 2 * math.atan2(math.sqrt(a), math.sqrt(1 - a))
        return out

    @njit
    def trap_filter_rows(w, rise, flat):
        """pygama's trapezoidal filter, the kernel of its gufunc, run over a batch of waveforms."""
        out = np.empty_like(w)
        for r in range(w.shape[0]):
            w_in = w[r]
            w_out = out[r]
            w_out[0] = w_in[0]
            for i in range(1, rise):
                w_out[i] = w_out[i - 1] + w_in[i]
            for i in range(rise, rise + flat):
                w_out[i] = w_out[i - 1] + w_in[i] - w_in[i - rise]
            for i in range(rise + flat, 2 * rise + flat):
                w_out[i] = w_out[i - 1] + w_in[i] - w_in[i - rise] - w_in[i - rise - flat]
            for i in range(2 * rise + flat, w_in.shape[0]):
                w_out[i] = (w_out[i - 1] + w_in[i] - w_in[i - rise] - w_in[i - rise - flat]
                            + w_in[i - 2 * rise - flat])
        return out

    @njit
    def flood_fill(img):
        """An image-processing class's labelling: a list of tuples as the queue."""
        rows, cols = img.shape
        labels = np.zeros((rows, cols), dtype=np.int64)
        current = 1
        for row in range(rows):
            for col in range(cols):
                if img[row, col] == 1 and labels[row, col] == 0:
                    queue = [(row, col)]
                    labels[row, col] = current
                    while len(queue) > 0:
                        here = queue.pop()
                        around = [(here[0], here[1] + 1), (here[0] + 1, here[1]),
                                  (here[0], here[1] - 1), (here[0] - 1, here[1])]
                        for v in around:
                            if 0 <= v[0] < rows and 0 <= v[1] < cols:
                                if img[v] == 1 and labels[v] == 0:
                                    labels[v] = current
                                    queue.append(v)
                    current += 1
        return labels

    @njit
    def naive_dft(x):
        """A direct DFT with cmath.exp, as signal-processing tutorials write it first."""
        n = x.shape[0]
        out = np.zeros(n, dtype=np.complex128)
        for k in range(n):
            s = 0j
            for t in range(n):
                s += x[t] * cmath.exp(-2j * cmath.pi * k * t / n)
            out[k] = s
        return np.abs(out)

    @njit
    def merge_sort(a):
        """A recursive merge sort on slices, new arrays at each level."""
        if len(a) <= 1:
            return a.copy()
        mid = len(a) // 2
        left = merge_sort(a[:mid])
        right = merge_sort(a[mid:])
        out = np.empty_like(a)
        i = j = k = 0
        while i < len(left) and j < len(right):
            if left[i] <= right[j]:
                out[k] = left[i]
                i += 1
            else:
                out[k] = right[j]
                j += 1
            k += 1
        while i < len(left):
            out[k] = left[i]
            i += 1
            k += 1
        while j < len(right):
            out[k] = right[j]
            j += 1
            k += 1
        return out

    @njit
    def euclid(x, y):
        result = 0.0
        for i in range(x.shape[0]):
            result += (x[i] - y[i]) ** 2
        return np.sqrt(result)

    @njit
    def umap_pairwise(X):
        """umap's pairwise distances through its distance function, over row views."""
        n = X.shape[0]
        out = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                out[i, j] = euclid(X[i], X[j])
        return out

    @njit
    def welford_var(a, w, a_isfinite):
        """stumpy's rolling variance: Welford's update, np.mean and np.var after a gap."""
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

    @njit
    def dtw_cost(C, D, steps, step_sizes_sigma, weights_mul, weights_add, max_0, max_1):
        """librosa's accumulated cost of dynamic time warping."""
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

    return {
        "umap_pairwise": umap_pairwise,
        "welford_var": welford_var,
        "dtw_cost": dtw_cost,
        "viterbi_path": viterbi_path,
        "needleman_wunsch": needleman_wunsch,
        "haversine_all": haversine_all,
        "trap_filter_rows": trap_filter_rows,
        "flood_fill": flood_fill,
        "naive_dft": naive_dft,
        "merge_sort": merge_sort,
        "mandel_docs": mandel_docs,
        "pnorm_profile": pnorm_profile,
        "go_fast": go_fast,
        "sum_loop": sum_loop,
        "lj_energy": lj_energy,
        "kmeans_assign": kmeans_assign,
        "heat_1d": heat_1d,
        "floyd_warshall": floyd_warshall,
        "insertion_sort": insertion_sort,
        "nbody_accel": nbody_accel,
        "ewma": ewma,
        "ising_sweep": ising_sweep,
        "levenshtein": levenshtein,
        "hist_loop": hist_loop,
        "max_drawdown": max_drawdown,
        "black_scholes": black_scholes,
        "blur3x3": blur3x3,
        "sieve": sieve,
        "trapz_loop": trapz_loop,
        "rolling_sum": rolling_sum,
        "cusum_enumerate": cusum_enumerate,
        "matmul_loops": matmul_loops,
    }



def _rng():
    return np.random.default_rng(12345)


def _points(n, d=3):
    return _rng().random((n, d))


def _graph(n):
    d = _rng().random((n, n)) * 10.0
    np.fill_diagonal(d, 0.0)
    return d


def _ising(n):
    g = _rng()
    return (np.where(g.random((n, n)) < 0.5, -1.0, 1.0), g.random(n * n), 0.4)


def _options(n):
    g = _rng()
    return (50 + 100 * g.random(n), 50 + 100 * g.random(n), 0.1 + g.random(n), 0.03, 0.25)


def _vector(n, lo=0.0):
    return lo + _rng().random(n)


def _hmm(n):
    g = _rng()
    A = g.random((4, 4))
    B = g.random((4, 3))
    return (A / A.sum(axis=1)[:, None], np.full(4, 0.25), B / B.sum(axis=1)[:, None],
            g.integers(0, 3, n))


def _symbols(n):
    g = _rng()
    return (g.integers(0, 4, n), g.integers(0, 4, n - n // 4), g.integers(0, 2, n),
            g.integers(0, 2, n - n // 4))


def _welford(n):
    a = np.cos(np.arange(n) * 0.3) + _rng().random(n) * 0.01
    isf = np.ones(n - 9, dtype=np.bool_)
    isf[::97] = False
    return a, 10, isf


def _dtw(n, m):
    rs = _rng()
    C = rs.random((n, m))
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    sigma = np.array([[1, 1], [0, 1], [1, 0]])
    return C, D, np.zeros(D.shape, dtype=np.int32), sigma, np.ones(3), np.zeros(3), 1, 1


# name -> (arguments for the tests, arguments for the benchmark)
_INPUTS = {
    "umap_pairwise": (lambda k: (_points(3 * k + 5, 8),)),
    "welford_var": (lambda k: _welford(1000 * k)),
    "dtw_cost": (lambda k: _dtw(3 * k + 4, 4 * k + 5)),
    "viterbi_path": (lambda k: _hmm(20 * k)),
    "needleman_wunsch": (lambda k: _symbols(9 * k)),
    "haversine_all": (lambda k: (_vector(1000 * k, -0.5) * 120, _vector(1000 * k, -0.5) * 340,
                                 10.0, 20.0)),
    "trap_filter_rows": (lambda k: (np.cumsum(_points(4 * k, 200), axis=1), 10, 5)),
    "flood_fill": (lambda k: ((_points(6 * k + 6, 7 * k + 7) < 0.5).astype(np.int64),)),
    "naive_dft": (lambda k: (_vector(16 + 4 * k),)),
    "merge_sort": (lambda k: (_vector(40 * k),)),
    "mandel_docs": (lambda k: (-2.0, 1.0, -1.0, 1.0, np.zeros((4 * k + 20, 6 * k + 30), np.uint8), 60)),
    "pnorm_profile": (lambda k: (_vector(100), _vector(200 * k), 3.0)),
    "go_fast": (lambda k: (np.arange(100.0 * k * k).reshape(10 * k, 10 * k),)),
    "sum_loop": (lambda k: (_vector(1000 * k * k),)),
    "lj_energy": (lambda k: (_points(15 * k) * 10.0, 1.0, 1.0)),
    "kmeans_assign": (lambda k: (_points(1000 * k, 4), _points(16, 4))),
    "heat_1d": (lambda k: (_vector(100 * k), 0.25, 5 * k)),
    "floyd_warshall": (lambda k: (_graph(2 * k),)),
    "insertion_sort": (lambda k: (_vector(40 * k),)),
    "nbody_accel": (lambda k: (_points(8 * k), _vector(8 * k), 0.01)),
    "ewma": (lambda k: (_vector(10000 * k), 0.1)),
    "ising_sweep": (lambda k: _ising(7 * k)),
    "levenshtein": (lambda k: (_rng().integers(0, 4, 20 * k), _rng().integers(0, 4, 15 * k))),
    "hist_loop": (lambda k: (_vector(10000 * k), 0.0, 1.0, 64)),
    "max_drawdown": (lambda k: (_vector(10000 * k, 1.0),)),
    "black_scholes": (lambda k: _options(2000 * k)),
    "blur3x3": (lambda k: (_vector(36 * k * k).reshape(6 * k, 6 * k),)),
    "sieve": (lambda k: (20000 * k,)),
    "trapz_loop": (lambda k: (_vector(10000 * k), np.linspace(0.0, 1.0, 10000 * k))),
    "rolling_sum": (lambda k: (_with_nans(10000 * k), 20, 5)),
    "cusum_enumerate": (lambda k: (_vector(10000 * k),)),
    "matmul_loops": (lambda k: (_points(k + 7, 2 * k + 5), _points(2 * k + 5, k + 3))),
}


def _with_nans(n):
    x = _vector(n)
    x[::17] = np.nan
    return x


def inputs(name, small):
    """The arguments of kernel `name`: small ones for tests, large ones for benchmarks."""
    return _INPUTS[name](1 if small else 100)
