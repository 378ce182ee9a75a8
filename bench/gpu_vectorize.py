"""GPU ufuncs: pyjit's @vectorize(target='cuda') beside numba-cuda, CuPy and Triton, one run.

    saxpy    out = a * x + y over 2^26 float32 device arrays with out= (a a float32 scalar):
             the ufunc called 20 times between two synchronizes, wall time per call, median
             of 7; GB/s = 3 x 4 bytes x n / time. Beside it: numba-cuda's vectorize, CuPy's
             ElementwiseKernel, Triton's classic saxpy (BLOCK 1024) and pyjit's own
             one-element-a-thread @gpu.jit kernel.
    shapes   pyjit's elementwise kernel with other launch shapes (elements a thread,
             blocks a multiprocessor): what the defaults in pyjit/gpu/ufunc.py were chosen from
    reduce   a sum of 2^26 float32 with gpu.reduce, numba-cuda's cuda.reduce and CuPy's sum
Each case is guarded: a failure shows in its row and its traceback after the table. Results are
checked against NumPy. Without a GPU it says so and exits.

    python bench/gpu_vectorize.py [--quick] [--json FILE]
"""
import argparse
import json
import os
import statistics
import sys
import time
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
N = 1 << 26
CALLS = 20
TRITON_TARGET = 4300.0       # GB/s, Triton's saxpy on the H200 (the figure)


def timed(call, sync, reps):
    """Median seconds a call, over reps samples of CALLS calls between synchronizes."""
    call()
    sync()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            call()
        sync()
        samples.append((time.perf_counter() - t0) / CALLS)
    return statistics.median(samples)


def gbs(seconds):
    return 3 * 4 * N / seconds / 1e9


def host_data():
    rng = np.random.default_rng(0)
    return np.float32(2.5), rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)


def check(result, a, x, y):
    got = np.asarray(result)[:1 << 16]
    want = a * x[:1 << 16] + y[:1 << 16]
    if not np.allclose(got, want, rtol=1e-5):
        raise AssertionError("wrong saxpy result")


# ---- the cases ----

def pyjit_saxpy(reps, a, x, y):
    import pyjit
    from pyjit import gpu

    @pyjit.vectorize(["float32(float32, float32, float32)"], target="cuda")
    def saxpy(a, x, y):
        return a * x + y

    dx, dy = gpu.to_device(x), gpu.to_device(y)
    dout = gpu.device_array_like(dx)
    t = timed(lambda: saxpy(a, dx, dy, out=dout), gpu.synchronize, reps)
    check(dout.copy_to_host(), a, x, y)
    return t


def pyjit_shapes(reps, a, x, y):
    from pyjit import gpu
    from pyjit.gpu import ufunc
    dx, dy = gpu.to_device(x), gpu.to_device(y)
    dout = gpu.device_array_like(dx)
    saved = ufunc.UNROLL, ufunc.BLOCKS_PER_SM, ufunc.THREADS
    rows = []
    try:
        for unroll, bps, threads in [(1, 8, 256), (2, 8, 256), (4, 8, 256), (8, 8, 256),
                                     (4, 4, 256), (4, 16, 256), (4, 32, 256), (1, 10 ** 6, 256),
                                     (4, 4, 512), (8, 4, 512), (2, 16, 128)]:
            ufunc.UNROLL, ufunc.BLOCKS_PER_SM, ufunc.THREADS = unroll, bps, threads
            f = ufunc.vectorize(["float32(float32, float32, float32)"])(
                lambda a, x, y: a * x + y)
            t = timed(lambda: f(a, dx, dy, out=dout), gpu.synchronize, reps)
            check(dout.copy_to_host(), a, x, y)
            rows.append((f"pyjit ufunc: {unroll} a thread, {bps} blocks/SM, {threads} threads",
                         t))
    finally:
        ufunc.UNROLL, ufunc.BLOCKS_PER_SM, ufunc.THREADS = saved
    return rows


def pyjit_kernel(reps, a, x, y):
    from pyjit import gpu

    @gpu.jit
    def saxpy(a, x, y, out):
        i = gpu.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    dx, dy = gpu.to_device(x), gpu.to_device(y)
    dout = gpu.device_array_like(dx)
    launch = saxpy[(N + 255) // 256, 256]
    t = timed(lambda: launch(a, dx, dy, dout), gpu.synchronize, reps)
    check(dout.copy_to_host(), a, x, y)
    return t


def numba_saxpy(reps, a, x, y):
    np.row_stack = getattr(np, "row_stack", np.vstack)   # numba-cuda imports the removed name
    from numba import cuda, vectorize

    @vectorize(["float32(float32, float32, float32)"], target="cuda")
    def saxpy(a, x, y):
        return a * x + y

    dx, dy = cuda.to_device(x), cuda.to_device(y)
    dout = cuda.device_array_like(dx)
    t = timed(lambda: saxpy(a, dx, dy, out=dout), cuda.synchronize, reps)
    check(dout.copy_to_host(), a, x, y)
    return t


def cupy_saxpy(reps, a, x, y):
    import cupy as cp
    k = cp.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 out",
                             "out = a * x + y", "saxpy")
    dx, dy = cp.asarray(x), cp.asarray(y)
    dout = cp.empty_like(dx)
    t = timed(lambda: k(a, dx, dy, dout), cp.cuda.Device().synchronize, reps)
    check(cp.asnumpy(dout), a, x, y)
    return t


def triton_saxpy(reps, a, x, y):
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def saxpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        xv = tl.load(x_ptr + offs, mask=mask)
        yv = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, a * xv + yv, mask=mask)

    dx, dy = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    dout = torch.empty_like(dx)
    grid = (triton.cdiv(N, 1024),)
    t = timed(lambda: saxpy_kernel[grid](dx, dy, dout, float(a), N, BLOCK=1024),
              torch.cuda.synchronize, reps)
    check(dout.cpu().numpy(), a, x, y)
    return t


def reduce_cases(reps, x):
    rows = []
    want = x.sum(dtype=np.float64)

    def guarded(name, fn):
        try:
            t, got = fn()
            if not np.isclose(got, want, rtol=1e-3):
                raise AssertionError(f"wrong sum {got} (NumPy {want})")
            rows.append((name, t, None))
        except Exception:   # noqa: BLE001 - shown in the table
            rows.append((name, None, traceback.format_exc()))

    def pj():
        from pyjit import gpu

        @gpu.reduce
        def add(a, b):
            return a + b
        d = gpu.to_device(x)
        res = gpu.device_array(1, np.float32)
        t = timed(lambda: add(d, res=res), gpu.synchronize, reps)
        return t, add(d)

    def nb():
        np.row_stack = getattr(np, "row_stack", np.vstack)
        from numba import cuda

        @cuda.reduce
        def add(a, b):
            return a + b
        d = cuda.to_device(x)
        res = cuda.device_array(1, np.float32)
        t = timed(lambda: add(d, res=res), cuda.synchronize, reps)
        return t, add(d)

    def cp_sum():
        import cupy as cp
        d = cp.asarray(x)
        t = timed(lambda: d.sum(), cp.cuda.Device().synchronize, reps)
        return t, float(d.sum())

    guarded("reduce sum 2^26 float32: pyjit gpu.reduce", pj)
    guarded("reduce sum 2^26 float32: numba-cuda cuda.reduce", nb)
    guarded("reduce sum 2^26 float32: CuPy sum", cp_sum)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 samples instead of 7")
    ap.add_argument("--json", help="also write the results to this file")
    opts = ap.parse_args()
    from pyjit import gpu
    if not gpu.is_available():
        print("no GPU here: nothing to measure (bench/gpu_vectorize.py needs an NVIDIA GPU)")
        return 0
    reps = 3 if opts.quick else 7
    a, x, y = host_data()
    rows, errors = [], []

    def run(name, fn):
        try:
            out = fn(reps, a, x, y)
            rows.extend(out if isinstance(out, list) else [(name, out)])
        except Exception:   # noqa: BLE001 - shown in the table
            rows.append((name, None))
            errors.append((name, traceback.format_exc()))

    run("pyjit vectorize(target='cuda'), out=", pyjit_saxpy)
    run("numba-cuda vectorize(target='cuda'), out=", numba_saxpy)
    run("CuPy ElementwiseKernel", cupy_saxpy)
    run("Triton saxpy (BLOCK 1024)", triton_saxpy)
    run("pyjit @gpu.jit, one element a thread", pyjit_kernel)
    run("shapes", pyjit_shapes)
    ours = rows[0][1]
    triton = dict(rows).get("Triton saxpy (BLOCK 1024)")
    print(f"saxpy over 2^26 float32 device arrays, {CALLS} calls a sample, median of {reps}")
    print(f"{'case':<62} {'us/call':>9} {'GB/s':>8} {'pyjit speed-up':>15}")
    results = []
    for name, t in rows:
        if t is None:
            print(f"{name:<62} {'failed':>9}")
            results.append({"case": name, "error": True})
            continue
        ratio = t / ours if ours else float("nan")
        print(f"{name:<62} {t * 1e6:>9.1f} {gbs(t):>8.0f} {ratio:>14.2f}x")
        results.append({"case": name, "us": t * 1e6, "GBps": gbs(t)})
    if ours:
        ref = gbs(triton) if triton else TRITON_TARGET
        what = "Triton measured here" if triton else "Triton's 4300 GB/s of the issue"
        print(f"\npyjit's ufunc reaches {gbs(ours) / ref * 100:.1f}% of {what} "
              f"(target >= 95%)")
    red = reduce_cases(reps, x)
    print(f"\n{'reduce case':<62} {'us/call':>9} {'GB/s':>8}")
    for name, t, err in red:
        if t is None:
            print(f"{name:<62} {'failed':>9}")
            errors.append((name, err))
        else:
            print(f"{name:<62} {t * 1e6:>9.1f} {4 * N / t / 1e9:>8.0f}")
        results.append({"case": name, "us": t * 1e6 if t else None})
    for name, tb in errors:
        print(f"\n---- {name} ----\n{tb}")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
