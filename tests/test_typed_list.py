"""pyjit.typed.List (Numba's numba.typed.List): a list whose memory Python and compiled code share.

From Python, every operation runs on a typed List and on a Python list of the same items; the
results, the exceptions and the lists afterwards must agree. In compiled code, each function
runs three ways: in CPython with `List` meaning a Python list (the reference), in CPython with
pyjit's List, and compiled; the results and the argument lists afterwards must agree. Then what
is typed-list specific: the memory is shared (no copy in, the same kind of object out), typed
and reflected lists are different types, wrong items are TypeErrors saying what was given, the
repr is Numba's, and round trips leak nothing."""
import copy
import os
import types as pytypes

import numpy as np
import pytest

import pyjit
from pyjit import errors, types
from pyjit.typed import List
from util import assert_same, memory_in_use


def plain(x):
    """A value with typed Lists turned into Python lists (inside tuples and lists too)."""
    if isinstance(x, (List, list)):
        return [plain(v) for v in x]
    if isinstance(x, tuple):
        return tuple(plain(v) for v in x)
    return x


def outcome(f, *args):
    try:
        return "ok", f(*args)
    except Exception as exc:  # noqa: BLE001
        return "raised", type(exc)


# ---- from Python: every operation against a Python list ----------------------------------

OPERATIONS = {
    "len": lambda l: len(l),
    "getitem": lambda l: l[1],
    "getitem_negative": lambda l: l[-1],
    "getitem_out_of_range": lambda l: l[10],
    "getitem_negative_out_of_range": lambda l: l[-10],
    "getitem_bad_index": lambda l: l["a"],
    "slice": lambda l: l[1:3],
    "slice_step": lambda l: l[::-2],
    "slice_empty": lambda l: l[5:1],
    "setitem": lambda l: l.__setitem__(0, 9.5),
    "setitem_negative": lambda l: l.__setitem__(-2, 7.0),
    "setitem_out_of_range": lambda l: l.__setitem__(4, 1.0),
    "setitem_int_into_floats": lambda l: l.__setitem__(0, 3),
    "delitem": lambda l: l.__delitem__(1),
    "setitem_bad_index": lambda l: l.__setitem__("a", 1.0),
    "setslice": lambda l: l.__setitem__(slice(1, 3), [7.0, 8.0, 9.0]),
    "setslice_step": lambda l: l.__setitem__(slice(None, None, 2), [0.0, 0.5, 1.0]),
    "setslice_step_wrong_length": lambda l: l.__setitem__(slice(None, None, 2), [0.0]),
    "delslice": lambda l: l.__delitem__(slice(1, None, 2)),
    "append": lambda l: l.append(4.25),
    "extend": lambda l: l.extend([1.0, 2.0]),
    "extend_self": lambda l: l.extend(l),
    "insert": lambda l: l.insert(1, 8.0),
    "insert_front_negative": lambda l: l.insert(-100, 8.0),
    "insert_past_end": lambda l: l.insert(100, 8.0),
    "pop": lambda l: l.pop(),
    "pop_index": lambda l: l.pop(0),
    "pop_negative": lambda l: l.pop(-2),
    "pop_out_of_range": lambda l: l.pop(7),
    "remove": lambda l: l.remove(2.0),
    "remove_missing": lambda l: l.remove(42.0),
    "index": lambda l: l.index(3.0),
    "index_start": lambda l: l.index(2.0, 2),
    "index_start_stop": lambda l: l.index(2.0, -3, -1),
    "index_missing": lambda l: l.index(42.0),
    "count": lambda l: l.count(2.0),
    "count_int": lambda l: l.count(2),
    "reverse": lambda l: l.reverse(),
    "sort": lambda l: l.sort(),
    "sort_reverse": lambda l: l.sort(reverse=True),
    "sort_key": lambda l: l.sort(key=lambda v: -v),
    "copy": lambda l: l.copy(),
    "clear": lambda l: l.clear(),
    "iterate": lambda l: [v * 2 for v in l],
    "contains": lambda l: (2.0 in l, 42.0 in l, 2 in l),
    "equal": lambda l: l == type(l)([3.0, 1.0, 2.0, 2.0, 5.0]),
    "not_equal": lambda l: l != type(l)([3.0]),
    "truth": lambda l: bool(l),
    "str": lambda l: str(l),
    "sum_min_max": lambda l: (sum(l), min(l), max(l)),
    "sorted": lambda l: sorted(l),
    "reversed": lambda l: list(reversed(l)),
    "iadd": lambda l: l.__iadd__([7.0, 8.0]) is l,
    "unpack_star": lambda l: (lambda a, *rest: (a, rest))(*l),
}


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_python_side_matches_list(name):
    op = OPERATIONS[name]
    items = [3.0, 1.0, 2.0, 2.0, 5.0]
    pl, tl = list(items), List(items)
    expected, got = outcome(op, pl), outcome(op, tl)
    assert expected[0] == got[0], f"{name}: list gave {expected}, typed List gave {got}"
    if expected[0] == "raised":
        assert got[1] is expected[1]
    else:
        assert_same(plain(expected[1]), plain(got[1]), where=name)
    # a typed List of float64 stores an int as a float, as compiled code's lists do
    assert_same([float(v) for v in pl], plain(tl), where=f"{name}: the list afterwards")


def test_slices_are_typed_lists_of_the_same_type():
    tl = List([1, 2, 3, 4])
    for part in (tl[1:], tl[::2], tl[3:1], tl.copy()):
        assert type(part) is List and part._dtype == types.int64
    part = tl[1:3]
    part[0] = 99
    assert plain(tl) == [1, 2, 3, 4]   # a slice is a copy, as a list's is


def test_error_messages_are_cpythons():
    pl, tl = [1.0], List([1.0])
    for op in (lambda l: l[3], lambda l: l.pop(5), lambda l: l.__setitem__(2, 0.0),
               lambda l: l.remove(7.0), lambda l: l.index(7.0), lambda l: l["x"]):
        with pytest.raises(Exception) as want:
            op(pl)
        with pytest.raises(want.type) as got:
            op(tl)
        assert str(got.value) == str(want.value)
    with pytest.raises(IndexError, match="pop from empty list"):
        List.empty_list(types.float64).pop()


def test_wrong_item_type_says_what_was_given_and_what_the_list_holds():
    tl = List([1.0, 2.0])
    with pytest.raises(TypeError, match=r"cannot store str in a typed List of float64"):
        tl.append("x")
    with pytest.raises(TypeError, match=r"cannot store complex in a typed List of float64"):
        tl[0] = 1j
    with pytest.raises(TypeError, match=r"cannot store str in a typed List of float64"):
        tl[0:1] = [3.0, "x"]   # all or nothing: the list is unchanged
    with pytest.raises(TypeError, match=r"typed List of int64"):
        List([1, 2]).append(2.5)   # a float does not fit an int list safely
    small = List.empty_list(types.int32)
    small.append(5)   # Python numbers are weak (NEP 50): they take the list's type
    floats = List.empty_list(types.float32)
    floats.append(0.5)
    assert small._dtype == types.int32 and plain(small) == [5] and plain(floats) == [0.5]
    with pytest.raises(TypeError, match=r"typed List of int32"):
        small.append(np.int64(5))   # a NumPy int64 does not fit int32 safely
    words = List()
    words.append("x")   # strings are items like any other
    assert words._dtype == types.unicode_type and list(words) == ["x"]
    with pytest.raises(TypeError, match=r"cannot hold list"):
        List([[1.0]])
    assert plain(tl) == [1.0, 2.0]


def test_constructors_and_item_types():
    assert plain(List(range(4))) == [0, 1, 2, 3]
    assert plain(List(x * 0.5 for x in range(3))) == [0.0, 0.5, 1.0]
    assert List()._dtype is None and len(List()) == 0
    assert List([True])._dtype == types.boolean
    assert List([np.float32(1)])._dtype == types.float32
    assert List.empty_list(types.float64[:])._dtype == types.float64[:]
    assert List.empty_list(types.UniTuple(types.int64, 2))._dtype == types.UniTuple(types.int64, 2)
    assert List.empty_list(types.ListType(types.int64))._dtype == types.ListType(types.int64)
    assert List.empty_list(float)._dtype == types.float64
    assert List.empty_list(np.int32)._dtype == types.int32
    with pytest.raises(TypeError, match="item type"):
        List.empty_list("not a type")


def test_repr_and_str_are_numbas():
    assert repr(List([1.0, 2.0])) == "ListType[float64]([1.0, 2.0])"
    assert str(List([1.0, 2.0])) == "[1.0, 2.0]"
    assert repr(List()) == "ListType[Undefined]([])"
    assert repr(List.empty_list(types.int64)) == "ListType[int64]([])"
    assert repr(List([List([1, 2]), List([3])])) == "ListType[ListType[int64]]([[1, 2], [3]])"
    assert repr(List([np.zeros(2)])) == "ListType[array(float64, 1d, C)]([[0. 0.]])"
    assert repr(types.ListType(types.float64)) == "ListType[float64]"
    assert types.ListType(types.float64).name == "typed_list(float64)"


def test_items_holding_memory():
    arrays = List([np.arange(3.0), np.ones(2)])
    first = arrays[0]
    del arrays   # the item array outlives the list that held it
    assert first.tolist() == [0.0, 1.0, 2.0]
    a = np.zeros(3)
    tl = List.empty_list(types.float64[:])
    tl.append(a)
    tl[0][1] = 5.0   # the list holds the array itself, not a copy
    assert a[1] == 5.0
    with pytest.raises(TypeError, match="array"):
        tl.append(np.zeros(3, dtype=np.int64))
    nested = List([List([1, 2])])
    nested[0].append(3)   # the inner list is shared, as a Python list's item is
    assert plain(nested) == [[1, 2, 3]]
    pairs = List([(1, 2.0), (0, 5.0)])
    pairs.sort()
    assert plain(pairs) == [(0, 5.0), (1, 2.0)]


def test_pickle_and_copies_keep_the_item_type():
    import pickle
    for tl in (List([1.0, 2.0]), List.empty_list(types.float32), List(), List([np.arange(3)]),
               List([List([1]), List([2, 3])])):
        for copied in (pickle.loads(pickle.dumps(tl)), copy.deepcopy(tl), copy.copy(tl)):
            assert type(copied) is List and copied._dtype == tl._dtype
            assert repr(copied) == repr(tl)
    inner = List([1])
    deep = copy.deepcopy(List([inner]))
    deep[0].append(2)
    assert plain(inner) == [1]


def test_not_hashable_and_a_mutable_sequence():
    import collections.abc
    with pytest.raises(TypeError):
        hash(List([1]))
    assert isinstance(List(), collections.abc.MutableSequence)


# ---- in compiled code: each function three ways --------------------------------------------

class ReferenceList(list):
    """What `List` means in the CPython reference run: a Python list."""

    @staticmethod
    def empty_list(item_type, allocated=None):
        return ReferenceList()


def with_list_class(f, cls):
    """f with its global `List` bound to cls."""
    g = dict(f.__globals__, List=cls)
    return pytypes.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)


def check(f, *args, python=True):
    """f's reference (Python lists), its run on typed Lists in CPython and compiled agree: results
    and the argument lists afterwards. args are given as Python lists where lists are meant.
    python=False leaves out the CPython run on typed Lists, for what only compiled code does
    (widening List()'s item type by a later append, +)."""
    ref_args = copy.deepcopy(args)
    expected = outcome(with_list_class(f, ReferenceList), *ref_args)
    runs = {"python": f, "compiled": pyjit.njit(f)} if python else {"compiled": pyjit.njit(f)}
    for how, run in runs.items():
        typed = tuple(List(a) if isinstance(a, list) else a for a in copy.deepcopy(args))
        got = outcome(run, *typed)
        assert expected[0] == got[0], f"{f.__name__} ({how}): reference {expected}, got {got}"
        if expected[0] == "raised":
            assert got[1] is expected[1], f"{f.__name__} ({how}): {got[1]} != {expected[1]}"
        else:
            assert_same(plain(expected[1]), plain(got[1]), where=f"{f.__name__} ({how})")
        for ra, ta in zip(ref_args, typed):
            if isinstance(ra, list):
                assert_same(ra, plain(ta), where=f"{f.__name__} ({how}): the argument afterwards")


def build(n):
    l = List()
    for i in range(n):
        l.append(i * 1.5)
    return l


def build_empty_list(n):
    l = List.empty_list(item_type=types.int64, allocated=n)
    for i in range(n):
        l.append(i * i)
    return l


def build_int_then_float(n):
    l = List()
    l.append(1)
    l.append(2.5)   # the item type widens to float64, as `[]`'s does
    return l[0] / 2, l[1], len(l)


def from_iterables(a, l, n):
    return List(a), List(l), List(range(n)), List((n, n + 1))


def read(l):
    return l[0], l[-1], len(l), l[1:3], l[::-1]


def index_errors(l, i):
    return l[i]


def set_items(l):
    for i in range(len(l)):
        l[i] += 1.0
    l[-1] = 0.0
    return l


def append_pop(l):
    l.append(7.0)
    a = l.pop()
    b = l.pop(0)
    return a, b, l


def pop_empty(n):
    l = List.empty_list(types.float64)
    for i in range(n):
        l.append(1.0)
    return l.pop()


def insert_remove(l):
    l.insert(0, 10.0)
    l.insert(-1, 11.0)
    l.insert(100, 12.0)
    l.remove(2.0)
    return l


def remove_missing(l):
    l.remove(99.0)


def search(l):
    return l.index(2.0), l.count(2.0), 2.0 in l, 99.0 in l


def reorder(l):
    l.reverse()
    a = l.copy()
    l.sort()
    b = l.copy()
    l.sort(reverse=True)
    return a, b, l


def extend_clear(l, m):
    l.extend(m)
    n = len(l)
    m.clear()
    return n, l, m


def iterate(l):
    s = 0.0
    for v in l:
        s += v
    t = 0.0
    for i, v in enumerate(l):
        t += i * v
    return s, t, sum(l), min(l), max(l), sorted(l)


def truth(l):
    return 1 if l else 0


def concat(l, m):
    return l + m, l * 2


def of_arrays(n):
    l = List.empty_list(types.float64[:])
    for i in range(n):
        l.append(np.arange(float(i + 1)))
    total = 0.0
    for a in l:
        total += a.sum()
    return total, l


def of_tuples(n):
    l = List()
    for i in range(n):
        l.append((i, i * 0.5))
    l.reverse()
    return l, l[0], l.pop()


def nested(n):
    outer = List()
    for i in range(n):
        inner = List()
        for j in range(i + 1):
            inner.append(j)
        outer.append(inner)
    return outer


def takes_nested(l):
    l[0].append(100)
    return len(l[0])


@pytest.mark.parametrize("f, args", [
    (build, (5,)), (build, (0,)), (from_iterables, (np.arange(3.0), [1, 2], 4)), (build_empty_list, (4,)), (build_int_then_float, (0,)),
    (read, ([1.0, 2.0, 3.0, 4.0],)), (index_errors, ([1.0, 2.0], -2)),
    (index_errors, ([1.0, 2.0], 2)), (index_errors, ([1.0, 2.0], -3)),
    (set_items, ([1.0, 2.0, 3.0],)), (append_pop, ([1.0, 2.0, 3.0],)), (pop_empty, (0,)),
    (pop_empty, (2,)), (insert_remove, ([1.0, 2.0, 3.0],)), (remove_missing, ([1.0],)),
    (search, ([3.0, 2.0, 1.0, 2.0],)), (reorder, ([3.0, 1.0, 2.0],)),
    (extend_clear, ([1, 2], [3, 4])), (iterate, ([1.5, -2.0, 4.0],)), (truth, ([1.0],)),
    (concat, ([1, 2], [3])), (of_arrays, (3,)), (of_tuples, (4,)), (nested, (4,)),
    (takes_nested, ([[1, 2], [3]],)),
], ids=lambda v: getattr(v, "__name__", None))
def test_compiled_matches_python(f, args):
    if f in (build_int_then_float, concat):
        check(f, *args, python=False)
        return
    if f is takes_nested:   # the inner lists are typed Lists too
        args = ([List(x) for x in args[0]],)
        ref = [list(x) for x in args[0]]
        l = List(args[0])
        assert pyjit.njit(f)(l) == f(ref)
        assert plain(l) == ref
        return
    check(f, *args)


def test_truth_of_empty():
    assert pyjit.njit(truth)(List.empty_list(types.float64)) == 0


# ---- what is typed-list specific -------------------------------------------------------------

def test_memory_is_shared_not_copied():
    @pyjit.njit
    def keep_and_change(l):
        l.append(4.0)
        l[0] = -1.0
        return l

    tl = List([1.0, 2.0, 3.0])
    back = keep_and_change(tl)
    assert type(back) is List and plain(back) == [-1.0, 2.0, 3.0, 4.0]
    assert plain(tl) == plain(back)
    back.append(5.0)   # the same memory: a change through one is seen through the other
    assert plain(tl)[-1] == 5.0


def test_typed_list_made_in_compiled_code_is_a_list_object():
    r = pyjit.njit(build)(3)
    assert type(r) is List and r._dtype == types.float64
    r.append(2)   # and works as one from Python
    assert plain(r) == [0.0, 1.5, 3.0, 2.0]


def test_reflected_lists_unchanged():
    @pyjit.njit
    def f(l):
        l.append(1.0)
        return l

    pl = [0.0]
    back = f(pl)
    assert back is pl and pl == [0.0, 1.0] and type(back) is list


def test_typed_and_reflected_lists_are_different_types():
    def join(flag):
        if flag:
            l = List()
            l.append(1.0)
        else:
            l = [1.0]
        return l

    with pytest.raises(errors.TypingError):
        pyjit.njit(join)(True)

    def add(l, m):
        return l + m

    with pytest.raises(errors.TypingError, match="typed list"):
        pyjit.njit(add)(List([1.0]), [2.0])

    @pyjit.njit
    def length(l):
        return len(l)

    length(List([1.0]))
    length([1.0])
    kinds = sorted(sig[0].name for sig in length.signatures)
    assert kinds == ["list(float64)", "typed_list(float64)"]


def test_empty_untyped_list_argument_is_a_type_error():
    @pyjit.njit
    def length(l):
        return len(l)

    with pytest.raises(TypeError, match="typed List whose item type is not known"):
        length(List())


def test_empty_list_item_type_is_fixed_in_compiled_code():
    @pyjit.njit
    def f():
        l = List.empty_list(types.int64)
        l.append(2.5)
        return l

    with pytest.raises(errors.TypingError, match="cannot store float64 in a list of int64"):
        f()


def test_literals_take_a_given_item_type_in_compiled_code():
    @pyjit.njit
    def f():
        l = List.empty_list(types.float32)
        l.append(0.5)   # a weak literal (NEP 50): float32, as from Python
        m = List.empty_list(types.int32)
        m.append(7)
        return l, m

    l, m = f()
    assert (l._dtype, m._dtype) == (types.float32, types.int32)
    assert plain(l) == [0.5] and plain(m) == [7]


def test_bad_item_type_argument_in_compiled_code():
    @pyjit.njit
    def f():
        return List.empty_list(3)

    with pytest.raises(errors.TypingError, match="item type"):
        f()

    @pyjit.njit
    def g(x):
        return List(x)

    with pytest.raises(errors.UnsupportedError, match="List\\(iterable\\) of float64"):
        g(1.0)


PAIR = types.UniTuple(types.int64, 2)


def test_array_type_spellings_in_compiled_code():
    @pyjit.njit
    def f():
        a = List.empty_list(types.float64[:])
        b = List.empty_list(types.int32[:, ::1])
        c = List.empty_list(PAIR)
        return a, b, c

    a, b, c = f()
    assert (a._dtype, b._dtype, c._dtype) == (types.float64[:], types.int32[:, ::1],
                                               types.UniTuple(types.int64, 2))


def test_explicit_signature_with_list_type():
    f = pyjit.njit("float64(ListType(float64))")(lambda l: l[0] + l[-1])
    assert f(List([1.0, 2.0, 4.0])) == 5.0
    with pytest.raises(TypeError):
        f([1.0, 2.0])


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc/self/statm (Linux)")
def test_round_trips_keep_memory_flat():
    @pyjit.njit
    def roundtrip(l, a):
        l.append(1.0)
        l.pop(0)
        a.append(np.ones(4))
        a.pop(0)
        out = List()
        for v in l:
            out.append(v * 2.0)
        return out, a

    tl = List([1.0, 2.0, 3.0])
    ta = List([np.zeros(4)])

    def step():
        roundtrip(tl, ta)
        x = List([1.0, 2.0])
        x.append(3.0)
        x.sort(reverse=True)
        x[0:2].copy()
        y = List.empty_list(types.float64[:])
        y.append(np.ones(2))
        y[0] = np.zeros(2)
        y.pop()

    for _ in range(20000):
        step()
    before = memory_in_use()
    for _ in range(100_000):
        step()
    grown = memory_in_use() - before
    assert grown < 4 << 20, f"memory grew by {grown / 2**20:.1f} MiB over 10^5 round trips"
    assert len(tl) == 3 and len(ta) == 1


def test_list_and_sorted_of_a_typed_list_give_python_lists():
    @pyjit.njit
    def f(l):
        return list(l), sorted(l, reverse=True)

    a, b = f(List([3.0, 1.0, 2.0]))
    assert type(a) is list and type(b) is list
    assert (a, b) == ([3.0, 1.0, 2.0], [3.0, 2.0, 1.0])


def test_typed_lists_inside_tuples_and_declared_return_types():
    @pyjit.njit
    def total(pair):
        a, b = pair
        a.append(1.0)
        return sum(a) + len(b)

    pair = (List([3.0]), List([1, 2]))
    assert total(pair) == 6.0 and plain(pair[0]) == [3.0, 1.0]

    @pyjit.njit("ListType(float64)(int64)")
    def make(n):
        l = List()
        for i in range(n):
            l.append(i * 1.0)
        return l

    assert type(make(3)) is List and plain(make(3)) == [0.0, 1.0, 2.0]


def test_item_type_passed_as_an_argument_and_numba_submodules():
    """A hydrology package builds its queue's item type in Python (`Tuple([from_dtype(dem.dtype),
    int64, int64, int64])`) and passes it to the @njit function, which makes its lists with
    `typedlist.List.empty_list(tuple_type)` (imported `from numba.typed import typedlist`): each
    type compiles its own version, as a dtype given as a value does."""
    import heapq

    from pyjit import njit, types
    from pyjit.np.numpy_support import from_dtype
    from pyjit.typed import typeddict, typedlist

    @njit
    def lowest_first(dem, item_type):
        cells = typedlist.List.empty_list(item_type)
        for i in range(dem.shape[0]):
            for j in range(dem.shape[1]):
                cells.append((dem[i, j], i * dem.shape[1] + j, i, j))
        heapq.heapify(cells)
        order = typeddict.Dict.empty(types.int64, types.int64)
        while cells:
            _, k, i, j = heapq.heappop(cells)
            order[k] = len(order)
        return [order[k] for k in range(dem.size)]

    dem = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, 1.0]])
    want = list(np.argsort(np.argsort(dem.ravel(), kind="stable")))
    for dtype in (np.float64, np.float32):
        item_type = types.Tuple([from_dtype(np.dtype(dtype)), types.int64, types.int64,
                                 types.int64])
        assert lowest_first(dem.astype(dtype), item_type) == want
    assert len(lowest_first.signatures) == 2
    import pyjit.typed.typedlist as tl
    assert tl.List is typedlist.List and typeddict.DictType is types.DictType


def test_typed_containers_of_a_given_type_cast_what_they_are_given():
    """Numba's typed List and Dict cast a stored value to their item, key and value types
    (float64 into float32, int64 into int32, a tuple item by item, ints into complex); a float
    into an int list stays refused, as in Numba."""
    from pyjit import njit
    from pyjit.typed import Dict

    pair = types.Tuple([types.float32, types.int64])
    halves = types.UniTuple(types.float32, 2)

    @njit
    def fill(x, i):
        queue = List.empty_list(pair)
        queue.append((x, i))
        queue.append((1.5, 2))
        codes = List.empty_list(types.int32)
        codes.append(i)
        codes.append(True)
        waves = List.empty_list(types.complex128)
        waves.append(x)
        waves.append(i)
        weights = Dict.empty(types.int32, types.float32)
        weights[i] = x
        spans = Dict.empty(types.int64, halves)
        spans[1] = (x, 2.0)
        return queue[0], queue[1], codes[0], codes[1], waves[0], waves[1], weights[i], spans[1]

    f32 = float(np.float32(0.1))
    assert fill(0.1, 7) == ((f32, 7), (1.5, 2), 7, 1, 0.1 + 0j, 7 + 0j, f32, (f32, 2.0))
    given = List.empty_list(types.float32)
    given.append(1.0)

    @njit
    def store(lst, x):
        lst.append(x)
        lst[0] = 2 * x
    store(given, 0.1)
    assert list(given) == [float(np.float32(0.2)), f32]

    @njit
    def truncating(x):
        ints = List.empty_list(types.int64)
        ints.append(x)
        return ints
    with pytest.raises(errors.TypingError, match="cannot store float64 in a list of int64"):
        truncating(1.5)
