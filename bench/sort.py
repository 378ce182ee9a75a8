"""Sorting benchmarks: np.sort, a.sort(), np.argsort, np.median compiled by pyjit, beside NumPy
and, optionally, beside another checkout of pyjit (to compare two implementations).

Measures:
  - run time (median of interleaved samples after a warm-up call) for 10, 10**3 and 10**6
    random elements of float64, float32, int32 and int64; small sizes repeat the call in a
    loop (each a.sort() on its own unsorted copy) and report the time per call;
  - first-call time (compilation included) of small functions calling np.sort, np.argsort and
    np.median, each in a fresh process after a warm-up compile of an unrelated function, so
    that the figure is the sorting code's compile and not pyjit's start-up.
Every pyjit checkout runs in its own subprocess (its in-place build on sys.path); results are
checked against NumPy's.

    python bench/sort.py                          # this checkout against NumPy
    python bench/sort.py --base ../other-checkout # and against another checkout
    python bench/sort.py --quick                  # fewer samples and processes
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = ("np.sort", "a.sort", "np.argsort", "np.median")
DTYPES = ("float64", "float32", "int32", "int64")
SIZES = (10, 10**3, 10**6)


def sort_f(a):
    return np.sort(a)


def method_sort(a):
    a.sort()


def argsort_f(a):
    return np.argsort(a, kind="stable")


def median_f(a):
    return np.median(a)


FUNCS = {"np.sort": sort_f, "a.sort": method_sort, "np.argsort": argsort_f, "np.median": median_f}


def data(dtype, n):
    rng = np.random.default_rng(n)
    if dtype.startswith("float"):
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(-10**6, 10**6, n).astype(dtype)


def time_op(fn, op, a, samples):
    """Seconds per call: the median over samples, each a loop of calls over fresh copies."""
    reps = max(1, 200_000 // a.size)
    times = []
    for _ in range(samples):
        copies = [a.copy() for _ in range(reps)]
        t0 = time.perf_counter()
        for c in copies:
            fn(c)
        times.append((time.perf_counter() - t0) / reps)
    return statistics.median(times)


def check(op, got, a):
    if op == "a.sort":
        return np.array_equal(got, np.sort(a))
    if op == "np.argsort":
        return np.array_equal(got, np.argsort(a, kind="stable"))
    ref = FUNCS[op](a)
    return np.array_equal(got, ref) if op == "np.sort" else got == ref


def run_times(fns, samples):
    """{(op, dtype, n): seconds} for fns (op -> callable), checked against NumPy."""
    out = {}
    for op in OPS:
        for dt in DTYPES:
            for n in SIZES:
                a = data(dt, n)
                fn = fns[op]
                b = a.copy()
                got = fn(b)
                if not check(op, b if op == "a.sort" else got, a):
                    raise AssertionError(f"{op} {dt} {n}: wrong result")
                out[f"{op} {dt} {n}"] = time_op(fn, op, a, samples)
    return out


# ---- the worker: one pyjit checkout, in its own process ---------------------------------------

FIRST_CALL = """
import sys, time
sys.path.insert(0, {root!r})
import numpy as np
import pyjit

@pyjit.njit
def warm(x):
    return x + 1

warm(1)
a = np.random.default_rng(0).standard_normal(100)

@pyjit.njit
def f(a):
    return {call}

t0 = time.perf_counter()
f(a)
print(time.perf_counter() - t0)
"""
FIRST_CALLS = {"np.sort": "np.sort(a)", "np.argsort": "np.argsort(a)", "np.median": "np.median(a)"}


def first_call(root, call, procs):
    times = []
    for _ in range(procs):
        src = FIRST_CALL.format(root=root, call=call)
        env = dict(os.environ)
        env.pop("PYJIT_CACHE_DIR", None)            # no on-disk cache: compile for real
        r = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, env=env)
        if r.returncode:
            raise RuntimeError(r.stderr)
        times.append(float(r.stdout.split()[-1]))
    return statistics.median(times)


def worker(root, samples, procs):
    sys.path.insert(0, root)
    import pyjit
    fns = {op: pyjit.njit(f) for op, f in FUNCS.items()}
    res = {"run": run_times(fns, samples),
           "first": {op: first_call(root, c, procs) for op, c in FIRST_CALLS.items()}}
    print(json.dumps(res))


def measure(root, samples, procs):
    r = subprocess.run([sys.executable, __file__, "--worker", root, "--samples", str(samples),
                        "--procs", str(procs)], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr)
    return json.loads(r.stdout.splitlines()[-1])


# ---- the report -----------------------------------------------------------------------------

def fmt(s):
    return f"{s * 1e6:.2f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def report(numpy, cur, base):
    head = "| case | NumPy | pyjit | pyjit/NumPy |" + (" base | pyjit/base |" if base else "")
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for key, t in numpy.items():
        c = cur["run"][key]
        row = f"| {key} | {fmt(t)} | {fmt(c)} | {c / t:.2f} |"
        if base:
            b = base["run"][key]
            row += f" {fmt(b)} | {c / b:.2f} |"
        print(row)
    print()
    print("| first call (fresh process) | pyjit |" + (" base |" if base else ""))
    print("| --- | --- |" + (" --- |" if base else ""))
    for op, t in cur["first"].items():
        print(f"| {op} | {t * 1e3:.0f} ms |" + (f" {base['first'][op] * 1e3:.0f} ms |" if base else ""))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--base", help="another pyjit checkout (built in place) to compare with")
    p.add_argument("--quick", action="store_true", help="5 samples and 3 processes")
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--procs", type=int, default=None)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    samples = args.samples or (5 if args.quick else 9)
    procs = args.procs or (3 if args.quick else 5)
    if args.worker:
        return worker(args.worker, samples, procs)
    cur = measure(ROOT, samples, procs)
    base = measure(os.path.abspath(args.base), samples, procs) if args.base else None
    numpy = run_times(FUNCS, samples)
    report(numpy, cur, base)


if __name__ == "__main__":
    main()
