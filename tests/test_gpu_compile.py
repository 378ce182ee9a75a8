"""The GPU code generation without a GPU: kernels compiled to PTX and assembled by ptxas.

Every kernel of gpu_kernels.py (the tests that run on the GPU and in the simulator) is compiled
for the argument types of its first launch, through a stand-in `gpu` module whose launches
compile instead of running; then one kernel per intrinsic and atomic; then the errors.
ptxas (CUDA toolkit) checks the PTX where it is installed; without it only the compilation runs.
"""
import math
import os
import re
import sys
import types

import numpy as np
import pytest

import pyjit
from pyjit import _core, _registry
from pyjit.errors import CompileError

sys.path.insert(0, os.path.dirname(__file__))
import gpu_kernels  # noqa: E402
from util import assemble_ptx as assemble  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(_core, "cuda_compile_ptx"),
                                reason="this pyjit has no GPU code generation")


def compile_kernel(fn, argtypes, **kw):
    _registry.populate()
    ptx, entry, written = _core.cuda_compile_ptx(fn, _registry.REGISTRY, list(argtypes), **kw)
    assert entry in ptx
    assemble(ptx)
    return ptx, written


# ---- every kernel of gpu_kernels.py, through a gpu module that compiles at launch ----

class _Compiled(Exception):
    pass


def _gpu_stub():
    from pyjit.gpu import hardware as hw
    mod = types.ModuleType("pyjit.gpu")
    for name in hw.__all__:
        if hasattr(hw, name):
            setattr(mod, name, getattr(hw, name))
    compiled = []

    class Kernel:
        def __init__(self, fn, sig=None, **kw):
            self.fn, self.kw = fn, kw

        def _launch(self, *args):
            names = [_core.typeof(a, True).replace("weak ", "") for a in args]
            ptx, written = compile_kernel(self.fn, names, debug=bool(self.kw.get("debug")))
            compiled.append((self.fn.__name__, ptx, written))
            raise _Compiled()

        def __getitem__(self, cfg):
            return self._launch

        def forall(self, n, *a):
            return self._launch

    def jit(f=None, device=False, **kw):
        if device:
            return hw.jit(f, device=True, **kw) if callable(f) else \
                (lambda g: hw.jit(g, device=True, **kw))
        if callable(f):
            return Kernel(f)
        return lambda g: Kernel(g, f, **kw)

    mod.jit = jit
    mod.__getattr__ = hw.__getattr__          # the type names: gpu.int32, gpu.types
    mod.random = _random_stub(hw.random)
    mod.to_device = lambda a, *x, **k: np.asarray(a)
    mod.device_array = lambda shape, dtype=np.float64, *x, **k: np.zeros(shape, dtype)
    mod.device_array_like = lambda a, *x, **k: np.zeros_like(a)
    mod.compiled = compiled
    return mod


def _random_stub(random):
    """gpu.random whose states are host arrays, as the stub's device arrays are."""
    stub = types.ModuleType(random.__name__)
    stub.__dict__.update(vars(random))

    def create(n, seed, subsequence_start=0, stream=0):
        return random.host_states(n, seed, subsequence_start)

    def init(states, seed, subsequence_start=0, stream=0):
        states[...] = random.host_states(states.size, seed, subsequence_start)

    stub.create_xoroshiro128p_states = create
    stub.init_xoroshiro128p_states = init
    return stub


KERNEL_TESTS = sorted(n for n in dir(gpu_kernels) if n.startswith("test_"))


@pytest.mark.parametrize("name", KERNEL_TESTS)
def test_gpu_kernels_compile(name):
    stub = _gpu_stub()
    try:
        getattr(gpu_kernels, name)(stub)
    except _Compiled:
        pass
    except CompileError:
        raise
    except Exception:
        # a test that checks something before its first launch (an error case): only what
        # compiled matters here
        pass
    if not stub.compiled:
        pytest.skip(f"{name} launches no kernel (host-side API only)")


# ---- saxpy's PTX: the index arithmetic CUDA C would emit ----

def test_saxpy_ptx_is_lean():
    from pyjit.gpu import hardware as gpu

    def saxpy(a, x, y, out):
        i = gpu.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    arr = "array(float32, 1d, C)"
    ptx, written = compile_kernel(saxpy, ["float32", arr, arr, arr])
    body = ptx[ptx.index("{"):]
    assert "mul.lo.s64" not in body and "mul.wide.u32" in body
    assert body.count("ld.global.f32") == 2 and "st.global.f32" in body
    assert "fma.rn.f32" in body
    assert written == 0b1000


def test_compile_ptx_api():
    from pyjit.gpu import hardware as hw

    def add(a, b, out):
        i = hw.grid(1)
        out[i] = a[i] + b[i]

    ptx, ret = hw.compile_ptx(add, "void(float64[::1], float64[::1], float64[::1])")
    assert ".entry" in ptx and ".target sm_90" in ptx
    assemble(ptx)
    ptx, ret = hw.compile_ptx(add, "void(float64[::1], float64[::1], float64[::1])", cc=(8, 0))
    assert ".target sm_80" in ptx

    def dev(x, y):
        return x * y + 1.0

    ptx, ret = hw.compile_ptx(dev, "float64(float64, float64)", device=True)
    assert ".func" in ptx and ".entry" not in ptx


# ---- one kernel per intrinsic ----

# The compiled backend's names, whichever backend pyjit.gpu picked (PYJIT_SIMULATOR=1 or not).
from pyjit.gpu import hardware as G  # noqa: E402  (the kernels below refer to it as a global)

F32_1D = "array(float32, 1d, C)"
F64_1D = "array(float64, 1d, C)"
I32_1D = "array(int32, 1d, C)"
I64_1D = "array(int64, 1d, C)"
U32_1D = "array(uint32, 1d, C)"
U64_1D = "array(uint64, 1d, C)"


def k_indices(out):
    out[0] = G.threadIdx.x + G.threadIdx.y + G.threadIdx.z
    out[1] = G.blockIdx.x + G.blockIdx.y + G.blockIdx.z
    out[2] = G.blockDim.x + G.blockDim.y + G.blockDim.z
    out[3] = G.gridDim.x + G.gridDim.y + G.gridDim.z
    out[4] = G.laneid + G.warpsize
    x, y = G.grid(2)
    a, b, c = G.gridsize(3)
    out[5] = x + y + a + b + c + G.grid(1) + G.gridsize(1)


def k_shared(x, out):
    s = G.shared.array((16, 8), np.float32)
    d = G.shared.array(0, dtype=np.float32)
    t = G.threadIdx.x
    s[t % 16, t % 8] = x[t]
    d[t] = x[t]
    G.syncthreads()
    out[t] = s[(t + 1) % 16, t % 8] + d[0] + d.size


def k_local(x, out):
    tmp = G.local.array(8, np.float64)
    for k in range(8):
        tmp[k] = x[k] * k
    acc = 0.0
    for k in range(8):
        acc += tmp[7 - k]
    out[G.grid(1)] = acc


TABLE = np.arange(10, dtype=np.float32) * 1.5


def k_const(out):
    c = G.const.array_like(TABLE)
    i = G.grid(1)
    if i < c.size:
        out[i] = c[i] + TABLE[i]


def k_sync(x, out):
    t = G.threadIdx.x
    out[0] = G.syncthreads_count(x[t] > 0)
    out[1] = G.syncthreads_and(x[t] > 0)
    out[2] = G.syncthreads_or(x[t])
    G.syncwarp()
    G.syncwarp(0xFFFFFFFF)
    G.threadfence()
    G.threadfence_block()
    G.threadfence_system()


def k_warp(x, f, out):
    t = G.threadIdx.x
    v = x[t]
    v += G.shfl_sync(0xFFFFFFFF, v, 0)
    v += G.shfl_up_sync(0xFFFFFFFF, v, 1)
    v += G.shfl_down_sync(0xFFFFFFFF, v, 2)
    v += G.shfl_xor_sync(0xFFFFFFFF, v, 4)
    w = G.shfl_down_sync(0xFFFFFFFF, f[t], 1)
    b = G.ballot_sync(0xFFFFFFFF, v > 3)
    out[t] = v + int(w) + b + G.all_sync(0xFFFFFFFF, v > 0) + G.any_sync(0xFFFFFFFF, v) + \
        G.activemask()


def k_bits(x, out):
    i = G.grid(1)
    out[0] = G.popc(x[i]) + G.clz(x[i]) + G.ffs(x[i])
    out[1] = G.brev(x[i])


def k_math(x, out):
    i = G.grid(1)
    v = x[i]
    out[i] = math.sqrt(v) + math.exp(v) + math.sin(v) + math.log(v + 1) + math.pow(v, 2.5) + \
        math.atan2(v, 1.0) + G.fma(v, v, v) + G.cbrt(v) + abs(v) + math.floor(v) + \
        math.tanh(v) + math.erf(v) + math.hypot(v, 2.0) + min(v, 3.0)


def k_print(x):
    i = G.grid(1)
    if i == 0:
        print("value", x[0], i, True)


@pytest.mark.parametrize("fn,args", [
    (k_indices, [I64_1D]),
    (k_shared, [F32_1D, F32_1D]),
    (k_local, [F64_1D, F64_1D]),
    (k_const, [F32_1D]),
    (k_sync, [I32_1D, I32_1D]),
    (k_warp, [I64_1D, F32_1D, I64_1D]),
    (k_warp, [I32_1D, F64_1D, I32_1D]),
    (k_bits, [U32_1D, U32_1D]),
    (k_bits, [I64_1D, I64_1D]),
    (k_math, [F32_1D, F32_1D]),
    (k_math, [F64_1D, F64_1D]),
    (k_print, [F64_1D]),
])
def test_intrinsic_compiles(fn, args):
    compile_kernel(fn, args)


def k_f32(x, out):
    i = G.grid(1)
    if i < x.size:
        out[i] = math.sin(x[i]) * 2.0 + math.sqrt(x[i]) + math.exp(x[i] - 1)


def test_float32_math_stays_float32_and_fastmath():
    ptx, _ = compile_kernel(k_f32, [F32_1D, F32_1D])
    body = ptx[ptx.index(".entry"):]
    assert "cvt.f64.f32" not in body   # no value promoted to double (libdevice's sinf may use f64 inside)
    ptx, _ = compile_kernel(k_f32, [F32_1D, F32_1D], fastmath=True)
    assert "sin.approx" in ptx and "ex2.approx" in ptx


def k_f32_square(x, out):
    i = G.grid(1)
    if i < x.size:
        d = x[i] - np.float32(0.5)
        out[i] = d ** 2 + d ** 3 - d ** -1 + d ** 0


def k_f32_pow(x, out):
    i = G.grid(1)
    if i < x.size:
        out[i] = math.pow(x[i], x[i])


def test_fastmath_float32_power_of_an_integer_is_multiplied():
    # libdevice's fast powf (2 ** (y * log2 x): lg2.approx, ex2.approx) is nan for a negative x;
    # numba-cuda multiplies out an integer literal exponent, so (-0.25) ** 2 is 0.0625 in a
    # fastmath kernel too. math.pow keeps the fast function, as numba-cuda's.
    ptx, _ = compile_kernel(k_f32_square, [F32_1D, F32_1D], fastmath=True)
    body = ptx[ptx.index(".entry"):]
    assert "lg2.approx" not in body and "ex2.approx" not in body, body
    assert "mul.f32" in body or "mul.ftz.f32" in body
    ptx, _ = compile_kernel(k_f32_pow, [F32_1D, F32_1D], fastmath=True)
    assert "lg2.approx" in ptx and "ex2.approx" in ptx


@pytest.mark.parametrize("arr", [F32_1D, F64_1D])
def test_round_is_cvt_rni(arr):
    # round() goes through libdevice's rint, whose NVVM intrinsic LLVM 16 would turn into
    # llvm.round (halves away from zero: an add of 0.5 and a cvt.rzi); it must stay cvt.rni
    def k(x, n):
        i = G.grid(1)
        n[i] = round(x[i]) + round(math.sin(x[i]) * 3.5)

    ptx, _ = compile_kernel(k, [arr, I64_1D])
    body = ptx[ptx.index(".entry"):]
    assert len(re.findall(r"cvt\.rni\.f(32|64)\.f(32|64)", body)) == 2, body
    assert not re.search(r"cvt\.rzi\.f(32|64)\.f(32|64)", body), body


def test_libdevice_linked_only_when_needed():
    def k(x):
        x[G.grid(1)] += 1

    ptx, _ = compile_kernel(k, [F32_1D])
    assert "__nv_" not in ptx


def _atomic_kernel(name):
    """A kernel applying gpu.atomic.<name> to a 1-d array (index i % 4)."""
    src = (f"def k(a, out):\n"
           f"    i = G.grid(1)\n"
           f"    out[i] = G.atomic.{name}(a, i % 4, out[i])\n")
    ns = {"G": G}
    exec(src, ns)
    return ns["k"]


ATOMIC_TYPES = {
    "add": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "sub": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "max": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "min": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "and_": ["int32", "uint32", "int64", "uint64"],
    "or_": ["int32", "uint32", "int64", "uint64"],
    "xor": ["int32", "uint32", "int64", "uint64"],
    "exch": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "inc": ["uint32", "uint64"],
    "dec": ["uint32", "uint64"],
    "nanmax": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
    "nanmin": ["int32", "uint32", "int64", "uint64", "float32", "float64"],
}


@pytest.mark.parametrize("name,dtype", [(n, t) for n, ts in ATOMIC_TYPES.items() for t in ts])
def test_atomic_compiles(name, dtype):
    arr = f"array({dtype}, 1d, C)"
    ptx, written = compile_kernel(_atomic_kernel(name), [arr, arr])
    assert written == 0b11
    assert "atom" in ptx
    if name.startswith("nan") and dtype.startswith("float"):   # a compare-and-swap loop
        assert "atom.global.cas.b" + dtype[-2:] in ptx


def k_match(x, out, pred):
    t = G.threadIdx.x
    m, p = G.match_all_sync(0xFFFFFFFF, x[t])
    out[t] = G.match_any_sync(0xFFFFFFFF, x[t]) + m
    pred[t] = p


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64", "float32", "float64",
                                   "int8", "bool"])
def test_match_sync_compiles(dtype):
    ptx, _ = compile_kernel(k_match, [f"array({dtype}, 1d, C)", U32_1D, "array(bool, 1d, C)"])
    bits = "64" if dtype[-2:] == "64" else "32"
    assert f"match.any.sync.b{bits}" in ptx and f"match.all.sync.b{bits}" in ptx


def k_atomic_2d_shared(a, out):
    s = G.shared.array((2, 2), np.int32)
    t = G.threadIdx.x
    if t < 4:
        s[t // 2, t % 2] = 0
    G.syncthreads()
    G.atomic.add(s, (t % 2, 0), 1)
    old = G.atomic.cas(a, (0, 1), 0, t)
    old2 = G.atomic.compare_and_swap(out, 0, 1)
    G.syncthreads()
    out[t] = s[0, 0] + old + old2


def test_atomic_tuple_index_shared_and_cas():
    ptx, written = compile_kernel(k_atomic_2d_shared, ["array(int32, 2d, C)", I32_1D])
    assert "atom.shared" in ptx and "atom.global.cas" in ptx
    assert written == 0b11


def test_written_mask_through_device_function():
    @G.jit(device=True)
    def bump(arr, i):
        arr[i] += 1
        return arr[i] * 2

    def k(a, b, out):
        i = G.grid(1)
        out[i] = bump(a, i) + b[i]

    ptx, written = compile_kernel(k, [F32_1D, F32_1D, F32_1D])
    assert written == 0b101


@G.jit(device=True)
def _row(a, i):
    return a[i]


@pyjit.njit
def _row_njit(a, i):
    return a[i]


def k_write_through_returned_row(x, y):
    i = G.grid(1)
    r = _row(x, 0)
    r[i] = y[i]


def k_write_through_njit_row(x, y):
    i = G.grid(1)
    _row_njit(x, 1)[i] = y[i]


def test_written_mask_through_an_array_a_callee_returns():
    # the callee's result may be a view of any array it was given: writing it writes x
    for k in (k_write_through_returned_row, k_write_through_njit_row):
        ptx, written = compile_kernel(k, ["array(float32, 2d, C)", F32_1D])
        assert written == 0b01, k.__name__


def k_selp_mixed(x, out):
    i = G.grid(1)
    out[i] = G.selp(x[i] > 0.0, 1, x[i])


def test_selp_promotes_mixed_operands_in_ptx():
    # int literal and float64: both float64, selected as doubles; x is never truncated to int
    ptx, _ = compile_kernel(k_selp_mixed, [F64_1D, F64_1D])
    body = ptx[ptx.index(".entry"):]
    assert "selp.f64" in body
    assert "cvt.rzi" not in body and "cvt.rn.f64.s64" not in body


def test_device_function_returning_tuple():
    @G.jit(device=True)
    def divmod2(a, b):
        return a // b, a % b

    def k(x, out):
        i = G.grid(1)
        q, r = divmod2(x[i], 3)
        out[i] = q * 10 + r

    compile_kernel(k, [I64_1D, I64_1D])


def test_debug_bounds_check_prints_and_reports():
    # the failing thread prints, leaves the exception for the host and returns (no trap)
    def k(x):
        x[G.grid(1)] = 1.0

    ptx, _ = compile_kernel(k, [F32_1D], debug=True)
    assert "vprintf" in ptx and "atom.cas" in ptx and "trap" not in ptx
    line = k.__code__.co_firstlineno + 1   # the message names the array and the line
    message = "out of bounds for axis %lld with size %lld (array 'x', line {})".format(line)
    assert ", ".join(str(b) for b in message.encode()) in ptx.replace(",\n", ", ")
    ptx, _ = compile_kernel(k, [F32_1D])
    assert "vprintf" not in ptx and "atom.cas" not in ptx   # unchecked: nothing raises


# ---- structured arrays, gpu.random, ufuncs with out ----

def k_record_fields(p, out):
    i = G.grid(1)
    p[i].x = p[i]["y"] * 2
    out[i] = p[i].x


def _record_array(fields, align):
    return _core.typeof(np.zeros(2, np.dtype(fields, align=align)), True)


def test_record_fields_aligned_loads_and_written_mask():
    t = _record_array([("x", np.float64), ("y", np.float64), ("n", np.int32)], True)
    ptx, written = compile_kernel(k_record_fields, [t, F64_1D])
    body = ptx[ptx.index(".entry"):]
    assert "ld.global.f64" in body and "st.global.f64" in body
    assert written == 0b11            # a field store writes the record array


def test_packed_record_fields_move_bytewise():
    # x of item 1 of this dtype is at byte 20: an 8-byte load there would fault on the GPU
    t = _record_array([("n", np.int32), ("x", np.float64), ("y", np.float64)], False)
    ptx, _ = compile_kernel(k_record_fields, [t, F64_1D])
    body = ptx[ptx.index(".entry"):]
    assert "ld.global.u8" in body and "st.global.u8" in body
    assert "ld.global.f64" not in body and "ld.global.nc.f64" not in body


def k_field_view(p, out):
    out[0] = p["x"][1]


def k_subarray_field(p, out):
    out[0] = p[0].v[1]


def k_nested_field(p, out):
    out[0] = p[0].pos.y


def test_array_views_of_packed_record_fields_are_refused():
    fields = [("n", np.int32), ("x", np.float64), ("v", np.float32, (3,)),
              ("pos", [("y", np.float64)])]
    for k in (k_field_view, k_subarray_field, k_nested_field):
        compile_kernel(k, [_record_array(fields, True), F64_1D])
        with pytest.raises(CompileError, match="packed structured dtype"):
            compile_kernel(k, [_record_array(fields, False), F64_1D])


def k_random(states, out):
    i = G.grid(1)
    out[i] = G.random.xoroshiro128p_normal_float32(states, i) + \
        G.random.xoroshiro128p_uniform_float32(states, i)


def test_random_compiles_to_ptx():
    t = _core.typeof(G.random.host_states(2, 1), True)
    ptx, written = compile_kernel(k_random, [t, F32_1D])   # assembled by ptxas
    assert written == 0b11            # the draws move the states on


def k_sin_out(x, out):
    np.sin(x, out)
    np.sqrt(x, out=out)


def k_exp_out_per_thread(x, out):
    i = G.grid(1)
    np.exp(x[i], out[i:i + 1])


def test_ufunc_with_out_compiles():
    for k in (k_sin_out, k_exp_out_per_thread):
        ptx, written = compile_kernel(k, [F32_1D, F32_1D])
        assert written == 0b10, k.__name__


# ---- errors ----

def test_kernel_returning_a_value_is_a_typing_error():
    def k(x):
        return x[0]

    with pytest.raises(pyjit.errors.TypingError, match="cannot return a value"):
        compile_kernel(k, [F32_1D])


def test_wrong_number_of_argument_types_is_cpythons_type_error():
    def k(x, y):
        x[0] = y[0]

    with pytest.raises(TypeError) as cpython:
        k(1, 2, 3)
    with pytest.raises(TypeError, match=re.escape(str(cpython.value))):
        compile_kernel(k, [F32_1D] * 3)
    with pytest.raises(TypeError, match=r"k\(\) takes 2 positional arguments but 1 was given"):
        compile_kernel(k, [F32_1D])


def test_bad_intrinsic_arguments():
    def k(x):
        i = G.grid(4)
        x[0] = i

    with pytest.raises(pyjit.errors.TypingError, match="1, 2 or 3"):
        compile_kernel(k, [F32_1D])

    def k2(x):
        n = x.size
        s = G.shared.array(n, np.float32)
        s[0] = 1

    with pytest.raises(pyjit.errors.TypingError, match="constant"):
        compile_kernel(k2, [F32_1D])

    def k3(x):
        G.atomic.and_(x, 0, 1.0)

    with pytest.raises(pyjit.errors.TypingError, match="does not support"):
        compile_kernel(k3, [F32_1D])


def test_wrong_compile_ptx_signature():
    from pyjit.gpu import hardware as hw

    def k(x):
        x[0] = 1

    with pytest.raises((TypeError, ValueError, CompileError)):
        hw.compile_ptx(k, "void(float32[:], float32[:])")
    with pytest.raises((TypeError, ValueError)):
        hw.compile_ptx(k, "void(notatype[:])")


def test_gpu_builtins_rejected_on_cpu():
    def f(x):
        return G.grid(1)

    with pytest.raises(CompileError, match="GPU kernel"):
        pyjit.njit(f)(1)


# ---- a device function's declared signature and options --------------------------------------

@G.jit("float32(float32, float32)", device=True)
def _add32(a, b):
    return a + b


@G.jit(device=True)
def _add_any(a, b):
    return a + b


def _kernel_add32(x, out):
    i = G.grid(1)
    out[i] = _add32(x[i], 0.1)


def _kernel_add_any(x, out):
    i = G.grid(1)
    out[i] = _add_any(x[i], 0.1)


def _kernel_add32_bad(x, out):
    i = G.grid(1)
    out[i] = _add32(x[i], x)


def test_device_function_signature_converts_the_arguments():
    """float64 arguments reach a device function declared float32 as float32, as Numba binds a
    call to its declared signature; without a signature the function is typed for float64."""
    f64 = ["array(float64, 1d, C)", "array(float64, 1d, C)"]
    declared = str(_core.cuda_compile_ptx(_kernel_add32, _registry.REGISTRY, f64))
    inferred = str(_core.cuda_compile_ptx(_kernel_add_any, _registry.REGISTRY, f64))
    assert "add.f32" in declared and "add.rn.f64" not in declared and "add.f64" not in declared
    assert "add.f32" not in inferred
    no_match = r"(?s)_add32\(\): no matching definition .*float32\(float32, float32\)"
    with pytest.raises(CompileError, match=no_match):
        _core.cuda_compile_ptx(_kernel_add32_bad, _registry.REGISTRY, f64)


def test_device_function_options_it_cannot_use_warn():
    with pytest.warns(UserWarning, match="taken from the kernel that calls it"):
        G.jit(device=True, fastmath=True)(lambda a: a)
