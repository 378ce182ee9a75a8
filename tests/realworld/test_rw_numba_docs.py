"""Numba's own documentation for CPU code, with the import switched to pyjit.

Users copy the examples of Numba's user guide first: the five-minute guide, @jit and its
options, @vectorize and @guvectorize (dynamic ufuncs, reduce/accumulate, writable_args, a
gufunc called from compiled code), @stencil (neighborhood, standard_indexing, cval, out=),
@cfunc (scipy integrands, carray callbacks, C structs from Record.make_c_struct and from cffi
declarations), objmode, parallel=True (the reductions of the parallel guide, its invalid list
append, parallel_chunksize), the performance tips' fastmath flag sets, the FAQ's functions as
arguments and the troubleshooting page's typing errors. Restated here in our own words, with
the same APIs and idioms; each result is compared with CPython/NumPy running the same source,
and with Numba (when installed) where the answer is Numba's own (wrapping int32 signatures, the
loops a dynamic ufunc holds). Companion file: test_rw_numba_docs_ext.py (jitclass, typed
containers, structref, extending).
"""
import ctypes
import math
import threading
import types as pytypes
import warnings

import numpy as np
import pytest

import pyjit
from pyjit import (
    carray, cfunc, float32, float64, guvectorize, int32, int64, jit, njit, objmode, prange,
    stencil, types, vectorize,
)
from pyjit.errors import ParallelSafetyWarning, TypingError

try:
    import numba
except ImportError:   # the comparisons with Numba's own answers are skipped without it
    numba = None


# ---- the five-minute guide and @jit ----

def trace_plus(a):
    trace = 0.0
    for i in range(a.shape[0]):        # loops and NumPy functions, then broadcasting
        trace += np.tanh(a[i, i])
    return a + trace


def escape_time(x, y, max_iters):
    c = complex(x, y)
    z = 0.0j
    for i in range(max_iters):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i
    return 255


def fractal(min_x, max_x, min_y, max_y, image, iters):
    height, width = image.shape
    px = (max_x - min_x) / width
    py = (max_y - min_y) / height
    for x in range(width):
        real = min_x + x * px
        for y in range(height):
            image[y, x] = escape_time(real, min_y + y * py, iters)
    return image


def test_five_minute_guide_and_mandelbrot():
    x = np.arange(64).reshape(8, 8)
    np.testing.assert_allclose(jit(trace_plus)(x), trace_plus(x))
    np.testing.assert_allclose(jit(nopython=True)(trace_plus)(x), trace_plus(x))
    # the same source, its callee the jitted escape_time as the docs decorate both
    compiled = pytypes.FunctionType(fractal.__code__, dict(
        globals(), escape_time=jit(nopython=True)(escape_time)))
    args = (-2.0, 1.0, -1.0, 1.0)
    got = jit(nopython=True)(compiled)(*args, np.zeros((24, 36), np.uint8), 20)
    np.testing.assert_array_equal(got, fractal(*args, np.zeros((24, 36), np.uint8), 20))


def add_any(x, y):
    return x + y


def square(x):
    return x ** 2


def test_jit_lazy_and_eager_signatures():
    f = jit(add_any)
    assert f(1, 2) == 3 and f(1j, 2) == 2 + 1j and f(1.5, 2) == 3.5
    eager = jit(int32(int32, int32))(add_any)
    assert eager(1, 2) == 3
    big = eager(2 ** 31, 2 ** 31 + 1)           # the arguments wrap to int32, and the sum
    if numba is not None:
        assert big == numba.jit(numba.int32(numba.int32, numba.int32))(add_any)(2 ** 31, 2 ** 31 + 1)
    assert big == 1
    sq = jit(square)

    def hypot(x, y):
        return math.sqrt(sq(x) + sq(y))
    assert jit(hypot)(3.0, 4.0) == 5.0
    for opts in ({"nogil": True}, {"cache": False}, {"nopython": True, "parallel": True},
                 {"fastmath": {"reassoc", "nsz"}}, {"error_model": "numpy"}, {"boundscheck": True}):
        assert jit(**opts)(add_any)(2.5, 1) == 3.5


def exp_into(result, a, b):
    for i in range(len(result)):
        result[i] = math.exp(2.1 * a[i] + 3.2 * b[i])


def test_nogil_threads_share_the_work():
    inner = jit("void(double[:], double[:], double[:])", nopython=True, nogil=True)(exp_into)
    rng = np.random.default_rng(1)
    a, b = rng.random(40_000), rng.random(40_000)
    result = np.empty_like(a)
    chunk = (len(a) + 3) // 4
    args = [(result[i * chunk:(i + 1) * chunk], a[i * chunk:(i + 1) * chunk],
             b[i * chunk:(i + 1) * chunk]) for i in range(4)]
    threads = [threading.Thread(target=inner, args=part) for part in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_allclose(result, np.exp(2.1 * a + 3.2 * b))


# ---- @vectorize and @guvectorize ----

def plus(x, y):
    return x + y


def times(x, y):
    return x * y


def test_vectorize_with_signatures_and_methods():
    f = vectorize([int32(int32, int32), int64(int64, int64), float32(float32, float32),
                   float64(float64, float64)])(plus)
    a = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(f(a, a), np.add(a, a))
    lin = np.linspace(0, 1, 6)
    np.testing.assert_allclose(f(lin, lin), lin + lin)
    np.testing.assert_array_equal(f.reduce(a, axis=0), np.add.reduce(a, axis=0))
    np.testing.assert_array_equal(f.reduce(a, axis=1), np.add.reduce(a, axis=1))
    np.testing.assert_array_equal(f.accumulate(a), np.add.accumulate(a))
    np.testing.assert_array_equal(f.accumulate(a, axis=1), np.add.accumulate(a, axis=1))
    one = vectorize([float64(float64, float64)])(plus)
    assert one(1.5, 2.0) == 3.5


def test_dynamic_ufunc_loops_as_numba_lists_them():
    f = vectorize(times)
    g = vectorize(lambda a, b: a / b)
    steps = [(f, (3, 4)), (f, (1.0, 2.0)), (f, (1, 2.0)), (g, (2.0, 3.0)), (g, (2, 3))]
    got = [(fn(*args), list(fn.types)) for fn, args in steps]
    assert [r for r, _ in got] == [12, 2.0, 2.0, 2.0 / 3.0, 2.0 / 3.0]
    assert got[2][1] == ["ll->l", "dd->d"] and got[4][1] == ["dd->d"]
    if numba is not None:
        nf, ng = numba.vectorize(times), numba.vectorize(lambda a, b: a / b)
        fns = {id(f): nf, id(g): ng}
        want = [(fns[id(fn)](*args), list(fns[id(fn)].types)) for fn, args in steps]
        assert got == want


def moving_mean(a, window_arr, out):
    width = window_arr[0]
    asum = 0.0
    count = 0
    for i in range(width):
        asum += a[i]
        count += 1
        out[i] = asum / count
    for i in range(width, len(a)):
        asum += a[i] - a[i - width]
        out[i] = asum / count


def shift(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y


def shifted_sum(x, y, res):
    acc = 0
    for i in range(x.shape[0]):
        acc += x[i] + y
    res[0] = acc


def test_guvectorize_layouts():
    mm = guvectorize(["void(float64[:], intp[:], float64[:])"], "(n),()->(n)")(moving_mean)
    arr = np.arange(20, dtype=np.float64).reshape(2, 10)
    want = np.empty_like(arr)
    for row, out in zip(arr, want):
        moving_mean(row, np.array([3]), out)
    np.testing.assert_allclose(mm(arr, 3), want)
    g = guvectorize([(int64[:], int64, int64[:])], "(n),()->(n)")(shift)
    a = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(g(np.arange(5), 2), np.arange(5) + 2)
    np.testing.assert_array_equal(g(a, 10), a + 10)
    np.testing.assert_array_equal(g(a, np.array([10, 20])), a + np.array([[10], [20]]))
    s = guvectorize([(int64[:], int64, int64[:])], "(n),()->()")(shifted_sum)
    r = s(np.arange(5), 2)
    assert r == (np.arange(5) + 2).sum() and isinstance(r, np.integer)
    dyn = guvectorize("(n),()->(n)")(shift)
    x, res = np.arange(5, dtype=np.int64), np.zeros(5, np.int64)
    dyn(x, 10, res)
    np.testing.assert_array_equal(res, x + 10)
    xf, resf = np.arange(5.0), np.zeros(5)
    dyn(xf, 2.2, resf)
    np.testing.assert_allclose(resf, xf + 2.2)
    assert dyn.types == ["ll->l", "dd->d"]


def init_values(invals, outvals):
    invals[0] = 6.5
    outvals[0] = 4.2


def copy_core(x, res):
    for i in range(x.shape[0]):
        res[i] = x[i]


def test_guvectorize_overwrite_and_calls_from_jit():
    plain = guvectorize([(float64[:], float64[:])], "()->()")(init_values)
    same = np.zeros((3, 3))
    np.testing.assert_allclose(plain(same), np.full((3, 3), 4.2))
    np.testing.assert_allclose(same, np.full((3, 3), 6.5))     # float64: written in place
    cast = np.zeros((3, 3), np.float32)
    plain(cast)
    assert not cast.any()                                        # cast copy: left alone
    writable = guvectorize([(float64[:], float64[:])], "()->()",
                           writable_args=("invals",))(init_values)
    writable(cast)
    np.testing.assert_allclose(cast, np.full((3, 3), 6.5))
    copy = guvectorize("(n)->(n)")(copy_core)

    @jit(nopython=True)
    def jit_fn(x, res):
        copy(x, res)

    x = np.arange(5, dtype="i4")
    res = np.zeros_like(x)
    jit_fn(x, res)
    np.testing.assert_array_equal(res, x)
    with pytest.raises(ValueError, match="Loop and array shapes are incompatible"):
        jit_fn(np.ones((1, 5)), np.empty(5))


# ---- @stencil ----

def test_stencils_as_documented():
    @stencil
    def kernel1(a):
        return 0.25 * (a[0, 1] + a[1, 0] + a[0, -1] + a[-1, 0])

    grid = np.arange(100).reshape(10, 10)
    want = np.zeros((10, 10))
    want[1:-1, 1:-1] = 0.25 * (grid[1:-1, 2:] + grid[2:, 1:-1] + grid[1:-1, :-2] + grid[:-2, 1:-1])
    got = kernel1(grid)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want)
    out = np.full(grid.shape, -1.0)
    kernel1(grid, out=out)                          # the border left as it was
    np.testing.assert_allclose(out[1:-1, 1:-1], want[1:-1, 1:-1])
    assert (out[0] == -1.0).all()

    @stencil(neighborhood=((-29, 0),))
    def trailing_mean(a):
        cumul = 0
        for i in range(-29, 1):
            cumul += a[i]
        return cumul / 30

    series = np.arange(60.0) ** 1.5
    tm = trailing_mean(series)
    np.testing.assert_allclose(tm[29:], np.convolve(series, np.ones(30) / 30, "valid"))
    assert not tm[:29].any()

    @stencil(standard_indexing=("b",))
    def kernel3(a, b):
        return a[-1] * b[0] + a[0] + b[1]

    a1, w = np.arange(10.0), np.array([2.0, 3.0])
    k3 = kernel3(a1, w)
    np.testing.assert_allclose(k3[1:], a1[:-1] * 2.0 + a1[1:] + 3.0)

    @stencil(cval=-5.0)
    def diff(a):
        return a[1] - a[-1]

    @njit
    def called_from_jit(a):
        return diff(a)

    np.testing.assert_allclose(called_from_jit(a1), np.r_[-5.0, np.full(8, 2.0), -5.0])


# ---- @cfunc ----

def test_cfunc_callbacks():
    add = cfunc("float64(float64, float64)")(add_any)
    assert add.ctypes(4.0, 5.0) == 9.0
    si = pytest.importorskip("scipy.integrate")

    def integrand(t):
        return np.exp(-t) / t ** 2

    nb_integrand = cfunc("float64(float64)")(integrand)
    assert si.quad(nb_integrand.ctypes, 1, np.inf)[0] == pytest.approx(si.quad(integrand, 1, np.inf)[0])

    c_sig = types.void(types.CPointer(types.double), types.CPointer(types.double),
                       types.intc, types.intc)

    @cfunc(c_sig)
    def doubler(in_, out, m, n):
        in_array = carray(in_, (m, n))
        out_array = carray(out, (m, n))
        for i in range(m):
            for j in range(n):
                out_array[i, j] = 2 * in_array[i, j]

    src = np.arange(12.0).reshape(3, 4)
    dst = np.zeros_like(src)
    ptr = ctypes.POINTER(ctypes.c_double)
    doubler.ctypes(src.ctypes.data_as(ptr), dst.ctypes.data_as(ptr), 3, 4)
    np.testing.assert_array_equal(dst, 2 * src)


def struct_total(ptr, n):
    base = carray(ptr, n)
    tmp = 0.0
    for i in range(n):
        tmp += base[i].i1 * base[i].f2 / base[i].d3
        tmp += base[i].af4.sum()
    return tmp


def test_cfunc_over_c_structs():
    dt = np.dtype([("i1", np.int32), ("f2", np.float32), ("d3", np.float64),
                   ("af4", np.float32, (7,))], align=True)
    recs = np.zeros(3, dt)
    recs["i1"], recs["f2"], recs["d3"] = [3, 5, 7], [0.5, 0.25, 2.0], [4.0, 2.0, 8.0]
    recs["af4"] = np.linspace(0, 1, 21, dtype=np.float32).reshape(3, 7)
    want = sum(r["i1"] * r["f2"] / r["d3"] + r["af4"].sum() for r in recs)
    my_struct = types.Record.make_c_struct([
        ("i1", types.int32), ("f2", types.float32), ("d3", types.float64),
        ("af4", types.NestedArray(dtype=types.float32, shape=(7,)))])
    made = cfunc(types.float64(types.CPointer(my_struct), types.uintp))(struct_total)
    assert made.ctypes(recs.ctypes.data_as(ctypes.c_void_p), 3) == pytest.approx(want, rel=1e-6)
    cffi = pytest.importorskip("cffi")
    from pyjit.core.typing import cffi_utils
    ffi = cffi.FFI()
    ffi.cdef("typedef struct my_struct { int i1; float f2; double d3; float af4[7]; } my_struct;"
             "typedef double (*my_func)(my_struct*, size_t);")
    sig = cffi_utils.map_type(ffi.typeof("my_func"), use_record_dtype=True)
    declared = cfunc(sig)(struct_total)
    call = ffi.cast("my_func", declared.address)
    assert call(ffi.cast("my_struct *", recs.ctypes.data), 3) == pytest.approx(want, rel=1e-6)


# ---- objmode ----

def reversed_in_python(x):
    return np.asarray(list(reversed(x.tolist())))


OUT_TY = types.intp[:]


def test_objmode_as_documented():
    @njit
    def foo():
        x = np.arange(5)
        y = np.zeros_like(x)
        with objmode(y="intp[:]", z=OUT_TY):      # a type string and a global type
            y += reversed_in_python(x)
            z = y
        return y, z

    y, z = foo()
    np.testing.assert_array_equal(y, np.arange(5)[::-1])
    np.testing.assert_array_equal(z, y)


# ---- parallel=True ----

def prange_sum(a):
    s = 0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


def product_of_arrays(n):
    result1 = 2 * np.ones((13, 17), np.int_)
    tmp = 2 * np.ones_like(result1)
    for i in prange(n):
        result1 *= tmp
    return result1


def whole_array_sum(x):
    y = np.zeros(4)
    for i in prange(x.shape[0]):
        y += x[i]
    return y


def outer_slice_sum(x):
    y = np.zeros(4)
    z = y[:]
    for i in prange(x.shape[0]):
        z += x[i]
    return y


def logistic_regression(Y, X, w, iterations):
    for i in range(iterations):
        w -= np.dot(((1.0 / (1.0 + np.exp(-Y * np.dot(X, w))) - 1.0) * Y), X)
    return w


def nested_pranges(x):
    n = x.shape[0]
    a = np.sin(x)
    b = np.cos(a * a)
    acc = 0
    for i in prange(n - 2):
        for j in prange(n - 1):
            acc += b[i] + b[j + 1]
    return acc


def per_thread_slots(n):
    k = pyjit.get_num_threads()
    z = [0 for _ in range(k)]
    for i in prange(n):
        z[i % k] += i
    return sum(z)


def collatz_rows(n):
    vals = np.empty(n)
    for i in prange(n):
        cur = i + 1
        for _ in range(i):
            cur = cur // 2 if cur % 2 == 0 else cur * 3 + 1
        vals[i] = cur
    return vals


def chunked(n):
    acc = 0
    with pyjit.parallel_chunksize(4):
        for i in prange(n):
            acc += i * i
    return acc


def test_parallel_guide():
    par = njit(parallel=True)
    a = np.arange(1000)
    assert par(prange_sum)(a) == prange_sum(a)
    np.testing.assert_array_equal(par(product_of_arrays)(3), product_of_arrays(3))
    x = np.arange(100.0)
    np.testing.assert_allclose(par(whole_array_sum)(x), whole_array_sum(x))
    np.testing.assert_allclose(par(outer_slice_sum)(x), outer_slice_sum(x))
    rng = np.random.default_rng(2)
    X, Y, w = rng.normal(size=(60, 3)), rng.normal(size=60), rng.normal(size=3)
    np.testing.assert_allclose(par(logistic_regression)(Y, X, w.copy(), 4),
                               logistic_regression(Y, X, w.copy(), 4))
    f = par(nested_pranges)
    assert f(np.arange(10)) == pytest.approx(nested_pranges(np.arange(10)))
    assert "nested_pranges" in f.parallel_diagnostics(level=4) or f.parallel_diagnostics(level=4)
    assert par(per_thread_slots)(100) == sum(range(100))
    np.testing.assert_array_equal(par(collatz_rows)(60), collatz_rows(60))
    old = pyjit.set_parallel_chunksize(8)
    try:
        assert par(chunked)(50) == chunked(50) and pyjit.get_parallel_chunksize() == 8
    finally:
        pyjit.set_parallel_chunksize(old)


def append_all(n):
    z = []
    for i in prange(n):
        z.append(i)
    return z


def test_parallel_guide_invalid_append_runs_serially():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = njit(parallel=True)(append_all)
    assert any(issubclass(w.category, ParallelSafetyWarning) for w in caught)
    assert f(1000) == append_all(1000)


# ---- performance tips, FAQ, troubleshooting ----

def cos_sin_identity(x):
    return np.cos(x) ** 2 + np.sin(x) ** 2


def sqrt_sum(A):
    acc = 0.0
    for x in A:
        acc += np.sqrt(x)
    return acc


def add_assoc(x, y):
    return (x - y) + y


def test_performance_tips():
    x = np.linspace(0, 10, 1000)
    for f in (njit(cos_sin_identity), njit(parallel=True)(cos_sin_identity)):
        np.testing.assert_allclose(f(x), cos_sin_identity(x))
    for opts in ({"fastmath": False}, {"fastmath": True}):
        assert njit(**opts)(sqrt_sum)(x) == pytest.approx(sqrt_sum(x), rel=1e-12)
    assert math.isnan(njit(fastmath=False)(add_assoc)(0, np.inf))
    for flags in ({"reassoc", "nsz"}, {"reassoc"}, {"nsz"}):
        r = njit(fastmath=flags)(add_assoc)(0, np.inf)
        assert math.isnan(r) or r == 0.0       # LLVM may fold (x - y) + y under reassoc+nsz
    with pytest.raises(ValueError, match="Unrecognized fastmath flags"):
        njit(fastmath={"quick"})(add_assoc)


def test_faq_functions_as_arguments():
    @jit(nopython=True)
    def g(x):
        return x * 3 + 1

    @jit(nopython=True)
    def f(fn, x):
        return fn(x) + fn(-x)

    def make_f(fn):
        @jit(nopython=True)
        def inner(x):
            return fn(x) + fn(-x)
        return inner

    assert f(g, 2) == g.py_func(2) + g.py_func(-2) == make_f(g)(2)


def test_troubleshooting_examples():
    @jit(nopython=True)
    def made():
        return [1, 2, 3]

    @jit(nopython=True)
    def appended(x):
        tmp = []
        for i in range(x):
            tmp.append(i)
        return tmp

    @jit(nopython=True)
    def typed_empty(x):
        tmp = [np.complex64(x) for x in range(0)]
        return (tmp, x)

    assert made() == [1, 2, 3] and appended(4) == [0, 1, 2, 3] and typed_empty(3) == ([], 3)

    @jit(nopython=True)
    def untyped_empty(x):
        tmp = []
        return (tmp, x)

    @jit(nopython=True)
    def two_return_types(x):
        if x > 10:
            return (1,)
        return 1

    @jit(nopython=True)
    def add_tuple(x, y):
        return x + y

    with pytest.raises(TypingError, match="list's items is unknown"):
        untyped_empty(1)
    with pytest.raises(TypingError, match="must return one type"):
        two_return_types(10)
    with pytest.raises(TypingError, match=r"unsupported operand types for \+: int64 and tuple"):
        add_tuple(1, (2,))
    assert jit(add_tuple.py_func)(1, 2) == 3
