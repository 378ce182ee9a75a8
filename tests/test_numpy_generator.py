"""np.random.Generator in compiled code: every method bit-exact against NumPy's own Generator on
each BitGenerator, Generators passed in (one stream with Python's draws) and made inside by
default_rng, and the errors for bad arguments."""
import numpy as np
import pytest

from pyjit import njit
from pyjit.errors import TypingError
from util import memory_in_use, run_subprocess

BITGENS = (np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64,
           np.random.PCG64DXSM)
SEEDS = (0, 1, 42, 2 ** 40 + 7)

CALLS = [
    "rng.random()", "rng.random(size=1000)", "rng.random(size=(30, 7), dtype=np.float32)",
    "rng.random(dtype=np.float32)",
    "rng.standard_normal()", "rng.standard_normal(size=50000)",
    "rng.standard_normal(size=50000, dtype=np.float32)",
    "rng.standard_exponential(size=50000)", "rng.standard_exponential(3, method='zig')",
    "rng.standard_exponential(method='inv')", "rng.standard_exponential(500, method='inv')",
    "rng.standard_exponential(500, np.float32, 'inv')", "rng.standard_exponential(size=50000, dtype=np.float32)",
    "rng.uniform()", "rng.uniform(-2.0, 5.0, size=100)", "rng.uniform(1, 3, size=10)",
    "rng.normal()", "rng.normal(3.0, 2.0, size=100)", "rng.normal(size=(2, 3))",
    "rng.exponential()", "rng.exponential(2.5, size=100)",
    "rng.gamma(0.5, 2.0, size=2000)", "rng.gamma(3.5, size=2000)", "rng.gamma(0.0)",
    "rng.standard_gamma(1.0, size=100)", "rng.standard_gamma(7.25, size=500)",
    "rng.standard_gamma(0.4, size=500, dtype=np.float32)", "rng.standard_gamma(3.0, size=500, dtype=np.float32)",
    "rng.standard_gamma(1.0, size=50, dtype=np.float32)",
    "rng.chisquare(3.0, size=100)",
    "rng.beta(0.5, 0.7, size=2000)", "rng.beta(2.0, 3.0, size=2000)", "rng.beta(1e-200, 1e-200, size=10)",
    "rng.poisson()", "rng.poisson(3.0, size=2000)", "rng.poisson(50.0, size=2000)", "rng.poisson(0.0)",
    "rng.binomial(10, 0.3, size=2000)", "rng.binomial(1000, 0.4, size=2000)",
    "rng.binomial(1000, 0.9, size=2000)", "rng.binomial(20, 0.8, size=500)", "rng.binomial(0, 0.5)",
    "rng.binomial(5, 0.0)", "rng.binomial(7, 1.0, size=3)", "rng.binomial(10**6, 0.5, size=200)",
    "rng.lognormal(0.5, 0.3, size=100)", "rng.laplace(1.0, 2.0, size=100)",
    "rng.logistic(1.0, 2.0, size=100)",
    "rng.geometric(0.5, size=200)", "rng.geometric(0.05, size=200)", "rng.geometric(1.0, size=3)",
    "rng.geometric(1e-300, size=3)",
    "rng.integers(5)", "rng.integers(0, 10, size=1000)", "rng.integers(-5, 2**40, size=1000)",
    "rng.integers(10, size=(5, 5))", "rng.integers(0, 100, size=100, dtype=np.int32)",
    "rng.integers(-2**31, 2**31, size=100, dtype=np.int32)",
    "rng.integers(0, 2**32, size=100, dtype=np.uint32)",
    "rng.integers(0, 2**62, size=100, dtype=np.uint64)",
    "rng.integers(1, 6, size=100, endpoint=True)", "rng.integers(-2**63, 2**63-1, size=100)",
    "rng.integers(7, 8, size=3)",
    "rng.integers(0, 1000, size=301, dtype=np.int16)", "rng.integers(-3, 3, dtype=np.int16)",
    "rng.integers(0, 2**16, size=51, dtype=np.uint16)", "rng.integers(-2**15, 2**15, size=7, dtype=np.int16)",
    "rng.integers(0, 100, size=(7, 9), dtype=np.uint8)", "rng.integers(-100, 27, size=77, dtype=np.int8)",
    "rng.integers(0, 256, size=30, dtype=np.uint8)", "rng.integers(5, dtype=np.uint8)",
    "rng.integers(0, 2, size=100, dtype=np.bool_)", "rng.integers(0, 1, size=10, dtype=np.bool_, endpoint=True)",
    "rng.integers(1, 2, size=5, dtype=np.bool_)", "rng.integers(2, dtype=np.bool_)",
    "rng.permutation(20)", "rng.permutation(np.arange(12.0))",
    "rng.permutation(np.arange(12.0).reshape(4, 3))",
    "rng.choice(7)", "rng.choice(10, size=20)", "rng.choice(np.arange(5.0), size=(3, 4))",
    "rng.choice(4, size=50, p=np.array([0.1, 0.2, 0.3, 0.4]))",
    "rng.choice(4, p=np.array([0.1, 0.2, 0.3, 0.4]))",
    "rng.choice(10, size=4, replace=False)", "rng.choice(10, size=10, replace=False)",
    "rng.choice(np.arange(100.0), size=(3, 5), replace=False, shuffle=False)",
    "rng.choice(20000, size=1000, replace=False)", "rng.choice(20000, size=300, replace=False)",
    "rng.choice(20000, size=600, replace=False, shuffle=False)", "rng.choice(30, replace=False)",
    "rng.choice(6, size=4, replace=False, p=np.array([0.1, 0.0, 0.3, 0.2, 0.15, 0.25]))",
    "rng.choice(5, size=0, replace=False)",
    # the distributions written over the draws above
    "rng.standard_cauchy()", "rng.standard_cauchy(size=200)",
    "rng.standard_t(3.5, size=500)", "rng.standard_t(0.2, size=50)", "rng.standard_t(1e-300, size=5)",
    "rng.standard_t(1e300, size=5)", "rng.standard_t(float('nan'), size=3)",
    "rng.f(2.0, 5.0, size=200)", "rng.f(1e-300, 1e300, size=5)",
    "rng.noncentral_chisquare(3.0, 2.0, size=300)", "rng.noncentral_chisquare(0.5, 2.0, size=300)",
    "rng.noncentral_chisquare(3.0, 0.0, size=20)", "rng.noncentral_chisquare(2.0, float('nan'), size=3)",
    "rng.noncentral_f(3.0, 4.0, 1.5, size=300)", "rng.noncentral_f(0.7, 4.0, 0.0, size=30)",
    "rng.pareto(3.0, size=100)", "rng.pareto(1e-300, size=5)",
    "rng.power(0.5, size=100)", "rng.power(2.0, size=100)", "rng.power(1.0, size=10)",
    "rng.weibull(1.5, size=100)", "rng.weibull(0.5, size=100)", "rng.weibull(0.0, size=3)",
    "rng.rayleigh()", "rng.rayleigh(2.0, size=100)", "rng.rayleigh(0.0, size=3)",
    "rng.vonmises(0.5, 3.0, size=500)", "rng.vonmises(-2.0, 1e-9, size=50)",
    "rng.vonmises(1.0, 1e-6, size=50)", "rng.vonmises(3.0, 1e7, size=50)",
    "rng.vonmises(0.0, float('nan'), size=3)", "rng.vonmises(0.0, float('inf'), size=3)",
    "rng.wald(1.0, 2.0, size=500)", "rng.wald(1e-300, 1e300, size=5)",
    "rng.gumbel()", "rng.gumbel(1.0, 2.0, size=100)",
    "rng.triangular(-1.0, 0.5, 3.0, size=100)", "rng.triangular(0.0, 0.0, 1.0, size=20)",
    "rng.triangular(0.0, 1.0, 1.0, size=20)",
    "rng.zipf(2.0, size=500)", "rng.zipf(1.01, size=100)", "rng.zipf(1.0000000000000002, size=5)",
    "rng.zipf(3.5, size=100)", "rng.zipf(2000.0, size=5)",
    "rng.logseries(0.5, size=500)", "rng.logseries(0.999, size=300)", "rng.logseries(0.0, size=5)",
    "rng.logseries(1e-300, size=5)",
    "rng.negative_binomial(5, 0.3, size=300)", "rng.negative_binomial(0.5, 0.9, size=300)",
    "rng.negative_binomial(1000.0, 0.01, size=100)", "rng.negative_binomial(3, 1.0, size=5)",
    "rng.hypergeometric(10, 5, 7, size=200)", "rng.hypergeometric(100, 200, 50, size=300)",
    "rng.hypergeometric(1000, 20, 500, size=300)", "rng.hypergeometric(5, 5, 0, size=5)",
    "rng.hypergeometric(5, 5, 10, size=5)", "rng.hypergeometric(10**8, 10**8, 10**6, size=50)",
    "rng.multinomial(20, np.array([0.2, 0.3, 0.5]))",
    "rng.multinomial(1000, np.array([0.1, 0.6, 0.05, 0.25]), size=50)",
    "rng.multinomial(100, np.array([0.5, 0.5, 0.0]), size=(3, 4))",
    "rng.multinomial(10, np.array([0.6, 0.6]))", "rng.multinomial(0, np.array([0.5, 0.5]), size=2)",
    "rng.multinomial(10**6, np.array([0.25, 0.25, 0.25, 0.25]), size=20)",
    "rng.dirichlet(np.array([0.5, 1.0, 2.0]), size=100)",
    "rng.dirichlet(np.array([0.01, 0.05, 0.02]), size=100)", "rng.dirichlet(np.array([1.0, 3.0]))",
    "rng.dirichlet(np.array([0.01, 0.0]), size=5)", "rng.dirichlet(np.zeros(3), size=3)",
    "rng.dirichlet(np.empty(0), size=3)", "rng.dirichlet(np.array([2, 3]), size=(2, 2))",
    "rng.multivariate_hypergeometric(np.array([10, 5, 7]), 8, size=50)",
    "rng.multivariate_hypergeometric(np.array([10, 5, 7]), 18, size=50)",
    "rng.multivariate_hypergeometric(np.array([10, 5, 7]), 8, size=50, method='count')",
    "rng.multivariate_hypergeometric(np.array([100, 50, 700]), 300, size=20, method='count')",
    "rng.multivariate_hypergeometric(np.array([100, 50, 700]), 300, size=(2, 20))",
    "rng.multivariate_hypergeometric(np.array([3, 2]), 0)",
    "rng.multivariate_hypergeometric(np.array([3, 2]), 5, method='count')",
    # tiny and huge parameters
    "rng.noncentral_chisquare(1e-10, 1e10, size=5)", "rng.power(1e-300, size=5)",
    "rng.power(1e300, size=5)", "rng.weibull(1e-300, size=5)", "rng.vonmises(1e300, 1.0, size=5)",
    "rng.vonmises(0.0, 1e6, size=5)", "rng.wald(1e300, 1e-300, size=5)",
    "rng.triangular(-1e300, 0.0, 1e300, size=5)", "rng.zipf(1024.9, size=5)", "rng.zipf(1e300, size=5)",
    "rng.logseries(0.9999999999, size=20)", "rng.negative_binomial(1e-300, 0.5, size=5)",
    "rng.hypergeometric(10**9 - 1, 10**9 - 1, 10**9, size=5)", "rng.hypergeometric(0, 10, 5, size=5)",
    "rng.dirichlet(np.array([1e-300, 1e-300]), size=3)", "rng.multinomial(2**40, np.array([0.5, 0.5]), size=3)",
]


def compile_call(call):
    ns = {"np": np}
    exec(f"def f(rng):\n    return {call}\n", ns)
    return ns["f"], njit(ns["f"])


def same(a, b):
    """Equal values; arrays of the same dtype and shape (a scalar result is a Python number,
    as compiled code returns scalars, where NumPy gives a NumPy scalar of the dtype)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    kinds = [np.asarray(x).dtype.kind.replace("u", "i") for x in (a, b)]
    return kinds[0] == kinds[1] and (a == b or a != a and b != b)


@pytest.mark.parametrize("call", CALLS)
def test_bit_exact(call):
    f, jf = compile_call(call)
    for seed in SEEDS:
        for bitgen in BITGENS:
            want = f(np.random.Generator(bitgen(seed)))
            got = jf(np.random.Generator(bitgen(seed)))
            assert same(want, got), (call, seed, bitgen.__name__, want, got)


ARRAY_CALLS = [
    "rng.normal(np.arange(5.0), 2.0)", "rng.normal(np.arange(5.0), np.ones((3, 1)))",
    "rng.normal(0.0, np.array([1.0, 2.0]), size=(3, 2))", "rng.normal(np.arange(3.0), 1.0, size=(2, 2, 3))", "rng.normal(np.arange(3.0)[::-1], 1.0)",
    "rng.uniform(np.zeros(3), np.array([1.0, 2.0, 3.0]))",
    "rng.uniform(0.0, np.array([[1.0], [5.0]]), size=(2, 4))", "rng.uniform(np.array([0, 1]), 5)",
    "rng.exponential(np.array([1.0, 2.0]))", "rng.gamma(np.array([0.5, 3.0]), 2.0, size=(4, 2))",
    "rng.poisson(np.array([1.0, 30.0, 0.0]))", "rng.binomial(np.array([10, 20]), 0.5)",
    "rng.binomial(10, np.array([0.1, 0.9]), size=(3, 2))", "rng.lognormal(np.zeros((2, 2)), 0.5)",
    "rng.standard_gamma(np.array([0.5, 2.5, 7.0]), size=(2, 3))",
    "rng.standard_gamma(np.array([0.5, 2.5]), dtype=np.float32)",
    "rng.zipf(np.array([1.5, 2.0, 3.0]))", "rng.vonmises(np.zeros(3), np.array([0.5, 1e-9, 1e7]))",
    "rng.hypergeometric(np.array([10, 100]), 20, 8)", "rng.wald(np.array([1.0, 2.0]), np.ones((2, 1)))",
    "rng.negative_binomial(np.array([1.0, 2.0]), 0.5, size=(3, 2))",
    "rng.triangular(np.array([0.0, 0.2]), 0.5, 1.0)", "rng.chisquare(np.array([[1.0], [7.5]]))",
    "rng.triangular(np.zeros(3), np.array([[0.5], [0.9]]), np.array([1.0, 2.0, 3.0]))",
    "rng.triangular(np.array([0.0, -1.0]), np.array([0.0, 0.5]), 1.0, size=(3, 2))",
    "rng.hypergeometric(np.array([10, 100]), np.array([[20], [3]]), 8)",
    "rng.hypergeometric(np.array([10, 5]), np.array([4, 6]), np.array([3, 11]))",
    "rng.integers(np.array([0, 5, 10]), 20)", "rng.integers(np.array([0, 5]), np.array([[20], [2**40]]))",
    "rng.integers(3, np.array([5, 6, 7]), size=(2, 3))", "rng.integers(np.array([5, 100, 7]))",
    "rng.integers(np.array([5, 100, 7]), dtype=np.int8)",
    "rng.integers(np.array([5, 100, 7]), size=(4, 3), dtype=np.uint16)",
    "rng.integers(np.array([0, 1]), 2, size=(10, 2), dtype=np.bool_)",
    "rng.integers(np.array([5, 100, 7]), dtype=np.int32, endpoint=True)",
    "rng.integers(np.array([-2**63, 0]), 2**63 - 1, endpoint=True)",
    "rng.integers(0, np.array([2**32, 2**33]), dtype=np.uint64)",
    "rng.random(out=np.empty(5))", "rng.random(size=(2, 3), out=np.empty((2, 3)))",
    "rng.random(out=np.empty((2, 3), dtype=np.float32), dtype=np.float32)",
    "rng.standard_normal(out=np.empty((3, 2)))",
    "rng.standard_exponential(out=np.empty(7, dtype=np.float32), dtype=np.float32)",
    "rng.standard_gamma(2.5, out=np.empty(7))",
    "rng.standard_gamma(0.5, size=4, out=np.empty(4, dtype=np.float32), dtype=np.float32)",
]


@pytest.mark.parametrize("call", ARRAY_CALLS)
def test_array_parameters_and_out_bit_exact(call):
    f, jf = compile_call(call)
    for bitgen in BITGENS[:2]:
        want = f(np.random.Generator(bitgen(3)))
        got = jf(np.random.Generator(bitgen(3)))
        assert same(want, got), (call, bitgen.__name__, want, got)


COV = "np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 3.0]])"


@pytest.mark.parametrize("method", ["svd", "eigh", "cholesky"])
@pytest.mark.parametrize("size", [None, 10, (4, 5)])
def test_multivariate_normal_as_numpy(method, size):
    """The same normals through the same factor of cov: NumPy's numbers, but for the last bit of
    the matrix product and of the decomposition (BLAS and LAPACK may round differently)."""
    f, jf = compile_call(f"rng.multivariate_normal(np.arange(3.0), {COV}, size={size!r}, "
                         f"method={method!r})")
    for bitgen in BITGENS[:2]:
        want, got = f(np.random.Generator(bitgen(5))), jf(np.random.Generator(bitgen(5)))
        assert want.shape == got.shape and want.dtype == got.dtype
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_out_filled_in_place_in_memory_order():
    @njit
    def fill(rng, out):
        return rng.standard_normal(out=out)

    for order in "CF":
        want, got = np.empty((4, 3), order=order), np.empty((4, 3), order=order)
        np.random.default_rng(2).standard_normal(out=want)
        assert fill(np.random.default_rng(2), got) is not None
        assert same(want, got)


@pytest.mark.parametrize("call", [
    "rng.normal(np.arange(3.0), np.ones(2))", "rng.normal(np.arange(3.0), 1.0, size=(2, 2))",
    "rng.uniform(np.ones((2, 3)), 2.0, size=3)", "rng.integers(np.array([0, 1]), 2, size=20)",
])
def test_parameters_that_do_not_broadcast(call):
    f, jf = compile_call(call)
    for fn in (f, jf):
        with pytest.raises(ValueError, match="shape mismatch|Output size|not compatible"):
            fn(np.random.default_rng(0))


def test_draws_continue_the_generators_stream():
    """Python and compiled draws interleaved on one Generator give NumPy's one stream."""
    @njit
    def draw(rng, n):
        out = np.empty(n)
        for i in range(n):
            out[i] = rng.standard_normal() + rng.integers(0, 3)
        return out

    for bitgen in BITGENS:
        mixed, alone = np.random.Generator(bitgen(7)), np.random.Generator(bitgen(7))
        got = [mixed.random(), draw(mixed, 5), mixed.integers(0, 100, size=3), draw(mixed, 2)]
        want = [alone.random(), np.array([alone.standard_normal() + alone.integers(0, 3)
                                          for _ in range(5)]),
                alone.integers(0, 100, size=3),
                np.array([alone.standard_normal() + alone.integers(0, 3) for _ in range(2)])]
        for g, w in zip(got, want):
            assert same(w, g)
        assert mixed.random() == alone.random()


def test_shuffle_in_place():
    @njit
    def shuffle(rng, x):
        rng.shuffle(x)

    for shape in ((10,), (6, 3)):
        a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
        b = a.copy()
        np.random.default_rng(3).shuffle(a)
        shuffle(np.random.default_rng(3), b)
        assert same(a, b)


@pytest.mark.parametrize("seed", [0, 1, 42, 2 ** 32, 2 ** 62 + 12345])
def test_default_rng_inside(seed):
    @njit
    def draws(seed):
        rng = np.random.default_rng(seed)
        return rng.random(), rng.standard_normal(4), rng.integers(0, 1000, 3), rng.random(
            dtype=np.float32)

    rng = np.random.default_rng(seed)
    want = (rng.random(), rng.standard_normal(4), rng.integers(0, 1000, 3),
            rng.random(dtype=np.float32))
    for w, g in zip(want, draws(seed)):
        assert same(w, g)


def test_default_rng_returned_keeps_its_state():
    @njit
    def make(seed):
        rng = np.random.default_rng(seed)
        rng.random(3)
        rng.random(dtype=np.float32)   # half of a 64-bit word left over
        return rng

    got = make(9)
    want = np.random.default_rng(9)
    want.random(3)
    want.random(dtype=np.float32)
    assert isinstance(got, np.random.Generator)
    assert got.bit_generator.state == want.bit_generator.state
    assert same(want.random(5), got.random(5))


def test_default_rng_unseeded_and_passed_back():
    @njit
    def fresh():
        return np.random.default_rng()

    @njit
    def same_object(rng):
        return rng

    a, b = fresh(), fresh()
    assert a.random() != b.random()
    rng = np.random.default_rng(1)
    assert same_object(rng) is rng


def test_generator_made_inside_passed_to_callee():
    @njit
    def inner(rng):
        return rng.normal(1.0, 2.0)

    @njit
    def outer(seed):
        rng = np.random.default_rng(seed)
        return inner(rng) + inner(rng)

    rng = np.random.default_rng(5)
    assert outer(5) == rng.normal(1.0, 2.0) + rng.normal(1.0, 2.0)


ERRORS = [
    "rng.normal(0.0, -1.0)", "rng.normal(0.0, -0.0)", "rng.gamma(-0.0)", "rng.exponential(-1.0)", "rng.gamma(-1.0)", "rng.gamma(1.0, -2.0)",
    "rng.beta(0.0, 1.0)", "rng.beta(1.0, -1.0)", "rng.poisson(-1.0)", "rng.poisson(1e19)",
    "rng.chisquare(0.0)", "rng.binomial(5, 1.5)", "rng.binomial(-1, 0.5)",
    "rng.binomial(5, float('nan'))",
    "rng.geometric(0.0)", "rng.geometric(1.5)", "rng.geometric(float('nan'))", "rng.lognormal(0.0, -1.0)", "rng.laplace(0.0, -1.0)",
    "rng.integers(5, 2)", "rng.integers(5, 5)", "rng.integers(5, 4, endpoint=True)",
    "rng.integers(-1, 5, dtype=np.uint32)", "rng.integers(0, 300, dtype=np.uint8)",
    "rng.integers(-200, 3, dtype=np.int8)", "rng.integers(0, 3, dtype=np.bool_)", "rng.integers(0, 2**33, dtype=np.int32)",
    "rng.choice(0, size=3)", "rng.choice(np.arange(0.0), size=2)",
    "rng.choice(3, size=5, replace=False)", "rng.choice(3, p=np.array([0.5, 0.6, 0.1]))",
    "rng.choice(3, p=np.array([0.5, -0.1, 0.6]))", "rng.choice(3, p=np.array([0.5, 0.5]))",
    "rng.choice(3, size=3, replace=False, p=np.array([0.5, 0.5, 0.0]))",
    "rng.uniform(-1e308, 1e308)", "rng.uniform(3.0, 1.0)",
    "rng.standard_t(0.0)", "rng.f(1.0, -1.0)", "rng.f(0.0, 1.0)", "rng.noncentral_chisquare(1.0, -0.0)",
    "rng.noncentral_chisquare(0.0, 1.0)", "rng.noncentral_f(1.0, 2.0, -1.0)",
    "rng.vonmises(0.0, -1.0)", "rng.wald(0.0, 1.0)", "rng.wald(1.0, -1.0)",
    "rng.triangular(1.0, 0.0, 2.0)", "rng.triangular(0.0, 3.0, 2.0)", "rng.triangular(1.0, 1.0, 1.0)",
    "rng.zipf(1.0)", "rng.zipf(float('nan'))", "rng.logseries(1.0)", "rng.logseries(-0.5)",
    "rng.negative_binomial(float('nan'), 0.5)", "rng.negative_binomial(0.0, 0.5)",
    "rng.negative_binomial(1.0, 0.0)", "rng.negative_binomial(1e20, 1e-5)",
    "rng.hypergeometric(10**9, 5, 3)", "rng.hypergeometric(3, 5, 9)", "rng.hypergeometric(-3, 5, 1)",
    "rng.hypergeometric(3, -5, 1)", "rng.hypergeometric(3, 5, -1)",
    "rng.pareto(0.0)", "rng.power(-1.0)", "rng.weibull(-1.0)", "rng.gumbel(0.0, -1.0)",
    "rng.rayleigh(-1.0)",
    "rng.multinomial(10, np.array([0.2, -0.1]))", "rng.multinomial(10, np.array([0.7, 0.6, 0.1]))",
    "rng.multinomial(10, np.array([0.7, 0.6, 0.1], dtype=np.float32))",
    "rng.multinomial(-1, np.array([0.2, 0.8]))", "rng.multinomial(3, np.empty(0))",
    "rng.dirichlet(np.array([1.0, -3.0]))",
    "rng.multivariate_hypergeometric(np.array([3, 2]), 6)",
    "rng.multivariate_hypergeometric(np.array([3, -2]), 1)",
    "rng.multivariate_hypergeometric(np.array([3, 2]), -1)",
    "rng.multivariate_hypergeometric(np.array([3, 2]), 1, method='other')",
    "rng.multivariate_hypergeometric(np.array([10**9, 2]), 1)",
    "rng.normal(np.arange(3.0), np.array([1.0, -1.0, 1.0]))", "rng.poisson(np.array([1.0, -1.0]))",
    "rng.poisson(np.array([-1.0, 1e19]))", "rng.zipf(np.array([2.0, 1.0]))",
    "rng.logseries(np.array([0.5, 1.0]))", "rng.uniform(np.zeros(2), np.array([1.0, -1.0]))",
    "rng.uniform(np.zeros(2), np.array([1.0, np.inf]))", "rng.binomial(np.array([1, -1]), 0.5)",
    "rng.random(out=np.empty(3, dtype=np.float32))", "rng.random(size=4, out=np.empty(3))",
    "rng.binomial(5, np.array([0.5, np.nan]))", "rng.geometric(np.array([0.5, 0.0]))",
    "rng.negative_binomial(np.array([1.0, np.nan]), 0.5)", "rng.triangular(np.array([0.0, 0.7]), 0.5, 1.0)",
    "rng.lognormal(0.0, np.array([1.0, -0.0]))", "rng.hypergeometric(np.array([5, 2]), 3, 6)",
    "rng.triangular(np.zeros(2), np.array([0.5, -0.5]), 1.0)",
    "rng.triangular(np.zeros(2), np.array([0.5, 0.7]), np.array([1.0, 0.6]))",
    "rng.triangular(np.array([0.0, 1.0]), 1.0, np.array([1.0, 1.0]))",
    "rng.hypergeometric(np.array([5, 2]), np.array([3, 1]), 6)",
    "rng.integers(0, 0)", "rng.integers(0, -1, endpoint=True)", "rng.integers(0, 0, dtype=np.int8)",
    "rng.integers(np.array([-5, 0]), 7, dtype=np.uint8)", "rng.integers(np.array([5, 300]), dtype=np.uint8)",
    "rng.integers(np.array([5, 3]), np.array([4, 5]))", "rng.integers(np.array([0, 0]), np.array([0, 5]))",
    "rng.standard_normal(size=(3, 1), out=np.empty(3))",
    "rng.multivariate_normal(np.zeros(2), np.array([[1.0, 2.0], [2.0, 1.0]]), check_valid='raise')",
    "rng.multivariate_normal(np.zeros(2), np.array([[1.0, 2.0], [2.0, 1.0]]), method='eigh', check_valid='raise')",
    "rng.multivariate_normal(np.zeros(2), np.eye(3))", "rng.multivariate_normal(np.zeros(2), np.ones((2, 3)))",
    "rng.multivariate_normal(np.zeros(2), np.eye(2), method='lu')",
    "rng.multivariate_normal(np.zeros(2), np.eye(2), check_valid='maybe')",
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_as_numpy(call):
    f, jf = compile_call(call)
    with pytest.raises(Exception) as want:
        f(np.random.default_rng(0))
    with pytest.raises(type(want.value)) as got:
        jf(np.random.default_rng(0))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("call, what", [
    ("rng.random(dtype=np.int64)", "dtype"), ("rng.integers(0, 5, dtype=np.float64)", "dtype"),
    ("rng.normal(np.zeros(3), out=np.empty(3))", "no implementation"),
    ("rng.random(out=np.empty((4, 4))[::2])", "C- or F-contiguous"),
    ("rng.integers(0.5, 2)", "int bounds"),
    ("rng.integers(np.zeros(2), 2)", "arrays of ints"),
    ("rng.random(size=2.5)", "size must be"), ("rng.choice(5, replace=1.5)", "bool replace"),
    ("rng.shuffle(3)", "array"), ("rng.bytes(2)", "Generator has no method 'bytes'"),
    ("rng.multinomial(3.5, np.ones(2) / 2)", "int n"), ("rng.dirichlet(3)", "1-d array"),
])
def test_unsupported_arguments_name_what_was_given(call, what):
    _, jf = compile_call(call)
    with pytest.raises(TypingError, match=what):
        jf(np.random.default_rng(0))


def test_default_rng_bad_seed():
    @njit
    def f(seed):
        return np.random.default_rng(seed).random()

    with pytest.raises(ValueError, match="non-negative"):
        f(-1)
    with pytest.raises(TypingError, match="int seed"):
        f(1.5)


def test_no_leak_passing_and_making_generators():
    @njit
    def use(rng):
        return rng.random()

    @njit
    def make(seed):
        return np.random.default_rng(seed)

    rng = np.random.default_rng(0)
    for _ in range(1000):
        use(rng)
        make(1)
    before = memory_in_use()
    for _ in range(200000):
        use(rng)
        make(1)
    assert memory_in_use() - before < 4 * 2 ** 20


def test_no_leak_in_vector_and_broadcast_draws():
    @njit
    def draws(rng, p, a, cov):
        x = rng.multinomial(10, p, size=3).sum() + rng.dirichlet(a, size=2).sum()
        x += rng.normal(np.arange(3.0), 1.0, size=(2, 3)).sum()
        x += rng.multivariate_hypergeometric(np.array([3, 4, 5]), 4, method="count").sum()
        return x + rng.multivariate_normal(np.zeros(2), cov, size=2).sum()

    rng, p, a, cov = np.random.default_rng(0), np.array([0.2, 0.3, 0.5]), np.ones(2), np.eye(2)
    for _ in range(1000):
        draws(rng, p, a, cov)
    before = memory_in_use()
    for _ in range(30000):
        draws(rng, p, a, cov)
    assert memory_in_use() - before < 4 * 2 ** 20


def test_generators_in_tuples_and_lists():
    @njit
    def pair(seed):
        a = np.random.default_rng(seed)
        b = np.random.default_rng(seed + 1)
        gens = [a, b]
        total = 0.0
        for g in gens:
            total += g.random()
        return (a, total)

    rng, total = pair(4)
    want = np.random.default_rng(4)
    assert total == want.random() + np.random.default_rng(5).random()
    assert rng.random() == want.random()


def test_cached_function_taking_a_generator(tmp_path):
    """@njit(cache=True) stores and loads a version taking a Generator (no address is frozen)."""
    path = tmp_path / "cached_rng.py"
    path.write_text("import numpy as np\nfrom pyjit import njit\n\n"
                    "@njit(cache=True)\ndef draw(rng):\n    return rng.standard_normal(3)\n\n"
                    "print(repr(draw(np.random.default_rng(8)).tolist()))\n")
    want = repr(np.random.default_rng(8).standard_normal(3).tolist())
    for _ in range(2):   # compiled and stored, then loaded
        rc, out, err = run_subprocess(f"import runpy; runpy.run_path({str(path)!r})",
                                      env={"PYJIT_CACHE_DIR": str(tmp_path / "cache")})
        assert rc == 0 and out.strip() == want, err
    assert any((tmp_path / "cache").rglob("*")), "nothing was cached"


def test_generator_joined_at_a_branch():
    @njit
    def pick(seed, first):
        if first:
            rng = np.random.default_rng(seed)
        else:
            rng = np.random.default_rng(seed + 1)
        total = 0.0
        for _ in range(3):
            total += rng.random()
        return total

    for first, seed in ((True, 1), (False, 2)):
        want = np.random.default_rng(1 if first else 3).random(3)
        assert pick(seed, first) == want[0] + want[1] + want[2]
