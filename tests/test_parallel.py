"""@njit(parallel=True) with prange: loops outlined onto the thread pool (pyjit/_parallel.py,
runtime/pool.c). Each function is compared with CPython running the same source (prange is range
there) and, where it says something, with NumPy; float reductions within a tolerance (the
partials of the threads reassociate the sum), ints exactly."""
import multiprocessing
import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

import pyjit
from pyjit import njit, prange
from pyjit.errors import ParallelSafetyWarning, PerformanceWarning, UnsupportedError
from util import check, memory_in_use

par = njit(parallel=True)
RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def all_threads():
    """Every test starts (and leaves the others) with the pool's full size."""
    pyjit.set_num_threads(pyjit._parallel.NUMBA_NUM_THREADS)
    yield
    pyjit.set_num_threads(pyjit._parallel.NUMBA_NUM_THREADS)


# ---- loops and range forms -----------------------------------------------------------------

def fill(a):
    for i in prange(a.shape[0]):
        a[i] = i * 2 + 1
    return a


def fill_range(a, start, stop, step):
    for i in prange(start, stop, step):
        a[i] += i
    return a


def fill_from(a, start):
    for i in prange(start, a.shape[0]):
        a[i] = i
    return a


@pytest.mark.parametrize("n", [0, 1, 7, 1000, 100003])
def test_distinct_elements(n):
    check(fill, np.zeros(n, np.int64), parallel=True, exact=True)


@pytest.mark.parametrize("start,stop,step", [(0, 100, 1), (5, 90, 3), (99, -1, -1), (90, 3, -7),
                                             (5, 5, 1), (10, 0, 1), (0, 100, 0), (3, 100, 200)])
def test_range_forms(start, stop, step):
    check(fill_range, np.zeros(100, np.int64), start, stop, step, parallel=True, exact=True)


@pytest.mark.parametrize("start", [0, 3, 99, 150])
def test_start_stop(start):
    check(fill_from, np.zeros(100, np.int64), start, parallel=True, exact=True)


def pairwise(X):
    n = X.shape[0]
    D = np.empty((n, n))
    for i in prange(n):
        for j in range(n):
            s = 0.0
            for k in range(X.shape[1]):
                t = X[i, k] - X[j, k]
                s += t * t
            D[i, j] = np.sqrt(s)
    return D


def test_pairwise_against_numpy():
    X = RNG.random((300, 3))
    got = par(pairwise)(X)
    want = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def scaled(a, k, offset):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        out[i] = a[i] * k + offset[i % offset.shape[0]]
    return out


def test_outer_reads():
    check(scaled, RNG.random(1000), 2.5, RNG.random(7), parallel=True)


# ---- reductions ---------------------------------------------------------------------------

def r_add(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


def r_add_int_to_float(a):
    s = 0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


def r_sub(a):
    s = 100
    for i in prange(a.shape[0]):
        s -= a[i]
    return s


def r_mul(a):
    p = 1.0
    for i in prange(a.shape[0]):
        p *= a[i]
    return p


def r_min_max(a):
    lo = a[0]
    hi = a[0]
    for i in prange(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(a[i], hi)
    return lo, hi


def r_or_and(a):
    o = 0
    n = -1
    for i in prange(a.shape[0]):
        o |= a[i]
        n &= a[i] | 1024
    return o, n


def r_several(a, b):
    s = 0.0
    c = 0
    for i in prange(a.shape[0]):
        if a[i] > 0.5:
            c += 1
        s += a[i] * b[i]
    return s, c


def r_spelled_out(a, b):
    s = 0.0
    p = 1.0
    d = 0
    m = a[0]
    for i in prange(a.shape[0]):
        s = s + a[i]
        p = a[i] * p
        d = d - b[i]
        m = max(m, a[i])
    return s, p, d, m


def test_reductions_spelled_out():
    check(r_spelled_out, 1 + RNG.random(3001) * 1e-4, RNG.integers(0, 9, 3001), parallel=True,
          rtol=1e-12)
    text = par(r_spelled_out).parallel_diagnostics()
    assert "d -" in text and "m max" in text and "p *" in text and "s +" in text


def test_sum_against_numpy():
    x = RNG.random(10**6)
    assert par(r_add)(x) == pytest.approx(x.sum(), rel=1e-12)
    check(r_add, x, parallel=True, rtol=1e-12)


def test_sum_ints_exact():
    check(r_add, RNG.integers(-1000, 1000, 100001), parallel=True, exact=True)
    check(r_sub, RNG.integers(-1000, 1000, 100001), parallel=True, exact=True)


def test_int_accumulator_takes_floats():
    check(r_add_int_to_float, RNG.random(10001), parallel=True, rtol=1e-12)


def test_sub_and_mul():
    check(r_sub, RNG.random(10001), parallel=True, rtol=1e-12)
    check(r_mul, 1 + RNG.random(5000) * 1e-4, parallel=True, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_min_max(dtype):
    x = (RNG.random(10007) * 1000).astype(dtype)
    got = par(r_min_max)(x)
    assert got == (x.min(), x.max())
    check(r_min_max, x, parallel=True, exact=True)


def test_or_and():
    check(r_or_and, RNG.integers(0, 1 << 20, 10007), parallel=True, exact=True)


def test_several_reductions():
    check(r_several, RNG.random(10007), RNG.random(10007), parallel=True, rtol=1e-12)


def test_empty_loop_keeps_initial_values():
    check(r_min_max, np.array([3.0]), parallel=True, exact=True)
    check(r_add, np.zeros(0), parallel=True, exact=True)


def histogram(x, nbins):
    hist = np.zeros(nbins, np.int64)
    for i in prange(x.shape[0]):
        b = np.zeros(nbins, np.int64)
        b[min(int(x[i] * nbins), nbins - 1)] = 1
        hist += b
    return hist


def histogram_2d(x):
    h = np.zeros((3, 4))
    for i in prange(x.shape[0]):
        h += x[i]
    return h


def test_array_reduction():
    x = RNG.random(20000)
    got = par(histogram)(x, 16)
    np.testing.assert_array_equal(got, np.histogram(x, 16, (0, 1))[0])
    check(histogram, x, 16, parallel=True, exact=True)


def test_array_reduction_2d():
    check(histogram_2d, RNG.random((500, 3, 4)), parallel=True, rtol=1e-12)


def with_continue(a, n):
    s = 0
    for i in prange(n):
        if a[i] % 2 == 0:
            continue
        s += a[i]
    return s


def inside_a_loop(a, rounds):
    total = 0.0
    for t in range(rounds):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i] * t
        total += s
    return total


def complex_sum(a):
    s = 0j
    for i in prange(a.shape[0]):
        s += a[i] * 1j
    return s


def any_above(a, k):
    found = False
    for i in prange(a.shape[0]):
        found |= a[i] > k
    return found


def scale(a, factor=2.0):
    for i in prange(len(a)):
        a[i] *= factor
    return a


@pytest.mark.parametrize("n", [100, np.int32(100), np.uint64(77)])
def test_continue_and_count_types(n):
    check(with_continue, np.arange(100), n, parallel=True, exact=True)


def test_more_reductions():
    check(inside_a_loop, RNG.random(1001), 5, parallel=True, rtol=1e-12)
    check(complex_sum, RNG.random(1001), parallel=True, rtol=1e-12)
    check(any_above, np.arange(100), 50, parallel=True, exact=True)
    check(any_above, np.arange(100), 500, parallel=True, exact=True)


def test_defaults_and_keywords():
    f = par(scale)
    np.testing.assert_array_equal(f(np.ones(5)), scale(np.ones(5)))
    np.testing.assert_array_equal(f(np.ones(5), factor=3.0), scale(np.ones(5), 3.0))


# ---- exceptions ---------------------------------------------------------------------------

def out_of_bounds(a, k):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i + k]
    return s


def divide(a):
    s = 0
    for i in prange(a.shape[0]):
        s += 10 // a[i]
    return s


def user_raise(a):
    for i in prange(a.shape[0]):
        if a[i] > 5000:
            raise ValueError("too big", i)
    return 0


def test_exceptions_propagate():
    f = par(out_of_bounds)
    with pytest.raises(IndexError, match="out of bounds"):
        f(np.ones(100000), 3)
    assert f(np.ones(100000), 0) == 100000.0   # the pool survives
    x = np.ones(100000, np.int64)
    x[77777] = 0
    with pytest.raises(ZeroDivisionError):
        par(divide)(x)
    g = par(user_raise)
    with pytest.raises(ValueError, match="too big") as info:
        g(np.arange(100000.0))
    assert info.value.args[1] > 5000
    for _ in range(20):
        with pytest.raises(ValueError):
            g(np.arange(100000.0))
    assert g(np.arange(10.0)) == 0


# ---- loops that run serially, and refusals ------------------------------------------------

def dependence(a):
    for i in prange(1, a.shape[0]):
        a[i] = a[i - 1] + 1
    return a


def test_dependence_warns_and_runs_serially():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = par(dependence)
    found = [w for w in caught if issubclass(w.category, ParallelSafetyWarning)]
    assert found and issubclass(ParallelSafetyWarning, PerformanceWarning)
    line = dependence.__code__.co_firstlineno + 2
    assert found[0].lineno == line and "a[i - 1]" in str(found[0].message)
    assert pyjit.errors.NumbaParallelSafetyWarning is ParallelSafetyWarning
    check(dependence, np.zeros(1000), jit=f, exact=True)
    assert "serially" in f.parallel_diagnostics()


def grow_shared_list(n):
    z = []
    for i in prange(n):
        z.append(i * i)
    return z


def grow_private_list(n):
    total = 0
    for i in prange(n):
        mine = []
        mine.append(i)
        total += len(mine)
    return total


def test_growing_a_shared_container_warns_and_runs_serially():
    # Numba's parallel docs call z.append(i) in a prange loop invalid (a race)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = par(grow_shared_list)
        g = par(grow_private_list)
    found = [w for w in caught if issubclass(w.category, ParallelSafetyWarning)]
    assert len(found) == 1 and "z.append(i * i)" in str(found[0].message)
    assert found[0].lineno == grow_shared_list.__code__.co_firstlineno + 3
    assert f(5000) == grow_shared_list(5000)
    assert g(3000) == grow_private_list(3000)


def nested(a):
    s = 0.0
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            s += a[i, j]
    return s


def test_nested_prange():
    f = par(nested)
    check(nested, RNG.random((60, 70)), jit=f, rtol=1e-12)
    text = f.parallel_diagnostics()
    assert text.count("in parallel") == 1


def with_break(a):
    s = 0
    for i in prange(a.shape[0]):
        if a[i] < 0:
            break
        s += a[i]
    return s


def test_break_runs_serially():
    f = par(with_break)
    check(with_break, np.array([1, 2, -1, 5]), jit=f, exact=True)
    assert "a break at line" in f.parallel_diagnostics()


def test_private_read_after_loop_refused():
    def last(a):
        for i in prange(a.shape[0]):
            t = a[i] * 2
        return t
    with pytest.raises(UnsupportedError) as info:
        par(last)
    first = last.__code__.co_firstlineno
    assert f"line {first + 1}" in str(info.value) and f"line {first + 3}" in str(info.value)
    assert "'t'" in str(info.value)


def nothing(x):
    return x + 1


def test_nothing_to_parallelise():
    f = par(nothing)
    assert f(3) == 4
    assert "no prange loop" in f.parallel_diagnostics()


def test_prange_without_parallel_is_range():
    check(r_add, RNG.random(1001), rtol=1e-12)
    check(r_add, RNG.random(1001), parallel=False, rtol=1e-12)
    assert list(prange(2, 10, 3)) == list(range(2, 10, 3))


def calls_parallel(a):
    return par_sum(a) * 2


par_sum = njit(parallel=True)(r_add)


def test_called_from_compiled_code():
    x = RNG.random(10001)
    assert njit(calls_parallel)(x) == pytest.approx(2 * x.sum(), rel=1e-12)


def test_diagnostics_names_the_loops(capsys):
    f = par(r_several)
    text = f.parallel_diagnostics(level=1)
    line = r_several.__code__.co_firstlineno + 3
    assert f"line {line}: prange loop runs in parallel" in text
    assert "c +" in text and "s +" in text
    assert text in capsys.readouterr().out


# ---- threads ------------------------------------------------------------------------------

def thread_ids(out):
    for i in prange(out.shape[0]):
        x = 0.0
        for k in range(2000):
            x += np.sin(k * 1e-3 + i)
        out[i] = pyjit.get_thread_id() + 0 * x
    return pyjit.get_num_threads()


def test_thread_count_api():
    size = pyjit._parallel.NUMBA_NUM_THREADS
    assert pyjit.get_num_threads() == size
    assert pyjit.get_thread_id() == 0
    with pytest.raises(ValueError, match=f"between 1 and {size}"):
        pyjit.set_num_threads(size + 1)
    with pytest.raises(ValueError):
        pyjit.set_num_threads(0)
    with pytest.raises(TypeError, match="integer"):
        pyjit.set_num_threads(1.5)
    f = par(thread_ids)
    out = np.full(2000, -1.0)
    assert f(out) == size
    assert out.min() >= 0 and out.max() < size
    pyjit.set_num_threads(1)
    assert pyjit.get_num_threads() == 1
    assert f(out) == 1
    assert (out == 0).all()


def test_set_num_threads_is_per_thread():
    pyjit.set_num_threads(1)
    seen = []
    t = threading.Thread(target=lambda: seen.append(pyjit.get_num_threads()))
    t.start()
    t.join()
    assert seen == [pyjit._parallel.NUMBA_NUM_THREADS] and pyjit.get_num_threads() == 1


@pytest.mark.parametrize("var", ["PYJIT_NUM_THREADS", "NUMBA_NUM_THREADS"])
def test_num_threads_from_environment(var):
    code = ("import pyjit, numpy as np\n"
            "f = pyjit.njit(parallel=True)(lambda a: a)\n"
            "print(pyjit.get_num_threads())\n"
            "try:\n    pyjit.set_num_threads(4)\nexcept ValueError as e:\n    print(e)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("PYJIT_NUM_THREADS", None)
    env.pop("NUMBA_NUM_THREADS", None)
    env[var] = "3"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[0] == "3" and "between 1 and 3" in out[1]


def test_default_is_the_affinity_mask():
    assert pyjit._parallel.NUMBA_NUM_THREADS == int(
        os.environ.get("PYJIT_NUM_THREADS") or os.environ.get("NUMBA_NUM_THREADS") or
        len(os.sched_getaffinity(0)))


def test_python_threads_at_once():
    f = par(r_add)
    x = RNG.random(200001)
    want = x.sum()
    results = []

    def run():
        for _ in range(50):
            results.append(f(x))
    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 200
    assert all(abs(r - want) <= 1e-9 * abs(want) for r in results)


def _child(q):
    x = np.arange(100001, dtype=np.float64)
    q.put((par_sum(x), pyjit.get_num_threads()))


def test_fork_child():
    x = np.arange(100001, dtype=np.float64)
    assert par_sum(x) == x.sum()   # the parent's pool is running
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q,))
    p.start()
    got, nthreads = q.get(timeout=120)
    p.join(60)
    assert p.exitcode == 0 and got == x.sum()
    assert nthreads == pyjit.get_num_threads()


# ---- memory --------------------------------------------------------------------------------

def test_calls_keep_memory_flat():
    f = par(histogram)
    g = par(r_min_max)
    x = RNG.random(1000)
    for _ in range(1000):
        f(x, 8)
        g(x)
    before = memory_in_use()
    for _ in range(10000):
        f(x, 8)
        g(x)
    assert memory_in_use() - before < 4 << 20
    from pyjit import _core
    live = _core.nrt_live()
    f(x, 8)
    assert _core.nrt_live() == live


# ---- array expressions and reductions on the pool ------------------------------------------

def expr_fused(a, b, c):
    return a * b + c


def expr_math(a, b):
    return np.sqrt(a) + np.exp(-b) * 2.0


def expr_outer(a, b):
    return a[:, None] - b[None, :]


def fill_slice(a, v):
    a[:] = v
    return a


def add_into(a, b):
    a += b
    return a


# sizes below and above the pool's threshold, and one not a multiple of a chunk
SIZES = [0, 5, 32767, 32768, 100003]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_array_expressions(n, dtype):
    a, b, c = ((RNG.random(n) * 10).astype(dtype) for _ in range(3))
    for f, args in ((expr_fused, (a, b, c)), (expr_math, (a, b)), (fill_slice, (a.copy(), 3)),
                    (add_into, (a.copy(), b))):
        got = par(f)(*[x.copy() if isinstance(x, np.ndarray) else x for x in args])
        serial = njit(f)(*[x.copy() if isinstance(x, np.ndarray) else x for x in args])
        np.testing.assert_array_equal(got, serial)   # the same element code, on the pool
        np.testing.assert_allclose(got, f(*args), rtol=1e-6 if dtype is np.float32 else 1e-15)


@pytest.mark.parametrize("rows", [1, 7, 400])
def test_array_broadcast_and_views(rows):
    x, y = RNG.random(rows), RNG.random(300)
    m = RNG.random((rows, 600))
    for f, args in ((expr_outer, (x, y)), (expr_fused, (m[:, ::2], m[:, 1::2], 1.5)),
                    (expr_math, (m.T, m.T))):
        got = par(f)(*args)
        np.testing.assert_array_equal(got, njit(f)(*args))
        np.testing.assert_allclose(got, f(*args), rtol=1e-15)


REDUCTIONS = ["a.sum()", "np.sum(a)", "a.mean()", "a.prod()", "a.min()", "a.max()",
              "np.nanmin(a)", "np.nanmax(a)"]


def reduction(expr):
    ns = {"np": np}
    exec(f"def f(a):\n    return {expr}\n", ns)
    return ns["f"]


@pytest.mark.parametrize("expr", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("n", [0, 1, 32767, 32768, 1000003])
def test_reductions(expr, dtype, n):
    if dtype is np.bool_ and "nan" in expr:
        pytest.skip("NumPy has no nanmin of bools to compare with")
    a = (RNG.random(n) * 3).astype(dtype)
    if dtype is np.float64 and n > 10:
        a[n // 3] = np.nan
    f = reduction(expr)
    try:
        want = f(a)
    except ValueError:
        with pytest.raises(ValueError):
            par(f)(a)
        return
    got = par(f)(a)
    if "prod" in expr and dtype is not np.bool_:
        return   # wraps or overflows to inf alike; the order of the products differs
    rtol = 1e-4 if dtype is np.float32 else 1e-9
    np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)


def test_reduction_independent_of_threads():
    """The partials are per block, folded in block order: the same sum on any thread count."""
    a = RNG.random(10**6)
    f = par(reduction("a.sum()"))
    sums = set()
    for k in range(1, pyjit._parallel.NUMBA_NUM_THREADS + 1):
        pyjit.set_num_threads(k)
        sums.add(f(a))
    assert len(sums) == 1
    np.testing.assert_allclose(sums.pop(), a.sum(), rtol=1e-12)


def array_product(n, shape):
    result = 2 * np.ones(shape, np.int64)
    tmp = 2 * np.ones_like(result)
    for i in prange(n):
        result *= tmp
    return result


def array_product_float(n):
    acc = np.full(3, 1.5)
    for i in prange(n):
        acc *= 1.0 + (i % 3) * 0.5
    return acc


def test_array_product_reduction_starts_each_thread_at_one():
    # Numba's parallel guide: result1 *= tmp over a prange loop (each partial starts at ones)
    for n in (0, 1, 3, 9):
        np.testing.assert_array_equal(par(array_product)(n, (13, 17)), array_product(n, (13, 17)))
    np.testing.assert_allclose(par(array_product_float)(200), array_product_float(200))
