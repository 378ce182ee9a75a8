"""np.searchsorted, written in the compiled subset (NaN sorts last, as in NumPy)."""
import numpy as np

from ._util import is_array, is_number, nan_lt, overload, register_jitable, types


@register_jitable
def _search_left(a, v):
    lo, hi = 0, a.size
    while lo < hi:
        mid = (lo + hi) >> 1
        if nan_lt(a[mid], v):
            lo = mid + 1
        else:
            hi = mid
    return lo


@register_jitable
def _search_right(a, v):
    lo, hi = 0, a.size
    while lo < hi:
        mid = (lo + hi) >> 1
        if nan_lt(v, a[mid]):
            hi = mid
        else:
            lo = mid + 1
    return lo


@overload(np.searchsorted)
def _searchsorted(a, v, side="left"):
    if not is_array(a) or a.ndim != 1:
        return None
    which = side.literal_value if isinstance(side, types.StringLiteral) else side
    if isinstance(side, types.Omitted):
        which = side.value
    if which not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {which!r}")
    search = _search_left if which == "left" else _search_right
    if is_number(v):
        def impl(a, v, side="left"):
            return search(a, v)
        return impl
    if not is_array(v):
        return None

    def impl_array(a, v, side="left"):
        flat = v.ravel()
        out = np.empty(flat.size, dtype=np.int64)
        for i in range(flat.size):
            out[i] = search(a, flat[i])
        return out.reshape(v.shape)
    return impl_array
