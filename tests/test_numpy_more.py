"""More of NumPy in compiled code: np.random (a generator of pyjit's own, tested statistically
and for repeatability after np.random.seed inside compiled code)."""
import math

import numpy as np
import pytest

import pyjit
from util import check, check_raises  # noqa: F401

N = 200_000


# ---- np.random ------------------------------------------------------------------------------

@pyjit.njit
def draws_random(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.random()
    return out


@pyjit.njit
def draws_rand_scalar(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.rand()
    return out


@pyjit.njit
def draws_uniform(n, a, b):
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.uniform(a, b)
    return out


@pyjit.njit
def draws_normal(n, mu, sigma):
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.normal(mu, sigma)
    return out


@pyjit.njit
def draws_randn(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.randn()
    return out


@pyjit.njit
def draws_randint(n, lo, hi):
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = np.random.randint(lo, hi)
    return out


@pyjit.njit
def seeded(seed, n):
    np.random.seed(seed)
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.random() + np.random.normal(0.0, 1.0) + np.random.randint(0, 10)
    return out


@pyjit.njit
def monte_carlo_pi(n):
    inside = 0
    for _ in range(n):
        x = np.random.random()
        y = np.random.random()
        if x * x + y * y < 1.0:
            inside += 1
    return 4.0 * inside / n


def within(sample, mean, var, k=6.0):
    """The sample's mean and variance agree with (mean, var) to k standard errors."""
    n = len(sample)
    assert abs(sample.mean() - mean) < k * math.sqrt(var / n), sample.mean()
    assert abs(sample.var() - var) < k * var * math.sqrt(2.0 / n) * 1.5, sample.var()


@pytest.mark.parametrize("draws", [draws_random, draws_rand_scalar])
def test_random_uniform_unit(draws):
    s = draws(N)
    assert s.min() >= 0.0 and s.max() < 1.0
    within(s, 0.5, 1.0 / 12.0)


def test_random_uniform_range():
    s = draws_uniform(N, -3.0, 5.0)
    assert s.min() >= -3.0 and s.max() < 5.0
    within(s, 1.0, 64.0 / 12.0)


def test_random_normal():
    within(draws_normal(N, 2.0, 3.0), 2.0, 9.0)
    within(draws_randn(N), 0.0, 1.0)


def test_random_randint():
    s = draws_randint(N, -5, 5)
    assert s.dtype == np.int64
    assert s.min() == -5 and s.max() == 4
    within(s.astype(np.float64), -0.5, (10 ** 2 - 1) / 12.0)
    counts = np.bincount(s + 5)
    assert counts.min() > N / 10 * 0.9


def test_random_seed_repeatable():
    a = seeded(42, 1000)
    b = seeded(42, 1000)
    c = seeded(43, 1000)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_random_independent_of_numpy_state():
    seeded(7, 10)
    np.random.seed(0)
    first = draws_random(5)
    np.random.seed(0)
    assert not np.array_equal(first, draws_random(5))


def test_monte_carlo_pi():
    assert abs(monte_carlo_pi(1_000_000) - math.pi) < 0.01


def test_random_arrays():
    @pyjit.njit
    def f():
        return np.random.rand(3, 4), np.random.randn(1000), np.random.random((2, 5)), np.random.random(7)

    a, b, c, d = f()
    assert a.shape == (3, 4) and a.dtype == np.float64 and ((a >= 0) & (a < 1)).all()
    assert b.shape == (1000,) and abs(b.mean()) < 0.25 and 0.7 < b.std() < 1.3
    assert c.shape == (2, 5) and d.shape == (7,)
    assert ((c >= 0) & (c < 1)).all()


def test_random_rand_array_seeded():
    @pyjit.njit
    def f(n):
        np.random.seed(123)
        return np.random.rand(n)

    assert np.array_equal(f(50), f(50))


def test_random_defaults_and_keywords():
    @pyjit.njit
    def f():
        np.random.seed(seed=5)
        return (np.random.uniform(), np.random.normal(), np.random.uniform(low=2.0, high=3.0),
                np.random.normal(loc=10.0, scale=0.0), np.random.randint(3), np.random.randint(low=4, high=5))

    u, n, u2, n2, r, r2 = f()
    assert 0.0 <= u < 1.0 and math.isfinite(n) and 2.0 <= u2 < 3.0
    assert n2 == 10.0 and 0 <= r < 3 and r2 == 4


def test_random_errors():
    def bad_randint(lo, hi):
        return np.random.randint(lo, hi)

    def bad_scale(s):
        return np.random.normal(0.0, s)

    check(bad_randint, 5, 5)
    check(bad_randint, 6, 2)
    check(bad_scale, -1.0)

    @pyjit.njit
    def bad_seed(s):
        np.random.seed(s)

    with pytest.raises(ValueError):
        bad_seed(-1)


# ---- np.dot and @ ---------------------------------------------------------------------------

def dot(a, b):
    return np.dot(a, b)


def matmul(a, b):
    return a @ b


DOT_SHAPES = [((5,), (5,)), ((3, 4), (4,)), ((4,), (4, 3)), ((3, 4), (4, 2)), ((0,), (0,)),
              ((2, 0), (0, 3)), ((1, 1), (1, 1))]


@pytest.mark.parametrize("fn", [dot, matmul])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("shapes", DOT_SHAPES)
def test_dot(fn, dtype, shapes):
    rng = np.random.default_rng(1)
    a = (rng.integers(-5, 6, shapes[0])).astype(dtype)
    b = (rng.integers(-5, 6, shapes[1])).astype(dtype)
    check(fn, a, b)


def test_dot_mixed_and_views():
    rng = np.random.default_rng(2)
    a = rng.random((6, 5))
    b = rng.integers(0, 9, (5, 4)).astype(np.int32)
    check(dot, a, b)
    check(matmul, a[::2, 1:], a.T[1:, ::3])
    check(matmul, np.asfortranarray(a), rng.random(5))
    check(dot, a[:, 2], a[:, 3])


@pytest.mark.parametrize("shapes", [((3,), (4,)), ((2, 3), (4,)), ((3,), (4, 2)), ((2, 3), (2, 3))])
def test_dot_shape_mismatch(shapes):
    a, b = np.ones(shapes[0]), np.ones(shapes[1])
    check(dot, a, b)
    check(matmul, a, b)


# ---- where, cumsum, linspace, std, var --------------------------------------------------------

def where3(c, x, y):
    return np.where(c, x, y)


def where_scalar_x(a):
    return np.where(a > 2, a, 0.5)


def where_scalar_y(a):
    return np.where(a > 2, -1, a)


def where_scalars(a):
    return np.where(a > 2, 1, 0)


def where_scalar_cond(a, b):
    return np.where(True, a, b)


def test_where():
    a = np.arange(12.0).reshape(3, 4) % 5
    b = -np.arange(12).reshape(3, 4)
    check(where3, a > 1, a, b)
    check(where3, a > 1, b, b * 2)
    check(where_scalar_x, a)
    check(where_scalar_x, a.T)
    check(where_scalar_y, a[1])
    check(where_scalars, b)
    check(where_scalar_cond, a, b)
    check(where_scalars, np.arange(7, dtype=np.int32))
    check(where3, np.ones((2, 3), bool), np.ones((2, 3)), np.ones((3, 3)))   # ValueError


def cumsum_f(a):
    return np.cumsum(a)


def cumsum_m(a):
    return a.cumsum()


@pytest.mark.parametrize("fn", [cumsum_f, cumsum_m])
@pytest.mark.parametrize("a", [np.arange(10.0), np.arange(12, dtype=np.int32).reshape(3, 4),
                               np.arange(12).reshape(3, 4).T, np.array([True, False, True]),
                               np.zeros(0), np.linspace(0, 1, 7, dtype=np.float32)])
def test_cumsum(fn, a):
    check(fn, a)


def linspace3(a, b, n):
    return np.linspace(a, b, n)


def linspace2(a, b):
    return np.linspace(a, b)


@pytest.mark.parametrize("args", [(0.0, 1.0, 5), (0, 10, 11), (-3.5, 2.25, 7), (1.0, 1.0, 3),
                                  (2.0, 5.0, 1), (2.0, 5.0, 0), (5.0, -5.0, 100), (0.1, 0.7, 13)])
def test_linspace(args):
    check(linspace3, *args)


def test_linspace_default_and_errors():
    check(linspace2, 0.0, 3.0)
    check(linspace3, 0.0, 1.0, -1)


def std_f(a):
    return np.std(a)


def var_f(a):
    return np.var(a)


def std_m(a):
    return a.std()


def var_m(a):
    return a.var()


@pytest.mark.parametrize("fn", [std_f, var_f, std_m, var_m])
@pytest.mark.parametrize("a", [np.arange(10.0), np.arange(12, dtype=np.int32).reshape(3, 4),
                               np.linspace(-2, 3, 17).reshape(17, 1)[::2],
                               np.array([1.5]), np.linspace(0, 1, 9, dtype=np.float32),
                               np.array([True, False, False])])
def test_std_var(fn, a):
    check(fn, a)


# ---- sort, argsort --------------------------------------------------------------------------

def sort_f(a):
    return np.sort(a)


def sort_m(a):
    a.sort()
    return a


def argsort_f(a):
    return np.argsort(a)


def argsort_m(a):
    return a.argsort()


def distinct(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.unsignedinteger):
        vals = rng.permutation(n) + 3
    elif np.issubdtype(dtype, np.integer):
        vals = rng.permutation(n) - n // 2
    else:
        vals = rng.permutation(n) * 0.37 - 5.0
    return vals.astype(dtype)


@pytest.mark.parametrize("fn", [sort_f, sort_m, argsort_f, argsort_m])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.int8, np.uint8,
                                   np.uint64, np.int16])
@pytest.mark.parametrize("n", [0, 1, 2, 17, 100])
def test_sort(fn, dtype, n):
    check(fn, distinct(dtype, n, n))


def test_sort_views_and_special():
    a = distinct(np.float64, 40, 3)
    check(sort_m, a[::3])
    check(sort_f, a[::-2])
    check(argsort_f, a[5:30:2])
    check(sort_f, np.array([3.0, np.nan, -np.inf, 1.0, np.inf, np.nan]))
    check(sort_f, np.array([2**63 - 1, -2**63, 0, 5], dtype=np.int64))
    check(sort_f, np.array([2**64 - 1, 0, 2**63], dtype=np.uint64))
    check(sort_f, np.array([True, False, True, False]))
    ties = np.array([5, 5, 1, 5, 1])   # ties keep index order, as NumPy's stable sort
    assert np.array_equal(pyjit.njit(argsort_f)(ties), np.argsort(ties, kind="stable"))


def test_sort_inside_compiled():
    @pyjit.njit
    def median(a):
        b = np.sort(a)
        n = len(b)
        return b[n // 2] if n % 2 else 0.5 * (b[n // 2 - 1] + b[n // 2])

    a = distinct(np.float64, 101, 9)
    assert median(a) == np.median(a)
    assert median(a[:100]) == np.median(a[:100])


# ---- memory ---------------------------------------------------------------------------------

def test_no_leaks():
    from pyjit import _core

    @pyjit.njit
    def churn(a, b):
        s = 0.0
        for _ in range(20):
            s += np.sort(a)[0] + np.argsort(a)[0] + np.cumsum(a)[-1] + np.where(a > 0, a, 0.0)[0]
            s += np.dot(b, b)[0, 0] + (b @ a[:3])[0] + np.linspace(0.0, 1.0, 9)[1] + np.random.rand(4)[0]
        return s

    @pyjit.njit
    def raises(a, b):
        c = np.sort(a)
        return c[0] + np.dot(a, b)

    a, b = distinct(np.float64, 10, 1), np.ones((3, 3))
    churn(a, b)
    live = _core.nrt_live()
    churn(a, b)
    with pytest.raises(ValueError):
        raises(a, np.ones(4))
    assert _core.nrt_live() == live


def test_host_runtime_builtins_rejected_in_gpu_kernels():
    from pyjit import _core, _registry
    from pyjit.errors import CompileError

    def kernel_random(out):
        out[0] = np.random.random()

    def kernel_sort(out):
        out.sort()

    _registry.populate()
    for k in (kernel_random, kernel_sort):
        # np.random and a.sort() are builtins for the host (the runtime's generator, sort.c)
        with pytest.raises(CompileError, match="not supported in GPU kernels|not available on the GPU"):
            _core.cuda_compile_ptx(k, _registry.REGISTRY, ["array(float64, 1d, C)"])
