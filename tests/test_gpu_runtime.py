"""The host side of the compiled GPU path: driver loading, device arrays, launches, streams.

Kernels here are hand-written PTX (loaded with _core._cuda_load_ptx) that follow the kernel
parameter ABI of runtime/cuda.h, so the runtime is tested on its own, before and apart from the
PTX code generation. Tests marked `gpu` need a GPU; the others check what must work without
one: availability, error messages and launch-configuration checks.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pyjit import _core
from pyjit.gpu import hardware

pytestmark = pytest.mark.skipif(not hasattr(_core, "cuda_is_available"),
                                reason="this pyjit._core has no GPU runtime registered")

PTX_HEADER = """
.version 7.0
.target sm_70
.address_size 64
"""

# saxpy(a: float32, x, y, out: 1-d float32 arrays): out[i] = a * x[i] + y[i] for i < x.size.
# Arrays arrive as (data, shape0, stride0 in bytes), runtime/cuda.h's flattening.
SAXPY = PTX_HEADER + """
.visible .entry saxpy(
    .param .f32 a,
    .param .u64 xp, .param .u64 xn, .param .u64 xs,
    .param .u64 yp, .param .u64 yn, .param .u64 ys,
    .param .u64 op, .param .u64 on, .param .u64 os)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<16>;
    .reg .f32 %f<5>;
    ld.param.f32 %f1, [a];
    ld.param.u64 %rd1, [xp];
    ld.param.u64 %rd2, [xn];
    ld.param.u64 %rd3, [xs];
    ld.param.u64 %rd4, [yp];
    ld.param.u64 %rd5, [ys];
    ld.param.u64 %rd6, [op];
    ld.param.u64 %rd7, [os];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    cvt.u64.u32 %rd8, %r3;
    mad.wide.u32 %rd9, %r1, %r2, %rd8;
    setp.ge.s64 %p1, %rd9, %rd2;
    @%p1 bra DONE;
    mad.lo.s64 %rd10, %rd9, %rd3, %rd1;
    mad.lo.s64 %rd11, %rd9, %rd5, %rd4;
    mad.lo.s64 %rd12, %rd9, %rd7, %rd6;
    ld.f32 %f2, [%rd10];
    ld.f32 %f3, [%rd11];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.f32 [%rd12], %f4;
DONE:
    ret;
}
"""

# empty4(a, b, c, d: 1-d arrays): nothing (the launch-overhead kernel).
EMPTY4 = PTX_HEADER + """
.visible .entry empty4(
    .param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3, .param .u64 p4,
    .param .u64 p5, .param .u64 p6, .param .u64 p7, .param .u64 p8, .param .u64 p9,
    .param .u64 p10, .param .u64 p11)
{
    ret;
}
"""

# fill(a: 1-d float32 array, v: float32): a[i] = v.
FILL = PTX_HEADER + """
.visible .entry fill(.param .u64 ap, .param .u64 an, .param .u64 as, .param .f32 v)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<12>;
    .reg .f32 %f<2>;
    ld.param.u64 %rd1, [ap];
    ld.param.u64 %rd2, [an];
    ld.param.u64 %rd3, [as];
    ld.param.f32 %f1, [v];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    cvt.u64.u32 %rd8, %r3;
    mad.wide.u32 %rd9, %r1, %r2, %rd8;
    setp.ge.s64 %p1, %rd9, %rd2;
    @%p1 bra DONE;
    mad.lo.s64 %rd10, %rd9, %rd3, %rd1;
    st.f32 [%rd10], %f1;
DONE:
    ret;
}
"""

# probe(a: 2-d array, out: 1-d int64 array): out = [shape0, shape1, stride0, stride1, data].
PROBE2D = PTX_HEADER + """
.visible .entry probe(
    .param .u64 ap, .param .u64 n0, .param .u64 n1, .param .u64 s0, .param .u64 s1,
    .param .u64 op, .param .u64 on, .param .u64 os)
{
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [ap];
    ld.param.u64 %rd2, [n0];
    ld.param.u64 %rd3, [n1];
    ld.param.u64 %rd4, [s0];
    ld.param.u64 %rd5, [s1];
    ld.param.u64 %rd6, [op];
    ld.param.u64 %rd7, [os];
    st.u64 [%rd6], %rd2;
    add.s64 %rd6, %rd6, %rd7;
    st.u64 [%rd6], %rd3;
    add.s64 %rd6, %rd6, %rd7;
    st.u64 [%rd6], %rd4;
    add.s64 %rd6, %rd6, %rd7;
    st.u64 [%rd6], %rd5;
    add.s64 %rd6, %rd6, %rd7;
    st.u64 [%rd6], %rd1;
    ret;
}
"""

# scalars(b: bool, i: int32, d: float64, c: complex64, out: 1-d float64):
# out = [b, i, d, c.real, c.imag]; checks the packing of scalars at their natural alignment.
SCALARS = PTX_HEADER + """
.visible .entry scalars(
    .param .u8 b, .param .s32 i, .param .f64 d, .param .f32 re, .param .f32 im,
    .param .u64 op, .param .u64 on, .param .u64 os)
{
    .reg .b16 %rs<2>;
    .reg .b32 %r<2>;
    .reg .f32 %f<3>;
    .reg .f64 %fd<6>;
    .reg .b64 %rd<4>;
    ld.param.u8 %rs1, [b];
    ld.param.s32 %r1, [i];
    ld.param.f64 %fd3, [d];
    ld.param.f32 %f1, [re];
    ld.param.f32 %f2, [im];
    ld.param.u64 %rd1, [op];
    ld.param.u64 %rd2, [os];
    cvt.rn.f64.u16 %fd1, %rs1;
    cvt.rn.f64.s32 %fd2, %r1;
    cvt.f64.f32 %fd4, %f1;
    cvt.f64.f32 %fd5, %f2;
    st.f64 [%rd1], %fd1;
    add.s64 %rd1, %rd1, %rd2;
    st.f64 [%rd1], %fd2;
    add.s64 %rd1, %rd1, %rd2;
    st.f64 [%rd1], %fd3;
    add.s64 %rd1, %rd1, %rd2;
    st.f64 [%rd1], %fd4;
    add.s64 %rd1, %rd1, %rd2;
    st.f64 [%rd1], %fd5;
    ret;
}
"""


def _kernel(pyfunc_src=None):
    ns = {}
    exec(pyfunc_src or "def k(a, b):\n    pass\n", ns)
    return hardware.jit(ns["k"])


# ---- without a GPU (and with one): availability, messages, validation ----

def test_names_match_the_simulator():
    sim = pytest.importorskip("pyjit.gpu.simulator")
    missing = set(sim.__all__) - set(hardware.__all__)
    assert not missing, f"names the simulator has and the hardware backend lacks: {missing}"


def test_no_driver_is_a_clear_error():
    """With no driver, pyjit imports, is_available() is False, and GPU work names the
    simulator (run in a child process pointed at a driver that does not exist)."""
    code = textwrap.dedent("""
        import numpy as np
        from pyjit import gpu
        assert gpu.is_available() is False
        assert gpu.detect() is False
        @gpu.jit
        def k(a):
            pass
        for f in (lambda: k[1, 32](np.zeros(4)), lambda: gpu.to_device(np.zeros(3)),
                  lambda: gpu.device_array(4), lambda: gpu.stream()):
            try:
                f()
            except gpu.GpuUnavailableError as e:
                assert "PYJIT_SIMULATOR=1" in str(e), e
                assert isinstance(e, __import__("pyjit.errors").errors.CudaError)
            else:
                raise AssertionError("no error")
        print("OK")
    """)
    env = dict(os.environ, PYJIT_CUDA_DRIVER="/nonexistent/libcuda.so.1")
    env.pop("PYJIT_SIMULATOR", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "OK" in out.stdout


def test_error_classes():
    from pyjit import errors
    from pyjit.gpu import errors as gerrors
    assert gerrors.CudaError is errors.CudaError
    assert issubclass(gerrors.CudaMemoryError, MemoryError)
    assert issubclass(gerrors.CudaMemoryError, errors.CudaError)
    assert issubclass(gerrors.GpuUnavailableError, errors.CudaError)


@pytest.mark.parametrize("cfg, message", [
    ((0, 32), "griddim"),
    ((1, 0), "blockdim"),
    ((-1, 32), "griddim"),
    ((1, 2048), "1024 threads"),
    ((1, (32, 32, 2)), "1024 threads"),
    ((1, (1, 1, 128)), "limit is 64"),
    ((1, (1, 2, 3, 4)), "1 to 3"),
    (((1, 70000), 32), "65535"),
    ((1, 32, 0, -5), "sharedmem"),
])
def test_bad_launch_configuration(cfg, message):
    k = _kernel()
    with pytest.raises(ValueError, match=message) as info:
        k[cfg]
    assert "'k'" in str(info.value)


def test_configuration_types():
    k = _kernel()
    with pytest.raises(TypeError):
        k[1.5, 32]
    with pytest.raises(TypeError):
        k[1, 32, "stream"]
    with pytest.raises(ValueError, match=r"kernel\[griddim, blockdim\]"):
        k[1]
    with pytest.raises(TypeError, match="configuration"):
        k(1, 2)


def test_configuration_is_cached():
    k = _kernel()
    assert k[4, 256] is k[4, 256]
    assert k[(4, 2), (16, 16)].griddim == (4, 2, 1)
    assert k[(4, 2), (16, 16)].blockdim == (16, 16, 1)
    assert k.forall(1000).blockdim == (256, 1, 1)
    assert k.forall(1000).griddim == (4, 1, 1)
    assert k.forall(10).blockdim == (10, 1, 1)


def test_argument_count_and_kind():
    k = _kernel()
    with pytest.raises(TypeError, match="takes 2 arguments, 1 given"):
        k[1, 1](1)
    with pytest.raises(TypeError, match="positional"):
        k[1, 1](1, b=2)


def test_kernels_take_positional_parameters_only():
    with pytest.raises(TypeError, match="positional"):
        _kernel("def k(*args):\n    pass\n")


def test_host_only_names_raise_outside_kernels():
    with pytest.raises(TypeError, match="inside a kernel"):
        hardware.syncthreads()
    with pytest.raises(TypeError, match="inside a kernel"):
        hardware.threadIdx.x
    with pytest.raises(TypeError, match="inside a kernel"):
        hardware.atomic.add(None, 0, 1)


def test_direction_wrappers():
    a = np.zeros(3)
    assert hardware.In(a).array is a and hardware.Out(a).value is a
    assert repr(hardware.InOut(a)).startswith("InOut(")


def test_device_functions_are_not_callable_from_the_host():
    ns = {}
    exec("def f(x):\n    return x + 1\n", ns)
    f = hardware.jit(device=True)(ns["f"])
    with pytest.raises(TypeError, match="device function 'f'"):
        f(1)


# ---- on a GPU ----

gpu = pytest.mark.gpu


@pytest.fixture(scope="module")
def saxpy():
    return _core._cuda_load_ptx(SAXPY, "saxpy", 4)


@gpu
def test_detect_and_devices(capsys):
    assert hardware.is_available()
    assert hardware.detect() is True
    assert "Found" in capsys.readouterr().out
    assert len(hardware.gpus) >= 1
    dev = hardware.get_current_device()
    assert dev.id == 0 and dev.compute_capability >= (3, 5)
    assert dev.MAX_THREADS_PER_BLOCK == 1024
    assert hardware.select_device(0).id == 0
    free, total = hardware.current_context().get_memory_info()
    assert 0 < free <= total
    with pytest.raises(ValueError, match="no GPU 999"):
        hardware.select_device(999)


@gpu
def test_with_a_device_and_deferred_cleanup():
    with hardware.gpus[0] as dev:
        assert hardware.get_current_device().id == dev.id == 0
    # counted, not measured in free memory: other test processes share the GPU
    assert _core.cuda_deferred_frees() == 0
    with hardware.defer_cleanup():
        with hardware.defer_cleanup():   # nested: freed when the outermost block ends
            for _ in range(3):
                d = hardware.device_array(1 << 20, np.uint8)
                del d
        assert _core.cuda_deferred_frees() == 3   # still held: not freed yet
        base = hardware.device_array(16, np.uint8)
        view = base[4:]
        del base                         # the view keeps the allocation
        assert _core.cuda_deferred_frees() == 3
        del view
        assert _core.cuda_deferred_frees() == 4
    assert _core.cuda_deferred_frees() == 0


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64, np.complex128,
                                   np.bool_, np.float16])
def test_round_trip(dtype):
    h = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    d = hardware.to_device(h)
    assert d.shape == h.shape and d.strides == h.strides and d.dtype == h.dtype
    assert d.size == h.size and d.ndim == 3 and d.nbytes == h.nbytes and len(d) == 2
    np.testing.assert_array_equal(d.copy_to_host(), h)


@gpu
def test_fortran_and_empty_arrays():
    h = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    d = hardware.to_device(h)
    assert d.strides == h.strides and d.is_f_contiguous()
    out = d.copy_to_host()
    np.testing.assert_array_equal(out, h)
    assert out.flags.f_contiguous
    e = hardware.to_device(np.zeros((0, 5)))
    assert e.shape == (0, 5) and e.copy_to_host().shape == (0, 5)


@gpu
def test_device_array_and_like():
    d = hardware.device_array((3, 4), np.float32)
    assert d.shape == (3, 4) and d.dtype == np.float32
    d.copy_to_device(np.ones((3, 4), np.float32))
    np.testing.assert_array_equal(d.copy_to_host(), 1)
    like = hardware.device_array_like(d)
    assert like.shape == d.shape and like.dtype == d.dtype
    like.copy_to_device(d)
    np.testing.assert_array_equal(like.copy_to_host(), 1)
    f = hardware.device_array(5, dtype="int32", order="F")
    assert f.shape == (5,)
    with pytest.raises(TypeError):
        hardware.device_array(3, dtype=object)
    with pytest.raises(ValueError, match="negative"):
        hardware.device_array(-1)


@gpu
def test_copy_to_host_into_given_array():
    h = np.arange(10.0)
    d = hardware.to_device(h)
    out = np.empty(10)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, h)
    with pytest.raises(ValueError, match="shape"):
        d.copy_to_host(np.empty(9))
    with pytest.raises(TypeError, match="dtype"):
        d.copy_to_host(np.empty(10, np.float32))


@gpu
def test_views():
    h = np.arange(60.0).reshape(3, 4, 5)
    d = hardware.to_device(h)
    for key in [1, (1, 2), (slice(None), 1), (Ellipsis, 2), (slice(None, None, -1),),
                (slice(0, 3, 2), slice(1, None), slice(None, None, 2)), (None, 0),
                (slice(5, 1),)]:
        v = d[key]
        np.testing.assert_array_equal(v.copy_to_host(), h[key])
        assert v.shape == h[key].shape
    assert d[1, 2, 3] == h[1, 2, 3]
    assert d[-1, -1, -1] == h[-1, -1, -1]
    with pytest.raises(IndexError):
        d[3]
    with pytest.raises(IndexError):
        d[0, 0, 0, 0]
    view = d[1]
    del d
    np.testing.assert_array_equal(view.copy_to_host(), h[1])   # the view keeps the memory


@gpu
def test_reshape_and_ravel():
    h = np.arange(24.0)
    d = hardware.to_device(h)
    np.testing.assert_array_equal(d.reshape(4, 6).copy_to_host(), h.reshape(4, 6))
    np.testing.assert_array_equal(d.reshape((2, -1, 3)).copy_to_host(), h.reshape(2, -1, 3))
    np.testing.assert_array_equal(d.reshape(4, 6, order="F").copy_to_host(),
                                  h.reshape(4, 6, order="F"))
    np.testing.assert_array_equal(d.reshape(4, 6).ravel().copy_to_host(), h)
    with pytest.raises(ValueError):
        d.reshape(5, 5)
    with pytest.raises(NotImplementedError):
        d.reshape(4, 6)[:, ::2].ravel()


@gpu
def test_pinned_array():
    p = hardware.pinned_array((4, 5), np.float32)
    assert isinstance(p, np.ndarray) and p.shape == (4, 5) and p.dtype == np.float32
    p[:] = 3
    d = hardware.to_device(p)
    q = hardware.pinned_array_like(p)
    d.copy_to_host(q)
    np.testing.assert_array_equal(q, 3)
    del p, q


@gpu
def test_cuda_array_interface_and_dlpack_export():
    d = hardware.to_device(np.arange(12, dtype=np.int32).reshape(3, 4))
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 4) and cai["typestr"] == "<i4"
    assert cai["data"][0] == d.device_ctypes_pointer_value and cai["strides"] is None
    assert d[:, 1].__cuda_array_interface__["strides"] == (16,)
    assert d.__dlpack_device__() == (2, 0)
    cap = d.__dlpack__()
    assert "dltensor" in repr(cap)
    del cap   # unconsumed: released by the capsule


@gpu
def test_interop_cupy():
    cp = pytest.importorskip("cupy")
    d = hardware.to_device(np.arange(6.0))
    c = cp.asarray(d)                     # through __cuda_array_interface__
    np.testing.assert_array_equal(cp.asnumpy(c), np.arange(6.0))
    c2 = cp.from_dlpack(d)                # through DLPack
    np.testing.assert_array_equal(cp.asnumpy(c2), np.arange(6.0))
    v = hardware.as_cuda_array(cp.arange(5, dtype=cp.float32))
    np.testing.assert_array_equal(v.copy_to_host(), np.arange(5, dtype=np.float32))


@gpu
def test_interop_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    d = hardware.to_device(np.arange(6.0, dtype=np.float32))
    t = torch.from_dlpack(d)
    assert t.device.type == "cuda"
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(6.0, dtype=np.float32))


@gpu
def test_saxpy_on_device_arrays(saxpy):
    n = 1000
    x, y = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    dx, dy, dout = hardware.to_device(x), hardware.to_device(y), hardware.device_array(n, np.float32)
    saxpy[(n + 127) // 128, 128](np.float32(2.0), dx, dy, dout)
    np.testing.assert_allclose(dout.copy_to_host(), 2 * x + y, rtol=1e-6)
    # strided views are passed with their strides
    dout2 = hardware.device_array(n // 2, np.float32)
    saxpy[4, 128](np.float32(1.0), dx[::2], dy[1::2], dout2)
    np.testing.assert_allclose(dout2.copy_to_host(), x[::2] + y[1::2], rtol=1e-6)


@gpu
def test_saxpy_on_numpy_arrays(saxpy):
    n = 777
    x, y = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    saxpy[7, 128](np.float32(3.0), x, y, out)     # copied in and (every array) back
    np.testing.assert_allclose(out, 3 * x + y, rtol=1e-6)
    out2 = np.zeros(n, np.float32)
    saxpy[7, 128](np.float32(3.0), hardware.In(x), hardware.In(y), hardware.Out(out2))
    np.testing.assert_allclose(out2, 3 * x + y, rtol=1e-6)
    # a non-contiguous NumPy argument goes through a contiguous copy and back
    big = np.zeros(2 * n, np.float32)
    saxpy[7, 128](np.float32(1.0), x, y, big[::2])
    np.testing.assert_allclose(big[::2], x + y, rtol=1e-6)
    assert not big[1::2].any()


@gpu
def test_written_mask_limits_copy_back():
    a = np.zeros(100, np.float32)
    none_written = _core._cuda_load_ptx(FILL, "fill", 2, written=0)
    none_written[1, 128](a, np.float32(5))
    assert not a.any()                    # the kernel wrote it, but it was not copied back
    all_written = _core._cuda_load_ptx(FILL, "fill", 2)
    all_written[1, 128](a, np.float32(5))
    np.testing.assert_array_equal(a, 5)
    b = np.zeros(100, np.float32)
    none_written[1, 128](hardware.InOut(b), np.float32(7))   # explicit wins
    np.testing.assert_array_equal(b, 7)


@gpu
def test_array_flattening():
    probe = _core._cuda_load_ptx(PROBE2D, "probe", 2)
    d = hardware.to_device(np.zeros((6, 8), np.float32))
    out = hardware.device_array(5, np.int64)
    probe[1, 1](d[1:, ::2], out)
    o = out.copy_to_host()
    assert list(o[:4]) == [5, 4, 32, 8]
    assert o[4] == d.device_ctypes_pointer_value + 32


@gpu
def test_scalar_packing():
    k = _core._cuda_load_ptx(SCALARS, "scalars", 5)
    out = hardware.device_array(5, np.float64)
    k[1, 1](True, np.int32(-7), 2.5, np.complex64(1.5 - 2j), out)
    assert list(out.copy_to_host()) == [1.0, -7.0, 2.5, 1.5, -2.0]


@gpu
def test_foreign_arrays_as_arguments(saxpy):
    cp = pytest.importorskip("cupy")
    n = 300
    x = cp.arange(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    out = cp.zeros(n, dtype=cp.float32)
    saxpy[3, 128](np.float32(2.0), x, y, out)
    np.testing.assert_allclose(cp.asnumpy(out), 2 * np.arange(n) + 1)


class _HostDLPack:
    """A CPU tensor that exports DLPack (NumPy's export), and nothing else."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


@gpu
def test_cpu_dlpack_tensor_is_a_type_error(saxpy):
    host = _HostDLPack(np.ones(4, np.float32))
    x = hardware.to_device(np.ones(4, np.float32))
    with pytest.raises(TypeError, match="DLPack tensor of _HostDLPack is not a GPU array"):
        saxpy[1, 4](np.float32(2.0), host, x, x)
    with pytest.raises(TypeError, match="DLPack tensor of _HostDLPack is not a GPU array"):
        hardware.as_cuda_array(host)


class _Unsure:
    def __bool__(self):
        raise ZeroDivisionError("cannot say")


class _BadKey:
    """Hashes as 'shape' and, once armed, cannot be compared: a dict lookup of 'shape' raises."""

    armed = False

    def __hash__(self):
        return hash("shape")

    def __eq__(self, other):
        if self.armed:
            raise ZeroDivisionError("cannot compare")
        return self is other


def _with_bad_key(cai):
    key = _BadKey()
    bad = {key: 1}    # first, so that looking up 'shape' meets it before 'shape' itself
    bad.update(cai)
    key.armed = True
    return bad


class _ForeignCai:
    def __init__(self, d, edit):
        self.cai = edit(dict(d.__cuda_array_interface__))

    @property
    def __cuda_array_interface__(self):
        return self.cai


@gpu
def test_cuda_array_interface_whose_values_raise(saxpy):
    d = hardware.to_device(np.ones(4, np.float32))
    unsure_readonly = _ForeignCai(d, lambda c: {**c, "data": (c["data"][0], _Unsure())})
    bad_key = _ForeignCai(d, _with_bad_key)
    for foreign in (unsure_readonly, bad_key):
        with pytest.raises(ZeroDivisionError):
            saxpy[1, 4](np.float32(2.0), foreign, d, d)
        with pytest.raises(ZeroDivisionError):
            hardware.as_cuda_array(foreign)


@gpu
def test_torch_tensors_as_arguments(saxpy):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    n = 300
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    y = torch.ones(n, dtype=torch.float32, device="cuda")
    out = torch.zeros(n, dtype=torch.float32, device="cuda")
    saxpy[3, 128](np.float32(2.0), x, y, out)
    torch.cuda.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), 2 * np.arange(n) + 1)


@gpu
def test_streams_and_events(saxpy):
    n = 1 << 20
    s = hardware.stream()
    x = hardware.to_device(np.ones(n, np.float32), stream=s)
    out = hardware.device_array(n, np.float32, stream=s)
    start, end = hardware.event(), hardware.event()
    start.record(s)
    saxpy[n // 256, 256, s](np.float32(2.0), x, x, out)
    end.record(s)
    end.synchronize()
    assert end.query()
    assert hardware.event_elapsed_time(start, end) > 0
    s.synchronize()
    assert s.query()
    with s.auto_synchronize():
        h = out.copy_to_host(stream=s)
    np.testing.assert_array_equal(h, 3)
    saxpy[n // 256, 256, hardware.default_stream(), 0](np.float32(2.0), x, x, out)
    hardware.synchronize()
    assert int(hardware.default_stream()) == 0
    assert hardware.legacy_default_stream().handle == 1


@gpu
def test_device_limits_are_checked(saxpy):
    x = hardware.device_array(10, np.float32)
    with pytest.raises(ValueError, match="shared memory"):
        saxpy[1, 32, 0, 1 << 20](np.float32(1), x, x, x)
    saxpy[1, 32, 0, 100 * 1024](np.float32(1), x, x, x)     # opts in to large shared memory
    hardware.synchronize()


@gpu
def test_argument_errors(saxpy):
    x = hardware.device_array(10, np.float32)
    with pytest.raises(TypeError, match="list"):
        saxpy[1, 32](np.float32(1), [1, 2], x, x)
    with pytest.raises(TypeError):
        saxpy[1, 32](np.float32(1), "text", x, x)


@gpu
def test_driver_errors_name_themselves():
    with pytest.raises(hardware.CudaError, match="CUDA_ERROR_") as info:
        _core._cuda_load_ptx(".version 7.0\n.target sm_70\nnot ptx", "k")[1, 1]()
    assert info.value.name.startswith("CUDA_ERROR_")
    assert info.value.kernel == "k"
    with pytest.raises(MemoryError) as info:
        hardware.device_array(1 << 50, np.uint8)
    assert isinstance(info.value, hardware.CudaMemoryError)
    assert info.value.name == "CUDA_ERROR_OUT_OF_MEMORY"


@gpu
def test_memory_is_freed():
    free0, _ = hardware.current_context().get_memory_info()
    for _ in range(20):
        d = hardware.device_array(64 << 20, np.uint8)
        v = d[10:]
        del d, v
    free1, _ = hardware.current_context().get_memory_info()
    assert free1 > free0 - (256 << 20)


@gpu
def test_setitem():
    h = np.arange(24.0).reshape(4, 6)
    d = hardware.to_device(h)
    d[1] = 7
    h[1] = 7
    d[:, ::2] = np.arange(4.0)[:, None]       # strided, broadcast
    h[:, ::2] = np.arange(4.0)[:, None]
    d[2, 3] = -1
    h[2, 3] = -1
    d[3, 1:4] = [10, 11, 12]
    h[3, 1:4] = [10, 11, 12]
    np.testing.assert_array_equal(d.copy_to_host(), h)
    with pytest.raises(ValueError):
        d[0] = np.ones(5)


SAXPY_SOURCE = """
def k(a, x, y, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]
"""


def _python_saxpy():
    ns = {"gpu": __import__("pyjit").gpu}
    exec(SAXPY_SOURCE, ns)
    return hardware.jit(ns["k"])


@gpu
def test_python_kernel_without_codegen_says_so():
    if _core.cuda_has_codegen():
        pytest.skip("this pyjit compiles kernels")
    k = _python_saxpy()
    x = hardware.device_array(4, np.float32)
    with pytest.raises(NotImplementedError, match="PYJIT_SIMULATOR=1"):
        k[1, 4](np.float32(1), x, x, x)


@gpu
def test_python_kernel_compiled_and_cached():
    if not _core.cuda_has_codegen():
        pytest.skip("no GPU code generation in this pyjit yet")
    k = _python_saxpy()
    n = 1000
    x = np.random.rand(n).astype(np.float32)
    dx, dout = hardware.to_device(x), hardware.device_array(n, np.float32)
    k[(n + 255) // 256, 256](np.float32(2), dx, dx, dout)
    k[(n + 255) // 256, 256](np.float32(3), dx, dx, dout)
    assert k._nversions == 1
    np.testing.assert_allclose(dout.copy_to_host(), 4 * x, rtol=1e-6)
    assert ".entry" in next(iter(k.inspect_asm().values()))
    out = np.zeros(n, np.float32)
    k[(n + 255) // 256, 256](np.float32(2), x, x, out)
    np.testing.assert_allclose(out, 3 * x, rtol=1e-6)
    written = next(iter(k._written().values()))
    assert written & 0b1000 and not written & 0b0110   # only `out` is copied back


@gpu
def test_transpose():
    h = np.arange(24.0).reshape(2, 3, 4)
    d = hardware.to_device(h)
    np.testing.assert_array_equal(d.T.copy_to_host(), h.T)
    np.testing.assert_array_equal(d.transpose(1, 0, 2).copy_to_host(), h.transpose(1, 0, 2))
    np.testing.assert_array_equal(d.transpose((2, 0, 1)).copy_to_host(), h.transpose(2, 0, 1))
    with pytest.raises(ValueError):
        d.transpose(0, 0, 1)


SET0 = PTX_HEADER + """
.visible .entry set0(.param .u64 p, .param .f32 v)
{
    .reg .b64 %rd<2>;
    .reg .f32 %f<2>;
    ld.param.u64 %rd1, [p];
    ld.param.f32 %f1, [v];
    st.f32 [%rd1], %f1;
    ret;
}
"""


@gpu
def test_zero_dim_arrays():
    """A 0-d array is its data pointer alone (no shape, no strides)."""
    k = _core._cuda_load_ptx(SET0, "set0", 2)
    h = np.zeros((), np.float32)
    k[1, 1](h, np.float32(4.5))
    assert h[()] == 4.5
    d = hardware.to_device(np.zeros((), np.float32))
    k[1, 1](d, np.float32(2.5))
    assert d.copy_to_host()[()] == 2.5


BAD = PTX_HEADER + """
.visible .entry bad()
{
    .reg .b64 %rd<2>;
    .reg .f32 %f<2>;
    mov.u64 %rd1, 8;
    mov.f32 %f1, 0f3F800000;
    st.global.f32 [%rd1], %f1;
    ret;
}
"""


@gpu
def test_kernel_fault_names_the_kernel():
    """A fault is reported at the next synchronization, naming the kernel launched last (in a
    child process: the context cannot be used after it)."""
    code = textwrap.dedent(f"""
        from pyjit import _core
        from pyjit.gpu import hardware as gpu
        k = _core._cuda_load_ptx({BAD!r}, "bad", 0)
        k[1, 1]()
        try:
            gpu.synchronize()
        except gpu.CudaError as e:
            assert e.name == "CUDA_ERROR_ILLEGAL_ADDRESS", e.name
            assert "'bad'" in str(e) and e.kernel == "bad", str(e)
            print("OK")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert "OK" in out.stdout, out.stdout + out.stderr
