"""a.flags in compiled code against NumPy's own flags, on contiguous arrays, transposes, strided
and sliced views, empty and read-only arrays."""
import numpy as np
import pytest

import pyjit


def read_flags(a):
    f = a.flags
    return f.c_contiguous, f.f_contiguous, f.contiguous, f.writeable, a.flags.aligned


def numpy_flags(a):
    f = a.flags
    return f.c_contiguous, f.f_contiguous, f.contiguous, f.writeable, f.aligned


def read_only(a):
    a = a.copy()
    a.setflags(write=False)
    return a


ARRAYS = [np.ones((2, 3)), np.ones((2, 3)).T, np.ones((4, 4))[:, ::2], np.ones((4, 4))[1:3],
          np.ones(0), np.ones((0, 3)), np.arange(5.0)[::2], np.ones((3, 1))[:, 0],
          np.ones((2, 2, 2), np.float32, order="F"), np.ones((3, 4), np.int8)[::-1],
          np.array(2.5), read_only(np.arange(4))]


@pytest.mark.parametrize("a", ARRAYS, ids=range(len(ARRAYS)))
def test_flags_are_numpys(a):
    assert pyjit.njit(read_flags)(a) == numpy_flags(a)


def test_flags_decide_a_branch():
    @pyjit.njit
    def total(a):
        if a.flags.c_contiguous:
            return a.ravel().sum()
        return a.copy().ravel().sum()
    for a in ARRAYS[:4]:
        assert total(a) == a.sum()
