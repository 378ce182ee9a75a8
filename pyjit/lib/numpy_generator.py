"""np.random.Generator in compiled code: default_rng and the Generator's methods, written in the
subset over the draws of runtime/generator.c (the pyjit._generator rows of builtins.def), which
follow NumPy's Generator algorithms on the Generator's own BitGenerator.

Each method checks its parameters as NumPy does (the same exception and message), then draws one
number, or fills an array of shape `size` in C order with the same draws one at a time (NumPy's
fills draw in that order too, so the numbers are the same). Parameters are scalars: NumPy also
broadcasts arrays of parameters; pyjit refuses those."""
import numpy as np

from .. import _generator as G
from .numpy_random import _choose_weighted
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


def _size_ok(size):
    if isinstance(size, types.Integer) or (isinstance(size, types.UniTuple) and
                                           isinstance(size.dtype, types.Integer)):
        return True
    if isinstance(size, types.Tuple) and not size.types:
        return True
    raise TypeError(f"size must be an int or a tuple of ints, not {size}")


def _scalars(method, *params):
    for p in params:
        if isinstance(p, types.Type) and given(p) and not is_number(p):
            raise TypeError(f"pyjit draws Generator.{method}() from scalar parameters only, "
                            f"not {p}")


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
    shape size filled with such draws."""
    def build(size):
        if not given(size):
            body = f"    return {draw}\n"
        else:
            _size_ok(size)
            body = ("    out = np.empty(size, dt)\n    flat = out.reshape(-1)\n"
                    f"    for i in range(flat.size):\n        flat[i] = {draw}\n    return out\n")
        return generated("impl", f"def impl(self, {params}):\n" + checks + body,
                         {"dt": dt, "G": G, "_laplace": _laplace, "_logistic": _logistic,
                          "_geometric": _geometric, "_negative": _negative})
    return build


def _register(name, params, checks, draw, dtype_of=None, dt=F8):
    """overload_method(Generator, name) with these parameters (size among them; a `dtype`
    parameter picks the draw through dtype_of(dtype) -> (draw, dt))."""
    names = [p.split("=")[0].strip() for p in params.split(",")]

    def typing(self, *args):
        bound = dict(zip(names, args))
        _scalars(name, *[bound[n] for n in names if n not in ("size", "dtype")])
        one, t = (draw, dt) if dtype_of is None else dtype_of(bound.get("dtype"))
        return _method(name, params, checks, one, t)(bound.get("size"))
    signature = generated("typing", f"def typing(self, {params}):\n"
                          f"    return inner(self, {', '.join(names)})\n",
                          {"inner": typing, "__name__": __name__})
    overload_method(GEN, name)(signature)


def _by_dtype(method, draw64, draw32):
    def pick(dtype):
        t = _float_dtype(method, dtype)
        return (draw64, F8) if t == F8 else (draw32, F4)
    return pick


_register("random", "size=None, dtype=None", "", None,
          _by_dtype("random", "G.random(self)", "G.random_f(self)"))
_register("standard_normal", "size=None, dtype=None", "", None,
          _by_dtype("standard_normal", "G.normal(self)", "G.normal_f(self)"))
_register("standard_exponential", "size=None, dtype=None", "", None,
          _by_dtype("standard_exponential", "G.exponential(self)", "G.exponential_f(self)"))
_register("uniform", "low=0.0, high=1.0, size=None",
          "    span = high - low\n"
          "    if span - span != 0.0:\n"
          "        raise OverflowError('high - low range exceeds valid bounds')\n"
          "    if _negative(span):\n        raise ValueError('high - low < 0')\n",
          "low + span * G.random(self)")
_register("normal", "loc=0.0, scale=1.0, size=None",
          "    if _negative(scale):\n        raise ValueError('scale < 0')\n",
          "loc + scale * G.normal(self)")
_register("exponential", "scale=1.0, size=None",
          "    if _negative(scale):\n        raise ValueError('scale < 0')\n",
          "scale * G.exponential(self)")
_register("standard_gamma", "shape, size=None, dtype=None",
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
          f"G.binomial(self, n, p, {_BTPE_CORRECTED})", dt=types.int64)
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


# ---- integers ----------------------------------------------------------------------------

def _int_dtype(dtype):
    if not given(dtype):
        return types.int64
    t = getattr(dtype, "dtype", None) if isinstance(dtype, types.DType) else None
    if t is None or str(t) not in INT_DTYPES:
        raise TypeError(f"Generator.integers() takes an integer or bool dtype, not {dtype}")
    return t


@overload_method(GEN, "integers")
def _integers(self, low, high=None, size=None, dtype=None, endpoint=False):
    _scalars("integers", low, high)
    for p in (low, high):
        if given(p) and not isinstance(p, (types.Integer, types.Boolean)):
            raise TypeError(f"Generator.integers() takes int bounds, not {p}")
    dt = _int_dtype(dtype)
    lo, hi = INT_DTYPES[str(dt)]
    src = ["def impl(self, low, high=None, size=None, dtype=None, endpoint=False):\n"]
    src.append("    a, b = low, high\n" if given(high) else "    a, b = 0, low\n")
    src.append("    if not endpoint:\n        b = b - 1\n")
    if lo > -2 ** 63:   # compiled ints are int64: only narrower bounds can be passed
        src.append(f"    if a < {lo}:\n        raise ValueError('low is out of bounds for {dt}')\n")
    if hi < 2 ** 63 - 1:
        src.append(f"    if b > {hi}:\n        raise ValueError('high is out of bounds for {dt}')\n")
    src.append("    if a > b:\n        raise ValueError('low > high' if endpoint else "
               "'low >= high')\n")
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
