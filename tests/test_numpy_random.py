"""np.random in compiled code against NumPy's own legacy generator: after np.random.seed(s) in
compiled code, each distribution, size= form, shuffle, permutation and choice gives exactly what
np.random.RandomState(s) (here: NumPy's global state seeded the same) gives; NumPy's errors for
parameters out of their domain; one stream per thread."""
import random
import threading

import numpy as np
import pytest

from pyjit import njit

from util import assert_same

SEEDS = [0, 1, 12345, 2**32 - 1]


def _scalars(seed):
    np.random.seed(seed)
    return (np.random.random(), np.random.rand(), np.random.randn(), np.random.randint(0, 10),
            np.random.randint(5, 1 << 40), np.random.randint(-3, 3), np.random.uniform(1.0, 2.0),
            np.random.normal(3.0, 2.0), np.random.standard_exponential(),
            np.random.exponential(2.5), np.random.standard_gamma(0.5),
            np.random.standard_gamma(3.5), np.random.gamma(2.0, 0.5), np.random.chisquare(4.0),
            np.random.beta(0.5, 0.7), np.random.beta(2.0, 3.0), np.random.poisson(3.0),
            np.random.poisson(50.0), np.random.poisson(), np.random.binomial(10, 0.3),
            np.random.binomial(1000, 0.4), np.random.binomial(100, 0.9), np.random.binomial(5, 1.0),
            np.random.lognormal(0.5, 0.25), np.random.standard_normal(), np.random.random_sample())


def _arrays(seed):
    np.random.seed(seed)
    return (np.random.random((2, 3)), np.random.rand(3, 2), np.random.randn(4),
            np.random.random_sample(3), np.random.standard_normal((2, 2)),
            np.random.uniform(1, 2, 3), np.random.normal(0, 2, (2,)),
            np.random.randint(0, 100, 5), np.random.randint(7, size=(2, 2)),
            np.random.exponential(1.5, 3), np.random.gamma(2.0, 3.0, 2),
            np.random.chisquare(3.0, 2), np.random.lognormal(0.0, 1.0, 2),
            np.random.poisson(4.0, 3), np.random.binomial(20, 0.4, 3), np.random.beta(2.0, 2.0, 2),
            np.random.standard_gamma(1.5, 2), np.random.standard_exponential(3))


def _rearranging(seed):
    np.random.seed(seed)
    a = np.arange(10.0)
    np.random.shuffle(a)
    b = np.arange(12).reshape(4, 3)
    np.random.shuffle(b)
    return (a, b, np.random.permutation(6), np.random.permutation(np.arange(8.0) * 2),
            np.random.permutation(np.arange(6).reshape(3, 2)), np.random.choice(5),
            np.random.choice(10, 4), np.random.choice(np.arange(5.0), 3, replace=False),
            np.random.choice(4, (2, 2), p=np.array([0.1, 0.2, 0.3, 0.4])),
            np.random.choice(5, 2, False, np.array([0.1, 0.2, 0.3, 0.2, 0.2])),
            np.random.choice(np.arange(3.0) + 7, p=np.array([0.2, 0.5, 0.3])),
            np.random.choice(7, replace=False))


@pytest.mark.parametrize("f", [_scalars, _arrays, _rearranging])
@pytest.mark.parametrize("seed", SEEDS)
def test_same_streams_as_numpy(f, seed):
    assert_same(njit(f)(seed), f(seed))


DISTRIBUTIONS = [
    "np.random.standard_cauchy()", "np.random.standard_cauchy(100)", "np.random.standard_t(3.5, 300)",
    "np.random.standard_t(0.3, 30)", "np.random.f(2.0, 5.0, 100)", "np.random.f(1e-300, 1e300, 5)",
    "np.random.noncentral_chisquare(3.0, 2.0, 300)", "np.random.noncentral_chisquare(0.5, 2.0, 300)",
    "np.random.noncentral_chisquare(3.0, 0.0, 30)", "np.random.noncentral_f(3.0, 4.0, 1.5, 300)",
    "np.random.pareto(3.0, 100)", "np.random.pareto(1e-300, 5)", "np.random.power(0.5, 100)",
    "np.random.power(2.0, 100)", "np.random.weibull(1.5, 100)", "np.random.weibull(0.0, 3)",
    "np.random.rayleigh(2.0, 100)", "np.random.rayleigh()", "np.random.vonmises(0.5, 3.0, 300)",
    "np.random.vonmises(0.5, 1e7, 30)", "np.random.vonmises(-1.0, 1e-9, 30)",
    "np.random.vonmises(1.0, 1e-6, 30)", "np.random.wald(1.0, 2.0, 300)",
    "np.random.wald(1e-300, 1e300, 5)", "np.random.laplace(1.0, 2.0, 100)", "np.random.laplace()",
    "np.random.gumbel(1.0, 2.0, 100)", "np.random.logistic(1.0, 2.0, 100)",
    "np.random.triangular(-1.0, 0.5, 3.0, 100)", "np.random.triangular(0.0, 0.0, 1.0, 10)",
    "np.random.zipf(2.0, 300)", "np.random.zipf(1.01, 100)", "np.random.zipf(5.5, 30)",
    "np.random.geometric(0.5, 100)", "np.random.geometric(0.05, 100)", "np.random.geometric(1.0, 3)",
    "np.random.logseries(0.5, 300)", "np.random.logseries(0.999, 300)", "np.random.logseries(0.0, 3)",
    "np.random.negative_binomial(5, 0.3, 300)", "np.random.negative_binomial(0.5, 0.9, 300)",
    "np.random.negative_binomial(3, 1.0, 3)",
    "np.random.hypergeometric(10, 5, 7, 200)", "np.random.hypergeometric(100, 200, 50, 300)",
    "np.random.hypergeometric(1000, 20, 500, 300)", "np.random.hypergeometric(5, 5, 10, 30)",
    "np.random.hypergeometric(5, 0, 1, 30)", "np.random.hypergeometric(10**8, 10**8, 10**6, 30)",
    "np.random.multinomial(20, np.array([0.2, 0.3, 0.5]))",
    "np.random.multinomial(1000, np.array([0.1, 0.6, 0.05, 0.25]), 50)",
    "np.random.multinomial(200, np.array([0.5, 0.5, 0.0]), (2, 3))",
    "np.random.multinomial(5, np.empty(0), 3)", "np.random.multinomial(5, np.array([0.7, 0.7]))",
    "np.random.dirichlet(np.array([0.5, 1.0, 2.0]), 50)", "np.random.dirichlet(np.array([0.01, 0.02]), 10)",
    "np.random.dirichlet(np.array([2, 3]), (2, 2))",
    "np.random.standard_t(1e-10, 5)", "np.random.noncentral_chisquare(1e-10, 1e10, 5)",
    "np.random.power(1e-300, 5)", "np.random.vonmises(1e300, 1.0, 5)", "np.random.wald(1e300, 1e-300, 5)",
    "np.random.triangular(-1e300, 0.0, 1e300, 5)", "np.random.logseries(0.9999999999, 20)",
    "np.random.hypergeometric(10**6, 10**6, 10**5, 5)", "np.random.geometric(1e-300, 5)",
]


def compile_seeded(call):
    ns = {"np": np}
    exec(f"def f(seed):\n    np.random.seed(seed)\n    return {call}\n", ns)
    return ns["f"], njit(ns["f"])


@pytest.mark.parametrize("call", DISTRIBUTIONS)
def test_distributions_as_numpy(call):
    f, jf = compile_seeded(call)
    for seed in SEEDS:
        assert_same(jf(seed), f(seed))


def test_unseeded_draws_differ_between_calls():
    @njit
    def draw():
        return np.random.random(8)
    assert not np.array_equal(draw(), draw())


@pytest.mark.parametrize("f", [
    lambda: np.random.seed(-1),
    lambda: np.random.seed(2**32),
    lambda: np.random.poisson(-1.0),
    lambda: np.random.poisson(1e19),
    lambda: np.random.binomial(-1, 0.5),
    lambda: np.random.binomial(3, 1.5),
    lambda: np.random.beta(0.0, 1.0),
    lambda: np.random.standard_gamma(-1.0),
    lambda: np.random.gamma(1.0, -2.0),
    lambda: np.random.exponential(-1.0),
    lambda: np.random.chisquare(0.0),
    lambda: np.random.normal(0.0, -1.0),
    lambda: np.random.randint(3, 3),
    lambda: np.random.choice(3, 5, replace=False),
    lambda: np.random.choice(3, p=np.array([0.5, 0.6, 0.1])),
    lambda: np.random.choice(3, p=np.array([0.5, 0.5])),
    lambda: np.random.standard_t(0.0), lambda: np.random.f(1.0, -1.0), lambda: np.random.f(0.0, 1.0),
    lambda: np.random.noncentral_chisquare(1.0, -1.0), lambda: np.random.noncentral_f(1.0, 1.0, -1.0),
    lambda: np.random.pareto(0.0), lambda: np.random.power(-1.0), lambda: np.random.weibull(-1.0),
    lambda: np.random.rayleigh(-1.0), lambda: np.random.vonmises(0.0, -1.0),
    lambda: np.random.wald(0.0, 1.0), lambda: np.random.wald(1.0, -1.0),
    lambda: np.random.laplace(0.0, -1.0), lambda: np.random.gumbel(0.0, -1.0),
    lambda: np.random.logistic(0.0, -1.0), lambda: np.random.triangular(1.0, 0.0, 2.0),
    lambda: np.random.triangular(0.0, 3.0, 2.0), lambda: np.random.triangular(1.0, 1.0, 1.0),
    lambda: np.random.zipf(1.0), lambda: np.random.geometric(0.0), lambda: np.random.logseries(1.0),
    lambda: np.random.negative_binomial(0.0, 0.5), lambda: np.random.negative_binomial(1.0, 1.5),
    lambda: np.random.hypergeometric(3, 5, 9), lambda: np.random.hypergeometric(-3, 5, 1),
    lambda: np.random.hypergeometric(3, -5, 1), lambda: np.random.hypergeometric(3, 5, 0),
    lambda: np.random.multinomial(10, np.array([0.2, -0.1])),
    lambda: np.random.multinomial(10, np.array([0.7, 0.6, 0.1])),
    lambda: np.random.multinomial(-1, np.array([0.2, 0.8])),
    lambda: np.random.dirichlet(np.array([1.0, 0.0])),
])
def test_errors_match_numpy(f):
    with pytest.raises(ValueError) as expected:
        f()
    with pytest.raises(ValueError) as got:
        njit(f)()
    assert str(got.value).splitlines()[0] == str(expected.value)


def test_each_thread_has_its_own_stream():
    @njit(nogil=True)
    def draws(seed):
        np.random.seed(seed)
        out = np.empty(2000)
        for i in range(out.size):
            out[i] = np.random.normal(0.0, 1.0)
        return out

    expected = draws.py_func(7)
    results = [None] * 4

    def run(k):
        results[k] = draws(7)
    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert_same(r, expected)


def _python_random_draws(seed, n):
    random.seed(seed)
    out = np.empty(n)
    for i in range(n):
        out[i] = random.random()
    return out


def _interleaved(seed):
    np.random.seed(seed)
    random.seed(seed + 1)
    return np.random.random(), random.random(), np.random.random(), random.random()


@pytest.mark.parametrize("seed", SEEDS)
def test_python_random_module_has_a_stream_of_its_own(seed):
    # as in Numba: random.seed(s) seeds a second generator as np.random.seed(s) seeds NumPy's,
    # and draws from one never move the other
    f = njit(_python_random_draws)
    np.testing.assert_array_equal(f(seed, 7), np.random.RandomState(seed).random_sample(7))
    a0, b0, a1, b1 = njit(_interleaved)(seed)
    assert (a0, a1) == tuple(np.random.RandomState(seed).random_sample(2))
    assert (b0, b1) == tuple(np.random.RandomState((seed + 1) % 2**32).random_sample(2))


def test_python_random_module_unseeded_draws_differ():
    f = njit(lambda: random.random())
    draws = {f() for _ in range(5)}
    assert len(draws) == 5 and all(0.0 <= d < 1.0 for d in draws)
