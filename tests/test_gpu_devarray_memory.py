"""numba-cuda's device-array memory attributes (gpu_data, a MemoryPointer with its views and
memset; alloc_size; as_cuda_arg; np.asarray of a device array), its driver's byte copies
(cuda.driver.device_to_device and the rest) and the layout of arrays made
like another (device_array_like, pinned_array_like, mapped_array_like of transposed, strided
and permuted views, as numba-cuda lays them out), the same in the three backends: the
interpreted simulator, the compiled one, and the compiled GPU path through the stand-in driver
of tests/fake_cuda (its device memory is host memory); and a record argument's trip to the
device and back. Each run is a fresh process, since the
backend and the driver are chosen at the first use."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.abspath(__file__))

SCRIPT = textwrap.dedent("""
    import numpy as np
    from pyjit import cuda

    checks = {}
    host = np.arange(24.0).reshape(4, 6)
    d = cuda.to_device(host)
    checks["alloc_size"] = d.alloc_size == host.nbytes and d.nbytes == host.nbytes
    g = d.gpu_data
    checks["gpu_data"] = (int(g.device_pointer) == d.device_ctypes_pointer.value
                          and g.size == d.alloc_size and g.handle == g.device_pointer
                          and g.device_pointer_value == g.device_ctypes_pointer.value
                          and g.device_pointer.value == int(g.device_pointer))
    v = d[1:3, ::2]             # numba-cuda: the span of its elements, from its first byte
    checks["view_alloc_size"] = v.alloc_size == 48 + 2 * 16 + 8 and v.nbytes == 6 * 8
    checks["view_gpu_data"] = int(v.gpu_data.device_pointer) == int(g.device_pointer) + 48
    r = d[::-1]                 # a negative stride: the span starts at the last row
    checks["reversed_gpu_data"] = (r.alloc_size == host.nbytes and
                                   int(r.gpu_data.device_pointer) == int(g.device_pointer))
    sub = g.view(8, 24)
    checks["pointer_view"] = sub.size == 16 and int(sub.device_pointer) == int(g.device_pointer) + 8
    z = cuda.to_device(np.arange(16, dtype=np.uint8))
    z.gpu_data.view(4).memset(7, 4)
    checks["memset"] = z.copy_to_host().tolist() == list(range(4)) + [7] * 4 + list(range(8, 16))
    s = cuda.stream()
    z.gpu_data.memset(255, stream=s)
    s.synchronize()
    checks["memset_stream"] = z.copy_to_host().tolist() == [255] * 16
    checks["asarray"] = (np.array_equal(np.asarray(d), host) and
                         np.asarray(d, dtype=np.float32).dtype == np.float32)
    try:
        np.asarray(d, copy=False)
        checks["asarray_no_copy"] = False
    except ValueError:
        checks["asarray_no_copy"] = True
    checks["as_cuda_arg"] = int(d.as_cuda_arg().device_pointer) == int(g.device_pointer)
    # numba-cuda's driver copies between byte ranges (its reduction moves partial sums so)
    parts = cuda.to_device(np.arange(10.0))
    cuda.driver.device_to_device(parts.gpu_data.view(8 * 2), parts.gpu_data.view(8 * 6), 8 * 3)
    checks["device_to_device"] = parts.copy_to_host().tolist() == [0, 1, 6, 7, 8, 5, 6, 7, 8, 9]
    cuda.driver.host_to_device(parts, np.full(4, -1.0), 8 * 4)
    back = np.zeros(10)
    cuda.driver.device_to_host(back, parts, 8 * 10)
    checks["host_device"] = back.tolist() == [-1] * 4 + [8, 5, 6, 7, 8, 9]
    cuda.driver.device_memset(parts, 0, 8 * 5)
    checks["device_memset"] = parts.copy_to_host().tolist() == [0] * 5 + [5, 6, 7, 8, 9]
    try:
        cuda.driver.device_to_host(back, parts, 8 * 11)
        checks["too_many_bytes"] = False
    except ValueError as e:
        checks["too_many_bytes"] = "88 bytes" in str(e)
    checks["empty"] = (cuda.device_array(0).alloc_size == 0 and
                       cuda.device_array(0).gpu_data.device_pointer_value is None)


    def numba_cuda_strides(a):
        # numba-cuda's _contiguous_strides_like_array and _order_like_array, restated
        if a.flags["C_CONTIGUOUS"] or a.flags["F_CONTIGUOUS"] or a.ndim <= 1:
            order = "F" if a.flags["F_CONTIGUOUS"] and not a.flags["C_CONTIGUOUS"] else "C"
            return np.empty(a.shape, a.dtype, order=order).strides
        out, step = [0] * a.ndim, a.dtype.itemsize
        for i in sorted(range(a.ndim), key=lambda i: a.strides[i]):
            out[i] = step
            step *= a.shape[i]
        return tuple(out)


    cube = np.arange(24.0).reshape(2, 3, 4)
    views = {"T": lambda x: x.T, "rows": lambda x: x[::2, 1:],
             "permuted": lambda x: x.transpose(1, 0, 2),
             "reversed": lambda x: x[:, ::-1].transpose(2, 0, 1), "strided1d": lambda x: x[::3]}
    mappable = not cuda.SIMULATOR and cuda.is_available() or cuda.SIMULATOR
    for name, make in views.items():
        src = host if name in ("T", "rows") else np.arange(12.0) if name == "strided1d" else cube
        for where, base in (("host", make(src)), ("device", make(cuda.to_device(src)))):
            want = numba_cuda_strides(base)
            like = cuda.device_array_like(base)
            checks[f"device_like_{name}_{where}"] = (like.shape == base.shape and
                                                     like.strides == want)
            checks[f"pinned_like_{name}_{where}"] = cuda.pinned_array_like(base).strides == want
            if mappable:
                checks[f"mapped_like_{name}_{where}"] = cuda.mapped_array_like(base).strides == want
    # an array made like a transposed view takes that view's contents
    t = cuda.device_array_like(host.T)
    t.copy_to_device(host.T)
    checks["like_T_holds"] = np.array_equal(t.copy_to_host(), host.T)

    # a record argument is copied to the device and back (the stand-in driver runs no kernel,
    # so there its bytes come back as they went)
    rt = np.dtype([("a", "f8"), ("n", "i4")], align=True)
    items = np.zeros(2, rt)
    items["a"] = [1.5, 2.5]

    @cuda.jit
    def put(r, out):
        if cuda.grid(1) == 0:
            out[0] = r.a
            r.n = 5

    out = np.zeros(1)
    put[1, 1](items[1], out)
    runs = cuda.SIMULATOR
    checks["record_arg"] = (out[0] == 2.5 and items[1]["n"] == 5) if runs else \
        (items[1]["a"] == 2.5 and items[1]["n"] == 0)
    on_device = cuda.to_device(items[0])       # numba-cuda's DeviceRecord
    put[1, 1](on_device, out)
    back = on_device.copy_to_host()
    checks["device_record"] = back.shape == () and (
        (out[0] == 1.5 and back["n"] == 5) if runs else back["a"] == 1.5)
    keys = list(put.overloads)      # the record and the device record: one version
    checks["device_record_version"] = len(keys) == 1 and str(keys[0][0]).startswith("record(")
    print(" ".join(f"{k}={v}" for k, v in checks.items()))
""")


def _run(env):
    env = dict(os.environ, **env)
    env["PYTHONPATH"] = os.path.dirname(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def _failed(out):
    return [item for item in out if not item.endswith("=True")]


@pytest.mark.parametrize("mode", ["1", "cpu"])
def test_memory_and_layouts_in_the_simulators(mode):
    out = _run({"PYJIT_SIMULATOR": mode})
    assert out and not _failed(out), _failed(out)


def test_memory_and_layouts_on_the_gpu_path_through_a_stand_in_driver(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    from pyjit import gpu
    if gpu.SIMULATOR:
        pytest.skip("the compiled GPU path")
    lib = str(tmp_path / "libfakecuda.so")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", lib,
                    os.path.join(ROOT, "fake_cuda", "fake_cuda.c")], check=True)
    out = _run({"PYJIT_CUDA_DRIVER": lib, "PYJIT_SIMULATOR": "0"})
    assert out and not _failed(out), _failed(out)
