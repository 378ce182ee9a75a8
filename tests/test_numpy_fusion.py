"""Array expressions with NumPy functions in them (np.sqrt(a * a + b * b), np.exp(-x) * y,
np.abs(a - b), np.where(a > 0, a, 0.0), np.minimum/maximum/arctan2/power/hypot) are fused into
one loop: the values and dtypes are NumPy's running the same source, over dtypes, layouts
(C, Fortran, strided, 0-d, empty) and broadcast shapes, and the whole expression makes one
array."""
import numpy as np
import pytest

import pyjit

from util import assert_same, check

RNG = np.random.default_rng(5)


def _pair(kind, dtype):
    # each case draws its own data, whatever ran before it: from one shared generator, the
    # float32 angle case could draw inputs whose cancellation exceeded its tolerance
    rng = np.random.default_rng([KINDS.index(kind), np.dtype(dtype).num])

    def make(shape):
        x = rng.standard_normal(shape) * 3
        return x.astype(dtype) if np.dtype(dtype).kind != "b" else x > 0
    if kind == "C":
        return make((4, 5)), make((4, 5))
    if kind == "F":
        return np.asfortranarray(make((4, 5))), np.asfortranarray(make((4, 5)))
    if kind == "strided":
        return make((6, 10))[::2, 1::2], make((3, 5))
    if kind == "broadcast":
        return make((4, 1)), make((5,))
    if kind == "0-d":
        return np.array(make(())), np.array(make(()))
    if kind == "empty":
        return make((0, 3)), make((0, 3))
    return make(7), make(7)


KINDS = ["1-d", "C", "F", "strided", "broadcast", "0-d", "empty"]
DTYPES = [np.float64, np.float32, np.int64, np.int32, np.int8, np.uint8]


def hyp(a, b):
    return np.sqrt(a * a + b * b)


def decay(a, b):
    return np.exp(-a / 4) * b


def absdiff(a, b):
    return np.abs(a - b)


def relu(a, b):
    return np.where(a > 0, a, 0.0) + b


def where_mixed(a, b):
    return np.where((a > b) & (b > 0), a * 2, b - 1)


def clipped(a, b):
    return np.minimum(np.maximum(a, b - 1), b + 1) * 2


def angle(a, b):
    return np.arctan2(a, b + 0.5) * 2.0 - np.hypot(a, b)


def powers(a, b):
    return np.power(a, 2) + np.floor(b / 2) - np.ceil(a * 0.3)


def trig(a, b):
    return np.sin(a) * np.cos(b) + np.tanh(a - b)


def logs(a, b):
    return np.log(np.abs(a) + 1) + np.log2(np.abs(b) + 1) * np.log10(np.abs(a * b) + 1)


def preds(a, b):
    return np.isnan(np.sqrt(a)) | np.isfinite(b / a)


def signs(a, b):
    return np.sign(a - b) * np.fabs(b) + np.trunc(a / 3)


FUNCS = [hyp, decay, absdiff, relu, where_mixed, clipped, angle, powers, trig, logs, preds, signs]
# Functions with no float math of an int operand: NumPy computes sin, sqrt, ... of 8-bit ints
# in float16, which pyjit does not (docs/numpy.md).
NO_FLOAT_MATH = {absdiff, relu, where_mixed, clipped}


def _check_0d(fn, a, b):
    """Operators and ufuncs of 0-d arrays give scalars, in NumPy as in pyjit and Numba, but a
    compiled function returns a float32 or int8 scalar as a Python number (as Numba's do), and
    np.where a 0-d array: compared as arrays of NumPy's dtype (a float32 converts back exactly)."""
    expected = np.asarray(fn(a.copy(), b.copy()))
    got = pyjit.njit(fn)(a.copy(), b.copy())
    if not isinstance(got, np.ndarray):
        assert isinstance(got, (bool, int, float)), type(got)
        got = np.asarray(got, dtype=expected.dtype)
    assert_same(expected, np.asarray(got))


def _cases():
    cases = []
    for fn in FUNCS:
        for dtype in DTYPES:
            if np.dtype(dtype).itemsize > 1 or fn in NO_FLOAT_MATH:
                cases.append(pytest.param(fn, dtype, id=f"{fn.__name__}-{np.dtype(dtype).name}"))
    return cases


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fn,dtype", _cases())
def test_values_and_dtypes_match_numpy(fn, dtype, kind):
    a, b = _pair(kind, dtype)
    if kind == "0-d":
        _check_0d(fn, a, b)
    else:
        check(fn, a, b)


@pytest.mark.parametrize("fn", [hyp, absdiff, relu, clipped])
def test_bools(fn):
    a, b = _pair("C", np.bool_)
    check(fn, a, b.astype(np.float64))


def complex_abs(a, b):
    return np.abs(a * b + 1) * 2.0


def test_complex_abs():
    a = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
    check(complex_abs, a, a[::-1])


def stored_between(a, b):
    t = a * 2.0
    a[0] = 100.0
    return np.sqrt(np.abs(t)) + b


def inplace_from_view(a, b):
    a[1:] += np.sqrt(np.abs(a[:-1])) * b[1:]
    return a


def reused(a, b):
    t = np.exp(-np.abs(a))
    return np.sqrt(t + b * b) + t


def scalar_args(a, b):
    return np.sqrt(np.float64(2.0)) * a + np.maximum(b, 1.5) - np.where(True, a, b)


@pytest.mark.parametrize("fn", [stored_between, inplace_from_view, reused, scalar_args])
def test_evaluation_order_kept(fn):
    a, b = _pair("1-d", np.float64)
    check(fn, a, b)


def _allocations(fn, *args):
    f = pyjit.njit(fn)
    f(*args)
    return sum(ir.count("@pj_nrt_alloc(") for ir in f.inspect_llvm().values())


def one_op(a, b):
    return a + b


@pytest.mark.parametrize("fn", [hyp, decay, absdiff, relu, where_mixed, clipped, angle, trig])
def test_one_array_for_the_whole_expression(fn):
    a, b = _pair("C", np.float64)
    assert _allocations(fn, a, b) == _allocations(one_op, a, b)
