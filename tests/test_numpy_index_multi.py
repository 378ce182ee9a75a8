"""Indices of two or more arrays (a[i, j], a[i, :, j], a[:, i, j], ints between them, 1-d bool
arrays, lists), read and assigned, against NumPy running the same source: the arrays broadcast
together and their axes go where NumPy puts them (in place when the advanced indices are
adjacent, first otherwise), over layouts (C, Fortran, strided), dtypes, negative, repeated,
empty and out-of-bounds indices."""
import numpy as np
import pytest

from util import check

RNG = np.random.default_rng(23)


def _bases():
    c3 = RNG.standard_normal((4, 5, 6))
    return {
        "C": c3,
        "F": np.asfortranarray(c3),
        "strided": RNG.standard_normal((8, 5, 12))[::2, :, ::2],
        "int32": RNG.integers(-50, 50, (4, 5, 6)).astype(np.int32),
        "bool": RNG.integers(0, 2, (4, 5, 6)).astype(bool),
    }


BASES = _bases()


def ij(a, i, j):
    return a[i, j]


def i_slice_j(a, i, j):
    return a[i, :, j]


def slice_i_j(a, i, j):
    return a[:, i, j]


def i_int_j(a, i, j):
    return a[i, 2, j]


def int_i_j(a, i, j):
    return a[-1, i, j]


def i_j_slice(a, i, j):
    return a[i, j, 1:5:2]


def three(a, i, j):
    return a[i, j, i]


INDEXES = {
    "1-d pair": (np.array([0, 3, -1, 2]), np.array([4, 0, 1, -2])),
    "broadcast 2-d with 1-d": (np.array([[0], [3], [1]]), np.array([1, 4, 0, -1])),
    "length-1 broadcast": (np.array([2]), np.array([0, 1, 2, 3, 4])),
    "repeated": (np.array([1, 1, 1]), np.array([2, 2, 0])),
    "empty": (np.zeros(0, np.int64), np.zeros(0, np.int64)),
    "int32 and int64": (np.array([0, 1], np.int32), np.array([3, 4])),
}


@pytest.mark.parametrize("base", list(BASES))
@pytest.mark.parametrize("index", list(INDEXES))
@pytest.mark.parametrize("fn", [ij, i_slice_j, slice_i_j, i_int_j, int_i_j, i_j_slice, three])
def test_reads_match_numpy(fn, index, base):
    i, j = INDEXES[index]
    check(fn, BASES[base], i, j, exact=True)


def bool_and_int(a, m, j):
    return a[m, j]


def test_bool_array_beside_an_int_array():
    a = BASES["C"][:, :, 0]
    check(bool_and_int, a, np.array([True, False, True, True]), np.array([0, 4, 2]), exact=True)
    check(bool_and_int, a, np.array([True, False, True, True]), np.array([1, 2]))   # IndexError


def lists(a):
    return a[[0, 2, 3], [1, 1, 4]], a[[0, 1], :, [5, 0]]


def test_lists_index_as_arrays():
    check(lists, BASES["C"], exact=True)


@pytest.mark.parametrize("fn", [ij, i_slice_j, three])
def test_errors_as_numpy(fn):
    a = BASES["C"]
    check(fn, a, np.array([0, 4]), np.array([1, 2]))            # 4 out of bounds on axis 0
    check(fn, a, np.array([0, 1, 2]), np.array([1, 2]))         # shapes do not broadcast
    check(fn, a, np.array([-5, 0]), np.array([1, 2]))           # -5 out of bounds


def set_scalar(a, i, j):
    a[i, j] = 7
    return a


def set_array(a, i, j):
    a[i, :, j] = np.arange(i.size * a.shape[1]).reshape(i.size, a.shape[1])
    return a


def add_in_place(a, i, j):
    a[:, i, j] += a[:, i, j]
    return a


@pytest.mark.parametrize("base", list(BASES))
@pytest.mark.parametrize("fn", [set_scalar, set_array, add_in_place])
def test_assignments_match_numpy(fn, base):
    a = BASES[base]
    check(fn, a.copy(order="K"), np.array([0, 3, -1, 3]), np.array([4, 0, 1, 4]), exact=True)


def set_view(base, i, j):
    v = base[::2, 1:, ::3]
    v[i, j] = -1
    return base


def test_assignment_through_a_view():
    check(set_view, RNG.standard_normal((8, 6, 9)), np.array([0, 3, 1]), np.array([4, 0, 2]),
          exact=True)


def test_wrong_value_shape_is_value_error():
    check(set_array, BASES["C"].copy(), np.array([0, 1]), np.array([2, 3, 4]))
