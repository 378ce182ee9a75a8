"""saxpy as a GPU ufunc: @vectorize(..., target='cuda') turns a scalar function into a kernel.

The function is written for one element; pyjit makes the kernel that applies it to every
element, with NumPy's broadcasting (a scalar `a` against arrays x and y). Called with NumPy
arrays it copies them to the GPU and returns a NumPy array; called with device arrays it keeps
everything on the GPU and returns a device array, or writes into `out=`.

    PYJIT_SIMULATOR=1 python examples/gpu_vectorize_saxpy.py    # without a GPU
"""
# pyjit: gpu  (scripts/examples.sh runs this in the simulator where there is no GPU)
import numpy as np

from pyjit import cuda, vectorize


@vectorize(["float32(float32, float32, float32)",
            "float64(float64, float64, float64)"], target="cuda")
def saxpy(a, x, y):
    return a * x + y


def main():
    n = 4000
    rng = np.random.default_rng(4)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    a = np.float32(3.0)

    # Host arrays and a scalar: the scalar is broadcast, the result comes back as NumPy.
    out = saxpy(a, x, y)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    assert np.allclose(out, a * x + y, rtol=1e-6), "host arrays: wrong result"

    # float64 inputs pick the float64 loop.
    out64 = saxpy(2.0, x.astype(np.float64), y.astype(np.float64))
    assert out64.dtype == np.float64 and np.allclose(out64, 2.0 * x + y), "float64: wrong"

    # Device arrays: the result stays on the GPU; out= reuses a device array of our own.
    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    d_out = cuda.device_array_like(d_x)
    saxpy(a, d_x, d_y, out=d_out)
    assert np.allclose(d_out.copy_to_host(), a * x + y, rtol=1e-6), "out=: wrong result"
    d_res = saxpy(a, d_x, d_y)
    assert cuda.is_cuda_array(d_res), "device inputs should give a device array"
    assert np.allclose(d_res.copy_to_host(), a * x + y, rtol=1e-6), "device arrays: wrong"

    print(f"GPU ufunc saxpy over {n} elements, host and device arrays: OK")


if __name__ == "__main__":
    main()
