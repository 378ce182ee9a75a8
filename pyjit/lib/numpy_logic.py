"""np.any, np.all, np.count_nonzero, np.flatnonzero, np.nonzero, written in the compiled
subset; arrays are flattened as NumPy does with axis=None."""
import numpy as np

from ._util import is_array, is_number, overload


def _truth_reduction(found):
    """np.any (found=True) and np.all (found=False): the answer is `found` as soon as one
    element's truth equals it, else its opposite."""
    def typing(a):
        if is_number(a):
            return lambda a: a != 0
        if not is_array(a):
            return None

        def impl(a):
            b = a.ravel()
            for i in range(b.size):
                if (b[i] != 0) == found:
                    return found
            return not found
        return impl
    return typing


overload(np.any)(_truth_reduction(True))
overload(np.all)(_truth_reduction(False))


@overload(np.count_nonzero)
def _count_nonzero(a):
    if is_number(a):
        return lambda a: 1 if a != 0 else 0
    if not is_array(a):
        return None

    def impl(a):
        b = a.ravel()
        n = 0
        for i in range(b.size):
            if b[i] != 0:
                n += 1
        return n
    return impl


@overload(np.flatnonzero)
def _flatnonzero(a):
    if not is_array(a):
        return None

    def impl(a):
        b = a.ravel()
        out = np.empty(b.size, dtype=np.int64)
        n = 0
        for i in range(b.size):
            if b[i] != 0:
                out[n] = i
                n += 1
        return out[:n].copy()
    return impl


@overload(np.nonzero)
def _nonzero(a):
    if not is_array(a) or a.ndim == 0:
        return None
    if a.ndim > 1:
        from .numpy_search import columns
        nonzero = columns(a.ndim)
        return lambda a: nonzero(a)

    def impl(a):
        return (np.flatnonzero(a),)
    return impl
