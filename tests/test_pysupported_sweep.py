"""A sweep of Numba's "Supported Python features" page (reference/pysupported), section by section,
as a user new to pyjit would try it: one small function per construct, built-in and method the
page lists, each run in CPython and compiled on copies of the same arguments (util.check).
Helpers a function calls (recursion, defaults, *args, keyword-only parameters, functions passed
as arguments) are compiled too, in the compiled run only: `twin` compiles a copy of the function
whose globals name compiled copies of the helpers, as Numba users decorate each of them.

What Numba does not support either is checked to be a compile error naming the line. The
standard library modules of the page (math, cmath, operator, functools, random, heapq, enum,
bytes, memoryview) are in test_pysupported_stdlib.py."""
import types as pytypes
from collections import namedtuple

import numpy as np
import pytest

import pyjit
from pyjit import literal_unroll, objmode
from pyjit.errors import CompileError, TypingError, UnsupportedError
from util import check, wrap64

HELPERS = set()


def helper(f):
    """Marks f as a function the tested functions call: compiled in their compiled twin."""
    HELPERS.add(f.__name__)
    return f


def twin(f):
    """f compiled, its helpers (module globals marked @helper) compiled copies in its globals."""
    g = dict(f.__globals__)
    for name in HELPERS:
        h = f.__globals__[name]
        copy = pytypes.FunctionType(h.__code__, g, h.__name__, h.__defaults__, h.__closure__)
        copy.__kwdefaults__ = h.__kwdefaults__
        g[name] = pyjit.njit(copy)
    return pyjit.njit(pytypes.FunctionType(f.__code__, g, f.__name__, f.__defaults__,
                                           f.__closure__))


CASES = []


def case(*argsets):
    """Registers f with the argument tuples it is run on (one call with none if not given)."""
    def deco(f):
        CASES.append(pytest.param(f, argsets or ((),), id=f.__name__))
        return f
    return deco


# ---- constructs -----------------------------------------------------------------------------

@case((5,), (-3,), (0,))
def if_elif_else(x):
    if x > 3:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


@case((10,), (2,))
def loops_break_continue_else(n):
    s = 0
    i = 0
    while True:
        i += 1
        if i % 2 == 0:
            continue
        if i > n:
            break
        s += i
    for j in range(n):
        if j == 7:
            break
    else:
        s += 1000
    return s, j


@case((3,), (-1,))
def try_except_else_finally(x):
    out = []
    try:
        if x < 0:
            raise ValueError("neg")
        out.append(1)
    except Exception:
        out.append(2)
    else:
        out.append(3)
    finally:
        out.append(4)
    return out


@case((3,), (-1,))
def bare_except(x):
    try:
        if x < 0:
            raise KeyError
        r = x
    except:  # noqa: E722
        r = -100
    return r


@case((3,), (0,))
def try_finally_in_loop(x):
    acc = [0]
    for i in range(x + 2):
        try:
            if i == 2:
                continue
            acc.append(i)
        finally:
            acc.append(-1)
    return acc


@case((3,), (0,))
def except_zero_division(x):
    try:
        return 10 // x
    except ZeroDivisionError:
        return -1


@case((3,), (-1,), (0,))
def except_tuple_of_classes(x):
    try:
        if x < 0:
            raise ValueError("neg")
        if x == 0:
            raise KeyError("zero")
        return 1
    except (ValueError, KeyError):
        return 2


@case((3,), (-1,))
def nested_try(x):
    r = 0
    try:
        try:
            if x < 0:
                raise ValueError("neg")
            r = 1
        finally:
            r += 10
    except Exception:
        r += 100
    return r


@case((5,), (0,))
def except_index_and_key_errors(n):
    a = [1, 2]
    d = {1: 2}
    try:
        x = a[n]
    except IndexError:
        x = -1
    try:
        y = d[n]
    except KeyError:
        y = -1
    return x, y


@case((3,), (-2,))
def raise_class_with_arguments(x):
    if x < 0:
        raise ValueError("negative value", x)
    return x


@case((-2,), (1,))
def raise_class_alone(x):
    if x < 0:
        raise IndexError
    return x


@case((-2,), (1,))
def raise_with_fstring(x):
    if x < 0:
        raise ValueError(f"bad x {x}")
    return x


@case((3,), (-1,))
def reraise_in_handler(x):
    try:
        if x < 0:
            raise ValueError("neg")
        return 1
    except ValueError:
        raise


class AppError(Exception):
    pass


@helper
def risky(x):
    if x < 0:
        raise AppError("negative")
    return x * 2


@case((3,), (-1,))
def exception_from_callee_caught(x):
    try:
        return risky(x)
    except Exception:
        return -1


@case((3,), (-1,))
def exception_from_callee_uncaught(x):
    return risky(x)


# defined through exec: pytest rewrites the asserts of a test module into calls of its own
exec(compile("""
def assertions(x):
    assert x > 0, "x must be positive"
    assert x < 100
    return x
""", __file__, "exec"))
case((3,), (-2,), (200,))(assertions)  # noqa: F821


@case((5,))
def generator_inner(n):
    def squares(n):
        for i in range(n):
            yield i * i
    s = 0
    for v in squares(n):
        s += v
    return s


@helper
def countdown(n):
    while n > 0:
        yield n
        n -= 1


@helper
def stops_early(n):
    for i in range(n):
        if i == 3:
            return
        yield i


@case((5,), (0,))
def generators_compiled(n):
    out = []
    for v in countdown(n):
        out.append(v)
    return out, list(stops_early(10)), sum(i * i for i in range(n))


@case((5,))
def with_objmode(n):
    with objmode(y="float64"):
        y = float(np.sum(np.arange(n)))
    return y + 1


@case((5,))
def literal_unroll_mixed_tuple(n):
    t = (n, 2.5, "a", True)
    s = 0.0
    c = ""
    for v in literal_unroll(t):
        if isinstance(v, str):
            c += v
        else:
            s += v
    return s, c


# ---- functions ------------------------------------------------------------------------------

@helper
def with_defaults(a, b=2, c=3.5):
    return a + b * c


@case((1,))
def call_defaults_and_keywords(a):
    return with_defaults(a), with_defaults(a, 5), with_defaults(a, c=1.0), \
        with_defaults(b=1, a=a)


@helper
def keyword_only(a, *, scale=2, shift=0):
    return a * scale + shift


@helper
def keyword_only_required(a, *, b):
    return a + b


@helper
def varargs_and_keyword_only(first, *rest, sep=10):
    s = first
    for r in rest:
        s += r * sep
    return s


@case((3,), (2.5,))
def call_keyword_only(a):
    return (keyword_only(a), keyword_only(a, scale=3), keyword_only(a, shift=1, scale=5),
            keyword_only_required(a, b=2), varargs_and_keyword_only(a),
            varargs_and_keyword_only(a, 1, 2), varargs_and_keyword_only(a, 1, sep=100))


@helper
def total(*args):
    s = 0
    for a in args:
        s += a
    return s, len(args)


@helper
def first_and_rest(first, *rest):
    return first, rest


@case((3,))
def call_varargs(a):
    return total(a, 2, 3), total(), total(a), first_and_rest(a, 2.5, 3)


@helper
def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


@helper
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@helper
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@case((10,), (7,))
def recursion_self_and_mutual(n):
    return factorial(n), is_even(n), is_odd(n)


@helper
def apply_twice(fn, x):
    return fn(fn(x))


@helper
def add_one(x):
    return x + 1


@case((5,), (2.5,))
def functions_as_arguments(x):
    return apply_twice(add_one, x), apply_twice(abs, -x)


@helper
def times_two(x):
    return x * 2


@helper
def apply_each(fs, x):
    out = []
    for f in literal_unroll(fs):
        out.append(f(x))
    return out


@case((5,), (-2,))
def tuples_of_functions(x):
    fs = (add_one, times_two)
    s = 0
    for f in literal_unroll(fs):
        s += f(x)
    both = []
    for f in fs:
        both.append(f(x))
    return s, fs[0](x) + fs[1](x), both, apply_each((add_one, times_two), x)


@case((4,))
def closures_and_inner_functions(n):
    k = 3
    acc = [0]

    def add(x):
        return x + k + n

    def push(v, times=1):
        for _ in range(times):
            acc.append(v)
    for i in range(n):
        push(i)
    push(9, times=2)
    scale = lambda v: v * k  # noqa: E731
    return add(1) + add(2), acc, scale(n)


# ---- numbers --------------------------------------------------------------------------------

@case((7, 2), (-7, 2), (7, -2))
def int_division_semantics(a, b):
    return a / b, a // b, a % b, divmod(a, b), a ** 2, -a // b


@case((7.5, 2.0), (-7.5, 2.0), (1.0, 0.0))
def float_division_semantics(a, b):
    return a / b, a // b, a % b, divmod(a, b), a ** b


@case((3,), (7,))
def chained_comparisons(x):
    return 1 < x < 5, 1 < x > 5, x == 3 == 3


@case((3,))
def number_attributes(x):
    y = 2.5
    z = 1 + 2j
    return (x.conjugate(), x.real, x.imag, y.conjugate(), y.real, y.imag, z.conjugate(),
            z.real, z.imag, True.real)


def int64_overflow(x):
    y = -x - x
    return x * 4, y - 1, abs(y), -y


def test_int64_wraps():
    x = 2 ** 62
    got = pyjit.njit(int64_overflow)(x)
    assert got == tuple(wrap64(v) for v in int64_overflow(x))


# ---- built-in functions ---------------------------------------------------------------------

@case((-3,), (2.5,))
def builtin_abs(x):
    return abs(x), abs(-x), abs(complex(x, 1.0))


@case(([1, 0, 2],), ([1, 2],), ([0],))
def builtin_all_any(xs):
    return all(xs), any(xs), all([x > 0 for x in xs]), any(x > 1 for x in xs), all(range(3))


@case((0,), (3,), (0.0,), (-1.5,))
def builtin_bool(x):
    return bool(x), bool(x + 1), not x


@case((65,), (0x263A,))
def builtin_chr_ord(i):
    c = chr(i)
    return c, ord(c), ord('a'), chr(ord('z') - 1)


@case((1.0, 2.0), (3, 4))
def builtin_complex(a, b):
    return complex(a, b), complex(a), complex(a, b).real


@case((17, 5), (-17, 5), (17.5, 4.0))
def builtin_divmod(a, b):
    return divmod(a, b)


@case((5,))
def builtin_enumerate(n):
    s = 0
    for i, v in enumerate(range(10, 10 + n)):
        s += i * v
    for i, v in enumerate([1.5, 2.5], 3):
        s += i * v
    out = []
    for i, c in enumerate("abc"):
        out.append(c * i)
    return s, out


@case((10,))
def builtin_filter_map(n):
    return (list(filter(lambda v: v % 3 == 0, range(n))), list(map(lambda v: v * 2, range(n))),
            list(map(lambda a, b: a + b, range(n), range(n))))


@case((3,), (-2.5,))
def builtin_float(x):
    return float(x), float(x) / 2, float("1.5"), float("-inf")


@case((3.7,), (-3.7,), (True,))
def builtin_int(x):
    return int(x), int(-x)


@case((5,), (2.5,), ("abc",), ((1, 2),), (-1,))
def builtin_hash(x):
    return hash(x)


@case((3,), (2.5,))
def builtin_isinstance(x):
    return (isinstance(x, int), isinstance(x, float), isinstance(x, (int, float)),
            isinstance(x, str))


@case(([3, 1, 2],))
def builtin_iter_next(xs):
    it = iter(xs)
    a = next(it)
    b = next(it)
    rest = []
    for v in it:
        rest.append(v)
    return a, b, rest


@case(([3, 1, 2],), ("abc",), ((1, 2.5),))
def builtin_len(xs):
    return len(xs)


@case((5,))
def builtin_list(n):
    return list(range(n)), list((1, 2, 3)), list("abc"), list([1.5, 2.5])


@case((3, 7, 1), (2.5, 1.0, 9.0))
def builtin_min_max(a, b, c):
    return max(a, b), min(a, b, c), max([a, b, c]), min((a, b, c))


@case((5, "hello"), (1, "b"))
def builtin_min_max_of_iterables(n, s):
    d = {3: 1, 7: 2}
    return (max(range(n)), min(range(n, 9)), max(s), min(s), max({4, 1, 9}), min(d), max(d),
            max(["b", "a"]), max(range(n), key=lambda v: -v), max(x * 2 for x in range(n)))


@case((0,))
def builtin_max_of_empty_range(n):
    return max(range(n))


@case(([3, -7, 1],))
def builtin_min_max_key(xs):
    return max(xs, key=abs), min(xs, key=lambda v: -v)


@case((2, 10), (3.0, 2.0), (-2, 3))
def builtin_pow(a, b):
    return pow(a, b), a ** b


@case((5,))
def builtin_print(x):
    print("value", x, 2.5, True, "text")
    print()
    return x


def print_containers(n):
    a = np.arange(n)
    lst = [1.5, 2.5]
    print("arr", a, "list", lst, {"a": n}, {3}, (a, lst), [[1, 2]], ["x"], np.ones((2, 2)))
    return n


def test_print_of_arrays_and_containers(capfd):
    print_containers(3)
    want = capfd.readouterr().out
    pyjit.njit(print_containers)(3)
    assert capfd.readouterr().out == want


@case((5,))
def builtin_range(n):
    r = range(1, n, 2)
    return len(r), list(range(n, 0, -1)), 3 in r, r.start, r.stop, r.step


@case((5,), (2.5,), ("s",))
def builtin_repr_str(x):
    return repr(x), str(x)


@case((2.5,), (3.5,), (-2.5,), (1.2345,))
def builtin_round(x):
    return round(x), round(x, 2), round(x, 0)


@case(([3, 1, 2],), ([3, -5, 2],))
def builtin_sorted(xs):
    return sorted(xs), sorted(xs, reverse=True), sorted(xs, key=abs), \
        sorted(xs, key=lambda v: -v, reverse=True)


@case(([1, 2, 3],), ([1.5, 2.5],))
def builtin_sum(xs):
    return sum(xs), sum(xs, 10), sum(range(4))


@case((3,), (2.5,))
def builtin_type(x):
    return type(x)(2.7), type(2.5)(x)


@case((4,))
def builtin_zip(n):
    s = 0
    out = []
    for a, b in zip(range(n), range(10, 20)):
        s += a * b
    for a, b, c in zip([1, 2], (3, 4), "xy"):
        s += a + b
        out.append(c)
    return s, out, list(zip(range(3), "pqr"))


@case(([1, 2, 3, 4, 5],))
def builtin_slice(xs):
    s = slice(1, 4)
    t = slice(None, None, -1)
    return xs[s], xs[t], s.start, s.stop, t.step


@case((3,))
def builtin_getattr_hasattr(x):
    z = 1 + 2j
    return getattr(z, "real"), getattr(z, "nope", -1.0), hasattr(z, "imag"), hasattr(z, "nope")


# ---- str ------------------------------------------------------------------------------------

STRINGS = [("hello world",), ("  Mixed Case\tText  ",), ("a,b,,c",), ("",), ("ÄÖü straße",),
           ("12345",)]


@case(*STRINGS)
def str_operators(s):
    return (len(s), s + "!", s * 2, "o" in s, s == "hello world", s < "m", s >= "a", s[1:4],
            s[::-1], s[-1:])


@case(*STRINGS)
def str_case(s):
    return s.capitalize(), s.casefold(), s.lower(), s.upper(), s.swapcase(), s.title()


@case(*STRINGS)
def str_padding(s):
    return s.center(20), s.center(20, "*"), s.ljust(15, "-"), s.rjust(15), s.zfill(12), \
        s.expandtabs(4)


@case(*STRINGS)
def str_search(s):
    return (s.count("l"), s.count("l", 3), s.find("o"), s.find("o", 5), s.rfind("o"),
            s.endswith("d"), s.startswith("he"), s.startswith(("x", "he")), s.endswith("ld", 0, 20))


@case(("hello world",), ("hello",))
def str_index(s):
    return s.index("o"), s.rindex("o"), s.index("wor", 2)


@case(*STRINGS, ("x²³",))
def str_predicates(s):
    return (s.isalnum(), s.isalpha(), s.isdecimal(), s.isdigit(), s.islower(), s.isnumeric(),
            s.isprintable(), s.isspace(), s.istitle(), s.isupper(), s.isascii())


@case(("name_1",), ("1abc",), ("",), ("éte",), ("x²³",), ("नमस्ते",), ("a\u0301",), ("Ⅻ",), ("_",))
def str_isidentifier(s):
    return s.isidentifier()


@case(*STRINGS)
def str_split_join_strip(s):
    parts = s.split()
    return (parts, s.split(","), s.split(",", 1), s.rsplit(), s.rsplit(",", 1), s.splitlines(),
            "a\nb\r\nc".splitlines(True), "-".join(parts), s.strip(), s.lstrip(), s.rstrip(),
            s.strip(" Ta"), s.lstrip("h"), s.rstrip("dl"))


@case(*STRINGS)
def str_partition_replace(s):
    return (s.partition(" "), s.rpartition(" "), s.partition("zz"), s.replace("l", "L"),
            s.replace("l", "", 1), s.replace("", "-"), s.removeprefix("h"), s.removesuffix("d"))


@case((3, "ab"), (-1, ""))
def str_fstrings_and_str(n, s):
    return f"n={n} s={s} next={n + 1}", f"{s}{n}", str(n) + str(-n)


@case(("abc",))
def str_iteration(s):
    out = []
    for c in s:
        out.append(c)
    return out, [c for c in s], sorted("cab")


# ---- tuples and namedtuples -----------------------------------------------------------------

Point = namedtuple("Point", ["x", "y"])
Rec = namedtuple("Rec", "name value flag")


@case((3, 1), (4, -1))
def tuple_homogeneous(n, i):
    t = (1, 2, n, 4)
    a, b, c, d = t
    return (t[i], t[-1], t[1:3], t[::2], t + (5, 6), len(t), t == (1, 2, 3, 4), t < (1, 2, 4),
            n in t, t.index(n), t.count(2), max(t), sum(t), sorted(t), list(t), a + d)


@case((3,))
def tuple_heterogeneous(n):
    t = (n, 2.5, "a", True)
    a, b, c, d = t
    return t[0], t[2], t[1:3], t + (1,), (n, "x") == (n, "x"), a, c


@case((3,))
def tuple_unpacking_forms(n):
    (a, b), c = (n, 2), 3.0
    x, *rest = (1, 2, n)
    *init, y = [1, 2, n]
    t = (1, 2)
    return a, b, c, x, rest, init, y, (*t, n), (0, *t, *t)


@case((3, 4.5))
def namedtuple_use(a, b):
    p = Point(a, b)
    q = Point(y=a, x=b)
    x, y = p
    return p.x + p.y, q.x, p[0], p[1], p, len(p), p._replace(x=7), x, y, p == Point(a, b)


@case(("n", 2.5))
def namedtuple_mixed_fields(name, v):
    r = Rec(name, v, True)
    items = [Rec("a", 3.0, False), Rec("b", v, True)]   # constant strings in fields
    return r.name, r.value, r.flag, r, items, items[0].name + r.name


@case((Point(1, 2),), (Point(1.5, 2.5),))
def namedtuple_argument(p):
    return p.x * p.y, p


@case((3,))
def namedtuple_type_of_instance(n):
    p = Point(n, n)
    q = type(p)(1, 2)
    return q, type(q)(y=2.5, x=1.5)


# ---- lists ----------------------------------------------------------------------------------

@case(([3, 1, 2],))
def list_methods(xs):
    a = list(xs)
    a.append(5)
    a.extend([7, 8])
    a.insert(0, -1)
    a.insert(-1, 99)
    p = a.pop()
    p0 = a.pop(0)
    a.remove(99)
    i = a.index(5)
    c = a.count(1)
    a.reverse()
    b = a.copy()
    b.sort()
    b.sort(reverse=True)
    a += [10]
    a *= 2
    d = a[:]
    d.clear()
    return a, b, p, p0, i, c, d, len(a), a * 2, [0] * 3, a[1:-1:2], 3 in a, a == b, a < b


@case(([3, -1, 2],))
def list_sort_key(xs):
    a = list(xs)
    a.sort(key=lambda v: v * v)
    return a


@case(([3, 1, 2],))
def list_setitem_del(xs):
    a = list(xs)
    a[0] = 10
    a[-1] += 5
    a[1:2] = [7, 8, 9]
    del a[0]
    del a[1:3]
    return a


@case((4,))
def list_comprehensions(n):
    grid = [[0] * n for _ in range(n)]
    for i in range(n):
        grid[i][i] = i
    return ([i * i for i in range(n) if i % 2 == 0], [[j for j in range(i)] for i in range(n)],
            [(i, float(i)) for i in range(n)], grid, np.array([[x * y for x in range(n)]
                                                              for y in range(n)]))


@case(([1, 2],), ([1.5],))
def list_reflected(xs):
    xs.append(xs[0])
    xs[0] = 9
    return len(xs)


@case((3,))
def list_of_strings(n):
    words = ["b", "a", "c"]
    words.sort()
    return words, "".join(words), words.index("c"), "a" in words


@case((4,))
def list_of_arrays(n):
    lst = []
    for i in range(n):
        lst.append(np.arange(i))
    return lst


# ---- sets -----------------------------------------------------------------------------------

@case(([1, 2, 3, 2],))
def set_operators(xs):
    a = set(xs)
    b = {2, 3, 4}
    a.add(10)
    a.discard(99)
    a.remove(10)
    return (sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b), len(a), 2 in a, a <= b,
            a >= {1}, a < a | b, a > {1}, a.isdisjoint({100}), a.issubset(a | b),
            a.issuperset({1, 2}), a == {1, 2, 3}, a != b)


@case(([1, 2, 3],))
def set_methods(xs):
    a = set(xs)
    b = {3, 4}
    u, i, d, s = a.union(b), a.intersection(b), a.difference(b), a.symmetric_difference(b)
    a.update(b)
    c = a.copy()
    c.intersection_update({1, 3, 4})
    e = a.copy()
    e.difference_update({1})
    f = a.copy()
    f.symmetric_difference_update({1, 50})
    g = set(xs)
    q = g.pop()
    g.clear()
    h = set(xs)
    h |= {9}
    h &= {1, 2, 9}
    h -= {1}
    h ^= {2, 5}
    return (sorted(u), sorted(i), sorted(d), sorted(s), sorted(c), sorted(e), sorted(f),
            q in xs, len(g), sorted(h))


@case(({1, 2},))
def set_argument_reflected(s):
    s.add(5)
    return len(s)


@case((5,))
def set_built_and_iterated(n):
    s = set()
    for i in range(n):
        s.add(i % 3)
    t = 0
    for v in s:
        t += v
    return t, len(s), sorted({i % 3 for i in range(n)}), sorted(set("abca")), \
        sorted({(1, 2), (n, n)})


# ---- dicts ----------------------------------------------------------------------------------

@case((5,))
def dict_literals_and_get(n):
    d = {}
    for i in range(n):
        d[i] = i * 1.5
    e = {"a": 1, "b": 2}
    return d, e["a"], len(d), 3 in d, 10 in d, d.get(2), d.get(99, -1.0), d.get(99)


@case((5,))
def dict_methods(n):
    d = {i: i * i for i in range(n)}
    v = d.pop(2)
    w = d.pop(99, -7)
    s = d.setdefault(10, 100)
    s2 = d.setdefault(1, 100)
    d.update({20: 400})
    ks, vs, its = list(d.keys()), list(d.values()), list(d.items())
    c = d.copy()
    c.clear()
    k, last = d.popitem()
    del d[0]
    return v, w, s, s2, ks, vs, its, len(c), k, last, d, d == {1: 1}, d != c


@case((5,))
def dict_iteration(n):
    d = dict()
    for i in range(n):
        d[str(i)] = i
    t = 0
    for k in d:
        t += d[k]
    for k, v in d.items():
        t += v * len(k)
    return t, sorted(d), max(d.values())


@case((5,), (1,))
def dict_missing_key(n):
    d = {1: 2}
    return d[n]


@case((3,))
def dict_values_of_containers(n):
    d = {}
    for i in range(n):
        d[i] = [i]
    d[0].append(5)
    e = {"x": np.arange(n)}
    f = {(1, 2): "a"}
    f[(n, n)] = "b"
    return d[0], e["x"].sum(), f[(n, n)], (1, 2) in f, dict([(1, 2.0), (3, 4.0)]), \
        dict(zip(range(n), range(n)))


@case((3,))
def typed_dict_empty(n):
    d = pyjit.typed.Dict.empty(key_type=pyjit.types.int64, value_type=pyjit.types.float64)
    for i in range(n):
        d[i] = i / 2
    return d[1], len(d)


@pytest.mark.parametrize("f, argsets", CASES)
def test_against_cpython(f, argsets):
    compiled = twin(f)
    for args in argsets:
        check(f, *args, jit=compiled)


# ---- what Numba does not support either: a compile error naming the line --------------------

def class_inside(x):
    class A:
        pass
    return x


def yield_from(x):
    yield from range(x)


def assigns_global(x):
    global SOME_GLOBAL
    SOME_GLOBAL = x
    return x


def with_open(x):
    with open("f") as fh:
        fh.read()
    return x


def list_of_mixed_types(x):
    return [1, "a"]


def print_with_sep(x):
    print(x, sep=",")
    return x


def returns_int_or_str(x):
    if x > 0:
        return 1
    return "a"


def int_with_base(x):
    return int("ff", 16)


def returns_lambda(x):
    return lambda v: v


def tuple_variable_index(t, i):
    return t[i]


def fstring_format_spec(n):
    return f"{n:03d}"


def percent_formatting(n):
    return "%d items" % n


def str_format_method(n):
    return "{} items".format(n)


def next_of_generator(n):
    it = countdown(n)
    return next(it)


def yield_value_used(n):
    def g():
        y = yield 1
        yield y
    return list(g())


def nonlocal_assignment(x):
    total = 0

    def bump(v):
        nonlocal total
        total = total + v
    bump(x)
    return total


def inner_keyword_only(x):
    def g(a, *, b):
        return a + b
    return g(x, b=1)


@pytest.mark.parametrize("f, args, needle", [
    (class_inside, (1,), "class A"),
    (yield_from, (3,), "yield from"),
    (assigns_global, (1,), "SOME_GLOBAL = x"),
    (with_open, (1,), "with open"),
    (list_of_mixed_types, (1,), "[1, \"a\"]"),
    (print_with_sep, (1,), "print(x, sep"),
    (returns_int_or_str, (1,), "return"),
    (int_with_base, (1,), "int(\"ff\", 16)"),
    (returns_lambda, (1,), "return lambda"),
    (tuple_variable_index, ((1, 2.5), 0), "t[i]"),
    (fstring_format_spec, (1,), "f\"{n:03d}\""),
    (percent_formatting, (1,), "% n"),
    (str_format_method, (1,), ".format(n)"),
    (next_of_generator, (3,), "next(it)"),
    (yield_value_used, (1,), "y = yield 1"),
    (nonlocal_assignment, (1,), "total = total + v"),
    (inner_keyword_only, (1,), "def g(a, *, b)"),
], ids=lambda v: getattr(v, "__name__", None))
def test_unsupported_is_a_compile_error_naming_the_line(f, args, needle):
    g = dict(f.__globals__, countdown=pyjit.njit(countdown))
    compiled = pyjit.njit(pytypes.FunctionType(f.__code__, g, f.__name__))
    with pytest.raises(CompileError) as info:
        compiled(*args)
    assert isinstance(info.value, (TypingError, UnsupportedError))
    text = str(info.value)
    assert f"in function '{f.__name__}" in text and ", line " in text
    assert needle in text


def test_keyword_only_errors_match_cpython():
    kw = pyjit.njit(keyword_only)
    req = pyjit.njit(keyword_only_required)
    for fn, py, args, kwargs in [(kw, keyword_only, (3, 4), {}),
                                 (req, keyword_only_required, (1,), {}),
                                 (req, keyword_only_required, (1,), {"c": 2})]:
        with pytest.raises(TypeError) as want:
            py(*args, **kwargs)
        with pytest.raises(TypeError) as got:
            fn(*args, **kwargs)
        assert str(got.value) == str(want.value)

    g = {"keyword_only": kw, "keyword_only_required": req}
    missing = pyjit.njit(pytypes.FunctionType(
        compile("def f(a):\n    return keyword_only_required(a)\n", __file__, "exec").co_consts[0],
        g, "f"))
    with pytest.raises(TypingError, match="missing required argument 'b'"):
        missing(1)


def pair_of(p):
    return (p, p), [p]


def test_two_namedtuple_classes_of_one_name_stay_apart():
    # two modules' Point: a tuple or list holding one is typed by its own class
    first, second = namedtuple("Point", ["x", "y"]), namedtuple("Point", ["x", "y"])
    f = pyjit.njit(pair_of)
    for cls in (first, second, first):
        t, lst = f(cls(1.0, 2.0))
        assert type(t[1]) is cls and type(lst[0]) is cls
