"""np.einsum, np.tensordot, np.apply_along_axis, np.polyfit and np.poly in compiled code,
compared with NumPy itself on several dtypes, shapes and layouts."""
import os
import sys

import numpy as np
import pytest

from pyjit import njit
from pyjit.errors import TypingError

sys.path.insert(0, os.path.dirname(__file__))
from util import same_as_numpy as same  # noqa: E402

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 5))
C = RNG.standard_normal((3, 4, 5))
V = RNG.standard_normal(4)
S = RNG.standard_normal((4, 4))


def check(src, *args):
    names = ["a", "b", "c"][:len(args)]
    ns = {"np": np}
    exec(f"def f({', '.join(names)}):\n    return {src}\n", ns)
    same(njit(ns["f"])(*args), ns["f"](*args))


EINSUM = [
    ("np.einsum('ij,jk->ik', a, b)", (A, B)), ("np.einsum('ij,jk', a, b)", (A, B)),
    ("np.einsum('ij,jk->ik', a, b)", (np.asfortranarray(A), B[:, ::-1])),
    ("np.einsum('ii', a)", (S,)), ("np.einsum('ii->i', a)", (S.T,)), ("np.einsum('ij->ji', a)", (A,)),
    ("np.einsum('ijk,jk->i', a, b)", (C, B)), ("np.einsum('i,i', a, b)", (V, V)),
    ("np.einsum('i,j->ij', a, b)", (V, V[::-1])), ("np.einsum('ij,j->i', a, b)", (A, V)),
    ("np.einsum('bij,bjk->bik', a, b)", (C, np.ones((3, 5, 2)))), ("np.einsum('ij->', a)", (A,)),
    ("np.einsum('i,i', a, b)", (np.arange(4, dtype=np.int32), np.arange(4, dtype=np.int32))),
    ("np.einsum('ij,jk->ik', a, b)", (A.astype(np.float32), B.astype(np.float32))),
    ("np.einsum('ij,jk->ik', a, b)", (A.astype(np.float32), B)),
    ("np.einsum('ij,jk->ik', a, b)", (A + 1j * A, B)), ("np.einsum(',i->i', a, b)", (2.0, V)),
    ("np.einsum('i->', a)", (np.zeros(0),)), ("np.einsum('ij,jk->ik', a, b)", (np.zeros((2, 0)), np.zeros((0, 3)))),
    ("np.einsum('i j , j k -> i k', a, b)", (A, B)), ("np.einsum('ijk->kji', a)", (C,)),
    ("np.einsum('ij,ij,ij->i', a, b, c)", (A, A, A)),
]


@pytest.mark.parametrize("src, args", EINSUM, ids=[f"{s}-{k}" for k, (s, _) in enumerate(EINSUM)])
def test_einsum(src, args):
    check(src, *args)


TENSORDOT = [
    ("np.tensordot(a, b)", (C, B)), ("np.tensordot(a, b, axes=((1,), (0,)))", (A, B)),
    ("np.tensordot(a, b, ((0, 1), (0, 1)))", (A, A)), ("np.tensordot(a, b, axes=(1, 0))", (A, B)),
    ("np.tensordot(a, b, axes=((2, 0), (1, 0)))", (C, np.ones((3, 5, 2)))),
    ("np.tensordot(a, b, ((), ()))", (V, V[:3])), ("np.tensordot(a, b, axes=((-1,), (0,)))", (A.T, A)),
    ("np.tensordot(a, b, axes=(1, 0))", (A.astype(np.int32), B.astype(np.int64))),
    ("np.tensordot(a, b, axes=(1, 0))", (np.asfortranarray(A), B[::-1])),
    ("np.tensordot(a, b)", (S, S.astype(np.float32))), ("np.tensordot(a, b, (0, 0))", (np.zeros((0, 2)), np.zeros((0, 3)))),
]


@pytest.mark.parametrize("src, args", TENSORDOT, ids=[f"{s}-{k}" for k, (s, _) in enumerate(TENSORDOT)])
def test_tensordot(src, args):
    check(src, *args)


APPLY = [
    ("np.apply_along_axis(np.sum, 0, a)", (A,)), ("np.apply_along_axis(np.sum, 1, a)", (C,)),
    ("np.apply_along_axis(np.sort, -1, a)", (C,)), ("np.apply_along_axis(np.cumsum, 0, a)", (A,)),
    ("np.apply_along_axis(np.mean, 0, a)", (V,)), ("np.apply_along_axis(np.diff, 1, a)", (A,)),
    ("np.apply_along_axis(np.max, 2, a)", (C.astype(np.int32),)), ("np.apply_along_axis(np.median, 0, a)", (A.T,)),
]


@pytest.mark.parametrize("src, args", APPLY, ids=[s for s, _ in APPLY])
def test_apply_along_axis(src, args):
    check(src, *args)


def test_apply_along_axis_compiled_function():
    @njit
    def span(x, scale):
        return (x.max() - x.min()) * scale

    @njit
    def norm(x):
        return x / np.sqrt((x * x).sum())

    def f(a):
        return np.apply_along_axis(span, 1, a, 2.0), np.apply_along_axis(norm, 0, a)
    got, want = njit(f)(C), f(C)
    for g, w in zip(got, want):
        same(g, w)
    with pytest.raises(ValueError, match="dimensions are 0"):
        njit(f)(np.zeros((0, 2, 3)))


POLY = [
    ("np.polyfit(a, b, 2)", (np.arange(6.0), np.arange(6.0) ** 2 - 3)),
    ("np.polyfit(a, b, 1)", (np.arange(5), np.array([1.0, 3.1, 4.9, 7.2, 9.0]))),
    ("np.polyfit(a, b, 3)", (np.linspace(0, 1, 9), np.stack((np.linspace(0, 1, 9) ** 3, np.ones(9)), axis=1))),
    ("np.polyfit(a, b, 1, w=np.arange(1.0, 6.0))", (np.arange(5.0), np.array([1.0, 3.1, 4.9, 7.2, 9.0]))),
    ("np.polyfit(a, b, 2)", (np.arange(8.0)[::2], np.array([1.0, np.e, 2.0, -1.0], np.float32))),
    ("np.polyval(np.polyfit(a, b, 3), a)", (np.linspace(-1, 1, 7), np.sin(np.linspace(-1, 1, 7)))),
    ("np.poly(a)", (np.array([1.0, 2.0, 3.0]),)), ("np.poly(a)", (np.array([2, 2, -1]),)),
    ("np.poly(a)", (np.array([[1.0, 2.0], [0.0, 3.0]]),)), ("np.poly(a)", (np.array([1 + 1j, 2 - 1j]),)),
    ("np.roots(np.poly(a))", (np.array([3.0, 1.0, -2.0]),)),
]


@pytest.mark.parametrize("src, args", POLY, ids=[f"{s}-{k}" for k, (s, _) in enumerate(POLY)])
def test_polynomials(src, args):
    check(src, *args)


def test_poly_conjugate_roots_stay_complex():
    # NumPy makes the coefficients real when the roots come in conjugate pairs (a dtype known
    # only from the values); compiled code keeps the roots' complex dtype, with the same values
    r = np.array([1j, -1j])
    got = njit(lambda a: np.poly(a))(r)
    assert got.dtype == np.complex128
    assert np.allclose(got, np.poly(r))


def test_errors():
    def bad_ellipsis(a):
        return np.einsum('...i->i', a)     # '...' in the operand, not in the output

    def runtime_axes(a, n):
        return np.tensordot(a, a, axes=n)

    def wrong_count(a):
        return np.einsum('ij,jk->ik', a)
    with pytest.raises(TypingError, match=r"(?s)'\.\.\.'.*line"):
        njit(bad_ellipsis)(A)
    with pytest.raises(TypingError, match=r"(?s)tensordot.*axes=.*line"):
        njit(runtime_axes)(A, 1)
    with pytest.raises(TypingError, match="fewer operands"):
        njit(wrong_count)(A)
    with pytest.raises(ValueError):
        njit(lambda a, b: np.einsum('ij,jk->ik', a, b))(A, A)
    with pytest.raises(ValueError, match="shape-mismatch"):
        njit(lambda a, b: np.tensordot(a, b, axes=((1,), (0,))))(A, A)
