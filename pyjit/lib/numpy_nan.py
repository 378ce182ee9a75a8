"""np.average (axis= too), np.nanvar, np.nanstd, np.nanargmin, np.nanargmax, np.nanprod,
np.nancumsum and np.nancumprod, written in the compiled subset (arrays flattened, as NumPy does
with axis=None).

The NaN-ignoring products and running totals are NumPy's own definition: the array with its NaNs
replaced by the operation's identity, then the plain function, so dtypes and axes follow it."""
import warnings

import numpy as np

from ._util import constant_flag, float_of, generated, given, is_array, overload, promote, types
from .numpy_axis import keep_dims, reduce_into
from .numpy_shape import _norm_axis


def _inexact(dt):
    return isinstance(dt, (types.Float, types.Complex))


def _real_of(dt):
    """The float type of a complex type's parts (NumPy's var of complex numbers is real)."""
    if isinstance(dt, types.Complex):
        return types.float32 if dt == types.complex64 else types.float64
    return float_of(dt)


def _nan_replaced(a, fill):
    pass


@overload(_nan_replaced)
def _nan_replaced_impl(a, fill):
    """A copy of a with its NaNs as fill, for floats and complex numbers; a itself otherwise
    (nothing to replace), as NumPy's _replace_nan."""
    if not _inexact(a.dtype):
        return lambda a, fill: a
    dt = a.dtype

    def impl(a, fill):
        b = a.copy()
        flat = b.reshape(b.size)
        for i in range(flat.size):
            if flat[i] != flat[i]:
                flat[i] = dt(fill)
        return b
    return impl


@overload(np.average)
def _average(a, axis=None, weights=None, returned=False):
    if not is_array(a) or (isinstance(returned, types.Type) and given(returned)):
        return None
    if given(axis) and not isinstance(axis, (types.Integer, types.Boolean)):
        return None
    if not given(weights):
        if given(axis):
            return lambda a, axis=None, weights=None, returned=False: np.mean(a, axis=axis)
        return lambda a, axis=None, weights=None, returned=False: np.mean(a)
    if not is_array(weights):
        return None
    exact = isinstance(a.dtype, (types.Integer, types.Boolean))
    rt = promote(a.dtype, weights.dtype, types.float64) if exact else \
        promote(a.dtype, weights.dtype)
    if given(axis):
        return _average_along(a, weights, rt)

    message = "Axis must be specified when shapes of a and weights differ."
    if a.ndim != weights.ndim:
        def differ(a, axis=None, weights=None, returned=False):
            raise TypeError(message)
        return differ

    def impl(a, axis=None, weights=None, returned=False):
        if a.shape != weights.shape:
            raise TypeError(message)
        x = a.ravel()
        w = weights.ravel()
        total = rt(0)
        scale = rt(0)
        for i in range(x.size):
            total += rt(x[i]) * rt(w[i])
            scale += rt(w[i])
        if scale == 0:
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        return total / scale
    return impl


def _average_along(a, weights, rt):
    """np.average(a, axis, weights): weights of a's shape, or 1-d along the axis (NumPy's two
    forms), summed with a along the axis in rt; ZeroDivisionError where a sum of weights is 0."""
    if weights.ndim != a.ndim and weights.ndim != 1:
        def differ(a, axis=None, weights=None, returned=False):
            raise TypeError("1D weights expected when shapes of a and weights differ.")
        return differ
    shape = "".join(f"weights.size if ax == {d} else 1, " for d in range(a.ndim))
    if weights.ndim == a.ndim:
        wb = ("    if a.shape != weights.shape:\n"
              "        raise ValueError('Length of weights not compatible with specified axis.')\n"
              "    wb = weights.astype(rt)\n")
    else:
        wb = ("    if weights.size != a.shape[ax]:\n"
              "        raise ValueError('Length of weights not compatible with specified axis.')\n"
              f"    wb = np.ascontiguousarray(weights).astype(rt).reshape(({shape}))\n")
    source = ("def impl(a, axis=None, weights=None, returned=False):\n"
              "    ax = _norm_axis(axis, a.ndim)\n" + wb +
              "    scale = np.sum(wb * np.ones(a.shape, rt), axis=ax)\n"
              "    if np.any(scale == 0):\n"
              "        raise ZeroDivisionError(\"Weights sum to zero, can't be normalized\")\n"
              "    return np.sum(a.astype(rt) * wb, axis=ax) / scale\n")
    return generated("impl", source, {"rt": rt, "_norm_axis": _norm_axis})


def _nanvar_typing(root):
    """np.nanvar (root=False) and np.nanstd: the squared distances from the mean of the values
    that are not NaN, over their count less ddof; NaN where that is not positive (ints, which
    hold no NaN, divide by it as np.var does: inf, or NaN for no spread)."""
    def typing(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        if not is_array(a) or given(axis) or given(dtype) or given(out):
            return None
        return keep_dims(keepdims, a, axis, "a, axis=None, dtype=None, out=None, ddof=0, "
                         "keepdims=False", whole(a))

    def whole(a):
        ft = a.dtype if _inexact(a.dtype) else types.float64
        rt = _real_of(a.dtype)
        inexact = _inexact(a.dtype)

        def impl(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
            b = a.ravel()
            s = ft(0)
            n = 0
            for i in range(b.size):
                if b[i] == b[i]:
                    s += ft(b[i])
                    n += 1
            if n == 0:
                return rt(np.nan)
            mean = s / ft(n)
            q = rt(0)
            for i in range(b.size):
                if b[i] == b[i]:
                    d = ft(b[i]) - mean
                    q += rt((d * np.conj(d)).real)
            dof = n - ddof
            if dof <= 0:      # NumPy's var divides by max(dof, 0)
                return rt(np.nan) if inexact or q == 0 else rt(np.inf)
            r = rt(q / rt(dof))
            return rt(np.sqrt(r)) if root else r
        return impl
    return typing


overload(np.nanvar)(_nanvar_typing(False))
overload(np.nanstd)(_nanvar_typing(True))


def _nanarg_typing(kind):
    """np.nanargmin and np.nanargmax: the first index of the extreme among the values that are
    not NaN; an all-NaN array raises, as NumPy's."""
    def typing(a, axis=None, out=None, keepdims=False):
        if not is_array(a) or given(axis) or given(out):
            return None
        return keep_dims(keepdims, a, axis, "a, axis=None, out=None, keepdims=False", whole())

    def whole():
        smaller = kind == "min"

        def impl(a, axis=None, out=None, keepdims=False):
            b = a.ravel()
            if b.size == 0:
                raise ValueError("attempt to get arg" + kind + " of an empty sequence")
            found = -1
            for i in range(b.size):
                v = b[i]
                if v != v:
                    continue
                if found < 0 or (v < b[found] if smaller else v > b[found]):
                    found = i
            if found < 0:
                raise ValueError("All-NaN slice encountered")
            return found
        return impl
    return typing


overload(np.nanargmin)(_nanarg_typing("min"))
overload(np.nanargmax)(_nanarg_typing("max"))


@overload(np.nanprod)
def _nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    if not is_array(a) or given(dtype) or given(out):
        return None
    if isinstance(axis, types.Tuple) and constant_flag(keepdims, "keepdims"):
        def kept(a, axis=None, dtype=None, out=None, keepdims=False):   # numpy_axis's tuple axes
            return np.prod(_nan_replaced(a, 1), axis=axis, keepdims=True)
        return kept
    if given(axis):
        def impl(a, axis=None, dtype=None, out=None, keepdims=False):
            return np.prod(_nan_replaced(a, 1), axis=axis)
    else:
        def impl(a, axis=None, dtype=None, out=None, keepdims=False):
            return np.prod(_nan_replaced(a, 1))
    return keep_dims(keepdims, a, axis, "a, axis=None, dtype=None, out=None, keepdims=False", impl)


@overload(np.nancumsum)
def _nancumsum(a, axis=None, dtype=None, out=None):
    if not is_array(a) or given(dtype):
        return None
    if given(out):
        return lambda a, axis=None, dtype=None, out=None: \
            np.cumsum(_nan_replaced(a, 0), axis=axis, out=out)
    if given(axis):
        return lambda a, axis=None, dtype=None, out=None: \
            np.cumsum(_nan_replaced(a, 0), axis=axis)
    return lambda a, axis=None, dtype=None, out=None: np.cumsum(_nan_replaced(a, 0))


@overload(np.nancumprod)
def _nancumprod(a, axis=None, dtype=None, out=None):
    if not is_array(a) or given(dtype):
        return None
    if given(out):
        return lambda a, axis=None, dtype=None, out=None: \
            np.cumprod(_nan_replaced(a, 1), axis=axis, out=out)
    if given(axis):
        return lambda a, axis=None, dtype=None, out=None: \
            np.cumprod(_nan_replaced(a, 1), axis=axis)
    return lambda a, axis=None, dtype=None, out=None: np.cumprod(_nan_replaced(a, 1))


# ---- axis= on the NaN-skipping reductions without one of their own ----
# np.nansum(a, axis=1) and the others: the function of each 1-d lane along the axis (a view),
# into an array of the other axes. The result's dtype is NumPy's for the reduction of a lane.

def _nan_along(func, ddof=False):
    name = func.__name__
    params = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False" if ddof else (
        "a, axis=None, out=None, keepdims=False" if name in ("nanmin", "nanmax", "nanargmin",
                                                             "nanargmax")
        else "a, axis=None, dtype=None, out=None, keepdims=False")

    def typing(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        if not (is_array(a) and isinstance(axis, types.Integer)) or a.ndim < 2 or given(out) or \
                (isinstance(dtype, types.Type) and given(dtype)):
            return None
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rt = types._as_type(np.asarray(func(np.ones(2, np.dtype(a.dtype.name)))).dtype)
        nd = a.ndim
        lead = "".join(f"moved.shape[{d}], " for d in range(nd - 1))
        call = f"np.{name}(moved[idx], ddof=ddof)" if ddof else f"np.{name}(moved[idx])"
        source = (f"def impl({params}):\n"
                  f"    moved = np.moveaxis(a, _norm_axis(axis, {nd}), -1)\n"
                  f"    res = np.empty(({lead}), RT)\n"
                  "    for idx in np.ndindex(res.shape):\n"
                  f"        res[idx] = {call}\n"
                  "    return res\n")
        return keep_dims(keepdims, a, axis, params,
                         generated("impl", source, {"RT": rt, "_norm_axis": _norm_axis}))
    exec_params = params.replace("a, ", "", 1)
    ns = {"typing": typing, "__name__": __name__}
    exec(f"def along(a, {exec_params}):\n    return typing(a, axis=axis"
         + (", dtype=dtype" if "dtype" in params else "") + ", out=out"
         + (", ddof=ddof" if ddof else "") + ", keepdims=keepdims)\n", ns)
    along = ns["along"]
    along.__name__ = along.__qualname__ = f"_{name}_along"
    overload(func, strict=False)(along)


for _func in (np.nansum, np.nanmean, np.nanmin, np.nanmax, np.nanargmin, np.nanargmax):
    _nan_along(_func)
for _func in (np.nanvar, np.nanstd):
    _nan_along(_func, ddof=True)


# ---- out= on the NaN-skipping reductions: the result made without it, stored into it ----

def _nan_into(name, signature):
    takes_dtype = "dtype" in signature
    ns = {"reduce_into": reduce_into, "types": types, "given": given, "__name__": __name__}
    exec(f"def into({signature}):\n"
         f"    return reduce_into({name!r}, a, axis, out, keepdims, {signature!r}"
         + (", dtype)\n" if takes_dtype else ")\n"), ns)
    into = ns["into"]
    into.__name__ = into.__qualname__ = f"_{name}_into"
    overload(getattr(np, name), strict=False)(into)


_SIG = "a, axis=None, dtype=None, out=None, keepdims=False"
for _name, _signature in (("nansum", _SIG), ("nanprod", _SIG), ("nanmean", _SIG),
                          ("nanmin", "a, axis=None, out=None, keepdims=False"),
                          ("nanmax", "a, axis=None, out=None, keepdims=False"),
                          ("nanargmin", "a, axis=None, out=None, keepdims=False"),
                          ("nanargmax", "a, axis=None, out=None, keepdims=False"),
                          ("nanvar", "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False"),
                          ("nanstd", "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False")):
    _nan_into(_name, _signature)


def _register_where():
    """np.nansum, nanprod, nanmean, nanvar and nanstd with where= (numpy_where.py): NaN (or the
    identity) in place of the items outside the mask."""
    from . import numpy_where
    sig = "a, axis=None, dtype=None, out=None, keepdims=False, where=True"
    ddof_sig = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True"
    for name, signature in (("nansum", sig), ("nanprod", sig), ("nanmean", sig),
                            ("nanvar", ddof_sig), ("nanstd", ddof_sig)):
        typing = numpy_where.reduction(name, name, signature)
        typing.__module__ = __name__
        overload(getattr(np, name), strict=False, jit_options={"error_model": "numpy"})(typing)


_register_where()
