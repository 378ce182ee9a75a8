"""Cooperative groups (gpu.cg.this_grid().sync()) without a GPU: the PTX of the grid barrier
(assembled by ptxas where it is installed), the parameter layout a cooperative launch passes, the
simulator's grid barrier and its errors, and numba-cuda's documentation example.

The kernels that run on a GPU and in the simulator alike are in gpu_kernels.py (test_grid_sync_*).
"""
import importlib
import os
import sys

import numpy as np
import pytest

import pyjit
from pyjit import _core, _registry
from pyjit.errors import CompileError
from pyjit.gpu import hardware as G      # the compiled backend's objects, whatever PYJIT_SIMULATOR

sys.path.insert(0, os.path.dirname(__file__))
from util import assemble_ptx  # noqa: E402

needs_codegen = pytest.mark.skipif(not hasattr(_core, "cuda_compile_ptx"),
                                   reason="this pyjit has no GPU code generation")


def simulator_module():
    import pyjit.gpu as g
    return g if g.SIMULATOR else importlib.import_module("pyjit.gpu.simulator")


def compile_kernel(fn, argtypes, **kw):
    _registry.populate()
    ptx, entry, _written = _core.cuda_compile_ptx(fn, _registry.REGISTRY, list(argtypes), **kw)
    assemble_ptx(ptx)
    return ptx, entry


# ---- the PTX ----

def k_rows(m):
    col = G.grid(1)
    g = G.cg.this_grid()
    for row in range(1, m.shape[0]):
        m[row, col] = m[row - 1, m.shape[1] - col - 1] + 1
        g.sync()


def k_plain(m):
    m[0, G.grid(1)] = 1


@needs_codegen
def test_grid_sync_ptx_is_a_barrier_on_the_module_counter():
    ptx, _ = compile_kernel(k_rows, ["array(int32, 2d, C)"])
    assert ".global .align 4 .u32 pj_grid_barrier;" in ptx
    body = ptx[ptx.index(".entry"):]
    # block barrier, fence, one atomic arrival per block, a volatile spin, fence, block barrier
    for piece in ("bar.sync", "membar.gl;", "atom.global.add.u32", "ld.volatile.global.u32"):
        assert piece in body, piece
    assert body.count("atom.global.add.u32") == 1


@needs_codegen
def test_kernel_without_grid_sync_has_no_counter():
    ptx, _ = compile_kernel(k_plain, ["array(int32, 2d, C)"])
    assert "pj_grid_barrier" not in ptx


def _grid_size(out):
    out[G.grid(1)] = G.cg.this_grid().size


@needs_codegen
def test_grid_size_is_an_int64_of_the_special_registers():
    ptx, _ = compile_kernel(_grid_size, ["array(int64, 1d, C)"])
    assert "%nctaid.z" in ptx and "%ntid.z" in ptx and "pj_grid_barrier" not in ptx


def _calls_grid_group_class():
    G.cg.GridGroup()


def _grid_in_host_code():
    return G.cg.this_grid()


@needs_codegen
def test_grid_group_errors():
    with pytest.raises(CompileError, match="made by gpu.cg.this_grid"):
        compile_kernel(_calls_grid_group_class, [])
    with pytest.raises(CompileError, match="GPU kernel"):
        pyjit.njit(_grid_in_host_code)()


# ---- the parameters of a cooperative launch (a pointer to each, read from the .entry) ----

def _pack_model(types_):
    """The packed buffer's layout (runtime/launch.c pack_all, compiler/abi.h): an array is its
    data pointer, then its shape and strides as int64s; a scalar is at its natural alignment;
    a complex number is two floats; a tuple is its items. -> [(size, align)] per parameter."""
    out = []
    for t in types_:
        if isinstance(t, tuple):
            out += _pack_model(t)
        elif isinstance(t, int):            # an array of t dimensions
            out += [(8, 8)] * (1 + 2 * t)
        elif np.dtype(t).kind == "c":
            half = np.dtype(t).itemsize // 2
            out += [(half, half)] * 2
        else:
            out.append((np.dtype(t).itemsize, np.dtype(t).itemsize))
    return out


def _offsets(model):
    offs, off = [], 0
    for size, align in model:
        off = (off + align - 1) // align * align
        offs.append(off)
        off += size
    return offs, off


def _many_params(a, b, c, t, f, z, m, h):
    a[0] = b + c + t[0] + t[1] + f + z.real + m[0, 0] + h


@needs_codegen
@pytest.mark.parametrize("facts", [0, 0xFF])
def test_param_layout_matches_the_packed_buffer(facts):
    names = ["array(float64, 1d, C)", "int8", "float64", "tuple(int32, float64)", "bool",
             "complex128", "array(float32, 2d, A)", "float32"]
    model = [1, "int8", "float64", ("int32", "float64"), "bool", "complex128", 2, "float32"]
    ptx, entry = compile_kernel(_many_params, names, aligned=facts, noalias=facts)
    offs, total = _core._cuda_param_layout(ptx, entry)
    assert (offs, total) == _offsets(_pack_model(model))


def test_param_layout_reads_each_declaration_form():
    ptx = """
.visible .entry k(
	.param .u64 .ptr .global .align 16 k_param_0,
	.param .u8 k_param_1,
	.param .align 8 .b8 k_param_2[24],
	.param .u16 k_param_3,
	.param .f32 k_param_4
)
{
	ld.param.u64 	%rd1, [k_param_0];
}
"""
    assert _core._cuda_param_layout(ptx, "k") == ([0, 8, 16, 40, 44], 48)
    assert _core._cuda_param_layout(ptx.replace("k(\n\t.param", "k()\n"), "k")[1] == 0
    with pytest.raises(ValueError, match="not understood"):
        _core._cuda_param_layout(ptx, "other")


# ---- the simulator ----

def test_simulator_grid_barrier_orders_every_block():
    gpu = simulator_module()

    @gpu.jit
    def ping(x, out):
        i = gpu.grid(1)
        g = gpu.cg.this_grid()
        for step in range(3):
            x[i] = step * 100 + i
            g.sync()
            out[step, i] = x[x.size - 1 - i]      # another block's element
            g.sync()

    n = 4 * 16
    x = np.zeros(n, np.int64)
    out = np.zeros((3, n), np.int64)
    ping[4, 16](x, out)
    expect = np.arange(3)[:, None] * 100 + (n - 1 - np.arange(n))[None, :]
    np.testing.assert_array_equal(out, expect)


def test_simulator_blocks_that_return_early_deadlock():
    gpu = simulator_module()

    @gpu.jit
    def early(x):
        if gpu.blockIdx.x == 1:
            return
        gpu.cg.this_grid().sync()
        x[gpu.grid(1)] = 1

    with pytest.raises(gpu.SimulatorError, match="returned without reaching it"):
        early[3, 8](np.zeros(24))


def test_simulator_grid_and_block_barriers_mixed_deadlock():
    gpu = simulator_module()

    @gpu.jit
    def mixed(x):
        if gpu.threadIdx.x == 0:
            gpu.cg.this_grid().sync()
        else:
            gpu.syncthreads()
        x[gpu.grid(1)] = 1

    with pytest.raises(gpu.SimulatorError, match="deadlock"):
        mixed[2, 4](np.zeros(8))


def test_simulator_refuses_a_grid_too_large_to_be_co_resident():
    gpu = simulator_module()

    @gpu.jit
    def k(x):
        gpu.cg.this_grid().sync()

    most = k.max_cooperative_grid_blocks(256)
    assert most == k.overloads[(gpu.float64[::1],)].max_cooperative_grid_blocks((16, 16))
    assert k.max_cooperative_grid_blocks(1024) < most
    with pytest.raises(ValueError, match="max_cooperative_grid_blocks"):
        k[most + 1, 256](np.zeros(1))


def test_simulator_grid_size():
    gpu = simulator_module()

    @gpu.jit
    def k(out):
        out[gpu.grid(1)] = gpu.cg.this_grid().size

    out = np.zeros(3 * 32, np.int64)
    k[3, 32](out)
    assert out.tolist() == [out.size] * out.size


def test_numba_cuda_documentation_example_in_the_simulator():
    """docs/source/user/cooperative_groups.rst of numba-cuda, `from numba import cuda` made
    `from pyjit import cuda` (a smaller matrix than its 1024 x 1024, for time)."""
    cuda = simulator_module()
    int32 = cuda.int32

    sig = (int32[:, ::1],)

    @cuda.jit(sig)
    def sequential_rows(M):
        col = cuda.grid(1)
        g = cuda.cg.this_grid()

        rows = M.shape[0]
        cols = M.shape[1]

        for row in range(1, rows):
            opposite = cols - col - 1
            # Each row's elements are one greater than the previous row
            M[row, col] = M[row - 1, opposite] + 1
            # Wait until all threads have written their column element,
            # and that the write is visible to all other threads
            g.sync()

    A = np.zeros((128, 128), dtype=np.int32)
    blockdim = 32
    griddim = A.shape[1] // blockdim
    mb = sequential_rows.overloads[sig].max_cooperative_grid_blocks(blockdim)
    assert mb >= griddim
    sequential_rows[griddim, blockdim](A)
    reference = np.tile(np.arange(A.shape[0]), (A.shape[1], 1)).T
    np.testing.assert_equal(A, reference)


def _syncs(a):
    g = G.cg.this_grid()
    g.sync()
    a[0] = 1.0


def _grid_only(a):
    G.cg.this_grid()
    a[0] = 1.0


@needs_codegen
def test_overload_says_whether_it_is_cooperative():
    """numba-cuda's test_sync_group_is_cooperative / test_false_cooperative: only a kernel that
    syncs its grid is launched cooperatively (this_grid() alone needs no barrier)."""
    from pyjit.gpu import hardware
    for backend in (hardware, simulator_module()):
        k, plain = backend.jit(_syncs), backend.jit(_grid_only)
        assert k.overloads["void(float64[::1])"].cooperative
        assert not plain.overloads["void(float64[::1])"].cooperative


def test_bad_block_sizes_are_type_and_value_errors():
    gpu = simulator_module()

    @gpu.jit
    def k(x):
        gpu.cg.this_grid().sync()

    with pytest.raises(TypeError, match="blockdim must be an int or a tuple of ints, not 'x'"):
        k.max_cooperative_grid_blocks("x")
    with pytest.raises(ValueError, match="at least 1"):
        k.overloads[(gpu.float64[::1],)].max_cooperative_grid_blocks((32, 0))


def test_simulator_sees_a_grid_sync_in_a_device_function():
    gpu = simulator_module()

    @gpu.jit(device=True)
    def wait(grid):
        grid.sync()

    @gpu.jit
    def k(x):
        wait(gpu.cg.this_grid())

    assert k.overloads[(gpu.float64[::1],)].cooperative
    with pytest.raises(ValueError, match="max_cooperative_grid_blocks"):
        k[k.max_cooperative_grid_blocks(64) + 1, 64](np.zeros(1))


_sim = importlib.import_module("pyjit.gpu.simulator")


def _written_against_the_simulator(out):
    i = _sim.grid(1)
    out[i] = _sim.cg.this_grid().size + _sim.threadIdx.x
    _sim.atomic.add(out, 0, 1)


@needs_codegen
def test_simulator_module_compiles_ptx():
    """compile_ptx needs no GPU, so the simulator module has it too; the kernel's uses of the
    simulator's objects are read as the compiled backend's."""
    ptx, ret = _sim.compile_ptx(_written_against_the_simulator, "void(int64[::1])")
    assert ret == "none" and "atom.global.add.u64" in ptx and "%nctaid.x" in ptx
    assemble_ptx(ptx)
    ptx2, _ = _sim.compile_ptx_for_current_device(_sim.jit(_written_against_the_simulator),
                                                 "void(int64[::1])")
    assert ".target sm_90" in ptx2


def test_simulator_block_whose_first_thread_returned_deadlocks():
    gpu = simulator_module()

    @gpu.jit
    def k(x):
        if gpu.threadIdx.x == 0 and gpu.blockIdx.x == 1:
            return
        gpu.cg.this_grid().sync()

    with pytest.raises(gpu.SimulatorError, match=r"thread \(0, 0, 0\) returned"):
        k[2, 4](np.zeros(1))

    @gpu.jit
    def tail(x, out):
        i = gpu.grid(1)
        if i >= x.size:       # the last block's extra threads leave: its first thread stays
            return
        x[i] = i
        gpu.cg.this_grid().sync()
        out[i] = x[i] + x[x.size - 1 - i]

    out = np.zeros(40)
    tail[3, 16](np.zeros(40), out)
    assert out.tolist() == [39.0] * 40
