"""Sets in compiled code: literals, set() typed by later use, set(iterable), comprehensions, add,
discard, remove, pop, clear, copy, in, len, truth, iteration, update and the algebra (methods
and operators, in place too), comparisons; items of ints, floats, bools and tuples; Python sets
passed in (copied and reflected back) and returned. Each function runs in CPython and compiled on
copies of the same arguments: results (sets compared as sets, since CPython's iteration order is
its own) and exceptions must agree."""
import copy

import numpy as np
import pytest

import pyjit
from pyjit import errors
from util import assert_same, memory_in_use


def plain(x):
    """A value with every set sorted into a list (NaN-free items compare as CPython's)."""
    if isinstance(x, (set, frozenset)):
        return sorted((plain(v) for v in x), key=repr)
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    return x


def check(f, *args):
    """f in CPython and compiled: the same result and set arguments after the call, or the same
    exception class and text."""
    pargs, cargs = copy.deepcopy(args), copy.deepcopy(args)
    try:
        expected, exc = f(*pargs), None
    except Exception as e:  # noqa: BLE001 - the exception is the behaviour compared
        expected, exc = None, e
    if exc is not None:
        with pytest.raises(type(exc)) as info:
            pyjit.njit(f)(*cargs)
        assert str(info.value) == str(exc), f"{f.__name__}: {info.value!r} != {exc!r}"
        return
    got = pyjit.njit(f)(*cargs)
    assert_same(plain(expected), plain(got), where=f.__name__)
    for pa, ca in zip(pargs, cargs):
        if isinstance(pa, set):
            assert pa == ca, f"{f.__name__}: a set argument after the call: {ca!r} != {pa!r}"


# ---- building and reading -----------------------------------------------------------------

def distinct(xs):
    s = set()
    for x in xs:
        s.add(x)
    return s, len(s)


def literal(x):
    s = {1, 2, 3}
    t = {x, 2.5, x}
    return s, t, 2 in s, 4 in s, 4 not in s, 2.5 in t


def comprehension(n):
    return {i % 4 for i in range(n)}, {(i % 2, i % 3) for i in range(n)}


def from_iterables(n):
    a = set([1, 2, 2, 3])
    b = set(np.arange(n) % 3)
    c = set(range(n))
    d = set((1.5, 2.5, 1.5))
    return a, b, c, d, set(a)


def mutate(n):
    s = set(range(n))
    s.discard(0)
    s.discard(100)
    s.remove(1)
    x = s.pop()            # which item is CPython's choice: only what does not depend on it
    c = s.copy()
    c.add(-1)
    total = 0
    for v in s:
        total += v
    n_left = len(s)
    s.clear()
    return x in c, c | {x}, total + x, n_left, len(s), bool(s), bool(c)


def algebra(n):
    a = set(range(n))
    b = set(range(n // 2, n + 3))
    return (a | b, a & b, a - b, a ^ b, a.union(b), a.intersection(b), a.difference(b),
            a.symmetric_difference(b), a.issubset(b), (a & b).issubset(a), a.issuperset(a & b),
            a.isdisjoint(b), a.isdisjoint({-1}), a == a.copy(), a != b, a <= a | b, a >= b,
            a < a | b, a > a, a.union([100, 101]))


def in_place(n):
    a = set(range(n))
    b = {1, 2, 100}
    c = a.copy()
    c |= b
    d = a.copy()
    d &= b
    e = a.copy()
    e -= b
    f = a.copy()
    f ^= b
    g = a.copy()
    g.update([7, 8, 9])
    g.difference_update(b)
    h = a.copy()
    h.intersection_update(b)
    k = a.copy()
    k.symmetric_difference_update(b)
    return c, d, e, f, g, h, k


def sorted_and_listed(n):
    s = set()
    for i in range(n):
        s.add((i * 7) % n)
    return sorted(s), sorted(list(s)), np.array(sorted(list(s))).sum()


def float_items(x):
    s = {0.0, 1.0, 2.5}
    s.add(-0.0)
    s.add(x - x)
    return len(s), -0.0 in s, 1 in s, (x - x) in s


@pytest.mark.parametrize("f, args", [
    (distinct, ([3, 1, 3, 2, 1],)),
    (distinct, ([0.5, -0.0, 0.0, 1.0, 0.5],)),
    (distinct, ([True, False, True],)),
    (distinct, ([(1, 2), (2, 1), (1, 2)],)),
    (literal, (7.0,)),
    (comprehension, (10,)),
    (from_iterables, (6,)),
    (mutate, (8,)),
    (algebra, (8,)),
    (in_place, (6,)),
    (sorted_and_listed, (13,)),
    (float_items, (float("inf"),)),
])
def test_sets_agree_with_cpython(f, args):
    check(f, *args)


def many(n):
    s = set()
    for i in range(n):
        s.add(i * 7919 % 1000003)
    for i in range(0, n, 2):
        s.discard(i * 7919 % 1000003)
    return len(s), 7919 in s, 0 in s


def test_growth_past_many_resizes():
    check(many, 100_000)


# ---- sets passed in and returned ------------------------------------------------------------

def add_to(s, x):
    s.add(x)
    s.discard(1)
    return len(s)


def add_pair(s, x):
    s.add(x)
    s.discard((1, 2))
    return len(s)


def give_back(s):
    s.add(99)
    return s


def test_python_sets_are_copied_in_and_reflected_back():
    check(add_to, {1, 2, 3}, 10)
    check(add_pair, {(1, 2), (3, 4)}, (5, 6))
    s = {1, 2}
    out = pyjit.njit(give_back)(s)
    assert out is s and s == {1, 2, 99}


def test_frozensets_are_passed_but_not_changed():
    assert pyjit.njit(lambda s: len(s))(frozenset({1, 2})) == 2


# ---- errors ------------------------------------------------------------------------------------

def remove_missing(x):
    s = {1, 2}
    s.remove(x)
    return len(s)


def pop_empty(n):
    s = {1}
    s.pop()
    return s.pop()


def changed_while_iterating(n):
    s = set(range(n))
    for x in s:
        s.add(x + n)
    return len(s)


@pytest.mark.parametrize("f, arg", [(remove_missing, 5), (pop_empty, 0), (changed_while_iterating, 3)])
def test_errors_match_cpython_class_and_text(f, arg):
    check(f, arg)


def never_typed():
    s = set()
    return len(s)


def test_refusals():
    with pytest.raises(errors.TypingError, match=r"(?s)set's items is unknown.*line \d+"):
        pyjit.njit(never_typed)()
    with pytest.raises(TypeError, match="empty set"):
        pyjit.njit(lambda s: len(s))(set())


# ---- memory -----------------------------------------------------------------------------------

def build_sets(n):
    s = set()
    for i in range(n):
        s.add(i % 7)
    t = s | {100}
    return t


def test_building_sets_keeps_memory_flat():
    f, g = pyjit.njit(build_sets), pyjit.njit(add_to)
    py = {1, 2, 3}
    for _ in range(2000):
        f(20), g(py, 5)
    before = memory_in_use()
    for _ in range(100_000):
        f(20), g(py, 5)
    grown = memory_in_use() - before
    assert grown < 8 << 20, f"memory grew {grown / (1 << 20):.1f} MB over 10^5 calls building sets"


# ---- pyjit.typed.Set (Numba's numba.typed.Set) ----

def test_typed_set_passed_in_is_written_back():
    from pyjit.typed import Set

    def discard(s, elem):
        s.discard(elem)
        return len(s)

    s = Set.empty(pyjit.types.unicode_type)
    for word in ("One", "Two", "Three"):
        s.add(word)
    py = {"One", "Two", "Three"}
    assert pyjit.njit(discard)(s, "Three") == discard(py, "Three")
    assert s == py and isinstance(s, Set)


def test_empty_typed_set_has_its_item_type():
    from pyjit.typed import Set

    def fill(s, n):
        for i in range(n):
            s.add(i * i)
        return len(s)

    s, py = Set.empty(pyjit.types.int64), set()
    assert pyjit.njit(fill)(s, 6) == fill(py, 6) and s == py
    with pytest.raises(TypeError, match="an empty set"):
        pyjit.njit(fill)(Set(), 3)     # no item type: as an empty plain set


def test_typed_set_made_in_compiled_code():
    from pyjit.typed import Set

    def make(words):
        s = Set.empty(pyjit.types.unicode_type)
        for w in words:
            s.add(w)
        t = Set()
        t.add(2.5)
        return s, t, Set([3, 1, 3]), Set.empty(pyjit.types.float64)

    words = ["a", "b", "a"]
    assert pyjit.njit(make)(words) == make(words)


def test_typed_set_empty_refuses_a_non_item_type():
    from pyjit.typed import Set

    def bad():
        return Set.empty(pyjit.types.float64[:])

    with pytest.raises(errors.CompileError, match=r"Set.empty\(\) in compiled code takes"):
        pyjit.njit(bad)()
