"""numba-cuda image and field kernels from public projects, the import switched to pyjit: a
local correlation (cost volume) over dynamic shared memory sliced in two, launched with a 4-tuple
configuration; a 3x3 convolution fused with batch normalisation over `cuda.grid(3)` with shared
input tiles and the normalisation parameters through `cuda.const.array_like` of kernel arguments;
finite-time Lyapunov exponents over 3-d grid-stride loops (`cuda.gridsize(3)`) with local 3x3
arrays and float32 constants under fastmath; a float32 bilateral filter; Canny's gradient,
non-maximum suppression and double threshold; a Hough line accumulator with a constant
sine/cosine table; an integral image by row then column scans; an abelian sandpile toppled until
stable; a 2-d FDTD (TMz) with a soft source; sRGB to CIELAB through `cuda.cbrt`; a Monte Carlo path
tracer over spheres with tuple vectors from device functions and xoroshiro128+ draws.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy or plain Python running the same arithmetic.
"""
import math
import os
import sys

import numpy as np

from pyjit import float32

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU
from gpu_kernels import _ref_next, _ref_states, _ref_unit  # noqa: E402


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


# ---- local correlation between two feature maps: one block per (x, y, batch) location, the
# target vector and the partial products in one dynamic shared array sliced in two, the launch
# giving its shared bytes as the 4th item (an optical-flow network's correlation layer) ----

def test_local_correlation_dynamic_shared(cuda):
    @cuda.jit
    def correlation(corr, x1, x2, k):
        trg = cuda.shared.array(0, dtype=float32)
        partial = trg[x1.shape[-1]:]
        x = cuda.blockIdx.x
        y = cuda.blockIdx.y
        b = cuda.blockIdx.z
        t = cuda.threadIdx.x
        nc = x2.shape[-1]
        for c in range(t, nc, cuda.blockDim.x):
            trg[c] = x2[b, y, x, c]
        cuda.syncthreads()
        h, w = x1.shape[1], x1.shape[2]
        r = k // 2
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                yy = y + dy
                xx = x + dx
                acc = float32(0.0)
                if 0 <= yy < h and 0 <= xx < w:
                    for c in range(t, nc, cuda.blockDim.x):
                        acc += trg[c] * x1[b, yy, xx, c]
                partial[t] = acc
                cuda.syncthreads()
                if t == 0:
                    s = float32(0.0)
                    for i in range(cuda.blockDim.x):
                        s += partial[i]
                    corr[b, dy + r, dx + r, y, x] = s / nc
                cuda.syncthreads()

    rng = np.random.default_rng(1)
    bsz, h, w, nc, k = 2, 5, 6, 12, 3
    x1 = rng.standard_normal((bsz, h, w, nc)).astype(np.float32)
    x2 = rng.standard_normal((bsz, h, w, nc)).astype(np.float32)
    corr = cuda.device_array((bsz, k, k, h, w), dtype=np.float32)
    threads = 8
    shared_bytes = (nc + threads) * np.dtype(np.float32).itemsize
    correlation[(w, h, bsz), threads, 0, shared_bytes](corr, x1, x2, k)
    want = np.zeros((bsz, k, k, h, w))
    pad = np.pad(x1, ((0, 0), (1, 1), (1, 1), (0, 0)))
    for dy in range(k):
        for dx in range(k):
            want[:, dy, dx] = (pad[:, dy:dy + h, dx:dx + w] * x2).sum(-1) / nc
    np.testing.assert_allclose(corr.copy_to_host(), want, rtol=1e-5, atol=1e-5)


# ---- a 3x3 convolution fused with batch normalisation: z of cuda.grid(3) spans batch and output
# channel, x and y an output tile, each input channel staged in a shared tile with its halo; the
# normalisation parameters read through cuda.const.array_like of the kernel's own arguments
# (which is a plain read of them), the shared dtype taken from the image (a U-Net in
# numba-cuda) ----

OUT_TILE = 6
KSIZE = 3
IN_TILE = OUT_TILE + KSIZE - 1


def test_conv_batchnorm_grid3_const_of_args(cuda):
    @cuda.jit
    def conv_bn(img, weight, bias, out, norm_w, norm_b, mean, var, channel_in: int,
                channel_out: int, eps):
        _, _, z = cuda.grid(3)
        bidx, oc = z // channel_out, z % channel_out
        sc, sr = cuda.threadIdx.x, cuda.threadIdx.y
        col_out = cuda.blockIdx.x * OUT_TILE + sc
        row_out = cuda.blockIdx.y * OUT_TILE + sr
        col_in = col_out - KSIZE // 2
        row_in = row_out - KSIZE // 2
        g = cuda.const.array_like(norm_w)
        beta = cuda.const.array_like(norm_b)
        mu = cuda.const.array_like(mean)
        sigma2 = cuda.const.array_like(var)
        tile = cuda.shared.array(shape=(IN_TILE, IN_TILE), dtype=img.dtype)
        acc = bias[oc]
        is_out = sc < OUT_TILE and sr < OUT_TILE and col_out < img.shape[3] and \
            row_out < img.shape[2]
        for ic in range(channel_in):
            if 0 <= row_in < img.shape[2] and 0 <= col_in < img.shape[3]:
                tile[sr, sc] = img[bidx, ic, row_in, col_in]
            else:
                tile[sr, sc] = 0.0
            cuda.syncthreads()
            if is_out:
                for i in range(KSIZE):
                    for j in range(KSIZE):
                        acc += tile[sr + i, sc + j] * weight[oc, ic, i, j]
            cuda.syncthreads()
        if is_out and bidx < out.shape[0]:
            normed = (acc - mu[oc]) / math.sqrt(sigma2[oc] + eps)
            out[bidx, oc, row_out, col_out] = max(normed * g[oc] + beta[oc], 0.0)

    rng = np.random.default_rng(2)
    nb, cin, cout, h, w = 2, 3, 4, 11, 9
    img = rng.standard_normal((nb, cin, h, w)).astype(np.float32)
    weight = rng.standard_normal((cout, cin, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(cout).astype(np.float32)
    nw, nbias, mean = (rng.standard_normal(cout).astype(np.float32) for _ in range(3))
    var = rng.random(cout).astype(np.float32) + 0.5
    out = np.zeros((nb, cout, h, w), dtype=np.float32)
    grid = (_blocks(w, OUT_TILE), _blocks(h, OUT_TILE), nb * cout)
    conv_bn[grid, (IN_TILE, IN_TILE, 1)](img, weight, bias, out, nw, nbias, mean, var, cin, cout,
                                         np.float32(1e-5))
    pad = np.pad(img, ((0, 0), (0, 0), (1, 1), (1, 1))).astype(np.float64)
    conv = np.zeros((nb, cout, h, w)) + bias[None, :, None, None]
    for i in range(3):
        for j in range(3):
            conv += np.einsum("bchw,oc->bohw", pad[:, :, i:i + h, j:j + w], weight[:, :, i, j])
    want = (conv - mean[None, :, None, None]) / np.sqrt(var + 1e-5)[None, :, None, None]
    want = np.maximum(want * nw[None, :, None, None] + nbias[None, :, None, None], 0)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


# ---- finite-time Lyapunov exponents of a flow map on a 3-d grid: triple grid-stride loops from
# cuda.grid(3) and cuda.gridsize(3), the deformation gradient by differences (one-sided at the
# walls) in a local 3x3 array, the largest eigenvalue of its Cauchy-Green tensor by power
# iteration, float32 constants throughout, fastmath (an ocean-transport package) ----

REAL = float32


def test_ftle_grid3_gridsize3_local_3x3(cuda):
    @cuda.jit(fastmath=True)
    def ftle_kernel(xp0, yp0, zp0, xp1, yp1, zp1, ftle, T):
        EPS = REAL(1.192093e-07)
        Nx, Ny, Nz = xp0.shape
        T_inv = REAL(REAL(1.) / REAL(T))
        gx, gy, gz = cuda.grid(3)
        sx, sy, sz = cuda.gridsize(3)
        J = cuda.local.array((3, 3), REAL)
        Cg = cuda.local.array((3, 3), REAL)
        v = cuda.local.array((3,), REAL)
        w = cuda.local.array((3,), REAL)
        for i in range(gx, Nx, sx):
            for j in range(gy, Ny, sy):
                for k in range(gz, Nz, sz):
                    i0, i1 = max(i - 1, 0), min(i + 1, Nx - 1)
                    j0, j1 = max(j - 1, 0), min(j + 1, Ny - 1)
                    k0, k1 = max(k - 1, 0), min(k + 1, Nz - 1)
                    dx = xp0[i1, j, k] - xp0[i0, j, k] + EPS
                    dy = yp0[i, j1, k] - yp0[i, j0, k] + EPS
                    dz = zp0[i, j, k1] - zp0[i, j, k0] + EPS
                    J[0, 0] = (xp1[i1, j, k] - xp1[i0, j, k]) / dx
                    J[1, 0] = (yp1[i1, j, k] - yp1[i0, j, k]) / dx
                    J[2, 0] = (zp1[i1, j, k] - zp1[i0, j, k]) / dx
                    J[0, 1] = (xp1[i, j1, k] - xp1[i, j0, k]) / dy
                    J[1, 1] = (yp1[i, j1, k] - yp1[i, j0, k]) / dy
                    J[2, 1] = (zp1[i, j1, k] - zp1[i, j0, k]) / dy
                    J[0, 2] = (xp1[i, j, k1] - xp1[i, j, k0]) / dz
                    J[1, 2] = (yp1[i, j, k1] - yp1[i, j, k0]) / dz
                    J[2, 2] = (zp1[i, j, k1] - zp1[i, j, k0]) / dz
                    for a in range(3):
                        for b in range(3):
                            s = REAL(0.)
                            for c in range(3):
                                s += J[c, a] * J[c, b]
                            Cg[a, b] = s
                    v[0] = REAL(1.)
                    v[1] = REAL(1.)
                    v[2] = REAL(1.)
                    lam = REAL(0.)
                    for it in range(60):
                        for a in range(3):
                            w[a] = Cg[a, 0] * v[0] + Cg[a, 1] * v[1] + Cg[a, 2] * v[2]
                        lam = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
                        for a in range(3):
                            v[a] = w[a] / lam
                    ftle[i, j, k] = T_inv * math.log(math.sqrt(lam))

    n = (6, 5, 4)
    x0, y0, z0 = np.meshgrid(*(np.linspace(0, 1, m) for m in n), indexing="ij")
    A = np.array([[1.3, 0.2, 0.0], [0.1, 0.9, 0.3], [0.0, 0.2, 1.1]])
    x1 = A[0, 0] * x0 + A[0, 1] * y0 + A[0, 2] * z0 + 0.1 * np.sin(3 * y0)
    y1 = A[1, 0] * x0 + A[1, 1] * y0 + A[1, 2] * z0
    z1 = A[2, 0] * x0 + A[2, 1] * y0 + A[2, 2] * z0 + 0.05 * x0 * x0
    arrs = [a.astype(np.float32) for a in (x0, y0, z0, x1, y1, z1)]
    ftle = np.zeros(n, dtype=np.float32)
    T = 2.0
    ftle_kernel[(1, 1, 2), (4, 4, 2)](*arrs, ftle, T)
    want = np.zeros(n)
    X0, Y0, Z0, X1, Y1, Z1 = (a.astype(np.float64) for a in arrs)
    for i in range(n[0]):
        for j in range(n[1]):
            for k in range(n[2]):
                i0, i1 = max(i - 1, 0), min(i + 1, n[0] - 1)
                j0, j1 = max(j - 1, 0), min(j + 1, n[1] - 1)
                k0, k1 = max(k - 1, 0), min(k + 1, n[2] - 1)
                d = [X0[i1, j, k] - X0[i0, j, k], Y0[i, j1, k] - Y0[i, j0, k],
                     Z0[i, j, k1] - Z0[i, j, k0]]
                J = np.empty((3, 3))
                for r, F in enumerate((X1, Y1, Z1)):
                    J[r] = [(F[i1, j, k] - F[i0, j, k]) / d[0], (F[i, j1, k] - F[i, j0, k]) / d[1],
                            (F[i, j, k1] - F[i, j, k0]) / d[2]]
                want[i, j, k] = np.log(np.sqrt(np.linalg.eigvalsh(J.T @ J).max())) / T
    np.testing.assert_allclose(ftle, want, rtol=2e-3, atol=2e-3)


# ---- a bilateral filter in float32: spatial and range Gaussians over a window, math.exp of float32
# values, the output as float32 (a depth-map denoiser) ----

def test_bilateral_filter_float32(cuda):
    @cuda.jit('void(float32[:, :], float32[:, :], int32, float32, float32)')
    def bilateral(img, out, radius, sigma_s, sigma_r):
        y, x = cuda.grid(2)
        h, w = img.shape
        if y >= h or x >= w:
            return
        center = img[y, x]
        num = float32(0.0)
        den = float32(0.0)
        for dy in range(-radius, radius + 1):
            for dx in range(-radius, radius + 1):
                yy = min(max(y + dy, 0), h - 1)
                xx = min(max(x + dx, 0), w - 1)
                v = img[yy, xx]
                ws = math.exp(-(dx * dx + dy * dy) / (float32(2.0) * sigma_s * sigma_s))
                wr = math.exp(-(v - center) * (v - center) / (float32(2.0) * sigma_r * sigma_r))
                num += ws * wr * v
                den += ws * wr
        out[y, x] = num / den

    rng = np.random.default_rng(3)
    img = (np.add.outer(np.arange(20), np.arange(24)) > 20).astype(np.float32)
    img += rng.normal(0, 0.05, img.shape).astype(np.float32)
    out = np.zeros_like(img)
    bilateral[(2, 2), (16, 16)](img, out, 2, 1.5, 0.2)
    pad = np.pad(img.astype(np.float64), 2, mode="edge")
    num = np.zeros(img.shape)
    den = np.zeros(img.shape)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            v = pad[2 + dy:2 + dy + 20, 2 + dx:2 + dx + 24]
            wgt = np.exp(-(dx * dx + dy * dy) / (2 * 1.5 ** 2)) * \
                np.exp(-(v - img) ** 2 / (2 * 0.2 ** 2))
            num += wgt * v
            den += wgt
    np.testing.assert_allclose(out, num / den, rtol=1e-4, atol=1e-5)


# ---- Canny's steps: Sobel gradients with magnitude and direction (math.atan2), non-maximum
# suppression along the quantised direction, then a double threshold into uint8 strong/weak marks
# (an edge-detection course project) ----

def test_canny_steps(cuda):
    @cuda.jit
    def sobel(img, mag, ang):
        i, j = cuda.grid(2)
        h, w = img.shape
        if 0 < i < h - 1 and 0 < j < w - 1:
            gx = (img[i - 1, j + 1] + 2 * img[i, j + 1] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i, j - 1] - img[i + 1, j - 1])
            gy = (img[i + 1, j - 1] + 2 * img[i + 1, j] + img[i + 1, j + 1]
                  - img[i - 1, j - 1] - 2 * img[i - 1, j] - img[i - 1, j + 1])
            mag[i, j] = math.sqrt(gx * gx + gy * gy)
            ang[i, j] = math.atan2(gy, gx) * 180.0 / math.pi

    @cuda.jit
    def suppress(mag, ang, out):
        i, j = cuda.grid(2)
        h, w = mag.shape
        if 0 < i < h - 1 and 0 < j < w - 1:
            a = ang[i, j]
            if a < 0:
                a += 180.0
            if a < 22.5 or a >= 157.5:
                q, r = mag[i, j + 1], mag[i, j - 1]
            elif a < 67.5:
                q, r = mag[i + 1, j - 1], mag[i - 1, j + 1]
            elif a < 112.5:
                q, r = mag[i + 1, j], mag[i - 1, j]
            else:
                q, r = mag[i - 1, j - 1], mag[i + 1, j + 1]
            out[i, j] = mag[i, j] if mag[i, j] >= q and mag[i, j] >= r else 0.0

    @cuda.jit
    def threshold(nms, low, high, marks):
        i, j = cuda.grid(2)
        if i < nms.shape[0] and j < nms.shape[1]:
            v = nms[i, j]
            marks[i, j] = 255 if v >= high else (25 if v >= low else 0)

    rng = np.random.default_rng(4)
    yy, xx = np.mgrid[0:24, 0:28]
    img = ((xx - 14) ** 2 + (yy - 12) ** 2 < 64).astype(np.float64) * 100
    img += rng.normal(0, 2, img.shape)
    mag = np.zeros_like(img)
    ang = np.zeros_like(img)
    nms = np.zeros_like(img)
    marks = np.zeros(img.shape, dtype=np.uint8)
    sobel[(2, 2), (16, 16)](img, mag, ang)
    suppress[(2, 2), (16, 16)](mag, ang, nms)
    threshold[(2, 2), (16, 16)](nms, 50.0, 150.0, marks)
    P = img
    gx = (P[:-2, 2:] + 2 * P[1:-1, 2:] + P[2:, 2:] - P[:-2, :-2] - 2 * P[1:-1, :-2] - P[2:, :-2])
    gy = (P[2:, :-2] + 2 * P[2:, 1:-1] + P[2:, 2:] - P[:-2, :-2] - 2 * P[:-2, 1:-1] - P[:-2, 2:])
    wmag = np.zeros_like(img)
    wmag[1:-1, 1:-1] = np.sqrt(gx * gx + gy * gy)
    np.testing.assert_allclose(mag, wmag, rtol=1e-12)
    wang = np.zeros_like(img)
    wang[1:-1, 1:-1] = np.arctan2(gy, gx) * 180.0 / np.pi
    wnms = np.zeros_like(img)
    for i in range(1, 23):
        for j in range(1, 27):
            a = wang[i, j] + (180.0 if wang[i, j] < 0 else 0.0)
            if a < 22.5 or a >= 157.5:
                q, r = wmag[i, j + 1], wmag[i, j - 1]
            elif a < 67.5:
                q, r = wmag[i + 1, j - 1], wmag[i - 1, j + 1]
            elif a < 112.5:
                q, r = wmag[i + 1, j], wmag[i - 1, j]
            else:
                q, r = wmag[i - 1, j - 1], wmag[i + 1, j + 1]
            wnms[i, j] = wmag[i, j] if wmag[i, j] >= q and wmag[i, j] >= r else 0.0
    np.testing.assert_allclose(nms, wnms, rtol=1e-12)
    np.testing.assert_array_equal(marks, np.where(wnms >= 150, 255, np.where(wnms >= 50, 25, 0)))


# ---- a Hough accumulator for lines: each edge pixel votes once per angle, rho rounded into its
# bin, sines and cosines from a constant table (an image-analysis lab) ----

NTHETA = 45
THETAS = np.linspace(0, np.pi, NTHETA, endpoint=False)
TRIG = np.stack([np.cos(THETAS), np.sin(THETAS)]).astype(np.float64)


def test_hough_lines_const_table(cuda):
    @cuda.jit
    def hough(ys, xs, rho_max, acc):
        p = cuda.grid(1)
        if p >= ys.shape[0]:
            return
        trig = cuda.const.array_like(TRIG)
        for t in range(NTHETA):
            rho = xs[p] * trig[0, t] + ys[p] * trig[1, t]
            b = int(round(rho)) + rho_max
            cuda.atomic.add(acc, (b, t), 1)

    img = np.zeros((30, 30), dtype=bool)
    img[np.arange(30), np.arange(30)] = True
    img[5, :] = True
    ys, xs = np.nonzero(img)
    rho_max = int(np.ceil(np.hypot(30, 30)))
    acc = np.zeros((2 * rho_max + 1, NTHETA), dtype=np.int32)
    hough[_blocks(ys.size, 32), 32](ys.astype(np.int64), xs.astype(np.int64), rho_max, acc)
    want = np.zeros_like(acc)
    for y, x in zip(ys, xs):
        for t in range(NTHETA):
            want[int(round(x * TRIG[0, t] + y * TRIG[1, t])) + rho_max, t] += 1
    np.testing.assert_array_equal(acc, want)


# ---- an integral image: one thread a row scans it, then one thread a column scans the result
# (a face-detection feature pipeline) ----

def test_integral_image_two_scans(cuda):
    @cuda.jit
    def scan_rows(img, out):
        r = cuda.grid(1)
        if r < img.shape[0]:
            s = 0
            for c in range(img.shape[1]):
                s += img[r, c]
                out[r, c] = s

    @cuda.jit
    def scan_cols(out):
        c = cuda.grid(1)
        if c < out.shape[1]:
            for r in range(1, out.shape[0]):
                out[r, c] += out[r - 1, c]

    # an int32 image: `s = 0` then `s += x` takes x's type, as NumPy 2 adds a Python int to a
    # NumPy integer (a uint8 image would wrap; numba-cuda would sum it in int64)
    img = np.random.default_rng(5).integers(0, 256, (33, 47)).astype(np.int32)
    d_out = cuda.device_array(img.shape, dtype=np.int64)
    scan_rows[2, 32](cuda.to_device(img), d_out)
    scan_cols[2, 32](d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), img.astype(np.int64).cumsum(0).cumsum(1))


# ---- an abelian sandpile: every unstable cell topples into a second buffer by atomics, a flag
# set when anything toppled; the host repeats while the flag is raised (a cellular-automata
# gallery) ----

def test_abelian_sandpile(cuda):
    @cuda.jit
    def topple(grid, nxt, changed):
        i, j = cuda.grid(2)
        n, m = grid.shape
        if i < n and j < m:
            v = grid[i, j]
            if v >= 4:
                cuda.atomic.add(nxt, (i, j), -4)
                if i > 0:
                    cuda.atomic.add(nxt, (i - 1, j), 1)
                if i < n - 1:
                    cuda.atomic.add(nxt, (i + 1, j), 1)
                if j > 0:
                    cuda.atomic.add(nxt, (i, j - 1), 1)
                if j < m - 1:
                    cuda.atomic.add(nxt, (i, j + 1), 1)
                changed[0] = 1

    grid = np.zeros((15, 15), dtype=np.int32)
    grid[7, 7] = 120
    d = cuda.to_device(grid)
    changed = cuda.to_device(np.zeros(1, dtype=np.int32))
    steps = 0
    while True:
        nxt = cuda.device_array_like(d)
        nxt.copy_to_device(d)
        changed.copy_to_device(np.zeros(1, dtype=np.int32))
        topple[(1, 1), (16, 16)](d, nxt, changed)
        d = nxt
        steps += 1
        if changed.copy_to_host()[0] == 0:
            break
    want = grid.copy()
    while (want >= 4).any():
        f = (want >= 4).astype(np.int32)
        want -= 4 * f
        want[1:] += f[:-1]
        want[:-1] += f[1:]
        want[:, 1:] += f[:, :-1]
        want[:, :-1] += f[:, 1:]
    np.testing.assert_array_equal(d.copy_to_host(), want)


# ---- a 2-d FDTD in TMz: the magnetic fields from the curl of Ez, then Ez from the curl of H with
# a soft Gaussian source injected by a one-thread kernel each step (an electromagnetics course) ----

def test_fdtd_tmz(cuda):
    @cuda.jit
    def update_h(ez, hx, hy, ch):
        i, j = cuda.grid(2)
        nx, ny = ez.shape
        if i < nx and j < ny - 1:
            hx[i, j] -= ch * (ez[i, j + 1] - ez[i, j])
        if i < nx - 1 and j < ny:
            hy[i, j] += ch * (ez[i + 1, j] - ez[i, j])

    @cuda.jit
    def update_e(ez, hx, hy, ce):
        i, j = cuda.grid(2)
        nx, ny = ez.shape
        if 0 < i < nx - 1 and 0 < j < ny - 1:
            ez[i, j] += ce * ((hy[i, j] - hy[i - 1, j]) - (hx[i, j] - hx[i, j - 1]))

    @cuda.jit
    def source(ez, i, j, t, t0, spread):
        ez[i, j] += math.exp(-0.5 * ((t - t0) / spread) ** 2)

    nx, ny, steps = 24, 20, 30
    ez, hx, hy = np.zeros((nx, ny)), np.zeros((nx, ny)), np.zeros((nx, ny))
    d_ez, d_hx, d_hy = cuda.to_device(ez), cuda.to_device(hx), cuda.to_device(hy)
    for t in range(steps):
        update_h[(2, 2), (16, 16)](d_ez, d_hx, d_hy, 0.5)
        update_e[(2, 2), (16, 16)](d_ez, d_hx, d_hy, 0.5)
        source[1, 1](d_ez, 12, 10, float(t), 10.0, 3.0)
        hx[:, :-1] -= 0.5 * (ez[:, 1:] - ez[:, :-1])
        hy[:-1, :] += 0.5 * (ez[1:, :] - ez[:-1, :])
        ez[1:-1, 1:-1] += 0.5 * ((hy[1:-1, 1:-1] - hy[:-2, 1:-1])
                                 - (hx[1:-1, 1:-1] - hx[1:-1, :-2]))
        ez[12, 10] += math.exp(-0.5 * ((t - 10.0) / 3.0) ** 2)
    np.testing.assert_allclose(d_ez.copy_to_host(), ez, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(d_hx.copy_to_host(), hx, rtol=1e-12, atol=1e-14)


# ---- sRGB to CIELAB per pixel: gamma expansion, the XYZ matrix, then f(t) through cuda.cbrt
# above the knee, in float32 (a colour-science kernel) ----

def test_srgb_to_lab_cbrt(cuda):
    @cuda.jit(device=True)
    def f_lab(t):
        if t > float32(0.008856):
            return cuda.cbrt(t)
        return float32(7.787) * t + float32(16.0 / 116.0)

    @cuda.jit(device=True)
    def linear(c):
        if c <= float32(0.04045):
            return c / float32(12.92)
        return ((c + float32(0.055)) / float32(1.055)) ** float32(2.4)

    @cuda.jit
    def to_lab(rgb, lab):
        i = cuda.grid(1)
        if i < rgb.shape[0]:
            r = linear(rgb[i, 0] / float32(255.0))
            g = linear(rgb[i, 1] / float32(255.0))
            b = linear(rgb[i, 2] / float32(255.0))
            x = (float32(0.4124) * r + float32(0.3576) * g + float32(0.1805) * b) / float32(0.95047)
            y = float32(0.2126) * r + float32(0.7152) * g + float32(0.0722) * b
            z = (float32(0.0193) * r + float32(0.1192) * g + float32(0.9505) * b) / float32(1.08883)
            fx, fy, fz = f_lab(x), f_lab(y), f_lab(z)
            lab[i, 0] = float32(116.0) * fy - float32(16.0)
            lab[i, 1] = float32(500.0) * (fx - fy)
            lab[i, 2] = float32(200.0) * (fy - fz)

    rgb = np.random.default_rng(6).integers(0, 256, (100, 3)).astype(np.float32)
    lab = np.zeros((100, 3), dtype=np.float32)
    to_lab[4, 32](rgb, lab)
    c = rgb.astype(np.float64) / 255
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    M = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = lin @ M.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    want = np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], 1)
    np.testing.assert_allclose(lab, want, rtol=1e-3, atol=2e-3)
    assert lab.dtype == np.float32


# ---- a Monte Carlo path tracer: vectors as 3-tuples returned by device functions, spheres in an
# array, diffuse bounces sampled with xoroshiro128p_uniform_float64 from one state per pixel, the
# sky colour when a ray escapes (a ray-tracing weekend port to numba-cuda) ----

def _tracer_functions(jit):
    @jit
    def add(a, b):
        return (a[0] + b[0], a[1] + b[1], a[2] + b[2])

    @jit
    def scale(a, s):
        return (a[0] * s, a[1] * s, a[2] * s)

    @jit
    def dot(a, b):
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]

    @jit
    def unit(a):
        n = math.sqrt(dot(a, a))
        return (a[0] / n, a[1] / n, a[2] / n)

    @jit
    def hit(spheres, origin, d):
        best = 1e30
        idx = -1
        for s in range(spheres.shape[0]):
            oc = (origin[0] - spheres[s, 0], origin[1] - spheres[s, 1], origin[2] - spheres[s, 2])
            b = dot(oc, d)
            c = dot(oc, oc) - spheres[s, 3] * spheres[s, 3]
            disc = b * b - c
            if disc > 0:
                t = -b - math.sqrt(disc)
                if 1e-4 < t < best:
                    best = t
                    idx = s
        return best, idx

    return add, scale, dot, unit, hit


def test_path_tracer_tuples_xoroshiro(cuda):
    from pyjit.cuda.random import xoroshiro128p_uniform_float64
    add, scale, dot, unit, hit = _tracer_functions(cuda.jit(device=True))

    @cuda.jit
    def render(spheres, width, height, bounces, states, image):
        x, y = cuda.grid(2)
        if x >= width or y >= height:
            return
        tid = y * width + x
        origin = (0.0, 0.0, 0.0)
        d = unit(((x + 0.5) / width * 2.0 - 1.0, (y + 0.5) / height * 2.0 - 1.0, -1.0))
        atten = 1.0
        colour = 0.0
        for _ in range(bounces):
            t, s = hit(spheres, origin, d)
            if s < 0:
                colour = atten * (0.5 + 0.5 * d[1])
                break
            p = add(origin, scale(d, t))
            n = unit((p[0] - spheres[s, 0], p[1] - spheres[s, 1], p[2] - spheres[s, 2]))
            r = (2.0 * xoroshiro128p_uniform_float64(states, tid) - 1.0,
                 2.0 * xoroshiro128p_uniform_float64(states, tid) - 1.0,
                 2.0 * xoroshiro128p_uniform_float64(states, tid) - 1.0)
            d = unit(add(n, r))
            origin = p
            atten *= spheres[s, 4]
        image[y, x] = colour

    spheres = np.array([[0.0, 0.0, -3.0, 1.0, 0.7], [0.0, -101.0, -3.0, 100.0, 0.5],
                        [1.5, 0.2, -2.5, 0.5, 0.9]])
    w, h, bounces = 12, 10, 4
    states = cuda.random.create_xoroshiro128p_states(w * h, seed=42)
    image = np.zeros((h, w))
    render[(1, 1), (16, 16)](spheres, w, h, bounces, states, image)

    add_p, scale_p, dot_p, unit_p, hit_p = _tracer_functions(lambda f: f)
    ref = _ref_states(w * h, 42)
    want = np.zeros((h, w))
    for y in range(h):
        for x in range(w):
            st = ref[y * w + x]
            origin = (0.0, 0.0, 0.0)
            d = unit_p(((x + 0.5) / w * 2.0 - 1.0, (y + 0.5) / h * 2.0 - 1.0, -1.0))
            atten, colour = 1.0, 0.0
            for _ in range(bounces):
                t, s = hit_p(spheres, origin, d)
                if s < 0:
                    colour = atten * (0.5 + 0.5 * d[1])
                    break
                p = add_p(origin, scale_p(d, t))
                n = unit_p((p[0] - spheres[s, 0], p[1] - spheres[s, 1], p[2] - spheres[s, 2]))
                r = tuple(2.0 * _ref_unit(_ref_next(st)) - 1.0 for _ in range(3))
                d = unit_p(add_p(n, r))
                origin = p
                atten *= spheres[s, 4]
            want[y, x] = colour
    np.testing.assert_allclose(image, want, rtol=1e-9, atol=1e-12)
