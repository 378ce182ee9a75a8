"""pyjit beside Numba and Triton in one process on a GPU: each compiles and runs, pyjit again
after the other two. Meant for the statically linked module (the wheel, docs/install.md), whose
LLVM must not meet llvmlite's or Triton's; needs numba, triton and torch installed.

    python scripts/gpu_coload.py
"""
import numpy as np

import pyjit
from pyjit import gpu

import numba                      # llvmlite's LLVM
import torch
import triton                     # Triton's LLVM
import triton.language as tl


@pyjit.njit
def pyjit_sum_sq(a):
    s = 0.0
    for x in a:
        s += x * x
    return s


@gpu.jit
def pyjit_axpy(a, x, y, out):
    i = gpu.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@numba.njit
def numba_sum_sq(a):
    s = 0.0
    for x in a:
        s += x * x
    return s


@triton.jit
def triton_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m),
             mask=m)


def llvm_libraries():
    """The LLVM-carrying shared objects mapped in this process."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "/" in line}
    return sorted(p for p in paths if "LLVM" in p or "llvmlite" in p or "libtriton" in p)


def main():
    rng = np.random.default_rng(7)
    a = rng.random(1000)
    x, y = rng.random((2, 4096), dtype=np.float32)
    assert np.isclose(pyjit_sum_sq(a), (a * a).sum())
    out = np.zeros_like(x)
    pyjit_axpy[16, 256](np.float32(2), x, y, out)
    assert np.allclose(out, 2 * x + y)
    assert np.isclose(numba_sum_sq(a), (a * a).sum())
    tx, ty = torch.tensor(x, device="cuda"), torch.tensor(y, device="cuda")
    tout = torch.empty_like(tx)
    triton_add[(4,)](tx, ty, tout, x.size, BLOCK=1024)
    assert np.allclose(tout.cpu().numpy(), x + y)

    @pyjit.njit
    def after(v):
        return np.sort(v)[::-1].cumsum()

    @gpu.jit
    def after_kernel(v, r):
        i = gpu.grid(1)
        if i < r.size:
            r[i] = v[i] ** 0.5

    assert np.allclose(after(a), np.sort(a)[::-1].cumsum())
    root = np.zeros_like(x)
    after_kernel[16, 256](x, root)
    assert np.allclose(root, np.sqrt(x), rtol=1e-6)
    print(f"pyjit {pyjit.__version__}, numba {numba.__version__}, triton {triton.__version__}, "
          f"torch {torch.__version__}: all compiled and ran")
    print("LLVM in the process:", ", ".join(llvm_libraries()) or "none but pyjit's own")


if __name__ == "__main__":
    main()
