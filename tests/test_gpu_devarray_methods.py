"""numba-cuda's device-array methods beyond copies (squeeze, split, view, bind, getitem,
setitem), the same in the three backends: the interpreted simulator, the compiled one, and the
compiled GPU path through the stand-in driver of tests/fake_cuda (its device memory is host
memory, so the views' geometry and the bytes they read are checked without a GPU). Each run is a
fresh process, since the backend and the driver are chosen at the first use."""
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

    host = np.arange(12.0).reshape(1, 3, 4, 1)
    d = cuda.to_device(host)
    checks = [
        d.squeeze().shape == (3, 4),
        d.squeeze(axis=0).shape == (3, 4, 1),
        d.squeeze(axis=(0, -1)).shape == (3, 4),
        np.array_equal(d.squeeze().copy_to_host(), host.squeeze()),
    ]
    try:
        d.squeeze(axis=1)
        checks.append(False)
    except ValueError as e:
        checks.append("not an axis of length 1" in str(e))
    f = cuda.to_device(np.arange(10, dtype=np.int32))
    checks.append([p.copy_to_host().tolist() for p in f.split(4)]
                  == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]])
    try:
        cuda.to_device(np.zeros((2, 3))).split(2)
        checks.append(False)
    except ValueError as e:
        checks.append("only a 1-d device array" in str(e))
    b = f.view(np.uint8)
    checks.append(b.shape == (40,) and b.dtype == np.uint8)
    checks.append(np.array_equal(b.copy_to_host(), np.arange(10, dtype=np.int32).view(np.uint8)))
    x = np.linspace(-1, 1, 8).astype(np.float32)
    checks.append(np.array_equal(cuda.to_device(x).view("i4").copy_to_host(), x.view(np.int32)))
    s = cuda.stream()
    bound = f.bind(s)
    checks.append(bound.shape == f.shape and bound.stream is not None)
    checks.append(f.getitem(3) == 3 and f.getitem(slice(2, 4)).copy_to_host().tolist() == [2, 3])
    f.setitem(0, 99, stream=s)
    s.synchronize()
    checks.append(f.copy_to_host()[:2].tolist() == [99, 1])

    @cuda.jit
    def scale(x, k):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= k

    if not cuda.is_available() or cuda.SIMULATOR:   # the stand-in driver runs no kernels
        for part in cuda.to_device(np.ones(10)).split(3):
            scale[1, 32](part, 2.0)
            checks.append(part.copy_to_host().tolist() == [2.0] * part.size)
    print(" ".join(str(c) for c in checks))
""")


def _run(env):
    env = dict(os.environ, **env)
    env["PYTHONPATH"] = os.path.dirname(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


@pytest.mark.parametrize("mode", ["1", "cpu"])
def test_methods_in_the_simulators(mode):
    out = _run({"PYJIT_SIMULATOR": mode})
    assert out and all(v == "True" for v in out), out


def test_methods_on_the_gpu_path_through_a_stand_in_driver(tmp_path):
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
    assert out and all(v == "True" for v in out), out
