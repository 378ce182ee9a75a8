"""`where=` on the reductions and the ufuncs, as NumPy defines it.

A reduction with where= reduces only the items where the mask (broadcast to the array's shape)
is True: np.sum(a, where=m) is the sum of a's items under m. Each is the reduction itself over
the array with the other items replaced by the reduction's identity (0 for sums and any, 1 for
products and all, `initial` for min and max, which need it as NumPy's do, NaN for the nan-
statistics); np.mean, np.var and np.std count the items under the mask. A ufunc with where=
computes every item and stores, into out, those under the mask; out's other items are left as
they were (without out=, NumPy leaves them uninitialised; here they hold the computed values).

The typing functions are made here and registered by the modules that own each function
(numpy_axis, numpy_logic, numpy_signal, numpy_nan, numpy_ufuncs), as their own."""
import numpy as np

from ._util import constant_flag, float_of, generated, given, is_array, types


def _mask(where):
    """Whether where= is given as a mask: an array of bools (True: the plain reduction)."""
    return is_array(where) and isinstance(where.dtype, types.Boolean)


def _fill(kind, dt):
    """The identity replacing the items outside the mask, as source, of the array's kind."""
    boolean = isinstance(dt, types.Boolean)
    if kind in ("sum", "any", "nansum"):
        return "False" if boolean else "0"
    if kind in ("prod", "all", "nanprod"):
        return "True" if boolean else "1"
    if kind in ("min", "max"):
        return "DT(initial)"
    return "np.nan"   # nanmean, nanvar, nanstd of floats


def _check(name, a, where, out):
    if not (is_array(a) and _mask(where)):
        return False
    if given(out) and not (is_array(out) and not out.readonly):
        raise TypeError(f"np.{name}: out= must be a writable array, not {out}")
    return True


def _into_out(out, lines):
    """lines (an implementation's source ending in `return <result>`) storing the result into
    out= where given (of the result's shape, NumPy's ValueError otherwise) and returning out."""
    if not given(out):
        return lines
    result = lines[-1].strip()[len("return "):]
    return lines[:-1] + [f"    r = {result}",
                         "    if np.shape(r) != out.shape:",
                         "        raise ValueError('output parameter for reduction operation has "
                         "the wrong shape')",
                         "    out[...] = r",
                         "    return out"]


def _call_args(axis, keepdims, extra=()):
    """The arguments passed on to the reduction without where=: the given ones only."""
    args = []
    if given(axis):
        args.append("axis=axis")
    args += list(extra)
    if constant_flag(keepdims, "keepdims"):
        args.append("keepdims=True")
    return "".join(", " + x for x in args)


def reduction(name, kind, signature):
    """The typing function of np.<name>(a, ..., where=mask) (and a.<name>), of that signature:
    np.<name> of the array with the items outside the mask replaced by kind's identity."""
    params = [p.split("=")[0].strip() for p in signature.split(",")]

    def typing(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, ddof=0,
               where=True):
        if not _check(name, a, where, out):
            return None
        extra = []
        if given(dtype):
            extra.append("dtype=dtype")
        if kind in ("min", "max"):
            if not given(initial):
                raise ValueError(f"reduction operation '{'minimum' if kind == 'min' else 'maximum'}'"
                                 " does not have an identity, so to use a where mask one has to "
                                 "specify 'initial'")
            extra.append("initial=initial")
            if constant_flag(keepdims, "keepdims"):
                raise TypeError(f"np.{name}: initial= is supported without keepdims= in compiled "
                                "code")
        if "ddof" in params and given(ddof):
            extra.append("ddof=ddof")
        fill = _fill(kind, a.dtype)
        if fill == "np.nan" and not isinstance(a.dtype, (types.Float, types.Complex)):
            return None   # np.nanmean of ints with where=: not taken
        lines = [f"def impl({signature}):",
                 f"    b = np.where(np.broadcast_to(where, a.shape), a, {fill})",
                 f"    return np.{name}(b{_call_args(axis, keepdims, extra)})"]
        return generated("impl", "\n".join(_into_out(out, lines)) + "\n", {"DT": a.dtype})
    return _with_signature(typing, signature, f"_{name}_where", keywords=True)


def statistic(name, signature):
    """np.mean, np.var and np.std with where=: the items under the mask counted, their sum (in
    the statistic's float type) divided by the count; var and std then sum the squared distances
    to that mean under the mask and divide by the count less ddof (NaN where nothing is left,
    as NumPy)."""
    def typing(a, axis=None, dtype=None, out=None, keepdims=False, ddof=0, where=True):
        if not _check(name, a, where, out):
            return None
        if given(dtype):
            raise TypeError(f"np.{name}: dtype= beside where= is not supported in compiled code")
        complex_ = isinstance(a.dtype, types.Complex)
        rt = a.dtype if complex_ else float_of(a.dtype)
        if rt == types.float16:
            rt = types.float32   # NumPy sums float16 in float32, then rounds the result
        whole = not given(axis) and not constant_flag(keepdims, "keepdims")
        ax = "axis=axis, " if given(axis) else ""
        keep = "keepdims=True" if constant_flag(keepdims, "keepdims") else "keepdims=False"
        out_t = a.dtype if isinstance(a.dtype, (types.Float, types.Complex)) else types.float64
        if name != "mean" and complex_:
            out_t = types.float32 if a.dtype == types.complex64 else types.float64
        cast = "OUT(r)" if whole else "r.astype(OUT)"
        lines = [f"def impl({signature}):",
                 "    m = np.broadcast_to(where, a.shape)",
                 "    x = np.where(m, a.astype(RT), 0)"]
        if name == "mean":
            lines += [f"    r = np.sum(x, {ax}{keep}) / np.sum(m, {ax}{keep})"]
        else:
            sq = "(d.real * d.real + d.imag * d.imag)" if complex_ else "d * d"
            lines += [f"    mu = np.sum(x, {ax}keepdims=True) / np.sum(m, {ax}keepdims=True)",
                      "    d = np.where(m, x - mu, 0)",
                      f"    r = np.sum({sq}, {ax}{keep}) / np.maximum(np.sum(m, {ax}{keep}) - "
                      "ddof, 0)"]
            if name == "std":
                lines.append("    r = np.sqrt(r)")
        lines.append(f"    return {cast}")
        return generated("impl", "\n".join(_into_out(out, lines)) + "\n",
                         {"RT": rt, "OUT": out_t})
    return _with_signature(typing, signature, f"_{name}_where", keywords=True)


def ufunc(name, nin):
    """The typing function of np.<name>(x1[, x2], out=None, where=mask): the ufunc's result
    for every item, stored into out under the mask (out keeps the rest)."""
    ops = ", ".join(f"x{k + 1}" for k in range(nin))

    def typing(*args):
        *operands, out, where = args
        if not _mask(where):
            return None
        if given(out) and not (is_array(out) and not out.readonly):
            return None
        if given(out):
            body = (f"    r = np.{name}({ops})\n"
                    "    out[...] = np.where(np.broadcast_to(where, out.shape), r, out)\n"
                    "    return out\n")
        else:   # NumPy leaves the items outside the mask uninitialised
            body = f"    return np.{name}({ops})\n"
        return generated("impl", f"def impl({ops}, out=None, where=True):\n" + body, {})
    return _with_signature(typing, f"{ops}, out=None, where=True", f"_{name}_where")


def _with_signature(inner, signature, name, keywords=False):
    """inner(...) behind a typing function of this exact signature (overload binds keywords by
    the typing function's parameters), called with them by position or by name."""
    params = [p.split("=")[0].strip() for p in signature.split(",")]
    call = ", ".join(f"{p}={p}" if keywords else p for p in params)
    typing = generated("typing", f"def typing({signature}):\n    return inner({call})\n",
                       {"inner": inner})
    typing.__name__ = typing.__qualname__ = name
    return typing
