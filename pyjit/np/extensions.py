"""numba.np.extensions' spelling: cross2d, the z component of the cross product of 2-vectors
(np.cross has dropped them), over the last axes of broadcast arrays."""
import numpy as np

from .. import types
from ..extending import overload


def cross2d(a, b):
    """a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0], the arrays broadcast; the last axis of
    each must have 2 items. In Python and in compiled code."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape[-1:] != (2,) or b.shape[-1:] != (2,):
        raise ValueError("Incompatible dimensions for 2D cross product "
                         "(dimension must be 2 for both inputs)")
    return np.multiply(a[..., 0], b[..., 1]) - np.multiply(a[..., 1], b[..., 0])


@overload(cross2d)
def _cross2d(a, b):
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
        raise TypeError(f"cross2d() takes two arrays, not {a} and {b}")
    if a.ndim == 1 and b.ndim == 1:
        def vectors(a, b):
            if a.shape[0] != 2 or b.shape[0] != 2:
                raise ValueError("Incompatible dimensions for 2D cross product "
                                 "(dimension must be 2 for both inputs)")
            return a[0] * b[1] - a[1] * b[0]
        return vectors

    def impl(a, b):
        if a.shape[-1] != 2 or b.shape[-1] != 2:
            raise ValueError("Incompatible dimensions for 2D cross product "
                             "(dimension must be 2 for both inputs)")
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return impl
