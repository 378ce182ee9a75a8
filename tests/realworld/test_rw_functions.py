"""Real-world patterns: compiled functions passed to compiled functions.

QuantEcon's optimize module takes the objective as a jitted function argument of its root
finders and maximisers (newton, brentq, golden-section search); pynndescent passes the distance
(a jitted metric chosen by name) into its nearest-neighbour loops. Written here in the style of
those projects, with `from numba import njit` switched to pyjit. Each is compared with the same
source run by CPython (the solvers' and objectives' Python functions) and with Numba (both
compiled by it) when it is installed.
"""
import math

import numpy as np
import pytest

from pyjit import njit
from util import numba_or_none


# --- QuantEcon-style root finding and maximisation ---------------------------------------------

@njit
def newton(func, fprime, x0, tol=1.48e-8, maxiter=50):
    p0 = x0
    for itr in range(maxiter):
        fval = func(p0)
        fder = fprime(p0)
        if fder == 0.0:
            return p0, itr, False
        p = p0 - fval / fder
        if abs(p - p0) < tol:
            return p, itr + 1, True
        p0 = p
    return p0, maxiter, False


@njit
def brentq(f, xa, xb, xtol=2e-12, rtol=4 * float(np.finfo(float).eps), maxiter=100):
    xpre, xcur = xa, xb
    xblk, fblk, spre, scur = 0.0, 0.0, 0.0, 0.0
    fpre, fcur = f(xpre), f(xcur)
    if fpre * fcur > 0:
        raise ValueError("f(a) and f(b) must have different signs")
    if fpre == 0:
        return xpre, 0
    if fcur == 0:
        return xcur, 0
    for itr in range(maxiter):
        if fpre * fcur < 0:
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur, itr
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):
                spre, scur = scur, stry
            else:
                spre, scur = sbis, sbis
        else:
            spre, scur = sbis, sbis
        xpre, fpre = xcur, fcur
        if abs(scur) > delta:
            xcur += scur
        else:
            xcur += delta if sbis > 0 else -delta
        fcur = f(xcur)
    return xcur, maxiter


@njit
def golden_section_max(f, a, b, tol=1e-10, maxiter=200):
    invphi = (math.sqrt(5.0) - 1.0) / 2.0
    c = b - invphi * (b - a)
    d = a + invphi * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(maxiter):
        if abs(b - a) < tol:
            break
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - invphi * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + invphi * (b - a)
            fd = f(d)
    x = (a + b) / 2.0
    return x, f(x)


@njit
def cubic(x):
    return x ** 3 - 2.0 * x - 5.0


@njit
def cubic_prime(x):
    return 3.0 * x ** 2 - 2.0


@njit
def log_utility(c):
    return math.log(c) - 0.1 * c * c


@njit
def cos_minus_x(x):
    return math.cos(x) - x


@njit
def solve_all(values):
    """A compiled caller of the solvers, as QuantEcon's own examples call them in a loop: an
    objective made per value (a closure over it) and passed on."""
    out = np.empty((values.shape[0], 3))
    for i in range(values.shape[0]):
        v = values[i]
        out[i, 0] = newton(lambda x: x * x - v, lambda x: 2.0 * x, 1.0 + v)[0]
        out[i, 1] = brentq(lambda x: x * x * x - v, 0.0, 1.0 + v)[0]
        out[i, 2] = golden_section_max(lambda x: -(x - v) ** 2, -10.0, 10.0)[0]
    return out


def _python(f):
    return f.py_func if hasattr(f, "py_func") else f


CASES = [
    ("newton", newton, (cubic, cubic_prime, 2.0)),
    ("brentq cubic", brentq, (cubic, 1.0, 3.0)),
    ("brentq cos", brentq, (cos_minus_x, 0.0, 2.0)),
    ("golden", golden_section_max, (log_utility, 0.1, 10.0)),
]


@pytest.mark.parametrize("name,solver,args", CASES, ids=[c[0] for c in CASES])
def test_solvers_with_compiled_objectives(name, solver, args):
    got = solver(*args)
    expected = solver.py_func(*[_python(a) for a in args])
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    nb = numba_or_none(solver)
    if nb is not None:
        nb_args = [numba_or_none(a) if hasattr(a, "py_func") else a for a in args]
        np.testing.assert_allclose(nb(*nb_args), got, rtol=1e-12)


def test_solvers_called_with_closures_in_a_compiled_loop():
    values = np.linspace(0.5, 8.0, 16)
    got = solve_all(values)
    np.testing.assert_allclose(got[:, 0], np.sqrt(values), rtol=1e-10)
    np.testing.assert_allclose(got[:, 1], np.cbrt(values), rtol=1e-10)
    np.testing.assert_allclose(got[:, 2], values, atol=1e-6)


def test_brentq_raises_as_cpython():
    with pytest.raises(ValueError, match="different signs"):
        brentq(cubic, 3.0, 4.0)


# --- pynndescent-style metrics passed into a nearest-neighbour search --------------------------

@njit
def euclidean(x, y):
    result = 0.0
    for i in range(x.shape[0]):
        result += (x[i] - y[i]) ** 2
    return math.sqrt(result)


@njit
def manhattan(x, y):
    result = 0.0
    for i in range(x.shape[0]):
        result += abs(x[i] - y[i])
    return result


@njit
def cosine(x, y):
    result = 0.0
    norm_x = 0.0
    norm_y = 0.0
    for i in range(x.shape[0]):
        result += x[i] * y[i]
        norm_x += x[i] ** 2
        norm_y += y[i] ** 2
    if norm_x == 0.0 and norm_y == 0.0:
        return 0.0
    if norm_x == 0.0 or norm_y == 0.0:
        return 1.0
    return 1.0 - result / math.sqrt(norm_x * norm_y)


@njit
def brute_force_knn(data, queries, k, dist):
    n_queries = queries.shape[0]
    indices = np.empty((n_queries, k), dtype=np.int64)
    distances = np.empty((n_queries, k))
    for q in range(n_queries):
        d = np.empty(data.shape[0])
        for j in range(data.shape[0]):
            d[j] = dist(queries[q], data[j])
        order = np.argsort(d, kind="mergesort")
        for m in range(k):
            indices[q, m] = order[m]
            distances[q, m] = d[order[m]]
    return indices, distances


@njit
def minkowski_knn(data, queries, k, p):
    """The metric a closure over its parameter, as pynndescent binds metric keywords."""
    def minkowski(x, y):
        result = 0.0
        for i in range(x.shape[0]):
            result += abs(x[i] - y[i]) ** p
        return result ** (1.0 / p)
    return brute_force_knn(data, queries, k, minkowski)


@pytest.mark.parametrize("metric", [euclidean, manhattan, cosine], ids=lambda m: m.__name__)
def test_knn_with_a_metric_argument(metric):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((60, 5))
    queries = rng.standard_normal((7, 5))
    got = brute_force_knn(data, queries, 4, metric)
    expected = brute_force_knn.py_func(data, queries, 4, metric.py_func)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-12)
    nb = numba_or_none(brute_force_knn)
    if nb is not None:
        theirs = nb(data, queries, 4, numba_or_none(metric))
        np.testing.assert_array_equal(theirs[0], got[0])
        np.testing.assert_allclose(theirs[1], got[1], rtol=1e-12)


def test_knn_with_a_closure_metric():
    rng = np.random.default_rng(4)
    data = rng.standard_normal((40, 3))
    queries = rng.standard_normal((5, 3))
    got = minkowski_knn(data, queries, 3, 3.0)
    py_knn = brute_force_knn.py_func
    minkowski_globals = dict(minkowski_knn.py_func.__globals__, brute_force_knn=py_knn)
    import types
    py_minkowski_knn = types.FunctionType(minkowski_knn.py_func.__code__, minkowski_globals)
    expected = py_minkowski_knn(data, queries, 3, 3.0)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-12)
