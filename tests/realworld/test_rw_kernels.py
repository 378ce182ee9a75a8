"""Real-world numeric kernels (numeric_kernels.py): loops over arrays as public Numba code writes
them, each run compiled and by CPython on the same inputs, and by Numba when it is installed.
bench/realworld.py times the same kernels against Numba on larger inputs."""
import numpy as np
import pytest

import numeric_kernels
from pyjit import njit

PY = numeric_kernels.make(lambda f: f)
JIT = numeric_kernels.make(njit)


def _numba():
    try:
        import numba
    except ImportError:
        return None
    return numeric_kernels.make(numba.njit)


def _same(got, want):
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(PY))
def test_kernel_against_cpython(name):
    want = PY[name](*numeric_kernels.inputs(name, small=True))
    _same(JIT[name](*numeric_kernels.inputs(name, small=True)), want)


@pytest.mark.parametrize("name", sorted(PY))
def test_kernel_against_numba(name):
    nb = _numba()
    if nb is None:
        pytest.skip("Numba is not installed")
    _same(JIT[name](*numeric_kernels.inputs(name, small=True)),
          nb[name](*numeric_kernels.inputs(name, small=True)))
