"""axis= on np.append, np.delete, np.insert (at an int or a sequence of positions, of numbers, lists
and arrays, broadcast as NumPy's) and np.average
(with and without weights=, which may be of a's shape or 1-d along the axis), against NumPy
running the same source, over dtypes, layouts, every axis (negative too) and NumPy's errors."""
import numpy as np
import pytest

from util import check

RNG = np.random.default_rng(29)


def _arrays():
    c3 = RNG.standard_normal((3, 4, 5))
    return {
        "f8 3-d": c3,
        "f8 Fortran": np.asfortranarray(c3),
        "f8 strided": RNG.standard_normal((6, 4, 10))[::2, :, ::2],
        "i8 2-d": RNG.integers(-9, 9, (4, 6)),
        "f4 1-d": RNG.standard_normal(7).astype(np.float32),
        "bool 2-d": RNG.integers(0, 2, (3, 4)).astype(bool),
    }


ARRAYS = _arrays()


def _axes(a):
    axes = list(range(a.ndim))
    axes.append(-1)
    return axes


def append_axis(a, ax):
    return np.append(a, a, axis=ax)


def delete_int(a, ax):
    return np.delete(a, 1, axis=ax), np.delete(a, -1, axis=ax)


def delete_indices(a, ax):
    return np.delete(a, np.array([0, 2, 0]), axis=ax)


def delete_list(a, ax):
    return np.delete(a, [1, -2], axis=ax)


def delete_mask(a, ax):
    m = np.zeros(a.shape[ax], dtype=np.bool_)
    m[::2] = True
    return np.delete(a, m, axis=ax)


def delete_slices(a, ax):
    return (np.delete(a, slice(1, None), axis=ax), np.delete(a, slice(None, None, -2), axis=ax),
            np.delete(a, slice(-2, 100), axis=ax), np.delete(a, slice(3, 1), axis=ax),
            np.delete(a, slice(0, 4, 2)))


def average_plain(a, ax):
    return np.average(a, axis=ax)


def average_same_shape(a, ax):
    w = np.abs(a) + 1
    return np.average(a, axis=ax, weights=w)


def average_1d(a, ax):
    w = np.arange(1, a.shape[ax] + 1) * 0.5
    return np.average(a, axis=ax, weights=w)


def insert_scalar(a, ax):
    return (np.insert(a, 0, 7, axis=ax), np.insert(a, -1, 2.5, axis=ax),
            np.insert(a, a.shape[ax], 1, axis=ax))


def insert_slices(a, ax, row, block):
    """At one position, values' first axis becomes the inserted one: a row fills a column."""
    n = a.shape[ax]
    return (np.insert(a, 1, row, axis=ax), np.insert(a, n, 4, axis=ax),
            np.insert(a, -1, block, axis=ax), np.insert(a, 0, [1, 0], axis=ax))


def insert_positions(a, ax, block):
    n = a.shape[ax]
    return (np.insert(a, [0, n, 1, 1], 9, axis=ax), np.insert(a, (n,), block[:1], axis=ax),
            np.insert(a, np.array([2, -1]), block, axis=ax))


FUNCS = [append_axis, insert_scalar, delete_int, delete_indices, delete_list, delete_mask,
         delete_slices, average_plain, average_same_shape, average_1d]


@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("fn", FUNCS)
def test_along_every_axis(fn, name):
    a = ARRAYS[name]
    if a.dtype == bool and fn.__name__.startswith("average"):
        a = a.astype(np.int64)
    for ax in _axes(a):
        check(fn, a, ax, rtol=1e-5)


@pytest.mark.parametrize("name", ["f8 3-d", "f8 strided", "i8 2-d", "f4 1-d"])
def test_insert_slices_and_positions(name):
    """np.insert's values of every form: a number, a list, a row (one slice of the other axes),
    slices stacked along the first axis, and values that broadcast (a column of 2)."""
    a = ARRAYS[name]
    for ax in _axes(a):
        others = a.shape[:ax % a.ndim] + a.shape[ax % a.ndim + 1:]
        row = np.arange(1, int(np.prod(others)) + 1).reshape(others)
        block = np.ones((2,) + others, a.dtype)
        check(insert_slices, a, ax, row, block * 3)
        check(insert_positions, a, ax, np.moveaxis(block * 5, 0, ax))
        check(insert_positions, a, ax, np.arange(2).reshape((2,) + (1,) * (a.ndim - 1)))


def insert_slice_flat(a, v):
    return np.insert(a, slice(1, None, 2), v)


def insert_slice_axis(a, ax, v):
    return np.insert(a, slice(None, 2), v, axis=ax)


def insert_slice_one(a, ax, v):
    return np.insert(a, slice(-1, None), v, axis=ax)


@pytest.mark.parametrize("name", ["f8 3-d", "f8 strided", "i8 2-d", "f4 1-d"])
def test_insert_at_a_slice(name):
    """A slice of positions is the positions it takes (NumPy's arange(*s.indices(n))); a slice
    of one position is a sequence of one, values keeping their axis there."""
    a = ARRAYS[name]
    check(insert_slice_flat, a, 7)
    check(insert_slice_flat, a, np.arange(a.size // 2 + a.size % 2 - 1 + 1 if a.size > 1 else 1))
    for ax in _axes(a):
        check(insert_slice_axis, a, ax, 3)
        check(insert_slice_one, a, ax, 4)


def delete_out_of_range(a, ax):
    return np.delete(a, 10, axis=ax)


def average_zero_weights(a, ax):
    return np.average(a, axis=ax, weights=np.zeros(a.shape[ax]))


def average_wrong_length(a, ax):
    return np.average(a, axis=ax, weights=np.ones(a.shape[ax] + 1))


def append_wrong_ndim(a, ax):
    return np.append(a, a[0], axis=ax)


def insert_out_of_range(a, ax):
    return np.insert(a, a.shape[ax] + 1, 0, axis=ax)


def insert_values_mismatch(a, ax):
    return np.insert(a, [0, 1], np.ones(7), axis=ax)


def insert_slice_mismatch(a, ax):
    return np.insert(a, 0, np.ones((2, 7)), axis=ax)


def bad_axis(a, ax):
    return np.delete(a, 0, axis=ax + 5)


@pytest.mark.parametrize("fn", [delete_out_of_range, average_zero_weights, average_wrong_length,
                                append_wrong_ndim, insert_out_of_range, insert_values_mismatch,
                                insert_slice_mismatch, bad_axis])
def test_errors_as_numpy(fn):
    check(fn, ARRAYS["f8 3-d"], 1)
