"""Methods of lists written in the compiled subset: what needs no more than len, indexing,
item assignment, append and pop (the primitives lower_list.c compiles). Semantics and messages
are CPython's."""
from .. import types
from ..extending import overload_method


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
