"""Real-world patterns: NumPy's iterables, keepdims= and functions fused into array expressions.

Numba users write a softmax or a standardisation with `x.max(axis=-1, keepdims=True)` so the
reduction broadcasts back, a cellular automaton or a stencil with
`np.ndindex(grid.shape)` over the cells and `np.ndindex(3, 3)` over the neighbourhood, histogram and
weighting loops over `a.flat` and `np.ndenumerate`, and distance maps as
`np.sqrt(dx * dx + dy * dy)`. Written here in the style of those projects, with the import
switched to pyjit. Each is compared with the same source run by CPython and NumPy (`py_func`),
and with Numba when it is installed.
"""
import numpy as np
import pytest

from pyjit import njit
from util import numba_or_none


@njit
def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@njit
def standardise(x):
    mu = x.mean(axis=0, keepdims=True)
    sd = x.std(axis=0, keepdims=True)
    return (x - mu) / np.where(sd > 0, sd, 1.0)


@njit
def life_step(grid):
    """One step of Conway's game of life on a torus."""
    out = np.zeros_like(grid)
    rows, cols = grid.shape
    for i, j in np.ndindex(grid.shape):
        alive = 0
        for di, dj in np.ndindex(3, 3):
            if di == 1 and dj == 1:
                continue
            alive += grid.flat[((i + di - 1) % rows) * cols + (j + dj - 1) % cols]
        here = grid[i, j]
        out[i, j] = 1 if (alive == 3 or (here == 1 and alive == 2)) else 0
    return out


@njit
def weighted_centre(img):
    """The intensity-weighted centre of an image, the way centroid routines loop over pixels."""
    total = 0.0
    cy = 0.0
    cx = 0.0
    for (i, j), v in np.ndenumerate(img):
        total += v
        cy += i * v
        cx += j * v
    return cy / total, cx / total


@njit
def count_above(a, level):
    n = 0
    for v in a.flat:
        if v > level:
            n += 1
    return n


@njit
def clamp_in_place(a, lo, hi):
    for i in range(a.size):
        if a.flat[i] < lo:
            a.flat[i] = lo
        elif a.flat[i] > hi:
            a.flat[i] = hi
    return a


@njit
def distance_map(xs, ys, px, py):
    dx = xs - px
    dy = ys - py
    return np.sqrt(dx * dx + dy * dy) * np.exp(-np.abs(dx) / 4.0)


@njit
def sum_nditer(a):
    s = 0.0
    for x in np.nditer(a):
        s += x.item()
    return s


rng = np.random.default_rng(17)
CASES = [
    (softmax, lambda: (rng.standard_normal((5, 7)),)),
    (standardise, lambda: (rng.standard_normal((20, 4)),)),
    (life_step, lambda: (rng.integers(0, 2, (9, 11)),)),
    (weighted_centre, lambda: (rng.random((6, 9)),)),
    (count_above, lambda: (rng.standard_normal((4, 6))[:, ::2], 0.2)),
    (clamp_in_place, lambda: (np.asfortranarray(rng.standard_normal((5, 4))), -0.5, 0.5)),
    (distance_map, lambda: (rng.random((30, 1)), rng.random((1, 40)), 0.5, 0.25)),
    (sum_nditer, lambda: (rng.random((3, 4, 5))[::2],)),
]


def _same(got, want):
    if isinstance(want, tuple):
        return all(_same(g, w) for g, w in zip(got, want))
    return np.allclose(got, want) and np.shape(got) == np.shape(want)


@pytest.mark.parametrize("f,make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_against_cpython_and_numba(f, make):
    args = make()
    want = f.py_func(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    got = f(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    assert _same(got, want)
    nb = numba_or_none(f)
    if nb is not None:
        try:
            got = nb(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        except Exception:   # noqa: BLE001 - Numba lacks keepdims= beside axis=: pyjit is ahead
            return
        assert _same(got, want)
