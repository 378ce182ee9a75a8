"""Array creation written in the compiled subset: np.eye, identity, diag, full_like, copy, tri,
triu, tril, outer, trace, cross, meshgrid, vander, logspace, geomspace, ascontiguousarray,
asfortranarray, fill_diagonal. Semantics and messages are NumPy's."""
import numpy as np

from ._util import (constant_flag, dtype_arg, generated, given, is_array, is_number, overload, promote,
                    register_jitable, types, value_or)


def _dtype_or(dtype, default):
    """The scalar type a dtype= argument names (a types.DType, or the default's Python or NumPy
    class when it was left out), default when it is None; None if it names none."""
    if not given(dtype):
        return default
    if isinstance(dtype, types.DType):
        return dtype.dtype
    if isinstance(dtype, types.Scalar):
        return dtype
    try:
        return types._as_type(dtype)
    except TypeError:
        return None


@overload(np.eye)
def _eye(N, M=None, k=0, dtype=None):
    dt = _dtype_or(dtype, types.float64)
    if dt is None or not is_number(N) or not (M is None or is_number(M) or not given(M)):
        return None

    def impl(N, M=None, k=0, dtype=None):
        m = value_or(M, N)
        out = np.zeros((N, m), dt)
        for i in range(max(0, -k), min(N, m - k)):
            out[i, i + k] = 1
        return out
    return impl


@overload(np.identity)
def _identity(n, dtype=None):
    dt = _dtype_or(dtype, types.float64)
    if dt is None or not is_number(n):
        return None

    def impl(n, dtype=None):
        out = np.zeros((n, n), dt)
        for i in range(n):
            out[i, i] = 1
        return out
    return impl


@overload(np.diag)
def _diag(v, k=0):
    if not is_array(v) or v.ndim not in (1, 2):
        return None
    if v.ndim == 1:
        def impl(v, k=0):
            n = v.size + abs(k)
            out = np.zeros((n, n), v.dtype)
            for i in range(v.size):
                if k >= 0:
                    out[i, i + k] = v[i]
                else:
                    out[i - k, i] = v[i]
            return out
        return impl

    def impl2(v, k=0):
        rows, cols = v.shape
        lo, hi = max(0, -k), min(rows, cols - k)
        out = np.empty(max(hi - lo, 0), v.dtype)
        for i in range(lo, hi):
            out[i - lo] = v[i, i + k]
        return out
    return impl2


@overload(np.full_like)
def _full_like(a, fill_value, dtype=None):
    if not is_array(a) or not is_number(fill_value):
        return None
    dt = _dtype_or(dtype, a.dtype)
    if dt is None:
        return None

    def impl(a, fill_value, dtype=None):
        out = np.empty(a.shape, dt)
        out[...] = fill_value
        return out
    return impl


@overload(np.copy)
def _copy(a):
    if is_array(a):
        return lambda a: a.copy()
    if is_number(a) or isinstance(a, types.Boolean):   # a 0-d array of the number, as NumPy's
        return lambda a: np.array(a)
    return None


@overload(np.tri)
def _tri(N, M=None, k=0, dtype=None):
    dt = _dtype_or(dtype, types.float64)
    if dt is None or not is_number(N):
        return None

    def impl(N, M=None, k=0, dtype=None):
        m = value_or(M, N)
        out = np.zeros((N, m), dt)
        for i in range(N):
            for j in range(min(m, max(i + k + 1, 0))):
                out[i, j] = 1
        return out
    return impl


@register_jitable
def _zero_triangle(out, k, lower):
    """out with the items above (lower) or below the k-th diagonal of its last two axes set
    to zero."""
    rows, cols = out.shape[-2], out.shape[-1]
    for i in range(rows):
        for j in range(cols):
            if (j > i + k) if lower else (j < i + k):
                out[..., i, j] = 0
    return out


def _triangle(m, k, lower):
    """np.tril/np.triu: of a 2-d array, or of the last two axes of each matrix of a stack; a
    1-d array is first repeated into a square, as NumPy broadcasts it."""
    if not is_array(m) or m.ndim < 1:
        return None
    dt = m.dtype

    if m.ndim == 1:
        def square(m, k=0):
            out = np.empty((m.shape[0], m.shape[0]), dt)
            out[:] = m
            return _zero_triangle(out, k, lower)
        return square
    return lambda m, k=0: _zero_triangle(m.copy(), k, lower)


@overload(np.tril)
def _tril(m, k=0):
    return _triangle(m, k, True)


@overload(np.triu)
def _triu(m, k=0):
    return _triangle(m, k, False)


@overload(np.outer)
def _outer(a, b):
    if not (is_array(a) or is_number(a)) or not (is_array(b) or is_number(b)):
        return None
    dt = promote(getattr(a, "dtype", a), getattr(b, "dtype", b))

    def impl(a, b):
        x = np.asarray(a).ravel()
        y = np.asarray(b).ravel()
        out = np.empty((x.size, y.size), dt)
        for i in range(x.size):
            for j in range(y.size):
                out[i, j] = x[i] * y[j]
        return out
    return impl


@overload(np.trace)
def _trace(a, offset=0):
    if not is_array(a) or a.ndim != 2:
        return None
    dt = a.dtype
    if isinstance(dt, types.Boolean) or (isinstance(dt, types.Integer) and dt.signed):
        dt = types.int64
    elif isinstance(dt, types.Integer):
        dt = types.uint64

    def impl(a, offset=0):
        rows, cols = a.shape
        s = dt(0)
        for i in range(max(0, -offset), min(rows, cols - offset)):
            s += a[i, i + offset]
        return s
    return impl


@register_jitable
def _cross3(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@overload(np.cross)
def _cross(a, b):
    """Cross products of 3-vectors: two vectors, or the rows of (n, 3) arrays (a vector
    beside such an array is crossed with each row, as NumPy broadcasts)."""
    if not is_array(a) or not is_array(b) or a.ndim not in (1, 2) or b.ndim not in (1, 2):
        return None
    dt = promote(a.dtype, b.dtype)
    if a.ndim == 1 and b.ndim == 1:
        def impl(a, b):
            if a.size != 3 or b.size != 3:
                raise ValueError("np.cross in compiled code takes 3-vectors")
            out = np.empty(3, dt)
            _cross3(a, b, out)
            return out
        return impl
    a_rows, b_rows = a.ndim == 2, b.ndim == 2

    def impl_rows(a, b):
        if a.shape[a.ndim - 1] != 3 or b.shape[b.ndim - 1] != 3:
            raise ValueError("np.cross in compiled code takes 3-vectors")
        n = a.shape[0] if a_rows else b.shape[0]
        if a_rows and b_rows and a.shape[0] != b.shape[0]:
            raise ValueError("shape mismatch: objects cannot be broadcast to a single shape")
        out = np.empty((n, 3), dt)
        for i in range(n):
            _cross3(a[i] if a_rows else a, b[i] if b_rows else b, out[i])
        return out
    return impl_rows


@register_jitable
def _grid(x, y, ij):
    nx, ny = x.size, y.size
    shape = (nx, ny) if ij else (ny, nx)
    gx = np.empty(shape, x.dtype)
    gy = np.empty(shape, y.dtype)
    for i in range(shape[0]):
        for j in range(shape[1]):
            gx[i, j] = x[i] if ij else x[j]
            gy[i, j] = y[j] if ij else y[i]
    return gx, gy


@overload(np.meshgrid)
def _meshgrid(x, y, indexing="xy"):
    if not is_array(x) or not is_array(y):
        return None
    how = getattr(indexing, "literal_value", indexing)
    if how not in ("xy", "ij"):
        return None
    ij = how == "ij"

    def impl(x, y, indexing="xy"):
        return _grid(x.ravel(), y.ravel(), ij)
    return impl


def _meshgrid_n(*xi, indexing="xy"):
    """np.meshgrid of one array or of three and more (two are _meshgrid's): a tuple of n-d
    arrays, the first two axes swapped for indexing='xy', as NumPy's."""
    n = len(xi)
    if n == 2 or not n or not all(is_array(t) for t in xi):
        return None
    how = getattr(indexing, "literal_value", indexing)
    if how not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    axis = list(range(n))
    if how == "xy" and n > 1:
        axis[0], axis[1] = 1, 0
    order = sorted(range(n), key=lambda k: axis[k])   # the input along each output axis
    shape = "".join(f"x{order[d]}.size, " for d in range(n))
    names = ", ".join(f"x{k}" for k in range(n))
    lines = [f"def impl({names}, indexing='xy'):"]
    lines += [f"    f{k} = np.ravel(x{k})" for k in range(n)]
    lines += [f"    o{k} = np.empty(({shape}), x{k}.dtype)" for k in range(n)]
    lines.append(f"    for idx in np.ndindex(({shape})):")
    lines += [f"        o{k}[idx] = f{k}[idx[{axis[k]}]]" for k in range(n)]
    lines.append("    return (" + "".join(f"o{k}, " for k in range(n)) + ")")
    return generated("impl", "\n".join(lines) + "\n", {})


overload(np.meshgrid, strict=False)(_meshgrid_n)


def _contiguous_of(a, dtype):
    """The array type and element type np.ascontiguousarray/asfortranarray start from: a 0-d
    array or a number becomes 1-d, as NumPy's; None where a is neither."""
    if not (is_array(a) or is_number(a)):
        return None
    dt = dtype_arg(dtype) if given(dtype) else (a.dtype if is_array(a) else a)
    return dt


@overload(np.ascontiguousarray)
def _ascontiguousarray(a, dtype=None):
    """a itself where it is C-contiguous of the dtype asked, else a C-ordered copy; 0-d arrays
    and numbers become 1-d, as NumPy's."""
    dt = _contiguous_of(a, dtype)
    if dt is None:
        return None
    if is_number(a) or a.ndim == 0:
        return lambda a, dtype=None: np.atleast_1d(np.asarray(a)).astype(dt)
    if a.layout == "C" and dt == a.dtype:
        return lambda a, dtype=None: a      # NumPy returns the array itself
    if dt == a.dtype:
        return lambda a, dtype=None: a.copy()
    return lambda a, dtype=None: a.astype(dt)


@overload(np.asfortranarray)
def _asfortranarray(a, dtype=None):
    """A copy in Fortran order (the transpose of a C-ordered array of the reversed shape), or a
    itself where it is Fortran-contiguous of the dtype asked."""
    dt = _contiguous_of(a, dtype)
    if dt is None:
        return None
    if is_number(a) or a.ndim == 0:
        return lambda a, dtype=None: np.atleast_1d(np.asarray(a)).astype(dt)
    if (a.layout == "F" or a.ndim == 1 and a.layout == "C") and dt == a.dtype:
        return lambda a, dtype=None: a

    def impl(a, dtype=None):
        out = np.empty(a.shape[::-1], dtype=dt).T
        out[...] = a
        return out
    return impl


@overload(np.vander)
def _vander(x, N=None, increasing=False):
    if not is_array(x) or x.ndim != 1:
        return None
    rt = promote(x.dtype, types.int64)

    def impl(x, N=None, increasing=False):
        n = value_or(N, x.size)
        if n < 0:
            raise ValueError("negative dimensions are not allowed")
        out = np.empty((x.size, n), dtype=rt)
        for i in range(x.size):
            p = rt(1)
            for k in range(n):
                out[i, k if increasing else n - 1 - k] = p
                p = p * rt(x[i])
        return out
    return impl


@register_jitable
def _spaced(start, stop, num, endpoint):
    """np.linspace's values of float start and stop, with its arithmetic."""
    if num < 0:
        raise ValueError("Number of samples, " + str(num) + ", must be non-negative.")
    div = num - 1 if endpoint else num
    step = (stop - start) / div if div > 0 else stop - start
    y = np.empty(num, dtype=np.float64)
    for i in range(num):
        y[i] = i * step + start
    if endpoint and num > 1:
        y[num - 1] = stop
    return y


@overload(np.logspace)
def _logspace(start, stop, num=50, endpoint=True, base=10.0):
    if not (is_number(start) and is_number(stop) and (is_number(base) or base == 10.0)):
        return None

    def impl(start, stop, num=50, endpoint=True, base=10.0):
        y = _spaced(float(start), float(stop), num, endpoint)
        for i in range(y.size):
            y[i] = np.power(float(base), y[i])
        return y
    return impl


@overload(np.geomspace)
def _geomspace(start, stop, num=50, endpoint=True):
    if not (is_number(start) and is_number(stop)) or isinstance(start, types.Complex) or \
            isinstance(stop, types.Complex):
        return None

    def impl(start, stop, num=50, endpoint=True):
        first, last = float(start), float(stop)
        if first == 0 or last == 0:
            raise ValueError("Geometric sequence cannot include zero")
        sign = 1.0
        if first < 0 and last < 0:
            first, last, sign = -first, -last, -1.0
        y = np.logspace(np.log10(first), np.log10(last), num, endpoint)
        if num > 0:
            y[0] = first
            if num > 1 and endpoint:
                y[num - 1] = last
        return y * sign
    return impl


@overload(np.fill_diagonal)
def _fill_diagonal(a, val, wrap=False):
    """a's main diagonal set to val (an array of values is cycled, as NumPy's a.flat), in
    place; a tall 2-d array's diagonal restarts every columns + 1 rows when wrap is true."""
    if not is_array(a) or a.ndim < 2 or not (is_number(val) or is_array(val)):
        return None
    dt = a.dtype
    values = (lambda val: val.ravel()) if is_array(val) else (lambda val: np.full(1, val))
    values = register_jitable(values)
    contiguous = a.layout == "C"     # else the diagonal is set in a copy, copied back

    def impl(a, val, wrap=False):
        for d in range(1, a.ndim):
            if a.ndim > 2 and a.shape[d] != a.shape[0]:
                raise ValueError("All dimensions of input must be of equal length")
        v = values(val)
        flat = a.reshape(a.size) if contiguous else a.ravel()
        step = 1
        stride = 1
        for d in range(a.ndim - 1, 0, -1):
            stride *= a.shape[d]
            step += stride
        end = a.size
        if a.ndim == 2 and not wrap:
            end = min(a.size, a.shape[1] * a.shape[1])
        k = 0
        for i in range(0, end, step):
            flat[i] = dt(v[k % v.size])
            k += 1
        if not contiguous:
            a[...] = flat.reshape(a.shape)
    return impl


@overload(np.linspace)
def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """np.linspace with endpoint=, retstep= or dtype= (without them the builtin serves): NumPy's
    steps (y = arange * step + start, the last point set to stop; a zero step divides first),
    computed in the inexact type of start and stop, then floored for an int dtype."""
    if not (is_number(start) and is_number(stop)):
        return None
    options = (endpoint, retstep, dtype)
    if not any(isinstance(o, types.Type) and given(o) for o in options):
        return None
    if isinstance(axis, types.Type) and given(axis):
        raise TypeError(f"np.linspace() of scalars takes axis=0 only in compiled code, not {axis}")
    weak = []
    for t in (start, stop):
        weak.append({"b": 0.0, "i": 0.0, "u": 0.0, "f": 0.0, "c": 0j}[t.kind]
                    if types.is_weak(t) else np.dtype(t.name))
    inexact = np.result_type(*weak, 0.0)
    dt = types._as_type(inexact)
    rt = types._as_type(dtype.dtype) if given(dtype) and hasattr(dtype, "dtype") else dt
    whole = isinstance(rt, (types.Integer, types.Boolean))
    with_step = constant_flag(retstep, "retstep")

    @register_jitable
    def points(start, stop, num, endpoint):
        if num < 0:
            raise ValueError("Number of samples, " + str(num) + ", must be non-negative.")
        div = num - 1 if endpoint else num
        delta = dt(stop) - dt(start)
        y = np.arange(num).astype(dt)
        step = dt(np.nan)
        if div > 0:
            step = dt(delta / div)
            if step == 0:
                y = y / dt(div) * delta
            else:
                y = y * step
        else:
            y = y * delta
        y = y + dt(start)
        if endpoint and num > 1:
            y[-1] = stop
        if whole:
            y = np.floor(y)
        return y.astype(rt), step

    if with_step:
        def stepped(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
            return points(start, stop, num, endpoint)
        return stepped

    def impl(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
        return points(start, stop, num, endpoint)[0]
    return impl


# ---- np.float64(array) and the other scalar types called on sequences ------------------------

_SCALAR_TYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float32", "float64", "complex64", "complex128")


def _convert_sequence(name):
    """np.<name>(x) of an array, list or tuple: an array of that type (a copy converted as
    astype converts, as NumPy's and Numba's); numbers stay the builtin's."""
    dt = getattr(np, name)

    def typer(x):
        if not isinstance(x, (types.Array, types.List, types.Tuple)):
            return None
        if is_array(x):
            return lambda x: x.astype(dt)
        return lambda x: np.asarray(x).astype(dt)
    overload(dt)(typer)


for _name in _SCALAR_TYPES:
    _convert_sequence(_name)
