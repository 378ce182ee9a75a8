"""A Python function with a compiled implementation per type (numba_overload_example)."""
import numpy as np

from pyjit import njit, types
from pyjit.extending import overload


def bound(x, lo, hi):
    """Clamps x to [lo, hi]; arrays elementwise."""
    return np.minimum(np.maximum(x, lo), hi)


@overload(bound)
def _bound_scalar(x, lo, hi):
    if isinstance(x, (types.Integer, types.Float)):
        def impl(x, lo, hi):
            return min(max(x, lo), hi)
        return impl


@overload(bound)
def _bound_array(x, lo, hi):
    if isinstance(x, types.Array) and x.ndim == 1:
        def impl(x, lo, hi):
            out = np.empty(x.size, dtype=np.float64)
            for i in range(x.size):
                out[i] = min(max(x[i], lo), hi)
            return out
        return impl


@njit
def bounded_sum(x, lo, hi):
    return bound(x, lo, hi).sum() + bound(lo - 1.0, lo, hi)
