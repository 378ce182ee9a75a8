"""Whether arrays share memory, written in the compiled subset over a._extent() (the bytes an
array's items span, a builtin): np.may_share_memory (the spans overlap, NumPy's default bounds
check) and np.shares_memory (exactly: some byte belongs to an item of each)."""
import numpy as np

from ._util import is_array, is_number, overload, register_jitable


@register_jitable
def _spans_overlap(a, b):
    alo, ahi = a._extent()
    blo, bhi = b._extent()
    return alo < bhi and blo < ahi


@register_jitable
def _item_offsets(a):
    """The byte offsets of a's items from its lowest byte, sorted."""
    offsets = np.zeros(1, np.int64)
    for k in range(a.ndim):
        steps = np.arange(a.shape[k]) * a.strides[k]
        offsets = (offsets.reshape(-1, 1) + steps.reshape(1, -1)).ravel()
    offsets = np.sort(offsets)
    if offsets.size:
        offsets -= offsets[0]
    return offsets


@register_jitable
def _shares(a, b):
    """Some byte lies in an item of a and in an item of b: the items' byte ranges of each,
    sorted, walked together."""
    if not _spans_overlap(a, b):
        return False
    alo, ahi = a._extent()
    blo, bhi = b._extent()
    oa = _item_offsets(a) + alo
    ob = _item_offsets(b) + blo
    na, nb = a.itemsize, b.itemsize
    i = j = 0
    while i < oa.size and j < ob.size:
        if oa[i] + na <= ob[j]:
            i += 1
        elif ob[j] + nb <= oa[i]:
            j += 1
        else:
            return True
    return False


def _memory_typing(exact):
    def typing(a, b, max_work=None):
        if not ((is_array(a) or is_number(a)) and (is_array(b) or is_number(b))):
            return None
        if not (is_array(a) and is_array(b)):
            return lambda a, b, max_work=None: False   # a number has no memory of an array
        if exact:
            return lambda a, b, max_work=None: _shares(a, b)
        return lambda a, b, max_work=None: _spans_overlap(a, b)
    return typing


overload(np.shares_memory)(_memory_typing(True))
overload(np.may_share_memory)(_memory_typing(False))
