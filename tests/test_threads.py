"""Threads: 8 threads compiling and calling the same and different functions at once give the
results one thread gives (compilation, type interning and the dispatcher's cache are shared)."""
import threading

import numpy as np

import pyjit

NTHREADS = 8


def poly(x, y):
    return x * x - 3 * y + x * y


def array_work(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * (i % 7)
    return s


def make_and_fill(n, v):
    out = np.empty(n)
    for i in range(n):
        out[i] = v * i
    return out


ARGS = [(3, 4), (2.5, -1.0), (np.float32(1.5), np.float32(2)), (np.int32(7), np.int32(-2)),
        (True, 3), (1 + 2j, 0.5), (np.uint8(9), np.uint8(2)), (10**9, 0.25)]


def run_threads(target, n=NTHREADS):
    barrier = threading.Barrier(n)
    results = [None] * n
    errors = []

    def body(k):
        try:
            barrier.wait()
            results[k] = target(k)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append((k, exc))

    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors, errors
    return results


def expected_for(args_list):
    return [poly(*a) for a in args_list]


def test_same_function_many_types_at_once():
    # one dispatcher, 8 threads each compiling a different type signature at the same moment
    shared = pyjit.njit(poly)

    def work(k):
        out = []
        for rep in range(50):
            a = ARGS[(k + rep) % len(ARGS)]
            out.append((a, shared(*a)))
        return out

    for out in run_threads(work):
        for a, got in out:
            exp = poly(*a)
            assert got == exp or abs(got - exp) <= 1e-6 * abs(exp), (a, got, exp)
    assert len(shared.signatures) == len(ARGS)


def test_same_signature_compiled_by_all_threads_at_once():
    shared = pyjit.njit(array_work)
    a = np.arange(1000.0)
    expected = array_work(a)
    results = run_threads(lambda k: [shared(a) for _ in range(200)])
    for r in results:
        assert all(v == expected for v in r)
    assert len(shared.signatures) == 1


def test_different_functions_per_thread():
    src = """
def f(x, n):
    s = x
    for i in range(n):
        s = s * {k} % 1000003 + i
    return s
"""

    def work(k):
        ns = {}
        exec(src.format(k=k + 2), ns)
        d = pyjit.njit(ns["f"])
        return [(d(x, 100), ns["f"](x, 100)) for x in range(20)]

    for r in run_threads(work):
        for got, exp in r:
            assert got == exp


def test_threads_creating_arrays():
    d = pyjit.njit(make_and_fill)

    def work(k):
        out = []
        for n in range(1, 200, 7):
            r = d(n, float(k))
            out.append((n, k, r))
        return out

    for r in run_threads(work):
        for n, k, arr in r:
            np.testing.assert_array_equal(arr, make_and_fill(n, float(k)))


def test_nogil_functions_in_threads():
    d = pyjit.njit(nogil=True)(array_work)
    arrays = [np.random.default_rng(k).random(100_000) for k in range(NTHREADS)]
    expected = [array_work(a) for a in arrays]
    results = run_threads(lambda k: d(arrays[k]))
    for got, exp in zip(results, expected):
        assert abs(got - exp) <= 1e-9 * abs(exp)


def test_compile_errors_in_threads():
    def bad(x):
        d = {1j: x}   # complex numbers are no keys in compiled code
        return d

    def work(k):
        try:
            pyjit.njit(bad)(k)
        except pyjit.errors.UnsupportedError as exc:
            return str(exc)
        return None

    msgs = run_threads(work)
    assert all(m is not None and "bad" in m for m in msgs)
    assert len(set(msgs)) == 1
