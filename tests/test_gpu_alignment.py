"""GPU memory access: what a launch checks about its arrays, and the code that buys.

A launch sees whether each array argument's data is 16-byte aligned (whole allocations are
256-byte aligned; a view such as a[1:] is not) and whether its memory overlaps another array
argument; both facts are part of the compiled version's key. Aligned arrays get 128-bit loads
and stores where the kernel touches consecutive elements (the generated ufunc kernels do);
arrays apart from the others that the kernel never writes are read through the read-only data
cache (ld.global.nc). The PTX tests run without a GPU; the gpu-marked ones run the same kernels
over aligned arrays, misaligned views and overlapping arguments and check the results.
"""

import numpy as np
import pytest

from pyjit import gpu
from util import assemble_ptx

F32 = "array(float32, 1d, C)"
F64 = "array(float64, 1d, C)"
ALL = (1 << 64) - 1       # every argument: aligned and apart


def _core():
    from pyjit import _core
    if gpu.SIMULATOR or not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")
    if not _core.cuda_has_codegen():
        pytest.skip("this pyjit has no GPU code generation")
    return _core


def _ptx(fn, argtypes, aligned=0, noalias=0):
    from pyjit import _registry
    ptx, _entry, _written = _core().cuda_compile_ptx(fn, _registry.REGISTRY, argtypes,
                                                     aligned=aligned, noalias=noalias)
    assemble_ptx(ptx)
    return ptx[ptx.index(".entry"):]


def _accesses(ptx):
    return [ln.split()[0] for ln in ptx.splitlines() if "ld.global" in ln or "st.global" in ln]


def saxpy(a, x, y, out):
    i = gpu.grid(1)
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i]


def scale_in_place(a, x, y):
    i = gpu.grid(1)
    if i < x.shape[0]:
        x[i] = a * x[i] + y[i]


def _ufunc_kernel(sig, dtype):
    from pyjit.gpu import hardware, ufunc
    f = ufunc.vectorize([sig], backend=hardware)(lambda a, x, y: a * x + y)
    args, ret = f._sigs[0]
    return f._kernel("flat", frozenset([0]), args, ret, np.dtype(dtype)).py_func


# ---- PTX (no GPU needed) ----

def test_saxpy_reads_through_the_read_only_cache_when_arrays_are_apart():
    ptx = _ptx(saxpy, ["float32", F32, F32, F32], aligned=ALL, noalias=ALL)
    assert _accesses(ptx) == ["ld.global.nc.f32", "ld.global.nc.f32", "st.global.f32"]
    assert "mul.wide.u32" in ptx and "fma.rn.f32" in ptx


def test_saxpy_without_the_facts_uses_plain_loads():
    ptx = _ptx(saxpy, ["float32", F32, F32, F32])
    assert _accesses(ptx) == ["ld.global.f32", "ld.global.f32", "st.global.f32"]


def test_a_written_array_is_never_read_through_the_read_only_cache():
    ptx = _ptx(scale_in_place, ["float32", F32, F32], aligned=ALL, noalias=ALL)
    acc = _accesses(ptx)
    assert acc.count("ld.global.nc.f32") == 1      # y only
    assert acc.count("ld.global.f32") == 1 and acc.count("st.global.f32") == 1


def test_ufunc_kernel_forms_128_bit_accesses_over_aligned_arrays():
    k = _ufunc_kernel("float32(float32, float32, float32)", np.float32)
    acc = _accesses(_ptx(k, ["float32", F32, F32, F32, "int64"], aligned=ALL, noalias=ALL))
    assert acc.count("ld.global.nc.v4.f32") >= 2 and acc.count("st.global.v4.f32") >= 1
    assert acc.count("ld.global.nc.v4.f32") == 2 * acc.count("st.global.v4.f32")
    acc = _accesses(_ptx(k, ["float32", F32, F32, F32, "int64"], aligned=ALL))
    assert acc.count("ld.global.v4.f32") >= 2 and acc.count("st.global.v4.f32") >= 1


def test_ufunc_kernel_over_misaligned_arrays_uses_scalar_accesses():
    k = _ufunc_kernel("float32(float32, float32, float32)", np.float32)
    acc = _accesses(_ptx(k, ["float32", F32, F32, F32, "int64"], aligned=0))
    assert not any(".v4." in a or ".v2." in a for a in acc)
    acc = _accesses(_ptx(k, ["float32", F32, F32, F32, "int64"], aligned=0b0110))   # out: not
    assert acc.count("ld.global.v4.f32") >= 2 and not any("st.global.v" in a for a in acc)


def test_ufunc_kernel_float64_uses_pairs():
    k = _ufunc_kernel("float64(float64, float64, float64)", np.float64)
    acc = _accesses(_ptx(k, ["float64", F64, F64, F64, "int64"], aligned=ALL, noalias=ALL))
    assert acc.count("ld.global.nc.v2.f64") >= 4 and acc.count("st.global.v2.f64") >= 2


def test_ufunc_kernel_needs_no_negative_index_wrap():
    k = _ufunc_kernel("float32(float32, float32, float32)", np.float32)
    ptx = _ptx(k, ["float32", F32, F32, F32, "int64"], aligned=ALL, noalias=ALL)
    loop = ptx[:ptx.index("st.global.v4.f32")]
    loop = loop[loop.rindex("$L__BB"):]
    assert "shr.s64" not in loop          # x[i] with i < 0 wrapping costs a shift and an and


# ---- on the GPU ----

@pytest.fixture
def hw():
    if gpu.SIMULATOR:
        pytest.skip("PYJIT_SIMULATOR=1: these tests are for the compiled GPU path")
    if not gpu.is_available():
        pytest.skip("no GPU")
    return gpu


@pytest.mark.gpu
def test_aligned_and_misaligned_views_through_one_kernel(hw):
    k = hw.jit(saxpy)
    n = 10007
    x = np.arange(n + 3, dtype=np.float32)
    y = np.arange(n + 3, dtype=np.float32)[::-1].copy()
    dx, dy = hw.to_device(x), hw.to_device(y)
    dout = hw.device_array(n + 3, dtype=np.float32)
    k[(n + 255) // 256, 256](np.float32(2), dx[:n], dy[:n], dout[:n])
    np.testing.assert_array_equal(dout.copy_to_host()[:n], 2 * x[:n] + y[:n])
    for off in (1, 2, 3):
        dout = hw.device_array(n + 3, dtype=np.float32)
        k[(n + 255) // 256, 256](np.float32(2), dx[off:off + n], dy[off:off + n], dout[off:off + n])
        np.testing.assert_array_equal(dout.copy_to_host()[off:off + n],
                                      2 * x[off:off + n] + y[off:off + n])
    assert k._nversions >= 2     # aligned and misaligned are separate versions


@pytest.mark.gpu
def test_overlapping_arguments(hw):
    k = hw.jit(saxpy)
    n = 4099
    buf = np.arange(n + 1, dtype=np.float32)
    d = hw.to_device(buf)
    dout = hw.device_array(n, dtype=np.float32)
    k[(n + 255) // 256, 256](np.float32(3), d[:n], d[1:], dout)      # two inputs overlap
    np.testing.assert_array_equal(dout.copy_to_host(), 3 * buf[:n] + buf[1:])
    dx = hw.to_device(buf[:n].copy())
    k[(n + 255) // 256, 256](np.float32(3), dx, dx, dx)               # output is the inputs
    np.testing.assert_array_equal(dx.copy_to_host(), 4 * buf[:n])
    ip = hw.jit(scale_in_place)
    dx = hw.to_device(buf[:n].copy())
    ip[(n + 255) // 256, 256](np.float32(2), dx, dx)
    np.testing.assert_array_equal(dx.copy_to_host(), 3 * buf[:n])


@pytest.mark.gpu
@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 1001, 4096, 65537, 3000003])
@pytest.mark.parametrize("off", [0, 1, 3])
def test_ufunc_over_aligned_and_misaligned_views(hw, n, off):
    from pyjit.gpu import ufunc
    f = ufunc.vectorize(["float32(float32, float32, float32)"], backend=hw._load_backend())(
        lambda a, x, y: a * x + y)
    x = np.random.default_rng(n).standard_normal(n + 4).astype(np.float32)
    y = np.random.default_rng(n + 1).standard_normal(n + 4).astype(np.float32)
    dx, dy = hw.to_device(x), hw.to_device(y)
    dout = hw.device_array(n + 4, dtype=np.float32)
    r = f(np.float32(1.5), dx[off:off + n], dy[off:off + n], out=dout[off:off + n])
    want = np.float32(1.5) * x[off:off + n] + y[off:off + n]
    np.testing.assert_allclose(r.copy_to_host(), want, rtol=1e-6, atol=1e-6)   # fma or not
    f(np.float32(1.5), dx[off:off + n], dy[off:off + n], out=dx[off:off + n])   # in place
    np.testing.assert_allclose(dx.copy_to_host()[off:off + n], want, rtol=1e-6, atol=1e-6)


@pytest.mark.gpu
def test_ufunc_float64_and_host_arrays(hw):
    from pyjit.gpu import ufunc
    f = ufunc.vectorize(["float64(float64, float64)"], backend=hw._load_backend())(
        lambda x, y: x * y + 1.0)
    x = np.linspace(0, 1, 100003)
    y = np.linspace(1, 2, 100003)
    np.testing.assert_allclose(f(x, y), x * y + 1.0)
    np.testing.assert_allclose(f(x[1:], y[:-1]), x[1:] * y[:-1] + 1.0)
    dx = hw.to_device(x)
    np.testing.assert_allclose(f(dx[1:], dx[:-1]).copy_to_host(), x[1:] * x[:-1] + 1.0)
