"""Numba's prange chunk size: set_parallel_chunksize / get_parallel_chunksize and the
parallel_chunksize context manager, in Python and in compiled code. The setting is the calling
thread's, reads 0 inside a loop's body, and makes the pool hand out chunks of that many
iterations (seen in which thread ran each one). Results compared with CPython."""
import numpy as np
import pytest

import pyjit
from pyjit import (
    get_parallel_chunksize, get_thread_id, njit, parallel_chunksize, prange,
    set_parallel_chunksize,
)


@pytest.fixture(autouse=True)
def _reset():
    set_parallel_chunksize(0)
    pyjit.set_num_threads(pyjit._parallel.NUMBA_NUM_THREADS)
    yield
    set_parallel_chunksize(0)


@njit(parallel=True)
def who_ran(n):
    seen = np.zeros(n, np.int64)
    tid = np.zeros(n, np.int64)
    before = get_parallel_chunksize()
    for i in prange(n):
        seen[i] = get_parallel_chunksize()
        tid[i] = get_thread_id()
    return before, seen, tid, get_parallel_chunksize()


def runs_of(tid):
    """The lengths of the runs of one thread id."""
    cuts = np.flatnonzero(np.diff(tid)) + 1
    return np.diff(np.concatenate(([0], cuts, [len(tid)])))


def test_setting_from_python_shapes_the_chunks():
    if pyjit._parallel.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two threads")
    assert set_parallel_chunksize(4) == 0 and get_parallel_chunksize() == 4
    before, seen, tid, after = who_ran(16)
    assert before == 4 and after == 4 and not seen.any()   # 0 inside the body, as in Numba
    assert all(r % 4 == 0 for r in runs_of(tid))            # whole chunks of 4 per thread
    assert set_parallel_chunksize(0) == 4


def unbalanced(n):
    vals = np.empty(n)
    for i in prange(n):
        cur = i + 1
        for _ in range(i):
            cur = cur // 2 if cur % 2 == 0 else cur * 3 + 1
        vals[i] = cur
    return vals


def manual(n):
    acc = 0
    old = get_parallel_chunksize()
    set_parallel_chunksize(8)
    inside = get_parallel_chunksize()
    for i in prange(n):
        acc += i
    set_parallel_chunksize(old)
    return acc, inside, get_parallel_chunksize()


def with_block(n):
    acc = 0
    with parallel_chunksize(3):
        inside = get_parallel_chunksize()
        for i in prange(n):
            acc += i * i
    return acc, inside, get_parallel_chunksize()


@pytest.mark.parametrize("fn, arg", [(unbalanced, 100), (manual, 12), (with_block, 20)])
@pytest.mark.parametrize("parallel", [True, False])
def test_same_results_as_cpython(fn, arg, parallel):
    with parallel_chunksize(5):
        want = fn(arg)
        got = njit(parallel=parallel)(fn)(arg)
        assert get_parallel_chunksize() == 5
    np.testing.assert_array_equal(np.asarray(got, dtype=float), np.asarray(want, dtype=float))
    assert get_parallel_chunksize() == 0


def test_with_block_restores_after_an_exception():
    @njit
    def fails(n):
        with parallel_chunksize(7):
            if n > 0:
                raise ValueError("boom")
        return get_parallel_chunksize()

    with pytest.raises(ValueError, match="boom"):
        fails(1)
    assert get_parallel_chunksize() == 0 and fails(0) == 0


def test_bad_chunk_sizes():
    with pytest.raises(ValueError, match="greater than or equal to zero"):
        set_parallel_chunksize(-1)
    with pytest.raises(TypeError, match="takes an int"):
        set_parallel_chunksize(2.5)
    with pytest.raises(ValueError, match="greater than or equal to zero"):
        parallel_chunksize(-3)

    @njit
    def negative(n):
        return set_parallel_chunksize(n)
    with pytest.raises(ValueError, match="chunksize must be greater than or equal to zero"):
        negative(-2)
    assert get_parallel_chunksize() == 0
