"""Real CUDA C kernels written as Python strings, as PyCUDA and CuPy users write them, the import
switched to pyjit: PyCUDA's tutorial kernel that doubles a 4x4 array (through mem_alloc and
memcpy_htod/dtoh as the tutorial has it, through InOut and through a device array), its multiply_them with In/Out, CuPy's RawKernel my_add, a templated kernel of a
RawModule named through name expressions (CuPy's documented pattern, and MXNet's axpy<DType>),
the classic shared-memory tree reduction (the first kernel of NVIDIA's reduction talk), the
programming guide's tiled matrix product and a histogram with atomics. Each result is compared
with NumPy on the GPU (the `gpu` mark; skipped without one); without a GPU every source is still
compiled by NVRTC for sm_90, its PTX assembled by ptxas, and its parameters checked."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from util import assemble_ptx  # noqa: E402

from pyjit import gpu  # noqa: E402

DOUBLIFY = """
  __global__ void doublify(float *a)
  {
    int idx = threadIdx.x + threadIdx.y*4;
    a[idx] *= 2;
  }
  """

MULTIPLY_THEM = """
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
"""

MY_ADD = r'''
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
'''

TIMES_THREE = r'''
template<typename T>
__global__ void fx3(T* arr, int N) {
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < N) {
        arr[tid] = arr[tid] * 3;
    }
}
'''

AXPY = r'''
template<typename DType>
__global__ void axpy(const DType *x, DType *y, DType alpha) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    y[i] += alpha * x[i];
}
'''

REDUCE0 = r'''
__global__ void reduce0(int *g_idata, int *g_odata)
{
    extern __shared__ int sdata[];
    // each thread loads one element from global to shared mem
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = g_idata[i];
    __syncthreads();
    // do reduction in shared mem
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    // write result for this block to global mem
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
'''

MATMUL = r'''
#define TILE 16
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
'''

HISTOGRAM = r'''
extern "C" __global__ void histogram(const unsigned char *data, unsigned int *bins, size_t n)
{
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
'''


def _nvrtc():
    if gpu.SIMULATOR:
        pytest.skip("CUDA C needs the compiled GPU path (PYJIT_SIMULATOR is set)")
    from pyjit.gpu import _link
    try:
        _link._nvrtc()
    except RuntimeError:
        pytest.skip("no NVRTC (libnvrtc)")


# ---- without a GPU: every source compiles, assembles, and reads as its declaration says ----

@pytest.mark.parametrize("source, make, params", [
    (DOUBLIFY, lambda s, a: gpu.SourceModule(s, arch=a).get_function("doublify"),
     [("a", "float *", True)]),
    (MULTIPLY_THEM, lambda s, a: gpu.SourceModule(s, arch=a).get_function("multiply_them"),
     [("dest", "float *", True), ("a", "float *", True), ("b", "float *", True)]),
    (MY_ADD, lambda s, a: gpu.RawKernel(s, "my_add", arch=a),
     [("x1", "const float *", False), ("x2", "const float *", False), ("y", "float *", True)]),
    (TIMES_THREE, lambda s, a: gpu.RawModule(code=s, name_expressions=["fx3<double>"],
                                             arch=a).get_function("fx3<double>"),
     [("arr", "double *", True), ("N", "int", False)]),
    (AXPY, lambda s, a: gpu.RawKernel(s, "axpy<float>", arch=a),
     [("x", "const float *", False), ("y", "float *", True), ("alpha", "float", False)]),
    (REDUCE0, lambda s, a: gpu.SourceModule(s, arch=a).get_function("reduce0"),
     [("g_idata", "int *", True), ("g_odata", "int *", True)]),
    (MATMUL, lambda s, a: gpu.RawKernel(s, "matmul", arch=a),
     [("A", "const float *", False), ("B", "const float *", False), ("C", "float *", True),
      ("M", "int", False), ("N", "int", False), ("K", "int", False)]),
    (HISTOGRAM, lambda s, a: gpu.RawKernel(s, "histogram", arch=a),
     [("data", "const unsigned char *", False), ("bins", "unsigned int *", True),
      ("n", "size_t", False)]),
])
def test_sources_compile_without_a_gpu(source, make, params):
    _nvrtc()
    k = make(source, "sm_90")
    assert [(p.name, str(p.ctype), p.writes) for p in k.params] == params
    assert k.module.cubin[:4] == b"\x7fELF"
    assemble_ptx(make(source, "compute_90").module.ptx)


# ---- on the GPU, against NumPy ----

@pytest.mark.gpu
def test_pycuda_tutorial_doublify():
    """PyCUDA's tutorial as written there: untyped memory from mem_alloc, memcpy_htod and
    memcpy_dtoh, then the same through InOut and through a device array."""
    _nvrtc()
    import pyjit.gpu as cuda
    from pyjit.gpu import SourceModule
    import numpy
    a = numpy.random.randn(4, 4)
    a = a.astype(numpy.float32)
    a_gpu = cuda.mem_alloc(a.nbytes)
    cuda.memcpy_htod(a_gpu, a)
    mod = SourceModule(DOUBLIFY)
    func = mod.get_function("doublify")
    func(a_gpu, block=(4, 4, 1))
    a_doubled = numpy.empty_like(a)
    cuda.memcpy_dtoh(a_doubled, a_gpu)
    np.testing.assert_array_equal(a_doubled, 2 * a)
    b = a.copy()
    func(cuda.InOut(b), block=(4, 4, 1))
    np.testing.assert_array_equal(b, 2 * a)
    d = cuda.to_device(a)
    func(d, block=(4, 4, 1))
    np.testing.assert_array_equal(d.copy_to_host(), 2 * a)


@pytest.mark.gpu
def test_pycuda_multiply_them():
    _nvrtc()
    import pyjit.gpu as drv
    from pyjit.gpu import SourceModule
    mod = SourceModule(MULTIPLY_THEM)
    multiply_them = mod.get_function("multiply_them")
    a = np.random.randn(400).astype(np.float32)
    b = np.random.randn(400).astype(np.float32)
    dest = np.zeros_like(a)
    multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(dest, a * b)


@pytest.mark.gpu
def test_cupy_my_add():
    _nvrtc()
    add_kernel = gpu.RawKernel(MY_ADD, "my_add")
    x1 = np.arange(25, dtype=np.float32).reshape(5, 5)
    x2 = np.arange(25, dtype=np.float32).reshape(5, 5)
    y = np.zeros((5, 5), dtype=np.float32)
    add_kernel((5,), (5,), (x1, x2, y))
    np.testing.assert_array_equal(y, x1 + x2)


@pytest.mark.gpu
def test_raw_module_templates():
    _nvrtc()
    names = ("fx3<float>", "fx3<double>", "fx3<int>", "fx3<unsigned short>")
    mod = gpu.RawModule(code=TIMES_THREE, name_expressions=names)
    for name, dtype in zip(names, (np.float32, np.float64, np.int32, np.uint16)):
        arr = np.arange(1000).astype(dtype)
        d = gpu.to_device(arr)
        mod.get_function(name)((4,), (256,), (d, 1000))
        np.testing.assert_array_equal(d.copy_to_host(), (arr * 3).astype(dtype))


@pytest.mark.gpu
def test_axpy_template_float_and_double():
    _nvrtc()
    mod = gpu.RawModule(code=AXPY, name_expressions=["axpy<float>", "axpy<double>"])
    for name, dtype in (("axpy<float>", np.float32), ("axpy<double>", np.float64)):
        x = np.ones(10, dtype)
        y = np.zeros(10, dtype)
        mod.get_function(name)((1,), (10,), (x, y, dtype(3.0)))
        np.testing.assert_array_equal(y, 3 * x)


@pytest.mark.gpu
def test_shared_memory_reduction():
    _nvrtc()
    mod = gpu.SourceModule(REDUCE0)
    reduce0 = mod.get_function("reduce0")
    n, threads = 1 << 16, 256
    data = np.random.randint(-1000, 1000, n).astype(np.int32)
    partial = np.zeros(n // threads, np.int32)
    reduce0(gpu.In(data), gpu.Out(partial), block=(threads, 1, 1), grid=(n // threads, 1),
            shared=threads * 4)
    np.testing.assert_array_equal(partial, data.reshape(-1, threads).sum(axis=1))


@pytest.mark.gpu
def test_tiled_matmul():
    _nvrtc()
    k = gpu.RawKernel(MATMUL, "matmul")
    M, N, K = 100, 70, 130
    A = np.random.rand(M, K).astype(np.float32)
    B = np.random.rand(K, N).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    k(((N + 15) // 16, (M + 15) // 16), (16, 16), (A, B, C, M, N, K))
    np.testing.assert_allclose(C, A @ B, rtol=1e-4)


@pytest.mark.gpu
def test_histogram_with_atomics():
    _nvrtc()
    k = gpu.RawKernel(HISTOGRAM, "histogram")
    data = np.random.randint(0, 256, 1 << 20).astype(np.uint8)
    bins = np.zeros(256, np.uint32)
    k[64, 256](data, bins, data.size)
    np.testing.assert_array_equal(bins, np.bincount(data, minlength=256))
