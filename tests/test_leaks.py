"""Memory: arrays made by compiled code are freed, argument reference counts are unchanged by
calls, exceptions raised by compiled code leak nothing, and compiling many functions does not
grow memory without bound. Memory is util.memory_in_use(): the RSS from /proc/self/statm, or
under AddressSanitizer the bytes allocated and not freed, which its runtime counts."""
import os
import sys

import numpy as np
import pytest

import pyjit
from util import memory_in_use

MB = 1 << 20

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                                reason="needs /proc/self/statm (Linux)")


def make_arrays(n):
    a = np.zeros(n)
    b = np.arange(n)
    a[0] = b[n - 1]
    return a


def temporaries(n):
    s = 0.0
    for i in range(n):
        t = np.ones(8) * i
        s += t.sum()
    return s


def returns_view(a):
    return a[1:]


def raises(x):
    if x > 0:
        raise ValueError("positive")
    return x


def passthrough(a):
    return a


def tuple_of_arrays(n):
    return np.zeros(n), np.ones((n, 2))


def test_returned_arrays_do_not_leak():
    f = pyjit.njit(make_arrays)
    for _ in range(20000):       # warm up: allocator pools, caches
        f(10)
    before = memory_in_use()
    for _ in range(1_000_000):
        f(10)
    grown = memory_in_use() - before
    # 10^6 leaked arrays of 10 float64 would be at least 80 MB
    assert grown < 8 * MB, f"memory grew {grown / MB:.1f} MB over 10^6 calls"


def test_temporaries_in_loops_do_not_leak():
    f = pyjit.njit(temporaries)
    assert f(4) == temporaries(4)
    for _ in range(2000):
        f(100)
    before = memory_in_use()
    for _ in range(10000):       # 10^6 temporary arrays
        f(100)
    grown = memory_in_use() - before
    assert grown < 8 * MB, f"memory grew {grown / MB:.1f} MB over 10^6 temporaries"


def test_tuples_of_new_arrays_do_not_leak():
    f = pyjit.njit(tuple_of_arrays)
    for _ in range(20000):
        f(16)
    before = memory_in_use()
    for _ in range(300_000):
        f(16)
    grown = memory_in_use() - before
    assert grown < 8 * MB, f"memory grew {grown / MB:.1f} MB"


def test_big_arrays_are_freed():
    f = pyjit.njit(make_arrays)
    f(1000)
    before = memory_in_use()
    for _ in range(60):
        r = f(1 << 20)            # 8 MB each
        assert r.shape == (1 << 20,)
        del r
    grown = memory_in_use() - before
    assert grown < 64 * MB, f"memory grew {grown / MB:.1f} MB over 60 arrays of 8 MB"


def test_returned_array_outlives_nothing_it_should_not():
    f = pyjit.njit(make_arrays)
    r = f(5)
    base_rc = sys.getrefcount(r)
    v = r[1:]
    del v
    assert sys.getrefcount(r) == base_rc
    assert r[0] == 4.0


def test_argument_refcounts_unchanged():
    a = np.zeros(10)
    t = (1.5, 2)
    x = 12345.678
    big = 10**12 + 7
    f = pyjit.njit(passthrough)
    g = pyjit.njit(returns_view)
    h = pyjit.njit(make_arrays)
    f(a), f(t), f(x), f(big), g(a), h(3)
    rc = [sys.getrefcount(o) for o in (a, t, x, big)]
    for _ in range(1000):
        f(a)
        f(t)
        f(x)
        f(big)
        v = g(a)
        del v
    assert [sys.getrefcount(o) for o in (a, t, x, big)] == rc
    rc_a = sys.getrefcount(a)
    v = g(a)
    assert sys.getrefcount(a) == rc_a + 1        # the view holds its base
    del v
    assert sys.getrefcount(a) == rc_a


def test_exceptions_do_not_leak():
    f = pyjit.njit(raises)
    a = 7
    for _ in range(2000):
        try:
            f(1)
        except ValueError:
            pass
    before = memory_in_use()
    rc = sys.getrefcount(a)
    for _ in range(200_000):
        try:
            f(a)
        except ValueError:
            pass
    grown = memory_in_use() - before
    assert sys.getrefcount(a) == rc
    assert grown < 8 * MB, f"memory grew {grown / MB:.1f} MB over 2*10^5 exceptions"


def test_bad_calls_do_not_leak():
    f = pyjit.njit(passthrough)
    f(1.0)
    lst = {None}   # a set of None: not accepted
    rc = sys.getrefcount(lst)
    for _ in range(2000):
        with pytest.raises(TypeError):
            f(lst)
    before = memory_in_use()
    for _ in range(50_000):
        try:
            f(lst)
        except TypeError:
            pass
    assert sys.getrefcount(lst) == rc
    assert memory_in_use() - before < 8 * MB, 'memory grew'


SOURCE = """
def f_{i}(x, a):
    s = x * {i} + 1
    for k in range(a.shape[0]):
        s += a[k] * {i}.5
    if s > {i}:
        s -= {i}
    return s
"""


def compile_many(start, count, a):
    for i in range(start, start + count):
        ns = {}
        exec(SOURCE.format(i=i), ns)
        fn = ns[f"f_{i}"]
        d = pyjit.njit(fn)
        assert d(2.0, a) == fn(2.0, a)


def test_compiling_many_functions_is_bounded():
    a = np.arange(4.0)
    compile_many(0, 30, a)                # warm up: LLVM's own one-time allocations
    before = memory_in_use()
    compile_many(1000, 240, a)
    per_function = (memory_in_use() - before) / 240
    # dispatchers dropped after use: their code should be freed; a loose bound either way
    assert per_function < 512 * 1024, f"{per_function / 1024:.0f} KB per compiled function"


def test_kept_dispatchers_memory_per_function():
    a = np.arange(4.0)
    kept = []
    before = memory_in_use()
    for i in range(2000, 2200):
        ns = {}
        exec(SOURCE.format(i=i), ns)
        d = pyjit.njit(ns[f"f_{i}"])
        d(1.0, a)
        kept.append(d)
    per_function = (memory_in_use() - before) / 200
    assert per_function < 1024 * 1024, f"{per_function / 1024:.0f} KB per kept function"
    assert len(kept) == 200


def allocates_then_raises(n):
    a = np.ones(n)
    b = a * 2.0
    if b.sum() > 0:
        raise ValueError("after allocating")
    return b


def test_arrays_made_before_a_raise_are_freed():
    f = pyjit.njit(allocates_then_raises)
    for _ in range(2000):
        try:
            f(1000)
        except ValueError:
            pass
    before = memory_in_use()
    for _ in range(20_000):       # 2 * 8 KB per call: 320 MB if leaked
        try:
            f(1000)
        except ValueError:
            pass
    grown = memory_in_use() - before
    assert grown < 16 * MB, f"memory grew {grown / MB:.1f} MB"

