"""Views that rearrange axes (pyjit/lib/numpy_views.py over the as_strided builtin) against
NumPy: transpose with axes, swapaxes, moveaxis, squeeze with an axis, as_strided itself; each a
view that writes reach, and NumPy's errors."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import pyjit
from pyjit import njit

from util import assert_same

A = np.arange(24.0).reshape(2, 3, 4)

CASES = [
    lambda a: np.transpose(a, (2, 0, 1)),
    lambda a: a.transpose((1, 2, 0)),
    lambda a: a.transpose(),
    lambda a: np.transpose(a),
    lambda a: np.transpose(a, (-1, 0, 1)),
    lambda a: np.swapaxes(a, 0, 2),
    lambda a: a.swapaxes(-1, 1),
    lambda a: np.moveaxis(a, 0, -1),
    lambda a: np.moveaxis(a, 2, 0),
    lambda a: np.moveaxis(a, 1, 1),
    lambda a: np.squeeze(a[:, :1], axis=1),
    lambda a: a[:1].squeeze(0),
    lambda a: np.transpose(a[:, ::2], (1, 0, 2)),
    lambda a: np.swapaxes(a.astype(np.int16), 0, 1),
    lambda a: as_strided(a, (a.shape[2], a.shape[0]), (a.strides[2], a.strides[0])),
    lambda a: np.lib.stride_tricks.as_strided(a.ravel(), shape=(22, 3),
                                               strides=(a.strides[2], a.strides[2])),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_view(case):
    f = CASES[case]
    assert_same(njit(f)(A.copy()), f(A.copy()))


def test_writes_reach_the_array():
    @njit
    def f(a):
        np.swapaxes(a, 0, 1)[0, 1, 2] = -5.0
        np.transpose(a, (2, 1, 0))[3, 2, 1] = -7.0
        np.moveaxis(a, 2, 0)[1, 0, 0] = -9.0
        return a
    assert_same(f(A.copy()), f.py_func(A.copy()))


@pytest.mark.parametrize("f, error", [
    (lambda a: np.transpose(a, (0, 0, 1)), ValueError),
    (lambda a: np.squeeze(a, 0), ValueError),
    (lambda a: np.swapaxes(a, 0, 3), np.exceptions.AxisError),
])
def test_errors_match_numpy(f, error):
    with pytest.raises(error):
        f(A)
    with pytest.raises(error):
        njit(f)(A)


def test_squeeze_needs_an_axis():
    with pytest.raises(pyjit.TypingError, match="pass axis="):
        njit(lambda a: np.squeeze(a))(A)
