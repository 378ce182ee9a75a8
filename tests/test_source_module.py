"""CUDA C kernels from Python strings (gpu.SourceModule, RawKernel, RawModule), what needs no GPU:
NVRTC's PTX and cubin for sm_90 (the PTX assembled by ptxas where it is installed), its errors
with the log and the line, name expressions and templates, the on-disk cache, the parameters
read from the source and from the mangling (checked against c++filt's reading of the same
names), and the arguments a launch refuses, with a TypeError naming the parameter, before any
GPU is touched. tests/test_gpu_source.py launches the kernels on a GPU."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from util import assemble_ptx  # noqa: E402

from pyjit import gpu  # noqa: E402
from pyjit.gpu import _csource  # noqa: E402

hw = pytest.importorskip("pyjit.gpu.hardware")


def _have_nvrtc():
    if gpu.SIMULATOR or not hw._HAVE_RUNTIME:
        return False
    from pyjit.gpu import _link
    try:
        _link._nvrtc()
        return True
    except RuntimeError:
        return False


nvrtc = pytest.mark.skipif(not _have_nvrtc(), reason="no NVRTC (libnvrtc of the CUDA toolkit) "
                           "or not the compiled GPU path")

MULTIPLY_THEM = """
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
"""

MY_ADD = r'''
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
'''

SCALARS = r'''
struct Pair { double a; int b; };
extern "C" __global__ void scal(float *out, const double *in, int n, unsigned int u, float f,
                                double d, bool flag, short s, unsigned long long big,
                                Pair p, unsigned char h, signed char c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)((in ? in[i] : 1.0) * d) + f + (flag ? u : s) + (float)big + p.a + c;
}
'''


def _module(source=MULTIPLY_THEM, tmp=None, **kw):
    kw.setdefault("arch", "sm_90")
    return gpu.SourceModule(source, cache_dir=str(tmp) if tmp else False, **kw)


# ---- compiling ----

@nvrtc
def test_source_module_compiles_to_cubin_and_ptx(tmp_path):
    mod = _module(tmp=tmp_path)
    assert mod.cubin[:4] == b"\x7fELF"
    assert re.search(r"\.visible \.entry multiply_them\(", mod.ptx)   # extern "C" by default
    assert ".target sm_90" in mod.ptx
    assemble_ptx(mod.ptx)
    f = mod.get_function("multiply_them")
    assert f.__name__ == "multiply_them"
    assert [(p.name, str(p.ctype), p.kind, p.writes) for p in f.params] == [
        ("dest", "float *", "pointer", True), ("a", "float *", "pointer", True),
        ("b", "float *", "pointer", True)]
    assert mod.get_function("multiply_them") is f


@nvrtc
def test_compute_arch_gives_ptx_only_and_ptxas_takes_it():
    mod = gpu.RawModule(code=MY_ADD, arch="compute_90", cache_dir=False)
    assert mod.cubin is None
    assemble_ptx(mod.ptx)
    k = mod.get_function("my_add")
    assert [p.writes for p in k.params] == [False, False, True]


@nvrtc
def test_nvrtc_error_has_the_log_and_the_line():
    src = "__global__ void f(float *x)\n{\n    x[0] = undefined_name;\n}\n"
    with pytest.raises(gpu.CompileError) as info:
        _module(src)
    e = info.value
    from pyjit.errors import CompileError
    assert isinstance(e, CompileError) and isinstance(e, gpu.NvrtcError)
    assert e.lineno == 3            # the user's line, though the source was wrapped in extern "C"
    assert "line 3" in str(e) and "x[0] = undefined_name;" in str(e)
    assert "undefined_name" in e.log and "NVRTC's log" in str(e)
    with pytest.raises(gpu.CompileError, match="line 1"):
        gpu.RawModule(code="extern \"C\" __global__ void f() { syntax error }", arch="sm_90",
                      cache_dir=False)


@nvrtc
def test_habitual_c_headers_and_nvcc_options_compile():
    src = "#include <stdio.h>\n#include <math.h>\n#include <stdint.h>\n" + \
        "__global__ void f(float *x, int32_t n) { if (n) printf(\"%f\\n\", sqrtf(x[0])); }\n"
    mod = _module(src, options=["-O3", "-use_fast_math", "-DN=4"])
    assert "vprintf" in mod.ptx
    assert [str(p.ctype) for p in mod.get_function("f").params] == ["float *", "int32_t"]
    with pytest.raises(ValueError, match="arch="):
        _module(options=["-arch=sm_80"])


@nvrtc
@pytest.mark.skipif(not os.path.isfile("/usr/local/cuda/include/cuda_fp16.h") and
                    not os.environ.get("CUDA_HOME"), reason="no CUDA toolkit headers")
def test_cpp_header_stays_outside_extern_c():
    src = "#include <cuda_fp16.h>\n__global__ void h(__half *x, __half v) { x[0] = v; }\n"
    k = _module(src).get_function("h")
    assert [p.kind for p in k.params] == ["pointer", "scalar"]
    assert k.params[1].dtype == np.float16


# ---- name expressions, templates, C++ names ----

TEMPLATES = r'''
template<typename T>
__global__ void axpy(T a, const T* __restrict__ x, T* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
__global__ void plain_cpp(double *out, long n) { }
'''


@nvrtc
def test_name_expressions_lower_templates():
    mod = gpu.RawModule(code=TEMPLATES, name_expressions=["axpy<float>", "axpy<double>"],
                        arch="sm_90", cache_dir=False)
    assert mod.get_lowered_name("axpy<float>") == "_Z4axpyIfEvT_PKS0_PS0_i"
    for expr, dt in (("axpy<float>", np.float32), ("axpy<double>", np.float64)):
        k = mod.get_function(expr)
        assert k.__name__ == expr
        a, x, y, n = k.params
        assert (a.kind, a.dtype) == ("scalar", np.dtype(dt))
        assert (x.dtype, x.writes, y.dtype, y.writes) == (np.dtype(dt), False, np.dtype(dt), True)
        assert (n.name, n.dtype) == ("n", np.dtype(np.int32))
    # a C++ kernel that is not a template is found by its plain name
    assert [p.name for p in mod.get_function("plain_cpp").params] == ["out", "n"]
    with pytest.raises(gpu.CudaError, match="name_expressions"):
        mod.get_function("axpy")
    with pytest.raises(gpu.CudaError, match="no kernel named 'nope'.*axpy<float>"):
        mod.get_function("nope")
    with pytest.raises(KeyError, match="axpy<int>"):
        mod.get_lowered_name("axpy<int>")
    with pytest.raises(gpu.CompileError, match="no_such"):
        gpu.RawModule(code=TEMPLATES, name_expressions=["no_such<int>"], arch="sm_90",
                      cache_dir=False)


@nvrtc
def test_raw_kernel_of_a_template():
    k = gpu.RawKernel(TEMPLATES, "axpy<double>", arch="sm_90", cache_dir=False)
    assert k.name == "axpy<double>" and k.code == TEMPLATES
    assert [p.dtype for p in k.params[:3]] == [np.dtype(np.float64)] * 3


CORPUS = r'''
struct Pt { float x, y; };
template<typename T, int N> __global__ void k1(const T* a, T* b, int n, unsigned long long m) {}
template<typename T> __global__ void k2(T x, T* y, const T* const z, char c, unsigned char uc,
                                        short s, bool f) {}
namespace ns {
template<typename A, typename B> __global__ void k3(A* a, const B* b, Pt p, Pt* q, double** pp) {}
}
__global__ void k4(float2 v, const double2* w, long l, size_t s, signed char sc) {}
__global__ void k5(unsigned u, long long int ll, const Pt** tab) {}
'''
EXPRS = ["k1<float, 4>", "k1<double, 2>", "k2<int>", "k2<unsigned short>", "ns::k3<float, Pt>",
         "ns::k3<double, int>", "k4", "k5"]


def _cxxfilt_params(mangled):
    out = subprocess.run(["c++filt", mangled], capture_output=True, text=True).stdout.strip()
    inner = out[out.index("(") + 1:out.rindex(")")]
    return [re.sub(r"\s+", " ", p).replace(" *", "*").strip()
            for p in _csource._split_top(inner)] if inner else []


def _render(t):
    """A CType as c++filt spells a parameter: 'float const*'."""
    base = {"size_t": "unsigned long"}.get(t.base, t.base)
    return base + (" const" if t.const and t.ptr else "") + "*" * t.ptr


@nvrtc
@pytest.mark.skipif(not shutil.which("c++filt"), reason="no c++filt (binutils)")
def test_demangled_parameters_agree_with_cxxfilt():
    mod = gpu.RawModule(code=CORPUS, name_expressions=EXPRS, arch="sm_90", cache_dir=False)
    for expr in EXPRS:
        lowered = mod.get_lowered_name(expr)
        name, types = _csource.demangle(lowered)
        assert name.split("::")[-1] == expr.split("<")[0].split("::")[-1]
        assert [_render(t) for t in types] == _cxxfilt_params(lowered), lowered


@nvrtc
def test_source_parse_agrees_with_the_mangling():
    """The same kernels read from the source (as for extern "C" ones, template parameters bound
    from the name expression) and from the mangled names NVRTC gave them."""
    mod = gpu.RawModule(code=CORPUS, name_expressions=EXPRS, arch="sm_90", cache_dir=False)
    decls = {d.name: d for d in _csource.kernels(CORPUS)}
    for expr in EXPRS:
        _name, types = _csource.demangle(mod.get_lowered_name(expr))
        base, args = _csource.split_expression(expr)
        d = decls[base.split("::")[-1]]
        bind = dict(zip(d.template or (), args))
        parsed = [_csource.parse_type(t, bind) for _n, t in d.params]
        norm = {"size_t": "unsigned long", "Pt": "ns::Pt"}
        assert [(norm.get(t.base, t.base).replace("ns::", ""), t.ptr, t.const and t.ptr > 0)
                for t in parsed] == \
            [(t.base.replace("ns::", ""), t.ptr, t.const and t.ptr > 0) for t in types], expr
    # and the parameter count of every kernel agrees with its PTX
    for d in _csource.kernels(CORPUS):
        matches = [e for e in _csource.entries(mod.ptx)
                   if (_csource.demangle(e) or ("",))[0].split("::")[-1] == d.name]
        for e in matches:
            assert len(_csource.ptx_params(mod.ptx, e)) == len(d.params)


def test_kernels_found_in_source_despite_comments_and_attributes():
    src = r'''
    // __global__ void commented(int x) {}
    /* __global__ void also_commented() {} */
    const char *s = "__global__ void in_a_string()";
    #define BLOCK 256
    typedef float real;
    template <typename T, int N = 4>
    __global__ void __launch_bounds__(BLOCK, 2) tpl(T *x, const real *__restrict__ y, int n) {}
    extern "C" __global__ void arr(float out[], const int idx[3], float * const p) {}
    __global__ void noargs(void) {}
    '''
    decls = {d.name: d for d in _csource.kernels(src)}
    assert sorted(decls) == ["arr", "noargs", "tpl"]
    assert decls["tpl"].template == ["T", "N"]
    assert [n for n, _t in decls["tpl"].params] == ["x", "y", "n"]
    assert str(_csource.parse_type(decls["tpl"].params[1][1], None, {"real": "float"})) == \
        "const float *"
    arr = [_csource.parse_type(t) for _n, t in decls["arr"].params]
    assert [(t.base, t.ptr, t.const) for t in arr] == [("float", 1, False), ("int", 1, True),
                                                       ("float", 1, False)]
    assert decls["noargs"].params == []


# ---- the cache ----

@nvrtc
def test_compilations_are_cached_on_disk(tmp_path):
    from pyjit import _cache
    before = dict(_cache.info())
    m1 = _module(tmp=tmp_path)
    files = [f for f in os.listdir(tmp_path) if f.endswith(".pjc")]
    assert len(files) == 1
    m2 = _module(tmp=tmp_path)
    after = _cache.info()
    assert after["hits"] == before["hits"] + 1 and after["misses"] == before["misses"] + 1
    assert m2.ptx == m1.ptx and m2.cubin == m1.cubin
    assert m2.get_function("multiply_them").params[0].name == "dest"
    _module(tmp=tmp_path, options=["-DX=1"])          # other options: another entry
    _module(tmp=tmp_path, arch="sm_80")               # another architecture: another entry
    gpu.SourceModule(MULTIPLY_THEM, arch="sm_90", cache_dir=str(tmp_path), no_extern_c=True)
    assert len([f for f in os.listdir(tmp_path) if f.endswith(".pjc")]) == 4
    # a damaged entry is not used: compiled again and replaced
    path = os.path.join(tmp_path, files[0])
    with open(path, "r+b") as f:
        f.seek(100)
        f.write(b"garbage")
    assert _module(tmp=tmp_path).ptx == m1.ptx
    m3 = gpu.RawModule(code=MY_ADD, arch="sm_90", cache_dir=False)
    assert m3.get_function("my_add")


# ---- arguments checked against the parameters, before any GPU is used ----

def _launch_or_unavailable(call):
    """Runs a launch that is right: without a GPU it stops at GpuUnavailableError, never at a
    TypeError; with one it runs."""
    try:
        call()
    except gpu.GpuUnavailableError:
        assert not gpu.is_available()


@nvrtc
def test_wrong_arguments_are_type_errors_naming_the_parameter():
    k = gpu.RawKernel(SCALARS, "scal", arch="sm_90", cache_dir=False)
    out, inp = np.zeros(8, np.float32), np.ones(8)
    pair = np.zeros((), np.dtype([("a", "f8"), ("b", "i4")], align=True))[()]
    good = [out, inp, 8, 3, 1.5, 2.0, True, -2, 2**63, pair, 200, -3]
    names = [p.name for p in k.params]
    assert names == ["out", "in", "n", "u", "f", "d", "flag", "s", "big", "p", "h", "c"]
    assert [p.kind for p in k.params][9:11] == ["bytes", "scalar"]
    assert k.params[10].dtype == np.uint8
    assert k.params[9].size == 16   # the struct's size, from the PTX

    def bad(i, value, exc=TypeError):
        args = list(good)
        args[i] = value
        with pytest.raises(exc, match=rf"kernel 'scal' parameter '{names[i]}'"):
            k[1, 8](*args)

    bad(0, np.zeros(8))                        # float64 array for float *
    bad(1, np.zeros(8, np.float32))            # float32 array for const double *
    bad(0, 1.0)                                # a number for a pointer
    bad(0, "x")
    bad(2, 2.5)                                # a float for an int
    bad(2, 2**40, OverflowError)               # beyond int's range
    bad(3, -1, OverflowError)                  # negative for unsigned
    bad(2, np.int64(3))                        # does not convert to int32 without loss
    bad(4, np.float64(1.5))                    # double for float: PyCUDA's silent bug
    bad(4, "1.5")
    bad(6, 1.0)                                # a float for bool
    bad(8, -1, OverflowError)
    bad(9, np.float64(1.0))                    # 8 bytes for a 16-byte struct
    bad(9, 1)
    bad(2, np.zeros(2, np.int32))              # an array for a scalar
    bad(0, gpu.In([1.0, 2.0]))                 # In wraps NumPy arrays
    with pytest.raises(TypeError, match=r"takes 12 arguments \(float \*out, const double "
                                        r"\*in, int n.*\), 11 given"):
        k[1, 8](*good[:-1])
    with pytest.raises(TypeError, match="positional"):
        k[1, 8](*good, extra=1)
    # what converts: NumPy scalars cast safely, Python numbers to the C type
    ok = list(good)
    ok[2], ok[4], ok[5], ok[7] = np.int16(8), np.float32(1.5), np.float32(2), np.int8(1)
    _launch_or_unavailable(lambda: k[1, 8](*ok))
    _launch_or_unavailable(lambda: k[1, 8](*good))
    ok = list(good)
    ok[0], ok[1] = gpu.Out(out), None           # gpu.Out, and None for a null pointer
    _launch_or_unavailable(lambda: k[1, 8](*ok))


@nvrtc
def test_pointer_checks_by_pointee():
    src = r'''extern "C" __global__ void p(unsigned int *u, char *bytes, void *any, float2 *c,
                                           double **table) {}'''
    k = gpu.RawKernel(src, "p", arch="sm_90", cache_dir=False)
    u, b, c, t = np.zeros(4, np.uint32), np.zeros(4, np.uint8), np.zeros(4, np.complex64), \
        np.zeros(4, np.uint64)
    _launch_or_unavailable(lambda: k[1, 1](np.zeros(4, np.int32), b, u, c, t))   # signedness
    _launch_or_unavailable(lambda: k[1, 1](u, np.zeros(4, bool), np.zeros(3), c, t))
    with pytest.raises(TypeError, match=r"parameter 'u'.*float32; it takes an array of 4-byte "
                                        r"integers"):
        k[1, 1](np.zeros(4, np.float32), b, u, c, t)
    with pytest.raises(TypeError, match=r"parameter 'bytes'.*int16"):
        k[1, 1](u, np.zeros(4, np.int16), u, c, t)
    with pytest.raises(TypeError, match=r"parameter 'table'.*8-byte items"):
        k[1, 1](u, b, u, c, np.zeros(4, np.float32))
    with pytest.raises(TypeError, match=r"parameter 'any'.*object"):
        k[1, 1](u, b, np.array([None, 1]), c, t)


@nvrtc
def test_pycuda_and_cupy_call_forms():
    mod = _module()
    f = mod.get_function("multiply_them")
    a = np.ones(4, np.float32)
    # the three launch forms reach the same argument checks
    for call in (lambda x: f(x, a, a, block=(4, 1, 1), grid=(1, 1)),
                 lambda x: f((1,), (4,), (x, a, a)),
                 lambda x: f((1,), (4,), [x, a, a], shared_mem=0, stream=None),
                 lambda x: f[1, 4](x, a, a)):
        with pytest.raises(TypeError, match="parameter 'dest'"):
            call(np.ones(4))
        _launch_or_unavailable(lambda: call(gpu.Out(np.zeros(4, np.float32))))
    with pytest.raises(TypeError, match="unexpected keyword"):
        f(a, a, a, block=(4, 1, 1), sharedmem=4)
    with pytest.raises(TypeError, match="block="):
        f(a, a, a)
    with pytest.raises(ValueError, match="1024 threads"):
        f(a, a, a, block=(2048, 1, 1))
    assert f.prepare("PPP") is f


@nvrtc
def test_bad_modules():
    with pytest.raises(TypeError, match="str"):
        gpu.SourceModule(b"__global__ void f() {}", arch="sm_90")
    with pytest.raises(ValueError, match="arch"):
        gpu.SourceModule(MULTIPLY_THEM, arch="90a-ish")
    with pytest.raises(TypeError, match="name_expressions"):
        gpu.RawModule(code=TEMPLATES, name_expressions=[3], arch="sm_90")
    with pytest.raises(TypeError, match="code or path"):
        gpu.RawModule(code="x", path="y.cu")
    with pytest.raises(ValueError, match="nvcc"):
        gpu.RawModule(code=MY_ADD, backend="nvcc", arch="sm_90")
    with pytest.raises(TypeError, match="get_function"):
        _module().get_function(3)


def test_current_gpu_needed_without_arch():
    if gpu.SIMULATOR or not hw._HAVE_RUNTIME or gpu.is_available() or not _have_nvrtc():
        pytest.skip("for the compiled path without a GPU")
    with pytest.raises(gpu.GpuUnavailableError, match="arch='sm_90'"):
        gpu.SourceModule(MULTIPLY_THEM)


def test_exported_where_numba_style_code_looks():
    from pyjit import cuda
    for name in ("SourceModule", "RawKernel", "RawModule", "CompileError", "NvrtcError"):
        assert getattr(cuda, name) is getattr(gpu, name)


@pytest.mark.parametrize("mode", ["1", "cpu"])
def test_simulators_say_cuda_c_needs_a_gpu(mode):
    code = ("from pyjit import gpu\nfrom pyjit.gpu.errors import GpuUnavailableError\n"
            "for make in (lambda: gpu.SourceModule('__global__ void f() {}'),\n"
            "             lambda: gpu.RawKernel('extern \"C\" __global__ void f() {}', 'f'),\n"
            "             lambda: gpu.RawModule(code='')):\n"
            "    try:\n"
            "        make()\n"
            "    except GpuUnavailableError as e:\n"
            "        print('needs a GPU' in str(e), 'PYJIT_SIMULATOR' in str(e))\n")
    env = dict(os.environ, PYJIT_SIMULATOR=mode)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.stdout.split() == ["True"] * 6, r.stderr


@nvrtc
def test_types_of_unread_headers_are_taken_from_the_ptx(monkeypatch):
    """Parameters whose types come from a header pyjit does not read: floats and integers by
    their PTX type, 8-byte integers as pointers, structs by size."""
    from pyjit.gpu import source
    monkeypatch.setitem(source._STUB_HEADERS, "myheader.h",
                        "typedef float real_t; typedef long index_t; typedef int count_t;\n"
                        "struct Pair { double a, b; };\n")
    src = '#include "myheader.h"\n' \
          'extern "C" __global__ void k(real_t a, index_t n, count_t c, Pair q, float *out) {}\n'
    k = gpu.RawKernel(src, "k", arch="sm_90", cache_dir=False)
    assert [(p.kind, p.size) for p in k.params] == [("scalar", 4), ("pointer", 8),
                                                    ("scalar", 4), ("bytes", 16),
                                                    ("pointer", 8)]
    assert k.params[0].dtype == np.float32 and k.params[2].dtype == np.int32
    out = np.zeros(2, np.float32)
    pair = np.zeros((), [("a", "f8"), ("b", "f8")])[()]
    with pytest.raises(TypeError, match="parameter 'n'.*np.int64"):
        k[1, 1](1.5, 3, 2, pair, out)
    _launch_or_unavailable(lambda: k[1, 1](1.5, np.int64(3), 2, pair, out))


@nvrtc
def test_raw_module_from_files(tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_text(TEMPLATES)
    mod = gpu.RawModule(path=str(cu), name_expressions=["axpy<float>"], arch="sm_90",
                        cache_dir=False)
    ptx = tmp_path / "k.ptx"
    ptx.write_text(mod.ptx)
    from_ptx = gpu.RawModule(path=str(ptx))
    assert from_ptx.cubin is None and from_ptx.arch == "compute_90"
    k = from_ptx.get_function("_Z4axpyIfEvT_PKS0_PS0_i")        # typed by its mangled name
    assert [(p.kind, p.writes) for p in k.params] == [("scalar", False), ("pointer", False),
                                                      ("pointer", True), ("scalar", False)]
    with pytest.raises(TypeError, match="argument 2.*float64"):
        k[1, 1](1.0, np.zeros(4), np.zeros(4, np.float32), 4)
    plain = from_ptx.get_function("plain_cpp")                   # found by its plain name
    assert [p.kind for p in plain.params] == ["pointer", "scalar"]
    with pytest.raises(ValueError, match="cubin"):
        gpu.RawModule(path=str(tmp_path / "k.cubin"))


@nvrtc
def test_edited_header_is_another_compilation(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "scale.h").write_text("#define SCALE 3.0f\n")
    src = '#include "scale.h"\n__global__ void f(float *x) { x[0] *= SCALE; }\n'
    cache = tmp_path / "cache"
    first = gpu.SourceModule(src, arch="sm_90", cache_dir=str(cache), include_dirs=[str(inc)])
    (inc / "scale.h").write_text("#define SCALE 5.0f\n")
    second = gpu.SourceModule(src, arch="sm_90", cache_dir=str(cache), include_dirs=[str(inc)])
    assert "0f40400000" in first.ptx and "0f40A00000" in second.ptx    # 3.0f, then 5.0f
    assert len(os.listdir(cache)) == 2


def test_missing_nvrtc_says_how_to_get_it(monkeypatch):
    if gpu.SIMULATOR or not hw._HAVE_RUNTIME:
        pytest.skip("for the compiled path")
    from pyjit.gpu import _link

    def missing():
        raise RuntimeError("no libnvrtc")
    monkeypatch.setattr(_link, "_nvrtc", missing)
    with pytest.raises(RuntimeError, match="NVRTC.*nvidia-cuda-nvrtc"):
        gpu.SourceModule(MULTIPLY_THEM, arch="sm_90", cache_dir=False)


@nvrtc
def test_objects_with_an_address_pass_as_pointers():
    """PyCUDA's untyped allocations convert to their address (__index__): any pointer takes
    them; a plain Python int does not (a slip more often than an address)."""
    k = gpu.RawKernel(MY_ADD, "my_add", arch="sm_90", cache_dir=False)

    # where there is a GPU, the address of real device memory, kept alive while a launch reads it
    memory = gpu.device_array(4, np.float32) if gpu.is_available() else None
    address = memory.__cuda_array_interface__["data"][0] if memory is not None else 0x7f0000000000

    class Allocation:
        def __index__(self):
            return address
    a = np.zeros(4, np.float32)
    _launch_or_unavailable(lambda: k[1, 4](Allocation(), a, a))
    with pytest.raises(TypeError, match="parameter 'x1'.*given int"):
        k[1, 4](0x7f0000000000, a, a)
    with pytest.raises(ValueError, match="contiguous"):
        gpu.memcpy_htod(None, np.zeros((4, 4))[:, 1])
    with pytest.raises(TypeError, match="NumPy array"):
        gpu.memcpy_dtoh([0.0], None)


@nvrtc
def test_cooperative_launch_needs_a_cooperative_kernel():
    k = gpu.RawKernel(MY_ADD, "my_add", arch="sm_90", cache_dir=False)
    a = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="enable_cooperative_groups=True"):
        k((1,), (4,), (a, a, a), enable_cooperative_groups=True)
    coop = gpu.RawKernel(MY_ADD, "my_add", arch="sm_90", cache_dir=False,
                         enable_cooperative_groups=True)
    _launch_or_unavailable(lambda: coop((1,), (4,), (a, a, a), enable_cooperative_groups=True))
