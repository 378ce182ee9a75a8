"""numba-cuda kernels of a GPU signal-processing library, the import switched to pyjit: kernels
compiled per data type from one Python function and a signature built from the type
(`void(ty[:], ty[:], int64, ...)`, `cuda.jit(sig, fastmath=True)(f)`), kept in a cache keyed by
the dtype's name, and launched on a stream that another library made (its `.ptr` wrapped by
`cuda.external_stream`, or by `cuda.cudadrv.driver.Stream(weakref.proxy(cuda.devices.get_context()),
c_void_p(ptr), finalizer=None)` as libraries did before numba-cuda had it): a Lomb-Scargle
periodogram over a grid-stride loop (float32 and float64), polyphase upsample-filter-downsample
in 1-d (float and complex types, the accumulator annotated `temp: out.dtype = 0`, indices
narrowed by `np.int32(...)`) and in 2-d along either axis, a 2-d convolution indexing the image
and the filter with tuples of positions.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy.
"""
import os
import subprocess
import sys
import textwrap
from math import atan2, cos, sin

import numpy as np

from pyjit import complex64, complex128, float32, float64, int64, void
from pyjit.types import Complex

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU

_TYPES = {np.float32: float32, np.float64: float64, np.complex64: complex64,
          np.complex128: complex128}


class _LibraryStream:
    """Another library's stream: only its CUstream handle, as .ptr (CuPy's shape)."""

    def __init__(self, cuda):
        self._own = cuda.stream()
        self.ptr = int(self._own.handle) if hasattr(self._own, "handle") else int(self._own)

    def synchronize(self):
        self._own.synchronize()


def _wrap_stream(cuda, lib_stream):
    return cuda.external_stream(lib_stream.ptr)


# ---- the kernels, as the library writes them: plain functions compiled per type ----

def lombscargle_kernel(x, y, freqs, pgram, y_dot):
    F = cuda_mod.grid(1)
    strideF = cuda_mod.gridsize(1)
    if not y_dot[0]:
        yD = 1.0
    else:
        yD = 2.0 / y_dot[0]
    for i in range(F, freqs.shape[0], strideF):
        freq = freqs[i]
        xc = 0.0
        xs = 0.0
        cc = 0.0
        ss = 0.0
        cs = 0.0
        for j in range(x.shape[0]):
            c = cos(freq * x[j])
            s = sin(freq * x[j])
            xc += y[j] * c
            xs += y[j] * s
            cc += c * c
            ss += s * s
            cs += c * s
        tau = atan2(2.0 * cs, cc - ss) / (2.0 * freq)
        c_tau = cos(freq * tau)
        s_tau = sin(freq * tau)
        c_tau2 = c_tau * c_tau
        s_tau2 = s_tau * s_tau
        cs_tau = 2.0 * c_tau * s_tau
        pgram[i] = 0.5 * (((c_tau * xc + s_tau * xs) ** 2
                           / (c_tau2 * cc + cs_tau * cs + s_tau2 * ss))
                          + ((c_tau * xs - s_tau * xc) ** 2
                             / (c_tau2 * ss - cs_tau * cs + s_tau2 * cc))) * yD


def lombscargle_signature(ty):
    return void(ty[:], ty[:], ty[:], ty[:], ty[:])


def upfirdn_1d_kernel(x, h_trans_flip, up, down, axis, x_shape_a, h_per_phase, padded_len, out):
    X = cuda_mod.grid(1)
    strideX = cuda_mod.gridsize(1)
    for i in range(X, np.int32(out.shape[0]), strideX):
        x_idx = np.int32(np.int32(np.int32(i * down) // up) % padded_len)
        h_idx = np.int32(np.int32(np.int32(i * down) % up) * h_per_phase)
        x_conv_idx = np.int32(np.int32(x_idx - h_per_phase) + 1)
        if x_conv_idx < 0:
            h_idx -= x_conv_idx
            x_conv_idx = 0
        temp: out.dtype = 0
        for x_c in range(np.int32(x_conv_idx), np.int32(x_idx + 1)):
            if x_c < x_shape_a and x_c >= 0:
                temp += x[x_c] * h_trans_flip[h_idx]
            h_idx += 1
        out[i] = temp


def upfirdn_2d_kernel(inp, h_trans_flip, up, down, axis, x_shape_a, h_per_phase, padded_len, out):
    y, x = cuda_mod.grid(2)
    if x < out.shape[1] and y < out.shape[0]:
        if axis == 1:
            x_idx = np.int32(np.int32(np.int32(x * down) // up) % padded_len)
            h_idx = np.int32(np.int32(np.int32(x * down) % up) * h_per_phase)
        else:
            x_idx = np.int32(np.int32(np.int32(y * down) // up) % padded_len)
            h_idx = np.int32(np.int32(np.int32(y * down) % up) * h_per_phase)
        x_conv_idx = np.int32(np.int32(x_idx - h_per_phase) + 1)
        if x_conv_idx < 0:
            h_idx -= x_conv_idx
            x_conv_idx = 0
        temp: out.dtype = 0
        for x_c in range(np.int32(x_conv_idx), np.int32(x_idx + 1)):
            if x_c < x_shape_a and x_c >= 0:
                if axis == 1:
                    temp += inp[y, x_c] * h_trans_flip[h_idx]
                else:
                    temp += inp[x_c, x] * h_trans_flip[h_idx]
            h_idx += 1
        out[y, x] = temp


def upfirdn_signature(ty, ndim):
    arr = ty[:] if ndim == 1 else ty[:, :]
    return void(arr, ty[:], int64, int64, int64, int64, int64, int64, arr)


def convolve_2d_kernel(inp, kernel, S0, out):
    y, x = cuda_mod.grid(2)
    i = np.int32(x + S0)
    j = np.int32(y + S0)
    if x < out.shape[0] and y < out.shape[1]:
        temp: out.dtype = 0
        for k in range(np.int32(-S0), np.int32(S0 + 1)):
            for m in range(np.int32(-S0), np.int32(S0 + 1)):
                pixel = (np.int32(i + k), np.int32(j + m))
                coef = (np.int32(-k + S0), np.int32(-m + S0))
                temp += inp[pixel] * kernel[coef]
        out[(x, y)] = temp


cuda_mod = None      # the module the kernels name, set per backend before compiling


class _KernelCache:
    """The library's kernel cache: one compiled kernel per (dtype name, kernel name)."""

    def __init__(self, cuda):
        self.cuda = cuda
        self.kernels = {}

    def get(self, np_type, name):
        key = (np.dtype(np_type).name, name)
        if key not in self.kernels:
            ty = _TYPES[np_type]
            if name == "lombscargle":
                assert not isinstance(ty, Complex)
                made = self.cuda.jit(lombscargle_signature(ty), fastmath=True)(lombscargle_kernel)
            elif name == "upfirdn":
                made = self.cuda.jit(upfirdn_signature(ty, 1), fastmath=True)(upfirdn_1d_kernel)
            elif name == "upfirdn2d":
                made = self.cuda.jit(upfirdn_signature(ty, 2), fastmath=True)(upfirdn_2d_kernel)
            else:
                raise KeyError(name)
            self.kernels[key] = made
        return self.kernels[key]


def _use(cuda):
    global cuda_mod
    cuda_mod = cuda
    return _KernelCache(cuda)


def test_lombscargle_per_dtype_on_a_library_stream(cuda):
    cache = _use(cuda)
    rng = np.random.default_rng(51)
    for np_type, rtol in ((np.float64, 1e-9), (np.float32, 2e-3)):
        x = np.sort(rng.uniform(0, 20, 60)).astype(np_type)
        y = (np.sin(1.3 * x) + 0.2 * rng.standard_normal(60)).astype(np_type)
        y -= y.mean()
        freqs = np.linspace(0.2, 4.0, 90).astype(np_type)
        y_dot = np.array([np.dot(y, y)], np_type)    # normalised: the kernel scales by 2 / y.y
        pgram = np.zeros(90, np_type)
        lib = _LibraryStream(cuda)
        stream = _wrap_stream(cuda, lib)
        d = [cuda.to_device(a, stream=stream) for a in (x, y, freqs, pgram, y_dot)]
        cache.get(np_type, "lombscargle")[4, 32, stream](*d)
        got = d[3].copy_to_host(stream=stream)
        lib.synchronize()

        xd, yd, fd = (a.astype(np.float64) for a in (x, y, freqs))
        c = np.cos(fd[:, None] * xd[None, :])
        s = np.sin(fd[:, None] * xd[None, :])
        xc, xs = (c * yd).sum(1), (s * yd).sum(1)
        cc, ss, cs = (c * c).sum(1), (s * s).sum(1), (c * s).sum(1)
        tau = np.arctan2(2 * cs, cc - ss) / (2 * fd)
        ct, st = np.cos(fd * tau), np.sin(fd * tau)
        want = 0.5 * ((ct * xc + st * xs) ** 2 / (ct * ct * cc + 2 * ct * st * cs + st * st * ss)
                      + (ct * xs - st * xc) ** 2 / (ct * ct * ss - 2 * ct * st * cs + st * st * cc))
        want *= 2.0 / float(np.dot(yd, yd))
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * want.max())
    assert sorted(cache.kernels) == [("float32", "lombscargle"), ("float64", "lombscargle")]


def _pad_h(h, up):
    """The filter padded to a multiple of up and laid out phase by phase, reversed."""
    full = np.zeros(len(h) + (-len(h) % up), h.dtype)
    full[:len(h)] = h
    return np.ascontiguousarray(full.reshape(-1, up).T[:, ::-1].ravel())


def _upfirdn_ref(h, x, up, down):
    xu = np.zeros((len(x) - 1) * up + 1, np.result_type(x, h))
    xu[::up] = x
    return np.convolve(xu, h)[::down]


def test_upfirdn_1d_every_dtype(cuda):
    cache = _use(cuda)
    rng = np.random.default_rng(52)
    for np_type in (np.float32, np.float64, np.complex64, np.complex128):
        for up, down in ((3, 2), (1, 4), (5, 1)):
            x = rng.standard_normal(37)
            h = rng.standard_normal(9)
            if np.dtype(np_type).kind == "c":
                x = x + 1j * rng.standard_normal(37)
                h = h + 0.5j
            x, h = x.astype(np_type), h.astype(np_type)
            ht = _pad_h(h, up)
            h_per_phase = len(ht) // up
            padded_len = len(x) + h_per_phase - 1
            out_len = ((len(x) - 1) * up + len(h) - 1) // down + 1
            out = cuda.device_array(out_len, np_type)
            cache.get(np_type, "upfirdn")[3, 32](x, ht, up, down, 0, len(x), h_per_phase,
                                                  padded_len, out)
            want = _upfirdn_ref(h.astype(np.complex128), x.astype(np.complex128), up, down)
            if np.dtype(np_type).kind == "f":
                want = want.real
            tol = 1e-4 if np_type in (np.float32, np.complex64) else 1e-11
            np.testing.assert_allclose(out.copy_to_host(), want[:out_len].astype(np_type),
                                       rtol=tol, atol=tol)
    assert len(cache.kernels) == 4


def test_upfirdn_2d_both_axes(cuda):
    cache = _use(cuda)
    rng = np.random.default_rng(53)
    x = rng.standard_normal((11, 14))
    h = rng.standard_normal(5)
    up, down = 2, 3
    ht = _pad_h(h, up)
    h_per_phase = len(ht) // up
    kernel = cache.get(np.float64, "upfirdn2d")
    for axis in (0, 1):
        n = x.shape[axis]
        out_len = ((n - 1) * up + len(h) - 1) // down + 1
        shape = (out_len, x.shape[1]) if axis == 0 else (x.shape[0], out_len)
        out = cuda.device_array(shape)
        blocks = ((shape[0] + 7) // 8, (shape[1] + 7) // 8)
        kernel[blocks, (8, 8)](x, ht, up, down, axis, n, h_per_phase, n + h_per_phase - 1, out)
        want = np.apply_along_axis(lambda v: _upfirdn_ref(h, v, up, down)[:out_len], axis, x)
        np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-11, atol=1e-12)


def test_convolve_2d_tuple_positions(cuda):
    _use(cuda)
    conv = cuda.jit(fastmath=True)(convolve_2d_kernel)
    rng = np.random.default_rng(54)
    img = rng.standard_normal((18, 21)).astype(np.float32)
    filt = rng.standard_normal((5, 5)).astype(np.float32)
    S0 = 2
    out = cuda.device_array((img.shape[0] - 2 * S0, img.shape[1] - 2 * S0), np.float32)
    conv[((out.shape[1] + 7) // 8, (out.shape[0] + 7) // 8), (8, 8)](img, filt, S0, out)
    want = np.zeros(out.shape)
    flipped = filt[::-1, ::-1].astype(np.float64)
    for a in range(out.shape[0]):
        for b in range(out.shape[1]):
            want[a, b] = (img[a:a + 5, b:b + 5] * flipped).sum()
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-4, atol=1e-4)


def test_legacy_stream_adapter_and_context():
    """The pre-external_stream adapter, under the simulator chosen as programs choose it."""
    code = textwrap.dedent("""
        import weakref
        from ctypes import c_void_p
        import numpy as np
        from pyjit import cuda
        from pyjit.cuda.cudadrv.devicearray import DeviceNDArrayBase

        own = cuda.stream()
        ctx = cuda.devices.get_context()
        assert ctx.get_memory_info()[1] > 0 and len(cuda.devices.gpus) == 1
        nb = cuda.cudadrv.driver.Stream(weakref.proxy(ctx), c_void_p(int(own.handle)),
                                        finalizer=None)
        assert isinstance(nb, cuda.cudadrv.driver.Stream) and int(nb.handle) == int(own.handle)

        @cuda.jit
        def twice(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] *= 2

        d = cuda.to_device(np.arange(5.0), stream=nb)
        assert isinstance(d, DeviceNDArrayBase)
        twice[1, 32, nb](d)
        nb.synchronize()
        print(d.copy_to_host().tolist())
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYJIT_SIMULATOR="1", PYTHONPATH=root)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["[0.0,", "2.0,", "4.0,", "6.0,", "8.0]"]
