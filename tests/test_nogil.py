"""nogil=True: compiled code releases the GIL for the whole call, so other Python threads run while
it computes, and threads calling it give the results of a single-threaded run.

Whether the GIL is released is checked by what another thread manages to do during the call,
not by timing: the speed-up of several threads is measured by bench/threads.py (a benchmark,
not a test, since the machines running the suite are shared)."""
import threading
import time

import numpy as np

import pyjit

def spin(n, seed):
    """Pure arithmetic, no memory traffic: a Park-Miller walk (it stays well inside int64, so
    CPython gives the same numbers) mixed with floats."""
    x = seed
    acc = 0.0
    for i in range(n):
        x = (x * 48271 + i) % 2147483647
        acc += (x % 1000) * 0.001 - 0.4995
    return acc


def row_norms(a, out):
    """An array kernel: writes its result in place and returns a checksum."""
    s = 0.0
    for i in range(a.shape[0]):
        t = 0.0
        for j in range(a.shape[1]):
            t += a[i, j] * a[i, j]
        out[i] = t ** 0.5
        s += out[i]
    return s


spin_nogil = pyjit.njit(nogil=True)(spin)
row_norms_nogil = pyjit.njit(nogil=True)(row_norms)


def run_parallel(calls):
    """Runs each call (a zero-argument function) in a thread of its own, all started together;
    returns (seconds, results)."""
    results = [None] * len(calls)
    errors = []
    barrier = threading.Barrier(len(calls) + 1)

    def body(k):
        try:
            barrier.wait()
            results[k] = calls[k]()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(len(calls))]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join(timeout=120)
    elapsed = time.perf_counter() - start
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors, errors
    return elapsed, results


def calibrate(fn, make_call, target=0.15):
    """A work size for which one call takes about `target` seconds, so the timing is not noise."""
    make_call(fn, 1)()        # compile first: the compile time must not count as work
    n = 1 << 16
    while True:
        start = time.perf_counter()
        make_call(fn, n)()
        took = time.perf_counter() - start
        if took >= target / 4 or n >= 1 << 30:
            return max(n, int(n * target / max(took, 1e-6)))
        n *= 4


def progress_during_call(fn, n):
    """How many times a pure-Python thread went round its loop while fn(n, seed) was running in
    this thread; returns (count, result)."""
    state = {"running": False, "done": False, "count": 0}

    def watcher():
        while not state["done"]:
            if state["running"]:
                state["count"] += 1

    t = threading.Thread(target=watcher)
    t.start()
    state["running"] = True
    result = fn(n, 12345)
    state["running"] = False
    state["done"] = True
    t.join(timeout=60)
    assert not t.is_alive(), "the watcher thread hung"
    return state["count"], result


def test_nogil_call_lets_other_threads_run():
    spin_gil = pyjit.njit(spin)
    n = calibrate(spin_nogil, lambda fn, n: (lambda: fn(n, 12345)), target=0.3)
    spin_gil(1, 1)
    with_gil, r1 = progress_during_call(spin_gil, n)
    without_gil, r2 = progress_during_call(spin_nogil, n)
    assert r1 == r2 == spin_nogil(n, 12345)
    # Holding the GIL, the call blocks the watcher but for a switch or two around it; released,
    # the watcher runs for the whole 0.3 s call (millions of rounds on any machine).
    assert without_gil > 5 * max(with_gil, 1000), (with_gil, without_gil)


def test_nogil_results_match_the_interpreter():
    n = 5000
    for seed in (1, 7, 99):
        got = spin_nogil(n, seed)
        exp = spin(n, seed)
        assert abs(got - exp) <= 1e-9 * max(1.0, abs(exp)), (seed, got, exp)


def test_nogil_array_kernels_in_threads_match_one_thread():
    rng = np.random.default_rng(5)
    arrays = [rng.random((256, 256)) for _ in range(4)]
    outs = [np.empty(256) for _ in range(4)]
    expected = [row_norms(a, np.empty(256)) for a in arrays]
    _, results = run_parallel([(lambda k=k: row_norms_nogil(arrays[k], outs[k])) for k in range(4)])
    for got, exp in zip(results, expected):
        assert abs(got - exp) <= 1e-9 * abs(exp)
    for a, out in zip(arrays, outs):
        np.testing.assert_allclose(out, np.sqrt((a * a).sum(axis=1)), rtol=1e-12)


def test_nogil_many_threads_same_results():
    """More threads than cores: still each gets the single-threaded answer."""
    n = 20000
    expected = [spin_nogil(n, k) for k in range(8)]
    _, results = run_parallel([(lambda k=k: spin_nogil(n, k)) for k in range(8)])
    assert results == expected
