"""numba-cuda host code of frame pipelines and multi-GPU harnesses, the import switched to pyjit:
frames pushed through several streams (pinned staging, a grey conversion, a box blur and a
histogram per frame), each stream's completion reported by `stream.add_callback` into a log the
host reads after synchronising, `copy_to_host(ary, stream)` with both given by position; the
devices listed from `cuda.gpus` with their `uuid`, entered with `with cuda.gpus[i]:`; kernels'
versions read from `kernel.definitions` (numba-cuda's older name) beside `overloads`; work
bracketed by `cuda.profile_start()`/`profile_stop()` and the context released by `cuda.close()`;
Fortran-ordered device arrays (`device_array(..., order='F')`) written by a kernel; device
arrays shared through `get_ipc_handle` where the backend has IPC, a clear error where not.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy.
"""
import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pyjit import float32

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _simulated(cuda):
    return "simulat" in repr(cuda.gpus[0])


# ---- frames through streams: each frame staged in a pinned buffer, converted to grey, blurred
# by a 3x3 box and histogrammed on its stream; a callback per frame logs (frame, status) when
# the stream reaches it, and the host waits on the streams before reading the log (a video
# analytics pipeline) ----

def test_frame_pipeline_with_stream_callbacks(cuda):
    @cuda.jit
    def to_grey(rgb, grey):
        y, x = cuda.grid(2)
        if y < grey.shape[0] and x < grey.shape[1]:
            grey[y, x] = 0.299 * rgb[y, x, 0] + 0.587 * rgb[y, x, 1] + 0.114 * rgb[y, x, 2]

    @cuda.jit
    def box_blur(src, dst):
        y, x = cuda.grid(2)
        h, w = src.shape
        if y < h and x < w:
            acc = 0.0
            cnt = 0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    yy = y + dy
                    xx = x + dx
                    if 0 <= yy < h and 0 <= xx < w:
                        acc += src[yy, xx]
                        cnt += 1
            dst[y, x] = acc / cnt

    @cuda.jit
    def histogram(img, bins):
        y, x = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            b = min(int(img[y, x] * bins.shape[0] / 256.0), bins.shape[0] - 1)
            cuda.atomic.add(bins, b, 1)

    rng = np.random.default_rng(41)
    h, w, nframes = 20, 28, 6
    frames = rng.integers(0, 256, (nframes, h, w, 3)).astype(np.float32)
    streams = [cuda.stream() for _ in range(3)]
    log = []

    def done(stream, status, frame):
        log.append((frame, status))

    blurred = [np.zeros((h, w), np.float32) for _ in range(nframes)]
    hists = [np.zeros(16, np.int32) for _ in range(nframes)]
    grid = ((h + 7) // 8, (w + 7) // 8)
    cuda.profile_start()
    for f in range(nframes):
        s = streams[f % len(streams)]
        staged = cuda.pinned_array((h, w, 3), np.float32)
        staged[:] = frames[f]
        d_rgb = cuda.to_device(staged, stream=s)
        d_grey = cuda.device_array((h, w), np.float32, stream=s)
        d_blur = cuda.device_array((h, w), np.float32, stream=s)
        d_hist = cuda.to_device(np.zeros(16, np.int32), stream=s)
        to_grey[grid, (8, 8), s](d_rgb, d_grey)
        box_blur[grid, (8, 8), s](d_grey, d_blur)
        histogram[grid, (8, 8), s](d_blur, d_hist)
        d_blur.copy_to_host(blurred[f], s)
        d_hist.copy_to_host(hists[f], s)
        s.add_callback(done, f)
    for s in streams:
        s.synchronize()
    cuda.profile_stop()
    assert sorted(log) == [(f, 0) for f in range(nframes)]
    for f in range(nframes):
        grey = (np.float32(0.299) * frames[f, :, :, 0] + np.float32(0.587) * frames[f, :, :, 1]
                + np.float32(0.114) * frames[f, :, :, 2])
        pad = np.pad(grey.astype(np.float64), 1)
        ones = np.pad(np.ones((h, w)), 1)
        acc = sum(pad[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx] for dy in (-1, 0, 1)
                  for dx in (-1, 0, 1))
        cnt = sum(ones[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx] for dy in (-1, 0, 1)
                  for dx in (-1, 0, 1))
        np.testing.assert_allclose(blurred[f], acc / cnt, rtol=1e-5)
        b = np.minimum((blurred[f] * 16 / 256.0).astype(np.int64), 15)
        np.testing.assert_array_equal(hists[f], np.bincount(b.ravel(), minlength=16))

    with pytest.raises(TypeError, match="callable"):
        streams[0].add_callback(42)


# ---- the devices of a multi-GPU harness: every GPU listed with its UUID, work placed on each by
# entering it, then each kernel's versions listed from kernel.definitions (a benchmark script);
# the context is released at the end with cuda.close() ----

def test_devices_uuid_definitions_close(cuda):
    @cuda.jit
    def scale(a, f):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= f

    uuids = []
    outs = []
    for dev in cuda.gpus:
        assert re.fullmatch(r"GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                            dev.uuid)
        uuids.append(dev.uuid)
        with cuda.gpus[dev.id]:
            d = cuda.to_device(np.arange(10.0))
            scale[1, 32](d, 3.0)
            outs.append(d.copy_to_host())
    assert len(set(uuids)) == len(uuids) == len(cuda.gpus)
    assert cuda.get_current_device().uuid == uuids[0]
    for o in outs:
        np.testing.assert_array_equal(o, np.arange(10.0) * 3.0)
    scale[1, 32](np.ones(5, np.float32), np.float32(2))
    defs = scale.definitions
    assert isinstance(defs, dict) and len(defs) == 2
    assert set(defs) == set(scale.overloads.keys())
    assert any("float32" in " ".join(k) for k in defs)
    declared = cuda.jit("void(int32[:], int32)")(scale.py_func)
    assert list(declared.definitions) == [("array(int32, 1d, A)", "int32")]
    with pytest.raises(ValueError, match="not specialized"):
        scale.definition
    cuda.synchronize()
    cuda.close()
    # a program may go on after close(): the context comes back on next use
    d = cuda.to_device(np.ones(4))
    scale[1, 32](d, 5.0)
    np.testing.assert_array_equal(d.copy_to_host(), np.full(4, 5.0))


# ---- Fortran-ordered device arrays: a column-major matrix from a Fortran solver, made on the
# device with order='F', filled by a kernel and a column-sum kernel over it; copied back into a
# column-major host array given by position with a stream (a climate code's GPU path) ----

def test_fortran_order_device_arrays(cuda):
    @cuda.jit
    def fill(a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] = i * 100 + j

    @cuda.jit
    def column_sums(a, out):
        j = cuda.grid(1)
        if j < a.shape[1]:
            s = 0.0
            for i in range(a.shape[0]):
                s += a[i, j]
            out[j] = s

    m, n = 13, 9
    d = cuda.device_array((m, n), dtype=np.float64, order="F")
    assert d.strides == (8, 8 * m) and d.is_f_contiguous() and not d.is_c_contiguous()
    fill[(2, 2), (8, 8)](d)
    s = cuda.stream()
    host = np.empty((m, n), order="F")
    d.copy_to_host(host, s)
    s.synchronize()
    want = np.arange(m)[:, None] * 100.0 + np.arange(n)[None, :]
    np.testing.assert_array_equal(host, want)
    out = cuda.device_array(n)
    column_sums[1, 32](d, out)
    np.testing.assert_array_equal(out.copy_to_host(), want.sum(0))
    like = cuda.device_array_like(np.asfortranarray(want))
    assert like.strides == d.strides


# ---- device arrays shared with another process through IPC handles: the handle pickles; a
# backend without IPC (the simulators) says so clearly (a data-loader worker pool) ----

def test_ipc_handle_or_clear_error(cuda):
    d = cuda.to_device(np.arange(16.0))
    if _simulated(cuda):
        with pytest.raises(NotImplementedError, match="IPC"):
            d.get_ipc_handle()
        return
    handle = d.get_ipc_handle()
    again = pickle.loads(pickle.dumps(handle))
    assert again is not None


# ---- a bandwidth harness: the device's theoretical bandwidth from its memory clock and bus
# width, a grid sized by its occupancy limits (threads per multiprocessor, multiprocessors),
# a STREAM triad and copy timed by events; the register count asked of the driver where there
# is one; the arrays' addresses as ctypes pointers for a ctypes-bound library (a GPU benchmark
# suite's harness) ----

def test_bandwidth_harness_device_attributes(cuda):
    @cuda.jit
    def triad(a, b, c, s):
        start = cuda.grid(1)
        for i in range(start, a.size, cuda.gridsize(1)):
            a[i] = b[i] + s * c[i]

    @cuda.jit
    def copy(dst, src):
        start = cuda.grid(1)
        for i in range(start, dst.size, cuda.gridsize(1)):
            dst[i] = src[i]

    dev = cuda.get_current_device()
    assert (dev.COMPUTE_CAPABILITY_MAJOR, dev.COMPUTE_CAPABILITY_MINOR) == dev.compute_capability
    assert dev.MAX_REGISTERS_PER_BLOCK >= 32 * dev.WARP_SIZE
    assert dev.L2_CACHE_SIZE > 0 and dev.TOTAL_CONSTANT_MEMORY == 64 * 1024
    assert dev.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN >= dev.MAX_SHARED_MEMORY_PER_BLOCK
    peak_gbs = 2.0 * dev.MEMORY_CLOCK_RATE * 1e3 * (dev.GLOBAL_MEMORY_BUS_WIDTH / 8) / 1e9
    assert peak_gbs > 100
    with pytest.raises(AttributeError, match="CU_DEVICE_ATTRIBUTE"):
        dev.NOT_AN_ATTRIBUTE

    n, tpb = 3000, 128
    blocks_per_sm = dev.MAX_THREADS_PER_MULTI_PROCESSOR // tpb
    blocks = min(blocks_per_sm * dev.MULTIPROCESSOR_COUNT, (n + tpb - 1) // tpb // 2)
    rng = np.random.default_rng(42)
    b = cuda.to_device(rng.random(n))
    c = cuda.to_device(rng.random(n))
    a = cuda.device_array(n)
    start, stop = cuda.event(), cuda.event()
    start.record()
    triad[blocks, tpb](a, b, c, 3.0)
    stop.record()
    stop.synchronize()
    ms = cuda.event_elapsed_time(start, stop)
    assert ms >= 0
    # b + s * c is one fused multiply-add on a GPU (rounded once), as numba-cuda compiles it
    # too (NVVM contracts without fastmath): NumPy rounds the product and the sum apart
    np.testing.assert_allclose(a.copy_to_host(), b.copy_to_host() + 3.0 * c.copy_to_host(),
                               rtol=4 * np.finfo(np.float64).eps, atol=0)
    d = cuda.device_array_like(a)
    copy[blocks, tpb](d, a)
    np.testing.assert_array_equal(d.copy_to_host(), a.copy_to_host())

    ptr = a.device_ctypes_pointer
    assert ptr.value == a.__cuda_array_interface__["data"][0]
    assert cuda.device_array(0).device_ctypes_pointer.value is None
    if _simulated(cuda):
        with pytest.raises(NotImplementedError, match="get_regs_per_thread"):
            triad.get_regs_per_thread()
    else:
        (regs,) = triad.get_regs_per_thread().values()
        assert 0 < regs <= 255


# ---- the same host API on the compiled GPU path, through the stand-in driver of
# tests/fake_cuda (device memory is host memory; kernels are loaded, not run): the UUID the
# driver gives, a stream callback run from the driver's own thread and delivered after
# synchronising, attributes read from the driver by name, a kernel's defaults filled in at the
# launch, its versions from definitions, the arrays' ctypes pointers ----

GPU_PATH_SCRIPT = textwrap.dedent("""
    import numpy as np
    from pyjit import cuda

    dev = cuda.get_current_device()
    print(dev.uuid)
    print(dev.MEMORY_CLOCK_RATE, dev.GLOBAL_MEMORY_BUS_WIDTH, dev.L2_CACHE_SIZE,
          dev.MAX_THREADS_PER_MULTI_PROCESSOR, dev.MAX_REGISTERS_PER_BLOCK)
    s = cuda.stream()
    log = []
    s.add_callback(lambda stream, status, arg: log.append((stream is s, status, arg)), "frame 7")
    s.synchronize()
    print(log)

    @cuda.jit
    def axpy(out, x, a=2.0, b=1.0):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + b

    x = cuda.to_device(np.arange(4.0))
    out = cuda.device_array(4)
    axpy[1, 32](out, x)
    axpy[1, 32](out, x, 3.0)
    axpy[1, 32](out, x, 3.0, 4.0)
    # a Python float (weak, NEP 50, in the GPU path's code) is named float64 in the versions'
    # keys, as the simulators and numba-cuda name it
    print(sorted(axpy.definitions))
    # a kernel declared with a signature has that version, named as every backend names it
    declared = cuda.jit("void(int32[:], int32)")(lambda a, n: None)
    print(list(declared.definitions), list(declared.overloads.keys()))
    # specialize takes device arrays (and a Python number) as the launch does
    only = axpy.specialize(out, x, 3.0)
    only[1, 32](out, x, 3.0)
    print(only.argtypes)
    print(out.device_ctypes_pointer.value == out.device_ctypes_pointer_value)
    m = cuda.mapped_array_like(np.zeros((2, 3), np.float32, order="F"))
    print(type(m).__name__, m.shape, m.dtype, m.flags.f_contiguous)
""")


def test_host_api_on_the_gpu_path_through_a_stand_in_driver(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    from pyjit import _core
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("a pyjit built without GPU code generation")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    lib = str(tmp_path / "libfakecuda.so")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", lib,
                    os.path.join(root, "tests", "fake_cuda", "fake_cuda.c")], check=True)
    env = dict(os.environ, PYJIT_CUDA_DRIVER=lib, PYJIT_SIMULATOR="0", PYTHONPATH=root)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    r = subprocess.run([sys.executable, "-c", GPU_PATH_SCRIPT], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f"
    assert lines[1].split() == ["2619000", "5120", "52428800", "2048", "65536"]
    assert lines[2] == "[(True, 0, 'frame 7')]"
    assert lines[3] == ("[('array(float64, 1d, C)', 'array(float64, 1d, C)', 'float64', "
                        "'float64')]")
    assert lines[4] == "[('array(int32, 1d, A)', 'int32')] [('array(int32, 1d, A)', 'int32')]"
    assert lines[5] == ("('array(float64, 1d, C)', 'array(float64, 1d, C)', 'float64')")
    assert lines[6] == "True"
    assert lines[7] == "MappedNDArray (2, 3) float32 True"


# ---- a Python device function handed to CUDA C code: cuda.compile gives it the C ABI under a
# chosen name (numba-cuda's default for cuda.compile), the PTX is written out and declared back
# with declare_device(link=...) for a kernel to call, as CUDA C++ code declaring it
# `extern "C" __device__` would; kernels and other ABIs refused clearly (numba-cuda's
# "calling Python device functions from CUDA C" recipe) ----

def smoothstep(e0, e1, x):
    t = min(max((x - e0) / (e1 - e0), 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def test_device_function_with_the_c_abi(cuda, tmp_path):
    ptx, resty = cuda.compile(smoothstep, "float32(float32, float32, float32)",
                              abi_info={"abi_name": "smoothstep_f"})
    assert resty == "float32"
    assert re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\) smoothstep_f\(\s*"
                     r"\.param \.b32 smoothstep_f_param_0,\s*\.param \.b32 smoothstep_f_param_1,"
                     r"\s*\.param \.b32 smoothstep_f_param_2\s*\)", ptx), ptx
    assert ".entry" not in ptx
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from util import assemble_ptx, link_ptx
    assemble_ptx(ptx)
    plain, _ = cuda.compile_ptx(smoothstep, "float32(float32, float32, float32)", device=True)
    assert "smoothstep_f" not in plain                         # pyjit's own ABI by default
    with pytest.raises(ValueError, match="device functions"):
        cuda.compile(smoothstep, "float32(float32, float32, float32)", device=False)
    with pytest.raises(NotImplementedError, match="PTX only"):
        cuda.compile(smoothstep, "float32(float32, float32, float32)", output="ltoir")
    with pytest.raises(ValueError, match="'numba' and 'c'"):
        cuda.compile(smoothstep, "float32(float32, float32, float32)", abi="fortran")

    path = tmp_path / "smoothstep.ptx"
    path.write_text(ptx)
    if _simulated(cuda):
        # a PTX file is GPU code, which the simulators cannot run: they say so, and the kernel
        # calling it is compiled for the GPU and assembled instead
        with pytest.raises(NotImplementedError, match="GPU"):
            cuda.declare_device("smoothstep_f", "float32(float32, float32, float32)",
                                link=[str(path)], abi="c")
        from pyjit.gpu import hardware as hw
        hstep = hw.declare_device("smoothstep_f", "float32(float32, float32, float32)",
                                  link=[str(path)], abi="c")

        def hramp(x, out):
            i = hw.grid(1)
            if i < x.size:
                out[i] = hstep(float32(0.25), float32(0.75), x[i])

        kptx, _ = hw.compile_ptx(hramp, "void(float32[:], float32[:])")
        assert re.search(r"\.extern \.func .*smoothstep_f", kptx)
        assemble_ptx(kptx)
        link_ptx([kptx, ptx])      # the driver's link of the two: the prototypes must agree
        return
    # a C ABI function is declared with abi="c", as numba-cuda's declare_device takes it (the
    # default, numba-cuda's own ABI, would call int smoothstep_f(float *result, ...))
    step = cuda.declare_device("smoothstep_f", "float32(float32, float32, float32)",
                               link=[str(path)], abi="c")

    @cuda.jit
    def ramp(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = step(float32(0.25), float32(0.75), x[i])

    x = np.linspace(0, 1, 41).astype(np.float32)
    out = np.zeros_like(x)
    ramp[2, 32](x, out)
    t = np.clip((x.astype(np.float64) - 0.25) / 0.5, 0, 1)
    np.testing.assert_allclose(out, t * t * (3 - 2 * t), rtol=1e-5, atol=1e-6)


def test_mapped_array_like_used_in_place(cuda):
    @cuda.jit
    def bump(a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] += i - j

    template = np.asfortranarray(np.ones((5, 6), np.float32))
    m = cuda.mapped_array_like(template)
    assert m.shape == (5, 6) and m.dtype == np.float32
    m[:] = template
    bump[(1, 1), (8, 8)](m)
    cuda.synchronize()
    np.testing.assert_array_equal(m, 1 + np.arange(5)[:, None] - np.arange(6)[None, :])


# ---- a GPU library's own test suite, written against numba-cuda's testing helpers: test cases
# from CUDATestCase and ContextResettingTestCase, tests skipped on the simulator or off it or
# below a compute capability; run under the simulator as such suites are in CI ----

SUITE_SCRIPT = textwrap.dedent("""
    import numpy as np
    from pyjit import cuda
    from pyjit.cuda.testing import (CUDATestCase, ContextResettingTestCase, skip_on_cudasim,
                                    skip_unless_cudasim, skip_unless_cc_60, unittest)
    from pyjit.cuda.cudadrv.devices import reset

    @cuda.jit
    def axpy(a, x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] += a * x[i]

    class TestAxpy(CUDATestCase):
        def test_values(self):
            y = np.ones(10)
            axpy[1, 32](2.0, np.arange(10.0), y)
            np.testing.assert_array_equal(y, 1 + 2 * np.arange(10.0))

        @skip_on_cudasim("times the GPU")
        def test_timing(self):
            raise AssertionError("ran under the simulator")

        @skip_unless_cudasim("checks the simulator's bounds checks")
        def test_out_of_bounds_is_caught(self):
            @cuda.jit
            def past_the_end(x):
                x[x.size] = 1.0
            with self.assertRaises(IndexError):
                past_the_end[1, 1](np.zeros(3))

        @skip_unless_cc_60
        def test_double_atomics(self):
            @cuda.jit
            def total(x, out):
                cuda.atomic.add(out, 0, x[cuda.grid(1)])
            out = np.zeros(1)
            total[1, 8](np.arange(8.0), out)
            self.assertEqual(out[0], 28.0)

    class TestReset(ContextResettingTestCase):
        def test_after_reset(self):
            reset()
            d = cuda.to_device(np.arange(3.0))
            self.assertEqual(d.copy_to_host().tolist(), [0.0, 1.0, 2.0])

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(TestAxpy)
    suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(TestReset))
    result = unittest.TextTestRunner(verbosity=0).run(suite)
    print(result.testsRun, len(result.skipped), len(result.failures), len(result.errors))
""")


def test_library_suite_on_the_testing_helpers():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYJIT_SIMULATOR="1", PYTHONPATH=root)
    r = subprocess.run([sys.executable, "-c", SUITE_SCRIPT], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["5", "1", "0", "0"], r.stderr
