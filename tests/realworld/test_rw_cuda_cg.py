"""Real numba-cuda programs that sync their grid (gpu.cg), the import switched to pyjit: in the
simulator always, and on the GPU when there is one (those carry the `gpu` mark).

A boarding-pass decoder (an Advent of Code solution) marks each decoded seat in a table, syncs
the grid, then lets every thread look for the one empty seat between two taken ones; a fused
Jacobi smoother for a staggered 2-d velocity field (a geophysics solver) sweeps, syncs, applies
its boundary conditions with grid-stride loops in device functions, syncs and swaps its buffers,
many iterations in one cooperative launch. Each result is compared with NumPy doing the same.
"""
import math

import numpy as np
import pytest


def _simulator():
    import importlib

    import pyjit.gpu as g
    return g if g.SIMULATOR else importlib.import_module("pyjit.gpu.simulator")


def _gpu():
    import pyjit.gpu as g
    if g.SIMULATOR or not g.is_available():
        pytest.skip("no GPU (or PYJIT_SIMULATOR=1)")
    return g


@pytest.fixture(params=["simulator", pytest.param("gpu", marks=pytest.mark.gpu)])
def cuda(request):
    return _simulator() if request.param == "simulator" else _gpu()


# ---- boarding passes: the highest seat (an atomic max), then the empty one (a grid sync) ----

def _passes(seat_ids):
    """Each seat id as its boarding pass: 7 row bits then 3 column bits (True: back/right)."""
    bits = (seat_ids[:, None] >> np.arange(9, -1, -1)[None, :]) & 1
    return bits.astype(np.bool_)


def test_boarding_pass_seat_search(cuda):
    rng = np.random.default_rng(20)
    ids = np.arange(40, 760)
    mine = int(rng.integers(100, 700))
    ids = rng.permutation(ids[ids != mine])
    passes = _passes(ids)
    shape = passes.shape

    @cuda.jit
    def highest_boarding_pass(passes, answer):
        i = cuda.grid(1)
        if i < shape[0]:
            row = 0
            for j in range(7):
                if passes[i, j]:
                    row += 2 ** (6 - j)
            col = 0
            for j in range(7, 10):
                if passes[i, j]:
                    col += 2 ** (9 - j)
            cuda.atomic.max(answer, 0, row * 8 + col)

    @cuda.jit
    def find_my_seat(passes, filled_seats, answer):
        i = cuda.grid(1)
        if i < shape[0]:
            row = 0
            for j in range(7):
                if passes[i, j]:
                    row += 2 ** (6 - j)
            col = 0
            for j in range(7, 10):
                if passes[i, j]:
                    col += 2 ** (9 - j)
            filled_seats[row * 8 + col] = True

        grid = cuda.cg.this_grid()
        grid.sync()

        # neither the first seat nor the last; one thread finds it, so no atomic
        if i > 0 and i < len(filled_seats) - 1:
            if filled_seats[i - 1] and filled_seats[i + 1] and not filled_seats[i]:
                answer[0] = i

    n_threads = 256
    n_blocks = math.ceil(shape[0] / n_threads)
    answer = np.zeros(1, dtype=np.uint32)
    highest_boarding_pass[n_blocks, n_threads](passes, answer)
    assert answer[0] == ids.max()
    # the program sized the table answer[0], one short of the highest seat's index
    filled_seats = np.zeros(answer[0] + 1, dtype=np.bool_)
    answer = np.zeros(1, dtype=np.uint32)
    find_my_seat[n_blocks, n_threads](passes, filled_seats, answer)
    assert answer[0] == mine
    assert filled_seats.sum() == ids.size and not filled_seats[mine]


# ---- a fused Jacobi smoother: sweeps and boundary conditions, grid syncs between ----

def _jacobi_kernel(cuda):
    @cuda.jit(device=True)
    def apply_vx_bc(vx, bc, nx1, ny1):
        j0 = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        i0 = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        j_stride = cuda.blockDim.x * cuda.gridDim.x
        i_stride = cuda.blockDim.y * cuda.gridDim.y
        for j in range(j0, nx1, j_stride):          # top and bottom rows mirror their neighbour
            vx[0, j] = -bc * vx[1, j]
        for j in range(j0, nx1, j_stride):
            vx[ny1 - 1, j] = -bc * vx[ny1 - 2, j]
        for i in range(1 + i0, ny1 - 1, i_stride):  # no flow through the left and right walls
            vx[i, 0] = 0.0
            vx[i, nx1 - 2] = 0.0
            vx[i, nx1 - 1] = 0.0

    @cuda.jit(device=True)
    def apply_vy_bc(vy, bc, nx1, ny1):
        j0 = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        i0 = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        j_stride = cuda.blockDim.x * cuda.gridDim.x
        i_stride = cuda.blockDim.y * cuda.gridDim.y
        for i in range(i0, ny1, i_stride):
            vy[i, 0] = -bc * vy[i, 1]
        for i in range(i0, ny1, i_stride):
            vy[i, nx1 - 1] = -bc * vy[i, nx1 - 2]
        for j in range(1 + j0, nx1 - 1, j_stride):
            vy[0, j] = 0.0
            vy[ny1 - 2, j] = 0.0
            vy[ny1 - 1, j] = 0.0

    @cuda.jit(device=True)
    def sweep(v, rhs, v_new, relax, i_stop, j_stop):
        j0 = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        i0 = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        j_stride = cuda.blockDim.x * cuda.gridDim.x
        i_stride = cuda.blockDim.y * cuda.gridDim.y
        for i in range(1 + i0, i_stop, i_stride):
            for j in range(1 + j0, j_stop, j_stride):
                neighbours = v[i, j - 1] + v[i - 1, j] + v[i + 1, j] + v[i, j + 1]
                v_new[i, j] = (1.0 - relax) * v[i, j] + relax * (rhs[i, j] + neighbours) / 4.0

    @cuda.jit("void(int32, int32, float64[:, ::1], float64[:, ::1], float64, float64[:, ::1], "
              "float64[:, ::1], float64[:, ::1], float64[:, ::1], float64, int32)")
    def jacobi_fused(nx1, ny1, vx, vy, relax_v, vx_rhs, vy_rhs, vx_new, vy_new, bc, max_iter):
        g = cuda.cg.this_grid()
        for _ in range(max_iter):
            sweep(vx, vx_rhs, vx_new, relax_v, ny1 - 1, nx1 - 2)
            sweep(vy, vy_rhs, vy_new, relax_v, ny1 - 2, nx1 - 1)
            g.sync()
            apply_vx_bc(vx_new, bc, nx1, ny1)
            apply_vy_bc(vy_new, bc, nx1, ny1)
            g.sync()
            vx, vx_new = vx_new, vx
            vy, vy_new = vy_new, vy

    return jacobi_fused


def _jacobi_numpy(vx, vy, relax, vx_rhs, vy_rhs, bc, iters):
    def sweep(v, rhs, i_stop, j_stop):
        new = v.copy()
        c = v[1:i_stop, 1:j_stop]
        nb = (v[1:i_stop, 0:j_stop - 1] + v[0:i_stop - 1, 1:j_stop] + v[2:i_stop + 1, 1:j_stop]
              + v[1:i_stop, 2:j_stop + 1])
        new[1:i_stop, 1:j_stop] = (1.0 - relax) * c + relax * (rhs[1:i_stop, 1:j_stop] + nb) / 4
        return new

    ny1, nx1 = vx.shape
    for _ in range(iters):
        vx, vy = sweep(vx, vx_rhs, ny1 - 1, nx1 - 2), sweep(vy, vy_rhs, ny1 - 2, nx1 - 1)
        vx[0, :] = -bc * vx[1, :]
        vx[ny1 - 1, :] = -bc * vx[ny1 - 2, :]
        vx[1:ny1 - 1, [0, nx1 - 2, nx1 - 1]] = 0.0
        vy[:, 0] = -bc * vy[:, 1]
        vy[:, nx1 - 1] = -bc * vy[:, nx1 - 2]
        vy[[0, ny1 - 2, ny1 - 1], 1:nx1 - 1] = 0.0
    return vx, vy


def test_fused_jacobi_smoother(cuda):
    ny1, nx1, iters = 40, 56, 6
    rng = np.random.default_rng(21)
    vx, vy, vx_rhs, vy_rhs = (rng.standard_normal((ny1, nx1)) for _ in range(4))
    want_x, want_y = _jacobi_numpy(vx, vy, 0.7, vx_rhs, vy_rhs, -1.0, iters)
    kernel = _jacobi_kernel(cuda)
    block = (16, 8)
    grid = (2, 3)       # fewer threads than cells: the grid-stride loops cover the rest
    dvx, dvy = cuda.to_device(vx), cuda.to_device(vy)
    dvx_new, dvy_new = cuda.to_device(vx), cuda.to_device(vy)
    kernel[grid, block](nx1, ny1, dvx, dvy, 0.7, cuda.to_device(vx_rhs), cuda.to_device(vy_rhs),
                        dvx_new, dvy_new, -1.0, iters)
    # an even number of iterations leaves the result in the first buffers
    np.testing.assert_allclose(dvx.copy_to_host(), want_x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dvy.copy_to_host(), want_y, rtol=1e-12, atol=1e-12)


# ---- without a GPU: each kernel above compiled to PTX (and assembled by ptxas where it is) ----

@pytest.mark.parametrize("name", ["test_boarding_pass_seat_search", "test_fused_jacobi_smoother"])
def test_kernels_compile_for_the_gpu(name):
    import os
    import sys

    from pyjit import _core
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from test_gpu_compile import _Compiled, _gpu_stub
    stub = _gpu_stub()            # a gpu module whose launches compile the kernel, then stop
    with pytest.raises(_Compiled):
        globals()[name](stub)
    assert len(stub.compiled) == 1         # the first launch's kernel
    if name == "test_fused_jacobi_smoother":
        assert "pj_grid_barrier" in stub.compiled[0][1]
