"""np.searchsorted, np.digitize, np.argwhere and one-argument np.where, written in the compiled
subset (NaN sorts last, as in NumPy)."""
import functools

import numpy as np

from ._util import generated, given, is_array, is_number, nan_lt, overload, register_jitable, types


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
def _searchsorted(a, v, side="left", sorter=None):
    if not is_array(a) or a.ndim != 1:
        return None
    which = side.literal_value if isinstance(side, types.StringLiteral) else side
    if isinstance(side, types.Omitted):
        which = side.value
    if which not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {which!r}")
    search = _search_left if which == "left" else _search_right
    if isinstance(sorter, types.Type) and given(sorter):
        # a sorted through the permutation sorter: the indices are into that order, as NumPy's
        if not (is_array(sorter) and sorter.ndim == 1 and
                isinstance(sorter.dtype, types.Integer)):
            raise TypeError(f"searchsorted: sorter must be a 1-d array of ints, not {sorter}")

        def with_sorter(a, v, side="left", sorter=None):
            if sorter.shape[0] != a.shape[0]:
                raise ValueError("sorter.size must equal a.size")
            return np.searchsorted(np.take(a, sorter), v, side)
        return with_sorter
    if is_number(v):
        def impl(a, v, side="left", sorter=None):
            return search(a, v)
        return impl
    if not is_array(v):
        return None

    def impl_array(a, v, side="left", sorter=None):
        flat = v.ravel()
        out = np.empty(flat.size, dtype=np.int64)
        for i in range(flat.size):
            out[i] = search(a, flat[i])
        return out.reshape(v.shape)
    return impl_array


@register_jitable
def _monotonicity(bins):
    """1 when bins never decrease, -1 when they never increase (and some decrease), else 0:
    NumPy's test for np.digitize."""
    rising = True
    falling = True
    for i in range(1, bins.size):
        if bins[i] < bins[i - 1]:
            rising = False
        elif bins[i] > bins[i - 1]:
            falling = False
    if rising:
        return 1
    return -1 if falling else 0


@register_jitable
def _digitize_one(x, bins, right, direction):
    if direction < 0:       # searched in the reversed bins, counted from the end
        rev = bins[::-1]
        return bins.size - (_search_left(rev, x) if right else _search_right(rev, x))
    return _search_left(bins, x) if right else _search_right(bins, x)


@overload(np.digitize)
def _digitize(x, bins, right=False):
    if not is_array(bins) or not (is_number(x) or is_array(x)):
        return None
    xt = x.dtype if is_array(x) else x
    if isinstance(xt, types.Complex):
        def complex_x(x, bins, right=False):
            raise TypeError("x may not be complex")
        return complex_x
    if bins.ndim != 1:
        def deep(x, bins, right=False):
            raise ValueError("object too deep for desired array")
        return deep
    scalar = is_number(x)

    def impl(x, bins, right=False):
        direction = _monotonicity(bins)
        if direction == 0:
            raise ValueError("bins must be monotonically increasing or decreasing")
        if scalar:
            return _digitize_one(x, bins, right, direction)
        flat = x.ravel()
        out = np.empty(flat.size, dtype=np.int64)
        for i in range(flat.size):
            out[i] = _digitize_one(flat[i], bins, right, direction)
        return out.reshape(x.shape)
    return impl


def _argwhere(a):
    pass


@overload(_argwhere)
def _argwhere_impl(a):
    """The (count, ndim) indices of a's nonzero elements in C order, as np.argwhere gives."""
    def impl(a):
        flat = a.ravel()
        n = 0
        for i in range(flat.size):
            if flat[i] != 0:
                n += 1
        out = np.empty((n, a.ndim), dtype=np.int64)
        row = 0
        for i in range(flat.size):
            if flat[i] != 0:
                rest = i
                for d in range(a.ndim - 1, -1, -1):
                    out[row, d] = rest % a.shape[d]
                    rest //= a.shape[d]
                row += 1
        return out
    return impl


@overload(np.argwhere)
def _argwhere_typing(a):
    if is_array(a) and a.ndim > 0:
        return lambda a: _argwhere(a)
    return None


@functools.lru_cache(maxsize=None)
def columns(ndim):
    """An implementation returning the columns of argwhere's result as a tuple of ndim
    contiguous arrays: np.nonzero's result. Made once per ndim (a new function each time would
    be a new overload to resolve and compile)."""
    items = "".join(f"r[:, {d}].copy(), " for d in range(ndim))
    source = f"def impl(a):\n    r = _argwhere(a)\n    return ({items})\n"
    return register_jitable(generated("impl", source, {"_argwhere": _argwhere}))


@overload(np.where)
def _where(condition, x=None, y=None):
    """One-argument np.where, np.nonzero's tuple; with x and y it declines to the builtin."""
    if given(x) or given(y) or not is_array(condition) or condition.ndim == 0:
        return None
    nonzero = columns(condition.ndim)
    return lambda condition, x=None, y=None: nonzero(condition)
