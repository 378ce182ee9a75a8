"""PYJIT_SIMULATOR=cpu: the grid barrier, gpu.cg.this_grid().sync(). A kernel that syncs its grid
runs its blocks as fibers, all at once as a cooperative launch runs them on the GPU
(simulator/launch.c: run_grid), each keeping its shared memory across the barrier.

Each kernel is built for the compiled simulator (pyjit.gpu.cpu) and for the interpreted one
(pyjit.gpu.simulator) from the same source; results and errors are compared."""
import importlib

import numpy as np
import pytest

from util import run_in_both_simulators


@pytest.fixture(scope="module")
def both():
    return importlib.import_module("pyjit.gpu.cpu"), importlib.import_module("pyjit.gpu.simulator")


def test_grid_barrier_in_a_loop_with_block_barriers_and_shared_memory(both):
    def make(gpu):
        @gpu.jit
        def k(x, sums, steps):
            s = gpu.shared.array(32, np.float64)
            t = gpu.threadIdx.x
            b = gpu.blockIdx.x
            i = gpu.grid(1)
            g = gpu.cg.this_grid()
            for _ in range(steps):
                s[t] = x[i]
                gpu.syncthreads()
                if t == 0:
                    acc = 0.0
                    for j in range(gpu.blockDim.x):
                        acc += s[j]
                    sums[b] = acc
                g.sync()
                total = 0.0
                for j in range(sums.size):
                    total += sums[j]
                g.sync()                     # every block has read sums before it changes
                x[i] = x[i] / total + s[(t + 1) % gpu.blockDim.x]
                g.sync()
        return k

    x = np.random.default_rng(0).random(6 * 32)
    run_in_both_simulators(both, make, (6, 32), x, np.zeros(6), 3)


def test_grid_barrier_with_warp_operations(both):
    """A kernel with a warp shuffle keeps its threads on fibers; its blocks are fibers too."""
    def make(gpu):
        @gpu.jit
        def k(x, partial, out):
            i = gpu.grid(1)
            v = x[i]
            off = 16
            while off > 0:
                v += gpu.shfl_down_sync(0xFFFFFFFF, v, off)
                off //= 2
            if i % 32 == 0:
                partial[i // 32] = v
            gpu.cg.this_grid().sync()
            total = 0.0
            for j in range(partial.size):
                total += partial[j]
            out[i] = x[i] / total
        return k

    x = np.random.default_rng(1).random(4 * 64)
    run_in_both_simulators(both, make, (4, 64), x, np.zeros(8), np.zeros(x.size))


def test_a_block_that_returns_while_others_wait_is_a_deadlock(both):
    def make(gpu):
        @gpu.jit
        def k(x):
            if gpu.blockIdx.x == 1:
                return
            x[gpu.grid(1)] = 1.0
            gpu.cg.this_grid().sync()
        return k

    for gpu in both:
        with pytest.raises(gpu.BarrierError, match=r"deadlock: 2 block\(s\) wait at the grid "
                           r"barrier gpu\.cg\.this_grid\(\)\.sync\(\).*\(0, 0, 0\), \(2, 0, 0\)"
                           r".*but 1 block\(s\) returned without reaching it"):
            make(gpu)[3, 8](np.zeros(24))


def test_a_block_whose_first_thread_returned_never_arrives(both):
    def make(gpu):
        @gpu.jit
        def k(x):
            if gpu.threadIdx.x == 0:
                return
            x[gpu.grid(1)] = 1.0
            gpu.cg.this_grid().sync()
        return k

    for gpu in both:
        with pytest.raises(gpu.BarrierError, match=r"thread \(0, 0, 0\) returned, so the block "
                           r"never arrives at the grid barrier"):
            make(gpu)[2, 8](np.zeros(16))


def test_an_exception_after_the_grid_barrier_names_its_thread_and_block(both):
    def make(gpu):
        @gpu.jit
        def k(x, n):
            i = gpu.grid(1)
            x[i] = 1.0
            gpu.cg.this_grid().sync()
            x[i + n] = 2.0
        return k

    for gpu in both:
        with pytest.raises(IndexError, match=r"thread \(0, 0, 0\), block \(3, 0, 0\).*index 32 "
                           r"is out of bounds"):
            make(gpu)[4, 8](np.zeros(32), 8)


def test_too_large_a_grid_is_refused_as_by_the_interpreter(both):
    def make(gpu):
        @gpu.jit
        def k(x):
            x[gpu.grid(1)] += 1.0
            gpu.cg.this_grid().sync()
        return k

    messages = []
    for gpu in both:
        kernel = make(gpu)
        most = kernel.max_cooperative_grid_blocks(1024)
        assert most == kernel.overloads[("float64[::1]",)].max_cooperative_grid_blocks(1024)
        with pytest.raises(ValueError) as e:
            kernel[most + 1, 1024](np.zeros((most + 1) * 1024))
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    x = np.zeros(most * 1024)
    kernel = make(both[0])
    kernel[most, 1024](x)   # the limit itself runs, every block at once
    assert (x == 1.0).all()
