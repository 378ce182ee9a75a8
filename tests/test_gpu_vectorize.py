"""GPU ufuncs and reductions (pyjit.gpu.ufunc): vectorize, guvectorize and reduce, target='cuda'.

The kernels are generated Python source compiled by the backend's @gpu.jit, so the same tests
run on both backends: on a GPU (the hardware backend) and in the simulator (PYJIT_SIMULATOR=1,
which CI runs in a subprocess below). Results are checked against NumPy. Without a GPU the
generated kernels are still compiled to PTX and assembled with ptxas where it is installed.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from pyjit import gpu
from util import assemble_ptx
from pyjit.gpu import ufunc

SIM = gpu.SIMULATOR
if SIM:
    runs = pytest.mark.skipif(False, reason="")
else:
    runs = pytest.mark.gpu          # conftest skips these without a GPU
B = None


def _backend():
    global B
    if B is None:
        B = gpu._load_backend()
    return B


def vec(sigs=None):
    return ufunc.vectorize(sigs, backend=_backend())


def host(a):
    return a.copy_to_host() if hasattr(a, "copy_to_host") else np.asarray(a)


# ints first: as NumPy's ufuncs, the first signature the inputs cast to safely is taken
SAXPY_SIGS = ["int32(int32, int32, int32)", "int64(int64, int64, int64)",
              "float32(float32, float32, float32)", "float64(float64, float64, float64)"]


def saxpy_f(a, x, y):
    return a * x + y


def add_f(a, b):
    return a + b


def max_f(a, b):
    return max(a, b)


# ---- elementwise ----

@runs
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_every_signature_dtype_host_and_device(dtype):
    f = vec(SAXPY_SIGS)(saxpy_f)
    x = (np.arange(300) % 17).astype(dtype)
    y = (np.arange(300) % 5).astype(dtype)
    a = dtype(3)
    want = a * x + y
    got = f(a, x, y)
    assert isinstance(got, np.ndarray) and got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
    dx, dy = _backend().to_device(x), _backend().to_device(y)
    dres = f(a, dx, dy)
    assert not isinstance(dres, np.ndarray)
    np.testing.assert_allclose(host(dres), want, rtol=1e-6)
    dout = _backend().device_array_like(dx)
    assert f(a, dx, dy, out=dout) is dout
    np.testing.assert_allclose(host(dout), want, rtol=1e-6)


@runs
def test_python_scalar_is_weak_and_resolution_is_numpys():
    f = vec(SAXPY_SIGS)(saxpy_f)
    x = np.arange(40, dtype=np.float32)
    assert f(2.0, x, x).dtype == np.float32           # NEP 50: the float is weak
    assert f(2, x.astype(np.int32), x.astype(np.int32)).dtype == np.int32
    i16 = np.arange(40, dtype=np.int16)
    assert f(np.int16(2), i16, i16).dtype == np.int32      # first safe cast
    assert f(2, x, x.astype(np.int64)).dtype == np.float64  # int64 -> float32 is not safe
    np.testing.assert_allclose(f(2, x, x.astype(np.int64)), 2 * x + x.astype(np.int64))
    with pytest.raises(TypeError):
        f(1j, x, x)


@runs
@pytest.mark.parametrize("shapes", [
    ((4, 1), (5,)), ((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((1,), (6,)), ((2, 1, 3), (1, 5, 1)),
    ((), (7,)),
])
def test_broadcasting(shapes):
    f = vec(["float64(float64, float64)"])(add_f)
    a = np.arange(int(np.prod(shapes[0])), dtype=np.float64).reshape(shapes[0]) + 0.5
    b = np.arange(int(np.prod(shapes[1])), dtype=np.float64).reshape(shapes[1]) * 10
    want = a + b
    np.testing.assert_array_equal(f(a, b), want)
    np.testing.assert_array_equal(host(f(_backend().to_device(a), b)), want)   # mixed
    np.testing.assert_array_equal(host(f(a, _backend().to_device(b))), want)


@runs
def test_strided_and_transposed_device_views():
    f = vec(["float32(float32, float32)"])(add_f)
    a = np.arange(60, dtype=np.float32).reshape(6, 10)
    da = _backend().to_device(a)
    np.testing.assert_array_equal(host(f(da.T, a.T)), a.T + a.T)
    np.testing.assert_array_equal(host(f(da[::2, 1:7], 1.0)), a[::2, 1:7] + 1)
    np.testing.assert_array_equal(host(f(da[:, 3], da[:, 4])), a[:, 3] + a[:, 4])
    fa = np.asfortranarray(a)
    np.testing.assert_array_equal(f(fa, fa), fa + fa)


@runs
def test_out_broadcasting_and_errors():
    f = vec(["float64(float64, float64)"])(add_f)
    out = _backend().device_array((3, 4), dtype=np.float64)
    f(np.arange(4.0), 1.0, out=out)
    np.testing.assert_array_equal(host(out), np.broadcast_to(np.arange(4.0) + 1, (3, 4)))
    hout = np.zeros((3, 4))
    f(np.arange(4.0), 2.0, out=hout)
    np.testing.assert_array_equal(hout, np.broadcast_to(np.arange(4.0) + 2, (3, 4)))
    with pytest.raises(ValueError):
        f(np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        f(np.ones(4), np.ones(4), out=_backend().device_array(3))
    with pytest.raises(TypeError):
        f(np.ones(4))


@runs
def test_zero_size_and_scalars():
    f = vec(["float32(float32, float32)"])(add_f)
    r = f(np.zeros((0, 3), np.float32), np.ones(3, np.float32))
    assert r.shape == (0, 3) and r.dtype == np.float32
    d = f(_backend().to_device(np.zeros(0, np.float32)), 1.0)
    assert d.shape == (0,)
    assert f(1.0, 2.0) == 3.0


@runs
def test_dynamic_compiles_per_input_types():
    f = vec()(saxpy_f)
    x = np.arange(50, dtype=np.float32)
    r = f(np.float32(2), x, x)
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, 3 * x)
    r = f(2, np.arange(50), np.arange(50))
    assert r.dtype == np.int64 and (r == 3 * np.arange(50)).all()
    assert f(2.0, x, x).dtype == np.float32
    assert len(f._sigs) == 2


@runs
def test_device_function_calls_and_casts():
    import math
    f = vec(["float64(float64)", "float32(float32)"])(lambda v: math.sqrt(v) + 1)
    x = np.arange(20, dtype=np.float32)
    np.testing.assert_allclose(f(x), np.sqrt(x) + 1, rtol=1e-6)
    np.testing.assert_allclose(f(np.arange(20)), np.sqrt(np.arange(20)) + 1)   # int64 -> f8


@runs
def test_stream_argument():
    f = vec(["float32(float32, float32)"])(add_f)
    s = _backend().stream()
    x = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(f(x, x, stream=s), 2 * x)
    dx = _backend().to_device(x, stream=s)
    dout = _backend().device_array(100, np.float32, stream=s)
    f(dx, 1.0, out=dout, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(host(dout), x + 1)


# ---- reduce ----

SIZES = [0, 1, 3, 5, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4099, 5000]
if not SIM:
    SIZES += [10 ** 6 + 3]


@runs
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64, np.float32])
def test_reduce_sizes(n, dtype):
    r = ufunc.Reduce(add_f, backend=_backend())
    x = (np.arange(n) % 97).astype(dtype)
    want = x.sum(dtype=np.float64) if dtype in (np.float32, np.float64) else x.sum()
    got = r(x)
    assert got.dtype == dtype if hasattr(got, "dtype") else True
    assert np.isclose(got, want, rtol=1e-5), (n, got, want)
    assert np.isclose(r(_backend().to_device(x), init=5), want + 5, rtol=1e-5)


@runs
def test_reduce_max_init_res_size_and_small_dtypes():
    r = ufunc.Reduce(max_f, backend=_backend())
    x = np.random.default_rng(1).integers(-1000, -10, 3000)
    assert r(x, init=x[0]) == x.max()
    assert r(x) == 0                                  # numba's: init (0) is folded in
    dx = _backend().to_device(x)
    res = _backend().device_array(1, dtype=np.int64)
    assert r(dx, res=res, init=-10 ** 9) is None
    assert host(res)[0] == x.max()
    s = ufunc.Reduce(add_f, backend=_backend())
    assert s(dx, size=100) == x[:100].sum()
    assert s(np.arange(300, dtype=np.int16)) == np.int16(np.arange(300).sum())
    assert s(np.arange(100, dtype=np.uint8)) == np.uint8(np.arange(100, dtype=np.uint8).sum())
    assert s(np.zeros(0), init=3.5) == 3.5
    st = _backend().stream()
    assert s(dx, stream=st) == x.sum()


def mul_f(a, b):
    return a * b


def min_f(a, b):
    return min(a, b)


# Sizes around the reduction's shapes: groups of 4 elements, the n % 4 tail taken one a
# thread, a grid of 2 blocks of 256 threads in the simulator taking 2 groups an iteration.
@runs
@pytest.mark.parametrize("n", [2, 6, 7, 1027, 2051, 4097, 8195])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_reduce_accumulators_and_tails(n, dtype):
    rng = np.random.default_rng(n)
    x = (2 * rng.integers(0, 4, n) + 1).astype(dtype)   # odd: the product wraps, never 0
    if dtype == np.float64:
        x = rng.random(n) + 0.5
    dx = _backend().to_device(x)
    prod = ufunc.Reduce(mul_f, backend=_backend())
    want = np.prod(x, dtype=dtype)
    assert np.isclose(prod(dx, init=1), want, rtol=1e-9) if dtype == np.float64 else \
        prod(dx, init=1) == want                      # integers wrap as NumPy's do
    low = ufunc.Reduce(min_f, backend=_backend())
    res = _backend().device_array(1, dtype=dtype)
    assert low(dx, res=res, init=None) is None
    assert host(res)[0] == x.min()
    assert low(dx, size=n - 1, init=x[0]) == x[:n - 1].min()


@runs
@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_reduce_empty_with_init_and_res(dtype):
    s = ufunc.Reduce(add_f, backend=_backend())
    dx = _backend().to_device(np.arange(10, dtype=dtype))
    assert s(dx, size=0, init=7) == 7
    res = _backend().device_array(1, dtype=dtype)
    assert s(dx, size=0, res=res, init=3) is None and host(res)[0] == 3
    assert s(dx, res=res) is None and host(res)[0] == 45
    with pytest.raises(ValueError):
        s(dx, size=0, init=None)


@runs
def test_ufunc_reduce_method():
    f = vec(["int64(int64, int64)", "float64(float64, float64)"])(add_f)
    x = np.arange(1000)
    assert f.reduce(x) == x.sum()
    assert np.isclose(f.reduce(x.astype(np.float64)), x.sum())
    g = vec(["int64(int64, int64)"])(max_f)
    assert g.reduce(-x - 5) == -5                     # no init folded: NumPy's reduce
    with pytest.raises(ValueError):
        f.reduce(np.zeros(0, np.int64))


# ---- guvectorize ----

def _mavg(a, w, out):
    for i in range(a.shape[0]):
        s = 0.0
        c = 0
        for j in range(max(0, i - w + 1), i + 1):
            s += a[j]
            c += 1
        out[i] = s / c


def _np_mavg(a, w):
    out = np.empty_like(a)
    for idx in np.ndindex(a.shape[:-1]):
        for i in range(a.shape[-1]):
            out[idx + (i,)] = a[idx + (slice(max(0, i - w + 1), i + 1),)].mean()
    return out


@runs
def test_guvectorize_moving_average():
    g = ufunc.guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->(n)",
                          backend=_backend())(_mavg)
    a = np.arange(24, dtype=np.float64).reshape(4, 6) ** 1.5
    np.testing.assert_allclose(g(a, 3), _np_mavg(a, 3))
    d = g(_backend().to_device(a), 2)
    np.testing.assert_allclose(host(d), _np_mavg(a, 2))
    out = np.zeros_like(a)
    g(a, 3, out)
    np.testing.assert_allclose(out, _np_mavg(a, 3))
    a3 = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_allclose(g(a3, 2), _np_mavg(a3, 2))


def _matvec(m, v, out):
    for i in range(m.shape[0]):
        s = 0.0
        for j in range(m.shape[1]):
            s += m[i, j] * v[j]
        out[i] = s


def _dot(a, b, out):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    out[0] = s


@runs
def test_guvectorize_core_dims_broadcast_and_scalar_output():
    g = ufunc.guvectorize(["void(float64[:, :], float64[:], float64[:])"], "(m,n),(n)->(m)",
                          backend=_backend())(_matvec)
    m = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)
    v = np.arange(4.0)
    np.testing.assert_allclose(g(m, v), m @ v)
    d = ufunc.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()",
                          backend=_backend())(_dot)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(d(a, a), (a * a).sum(axis=1))
    with pytest.raises(ValueError):
        g(m, np.arange(5.0))


# ---- without a GPU: the simulator in a subprocess, and PTX ----

@pytest.mark.skipif(SIM, reason="already in the simulator")
def test_all_of_this_in_the_simulator():
    env = dict(os.environ, PYJIT_SIMULATOR="1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                        os.path.abspath(__file__)], cwd=root, env=env, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    assert " passed" in r.stdout


def _hw():
    from pyjit import _core
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")
    from pyjit.gpu import hardware
    return hardware


def _typename(dt):
    return "boolean" if np.dtype(dt) == np.bool_ else np.dtype(dt).name


@pytest.mark.parametrize("sig", SAXPY_SIGS)
def test_ptx_of_generated_elementwise_kernels(sig):
    hw = _hw()
    f = ufunc.vectorize([sig], backend=hw)(saxpy_f)
    args, ret = f._sigs[0]
    t = _typename(ret)
    for scalars in (frozenset(), frozenset([0])):
        k = f._kernel("flat", scalars, args, ret, ret)
        a0 = t if scalars else f"{t}[::1]"
        ptx, _ = hw.compile_ptx(k.py_func, f"void({a0}, {t}[::1], {t}[:], {t}[::1], int64)")
        body = ptx[ptx.index("{"):]
        # the unrolled loop loads every element of an iteration before the first store
        assert body.count("ld.global") >= 2 * ufunc.UNROLL
        assemble_ptx(ptx)
        k = f._kernel(3, scalars, args, ret, ret)
        a0 = t if scalars else f"{t}[:, :, :]"
        ptx, _ = hw.compile_ptx(k.py_func, f"void({a0}, {t}[:, :, :], {t}[:, :, :], "
                                           f"{t}[:, :, :], int64)")
        assemble_ptx(ptx)


def test_ptx_of_a_signature_without_return_type():
    # '(int16, int16)': the return type is the function's for those types (int16 + int16 is
    # int16, NumPy's rule, as @vectorize on the CPU types it), and the kernel compiles with it
    hw = _hw()
    f = ufunc.vectorize(["(int16, int16)", "(float32, float64)"], backend=hw)(add_f)
    assert f.types == ["hh->h", "fd->d"]
    args, ret = f._sigs[0]
    k = f._kernel("flat", frozenset(), args, ret, ret)
    ptx, _ = hw.compile_ptx(k.py_func, "void(int16[::1], int16[::1], int16[:], int64)")
    assemble_ptx(ptx)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint32,
                                   np.uint64, np.int16, np.uint8, np.bool_, np.complex128])
def test_ptx_of_reduce_kernels(dtype):
    hw = _hw()
    r = ufunc.Reduce(add_f, backend=hw)
    k = r._kernel(np.dtype(dtype))
    t = _typename(dtype)
    ptx, _ = hw.compile_ptx(k.py_func, f"void({t}[:], {t}[::1], int64, {t}, int64)")
    assert ("shfl.sync" in ptx) == (np.dtype(dtype).name in ufunc._SHUFFLE_DTYPES)
    assemble_ptx(ptx)


@pytest.mark.parametrize("dtype, load", [(np.float32, "ld.global.v4.f32"),
                                         (np.float64, "ld.global.v2.f64"),
                                         (np.int32, "ld.global.v4.u32")])
def test_ptx_of_reduce_loads_128_bits_over_aligned_arrays(dtype, load):
    from pyjit import _core, _registry
    hw = _hw()
    k = ufunc.Reduce(add_f, backend=hw)._kernel(np.dtype(dtype))
    t = np.dtype(dtype).name
    arr = f"array({t}, 1d, C)"
    ptx, _entry, _written = _core.cuda_compile_ptx(k.py_func, _registry.REGISTRY,
                                                   [arr, arr, "int64", t, "int64"], aligned=1)
    assemble_ptx(ptx)
    # the first group, the loop's REDUCE_GROUPS groups, the loop over the last ones
    per_group = 4 * np.dtype(dtype).itemsize // 16
    assert ptx.count(load) == per_group * (2 + ufunc.REDUCE_GROUPS)


def test_kernel_source_is_a_grid_stride_loop():
    f = ufunc.vectorize(["float32(float32, float32, float32)"], backend=_backend())(saxpy_f)
    src = f.kernel_source(flat=True, nin_scalars=(0,))
    assert "gridsize(1)" in src and "x0[" not in src and "__c0(x0)" in src
    assert "v1_3 = x1[i3]" in src


def test_hardware_exports():
    from pyjit.gpu import hardware
    assert callable(hardware.vectorize) and callable(hardware.guvectorize)
    assert callable(hardware.reduce) and hardware.Vectorized is ufunc.Vectorized
    assert "guvectorize" in hardware.__all__


def test_ptx_of_gufunc_kernels():
    hw = _hw()
    src = ufunc._gu_source(3, frozenset([1]), 2, ["", "", ""])
    ns = {"__gpu": hw, "__f": hw.jit(device=True)(_mavg)}
    fn = ufunc._source_function("__gk", src, ns)
    ptx, _ = hw.compile_ptx(fn, "void(float64[:, :, :], int64, float64[:, :, :], int64)")
    assemble_ptx(ptx)
    src = ufunc._gu_source(3, frozenset(), 1, ["", "", ", 0:1"])
    ns = {"__gpu": hw, "__f": hw.jit(device=True)(_dot)}
    fn = ufunc._source_function("__gk", src, ns)
    ptx, _ = hw.compile_ptx(fn, "void(float32[:, :], float32[:, :], float32[:, :], int64)")
    assemble_ptx(ptx)
