"""pyjit.np.extensions.cross2d (numba.np.extensions'), in Python and compiled, against NumPy's
arithmetic on the broadcast arrays."""
import numpy as np
import pytest

from pyjit import njit
from pyjit.np.extensions import cross2d


@njit
def _compiled(a, b):
    return cross2d(a, b)


@pytest.mark.parametrize("sa, sb", [((2,), (2,)), ((7, 2), (7, 2)), ((7, 2), (2,)),
                                    ((3, 4, 2), (4, 2)), ((0, 2), (0, 2))])
def test_cross2d(sa, sb):
    rng = np.random.default_rng(len(sa) + len(sb))
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    want = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    np.testing.assert_allclose(cross2d(a, b), want)
    np.testing.assert_allclose(_compiled(a, b), want)


def test_cross2d_of_non_2_vectors_is_a_value_error():
    for f in (cross2d, _compiled):
        with pytest.raises(ValueError, match="dimension must be 2"):
            f(np.ones((2, 3)), np.ones((2, 3)))
