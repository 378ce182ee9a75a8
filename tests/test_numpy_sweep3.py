"""NumPy functions of the third sweep in compiled code, against NumPy on the same source: the
two-output ufuncs (np.divmod, np.modf, np.frexp) writing into given outputs, np.select
broadcasting its conditions, choices and default, np.broadcast_to, np.broadcast_shapes,
np.broadcast_arrays, a.view(dtype) and np.frombuffer over arrays, and np.squeeze's refusal
without an axis."""
import warnings

import numpy as np
import pytest

import pyjit
from pyjit.errors import TypingError
import util

_JIT = {}


def check(f, *args, **kw):
    """util.check with one dispatcher per function, so each signature compiles once."""
    if f not in _JIT:
        _JIT[f] = pyjit.njit(f)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return util.check(f, *args, jit=_JIT[f], **kw)


# ---- two-output ufuncs with outputs given ----

def divmod_out(a, b, q, r):
    res = np.divmod(a, b, out=(q, r))
    res[0][...] += 1   # the outputs returned are the arrays given
    return q, r


def divmod_positional(a, b, q, r):
    np.divmod(a, b, q, r)
    return q, r


def modf_out(a, f, w):
    return np.modf(a, out=(f, w))


def modf_positional(a, f, w):
    np.modf(a, f, w)
    return f, w


def frexp_out(a, m, e):
    np.frexp(a, out=(m, e))
    return m, e


def modf_in_place(a, w):
    np.modf(a, a, w)   # the first output is also the operand
    return a, w


def divmod_in_place(a, b):
    np.divmod(a, b, b, a)
    return a, b


FLOATS = np.array([-3.5, -2.0, -0.5, 0.0, 0.25, 1.0, 7.75, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("a", [FLOATS, FLOATS.astype(np.float32), FLOATS[::-3],
                               FLOATS[:0], FLOATS[:8].reshape(2, 4).T])
def test_two_output_ufuncs_into_given_arrays(a):
    shape, dt = a.shape, a.dtype
    check(modf_out, a, np.empty(shape, dt), np.empty(shape, dt))
    check(modf_positional, a, np.empty(shape), np.empty(shape, dt))
    check(frexp_out, a, np.empty(shape, dt), np.empty(shape, np.int32))
    check(frexp_out, a, np.empty(shape), np.empty(shape, np.int64))
    check(modf_in_place, a.copy(), np.empty(shape, dt))


@pytest.mark.parametrize("a, b", [(np.arange(-6, 6), 4), (np.arange(-6, 6).reshape(3, 4), np.array([1, -2, 3, 5])),
                                  (np.arange(-6.0, 6.0), 2.5), (FLOATS, -1.5),
                                  (np.arange(-6, 6, dtype=np.int8), np.int8(3))])
def test_divmod_into_given_arrays(a, b):
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    dt = np.divmod(a, b)[0].dtype
    check(divmod_out, a, b, np.empty(shape, dt), np.empty(shape, dt))
    check(divmod_positional, a, b, np.empty(shape, np.float64), np.empty(shape, np.float64))
    check(divmod_positional, a, b, np.empty((2,) + shape, dt), np.empty((2,) + shape, dt))
    if np.ndim(b) == np.ndim(a) and np.shape(b) == np.shape(a):
        check(divmod_in_place, a.copy(), b.copy())


def divmod_one_output(a):
    return np.divmod(a, 2.0, out=(a,))


def modf_out_array(a):
    return np.modf(a, out=a)


def divmod_both(a):
    return np.divmod(a, 2.0, a, a, out=(a, a))


@pytest.mark.parametrize("f", [divmod_one_output, modf_out_array, divmod_both])
def test_two_output_ufuncs_refuse_other_outputs_naming_the_line(f):
    with pytest.raises(TypingError, match=r"(?s)out.*line"):
        pyjit.njit(f)(np.ones(3))


def modf_wrong_shape(a, f, w):
    return np.modf(a, f, w)


def test_two_output_ufuncs_check_the_output_shape():
    check(modf_wrong_shape, np.ones(3), np.empty(3), np.empty(4))
    check(modf_wrong_shape, np.ones(3), np.empty(2), np.empty(3))


# ---- np.select broadcasting ----

def select_lists(a):
    return np.select([a > 0, a < -1], [a, a * 2], default=np.nan)


def select_scalar_choice(a):
    return np.select((a > 0, a < -1), (a, 1.0), default=-5)


def select_broadcast(a, b):
    return np.select((a > 0, b < 0.5), (a, b), -1)


def select_bool_condition(a):
    return np.select((a > 0, True), (a, 5), -1)


def select_scalars_only(a):
    return np.select([a > 0, a < -1], [2.5, -2.5])


def select_weak(a):
    return np.select([a > 0, a < 1], [a, a * 2])


def select_mismatch(a):
    return np.select((a > 0,), (a[:2],))


def select_lengths(a):
    return np.select([a > 0, a < -1], [a, a * 2, a])


def select_mixed(a):
    return np.select((a > 0, a < -1), [a, a * 2])


def select_column(a, b):
    return np.select((a[:, None] > 1, b > 0.5), (a[:, None] * 1.0, b), default=7.0)


@pytest.mark.parametrize("f, args", [
    (select_lists, (np.arange(-3.0, 3.0),)), (select_lists, (np.arange(-3.0, 3.0).reshape(2, 3)[:, ::-1],)),
    (select_scalar_choice, (np.arange(-3.0, 3.0),)), (select_scalar_choice, (np.arange(-3, 3),)),
    (select_broadcast, (np.arange(6.0).reshape(2, 3) - 2, np.linspace(0, 1, 3))),
    (select_broadcast, (np.arange(6.0).reshape(2, 3) - 2, np.linspace(0, 1, 4))),
    (select_bool_condition, (np.arange(-3.0, 3.0).reshape(3, 2),)), (select_scalars_only, (np.arange(-3, 3),)),
    (select_weak, (np.arange(-3, 3, dtype=np.int8),)), (select_weak, (np.zeros((0, 3), np.float32),)),
    (select_mismatch, (np.arange(4.0),)), (select_lengths, (np.arange(4.0),)), (select_mixed, (np.arange(4.0),)),
    (select_column, (np.arange(3.0), np.linspace(0, 1, 4)))], ids=lambda x: getattr(x, "__name__", ""))
def test_select_broadcasts(f, args):
    check(f, *args)


# ---- np.broadcast_to, np.broadcast_shapes, np.broadcast_arrays ----

def broadcast_to(a, shape):
    return np.broadcast_to(a, shape)


def broadcast_to_sum(a, shape):
    return np.broadcast_to(a, shape).sum(axis=0)


def broadcast_shapes2(a, b):
    return np.broadcast_shapes(a, b)


def broadcast_shapes3(a, b, c):
    return np.broadcast_shapes(a, b, c)


def broadcast_arrays2(a, b):
    return np.broadcast_arrays(a, b)


def broadcast_arrays3(a, b, c):
    x, y, z = np.broadcast_arrays(a, b, c)
    return x + y * z


@pytest.mark.parametrize("f, args", [
    (broadcast_to, (np.arange(3.0), (2, 3))), (broadcast_to, (np.arange(3.0), (2, 4))),
    (broadcast_to, (2.5, (2, 3))), (broadcast_to, (np.arange(3)[::-1].reshape(3, 1), (4, 3, 5))),
    (broadcast_to, (np.ones((2, 3)), (3,))), (broadcast_to, (np.ones(1, np.int8), 4)),
    (broadcast_to, (np.ones(3), (0, 3))), (broadcast_to, (np.ones(3), (-1, 3))),
    (broadcast_to_sum, (np.arange(4.0)[::2], (5, 2))),
    (broadcast_shapes2, ((2, 1), (3,))), (broadcast_shapes2, ((2, 1), 3)), (broadcast_shapes2, ((2, 2), (3,))),
    (broadcast_shapes3, ((5, 1, 3), (4, 1), ())), (broadcast_shapes2, ((0, 1), (1, 4))),
    (broadcast_arrays2, (np.arange(3.0), np.ones((2, 1), np.int32))), (broadcast_arrays2, (np.arange(3.0), 4)),
    (broadcast_arrays3, (np.arange(3.0), np.ones((2, 1)), 2.0)), (broadcast_arrays2, (np.arange(3.0), np.ones(2)))],
    ids=lambda x: getattr(x, "__name__", ""))
def test_broadcasting_functions(f, args):
    check(f, *args)


def test_broadcast_to_is_a_view():
    a = np.arange(3.0)
    v = pyjit.njit(broadcast_to)(a, (4, 3))
    assert v.strides == np.broadcast_to(a, (4, 3)).strides and np.shares_memory(v, a)


# ---- a.view(dtype), np.frombuffer ----

def view_u64(a):
    return a.view(np.uint64)


def view_u8(a):
    return a.view(np.uint8)


def view_f32(a):
    return a.view(np.float32)


def view_c128(a):
    return a.view(np.complex128)


def view_writes_through(a):
    b = a.view(np.int64)
    b[0] = 0
    b[-1] = -1
    return a


def frombuffer_f64(a):
    return np.frombuffer(a, np.float64)


def frombuffer_i32(a):
    return np.frombuffer(a, dtype=np.int32, count=3, offset=4)


def frombuffer_default(a):
    return np.frombuffer(a)


X = np.arange(8.0) - 3.5


@pytest.mark.parametrize("f, a", [
    (view_u64, X), (view_u64, X.reshape(2, 4)), (view_u8, X[:2]), (view_f32, X.reshape(2, 4)),
    (view_c128, X), (view_c128, X[:3]), (view_u64, X[::2]), (view_f32, X[::2]), (view_f32, np.ones(())),
    (view_u64, np.ones(())), (view_writes_through, X), (view_u8, np.ones((2, 3), np.int16).T),
    (view_u8, np.ones((2, 3), np.int16)), (view_f32, np.ones(3, np.int16)), (view_u8, np.array([True, False])),
    (frombuffer_f64, np.arange(16, dtype=np.uint8)), (frombuffer_i32, np.arange(16, dtype=np.uint8)),
    (frombuffer_default, np.arange(4.0).reshape(2, 2)), (frombuffer_f64, np.arange(15, dtype=np.uint8)),
    (frombuffer_f64, X[::2]), (frombuffer_i32, np.arange(12, dtype=np.uint8)),
    (frombuffer_i32, np.arange(4, dtype=np.int64))], ids=lambda x: getattr(x, "__name__", ""))
def test_views_of_another_dtype(f, a):
    check(f, a)


def test_frombuffer_views_the_array():
    a = np.arange(4.0)
    v = pyjit.njit(frombuffer_default)(a)
    assert np.shares_memory(v, a)


def frombuffer_of_number(x):
    return np.frombuffer(x)


def test_frombuffer_and_view_refuse_what_they_cannot_take():
    with pytest.raises(TypingError, match=r"(?s)frombuffer\(\) takes an array.*line"):
        pyjit.njit(frombuffer_of_number)(1.0)


# ---- np.squeeze without an axis ----

def squeeze(a):
    return np.squeeze(a)


def squeeze_method(a):
    return a.squeeze()


@pytest.mark.parametrize("f", [squeeze, squeeze_method])
def test_squeeze_without_an_axis_is_a_typing_error_naming_the_line(f):
    with pytest.raises(TypingError, match=r"(?s)without axis=.*pass axis=.*line"):
        pyjit.njit(f)(np.ones((1, 3)))


# ---- found by the sweep over issue 13's lists ----

C1 = np.array([1 + 2j, -3j, complex(np.nan, 1), 2 + 0j, 1 + 2j, complex(1, np.nan), 0j])
C2 = np.array([1 + 1j, 2j, 5 + 0j, complex(2, np.nan), 1 + 3j, 1 + 0j, -0j])


def maximum(a, b):
    return np.maximum(a, b)


def minimum(a, b):
    return np.minimum(a, b)


def fmax(a, b):
    return np.fmax(a, b)


def fmin(a, b):
    return np.fmin(a, b)


@pytest.mark.parametrize("f", [maximum, minimum, fmax, fmin])
@pytest.mark.parametrize("a, b", [(C1, C2), (C2, C1), (C1, 1.0), (C1, 0), (1j, C1)])
def test_complex_extremes_order_as_numpys(f, a, b):
    check(f, a, b)


def maximum_fresh(a, b):
    return np.maximum(a, b)


def test_maximum_of_complex_in_a_fresh_process():
    """np.maximum is in two library modules (datetimes and ufuncs): the first call, whichever
    module serves it, finds both."""
    code = """
import numpy as np, pyjit
f = pyjit.njit(lambda a, b: np.maximum(a, b))
a, b = np.array([1 + 2j, 3j]), np.array([1 + 1j, 4j])
assert np.array_equal(f(a, b), np.maximum(a, b))
o = np.empty(2)
g = pyjit.njit(lambda x, y, o: np.minimum(x, y, o))
g(np.arange(2.0), np.ones(2), o)
assert np.array_equal(o, np.minimum(np.arange(2.0), np.ones(2)))
print("ok")
"""
    rc, out, err = util.run_subprocess(code)
    assert rc == 0 and out.strip() == "ok", err


def clip_ints(a, lo, hi):
    return np.clip(a, lo, hi)


def clip_minus_one(a):
    return np.clip(a, -1, 1)


def clip_past_uint8(a):
    return np.clip(a, 2, 300)


@pytest.mark.parametrize("a", [np.arange(6, dtype=np.uint8), np.arange(-3, 3, dtype=np.int8),
                               np.arange(-3, 3, dtype=np.int16), np.arange(-3.0, 3.0)])
def test_clip_with_python_ints_past_the_dtype(a):
    check(clip_minus_one, a)
    check(clip_past_uint8, a)
    check(clip_ints, a, np.int64(-1), np.int64(2))


def square(a):
    return np.square(a)


def expm1(a):
    return np.expm1(a)


def copysign(a):
    return np.copysign(a, -1.0)


def floor_divide(a):
    return np.floor_divide(a, 2)


def clip(a):
    return np.clip(a, -1, 1)


@pytest.mark.parametrize("f", [square, expm1, copysign, floor_divide, clip])
def test_library_ufuncs_of_0d_arrays(f):
    check(f, np.array(2.5))
    check(f, np.array(-3))


def full_like(a):
    return np.full_like(a, 3)


def test_full_like_of_0d():
    check(full_like, np.array(2.5))


def diff(a):
    return np.diff(a)


def diff_axis(a, axis):
    return np.diff(a, axis=axis)


def diff_n_axis(a, n, axis):
    return np.diff(a, n, axis)


D3 = (np.arange(24.0) ** 1.5).reshape(2, 3, 4)


@pytest.mark.parametrize("a", [D3, D3[:, ::-1], np.arange(24).reshape(4, 6) % 5, D3[0] > 3,
                               np.zeros((3, 0)), np.arange(5.0)])
def test_diff_along_any_axis(a):
    check(diff, a)
    for axis in range(-a.ndim, a.ndim):
        check(diff_axis, a, axis)
        check(diff_n_axis, a, 2, axis)
    check(diff_axis, a, a.ndim)
    check(diff_n_axis, a, -1, 0)


def trapezoid(y):
    return np.trapezoid(y)


def trapezoid_x(y, x):
    return np.trapezoid(y, x, axis=1)


def trapezoid_dx(y):
    return np.trapezoid(y, dx=0.5, axis=0)


@pytest.mark.parametrize("y", [D3, D3[0], D3[0].T, np.zeros((0, 3)), np.zeros((3, 0)),
                               np.arange(6).reshape(2, 3)])
def test_trapezoid_of_arrays_along_an_axis(y):
    check(trapezoid, y)
    check(trapezoid_dx, y)
    if y.ndim > 1:
        check(trapezoid_x, y, np.linspace(0.0, 2.0, y.shape[1]))
        if y.shape[1] > 1:   # (NumPy broadcasts np.diff(x) with the axis: lengths 0 and 1 pass)
            check(trapezoid_x, y, np.linspace(0.0, 2.0, y.shape[1] + 1))


def cov(a):
    return np.cov(a)


def cov_value(a):   # of one 1-d array compiled code gives the number, NumPy a 0-d array
    return float(np.cov(a))


def corrcoef(a):
    return np.corrcoef(a)


@pytest.mark.parametrize("a", [np.zeros(0), np.array([4.0]), np.array([[1.0], [2.0]])])
def test_cov_without_degrees_of_freedom_is_nan(a):
    check(cov if a.ndim == 2 else cov_value, a)
    check(corrcoef, a)


@pytest.mark.parametrize("code", ["i4", "f8", "<f4", "=i2", "u1", "?", "c16", "d", "b1", "|u1",
                                  "f", "i8", "c8", "u8"])
def test_dtype_strings_of_numpys_type_codes(code):
    src = (f"def zeros():\n    return np.zeros(3, dtype='{code}')\n\n"
           f"def astype(a):\n    return a.astype('{code}')\n")
    ns = {"np": np}
    exec(src, ns)
    check(ns["zeros"])
    check(ns["astype"], np.arange(4.0) - 1.5)


def big_endian():
    return np.zeros(3, dtype=">f8")


def test_a_dtype_string_of_another_byte_order_is_a_typing_error():
    with pytest.raises(TypingError, match=r"(?s)not a dtype compiled code knows.*line"):
        pyjit.njit(big_endian)()


def array_of_array(a):
    return np.array(a)


def array_of_array_dtype(a):
    return np.array(a, dtype=np.float32)


def asarray_dtype(a):
    return np.asarray(a, dtype=np.int32)


def array_copies(a):
    b = np.array(a)
    b[0] = 100
    return a, b


def array_of_number(x):
    return np.array(x)


def asarray_of_number(x):
    return np.asarray(x)


@pytest.mark.parametrize("a", [np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3).T,
                               np.arange(5)[::2], np.zeros(0, np.float32)])
def test_array_and_asarray_of_arrays(a):
    check(array_of_array, a)
    check(array_of_array_dtype, a)
    check(asarray_dtype, a)
    check(array_copies, a.copy()) if a.size else None


@pytest.mark.parametrize("x", [2.5, 3, True])
def test_array_of_a_number_is_0d(x):
    assert pyjit.njit(array_of_number)(x).shape == ()
    check(array_of_number, x)
    check(asarray_of_number, x)


def std_ddof(a):
    return np.std(a, ddof=1), np.var(a, ddof=1), a.std(ddof=1), a.var(ddof=2)


@pytest.mark.parametrize("a", [np.arange(12.0).reshape(3, 4) ** 1.3, np.arange(7), np.ones(1)])
def test_std_and_var_with_ddof_and_no_axis(a):
    check(std_ddof, a)


def histogram_edges(a, bins):
    return np.histogram(a, bins=bins)


def histogram_edges_range(a, bins):
    return np.histogram(a, bins, range=(0.0, 1.0))   # unused with edges given, as NumPy's


H = np.array([0.0, 0.5, 1.0, 1.0, 2.5, 5.0, 7.0, np.nan, -1.0, 3.0])


@pytest.mark.parametrize("a, bins", [(H, np.array([0.0, 1.0, 5.0])), (H, np.array([0.0, 1.0, 1.0, 5.0])),
                                     (np.arange(10), np.array([0, 3, 9])), (H, np.array([1.0, 0.0])),
                                     (H.reshape(2, 5), np.array([0.0, 2.0, 4.0])), (H, np.array([3.0])),
                                     (np.zeros(0), np.array([0.0, 1.0])), (H, np.zeros(0))])
def test_histogram_with_edges(a, bins):
    check(histogram_edges, a, bins)
    check(histogram_edges_range, a, bins)


def vstack_mixed(a, b):
    return np.vstack((a, b))


@pytest.mark.parametrize("a, b", [(np.arange(6.0).reshape(2, 3), np.arange(3)),
                                  (np.arange(3.0), np.arange(6.0).reshape(2, 3)),
                                  (np.arange(6.0).reshape(2, 3), np.arange(4.0))])
def test_vstack_of_1d_and_2d(a, b):
    check(vstack_mixed, a, b)


def transpose_ints(a):
    return a.transpose(1, 0)


def transpose_ints3(a):
    return a.transpose(2, 0, 1)


def transpose_one(a):
    return a.transpose(0)


def transpose_none(a):
    return a.transpose(None)


def test_transpose_method_takes_the_axes_as_ints():
    check(transpose_ints, np.arange(6.0).reshape(2, 3))
    check(transpose_ints3, np.arange(24).reshape(2, 3, 4))
    check(transpose_one, np.arange(3.0))
    check(transpose_none, np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypingError, match="(?s)3 ints.*line"):
        pyjit.njit(transpose_ints)(np.zeros((2, 3, 4)))


NANS = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])


@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanmin", "nanmax", "nanargmin",
                                  "nanargmax", "nanvar", "nanstd"])
def test_nan_reductions_along_an_axis(name):
    src = (f"def along(a, axis):\n    return np.{name}(a, axis=axis)\n\n"
           f"def whole(a):\n    return np.{name}(a)\n")
    ns = {"np": np}
    exec(src, ns)
    for a in (NANS, NANS.T, np.arange(24).reshape(2, 3, 4), np.arange(24.0).reshape(2, 3, 4)[:, ::-1]):
        for axis in range(-a.ndim, a.ndim):
            check(ns["along"], a, axis)
    check(ns["along"], NANS, 2)
    check(ns["whole"], NANS)


def nanvar_ddof(a):
    return np.nanvar(a, axis=1, ddof=1), np.nanstd(a, axis=0, ddof=1)


def test_nanvar_along_an_axis_with_ddof():
    check(nanvar_ddof, NANS)
