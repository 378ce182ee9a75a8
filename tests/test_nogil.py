"""nogil=True: compiled code releases the GIL, so Python threads calling a compute-bound nogil
function run at once on several cores and finish sooner than the same calls made one after the
other; the results are those of a single-threaded run.

The machine running the suite may be shared and loaded, so timings are the best of several
tries and the speed-up required is modest (1.3x with 2 threads, where 2.0x is ideal)."""
import os
import threading
import time

import numpy as np
import pytest

import pyjit

pytestmark = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs 2 or more CPU cores")

NTHREADS = 2
TRIES = 5
MIN_SPEEDUP = 1.3


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


def run_serial(calls):
    start = time.perf_counter()
    results = [c() for c in calls]
    return time.perf_counter() - start, results


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


def best_speedup(calls):
    """Best serial time over best parallel time, over TRIES tries each, interleaved so that
    a burst of load on the machine hits both; also the results of every run."""
    serial, parallel, outs = [], [], []
    for _ in range(TRIES):
        t, r = run_serial(calls)
        serial.append(t)
        outs.append(r)
        t, r = run_parallel(calls)
        parallel.append(t)
        outs.append(r)
        if min(serial) / min(parallel) >= MIN_SPEEDUP * 1.15:
            break             # clearly parallel already: spare the machine the other tries
    return min(serial) / min(parallel), outs


def test_nogil_scalar_loop_runs_in_parallel():
    def make_call(fn, n, seed=12345):
        return lambda: fn(n, seed)

    n = calibrate(spin_nogil, make_call)
    calls = [make_call(spin_nogil, n, seed=1000 + k) for k in range(NTHREADS)]
    expected = [spin_nogil(n, 1000 + k) for k in range(NTHREADS)]
    speedup, outs = best_speedup(calls)
    for r in outs:
        assert r == expected          # bit for bit: each thread computes what one thread does
    assert speedup >= MIN_SPEEDUP, f"{NTHREADS} threads ran only {speedup:.2f}x faster than serial"


def test_nogil_results_match_the_interpreter():
    n = 5000
    for seed in (1, 7, 99):
        got = spin_nogil(n, seed)
        exp = spin(n, seed)
        assert abs(got - exp) <= 1e-9 * max(1.0, abs(exp)), (seed, got, exp)


def test_nogil_array_kernel_runs_in_parallel():
    rng = np.random.default_rng(5)
    arrays = [rng.random((256, 256)) for _ in range(NTHREADS)]
    outs = [np.empty(256) for _ in range(NTHREADS)]
    row_norms_nogil(arrays[0], outs[0])
    expected = [row_norms_nogil(a, np.empty(256)) for a in arrays]
    expected_rows = [np.sqrt((a * a).sum(axis=1)) for a in arrays]

    reps = 1
    while True:                  # repeat the call inside each thread until one run is long enough
        start = time.perf_counter()
        for _ in range(reps):
            row_norms_nogil(arrays[0], outs[0])
        if time.perf_counter() - start >= 0.1 or reps >= 1 << 16:
            break
        reps *= 2

    def make_call(k):
        def call():
            s = None
            for _ in range(reps):
                s = row_norms_nogil(arrays[k], outs[k])
            return s
        return call

    speedup, results = best_speedup([make_call(k) for k in range(NTHREADS)])
    for r in results:
        assert r == expected
    for out, exp in zip(outs, expected_rows):
        np.testing.assert_allclose(out, exp, rtol=1e-12)
    assert speedup >= MIN_SPEEDUP, f"{NTHREADS} threads ran only {speedup:.2f}x faster than serial"


def test_nogil_many_threads_same_results():
    """More threads than cores: still each gets the single-threaded answer."""
    n = 20000
    expected = [spin_nogil(n, k) for k in range(8)]
    _, results = run_parallel([(lambda k=k: spin_nogil(n, k)) for k in range(8)])
    assert results == expected
