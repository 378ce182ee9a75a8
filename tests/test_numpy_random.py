"""np.random in compiled code against NumPy's own legacy generator: after np.random.seed(s) in
compiled code, each distribution, size= form, shuffle, permutation and choice gives exactly what
np.random.RandomState(s) (here: NumPy's global state seeded the same) gives; NumPy's errors for
parameters out of their domain; one stream per thread."""
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
