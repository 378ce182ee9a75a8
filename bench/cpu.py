"""CPU benchmarks: pyjit's @njit beside Numba's, same functions, same inputs, one run.

Measures, for each library:
  - run time of compiled kernels (median of interleaved samples, after a warm-up call):
    a 10**7-element float64 sum loop, a complex-number Mandelbrot, pairwise distances,
    a Collatz integer loop, a list built by 10^6 appends, 10^6 ints counted in a dict, a text
    split into words and joined; NumPy-heavy ones: array expressions (of operators, and of
    NumPy functions), fancy indexing, sort, median, histogram, a sum along an axis, seeded
    normal draws, draws from a np.random.Generator passed in (a loop of standard_normal, and
    random(size=)), np.linalg.solve and a large np.dot (these two also beside NumPy's own call,
    in the python column);
  - call overhead of add(1, 2) in ns per call, beside a plain Python function;
  - first-call time (compilation included) of each kernel, each in a fresh subprocess with
    no on-disk cache, on small inputs so that compiling dominates;
  - `import pyjit` against `import numba` with NumPy already imported, in fresh subprocesses.
A failing measurement (a feature pyjit lacks, a wrong result) shows as an error in its cell;
the others still run. Results are checked against each other and against NumPy.

    python bench/cpu.py                # everything (a minute or two)
    python bench/cpu.py --quick        # fewer samples
    python bench/cpu.py --only sum,add --markdown
    python bench/cpu.py --only histogram --cpu-time   # on a shared machine: CPU time, not wall
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)          # the in-place build of pyjit in this checkout
LIBS = ("pyjit", "numba")
# the clock of run-time samples: wall time, or with --cpu-time the process's CPU time (all its
# threads), which other processes on a loaded machine do not inflate
RUN_CLOCK = {"wall": time.perf_counter, "cpu": time.process_time}


# ---- the kernels, written once and compiled by each library's njit -------------------------

def make_kernels(njit):
    @njit
    def sum_loop(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i]
        return s

    @njit
    def mandelbrot(out, xmin, xmax, ymin, ymax, max_iter):
        height, width = out.shape
        for i in range(height):
            for j in range(width):
                c = complex(xmin + (xmax - xmin) * j / width, ymin + (ymax - ymin) * i / height)
                z = 0j
                n = 0
                while n < max_iter and z.real * z.real + z.imag * z.imag <= 4.0:
                    z = z * z + c
                    n += 1
                out[i, j] = n

    @njit
    def pairwise(X, D):
        n, dims = X.shape
        for i in range(n):
            for j in range(n):
                s = 0.0
                for k in range(dims):
                    t = X[i, k] - X[j, k]
                    s += t * t
                D[i, j] = np.sqrt(s)

    @njit
    def collatz(limit):
        best, best_len = 1, 1
        for start in range(1, limit):
            x = start
            length = 1
            while x != 1:
                if x % 2 == 0:
                    x = x // 2
                else:
                    x = 3 * x + 1
                length += 1
            if length > best_len:
                best, best_len = start, length
        return best

    @njit
    def list_build(n):
        out = []
        for i in range(n):
            out.append(i * 0.5)
        total = 0.0
        for x in out:
            total += x
        return total, len(out)

    @njit
    def split_join(text):
        words = text.split()
        out = []
        for w in words:
            if len(w) > 3:
                out.append(w.upper())
        return ",".join(out), len(words)

    @njit
    def dict_count(keys):
        counts = {}
        for k in keys:
            if k in counts:
                counts[k] += 1
            else:
                counts[k] = 1
        total = 0
        for k in counts:
            total += k * counts[k]
        return len(counts), total

    @njit
    def add(a, b):
        return a + b

    @njit
    def array_expr(a, b, c):
        return a * 2.0 + b * b - c

    @njit
    def array_math(a, b, c):
        return np.sqrt(a * a + b * b) * np.exp(-c)

    @njit
    def fancy(a, idx):
        return a[idx].sum() + a[a > 0.5].sum()

    @njit
    def sort(a):
        return np.sort(a)

    @njit
    def median(a):
        return np.median(a)

    @njit
    def histogram(a):
        return np.histogram(a, bins=50)[0]

    @njit
    def axis_sum(m):
        return m.sum(axis=0)

    @njit
    def normals(seed, n):
        np.random.seed(seed)
        out = np.empty(n)
        for i in range(n):
            out[i] = np.random.normal(0.0, 1.0)
        return out

    @njit
    def gen_normals(rng, n):
        out = np.empty(n)
        for i in range(n):
            out[i] = rng.standard_normal()
        return out

    @njit
    def gen_exponentials(rng, n):
        s = 0.0
        for i in range(n):
            s += rng.standard_exponential()
        return s

    @njit
    def gen_uniforms(rng, n):
        s = 0.0
        for i in range(n):
            s += rng.random()
        return s

    @njit
    def gen_integers(rng, n):
        s = 0
        for i in range(n):
            s += rng.integers(0, 100)
        return s

    @njit
    def gen_fill(rng, n):
        return rng.random(size=n)

    @njit
    def solve(a, b):
        return np.linalg.solve(a, b)

    @njit
    def matdot(a, b):
        return np.dot(a, b)

    return {"sum": sum_loop, "mandelbrot": mandelbrot, "pairwise": pairwise,
            "collatz": collatz, "list": list_build, "dict": dict_count, "strings": split_join,
            "add": add, "arrayexpr": array_expr, "arraymath": array_math, "fancy": fancy,
            "sort": sort, "median": median, "histogram": histogram,
            "histogramint": histogram, "axissum": axis_sum,
            "normals": normals, "gennormals": gen_normals, "genfill": gen_fill,
            "genexps": gen_exponentials, "genuniforms": gen_uniforms, "genints": gen_integers,
            "solve": solve, "matdot": matdot}


def plain_add(a, b):
    return a + b


# ---- workloads: arguments (full size and small, for the first-call runs) and checks ----------

def args_sum(small):
    return (np.random.default_rng(0).random(10 if small else 10**7),)


def args_mandelbrot(small):
    n = 4 if small else 200
    return (np.zeros((n, n), dtype=np.int64), -2.0, 1.0, -1.5, 1.5, 100)


def args_pairwise(small):
    X = np.random.default_rng(1).standard_normal((4 if small else 1000, 3))
    return (X, np.empty((X.shape[0], X.shape[0])))


def args_collatz(small):
    return (10 if small else 300_000,)


def args_add(small):
    return (1, 2)


def check_sum(args, result):
    assert abs(result - args[0].sum()) <= 1e-9 * args[0].size, f"sum {result} != {args[0].sum()}"


def mandelbrot_numpy(out, xmin, xmax, ymin, ymax, max_iter):
    """The same iteration, whole-array in NumPy: the reference for the compiled kernels."""
    height, width = out.shape
    re = xmin + (xmax - xmin) * np.arange(width) / width
    im = ymin + (ymax - ymin) * np.arange(height) / height
    c = re[None, :] + 1j * im[:, None]
    z = np.zeros_like(c)
    n = np.zeros(out.shape, dtype=np.int64)
    for _ in range(max_iter):
        live = z.real * z.real + z.imag * z.imag <= 4.0
        z[live] = z[live] * z[live] + c[live]
        n[live] += 1
    return n


def check_mandelbrot(args, result):
    wrong = np.count_nonzero(args[0] != mandelbrot_numpy(*args))
    # A handful of points on the set's edge may differ if a compiler fuses multiply-adds.
    assert wrong <= args[0].size // 1000, f"mandelbrot: {wrong} of {args[0].size} counts differ"


def check_pairwise(args, result):
    X, D = args
    ref = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(D, ref, rtol=1e-12, atol=1e-12)


def args_list(small):
    return (10 if small else 10**6,)


def check_list(args, result):
    n = args[0]
    assert result == (0.25 * n * (n - 1), n), f"list_build({n}) gave {result}"


def args_strings(small):
    words = ["alpha", "be", "gamma", "delta", "pi", "epsilon", "zeta", "eta"]
    n = 8 if small else 200_000
    return (" ".join(words[i % len(words)] for i in range(n)),)


def check_strings(args, result):
    words = args[0].split()
    expected = ",".join(w.upper() for w in words if len(w) > 3), len(words)
    assert result == expected, "split_join gave another text"


def args_dict(small):
    return (np.random.default_rng(2).integers(0, 10 if small else 100_000, 10 if small else 10**6),)


def check_dict(args, result):
    keys, counts = np.unique(args[0], return_counts=True)
    assert result == (len(keys), int((keys * counts).sum())), f"dict_count gave {result}"


def check_collatz(args, result):
    assert result == 230631, f"collatz({args[0]}) gave {result}, expected 230631"


def _vector(small, seed=0):
    return np.random.default_rng(seed).random(10 if small else 10**6)


def args_arrayexpr(small):
    return _vector(small, 0), _vector(small, 1), _vector(small, 2)


def check_arrayexpr(args, result):
    a, b, c = args
    np.testing.assert_allclose(result, a * 2.0 + b * b - c)


def check_arraymath(args, result):
    a, b, c = args
    np.testing.assert_allclose(result, np.sqrt(a * a + b * b) * np.exp(-c))


def args_fancy(small):
    a = _vector(small)
    return a, np.random.default_rng(3).integers(0, a.size, a.size // 2)


def check_fancy(args, result):
    a, idx = args
    np.testing.assert_allclose(result, a[idx].sum() + a[a > 0.5].sum())


def args_vector(small):
    return (_vector(small),)


def check_sort(args, result):
    np.testing.assert_array_equal(result, np.sort(args[0]))


def check_median(args, result):
    assert result == np.median(args[0])


def check_histogram(args, result):
    np.testing.assert_array_equal(result, np.histogram(args[0], bins=50)[0])


def args_ints(small):
    return (np.random.default_rng(5).integers(0, 1000, 10 if small else 10**6),)


def args_axissum(small):
    return (np.random.default_rng(4).random((10, 10) if small else (1000, 1000)),)


def check_axissum(args, result):
    np.testing.assert_allclose(result, args[0].sum(axis=0))


def args_normals(small):
    return 7, 10 if small else 10**6


def check_normals(args, result):
    np.testing.assert_array_equal(result, np.random.RandomState(args[0]).normal(0.0, 1.0, args[1]))


def args_generator(small):
    return np.random.default_rng(11), 10 if small else 10**6


def check_gennormals(args, result):   # the warm-up call draws first from a fresh Generator
    np.testing.assert_array_equal(result, np.random.default_rng(11).standard_normal(args[1]))


def check_genexps(args, result):
    assert result == np.cumsum(np.random.default_rng(11).standard_exponential(args[1]))[-1]


def check_genuniforms(args, result):
    assert result == np.cumsum(np.random.default_rng(11).random(args[1]))[-1]


def check_genints(args, result):
    assert result == np.random.default_rng(11).integers(0, 100, args[1]).sum()


def check_genfill(args, result):
    np.testing.assert_array_equal(result, np.random.default_rng(11).random(args[1]))


def args_solve(small):
    rng = np.random.default_rng(3)
    n = 4 if small else 200
    return rng.random((n, n)) + n * np.eye(n), rng.random(n)


def check_solve(args, result):
    np.testing.assert_allclose(result, np.linalg.solve(*args), rtol=1e-10)


def args_matdot(small):
    rng = np.random.default_rng(4)
    n = 4 if small else 1000
    return rng.random((n, n)), rng.random((n, n))


def check_matdot(args, result):
    np.testing.assert_allclose(result, np.dot(*args), rtol=1e-10)


# workloads where NumPy does the same work in one call: timed too, shown in the python column
NUMPY_SAME = {"solve": np.linalg.solve, "matdot": np.dot}

# Rest before each sample of the workloads that call BLAS. NumPy's wheel carries its own OpenBLAS
# (64-bit ints) and SciPy another (the one pyjit and Numba call): two thread pools in one process.
# OpenBLAS's threads spin for a while (about 0.1 s) after a call before they sleep, so a sample
# that follows another pool's spins shares the cores with them: interleaved without a rest, the
# 1000x1000 product measured 52 ms (pyjit, after NumPy), 26 ms (Numba, after pyjit: the same
# pool) and 54 ms (NumPy, after Numba) with two threads on two cores, and 20-21 ms each alone
# or with this rest.
BLAS_SETTLE = {"solve": 0.3, "matdot": 0.3}

WORKLOADS = {   # name: (description, argument builder, check)
    "sum": ("sum loop, 10^7 float64", args_sum, check_sum),
    "mandelbrot": ("mandelbrot 200x200, 100 iter, complex", args_mandelbrot, check_mandelbrot),
    "pairwise": ("pairwise distances 1000x3", args_pairwise, check_pairwise),
    "collatz": ("collatz longest chain < 300000", args_collatz, check_collatz),
    "list": ("list: append 10^6 floats, then sum", args_list, check_list),
    "dict": ("dict: count 10^6 ints (10^5 distinct), then sum", args_dict, check_dict),
    "strings": ("strings: split 2*10^5 words, upper, join", args_strings, check_strings),
    "arrayexpr": ("array expression a*2+b*b-c, 10^6", args_arrayexpr, check_arrayexpr),
    "arraymath": ("np.sqrt(a*a+b*b)*np.exp(-c), 10^6", args_arrayexpr, check_arraymath),
    "fancy": ("fancy indexing: a[idx].sum() + a[a > 0.5].sum(), 10^6", args_fancy, check_fancy),
    "sort": ("np.sort, 10^6 float64", args_vector, check_sort),
    "median": ("np.median, 10^6 float64", args_vector, check_median),
    "histogram": ("np.histogram, 50 bins, 10^6", args_vector, check_histogram),
    "histogramint": ("np.histogram, 50 bins, 10^6 int64 in [0, 1000)", args_ints,
                     check_histogram),
    "axissum": ("m.sum(axis=0), 1000x1000", args_axissum, check_axissum),
    "normals": ("np.random.normal seeded, 10^6 draws (NumPy's stream)", args_normals,
                check_normals),
    "gennormals": ("Generator passed in: 10^6 rng.standard_normal() in a loop", args_generator,
                   check_gennormals),
    "genfill": ("Generator passed in: rng.random(size=10^6)", args_generator, check_genfill),
    "genexps": ("Generator passed in: 10^6 rng.standard_exponential() summed in a loop",
                args_generator, check_genexps),
    "genuniforms": ("Generator passed in: 10^6 rng.random() summed in a loop", args_generator,
                    check_genuniforms),
    "genints": ("Generator passed in: 10^6 rng.integers(0, 100) summed in a loop", args_generator,
                check_genints),
    "solve": ("np.linalg.solve 200x200, 1-d b", args_solve, check_solve),
    "matdot": ("np.dot 1000x1000 float64", args_matdot, check_matdot),
}


# ---- measuring ------------------------------------------------------------------------------

def load(lib):
    """The library's njit (imported on first use, so a broken pyjit does not stop Numba)."""
    if lib == "pyjit":
        from pyjit import njit
    else:
        from numba import njit
    return njit


def calibrate(fn, args, min_sample):
    """Calls per sample so that one sample lasts at least min_sample seconds."""
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn(*args)
        if time.perf_counter() - t0 >= min_sample or number >= 10**6:
            return number
        number *= 2


def interleaved_medians(fns, args, samples, min_sample=0.02, settle=0.0, least=False,
                        clock="wall"):
    """Median seconds per call of each function; samples alternate between the functions so that
    a noisy moment of the machine hits all of them alike. settle: seconds of rest before each
    function's sample (see BLAS_SETTLE); least: the least of the samples instead; clock: a key of
    RUN_CLOCK."""
    numbers = {k: calibrate(f, args, min_sample) for k, f in fns.items()}
    times = {k: [] for k in fns}
    now = RUN_CLOCK[clock]
    for _ in range(samples):
        for k, f in fns.items():
            n = numbers[k]
            time.sleep(settle)
            t0 = now()
            for _ in range(n):
                f(*args)
            times[k].append((now() - t0) / n)
    return {k: (min(v) if least else statistics.median(v)) for k, v in times.items()}


def short_error(exc):
    text = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    return text


class Results:
    """One cell per (row, library): a number in seconds or an error string."""

    def __init__(self):
        self.cells, self.errors = {}, []

    def fail(self, row, lib, exc):
        self.cells[row, lib] = "error: " + short_error(exc)
        self.errors.append((row, lib, "".join(traceback.format_exception(exc)).rstrip()))


def run_times(results, names, samples, clock="wall"):
    kernels = {}
    for lib in LIBS:
        try:
            kernels[lib] = make_kernels(load(lib))
        except Exception as exc:        # noqa: BLE001 (any failure is a table cell)
            for name in names:
                results.fail(name, lib, exc)
    for name in names:
        _, make_args, check = WORKLOADS[name]
        ready = {}
        for lib, ks in kernels.items():
            try:
                args = make_args(False)
                check(args, ks[name](*args))          # warm-up call: compiles, and checks
                ready[lib] = ks[name]
            except Exception as exc:    # noqa: BLE001
                results.fail(name, lib, exc)
        if ready and name in NUMPY_SAME:
            ready["numpy"] = NUMPY_SAME[name]
        if ready:
            results.cells.update({(name, lib): t for lib, t in
                                  interleaved_medians(ready, make_args(False), samples,
                                                      settle=BLAS_SETTLE.get(name, 0.0),
                                                      clock=clock).items()})


def run_call_overhead(results, samples):
    fns = {"python": plain_add}
    for lib in LIBS:
        try:
            f = make_kernels(load(lib))["add"]
            if f(1, 2) != 3 or f(1.5, 2) != 3.5:
                raise AssertionError("add(1, 2) gave a wrong result")
            fns[lib] = f
        except Exception as exc:        # noqa: BLE001
            results.fail("add", lib, exc)
    for lib, t in interleaved_medians(fns, (1, 2), samples, min_sample=0.01).items():
        results.cells["add", lib] = t


def fresh_env():
    env = dict(os.environ)
    env.pop("PYJIT_CACHE_DIR", None)            # no on-disk cache: compile for real
    env.pop("NUMBA_CACHE_DIR", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env


def subprocess_seconds(code, runs):
    """Median of what `code` prints (seconds) over `runs` fresh interpreters."""
    values = []
    for _ in range(runs):
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=fresh_env(), cwd=tempfile.gettempdir(), timeout=600)
        if p.returncode != 0:
            raise RuntimeError((p.stderr.strip().splitlines() or ["no output"])[-1])
        values.append(float(p.stdout.strip().splitlines()[-1]))
    return statistics.median(values)


FIRST_CALL = """
import sys, time
sys.path.insert(0, {bench!r})
import numpy as np
import cpu
args = ({args_of})(True)
kernel = cpu.make_kernels(cpu.load({lib!r}))[{name!r}]
t0 = time.perf_counter()
kernel(*args)
print(time.perf_counter() - t0)
"""

IMPORT = """
import time
import numpy
t0 = time.perf_counter()
import {lib}
print(time.perf_counter() - t0)
"""


def run_first_calls(results, names, runs):
    bench = os.path.dirname(os.path.abspath(__file__))
    for name in names:
        args_of = f"cpu.{WORKLOADS[name][1].__name__}" if name in WORKLOADS else "cpu.args_add"
        for lib in LIBS:
            code = FIRST_CALL.format(bench=bench, args_of=args_of, lib=lib, name=name)
            try:
                results.cells["first:" + name, lib] = subprocess_seconds(code, runs)
            except Exception as exc:    # noqa: BLE001
                results.fail("first:" + name, lib, exc)


def run_imports(results, runs):
    for lib in LIBS:
        try:
            results.cells["import", lib] = subprocess_seconds(IMPORT.format(lib=lib), runs)
        except Exception as exc:        # noqa: BLE001
            results.fail("import", lib, exc)


# ---- the table ------------------------------------------------------------------------------

def fmt_time(v, unit):
    if isinstance(v, str):
        return v if len(v) <= 40 else v[:37] + "..."
    if v is None:
        return "-"
    scale = {"ms": 1e3, "ns": 1e9}[unit]
    return f"{v * scale:.1f} {unit}" if v * scale < 100 else f"{v * scale:.0f} {unit}"


def ratio_cell(p, n, kind):
    """Ratio and whether the target is met. 'slower': pyjit/numba, target <= limit;
    'faster': numba/pyjit, target >= limit."""
    if not isinstance(p, float) or not isinstance(n, float):
        return "-", "-"
    if kind[0] == "slower":
        r = p / n
        return f"{r:.2f}x", "ok" if r <= kind[1] else "MISSED"
    r = n / p
    return f"{r:.1f}x faster", "ok" if r >= kind[1] else "MISSED"


def build_rows(results, names):
    cells = results.cells
    rows = []   # (label, pyjit, numba, python, ratio, target, verdict)
    for name in names:
        p, n = cells.get((name, "pyjit")), cells.get((name, "numba"))
        r, ok = ratio_cell(p, n, ("slower", 1.10))
        target, py = "<= 1.10x numba", ""
        if (name, "numpy") in cells:        # NumPy's own call, the same work
            rn, okn = ratio_cell(p, cells[name, "numpy"], ("slower", 1.10))
            r, py = f"{r}; {rn} numpy", "numpy " + fmt_time(cells[name, "numpy"], "ms")
            ok = "MISSED" if "MISSED" in (ok, okn) else okn if ok == "ok" else ok
            target = "<= 1.10x numba, numpy"
        rows.append((WORKLOADS[name][0], fmt_time(p, "ms"), fmt_time(n, "ms"), py, r,
                     target, ok))
    if ("add", "python") in cells:
        p, n = cells.get(("add", "pyjit")), cells.get(("add", "numba"))
        r, ok = ratio_cell(p, n, ("slower", 1.0))
        rows.append(("call overhead add(1, 2)", fmt_time(p, "ns"), fmt_time(n, "ns"),
                     fmt_time(cells["add", "python"], "ns"), r, "<= numba", ok))
    for name in [k for k in names + ["add"] if any(("first:" + k, lib) in cells for lib in LIBS)]:
        p, n = cells.get(("first:" + name, "pyjit")), cells.get(("first:" + name, "numba"))
        r, ok = ratio_cell(p, n, ("faster", 5.0))
        rows.append((f"first call: {name}", fmt_time(p, "ms"), fmt_time(n, "ms"), "", r,
                     ">= 5x faster", ok))
    if any(("import", lib) in cells for lib in LIBS):
        p, n = cells.get(("import", "pyjit")), cells.get(("import", "numba"))
        r, ok = ratio_cell(p, n, ("faster", 5.0))
        rows.append(("import (numpy already in)", fmt_time(p, "ms"), fmt_time(n, "ms"), "", r,
                     ">= 5x faster", ok))
    return rows


HEADER = ("benchmark", "pyjit", "numba", "python", "pyjit vs numba", "target", "")


def print_table(rows, markdown):
    if markdown:
        print("| " + " | ".join(HEADER) + " |")
        print("|" + "---|" * len(HEADER))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(r[i]) for r in rows + [HEADER]) for i in range(len(HEADER))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    print(line(HEADER))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(line(row))


def describe_machine():
    versions = []
    for lib in LIBS:
        try:
            versions.append(f"{lib} {getattr(__import__(lib), '__version__', '(no version)')}")
        except Exception as exc:        # noqa: BLE001
            versions.append(f"{lib} unavailable ({short_error(exc)})")
    return (f"Python {sys.version.split()[0]}, NumPy {np.__version__}, {', '.join(versions)}, "
            f"{os.cpu_count()} CPUs")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer samples and subprocess runs")
    ap.add_argument("--only", default="", help="comma-separated subset: "
                    + ",".join(list(WORKLOADS) + ["add", "first", "import"]))
    ap.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time run-time samples by the process's CPU time (all threads) instead "
                         "of the wall clock: steadier on a machine other processes load")
    opts = ap.parse_args(argv)
    clock = "cpu" if opts.cpu_time else "wall"
    wanted = set(filter(None, opts.only.split(","))) or set(WORKLOADS) | {"add", "first", "import"}
    names = [k for k in WORKLOADS if k in wanted]
    samples, runs = (5, 3) if opts.quick else (11, 5)

    print(describe_machine(), flush=True)
    results = Results()
    steps = [("run time", lambda: run_times(results, names, samples, clock)),
             ("call overhead", lambda: "add" in wanted and run_call_overhead(results, samples * 3)),
             ("first calls", lambda: "first" in wanted and run_first_calls(
                 results, names + ["add"] * ("add" in wanted), runs)),
             ("imports", lambda: "import" in wanted and run_imports(results, runs * 2 - 1))]
    for label, step in steps:
        t0 = time.perf_counter()
        step()
        print(f"  {label}: measured in {time.perf_counter() - t0:.1f} s", file=sys.stderr,
              flush=True)
    print()
    print_table(build_rows(results, names), opts.markdown)
    print(f"\nMedians of interleaved samples ({'process CPU time' if opts.cpu_time else 'wall time'}"
          "); ratios are pyjit against numba.")
    for row, lib, text in results.errors:
        print(f"\n--- {lib}, {row}:\n{text}")
    return 1 if results.errors else 0


if __name__ == "__main__":
    sys.exit(main())
