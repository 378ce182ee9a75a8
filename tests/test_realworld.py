"""Real-world extension code (tests/realworld/README.md), compiled vs CPython/NumPy."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "realworld"))
import integration_shapes  # noqa: E402
import overload_example  # noqa: E402
import solver_njitable  # noqa: E402


def test_secant_with_njitable_helpers():
    for x0, x1 in ((1.0, 3.0), (2.0, 2.5), (-1.0, 4.0)):
        expected = solver_njitable.secant(x0, x1, 1e-12, 100)
        assert solver_njitable.secant_jit(x0, x1, 1e-12, 100) == pytest.approx(expected, rel=1e-12)
    assert solver_njitable.secant_step(1.0, 2.0, -6.0, -1.0) == pytest.approx(2.2)


def test_overloaded_bound():
    x = np.array([-3.0, 0.5, 2.0, 7.0])
    expected = overload_example.bound(x, 0.0, 5.0).sum() + overload_example.bound(-1.0, 0.0, 5.0)
    assert overload_example.bounded_sum(x, 0.0, 5.0) == pytest.approx(expected)
    assert overload_example.bounded_sum(x[::2], 1.0, 1.5) == pytest.approx(
        overload_example.bound(x[::2], 1.0, 1.5).sum() + 1.0)


def test_trapezoid_with_jitable_check():
    x = np.linspace(0.0, np.pi, 101)
    y = np.sin(x)
    assert integration_shapes.trapezoid_jit(x, y) == pytest.approx(np.trapezoid(y, x))
    with pytest.raises(ValueError, match="same length"):
        integration_shapes.trapezoid_jit(x, y[:5])
    with pytest.raises(ValueError, match="two sample points"):
        integration_shapes.trapezoid_jit(x[:1], y[:1])
