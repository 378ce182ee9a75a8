"""np.median, np.nanmedian, np.percentile, np.quantile (by selection: np.partition, the builtin
over runtime/sort.c, as NumPy partitions),
np.nanmean, np.nansum, np.histogram, np.bincount,
written in the compiled subset (flattened where NumPy flattens)."""
import functools

import numpy as np

from ._util import (constant_flag, float_of, generated, given, is_array, is_number, math,
                    overload, register_jitable, types)


@register_jitable
def _max_below(b, h):
    """The largest of b[0..h-1] (b partitioned at h: the element sorted order puts at h-1)."""
    m = b[0]
    for i in range(1, h):
        if m < b[i]:
            m = b[i]
    return m


@register_jitable
def _min_above(b, k):
    """The smallest of b[k+1..] (b partitioned at k: the element sorted order puts at k+1)."""
    m = b[k + 1]
    for i in range(k + 2, b.size):
        if b[i] < m:
            m = b[i]
    return m


@functools.lru_cache(maxsize=None)
def _median_of(ft, floating):
    """The median of the 1-d array b, NumPy's way: NaN if it holds a NaN (partitioning puts
    them last), else through selection of the middle element(s), as NumPy partitions. Made once
    per result type: a new function each time would be a new overload to resolve and compile."""
    @register_jitable
    def median_of(b):
        n = b.size
        if n == 0:
            return ft(np.nan)
        h = n // 2
        p = np.partition(b, h)
        if floating and p[n - 1] != p[n - 1]:
            return ft(np.nan)
        if n % 2 == 1:
            return ft(p[h])
        return (ft(_max_below(p, h)) + ft(p[h])) / 2
    return median_of


@functools.lru_cache(maxsize=None)
def _nanmedian_of(ft):
    """The median of the values of the 1-d array b that are not NaN (NaN when none is)."""
    median_of = _median_of(ft, False)

    @register_jitable
    def nanmedian_of(b):
        kept = np.empty(b.size, dtype=b.dtype)
        m = 0
        for i in range(b.size):
            if b[i] == b[i]:
                kept[m] = b[i]
                m += 1
        return median_of(kept[:m])
    return nanmedian_of


_MEDIAN_SIGNATURE = "a, axis=None, out=None, overwrite_input=False, keepdims=False"


def _median_typing(of_type):
    """np.median and np.nanmedian, of the flattened array or (numpy_axis.apply_along) of each
    column along an int axis; of_type(a) is the jitable median of a 1-d array."""
    def typing(a, axis=None, out=None, overwrite_input=False, keepdims=False):
        if not is_array(a):
            return None
        if given(out):
            return stored_into(of_type.name, a, None, axis, out, keepdims, _MEDIAN_SIGNATURE)
        from .numpy_axis import apply_along, keep_dims
        of = of_type(a)
        if given(axis):
            along = apply_along(a, axis, _MEDIAN_SIGNATURE, of, float_of(a.dtype))
            return keep_dims(keepdims, a, axis, _MEDIAN_SIGNATURE, along)

        def impl(a, axis=None, out=None, overwrite_input=False, keepdims=False):
            return of(a.ravel())
        return keep_dims(keepdims, a, axis, _MEDIAN_SIGNATURE, impl)
    return typing


def _median_kind(a):
    return _median_of(float_of(a.dtype), isinstance(a.dtype, types.Float))


def _nanmedian_kind(a):
    return _nanmedian_of(float_of(a.dtype))


_median_kind.name, _nanmedian_kind.name = "median", "nanmedian"
overload(np.median)(_median_typing(_median_kind))
overload(np.nanmedian)(_median_typing(_nanmedian_kind))


def stored_into(name, a, q, axis, out, keepdims, signature):
    """np.<name>(a, [q,] axis, out=out, keepdims=): the result made without out, stored into
    out (cast as NumPy casts the median's mean into it; the quantiles refuse an int out as
    NumPy's same-kind rule does), out returned. A shape out does not have is NumPy's
    ValueError, raised when running."""
    if not is_array(out):
        raise TypeError(f"np.{name}: out= takes an array, not {out}")
    if name not in ("median", "nanmedian") and not isinstance(
            out.dtype, (types.Float, types.Complex)):
        raise TypeError(f"Cannot cast ufunc 'add' output from dtype('float64') to "
                        f"dtype('{out.dtype}') with casting rule 'same_kind'")
    if isinstance(a.dtype, types.Complex) and not isinstance(out.dtype, types.Complex):
        raise TypeError(f"np.{name}: out= of {out.dtype} for a complex result would drop its "
                        "imaginary part (NumPy warns and drops it); compiled code refuses it")
    keep = constant_flag(keepdims, "keepdims")
    reduced, _ = _reduced_axes(axis, a.ndim)
    if reduced is None:
        return None
    nd = (a.ndim if keep else a.ndim - len(reduced)) + (
        q.ndim if is_array(q) else 1 if _q_sequence(q) else 0)
    args = "a, q" if q is not None else "a"
    args += ", axis=axis" if given(axis) else ""
    args += ", keepdims=True" if keep else ""
    if out.ndim != nd:
        return generated("impl", f"def impl({signature}):\n"
                                 f"    raise ValueError('output parameter for np.{name} has the "
                                 f"wrong number of dimensions: Found {out.ndim} but expected "
                                 f"{nd}')\n    return out\n", {})
    from .numpy_axis import stored_result
    return stored_result(signature, f"np.{name}({args})", nd,
                         f"could not broadcast the result of np.{name} into out=: its shape differs")


@register_jitable
def _lerp(lo, hi, t):
    d = hi - lo
    if t >= 0.5:
        return hi - d * (1 - t)
    return lo + d * t


@register_jitable
def _quantile_of(b, q):
    """NumPy's 'linear' method, q in [0, 1], on the 1-d b (not empty) through selection: NaN
    when b holds a NaN (partitioning puts them last)."""
    n = b.size
    idx = q * (n - 1)
    lo = int(math.floor(idx))
    hi = min(lo + 1, n - 1)
    p = np.partition(b, lo)
    if p[n - 1] != p[n - 1]:
        return p[n - 1]
    above = p[lo] if hi == lo else _min_above(p, lo)
    return _lerp(p[lo], above, idx - lo)


@functools.lru_cache(maxsize=None)
def _quantile_column(scale, message, ft):
    """The q-th quantile (q in [0, scale]) of the 1-d array b in ft, NumPy's checks first."""
    @register_jitable
    def quantile_column(b, q):
        if not 0 <= q <= scale:
            raise ValueError(message)
        if b.size == 0:
            raise IndexError("index -1 is out of bounds for axis 0 with size 0")
        return _quantile_of(b.astype(ft), ft(q / scale))
    return quantile_column


def _quantile_overload(scale, what):
    message = f"{what} must be in the range [0, {scale}]"

    def typing(a, q, axis=None):
        if not is_array(a) or not (is_number(q) or (is_array(q) and q.ndim == 1)):
            return None
        if isinstance(a.dtype, types.Boolean):
            def boolean(a, q, axis=None):
                raise TypeError("numpy boolean subtract, the `-` operator, is not supported, "
                                "use the bitwise_xor, the `^` operator, or the logical_xor "
                                "function instead.")
            return boolean
        ft = float_of(a.dtype)
        if is_number(q):
            of = _quantile_column(scale, message, ft)
            if given(axis):
                from .numpy_axis import apply_along
                along = apply_along(a, axis, "a, q, axis=None", of, ft, ", q")
                if along is None:
                    return None
                along = register_jitable(along)

                def impl_along(a, q, axis=None):
                    if not 0 <= q <= scale:     # checked even where there is no column
                        raise ValueError(message)
                    return along(a, q, axis)
                return impl_along

            def impl(a, q, axis=None):
                return of(a.ravel(), q)
            return impl
        if given(axis):
            return None
        rt = types.float64 if q.dtype == types.float64 else ft

        def impl_array(a, q, axis=None):
            for k in range(q.size):
                if not 0 <= q[k] <= scale:
                    raise ValueError(message)
            b = a.ravel().astype(rt)
            if b.size == 0:
                raise IndexError("index -1 is out of bounds for axis 0 with size 0")
            out = np.empty(q.size, dtype=rt)
            for k in range(q.size):
                out[k] = _quantile_of(b, rt(q[k] / scale))
            return out
        return impl_array
    typing.scale, typing.what = scale, message   # for the general form (_quantiles)
    return typing


@register_jitable
def _row_quantiles(row, qf, scale, skip_nan, out, i):
    """out[k, i] = the qf[k]-th quantile of the 1-d row (NumPy's 'linear' method): NaN when the
    row holds one (np.percentile) or, leaving the NaNs out (np.nanpercentile), holds nothing else."""
    b = row
    if skip_nan:
        b = row[row == row]
        if b.size == 0:
            for k in range(qf.size):
                out[k, i] = np.nan
            return
    elif b.size == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    for k in range(qf.size):
        out[k, i] = _quantile_of(b, qf[k] / scale)


def _q_sequence(q):
    """Whether q is a list or tuple of numbers (NumPy makes a 1-d float64 array of it)."""
    return isinstance(q, (types.List, types.UniTuple)) and is_number(q.dtype)


def _reduced_axes(axis, nd):
    """(sources of the reduced axes, the lines computing them) for axis None, an int or a tuple
    of ints of an array of nd dimensions; (None, None) for another axis."""
    if not given(axis):
        return [f"{d}" for d in range(nd)], []
    if isinstance(axis, (types.Integer, types.Boolean)):
        return ["r0"], [f"r0 = _norm_axis(axis, {nd})"]
    if not (isinstance(axis, types.Tuple) and all(
            isinstance(t, (types.Integer, types.Boolean)) for t in axis.types)):
        return None, None
    reduced = [f"r{i}" for i in range(len(axis.types))]
    lines = [f"r{i} = _norm_axis(axis[{i}], {nd})" for i in range(len(reduced))]
    for i in range(len(reduced)):
        for j in range(i):
            lines += [f"if r{i} == r{j}:", "    raise ValueError('repeated axis')"]
    return reduced, lines


def _quantiles(a, q, axis, keepdims, scale, what, skip_nan):
    """np.percentile, np.quantile and their nan-forms in general: q a number or an array of any
    shape, axis None, an int or a tuple of ints, keepdims= (a constant). The reduced axes move
    last and the array becomes rows of the values each result reduces; the result's shape is
    q's, then the axes kept (the reduced ones too with length 1 under keepdims=True)."""
    if isinstance(a.dtype, types.Boolean):
        return None
    keep = constant_flag(keepdims, "keepdims")
    nd, ft = a.ndim, float_of(a.dtype)
    sequence = _q_sequence(q)
    rt = types.float64 if sequence or (is_array(q) and q.dtype == types.float64) else ft
    reduced, lines = _reduced_axes(axis, nd)
    if reduced is None:
        return None
    kept = nd - len(reduced)
    make_q = "q.astype(_rt).ravel()" if is_array(q) else "np.full(1, q, _rt)"
    lines += ["qf = " + ("np.asarray(q).astype(_rt)" if sequence else make_q),
              "for k in range(qf.size):",
              f"    if not 0 <= qf[k] <= {scale}:", f"        raise ValueError({what!r})",
              f"perm = np.empty({nd}, np.int64)", "j = 0", f"for d in range({nd}):",
              "    if " + " and ".join(f"d != {r}" for r in reduced) + ":",
              "        perm[j] = d", "        j += 1"]
    lines += [f"perm[{kept + i}] = {r}" for i, r in enumerate(reduced)]
    lines += ["b = np.transpose(a, (" + "".join(f"perm[{d}], " for d in range(nd)) + "))",
              "rows = 1", f"for d in range({kept}):", "    rows *= b.shape[d]",
              "cols = 1", f"for d in range({kept}, {nd}):", "    cols *= b.shape[d]",
              "m = np.ascontiguousarray(b).reshape((rows, cols)).astype(_rt)",
              "out = np.empty((qf.size, rows), _rt)", "for i in range(rows):",
              f"    _row_quantiles(m[i], qf, {scale}, {skip_nan}, out, i)"]
    shape = [f"q.shape[{d}]" for d in range(q.ndim)] if is_array(q) else \
        ["len(q)"] if sequence else []
    if keep:
        for d in range(nd):
            shape.append("1 if " + " or ".join(f"{d} == {r}" for r in reduced) +
                         f" else a.shape[{d}]")
    else:
        shape += [f"b.shape[{d}]" for d in range(kept)]
    lines.append("return out[0, 0]" if not shape else
                 "return out.reshape((" + "".join(f"{x}, " for x in shape) + "))")
    from .numpy_shape import _norm_axis
    source = ("def impl(a, q, axis=None, keepdims=False):\n" +
              "".join(f"    {line}\n" for line in lines))
    return generated("impl", source, {"_norm_axis": _norm_axis, "_rt": rt,
                                      "_row_quantiles": _row_quantiles})


def _keeping_dims(func, typing):
    """typing (of a, q, axis) taking keepdims= too: with the constant True, the result of one q
    gets the reduced axes back with length 1 (numpy_axis.keep_dims); without an axis, of the
    flattened array along its axis, which gives the float type NumPy gives."""
    def with_keepdims(a, q, axis=None, keepdims=False):
        from .numpy_axis import keep_dims
        if is_array(a) and (is_array(q) or _q_sequence(q) or isinstance(axis, types.Tuple)):
            return _quantiles(a, q, axis, keepdims, typing.scale, typing.what, False)
        if is_number(q) and not given(axis) and isinstance(keepdims, types.Type) and \
                given(keepdims):
            def whole(a, q, axis=None, keepdims=False):
                return func(a.ravel(), q, axis=0)
            return keep_dims(keepdims, a, axis, "a, q, axis=None, keepdims=False", whole)
        inner = typing(a, q, axis)
        if inner is None or (is_array(q) and isinstance(keepdims, types.Type) and
                             given(keepdims)):
            return None
        inner = register_jitable(inner)

        def impl(a, q, axis=None, keepdims=False):
            return inner(a, q, axis)
        return keep_dims(keepdims, a, axis, "a, q, axis=None, keepdims=False", impl)
    return with_keepdims


overload(np.percentile)(_keeping_dims(np.percentile, _quantile_overload(100, "Percentiles")))
overload(np.quantile)(_keeping_dims(np.quantile, _quantile_overload(1, "Quantiles")))


def _nan_quantiles(scale, what):
    def typing(a, q, axis=None, keepdims=False):
        if not is_array(a) or not (is_number(q) or is_array(q) or _q_sequence(q)):
            return None
        return _quantiles(a, q, axis, keepdims, scale, f"{what} must be in the range [0, {scale}]",
                          True)
    return typing


overload(np.nanpercentile)(_nan_quantiles(100, "Percentiles"))
overload(np.nanquantile)(_nan_quantiles(1, "Quantiles"))


_Q_OUT_SIGNATURE = "a, q, axis=None, out=None, overwrite_input=False, keepdims=False"


def _quantiles_into(name):
    def typing(a, q, axis=None, out=None, overwrite_input=False, keepdims=False):
        if not (is_array(a) and given(out)) or not (is_number(q) or is_array(q) or
                                                    _q_sequence(q)):
            return None
        return stored_into(name, a, q, axis, out, keepdims, _Q_OUT_SIGNATURE)
    typing.__name__ = typing.__qualname__ = f"_{name}_into"
    return typing


for _name in ("percentile", "quantile", "nanpercentile", "nanquantile"):
    overload(getattr(np, _name), strict=False)(_quantiles_into(_name))


@overload(np.nanmean)
def _nanmean(a):
    if not is_array(a):
        return None
    ft = float_of(a.dtype)

    def impl(a):
        b = a.ravel()
        s = 0.0
        n = 0
        for i in range(b.size):
            v = b[i]
            if v == v:
                s += v
                n += 1
        if n == 0:
            return ft(np.nan)
        return ft(s / n)
    return impl


@overload(np.nansum)
def _nansum(a):
    if not is_array(a):
        return None
    if isinstance(a.dtype, types.Float):
        ft = a.dtype

        def impl(a):
            b = a.ravel()
            s = 0.0
            for i in range(b.size):
                if b[i] == b[i]:
                    s += b[i]
            return ft(s)
        return impl
    st = types.uint64 if isinstance(a.dtype, types.Integer) and not a.dtype.signed else types.int64

    def impl_int(a):
        b = a.ravel()
        s = st(0)
        for i in range(b.size):
            s += st(b[i])
        return s
    return impl_int


@register_jitable
def _min_max(b):
    """(min, max) of a 1-d array in one pass, as floats; nan when it holds a NaN."""
    lo = hi = float(b[0])
    nan = False
    for i in range(1, b.size):
        v = float(b[i])
        nan |= v != v
        lo = v if v < lo else lo
        hi = v if v > hi else hi
    if nan:
        return math.nan, math.nan
    return lo, hi


@register_jitable(boundscheck=False)
def _int_min_max(b):
    """(min, max) of a 1-d int or bool array, as floats: two running extremes in the items' own
    type, which LLVM turns into vector min and max (no NaN to look for, no conversion per item)."""
    lo = hi = b[0]
    for i in range(1, b.size):
        v = b[i]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
    return float(lo), float(hi)


@register_jitable(boundscheck=False)
def _float_min_max(b):
    """(min, max) of the items of a 1-d float array that are not NaN: (inf, -inf) when none are.
    Each a loop of its own over four running extremes (NaN skipped, as `v < lo` is false), which
    LLVM turns into vector min and max; one loop holding both becomes blends of mixed lanes."""
    n4 = b.size // 4
    lo0 = lo1 = lo2 = lo3 = math.inf
    for j in range(n4):
        i = 4 * j
        v0, v1, v2, v3 = float(b[i]), float(b[i + 1]), float(b[i + 2]), float(b[i + 3])
        lo0 = v0 if v0 < lo0 else lo0
        lo1 = v1 if v1 < lo1 else lo1
        lo2 = v2 if v2 < lo2 else lo2
        lo3 = v3 if v3 < lo3 else lo3
    hi0 = hi1 = hi2 = hi3 = -math.inf
    for j in range(n4):
        i = 4 * j
        v0, v1, v2, v3 = float(b[i]), float(b[i + 1]), float(b[i + 2]), float(b[i + 3])
        hi0 = v0 if v0 > hi0 else hi0
        hi1 = v1 if v1 > hi1 else hi1
        hi2 = v2 if v2 > hi2 else hi2
        hi3 = v3 if v3 > hi3 else hi3
    for i in range(4 * n4, b.size):
        v0 = float(b[i])
        lo0 = v0 if v0 < lo0 else lo0
        hi0 = v0 if v0 > hi0 else hi0
    lo0, lo2 = min(lo0, lo1), min(lo2, lo3)
    hi0, hi2 = max(hi0, hi1), max(hi2, hi3)
    return min(lo0, lo2), max(hi0, hi2)


@register_jitable(boundscheck=False)
def _exact_bin(v, k, edges):
    """The bin of v by the edges themselves, NumPy's way: k guessed by the scaling, corrected by
    one either way; -1 where v is outside the outer edges (or NaN). NumPy compares in the edges'
    type: a float32 value equal to float32(last) is in, although above last."""
    bins = edges.size - 1
    if not (v >= edges[0] and v <= edges[bins]):
        return -1
    k = min(max(k, 0), bins - 1)
    if k > 0 and v < edges[k]:
        k -= 1
    elif k < bins - 1 and v >= edges[k + 1]:
        k += 1
    return k


def _roundoff(edges):
    pass


@overload(_roundoff)
def _roundoff_impl(edges):
    """The unit roundoff of the edges' float type (2**-53 for float64, 2**-24 for float32)."""
    u = float(np.finfo(np.dtype(edges.dtype.name)).eps) / 2
    return lambda edges: u


_BLOCK = 256             # items scaled at once: their bins fit in a buffer kept in L1
_TWO52 = 2.0 ** 52       # a whole float below 2**52 plus this has that number as its low bits
_TWO52_BITS = 0x4330000000000000   # 2**52's bits as an int64


@register_jitable(boundscheck=False)
def _check_distinct(edges):
    """NumPy's ValueError where rounding made two edges one (too many bins for the range)."""
    for k in range(edges.size - 1):
        if edges[k] >= edges[k + 1]:
            _too_many_bins(edges.size - 1)


@register_jitable
def _too_many_bins(bins):
    raise ValueError("Too many bins for data range. Cannot create " + str(bins) +
                     " finite-sized bins.")


@register_jitable(boundscheck=False)
def _edge_bin(v, k, edges):
    """The bin of v by the edges, k its scaled guess: the guess where the two edges beside it
    agree (one conversion checked, two loads), else _exact_bin's answer."""
    if np.uint64(k) < np.uint64(edges.size - 1) and v >= edges[k] and v < edges[k + 1]:
        return k
    return _exact_bin(v, k, edges)


@register_jitable(boundscheck=False)
def _count_bins(b, first, last, edges, hist):
    """Counts the items of b in hist by the edges, from first to last; returns how many fell
    outside. An item's bin is the integer part of its scaled value s where s's fraction is far
    enough from 0 and 1 that no rounding of s or of the edges can put the item on the other side
    of an edge (eps bounds both, in units of one bin, with a margin): then the edges would say
    the same. Items nearer an edge, outside or NaN go to _edge_bin, which asks the edges, as
    NumPy's does. The test is branch-free over a block of items, which vectorises; each bin is
    written into a float buffer as floor(s) + 2**52, whose bits less 2**52's are floor(s) (an
    integer conversion that needs no instruction per item), 0.0 where the edges must decide.
    Where eps leaves no fraction sure (a range narrow beside its distance from zero), every
    item goes to the edges at once."""
    bins = hist.size
    norm = bins / (last - first)
    eps = 8.0 * _roundoff(edges) * ((abs(first) + abs(last)) * norm + bins)
    missed = 0
    if not eps < 0.25:
        for i in range(b.size):
            v = b[i]
            k = _edge_bin(v, np.int64((v - first) * norm), edges)
            if k >= 0:
                hist[k] += 1
            else:
                missed += 1
        return missed
    top = 1.0 - eps
    width = float(bins)
    raw = np.empty(_BLOCK + 8)   # the buffer starts on a 64-byte line: no store splits two
    skip = (-(raw._extent()[0] >> 3)) & 7
    buf = raw[skip:skip + _BLOCK]
    found = buf.view(np.int64)
    n = b.size
    start = 0
    while start < n:
        m = min(_BLOCK, n - start)
        part = b[start:start + m]
        for j in range(m):
            s = (part[j] - first) * norm   # NaN compares false: sent to the edges
            whole = np.floor(s)
            f = s - whole
            sure = (s >= 0.0) & (s < width) & (f >= eps) & (f <= top)
            buf[j] = whole + _TWO52 if sure else 0.0
        for j in range(m):
            k = found[j] - _TWO52_BITS
            if k >= 0:
                hist[k] += 1
                continue
            v = part[j]
            k = _edge_bin(v, np.int64((v - first) * norm), edges)
            if k >= 0:
                hist[k] += 1
            else:
                missed += 1
        start += m
    return missed


@overload(np.histogram, jit_options={"boundscheck": False})
def _histogram(a, bins=10, range=None):
    if is_array(a) and is_array(bins) and not isinstance(bins.dtype, types.Complex):
        return _histogram_edges(a, bins)
    if not is_array(a) or not isinstance(bins, (types.Integer, types.Omitted, int)):
        return None
    if given(range) and not isinstance(range, types.Tuple):
        return None
    et = float_of(a.dtype)
    ranged = given(range)
    min_max = _float_min_max if isinstance(a.dtype, types.Float) else \
        _int_min_max if isinstance(a.dtype, (types.Integer, types.Boolean)) else _min_max

    def impl(a, bins=10, range=None):
        if bins < 1:
            raise ValueError("`bins` must be positive, when an integer")
        b = a.ravel()
        first, last = 0.0, 1.0
        if ranged:
            first, last = float(range[0]), float(range[1])
            if first > last:
                raise ValueError("max must be larger than min in range parameter.")
        elif b.size > 0:
            first, last = min_max(b)
        if not (math.isfinite(first) and math.isfinite(last)):
            raise ValueError("autodetected range is not finite")
        if first == last:
            first -= 0.5
            last += 0.5
        # np.linspace's arithmetic as NumPy's histogram calls it: in et from the array's own
        # range; from a range given (or the empty array's 0 and 1), in float64, then cast
        wide = ranged or b.size == 0
        lo, step = et(first), (et(last) - et(first)) / et(bins)
        lo64, step64 = first, (last - first) / bins
        edges = np.empty(bins + 1, dtype=et)
        k = 0
        while k < bins:   # the parameter `range` hides the builtin
            edges[k] = et(k * step64 + lo64) if wide else et(k) * step + lo
            k += 1
        edges[bins] = et(last)
        hist = np.zeros(bins, dtype=np.int64)
        missed = _count_bins(b, first, last, edges, hist)
        if not ranged and missed:   # a NaN, which the range skipped
            raise ValueError("autodetected range is not finite")
        _check_distinct(edges)   # NumPy checks its edges first; here after the count, faster
        return hist, edges
    return impl


def _histogram_edges(a, bins):
    """np.histogram with the bin edges given (range= is then unused, as NumPy's): a value x
    counts in bin i where edges[i] <= x < edges[i + 1], the last bin taking its right edge too;
    NaNs and values outside the edges are left out."""
    if bins.ndim != 1:
        raise TypeError(f"np.histogram() takes bins as an int or a 1-d array, not {bins}")

    def impl(a, bins=10, range=None):
        n = max(bins.size - 1, 0)
        if n == 0:   # no bins: nothing counted, as NumPy's
            return np.zeros(0, dtype=np.int64), bins.copy()
        for i in builtins_range(n):
            if bins[i + 1] < bins[i]:
                raise ValueError("`bins` must increase monotonically, when an array")
        hist = np.zeros(n, dtype=np.int64)
        b = a.ravel()
        for x in b:
            if x >= bins[0] and x <= bins[n]:
                k = np.searchsorted(bins, x, side="right") - 1
                hist[k if k < n else n - 1] += 1
        return hist, bins.copy()
    return impl


builtins_range = range


@overload(np.bincount)
def _bincount(x, weights=None, minlength=0):
    if not is_array(x) or x.ndim != 1 or not isinstance(x.dtype, (types.Integer, types.Boolean)):
        return None
    weighted = given(weights)
    if weighted and not (is_array(weights) and weights.ndim == 1):
        return None

    def impl(x, weights=None, minlength=0):
        if minlength < 0:
            raise ValueError("'minlength' must not be negative")
        n = 0
        for i in range(x.size):
            if x[i] < 0:
                raise ValueError("'list' argument must have no negative elements")
            if x[i] + 1 > n:
                n = int(x[i]) + 1
        if weighted:
            if weights.size != x.size:
                raise ValueError("The weights and list don't have the same length.")
            out = np.zeros(max(n, minlength), dtype=np.float64)
            for i in range(x.size):
                out[x[i]] += weights[i]
            return out
        counts = np.zeros(max(n, minlength), dtype=np.int64)
        for i in range(x.size):
            counts[x[i]] += 1
        return counts
    return impl


@overload(np.ptp)
def _ptp(a, axis=None, out=None, keepdims=False):
    if not is_array(a) or isinstance(a.dtype, types.Boolean):
        return None
    if given(axis):   # each column along an int axis (numpy_axis)
        from .numpy_axis import apply_along, keep_dims
        if given(out):
            raise TypeError(f"np.ptp() takes no out= in compiled code, not {out}")
        sig = "a, axis=None, out=None, keepdims=False"
        return keep_dims(keepdims, a, axis, sig, apply_along(a, axis, sig, _ptp_of, a.dtype))
    if given(out) or (isinstance(keepdims, types.Type) and given(keepdims)):
        return None
    return lambda a, axis=None, out=None, keepdims=False: _ptp_of(a)


@register_jitable
def _ptp_of(a):
    """max - min of the flattened a; NaN where there is one; ValueError when empty."""
    if a.size == 0:
        raise ValueError("zero-size array to reduction operation maximum which has no identity")
    b = a.ravel()
    lo = hi = b[0]
    for i in range(b.size):
        v = b[i]
        if v != v:                  # a NaN is the answer, as in NumPy
            return v
        lo = min(lo, v)
        hi = max(hi, v)
    return hi - lo


@overload(np.histogram, jit_options={"boundscheck": False}, strict=False)
def _histogram_weighted(a, bins=10, range=None, density=None, weights=None):
    """np.histogram with weights= or density=: the edges np.histogram gives, then each item's
    weight (or 1) added to the bin the edges give it, summed in float64 (complex128) and cast
    to the weights' dtype as NumPy's bincount path does; density= the counts over their total
    and the bins' widths, float64."""
    if not is_array(a) or not (given(weights) or given(density)):
        return None
    weighted = given(weights)
    if weighted and not is_array(weights):
        raise TypeError(f"np.histogram: weights= takes an array, not {weights}")
    dens = constant_flag(density, "density") if given(density) else False
    wt = weights.dtype if weighted else types.int64
    acc = types.complex128 if isinstance(wt, types.Complex) else \
        types.float64 if weighted else types.int64
    rt = types.float64 if dens else wt
    ranged = given(range)

    def impl(a, bins=10, range=None, density=None, weights=None):
        if ranged:
            edges = np.histogram(a, bins, range)[1]
        else:
            edges = np.histogram(a, bins)[1]
        b = a.ravel()
        if weighted and weights.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
        w = weights.ravel() if weighted else b
        n = edges.size - 1
        sums = np.zeros(max(n, 0), acc)
        if n > 0:
            lo, hi = edges[0], edges[n]
            for i in builtins_range(b.size):
                x = b[i]
                if x >= lo and x <= hi:
                    k = np.searchsorted(edges, x, side="right") - 1
                    sums[k if k < n else n - 1] += acc(w[i]) if weighted else 1
        counts = sums.astype(rt) if not dens else sums.astype(wt)
        if dens:
            return counts / np.diff(edges) / counts.sum(), edges
        return counts, edges
    return impl
