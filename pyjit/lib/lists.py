"""Methods of lists written in the compiled subset: what needs no more than len, indexing,
item assignment, append and pop (the primitives lower_list.c compiles). Semantics and messages
are CPython's."""
import operator

import numpy as np

from .. import types
from ..extending import overload, overload_method, register_jitable
from ..typed import List
from ._util import dtype_arg, generated


@overload_method(types.List, "insert")
def _insert(lst, index, value):
    if not isinstance(index, (types.Integer, types.Boolean)):
        return None

    def impl(lst, index, value):
        n = len(lst)
        if index < 0:
            index = max(index + n, 0)
        index = min(index, n)
        lst.append(value)
        for i in range(n, index, -1):
            lst[i] = lst[i - 1]
        lst[index] = value
    return impl


_END = 2**62   # past any list's end


@overload_method(types.List, "index")
def _index(lst, value, start=0, stop=_END):
    def impl(lst, value, start=0, stop=_END):
        n = len(lst)
        lo = max(start + n, 0) if start < 0 else min(start, n)
        hi = max(stop + n, 0) if stop < 0 else min(stop, n)
        for i in range(lo, hi):
            if lst[i] == value:
                return i
        raise ValueError("list.index(x): x not in list")
    return impl


@overload_method(types.List, "count")
def _count(lst, value):
    def impl(lst, value):
        c = 0
        for x in lst:
            if x == value:
                c += 1
        return c
    return impl


@overload_method(types.List, "remove")
def _remove(lst, value):
    def impl(lst, value):
        for i in range(len(lst)):
            if lst[i] == value:
                lst.pop(i)
                return
        raise ValueError("list.remove(x): x not in list")
    return impl


@overload_method(types.List, "reverse")
def _reverse(lst):
    def impl(lst):
        i, j = 0, len(lst) - 1
        while i < j:
            lst[i], lst[j] = lst[j], lst[i]
            i += 1
            j -= 1
    return impl


@overload_method(types.Array, "_unpacked")
@overload_method(types.List, "_unpacked")
def _unpacked(lst, index, count):
    """Item `index` of `a, b, ... = lst` (count targets), lst a list or an array (its rows): a
    ValueError unless it has as many items, as in CPython and Numba."""
    def impl(lst, index, count):
        if len(lst) > count:
            raise ValueError("too many values to unpack")
        if len(lst) < count:
            raise ValueError("not enough values to unpack")
        return lst[index]
    return impl


@overload_method(types.List, "_extend_items")
def _extend_items(lst, items):
    """lst.extend(items) of what is not a list (a tuple, an array, a range, a set, a dict's keys,
    a string's characters): its items appended one by one, as CPython's extend walks them."""
    def impl(lst, items):
        for x in items:
            lst.append(x)
    return impl


@overload_method(types.List, "copy")
def _copy(lst):
    def impl(lst):
        return lst * 1
    return impl


# ---- builtins and NumPy functions over lists (min and max of a list are compiled in C) --------

@overload(sum)
def _sum(iterable, start=0):
    if isinstance(iterable, types.Tuple) and not isinstance(iterable, types.UniTuple):
        return _tuple_sum(len(iterable))
    one_d = isinstance(iterable, types.Array) and iterable.ndim == 1   # sum(a): its items added
    if not (one_d or isinstance(iterable, (types.List, types.UniTuple, types.Set, types.Dict))
            or str(iterable) == "range"):
        return None

    def impl(iterable, start=0):
        total = start
        for x in iterable:
            total = total + x
        return total
    return impl


def _tuple_sum(n):
    """sum() of a tuple whose items differ in type: the items added one by one, unrolled (a loop
    needs one item type), so each addition promotes as Python's does."""
    terms = "".join(f" + iterable[{i}]" for i in range(n))
    scope = {}
    exec(f"def impl(iterable, start=0):\n    return start{terms}\n", scope)
    return scope["impl"]


def _stable_order(keys):
    """The indices that order keys stably (compiled code only: the overload below)."""
    raise NotImplementedError("pyjit.lib.lists._stable_order is called from compiled code")


@overload(_stable_order)
def _stable_order_of(keys):
    """Numbers are ordered by NumPy's stable argsort, the C runtime's (runtime/sort.c), which
    costs nothing to compile; other keys (strings) by a merge sort written here, which needs only
    their `<`."""
    if isinstance(keys.dtype, (types.Integer, types.Float, types.Boolean)):
        def by_numpy(keys):
            return np.argsort(np.array(keys), kind="stable")
        return by_numpy
    return _merge_order


def _merge_order(keys):
    """A bottom-up merge sort of the indices of keys: stable, as CPython's sort."""
    n = len(keys)
    src = []
    for i in range(n):
        src.append(i)
    dst = src.copy()
    width = 1
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            for k in range(lo, hi):
                if j < hi and (i >= mid or keys[src[j]] < keys[src[i]]):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
            lo = hi
        src, dst = dst, src
        width *= 2
    return src


@overload_method(types.List, "_sort_by_key")
def _sort_by_key(lst, key, reverse=False):
    """lst.sort(key=key, reverse=reverse) (infer_calls.c: sort_by_key): key is called once per
    item, and the items are reordered by a stable sort of the results. reverse as CPython does
    it: the list reversed, sorted stably, reversed again, so equal keys keep their order.
    (Plain loops: each library method called here would cost its own compile.)"""
    def impl(lst, key, reverse=False):
        n = len(lst)
        items = []
        keys = []
        for p in range(n):
            items.append(lst[p])
            keys.append(key(lst[n - 1 - p] if reverse else lst[p]))
        order = _stable_order(keys)
        for p in range(n):
            if reverse:
                lst[p] = items[n - 1 - order[n - 1 - p]]
            else:
                lst[p] = items[order[p]]
    return impl


@overload_method(types.List, "_sort_items")
def _sort_items(lst, reverse=False):
    """lst.sort() of items the C sort does not take, tuples (infer_calls.c routes it here):
    stable by the items' own `<`, reverse as _sort_by_key does it."""
    def impl(lst, reverse=False):
        n = len(lst)
        items = []
        keys = []
        for p in range(n):
            items.append(lst[p])
            keys.append(lst[n - 1 - p] if reverse else lst[p])
        order = _stable_order(keys)
        for p in range(n):
            if reverse:
                lst[p] = items[n - 1 - order[n - 1 - p]]
            else:
                lst[p] = items[order[p]]
    return impl


def _given(key):
    return key is not None and not isinstance(key, (types.Omitted, types.NoneType))


@overload(sorted)
def _sorted(iterable, key=None, reverse=False):
    if _given(key):   # a str gives the list of its characters, sorted
        if not (isinstance(iterable, (types.List, types.UniTuple, types.Set, types.Dict,
                                      types.UnicodeType, types.StringLiteral, types.Array))
                or iterable.name == "range"):
            return None

        def keyed(iterable, key=None, reverse=False):
            out = []
            for x in iterable:
                out.append(x)
            out.sort(key=key, reverse=reverse)
            return out
        return keyed
    if isinstance(iterable, (types.Set, types.Dict)):
        def of_keys(iterable, key=None, reverse=False):
            out = list(iterable)
            out.sort(reverse=reverse)
            return out
        return of_keys
    one_d = isinstance(iterable, types.Array) and iterable.ndim == 1   # a list of its items
    if not (one_d or isinstance(iterable, (types.List, types.UniTuple, types.UnicodeType,
                                           types.StringLiteral)) or iterable.name == "range"):
        return None

    if isinstance(iterable, types.ListType):   # a Python list, as CPython's sorted gives
        def typed_impl(iterable, key=None, reverse=False):
            out = list(iterable)
            out.sort(reverse=reverse)
            return out
        return typed_impl

    def impl(iterable, key=None, reverse=False):
        out = []   # a loop, not a comprehension: CPython 3.12 inlines those (not compiled yet)
        for x in iterable:
            out.append(x)
        out.sort(reverse=reverse)
        return out
    return impl


@overload(reversed)
def _reversed(seq):
    """reversed() of what loops go over: a reversed copy of a list (CPython's iterator sees
    later changes to the list; a loop that changes the list it runs over is rare), a reversed
    view of an array or a reversed tuple, and the range that runs backwards."""
    if isinstance(seq, types.Array) and seq.ndim >= 1 or isinstance(seq, (types.List, types.UniTuple)):
        return lambda seq: seq[::-1]
    if isinstance(seq, types.Tuple) and len(seq) == 0:
        return lambda seq: seq
    if seq.name == "range":
        return _reversed_range
    return None


def _reversed_range(seq):
    n = len(seq)
    first = 0
    step = 1
    k = 0
    for x in seq:   # the first two values give start and step (ranges have no attributes here)
        if k == 1:
            step = x - first
            break
        first = x
        k += 1
    if n == 0:
        return range(0, 0, 1)
    return range(first + (n - 1) * step, first - step, -step)


@overload_method(types.List, "__setitem__")
def _setitem(lst, index, value):
    """l[i:j:k] = other (l[i] = x is compiled in C): the items of the slice replaced by other's,
    the list growing or shrinking when the step is 1; an extended slice takes as many items as
    it selects, as CPython requires."""
    if index.name != "slice" or not isinstance(value, types.List):
        return None

    def impl(lst, index, value):
        start, stop, step = index.indices(len(lst))
        if step == 1:
            _replace_run(lst, start, max(stop, start), value)
            return
        count = len(range(start, stop, step))
        if len(value) != count:
            raise ValueError("attempt to assign sequence to extended slice of another size")
        src = value * 1   # value may be lst itself
        for k in range(count):
            lst[start + k * step] = src[k]
    return impl


@register_jitable
def _replace_run(lst, lo, hi, value):
    src = value * 1   # value may be lst itself
    n, m = len(lst), len(src)
    grow = m - (hi - lo)
    if grow > 0:
        for k in range(grow):
            lst.append(src[0])
        for i in range(n - 1, hi - 1, -1):
            lst[i + grow] = lst[i]
    elif grow < 0:
        for i in range(hi, n):
            lst[i + grow] = lst[i]
        for k in range(-grow):
            lst.pop()
    for k in range(m):
        lst[lo + k] = src[k]


@overload_method(types.List, "__delitem__")
def _delitem(lst, index):
    """del l[i] and del l[i:j:k], as CPython does them."""
    if isinstance(index, (types.Integer, types.Boolean)):
        def impl(lst, index):
            n = len(lst)
            i = index + n if index < 0 else index
            if i < 0 or i >= n:
                raise IndexError("list assignment index out of range")
            lst.pop(i)
        return impl
    if index.name != "slice":
        return None

    def impl_slice(lst, index):
        start, stop, step = index.indices(len(lst))
        if step < 0:   # the same items, walked upwards
            count = len(range(start, stop, step))
            start, stop, step = start + (count - 1) * step, start + 1, -step
        if step == 1:
            _replace_run(lst, start, max(stop, start), lst[0:0])
            return
        w = start
        for i in range(start, len(lst)):
            if i >= stop or (i - start) % step != 0:
                lst[w] = lst[i]
                w += 1
        while len(lst) > w:
            lst.pop()
    return impl_slice


@overload(list)
def _list(iterable=None):
    """list(iterable); list() is declined to the builtin, which makes the empty list later
    stores type, as `[]`."""
    if iterable is None:
        return None
    if isinstance(iterable, types.List) and not isinstance(iterable, types.ListType):
        return lambda iterable=None: iterable * 1
    if isinstance(iterable, types.Tuple) and len(iterable) == 0:
        return lambda iterable=None: list(range(0))   # list(()): an empty list of ints
    if not (isinstance(iterable, (types.Array, types.UniTuple, types.ListType, types.Set,
                                 types.Dict, types.UnicodeType, types.StringLiteral)) or
            iterable.name == "range"):
        return None

    def impl(iterable=None):
        out = []
        for x in iterable:
            out.append(x)
        return out
    return impl


@overload(List)
def _typed_list(iterable=None):
    """List(iterable) of an array, a tuple, a list or a range; List() (no iterable) is declined
    to the builtin, which makes the empty typed list later stores type."""
    if iterable is None or not (isinstance(iterable, (types.Array, types.UniTuple, types.List))
                                or iterable.name == "range"):
        return None

    def impl(iterable=None):
        out = List()
        for x in iterable:
            out.append(x)
        return out
    return impl


def _numeric(t):
    return isinstance(t, (types.Number, types.Boolean))


def _array_of_tuple(obj, dtype):
    """np.array of a tuple of numbers (1-d) or of a tuple of equally long tuples of numbers
    (2-d), their types promoted as NumPy's: unrolled, as a tuple's items may differ in type."""
    from ._util import promote
    from .numpy_index import _generated
    items = obj.types
    if all(_numeric(t) for t in items):
        dt = dtype or (promote(*items) if items else types.float64)
        body = "".join(f"    out[{i}] = obj[{i}]\n" for i in range(len(items)))
        return _generated(f"def impl(obj, dtype=None):\n    out = np.empty({len(items)}, dt)\n"
                          + body + "    return out\n", {"dt": dt})
    depths = [_nest_levels(t) for t in items]
    if items and all(d > 0 and x is not None and d == depths[0][0] for d, x in depths) and \
            not all(isinstance(t, (types.Tuple, types.UniTuple)) for t in items):
        # a tuple of lists or arrays (of one depth): each made an array, then stacked
        from ._util import promote
        dt = dtype or promote(*(x for _, x in depths))
        n = len(items)
        body = "".join(f"    a{i} = np.array(obj[{i}], dt)\n" for i in range(n))
        body += "".join(f"    if a{i}.shape != a0.shape:\n        raise ValueError(\"setting an "
                        f"array element with a sequence. The requested array has an "
                        f"inhomogeneous shape after 1 dimensions.\")\n" for i in range(1, n))
        body += f"    out = np.empty(({n},) + a0.shape, dt)\n"
        body += "".join(f"    out[{i}] = a{i}\n" for i in range(n))
        return _generated("def impl(obj, dtype=None):\n" + body + "    return out\n",
                          {"dt": dt})
    rows = [getattr(t, "types", None) for t in items]
    if not items or any(r is None or len(r) != len(rows[0]) or not all(_numeric(x) for x in r)
                        for r in rows):
        return None
    dt = dtype or (promote(*(x for r in rows for x in r)) if rows[0] else types.float64)
    body = "".join(f"    out[{i}, {j}] = obj[{i}][{j}]\n"
                   for i in range(len(rows)) for j in range(len(rows[0])))
    return _generated(f"def impl(obj, dtype=None):\n"
                      f"    out = np.empty(({len(rows)}, {len(rows[0])}), dt)\n" + body +
                      "    return out\n", {"dt": dt})


def _nest_levels(t):
    """How many axes nested lists, homogeneous tuples and arrays of type t make, and the scalar
    type at the bottom (None where it is not a number)."""
    depth = 0
    while isinstance(t, (types.List, types.UniTuple)):
        t, depth = t.dtype, depth + 1
    if isinstance(t, types.Array):
        if t.ndim == 0:
            return depth, None
        t, depth = t.dtype, depth + t.ndim
    return depth, (t if _numeric(t) else None)


def _nested_source(depth):
    """np.array of `depth` levels of sequences: the shape read down the first items (an empty
    level makes the axes below it 0), then every item stored, each level's length checked
    against the shape as NumPy checks that the nesting is rectangular."""
    lines = ["def impl(obj, dtype=None):"]
    lines += [f"    s{k} = 0" for k in range(1, depth)]
    lines.append("    s0 = len(obj)")
    ind, prev = "    ", "obj"
    for k in range(1, depth):
        lines += [f"{ind}if s{k - 1} > 0:", f"{ind}    t{k} = {prev}[0]",
                  f"{ind}    s{k} = len(t{k})"]
        ind, prev = ind + "    ", f"t{k}"
    shape = ", ".join(f"s{k}" for k in range(depth))
    lines.append(f"    out = np.empty(({shape},), dt)")
    ind, row = "    ", "obj"
    for k in range(depth):
        lines.append(f"{ind}for i{k} in range(s{k}):")
        ind += "    "
        if k + 1 < depth:
            lines += [f"{ind}r{k + 1} = {row}[i{k}]", f"{ind}if len(r{k + 1}) != s{k + 1}:",
                      f"{ind}    raise ValueError(\"setting an array element with a sequence. "
                      f"The requested array has an inhomogeneous shape after {k + 1} "
                      f"dimensions.\")"]
            row = f"r{k + 1}"
    index = ", ".join(f"i{k}" for k in range(depth))
    lines += [f"{ind}out[{index}] = {row}[i{depth - 1}]", "    return out", ""]
    return "\n".join(lines)


def _array_of_list(obj, dtype):
    """np.array of a list (or a tuple of one type) of numbers, or of nested lists, tuples and
    arrays of numbers to any depth (every level as long as its first item), or of tuples of
    mixed types (_array_of_tuple); None for anything else."""
    if isinstance(obj, types.Tuple) or (isinstance(obj, types.UniTuple) and
                                        not isinstance(obj.dtype, (types.List, types.UniTuple,
                                                                   types.Array))):
        return _array_of_tuple(obj, dtype)
    if not isinstance(obj, (types.List, types.UniTuple)):
        return None
    depth, scalar = _nest_levels(obj)
    if scalar is None:
        return None
    from ._util import generated
    return generated("impl", _nested_source(depth), {"dt": scalar if dtype is None else dtype})


def _dtype_of(dtype):
    """The scalar type a dtype= argument names (np.float32, np.dtype('f4'), float or a pyjit
    scalar type), None if omitted."""
    return dtype_arg(dtype)


@overload(np.array)
def _np_array(obj, dtype=None):
    return _array_of_list(obj, _dtype_of(dtype)) or _array_of_other(obj, _dtype_of(dtype), True)


@overload(np.asarray)
def _np_asarray(obj, dtype=None):
    if isinstance(obj, types.Array) and _dtype_of(dtype) in (None, obj.dtype):
        return lambda obj, dtype=None: obj
    return _array_of_list(obj, _dtype_of(dtype)) or _array_of_other(obj, _dtype_of(dtype), False)


def _array_of_other(obj, dtype, copy):
    """np.array/np.asarray of an array (a copy, or obj itself where asarray may keep it) or of
    a number (a 0-d array), converted to dtype where given."""
    if isinstance(obj, types.Array):
        if not isinstance(obj.dtype, (types.Number, types.Boolean)) or dtype is None:
            return (lambda obj, dtype=None: obj.copy()) if copy else None
        return generated("impl", "def impl(obj, dtype=None):\n    return obj.astype(DT)\n",
                         {"DT": getattr(np, dtype.name)})
    if isinstance(obj, (types.Number, types.Boolean)):
        dt = obj if dtype is None else dtype
        return generated("impl", "def impl(obj, dtype=None):\n    return np.full((), obj, DT)\n",
                         {"DT": getattr(np, dt.name)})
    return None


# ---- comparisons: lexicographic, as CPython's ---------------------------------------------------

def _compare(name, decide):
    """list <op> list: the first unequal items decide; if none, the lengths (`decide` of the two
    lengths)."""
    @overload_method(types.List, name)
    def typing(a, b):
        if not isinstance(b, types.List):
            return None

        def impl(a, b):
            n = min(len(a), len(b))
            for i in range(n):
                x, y = a[i], b[i]
                if x != y:
                    return decide(x, y)
            return decide(len(a), len(b))
        return impl
    return typing


@overload_method(types.List, "__eq__")
def _list_eq(a, b):
    if not isinstance(b, types.List):
        return None

    def impl(a, b):
        if len(a) != len(b):
            return False
        for i in range(len(a)):
            if a[i] != b[i]:
                return False
        return True
    return impl


@overload_method(types.List, "__ne__")
def _list_ne(a, b):
    if not isinstance(b, types.List):
        return None
    return lambda a, b: not (a == b)


_compare("__lt__", operator.lt)
_compare("__le__", operator.le)
_compare("__gt__", operator.gt)
_compare("__ge__", operator.ge)
