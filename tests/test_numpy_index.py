"""Advanced indexing (pyjit/lib/numpy_index.py) against NumPy: boolean masks, integer arrays,
one array among ints and slices (the taken axes in place or first, NumPy's rule), on views and
non-contiguous arrays, read and assigned; and the errors NumPy raises."""
import numpy as np
import pytest

import pyjit
from pyjit import njit

from util import assert_same, check

RNG = np.random.default_rng(11)
I = np.array


def cube():
    return RNG.standard_normal((4, 5, 3))


GETS = [
    lambda a: a[a > 0],
    lambda a: a[I([2, -1, 0])],
    lambda a: a[I([[1, 2], [3, 0]])],
    lambda a: a[:, I([4, 0])],
    lambda a: a[1, I([4, 0])],
    lambda a: a[1, :, I([2, 0])],          # int and array separated by a slice: taken axes first
    lambda a: a[I([3, 1]), :, 0],
    lambda a: a[:, I([3, 1]), 0],
    lambda a: a[I([True, False, True, True])],
    lambda a: a[:, I([True, False, True, True, False])],
    lambda a: a[::2][I([1, 0])],
    lambda a: a.T[a.T < 0],
    lambda a: a[:, 1:4][I([0, 3]), 2],
    lambda a: a[0, 0][I([2, 2, 1])],
    lambda a: a.astype(np.int32)[I([1], np.uint8)],
]


@pytest.mark.parametrize("case", range(len(GETS)))
def test_get(case):
    f = GETS[case]
    a = cube()
    assert_same(njit(f)(a), f(a))


def _set_mask(a):
    a[a > 0] = 0.0
    return a


def _set_ints(a):
    a[I([2, -1])] = 7.0
    return a


def _set_values(a):
    a[:, I([4, 0]), 1] = np.arange(8.0).reshape(4, 2)
    return a


def _set_mask_values(a):
    a[a < 0] = np.arange(100.0)[:np.count_nonzero(a < 0)]
    return a


def _set_mask_in_tuple(a):
    a[1, :, I([True, False, True])] = -1.0
    return a


def _set_rows(a):
    a[I([0, 2])] = np.ones((2, 5, 3))
    return a


def _set_through_view(a):
    b = a[:, ::2]
    b[b > 0] = 5.0
    return a


def _set_transposed(a):
    a.T[a.T > 0] = 3.0
    return a


SETS = [_set_mask, _set_ints, _set_values, _set_mask_values, _set_mask_in_tuple, _set_rows,
        _set_through_view, _set_transposed]


@pytest.mark.parametrize("f", SETS, ids=[f.__name__ for f in SETS])
def test_set(f):
    a = cube()
    assert_same(njit(f)(a.copy()), f(a.copy()))


def _out_of_bounds(a):
    return a[I([9])]


def _negative_out_of_bounds(a):
    return a[:, I([-6])]


def _mask_shape(a):
    return a[I([True, False])]


def _too_many_values(a):
    a[a > 0] = np.ones(2)
    return a


@pytest.mark.parametrize("f", [_out_of_bounds, _negative_out_of_bounds, _mask_shape,
                               _too_many_values])
def test_errors_match_numpy(f):
    a = cube()
    with pytest.raises(Exception) as expected:
        f(a.copy())
    with pytest.raises(type(expected.value)) as got:
        njit(f)(a.copy())
    assert str(got.value).splitlines()[0] == str(expected.value)


def test_refused_forms_say_why():
    with pytest.raises(pyjit.TypingError, match="integer or boolean type"):
        njit(lambda a: a[I([1.0])])(cube())
    with pytest.raises(pyjit.TypingError, match="too many indices"):
        njit(lambda a: a[:, :, np.ones((3, 2), np.bool_)])(cube())


def _mask_cases():
    m12 = RNG.random((5, 3)) > 0.5
    m01 = RNG.random((4, 5)) > 0.5
    return [
        (lambda a, m: a[:, m], m12),                     # lattice Boltzmann's f[:, solid]
        (lambda a, m: a[m, :], m01),
        (lambda a, m: a[m], m01),                        # a mask over the leading axes
        (lambda a, m: a[m, 1], m01),
        (lambda a, m: a[I([0, 2, 3]), m], m12),          # beside an int array
        (lambda a, m: a[1:, m], m12),
    ]


@pytest.mark.parametrize("case", range(6))
def test_nd_masks_in_index_tuples(case):
    f, m = _mask_cases()[case]
    check(f, cube(), m)


def _bounce_back(f, m):
    b = f[:, m]
    f[:, m] = b[::-1, :]
    return f


def _mask_assignments(f, m):
    f[m, 1] = -1.0
    f[m, :] = f[m, :] * 2.0
    return f


def test_nd_masks_assigned_in_tuples():
    check(_bounce_back, cube(), RNG.random((5, 3)) > 0.5)
    check(_mask_assignments, cube(), RNG.random((4, 5)) > 0.5)
    # a mask of the wrong shape: NumPy's IndexError and message
    with pytest.raises(IndexError, match="boolean index did not match indexed array along "
                       "axis 1; size of axis is 5"):
        njit(lambda a, m: a[:, m])(cube(), np.ones((4, 3), np.bool_))


def test_gathers_in_a_loop_keep_memory_flat():
    from util import memory_in_use

    @njit
    def f(a, idx):
        s = 0.0
        for _ in range(100):
            s += a[idx].sum() + a[a > 0.5].size
        return s
    a, idx = RNG.standard_normal(1000), RNG.integers(0, 1000, 100)
    f(a, idx)
    before = memory_in_use()
    for _ in range(200):
        f(a, idx)
    assert memory_in_use() - before < 1 << 20


LIST_GETS = [
    lambda a: a[[2, 0]],
    lambda a: a[:, [True, False, True, False, True]],
    lambda a: a[1, [3, 3], 0],
]


@pytest.mark.parametrize("case", range(len(LIST_GETS)))
def test_lists_as_indices(case):
    f = LIST_GETS[case]
    a = cube()
    assert_same(njit(f)(a), f(a))


def _store_tuple(a):
    a[0:3, 1, 0] = (1.0, 2.0, 3.0)
    return a


def _store_list_at_ints(a):
    a[[0, 2], 0] = 5.0
    return a


def _augmented_mask(a):
    a[a > 0.5] += 100.0
    return a


def _store_list_row(a):
    a[1, 2] = [9.0, 8.0, 7.0]
    return a


def _store_nested_tuple(a):
    a[[0, 2], 1:3, 0] = ((1, 2), (3, 4))
    return a


@pytest.mark.parametrize("f", [_store_tuple, _store_list_at_ints, _augmented_mask,
                               _store_list_row, _store_nested_tuple])
def test_sequences_stored(f):
    a = cube()
    assert_same(njit(f)(a.copy()), f(a.copy()))


def _store_tuple_into_row(a, i):
    x, y, z = a[i, :3, 0]
    a[i, :3, 0] = z, y + 1, True           # the items stored one by one, no array made of them
    a[i + 1, 1, :] = (7,)                  # a 1-tuple broadcasts
    a[:, -1, 2] = 1.5, 2, -3, 4
    return a


def _store_tuple_of_wrong_length(a):
    a[0, :2, 0] = 1.0, 2.0, 3.0
    return a


def test_tuple_into_a_row():
    a = cube()
    assert_same(njit(_store_tuple_into_row)(a.copy(), 1), _store_tuple_into_row(a.copy(), 1))
    b = np.arange(48, dtype=np.int32).reshape(4, 4, 3)
    assert_same(njit(_store_tuple_into_row)(b.copy(), 0), _store_tuple_into_row(b.copy(), 0))
    with pytest.raises(ValueError, match="could not broadcast input array from shape \\(3,\\)"):
        njit(_store_tuple_of_wrong_length)(cube())
    with pytest.raises(ValueError, match="could not broadcast input array from shape \\(3,\\)"):
        _store_tuple_of_wrong_length(cube())


@pytest.mark.parametrize("f", [lambda: np.array((1, 2.5, True)), lambda: np.array(((1, 2), (3, 4))),
                               lambda: np.array([(1.0, 2.0), (3.0, 4.0)]),
                               lambda: np.array((3, 4), dtype=np.float32)])
def test_array_of_tuples(f):
    assert_same(njit(f)(), f())


def _take(a, idx):
    return a[idx]


def _masked_sum(a, lo):
    return a[a > lo].sum() + a[a <= lo].size


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_, np.complex128])
def test_one_dimensional_mask_and_gather(dtype):
    """a[mask] and a[ind] on 1-d arrays (their own loops): views, empty and full selections,
    negative indices, and NumPy's IndexError."""
    from util import check
    rng = np.random.default_rng(11)
    for n in (0, 1, 9, 200):
        a = (rng.standard_normal(n) * 4).astype(dtype)
        for m in (rng.random(n) > 0.5, np.zeros(n, bool), np.ones(n, bool)):
            check(_take, a, m, exact=True)
            check(_take, a[::-1], m[::-1], exact=True)
        check(_take, a[::3], rng.random(a[::3].size) > 0.3, exact=True)
        if n:
            idx = rng.integers(-n, n, 2 * n)
            check(_take, a, idx, exact=True)
            check(_take, a[::2], idx // 2 - (idx < 0), exact=True)
            check(_take, a, idx.astype(np.int32)[::-1], exact=True)
            check(_take, a, np.array([n]))          # IndexError
            check(_take, a, np.array([0, -n - 1]))  # IndexError
        check(_take, a, np.zeros(0, np.int64), exact=True)
        check(_take, a, np.ones(n + 1, bool))       # IndexError: the mask's size
    x = rng.random(1000)
    check(_masked_sum, x, 0.5)
    check(_masked_sum, x[::-2], 0.25)
    check(_masked_sum, np.full(4, np.nan), 0.0)
