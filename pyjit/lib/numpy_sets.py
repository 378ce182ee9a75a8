"""Set routines over sorted arrays, written in the compiled subset: np.union1d, np.intersect1d,
np.setdiff1d, np.setxor1d, np.isin and np.lexsort, NumPy's algorithms (the arrays flattened, NaN
equal to nothing: a NaN in both arrays is not in their intersection)."""
import functools

import numpy as np

from ._util import generated, given, is_array, overload, promote, register_jitable, types


def _sortable(t):
    return is_array(t) and isinstance(t.dtype, (types.Integer, types.Float, types.Boolean))


def _joined(ar1, ar2, rt):
    pass


@overload(_joined)
def _joined_impl(ar1, ar2, rt):
    """ar1 and ar2 flattened, one after the other, in the dtype rt."""
    def impl(ar1, ar2, rt):
        a = ar1.ravel()
        b = ar2.ravel()
        out = np.empty(a.size + b.size, dtype=rt)
        out[:a.size] = a
        out[a.size:] = b
        return out
    return impl


def _pair(ar1, ar2):
    """The dtype NumPy's set routines give two arrays: their promotion (None: not served)."""
    if not (_sortable(ar1) and _sortable(ar2)):
        return None
    return promote(ar1.dtype, ar2.dtype)


@overload(np.union1d)
def _union1d(ar1, ar2):
    rt = _pair(ar1, ar2)
    if rt is None:
        return None
    return lambda ar1, ar2: np.unique(_joined(ar1, ar2, rt))


@overload(np.intersect1d)
def _intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    rt = _pair(ar1, ar2)
    if rt is None or (isinstance(return_indices, types.Type) and given(return_indices)):
        return None

    def impl(ar1, ar2, assume_unique=False, return_indices=False):
        if assume_unique:
            aux = np.sort(_joined(ar1, ar2, rt))
        else:
            aux = np.sort(_joined(np.unique(ar1), np.unique(ar2), rt))
        out = np.empty(aux.size, dtype=rt)
        n = 0
        for i in range(aux.size - 1):
            if aux[i] == aux[i + 1]:
                out[n] = aux[i]
                n += 1
        return out[:n].copy()
    return impl


@register_jitable
def _member(sorted_test, v):
    """Whether v equals an element of sorted_test (NaN equals none)."""
    lo, hi = 0, sorted_test.size
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_test[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo < sorted_test.size and sorted_test[lo] == v


@overload(np.isin)
def _isin(element, test_elements, assume_unique=False, invert=False, kind=None):
    rt = _pair(element, test_elements)
    if rt is None:
        return None

    def impl(element, test_elements, assume_unique=False, invert=False, kind=None):
        test = np.sort(test_elements.ravel().astype(rt))
        flat = element.ravel()
        out = np.empty(flat.size, dtype=np.bool_)
        for i in range(flat.size):
            out[i] = _member(test, rt(flat[i])) != invert
        return out.reshape(element.shape)
    return impl


@overload(np.setdiff1d)
def _setdiff1d(ar1, ar2, assume_unique=False):
    if _pair(ar1, ar2) is None:
        return None

    def impl(ar1, ar2, assume_unique=False):
        a = ar1.ravel() if assume_unique else np.unique(ar1)
        return a[np.isin(a, ar2, invert=True)]
    return impl


@overload(np.setxor1d)
def _setxor1d(ar1, ar2, assume_unique=False):
    rt = _pair(ar1, ar2)
    if rt is None:
        return None

    def impl(ar1, ar2, assume_unique=False):
        if assume_unique:
            aux = np.sort(_joined(ar1, ar2, rt))
        else:
            aux = np.sort(_joined(np.unique(ar1), np.unique(ar2), rt))
        out = np.empty(aux.size, dtype=rt)
        n = 0
        for i in range(aux.size):   # kept: differs from both neighbours (NaN from all)
            if (i == 0 or aux[i] != aux[i - 1]) and (i == aux.size - 1 or aux[i] != aux[i + 1]):
                out[n] = aux[i]
                n += 1
        return out[:n].copy()
    return impl


@functools.lru_cache(maxsize=None)
def _lexsort_of(count):
    """np.lexsort of a tuple of count keys: stable sorts by each key, the last key sorted last
    (so it is the primary one). Made once per count, unrolled over the tuple's items."""
    lines = ["def impl(keys, axis=-1):\n",
             "    n = keys[0].size\n"]
    for k in range(1, count):
        lines.append(f"    if keys[{k}].shape != keys[0].shape:\n"
                     "        raise ValueError('all keys need to be the same shape')\n")
    lines.append("    order = np.argsort(keys[0])\n")
    for k in range(1, count):
        lines.append(f"    order = order[np.argsort(keys[{k}][order])]\n")
    lines.append("    return order\n")
    return generated("impl", "".join(lines), {})


@overload(np.lexsort)
def _lexsort(keys, axis=-1):
    if isinstance(axis, types.Type) and given(axis):
        return None
    if isinstance(keys, types.Tuple):
        if keys.count == 0 or not all(_sortable(t) and t.ndim == 1 for t in keys):
            return None
        return _lexsort_of(keys.count)
    if not (_sortable(keys) and keys.ndim == 2):
        return None

    def impl(keys, axis=-1):
        order = np.argsort(keys[0])
        for k in range(1, keys.shape[0]):
            order = order[np.argsort(keys[k][order])]
        return order
    return impl
