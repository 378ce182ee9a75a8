"""dtypes as values: np.dtype(x), a dtype's attributes (dt.itemsize, dt.name, dt.kind, ...),
np.issubdtype, np.promote_types, np.result_type and np.can_cast. A dtype in compiled code is a
constant of its type (types.DType, what `a.dtype` is), so each of these is folded when
compiling: NumPy itself answers, on the dtypes the argument types name."""
import numpy as np

from ..extending import overload_attribute
from ._util import generated, given, overload, types

# NumPy's abstract scalar classes, as np.issubdtype's second argument (np.floating, ...)
_ABSTRACT = {c.__name__: c for c in (np.generic, np.number, np.integer, np.signedinteger,
                                     np.unsignedinteger, np.inexact, np.floating,
                                     np.complexfloating)}


def _np_dtype(t):
    """The NumPy dtype a type names: a dtype value or NumPy type (types.DType), a dtype string
    constant ('f4') or an array (its dtype); None for anything else (a number: NumPy 2 takes a
    Python number's weakness into account, which its type here does not say)."""
    if isinstance(t, types.StringLiteral):
        try:
            return np.dtype(t.literal_value)
        except TypeError:
            return None
    if not isinstance(t, (types.DType, types.Array)):
        return None
    t = t.dtype
    if isinstance(t, (types.Number, types.Boolean)):
        return np.dtype(types.as_dtype(t))
    if isinstance(t, types.Record):
        return _record_dtype(t.name)
    if isinstance(t, (types.NPDatetime, types.NPTimedelta)):
        code = "M8" if isinstance(t, types.NPDatetime) else "m8"
        return np.dtype(code + (f"[{t.unit}]" if t.unit else ""))
    return None


def _record_dtype(name):
    """The structured NumPy dtype of a record type's canonical name
    (`record(x:float64@0, v:float32[3]@8, size=24)`), nested records and subarrays included."""
    names, formats, offsets, size, aligned = [], [], [], 0, False
    for part in types._split_top(name[7:-1]):
        if part.startswith("size="):
            size = int(part[5:])
        elif part == "aligned":
            aligned = True
        else:
            field, rest = part.split(":", 1)
            typename, offset = rest.rsplit("@", 1)
            shape = ()
            if typename.endswith("]") and typename[typename.rindex("[") + 1:-1].replace(
                    ",", "").isdigit():
                typename, dims = typename[:-1].rsplit("[", 1)
                shape = tuple(int(n) for n in dims.split(","))
            item = (_record_dtype(typename) if typename.startswith("record(") else
                    np.dtype(typename))
            names.append(field)
            formats.append((item, shape) if shape else item)
            offsets.append(int(offset))
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": size},
                    align=aligned)


def _constant(value, signature):
    """An implementation of that signature returning value: a dtype (a constant of its type), a
    bool, an int or a str."""
    return generated("impl", f"def impl({signature}):\n    return VALUE\n", {"VALUE": value})


@overload(np.dtype)
def _dtype(obj, align=False, copy=False):
    dt = _np_dtype(obj)
    if dt is None or isinstance(obj, types.Array):
        return None
    return _constant(dt, "obj, align=False, copy=False")


def _attribute(name, value_of):
    @overload_attribute(types.DType, name)
    def typing(dt):
        d = _np_dtype(dt)
        return None if d is None else _constant(value_of(d), "dt")
    return typing


for _name in ("itemsize", "name", "kind", "char", "str", "num", "alignment", "byteorder",
              "isnative", "ndim", "hasobject"):
    _attribute(_name, lambda d, name=_name: getattr(d, name))


def _abstract_or_dtype(t):
    """np.issubdtype's argument: one of NumPy's abstract classes (by the name compiled code
    gives it) or a dtype."""
    name = t.name if isinstance(t, types.Type) else ""
    if name.startswith("function(numpy.") and name[15:-1] in _ABSTRACT:
        return _ABSTRACT[name[15:-1]]
    return _np_dtype(t)


@overload(np.issubdtype)
def _issubdtype(arg1, arg2):
    a, b = _abstract_or_dtype(arg1), _abstract_or_dtype(arg2)
    if a is None or b is None:
        return None
    return _constant(bool(np.issubdtype(a, b)), "arg1, arg2")


@overload(np.promote_types)
def _promote_types(type1, type2):
    a, b = _np_dtype(type1), _np_dtype(type2)
    if a is None or b is None or isinstance(type1, types.Array) or isinstance(type2, types.Array):
        return None
    return _constant(np.promote_types(a, b), "type1, type2")


@overload(np.result_type)
def _result_type(a, b=None, c=None, d=None, e=None, f=None):
    given_ = [t for t in (a, b, c, d, e, f) if given(t)]
    dts = [_np_dtype(t) for t in given_]
    if any(x is None for x in dts):
        return None
    return _constant(np.result_type(*dts), "a, b=None, c=None, d=None, e=None, f=None")


@overload(np.can_cast)
def _can_cast(from_, to, casting="safe"):
    a, b = _np_dtype(from_), _np_dtype(to)
    how = getattr(casting, "literal_value", casting)
    if a is None or b is None or isinstance(to, types.Array) or not isinstance(how, str):
        return None
    return _constant(bool(np.can_cast(a, b, casting=how)), 'from_, to, casting="safe"')
