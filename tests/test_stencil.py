"""@stencil against CPython running the same kernel: a reference that calls the kernel at each
interior element with its inputs wrapped so that relative indices read around that element, the
border cval (or untouched with out=); from Python and from @njit code."""
import itertools

import numpy as np
import pytest

from pyjit import errors, njit, stencil


class _Around:
    """An array read relative to one element, as a stencil kernel reads its inputs."""

    def __init__(self, a, at):
        self.a, self.at = a, at

    def __getitem__(self, rel):
        rel = rel if isinstance(rel, tuple) else (rel,)
        return self.a[tuple(i + r for i, r in zip(self.at, rel))]


def _reference(kernel, args, hood, cval=0, out=None, standard=()):
    names = kernel._params
    arrays = [i for i, n in enumerate(names) if n not in standard and isinstance(args[i], np.ndarray)]
    a0 = args[arrays[0]]
    values = {}
    ranges = [range(-lo, n - hi) for (lo, hi), n in zip(hood, a0.shape)]
    for at in itertools.product(*ranges):
        call = [_Around(a, at) if i in arrays else a for i, a in enumerate(args)]
        values[at] = kernel.py_func(*call)
    dtype = np.asarray(list(values.values()) or [0.0]).dtype   # no interior: the kernel's
    res = out.copy() if out is not None else np.full(a0.shape, cval, dtype=dtype)
    for at, v in values.items():
        res[at] = v
    return res


@stencil
def cross(a):
    return 0.25 * (a[0, 1] + a[1, 0] + a[0, -1] + a[-1, 0])


@stencil(cval=-1.0)
def scaled_right(a, c):
    return a[0, 1] * c


@stencil(neighborhood=((-2, 0),))
def trailing_sum(a):
    s = 0
    for i in range(-2, 1):
        s += a[i]
    return s


@stencil
def above(a):
    return a[0] > 3


@stencil(standard_indexing=("w",))
def weighted(a, w):
    return a[-1] * w[0] + a[1] * w[1]


@stencil
def two_inputs(a, b):
    return a[0, 0, -1] * b[0, 0, 1] - a[1, 0, 0]


IMAGE = np.random.default_rng(5).normal(size=(6, 7))


@pytest.mark.parametrize("kernel, args, kws", [
    (cross, (np.arange(20).reshape(4, 5),), {}),
    (cross, (IMAGE,), {}),
    (cross, (IMAGE[::2, ::-1],), {}),
    (cross, (np.ones((1, 1)),), {}),
    (scaled_right, (IMAGE, 2.0), {"cval": -1.0}),
    (trailing_sum, (np.arange(9),), {}),
    (above, (np.arange(6),), {}),
    (weighted, (np.arange(6.0), np.array([1.0, 10.0])), {"standard": ("w",)}),
    (two_inputs, (np.arange(24.0).reshape(2, 3, 4), np.ones((2, 3, 4))), {}),
])
def test_stencil_matches_cpython(kernel, args, kws):
    want = _reference(kernel, args, kernel.neighborhood, **kws)
    got = kernel(*args)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(njit(lambda *a: kernel(*a))(*args), want)


def test_out_keeps_the_border():
    out = np.full(IMAGE.shape, 7.0)
    want = _reference(cross, (IMAGE,), cross.neighborhood, out=out)
    np.testing.assert_allclose(cross(IMAGE, out=out), want)
    out2 = np.full(IMAGE.shape, 7.0)
    njit(lambda a, o: cross(a, out=o))(IMAGE, out2)
    np.testing.assert_allclose(out2, want)


def test_neighbourhoods_read_off_the_kernel():
    assert cross.neighborhood == ((-1, 1), (-1, 1))
    assert scaled_right.neighborhood == ((0, 0), (0, 1))
    assert trailing_sum.neighborhood == ((-2, 0),)


def test_bad_kernels_and_calls_say_why():
    with pytest.raises(ValueError, match="neighborhood option is needed"):
        @stencil
        def moving(a, k):
            return a[k]
    with pytest.raises(ValueError, match="assigns to its input"):
        @stencil
        def writes(a):
            a[0] = 1
            return a[1]
    with pytest.raises(ValueError, match="same shape as the first input"):
        two_inputs(np.ones((2, 3, 4)), np.ones((2, 3, 5)))
    with pytest.raises(TypeError, match="takes out= only"):
        cross(IMAGE, cval=3)


def test_stencil_made_inside_compiled_code_is_refused_clearly():
    # Numba's docs make a kernel from a lambda inside a parallel=True function; pyjit asks for
    # the kernel to be made outside
    @njit(parallel=True)
    def inline(A):
        c = 2
        return stencil(lambda a, c: 0.3 * (a[-c + 1] + a[0] + a[c - 1]))(A, c)

    with pytest.raises(errors.TypingError, match=r"stencil\(\) cannot be called inside compiled"):
        inline(np.arange(10.0))
