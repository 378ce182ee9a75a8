"""@cfunc: functions compiled to plain C functions, called through ctypes, cffi and scipy's
LowLevelCallable, and compared with the same source run by CPython; carray/farray over the
pointers a C caller passes."""
import ctypes
import math

import numpy as np
import pytest

import pyjit
from pyjit import carray, cfunc, farray, njit, types
from pyjit.errors import TypingError
from pyjit.types import CPointer, float32, float64, int32, int64, intc, voidptr

from util import assert_same, run_subprocess


def poly(x, y):
    return 3.0 * x * x - y / 2.0 + 1.0


def test_string_signature_against_python():
    f = cfunc("float64(float64, float64)")(poly)
    for x, y in [(0.0, 0.0), (1.5, -2.0), (-3.25, 7.0), (1e10, 1e-10)]:
        assert_same(poly(x, y), f(x, y))
        assert_same(poly(x, y), f.ctypes(x, y))


def test_type_object_signature_and_attributes():
    f = cfunc(float64(float64, float64))(poly)
    assert isinstance(f.address, int) and f.address != 0
    assert f.native_name and f.native_name in f.inspect_llvm()
    assert "define" in f.inspect_llvm()
    proto = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_double)
    assert_same(poly(2.0, 3.0), proto(f.address)(2.0, 3.0))
    assert f.__name__ == "poly"


def lin(a, b):
    return a * 2 + b


def same(a, b):
    return a == b


@pytest.mark.parametrize("fn,sig,args", [
    (lin, "int64(int64, int64)", (7, -3)),
    (lin, "int32(int32, int32)", (-2**31 + 5, 3)),
    (lin, "float32(float32, float32)", (1.5, 0.25)),
    (lin, "uint8(uint8, uint8)", (100, 3)),
    (lin, "int16(int16, int16)", (-300, 7)),
    (same, "b1(int64, int64)", (3, 3)),
    (same, "boolean(int8, int8)", (-3, 4)),
])
def test_integer_and_narrow_types(fn, sig, args):
    f = cfunc(sig)(fn)
    ret = sig.split("(")[0]
    expected = np.array(fn(*args)).astype("bool" if ret == "boolean" else ret).item()
    assert_same(expected, f(*args), exact=ret != "float32")


def test_void_result():
    out = np.zeros(3)

    @cfunc(types.void(CPointer(float64), int64))
    def fill(p, n):
        for i in range(n):
            p[i] = i * 1.5

    fill(out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), 3)
    assert_same(np.arange(3) * 1.5, out)


def test_pointer_argument_indexing():
    def mean(n, xx):
        s = 0.0
        for i in range(n):
            s += xx[i]
        return s / n

    f = cfunc(float64(intc, CPointer(float64)))(mean)
    data = np.random.default_rng(3).normal(size=17)
    got = f(17, data.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
    assert_same(sum(data.tolist()) / 17, got, rtol=1e-12)


def test_carray_and_farray():
    @cfunc("float64(voidptr, int64, int64)")
    def corner_c(p, rows, cols):
        a = carray(p, (rows, cols), dtype=np.float64)
        return a[rows - 1, 0] * 10.0 + a[0, cols - 1]

    @cfunc(float64(CPointer(float64), int64, int64))
    def corner_f(p, rows, cols):
        a = farray(p, (rows, cols))
        return a[rows - 1, 0] * 10.0 + a[0, cols - 1]

    @cfunc(float64(CPointer(float64), int64))
    def total(p, n):
        return carray(p, n).sum()

    m = np.arange(12.0)
    ptr = m.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    c, fo = m.reshape(3, 4), m.reshape(3, 4, order="F")
    assert_same(c[2, 0] * 10.0 + c[0, 3], corner_c(ctypes.c_void_p(m.ctypes.data), 3, 4))
    assert_same(fo[2, 0] * 10.0 + fo[0, 3], corner_f(ptr, 3, 4))
    assert_same(m.sum(), total(ptr, 12))


def test_carray_in_python():
    m = np.arange(6.0)
    ptr = m.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    assert_same(m.reshape(2, 3), carray(ptr, (2, 3)))
    assert_same(m.reshape(2, 3, order="F"), farray(ptr, (2, 3)))
    assert_same(m[:4], carray(m.ctypes.data, 4, dtype=np.float64))


def test_carray_errors():
    with pytest.raises(TypingError, match="needs dtype"):
        @cfunc("float64(voidptr)")
        def f(p):
            return carray(p, 3)[0]
    with pytest.raises(TypingError, match="dtype says"):
        @cfunc("float64(CPointer(float64))")
        def g(p):
            return carray(p, 3, dtype=np.float32)[0]


def test_exception_is_reported_not_raised():
    code = """
from pyjit import cfunc
@cfunc("float64(float64)")
def inv(x):
    if x == 0.0:
        raise ValueError("x must not be zero")
    return 1.0 / x
print(inv(4.0), inv.ctypes(0.0))
"""
    rc, out, err = run_subprocess(code)
    assert rc == 0 and out.split() == ["0.25", "0.0"]   # C gets zero, as from Numba's cfunc
    assert "ValueError: x must not be zero" in err and "<cfunc inv>" in err


def test_exception_goes_to_unraisablehook(monkeypatch):
    seen = []
    monkeypatch.setattr("sys.unraisablehook", seen.append)

    @cfunc("int64(int64)")
    def div(x):
        return 10 // x

    assert div(0) == 0
    assert len(seen) == 1 and seen[0].exc_type is ZeroDivisionError


def test_cfunc_called_from_compiled_code():
    c = cfunc("float64(float64, float64)")(poly)

    @njit
    def use(x):
        return c(x, 2.0) + 1.0

    assert_same(poly(1.25, 2.0) + 1.0, use(1.25))


def test_bad_signatures():
    with pytest.raises(TypeError, match="return type"):
        cfunc("(float64,)")(poly)
    with pytest.raises(TypeError, match="not a C parameter type"):
        cfunc("float64(float64[:], float64)")(poly)
    with pytest.raises(TypeError, match="unexpected option"):
        cfunc("float64(float64, float64)", parallel=True)(poly)
    with pytest.raises(TypeError, match="needs a signature"):
        cfunc(poly)


def test_cffi_access():
    cffi = pytest.importorskip("cffi")
    f = cfunc(float64(float64, float64))(poly)
    assert_same(poly(1.0, 4.0), f.cffi(1.0, 4.0))
    assert cffi.FFI().typeof(f.cffi).cname == "double(*)(double, double)"


# ---- scipy.LowLevelCallable ----------------------------------------------------------------

def gauss(x):
    return math.exp(-x * x / 2.0) * (1.0 + 0.5 * math.sin(3.0 * x))


def test_scipy_quad_double_double():
    scipy = pytest.importorskip("scipy")
    from scipy import integrate
    f = cfunc("float64(float64)")(gauss)
    got = integrate.quad(scipy.LowLevelCallable(f.ctypes), -3.0, 4.0)[0]
    expected = integrate.quad(gauss, -3.0, 4.0)[0]
    assert_same(expected, got, rtol=1e-10)


def shifted(n, xx):
    x, a, b = xx[0], xx[1], xx[2]
    return math.exp(-a * x) * math.cos(b * x)


def test_scipy_quad_int_pointer_form():
    scipy = pytest.importorskip("scipy")
    from scipy import integrate
    f = cfunc(float64(intc, CPointer(float64)))(shifted)
    for a, b in [(1.0, 2.0), (0.5, 7.0)]:
        got = integrate.quad(scipy.LowLevelCallable(f.ctypes), 0.0, 5.0, args=(a, b))[0]
        expected = integrate.quad(lambda x: shifted(3, [x, a, b]), 0.0, 5.0)[0]
        assert_same(expected, got, rtol=1e-10)


def test_scipy_quad_user_data():
    scipy = pytest.importorskip("scipy")
    from scipy import integrate

    @cfunc(float64(float64, voidptr))
    def weighted(x, data):
        w = carray(data, 2, dtype=np.float64)
        return w[0] * x * x + w[1]

    params = np.array([3.0, -1.0])
    user = ctypes.cast(params.ctypes.data, ctypes.c_void_p)
    got = integrate.quad(scipy.LowLevelCallable(weighted.ctypes, user), 0.0, 2.0)[0]
    expected = integrate.quad(lambda x: 3.0 * x * x - 1.0, 0.0, 2.0)[0]
    assert_same(expected, got, rtol=1e-10)


def test_types_api():
    assert CPointer(float64).name == "cpointer(float64)"
    assert voidptr.name == "voidptr"
    assert types.CPointer(types.float32).dtype is float32
    sig = int32(CPointer(float64), voidptr)
    assert [a.name for a in sig.args] == ["cpointer(float64)", "voidptr"]
    assert pyjit.cfunc is cfunc


# ---- Numba's documentation examples, with the import switched -------------------------------

def test_numba_docs_integrand():
    scipy = pytest.importorskip("scipy")
    from scipy import integrate

    def integrand(t):
        return np.exp(-t) / t ** 2

    nb_func = cfunc("float64(float64)")(integrand)
    got = integrate.quad(scipy.LowLevelCallable(nb_func.ctypes), 1, np.inf)[0]
    expected = integrate.quad(integrand, 1, np.inf)[0]
    assert_same(expected, got, rtol=1e-10)


def test_numba_docs_carray_callback():
    c_sig = types.void(types.CPointer(types.double), types.CPointer(types.double),
                       types.intc, types.intc)

    def my_callback(in_, out, m, n):
        in_array = carray(in_, (m, n))
        out_array = carray(out, (m, n))
        for i in range(m):
            for j in range(n):
                out_array[i, j] = 2 * in_array[i, j]

    f = cfunc(c_sig)(my_callback)
    src = np.arange(12.0).reshape(3, 4)
    out = np.zeros_like(src)
    as_ptr = ctypes.POINTER(ctypes.c_double)
    f(src.ctypes.data_as(as_ptr), out.ctypes.data_as(as_ptr), 3, 4)
    expected = np.zeros_like(src)
    my_callback(src.ctypes.data_as(as_ptr), expected.ctypes.data_as(as_ptr), 3, 4)   # CPython
    assert_same(expected, out)
    assert_same(2 * src, out)


def test_memory_stays_flat():
    from util import memory_in_use

    @cfunc("float64(int64)")
    def scratch(n):
        a = np.zeros(n)
        for i in range(n):
            a[i] = i * 0.5
        return a.sum()

    for _ in range(2000):
        scratch.ctypes(50)
    before = memory_in_use()
    call = scratch.ctypes
    for _ in range(100_000):
        call(50)
    grown = memory_in_use() - before
    assert grown < 8 << 20, f"memory grew {grown / (1 << 20):.1f} MB over 10^5 calls"
    assert_same(sum(i * 0.5 for i in range(50)), call(50))


def test_locals_converts_and_cache_warns_that_it_does_nothing():
    import warnings
    from pyjit import decorators
    decorators._hinted.discard("cache")
    with pytest.warns(pyjit.errors.PerformanceWarning, match="cfunc\\(cache=True\\) does nothing"):
        @pyjit.cfunc("float64(float64)", locals={"y": float32}, cache=True)
        def third(x):
            y = x / 3
            return y
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert third(1.0) == float(np.float32(1.0 / 3))


# ---- C structs: Record.make_c_struct and cffi_utils.map_type (Numba's cfunc docs) ----

@njit
def _struct_sum(base, n):
    tmp = 0.0
    for i in range(n):
        tmp += base[i].i1 * base[i].f2 / base[i].d3
        tmp += base[i].af4.sum()
    return tmp


def _structs():
    dt = np.dtype([("i1", np.int32), ("f2", np.float32), ("d3", np.float64),
                   ("af4", np.float32, (7,))], align=True)
    a = np.zeros(4, dt)
    a["i1"], a["f2"], a["d3"] = [1, 2, 3, 4], [0.5, 1.5, 2.5, 3.5], [2.0, 4.0, 8.0, 16.0]
    a["af4"] = np.arange(28, dtype=np.float32).reshape(4, 7) / 4
    return a


def _sum_over(ptr, n):
    return _struct_sum(carray(ptr, n), n)


def test_cfunc_over_c_structs_made_with_make_c_struct():
    my_struct = types.Record.make_c_struct([
        ("i1", types.int32), ("f2", types.float32), ("d3", types.float64),
        ("af4", types.NestedArray(dtype=types.float32, shape=(7,)))])
    assert my_struct.size == _structs().dtype.itemsize
    f = cfunc(types.float64(types.CPointer(my_struct), types.uintp))(_sum_over)
    a = _structs()
    got = f.ctypes(a.ctypes.data_as(ctypes.c_void_p), len(a))
    assert got == pytest.approx(_struct_sum.py_func(a.view(np.recarray), len(a)), rel=1e-6)


def test_cfunc_signature_from_cffi_declarations():
    cffi = pytest.importorskip("cffi")
    from pyjit.core.typing import cffi_utils
    ffi = cffi.FFI()
    ffi.cdef("typedef struct my_struct { int i1; float f2; double d3; float af4[7]; } my_struct;"
             "typedef double (*my_func)(my_struct*, size_t);")
    sig = cffi_utils.map_type(ffi.typeof("my_func"), use_record_dtype=True)
    assert sig.return_type == types.float64 and sig.args[1] == types.uint64
    f = cfunc(sig)(_sum_over)
    a = _structs()
    call = ffi.cast("my_func", f.address)      # called the way C would
    got = call(ffi.cast("my_struct *", a.ctypes.data), len(a))
    assert got == pytest.approx(_struct_sum.py_func(a.view(np.recarray), len(a)), rel=1e-6)


def test_struct_pointer_is_indexed_through_carray():
    rec = types.Record.make_c_struct([("x", types.float64)])

    def direct(p):
        return p[0].x

    with pytest.raises(TypingError, match=r"carray\(ptr, n\)\[i\]\.field"):
        cfunc(types.float64(types.CPointer(rec)))(direct)


def test_wrapper_address_protocol_objects_are_called_as_c_functions():
    libm = ctypes.CDLL(None)

    class LibMCos(types.WrapperAddressProtocol):
        def __wrapper_address__(self):
            return ctypes.cast(libm.cos, ctypes.c_void_p).value

        def signature(self):
            return float64(float64)

    @njit
    def call(f, x):
        return f(x)

    cos_obj = LibMCos()
    assert call(cos_obj, 0.0) == 1.0 and call(cos_obj, 0.5) == math.cos(0.5)

    class NoSignature(types.WrapperAddressProtocol):
        def __wrapper_address__(self):
            return ctypes.cast(libm.cos, ctypes.c_void_p).value

    with pytest.raises(Exception, match="must define signature"):
        call(NoSignature(), 0.5)


def test_record_type_subscript_gives_its_array_type():
    rec = pyjit.from_dtype(np.dtype([("row", np.float64), ("col", np.float64)]))
    assert rec[:, :] == types.Array(rec, 2, "A") and rec[::1] == types.Array(rec, 1, "C")
