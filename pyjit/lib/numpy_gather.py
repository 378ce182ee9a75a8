"""Gathering and scattering by index, written in the compiled subset: np.take (and a.take) with
or without an axis, np.take_along_axis, np.put, np.select, np.unravel_index,
np.ravel_multi_index and np.inner. Semantics and exception classes are NumPy's (mode='raise':
an index out of bounds is an IndexError, a coordinate out of bounds a ValueError).

Result shapes are tuples whose length the argument types fix (np.take's is a's ndim - 1 plus
the indices' ndim), so the implementations are generated per number of dimensions; an entry
that depends on the axis is chosen at run time."""
import numpy as np

from ._util import (generated, given, is_array, is_number, overload, overload_method,
                    register_jitable, types)
from .numpy_index import _index_error
from .numpy_shape import _blocks, _norm_axis


def _generated(source, env=None):
    return generated("impl", source, dict(env or {}, _blocks=_blocks, _norm_axis=_norm_axis,
                                          _index_error=_index_error, _take_dim=_take_dim))


def _tuple(items):
    return "(" + "".join(f"{x}, " for x in items) + ")"


def _is_int(t):
    return isinstance(t, (types.Integer, types.Boolean))


def _int_indices(t):
    """The number of dimensions of an int index argument (0: a scalar), or None."""
    if isinstance(t, types.Integer):
        return 0
    if is_array(t) and isinstance(t.dtype, types.Integer):
        return t.ndim
    if isinstance(t, types.List) and isinstance(t.dtype, types.Integer):
        return 1
    return None


# ---- np.take, a.take ----

@register_jitable
def _take_dim(ashape, ishape, ax, d, k):
    """Axis d of np.take's result: a's before the axis, the k of the indices, a's after it."""
    if d < ax:
        return ashape[d]
    if d < ax + k:
        return ishape[d - ax]
    return ashape[d - k + 1]


def _take(a, indices, axis=None, out=None, mode="raise"):
    k = _int_indices(indices)
    if not is_array(a) or k is None or given(out) or not isinstance(mode, (str, types.Omitted)):
        return None
    by_axis = given(axis)
    if by_axis and (not _is_int(axis) or a.ndim == 0):
        return None
    nd = a.ndim
    if by_axis:
        # the result's axes: a's before the axis, the indices', a's after it
        ishape = "ind.shape" if k else "a.shape"   # (not read without indices' axes)
        shape = _tuple(f"_take_dim(a.shape, {ishape}, ax, {d}, {k})" for d in range(nd - 1 + k))
        head = (f"    ax = _norm_axis(axis, {nd})\n"
                "    b = _blocks(a, ax)\n")
    else:
        shape = _tuple(f"ind.shape[{d}]" for d in range(k))
        head = ("    ax = 0\n"
                "    b = np.ascontiguousarray(a).reshape((1, a.size, 1))\n")
    flat = "np.full(1, indices)" if k == 0 else "np.asarray(indices)"
    finish = ("    return out[0, 0, 0]\n" if shape == "()" else
              f"    return out.reshape({shape})\n")
    source = ("def impl(a, indices, axis=None, out=None, mode='raise'):\n" + head +
              f"    ind = {flat}\n"
              "    idx = ind.ravel()\n"
              "    n = b.shape[1]\n"
              "    out = np.empty((b.shape[0], idx.size, b.shape[2]), a.dtype)\n"
              "    for j in range(idx.size):\n"
              "        i = idx[j]\n"
              "        if i < -n or i >= n:\n"
              "            _index_error(i, ax, n)\n"
              "        out[:, j, :] = b[:, i + n if i < 0 else i, :]\n" + finish)
    return _generated(source)


overload(np.take)(_take)
overload_method(types.Array, "take")(_take)


# ---- np.take_along_axis ----

@overload(np.take_along_axis)
def _take_along_axis(arr, indices, axis=-1):
    if not is_array(arr) or not (is_array(indices) and isinstance(indices.dtype, types.Integer)):
        return None
    if not given(axis):
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return lambda arr, indices, axis=-1: np.take(arr.ravel(), indices)
    if not _is_int(axis):
        return None
    if indices.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    nd = arr.ndim
    lines = ["def impl(arr, indices, axis=-1):\n", f"    ax = _norm_axis(axis, {nd})\n",
             "    n = arr.shape[ax]\n"]
    for d in range(nd):   # the other axes broadcast, as NumPy's do
        lines.append(f"    sa{d} = arr.shape[{d}]\n    si{d} = indices.shape[{d}]\n"
                     f"    if ax != {d} and sa{d} != si{d} and sa{d} != 1 and si{d} != 1:\n"
                     "        raise ValueError('shape mismatch: objects cannot be broadcast to a "
                     "single shape')\n"
                     f"    D{d} = si{d} if ax == {d} or sa{d} == 1 else sa{d}\n"
                     f"    ma{d} = 0 if sa{d} == 1 else 1\n    mi{d} = 0 if si{d} == 1 else 1\n")
    lines.append(f"    out = np.empty({_tuple(f'D{d}' for d in range(nd))}, arr.dtype)\n")
    indent = "    "
    for d in range(nd):
        lines.append(f"{indent}for i{d} in range(D{d}):\n")
        indent += "    "
    read = ", ".join(f"i{d} * mi{d}" for d in range(nd))
    place = ", ".join(f"j if ax == {d} else i{d} * ma{d}" for d in range(nd))
    lines += [f"{indent}j = indices[{read}]\n",
              f"{indent}if j < -n or j >= n:\n",
              f"{indent}    _index_error(j, ax, n)\n",
              f"{indent}if j < 0:\n",
              f"{indent}    j += n\n",
              f"{indent}out[{', '.join(f'i{d}' for d in range(nd))}] = arr[{place}]\n",
              "    return out\n"]
    return _generated("".join(lines))


# ---- np.put ----

@overload(np.put)
def _put(a, ind, v, mode="raise"):
    """a.flat[ind[i]] = v[i % len(v)], in C order whatever a's layout."""
    if not is_array(a) or _int_indices(ind) is None or a.readonly:
        return None
    if not (is_number(v) or is_array(v)):
        return None
    nd = a.ndim
    coords = "".join(f"    c{d} = rest % a.shape[{d}]\n    rest //= a.shape[{d}]\n"
                     for d in reversed(range(nd)))
    target = ", ".join(f"c{d}" for d in range(nd)) if nd else "()"
    value = "vals[i % vals.size]"
    source = (
        "def impl(a, ind, v, mode='raise'):\n"
        f"    idx = {'np.full(1, ind)' if _int_indices(ind) == 0 else 'np.asarray(ind)'}.ravel()\n"
        f"    vals = {'np.full(1, v)' if is_number(v) else 'v.ravel()'}\n"
        "    if idx.size == 0 or vals.size == 0:   # NumPy: nothing to put\n"
        "        return\n"
        "    n = a.size\n"
        "    for i in range(idx.size):\n"
        "        k = idx[i]\n"
        "        if k < -n or k >= n:\n"
        "            raise IndexError('index ' + str(k) + ' is out of bounds for axis 0 with size "
        "' + str(n))\n"
        "        rest = k + n if k < 0 else k\n"
        + coords.replace("    c", "        c").replace("    rest //=", "        rest //=") +
        f"        a[{target}] = {value}\n")
    return _generated(source)


# ---- np.select ----

def _sequence_items(t):
    """The item types of a list or tuple argument, or None."""
    if isinstance(t, types.List):
        return None if t.dtype is None else [t.dtype]
    if isinstance(t, (types.Tuple, types.UniTuple)):
        return list(t.types)
    return None


def _weak_value(t):
    """A NumPy value standing for scalar type t in np.result_type (a Python number is weak)."""
    if types.is_weak(t):
        return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[t.kind]
    return np.dtype(t.name)


@overload(np.select)
def _select(condlist, choicelist, default=0):
    """NumPy's select: conditions (bool arrays or bools) and choices (arrays or numbers)
    broadcast together to the result's shape, default filling where no condition holds. Lists
    loop over their items; tuples (whose items may differ in type) are unrolled."""
    conds, choices = _sequence_items(condlist), _sequence_items(choicelist)
    if conds is None or choices is None or not (is_number(default) or isinstance(
            default, (types.Omitted, int))):
        return None
    for i, c in enumerate(conds):
        if not (isinstance(c, types.Boolean) or
                (is_array(c) and isinstance(c.dtype, types.Boolean))):
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray, not {c}")
    if not all(is_array(c) or is_number(c) for c in choices):
        return None
    weak = _weak_value(default) if is_number(default) else 0   # omitted: the Python 0
    dt = types._as_type(np.result_type(
        *(np.dtype(c.dtype.name) if is_array(c) else _weak_value(c) for c in choices), weak))
    n = max([t.ndim for t in conds + choices if is_array(t)], default=0)
    looped = isinstance(condlist, types.List) and isinstance(choicelist, types.List)
    if looped:
        count = "len(condlist)"
    else:
        count = str(len(conds) if not isinstance(condlist, types.List) else len(choices))
    lines = ["def impl(condlist, choicelist, default=0):",
             f"    if len(condlist) != {count} or len(choicelist) != {count}:",
             "        raise ValueError('list of cases must be same length as list of conditions')",
             f"    if {count} == 0:",
             "        raise ValueError('select with an empty condition list is not possible')"]
    lines += [f"    D{d} = 1" for d in range(n)]
    pairs = [("condlist[k]", "choicelist[k]", conds[0], choices[0])] if looped else [
        (f"condlist[{k}]", f"choicelist[{k}]", conds[0 if len(conds) == 1 else k],
         choices[0 if len(choices) == 1 else k]) for k in range(int(count))]
    shape_lines = []
    for cond, choice, ct, vt in pairs:
        for expr, t in ((cond, ct), (choice, vt)):
            if is_array(t):
                shape_lines += _grow_shape(expr + ".shape", t.ndim, n)
    indent = "    "
    if looped:
        lines.append("    for k in range(len(condlist)):")
        indent = "        "
    lines += [indent + line[4:] for line in shape_lines]
    shape = "(" + "".join(f"D{d}, " for d in range(n)) + ")"
    lines += [f"    out = np.full({shape}, default, dt)", "    flat = out.reshape(-1)"]
    if looped:
        lines.append("    for k in range(len(condlist) - 1, -1, -1):")
    for cond, choice, ct, vt in (pairs if looped else reversed(pairs)):
        body = []
        if is_array(vt):
            body.append(f"v = np.ascontiguousarray(np.broadcast_to({choice}, {shape})).reshape(-1)")
        value = "v[i]" if is_array(vt) else choice
        if is_array(ct):
            body += [f"c = np.ascontiguousarray(np.broadcast_to({cond}, {shape})).reshape(-1)",
                     "for i in range(flat.size):", "    if c[i]:", f"        flat[i] = {value}"]
        else:
            body += [f"if {cond}:", "    for i in range(flat.size):", f"        flat[i] = {value}"]
        lines += [indent + b for b in body]
    lines.append("    return out")
    return _generated("\n".join(lines) + "\n", {"dt": dt})


def _grow_shape(shape, nd, n):
    """Source lines broadcasting D0..D{n-1} with a shape of nd lengths (NumPy's error where two
    differ and neither is 1)."""
    lines = []
    for d in range(n - nd, n):
        j = d - (n - nd)
        lines += [f"    if {shape}[{j}] != 1:",
                  f"        if D{d} != 1 and D{d} != {shape}[{j}]:",
                  "            raise ValueError('shape mismatch: objects cannot be broadcast to a "
                  "single shape')",
                  f"        D{d} = {shape}[{j}]"]
    return lines


# ---- np.unravel_index, np.ravel_multi_index ----

def _dims(t):
    """The number of dimensions a shape argument gives (an int: 1), or None."""
    if _is_int(t):
        return 1
    if isinstance(t, (types.UniTuple, types.Tuple)) and all(_is_int(x) for x in t.types):
        return len(t.types)
    return None


@overload(np.unravel_index)
def _unravel_index(indices, shape, order="C"):
    nd, k = _dims(shape), _int_indices(indices)
    if nd is None or k is None or k > 1 and not is_array(indices):
        return None
    if getattr(order, "literal_value", "C") != "C" and not isinstance(order, (str,
                                                                              types.Omitted)):
        return None
    dims = "(shape,)" if _is_int(shape) else "shape"
    if k == 0:
        lines = ["def impl(indices, shape, order='C'):\n", f"    s = {dims}\n",
                 "    size = 1\n    for d in s:\n        size *= d\n",
                 "    if indices < 0 or indices >= size:\n",
                 "        raise ValueError('index ' + str(indices) + ' is out of bounds for array "
                 "with size ' + str(size))\n", "    rest = indices\n"]
        for d in reversed(range(nd)):
            lines.append(f"    c{d} = rest % s[{d}]\n    rest //= s[{d}]\n")
        lines.append(f"    return {_tuple(f'c{d}' for d in range(nd))}\n")
        return _generated("".join(lines))
    lines = ["def impl(indices, shape, order='C'):\n", f"    s = {dims}\n",
             "    size = 1\n    for d in s:\n        size *= d\n",
             "    ind = np.asarray(indices)\n    flat = ind.ravel()\n"]
    for d in range(nd):
        lines.append(f"    c{d} = np.empty(flat.size, np.intp)\n")
    lines += ["    for i in range(flat.size):\n", "        rest = flat[i]\n",
              "        if rest < 0 or rest >= size:\n",
              "            raise ValueError('index ' + str(rest) + ' is out of bounds for array "
              "with size ' + str(size))\n"]
    for d in reversed(range(nd)):
        lines.append(f"        c{d}[i] = rest % s[{d}]\n        rest //= s[{d}]\n")
    lines.append(f"    return {_tuple(f'c{d}.reshape(ind.shape)' for d in range(nd))}\n")
    return _generated("".join(lines))


@overload(np.ravel_multi_index)
def _ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    nd = _dims(dims)
    items = _sequence_items(multi_index)
    if nd is None or items is None or isinstance(multi_index, types.List):
        return None
    kinds = {_int_indices(t) for t in items}
    if len(kinds) != 1 or None in kinds:
        return None
    if len(items) != nd:
        raise ValueError(f"parameter multi_index must be a sequence of length {nd}, not "
                         f"{len(items)}")
    shape = "(dims,)" if _is_int(dims) else "dims"
    if kinds == {0}:
        lines = ["def impl(multi_index, dims, mode='raise', order='C'):\n", f"    s = {shape}\n",
                 "    r = 0\n"]
        for d in range(nd):
            lines.append(f"    c = multi_index[{d}]\n"
                         f"    if c < 0 or c >= s[{d}]:\n"
                         "        raise ValueError('invalid entry in coordinates array')\n"
                         f"    r = r * s[{d}] + c\n")
        lines.append("    return r\n")
        return _generated("".join(lines))
    lines = ["def impl(multi_index, dims, mode='raise', order='C'):\n", f"    s = {shape}\n",
             "    first = np.asarray(multi_index[0])\n"]
    for d in range(nd):
        lines.append(f"    m{d} = np.asarray(multi_index[{d}])\n"
                     f"    if m{d}.shape != first.shape:\n"
                     "        raise ValueError('shape mismatch: objects cannot be broadcast to a "
                     "single shape')\n"
                     f"    f{d} = m{d}.ravel()\n")
    lines += ["    out = np.empty(first.size, np.intp)\n", "    for i in range(first.size):\n",
              "        r = 0\n"]
    for d in range(nd):
        lines.append(f"        c = f{d}[i]\n"
                     f"        if c < 0 or c >= s[{d}]:\n"
                     "            raise ValueError('invalid entry in coordinates array')\n"
                     f"        r = r * s[{d}] + c\n")
    lines += ["        out[i] = r\n", "    return out.reshape(first.shape)\n"]
    return _generated("".join(lines))


# ---- np.inner ----

@overload(np.inner)
def _inner(a, b):
    """The sums of products over the last axes: a.shape[:-1] + b.shape[:-1]; a scalar times."""
    if is_number(a) and is_number(b):
        return lambda a, b: a * b
    if is_number(a) or is_number(b):
        if not (is_array(a) or is_array(b)):
            return None
        return lambda a, b: a * b
    if not (is_array(a) and is_array(b)) or a.ndim == 0 or b.ndim == 0:
        return None
    dt = types._as_type(np.result_type(np.dtype(a.dtype.name), np.dtype(b.dtype.name)))
    acc = types.int64 if isinstance(dt, types.Boolean) else dt
    na, nb = a.ndim, b.ndim
    shape = _tuple([f"a.shape[{d}]" for d in range(na - 1)] +
                   [f"b.shape[{d}]" for d in range(nb - 1)])
    finish = "    return dt(out[0, 0])\n" if shape == "()" else \
        f"    return out.reshape({shape})\n"
    source = (
        "def impl(a, b):\n"
        f"    n = a.shape[{na - 1}]\n"
        f"    if b.shape[{nb - 1}] != n:\n"
        "        raise ValueError('shapes not aligned: the last dimensions of a and b differ')\n"
        f"    ra = {' * '.join(['1'] + [f'a.shape[{d}]' for d in range(na - 1)])}\n"
        f"    rb = {' * '.join(['1'] + [f'b.shape[{d}]' for d in range(nb - 1)])}\n"
        "    x = np.ascontiguousarray(a).reshape((ra, n))\n"
        "    y = np.ascontiguousarray(b).reshape((rb, n))\n"
        "    out = np.empty((x.shape[0], y.shape[0]), dt)\n"
        "    for i in range(x.shape[0]):\n"
        "        for j in range(y.shape[0]):\n"
        "            s = acc(0)\n"
        "            for k in range(n):\n"
        "                s += acc(x[i, k]) * acc(y[j, k])\n"
        "            out[i, j] = dt(s)\n" + finish)
    return _generated(source, {"dt": dt, "acc": acc})


# ---- np.put of lists, a.put, np.compress ----

_SEQUENCES = (types.List, types.BaseTuple)


@overload(np.put)
def _put_sequences(a, ind, v, mode="raise"):
    """np.put with the indices or the values a list or tuple: read as np.asarray reads them."""
    if not is_array(a) or not (isinstance(ind, _SEQUENCES) or isinstance(v, _SEQUENCES)):
        return None
    return lambda a, ind, v, mode="raise": np.put(a, np.asarray(ind), np.asarray(v), mode)


@overload_method(types.Array, "put")
def _array_put(a, ind, v, mode="raise"):
    return lambda a, ind, v, mode="raise": np.put(a, ind, v, mode)


@overload(np.compress)
def _compress(condition, a, axis=None, out=None):
    """The items (or the slices along axis) where the 1-d condition is true: np.take of its
    nonzero positions, so a True past the array's end is NumPy's IndexError."""
    if not is_array(a) or given(out):
        return None
    if is_array(condition) and condition.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    if given(axis):
        return lambda condition, a, axis=None, out=None: \
            np.take(a, np.nonzero(np.asarray(condition))[0], axis=axis)
    return lambda condition, a, axis=None, out=None: \
        np.take(a.ravel(), np.nonzero(np.asarray(condition))[0])


@overload_method(types.Array, "compress")
def _array_compress(a, condition, axis=None, out=None):
    if given(out):
        return None
    return lambda a, condition, axis=None, out=None: np.compress(condition, a, axis)


@overload_method(types.Array, "itemset")
def _array_itemset(a, i, v=None):
    """Numba's a.itemset(v) of an array of one item and a.itemset(i, v) (a flat index, or a
    tuple of one index per axis), which NumPy 2 removed: a[...] = v, a.flat[i] = v."""
    if a.readonly:
        return None
    if v is None or v is types.none:
        def one(a, i, v=None):
            if a.size != 1:
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            a.flat[0] = i
        return one
    if isinstance(i, types.Integer):
        def flat(a, i, v=None):
            a.flat[i] = v
        return flat
    if isinstance(i, types.BaseTuple):
        def at(a, i, v=None):
            a[i] = v
        return at
    return None
