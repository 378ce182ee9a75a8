"""Advanced indexing of arrays, written in the compiled subset: an index with an integer or a
boolean array among its parts (compiler/infer_items.c routes such an a[idx] and a[idx] = value
here as the methods __getitem__ and __setitem__; every other index is lowered inline).

    a[mask]                  mask a bool array of a's shape: the selected items, a 1-d copy
    a[ind]                   ind an int array (any ndim; negative items wrap): a copy of shape
                             ind.shape + a.shape[1:]; a 1-d bool array selects along axis 0
    a[i, :, ind], ...        one array among ints and slices: the basic part is a view, taken
                             along the array's axis; the taken axes stand where the array stood,
                             or first when ints and the array are separated by a slice (NumPy's
                             rule for combined advanced indices)
    a[i, j], a[i, :, j] ...  two or more arrays (1-d bool ones as their nonzero positions): they
                             broadcast together, and their shape stands where they stood when
                             they and the ints are adjacent, else first (the same rule)
    a[...] = value           the same selections assigned: value a scalar, or an array of the
                             selection's shape (or, for a mask, of its number of True items)

Out-of-bounds items raise IndexError, a mask of the wrong shape IndexError, an assignment of the
wrong number of values ValueError, with NumPy's messages. Each implementation is generated per
index form (the positions of the array, the ints and the slices, and the ndims are types, known
when it is compiled), with loops nested per axis, so non-contiguous arrays are read and written in
place."""
import numpy as np

from ._util import generated, is_array, is_number, overload, overload_method, register_jitable, types


def _generated(source, env=None):
    return generated("impl", source, dict(env or {}, _index_error=_index_error,
                                          _compress=_compress, _gather=_gather))


def _index_error(i, axis, n):
    pass


@overload(_index_error)
def _index_error_impl(i, axis, n):
    """NumPy's IndexError for index i of an axis of size n."""
    def impl(i, axis, n):
        raise IndexError("index " + str(i) + " is out of bounds for axis " + str(axis) +
                         " with size " + str(n))
    return impl


def _loops(names, bounds, indent):
    """Nested for loops over names in range(bounds), and the indentation inside them."""
    lines = ""
    for name, bound in zip(names, bounds):
        lines += " " * indent + f"for {name} in range({bound}):\n"
        indent += 4
    return lines, indent


def _tuple(items):
    return "(" + "".join(f"{x}, " for x in items) + ")"


# ---- a[mask], a mask of a's shape ---------------------------------------------------------

def _mask_check(ndim):
    lines = ""
    for d in range(ndim):
        lines += (f"    if m.shape[{d}] != a.shape[{d}]:\n"
                  f"        raise IndexError('boolean index did not match indexed array along "
                  f"axis {d}; size of axis is ' + str(a.shape[{d}]) + ' but size of "
                  f"corresponding boolean axis is ' + str(m.shape[{d}]))\n")
    return lines


@register_jitable(boundscheck=False)
def _compress(a, m):
    """a[m] for 1-d a and m of one size: each item stored where the next selected one goes, and
    that place moved on by the mask's value, with no branch on it (a mask of random values
    mispredicts half its branches); the loop ends at the last selected item."""
    n = np.count_nonzero(m)
    out = np.empty(n, a.dtype)
    k = 0
    i = 0
    while k < n:
        out[k] = a[i]
        k += np.int64(m[i])
        i += 1
    return out


@register_jitable(boundscheck=False)
def _gather(b, ind, out):
    """out[k] = b[ind[k]] for 1-d b, ind and out of ind's size, ind's items wrapped and checked
    (NumPy's IndexError), the loads and stores not checked again."""
    n = b.shape[0]
    for k in range(ind.size):
        t = ind[k]
        if t < 0:
            t += n
        if t < 0 or t >= n:
            _index_error(ind[k], 0, n)
        out[k] = b[t]


def _mask_get(ndim):
    if ndim == 1:
        return "def impl(a, idx):\n    m = idx\n" + _mask_check(1) + "    return _compress(a, m)\n"
    names = [f"i{d}" for d in range(ndim)]
    at = _tuple(names)
    loops, ind = _loops(names, [f"a.shape[{d}]" for d in range(ndim)], 4)
    pad = " " * ind
    return ("def impl(a, idx):\n    m = idx\n" + _mask_check(ndim) +
            "    out = np.empty(np.count_nonzero(m), a.dtype)\n    k = 0\n" + loops +
            f"{pad}if m[{at}]:\n{pad}    out[k] = a[{at}]\n{pad}    k += 1\n    return out\n")


def _mask_set(ndim, value_is_array):
    names = [f"i{d}" for d in range(ndim)]
    at = _tuple(names)
    loops, ind = _loops(names, [f"a.shape[{d}]" for d in range(ndim)], 4)
    pad = " " * ind
    head = "def impl(a, idx, value):\n    m = idx\n" + _mask_check(ndim)
    if not value_is_array:
        return head + loops + f"{pad}if m[{at}]:\n{pad}    a[{at}] = value\n"
    return (head + "    v = value.ravel()\n    n = np.count_nonzero(m)\n"
            "    if v.size != n and v.size != 1:\n"
            "        raise ValueError('NumPy boolean array indexing assignment cannot assign ' + "
            "str(v.size) + ' input values to the ' + str(n) + ' output values where the mask is "
            "true')\n    k = 0\n" + loops +
            f"{pad}if m[{at}]:\n{pad}    a[{at}] = v[k if v.size > 1 else 0]\n{pad}    k += 1\n")


# ---- one array among ints and slices ------------------------------------------------------

class _Form:
    """An index tuple's form: where the array is (pos), which parts are ints, and where the taken
    axes go in the result (NumPy: in place, or first when a slice separates ints and the
    array)."""

    def __init__(self, a, parts):
        self.ndim = a.ndim
        self.parts = parts
        self.pos = [p for p, t in enumerate(parts) if is_array(t)][0]   # the one array
        ind = parts[self.pos]
        if isinstance(ind.dtype, types.Boolean) and ind.ndim != 1:
            raise TypeError("a boolean array inside an index tuple must be 1-d")
        if not isinstance(ind.dtype, (types.Integer, types.Boolean)):
            raise TypeError(f"arrays used as indices must be of integer or boolean type, not "
                            f"{ind.dtype}")
        for t in parts:
            if not (is_array(t) or isinstance(t, types.Integer) or t.name == "slice"):
                raise TypeError(f"unsupported index part {t!r} beside an array")
        if len(parts) > a.ndim:
            raise IndexError("too many indices for array")
        self.ints = [p for p, t in enumerate(parts) if isinstance(t, types.Integer)]
        # the axis of the basic view the array indexes, and whether the taken axes go first
        self.axis = self.pos - sum(1 for p in self.ints if p < self.pos)
        advanced = sorted(self.ints + [self.pos])
        self.first = any(not isinstance(parts[p], types.Integer) and not is_array(parts[p])
                         for p in range(advanced[0], advanced[-1] + 1))
        self.view_ndim = a.ndim - len(self.ints)
        self.ind_ndim = ind.ndim if not isinstance(ind.dtype, types.Boolean) else 1
        self.boolean = isinstance(ind.dtype, types.Boolean)

    def view_source(self):
        """b, the view of the basic part (a full slice where the array is), and ind, the array
        as flat int64 indices (a mask's positions)."""
        sub = [":" if p == self.pos else f"idx[{p}]" for p in range(len(self.parts))]
        lines = f"    b = a[{', '.join(sub)},]\n"
        if self.boolean:
            lines += (f"    msk = idx[{self.pos}]\n"
                      f"    if msk.shape[0] != b.shape[{self.axis}]:\n"
                      f"        raise IndexError('boolean index did not match indexed array along "
                      f"axis {self.pos}; size of axis is ' + str(b.shape[{self.axis}]) + ' but "
                      f"size of corresponding boolean axis is ' + str(msk.shape[0]))\n"
                      f"    ind = np.flatnonzero(msk)\n")
        else:
            lines += f"    ind = idx[{self.pos}].ravel()\n"
        return lines

    def shapes(self):
        """The result's shape (source) and its axis names: the view's axes with the taken ones
        (the array's shape) in place of axis, or first."""
        taken = ([f"idx[{self.pos}].shape[{d}]" for d in range(self.ind_ndim)]
                 if not self.boolean else ["ind.size"])
        rest = [f"b.shape[{d}]" for d in range(self.view_ndim) if d != self.axis]
        if self.first:
            return taken + rest
        return rest[:self.axis] + taken + rest[self.axis:]

    def loops(self):
        """Loops over k (the flat taken position) and the view's other axes, and the item of b
        and of the flat result they address."""
        others = [f"j{d}" for d in range(self.view_ndim) if d != self.axis]
        bounds = [f"b.shape[{d}]" for d in range(self.view_ndim) if d != self.axis]
        names = ["k"] + others if self.first else \
            others[:self.axis] + ["k"] + others[self.axis:]
        bounds = ["ind.size"] + bounds if self.first else \
            bounds[:self.axis] + ["ind.size"] + bounds[self.axis:]
        view_at = [f"j{d}" if d != self.axis else "t" for d in range(self.view_ndim)]
        return names, bounds, _tuple(view_at), _tuple(names)


def _wrapped(form, pad):
    """Source of t, ind[k] wrapped into the taken axis, with NumPy's IndexError: inline, as a
    call in the innermost loop costs more than the gather itself."""
    n = f"b.shape[{form.axis}]"
    return (f"{pad}t = ind[k]\n"
            f"{pad}if t < 0:\n"
            f"{pad}    t += {n}\n"
            f"{pad}if t < 0 or t >= {n}:\n"
            f"{pad}    _index_error(ind[k], {form.pos}, {n})\n")


def _take_get(form):
    if form.ndim == 1 and form.ind_ndim == 1 and not form.boolean:   # a[ind], both 1-d
        return ("def impl(a, idx):\n    ind = idx[0]\n    out = np.empty(ind.size, a.dtype)\n"
                "    _gather(a, ind, out)\n    return out\n")
    names, bounds, view_at, out_at = form.loops()
    loops, ind = _loops(names, bounds, 4)
    pad = " " * ind
    return ("def impl(a, idx):\n" + form.view_source() +
            f"    out = np.empty({_tuple(bounds)}, a.dtype)\n" + loops + _wrapped(form, pad) +
            f"{pad}out[{out_at}] = b[{view_at}]\n"
            f"    return out.reshape({_tuple(form.shapes())})\n")


def _take_set(form, value_is_array):
    names, bounds, view_at, out_at = form.loops()
    loops, ind = _loops(names, bounds, 4)
    pad = " " * ind
    head = "def impl(a, idx, value):\n" + form.view_source()
    if not value_is_array:
        return head + loops + _wrapped(form, pad) + f"{pad}b[{view_at}] = value\n"
    shape = form.shapes()
    if value_is_array != len(shape):   # NumPy broadcasts; pyjit takes the selection's shape
        raise TypeError(f"assigning a {value_is_array}-d array to a selection of "
                        f"{len(shape)} dimensions: pyjit takes a scalar or an array of the "
                        "selection's shape")
    check = "".join(f"    if value.shape[{d}] != {s}:\n"
                    "        raise ValueError('shape mismatch: value array could not be "
                    "broadcast to the indexing result')\n"
                    for d, s in enumerate(shape))
    return (head + check + f"    v = value.copy().reshape({_tuple(bounds)})\n" +
            loops + _wrapped(form, pad) + f"{pad}b[{view_at}] = v[{out_at}]\n")


# ---- two or more arrays -------------------------------------------------------------------

class _Multi:
    """An index of two or more arrays (int, or 1-d bool taken as its nonzero positions) among
    ints and slices. NumPy's rule: the arrays and the ints broadcast together to a shape B;
    the result is b (the basic view: the ints and slices applied, each array's axis kept whole)
    with the arrays' axes replaced by B, in place when the arrays and ints are adjacent in the
    index, else first."""

    def __init__(self, a, parts):
        if len(parts) > a.ndim:
            raise IndexError("too many indices for array")
        self.parts = parts
        self.arrays = [p for p, t in enumerate(parts) if is_array(t)]
        self.ints = [p for p, t in enumerate(parts) if isinstance(t, types.Integer)]
        for p in self.arrays:
            t = parts[p]
            if not isinstance(t.dtype, (types.Integer, types.Boolean)):
                raise TypeError(f"arrays used as indices must be of integer or boolean type, "
                                f"not {t.dtype}")
            if isinstance(t.dtype, types.Boolean) and t.ndim != 1:
                raise TypeError("a boolean array inside an index tuple must be 1-d")
        for t in parts:
            if not (is_array(t) or isinstance(t, types.Integer) or t.name == "slice"):
                raise TypeError(f"unsupported index part {t!r} beside an array")
        self.view_ndim = a.ndim - len(self.ints)
        # each array's axis in b, and the ndim of B
        self.axis = {p: p - sum(1 for q in self.ints if q < p) for p in self.arrays}
        self.nb = max(1 if isinstance(parts[p].dtype, types.Boolean) else parts[p].ndim
                      for p in self.arrays)
        advanced = sorted(self.arrays + self.ints)
        self.first = any(not isinstance(parts[p], types.Integer) and not is_array(parts[p])
                         for p in range(advanced[0], advanced[-1] + 1))
        self.taken = set(self.axis.values())

    def _ndim(self, p):
        return 1 if isinstance(self.parts[p].dtype, types.Boolean) else self.parts[p].ndim

    def prelude(self):
        """b, ind<p> (each array as int indices), and n<d>, B's shape, checked to broadcast."""
        sub = [":" if p in self.axis else f"idx[{p}]" for p in range(len(self.parts))]
        lines = f"    b = a[{', '.join(sub)},]\n"
        for p in self.arrays:
            conv = "np.flatnonzero" if isinstance(self.parts[p].dtype, types.Boolean) else ""
            lines += f"    ind{p} = {conv}(idx[{p}])\n"
        for d in range(self.nb):
            lines += f"    n{d} = 1\n"
            for p in self.arrays:
                dd = d - (self.nb - self._ndim(p))
                if dd < 0:
                    continue
                lines += (f"    if ind{p}.shape[{dd}] != 1:\n"
                          f"        if n{d} != 1 and n{d} != ind{p}.shape[{dd}]:\n"
                          "            raise IndexError('shape mismatch: indexing arrays could "
                          "not be broadcast together')\n"
                          f"        n{d} = ind{p}.shape[{dd}]\n")
        return lines

    def result(self):
        """The result's axis names and bounds: B's (k<d>, n<d>) and b's other axes (j<d>)."""
        bnames = [f"k{d}" for d in range(self.nb)]
        bbounds = [f"n{d}" for d in range(self.nb)]
        rest = [d for d in range(self.view_ndim) if d not in self.taken]
        names = [f"j{d}" for d in rest]
        bounds = [f"b.shape[{d}]" for d in rest]
        if self.first:
            return bnames + names, bbounds + bounds
        at = sum(1 for d in rest if d < min(self.taken))
        return names[:at] + bnames + names[at:], bounds[:at] + bbounds + bounds[at:]

    def index_source(self, pad):
        """Source of t<p>, each array's item at B's position, wrapped and checked, and b's
        item they address."""
        lines = ""
        for p in self.arrays:
            nd = self._ndim(p)
            at = [f"k{d + self.nb - nd} if ind{p}.shape[{d}] != 1 else 0" for d in range(nd)]
            n = f"b.shape[{self.axis[p]}]"
            lines += (f"{pad}t{p} = ind{p}[{_tuple(at)}]\n"
                      f"{pad}if t{p} < 0:\n{pad}    t{p} += {n}\n"
                      f"{pad}if t{p} < 0 or t{p} >= {n}:\n"
                      f"{pad}    _index_error(ind{p}[{_tuple(at)}], {p}, {n})\n")
        by_axis = {v: k for k, v in self.axis.items()}
        item = [f"t{by_axis[d]}" if d in by_axis else f"j{d}" for d in range(self.view_ndim)]
        return lines, _tuple(item)


def _multi_get(form):
    names, bounds = form.result()
    loops, ind = _loops(names, bounds, 4)
    pad = " " * ind
    lines, item = form.index_source(pad)
    return ("def impl(a, idx):\n" + form.prelude() +
            f"    out = np.empty({_tuple(bounds)}, a.dtype)\n" + loops + lines +
            f"{pad}out[{_tuple(names)}] = b[{item}]\n    return out\n")


def _multi_set(form, value_is_array):
    names, bounds = form.result()
    loops, ind = _loops(names, bounds, 4)
    pad = " " * ind
    lines, item = form.index_source(pad)
    head = "def impl(a, idx, value):\n" + form.prelude()
    if not value_is_array:
        return head + loops + lines + f"{pad}b[{item}] = value\n"
    if value_is_array != len(names):   # NumPy broadcasts; pyjit takes the selection's shape
        raise TypeError(f"assigning a {value_is_array}-d array to a selection of "
                        f"{len(names)} dimensions: pyjit takes a scalar or an array of the "
                        "selection's shape")
    check = "".join(f"    if value.shape[{d}] != {s}:\n"
                    "        raise ValueError('shape mismatch: value array could not be "
                    "broadcast to the indexing result')\n"
                    for d, s in enumerate(bounds))
    return head + check + loops + lines + f"{pad}b[{item}] = value[{_tuple(names)}]\n"


def _arrays_in(parts):
    return sum(1 for t in parts if is_array(t))


def _parts(a, idx):
    """The index's parts, a list taken as the 1-d array np.array makes of it."""
    parts = list(idx.types) if isinstance(idx, types.Tuple) else [idx]
    for i, t in enumerate(parts):
        if isinstance(t, types.List):
            if not isinstance(t.dtype, (types.Integer, types.Boolean)):
                raise TypeError(f"a list used as an index must hold ints or bools, not {t.dtype}")
            parts[i] = types.Array(t.dtype, 1, "C")
    return parts


def _lists_as_arrays(idx):
    """Source that rebinds idx with its lists made arrays (np.array of each)."""
    if isinstance(idx, types.List):
        return "    idx = np.array(idx)\n"
    if isinstance(idx, types.Tuple) and any(isinstance(t, types.List) for t in idx.types):
        items = [f"np.array(idx[{p}])" if isinstance(t, types.List) else f"idx[{p}]"
                 for p, t in enumerate(idx.types)]
        return f"    idx = {_tuple(items)}\n"
    return ""


def _with_prelude(source, head, prelude):
    """source with prelude inserted after its def line head."""
    return source.replace(head, head + prelude, 1) if prelude else source


def _expand_masks(a, parts):
    """An n-d bool array (n > 1) inside an index tuple, or alone over fewer axes than a has,
    stands for the n int arrays of its nonzero positions over the n axes it covers (NumPy's
    rule). Returns the parts with those arrays in its place and source rebinding idx (already a
    tuple) to match, its shape checked against the axes it covers; ("" when there is none)."""
    if not any(is_array(t) and isinstance(t.dtype, types.Boolean) and t.ndim > 1
               for t in parts):
        return parts, ""
    new, items, lines, axis = [], [], "", 0
    for p, t in enumerate(parts):
        if not (is_array(t) and isinstance(t.dtype, types.Boolean) and t.ndim > 1):
            new.append(t)
            items.append(f"idx[{p}]")
            axis += 1
            continue
        if axis + t.ndim > a.ndim:
            raise IndexError("too many indices for array")
        for d in range(t.ndim):
            lines += (f"    if idx[{p}].shape[{d}] != a.shape[{axis + d}]:\n"
                      f"        raise IndexError('boolean index did not match indexed array along "
                      f"axis {axis + d}; size of axis is ' + str(a.shape[{axis + d}]) + ' but "
                      f"size of corresponding boolean axis is ' + str(idx[{p}].shape[{d}]))\n")
        lines += f"    nz{p} = np.nonzero(idx[{p}])\n"
        for d in range(t.ndim):
            new.append(types.Array(types.intp, 1, "C"))
            items.append(f"nz{p}[{d}]")
        axis += t.ndim
    return new, lines + f"    idx = {_tuple(items)}\n"


def _plain_mask(a, parts):
    return len(parts) == 1 and is_array(parts[0]) and \
        isinstance(parts[0].dtype, types.Boolean) and parts[0].ndim == a.ndim


def _as_tuple_index(idx):
    return not isinstance(idx, types.Tuple)


@overload_method(types.Array, "__getitem__")
def _getitem(a, idx):
    parts = _parts(a, idx)
    head = "def impl(a, idx):\n"
    prelude = _lists_as_arrays(idx)
    if _plain_mask(a, parts):
        return _generated(_with_prelude(_mask_get(a.ndim), head, prelude))
    if _as_tuple_index(idx):   # a[ind]: the same code with idx made a 1-tuple
        prelude += "    idx = (idx,)\n"
    parts, masks = _expand_masks(a, parts)
    prelude += masks
    if _arrays_in(parts) > 1:
        return _generated(_with_prelude(_multi_get(_Multi(a, parts)), head, prelude))
    return _generated(_with_prelude(_take_get(_Form(a, parts)), head, prelude))


def _sequence(value):
    return isinstance(value, (types.List, types.Tuple))


def _tuple_into_row(a, idx, value):
    """a[i, :3] = x, y, z (value a tuple of real numbers, the index of ints and slices selecting
    a 1-d view): the items stored one by one, with no array made of them (so that kernels, which
    cannot allocate, may do it, as numba-cuda's do); a 1-tuple broadcasts. None otherwise."""
    if not isinstance(value, types.Tuple) or not value.types or \
            not all(isinstance(t, (types.Integer, types.Float, types.Boolean))
                    for t in value.types):
        return None
    parts = list(idx.types) if isinstance(idx, types.Tuple) else [idx]
    if not all(isinstance(t, types.Integer) or t.name == "slice" for t in parts):
        return None
    if a.ndim - sum(isinstance(t, types.Integer) for t in parts) != 1:
        return None
    n = len(value.types)
    src = "def impl(a, idx, value):\n    v = a[idx]\n"
    if n == 1:
        return _generated(src + "    for k in range(v.shape[0]):\n        v[k] = value[0]\n")
    src += (f"    if v.shape[0] != {n}:\n"
            f"        raise ValueError('could not broadcast input array from shape ({n},) into "
            "shape of the selection')\n")
    return _generated(src + "".join(f"    v[{k}] = value[{k}]\n" for k in range(n)))


def _selects_element(a, idx):
    """Whether idx (ints, or a tuple of as many ints as a has axes) selects one element."""
    ints = (types.Integer, types.Boolean)
    if isinstance(idx, ints):
        return a.ndim == 1
    return (isinstance(idx, types.Tuple) and len(idx.types) == a.ndim and
            all(isinstance(t, types.Integer) for t in idx.types))


@overload_method(types.Array, "__setitem__")
def _setitem(a, idx, value):
    row = _tuple_into_row(a, idx, value)
    if row is not None:
        return row
    if _sequence(value):   # a[...] = [1, 2, 3]: as NumPy, the sequence made an array first
        def impl(a, idx, value):
            a[idx] = np.array(value)
        return impl
    if not (is_array(value) or is_number(value)):
        return None
    if is_array(value) and value.ndim == 0 and _selects_element(a, idx):
        def impl(a, idx, value):         # a 0-d array stored into one element: its item
            a[idx] = value[()]
        return impl
    value_is_array = value.ndim if is_array(value) else 0
    parts = _parts(a, idx)
    head = "def impl(a, idx, value):\n"
    prelude = _lists_as_arrays(idx)
    if _plain_mask(a, parts):
        return _generated(_with_prelude(_mask_set(a.ndim, value_is_array), head, prelude))
    if _as_tuple_index(idx):
        prelude += "    idx = (idx,)\n"
    parts, masks = _expand_masks(a, parts)
    prelude += masks
    if _arrays_in(parts) > 1:
        return _generated(_with_prelude(_multi_set(_Multi(a, parts), value_is_array), head,
                                        prelude))
    return _generated(_with_prelude(_take_set(_Form(a, parts), value_is_array), head, prelude))
