"""pyjit's GPU simulator against Numba's (numba-cuda, NUMBA_ENABLE_CUDASIM=1), side by side.

    python bench/simulator.py                    # both simulators, medians and ratios
    python bench/simulator.py --repeat 7         # more samples
    python bench/simulator.py --numba-path DIR   # numba-cuda from `pip install --target DIR`

Each simulator runs in its own process (each is chosen by an environment variable read at
import) on the same kernels, written once in make_kernels(cuda) against the numba-cuda API that
both share. Every kernel is launched once to warm up, then timed `--repeat` times; the parent
prints the medians and the ratio numba / pyjit (higher is better for pyjit). The results are
checked against NumPy in both processes.

  saxpy      4096 threads (16 blocks x 256), one element a thread, no barrier
  reduce     4096 threads (16 blocks x 256), shared-memory tree reduction with syncthreads
  matmul     64x64 float32, 16x16 shared-memory tiles, two syncthreads per tile
  warpsum    4096 threads, warp-shuffle reduction (pyjit only: Numba's simulator lacks
             shfl_down_sync)

    python bench/simulator.py --cpu              # pyjit's two simulators and @njit, 2^20 threads
    python bench/simulator.py --compile          # first launch under PYJIT_SIMULATOR=cpu

--cpu compares, at 2^20 threads (4096 blocks of 256), the interpreted simulator
(PYJIT_SIMULATOR=1), the compiled one (PYJIT_SIMULATOR=cpu) and the same computation written as
an @njit loop, on saxpy and on the shared-memory block reduction above; each in its own process.
It prints medians and the ratios interpreted / cpu (target: 100x or more) and cpu / njit
(target: within 3x), of wall-clock time and, steadier on a loaded machine, of the process's CPU
time (all its threads: the compiled simulator runs blocks on every core, @njit on one). The interpreted simulator is timed once (it takes seconds), the others
`--repeat` times after a warm-up launch; every result is checked against NumPy.

--compile measures the first launch of each kernel above under PYJIT_SIMULATOR=cpu, which is
almost all compiling (the kernels' small launches): each kernel is made anew `--repeat` times
(by exec of make_kernels' source, so nothing is reused) and launched once, timed by the CPU time
of the launching thread, which does the compile (steadier than the wall clock on a loaded
machine). It prints medians and minima (target: 150 ms or less on the shared 2-core machine).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


cuda = None        # the library's cuda module, set by child(): the kernels use it as a global,
                   # which is how Numba's simulator finds and swaps it


def make_kernels():
    import numpy as np

    @cuda.jit
    def saxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    @cuda.jit
    def reduce(x, out):
        s = cuda.shared.array(256, np.float32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        s[t] = x[i] if i < x.size else 0
        cuda.syncthreads()
        k = cuda.blockDim.x // 2
        while k > 0:
            if t < k:
                s[t] += s[t + k]
            cuda.syncthreads()
            k //= 2
        if t == 0:
            out[cuda.blockIdx.x] = s[0]

    @cuda.jit
    def matmul(A, B, C):
        sA = cuda.shared.array((16, 16), np.float32)
        sB = cuda.shared.array((16, 16), np.float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        acc = np.float32(0)
        for k in range(A.shape[1] // 16):
            sA[tx, ty] = A[x, ty + k * 16]
            sB[tx, ty] = B[tx + k * 16, y]
            cuda.syncthreads()
            for j in range(16):
                acc += sA[tx, j] * sB[j, ty]
            cuda.syncthreads()
        C[x, y] = acc

    @cuda.jit
    def warpsum(x, out):
        i = cuda.grid(1)
        v = x[i]
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        if i % 32 == 0:
            out[i // 32] = v

    return {"saxpy": saxpy, "reduce": reduce, "matmul": matmul, "warpsum": warpsum}


def workloads(np):
    rng = np.random.default_rng(0)
    x = rng.random(4096, dtype=np.float32)
    y = rng.random(4096, dtype=np.float32)
    A = rng.random((64, 64), dtype=np.float32)
    B = rng.random((64, 64), dtype=np.float32)
    return {
        "saxpy": ((16, 256), lambda: (np.float32(2.0), x, y, np.zeros_like(x)),
                  lambda a: np.allclose(a[3], 2 * x + y)),
        "reduce": ((16, 256), lambda: (x, np.zeros(16, np.float32)),
                   lambda a: np.allclose(a[1], x.reshape(16, 256).sum(1), rtol=1e-4)),
        "matmul": (((4, 4), (16, 16)), lambda: (A, B, np.zeros((64, 64), np.float32)),
                   lambda a: np.allclose(a[2], A @ B, rtol=1e-4)),
        "warpsum": ((16, 256), lambda: (x, np.zeros(128, np.float32)),
                    lambda a: np.allclose(a[1], x.reshape(128, 32).sum(1), rtol=1e-4)),
    }


def child(lib, names, repeat):
    """Runs in the child process: times each kernel, prints one JSON line."""
    global cuda
    import numpy as np
    if lib == "pyjit":
        from pyjit import cuda
    else:
        from numba import cuda
    kernels = make_kernels()
    work = workloads(np)
    result = {}
    for name in names:
        (griddim, blockdim), make_args, check = work[name]
        launch = kernels[name][griddim, blockdim]
        args = make_args()
        launch(*args)                          # warm-up (and the check)
        if not check(args):
            raise SystemExit(f"{lib} {name}: wrong result")
        times = []
        for _ in range(repeat):
            args = make_args()
            t = time.perf_counter()
            launch(*args)
            times.append(time.perf_counter() - t)
        result[name] = times
    print(json.dumps(result))


def run_child(lib, names, repeat, numba_path):
    env = dict(os.environ)
    env.pop("PYJIT_SIMULATOR", None)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if lib == "pyjit":
        env["PYJIT_SIMULATOR"] = "1"
        path = [ROOT]
    else:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
        path = []
    code = ("import sys, site\n"
            f"sys.path[:0] = {path!r}\n"
            + (f"site.addsitedir({numba_path!r})\n" if numba_path and lib == "numba" else "")
            + f"sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
            f"import simulator; simulator.child({lib!r}, {names!r}, {repeat})\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(f"{lib}: failed\n{r.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


# ---- --cpu: the compiled simulator against the interpreted one and @njit ----

CPU_N, CPU_BLOCK = 1 << 20, 256


def njit_versions():
    """saxpy and the per-block sums as the loops one would write with @njit."""
    from pyjit import njit

    @njit
    def saxpy(a, x, y, out):
        for i in range(x.size):
            out[i] = a * x[i] + y[i]

    @njit
    def reduce(x, out):
        for b in range(out.size):
            s = x[b * 256]
            for t in range(1, 256):
                s += x[b * 256 + t]
            out[b] = s
    return {"saxpy": saxpy, "reduce": reduce}


def cpu_child(mode, repeat):
    """Runs in a child process: mode 'interp' or 'cpu' (the simulator its environment chose)
    launches the kernels; 'njit' calls the loops. One JSON line of times."""
    global cuda
    import numpy as np
    x = np.random.default_rng(0).random(CPU_N, dtype=np.float32)
    y = np.random.default_rng(1).random(CPU_N, dtype=np.float32)
    a = np.float32(2.0)
    nb = CPU_N // CPU_BLOCK
    work = {"saxpy": (lambda: (a, x, y, np.zeros_like(x)),
                      lambda r: np.allclose(r[3], a * x + y, rtol=1e-6)),
            "reduce": (lambda: (x, np.zeros(nb, np.float32)),
                       lambda r: np.allclose(r[1], x.reshape(nb, CPU_BLOCK).sum(1), rtol=1e-4))}
    if mode == "njit":
        funcs = njit_versions()
    else:
        from pyjit import cuda
        kernels = make_kernels()
        funcs = {n: kernels[n][nb, CPU_BLOCK] for n in work}
    result = {}
    for name, (make_args, check) in work.items():
        args = make_args()
        t = time.perf_counter()
        funcs[name](*args)                     # warm-up (compiles; and the check)
        first = time.perf_counter() - t
        if not check(args):
            raise SystemExit(f"{mode} {name}: wrong result")
        times = [first] if mode == "interp" else []
        cpu_times = []
        for _ in range(0 if mode == "interp" else repeat):
            args = make_args()
            t, c = time.perf_counter(), time.process_time()
            funcs[name](*args)
            times.append(time.perf_counter() - t)
            cpu_times.append(time.process_time() - c)
        result[name] = times
        if cpu_times:
            result[name + "/cpu"] = cpu_times
    print(json.dumps(result))


def run_cpu_child(mode, repeat):
    env = dict(os.environ)
    env.pop("PYJIT_SIMULATOR", None)
    if mode != "njit":
        env["PYJIT_SIMULATOR"] = "1" if mode == "interp" else "cpu"
    code = (f"import sys\nsys.path[:0] = {[ROOT, os.path.dirname(os.path.abspath(__file__))]!r}\n"
            f"import simulator; simulator.cpu_child({mode!r}, {repeat})\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(f"{mode}: failed\n{r.stderr[-2000:]}", file=sys.stderr)
        sys.exit(1)
    return json.loads(r.stdout.strip().splitlines()[-1])


def cpu_main(repeat, skip_interp):
    runs = {m: run_cpu_child(m, repeat) for m in (("cpu", "njit") if skip_interp
                                                  else ("interp", "cpu", "njit"))}
    print(f"{'kernel (2^20 threads)':<22}{'interp (ms)':>13}{'cpu (ms)':>11}{'njit (ms)':>11}"
          f"{'interp/cpu':>12}{'cpu/njit':>10}")
    for name in ("saxpy", "reduce"):
        med = {m: statistics.median(r[name]) * 1e3 for m, r in runs.items()}
        cpu, njit, interp = med["cpu"], med["njit"], med.get("interp")
        i_text = f"{interp:13.0f}" if interp else f"{'-':>13}"
        ratio = f"{interp / cpu:11.0f}x" if interp else f"{'-':>12}"
        print(f"{name:<22}{i_text}{cpu:11.2f}{njit:11.2f}{ratio}{cpu / njit:9.2f}x")
    print("CPU time of the process (all its threads), cpu and njit:")
    for name in ("saxpy", "reduce"):
        med = {m: statistics.median(runs[m][name + "/cpu"]) * 1e3 for m in ("cpu", "njit")}
        print(f"{name:<22}{'':>13}{med['cpu']:11.2f}{med['njit']:11.2f}{'':>12}"
              f"{med['cpu'] / med['njit']:9.2f}x")

# ---- --compile: the first launch of each kernel under PYJIT_SIMULATOR=cpu ----

def compile_child(names, repeat):
    """Runs in a child process with PYJIT_SIMULATOR=cpu: the first launch of each kernel, made
    anew each time; one JSON line of times."""
    import inspect
    import textwrap
    import numpy as np
    from pyjit import cuda as lib_cuda
    source = textwrap.dedent(inspect.getsource(make_kernels))
    work = workloads(np)
    result = {name: [] for name in names}
    for r in range(repeat + 1):                # the first round warms up the process
        for name in names:
            scope = {"cuda": lib_cuda, "__name__": f"bench_kernels_{r}"}
            exec(compile(source, "bench_kernels.py", "exec"), scope)
            (griddim, blockdim), make_args, check = work[name]
            launch = scope["make_kernels"]()[name][griddim, blockdim]
            args = make_args()
            t = time.thread_time()
            launch(*args)
            elapsed = time.thread_time() - t
            if not check(args):
                raise SystemExit(f"{name}: wrong result")
            if r:
                result[name].append(elapsed)
    print(json.dumps(result))


def compile_main(names, repeat):
    env = dict(os.environ, PYJIT_SIMULATOR="cpu")
    code = (f"import sys\nsys.path[:0] = {[ROOT, os.path.dirname(os.path.abspath(__file__))]!r}\n"
            f"import simulator; simulator.compile_child({names!r}, {repeat})\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(f"failed\n{r.stderr[-2000:]}", file=sys.stderr)
        sys.exit(1)
    times = json.loads(r.stdout.strip().splitlines()[-1])
    print(f"{'first launch, PYJIT_SIMULATOR=cpu':<36}{'median (ms)':>12}{'min (ms)':>10}")
    for name in names:
        print(f"{name:<36}{statistics.median(times[name]) * 1e3:12.1f}"
              f"{min(times[name]) * 1e3:10.1f}")
    print("CPU time of the launching thread; target: 150 ms or less")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="saxpy,reduce,matmul,warpsum")
    ap.add_argument("--numba-path", default=None,
                    help="a folder holding numba-cuda (pip install --target), added as a site dir")
    ap.add_argument("--no-numba", action="store_true")
    ap.add_argument("--cpu", action="store_true",
                    help="the compiled simulator against the interpreted one and @njit")
    ap.add_argument("--no-interp", action="store_true", help="with --cpu: skip the interpreter")
    ap.add_argument("--compile", action="store_true",
                    help="the first launch (the compile) of each kernel under PYJIT_SIMULATOR=cpu")
    args = ap.parse_args()
    if args.compile:
        compile_main(args.only.split(","), args.repeat)
        return
    if args.cpu:
        cpu_main(args.repeat, args.no_interp)
        return
    names = args.only.split(",")
    ours = run_child("pyjit", names, args.repeat, None)
    theirs = None if args.no_numba else run_child(
        "numba", [n for n in names if n != "warpsum"], max(1, min(args.repeat, 3)),
        args.numba_path)
    if ours is None:
        sys.exit(1)
    print(f"{'kernel':<10}{'pyjit sim (ms)':>16}{'numba sim (ms)':>16}{'ratio':>9}")
    for name in names:
        p = statistics.median(ours[name]) * 1e3
        n = statistics.median(theirs[name]) * 1e3 if theirs and name in theirs else None
        ratio = f"{n / p:8.1f}x" if n else "       -"
        print(f"{name:<10}{p:16.2f}{(f'{n:16.2f}' if n else '               -')}{ratio}")


if __name__ == "__main__":
    main()
