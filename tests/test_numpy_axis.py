"""Reductions along an axis (pyjit/lib/numpy_axis.py) against NumPy: np.sum, prod, min, max,
amin, amax, mean, var, std, argmin, argmax, cumsum, cumprod with axis= (and dtype=, ddof=), as
functions and as array methods, over dtypes, layouts, NaNs and every axis, negative ones too."""
import numpy as np
import pytest

import pyjit
from pyjit import njit

from util import assert_same, check

RNG = np.random.default_rng(7)


def _arrays():
    nan3 = RNG.standard_normal((3, 4, 5))
    nan3[1, 2, 3] = np.nan
    return {
        "f8 3-d with NaN": nan3,
        "i8 2-d": RNG.integers(-5, 5, (4, 6)),
        "f4 1-d": RNG.standard_normal(7).astype(np.float32),
        "f8 strided": RNG.standard_normal((5, 6))[:, ::2],
        "f8 Fortran": np.asfortranarray(RNG.standard_normal((4, 3))),
        "c16 2-d": RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4)),
        "bool 2-d": RNG.integers(0, 2, (3, 4)).astype(bool),
        "u1 2-d": RNG.integers(0, 200, (3, 5)).astype(np.uint8),
        "empty axis": np.zeros((3, 0, 2)),
    }


ARRAYS = _arrays()
NAMES = ["sum", "prod", "min", "max", "amin", "amax", "mean", "var", "std", "argmin", "argmax",
         "cumsum", "cumprod"]
METHODS = ["sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "cumsum",
           "cumprod"]


def _compiled(src):
    ns = {"np": np}
    exec(src, ns)
    return njit(ns["f"])


def _check(f, py, a, ax):
    try:
        expected = py(a, ax)
    except Exception as exc:   # noqa: BLE001 - the compiled code must raise the same class
        with pytest.raises(type(exc)):
            f(a, ax)
        return
    got = f(a, ax)
    assert_same(got, expected, rtol=2e-5 if a.dtype in (np.float32,) else 1e-12)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("key", list(ARRAYS))
def test_function_along_every_axis(name, key):
    a = ARRAYS[key]
    if a.dtype.kind == "c" and name in ("min", "max", "amin", "amax", "argmin", "argmax"):
        pytest.skip("NumPy orders complex numbers lexicographically; pyjit refuses them")
    f = _compiled(f"def f(a, ax):\n    return np.{name}(a, axis=ax)\n")
    for ax in range(-a.ndim, a.ndim):
        _check(f, lambda a, ax: getattr(np, name)(a, axis=ax), a, ax)


@pytest.mark.parametrize("name", METHODS)
@pytest.mark.parametrize("key", ["f8 3-d with NaN", "i8 2-d", "f8 strided", "bool 2-d"])
def test_method_along_every_axis(name, key):
    a = ARRAYS[key]
    f = _compiled(f"def f(a, ax):\n    return a.{name}(ax)\n")
    for ax in range(-a.ndim, a.ndim):
        _check(f, lambda a, ax: getattr(a, name)(ax), a, ax)


def test_without_axis_the_builtins_still_serve():
    @njit
    def f(a):
        return np.sum(a), a.max(), np.argmin(a), a.cumprod()[-1], np.mean(a)
    a = RNG.standard_normal((3, 4))
    assert_same(f(a), (np.sum(a), a.max(), np.argmin(a), a.cumprod()[-1], np.mean(a)))


def test_dtype_and_ddof():
    @njit
    def f(a):
        return np.sum(a, axis=0, dtype=np.float32), np.var(a, axis=1, ddof=1), \
            np.std(a, 0, ddof=1), np.cumsum(a, axis=1, dtype=np.float64)
    a = RNG.integers(0, 9, (4, 5))
    assert_same(f(a), (np.sum(a, axis=0, dtype=np.float32), np.var(a, axis=1, ddof=1),
                       np.std(a, 0, ddof=1), np.cumsum(a, axis=1, dtype=np.float64)))


def test_axis_out_of_bounds_and_empty():
    f = _compiled("def f(a, ax):\n    return np.max(a, axis=ax)\n")
    with pytest.raises(np.exceptions.AxisError):
        f(np.zeros((2, 3)), 2)
    with pytest.raises(ValueError, match="zero-size array"):
        f(np.zeros((2, 0)), 1)


def test_keepdims_known_only_at_run_time_is_refused_clearly():
    f = _compiled("def f(a, k):\n    return np.sum(a, axis=0, keepdims=k)\n")
    with pytest.raises(pyjit.TypingError, match="keepdims= must be the constant True or False"):
        f(np.zeros((2, 3)), True)


# ---- np.cumsum and np.cumprod with out= (CSR row pointers: np.cumsum(counts, out=ip[1:])) ----

def _csr_indptr(rows, n):
    ip = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=ip[1:])
    return ip


def _cum_into(a, o1, o2, o3, o4):
    r1 = np.cumsum(a, out=o1)
    r2 = np.cumsum(a, axis=1, out=o2)
    r3 = np.cumprod(a, axis=0, out=o3)
    r4 = a.cumsum(out=o4)           # a float accumulation cast into an int out, as NumPy does
    return r1, r2, r3, r4, r2 is o2


def test_cumulative_into_out():
    check(_csr_indptr, np.array([3, 0, 3, 1, 5, 5, 5]), 7)
    a = np.arange(1, 7.0).reshape(2, 3)
    check(_cum_into, a, np.empty(6), np.empty((2, 3)), np.empty((2, 3)), np.empty(6, np.int64))
    with pytest.raises(ValueError, match="provided out is the wrong size"):
        njit(lambda a, o: np.cumsum(a, out=o))(a, np.empty(5))
    with pytest.raises(ValueError, match="provided out is the wrong size"):
        njit(lambda a, o: np.cumprod(a, axis=1, out=o))(a, np.empty((3, 2)))
