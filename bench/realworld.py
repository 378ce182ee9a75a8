"""Serial speed on real code: functions written as public Numba projects write them, compiled by
pyjit's @njit and by Numba's, timed side by side in one run.

Each kernel restates a pattern seen in public code (Numba's documentation, tutorials, numerical
and scientific packages) in plain Python; each library compiles the same function object's
source (`njit(py_function)`), the results are checked against each other, and the medians of
interleaved samples are printed with the ratio pyjit/Numba and the median ratio over all.
The target (issue: serial speed) is no kernel above 1.10x and a median of at most 0.8x.

    python bench/realworld.py                  # every kernel
    python bench/realworld.py --quick          # fewer samples
    python bench/realworld.py --only mandel_docs,pnorm_profile --markdown
"""
import argparse
import math
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu  # noqa: E402  (the shared timing helpers; it also puts the checkout on sys.path)


# ---- the kernels: plain Python, compiled by each library ------------------------------------

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


def mandel_docs(min_x, max_x, min_y, max_y, image, iters):
    height = image.shape[0]
    width = image.shape[1]
    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height
    for x in range(width):
        real = min_x + x * pixel_size_x
        for y in range(height):
            imag = min_y + y * pixel_size_y
            image[y, x] = mandel_c(real, imag, iters)
    return image


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


def go_fast(a):
    """Numba's 5-minute guide."""
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


def sum_loop(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


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


def ewma(x, alpha):
    """An exponentially weighted moving average, as finance helpers write it."""
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1.0 - alpha) * out[i - 1]
    return out


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


def hist_loop(x, lo, hi, nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    width = (hi - lo) / nbins
    for v in x:
        k = int((v - lo) / width)
        if 0 <= k < nbins:
            counts[k] += 1
    return counts


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


def black_scholes(S, K, T, r, sigma):
    out = np.empty_like(S)
    for i in range(S.shape[0]):
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * sigma * sigma) * T[i]) / (sigma * math.sqrt(T[i]))
        d2 = d1 - sigma * math.sqrt(T[i])
        n1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
        n2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
        out[i] = S[i] * n1 - K[i] * math.exp(-r * T[i]) * n2
    return out


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


def trapz_loop(y, x):
    s = 0.0
    for i in range(1, x.shape[0]):
        s += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2.0
    return s


# ---- inputs: (kernel, args), sized for tens of milliseconds ----------------------------------

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


KERNELS = {
    "mandel_docs": (mandel_docs, lambda: (-2.0, 1.0, -1.0, 1.0, np.zeros((400, 600), np.uint8), 60)),
    "pnorm_profile": (pnorm_profile, lambda: (_rng().random(100), _rng().random(20000), 3.0)),
    "go_fast": (go_fast, lambda: (np.arange(1000000.0).reshape(1000, 1000),)),
    "sum_loop": (sum_loop, lambda: (_rng().random(10**7),)),
    "lj_energy": (lj_energy, lambda: (_points(1500) * 10.0, 1.0, 1.0)),
    "kmeans_assign": (kmeans_assign, lambda: (_points(100000, 4), _points(16, 4))),
    "heat_1d": (heat_1d, lambda: (_rng().random(10000), 0.25, 500)),
    "floyd_warshall": (floyd_warshall, lambda: (_graph(200),)),
    "insertion_sort": (insertion_sort, lambda: (_rng().random(4000),)),
    "nbody_accel": (nbody_accel, lambda: (_points(800), _rng().random(800), 0.01)),
    "ewma": (ewma, lambda: (_rng().random(10**6), 0.1)),
    "ising_sweep": (ising_sweep, lambda: _ising(700)),
    "levenshtein": (levenshtein, lambda: (_rng().integers(0, 4, 2000), _rng().integers(0, 4, 1500))),
    "hist_loop": (hist_loop, lambda: (_rng().random(10**6), 0.0, 1.0, 64)),
    "max_drawdown": (max_drawdown, lambda: (1.0 + _rng().random(10**6),)),
    "black_scholes": (black_scholes, lambda: _options(200000)),
    "blur3x3": (blur3x3, lambda: (_rng().random((600, 600)),)),
    "sieve": (sieve, lambda: (2 * 10**6,)),
    "trapz_loop": (trapz_loop, lambda: (_rng().random(10**6), np.linspace(0.0, 1.0, 10**6))),
}


def compile_all(njit):
    """Every kernel compiled by this njit; mandel_docs calls the compiled mandel as mandel_c."""
    global mandel_c
    compiled = {name: njit(fn) for name, (fn, _) in KERNELS.items()}
    mandel_c = njit(mandel)
    return compiled


def same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-12)
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5 samples instead of 11")
    ap.add_argument("--only", default="", help="comma-separated subset: " + ",".join(KERNELS))
    ap.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    opts = ap.parse_args(argv)
    names = [k for k in opts.only.split(",") if k] or list(KERNELS)
    samples = 5 if opts.quick else 11
    print(cpu.describe_machine(), flush=True)

    # Numba and pyjit each need their own mandel_c global at call time; compile one library's
    # kernels, warm them up (the global is read when the caller compiles), then the other's.
    kernels = {}
    for lib in cpu.LIBS:
        kernels[lib] = compile_all(cpu.load(lib))
        for name in names:
            kernels[lib][name](*KERNELS[name][1]())
    rows, ratios, failures = [], [], 0
    for name in names:
        args = KERNELS[name][1]()
        p, n = kernels["pyjit"][name](*args), kernels["numba"][name](*args)
        if not same(p, n):
            rows.append((name, "-", "-", "results differ", "MISSED"))
            failures += 1
            continue
        t = cpu.interleaved_medians({lib: kernels[lib][name] for lib in cpu.LIBS}, args, samples)
        r = t["pyjit"] / t["numba"]
        ratios.append(r)
        rows.append((name, cpu.fmt_time(t["pyjit"], "ms"), cpu.fmt_time(t["numba"], "ms"),
                     f"{r:.2f}x", "ok" if r <= 1.10 else "MISSED"))
    med = statistics.median(ratios) if ratios else float("nan")
    rows.append(("median", "", "", f"{med:.2f}x", "ok" if med <= 0.8 else "MISSED"))
    header = ("kernel", "pyjit", "numba", "pyjit/numba", "target")
    if opts.markdown:
        print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
        for row in [header] + rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    print("\nTargets: each kernel <= 1.10x Numba's time, median <= 0.80x.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
