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


# ---- kernels declared with signatures (numba-cuda's eager @cuda.jit('void(...)')): the C
# launcher picks the signature and converts the arguments; the packed bytes are checked against
# NumPy's conversions laid out as a C compiler lays out the parameters ----

def test_declared_signature_converts_scalars_in_the_launcher(fake_driver):
    out = _run(fake_driver, """
        sig = ('void(float32[:], float32, int32, float64, int8, boolean, float16, complex64, '
               'uint64, UniTuple(float32, 2))')

        @gpu.jit(sig)
        def k(x, f, i, d, b, flag, h, c, u, t):
            x[0] = f + i + d + b + flag + h + c.real + u + t[0] + t[1]

        x = gpu.device_array(4, np.float32)
        args = [0.1, np.int64(70), 3, 300, 5, 0.3, 2.0, 2**63 + 5, (0.25, 7)]
        k[1, 1](x, *args)
        layout = np.dtype([("p", "u8"), ("n", "i8"), ("s", "i8"), ("f", "f4"), ("i", "i4"),
                           ("d", "f8"), ("b", "i1"), ("flag", "?"), ("h", "f2"), ("c", "c8"),
                           ("u", "u8"), ("t0", "f4"), ("t1", "f4")], align=True)
        want = np.zeros((), layout)
        want["p"], want["n"], want["s"] = x.device_ctypes_pointer_value, 4, 4
        values = args[:-1] + list(args[-1])
        for name, v in zip(layout.names[3:], values):
            want[name] = np.asarray(v).astype(layout[name])   # NumPy's conversion, wrapping
        raw = params()
        got = np.frombuffer(raw.ljust(layout.itemsize, b"\\0"), layout)[0]
        print(all(got[f] == want[f] for f in layout.names),   # padding bytes are not compared
              len(raw) == layout.fields["t1"][1] + 4)
        # the version compiled is the declared one (scalars strong), arrays of their own layout
        names = [n for n, _ in k._versions()]
        print(names == [("array(float32, 1d, C)", "float32", "int32", "float64", "int8", "bool",
                         "float16", "complex64", "uint64", "tuple(float32, float32)")])
        # NumPy scalars of the declared types, and other ints and floats: the same version
        k[1, 1](x, np.float32(0.1), np.int32(70), 3.0, np.int8(44), True, np.float16(0.3),
                np.complex64(2), np.uint64(2**63 + 5), (np.float32(0.25), 7.0))
        again = np.frombuffer(params().ljust(layout.itemsize, b"\\0"), layout)[0]
        print(all(again[f] == want[f] for f in layout.names), len(k._versions()) == 1)
    """)
    assert out == ["True"] * 5


def test_declared_signature_refusals_name_the_parameter(fake_driver):
    out = _run(fake_driver, """
        @gpu.jit('void(float32[:, ::1], int32, float32)')
        def k(a, n, s):
            a[0, 0] = n * s

        a = np.zeros((3, 4), np.float32)
        cases = [((np.zeros((3, 4)), 1, 1.0), "argument 1 'a' takes array(float32, 2d, C), "
                                              "given array(float64, 2d, C)"),
                 ((np.zeros(12, np.float32), 1, 1.0), "given array(float32, 1d, C)"),
                 ((a[:, ::2], 1, 1.0), "given array(float32, 2d, A)"),
                 ((np.asfortranarray(a), 1, 1.0), "given array(float32, 2d, F)"),
                 ((a, 1.5, 1.0), "argument 2 'n' takes int32, given float64 (a float is not "
                                 "converted"),
                 ((a, np.float32(2), 1.0), "argument 2 'n' takes int32, given float32"),
                 ((a, 1, 1j), "argument 3 's' takes float32, given complex128"),
                 ((a, 1, gpu.to_device(a)), "argument 3 's' takes float32, given array"),
                 ((1.0, 1, 1.0), "argument 1 'a' takes array(float32, 2d, C), given float64")]
        for args, text in cases:
            try:
                k[1, 1](*args)
                print("launched", args)
            except TypeError as e:
                ok = str(e).startswith("k(): no matching definition for argument type(s)")
                print(ok and text in str(e) or str(e))
        print(fake.fake_launches() == 0)
        try:
            gpu.jit('void(float32[:])')(lambda a, b: None)
        except TypeError as e:
            print("takes 2 arguments; its signature declares 1" in str(e))
    """)
    assert out == ["True"] * 11


def test_declared_signatures_choose_the_best_conversion(fake_driver):
    out = _run(fake_driver, """
        def make():
            @gpu.jit(['void(float64[:], int32)', 'void(float32[:], float32)',
                      'void(float32[:], float64)', 'void(float32[::1], int16)'])
            def k(x, v):
                x[0] = v
            return k

        x32, x64 = np.zeros(4, np.float32), np.zeros(4)
        got = []
        for x, v in [(x64, 3), (x32, np.float32(1)), (x32, 1.5), (x32, np.int16(2)),
                     (x32[::2], np.int16(2)), (x32, 7)]:
            k = make()
            k[1, 1](x, v)
            (names, _coop), = k._versions()
            got.append(names[1])
        # exact matches first; a Python float is a float64; an int16 takes the [::1] signature
        # only for a contiguous array (otherwise float32 and float64 are equally good: the first
        # declared); a Python int converts safely to float64 only
        print(got == ["int32", "float32", "float64", "int16", "float32", "float64"])
        try:
            k[1, 1](np.zeros(4, np.int32), 1)
        except TypeError as e:
            print(str(e).count("argument 1 'x' takes") == 4)
    """)
    assert out == ["True", "True"]


def test_declared_signature_with_host_foreign_and_wrapped_arrays(fake_driver):
    """Host arrays are still staged and copied back, gpu.In/Out/InOut still say which way,
    and CUDA Array Interface and DLPack objects are taken in place under a declared signature."""
    out = _run(fake_driver, """
        def kernel(name, raw, size, gx, bx):      # out[:] = a * s, reading the packed buffer
            raw = ctypes.string_at(raw, size)
            out, n = struct.unpack_from("<qq", raw)
            a = struct.unpack_from("<q", raw, 24)[0]
            s = struct.unpack_from("<f", raw, 48)[0]
            floats(out, n)[:] = floats(a, n) * s
        hook = HOOK(kernel)
        fake.fake_set_launch_hook(hook)

        @gpu.jit('void(float32[:], float32[:], float32)')
        def scale(out, a, s):
            i = gpu.grid(1)
            if i < out.size:
                out[i] = a[i] * s

        a = np.arange(8, dtype=np.float32)
        want = a * np.float32(0.1)
        out = np.zeros(8, np.float32)
        scale[1, 8](out, a, 0.1)
        print(np.array_equal(out, want))
        out[:] = 0
        scale[1, 8](gpu.Out(out), gpu.In(a), 0.1)
        print(np.array_equal(out, want))

        class Cai:                         # another library's device array, by its interface
            def __init__(self, d):
                self.d = d
                self.__cuda_array_interface__ = d.__cuda_array_interface__

        class DLPack:                      # and by DLPack only
            def __init__(self, d):
                self.d = d
            def __dlpack__(self, stream=None, **kw):
                return self.d.__dlpack__(stream=stream, **kw)
            def __dlpack_device__(self):
                return self.d.__dlpack_device__()

        dout, da = gpu.device_array(8, np.float32), gpu.to_device(a)
        scale[1, 8](Cai(dout), DLPack(da), 0.1)
        print(np.array_equal(dout.copy_to_host(), want))
        try:
            scale[1, 8](Cai(gpu.device_array(8, np.float64)), da, 0.1)
        except TypeError as e:
            print("argument 1 'out' takes array(float32, 1d, A), given array(float64, 1d, C)"
                  in str(e))
    """)
    assert out == ["True"] * 4
