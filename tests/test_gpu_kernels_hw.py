"""The kernel tests of gpu_kernels.py on a real GPU, through the compiled path.

They carry the `gpu` mark and skip without a GPU; the simulator is never used for them (under
PYJIT_SIMULATOR=1 they skip too), so a pass here means the PTX pyjit generated ran correctly.
"""
import numpy as np
import pytest

from gpu_kernels import *  # noqa: F401,F403 - the shared test functions

pytestmark = pytest.mark.gpu


@pytest.fixture
def gpu():
    import pyjit.gpu as g
    if g.SIMULATOR:
        pytest.skip("PYJIT_SIMULATOR=1: these tests are for the compiled GPU path")
    if not g.is_available():
        pytest.skip("no GPU")
    return g


def test_atomics_against_numpy(gpu):
    @gpu.jit
    def hist(x, bins, lo, hi, mx):
        i = gpu.grid(1)
        if i < x.size:
            gpu.atomic.add(bins, x[i] % bins.size, 1)
            gpu.atomic.max(hi, 0, x[i])
            gpu.atomic.min(lo, 0, x[i])
            gpu.atomic.max(mx, 0, np.float64(x[i]) * 0.5)

    x = np.random.default_rng(5).integers(0, 1000, 5000).astype(np.int32)
    bins = np.zeros(16, np.int32)
    lo = np.array([10 ** 6], np.int32)
    hi = np.zeros(1, np.int32)
    mx = np.zeros(1, np.float64)
    hist[(x.size + 255) // 256, 256](x, bins, lo, hi, mx)
    np.testing.assert_array_equal(bins, np.bincount(x % 16, minlength=16))
    assert lo[0] == x.min() and hi[0] == x.max() and mx[0] == x.max() * 0.5


def test_inc_dec_wrap(gpu):
    @gpu.jit
    def k(a, b):
        gpu.atomic.inc(a, 0, np.uint32(3))
        gpu.atomic.dec(b, 0, np.uint32(3))

    a = np.zeros(1, np.uint32)
    b = np.zeros(1, np.uint32)
    k[1, 10](a, b)
    assert a[0] == 10 % 4
    # dec from 0 with limit 3: 3, 2, 1, 0, 3, 2, 1, 0, 3, 2
    assert b[0] == 2


def test_warp_reduction(gpu):
    @gpu.jit
    def wsum(x, out):
        t = gpu.threadIdx.x
        v = x[t]
        off = 16
        while off > 0:
            v += gpu.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        if gpu.laneid == 0:
            out[t // 32] = v
        b = gpu.ballot_sync(0xFFFFFFFF, x[t] > 0)
        if t == 0:
            out[2] = gpu.popc(b)

    x = np.arange(64, dtype=np.float64)
    out = np.zeros(3, np.float64)
    wsum[1, 64](x, out)
    assert out[0] == x[:32].sum() and out[1] == x[32:].sum() and out[2] == 31


def test_math_float32(gpu):
    import math

    @gpu.jit
    def k(x, out):
        i = gpu.grid(1)
        if i < x.size:
            out[i] = math.sin(x[i]) + math.sqrt(x[i]) + math.exp(-x[i])

    x = np.linspace(0, 3, 100).astype(np.float32)
    out = np.zeros_like(x)
    k[1, 128](x, out)
    np.testing.assert_allclose(out, np.sin(x) + np.sqrt(x) + np.exp(-x), rtol=1e-5)


def test_device_function_and_const_memory(gpu):
    table = np.arange(8, dtype=np.float64) * 0.5

    @gpu.jit(device=True)
    def scale_pair(v, k):
        return v * k, v + k

    @gpu.jit
    def k(x, out):
        i = gpu.grid(1)
        if i < x.size:
            c = gpu.const.array_like(table)
            a, b = scale_pair(x[i], c[i % 8])
            out[i] = a + b

    x = np.arange(100, dtype=np.float64)
    out = np.zeros_like(x)
    k[4, 32](x, out)
    c = table[np.arange(100) % 8]
    np.testing.assert_allclose(out, x * c + x + c)


def test_written_mask_copies_back_only_written(gpu):
    @gpu.jit
    def k(src, dst):
        i = gpu.grid(1)
        if i < src.size:
            dst[i] = src[i] + 1

    src = np.arange(10, dtype=np.int64)
    dst = np.zeros_like(src)
    k[1, 32](src, dst)
    np.testing.assert_array_equal(dst, src + 1)
    masks = list(k._written().values())
    assert masks == [0b10]


_CHILD = """
import numpy as np
from pyjit import gpu
@gpu.jit(debug=%s)
def k(x):
    i = gpu.grid(1)
    if i == 0:
        print("value", x[0], i, True)
    if %s:
        x[i] = 1.0
x = gpu.to_device(np.full(4, 1.5))
try:
    k[1, 8](x)
    gpu.synchronize()
    print("NO ERROR")
except Exception as e:
    print("RAISED", type(e).__name__)
"""


def test_print_in_kernel(gpu):
    from util import run_subprocess
    rc, out, err = run_subprocess(_CHILD % ("False", "i < x.size"), timeout=120)
    assert "NO ERROR" in out, out + err
    assert "value 1.500000 0 True" in out, out + err


def test_debug_bounds_check_stops_the_thread(gpu):
    # an out-of-bounds store with debug=True prints the index, the thread and the block, does
    # not write past the array, and is an IndexError at the next synchronisation (in a child,
    # so that nothing else sees its output)
    from util import run_subprocess
    rc, out, err = run_subprocess(_CHILD % ("True", "True"), timeout=120)
    assert "RAISED IndexError" in out and "NO ERROR" not in out, out + err
    assert "thread (4, 0, 0)" in out, out + err


def test_write_through_an_array_a_device_function_returns(gpu):
    @gpu.jit(device=True)
    def row(a, i):
        return a[i]

    @gpu.jit
    def k(x, y):
        i = gpu.grid(1)
        if i < y.size:
            r = row(x, 1)
            r[i] = y[i]

    x = np.zeros((3, 64), np.float32)
    y = np.arange(64, dtype=np.float32)
    k[1, 64](x, y)
    expected = np.zeros((3, 64), np.float32)
    expected[1] = y
    np.testing.assert_array_equal(x, expected)
