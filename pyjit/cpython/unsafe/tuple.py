"""numba.cpython.unsafe.tuple's spelling: tuple_setitem(tup, idx, val), a copy of a homogeneous
tuple with item idx replaced by val (converted to the items' type), idx known at run time. As
in Numba, an idx outside the tuple changes nothing in compiled code; in Python it is an
IndexError."""
from ... import types
from ...extending import overload


def tuple_setitem(tup, idx, val):
    if not -len(tup) <= idx < len(tup):
        raise IndexError("tuple_setitem() index out of range")
    idx %= len(tup)
    return tup[:idx] + (type(tup[idx])(val),) + tup[idx + 1:]


@overload(tuple_setitem)
def _tuple_setitem(tup, idx, val):
    if not isinstance(tup, types.UniTuple) or not isinstance(idx, (types.Integer, types.Boolean)):
        return None
    n = len(tup)
    items = "".join(f"val if idx == {k} else tup[{k}], " for k in range(n))
    source = f"def impl(tup, idx, val):\n    return ({items})\n"
    scope = {}
    exec(source, scope)   # noqa: S102 - source made above from the tuple's length only
    return scope["impl"]
