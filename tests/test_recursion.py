"""Recursion in compiled code: legal recursion gives CPython's answer, and recursion too deep for
the stack (endless, or finite but a million calls deep) raises RecursionError as CPython does, in
the main thread and in other threads, instead of overflowing the stack. Functions in a call
cycle check the stack at entry (compiler/lower.c, runtime/stack.c). The deep cases run in a
subprocess, so a crash fails the test instead of ending pytest."""
import sys
import textwrap

from util import run_subprocess

_DEFS = '''
import sys, threading
import pyjit

SOURCE = """
def endless(n):
    if n < 0:
        return 0
    return endless(n + 1)

def sum_to(n):
    if n == 0:
        return 0
    return n + sum_to(n - 1)

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
"""
py, compiled = {}, {}
exec(SOURCE, py)
exec(SOURCE, compiled)
for name in ("endless", "sum_to", "fib"):
    compiled[name] = pyjit.njit(compiled[name])
endless_c, sum_to_c, fib_c = compiled["endless"], compiled["sum_to"], compiled["fib"]

# each calls itself too, so both signatures compile on the first call, once both names are bound
@pyjit.njit("boolean(int64)")
def is_even(n):
    if n < 0:
        return is_even(-n)
    return True if n == 0 else is_odd(n - 1)

@pyjit.njit("boolean(int64)")
def is_odd(n):
    if n < 0:
        return is_odd(-n)
    return False if n == 0 else is_even(n - 1)

def outcome(fn, *args):
    """What a call gives: ('ok', value) or ('raises', exception class name)."""
    try:
        return ("ok", fn(*args))
    except Exception as e:
        return ("raises", type(e).__name__)

def in_thread(fn, *args, stack_size=0):
    threading.stack_size(stack_size)
    box = []
    t = threading.Thread(target=lambda: box.append(outcome(fn, *args)))
    t.start()
    t.join()
    threading.stack_size(0)
    return box[0]
'''


def _run(body):
    rc, out, err = run_subprocess(_DEFS + textwrap.dedent(body), timeout=300)
    assert rc == 0, f"exit status {rc}\nstdout:\n{out}\nstderr:\n{err[-3000:]}"
    return out


def test_endless_recursion_raises_recursion_error():
    out = _run('''
        print(outcome(py["endless"], 0))
        print(outcome(endless_c, 0))
        print(outcome(endless_c, 0))   # and again: nothing is left behind
    ''')
    assert out.split("\n")[:3] == ["('raises', 'RecursionError')"] * 3, out


def test_endless_recursion_in_threads():
    out = _run('''
        print(in_thread(endless_c, 0))
        print(in_thread(endless_c, 0, stack_size=512 * 1024))
        print(in_thread(endless_c, 0, stack_size=32 * 1024 * 1024))
    ''')
    assert out.split("\n")[:3] == ["('raises', 'RecursionError')"] * 3, out


def test_deep_finite_recursion_raises_recursion_error():
    out = _run('''
        print(outcome(py["sum_to"], 10 ** 6))
        print(outcome(sum_to_c, 10 ** 6))
        print(in_thread(sum_to_c, 10 ** 6))
    ''')
    assert out.split("\n")[:3] == ["('raises', 'RecursionError')"] * 3, out


def test_legal_recursion_gives_cpythons_answer():
    out = _run('''
        sys.setrecursionlimit(20000)
        for name, fn, arg in [("fib", fib_c, 25), ("sum_to", sum_to_c, 5000)]:
            print(outcome(fn, arg) == outcome(py[name], arg), outcome(fn, arg))
        print(in_thread(sum_to_c, 5000, stack_size=1024 * 1024) == ("ok", 12502500))
    ''')
    assert out.split("\n")[:3] == ["True ('ok', 75025)", "True ('ok', 12502500)", "True"], out


def test_mutual_recursion_with_signatures():
    out = _run('''
        print(is_even(10), is_odd(-7), is_even(7), is_odd(1000))
        print(outcome(is_even, 10 ** 7))
        print(in_thread(is_odd, 10 ** 7))
    ''')
    lines = out.split("\n")
    assert lines[0] == "True True False False", out
    assert lines[1:3] == ["('raises', 'RecursionError')"] * 2, out


def test_cpython_agrees_on_mutual_recursion():
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))

    def is_even(n):
        if n < 0:
            return is_even(-n)
        return True if n == 0 else is_odd(n - 1)

    def is_odd(n):
        if n < 0:
            return is_odd(-n)
        return False if n == 0 else is_even(n - 1)

    assert (is_even(10), is_odd(-7), is_even(7), is_odd(1000)) == (True, True, False, False)
