"""numba-cuda kernels from public scientific codes, course material and numba-cuda's own documented
examples, the import switched to pyjit: in the interpreted simulator; in the compiled one, each
launch's kernel also compiled to PTX and assembled by ptxas (so that every kernel of a program is
compiled for the GPU, not only its first); and on the GPU when there is one (the `gpu` mark; it
skips without one).

Matrix products (naive, shared tiles, tiles carved out of one shared or dynamic shared array),
distance matrices (row views, chained indexing, asserts on the grid), heat, Laplace and wave
equation stencils, k-means steps with atomics on 2-d arrays, Mandelbrot sets over floats and
complex numbers, a sphere ray tracer into an RGB image, lattice Boltzmann collisions through local
arrays and device functions, elementary cellular automata, in-place tree reductions driven from
the host with device-array slicing, @cuda.reduce, CPU functions reused in kernels, captured
globals, spin locks through compare_and_swap, Hillis-Steele scans, odd-even sorts, GPU ufuncs
over device arrays; a neutron-scattering package's guide, box intersections and detector (rows
unpacked from and packed into slices, typed device signatures, a 2-d gufunc), a molecular
dynamics package's pair forces (njit'ed potentials, record parameters read by position, atomics
into views), a lattice Boltzmann solver's step with @cuda.reduce over column views, SPH
densities, Monte Carlo integration and Brownian paths from numba-cuda's generators, and the host
API tutorials use (device attributes, reshaped device arrays, pinned, mapped and managed memory,
events). Each result is compared with NumPy or plain Python.
"""
import cmath
import math
import os
import sys
import types

import numpy as np
import pytest

from pyjit import float32, float64, int32, uint8

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from util import assemble_ptx  # noqa: E402
from gpu_kernels import _ref_next, _ref_states, _ref_unit  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_science_kernels  # noqa: E402


def _ptx_backend():
    """The compiled simulator, its kernels first compiled to PTX for each launch's argument types
    and assembled by ptxas (where it is installed): every kernel a program launches is compiled
    for the GPU, and its results are still checked."""
    import importlib

    from pyjit import _core, _registry
    from pyjit.gpu._kernels import signature_args, with_defaults
    cpu = importlib.import_module("pyjit.gpu.cpu")
    if not hasattr(_core, "cuda_compile_ptx"):      # a pyjit built without GPU code generation
        return cpu
    # named as the compiled simulator's module: `cuda.laneid` is found by its attribute path
    mod = types.ModuleType("pyjit.gpu.cpu")
    for name in dir(cpu):
        if not name.startswith("__"):
            mod.__dict__[name] = getattr(cpu, name)
    mod.random = cpu.random
    mod.compiled = []

    class Kernel(cpu.Kernel):
        def __getitem__(self, cfg):
            launcher = super().__getitem__(cfg)
            kernel = self

            def launch(*args):
                args = with_defaults(kernel.py_func, args)
                # the types the GPU compiles for: a declared signature's, as its launch converts
                names = list(cpu._launch_types(
                    signature_args(kernel, args, cpu._launch_types) if kernel.signature
                    else args))
                literal = False
                if names not in kernel._ptx_done:
                    try:
                        compile_and_assemble(kernel, names)
                    except Exception as e:       # literally(): the version is keyed by value
                        if "literally(" not in str(e):
                            raise
                        literal = True
                result = launcher(*args)
                if literal:     # the types the launch compiled for, its literal values included
                    for names in kernel._versions():
                        if any(n.startswith("Literal[") for n in names) and \
                                list(names) not in kernel._ptx_done:
                            compile_and_assemble(kernel, list(names))
                return result
            return launch

    def compile_and_assemble(kernel, names):
        _registry.populate()
        ptx, entry, _ = _core.cuda_compile_ptx(kernel.py_func, _registry.REGISTRY, names)
        assert entry in ptx
        assemble_ptx(ptx)
        kernel._ptx_done.append(names)
        mod.compiled.append(kernel.__name__)

    def jit(func_or_sig=None, device=False, **options):
        if device or isinstance(func_or_sig, str) or \
                (func_or_sig is not None and not callable(func_or_sig)):
            made = cpu.jit(func_or_sig, device=device, **options)
            if device:
                return made

            def wrap(f):
                k = made(f)
                k.__class__ = Kernel
                k._ptx_done = []
                return k
            return wrap

        def make(f):
            k = cpu.jit(f, **options)
            k.__class__ = Kernel
            k._ptx_done = []
            return k
        return make(func_or_sig) if callable(func_or_sig) else make

    mod.jit = jit
    ufunc = importlib.import_module("pyjit.gpu.ufunc")
    mod.vectorize = lambda sigs=None, target="cuda", **kw: ufunc.vectorize(sigs, target,
                                                                          backend=mod, **kw)
    mod.guvectorize = lambda sigs, layout=None, target="cuda", **kw: ufunc.guvectorize(
        sigs, layout, target, backend=mod, **kw)
    mod.reduce = lambda f: ufunc.Reduce(f, backend=mod)
    return mod


@pytest.fixture(params=["simulator", "cpu_and_ptx", pytest.param("gpu", marks=pytest.mark.gpu)])
def cuda(request):
    """The interpreted simulator; the compiled one, every launch's kernel also compiled to PTX
    and assembled by ptxas; and the GPU."""
    import importlib

    import pyjit.gpu as g
    if request.param == "cpu_and_ptx":
        return _ptx_backend()
    if request.param == "simulator":
        return g if g.SIMULATOR and not g.SIMULATOR_CPU else \
            importlib.import_module("pyjit.gpu.simulator")
    if g.SIMULATOR or not g.is_available():
        pytest.skip("no GPU (or PYJIT_SIMULATOR set)")
    return g


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


# ---- naive products, as a course's exercise writes them twice (ENCCS hpda-python) ----

def test_matmul_naive_two_ways(cuda):
    @cuda.jit
    def matmul_kernel(A, B, C):
        i, j = cuda.grid(2)
        if i < C.shape[0] and j < C.shape[1]:
            tmp = 0.
            for k in range(A.shape[1]):
                tmp += A[i, k] * B[k, j]
            C[i, j] = tmp

    @cuda.jit
    def matmul_kernel2(A, B, C):
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bx = cuda.blockIdx.x
        by = cuda.blockIdx.y
        bw = cuda.blockDim.x
        bh = cuda.blockDim.y
        i = tx + bx * bw
        j = ty + by * bh
        if i < C.shape[0] and j < C.shape[1]:
            tmp = 0.
            for k in range(A.shape[1]):
                tmp += A[i, k] * B[k, j]
            C[i, j] = tmp

    rng = np.random.default_rng(1)
    A, B = rng.random((37, 23)), rng.random((23, 29))
    for kern in (matmul_kernel, matmul_kernel2):
        C = np.zeros((37, 29))
        kern[(_blocks(37, 8), _blocks(29, 8)), (8, 8)](A, B, C)
        np.testing.assert_allclose(C, A @ B, rtol=1e-12)


# ---- shared tiles, an int accumulator that becomes a float, an early return (course code) ----

TPB = 16


def test_fast_matmul_int_accumulator(cuda):
    @cuda.jit
    def fast_matmul(A, B, C):
        sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x
        if x >= C.shape[0] and y >= C.shape[1]:
            return
        tmp = 0
        for i in range(bpg):
            sA[tx, ty] = A[x, ty + i * TPB]
            sB[tx, ty] = B[tx + i * TPB, y]
            cuda.syncthreads()
            for j in range(TPB):
                tmp += sA[tx, j] * sB[j, ty]
            cuda.syncthreads()
        C[x, y] = tmp % 2

    rng = np.random.default_rng(2)
    n = 2 * TPB
    A = rng.integers(0, 3, (n, n)).astype(np.float32)
    B = rng.integers(0, 3, (n, n)).astype(np.float32)
    C = np.zeros((n, n), np.float32)
    fast_matmul[(2, 2), (TPB, TPB)](A, B, C)
    np.testing.assert_array_equal(C, (A.astype(np.int64) @ B.astype(np.int64)) % 2)


# ---- numba-cuda's documented tiled product: float32 accumulator, guards on every load ----

def test_docs_fast_matmul_guarded(cuda):
    @cuda.jit
    def fast_matmul(A, B, C):
        sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x
        tmp = float32(0.)
        for i in range(bpg):
            sA[ty, tx] = 0
            sB[ty, tx] = 0
            if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
                sA[ty, tx] = A[y, tx + i * TPB]
            if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
                sB[ty, tx] = B[ty + i * TPB, x]
            cuda.syncthreads()
            for j in range(TPB):
                tmp += sA[ty, j] * sB[j, tx]
            cuda.syncthreads()
        if y < C.shape[0] and x < C.shape[1]:
            C[y, x] = tmp

    rng = np.random.default_rng(3)
    A = rng.random((40, 40)).astype(np.float32)
    B = rng.random((40, 40)).astype(np.float32)
    dA, dB = cuda.to_device(A), cuda.to_device(B)
    dC = cuda.device_array((40, 40), np.float32)
    g = _blocks(40, TPB)
    fast_matmul[(g, g), (TPB, TPB)](dA, dB, dC)
    np.testing.assert_allclose(dC.copy_to_host(), A @ B, rtol=1e-5)


# ---- tiles carved out of one shared array by slicing (a lecture's notes on CUDA for Python) ----

TW = 8


def test_matmul_tiles_sliced_from_one_shared_array(cuda):
    @cuda.jit
    def matmul_k_numba(matrix_a, matrix_b, output_matrix):
        block_idx, block_dim, thread_idx = cuda.blockIdx, cuda.blockDim, cuda.threadIdx
        thread_col, thread_row = thread_idx.x, thread_idx.y
        row = block_idx.y * block_dim.y + thread_row
        col = block_idx.x * block_dim.x + thread_col
        height_a, width_a = matrix_a.shape
        height_b, width_b = matrix_b.shape
        shared_memory = cuda.shared.array(shape=(TW, TW * 2), dtype=np.float32)
        shared_matrix_a = shared_memory[:, :TW]
        shared_matrix_b = shared_memory[:, TW:]
        partial_sum = np.float32(0.0)
        for phase in range(math.ceil(width_a / TW)):
            index = phase * TW
            if row < height_a and index + thread_col < width_a:
                shared_matrix_a[thread_row, thread_col] = matrix_a[row, thread_col + index]
            else:
                shared_matrix_a[thread_row, thread_col] = 0.0
            if col < width_b and index + thread_row < height_b:
                shared_matrix_b[thread_row, thread_col] = matrix_b[thread_row + index, col]
            else:
                shared_matrix_b[thread_row, thread_col] = 0.0
            cuda.syncthreads()
            for i in range(TW):
                partial_sum += shared_matrix_a[thread_row, i] * shared_matrix_b[i, thread_col]
            cuda.syncthreads()
        if row < height_a and col < width_b:
            output_matrix[row, col] = partial_sum

    rng = np.random.default_rng(4)
    a = rng.random((19, 27)).astype(np.float32)
    b = rng.random((27, 13)).astype(np.float32)
    out = np.zeros((19, 13), np.float32)
    matmul_k_numba[(_blocks(13, TW), _blocks(19, TW)), (TW, TW)](a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5)


def test_matmul_dynamic_shared_split(cuda):
    @cuda.jit
    def matmul_dyn(matrix_a, matrix_b, output_matrix, tile_width):
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.y * cuda.blockDim.y + ty
        col = cuda.blockIdx.x * cuda.blockDim.x + tx
        h, w = matrix_a.shape
        shared = cuda.shared.array(0, dtype=np.float32)
        tsq = tile_width * tile_width
        sa, sb = shared[:tsq], shared[tsq:2 * tsq]
        acc = np.float32(0.0)
        for phase in range((w + tile_width - 1) // tile_width):
            k = phase * tile_width
            sa[ty * tile_width + tx] = matrix_a[row, k + tx] if row < h and k + tx < w else 0.0
            sb[ty * tile_width + tx] = matrix_b[k + ty, col] \
                if col < matrix_b.shape[1] and k + ty < w else 0.0
            cuda.syncthreads()
            for i in range(tile_width):
                acc += sa[ty * tile_width + i] * sb[i * tile_width + tx]
            cuda.syncthreads()
        if row < h and col < matrix_b.shape[1]:
            output_matrix[row, col] = acc

    rng = np.random.default_rng(5)
    a = rng.random((21, 18)).astype(np.float32)
    b = rng.random((18, 11)).astype(np.float32)
    out = cuda.device_array((21, 11), np.float32)
    tw = 8
    matmul_dyn[(_blocks(11, tw), _blocks(21, tw)), (tw, tw), 0, 2 * tw * tw * 4](a, b, out, tw)
    np.testing.assert_allclose(out.copy_to_host(), a @ b, rtol=1e-5)


# ---- squared distance matrix: row views, result[row][col], asserts on the grid (ETH workshop) ----

def test_distance_matrix_row_views(cuda):
    # its asserts are kept out of pytest's assertion rewriting, which would put lists in them
    distance_matrix = cuda_science_kernels.distance_matrix(cuda)

    rng = np.random.default_rng(6)
    pts = rng.random((12, 3))
    res = np.zeros((12, 12))
    distance_matrix[(12, 12), (1, 1)](pts, res)
    want = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(res, want, rtol=1e-12, atol=1e-15)


# ---- pairwise distances, the accumulator typed from the array's dtype (a GPU benchmark suite) ----

def test_pairwise_distance_dtype_type(cuda):
    @cuda.jit
    def _pairwise_distance_kernel(X1, X2, D):
        i, j = cuda.grid(2)
        if i < D.shape[0] and j < D.shape[1]:
            X2_cols = X2.shape[1]
            d = X1.dtype.type(0.0)
            for k in range(X2_cols):
                tmp = X1[i, k] - X2[j, k]
                d += tmp * tmp
            D[i, j] = math.sqrt(d)

    rng = np.random.default_rng(7)
    for dt in (np.float32, np.float64):
        X1, X2 = rng.random((20, 5)).astype(dt), rng.random((17, 5)).astype(dt)
        D = np.zeros((20, 17), dt)
        _pairwise_distance_kernel[(_blocks(20, 16), _blocks(17, 16)), (16, 16)](X1, X2, D)
        want = np.sqrt(((X1[:, None, :] - X2[None, :, :]) ** 2).sum(-1))
        np.testing.assert_allclose(D, want, rtol=1e-5 if dt == np.float32 else 1e-12)


# ---- heat equation, five-point stencil on device arrays swapped each step (ENCCS) ----

def test_heat_equation_evolve(cuda):
    @cuda.jit()
    def _evolve_kernel(curr, prev, a, dt, dx2, dy2):
        nx, ny = prev.shape
        i, j = cuda.grid(2)
        if ((i >= 1) and (i < nx - 1)
                and (j >= 1) and (j < ny - 1)):
            curr[i, j] = prev[i, j] + a * dt * (
                (prev[i + 1, j] - 2 * prev[i, j] + prev[i - 1, j]) / dx2 +
                (prev[i, j + 1] - 2 * prev[i, j] + prev[i, j - 1]) / dy2)

    rng = np.random.default_rng(8)
    field = rng.random((34, 20)) * 60
    a, dx, dy = 0.5, 0.01, 0.01
    dt = dx * dx * dy * dy / (2 * a * (dx * dx + dy * dy))
    cur, prev = cuda.to_device(field), cuda.to_device(field)
    want = field.copy()
    for _ in range(5):
        nx, ny = prev.shape
        tx, ty = (16, 16)
        bx, by = math.ceil(nx / tx), math.ceil(ny / ty)
        _evolve_kernel[(bx, by), (tx, ty)](cur, prev, a, dt, dx * dx, dy * dy)
        cur, prev = prev, cur
        new = want.copy()
        new[1:-1, 1:-1] = want[1:-1, 1:-1] + a * dt * (
            (want[2:, 1:-1] - 2 * want[1:-1, 1:-1] + want[:-2, 1:-1]) / (dx * dx) +
            (want[1:-1, 2:] - 2 * want[1:-1, 1:-1] + want[1:-1, :-2]) / (dy * dy))
        want = new
    np.testing.assert_allclose(prev.copy_to_host(), want, rtol=1e-12)


# ---- a Laplace sweep as a generalized ufunc over 2-d arrays, for the GPU (ENCCS) ----

def test_laplace_guvectorize_2d(cuda):
    @cuda.guvectorize(['void(float64[:,:],float64[:,:])'], '(m,n)->(m,n)', target='cuda')
    def lap2d_numba_gu_gpu(u, unew):
        M, N = u.shape
        for i in range(1, M - 1):
            for j in range(1, N - 1):
                unew[i, j] = 0.25 * (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1])

    rng = np.random.default_rng(9)
    u = rng.random((3, 12, 10))
    unew = np.zeros_like(u)
    lap2d_numba_gu_gpu(u, unew)
    want = np.zeros_like(u)
    want[:, 1:-1, 1:-1] = 0.25 * (u[:, 2:, 1:-1] + u[:, :-2, 1:-1] + u[:, 1:-1, 2:] +
                                  u[:, 1:-1, :-2])
    np.testing.assert_allclose(unew, want, rtol=1e-14)


# ---- image convolution, zero outside the image, an int accumulator (a GIS library's kernel) ----

def test_convolve_2d_zero_boundary(cuda):
    @cuda.jit
    def _convolve_2d_cuda(result, kernel, image):
        i, j = cuda.grid(2)
        image_rows, image_cols = image.shape
        if (i >= image_rows) or (j >= image_cols):
            return
        delta_rows = kernel.shape[0] // 2
        delta_cols = kernel.shape[1] // 2
        s = 0
        for k in range(kernel.shape[0]):
            for l in range(kernel.shape[1]):  # noqa: E741
                i_k = i - k + delta_rows
                j_l = j - l + delta_cols
                if (i_k >= 0) and (i_k < image_rows) and (j_l >= 0) and (j_l < image_cols):
                    s += kernel[k, l] * image[i_k, j_l]
        result[i, j] = s

    rng = np.random.default_rng(10)
    image = rng.random((30, 25)).astype(np.float32)
    kern = rng.random((5, 3)).astype(np.float32)
    result = np.zeros_like(image)
    _convolve_2d_cuda[(_blocks(30, 16), _blocks(25, 16)), (16, 16)](result, kern, image)
    padded = np.pad(image.astype(np.float64), ((2, 2), (1, 1)))
    want = np.zeros_like(result, dtype=np.float64)
    for k in range(5):
        for l in range(3):  # noqa: E741
            want += kern[k, l] * padded[4 - k:4 - k + 30, 2 - l:2 - l + 25]
    np.testing.assert_allclose(result, want, rtol=1e-5)


# ---- an in-place tree reduction driven from the host, device-array slices copied (HPC course) ----

def test_host_driven_tree_reduction(cuda):
    RTPB = 32

    @cuda.jit
    def reduce_kernel(data, out, n):
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        s = 1
        while s < cuda.blockDim.x:
            if tid % (2 * s) == 0 and i + s < n:
                data[i] += data[i + s]
            s *= 2
            cuda.syncthreads()
        if tid == 0:
            out[cuda.blockIdx.x] = data[i]

    def get_grid(n, tpb):
        return (n + (tpb - 1)) // tpb

    def reduce(x):
        n = len(x)
        bpg = get_grid(n, RTPB)
        out = cuda.device_array(bpg, dtype=x.dtype)
        while bpg > 1:
            reduce_kernel[bpg, RTPB](x, out, n)
            n = bpg
            bpg = get_grid(n, RTPB)
            x[:n] = out[:n]
        reduce_kernel[bpg, RTPB](x, out, n)
        return out

    rng = np.random.default_rng(11)
    numbers = rng.integers(0, 100, 5000).astype(np.float32)
    total = reduce(cuda.to_device(numbers)).copy_to_host()[0]
    assert total == numbers.astype(np.int64).sum()


# ---- a shared-memory reduction finished by one atomic add a block ----

RTPB_X = 128


def test_shared_reduction_atomic_finish(cuda):
    @cuda.jit
    def reduce_add_CU(X, out):
        n = len(X)
        i = (cuda.blockDim.x * cuda.blockIdx.x) + cuda.threadIdx.x
        X_shared = cuda.shared.array(RTPB_X, float32)
        if i < n:
            X_shared[cuda.threadIdx.x] = X[i]
        else:
            X_shared[cuda.threadIdx.x] = 0.0
        cuda.syncthreads()
        sum_block = cuda.blockDim.x // 2
        while sum_block >= 1:
            if cuda.threadIdx.x < sum_block:
                X_shared[cuda.threadIdx.x] += X_shared[cuda.threadIdx.x + sum_block]
            sum_block //= 2
            cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(out, 0, X_shared[0])

    rng = np.random.default_rng(12)
    X = rng.integers(0, 50, 3000).astype(np.float32)
    out = np.zeros(1, np.float32)
    reduce_add_CU[_blocks(len(X), RTPB_X), RTPB_X](X, out)
    assert out[0] == X.astype(np.int64).sum()


# ---- @cuda.reduce, as numba-cuda documents it, and a dot product built on it ----

def test_cuda_reduce_documented(cuda):
    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    A = (np.arange(1234, dtype=np.float64)) + 1
    expect = A.sum()
    got = sum_reduce(A)
    assert expect == got
    max_reduce = cuda.reduce(lambda a, b: max(a, b))
    rng = np.random.default_rng(13)
    v = rng.integers(-1000, 1000, 777).astype(np.int32)
    assert max_reduce(cuda.to_device(v), init=-5000) == v.max()
    assert sum_reduce(A, size=100) == A[:100].sum()


# ---- Mandelbrot: chained assignment, a while loop on two conditions, uint16 output ----

def test_mandelbrot_uint16(cuda):
    @cuda.jit
    def mandelbrot_kernel(xmin, xmax, ymin, ymax, img, max_iter, escape2):
        h, w = img.shape
        row, col = cuda.grid(2)
        if row >= h or col >= w: return  # noqa: E701
        x0 = xmin + (xmax - xmin) * col / w
        y0 = ymin + (ymax - ymin) * row / h
        x = y = 0.0; it = 0  # noqa: E702
        while x * x + y * y <= escape2 and it < max_iter:
            xt = x * x - y * y + x0
            y = 2.0 * x * y + y0
            x = xt; it += 1  # noqa: E702

        img[row, col] = it

    H, W, max_iter = 24, 36, 60
    img_dev = cuda.device_array((H, W), dtype=np.uint16)
    tpb = (16, 16)
    bpg = (math.ceil(H / tpb[0]), math.ceil(W / tpb[1]))
    mandelbrot_kernel[bpg, tpb](-2.0, 1.0, -1.2, 1.2, img_dev, max_iter, 4.0)
    want = np.zeros((H, W), np.uint16)
    for row in range(H):
        for col in range(W):
            x0 = -2.0 + 3.0 * col / W
            y0 = -1.2 + 2.4 * row / H
            x = y = 0.0
            it = 0
            while x * x + y * y <= 4.0 and it < max_iter:
                x, y = x * x - y * y + x0, 2.0 * x * y + y0
                it += 1
            want[row, col] = it
    np.testing.assert_array_equal(img_dev.copy_to_host(), want)


# ---- Mandelbrot over complex numbers in a device function with an explicit signature ----

def test_mandelbrot_complex_device_function(cuda):
    @cuda.jit('(uint32, float64, float64, float64, float64, uint32, uint32, uint32)',
              device=True)
    def mandel(tid, min_x, max_x, min_y, max_y, width, height, iters):
        pixel_size_x = (max_x - min_x) / width
        pixel_size_y = (max_y - min_y) / height
        x = tid % width
        y = tid / width
        real = min_x + x * pixel_size_x
        imag = min_y + y * pixel_size_y
        c = complex(real, imag)
        z = 0.0j
        for i in range(iters):
            z = z * z + c
            if (z.real * z.real + z.imag * z.imag) >= 4:
                return i
        return iters

    @cuda.jit
    def mandel_kernel(out, width, height, iters):
        tid = cuda.grid(1)
        if tid < out.size:
            out[tid] = mandel(tid, -2.0, 1.0, -1.0, 1.0, width, height, iters)

    width, height, iters = 20, 15, 40
    out = np.zeros(width * height, np.int64)
    mandel_kernel[_blocks(out.size, 64), 64](out, width, height, iters)
    want = np.zeros_like(out)
    for tid in range(out.size):
        x, y = tid % width, tid / width
        c = complex(-2.0 + x * (3.0 / width), -1.0 + y * (2.0 / height))
        z = 0j
        want[tid] = iters
        for i in range(iters):
            z = z * z + c
            if z.real * z.real + z.imag * z.imag >= 4:
                want[tid] = i
                break
    np.testing.assert_array_equal(out, want)


# ---- a CPU-jitted function reused in a kernel, launched with forall (numba-cuda docs) ----

def test_cpu_function_reused_in_kernel(cuda):
    import pyjit

    @pyjit.jit
    def business_logic(x, y, z):
        return 4 * z * (2 * x - (4 * y) / 2 * math.pi)

    @cuda.jit
    def f(res, xarr, yarr, zarr):
        tid = cuda.grid(1)
        if tid < len(xarr):
            res[tid] = business_logic(xarr[tid], yarr[tid], zarr[tid])

    X = np.array([1, 10, 234])
    Y = np.array([2, 2, 4014])
    Z = np.array([3, 14, 2211])
    results = cuda.to_device(np.array([0.0, 0.0, 0.0]))
    f.forall(len(X))(results, X, Y, Z)
    expect = [business_logic.py_func(x, y, z) for x, y, z in zip(X, Y, Z)]
    np.testing.assert_equal(expect, results.copy_to_host())


# ---- globals captured as constants at the first compilation (numba-cuda docs) ----

TAX_RATE = 0.08
PRICES = np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float64)


def test_globals_captured_as_constants(cuda):
    @cuda.jit
    def compute_totals(quantities, totals):
        i = cuda.grid(1)
        if i < totals.size:
            totals[i] = quantities[i] * PRICES[i] * (1 + TAX_RATE)

    q = cuda.to_device(np.array([1, 2, 3, 4, 5], dtype=np.float64))
    totals = cuda.device_array(5, dtype=np.float64)
    compute_totals[1, 32](q, totals)
    want = np.array([1, 2, 3, 4, 5]) * PRICES * (1 + TAX_RATE)
    np.testing.assert_allclose(totals.copy_to_host(), want)


# ---- a linear congruential generator as a device function (a physics group's sandbox) ----

def test_lcg_device_function(cuda):
    @cuda.jit(device=True)
    def lcg(x):
        a = 1664525
        b = 1013904223
        m = 2 ** 20
        return (a * x + b) % m

    @cuda.jit
    def kernel(out):
        x = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        if x < out.size:
            out[x] = lcg(x)

    n = 10
    out = np.zeros(n, dtype=np.int32)
    d_out = cuda.to_device(out)
    threads_per_block = 16
    blocks_per_grid = (n + threads_per_block - 1) // threads_per_block
    kernel[blocks_per_grid, threads_per_block](d_out)
    out = d_out.copy_to_host()
    np.testing.assert_array_equal(out, [(1664525 * x + 1013904223) % 2 ** 20 for x in range(n)])


# ---- k-means: nearest centroid, sums by atomics on 2-d arrays, new centroids (a benchmark) ----

def test_kmeans_iterations(cuda):
    @cuda.jit
    def groupByCluster(arrayP, arrayPcluster, arrayC, num_points, num_centroids):
        idx = cuda.grid(1)
        if idx < num_points:
            minor_distance = -1
            for i in range(num_centroids):
                dx = arrayP[idx, 0] - arrayC[i, 0]
                dy = arrayP[idx, 1] - arrayC[i, 1]
                my_distance = np.sqrt(dx * dx + dy * dy)
                if minor_distance > my_distance or minor_distance == -1:
                    minor_distance = my_distance
                    arrayPcluster[idx] = i

    @cuda.jit
    def calCentroidsSum(arrayP, arrayPcluster, arrayCsum, arrayCnumpoint, num_points):
        idx = cuda.grid(1)
        if idx < num_points:
            ci = arrayPcluster[idx]
            cuda.atomic.add(arrayCsum, (ci, 0), arrayP[idx, 0])
            cuda.atomic.add(arrayCsum, (ci, 1), arrayP[idx, 1])
            cuda.atomic.add(arrayCnumpoint, ci, 1)

    @cuda.jit
    def updateCentroids(arrayC, arrayCsum, arrayCnumpoint, num_centroids):
        i = cuda.grid(1)
        if i < num_centroids and arrayCnumpoint[i] > 0:
            arrayC[i, 0] = arrayCsum[i, 0] / arrayCnumpoint[i]
            arrayC[i, 1] = arrayCsum[i, 1] / arrayCnumpoint[i]

    rng = np.random.default_rng(14)
    P = np.round(rng.random((300, 2)) * 64) / 64     # sums exact in any order
    C0 = P[:4].copy()
    dP, dC = cuda.to_device(P), cuda.to_device(C0)
    dcl = cuda.device_array(300, np.int32)
    for _ in range(3):
        dsum = cuda.to_device(np.zeros((4, 2)))
        dcnt = cuda.to_device(np.zeros(4, np.int32))
        groupByCluster[_blocks(300, 64), 64](dP, dcl, dC, 300, 4)
        calCentroidsSum[_blocks(300, 64), 64](dP, dcl, dsum, dcnt, 300)
        updateCentroids[1, 32](dC, dsum, dcnt, 4)
    C = C0.copy()
    for _ in range(3):
        d = np.sqrt(((P[:, None, :] - C[None, :, :]) ** 2).sum(-1))
        cl = d.argmin(1)
        for k in range(4):
            if (cl == k).any():
                C[k] = P[cl == k].sum(0) / (cl == k).sum()
    np.testing.assert_array_equal(dcl.copy_to_host(), cl)
    np.testing.assert_allclose(dC.copy_to_host(), C, rtol=1e-14)


# ---- a sphere ray tracer into an RGB byte image (CUDA by Example's, as numba code) ----

INF = 2e10


def test_ray_traced_spheres(cuda):
    @cuda.jit(device=True)
    def hit(sphere, ox, oy):
        dx = ox - sphere[0]
        dy = oy - sphere[1]
        rad = sphere[3]
        if dx * dx + dy * dy < rad * rad:
            dz = math.sqrt(rad * rad - dx * dx - dy * dy)
            return dz + sphere[2], dz / math.sqrt(rad * rad)
        return -INF, 0.0

    @cuda.jit
    def render(spheres, image):
        x, y = cuda.grid(2)
        dim = image.shape[0]
        if x >= dim or y >= image.shape[1]:
            return
        ox = x - dim / 2
        oy = y - dim / 2
        r = g = b = 0.0
        maxz = -INF
        for k in range(spheres.shape[0]):
            t, n = hit(spheres[k], ox, oy)
            if t > maxz:
                fscale = n
                r = spheres[k, 4] * fscale
                g = spheres[k, 5] * fscale
                b = spheres[k, 6] * fscale
                maxz = t
        image[x, y, 0] = int(r * 255)
        image[x, y, 1] = int(g * 255)
        image[x, y, 2] = int(b * 255)
        image[x, y, 3] = 255

    rng = np.random.default_rng(15)
    dim, ns = 48, 6
    spheres = np.column_stack([rng.random(ns) * dim - dim / 2, rng.random(ns) * dim - dim / 2,
                               rng.random(ns) * 100 - 50, rng.random(ns) * 10 + 4,
                               rng.random((ns, 3))])
    image = cuda.device_array((dim, dim, 4), dtype=np.uint8)
    render[(3, 3), (16, 16)](spheres, image)
    want = np.zeros((dim, dim, 4), np.uint8)
    for x in range(dim):
        for y in range(dim):
            ox, oy = x - dim / 2, y - dim / 2
            r = g = b = 0.0
            maxz = -INF
            for s in spheres:
                dx, dy = ox - s[0], oy - s[1]
                if dx * dx + dy * dy < s[3] * s[3]:
                    dz = math.sqrt(s[3] * s[3] - dx * dx - dy * dy)
                    t, n = dz + s[2], dz / math.sqrt(s[3] * s[3])
                else:
                    t, n = -INF, 0.0
                if t > maxz:
                    r, g, b, maxz = s[4] * n, s[5] * n, s[6] * n, t
            want[x, y] = [int(r * 255), int(g * 255), int(b * 255), 255]
    np.testing.assert_array_equal(image.copy_to_host(), want)


# ---- lattice Boltzmann D2Q9: equilibria in local arrays, BGK as a device function over arrays
# (after a lattice Boltzmann solver's CUDA models) ----

Q = 9
CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)


def test_lattice_boltzmann_collide_stream(cuda):
    @cuda.jit(device=True)
    def BGK(f, f_new, f_eq, omega):
        for k in range(f.shape[0]):
            f[k] = (1 - omega) * f_new[k] + omega * f_eq[k]

    @cuda.jit
    def collide_stream(f, f_out, omega):
        i, j = cuda.grid(2)
        nx, ny = f.shape[0], f.shape[1]
        if i >= nx or j >= ny:
            return
        cx = cuda.const.array_like(CX)
        cy = cuda.const.array_like(CY)
        w = cuda.const.array_like(W)
        f_eq = cuda.local.array(Q, float64)
        f_post = cuda.local.array(Q, float64)
        rho = 0.0
        ux = 0.0
        uy = 0.0
        for k in range(Q):
            rho += f[i, j, k]
            ux += f[i, j, k] * cx[k]
            uy += f[i, j, k] * cy[k]
        ux /= rho
        uy /= rho
        usq = ux * ux + uy * uy
        for k in range(Q):
            cu = 3.0 * (cx[k] * ux + cy[k] * uy)
            f_eq[k] = w[k] * rho * (1.0 + cu + 0.5 * cu * cu - 1.5 * usq)
        BGK(f_post, f[i, j, :], f_eq, omega)
        for k in range(Q):
            f_out[(i + cx[k]) % nx, (j + cy[k]) % ny, k] = f_post[k]

    rng = np.random.default_rng(16)
    nx, ny = 20, 12
    f = W * (1 + 0.1 * rng.random((nx, ny, Q)))
    d_f, d_g = cuda.to_device(f), cuda.device_array_like(f)
    want = f.copy()
    omega = 1 / 0.8
    for _ in range(3):
        collide_stream[(_blocks(nx, 8), _blocks(ny, 8)), (8, 8)](d_f, d_g, omega)
        d_f, d_g = d_g, d_f
        rho = want.sum(-1)
        ux = (want * CX).sum(-1) / rho
        uy = (want * CY).sum(-1) / rho
        cu = 3.0 * (CX * ux[..., None] + CY * uy[..., None])
        feq = W * rho[..., None] * (1 + cu + 0.5 * cu * cu - 1.5 * (ux * ux + uy * uy)[..., None])
        post = (1 - omega) * want + omega * feq
        want = np.empty_like(post)
        for k in range(Q):
            want[..., k] = np.roll(np.roll(post[..., k], CX[k], 0), CY[k], 1)
    np.testing.assert_allclose(d_f.copy_to_host(), want, rtol=1e-12)
    np.testing.assert_allclose(d_f.copy_to_host().sum(), f.sum(), rtol=1e-12)


# ---- elementary cellular automaton, the rule's bits read by shifts (rule 30 and 110) ----

def test_elementary_cellular_automaton(cuda):
    @cuda.jit
    def step(cells, out, rule):
        i = cuda.grid(1)
        n = cells.shape[0]
        if i < n:
            left = cells[(i - 1) % n]
            right = cells[(i + 1) % n]
            idx = (left << 2) | (cells[i] << 1) | right
            out[i] = (rule >> idx) & 1

    rng = np.random.default_rng(17)
    for rule in (30, 110):
        cells = (rng.random(200) < 0.5).astype(np.uint8)
        a, b = cuda.to_device(cells), cuda.device_array_like(cells)
        want = cells.copy()
        for _ in range(20):
            step[_blocks(200, 64), 64](a, b, rule)
            a, b = b, a
            idx = (np.roll(want, 1) << 2) | (want << 1) | np.roll(want, -1)
            want = ((rule >> idx) & 1).astype(np.uint8)
        np.testing.assert_array_equal(a.copy_to_host(), want)


# ---- a 1-d wave equation with three buffers rotated on the host (a CUDA course's solver) ----

def test_wave_equation_three_buffers(cuda):
    @cuda.jit
    def wave_step(old, cur, new, courant_squared, left_value):
        tid = cuda.grid(1)
        n = cur.shape[0]
        while tid < n:
            if tid == 0:
                new[tid] = left_value
            elif tid == n - 1:
                new[tid] = 0.0
            else:
                new[tid] = 2 * cur[tid] - old[tid] + courant_squared * (
                    cur[tid + 1] - 2 * cur[tid] + cur[tid - 1])
            tid += cuda.blockDim.x * cuda.gridDim.x

    n = 300
    x = np.linspace(0, 1, n, dtype=np.float32)
    u0 = np.exp(-200 * (x - 0.5) ** 2).astype(np.float32)
    bufs = [cuda.to_device(u0), cuda.to_device(u0), cuda.device_array(n, np.float32)]
    c2 = np.float32(0.25)
    ref = [u0.copy(), u0.copy(), np.zeros(n, np.float32)]
    for t in range(10):
        left = np.float32(math.sin(t * 0.3))
        wave_step[2, 64](bufs[0], bufs[1], bufs[2], c2, left)
        bufs = [bufs[1], bufs[2], bufs[0]]
        old, cur, new = ref
        new[0], new[-1] = left, 0.0
        new[1:-1] = 2 * cur[1:-1] - old[1:-1] + c2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        ref = [cur, new, old]
    np.testing.assert_allclose(bufs[1].copy_to_host(), ref[1], rtol=1e-5, atol=1e-6)


# ---- one counter a block under a spin lock (compare_and_swap, threadfence, exch) ----

def test_spin_lock_compare_and_swap(cuda):
    @cuda.jit(device=True)
    def lock(mutex):
        while cuda.atomic.compare_and_swap(mutex, 0, 1) != 0:
            pass
        cuda.threadfence()

    @cuda.jit(device=True)
    def unlock(mutex):
        cuda.threadfence()
        cuda.atomic.exch(mutex, 0, 0)

    @cuda.jit
    def count_blocks(mutex, counter, order):
        if cuda.threadIdx.x == 0:
            lock(mutex)
            order[counter[0]] = cuda.blockIdx.x
            counter[0] += 1
            unlock(mutex)

    mutex = np.zeros(1, np.int32)
    counter = np.zeros(1, np.int32)
    order = np.full(16, -1, np.int32)
    count_blocks[16, 32](mutex, counter, order)
    assert counter[0] == 16 and mutex[0] == 0
    assert sorted(order.tolist()) == list(range(16))


def test_atomic_cas_2d_index(cuda):
    @cuda.jit
    def atomic_cas_2dim(res, old, ary, fill_val):
        gid = cuda.grid(2)
        if gid[0] < res.shape[0] and gid[1] < res.shape[1]:
            old[gid] = cuda.atomic.cas(res, gid, fill_val, ary[gid])

    rng = np.random.default_rng(18)
    res = rng.integers(0, 3, (10, 12)).astype(np.uint32)
    ary = rng.integers(10, 20, (10, 12)).astype(np.uint32)
    old = np.zeros_like(res)
    res0 = res.copy()
    atomic_cas_2dim[(2, 2), (8, 8)](res, old, ary, np.uint32(1))
    np.testing.assert_array_equal(old, res0)
    np.testing.assert_array_equal(res, np.where(res0 == 1, ary, res0))


# ---- Hillis-Steele inclusive scan, double-buffered in one shared array, block sums added ----

SCAN_TPB = 64


def test_hillis_steele_scan_two_passes(cuda):
    @cuda.jit
    def block_scan(x, out, block_sums):
        temp = cuda.shared.array(2 * SCAN_TPB, dtype=int32)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        pout, pin = 0, 1
        temp[tid] = x[i] if i < x.size else 0
        cuda.syncthreads()
        offset = 1
        while offset < SCAN_TPB:
            pout = 1 - pout
            pin = 1 - pout
            if tid >= offset:
                temp[pout * SCAN_TPB + tid] = temp[pin * SCAN_TPB + tid] + \
                    temp[pin * SCAN_TPB + tid - offset]
            else:
                temp[pout * SCAN_TPB + tid] = temp[pin * SCAN_TPB + tid]
            cuda.syncthreads()
            offset *= 2
        if i < x.size:
            out[i] = temp[pout * SCAN_TPB + tid]
        if tid == SCAN_TPB - 1:
            block_sums[cuda.blockIdx.x] = temp[pout * SCAN_TPB + tid]

    @cuda.jit
    def add_offsets(out, scanned_sums):
        i = cuda.grid(1)
        b = cuda.blockIdx.x
        if i < out.size and b > 0:
            out[i] += scanned_sums[b - 1]

    rng = np.random.default_rng(19)
    x = rng.integers(0, 10, 1000).astype(np.int32)
    nb = _blocks(x.size, SCAN_TPB)
    out = cuda.device_array(x.size, np.int32)
    sums = cuda.device_array(nb, np.int32)
    block_scan[nb, SCAN_TPB](x, out, sums)
    scanned = np.cumsum(sums.copy_to_host()).astype(np.int32)
    add_offsets[nb, SCAN_TPB](out, scanned)
    np.testing.assert_array_equal(out.copy_to_host(), np.cumsum(x))


# ---- odd-even transposition sort, one launch a phase over global memory ----

def test_odd_even_transposition_sort(cuda):
    @cuda.jit
    def odd_even_step(a, phase):
        i = cuda.grid(1)
        j = 2 * i + (phase & 1)
        if j + 1 < a.size:
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]

    rng = np.random.default_rng(20)
    v = rng.normal(size=301)
    d = cuda.to_device(v)
    for phase in range(v.size):
        odd_even_step[_blocks(v.size // 2 + 1, 64), 64](d, phase)
    np.testing.assert_array_equal(d.copy_to_host(), np.sort(v))


# ---- GPU ufuncs over device arrays, a scalar broadcast, out= given, device functions called ----

def test_vectorize_device_arrays_and_out(cuda):
    @cuda.jit(device=True)
    def cnd(d):
        A1, A2, A3 = 0.31938153, -0.356563782, 1.781477937
        A4, A5, RSQRT2PI = -1.821255978, 1.330274429, 0.39894228040143267793994605993438
        K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
        ret_val = (RSQRT2PI * math.exp(-0.5 * d * d) *
                   (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
        if d > 0:
            ret_val = 1.0 - ret_val
        return ret_val

    @cuda.vectorize(['float64(float64, float64, float64, float64, float64)'], target='cuda')
    def black_scholes_call(S, X, T, R, V):
        sqrtT = math.sqrt(T)
        d1 = (math.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
        d2 = d1 - V * sqrtT
        return S * cnd(d1) - X * math.exp(-R * T) * cnd(d2)

    def cnd_ref(d):
        K = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        r = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (
            K * (0.31938153 + K * (-0.356563782 + K * (1.781477937 + K * (
                -1.821255978 + K * 1.330274429)))))
        return np.where(d > 0, 1.0 - r, r)

    rng = np.random.default_rng(21)
    S = rng.uniform(5, 30, 500)
    X = rng.uniform(1, 100, 500)
    T = rng.uniform(0.25, 10, 500)
    dS, dX, dT = cuda.to_device(S), cuda.to_device(X), cuda.to_device(T)
    out = cuda.device_array(500)
    black_scholes_call(dS, dX, dT, 0.02, 0.30, out=out)
    d1 = (np.log(S / X) + (0.02 + 0.5 * 0.09) * T) / (0.30 * np.sqrt(T))
    d2 = d1 - 0.30 * np.sqrt(T)
    want = S * cnd_ref(d1) - X * np.exp(-0.02 * T) * cnd_ref(d2)
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-10)
    got = black_scholes_call(dS, dX, dT, 0.02, 0.30)
    np.testing.assert_allclose(got.copy_to_host(), want, rtol=1e-10)


# ---- a histogram by atomics in a grid-stride loop, bins from a float range ----

def test_histogram_grid_stride_atomics(cuda):
    @cuda.jit
    def histogram(x, xmin, xmax, histogram_out):
        nbins = histogram_out.shape[0]
        bin_width = (xmax - xmin) / nbins
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, x.shape[0], stride):
            bin_number = np.int32((x[i] - xmin) / bin_width)
            if bin_number >= 0 and bin_number < histogram_out.shape[0]:
                cuda.atomic.add(histogram_out, bin_number, 1)

    rng = np.random.default_rng(22)
    x = rng.normal(size=10000).astype(np.float32)
    h = np.zeros(20, np.int32)
    histogram[8, 64](x, np.float32(-3), np.float32(3), h)
    width = np.float32(6) / np.float32(20)
    b = ((x - np.float32(-3)) / width).astype(np.int32)
    want = np.bincount(b[(b >= 0) & (b < 20)], minlength=20)
    np.testing.assert_array_equal(h, want)


# ---- bit tricks: popc, brev, clz, ffs, fma, cbrt, and a vote, in one kernel ----

def test_intrinsics_bit_tricks(cuda):
    @cuda.jit
    def bits(x, ints, flts, votes):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            ints[i, 0] = cuda.popc(v)
            ints[i, 1] = cuda.clz(v)
            ints[i, 2] = cuda.ffs(v)
            ints[i, 3] = cuda.brev(v)
            f = float64(v)
            flts[i, 0] = cuda.fma(f, 0.5, 1.0)
            flts[i, 1] = cuda.cbrt(f)
        ballot = cuda.ballot_sync(0xffffffff, i < x.size and x[i % x.size] % 2 == 0)
        if cuda.laneid == 0:
            votes[i // cuda.warpsize] = ballot

    rng = np.random.default_rng(23)
    x = rng.integers(1, 2 ** 31 - 1, 64).astype(np.uint32)
    ints = np.zeros((64, 4), np.int64)
    flts = np.zeros((64, 2))
    votes = np.zeros(2, np.uint32)
    bits[2, 32](x, ints, flts, votes)
    bl = [bin(int(v)).count("1") for v in x]
    np.testing.assert_array_equal(ints[:, 0], bl)
    np.testing.assert_array_equal(ints[:, 1], [32 - int(v).bit_length() for v in x])
    np.testing.assert_array_equal(ints[:, 2], [(int(v) & -int(v)).bit_length() for v in x])
    np.testing.assert_array_equal(ints[:, 3], [int(format(int(v), "032b")[::-1], 2) for v in x])
    np.testing.assert_allclose(flts[:, 0], x * 0.5 + 1.0, rtol=1e-15)
    np.testing.assert_allclose(flts[:, 1], np.cbrt(x.astype(np.float64)), rtol=1e-15)
    for w in range(2):
        want = sum(1 << lane for lane in range(32) if x[w * 32 + lane] % 2 == 0)
        assert votes[w] == want


# ---- streams, pinned host memory, auto_synchronize, async copies in chunks ----

def test_pinned_stream_chunks(cuda):
    @cuda.jit
    def increment_by_one(an_array):
        pos = cuda.grid(1)
        if pos < an_array.size:
            an_array[pos] += 1

    data = np.arange(4096, dtype=np.float32)
    expect = data + 1
    stream = cuda.stream()
    with cuda.pinned(data):
        with stream.auto_synchronize():
            for k in range(4):
                part = data[k * 1024:(k + 1) * 1024]
                d = cuda.to_device(part, stream=stream)
                increment_by_one[8, 128, stream](d)
                d.copy_to_host(part, stream=stream)
    np.testing.assert_array_equal(data, expect)


# ---- kernels made by a factory, their constants closed over (a common configuration idiom) ----

def test_kernel_factory_closure_constants(cuda):
    def make_saxpy(alpha, offset):
        @cuda.jit
        def saxpy(x, y, out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = alpha * x[i] + y[i] + offset
        return saxpy

    rng = np.random.default_rng(24)
    x, y = rng.random(100), rng.random(100)
    for alpha, offset in ((2.0, 1), (-0.5, 3)):
        out = np.zeros(100)
        make_saxpy(alpha, offset)[4, 32](x, y, out)
        np.testing.assert_allclose(out, alpha * x + y + offset, rtol=1e-15)


# ---- eager signatures in their several spellings, and jit options ----

def test_signatures_and_options(cuda):
    @cuda.jit('void(float32[:], float32[:], float32)')
    def scale(x, out, s):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i] = x[i] * s

    @cuda.jit("void(float64[:,::1], float64)", fastmath=True)
    def shift2d(a, v):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] += v

    @cuda.jit(debug=True, opt=False)
    def negate(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = -a[i]

    @cuda.jit(lineinfo=True, max_registers=40)
    def square(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * a[i]

    x = np.arange(50, dtype=np.float32)
    out = np.zeros_like(x)
    scale[2, 32](x, out, np.float32(1.5))
    np.testing.assert_array_equal(out, x * np.float32(1.5))
    a = np.arange(12.0).reshape(3, 4)
    shift2d[(1, 1), (4, 4)](a, 0.5)
    np.testing.assert_array_equal(a, np.arange(12.0).reshape(3, 4) + 0.5)
    b = np.arange(10)
    negate[1, 16](b)
    square[1, 16](b)
    np.testing.assert_array_equal(b, np.arange(10) ** 2)


# ---- a 3x3 system solved per thread in 2-d local arrays (Gaussian elimination with pivoting) ----

def test_per_thread_3x3_solve_local_arrays(cuda):
    @cuda.jit(device=True)
    def solve3(A, b, x):
        for k in range(3):
            p = k
            for r in range(k + 1, 3):
                if abs(A[r, k]) > abs(A[p, k]):
                    p = r
            if p != k:
                for c in range(3):
                    A[k, c], A[p, c] = A[p, c], A[k, c]
                b[k], b[p] = b[p], b[k]
            for r in range(k + 1, 3):
                f = A[r, k] / A[k, k]
                for c in range(k, 3):
                    A[r, c] -= f * A[k, c]
                b[r] -= f * b[k]
        for k in range(2, -1, -1):
            s = b[k]
            for c in range(k + 1, 3):
                s -= A[k, c] * x[c]
            x[k] = s / A[k, k]

    @cuda.jit
    def batched_solve(mats, rhs, out):
        i = cuda.grid(1)
        if i >= mats.shape[0]:
            return
        A = cuda.local.array((3, 3), dtype=np.float64)
        b = cuda.local.array(3, dtype=np.float64)
        x = cuda.local.array(shape=3, dtype=float64)
        for r in range(3):
            b[r] = rhs[i, r]
            for c in range(3):
                A[r, c] = mats[i, r, c]
        solve3(A, b, x)
        for r in range(3):
            out[i, r] = x[r]

    rng = np.random.default_rng(25)
    mats = rng.normal(size=(70, 3, 3)) + 3 * np.eye(3)
    rhs = rng.normal(size=(70, 3))
    out = np.zeros_like(rhs)
    batched_solve[3, 32](mats, rhs, out)
    np.testing.assert_allclose(out, np.linalg.solve(mats, rhs[..., None])[..., 0], rtol=1e-10)


# ---- cell lists: each particle takes a slot by the old value atomic.add returns (MD codes) ----

def test_cell_list_by_atomic_slots(cuda):
    @cuda.jit
    def bin_particles(pos, cell_size, ncell, counts, cells):
        i = cuda.grid(1)
        if i < pos.shape[0]:
            cx = int(math.floor(pos[i, 0] / cell_size)) % ncell
            cy = int(math.floor(pos[i, 1] / cell_size)) % ncell
            cell = cx * ncell + cy
            slot = cuda.atomic.add(counts, cell, 1)
            if slot < cells.shape[1]:
                cells[cell, slot] = i

    rng = np.random.default_rng(26)
    pos = rng.random((500, 2)) * 10.0
    ncell = 5
    counts = np.zeros(ncell * ncell, np.int32)
    cells = np.full((ncell * ncell, 64), -1, np.int32)
    bin_particles[_blocks(500, 128), 128](pos, 2.0, ncell, counts, cells)
    cid = (np.floor(pos[:, 0] / 2.0).astype(int) % ncell) * ncell + \
        np.floor(pos[:, 1] / 2.0).astype(int) % ncell
    np.testing.assert_array_equal(counts, np.bincount(cid, minlength=ncell * ncell))
    for c in range(ncell * ncell):
        got = sorted(v for v in cells[c] if v >= 0)
        assert got == sorted(np.nonzero(cid == c)[0].tolist())


# ---- a per-thread integer hash on uint32 (PCG-style), masks and shifts in Numba's typing ----

def test_uint32_hash_noise(cuda):
    @cuda.jit(device=True)
    def pcg_hash(v):
        state = (v * np.uint32(747796405) + np.uint32(2891336453)) & 0xFFFFFFFF
        word = (((state >> ((state >> 28) + 4)) ^ state) * np.uint32(277803737)) & 0xFFFFFFFF
        return ((word >> 22) ^ word) & 0xFFFFFFFF

    @cuda.jit
    def noise(seed, out):
        i = cuda.grid(1)
        if i < out.size:
            h = pcg_hash(np.uint32(i) ^ seed)
            out[i] = h / 4294967296.0

    out = np.zeros(200)
    noise[2, 128](np.uint32(12345), out)

    def ref(v):
        state = (v * 747796405 + 2891336453) & 0xFFFFFFFF
        word = (((state >> ((state >> 28) + 4)) ^ state) * 277803737) & 0xFFFFFFFF
        return ((word >> 22) ^ word) & 0xFFFFFFFF
    np.testing.assert_array_equal(out, [ref(i ^ 12345) / 4294967296.0 for i in range(200)])


# ---- a naive DFT over complex128 arrays with cmath (a signal-processing exercise) ----

def test_naive_dft_complex(cuda):
    @cuda.jit
    def dft(x, X):
        k = cuda.grid(1)
        n = x.shape[0]
        if k < n:
            s = 0j
            for t in range(n):
                s += x[t] * cmath.exp(-2j * cmath.pi * k * t / n)
            X[k] = s

    rng = np.random.default_rng(27)
    x = rng.normal(size=64) + 1j * rng.normal(size=64)
    X = np.zeros_like(x)
    dft[2, 32](x, X)
    np.testing.assert_allclose(X, np.fft.fft(x), rtol=1e-9, atol=1e-9)


# ---- boolean masks, enumerate and zip over rows, a tuple of arrays as one argument ----

def test_bool_masks_enumerate_zip_tuple_args(cuda):
    @cuda.jit
    def masked_row_stats(arrays, mask, out):
        i = cuda.grid(1)
        a, b = arrays
        if i < a.shape[0]:
            best = -1
            acc = 0.0
            for j, (u, v) in enumerate(zip(a[i], b[i])):
                if mask[i, j]:
                    acc += u * v
                    best = j
            out[i, 0] = acc
            out[i, 1] = best

    rng = np.random.default_rng(28)
    a, b = rng.random((40, 7)), rng.random((40, 7))
    mask = rng.random((40, 7)) < 0.5
    out = np.zeros((40, 2))
    masked_row_stats[2, 32]((a, b), mask, out)
    np.testing.assert_allclose(out[:, 0], (a * b * mask).sum(1), rtol=1e-14)
    last = np.array([max([j for j in range(7) if mask[i, j]], default=-1) for i in range(40)])
    np.testing.assert_array_equal(out[:, 1], last)


# ---- device arrays: host-side element reads, slices, strided views, Fortran order ----

def test_device_array_views_into_kernels(cuda):
    @cuda.jit
    def add_index(a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] += i

    @cuda.jit
    def fill_colmajor(m):
        i, j = cuda.grid(2)
        if i < m.shape[0] and j < m.shape[1]:
            m[i, j] = i * 10 + j

    host = np.zeros(40)
    d = cuda.to_device(host)
    add_index[1, 64](d[10:30])
    add_index[1, 64](d[::4])
    want = np.zeros(40)
    want[10:30] += np.arange(20)
    want[::4] += np.arange(10)
    np.testing.assert_array_equal(d.copy_to_host(), want)
    assert d[12] == want[12] and len(d) == 40 and d.shape == (40,)
    np.testing.assert_array_equal(d[5:9].copy_to_host(), want[5:9])
    fm = cuda.to_device(np.zeros((6, 5), order="F"))
    fill_colmajor[(1, 1), (8, 8)](fm)
    np.testing.assert_array_equal(fm.copy_to_host(), np.add.outer(np.arange(6) * 10,
                                                                   np.arange(5)))
    back = np.empty(40)
    d.copy_to_host(back)
    d.copy_to_device(np.ones(40))
    np.testing.assert_array_equal(back, want)
    np.testing.assert_array_equal(d.copy_to_host(), np.ones(40))


# ---- 2-d grid-stride loops over an image larger than the grid ----

def test_grid_stride_2d(cuda):
    @cuda.jit
    def gamma(img, out, g):
        startx, starty = cuda.grid(2)
        gridx, gridy = cuda.gridsize(2)
        for i in range(startx, img.shape[0], gridx):
            for j in range(starty, img.shape[1], gridy):
                out[i, j] = math.pow(img[i, j] / 255.0, g) * 255.0

    rng = np.random.default_rng(29)
    img = rng.integers(0, 256, (70, 45)).astype(np.uint8)
    out = np.zeros(img.shape, np.float32)
    gamma[(2, 2), (8, 8)](img, out, 2.2)
    np.testing.assert_allclose(out, np.power(img / 255.0, 2.2) * 255.0, rtol=1e-6)


# ---- block votes through syncthreads_count / _or / _and ----

def test_syncthreads_votes(cuda):
    @cuda.jit
    def votes(x, out):
        i = cuda.grid(1)
        pos = x[i] > 0
        n = cuda.syncthreads_count(pos)
        anyneg = cuda.syncthreads_or(x[i] < 0)
        allpos = cuda.syncthreads_and(pos)
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x, 0] = n
            out[cuda.blockIdx.x, 1] = anyneg
            out[cuda.blockIdx.x, 2] = allpos

    x = np.ones(128, np.int32)
    x[5] = -2
    x[70] = 0
    out = np.zeros((4, 3), np.int32)
    votes[4, 32](x, out)
    blocks = x.reshape(4, 32)
    np.testing.assert_array_equal(out[:, 0], (blocks > 0).sum(1))
    np.testing.assert_array_equal(out[:, 1] != 0, (blocks < 0).any(1))
    np.testing.assert_array_equal(out[:, 2] != 0, (blocks > 0).all(1))


# ---- every kind of atomic a statistics kernel uses: max, min, sub, and/or/xor, inc, dec ----

def test_atomic_statistics(cuda):
    @cuda.jit
    def stats(x, fl, it, flags):
        i = cuda.grid(1)
        if i < x.size:
            cuda.atomic.max(fl, 0, x[i])
            cuda.atomic.min(fl, 1, x[i])
            v = int(x[i] * 100)
            cuda.atomic.sub(it, 0, v)
            cuda.atomic.or_(flags, 0, 1 << (v % 31))
            cuda.atomic.and_(flags, 1, ~(1 << (v % 31)))
            cuda.atomic.xor(flags, 2, v)
            cuda.atomic.inc(flags, 3, 9)
            cuda.atomic.dec(flags, 4, 9)

    rng = np.random.default_rng(30)
    x = rng.random(300)
    fl = np.array([-np.inf, np.inf])
    it = np.zeros(1, np.int64)
    flags = np.array([0, 0xFFFFFFFF, 0, 0, 0], np.uint32)
    stats[3, 128](x, fl, it, flags)
    v = (x * 100).astype(np.int64)
    assert fl[0] == x.max() and fl[1] == x.min() and it[0] == -v.sum()
    o = a = 0
    for k in v:
        o |= 1 << (k % 31)
    a = 0xFFFFFFFF
    for k in v:
        a &= ~(1 << (k % 31)) & 0xFFFFFFFF
    xr = np.bitwise_xor.reduce(v.astype(np.uint32))
    inc = dec = 0
    for _ in v:
        inc = 0 if inc >= 9 else inc + 1
        dec = 9 if dec == 0 or dec > 9 else dec - 1
    np.testing.assert_array_equal(flags, [o, a, xr, inc, dec])


# ---- math functions a physics kernel reaches for, with ints and floats mixed ----

def test_math_mix(cuda):
    @cuda.jit
    def polar(xy, out, iout):
        i = cuda.grid(1)
        if i < xy.shape[0]:
            x, y = xy[i, 0], xy[i, 1]
            out[i, 0] = math.hypot(x, y)
            out[i, 1] = math.atan2(y, x)
            out[i, 2] = math.erf(x) + math.erfc(y)
            out[i, 3] = math.copysign(x ** 2, y) + math.fmod(x * 10, 3)
            out[i, 4] = x // 0.3 + y % 0.7
            out[i, 5] = max(x, y, 0.25) - min(x, y, -0.25)
            out[i, 6] = math.isinf(x * 1e308 * 10) + math.isnan(math.nan * x)
            iout[i, 0] = math.floor(x * 7)
            iout[i, 1] = math.ceil(y * 7)
            iout[i, 2] = round(x * 5)
            iout[i, 3] = abs(int(x * 100) - 50) // 3 + (-7) // 2 + (-7) % 3
            m, e = math.frexp(x)
            out[i, 7] = math.ldexp(m, e + 3) + m
            iout[i, 4] = e

    rng = np.random.default_rng(31)
    xy = rng.uniform(-3, 3, (50, 2))
    out = np.zeros((50, 8))
    iout = np.zeros((50, 5), np.int64)
    polar[1, 64](xy, out, iout)
    x, y = xy[:, 0], xy[:, 1]
    erf = np.vectorize(math.erf)
    erfc = np.vectorize(math.erfc)
    with np.errstate(all="ignore"):
        want = np.column_stack([
            np.hypot(x, y), np.arctan2(y, x), erf(x) + erfc(y),
            np.copysign(x ** 2, y) + np.fmod(x * 10, 3), x // 0.3 + y % 0.7,
            np.maximum(np.maximum(x, y), 0.25) - np.minimum(np.minimum(x, y), -0.25),
            np.isinf(x * 1e308 * 10).astype(float) + np.isnan(np.nan * x),
            x * 8 + np.frexp(x)[0]])
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-14)
    wanti = np.column_stack([np.floor(x * 7), np.ceil(y * 7), np.round(x * 5),
                             np.abs((x * 100).astype(np.int64) - 50) // 3 + (-7) // 2 + (-7) % 3,
                             np.frexp(x)[1]])
    np.testing.assert_array_equal(iout, wanti)


# ---- device functions calling device functions defined later, with default arguments ----

def test_device_function_chain_and_defaults(cuda):
    @cuda.jit(device=True)
    def smoothstep(e0, e1, x, clamp_lo=0.0):
        t = clamp((x - e0) / (e1 - e0), clamp_lo, 1.0)
        return t * t * (3 - 2 * t)

    @cuda.jit(device=True)
    def clamp(v, lo, hi):
        return lo if v < lo else hi if v > hi else v

    @cuda.jit
    def apply(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = smoothstep(0.2, 0.8, x[i]) + smoothstep(0.0, 1.0, x[i], 0.5)

    x = np.linspace(-0.5, 1.5, 90)
    out = np.zeros_like(x)
    apply[2, 64](x, out)

    def ss(e0, e1, v, lo=0.0):
        t = np.clip((v - e0) / (e1 - e0), lo, 1.0)
        return t * t * (3 - 2 * t)
    np.testing.assert_allclose(out, ss(0.2, 0.8, x) + ss(0.0, 1.0, x, 0.5), rtol=1e-14)


# ---- mcvine's accelerated neutron components (cuda_science_kernels.py) ----

def _neutrons(rng, n):
    nt = np.zeros((n, 10))
    nt[:, 0:2] = rng.uniform(-0.04, 0.04, (n, 2))
    nt[:, 2] = -0.01
    nt[:, 3:5] = rng.normal(0, 30, (n, 2))
    nt[:, 5] = rng.uniform(1500, 3000, n)
    nt[:, 8] = rng.uniform(0, 1e-3, n)
    nt[:, 9] = 1.0
    return nt


def test_neutron_guide_bounces(cuda):
    kernel = cuda_science_kernels.guide_kernel(cuda)
    params = (0.5 * (0.03 - 0.05), 0.5 * (0.03 - 0.05), 0.025, 0.025, 2.0,
              0.99, 0.0219, 6.07, 2.0, 0.003)
    rng = np.random.default_rng(32)
    neutrons = _neutrons(rng, 300)
    d = cuda.to_device(neutrons)
    kernel[math.ceil(300 / 128), 128](*params, d)
    ref = cuda_science_kernels.guide_propagate(lambda f: f)
    want = neutrons.copy()
    for row in want:
        ref(*params, row)
    got = d.copy_to_host()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-15)
    assert 0 < (got[:, -1] > 0).sum() < 300


def test_box_intersections_gufunc(cuda):
    gu = cuda_science_kernels.box_gufunc(cuda)
    rng = np.random.default_rng(33)
    n = 64
    x, y, z = (rng.uniform(-0.2, 0.2, n).astype(np.float32) for _ in range(3))
    vx, vy, vz = (rng.normal(size=n).astype(np.float32) for _ in range(3))
    vx[:5] = 0
    ts = np.zeros((n, 2), np.float32)
    gu(x, y, z, vx, vy, vz, np.float32(0.1), np.float32(0.2), np.float32(0.3),
       np.zeros(2, np.float32), ts)
    ref = cuda_science_kernels.box_intersections(lambda f: f, lambda sig: (lambda f: f))
    want = np.array([ref(*(np.float32(a) for a in (x[i], y[i], z[i], vx[i], vy[i], vz[i])),
                         np.float32(0.1), np.float32(0.2), np.float32(0.3))
                     for i in range(n)], np.float32)
    np.testing.assert_allclose(ts, want, rtol=1e-5)
    assert np.isfinite(ts).any() and np.isnan(ts).any()


def test_psd_monitor_3d_atomics(cuda):
    monitor = cuda_science_kernels.psd_monitor(cuda, float64)
    rng = np.random.default_rng(34)
    neutrons = _neutrons(rng, 500)
    neutrons[:, 9] = rng.choice([-1.0, 0.5, 1.0, 2.0], 500)   # whole numbers: sums exact
    limits = np.array([-0.05, 0.05, -0.05, 0.05])
    out = np.zeros((3, 10, 12))
    monitor[4, 128](neutrons, limits, 10, 12, out)
    want = np.zeros_like(out)
    for nt in neutrons:
        p = nt[9]
        if p <= 0:
            continue
        dt = -nt[2] / nt[5]
        x, y, t = nt[0] + nt[3] * dt, nt[1] + nt[4] * dt, nt[8] + dt
        if nt[8] > t or not (-0.05 < x < 0.05 and -0.05 < y < 0.05):
            continue
        ix = int(math.floor((x + 0.05) / 0.1 * 10))
        iy = int(math.floor((y + 0.05) / 0.1 * 12))
        want[:, ix, iy] += (1, p, p * p)
    np.testing.assert_array_equal(out, want)


# ---- gamdpy's brute-force pair forces: njit'ed potentials with a shifted-force cutoff, records
# of per-type parameters read by position (p[0], p[-1]), a periodic box, 2-d blocks whose
# threadIdx.y splits the partners, atomics into a view of a 3-d array of vectors ----

def _lj_12_6(dist, params):
    A12 = params[0]
    A6 = params[1]
    invDist = float32(1.0) / dist
    u = A12 * invDist ** 12 + A6 * invDist ** 6
    s = float32(12.0) * A12 * invDist ** 14 + float32(6.0) * A6 * invDist ** 8
    umm = float32(156.0) * A12 * invDist ** 14 + float32(42.0) * A6 * invDist ** 8
    return u, s, umm


def _apply_shifted_force_cutoff(pair_potential):
    import pyjit
    pair_pot = pyjit.njit(pair_potential)

    def potential(dist, params):
        cut = params[-1]
        if dist > cut:
            return float32(0.0), float32(0.0), float32(0.0)
        u, s, umm = pair_pot(dist, params)
        u_cut, s_cut, umm_cut = pair_pot(cut, params)
        u -= u_cut - s_cut * cut * (dist - cut)
        s -= s_cut * cut / dist
        return u, s, umm
    return potential


def test_gamdpy_pair_forces(cuda):
    import pyjit
    D, num_part, pb, tp = 3, 60, 16, 4
    r_id, f_id, u_id, w_id = 0, 1, 0, 1
    num_cscalars = 2
    compute_u = compute_w = True
    pairpotential_function = pyjit.njit(_apply_shifted_force_cutoff(_lj_12_6))
    virial_factor = float32(0.5 / D)

    def pairpotential_calculator(ij_dist, ij_params, dr, my_f, cscalars):
        u, s, umm = pairpotential_function(ij_dist, ij_params)
        half = float32(0.5)
        for k in range(D):
            my_f[k] = my_f[k] - dr[k] * s
            if compute_w:
                cscalars[w_id] += dr[k] * dr[k] * s * virial_factor
        if compute_u:
            cscalars[u_id] += half * u

    def dist_sq_dr_function(ri, rj, sim_box, dr):
        dist_sq = float32(0.0)
        for k in range(D):
            dr[k] = ri[k] - rj[k]
            box_k = sim_box[k]
            dr[k] += (-box_k if float32(2.0) * dr[k] > +box_k else
                      (+box_k if float32(2.0) * dr[k] < -box_k else float32(0.0)))
            dist_sq = dist_sq + dr[k] * dr[k]
        return dist_sq

    def ptype_function(pid, ptype_array):
        return ptype_array[pid]

    def params_function(i_type, j_type, params):
        return params[i_type, j_type]

    pairpotential_calculator = pyjit.njit(pairpotential_calculator)
    dist_sq_dr_function = pyjit.njit(dist_sq_dr_function)
    ptype_function = pyjit.njit(ptype_function)
    params_function = pyjit.njit(params_function)

    @cuda.jit(device=False)
    def calc_forces(vectors, cscalars, ptype, sim_box, params):
        my_block = cuda.blockIdx.x
        local_id = cuda.threadIdx.x
        global_id = my_block * pb + local_id
        my_t = cuda.threadIdx.y
        my_f = cuda.local.array(shape=D, dtype=float32)
        my_dr = cuda.local.array(shape=D, dtype=float32)
        my_cscalars = cuda.local.array(shape=num_cscalars, dtype=float32)
        if global_id < num_part:
            for k in range(D):
                my_f[k] = float32(0.0)
            for k in range(num_cscalars):
                my_cscalars[k] = float32(0.0)
            my_type = ptype_function(global_id, ptype)
        cuda.syncthreads()
        if global_id < num_part:
            for other_id in range(my_t, num_part, tp):
                if other_id != global_id:
                    other_type = ptype_function(other_id, ptype)
                    dist_sq = dist_sq_dr_function(vectors[r_id][other_id],
                                                  vectors[r_id][global_id], sim_box, my_dr)
                    ij_params = params_function(my_type, other_type, params)
                    cut = ij_params[-1]
                    if dist_sq < cut * cut:
                        pairpotential_calculator(math.sqrt(dist_sq), ij_params, my_dr, my_f,
                                                 my_cscalars)
            for k in range(D):
                cuda.atomic.add(vectors[f_id], (global_id, k), my_f[k])
            for k in range(num_cscalars):
                cuda.atomic.add(cscalars, (global_id, k), my_cscalars[k])
        return

    rng = np.random.default_rng(35)
    box = np.full(D, 4.5, np.float32)
    grid = np.stack(np.meshgrid(*[np.arange(4)] * 3, indexing="ij"), -1).reshape(-1, 3)[:num_part]
    pos = (grid * 1.1 + rng.uniform(-0.05, 0.05, (num_part, D))).astype(np.float32)
    vectors = np.zeros((2, num_part, D), np.float32)
    vectors[r_id] = pos
    ptype = (np.arange(num_part) % 2).astype(np.int32)
    A = [[(4.0, -4.0, 2.5), (4.4, -4.2, 2.0)], [(4.4, -4.2, 2.0), (3.0, -3.5, 2.2)]]
    params = np.zeros((2, 2), dtype="f,f,f")
    for i in range(2):
        for j in range(2):
            params[i, j] = A[i][j]
    cscalars = np.zeros((num_part, num_cscalars), np.float32)
    d_vectors = cuda.to_device(vectors)
    d_cscalars = cuda.to_device(cscalars)
    num_blocks = (num_part - 1) // pb + 1
    calc_forces[num_blocks, (pb, tp)](d_vectors, d_cscalars, ptype, box, cuda.to_device(params))

    # the same forces in float64 NumPy
    dr = pos[:, None, :].astype(np.float64) - pos[None, :, :]
    dr -= box * np.round(dr / box)
    dist = np.sqrt((dr ** 2).sum(-1))
    np.fill_diagonal(dist, np.inf)
    p = np.array([[A[ptype[i]][ptype[j]] for j in range(num_part)] for i in range(num_part)])
    A12, A6, cut = p[..., 0], p[..., 1], p[..., 2]

    def lj(r):
        return A12 / r ** 12 + A6 / r ** 6, 12 * A12 / r ** 14 + 6 * A6 / r ** 8
    u, s = lj(dist)
    uc, sc = lj(cut)
    inside = dist < cut
    u = np.where(inside, u - (uc - sc * cut * (dist - cut)), 0)
    s = np.where(inside, s - sc * cut / dist, 0)
    force = (dr * s[..., None]).sum(1)
    out = d_vectors.copy_to_host()
    np.testing.assert_allclose(out[f_id], force, rtol=2e-3, atol=2e-3 * np.abs(force).max())
    cs = d_cscalars.copy_to_host()
    np.testing.assert_allclose(cs[:, 0], 0.5 * u.sum(1), rtol=2e-3, atol=1e-3)
    np.testing.assert_allclose(cs[:, 1], ((dr ** 2).sum(-1) * s).sum(1) * 0.5 / D,
                               rtol=2e-3, atol=1e-3)
    assert inside.sum() > num_part


# ---- pylabolt's lattice Boltzmann step on flat cell indices: equilibria and BGK as device
# functions on row views, fields with residues reduced by @cuda.reduce over column views, and
# streaming with bounce-back at solid cells ----

def test_pylabolt_lbm_steps(cuda):
    @cuda.jit(device=True)
    def secondOrder(f_eq, u, rho, cs_2, cs_4, c, w):
        u_2 = u[0] * u[0] + u[1] * u[1]
        for k in range(f_eq.shape[0]):
            cu = c[k, 0] * u[0] + c[k, 1] * u[1]
            f_eq[k] = w[k] * rho * (1 + cs_2 * cu +
                                    0.5 * cs_4 * cu * cu -
                                    0.5 * cs_2 * u_2)

    @cuda.jit(device=True)
    def BGK(f, f_new, f_eq, omega):
        for k in range(f.shape[0]):
            f[k] = (1 - omega) * f_new[k] + omega * f_eq[k]

    @cuda.jit
    def equilibriumRelaxation_cuda(Nx, Ny, f_eq, f, f_new, u, rho, solid, preFactor, cs_2,
                                   cs_4, c, w, equilibriumType, collisionType):
        ind = cuda.grid(1)
        if ind < Nx * Ny:
            if solid[ind] != 1:
                if equilibriumType == 2:
                    secondOrder(f_eq[ind, :], u[ind, :], rho[ind], cs_2, cs_4, c, w)
                if collisionType == 1:
                    BGK(f[ind, :], f_new[ind, :], f_eq[ind, :], preFactor)
        else:
            return

    @cuda.reduce
    def residueReduce(a, b):
        return a + b

    @cuda.jit
    def computeFields_cuda(Nx, Ny, f_new, u, rho, solid, c, noOfDirections, u_old, rho_old,
                           u_sq, u_err_sq, rho_sq, rho_err_sq):
        ind = cuda.grid(1)
        if ind < Nx * Ny:
            if solid[ind] != 1:
                rhoSum = 0.
                uSum = 0.
                vSum = 0.
                for k in range(noOfDirections):
                    rhoSum += f_new[ind, k]
                    uSum += c[k, 0] * f_new[ind, k]
                    vSum += c[k, 1] * f_new[ind, k]
                rho[ind] = rhoSum
                u[ind, 0] = uSum / (rho[ind] + 1e-9)
                u[ind, 1] = vSum / (rho[ind] + 1e-9)
                u_err_sq[ind, 0] = (u[ind, 0] - u_old[ind, 0]) * \
                    (u[ind, 0] - u_old[ind, 0])
                u_sq[ind, 0] = u_old[ind, 0] * u_old[ind, 0]
                u_err_sq[ind, 1] = (u[ind, 1] - u_old[ind, 1]) * \
                    (u[ind, 1] - u_old[ind, 1])
                u_sq[ind, 1] = u_old[ind, 1] * u_old[ind, 1]
                rho_err_sq[ind] = (rho[ind] - rho_old[ind]) * \
                    (rho[ind] - rho_old[ind])
                rho_sq[ind] = rho_old[ind] * rho_old[ind]
                u_old[ind, 0] = u[ind, 0]
                u_old[ind, 1] = u[ind, 1]
                rho_old[ind] = rho[ind]
        else:
            return

    @cuda.jit
    def stream_cuda(Nx, Ny, f, f_new, c, noOfDirections, invList, solid):
        ind = cuda.grid(1)
        if ind < Nx * Ny:
            i, j = np.int32(ind / Ny), np.int32(ind % Ny)
            for k in range(noOfDirections):
                i_old = (i - np.int32(c[k, 0])
                         + Nx) % Nx
                j_old = (j - np.int32(c[k, 1])
                         + Ny) % Ny
                if solid[i_old * Ny + j_old] != 1:
                    f_new[ind, k] = f[i_old * Ny + j_old, k]
                elif solid[i_old * Ny + j_old] == 1:
                    f_new[ind, k] = f[ind, invList[k]]
        else:
            return

    Nx, Ny, Q = 12, 10, 9
    c = np.column_stack([CX, CY]).astype(np.float64)
    invList = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6], np.int32)
    solid = np.zeros(Nx * Ny, np.int32)
    solid.reshape(Nx, Ny)[:, 0] = 1
    solid.reshape(Nx, Ny)[:, -1] = 1
    rng = np.random.default_rng(36)
    rho = 1 + 0.05 * rng.random(Nx * Ny)
    u = 0.02 * rng.normal(size=(Nx * Ny, 2))
    cs_2, cs_4, omega = 3.0, 9.0, 1 / 0.9

    def feq_ref(u, rho):
        cu = u @ c.T
        return W * rho[:, None] * (1 + cs_2 * cu + 0.5 * cs_4 * cu * cu -
                                   0.5 * cs_2 * (u * u).sum(1)[:, None])
    f_new = feq_ref(u, rho)
    dev = {k: cuda.to_device(v) for k, v in dict(
        f_eq=np.zeros((Nx * Ny, Q)), f=np.zeros((Nx * Ny, Q)), f_new=f_new, u=u, rho=rho,
        u_old=u.copy(), rho_old=rho.copy(), u_sq=np.zeros((Nx * Ny, 2)),
        u_err_sq=np.zeros((Nx * Ny, 2)), rho_sq=np.zeros(Nx * Ny),
        rho_err_sq=np.zeros(Nx * Ny)).items()}
    blocks = _blocks(Nx * Ny, 64)
    ref_f, ref_u, ref_rho = f_new.copy(), u.copy(), rho.copy()
    fluid = solid != 1
    for step in range(3):
        equilibriumRelaxation_cuda[blocks, 64](Nx, Ny, dev["f_eq"], dev["f"], dev["f_new"],
                                               dev["u"], dev["rho"], solid, omega, cs_2, cs_4,
                                               c, W, 2, 1)
        stream_cuda[blocks, 64](Nx, Ny, dev["f"], dev["f_new"], c, Q, invList, solid)
        computeFields_cuda[blocks, 64](Nx, Ny, dev["f_new"], dev["u"], dev["rho"], solid, c, Q,
                                       dev["u_old"], dev["rho_old"], dev["u_sq"],
                                       dev["u_err_sq"], dev["rho_sq"], dev["rho_err_sq"])
        resU = np.sqrt(residueReduce(dev["u_err_sq"][:, 0]) /
                       (residueReduce(dev["u_sq"][:, 0]) + 1e-9))
        resRho = np.sqrt(residueReduce(dev["rho_err_sq"]) / (residueReduce(dev["rho_sq"]) + 1e-9))
        # the same step in NumPy
        post = np.zeros((Nx * Ny, Q))
        post[fluid] = (1 - omega) * ref_f[fluid] + omega * feq_ref(ref_u, ref_rho)[fluid]
        new = np.empty_like(post)
        ii, jj = np.divmod(np.arange(Nx * Ny), Ny)
        for k in range(Q):
            src = ((ii - int(c[k, 0]) + Nx) % Nx) * Ny + (jj - int(c[k, 1]) + Ny) % Ny
            new[:, k] = np.where(solid[src] != 1, post[src, k], post[:, invList[k]])
        old_u, old_rho = ref_u.copy(), ref_rho.copy()
        ref_rho = np.where(fluid, new.sum(1), ref_rho)
        ref_u = np.where(fluid[:, None], (new @ c) / (ref_rho[:, None] + 1e-9), ref_u)
        ref_f = new
        err_u = np.where(fluid, (ref_u[:, 0] - old_u[:, 0]) ** 2, 0)
        sq_u = np.where(fluid, old_u[:, 0] ** 2, 0)
        err_r = np.where(fluid, (ref_rho - old_rho) ** 2, 0)
        sq_r = np.where(fluid, old_rho ** 2, 0)
        np.testing.assert_allclose(resU, np.sqrt(err_u.sum() / (sq_u.sum() + 1e-9)), rtol=1e-9)
        np.testing.assert_allclose(resRho, np.sqrt(err_r.sum() / (sq_r.sum() + 1e-9)),
                                   rtol=1e-9)
    np.testing.assert_allclose(dev["f_new"].copy_to_host(), ref_f, rtol=1e-12)
    np.testing.assert_allclose(dev["u"].copy_to_host(), ref_u, rtol=1e-9, atol=1e-15)


# ---- an SPH density sum: annotated parameters, an imported index helper, `continue` ----

def test_sph_density_annotated(cuda):
    @cuda.jit(device=True)
    def get_index():
        return cuda.grid(1)

    @cuda.jit
    def density_kernel(result_density: np.ndarray, position: np.ndarray, MASS: np.float64,
                       INF_R: np.float64):
        i = get_index()
        if i >= position.shape[0]:
            return
        new_density = 0
        for j in range(result_density.shape[0]):
            if j == i:
                continue
            dist_norm = (
                (position[i][0] - position[j][0]) ** 2
                + (position[i][1] - position[j][1]) ** 2
                + (position[i][2] - position[j][2]) ** 2
            )
            if dist_norm < INF_R * INF_R:
                new_density += MASS * (INF_R * INF_R - dist_norm) ** 3
        result_density[i] = new_density

    rng = np.random.default_rng(37)
    pos = rng.random((150, 3))
    dens = np.zeros(150)
    density_kernel[_blocks(150, 64), 64](dens, pos, 0.02, 0.3)
    d2 = ((pos[:, None, :] - pos[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    want = np.where(d2 < 0.09, 0.02 * (0.09 - d2) ** 3, 0).sum(1)
    np.testing.assert_allclose(dens, want, rtol=1e-12)


# ---- numba-cuda's documented Monte Carlo integration: a CPU-jitted integrand defined after the
# kernel, forall, @cuda.reduce of the samples ----

def test_docs_monte_carlo_integration(cuda):
    import pyjit
    create_xoroshiro128p_states = cuda.random.create_xoroshiro128p_states
    xoroshiro128p_uniform_float32 = cuda.random.xoroshiro128p_uniform_float32
    nsamps = 4000

    @cuda.jit
    def mc_integrator_kernel(out, rng_states, lower_lim, upper_lim):
        size = len(out)
        gid = cuda.grid(1)
        if gid < size:
            samp = xoroshiro128p_uniform_float32(rng_states, gid)
            samp = samp * (upper_lim - lower_lim) + lower_lim
            y = func(samp)
            out[gid] = y

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    def mc_integrate(lower_lim, upper_lim, nsamps):
        out = cuda.to_device(np.zeros(nsamps, dtype="float32"))
        rng_states = create_xoroshiro128p_states(nsamps, seed=42)
        mc_integrator_kernel.forall(nsamps)(out, rng_states, lower_lim, upper_lim)
        factor = (upper_lim - lower_lim) / (nsamps - 1)
        return sum_reduce(out) * factor, out.copy_to_host()

    @pyjit.jit
    def func(x):
        return 1.0 / x

    for lo, hi, exact in ((1, 2, math.log(2)), (2, 3, math.log(1.5))):
        got, samples = mc_integrate(lo, hi, nsamps)
        draws = np.array([np.float32(_ref_unit(_ref_next(s)))
                          for s in _ref_states(nsamps, 42)], np.float32)
        want = (1.0 / (draws * np.float32(hi - lo) + np.float32(lo))).astype(np.float32)
        np.testing.assert_allclose(samples, want, rtol=1e-6)
        np.testing.assert_allclose(got, want.astype(np.float64).sum() * (hi - lo) / (nsamps - 1),
                                   rtol=1e-4)
        assert abs(got - exact) < 0.01


# ---- geometric Brownian motion paths from normal draws (an option-pricing course's kernel) ----

def test_gbm_paths_normal_draws(cuda):
    xoroshiro128p_normal_float64 = cuda.random.xoroshiro128p_normal_float64

    @cuda.jit
    def simulate(paths, dt, mu, sigma, rng_states):
        i = cuda.grid(1)
        if i < paths.shape[0]:
            for t in range(1, paths.shape[1]):
                z = xoroshiro128p_normal_float64(rng_states, i)
                paths[i, t] = paths[i, t - 1] * math.exp((mu - 0.5 * sigma * sigma) * dt +
                                                         sigma * math.sqrt(dt) * z)

    n, steps = 64, 20
    paths = np.zeros((n, steps))
    paths[:, 0] = 100.0
    states = cuda.random.create_xoroshiro128p_states(n, seed=7)
    d = cuda.to_device(paths)
    simulate[2, 32](d, 1 / 252, 0.05, 0.2, states)
    want = paths.copy()
    for i, s in enumerate(_ref_states(n, 7)):
        for t in range(1, steps):
            u1 = np.float32(_ref_unit(_ref_next(s)))
            u2 = np.float32(_ref_unit(_ref_next(s)))
            z = math.sqrt(-2.0 * float(np.log(u1))) * math.cos(2 * math.pi * float(u2))
            want[i, t] = want[i, t - 1] * math.exp((0.05 - 0.02) / 252 +
                                                   0.2 * math.sqrt(1 / 252) * z)
    np.testing.assert_allclose(d.copy_to_host(), want, rtol=1e-6)


# ---- device functions returning views, recursion with an explicit signature, local arrays
# typed from an argument's dtype, constants of math and NumPy ----

def test_views_recursion_local_dtype_constants(cuda):
    @cuda.jit(device=True)
    def row_of(a, i):
        return a[i, 1:]

    @cuda.jit("int64(int64)", device=True)
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            r = row_of(a, i)
            tmp = cuda.local.array(4, dtype=a.dtype)
            for j in range(r.shape[0]):
                tmp[j] = r[j] * 2
            s = 0.0
            for j in range(r.shape[0]):
                s += tmp[j]
            out[i, 0] = s
            out[i, 1] = fib(i % 10)
            out[i, 2] = math.inf if s > 10 else -np.inf
            out[i, 3] = np.pi + math.e + np.e

    rng = np.random.default_rng(38)
    a = rng.random((20, 5)) * 5
    out = np.zeros((20, 4))
    k[1, 32](a, out)
    fibs = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]
    np.testing.assert_allclose(out[:, 0], 2 * a[:, 1:].sum(1), rtol=1e-14)
    np.testing.assert_array_equal(out[:, 1], [fibs[i % 10] for i in range(20)])
    np.testing.assert_array_equal(out[:, 2], np.where(out[:, 0] > 10, np.inf, -np.inf))
    np.testing.assert_allclose(out[:, 3], np.pi + 2 * math.e, rtol=1e-15)


# ---- the host side tutorials use: device attributes sizing the grid, reshaped and transposed
# device arrays, pinned, mapped and managed memory written by kernels, timed events ----

def test_host_side_api_tutorials_use(cuda):
    @cuda.jit
    def fill(m):
        i, j = cuda.grid(2)
        if i < m.shape[0] and j < m.shape[1]:
            m[i, j] = i * 100 + j

    @cuda.jit
    def double(v):
        for i in range(cuda.grid(1), v.size, cuda.gridsize(1)):
            v[i] *= 2

    device = cuda.get_current_device()
    tpb = min(device.MAX_THREADS_PER_BLOCK, 256)
    nblocks = 2 * device.MULTIPROCESSOR_COUNT
    assert device.WARP_SIZE == 32
    d = cuda.device_array(40, dtype=np.float64)
    m = d.reshape(5, 8)
    fill[(1, 1), (8, 8)](m)
    want = np.add.outer(np.arange(5) * 100, np.arange(8)).astype(float)
    np.testing.assert_array_equal(d.copy_to_host(), want.ravel())
    np.testing.assert_array_equal(m.T.copy_to_host(), want.T)
    np.testing.assert_array_equal(m.ravel().copy_to_host(), want.ravel())
    start, end = cuda.event(timing=True), cuda.event(timing=True)
    start.record()
    for alloc in (cuda.pinned_array, cuda.mapped_array, cuda.managed_array):
        v = alloc(1000, dtype=np.float32)
        v[:] = np.arange(1000, dtype=np.float32)
        double[nblocks, tpb](v)
        cuda.synchronize()
        np.testing.assert_array_equal(np.asarray(v), np.arange(1000, dtype=np.float32) * 2)
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0 and cuda.event_elapsed_time(start, end) >= 0
