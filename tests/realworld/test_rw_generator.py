"""Real-world patterns: a np.random.Generator passed into compiled code.

Monte Carlo codes written for Numba take `rng = np.random.default_rng(seed)` from the caller
and draw inside the compiled loop (Numba supports Generator arguments since 0.56): a pi estimate
from points in the unit square, random walks whose steps are normal increments (a Brownian path
for option pricing), a bootstrap of a statistic resampling with rng.integers, and an epidemic
simulation drawing binomial infections per step. Each runs compiled on one Generator and as
plain Python and NumPy on a Generator seeded alike: the draws are NumPy's own, so counts and
paths are equal, and means of them equal up to the order NumPy sums in. Numba, where installed, gives the same numbers too.
"""
import numpy as np
import pytest

from pyjit import njit
from util import numba_or_none


@njit
def monte_carlo_pi(rng, n):
    inside = 0
    for _ in range(n):
        x = rng.random()
        y = rng.random()
        if x * x + y * y <= 1.0:
            inside += 1
    return 4.0 * inside / n


@njit
def asian_option_paths(rng, s0, mu, sigma, dt, steps, paths):
    """Geometric Brownian paths; the payoff of an Asian call on each path's mean."""
    payoff = np.empty(paths)
    for p in range(paths):
        s = s0
        total = 0.0
        for _ in range(steps):
            s *= np.exp((mu - 0.5 * sigma * sigma) * dt + sigma * np.sqrt(dt) * rng.standard_normal())
            total += s
        payoff[p] = max(total / steps - s0, 0.0)
    return payoff.mean(), payoff.std()


@njit
def bootstrap_mean_ci(rng, data, rounds):
    n = data.shape[0]
    means = np.empty(rounds)
    for r in range(rounds):
        idx = rng.integers(0, n, size=n)
        means[r] = data[idx].mean()
    means.sort()
    return means[int(0.025 * rounds)], means[int(0.975 * rounds)]


@njit
def sir_epidemic(rng, population, infected, beta, gamma, days):
    s, i, r = population - infected, infected, 0
    curve = np.zeros(days, np.int64)
    for d in range(days):
        p_infect = 1.0 - np.exp(-beta * i / population)
        new_i = rng.binomial(s, p_infect)
        new_r = rng.binomial(i, gamma)
        s -= new_i
        i += new_i - new_r
        r += new_r
        curve[d] = i
    return curve


@njit
def random_walk_2d(rng, steps):
    xy = np.zeros((steps + 1, 2))
    angles = rng.uniform(0.0, 2.0 * np.pi, size=steps)
    lengths = rng.exponential(1.0, size=steps)
    for k in range(steps):
        xy[k + 1, 0] = xy[k, 0] + lengths[k] * np.cos(angles[k])
        xy[k + 1, 1] = xy[k, 1] + lengths[k] * np.sin(angles[k])
    return xy


CASES = [
    (monte_carlo_pi, lambda: (20000,)),
    (asian_option_paths, lambda: (100.0, 0.05, 0.2, 1 / 252, 50, 200)),
    (bootstrap_mean_ci, lambda: (np.random.default_rng(99).normal(5.0, 2.0, 300), 200)),
    (sir_epidemic, lambda: (10000, 10, 0.3, 0.1, 120)),
    (random_walk_2d, lambda: (1000,)),
]


def same(a, b):
    """Equal draws; sums and means of them within rounding (NumPy sums pairwise)."""
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f":
        return a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=0)
    return np.array_equal(a, b)


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
@pytest.mark.parametrize("seed", [0, 2024])
def test_against_cpython_and_numba(f, make, seed):
    want = f.py_func(np.random.default_rng(seed), *make())
    rng = np.random.default_rng(seed)
    assert same(want, f(rng, *make()))
    after = np.random.default_rng(seed)   # the Generator passed in moved on as NumPy's does
    f.py_func(after, *make())
    assert rng.random() == after.random()
    nb = numba_or_none(f)
    if nb is not None:
        assert same(want, nb(np.random.default_rng(seed), *make()))
