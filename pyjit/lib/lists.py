"""Methods of lists written in the compiled subset: what needs no more than len, indexing,
item assignment, append and pop (the primitives lower_list.c compiles). Semantics and messages
are CPython's."""
import numpy as np

from .. import errors, types
from ..extending import overload, overload_method


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


@overload_method(types.List, "copy")
def _copy(lst):
    def impl(lst):
        return lst * 1
    return impl


# ---- builtins and NumPy functions over lists (min and max of a list are compiled in C) --------

@overload(sum)
def _sum(iterable, start=0):
    if not isinstance(iterable, types.List):
        return None

    def impl(iterable, start=0):
        total = start
        for x in iterable:
            total = total + x
        return total
    return impl


@overload(sorted)
def _sorted(iterable, key=None, reverse=False):
    if isinstance(iterable, (types.Set, types.Dict)):
        if key is not None and not isinstance(key, (types.Omitted, types.NoneType)):
            raise errors.UnsupportedError("sorted(key=...) is not supported in compiled code yet")

        def of_keys(iterable, key=None, reverse=False):
            out = list(iterable)
            out.sort(reverse=reverse)
            return out
        return of_keys
    if not isinstance(iterable, types.List):
        return None
    if key is not None and not isinstance(key, (types.Omitted, types.NoneType)):
        raise errors.UnsupportedError("sorted(key=...) is not supported in compiled code yet")

    def impl(iterable, key=None, reverse=False):
        out = iterable * 1
        out.sort(reverse=reverse)
        return out
    return impl


@overload(list)
def _list(iterable):
    if isinstance(iterable, types.List):
        return lambda iterable: iterable * 1
    if not (isinstance(iterable, (types.Array, types.UniTuple, types.Set, types.Dict)) or
            iterable.name == "range"):
        return None

    def impl(iterable):
        out = []
        for x in iterable:
            out.append(x)
        return out
    return impl


def _array_of_list(obj, dtype):
    """np.array of a list of numbers (1-d), or of a list of lists or 1-d arrays of numbers
    (2-d, every row as long as the first); None for anything else."""
    if not isinstance(obj, types.List):
        return None
    item = obj.dtype
    if isinstance(item, (types.Number, types.Boolean)):
        dt = item if dtype is None else dtype

        def flat(obj, dtype=None):
            out = np.empty(len(obj), dtype=dt)
            for i in range(len(obj)):
                out[i] = obj[i]
            return out
        return flat
    inner = item.dtype if isinstance(item, (types.List, types.Array)) else None
    if inner is None or not isinstance(inner, (types.Number, types.Boolean)) or \
            (isinstance(item, types.Array) and item.ndim != 1):
        return None
    dt = inner if dtype is None else dtype

    def rows(obj, dtype=None):
        n = len(obj)
        m = len(obj[0]) if n else 0
        out = np.empty((n, m), dtype=dt)
        for i in range(n):
            row = obj[i]
            if len(row) != m:
                raise ValueError("setting an array element with a sequence. The requested array "
                                 "has an inhomogeneous shape after 1 dimensions.")
            for j in range(m):
                out[i, j] = row[j]
        return out
    return rows


def _dtype_of(dtype):
    """The scalar type a dtype= argument names (np.float32, np.dtype('f4') or a pyjit scalar
    type), None if omitted."""
    if isinstance(dtype, types.DType):
        return dtype.dtype
    return dtype if isinstance(dtype, types.Scalar) else None


@overload(np.array)
def _np_array(obj, dtype=None):
    return _array_of_list(obj, _dtype_of(dtype))


@overload(np.asarray)
def _np_asarray(obj, dtype=None):
    if isinstance(obj, types.Array) and _dtype_of(dtype) in (None, obj.dtype):
        return lambda obj, dtype=None: obj
    return _array_of_list(obj, _dtype_of(dtype))
