"""The cost of try/except when nothing is raised: each loop compiled as written and with a
`try: ... except Exception:` around the work that may raise (an indexing, a compiled callee
that raises on bad input), by pyjit and by Numba, timed side by side in one run.

pyjit sends a raise inside a try to the handler with the same conditional branch that otherwise
leaves the function (docs/architecture.md, "Exceptions"), so the guarded loops should run as
fast as the plain ones: the table gives the median times and their ratio (guarded / plain: 1.00
means free) for each library.

    python bench/exceptions.py            # 15 interleaved samples of each
    python bench/exceptions.py --quick    # 5
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def make_kernels(jit):
    @jit
    def checked(x):
        if x < 0.0:
            raise ValueError("negative")
        return x * 2.0

    @jit
    def index_plain(a, idx):
        s = 0.0
        for k in range(idx.shape[0]):
            s += a[idx[k]]
        return s

    @jit
    def index_guarded(a, idx):
        s = 0.0
        for k in range(idx.shape[0]):
            try:
                s += a[idx[k]]
            except Exception:
                s -= 1.0
        return s

    @jit
    def call_plain(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += checked(a[i])
        return s

    @jit
    def call_guarded(a):
        s = 0.0
        for i in range(a.shape[0]):
            try:
                s += checked(a[i])
            except Exception:
                s -= 1.0
        return s

    return {"gather": (index_plain, index_guarded), "callee": (call_plain, call_guarded)}


def timed(f, args):
    t = time.perf_counter()
    f(*args)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    samples = 5 if ap.parse_args().quick else 15
    import pyjit
    libs = {"pyjit": pyjit.njit}
    try:
        import numba
        libs["numba"] = numba.njit
    except ImportError:
        pass
    rng = np.random.default_rng(0)
    a = rng.random(2_000_000)
    args = {"gather": (a, rng.integers(0, a.shape[0], 2_000_000)), "callee": (a,)}
    print(f"{'kernel':10s} {'library':8s} {'plain ms':>10s} {'guarded ms':>11s} {'ratio':>7s}")
    for lib, jit in libs.items():
        for name, (plain, guarded) in make_kernels(jit).items():
            times = {plain: [], guarded: []}
            for f in times:
                f(*args[name])   # compile
            for _ in range(samples):
                for f in times:
                    times[f].append(timed(f, args[name]))
            p, g = (statistics.median(times[f]) * 1e3 for f in (plain, guarded))
            print(f"{name:10s} {lib:8s} {p:10.2f} {g:11.2f} {g / p:7.2f}")


if __name__ == "__main__":
    main()
