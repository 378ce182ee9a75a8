"""None (np.newaxis) and `...` in array indices against NumPy: views with new axes of length
1, the ellipsis standing for the axes the other parts leave, read, assigned and broadcast."""
import numpy as np
import pytest

import pyjit
from pyjit import njit

from util import assert_same

A = np.arange(24.0).reshape(2, 3, 4)

GETS = [
    lambda a: a[:, None],
    lambda a: a[None],
    lambda a: a[None, :, None, 1],
    lambda a: a[..., 0],
    lambda a: a[0, ...],
    lambda a: a[...],
    lambda a: a[..., None],
    lambda a: a[1, ..., 2],
    lambda a: a[:, np.newaxis, ::2, ...],
    lambda a: a[0, 0, 0, None],
    lambda a: a[0, 1][:, None] * a[0, 1][None, :],    # an outer product by broadcasting
    lambda a: a.T[..., None, 1],
]


@pytest.mark.parametrize("case", range(len(GETS)))
def test_get(case):
    f = GETS[case]
    assert_same(njit(f)(A.copy()), f(A.copy()))


def _set_ellipsis(a):
    a[..., 1] = -1.0
    return a


def _set_new_axis(a):
    a[0, :, None] = np.ones((3, 1, 4))
    return a


@pytest.mark.parametrize("f", [_set_ellipsis, _set_new_axis])
def test_set(f):
    assert_same(njit(f)(A.copy()), f(A.copy()))


def test_view_shares_memory():
    @njit
    def f(a):
        v = a[None, ..., 0]
        v[0, 1, 2] = 99.0
        return a
    a = A.copy()
    assert f(a)[1, 2, 0] == 99.0


def test_in_a_loop():
    @njit
    def pairwise(x):
        d = x[:, None, :] - x[None, :, :]
        return (d * d).sum()
    x = np.random.default_rng(3).standard_normal((5, 3))
    assert_same(pairwise(x), pairwise.py_func(x))


def test_errors():
    with pytest.raises(pyjit.TypingError, match="single ellipsis"):
        njit(lambda a: a[..., ...])(A)
    with pytest.raises(pyjit.TypingError, match="too many indices"):
        njit(lambda a: a[0, 0, 0, 0, None])(A)
