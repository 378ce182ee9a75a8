"""PYJIT_SIMULATOR=cpu with PYJIT_SIMULATOR_RACECHECK=1: the shared-memory race detector of the
compiled simulator (a shadow entry per byte of the block's shared memory: its last writer and
readers within the barrier interval, simulator/launch.c), against the interpreted simulator's.
The variable is read when a kernel is compiled (here: at its first launch), as the interpreter
reads it at each launch; both must report the same race with the same words."""
import importlib

import numpy as np
import pytest

from util import run_in_both_simulators


@pytest.fixture
def both(monkeypatch):
    monkeypatch.setenv("PYJIT_SIMULATOR_RACECHECK", "1")
    return importlib.import_module("pyjit.gpu.cpu"), importlib.import_module("pyjit.gpu.simulator")


def same_race(both, make, config, *arrays):
    """The RaceError each simulator raises; the two messages are the same."""
    messages = []
    for gpu in both:
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
        with pytest.raises(gpu.RaceError) as e:
            make(gpu)[config](*args)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    return messages[0]


def reduction(barrier_first):
    def make(gpu):
        @gpu.jit
        def block_sum(x, out):
            s = gpu.shared.array(64, np.float32)
            t = gpu.threadIdx.x
            s[t] = x[gpu.grid(1)]
            if barrier_first:
                gpu.syncthreads()
            k = 32
            while k > 0:
                if t < k:
                    s[t] += s[t + k]
                gpu.syncthreads()
                k //= 2
            if t == 0:
                out[gpu.blockIdx.x] = s[0]
        return block_sum
    return make


def test_a_missing_barrier_in_a_reduction(both):
    x = np.ones(128, np.float32)
    msg = same_race(both, reduction(False), (2, 64), x, np.zeros(2, np.float32))
    assert msg.startswith("kernel 'block_sum', thread (32, 0, 0), block (0, 0, 0): data race on "
                          "shared array 's' at index 32: written here after being read by "
                          "thread (0, 0, 0) at ")
    run_in_both_simulators(both, reduction(True), (2, 64), x, np.zeros(2, np.float32))


def test_a_read_of_another_threads_write_in_2d_shared_memory(both):
    def make(gpu):
        @gpu.jit
        def transpose(a, out):
            tile = gpu.shared.array((8, 8), np.float64)
            tx, ty = gpu.threadIdx.x, gpu.threadIdx.y
            tile[ty, tx] = a[ty, tx]
            out[ty, tx] = tile[tx, ty]        # no syncthreads() between
        return transpose

    a = np.arange(64.0).reshape(8, 8)
    msg = same_race(both, make, (1, (8, 8)), a, np.zeros((8, 8)))
    assert "thread (0, 1, 0), block (0, 0, 0): data race on shared array 'tile' at index " \
           "(1, 0): written here after being read by thread (1, 0, 0)" in msg


def test_a_race_in_a_kernel_without_barriers(both):
    def make(gpu):
        @gpu.jit
        def last(x, out):
            s = gpu.shared.array(1, np.int64)
            s[0] = x[gpu.grid(1)]
            out[gpu.blockIdx.x] = s[0]
        return last

    msg = same_race(both, make, (2, 4), np.arange(8), np.zeros(2, np.int64))
    assert "thread (1, 0, 0), block (0, 0, 0): data race on shared array 's' at index 0: " \
           "written here after being written by thread (0, 0, 0)" in msg


def test_lanes_of_a_warp_ordered_by_syncwarp(both):
    """Lanes of one warp are ordered by a warp operation between their accesses (the kernel
    runs on fibers: it has one); without it they race."""
    def make(sync):
        def make_kernel(gpu):
            @gpu.jit
            def swap(x, out):
                s = gpu.shared.array(64, np.int32)
                t = gpu.threadIdx.x
                s[t] = x[t]
                if sync:
                    gpu.syncwarp()
                out[t] = s[t ^ 1] + gpu.shfl_xor_sync(0xFFFFFFFF, t, 1)
            return swap
        return make_kernel

    x = np.arange(64, dtype=np.int32)
    run_in_both_simulators(both, make(True), (1, 64), x, np.zeros(64, np.int32))
    msg = same_race(both, make(False), (1, 64), x, np.zeros(64, np.int32))
    assert "thread (1, 0, 0), block (0, 0, 0): data race on shared array 's' at index 1: " \
           "written here after being read by thread (0, 0, 0)" in msg


def test_dynamic_shared_memory_and_barriers_in_a_loop(both):
    def make(racy):
        def make_kernel(gpu):
            @gpu.jit
            def shift(x, out, steps):
                s = gpu.shared.array(0, np.float64)
                t = gpu.threadIdx.x
                n = gpu.blockDim.x
                s[t] = x[gpu.grid(1)]
                gpu.syncthreads()
                for _ in range(steps):
                    v = s[(t + 1) % n]
                    if not racy:
                        gpu.syncthreads()
                    s[t] = v
                    gpu.syncthreads()
                out[gpu.grid(1)] = s[t]
            return shift
        return make_kernel

    x = np.random.default_rng(0).random(64)
    cfg = (2, 32, 0, 32 * 8)
    run_in_both_simulators(both, make(False), cfg, x, np.zeros(64), 3)
    msg = same_race(both, make(True), cfg, x, np.zeros(64), 3)
    assert "written here after being read by thread" in msg


def test_without_the_variable_nothing_is_checked(monkeypatch):
    monkeypatch.delenv("PYJIT_SIMULATOR_RACECHECK", raising=False)
    gpu = importlib.import_module("pyjit.gpu.cpu")
    x = np.ones(128, np.float32)
    out = np.zeros(2, np.float32)
    reduction(False)(gpu)[2, 64](x, out)     # racy, not reported: no shadow memory


# ---- pdb: compiled kernels cannot stop in it; the message says which mode can ----

def test_breakpoint_in_a_compiled_kernel_names_the_interpreted_simulator():
    import pdb

    from pyjit.errors import UnsupportedError
    gpu = importlib.import_module("pyjit.gpu.cpu")

    @gpu.jit
    def k(x):
        i = gpu.grid(1)
        if i == 3:
            breakpoint()
        x[i] = i

    @gpu.jit
    def k2(x):
        if gpu.grid(1) == 3:
            pdb.set_trace()

    for kernel, what in ((k, r"breakpoint\(\)"), (k2, r"pdb\.set_trace\(\)")):
        with pytest.raises(UnsupportedError, match=what + r" cannot stop in a kernel compiled by "
                           r"PYJIT_SIMULATOR=cpu: .*PYJIT_SIMULATOR=1 \(the interpreted "
                           r"simulator\) runs"):
            kernel[1, 8](np.zeros(8))

    def gpu_kernel(x):
        breakpoint()
    with pytest.raises(UnsupportedError, match=r"breakpoint\(\) cannot stop in a kernel compiled "
                       r"for the GPU"):
        gpu.compile_ptx(gpu_kernel, "void(float64[:])")


def test_the_grid_barrier_orders_shared_accesses_too(both):
    def make(gpu):
        @gpu.jit
        def k(out):
            s = gpu.shared.array(4, np.int32)
            t = gpu.threadIdx.x
            if t == 0:
                s[0] = gpu.blockIdx.x + 1
            gpu.cg.this_grid().sync()
            out[gpu.grid(1)] = s[0]
        return k

    run_in_both_simulators(both, make, (3, 4), np.zeros(12, np.int32))
