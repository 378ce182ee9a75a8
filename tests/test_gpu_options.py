"""@gpu.jit's options (max_registers, launch_bounds, lineinfo, cache, link) and exceptions raised
in kernels without debug=True: the PTX checked by ptxas without a GPU, the options in the
simulator, and on a GPU the register count, the launch refusal and the raised exceptions."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from util import assemble_ptx  # noqa: E402

from pyjit import gpu  # noqa: E402
from pyjit.gpu import _options  # noqa: E402

hw = pytest.importorskip("pyjit.gpu.hardware")
needs_codegen = pytest.mark.skipif(
    gpu.SIMULATOR or not hw._HAVE_RUNTIME or not hw._core.cuda_has_codegen(),
    reason="the compiled path's PTX (not under PYJIT_SIMULATOR=1, or without GPU code generation)")


def k_add_one(x):
    i = gpu.grid(1)
    if i < x.size:
        x[i] += 1.0


# ---- options: checked the same in both backends ----

@pytest.mark.parametrize("bad, error, words", [
    (dict(foo=1), TypeError, "'foo'"),
    (dict(max_registers=0), TypeError, "max_registers"),
    (dict(max_registers=True), TypeError, "max_registers"),
    (dict(launch_bounds=(1, 2, 3, 4)), TypeError, "launch_bounds"),
    (dict(launch_bounds=2048), TypeError, "launch_bounds"),
    (dict(link=["/no/such/file.cu"]), FileNotFoundError, "/no/such/file.cu"),
])
def test_bad_options_name_the_option(bad, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(")):
        _options.check(bad)


def test_link_files_checked_and_kept(tmp_path):
    f = tmp_path / "f.cu"
    f.write_text("extern \"C\" __device__ int f(int *r, int x) { *r = x; return 0; }\n")
    assert _options.check(dict(link=[str(f)]))["link"] == (str(f),)
    assert _options.check(dict(link=str(f)))["link"] == (str(f),)
    with pytest.raises(TypeError, match="linked into kernels"):
        _options.check(dict(link=[str(f)]), device=True)
    txt = tmp_path / "f.txt"
    txt.write_text("")
    with pytest.raises(TypeError, match="f.txt"):
        _options.check(dict(link=[str(txt)]))


def test_launch_bounds_normalised():
    assert _options.launch_bounds(128) == (128, 0, 0)
    assert _options.launch_bounds((128, 2)) == (128, 2, 0)
    assert _options.launch_bounds(_options.launch_bounds((64, 1, 2))) == (64, 1, 2)
    with pytest.raises(TypeError, match="device function"):
        _options.check(dict(max_registers=32), device=True)


def _run_simulated(code, mode="1"):
    env = dict(os.environ, PYJIT_SIMULATOR=mode,
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_simulator_takes_the_options_and_checks_launch_bounds():
    out = _run_simulated("""
import numpy as np
from pyjit import gpu
@gpu.jit(launch_bounds=(64, 2), max_registers=40, lineinfo=True, inline='always')
def k(x):
    i = gpu.grid(1)
    if i < x.size:
        x[i] += 1
x = np.zeros(100)
k[2, 64](x)
print(x.sum() == 100)
try:
    k[1, 128]
except ValueError as e:
    print('refused', 'launch_bounds' in str(e))
try:
    gpu.jit(bogus=1)
except TypeError as e:
    print('unknown', 'bogus' in str(e))
""")
    assert out.split() == ["True", "refused", "True", "unknown", "True"]


# ---- the PTX of the options, assembled by ptxas ----

@needs_codegen
def test_max_registers_and_launch_bounds_in_the_ptx():
    ptx, _ = hw.compile_ptx(k_add_one, "void(float64[:])", max_registers=32,
                            launch_bounds=(128, 2, 1))
    assert ".maxnreg 32" in ptx
    assert ".maxntid 128, 1, 1" in ptx
    assert ".minnctapersm 2" in ptx
    assert ".maxclusterrank 1" in ptx
    assemble_ptx(ptx)
    plain, _ = hw.compile_ptx(k_add_one, "void(float64[:])")
    assert ".maxnreg" not in plain and ".maxntid" not in plain


def _heavy(x, y):
    i = gpu.grid(1)
    if i < x.size:
        a = x[i]
        s = 0.0
        for j in range(8):
            s += a * j + s * 0.5 + a / (j + 1.0)
        y[i] = s


def _registers_used(ptx, tmp_path):
    """The registers a thread of ptx's kernel uses, as ptxas -v reports them."""
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    r = subprocess.run([_tool("ptxas"), "-arch=sm_90", "-v", str(path), "-o",
                        str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return int(re.search(r"Used (\d+) registers", r.stderr).group(1))


@needs_codegen
def test_max_registers_kept_by_ptxas(tmp_path):
    """ptxas, which the driver's JIT is, keeps the kernel within the cap of .maxnreg, down to
    its lower bound (24 on sm_90)."""
    if not _tool("ptxas"):
        pytest.skip("no ptxas to assemble with")
    sig = "void(float64[:], float64[:])"
    free = _registers_used(hw.compile_ptx(_heavy, sig)[0], tmp_path)
    capped = _registers_used(hw.compile_ptx(_heavy, sig, max_registers=24)[0], tmp_path)
    assert capped <= 24 < free


@gpu.jit(device=True)
def _twice(v):
    return v * 2.0


def _lined(x, y):
    i = gpu.grid(1)
    if i < x.size:
        v = _twice(x[i])
        y[i] = v


@needs_codegen
def test_lineinfo_puts_loc_lines_in_the_ptx():
    ptx, _ = hw.compile_ptx(_lined, "void(float32[:], float32[:])", lineinfo=True)
    assemble_ptx(ptx)
    first = _lined.__code__.co_firstlineno
    lines = set()
    for line in ptx.splitlines():
        parts = line.split()
        if parts and parts[0] == ".loc":
            lines.add(int(parts[2]))
    import inspect
    source, start = inspect.getsourcelines(_twice.py_func)
    inner = start + next(n for n, text in enumerate(source) if "return" in text)   # its line
    assert {first + 2, first + 4, inner} <= lines, sorted(lines)
    assert f'"{__file__}"' in ptx
    plain, _ = hw.compile_ptx(_lined, "void(float32[:], float32[:])")
    assert ".loc" not in plain


class KernelError(Exception):
    pass


# defined through exec: pytest rewrites the asserts of a test module into calls of its own
_RAISES = """
def k_raises(x, out):
    i = gpu.grid(1)
    if i < x.size:
        if x[i] < 0:
            raise KernelError("negative")
        out[i] = 10 // x[i]
        assert out[i] < 10, "too big"
"""
exec(compile(_RAISES, __file__ + ":k_raises", "exec"), globals())  # noqa: S102


@needs_codegen
def test_raise_without_debug_records_the_fault_and_returns():
    ptx, _ = hw.compile_ptx(k_raises, "void(int64[:], int64[:])")
    assemble_ptx(ptx)
    assert "pj_fault_record" in ptx and "atom.cas" in ptx
    assert "trap" not in ptx
    quiet, _ = hw.compile_ptx(k_add_one, "void(float64[:])")
    assert "atom.cas" not in quiet   # nothing raises: the check folds away


@needs_codegen
def test_fault_strings_padded_for_the_host_reads():
    # the host reads a message and the kernel's name back 8 bytes a copy
    # (runtime/kernel_errors.c): none of those copies may reach past the string's global
    ptx, _ = hw.compile_ptx(k_raises, "void(int64[:], int64[:])")
    strings = re.findall(r"\.global \.align (\d+) \.b8 pj_\S*(msg|kname)\S*\[(\d+)\]", ptx)
    assert {kind for _, kind, _ in strings} == {"msg", "kname"}
    for align, _, size in strings:
        assert int(align) >= 8 and int(size) % 8 == 0


def test_kernel_options_are_in_the_cache_key():
    if not hw._HAVE_RUNTIME:
        pytest.skip("no GPU runtime in this pyjit")
    from pyjit import _cache
    a = hw.Kernel(k_add_one, max_registers=32)
    b = hw.Kernel(k_add_one, max_registers=64)
    c = hw.Kernel(k_add_one, launch_bounds=128)
    keys = {_cache._keys(k, ["array(float64, 1d, C)"], None, "sm_90")[0] for k in (a, b, c)}
    assert len(keys) == 3


def test_gpu_ufunc_kernels_have_stable_cache_keys():
    """cache=True on a GPU ufunc: its generated kernel's key is the same in another process."""
    code = """
import numpy as np
from pyjit import _cache
from pyjit.gpu import hardware
@hardware.vectorize(['float32(float32, float32)'], cache=True)
def add(a, b):
    return a + b
k = add._kernel('flat', frozenset(), (np.dtype('f4'), np.dtype('f4')), np.dtype('f4'), 'f4')
print(_cache._keys(k, ['x'], None, 'sm_90')[0], _cache._source_file(k).endswith('<string>'))
"""
    if not hw._HAVE_RUNTIME:
        pytest.skip("no GPU runtime in this pyjit")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env.pop("PYJIT_SIMULATOR", None)
    outs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, timeout=120)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1] and outs[0].split()[1] == "True"


# ---- on a GPU ----

@pytest.fixture
def gpu_hw():
    if gpu.SIMULATOR:
        pytest.skip("PYJIT_SIMULATOR=1: these tests are for the compiled GPU path")
    if not hw.is_available():
        pytest.skip("no GPU")
    return hw


@pytest.mark.gpu
def test_max_registers_visible_in_the_register_count(gpu_hw):
    free = hw.jit(_heavy)
    capped = hw.jit(max_registers=24)(_heavy)
    x = hw.to_device(np.arange(256, dtype=np.float64))
    y = hw.device_array_like(x)
    free[2, 128](x, y)
    capped[2, 128](x, y)
    hw.synchronize()
    (regs,) = capped.get_regs_per_thread().values()
    assert regs <= 24           # ptxas's lower bound on sm_90: a smaller cap is raised to it
    (free_regs,) = free.get_regs_per_thread().values()
    assert free_regs >= regs


@pytest.mark.gpu
def test_launch_bounds_refuse_a_larger_block(gpu_hw):
    k = hw.jit(launch_bounds=64)(k_add_one)
    x = hw.to_device(np.zeros(128))
    k[2, 64](x)
    with pytest.raises(ValueError, match="launch_bounds allow at most 64"):
        k[1, 128](x)
    np.testing.assert_array_equal(x.copy_to_host(), np.ones(128))


@pytest.mark.gpu
@pytest.mark.parametrize("value, exc, words", [
    (-1, KernelError, "negative"),
    (0, ZeroDivisionError, ""),
    (1, AssertionError, "too big"),
])
def test_exception_without_debug_raised_at_synchronize(gpu_hw, value, exc, words):
    k = hw.jit(error_model="python")(k_raises)   # 10 // 0 raises (NumPy's default gives 0)
    x = np.full(64, 5, np.int64)
    x[37] = value
    dx = hw.to_device(x)
    dout = hw.device_array_like(dx)
    k[2, 32](dx, dout)
    with pytest.raises(exc, match=words) as info:
        hw.synchronize()
    assert str(info.value).startswith("kernel 'k_raises', thread (5, 0, 0), block (1, 0, 0)")
    assert info.value.pyjit_thread == (5, 0, 0) and info.value.pyjit_block == (1, 0, 0)
    hw.synchronize()                     # reported once; the context is still good
    k[2, 32](hw.to_device(np.full(64, 5, np.int64)), dout)
    np.testing.assert_array_equal(dout.copy_to_host(), np.full(64, 2))


@pytest.mark.gpu
def test_exception_with_host_arrays_raised_by_the_launch(gpu_hw):
    k = hw.jit(k_raises)
    x = np.full(64, 5, np.int64)
    x[3] = -1
    with pytest.raises(KernelError, match="thread \\(3, 0, 0\\), block \\(0, 0, 0\\)"):
        k[2, 32](x, np.zeros(64, np.int64))


@pytest.mark.gpu
def test_exception_reported_at_copy_to_host(gpu_hw):
    k = hw.jit(error_model="python")(k_raises)
    x = np.full(64, 5, np.int64)
    x[63] = 0
    dout = hw.device_array(64, np.int64)
    k[2, 32](hw.to_device(x), dout)
    with pytest.raises(ZeroDivisionError, match="block \\(1, 0, 0\\)"):
        dout.copy_to_host()


# ---- foreign device code: declare_device and link= ----

# numba-cuda's ABI: int name(float *return_value, float a, float b), written in PTX
_MUL_PTX = """
.version 7.8
.target sm_90
.address_size 64

.visible .func (.param .b32 status) mul_f32(.param .b64 ret, .param .b32 a, .param .b32 b)
{
    .reg .b64 %rd<2>;
    .reg .f32 %f<4>;
    ld.param.u64 %rd1, [ret];
    ld.param.f32 %f1, [a];
    ld.param.f32 %f2, [b];
    mul.rn.f32 %f3, %f1, %f2;
    st.f32 [%rd1], %f3;
    st.param.b32 [status], 0;
    ret;
}
"""

_MUL_CU = """
extern "C" __device__ int mul_f32(float *return_value, float a, float b)
{
    *return_value = a * b;
    return 0;
}
"""


def _uses_mul(mul):
    def k(x, y):
        i = gpu.grid(1)
        if i < x.size:
            y[i] = mul(x[i], 3.0)
    return k


def _tool(name):
    from util import PTXAS
    if not PTXAS:
        return None
    path = os.path.join(os.path.dirname(PTXAS), name)
    return path if os.path.exists(path) else None


@needs_codegen
def test_declared_device_call_links_with_its_ptx(tmp_path):
    """The kernel's PTX declares the function .extern with numba-cuda's ABI; ptxas and nvlink
    join it with a PTX definition written for that ABI, as the driver's linker will."""
    f = tmp_path / "mul.ptx"
    f.write_text(_MUL_PTX)
    mul = hw.declare_device("mul_f32", "float32(float32, float32)", link=[str(f)])
    ptx, _ = hw.compile_ptx(_uses_mul(mul), "void(float32[:], float32[:])")
    assert ".extern .func" in ptx and "mul_f32" in ptx
    from pyjit.gpu import _link
    inputs = _link.inputs(ptx, (), (9, 0))
    assert [(kind, name) for _, kind, name in inputs] == [(_link.INPUT_PTX, str(f))]
    ptxas, nvlink = _tool("ptxas"), _tool("nvlink")
    if not (ptxas and nvlink):
        pytest.skip("no ptxas and nvlink to link with")
    k = tmp_path / "k.ptx"
    k.write_text(ptx)
    for src in (k, f):
        r = subprocess.run([ptxas, "-arch=sm_90", "-c", str(src), "-o", str(src) + ".o"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    r = subprocess.run([nvlink, "-arch=sm_90", str(k) + ".o", str(f) + ".o", "-o",
                        str(tmp_path / "out.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_link_files_are_checked(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.ptx"):
        hw.declare_device("f", "float32(float32)", link=[str(tmp_path / "nope.ptx")])
    from pyjit.gpu import _link
    f = tmp_path / "g.ptx"
    f.write_text(_MUL_PTX)
    hw.declare_device("g_vanishing", "float32(float32)", link=[str(f)])
    f.unlink()
    with pytest.raises(FileNotFoundError, match="g.ptx"):
        _link.inputs(".extern .func  (.param .b32 func_retval0) g_vanishing\n", (), (9, 0))
    # a function no declare_device declared is the driver's (vprintf, malloc): nothing to link
    assert _link.inputs(".extern .func never_declared(\n", (), (9, 0)) == []


def _prints(x):
    i = gpu.grid(1)
    if i == 0:
        print("value", x[0], i, True)
    if i < x.size:
        x[i] = 1.0


@needs_codegen
def test_kernel_calling_only_the_drivers_functions_links_nothing():
    """print's vprintf is declared .extern, but the driver provides it: nothing to link, and the
    PTX assembles alone (the driver loads it without a link)."""
    from pyjit.gpu import _link
    ptx, _ = hw.compile_ptx(_prints, "void(float64[:])")
    assert "vprintf" in _link._externs(ptx)
    assert _link.inputs(ptx, (), (9, 0)) == []
    assemble_ptx(ptx)


@needs_codegen
def test_kernel_printing_and_calling_a_declared_function_links_only_its_file(tmp_path):
    from pyjit.gpu import _link
    f = tmp_path / "mul.ptx"
    f.write_text(_MUL_PTX)
    mul = hw.declare_device("mul_f32", "float32(float32, float32)", link=[str(f)])

    def k(x, y):
        i = gpu.grid(1)
        if i == 0:
            print("first", x[0])
        if i < x.size:
            y[i] = mul(x[i], 3.0)
    ptx, _ = hw.compile_ptx(k, "void(float32[:], float32[:])")
    assert {"vprintf", "mul_f32"} <= set(_link._externs(ptx))
    assert [name for _, _, name in _link.inputs(ptx, (), (9, 0))] == [str(f)]


def test_declared_device_called_from_the_host_is_an_error():
    import pyjit
    from pyjit.errors import CompileError
    mul = hw.declare_device("mul_host", "float32(float32, float32)")
    with pytest.raises(TypeError, match="from a kernel"):
        mul(1.0, 2.0)

    @pyjit.njit
    def f(x):
        return mul(x, 2.0)
    with pytest.raises(CompileError, match=r"(?s)can only be used in a GPU kernel.*line"):
        f(1.0)


_CUDA_ONLY_CU = """
extern "C" __device__ int lane_of(int *return_value, int x)
{
    *return_value = threadIdx.x + x;
    return 0;
}
"""


@pytest.mark.parametrize("mode", ["1", "cpu"])
def test_simulators_run_cuda_c_device_functions(tmp_path, mode):
    """Both simulators run a declare_device function of plain CUDA C, compiled for the CPU, by
    its link= or the kernel's; PTX and CUDA C using the GPU itself are errors naming the file."""
    f = tmp_path / "mul.cu"
    f.write_text(_MUL_CU)
    ptx = tmp_path / "mul.ptx"
    ptx.write_text(_MUL_PTX)
    gpu_only = tmp_path / "lane.cu"
    gpu_only.write_text(_CUDA_ONLY_CU)
    out = _run_simulated(f"""
import numpy as np
from pyjit import gpu
mul = gpu.declare_device('mul_f32', 'float32(float32, float32)', link=[{str(f)!r}])
@gpu.jit
def k(x, y):
    i = gpu.grid(1)
    if i < x.size:
        y[i] = mul(x[i], 3.0)
x = np.arange(40, dtype=np.float32) / 3
y = np.zeros_like(x)
k[2, 32](x, y)
print('declared', (y == x * np.float32(3.0)).all())
f2 = {str(tmp_path / "mul2.cu")!r}
open(f2, 'w').write(open({str(f)!r}).read().replace('mul_f32', 'mul2_f32'))
mul2 = gpu.declare_device('mul2_f32', 'float32(float32, float32)')
@gpu.jit(link=[f2])
def k2(x, y):
    i = gpu.grid(1)
    if i < x.size:
        y[i] = mul2(x[i], 5.0)
k2[2, 32](x, y)
print('kernel-link', (y == x * np.float32(5.0)).all())
try:
    gpu.declare_device('f', 'float32(float32)', link=[{str(ptx)!r}])
    gpu.jit(link=[{str(ptx)!r}])(lambda x: None)
    print('ptx', 'accepted')
except NotImplementedError as e:
    print('ptx', {str(ptx)!r} in str(e) and 'GPU code' in str(e))
try:
    lane = gpu.declare_device('lane_of', 'int32(int32)', link=[{str(gpu_only)!r}])
    @gpu.jit
    def k3(x):
        x[0] = lane(x[0])
    k3[1, 1](np.zeros(1, np.int32))
    print('gpu-only', 'ran')
except RuntimeError as e:
    print('gpu-only', {str(gpu_only)!r} in str(e) and 'threadIdx' in str(e))
""", mode)
    assert out.split() == ["declared", "True", "kernel-link", "True", "ptx", "True", "gpu-only",
                           "True"]


_AXPB_C_CU = """
extern "C" __device__ float axpb(float a, float x, float b)
{
    return a * x + b;
}
"""


@pytest.mark.parametrize("mode", ["1", "cpu"])
def test_simulators_run_c_abi_device_functions(tmp_path, mode):
    """declare_device(abi="c") calls `float axpb(float, float, float)` as C declares it (the
    default, numba-cuda's ABI, passes a result pointer first); other ABIs are refused."""
    f = tmp_path / "axpb.cu"
    f.write_text(_AXPB_C_CU)
    out = _run_simulated(f"""
import numpy as np
from pyjit import gpu
axpb = gpu.declare_device('axpb', 'float32(float32, float32, float32)', link=[{str(f)!r}],
                          abi='c')
@gpu.jit
def k(x, y):
    i = gpu.grid(1)
    if i < x.size:
        y[i] = axpb(np.float32(-2.5), x[i], np.float32(0.5))
x = np.arange(40, dtype=np.float32) / 3
y = np.zeros_like(x)
k[2, 32](x, y)
print('c-abi', np.allclose(y, np.float32(-2.5) * x + np.float32(0.5), rtol=1e-6))
try:
    gpu.declare_device('axpb', 'float32(float32, float32, float32)', abi='fortran')
except NotImplementedError as e:
    print('fortran', "'numba'" in str(e) and "'c'" in str(e))
""", mode)
    assert out.split() == ["c-abi", "True", "fortran", "True"]


@needs_codegen
def test_declared_c_abi_call_links_with_a_c_abi_definition(tmp_path):
    """A kernel calling a function declared with abi="c" declares it with the C prototype that
    gpu.compile(abi="c") defines: ptxas and nvlink join the two, as the driver's linker will
    (numba-cuda's ABI's declaration would not match: 'Prototype doesn't match')."""
    from util import link_ptx

    def axpb(a, x, b):
        return a * x + b

    sig = "float32(float32, float32, float32)"
    lib, _ = hw.compile(axpb, sig, abi="c", abi_info={"abi_name": "axpb_c"})
    f = tmp_path / "axpb.ptx"
    f.write_text(lib)
    fn = hw.declare_device("axpb_c", sig, link=[str(f)], abi="c")

    def k(x, y):
        i = gpu.grid(1)
        if i < x.size:
            y[i] = fn(x[i], x[i], x[i])
    ptx, _ = hw.compile_ptx(k, "void(float32[:], float32[:])")
    link_ptx([ptx, lib])
    numba_abi = hw.declare_device("axpb_c", sig, link=[str(f)])

    def k2(x, y):
        i = gpu.grid(1)
        if i < x.size:
            y[i] = numba_abi(x[i], x[i], x[i])
    ptx2, _ = hw.compile_ptx(k2, "void(float32[:], float32[:])")
    assert ptx2 != ptx
    if _tool("nvlink"):
        with pytest.raises(AssertionError, match="Prototype doesn't match"):
            link_ptx([ptx2, lib])


@pytest.mark.gpu
@pytest.mark.parametrize("suffix, text", [(".ptx", _MUL_PTX), (".cu", _MUL_CU)])
def test_declared_device_function_from_a_file(gpu_hw, tmp_path, suffix, text):
    f = tmp_path / ("mul" + suffix)
    f.write_text(text)
    mul = hw.declare_device("mul_f32", "float32(float32, float32)")
    k = hw.jit(link=[str(f)])(_uses_mul(mul))
    x = np.arange(64, dtype=np.float32)
    y = np.zeros_like(x)
    k[2, 32](x, y)
    np.testing.assert_array_equal(y, x * np.float32(3.0))


@pytest.mark.gpu
def test_declared_device_function_brings_its_link(gpu_hw, tmp_path):
    f = tmp_path / "mul.ptx"
    f.write_text(_MUL_PTX)
    mul = hw.declare_device("mul_f32", "float32(float32, float32)", link=[str(f)])
    k = hw.jit(_uses_mul(mul))
    dx = hw.to_device(np.arange(64, dtype=np.float32))
    dy = hw.device_array_like(dx)
    k[2, 32](dx, dy)
    np.testing.assert_array_equal(dy.copy_to_host(), np.arange(64, dtype=np.float32) * 3)


@needs_codegen
def test_gpu_ufunc_kernels_divide_as_numpy():
    """A GPU ufunc's kernel has NumPy's error model: 1/0 is inf there (as the CPU ufunc's), not
    a ZeroDivisionError reported after the launch; a kernel keeps Python's."""
    from pyjit import _core, _registry, vectorize

    def div(a, b):
        return a / b

    x = np.ones(2, np.float32)
    with np.errstate(divide="ignore"):
        assert np.isinf(vectorize(["float32(float32, float32)"])(div)(x, x * 0)).all()
    g = hw.vectorize(["float32(float32, float32)"])(div)
    k = g._kernel("flat", frozenset(), (np.dtype("f4"), np.dtype("f4")), np.dtype("f4"), "f4")
    _registry.populate()
    arr = "array(float32, 1d, C)"
    types = [arr, arr, arr, "int64"]
    for numpy_errors, raises in ((True, False), (False, True)):
        ptx, _, _ = _core.cuda_compile_ptx(k.py_func, _registry.REGISTRY, types,
                                           error_model_numpy=numpy_errors)
        assert ("atom.cas" in ptx) == raises
    assert k.targetoptions["error_model_numpy"]


def test_kernel_calling_a_declared_function_has_a_cache_key():
    if not hw._HAVE_RUNTIME:
        pytest.skip("no GPU runtime in this pyjit")
    from pyjit import _cache
    keys = []
    for sig in ("float32(float32, float32)", "float64(float64, float64)"):
        mul = hw.declare_device("mul_key", sig)
        k = hw.Kernel(_uses_mul(mul), cache=True)
        keys.append(_cache._keys(k, ["array(float32, 1d, C)"] * 2, None, "sm_90")[0])
    assert keys[0] != keys[1]


def test_cuda_c_compiles_through_nvrtc(tmp_path):
    """A .cu file becomes relocatable PTX defining the declared function (NVRTC from the
    toolkit, where one is installed), which ptxas assembles."""
    from pyjit.gpu import _link
    try:
        _link._nvrtc()
    except RuntimeError as e:
        assert "NVRTC" in str(e) and "CUDA_HOME" in str(e)
        pytest.skip("no NVRTC here")
    ptx = _link.compile_cuda(_MUL_CU, "mul.cu", (9, 0)).rstrip(b"\0").decode()
    assert ".visible .func" in ptx and "mul_f32" in ptx
    ptxas, nvlink = _tool("ptxas"), _tool("nvlink")
    if ptxas and nvlink and not gpu.SIMULATOR and hw._HAVE_RUNTIME:
        # the kernel's .extern declaration and the CUDA C definition agree: they link
        mul = hw.declare_device("mul_f32", "float32(float32, float32)")
        kptx, _ = hw.compile_ptx(_uses_mul(mul), "void(float32[:], float32[:])")
        objs = []
        for name, text in (("mul", ptx), ("k", kptx)):
            f = tmp_path / (name + ".ptx")
            f.write_text(text)
            objs.append(str(f) + ".o")
            r = subprocess.run([ptxas, "-arch=sm_90", "-c", str(f), "-o", objs[-1]],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
        r = subprocess.run([nvlink, "-arch=sm_90", *objs, "-o", str(tmp_path / "k.cubin")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    with pytest.raises(RuntimeError, match="bad.cu"):
        _link.compile_cuda("this is not C", "bad.cu", (9, 0))


def test_simulator_raises_division_by_zero_as_the_gpu_does():
    out = _run_simulated("""
import math
import numpy as np
from pyjit import gpu
def body(x, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = 10 // x[i] + 1.0 / x[i]
for dtype in (np.int64, np.float32):   # Python's error model: with debug=True, or asked for
    for options in (dict(debug=True), dict(error_model='python')):
        x = np.full(64, 5, dtype)
        x[37] = 0
        try:
            gpu.jit(**options)(body)[2, 32](x, np.zeros(64))
        except ZeroDivisionError as e:
            print(e.pyjit_thread == (5, 0, 0) and e.pyjit_block == (1, 0, 0))
def inv(x, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = 1.0 / x[i] + math.sqrt(x[i] - 1.0)
out = np.zeros(64)
x = np.full(64, 5.0)
x[37] = 0
gpu.jit(inv)[2, 32](x, out)   # numba-cuda's default, NumPy's model: inf and nan, no exception
print(np.isnan(out[37]) and np.isfinite(out[36]))
""")
    assert out.split() == ["True"] * 5
