"""GPU benchmarks: pyjit's @gpu.jit beside numba-cuda and CuPy, same kernels, one run.

Measures, each library on the same GPU in the same process (or in fresh processes where the
figure is about starting up):
  launch     launch overhead of a 4-argument kernel on device arrays: many launches of an
             almost empty kernel, then one synchronize; us per launch. Also CuPy's RawKernel
             with the same four pointers, and pyjit with a launch configuration bound once,
             the same kernel declared with its signature ('void(float32[:], ...)', numba-cuda's
             eager form, whose launches match and convert their arguments to it), and the
             same CUDA C kernel through pyjit's gpu.RawKernel (CuPy's call form, pyjit's
             launcher; against @gpu.jit's launch, skipped without NVRTC).
             Beside them the floor: bench/c/launch_loop.c, built here with the system C
             compiler, calls cuLaunchKernel in a loop on the PTX pyjit compiles for the same
             kernel, with the same parameters. A process's launch time moves by up to 30%
             from one process to the next (the C loop's too), so the ratio to the C loop
             compares medians over fresh processes, pyjit's and the C loop's alternating.
  saxpy      out = a * x + y, one element a thread, on 2^26 float32 device arrays, timed with
             events: GB/s counted as 3 arrays x 4 bytes x n / time. Beside it the same kernel
             in CUDA C through a CuPy RawKernel, and numba-cuda.
  matmul     the classic 16x16 shared-memory tiled matrix product at 4096 (float32): TFLOP/s
             (2 n^3 / time). cuBLAS through CuPy is printed for scale only.
  compile    Python function to loaded module, for a kernel compiled after the first one (a
             fresh function each time, so nothing is cached), in a fresh process per library.
  first      the first launch of a fresh process: import, decorate, context, to_device,
             compile, launch, synchronize (NumPy already imported); median of fresh processes.
  reduce     gpu.reduce of a + b over 2^26 float32 on a device array, the result left on the
             device (res=), against CuPy's cp.sum (and numba-cuda's cuda.reduce), timed with
             events; the result checked against NumPy in float64.
  host       saxpy on 2^24 float32 NumPy arrays passed straight to the kernel (automatic
             transfers, copied back as each library decides); wall time per call.
Every case is guarded: a failure prints its error in the table (traceback after it) and the
others still run. Results are checked against NumPy. Without a GPU it says so and exits at once.

    python bench/gpu.py                    # everything, a minute or two on an H200
    python bench/gpu.py --quick            # fewer samples and processes
    python bench/gpu.py --only launch,saxpy --markdown
"""
import argparse
import json
import linecache
import os
import statistics
import subprocess
import sys
import time
import traceback
import types
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)          # the in-place build of pyjit in this checkout
CASES = ("launch", "saxpy", "matmul", "reduce", "compile", "first", "host")
TPB = 16


# ---- the kernels, written once and compiled by each library's cuda.jit -----------------------

# The kernels are plain functions here, written as numba-cuda users write them, over the
# globals `cuda` and `float32`. make_kernels gives each library a copy whose globals are that
# library's (closures would be a second way to reach the module, and not every library's
# simulator follows them).
cuda = float32 = None


def empty4(a, b, c, d):
    i = cuda.grid(1)
    if i >= a.shape[0]:                # never true: the kernel does (almost) nothing
        b[0] = c[0] + d[0]


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i]


def matmul(A, B, C):
    sA = cuda.shared.array((TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tmp = float32(0.)
    for t in range((A.shape[1] + TPB - 1) // TPB):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and t * TPB + tx < A.shape[1]:
            sA[ty, tx] = A[y, t * TPB + tx]
        if x < B.shape[1] and t * TPB + ty < B.shape[0]:
            sB[ty, tx] = B[t * TPB + ty, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


EMPTY4_SIGNATURE = "void(float32[:], float32[:], float32[:], float32[:])"


def make_kernels(cuda_module, float32_type):
    """(empty4, saxpy, matmul, empty4 declared with EMPTY4_SIGNATURE) compiled by
    cuda_module.jit (pyjit.gpu or numba.cuda)."""
    ns = {"cuda": cuda_module, "float32": float32_type, "TPB": TPB, "__name__": __name__}
    kernels = []
    for f, sig in ((empty4, None), (saxpy, None), (matmul, None), (empty4, EMPTY4_SIGNATURE)):
        g = types.FunctionType(f.__code__, ns, f.__name__)
        g.__qualname__ = f.__qualname__
        kernels.append(cuda_module.jit(g) if sig is None else cuda_module.jit(sig)(g))
    return kernels


CUDA_C = r"""
extern "C" __global__ void empty4(float *a, float *b, float *c, float *d) {}

extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"""

# A kernel made fresh (new code object, new name) for each compile-time sample. Its constant is
# new to this run too: the driver keeps the machine code of PTX it has compiled before
# (~/.nv/ComputeCache), so the same kernels in a second run would load from that cache.
FRESH_KERNEL = """
def fresh_{k}(a, x, y, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i] + {k} + {salt}
"""


# ---- the libraries ----------------------------------------------------------------------------

class Lib:
    """One library's GPU module with the operations the benchmark needs, under one name."""

    def __init__(self, name):
        self.name = name
        if name == "pyjit":
            import pyjit
            from pyjit import gpu
            self.cuda, self.float32 = gpu, pyjit.float32
        else:
            np.row_stack = np.vstack         # numba-cuda 0.30 still uses the removed name
            warnings.filterwarnings("ignore", module="numba")
            import numba
            from numba import cuda
            from numba.core.errors import NumbaPerformanceWarning
            warnings.simplefilter("ignore", NumbaPerformanceWarning)   # small grids, host arrays
            self.cuda, self.float32 = cuda, numba.float32
        self.empty4, self.saxpy, self.matmul, self.empty4_declared = \
            make_kernels(self.cuda, self.float32)

    def event_ms(self, body, reps):
        """GPU time of `body` run `reps` times, between two events, in ms per run."""
        e0, e1 = self.cuda.event(), self.cuda.event()
        e0.record()
        for _ in range(reps):
            body()
        e1.record()
        e1.synchronize()
        ms = e0.elapsed_time(e1) / reps
        if ms <= 0:
            raise RuntimeError(f"{self.name}: the events measured {ms} ms")
        return ms


def load_lib(name, errors):
    try:
        return Lib(name)
    except Exception as exc:     # noqa: BLE001 - reported, and the other library still runs
        errors.append((f"{name}: import", traceback.format_exc()))
        return exc


def load_cupy(errors):
    try:
        import cupy as cp
        mod = cp.RawModule(code=CUDA_C)
        return cp, mod.get_function("empty4"), mod.get_function("saxpy")
    except Exception as exc:     # noqa: BLE001
        errors.append(("cupy: import", traceback.format_exc()))
        return exc


# ---- measurements ---------------------------------------------------------------------------

def per_launch_us(launch, sync, n, samples):
    """Median over samples of (n launches, then sync) in us per launch, after a warm-up."""
    for _ in range(min(n, 1000)):
        launch()
    sync()
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        for _ in range(n):
            launch()
        sync()
        times.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(times)


def bench_launch(lib, cupy, opts):
    cuda = lib.cuda
    a, b, c, d = (cuda.device_array(1024, np.float32) for _ in range(4))
    k = lib.empty4
    n = opts.launches // (5 if lib.name == "numba" else 1)
    res = {"launch": per_launch_us(lambda: k[1, 32](a, b, c, d), cuda.synchronize, n,
                                   opts.samples)}
    declared = lib.empty4_declared
    res["launch_declared"] = per_launch_us(lambda: declared[1, 32](a, b, c, d), cuda.synchronize,
                                           n, opts.samples)
    if lib.name == "pyjit":
        bound = k[1, 32]
        res["launch_bound"] = per_launch_us(lambda: bound(a, b, c, d), cuda.synchronize, n,
                                            opts.samples)
    if not isinstance(cupy, BaseException):       # CuPy arrays, through their CAI
        ca, cb, cc, cd = (cupy[0].zeros(1024, np.float32) for _ in range(4))
        res["launch_cai"] = per_launch_us(lambda: k[1, 32](ca, cb, cc, cd), cuda.synchronize,
                                          n, opts.samples)
    if lib.name == "pyjit":
        try:                                      # CUDA C through pyjit (NVRTC), CuPy's form
            raw = cuda.RawKernel(CUDA_C, "empty4")
            res["launch_raw"] = per_launch_us(lambda: raw((1,), (32,), (a, b, c, d)),
                                              cuda.synchronize, n, opts.samples)
        except Exception as exc:                  # noqa: BLE001 - no NVRTC: shown as an error
            res["launch_raw"] = exc
    return res


def bench_launch_cupy(cupy, opts):
    cp, raw, _ = cupy
    a, b, c, d = (cp.zeros(1024, cp.float32) for _ in range(4))
    sync = cp.cuda.runtime.deviceSynchronize
    t = per_launch_us(lambda: raw((1,), (32,), (a, b, c, d)), sync, opts.launches, opts.samples)
    return {"launch": t, "launch_raw": t}


LAUNCH_LOOP_C = os.path.join(ROOT, "bench", "c", "launch_loop.c")


def entry_params(ptx):
    """(entry name, number of parameters) of the one kernel in ptx; every one 8 bytes."""
    import re
    m = re.search(r"\.entry\s+(\w+)\s*\(([^)]*)\)", ptx)
    if m is None:
        raise RuntimeError("no .entry in the PTX")
    decls = re.findall(r"\.param\s+\.(\w+)", m.group(2))
    if any(d not in ("u64", "s64", "b64") for d in decls):
        raise RuntimeError(f"launch_loop passes 8-byte parameters only, the kernel has {decls}")
    return m.group(1), len(decls)


def bench_launch_c(lib, opts):
    """A raw cuLaunchKernel loop in C on pyjit's PTX of empty4, in fresh processes, alternating
    with fresh processes timing pyjit's launch of the same kernel: {"launch": C's median,
    "pyjit": pyjit's median}."""
    import shutil
    import tempfile
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise RuntimeError("no C compiler (cc) on PATH")
    ptx, _ = lib.cuda.compile_ptx_for_current_device(
        lib.empty4.py_func, "void(float32[::1], float32[::1], float32[::1], float32[::1])")
    entry, nparams = entry_params(ptx)
    if nparams != 12:              # 1-d array: data, shape[0], strides[0] (compiler/abi.h)
        raise RuntimeError(f"expected 4 arrays of 3 parameters, the PTX has {nparams}")
    with tempfile.TemporaryDirectory() as tmp:
        exe, ptx_file = os.path.join(tmp, "launch_loop"), os.path.join(tmp, "empty4.ptx")
        with open(ptx_file, "w") as f:
            f.write(ptx)
        subprocess.run([cc, "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-o", exe,
                        LAUNCH_LOOP_C, "-ldl"], check=True, capture_output=True, text=True)
        params = ["buf", "1024", "4"] * 4      # a device pointer, 1024 elements, 4-byte stride
        c_times, pyjit_times = [], []
        for _ in range(opts.procs * 2 + 1):
            p = subprocess.run([exe, ptx_file, entry, str(opts.launches), str(opts.samples)]
                               + params, capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                raise RuntimeError(f"launch_loop failed (exit {p.returncode}): "
                                   f"{p.stderr.strip()}")
            c_times.append(float(p.stdout.strip().splitlines()[-1]))
            pyjit_times.append(run_child("launch", "pyjit", opts.launches)[0])
    return {"launch": statistics.median(c_times), "pyjit": statistics.median(pyjit_times)}


def saxpy_data(n):
    rng = np.random.default_rng(0)
    return np.float32(2.5), rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)


def check_saxpy(out, a, x, y, what):
    if not np.allclose(out, a * x + y, rtol=1e-5):
        raise AssertionError(f"{what}: wrong saxpy result")


def bench_saxpy(lib, data, opts):
    cuda = lib.cuda
    a, x, y = data
    n = x.size
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    dout = cuda.device_array_like(dx)
    k, blocks = lib.saxpy, (n + 255) // 256
    k[blocks, 256](a, dx, dy, dout)
    cuda.synchronize()
    check_saxpy(dout.copy_to_host(), a, x, y, lib.name)
    ms = statistics.median(lib.event_ms(lambda: k[blocks, 256](a, dx, dy, dout), opts.reps)
                           for _ in range(opts.samples))
    return {"saxpy": 3 * 4 * n / (ms * 1e-3) / 1e9}


def bench_saxpy_cupy(cupy, data, opts):
    cp, _, raw = cupy
    a, x, y = data
    n = x.size
    dx, dy = cp.asarray(x), cp.asarray(y)
    dout = cp.empty_like(dx)
    blocks = (n + 255) // 256

    def body():
        raw((blocks,), (256,), (a, dx, dy, dout, np.int32(n)))
    body()
    check_saxpy(cp.asnumpy(dout), a, x, y, "CUDA C")
    times = []
    for _ in range(opts.samples):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        for _ in range(opts.reps):
            body()
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1) / opts.reps)
    return {"saxpy": 3 * 4 * n / (statistics.median(times) * 1e-3) / 1e9}


def matmul_data(n):
    rng = np.random.default_rng(1)
    return rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)


def bench_matmul(lib, data, opts):
    cuda = lib.cuda
    A, B = data
    n = A.shape[0]
    dA, dB = cuda.to_device(A), cuda.to_device(B)
    dC = cuda.device_array((n, n), np.float32)
    grid = ((n + TPB - 1) // TPB, (n + TPB - 1) // TPB)
    k = lib.matmul
    k[grid, (TPB, TPB)](dA, dB, dC)
    cuda.synchronize()
    rows = dC.copy_to_host()[:64]
    if not np.allclose(rows, A[:64] @ B, rtol=1e-3, atol=1e-2):
        raise AssertionError(f"{lib.name}: wrong matmul result")
    ms = statistics.median(lib.event_ms(lambda: k[grid, (TPB, TPB)](dA, dB, dC), 2)
                           for _ in range(opts.mm_samples))
    return {"matmul": 2 * n ** 3 / (ms * 1e-3) / 1e12}


def bench_matmul_cublas(cupy, data, opts):
    cp = cupy[0]
    A, B = (cp.asarray(m) for m in data)
    C = A @ B
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    e0.record()
    for _ in range(5):
        C = cp.matmul(A, B, out=C)
    e1.record()
    e1.synchronize()
    ms = cp.cuda.get_elapsed_time(e0, e1) / 5
    return {"matmul": 2 * A.shape[0] ** 3 / (ms * 1e-3) / 1e12}


def reduce_data(n):
    return np.random.default_rng(2).random(n, dtype=np.float32)


def check_sum(got, x, what):
    if not np.isclose(float(got), x.sum(dtype=np.float64), rtol=1e-4):
        raise AssertionError(f"{what}: wrong sum {float(got)}")


def bench_reduce(lib, x, opts):
    """gpu.reduce / cuda.reduce of a + b, the result written to a device array (res=)."""
    cuda = lib.cuda
    add = cuda.reduce(lambda a, b: a + b)
    dx = cuda.to_device(x)
    dres = cuda.device_array(1, np.float32)
    add(dx, res=dres)
    cuda.synchronize()
    check_sum(dres.copy_to_host()[0], x, lib.name)
    check_sum(add(dx), x, f"{lib.name} (returned to the host)")
    ms = statistics.median(lib.event_ms(lambda: add(dx, res=dres), opts.reps)
                           for _ in range(opts.samples))
    out = {"reduce": ms * 1e3}
    if lib.name == "pyjit":
        out["reduce_sweep"] = reduce_sweep(lib, x, dx, dres, opts)
    return out


def reduce_sweep(lib, x, dx, dres, opts):
    """gpu.reduce's time over its shape constants (blocks an SM, groups a thread an
    iteration), the defaults restored after: a line each, printed under the table."""
    from pyjit.gpu import ufunc
    saved = ufunc.REDUCE_BLOCKS_PER_SM, ufunc.REDUCE_GROUPS
    lines = []
    try:
        for groups in (1, 2, 4):
            for per_sm in (2, 4, 6, 8, 16):
                ufunc.REDUCE_BLOCKS_PER_SM, ufunc.REDUCE_GROUPS = per_sm, groups
                add = lib.cuda.reduce(lambda a, b: a + b)
                add(dx, res=dres)
                check_sum(dres.copy_to_host()[0], x, f"sweep {per_sm}, {groups}")
                ms = statistics.median(lib.event_ms(lambda: add(dx, res=dres), opts.reps)
                                       for _ in range(opts.samples))
                lines.append(f"  blocks an SM {per_sm:2d}, groups an iteration {groups}: "
                             f"{ms * 1e3:7.1f} us")
    except Exception as exc:     # noqa: BLE001 - the sweep is extra: say why it stopped
        lines.append(f"  stopped: {exc!r}")
    finally:
        ufunc.REDUCE_BLOCKS_PER_SM, ufunc.REDUCE_GROUPS = saved
    return "\n".join(lines)


def bench_reduce_cupy(cupy, x, opts):
    cp = cupy[0]
    dx = cp.asarray(x)
    out = cp.sum(dx)
    check_sum(out.get(), x, "cupy")
    times = []
    for _ in range(opts.samples):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        for _ in range(opts.reps):
            cp.sum(dx, out=out)
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1) / opts.reps)
    return {"reduce": statistics.median(times) * 1e3}


def bench_host(lib, opts):
    cuda = lib.cuda
    a, x, y = saxpy_data(opts.host_n)
    out = np.zeros_like(x)
    k, blocks = lib.saxpy, (x.size + 255) // 256

    def call():
        k[blocks, 256](a, x, y, out)
        cuda.synchronize()
    call()
    check_saxpy(out, a, x, y, lib.name)
    times = []
    for _ in range(opts.samples):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1e3)
    return {"host": statistics.median(times)}


# ---- fresh processes ----------------------------------------------------------------------

def child(kind, libname, count):
    """Runs in a fresh interpreter (--child); prints one JSON line of milliseconds."""
    t0 = time.perf_counter()
    lib = Lib(libname)
    cuda = lib.cuda
    if kind == "launch":       # us per launch, as bench_launch times it
        a, b, c, d = (cuda.device_array(1024, np.float32) for _ in range(4))
        us = per_launch_us(lambda: lib.empty4[1, 32](a, b, c, d), cuda.synchronize, count, 7)
        print(json.dumps({"ms": [us]}))
        return
    x = cuda.to_device(np.ones(1024, np.float32))
    out = cuda.device_array_like(x)
    lib.saxpy[4, 256](np.float32(2), x, x, out)
    cuda.synchronize()
    first = (time.perf_counter() - t0) * 1e3
    if kind == "first":
        if not np.all(out.copy_to_host() == 3):
            raise AssertionError("wrong saxpy result")
        print(json.dumps({"ms": [first]}))
        return
    times = []
    salt = (time.time_ns() // 1000 + os.getpid()) % 100000   # exact in float32 with 3 + k
    for k in range(1, count + 1):
        src = FRESH_KERNEL.format(k=k, salt=salt)
        fname = f"<bench-kernel-{k}>"
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        ns = {"cuda": cuda}
        exec(compile(src, fname, "exec"), ns)
        kern = cuda.jit(ns[f"fresh_{k}"])
        t = time.perf_counter()
        kern[4, 256](np.float32(2), x, x, out)
        cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
        if not np.all(out.copy_to_host() == np.float32(3 + k + salt)):
            raise AssertionError(f"wrong result from fresh kernel {k}")
    print(json.dumps({"ms": times}))


def run_child(kind, libname, count=1):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYJIT_CACHE_DIR", "NUMBA_CACHE_DIR", "PYJIT_SIMULATOR")}
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", kind, libname,
                        str(count)], capture_output=True, text=True, env=env, timeout=300)
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines:
        raise RuntimeError(f"{libname} subprocess failed (exit {p.returncode}):\n"
                           f"{p.stderr.strip()[-3000:]}")
    return json.loads(lines[-1])["ms"]


def bench_compile(libname, opts):
    return {"compile": statistics.median(run_child("compile", libname, opts.compiles))}


def bench_first(libname, opts):
    return {"first": statistics.median(run_child("first", libname)[0]
                                       for _ in range(opts.procs))}


# ---- the run and the table ------------------------------------------------------------------

class Results:
    """results[lib][key] = a number, or the error that stopped it (traceback kept for later)."""

    def __init__(self):
        self.values = {"pyjit": {}, "numba": {}, "cupy": {}, "c": {}}
        self.errors = []

    def measure(self, lib, what, fn, *args):
        print(f"  {lib:6s} {what} ...", file=sys.stderr, flush=True)
        keys = ("launch", "launch_bound", "launch_declared", "launch_cai", "launch_raw") \
            if (lib, what) == ("pyjit", "launch") \
            else (what,)
        try:
            if isinstance(args[0], BaseException):
                raise RuntimeError(f"not loaded: {args[0]!r}")
            self.values[lib].update(fn(*args))
        except Exception as exc:      # noqa: BLE001 - shown in the table, the run goes on
            for k in keys:
                self.values[lib].setdefault(k, exc)
            self.errors.append((f"{lib}: {what}", traceback.format_exc()))

    def get(self, lib, key):
        return self.values[lib].get(key)


def run_cases(opts, res):
    libs = {"pyjit": load_lib("pyjit", res.errors), "numba": load_lib("numba", res.errors)}
    cupy = load_cupy(res.errors)
    only = opts.only
    for lib in ("pyjit", "numba"):
        if "launch" in only:
            res.measure(lib, "launch", bench_launch, libs[lib], cupy, opts)
    if "launch" in only:
        res.measure("cupy", "launch", bench_launch_cupy, cupy, opts)
        res.measure("c", "launch", bench_launch_c, libs["pyjit"], opts)
        paired = res.values["c"].pop("pyjit", None)
        if paired is not None:       # pyjit's launch in fresh processes, beside the C loop's
            res.values["pyjit"]["launch_procs"] = paired
            res.values["c"]["launch_procs"] = res.values["c"]["launch"]
    if "saxpy" in only:
        data = saxpy_data(opts.saxpy_n)
        for lib in ("pyjit", "numba"):
            res.measure(lib, "saxpy", bench_saxpy, libs[lib], data, opts)
        res.measure("cupy", "saxpy", bench_saxpy_cupy, cupy, data, opts)
        del data
    if "matmul" in only:
        data = matmul_data(opts.mm_n)
        for lib in ("pyjit", "numba"):
            res.measure(lib, "matmul", bench_matmul, libs[lib], data, opts)
        res.measure("cupy", "matmul", bench_matmul_cublas, cupy, data, opts)
        del data
    if "reduce" in only:
        data = reduce_data(opts.reduce_n)
        for lib in ("pyjit", "numba"):
            res.measure(lib, "reduce", bench_reduce, libs[lib], data, opts)
        res.measure("cupy", "reduce", bench_reduce_cupy, cupy, data, opts)
        del data
    if "host" in only:
        for lib in ("pyjit", "numba"):
            res.measure(lib, "host", bench_host, libs[lib], opts)
    for lib in ("pyjit", "numba"):
        if "compile" in only:
            res.measure(lib, "compile", bench_compile, lib, opts)
        if "first" in only:
            res.measure(lib, "first", bench_first, lib, opts)


# (case, key, row title, unit, digits, reference library, target text, test of the ratio or value)
ROWS = [
    ("launch", "launch", "launch, 4 device arrays", "us", 2, "numba", "<= 3.0 us",
     lambda v, r: v <= 3.0),
    ("launch", "launch_procs", "launch, against a raw cuLaunchKernel loop in C", "us", 2, "c",
     "<= 1.25x C", lambda v, r: r <= 1.25),
    ("launch", "launch_bound", "launch, configuration bound once", "us", 2, "numba", "-", None),
    ("launch", "launch_declared", "launch, kernel declared with its signature", "us", 2,
     "pyjit:launch", "<= 1.1x @gpu.jit", lambda v, r: r <= 1.1),
    ("launch", "launch_cai", "launch, 4 CuPy arrays (CAI)", "us", 2, "numba", "-", None),
    ("launch", "launch_raw", "launch, CUDA C kernel (gpu.RawKernel), 4 device arrays", "us", 2,
     "pyjit:launch", "<= 1.05x @gpu.jit", lambda v, r: r <= 1.05),
    ("saxpy", "saxpy", "saxpy 2^26 float32, device arrays", "GB/s", 0, "cupy",
     ">= CUDA C", lambda v, r: r >= 1.0),
    ("matmul", "matmul", "tiled matmul 16x16 shared, 4096 float32", "TFLOP/s", 2, "numba",
     ">= numba-cuda", lambda v, r: r >= 1.0),
    ("reduce", "reduce", "reduce a + b, 2^26 float32 device array", "us", 1, "cupy",
     "<= 1.0x cp.sum", lambda v, r: r <= 1.0),
    ("compile", "compile", "compile a kernel after the first", "ms", 1, "numba", "<= 8 ms",
     lambda v, r: v <= 8.0),
    ("first", "first", "first launch of a fresh process", "ms", 0, "numba",
     "<= 0.5x numba-cuda", lambda v, r: r <= 0.5),
    ("host", "host", "saxpy 2^24 float32, NumPy arrays", "ms", 2, "numba",
     "<= 0.6x numba-cuda", lambda v, r: r <= 0.6),
]


def cell(v, digits):
    if v is None:
        return "-"
    if isinstance(v, BaseException):
        return f"error: {type(v).__name__}"
    return f"{v:.{digits}f}"


def table_rows(res, only):
    head = ["benchmark", "unit", "pyjit", "numba-cuda", "CuPy / CUDA C", "ratio", "target",
            "met"]
    rows = [head]
    for case, key, title, unit, digits, ref, target, test in ROWS:
        if case not in only:
            continue
        v, nb, cp = res.get("pyjit", key), res.get("numba", key), res.get("cupy", key)
        ref_lib, _, ref_key = ref.partition(":")      # "pyjit:launch": another of its rows
        r = res.get(ref_lib, ref_key or key)
        ok = isinstance(v, float) and isinstance(r, float) and r > 0
        ratio = v / r if ok else None
        met = "-"
        if test is not None and isinstance(v, float):
            try:
                met = "yes" if test(v, ratio) else "no"
            except TypeError:          # no reference figure to compare with
                met = "?"
        if case == "matmul" and isinstance(cp, float):
            cp = f"{cp:.1f} (cuBLAS)"
        if ref == "c":                 # the C loop's figure in the CUDA C column
            cp = r if isinstance(r, BaseException) else f"{cell(r, digits)} (C loop)"
        label = {"numba": "numba", "c": "C loop", "pyjit:launch": "@gpu.jit",
                 "cupy": "CuPy" if case == "reduce" else "CUDA C"}[ref]
        rows.append([title, unit, cell(v, digits), cell(nb, digits),
                     cp if isinstance(cp, str) else cell(cp, digits),
                     f"{ratio:.2f}x {label}" if ratio else "-", target, met])
    return rows


def print_table(rows, markdown):
    if markdown:
        for r in rows:
            print("| " + " | ".join(r) + " |")
            if r is rows[0]:
                print("|" + "---|" * len(r))
        return
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def describe_machine(gpu):
    parts = []
    try:
        d = gpu.get_current_device()
        name = d.name.decode() if isinstance(d.name, bytes) else str(d.name)
        parts.append(f"{name} (sm_{''.join(map(str, d.compute_capability))})")
    except Exception as exc:   # noqa: BLE001
        parts.append(f"GPU: {exc!r}")
    from importlib import metadata
    for dist in ("numpy", "numba", "numba-cuda", "cupy", "cupy-cuda12x", "cupy-cuda13x"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    parts.append(f"Python {sys.version.split()[0]}")
    parts.append(time.strftime("%Y-%m-%d"))
    return ", ".join(parts)


def gpu_or_reason():
    """(pyjit.gpu, None) when a GPU can run kernels, else (None, why not)."""
    try:
        from pyjit import gpu
    except Exception as exc:    # noqa: BLE001
        return None, f"cannot import pyjit: {exc!r}"
    if gpu.SIMULATOR:
        return None, "PYJIT_SIMULATOR is set: this benchmark measures a real GPU; unset it"
    if gpu.is_available():
        return gpu, None
    try:
        gpu.device_array(1, np.float32)         # raises with the reason
    except Exception as exc:    # noqa: BLE001
        return None, str(exc)
    return None, "pyjit.gpu.is_available() is False"


def parse_args(argv):
    p = argparse.ArgumentParser(description="pyjit GPU benchmarks beside numba-cuda and CuPy")
    p.add_argument("--quick", action="store_true", help="fewer samples and processes")
    p.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    p.add_argument("--only", default=",".join(CASES),
                   help=f"comma-separated cases among {', '.join(CASES)}")
    p.add_argument("--child", nargs=3, metavar=("KIND", "LIB", "COUNT"), help=argparse.SUPPRESS)
    opts = p.parse_args(argv)
    opts.only = [c.strip() for c in opts.only.split(",") if c.strip()]
    bad = [c for c in opts.only if c not in CASES]
    if bad:
        p.error(f"unknown case(s) {', '.join(bad)}: choose among {', '.join(CASES)}")
    q = opts.quick
    opts.samples = 3 if q else 7
    opts.mm_samples = 2 if q else 3
    opts.launches = 10000 if q else 30000
    opts.reps = 10 if q else 20
    opts.compiles = 3 if q else 5
    opts.procs = 2 if q else 3
    opts.saxpy_n = 1 << 26
    opts.mm_n = 4096
    opts.host_n = 1 << 24
    opts.reduce_n = 1 << 26
    return opts


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    if opts.child:
        kind, lib, count = opts.child
        child(kind, lib, int(count))
        return 0
    gpu, why = gpu_or_reason()
    if gpu is None:
        print(f"no GPU: {why}")
        print("nothing measured; bench/gpu.py needs an NVIDIA GPU (see docs/gpu.md)")
        return 0
    print(f"bench/gpu.py on {describe_machine(gpu)}", flush=True)
    res = Results()
    run_cases(opts, res)
    print()
    print_table(table_rows(res, opts.only), opts.markdown)
    sweep = res.get("pyjit", "reduce_sweep")
    if isinstance(sweep, str):
        print(f"\ngpu.reduce of 2^26 float32 over its shape constants:\n{sweep}")
    for what, tb in res.errors:
        print(f"\n---- {what}\n{tb.rstrip()}")
    return 1 if res.errors else 0


if __name__ == "__main__":
    sys.exit(main())
