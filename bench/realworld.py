"""Serial speed on real code: functions written as public Numba projects write them, compiled by
pyjit's @njit and by Numba's, timed side by side in one run.

The kernels (tests/realworld/numeric_kernels.py, which the real-world tests run too) restate
patterns seen in public code (Numba's documentation, tutorials, numerical and scientific
packages) in plain Python; each library compiles the same source, the results are checked
against each other, and the medians of interleaved samples are printed with the ratio
pyjit/Numba and the median ratio over all.
The target (issue: serial speed) is no kernel above 1.10x and a median of at most 0.8x.

    python bench/realworld.py                  # every kernel
    python bench/realworld.py --quick          # fewer samples
    python bench/realworld.py --only mandel_docs,pnorm_profile --markdown
    python bench/realworld.py --only dtw_cost --samples 30 --least   # on a loaded machine
    python bench/realworld.py --only ising_sweep --cpu-time --least  # process CPU time
"""
import argparse
import math
import os
import statistics
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "realworld"))
import cpu  # noqa: E402  (the shared timing helpers; it also puts the checkout on sys.path)
import numeric_kernels as kernels  # noqa: E402  (the kernels, also run by the real-world tests)


def compile_all(njit):
    """Every kernel compiled by this njit."""
    return kernels.make(njit)


def same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-12, equal_nan=True)
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5 samples instead of 11")
    ap.add_argument("--only", default="", help="comma-separated kernel names (default: all)")
    ap.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    ap.add_argument("--samples", type=int, default=0, help="samples per library (default 11)")
    ap.add_argument("--least", action="store_true",
                    help="the least time of the samples (of 3 ms each, not 20) rather than "
                         "their median: steadier on a machine loaded by other work, which only "
                         "ever adds time")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time by the process's CPU time rather than the wall clock: on a "
                         "machine shared with other work, time spent waiting for a core is "
                         "not counted")
    opts = ap.parse_args(argv)
    names = [k for k in opts.only.split(",") if k] or list(kernels.make(lambda f: f))
    samples = opts.samples or (5 if opts.quick else 11)
    print(cpu.describe_machine(), flush=True)

    compiled = {lib: compile_all(cpu.load(lib)) for lib in cpu.LIBS}
    rows, ratios, failures = [], [], 0
    for name in names:
        args = kernels.inputs(name, small=False)
        p, n = compiled["pyjit"][name](*args), compiled["numba"][name](*args)
        if not same(p, n):
            rows.append((name, "-", "-", "results differ", "MISSED"))
            failures += 1
            continue
        t = cpu.interleaved_medians({lib: compiled[lib][name] for lib in cpu.LIBS}, args, samples,
                                    min_sample=0.003 if opts.least else 0.02, least=opts.least,
                                    clock="cpu" if opts.cpu_time else "wall")
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
