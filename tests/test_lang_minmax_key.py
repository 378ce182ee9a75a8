"""min() and max() of lists and tuples of tuples (lexicographic, the first extreme item), of two
tuples, and with key= (lists of numbers or tuples, lambdas and compiled functions), against
CPython running the same source; an empty list is CPython's ValueError."""
import numpy as np
import pytest

import pyjit

from util import check

PAIRS = [(3, 1.5), (1, 2.5), (2, 0.5), (1, 0.5), (3, 1.5)]


def min_of(l):
    return min(l)


def max_of(l):
    return max(l)


def min_key(l):
    return min(l, key=lambda t: t[1])


def max_key(l):
    return max(l, key=lambda t: -t[0] + t[1])


def extremes_of_tuple(t):
    return min(t), max(t), min(t, key=lambda v: abs(v - 2)), max(t, key=lambda v: v % 3)


def of_two(a, b):
    return min(a, b), max(a, b), min(b, a), max(b, a)


def numbers_by_key(l):
    return min(l, key=abs), max(l, key=lambda v: v * v), min(l), max(l)


@pyjit.njit
def _rank(t):
    return t[0] * 10 - t[1]


def by_compiled_key(l):
    return min(l, key=_rank), max(l, key=_rank)


def empty(n):
    l = [(1, 2.0)]
    l.clear()
    for i in range(n):
        l.append((i, i * 0.5))
    return min(l)


@pytest.mark.parametrize("fn", [min_of, max_of, min_key, max_key, by_compiled_key])
@pytest.mark.parametrize("l", [PAIRS, PAIRS[:1], PAIRS[::-1], [(2, 1.0), (2, 1.0)]])
def test_lists_of_tuples(fn, l):
    check(fn, list(l))


def test_nested_and_mixed_tuples():
    check(min_of, [((1, 2), 3.0), ((1, 1), 4.0), ((0, 9), -1.0)])
    check(max_of, [(1, True), (1, False), (0, True)])


def test_tuples_and_numbers():
    check(extremes_of_tuple, (3, 1, 4, 1, 5))
    check(of_two, (1, 2.0), (1, 3.0))
    check(of_two, (2, 0.0), (1, 9.0))
    check(numbers_by_key, [-3.0, 2.0, -1.0, 4.0])
    check(numbers_by_key, [5, -5, 2])


def test_empty_is_value_error():
    check(empty, 0)
    check(empty, 3)


def keyed_over_other_iterables(a, word):
    # the nearest index by a key over range(n), the extreme item of an array, a set, a dict's
    # keys and a string's characters: each taken as the list of its items
    nearest = min(range(a.size), key=lambda i: abs(a[i] - 2.2))
    far = max(a, key=lambda v: abs(v - 1.0))
    odd = max({3, 8, 5}, key=lambda v: v % 2 * 10 + v)
    longest = min({"x": 1, "yyy": 2, "zz": 3}, key=lambda k: -len(k))
    letter = max(word, key=lambda c: ord(c) % 7)
    return nearest, far, odd, longest, letter


def test_key_over_ranges_arrays_sets_and_strings():
    check(keyed_over_other_iterables, np.array([0.5, 3.0, 2.0, -4.0]), "hello")
    with pytest.raises(ValueError):
        pyjit.njit(lambda n: min(range(n), key=lambda i: -i))(0)
