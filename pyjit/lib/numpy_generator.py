"""np.random.Generator in compiled code: default_rng and the Generator's methods, written in the
subset over the draws of runtime/generator.c (the pyjit._generator rows of builtins.def), which
follow NumPy's Generator algorithms on the Generator's own BitGenerator.

Each method checks its parameters as NumPy does (the same exception and message), then draws one
number, or fills an array of shape `size` (or out=) in C order with the same draws one at a time
(NumPy's fills draw in that order too, so the numbers are the same). Parameters given as arrays
are broadcast as NumPy broadcasts them: each check over every item, then one draw per place of
the broadcast shape in C order. The distributions over the draws follow NumPy's
distributions.c operation for operation, so that their numbers are NumPy's bit for bit."""
import math
import re
from decimal import Decimal, getcontext

import numpy as np

from .. import _generator as G
from .numpy_random import _choose_weighted, _kahan_sum, _size_ok, _vector_shape
from ._util import (generated, given, is_array, is_number, overload, overload_method,
                    register_jitable, types)

GEN = types.NumPyRandomGeneratorType
# NumPy 2.5 corrected the Stirling terms of its binomial's BTPE, which changed its stream: draw the
# stream of the NumPy installed.
_BTPE_CORRECTED = int(tuple(int(v) for v in np.__version__.split(".")[:2]) >= (2, 5))
F8, F4 = types.float64, types.float32
INT_DTYPES = {"int64": (-2 ** 63, 2 ** 63 - 1), "int32": (-2 ** 31, 2 ** 31 - 1),
              "uint64": (0, 2 ** 64 - 1), "uint32": (0, 2 ** 32 - 1),
              "int16": (-2 ** 15, 2 ** 15 - 1), "int8": (-2 ** 7, 2 ** 7 - 1),
              "uint16": (0, 2 ** 16 - 1), "uint8": (0, 2 ** 8 - 1), "bool": (0, 1)}
SMALL_BITS = {"int16": 16, "uint16": 16, "int8": 8, "uint8": 8, "bool": 1}


def _scalars(method, *params):
    for p in params:
        if isinstance(p, types.Type) and given(p) and not is_number(p):
            raise TypeError(f"pyjit draws Generator.{method}() from scalar parameters only, "
                            f"not {p}")


def _array_params(method, bound, names):
    """The names of the parameters given as arrays (NumPy broadcasts them); the others must be
    numbers."""
    arrays = []
    for n in names:
        p = bound[n]
        if is_array(p) and p.ndim > 0 and isinstance(p.dtype, (types.Float, types.Integer)):
            arrays.append(n)
        elif isinstance(p, types.Type) and given(p) and not is_number(p):
            raise TypeError(f"Generator.{method}() takes numbers or arrays of numbers as "
                            f"parameters, not {p}")
    return arrays


def _float_dtype(method, dtype, allowed=(F8, F4)):
    """float64 or float32 from a dtype argument (left out: float64)."""
    if not given(dtype):
        return F8
    t = getattr(dtype, "dtype", None) if isinstance(dtype, types.DType) else None
    if t in allowed:
        return t
    names = " and ".join(str(a) for a in allowed)
    raise TypeError(f"Generator.{method}() takes dtype {names}, not {dtype}")


def _method(name, params, checks, draw, dt):
    """The implementation of a method taking `params` (source, size among them): checks (source
    lines), then one draw (an expression over self and the parameters), or an array of dt of
    shape size (or the out= array) filled with such draws."""
    def build(size, out=None):
        if given(out):
            src, target = _out_source(name, out, size, dt)
            body = src + _fill_source(draw, target)
        elif not given(size):
            body = f"    return {draw}\n"
        else:
            _size_ok(size)
            body = "    out = np.empty(size, dt)\n" + _fill_source(draw)
        return generated("impl", f"def impl(self, {params}):\n" + checks + body,
                         dict(HELPERS, dt=dt, G=G, math=math))
    return build


def _fill_source(draw, target="out"):
    return (f"    flat = {target}.reshape(-1)\n    for i in range(flat.size):\n"
            f"        flat[i] = {draw}\n    return out\n")


def _out_source(name, out, size, dt):
    """Checks of an out= array as NumPy's (its dtype, and its shape against size), and the array
    to fill: an F-ordered one in its memory's order (its transpose), as NumPy fills it."""
    if not is_array(out) or out.layout not in ("C", "F"):
        raise TypeError(f"Generator.{name}() takes out= as a C- or F-contiguous array, not {out}")
    if out.dtype != dt:
        return (f"    raise TypeError('Supplied output array has the wrong type. Expected {dt}, "
                f"got {out.dtype}')\n", "out")
    src = ""
    if given(size):
        _size_ok(size)
        dims = (["size"] if isinstance(size, types.Integer) else
                [f"size[{i}]" for i in range(len(size.types))])
        same = " and ".join(f"out.shape[{i}] == {d}" for i, d in enumerate(dims)) or "True"
        src = ("    if not (" + (same if len(dims) == out.ndim else "False") + "):\n"
               "        raise ValueError('size must match out.shape when used together')\n")
    return src, ("out.T" if out.layout == "F" and out.ndim > 1 else "out")


def _check_pairs(checks):
    """The checks as (condition, raise statement) pairs (each check an `if` and its raise), or
    None where they are not written so."""
    lines = checks.splitlines()
    pairs = []
    for i in range(0, len(lines), 2):
        cond = lines[i].strip()
        if not (cond.startswith("if ") and cond.endswith(":")) or i + 1 >= len(lines):
            return None
        pairs.append((cond[3:-1], lines[i + 1].strip()))
    return pairs


def _array_checks(method, checks, arrays):
    """NumPy's checks of array parameters: each check over every item in turn (the first check
    any item fails raises), worded as NumPy words them for arrays. Returns the source of the
    checks of one array each, and the (condition, raise) pairs of those over several, which
    are made over their broadcast (_broadcast_source)."""
    pairs = _check_pairs(checks)
    if pairs is None:
        raise TypeError(f"pyjit draws Generator.{method}() from scalar parameters only")
    src, over = "", []
    for cond, raise_line in pairs:
        used = [n for n in arrays if re.search(rf"\b{n}\b", cond)]
        raise_line = raise_line.replace("is NaN')", "contains NaNs')")
        if len(used) > 1:
            over.append((cond, raise_line))
        elif not used:
            src += f"    if {cond}:\n        {raise_line}\n"
        else:
            item = re.sub(rf"\b{used[0]}\b", "_v", cond)
            src += (f"    for _v in {used[0]}.ravel():\n"
                    f"        if {item}:\n            {raise_line}\n")
    return src, over


def _size_dims(size):
    return ["size"] if isinstance(size, types.Integer) else [f"size[{i}]"
                                                            for i in range(len(size.types))]


def _broadcast_source(arrays, ndims, size, draw, pre="", checks=()):
    """Source drawing into an array of the parameters' broadcast shape (or of size, which they
    must broadcast to, as NumPy requires), the draws in C order, each from the parameters'
    items at its place (pre: a statement before each draw); checks, (condition, raise) pairs
    over several parameters, are made at every place of the shape before any draw."""
    n = max(ndims.values())
    fail = "raise ValueError('shape mismatch: objects cannot be broadcast to a single shape')"
    if given(size):
        _size_ok(size)
        dims = _size_dims(size)
        fail = ("raise ValueError('Output size is not compatible with broadcast dimensions of "
                "inputs')")
        if n > len(dims):
            return f"    {fail}\n"
        n = len(dims)
        src = "".join(f"    s{d} = {dims[d]}\n" for d in range(n))
    else:
        src = "".join(f"    s{d} = 1\n" for d in range(n))
    for a in arrays:
        for d in range(n - ndims[a], n):
            dim = f"{a}.shape[{d - n + ndims[a]}]"
            if given(size):
                src += f"    if {dim} != 1 and {dim} != s{d}:\n        {fail}\n"
            else:
                src += (f"    if {dim} != 1:\n        if s{d} != 1 and s{d} != {dim}:\n"
                        f"            {fail}\n        s{d} = {dim}\n")
            src += f"    m_{a}_{d} = 1 if {dim} != 1 else 0\n"
    for cond, raise_line in checks:
        src += _over_broadcast(arrays, ndims, n, [f"if {cond}:"], [raise_line])
    src += "    out = np.empty((" + "".join(f"s{d}, " for d in range(n)) + "), dt)\n"
    lines = ([pre] if pre else []) + [f"out[{', '.join(f'i{d}' for d in range(n))}] = {draw}"]
    return src + _over_broadcast(arrays, ndims, n, lines) + "    return out\n"


def _over_broadcast(arrays, ndims, n, lines, inner=()):
    """Loops over the broadcast shape (s0, s1, ...) running lines at each place, each array
    parameter named in them read at its item there; inner: lines under the last one, as
    written (a raise whose message names the parameters)."""
    for a in arrays:
        idx = ", ".join(f"i{d} * m_{a}_{d}" for d in range(n - ndims[a], n))
        lines = [re.sub(rf"\b{a}\b", f"{a}[{idx}]", line) for line in lines]
    src = ""
    for d in range(n):
        src += "    " * (d + 1) + f"for i{d} in range(s{d}):\n"
    src += "".join("    " * (n + 1) + line + "\n" for line in lines)
    return src + "".join("    " * (n + 2) + line + "\n" for line in inner)


def _register(name, params, checks, draw, dtype_of=None, dt=F8, array_form=None, ints=()):
    """overload_method(Generator, name) with these parameters (size among them; a `dtype`
    parameter picks the draw through dtype_of(dtype) -> (draw, dt)). Parameters given as arrays
    are broadcast as NumPy broadcasts them; array_form(arrays, ndims) gives the checks, draw,
    arrays and their ndims where the checks above cannot be applied item by item. Arrays are
    taken as float64, or int64 for the parameters named in ints (as NumPy converts them)."""
    names = [p.split("=")[0].strip() for p in params.split(",")]
    values = [n for n in names if n not in ("size", "dtype", "out", "method")]

    def typing(self, *args):
        bound = dict(zip(names, args))
        arrays = _array_params(name, bound, values)
        one, t = (draw, dt) if dtype_of is None else dtype_of(bound.get("dtype"))
        if _literal(bound.get("method"), "zig") != "zig":   # NumPy's: any other is 'inv'
            one = INVERSE_EXPONENTIAL[t]
        if not arrays:
            return _method(name, params, checks, one, t)(bound.get("size"), bound.get("out"))
        if given(bound.get("out")):
            raise TypeError(f"pyjit takes Generator.{name}(out=) with scalar parameters only")
        ndims = {a: bound[a].ndim for a in arrays}
        casts = "".join(f"    {a} = {a}.astype(np.{'int64' if a in ints else 'float64'})\n"
                        for a in arrays)
        over = []
        if array_form is None:
            src, over = _array_checks(name, checks, arrays)
        else:
            src, one, arrays, ndims = array_form(arrays, ndims)
        body = casts + src + _broadcast_source(arrays, ndims, bound.get("size"), one, checks=over)
        return generated("impl", f"def impl(self, {params}):\n" + body,
                         dict(HELPERS, dt=t, G=G, math=math))
    signature = generated("typing", f"def typing(self, {params}):\n"
                          f"    return inner(self, {', '.join(names)})\n",
                          {"inner": typing, "__name__": __name__})
    overload_method(GEN, name)(signature)


def _uniform_arrays(arrays, ndims):
    """uniform's arrays: the span high - low, broadcast and checked as a whole first (NumPy)."""
    src = ("    span = np.asarray(high - low)\n"
           "    for _v in span.ravel():\n        if not np.isfinite(_v):\n"
           "            raise OverflowError('Range exceeds valid bounds')\n"
           "    for _v in span.ravel():\n        if _negative(_v):\n"
           "            raise ValueError('high - low < 0')\n")
    names = ["span"] + (["low"] if "low" in arrays else [])
    return src, "low + span * G.random(self)", names, {"span": max(ndims.values()),
                                                        "low": ndims.get("low", 0)}


# standard_exponential(method='inv'): -log1p(-u), in double for float32 uniforms too (NumPy's)
INVERSE_EXPONENTIAL = {F8: "-np.log1p(-G.random(self))",
                       F4: "np.float32(-np.log1p(-np.float64(G.random_f(self))))"}


def _by_dtype(method, draw64, draw32):
    def pick(dtype):
        t = _float_dtype(method, dtype)
        return (draw64, F8) if t == F8 else (draw32, F4)
    return pick


_register("random", "size=None, dtype=None, out=None", "", None,
          _by_dtype("random", "G.random(self)", "G.random_f(self)"))
_register("standard_normal", "size=None, dtype=None, out=None", "", None,
          _by_dtype("standard_normal", "G.normal(self)", "G.normal_f(self)"))
_register("standard_exponential", "size=None, dtype=None, method='zig', out=None", "", None,
          _by_dtype("standard_exponential", "G.exponential(self)", "G.exponential_f(self)"))
_register("uniform", "low=0.0, high=1.0, size=None",
          "    span = high - low\n"
          "    if span - span != 0.0:\n"
          "        raise OverflowError('high - low range exceeds valid bounds')\n"
          "    if _negative(span):\n        raise ValueError('high - low < 0')\n",
          "low + span * G.random(self)", array_form=_uniform_arrays)
_register("normal", "loc=0.0, scale=1.0, size=None",
          "    if _negative(scale):\n        raise ValueError('scale < 0')\n",
          "loc + scale * G.normal(self)")
_register("exponential", "scale=1.0, size=None",
          "    if _negative(scale):\n        raise ValueError('scale < 0')\n",
          "scale * G.exponential(self)")
_register("standard_gamma", "shape, size=None, dtype=None, out=None",
          "    if _negative(shape):\n        raise ValueError('shape < 0')\n", None,
          _by_dtype("standard_gamma", "G.gamma(self, shape)", "G.gamma_f(self, np.float32(shape))"))
_register("gamma", "shape, scale=1.0, size=None",
          "    if _negative(shape):\n        raise ValueError('shape < 0')\n"
          "    if _negative(scale):\n        raise ValueError('scale < 0')\n",
          "scale * G.gamma(self, shape)")
_register("chisquare", "df, size=None",
          "    if df <= 0:\n        raise ValueError('df <= 0')\n",
          "2.0 * G.gamma(self, df / 2.0)")
_register("beta", "a, b, size=None",
          "    if a <= 0:\n        raise ValueError('a <= 0')\n"
          "    if b <= 0:\n        raise ValueError('b <= 0')\n",
          "G.beta(self, a, b)")
_register("poisson", "lam=1.0, size=None",
          "    if lam > 9.223372006484771e18:\n        raise ValueError('lam value too large')\n"
          "    if not lam >= 0:\n        raise ValueError('lam < 0 or lam is NaN')\n",
          "G.poisson(self, lam)", dt=types.int64)
_register("binomial", "n, p, size=None",
          "    if not (p >= 0 and p <= 1):\n        raise ValueError('p < 0, p > 1 or p is NaN')\n"
          "    if n < 0:\n        raise ValueError('n < 0')\n",
          f"G.binomial(self, n, p, {_BTPE_CORRECTED})", dt=types.int64, ints=("n",))
_register("lognormal", "mean=0.0, sigma=1.0, size=None",
          "    if _negative(sigma):\n        raise ValueError('sigma < 0')\n",
          "np.exp(mean + sigma * G.normal(self))")
_register("laplace", "loc=0.0, scale=1.0, size=None",
          "    if _negative(scale):\n        raise ValueError('scale < 0')\n",
          "_laplace(self, loc, scale)")
_register("geometric", "p, size=None",
          "    if not (p > 0 and p <= 1):\n"
          "        raise ValueError('p <= 0, p > 1 or p contains NaNs')\n",
          "_geometric(self, p)", dt=types.int64)
_register("logistic", "loc=0.0, scale=1.0, size=None",
          "    if _negative(scale):\n        raise ValueError('scale < 0')\n",
          "_logistic(self, loc, scale)")


def _positive(*names):
    """NumPy's check of parameters that must be above 0 (NaN passes)."""
    return "".join(f"    if {n} <= 0:\n        raise ValueError('{n} <= 0')\n" for n in names)


def _not_negative(*names):
    return "".join(f"    if _negative({n}):\n        raise ValueError('{n} < 0')\n" for n in names)


_register("standard_cauchy", "size=None", "", "_cauchy(self)")
_register("standard_t", "df, size=None", _positive("df"), "_standard_t(self, df)")
_register("f", "dfnum, dfden, size=None", _positive("dfnum", "dfden"), "_f(self, dfnum, dfden)")
_register("noncentral_chisquare", "df, nonc, size=None", _positive("df") + _not_negative("nonc"),
          "_noncentral_chisquare(self, df, nonc)")
_register("noncentral_f", "dfnum, dfden, nonc, size=None",
          _positive("dfnum", "dfden") + _not_negative("nonc"),
          "_noncentral_f(self, dfnum, dfden, nonc)")
_register("pareto", "a, size=None", _positive("a"), "np.expm1(G.exponential(self) / a)")
_register("power", "a, size=None", _positive("a"),
          "G.pow(-np.expm1(-G.exponential(self)), 1.0 / a)")
_register("weibull", "a, size=None", _not_negative("a"), "_weibull(self, a)")
_register("rayleigh", "scale=1.0, size=None", _not_negative("scale"),
          "scale * np.sqrt(2.0 * G.exponential(self))")
_register("vonmises", "mu, kappa, size=None", _not_negative("kappa"), "_vonmises(self, mu, kappa)")
_register("wald", "mean, scale, size=None", _positive("mean", "scale"), "_wald(self, mean, scale)")
_register("gumbel", "loc=0.0, scale=1.0, size=None", _not_negative("scale"),
          "_gumbel(self, loc, scale)")
_register("triangular", "left, mode, right, size=None",
          "    if left > mode:\n        raise ValueError('left > mode')\n"
          "    if mode > right:\n        raise ValueError('mode > right')\n"
          "    if left == right:\n        raise ValueError('left == right')\n",
          "_triangular(self, left, mode, right)")
_register("zipf", "a, size=None",
          "    if not a > 1:\n        raise ValueError('a <= 1 or a is NaN')\n",
          "_zipf(self, a)", dt=types.int64)
_register("logseries", "p, size=None",
          "    if not (p >= 0 and p < 1):\n        raise ValueError('p < 0, p >= 1 or p is NaN')\n",
          "_logseries(self, p)", dt=types.int64)
_register("negative_binomial", "n, p, size=None",
          "    if n != n:\n        raise ValueError('n must not be NaN')\n"
          "    if n <= 0:\n        raise ValueError('n <= 0')\n"
          "    if not (p > 0 and p <= 1):\n"
          "        raise ValueError('p <= 0, p > 1 or p contains NaNs')\n"
          "    if (1 - p) / p * (n + 10 * np.sqrt(n)) > 9.223372006484771e18:\n"
          "        raise ValueError('n too large or p too small, see Generator.negative_binomial "
          "Notes')\n",
          "G.poisson(self, (1 - p) / p * G.gamma(self, n))", dt=types.int64)
_register("hypergeometric", "ngood, nbad, nsample, size=None",
          "    if ngood >= 1000000000 or nbad >= 1000000000:\n"
          "        raise ValueError('both ngood and nbad must be less than 1000000000')\n"
          "    if ngood + nbad < nsample:\n        raise ValueError('ngood + nbad < nsample')\n"
          "    if ngood < 0:\n        raise ValueError('ngood < 0')\n"
          "    if nbad < 0:\n        raise ValueError('nbad < 0')\n"
          "    if nsample < 0:\n        raise ValueError('nsample < 0')\n",
          "_hypergeometric(self, ngood, nbad, nsample)", dt=types.int64,
          ints=("ngood", "nbad", "nsample"))


@register_jitable
def _negative(x):
    """NumPy's test of a parameter that must not be negative: -0.0 is refused, NaN is not."""
    return x < 0 or (x == 0 and np.signbit(x))


def _laplace(g, loc, scale):
    pass


@overload(_laplace)
def _laplace_impl(g, loc, scale):
    def impl(g, loc, scale):
        while True:   # NumPy draws again for a uniform of 0
            u = G.random(g)
            if u >= 0.5:
                return loc - scale * np.log(2.0 - u - u)
            if u > 0.0:
                return loc + scale * np.log(u + u)
    return impl


def _logistic(g, loc, scale):
    pass


@overload(_logistic)
def _logistic_impl(g, loc, scale):
    def impl(g, loc, scale):
        while True:
            u = G.random(g)
            if u > 0.0:
                return loc + scale * np.log(u / (1.0 - u))
    return impl


def _geometric(g, p):
    pass


@overload(_geometric)
def _geometric_impl(g, p):
    """A search over the cdf for p >= 1/3, else the inversion of an exponential (capped at the
    largest int64), as NumPy's Generator draws."""
    def impl(g, p):
        if p >= 0.333333333333333333333333:
            x = 1
            total = prod = p
            q = 1.0 - p
            u = G.random(g)
            while u > total:
                prod *= q
                total += prod
                x += 1
            return x
        z = np.ceil(-G.exponential(g) / np.log1p(-p))
        if z >= 9.223372036854776e18:
            return 9223372036854775807
        return np.int64(z)
    return impl


# ---- the distributions over the draws, as NumPy's distributions.c computes them ------------
# (with NumPy's division: a zero divisor gives an infinity or NaN, as in C, not an exception)

@register_jitable(error_model="numpy")
def _cauchy(g):
    return G.normal(g) / G.normal(g)


@register_jitable(error_model="numpy")
def _chisquare(g, df):
    return 2.0 * G.gamma(g, df / 2.0)


@register_jitable(error_model="numpy")
def _standard_t(g, df):
    num = G.normal(g)
    denom = G.gamma(g, df / 2)
    return np.sqrt(df / 2) * num / np.sqrt(denom)


@register_jitable(error_model="numpy")
def _f(g, dfnum, dfden):
    top = _chisquare(g, dfnum) * dfden
    return top / (_chisquare(g, dfden) * dfnum)


@register_jitable(error_model="numpy")
def _noncentral_chisquare(g, df, nonc):
    """A chi-square of df - 1 plus a shifted normal's square above 1 degree of freedom, else a
    chi-square of a Poisson-mixed df."""
    if nonc != nonc:
        return np.nan
    if nonc == 0:
        return _chisquare(g, df)
    if 1 < df:
        chi2 = _chisquare(g, df - 1)
        n = G.normal(g) + np.sqrt(nonc)
        return chi2 + n * n
    i = G.poisson(g, nonc / 2.0)
    return _chisquare(g, df + 2 * i)


@register_jitable(error_model="numpy")
def _noncentral_f(g, dfnum, dfden, nonc):
    t = _noncentral_chisquare(g, dfnum, nonc) * dfden
    return t / (_chisquare(g, dfden) * dfnum)


@register_jitable(error_model="numpy")
def _weibull(g, a):
    if a == 0.0:
        return 0.0
    return G.pow(G.exponential(g), 1.0 / a)


@register_jitable(error_model="numpy")
def _gumbel(g, loc, scale):
    while True:   # NumPy draws again for a uniform of 0
        u = 1.0 - G.random(g)
        if u < 1.0:
            return loc - scale * np.log(-np.log(u))


@register_jitable(error_model="numpy")
def _triangular(g, left, mode, right):
    base = right - left
    leftbase = mode - left
    ratio = leftbase / base
    leftprod = leftbase * base
    rightprod = (right - mode) * base
    u = G.random(g)
    if u <= ratio:
        return left + np.sqrt(u * leftprod)
    return right - np.sqrt((1.0 - u) * rightprod)


@register_jitable(error_model="numpy")
def _wald(g, mean, scale):
    y = G.normal(g)
    y = mean * y * y
    d = 1 + np.sqrt(1 + 4 * scale / y)
    x = mean * (1 - 2 / d)
    u = G.random(g)
    if u <= mean / (mean + x):
        return x
    return mean * mean / x


@register_jitable(error_model="numpy")
def _vonmises_wrap(mu, w, u):
    """mu plus the angle acos(w) (negative for u < 1/2), wrapped into [-pi, pi] by its size."""
    result = math.acos(w)
    if u < 0.5:
        result = -result
    result += mu
    mod = math.fmod(abs(result) + np.pi, 2 * np.pi) - np.pi
    return -mod if result < 0 else mod


@register_jitable(error_model="numpy")
def _vonmises(g, mu, kappa):
    """Best and Fisher's rejection, a uniform angle for kappa below 1e-8 and a wrapped normal
    above 1e6 (NumPy's random_vonmises)."""
    if kappa != kappa:
        return np.nan
    if kappa < 1e-8:
        return np.pi * (2 * G.random(g) - 1)
    if kappa < 1e-5:
        s = 1.0 / kappa + kappa
    elif kappa <= 1e6:
        r = 1 + np.sqrt(1 + 4 * kappa * kappa)
        rho = (r - np.sqrt(2 * r)) / (2 * kappa)
        s = (1 + rho * rho) / (2 * rho)
    else:
        result = mu + np.sqrt(1.0 / kappa) * G.normal(g)
        if result < -np.pi:
            result += 2 * np.pi
        if result > np.pi:
            result -= 2 * np.pi
        return result
    while True:
        u = G.random(g)
        z = math.cos(np.pi * u)
        w = (1 + s * z) / (s + z)
        y = kappa * (s - w)
        v = G.random(g)
        if y * (2 - y) - v >= 0 or np.log(y / v) + 1 - y >= 0:
            return _vonmises_wrap(mu, w, G.random(g))


@register_jitable(error_model="numpy")
def _zipf(g, a):
    """Rejection from a continuous Pareto-like bound, truncated to the largest int64."""
    if a >= 1025:
        return 1
    am1 = a - 1.0
    b = G.pow(2.0, am1)
    umin = G.pow(9.223372036854775807e18, -am1)
    while True:
        u01 = G.random(g)
        u = u01 * umin + (1 - u01)
        v = G.random(g)
        x = np.floor(G.pow(u, -1.0 / am1))
        if x > 9.223372036854775807e18 or x < 1.0:
            continue
        t = G.pow(1.0 + 1.0 / x, am1)
        if v * x * (t - 1.0) / (b - 1.0) <= t / b:
            return np.int64(x)


@register_jitable(error_model="numpy")
def _logseries(g, p):
    r = np.log1p(-p)
    while True:
        v = G.random(g)
        if v >= p:
            return 1
        u = G.random(g)
        q = -np.expm1(r * u)
        if v <= q * q:
            result = np.int64(np.floor(1 + np.log(v) / np.log(q)))
            if result < 1 or v == 0.0:
                continue
            return result
        if v >= q:
            return 1
        return 2


def _log_factorials(n):
    """log(k!) for k < n, correctly rounded (NumPy's table of them)."""
    getcontext().prec = 60
    acc, out = Decimal(0), []
    for k in range(n):
        if k > 1:
            acc += Decimal(k).ln()
        out.append(float(acc))
    return np.array(out)


LOG_FACTORIALS = _log_factorials(126)


@register_jitable(error_model="numpy")
def _logfactorial(k):
    if k < 126:
        return LOG_FACTORIALS[k]
    return ((k + 0.5) * np.log(np.float64(k)) - k +
            (0.9189385332046728 + (1.0 / k) * (1 / 12.0 - 1 / (360.0 * k * k))))


@register_jitable(error_model="numpy")
def _hypergeometric_sample(g, good, bad, sample):
    """Draws one by one without replacement (of the smaller of sample and its complement)."""
    total = good + bad
    computed = total - sample if sample > total // 2 else sample
    left_total = total
    left_good = good
    while computed > 0 and left_good > 0 and left_total > left_good:
        left_total -= 1
        if np.int64(G.interval(g, np.uint64(left_total))) < left_good:
            left_good -= 1
        computed -= 1
    if left_total == left_good:
        left_good -= computed
    return left_good if sample > total // 2 else good - left_good


@register_jitable(error_model="numpy")
def _hypergeometric_hrua(g, good, bad, sample):
    """Stadlober's ratio of uniforms (NumPy's hypergeometric_hrua)."""
    popsize = good + bad
    computed = min(sample, popsize - sample)
    mingb = min(good, bad)
    maxgb = max(good, bad)
    p = mingb / popsize
    q = maxgb / popsize
    mu = computed * p
    a = mu + 0.5
    var = float(popsize - computed) * computed * p * q / (popsize - 1)
    c = np.sqrt(var + 0.5)
    h = 1.7155277699214135 * c + 0.8989161620588988
    m = np.int64(np.floor(float(computed + 1) * (mingb + 1) / (popsize + 2)))
    gm = (_logfactorial(m) + _logfactorial(mingb - m) + _logfactorial(computed - m) +
          _logfactorial(maxgb - computed + m))
    b = min(min(computed, mingb) + 1, np.floor(a + 16 * c))
    while True:
        u = G.random(g)
        v = G.random(g)
        x = a + h * (v - 0.5) / u
        if x < 0.0 or x >= b:
            continue
        k = np.int64(np.floor(x))
        gp = (_logfactorial(k) + _logfactorial(mingb - k) + _logfactorial(computed - k) +
              _logfactorial(maxgb - computed + k))
        t = gm - gp
        if u * (4.0 - u) - 3.0 <= t:
            break
        if u * (u - t) >= 1:
            continue
        if 2.0 * np.log(u) <= t:
            break
    if good > bad:
        k = computed - k
    if computed < sample:
        k = good - k
    return k


@register_jitable(error_model="numpy")
def _hypergeometric(g, good, bad, sample):
    if sample >= 10 and sample <= good + bad - 10:
        return _hypergeometric_hrua(g, good, bad, sample)
    return _hypergeometric_sample(g, good, bad, sample)


# ---- vector draws: multinomial, dirichlet, multivariate_hypergeometric -------------------------

def _vector_method(name, params, checks, fill, env, size):
    """An implementation that checks, makes zeros of shape size + (d,) and fills each vector."""
    src = (f"def impl(self, {params}):\n" + checks +
           f"    out = np.zeros({_vector_shape(size, 'd')}, dtype)\n"
           "    flat = out.reshape(-1)\n"
           "    if d > 0:\n"
           "        for i in range(0, flat.size, d):\n"
           f"            {fill}\n"
           "    return out\n")
    return generated("impl", src, dict(HELPERS, G=G, **env))


def _float_vector(method, name, v):
    if not (is_array(v) and v.ndim == 1 and isinstance(v.dtype, (types.Float, types.Integer))):
        raise TypeError(f"Generator.{method}() takes {name} as a 1-d array of numbers, not {v}")


@register_jitable(error_model="numpy")
def _multinomial_one(g, n, p, d, out, at, corrected):
    """Binomials of each category in turn, of the draws left and its share of what is left."""
    remaining = 1.0
    left = n
    for j in range(d - 1):
        out[at + j] = G.binomial(g, left, p[j] / remaining, corrected)
        left -= out[at + j]
        if left <= 0:
            break
        remaining -= p[j]
    if left > 0:
        out[at + d - 1] = left


@overload_method(GEN, "multinomial")
def _multinomial(self, n, pvals, size=None):
    if not isinstance(n, types.Integer):
        raise TypeError(f"Generator.multinomial() takes an int n, not {n}")
    _float_vector("multinomial", "pvals", pvals)
    narrow = isinstance(pvals.dtype, types.Float) and pvals.dtype != F8
    checks = ("    p = pvals.astype(np.float64)\n    d = p.shape[0]\n"
              "    if d == 0:\n        raise ValueError('pvals must have at least 1 dimension and "
              "the last dimension of pvals must be greater than 0.')\n"
              "    for j in range(d):\n        if not (p[j] >= 0 and p[j] <= 1):\n"
              "            raise ValueError('pvals < 0, pvals > 1 or pvals contains NaNs')\n"
              "    if _kahan_sum(p, d - 1) > 1.0 + 1e-12:\n")
    if narrow:
        checks += ("        if pvals.sum() < 1.0001:\n"
                   "            raise ValueError('sum(pvals[:-1].astype(np.float64)) > 1.0. The "
                   "pvals array is cast to 64-bit floating point prior to checking the sum. "
                   "Precision changes when casting may cause problems even if the sum of the "
                   "original pvals is valid.')\n")
    checks += ("        raise ValueError('sum(pvals[:-1]) > 1.0')\n"
               "    if n < 0:\n        raise ValueError('n < 0')\n")
    return _vector_method("multinomial", "n, pvals, size=None", checks,
                          "_multinomial_one(self, n, p, d, flat, i, corrected)",
                          {"_kahan_sum": _kahan_sum, "_multinomial_one": _multinomial_one,
                           "dtype": types.int64, "corrected": _BTPE_CORRECTED}, size)


@register_jitable(error_model="numpy")
def _dirichlet_sticks(g, alpha, csum, d, out, at):
    """Small alphas: stick-breaking with betas, which cannot give 0 / 0."""
    acc = 1.0
    for j in range(d - 1):
        v = G.beta(g, alpha[j], csum[j + 1])
        out[at + j] = acc * v
        acc *= 1.0 - v
        if csum[j + 1] == 0:
            break
    out[at + d - 1] = acc


@register_jitable(error_model="numpy")
def _dirichlet_gammas(g, alpha, d, out, at):
    acc = 0.0
    for j in range(d):
        out[at + j] = G.gamma(g, alpha[j])
        acc = acc + out[at + j]
    inv = 1.0 / acc
    for j in range(d):
        out[at + j] = out[at + j] * inv


@register_jitable(error_model="numpy")
def _dirichlet_one(g, alpha, csum, small, d, out, at):
    if small:
        if csum[0] > 0:
            _dirichlet_sticks(g, alpha, csum, d, out, at)
    else:
        _dirichlet_gammas(g, alpha, d, out, at)


@overload_method(GEN, "dirichlet")
def _dirichlet(self, alpha, size=None):
    _float_vector("dirichlet", "alpha", alpha)
    checks = ("    a = alpha.astype(np.float64)\n    d = a.shape[0]\n"
              "    if (a < 0).any():\n        raise ValueError('alpha < 0')\n"
              "    small = d > 0 and a.max() < 0.1\n"
              "    csum = np.empty(d)\n    acc = 0.0\n"
              "    for j in range(d - 1, -1, -1):\n        acc += a[j]\n        csum[j] = acc\n")
    return _vector_method("dirichlet", "alpha, size=None", checks,
                          "_dirichlet_one(self, a, csum, small, d, flat, i)",
                          {"_dirichlet_one": _dirichlet_one, "dtype": F8}, size)


@register_jitable(error_model="numpy")
def _mvhg_count(g, total, colors, nsample, choices, d, out, at):
    """A partial Fisher-Yates shuffle of the balls, then the colours of the first nsample."""
    more = nsample > total // 2
    if more:
        nsample = total - nsample
    for j in range(nsample):
        k = j + np.int64(G.interval(g, np.uint64(total - j - 1)))
        t = choices[k]
        choices[k] = choices[j]
        choices[j] = t
    for j in range(nsample):
        out[at + choices[j]] += 1
    if more:
        for k in range(d):
            out[at + k] = colors[k] - out[at + k]


@register_jitable(error_model="numpy")
def _mvhg_marginals(g, total, colors, nsample, d, out, at):
    """Hypergeometric draws of each colour in turn against the colours after it."""
    more = nsample > total // 2
    if more:
        nsample = total - nsample
    left = nsample
    remaining = total
    j = 0
    while left > 0 and j + 1 < d:
        remaining -= colors[j]
        r = _hypergeometric(g, colors[j], remaining, left)
        out[at + j] = r
        left -= r
        j += 1
    if left > 0:
        out[at + d - 1] = left
    if more:
        for k in range(d):
            out[at + k] = colors[k] - out[at + k]


@overload_method(GEN, "multivariate_hypergeometric")
def _multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals"):
    if not (is_array(colors) and colors.ndim == 1 and isinstance(colors.dtype, types.Integer)):
        raise TypeError(f"Generator.multivariate_hypergeometric() takes colors as a 1-d array of "
                        f"ints, not {colors}")
    if not isinstance(nsample, types.Integer):
        raise TypeError(f"Generator.multivariate_hypergeometric() takes an int nsample, not "
                        f"{nsample}")
    m = _literal(method, "marginals")
    if m not in ("count", "marginals"):   # NumPy's ValueError, raised when called
        return generated("impl", "def impl(self, colors, nsample, size=None, method='marginals'):"
                         "\n    raise ValueError('method must be \"count\" or \"marginals\".')\n",
                         {})
    checks = ("    c = colors.astype(np.int64)\n    d = c.shape[0]\n"
              "    if nsample < 0:\n        raise ValueError('nsample must be nonnegative.')\n"
              "    if (c < 0).any():\n        raise ValueError('colors must be a one-dimensional "
              "sequence of nonnegative integers not exceeding 9223372036854775807.')\n"
              "    total = 0\n    for j in range(d):\n"
              "        if total > 9223372036854775807 - c[j]:\n"
              "            raise ValueError('sum(colors) must not exceed the maximum value of a 64 "
              "bit signed integer (9223372036854775807)')\n"
              "        total += c[j]\n")
    if m == "marginals":
        checks += ("    if total >= 1000000000:\n        raise ValueError('When method is "
                   "\"marginals\", sum(colors) must be less than 1000000000.')\n")
        fill = ("if total > 0 and nsample > 0:\n"
                "                _mvhg_marginals(self, total, c, nsample, d, flat, i)")
    else:
        checks += ("    choices = np.empty(total if nsample > 0 else 0, np.int64)\n"
                   "    k = 0\n    for j in range(d):\n        for _ in range(c[j]):\n"
                   "            choices[k] = j\n            k += 1\n")
        fill = ("if total > 0 and nsample > 0:\n"
                "                _mvhg_count(self, total, c, nsample, choices, d, flat, i)")
    checks += "    if nsample > total:\n        raise ValueError('nsample > sum(colors)')\n"
    return _vector_method("multivariate_hypergeometric",
                          "colors, nsample, size=None, method='marginals'", checks, fill,
                          {"_mvhg_count": _mvhg_count, "_mvhg_marginals": _mvhg_marginals,
                           "dtype": types.int64}, size)


@overload_method(GEN, "multivariate_normal")
def _multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, method="svd"):
    """mean + x @ factor.T for standard normals x, the factor from cov's SVD, eigh or Cholesky
    (NumPy's). check_valid='warn' cannot warn in compiled code: it is 'ignore' here."""
    for name, v, ndim in (("mean", mean, 1), ("cov", cov, 2)):
        if not (is_array(v) and v.ndim == ndim and isinstance(v.dtype, (types.Float,
                                                                         types.Integer))):
            raise TypeError(f"Generator.multivariate_normal() takes {name} as a {ndim}-d array "
                            f"of real numbers, not {v}")
    how, valid = _literal(method, "svd"), _literal(check_valid, "warn")
    if how not in ("svd", "eigh", "cholesky"):
        return _raises("method must be one of {'eigh', 'svd', 'cholesky'}")
    if valid not in ("warn", "raise", "ignore"):
        return _raises("check_valid must equal 'warn', 'raise', or 'ignore'")
    shape = _vector_shape(size, "d")
    src = ["def impl(self, mean, cov, size=None, check_valid='warn', tol=1e-8, method='svd'):\n",
           "    m = mean.astype(np.float64)\n    c = cov.astype(np.float64)\n",
           "    if c.shape[0] != c.shape[1]:\n"
           "        raise ValueError('cov must be 2 dimensional and square')\n",
           "    if m.shape[0] != c.shape[0]:\n"
           "        raise ValueError('mean and cov must have same length')\n",
           f"    d = m.shape[0]\n    x = self.standard_normal({shape}).reshape(-1, d)\n"]
    if how == "svd":
        src.append("    u, s, vh = np.linalg.svd(c)\n")
        psd = "np.allclose(np.dot(vh.T * s, vh), c, rtol=tol, atol=tol)"
        factor = "u * np.sqrt(s)"
    elif how == "eigh":
        src.append("    s, u = np.linalg.eigh(c)\n")
        psd = "not np.any(s < -tol)"
        factor = "u * np.sqrt(np.abs(s))"
    else:
        src.append("    factor = np.linalg.cholesky(c)\n")
        psd, factor = None, "factor"
    if psd and valid == "raise":
        src.append(f"    if not {psd}:\n        raise ValueError('covariance is not symmetric "
                   "positive-semidefinite.')\n")
    src.append(f"    y = m + x @ ({factor}).T\n    return y.reshape({shape})\n")
    return generated("impl", "".join(src), {})


def _literal(t, default):
    if not given(t):
        return default
    return getattr(t, "literal_value", getattr(t, "value", t))


def _raises(message):
    """An implementation raising NumPy's ValueError for a bad option, when called."""
    return generated("impl", "def impl(self, mean, cov, size=None, check_valid='warn', "
                     f"tol=1e-8, method='svd'):\n    raise ValueError({message!r})\n", {})


# ---- integers ----------------------------------------------------------------------------

def _int_dtype(dtype):
    if not given(dtype):
        return types.int64
    t = getattr(dtype, "dtype", None) if isinstance(dtype, types.DType) else None
    if t is None or str(t) not in INT_DTYPES:
        raise TypeError(f"Generator.integers() takes an integer or bool dtype, not {dtype}")
    return t


BOUNDS_ERROR = ("(('high < 0' if endpoint else 'high <= 0') if {zero} else "
                "('low > high' if endpoint else 'low >= high'))")


def _int_bound(p):
    return isinstance(p, (types.Integer, types.Boolean)) or (
        is_array(p) and p.ndim > 0 and isinstance(p.dtype, (types.Integer, types.Boolean)))


@overload_method(GEN, "integers")
def _integers(self, low, high=None, size=None, dtype=None, endpoint=False):
    for p in (low, high):
        if given(p) and not _int_bound(p):
            raise TypeError(f"Generator.integers() takes int bounds or arrays of ints, not {p}")
    dt = _int_dtype(dtype)
    lo, hi = INT_DTYPES[str(dt)]
    if is_array(low) or is_array(high):
        return _integers_arrays(low, high, size, dt, lo, hi)
    src = ["def impl(self, low, high=None, size=None, dtype=None, endpoint=False):\n"]
    src.append("    a, b = low, high\n" if given(high) else "    a, b = 0, low\n")
    src.append("    if not endpoint:\n        b = b - 1\n")
    if lo > -2 ** 63:   # compiled ints are int64: only narrower bounds can be passed
        src.append(f"    if a < {lo}:\n        raise ValueError('low is out of bounds for {dt}')\n")
    if hi < 2 ** 63 - 1:
        src.append(f"    if b > {hi}:\n        raise ValueError('high is out of bounds for {dt}')\n")
    src.append(f"    if a > b:\n        raise ValueError({BOUNDS_ERROR.format(zero='a == 0')})\n")
    bits = SMALL_BITS.get(str(dt))
    if bits is None:
        src.append("    off = np.uint64(a)\n    span = np.uint64(b) - off\n")
        one = "dt(G.bounded(self, off, span))"
    else:   # 8- and 16-bit ints and bools are cut from 32-bit words, shared across a fill
        src.append("    span = b - a\n    bcnt = 0\n    buf = 0\n")
        one = "dt(a + v)"
    draw = "" if bits is None else f"v, bcnt, buf = _small(self, span, {bits}, bcnt, buf)\n"
    if not given(size):
        src.append(f"    {draw}    return {one}\n" if draw else f"    return {one}\n")
    else:
        _size_ok(size)
        src.append("    out = np.empty(size, dt)\n    flat = out.reshape(-1)\n"
                   "    for i in range(flat.size):\n" + (f"        {draw}" if draw else "") +
                   f"        flat[i] = {one}\n    return out\n")
    return generated("impl", "".join(src), {"dt": dt, "G": G, "_small": _small})


def _integers_arrays(low, high, size, dt, lo, hi):
    """integers() of array bounds, as NumPy's: the bounds checked (low, then high, then low
    against high), then one draw per place of their broadcast shape (or size) in C order, the
    8- and 16-bit ones cut from 32-bit words shared across the fill."""
    a_arr = is_array(low) if given(high) else False
    b_arr = is_array(high) if given(high) else is_array(low)
    src = ["def impl(self, low, high=None, size=None, dtype=None, endpoint=False):\n",
           ("    a = low\n    b = high\n" if given(high) else "    a = 0\n    b = low\n")]
    src += [f"    {v} = {v}.astype(np.int64)\n" for v, arr in (("a", a_arr), ("b", b_arr)) if arr]
    if lo > -2 ** 63:
        src.append((f"    for _v in a.ravel():\n        if _v < {lo}:\n" if a_arr else
                    f"    if True:\n        if a < {lo}:\n") +
                   f"            raise ValueError('low is out of bounds for {dt}')\n")
    src.append("    bc = b - (0 if endpoint else 1)\n")
    if hi < 2 ** 63 - 1:
        src.append((f"    for _v in bc.ravel():\n        if _v > {hi}:\n" if b_arr else
                    f"    if True:\n        if bc > {hi}:\n") +
                   f"            raise ValueError('high is out of bounds for {dt}')\n")
    zero = "not np.any(a)" if a_arr else "a == 0"
    src.append(f"    if np.any(a > bc):\n        raise ValueError({BOUNDS_ERROR.format(zero=zero)})\n"
               "    span = np.asarray(bc - a)\n")
    arrays, ndims = ["span"] + (["a"] if a_arr else []), {
        "span": max(low.ndim if is_array(low) else 0, high.ndim if is_array(high) else 0),
        "a": low.ndim if a_arr else 0}
    bits = SMALL_BITS.get(str(dt))
    if bits is None:
        body = _broadcast_source(arrays, ndims, size,
                                 "dt(G.bounded(self, np.uint64(a), np.uint64(span)))")
    else:
        src.append("    bcnt = 0\n    buf = 0\n")
        body = _broadcast_source(arrays, ndims, size, "dt(a + v)",
                                 f"v, bcnt, buf = _small(self, span, {bits}, bcnt, buf)")
    return generated("impl", "".join(src) + body, {"dt": dt, "G": G, "_small": _small})


@register_jitable
def _buffered(g, bits, bcnt, buf):
    """The next `bits` bits of the 32-bit word buf (bcnt pieces of it left), or of a new word."""
    if bcnt == 0:
        buf = np.int64(G.next32(g))
        bcnt = 32 // bits - 1
    else:
        buf >>= bits
        bcnt -= 1
    return buf & ((1 << bits) - 1), bcnt, buf


@register_jitable
def _small(g, span, bits, bcnt, buf):
    """A uniform integer in [0, span] of `bits` bits (16, 8, or 1 for bools), with the buffer's
    state after it: the whole word piece when span is the largest, else Lemire's method on
    pieces, as NumPy draws them."""
    if span == 0:
        return 0, bcnt, buf
    top = (1 << bits) - 1
    if span == top:
        return _buffered(g, bits, bcnt, buf)
    excl = span + 1
    v, bcnt, buf = _buffered(g, bits, bcnt, buf)
    m = v * excl
    if (m & top) < excl:
        threshold = (top - span) % excl
        while (m & top) < threshold:
            v, bcnt, buf = _buffered(g, bits, bcnt, buf)
            m = v * excl
    return m >> bits, bcnt, buf


# ---- shuffle, permutation, choice -----------------------------------------------------------

@overload_method(GEN, "shuffle")
def _shuffle(self, x):
    """In place along the first axis: from the last index down, a swap with a uniform index in
    [0, i] drawn by masked rejection (NumPy's Generator.shuffle)."""
    if not is_array(x) or x.ndim == 0:
        raise TypeError(f"Generator.shuffle() takes an array of at least one dimension, not {x}")
    if x.ndim == 1:
        def impl(self, x):
            for i in range(x.shape[0] - 1, 0, -1):
                j = G.interval(self, i)
                t = x[i]
                x[i] = x[j]
                x[j] = t
        return impl

    def rows(self, x):
        for i in range(x.shape[0] - 1, 0, -1):
            j = G.interval(self, i)
            if i != j:
                t = x[i].copy()
                x[i] = x[j]
                x[j] = t
    return rows


@overload_method(GEN, "permutation")
def _permutation(self, x):
    if isinstance(x, types.Integer):
        def of_int(self, x):
            a = np.arange(x)
            self.shuffle(a)
            return a
        return of_int
    if not is_array(x) or x.ndim == 0:
        raise TypeError(f"Generator.permutation() takes an int or an array of at least one "
                        f"dimension, not {x}")
    if x.ndim == 1:
        def of_vector(self, x):
            a = x.copy()
            self.shuffle(a)
            return a
        return of_vector

    def of_array(self, x):
        idx = np.arange(x.shape[0])
        self.shuffle(idx)
        return x[idx]
    return of_array


def _choice_source(of_int, weighted, scalar):
    """choice's body, as NumPy's Generator.choice draws: with replacement integers(0, n), or
    uniforms searched in the weights' cdf; without, rounds of such searches keeping new indices
    (weighted), a shuffle of the tail of arange(n) (a large share of a large population), or
    Floyd's algorithm with a hash set, then a shuffle of the sample (shuffle=True)."""
    lines = ["def impl(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):\n",
             "    pop = a\n" if of_int else "    pop = a.shape[0]\n",
             "    shape = ()\n    n = 1\n" if scalar else
             "    shape = size\n    n = np.empty(size, np.int8).size\n"]
    lines.append("    if pop <= 0 and n != 0:\n        raise ValueError(" +
                 ("'a must be a positive integer unless no samples are taken')\n" if of_int else
                  "'a cannot be empty unless no samples are taken')\n"))
    if weighted:
        lines.append("    w = p.astype(np.float64)\n"
                     "    if w.size != pop:\n        raise ValueError('a and p must have same size')\n"
                     "    total = w.sum()\n"
                     "    if total != total:\n        raise ValueError('Probabilities contain NaN')\n"
                     "    if (w < 0).any():\n"
                     "        raise ValueError('Probabilities are not non-negative')\n"
                     "    if abs(total - 1.0) > atol:\n"
                     "        raise ValueError('Probabilities do not sum to 1. See Notes section of "
                     "docstring for more information.')\n")
    lines.append("    if replace:\n")
    if weighted:
        lines.append("        cdf = np.cumsum(w)\n        cdf /= cdf[-1]\n")
        lines.append("        idx = np.searchsorted(cdf, self.random(), 'right')\n" if scalar else
                     "        idx = np.searchsorted(cdf, self.random(shape), 'right')\n")
    else:
        lines.append("        idx = self.integers(0, pop)\n" if scalar else
                     "        idx = self.integers(0, pop, shape)\n")
    lines.append("    else:\n        if n > pop:\n            raise ValueError('Cannot take a larger "
                 "sample than population when replace is False')\n")
    lines.append("        found = _choose_weighted(w, n, self)\n" if weighted else
                 "        found = _without(self, pop, n, shuffle)\n")
    lines.append("        idx = found[0]\n" if scalar else "        idx = found.reshape(shape)\n")
    lines.append("    return idx\n" if of_int else "    return a[idx]\n")
    return "".join(lines)


@overload_method(GEN, "choice")
def _choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
    of_int = isinstance(a, types.Integer)
    if not of_int and not (is_array(a) and a.ndim == 1):
        raise TypeError(f"Generator.choice() takes an int or a 1-d array, not {a}")
    for name, flag in (("replace", replace), ("shuffle", shuffle)):
        if not isinstance(flag, (bool, types.Boolean, types.Omitted)):
            raise TypeError(f"Generator.choice() takes a bool {name}, not {flag}")
    if isinstance(axis, types.Type) and given(axis) and not isinstance(axis, types.Integer):
        raise TypeError(f"Generator.choice() takes an int axis, not {axis}")
    weighted = given(p)
    if weighted and not (is_array(p) and p.ndim == 1 and
                         isinstance(p.dtype, (types.Float, types.Integer))):
        raise TypeError(f"p must be a 1-d array of numbers, not {p}")
    scalar = not given(size)
    if not scalar:
        _size_ok(size)
    atol = np.sqrt(np.finfo(np.float64).eps)
    if weighted and isinstance(p.dtype, types.Float):
        atol = max(atol, float(np.sqrt(np.finfo(str(p.dtype)).eps)))
    body = generated("impl", _choice_source(of_int, weighted, scalar),
                     {"_without": _without, "_choose_weighted": _choose_weighted,
                      "atol": atol})
    return body


def _without(g, pop, n, shuffle):
    pass


@overload(_without)
def _without_impl(g, pop, n, shuffle):
    def impl(g, pop, n, shuffle):
        if pop > 10000 and n > pop // (50 if shuffle else 20):
            idx = np.arange(pop)
            for i in range(pop - 1, max(pop - n, 1) - 1, -1):   # the tail's shuffle
                j = np.int64(G.bounded(g, np.uint64(0), np.uint64(i)))
                t = idx[j]
                idx[j] = idx[i]
                idx[i] = t
            return idx[pop - n:].copy()
        idx = np.empty(n, np.int64)
        mask = np.uint64(int(1.2 * n))   # a hash set of a power of two above 1.2 n
        for s in (1, 2, 4, 8, 16, 32):
            mask |= mask >> np.uint64(s)
        empty = ~np.uint64(0)   # no value
        table = np.full(int(mask) + 1, empty, np.uint64)
        for j in range(pop - n, pop):   # Floyd's algorithm
            val = G.bounded(g, np.uint64(0), np.uint64(j))
            loc = val & mask
            while table[loc] != empty and table[loc] != val:
                loc = (loc + np.uint64(1)) & mask
            if table[loc] == empty:
                table[loc] = val
                idx[j - pop + n] = np.int64(val)
            else:
                loc = np.uint64(j) & mask
                while table[loc] != empty:
                    loc = (loc + np.uint64(1)) & mask
                table[loc] = np.uint64(j)
                idx[j - pop + n] = j
        if shuffle:
            for i in range(n - 1, 0, -1):
                j = np.int64(G.bounded(g, np.uint64(0), np.uint64(i)))
                t = idx[j]
                idx[j] = idx[i]
                idx[i] = t
        return idx
    return impl


# ---- default_rng --------------------------------------------------------------------------

@overload(np.random.default_rng)
def _default_rng(seed=None):
    if not given(seed):
        return lambda seed=None: G.new(0, 0)
    if not isinstance(seed, types.Integer):
        raise TypeError(f"np.random.default_rng() in compiled code takes an int seed or none, "
                        f"not {seed}")

    def impl(seed=None):
        if seed < 0:
            raise ValueError("expected non-negative integer")
        return G.new(seed, 1)
    return impl


HELPERS = {"_negative": _negative, "_cauchy": _cauchy, "_laplace": _laplace, "_logistic": _logistic,
           "_geometric": _geometric, "_standard_t": _standard_t, "_f": _f,
           "_noncentral_chisquare": _noncentral_chisquare, "_noncentral_f": _noncentral_f,
           "_weibull": _weibull, "_gumbel": _gumbel, "_triangular": _triangular, "_wald": _wald,
           "_vonmises": _vonmises, "_zipf": _zipf, "_logseries": _logseries,
           "_hypergeometric": _hypergeometric}
