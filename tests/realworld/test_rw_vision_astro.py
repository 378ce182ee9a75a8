"""Real-world patterns: computer vision and astronomy, restated in our own words with the
import switched.

An integral image by two `np.cumsum` and box sums read off it (boxes unpacked from array rows),
greedy non-maximum suppression (`scores.argsort()[::-1]`, `np.maximum` of a scalar and a fancy-
indexed array, `np.where(ovr <= t)[0]`, `order = order[inds + 1]`, a list of kept indices),
two-pass connected-component labelling with union-find in an array, a `prange` bilinear resize
of uint8 RGB images (`np.uint8(min(max(round(v), 0), 255))`, `fastmath=True`), Otsu's threshold
from `np.histogram(bins=256, range=(0, 256))`, a 2-d convolution with a flipped kernel
(`kernel[::-1, ::-1]`) over a padded copy, a Harris response from central differences, template
matching returning a tuple location; a radial-velocity curve solving Kepler's equation (a
module-level `TWOPI`, defaults `tol=1e-10, maxiter=50`), a `prange` Lomb-Scargle periodogram,
a phase-folded light curve (`np.digitize`, `np.bincount(weights=, minlength=)`, `np.full(nan)`),
brute-force box least squares over `enumerate(periods)`, a softened N-body leapfrog with energy
(`d @ d`, `r2 ** -1.5`, `np.sum(vel ** 2, axis=1)`), equatorial to galactic coordinates through
a module-level rotation matrix and `np.dot`, Julian dates by floor division, magnitudes from
fluxes. Each is compared with CPython running the same source."""
import math

import numpy as np
import pytest

import pyjit as nb
import pyjit as numba
from pyjit import guvectorize, jit, njit, prange, stencil, vectorize
from util import check

# integral image through two cumsums and box sums from it
@njit(cache=True)
def integral_image(img):
    return np.cumsum(np.cumsum(img.astype(np.float64), axis=0), axis=1)

@njit
def box_sums(ii, boxes):
    out = np.zeros(boxes.shape[0])
    for k in range(boxes.shape[0]):
        r0, c0, r1, c1 = boxes[k]
        s = ii[r1, c1]
        if r0 > 0:
            s -= ii[r0 - 1, c1]
        if c0 > 0:
            s -= ii[r1, c0 - 1]
        if r0 > 0 and c0 > 0:
            s += ii[r0 - 1, c0 - 1]
        out[k] = s
    return out

# greedy non-maximum suppression over boxes (x1,y1,x2,y2)
@njit
def nms(dets, scores, thresh):
    x1 = dets[:, 0]
    y1 = dets[:, 1]
    x2 = dets[:, 2]
    y2 = dets[:, 3]
    areas = (x2 - x1 + 1) * (y2 - y1 + 1)
    order = scores.argsort()[::-1]
    keep = []
    while order.size > 0:
        i = order[0]
        keep.append(i)
        xx1 = np.maximum(x1[i], x1[order[1:]])
        yy1 = np.maximum(y1[i], y1[order[1:]])
        xx2 = np.minimum(x2[i], x2[order[1:]])
        yy2 = np.minimum(y2[i], y2[order[1:]])
        w = np.maximum(0.0, xx2 - xx1 + 1)
        h = np.maximum(0.0, yy2 - yy1 + 1)
        inter = w * h
        ovr = inter / (areas[i] + areas[order[1:]] - inter)
        inds = np.where(ovr <= thresh)[0]
        order = order[inds + 1]
    return keep

# two-pass connected components with union-find in an array
@njit
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x

@njit
def label_components(mask):
    h, w = mask.shape
    labels = np.zeros((h, w), dtype=np.int32)
    parent = np.arange(h * w + 1, dtype=np.int32)
    nxt = 1
    for i in range(h):
        for j in range(w):
            if not mask[i, j]:
                continue
            up = labels[i - 1, j] if i > 0 else 0
            left = labels[i, j - 1] if j > 0 else 0
            if up == 0 and left == 0:
                labels[i, j] = nxt
                nxt += 1
            elif up and left:
                a = _find(parent, up)
                b = _find(parent, left)
                labels[i, j] = min(a, b)
                parent[max(a, b)] = min(a, b)
            else:
                labels[i, j] = max(up, left)
    remap = np.zeros(nxt, dtype=np.int32)
    count = 0
    for i in range(h):
        for j in range(w):
            if labels[i, j]:
                r = _find(parent, labels[i, j])
                if remap[r] == 0:
                    count += 1
                    remap[r] = count
                labels[i, j] = remap[r]
    return labels, count

# bilinear resize of an RGB image (uint8 in, uint8 out)
@njit(parallel=True, fastmath=True)
def resize_bilinear(img, out_h, out_w):
    h, w, c = img.shape
    out = np.empty((out_h, out_w, c), dtype=np.uint8)
    sy = (h - 1) / max(out_h - 1, 1)
    sx = (w - 1) / max(out_w - 1, 1)
    for i in prange(out_h):
        y = i * sy
        y0 = int(np.floor(y))
        y1 = min(y0 + 1, h - 1)
        fy = y - y0
        for j in range(out_w):
            x = j * sx
            x0 = int(np.floor(x))
            x1 = min(x0 + 1, w - 1)
            fx = x - x0
            for ch in range(c):
                v = (img[y0, x0, ch] * (1 - fx) * (1 - fy) + img[y0, x1, ch] * fx * (1 - fy)
                     + img[y1, x0, ch] * (1 - fx) * fy + img[y1, x1, ch] * fx * fy)
                out[i, j, ch] = np.uint8(min(max(round(v), 0), 255))
    return out

# grayscale + otsu threshold with np.histogram
@njit
def otsu(gray):
    hist, edges = np.histogram(gray, bins=256, range=(0, 256))
    total = gray.size
    sum_all = 0.0
    for t in range(256):
        sum_all += t * hist[t]
    w_b = 0.0
    sum_b = 0.0
    best = 0.0
    thr = 0
    for t in range(256):
        w_b += hist[t]
        if w_b == 0:
            continue
        w_f = total - w_b
        if w_f == 0:
            break
        sum_b += t * hist[t]
        m_b = sum_b / w_b
        m_f = (sum_all - sum_b) / w_f
        between = w_b * w_f * (m_b - m_f) ** 2
        if between > best:
            best = between
            thr = t
    return thr

# 2-d convolution with a kernel flipped by [::-1, ::-1] and padding via np.pad-free copy
@njit
def convolve2d(img, kernel):
    kh, kw = kernel.shape
    ph, pw = kh // 2, kw // 2
    h, w = img.shape
    padded = np.zeros((h + 2 * ph, w + 2 * pw), dtype=np.float64)
    padded[ph:ph + h, pw:pw + w] = img
    k = kernel[::-1, ::-1]
    out = np.empty((h, w))
    for i in range(h):
        for j in range(w):
            out[i, j] = np.sum(padded[i:i + kh, j:j + kw] * k)
    return out

# Harris corner response with np.gradient-free central differences
@njit
def harris(img, k=0.04):
    h, w = img.shape
    ix = np.zeros((h, w))
    iy = np.zeros((h, w))
    ix[:, 1:-1] = (img[:, 2:] - img[:, :-2]) / 2
    iy[1:-1, :] = (img[2:, :] - img[:-2, :]) / 2
    ixx = ix * ix
    iyy = iy * iy
    ixy = ix * iy
    r = np.zeros((h, w))
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            a = ixx[i - 1:i + 2, j - 1:j + 2].sum()
            b = iyy[i - 1:i + 2, j - 1:j + 2].sum()
            c = ixy[i - 1:i + 2, j - 1:j + 2].sum()
            r[i, j] = a * b - c * c - k * (a + b) ** 2
    return r

# template matching by normalised cross-correlation, returns the best location as a tuple
@njit
def match_template(img, tpl):
    th, tw = tpl.shape
    t = tpl - tpl.mean()
    tn = np.sqrt((t ** 2).sum())
    best = -2.0
    loc = (0, 0)
    for i in range(img.shape[0] - th + 1):
        for j in range(img.shape[1] - tw + 1):
            patch = img[i:i + th, j:j + tw]
            p = patch - patch.mean()
            den = np.sqrt((p ** 2).sum()) * tn
            if den == 0:
                continue
            score = (p * t).sum() / den
            if score > best:
                best = score
                loc = (i, j)
    return loc, best

rng = np.random.default_rng(2)
img = rng.integers(0, 256, size=(24, 30)).astype(np.uint8)
mask = rng.random((20, 20)) > 0.6
boxes = np.array([[0, 0, 5, 5], [2, 3, 10, 12], [4, 4, 4, 4]], dtype=np.int64)
dets = np.array([[10, 10, 50, 50], [12, 12, 52, 52], [100, 100, 150, 140], [11, 9, 49, 51], [200, 10, 240, 60]], dtype=np.float64)
imgf = rng.random((20, 20))
CASES_C_VISION = [
    ("box_sums", box_sums, (integral_image(img), boxes)),
    ("integral", integral_image, (img,)),
    ("nms", nms, (dets, np.array([0.9, 0.8, 0.7, 0.95, 0.5]), 0.3)),
    ("label_components", label_components, (mask,)),
    ("resize_bilinear", resize_bilinear, (rng.integers(0, 256, size=(10, 12, 3)).astype(np.uint8), 17, 9)),
    ("otsu", otsu, (img,)),
    ("convolve2d", convolve2d, (imgf, np.array([[1., 2, 1], [0, 0, 0], [-1, -2, -1]]))),
    ("harris", harris, (imgf,)),
    ("match_template", match_template, (imgf, imgf[5:9, 7:12].copy())),
]

TWOPI = 2 * np.pi
G = 6.674e-11

@njit
def solve_kepler(M, e, tol=1e-10, maxiter=50):
    E = M if e < 0.8 else np.pi
    for _ in range(maxiter):
        f = E - e * np.sin(E) - M
        fp = 1 - e * np.cos(E)
        dE = -f / fp
        E += dE
        if abs(dE) < tol:
            break
    return E

@njit(fastmath=True)
def radial_velocity(t, P, K, e, omega, tp):
    rv = np.empty_like(t)
    for i in range(t.size):
        M = TWOPI * (t[i] - tp) / P
        M = M % TWOPI
        E = solve_kepler(M, e)
        nu = 2 * np.arctan2(np.sqrt(1 + e) * np.sin(E / 2), np.sqrt(1 - e) * np.cos(E / 2))
        rv[i] = K * (np.cos(nu + omega) + e * np.cos(omega))
    return rv

# Lomb-Scargle periodogram (classical)
@njit(parallel=True)
def lombscargle(t, y, freqs):
    y = y - y.mean()
    pgram = np.empty(freqs.shape[0])
    for k in prange(freqs.shape[0]):
        w = freqs[k]
        s2 = 0.0
        c2 = 0.0
        for i in range(t.shape[0]):
            s2 += np.sin(2 * w * t[i])
            c2 += np.cos(2 * w * t[i])
        tau = np.arctan2(s2, c2) / (2 * w)
        yc = 0.0; ys = 0.0; cc = 0.0; ss = 0.0
        for i in range(t.shape[0]):
            c = np.cos(w * (t[i] - tau))
            s = np.sin(w * (t[i] - tau))
            yc += y[i] * c
            ys += y[i] * s
            cc += c * c
            ss += s * s
        pgram[k] = 0.5 * (yc * yc / cc + ys * ys / ss)
    return pgram

# phase fold and binned light curve with np.digitize and bincount weights
@njit
def fold_and_bin(t, flux, period, nbins):
    phase = (t % period) / period
    edges = np.linspace(0.0, 1.0, nbins + 1)
    idx = np.digitize(phase, edges) - 1
    idx = np.minimum(idx, nbins - 1)
    counts = np.bincount(idx, minlength=nbins)
    sums = np.bincount(idx, weights=flux, minlength=nbins)
    out = np.full(nbins, np.nan)
    for b in range(nbins):
        if counts[b] > 0:
            out[b] = sums[b] / counts[b]
    return out

# box least squares (brute force over durations and phases)
@njit
def bls(t, y, periods, duration):
    best_power = np.zeros(periods.size)
    w = np.ones_like(y) / y.size
    ymean = np.sum(w * y)
    for k, P in enumerate(periods):
        phase = np.mod(t, P) / P
        order = np.argsort(phase)
        ph = phase[order]
        yy = y[order] - ymean
        q = duration / P
        best = 0.0
        for i in range(ph.size):
            r = 0.0
            s = 0.0
            j = i
            while j < ph.size and ph[j] - ph[i] < q:
                r += w[j]
                s += w[j] * yy[j]
                j += 1
            if 0 < r < 1:
                p = s * s / (r * (1 - r))
                if p > best:
                    best = p
        best_power[k] = best
    return best_power

# leapfrog N-body with softening, returning energy history
@njit
def accelerations(pos, mass, soft):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[j] - pos[i]
            r2 = d @ d + soft * soft
            inv = r2 ** -1.5
            acc[i] += mass[j] * inv * d
            acc[j] -= mass[i] * inv * d
    return acc

@njit
def energy(pos, vel, mass, soft):
    ke = 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))
    pe = 0.0
    for i in range(pos.shape[0]):
        for j in range(i + 1, pos.shape[0]):
            pe -= mass[i] * mass[j] / np.sqrt(np.sum((pos[i] - pos[j]) ** 2) + soft ** 2)
    return ke + pe

@njit
def leapfrog(pos, vel, mass, dt, nsteps, soft=0.01):
    pos = pos.copy()
    vel = vel.copy()
    E = np.empty(nsteps + 1)
    E[0] = energy(pos, vel, mass, soft)
    acc = accelerations(pos, mass, soft)
    for s in range(nsteps):
        vel += 0.5 * dt * acc
        pos += dt * vel
        acc = accelerations(pos, mass, soft)
        vel += 0.5 * dt * acc
        E[s + 1] = energy(pos, vel, mass, soft)
    return pos, vel, E

# equatorial -> galactic style rotation with a module-level matrix and np.dot
ROT = np.array([[-0.0548755604, -0.8734370902, -0.4838350155],
                [0.4941094279, -0.4448296300, 0.7469822445],
                [-0.8676661490, -0.1980763734, 0.4559837762]])

@njit
def radec_to_lb(ra, dec):
    n = ra.shape[0]
    l = np.empty(n)
    b = np.empty(n)
    for i in range(n):
        v = np.array([np.cos(dec[i]) * np.cos(ra[i]), np.cos(dec[i]) * np.sin(ra[i]), np.sin(dec[i])])
        g = np.dot(ROT, v)
        l[i] = np.arctan2(g[1], g[0]) % (2 * np.pi)
        b[i] = np.arcsin(g[2])
    return l, b

# julian date from calendar date, integer floor division
@njit
def julian_date(year, month, day):
    a = (14 - month) // 12
    y = year + 4800 - a
    m = month + 12 * a - 3
    jdn = day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045
    return jdn - 0.5

@njit
def jd_array(years, months, days):
    out = np.empty(years.shape[0])
    for i in range(years.shape[0]):
        out[i] = julian_date(years[i], months[i], days[i])
    return out

# magnitude/flux conversions with np.log10 and errors propagated
@njit
def flux_to_mag(flux, ferr, zp=25.0):
    mag = zp - 2.5 * np.log10(flux)
    merr = 2.5 / np.log(10) * ferr / flux
    return mag, merr

rng = np.random.default_rng(3)
t = np.sort(rng.uniform(0, 30, 150))
yv = np.sin(2 * np.pi * t / 3.3) + 0.2 * rng.normal(size=150)
pos = rng.normal(size=(5, 3)); vel = rng.normal(size=(5, 3)) * 0.1; mass = rng.uniform(0.5, 1.5, 5)
CASES_C_ASTRO = [
    ("radial_velocity", radial_velocity, (t, 3.3, 10.0, 0.3, 0.5, 0.1)),
    ("lombscargle", lombscargle, (t, yv, np.linspace(0.5, 5, 40))),
    ("fold_and_bin", fold_and_bin, (t, yv, 3.3, 12)),
    ("bls", bls, (t, yv, np.linspace(2, 5, 8), 0.3)),
    ("leapfrog", leapfrog, (pos, vel, mass, 0.01, 20)),
    ("radec_to_lb", radec_to_lb, (rng.uniform(0, 6, 10), rng.uniform(-1.5, 1.5, 10))),
    ("jd_array", jd_array, (np.array([2000, 1999, 2024]), np.array([1, 12, 2]), np.array([1, 31, 29]))),
    ("flux_to_mag", flux_to_mag, (rng.uniform(1, 100, 10), rng.uniform(0.1, 1, 10))),
]

CASES = CASES_C_VISION + CASES_C_ASTRO


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    check(f.py_func, *args, jit=f)
