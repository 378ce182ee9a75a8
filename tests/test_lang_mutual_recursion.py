"""Mutual recursion without signatures: f calls g calls f, the return types found as Numba finds
them, from the returns that do not go through the cycle first, then again until they settle
(compiler/infer.c: infer_cycle). Each function pair runs in CPython and compiled; the answers
must agree. (Recursion too deep for the stack: tests/test_recursion.py.)"""
import pytest

import pyjit
from util import assert_same


def _compile(source, names):
    """Two namespaces from one source: CPython's functions, and the same compiled."""
    py, jit = {}, {}
    exec(source, py)
    exec(source, jit)
    for name in names:
        jit[name] = pyjit.njit(jit[name])
    return py, jit


PARITY = '''
def is_even(n):
    if n < 0:
        return is_even(-n)
    return True if n == 0 else is_odd(n - 1)

def is_odd(n):
    if n < 0:
        return is_odd(-n)
    return False if n == 0 else is_even(n - 1)
'''

WIDENING = '''
def halve(n):
    if n <= 0:
        return 1.0
    return grow(n - 1) / 2

def grow(n):
    if n <= 0:
        return 1
    return halve(n - 1) + 3
'''

THREE = '''
def a(n):
    if n <= 0:
        return 0
    return b(n - 1) + 1

def b(n):
    return c(n) * 2

def c(n):
    if n % 2 == 0:
        return a(n - 1)
    return a(n - 2) - 1
'''

TUPLES = '''
def collatz_pair(n, steps):
    if n == 1:
        return (n, steps)
    return odd_step(n, steps) if n % 2 else even_step(n, steps)

def odd_step(n, steps):
    return collatz_pair(3 * n + 1, steps + 1)

def even_step(n, steps):
    return collatz_pair(n // 2, steps + 1)
'''

CASES = [
    (PARITY, ("is_even", "is_odd"), [0, 1, 10, 7, -7, 300]),
    (WIDENING, ("halve", "grow"), [0, 1, 2, 5, 8]),
    (THREE, ("a", "b", "c"), [0, 1, 4, 9]),
    (TUPLES, ("collatz_pair", "odd_step", "even_step"), [1, 6, 27, 8]),
]


@pytest.mark.parametrize("source,names,args", CASES, ids=["parity", "widening", "three", "tuples"])
def test_mutual_recursion_without_signatures(source, names, args):
    py, jit = _compile(source, names)
    extra = (0,) if "collatz_pair" in names else ()
    for name in names[:1]:
        for n in args:
            assert_same(py[name](n, *extra), jit[name](n, *extra), where=f"{name}({n})")
    for name in names[1:]:   # compiled first as callees, then called from Python
        for n in args[1:]:
            assert jit[name](n, *extra) == py[name](n, *extra), f"{name}({n})"


def test_return_types_settle_on_the_wider_one():
    py, jit = _compile(WIDENING, ("halve", "grow"))
    for n in (0, 1, 2, 5):
        got = jit["grow"](n)
        assert isinstance(got, float) and got == py["grow"](n)   # CPython's grow(0) is the int 1


def test_entry_called_again_with_other_types():
    py, jit = _compile(PARITY, ("is_even", "is_odd"))
    assert jit["is_odd"](True) == py["is_odd"](True)
    assert jit["is_even"](11) == py["is_even"](11)
