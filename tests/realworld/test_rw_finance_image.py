"""Real-world patterns: finance, image processing and sampling kernels with Numba's idioms.

Quantitative-finance notebooks compile an exponentially weighted moving average that skips NaN,
the maximum drawdown of an equity curve, rolling z-scores and a binomial-tree option price;
image-processing code compiles a box blur with edge clamping, histogram equalisation of a uint8
image through `np.bincount` and `np.cumsum`, a Sobel gradient magnitude and Bresenham lines
drawn into an image; sampling code draws from Python's `random` module and `np.random` after
seeding them inside the compiled function (Numba's documented Monte Carlo pi). Also: a word
count in a `typed.Dict` of str to int, `literal_unroll` over a tuple of arrays of different
dtypes, an inner function closing over its parameters, a `prange` reduction, and an input check
raising `ValueError` with a message. Restated with `from numba import ...` switched to pyjit;
compared with CPython (`py_func`) and with Numba.
"""
import math
import random

import numpy as np
import pytest

from pyjit import literal_unroll, njit, prange, types
from pyjit.typed import Dict
from util import numba_or_none


@njit
def ewma(x, alpha):
    out = np.empty_like(x)
    s = np.nan
    for i in range(x.shape[0]):
        v = x[i]
        if np.isnan(v):
            out[i] = s
            continue
        s = v if np.isnan(s) else alpha * v + (1.0 - alpha) * s
        out[i] = s
    return out


@njit
def max_drawdown(equity):
    peak = equity[0]
    worst = 0.0
    start = end = best_start = 0
    for i in range(1, equity.shape[0]):
        if equity[i] > peak:
            peak = equity[i]
            start = i
        dd = (equity[i] - peak) / peak
        if dd < worst:
            worst = dd
            end = i
            best_start = start
    return worst, best_start, end


@njit
def rolling_zscore(x, window):
    n = x.shape[0]
    out = np.full(n, np.nan)
    for i in range(window - 1, n):
        w = x[i - window + 1:i + 1]
        sd = w.std()
        if sd > 0:
            out[i] = (x[i] - w.mean()) / sd
    return out


@njit
def binomial_tree(S, K, T, r, sigma, steps, call):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    prices = S * u ** np.arange(steps, -1, -1) * d ** np.arange(0, steps + 1)
    values = np.maximum(prices - K, 0.0) if call else np.maximum(K - prices, 0.0)
    for j in range(steps - 1, -1, -1):
        values = disc * (p * values[:-1] + (1.0 - p) * values[1:])
        prices = prices[:-1] * d
        if not call:   # American put: exercise early when worth more
            values = np.maximum(values, K - prices)
    return values[0]


@njit
def box_blur(img, r):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.float64)
    for y in range(h):
        for x in range(w):
            acc = 0.0
            for dy in range(-r, r + 1):
                yy = min(max(y + dy, 0), h - 1)
                for dx in range(-r, r + 1):
                    xx = min(max(x + dx, 0), w - 1)
                    acc += img[yy, xx]
            out[y, x] = acc / (2 * r + 1) ** 2
    return out


@njit
def equalize(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    nz = cdf[cdf > 0]
    cmin = nz[0]
    total = img.size
    lut = np.empty(256, dtype=np.uint8)
    for v in range(256):
        lut[v] = np.uint8(round((cdf[v] - cmin) * 255.0 / max(total - cmin, 1))) if cdf[v] > 0 else 0
    out = np.empty_like(img)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            out[i, j] = lut[img[i, j]]
    return out


@njit
def sobel(img):
    kx = np.array([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
    ky = kx.T.copy()
    h, w = img.shape
    out = np.zeros((h - 2, w - 2))
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            patch = img[i - 1:i + 2, j - 1:j + 2]
            gx = np.sum(patch * kx)
            gy = np.sum(patch * ky)
            out[i - 1, j - 1] = np.hypot(gx, gy)
    return out


@njit
def draw_line(img, x0, y0, x1, y1, value):
    dx = abs(x1 - x0)
    dy = -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    while True:
        img[y0, x0] = value
        if x0 == x1 and y0 == y1:
            break
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


@njit
def draw_polyline(img, pts):
    for k in range(pts.shape[0] - 1):
        draw_line(img, pts[k, 0], pts[k, 1], pts[k + 1, 0], pts[k + 1, 1], k + 1)
    return img


@njit
def monte_carlo_pi(nsamples, seed):
    random.seed(seed)
    acc = 0
    for i in range(nsamples):
        x = random.random()
        y = random.random()
        if (x ** 2 + y ** 2) < 1.0:
            acc += 1
    return 4.0 * acc / nsamples


@njit
def noisy_walk(n, seed):
    np.random.seed(seed)
    steps = np.random.normal(0.0, 1.0, n)
    jumps = np.random.random(n) < 0.1
    pos = np.cumsum(steps + jumps * np.random.uniform(-5.0, 5.0))
    return pos, np.random.randint(0, 10)


@njit
def word_counts(text):
    counts = Dict.empty(key_type=types.unicode_type, value_type=types.int64)
    for word in text.lower().split():
        w = word.strip(".,;!?")
        if len(w) == 0:
            continue
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    best = ""
    n = 0
    for k, v in counts.items():
        if v > n or (v == n and k < best):
            best, n = k, v
    return len(counts), best, n


@njit
def total_of_each(arrays):
    out = 0.0
    count = 0
    for a in literal_unroll(arrays):
        out += a.sum()
        count += a.size
    return out, count


@njit
def scaled_norms(points, scale, offset):
    def transform(p):
        return (p - offset) * scale

    out = np.empty(points.shape[0])
    for i in range(points.shape[0]):
        q = transform(points[i])
        out[i] = np.sqrt(np.sum(q * q))
    return out


@njit(parallel=True)
def parallel_sum_of_squares(x):
    total = 0.0
    for i in prange(x.shape[0]):
        total += x[i] * x[i]
    return total


@njit
def checked_returns(prices):
    if prices.ndim != 1 or prices.shape[0] < 2:
        raise ValueError("need at least two prices")
    for i in range(prices.shape[0]):
        if prices[i] <= 0:
            raise ValueError("prices must be positive")
    return np.diff(np.log(prices))


rng = np.random.default_rng(5)
_prices = 100 * np.exp(np.cumsum(rng.normal(0, 0.02, 60)))
_with_nan = rng.normal(size=30)
_with_nan[[0, 4, 5, 17]] = np.nan
_img = rng.integers(40, 120, (12, 10)).astype(np.uint8)

CASES = [
    (ewma, lambda: (_with_nan, 0.3)),
    (max_drawdown, lambda: (_prices,)),
    (rolling_zscore, lambda: (_prices, 7)),
    (binomial_tree, lambda: (100.0, 95.0, 1.0, 0.03, 0.25, 50, True)),
    (binomial_tree, lambda: (100.0, 105.0, 0.5, 0.03, 0.3, 40, False)),
    (box_blur, lambda: (_img.astype(np.float64), 1)),
    (equalize, lambda: (_img,)),
    (sobel, lambda: (rng.uniform(size=(9, 8)),)),
    (draw_polyline, lambda: (np.zeros((16, 16), dtype=np.int64),
                             np.array([[1, 1], [14, 3], [7, 12], [0, 15], [15, 15]]))),
    (noisy_walk, lambda: (50, 7)),
    (word_counts, lambda: ("The cat saw the dog. The dog, the cat; a bird!",)),
    (total_of_each, lambda: ((np.arange(5), np.linspace(0, 1, 4), np.ones(3, np.float32)),)),
    (scaled_norms, lambda: (rng.normal(size=(6, 3)), 2.5, np.array([0.5, -1.0, 0.0]))),
    (parallel_sum_of_squares, lambda: (rng.normal(size=1000),)),
    (checked_returns, lambda: (_prices[:10],)),
]


def _same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and np.allclose(a, b, equal_nan=True,
                                                                        rtol=1e-10)
    if isinstance(a, float):
        return np.isclose(a, b, rtol=1e-10)
    return a == b


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = make()
    want = f.py_func(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    assert _same(f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]), want)
    nb = numba_or_none(f)
    if nb is not None and f is not word_counts:   # Numba's typed Dict is not pyjit's
        assert _same(nb(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]), want)


@pytest.mark.parametrize("bad, message", [(np.array([1.0]), "need at least two prices"),
                                          (np.array([1.0, -2.0]), "prices must be positive")])
def test_input_checks_raise_value_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        checked_returns(bad)
    with pytest.raises(ValueError, match=message):
        checked_returns.py_func(bad)


def _pi_by_numpys_stream(nsamples, seed):
    """What Numba's random.seed(seed); random.random() draw: its own Mersenne Twister seeded as
    np.random.RandomState(seed) seeds it (not as CPython's random.seed does)."""
    u = np.random.RandomState(seed).random_sample(2 * nsamples)
    return 4.0 * np.count_nonzero(u[0::2] ** 2 + u[1::2] ** 2 < 1.0) / nsamples


def test_monte_carlo_pi_with_the_random_module():
    assert monte_carlo_pi(2000, 42) == _pi_by_numpys_stream(2000, 42)
    nb = numba_or_none(monte_carlo_pi)
    if nb is not None:
        assert nb(2000, 42) == monte_carlo_pi(2000, 42)
