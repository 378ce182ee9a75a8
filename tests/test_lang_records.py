"""Namedtuples (collections.namedtuple, typing.NamedTuple) and the tuple forms around them:
passing, attributes, indexing, unpacking, iteration, ==, returning (as the same class), building
in compiled code (positional, keywords, defaults), _replace, nesting in tuples, lists and other
namedtuples; starred unpacking (a, *rest = t); max/min/sum/sorted of tuples; reversed();
enumerate(zip(...)). Each function runs in CPython and compiled on copies of the same arguments:
results (with their classes) and exceptions must agree."""
import copy
import re
import sys
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pytest

import pyjit
from pyjit import errors
from util import assert_same, memory_in_use, run_subprocess

Point = namedtuple("Point", ["x", "y"])
Pair = namedtuple("Pair", "x y")          # same fields as Point: another type


class Particle(NamedTuple):
    pos: Point
    mass: float = 1.0
    charge: int = 0


class Box(NamedTuple):
    lo: np.ndarray
    hi: np.ndarray


def same_classes(expected, got, where):
    """Tuples and lists are of the same classes all the way down (assert_same compares items
    only): a namedtuple comes back as its class."""
    if not isinstance(expected, (tuple, list)):
        return
    assert type(got) is type(expected), f"{where}: {type(got)} is not {type(expected)}"
    if isinstance(expected, (tuple, list)):
        for e, g in zip(expected, got):
            same_classes(e, g, where)


def check(f, *args):
    outcomes = []
    for run in (f, pyjit.njit(f)):
        a = copy.deepcopy(args)
        try:
            outcomes.append((run(*a), a))
        except Exception as exc:  # noqa: BLE001
            outcomes.append((type(exc), a))
    (expected, pargs), (got, cargs) = outcomes
    if isinstance(expected, type):
        assert got is expected, f"{f.__name__}: CPython raised {expected}, compiled gave {got!r}"
        return
    assert_same(expected, got, where=f.__name__)
    same_classes(expected, got, f.__name__)
    for pa, ca in zip(pargs, cargs):
        assert_same(pa, ca, where=f"{f.__name__}: an argument after the call")


# ---- namedtuples passed in ---------------------------------------------------------------------

def attrs(p):
    return p.x * 2 + p.y


def index_and_slice(p):
    return p[0], p[-1], p[1:], p[::-1], len(p)


def unpack(p):
    a, b = p
    return b, a


def loop_over(p):
    s = 0.0
    for v in p:
        s += v
    return s


def equal(p, q):
    return p == q, p != q, p == (1.0, 2.0)


def give_back(p):
    return p


def nested(part):
    return part.pos.x + part.mass * part.charge, part.pos


def arrays_inside(b):
    return (b.hi - b.lo).sum(), b


@pytest.mark.parametrize("f, args", [
    (attrs, (Point(1.5, 2.0),)), (attrs, (Point(3, 4),)), (attrs, (Pair(1.5, 2.0),)),
    (index_and_slice, (Point(1.5, 2),)), (unpack, (Point(1, 2.5),)), (loop_over, (Point(1.0, 2.5),)),
    (equal, (Point(1.0, 2.0), Point(1.0, 2.0))), (equal, (Point(1.0, 2.0), Point(2.0, 2.0))),
    (give_back, (Point(1.0, 2),)), (give_back, (Pair(1.0, 2),)),
    (give_back, ((Point(1, 2), Pair(3.0, 4.0)),)),
    (nested, (Particle(Point(1.0, 2.0), 2.0, 3),)), (give_back, (Particle(Point(1.0, 2.0)),)),
    (arrays_inside, (Box(np.zeros(3), np.arange(3.0)),)),
])
def test_passed_in(f, args):
    check(f, *args)


class PlainSubclass(tuple):
    pass


def test_other_tuple_subclasses_are_plain_tuples():
    f = pyjit.njit(index_and_slice)
    assert f(PlainSubclass((1.5, 2))) == index_and_slice(PlainSubclass((1.5, 2)))
    assert type(pyjit.njit(give_back)(PlainSubclass((1, 2)))) is tuple


def test_class_is_part_of_the_type():
    f = pyjit.njit(give_back)
    assert type(f(Point(1.0, 2.0))) is Point
    assert type(f(Pair(1.0, 2.0))) is Pair
    assert len(f.signatures) == 2
    # "Point#2(...)" where another module made a class named Point first
    assert re.search(r"Point(#\d+)?\(x=float64, y=float64\)", str(f.signatures))


# ---- namedtuples built in compiled code --------------------------------------------------------

def build(a, b):
    return Point(a, b)


def build_keywords(a, b):
    return Point(y=b, x=a), Point(a, y=b)


def build_defaults(x):
    return Particle(Point(x, x)), Particle(Point(x, 0.0), charge=2), Particle(Point(x, 1.0), 3.0, 4)


def replace(p):
    return p._replace(x=10.0), p._replace(y=p.x, x=p.y)


def in_a_list(n):
    pts = [Point(0.0, 0.0)]
    for i in range(n):
        pts.append(Point(float(i), float(i * i)))
    total = 0.0
    for p in pts:
        total += p.y - p.x
    return total, pts, (pts[-1], n)


def norm2(p):
    return p.x * p.x + p.y * p.y


jit_norm2 = pyjit.njit(norm2)


def calls_another(p):
    return jit_norm2(p) + jit_norm2(Point(p.y, 1.0))


ORIGIN = Point(0.0, 0.5)


def global_instance(p):
    return Point(p.x - ORIGIN.x, p.y - ORIGIN.y), ORIGIN


def make_builder(cls):
    def builder(a):
        return cls(a, a + 1)
    return builder


@pytest.mark.parametrize("f, args", [
    (build, (1.0, 2.0)), (build, (1, 2.5)), (build_keywords, (1.0, 2)), (build_defaults, (1.5,)),
    (replace, (Point(1.0, 2.0),)), (in_a_list, (0,)), (in_a_list, (4,)),
    (make_builder(Point), (2,)), (make_builder(Pair), (2.5,)), (global_instance, (Point(1.0, 2.0),)),
])
def test_built(f, args):
    check(f, *args)


def test_calls_another_compiled_function():
    assert pyjit.njit(calls_another)(Point(3.0, 4.0)) == calls_another(Point(3.0, 4.0))


# ---- errors ------------------------------------------------------------------------------------

def too_many():
    return Point(1.0, 2.0, 3.0)


def too_few():
    return Point(1.0)


def unknown_keyword():
    return Point(1.0, z=2.0)


def no_such_field(p):
    return p.z


@pytest.mark.parametrize("f, args, words", [
    (too_many, (), "Point() takes 2 positional arguments"),
    (too_few, (), "missing required argument 'y'"),
    (unknown_keyword, (), "unexpected keyword argument 'z'"),
    (no_such_field, (Point(1.0, 2.0),), "has no attribute 'z'"),
])
def test_compile_errors_name_the_line(f, args, words):
    with pytest.raises(errors.TypingError) as info:
        pyjit.njit(f)(*args)
    msg = str(info.value)
    assert words in msg and f"in function '{f.__name__}'" in msg and "line" in msg


def test_unsupported_field_is_named():
    with pytest.raises(TypeError, match="namedtuple Point whose field 'y' is dict"):
        pyjit.njit(attrs)(Point(1.0, {}))


# ---- starred unpacking -------------------------------------------------------------------------

def star_rest(t):
    a, *rest = t
    return a, rest


def star_head(t):
    *head, last = t
    return head, last


def star_middle(t):
    a, *mid, z = t
    return a, mid, z


@pytest.mark.parametrize("f", [star_rest, star_head, star_middle])
@pytest.mark.parametrize("seq", [(1, 2, 3, 4), (1.5, 2.5), (1, 2.5, 3.0)[1:], [1, 2, 3, 4], [5, 6]])
def test_starred_unpacking(f, seq):
    check(f, seq)


def test_starred_unpacking_too_short():
    with pytest.raises(errors.TypingError, match="not enough values to unpack"):
        pyjit.njit(star_middle)((1,))


# ---- reductions over tuples ----------------------------------------------------------------------

def reductions(t):
    return max(t), min(t), sum(t), sum(t, 10)


def mixed_reductions(t):
    """max/min of numbers of several types give the promoted type (as Numba's do), where
    CPython gives the item itself: compared as floats."""
    return float(max(t)), float(min(t)), sum(t)


def max_of_three(a, b, c):
    return max(a, b, c), min(c, b, a)


def sorted_tuple(t):
    return sorted(t), sorted(t, reverse=True)


@pytest.mark.parametrize("f, args", [
    (reductions, ((3, 1, 2),)), (reductions, ((3.5, 1.5, 2.0),)), (mixed_reductions, ((3, 1.5, 2),)),
    (mixed_reductions, ((True, 2, 0.5),)),
    (reductions, ((7,),)), (reductions, (Point(2.0, 1.0),)),
    (max_of_three, (1, 5, 3)), (max_of_three, (1.5, 5.5, 3.5)),
    (sorted_tuple, ((3, 1, 2),)), (sorted_tuple, ((2.5, -1.0, 0.0),)),
])
def test_tuple_reductions(f, args):
    check(f, *args)


# ---- reversed, enumerate(zip) --------------------------------------------------------------------

def reversed_loop(seq):
    out = []
    for x in reversed(seq):
        out.append(x * 2)
    return out


def reversed_range(a, b, c):
    out = []
    for i in reversed(range(a, b, c)):
        out.append(i)
    return out


@pytest.mark.parametrize("seq", [[1, 2, 3], [1.5], (1, 2, 3), np.arange(4.0), np.arange(5)[::2]])
def test_reversed(seq):
    check(reversed_loop, seq)


@pytest.mark.parametrize("a, b, c", [(0, 5, 1), (1, 10, 3), (10, 0, -2), (3, 3, 1), (0, 1, 1),
                                     (5, -5, -3)])
def test_reversed_range(a, b, c):
    check(reversed_range, a, b, c)


def enumerate_zip(a, b):
    total = 0.0
    pairs = []
    for i, (x, y) in enumerate(zip(a, b)):
        total += i * x * y
        pairs.append((i, x))
    return total, pairs


def enumerate_zip_start(a, b, c):
    total = 0
    for i, (x, y, z) in enumerate(zip(a, b, c), 1):
        total += i * (x + y - z)
    return total


@pytest.mark.parametrize("a, b", [(np.arange(4.0), np.arange(4.0) * 2), ([1.5, 2.5, 3.5], (1.0, 2.0)),
                                  (np.arange(3.0), [0.5])])
def test_enumerate_zip(a, b):
    check(enumerate_zip, a, b)


def test_enumerate_zip_start():
    check(enumerate_zip_start, np.arange(5), [1, 2, 3, 4], (7, 8, 9, 10, 11))


def zip_star(cols):
    out = []
    for row in zip(*cols):
        out.append(row[0] * row[-1])
    return out


def zip_star_pairs(a, b):
    total = 0.0
    pairs = (a, b)
    for i, (x, y) in enumerate(zip(*pairs)):
        total += i * x - y
    return total


def spread_into_builtins(t):
    return max(*t), min(*t[1:]), Point(*t[:2])


@pytest.mark.parametrize("f, args", [
    (zip_star, (([1, 2, 3], [4, 5, 6], [7, 8, 9]),)), (zip_star, ((np.arange(3.0), np.ones(4)),)),
    (zip_star_pairs, (np.arange(4.0), [1.0, 2.0, 3.0])),
    (spread_into_builtins, ((1.5, 2.5, -1.0),)), (spread_into_builtins, ((3, 1, 2),)),
])
def test_calls_with_star_args(f, args):
    check(f, *args)


def spread_array(a):
    return max(*a)


def spread_after_others(t):
    return max(1, *t)


def comprehension_over_zip_star(cols):
    return [x + y for x, y in zip(*cols)]


@pytest.mark.parametrize("f, args, words", [
    (spread_array, (np.arange(3.0),), "f(*x) is supported with a tuple x"),
    pytest.param(comprehension_over_zip_star, (([1], [2]),), "write the loop",
                 marks=pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 inlines the "
                                          "comprehension, whose zip(*t) then compiles")),
])
def test_star_args_refused_clearly(f, args, words):
    with pytest.raises(errors.UnsupportedError) as info:
        pyjit.njit(f)(*args)
    assert words in str(info.value) and f"in function '{f.__name__}'" in str(info.value)


@pytest.mark.parametrize("t", [(1, 2), (0, -1), (5,)])
def test_spread_after_other_arguments(t):
    # f(a, *t): the arguments are the tuple (a, *t), made by concatenation
    assert pyjit.njit(spread_after_others)(t) == spread_after_others(t)


# ---- memory ------------------------------------------------------------------------------------

def records_with_containers(n, p):
    pts = []
    for i in range(n):
        pts.append(Point(float(i), p.y))
    rest_a, *rest = (n, n + 1, n + 2)
    del pts[0]
    pts[1:2] = [p, p]
    return Box(np.zeros(n), np.ones(n)), pts, rest, p._replace(x=float(rest_a))


def test_records_and_lists_made_and_returned_do_not_leak():
    f = pyjit.njit(records_with_containers)
    p = Point(1.0, 2.0)
    for _ in range(20000):
        f(4, p)
    before = memory_in_use()
    for _ in range(300_000):
        f(4, p)
    grown = memory_in_use() - before
    assert grown < 8 << 20, f"memory grew by {grown >> 20} MiB"
    assert sys.getrefcount(Point) < 1000   # the class is held once, not once per call


CACHED = """
import sys, warnings
warnings.simplefilter("error")
sys.path.insert(0, {dir!r})
from cached_records import mk, norm
print(mk(1.5), norm(mk(2.0)))
"""

CACHED_MODULE = """
from collections import namedtuple
from pyjit import njit
P = namedtuple("P", "a b")

@njit(cache=True)
def mk(x):
    return P(x, x + 1)

@njit(cache=True)
def norm(p):
    return p.a * p.a + p.b * p.b
"""


def test_cache_true_with_namedtuples(tmp_path):
    """Functions taking and returning namedtuples are cached, and the second process loads
    them with the same results."""
    (tmp_path / "cached_records.py").write_text(CACHED_MODULE)
    env = {"PYJIT_CACHE_DIR": str(tmp_path / "cache")}
    outs = [run_subprocess(CACHED.format(dir=str(tmp_path)), env=env) for _ in range(2)]
    for rc, out, err in outs:
        assert rc == 0, err
        assert out == "P(a=1.5, b=2.5) 13.0\n"
    assert len(list((tmp_path / "cache").rglob("*norm*"))) == 1
