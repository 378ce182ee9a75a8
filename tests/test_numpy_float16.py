"""float16 arrays on the CPU, compared with NumPy running the same source.

Elements load widened to float32 and store rounded to float16, and arithmetic computes in
float32 rounding each result, as NumPy's float16 loops do, so the results are NumPy's bit for bit.
"""
import numpy as np
import pytest

from util import check


def halves(n, seed=0, lo=-4.0, hi=4.0):
    return np.random.default_rng(seed).uniform(lo, hi, n).astype(np.float16)


def add(a, b):
    return a + b


def scale_shift(a, b):
    return a * 2.5 - b / 3


def elementwise_loop(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] + 0.1
    return out


def update_in_place(a, b):
    for i in range(len(a)):
        a[i] = a[i] * 1.1 + b[i]
    a[::2] += 1
    return a[0]


def math_funcs(a, b):
    return np.sqrt(np.abs(a)), np.exp(a / 4), np.arctan2(a, b)


def reductions(a, b):
    return a.sum(), a.max(), a.min(), a.argmax(), np.abs(a - b).max()


def compare(a, b):
    return a > b, a == a, (a > 0) & (b < 1)


def casts(a, b):
    return a.astype(np.float64), (a * 100).astype(np.int32), b.astype(np.float32).astype(np.float16)


def creation(a, b):
    z = np.zeros(a.shape[0], dtype=np.float16)
    z[1:] = a[:-1]
    return z, np.ones((2, 2), np.float16), np.full(3, 0.1, np.float16)


def views_2d(a, b):
    m = a.reshape(4, 5)
    return m.T[1:3], m[:, 2] * b[:4]


@pytest.mark.parametrize("f", [add, scale_shift, elementwise_loop, update_in_place, math_funcs,
                               compare, casts, creation, views_2d])
def test_float16_arrays(f):
    check(f, halves(20), halves(20, seed=1))


def test_float16_reductions():
    """Sums add in another order than NumPy's pairwise one: within float16's precision."""
    check(reductions, halves(20), halves(20, seed=1), rtol=2e-3)


def test_float16_empty_and_strided():
    check(add, halves(0), halves(0))
    a = halves(30)
    check(scale_shift, a[::3], a[1::3])


def test_float16_overflow_rounds_to_inf_as_numpy():
    check(lambda a, b: a * b, np.array([300.0, -300.0, 1.0], np.float16),
          np.array([300.0, 300.0, 1e-4], np.float16))


def test_float16_scalar_arguments():
    check(lambda x, a: a * x + x, np.float16(1.5), halves(5))
