"""numba-cuda rasterisation kernels of a GPU port of a plotting library's aggregation pipeline,
the import switched to pyjit: kernels declared with signature strings
(`'void(float64[:], float64[:], float64[:,:])'`) clearing a canvas, counting points per pixel
with `cuda.atomic.add` on a (row, column) tuple, summing and averaging a value column, taking
per-pixel maxima of NaN-holed data through `cuda.atomic.max`/`nanmax`, then shading counts into
packed RGBA uint32 with a logarithmic colour ramp and spreading pixels by a square footprint;
the host sizes launches from `cuda.get_current_device().MAX_THREADS_PER_BLOCK` (with a fallback
as the port has) and checks `isinstance(..., DeviceNDArrayBase)` to decide whether to copy.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _launch_2d(shape, tpb):
    side = int(math.sqrt(tpb))
    return ((shape[0] + side - 1) // side, (shape[1] + side - 1) // side), (side, side)


def _points(rng, n, w, h):
    x = rng.uniform(-1, w + 1, n)
    y = rng.uniform(-1, h + 1, n)
    v = rng.standard_normal(n)
    v[rng.random(n) < 0.1] = np.nan
    return x, y, v


def _pixels(x, y, w, h):
    nx = x.astype(np.int64)
    ny = y.astype(np.int64)
    inside = (x >= 0) & (y >= 0) & (nx < w) & (ny < h)
    return nx, ny, inside


def test_point_aggregations(cuda):
    from pyjit.cuda.cudadrv.devicearray import DeviceNDArrayBase

    try:
        max_tpb = cuda.get_current_device().MAX_THREADS_PER_BLOCK
    except Exception:      # noqa: BLE001 - the port's fallback
        max_tpb = 64
    tpb = min(max_tpb, 256)

    @cuda.jit('void(float64[:,:])')
    def memset_k(agg):
        x, y = cuda.grid(2)
        n, m = agg.shape
        if x < n and y < m:
            agg[x, y] = 0.0

    @cuda.jit('void(float64[:], float64[:], float64[:,:])')
    def count_k(xs, ys, agg):
        i = cuda.grid(1)
        if i < xs.size:
            n, m = agg.shape
            if xs[i] >= 0 and ys[i] >= 0:
                nx = int(xs[i])
                ny = int(ys[i])
                if nx < m and ny < n:
                    cuda.atomic.add(agg, (ny, nx), 1.0)

    @cuda.jit('void(float64[:], float64[:], float64[:], float64[:,:], float64[:,:])')
    def sum_count_k(xs, ys, vals, sums, counts):
        i = cuda.grid(1)
        if i < xs.size and not math.isnan(vals[i]):
            n, m = sums.shape
            if xs[i] >= 0 and ys[i] >= 0:
                nx = int(xs[i])
                ny = int(ys[i])
                if nx < m and ny < n:
                    cuda.atomic.add(sums, (ny, nx), vals[i])
                    cuda.atomic.add(counts, (ny, nx), 1.0)

    @cuda.jit('void(float64[:,:], float64[:,:], float64[:,:])')
    def mean_k(sums, counts, out):
        y, x = cuda.grid(2)
        if y < out.shape[0] and x < out.shape[1]:
            out[y, x] = sums[y, x] / counts[y, x] if counts[y, x] > 0 else math.nan

    @cuda.jit
    def max_k(xs, ys, vals, agg, agg_nan):
        i = cuda.grid(1)
        if i < xs.size and xs[i] >= 0 and ys[i] >= 0:
            nx = int(xs[i])
            ny = int(ys[i])
            if nx < agg.shape[1] and ny < agg.shape[0]:
                if not math.isnan(vals[i]):
                    cuda.atomic.max(agg, (ny, nx), vals[i])
                cuda.atomic.nanmax(agg_nan, (ny, nx), vals[i])

    w, h, n = 23, 17, 3000
    rng = np.random.default_rng(11)
    x, y, v = _points(rng, n, w, h)
    dx, dy, dv = (cuda.to_device(a) for a in (x, y, v))
    assert isinstance(dx, DeviceNDArrayBase) and not isinstance(x, DeviceNDArrayBase)
    agg = cuda.device_array((h, w))
    grid, block = _launch_2d(agg.shape, tpb)
    memset_k[grid, block](agg)
    count_k[(n + tpb - 1) // tpb, tpb](dx, dy, agg)
    nx, ny, inside = _pixels(x, y, w, h)
    want = np.zeros((h, w))
    np.add.at(want, (ny[inside], nx[inside]), 1.0)
    np.testing.assert_array_equal(agg.copy_to_host(), want)

    sums = cuda.device_array((h, w))
    counts = cuda.device_array((h, w))
    memset_k[grid, block](sums)
    memset_k[grid, block](counts)
    sum_count_k[(n + tpb - 1) // tpb, tpb](dx, dy, dv, sums, counts)
    mean = cuda.device_array((h, w))
    mean_k[grid, block](sums, counts, mean)
    ok = inside & ~np.isnan(v)
    ws = np.zeros((h, w))
    wc = np.zeros((h, w))
    np.add.at(ws, (ny[ok], nx[ok]), v[ok])
    np.add.at(wc, (ny[ok], nx[ok]), 1.0)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(mean.copy_to_host(), np.where(wc > 0, ws / wc, np.nan),
                                   rtol=1e-12)

    agg_max = cuda.to_device(np.full((h, w), -np.inf))
    agg_nanmax = cuda.to_device(np.full((h, w), -np.inf))
    max_k[(n + tpb - 1) // tpb, tpb](dx, dy, dv, agg_max, agg_nanmax)
    wmax = np.full((h, w), -np.inf)
    np.maximum.at(wmax, (ny[ok], nx[ok]), v[ok])
    np.testing.assert_array_equal(agg_max.copy_to_host(), wmax)
    np.testing.assert_array_equal(agg_nanmax.copy_to_host(), wmax)


# ---- shading: counts to packed 0xAABBGGRR pixels through a log ramp between two colours, zero
# counts transparent; then spreading each lit pixel over a (2r+1)^2 square, keeping the
# brightest alpha (the transfer functions of the same port) ----

def test_shade_and_spread(cuda):
    @cuda.jit(device=True)
    def lerp_channel(a, b, t):
        return int(a + (b - a) * t + 0.5)

    @cuda.jit
    def shade_k(agg, lo_rgb, hi_rgb, span, out):
        y, x = cuda.grid(2)
        if y >= agg.shape[0] or x >= agg.shape[1]:
            return
        c = agg[y, x]
        if c <= 0:
            out[y, x] = 0
            return
        t = math.log1p(c) / span
        r = lerp_channel(lo_rgb[0], hi_rgb[0], t)
        g = lerp_channel(lo_rgb[1], hi_rgb[1], t)
        b = lerp_channel(lo_rgb[2], hi_rgb[2], t)
        out[y, x] = np.uint32((255 << 24) | (b << 16) | (g << 8) | r)

    @cuda.jit
    def spread_k(img, r, out):
        y, x = cuda.grid(2)
        h, w = img.shape
        if y >= h or x >= w:
            return
        best = np.uint32(0)
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                yy = y + dy
                xx = x + dx
                if 0 <= yy < h and 0 <= xx < w:
                    p = img[yy, xx]
                    if (p >> 24) > (best >> 24) or ((p >> 24) == (best >> 24) and p > best):
                        best = p
        out[y, x] = best

    rng = np.random.default_rng(12)
    agg = np.where(rng.random((19, 26)) < 0.3, rng.integers(1, 400, (19, 26)), 0).astype(float)
    lo = np.array([68, 1, 84], np.int64)
    hi = np.array([253, 231, 37], np.int64)
    span = math.log1p(agg.max())
    img = cuda.device_array(agg.shape, np.uint32)
    blocks = ((19 + 7) // 8, (26 + 7) // 8)
    shade_k[blocks, (8, 8)](agg, lo, hi, span, img)
    t = np.log1p(agg) / span
    ch = [(lo[k] + (hi[k] - lo[k]) * t + 0.5).astype(np.int64) for k in range(3)]
    want = ((255 << 24) | (ch[2] << 16) | (ch[1] << 8) | ch[0]).astype(np.uint32)
    want[agg <= 0] = 0
    np.testing.assert_array_equal(img.copy_to_host(), want)

    spread = cuda.device_array_like(img)
    spread_k[blocks, (8, 8)](img, 1, spread)
    pad = np.pad(want, 1)
    wins = np.stack([pad[1 + dy:20 + dy, 1 + dx:27 + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    np.testing.assert_array_equal(spread.copy_to_host(), wins.max(0))
