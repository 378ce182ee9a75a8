"""Views that rearrange an array's axes, written in the compiled subset over
np.lib.stride_tricks.as_strided (a builtin: a view of an array's memory with a given shape and
strides): np.transpose with axes and a.transpose(...), np.swapaxes and a.swapaxes, np.moveaxis,
np.squeeze and a.squeeze with an axis, a.view(dtype) and np.frombuffer (over
pyjit._views.as_strided, which takes the view's dtype). Each gives a view, as NumPy's do, so
writes through it reach the array; the shapes are tuples whose length the array's ndim fixes, so
each implementation is generated per ndim. Messages are NumPy's."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import _views
from ._util import generated, given, is_array, overload, overload_method, register_jitable, types
from .numpy_shape import _norm_axis

AxisError = np.exceptions.AxisError


def _generated(source, env=None):
    return generated("impl", source, dict(env or {}, as_strided=as_strided,
                                          _norm_axis=_norm_axis, AxisError=AxisError))


def _tuple(items):
    return "(" + "".join(f"{x}, " for x in items) + ")"


def _view_by_order(nd, order):
    """Source of the view whose axis d is a's axis order(d) (a source expression)."""
    return (f"    return as_strided(a, {_tuple(f'a.shape[{order(d)}]' for d in range(nd))}, "
            f"{_tuple(f'a.strides[{order(d)}]' for d in range(nd))})\n")


def _is_int(t):
    return isinstance(t, (types.Integer, types.Boolean))


def _int_tuple(t, n):
    return isinstance(t, types.Tuple) and len(t.types) == n and all(_is_int(x) for x in t.types)


def _permutation_source(nd):
    """Checks that axes (a tuple of nd ints) is a permutation of a's axes, normalising it into
    perm, an int64 array."""
    return (f"    perm = np.empty({nd}, np.int64)\n"
            f"    seen = np.zeros({nd}, np.bool_)\n"
            f"    for d in range({nd}):\n"
            f"        ax = _norm_axis(axes[d], {nd})\n"
            "        if seen[ax]:\n"
            "            raise ValueError('repeated axis in transpose')\n"
            "        seen[ax] = True\n"
            "        perm[d] = ax\n")


def _transpose_axes(a, axes):
    """transpose(a, axes) for axes a tuple of a.ndim ints; None when axes is not one."""
    if not is_array(a) or not _int_tuple(axes, a.ndim):
        return None
    nd = a.ndim
    return (_permutation_source(nd) + _view_by_order(nd, lambda d: f"perm[{d}]"))


@overload(np.transpose)
def _transpose(a, axes=None):
    if not is_array(a):
        return None
    if axes is None or isinstance(axes, (types.NoneType, types.Omitted)):
        return lambda a, axes=None: a.T
    body = _transpose_axes(a, axes)
    if body is None:
        raise TypeError(f"transpose() takes axes as a tuple of {a.ndim} ints, got {axes!r}")
    return _generated("def impl(a, axes=None):\n" + body)


_MORE_AXES = tuple(f"ax{k}" for k in range(1, 8))


def _transpose_method(a, axes=None, ax1=None, ax2=None, ax3=None, ax4=None, ax5=None, ax6=None,
                      ax7=None):
    """a.transpose(), a.transpose(None), a.transpose((1, 0)) and a.transpose(1, 0) (the axes
    as separate ints, up to 8)."""
    if not is_array(a):
        return None
    more = [t for t in (ax1, ax2, ax3, ax4, ax5, ax6, ax7)
            if isinstance(t, types.Type) and given(t)]
    params = "a, axes=None, " + ", ".join(f"{n}=None" for n in _MORE_AXES)
    if not more and not isinstance(axes, types.Integer):
        return _generated(f"def impl({params}):\n    return np.transpose(a, axes)\n")
    names = ["axes"] + list(_MORE_AXES[:len(more)])
    return _generated(f"def impl({params}):\n    return np.transpose(a, ({', '.join(names)},))\n")


overload_method(types.Array, "transpose")(_transpose_method)


def _swapaxes(a, axis1, axis2):
    if not is_array(a) or not (_is_int(axis1) and _is_int(axis2)):
        return None
    nd = a.ndim
    order = (lambda d: f"(j if {d} == i else i if {d} == j else {d})")
    return _generated("def impl(a, axis1, axis2):\n"
                      f"    i = _norm_axis(axis1, {nd})\n"
                      f"    j = _norm_axis(axis2, {nd})\n" + _view_by_order(nd, order))


overload(np.swapaxes)(_swapaxes)
overload_method(types.Array, "swapaxes")(_swapaxes)


@overload(np.moveaxis)
def _moveaxis(a, source, destination):
    if not is_array(a) or not (_is_int(source) and _is_int(destination)):
        return None
    nd = a.ndim
    return _generated(
        "def impl(a, source, destination):\n"
        f"    src = _norm_axis(source, {nd})\n"
        f"    dst = _norm_axis(destination, {nd})\n"
        f"    perm = np.empty({nd}, np.int64)\n"
        "    k = 0\n"
        f"    for d in range({nd}):\n"
        "        if d == dst:\n"
        "            perm[d] = src\n"
        "        else:\n"
        "            if k == src:\n"
        "                k += 1\n"
        "            perm[d] = k\n"
        "            k += 1\n" + _view_by_order(nd, lambda d: f"perm[{d}]"))


def _squeeze(a, axis=None):
    if not is_array(a):
        return None
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        if a.ndim == 0:
            return _generated("def impl(a, axis=None):\n    return as_strided(a, (), ())\n")
        raise TypeError("squeeze() without axis= is not supported in compiled code: the result's "
                        "number of dimensions would depend on the shape at run time; pass axis=")
    if isinstance(axis, types.Tuple) and all(_is_int(t) for t in axis.types):
        return _squeeze_axes(a.ndim, len(axis.types))
    if not _is_int(axis) or a.ndim == 0:
        return None
    nd = a.ndim
    order = (lambda d: f"{d} + ({d} >= ax)")
    return _generated(
        "def impl(a, axis=None):\n"
        f"    ax = _norm_axis(axis, {nd})\n"
        "    if a.shape[ax] != 1:\n"
        "        raise ValueError('cannot select an axis to squeeze out which has size not equal "
        "to one')\n" + _view_by_order(nd - 1, order))


def _squeeze_axes(nd, k):
    """np.squeeze(a, axis=(i, j, ...)): a view without those axes, each of length 1."""
    from .numpy_axis import _mark_axes
    lines = ["def impl(a, axis=None):", f"    red = np.zeros({max(nd, 1)}, np.bool_)",
             *_mark_axes(k, nd),
             f"    keep = np.empty({max(nd - k, 1)}, np.int64)",
             "    j = 0",
             f"    for d in range({nd}):",
             "        if red[d]:",
             "            if a.shape[d] != 1:",
             "                raise ValueError('cannot select an axis to squeeze out which has "
             "size not equal to one')",
             "        else:",
             "            keep[j] = d",
             "            j += 1"]
    return _generated("\n".join(lines) + "\n" + _view_by_order(nd - k, lambda d: f"keep[{d}]"))


overload(np.squeeze)(_squeeze)
overload_method(types.Array, "squeeze")(_squeeze)


# ---- a.view(dtype) and np.frombuffer: the memory as items of another type ----

def _item_type(dtype, what):
    """The number or bool type a dtype argument names, or a TypeError."""
    from .lists import _dtype_of
    t = _dtype_of(dtype)
    if not isinstance(t, (types.Number, types.Boolean)):
        raise TypeError(f"{what} takes the dtype of a number or bool in compiled code, not {dtype}")
    return t


def _itemsize(t):
    return np.dtype(t.name).itemsize


def _view_source(nd, old, new):
    """The body of a.view(DT): the same shape and strides where the sizes agree, else the last
    axis (contiguous) counted again in items of the new size, with NumPy's errors."""
    if old == new:
        return "    return as_view(a, a.shape, a.strides, DT)\n"
    if nd == 0:
        return ("    raise ValueError('Changing the dtype of a 0d array is only supported if the "
                "itemsize is unchanged')\n")
    last = nd - 1
    head = "".join(f"a.shape[{d}], " for d in range(last))
    heads = "".join(f"a.strides[{d}], " for d in range(last))
    smaller = ("When changing to a smaller dtype, its size must be a divisor of the size of "
               "original dtype" if new < old else "When changing to a larger dtype, its size "
               "must be a divisor of the total size in bytes of the last axis of the array.")
    return (f"    if a.shape[{last}] != 1 and a.strides[{last}] != {old}:\n"
            "        raise ValueError('To change to a dtype of a different size, the last axis "
            "must be contiguous')\n"
            f"    total = a.shape[{last}] * {old}\n"
            f"    if total % {new} != 0:\n"
            f"        raise ValueError('{smaller}')\n"
            f"    return as_view(a, ({head}total // {new},), ({heads}{new},), DT)\n")


def _array_view(a, dtype):
    if not is_array(a):
        return None
    if not isinstance(a.dtype, (types.Number, types.Boolean)):
        raise TypeError(f"a.view(dtype) takes an array of numbers or bools, not {a}")
    new = _item_type(dtype, "a.view()")
    source = "def impl(a, dtype):\n" + _view_source(a.ndim, _itemsize(a.dtype), _itemsize(new))
    return generated("impl", source, {"as_view": _views.as_strided, "DT": new})


overload_method(types.Array, "view")(_array_view)


@register_jitable
def _c_contiguous(a):
    step = a.itemsize
    for d in range(a.ndim - 1, -1, -1):
        if a.shape[d] != 1 and a.strides[d] != step:
            return False
        step *= a.shape[d]
    return True


@overload(np.frombuffer, strict=False)
def _frombuffer(buffer, dtype=float, count=-1, offset=0):
    """An array's memory (C-contiguous, as the buffer protocol gives it) as a 1-d array of
    dtype, as Numba's np.frombuffer takes arrays (compiled code has no bytes objects)."""
    if not is_array(buffer):
        raise TypeError(f"np.frombuffer() takes an array in compiled code, not {buffer}")
    if not isinstance(buffer.dtype, (types.Number, types.Boolean)):
        raise TypeError(f"np.frombuffer() takes an array of numbers or bools, not {buffer}")
    if dtype is float or dtype is None or isinstance(dtype, types.NoneType):
        new = types.float64
    else:
        new = _item_type(dtype, "np.frombuffer()")
    size = _itemsize(new)

    source = """def impl(buffer, dtype=None, count=-1, offset=0):
    if not _c_contiguous(buffer):
        raise ValueError("ndarray is not C-contiguous")
    nbytes = buffer.size * buffer.itemsize
    if offset < 0 or offset > nbytes:
        raise ValueError("offset must be non-negative and no greater than buffer length")
    left = nbytes - offset
    if count < 0:
        if left % SIZE != 0:
            raise ValueError("buffer size must be a multiple of element size")
        n = left // SIZE
    else:
        if left < count * SIZE:
            raise ValueError("buffer is smaller than requested size")
        n = count
    raw = as_view(buffer, (nbytes,), (1,), np.uint8)
    return as_view(raw[offset:], (n,), (SIZE,), DT)
"""
    return generated("impl", source, {"as_view": _views.as_strided, "DT": new, "SIZE": size,
                                      "_c_contiguous": _c_contiguous})


def _sliding_window_view(x, window_shape, axis=None, subok=False, writeable=False):
    """np.lib.stride_tricks.sliding_window_view(x, window_shape, axis=None): the view of every
    window, its axes after x's (each window axis of x shortened to the windows' count), as
    NumPy's; window_shape an int or a tuple of ints, axis None (a window over every axis), an
    int or a tuple of ints. Writable, as Numba's (NumPy's is read-only by default)."""
    if not is_array(x):
        return None
    nd = x.ndim
    ints = (types.Integer, types.Boolean)
    nw = 1 if isinstance(window_shape, ints) else (
        len(window_shape.types) if isinstance(window_shape, types.Tuple) else None)
    if nw is None:
        return None
    if not given(axis):
        if nw != nd:
            raise ValueError(f"Since axis is `None`, must provide window_shape for all "
                             f"dimensions of `x`; got {nw} window_shape elements and `x.ndim` "
                             f"is {nd}.")
        axes = "(" + "".join(f"{d}, " for d in range(nd)) + ")"
    elif isinstance(axis, ints):
        if nw != 1:
            raise ValueError("Must provide matching length window_shape and axis")
        axes = "(axis,)"
    elif isinstance(axis, types.Tuple) and len(axis.types) == nw:
        axes = "axis"
    else:
        return None
    win = "(window_shape,)" if isinstance(window_shape, ints) else "window_shape"
    lines = ["def impl(x, window_shape, axis=None, subok=False, writeable=False):",
             f"    ws = {win}", f"    ax = {axes}",
             f"    shape = np.empty({nd}, np.int64)"]
    lines += [f"    shape[{d}] = x.shape[{d}]" for d in range(nd)]
    lines += [f"    for k in range({nw}):",
              "        if ws[k] < 0:",
              "            raise ValueError('`window_shape` cannot contain negative values')",
              f"        a = _norm_axis(ax[k], {nd})",
              "        if shape[a] < ws[k]:",
              "            raise ValueError('window shape cannot be larger than input array shape')",
              "        shape[a] -= ws[k] - 1"]
    out_shape = "(" + "".join(f"shape[{d}], " for d in range(nd)) + \
        "".join(f"ws[{k}], " for k in range(nw)) + ")"
    out_strides = "(" + "".join(f"x.strides[{d}], " for d in range(nd)) + \
        "".join(f"x.strides[_norm_axis(ax[{k}], {nd})], " for k in range(nw)) + ")"
    lines.append(f"    return as_strided(x, {out_shape}, {out_strides})")
    return _generated("\n".join(lines) + "\n")


overload(np.lib.stride_tricks.sliding_window_view)(_sliding_window_view)
