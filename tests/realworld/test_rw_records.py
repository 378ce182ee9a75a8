"""Real-world patterns: namedtuples as parameter bundles, results and records of arrays.

Numba users pass a namedtuple of settings to a kernel instead of a long argument list, return a
small record of results (an integrator's state, a bounding box, running statistics), and build
records of arrays in one compiled function for another to consume. Written here in the style of
such code, with `from numba import njit` switched to pyjit. Each is compared with the same source
run by CPython (`py_func`), and with Numba when it is installed; results must come back as the
same namedtuple classes.
"""
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pytest

from pyjit import njit
from util import numba_or_none


Params = namedtuple("Params", ["dt", "steps", "omega", "gamma"])
State = namedtuple("State", ["t", "x", "v"])


@njit
def damped_oscillator(state, p):
    """Semi-implicit Euler steps of x'' = -omega^2 x - 2 gamma x'; the state goes in and out."""
    t, x, v = state
    for _ in range(p.steps):
        a = -p.omega * p.omega * x - 2.0 * p.gamma * v
        v += a * p.dt
        x += v * p.dt
        t += p.dt
    return State(t, x, v)


BBox = namedtuple("BBox", "xmin xmax ymin ymax")


@njit
def bounding_box(xs, ys, margin):
    box = BBox(xs[0], xs[0], ys[0], ys[0])
    for i in range(1, xs.shape[0]):
        box = BBox(min(box.xmin, xs[i]), max(box.xmax, xs[i]), min(box.ymin, ys[i]),
                   max(box.ymax, ys[i]))
    grown = BBox(box.xmin - margin, box.xmax + margin, box.ymin, box.ymax)
    area = (grown.xmax - grown.xmin) * (grown.ymax - grown.ymin)
    return grown, area


class Moments(NamedTuple):
    count: int
    mean: float
    m2: float


@njit
def merge(a, b):
    """Chan et al.'s pairwise update: the moments of two chunks combined."""
    n = a.count + b.count
    if n == 0:
        return Moments(0, 0.0, 0.0)
    delta = b.mean - a.mean
    mean = a.mean + delta * b.count / n
    m2 = a.m2 + b.m2 + delta * delta * a.count * b.count / n
    return Moments(n, mean, m2)


@njit
def chunked_variance(x, chunk):
    total = Moments(0, 0.0, 0.0)
    for lo in range(0, x.shape[0], chunk):
        part = x[lo:lo + chunk]
        mean = part.mean()
        total = merge(total, Moments(part.shape[0], mean, ((part - mean) ** 2).sum()))
    return total, total.m2 / (total.count - 1)


Sparse = namedtuple("Sparse", "indices values")


@njit
def sparsify(dense, tol):
    idx = []
    for i in range(dense.shape[0]):
        if abs(dense[i]) > tol:
            idx.append(i)
    indices = np.array(idx)
    values = np.empty(indices.shape[0])
    for k in range(indices.shape[0]):
        values[k] = dense[indices[k]]
    return Sparse(indices, values)


@njit
def sparse_dot(s, y):
    total = 0.0
    for i, (k, v) in enumerate(zip(s.indices, s.values)):
        total += v * y[k]
    return total


@njit
def sparse_round_trip(dense, y, tol):
    s = sparsify(dense, tol)
    return sparse_dot(s, y), s


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and np.allclose(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return np.isclose(a, b, rtol=1e-12, atol=0)
    return a == b


_rng = np.random.default_rng(7)
_dense = np.where(_rng.uniform(size=50) > 0.7, _rng.normal(size=50), 0.0)

CASES = [
    (damped_oscillator, lambda: (State(0.0, 1.0, 0.0), Params(0.01, 500, 2.0, 0.1))),
    (bounding_box, lambda: (_rng.normal(size=40), _rng.normal(size=40), 0.5)),
    (chunked_variance, lambda: (np.arange(103.0) ** 0.5, 10)),
    (sparse_round_trip, lambda: (_dense, np.arange(50.0), 1e-12)),
]


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = make()
    got = f(*args)
    assert _same(f.py_func(*args), got)
    nb = numba_or_none(f)
    if nb is not None:
        assert _same(nb(*args), got)


def test_records_from_compiled_code_are_instances_of_their_classes():
    (grown, _), = [bounding_box(np.arange(3.0), np.arange(3.0), 1.0)]
    assert type(grown) is BBox and grown.xmin == -1.0
    assert type(chunked_variance(np.arange(5.0), 2)[0]) is Moments
