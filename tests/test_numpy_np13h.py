"""NumPy features against NumPy itself: ufunc.outer with out= (NumPy's ufuncs and @vectorize
ones), out= on the nan-reductions along an axis, Polynomial objects called on numbers and arrays,
an Ellipsis index that leaves a 0-d array, library errors built from their arguments; over
dtypes, layouts (C, Fortran, strided), NaN and empty arrays."""
import numpy as np
import pytest

import pyjit
from pyjit import njit, vectorize

from util import assert_same, check

RNG = np.random.default_rng(1313)


def _layouts(a):
    """a as C, Fortran and strided arrays of the same values."""
    wide = np.repeat(a, 2, axis=-1)
    return [a, np.asfortranarray(a), wide[..., ::2]]


# ---- ufunc.outer(..., out=) ------------------------------------------------------------------

@vectorize(['float64(float64, float64)', 'int64(int64, int64)'])
def _vmix(x, y):
    return x * 2 + y


@vectorize
def _vlazy(x, y):
    return x - y * y


def _outer_into(a, b, o):
    return np.add.outer(a, b, out=o)


def _outer_into_tuple(a, b, o):
    return np.multiply.outer(a, b, out=(o,))


def _outer_max(a, b, o):
    r = np.maximum.outer(a, b, out=o)
    return r is o


def _outer_vec(a, b, o):
    return _vmix.outer(a, b, out=o)


def _outer_lazy(a, b, o):
    return _vlazy.outer(a, b, out=o)


@pytest.mark.parametrize("f", [_outer_into, _outer_into_tuple, _outer_max, _outer_vec,
                               _outer_lazy])
@pytest.mark.parametrize("dt", [np.int64, np.float32, np.float64])
def test_ufunc_outer_out(f, dt):
    a = (RNG.standard_normal(5) * 10).astype(dt)
    b = (RNG.standard_normal(3) * 10).astype(dt)
    out_dt = np.float64 if f in (_outer_vec, _outer_lazy) and dt == np.float32 else dt
    check(f, a, b, np.zeros((5, 3), out_dt))
    check(f, a[::-1], b[::2], np.zeros((5, 2), out_dt))           # strided operands
    check(f, a, b, np.zeros((3, 5), out_dt).T)                     # a transposed out
    check(f, a[:0], b, np.zeros((0, 3), out_dt))                    # empty


def test_ufunc_outer_out_nd_and_numbers():
    m = RNG.standard_normal((2, 3))
    v = RNG.standard_normal(4)
    check(_outer_into, m, v, np.zeros((2, 3, 4)))
    check(_outer_into, v, m, np.zeros((4, 2, 3)))
    check(_outer_into, 2.5, v, np.zeros(4))
    check(_outer_into, np.arange(4, dtype=np.int32), np.arange(3, dtype=np.int8),
          np.zeros((4, 3)))                                         # ints into a float out


def test_ufunc_outer_out_errors():
    a, b = np.arange(5.0), np.arange(3.0)
    cf = njit(_outer_into)
    with pytest.raises(ValueError):
        cf(a, b, np.zeros((5, 4)))                                  # NumPy: ValueError too
    with pytest.raises(pyjit.TypingError, match="Cannot cast ufunc 'add' output"):
        cf(a, b, np.zeros((5, 3), np.int64))
    with pytest.raises(pyjit.TypingError, match="out= has 1 dimensions where the result has 2"):
        cf(a, b, np.zeros(15))


# ---- out= on the NaN-skipping reductions, the medians and the quantiles -----------------------

_NAN_REDUCTIONS = ["nansum", "nanprod", "nanmean", "nanmin", "nanmax", "nanvar", "nanstd",
                   "nanmedian", "median"]


def _with_nans(dt, shape=(3, 4)):
    a = (RNG.standard_normal(shape) * 4).astype(dt)
    if np.dtype(dt).kind == "f":
        a.flat[[0, 5, 7]] = np.nan
    return a


def _reduce_into(name, axis, keepdims=False):
    return eval(f"lambda a, o: np.{name}(a, axis={axis!r}, out=o, keepdims={keepdims})")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", _NAN_REDUCTIONS)
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64])
def test_nan_reductions_out(name, dt):
    base = _with_nans(dt)
    out_dt = np.float64 if dt == np.int64 and name not in ("nansum", "nanprod",
                                                           "nanmin", "nanmax") else dt
    axes = (0, 1, None) if dt == np.float64 else (1,)
    for a in _layouts(base) if dt == np.float64 else [base[:, ::2]]:
        for axis in axes:
            shape = () if axis is None else (a.shape[1 - axis],)
            check(_reduce_into(name, axis), a, np.zeros(shape, out_dt))
    check(_reduce_into(name, 1, True), base, np.zeros((3, 1), out_dt))
    if name not in ("nanmin", "nanmax"):       # NumPy refuses an empty nanmin
        check(_reduce_into(name, 0), base[:0], np.zeros(4, out_dt))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["nanargmin", "nanargmax", "nancumsum", "nancumprod"])
def test_nan_arg_and_running_out(name):
    a = _with_nans(np.float64)
    a[:, 0] = RNG.standard_normal(3)          # no all-NaN lane for nanarg*
    running = name.startswith("nancum")
    for axis in (0, 1, None):
        shape = (a.shape if axis is not None else (a.size,)) if running else \
            (() if axis is None else (a.shape[1 - axis],))
        f = eval(f"lambda a, o: np.{name}(a, axis={axis!r}, out=o)")
        check(f, a, np.zeros(shape, np.float64 if running else np.int64))


@pytest.mark.parametrize("name", ["percentile", "quantile", "nanpercentile", "nanquantile"])
def test_quantiles_out(name):
    scale = 100 if "percentile" in name else 1
    a = _with_nans(np.float64, (4, 5)) if name.startswith("nan") else \
        RNG.standard_normal((4, 5))
    q, qs = 0.3 * scale, np.array([0.1, 0.5, 0.9]) * scale
    for m in _layouts(a)[::2]:
        check(eval(f"lambda a, q, o: np.{name}(a, q, axis=0, out=o)"), m, q, np.zeros(5))
        check(eval(f"lambda a, q, o: np.{name}(a, q, axis=1, out=o)"), m, qs, np.zeros((3, 4)))
    check(eval(f"lambda a, q, o: np.{name}(a, q, out=o)"), a, q, np.zeros(()))
    check(eval(f"lambda a, q, o: np.{name}(a, q, axis=(0, 1), keepdims=True, out=o)"),
          a, q, np.zeros((1, 1)))


def test_reductions_out_errors():
    a = RNG.standard_normal((3, 4))
    with pytest.raises(ValueError):
        njit(_reduce_into("nansum", 0))(a, np.zeros(3))
    with pytest.raises(ValueError):
        njit(_reduce_into("median", 0))(a, np.zeros(3))
    with pytest.raises(ValueError):
        njit(_reduce_into("nanmedian", 0))(a, np.zeros((1, 4)))
    with pytest.raises(pyjit.TypingError, match="Cannot cast ufunc 'add' output"):
        njit(lambda a, o: np.percentile(a, 5, axis=0, out=o))(a, np.zeros(4, np.int64))


# ---- an Ellipsis beside ints only: a 0-d view, as NumPy gives ----------------------------------

def _ell_last(a):
    return a[..., 2]


def _ell_first(a):
    return a[-1, ...]


def _ell_mid(m):
    return m[1, ..., 2]


def _ell_whole(z):
    return z[...]


def _ell_arith(a):
    return a[..., 2] * 2 + a[0, ...]


def _ell_write_through(a):
    v = a[..., 1]
    v[()] = 42
    a[..., 0] = 7
    return v.ndim, v.shape, v.item(), a


@pytest.mark.parametrize("dt", [np.int32, np.float32, np.complex128, np.bool_])
def test_ellipsis_zero_d(dt):
    a = np.arange(1, 7).astype(dt)
    m = np.arange(24).reshape(2, 3, 4).astype(dt)
    for f, arg in ((_ell_last, a), (_ell_first, a), (_ell_last, a[::-2]), (_ell_mid, m[0]),
                   (_ell_mid, m[..., ::2]), (_ell_whole, np.array(a[3])), (_ell_arith, a),
                   (_ell_write_through, a), (_ell_write_through, a[::2])):
        check(f, arg, exact=True)
    check(_ell_last, m)                               # a 2-d result, as before
    with pytest.raises(IndexError):
        njit(_ell_first)(a[:0])


# ---- exceptions whose message is a constant string's type but not a constant -----------------
# (a variable given the same text on every path is a phi typed by that text: it was lowered as
# a number, which crashed the compiler)

_CHOICES = ("left", "right")


def _msg_same_on_both_paths(x):
    msg = "same"
    if x > 0:
        msg = "same"
    raise ValueError(msg)


def _msg_same_with_number(x):
    msg = "bad"
    if x > 0:
        msg = "bad"
    raise IndexError(msg, x)


def _msg_of_choice(x):
    raise ValueError(_CHOICES[1] if x else _CHOICES[0], x * 1.5)


def _msg_concatenated(x, name):
    raise ValueError(name + " must be positive, not " + str(x))


def _msg_fstring(x, name):
    raise KeyError(f"{name}: {x}")


@pytest.mark.parametrize("f, args", [(_msg_same_on_both_paths, (1,)),
                                     (_msg_same_on_both_paths, (-1,)),
                                     (_msg_same_with_number, (3,)), (_msg_of_choice, (0,)),
                                     (_msg_of_choice, (2,)), (_msg_concatenated, (-2, "n")),
                                     (_msg_fstring, (7, "k"))])
def test_exception_messages_from_values(f, args):
    with pytest.raises(Exception) as expected:
        f(*args)
    with pytest.raises(type(expected.value)) as got:
        njit(f)(*args)
    assert got.value.args == expected.value.args


def test_library_helper_raises_its_argument():
    from pyjit.extending import overload, register_jitable

    @register_jitable
    def fail(cond, msg):
        if cond:
            raise ValueError(msg)
        return 0

    def scaled(x, mode):
        return x

    def typing(x, mode):
        def impl(x, mode):
            msg = mode
            if x > 10:
                msg = mode
            fail(x < 0, msg)
            if mode != "up":
                raise ValueError("mode must be 'up', not " + mode)
            return x * 2
        return impl
    typing.__module__ = "pyjit.lib.np13h_test"       # read as pyjit's own library reads
    overload(scaled)(typing)

    @njit
    def use(x):
        return scaled(x, "up")
    assert use(3) == 6
    with pytest.raises(ValueError, match="^up$"):
        use(-1)


# ---- np.polynomial.Polynomial: calls, methods and operators -----------------------------------

P = np.polynomial.Polynomial


def _same_poly(expected, got):
    assert isinstance(got, P), f"expected a Polynomial, got {got!r}"
    for field in ("coef", "domain", "window"):
        assert_same(getattr(expected, field), getattr(got, field), where=field)


def _poly_cases():
    """float64 (with a domain and a window of their own), float32 and complex coefficients."""
    return [P(np.array([1, 2, 3]), domain=[0, 2]), P([2.0], domain=[-3, 5], window=[0, 1]),
            P(np.array([0.5, 1.5], np.float32)), P(np.array([1.0, 2j, 3.0]))]


def _call(p, x):
    return p(x)


@pytest.mark.parametrize("x", [2.0, 3, np.linspace(-2, 2, 7), np.arange(6).reshape(2, 3)[:, ::2],
                               np.zeros(0)])
def test_polynomial_call(x):
    for p in _poly_cases():
        check(_call, p, x)


@pytest.mark.parametrize("f", [lambda p: p.deriv(), lambda p: p.deriv(2), lambda p: p.integ(),
                               lambda p: p.integ(2, k=1.5), lambda p: p.integ(lbnd=1.0),
                               lambda p: p.copy(), lambda p: p + p, lambda p: p - p,
                               lambda p: p * p, lambda p: p * 2, lambda p: 2 * p,
                               lambda p: 1 - p, lambda p: p + 1j, lambda p: -p, lambda p: +p,
                               lambda p: p / 4])
def test_polynomial_methods_and_operators(f):
    for p in _poly_cases():
        if p.coef.dtype == np.complex128 and "integ" in str(f.__code__.co_consts):
            continue
        _same_poly(f(p), njit(f)(p))


def test_polynomial_scalars_and_comparisons():
    def info(p, q):
        return p.degree(), p.mapparms(), p == q, p != q, p == p, p == 1.0
    cases = _poly_cases()
    for p, q in zip(cases, cases[1:] + cases[:1]):
        assert njit(info)(p, q) == info(p, q)
        assert njit(info)(p, p.copy()) == info(p, p.copy())


def test_polynomial_made_and_used_inside():
    @njit
    def fit_eval(c, x):
        p = P(c, domain=np.array([0.0, 4.0]))
        q = p.deriv() * 2.0 + p
        q -= 1.0
        return q(x), q.integ()(x[::2]), q.degree()
    c, x = np.array([0.0, 1.0, 2.0]), np.linspace(0, 4, 9)
    p = P(c, domain=[0.0, 4.0])
    q = p.deriv() * 2.0 + p
    q -= 1.0
    got = fit_eval(c, x)
    assert_same(q(x), got[0])
    assert_same(q.integ()(x[::2]), got[1])
    assert got[2] == q.degree()


def test_polynomial_errors():
    p, q = P([1.0, 2.0]), P([1.0, 2.0], domain=[0, 1])
    with pytest.raises(TypeError, match="Domains differ"):
        njit(lambda a, b: a + b)(p, q)
    with pytest.raises(TypeError, match="Windows differ"):
        njit(lambda a, b: a * b)(p, P([1.0], window=[0, 1]))
    with pytest.raises(pyjit.TypingError, match="must be a Polynomial or a number"):
        njit(lambda a, b: a + b)(p, np.arange(2.0))     # never the tuples' concatenation
    with pytest.raises(pyjit.TypingError, match="has no attribute 'roots'"):
        njit(lambda a: a.roots())(p)


# ---- np.histogram of int arrays (their extremes found in the items' own type) -----------------

def _histogram(a, bins):
    return np.histogram(a, bins=bins)


@pytest.mark.parametrize("dt", [np.uint8, np.int32, np.uint64])
def test_histogram_ints(dt):
    info = np.iinfo(dt)
    lo, hi = max(int(info.min), -1000), min(int(info.max), 1000)
    cases = [RNG.integers(lo, hi, 1001).astype(dt), np.array([info.min, info.max], dt),
             np.array([5], dt), np.zeros(0, dt), RNG.integers(0, 100, (30, 7)).astype(dt)[:, ::2]]
    for a in cases:
        for bins in (1, 7, 50):
            check(_histogram, a, bins, exact=True)


# ---- np.pad ------------------------------------------------------------------------------------

_PAD_MODES = ["constant", "edge", "wrap", "reflect", "symmetric"]


@pytest.mark.parametrize("mode", _PAD_MODES)
def test_pad_modes(mode):
    f = eval(f"lambda a, p: np.pad(a, p, mode={mode!r})")
    cf = njit(f)
    v = np.arange(1.0, 6.0)
    m = np.arange(12, dtype=np.int32).reshape(3, 4)
    for a in (v, v[::-2], v[:1]):
        for pw in (0, 2, 7, (1, 3), ((2, 0),)):          # 7: wider than the array
            check(f, a, pw, jit=cf, exact=True)
    for a in (m, np.asfortranarray(m), m[:, ::3]):
        for pw in (1, 5, ((0, 3), (2, 1))):
            check(f, a, pw, jit=cf, exact=True)
    check(f, np.arange(24.0).reshape(2, 3, 4)[:, ::-1], ((1, 0), (0, 2), (3, 1)), jit=cf,
          exact=True)


def test_pad_constant_values_and_errors():
    m = np.arange(12).reshape(3, 4)
    check(lambda a: np.pad(a, 2, constant_values=(9, 7)), m, exact=True)
    check(lambda a: np.pad(a, ((1, 1), (2, 0)), constant_values=((1.5, 2), (3, 4))), m,
          exact=True)
    check(lambda a: np.pad(a, 1, mode="constant", constant_values=-1.0), np.zeros(0), exact=True)
    check(lambda a: np.pad(a, 3, mode="empty").shape, m)
    with pytest.raises(ValueError, match="negative"):
        njit(lambda a, p: np.pad(a, p))(m, -1)
    with pytest.raises(ValueError, match="can't extend empty axis"):
        njit(lambda a: np.pad(a, 1, mode="edge"))(np.zeros(0))
    with pytest.raises(pyjit.TypingError, match="mode 'mean' is not supported"):
        njit(lambda a: np.pad(a, 1, mode="mean"))(m)
    with pytest.raises(pyjit.TypingError, match="mode= must be a constant string"):
        njit(lambda a, s: np.pad(a, 1, mode=s))(m, "edge")
    with pytest.raises(pyjit.TypingError, match="``axis`` argument is required"):
        njit(lambda a: np.cumulative_sum(a))(m)        # NumPy's ValueError, known when compiling


# ---- np.put of lists, a.put, np.compress, np.fix, np.sort_complex, the array-API names ---------

_MORE = [
    (lambda a: (np.put(a, [0, 2], [9.0, 8.0]), a)[1], "v"),
    (lambda a: (a.put([1, -1], 5.0), a)[1], "v"),
    (lambda m: (m.put(np.array([1, 7]), np.array([5.0, 6.0])), m)[1], "m"),
    (lambda a: np.compress(np.abs(a) > 2, a), "v"),
    (lambda m: np.compress([True, False, True], m, axis=0), "m"),
    (lambda m: np.compress([0, 1], m, axis=1), "m"),
    (lambda a: np.compress([0, 0, 0, 0, 0, 0, 0, 1], a), "v"),      # NumPy's IndexError
    (lambda a: np.cumulative_sum(a), "v"),
    (lambda a: np.cumulative_sum(a, include_initial=True), "v"),
    (lambda m: np.cumulative_sum(m, axis=1, include_initial=True), "m"),
    (lambda m: np.cumulative_prod(m, axis=0), "m"),
    (lambda a: np.sort_complex(a[::-1]), "v"),
    (lambda m: np.sort_complex(m[::-1]), "m"),
    (lambda a: np.fix(a / 4 - 1), "v"),
    (lambda a: np.astype(a, np.float32), "v"),
    (lambda m: np.matrix_transpose(m), "m"),
    (lambda m: np.vecdot(m, m[0]), "m"),
    (lambda m: np.linalg.vector_norm(m), "m"),
    (lambda m: np.linalg.vector_norm(m, axis=1, ord=1), "m"),
    (lambda m: np.linalg.matrix_norm(m), "m"),
    (lambda m: np.linalg.matrix_norm(m.reshape(3, 2, 2)), "m"),
]


@pytest.mark.parametrize("f, kind", _MORE)
@pytest.mark.parametrize("dt", [np.int16, np.float64, np.complex64])
def test_more_functions(f, kind, dt):
    base = (np.arange(6) - 2) if kind == "v" else (np.arange(12) - 5).reshape(3, 4)
    a = base.astype(dt)
    src = f.__code__.co_consts
    if dt == np.complex64 and any(isinstance(s, str) and "norm" in s for s in src):
        return
    try:
        f(a.copy())
    except TypeError:        # a function NumPy refuses for this dtype (a > 2 of complex)
        return
    except (ValueError, IndexError):
        pass                 # NumPy's errors, which check compares
    check(f, a, exact=np.dtype(dt).kind != "c" and dt != np.float64)
    if kind == "m" and dt == np.float64:
        check(f, np.asfortranarray(a))


# ---- what compiled code refuses: a TypingError naming the function -------------------------------

@pytest.mark.parametrize("f, name", [
    (lambda a: np.mgrid[0:3], "numpy.mgrid"), (lambda a: np.r_[a, a], "numpy.r_"),
    (lambda a: a[np.s_[1:3]], "numpy.s_"), (lambda a: np.fft.fft(a), "numpy.fft.fft"),
    (lambda a: np.piecewise(a, [a < 2], [1.0]), "numpy.piecewise"),
    (lambda a: np.histogramdd(a), "numpy.histogramdd"),
    (lambda a: np.real_if_close(a), "numpy.real_if_close")])
def test_refused_functions_are_named(f, name):
    with pytest.raises(pyjit.TypingError, match=rf"{name} is not supported in compiled code"):
        njit(f)(np.arange(4.0))


# ---- np.histogram with weights= and density=, np.clip with a bound None, a.compress ------------

@pytest.mark.parametrize("wdt", [np.float64, np.float32, np.int64])
def test_histogram_weights_density(wdt):
    a = RNG.standard_normal(300)
    a[:3] = (np.nan, 10.0, -10.0)
    w = (RNG.random(300) * 4).astype(wdt)
    edges = np.linspace(-2, 2, 9)
    check(lambda a, w: np.histogram(a, bins=7, range=(-3.0, 3.0), weights=w), a, w)
    # NumPy sums float32 weights over given edges as differences of their float32 cumsum
    check(lambda a, w: np.histogram(a, bins=edges, weights=w, density=True), a, w,
          rtol=1e-5 if wdt == np.float32 else None)
    check(lambda a, w: np.histogram(a.reshape(20, 15)[:, ::2], 5, (0.0, 1.0),
                                    weights=w.reshape(20, 15)[:, ::2]), a, w)
    check(lambda a, w: np.histogram(a, 4, weights=w), a[3:], w[3:])
    check(lambda a: np.histogram(a, bins=6, density=True), a[3:])
    check(lambda a, w: np.histogram(a, 4, weights=w[:5]), a[3:], w)        # NumPy's ValueError


@pytest.mark.parametrize("dt", [np.int32, np.float64])
def test_clip_one_sided_and_compress_method(dt):
    a = (np.arange(8) - 3).astype(dt)
    check(lambda a: np.clip(a, None, 2), a, exact=True)
    check(lambda a: np.clip(a, 1, None), a[::-1], exact=True)
    check(lambda a: np.clip(a, None, None), a, exact=True)
    check(lambda a: a.clip(min=0), a, exact=True)
    check(lambda a: a.clip(max=1.5), a, exact=True)
    check(lambda a: np.clip(a, None, 2, out=a), a, exact=True)
    check(lambda a: a.compress(a > 1), a, exact=True)
    check(lambda a: a.reshape(2, 4).compress([False, True], axis=0), a, exact=True)


def test_itemset_as_numba_has_it():
    # NumPy 2 removed ndarray.itemset; Numba code still calls it: compared with the stores
    @njit
    def set_items(a, m, one):
        a.itemset(3, 7.5)
        a.itemset(-1, 1.0)
        m.itemset((1, 2), 9)
        one.itemset(4.0)
        return a, m, one
    a, m, one = np.zeros(6), np.zeros((2, 3), np.int32), np.zeros((1, 1))
    ea, em, eo = a.copy(), m.copy(), one.copy()
    ea.flat[3], ea.flat[-1], em[1, 2], eo[...] = 7.5, 1.0, 9, 4.0
    for e, g in zip((ea, em, eo), set_items(a, m, one)):
        assert_same(e, g, exact=True)
    with pytest.raises(ValueError):
        njit(lambda a: a.itemset(2.0))(np.zeros(3))
