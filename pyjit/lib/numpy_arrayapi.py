"""NumPy 2's array-API spellings written in the compiled subset, over the functions they name:
np.astype, np.matrix_transpose, np.vecdot, np.linalg.vector_norm, np.linalg.matrix_norm,
np.cumulative_sum and np.cumulative_prod (include_initial= too)."""
import numpy as np

from ._util import constant_flag, generated, given, is_array, overload, promote, types
from .numpy_shape import _norm_axis


@overload(np.astype)
def _astype(x, dtype, copy=True):
    if not is_array(x):
        return None
    return lambda x, dtype, copy=True: x.astype(dtype)


@overload(np.matrix_transpose)
def _matrix_transpose(x):
    if not is_array(x):
        return None
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return lambda x: np.swapaxes(x, -1, -2)


@overload(np.vecdot)
def _vecdot(x1, x2, axis=-1):
    """sum(conj(x1) * x2) along axis, the operands broadcast, in their promoted type."""
    if not (is_array(x1) and is_array(x2)):
        return None
    rt = promote(x1.dtype, x2.dtype)     # NumPy's loop keeps small ints small, as its sums don't
    return lambda x1, x2, axis=-1: np.sum(np.conj(x1) * x2, axis=axis).astype(rt)


@overload(np.linalg.vector_norm)
def _vector_norm(x, axis=None, keepdims=False, ord=2):
    """np.linalg.norm of the flattened array, or along an int axis."""
    if not is_array(x) or constant_flag(keepdims, "keepdims"):
        return None
    if given(axis):
        return lambda x, axis=None, keepdims=False, ord=2: np.linalg.norm(x, ord, axis)
    return lambda x, axis=None, keepdims=False, ord=2: np.linalg.norm(x.ravel(), ord)


@overload(np.linalg.matrix_norm)
def _matrix_norm(x, keepdims=False, ord="fro"):
    """np.linalg.norm over the last two axes."""
    if not is_array(x) or constant_flag(keepdims, "keepdims"):
        return None
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    if x.ndim == 2:
        return lambda x, keepdims=False, ord="fro": np.linalg.norm(x, ord)
    return lambda x, keepdims=False, ord="fro": np.linalg.norm(x, ord, (-2, -1))


def _cumulative(name, identity):
    """np.cumulative_sum and np.cumulative_prod: np.cumsum (np.cumprod) along the axis (needed
    beyond one dimension, NumPy's ValueError), with include_initial= the identity first."""
    def typing(x, axis=None, dtype=None, out=None, include_initial=False):
        if not is_array(x) or given(out):
            return None
        if x.ndim > 1 and not given(axis):
            raise ValueError("For arrays which have more than one dimension ``axis`` argument "
                             "is required.")
        initial = constant_flag(include_initial, "include_initial")
        call = f"np.{name}(x{', axis=ax' if x.ndim > 1 else ''}" + \
            (", dtype=dtype)" if isinstance(dtype, types.Type) and given(dtype) else ")")
        lines = [f"ax = _norm_axis({'axis' if given(axis) else 0}, {max(x.ndim, 1)})",
                 f"r = {call}"]
        if initial:
            shape = ", ".join(f"r.shape[{d}] + (1 if ax == {d} else 0)" for d in range(x.ndim))
            middle = ", ".join(f"1 if ax == {d} else 0:" for d in range(x.ndim))
            lines += [f"res = np.empty(({shape},), r.dtype)",
                      f"np.moveaxis(res, ax, 0)[0] = {identity}",
                      f"res[{middle}] = r",
                      "return res"]
        else:
            lines.append("return r")
        source = ("def impl(x, axis=None, dtype=None, out=None, include_initial=False):\n" +
                  "".join(f"    {line}\n" for line in lines))
        return generated("impl", source, {"_norm_axis": _norm_axis})
    typing.__name__ = typing.__qualname__ = f"_cumulative_{name[3:]}"
    return typing


overload(np.cumulative_sum)(_cumulative("cumsum", 0))
overload(np.cumulative_prod)(_cumulative("cumprod", 1))
