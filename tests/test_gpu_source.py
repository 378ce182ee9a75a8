"""CUDA C kernels from Python strings launched on a GPU (gpu.SourceModule, RawKernel, RawModule),
every result compared with NumPy: PyCUDA's and CuPy's documented examples run unchanged but for
the import, the three launch forms, NumPy arrays copied back only where the parameter points to
non-const (or gpu.Out/InOut says so), device arrays and foreign (CAI) arrays in place, scalars
converted to the parameters' C types, templates through name expressions, dynamic shared memory,
streams, module variables shared by the module's kernels, and the kernel attributes. Every test
needs a GPU (the `gpu` mark); tests/test_source_module.py has what runs without one."""
import numpy as np
import pytest

from pyjit import gpu

pytestmark = pytest.mark.gpu


def _nvrtc_or_skip():
    from pyjit.gpu import _link
    try:
        _link._nvrtc()
    except RuntimeError:
        pytest.skip("no NVRTC (libnvrtc)")


@pytest.fixture(autouse=True)
def _needs_nvrtc():
    _nvrtc_or_skip()


def test_pycuda_multiply_them():
    """PyCUDA's introductory example (its documentation's), drv being pyjit.gpu."""
    import pyjit.gpu as drv
    from pyjit.gpu import SourceModule
    import numpy
    mod = SourceModule("""
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
""")
    multiply_them = mod.get_function("multiply_them")
    a = numpy.random.randn(400).astype(numpy.float32)
    b = numpy.random.randn(400).astype(numpy.float32)
    dest = numpy.zeros_like(a)
    multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(dest, a * b)


def test_cupy_my_add_raw_kernel_with_numpy_arrays():
    """CuPy's RawKernel example (its documentation's), cupy's arrays made by NumPy: y points to
    non-const and is copied back; x1 and x2 point to const and are not."""
    import numpy as cp
    add_kernel = gpu.RawKernel(r'''
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
''', 'my_add')
    x1 = cp.arange(25, dtype=cp.float32).reshape(5, 5)
    x2 = cp.arange(25, dtype=cp.float32).reshape(5, 5)
    y = cp.zeros((5, 5), dtype=cp.float32)
    add_kernel((5,), (5,), (x1, x2, y))  # grid, block and arguments
    assert cp.allclose(y, x1 + x2)


WRITES_ALL = r'''
extern "C" __global__ void scale(float *x, const float *y, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] * s + y[i];
        ((float *)y)[i] = -1.0f;     /* through a cast: const says it is not copied back */
    }
}
'''


def test_copy_back_follows_const_and_directions():
    k = gpu.RawKernel(WRITES_ALL, "scale")
    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, np.float32)
    k[1, 128](x, y, 2.0, 100)
    np.testing.assert_array_equal(x, np.arange(100, dtype=np.float32) * 2 + 1)
    np.testing.assert_array_equal(y, 1)             # const: never copied back
    x2 = np.arange(100, dtype=np.float32)
    k[1, 128](gpu.In(x2), y, 2.0, 100)              # In: not copied back
    np.testing.assert_array_equal(x2, np.arange(100, dtype=np.float32))
    y2 = np.ones(100, np.float32)
    k[1, 128](x2, gpu.InOut(y2), 2.0, 100)          # InOut: copied back, const or not
    np.testing.assert_array_equal(y2, -1)
    ro = np.arange(100, dtype=np.float32)
    ro.flags.writeable = False
    k[1, 128](ro, y, 2.0, 100)                      # a read-only array is not written
    np.testing.assert_array_equal(ro, np.arange(100, dtype=np.float32))


PLAIN = r'''
__global__ void scale(float *x, const float *y, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * s + y[i];
}
'''


def test_three_launch_forms_and_device_arrays():
    mod = gpu.SourceModule(PLAIN)
    k = mod.get_function("scale")
    n = 1000
    x0 = np.random.rand(n).astype(np.float32)
    y = np.random.rand(n).astype(np.float32)
    dx, dy = gpu.to_device(x0), gpu.to_device(y)
    k(dx, dy, np.float32(3), np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
    k(((n + 255) // 256,), (256,), (dx, dy, 0.5, n))
    k[(n + 255) // 256, 256](dx, dy, 2, n)
    expect = ((x0 * 3 + y) * 0.5 + y) * 2 + y
    np.testing.assert_allclose(dx.copy_to_host(), expect, rtol=1e-6)
    # a strided NumPy array is staged contiguously and written back into place
    big = np.zeros(2 * n, np.float32)
    k[(n + 255) // 256, 256](big[::2], y, 1.0, n)
    np.testing.assert_array_equal(big[::2], y)
    np.testing.assert_array_equal(big[1::2], 0)


SCALARS = r'''
struct Pair { double a; int b; };
extern "C" __global__ void scal(double *out, int i, unsigned int u, float f, double d, bool flag,
                                short s, unsigned long long big, Pair p, signed char c,
                                long long ll)
{
    out[0] = i; out[1] = u; out[2] = f; out[3] = d; out[4] = flag; out[5] = s;
    out[6] = (double)big; out[7] = p.a; out[8] = p.b; out[9] = c; out[10] = (double)ll;
}
'''


def test_scalars_reach_the_kernel_as_their_c_types():
    k = gpu.RawKernel(SCALARS, "scal")
    pair = np.zeros((), np.dtype([("a", "f8"), ("b", "i4")], align=True))
    pair["a"], pair["b"] = 2.5, -7
    args = [-5, 4000000000, 1.25, np.float32(0.1), np.True_, np.int8(-3), 2**63 + 5, pair[()],
            -128, np.int32(-2**31)]
    out = np.zeros(11)
    k[1, 1](out, *args)
    expect = [-5, 4000000000, 1.25, float(np.float32(0.1)), 1, -3, float(2**63 + 5), 2.5, -7,
              -128, -2**31]
    np.testing.assert_array_equal(out, expect)


TEMPLATE = r'''
template<typename T>
__global__ void axpy(T a, const T* x, T* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''


@pytest.mark.parametrize("dtype, expr", [(np.float32, "axpy<float>"), (np.float64, "axpy<double>"),
                                         (np.int32, "axpy<int>")])
def test_templates_through_name_expressions(dtype, expr):
    mod = gpu.RawModule(code=TEMPLATE, name_expressions=["axpy<float>", "axpy<double>",
                                                          "axpy<int>"])
    k = mod.get_function(expr)
    x = (np.arange(300) % 17).astype(dtype)
    y = (np.arange(300) % 5).astype(dtype)
    expect = dtype(3) * x + y
    k((2,), (256,), (dtype(3), x, y, 300))
    np.testing.assert_array_equal(y, expect)


SHARED = r'''
extern "C" __global__ void block_sums(const float *x, float *sums, int n)
{
    extern __shared__ float part[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    part[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0) sums[blockIdx.x] = part[0];
}
'''


def test_dynamic_shared_memory_and_streams():
    mod = gpu.SourceModule(SHARED, no_extern_c=True)
    k = mod.get_function("block_sums")
    x = np.random.rand(1000).astype(np.float32)
    sums = np.zeros(4, np.float32)
    k(x, sums, np.int32(1000), block=(256, 1, 1), grid=(4, 1), shared=256 * 4)
    np.testing.assert_allclose(sums, [x[i * 256:(i + 1) * 256].sum() for i in range(4)],
                               rtol=1e-5)
    s = gpu.stream()
    dx, dsums = gpu.to_device(x, stream=s), gpu.device_array(4, np.float32, stream=s)
    k((4,), (256,), (dx, dsums, 1000), shared_mem=1024, stream=s)
    s.synchronize()
    np.testing.assert_allclose(dsums.copy_to_host(), sums, rtol=1e-6)
    t = k(x, sums, np.int32(1000), block=(256, 1, 1), grid=(4, 1), shared=1024, time_kernel=True)
    assert isinstance(t, float) and t > 0


MODULE_STATE = r'''
__device__ int counter;
__constant__ float coeffs[4];
__global__ void count(int n) { if (threadIdx.x < n) atomicAdd(&counter, 1); }
__global__ void read(int *out, float *c)
{
    out[0] = counter;
    for (int i = 0; i < 4; i++) c[i] = coeffs[i];
}
'''


def test_module_variables_are_shared_by_its_kernels():
    mod = gpu.SourceModule(MODULE_STATE)
    ctr, size = mod.get_global("counter")
    assert size == 4
    ctr.copy_to_device(np.zeros(1, np.int32).view(np.uint8))
    coeffs, size = mod.get_global("coeffs")
    assert size == 16
    c = np.array([1.5, 2.5, 3.5, 4.5], np.float32)
    coeffs.copy_to_device(c.view(np.uint8))
    mod.get_function("count")(np.int32(100), block=(128, 1, 1), grid=(3, 1))
    out, back = np.zeros(1, np.int32), np.zeros(4, np.float32)
    mod.get_function("read")(out, back, block=(1, 1, 1))
    assert out[0] == 300
    np.testing.assert_array_equal(back, c)
    assert ctr.copy_to_host().view(np.int32)[0] == 300
    with pytest.raises(gpu.CudaError, match="no_such_variable"):
        mod.get_global("no_such_variable")


def test_foreign_arrays_in_place():
    """An object exposing only __cuda_array_interface__ is used in place, its dtype checked."""
    k = gpu.RawKernel(WRITES_ALL, "scale")
    d = gpu.to_device(np.ones(64, np.float32))

    class Foreign:
        def __init__(self, arr):
            self.__cuda_array_interface__ = arr.__cuda_array_interface__
            self.keep = arr
    k[1, 64](Foreign(d), Foreign(gpu.to_device(np.full(64, 2, np.float32))), 3.0, 64)
    np.testing.assert_array_equal(d.copy_to_host(), 5)
    with pytest.raises(TypeError, match="parameter 'x'.*float64"):
        k[1, 64](Foreign(gpu.to_device(np.ones(64))), d, 3.0, 64)


def test_cupy_arrays_and_cupys_own_raw_kernel_agree():
    cp = pytest.importorskip("cupy")
    src = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''
    ours = gpu.RawKernel(src, "saxpy")
    theirs = cp.RawKernel(src, "saxpy")
    x = cp.arange(1000, dtype=cp.float32)
    y1, y2 = cp.ones(1000, dtype=cp.float32), cp.ones(1000, dtype=cp.float32)
    ours((4,), (256,), (np.float32(2), x, y1, np.int32(1000)))
    theirs((4,), (256,), (np.float32(2), x, y2, np.int32(1000)))
    cp.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(cp.asnumpy(y1), cp.asnumpy(y2))


def test_attributes_and_errors_at_launch():
    k = gpu.RawKernel(WRITES_ALL, "scale")
    assert isinstance(k.num_regs, int) and k.num_regs > 0
    assert k.max_threads_per_block >= 256
    assert set(k.attributes) >= {"num_regs", "local_size_bytes"}
    with pytest.raises(ValueError, match="shared memory"):
        k[1, 32, 0, 10**7](np.zeros(32, np.float32), np.zeros(32, np.float32), 1.0, 32)
    with pytest.raises(TypeError, match="parameter 'n'"):
        k[1, 32](np.zeros(32, np.float32), np.zeros(32, np.float32), 1.0, 3.5)


def test_compiled_for_the_current_gpu_and_cached(tmp_path):
    mod = gpu.SourceModule(WRITES_ALL, cache_dir=str(tmp_path))
    cc = gpu.get_current_device().compute_capability
    assert mod.arch in (f"sm_{cc[0]}{cc[1]}",) or mod.arch.startswith("compute_")
    again = gpu.SourceModule(WRITES_ALL, cache_dir=str(tmp_path))
    assert again.cubin == mod.cubin
    x = np.zeros(8, np.float32)
    again.get_function("scale")[1, 8](x, np.ones(8, np.float32), 1.0, 8)
    np.testing.assert_array_equal(x, 1)
