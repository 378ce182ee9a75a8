"""Real-world patterns: np.linalg inside compiled code.

Public Numba code fits polynomials and linear models by least squares in a loop over windows
(rolling regressions in finance and signal processing: a Vandermonde-style design matrix,
np.linalg.lstsq or the normal equations through np.linalg.solve), reduces data by PCA
(covariance, np.linalg.eigh, projection with @), orthonormalises bases (Gram-Schmidt against
np.linalg.qr), and steps linear dynamical systems with implicit methods (np.linalg.inv once,
then @ per step; a Kalman filter's update through solve). Written here in the style of those
projects, with `from numba import njit` switched to pyjit; each is compared with the same source
run by CPython and NumPy (`py_func`), and with Numba when it is installed.
"""
import numpy as np
import pytest

from pyjit import njit
from util import numba_or_none


@njit
def rolling_poly_fit(t, y, window, degree):
    """Polynomial coefficients fitted to each window of y by least squares (lstsq), and the
    same through the normal equations (solve): they agree for well-conditioned windows."""
    n = y.shape[0] - window + 1
    coef = np.empty((n, degree + 1))
    normal = np.empty((n, degree + 1))
    for s in range(n):
        X = np.empty((window, degree + 1))
        for i in range(window):
            for p in range(degree + 1):
                X[i, p] = t[s + i] ** p
        sol, resid, rank, sv = np.linalg.lstsq(X, y[s:s + window])
        coef[s] = sol
        normal[s] = np.linalg.solve(X.T @ X, X.T @ y[s:s + window])
    return coef, normal


@njit
def pca(data, k):
    """The k leading principal components (signs fixed: largest entry positive), the explained
    variances and the projected data."""
    centred = data - data.sum(axis=0) / data.shape[0]
    cov = centred.T @ centred / (data.shape[0] - 1)
    w, v = np.linalg.eigh(cov)
    m = w.shape[0]
    comps = np.empty((m, k))
    var = np.empty(k)
    for j in range(k):
        col = v[:, m - 1 - j]
        big = 0
        for i in range(m):
            if abs(col[i]) > abs(col[big]):
                big = i
        sign = 1.0 if col[big] > 0 else -1.0
        comps[:, j] = col * sign
        var[j] = w[m - 1 - j]
    return comps, var, centred @ comps


@njit
def gram_schmidt(a):
    """Modified Gram-Schmidt, checked against np.linalg.qr up to the signs of the columns, and
    the conditioning of the basis."""
    m, n = a.shape
    q = np.zeros((m, n))
    for j in range(n):
        v = a[:, j].copy()
        for i in range(j):
            v = v - np.dot(q[:, i], v) * q[:, i]
        q[:, j] = v / np.linalg.norm(v)
    qq, r = np.linalg.qr(a)
    for j in range(n):
        if np.dot(qq[:, j], q[:, j]) < 0:
            qq[:, j] = -qq[:, j]
    return q, qq, np.linalg.cond(a), np.linalg.matrix_rank(a)


@njit
def implicit_euler(A, x0, dt, steps):
    """x' = A x stepped by implicit Euler: (I - dt A)^-1 once, then a product per step; the
    determinant of the step matrix and its slogdet."""
    n = A.shape[0]
    step = np.linalg.inv(np.eye(n) - dt * A)
    x = x0.copy()
    for _ in range(steps):
        x = step @ x
    sign, logdet = np.linalg.slogdet(step)
    return x, np.linalg.det(step), sign, logdet


@njit
def kalman_filter(zs, F, H, Q, R, x0, P0):
    """A linear Kalman filter: the gain from solve (not inv), the covariance kept symmetric; the
    Cholesky factor of the last covariance."""
    n = F.shape[0]
    x, P = x0.copy(), P0.copy()
    out = np.empty((zs.shape[0], n))
    for t in range(zs.shape[0]):
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = np.linalg.solve(S, H @ P).T
        x = x + K @ (zs[t] - H @ x)
        P = (np.eye(n) - K @ H) @ P
        P = (P + P.T) / 2
        out[t] = x
    return out, np.linalg.cholesky(P)


def _same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return np.allclose(a, b, rtol=1e-8, atol=1e-10) and np.shape(a) == np.shape(b)


rng = np.random.default_rng(11)


def _kalman_args():
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    truth = np.cumsum(np.full(40, 0.1))
    zs = (truth + rng.normal(0, 0.05, 40)).reshape(40, 1)
    return zs, F, H, np.eye(2) * 1e-4, np.eye(1) * 0.0025, np.zeros(2), np.eye(2)


CASES = [
    (rolling_poly_fit, lambda: (np.linspace(0, 1, 60), np.sin(np.linspace(0, 4, 60)) +
                                rng.normal(0, 0.01, 60), 12, 2)),
    (pca, lambda: (rng.normal(size=(200, 5)) @ rng.normal(size=(5, 5)), 2)),
    (gram_schmidt, lambda: (rng.normal(size=(8, 4)),)),
    (implicit_euler, lambda: (np.array([[-1.0, 0.5], [0.0, -2.0]]), np.array([1.0, 1.0]), 0.05,
                              100)),
    (kalman_filter, _kalman_args),
]


@pytest.mark.parametrize("f,make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_against_cpython_and_numba(f, make):
    args = make()
    want = f.py_func(*args)
    assert _same(f(*args), want)
    nb = numba_or_none(f)
    if nb is not None:
        try:
            got = nb(*args)
        except Exception:   # noqa: BLE001 - a function this Numba lacks: pyjit is ahead there
            return
        assert _same(got, want)
