"""map(), filter(), functools.reduce(), the tuple methods index() and count(), comparisons of
lists and sum() with a start, in compiled code: each function runs in CPython and compiled on the
same arguments (tests/util.py's check), results and exception classes agreeing."""
import functools

import numpy as np
import pytest

import pyjit
from util import check, check_raises


def mapped(n):
    return (list(map(lambda x: x * x, range(n))), list(map(abs, [-1.5, 2.0, -3.0])),
            list(map(lambda a, b: a - b, range(n), [10] * n)),
            list(map(lambda a, b, c: a + b * c, [1, 2], [3, 4], [5, 6, 7])))


def mapped_over_text_and_arrays(s, a):
    return list(map(lambda c: c + c, s)), list(map(lambda x: x * 2.0, a)), \
        [v for v in map(lambda row: row.sum(), a.reshape(2, -1))]


def filtered(n):
    return (list(filter(lambda x: x % 3 == 0, range(n))), list(filter(None, [0, 4, 0, 5])),
            [x for x in filter(lambda x: x > 0.5, [0.1, 0.7, 0.9])])


def map_consumers(n):
    return (sum(map(lambda x: x * 0.5, range(n))), max(map(lambda x: (x * 7) % 5, range(n))),
            sorted(map(lambda x: -x, range(n))), any(map(lambda x: x > 3, range(n))))


def reduced(n):
    return (functools.reduce(lambda a, b: a + b, range(1, n)),
            functools.reduce(lambda a, b: a * b, [1.5, 2.0, 4.0]),
            functools.reduce(lambda a, b: a + b, range(n), 100),
            functools.reduce(lambda acc, x: acc + len(x), ["ab", "c"], 0),
            functools.reduce(max, [3, 9, 2]))


def reduced_empty(n):
    return functools.reduce(lambda a, b: a + b, range(n))


def tuple_methods(x):
    mixed = (1, 2.0, x, "s", 2)
    same = (4, x, 4, 5)
    return mixed.index(2.0), mixed.count(2), mixed.index("s"), same.index(5), same.count(4), \
        same.count(99)


def tuple_index_missing(x):
    return (1, 2, 3).index(x)


def list_compare(a, b):
    return a == b, a != b, a < b, a <= b, a > b, a >= b


def sum_with_start(n, a):
    return sum(range(n), 10), sum([1.5, 2.5], 1), sum(a, 0.5), sum((1, 2), 3), sum({1, 2}, 7)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_map(n):
    check(mapped, n)
    check(map_consumers, max(n, 1))


def test_map_over_strings_and_arrays():
    check(mapped_over_text_and_arrays, "héllo", np.arange(6.0))


@pytest.mark.parametrize("n", [0, 7])
def test_filter(n):
    check(filtered, n)


@pytest.mark.parametrize("n", [2, 6])
def test_reduce(n):
    check(reduced, n)


def test_reduce_of_nothing_without_initial_is_a_type_error():
    check(reduced_empty, 0)
    check_raises(TypeError, pyjit.njit(reduced_empty), 0,
                 match="reduce() of empty iterable with no initial value")


@pytest.mark.parametrize("x", [3, 5])
def test_tuple_methods(x):
    check(tuple_methods, x)


def test_tuple_index_of_a_missing_item():
    check(tuple_index_missing, 2)
    check_raises(ValueError, pyjit.njit(tuple_index_missing), 9, match="not in tuple")


@pytest.mark.parametrize("a,b", [([1, 2, 3], [1, 2, 3]), ([1, 2], [1, 2, 3]), ([2], [1, 5]),
                                 ([1.5], [1.5, 0.0]), (["a", "b"], ["a", "c"]),
                                 ([3, 1], [3.0, 1.5]), ([(1, 2)], [(1, 3)])])
def test_list_comparisons(a, b):
    check(list_compare, a, b)
    check(list_compare, b, a)


def test_sum_with_a_start():
    check(sum_with_start, 4, np.arange(5.0))


# ---- iter() and next() --------------------------------------------------------------------------

def first_two(n):
    it = iter(range(3, n, 2))
    return next(it) + next(it)


def first_key_and_rest(n):
    d = {}
    for i in range(n):
        d[i * 3] = i * 0.5
    it = iter(d)
    first = next(it)
    rest = 0
    for k in it:          # the loop goes on where next() stopped
        rest += k
    return first, rest, next(iter(d.values())) if False else first


def sum_until_default(values):
    it = iter(values)
    s = 0.0
    while True:
        v = next(it, -1.0)
        if v < 0:
            break
        s += v
    return s


def rows_and_chars(a, s):
    rows = iter(a)
    chars = iter(s)
    return next(rows).sum() + next(rows).sum(), next(chars) + next(chars), next(iter((4, 5, 6)))


def exhausted(n):
    it = iter(range(n))
    count = 0
    try:
        while True:
            next(it)
            count += 1
    except StopIteration:
        return count
    return -1


def past_the_end(values):
    it = iter(values)
    for _ in range(len(values)):
        next(it)
    return next(it)


@pytest.mark.parametrize("n", [6, 20])
def test_iter_next(n):
    check(first_two, n)
    check(first_key_and_rest, n)
    check(exhausted, n)


def test_next_with_a_default():
    check(sum_until_default, [1.0, 2.5, 3.0])
    check(sum_until_default, [2.0])


def test_next_over_arrays_strings_and_tuples():
    check(rows_and_chars, np.arange(6.0).reshape(3, 2), "héllo")


def test_next_past_the_end_raises_stop_iteration():
    check(past_the_end, [1, 2])
    check_raises(StopIteration, pyjit.njit(past_the_end), [1.5])


def test_next_of_a_list_is_a_typing_error():
    def bad(values):
        return next(values)
    with pytest.raises(pyjit.errors.UnsupportedError, match="next.. takes an iterator"):
        pyjit.njit(bad)([1, 2])
