"""saxpy on the GPU: out = a * x + y, one element a thread, written as numba-cuda code is.

`from pyjit import cuda` is pyjit.gpu under numba-cuda's name, so this is a numba-cuda program
with its import line changed. Without a GPU, run it in the simulator:

    PYJIT_SIMULATOR=1 python examples/gpu_saxpy.py
"""
import numpy as np

from pyjit import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)                  # blockIdx.x * blockDim.x + threadIdx.x
    if i < x.size:                    # the last block may run past the end
        out[i] = a * x[i] + y[i]      # float32 stays float32: `a` is a float32 scalar


def main():
    n = 5000
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    a = np.float32(2.5)

    threads = 128
    blocks = (n + threads - 1) // threads

    # 1. NumPy arrays straight to the kernel: pyjit copies x, y and out to the GPU, and copies
    #    back only `out`, the one array the kernel writes.
    out = np.zeros_like(x)
    saxpy[blocks, threads](a, x, y, out)
    assert np.allclose(out, a * x + y, rtol=1e-6), "host arrays: wrong result"

    # 2. Device arrays: copy once, launch as often as needed, copy the result back once.
    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    d_out = cuda.device_array_like(x)
    saxpy[blocks, threads](a, d_x, d_y, d_out)
    result = d_out.copy_to_host()
    assert result.dtype == np.float32
    assert np.allclose(result, a * x + y, rtol=1e-6), "device arrays: wrong result"

    # 3. forall(n) picks the launch configuration for n threads.
    saxpy.forall(n)(a, d_x, d_y, d_out)
    assert np.allclose(d_out.copy_to_host(), a * x + y, rtol=1e-6), "forall: wrong result"

    print(f"saxpy of {n} float32 elements in {blocks} blocks of {threads} threads: OK")


if __name__ == "__main__":
    main()
