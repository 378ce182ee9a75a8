"""The standard library part of Numba's "Supported Python features" page (reference/pysupported):
every function it lists of math, cmath, operator, functools, heapq, and enum members, bytes,
bytearray, memoryview and array.array, each run in CPython and compiled on copies of the same
arguments (util.check). The random module, whose seeding follows Numba's rather than CPython's,
is compared draw for draw in test_pyrandom.py."""
import array
import cmath
import enum
import functools
import heapq
import math
import operator

import pytest

import pyjit
from pyjit.errors import TypingError
from util import check

CASES = []


def case(*argsets):
    def deco(f):
        CASES.append(pytest.param(f, argsets or ((),), id=f.__name__))
        return f
    return deco


# ---- math -----------------------------------------------------------------------------------

@case((0.5,), (0.3,), (-0.25,))
def math_trigonometric(x):
    return (math.acos(x), math.acosh(x + 2), math.asin(x), math.asinh(x), math.atan(x),
            math.atan2(x, 2.0), math.atanh(x), math.cos(x), math.cosh(x), math.sin(x),
            math.sinh(x), math.tan(x), math.tanh(x), math.degrees(x), math.radians(x))


@case((2.5,), (-2.5,), (3,), (-0.0,))
def math_rounding_and_sign(x):
    return (math.ceil(x), math.floor(x), math.trunc(x), math.fabs(x), math.copysign(3.0, x),
            math.isfinite(x), math.isinf(x), math.isnan(x))


@case((0.5,), (2.0,), (7,))
def math_exponential_and_special(x):
    return (math.erf(x), math.erfc(x), math.exp(x), math.exp2(x), math.expm1(x), math.gamma(x),
            math.lgamma(x), math.log(x), math.log(x, 3), math.log2(x), math.log10(x),
            math.log1p(x), math.sqrt(x), math.pow(x, 2.5), math.hypot(x, 3.0), math.cbrt(x))


@case((0.5,), (-3.0,), (1e300,), (float("inf"),), (float("nan"),))
def math_float_parts(x):
    return math.frexp(x), math.ldexp(x, 3), math.nextafter(x, 0.0), math.isnan(x)


@case((12, 18), (0, 5), (-4, 6), (7, 0))
def math_integers(a, b):
    return math.gcd(a, b), math.lcm(a, b)


@case((1234, -2), (1250, -2), (-1350, -2), (15, -1), (25, -1), (7, 2), (4 * 10 ** 18, -19),
      (9 * 10 ** 18, -25), (2 ** 62, -18), (-5, 0))
def round_integer_to_digits(x, n):
    return round(x, n)


@case((2.0,))
def math_constants(x):
    return math.pi * x, math.e, math.tau, math.inf, math.isnan(math.nan)


@case((-1.0,), (0.0,), (4.0,))
def math_domain_errors(x):
    return math.sqrt(x) + math.log(x + 1.0)


# ---- cmath ----------------------------------------------------------------------------------

@case((1 + 2j,), (-0.5 + 0.25j,), (3 - 1j,))
def cmath_functions(z):
    return (cmath.acos(z), cmath.acosh(z), cmath.asin(z), cmath.asinh(z), cmath.atan(z),
            cmath.atanh(z), cmath.cos(z), cmath.cosh(z), cmath.exp(z), cmath.isfinite(z),
            cmath.isinf(z), cmath.isnan(z), cmath.log(z), cmath.log10(z), cmath.phase(z),
            cmath.polar(z), cmath.rect(2.0, 0.5), cmath.sin(z), cmath.sinh(z), cmath.sqrt(z),
            cmath.tan(z), cmath.tanh(z), cmath.log(z, 2))


# ---- operator and functools -----------------------------------------------------------------

@case((7, 3), (7.5, 2.0), (-7, 2))
def operator_arithmetic(a, b):
    return (operator.add(a, b), operator.floordiv(a, b), operator.mod(a, b),
            operator.mul(a, b), operator.neg(a), operator.pos(a), operator.pow(a, 2),
            operator.sub(a, b), operator.truediv(a, b), operator.eq(a, b), operator.ge(a, b),
            operator.gt(a, b), operator.le(a, b), operator.lt(a, b), operator.ne(a, b),
            operator.not_(a))


@case((12, 3), (-5, 1))
def operator_bits(a, b):
    return (operator.and_(a, b), operator.or_(a, b), operator.xor(a, b), operator.invert(a),
            operator.lshift(a, b), operator.rshift(a, b))


@case((12, 3))
def operator_in_place(a, b):
    x = a
    x = operator.iadd(x, b)
    x = operator.isub(x, 1)
    x = operator.imul(x, 2)
    x = operator.ifloordiv(x, 3)
    x = operator.imod(x, 100)
    x = operator.ipow(x, 2)
    x = operator.iand(x, 255)
    x = operator.ior(x, 1)
    x = operator.ixor(x, 3)
    x = operator.ilshift(x, 2)
    x = operator.irshift(x, 1)
    return x, operator.itruediv(float(a), b)


@case((5,), (1,))
def functools_reduce(n):
    return (functools.reduce(operator.add, range(n), 0),
            functools.reduce(lambda a, b: a * b, range(1, n), 1),
            functools.reduce(operator.add, [1, 2, n]))


# ---- heapq ----------------------------------------------------------------------------------

@case(([5, 3, 8, 1],), ([2.5, -1.0],))
def heapq_functions(xs):
    h = list(xs)
    heapq.heapify(h)
    heapq.heappush(h, xs[0] - xs[0])
    a = heapq.heappop(h)
    b = heapq.heappushpop(h, xs[0] + 1)
    c = heapq.heapreplace(h, xs[0] * 3)
    return a, b, c, h, heapq.nlargest(2, xs), heapq.nsmallest(2, xs), heapq.nlargest(5, xs)


# ---- enum -----------------------------------------------------------------------------------

class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Shape(enum.IntEnum):
    CIRCLE = 1
    SQUARE = 2


@case((1,), (3,))
def enum_members(k):
    c = Color.RED if k == 1 else Color.BLUE
    return c == Color.RED, c is Color.BLUE, c != Color.GREEN, c.value


@case((Color.GREEN,), (Color.RED,))
def enum_argument_and_result(c):
    if c == Color.GREEN:
        return c, 0
    return Color.BLUE, c.value


@case((Shape.SQUARE,), (Shape.CIRCLE,))
def int_enum_members(s):
    return s == Shape.SQUARE, s + 1, Shape.CIRCLE < Shape.SQUARE, s == 2, Shape.CIRCLE * 3


# ---- bytes, bytearray, memoryview, array.array ----------------------------------------------

@case((b"hello",), (bytearray(b"ab\x00c"),), (b"",))
def bytes_read(b):
    s = 0
    for c in b:
        s += c
    return len(b), s, b[0] if len(b) else -1, b[-1] if len(b) else -1


@case((bytearray(b"hello"),))
def bytearray_write(b):
    b[0] = 72
    b[-1] += 1
    return b[0], len(b)


@case((array.array("d", [1.5, 2.5]),), (array.array("i", [3, 4, 5]),))
def array_array_read(a):
    s = 0
    for v in a:
        s += v
    return len(a), a[0], s


@case((array.array("d", [1.5, 2.5]),))
def array_array_write(a):
    a[1] = a[0] * 4
    return a[1]


def memoryview_read(m):
    t = m[1:4]
    s = 0
    for v in t:
        s += v
    return len(m), m[1], m.itemsize, m.nbytes, m.ndim, m.shape, m.strides, s, len(t)


@pytest.mark.parametrize("f, argsets", CASES)
def test_against_cpython(f, argsets):
    compiled = pyjit.njit(f)
    for args in argsets:
        check(f, *args, jit=compiled)


@pytest.mark.parametrize("make", [lambda: memoryview(b"hello"),
                                  lambda: memoryview(bytearray(b"hi there")),
                                  lambda: memoryview(array.array("d", [1.0, 2.0, 3.5, 4.0]))])
def test_memoryview(make):
    # a memoryview is not copied by check's copy of the arguments: each run gets its own
    assert pyjit.njit(memoryview_read)(make()) == memoryview_read(make())


def test_round_integer_past_int64_is_an_overflow_error():
    # CPython's round(9 * 10**18, -19) is 10**19, which int64 does not hold
    with pytest.raises(OverflowError):
        pyjit.njit(round_integer_to_digits)(9 * 10 ** 18, -19)


def enum_name(c):
    return c.name


def enum_from_value(v):
    return Color(v)


def math_lcm_of_three(a):
    return math.lcm(a, 2, 3)


def math_factorial(a):
    return math.factorial(a)


@pytest.mark.parametrize("f, arg, needle", [
    (enum_name, Color.RED, "c.name"),
    (enum_from_value, 2, "Color(v)"),
    (math_lcm_of_three, 2, "math.lcm(a, 2, 3)"),
    (math_factorial, 5, "math.factorial(a)"),
], ids=lambda v: getattr(v, "__name__", None))
def test_what_numba_lacks_is_a_typing_error_naming_the_line(f, arg, needle):
    with pytest.raises(TypingError) as info:
        pyjit.njit(f)(arg)
    assert needle in str(info.value) and f"in function '{f.__name__}'" in str(info.value)
