"""An int compared with a float inside a loop: where the int is a range loop's variable (or an
affine function of it, or a remainder by a value fixed before the loop), the loop is versioned on
"every such int is within 2**53 of zero" and compares in float64 there; elsewhere the comparison
stays exact. Results as CPython's on both sides of 2**53 (the references run over lists of Python
floats: NumPy's float64 scalars compare with ints in float64, Python's floats exactly)."""
import numpy as np
import pytest

from pyjit import njit

B = 2**53


def affine_counts(x, start, stop, step):
    c = 0
    for i in range(start, stop, step):
        if i < x:
            c += 1
        if 2 * i + 1 >= x:
            c += 10
        if x == i - 3:
            c += 100
        if x != 5 - i:
            c += 1000
    return c


def array_counts(a, start):
    c = 0
    for i in range(start, start + len(a)):
        if a[i - start] > i:
            c += 1
        if a[i - start] <= i:
            c += 100
    return c


def mod_counts(a, n):
    c = 0
    for i in range(len(a)):
        k = i % n
        if a[i] > k:
            c += 1
        if a[i] == k:
            c += 100
    return c


def nested_counts(x, lo, n):
    c = 0
    for i in range(lo, lo + n):
        for j in range(n):
            if i + j <= x:
                c += 1
            if x > i:
                c += 100
    return c


def masked_counts(a, h):
    c = 0
    for i in range(len(a)):
        if (h & 1023) < a[i]:
            c += 1
        if i % 7 >= a[i]:
            c += 10
        h = h * 31 + 7
    return c


compiled = {f.__name__: njit(f) for f in (affine_counts, array_counts, mod_counts, nested_counts,
                                         masked_counts)}


@pytest.mark.parametrize("start,stop,step", [
    (0, 50, 1), (-20, 20, 3), (40, -10, -2), (B - 6, B + 6, 1), (B + 6, B - 6, -1),
    (-B - 6, -B + 6, 1), (2**61, 2**61 + 5, 1), (B - 3, B + 3000, 997)])
def test_range_variable_against_float(start, stop, step):
    for x in [float(B), float(B + 2), -float(B), 7.0, 7.5, -3.0, float("nan"), float("inf"),
              2.0**61, 2.0**61 + 2048]:
        assert compiled['affine_counts'](x, start, stop, step) == affine_counts(x, start, stop, step), x


@pytest.mark.parametrize("start", [0, -7, B - 4, B + 1, -B - 2])
def test_range_variable_against_items(start):
    a = np.arange(start, start + 9, dtype=np.float64)
    a[::3] += 1.0                        # float64 rounds the items past 2**53 as it rounds them
    assert compiled['array_counts'](a, start) == array_counts(a.tolist(), start)


@pytest.mark.parametrize("n", [7, 1000, B + 1, 2**62 + 1, -5, -(B + 1)])
def test_remainder_against_float(n):
    a = np.linspace(-3.0, 1.5e3, 2000)
    a[::5] = np.floor(a[::5])
    a[7] = float(B)
    assert compiled['mod_counts'](a, n) == mod_counts(a.tolist(), n)


def test_remainder_by_zero_raises():
    with pytest.raises(ZeroDivisionError):
        compiled['mod_counts'](np.ones(3), 0)


@pytest.mark.parametrize("lo", [0, B - 3, -B - 1])
@pytest.mark.parametrize("x", [float(B), float(B + 2), 3.0, 3.5])
def test_nested_loops(lo, x):
    assert compiled['nested_counts'](x, lo, 6) == nested_counts(x, lo, 6)


def test_masked_and_small_remainders():
    a = np.linspace(-5.0, 1100.0, 300)
    assert compiled['masked_counts'](a, 12345) == masked_counts(a.tolist(), 12345)


def test_boundscheck_off_same_results():
    f = njit(boundscheck=False)(affine_counts)
    for start, stop, step in [(0, 30, 1), (B - 6, B + 6, 1)]:
        for x in (float(B), 7.5):
            assert f(x, start, stop, step) == affine_counts(x, start, stop, step)


_unchecked = njit(boundscheck=False)(affine_counts)


@njit
def _checked_then_unchecked(x, n):
    c = 0
    for i in range(n):            # a loop of the checked caller, lowered first
        if i < x:
            c += 1
    return c + _unchecked(x, 0, n, 1)


def test_checked_caller_of_unchecked_callee():
    """The callee's loops are lowered after the caller's, in the same program, with nothing of
    the caller's loop bookkeeping left over (it once crashed)."""
    for x in (3.5, float(B)):
        assert _checked_then_unchecked(x, 20) == sum(i < x for i in range(20)) + affine_counts(x, 0, 20, 1)
