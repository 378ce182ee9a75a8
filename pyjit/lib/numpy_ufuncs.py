"""NumPy's ufuncs by name (np.add, np.floor_divide, np.fmax, np.logical_and, np.gcd, ...), and
np.clip and np.round/around, written in the compiled subset.

Each takes scalars or arrays, broadcasts as NumPy does, and takes out=. The types are NumPy's
own: the loop a call runs is the one `ufunc.resolve_dtypes` picks for the operands' dtypes (a
Python-number operand beside arrays counts as weak, NEP 50), so int8 + int8 stays int8 and
true_divide of ints is float64. Each element is computed by a small scalar kernel written here
with NumPy's error model: no exception, division by zero gives inf, nan or 0.

The loop over the broadcast shape is generated per combination of operand dimensions: the output
has the largest of them, each operand is indexed by the trailing output indices, times 0 along
its axes of length 1."""
import cmath
import math

import numpy as np

from ._util import (generated, is_array, is_number, kernel_code, overload, register_jitable,
                    types)
from .numpy_datetime import datetime_binary
from .numpy_memory import apart, copy_needed

_OPTIONS = {"boundscheck": False}   # every generated index is within the broadcast shape


# ---- the scalar kernels: NumPy's error model (no exception) ----

@register_jitable
def _add(a, b):
    return a + b


@register_jitable
def _bool_add(a, b):
    return a or b


@register_jitable
def _subtract(a, b):
    return a - b


@register_jitable
def _multiply(a, b):
    return a * b


@register_jitable
def _bool_multiply(a, b):
    return a and b


@register_jitable
def _divide(a, b):
    if b == 0:
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


@register_jitable
def _int_floor_divide(a, b):
    if b == 0:
        return a - a
    return a // b


@register_jitable
def _float_floor_divide(a, b):
    if b == 0:
        return _divide(a, b)
    if a != a or b != b:
        return a + b
    return a // b


@register_jitable
def _int_remainder(a, b):
    if b == 0:
        return a - a
    return a % b


@register_jitable
def _float_remainder(a, b):
    if b == 0 or a != a or b != b or math.isinf(a):
        return math.nan * a
    if math.isinf(b):
        return a if (a >= 0) == (b > 0) or a == 0 else b
    return a % b


@register_jitable
def _int_fmod(a, b):
    if b == 0:
        return a - a
    r = abs(a) % abs(b)
    return -r if a < 0 else r


@register_jitable
def _float_fmod(a, b):
    if b == 0 or a != a or b != b or math.isinf(a):
        return math.nan * a
    return math.fmod(a, b)


@register_jitable
def _negative(a):
    return -a


@register_jitable
def _positive(a):
    return +a


@register_jitable
def _square(a):
    return a * a


@register_jitable
def _recip_zero(a):
    return math.copysign(math.inf, a) if a == 0 else 1 / a


@register_jitable
def _int_reciprocal(a):
    if a == 0:
        return a - a
    return 1 // a if abs(a) == 1 else a - a


@register_jitable
def _fmax(a, b):
    """NumPy's definition: where(a >= b, a, b), NaN ignored (so the first of two equal zeros)."""
    if b != b:
        return a
    if a != a:
        return b
    return a if a >= b else b


@register_jitable
def _fmin(a, b):
    if b != b:
        return a
    if a != a:
        return b
    return a if a <= b else b


# Complex numbers order as NumPy orders them: by the real parts, then the imaginary ones, a NaN
# part making the pair unordered (NumPy's CGE and CLE).
@register_jitable
def _complex_ge(x, y):
    return ((x.real > y.real and x.imag == x.imag and y.imag == y.imag) or
            (x.real == y.real and x.imag >= y.imag))


@register_jitable
def _complex_le(x, y):
    return ((x.real < y.real and x.imag == x.imag and y.imag == y.imag) or
            (x.real == y.real and x.imag <= y.imag))


@register_jitable
def _has_nan(x):
    return x.real != x.real or x.imag != x.imag


@register_jitable
def _complex_maximum(a, b):
    return a if _has_nan(a) or _complex_ge(a, b) else b


@register_jitable
def _complex_minimum(a, b):
    return a if _has_nan(a) or _complex_le(a, b) else b


@register_jitable
def _complex_fmax(a, b):
    return a if _has_nan(b) or _complex_ge(a, b) else b


@register_jitable
def _complex_fmin(a, b):
    return a if _has_nan(b) or _complex_le(a, b) else b


@register_jitable
def _int_max(a, b):
    return a if a >= b else b


@register_jitable
def _int_min(a, b):
    return a if a <= b else b


@register_jitable
def _complex_less(a, b):
    """NumPy orders complex numbers by real part, then imaginary part."""
    return a.real < b.real or (a.real == b.real and a.imag < b.imag)


@register_jitable
def _complex_less_equal(a, b):
    return a.real < b.real or (a.real == b.real and a.imag <= b.imag)


@register_jitable
def _complex_greater(a, b):
    return _complex_less(b, a)


@register_jitable
def _complex_greater_equal(a, b):
    return _complex_less_equal(b, a)


@register_jitable
def _copysign(a, b):
    return math.copysign(a, b)


@register_jitable
def _heaviside(a, b):
    if a != a or a == 0:
        return a if a != a else b
    return 1.0 if a > 0 else 0.0


@register_jitable
def _logaddexp(a, b):
    if a == b:
        return a + math.log(2.0)
    hi, lo = (a, b) if a > b else (b, a)
    if hi != hi or lo != lo:
        return hi + lo
    return hi + math.log1p(math.exp(lo - hi))


@register_jitable
def _logaddexp2(a, b):
    if a == b:
        return a + 1.0
    hi, lo = (a, b) if a > b else (b, a)
    if hi != hi or lo != lo:
        return hi + lo
    return hi + math.log1p(2.0 ** (lo - hi)) / math.log(2.0)


@register_jitable
def _logical_and(a, b):
    return a != 0 and b != 0


@register_jitable
def _logical_or(a, b):
    return a != 0 or b != 0


@register_jitable
def _logical_xor(a, b):
    return (a != 0) != (b != 0)


@register_jitable
def _logical_not(a):
    return a == 0


@register_jitable
def _bitwise_and(a, b):
    return a & b


@register_jitable
def _bitwise_or(a, b):
    return a | b


@register_jitable
def _bitwise_xor(a, b):
    return a ^ b


@register_jitable
def _invert(a):
    return ~a


@register_jitable
def _bool_invert(a):
    return not a


@register_jitable
def _left_shift(a, b):
    if b < 0 or b >= _bits(a):   # NumPy: everything shifted out
        return a - a
    return a << b


@register_jitable
def _right_shift(a, b):
    if b < 0 or b >= _bits(a):
        return a - a - (1 if a < 0 else 0)
    return a >> b


def _bits(a):
    pass


@overload(_bits)
def _bits_impl(a):
    n = a.bitwidth
    return lambda a: n


@register_jitable
def _gcd(a, b):
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


@register_jitable
def _lcm(a, b):
    g = _gcd(a, b)
    return a - a if g == 0 else abs(a // g * b)


@register_jitable
def _equal(a, b):
    return a == b


@register_jitable
def _not_equal(a, b):
    return a != b


@register_jitable
def _less(a, b):
    return a < b


@register_jitable
def _less_equal(a, b):
    return a <= b


@register_jitable
def _greater(a, b):
    return a > b


@register_jitable
def _greater_equal(a, b):
    return a >= b


@register_jitable
def _expm1(a):
    return math.expm1(a)


@register_jitable
def _log1p(a):
    if a <= -1:
        return -math.inf if a == -1 else math.nan * a * 0
    return math.log1p(a)


@register_jitable
def _exp2(a):
    if a >= 1024:
        return math.inf
    if a < -1080:
        return 0.0
    return 2.0 ** a


@register_jitable
def _cbrt(a):
    if a == 0 or a != a or math.isinf(a):
        return a
    r = abs(a) ** (1.0 / 3.0)
    r = r - (r * r * r - abs(a)) / (3.0 * r * r)   # one Newton step: correctly rounded nearly always
    return math.copysign(r, a)


@register_jitable
def _deg2rad(a):
    return a * (math.pi / 180.0)


@register_jitable
def _rad2deg(a):
    return a * (180.0 / math.pi)


@register_jitable
def _signbit(a):
    return math.copysign(1.0, a) < 0


@register_jitable
def _rint(a):
    if a != a or math.isinf(a) or abs(a) >= 4503599627370496.0:   # 2**52: already whole
        return a
    r = math.floor(a)
    d = a - r
    if d > 0.5 or (d == 0.5 and r % 2 == 1):
        r += 1
    return math.copysign(r, a) if r == 0 else r + a * 0


@register_jitable
def _arcsinh(a):
    return math.asinh(a)


@register_jitable
def _arccosh(a):
    return math.acosh(a) if a >= 1 else math.nan * a


@register_jitable
def _arctanh(a):
    if a == 1 or a == -1:
        return math.copysign(math.inf, a)
    return math.atanh(a) if -1 < a < 1 else math.nan * a


# the complex loops NumPy's npymath computes: its formulas for reciprocal (Smith's division),
# expm1, log1p and exp2; C99's for the inverse functions (CPython's cmath, the same formulas)
@register_jitable
def _complex_reciprocal(z):
    r, i = z.real, z.imag
    if (r == 0 and i == 0) or r != r or i != i:   # NumPy's: NaN parts
        return complex(math.nan, math.nan)
    if abs(r) >= abs(i):
        t = i / r
        d = r + i * t
        return complex(1.0 / d, -t / d)
    t = r / i
    d = r * t + i
    return complex(t / d, -1.0 / d)


@register_jitable
def _complex_expm1(z):
    x, y = z.real, z.imag
    a = math.sin(y / 2)
    return complex(math.expm1(x) * math.cos(y) - 2 * a * a, math.exp(x) * math.sin(y))


@register_jitable
def _complex_log1p(z):
    x, y = z.real + 1.0, z.imag
    return complex(np.log(math.hypot(x, y)), math.atan2(y, x))


@register_jitable
def _complex_exp2(z):
    r, i = z.real * 0.6931471805599453, z.imag * 0.6931471805599453
    if i == 0:   # a real power: no NaN from an infinity times sin(0)
        return complex(np.exp(r), i)
    return cmath.exp(complex(r, i))


@register_jitable
def _complex_rint(z):
    return complex(_rint(z.real), _rint(z.imag))


@register_jitable
def _complex_arcsin(z):
    return cmath.asin(complex(z))


@register_jitable
def _complex_arccos(z):
    return cmath.acos(complex(z))


@register_jitable
def _complex_arctan(z):
    return cmath.atan(complex(z))


@register_jitable
def _complex_arcsinh(z):
    return cmath.asinh(complex(z))


@register_jitable
def _complex_arccosh(z):
    return cmath.acosh(complex(z))


@register_jitable
def _complex_arctanh(z):
    return cmath.atanh(complex(z))


@register_jitable
def _conjugate(a):
    return a.conjugate()


@register_jitable
def _float_power(a, b):
    """C's pow: zero to a negative power is an infinity (signed for an odd whole power)."""
    if a == 0 and b < 0:
        return math.copysign(math.inf, a) if b % 2 == 1 else math.inf
    return np.power(a, b)


@register_jitable
def _complex_power(a, b):
    return np.power(a, b)


def _float_format(a):
    pass


@overload(_float_format)
def _float_format_impl(a):
    """(mantissa bits, exponent of the smallest normal, largest finite) of a's float type."""
    info = np.finfo(np.dtype(a.name))
    fmt = (info.nmant + 1, int(info.minexp), float(info.max))
    return lambda a: fmt


@register_jitable
def _frexp(a):
    """(m, e) with a == m * 2**e, 0.5 <= |m| < 1, computed in float64 (exact for float32): 0,
    inf and NaN give (a, 0), as NumPy's."""
    x = float(a)
    if x == 0 or x != x or math.isinf(x):
        return x, 0
    shift = 0
    if abs(x) < 2.2250738585072014e-308:   # subnormal: scaled up first, so log2 is exact enough
        x *= 18014398509481984.0   # 2**54
        shift = -54
    e = int(math.floor(math.log2(abs(x)))) + 1
    m = x * 2.0 ** (-e)
    if abs(m) >= 1.0:
        m *= 0.5
        e += 1
    elif abs(m) < 0.5:
        m *= 2.0
        e -= 1
    return m, e + shift


@register_jitable
def _frexp_mantissa(a):
    return _frexp(a)[0]


@register_jitable
def _frexp_exponent(a):
    return _frexp(a)[1]


@register_jitable
def _ldexp(a, n):
    """a * 2**n rounded once, as C's ldexp: overflow gives inf, underflow a subnormal or 0 (the
    result is exact in float64 for float32 too; the loop casts it)."""
    p, emin, big = _float_format(a)
    m, e = _frexp(a)
    if m == 0 or m != m or math.isinf(m):
        return m
    exp = e + n
    if exp > 2 - emin:   # past the largest finite number
        return math.copysign(math.inf, m)
    if exp > emin:   # normal: 2m in [1, 2) scaled by a power of two, exact
        return m * 2.0 * 2.0 ** (exp - 1)
    # subnormal: a whole number of the smallest subnormal, rounded half to even
    return _rint(m * 2.0 ** (exp - emin + p - 1)) * 2.0 ** (emin - p + 1)


@register_jitable
def _nextafter(a, b):
    """The float next to a towards b, in a's type (computed in float64, exact for float32)."""
    p, emin, big = _float_format(a)
    x, y = float(a), float(b)
    if x != x or y != y:
        return x + y
    if x == y:
        return y
    tiny = 2.0 ** (emin - p + 1)
    if x == 0:
        return math.copysign(tiny, y)
    if math.isinf(x):
        return math.copysign(big, x)
    m, e = _frexp(x)
    away = (y > x) == (x > 0)
    step = 2.0 ** (e - p)
    if not away and abs(m) == 0.5:   # below a power of two the spacing halves
        step *= 0.5
    step = max(step, tiny)
    r = x + step if y > x else x - step
    return math.copysign(0.0, x) if r == 0 else r   # from the smallest subnormal: zero of its sign


@register_jitable
def _spacing(a):
    """The distance from a to the next float away from zero (negative below zero; NumPy gives
    the positive one for -0.0, and float16's towards +inf); NaN for inf and NaN."""
    p, emin, big = _float_format(a)
    x = float(a)
    if x != x or math.isinf(x):
        return math.nan
    if abs(x) == big:
        return math.copysign(math.inf, x)
    up = x >= 0 or p == 11
    return _nextafter(a, math.inf if up else -math.inf) - x


@register_jitable
def _modf_fraction(a):
    if math.isinf(a):
        return math.copysign(0.0, a)
    return math.copysign(a - np.trunc(a), a)


@register_jitable
def _modf_whole(a):
    return np.trunc(a)


# ---- the generated loop ----

def _generated(source, env):
    return generated("impl", source, dict(env, _broadcast_error=_broadcast_error))


@register_jitable
def _broadcast_error():
    raise ValueError("operands could not be broadcast together")


# ---- an operand sharing memory with out= ----
# NumPy reads an operand that shares memory with the output as if copied first, unless the two
# are the same items (np.add(a, b, out=a): each item is read before it is written in place). So
# np.add(a[1:], a[:-1], out=a[1:]) adds the old items, where a plain loop would add the ones it
# has just written. numpy_memory.py's copy_needed compares the address ranges (and, where they
# meet, the layouts); the copy is made only where it is needed. GPU kernel code cannot allocate
# the copy: there such a call is a ValueError naming the ufunc.

def _loop_generated(params, ndims, has_out, env, out_ndim=0, out_joins=False, names=None,
                    zero_d=(), who="the ufunc"):
    """The implementation of _loop_source's loop (same arguments), its operands read as NumPy
    reads them where out= shares their memory: the loop is a function of its own, called on the
    operands themselves, or on copies of those that need one (in host code; in GPU kernel code
    such an operand is a ValueError naming who). The common case, no operand needing a copy, has
    no other cost than the address ranges compared."""
    source = _loop_source(params, ndims, has_out, out_ndim, out_joins, names, zero_d)
    arrays = [k for k, nd in enumerate(ndims) if nd or k in zero_d]
    if not has_out or not arrays or max(max(ndims), out_ndim) == 0:
        return _generated(source, env)
    loop = register_jitable(**_OPTIONS)(_generated(source, env))
    args = [p.split("=")[0] for p in params]   # the operands, then out
    needed = " or ".join(f"_copy_needed({args[k]}, out)" for k in arrays)
    copies = ", ".join(f"_apart({a}, out)" if k in arrays else a for k, a in enumerate(args[:-1]))
    lines = [f"def impl({', '.join(params)}):",
             "    if _kernel_code():"]
    for k in arrays:
        lines += [f"        if _copy_needed({args[k]}, out):",
                  f"            raise ValueError('{who}: out= shares memory with operand {k + 1} "
                  "otherwise than item for item, which NumPy reads from a copy; GPU kernel code "
                  "cannot allocate one: give out= memory of its own')"]
    lines += [f"    elif {needed}:",
              f"        return LOOP({copies}, out)",
              f"    return LOOP({', '.join(args)})"]
    return generated("impl", "\n".join(lines) + "\n",
                     {"LOOP": loop, "_kernel_code": kernel_code, "_copy_needed": copy_needed,
                      "_apart": apart})


def _loop_source(params, ndims, has_out, out_ndim=0, out_joins=False, names=None, zero_d=()):
    """impl(params...) over operands of these dimensions (0: a scalar): res[...] = OUT(
    KERNEL(CT0(x0[...]), CT1(x1[...]), ...)), broadcast, into out when has_out. An out of more
    dimensions than every operand (np.sin(x, out) of a scalar x) gives the leading ones; with
    out_joins, every axis of out takes part in the broadcast, as in NumPy (the inputs broadcast
    up to it, and an out axis of another length is the broadcast error). zero_d: the operands
    that are 0-d arrays (read as x[()]; NumPy gives a scalar when every operand is one)."""
    n = max(max(ndims), out_ndim)
    ops = range(len(ndims))
    lines = [f"def impl({', '.join(params)}):"]
    if names:   # the operands' public names (keywords callers use), read as x0, x1, ...
        lines.append(f"    {', '.join(f'x{k}' for k in ops)}, = {', '.join(names)},")
    if n == 0:
        args = ", ".join(f"CT{k}(x{k}[()])" if k in zero_d else f"CT{k}(x{k})" for k in ops)
        if has_out:   # a 0-d out (a @vectorize ufunc's call from compiled code)
            lines += [f"    out[()] = OUT(KERNEL({args}))", "    return out"]
        else:
            lines.append(f"    return OUT(KERNEL({args}))")
        return "\n".join(lines) + "\n"
    for d in range(n):
        dims = []
        for k in ops:
            off = n - ndims[k]
            s = f"x{k}.shape[{d - off}]" if ndims[k] and d >= off else "1"
            lines.append(f"    s{k}_{d} = {s}")
            dims.append(f"s{k}_{d}")
        on_out = has_out and (d >= n - out_ndim if out_joins else d < n - max(ndims))
        if on_out:
            dims.append(f"out.shape[{d - (n - out_ndim)}]")
        lines.append(f"    D{d} = 1")   # an axis of length 1 takes the others' (0 included)
        for dim in dims:
            if dim != "1":
                lines.append(f"    D{d} = {dim} if D{d} == 1 else D{d}")
        for k in ops:
            if ndims[k] and d >= n - ndims[k]:
                lines += [f"    if s{k}_{d} != 1 and s{k}_{d} != D{d}:", "        _broadcast_error()",
                          f"    m{k}_{d} = 0 if s{k}_{d} == 1 else 1"]
        if on_out and out_joins:   # an out axis of another length than the inputs' is NumPy's error
            lines += [f"    if {dims[-1]} != 1 and {dims[-1]} != D{d}:", "        _broadcast_error()"]
    shape = "(" + "".join(f"D{d}, " for d in range(n)) + ")"
    if has_out:
        lines += [f"    if out.shape != {shape}:",
                  "        raise ValueError('non-broadcastable output operand')",
                  "    res = out"]
    else:
        lines.append(f"    res = np.empty({shape}, OUT)")
    indent = "    "
    for d in range(n):
        lines.append(f"{indent}for i{d} in range(D{d}):")
        indent += "    "
    reads = []
    for k in ops:
        if ndims[k] == 0:
            reads.append(f"CT{k}(x{k}[()])" if k in zero_d else f"CT{k}(x{k})")
        else:
            index = ", ".join(f"i{d} * m{k}_{d}" for d in range(n - ndims[k], n))
            reads.append(f"CT{k}(x{k}[{index}])")
    lines.append(f"{indent}res[{', '.join(f'i{d}' for d in range(n))}] = OUT(KERNEL({', '.join(reads)}))")
    lines.append("    return res")
    return "\n".join(lines) + "\n"


def _numpy_dtype(t):
    return np.dtype(t.name)


def _operand_dtypes(operands):
    """The operands as ufunc.resolve_dtypes takes them."""
    dtypes = []
    for t in operands:
        if types.is_weak(t):   # a Python number: NEP 50's weak scalar
            dtypes.append({"b": bool, "i": int, "u": int, "f": float, "c": complex}[t.kind])
        else:
            dtypes.append(_numpy_dtype(t.dtype if is_array(t) else t))
    return dtypes


def _resolve(ufunc, operands):
    """NumPy's loop for these operand types: (input types, output type) as pyjit types, or
    None if NumPy has none (np.subtract of bools, a float into bitwise_and, ...)."""
    dtypes = _operand_dtypes(operands)
    try:
        if ufunc is np.clip:   # a function over a ufunc: its operands promoted together
            common = np.result_type(*(d() if isinstance(d, type) else d for d in dtypes))
            loop = (common,) * (len(dtypes) + 1)
        else:
            loop = ufunc.resolve_dtypes(tuple(dtypes) + (None,))
    except (TypeError, np.exceptions.DTypePromotionError):
        return None
    return [types._as_type(d) for d in loop[:-1]], types._as_type(loop[-1])


def _operand(t):
    return is_array(t) or is_number(t)


def _given(out):
    return out is not None and not isinstance(out, (types.NoneType, types.Omitted))


def _ufunc_impl(ufunc, kernels, operands, out, params):
    if not all(_operand(t) for t in operands):
        return None
    resolved = _resolve(ufunc, operands)
    if resolved is None:
        return None
    ins, res = resolved
    kernel = _pick(kernels, ins[0])
    if kernel is None:
        return None
    return _loop_impl(kernel, ins, res, operands, out, params, ufunc.__name__ in _EXACT_HALF,
                      f"np.{ufunc.__name__}")


def _loop_impl(kernel, ins, res, operands, out, params, exact_half=False, who="the ufunc"):
    """The loop of kernel over the operands (of the loop's input types ins) into a new array of
    res, or into out. exact_half: the kernel takes float16 itself (it reads the format)."""
    ndims = [t.ndim if is_array(t) else 0 for t in operands]
    has_out = _given(out)
    if has_out:   # out must be an array of the broadcast shape (its dtype takes the results)
        if not is_array(out) or out.readonly or out.ndim < max(ndims) or out.ndim == 0:
            return None
        res = out.dtype
    env = {"KERNEL": kernel, "OUT": res}
    for k, t in enumerate(ins):   # float16 loops compute in float32 and round, as NumPy's do
        env[f"CT{k}"] = types.float32 if t == types.float16 and not exact_half else t
    zero_d = [k for k, t in enumerate(operands) if is_array(t) and t.ndim == 0]
    return _loop_generated(params, ndims, has_out, env, out.ndim if has_out else 0,
                           zero_d=zero_d, who=who)


def _pick(kernels, t):
    """The kernel for the loop's first input type: by kind (b, i, u, f, c), '*' for any."""
    kind = _numpy_dtype(t).kind
    kind = "i" if kind == "u" else kind
    return kernels.get(kind, kernels.get("*"))


# name -> (number of inputs, kernels by the loop's input kind); NumPy's aliases (np.mod,
# np.true_divide, np.bitwise_not, np.conj) are these very objects
_UFUNCS = {
    "add": (2, {"b": _bool_add, "*": _add}),
    "subtract": (2, {"*": _subtract}),
    "multiply": (2, {"b": _bool_multiply, "*": _multiply}),
    "divide": (2, {"f": _divide}),
    "floor_divide": (2, {"i": _int_floor_divide, "f": _float_floor_divide}),
    "remainder": (2, {"i": _int_remainder, "f": _float_remainder}),
    "fmod": (2, {"i": _int_fmod, "f": _float_fmod}),
    "fmax": (2, {"b": _int_max, "i": _int_max, "f": _fmax, "c": _complex_fmax}),
    "fmin": (2, {"b": _int_min, "i": _int_min, "f": _fmin, "c": _complex_fmin}),
    "copysign": (2, {"f": _copysign}),
    "heaviside": (2, {"f": _heaviside}),
    "logaddexp": (2, {"f": _logaddexp}),
    "logaddexp2": (2, {"f": _logaddexp2}),
    "logical_and": (2, {"*": _logical_and}),
    "logical_or": (2, {"*": _logical_or}),
    "logical_xor": (2, {"*": _logical_xor}),
    "bitwise_and": (2, {"b": _bool_multiply, "i": _bitwise_and}),
    "bitwise_or": (2, {"b": _bool_add, "i": _bitwise_or}),
    "bitwise_xor": (2, {"b": _not_equal, "i": _bitwise_xor}),
    "left_shift": (2, {"i": _left_shift}),
    "right_shift": (2, {"i": _right_shift}),
    "gcd": (2, {"i": _gcd}),
    "lcm": (2, {"i": _lcm}),
    "equal": (2, {"*": _equal}),
    "not_equal": (2, {"*": _not_equal}),
    "less": (2, {"c": _complex_less, "*": _less}),
    "less_equal": (2, {"c": _complex_less_equal, "*": _less_equal}),
    "greater": (2, {"c": _complex_greater, "*": _greater}),
    "greater_equal": (2, {"c": _complex_greater_equal, "*": _greater_equal}),
    "negative": (1, {"i": _negative, "f": _negative, "c": _negative}),
    "positive": (1, {"i": _positive, "f": _positive, "c": _positive}),
    "square": (1, {"*": _square}),
    "reciprocal": (1, {"i": _int_reciprocal, "f": _recip_zero, "c": _complex_reciprocal}),
    "logical_not": (1, {"*": _logical_not}),
    "invert": (1, {"b": _bool_invert, "i": _invert}),
    "expm1": (1, {"f": _expm1, "c": _complex_expm1}),
    "log1p": (1, {"f": _log1p, "c": _complex_log1p}),
    "exp2": (1, {"f": _exp2, "c": _complex_exp2}),
    "cbrt": (1, {"f": _cbrt}),
    "deg2rad": (1, {"f": _deg2rad}),
    "radians": (1, {"f": _deg2rad}),
    "rad2deg": (1, {"f": _rad2deg}),
    "degrees": (1, {"f": _rad2deg}),
    "signbit": (1, {"f": _signbit}),
    "rint": (1, {"f": _rint, "c": _complex_rint}),
    "arcsinh": (1, {"f": _arcsinh, "c": _complex_arcsinh}),
    "arccosh": (1, {"f": _arccosh, "c": _complex_arccosh}),
    "arctanh": (1, {"f": _arctanh, "c": _complex_arctanh}),
    "conjugate": (1, {"c": _conjugate, "*": _positive}),
    "float_power": (2, {"f": _float_power, "c": _complex_power}),
    "ldexp": (2, {"f": _ldexp}),
    "nextafter": (2, {"f": _nextafter}),
    "spacing": (1, {"f": _spacing}),
}

# kernels that work on the float format itself: a float16 loop reads float16's, not float32's
_EXACT_HALF = ("ldexp", "nextafter", "spacing")


def _register(name, nin, kernels):
    ufunc = getattr(np, name)
    if nin == 2:
        def typing(x1, x2, out=None):
            if name in ("fmax", "fmin") and not _given(out):   # of datetimes: NaT loses
                dated = datetime_binary(name == "fmax", True)(x1, x2)
                if dated is not None:
                    return dated
            return _ufunc_impl(ufunc, kernels, [x1, x2], out, ["x0", "x1", "out=None"])
    else:
        def typing(x, out=None):
            return _ufunc_impl(ufunc, kernels, [x], out, ["x0", "out=None"])
    typing.__name__ = typing.__qualname__ = f"_{name}"
    overload(ufunc, jit_options=_OPTIONS, strict=False)(typing)


for _name, (_nin, _kernels) in _UFUNCS.items():
    _register(_name, _nin, _kernels)

# the complex forms of ufuncs whose real ones are builtins (which serve when these decline)
_COMPLEX_ONLY = {"arcsin": _complex_arcsin, "arccos": _complex_arccos, "arctan": _complex_arctan}
for _name, _kernel in _COMPLEX_ONLY.items():
    _register(_name, 1, {"c": _kernel})


# ---- the ufuncs of two outputs: np.divmod, np.frexp, np.modf ----
# Each output is a loop of its own over the operands, returned as a tuple. Given outputs (two
# positional arrays after the operands, or out=(o1, o2)), the first is computed into a temporary,
# the second into its array, and then the first copied into its own: an output that is also an
# operand (np.modf(a, a, b)) is written only after both loops have read it, as NumPy's one loop
# reads each element before writing it.

def _resolve_outputs(ufunc, operands):
    """NumPy's loop types (inputs, then outputs) as pyjit types, or None where it has none."""
    try:
        loop = ufunc.resolve_dtypes(tuple(_operand_dtypes(operands)) + (None,) * ufunc.nout)
    except (TypeError, np.exceptions.DTypePromotionError):
        return None
    return [types._as_type(d) for d in loop]


def _two_outputs(name, out1, out2, out):
    """Whether outputs were given (out1 and out2, or out=(o1, o2)); a TypeError naming what is
    accepted when they are given otherwise."""
    if not (_given(out1) or _given(out2) or _given(out)):
        return False
    if _given(out) and (_given(out1) or _given(out2)):
        raise TypeError(f"np.{name}() takes its outputs as arguments or as out=, not both")
    pair = [out1, out2] if not _given(out) else (
        list(out.types) if isinstance(out, types.Tuple) and len(out.types) == 2 else None)
    if pair is None or not all(is_array(o) and not o.readonly and o.ndim > 0 for o in pair):
        raise TypeError(f"np.{name}() takes as outputs two writable arrays (out1, out2 or "
                        f"out=(out1, out2)), not {out if _given(out) else (out1, out2)}")
    return True


_OUT_PAIR = """
    if out is not None:
        out1, out2 = out
"""


@overload(np.divmod, jit_options=_OPTIONS, strict=False)
def _divmod(x1, x2, out1=None, out2=None, out=None):
    """NumPy's divmod is floor_divide and remainder of the same loop."""
    if not (_operand(x1) and _operand(x2)) or _resolve_outputs(np.divmod, [x1, x2]) is None:
        return None
    if not _two_outputs("divmod", out1, out2, out):
        return lambda x1, x2, out1=None, out2=None, out=None: (np.floor_divide(x1, x2),
                                                               np.remainder(x1, x2))
    source = ("def impl(x1, x2, out1=None, out2=None, out=None):" + _OUT_PAIR +
              "    q = np.floor_divide(x1, x2)\n    np.remainder(x1, x2, out2)\n"
              "    out1[...] = q\n    return out1, out2\n")
    return _generated(source, {})


def _register_split(name, first, second):
    """A unary ufunc of two outputs, each the loop of its kernel (by the loop's input kind)."""
    ufunc = getattr(np, name)

    def typing(x, out1=None, out2=None, out=None):
        loop = _resolve_outputs(ufunc, [x]) if _operand(x) else None
        if loop is None:
            return None
        given = _two_outputs(name, out1, out2, out)
        outs = []
        for i, kernels in enumerate((first, second)):
            kernel = _pick(kernels, loop[0])
            if kernel is None:
                return None
            target = (out1, out2) if not _given(out) else tuple(out.types)
            into = target[i] if given and i == 1 else None
            outs.append(register_jitable(_loop_impl(kernel, loop[:1], loop[1 + i], [x], into,
                                                    ["x0", "out=None"], True,
                                                    f"np.{name}")))
        if not given:
            return _generated("def impl(x, out1=None, out2=None, out=None):\n"
                              "    return F(x), S(x)\n", {"F": outs[0], "S": outs[1]})
        return _generated("def impl(x, out1=None, out2=None, out=None):" + _OUT_PAIR +
                          "    m = F(x)\n    S(x, out2)\n    out1[...] = m\n"
                          "    return out1, out2\n", {"F": outs[0], "S": outs[1]})
    typing.__name__ = typing.__qualname__ = f"_{name}"
    overload(ufunc, jit_options=_OPTIONS, strict=False)(typing)


_register_split("frexp", {"f": _frexp_mantissa}, {"f": _frexp_exponent})
_register_split("modf", {"f": _modf_fraction}, {"f": _modf_whole})


# ---- np.sinc (a function over the loop, not a ufunc) ----

@register_jitable
def _sinc(a):
    """NumPy's definition: sin(pi x) / (pi x), x = 0 taken as 1e-20."""
    y = math.pi * (1.0e-20 if a == 0 else a)
    return np.sin(y) / y


@register_jitable
def _complex_sinc(a):
    y = math.pi * (1.0e-20 if a == 0 else a)
    return cmath.sin(y) / y


@overload(np.sinc, jit_options=_OPTIONS, strict=False)
def _np_sinc(x):
    if not _operand(x):
        return None
    dt = x.dtype if is_array(x) else x
    if isinstance(dt, types.Complex):
        return _loop_impl(_complex_sinc, [dt], dt, [x], None, ["x0"])
    if isinstance(dt, (types.Integer, types.Boolean)):
        dt = types.float64
    return _loop_impl(_sinc, [dt], dt, [x], None, ["x0"])


# ---- np.real, np.imag (functions over the attributes) ----

@overload(np.real, strict=False)
def _np_real(val):
    if is_array(val):
        if isinstance(val.dtype, types.Complex):
            return lambda val: val.real
        return lambda val: val
    if isinstance(val, (types.Integer, types.Float, types.Complex)):
        return lambda val: val.real
    return None


@overload(np.imag, strict=False)
def _np_imag(val):
    if is_array(val):
        if isinstance(val.dtype, types.Complex):
            return lambda val: val.imag
        return lambda val: np.zeros_like(val)
    if isinstance(val, types.Complex):
        return lambda val: val.imag
    if isinstance(val, (types.Integer, types.Float)):
        return lambda val: val - val
    return None


# ---- the math ufuncs of builtins.def (np.sin, np.sqrt, ...) given an output array ----
# The builtins compute np.sin(x) of real x into a new array or a scalar; np.sin(x, out) and
# np.sin(x, out=out), as numba-cuda kernels write them, are the loop above with the builtin on
# one element as its kernel, and complex x is the loop with a cmath kernel. Without out these
# decline real operands, and the builtin serves. (np.sign is
# numpy_math's.) Listed in pyjit/lib/__init__.py's INDEX too.

_MATH_UFUNCS = {
    "sqrt": 1, "exp": 1, "log": 1, "log2": 1, "log10": 1, "sin": 1, "cos": 1, "tan": 1,
    "arcsin": 1, "arccos": 1, "arctan": 1, "sinh": 1, "cosh": 1, "tanh": 1, "floor": 1,
    "ceil": 1, "trunc": 1, "absolute": 1, "fabs": 1, "isnan": 1, "isinf": 1, "isfinite": 1,
    "arctan2": 2, "hypot": 2, "power": 2, "minimum": 2, "maximum": 2,
}


# The builtins take real numbers only; these kernels are the loops of complex operands, which
# the overloads below serve with or without out (np.exp(2j * np.pi * k / n) of an array).
_COMPLEX_MATH = {
    "sqrt": "cmath.sqrt(z)", "exp": "cmath.exp(z)", "log": "cmath.log(z)",
    "log2": "cmath.log(z) / math.log(2.0)", "log10": "cmath.log10(z)", "sin": "cmath.sin(z)",
    "cos": "cmath.cos(z)", "tan": "cmath.tan(z)", "sinh": "cmath.sinh(z)",
    "cosh": "cmath.cosh(z)", "tanh": "cmath.tanh(z)",
}


# np.maximum and np.minimum of complex operands (the builtins take real ones)
_COMPLEX_ORDER = {"maximum": _complex_maximum, "minimum": _complex_minimum}


def _complex_kernel(name):
    return register_jitable(generated("k", f"def k(z):\n    return {_COMPLEX_MATH[name]}\n",
                                      {"cmath": cmath, "math": math}))


def _is_complex(t):
    return isinstance(t.dtype if is_array(t) else t, types.Complex)


def _register_out(name, nin):
    ufunc = getattr(np, name)
    params = ", ".join(f"a{k}" for k in range(nin))
    kernel = register_jitable(generated("k", f"def k({params}):\n    return np.{name}({params})\n",
                                        {}))
    kernels = {"*": kernel}
    if name in _COMPLEX_MATH:
        kernels["c"] = _complex_kernel(name)
    if name in _COMPLEX_ORDER:
        kernels["c"] = _COMPLEX_ORDER[name]
    if nin == 2:
        def typing(x1, x2, out=None):
            if not _given(out) and not (name in _COMPLEX_ORDER and
                                        (_is_complex(x1) or _is_complex(x2))):
                return None
            return _ufunc_impl(ufunc, kernels, [x1, x2], out, ["x0", "x1", "out=None"])
    else:
        def typing(x, out=None):
            if not _given(out) and not (name in _COMPLEX_MATH and _is_complex(x)):
                return None
            return _ufunc_impl(ufunc, kernels, [x], out, ["x0", "out=None"])
    typing.__name__ = typing.__qualname__ = f"_{name}_out"
    overload(ufunc, jit_options=_OPTIONS, strict=False)(typing)


for _name, _nin in _MATH_UFUNCS.items():
    _register_out(_name, _nin)


# ---- clip and round ----

@register_jitable
def _clip3(a, lo, hi):
    if a != a:
        return a
    if lo == lo and a < lo:
        a = lo
    if hi == hi and a > hi:
        a = hi
    return a


@overload(np.clip, jit_options=_OPTIONS, strict=False)
def _clip(a, a_min, a_max, out=None):
    operands = [a, a_min, a_max]
    if not all(_operand(t) for t in operands):
        return None
    resolved = _resolve(np.clip, operands)
    if resolved is None:
        return None
    ins, res = resolved
    ndims = [t.ndim if is_array(t) else 0 for t in operands]
    has_out = _given(out)
    if has_out and (not is_array(out) or out.readonly or out.ndim != max(ndims) or out.ndim == 0):
        return None
    env = {"KERNEL": _clip3, "OUT": res, "CT0": ins[0], "CT1": ins[1], "CT2": ins[2]}
    for k in (1, 2):   # a Python int bound past the array's int type compares as itself (NumPy 2)
        if (types.is_weak(operands[k]) and isinstance(operands[k], types.Integer) and
                isinstance(res, types.Integer) and res != types.uint64):
            env[f"CT{k}"] = types.int64
    zero_d = [k for k, t in enumerate(operands) if is_array(t) and t.ndim == 0]
    return _loop_generated(["a", "a_min", "a_max", "out=None"], ndims, has_out, env,
                           names=["a", "a_min", "a_max"], zero_d=zero_d, who="np.clip")


@overload(np.clip, jit_options=_OPTIONS, strict=False)
def _clip_one_sided(a, a_min, a_max, out=None):
    """np.clip with a bound None: np.maximum of the other (np.minimum for a_max), as NumPy's
    clip computes; both None, a copy."""
    lo, hi = a_min is types.none or a_min is None, a_max is types.none or a_max is None
    if not (lo or hi) or not _operand(a):
        return None
    bound = a_max if lo else a_min
    if not (lo and hi) and not _operand(bound):
        return None
    if lo and hi:
        if _given(out):
            def both(a, a_min, a_max, out=None):
                out[...] = a
                return out
            return both
        if is_array(a):
            return lambda a, a_min, a_max, out=None: a.copy()
        return lambda a, a_min, a_max, out=None: a
    if _given(out):
        if lo:
            return lambda a, a_min, a_max, out=None: np.minimum(a, a_max, out)
        return lambda a, a_min, a_max, out=None: np.maximum(a, a_min, out)
    if lo:
        return lambda a, a_min, a_max, out=None: np.minimum(a, a_max)
    return lambda a, a_min, a_max, out=None: np.maximum(a, a_min)


@register_jitable
def _round_float(a, scale, up):
    if up:
        return _rint(a * scale) / scale
    return _rint(a / scale) * scale


def _round(a, decimals=0, out=None):
    if _given(out):
        return _round_into(a, out)
    if not (is_array(a) or is_number(a)):
        return None
    dt = a.dtype if is_array(a) else a
    kind = _numpy_dtype(dt).kind
    if kind in "biu":
        if is_array(a):
            def ints(a, decimals=0, out=None):
                if decimals >= 0:
                    return a.copy()
                return _round_ints(a.copy(), decimals)
            return ints
        return lambda a, decimals=0, out=None: a if decimals >= 0 else _round_int(a, decimals)
    if kind != "f":
        return None
    if is_array(a):
        def floats(a, decimals=0, out=None):
            res = np.empty(a.shape, a.dtype)
            flat_in = a.ravel()
            flat_out = res.ravel()
            up = decimals >= 0
            scale = 10.0 ** (decimals if up else -decimals)
            for i in range(flat_in.size):
                flat_out[i] = _round_float(flat_in[i], scale, up)
            return res
        return floats

    def scalar(a, decimals=0, out=None):
        up = decimals >= 0
        return _round_float(a, 10.0 ** (decimals if up else -decimals), up)
    return scalar


def _round_into(a, out):
    """np.round(a, decimals, out): rounded as without out, then stored into out (cast to its
    dtype), so out may be a itself, as in the common `np.round(x, 0, x)`."""
    if not (is_array(a) and is_array(out)) or out.ndim != a.ndim:
        return None

    def into(a, decimals=0, out=None):
        if out.shape != a.shape:
            raise ValueError("np.round: out must have the shape of a")
        out[...] = np.round(a, decimals)
        return out
    return into


@register_jitable
def _round_int(a, decimals):
    scale = 10 ** (-decimals)
    return int(_rint(a / scale) * scale)


@register_jitable
def _round_ints(res, decimals):
    flat = res.ravel()
    for i in range(flat.size):
        flat[i] = _round_int(flat[i], decimals)
    return res


overload(np.round, strict=False)(_round)
overload(np.around, strict=False)(_round)


# ---- where= (numpy_where.py): the results stored into out under a mask ----

def _register_where():
    from . import numpy_where
    names = {name: nin for name, (nin, _) in _UFUNCS.items()}
    names.update(_MATH_UFUNCS)
    for name, nin in names.items():
        typing = numpy_where.ufunc(name, nin)
        typing.__module__ = __name__
        overload(getattr(np, name), jit_options=_OPTIONS, strict=False)(typing)


_register_where()
