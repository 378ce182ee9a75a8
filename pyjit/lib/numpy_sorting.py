"""np.sort, np.argsort, a.sort(), a.argsort(), np.partition, np.argpartition and np.unique,
written in the compiled subset and compiled per dtype (as Numba does).

np.sort and a.sort() use an introsort (quicksort with a median-of-three pivot, insertion sort
for small ranges, heapsort once the depth passes 2 log2 n), or a merge sort (kind 'mergesort',
'stable') or a heapsort (kind 'heapsort'). argsort is a stable merge sort of the indices for
every kind (ties in index order, a valid answer for each). partition is an introselect. NaNs are
moved to the end first, so the sorts themselves compare with plain `<`: NaNs sort last, as in
NumPy. n-d arrays are sorted along the last axis (axis=-1, NumPy's default) or flattened
(axis=None)."""
import numpy as np

from ._util import is_array, overload, register_jitable, types
from ..extending import overload_method

_SMALL = 16   # ranges this short are insertion-sorted
_KINDS = (None, "quicksort", "mergesort", "stable", "heapsort")


# ---- sorting values in place: a[lo..hi], bounds included -------------------------------------

@register_jitable
def _insertion(a, lo, hi):
    for i in range(lo + 1, hi + 1):
        v = a[i]
        j = i
        while j > lo and v < a[j - 1]:
            a[j] = a[j - 1]
            j -= 1
        a[j] = v


@register_jitable
def _sift(a, lo, root, n):
    v = a[lo + root]
    while True:
        child = 2 * root + 1
        if child >= n:
            break
        if child + 1 < n and a[lo + child] < a[lo + child + 1]:
            child += 1
        if not v < a[lo + child]:
            break
        a[lo + root] = a[lo + child]
        root = child
    a[lo + root] = v


@register_jitable
def _heapsort(a, lo, hi):
    n = hi - lo + 1
    i = n // 2 - 1
    while i >= 0:
        _sift(a, lo, i, n)
        i -= 1
    end = n - 1
    while end > 0:
        v = a[lo]
        a[lo] = a[lo + end]
        a[lo + end] = v
        _sift(a, lo, 0, end)
        end -= 1


@register_jitable
def _partition(a, lo, hi):
    """Median-of-three quicksort partition of a[lo..hi] (at least 3 elements): returns p with
    a[lo..p-1] <= a[p] <= a[p+1..hi]. Scans stop on equal keys, so ties split evenly."""
    mid = (lo + hi) >> 1
    if a[mid] < a[lo]:
        a[mid], a[lo] = a[lo], a[mid]
    if a[hi] < a[mid]:
        a[hi], a[mid] = a[mid], a[hi]
        if a[mid] < a[lo]:
            a[mid], a[lo] = a[lo], a[mid]
    pivot = a[mid]
    a[mid], a[hi - 1] = a[hi - 1], a[mid]
    i, j = lo, hi - 1
    while True:
        i += 1
        while a[i] < pivot:
            i += 1
        j -= 1
        while pivot < a[j]:
            j -= 1
        if i >= j:
            break
        a[i], a[j] = a[j], a[i]
    a[i], a[hi - 1] = a[hi - 1], a[i]
    return i


@register_jitable
def _depth_limit(n):
    d = 0
    while n > 1:
        n >>= 1
        d += 2
    return d


@register_jitable
def _introsort(a, lo, hi):
    if hi - lo < _SMALL:
        _insertion(a, lo, hi)
        return
    stack = np.empty(3 * 128, dtype=np.int64)   # the larger side waits: at most log2(n) ranges
    stack[0], stack[1], stack[2] = lo, hi, _depth_limit(hi - lo + 1)
    sp = 3
    while sp > 0:
        sp -= 3
        lo, hi, depth = stack[sp], stack[sp + 1], stack[sp + 2]
        while hi - lo >= _SMALL:
            if depth == 0:
                _heapsort(a, lo, hi)
                break
            depth -= 1
            p = _partition(a, lo, hi)
            if p - lo < hi - p:
                stack[sp], stack[sp + 1], stack[sp + 2] = p + 1, hi, depth
                hi = p - 1
            else:
                stack[sp], stack[sp + 1], stack[sp + 2] = lo, p - 1, depth
                lo = p + 1
            sp += 3
        _insertion(a, lo, hi)


@register_jitable
def _mergesort(a, lo, hi):
    """Bottom-up merge sort of a[lo..hi]: runs of _SMALL insertion-sorted, then merged through a
    buffer (equal keys keep their order)."""
    n = hi - lo + 1
    for s in range(lo, hi + 1, _SMALL):
        _insertion(a, s, min(s + _SMALL - 1, hi))
    if n <= _SMALL:
        return
    src = a[lo:hi + 1].copy()
    dst = np.empty_like(src)
    width = _SMALL
    while width < n:
        s = 0
        while s < n:
            mid, end = min(s + width, n), min(s + 2 * width, n)
            i, j, k = s, mid, s
            while i < mid and j < end:
                if src[j] < src[i]:
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < end:
                dst[k] = src[j]
                j += 1
                k += 1
            s = end
        src, dst = dst, src
        width *= 2
    for i in range(n):
        a[lo + i] = src[i]


@register_jitable
def nan_to_end(a):
    """Moves the NaNs of a 1-d float array to its end; returns how many elements are not NaN."""
    k = 0
    for i in range(a.size):
        v = a[i]
        if v == v:
            a[i] = a[k]
            a[k] = v
            k += 1
    return k


@register_jitable
def select(a, lo, hi, k):
    """Introselect: reorders a[lo..hi] so that a[k] is the element a sorted order has there,
    with a[lo..k-1] <= a[k] <= a[k+1..hi] (no NaNs in the range)."""
    depth = _depth_limit(hi - lo + 1)
    while hi - lo >= _SMALL:
        if depth == 0:
            _heapsort(a, lo, hi)
            return
        depth -= 1
        p = _partition(a, lo, hi)
        if k == p:
            return
        if k < p:
            hi = p - 1
        else:
            lo = p + 1
    _insertion(a, lo, hi)


def _sorter(kind, floating):
    """The in-place sort of a 1-d array for kind, NaNs moved last first for floats."""
    method = _heapsort if kind == "heapsort" else \
        _mergesort if kind in ("mergesort", "stable") else _introsort

    @register_jitable
    def sort1(a):
        n = a.size
        if floating:
            n = nan_to_end(a)
        method(a, 0, n - 1)
    return sort1


# ---- argsort: a stable merge sort of indices --------------------------------------------------

@register_jitable
def _arg_insertion(a, idx, lo, hi):
    """Sorts idx[lo..hi] by a[idx], stably (argpartition's small ranges)."""
    for i in range(lo + 1, hi + 1):
        t = idx[i]
        v = a[t]
        j = i
        while j > lo and v < a[idx[j - 1]]:
            idx[j] = idx[j - 1]
            j -= 1
        idx[j] = t


@register_jitable
def _pair_insertion(key, idx, lo, hi):
    for i in range(lo + 1, hi + 1):
        v, t = key[i], idx[i]
        j = i
        while j > lo and v < key[j - 1]:
            key[j], idx[j] = key[j - 1], idx[j - 1]
            j -= 1
        key[j], idx[j] = v, t


@register_jitable
def _pair_mergesort(key, idx, n):
    """Sorts the pairs (key[i], idx[i]), i < n, by key stably. The keys travel with their
    indices, so merging reads memory in order (no a[idx[i]] lookups)."""
    for s in range(0, n, _SMALL):
        _pair_insertion(key, idx, s, min(s + _SMALL, n) - 1)
    if n <= _SMALL:
        return
    kdst = np.empty_like(key)
    idst = np.empty_like(idx)
    ksrc, isrc = key, idx
    width = _SMALL
    while width < n:
        s = 0
        while s < n:
            mid, end = min(s + width, n), min(s + 2 * width, n)
            i, j, k = s, mid, s
            while i < mid and j < end:
                if ksrc[j] < ksrc[i]:
                    kdst[k], idst[k] = ksrc[j], isrc[j]
                    j += 1
                else:
                    kdst[k], idst[k] = ksrc[i], isrc[i]
                    i += 1
                k += 1
            while i < mid:
                kdst[k], idst[k] = ksrc[i], isrc[i]
                i += 1
                k += 1
            while j < end:
                kdst[k], idst[k] = ksrc[j], isrc[j]
                j += 1
                k += 1
            s = end
        ksrc, kdst = kdst, ksrc
        isrc, idst = idst, isrc
        width *= 2
    for i in range(n):
        idx[i] = isrc[i]


def _argsorter(floating):
    @register_jitable
    def argsort1(a, idx):
        """idx (len(a) int64s) := the stable order of a, NaNs last in index order."""
        n = a.size
        key = np.empty(n, dtype=a.dtype)
        k = 0
        for i in range(n):
            v = a[i]
            if not floating or v == v:
                key[k], idx[k] = v, i
                k += 1
        m = k
        if floating:
            for i in range(n):
                if a[i] != a[i]:
                    idx[k] = i
                    k += 1
        _pair_mergesort(key, idx, m)
    return argsort1


@register_jitable
def _arg_partition(a, idx, lo, hi):
    mid = (lo + hi) >> 1
    if a[idx[mid]] < a[idx[lo]]:
        idx[mid], idx[lo] = idx[lo], idx[mid]
    if a[idx[hi]] < a[idx[mid]]:
        idx[hi], idx[mid] = idx[mid], idx[hi]
        if a[idx[mid]] < a[idx[lo]]:
            idx[mid], idx[lo] = idx[lo], idx[mid]
    pivot = a[idx[mid]]
    idx[mid], idx[hi - 1] = idx[hi - 1], idx[mid]
    i, j = lo, hi - 1
    while True:
        i += 1
        while a[idx[i]] < pivot:
            i += 1
        j -= 1
        while pivot < a[idx[j]]:
            j -= 1
        if i >= j:
            break
        idx[i], idx[j] = idx[j], idx[i]
    idx[i], idx[hi - 1] = idx[hi - 1], idx[i]
    return i


@register_jitable
def _arg_heapsort(a, idx, lo, hi):
    """Sorts idx[lo..hi] by a[idx] (argpartition's fallback): a heap of positions."""
    n = hi - lo + 1
    start = n // 2 - 1
    while start >= 0:
        _arg_sift(a, idx, lo, start, n)
        start -= 1
    end = n - 1
    while end > 0:
        idx[lo], idx[lo + end] = idx[lo + end], idx[lo]
        _arg_sift(a, idx, lo, 0, end)
        end -= 1


@register_jitable
def _arg_sift(a, idx, lo, root, n):
    t = idx[lo + root]
    while True:
        child = 2 * root + 1
        if child >= n:
            break
        if child + 1 < n and a[idx[lo + child]] < a[idx[lo + child + 1]]:
            child += 1
        if not a[t] < a[idx[lo + child]]:
            break
        idx[lo + root] = idx[lo + child]
        root = child
    idx[lo + root] = t


@register_jitable
def _arg_select(a, idx, hi, k):
    """select() on indices: idx[0..hi] reordered so that a[idx[k]] is in its sorted place; past
    the depth limit the range left is heap-sorted."""
    lo = 0
    depth = _depth_limit(hi + 1)
    while hi - lo >= _SMALL:
        if depth == 0:
            _arg_heapsort(a, idx, lo, hi)
            return
        depth -= 1
        p = _arg_partition(a, idx, lo, hi)
        if k == p:
            return
        if k < p:
            hi = p - 1
        else:
            lo = p + 1
    _arg_insertion(a, idx, lo, hi)


# ---- the NumPy functions and methods ----------------------------------------------------------

def _literal(t, default):
    """The value of an optional string or None argument, as the typing function sees it."""
    if t is None or isinstance(t, types.NoneType):
        return None
    if isinstance(t, types.Omitted):
        return t.value
    if isinstance(t, types.StringLiteral):
        return t.literal_value
    return default


def _check_kind(t):
    kind = _literal(t, "?")
    if kind not in _KINDS:
        raise ValueError(f"sort kind must be one of 'quicksort', 'mergesort', 'stable' or "
                         f"'heapsort', got {kind!r}")
    return kind


def _sortable(a):
    return is_array(a) and isinstance(a.dtype, (types.Integer, types.Float, types.Boolean))


def _axis_kind(axis):
    """'last' (an int axis, checked at run time to be the last one), or 'flat' (axis=None)."""
    if isinstance(axis, types.Omitted):
        axis = axis.value
    if axis is None or isinstance(axis, types.NoneType):
        return "flat"
    if isinstance(axis, (int, types.Integer)):
        return "last"
    raise TypeError(f"axis must be an integer or None, not {axis}")


@register_jitable
def _check_last_axis(axis, ndim):
    if axis != -1 and axis != ndim - 1:
        raise ValueError("sorting supports axis=-1 (the last axis) and axis=None only")


def _sort_rows(sort1, ndim):
    """Sorts a C-contiguous array b in place along its last axis."""
    if ndim == 1:
        return sort1

    @register_jitable
    def sort_rows(b):
        m = b.shape[ndim - 1]
        if m == 0:
            return
        rows = b.reshape((b.size // m, m))
        for r in range(b.size // m):
            sort1(rows[r])
    return sort_rows


@overload(np.sort)
def _np_sort(a, axis=-1, kind=None):
    if not _sortable(a):
        return None
    sort1 = _sorter(_check_kind(kind), isinstance(a.dtype, types.Float))
    if _axis_kind(axis) == "flat":
        def impl_flat(a, axis=-1, kind=None):
            b = a.ravel().copy()
            sort1(b)
            return b
        return impl_flat
    sort_rows, ndim = _sort_rows(sort1, a.ndim), a.ndim

    def impl(a, axis=-1, kind=None):
        _check_last_axis(axis, ndim)
        b = a.copy()
        sort_rows(b)
        return b
    return impl


@overload_method(types.Array, "sort")
def _array_sort(a, axis=-1, kind=None):
    if not _sortable(a):
        return None
    if a.readonly:
        raise TypeError("array is read-only: sort() cannot write it")
    if _axis_kind(axis) == "flat":
        raise TypeError("a.sort(axis=None) is not supported by NumPy: give an integer axis")
    sort1 = _sorter(_check_kind(kind), isinstance(a.dtype, types.Float))
    ndim = a.ndim
    if ndim == 1:
        def impl(a, axis=-1, kind=None):
            _check_last_axis(axis, ndim)
            sort1(a)
        return impl
    if a.layout != "C":
        raise TypeError(f"a.sort() of a {ndim}d array that is not C-contiguous is not supported "
                        "(1-d views and C-contiguous arrays are): sort np.sort(a) instead")
    sort_rows = _sort_rows(sort1, ndim)

    def impl_rows(a, axis=-1, kind=None):
        _check_last_axis(axis, ndim)
        sort_rows(a)
    return impl_rows


def _argsort_overload(a, axis=-1, kind=None):
    if not _sortable(a):
        return None
    _check_kind(kind)
    argsort1 = _argsorter(isinstance(a.dtype, types.Float))
    if _axis_kind(axis) == "flat":
        def impl_flat(a, axis=-1, kind=None):
            b = a.ravel()
            out = np.empty(b.size, dtype=np.int64)
            argsort1(b, out)
            return out
        return impl_flat
    ndim = a.ndim

    def impl(a, axis=-1, kind=None):
        _check_last_axis(axis, ndim)
        b = a.ravel()
        out = np.empty(b.size, dtype=np.int64)
        m = a.shape[ndim - 1] if ndim > 0 else 1
        if m > 0:
            for r in range(b.size // m):
                argsort1(b[r * m:(r + 1) * m], out[r * m:(r + 1) * m])
        return out.reshape(a.shape)
    return impl


overload(np.argsort)(_argsort_overload)
overload_method(types.Array, "argsort")(_argsort_overload)


@register_jitable
def _check_kth(kth, n):
    if kth < -n or kth >= n:
        raise ValueError("kth out of bounds")
    return kth + n if kth < 0 else kth


@overload(np.partition)
def _np_partition(a, kth):
    if not _sortable(a) or a.ndim != 1 or not isinstance(kth, types.Integer):
        return None
    floating = isinstance(a.dtype, types.Float)

    def impl(a, kth):
        b = a.copy()
        k = _check_kth(kth, b.size)
        m = b.size
        if floating:
            m = nan_to_end(b)
        if k < m:
            select(b, 0, m - 1, k)
        return b
    return impl


@overload(np.argpartition)
def _np_argpartition(a, kth):
    if not _sortable(a) or a.ndim != 1 or not isinstance(kth, types.Integer):
        return None
    floating = isinstance(a.dtype, types.Float)

    def impl(a, kth):
        n = a.size
        k = _check_kth(kth, n)
        idx = np.empty(n, dtype=np.int64)
        m = 0
        for i in range(n):
            if not floating or a[i] == a[i]:
                idx[m] = i
                m += 1
        j = m
        for i in range(n):
            if floating and a[i] != a[i]:
                idx[j] = i
                j += 1
        if k < m:
            _arg_select(a, idx, m - 1, k)
        return idx
    return impl


@overload(np.unique)
def _unique(ar):
    if not _sortable(ar):
        return None
    dt = ar.dtype

    def impl(ar):
        b = np.sort(ar.ravel())
        out = np.empty(b.size, dtype=dt)
        n = 0
        for i in range(b.size):
            v = b[i]
            if v != v:          # NaNs sort last: keep one
                out[n] = v
                n += 1
                break
            if n == 0 or v != out[n - 1]:
                out[n] = v
                n += 1
        return out[:n].copy()
    return impl
