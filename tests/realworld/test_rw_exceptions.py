"""Real-world patterns: exceptions caught in compiled code.

Numba code in public projects guards the odd input inside its loops rather than checking it up
front: parsers of text records skip the fields that are no numbers, safe-division helpers give a
fallback where the denominator is zero, root finders that fail to converge raise and their
callers fall back to bisection, stencils treat the cells past the grid's edge as missing, and
lookups in dicts of settings fall back to defaults. Written here in the style of those projects,
with `from numba import njit` switched to pyjit. Each is compared with the same source run by
CPython (`py_func`), and with Numba where Numba compiles it (Numba catches only `except
Exception` and a bare `except`; the functions that name a class are compared with CPython).
"""
import math

import numpy as np
import pytest

from pyjit import njit
from util import assert_same, numba_or_none


@njit
def parse_fields(fields):
    values = []
    bad = 0
    for f in fields:
        try:
            values.append(float(f))
        except ValueError:
            bad += 1
    return values, bad


@njit
def parse_ints_or_default(fields, default):
    out = np.empty(len(fields), dtype=np.int64)
    for i in range(len(fields)):
        try:
            out[i] = int(fields[i])
        except Exception:
            out[i] = default
    return out


@njit
def safe_ratio(num, den, fallback):
    out = np.empty(num.shape[0])
    for i in range(num.shape[0]):
        try:
            out[i] = float(num[i]) / float(den[i])
        except ZeroDivisionError:
            out[i] = fallback
    return out


@njit
def safe_int_div(a, b):
    try:
        q = a // b
    except Exception:
        q = 0
    return q


@njit
def newton(x0, target, tol, maxiter):
    x = x0
    for _ in range(maxiter):
        fx = x * x * x - target
        d = 3.0 * x * x
        if d == 0.0:
            raise ZeroDivisionError("flat derivative")
        step = fx / d
        x -= step
        if abs(step) < tol:
            return x
    raise ValueError("did not converge")


@njit
def bisect(lo, hi, target, tol):
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@njit
def cube_root(target, x0, maxiter):
    try:
        return newton(x0, target, 1e-12, maxiter), True
    except (ValueError, ZeroDivisionError):
        return bisect(0.0, max(1.0, target), target, 1e-12), False


@njit
def cube_roots_any(targets, x0, maxiter):
    out = np.empty(targets.shape[0])
    for i in range(targets.shape[0]):
        try:
            out[i] = newton(x0, targets[i], 1e-12, maxiter)
        except Exception:
            out[i] = bisect(0.0, max(1.0, targets[i]), targets[i], 1e-12)
    return out


@njit
def neighbour_mean(grid, i, j):
    s = 0.0
    n = 0
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di == 0 and dj == 0:
                continue
            try:
                s += grid[i + di, j + dj]
                n += 1
            except IndexError:
                pass
    return s / n


@njit
def settings_with_defaults(keys):
    table = {"alpha": 0.5, "beta": 2.0}
    total = 0.0
    missing = 0
    for k in keys:
        try:
            total += table[k]
        except KeyError:
            missing += 1
            total += 1.0
        finally:
            total *= 1.5
    return total, missing


@njit
def checked_log(x):
    if x <= 0.0:
        raise ValueError("log of a non-positive number")
    return math.log(x)


@njit
def log_likelihood(samples):
    total = 0.0
    skipped = 0
    for x in samples:
        try:
            total += checked_log(x)
        except:  # noqa: E722 - the bare form Numba code uses
            skipped += 1
    return total, skipped


CPYTHON_ONLY = [
    (parse_ints_or_default, lambda: (["1", "x", "22", "3.5"], -1)),
    (parse_fields, lambda: (["1.5", "x", " 2 ", "1e3", "", "nan?"],)),
    (safe_ratio, lambda: (np.array([1, 4, 9, 3]), np.array([2, 0, 3, 0]), -1.0)),
    (cube_root, lambda: (27.0, 1.0, 50)),
    (cube_root, lambda: (27.0, 0.0, 50)),
    (cube_root, lambda: (1000.0, 1.0, 3)),
    (neighbour_mean, lambda: (np.arange(12.0).reshape(3, 4), 1, 1)),
    (neighbour_mean, lambda: (np.arange(12.0).reshape(3, 4), 2, 3)),
    (settings_with_defaults, lambda: (["alpha", "gamma", "beta", "delta"],)),
]

WITH_NUMBA = [
    (log_likelihood, lambda: (np.array([1.0, -2.0, 3.5, 0.0, 8.0]),)),
    (safe_int_div, lambda: (7, 2)),
    (safe_int_div, lambda: (7, 0)),
    (cube_roots_any, lambda: (np.array([8.0, 27.0, 1000.0, 2.0]), 1.0, 6)),
]


def _plain(x):
    """A result with its lists as lists (Numba's reflected lists compare as lists too)."""
    if isinstance(x, tuple):
        return tuple(_plain(v) for v in x)
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, list) or hasattr(x, "_numba_type_"):
        return list(x)
    return x


@pytest.mark.parametrize("f,make", CPYTHON_ONLY + WITH_NUMBA,
                         ids=lambda v: getattr(v, "__name__", ""))
def test_same_as_cpython(f, make):
    got = f(*make())
    expected = f.py_func(*make())
    assert_same(_plain(expected), _plain(got), where=f.__name__)


@pytest.mark.parametrize("f,make", WITH_NUMBA, ids=lambda v: getattr(v, "__name__", ""))
def test_same_as_numba(f, make):
    nb = numba_or_none(f)
    if nb is None:
        pytest.skip("Numba is not installed")
    args = make()
    if isinstance(args[0], list):
        from numba.typed import List
        nb_args = (List(args[0]),) + tuple(args[1:])
    else:
        nb_args = args
    assert_same(_plain(nb(*nb_args)), _plain(f(*make())), where=f.__name__)


def test_nan_fields_parse_like_cpython():
    values, bad = parse_fields(["nan", "inf", "-0.0"])
    assert bad == 0 and math.isnan(values[0]) and values[1] == math.inf
