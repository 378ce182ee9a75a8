"""CUDA C kernels launched end to end without a GPU, through a stand-in driver
(tests/fake_cuda/fake_cuda.c, loaded with PYJIT_CUDA_DRIVER): its "device memory" is host memory
and its cuLaunchKernel hands the parameter buffer to a hook that does the kernel's work, so the
launch path itself is checked here: NumPy arrays staged and copied back where the parameter
points to non-const or gpu.Out/InOut say so, the parameters packed at the offsets a C compiler
gives the same declarations (NumPy's aligned structured dtype is the oracle), and the three
launch forms. Each case runs in a fresh process (the driver is chosen at the first use)."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from pyjit import gpu

ROOT = os.path.dirname(os.path.abspath(__file__))
hw = pytest.importorskip("pyjit.gpu.hardware")


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    if gpu.SIMULATOR or not hw._HAVE_RUNTIME:
        pytest.skip("the compiled GPU path")
    from pyjit.gpu import _link
    try:
        _link._nvrtc()
    except RuntimeError:
        pytest.skip("no NVRTC (libnvrtc)")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    lib = str(tmp_path_factory.mktemp("fake") / "libfakecuda.so")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Wno-unused-parameter",
                    "-Werror", "-o", lib, os.path.join(ROOT, "fake_cuda", "fake_cuda.c")],
                   check=True)
    return lib


PRELUDE = """
import ctypes, struct
import numpy as np
from pyjit import gpu
fake = ctypes.CDLL({lib!r})
fake.fake_last_name.restype = ctypes.c_char_p
HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint,
                        ctypes.c_uint)

def params():
    buf = ctypes.create_string_buffer(4096)
    n = fake.fake_last_params(buf)
    return buf.raw[:n]

def floats(address, n):
    return np.ctypeslib.as_array((ctypes.c_float * n).from_address(address))

def pointers(raw, count):
    return struct.unpack_from(f"<{{count}}Q", raw)
"""


def _run(lib, body):
    code = PRELUDE.format(lib=lib) + textwrap.dedent(body)
    env = dict(os.environ, PYJIT_CUDA_DRIVER=lib)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def test_pycuda_example_runs_through_the_launch_path(fake_driver):
    out = _run(fake_driver, """
        def kernel(name, raw, size, gx, bx):      # multiply_them's body, on "device" memory
            dest, a, b = pointers(ctypes.string_at(raw, size), 3)
            floats(dest, bx)[:] = floats(a, bx) * floats(b, bx)
            floats(a, bx)[:] = -1                  # a write the host must not see (gpu.In)
        hook = HOOK(kernel)
        fake.fake_set_launch_hook(hook)
        mod = gpu.SourceModule('''
        __global__ void multiply_them(float *dest, float *a, float *b)
        {
          const int i = threadIdx.x;
          dest[i] = a[i] * b[i];
        }''', cache_dir=False)
        assert mod.arch == "sm_90" and mod.cubin[:4] == b"\\x7fELF"
        f = mod.get_function("multiply_them")
        a = np.random.randn(400).astype(np.float32)
        b = np.random.randn(400).astype(np.float32)
        a0 = a.copy()
        dest = np.zeros_like(a)
        f(gpu.Out(dest), gpu.In(a), gpu.In(b), block=(400, 1, 1), grid=(1, 1))
        print(np.array_equal(dest, a * b), np.array_equal(a, a0),
              fake.fake_last_name().decode() == "multiply_them")
        dest2 = np.zeros_like(a)
        f(dest2, a.copy(), b, block=(400, 1, 1))   # no wrappers: float * is copied back
        print(np.array_equal(dest2, a * b))
    """)
    assert out == ["True"] * 4


def test_const_pointers_are_not_copied_back(fake_driver):
    out = _run(fake_driver, """
        def kernel(name, raw, size, gx, bx):      # my_add, writing its inputs too
            x1, x2, y = pointers(ctypes.string_at(raw, size), 3)
            n = gx * bx
            floats(y, n)[:] = floats(x1, n) + floats(x2, n)
            floats(x1, n)[:] = 0
        hook = HOOK(kernel)
        fake.fake_set_launch_hook(hook)
        add_kernel = gpu.RawKernel(r'''
        extern "C" __global__
        void my_add(const float* x1, const float* x2, float* y) {
            int tid = blockDim.x * blockIdx.x + threadIdx.x;
            y[tid] = x1[tid] + x2[tid];
        }''', 'my_add', cache_dir=False)
        x1 = np.arange(25, dtype=np.float32).reshape(5, 5)
        x2 = np.arange(25, dtype=np.float32).reshape(5, 5)
        y = np.zeros((5, 5), dtype=np.float32)
        add_kernel((5,), (5,), (x1, x2, y))
        print(np.allclose(y, x1 + x2), x1.sum() == 300)
        y[:] = 0
        add_kernel[5, 5](x1, x2, gpu.InOut(y))
        x1b = x1.copy()
        add_kernel[5, 5](gpu.InOut(x1b), x2, y)     # InOut: back even for const
        print(np.allclose(y, x1 + x2), x1b.sum() == 0)
        dy = gpu.to_device(np.zeros((5, 5), np.float32))
        add_kernel[5, 5](gpu.to_device(x1), x2, dy)   # device arrays in place
        print(np.allclose(dy.copy_to_host(), x1 + x2))
    """)
    assert out == ["True"] * 5


def test_parameters_packed_as_a_c_compiler_lays_them_out(fake_driver):
    out = _run(fake_driver, """
        k = gpu.RawKernel(r'''
        struct Pair { double a; int b; };
        extern "C" __global__ void scal(double *out, int i, unsigned int u, float f, double d,
                                        bool flag, short s, unsigned long long big, Pair p,
                                        signed char c, long long ll, float2 v, char last) {}
        ''', "scal", cache_dir=False)
        pair_t = np.dtype([("a", "f8"), ("b", "i4")], align=True)
        layout = np.dtype([("out", "u8"), ("i", "i4"), ("u", "u4"), ("f", "f4"), ("d", "f8"),
                           ("flag", "?"), ("s", "i2"), ("big", "u8"), ("p", pair_t),
                           ("c", "i1"), ("ll", "i8"), ("v", [("x", "f4"), ("y", "f4")]),
                           ("last", "i1")], align=True)
        pair = np.zeros((), pair_t)
        pair["a"], pair["b"] = 2.5, -7
        v = np.zeros((), layout["v"])
        v["x"], v["y"] = 1.5, -2.5
        out = gpu.device_array(11, np.float64)
        args = [-5, 4000000000, 1.25, np.float32(0.1), np.True_, np.int8(-3), 2**63 + 5,
                pair[()], -128, np.int32(-2**31), v[()], 7]
        k[1, 1](out, *args)
        expect = np.zeros((), layout)
        expect["out"] = out.device_ctypes_pointer_value
        for name, value in zip(layout.names[1:], args):
            expect[name] = value
        raw = params()
        want = expect.tobytes()
        # the buffer ends with the last parameter; the structured dtype pads to its alignment
        print(len(raw) == layout.fields["last"][1] + 1, raw == want[:len(raw)])
    """)
    assert out == ["True", "True"]


def test_launch_forms_and_configuration_reach_the_driver(fake_driver):
    out = _run(fake_driver, """
        seen = []
        def kernel(name, raw, size, gx, bx):
            seen.append((gx, bx))
        hook = HOOK(kernel)
        fake.fake_set_launch_hook(hook)
        k = gpu.RawKernel('extern "C" __global__ void f(float *x, int n) {}', "f",
                          cache_dir=False)
        x = gpu.device_array(8, np.float32)
        k(x, np.int32(8), block=(32, 1, 1), grid=(3, 1))
        k((4,), (64,), (x, 8))
        k[5, 128](x, 8)
        k.configure(6, 256)(x, 8)
        t = k(x, 8, block=(16, 1, 1), time_kernel=True)
        coop = gpu.RawKernel('extern "C" __global__ void g(float *x, int n) {}', "g",
                             cache_dir=False, enable_cooperative_groups=True)
        coop((2,), (32,), (x, 8), enable_cooperative_groups=True)   # cuLaunchCooperativeKernel
        print(seen == [(3, 32), (4, 64), (5, 128), (6, 256), (1, 16), (2, 32)], t == 0.001,
              fake.fake_launches() == 6, k.num_regs == 0, k.max_threads_per_block == 1024)
    """)
    assert out == ["True"] * 5


def test_tuples_of_arrays_are_flattened_for_a_jit_kernel(fake_driver):
    """A @gpu.jit kernel taking a tuple of arrays: each item travels as an array argument does
    (a NumPy array staged and copied back, a device array in place), packed where the kernel's
    flattened parameters put them."""
    out = _run(fake_driver, """
        def kernel(name, raw, size, gx, bx):
            # (a, (b, s)), out: a 1-d array is data, shape, stride; s an int64
            p = struct.unpack_from("<9q", ctypes.string_at(raw, size))
            a, n, b, s, o = p[0], p[1], p[3], p[6], p[6 + 1]
            doubles = lambda at: np.ctypeslib.as_array((ctypes.c_double * n).from_address(at))
            doubles(o)[:] = doubles(a) + s * doubles(b)
            doubles(a)[:] = -1          # written inside the tuple: copied back too
        hook = HOOK(kernel)
        fake.fake_set_launch_hook(hook)

        @gpu.jit
        def k(pair, out):
            a, (b, s) = pair
            i = gpu.grid(1)
            if i < out.size:
                out[i] = a[i] + s * b[i]
        a, b = np.arange(8.0), np.ones(8)
        out = np.zeros(8)
        k[1, 8]((a, (gpu.to_device(b), 3)), out)
        print(np.array_equal(out, np.arange(8.0) + 3), (a == -1).all())
    """)
    assert out == ["True", "True"]
