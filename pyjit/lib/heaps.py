"""Python's heapq on lists, written in the compiled subset: the same sifts as CPython's module
(a pushed item rises toward the root; a popped root is refilled by walking the smaller children
down to a leaf, then letting the moved item rise), so a heap built in compiled code holds its
items in the order CPython's would. Items compare with <, as in CPython."""
import heapq

from .. import types
from ..extending import overload, register_jitable


def _list(heap, what):
    if not isinstance(heap, types.List):
        raise TypeError(f"heapq.{what}() takes a list as the heap, not {heap}")


@register_jitable
def _rise(heap, start, pos):
    """The item at pos moves toward start while it is smaller than its parent."""
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
def _sink(heap, pos):
    """The item at pos is replaced by the chain of smaller children down to a leaf, where it is
    put and then rises to its place."""
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
    _rise(heap, start, pos)


@overload(heapq.heapify)
def _heapify(x):
    _list(x, "heapify")

    def impl(x):
        for i in range(len(x) // 2 - 1, -1, -1):
            _sink(x, i)
    return impl


@overload(heapq.heappush)
def _heappush(heap, item):
    _list(heap, "heappush")

    def impl(heap, item):
        heap.append(item)
        _rise(heap, 0, len(heap) - 1)
    return impl


@overload(heapq.heappop)
def _heappop(heap):
    _list(heap, "heappop")

    def impl(heap):
        if len(heap) == 0:
            raise IndexError("index out of range")
        last = heap.pop()
        if len(heap) == 0:
            return last
        top = heap[0]
        heap[0] = last
        _sink(heap, 0)
        return top
    return impl


@overload(heapq.heapreplace)
def _heapreplace(heap, item):
    _list(heap, "heapreplace")

    def impl(heap, item):
        if len(heap) == 0:
            raise IndexError("index out of range")
        top = heap[0]
        heap[0] = item
        _sink(heap, 0)
        return top
    return impl


@overload(heapq.heappushpop)
def _heappushpop(heap, item):
    _list(heap, "heappushpop")

    def impl(heap, item):
        if len(heap) > 0 and heap[0] < item:
            top = heap[0]
            heap[0] = item
            _sink(heap, 0)
            return top
        return item
    return impl


def _extremes(name, reverse):
    def typing(n, iterable, key=None):
        if not isinstance(n, (types.Integer, types.Boolean)):
            raise TypeError(f"heapq.{name}() takes an int count, not {n}")
        # CPython's result is the first n of the sorted items (ties in their first order)
        if key is not None and not isinstance(key, (types.NoneType, types.Omitted)):
            def keyed(n, iterable, key=None):
                return sorted(iterable, key=key, reverse=reverse)[:max(n, 0)]
            return keyed

        def impl(n, iterable, key=None):
            return sorted(iterable, reverse=reverse)[:max(n, 0)]
        return impl
    return typing


overload(heapq.nsmallest)(_extremes("nsmallest", False))
overload(heapq.nlargest)(_extremes("nlargest", True))
