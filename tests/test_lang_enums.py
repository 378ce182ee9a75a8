"""enum.Enum and enum.IntEnum members in compiled code, as Numba takes them: passed in, named as
globals (Color.RED), compared (==, !=, is, is not), .value read, kept in lists, tuples and dict
keys, and returned (an Enum member comes back as the member itself). An IntEnum member is an int
in compiled code. Each function runs in CPython and compiled on the same arguments."""
import enum

import pytest

import pyjit
from util import check


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


class Weight(enum.Enum):
    LIGHT = 0.5
    HEAVY = 4.0


class Shape(enum.IntEnum):
    CIRCLE = 1
    SQUARE = 2


def compared(c):
    return c == Color.RED, c != Color.GREEN, c.value, c, Color.BLUE


def identity_tests(c):
    if c is Color.BLUE:
        return 1
    if c is not Color.RED:
        return 2
    return 3


def across_classes(c, m):
    return c is m, c is not m


def by_string_value(m, x):
    return x * 2 if m == Mode.FAST else x, m.value


def weighted(w, x):
    return w.value * x, w


def int_enum(s, n):
    return s + n, s * 2, s == 2, s == Shape.SQUARE, int(s), Shape.CIRCLE + 1, s < Shape.SQUARE


def in_containers(n):
    cols = [Color.RED, Color.GREEN]
    table = {Color.RED: 1.0, Color.BLUE: 2.0}
    pair = (Color.GREEN, 7)
    return cols[n], table[Color.BLUE], Color.RED in table, pair, cols


def members_as_globals():
    return Color.RED.value + Color.BLUE.value, Mode.SLOW.value


@pytest.mark.parametrize("c", list(Color))
def test_enum_members(c):
    check(compared, c)
    check(identity_tests, c)
    check(across_classes, c, Mode.FAST)


@pytest.mark.parametrize("m", list(Mode))
def test_string_valued_enum(m):
    check(by_string_value, m, 3.0)


def test_float_valued_enum():
    check(weighted, Weight.HEAVY, 2.0)


@pytest.mark.parametrize("s", list(Shape))
def test_int_enum_is_an_int(s):
    check(int_enum, s, 3)


def test_members_in_lists_tuples_and_dict_keys():
    check(in_containers, 1)
    check(members_as_globals)


def test_a_member_returned_is_the_member():
    got = pyjit.njit(lambda c: c)(Color.GREEN)
    assert got is Color.GREEN
