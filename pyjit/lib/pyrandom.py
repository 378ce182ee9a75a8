"""Python's random module in compiled code, written in the subset over the module's own state
(runtime/random.c: random.seed seeds it as CPython's random.seed does; random.random is a builtin
row; pyjit._generator.py_next32 and py_gauss are its 32-bit words and gauss's Box-Muller pair).

Each function follows CPython's Lib/random.py draw for draw (integers below n by rejecting
getrandbits(n.bit_length()) draws, Kinderman and Monahan's normals, Cheng's and Ahrens and
Dieter's gammas, Best and Fisher's von Mises), so after the same random.seed(n) compiled code
draws the numbers the interpreter draws. As in Numba, the state is compiled code's own (one per
thread): random.seed in the interpreter does not move it, nor it the interpreter's."""
import math
import random

import numpy as np

from .. import _generator as G
from ._util import given, is_array, is_number, overload, register_jitable, types

_TWOPI = 2.0 * math.pi
_NV_MAGICCONST = 4 * math.exp(-0.5) / math.sqrt(2.0)
_LOG4 = math.log(4.0)
_SG_MAGICCONST = 1.0 + math.log(4.5)
_E = math.e


def _numbers(what, *args):
    for a in args:   # a left out is its default value, not a type
        if not isinstance(a, types.Type) or not given(a):
            continue
        if not is_number(a):
            raise TypeError(f"random.{what}() takes numbers, not {a}")
        if isinstance(a, types.Complex):
            raise TypeError(f"random.{what}() takes real numbers, not {a}")


def _ints(what, *args):
    for a in args:
        if isinstance(a, types.Type) and given(a) and not isinstance(a, (types.Integer,
                                                                          types.Boolean)):
            raise TypeError(f"random.{what}() takes ints, not {a}")


@register_jitable
def _bits(k):
    """getrandbits(k) for 0 <= k <= 64 as CPython's: one word cut to k bits for k <= 32, else
    the low word first."""
    if k == 0:
        return np.uint64(0)
    if k <= 32:
        return np.uint64(G.py_next32() >> np.uint32(32 - k))
    lo = np.uint64(G.py_next32())
    hi = np.uint64(G.py_next32() >> np.uint32(64 - k))
    return lo | (hi << np.uint64(32))


@register_jitable
def _below(n):
    """A uniform int in [0, n) for n >= 1: getrandbits(n.bit_length()) until below n."""
    k = 0
    m = n
    while m > 0:
        k += 1
        m >>= 1
    r = np.int64(_bits(k))
    while r >= n:
        r = np.int64(_bits(k))
    return r


@overload(random.getrandbits)
def _getrandbits(k):
    _ints("getrandbits", k)

    def impl(k):
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k > 64:
            raise ValueError("getrandbits() takes at most 64 bits in compiled code")
        return _bits(k)
    return impl


@register_jitable
def _randrange(start, stop, step):
    width = stop - start
    if step == 1:
        if width > 0:
            return start + _below(width)
        raise ValueError("empty range for randrange()")
    if step > 0:
        n = (width + step - 1) // step
    elif step < 0:
        n = (width + step + 1) // step
    else:
        raise ValueError("zero step for randrange()")
    if n <= 0:
        raise ValueError("empty range for randrange()")
    return start + step * _below(n)


@overload(random.randrange)
def _randrange_typing(start, stop=None, step=1):
    _ints("randrange", start, stop, step)
    if not given(stop):
        if isinstance(step, types.Type) and given(step):
            raise TypeError("random.randrange() takes a step only with a stop")

        def one(start, stop=None, step=1):
            if start > 0:
                return np.int64(_below(start))
            raise ValueError("empty range for randrange()")
        return one

    def impl(start, stop=None, step=1):
        return _randrange(np.int64(start), np.int64(stop), np.int64(step))
    return impl


@overload(random.randint)
def _randint(a, b):
    _ints("randint", a, b)
    return lambda a, b: _randrange(np.int64(a), np.int64(b) + 1, np.int64(1))


@overload(random.choice)
def _choice(seq):
    if not (is_array(seq) or isinstance(seq, (types.List, types.UniTuple, types.UnicodeType))):
        raise TypeError(f"random.choice() takes an array, a list, a tuple of one type or a str, "
                        f"not {seq}")

    def impl(seq):
        if len(seq) == 0:
            raise IndexError("Cannot choose from an empty sequence")
        return seq[_below(len(seq))]
    return impl


@overload(random.shuffle)
def _shuffle(x):
    if not ((is_array(x) and x.ndim == 1) or isinstance(x, types.List)):
        raise TypeError(f"random.shuffle() takes a 1-d array or a list, not {x}")
    if is_array(x) and x.readonly:
        raise TypeError("random.shuffle() cannot shuffle a read-only array")

    def impl(x):
        for i in range(len(x) - 1, 0, -1):
            j = _below(i + 1)
            x[i], x[j] = x[j], x[i]
    return impl


@overload(random.uniform)
def _uniform(a, b):
    _numbers("uniform", a, b)
    return lambda a, b: a + (b - a) * random.random()


@overload(random.triangular)
def _triangular(low=0.0, high=1.0, mode=None):
    _numbers("triangular", low, high, mode)
    if not given(mode):
        def half(low=0.0, high=1.0, mode=None):
            return _triangular_draw(np.float64(low), np.float64(high), 0.5)
        return half

    def impl(low=0.0, high=1.0, mode=None):
        lo, hi = np.float64(low), np.float64(high)
        u = random.random()
        if hi - lo == 0.0:
            return lo
        return _triangular_from(u, lo, hi, (mode - lo) / (hi - lo))
    return impl


@register_jitable
def _triangular_draw(low, high, c):
    return _triangular_from(random.random(), low, high, c)


@register_jitable
def _triangular_from(u, low, high, c):
    if u > c:
        u = 1.0 - u
        c = 1.0 - c
        low, high = high, low
    return low + (high - low) * math.sqrt(u * c)


@register_jitable
def _normal():
    while True:
        u1 = random.random()
        u2 = 1.0 - random.random()
        z = _NV_MAGICCONST * (u1 - 0.5) / u2
        zz = z * z / 4.0
        if zz <= -math.log(u2):
            return z


@overload(random.normalvariate)
def _normalvariate(mu=0.0, sigma=1.0):
    _numbers("normalvariate", mu, sigma)
    return lambda mu=0.0, sigma=1.0: mu + _normal() * sigma


@overload(random.gauss)
def _gauss(mu=0.0, sigma=1.0):
    _numbers("gauss", mu, sigma)
    return lambda mu=0.0, sigma=1.0: mu + G.py_gauss() * sigma


@overload(random.lognormvariate)
def _lognormvariate(mu, sigma):
    _numbers("lognormvariate", mu, sigma)
    return lambda mu, sigma: math.exp(mu + _normal() * sigma)


@overload(random.expovariate)
def _expovariate(lambd=1.0):
    _numbers("expovariate", lambd)
    return lambda lambd=1.0: -math.log(1.0 - random.random()) / lambd


@overload(random.vonmisesvariate)
def _vonmisesvariate(mu, kappa):
    _numbers("vonmisesvariate", mu, kappa)

    def impl(mu, kappa):
        if kappa <= 1e-6:
            return _TWOPI * random.random()
        s = 0.5 / kappa
        r = s + math.sqrt(1.0 + s * s)
        while True:
            u1 = random.random()
            z = math.cos(math.pi * u1)
            d = z / (r + z)
            u2 = random.random()
            if u2 < 1.0 - d * d or u2 <= (1.0 - d) * math.exp(d):
                break
        q = 1.0 / r
        f = (q + z) / (1.0 + q * z)
        if random.random() > 0.5:
            return (mu + math.acos(f)) % _TWOPI
        return (mu - math.acos(f)) % _TWOPI
    return impl


@register_jitable
def _gamma(alpha, beta):
    if alpha <= 0.0 or beta <= 0.0:
        raise ValueError("gammavariate: alpha and beta must be > 0.0")
    if alpha > 1.0:
        # Cheng's rejection (R.C.H. Cheng, 1977), as CPython's
        ainv = math.sqrt(2.0 * alpha - 1.0)
        bbb = alpha - _LOG4
        ccc = alpha + ainv
        while True:
            u1 = random.random()
            if not 1e-7 < u1 < 0.9999999:
                continue
            u2 = 1.0 - random.random()
            v = math.log(u1 / (1.0 - u1)) / ainv
            x = alpha * math.exp(v)
            z = u1 * u1 * u2
            r = bbb + ccc * v - x
            if r + _SG_MAGICCONST - 4.5 * z >= 0.0 or r >= math.log(z):
                return x * beta
    if alpha == 1.0:
        return -math.log(1.0 - random.random()) * beta
    # alpha < 1: Ahrens and Dieter's GS, as CPython's
    while True:
        u = random.random()
        b = (_E + alpha) / _E
        p = b * u
        if p <= 1.0:
            x = p ** (1.0 / alpha)
        else:
            x = -math.log((b - p) / alpha)
        u1 = random.random()
        if p > 1.0:
            if u1 <= x ** (alpha - 1.0):
                return x * beta
        elif u1 <= math.exp(-x):
            return x * beta


@overload(random.gammavariate)
def _gammavariate(alpha, beta):
    _numbers("gammavariate", alpha, beta)
    return lambda alpha, beta: _gamma(np.float64(alpha), np.float64(beta))


@overload(random.betavariate)
def _betavariate(alpha, beta):
    _numbers("betavariate", alpha, beta)

    def impl(alpha, beta):
        y = _gamma(np.float64(alpha), 1.0)
        if y != 0.0:
            return y / (y + _gamma(np.float64(beta), 1.0))
        return 0.0
    return impl


@overload(random.paretovariate)
def _paretovariate(alpha):
    _numbers("paretovariate", alpha)
    return lambda alpha: (1.0 - random.random()) ** (-1.0 / alpha)


@overload(random.weibullvariate)
def _weibullvariate(alpha, beta):
    _numbers("weibullvariate", alpha, beta)
    return lambda alpha, beta: alpha * (-math.log(1.0 - random.random())) ** (1.0 / beta)
