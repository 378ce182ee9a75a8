"""Innermost single-exit range loops that were not vectorised are unrolled by four after the
optimiser's pipeline (compiler/jit.c: ask_unrolling): every trip count (the remainder loop
included) and step gives CPython's result, and so does a loop with another exit, left rolled."""
import numpy as np
import pytest

from pyjit import njit
from util import assert_same


def edit_distance(a, b):
    n, m = a.shape[0], b.shape[0]
    prev = np.arange(m + 1)
    cur = np.empty(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        cur[0] = i
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev, cur = cur, prev
    return prev[m]


def stepped(x, start, stop, step):
    s = 0
    for k in range(start, stop, step):
        s = s * 3 + x[k % x.shape[0]]
    return s


def first_above(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
    return -1


@pytest.mark.parametrize("n", range(0, 10))
def test_every_trip_count(n):
    rng = np.random.default_rng(n)
    a, b = rng.integers(0, 3, n), rng.integers(0, 3, n + 3)
    assert edit_distance(a, b) == njit(edit_distance)(a, b)
    assert edit_distance(b, a) == njit(edit_distance)(b, a)


def test_steps_and_empty_ranges():
    x = np.arange(1, 8)
    g = njit(stepped)
    for start in range(-3, 12):
        for stop in range(-3, 12):
            for step in (1, 2, 3, -1, -2):
                assert stepped(x, start, stop, step) == g(x, start, stop, step), (start, stop, step)


def test_a_loop_that_returns_early():
    g = njit(first_above)
    x = np.random.default_rng(1).random(37)
    for t in (-1.0, 0.5, 0.9, 0.99, 2.0):
        assert_same(first_above(x, t), g(x, t))


def test_the_hint_is_taken():
    g = njit(edit_distance)
    a = np.arange(5)
    g(a, a)
    text = g.inspect_llvm()
    text = text if isinstance(text, str) else "".join(text.values())
    assert "pyjit.unroll" not in text   # replaced by llvm.loop.unroll.count, then unrolled
    assert "llvm.loop.unroll.disable" in text
