"""np.unique (with return_index=, return_inverse=, return_counts=), and np.sort and np.argsort
along an axis other than the last, written in the compiled subset and compiled per dtype (as
Numba does).

np.sort, a.sort(), np.argsort, a.argsort(), np.partition and np.argpartition are builtins
(compiler/builtins.def) over runtime/sort.c: sorting compiled per element type in C compiles in
no time, where the same algorithms in the subset cost each caller's first compile LLVM's
optimisation of them (about 150 ms)."""
import functools

import numpy as np

from ._util import generated, given, is_array, overload, overload_method, register_jitable, types
from .numpy_shape import _norm_axis


def _sortable(a):
    return is_array(a) and isinstance(a.dtype, (types.Integer, types.Float, types.Boolean,
                                                 types.Complex, types.NPDatetime,
                                                 types.NPTimedelta))


@register_jitable
def _groups(ar, want):
    """The sorted distinct values of ar (NaNs as one) with the index of each one's first
    occurrence, ar's elements' group numbers in ar's shape, and each group's size. A flag of
    the call that holds False at run time cannot change the result's type: it raises."""
    if not want:
        raise ValueError("return_index, return_inverse and return_counts take a constant True "
                         "in compiled code")
    b = ar.ravel()
    perm = np.argsort(b)     # stable: the first of equal values is the first occurrence
    n = b.size
    values = np.empty(n, dtype=b.dtype)
    first = np.empty(n, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    inverse = np.empty(n, dtype=np.int64)
    g = -1
    for i in range(n):
        v = b[perm[i]]
        if g < 0 or not (v == values[g] or (v != v and values[g] != values[g])):
            g += 1
            values[g] = v
            first[g] = perm[i]
        counts[g] += 1
        inverse[perm[i]] = g
    m = g + 1
    return (values[:m].copy(), first[:m].copy(), inverse.reshape(ar.shape),
            counts[:m].copy())


def _flag(t):
    """Whether the call gave a flag (a bool typed at compile time; left out, it is False)."""
    return isinstance(t, types.Type) and given(t)


@functools.lru_cache(maxsize=None)
def _unique_returning(index, inverse, counts):
    """np.unique returning the values and the arrays the flags ask for, in NumPy's order."""
    wanted = [f for f, on in (("index", index), ("inverse", inverse), ("counts", counts)) if on]
    checks = " and ".join(f"return_{f}" for f in wanted)
    items = "".join(f"r[{1 + ('index', 'inverse', 'counts').index(f)}], " for f in wanted)
    source = ("def impl(ar, return_index=False, return_inverse=False, return_counts=False):\n"
              f"    r = _groups(ar, {checks})\n"
              f"    return (r[0], {items})\n")
    return generated("impl", source, {"_groups": _groups})


@overload(np.unique)
def _unique(ar, return_index=False, return_inverse=False, return_counts=False):
    if not _sortable(ar):
        return None
    flags = (_flag(return_index), _flag(return_inverse), _flag(return_counts))
    if any(flags):
        return _unique_returning(*flags)
    dt = ar.dtype

    def impl(ar, return_index=False, return_inverse=False, return_counts=False):
        b = np.sort(ar.ravel())
        out = np.empty_like(b)     # (np.empty takes no datetime dtype in compiled code)
        n = 0
        for i in range(b.size):
            v = b[i]
            if v != v:          # NaNs (NaTs) sort last: keep one
                out[n] = v
                n += 1
                break
            if n == 0 or v != out[n - 1]:
                out[n] = v
                n += 1
        return out[:n].copy()
    return impl


_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")   # all sort stably here


def _along_axis(sort):
    """np.sort (sort=True) and np.argsort with an int axis: the builtin sorts the last axis of
    a view with the axis swapped there, and the result is swapped back into a C-ordered copy.
    Without an axis, or with None, these decline and the builtins serve."""
    def typing(a=None, axis=-1, kind=None):    # a=None: a call without arguments declines
        if not (is_array(a) and a.ndim > 1 and isinstance(axis, types.Integer)):
            return None
        if getattr(kind, "literal_value", None) not in _KINDS:
            return None     # the builtin's message names what it takes

        def impl(a=None, axis=-1, kind=None):
            if axis < -a.ndim or axis >= a.ndim:
                raise np.exceptions.AxisError("axis is out of bounds for array of this "
                                              "dimension")
            last = a.ndim - 1
            moved = np.swapaxes(a, axis, last)
            done = np.sort(moved) if sort else np.argsort(moved)
            return np.ascontiguousarray(np.swapaxes(done, axis, last))
        return impl
    return typing


overload(np.sort)(_along_axis(True))
overload(np.argsort)(_along_axis(False))


def _method_along_axis(sort):
    """a.sort(axis=k) (in place) and a.argsort(axis=k) along an axis other than the last: as
    the functions (the builtin methods take the last axis)."""
    def typing(a, axis=-1, kind=None, order=None):
        if not (is_array(a) and a.ndim > 1 and isinstance(axis, types.Integer)):
            return None
        if isinstance(order, types.Type) and given(order):
            raise TypeError("sort: order= (of structured arrays) is not supported")
        if sort and a.readonly:
            raise TypeError("array is read-only: sort() cannot write it")
        if sort:
            def impl(a, axis=-1, kind=None, order=None):
                a[...] = np.sort(a, axis, kind)
            return impl

        def arg(a, axis=-1, kind=None, order=None):
            return np.argsort(a, axis, kind)
        return arg
    return typing


overload_method(types.Array, "sort")(_method_along_axis(True))
overload_method(types.Array, "argsort")(_method_along_axis(False))


# ---- np.partition and np.argpartition beyond the builtin (an int kth, the last axis) ----

def _kth_values(kth):
    """'int' for one kth, 'seq' for a sequence of them (an array, tuple or list of ints)."""
    if isinstance(kth, (types.Integer, types.Boolean)):
        return "int"
    if is_array(kth) and kth.ndim <= 1 and isinstance(kth.dtype, types.Integer):
        return "seq"
    if isinstance(kth, types.Tuple) and all(isinstance(t, types.Integer) for t in kth.types):
        return "seq"
    if isinstance(kth, types.List) and isinstance(kth.dtype, types.Integer):
        return "seq"
    return None


def _partition_source(arg, params, nd, axis_kind, kth_kind, inplace=False):
    """np.partition (arg False) or np.argpartition with axis= an int or None, kth an int or a
    sequence of ints. A sequence is served by sorting the lanes: every kth element then stands
    where sorted order puts it, which is all NumPy promises of the others' order."""
    fn = "np.argpartition" if arg else "np.partition"
    sort = "np.argsort" if arg else "np.sort"
    lines = [f"def impl({params}):"]
    if axis_kind == "none":
        lines.append("    b = np.ravel(a)")
        nd = 1
        ax = "0"
    else:
        lines.append(f"    ax = _norm_axis(axis, {nd})")
        lines.append("    b = a")
        ax = "ax"
    if kth_kind == "seq":
        lines += [f"    n = b.shape[{ax}]",
                  "    for k in np.asarray(kth).ravel():",
                  "        if k < -n or k >= n:",
                  "            raise ValueError('kth(=' + str(k) + ') out of bounds (' + "
                  "str(n) + ')')"]
        one = f"{sort}(m)"
    else:
        one = f"{fn}(m, kth)"
    if nd > 1:   # the builtin works along the last axis: the axis is swapped there and back
        lines += [f"    m = np.swapaxes(b, {ax}, {nd - 1})",
                  f"    r = np.ascontiguousarray(np.swapaxes({one}, {ax}, {nd - 1}))"]
    else:
        lines += ["    m = b", f"    r = {one}"]
    lines.append("    a[...] = r" if inplace else "    return r")
    return "\n".join(lines) + "\n"


def _partition_typing(arg, method=False):
    def typing(a, kth, axis=-1, kind="introselect", order=None):
        if not _sortable(a) or a.ndim == 0:
            return None
        kth_kind = _kth_values(kth)
        if kth_kind is None:
            raise TypeError(f"partition: kth must be an int or a sequence of ints, not {kth}")
        if isinstance(kind, types.Type) and getattr(kind, "literal_value", None) != \
                "introselect":
            raise TypeError(f"partition: kind must be 'introselect', not {kind}")
        if isinstance(order, types.Type) and given(order):
            raise TypeError("partition: order= (of structured arrays) is not supported")
        if isinstance(axis, types.NoneType):
            axis_kind = "none"
            if method:
                raise TypeError("a.partition(axis=None) is not supported by NumPy: give an "
                                "integer axis")
        elif isinstance(axis, (types.Integer, types.Boolean)) or not isinstance(axis,
                                                                                types.Type):
            axis_kind = "int"
        else:
            raise TypeError(f"partition: axis must be an int or None, not {axis}")
        if not method and kth_kind == "int" and not isinstance(axis, types.Type):
            return None      # the builtin: the last axis
        if method and a.readonly and not arg:
            raise TypeError("array is read-only: partition() cannot write it")
        params = ("a, kth, axis=-1, kind='introselect', order=None")
        return generated("impl", _partition_source(arg, params, a.ndim, axis_kind, kth_kind,
                                                   inplace=method and not arg),
                         {"_norm_axis": _norm_axis})
    return typing


overload(np.partition)(_partition_typing(False))
overload(np.argpartition)(_partition_typing(True))
overload_method(types.Array, "partition")(_partition_typing(False, method=True))
overload_method(types.Array, "argpartition")(_partition_typing(True, method=True))


# ---- np.unique(ar, axis=k): the distinct subarrays along an axis ----

@register_jitable
def _unique_rows(b, want):
    """The distinct rows of the 2-d array b in lexicographic order, with the index of each
    one's first occurrence, each row's group number and each group's size."""
    if not want:
        raise ValueError("return_index, return_inverse and return_counts take a constant True "
                         "in compiled code")
    n, m = b.shape
    if m > 0:
        perm = np.lexsort(b.T[::-1])
    else:
        perm = np.arange(n)
    keep = np.zeros(n, np.bool_)
    first = np.empty(n, np.int64)
    counts = np.zeros(n, np.int64)
    inverse = np.empty(n, np.int64)
    g = -1
    for i in range(n):
        new = i == 0
        if not new:
            for j in range(m):
                if b[perm[i], j] != b[perm[i - 1], j]:
                    new = True
                    break
        if new:
            g += 1
            keep[i] = True
            first[g] = perm[i]
        counts[g] += 1
        inverse[perm[i]] = g
    rows = perm[keep]
    return rows, first[:g + 1].copy(), inverse, counts[:g + 1].copy()


def _unique_axis(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
                 equal_nan=True):
    if not (_sortable(ar) and isinstance(axis, (types.Integer, types.Boolean))):
        return None
    flags = (_flag(return_index), _flag(return_inverse), _flag(return_counts))
    nd = ar.ndim
    wanted = [name for name, on in zip(("index", "inverse", "counts"), flags) if on]
    check = " and ".join(f"return_{f}" for f in wanted) or "True"
    items = "".join(f"r[{1 + ('index', 'inverse', 'counts').index(f)}], " for f in wanted)
    result = f"(values, {items})" if wanted else "values"
    source = ("def impl(ar, return_index=False, return_inverse=False, return_counts=False, "
              "axis=None, equal_nan=True):\n"
              f"    ax = _norm_axis(axis, {nd})\n"
              "    moved = np.moveaxis(ar, ax, 0)\n"
              "    n = moved.shape[0]\n"
              "    rest = moved.size // n if n > 0 else 0\n"
              "    b = np.ascontiguousarray(moved).reshape((n, rest))\n"
              f"    r = _unique_rows(b, {check})\n"
              "    picked = np.ascontiguousarray(moved[r[0]])\n"
              "    values = np.ascontiguousarray(np.moveaxis(picked, 0, ax))\n"
              f"    return {result}\n")
    return generated("impl", source, {"_unique_rows": _unique_rows, "_norm_axis": _norm_axis})


overload(np.unique)(_unique_axis)
