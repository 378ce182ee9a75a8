"""The on-disk cache: a process's first call of the bench/cpu.py kernels, compiled or loaded.

For each kernel of bench/cpu.py (make_kernels, compiled by each library's njit with cache=True)
and each library (pyjit, Numba), in fresh interpreters, the first call on small inputs:
  - cold:   no cache (cache=False): the compilation a first start pays;
  - store:  cache=True and an empty cache directory: compiling, then writing the entry;
  - warm:   cache=True, a later process: the entry is loaded instead of compiled;
and in the warm process, after its first call: the call of the compiled function (same inputs)
and the time to read the library's cache files of that function (the moonshot: warm within 2x
of the two). Medians over several processes; `cold / warm` is the speed-up of a warm start.

Bytecode caching is left on in these interpreters (PYTHONDONTWRITEBYTECODE removed, as users
run Python): otherwise every process compiles pyjit's own modules from source, which is not the
cost being measured. NUMBA_CACHE_DIR and PYJIT_CACHE_DIR point to a temporary directory.

    python bench/cache.py              # 5 processes per cell
    python bench/cache.py --quick      # 3
    python bench/cache.py --only sum,add --markdown
    python bench/cache.py --import-against ../main   # `import pyjit` here and in another checkout

--import-against times `import pyjit` (NumPy already imported) in fresh interpreters, this
checkout's package and the other's alternately, 21 of each, from copies of the two packages in a
temporary directory (so that their bytecode can be cached without writing into the checkouts).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
LIBS = ("pyjit", "numba")
KERNELS = ("sum", "mandelbrot", "pairwise", "collatz", "add")

FIRST_CALL = """
import functools, glob, json, os, sys, time
sys.path.insert(0, {bench!r})
import numpy as np
import cpu
njit = cpu.load({lib!r})
if {cache!r}:
    njit = functools.partial(njit, cache=True)
args = cpu.{args_of}(True)
kernel = cpu.make_kernels(njit)[{name!r}]
t0 = time.perf_counter()
kernel(*args)
first = time.perf_counter() - t0
t0 = time.perf_counter()
kernel(*args)
call = time.perf_counter() - t0
read = 0.0
path = kernel.stats.cache_path if {cache!r} else None
if path:
    t0 = time.perf_counter()
    for f in glob.glob(os.path.join(path, "*")):
        if "{fn}" in f:
            with open(f, "rb") as fh:
                fh.read()
    read = time.perf_counter() - t0
hits = sum(kernel.stats.cache_hits.values()) if {cache!r} else 0
print(json.dumps([first, call, read, hits]))
"""

FUNCTION_NAMES = {"sum": "sum_loop", "mandelbrot": "mandelbrot", "pairwise": "pairwise",
                  "collatz": "collatz", "add": "add"}


def env_for(cache_dir):
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYJIT_CACHE_DIR"] = env["NUMBA_CACHE_DIR"] = cache_dir
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env


def run(lib, name, cache, cache_dir):
    import json
    sys.path.insert(0, BENCH)
    import cpu
    args_of = cpu.WORKLOADS[name][1].__name__ if name in cpu.WORKLOADS else "args_add"
    code = FIRST_CALL.format(bench=BENCH, lib=lib, cache=cache, args_of=args_of, name=name,
                             fn=FUNCTION_NAMES[name])
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env_for(cache_dir), cwd=tempfile.gettempdir(), timeout=600)
    if p.returncode != 0:
        raise RuntimeError((p.stderr.strip().splitlines() or ["no output"])[-1])
    return json.loads(p.stdout.strip().splitlines()[-1])


def measure(lib, name, runs):
    """Medians (seconds) of cold, store, warm first calls, and the warm process's compiled call
    and file read."""
    cold, store, warm, call, read = [], [], [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="pyjit-bench-cache-") as d:
            cold.append(run(lib, name, False, d)[0])
            store.append(run(lib, name, True, d)[0])
            w = run(lib, name, True, d)
            if w[3] != 1:
                raise RuntimeError(f"the warm process did not load from the cache (hits {w[3]})")
            warm.append(w[0])
            call.append(w[1])
            read.append(w[2])
    med = statistics.median
    return {"cold": med(cold), "store": med(store), "warm": med(warm), "call": med(call),
            "read": med(read)}


IMPORT = """
import time, numpy
t0 = time.perf_counter()
import pyjit
print(time.perf_counter() - t0)
"""


def import_times(other, runs=21):
    """`import pyjit` seconds: {'this': (median, min), 'other': (median, min)}."""
    import shutil
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="pyjit-bench-import-") as d:
        trees = {"this": ROOT, "other": os.path.abspath(other)}
        for label, tree in trees.items():
            shutil.copytree(os.path.join(tree, "pyjit"), os.path.join(d, label, "pyjit"),
                            ignore=shutil.ignore_patterns("__pycache__"))
        times = {label: [] for label in trees}
        for i in range(runs + 1):
            for label in trees:
                p = subprocess.run([sys.executable, "-c", IMPORT], capture_output=True, text=True,
                                   env=dict(env, PYTHONPATH=os.path.join(d, label)), check=True)
                if i:   # the first writes the bytecode caches
                    times[label].append(float(p.stdout))
    return {label: (statistics.median(v), min(v)) for label, v in times.items()}


def ms(v):
    return f"{v * 1e3:.2f} ms" if v < 0.01 else f"{v * 1e3:.1f} ms"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 processes per cell instead of 5")
    ap.add_argument("--only", default="", help="comma-separated kernels: " + ",".join(KERNELS))
    ap.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    ap.add_argument("--import-against", metavar="CHECKOUT",
                    help="only time `import pyjit` here and in another checkout")
    opts = ap.parse_args(argv)
    if opts.import_against:
        t = import_times(opts.import_against)
        print(f"import pyjit (numpy already imported), median (min) of 21: this checkout "
              f"{ms(t['this'][0])} ({ms(t['this'][1])}), {opts.import_against} "
              f"{ms(t['other'][0])} ({ms(t['other'][1])})")
        return 0
    names = [k for k in KERNELS if not opts.only or k in opts.only.split(",")]
    runs = 3 if opts.quick else 5
    # one process first, so that the bytecode of pyjit and Numba is cached for the others
    with tempfile.TemporaryDirectory() as d:
        for lib in LIBS:
            run(lib, "add", True, d)
    header = ["kernel", "library", "cold (no cache)", "store", "warm (loaded)", "cold / warm",
              "compiled call + read", "warm / (call + read)"]
    rows, errors = [], []
    for name in names:
        for lib in LIBS:
            try:
                m = measure(lib, name, runs)
            except Exception as exc:    # noqa: BLE001 (a failure is a table cell)
                errors.append(f"{lib} {name}: {exc}")
                rows.append([name, lib] + ["error"] * 6)
                continue
            base = m["call"] + m["read"]
            rows.append([name, lib, ms(m["cold"]), ms(m["store"]), ms(m["warm"]),
                         f"{m['cold'] / m['warm']:.1f}x", ms(base), f"{m['warm'] / base:.1f}x"])
            print(" ".join(str(c) for c in rows[-1]), file=sys.stderr, flush=True)
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    if opts.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join(" --- " for _ in header) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in [header] + rows:
            print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    print(f"\nMedians of {runs} fresh processes per cell; first calls on bench/cpu.py's small "
          "inputs.")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
