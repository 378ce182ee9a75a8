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
