"""Views that rearrange an array's axes, written in the compiled subset over
np.lib.stride_tricks.as_strided (a builtin: a view of an array's memory with a given shape and
strides): np.transpose with axes and a.transpose(...), np.swapaxes and a.swapaxes, np.moveaxis,
np.squeeze and a.squeeze with an axis. Each gives a view, as NumPy's do, so writes through it
reach the array; the shapes are tuples whose length the array's ndim fixes, so each
implementation is generated per ndim. Messages are NumPy's."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ._util import generated, is_array, overload, overload_method, types
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


overload_method(types.Array, "transpose")(_transpose)   # a.transpose(), a.transpose((1, 0))


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
        raise TypeError("squeeze() without axis= is not supported in compiled code: the result's "
                        "number of dimensions would depend on the shape at run time; pass axis=")
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


overload(np.squeeze)(_squeeze)
overload_method(types.Array, "squeeze")(_squeeze)
