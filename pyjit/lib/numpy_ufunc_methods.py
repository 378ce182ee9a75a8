"""The methods of ufuncs: np.add.reduce, np.multiply.accumulate, np.maximum.reduceat,
np.subtract.outer, np.add.at (and the unary ufuncs' at), for NumPy's own ufuncs and for those
@vectorize makes (Numba's DUFunc has them too), written in the compiled subset.

Each method is an overload of the bound method (np.add.reduce is one object to the registry, as
it compares equal to every other np.add.reduce). The types are NumPy's own: when compiling, the
method is run by NumPy on tiny arrays of the operands' dtypes, which gives the result dtype (add
and multiply of small ints reduce in int64), the identity of an empty reduction, and NumPy's
error for a loop that does not exist (subtract of bools). The element operation is the ufunc
itself, called in compiled code: on numbers in a 1-d fold, and on whole slices with out= along
an axis (reduce and accumulate of n-d arrays go slice by slice, as NumPy's do along an outer
axis)."""
import numpy as np

from ._util import (generated, given, is_array, is_number, kernel_code, overload,
                    register_jitable, types)
from .numpy_axis import _mark_axes, _reduced_last
from .numpy_memory import apart, copy_needed
from .numpy_shape import _norm_axis

AxisError = np.exceptions.AxisError

from . import _BINARY_UFUNCS as BINARY, _UNARY_UFUNCS as UNARY, PENDING_UFUNCS  # noqa: E402

METHODS = ("reduce", "accumulate", "reduceat", "outer", "at")


def _dtype(t):
    return np.dtype((t.dtype if is_array(t) else t).name)


def _sample(t, n=1):
    """A NumPy operand of t's kind for probing: an array of n ones, or a Python number for a
    weak scalar (NEP 50: it takes the other operand's type)."""
    if is_array(t):
        return np.ones(n, _dtype(t))
    if types.is_weak(t):
        return {"b": True, "i": 1, "u": 1, "f": 1.5, "c": 1.5 + 1j}[_dtype(t).kind]
    return _dtype(t).type(1)


def _probe(name, fn):
    """What NumPy gives for fn(); its error, raised as a TypeError naming the method (a
    TypingError at the call's line), when it refuses the types."""
    try:
        return fn()
    except Exception as exc:   # noqa: BLE001 - NumPy's own refusal, passed on
        raise TypeError(f"{name}: {exc}") from None


def _dtype_arg(dtype):
    """The dtype= given (a scalar type or dtype constant), or None."""
    if not given(dtype):
        return None
    if isinstance(dtype, types.DType):
        return np.dtype(dtype.dtype.name)
    if isinstance(dtype, types.NumberClass):
        return np.dtype(dtype.instance_type.name)
    if isinstance(dtype, types.StringLiteral):
        return np.dtype(dtype.literal_value)
    raise TypeError(f"dtype= takes a NumPy type or dtype, not {dtype}")


def _gen(source, env):
    return generated("impl", source, dict(env, _norm_axis=_norm_axis, AxisError=AxisError,
                                          _kernel_code=kernel_code, _copy_needed=copy_needed,
                                          _apart=apart))


def _jitables(source, env):
    """The functions source defines, each callable from compiled code (they share env)."""
    scope = dict(env, np=np, _norm_axis=_norm_axis, AxisError=AxisError)
    exec(compile(source, f"<pyjit.lib ufunc {env['NAME']}>", "exec"), scope)  # noqa: S102
    for name, value in list(scope.items()):
        if callable(value) and getattr(value, "__module__", None) is None and \
                name.startswith("_u_"):
            register_jitable(value)
    return scope


# The folds every method uses, generated per ufunc (U, its cast R and identity as globals).
_HELPERS = '''
def _u_fold1(v, start, stop, acc):
    for i in range(start, stop):
        acc = R(U(acc, R(v[i])))
    return acc


def _u_reduce1(v, initial, has_initial):
    n = v.shape[0]
    if has_initial:
        return _u_fold1(v, 0, n, R(initial))
    if n == 0:
        if HAS_IDENTITY:
            return R(IDENTITY)
        raise ValueError(NO_IDENTITY)
    return _u_fold1(v, 1, n, R(v[0]))


def _u_reduce_first(v, initial, has_initial):
    """Reduces v (at least 2-d) along its axis 0, slice by slice into a new array."""
    n = v.shape[0]
    res = np.empty(v.shape[1:], R)
    if has_initial:
        res[...] = R(initial)
        for k in range(n):
            U(res, v[k], out=res)
        return res
    if n == 0:
        if HAS_IDENTITY:
            res[...] = R(IDENTITY)
            return res
        raise ValueError(NO_IDENTITY)
    res[...] = v[0]
    for k in range(1, n):
        U(res, v[k], out=res)
    return res
'''


def _helpers(ufunc, name, R):
    """The generated folds of ufunc for the result dtype R (cached per pair)."""
    key = (name, id(ufunc), R)
    scope = _HELPER_CACHE.get(key)
    if scope is None:
        ident = None
        try:
            ident = ufunc.reduce(np.zeros(0, R), dtype=R)
        except Exception:   # noqa: BLE001 - no identity: an empty reduction raises
            pass
        env = {"U": ufunc, "R": R.type, "NAME": name, "HAS_IDENTITY": ident is not None,
               "IDENTITY": ident.item() if ident is not None else 0,
               "NO_IDENTITY": f"zero-size array to reduction operation {name} which has no "
                              "identity"}
        scope = _HELPER_CACHE[key] = (_jitables(_HELPERS, env), env)
    return scope


_HELPER_CACHE = {}


def _is_int(t):
    return isinstance(t, (types.Integer, types.Boolean))


def _reorderable(ufunc):
    try:
        ufunc.reduce(np.ones((1, 1)), axis=(0, 1))
        return True
    except ValueError:
        return False
    except Exception:   # noqa: BLE001 - a loop missing for float64: judged by the identity
        return ufunc.identity is not None


# ---- reduce ----

_REDUCE_SIG = "array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True"


def _reduce_typing(ufunc, name):
    def typing(array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
        from ._util import constant_flag
        if not is_array(array):
            return None
        if isinstance(axis, types.Omitted) or not isinstance(axis, types.Type):
            axis = types.int64   # the default, 0
        masked = is_array(where) and isinstance(where.dtype, types.Boolean)
        if isinstance(where, types.Type) and given(where) and not masked and not (
                isinstance(where, types.BooleanLiteral) and where.literal_value):
            raise TypeError(f"{name}.reduce: where= takes an array of bools in compiled code, "
                            f"not {where}")
        dt = _dtype_arg(dtype)
        R = _probe(f"{name}.reduce", lambda: ufunc.reduce(np.ones(1, _dtype(array)),
                                                          dtype=dt)).dtype
        keep = constant_flag(keepdims, "keepdims")
        scope, env = _helpers(ufunc, name, R)
        nd = array.ndim
        has_initial = given(initial)
        src = [f"def impl({_REDUCE_SIG}):"]
        if masked:   # the items outside the mask: the identity, or initial for max and min
            if ufunc.identity is not None:
                fill = repr(ufunc.identity)
            elif has_initial and name in ("maximum", "minimum", "fmax", "fmin"):
                fill = "initial"
            else:
                raise ValueError(f"reduction operation '{name}' does not have an identity, so "
                                 "to use a where mask one has to specify 'initial'")
            src.append("    array = np.where(np.broadcast_to(where, array.shape), array, "
                       f"_DT({fill}))")
            scope = dict(scope, _DT=array.dtype)
        init = "initial, True" if has_initial else "0, False"
        if isinstance(axis, types.NoneType) or (isinstance(axis, types.Omitted) and
                                                axis.value is None):
            if nd > 1 and not _reorderable(ufunc):
                src.append(f"    raise ValueError(\"reduction operation '{name}' is not "
                           "reorderable, so at most one axis may be specified\")")
            src.append(f"    r = _u_reduce1(np.ravel(array), {init})")
            shape = "(" + "1, " * nd + ")"
            result = f"np.full({shape}, r)" if keep else "r"
        elif _is_int(axis) or isinstance(axis, types.Omitted):
            if nd == 0:
                src.append("    r = R(array[()])")
                result = "np.full((), r)" if keep else "r"
            elif nd == 1:
                src += ["    _norm_axis(axis, 1)", f"    r = _u_reduce1(array, {init})"]
                result = "np.full((1,), r)" if keep else "r"
            else:
                src += [f"    ax = _norm_axis(axis, {nd})",
                        f"    r = _u_reduce_first(np.moveaxis(array, ax, 0), {init})"]
                shape = "".join(f"1 if ax == {d} else array.shape[{d}], " for d in range(nd))
                result = f"r.reshape(({shape}))" if keep else "r"
        elif isinstance(axis, types.Tuple) and all(_is_int(t) for t in axis.types):
            src += _tuple_axes_source(len(axis.types), nd, name, ufunc, init)
            shape = "".join(f"1 if red[{d}] else array.shape[{d}], " for d in range(nd))
            result = f"np.full(({shape}), r)" if keep else "r"
            if keep and len(axis.types) < nd:
                result = f"np.ascontiguousarray(r).reshape(({shape}))"
        else:
            raise TypeError(f"{name}.reduce: axis= takes an int, a tuple of ints or None, "
                            f"not {axis}")
        if given(out):
            if not is_array(out):
                raise TypeError(f"{name}.reduce: out= must be an array, not {out}")
            src += [f"    res = {result}", "    out[...] = res", "    return out"]
        else:
            src.append(f"    return {result}")
        return _gen("\n".join(src) + "\n", scope)
    return typing


def _tuple_axes_source(k, nd, name, ufunc, init):
    """Reduces over the k axes of the tuple axis: those moved last into one (a copy), then
    folded as one axis; red[d] tells whether axis d is reduced."""
    lines = [f"    red = np.zeros({nd}, np.bool_)",
             *_mark_axes(k, nd)]
    if k > 1 and not _reorderable(ufunc):
        lines.append(f"    raise ValueError(\"reduction operation '{name}' is not reorderable, "
                     "so at most one axis may be specified\")")
    kept = nd - k
    lines += _reduced_last("array", nd, kept)
    if kept == 0:
        lines.append(f"    r = _u_reduce1(np.ravel(t), {init})")
    else:
        shape = "".join(f"t.shape[{d}], " for d in range(kept))
        lines += [f"    flat = np.ascontiguousarray(t).reshape(({shape}m,))",
                  f"    r = _u_reduce_first(np.moveaxis(flat, {kept}, 0), {init})"
                  if kept >= 1 else ""]
    return lines


# ---- accumulate ----

def _accumulate_typing(ufunc, name):
    def typing(array, axis=0, dtype=None, out=None):
        if not is_array(array):
            return None
        if array.ndim == 0:
            raise TypeError(f"{name}.accumulate: cannot accumulate on a scalar")
        dt = _dtype_arg(dtype)
        R = _probe(f"{name}.accumulate", lambda: ufunc.accumulate(np.ones(1, _dtype(array)),
                                                                  dtype=dt)).dtype
        scope, env = _helpers(ufunc, name, R)
        nd = array.ndim
        if isinstance(axis, types.Omitted) or not isinstance(axis, types.Type):
            axis = types.int64   # the default, 0
        if isinstance(axis, types.NoneType) and nd > 1:
            raise TypeError(f"{name}.accumulate: accumulate does not allow multiple axes "
                            "(axis=None of a 2-d array or more)")
        if not (_is_int(axis) or isinstance(axis, (types.Omitted, types.NoneType))):
            raise TypeError(f"{name}.accumulate: axis= takes an int, not {axis}")
        axis_expr = "0" if isinstance(axis, (types.Omitted, types.NoneType)) else "axis"
        src = ["def impl(array, axis=0, dtype=None, out=None):",
               f"    ax = _norm_axis({axis_expr}, {nd})"]
        if given(out):
            if not is_array(out):
                raise TypeError(f"{name}.accumulate: out= must be an array, not {out}")
            src += ["    if out.shape != array.shape:",
                    "        raise ValueError('accumulate: out has the wrong shape')",
                    # NumPy reads an array sharing out's memory (but not its very items) from
                    # a copy, which GPU kernel code cannot make (numpy_ufuncs.py says more)
                    "    if _kernel_code():",
                    "        if _copy_needed(array, out):",
                    f"            raise ValueError('{name}.accumulate: out= shares memory with "
                    "the array otherwise than item for item, which NumPy reads from a copy; GPU "
                    "kernel code cannot allocate one: give out= memory of its own')",
                    "    else:",
                    "        array = _apart(array, out)",
                    "    res = out"]
        else:
            src.append("    res = np.empty(array.shape, R)")
        if nd == 1:
            src += ["    n = array.shape[0]",
                    "    if n > 0:",
                    "        acc = R(array[0])",
                    "        res[0] = acc",
                    "        for i in range(1, n):",
                    "            acc = R(U(acc, R(array[i])))",
                    "            res[i] = acc"]
        else:
            src += ["    v = np.moveaxis(array, ax, 0)",
                    "    w = np.moveaxis(res, ax, 0)",
                    "    if v.shape[0] > 0:",
                    "        w0 = w[0]",
                    "        w0[...] = v[0]",
                    "        for k in range(1, v.shape[0]):",
                    "            U(w[k - 1], v[k], out=w[k])"]
        src.append("    return res")
        return _gen("\n".join(src) + "\n", scope)
    return typing


# ---- reduceat ----

def _reduceat_typing(ufunc, name):
    def typing(array, indices, axis=0, dtype=None, out=None):
        if not is_array(array):
            return None
        if array.ndim == 0:
            raise TypeError(f"{name}.reduceat: cannot reduceat a 0-d array")
        if not (is_array(indices) and indices.ndim == 1 and _is_int(indices.dtype)) and \
                not (isinstance(indices, ((types.UniTuple, types.Tuple), types.List))):
            raise TypeError(f"{name}.reduceat: indices must be a 1-d array of ints, not "
                            f"{indices}")
        if given(out):
            raise TypeError(f"{name}.reduceat: out= is not supported in compiled code")
        dt = _dtype_arg(dtype)
        R = _probe(f"{name}.reduceat", lambda: ufunc.reduceat(np.ones(2, _dtype(array)),
                                                              [0], dtype=dt)).dtype
        scope, env = _helpers(ufunc, name, R)
        nd = array.ndim
        src = ["def impl(array, indices, axis=0, dtype=None, out=None):",
               "    idx = np.asarray(indices)",
               f"    ax = _norm_axis(axis, {nd})",
               "    n = array.shape[ax]",
               "    m = idx.shape[0]",
               "    for i in range(m):",
               "        if idx[i] < 0 or idx[i] >= n:",
               f"            raise IndexError('index ' + str(idx[i]) + ' out-of-bounds in "
               f"{name}.reduceat [0, ' + str(n) + ')')"]
        if nd == 1:
            src += ["    res = np.empty(m, R)",
                    "    for i in range(m):",
                    "        s = idx[i]",
                    "        e = idx[i + 1] if i + 1 < m else n",
                    "        res[i] = _u_fold1(array, s + 1, e, R(array[s])) if s < e "
                    "else R(array[s])"]
        else:
            shape = "".join(f"m if {d} == ax else array.shape[{d}], " for d in range(nd))
            src += [f"    res = np.empty(({shape}), R)",
                    "    v = np.moveaxis(array, ax, 0)",
                    "    w = np.moveaxis(res, ax, 0)",
                    "    for i in range(m):",
                    "        s = idx[i]",
                    "        e = idx[i + 1] if i + 1 < m else n",
                    "        wi = w[i]",
                    "        wi[...] = v[s]",
                    "        for k in range(s + 1, e):",
                    "            U(wi, v[k], out=wi)"]
        src.append("    return res")
        return _gen("\n".join(src) + "\n", scope)
    return typing


# ---- outer ----

def _outer_typing(ufunc, name):
    def typing(A, B, out=None):
        if not all(is_array(t) or is_number(t) for t in (A, B)):
            return None
        has_out = given(out)
        if isinstance(out, types.BaseTuple) and len(out) == 1 and is_array(out[0]):
            out = out[0]     # out=(o,), NumPy's tuple of the one output
            arg = "out[0]"
        else:
            arg = "out"
        if has_out and not is_array(out):
            raise TypeError(f"{name}.outer: out= must be an array, not {out}")
        if has_out:
            nd = (A.ndim if is_array(A) else 0) + (B.ndim if is_array(B) else 0)
            if out.ndim != nd:
                raise TypeError(f"{name}.outer: out= has {out.ndim} dimensions where the "
                                f"result has {nd}")
            _probe(f"{name}.outer", lambda: ufunc.outer(
                _sample(A), _sample(B), out=np.ones((1,) * nd, _dtype(out))))
        else:
            _probe(f"{name}.outer", lambda: ufunc.outer(_sample(A), _sample(B)))
        call = f"U(va, B, out={arg})" if has_out else "U(va, B)"
        if not is_array(A) or not is_array(B) or A.ndim == 0 or B.ndim == 0:
            return _gen(f"def impl(A, B, out=None):\n    va = A\n    return {call}\n",
                        {"U": ufunc})
        na, nb = A.ndim, B.ndim
        shape = "".join(f"A.shape[{d}], " for d in range(na)) + "1, " * nb
        strides = "".join(f"A.strides[{d}], " for d in range(na)) + "0, " * nb
        src = ("def impl(A, B, out=None):\n"
               f"    va = as_strided(A, ({shape}), ({strides}))\n"
               f"    return {call}\n")
        from numpy.lib.stride_tricks import as_strided
        return _gen(src, {"U": ufunc, "as_strided": as_strided})
    return typing


# ---- at ----

def _at_typing(ufunc, name, nin):
    def typing(a, indices, b=None):
        if not is_array(a):
            return None
        has_b = given(b)
        if nin == 2 and not has_b:
            raise TypeError(f"{name}.at: second operand needed for ufunc")
        if nin == 1 and has_b:
            raise TypeError(f"{name}.at: second operand provided when ufunc is unary")
        if has_b and not (is_array(b) or is_number(b)):
            raise TypeError(f"{name}.at: b must be a number or an array, not {b}")
        ops = (np.ones(2, _dtype(a)), [0]) + ((_sample(b),) if has_b else ())
        _probe(f"{name}.at", lambda: ufunc.at(*ops))
        call = "U(a.flat[p], x)" if has_b else "U(a.flat[p])"
        one = "U(a[j], x)" if has_b else "U(a[j])"
        fast = a.ndim == 1 and (_is_int(indices) or (is_array(indices) and
                                                      _is_int(indices.dtype)))
        src = ["def impl(a, indices, b=None):"]
        if fast and _is_int(indices):
            src += ["    n = a.shape[0]",
                    "    j = indices + n if indices < 0 else indices",
                    "    if j < 0 or j >= n:",
                    "        raise IndexError('index ' + str(indices) + ' is out of bounds for "
                    "axis 0 with size ' + str(n))"]
            if has_b and is_array(b) and b.ndim > 0:   # the selection is one element
                src += ["    raise ValueError('array is not broadcastable to correct shape')"]
            elif has_b:
                src += ["    x = np.asarray(b)[()]", f"    a[j] = {one}"]
            else:
                src += [f"    a[j] = {one}"]
        elif fast:
            src += ["    n = a.shape[0]",
                    "    ii = np.ravel(indices)"]
            if has_b:
                src += ["    bb = np.ravel(np.broadcast_to(b, indices.shape))"]
            src += ["    for k in range(ii.shape[0]):",
                    "        j = ii[k]",
                    "        if j < 0:",
                    "            j += n",
                    "        if j < 0 or j >= n:",
                    "            raise IndexError('index ' + str(ii[k]) + ' is out of bounds for "
                    "axis 0 with size ' + str(n))"]
            src += ["        x = bb[k]"] if has_b else []
            src += [f"        a[j] = {one}"]
        else:
            # any index NumPy takes: the flat positions it selects, then one update each
            src += ["    pos = np.arange(a.size).reshape(a.shape)[indices]",
                    "    pa = np.asarray(pos)",
                    "    pp = np.ravel(pa)"]
            if has_b:
                src += ["    bb = np.ravel(np.broadcast_to(b, pa.shape))"]
            src += ["    for k in range(pp.shape[0]):",
                    "        p = pp[k]"]
            src += ["        x = bb[k]"] if has_b else []
            src += [f"        a.flat[p] = {call}"]
        return _gen("\n".join(src) + "\n", {"U": ufunc})
    return typing


_TYPINGS = {"reduce": _reduce_typing, "accumulate": _accumulate_typing,
            "reduceat": _reduceat_typing, "outer": _outer_typing}


def register(ufunc, name, nin):
    """Registers the methods of ufunc (a np.ufunc, or a DUFunc) for compiled code."""
    if nin == 2:
        for method, make in _TYPINGS.items():
            overload(getattr(ufunc, method), strict=False)(make(ufunc, name))
    if nin in (1, 2):
        overload(ufunc.at, strict=False)(_at_typing(ufunc, name, nin))


for _name in BINARY:
    register(getattr(np, _name), _name, 2)
for _name in UNARY:
    register(getattr(np, _name), _name, 1)
while PENDING_UFUNCS:   # @vectorize ufuncs made before this module was imported
    register(*PENDING_UFUNCS.pop())
