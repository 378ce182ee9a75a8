"""numba-cuda kernels as its tutorials, course notes and scientific codes write them, the import
switched to pyjit: in both simulators (interpreted, and compiled for the CPU) always, and on the
GPU when there is one.

Shared-memory tiles with halos (game of life, transposes through a padded tile), block scans and
bitonic sorts in shared memory, histograms privatised per block, warp-shuffle reductions, Jacobi
sweeps reporting their largest change through atomic.max, n-body forces over shared tiles,
Black-Scholes through a device function, constant-memory convolution masks, per-thread local
arrays, 3-d grids, grid-stride loops, streams with events and asynchronous copies, and ufuncs and
generalised ufuncs for the GPU. Each result is compared with NumPy or plain Python.
"""
import math
import os
import sys

import numpy as np
import pytest

from pyjit import float32, float64, int32

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda import cuda  # noqa: E402,F401 - the fixture: both simulators and the GPU


# ---- game of life on a torus, a 16x16 tile with a one-cell halo in shared memory ----

TILE = 16


def test_game_of_life_shared_tile(cuda):
    @cuda.jit
    def life_step(board, out):
        tile = cuda.shared.array((TILE + 2, TILE + 2), dtype=int32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        x, y = cuda.grid(2)
        n, m = board.shape
        # every thread loads its cell, the edge threads the halo too
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                if (dx == 0 or tx == (0 if dx < 0 else TILE - 1)) and \
                        (dy == 0 or ty == (0 if dy < 0 else TILE - 1)):
                    tile[tx + 1 + dx, ty + 1 + dy] = board[(x + dx) % n, (y + dy) % m]
        cuda.syncthreads()
        if x < n and y < m:
            alive = 0
            for dx in range(-1, 2):
                for dy in range(-1, 2):
                    if dx != 0 or dy != 0:
                        alive += tile[tx + 1 + dx, ty + 1 + dy]
            me = tile[tx + 1, ty + 1]
            out[x, y] = 1 if alive == 3 or (me == 1 and alive == 2) else 0

    rng = np.random.default_rng(3)
    board = (rng.random((48, 32)) < 0.35).astype(np.int32)
    d_a, d_b = cuda.to_device(board), cuda.device_array_like(board)
    want = board.copy()
    for _ in range(3):
        life_step[(3, 2), (TILE, TILE)](d_a, d_b)
        d_a, d_b = d_b, d_a
        alive = sum(np.roll(np.roll(want, dx, 0), dy, 1)
                    for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)
        want = ((alive == 3) | ((want == 1) & (alive == 2))).astype(np.int32)
    np.testing.assert_array_equal(d_a.copy_to_host(), want)


# ---- a transpose through a 32x33 shared tile (no bank conflicts), non-square matrix ----

TDIM = 32


def test_transpose_through_padded_tile(cuda):
    @cuda.jit
    def transpose(a, out):
        tile = cuda.shared.array(shape=(TDIM, TDIM + 1), dtype=float32)
        bx, by = cuda.blockIdx.x * TDIM, cuda.blockIdx.y * TDIM
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        if by + ty < a.shape[0] and bx + tx < a.shape[1]:
            tile[ty, tx] = a[by + ty, bx + tx]
        cuda.syncthreads()
        if bx + ty < out.shape[0] and by + tx < out.shape[1]:
            out[bx + ty, by + tx] = tile[tx, ty]

    a = np.arange(70 * 45, dtype=np.float32).reshape(70, 45) / 7
    out = cuda.device_array((45, 70), dtype=np.float32)
    grid = ((a.shape[1] + TDIM - 1) // TDIM, (a.shape[0] + TDIM - 1) // TDIM)
    transpose[grid, (TDIM, TDIM)](cuda.to_device(a), out)
    np.testing.assert_array_equal(out.copy_to_host(), a.T)


# ---- an inclusive scan of each block (Hillis-Steele, double-buffered), then block offsets ----

SCAN_TPB = 64


def test_block_scan_then_offsets(cuda):
    @cuda.jit
    def block_scan(x, out, sums):
        buf = cuda.shared.array((2, SCAN_TPB), dtype=float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        buf[0, t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        src = 0
        step = 1
        while step < SCAN_TPB:
            dst = 1 - src
            if t >= step:
                buf[dst, t] = buf[src, t] + buf[src, t - step]
            else:
                buf[dst, t] = buf[src, t]
            cuda.syncthreads()
            src = dst
            step *= 2
        if i < x.size:
            out[i] = buf[src, t]
        if t == SCAN_TPB - 1:
            sums[cuda.blockIdx.x] = buf[src, t]

    @cuda.jit
    def add_offsets(out, offsets):
        i = cuda.grid(1)
        b = cuda.blockIdx.x
        if i < out.size and b > 0:
            out[i] += offsets[b - 1]

    x = np.random.default_rng(5).integers(-9, 10, 1000).astype(np.float64)
    blocks = (x.size + SCAN_TPB - 1) // SCAN_TPB
    d_out = cuda.device_array_like(x)
    d_sums = cuda.device_array(blocks, dtype=np.float64)
    block_scan[blocks, SCAN_TPB](cuda.to_device(x), d_out, d_sums)
    offsets = np.cumsum(d_sums.copy_to_host())
    add_offsets[blocks, SCAN_TPB](d_out, cuda.to_device(offsets))
    np.testing.assert_array_equal(d_out.copy_to_host(), np.cumsum(x))


# ---- a bitonic sort of one block's keys in shared memory ----

SORT_N = 128


def test_bitonic_sort_in_shared_memory(cuda):
    @cuda.jit
    def bitonic(keys):
        s = cuda.shared.array(SORT_N, dtype=int32)
        t = cuda.threadIdx.x
        s[t] = keys[t]
        cuda.syncthreads()
        k = 2
        while k <= SORT_N:
            j = k // 2
            while j > 0:
                partner = t ^ j
                if partner > t:
                    up = (t & k) == 0
                    if (s[t] > s[partner]) == up:
                        s[t], s[partner] = s[partner], s[t]
                cuda.syncthreads()
                j //= 2
            k *= 2
        keys[t] = s[t]

    keys = np.random.default_rng(8).integers(-1000, 1000, SORT_N).astype(np.int32)
    d = cuda.to_device(keys)
    bitonic[1, SORT_N](d)
    np.testing.assert_array_equal(d.copy_to_host(), np.sort(keys))


# ---- a histogram privatised in shared memory, merged with global atomics ----

NBINS = 32


def test_histogram_shared_then_global_atomics(cuda):
    @cuda.jit
    def histogram(x, lo, hi, hist):
        local = cuda.shared.array(NBINS, dtype=int32)
        t = cuda.threadIdx.x
        if t < NBINS:
            local[t] = 0
        cuda.syncthreads()
        start, stride = cuda.grid(1), cuda.gridsize(1)
        width = (hi - lo) / NBINS
        for i in range(start, x.shape[0], stride):
            b = int(math.floor((x[i] - lo) / width))
            if 0 <= b < NBINS:
                cuda.atomic.add(local, b, 1)
            elif x[i] == hi:
                cuda.atomic.add(local, NBINS - 1, 1)
        cuda.syncthreads()
        if t < NBINS:
            cuda.atomic.add(hist, t, local[t])

    x = np.random.default_rng(2).normal(0, 1, 20000)
    x[:5] = 3.0
    hist = cuda.to_device(np.zeros(NBINS, np.int32))
    histogram[8, 128](cuda.to_device(x), -3.0, 3.0, hist)
    want, _ = np.histogram(x, bins=NBINS, range=(-3.0, 3.0))
    np.testing.assert_array_equal(hist.copy_to_host(), want)


# ---- a sum through warp shuffles, one atomic add a warp ----

def test_warp_shuffle_sum(cuda):
    @cuda.jit
    def warp_sum(x, total):
        i = cuda.grid(1)
        v = x[i] if i < x.size else 0
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
            offset //= 2
        if cuda.laneid == 0:
            cuda.atomic.add(total, 0, v)

    x = np.arange(1, 3001, dtype=np.int64)
    total = cuda.to_device(np.zeros(1, np.int64))
    warp_sum[(x.size + 255) // 256, 256](cuda.to_device(x), total)
    assert total.copy_to_host()[0] == x.sum()


# ---- Jacobi sweeps of Laplace's equation, the largest change through atomic.max ----

def test_jacobi_laplace_with_atomic_max_error(cuda):
    @cuda.jit
    def jacobi(a, anew, err):
        i, j = cuda.grid(2)
        n, m = a.shape
        if 0 < i < n - 1 and 0 < j < m - 1:
            anew[i, j] = 0.25 * (a[i + 1, j] + a[i - 1, j] + a[i, j + 1] + a[i, j - 1])
            cuda.atomic.max(err, 0, abs(anew[i, j] - a[i, j]))

    n = 40
    a = np.zeros((n, n))
    a[0, :] = 1.0
    anew = a.copy()
    d_a, d_new = cuda.to_device(a), cuda.to_device(anew)
    want_a = a.copy()
    for _ in range(20):
        err = cuda.to_device(np.zeros(1))
        jacobi[(3, 3), (16, 16)](d_a, d_new, err)
        d_a, d_new = d_new, d_a
        new = want_a.copy()
        new[1:-1, 1:-1] = 0.25 * (want_a[2:, 1:-1] + want_a[:-2, 1:-1] + want_a[1:-1, 2:]
                                  + want_a[1:-1, :-2])
        want_err = np.abs(new - want_a).max()
        want_a = new
        assert err.copy_to_host()[0] == pytest.approx(want_err, rel=1e-12)
    np.testing.assert_allclose(d_a.copy_to_host(), want_a, rtol=1e-12)


# ---- n-body accelerations, positions loaded a tile at a time into shared memory ----

NB_TPB = 32


def test_nbody_shared_tiles(cuda):
    @cuda.jit(device=True)
    def interact(xi, yi, zi, xj, yj, zj, mj, eps2):
        dx, dy, dz = xj - xi, yj - yi, zj - zi
        r2 = dx * dx + dy * dy + dz * dz + eps2
        inv = mj / (r2 * math.sqrt(r2))
        return dx * inv, dy * inv, dz * inv

    @cuda.jit
    def accel(pos, mass, acc, eps2):
        sp = cuda.shared.array((NB_TPB, 3), dtype=float64)
        sm = cuda.shared.array(NB_TPB, dtype=float64)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        n = pos.shape[0]
        xi = pos[i, 0] if i < n else 0.0
        yi = pos[i, 1] if i < n else 0.0
        zi = pos[i, 2] if i < n else 0.0
        ax = ay = az = 0.0
        for tile in range((n + NB_TPB - 1) // NB_TPB):
            j = tile * NB_TPB + t
            for k in range(3):
                sp[t, k] = pos[j, k] if j < n else 0.0
            sm[t] = mass[j] if j < n else 0.0
            cuda.syncthreads()
            for k in range(NB_TPB):
                fx, fy, fz = interact(xi, yi, zi, sp[k, 0], sp[k, 1], sp[k, 2], sm[k], eps2)
                ax += fx
                ay += fy
                az += fz
            cuda.syncthreads()
        if i < n:
            acc[i, 0], acc[i, 1], acc[i, 2] = ax, ay, az

    rng = np.random.default_rng(4)
    n = 100
    pos, mass = rng.random((n, 3)), rng.random(n) + 0.5
    acc = cuda.device_array((n, 3))
    accel[(n + NB_TPB - 1) // NB_TPB, NB_TPB](cuda.to_device(pos), cuda.to_device(mass), acc, 1e-3)
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d * d).sum(-1) + 1e-3
    want = (d * (mass[None, :] / (r2 * np.sqrt(r2)))[:, :, None]).sum(1)
    np.testing.assert_allclose(acc.copy_to_host(), want, rtol=1e-10)


# ---- Black-Scholes, the normal CDF as a device function (NVIDIA's sample, in Python) ----

def test_black_scholes_device_cnd(cuda):
    @cuda.jit(device=True)
    def cnd(d):
        a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
        k = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
        ret = 0.3989422804014327 * math.exp(-0.5 * d * d) * \
            (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))))
        if d > 0:
            ret = 1.0 - ret
        return ret

    @cuda.jit
    def black_scholes(call, put, s, x, t, r, v):
        i = cuda.grid(1)
        if i >= s.shape[0]:
            return
        sqrt_t = math.sqrt(t[i])
        d1 = (math.log(s[i] / x[i]) + (r + 0.5 * v * v) * t[i]) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        exp_rt = math.exp(-r * t[i])
        call[i] = s[i] * cnd(d1) - x[i] * exp_rt * cnd(d2)
        put[i] = x[i] * exp_rt * (1.0 - cnd(d2)) - s[i] * (1.0 - cnd(d1))

    def cnd_ref(d):
        a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        ret = 0.3989422804014327 * np.exp(-0.5 * d * d) * \
            (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))))
        return np.where(d > 0, 1.0 - ret, ret)

    rng = np.random.default_rng(6)
    n = 500
    s, x, t = rng.uniform(5, 30, n), rng.uniform(1, 100, n), rng.uniform(0.25, 10, n)
    r, v = 0.02, 0.30
    call, put = cuda.device_array(n), cuda.device_array(n)
    black_scholes[(n + 127) // 128, 128](call, put, cuda.to_device(s), cuda.to_device(x),
                                         cuda.to_device(t), r, v)
    d1 = (np.log(s / x) + (r + 0.5 * v * v) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    e = np.exp(-r * t)
    np.testing.assert_allclose(call.copy_to_host(), s * cnd_ref(d1) - x * e * cnd_ref(d2),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(put.copy_to_host(),
                               x * e * (1 - cnd_ref(d2)) - s * (1 - cnd_ref(d1)),
                               rtol=1e-9, atol=1e-12)


# ---- a 1-d convolution with its mask in constant memory ----

MASK = np.array([0.0625, 0.25, 0.375, 0.25, 0.0625], dtype=np.float32)


def test_convolution_const_mask(cuda):
    @cuda.jit
    def convolve(x, out):
        mask = cuda.const.array_like(MASK)
        i = cuda.grid(1)
        half = mask.shape[0] // 2
        if i < x.shape[0]:
            acc = float32(0)
            for k in range(mask.shape[0]):
                j = i + k - half
                if 0 <= j < x.shape[0]:
                    acc += mask[k] * x[j]
            out[i] = acc

    x = np.random.default_rng(9).random(300).astype(np.float32)
    out = cuda.device_array_like(x)
    convolve[3, 128](cuda.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host(), np.convolve(x, MASK, mode="same"), rtol=1e-5)


# ---- matrix-vector products with a per-thread local array (polynomial features) ----

DEG = 4


def test_local_array_polynomial_features(cuda):
    @cuda.jit
    def poly_eval(x, coef, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            powers = cuda.local.array(DEG + 1, dtype=float64)
            powers[0] = 1.0
            for k in range(1, DEG + 1):
                powers[k] = powers[k - 1] * x[i]
            for r in range(coef.shape[0]):
                s = 0.0
                for k in range(DEG + 1):
                    s += coef[r, k] * powers[k]
                out[r, i] = s

    rng = np.random.default_rng(10)
    x, coef = rng.uniform(-1, 1, 200), rng.normal(size=(3, DEG + 1))
    out = cuda.device_array((3, 200))
    poly_eval[2, 128](cuda.to_device(x), cuda.to_device(coef), out)
    want = coef @ np.vander(x, DEG + 1, increasing=True).T
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-12, atol=1e-14)


# ---- a 3-d grid over a volume, Python's floor division and modulo on negative values ----

def test_3d_grid_with_python_integer_semantics(cuda):
    @cuda.jit
    def fill(vol, shift):
        i, j, k = cuda.grid(3)
        if i < vol.shape[0] and j < vol.shape[1] and k < vol.shape[2]:
            v = i * 100 + j * 10 + k - shift
            vol[i, j, k] = (v // 7) * 1000 + v % 7

    vol = cuda.device_array((5, 6, 7), dtype=np.int64)
    fill[(2, 2, 2), (4, 4, 4)](vol, 300)
    i, j, k = np.indices((5, 6, 7))
    v = i * 100 + j * 10 + k - 300
    np.testing.assert_array_equal(vol.copy_to_host(), (v // 7) * 1000 + v % 7)


# ---- streams: asynchronous copies in, a kernel, a copy out, timed with events ----

def test_streams_events_and_async_copies(cuda):
    @cuda.jit
    def scale(x, factor):
        for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
            x[i] *= factor

    chunks = [np.arange(k * 1000, (k + 1) * 1000, dtype=np.float64) for k in range(3)]
    streams = [cuda.stream() for _ in chunks]
    start, stop = cuda.event(), cuda.event()
    start.record()
    outs = []
    with cuda.gpus[0], cuda.defer_cleanup():   # as numba-cuda's docs keep frees from syncing
        for host, st in zip(chunks, streams):
            d = cuda.to_device(host, stream=st)
            scale[4, 64, st](d, 2.5)
            outs.append(d.copy_to_host(stream=st))
        for st in streams:
            st.synchronize()
    stop.record()
    stop.synchronize()
    assert cuda.event_elapsed_time(start, stop) >= 0.0
    for host, out in zip(chunks, outs):
        np.testing.assert_array_equal(out, host * 2.5)


# ---- ufuncs and generalised ufuncs for the GPU, several signatures ----

def test_gpu_vectorize_and_guvectorize(cuda):
    vectorize, guvectorize = cuda.vectorize, cuda.guvectorize

    @vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
    def rel_diff(a, b):
        return abs(a - b) / (abs(a) + abs(b) + 1)

    @guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()", target="cuda")
    def dot_rows(a, b, out):
        s = 0.0
        for k in range(a.shape[0]):
            s += a[k] * b[k]
        out[0] = s

    rng = np.random.default_rng(12)
    for dt in (np.float32, np.float64):
        a, b = rng.normal(size=1000).astype(dt), rng.normal(size=1000).astype(dt)
        got = rel_diff(a, b)
        assert got.dtype == dt
        np.testing.assert_allclose(got, np.abs(a - b) / (np.abs(a) + np.abs(b) + 1),
                                   rtol=1e-6 if dt == np.float32 else 1e-14)
    m, w = rng.normal(size=(50, 8)), rng.normal(size=(50, 8))
    np.testing.assert_allclose(dot_rows(m, w), (m * w).sum(1), rtol=1e-12)


# ---- without a GPU: the kernels above compiled to PTX (and assembled by ptxas where it is) ----

@pytest.mark.parametrize("name", [
    "test_game_of_life_shared_tile", "test_transpose_through_padded_tile",
    "test_block_scan_then_offsets", "test_bitonic_sort_in_shared_memory",
    "test_histogram_shared_then_global_atomics", "test_warp_shuffle_sum",
    "test_jacobi_laplace_with_atomic_max_error", "test_nbody_shared_tiles",
    "test_black_scholes_device_cnd", "test_convolution_const_mask",
    "test_local_array_polynomial_features", "test_3d_grid_with_python_integer_semantics"])
def test_kernels_compile_for_the_gpu(name):
    from pyjit import _core
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")
    from test_gpu_compile import _Compiled, _gpu_stub
    stub = _gpu_stub()            # a gpu module whose launches compile the kernel, then stop
    with pytest.raises(_Compiled):
        globals()[name](stub)
    assert len(stub.compiled) == 1
