"""The wheel's module (LLVM linked in) against the in-place build (libLLVM shared): import and
first-compile times, medians over fresh processes, the two interleaved.

    .venv/bin/python bench/install.py --wheel-python /path/to/venv/bin/python [--runs 21]

The in-place build runs with this interpreter and the checkout on PYTHONPATH; the wheel's runs
with the given interpreter (a venv where the wheel is installed) from an empty folder. Each
process imports NumPy first (not counted), then times `import pyjit`, then a first call of a
small @njit function over an array (compiling it: the first compile also starts LLVM's JIT).
No on-disk cache (PYJIT_CACHE=0)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = """
import json, sys, time
import numpy as np
t0 = time.perf_counter()
import pyjit
t1 = time.perf_counter()

def dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s

x = np.arange(100.0)
t2 = time.perf_counter()
pyjit.njit(dot)(x, x)
t3 = time.perf_counter()
print(json.dumps({"file": pyjit.__file__, "import": t1 - t0, "first": t3 - t2}))
"""


def probe(python, checkout, folder):
    env = dict(os.environ, PYJIT_CACHE="0")
    env.pop("PYTHONPATH", None)
    if checkout:
        env["PYTHONPATH"] = ROOT
    out = subprocess.run([python, "-c", PROBE], env=env, cwd=folder, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel-python", required=True, help="a venv's python with the wheel installed")
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    builds = {"in-place": (sys.executable, True), "wheel": (args.wheel_python, False)}
    samples = {"in-place": [], "wheel": []}
    with tempfile.TemporaryDirectory() as folder:
        for name, (python, checkout) in builds.items():     # a warm-up of each, not counted
            print(f"{name}: pyjit from {probe(python, checkout, folder)['file']}")
        for _ in range(args.runs):
            for name, (python, checkout) in builds.items():
                samples[name].append(probe(python, checkout, folder))
    print(f"\nmedians of {args.runs} fresh processes each (ms)")
    print("| build | import pyjit | first compile and call |")
    print("| --- | --- | --- |")
    for name, runs in samples.items():
        imp = statistics.median(r["import"] for r in runs) * 1e3
        first = statistics.median(r["first"] for r in runs) * 1e3
        print(f"| {name} | {imp:.1f} | {first:.1f} |")


if __name__ == "__main__":
    main()
