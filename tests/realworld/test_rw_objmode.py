"""Real-world pattern: timing and logging from inside a compiled loop with objmode.

Simulation and optimisation codes written for Numba time their phases from inside the compiled
driver (`with numba.objmode(t='f8'): t = time.perf_counter()`), and log progress every so many
steps through Python's logging, keeping the hot loop compiled. Written here in that style (a
relaxation solver for a 1-d Poisson problem that records the time of each sweep block and logs
its residual) with the import switched to pyjit, and compared with CPython and with Numba's
objmode running the same source.
"""
import logging
import time

import numpy as np
import pytest

from pyjit import njit, objmode

log = logging.getLogger("relax")


def relax(f, sweeps, every):
    n = f.size
    u = np.zeros(n)
    h2 = 1.0 / ((n + 1) * (n + 1))
    times = np.zeros(sweeps // every)
    with objmode(start="float64"):
        start = time.perf_counter()
    for s in range(sweeps):
        for i in range(n):
            left = u[i - 1] if i > 0 else 0.0
            right = u[i + 1] if i < n - 1 else 0.0
            u[i] = 0.5 * (left + right + h2 * f[i])
        if (s + 1) % every == 0:
            r = 0.0
            for i in range(1, n - 1):
                d = u[i - 1] - 2.0 * u[i] + u[i + 1] + h2 * f[i]
                r += d * d
            with objmode(now="float64"):
                now = time.perf_counter()
                log.info("sweep %d residual %.3e", s + 1, r)
            times[(s + 1) // every - 1] = now - start
    return u, times


def numba_version():
    try:
        import numba
    except ImportError:
        return None
    import types as pytypes
    scope = dict(relax.__globals__, objmode=numba.objmode)
    return numba.njit(pytypes.FunctionType(relax.__code__, scope, relax.__name__))


def test_relaxation_with_timing_and_logging(caplog):
    f = np.sin(np.linspace(0.0, np.pi, 64))
    compiled = njit(relax)
    with caplog.at_level(logging.INFO, logger="relax"):
        u, times = compiled(f, 200, 50)
    logged = [r.getMessage() for r in caplog.records if r.name == "relax"]
    expected_u, expected_times = relax(f, 200, 50)
    assert np.allclose(u, expected_u, rtol=1e-12, atol=0.0)
    assert times.shape == expected_times.shape and np.all(np.diff(times) >= 0) and times[0] >= 0
    assert [m.split()[1] for m in logged] == ["50", "100", "150", "200"]
    nb = numba_version()
    if nb is not None:
        nb_u, nb_times = nb(f, 200, 50)
        assert np.allclose(u, nb_u, rtol=1e-12, atol=0.0)
        assert nb_times.shape == times.shape


def test_logged_residuals_match_python(caplog):
    f = np.cos(np.linspace(0.0, 3.0, 40))
    with caplog.at_level(logging.INFO, logger="relax"):
        relax(f, 60, 20)
        python = [r.getMessage() for r in caplog.records if r.name == "relax"]
        caplog.clear()
        njit(relax)(f, 60, 20)
        compiled = [r.getMessage() for r in caplog.records if r.name == "relax"]
    assert compiled == python
