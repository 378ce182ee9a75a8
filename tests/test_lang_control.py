"""Statements and control flow: assignment, augmented assignment, unpacking, if/elif/else, while,
for over range/arrays/tuples, break/continue, several returns, ternaries, chained comparisons,
short-circuit and/or/not. Each function runs in CPython and compiled (util.check)."""
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import pyjit
from util import check, check_raises, run_subprocess

HYP = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def classify(x):
    if x < 0:
        return -1
    elif x == 0:
        return 0
    elif x < 10:
        return 1
    else:
        return 2


def classify_float(x):
    r = 0.0
    if x < -1.5:
        r = -x
    elif x > 1.5:
        r = x * 2
    else:
        r = 7.0
    return r


def test_if_elif_else():
    for x in (-5, 0, 3, 10, 99):
        check(classify, x)
    for x in (-2.0, -1.5, 0.0, 1.5, 3.25):
        check(classify_float, x)


def ternary(x):
    return x * 2 if x > 3 else x - 100


def nested_ternary(x):
    return 1 if x > 0 else (-1 if x < 0 else 0)


def test_ternary():
    for x in (-4, 0, 3, 4, 50):
        check(ternary, x)
        check(nested_ternary, x)
    check(ternary, 3.5)


def chained(a, b, c):
    return a < b < c


def chained_mixed(a, b, c, d):
    return a <= b == c != d


def chained_in_if(x):
    if 0 <= x < 10:
        return 1
    if -10 < x < 0:
        return 2
    return 3


def test_chained_comparisons():
    for a, b, c in [(1, 2, 3), (1, 3, 2), (3, 2, 1), (1, 1, 2), (0.5, 1, 1.5), (2, 2, 2)]:
        check(chained, a, b, c)
    for args in [(1, 2, 2, 3), (1, 2, 2, 2), (3, 2, 2, 1), (1.0, 1, 1.0, 0)]:
        check(chained_mixed, *args)
    for x in (-20, -10, -5, 0, 5, 10, 20):
        check(chained_in_if, x)


def and_or(a, b, c):
    return (a > 0 and b > 0) or c > 0


def not_and(a, b):
    return not (a and b)


def value_or(a, b):
    return a or b


def value_and(a, b):
    return a and b


def short_circuit_div(x, y):
    # the division must not run when y == 0
    return y != 0 and x // y > 1


def short_circuit_index(a, i):
    return i < a.shape[0] and a[i] > 0


def short_circuit_or(x, y):
    return y == 0 or x % y == 0


def test_and_or_not():
    for a in (-1, 0, 1):
        for b in (-1, 0, 1):
            for c in (-1, 0, 1):
                check(and_or, a, b, c)
            check(not_and, a, b)
            check(value_or, a, b)
            check(value_and, a, b)
    check(value_or, 0.0, 2.5)
    check(value_and, 1.5, 0.0)
    check(not_and, True, False)


def test_short_circuit_skips_evaluation():
    for x, y in [(5, 0), (5, 2), (1, 3), (-7, 0)]:
        check(short_circuit_div, x, y)
        check(short_circuit_or, x, y)
    a = np.array([1.0, -1.0, 2.0])
    f = pyjit.njit(boundscheck=True)(short_circuit_index)
    for i in range(5):
        check(short_circuit_index, a, i, jit=f)


def while_sum(n):
    s = 0
    i = 0
    while i < n:
        s += i * i
        i += 1
    return s


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def test_while():
    for n in (0, 1, 10, 1000):
        check(while_sum, n)
    for n in (1, 7, 27, 97, 871):
        check(collatz, n)


@given(st.integers(0, 10**12), st.integers(0, 10**12))
@HYP
def test_gcd_hypothesis(a, b):
    check(gcd, a, b, jit=_gcd)


_gcd = pyjit.njit(gcd)


def range1(n):
    s = 0
    for i in range(n):
        s += i
    return s


def range2(a, b):
    s = 0
    for i in range(a, b):
        s = s * 3 + i
    return s


def range3(a, b, c):
    s = 0
    k = 0
    for i in range(a, b, c):
        s += i * k
        k += 1
    return s


def range_float_acc(n):
    s = 0.0
    for i in range(n):
        s += 1.0 / (i + 1)
    return s


def test_for_range():
    for n in (0, 1, 5, 100, -3):
        check(range1, n)
        check(range_float_acc, n)
    for a, b in [(0, 10), (5, 2), (-5, 5), (3, 3)]:
        check(range2, a, b)
    for a, b, c in [(0, 10, 3), (10, 0, -1), (10, 0, -3), (0, 10, -1), (-7, 7, 2), (5, 6, 100)]:
        check(range3, a, b, c)


def range_zero_step(n):
    s = 0
    for i in range(0, n, 0):
        s += i
    return s


def test_range_zero_step_raises():
    check_raises(ValueError, pyjit.njit(range_zero_step), 5)


def loop_var_after(n):
    i = -1
    for i in range(n):
        pass
    return i


def test_loop_variable_after_loop():
    for n in (0, 1, 7):
        check(loop_var_after, n)


def break_continue(n):
    s = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if i > 20:
            break
        s += i
    return s


def nested_break(n):
    count = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 2:
                continue
            count += 1
    return count


def while_break(limit):
    i = 0
    while True:
        i += 1
        if i * i > limit:
            break
    return i


def find_first(a, v):
    for i in range(a.shape[0]):
        if a[i] == v:
            return i
    return -1


def test_break_continue():
    for n in (0, 5, 30, 100):
        check(break_continue, n)
        check(nested_break, n)
    for lim in (0, 1, 50, 10**6):
        check(while_break, lim)
    a = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    for v in (1, 9, 6, 7):
        check(find_first, a, v)


def count_split(a, lo, hi):
    """Branches that each go back to the loop's head, a count changed on one of them only (the
    shape LLVM splits into nested loops unless the back edges are merged)."""
    inside = 0
    below = 0
    total = 0.0
    for i in range(a.size):
        v = a[i]
        if v < lo:
            below += 1
            continue
        if v > hi:
            continue
        inside += 1
        total += v
    return inside, below, total


def while_paths(n):
    i = 0
    odd = 0
    acc = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if i % 2:
            odd += 1
        else:
            acc += i
    return i, odd, acc


def nested_paths(m):
    hits = 0
    rows = 0
    for i in range(m):
        for j in range(i):
            if (i + j) % 4 == 0:
                continue
            if j > 6:
                break
            hits += j
        else:
            rows += 1
            continue
        rows -= 1
    return hits, rows


def gather_paths(a, idx):
    s = 0.0
    bad = 0
    for k in range(idx.size):
        j = idx[k]
        if j < 0:
            bad += 1
            continue
        s += a[j]
    return s, bad


def test_several_back_edges():
    a = np.random.default_rng(5).standard_normal(200)
    for lo, hi in ((-0.5, 0.5), (5.0, 6.0), (-9.0, 9.0)):
        check(count_split, a, lo, hi)
        check(count_split, a[::-3], lo, hi)
    check(count_split, np.zeros(0), 0.0, 1.0)
    for n in (0, 1, 7, 100):
        check(while_paths, n)
        check(nested_paths, n)
    idx = np.array([3, -1, 0, 199, -5, 7])
    check(gather_paths, a, idx)
    check(gather_paths, a, np.array([200]))   # IndexError, as CPython's


def several_returns(x):
    if x > 100:
        return x - 100
    for i in range(x):
        if i * i > x:
            return i
    while x > 0:
        return -x
    return 0


def test_several_returns():
    for x in (-5, 0, 1, 5, 50, 101, 500):
        check(several_returns, x)


def iterate_array(a):
    s = 0.0
    for v in a:
        s += v * v
    return s


def iterate_array_int(a):
    m = 0
    for v in a:
        if v > m:
            m = v
    return m


def iterate_rows(a):
    s = 0.0
    for row in a:
        for v in row:
            s = s * 0.5 + v
    return s


def test_for_over_arrays():
    check(iterate_array, np.arange(10.0))
    check(iterate_array, np.arange(10.0, dtype=np.float32))
    check(iterate_array, np.arange(20.0)[::3])
    check(iterate_array, np.empty(0))
    check(iterate_array_int, np.array([3, -1, 7, 2], dtype=np.int32))
    check(iterate_array_int, np.array([3, 200, 7], dtype=np.uint8))
    check(iterate_rows, np.arange(12.0).reshape(3, 4))
    check(iterate_rows, np.asfortranarray(np.arange(12.0).reshape(3, 4)))


def iterate_tuple(t):
    s = 0
    for v in t:
        s = s * 10 + v
    return s


def iterate_literal_tuple(x):
    s = 0.0
    for w in (1.0, 2.0, 0.5):
        s += w * x
    return s


def test_for_over_tuples():
    check(iterate_tuple, (1, 2, 3, 4))
    check(iterate_tuple, (7,))
    check(iterate_literal_tuple, 3.0)


def augmented(a, b):
    x = a
    x += b
    x *= 3
    x -= b
    x //= 2
    x %= 1000
    x **= 2
    x <<= 2
    x >>= 1
    x |= 5
    x &= 0xFFFF
    x ^= 0x0F0F
    return x


def augmented_float(a, b):
    x = a
    x += b
    x *= 1.5
    x -= 0.25
    x /= b
    x //= 0.5
    x %= 7.0
    x **= 2
    return x


def test_augmented_assignment():
    for a, b in [(1, 2), (100, -7), (-50, 3), (0, 9)]:
        check(augmented, a, b)
    for a, b in [(1.0, 2.0), (100.5, -7.25), (-50.0, 3.0)]:
        check(augmented_float, a, b)


def augmented_array(a, i, v):
    a[i] += v
    a[i] *= 2
    a[i - 1] -= v
    return a[i]


def test_augmented_array_element():
    check(augmented_array, np.arange(5.0), 2, 1.5)
    check(augmented_array, np.arange(5), 3, 4)
    check(augmented_array, np.arange(5, dtype=np.int32), -1, 4)


def swap(a, b):
    a, b = b, a
    return a - b


def unpack3(a, b, c):
    x, y, z = c, a, b
    (p, q), r = (x, y), z
    return p * 100 + q * 10 + r


def unpack_shape(a):
    n, m = a.shape
    return n * 1000 + m


def multiple_targets(x):
    a = b = x + 1
    a += 1
    return a * 10 + b


def test_assignment_and_unpacking():
    check(swap, 3, 10)
    check(swap, 2.5, -1.0)
    check(unpack3, 1, 2, 3)
    check(unpack_shape, np.zeros((4, 7)))
    check(multiple_targets, 5)


def type_changes_in_sequence(x):
    y = x        # an int
    y = y * 0.5  # now a float (a new SSA value)
    return y


def test_variable_rebinding_to_new_type():
    check(type_changes_in_sequence, 3)


def fib_loop(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def primes_below(n):
    count = 0
    for k in range(2, n):
        is_prime = True
        d = 2
        while d * d <= k:
            if k % d == 0:
                is_prime = False
                break
            d += 1
        if is_prime:
            count += 1
    return count


def test_small_programs():
    for n in (0, 1, 2, 10, 90):
        check(fib_loop, n)
    for n in (0, 3, 100, 1000):
        check(primes_below, n)


def raise_value_error(x):
    if x < 0:
        raise ValueError("x must be non-negative")
    return x * 2


def raise_class(x):
    if x > 5:
        raise IndexError
    return x


def raise_in_loop(n):
    s = 0
    for i in range(n):
        s += i
        if s > 10:
            raise RuntimeError("sum too large")
    return s


def test_raise_in_compiled_code():
    f = pyjit.njit(raise_value_error)
    assert f(3) == 6
    exc = check_raises(ValueError, f, -1)
    assert str(exc) == "x must be non-negative"
    check(raise_value_error, -2)
    check(raise_class, 7)
    check(raise_class, 2)
    g = pyjit.njit(raise_in_loop)
    assert g(4) == 6
    assert str(check_raises(RuntimeError, g, 10)) == "sum too large"
    # the dispatcher still works after an exception
    assert f(10) == 20


def zero_div_in_loop(a):
    s = 0
    for v in a:
        s += 100 // v
    return s


def test_zero_division_in_loop():
    check(zero_div_in_loop, np.array([1, 2, 3]))
    # NumPy scalars give 0 with a warning; compiled integer division by zero raises, as in Python
    check_raises(ZeroDivisionError, pyjit.njit(zero_div_in_loop), np.array([1, 0, 3]))


# --- evaluation order and side effects ----------------------------------------------------------

@pyjit.njit
def bump(c, v):
    c[0] += 1
    return v


def chained_once(c, x):
    # the middle operand is evaluated once
    return 0 < bump(c, x) < 10


def or_skips(c, x):
    return x > 0 or bump(c, x) > 0


def and_skips(c, x):
    return x > 0 and bump(c, x) > 0


def ternary_one_side(c, x):
    return bump(c, x) if x > 0 else -bump(c, -x)


def test_side_effects_evaluated_once_and_short_circuit():
    # bump is compiled, so CPython runs the same code for its side effect on the array
    for f in (chained_once, or_skips, and_skips, ternary_one_side):
        for x in (-5, 5, 50):
            check(f, np.zeros(1, np.int64), x)


def enumerate_zip(a, b):
    s = 0.0
    for i, v in enumerate(a):
        s += i * v
    for x, y in zip(a, b):
        s += x * y
    return s


def test_enumerate_zip():
    check(enumerate_zip, np.arange(5.0), np.ones(5))
    check(enumerate_zip, np.arange(5.0), np.ones(3))


def zip_over_enumerate(a, b):
    s = 0.0
    for (i, x), y in zip(enumerate(a), b):
        s += i * x + y
    return s


def enumerate_of_enumerate_and_zips(a, b):
    s = 0.0
    for k, ((i, x), y) in enumerate(zip(enumerate(a, 10), b), 1):
        s += k * 1000 + i * 10 + x * y
    for i, (j, x) in enumerate(enumerate(a, 5)):
        s += i * j * x
    for (x, (i, y)), z in zip(zip(a, enumerate(b)), a[::-1]):
        s += x * i + y * z
    return s


def test_zip_over_enumerate():
    """zip() and enumerate() of an enumerate(), as Numba takes them (numba-cuda's iterator
    tests zip an enumerate): the shortest length, the enumerate's own start."""
    check(zip_over_enumerate, np.arange(5.0), np.ones(5))
    check(zip_over_enumerate, np.arange(5.0), np.ones(3))
    check(enumerate_of_enumerate_and_zips, np.arange(6.0), np.arange(4.0))
    check(enumerate_of_enumerate_and_zips, np.arange(3.0), np.arange(7.0))


def len_range(a, b, c):
    return len(range(a, b, c))


def test_len_range():
    for args in [(0, 10, 1), (0, 10, 3), (10, 0, -3), (5, 5, 1), (0, 10, -1), (-2**62, 2**62, 2**60)]:
        check(len_range, *args)


def while_else(n):
    i = 0
    while i < n:
        if i == 5:
            break
        i += 1
    else:
        i = -1
    return i


def for_else(n):
    for i in range(n):
        if i == 5:
            break
    else:
        return -1
    return i


def test_loop_else():
    for n in (0, 3, 10):
        check(while_else, n)
        check(for_else, n)


def count_range(a, b, c):
    n = 0
    for _ in range(a, b, c):
        n += 1
    return n


def test_range_with_huge_bounds():
    # stop - start does not fit in int64 here; Python's range still has 8 items
    check(count_range, -2**62, 2**62, 2**60)
    check(count_range, 2**62, -2**62, -2**60)


def test_range_near_int64_limits_terminates():
    # the induction variable must not wrap around: run in a child so a hang fails the test
    code = (
        "import pyjit\n"
        "def count_range(a, b, c):\n"
        "    n = 0\n"
        "    for _ in range(a, b, c):\n"
        "        n += 1\n"
        "    return n\n"
        "f = pyjit.njit(count_range)\n"
        "print(f(-2**63, 2**63 - 1, 2**62), f(2**63 - 1, -2**63, -2**62), f(2**63 - 3, 2**63 - 1, 5))\n")
    try:
        rc, out, err = run_subprocess(code, timeout=15)
    except subprocess.TimeoutExpired:
        pytest.fail("a loop over range(-2**63, 2**63 - 1, 2**62) did not terminate")
    assert rc == 0, err
    assert out.split() == ["4", "4", "1"], out


def truth_of_none_arg(n, flag):
    rows = np.zeros(n)
    out = None
    if flag:
        out = np.zeros(n)
    for i in range(n):
        rows[i] = i
        if flag:
            out[i] = 2 * i
    while flag:
        flag = False
    return rows, out


def truth_of_tuple(t):
    if t:
        return 1
    return 2


def test_branch_on_a_value_of_known_truth():
    # None (an argument given as None), an empty or non-empty tuple: the truth is known from the
    # type, the other side is never compiled (an umap helper passes return_dists=None)
    for flag in (None, True, False, 0):
        check(truth_of_none_arg, 3, flag)
    for t in ((), (1,), (1.5, 2)):
        check(truth_of_tuple, t)
