"""Whole numba-cuda programs from public examples, course material and scientific codes, the
import switched to pyjit: the kernels and the host code around them (signature strings with
Numba's type names, device arrays made with `copy=False` and read back with the legacy
`to_host`, streams that synchronise on leaving a `with`, launches on streams, `forall`, dynamic
shared memory, pinned host memory, events). In the interpreted simulator; in the compiled one,
each launch's kernel also compiled to PTX and assembled by ptxas; and on the GPU when there is one
(the `gpu` mark; it skips without one). Each result is compared with NumPy or plain Python.
"""
import math
import os
import sys

import numpy as np
import pytest

from pyjit import float32, float64, int32, uint32, void

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU
from pyjit.cuda.random import (  # noqa: E402
    xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32,
)

f8 = float64


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


# ---- a block maximum reduced by one thread through an inline device function; the output made
# with copy=False and read back into its host array by the legacy to_host() (numbapro examples) ----

def test_block_max_legacy_to_host(cuda):
    @cuda.jit('int32(int32, int32)', device=True, inline=True)
    def mymax(a, b):
        if a > b:
            return a
        else:
            return b

    @cuda.jit('void(int32[:], int32[:])')
    def max_kernel(a, b):
        sa = cuda.shared.array(shape=(256,), dtype=int32)
        tx = cuda.threadIdx.x
        bx = cuda.blockIdx.x
        bw = cuda.blockDim.x
        i = tx + bx * bw
        if i < a.shape[0]:
            sa[tx] = a[i]
        cuda.syncthreads()
        if i < a.shape[0] and tx == 0:
            m = sa[tx]
            for j in range(1, bw):
                m = mymax(m, sa[j])
            b[bx] = m

    blkct, n = 4, 40
    a = np.random.default_rng(1).integers(0, 1000, n).astype(np.int32)
    b = np.empty(blkct, dtype=np.int32)
    d_a = cuda.to_device(a)
    d_b = cuda.to_device(b, copy=False)
    max_kernel[(blkct, 1), (n // blkct, 1)](d_a, d_b)
    d_b.to_host()
    np.testing.assert_array_equal(b, a.reshape(blkct, -1).max(1))


# ---- Jacobi relaxation through a shared tile with a halo, launched on a stream, the error grid
# read back with to_host(stream) each sweep and the buffers swapped (numbapro's laplace2d) ----

def test_laplace_shared_halo_stream_to_host(cuda):
    @cuda.jit("void(f8[:,:], f8[:,:], f8[:,:])")
    def jacobi_relax_core(A, Anew, error):
        smem = cuda.shared.array(shape=(16 + 2, 16 + 2), dtype=f8)
        n = A.shape[0]
        m = A.shape[1]
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        j = ty + cuda.blockIdx.y * cuda.blockDim.y
        i = tx + cuda.blockIdx.x * cuda.blockDim.x
        sy = ty + 1
        sx = tx + 1
        smem[sy, sx] = A[j, i]
        if tx == 0 and i >= 1:
            smem[sy, 0] = A[j, i - 1]
        if ty == 0 and j >= 1:
            smem[0, sx] = A[j - 1, i]
        if tx == 15 and i < m - 1:
            smem[sy, 17] = A[j, i + 1]
        if ty == 15 and j < n - 1:
            smem[17, sx] = A[j + 1, i]
        cuda.syncthreads()
        if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
            Anew[j, i] = 0.25 * (smem[sy, sx + 1] + smem[sy, sx - 1]
                                 + smem[sy - 1, sx] + smem[sy + 1, sx])
            error[j, i] = Anew[j, i] - A[j, i]

    n = 32
    A = np.zeros((n, n))
    A[:, 0] = 1.0
    Anew = A.copy()
    error_grid = np.zeros_like(A)
    stream = cuda.stream()
    dA = cuda.to_device(A, stream)
    dAnew = cuda.to_device(Anew, stream)
    derror_grid = cuda.to_device(error_grid, stream)
    want, errors = A.copy(), []
    for it in range(4):
        jacobi_relax_core[(2, 2), (16, 16), stream](dA, dAnew, derror_grid)
        derror_grid.to_host(stream)
        stream.synchronize()
        errors.append(np.abs(error_grid).max())
        dA, dAnew = dAnew, dA
        new = want.copy()
        new[1:-1, 1:-1] = 0.25 * (want[1:-1, 2:] + want[1:-1, :-2] + want[2:, 1:-1]
                                  + want[:-2, 1:-1])
        np.testing.assert_allclose(errors[-1], np.abs(new - want).max(), rtol=1e-12)
        want = new
    np.testing.assert_allclose(dA.copy_to_host(), want, rtol=1e-12)


# ---- local binary pattern codes of an image tile in shared memory (chained indexing, shifts of
# conditional expressions), then a histogram by atomics, inside stream.auto_synchronize() ----

def test_lbp_texture_histogram_auto_synchronize(cuda):
    BIN_COUNT = 255

    @cuda.jit([void(int32[:, :], int32[:], int32[:, :])])
    def lbp_texture(arry, hist, codes):
        A = cuda.shared.array(shape=(16, 16), dtype=int32)
        x, y = cuda.grid(2)
        ty = cuda.threadIdx.x
        tx = cuda.threadIdx.y
        A[ty, tx] = arry[x, y]
        cuda.syncthreads()
        last_x = A.shape[0] - 1
        last_y = A.shape[1] - 1
        if (ty > 0 and (last_x - ty) > 0) and (tx > 0 and (last_y - tx) > 0):
            code = 0
            center = A[ty, tx]
            code |= (1 if A[ty - 1][tx - 1] > center else 0) << 7
            code |= (1 if A[ty][tx - 1] > center else 0) << 6
            code |= (1 if A[ty + 1][tx - 1] > center else 0) << 5
            code |= (1 if A[ty + 1][tx] > center else 0) << 4
            code |= (1 if A[ty + 1][tx + 1] > center else 0) << 3
            code |= (1 if A[ty][tx + 1] > center else 0) << 2
            code |= (1 if A[ty - 1][tx + 1] > center else 0) << 1
            code |= (1 if A[ty - 1][tx] > center else 0) << 0
            codes[x, y] = code
            cuda.atomic.add(arry, (x, y), code - center)
            cuda.atomic.add(hist, code % BIN_COUNT, 1)

    img = np.random.default_rng(2).integers(0, 200, (32, 32)).astype(np.int32)
    src = img.copy()
    histogram = np.zeros(BIN_COUNT, dtype=np.int32)
    codes = np.full_like(img, -1)
    cstream = cuda.stream()
    with cstream.auto_synchronize():
        d_src = cuda.to_device(src, stream=cstream)
        d_hist = cuda.to_device(histogram, stream=cstream)
        d_codes = cuda.to_device(codes, stream=cstream)
        lbp_texture[(2, 2), (16, 16), cstream](d_src, d_hist, d_codes)
        d_src.copy_to_host(src, stream=cstream)
        d_hist.copy_to_host(histogram, stream=cstream)
        d_codes.copy_to_host(codes, stream=cstream)
    want = np.full_like(img, -1)
    offsets = [(-1, -1, 7), (0, -1, 6), (1, -1, 5), (1, 0, 4), (1, 1, 3), (0, 1, 2), (-1, 1, 1),
               (-1, 0, 0)]
    for x in range(32):
        for y in range(32):
            if x % 16 in (0, 15) or y % 16 in (0, 15):
                continue
            want[x, y] = sum(int(img[x + dx, y + dy] > img[x, y]) << s for dx, dy, s in offsets)
    np.testing.assert_array_equal(codes, want)
    inside = want >= 0
    np.testing.assert_array_equal(src[inside], want[inside])
    np.testing.assert_array_equal(src[~inside], img[~inside])
    np.testing.assert_array_equal(histogram, np.bincount(want[inside] % BIN_COUNT,
                                                         minlength=BIN_COUNT))


# ---- 2x2 max pooling of a batch of 4-d feature maps, one thread an output element, parameters
# annotated with their types (a U-Net written in numba-cuda) ----

STRIDE = 2


def test_max_pooling_annotated_4d(cuda):
    from pyjit.cuda.cudadrv.devicearray import DeviceNDArray

    @cuda.jit
    def max_pooling(input: DeviceNDArray, output: DeviceNDArray, num_channels: int,
                    output_height: int, output_width: int):
        index = cuda.grid(1)
        if index < output.size:
            batch_idx = index // (num_channels * output_height * output_width)
            channel_idx = (index // (output_height * output_width)) % num_channels
            row = (index // output_width) % output_height
            col = index % output_width
            input_row = row * STRIDE
            input_col = col * STRIDE
            max_val = input[batch_idx, channel_idx, input_row, input_col]
            max_val = max(max_val, input[batch_idx, channel_idx, input_row, input_col + 1])
            max_val = max(max_val, input[batch_idx, channel_idx, input_row + 1, input_col])
            max_val = max(max_val, input[batch_idx, channel_idx, input_row + 1, input_col + 1])
            output[batch_idx, channel_idx, row, col] = max_val

    x = np.random.default_rng(3).normal(size=(2, 3, 8, 12)).astype(np.float32)
    b, c, h, w = x.shape
    oh, ow = (h + STRIDE - 1) // STRIDE, (w + STRIDE - 1) // STRIDE
    d_out = cuda.device_array(shape=(b, c, oh, ow), dtype=x.dtype)
    total = b * c * oh * ow
    max_pooling[(math.ceil(total / 64),), 64](cuda.to_device(x), d_out, c, oh, ow)
    np.testing.assert_array_equal(d_out.copy_to_host(), x.reshape(b, c, oh, 2, ow, 2).max((3, 5)))


# ---- the DLI course's histogram: grid-stride loop, np.int32 of a float, chained comparison ----

def test_dli_histogram_grid_stride(cuda):
    @cuda.jit
    def cuda_histogram(x, xmin, xmax, histogram_out):
        nbins = histogram_out.shape[0]
        bin_width = (xmax - xmin) / nbins
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, x.shape[0], stride):
            bin_number = np.int32((x[i] - xmin) / bin_width)
            if 0 <= bin_number < nbins:
                cuda.atomic.add(histogram_out, bin_number, 1)

    x = np.random.default_rng(4).normal(size=10000).astype(np.float32)
    xmin, xmax = np.float32(-4.0), np.float32(4.0)
    d_x = cuda.to_device(x)
    d_hist = cuda.to_device(np.zeros(shape=10, dtype=np.int32))
    cuda_histogram[16, 64](d_x, xmin, xmax, d_hist)
    width = (xmax - xmin) / np.float32(10)
    bins = ((x - xmin) / width).astype(np.int32)
    bins = bins[(bins >= 0) & (bins < 10)]
    np.testing.assert_array_equal(d_hist.copy_to_host(), np.bincount(bins, minlength=10))


# ---- instruction-level parallelism: two and four elements a thread through a typed device
# function, the block size from the device's attributes (numbapro's ILP blog example) ----

def test_ilp_vector_add_device_attributes(cuda):
    @cuda.jit('float32(float32, float32)', device=True)
    def core(a, b):
        return a + b

    @cuda.jit('void(float32[:], float32[:], float32[:])')
    def vec_add(a, b, c):
        i = cuda.grid(1)
        c[i] = core(a[i], b[i])

    @cuda.jit('void(float32[:], float32[:], float32[:])')
    def vec_add_ilp_x4(a, b, c):
        i = cuda.grid(1)
        stride = cuda.gridDim.x * cuda.blockDim.x
        j = i + stride
        k = j + stride
        m = k + stride
        ai, aj, ak, am = a[i], a[j], a[k], a[m]
        bi, bj, bk, bm = b[i], b[j], b[k], b[m]
        c[i] = core(ai, bi)
        c[j] = core(aj, bj)
        c[k] = core(ak, bk)
        c[m] = core(am, bm)

    device = cuda.get_current_device()
    blksz = device.WARP_SIZE * 2
    assert blksz <= device.MAX_THREADS_PER_BLOCK
    gridsz = 8
    N = blksz * gridsz
    A = np.arange(N, dtype=np.float32)
    B = np.arange(N, dtype=np.float32) * 3
    dA, dB = cuda.to_device(A), cuda.to_device(B)
    dC = cuda.device_array_like(A)
    vec_add[gridsz, blksz](dA, dB, dC)
    expected = dC.copy_to_host()
    np.testing.assert_array_equal(expected, A + B)
    dC = cuda.device_array_like(A)
    vec_add_ilp_x4[gridsz // 4, blksz](dA, dB, dC)
    np.testing.assert_array_equal(dC.copy_to_host(), expected)


# ---- a path simulation driven by a 32-bit LCG per path indexing a table of normal draws
# (a 2013 GTC lab's pricer, Numba's type names `double` and `uint32` in the signature) ----

LCG_A = 1664525
LCG_C = 1013904223


def test_gtc_lab_lcg_pricer(cuda):
    @cuda.jit("void(double[:,:], double, double, double, double[:], uint32[:])")
    def cu_monte_carlo_pricer(paths, dt, c0, c1, normdist, seed):
        i = cuda.grid(1)
        if i >= paths.shape[0]:
            return
        randnum = seed[i]
        for j in range(1, paths.shape[1]):
            elt = randnum % normdist.shape[0]
            noise = normdist[elt]
            paths[i, j] = paths[i, j - 1] * math.exp(c0 * dt + c1 * noise)
            randnum = randnum * LCG_A + LCG_C

    rng = np.random.default_rng(5)
    n, steps = 100, 12
    paths = np.zeros((n, steps))
    paths[:, 0] = 100.0
    normdist = rng.normal(size=n)
    seed = rng.integers(0, 2 ** 32, n, dtype=np.uint32)
    dt, interest, vol = 1.0 / steps, 0.05, 0.2
    c0, c1 = interest - 0.5 * vol ** 2, vol * math.sqrt(dt)
    stream = cuda.stream()
    d_paths = cuda.to_device(paths, stream=stream)
    cu_monte_carlo_pricer[(_blocks(n, 32), 1), (32, 1, 1), stream](
        d_paths, dt, c0, c1, cuda.to_device(normdist, stream=stream),
        cuda.to_device(seed, stream=stream))
    d_paths.to_host(stream)
    stream.synchronize()
    want = np.zeros((n, steps))
    want[:, 0] = 100.0
    r = seed.copy()
    for j in range(1, steps):
        want[:, j] = want[:, j - 1] * np.exp(c0 * dt + c1 * normdist[r % n])
        r = r * np.uint32(LCG_A) + np.uint32(LCG_C)
    np.testing.assert_allclose(paths, want, rtol=1e-13)


# ---- path steps by a GPU ufunc over columns of a host matrix: each column copied to the device,
# the step written into it with out=, read back into the column view (numbapro's vectorized
# pricer) ----

def test_vectorize_pricer_columns_out(cuda):
    @cuda.vectorize(['f8(f8, f8, f8, f8, f8)'], target='cuda')
    def step(last, dt, c0, c1, noise):
        return last * math.exp(c0 * dt + c1 * noise)

    rng = np.random.default_rng(6)
    n, steps = 300, 6
    paths = np.zeros((n, steps))
    paths[:, 0] = 50.0
    noises = rng.normal(size=(steps, n))
    dt, interest, vol = 0.1, 0.03, 0.25
    c0, c1 = interest - 0.5 * vol ** 2, vol * math.sqrt(dt)
    d_last = cuda.to_device(paths[:, 0])
    for j in range(1, steps):
        d_normdist = cuda.to_device(noises[j])
        d_paths = cuda.to_device(paths[:, j])
        step(d_last, dt, c0, c1, d_normdist, out=d_paths)
        d_paths.copy_to_host(paths[:, j])
        d_last = d_paths
    want = np.zeros((n, steps))
    want[:, 0] = 50.0
    for j in range(1, steps):
        want[:, j] = want[:, j - 1] * np.exp(c0 * dt + c1 * noises[j])
    np.testing.assert_allclose(paths, want, rtol=1e-13)


# ---- reductions as numba-cuda's docs and course notebooks write them: a lambda, a named binary
# function, an initial value, the result left in a device array, over a device slice ----

def test_cuda_reduce_forms(cuda):
    sum_reduce = cuda.reduce(lambda a, b: a + b)

    @cuda.reduce
    def max_reduce(a, b):
        return a if a > b else b

    rng = np.random.default_rng(7)
    a = rng.random(5000)
    got = sum_reduce(a)
    np.testing.assert_allclose(got, a.sum(), rtol=1e-12)
    d = cuda.to_device(a)
    assert max_reduce(d) == a.max()
    np.testing.assert_allclose(sum_reduce(d, init=10.0), a.sum() + 10.0, rtol=1e-12)
    res = cuda.device_array(1, dtype=np.float64)
    sum_reduce(d[100:900], res=res)
    np.testing.assert_allclose(res.copy_to_host()[0], a[100:900].sum(), rtol=1e-12)
    ints = rng.integers(-50, 50, 777).astype(np.int32)
    assert sum_reduce(ints) == ints.sum()
    assert max_reduce(ints, size=300) == ints[:300].max()


# ---- a 2-d Ising model, checkerboard Metropolis sweeps from per-site xoroshiro128+ states
# initialised in place with init_xoroshiro128p_states (statistical-physics course code) ----

def test_ising_checkerboard_xoroshiro(cuda):
    from pyjit.cuda.random import xoroshiro128p_uniform_float64

    @cuda.jit
    def sweep(spins, states, beta, color):
        i, j = cuda.grid(2)
        n, m = spins.shape
        if i >= n or j >= m or (i + j) % 2 != color:
            return
        tid = i * m + j
        s = spins[i, j]
        nb = spins[(i + 1) % n, j] + spins[(i - 1) % n, j] + spins[i, (j + 1) % m] + \
            spins[i, (j - 1) % m]
        dE = 2.0 * s * nb
        if dE <= 0.0 or xoroshiro128p_uniform_float64(states, tid) < math.exp(-beta * dE):
            spins[i, j] = -s

    n = 16
    rng = np.random.default_rng(8)
    spins0 = np.where(rng.random((n, n)) < 0.5, -1, 1).astype(np.int8)
    states = cuda.random.create_xoroshiro128p_states(n * n, seed=1)
    cuda.random.init_xoroshiro128p_states(states, seed=99)
    d_spins = cuda.to_device(spins0)
    beta = 0.6
    for _ in range(3):
        for color in (0, 1):
            sweep[(2, 2), (8, 8)](d_spins, states, beta, color)
    got = d_spins.copy_to_host()
    # the same sweeps in plain Python over numba-cuda's generator
    from gpu_kernels import _ref_next, _ref_states, _ref_unit
    ref = _ref_states(n * n, 99)
    want = spins0.astype(np.int64)
    for _ in range(3):
        for color in (0, 1):
            new = want.copy()
            for i in range(n):
                for j in range(n):
                    if (i + j) % 2 != color:
                        continue
                    s = want[i, j]
                    nb = want[(i + 1) % n, j] + want[(i - 1) % n, j] + want[i, (j + 1) % n] + \
                        want[i, (j - 1) % n]
                    dE = 2.0 * s * nb
                    if dE <= 0.0 or _ref_unit(_ref_next(ref[i * n + j])) < math.exp(-beta * dE):
                        new[i, j] = -s
            want = new
    np.testing.assert_array_equal(got, want)


# ---- CRC-32 of fixed-length records, the table in constant memory (hashing and
# deduplication codes) ----

def _crc_table():
    table = np.zeros(256, dtype=np.uint32)
    for k in range(256):
        c = k
        for _ in range(8):
            c = (0xEDB88320 ^ (c >> 1)) if c & 1 else c >> 1
        table[k] = c
    return table


CRC_TABLE = _crc_table()


def test_crc32_const_table(cuda):
    @cuda.jit
    def crc32_rows(data, out):
        table = cuda.const.array_like(CRC_TABLE)
        row = cuda.grid(1)
        if row < data.shape[0]:
            crc = uint32(0xFFFFFFFF)
            for k in range(data.shape[1]):
                crc = table[(crc ^ data[row, k]) & 0xFF] ^ (crc >> 8)
            out[row] = crc ^ uint32(0xFFFFFFFF)

    import zlib
    data = np.random.default_rng(9).integers(0, 256, (70, 33)).astype(np.uint8)
    out = np.zeros(70, dtype=np.uint32)
    crc32_rows[3, 32](data, out)
    np.testing.assert_array_equal(out, [zlib.crc32(r.tobytes()) for r in data])


# ---- a 3x3 median filter, the window sorted in a per-thread local array (image denoising) ----

def test_median_filter_local_window(cuda):
    @cuda.jit
    def median3x3(img, out):
        x, y = cuda.grid(2)
        h, w = img.shape
        if x >= h or y >= w:
            return
        window = cuda.local.array(9, dtype=np.uint8)
        k = 0
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                xx = min(max(x + dx, 0), h - 1)
                yy = min(max(y + dy, 0), w - 1)
                window[k] = img[xx, yy]
                k += 1
        for i in range(9):
            for j in range(0, 8 - i):
                if window[j] > window[j + 1]:
                    window[j], window[j + 1] = window[j + 1], window[j]
        out[x, y] = window[4]

    img = np.random.default_rng(10).integers(0, 256, (20, 27)).astype(np.uint8)
    out = np.zeros_like(img)
    median3x3[(3, 4), (8, 8)](img, out)
    pad = np.pad(img, 1, mode="edge")
    stack = np.stack([pad[1 + dx:21 + dx, 1 + dy:28 + dy] for dx in (-1, 0, 1) for dy in (-1, 0, 1)])
    np.testing.assert_array_equal(out, np.median(stack, axis=0).astype(np.uint8))


# ---- stream compaction with warp-aggregated atomics: a ballot of the keepers, one atomic a
# warp by its first active lane, each keeper's slot from the popcount of the lanes below it
# (NVIDIA's warp-aggregated atomics, ported to numba-cuda) ----

def test_warp_aggregated_compaction(cuda):
    @cuda.jit
    def compact(src, threshold, dst, count):
        i = cuda.grid(1)
        keep = i < src.size and src[i] > threshold
        lane = cuda.laneid
        mask = cuda.ballot_sync(0xFFFFFFFF, keep)
        leader = cuda.ffs(mask) - 1
        base = 0
        if lane == leader:
            base = cuda.atomic.add(count, 0, cuda.popc(mask))
        base = cuda.shfl_sync(0xFFFFFFFF, base, max(leader, 0))
        if keep:
            below = mask & ((1 << lane) - 1)
            dst[base + cuda.popc(below)] = src[i]

    src = np.random.default_rng(11).random(1000).astype(np.float32)
    dst = np.zeros_like(src)
    count = np.zeros(1, dtype=np.int32)
    compact[8, 128](src, np.float32(0.7), dst, count)
    kept = src[src > 0.7]
    assert count[0] == kept.size
    np.testing.assert_array_equal(np.sort(dst[:count[0]]), np.sort(kept))
    # order inside a warp is kept
    for w in range(0, 1000, 32):
        chunk = src[w:w + 32]
        sel = chunk[chunk > 0.7]
        if sel.size:
            pos = np.flatnonzero(np.isin(dst[:count[0]], sel))
            np.testing.assert_array_equal(dst[pos], sel)


# ---- a sum in one pass: partial sums per block, a threadfence, a ticket from atomic.inc, and the
# last block to finish adds the partials (CUDA's threadFenceReduction sample in numba-cuda) ----

def test_threadfence_last_block_sum(cuda):
    TPB = 64

    @cuda.jit
    def sum_one_pass(x, partial, ticket, out):
        s = cuda.shared.array(TPB, dtype=float64)
        am_last = cuda.shared.array(1, dtype=int32)
        t = cuda.threadIdx.x
        acc = 0.0
        for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
            acc += x[i]
        s[t] = acc
        cuda.syncthreads()
        half = TPB // 2
        while half > 0:
            if t < half:
                s[t] += s[t + half]
            cuda.syncthreads()
            half //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s[0]
            cuda.threadfence()
            value = cuda.atomic.inc(ticket, 0, cuda.gridDim.x)
            am_last[0] = value == cuda.gridDim.x - 1
        cuda.syncthreads()
        if am_last[0] and t == 0:
            total = 0.0
            for b in range(cuda.gridDim.x):
                total += partial[b]
            out[0] = total
            ticket[0] = 0

    x = np.random.default_rng(12).random(3000)
    partial = cuda.device_array(6)
    ticket = cuda.to_device(np.zeros(1, dtype=np.uint32))
    out = cuda.device_array(1)
    for _ in range(2):
        sum_one_pass[6, TPB](cuda.to_device(x), partial, ticket, out)
        np.testing.assert_allclose(out.copy_to_host()[0], x.sum(), rtol=1e-12)
    assert ticket.copy_to_host()[0] == 0


# ---- Blelloch's work-efficient exclusive scan of one block in shared memory: an up-sweep and a
# down-sweep over a tree of partial sums (GPU Gems 3, ch. 39, in numba-cuda course code) ----

def test_blelloch_exclusive_scan(cuda):
    N = 128

    @cuda.jit
    def prescan(g_idata, g_odata):
        temp = cuda.shared.array(N, dtype=int32)
        thid = cuda.threadIdx.x
        offset = 1
        temp[2 * thid] = g_idata[2 * thid]
        temp[2 * thid + 1] = g_idata[2 * thid + 1]
        d = N >> 1
        while d > 0:
            cuda.syncthreads()
            if thid < d:
                ai = offset * (2 * thid + 1) - 1
                bi = offset * (2 * thid + 2) - 1
                temp[bi] += temp[ai]
            offset *= 2
            d >>= 1
        if thid == 0:
            temp[N - 1] = 0
        d = 1
        while d < N:
            offset >>= 1
            cuda.syncthreads()
            if thid < d:
                ai = offset * (2 * thid + 1) - 1
                bi = offset * (2 * thid + 2) - 1
                t = temp[ai]
                temp[ai] = temp[bi]
                temp[bi] += t
            d *= 2
        cuda.syncthreads()
        g_odata[2 * thid] = temp[2 * thid]
        g_odata[2 * thid + 1] = temp[2 * thid + 1]

    x = np.random.default_rng(13).integers(0, 100, N).astype(np.int32)
    out = np.zeros_like(x)
    prescan[1, N // 2](x, out)
    np.testing.assert_array_equal(out, np.concatenate([[0], np.cumsum(x)[:-1]]))


# ---- a bitonic sorting network over global memory, one launch per (k, j) stage driven from
# the host (the classic CUDA sample, ported) ----

def test_bitonic_sort_global_stages(cuda):
    @cuda.jit
    def bitonic_step(values, j, k):
        i = cuda.grid(1)
        ixj = i ^ j
        if ixj > i:
            if (i & k) == 0:
                if values[i] > values[ixj]:
                    values[i], values[ixj] = values[ixj], values[i]
            else:
                if values[i] < values[ixj]:
                    values[i], values[ixj] = values[ixj], values[i]

    n = 512
    vals = np.random.default_rng(14).random(n).astype(np.float32)
    d = cuda.to_device(vals)
    k = 2
    while k <= n:
        j = k >> 1
        while j > 0:
            bitonic_step[n // 128, 128](d, j, k)
            j >>= 1
        k <<= 1
    np.testing.assert_array_equal(d.copy_to_host(), np.sort(vals))


# ---- a sparse matrix-vector product over CSR, one thread a row (scientific-computing course) ----

def test_csr_spmv_scalar(cuda):
    @cuda.jit
    def spmv_csr(num_rows, ptr, indices, data, x, y):
        row = cuda.blockDim.x * cuda.blockIdx.x + cuda.threadIdx.x
        if row < num_rows:
            dot = 0.0
            row_start = ptr[row]
            row_end = ptr[row + 1]
            for jj in range(row_start, row_end):
                dot += data[jj] * x[indices[jj]]
            y[row] = dot

    rng = np.random.default_rng(15)
    dense = rng.random((90, 70)) * (rng.random((90, 70)) < 0.1)
    rows, cols = np.nonzero(dense)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=90))]).astype(np.int32)
    indices = cols.astype(np.int32)
    data = dense[rows, cols]
    x = rng.random(70)
    y = cuda.device_array(90)
    spmv_csr[_blocks(90, 32), 32](90, cuda.to_device(ptr), cuda.to_device(indices),
                                  cuda.to_device(data), cuda.to_device(x), y)
    np.testing.assert_allclose(y.copy_to_host(), dense @ x, rtol=1e-12)


# ---- a row-wise softmax in float32, one block a row: the row's max and sum reduced in shared
# memory (deep-learning course kernels) ----

def test_softmax_rows_block_reductions(cuda):
    TPB = 32

    @cuda.jit
    def softmax_rows(x, out):
        row = cuda.blockIdx.x
        t = cuda.threadIdx.x
        buf = cuda.shared.array(TPB, dtype=float32)
        m = -np.inf
        for j in range(t, x.shape[1], TPB):
            m = max(m, x[row, j])
        buf[t] = m
        cuda.syncthreads()
        s = TPB // 2
        while s > 0:
            if t < s:
                buf[t] = max(buf[t], buf[t + s])
            cuda.syncthreads()
            s //= 2
        row_max = buf[0]
        cuda.syncthreads()
        acc = float32(0.0)
        for j in range(t, x.shape[1], TPB):
            e = math.exp(x[row, j] - row_max)
            out[row, j] = e
            acc += e
        buf[t] = acc
        cuda.syncthreads()
        s = TPB // 2
        while s > 0:
            if t < s:
                buf[t] += buf[t + s]
            cuda.syncthreads()
            s //= 2
        total = buf[0]
        for j in range(t, x.shape[1], TPB):
            out[row, j] /= total

    x = np.random.default_rng(16).normal(size=(10, 100)).astype(np.float32) * 4
    out = np.zeros_like(x)
    softmax_rows[10, TPB](x, out)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=2e-6, atol=1e-7)
    assert out.dtype == np.float32


# ---- an RGB image to grey levels, uint8 in and out, in a 2-d grid (image-processing tutorials) ----

def test_rgb_to_grayscale_uint8(cuda):
    @cuda.jit
    def to_gray(rgb, gray):
        row, col = cuda.grid(2)
        if row < gray.shape[0] and col < gray.shape[1]:
            r = rgb[row, col, 0]
            g = rgb[row, col, 1]
            b = rgb[row, col, 2]
            gray[row, col] = np.uint8(0.21 * r + 0.72 * g + 0.07 * b)

    rgb = np.random.default_rng(17).integers(0, 256, (30, 41, 3)).astype(np.uint8)
    gray = cuda.device_array((30, 41), dtype=np.uint8)
    to_gray[(2, 3), (16, 16)](cuda.to_device(rgb), gray)
    f = rgb.astype(np.float64)
    exact = 0.21 * f[..., 0] + 0.72 * f[..., 1] + 0.07 * f[..., 2]
    got, want = gray.copy_to_host(), exact.astype(np.uint8)
    # the GPU contracts a * b + c into one fma, as numba-cuda does: where the sum lies within
    # rounding of a whole number, its truncation may land on either side
    near = np.abs(exact - np.round(exact)) < 1e-9 * np.abs(exact).max()
    np.testing.assert_array_equal(got[~near], want[~near])
    assert np.all(np.abs(got[near].astype(int) - want[near].astype(int)) <= 1)


# ---- forall over a grid-stride loop, then a block sum through dynamic shared memory sized at
# launch (numba-cuda's documented forms) ----

def test_forall_and_dynamic_shared_sum(cuda):
    @cuda.jit
    def axpy(a, x, y):
        for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
            y[i] += a * x[i]

    @cuda.jit
    def block_sums(x, out):
        buf = cuda.shared.array(0, dtype=float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        buf[t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        if t == 0:
            s = 0.0
            for k in range(cuda.blockDim.x):
                s += buf[k]
            out[cuda.blockIdx.x] = s

    x = np.arange(1000, dtype=np.float64)
    y = np.ones(1000)
    dy = cuda.to_device(y)
    axpy.forall(x.size)(2.0, cuda.to_device(x), dy)
    want = 1.0 + 2.0 * x
    np.testing.assert_array_equal(dy.copy_to_host(), want)
    out = cuda.device_array(8)
    stream = cuda.stream()
    block_sums[8, 128, stream, 128 * 8](dy, out)
    stream.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), np.add.reduceat(
        np.concatenate([want, np.zeros(24)]), np.arange(0, 1024, 128)), rtol=1e-14)


# ---- a batch of small matrix products as a generalised ufunc on the GPU (numba-cuda's
# documented matmul gufunc) ----

def test_guvectorize_batched_matmul(cuda):
    @cuda.guvectorize(['void(float64[:,:], float64[:,:], float64[:,:])'],
                      '(m,n),(n,p)->(m,p)', target='cuda')
    def matmul(A, B, C):
        m, n = A.shape
        n, p = B.shape
        for i in range(m):
            for j in range(p):
                C[i, j] = 0
                for k in range(n):
                    C[i, j] += A[i, k] * B[k, j]

    rng = np.random.default_rng(18)
    A = rng.random((20, 3, 4))
    B = rng.random((20, 4, 5))
    np.testing.assert_allclose(matmul(A, B), A @ B, rtol=1e-13)
    dC = cuda.device_array((20, 3, 5))
    matmul(cuda.to_device(A), cuda.to_device(B), out=dC)
    np.testing.assert_allclose(dC.copy_to_host(), A @ B, rtol=1e-13)


# ---- local non-affine displacements of a sheared particle packing (a glass-physics analysis
# package): cell lists, neighbour lists counted then filled, then per-particle tensors X and Y,
# X Y^-1 on the host, and D2min (cuda_programs_kernels.py) ----

def test_cell_list_neighbours_d2min(cuda):
    import cuda_programs_kernels as K
    rng = np.random.default_rng(19)
    n, ndim, L, rc = 120, 3, 10.0, 2.5
    box = np.full(ndim, L)
    a = (rng.random((n, ndim)) - 0.5) * L
    xyt = 0.05
    l0 = np.eye(ndim)
    lt = np.array([[1, xyt, 0], [0, 1., 0], [0, 0, 1]])
    b = a + rng.normal(scale=0.05, size=a.shape)
    da = np.ones(n)
    h = K.cell_helpers(cuda)
    ibox = np.asarray(np.round(box / (rc + da.max())), dtype=np.int64)
    cell_id = np.zeros(n, dtype=np.int64)
    tpb = cuda.get_current_device().WARP_SIZE
    bpg = math.ceil(n / tpb)
    h["cell_ind"][bpg, tpb](a, box, ibox, cell_id)
    want_ids = np.zeros(n, dtype=np.int64)
    stride = 1
    for d in range(ndim):
        want_ids += np.floor((a[:, d] / box[d] + 0.5) * ibox[d]).astype(np.int64) * stride
        stride *= ibox[d]
    np.testing.assert_array_equal(cell_id, want_ids)
    cl = np.argsort(cell_id, kind="stable").astype(np.int64)
    cc = np.r_[0, np.cumsum(np.bincount(cell_id[cl], minlength=int(ibox.prod())))].astype(np.int64)
    dim = np.ones(ndim, dtype=np.int64) * 3
    nl_kernel = K.neighbour_kernels(cuda, h, ndim)
    nc = np.zeros(n, dtype=np.int64)
    nl_kernel[bpg, tpb](a, box, ibox, da, l0, rc, cl, cc, np.zeros((n, 0), dtype=np.int64), nc,
                        dim)
    ret = np.zeros((n, nc.max()), dtype=np.int64)
    nc2 = np.zeros(n, dtype=np.int64)
    nl_kernel[bpg, tpb](a, box, ibox, da, l0, rc, cl, cc, ret, nc2, dim)
    np.testing.assert_array_equal(nc, nc2)
    # the neighbours by brute force (the cells are at least rc wide, so none is missed)
    d = a[None, :, :] - a[:, None, :]
    d -= box * np.floor(d / box + 0.5)
    dist = np.sqrt((d ** 2).sum(-1))
    np.fill_diagonal(dist, np.inf)
    for i in range(n):
        np.testing.assert_array_equal(np.sort(ret[i, :nc[i]]), np.flatnonzero(dist[i] < rc))
    cu_xy, cu_div = K.d2min_kernels(cuda, h, ndim)
    Xij = np.zeros((n, ndim, ndim))
    Yij = np.zeros((n, ndim, ndim))
    cu_xy[bpg, tpb](a, b, box, ret, nc, Xij, Yij, l0, lt)
    XIY = np.matmul(Xij, np.linalg.pinv(Yij, hermitian=True))
    DIV = np.zeros(n)
    cu_div[bpg, tpb](a, b, box, ret, nc, XIY, l0, lt, DIV)

    def pbc(v):
        return v - box * np.floor(v / box + 0.5)
    want_X, want_Y, want_D = np.zeros_like(Xij), np.zeros_like(Yij), np.zeros(n)
    for i in range(n):
        nbs = ret[i, :nc[i]]
        dr0 = pbc(a[nbs] - a[i]) @ l0.T
        drt = pbc(b[nbs] - b[i]) @ lt.T
        want_X[i] = drt.T @ dr0
        want_Y[i] = dr0.T @ dr0
        if nbs.size:
            want_D[i] = ((drt - dr0 @ XIY[i].T) ** 2).sum() / nbs.size
    np.testing.assert_allclose(Xij, want_X, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(Yij, want_Y, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(DIV, want_D, rtol=1e-9, atol=1e-12)


# ---- a CNN's operators trained from scratch in numba-cuda (cuda_programs_kernels.py): kernels
# made per layer inside the functions that launch them, two layer shapes in turn, compared with
# NumPy's convolutions ----

def _conv_ref(x, w, b, P, S):
    B, C, H, W = x.shape
    F, _, K, _ = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (P, P), (P, P)))
    Ho, Wo = (H + 2 * P - K) // S + 1, (W + 2 * P - K) // S + 1
    out = np.zeros((B, F, Ho, Wo))
    for ky in range(K):
        for kx in range(K):
            patch = xp[:, :, ky:ky + S * (Ho - 1) + 1:S, kx:kx + S * (Wo - 1) + 1:S]
            out += np.einsum("bchw,fc->bfhw", patch, w[:, :, ky, kx])
    return out + b[None, :, None, None]


def test_cnn_operators_closures_per_shape(cuda):
    import cuda_programs_kernels as K
    rng = np.random.default_rng(20)
    for (B, C, H, W, F, KS, P, S) in [(2, 3, 12, 10, 4, 3, 2, 2), (1, 2, 9, 9, 3, 2, 1, 1)]:
        x = rng.normal(size=(B, C, H, W)).astype(np.float32)
        w = rng.normal(size=(F, C, KS, KS)).astype(np.float32)
        b = rng.normal(size=F).astype(np.float32)
        got = K.conv2d_shared(cuda, x, w, b, P=P, S=S).copy_to_host()
        np.testing.assert_allclose(got, _conv_ref(x, w, b, P, S), rtol=1e-4, atol=1e-4)
        # gradients of a stride-1 convolution with padding 1
        w3 = rng.normal(size=(F, C, 3, 3)).astype(np.float32)
        lo = rng.normal(size=(B, F, H, W)).astype(np.float32)
        got_f = K.filter_conv_backward(cuda, x, w3, lo).copy_to_host()
        xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
        grad_w = np.zeros(w3.shape)
        for ky in range(3):
            for kx in range(3):
                grad_w[:, :, ky, kx] = np.einsum("bfhw,bchw->fc", lo, xp[:, :, ky:ky + H, kx:kx + W])
        np.testing.assert_allclose(got_f, w3 - 0.0008 * grad_w, rtol=1e-5, atol=1e-5)
        got_x = K.input_conv_backward(cuda, x, w3, lo).copy_to_host()
        lop = np.pad(lo.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
        grad_x = np.zeros(x.shape)
        for ky in range(3):
            for kx in range(3):
                grad_x += np.einsum("bfhw,fc->bchw", lop[:, :, 2 - ky:2 - ky + H, 2 - kx:2 - kx + W],
                                    w3[:, :, ky, kx])
        np.testing.assert_allclose(got_x, grad_x, rtol=1e-4, atol=1e-4)
    logits = rng.normal(size=(5, 10, 1, 1)).astype(np.float32)
    probs = K.softmax(cuda, logits).copy_to_host()
    e = np.exp(logits[:, :, 0, 0].astype(np.float64))
    np.testing.assert_allclose(probs, e / e.sum(1, keepdims=True), rtol=1e-5)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 5)]
    grad = K.softmax_backward(cuda, probs, y).copy_to_host()
    np.testing.assert_allclose(grad[:, :, 0, 0], (probs - y) / 5, rtol=1e-6)


# ---- photons escaping a slab, distances to collision drawn through cuda.random's attribute path
# inside the kernel, counts summed into a host array (a Monte Carlo radiative-transfer study) ----

def test_mcrt_escape_counts(cuda):
    import pyjit as nb
    from pyjit.cuda.random import create_xoroshiro128p_states
    from math import log

    @cuda.jit
    def gpu_random_numbers(rng_states, N, arr):
        tid = cuda.grid(1)
        stride = cuda.gridsize(1)
        count_res = 0
        for i in range(tid, N, stride):
            mean_free_path = nb.float32(1.0 / 0.5)
            q = cuda.random.xoroshiro128p_uniform_float32(rng_states, tid)
            distance_to_collision = nb.float32(-log(q) * mean_free_path)
            distance_to_surface = nb.float32(1.0)
            if distance_to_collision < distance_to_surface:
                count_res += 1
        cuda.atomic.add(arr, 0, count_res)

    grid_size, block_size, N = 4, 32, 1000
    result = 0
    arrays = [np.zeros(1, dtype=np.int64) for _ in range(2)]
    for arr in arrays:
        with cuda.gpus[0]:
            rng_states = create_xoroshiro128p_states(grid_size * block_size, seed=1234) \
                if not hasattr(cuda, "random") else \
                cuda.random.create_xoroshiro128p_states(grid_size * block_size, seed=1234)
            gpu_random_numbers[grid_size, block_size](rng_states, N, arr)
            result += arr[0]
    from gpu_kernels import _ref_next, _ref_states, _ref_unit
    want = 0
    for tid, s in enumerate(_ref_states(grid_size * block_size, 1234)):
        for _ in range(tid, N, grid_size * block_size):
            q = np.float32(_ref_unit(_ref_next(s)))
            want += np.float32(-math.log(q) * np.float32(2.0)) < 1.0
    assert result == 2 * want


# ---- kernels declared with signatures, given Python numbers: a float for a float32 parameter
# is a float32 and an int for an int32 one an int32, in every backend (numba-cuda converts
# arguments to the declared types); an array of another dtype is refused ----

def test_declared_signatures_convert_scalars(cuda):
    @cuda.jit('void(float32[:], float32[:], float32, int32)')
    def scale_shift(x, out, s, k):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i] = x[i] * s + (k * k) // 3

    @cuda.jit(['void(float64[:,::1], float64)', 'void(float32[:,::1], float32)'])
    def shift2d(a, v):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] += v

    x = (np.arange(200, dtype=np.float32) + 1) / 7
    out = np.zeros_like(x)
    scale_shift[7, 32](x, out, 0.1, 70)
    # numba-cuda's conversion: 0.1 as a float32 (float64 arithmetic would round differently)
    np.testing.assert_array_equal(out, x * np.float32(0.1) + np.float32(70 * 70 // 3))
    for dt in (np.float64, np.float32):
        a = np.arange(12, dtype=dt).reshape(3, 4)
        shift2d[(1, 1), (4, 4)](a, 0.1)
        np.testing.assert_array_equal(a, np.arange(12, dtype=dt).reshape(3, 4) + dt(0.1))
    with pytest.raises(TypeError, match="no matching definition"):
        scale_shift[7, 32](x.astype(np.float64), out, 0.1, 3)
    with pytest.raises(TypeError, match="no matching definition"):
        shift2d[(1, 1), (4, 4)](np.zeros((4, 4), dtype=np.int32), 1.0)


# ---- an ensemble of oscillators stepped by RK4 stage functions over row slices of device arrays
# (cuda_programs_kernels.py); its fourth stage evaluates at the start point, as the course code
# does, and the reference does the same ----

def test_rk4_oscillator_ensemble(cuda):
    import cuda_programs_kernels as K
    blocks_per_grid, threads_per_block = 4, 32
    n = blocks_per_grid * threads_per_block
    dt = np.float32(0.01)
    STEPS = np.int16(40)
    y0 = np.random.default_rng(21).random((n, 2))
    y0_d = cuda.to_device(y0)
    sol_d = cuda.device_array(y0.shape, dtype="float64")
    dydt_d = cuda.device_array(y0.shape, dtype="float64")
    ks = [cuda.device_array_like(y0) for _ in range(4)]
    d_buffer = cuda.device_array_like(y0)
    K.rk4_integrator(cuda)[blocks_per_grid, threads_per_block](y0_d, dydt_d, sol_d, dt, STEPS,
                                                               *ks, d_buffer)

    def f(y):
        return np.stack([y[:, 1], -y[:, 0]], 1)
    y = y0.copy()
    h = float(dt)
    for _ in range(1, int(STEPS)):
        k1 = f(y)
        k2 = f(y + k1 / 2)
        k3 = f(y + k2 / 2)
        k4 = f(y)
        y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
    np.testing.assert_allclose(sol_d.copy_to_host(), y, rtol=1e-12)
    np.testing.assert_allclose(y0_d.copy_to_host(), y, rtol=1e-12)


# ---- the module paths numba-cuda programs import from, after the import is switched: one
# module under pyjit.cuda and pyjit.gpu, so classes caught or checked are the backend's ----

def test_numba_cuda_import_paths():
    import pyjit.cuda
    import pyjit.gpu
    from pyjit.cuda import libdevice as ld_cuda
    from pyjit.cuda.cudadrv import devicearray, driver, error
    from pyjit.cuda.cudadrv.devicearray import DeviceNDArray, is_cuda_ndarray
    from pyjit.cuda.cudadrv.driver import CudaAPIError
    from pyjit.errors import CudaError
    from pyjit.gpu import libdevice as ld_gpu
    from pyjit.gpu.errors import GpuUnavailableError
    assert ld_cuda is ld_gpu
    assert DeviceNDArray is pyjit.cuda.DeviceNDArray is devicearray.DeviceNDArray
    assert CudaAPIError is CudaError and driver.CudaAPIError is CudaError
    assert error.CudaSupportError is GpuUnavailableError
    assert issubclass(pyjit.cuda.errors.GpuUnavailableError, CudaAPIError)
    assert not is_cuda_ndarray(np.zeros(3))
    with pytest.raises(ImportError, match="pyjit.cuda.no_such_module"):
        import pyjit.cuda.no_such_module  # noqa: F401


# ---- numba-cuda's documented programs that sync their grid: in both simulators and on the GPU,
# and compiled to PTX below ----

@pytest.fixture(params=["simulator", "cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def cuda_cg(request):
    import importlib

    import pyjit.gpu as g
    if request.param == "simulator":
        return g if g.SIMULATOR and not g.SIMULATOR_CPU else \
            importlib.import_module("pyjit.gpu.simulator")
    if request.param == "cpu":
        return g if g.SIMULATOR_CPU else importlib.import_module("pyjit.gpu.cpu")
    if g.SIMULATOR or not g.is_available():
        pytest.skip("no GPU (or PYJIT_SIMULATOR set)")
    return g


def test_docs_heat_equation_grid_sync(cuda_cg):
    cuda = cuda_cg
    size = 101
    data = np.zeros(size)
    data[50] = 10000
    buf_0 = cuda.to_device(data)
    buf_1 = cuda.device_array_like(buf_0)
    niter = 40

    @cuda.jit
    def solve_heat_equation(buf_0, buf_1, timesteps, k):
        i = cuda.grid(1)
        if i >= len(buf_0):
            return
        grid = cuda.cg.this_grid()
        for step in range(timesteps):
            if (step % 2) == 0:
                data = buf_0
                next_data = buf_1
            else:
                data = buf_1
                next_data = buf_0
            curr_temp = data[i]
            if i == 0:
                next_temp = curr_temp + k * (data[i + 1] - (2 * curr_temp))
            elif i == len(data) - 1:
                next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp))
            else:
                next_temp = curr_temp + k * (data[i - 1] - (2 * curr_temp) + data[i + 1])
            next_data[i] = next_temp
            grid.sync()

    solve_heat_equation.forall(len(data))(buf_0, buf_1, niter, 0.25)
    states = [data]
    for _ in range(niter):
        nxt = states[-1] * 0.5
        nxt[1:] += 0.25 * states[-1][:-1]
        nxt[:-1] += 0.25 * states[-1][1:]
        states.append(nxt)
    # steps alternate buffers: buf_0 holds the last step (niter is even), buf_1 the one before
    np.testing.assert_allclose(buf_0.copy_to_host(), states[niter], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(buf_1.copy_to_host(), states[niter - 1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(buf_1.copy_to_host().sum(), 10000, rtol=1e-12)


SESSION_TIMEOUT = np.int64(np.timedelta64("3600", "s"))


def test_docs_sessionize_grid_sync_in_branch(cuda_cg):
    cuda = cuda_cg

    @cuda.jit
    def sessionize(user_id, timestamp, results):
        gid = cuda.grid(1)
        size = len(user_id)
        if gid >= size:
            return
        is_first_datapoint = gid == 0
        if not is_first_datapoint:
            new_user = user_id[gid] != user_id[gid - 1]
            timed_out = timestamp[gid] - timestamp[gid - 1] > SESSION_TIMEOUT
            is_sess_boundary = new_user or timed_out
        else:
            is_sess_boundary = True
        if is_sess_boundary:
            results[gid] = gid
            grid = cuda.cg.this_grid()
            grid.sync()
            look_ahead = 1
            while results[gid + look_ahead] == 0:
                results[gid + look_ahead] = gid
                look_ahead += 1
                if gid + look_ahead == size - 1:
                    results[gid + look_ahead] = gid
                    break

    ids = cuda.to_device(np.array([1] * 6 + [2] * 3 + [3] * 10 + [4] * 9))
    sec = np.array([1, 2, 3, 5000, 5001, 5002, 1, 2, 3, 1, 2, 5000, 5001, 10000, 10001, 10002,
                    10003, 15000, 150001, 1, 5000, 50001, 15000, 20000, 25000, 25001, 25002,
                    25003], dtype="datetime64[ns]").astype("int64")
    results = cuda.to_device(np.zeros(28))
    sessionize.forall(28)(ids, cuda.to_device(sec), results)
    # the documented answer: each point labelled by the first point of its session
    expect = [0, 0, 0, 3, 3, 3, 6, 6, 6, 9, 9, 11, 11, 13, 13, 13, 13, 17, 18, 19, 20, 21, 21, 23,
              24, 24, 24, 24]
    np.testing.assert_array_equal(results.copy_to_host(), expect)


@pytest.mark.parametrize("name", ["test_docs_heat_equation_grid_sync",
                                  "test_docs_sessionize_grid_sync_in_branch"])
def test_grid_sync_kernels_compile_for_the_gpu(name):
    from pyjit import _core
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from test_gpu_compile import _Compiled, _gpu_stub
    stub = _gpu_stub()            # a gpu module whose launches compile the kernel, then stop
    with pytest.raises(_Compiled):
        globals()[name](stub)
    assert len(stub.compiled) == 1 and "pj_grid_barrier" in stub.compiled[0][1]


# ---- numba-cuda's documented foreign function: a device function of CUDA C declared with
# declare_device and linked from its .cu file; the simulators compile it for the CPU ----

FUNCTIONS_CU = """
// a foreign function in numba-cuda's ABI: the result through a pointer, 0 for no exception
extern "C" __device__ int
mul_f32_f32(float* return_value, float x, float y)
{
  *return_value = x * y;
  return 0;
}
"""


def test_docs_ffi_declare_device_cu(cuda, tmp_path):
    functions_cu = tmp_path / "functions.cu"
    functions_cu.write_text(FUNCTIONS_CU)
    mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)",
                              link=str(functions_cu))

    @cuda.jit
    def multiply_vectors(r, x, y):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = mul(x[i], y[i])

    rng = np.random.default_rng(1)
    x = rng.random(32).astype(np.float32)
    y = rng.random(32).astype(np.float32)
    r = np.zeros_like(x)
    multiply_vectors[1, 32](r, x, y)
    np.testing.assert_array_equal(r, x * y)


# ---- FBPIC's charge deposition for azimuthal modes 0 and 1 (cuda_programs_kernels.py), against
# the same linear shapes scattered by NumPy ----

def test_pic_charge_deposition_complex_modes(cuda):
    import cuda_programs_kernels as K
    rng = np.random.default_rng(22)
    Nz, Nr, n = 12, 6, 400
    zmin, dz, rmin, dr = 0.0, 0.5, 0.0, 0.25
    z = zmin + rng.random(n) * (Nz - 1.5) * dz
    r = rng.random(n) * (Nr + 0.5) * dr
    theta = rng.random(n) * 2 * np.pi
    x, y = r * np.cos(theta), r * np.sin(theta)
    w = rng.random(n) + 0.5
    q = -1.6e-19
    z_cell = (z - zmin) / dz - 0.5
    r_cell = (np.sqrt(x ** 2 + y ** 2) - rmin) / dr - 0.5
    iz_up = np.floor(z_cell).astype(np.int64) + 1
    ir_up = np.minimum(np.floor(r_cell).astype(np.int64) + 1, Nr)
    cell_idx = iz_up * (Nr + 1) + ir_up
    order = np.argsort(cell_idx, kind="stable")
    x, y, z, w, cell_idx = x[order], y[order], z[order], w[order], cell_idx[order]
    prefix_sum = np.cumsum(np.bincount(cell_idx, minlength=(Nz + 1) * (Nr + 1))).astype(np.int32)
    deposit = K.pic_deposition(cuda)
    for m in (0, 1):
        rho = np.zeros((Nz, Nr), dtype=np.complex128)
        d_rho = cuda.to_device(rho)
        deposit[_blocks(prefix_sum.size, 64), 64](
            cuda.to_device(x), cuda.to_device(y), cuda.to_device(z), cuda.to_device(w), q,
            1 / dz, zmin, Nz, 1 / dr, rmin, Nr, d_rho, m, cuda.to_device(cell_idx),
            cuda.to_device(prefix_sum))
        # NumPy: the same four weights of each particle, scattered
        rj = np.sqrt(x ** 2 + y ** 2)
        e = ((x + 1j * y) / rj) ** m
        zc, rc = (z - zmin) / dz - 0.5, (rj - rmin) / dr - 0.5
        iz, ir = np.floor(zc).astype(np.int64), np.floor(rc).astype(np.int64)
        flip = np.where(ir < 0, -1.0, 1.0)
        Sz = [iz + 1 - zc, zc - iz]
        Sr = [flip * (ir + 1 - rc), rc - ir]      # FBPIC flips the lower weight only
        iz_upper, ir_upper = iz + 1, ir + 1
        iz0 = np.where(iz_upper - 1 < 0, iz_upper - 1 + Nz, iz_upper - 1)
        ir0 = np.where(ir_upper - 1 < 0, -ir_upper, ir_upper - 1)
        ir1 = np.minimum(ir_upper, Nr - 1)
        want = np.zeros((Nz, Nr), dtype=np.complex128)
        val = q * w * e
        for (zi, ri, s) in [(iz0, ir0, Sr[0] * Sz[0]), (iz0, ir1, Sr[1] * Sz[0]),
                            (iz_upper, ir0, Sr[0] * Sz[1]), (iz_upper, ir1, Sr[1] * Sz[1])]:
            np.add.at(want, (zi, ri), s * val)
        if m == 0:
            want = want.real + 0j
        np.testing.assert_allclose(d_rho.copy_to_host(), want, rtol=1e-10, atol=1e-30)


def test_pic_vay_pusher_shared_inline_function(cuda):
    import cuda_programs_kernels as K
    rng = np.random.default_rng(23)
    n = 300
    u = rng.normal(size=(3, n))
    inv_gamma = 1 / np.sqrt(1 + (u ** 2).sum(0))
    E = rng.normal(size=(3, n)) * 1e10
    B = rng.normal(size=(3, n)) * 10
    pos = rng.random((3, n)) * 1e-5
    push_p_gpu, push_x_gpu = K.pusher(cuda)
    d_u = [cuda.to_device(a) for a in u]
    d_g = cuda.to_device(inv_gamma)
    d_E = [cuda.to_device(a) for a in E]
    d_B = [cuda.to_device(a) for a in B]
    d_pos = [cuda.to_device(a) for a in pos]
    dt, q, m = 1e-15, -K.Q_E, K.M_E
    bpg, tpb = int(n / 128 + 1), 128        # FBPIC's cuda_tpb_bpg_1d
    push_p_gpu[bpg, tpb](*d_u, d_g, *d_E, *d_B, q, m, n, dt, True)
    push_x_gpu[bpg, tpb](*d_pos, *d_u, d_g, dt, 1., 1., 1.)
    vay = np.vectorize(K.push_p_vay)      # the same function, in Python, particle by particle
    want = vay(*u, inv_gamma, *E, *B, q * dt / (m * K.C_LIGHT), 0.5 * q * dt / m)
    for d, w in zip(d_u + [d_g], want):
        np.testing.assert_allclose(d.copy_to_host(), w, rtol=1e-12)
    for d, p, uk in zip(d_pos, pos, want[:3]):
        np.testing.assert_allclose(d.copy_to_host(), p + K.C_LIGHT * dt * want[3] * uk,
                                   rtol=1e-12)
    # keep_momentum=False: only the new gamma is kept
    u2 = rng.normal(size=(3, n))
    d_u2 = [cuda.to_device(a) for a in u2]
    d_g2 = cuda.to_device(np.ones(n))
    push_p_gpu[bpg, tpb](*d_u2, d_g2, *d_E, *d_B, q, m, n, dt, False)
    want2 = vay(*u2, np.ones(n), *E, *B, q * dt / (m * K.C_LIGHT), 0.5 * q * dt / m)
    np.testing.assert_allclose(d_g2.copy_to_host(), want2[3], rtol=1e-12)
    for d, a in zip(d_u2, u2):
        np.testing.assert_array_equal(d.copy_to_host(), a)


# ---- a kernel declared over an array of records, the signature built with from_dtype ----

PARTICLE = np.dtype([("x", np.float64), ("v", np.float64), ("m", np.float32)])


def test_declared_signature_of_record_arrays(cuda):
    from pyjit import from_dtype, types
    rec = from_dtype(PARTICLE)

    @cuda.jit(void(types.Array(rec, 1, "A"), float64))
    def drift(p, dt):
        i = cuda.grid(1)
        if i < p.shape[0]:
            p[i].x += p[i].v * dt / p[i].m

    p = np.zeros(50, dtype=PARTICLE)
    p["x"] = np.arange(50)
    p["v"] = np.linspace(-1, 1, 50)
    p["m"] = 2.0
    want = p["x"] + p["v"] * 0.5 / p["m"]
    d = cuda.to_device(p)
    drift[2, 32](d, 0.5)
    np.testing.assert_allclose(d.copy_to_host()["x"], want, rtol=1e-15)


# ---- streams awaited from asyncio (numba-cuda's Stream.async_done): chunks scaled on their own
# streams, gathered by a coroutine; the awaitable of a stream fake whose work finishes late,
# as the GPU's does ----

def test_streams_awaited_with_asyncio(cuda):
    import asyncio

    @cuda.jit
    def scale(x, k):
        for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
            x[i] *= k

    chunks = [np.arange(c * 100, (c + 1) * 100, dtype=np.float64) for c in range(3)]

    async def run():
        streams = [cuda.stream() for _ in chunks]
        devs = []
        for c, (s, host) in enumerate(zip(streams, chunks)):
            d = cuda.to_device(host, stream=s)
            scale[2, 32, s](d, c + 2.0)
            devs.append(d)
        done = await asyncio.gather(*(s.async_done() for s in streams))
        assert list(done) == streams
        return [d.copy_to_host() for d in devs]

    for c, (got, host) in enumerate(zip(asyncio.run(run()), chunks)):
        np.testing.assert_array_equal(got, host * (c + 2.0))
    # as memory-bound programs do after dropping arrays: nothing is left queued to free
    cuda.current_context().deallocations.clear()
    assert len(cuda.current_context().deallocations) == 0


def test_async_done_waits_for_the_stream():
    import asyncio

    from pyjit.gpu._hostapi import async_done

    class LateStream:          # a stream whose work ends after three queries, then one that fails
        def __init__(self, fail=False):
            self.polls, self.fail = 0, fail

        def query(self):
            self.polls += 1
            if self.fail and self.polls == 2:
                raise RuntimeError("the kernel faulted")
            return self.polls >= 3

    async def run():
        s = LateStream()
        assert await async_done(s) is s and s.polls == 3
        with pytest.raises(RuntimeError, match="faulted"):
            await async_done(LateStream(fail=True))
    asyncio.run(run())
