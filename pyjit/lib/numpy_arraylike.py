"""Lists and tuples where NumPy functions take arrays: np.sum([1, 2, 3]), np.sqrt((1.0, 4.0)),
np.add([1, 2], b), np.median([[1, 2], [3, 4]]). NumPy reads such an argument as np.asarray reads
it; so does this module, for the array parameters of each function that ARRAY_PARAMS
(pyjit/lib/__init__.py) lists: the call is the same function's call on np.asarray of them (a
list of numbers or of lists, a tuple of numbers or of tuples, nested to any depth; np.asarray's
rules and errors). Other arguments (shapes, axes, tuples of arrays) pass as they are. Imported
only by a call with a list or tuple argument (pyjit/lib/__init__.py: GATES)."""

from . import ARRAY_PARAMS, find
from ._util import generated, overload, types


def _sequence(t):
    """Whether t is a list, or a tuple of numbers or of such sequences (what np.asarray reads
    as an array; a tuple of arrays stays a tuple: np.stack's, np.concatenate's)."""
    if isinstance(t, types.List):
        return True
    if isinstance(t, types.Tuple):
        items = t.types
        return bool(items) and all(isinstance(i, (types.Number, types.Boolean)) or _sequence(i)
                                   for i in items)
    return False


def _as_arrays(name, count):
    fn = find(name)

    def typing(*args, **kws):
        converted = [k for k in range(min(count, len(args))) if _sequence(args[k])]
        if not converted:
            return None
        params = [f"x{k}" for k in range(len(args))] + [f"{key}=None" for key in kws]
        call = [f"np.asarray(x{k})" if k in converted else f"x{k}" for k in range(len(args))]
        call += [f"{key}={key}" for key in kws]
        return generated("impl", f"def impl({', '.join(params)}):\n"
                                 f"    return FN({', '.join(call)})\n", {"FN": fn})
    typing.__name__ = typing.__qualname__ = f"_{name.replace('.', '_')}_of_sequences"
    return typing


_seen = set()
for _count, _group in ARRAY_PARAMS.items():
    for _name in _group:
        _fn = find(_name)
        if id(_fn) not in _seen:   # np.abs is np.absolute
            _seen.add(id(_fn))
            overload(_fn, strict=False)(_as_arrays(_name, _count))
