"""np.any, np.all, np.count_nonzero, np.flatnonzero, np.nonzero, written in the compiled
subset; arrays are flattened as NumPy does with axis=None."""
import numpy as np

from ._util import given, is_array, is_number, overload, types


def _typed(t):
    """Whether the call gave this optional argument (a type, not the Python default)."""
    return isinstance(t, types.Type) and given(t)


def truth_reduction(found):
    """np.any (found=True) and np.all (found=False): the answer is `found` as soon as one
    element's truth equals it, else its opposite. With an axis (or out=, keepdims=, which
    numpy_axis refuses) numpy_axis serves."""
    def typing(a, axis=None, out=None, keepdims=False):
        if given(axis) or _typed(out) or _typed(keepdims):
            from .numpy_axis import truth_along
            return truth_along(found, a, axis, out, keepdims)
        if is_number(a):
            return lambda a, axis=None, out=None, keepdims=False: a != 0
        if not is_array(a):
            return None

        def impl(a, axis=None, out=None, keepdims=False):
            b = a.ravel()
            for i in range(b.size):
                if (b[i] != 0) == found:
                    return found
            return not found
        return impl
    return typing


overload(np.any)(truth_reduction(True))
overload(np.all)(truth_reduction(False))


@overload(np.count_nonzero)
def _count_nonzero(a, axis=None, keepdims=False):
    if given(axis):   # along an int axis (numpy_axis), keepdims= the constant True or False
        from .numpy_axis import count_along
        return count_along(a, axis, keepdims)
    if is_number(a):
        return lambda a, axis=None, keepdims=False: 1 if a != 0 else 0
    if not is_array(a):
        return None

    def impl(a, axis=None, keepdims=False):
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


def _register_where():
    """np.any and np.all with where= (numpy_where.py)."""
    from . import numpy_where
    for name in ("any", "all"):
        typing = numpy_where.reduction(name, name, "a, axis=None, out=None, keepdims=False, "
                                                   "where=True")
        typing.__module__ = __name__
        overload(getattr(np, name))(typing)


_register_where()
