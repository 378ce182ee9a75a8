"""`with objmode(...)`: blocks run by the interpreter inside compiled code, their outputs brought
back typed; compared with the same function run by CPython."""
import math
import time

import numpy as np
import pytest

import pyjit
from pyjit import njit, objmode, prange, types
from pyjit.errors import TypingError, UnsupportedError

from util import assert_same, memory_in_use


def py_sorted_desc(a):
    return np.sort(a)[::-1].copy()


def stats(a):
    s = 0.0
    for i in range(a.size):
        s += a[i]
    with objmode(b="float64[:]", n="int64", m="float64"):
        b = py_sorted_desc(a)                       # any Python: a helper, comprehensions
        n = len([x for x in a if x > 0])
        m = float(np.median(a))
    return s + b[0] + n + m


def test_outputs_against_python():
    a = np.random.default_rng(1).normal(size=25)
    assert_same(stats(a), njit(stats)(a))


def build_list(n):
    with objmode(out="int64[:]"):
        items = []
        for i in range(n):
            if i % 3 != 1:
                items.append(i * i)
        out = np.array(items, dtype=np.int64)
    return out.sum() + out.size


def test_python_list_returned_as_array():
    for n in (0, 1, 10, 100):
        assert_same(build_list(n), njit(build_list)(n))


def timed_loop(n):
    total = 0.0
    elapsed = 0.0
    for i in range(n):
        with objmode(t0="float64"):
            t0 = time.perf_counter()
        total += math.sqrt(i)
        with objmode(t1="float64"):
            t1 = time.perf_counter()
        elapsed += t1 - t0
    return total, elapsed


def test_timing_inside_a_loop():
    total, elapsed = njit(timed_loop)(200)
    assert_same(timed_loop(200)[0], total)
    assert 0.0 <= elapsed < 5.0


def test_no_outputs_and_printing(capsys):
    def f(x, label):
        with objmode():
            print("value", label, x * 2)
        return x + 1
    assert njit(f)(20, "x") == 21
    assert capsys.readouterr().out == "value x 40\n"


def test_bare_objmode_and_numba_spelling():
    numba = pytest.importorskip("numba")

    def f(x):
        with numba.objmode(y="float64"):
            y = math.gamma(x)
        return y * 2.0
    assert_same(f(4.5), njit(f)(4.5))


def test_scipy_in_the_middle():
    special = pytest.importorskip("scipy.special")

    def f(a):
        acc = 0.0
        for i in range(a.size):
            with objmode(v="float64"):
                v = float(special.erf(a[i]))
            acc += v * v
        return acc
    a = np.linspace(-2.0, 2.0, 11)
    assert_same(f(a), njit(f)(a))


def test_scalar_conversions():
    def f(x):
        with objmode(a="int32", b="float32", c="boolean", d="complex128", e="uint8"):
            a = 7
            b = x / 3
            c = x > 1
            d = complex(x, 1)
            e = np.uint8(200)
        return a, b, c, d, e
    got = njit(f)(2.0)
    assert_same(tuple(np.array(v).astype(t).item() for v, t in zip(
        f(2.0), ("int32", "float32", "bool", "complex128", "uint8"))), got)


def test_type_objects_and_typed_containers():
    def f(n):
        with objmode(arr=types.float64[:, ::1], s=types.unicode_type, lst=types.ListType(types.int64)):
            arr = np.ones((n, 2))
            s = "n=" + str(n)
            lst = pyjit.typed.List([1, 2, n])
        return arr.sum(), s, lst[2]
    assert njit(f)(3) == (6.0, "n=3", 3)


def test_wrong_output_type_is_a_type_error():
    def f(x):
        with objmode(y="float64[:]"):
            y = [1.0, 2.0]
        return y
    with pytest.raises(TypeError, match="'y'.*declared array\\(float64, 1d, A\\).*list"):
        njit(f)(1)

    def g(x):
        with objmode(y="float64[::1]"):
            y = np.arange(4.0)[::2]
        return y
    with pytest.raises(TypeError, match="declared array\\(float64, 1d, C\\)"):
        njit(g)(1)

    def h(x):
        with objmode(y="int64"):
            y = "three"
        return y
    with pytest.raises(TypeError, match="declared int64 but the block gave str"):
        njit(h)(1)


def test_exception_propagates_unchanged():
    class Custom(Exception):
        pass

    def f(x):
        with objmode(y="float64"):
            if x < 0:
                raise Custom(f"negative: {x}")
            y = math.sqrt(x)
        return y
    c = njit(f)
    assert_same(2.0, c(4.0))
    with pytest.raises(Custom, match="negative: -1.0"):
        c(-1.0)


def test_locals_assigned_in_the_block_stay_there():
    def f(x):
        k = 10
        with objmode(y="int64"):
            k = 99              # the block's own k
            y = k + x
        return y + k            # the compiled function's k
    # Numba's rule: the block's k (99) is not the function's (10), which it does not export
    block_k, function_k = 99, 10
    assert njit(f)(1) == (block_k + 1) + function_k


def test_arrays_are_shared_with_the_block():
    def f(a):
        with objmode():
            a[0] = 42.0         # the same memory the compiled code sees
        return a[0] + 1.0
    a, b = np.zeros(3), np.zeros(3)
    assert_same(f(a), njit(f)(b))
    assert_same(a, b)


def test_nogil_and_threads():
    def f(n):
        acc = 0
        for i in range(n):
            with objmode(v="int64"):
                v = i * 2
            acc += v
        return acc
    assert njit(nogil=True)(f)(50) == f(50)


def test_in_a_parallel_function_runs_serially():
    def f(a):
        s = 0.0
        for i in prange(a.size):
            s += a[i]
        with objmode(k="int64"):
            k = a.size
        return s + k
    a = np.arange(10.0)
    assert_same(f(a), njit(parallel=True)(f)(a))


def test_unsupported_forms():
    def ret(x):
        with objmode(y="int64"):
            return 1
    with pytest.raises(UnsupportedError, match="has a return"):
        njit(ret)

    def positional(x):
        with objmode("int64"):
            pass
        return x
    with pytest.raises(UnsupportedError, match="as keywords"):
        njit(positional)

    def reflected(x):
        with objmode(y="List(int64)"):
            y = [1]
        return x
    with pytest.raises(TypeError, match="reflected list"):
        njit(reflected)


def test_input_that_cannot_be_boxed():
    def f(x):
        m = math
        with objmode(y="float64"):
            y = m.pi
        return y
    with pytest.raises(TypingError, match="cannot be handed to the interpreter"):
        njit(f)(1)


def test_interpreter_runs_the_original():
    c = njit(stats)
    a = np.arange(5.0)
    assert_same(stats(a), c.py_func(a))


def test_memory_stays_flat():
    @njit
    def f(n):
        with objmode(b="float64[:]"):
            b = np.ones(n)
        return b

    for _ in range(2000):
        f(100)
    before = memory_in_use()
    for _ in range(100_000):
        f(100)
    grown = memory_in_use() - before
    assert grown < 8 << 20, f"memory grew {grown / (1 << 20):.1f} MB over 10^5 calls"


# ---- Numba's documentation example, with the import switched -------------------------------

def bar(x):
    # This code is executed by the interpreter.
    return np.asarray(list(reversed(x.tolist())))


def foo():
    x = np.arange(5)
    y = np.zeros_like(x)
    with objmode(y="intp[:]"):   # annotate return type
        # this region is executed by object-mode.
        y += bar(x)
    return y


def test_numba_docs_example():
    assert_same(foo(), njit(foo)())
