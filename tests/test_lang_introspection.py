"""Asking about objects in compiled code: hasattr() and getattr() with constant names (decided
when compiling, as Numba does), `is` between objects and values that are not None, dtypes
returned, and zip()/enumerate() held in variables and passed to what consumes them; and the
forms of building and unpacking Numba code writes: starred tuple displays, unpacking lists and
arrays (their length checked), list.extend() of any iterable, enumerate() of sets and dicts,
Numba's unsafe tuple helpers. Each function runs in CPython and compiled (util.check)."""
import math
from collections import namedtuple

import numpy as np
import pytest

import pyjit
from pyjit import errors
from pyjit.typed import Dict, List
from util import check

Point = namedtuple("Point", "x y")


def attributes_of_array(a):
    return (hasattr(a, "shape"), hasattr(a, "missing"), getattr(a, "ndim"),
            getattr(a, "missing", 7), getattr(a, "size", -1), getattr(a, "sum")())


def attributes_of_record(p):
    return hasattr(p, "x"), hasattr(p, "z"), getattr(p, "y"), getattr(p, "z", -1.0)


def attributes_of_scalar(x):
    return hasattr(x, "real"), hasattr(x, "shape"), getattr(x, "imag")


def dispatch_on_attribute(x):
    if hasattr(x, "shape"):   # the other branch is not typed for arrays
        return x.sum() * 1.0
    return x * 2.0


def attributes_of_modules(a):
    """Modules known when compiling: NumPy 2 code taking np.trapezoid where NumPy has it, a
    default for a name a module lacks."""
    area = getattr(np, "trapezoid", np.sum)(a) + getattr(np, "no_such_name", np.sum)(a)
    return (hasattr(np, "trapezoid"), hasattr(np, "no_such_name"), hasattr(np.linalg, "norm"),
            hasattr(math, "tau"), getattr(math, "tau"), getattr(math, "no_such_name", 2.5), area)


@pytest.mark.parametrize("f,args", [
    (attributes_of_modules, (np.arange(5.0),)),
    (attributes_of_array, (np.arange(5.0),)),
    (attributes_of_record, (Point(1.5, 2.5),)),
    (attributes_of_scalar, (1.25,)),
    (dispatch_on_attribute, (np.arange(4.0),)),
    (dispatch_on_attribute, (3.0,)),
])
def test_hasattr_getattr(f, args):
    check(f, *args)


def getattr_of_a_variable_name(x, name):
    return getattr(x, name)


def test_getattr_needs_a_constant_name():
    with pytest.raises(errors.TypingError, match="constant string"):
        pyjit.njit(getattr_of_a_variable_name)(1.5, "real")


def arrays_is(a, b):
    c = a
    return a is b, a is c, a is not b, a is not c, a is 3, a is not "a"


def lists_is(x):
    l = [1, 2]
    m = l
    n = [1, 2]
    d = {1: 2.0}
    e = d
    return l is m, l is n, d is e, l is not n, x is 1, x is 2.0


def out_or_fresh(a, out):
    if out is a:   # in place
        a *= 2.0
        return a
    out[:] = a * 2.0
    return out


@pytest.mark.parametrize("f,args", [
    (arrays_is, (np.arange(3.0), np.arange(3.0))),
    (lists_is, (1,)),
    (out_or_fresh, (np.arange(3.0), np.zeros(3))),
])
def test_is_between_objects(f, args):
    check(f, *args)


def test_is_same_array():
    a = np.arange(4.0)
    f = pyjit.njit(arrays_is)
    assert f(a, a) == arrays_is(a, a)
    assert pyjit.njit(out_or_fresh)(a, a) is not None and a[1] == 2.0


def dtype_of(a):
    return a.dtype


def zeros_like_by_dtype(a):
    return np.zeros(3, dtype_of_jit(a))


dtype_of_jit = pyjit.njit(dtype_of)


@pytest.mark.parametrize("a", [np.arange(3), np.arange(3.0, dtype=np.float32),
                               np.zeros(2, np.complex128)])
def test_dtype_returned(a):
    assert dtype_of_jit(a) == a.dtype
    check(zeros_like_by_dtype, a)


def zipped_values(a, b):
    pairs = zip(a, b)
    keyed = dict(zip(a, b))
    return sorted(pairs, reverse=True), keyed[a[0]], list(enumerate(b, 1))


def consumers(a, b):
    d = {0: 0.0}
    d.update(zip(a, b))
    lst = [(0, 0.0)]
    lst.extend(zip(a, b))
    best = max(enumerate(b), key=lambda t: t[1])
    return sorted(d.items()), lst, best, sum(x * y for x, y in zip(a, b)), set(zip(a, a))


@pyjit.njit
def weighted(pairs):
    s = 0.0
    for i, x in pairs:
        s += i * x
    return s


def passed_to_compiled(a, b):
    z = zip(a, b)
    return weighted(z), [x + y for x, y in zip(a, b)]


@pytest.mark.parametrize("f", [zipped_values, consumers])
def test_zip_enumerate_as_values(f):
    check(f, np.array([3, 1, 2]), np.array([0.5, 1.5, 2.5]))


def test_zip_passed_to_compiled_function():
    a, b = np.array([3, 1, 2]), np.array([0.5, 1.5, 2.5])
    got = pyjit.njit(passed_to_compiled)(a, b)
    assert got == (weighted.py_func(zip(a, b)), [x + y for x, y in zip(a, b)])


def walked_twice(a, b):
    z = zip(a, b)
    first = list(z)
    return first, list(z)


def test_zip_walked_twice_is_refused():
    with pytest.raises(errors.UnsupportedError, match="walked more than once"):
        pyjit.njit(walked_twice)(np.arange(3), np.arange(3.0))


TUPLE_LEN = 3


def test_to_fixed_tuple():
    from pyjit.np.unsafe.ndarray import to_fixed_tuple

    def f(a, shape_arr, x):
        return (to_fixed_tuple(a, 3), to_fixed_tuple(a, TUPLE_LEN),
                np.zeros(to_fixed_tuple(shape_arr, 2)).shape,
                x.reshape(to_fixed_tuple(shape_arr, x.ndim)))
    check(f, np.arange(5.0), np.array([2, 3]), np.zeros((6, 1)))


def test_to_fixed_tuple_needs_a_known_length():
    from pyjit.np.unsafe.ndarray import to_fixed_tuple

    def f(a, n):
        return to_fixed_tuple(a, n)
    with pytest.raises(errors.TypingError, match="known when compiling"):
        pyjit.njit(f)(np.arange(3.0), 2)


# ---- unpacking and building: starred tuple displays, unpacking lists and arrays -------------

def starred_displays(a, t):
    shape = np.empty((*a.shape, 2)).shape
    return shape, (1, *t, 2, *a.shape), (*t,), len((*t, *t))


def unpack_list_and_array(lst, a):
    x, y = lst
    rows = [a, a * 2.0]
    first, second = rows
    p, q, r = a
    return x + y, first.sum() + second.sum(), p + q + r


def extend_by_other_iterables(a):
    items = [0]
    items.extend((1, 2))
    items.extend(a)
    items.extend(range(3))
    items.extend({7: 1.0})
    pairs = []
    pairs.extend(((1, 2), (3, 4)))
    chars = []
    chars.extend("ab")
    return items, pairs, chars


def enumerate_sets_and_dicts(a):
    seen = set()
    for x in a:
        seen.add(x)
    out = np.zeros(len(seen), np.int64)
    for i, v in enumerate(seen):
        out[i] = v
    d = {5: 1.5, 2: 0.5}
    total = 0.0
    for i, (k, v) in enumerate(zip(d, a)):
        total += i * k * v
    return sorted(out), total, sorted(a, reverse=True), sorted(range(3), key=lambda v: -v)


@pytest.mark.parametrize("f,args", [
    (starred_displays, (np.zeros((3, 4)), (7, 8))),
    (unpack_list_and_array, ([1, 2], np.arange(3.0))),
    (unpack_list_and_array, ([1], np.arange(3.0))),
    (unpack_list_and_array, ([1, 2, 3], np.arange(3.0))),
    (unpack_list_and_array, ([1, 2], np.arange(4.0))),
    (extend_by_other_iterables, (np.array([5, 6]),)),
    (enumerate_sets_and_dicts, (np.array([3, 1, 3, 7]),)),
])
def test_unpacking_and_building(f, args):
    check(f, *args)


def starred_list_display(t):
    return [*t, 1]


def test_starred_list_display_is_refused():
    with pytest.raises(errors.UnsupportedError, match="tuple displays of tuples"):
        pyjit.njit(starred_list_display)((1, 2))


def test_tuple_setitem():
    from pyjit.cpython.unsafe.tuple import tuple_setitem
    from pyjit.np.unsafe.ndarray import to_fixed_tuple

    def f(t, i, a):
        return (tuple_setitem(t, i, 9), tuple_setitem(tuple_setitem(t, 0, -1), 2, 5),
                to_fixed_tuple(a, 2))
    check(f, (1, 2, 3), 1, np.arange(4))
    check(f, (1.5, 2.5, 3.5), 2, np.arange(4.0))


def typed_containers_made_empty():
    d = Dict()
    d[1] = 2.5
    lst = List()
    lst.append(1)
    plain = [1]
    return (len(d), d[1], isinstance(lst, list), isinstance(plain, list), isinstance(lst, List),
            isinstance(plain, List), isinstance(d, Dict))


def test_typed_dict_made_empty_and_isinstance_of_typed_containers():
    f = pyjit.njit(typed_containers_made_empty)
    assert f() == (1, 2.5, False, True, True, False, True)
    assert f() == typed_containers_made_empty()


# ---- arrays of NumPy's unicode dtype ('U<n>'): elements read as str, str stored -------------

def count_and_mark(grid):
    n = 0
    for y in range(grid.shape[0]):
        for x in range(grid.shape[1]):
            if grid[y, x] == "#":
                n += 1
                grid[y, x] = "O"
    for row in grid:
        for ch in row:
            if ch == ".":
                n += 100
    for (y, x), ch in np.ndenumerate(grid):
        if ch == "O":
            n += 10000
    return n, grid[0, 0], grid


def apply_ops(ops, values):
    s = 0
    for op, v in zip(ops, values):
        s = s * v if op == "*" else s + v
    return s


def words_cut_and_padded(words):
    total = 0
    for w in words:
        total += len(w)
    words[0] = "toolongword"
    words[1] = ""
    return total, words, words[1] == "", len(words[2])


def whole_array_forms(grid):
    rows = grid.copy()
    rows[0] = rows[1]
    rows[1, :2] = grid[0, 1:]
    return (grid == "#", "." != grid, np.where(grid == "#", 1, 0), np.rot90(grid), rows,
            grid.T.copy(), set(grid.ravel()) == {".", "#"})


@pytest.mark.parametrize("f,args", [
    (count_and_mark, (np.array([list(".#.."), list("##..")]),)),
    (apply_ops, (np.array(["+", "*", "+"]), np.array([3, 4, 5]))),
    (words_cut_and_padded, (np.array(["ab", "cde", "é"]),)),
    (whole_array_forms, (np.array([list(".#."), list("##.")]),)),
])
def test_unicode_arrays(f, args):
    check(f, *args)


def unicode_to_int(a):
    return a.astype(np.int64)


def unicode_less(a):
    return a < "#"


@pytest.mark.parametrize("f", [unicode_to_int, unicode_less])
def test_unicode_array_operations_refused_clearly(f):
    with pytest.raises(errors.TypingError, match="unicode|compare"):
        pyjit.njit(f)(np.array(["1", "2"]))
