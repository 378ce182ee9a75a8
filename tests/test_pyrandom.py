"""Python's random module in compiled code, against CPython running the same source. Compiled
random.seed(n) seeds as Numba's does (the Mersenne Twister's init_genrand of n's low 32 bits, as
np.random.seed(n) seeds NumPy's; CPython's random.seed takes another route), so the interpreter
runs each function with its random.seed doing the same (seeded_as_numba), and then draws what
the compiled function draws: pyjit/lib/pyrandom.py follows Lib/random.py draw for draw."""
import contextlib
import random
import threading

import numpy as np
import pytest

import pyjit
from pyjit.errors import TypingError

SEEDS = (0, 1, 42, -7, 123456789, 2**40 + 3, -2**63)


def seed_as_numba(s):
    """The interpreter's random module put in the state Numba's random.seed(s) gives: NumPy's
    RandomState(s) seeds its Mersenne Twister the same way (s's low 32 bits)."""
    key = np.random.RandomState(s & 0xffffffff).get_state()[1]
    random.setstate((3, tuple(int(k) for k in key) + (624,), None))


@contextlib.contextmanager
def seeded_as_numba():
    """random.seed in the interpreter seeds as compiled code's (compile before entering)."""
    saved = random.seed
    random.seed = seed_as_numba
    try:
        yield
    finally:
        random.seed = saved


def draws_random(s):
    random.seed(s)
    return [random.random() for _ in range(4)]


def draws_uniform(s):
    random.seed(s)
    return [random.uniform(-2, 3.5) for _ in range(3)] + [random.uniform(5.0, 1.0)]


def draws_randint(s):
    random.seed(s)
    return ([random.randint(-3, 1000000007) for _ in range(4)] + [random.randint(0, 1) for _ in range(4)]
            + [random.randint(5, 5), random.randint(-2**61, 2**61)])


def draws_randrange(s):
    random.seed(s)
    return ([random.randrange(10) for _ in range(3)] + [random.randrange(5, 100, 7) for _ in range(3)]
            + [random.randrange(100, 5, -3) for _ in range(3)] + [random.randrange(2**62)]
            + [random.randrange(-5, 5) for _ in range(3)] + [random.randrange(1)])


def draws_getrandbits(s):
    random.seed(s)
    return [int(random.getrandbits(k)) for k in (0, 1, 5, 31, 32, 33, 63)]


def draws_getrandbits64(s):
    random.seed(s)
    return random.getrandbits(64), random.getrandbits(64)


def draws_gauss(s):
    random.seed(s)
    out = [random.gauss(1.0, 2.0) for _ in range(3)] + [random.gauss() for _ in range(2)]
    random.seed(s)   # forgets the kept second normal
    return out + [random.gauss(mu=0.5, sigma=3)]


def draws_normalvariate(s):
    random.seed(s)
    return [random.normalvariate(1.0, 2.0) for _ in range(3)] + [random.normalvariate()]


def draws_continuous(s):
    random.seed(s)
    return ([random.lognormvariate(0.5, 0.3), random.expovariate(1.5), random.expovariate(1)]
            + [random.vonmisesvariate(1.0, k) for k in (0.0, 0.5, 4.0, 100.0)]
            + [random.gammavariate(a, 2.0) for a in (0.3, 1.0, 2.5, 50.0, 0.9, 1)]
            + [random.betavariate(a, 2.0) for a in (0.3, 1.0, 2.5)]
            + [random.paretovariate(a) for a in (0.3, 1.0, 2.5)]
            + [random.weibullvariate(a, 2.0) for a in (0.3, 1.0, 2.5)])


def draws_triangular(s):
    random.seed(s)
    return ([random.triangular() for _ in range(2)] + [random.triangular(1.0, 3.0, 2.5) for _ in range(2)]
            + [random.triangular(2.0, 2.0, 2.0), random.triangular(0.0, 10.0),
               random.triangular(10, 0, 3), random.triangular(1.0, 3.0, 1.0)])


def draws_choice(s):
    random.seed(s)
    a = np.arange(10.0) * 2
    items = [1.5, 5.0, 7.0]
    return ([random.choice(a) for _ in range(4)] + [random.choice(items) for _ in range(4)]
            + [random.choice(a[::3]), random.choice((2.0, 4.0))])


def draws_shuffle(s):
    random.seed(s)
    a = np.arange(10.0)
    random.shuffle(a)
    items = [1, 2, 3, 4, 5, 6]
    random.shuffle(items)
    b = np.arange(9)[::-2]
    random.shuffle(b)
    one = [7]
    random.shuffle(one)
    return [float(x) for x in a] + [float(x) for x in items] + [float(x) for x in b] + [float(one[0])]


DRAWS = [draws_random, draws_uniform, draws_randint, draws_randrange, draws_getrandbits, draws_getrandbits64,
         draws_gauss, draws_normalvariate, draws_continuous, draws_triangular, draws_choice,
         draws_shuffle]


@pytest.mark.parametrize("f", DRAWS, ids=lambda f: f.__name__)
def test_the_interpreters_numbers_after_the_same_seed(f):
    jit = pyjit.njit(f)
    for s in SEEDS:
        got = jit(s)
        with seeded_as_numba():
            want = f(s)
        assert got == want, s


def test_a_state_of_its_own():
    """Seeding the interpreter's random module or np.random does not move compiled code's
    state, nor does compiled code move the interpreter's."""
    @pyjit.njit
    def seed(s):
        random.seed(s)

    @pyjit.njit
    def draw():
        return random.random()

    seed(5)
    random.seed(99)
    np.random.seed(99)
    got = draw()
    after = random.random()
    seed_as_numba(5)
    assert got == random.random()
    random.seed(99)
    assert after == random.random()


def test_each_thread_draws_from_its_own_state():
    @pyjit.njit
    def draws(s, n):
        random.seed(s)
        return [random.randint(0, 100) for _ in range(n)]

    seed_as_numba(3)
    want = [random.randint(0, 100) for _ in range(2000)]
    results = [None] * 4

    def work(i):
        results[i] = draws(3, 2000)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [want] * 4


def raises_like_cpython(f, *args):
    try:
        f(*args)
    except Exception as exc:   # noqa: BLE001 - the interpreter's exception is the expected one
        want = type(exc)
    else:
        raise AssertionError("CPython raised nothing")
    with pytest.raises(want):
        pyjit.njit(f)(*args)


def empty_randrange(a, b):
    return random.randrange(a, b)


def empty_randrange_one(a):
    return random.randrange(a)


def zero_step(a, b):
    return random.randrange(a, b, 0)


def backwards_randint(a, b):
    return random.randint(a, b)


def empty_choice(n):
    return random.choice(np.zeros(n))


def bad_gamma(a, b):
    return random.gammavariate(a, b)


def negative_bits(k):
    return random.getrandbits(k)


@pytest.mark.parametrize("f, args", [(empty_randrange, (5, 5)), (empty_randrange, (5, 2)),
                                     (empty_randrange_one, (0,)), (empty_randrange_one, (-3,)),
                                     (zero_step, (0, 10)), (backwards_randint, (3, 1)),
                                     (empty_choice, (0,)), (bad_gamma, (0.0, 1.0)),
                                     (bad_gamma, (1.0, -1.0)), (negative_bits, (-1,))],
                         ids=lambda x: getattr(x, "__name__", repr(x)))
def test_errors_as_cpythons(f, args):
    raises_like_cpython(f, *args)


def test_getrandbits_past_64_is_a_value_error():
    f = pyjit.njit(lambda k: random.getrandbits(k))
    with pytest.raises(ValueError, match="64"):
        f(65)


def float_randint(a):
    return random.randint(a, 10)


def shuffle_2d(a):
    random.shuffle(a)


def choice_of_number(x):
    return random.choice(x)


def uniform_of_array(a):
    return random.uniform(a, 1.0)


@pytest.mark.parametrize("f, arg, message", [
    (float_randint, 1.5, "takes ints"), (shuffle_2d, np.zeros((2, 2)), "1-d array or a list"),
    (choice_of_number, 3.0, "random.choice"), (uniform_of_array, np.zeros(3), "takes numbers")],
    ids=lambda x: getattr(x, "__name__", None) or str(x)[:10])
def test_bad_arguments_are_typing_errors_naming_the_line(f, arg, message):
    with pytest.raises(TypingError, match=f"(?s){message}.*line"):
        pyjit.njit(f)(arg)
