"""NumPy's creation and shape functions in compiled code (pyjit/lib/numpy_create.py and
numpy_shape.py), each against NumPy itself over shapes, dtypes, layouts (C, F, strided views)
and axes, negative ones included."""
import itertools

import numpy as np
import pytest

import pyjit

_JIT = {}


def jit(f):
    if f not in _JIT:
        _JIT[f] = pyjit.njit(f)
    return _JIT[f]


def same(f, *args):
    """f compiled gives what NumPy gives: values, dtype and shape, or the same exception class."""
    try:
        want = f(*args)
    except Exception as exc:   # noqa: BLE001
        with pytest.raises(type(exc)):
            jit(f)(*args)
        return
    got = jit(f)(*args)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same_array(g, w)
    else:
        _same_array(got, want)


def _same_array(got, want):
    if np.ndim(want) == 0 and not isinstance(want, np.ndarray):
        assert np.ndim(got) == 0 and got == want   # scalars come back as Python numbers
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def layouts(shape, dtype=np.float64):
    """The same values C-contiguous, Fortran-ordered and as a strided view."""
    n = int(np.prod(shape))
    c = (np.arange(n) * 3 % 11 - 4).astype(dtype).reshape(shape)
    wide = np.zeros(tuple(s * 2 for s in shape), dtype)
    view = wide[tuple(slice(None, None, 2) for _ in shape)]
    view[...] = c
    return [c, np.asfortranarray(c), view]


# ---- creation -----------------------------------------------------------------------------

def eye1(n): return np.eye(n)
def eye2(n, m, k): return np.eye(n, m, k)
def eye3(n, k): return np.eye(n, k=k, dtype=np.int32)
def identity(n): return np.identity(n)
def identity_b(n): return np.identity(n, dtype=np.bool_)
def tri(n, m, k): return np.tri(n, m, k)
def diag(v, k): return np.diag(v, k)
def full_like(a): return np.full_like(a, 7)
def full_like_dt(a): return np.full_like(a, 2.5, dtype=np.float32)
def copy(a): return np.copy(a)
def tril(a, k): return np.tril(a, k)
def triu(a, k): return np.triu(a, k)
def outer(a, b): return np.outer(a, b)
def trace(a, k): return np.trace(a, k)
def cross(a, b): return np.cross(a, b)
def meshgrid(x, y): return np.meshgrid(x, y)
def meshgrid_ij(x, y): return np.meshgrid(x, y, indexing="ij")


@pytest.mark.parametrize("n,m,k", [(0, 0, 0), (1, 1, 0), (3, 3, 0), (3, 5, 1), (5, 3, -2),
                                   (4, 4, 7), (4, 4, -7)])
def test_eye_identity_tri(n, m, k):
    same(eye1, n)
    same(eye2, n, m, k)
    same(eye3, n, k)
    same(identity, n)
    same(identity_b, n)
    same(tri, n, m, k)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex128, np.bool_])
@pytest.mark.parametrize("k", [0, 1, -2, 5])
def test_diag_both_ways(dtype, k):
    for v in layouts((4,), dtype) + layouts((3, 5), dtype) + layouts((5, 3), dtype):
        same(diag, v, k)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint8, np.complex64])
def test_full_like_copy_tril_triu(dtype):
    for a in layouts((3, 4), dtype):
        same(full_like, a)
        same(full_like_dt, a)
        same(copy, a)
        for k in (-1, 0, 2):
            same(tril, a, k)
            same(triu, a, k)
            same(trace, a, k)


def test_outer_cross_meshgrid():
    for a, b in itertools.product(layouts((3,)), layouts((2, 2), np.int32)):
        same(outer, a, b)
    same(outer, np.arange(3), np.arange(4.0))
    same(cross, np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 4.0]))
    same(cross, np.array([1, 2, 3]), np.array([4, 5, 6]))
    for x, y in [(np.arange(3.0), np.arange(4)), (np.linspace(0, 1, 5), np.arange(2.0))]:
        same(meshgrid, x, y)
        same(meshgrid_ij, x, y)


# ---- joining -------------------------------------------------------------------------------

def concat2(a, b, ax): return np.concatenate((a, b), axis=ax)
def concat3(a, b, c): return np.concatenate((a, b, c))
def concat_list(a, b, ax): return np.concatenate([a, b, a], ax)
def stack2(a, b, ax): return np.stack((a, b), axis=ax)
def stack_list(a, b, ax): return np.stack([a, b], ax)
def vstack(a, b): return np.vstack((a, b))
def hstack(a, b): return np.hstack((a, b))
def column_stack(a, b): return np.column_stack((a, b))


@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 2)])
def test_concatenate_and_stack_every_axis_and_layout(shape):
    nd = len(shape)
    for a, b in itertools.product(layouts(shape), layouts(shape, np.int32)):
        for ax in range(-nd, nd):
            same(concat2, a, b, ax)
            same(concat_list, a, a, ax)
        for ax in range(-nd - 1, nd + 1):
            same(stack2, a, b, ax)
            same(stack_list, a, a, ax)
        same(concat3, a, b, a)
        same(vstack, a, b)
        same(hstack, a, b)
        if nd <= 2:
            same(column_stack, a, b)


def test_joining_errors_are_numpys():
    a, b = np.ones((2, 3)), np.ones((3, 3))
    same(concat2, a, b, 1)       # ValueError: dimensions differ off the axis
    same(concat2, a, a, 2)       # AxisError
    same(stack2, a, b, 0)        # ValueError: shapes differ
    same(stack2, a, a, -4)       # AxisError


# ---- rearranging ----------------------------------------------------------------------------

def expand(a, ax): return np.expand_dims(a, ax)
def at1(a): return np.atleast_1d(a)
def at2(a): return np.atleast_2d(a)
def at3(a): return np.atleast_3d(a)
def flip_all(a): return np.flip(a)
def flip_axis(a, ax): return np.flip(a, ax)
def fliplr(a): return np.fliplr(a)
def flipud(a): return np.flipud(a)
def roll_flat(a, s): return np.roll(a, s)
def roll_axis(a, s, ax): return np.roll(a, s, axis=ax)
def repeat(a, r): return np.repeat(a, r)
def tile(a, r): return np.tile(a, r)
def transpose(a): return np.transpose(a)
def ravel(a): return np.ravel(a)
def reshape_flat(a): return np.reshape(a, -1)
def reshape_tuple(a): return np.reshape(a, (-1, a.shape[-1]))
def flatten(a): return a.flatten()


@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.bool_])
def test_rearranging_every_layout(shape, dtype):
    nd = len(shape)
    for a in layouts(shape, dtype):
        for ax in range(-nd - 1, nd + 1):
            same(expand, a, ax)
        for f in (at1, at2, at3, flip_all, flipud, transpose, ravel, flatten, reshape_flat,
                  reshape_tuple):
            same(f, a)
        if nd >= 2:
            same(fliplr, a)
        for ax in range(-nd, nd):
            same(flip_axis, a, ax)
        for s in (-7, -1, 0, 2, 11):
            same(roll_flat, a, s)
            for ax in range(-nd, nd):
                same(roll_axis, a, s, ax)
        for r in (0, 1, 3):
            same(repeat, a, r)
            same(tile, a, r)
        same(repeat, a, np.arange(a.size) % 3)


def test_atleast_scalars_and_0d_and_errors():
    for x in (np.float64(2.5), 3, np.array(1.5)):
        for f in (at1, at2, at3):
            same(f, x)
    same(repeat, np.arange(3), -1)            # ValueError
    same(repeat, np.arange(3), np.array([1, 2]))
    same(flip_axis, np.ones((2, 2)), 2)       # AxisError
    same(roll_axis, np.ones((2, 2)), 1, -3)   # AxisError


def test_views_where_numpy_gives_views():
    a = np.arange(6.0).reshape(2, 3)
    e = jit(expand)(a, 0)
    e[0, 0, 0] = 42.0        # a C-contiguous argument is viewed, as NumPy does
    assert a[0, 0] == 42.0
    f = jit(flip_all)(a)
    f[0, 0] = -1.0
    assert a[1, 2] == -1.0
    r = jit(reshape_tuple)(a)
    r[0, 1] = 5.0            # np.reshape of a C-contiguous array is a view too (a copy else)
    assert a[0, 1] == 5.0
    g = jit(flatten)(a)      # flatten copies
    g[0] = 7.0
    assert a[0, 0] == 42.0
