"""The heapq module over lists, written in the compiled subset: heappush, heappop, heapify,
heapreplace, heappushpop, nsmallest and nlargest. The sifts are the binary-heap algorithm CPython
runs, so a list is left in the order CPython leaves it, and items compare with `<` only (tuples
lexicographically: priority queues of (distance, node)). Messages are CPython's."""
import heapq

from .. import types
from ..extending import overload, register_jitable


@register_jitable
def _sift_down(heap, start, pos):
    """Moves heap[pos] up towards start while it is smaller than its parent."""
    item = heap[pos]
    while pos > start:
        parent = (pos - 1) >> 1
        if item < heap[parent]:
            heap[pos] = heap[parent]
            pos = parent
        else:
            break
    heap[pos] = item


@register_jitable
def _sift_up(heap, pos):
    """Fills the hole at pos by moving the smaller child up until a leaf, then sifts the item
    that was there back into place (fewer comparisons than stopping early)."""
    end = len(heap)
    start = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        right = child + 1
        if right < end and not heap[child] < heap[right]:
            child = right
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _sift_down(heap, start, pos)


def _heap(t):
    return isinstance(t, types.List)


@overload(heapq.heappush)
def _heappush(heap, item):
    if not _heap(heap):
        return None

    def impl(heap, item):
        heap.append(item)
        _sift_down(heap, 0, len(heap) - 1)
    return impl


@overload(heapq.heappop)
def _heappop(heap):
    if not _heap(heap):
        return None

    def impl(heap):
        last = heap.pop()
        if len(heap) == 0:
            return last
        top = heap[0]
        heap[0] = last
        _sift_up(heap, 0)
        return top
    return impl


@overload(heapq.heapreplace)
def _heapreplace(heap, item):
    if not _heap(heap):
        return None

    def impl(heap, item):
        if len(heap) == 0:
            raise IndexError("index out of range")
        top = heap[0]
        heap[0] = item
        _sift_up(heap, 0)
        return top
    return impl


@overload(heapq.heappushpop)
def _heappushpop(heap, item):
    if not _heap(heap):
        return None

    def impl(heap, item):
        if len(heap) > 0 and heap[0] < item:
            top = heap[0]
            heap[0] = item
            _sift_up(heap, 0)
            return top
        return item
    return impl


@overload(heapq.heapify)
def _heapify(x):
    if not _heap(x):
        return None

    def impl(x):
        for i in range(len(x) // 2 - 1, -1, -1):
            _sift_up(x, i)
    return impl


def _iterable(t):
    return isinstance(t, (types.List, types.UniTuple)) or (
        isinstance(t, types.Array) and t.ndim == 1)


@overload(heapq.nsmallest)
def _nsmallest(n, iterable):
    if not _iterable(iterable):
        return None

    def impl(n, iterable):
        return sorted(iterable)[:max(n, 0)]
    return impl


@overload(heapq.nlargest)
def _nlargest(n, iterable):
    if not _iterable(iterable):
        return None

    def impl(n, iterable):
        return sorted(iterable, reverse=True)[:max(n, 0)]
    return impl
