"""any() and all() of what compiled code iterates over (lists, homogeneous tuples, 1-d arrays,
ranges, and so generator expressions, which are compiled as lists), written in the compiled
subset: the loop stops at the first item that decides, as CPython's does. min() and max() of a
list of tuples, of two tuples, and with key=. Numba's literally(x), which pyjit takes as x."""
from .. import types
from ..decorators import literally
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


_VALUES = (types.Number, types.Boolean, types.Array, types.List, types.Tuple, types.UniTuple)


def _extreme(name, smaller):
    """min() and max() of one list or homogeneous tuple whose items the builtin does not
    compare (tuples: lexicographically), or with key=: the first extreme item, as CPython's;
    ValueError when empty. Numbers without key= are left to the builtin."""
    message = f"{name}() iterable argument is empty"

    def typing(iterable, key=None):
        dated = (types.NPDatetime, types.NPTimedelta)
        if isinstance(iterable, dated) and key == iterable:   # min(d1, d2): NaT compares False
            if smaller:
                return lambda iterable, key=None: key if key < iterable else iterable
            return lambda iterable, key=None: key if key > iterable else iterable
        tuples = (types.Tuple, types.UniTuple)
        if isinstance(iterable, tuples) and isinstance(key, tuples):   # min(t1, t2)
            if smaller:
                return lambda iterable, key=None: key if key < iterable else iterable
            return lambda iterable, key=None: key if key > iterable else iterable
        if not isinstance(iterable, (types.List, types.UniTuple)) or isinstance(key, _VALUES):
            return None   # min(a, b) of numbers: the builtin's
        keyed = key is not None and not isinstance(key, (types.NoneType, types.Omitted))
        if not keyed and isinstance(iterable.dtype, (types.Number, types.Boolean)):
            return None

        def impl(iterable, key=None):
            if len(iterable) == 0:
                raise ValueError(message)
            best = iterable[0]
            kb = key(best) if keyed else best
            for i in range(1, len(iterable)):
                x = iterable[i]
                kx = key(x) if keyed else x
                if (kx < kb) if smaller else (kx > kb):
                    best = x
                    kb = kx
            return best
        return impl
    return typing


overload(min)(_extreme("min", True))
overload(max)(_extreme("max", False))


@overload(literally)
def _literally(obj):
    """Numba compiles a version for each value of obj; pyjit compiles by types, so obj is
    only passed on (docs/numba.md)."""
    return lambda obj: obj
