"""Joining, splitting the shape of and rearranging arrays, written in the compiled subset:
np.concatenate, stack, vstack, hstack, column_stack, expand_dims, atleast_1d/2d/3d, flip,
fliplr, flipud, roll, repeat, tile, ravel, reshape, array.flatten and array.item, and the
broadcasting views np.broadcast_to, broadcast_shapes and broadcast_arrays. Semantics and messages
are NumPy's.

A tuple of arrays may mix layouts and dtypes (its items are then of different types), so the
functions over a sequence of arrays are generated per tuple length: each item is read with a
constant index. Copies along an axis view every array as (before, along, after), three axes
whatever its dimension, so that one slice assignment moves each block."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ._util import generated, given, is_array, is_number, overload, overload_method, promote, types

AxisError = np.exceptions.AxisError


def _generated(name, source, env):
    return generated(name, source, dict(env, AxisError=AxisError, _blocks=_blocks,
                                        _norm_axis=_norm_axis, as_strided=as_strided))


def _norm_axis(axis, ndim):
    pass


@overload(_norm_axis)
def _norm_axis_impl(axis, ndim):
    def impl(axis, ndim):
        if axis < -ndim or axis >= ndim:
            raise AxisError("axis is out of bounds for array of this dimension")
        return axis + ndim if axis < 0 else axis
    return impl


def _blocks(a, axis):
    pass


@overload(_blocks)
def _blocks_impl(a, axis):
    """a as a C-contiguous (before, along, after) array: a view where a is C-contiguous."""
    contiguous = a.layout == "C"

    def impl(a, axis):
        before = 1
        after = 1
        for d in range(axis):
            before *= a.shape[d]
        for d in range(axis + 1, a.ndim):
            after *= a.shape[d]
        b = a if contiguous else a.copy()
        return b.reshape((before, a.shape[axis], after))
    return impl


def _arrays(seq):
    """The item types of a tuple of arrays, or None."""
    if isinstance(seq, types.Tuple) and seq.types and all(is_array(t) for t in seq.types):
        return list(seq.types)
    return None


def _shape_source(ndim, name, pick):
    """Source of a shape tuple of ndim entries, entry d being pick(d)."""
    return f"{name} = ({''.join(pick(d) + ', ' for d in range(ndim))})"


def _join_source(n, ndim, out_ndim, new_axis):
    """The body shared by concatenate (new_axis False) and stack (True) over n arrays."""
    reads = "".join(f"    a{i} = arrays[{i}]\n" for i in range(n))
    lines = [reads, f"    ax = _norm_axis(axis, {out_ndim})\n"]
    if new_axis:
        lines.append("    along = %d\n" % n)
        for i in range(1, n):
            lines.append(f"    if a{i}.shape != a0.shape:\n"
                         "        raise ValueError('all input arrays must have the same shape')\n")
        pick = (lambda d: f"along if ax == {d} else a0.shape[{d} - ({d} > ax)]")
    else:
        lines.append("    along = " + " + ".join(f"a{i}.shape[ax]" for i in range(n)) + "\n")
        for i in range(1, n):
            lines.append(f"    for d in range({ndim}):\n"
                         f"        if d != ax and a{i}.shape[d] != a0.shape[d]:\n"
                         "            raise ValueError('all the input array dimensions except "
                         "for the concatenation axis must match exactly')\n")
        pick = (lambda d: f"along if ax == {d} else a0.shape[{d}]")
    lines.append("    " + _shape_source(out_ndim, "shape", pick) + "\n")
    lines.append("    out = np.empty(shape, dt)\n    o = _blocks(out, ax)\n    at = 0\n")
    for i in range(n):
        if new_axis:
            lines.append(f"    o[:, {i}, :] = a{i}.copy().reshape((o.shape[0], o.shape[2]))\n")
        else:
            lines.append(f"    b = _blocks(a{i}, ax)\n    o[:, at:at + b.shape[1], :] = b\n"
                         "    at += b.shape[1]\n")
    lines.append("    return out\n")
    return "".join(lines)


def _join(arrays, axis, new_axis):
    items = _arrays(arrays)
    if items is not None:
        ndim = items[0].ndim
        if any(t.ndim != ndim for t in items) or (ndim == 0 and not new_axis):
            return None
        dt = promote(*(t.dtype for t in items))
        body = _join_source(len(items), ndim, ndim + new_axis, new_axis)
        return _generated("impl", "def impl(arrays, axis=0):\n" + body, {"dt": dt})
    if isinstance(arrays, types.List) and is_array(arrays.dtype):
        return _join_list(arrays.dtype, new_axis)
    return None


def _join_list(item, new_axis):
    ndim, dt = item.ndim, item.dtype
    out_ndim = ndim + new_axis
    pick = ((lambda d: f"along if ax == {d} else a0.shape[{d} - ({d} > ax)]") if new_axis
            else (lambda d: f"along if ax == {d} else a0.shape[{d}]"))
    check = ("        if a.shape != a0.shape:\n"
             "            raise ValueError('all input arrays must have the same shape')\n"
             if new_axis else
             f"        for d in range({ndim}):\n"
             "            if d != ax and a.shape[d] != a0.shape[d]:\n"
             "                raise ValueError('all the input array dimensions except for the "
             "concatenation axis must match exactly')\n")
    copy = ("        o[:, at, :] = a.copy().reshape((o.shape[0], o.shape[2]))\n        at += 1\n"
            if new_axis else
            "        b = _blocks(a, ax)\n        o[:, at:at + b.shape[1], :] = b\n"
            "        at += b.shape[1]\n")
    source = (
        "def impl(arrays, axis=0):\n"
        "    if len(arrays) == 0:\n"
        "        raise ValueError('need at least one array to concatenate')\n"
        "    a0 = arrays[0]\n"
        f"    ax = _norm_axis(axis, {out_ndim})\n"
        + ("    along = len(arrays)\n" if new_axis else
           "    along = 0\n    for a in arrays:\n        along += a.shape[ax]\n")
        + "    for a in arrays:\n" + check
        + "    " + _shape_source(out_ndim, "shape", pick) + "\n"
        "    out = np.empty(shape, dt)\n    o = _blocks(out, ax)\n    at = 0\n"
        "    for a in arrays:\n" + copy + "    return out\n")
    return _generated("impl", source, {"dt": dt})


@overload(np.concatenate)
def _concatenate(arrays, axis=0):
    if isinstance(axis, types.NoneType):
        return None   # numpy_misc's: the arrays flattened
    return _join(arrays, axis, False)


@overload(np.stack)
def _stack(arrays, axis=0):
    return _join(arrays, axis, True)


def _all_ndim(arrays):
    items = _arrays(arrays)
    if items is None and isinstance(arrays, types.List) and is_array(arrays.dtype):
        items = [arrays.dtype]
    if not items or any(t.ndim != items[0].ndim for t in items):
        return None
    return items[0].ndim


@overload(np.vstack)
def _vstack(tup):
    ndim = _all_ndim(tup)
    if ndim == 1:
        return lambda tup: np.stack(tup, 0)
    if ndim is not None and ndim >= 2:
        return lambda tup: np.concatenate(tup, 0)
    return _stack_mixed(tup, "atleast_2d", 0)


def _stack_mixed(tup, lift, axis):
    """vstack (and dstack) of a tuple of arrays of different ndims: each lifted (np.atleast_2d,
    np.atleast_3d) then joined, as NumPy's."""
    items = _arrays(tup)
    if not items or not isinstance(tup, types.Tuple):
        return None
    lifted = ", ".join(f"np.{lift}(tup[{k}])" for k in range(len(items)))
    return _generated("impl", f"def impl(tup):\n    return np.concatenate(({lifted},), {axis})\n",
                      {})


@overload(np.hstack)
def _hstack(tup):
    ndim = _all_ndim(tup)
    if ndim == 1:
        return lambda tup: np.concatenate(tup, 0)
    if ndim is not None and ndim >= 2:
        return lambda tup: np.concatenate(tup, 1)
    return None


@overload(np.column_stack)
def _column_stack(tup):
    ndim = _all_ndim(tup)
    if ndim == 1:
        return lambda tup: np.stack(tup, 1)
    if ndim == 2:
        return lambda tup: np.concatenate(tup, 1)
    return None


@overload(np.expand_dims)
def _expand_dims(a, axis):
    if not is_array(a) or not isinstance(axis, (types.Integer, types.Boolean)):
        return None
    nd = a.ndim
    if nd == 0:
        return lambda a, axis: as_strided(a, (1,), (0 * _norm_axis(axis, 1),))
    source = ("def impl(a, axis):\n"
              f"    ax = _norm_axis(axis, {nd + 1})\n"
              "    " + _shape_source(nd + 1, "shape",
                                     lambda d: f"1 if ax == {d} else a.shape[{d} - ({d} > ax)]")
              + "\n    " + _shape_source(nd + 1, "strides",
                                         lambda d: f"0 if ax == {d} else a.strides[{d} - ({d} > ax)]")
              + "\n    return as_strided(a, shape, strides)\n")
    return _generated("impl", source, {})


def _at_least(a, ndim):
    if is_number(a):
        shape = (1,) * ndim
        return lambda a: np.full(shape, a)
    if not is_array(a):
        return None
    if a.ndim >= ndim:
        return lambda a: a
    # NumPy: a 0-d array becomes (1,)*ndim; 1-d (n,) becomes (1, n) and (1, n, 1); 2-d (m, n)
    # becomes (m, n, 1): views, the new axes of stride 0
    if a.ndim == 0:
        shape, strides = "(1,) * %d" % ndim, "(0,) * %d" % ndim
    elif a.ndim == 1:
        shape = "(1, a.shape[0])" if ndim == 2 else "(1, a.shape[0], 1)"
        strides = "(0, a.strides[0])" if ndim == 2 else "(0, a.strides[0], 0)"
    else:
        shape, strides = "(a.shape[0], a.shape[1], 1)", "(a.strides[0], a.strides[1], 0)"
    source = f"def impl(a):\n    return as_strided(a, {shape}, {strides})\n"
    return _generated("impl", source, {})


@overload(np.atleast_1d)
def _atleast_1d(a):
    return _at_least(a, 1)


@overload(np.atleast_2d)
def _atleast_2d(a):
    return _at_least(a, 2)


@overload(np.atleast_3d)
def _atleast_3d(a):
    return _at_least(a, 3)


@overload(np.flip)
def _flip(m, axis=None):
    if not is_array(m):
        return None
    nd = m.ndim
    if nd == 0 and not given(axis):
        return lambda m, axis=None: m[...]   # a view of the one item
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        index = ", ".join(["::-1"] * nd)
        return _generated("impl", f"def impl(m, axis=None):\n    return m[{index}]\n", {})
    if not isinstance(axis, (types.Integer, types.Boolean)):
        return None
    index = ", ".join(f"::(-1 if ax == {d} else 1)" for d in range(nd))
    return _generated("impl", f"def impl(m, axis=None):\n    ax = _norm_axis(axis, {nd})\n"
                              f"    return m[{index}]\n", {})


@overload(np.fliplr)
def _fliplr(m):
    if not is_array(m) or m.ndim < 2:
        return None
    return lambda m: m[:, ::-1]


@overload(np.flipud)
def _flipud(m):
    if not is_array(m) or m.ndim < 1:
        return None
    return lambda m: m[::-1]


@overload(np.roll)
def _roll(a, shift, axis=None):
    if not is_array(a) or not isinstance(shift, (types.Integer, types.Boolean)):
        return None
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        def flat(a, shift, axis=None):
            src = a.ravel()
            out = np.empty(a.shape, a.dtype)
            dst = out.ravel()
            n = src.size
            if n:
                s = shift % n
                dst[s:] = src[:n - s]
                dst[:s] = src[n - s:]
            return out
        return flat
    if not isinstance(axis, (types.Integer, types.Boolean)):
        return None

    def along(a, shift, axis=None):
        ax = _norm_axis(axis, a.ndim)
        src = _blocks(a, ax)
        out = np.empty(a.shape, a.dtype)
        dst = _blocks(out, ax)
        n = src.shape[1]
        if n:
            s = shift % n
            dst[:, s:, :] = src[:, :n - s, :]
            dst[:, :s, :] = src[:, n - s:, :]
        return out
    return along


@overload(np.repeat)
def _repeat(a, repeats, axis=None):
    if not (is_array(a) or is_number(a)):
        return None
    if given(axis):
        return _repeat_along(a, repeats, axis)
    if isinstance(repeats, (types.Integer, types.Boolean)):
        def scalar_count(a, repeats, axis=None):
            src = np.asarray(a).ravel()
            if repeats < 0 and src.size > 0:
                raise ValueError("negative dimensions are not allowed")
            out = np.empty(src.size * max(repeats, 0), src.dtype)
            for i in range(src.size):
                for j in range(repeats):
                    out[i * repeats + j] = src[i]
            return out
        return scalar_count
    if is_array(repeats) and isinstance(repeats.dtype, types.Integer) and repeats.ndim <= 1:
        def counts(a, repeats, axis=None):
            src = np.asarray(a).ravel()
            reps = repeats.ravel()
            if reps.size != src.size and reps.size != 1:
                raise ValueError("operands could not be broadcast together")
            total = 0
            for i in range(src.size):
                r = reps[i] if reps.size > 1 else reps[0]
                if r < 0:
                    raise ValueError("repeats may not contain negative values.")
                total += r
            out = np.empty(total, src.dtype)
            at = 0
            for i in range(src.size):
                r = reps[i] if reps.size > 1 else reps[0]
                for j in range(r):
                    out[at] = src[i]
                    at += 1
            return out
        return counts
    return None


def _repeat_along(a, repeats, axis):
    """np.repeat(a, repeats, axis): each slice along the axis repeats times (an int, or one count
    per slice in a 1-d array), copied block by block."""
    if not (is_array(a) and a.ndim > 0 and isinstance(axis, (types.Integer, types.Boolean))):
        return None
    if isinstance(repeats, (types.Integer, types.Boolean)):
        count = "repeats"
        check = ("    if repeats < 0 and n > 0:   # NumPy: an empty axis takes any count\n"
                 "        raise ValueError('negative dimensions are not allowed')\n"
                 "    total = max(repeats, 0) * n\n")
    elif is_array(repeats) and isinstance(repeats.dtype, types.Integer) and repeats.ndim <= 1:
        count = "(reps[i] if reps.size > 1 else reps[0])"
        check = ("    reps = repeats.ravel()\n"
                 "    if reps.size != n and reps.size != 1:\n"
                 "        raise ValueError('operands could not be broadcast together')\n"
                 "    total = 0\n"
                 "    for i in range(n):\n"
                 f"        if {count} < 0:\n"
                 "            raise ValueError('repeats may not contain negative values.')\n"
                 f"        total += {count}\n")
    else:
        return None
    nd = a.ndim
    shape = _shape_source(nd, "shape", lambda d: f"total if ax == {d} else a.shape[{d}]")
    source = ("def impl(a, repeats, axis=None):\n"
              f"    ax = _norm_axis(axis, {nd})\n"
              "    n = a.shape[ax]\n" + check +
              f"    {shape}\n"
              "    out = np.empty(shape, a.dtype)\n"
              "    src = _blocks(a, ax)\n"
              "    dst = _blocks(out, ax)\n"
              "    at = 0\n"
              "    for i in range(n):\n"
              f"        for j in range({count}):\n"
              "            dst[:, at, :] = src[:, i, :]\n"
              "            at += 1\n"
              "    return out\n")
    return _generated("impl", source, {})


def _int_tuple(t):
    return isinstance(t, (types.UniTuple, types.Tuple)) and all(
        isinstance(x, (types.Integer, types.Boolean)) for x in t.types)


@overload(np.tile)
def _tile(A, reps):
    if is_array(A) and (_int_tuple(reps) or (A.ndim == 0 and isinstance(reps, types.Integer))):
        return _tile_tuple(A, len(reps.types) if _int_tuple(reps) else 1,
                           _int_tuple(reps))
    if not is_array(A) or A.ndim == 0 or not isinstance(reps, (types.Integer, types.Boolean)):
        return None
    nd = A.ndim
    shape = _shape_source(nd, "shape", lambda d: f"A.shape[{d}] * r" if d == nd - 1
                          else f"A.shape[{d}]")
    source = ("def impl(A, reps):\n"
              "    r = max(reps, 0)\n"
              "    " + shape + "\n"
              "    out = np.empty(shape, A.dtype)\n"
              f"    src = _blocks(A, {nd - 1})\n"
              f"    dst = _blocks(out, {nd - 1})\n"
              "    n = src.shape[1]\n"
              "    for k in range(r):\n"
              "        dst[:, k * n:(k + 1) * n, :] = src\n"
              "    return out\n")
    return _generated("impl", source, {})


def _tile_tuple(A, d, is_tuple):
    """np.tile(A, reps) with a tuple of d counts: A's shape and reps padded with leading ones to
    the same length; out[i0, i1, ...] = A[i0 % s0, i1 % s1, ...]."""
    nd = A.ndim
    n = max(nd, d)
    reads = "reps" if is_tuple else "(reps,)"
    lines = ["def impl(A, reps):\n", f"    r = {reads}\n"]
    for k in range(n):
        src = f"A.shape[{k - (n - nd)}]" if k >= n - nd else "1"
        rep = f"max(r[{k - (n - d)}], 0)" if k >= n - d else "1"
        lines.append(f"    s{k} = {src}\n    D{k} = s{k} * {rep}\n")
    shape = "".join(f"D{k}, " for k in range(n))
    lines.append(f"    out = np.empty(({shape}), A.dtype)\n")
    indent = "    "
    for k in range(n):
        lines.append(f"{indent}for i{k} in range(D{k}):\n")
        indent += "    "
    index = ", ".join(f"i{k} % s{k}" for k in range(n - nd, n))
    target = ", ".join(f"i{k}" for k in range(n))
    lines.append(f"{indent}out[{target}] = A[{index}]\n" if nd else f"{indent}out[{target}] = A[()]\n")
    lines.append("    return out\n")
    return _generated("impl", "".join(lines), {})


@overload(np.dstack)
def _dstack(tup):
    """Each array made 3-d (atleast_3d), joined along axis 2."""
    items = _arrays(tup)
    if items is None:
        return None
    parts = "".join(f"np.atleast_3d(tup[{i}]), " for i in range(len(items)))
    return _generated("impl", f"def impl(tup):\n    return np.concatenate(({parts}), axis=2)\n",
                      {})


@overload(np.diagflat)
def _diagflat(v, k=0):
    """A 2-d array with v flattened on its k-th diagonal."""
    if not (is_array(v) or is_number(v)) or not isinstance(k, (types.Integer, types.Boolean,
                                                               types.Omitted, int)):
        return None

    if is_number(v):
        def scalar(v, k=0):
            return np.diagflat(np.full(1, v), k)
        return scalar

    def impl(v, k=0):
        flat = v.ravel()
        n = flat.size + abs(k)
        out = np.zeros((n, n), flat.dtype)
        row = max(-k, 0)
        col = max(k, 0)
        for i in range(flat.size):
            out[row + i, col + i] = flat[i]
        return out
    return impl


@overload(np.rot90)
def _rot90(m, k=1, axes=(0, 1)):
    """A view of m turned k times by 90 degrees in the plane of axes, from the first towards
    the second (NumPy's composition of flip and a swap of the two axes)."""
    if not is_array(m) or not isinstance(k, (types.Integer, types.Boolean, types.Omitted, int)):
        return None
    if not (isinstance(axes, (tuple, types.Omitted)) or _int_tuple(axes)):
        return None
    if _int_tuple(axes) and len(axes.types) != 2:
        raise ValueError(f"len(axes) must be 2, not {len(axes.types)} ({axes})")
    nd = m.ndim

    def impl(m, k=1, axes=(0, 1)):
        a0, a1 = axes
        if a0 == a1 or abs(a0 - a1) == nd:
            raise ValueError("Axes must be different.")
        if a0 >= nd or a0 < -nd or a1 >= nd or a1 < -nd:
            raise ValueError("Axes out of range for array of this ndim.")
        a0 = a0 + nd if a0 < 0 else a0
        a1 = a1 + nd if a1 < 0 else a1
        turns = k % 4
        if turns == 0:
            return np.flip(np.flip(m, a0), a0)
        if turns == 2:
            return np.flip(np.flip(m, a0), a1)
        if turns == 1:
            return np.swapaxes(np.flip(m, a1), a0, a1)
        return np.flip(np.swapaxes(m, a0, a1), a1)
    return impl


def _order_of(order, accepted, what):
    """The constant order= letter of a call ('C' when omitted), upper-cased as NumPy reads it;
    one NumPy refuses is its ValueError, one known only at run time a TypeError."""
    if not given(order) or isinstance(order, str):
        return "C"
    value = getattr(order, "literal_value", None)
    if not isinstance(value, str):
        raise TypeError(f"{what}: order= must be a constant string ('C', 'F', 'A' or 'K') in "
                        f"compiled code, not {order}")
    value = value.upper()
    if value not in accepted:
        raise ValueError(f"{what}: order must be one of {', '.join(map(repr, accepted))} "
                         f"(got {value!r})")
    return value


def _memory_order(a):
    """'F' where order='A' (and 'K' of an F-contiguous array) reads a in Fortran order: its type
    is Fortran-contiguous, or (layout A) it is at run time and not C-contiguous."""
    pass


@overload(_memory_order)
def _memory_order_impl(a):
    if a.layout == "F" and a.ndim > 1:
        return lambda a: True
    if a.layout == "A" and a.ndim > 1:
        return lambda a: a.flags.f_contiguous and not a.flags.c_contiguous
    return lambda a: False


def _ravel_k(a):
    pass


@overload(_ravel_k)
def _ravel_k_impl(a):
    """a's items in the order of its axes by decreasing stride magnitude (NumPy's order='K',
    which reads each axis in its own direction), in C order (a view where that is contiguous,
    else a copy)."""
    nd = a.ndim
    if nd < 2 or a.layout == "C":
        return lambda a: a.ravel()
    if a.layout == "F":
        return lambda a: a.T.ravel()
    perm = ", ".join(f"p[{k}]" for k in range(nd))
    return _generated("impl", "def impl(a):\n"
                      "    p = np.argsort(-np.abs(np.array(a.strides)), kind='stable')\n"
                      f"    return np.transpose(a, ({perm},)).ravel()\n", {})


def _ravel_f(a):
    pass


def _ravel_a(a):
    pass


@overload(_ravel_f)
def _ravel_f_impl(a):
    if a.ndim < 2:
        return lambda a: a.ravel()
    return lambda a: a.T.ravel()


@overload(_ravel_a)
def _ravel_a_impl(a):
    def impl(a):
        if _memory_order(a):
            return _ravel_f(a)
        return a.ravel()
    return impl


def _ravel_impl(a, letter):
    """The implementation flattening a (an array type) in the order letter: a view where the
    items lie contiguous in that order, else a copy."""
    if letter == "C":
        return lambda a, order="C": a.ravel()
    return {"F": lambda a, order="C": _ravel_f(a), "A": lambda a, order="C": _ravel_a(a),
            "K": lambda a, order="C": _ravel_k(a)}[letter]


def _reshape_impl(a, shape, letter):
    """The implementation of a.reshape(shape, order=letter): in Fortran order a.T's items in C
    order placed into the reversed shape, transposed back (a view where a is
    Fortran-contiguous, as NumPy's)."""
    if isinstance(shape, (types.Integer, types.Boolean)):
        if letter == "C":
            return lambda a, shape, order="C": a.reshape(shape)
        if letter == "F":
            return lambda a, shape, order="C": _ravel_f(a).reshape(shape)
        return lambda a, shape, order="C": _ravel_a(a).reshape(shape)
    if not isinstance(shape, (types.UniTuple, types.Tuple)):
        return None
    if letter == "C":
        return lambda a, shape, order="C": a.reshape(shape)
    if letter == "F":
        return lambda a, shape, order="C": a.T.reshape(shape[::-1]).T

    def impl(a, shape, order="C"):          # 'A'
        if _memory_order(a):
            return a.T.reshape(shape[::-1]).T
        return a.reshape(shape)
    return impl


@overload(np.ravel)
def _ravel(a, order="C"):
    """np.ravel(a, order=): a view where the items lie contiguous in that order, else a copy."""
    if not is_array(a):
        return None
    return _ravel_impl(a, _order_of(order, ("C", "F", "A", "K"), "np.ravel"))


@overload_method(types.Array, "ravel")
def _ravel_method(a, order="C"):
    """a.ravel(order=...) (without it, the builtin serves)."""
    if not given(order) or isinstance(order, str):
        return None
    return _ravel_impl(a, _order_of(order, ("C", "F", "A", "K"), "array.ravel"))


@overload(np.reshape)
def _reshape(a, shape, order="C"):
    """np.reshape(a, shape) is a.reshape(shape): a view of a contiguous array, a copy of
    another, as NumPy gives (shape an int or a tuple of ints, one of them -1); order= 'C', 'F'
    or 'A'."""
    if not is_array(a):
        return None
    return _reshape_impl(a, shape, _order_of(order, ("C", "F", "A"), "np.reshape"))


@overload_method(types.Array, "reshape")
def _reshape_method(a, shape, order="C"):
    """a.reshape(shape, order=...) with one shape argument (without order=, the builtin
    serves, and takes the dimensions as separate arguments too)."""
    if not given(order) or isinstance(order, str) or is_number(order):
        return None                         # a.reshape(3, 4): the builtin's
    return _reshape_impl(a, shape, _order_of(order, ("C", "F", "A"), "array.reshape"))


@overload_method(types.Array, "flatten")
def _flatten(a, order="C"):
    """a.flatten(order=): a copy of a's items in that order."""
    letter = _order_of(order, ("C", "F", "A", "K"), "array.flatten")
    if letter == "C" or a.ndim < 2:
        return lambda a, order="C": a.copy().ravel()
    if letter == "F":
        return lambda a, order="C": np.copy(_ravel_f(a))
    if letter == "A":
        return lambda a, order="C": np.copy(_ravel_a(a))
    return lambda a, order="C": np.copy(_ravel_k(a))


@overload_method(types.Array, "item")
def _item(a, i=None):
    """a.item(): the element of a one-element array; a.item(i): the i-th in C order."""
    if given(i):
        if not isinstance(i, (types.Integer, types.Boolean)):
            return None
        return lambda a, i=None: a.flat[i]

    def impl(a, i=None):
        if a.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return a.flat[0]
    return impl


@overload_method(types.Array, "tolist")
def _tolist(a):
    """a.tolist(): a list of the items (1-d), of such lists (2-d), ..., as NumPy's, the items
    as the array's scalars (Numba's: NumPy's would give Python numbers); a 0-d array's item."""
    if a.ndim == 0:
        return lambda a: a[()]
    if a.ndim == 1:
        return lambda a: [x for x in a]
    if a.ndim == 2:
        return lambda a: [[x for x in row] for row in a]
    if a.ndim == 3:
        return lambda a: [[[x for x in row] for row in plane] for plane in a]
    raise TypeError(f"a.tolist() of a {a.ndim}-d array: compiled code makes the nested lists "
                    "of arrays of 1 to 3 dimensions")


# ---- np.broadcast_to, np.broadcast_shapes, np.broadcast_arrays ----
# Views whose broadcast axes have stride 0, as NumPy's (which are read-only: here writes through
# one would reach every element it repeats, so do not write them).

def _shape_arg(shape, what):
    """The length of a shape argument (an int or a tuple of ints), or a TypeError."""
    if isinstance(shape, (types.Integer, types.Boolean)):
        return None
    if isinstance(shape, types.Tuple) and all(isinstance(t, types.Integer) for t in shape.types):
        return len(shape.types)
    raise TypeError(f"{what} takes a shape as an int or a tuple of ints, not {shape}")


def _broadcast_lines(names, ndims, n):
    """Source lines computing D0..D{n-1}, the broadcast of the shapes names[k] (of ndims[k]
    items), with NumPy's error where two lengths differ and neither is 1."""
    lines = []
    for d in range(n):
        lines.append(f"    D{d} = 1")
        for name, nd in zip(names, ndims):
            j = d - (n - nd)
            if j < 0:
                continue
            lines += [f"    if {name}[{j}] != 1:",
                      f"        if D{d} != 1 and D{d} != {name}[{j}]:",
                      "            raise ValueError('shape mismatch: objects cannot be broadcast "
                      "to a single shape')",
                      f"        D{d} = {name}[{j}]"]
    return lines


def _tuple_source(items):
    return "(" + "".join(f"{x}, " for x in items) + ")"


def _view_source(a, nd, n, shape):
    """The source of a view of array a (nd axes) broadcast to shape (a tuple source of n
    lengths, n >= nd, already checked)."""
    strides = [("0" if d < n - nd else
                f"(0 if {a}.shape[{d - (n - nd)}] == 1 else {a}.strides[{d - (n - nd)}])")
               for d in range(n)]
    return f"as_strided({a}, {shape}, {_tuple_source(strides)})"


@overload(np.broadcast_to)
def _broadcast_to(array, shape, subok=False):
    if not (is_array(array) or is_number(array)):
        return None
    n = _shape_arg(shape, "np.broadcast_to()")
    src = "    a = array\n" if is_array(array) else "    a = np.full((), array)\n"
    nd = array.ndim if is_array(array) else 0
    if n is None:
        src += "    s = (shape,)\n"
        n = 1
    else:
        src += "    s = shape\n"
    if n < nd:
        src += ("    raise ValueError('input operand has more dimensions than allowed by the "
                "axis remapping')\n")
        return _generated("impl", "def impl(array, shape, subok=False):\n" + src, {})
    lines = []
    for d in range(n):
        lines.append(f"    if s[{d}] < 0:\n        raise ValueError('all elements of broadcast "
                     "shape must be non-negative')")
        j = d - (n - nd)
        if j >= 0:
            lines.append(f"    if a.shape[{j}] != 1 and a.shape[{j}] != s[{d}]:\n"
                         "        raise ValueError('operands could not be broadcast together "
                         "with remapped shapes')")
    src += "\n".join(lines) + "\n"
    src += f"    return {_view_source('a', nd, n, _tuple_source(f's[{d}]' for d in range(n)))}\n"
    return _generated("impl", "def impl(array, shape, subok=False):\n" + src, {})


def _star(args):
    """The types of a *args parameter, which a typing function is given as one tuple."""
    return list(args[0].types) if len(args) == 1 and isinstance(args[0], types.Tuple) else args


@overload(np.broadcast_shapes)
def _broadcast_shapes(*args):
    args = _star(args)
    ns = [_shape_arg(s, "np.broadcast_shapes()") for s in args]
    ndims = [1 if k is None else k for k in ns]
    n = max(ndims, default=0)
    lines = ["def impl(*args):"]
    names = []
    for k, s in enumerate(ns):
        lines.append(f"    s{k} = (args[{k}],)" if s is None else f"    s{k} = args[{k}]")
        names.append(f"s{k}")
    lines += _broadcast_lines(names, ndims, n)
    lines.append(f"    return {_tuple_source(f'D{d}' for d in range(n))}")
    return _generated("impl", "\n".join(lines) + "\n", {})


@overload(np.broadcast_arrays)
def _broadcast_arrays(*args):
    args = _star(args)
    if not all(is_array(a) or is_number(a) for a in args):
        return None
    ndims = [a.ndim if is_array(a) else 0 for a in args]
    n = max(ndims, default=0)
    lines = ["def impl(*args):"]
    for k, a in enumerate(args):
        lines.append(f"    a{k} = args[{k}]" if is_array(a) else
                     f"    a{k} = np.full((), args[{k}])")
    lines += _broadcast_lines([f"a{k}.shape" for k in range(len(args))], ndims, n)
    shape = _tuple_source(f"D{d}" for d in range(n))
    views = [_view_source(f"a{k}", ndims[k], n, shape) for k in range(len(args))]
    lines.append(f"    return {_tuple_source(views)}")
    return _generated("impl", "\n".join(lines) + "\n", {})
