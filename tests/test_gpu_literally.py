"""numba.literally in kernels and device functions, as numba-cuda's dispatcher compiles them: a
kernel calling literally(n) on its argument is compiled for each value of n (its versions keyed
by the value), so n sizes a shared array or chooses code when compiling; a device function
sizing a shared or local array by its parameter is compiled for the constant its caller passes
(or the literal its kernel asked for). A shape read from a kernel argument not made literal is
refused, as is literally() of a float. In the interpreted simulator; in the compiled one with each
launch's kernel compiled to PTX and assembled by ptxas; and on a GPU. Results are compared with
NumPy."""
import os
import sys

import numpy as np
import pytest

from pyjit import float32, literally
from pyjit.errors import TypingError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "realworld"))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _block_sum(cuda):
    @cuda.jit(device=True)
    def block_sum(x, n):
        buf = cuda.shared.array(n, dtype=float32)      # n: a constant when this compiles
        t = cuda.threadIdx.x
        buf[t] = x
        cuda.syncthreads()
        s = float32(0)
        if t == 0:
            for j in range(n):
                s += buf[j]
        return s
    return block_sum


def test_a_kernel_asks_for_its_block_size_and_a_device_function_sizes_shared_memory(cuda):
    block_sum = _block_sum(cuda)

    @cuda.jit
    def sums(a, out, tpb):
        s = block_sum(a[cuda.grid(1)], literally(tpb))
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = s

    a = np.arange(128, dtype=np.float32)
    for tpb in (32, 64, 32):                  # a version per value, the first found again
        out = np.zeros(a.size // tpb, np.float32)
        sums[a.size // tpb, tpb](a, out, tpb)
        np.testing.assert_allclose(out, a.reshape(-1, tpb).sum(1))


def test_a_constant_passed_to_a_device_function_sizes_its_array(cuda):
    block_sum = _block_sum(cuda)

    @cuda.jit(device=True)
    def window_max(x, w):
        vals = cuda.local.array(w, dtype=float32)
        for k in range(w):
            vals[k] = x[k]
        m = vals[0]
        for k in range(1, w):
            m = max(m, vals[k])
        return m

    @cuda.jit
    def reduce_rows(a, out, peaks):
        s = block_sum(a[cuda.grid(1)], 32)
        i = cuda.grid(1)
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = s
        if i + 4 <= a.size:
            peaks[i] = window_max(a[i:], 4)

    a = np.random.default_rng(3).random(64).astype(np.float32)
    out, peaks = np.zeros(2, np.float32), np.zeros(64, np.float32)
    reduce_rows[2, 32](a, out, peaks)
    np.testing.assert_allclose(out, a.reshape(2, 32).sum(1), rtol=1e-6)
    want = np.array([a[i:i + 4].max() for i in range(61)], np.float32)
    np.testing.assert_array_equal(peaks[:61], want)


def test_literally_chooses_code_in_a_kernel(cuda):
    @cuda.jit(device=True)
    def power(x, n):
        if n == 2:
            return x * x
        if n == 3:
            return x * x * x
        return x ** n

    @cuda.jit
    def powers(x, out, n):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = power(x[i], literally(n))

    x = np.linspace(-2, 2, 50)
    for n in (2, 3, 5):
        out = np.zeros_like(x)
        powers[2, 32](x, out, n)
        np.testing.assert_allclose(out, x ** n)


def test_a_shape_from_a_kernel_argument_not_made_literal_is_refused(cuda):
    @cuda.jit
    def tile(a, n):
        buf = cuda.shared.array(n, dtype=float32)
        buf[0] = a[0]
        a[0] = buf[0]

    with pytest.raises(TypingError, match="must be a constant int or tuple of ints"):
        tile[1, 1](np.zeros(4, np.float32), 4)


def test_literally_of_a_float_is_refused(cuda):
    @cuda.jit
    def scale(out, k):
        out[0] = literally(k)

    with pytest.raises(TypingError, match="takes an int, a bool or a str"):
        scale[1, 1](np.zeros(1), 1.5)


FAKE_DRIVER_SCRIPT = '''
import numpy as np
from pyjit import cuda, float32, literally

@cuda.jit(device=True)
def block_sum(x, n):
    buf = cuda.shared.array(n, dtype=float32)
    buf[cuda.threadIdx.x] = x
    cuda.syncthreads()
    return buf[0]

@cuda.jit
def sums(a, out, tpb):
    out[0] = block_sum(a[cuda.grid(1)], literally(tpb))

a, out = np.zeros(64, np.float32), np.zeros(1, np.float32)
for t in (32, 64, 32):
    sums[1, t](a, out, t)
keys = sorted(tuple(map(str, k)) for k in sums.overloads.keys())
print(keys == [("array(float32, 1d, C)", "array(float32, 1d, C)", "Literal[int](32)"),
               ("array(float32, 1d, C)", "array(float32, 1d, C)", "Literal[int](64)")])
print(all(f"pj_shared[{4 * t}]" in sums.inspect_asm(k)
          for t, k in zip((32, 64), sorted(sums.overloads.keys(), key=str))))
'''


def test_the_gpu_launcher_keys_a_kernel_by_value_through_a_stand_in_driver(tmp_path):
    """The compiled GPU path's launcher (runtime/launch.c) through tests/fake_cuda, which loads
    kernels without running them: a version per value of the argument literally() asks for."""
    import shutil
    import subprocess
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    from pyjit import gpu
    if gpu.SIMULATOR:
        pytest.skip("the compiled GPU path")
    here = os.path.dirname(os.path.abspath(__file__))
    lib = str(tmp_path / "libfakecuda.so")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", lib,
                    os.path.join(here, "fake_cuda", "fake_cuda.c")], check=True)
    env = dict(os.environ, PYJIT_CUDA_DRIVER=lib, PYJIT_SIMULATOR="0",
               PYTHONPATH=os.path.dirname(here) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", FAKE_DRIVER_SCRIPT], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True"], r.stdout
