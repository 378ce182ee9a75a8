"""*args in compiled functions: the positional arguments past the parameters arrive as one tuple
(of whatever types they have, so a loop over it needs one type, and indexing a mixed one needs
a constant index), from Python and from compiled callers, with defaults and keywords for the
other parameters. Each function runs in CPython and compiled (util.check)."""
import numpy as np
import pytest

import pyjit
from util import check


def count_and_first_two(*args):
    return len(args), args[0] + args[1]


def total(first, *rest):
    s = first
    for r in rest:
        s += r
    return s


def with_default(a, b=2, *rest):
    return a + b + len(rest)


def mixed(*args):
    return args[0] * 2, args[1] + "!", args


def norms(*arrays):
    out = 0.0
    for a in arrays:
        out += np.sqrt((a * a).sum())
    return out


@pytest.mark.parametrize("args", [(1, 2), (1.5, 2.0, 3.0), (7, 4, 5, 6)])
def test_star_args_from_python(args):
    check(count_and_first_two, *args)
    check(total, *args)
    check(with_default, *args)


def test_fewer_arguments_and_keywords():
    check(total, 4)
    check(with_default, 1)
    f = pyjit.njit(with_default)
    assert f(a=1) == with_default(a=1)
    assert f(1, b=5) == with_default(1, b=5)
    with pytest.raises(TypeError):
        f(1, rest=3)
    with pytest.raises(TypeError):
        f()


def test_heterogeneous_and_arrays():
    check(mixed, 3, "ab", 2.5)
    check(norms, np.ones(3), np.arange(4.0))


_total = pyjit.njit(total)
_with_default = pyjit.njit(with_default)
_count = pyjit.njit(count_and_first_two)


def calls_star_args(x):
    return _count(x, 2.0), _total(x), _total(x, 1, 2), _with_default(x), \
        _with_default(x, 1, 2, 3), _with_default(a=x), _total(*(x, 5))


def test_star_args_from_compiled_code():
    expected = (count_and_first_two(3, 2.0), total(3), total(3, 1, 2), with_default(3),
                with_default(3, 1, 2, 3), with_default(a=3), total(3, 5))
    assert pyjit.njit(calls_star_args)(3) == expected


@pyjit.njit
def _rhs(t, y, k, scale):
    return -k * y * scale + t


def step_with_args(fun, t, y, args):
    # scipy-style: the right-hand side's extra parameters forwarded after positional ones of
    # other types (a float and an array before the star)
    k1 = fun(t, y, *args)
    k2 = fun(t + 0.5, y + 0.5 * k1, *args)
    both = (t, y, *args)
    return y + 0.5 * (k1 + k2), len(both), both[2]


def test_positional_of_mixed_types_before_a_star():
    check(step_with_args, _rhs, 0.1, np.arange(3.0), (2.0, 3))
