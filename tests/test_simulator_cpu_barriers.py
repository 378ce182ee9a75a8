"""PYJIT_SIMULATOR=cpu: kernels with barriers, whose blocks run as loops over their threads split
at each syncthreads (compiler/lower_sim_regions.c).

Each kernel is built twice from the same source, for the compiled simulator (pyjit.gpu.cpu) and
for the interpreted one (pyjit.gpu.simulator), run on the same inputs, and the results compared;
the interpreted simulator runs the kernel's own Python, one thread at a time between barriers.
"""
import importlib

import numpy as np
import pytest

from util import run_in_both_simulators


@pytest.fixture(scope="module")
def both():
    return importlib.import_module("pyjit.gpu.cpu"), importlib.import_module("pyjit.gpu.simulator")


def test_tree_reduction_with_the_barrier_in_a_loop(both):
    def make(gpu):
        @gpu.jit
        def k(x, out):
            s = gpu.shared.array(128, np.float64)
            t = gpu.threadIdx.x
            i = gpu.grid(1)
            s[t] = x[i] if i < x.size else 0.0
            gpu.syncthreads()
            step = gpu.blockDim.x // 2
            while step > 0:
                if t < step:
                    s[t] += s[t + step]
                gpu.syncthreads()
                step //= 2
            if t == 0:
                out[gpu.blockIdx.x] = s[0]
        return k

    x = np.random.default_rng(0).random(1000)
    out = run_in_both_simulators(both, make, (8, 128), x, np.zeros(8))[1]
    np.testing.assert_allclose(out, np.pad(x, (0, 24)).reshape(8, 128).sum(1))


def test_values_of_every_kind_live_across_barriers(both):
    def make(gpu):
        @gpu.jit
        def k(x, out, flags):
            t = gpu.threadIdx.x
            s = gpu.shared.array(64, np.int32)
            loc = gpu.local.array(4, np.float32)
            for j in range(4):
                loc[j] = np.float32(t * j)
            z = complex(t, -t)
            pair = (np.int8(t % 7), x[t] * 2)
            big = x[t] > 0.5
            s[t] = t
            gpu.syncthreads()
            other = s[63 - t]
            gpu.syncthreads()
            s[t] = other + 1
            gpu.syncthreads()
            out[t, 0] = z.real + z.imag * 3 + pair[0] + pair[1] + s[(t + 1) % 64]
            out[t, 1] = loc[0] + loc[1] + loc[2] + loc[3]
            flags[t] = big
        return k

    x = np.random.default_rng(1).random(64)
    run_in_both_simulators(both, make, (1, 64), x, np.zeros((64, 2)), np.zeros(64, np.bool_))


def test_barriers_in_device_functions_and_2d_3d_blocks(both):
    def make(gpu):
        @gpu.jit(device=True)
        def exchange(s, i, v):
            s[i] = v
            gpu.syncthreads()
            r = s[s.size - 1 - i]
            gpu.syncthreads()
            return r

        @gpu.jit
        def k(x, out):
            s = gpu.shared.array(64, np.float64)
            tx, ty, tz = gpu.threadIdx.x, gpu.threadIdx.y, gpu.threadIdx.z
            i = tx + gpu.blockDim.x * (ty + gpu.blockDim.y * tz)
            b = gpu.blockIdx.x
            v = exchange(s, i, x[b, i])
            w = exchange(s, i, v * 2 + i)
            out[b, i] = w + tx * 100 + ty * 10 + tz
        return k

    x = np.random.default_rng(2).random((3, 64))
    for block in ((64, 1, 1), (8, 8, 1), (4, 4, 4), (2, 8, 4)):
        run_in_both_simulators(both, make, (3, block), x, np.zeros((3, 64)))


def test_tiled_matmul(both):
    def make(gpu):
        @gpu.jit
        def k(A, B, C):
            sA = gpu.shared.array((8, 8), np.float32)
            sB = gpu.shared.array((8, 8), np.float32)
            x, y = gpu.grid(2)
            tx, ty = gpu.threadIdx.x, gpu.threadIdx.y
            acc = np.float32(0)
            for m in range(A.shape[1] // 8):
                sA[tx, ty] = A[x, ty + m * 8]
                sB[tx, ty] = B[tx + m * 8, y]
                gpu.syncthreads()
                for j in range(8):
                    acc += sA[tx, j] * sB[j, ty]
                gpu.syncthreads()
            C[x, y] = acc
        return k

    rng = np.random.default_rng(3)
    A = rng.random((32, 24), dtype=np.float32)
    B = rng.random((24, 16), dtype=np.float32)
    C = run_in_both_simulators(both, make, ((4, 2), (8, 8)), A, B,
                               np.zeros((32, 16), np.float32))[2]
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)


def test_syncthreads_count_in_a_loop_with_threads_returning(both):
    def make(gpu):
        @gpu.jit
        def k(x, out):
            t = gpu.threadIdx.x
            for r in range(5):
                if t >= 64 - 10 * r:
                    return                      # returned threads no longer count
                c = gpu.syncthreads_count(x[t] > r * 0.2)
                a = gpu.syncthreads_and(x[t] > -1.0)
                o = gpu.syncthreads_or(x[t] > 2.0)
                if t == 0:
                    out[r, 0], out[r, 1], out[r, 2] = c, a, o
        return k

    x = np.random.default_rng(4).random(64)
    run_in_both_simulators(both, make, (1, 64), x, np.zeros((5, 3), np.int64))


def test_an_exception_after_a_barrier_names_its_thread(both):
    cpu = both[0]

    @cpu.jit
    def k(x):
        s = cpu.shared.array(32, np.int64)
        t = cpu.threadIdx.x
        s[t] = t
        cpu.syncthreads()
        x[s[t] + 32 * cpu.blockIdx.x] = 1       # past the end at thread 31 of block 2 only

    with pytest.raises(IndexError, match=r"kernel 'k', thread \(31, 0, 0\), block \(2, 0, 0\): "
                                         r"index 95 is out of bounds"):
        k[3, 32](np.zeros(95, np.int64))


def test_a_barrier_some_threads_pass_again_is_reported(both):
    cpu = both[0]

    @cpu.jit
    def k(x):
        t = cpu.threadIdx.x
        for j in range(t % 2 + 1):              # odd threads pass this barrier twice
            cpu.syncthreads()
        cpu.syncthreads()
        x[t] = t

    with pytest.raises(cpu.BarrierError, match=r"kernel 'k', block \(0, 0, 0\): deadlock: "
                       r"threads of the block wait at different syncthreads\(\) calls; "
                       r"8 thread\(s\) wait at the syncthreads\(\) of line \d+: \(0, 0, 0\) "
                       r"\(2, 0, 0\) \(4, 0, 0\) \(6, 0, 0\); 8 thread\(s\) wait at the "
                       r"syncthreads\(\) of line \d+: \(1, 0, 0\)"):
        k[1, 16](np.zeros(16, np.int64))


def test_a_barrier_in_one_branch_only_is_reported(both):
    cpu = both[0]

    @cpu.jit
    def k(x):
        t = cpu.threadIdx.x
        if t < 5:
            cpu.syncthreads()
        x[t] = t
        cpu.syncthreads()

    with pytest.raises(cpu.BarrierError, match=r"5 thread\(s\) wait at the syncthreads\(\) of "
                       r"line \d+: \(0, 0, 0\) \(1, 0, 0\) \(2, 0, 0\) \(3, 0, 0\); 11 thread\(s\)"):
        k[2, 16](np.zeros(16, np.int64))


def test_warp_operations_with_barriers(both):
    def make(gpu):
        @gpu.jit
        def k(x, out):
            s = gpu.shared.array(64, np.float32)
            t = gpu.threadIdx.x
            v = x[t]
            off = 16
            while off > 0:
                v += gpu.shfl_down_sync(0xFFFFFFFF, v, off)
                off //= 2
            if t % 32 == 0:
                s[t // 32] = v
            gpu.syncthreads()
            if t == 0:
                out[0] = s[0] + s[1]
        return k

    x = np.arange(64, dtype=np.float32)
    out = run_in_both_simulators(both, make, (1, 64), x, np.zeros(1, np.float32))[1]
    assert out[0] == x.sum()


# Values the threads of a block share are kept as one scalar across a barrier, not per thread
# (lower_sim_regions.c's divergence analysis); values that differ between threads must not be.

def test_values_that_differ_between_threads_across_barriers(both):
    def make(gpu):
        @gpu.jit
        def k(x, out):
            t = gpu.threadIdx.x
            s = gpu.shared.array(64, np.int64)
            v = 0
            if t % 3 == 0:          # a phi after a branch on the thread
                v = 7
            j = 0
            while j < t % 5:        # a loop the threads leave after different trips
                j += 1
            m = 1
            for q in range(t % 4):  # the same, with a barrier after each loop
                m *= 2
            n = gpu.blockDim.x
            s[t] = x[t]
            gpu.syncthreads()
            acc = 0
            step = n // 2           # the same for all threads
            while step > 0:
                acc += s[(t + step) % n]
                gpu.syncthreads()
                step //= 2
            out[gpu.grid(1)] = v * 1000000 + j * 10000 + m * 100 + acc
        return k

    x = np.arange(64, dtype=np.int64)
    run_in_both_simulators(both, make, (2, 64), x, np.zeros(128, np.int64))


def test_uniform_loop_after_threads_return_early(both):
    def make(gpu):
        @gpu.jit
        def k(x, out, n):
            t = gpu.threadIdx.x
            s = gpu.shared.array(64, np.float64)
            s[t] = 0.0
            gpu.syncthreads()
            if t >= n:
                return
            s[t] = x[t]
            gpu.syncthreads()
            width = 1
            while width < n:        # uniform among the threads that did not return
                if t % (2 * width) == 0 and t + width < n:
                    s[t] += s[t + width]
                width *= 2
                gpu.syncthreads()
            c = gpu.syncthreads_count(s[t] > 1.0)   # a barrier's result, uniform too
            gpu.syncthreads()
            out[t] = s[t] + c * 1000.0 + width
        return k

    x = np.random.default_rng(3).random(64) * 2
    for n in (64, 37, 1):
        run_in_both_simulators(both, make, (1, 64), x, np.zeros(64), n)


def test_loop_counter_read_from_shared_memory_is_per_thread(both):
    def make(gpu):
        @gpu.jit
        def k(out):
            t = gpu.threadIdx.x
            s = gpu.shared.array(32, np.int32)
            s[t] = t % 4
            gpu.syncthreads()
            r = s[(t + 1) % 32]     # a load: each thread's own
            total = 0
            i = 0
            while i < 3:
                total += r + i
                gpu.syncthreads()
                i += 1
            out[t] = total
        return k

    run_in_both_simulators(both, make, (1, 32), np.zeros(32, np.int32))


def test_a_loop_bounded_by_a_barriers_result(both):
    def make(gpu):
        @gpu.jit
        def k(x, out):
            t = gpu.threadIdx.x
            s = gpu.shared.array(64, np.int64)
            s[t] = 0
            n = gpu.syncthreads_count(x[gpu.grid(1)] > 0.5)
            for r in range(n % 7):
                s[(t + r) % 64] += 1
                gpu.syncthreads()
            out[gpu.grid(1)] = s[t] * 100 + n
        return k

    x = np.random.default_rng(5).random(128)
    run_in_both_simulators(both, make, (2, 64), x, np.zeros(128, np.int64))


# Warp operations are cut like barriers: at a round's end the warps whose lanes all wait at warp
# operations complete them, and threads waiting elsewhere are held back a round.

def test_warps_that_shuffle_different_numbers_of_times_before_a_barrier(both):
    def make(gpu):
        @gpu.jit
        def k(x, out):
            s = gpu.shared.array(128, np.float64)
            t = gpu.threadIdx.x
            v = x[gpu.grid(1)]
            for r in range(t // 32 + 1):          # warp w shuffles w + 1 times
                v += gpu.shfl_xor_sync(0xFFFFFFFF, v, 1 << r)
            s[t] = v
            gpu.syncthreads()
            for it in range(3):
                if t < 32:                        # warp 0 alone, while the others wait
                    v += gpu.shfl_down_sync(0xFFFFFFFF, v, it + 1)
                gpu.syncthreads()
            out[gpu.grid(1)] = s[(t + 32) % 128] + v + gpu.ballot_sync(0xFFFFFFFF, v > 2.0)
        return k

    x = np.random.default_rng(7).random(256)
    run_in_both_simulators(both, make, (2, 128), x, np.zeros(256))


def test_a_warp_operation_some_lanes_never_reach_is_reported(both):
    def make(gpu):
        @gpu.jit
        def k(x):
            t = gpu.threadIdx.x
            if t % 32 < 16:
                x[t] = gpu.shfl_sync(0xFFFFFFFF, x[t], 0)
            gpu.syncthreads()
        return k

    for gpu in both:
        with pytest.raises(gpu.BarrierError, match="warp operation"):
            make(gpu)[1, 64](np.zeros(64))


def test_every_shuffle_of_full_and_partial_warps(both):
    # full warps all at one shuffle take launch.c's one pass over the lanes; the partial third
    # warp, and lanes whose argument reaches outside the warp, the general path
    def make(gpu):
        @gpu.jit
        def k(x, out):
            t = gpu.threadIdx.x
            v = x[t]
            out[0, t] = gpu.shfl_sync(0xFFFFFFFF, v, (t * 7) % 40)
            out[1, t] = gpu.shfl_up_sync(0xFFFFFFFF, v, t % 5)
            out[2, t] = gpu.shfl_down_sync(0xFFFFFFFF, v, (t % 3) * 13)
            out[3, t] = gpu.shfl_xor_sync(0xFFFFFFFF, v, t % 32)
            out[4, t] = gpu.shfl_down_sync(0xFFFFFFFF, v, 3)
            out[5, t] = gpu.shfl_up_sync(0xFFFFFFFF, v, 33)
        return k

    x = np.random.default_rng(3).random(80)
    run_in_both_simulators(both, make, (2, 80), x, np.zeros((6, 80)))
