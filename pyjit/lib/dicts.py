"""Methods of dicts and sets written in the compiled subset: what needs no more than the
primitives lower_dict.c compiles (lookup, store, delete, iteration, copy). Semantics and messages
are CPython's, except that keys(), values() and items() give lists (snapshots), not views."""
from .. import types
from ..typed import Set
from ..extending import overload, overload_method


# ---- dicts ----------------------------------------------------------------------------------

@overload_method(types.Dict, "keys")
def _keys(d):
    def impl(d):
        out = []
        for k in d:
            out.append(k)
        return out
    return impl


@overload_method(types.Dict, "values")
def _values(d):
    def impl(d):
        out = []
        for k in d:
            out.append(d[k])
        return out
    return impl


@overload_method(types.Dict, "items")
def _items(d):
    def impl(d):
        out = []
        for k in d:
            out.append((k, d[k]))
        return out
    return impl


@overload_method(types.Dict, "_get_or_none")
def _get_or_none(d, key):
    """d.get(key) without a default (compiler/infer_calls.c routes it here): the value or None,
    an optional value; with a default, the builtin row serves."""
    def impl(d, key):
        if key in d:
            return d[key]
        return None
    return impl


@overload_method(types.Dict, "update")
def _update(d, other):
    if _pairs(other):   # d.update(zip(keys, values)), d.update([(k, v), ...])
        def of_pairs(d, other):
            for k, v in other:
                d[k] = v
        return of_pairs
    if not isinstance(other, types.Dict):
        return None

    def impl(d, other):
        for k in other:
            d[k] = other[k]
    return impl


@overload_method(types.Dict, "__eq__")
def _dict_eq(a, b):
    if not isinstance(b, types.Dict):
        return None

    def impl(a, b):
        if len(a) != len(b):
            return False
        for k in a:
            if k not in b or not (a[k] == b[k]):
                return False
        return True
    return impl


@overload_method(types.Dict, "__ne__")
def _dict_ne(a, b):
    if not isinstance(b, types.Dict):
        return None

    def impl(a, b):
        return not (a == b)
    return impl


# ---- sets: the in-place methods first, the others in their terms ------------------------------

def _iterable(t):
    return isinstance(t, (types.Set, types.List, types.Array, types.UniTuple, types.UnicodeType,
                          types.StringLiteral)) or t.name == "range"


@overload_method(types.Dict, "_items")
@overload_method(types.Set, "_items")
def _items_list(s):
    """The list of a set's items (a dict's keys), in the order a loop walks them: what
    enumerate() and zip() of one go over (compiler/infer_items.c)."""
    def impl(s):
        out = []
        for x in s:
            out.append(x)
        return out
    return impl


@overload_method(types.Set, "update")
def _set_update(s, other):
    if not _iterable(other):
        return None

    def impl(s, other):
        for x in other:
            s.add(x)
    return impl


@overload_method(types.Set, "difference_update")
def _difference_update(s, other):
    if not _iterable(other):
        return None

    def impl(s, other):
        for x in other:
            s.discard(x)
    return impl


@overload_method(types.Set, "intersection_update")
def _intersection_update(s, other):
    if not isinstance(other, types.Set):
        return None

    def impl(s, other):
        for x in s.copy():
            if x not in other:
                s.discard(x)
    return impl


@overload_method(types.Set, "symmetric_difference_update")
def _symmetric_difference_update(s, other):
    if not isinstance(other, types.Set):
        return None

    def impl(s, other):
        for x in other:
            if x in s:
                s.discard(x)
            else:
                s.add(x)
    return impl


@overload_method(types.Set, "union")
def _union(s, other):
    if not _iterable(other):
        return None

    def impl(s, other):
        out = s.copy()
        out.update(other)
        return out
    return impl


@overload_method(types.Set, "intersection")
def _intersection(s, other):
    if not isinstance(other, types.Set):
        return None

    def impl(s, other):
        out = s.copy()
        out.intersection_update(other)
        return out
    return impl


@overload_method(types.Set, "difference")
def _difference(s, other):
    if not _iterable(other):
        return None

    def impl(s, other):
        out = s.copy()
        out.difference_update(other)
        return out
    return impl


@overload_method(types.Set, "symmetric_difference")
def _symmetric_difference(s, other):
    if not isinstance(other, types.Set):
        return None

    def impl(s, other):
        out = s.copy()
        out.symmetric_difference_update(other)
        return out
    return impl


@overload_method(types.Set, "issubset")
def _issubset(s, other):
    if not isinstance(other, types.Set):
        return None

    def impl(s, other):
        if len(s) > len(other):
            return False
        for x in s:
            if x not in other:
                return False
        return True
    return impl


@overload_method(types.Set, "issuperset")
def _issuperset(s, other):
    if not isinstance(other, types.Set):
        return None
    return lambda s, other: other.issubset(s)


@overload_method(types.Set, "isdisjoint")
def _isdisjoint(s, other):
    if not isinstance(other, types.Set):
        return None

    def impl(s, other):
        for x in s:
            if x in other:
                return False
        return True
    return impl


def _set_operator(method):
    """The operator form of a set method: both operands sets, as CPython's operators require."""
    def typing(s, other):
        if not isinstance(other, types.Set):
            return None
        return method
    return typing


def _or(s, other):
    return s.union(other)


def _and(s, other):
    return s.intersection(other)


def _sub(s, other):
    return s.difference(other)


def _xor(s, other):
    return s.symmetric_difference(other)


def _ior(s, other):
    s.update(other)
    return s


def _iand(s, other):
    s.intersection_update(other)
    return s


def _isub(s, other):
    s.difference_update(other)
    return s


def _ixor(s, other):
    s.symmetric_difference_update(other)
    return s


def _eq(s, other):
    return len(s) == len(other) and s.issubset(other)


def _ne(s, other):
    return not (len(s) == len(other) and s.issubset(other))


def _le(s, other):
    return s.issubset(other)


def _ge(s, other):
    return other.issubset(s)


def _lt(s, other):
    return len(s) < len(other) and s.issubset(other)


def _gt(s, other):
    return len(s) > len(other) and other.issubset(s)


OPERATORS = {"__or__": _or, "__and__": _and, "__sub__": _sub, "__xor__": _xor,
             "__ior__": _ior, "__iand__": _iand, "__isub__": _isub, "__ixor__": _ixor,
             "__eq__": _eq, "__ne__": _ne, "__le__": _le, "__ge__": _ge, "__lt__": _lt,
             "__gt__": _gt}

for _name, _impl in OPERATORS.items():
    overload_method(types.Set, _name)(_set_operator(_impl))


# ---- builtins over sets ---------------------------------------------------------------------

@overload(set)
def _set(iterable=None):
    if iterable is None or not _iterable(iterable):
        return None   # set() itself is compiled in C

    def impl(iterable=None):
        out = set()
        for x in iterable:
            out.add(x)
        return out
    return impl


overload(Set)(_set)   # pyjit.typed.Set(iterable) is set(iterable); Set() is set(), in C


def _pairs(t):
    """Whether t iterates over key-value pairs, as dict(iterable) takes them: a list or tuple of
    2-tuples (zip() and enumerate() come as the list of their items, frontend/ssa.c)."""
    item = t.dtype if isinstance(t, (types.List, types.UniTuple)) else None
    if isinstance(t, types.Tuple) and not isinstance(t, types.UniTuple):
        return False
    return isinstance(item, (types.Tuple, types.UniTuple)) and len(item) == 2


@overload(dict)
def _dict(iterable=None):
    if iterable is None or not _pairs(iterable):
        return None   # dict() and dict(d) are compiled in C

    def impl(iterable=None):
        out = dict()
        for k, v in iterable:
            out[k] = v
        return out
    return impl

