"""Indices of the form i + c and i - c (c a constant), and i - j: the sign test that wraps a negative index
is asked of i, and the contiguous axis is indexed by items. Results and errors as CPython's."""
import numpy as np
import pytest

from pyjit import njit
from util import assert_same


def plus_one(a, i):
    return a[i + 1]


def minus_two(a, i):
    return a[i - 2]


def one_plus(a, i):
    return a[1 + i]


def rows_cols(a, i, j):
    return a[i - 1, j + 1]


def store_shifted(a, i):
    a[i + 1] = a[i] + a[i - 1]
    return a


def outcome(f, *args):
    """(result, None), or (None, IndexError). NumPy raises OverflowError for an index past
    int64 (a sum that wraps in compiled code, where the index is then out of bounds)."""
    try:
        return f(*args), None
    except (IndexError, OverflowError):
        return None, IndexError


BIG = 2**63 - 1
EDGES = [-2**63, -2**63 + 1, BIG - 1, BIG]


@pytest.mark.parametrize("f", [plus_one, minus_two, one_plus])
@pytest.mark.parametrize("layout", ["C", "strided"])
def test_offsets_wrap_and_check_as_python(f, layout):
    base = np.arange(14.0)
    a = base[:7] if layout == "C" else base[::2]
    g = njit(f)
    for i in list(range(-10, 10)) + EDGES:
        expected, got = outcome(f, a, i), outcome(g, a, i)
        assert got[1] == expected[1], (i, expected, got)
        if expected[1] is None:
            assert_same(expected[0], got[0], where=f"i={i}")


def difference(a, i, j):
    return a[i - j]


def lagged_sum(a, w):
    s = 0.0
    for i in range(a.size):
        if i >= w:
            s += a[i - w]
        else:
            s -= a[i - w]   # negative: from the end
    return s


@pytest.mark.parametrize("layout", ["C", "strided"])
def test_difference_of_two_indices(layout):
    """a[i - j]: negative when i < j (wrapped from the end), out of bounds as CPython's, and a
    difference past int64 (which wraps in compiled code) out of bounds too."""
    base = np.arange(14.0)
    a = base[:7] if layout == "C" else base[::2]
    g = njit(difference)
    for i in list(range(-9, 9)) + EDGES:
        for j in list(range(-9, 9)) + EDGES:
            expected, got = outcome(difference, a, i, j), outcome(g, a, i, j)
            assert got[1] == expected[1], (i, j, expected, got)
            if expected[1] is None:
                assert_same(expected[0], got[0], where=f"i={i}, j={j}")
    h = njit(lagged_sum)
    x = np.random.default_rng(2).standard_normal(50)
    for w in (0, 1, 7, 50):
        assert_same(lagged_sum(x, w), h(x, w))
    for w in (51, -1):
        assert outcome(lagged_sum, x, w)[1] == outcome(h, x, w)[1]


@pytest.mark.parametrize("order", ["C", "F"])
def test_offsets_of_two_axes(order):
    a = np.asarray(np.arange(20.0).reshape(4, 5), order=order)
    g = njit(rows_cols)
    for i in range(-6, 6):
        for j in list(range(-7, 6)) + [BIG]:
            expected, got = outcome(rows_cols, a, i, j), outcome(g, a, i, j)
            assert got[1] == expected[1], (i, j, expected, got)
            if expected[1] is None:
                assert_same(expected[0], got[0], where=f"i={i}, j={j}")


def test_store_at_an_offset():
    g = njit(store_shifted)
    for i in range(-7, 8):
        expected, got = outcome(store_shifted, np.arange(6.0), i), outcome(g, np.arange(6.0), i)
        assert got[1] == expected[1], (i, expected, got)
        if expected[1] is None:
            assert_same(expected[0], got[0], where=f"i={i}")


def insertion_sort(a):
    b = a.copy()
    for i in range(1, b.shape[0]):
        key = b[i]
        j = i - 1
        while j >= 0 and b[j] > key:
            b[j + 1] = b[j]
            j -= 1
        b[j + 1] = key
    return b


@pytest.mark.parametrize("n", [0, 1, 2, 17])
def test_while_loop_index_below_the_test(n):
    a = np.random.default_rng(n).random(n)
    assert_same(insertion_sort(a), njit(insertion_sort)(a))


def shift_down_from(b, start, key):
    """Insertion sort's inner loop from any start: the test of b[j] does not change in the loop
    once j only counts down, and is taken out of it: out of bounds from the first trip or later."""
    j = start
    while j >= 0 and b[j] > key:
        b[j + 1] = b[j]
        j -= 1
    return b, j


@pytest.mark.parametrize("start", [-1, 0, 3, 8, 9, 10, 40])
def test_while_loop_counting_down_from_any_start(start):
    a = np.random.default_rng(start + 1).random(10)
    want = outcome(shift_down_from, a.copy(), start, 0.2)
    got = outcome(njit(shift_down_from), a.copy(), start, 0.2)
    assert got[1] is want[1]
    if want[1] is None:
        assert_same(want[0][0], got[0][0])
        assert want[0][1] == got[0][1]


def modulo(a, b):
    return a % b


def neighbours(s):
    n = s.shape[0]
    out = np.empty_like(s)
    for j in range(n):
        out[j] = s[(j + 1) % n] + s[j - 1]
    return out


def test_modulo_by_a_variable_below_and_above_the_divisor():
    g = njit(modulo)
    for a in list(range(-9, 10)) + [2**63 - 1, -2**63]:
        for b in list(range(-4, 5)) + [2**63 - 1, -2**63]:
            try:
                expected = (a % b + 2**63) % 2**64 - 2**63   # as int64
            except ZeroDivisionError:
                with pytest.raises(ZeroDivisionError):
                    g(a, b)
                continue
            assert g(a, b) == expected, (a, b)


def test_modulo_of_unsigned_ints():
    g = njit(modulo)
    for a in [0, 1, 5, 2**64 - 1]:
        for b in [1, 3, 5, 6, 2**63 + 1]:
            assert g(np.uint64(a), np.uint64(b)) == np.uint64(a) % np.uint64(b), (a, b)


@pytest.mark.parametrize("n", [1, 2, 9])
def test_wrap_around_neighbours(n):
    s = np.arange(float(n))
    assert_same(neighbours(s), njit(neighbours)(s))


def pairs_after(a, start, step):
    """Range loop variables as indices: j counts up from i + 1 (never negative, no wrap needed),
    k from a start that may be negative (wrapped from the end), m down to negative values."""
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s += a[j] * (i + 1)
    for k in range(start, n, step):
        s += a[k] * 3.0
    for m in range(n - 1, start, -1):
        s += a[m]
    for i in range(2, n):
        for j in range(i - 3, i):
            s -= a[j]
    return s


@pytest.mark.parametrize("start", [-8, -7, -3, 0, 2, 7, 8])
@pytest.mark.parametrize("step", [1, 2, 3])
def test_range_variables_as_indices(start, step):
    a = np.random.default_rng(start + 20).random(7)
    want, got = outcome(pairs_after, a, start, step), outcome(njit(pairs_after), a, start, step)
    assert got[1] == want[1], (start, step, want, got)
    if want[1] is None:
        assert_same(want[0], got[0], where=f"start={start}, step={step}")


def counted_from(a, lo, hi):
    s = 0.0
    for i in range(lo, hi):
        for j in range(i + 3, hi + 3):
            s += a[j]
    return s


def test_range_start_past_int64_is_out_of_bounds():
    """j in range(i + 3, ...) is taken as never negative; where i + 3 wraps past int64 the index
    is out of bounds, raised as such (checked), as CPython's is."""
    a = np.arange(5.0)
    g = njit(counted_from)
    for lo, hi in [(0, 2), (BIG - 2, BIG), (BIG - 1, BIG)]:
        want, got = outcome(counted_from, a, lo, hi), outcome(g, a, lo, hi)
        assert got[1] == want[1], (lo, hi, want, got)
        if want[1] is None:
            assert_same(want[0], got[0])


def shifted_by(a, out, rise, flat):
    """Offsets by values fixed before the loop (a trapezoidal filter's w[i - rise - flat]), a
    reversed index and a scaled one: the loop's flag covers them, and where they leave the array
    (or wrap from its end) the checked loop runs, raising where CPython does."""
    n = a.shape[0]
    for i in range(rise, n):
        out[i] = out[i - 1] + a[i] - a[i - rise] - a[i - rise - flat]
    s = 0.0
    for i in range(flat, n - rise):
        s += a[n - 1 - i] * a[2 * i - flat] + a[i + rise * 2 - 3 * flat]
    return s


@pytest.mark.parametrize("rise,flat", [(1, 0), (2, 1), (3, 2), (0, 0), (1, 5), (-2, 1), (2, -3),
                                       (9, 1), (1, BIG), (-BIG, 2), (2**62, 2**62)])
def test_offsets_by_loop_invariant_values(rise, flat):
    a = np.random.default_rng(abs(rise) % 97 + abs(flat) % 89).random(9)
    g = njit(shifted_by)
    o1, o2 = np.zeros(9), np.zeros(9)
    want, got = outcome(shifted_by, a, o1, rise, flat), outcome(g, a, o2, rise, flat)
    assert got[1] == want[1], (rise, flat, want, got)
    assert_same(o1, o2, where=f"rise={rise}, flat={flat}")   # what was stored before a raise too
    if want[1] is None:
        assert_same(want[0], got[0], where=f"rise={rise}, flat={flat}")


def rows_shifted(w, rise):
    """Offsets by an argument into rows taken in the loop around."""
    out = np.empty_like(w)
    for r in range(w.shape[0]):
        w_in = w[r]
        w_out = out[r]
        w_out[0] = w_in[0]
        for i in range(1, w.shape[1]):
            w_out[i] = w_out[i - 1] + w_in[i] - w_in[i - rise]
    return out


@pytest.mark.parametrize("rise", [1, 3, 6, 7, 0, -1, -6, -7])
def test_offsets_into_rows_of_the_loop_around(rise):
    w = np.random.default_rng(5).random((3, 6))
    want, got = outcome(rows_shifted, w, rise), outcome(njit(rows_shifted), w, rise)
    assert got[1] == want[1], (rise, want, got)
    if want[1] is None:
        assert_same(want[0], got[0], where=f"rise={rise}")


def merge_walk(a, b, start, stop):
    """Counters of a while loop, each incremented on its own branch (a merge): from 0 they are
    never negative and index without a wrap; from a negative start they wrap as Python's."""
    i = start
    j = 0
    k = 0
    s = 0.0
    while i < stop and j < b.shape[0]:
        if a[i] <= b[j]:
            s += a[i] * (k + 1)
            i += 1
        else:
            s -= b[j]
            j += 2
        k += 1
    while i < stop:
        s += a[i]
        i += 1
    return s + k


@pytest.mark.parametrize("start,stop", [(0, 7), (0, 9), (2, 5), (-3, 7), (-9, 2), (-7, 0), (6, 7)])
def test_counters_of_while_loops_as_indices(start, stop):
    g = np.random.default_rng(11)
    a, b = np.sort(g.random(7)), np.sort(g.random(5))
    want, got = outcome(merge_walk, a, b, start, stop), outcome(njit(merge_walk), a, b, start, stop)
    assert got[1] == want[1], (start, stop, want, got)
    if want[1] is None:
        assert_same(want[0], got[0], where=f"start={start}, stop={stop}")


def guarded_lag(x, w):
    """An offset by a variable under a test (a rolling window's x[i - w] once i >= w): the flag
    leaves it to its own check, and covers the others."""
    n = x.shape[0]
    out = np.empty(n)
    s = 0.0
    for i in range(n):
        s += x[i]
        if i >= w:
            s -= x[i - w]
        out[i] = s
    return out


@pytest.mark.parametrize("w", [0, 1, 3, 8, 9, -1, -8, -9])
def test_offsets_by_variables_under_a_test(w):
    x = np.random.default_rng(3).random(8)
    want, got = outcome(guarded_lag, x, w), outcome(njit(guarded_lag), x, w)
    assert got[1] == want[1], (w, want, got)
    if want[1] is None:
        assert_same(want[0], got[0], where=f"w={w}")


def backward_difference(x, out, start):
    """x[i - 1] from i = 0 wraps to the last item at the first trip only: the loop's flag asks
    [-n, n) of that index and keeps its wrap."""
    for i in range(start, x.shape[0]):
        out[i] = x[i] - x[i - 1]
    return out


@pytest.mark.parametrize("n_out", [8, 5, 0])
@pytest.mark.parametrize("start", [0, 1, -3, -8, -9, -20])
def test_offsets_below_zero_at_the_first_trip(n_out, start):
    x = np.random.default_rng(7).random(8)
    o1, o2 = np.zeros(n_out), np.zeros(n_out)
    want = outcome(backward_difference, x, o1, start)
    got = outcome(njit(backward_difference), x, o2, start)
    assert got[1] == want[1], (n_out, start, want, got)
    assert_same(o1, o2, where=f"n_out={n_out}, start={start}")   # stored before a raise too


def periodic_laplacian(u, m, k):
    """Periodic boundaries by remainders, `(j + 1) % m` (in bounds of an axis of at least m
    items when m > 0, whatever j), beside u[i - 1, ...] and u[..., j - 1] from 0."""
    n = u.shape[0]
    out = np.zeros_like(u)
    for i in range(n):
        for j in range(k):
            out[i, j] = u[(i + 1) % n, j] + u[i - 1, j] + u[i, (j + 1) % m] + u[i, j - 1] - 4.0 * u[i, j]
    return out


@pytest.mark.parametrize("m,k", [(6, 6), (4, 6), (3, 2), (7, 6), (9, 3), (0, 6), (-2, 6), (-7, 6),
                                 (6, 7), (6, 0)])
def test_remainders_by_values_fixed_before_the_loop(m, k):
    u = np.random.default_rng(2).random((5, 6))
    want = None
    try:
        want = (periodic_laplacian(u, m, k), None)
    except (IndexError, ZeroDivisionError) as e:
        want = (None, type(e))
    try:
        got = (njit(periodic_laplacian)(u, m, k), None)
    except (IndexError, ZeroDivisionError) as e:
        got = (None, type(e))
    assert got[1] == want[1], (m, k, want, got)
    if want[1] is None:
        assert_same(want[0], got[0], where=f"m={m}, k={k}")


def ahead_under_a_test(x, y, w):
    """x[i + w] under a test that a later trip may skip: left to its own check, so that y[i]
    keeps the loop's flag even where x[i + w] leaves the array on skipped trips."""
    n = y.shape[0]
    for i in range(n):
        y[i] = 2.0 * i
        if i + w < x.shape[0]:
            y[i] += x[i + w]
    return y


@pytest.mark.parametrize("w", [0, 3, 8, 12, -2, -8, -13])
@pytest.mark.parametrize("n", [8, 10])
def test_offsets_under_a_test_that_later_trips_skip(w, n):
    x = np.random.default_rng(4).random(8)
    y1, y2 = np.zeros(n), np.zeros(n)
    want, got = outcome(ahead_under_a_test, x, y1, w), outcome(njit(ahead_under_a_test), x, y2, w)
    assert got[1] == want[1], (w, n, want, got)
    assert_same(y1, y2, where=f"w={w}, n={n}")


def two_pointer_walk(a, b, stop_a, step):
    """A while loop testing i < len(a) and j < len(b) at the top and, as CPython compiles it, at
    the bottom too: a[i] and b[j] need no check there, while b[j + 1], a[i] of a loop that tests
    i <= len(a), and c[i] of another array keep theirs and raise where CPython does."""
    i = j = 0
    s = 0.0
    while i < len(a) and j < len(b):
        s += a[i] * b[j]
        if i < stop_a:
            s += b[j + 1]
        i += 1
        j += step
    k = 0
    while k <= len(a):
        s += a[k]
        k += 1
    return s


def two_pointer_walk_only(a, b, stop_a, step):
    """two_pointer_walk without its last loop."""
    i = j = 0
    s = 0.0
    while i < len(a) and j < len(b):
        s += a[i] * b[j]
        if i < stop_a:
            s += b[j + 1]
        i += 1
        j += step
    return s


def other_array(a, c):
    i = 0
    s = 0.0
    while i < len(a):
        s += c[i]
        i += 1
    return s


def rows_of_a_loop_around(a):
    """The bound of the inner while loop changes in the loop around it."""
    s = 0.0
    for m in range(len(a), 0, -1):
        v = a[:m]
        i = 0
        while i < len(v):
            s += v[i] * m
            i += 1
    return s


@pytest.mark.parametrize("stop_a,step", [(0, 1), (3, 1), (9, 1), (9, 2), (2, 3)])
def test_while_tests_repeated_at_the_bottom(stop_a, step):
    a, b = np.arange(1.0, 8.0), np.arange(2.0, 9.0)
    want = outcome(two_pointer_walk, a, b, stop_a, step)
    got = outcome(njit(two_pointer_walk), a, b, stop_a, step)
    assert got[1] == want[1] == IndexError   # a[len(a)] at the end
    want = outcome(two_pointer_walk_only, a, b, stop_a, step)
    got = outcome(njit(two_pointer_walk_only), a, b, stop_a, step)
    assert got[1] == want[1], (stop_a, step, want, got)
    if want[1] is None:
        assert_same(want[0], got[0], where=f"stop_a={stop_a}, step={step}")
    for c in [np.arange(7.0), np.arange(4.0)]:
        want, got = outcome(other_array, a, c), outcome(njit(other_array), a, c)
        assert got[1] == want[1], (len(c), want, got)
        if want[1] is None:
            assert_same(want[0], got[0])
    assert_same(rows_of_a_loop_around(a), njit(rows_of_a_loop_around)(a))
