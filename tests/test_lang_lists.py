"""Lists in compiled code: literals, [] typed by later use, append, pop, indexing, item
assignment, len, truth, iteration, sort, clear; lists of numbers, tuples, arrays and lists; lists
passed in (reflected: the caller sees the changes) and returned. Each function runs in CPython
and compiled on copies of the same arguments: results, exceptions and the argument lists
afterwards must agree."""
import copy
import heapq

import numpy as np
import pytest

import pyjit
from pyjit import errors
from util import assert_same


def run_both(f, *args):
    """f in CPython and compiled on deep copies of args: (result or exception class, args after)."""
    outcomes = []
    for run in (f, pyjit.njit(f)):
        a = copy.deepcopy(args)
        try:
            outcomes.append((run(*a), a))
        except Exception as exc:  # noqa: BLE001
            outcomes.append((type(exc), a))
    return outcomes


def check(f, *args):
    (expected, pargs), (got, cargs) = run_both(f, *args)
    if isinstance(expected, type):
        assert got is expected, f"{f.__name__}: CPython raised {expected}, compiled gave {got!r}"
    else:
        assert_same(expected, got, where=f.__name__)
    for pa, ca in zip(pargs, cargs):
        if isinstance(pa, list):
            assert_same(pa, ca, where=f"{f.__name__}: a list argument after the call")


# ---- building and reading ------------------------------------------------------------------

def squares(n):
    out = []
    for i in range(n):
        out.append(i * i)
    return out


def halves(n):
    out = []
    for i in range(n):
        out.append(i / 2)
    return out, len(out)


def literal_then_append(x):
    items = [1.0, 2.5, x]
    items.append(x * 2)
    return items[0] + items[-1], items


def ints_widened_by_a_float(n):
    items = [1, 2]
    items.append(n / 4)   # the list becomes a list of floats, as a homogeneous list must
    return items[0] + items[2]


def read_negative(n):
    items = [10, 20, 30]
    return items[n]


def assign(n):
    items = [0] * 0
    for i in range(n):
        items.append(0)
    for i in range(n):
        items[i] = i * 3
    items[-1] = -1
    return items


def tuples(n):
    pairs = []
    for i in range(n):
        pairs.append((i, float(i) * 0.5))
    total = 0.0
    for k, v in pairs:
        total += k * v
    return total, pairs


def truth_and_len(n):
    items = []
    for i in range(n):
        items.append(i)
    if items:
        return len(items)
    return -1


@pytest.mark.parametrize("f, args", [
    (squares, (0,)), (squares, (7,)), (halves, (5,)), (literal_then_append, (3.5,)),
    (ints_widened_by_a_float, (3,)), (read_negative, (-1,)), (read_negative, (-3,)),
    (read_negative, (3,)), (read_negative, (-4,)), (assign, (4,)), (assign, (0,)), (tuples, (6,)),
    (truth_and_len, (0,)), (truth_and_len, (3,)),
])
def test_build_and_read(f, args):
    check(f, *args)


# ---- pop, clear, sort ------------------------------------------------------------------------

def pops(n):
    items = [1.5, 2.5, 3.5, 4.5]
    a = items.pop()
    b = items.pop(0)
    c = items.pop(n)
    return a, b, c, items


def pop_empty():
    items = [1]
    items.pop()
    return items.pop()


def clear_then_use(n):
    items = [1, 2, 3]
    items.clear()
    for i in range(n):
        items.append(i)
    return items


def sort_numbers(xs):
    xs.sort()
    return xs[0], xs


@pytest.mark.parametrize("f, args", [
    (pops, (0,)), (pops, (-1,)), (pops, (1,)), (pops, (2,)), (pop_empty, ()), (clear_then_use, (3,)),
    (sort_numbers, ([3.5, -1.0, 2.0, float("nan"), 0.0],)), (sort_numbers, ([5, 3, 9, -2],)),
])
def test_pop_clear_sort(f, args):
    check(f, *args)


# ---- loops over lists ------------------------------------------------------------------------

def running_sum(xs):
    total = 0.0
    for x in xs:
        total += x
    return total


def grows_while_iterating(n):
    items = [1]
    count = 0
    for x in items:
        if len(items) < n:
            items.append(x + 1)
        count += 1
    return count, items


def enumerated(xs):
    best, at = xs[0], 0
    for i, x in enumerate(xs):
        if x > best:
            best, at = x, i
    return best, at


def zipped(xs, ys):
    s = 0
    for x, y in zip(xs, ys):
        s += x * y
    return s


@pytest.mark.parametrize("f, args", [
    (running_sum, ([1.0, 2.0, 3.5],)), (running_sum, ([4, 5, 6],)), (grows_while_iterating, (5,)),
    (enumerated, ([3, 9, 2, 9],)), (zipped, ([1, 2, 3], [4, 5, 6, 7])),
])
def test_loops(f, args):
    check(f, *args)


# ---- arrays and lists in lists -------------------------------------------------------------

def list_of_arrays(n):
    rows = []
    for i in range(n):
        rows.append(np.arange(3.0) + i)
    total = 0.0
    for r in rows:
        total += r.sum()
    first = rows.pop(0)
    return total, first, rows


def list_of_lists(n):
    grid = []
    for i in range(n):
        row = []
        for j in range(i + 1):
            row.append(i * j)
        grid.append(row)
    grid[0] = [7]
    return grid, len(grid[-1])


def arrays_passed_in(arrays):
    total = 0.0
    for a in arrays:
        total += a.sum()
    arrays.append(np.zeros(2))
    return total


@pytest.mark.parametrize("f, args", [
    (list_of_arrays, (4,)), (list_of_lists, (4,)), (arrays_passed_in, ([np.ones(3), np.arange(4.0)],)),
])
def test_counted_items(f, args):
    check(f, *args)


# ---- across the boundary -------------------------------------------------------------------

def mutate(xs):
    xs.append(xs[0] * 2)
    xs[0] = -1
    return len(xs)


def test_reflected_list_changes_are_seen_by_the_caller():
    xs = [1, 2, 3]
    assert pyjit.njit(mutate)(xs) == 4
    assert xs == [-1, 2, 3, 2]


def identity(xs):
    xs.append(0.5)
    return xs


def test_returning_the_argument_returns_the_same_list():
    xs = [1.0]
    out = pyjit.njit(identity)(xs)
    assert out is xs and xs == [1.0, 0.5]


def raises_after_change(xs):
    xs.append(9)
    return xs[100]


def test_changes_before_an_exception_are_kept():
    xs = [1]
    with pytest.raises(IndexError, match="list index out of range"):
        pyjit.njit(raises_after_change)(xs)
    assert xs == [1, 9]


def only_reads(xs):
    return xs[0] + xs[-1]


def test_ints_in_a_float_list_convert_and_floats_in_an_int_list_do_not():
    f = pyjit.njit(only_reads)
    assert f([1.5, 2]) == 3.5
    with pytest.raises(TypeError, match="list item 1 is float"):
        f([1, 2.5])


def test_bad_list_arguments_are_type_errors():
    f = pyjit.njit(only_reads)
    with pytest.raises(TypeError, match="empty list"):
        f([])
    with pytest.raises(TypeError, match="list of lists"):
        f([[1]])


def test_million_calls_keep_memory_flat():
    """10^6 calls that build lists (of numbers, of new arrays, of lists) and return them."""
    from util import memory_in_use
    f, g, h = pyjit.njit(list_of_arrays), pyjit.njit(squares), pyjit.njit(list_of_lists)
    for _ in range(20000):
        f(3), g(20), h(3)
    before = memory_in_use()
    for _ in range(1_000_000):
        f(3), g(20), h(3)
    grown = memory_in_use() - before
    assert grown < 8 << 20, f"memory grew {grown / (1 << 20):.1f} MB over 10^6 calls building lists"


# ---- what is refused -------------------------------------------------------------------------

def never_typed():
    items = []
    return len(items)


def mixed():
    return [1, (2, 3)]


def test_empty_list_never_filled_is_a_typing_error_naming_the_line():
    with pytest.raises(errors.TypingError, match=r"(?s)items is unknown.*line \d+"):
        pyjit.njit(never_typed)()


def test_mixed_items_are_a_typing_error():
    with pytest.raises(errors.TypingError, match="a list holds one type"):
        pyjit.njit(mixed)()


# ---- methods written in the subset (pyjit/lib/lists.py) and `in` ---------------------------

def methods(xs, v, at):
    ys = xs.copy()
    ys.insert(at, v)
    ys.insert(-100, v)
    ys.insert(100, v)
    n = ys.count(v)
    i = ys.index(v)
    j = ys.index(v, i + 1)
    ys.remove(v)
    ys.reverse()
    return n, i, j, ys, xs


def index_missing(xs, v):
    return xs.index(v)


def remove_missing(xs, v):
    xs.remove(v)


def contains(xs, v):
    return v in xs, v not in xs, (v + 1) in xs


@pytest.mark.parametrize("f, args", [
    (methods, ([1, 2, 3], 2, 1)), (methods, ([1.5, 2.5], 7.0, -1)), (methods, ([4], 4, 0)),
    (index_missing, ([1, 2], 3)), (remove_missing, ([1, 2], 3)),
    (contains, ([1, 2, 3], 2)), (contains, ([1.5, 2.5], 1.5)), (contains, ([1, 2, 3], 2.0)),
])
def test_methods_and_in(f, args):
    check(f, *args)


def test_index_and_remove_messages_are_cpythons():
    with pytest.raises(ValueError, match=r"^list.index\(x\): x not in list$"):
        pyjit.njit(index_missing)([1, 2], 3)
    with pytest.raises(ValueError, match=r"^list.remove\(x\): x not in list$"):
        pyjit.njit(remove_missing)([1, 2], 3)


# ---- builtins and NumPy over lists -----------------------------------------------------------

def builtins_over_lists(xs):
    return sum(xs), sum(xs, 10), min(xs), max(xs), sorted(xs), sorted(xs, reverse=True), list(xs)


def list_of_range_and_array(n):
    return list(range(n)), len(list(np.arange(n)))


def empty_extreme(xs):
    xs.clear()
    return min(xs)


def to_arrays(n):
    rows = []
    for i in range(n):
        rows.append([i, i * 2])
    flat = [0.5, 1.0, 1.5]
    return np.array(rows), np.array(flat), np.asarray(flat), np.array([True, False]), \
        np.array([[1.5, 2.0], [3.0, 4.0]]), np.array([1, 2], dtype=np.float32)


def ragged():
    return np.array([[1, 2], [3]])


@pytest.mark.parametrize("f, args", [
    (builtins_over_lists, ([3, 1, 2, 1],)), (builtins_over_lists, ([2.5, -1.0, 7.0],)),
    (list_of_range_and_array, (4,)), (empty_extreme, ([1],)), (to_arrays, (3,)), (to_arrays, (1,)),
    (ragged, ()),
])
def test_builtins_and_numpy(f, args):
    check(f, *args)


# ---- list comprehensions ---------------------------------------------------------------------
# CPython 3.11 compiles a comprehension as a nested function, which pyjit compiles as a callee
# (its outer variables passed by value); 3.12 inlines it into the function (PEP 709), which pyjit
# compiles as the loop it is. The same tests run on both.


def squares_of_positives(a, k):
    return [x * x * k for x in a if x > 0]


def nested_comprehension(n):
    return [[i * j for j in range(i)] for i in range(n)]


def comprehension_of_list(xs):
    ys = [x + 1 for x in xs]
    return sum([y * y for y in ys]), ys


def comprehension_over_pairs(xs, ys):
    return [x * y for x, y in zip(xs, ys)], [i + x for i, x in enumerate(xs)]


def comprehension_in_loop(n):
    total = 0
    for k in range(n):
        total += len([j for j in range(k) if j % 2 == 0])
    return total


def comprehension_of_arrays(n):
    rows = [np.arange(3.0) * i for i in range(n)]
    return np.array([r.sum() for r in rows])


@pytest.mark.parametrize("f, args", [
    (squares_of_positives, (np.array([1.0, -2.0, 3.0]), 2.0)), (nested_comprehension, (4,)),
    (comprehension_of_list, ([1, 2, 3],)), (comprehension_over_pairs, ([1, 2, 3], [4, 5, 6])),
    (comprehension_in_loop, (6,)), (comprehension_of_arrays, (4,)),
])
def test_list_comprehensions(f, args):
    check(f, *args)


# ---- slicing ---------------------------------------------------------------------------------

def slices(xs, a, b, c):
    return xs[a:b], xs[::c], xs[a:], xs[:b], xs[::-1], xs[a:b:c]


def slice_of_arrays(n):
    rows = []
    for i in range(n):
        rows.append(np.arange(2.0) + i)
    tail = rows[1:]
    rows.clear()
    return tail


@pytest.mark.parametrize("args", [
    ([1, 2, 3, 4, 5], 1, 4, 2), ([1.5, 2.5, 3.5], -2, 10, -1), ([7], 0, 0, 3), ([4, 5, 6, 7], -100, -1, -2),
])
def test_slicing(args):
    check(slices, *args)
    check(slice_of_arrays, 3)


def slice_objects(xs, a, b, c):
    """slice() made in compiled code, used on lists and arrays as a[a:b:c] is."""
    s, t, u = slice(a, b, c), slice(b), slice(a, None)
    arr = np.asarray(xs)
    return xs[s], xs[t], xs[u], arr[s].sum(), arr[slice(None, None, -1)][0], s.indices(len(xs))


@pytest.mark.parametrize("args", [
    ([1, 2, 3, 4, 5], 1, 4, 2), ([1.5, 2.5, 3.5], -2, 10, -1), ([4, 5, 6, 7], -100, -1, -2),
])
def test_slice_objects(args):
    check(slice_objects, *args)


def slice_fields(a, b, c):
    s, t, u = slice(a, b, c), slice(b), slice(None, None, -c)
    return s.start, s.stop, s.step, t.start, t.stop, t.step, u.start, u.stop, u.step


def test_slice_fields_as_numba():
    """A None start or stop reads as Numba's (its slices hold none): 0 or the largest int64 for
    start, the largest or the smallest int64 for stop, by the step's sign; a None step is 1."""
    big = 2 ** 63 - 1
    assert pyjit.njit(slice_fields)(1, 4, 2) == (1, 4, 2, 0, 4, 1, big, -big - 1, -2)
    assert pyjit.njit(slice_fields)(-3, -1, 5) == (-3, -1, 5, 0, -1, 1, big, -big - 1, -5)


def bad_slice(xs):
    return xs[slice(1.5, 3)]


def test_slice_of_a_float_is_a_typing_error():
    with pytest.raises(errors.TypingError, match="slice indices must be integers or None"):
        pyjit.njit(bad_slice)([1, 2, 3])


def zero_step(xs):
    return xs[::0]


def test_slice_step_zero_is_a_value_error():
    check(zero_step, [1, 2])


def sort_reversed(xs, flag):
    xs.sort(reverse=True)
    ys = xs.copy()
    ys.sort(reverse=flag)
    zs = xs.copy()
    zs.sort(key=None)
    return xs, ys, zs


def sort_with_key(xs):
    xs.sort(key=abs)
    return xs


@pytest.mark.parametrize("args", [([3, 1, 2, 5, 4], False), ([2.5, -1.0, 9.0], True), ([1], True), ([7, 3], True)])
def test_sort_reverse(args):
    check(sort_reversed, *args)


def test_sort_key_builtin():
    check(sort_with_key, [1, -2, 0, 3, -1])


def extended_twice_after_appends(n):
    items = []
    for i in range(n):
        items.append(i * 7 % 1009)
    items += [5]
    items += [7]   # the list's type comes from the loop, typed in the same round as these
    return sorted(items)[0] + items[-1] + len(items)


def test_augmented_additions_after_appends_are_typed():
    """Found by the fuzzer: the second += saw the first one's result before the loop had typed
    the list, and was refused."""
    check(extended_twice_after_appends, 4)
    check(extended_twice_after_appends, 0)


# ---- slice assignment and del -----------------------------------------------------------------

def assign_slice(xs, ys, a, b):
    xs[a:b] = ys
    return len(xs)


def assign_open_slices(xs, ys):
    xs[:1] = ys
    xs[len(xs) - 1:] = ys
    xs[:] = xs + ys
    return xs


def assign_itself(xs):
    xs[1:] = xs
    return xs


def assign_extended(xs, ys, a, b, c):
    xs[a:b:c] = ys


@pytest.mark.parametrize("args", [
    ([1, 2, 3, 4], [7, 8, 9], 1, 3), ([1, 2, 3, 4], [7], 1, 3), ([1, 2, 3, 4], [7], 0, 4),
    ([1.5, 2.5], [7.5, 8.5, 9.5], 2, 2), ([1, 2, 3, 4], [7, 8], 3, 1), ([1, 2, 3, 4], [7, 8], -3, -1),
    ([1, 2, 3], [9], -10, 10), ([1, 2, 3, 4, 5], [0, 0, 0, 0], 1, -1),
])
def test_slice_assignment(args):
    check(assign_slice, *args)


def test_slice_assignment_open_and_of_itself():
    check(assign_open_slices, [1, 2, 3], [8, 9])
    check(assign_itself, [1, 2, 3])


@pytest.mark.parametrize("args", [
    ([1, 2, 3, 4], [7, 8], 0, 4, 2), ([1, 2, 3, 4, 5], [7, 8, 9], 4, 0, -2), ([1, 2, 3], [7], 0, 3, 2),
    ([1, 2, 3, 4], [7, 8, 9], 0, 4, 2), ([1, 2, 3, 4], [9, 8, 7, 6], 0, 4, -1),
])
def test_extended_slice_assignment(args):
    """As many items as the slice selects, else ValueError, as CPython."""
    check(assign_extended, *args)


def del_item(xs, i):
    del xs[i]
    return xs


def del_slice(xs, a, b, c):
    del xs[a:b:c]
    return len(xs)


def del_in_loop(n):
    items = []
    for i in range(n):
        items.append(i * i)
    while len(items) > 2:
        del items[1]
        del items[-1:]
    return items


@pytest.mark.parametrize("args", [([1, 2, 3], 0), ([1, 2, 3], -1), ([1.5, 2.5], 1), ([1, 2], 2),
                                  ([1, 2], -3)])
def test_del_item(args):
    check(del_item, *args)


@pytest.mark.parametrize("args", [
    ([1, 2, 3, 4, 5], 1, 3, 1), ([1, 2, 3, 4, 5], 0, 5, 2), ([1, 2, 3, 4, 5, 6], 5, 0, -2),
    ([1, 2, 3, 4, 5, 6], -1, -7, -1), ([1, 2, 3], 3, 1, 1), ([1, 2, 3, 4, 5], 1, 100, 3),
    ([1, 2, 3, 4, 5], -2, 100, 1),
])
def test_del_slice(args):
    check(del_slice, *args)


def test_del_in_loop():
    check(del_in_loop, 7)


# ---- heapq over lists ----

def heap_sort_push_pop(values):
    heap = [values[0]]   # as in Numba, a heap's item type comes from an item it starts with
    for v in values[1:]:
        heapq.heappush(heap, v)
    snapshot = list(heap)
    out = []
    while heap:
        out.append(heapq.heappop(heap))
    return snapshot, out


def heapify_replace_pushpop(values, x):
    heapq.heapify(values)
    first = heapq.heapreplace(values, x)
    second = heapq.heappushpop(values, x + 1)
    third = heapq.heappushpop(values, -1000)
    return first, second, third


def priority_queue(pairs):
    heap = [(0.0, 0)]
    heap.pop()
    for d, n in pairs:
        heapq.heappush(heap, (d, n))
    order = []
    while len(heap) > 0:
        order.append(heapq.heappop(heap)[1])
    return order


def smallest_largest(values, n):
    return heapq.nsmallest(n, values), heapq.nlargest(n, values)


def pop_empty(values):
    return heapq.heappop(values)


@pytest.mark.parametrize("f, args", [
    (heap_sort_push_pop, ([5, 1, 8, 3, 3, 9, 0, -2],)),
    (heap_sort_push_pop, ([2.5, -1.0, 7.25, 0.0],)),
    (heapify_replace_pushpop, ([9, 4, 7, 1, 8, 2, 2, 6], 5)),
    (priority_queue, ([(2.0, 1), (0.5, 2), (2.0, 0), (1.0, 3), (0.5, 1)],)),
    (smallest_largest, ([4, 1, 7, 1, 9, 3], 3)),
    (smallest_largest, ([4, 1, 7], -1)),
    (pop_empty, ([1],)),
    (pop_empty, ([0],)),
])
def test_heapq_matches_cpython(f, args):
    # the lists are left in CPython's order too (check compares the arguments afterwards)
    check(f, *args)


def test_heapq_pop_of_an_empty_list_is_an_index_error():
    def f(n):
        h = [1]
        for _ in range(n):
            heapq.heappop(h)
        return len(h)
    (expected, _), (got, _) = run_both(f, 2)
    assert expected is IndexError and got is IndexError


# ---- lists of tuples holding strings and arrays: pop, indexing, sort keys ----

def pop_tuples_with_strings(words):
    pairs = [(len(w), w) for w in words]
    first = pairs.pop(0)
    last = pairs.pop()
    return first, last, pairs[0], pairs


def pop_tuples_with_arrays(n):
    out = 0.0
    for i in range(n):
        items = [(i, np.ones(3) * i), (i + 1, np.zeros(2))]
        k, a = items.pop(0)
        out += k + a.sum() + items[0][1].sum()
    return out


def rank_words(words):
    return sorted(words, key=lambda w: (-len(w), w))


def sorted_characters(word):
    return "".join(sorted(word)), sorted(word, reverse=True)


@pytest.mark.parametrize("f, args", [
    (pop_tuples_with_strings, (["kiwi", "fig", "banana", "plum"],)),
    (pop_tuples_with_arrays, (5,)),
    (rank_words, (["bb", "a", "ccc", "dd", "b"],)),
    (sorted_characters, ("banana",)),
    (sorted_characters, ("",)),
])
def test_lists_of_tuples_holding_references(f, args):
    check(f, *args)


def test_popping_tuples_of_arrays_does_not_leak():
    from util import memory_in_use
    f = pyjit.njit(pop_tuples_with_arrays)
    f(2000)
    before = memory_in_use()
    f(200_000)
    assert memory_in_use() - before < 8 * 2**20
