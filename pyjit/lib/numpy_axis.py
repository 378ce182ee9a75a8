"""Reductions along an axis, written in the compiled subset: np.sum, prod, mean, min, max, amin,
amax, argmin, argmax, std, var, cumsum and cumprod with `axis=` (and `dtype=` for sum, prod,
cumsum and cumprod, `ddof=` for std and var), as functions and as array methods. Without an
axis these decline, and the builtins of compiler/builtins.def serve.

Every implementation views its array as a C-contiguous (before, along, after) block
(numpy_shape._blocks: a view when the array is C-contiguous, else a copy) and runs over it with
the innermost loop along `after`, the contiguous axis, so the reduction vectorises. The result's
shape (the array's without the axis) is a tuple whose length the array's ndim fixes at compile
time, so each implementation is generated per ndim; `out=` stores the result made without it
(reduce_into). `keepdims=` (the
constant True or False: it fixes the result's ndim) wraps an implementation (keep_dims), with
an axis or without, whatever function computes the reduction. NumPy's
results: the same dtypes (ints sum in int64, means of ints in float64), NaN wins in min and max,
argmin/argmax give the first extreme (a NaN first), an empty reduction without identity raises
ValueError."""
import numpy as np

from ._util import (constant_flag, generated, given, is_array, overload, overload_method,
                    register_jitable, types)
from .numpy_datetime import datetime_reduction
from .numpy_shape import _blocks, _norm_axis

AxisError = np.exceptions.AxisError


def _generated(name, source, env):
    return generated(name, source, dict(env, _blocks=_blocks, _norm_axis=_norm_axis))


def _sum_type(dt):
    """NumPy's accumulator for sum and prod: int64 for bools and signed ints, uint64 for
    unsigned ones, the dtype itself for floats and complex numbers."""
    if isinstance(dt, types.Boolean) or (isinstance(dt, types.Integer) and dt.signed):
        return types.int64
    if isinstance(dt, types.Integer):
        return types.uint64
    return dt


def _axis_given(axis):
    return given(axis) and isinstance(axis, (types.Integer, types.Boolean))


def _finish(ndim):
    """Source that returns r (before, after) in the result's shape, a's without axis ax: a
    scalar for a 1-d array, as NumPy gives."""
    if ndim == 1:
        return "    return r[0, 0]\n"
    entries = "".join(f"a.shape[{d} + ({d} >= ax)], " for d in range(ndim - 1))
    return f"    return r.reshape(({entries}))\n"


def _better(kind, dt):
    """The test that v comes before m in a min (or max) reduction, for items of dtype dt:
    complex numbers in NumPy's order, by the real parts and then the imaginary ones. Beside
    it, `m == m` and `v != v` make a NaN (in either part) win, as NumPy's."""
    op = "<" if kind == "min" else ">"
    if isinstance(dt, types.Complex):
        return f"(v.real {op} m.real or (v.real == m.real and v.imag {op} m.imag))"
    return f"v {op} m"


def _reduce_source(kind, ndim, empty_ok, dt=None):
    """The body of sum, prod (identity 0 or 1: empty_ok) and min, max (NaN wins; an empty axis
    raises) over the blocks of a."""
    lines = [
        "    ax = _norm_axis(axis, a.ndim)\n",
        "    b = _blocks(a, ax)\n",
        "    before, along, after = b.shape\n",
    ]
    if empty_ok:
        start = "0" if kind == "sum" else "1"
        lines.append(f"    r = np.full((before, after), {start}, rt)\n")
        op = "+" if kind == "sum" else "*"
        lines.append("    for i in range(before):\n"
                     "        for j in range(along):\n"
                     "            for k in range(after):\n"
                     f"                r[i, k] = r[i, k] {op} rt(b[i, j, k])\n")
    else:
        better = _better(kind, dt)
        lines.append("    if along == 0 and before * after > 0:\n"
                     f"        raise ValueError('zero-size array to reduction operation "
                     f"{'minimum' if kind == 'min' else 'maximum'} which has no identity')\n"
                     "    r = np.empty((before, after), rt)\n"
                     "    for i in range(before):\n"
                     "        for k in range(after):\n"
                     "            r[i, k] = b[i, 0, k]\n"
                     "        for j in range(1, along):\n"
                     "            for k in range(after):\n"
                     "                v = b[i, j, k]\n"
                     "                m = r[i, k]\n"
                     f"                if m == m and ({better} or v != v):\n"
                     "                    r[i, k] = v\n")
    lines.append(_finish(ndim))
    return "".join(lines)


def keep_dims(keepdims, a, axis, signature, inner):
    """The implementation for keepdims=: inner itself (of this signature, reducing along the int
    axis, or over the whole array when axis is None) without the constant True, else inner
    wrapped to give its result the reduced axes back with length 1, as NumPy does. None where
    inner is None (declined)."""
    if inner is None or not constant_flag(keepdims, "keepdims") or not is_array(a):
        return inner
    inner = register_jitable(inner)
    names = []
    for part in signature.split(","):
        name = part.split("=")[0].strip()
        names.append("False" if name == "keepdims" else name)
    call = f"inner({', '.join(names)})"
    if not _axis_given(axis):
        ones = "1, " * a.ndim
        body = f"    return np.full(({ones}), {call})\n"
    elif a.ndim == 1:
        body = f"    _norm_axis(axis, 1)\n    return np.full((1,), {call})\n"
    else:
        shape = "".join(f"1 if ax == {d} else a.shape[{d}], " for d in range(a.ndim))
        body = (f"    ax = _norm_axis(axis, a.ndim)\n"
                f"    return np.ascontiguousarray({call}).reshape(({shape}))\n")
    return _generated("impl", f"def impl({signature}):\n" + body, {"inner": inner})


def _applies(a, axis, **unsupported):
    """Whether an axis implementation serves: an array and an int axis. The arguments it does
    not take (out=) are refused."""
    if not (is_array(a) and a.ndim > 0 and _axis_given(axis)):
        return False
    for name, value in unsupported.items():
        if isinstance(value, types.Type) and given(value):   # not the Python default
            raise TypeError(f"{name}= is not supported beside axis= in compiled code")
    return True


def _reduction(kind, a, dtype=None):
    empty_ok = kind in ("sum", "prod")
    rt = a.dtype
    if empty_ok:
        rt = types._as_type(dtype.dtype) if given(dtype) and hasattr(dtype, "dtype") \
            else _sum_type(a.dtype)
    signature = "a, axis=None, dtype=None, out=None, keepdims=False" if empty_ok else \
        "a, axis=None, out=None, keepdims=False"
    source = (f"def impl({signature}):\n" + _reduce_source(kind, a.ndim, empty_ok, a.dtype))
    return _generated("impl", source, {"rt": rt})


def _stat_source(kind, ndim):
    """mean, var and std: sums per (i, k) in the float type, then divided; var and std take the
    squared distances (of the modulus, for complex numbers) from the mean in a second pass."""
    lines = [
        "    ax = _norm_axis(axis, a.ndim)\n",
        "    b = _blocks(a, ax)\n",
        "    before, along, after = b.shape\n",
        "    s = np.zeros((before, after), ft)\n",
        "    for i in range(before):\n"
        "        for j in range(along):\n"
        "            for k in range(after):\n"
        "                s[i, k] += ft(b[i, j, k])\n",
        "    s /= along\n",
    ]
    if kind == "mean":
        lines.append("    r = s\n")
    else:
        lines.append("    r = np.zeros((before, after), rt)\n"
                     "    for i in range(before):\n"
                     "        for j in range(along):\n"
                     "            for k in range(after):\n"
                     "                d = ft(b[i, j, k]) - s[i, k]\n"
                     "                r[i, k] += rt((d * np.conj(d)).real)\n"
                     "    r /= max(along - ddof, 0)\n")   # NumPy: no degrees of freedom left: NaN
        if kind == "std":
            lines.append("    r = np.sqrt(r)\n")
    lines.append(_finish(ndim))
    return "".join(lines)


def _stat(kind, a):
    dt = a.dtype
    ft = dt if isinstance(dt, (types.Float, types.Complex)) else types.float64
    rt = ft if not isinstance(ft, types.Complex) else \
        (types.float32 if ft == types.complex64 else types.float64)
    if kind == "mean":
        signature = "a, axis=None, dtype=None, out=None, keepdims=False"
    else:
        signature = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"
    source = f"def impl({signature}):\n" + _stat_source(kind, a.ndim)
    return _generated("impl", source, {"ft": ft, "rt": rt})


def _arg_source(kind, dt):
    """argmin/argmax: per (i, k), the first index of the extreme along the axis (a NaN first)."""
    better = _better(kind, dt)
    return (
        "    ax = _norm_axis(axis, a.ndim)\n"
        "    b = _blocks(a, ax)\n"
        "    before, along, after = b.shape\n"
        "    if along == 0:\n"
        f"        raise ValueError('attempt to get arg{kind} of an empty sequence')\n"
        "    best = np.empty((before, after), a.dtype)\n"
        "    r = np.zeros((before, after), np.int64)\n"
        "    for i in range(before):\n"
        "        for k in range(after):\n"
        "            best[i, k] = b[i, 0, k]\n"
        "        for j in range(1, along):\n"
        "            for k in range(after):\n"
        "                v = b[i, j, k]\n"
        "                m = best[i, k]\n"
        f"                if m == m and ({better} or v != v):\n"
        "                    best[i, k] = v\n"
        "                    r[i, k] = j\n")


def _arg(kind, a):
    source = ("def impl(a, axis=None, out=None, keepdims=False):\n" + _arg_source(kind, a.dtype) +
              _finish(a.ndim))
    return _generated("impl", source, {})


def _cumulative(kind, a, dtype=None):
    rt = types._as_type(dtype.dtype) if given(dtype) and hasattr(dtype, "dtype") \
        else _sum_type(a.dtype)
    op = "+" if kind == "sum" else "*"
    source = (
        "def impl(a, axis=None, dtype=None, out=None):\n"
        "    ax = _norm_axis(axis, a.ndim)\n"
        "    b = _blocks(a, ax)\n"
        "    before, along, after = b.shape\n"
        "    r = np.empty((before, along, after), rt)\n"
        "    for i in range(before):\n"
        "        if along > 0:\n"
        "            for k in range(after):\n"
        "                r[i, 0, k] = rt(b[i, 0, k])\n"
        "        for j in range(1, along):\n"
        "            for k in range(after):\n"
        f"                r[i, j, k] = r[i, j - 1, k] {op} rt(b[i, j, k])\n"
        "    return r.reshape(a.shape)\n")
    return _generated("impl", source, {"rt": rt})


# ---- the functions, and the same as array methods ----

def _register(func, method, typing):
    overload(func)(typing)
    if method:
        overload_method(types.Array, method)(typing)


_REDUCE_SIG = "a, axis=None, out=None, keepdims=False"
_DTYPE_SIG = "a, axis=None, dtype=None, out=None, keepdims=False"
_DDOF_SIG = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"


def _whole(call, signature):
    """An implementation of this signature returning call (the builtin's, with no axis)."""
    return _generated("impl", f"def impl({signature}):\n    return {call}\n", {})


def _along_or_whole(a, axis, keepdims, signature, along, call, **unsupported):
    """keep_dims of along() with an int axis, or with none (where keepdims= is passed: the
    builtin serves the rest) of call, the reduction of the flattened array along its axis."""
    if _applies(a, axis, **unsupported):
        return keep_dims(keepdims, a, axis, signature, along())
    if is_array(a) and not given(axis) and isinstance(keepdims, types.Type) and given(keepdims):
        return keep_dims(keepdims, a, axis, signature, _whole(call, signature))
    if is_array(a) and isinstance(axis, types.NoneType) and not any(
            isinstance(t, types.Type) and given(t) for t in unsupported.values()):
        return _whole(call, signature)   # axis=None written out: the whole array
    if _int_tuple(axis) and is_array(a) and not call.startswith("np.arg"):
        if any(given(t) for n, t in unsupported.items() if n == "out"):
            raise TypeError("out= beside axis= is not supported in compiled code")
        return _tuple_axes(a, axis, keepdims, signature, call)
    return None


def _int_tuple(axis):
    return isinstance(axis, types.Tuple) and all(
        isinstance(t, (types.Integer, types.Boolean)) for t in axis.types)


def _mark_axes(k, nd):
    """Source lines setting red[d] for each of the k axes of the tuple axis (unrolled: its items
    may differ in type), with NumPy's error for one given twice."""
    lines = []
    for d in range(k):
        lines += [f"    ax = _norm_axis(axis[{d}], {nd})",
                  "    if red[ax]:",
                  "        raise ValueError(\"duplicate value in 'axis'\")",
                  "    red[ax] = True"]
    return lines


def _reduced_last(array, nd, kept):
    """Source lines, after _mark_axes: t, the array transposed with the axes red marks last, and
    m, the product of their lengths."""
    return [f"    perm = np.empty({max(nd, 1)}, np.int64)",
            "    j = 0",
            f"    for d in range({nd}):",
            "        if not red[d]:",
            "            perm[j] = d",
            "            j += 1",
            f"    for d in range({nd}):",
            "        if red[d]:",
            "            perm[j] = d",
            "            j += 1",
            f"    t = np.transpose({array}, (" + "".join(f"perm[{d}], " for d in range(nd)) + "))",
            "    m = 1",
            f"    for d in range({kept}, {nd}):",
            "        m *= t.shape[d]"]


def _tuple_axes(a, axis, keepdims, signature, call):
    """A reduction over a tuple of axes (np.mean(a, axis=(0, 2))): the reduced axes moved last
    and made one (a copy, C order), then reduced along it by call (the reduction written for
    the flattened array, `a.ravel()` and `axis=0` in it); with keepdims, the reduced axes are
    given back with length 1. NumPy's AxisError and ValueError for bad or repeated axes."""
    nd, k = a.ndim, len(axis.types)
    kept = nd - k
    keep = constant_flag(keepdims, "keepdims")
    lines = [f"def impl({signature}):",
             f"    red = np.zeros({max(nd, 1)}, np.bool_)",
             *_mark_axes(k, nd),
             *_reduced_last("a", nd, kept)]
    shape = "".join(f"t.shape[{d}], " for d in range(kept))
    lines.append(f"    flat = np.ascontiguousarray(t).reshape(({shape}m,))")
    r = call.replace("a.ravel()", "flat").replace("axis=0", f"axis={kept}")
    if kept == 0 and call.startswith(("np.min(", "np.max(")):
        r = call.replace("a.ravel(), axis=0", "a")   # all axes: the whole array's order
    if keep:
        full = "".join(f"1 if red[{d}] else a.shape[{d}], " for d in range(nd))
        r = (f"np.full(({full}), {r})" if kept == 0 else
             f"np.ascontiguousarray({r}).reshape(({full}))")
    lines.append(f"    return {r}")
    return _generated("impl", "\n".join(lines) + "\n", {})


# ---- out= beside axis= (or without one): the reduction made as without out, then stored ----

_UFUNC_OF = {"sum": "add", "prod": "multiply", "min": "minimum", "max": "maximum",
             "mean": "add", "var": "add", "std": "add", "any": "logical_or",
             "all": "logical_and", "nanmin": "fmin", "nanmax": "fmax"}


def reduce_into(name, a, axis, out, keepdims, signature, dtype=None):
    """np.<name>(a, axis, ..., out=out): the reduction made as without out (in the type dtype=
    or NumPy's default gives) and stored into out, cast as NumPy 2 casts a reduction's result
    into out; out is returned. out's ndim is checked when compiling and its shape when running,
    with NumPy's ValueError. None when out is not given."""
    if not (is_array(a) and isinstance(out, types.Type) and given(out)):
        return None
    if not is_array(out):
        raise TypeError(f"np.{name}: out= takes an array, not {out}")
    # np.nansum and the other NaN-skipping reductions store as their plain forms do
    base = name[3:] if name.startswith("nan") else name
    keep = constant_flag(keepdims, "keepdims")
    if keep:
        expected = a.ndim
    elif _axis_given(axis):
        expected = a.ndim - 1
    elif _int_tuple(axis):
        expected = a.ndim - len(axis.types)
    elif not given(axis):
        expected = 0
    else:
        return None
    if base.startswith("arg"):
        if out.ndim != expected:
            raise ValueError(f"output array does not match result of np.{name}.")
        if not isinstance(out.dtype, types.Integer):
            raise TypeError(f"Cannot cast array data from dtype('int64') to dtype('{out.dtype}') "
                            "according to the rule 'safe'")
    elif out.ndim != expected:
        ufunc = _UFUNC_OF.get(name if isinstance(a.dtype, types.Float) else base,
                             _UFUNC_OF[base])
        raise ValueError(f"output parameter for reduction operation {ufunc} has the "
                         f"wrong number of dimensions: Found {out.ndim} but expected {expected}")
    if isinstance(a.dtype, types.Complex) and not isinstance(out.dtype, types.Complex) and \
            base not in ("var", "std", "any", "all") and not base.startswith("arg"):
        raise TypeError(f"np.{name}: out= of {out.dtype} for a complex result would drop its "
                        "imaginary part (NumPy warns and drops it); compiled code refuses it")
    if base == "std" and not isinstance(out.dtype, (types.Float, types.Complex)):
        raise TypeError(f"Cannot cast ufunc 'sqrt' output from dtype('float64') to "
                        f"dtype('{out.dtype}') with casting rule 'same_kind'")
    args = ["a"]
    if given(axis):
        args.append("axis=axis")
    if base in ("sum", "prod", "mean", "var", "std") and isinstance(dtype, types.Type) and \
            given(dtype):
        args.append("dtype=dtype")
    if "ddof" in signature:
        args.append("ddof=ddof")
    if keep:
        args.append("keepdims=True")
    return stored_result(signature, f"np.{name}({', '.join(args)})", expected,
                         "operands could not be broadcast together with remapped shapes: out= "
                         "has the wrong shape for the reduction")


def stored_result(signature, expr, nd, shape_message):
    """impl(signature) of a function given out=: r = expr (the result made without out), stored
    into out, whose ndim is nd (out[()] = r for a 0-d result; a shape out does not have is the
    ValueError shape_message, raised when running); out returned."""
    store = ("    if out.shape != r.shape:\n"
             f"        raise ValueError({shape_message!r})\n"
             "    out[...] = r\n") if nd else "    out[()] = r\n"
    return _generated("impl", f"def impl({signature}):\n    r = {expr}\n" + store +
                      "    return out\n", {})


def _sum(a, axis=None, dtype=None, out=None, keepdims=False):
    return reduce_into("sum", a, axis, out, keepdims, _DTYPE_SIG, dtype) or _along_or_whole(a, axis, keepdims, _DTYPE_SIG, lambda: _reduction("sum", a, dtype),
                           "np.sum(a.ravel(), axis=0, dtype=dtype)", out=out) or \
        _whole_with_dtype("sum", a, axis, dtype)


def _prod(a, axis=None, dtype=None, out=None, keepdims=False):
    return reduce_into("prod", a, axis, out, keepdims, _DTYPE_SIG, dtype) or _along_or_whole(a, axis, keepdims, _DTYPE_SIG, lambda: _reduction("prod", a, dtype),
                           "np.prod(a.ravel(), axis=0, dtype=dtype)", out=out) or \
        _whole_with_dtype("prod", a, axis, dtype)


def _whole_with_dtype(kind, a, axis, dtype):
    """np.sum(a, dtype=...) (and prod) without an axis: the reduction of the flattened array
    accumulating in dtype (the builtin takes no dtype)."""
    if is_array(a) and a.ndim > 0 and not given(axis) and isinstance(dtype, types.Type) and \
            given(dtype):
        return _whole(f"np.{kind}(a.ravel(), axis=0, dtype=dtype)", _DTYPE_SIG)
    return None


def _extreme_initial(kind):
    """np.min/np.max (and the methods) with initial=: the reduction starts from initial, so an
    empty array or axis gives it rather than raising. None without initial."""
    def typing(a, axis=None, out=None, keepdims=False, initial=None):
        if not (is_array(a) and given(initial) and isinstance(initial, (types.Number,
                                                                          types.Boolean))):
            return None
        better = _better(kind, a.dtype)
        if given(out) or constant_flag(keepdims, "keepdims"):
            raise TypeError(f"initial= is supported without out= and keepdims= in compiled "
                            f"code, not with out={out}, keepdims={keepdims}")
        if _axis_given(axis):
            head = ("    ax = _norm_axis(axis, a.ndim)\n"
                    "    b = _blocks(a, ax)\n")
            finish = _finish(a.ndim)
        elif not given(axis):
            head = "    b = np.ascontiguousarray(a).reshape((1, a.size, 1))\n"
            finish = "    return r[0, 0]\n"
        else:
            return None
        source = ("def impl(a, axis=None, out=None, keepdims=False, initial=None):\n" + head +
                  "    before, along, after = b.shape\n"
                  "    r = np.full((before, after), rt(initial), rt)\n"
                  "    for i in range(before):\n"
                  "        for j in range(along):\n"
                  "            for k in range(after):\n"
                  "                v = b[i, j, k]\n"
                  "                m = r[i, k]\n"
                  f"                if m == m and ({better} or v != v):\n"
                  "                    r[i, k] = v\n" + finish)
        return _generated("impl", source, {"rt": a.dtype})
    typing.__name__ = typing.__qualname__ = f"_{kind}_initial"
    return typing


def _min(a, axis=None, out=None, keepdims=False):
    dated = datetime_reduction("min", a, axis, out, keepdims) or \
        reduce_into("min", a, axis, out, keepdims, _REDUCE_SIG)
    return dated or _along_or_whole(a, axis, keepdims, _REDUCE_SIG, lambda: _reduction("min", a),
                           "np.min(a.ravel(), axis=0)", out=out)


def _max(a, axis=None, out=None, keepdims=False):
    dated = datetime_reduction("max", a, axis, out, keepdims) or \
        reduce_into("max", a, axis, out, keepdims, _REDUCE_SIG)
    return dated or _along_or_whole(a, axis, keepdims, _REDUCE_SIG, lambda: _reduction("max", a),
                           "np.max(a.ravel(), axis=0)", out=out)


def _mean(a, axis=None, dtype=None, out=None, keepdims=False):
    return reduce_into("mean", a, axis, out, keepdims, _DTYPE_SIG, dtype) or _with_dtype("mean", a, axis, dtype, out, keepdims, _DTYPE_SIG) or \
        _along_or_whole(a, axis, keepdims, _DTYPE_SIG, lambda: _stat("mean", a),
                        "np.mean(a.ravel(), axis=0)", dtype=dtype, out=out)


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return reduce_into("var", a, axis, out, keepdims, _DDOF_SIG, dtype) or _with_dtype("var", a, axis, dtype, out, keepdims, _DDOF_SIG) or \
        _along_or_whole(a, axis, keepdims, _DDOF_SIG, lambda: _stat("var", a),
                        "np.var(a.ravel(), axis=0, ddof=ddof)", dtype=dtype, out=out) or \
        _whole_ddof("var", a, axis, dtype, out, ddof)


def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return reduce_into("std", a, axis, out, keepdims, _DDOF_SIG, dtype) or _with_dtype("std", a, axis, dtype, out, keepdims, _DDOF_SIG) or \
        _along_or_whole(a, axis, keepdims, _DDOF_SIG, lambda: _stat("std", a),
                        "np.std(a.ravel(), axis=0, ddof=ddof)", dtype=dtype, out=out) or \
        _whole_ddof("std", a, axis, dtype, out, ddof)


def _with_dtype(kind, a, axis, dtype, out, keepdims, signature):
    """np.mean(a, dtype=float32) (and var, std): the statistic of a converted to the dtype,
    which is then both the accumulator's type and the result's, as NumPy's."""
    from .lists import _dtype_of
    if not (is_array(a) and isinstance(dtype, types.Type) and given(dtype)):
        return None
    dt = _dtype_of(dtype)
    if not isinstance(dt, (types.Float, types.Complex)):
        raise TypeError(f"np.{kind}: dtype= takes a float or complex type in compiled code, "
                        f"not {dtype}")
    if isinstance(out, types.Type) and given(out):
        raise TypeError(f"np.{kind}: out= is not supported in compiled code")
    args = ["a.astype(DT)"]
    if isinstance(axis, types.Type) and given(axis):
        args.append("axis=axis")
    if "ddof" in signature:
        args.append("ddof=ddof")
    if constant_flag(keepdims, "keepdims"):
        args.append("keepdims=True")
    return _generated("impl", f"def impl({signature}):\n"
                              f"    return np.{kind}({', '.join(args)})\n", {"DT": dt})


def _whole_ddof(kind, a, axis, dtype, out, ddof):
    """np.var(a, ddof=...) (and std) without an axis: along the flattened array's one axis
    (the builtin takes no ddof)."""
    if is_array(a) and a.ndim > 0 and not given(axis) and not given(dtype) and not given(out) \
            and isinstance(ddof, types.Type) and given(ddof):
        return _whole(f"np.{kind}(a.ravel(), axis=0, ddof=ddof)", _DDOF_SIG)
    return None


def _argmin(a, axis=None, out=None, keepdims=False):
    dated = datetime_reduction("argmin", a, axis, out, keepdims) or \
        reduce_into("argmin", a, axis, out, keepdims, _REDUCE_SIG)
    return dated or _along_or_whole(a, axis, keepdims, _REDUCE_SIG, lambda: _arg("min", a),
                           "np.argmin(a.ravel(), axis=0)", out=out)


def _argmax(a, axis=None, out=None, keepdims=False):
    dated = datetime_reduction("argmax", a, axis, out, keepdims) or \
        reduce_into("argmax", a, axis, out, keepdims, _REDUCE_SIG)
    return dated or _along_or_whole(a, axis, keepdims, _REDUCE_SIG, lambda: _arg("max", a),
                           "np.argmax(a.ravel(), axis=0)", out=out)


def accumulate_into(kind, a, axis, out):
    """np.cumsum(a, axis, dtype, out=out) (and cumprod): the accumulation made as without out,
    then stored into out (cast as NumPy casts it), which is returned; NumPy's ValueError for an
    out of another shape. None when out is not given."""
    if not (is_array(a) and isinstance(out, types.Type) and given(out)):
        return None
    if not is_array(out):
        raise TypeError(f"np.{kind}: out= takes an array, not {out}")
    ndim = a.ndim if _axis_given(axis) else 1
    check = "    if out.shape != r.shape:\n" if out.ndim == ndim else "    if True:\n"
    return _generated("impl", "def impl(a, axis=None, dtype=None, out=None):\n"
                      f"    r = np.{kind}(a, axis=axis, dtype=dtype)\n" + check +
                      "        raise ValueError('provided out is the wrong size for the "
                      "accumulation.')\n"
                      "    out[...] = r\n"
                      "    return out\n", {})


def _cumsum(a, axis=None, dtype=None, out=None):
    into = accumulate_into("cumsum", a, axis, out)
    if into is not None:
        return into
    if is_array(a) and isinstance(axis, types.NoneType) and not given(dtype) and not given(out):
        return _whole("np.cumsum(a)", "a, axis=None, dtype=None, out=None")
    return _cumulative("sum", a, dtype) if _applies(a, axis, out=out) else None


def cumprod_along(a, axis):
    """np.cumprod's axis form (numpy_math's overload of np.cumprod, and of a.cumprod, takes it
    from here)."""
    return _cumulative("prod", a) if _applies(a, axis) else None


_register(np.sum, "sum", _sum)
_register(np.prod, "prod", _prod)
_register(np.min, "min", _min)
_register(np.amin, None, _min)
_register(np.max, "max", _max)
_register(np.amax, None, _max)
_register(np.mean, "mean", _mean)
_register(np.var, "var", _var)
_register(np.std, "std", _std)
for _kind, _funcs in (("min", (np.min, np.amin)), ("max", (np.max, np.amax))):
    for _func in _funcs:
        overload(_func)(_extreme_initial(_kind))
    overload_method(types.Array, _kind)(_extreme_initial(_kind))
_register(np.argmin, "argmin", _argmin)
_register(np.argmax, "argmax", _argmax)
_register(np.cumsum, "cumsum", _cumsum)


# ---- any/all and the statistics of numpy_stats along an axis ----

def count_along(a, axis, keepdims=False):
    """np.count_nonzero with an int axis: the number of nonzero elements per (i, k), intp."""
    def along():
        source = (
            "def impl(a, axis=None, keepdims=False):\n"
            "    ax = _norm_axis(axis, a.ndim)\n"
            "    b = _blocks(a, ax)\n"
            "    before, along, after = b.shape\n"
            "    r = np.zeros((before, after), np.intp)\n"
            "    for i in range(before):\n"
            "        for j in range(along):\n"
            "            for k in range(after):\n"
            "                if b[i, j, k] != 0:\n"
            "                    r[i, k] += 1\n" + _finish(a.ndim))
        return _generated("impl", source, {})
    if not _applies(a, axis):
        return None
    return keep_dims(keepdims, a, axis, "a, axis=None, keepdims=False", along())


def truth_along(found, a, axis, out=None, keepdims=False):
    """np.any (found=True) and np.all with an int axis: per (i, k), whether some element's truth
    equals found (numpy_logic's overloads take it from here). None where it does not apply."""
    def along():
        source = (
            "def impl(a, axis=None, out=None, keepdims=False):\n"
            "    ax = _norm_axis(axis, a.ndim)\n"
            "    b = _blocks(a, ax)\n"
            "    before, along, after = b.shape\n"
            "    r = np.full((before, after), not found, np.bool_)\n"
            "    for i in range(before):\n"
            "        for j in range(along):\n"
            "            for k in range(after):\n"
            "                if (b[i, j, k] != 0) == found:\n"
            "                    r[i, k] = found\n" + _finish(a.ndim))
        return _generated("impl", source, {"found": found})
    return reduce_into("any" if found else "all", a, axis, out, keepdims, _REDUCE_SIG) or \
        _along_or_whole(a, axis, keepdims, _REDUCE_SIG, along,
                        f"np.{'any' if found else 'all'}(a.ravel(), axis=0)", out=out)


def apply_along(a, axis, signature, of, rt, extra=""):
    """An implementation with this signature applying the jitable of(column{extra}) to each 1-d
    column of a along an int axis (a copy, which of may reorder), in a's shape less the axis,
    rt its dtype. None where it does not apply."""
    if not _applies(a, axis):
        return None
    source = (
        f"def impl({signature}):\n"
        "    ax = _norm_axis(axis, a.ndim)\n"
        "    b = _blocks(a, ax)\n"
        "    before, along, after = b.shape\n"
        "    r = np.empty((before, after), rt)\n"
        "    col = np.empty(along, b.dtype)\n"
        "    for i in range(before):\n"
        "        for k in range(after):\n"
        "            for j in range(along):\n"
        "                col[j] = b[i, j, k]\n"
        f"            r[i, k] = of(col{extra})\n" + _finish(a.ndim))
    return _generated("impl", source, {"of": of, "rt": rt})


# ---- tuple axes on the reductions of numpy_nan, numpy_stats and numpy_logic ----

_TUPLE_AXIS_SIGNATURES = {
    "nansum": "a, axis=None, dtype=None, out=None, keepdims=False",
    "nanmean": "a, axis=None, dtype=None, out=None, keepdims=False",
    "nanmax": "a, axis=None, out=None, keepdims=False",
    "nanmin": "a, axis=None, out=None, keepdims=False",
    "nanstd": "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False",
    "nanvar": "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False",
    "ptp": "a, axis=None, out=None, keepdims=False",
    "count_nonzero": "a, axis=None, keepdims=False",
    "median": "a, axis=None, out=None, overwrite_input=False, keepdims=False",
    "nanmedian": "a, axis=None, out=None, overwrite_input=False, keepdims=False",
}


def _tuple_axis_typing(name, signature):
    """np.<name>(a, axis=(i, j, ...)): _tuple_axes over the function's own int-axis form."""
    extra = ", ddof=ddof" if "ddof" in signature else ""
    call = f"np.{name}(a.ravel(), axis=0{extra})"
    params = [p.split("=")[0].strip() for p in signature.split(",")]

    def typing(a, axis, keepdims, **others):
        if not (is_array(a) and _int_tuple(axis)):
            return None
        for key in ("dtype", "out"):
            if key in others and isinstance(others[key], types.Type) and given(others[key]):
                raise TypeError(f"np.{name}: {key}= beside a tuple axis is not supported in "
                                "compiled code")
        return _tuple_axes(a, axis, keepdims, signature, call)
    rest = ", ".join(f"{p}={p}" for p in params if p not in ("a", "axis", "keepdims"))
    return _generated("typing", f"def typing({signature}):\n"
                                f"    return inner(a, axis, keepdims, {rest})\n",
                      {"inner": typing})


for _name, _signature in _TUPLE_AXIS_SIGNATURES.items():
    _typing = _tuple_axis_typing(_name, _signature)
    _typing.__module__ = __name__
    overload(getattr(np, _name))(_typing)


_NAN_ON_ZERO = {"error_model": "numpy"}


# where= (numpy_where.py): the reduction over the items under a mask
def _register_where():
    from . import numpy_where
    sigs = {"sum": ("sum", "a, axis=None, dtype=None, out=None, keepdims=False, where=True"),
            "prod": ("prod", "a, axis=None, dtype=None, out=None, keepdims=False, where=True"),
            "min": ("min", "a, axis=None, out=None, keepdims=False, initial=None, where=True"),
            "max": ("max", "a, axis=None, out=None, keepdims=False, initial=None, where=True")}
    for name, (kind, sig) in sigs.items():
        typing = numpy_where.reduction(name, kind, sig)
        typing.__module__ = __name__
        _register(getattr(np, name), name, typing)
        if name in ("min", "max"):
            overload(getattr(np, "a" + name))(typing)
    for name, sig in (("mean", _DTYPE_SIG), ("var", _DDOF_SIG), ("std", _DDOF_SIG)):
        typing = numpy_where.statistic(name, sig + ", where=True")
        typing.__module__ = __name__
        overload(getattr(np, name), jit_options=_NAN_ON_ZERO)(typing)   # an empty mask: NaN
        overload_method(types.Array, name, jit_options=_NAN_ON_ZERO)(typing)


_register_where()
