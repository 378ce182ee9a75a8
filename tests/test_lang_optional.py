"""Optional values in compiled code: a variable that is None on one path and a value (a number,
an array, a tuple, a list, a string) on another; `is None` / `is not None` / `== None` tests and
truth; the value used where it is needed (TypeError when it is None, as in CPython and Numba);
None-or-value returned to Python and from one compiled function to another; the `out=None`
argument idiom; None passed for an array argument. Each function runs in CPython and compiled on
copies of the same arguments (util.check)."""
import numpy as np
import pytest

import pyjit
from util import check, check_raises, memory_in_use

MB = 1 << 20


def first_positive(a):
    found = None
    for v in a:
        if v > 0:
            found = v
            break
    return found


def double_or_none(n):
    x = None
    if n > 0:
        x = n * 2
    if x is None:
        return -1
    return x + 1


def spelled_tests(n):
    x = None
    if n % 2 == 0:
        x = 1.5 * n
    a = 1 if x is None else 0
    b = 1 if x is not None else 0
    c = 1 if x == None else 0   # noqa: E711 - the spelling is the point
    d = 1 if x != None else 0   # noqa: E711
    return a, b, c, d


def truth_of_optional(n):
    x = None
    if n > 1:
        x = n - 2
    if x:
        return 1
    return 0


def largest(a):
    best = None
    for v in a:
        if best is None or v > best:
            best = v
    return best


def sum_of_steps(a):
    prev = None
    s = 0.0
    for v in a:
        if prev is not None:
            s += v - prev
        prev = v
    return s


def uses_previous(n):
    x = None
    s = 0
    for i in range(n):
        if i > 0:
            s += x      # None only before the loop's first round, which does not read it
        x = i
    return s


def value_needed(n):
    x = None
    if n > 0:
        x = n
    return x + 1


def with_weak_literal(n):
    x = None
    if n > 0:
        x = 3.0
    if x is None:
        x = 0.5
    return x * 2


@pytest.mark.parametrize("n", [-2, 0, 3, 4])
def test_scalar_optionals(n):
    check(double_or_none, n)
    check(spelled_tests, n)
    check(truth_of_optional, n)
    check(with_weak_literal, n)


@pytest.mark.parametrize("a", [np.array([-1.0, 2.5, 3.0]), np.array([-1.0, -2.0]), np.zeros(0)])
def test_none_or_value_returned(a):
    check(first_positive, a)
    check(largest, a)
    check(sum_of_steps, a)
    check(uses_previous, len(a))


def test_value_used_where_none_raises():
    check(value_needed, 3)
    check(value_needed, -3)
    f = pyjit.njit(value_needed)
    check_raises(TypeError, f, -1, match="expected int64, got None")


def array_or_none(n):
    r = None
    if n > 0:
        r = np.arange(n) * 2
    return r


def tuple_or_none(n):
    r = None
    if n > 0:
        r = (n, n * 0.5)
    return r


def list_or_none(n):
    r = None
    if n > 0:
        r = [0] * n
    if r:
        r[0] = 7
    return r


def str_or_none(n):
    s = None
    if n > 0:
        s = "abc"
    if s is not None:
        return s + "!"
    return s


def optional_array_summed(n):
    r = None
    if n > 0:
        r = np.ones(n)
    if r is None:
        return 0.0
    return r.sum()


@pytest.mark.parametrize("n", [-1, 0, 3])
def test_optional_containers(n):
    check(array_or_none, n)
    check(tuple_or_none, n)
    check(list_or_none, n)
    check(str_or_none, n)
    check(optional_array_summed, n)


@pyjit.njit
def _maybe_half(x):
    if x < 0:
        return None
    return x / 2


def calls_optional_callee(a):
    total = 0.0
    misses = 0
    for v in a:
        h = _maybe_half(v)
        if h is None:
            misses += 1
        else:
            total += h
    return total, misses


@pyjit.njit
def _maybe_array(n):
    if n < 0:
        return None
    return np.arange(n)


def calls_optional_array_callee(n):
    a = _maybe_array(n)
    if a is None:
        return -1
    return a.sum()


def test_optional_from_compiled_callee():
    a = np.array([1.0, -2.0, 5.0, -1.0])
    assert pyjit.njit(calls_optional_callee)(a) == (3.0, 2)
    assert pyjit.njit(calls_optional_array_callee)(4) == 6
    assert pyjit.njit(calls_optional_array_callee)(-4) == -1


def scale(a, factor=2.0, out=None):
    if out is None:
        out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * factor
    return out


def offset_or_zero(a, offset=None):
    if offset is None:
        return a.copy()
    return a + offset


def test_out_none_idiom():
    a = np.arange(5.0)
    check(scale, a)
    check(scale, a, 3.0)
    check(scale, a, 3.0, np.zeros(5))
    check(scale, a, 3.0, None)
    check(offset_or_zero, a)
    check(offset_or_zero, a, None)
    check(offset_or_zero, a, 1.5)
    check(offset_or_zero, a, np.ones(5))


def test_none_for_an_array_argument():
    def norm_or_zero(a):
        if a is None:
            return 0.0
        return np.sqrt((a * a).sum())
    check(norm_or_zero, None)
    check(norm_or_zero, np.array([3.0, 4.0]))


def test_optional_shown_in_types():
    f = pyjit.njit(first_positive)
    f(np.array([1.0]))
    assert "optional(float64)" in f.inspect_types()


def test_optional_arrays_do_not_leak():
    f = pyjit.njit(array_or_none)
    g = pyjit.njit(calls_optional_array_callee)
    for _ in range(2000):
        f(50)
        f(-1)
        g(50)
    before = memory_in_use()
    for _ in range(200_000):
        f(50)
        f(-1)
        g(50)
    grown = memory_in_use() - before
    # 2 * 10^5 leaked arrays of 50 int64 would be 80 MB
    assert grown < 8 * MB, f"memory grew {grown / MB:.1f} MB"


@pyjit.njit
def _fill(a, out=None):
    if out is None:
        out = np.empty_like(a)
    out[:] = a + 1
    return out


def passes_optional_on(a, given):
    buf = None
    if given:
        buf = np.zeros_like(a)
    r = _fill(a, buf)
    return r.sum() + (0.0 if buf is None else buf.sum())


@pytest.mark.parametrize("given", [False, True])
def test_optional_passed_to_a_compiled_callee(given):
    a = np.arange(4.0)
    assert pyjit.njit(passes_optional_on)(a, given) == passes_optional_on(a, given)


def test_declared_optional_arguments_and_types():
    """optional(T) in a signature (pyjit.types.optional, Numba's spelling): None or a value that
    converts to T is accepted; returning it where T is declared checks for None at run time."""
    from pyjit import types

    @pyjit.njit("float64(optional(float64))")
    def value_or(x):
        if x is None:
            return -1.0
        return x

    @pyjit.njit(types.int64(types.optional(types.int64[:])))
    def total(a):
        if a is None:
            return 0
        return a.sum()

    @pyjit.njit("float64(optional(float64))")
    def unchecked(x):
        return x

    assert (value_or(None), value_or(2.5), value_or(3)) == (-1.0, 2.5, 3.0)
    assert (total(None), total(np.arange(5))) == (0, 10)
    assert unchecked(1.5) == 1.5
    with pytest.raises(TypeError, match="expected float64, got None"):
        unchecked(None)
    assert types.optional(types.float64).type is types.float64


def test_declared_optional_takes_what_an_unsafe_cast_reaches():
    # numba-stats declares its samplers float64[:](float64, uint64, optional(uint64)) and its
    # tests pass ints for the size and the seed: Numba casts int64 to uint64 there, as to a
    # plain uint64 parameter
    from pyjit import types

    @pyjit.njit(types.float64(types.float64, types.uint64, types.optional(types.uint64)))
    def draw(a, size, seed):
        return a * size + (-1.0 if seed is None else seed)

    assert (draw(1.5, 4, 7), draw(2, 3, None)) == (13.0, 5.0)
    numba = pytest.importorskip("numba")
    nb = numba.njit(numba.float64(numba.float64, numba.uint64, numba.optional(numba.uint64)))(
        draw.py_func)
    assert (nb(1.5, 4, 7), nb(2, 3, None)) == (13.0, 5.0)


# ---- optional items of tuples ------------------------------------------------------------------

def pair_with_none(x):
    return (x, None)


def pair_of_optional(x):
    v = None if x < 0 else x
    return (v, x)


def unpack_optional_item(x):
    v = None if x < 0 else x
    a, b = (v, 1.5)
    if a is None:
        return -1.0
    return a + b


def tuples_joined(x):
    t = (None, 2) if x < 0 else (x, 3)
    a, b = t
    return a, b, t


def best_so_far(x):
    best = (None, 0.0)
    for i in range(4):
        if i > x:
            best = (i, i * 1.5)
    return best


def tuples_in_list(x):
    out = []
    for i in range(3):
        out.append((None if i == x else i, i))
    return out


@pyjit.njit
def _sum_pair(t):
    a, b = t
    return -1 if a is None else a + b


def passes_optional_tuple(x):
    v = None if x < 0 else x
    return _sum_pair((v, 2))


def optional_array_in_tuples(n):
    a = None if n < 0 else np.arange(n)
    t = (a, (a, n))
    if t[0] is None:
        return t, t[1][1]
    return t, t[0].sum() + t[1][1]


@pytest.mark.parametrize("f", [pair_with_none, pair_of_optional, unpack_optional_item,
                               tuples_joined, best_so_far, tuples_in_list, passes_optional_tuple])
def test_optional_items_of_tuples(f):
    for x in (-1, 0, 2, 9):
        check(f, x)
    check(pair_with_none, 2.5)


def test_optional_arrays_in_tuples_do_not_leak():
    f = pyjit.njit(optional_array_in_tuples)
    for n in (-1, 0, 4):
        check(optional_array_in_tuples, n, jit=f)
    for _ in range(100):
        f(50)
        f(-1)
    before = memory_in_use()
    for _ in range(100_000):
        f(50)
        f(-1)
    grown = memory_in_use() - before
    assert grown < 8 * MB, f"memory grew {grown / MB:.1f} MB"   # a leaked array each: 40 MB
