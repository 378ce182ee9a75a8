"""The cost of bounds checking: each kernel compiled with boundscheck=False and with it on
(pyjit's default), by pyjit and by Numba, timed side by side in one run.

The kernels are the loops bounds checks meet in real code: a reduction, 1-D and 2-D stencils
whose loop ranges differ from the arrays' sizes, a matrix product, pairwise distances, a prefix
sum, and two data-dependent indexings (a histogram, a gather) where no check can leave the loop.
For each library the table gives the median time with checks off and on and their ratio
(on / off: 1.00 means free); the last column compares pyjit's checked code with Numba's
unchecked code, its default. A second table gives pyjit's compile time (the first call of a new
dispatcher on small inputs, median) with checks off and on.

    python bench/boundscheck.py            # 15 interleaved samples of each
    python bench/boundscheck.py --quick    # 5
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu  # noqa: E402  (bench/cpu.py: its kernels)


def make_kernels(jit):
    shared = cpu.make_kernels(jit)   # the sum and pairwise kernels of bench/cpu.py

    @jit
    def smooth(a, out):
        for i in range(1, a.shape[0] - 1):
            out[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]

    @jit
    def jacobi(u, v):
        n, m = u.shape
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    @jit
    def matmul(a, b, c):
        n, m = a.shape
        p = b.shape[1]
        for i in range(n):
            for k in range(m):
                aik = a[i, k]
                for j in range(p):
                    c[i, j] += aik * b[k, j]

    @jit
    def prefix(x, out):
        out[0] = x[0]
        for i in range(1, x.shape[0]):
            out[i] = out[i - 1] + x[i]

    @jit
    def histogram(x, h):
        for i in range(x.shape[0]):
            h[x[i]] += 1

    @jit
    def gather(a, idx, out):
        for i in range(idx.shape[0]):
            out[i] = a[idx[i]]

    return {"sum": shared["sum"], "stencil 1-D": smooth, "jacobi 2-D": jacobi, "matmul": matmul,
            "pairwise": shared["pairwise"], "prefix sum": prefix, "histogram": histogram,
            "gather": gather}


def workloads():
    rng = np.random.default_rng(0)
    n = 4_000_000
    return {
        "sum": lambda: (rng.random(n),),
        "stencil 1-D": lambda: (rng.random(n), np.zeros(n)),
        "jacobi 2-D": lambda: (rng.random((1500, 1500)), np.zeros((1500, 1500))),
        "matmul": lambda: (rng.random((250, 250)), rng.random((250, 250)), np.zeros((250, 250))),
        "pairwise": lambda: (rng.standard_normal((800, 3)), np.empty((800, 800))),
        "prefix sum": lambda: (rng.random(n), np.empty(n)),
        "histogram": lambda: (rng.integers(0, 1000, n), np.zeros(1000, np.int64)),
        "gather": lambda: (rng.random(100_000), rng.integers(0, 100_000, n), np.empty(n)),
    }


def compilers():
    """{library: (njit with checks off, njit with checks on)}."""
    import pyjit
    found = {"pyjit": (pyjit.njit(boundscheck=False), pyjit.njit(boundscheck=True))}
    try:
        import numba
        found["numba"] = (numba.njit(boundscheck=False), numba.njit(boundscheck=True))
    except ImportError:
        print("numba is not installed: pyjit only")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    opts = ap.parse_args()
    samples = 5 if opts.quick else 15
    variants = {(lib, on): make_kernels(jit) for lib, pair in compilers().items()
                for on, jit in zip((False, True), pair)}
    print("median ms of %d samples; ratio = checks on / checks off" % samples)
    libs = sorted({lib for lib, _ in variants}, key=lambda lib: lib != "pyjit")
    head = "%-12s" % "kernel" + "".join("%10s off %8s on %6s" % (lib, "", "ratio") for lib in libs)
    print(head + ("  pyjit on / numba off" if "numba" in libs else ""))
    for name, make in workloads().items():
        args = make()
        fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        results = {}
        for key, kernels in variants.items():
            call = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            results[key] = (kernels[name](*call), call)   # compiles; the result for the check
        ref_value, ref_args = results[("pyjit", False)]
        for key, (value, call) in results.items():
            same = all(np.allclose(x, y) for x, y in zip(call, ref_args) if isinstance(x, np.ndarray))
            if not same or (value is not None and not np.isclose(value, ref_value)):
                sys.exit("%s: %s gives a different result" % (name, key))
        times = {key: [] for key in variants}
        for _ in range(samples):
            for key, kernels in variants.items():
                call = list(fresh)
                t0 = time.perf_counter()
                kernels[name](*call)
                times[key].append(time.perf_counter() - t0)
        med = {key: statistics.median(t) * 1e3 for key, t in times.items()}
        row = "%-12s" % name
        for lib in libs:
            off, on = med[(lib, False)], med[(lib, True)]
            row += "%10.2f %11.2f %6.2f" % (off, on, on / off)
        if "numba" in libs:
            row += "  %6.2f" % (med[("pyjit", True)] / med[("numba", False)])
        print(row)
    compile_times(samples)


def compile_times(samples):
    import pyjit
    print("\npyjit compile time, median ms of %d first calls on small inputs" % samples)
    print("%-12s %8s %8s %6s" % ("kernel", "off", "on", "ratio"))
    small = {"sum": (np.ones(8),), "stencil 1-D": (np.ones(8), np.zeros(8)),
             "jacobi 2-D": (np.ones((4, 4)), np.zeros((4, 4))),
             "matmul": (np.ones((3, 3)), np.ones((3, 3)), np.zeros((3, 3))),
             "pairwise": (np.ones((3, 2)), np.zeros((3, 3))), "prefix sum": (np.ones(8), np.zeros(8)),
             "histogram": (np.zeros(8, np.int64), np.zeros(4, np.int64)),
             "gather": (np.ones(8), np.zeros(8, np.int64), np.zeros(8))}
    for name, args in small.items():
        med = []
        for on in (False, True):
            t = []
            for _ in range(samples):
                kernel = make_kernels(pyjit.njit(boundscheck=on))[name]
                t0 = time.perf_counter()
                kernel(*args)
                t.append(time.perf_counter() - t0)
            med.append(statistics.median(t) * 1e3)
        print("%-12s %8.1f %8.1f %6.2f" % (name, med[0], med[1], med[1] / med[0]))


if __name__ == "__main__":
    main()
