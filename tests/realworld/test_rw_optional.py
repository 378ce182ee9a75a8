"""Real-world patterns: optional arguments and results, generator-expression reductions.

Numba code in public projects takes an optional output array (`out=None`, allocated when not
given: ufunc-style helpers, image filters), returns None when a search finds nothing (root
bracketing, first-crossing detectors), and writes reductions as generator expressions
(`sum(w * x for w, x in zip(weights, values))` in statistics helpers, `max(abs(...) for ...)` as a
convergence test). Written here in the style of those projects, with `from numba import njit`
switched to pyjit. Each is compared with the same source run by CPython (`py_func`), and with
Numba when it is installed; Numba 0.68 refuses the generator expressions ("the use of yield in a
closure is unsupported"), which pyjit compiles: those are compared with CPython only.
"""
import numpy as np
import pytest

from pyjit import njit
from util import assert_same, numba_or_none


@njit
def moving_average(x, window, out=None):
    n = x.shape[0] - window + 1
    if out is None:
        out = np.empty(n)
    acc = 0.0
    for i in range(window):
        acc += x[i]
    out[0] = acc / window
    for i in range(1, n):
        acc += x[i + window - 1] - x[i - 1]
        out[i] = acc / window
    return out


@njit
def first_crossing(signal, level):
    """The index where the signal first rises through level, or None."""
    found = None
    for i in range(1, signal.shape[0]):
        if signal[i - 1] < level <= signal[i]:
            found = i
            break
    return found


@njit
def bracket_root(f_values, xs):
    """The first interval whose ends change sign, or None."""
    best = None
    for i in range(xs.shape[0] - 1):
        if f_values[i] * f_values[i + 1] <= 0.0:
            best = (xs[i], xs[i + 1])
            break
    return best


@njit
def weighted_mean(weights, values):
    return sum(w * v for w, v in zip(weights, values)) / sum(w for w in weights)


@njit
def max_change(old, new):
    return max(abs(a - b) for a, b in zip(old, new))


@njit
def relax(u, tol):
    """Jacobi smoothing until the largest change is below tol (a generator-expression test)."""
    steps = 0
    while True:
        v = u.copy()
        for i in range(1, u.shape[0] - 1):
            v[i] = 0.5 * (u[i - 1] + u[i + 1])
        steps += 1
        if max(abs(a - b) for a, b in zip(u, v)) < tol or steps > 500:
            return v, steps
        u = v


_SIGNAL = np.sin(np.linspace(0, 6, 50))

OPTIONAL_CASES = [
    (moving_average, lambda: (np.arange(10.0), 3)),
    (moving_average, lambda: (np.arange(10.0), 3, np.zeros(8))),
    (moving_average, lambda: (np.arange(10.0), 4, None)),
    (first_crossing, lambda: (_SIGNAL, 0.5)),
    (first_crossing, lambda: (_SIGNAL, 5.0)),
    (bracket_root, lambda: (np.linspace(-1, 2, 7) ** 2 - 1, np.linspace(-1, 2, 7))),
    (bracket_root, lambda: (np.ones(4), np.arange(4.0))),
]

GENEXPR_CASES = [
    (weighted_mean, lambda: (np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))),
    (max_change, lambda: (np.arange(5.0), np.arange(5.0) ** 1.5)),
    (relax, lambda: (np.concatenate([np.zeros(10), np.ones(10)]), 1e-3)),
]


def _compare(f, make, with_numba=True):
    args = make()
    got = f(*args)
    assert_same(f.py_func(*make()), got)
    nb = numba_or_none(f) if with_numba else None
    if nb is not None:
        assert_same(nb(*make()), got)


@pytest.mark.parametrize("f, make", OPTIONAL_CASES,
                         ids=[f"{f.py_func.__name__}{i}" for i, (f, _) in enumerate(OPTIONAL_CASES)])
def test_optional_same_as_cpython_and_numba(f, make):
    _compare(f, make)


@pytest.mark.parametrize("f, make", GENEXPR_CASES, ids=[f.py_func.__name__ for f, _ in GENEXPR_CASES])
def test_generator_expressions_same_as_cpython(f, make):
    _compare(f, make, with_numba=False)
