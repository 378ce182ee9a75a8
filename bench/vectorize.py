"""CPU ufunc benchmark: pyjit's @vectorize beside Numba's, same kernel, same inputs, one run.

saxpy (a * x + y, a a Python float) over 10**7 float64, for target='cpu' and target='parallel',
with a preallocated out= (the loop alone) and without (NumPy allocates the result). Samples of
the two libraries are interleaved; the medians and the pyjit/Numba ratio are printed side by
side. The target for target='cpu' is a ratio <= 1.10.

    python bench/vectorize.py             # 11 samples per cell
    python bench/vectorize.py --quick     # 5
    python bench/vectorize.py -n 1000000  # another size
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)          # the in-place build of pyjit in this checkout

SIG = ["float64(float64, float64, float64)"]
TARGET_RATIO = 1.10


def saxpy(a, x, y):
    return a * x + y


def make_ufuncs():
    """{(library, target): ufunc}; a library that is missing or fails shows as an error."""
    ufuncs = {}
    import pyjit
    for target in ("cpu", "parallel"):
        ufuncs["pyjit", target] = pyjit.vectorize(SIG, target=target)(saxpy)
    try:
        import numba
        for target in ("cpu", "parallel"):
            ufuncs["numba", target] = numba.vectorize(SIG, target=target)(saxpy)
    except Exception as exc:  # noqa: BLE001 - Numba is optional here
        print(f"numba unavailable: {exc!r}")
    return ufuncs


def sample(fn, reps):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def run_cell(ufuncs, target, with_out, x, y, reps):
    """Interleaved samples of both libraries for one (target, out=) case: their medians."""
    out = np.empty_like(x)
    calls = {}
    for lib in ("pyjit", "numba"):
        u = ufuncs.get((lib, target))
        if u is None:
            continue
        calls[lib] = (lambda u=u: u(2.0, x, y, out=out)) if with_out else (lambda u=u: u(2.0, x, y))
        expect = 2.0 * x + y
        if not np.allclose(u(2.0, x, y), expect):
            raise AssertionError(f"{lib} target={target}: wrong result")
    samples = {lib: [] for lib in calls}
    for _ in range(reps):
        for lib, call in calls.items():
            samples[lib] += sample(call, 1)
    return {lib: statistics.median(s) for lib, s in samples.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10**7, help="elements (default 10**7)")
    ap.add_argument("--quick", action="store_true", help="5 samples instead of 11")
    args = ap.parse_args()
    reps = 5 if args.quick else 11
    rng = np.random.default_rng(0)
    x, y = rng.random(args.n), rng.random(args.n)
    ufuncs = make_ufuncs()
    import pyjit
    print(f"saxpy over {args.n} float64, median of {reps}; pyjit parallel threads: "
          f"{pyjit._core.ufunc_threads()}, cores: {os.cpu_count()}")
    print(f"{'case':<28}{'pyjit ms':>10}{'numba ms':>10}{'ratio':>8}")
    worst = None
    for target in ("cpu", "parallel"):
        for with_out in (True, False):
            med = run_cell(ufuncs, target, with_out, x, y, reps)
            name = f"target={target}" + (", out=" if with_out else "")
            p, n = med.get("pyjit"), med.get("numba")
            ratio = p / n if p and n else float("nan")
            print(f"{name:<28}{p * 1e3:>10.2f}{(n or float('nan')) * 1e3:>10.2f}{ratio:>8.3f}")
            if target == "cpu" and with_out:
                worst = ratio
    if worst is not None and worst == worst:
        verdict = "meets" if worst <= TARGET_RATIO else "misses"
        print(f"target='cpu' with out=: ratio {worst:.3f}, {verdict} the target <= {TARGET_RATIO}")


if __name__ == "__main__":
    main()
