"""any() and all() of what compiled code iterates over (lists, homogeneous tuples, 1-d arrays,
ranges, and so generator expressions, which are compiled as lists), written in the compiled
subset: the loop stops at the first item that decides, as CPython's does."""
from .. import types
from ..extending import overload


def _iterable(x):
    if isinstance(x, types.Array):
        return x.ndim == 1
    return isinstance(x, (types.List, types.UniTuple, types.Set)) or str(x) == "range"


@overload(any)
def _any(iterable):
    if not _iterable(iterable):
        return None

    def impl(iterable):
        for x in iterable:
            if x:
                return True
        return False
    return impl


@overload(all)
def _all(iterable):
    if not _iterable(iterable):
        return None

    def impl(iterable):
        for x in iterable:
            if not x:
                return False
        return True
    return impl
