"""@njit(parallel=True) with prange: pyjit beside Numba, same kernels, same inputs, one run.

    python bench/parallel.py            # full sizes (10^8 floats for the sum), 7 samples
    python bench/parallel.py --quick    # smaller sizes, 5 samples
    python bench/parallel.py --markdown

Each kernel is written once (make_kernels) and compiled by each library's njit(parallel=True)
with that library's prange. Samples of the two libraries are interleaved, each after a pause
long enough for the other library's idle threads to stop polling (OpenMP's spin for tens of
milliseconds after a region, and would otherwise take cores from the one being measured); the
medians, the pyjit/Numba ratio (below 1: pyjit faster) and each library's speed-up over its own
run on one thread (set_num_threads(1)) are printed. `empty` is the cost of a parallel region
with nothing to do but one iteration per thread, per call; `--sweep` prints it for each thread
count.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)          # the in-place build of pyjit in this checkout


def make_kernels(njit, prange):
    """{name: compiled kernel} for one library."""
    par = njit(parallel=True)

    def total(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i]
        return s

    def pairwise(X, D):
        n = X.shape[0]
        for i in prange(n):
            for j in range(n):
                s = 0.0
                for k in range(X.shape[1]):
                    t = X[i, k] - X[j, k]
                    s += t * t
                D[i, j] = np.sqrt(s)
        return D

    def mandelbrot(out, iters):
        h, w = out.shape
        for y in prange(h):
            ci = -1.5 + 3.0 * y / h
            for x in range(w):
                cr = -2.0 + 3.0 * x / w
                zr = 0.0
                zi = 0.0
                n = 0
                while n < iters and zr * zr + zi * zi <= 4.0:
                    zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                    n += 1
                out[y, x] = n
        return out

    def stencil(a, out):
        for i in prange(1, a.shape[0] - 1):
            for j in range(1, a.shape[1] - 1):
                out[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] +
                                   a[i, j + 1])
        return out

    def histogram(x, nbins, nchunks):
        hist = np.zeros(nbins, np.int64)
        size = (x.shape[0] + nchunks - 1) // nchunks
        for c in prange(nchunks):
            local = np.zeros(nbins, np.int64)
            for i in range(c * size, min(x.shape[0], (c + 1) * size)):
                b = int(x[i] * nbins)
                local[min(b, nbins - 1)] += 1
            hist += local
        return hist

    def arrayexpr(a, b, c):
        return a * b + c            # no prange: parallel=True runs the expression on the pool

    def arraysum(a):
        return a.sum()

    def empty(a):
        for i in prange(a.shape[0]):
            a[i] = i
        return a

    return {name: par(f) for name, f in (("sum", total), ("pairwise", pairwise),
                                          ("mandelbrot", mandelbrot), ("stencil", stencil),
                                          ("histogram", histogram), ("arrayexpr", arrayexpr),
                                          ("arraysum", arraysum), ("empty", empty))}


def make_inputs(quick, nthreads):
    rng = np.random.default_rng(0)
    n_sum = 10**7 if quick else 10**8
    npts = 2000 if quick else 4000
    side = 2000 if quick else 4000
    X = rng.random((npts, 3))
    grid = rng.random((side, side))
    return {
        "sum": (f"{n_sum:.0e} floats", lambda: (rng.random(n_sum),)),
        "pairwise": (f"{npts}x3", lambda: (X, np.empty((npts, npts)))),
        "mandelbrot": ("600x900, 200 it" if quick else "1200x1800, 200 it",
                       lambda: (np.zeros((600, 900) if quick else (1200, 1800), np.int64), 200)),
        "stencil": (f"{side}x{side}", lambda: (grid, np.zeros_like(grid))),
        "histogram": ("10^7, 256 bins", lambda: (rng.random(10**7), 256, 64)),
        "arrayexpr": (f"a * b + c, {n_sum:.0e}", lambda: tuple(rng.random(n_sum) for _ in range(3))),
        "arraysum": (f"a.sum(), {n_sum:.0e}", lambda: (rng.random(n_sum),)),
        "empty": (f"{nthreads} iterations", lambda: (np.zeros(nthreads),)),
    }


SETTLE = 0.1   # seconds: longer than GOMP_SPINCOUNT's spin, and than pyjit's polling


def sample(fn, args, repeat_inside):
    time.sleep(SETTLE)
    fn(*args)       # wakes this library's threads: the samples time regions, not wake-ups
    start = time.perf_counter()
    for _ in range(repeat_inside):
        fn(*args)
    return (time.perf_counter() - start) / repeat_inside


def libraries():
    import pyjit
    libs = {"pyjit": (make_kernels(pyjit.njit, pyjit.prange), pyjit.set_num_threads,
                      pyjit.get_num_threads)}
    try:
        import numba
        libs["numba"] = (make_kernels(numba.njit, numba.prange), numba.set_num_threads,
                         numba.get_num_threads)
    except Exception as exc:  # noqa: BLE001 - a missing peer is reported, not fatal
        print(f"numba unavailable: {exc}")
    return libs


def measure(libs, name, args, samples, threads):
    """{library: median seconds} at the given number of threads."""
    inner = 2000 if name == "empty" else 1
    times = {lib: [] for lib in libs}
    for lib, (kernels, set_threads, _) in libs.items():
        set_threads(threads)
        kernels[name](*args)   # compile, warm up
    for _ in range(samples):
        for lib, (kernels, set_threads, _) in libs.items():
            set_threads(threads)
            times[lib].append(sample(kernels[name], args, inner))
    return {lib: statistics.median(t) for lib, t in times.items()}


def sweep(libs, nthreads, samples):
    """The empty region's cost at 1, 2, 4, ... threads, each library in the same run."""
    counts = sorted({1, 2, 4, 8, 12, nthreads} & set(range(1, nthreads + 1)))
    print(f"empty region, median of {samples} samples of 2000 calls")
    print("threads  " + "  ".join(f"{lib:>9}" for lib in libs))
    for t in counts:
        full = measure(libs, "empty", (np.zeros(t),), samples, t)
        print(f"{t:7d}  " + "  ".join(f"{fmt(full[lib]):>9}" for lib in libs), flush=True)


def fmt(seconds):
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.1f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--only", default="")
    parser.add_argument("--sweep", action="store_true", help="the empty region by thread count")
    args = parser.parse_args()
    libs = libraries()
    nthreads = next(iter(libs.values()))[2]()
    samples = 5 if args.quick else 7
    if args.sweep:
        sweep(libs, nthreads, samples)
        return
    inputs = make_inputs(args.quick, nthreads)
    only = [n for n in args.only.split(",") if n] or list(inputs)
    print(f"{nthreads} threads, {os.cpu_count()} cores, median of {samples}")
    head = ["kernel", "size"] + [f"{lib}" for lib in libs] + \
        (["pyjit/numba"] if "numba" in libs else []) + [f"{lib} x1/xN" for lib in libs]
    rows = []
    for name in only:
        size, make = inputs[name]
        data = make()
        full = measure(libs, name, data, samples, nthreads)
        one = measure(libs, name, data, max(3, samples // 2), 1) if name != "empty" else None
        row = [name, size] + [fmt(full[lib]) for lib in libs]
        if "numba" in libs:
            row.append(f"{full['pyjit'] / full['numba']:.2f}")
        row += [f"{one[lib] / full[lib]:.2f}x" if one else "-" for lib in libs]
        rows.append(row)
        print("  ".join(row) if not args.markdown else "", flush=True)
    for lib, (_, set_threads, _) in libs.items():
        set_threads(nthreads)
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
        print()
        for r in [head] + rows:
            print("  ".join(c.rjust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
