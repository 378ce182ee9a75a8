"""Loops over tuples whose items differ in type: `for x in literal_unroll(t)` (Numba's name,
pyjit.literal_unroll) and a plain `for x in t`, unrolled, one copy of the body per item, each
typed for its own item (compiler/infer_unroll.c). Each function runs in CPython and compiled
(util.check)."""
import sys

import numpy as np
import pytest

import pyjit
from pyjit import errors, literal_unroll
from util import check


def total_len(t):
    n = 0
    for x in literal_unroll(t):
        n += len(x)
    return n


def describe_all(t):
    acc = 0.0
    count = 0
    for x in literal_unroll(t):
        if isinstance(x, str):
            acc += len(x)
        elif isinstance(x, np.ndarray):
            acc += x.sum()
        else:
            acc += x
        count += 1
    return acc, count


def plain_loop(t):
    s = 0.0
    for x in t:
        s = s * 2 + x
    return s


def with_continue_and_return(t, limit):
    s = 0.0
    for x in literal_unroll(t):
        if x < 0:
            continue
        s += x
        if s > limit:
            return -s
    return s


def nested(t, k):
    out = 0.0
    for i in range(k):
        for x in literal_unroll(t):
            out += x * i
    return out


def over_local_tuple(n):
    t = (n, n * 0.5, n > 2)
    s = 0.0
    for v in t:
        s += v
    return s


@pytest.mark.parametrize("t", [(1, 2.5, True), (3, 1.5 + 2j, 0.25)])
def test_plain_loop_over_mixed_numbers(t):
    check(plain_loop, t)


@pytest.mark.parametrize("t", [(1, 2.5, True), ("ab", np.arange(3.0), 4)])
def test_body_typed_per_item(t):
    check(describe_all, t)


def test_lengths_of_mixed_containers():
    check(total_len, ("abc", np.zeros(4), (1, 2.5)))


@pytest.mark.parametrize("limit", [1.0, 100.0])
def test_continue_and_return_in_the_body(limit):
    check(with_continue_and_return, (2, -1.0, 3.5, True), limit)


def test_nested_in_a_loop_and_local_tuples():
    check(nested, (1, 2.5, False), 4)
    check(over_local_tuple, 3)


def test_homogeneous_tuple_and_python_value():
    check(total_len, ("a", "bcd"))
    assert literal_unroll((1, "a")) == (1, "a")


def test_break_is_refused():
    def f(t):
        s = 0.0
        for x in t:
            if x > 1:
                break
            s += x
        return s
    if sys.version_info >= (3, 12):
        # 3.12 copies the code after the loop into the break, which is then a return: unrolled
        for t in ((1, 2.5), (0.5, 1), (3, 0.5)):
            assert pyjit.njit(f)(t) == f(t)
        return
    with pytest.raises(errors.UnsupportedError, match="break"):
        pyjit.njit(f)((1, 2.5))
