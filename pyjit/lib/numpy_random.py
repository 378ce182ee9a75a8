"""np.random in compiled code, written in the subset over the generator's builtins
(compiler/builtins.def: seed, random, rand, randn, randint, uniform, normal, standard_exponential,
standard_gamma, beta, poisson, binomial; runtime/random.c draws NumPy's legacy streams).

Here: the `size=` form of every distribution (an array of that shape, filled in C order, so it
holds the numbers the same draws one at a time give, as NumPy's does), the distributions that are
a formula over those (random_sample, sample, ranf, standard_normal, exponential, gamma,
chisquare, lognormal), and shuffle, permutation and choice, written as NumPy's legacy
RandomState writes them, so that after the same np.random.seed they give NumPy's results.
Parameters are scalars (NumPy also broadcasts arrays of parameters; pyjit refuses those)."""
import numpy as np

from ._util import generated, given, is_array, is_number, overload, types


def _generated(source, env=None, name="impl"):
    return generated(name, source, env or {})


def _scalars(*params):
    """Whether every parameter is a number (or left out)."""
    return all(p is None or not isinstance(p, types.Type) or is_number(p) or
               isinstance(p, (types.Omitted, types.NoneType)) for p in params)


def _size_ok(size):
    if isinstance(size, types.Integer) or (isinstance(size, types.UniTuple) and
                                           isinstance(size.dtype, types.Integer)):
        return True
    if isinstance(size, types.Tuple) and not size.types:
        return True
    raise TypeError(f"size must be an int or a tuple of ints, not {size}")


def _register(func, params, checks, draw, dt, size_only=False):
    """Registers the overload of np.random.<func> with these parameters (the source of its
    signature, size last), checks (source lines) and one draw (a source expression, or a
    function of the argument types giving one): one number without size (unless size_only: the
    builtin draws that one), an array of dt of shape size with it."""
    names = [p.split("=")[0].strip() for p in params.split(",")]

    def typing(*args):
        size = args[-1]
        if not _scalars(*args[:-1]):
            raise TypeError(f"pyjit draws np.random.{func.__name__}() from scalar parameters "
                            "only")
        one = draw(*args) if callable(draw) else draw
        if not given(size):
            if size_only:
                return None
            body = f"    return {one}\n"
        else:
            _size_ok(size)
            body = ("    out = np.empty(size, dt)\n    flat = out.reshape(-1)\n"
                    f"    for i in range(flat.size):\n        flat[i] = {one}\n    return out\n")
        return _generated(f"def impl({params}):\n" + checks + body, {"dt": dt})
    # the typing function's signature is the implementation's (pyjit.extending checks it)
    signature = _generated(f"def typing({params}):\n    return inner({', '.join(names)})\n",
                           {"inner": typing, "__name__": __name__}, "typing")
    overload(func)(signature)


F8, I8 = types.float64, types.int64

# the builtins' size= forms
_register(np.random.random_sample, "size=None", "", "np.random.random()", F8)
_register(np.random.sample, "size=None", "", "np.random.random()", F8)
_register(np.random.ranf, "size=None", "", "np.random.random()", F8)
_register(np.random.standard_normal, "size=None", "", "np.random.randn()", F8)
_register(np.random.uniform, "low=0.0, high=1.0, size=None", "",
          "np.random.uniform(low, high)", F8, size_only=True)
_register(np.random.normal, "loc=0.0, scale=1.0, size=None", "",
          "np.random.normal(loc, scale)", F8, size_only=True)
_register(np.random.randint, "low, high=None, size=None", "",
          lambda low, high, size: ("np.random.randint(low, high)" if given(high)
                                   else "np.random.randint(low)"), I8, size_only=True)
_register(np.random.standard_exponential, "size=None", "", "np.random.standard_exponential()",
          F8, size_only=True)
_register(np.random.standard_gamma, "shape, size=None", "", "np.random.standard_gamma(shape)",
          F8, size_only=True)
_register(np.random.beta, "a, b, size=None", "", "np.random.beta(a, b)", F8, size_only=True)
_register(np.random.poisson, "lam=1.0, size=None", "", "np.random.poisson(lam)", I8,
          size_only=True)
_register(np.random.binomial, "n, p, size=None", "", "np.random.binomial(n, p)", I8,
          size_only=True)

# formulas over them, as NumPy's legacy generator computes them
_register(np.random.exponential, "scale=1.0, size=None",
          "    if scale < 0:\n        raise ValueError('scale < 0')\n",
          "scale * np.random.standard_exponential()", F8)
_register(np.random.gamma, "shape, scale=1.0, size=None",
          "    if shape < 0:\n        raise ValueError('shape < 0')\n"
          "    if scale < 0:\n        raise ValueError('scale < 0')\n",
          "scale * np.random.standard_gamma(shape)", F8)
_register(np.random.chisquare, "df, size=None",
          "    if df <= 0:\n        raise ValueError('df <= 0')\n",
          "2.0 * np.random.standard_gamma(df / 2.0)", F8)
_register(np.random.lognormal, "mean=0.0, sigma=1.0, size=None",
          "    if sigma < 0:\n        raise ValueError('sigma < 0')\n",
          "np.exp(np.random.normal(mean, sigma))", F8)


# ---- shuffle, permutation, choice ----------------------------------------------------------

@overload(np.random.shuffle)
def _shuffle(x):
    """In place along the first axis: for i from the last index down, swap with a uniform index
    in [0, i] (NumPy's legacy order of draws)."""
    if not is_array(x) or x.ndim == 0:
        raise TypeError("pyjit shuffles arrays of at least one dimension")
    if x.ndim == 1:
        def impl(x):
            for i in range(x.shape[0] - 1, 0, -1):
                j = np.random.randint(0, i + 1)
                t = x[i]
                x[i] = x[j]
                x[j] = t
        return impl

    def rows(x):
        for i in range(x.shape[0] - 1, 0, -1):
            j = np.random.randint(0, i + 1)
            if i != j:
                t = x[i].copy()
                x[i] = x[j]
                x[j] = t
    return rows


@overload(np.random.permutation)
def _permutation(x):
    if isinstance(x, types.Integer):
        def of_int(x):
            a = np.arange(x)
            np.random.shuffle(a)
            return a
        return of_int
    if not is_array(x) or x.ndim == 0:
        raise TypeError("x must be an integer or at least 1-dimensional")
    if x.ndim == 1:
        def of_vector(x):
            a = x.copy()
            np.random.shuffle(a)
            return a
        return of_vector

    def of_array(x):
        idx = np.arange(x.shape[0])
        np.random.shuffle(idx)
        return x[idx]
    return of_array


def _choice_source(scalar, replace, weighted, of_int):
    """choice's body, as NumPy's legacy RandomState.choice draws."""
    lines = ["def impl(a, size=None, replace=True, p=None):\n"]
    lines.append("    pop = a\n" if of_int else "    pop = a.shape[0]\n")
    lines.append("    shape = ()\n" if scalar else "    shape = size\n")
    lines.append("    n = 1\n" if scalar else "    n = np.empty(size, np.int8).size\n")
    lines.append("    if pop <= 0 and n != 0:\n"
                 "        raise ValueError('a must be greater than 0 unless no samples are "
                 "taken')\n")
    if weighted:
        lines.append("    if p.ndim != 1:\n        raise ValueError(\"'p' must be 1-dimensional\")\n"
                     "    if p.size != pop:\n"
                     "        raise ValueError(\"'a' and 'p' must have same size\")\n"
                     "    total = p.sum()\n"
                     "    if total != total:\n        raise ValueError('probabilities contain NaN')\n"
                     "    if (p < 0).any():\n"
                     "        raise ValueError('probabilities are not non-negative')\n"
                     "    if abs(total - 1.0) > 1.4901161193847656e-08:\n"
                     "        raise ValueError('probabilities do not sum to 1')\n")
    if replace and weighted:
        lines.append("    cdf = np.cumsum(p.astype(np.float64))\n    cdf /= cdf[-1]\n")
        draw = ("np.searchsorted(cdf, np.random.random(), 'right')" if scalar else
                "np.searchsorted(cdf, np.random.random_sample(shape), 'right')")
        lines.append(f"    idx = {draw}\n")
    elif replace:
        lines.append("    idx = np.random.randint(0, pop)\n" if scalar else
                     "    idx = np.random.randint(0, pop, shape)\n")
    else:
        lines.append("    if n > pop:\n        raise ValueError(\"Cannot take a larger sample than "
                     "population when 'replace=False'\")\n")
        if weighted:
            lines.append("    found = _choose_weighted(p.astype(np.float64), n, None)\n")
        else:
            lines.append("    found = np.random.permutation(pop)[:n]\n")
        lines.append("    idx = found[0]\n" if scalar else "    idx = found.reshape(shape)\n")
    lines.append("    return idx\n" if of_int else "    return a[idx]\n")
    return "".join(lines)


def _uniforms(g, k):
    pass


@overload(_uniforms)
def _uniforms_impl(g, k):
    """k uniforms on [0, 1): drawn from the Generator g, or from NumPy's legacy stream when g is
    None."""
    if isinstance(g, types.NoneType):
        def legacy(g, k):
            return np.random.random_sample(k)
        return legacy

    def impl(g, k):
        return g.random(k)
    return impl


def _choose_weighted(p, n, g):
    pass


@overload(_choose_weighted)
def _choose_weighted_impl(p, n, g):
    """n distinct indices drawn with weights p, without replacement, as NumPy's legacy choice and
    Generator.choice both draw them: rounds of uniforms (from g, or the legacy stream when g is
    None) searched in the cdf of the weights left, keeping the new indices in the order they
    first came."""
    def impl(p, n, g):
        if np.count_nonzero(p > 0) < n:
            raise ValueError("Fewer non-zero entries in p than size")
        p = p.copy()
        found = np.empty(n, np.int64)
        have = 0
        while have < n:
            x = _uniforms(g, n - have)
            for k in range(have):
                p[found[k]] = 0.0
            cdf = np.cumsum(p)
            cdf /= cdf[-1]
            new = np.searchsorted(cdf, x, "right")
            seen = set()
            for v in new:
                if v not in seen:
                    seen.add(v)
                    found[have] = v
                    have += 1
        return found
    return impl


@overload(np.random.choice)
def _choice(a, size=None, replace=True, p=None):
    of_int = isinstance(a, types.Integer)
    if not of_int and not (is_array(a) and a.ndim == 1):
        raise TypeError("a must be 1-dimensional or an integer")
    if not isinstance(replace, (bool, types.Boolean, types.Omitted)):
        raise TypeError("replace must be a bool")
    weighted = given(p)
    if weighted and not (is_array(p) and isinstance(p.dtype, (types.Float, types.Integer))):
        raise TypeError("p must be an array of numbers")
    scalar = not given(size)
    if not scalar:
        _size_ok(size)
    source_of = {flag: _choice_source(scalar, flag, weighted, of_int) for flag in (True, False)}
    env = {"_choose_weighted": _choose_weighted}
    if isinstance(replace, (bool, types.Omitted)):
        return _generated(source_of[replace if isinstance(replace, bool) else True], env)
    # replace known only at run time: both ways, chosen then
    from ..extending import register_jitable
    env["with_replace"] = register_jitable(_generated(source_of[True], env))
    env["without"] = register_jitable(_generated(source_of[False], env))
    return _generated("def impl(a, size=None, replace=True, p=None):\n"
                      "    if replace:\n        return with_replace(a, size, replace, p)\n"
                      "    return without(a, size, replace, p)\n", env)
