"""Real-world patterns: NumPy functions called inside compiled code.

Public Numba code calls np.clip to normalise features, np.around to round prices to a tick,
np.concatenate/np.vstack to pad and stack windows of a signal, np.roll for periodic
neighbours in lattice simulations, np.cross/np.outer/np.eye for rotations in geometry codes, and
ufuncs by name (np.fmod for angle wrapping, np.logical_and for masks, np.floor_divide for
binning); image augmentation with np.rot90/np.dstack/np.tile, top-k per row with
np.take_along_axis, windowed-sinc FIR filter design with np.sinc and np.select, grid neighbours
through np.unravel_index/np.ravel_multi_index, and float rescaling with np.frexp/np.ldexp. Written
here in the style of those projects, with `from numba import njit` switched
to pyjit. Each is compared with the same source run by CPython and NumPy (`py_func`), and with
Numba when it is installed and supports the function.
"""
import numpy as np
import pytest

from pyjit import njit
from util import numba_or_none


@njit
def norm_clip(x, xmin, xmax):
    xc = np.clip(x, xmin, xmax)
    return (xc - xmin) / (xmax - xmin)


@njit
def round_to_tick(prices, digits):
    out = np.empty_like(prices)
    for i in range(prices.shape[0]):
        out[i] = np.around(prices[i], digits)
    return out


@njit
def padded_windows(signal, width):
    pad = np.zeros(width // 2)
    padded = np.concatenate((pad, signal, pad))
    rows = []
    for i in range(signal.shape[0]):
        rows.append(padded[i:i + width])
    return np.vstack((rows[0], rows[-1])), padded


@njit
def ising_energy(spins):
    right = np.roll(spins, -1, axis=1)
    down = np.roll(spins, -1, axis=0)
    return -np.sum(spins * right) - np.sum(spins * down)


@njit
def rotation_matrix(axis, angle):
    k = axis / np.sqrt(np.sum(axis * axis))
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) * np.cos(angle) + np.sin(angle) * kx + (1 - np.cos(angle)) * np.outer(k, k)


@njit
def wrap_and_bin(angles, nbins):
    wrapped = np.fmod(angles, 2 * np.pi)
    wrapped = np.where(wrapped < 0, wrapped + 2 * np.pi, wrapped)
    bins = np.floor_divide(wrapped, 2 * np.pi / nbins).astype(np.int64)
    inside = np.logical_and(bins >= 0, bins < nbins)
    return bins, inside, np.cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))


@njit
def augment_gray(img, k):
    rgb = np.dstack((img, img, img))
    turned = np.rot90(rgb, k)
    return np.ascontiguousarray(turned), np.tile(img, (2, 3)), np.hsplit(img, 2)[1].sum()


@njit
def topk_per_row(scores, k):
    order = np.argsort(-scores, axis=1)[:, :k]
    best = np.take_along_axis(scores, order, axis=1)
    return best, order, np.diag(np.take(scores, order[:, 0], axis=1))


@njit
def windowed_sinc_lowpass(ntaps, cutoff):
    n = np.arange(ntaps) - (ntaps - 1) / 2.0
    window = 0.54 - 0.46 * np.cos(2.0 * np.pi * np.arange(ntaps) / (ntaps - 1))
    h = np.sinc(2.0 * cutoff * n) * window
    h = h / np.sum(h)
    gain = np.select([np.abs(h) > 0.05, np.abs(h) > 0.01], [h, h * 0.5], 0.0)
    return h, gain


@njit
def grid_neighbours(flat, shape):
    rows, cols = np.unravel_index(flat, shape)
    up = np.ravel_multi_index((np.maximum(rows - 1, 0), cols), shape)
    right = np.ravel_multi_index((rows, np.minimum(cols + 1, shape[1] - 1)), shape)
    return up, right


@njit
def rescale_exponents(x, shift):
    mant, expo = np.frexp(x)
    frac, whole = np.modf(x)
    return np.ldexp(mant, expo + shift), expo.max(), np.spacing(whole).sum(), frac


def _same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True) and np.shape(a) == np.shape(b)


rng = np.random.default_rng(7)
CASES = [
    (norm_clip, lambda: (rng.normal(0, 2, 50), -1.0, 1.5)),
    (round_to_tick, lambda: (rng.uniform(90, 110, 40), 2)),
    (padded_windows, lambda: (np.sin(np.linspace(0, 6, 30)), 5)),
    (ising_energy, lambda: (rng.choice(np.array([-1, 1]), size=(8, 8)),)),
    (rotation_matrix, lambda: (np.array([1.0, 2.0, 2.0]), 0.7)),
    (wrap_and_bin, lambda: (rng.uniform(-20, 20, 64), 12)),
    (augment_gray, lambda: (rng.uniform(0, 1, (4, 6)), 3)),
    (topk_per_row, lambda: (rng.normal(0, 1, (5, 8)), 3)),
    (windowed_sinc_lowpass, lambda: (31, 0.2)),
    (grid_neighbours, lambda: (np.array([0, 5, 11, 7]), (3, 4))),
    (rescale_exponents, lambda: (rng.normal(0, 1e3, 16), 4)),
]


@pytest.mark.parametrize("f,make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_against_cpython_and_numba(f, make):
    args = make()
    want = f.py_func(*args)
    assert _same(f(*args), want)
    nb = numba_or_none(f)
    if nb is not None:
        try:
            got = nb(*args)
        except Exception:   # noqa: BLE001 - a function this Numba lacks: pyjit is ahead there
            return
        assert _same(got, want)
