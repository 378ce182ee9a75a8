"""Generator expressions and generator functions in compiled code: sum/min/max/any/all/sorted/
list of a generator expression (over arrays, ranges, lists, zip and enumerate, reading outer
variables), a generator expression kept in a variable and iterated, an @njit generator function
iterated in a for loop of compiled code, and called from Python (an iterator of the same
values). Each function runs in CPython and compiled on copies of the same arguments
(util.check). A generator is compiled as a function that returns the list of what it yields
(frontend/ssa.c), which CPython 3.12's generator code (an exception table) does not reach yet."""
import numpy as np
import pytest

import pyjit
from pyjit import errors
from util import check



def sum_of_squares(a):
    return sum(x * x for x in a)


def max_shifted(a):
    return max(x - 2 for x in a if x > 1)


def min_distance(a, c):
    return min(abs(x - c) for x in a)


def any_all(a):
    return any(x > 3 for x in a), all(x >= 0 for x in a)


def as_list(n):
    return list(i * 2 for i in range(n))


def weighted(a, k):
    return sum(i * x * k for i, x in enumerate(a))


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def kept_in_a_variable(a):
    g = (x + 1 for x in a)
    total = 0.0
    for v in g:
        total += v
    return total


def sorted_remainders(n):
    return sorted(i % 3 for i in range(n))


def nested(n):
    return sum(sum(j for j in range(i)) for i in range(n))


def over_a_list(n):
    items = []
    for i in range(n):
        items.append(i * 0.5)
    return sum((v for v in items if v > 1), 0.0)


@pytest.mark.parametrize("a", [np.arange(6.0), np.array([3.5, -1.0, 2.0]), np.arange(1, 4)])
def test_reductions_of_generator_expressions(a):
    check(sum_of_squares, a)
    check(max_shifted, a)
    check(min_distance, a, 2.5)
    check(any_all, a)
    check(weighted, a, 3)
    check(dot, a, a[::-1].copy())
    check(kept_in_a_variable, a)


@pytest.mark.parametrize("n", [0, 1, 7])
def test_generator_expressions_over_ranges(n):
    check(as_list, n)
    check(sorted_remainders, n)
    check(nested, n)
    check(over_a_list, n)


def test_empty_max_raises():
    check(max_shifted, np.zeros(3))      # ValueError: max() arg is an empty sequence


def test_any_all_of_containers():
    def of_list(n):
        items = [i % 2 == 0 for i in range(n)]
        return any(items), all(items)

    def of_array(a):
        return any(a), all(a)
    check(of_list, 3)
    check(of_list, 0)
    check(of_array, np.array([0.0, 1.0]))
    check(of_array, np.ones(3))


def evens_squared(n):
    for i in range(n):
        if i % 2 == 0:
            yield i * i
    yield -1


def countdown(n):
    while n > 0:
        yield n
        n -= 1


def pairs(a):
    for i in range(len(a) - 1):
        yield a[i], a[i + 1]


_evens = pyjit.njit(evens_squared)
_countdown = pyjit.njit(countdown)
_pairs = pyjit.njit(pairs)


def consume_generators(n):
    total = 0
    for v in _evens(n):
        total += v
    for v in _countdown(n):
        total += 10 * v
    return total


def consume_pairs(a):
    s = 0.0
    for x, y in _pairs(a):
        s += y - x
    return s


@pytest.mark.parametrize("n", [0, 1, 6])
def test_generator_functions_from_compiled_code(n):
    expected = sum(evens_squared(n)) + sum(10 * v for v in countdown(n))
    assert pyjit.njit(consume_generators)(n) == expected
    a = np.arange(float(n)) ** 2
    assert pyjit.njit(consume_pairs)(a) == sum(y - x for x, y in pairs(a))


@pytest.mark.parametrize("n", [0, 5])
def test_generator_functions_from_python(n):
    it = _evens(n)
    assert iter(it) is it
    assert list(it) == list(evens_squared(n))
    assert list(_countdown(n)) == list(countdown(n))
    assert [tuple(p) for p in _pairs(np.arange(4.0))] == list(pairs(np.arange(4.0)))


def test_yield_from_is_refused():
    def delegating(n):
        yield from range(n)
    with pytest.raises(errors.UnsupportedError, match="yield from"):
        pyjit.njit(delegating)(3)


def test_an_endless_generator_is_refused_naming_it():
    """itertools.count() restated as an @njit generator (a hydrology package's): compiled code
    runs a generator to its end, so the call is refused when compiling, not left to run forever."""
    @pyjit.njit
    def count(start=0, step=1):
        n = start
        while True:
            yield n
            n += step

    @pyjit.njit
    def numbered(edge):
        total = 0
        for row, col in zip(count(), edge):
            total += row * col
        return total

    @pyjit.njit
    def first_two():
        it = count(5)
        return next(it), next(it)

    for f, args in ((numbered, (np.arange(3),)), (first_two, ())):
        with pytest.raises(errors.UnsupportedError, match=r"count\(\) is a generator that never ends"):
            f(*args)
