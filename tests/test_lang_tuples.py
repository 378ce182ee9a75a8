"""Tuples, homogeneous and heterogeneous: building, returning, passing, indexing, unpacking, len,
iteration, `in`. Each function runs in CPython and compiled (util.check)."""
import numpy as np
import pytest

import pyjit
from util import check, check_raises


def make_pair(a, b):
    return a, b


def make_mixed(a, b):
    return a + 1, b * 2.0, a > 0, complex(b, 1.0)


def nested(a, b):
    return (a, (b, a + b)), b


def empty_tuple(x):
    return ()


def test_return_tuples():
    check(make_pair, 1, 2)
    check(make_pair, 1, 2.5)
    check(make_pair, np.float32(1.5), True)
    check(make_mixed, 3, 1.25)
    check(make_mixed, -3, -0.5)
    check(nested, 2, 7)
    check(empty_tuple, 1)


def first(t):
    return t[0]


def last(t):
    return t[-1]


def middle(t):
    return t[1]


def length(t):
    return len(t)


def sum_tuple(t):
    return t[0] + t[1] + t[2]


def test_tuple_arguments():
    for t in [(1, 2, 3), (1.5, 2, -3), (True, 2.5, 7), (np.int32(4), np.float32(0.5), 9)]:
        check(first, t)
        check(last, t)
        check(middle, t)
        check(length, t)
        check(sum_tuple, t)
    check(first, ((1, 2), 3.0))
    check(length, ())


def dynamic_index(t, i):
    return t[i]


def test_homogeneous_tuple_dynamic_index():
    t = (10, 20, 30, 40)
    for i in (0, 3, -1, -4):
        check(dynamic_index, t, i)
    check_raises(IndexError, pyjit.njit(dynamic_index), t, 4)
    check_raises(IndexError, pyjit.njit(dynamic_index), t, -5)


def shape_walk(a):
    total = 0
    for d in range(a.ndim - 1, -1, -1):
        total += a.shape[d] * a.strides[d]
    return total


def shape_at(a, i):
    return a.shape[i]


def test_zero_d_shape_dynamic_index():
    # a 0-d array's shape and strides are empty tuples, which Numba types as tuples of ints:
    # indexed by a variable in a loop that never runs, or out of range when it does run
    for a in (np.array(2.5), np.ones((2, 3)), np.ones((4, 3))[::2, ::-1]):
        check(shape_walk, a)
    check_raises(IndexError, pyjit.njit(shape_at), np.array(1.0), 0)
    check_raises(IndexError, pyjit.njit(dynamic_index), (), 0)


def unpack(t):
    a, b, c = t
    return c, b, a


def unpack_nested(t):
    (a, b), c = t
    return a * b - c


def test_unpacking():
    check(unpack, (1, 2.5, True))
    check(unpack, (1, 2, 3))
    check(unpack_nested, ((2, 3.5), 1))


def tuple_in_loop(n):
    acc = (0, 0.0)
    for i in range(n):
        acc = (acc[0] + i, acc[1] + 0.5 * i)
    return acc


def tuple_eq(a, b):
    return a == b, a != b


def contains(t, x):
    return x in t, x not in t


def test_tuple_ops():
    check(tuple_in_loop, 10)
    check(tuple_eq, (1, 2), (1, 2))
    check(tuple_eq, (1, 2), (1, 3))
    check(tuple_eq, (1, 2.5), (1, 2.5))
    check(contains, (1, 2, 3), 2)
    check(contains, (1, 2, 3), 5)
    check(contains, (1.5, 2.5), 2.5)


def shape_tuple(a):
    s = a.shape
    return s, len(s), s[0] * s[-1]


def test_shape_is_a_tuple():
    check(shape_tuple, np.zeros((3, 4, 5)))
    check(shape_tuple, np.zeros(7))


def pass_through(t):
    return t


def test_tuple_identity_roundtrip():
    for t in [(1,), (1, 2.0), (1, (2, (3.5, False))), (1 + 2j, np.uint8(7))]:
        check(pass_through, t)


# ---- loops over an empty tuple ------------------------------------------------------------------

def loop_over_empty(x):
    s = 0
    for v in ():
        s += v
        x = -1
    return s + x


def loop_over_empty_arg(t, x):
    n = 0
    for v in t:
        n += v
    else:
        n += x
    return n


def test_loop_over_empty_tuple_never_runs_its_body():
    check(loop_over_empty, 3)
    check(loop_over_empty, 2.5)
    check(loop_over_empty_arg, (), 4)
    check(loop_over_empty_arg, (1, 2), 4)


# ---- ordering: <, <=, >, >= lexicographically, as Python orders tuples ----

ORDERED = [(1, 2), (1, 2.5), (0, 9), (1,), (1, 2, 0), (2, 1.0), (1, 2), ((1, 2), 3)[0]]


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_tuples_are_ordered_lexicographically(op):
    f = eval(f"lambda a, b: a {op} b")   # noqa: S307 - one operator, written here
    g = pyjit.njit(f)
    for a in ORDERED:
        for b in ORDERED:
            assert g(a, b) == f(a, b), (a, op, b)


TEXT_ORDERED = [(1, "b"), (1, "a"), (0, "z"), (2, "ab"), (2, "abc"), (1, "b"), (1, "")]


@pytest.mark.parametrize("op", ["<", "<=", ">", ">=", "==", "!="])
def test_tuples_with_strings_are_ordered_and_compared(op):
    # word-count rankings sort (-count, word) keys
    f = eval(f"lambda a, b: a {op} b")   # noqa: S307 - one operator, written here
    g = pyjit.njit(f)
    for a in TEXT_ORDERED:
        for b in TEXT_ORDERED:
            assert g(a, b) == f(a, b), (a, op, b)

    def ranked(counts):
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    from pyjit.typed import Dict
    counts = Dict()
    for w, n in (("b", 2), ("a", 2), ("c", 5), ("d", 1)):
        counts[w] = n
    assert pyjit.njit(ranked)(counts) == ranked(dict(counts))


def test_nested_tuples_and_sorting_by_tuples():
    def nested(a, b):
        return (a, (b, 1)) < (a, (b, 2)), (a, (b, 2)) <= (a, (b, 1))

    def by_tuple_key(xs):
        return sorted(xs, key=lambda x: (x % 3, -x))

    def tuples_sorted(xs):
        pairs = []
        for x in xs:
            pairs.append((x % 3, x))
        out = sorted(pairs, reverse=True)
        pairs.sort()
        return pairs, out

    assert pyjit.njit(nested)(1, 2.0) == nested(1, 2.0)
    xs = [5, 3, 8, 1, 9, 2]
    assert pyjit.njit(by_tuple_key)(xs) == by_tuple_key(xs)
    assert pyjit.njit(tuples_sorted)(xs) == tuples_sorted(xs)
