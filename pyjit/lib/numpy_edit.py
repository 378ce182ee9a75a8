"""np.split, np.array_split, np.append, np.delete, np.insert and np.ediff1d, written in the
compiled subset. The splits return a list of views, as Numba does (NumPy's list of arrays);
append, delete and insert also along an axis (insert at an int, a sequence of positions or a
slice, of numbers, lists and arrays broadcast as NumPy's)."""
import numpy as np

from ._util import generated, given, is_array, is_number, overload, promote, register_jitable, types
from .numpy_shape import _norm_axis


def _sections_given(t):
    return isinstance(t, (types.Integer, types.Boolean))


def _slice_given(t):
    return isinstance(t, types.Type) and str(t) == "slice"


@register_jitable
def _slice_positions(obj, n):
    """The positions a slice takes of n items, as NumPy's arange(*obj.indices(n))."""
    start, stop, step = obj.indices(n)
    return np.arange(start, stop, step)


def _indices_given(t):
    if isinstance(t, (types.UniTuple, types.List)):
        return isinstance(t.dtype, types.Integer)
    return is_array(t) and t.ndim == 1 and isinstance(t.dtype, types.Integer)


@register_jitable
def _split_at(a, points, axis):
    """The views of a between the consecutive points (slice bounds, clipped as slices clip)."""
    moved = np.swapaxes(a, axis, 0)
    out = [np.swapaxes(moved[points[0]:points[1]], axis, 0)]
    for k in range(1, len(points) - 1):
        out.append(np.swapaxes(moved[points[k]:points[k + 1]], axis, 0))
    return out


@register_jitable
def _even_points(n, sections):
    """The bounds of sections parts of n items, the first n % sections one longer."""
    if sections <= 0:
        raise ValueError("number sections must be larger than 0.")
    each, extra = divmod(n, sections)
    points = [0]
    for k in range(sections):
        points.append(points[k] + each + (1 if k < extra else 0))
    return points


@register_jitable
def _given_points(n, indices):
    points = [0]
    for k in range(len(indices)):
        points.append(int(indices[k]))
    points.append(n)
    return points


def _split_typing(even):
    """np.split (even=True: the sections must divide the axis) and np.array_split."""
    def typing(ary, indices_or_sections, axis=0):
        if not is_array(ary) or ary.ndim == 0:
            return None
        if _sections_given(indices_or_sections):
            def impl(ary, indices_or_sections, axis=0):
                n = ary.shape[axis]
                if even and n % indices_or_sections:
                    raise ValueError("array split does not result in an equal division")
                return _split_at(ary, _even_points(n, indices_or_sections), axis)
            return impl
        if not _indices_given(indices_or_sections):
            return None

        def impl_indices(ary, indices_or_sections, axis=0):
            return _split_at(ary, _given_points(ary.shape[axis], indices_or_sections), axis)
        return impl_indices
    return typing


overload(np.split)(_split_typing(True))
overload(np.array_split)(_split_typing(False))


def _split_along(name, axis_of, min_ndim):
    """np.hsplit, np.vsplit, np.dsplit: np.split along a fixed axis; an array of fewer
    dimensions raises NumPy's ValueError when called."""
    def typing(ary, indices_or_sections):
        if not is_array(ary):
            return None
        if ary.ndim < min_ndim:
            message = (f"{name} only works on arrays of {min_ndim} or more dimensions" if
                       min_ndim > 1 else "hsplit only works on arrays of 1 or more dimensions")

            def refuse(ary, indices_or_sections):
                raise ValueError(message)
            return refuse
        axis = axis_of(ary.ndim)

        def impl(ary, indices_or_sections):
            return np.split(ary, indices_or_sections, axis)
        return impl
    typing.__name__ = typing.__qualname__ = f"_{name}"
    return typing


overload(np.hsplit)(_split_along("hsplit", lambda nd: 1 if nd > 1 else 0, 1))
overload(np.vsplit)(_split_along("vsplit", lambda nd: 0, 2))
overload(np.dsplit)(_split_along("dsplit", lambda nd: 2, 3))


def _scalar_type(t):
    """The dtype of an array, or of the array NumPy makes of a scalar or a list."""
    if is_array(t):
        return t.dtype
    if isinstance(t, (types.List, types.UniTuple)):
        return t.dtype
    return t if is_number(t) else None


def _flat(values):
    pass


@overload(_flat)
def _flat_impl(values):
    """values (an array, a list or a scalar) as a 1-d array; None as an empty one."""
    if not given(values):
        return lambda values: np.empty(0, dtype=np.float64)
    if is_array(values):
        return lambda values: values.ravel()
    if is_number(values):
        return lambda values: np.full(1, values)
    return lambda values: np.asarray(values).ravel()


@overload(np.append)
def _append(arr, values, axis=None):
    if given(axis):   # NumPy's own definition: the arrays joined along the axis
        if not (is_array(arr) and is_array(values)):
            return None
        if arr.ndim != values.ndim:
            message = (f"all the input arrays must have same number of dimensions, but the array "
                       f"at index 0 has {arr.ndim} dimension(s) and the array at index 1 has "
                       f"{values.ndim} dimension(s)")

            def differ(arr, values, axis=None):
                raise ValueError(message)
            return differ
        return lambda arr, values, axis=None: np.concatenate((arr, values), axis=axis)
    at, vt = _scalar_type(arr), _scalar_type(values)
    if at is None or vt is None:
        return None
    rt = promote(at, vt)

    def impl(arr, values, axis=None):
        a = _flat(arr)
        v = _flat(values)
        out = np.empty(a.size + v.size, dtype=rt)
        out[:a.size] = a
        out[a.size:] = v
        return out
    return impl


@register_jitable
def _checked_index(i, n):
    if i < -n or i >= n:
        raise IndexError("index " + str(i) + " is out of bounds for axis 0 with size " + str(n))
    return i + n if i < 0 else i


def _is_slice(t):
    return getattr(t, "name", None) == "slice"


@overload(np.delete)
def _delete(arr, obj, axis=None):
    if not is_array(arr):
        return None
    if given(axis):
        return _delete_along(arr, obj)
    if isinstance(obj, types.Integer):
        def impl(arr, obj, axis=None):
            a = arr.ravel()
            i = _checked_index(obj, a.size)
            out = np.empty(a.size - 1, dtype=a.dtype)
            out[:i] = a[:i]
            out[i:] = a[i + 1:]
            return out
        return impl
    if _is_slice(obj):
        def impl_slice(arr, obj, axis=None):
            a = arr.ravel()
            keep = np.ones(a.size, dtype=np.bool_)
            keep[obj] = False
            return a[keep]
        return impl_slice
    if is_array(obj) and isinstance(obj.dtype, types.Boolean):
        one_d = obj.ndim == 1

        def impl_mask(arr, obj, axis=None):
            a = arr.ravel()
            if not one_d or obj.size != a.size:
                raise ValueError("boolean array argument obj to delete must be one dimensional "
                                 "and match the axis length of " + str(a.size))
            return a[~obj.ravel()]
        return impl_mask
    if not _indices_given(obj):
        return None

    def impl_indices(arr, obj, axis=None):
        a = arr.ravel()
        keep = np.ones(a.size, dtype=np.bool_)
        for k in range(len(obj)):
            keep[_checked_index(obj[k], a.size)] = False
        return a[keep]
    return impl_indices


def _delete_along(arr, obj):
    """np.delete along an axis: the slices of arr at the kept positions (an int, a sequence of
    ints, or a 1-d mask of the axis's length say which go), a new C-contiguous array."""
    ok = isinstance(obj, types.Integer) or _indices_given(obj) or \
        (is_array(obj) and isinstance(obj.dtype, types.Boolean) and obj.ndim == 1)
    if _is_slice(obj):
        def impl_slice(arr, obj, axis=None):
            moved = np.swapaxes(arr, axis, 0)
            keep = np.ones(moved.shape[0], dtype=np.bool_)
            keep[obj] = False
            return np.ascontiguousarray(np.swapaxes(moved[keep], 0, axis))
        return impl_slice
    if not ok:
        return None
    if is_array(obj) and isinstance(obj.dtype, types.Boolean):
        def impl_mask(arr, obj, axis=None):
            moved = np.swapaxes(arr, axis, 0)
            if obj.size != moved.shape[0]:
                raise ValueError("boolean array argument obj to delete must be one dimensional "
                                 "and match the axis length of " + str(moved.shape[0]))
            return np.ascontiguousarray(np.swapaxes(moved[~obj], 0, axis))
        return impl_mask
    single = isinstance(obj, types.Integer)

    def impl(arr, obj, axis=None):
        moved = np.swapaxes(arr, axis, 0)
        n = moved.shape[0]
        keep = np.ones(n, dtype=np.bool_)
        if single:
            keep[_checked_index(obj, n)] = False
        else:
            for k in range(len(obj)):
                keep[_checked_index(obj[k], n)] = False
        return np.ascontiguousarray(np.swapaxes(moved[keep], 0, axis))
    return impl


@register_jitable
def _insert_index(i, n, axis):
    if i < -n or i > n:
        raise IndexError("index " + str(i) + " is out of bounds for axis " + str(axis) +
                         " with size " + str(n))
    return i + n if i < 0 else i


@register_jitable
def _insert_flat_at(a, i, v, dt):
    """The 1-d a with the values of the 1-d v in at position i, as dt."""
    out = np.empty(a.size + v.size, dtype=dt)
    out[:i] = a[:i]
    for k in range(v.size):
        out[i + k] = dt(v[k])
    out[i + v.size:] = a[i:]
    return out


@overload(np.insert)
def _insert(arr, obj, values, axis=None):
    if not is_array(arr) or _scalar_type(values) is None:
        return None
    if _slice_given(obj):      # the positions the slice takes, then as a sequence of them
        if given(axis):
            return lambda arr, obj, values, axis=None: np.insert(
                arr, _slice_positions(obj, arr.shape[_norm_axis(axis, arr.ndim)]), values, axis)
        return lambda arr, obj, values, axis=None: np.insert(
            arr, _slice_positions(obj, arr.size), values)
    if given(axis):
        return _insert_along(arr, obj, values)
    dt = arr.dtype
    if isinstance(obj, types.Integer):
        def impl(arr, obj, values, axis=None):
            a = arr.ravel()
            return _insert_flat_at(a, _insert_index(obj, a.size, 0), _flat(values), dt)
        return impl
    if not _indices_given(obj):
        return None

    def impl_indices(arr, obj, values, axis=None):
        a = arr.ravel()
        v = _flat(values)
        m = len(obj)
        if m == 1:      # NumPy's rule: every value goes in at a sequence's one position
            return _insert_flat_at(a, _insert_index(obj[0], a.size, 0), v, dt)
        where = np.empty(m, dtype=np.int64)
        for k in range(m):
            where[k] = _insert_index(obj[k], a.size, 0)
        if v.size != 1 and v.size != m:
            raise ValueError("shape mismatch: value array of shape (" + str(v.size) +
                             ",) could not be broadcast to indexing result of shape (" +
                             str(m) + ",)")
        order = np.argsort(where, kind="mergesort")
        taken = np.zeros(a.size + m, dtype=np.bool_)
        out = np.empty(a.size + m, dtype=dt)
        for r in range(m):      # the r-th inserted (in order of place) lands r places further
            k = order[r]
            taken[where[k] + r] = True
            out[where[k] + r] = dt(v[k if v.size > 1 else 0])
        j = 0
        for p in range(out.size):
            if not taken[p]:
                out[p] = a[j]
                j += 1
        return out
    return impl_indices


def _values_source(values, nd):
    """Source making v, values as an array of nd dimensions (NumPy's array(values, ndmin=nd),
    leading axes of length 1 added); None where values is no number, list or array of numbers
    or has more dimensions than nd."""
    ones = "1, " * nd
    if is_number(values):
        return f"v = np.full(({ones}), values)"
    if isinstance(values, (types.List, types.UniTuple)) and is_number(values.dtype):
        values, make = types.Array(values.dtype, 1, "C"), "v = np.asarray(values)"
    elif is_array(values):
        make = "v = values"
    else:
        return None
    if values.ndim > nd:
        return None
    if values.ndim == 0:
        return f"v = np.full(({ones}), values[()])"
    if values.ndim == nd:
        return make
    lead = "1, " * (nd - values.ndim)
    dims = "".join(f"v.shape[{d}], " for d in range(values.ndim))
    return make + f"\nv = np.ascontiguousarray(v).reshape(({lead}{dims}))"


def _insert_at(nd, index, move):
    """np.insert's lines for one position (index, source): values' slices go in there, their
    first axis made the inserted one when move (obj an int), as NumPy's."""
    lines = [f"i = _insert_index({index}, n, ax)"]
    if move:
        lines.append("v = np.moveaxis(v, 0, ax)")
    lines.append("m = v.shape[ax]")
    return lines + _values_in(nd) + ["out[:i] = moved[:i]", "out[i:i + m] = vm",
                                     "out[i + m:] = moved[i:]"]


def _values_in(nd):
    """vm: v broadcast to the m inserted slices (moved first); out: the result, moved likewise."""
    shape = "".join(f"m if ax == {d} else arr.shape[{d}], " for d in range(nd))
    rest = "".join(f"moved.shape[{d}], " for d in range(1, nd))
    return [f"vb = np.empty(({shape}), dt)", "vb[...] = v", "vm = np.moveaxis(vb, ax, 0)",
            f"out = np.empty((n + m, {rest}), dt)"]


def _insert_many(nd):
    """np.insert's lines for several positions: one slice of values at each, values broadcast
    to them; the r-th inserted in order of place (stable) lands r places further."""
    return (["m = len(obj)", "where = np.empty(m, np.int64)", "for k in range(m):",
             "    where[k] = _insert_index(obj[k], n, ax)"] + _values_in(nd) +
            ["order = np.argsort(where, kind='mergesort')", "taken = np.zeros(n + m, np.bool_)",
             "for r in range(m):", "    k = order[r]", "    taken[where[k] + r] = True",
             "    out[where[k] + r] = vm[k]", "j = 0", "for p in range(n + m):",
             "    if not taken[p]:", "        out[p] = moved[j]", "        j += 1"])


def _insert_along(arr, obj, values):
    """np.insert along an axis, as NumPy's: at an int position, values (a number, a list or an
    array) get arr's number of dimensions by leading axes of length 1, and their first axis
    becomes the inserted one (a 1-d row of values fills one column where axis=1); at a sequence
    of one position, their axis there is the inserted one; at several, one slice goes in at
    each, values broadcast to them. The result is a new C-contiguous array."""
    nd = arr.ndim
    single = isinstance(obj, types.Integer)
    make_v = _values_source(values, nd)
    if nd == 0 or make_v is None or not (single or _indices_given(obj)):
        return None
    lines = [f"ax = _norm_axis(axis, {nd})", "n = arr.shape[ax]", "moved = np.moveaxis(arr, ax, 0)"]
    lines += make_v.splitlines()
    if single:
        lines += _insert_at(nd, "obj", True)
    else:
        lines += (["if len(obj) == 1:"] + ["    " + x for x in _insert_at(nd, "obj[0]", False)] +
                  ["else:"] + ["    " + x for x in _insert_many(nd)])
    lines.append("return np.ascontiguousarray(np.moveaxis(out, 0, ax))")
    source = "def impl(arr, obj, values, axis=None):\n" + "".join(f"    {x}\n" for x in lines)
    return generated("impl", source, {"dt": arr.dtype, "_insert_index": _insert_index,
                                      "_norm_axis": _norm_axis})


def _raiser(kind, message):
    def impl(ary, to_end=None, to_begin=None):
        raise kind(message)
    return impl


@overload(np.ediff1d)
def _ediff1d(ary, to_end=None, to_begin=None):
    if not is_array(ary):
        return None
    for name, extra in (("to_end", to_end), ("to_begin", to_begin)):
        if not given(extra):
            continue
        if _scalar_type(extra) is None:
            return None
        if not np.can_cast(_scalar_type(extra).name, ary.dtype.name, casting="same_kind"):
            return _raiser(TypeError, f"dtype of `{name}` must be compatible with input `ary` "
                                      "under the `same_kind` rule.")
    if isinstance(ary.dtype, types.Boolean):
        return _raiser(TypeError, "numpy boolean subtract, the `-` operator, is not supported, "
                                  "use the bitwise_xor, the `^` operator, or the logical_xor "
                                  "function instead.")
    dt = ary.dtype

    def impl(ary, to_end=None, to_begin=None):
        a = ary.ravel()
        head = _flat(to_begin)
        tail = _flat(to_end)
        n = max(a.size - 1, 0)
        out = np.empty(head.size + n + tail.size, dtype=dt)
        for k in range(head.size):
            out[k] = dt(head[k])
        for k in range(n):
            out[head.size + k] = a[k + 1] - a[k]
        for k in range(tail.size):
            out[head.size + n + k] = dt(tail[k])
        return out
    return impl
