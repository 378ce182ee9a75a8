"""Real-world pattern: a scipy integrand written as a C callback (scipy.LowLevelCallable).

Projects that integrate many times (option pricing, radiative-transfer and statistics codes)
move the integrand into a `@numba.cfunc` with scipy's C signatures, `double f(int n, double *xx)`
(the extra arguments of quad arriving through xx) or `double f(double x, void *user_data)` (an
array of parameters behind the pointer, viewed with carray), so that quad calls machine code with
no Python in its loop. Written here in that style with the import switched to pyjit, and compared
with the Python integrand and with Numba's cfunc of the same source.
"""
import ctypes
import math

import numpy as np
import pytest

from pyjit import carray, cfunc, types

scipy = pytest.importorskip("scipy")
from scipy import LowLevelCallable, integrate  # noqa: E402

SIG_ARGS = types.float64(types.intc, types.CPointer(types.float64))
SIG_DATA = types.float64(types.float64, types.voidptr)


def heston_like(n, xx):
    """A damped oscillating integrand of the kind characteristic-function pricing sums:
    xx = (u, kappa, theta, sigma)."""
    u, kappa, theta, sigma = xx[0], xx[1], xx[2], xx[3]
    damp = math.exp(-kappa * u * u * theta / (1.0 + sigma * u))
    return damp * math.cos(u * math.log(1.0 + theta)) / (1.0 + u * u)


def planck_band(x, data):
    """Planck's spectral weight over a band, the temperature and scale behind the pointer."""
    p = carray(data, 2, dtype=np.float64)
    t, scale = p[0], p[1]
    if x == 0.0:
        return 0.0
    return scale * x ** 3 / (math.exp(x / t) - 1.0)


def quad_of(callback, a, b, args=(), user=None):
    llc = LowLevelCallable(callback.ctypes, user) if user is not None else LowLevelCallable(callback.ctypes)
    return integrate.quad(llc, a, b, args=args)[0]


def numba_cfunc(f, sig):
    """Numba's cfunc of the same source, its carray Numba's own."""
    try:
        import numba
    except ImportError:
        return None
    import types as pytypes
    scope = dict(f.__globals__, carray=numba.carray)
    return numba.cfunc(sig)(pytypes.FunctionType(f.__code__, scope, f.__name__))


@pytest.mark.parametrize("params", [(0.5, 0.04, 0.3), (2.0, 0.09, 0.6), (1.2, 0.2, 1.5)])
def test_int_pointer_integrand(params):
    fast = cfunc(SIG_ARGS)(heston_like)
    got = quad_of(fast, 0.0, 50.0, args=params)
    expected = integrate.quad(lambda u: heston_like(4, [u, *params]), 0.0, 50.0)[0]
    assert math.isclose(got, expected, rel_tol=1e-10)
    nb = numba_cfunc(heston_like, "float64(intc, CPointer(float64))")
    if nb is not None:
        assert math.isclose(got, quad_of(nb, 0.0, 50.0, args=params), rel_tol=1e-12)


@pytest.mark.parametrize("temperature", [0.5, 1.0, 3.0])
def test_user_data_integrand(temperature):
    fast = cfunc(SIG_DATA)(planck_band)
    params = np.array([temperature, 15.0 / math.pi ** 4])
    user = ctypes.cast(params.ctypes.data, ctypes.c_void_p)
    got = quad_of(fast, 0.0, 40.0 * temperature, user=user)
    # the same source run by CPython: pyjit.carray also views the memory behind a ctypes pointer
    expected = integrate.quad(lambda x: planck_band(x, user), 0.0, 40.0 * temperature)[0]
    assert math.isclose(got, expected, rel_tol=1e-10)
    nb = numba_cfunc(planck_band, "float64(float64, voidptr)")
    if nb is not None:
        assert math.isclose(got, quad_of(nb, 0.0, 40.0 * temperature, user=user), rel_tol=1e-12)
