"""NumPy functions of the second sweep in compiled code, against NumPy: the ufuncs of two outputs
(np.divmod, np.frexp, np.modf), np.ldexp, np.nextafter and np.spacing at the edges of the float
formats, np.float_power, np.sinc, np.real and np.imag; the shape and index functions and the
reduction options below them."""
import warnings

import numpy as np
import pytest

import pyjit
from pyjit.errors import TypingError
import util
from util import assert_same

_JIT = {}


def check(f, *args, **kw):
    """util.check with one dispatcher per function, so each signature compiles once."""
    if f not in _JIT:
        _JIT[f] = pyjit.njit(f)
    return util.check(f, *args, jit=_JIT[f], **kw)

EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -7.25, 1e-310, -5e-324, 2.2250738585072014e-308,
                  np.inf, -np.inf, np.nan, 1.7976931348623157e308, 1e300, 0.1, 1 / 3])
with np.errstate(over="ignore"):
    FLOATS = [EDGES, EDGES.astype(np.float32), EDGES.astype(np.float16)]
INTS = [np.arange(-4, 5), np.arange(-4, 5, dtype=np.int8)]


def exactly(f, *args):
    """f compiled against f in NumPy, bit for bit (the sign of zero too)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = f(*args)
    if f not in _JIT:
        _JIT[f] = pyjit.njit(f)
    got = _JIT[f](*args)
    assert_same(want, got, exact=True)
    for w, g in zip(*(((want,), (got,)) if not isinstance(want, tuple) else (want, got))):
        w, g = np.asarray(w), np.asarray(g)
        if w.dtype.kind == "f":
            keep = ~np.isnan(w)
            np.testing.assert_array_equal(np.signbit(g)[keep], np.signbit(w)[keep])


def frexp(x):
    return np.frexp(x)


def modf(x):
    return np.modf(x)


def spacing(x):
    return np.spacing(x)


def next_up(x):
    return np.nextafter(x, np.inf)


def next_down(x):
    return np.nextafter(x, -1.0)


@pytest.mark.parametrize("f", [frexp, modf, spacing, next_up, next_down])
@pytest.mark.parametrize("a", FLOATS + INTS, ids=lambda a: str(a.dtype))
def test_float_format_ufuncs(f, a):
    exactly(f, a)
    exactly(f, a[::-2])                          # strided
    exactly(f, a[:0])                            # empty
    exactly(f, np.resize(a, 12).reshape(3, 4).T)   # 2-d, Fortran order
    exactly(f, a[2])                             # a scalar


def ldexp(x, n):
    return np.ldexp(x, n)


@pytest.mark.parametrize("a", FLOATS, ids=lambda a: str(a.dtype))
@pytest.mark.parametrize("n", [-1100, -1074, -1060, -1030, -150, -20, -1, 0, 3, 20, 130, 1000,
                               1100])
def test_ldexp_rounds_once(a, n):
    exactly(ldexp, a, n)
    exactly(ldexp, a, np.int32(n))


def test_ldexp_arrays_of_exponents_and_ints():
    exactly(ldexp, EDGES, np.arange(EDGES.size) * 130 - 1100)
    exactly(ldexp, EDGES.reshape(1, -1), np.arange(-3, 3).reshape(-1, 1))   # broadcast
    exactly(ldexp, np.arange(5), 3)                                        # ints: float64
    exactly(ldexp, 1.5, 4)


def divmod_(x, y):
    return np.divmod(x, y)


@pytest.mark.parametrize("a,b", [(np.arange(-6, 7), 4), (np.arange(-6, 7), np.arange(-6, 7)[::-1]),
                                 (EDGES, 0.75), (EDGES, EDGES[::-1]),
                                 (np.arange(-6, 7, dtype=np.int8), np.int8(-3)),
                                 (np.array([True, False]), np.array([True, True])), (7, -2),
                                 (-7.5, 2.0)])
def test_divmod(a, b):
    exactly(divmod_, a, b)


def test_divmod_of_complex_numbers_is_refused():
    with pytest.raises(TypingError, match="divmod"):
        pyjit.njit(divmod_)(np.ones(2, np.complex128), 1.0)


def float_power(x, y):
    return np.float_power(x, y)


@pytest.mark.parametrize("a,b", [(np.arange(-3, 4), 2), (np.arange(-3, 4), -1), (EDGES, 0.5),
                                 (FLOATS[1], 3), (np.arange(4.0), np.arange(4.0)),
                                 (np.array([1 + 1j, -2 + 0.5j]), 0.5), (0.0, -3.0), (-0.0, -3.0),
                                 (2, 10)])
def test_float_power(a, b):
    check(float_power, a, b)


def add(x, y):
    return np.add(x, y)


@pytest.mark.parametrize("a,b", [(np.zeros(0), 1.0), (np.zeros((0, 3)), np.ones(3)),
                                 (np.zeros((2, 0)), np.ones((2, 1))), (1.0, np.zeros((1, 0)))])
def test_empty_arrays_broadcast_beside_length_one(a, b):
    check(add, a, b)
    check(ldexp, a, 2)


def sinc(x):
    return np.sinc(x)


@pytest.mark.parametrize("a", [np.linspace(-3, 3, 13), np.linspace(-3, 3, 13).astype(np.float32),
                               np.arange(-3, 4), np.array([0.0, -0.0, np.nan, np.inf]),
                               np.linspace(-3, 3, 12).reshape(3, 4)[:, ::2], np.zeros(0), 0.5, 0,
                               np.float32(0.25), np.linspace(-2, 2, 5) + 0.5j, 1 - 2j,
                               np.array([0j, 1.5j]).astype(np.complex64)])
def test_sinc(a):
    check(sinc, a)


def real_imag(x):
    return np.real(x), np.imag(x)


with np.errstate(invalid="ignore"):   # inf * 1j: NaN in the real part, as NumPy makes it
    COMPLEX_EDGES = EDGES + 1j * EDGES[::-1]


@pytest.mark.parametrize("a", [np.arange(6.0).reshape(2, 3) * (1 - 2j), np.arange(5),
                               np.array([True, False]), COMPLEX_EDGES,
                               np.ones((2, 3), np.complex64)[:, ::2], 3.5, 4, 2 - 5j])
def test_real_imag(a):
    check(real_imag, a)


def test_real_of_a_complex_array_is_a_view():
    @pyjit.njit
    def f(z):
        r = np.real(z)
        r[0] = 9.0
        return z
    z = np.array([1 + 2j, 3 - 1j])
    assert f(z)[0] == 9 + 2j


def test_float_format_ufuncs_take_an_output_array():
    out = np.empty((2, 3))
    f = pyjit.njit(lambda x, n, out: np.ldexp(x, n, out=out))
    assert f(np.arange(3.0), 3, out) is out
    np.testing.assert_array_equal(out, np.broadcast_to(np.ldexp(np.arange(3.0), 3), (2, 3)))
    g = pyjit.njit(lambda x, out: np.spacing(x, out))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(g(EDGES, np.empty_like(EDGES)), np.spacing(EDGES))


@pytest.mark.parametrize("f", [frexp, spacing, sinc, real_imag])
def test_ufunc_bad_arguments(f):
    with pytest.raises(TypingError, match=r"numpy\.\w+\(\) accepts the argument types \(str\)"):
        pyjit.njit(f)("abc")


# ---- shapes: tile, repeat along an axis, hsplit/vsplit/dsplit, dstack, diagflat, rot90 ----

M = np.arange(12.0).reshape(3, 4)
CUBE = np.arange(24).reshape(2, 3, 4)
ARRAYS = [M, CUBE, np.arange(5), M.T, CUBE[:, ::-1, ::2], np.array([True, False, True]),
          (M + 1j * M)[::2], np.zeros((0, 3)), np.array([np.nan, 1.0])]


def tile(a, reps):
    return np.tile(a, reps)


@pytest.mark.parametrize("a", ARRAYS + [np.array(4.5)], ids=lambda a: f"{a.dtype}{a.shape}")
@pytest.mark.parametrize("reps", [(2, 1), (1, 3), (2, 0, 2), (3,), (2, 2, 1, 2), 2, 0])
def test_tile(a, reps):
    check(tile, a, reps)


def repeat_along(a, r, axis):
    return np.repeat(a, r, axis=axis)


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_repeat_along_an_axis(a):
    for axis in range(-a.ndim, a.ndim):
        check(repeat_along, a, 2, axis)
        check(repeat_along, a, 0, axis)
        check(repeat_along, a, np.arange(a.shape[axis]) % 3, axis)
        check(repeat_along, a, np.array([3]), axis)
    check(repeat_along, a, 2, a.ndim)                   # AxisError
    check(repeat_along, a, -1, 0)                       # ValueError: negative
    check(repeat_along, a, np.arange(a.shape[0] + 1), 0)   # ValueError: counts


def hsplit(a, s):
    return np.hsplit(a, s)


def vsplit(a, s):
    return np.vsplit(a, s)


def dsplit(a, s):
    return np.dsplit(a, s)


@pytest.mark.parametrize("f", [hsplit, vsplit, dsplit])
@pytest.mark.parametrize("a", [M, CUBE, np.arange(6), CUBE.T, np.arange(8.0).reshape(2, 2, 2)],
                         ids=lambda a: f"{a.dtype}{a.shape}")
def test_hsplit_vsplit_dsplit(f, a):
    check(f, a, 2)
    check(f, a, 1)
    check(f, a, 3)                   # ValueError where it does not divide the axis
    check(f, a, np.array([1, 3]))
    check(f, a, np.array([0, 9]))


def dstack(a, b):
    return np.dstack((a, b))


@pytest.mark.parametrize("a,b", [(M, M * 2), (np.arange(4), np.arange(4.0)), (CUBE, CUBE[:, :, :1]),
                                 (M.T, M.T), (M[:, :1], M[:, 1:2] > 3), (np.zeros((0, 2)),
                                                                          np.zeros((0, 2))),
                                 (M, M[:2])])
def test_dstack(a, b):
    check(dstack, a, b)


def diagflat(v, k):
    return np.diagflat(v, k)


@pytest.mark.parametrize("v", [np.arange(1, 4), M, M.T, np.array([True, False]), np.zeros(0),
                               np.array([1 + 2j, np.nan]), 3.5])
@pytest.mark.parametrize("k", [0, 1, -2])
def test_diagflat(v, k):
    check(diagflat, v, k)


def rot90(m, k, axes):
    return np.rot90(m, k, axes)


def rot90_default(m):
    return np.rot90(m)


@pytest.mark.parametrize("m", [M, CUBE, M[::2, ::-1], CUBE.T, np.zeros((0, 3)),
                               np.array([[True, False]])], ids=lambda a: f"{a.dtype}{a.shape}")
def test_rot90(m):
    check(rot90_default, m)
    for k in (-1, 0, 1, 2, 3, 5):
        for axes in ((0, 1), (1, 0), (-1, 0), (0, m.ndim - 1)):
            check(rot90, m, k, axes)
    check(rot90, m, 1, (0, 0))            # ValueError: the same axis
    check(rot90, m, 1, (0, m.ndim))       # ValueError: out of range
    check(rot90, m, 1, (0, -m.ndim))      # ValueError: the same axis, counted from the end


def test_rot90_is_a_view():
    @pyjit.njit
    def f(m):
        r = np.rot90(m)
        r[0, 0] = -1.0
        return m
    m = M.copy()
    want = M.copy()
    np.rot90(want)[0, 0] = -1.0
    np.testing.assert_array_equal(f(m), want)


def test_shape_bad_arguments():
    with pytest.raises(TypingError, match=r"numpy\.tile\(\) accepts the argument types .*float64"):
        pyjit.njit(tile)(M, 1.5)
    with pytest.raises(TypingError, match=r"numpy\.rot90\(\) .*len\(axes\) must be 2"):
        pyjit.njit(rot90)(M, 1, (0, 1, 2))
    with pytest.raises(TypingError, match=r"numpy\.repeat\(\) accepts the argument types"):
        pyjit.njit(repeat_along)(M, 1.5, 0)


# ---- by index: take, take_along_axis, put, select, unravel_index, ravel_multi_index, inner ----

GATHER = [np.arange(5.0), M, CUBE, M.T, CUBE[:, ::-1, ::2], np.array([True, False, True]),
          (M + 1j * M)[:, 1:], np.array([np.nan, 1.0, -2.0])]


def take(a, ind):
    return np.take(a, ind)


def take_axis(a, ind, axis):
    return np.take(a, ind, axis=axis)


def take_method(a, ind, axis):
    return a.take(ind, axis=axis)


@pytest.mark.parametrize("a", GATHER, ids=lambda a: f"{a.dtype}{a.shape}")
def test_take(a):
    check(take, a, np.array([0, -1, 1]))
    check(take, a, np.array([[0, 2], [-2, 1]]))
    check(take, a, 1)
    check(take, a, np.zeros(0, np.int64))
    check(take, a, np.array([a.size]))          # IndexError
    for axis in range(-a.ndim, a.ndim):
        check(take_axis, a, np.array([0, -1]), axis)
        check(take_axis, a, np.array([[1], [0]]), axis)
        check(take_axis, a, 0, axis)
        check(take_method, a, np.array([1, 0, 0]) % a.shape[axis], axis)
        check(take_axis, a, np.array([a.shape[axis]]), axis)   # IndexError
    check(take_axis, a, np.array([0]), a.ndim)  # AxisError


def take_along(a, ind, axis):
    return np.take_along_axis(a, ind, axis=axis)


def take_along_flat(a, ind):
    return np.take_along_axis(a, ind, axis=None)


@pytest.mark.parametrize("a", [M, CUBE, M.T, CUBE[:, ::-1, ::2], np.arange(5.0)[::-1],
                               np.array([[np.nan, 1.0, -2.0]])], ids=lambda a: f"{a.dtype}{a.shape}")
def test_take_along_axis(a):
    for axis in range(-a.ndim, a.ndim):
        order = np.argsort(a, axis=axis)
        check(take_along, a, order, axis)
        check(take_along, a, np.take(order, [0], axis=axis), axis)   # broadcast back
        check(take_along, a, -order - 1, axis)
    check(take_along_flat, a, np.array([0, -1, 2]))
    check(take_along, a, np.argsort(a, axis=0) + a.shape[0], 0)   # IndexError


def put(a, ind, v):
    np.put(a, ind, v)
    return a


@pytest.mark.parametrize("a", [np.zeros(6), M.copy(), CUBE.copy(), np.asfortranarray(M),
                               np.zeros(4, np.int32), np.zeros(3, np.complex128)],
                         ids=lambda a: f"{a.dtype}{a.shape}")
def test_put(a):
    check(put, a, np.array([1, 3]), 2.0 if a.dtype.kind != "i" else 2)
    check(put, a, np.array([0, -1, 2, 2]), np.arange(1, 3).astype(a.dtype))   # cycles v
    check(put, a, 1, np.arange(1, 4).astype(a.dtype))
    check(put, a, np.zeros(0, np.int64), np.arange(2).astype(a.dtype))
    check(put, a, np.array([a.size]), np.arange(2).astype(a.dtype))    # IndexError
    check(put, a, np.array([0]), np.zeros(0, a.dtype))                 # nothing to put


def select(conds, choices, default):
    return np.select(conds, choices, default)


def select_default(conds, choices):
    return np.select(conds, choices)


def select_tuple(v):
    return np.select((v > 2, v < 1), (v, np.arange(v.size)), 1.5)


@pytest.mark.parametrize("v", [np.arange(6.0), np.arange(6), M, M.T, np.zeros(0),
                               np.array([np.nan, 3.0, 0.5])], ids=lambda a: f"{a.dtype}{a.shape}")
def test_select(v):
    check(select, [v > 2, v < 1, v == 1.5], [v, -v, v * 2], 0.5)
    check(select, [v > 2], [v], 7)
    check(select_default, [v > 2, v < 1], [v, v + 1])
    check(select_default, [v > 2, v < 1], [v.astype(np.float32), -v.astype(np.float32)])
    check(select_tuple, v)
    check(select, [v > 2, v < 1], [v], 0.0)                   # ValueError: lengths
    check(select, [v > 2], [v[:0]], 0.0) if v.size else None  # ValueError: shapes


def test_select_bad_conditions():
    with pytest.raises(TypingError, match="invalid entry 0 in condlist: should be boolean"):
        pyjit.njit(select)([np.arange(3)], [np.arange(3)], 0)


def unravel(i, shape):
    return np.unravel_index(i, shape)


def ravel_multi(idx, dims):
    return np.ravel_multi_index(idx, dims)


def test_unravel_and_ravel_multi_index():
    for shape in [(3, 4), (2, 3, 4), (5,), (1, 1)]:
        size = int(np.prod(shape))
        for i in [0, size - 1, size // 2, size, -1]:   # the last two: ValueError
            check(unravel, i, shape)
        check(unravel, np.array([[0, size - 1], [size // 2, 0]]), shape)
        check(unravel, np.arange(size)[::-1], shape)
        check(unravel, np.array([size]), shape)
        coords = np.unravel_index(np.arange(size), shape)
        check(ravel_multi, tuple(int(c[size // 2]) for c in coords), shape)
        check(ravel_multi, coords, shape)
        check(ravel_multi, tuple(c.reshape(1, -1) for c in coords), shape)
        check(ravel_multi, tuple(c + 1 for c in coords), shape)   # ValueError
    check(unravel, 4, 5)
    check(ravel_multi, (3,), 5)


def inner(a, b):
    return np.inner(a, b)


@pytest.mark.parametrize("a,b", [(np.arange(4.0), np.arange(4.0)), (M, M), (M, np.arange(4)),
                                 (CUBE, M.astype(np.int32)), (M.T, M[:, :3].T),
                                 (np.array([True, False]), np.array([True, True])),
                                 (M + 1j, np.arange(4.0) * 1j), (np.arange(3), 2.5), (2, 3),
                                 (M[:, :0], M[:2, :0]), (M, np.arange(3.0)),
                                 (np.array([np.nan, 1.0]), np.ones(2))])
def test_inner(a, b):
    check(inner, a, b)


# ---- reductions: ptp and count_nonzero along an axis, sum/prod with dtype=, min/max initial= ----

REDUCE = [M, CUBE, M.T, CUBE[:, ::-1, ::2], np.arange(5.0), np.array([[np.nan, 1.0], [2.0, 3.0]]),
          np.zeros((0, 3)), np.arange(6, dtype=np.int8).reshape(2, 3)]


def ptp_axis(a, axis):
    return np.ptp(a, axis=axis)


def ptp_keep(a, axis):
    return np.ptp(a, axis=axis, keepdims=True)


def count_axis(a, axis):
    return np.count_nonzero(a, axis=axis)


def count_keep(a, axis):
    return np.count_nonzero(a > 2, axis=axis, keepdims=True)


@pytest.mark.parametrize("a", REDUCE, ids=lambda a: f"{a.dtype}{a.shape}")
def test_ptp_and_count_nonzero_along_an_axis(a):
    for axis in range(-a.ndim, a.ndim):
        check(ptp_axis, a, axis)        # ValueError along an empty axis
        check(ptp_keep, a, axis)
        check(count_axis, a, axis)
        check(count_axis, a > 2, axis)
        check(count_keep, a, axis)
    check(ptp_axis, a, a.ndim)          # AxisError
    check(count_axis, a, -a.ndim - 1)


def _sum_dtype(dt):
    """A function reducing with dtype=np.<dt> (a dtype is written in the code, not passed)."""
    ns = {"np": np}
    exec(f"def sum_{dt}(a):\n"
         f"    return np.sum(a, dtype=np.{dt}), np.prod(a, dtype=np.{dt}), a.sum(dtype=np.{dt}), "
         f"a.prod(dtype=np.{dt})\n", ns)
    return ns[f"sum_{dt}"]


SUM_DTYPE = {dt: _sum_dtype(dt) for dt in ("float64", "int32", "int64", "float32", "complex128")}


@pytest.mark.parametrize("a", [np.arange(1, 13), M, CUBE[:, ::-1] % 5 + 1, np.array([True, True]),
                               np.zeros(0), np.array([0.5, -1.5, 2.75]), np.arange(1, 30)])
@pytest.mark.parametrize("dt", sorted(SUM_DTYPE))
def test_sum_and_prod_with_a_dtype(a, dt):
    check(SUM_DTYPE[dt], a)
    if dt[0] in "fc":   # (NaN cast to an int is what the platform's C cast gives: not compared)
        check(SUM_DTYPE[dt], np.array([np.nan, 1.0]))


def max_initial(a, initial):
    return np.max(a, initial=initial), np.min(a, initial=initial), a.max(initial=initial), \
        np.amin(a, initial=initial)


def max_initial_axis(a, axis, initial):
    return np.max(a, axis=axis, initial=initial), a.min(axis=axis, initial=initial)


@pytest.mark.parametrize("a", REDUCE + [np.zeros(0)], ids=lambda a: f"{a.dtype}{a.shape}")
@pytest.mark.parametrize("initial", [5.0, -1, 100, np.nan])
def test_min_max_with_initial(a, initial):
    if a.dtype.kind in "iu" and initial != initial:
        return   # NumPy: a NaN cannot be an int initial (casting error); not a value to compare
    check(max_initial, a, initial)
    for axis in range(-a.ndim, a.ndim):
        check(max_initial_axis, a, axis, initial)


def test_reduction_option_bad_arguments():
    with pytest.raises(TypingError, match=r"initial= is supported without out="):
        pyjit.njit(lambda a: np.max(a, initial=1.0, keepdims=True))(M)


# ---- a dtype compared with a scalar type; np.ndenumerate and np.ndindex in comprehensions ----

def dtype_compare(a):
    e = np.empty_like(a, dtype=np.int64)
    return (e.dtype == np.int64, e.dtype != np.int64, a.dtype == np.float64, np.float32 == a.dtype,
            a.dtype == a.astype(np.float32).dtype, a.dtype == "float64", a.dtype != "int8",
            a.dtype == float)


@pytest.mark.parametrize("a", [M, M.astype(np.float32), np.arange(3), np.zeros(0, np.bool_)],
                         ids=lambda a: str(a.dtype))
def test_dtype_compared_with_a_scalar_type(a):
    check(dtype_compare, a)


def ndenumerate_items(a):
    return [(i, x) for i, x in np.ndenumerate(a)]


def ndenumerate_filtered(a):
    return [x * 2 for i, x in np.ndenumerate(a) if i[0] == 1]


def ndindex_items(a):
    return [i for i in np.ndindex(a.shape)]


@pytest.mark.parametrize("a", [M[:2, :2], CUBE, M.T, np.zeros((0, 2)), np.arange(4)],
                         ids=lambda a: f"{a.dtype}{a.shape}")
def test_ndenumerate_and_ndindex_in_a_list_comprehension(a):
    check(ndenumerate_items, a)
    check(ndindex_items, a)
    if a.ndim > 1:
        check(ndenumerate_filtered, a)


# ---- np.linspace with endpoint=, retstep=, dtype=; np.roots ----

def linspace_options(start, stop, num):
    return (np.linspace(start, stop, num, endpoint=False),
            np.linspace(start, stop, num, retstep=True),
            np.linspace(start, stop, num, endpoint=False, retstep=True),
            np.linspace(start, stop, num, dtype=np.int64),
            np.linspace(start, stop, num, endpoint=False, dtype=np.int32),
            np.linspace(start, stop, num, dtype=np.float32))


@pytest.mark.parametrize("start,stop", [(0, 1), (-3.5, 10), (2.5, 2.5), (10, -7), (0.0, 1e-300),
                                        (np.float32(0.5), np.float32(3.25)), (0, np.inf)])
@pytest.mark.parametrize("num", [0, 1, 2, 5, 11])
def test_linspace_options(start, stop, num):
    if np.isinf(stop):
        return check(lambda a, b, n: np.linspace(a, b, n, endpoint=False), start, stop, num)
    check(linspace_options, start, stop, num)


def test_linspace_complex_and_bad_arguments():
    check(lambda n: np.linspace(0, 1 + 2j, n, endpoint=False), 4)
    check(linspace_options, 0, 1, -1)    # ValueError: a negative count
    with pytest.raises(TypingError, match="retstep= must be the constant True or False"):
        pyjit.njit(lambda r: np.linspace(0, 1, 5, retstep=r))(True)


def roots(p):
    return np.roots(p)


@pytest.mark.parametrize("p", [np.array([1.0, -3.0, 2.0]), np.array([0, 1, -3, 2, 0]),
                               np.array([0.0, 0.0]), np.zeros(0), np.array([5.0]),
                               np.array([2.0, -6.0, 4.0, 0.0, 0.0]), np.array([1.0, -6, 11, -6])[::-1],
                               np.array([1 + 0j, 0, 1]), np.array([1j, 2, -1j, 3]),
                               np.array([1, -10, 35, -50, 24], np.int32),
                               np.array([1.0, -3.0, 2.0], np.float32)],
                         ids=lambda p: f"{p.dtype}{p.tolist()}")
def test_roots(p):
    # NumPy's dtype follows the values (real when every root is); compiled code's follows the
    # coefficients', as Numba's: real coefficients here have real roots, compared as such
    want = np.roots(p)
    got = pyjit.njit(roots)(p)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(want), rtol=1e-5,
                               atol=1e-6)
    if p.dtype.kind != "c":
        assert got.dtype == want.dtype


def test_roots_refusals():
    check(roots, np.ones((2, 2)))   # ValueError: not 1-d
    with pytest.raises(ValueError, match="domain change"):
        pyjit.njit(roots)(np.array([1.0, 0.0, 1.0]))   # complex roots of real coefficients


# ---- memory: the new functions' temporaries and results are freed ----

def builds_many(a, v):
    m, e = np.frexp(v)
    parts = np.hsplit(a, 2)
    order = np.argsort(a, axis=1)
    return (np.tile(a, (2, 1)).sum() + np.take(a, np.array([0, 2]), axis=1).sum() +
            np.take_along_axis(a, order, axis=1).sum() + parts[1].sum() + np.rot90(a).sum() +
            np.select([v > 0.5], [v], 0.0).sum() + np.divmod(v, 0.3)[1].sum() + m.sum() +
            e.sum() + np.linspace(0, 1, 5, endpoint=False).sum() + np.inner(v, v) +
            len([x for i, x in np.ndenumerate(a)]) + np.repeat(a, 2, axis=0).sum())


def test_no_memory_growth():
    f = pyjit.njit(builds_many)
    a, v = M[:, :4].copy(), np.linspace(0, 1, 6)
    assert abs(f(a, v) - builds_many(a, v)) < 1e-9
    for _ in range(2000):
        f(a, v)
    before = util.memory_in_use()
    for _ in range(100_000):   # each call makes about 30 arrays and lists
        f(a, v)
    grown = util.memory_in_use() - before
    assert grown < 8 << 20, f"memory grew {grown / (1 << 20):.1f} MB over 10^5 calls"
