"""CUDA C kernels from Python strings: gpu.SourceModule (PyCUDA's), gpu.RawKernel and
gpu.RawModule (CuPy's), launched by pyjit's launcher.

The source is compiled by NVRTC (libnvrtc of the CUDA toolkit, opened at run time as for
link=[...] .cu files: pyjit/gpu/_link.py) for the current GPU: to a cubin for its architecture
(loaded with no JIT step), with the PTX beside it, which gives the kernels' parameter layout.
What NVRTC made is cached on disk by source, options, name expressions, architecture and NVRTC
version (pyjit/_cache.py), so a later process loads it without compiling.

A kernel of the module is a pyjit kernel (runtime/launch.c's Kernel with a parameter list read
by pyjit/gpu/_csource.py): it launches as PyCUDA's `f(*args, block=, grid=, shared=, stream=)`,
as CuPy's `kernel(grid, block, args, shared_mem=, stream=)` and as pyjit's `f[grid, block](*args)`,
all through the same C path as @gpu.jit kernels. Arguments: device arrays, objects with
__cuda_array_interface__ or DLPack, NumPy arrays (copied in, and back when the parameter points to
non-const or the array is wrapped in gpu.Out/InOut; gpu.In never back), NumPy scalars and Python
numbers, checked against the parameter's C type.
"""
import ctypes
import importlib
import os
import re

from .. import _cache, _core
from .errors import CudaError, GpuUnavailableError, NvrtcError

# import_module, not `from . import x`: that would consult pyjit.gpu's __getattr__, which may be
# loading the backend that imports this module
_csource = importlib.import_module(__package__ + "._csource")

_FORMAT = 1      # of what the cache stores for a compilation

# Headers of the C library that CUDA C code includes out of habit; NVRTC has none of them, and
# what device code uses of them (printf, assert, the math functions) NVRTC declares itself.
_STUB_HEADERS = {name: "" for name in (
    "stdio.h", "cstdio", "stdlib.h", "cstdlib", "math.h", "cmath", "assert.h", "cassert",
    "string.h", "cstring", "float.h", "cfloat", "limits.h", "climits")}
_STUB_HEADERS["stdint.h"] = _STUB_HEADERS["cstdint"] = """
typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;
typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t; typedef unsigned long long uintptr_t;
"""
_STUB_HEADERS["stddef.h"] = _STUB_HEADERS["cstddef"] = \
    "typedef unsigned long size_t; typedef long ptrdiff_t;\n"


# ---- NVRTC ----

class Compiled:
    """What NVRTC made of a source: PTX text, the cubin (None when compiled for a virtual
    architecture, compute_XY), {name expression: lowered name}, the log (warnings), the
    architecture."""

    def __init__(self, ptx, cubin, lowered, log, arch):
        self.ptx, self.cubin, self.lowered, self.log, self.arch = ptx, cubin, lowered, log, arch


def _lib():
    try:
        lib = importlib.import_module(__package__ + "._link")._nvrtc()
    except RuntimeError:
        raise RuntimeError("CUDA C source (SourceModule, RawKernel, RawModule) is compiled by "
                           "NVRTC, which was not found: install the CUDA toolkit (and set "
                           "CUDA_HOME) or NVIDIA's wheel (pip install nvidia-cuda-nvrtc)") from None
    if not getattr(lib, "_pyjit_typed", False):
        vp, sz = ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)
        lib.nvrtcCreateProgram.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                           ctypes.POINTER(ctypes.c_char_p)]
        lib.nvrtcCompileProgram.argtypes = [vp, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        lib.nvrtcAddNameExpression.argtypes = [vp, ctypes.c_char_p]
        lib.nvrtcGetLoweredName.argtypes = [vp, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
        for f in ("nvrtcGetPTXSize", "nvrtcGetCUBINSize", "nvrtcGetProgramLogSize"):
            getattr(lib, f).argtypes = [vp, sz]
        for f in ("nvrtcGetPTX", "nvrtcGetCUBIN", "nvrtcGetProgramLog"):
            getattr(lib, f).argtypes = [vp, ctypes.c_char_p]
        lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(vp)]
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        lib._pyjit_typed = True
    return lib


def nvrtc_version():
    """NVRTC's (major, minor)."""
    lib = _lib()
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


def supported_archs():
    """The compute capabilities NVRTC compiles for, as ints (90 for sm_90)."""
    lib = _lib()
    n = ctypes.c_int()
    if lib.nvrtcGetNumSupportedArchs(ctypes.byref(n)) != 0:
        return []
    archs = (ctypes.c_int * n.value)()
    lib.nvrtcGetSupportedArchs(archs)
    return list(archs)


def _blob(lib, prog, size_fn, get_fn):
    size = ctypes.c_size_t()
    if getattr(lib, size_fn)(prog, ctypes.byref(size)) != 0 or size.value == 0:
        return None
    buf = ctypes.create_string_buffer(size.value)
    if getattr(lib, get_fn)(prog, buf) != 0:
        return None
    return buf.raw


def _include_dirs():
    """The toolkit's include folders (cuda_fp16.h, cuComplex.h...) where they exist."""
    dirs = []
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and os.path.isfile(os.path.join(home, "include", "cuda_fp16.h")):
            dirs.append(os.path.join(home, "include"))
    return list(dict.fromkeys(dirs))


def _nvrtc_options(options, include_dirs, arch):
    """NVRTC's options for nvcc-style ones (PyCUDA passes its options to nvcc): -O levels are
    NVRTC's default, -arch/-code come from arch, -I and -D pass through."""
    out = [f"--gpu-architecture={arch}"]
    for opt in options:
        if not isinstance(opt, str):
            raise TypeError(f"options must be strings, not {opt!r}")
        if re.fullmatch(r"-O[0-3s]?|--optimize(=\d)?", opt):
            continue
        if re.match(r"(-arch|--gpu-architecture|-code|--gpu-code)\b", opt):
            raise ValueError(f"option {opt!r}: give the architecture as arch='sm_90' (the "
                             "current GPU's by default)")
        out.append(opt)
    out += [f"-I{d}" for d in list(include_dirs) + _include_dirs()]
    return out


def _raise_compile_error(log, source, filename, what):
    """NvrtcError with NVRTC's log and the first error's line of the source."""
    m = re.search(re.escape(filename) + r"\((\d+)\): (?:catastrophic )?error: ([^\n]*)", log)
    lineno = int(m.group(1)) if m else None
    lines = source.splitlines()
    where = ""
    if lineno is not None:
        where = f", line {lineno}: {m.group(2)}"
        if 0 < lineno <= len(lines):
            where += f"\n    {lines[lineno - 1].strip()}"
    err = NvrtcError(f"NVRTC could not compile {what}{where}\n\nNVRTC's log:\n{log.rstrip()}")
    err.log, err.lineno, err.filename = log, lineno, filename
    raise err


def compile_nvrtc(source, options=(), name_expressions=(), arch="sm_90", filename="kernel.cu",
                  what="the CUDA C source", original=None):
    """Compiles source with NVRTC for arch ('sm_90': a cubin and its PTX; 'compute_90': PTX):
    a Compiled. A failed compilation raises NvrtcError with the log and the line; original is
    the source as the user wrote it, for the line shown."""
    lib = _lib()
    prog = ctypes.c_void_p()
    names = [n.encode() for n in _STUB_HEADERS]
    bodies = [b.encode() for b in _STUB_HEADERS.values()]
    status = lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), filename.encode(),
                                    len(names), (ctypes.c_char_p * len(names))(*bodies),
                                    (ctypes.c_char_p * len(names))(*names))
    if status != 0:
        raise NvrtcError(f"NVRTC: reading {what}: {lib.nvrtcGetErrorString(status).decode()}")
    try:
        for expr in name_expressions:
            status = lib.nvrtcAddNameExpression(prog, expr.encode())
            if status != 0:
                raise NvrtcError(f"NVRTC: name expression {expr!r}: "
                                 f"{lib.nvrtcGetErrorString(status).decode()}")
        opts = [o.encode() for o in options]
        status = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        log = (_blob(lib, prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog") or b"")
        log = log.rstrip(b"\0").decode(errors="replace")
        if status != 0:
            if not log.strip():
                log = lib.nvrtcGetErrorString(status).decode()
            _raise_compile_error(log, original if original is not None else source, filename,
                                 what)
        ptx = _blob(lib, prog, "nvrtcGetPTXSize", "nvrtcGetPTX")
        cubin = _blob(lib, prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN") \
            if arch.startswith("sm_") else None
        lowered = {}
        for expr in name_expressions:
            out = ctypes.c_char_p()
            status = lib.nvrtcGetLoweredName(prog, expr.encode(), ctypes.byref(out))
            if status != 0:
                raise NvrtcError(f"NVRTC: no lowered name for the name expression {expr!r} "
                                 f"({lib.nvrtcGetErrorString(status).decode()}): does it name "
                                 "a __global__ function of the source?")
            lowered[expr] = out.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
    if ptx is None and arch.startswith("sm_"):   # an NVRTC that keeps no PTX of a cubin
        ptx = compile_nvrtc(source, [o.replace(arch, "compute_" + arch[3:]) for o in options],
                            name_expressions, "compute_" + arch[3:], filename, what,
                            original).ptx.encode()
    ptx = ptx.rstrip(b"\0").decode() if isinstance(ptx, bytes) else ptx
    return Compiled(ptx, cubin, lowered, log, arch)


def _included(source, options, depth=0, seen=None):
    """[(path, contents)] of the files the source includes from the -I folders of options (and
    what those include), for the cache key: an edited header is another compilation. The
    toolkit's own headers are covered by NVRTC's version."""
    seen = set() if seen is None else seen
    toolkit = set(_include_dirs())
    dirs = [o[2:] for o in options if o.startswith("-I") and o[2:] not in toolkit]
    found = []
    for name in re.findall(r'(?m)^\s*#\s*include\s*[<"]([^>"]+)[>"]', source):
        for d in dirs:
            path = os.path.join(d, name)
            if path in seen or not os.path.isfile(path):
                continue
            seen.add(path)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            found.append((path, text))
            if depth < 8:
                found += _included(text, options, depth + 1, seen)
            break
    return found


def compile_cached(source, options, name_expressions, arch, cache_dir=None, what="",
                   original=None):
    """compile_nvrtc through the on-disk cache (cache_dir=False: not cached)."""
    key = None
    if cache_dir is not False:
        key = _cache.source_key(_FORMAT, source, "\x01".join(options),
                                "\x01".join(name_expressions), arch, nvrtc_version(),
                                sorted(_STUB_HEADERS.items()), _included(source, options))
        hit = _cache.load_source(key, cache_dir or None)
        if hit is not None:
            header, (ptx, cubin, log) = hit
            return Compiled(ptx.decode(), cubin if header.get("has_cubin") else None,
                            dict(header["lowered"]), log.decode(), arch)
    c = compile_nvrtc(source, options, name_expressions, arch, what=what, original=original)
    if key is not None:
        _cache.store_source(key, {"lowered": c.lowered, "has_cubin": c.cubin is not None,
                                  "arch": arch}, [c.ptx.encode(), c.cubin or b"",
                                                  c.log.encode()], cache_dir or None)
    return c


def _target(arch):
    """The architecture to compile for: arch as given ('sm_90', 'compute_90', (9, 0), 90), or
    the current GPU's; an architecture newer than NVRTC knows becomes the newest PTX it makes
    (the driver compiles that for the GPU)."""
    if arch is None:
        from . import hardware
        if not hardware.is_available():
            raise GpuUnavailableError(
                "compiling CUDA C for the current GPU: " + hardware._unavailable_reason() +
                "; give arch='sm_90' (say) to compile without one")
        cc = hardware.get_current_device().compute_capability
        number = cc[0] * 10 + cc[1]
        known = supported_archs()
        if known and number not in known:
            older = [a for a in known if a <= number]
            if older:
                return f"compute_{max(older)}"
        return f"sm_{number}"
    if isinstance(arch, tuple):
        return f"sm_{arch[0]}{arch[1]}"
    if isinstance(arch, int):
        return f"sm_{arch}"
    if not isinstance(arch, str) or not re.fullmatch(r"(sm|compute)_\d+[a-z]?", arch):
        raise ValueError(f"arch must be like 'sm_90' or 'compute_90', not {arch!r}")
    return arch


# ---- modules and their kernels ----

def _wrap_extern_c(source):
    """PyCUDA's default: the source inside extern "C" { }, so kernels keep their names. Its
    leading #include lines stay outside (C++ headers cannot be given C linkage); #line keeps
    NVRTC's line numbers those of the source."""
    lines = source.split("\n")
    head = []
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("#include") or s.startswith("#pragma once"):
            head.append(line)
            lines[i] = ""
        elif s and not s.startswith("//") and not s.startswith("#"):
            break
    return "\n".join(head + ['extern "C" {', '#line 1 "kernel.cu"'] + lines + ["}"])


class _Module:
    """A compiled source and the kernels found in it (what SourceModule and RawModule share)."""

    def __init__(self, code, options, name_expressions, arch, cache_dir, wrap, include_dirs=(),
                 cooperative=False, kind="RawModule", ptx=None):
        _require_hardware(kind)
        if ptx is not None:          # a module of PTX made elsewhere (RawModule(path='k.ptx'))
            if name_expressions:
                raise ValueError(f"{kind}: name_expressions need CUDA C source, not PTX")
            self.code, self.options, self.name_expressions = None, (), ()
            self.arch = "compute_" + (re.findall(r"\.target\s+sm_(\d+)", ptx) or ["?"])[0]
            self._compiled = Compiled(ptx, None, {}, "", self.arch)
            self._image = _core.cuda_source_image(ptx, None)
            self._cooperative = bool(cooperative)
            self._kernels = {}
            return
        if not isinstance(code, str):
            raise TypeError(f"{kind} takes the CUDA C source as a str, not "
                            f"{type(code).__name__}")
        if isinstance(options, str):
            options = (options,)
        exprs = tuple(name_expressions or ())
        for e in exprs:
            if not isinstance(e, str):
                raise TypeError(f"name_expressions must be strings, not {e!r}")
        self.code = code
        self.options = tuple(options or ())
        self.name_expressions = exprs
        self.arch = _target(arch)
        text = _wrap_extern_c(code) if wrap else code
        nvopts = _nvrtc_options(self.options, include_dirs, self.arch)
        self._compiled = compile_cached(text, nvopts, exprs, self.arch, cache_dir,
                                        what=f"the CUDA C source of a {kind}", original=code)
        self._image = _core.cuda_source_image(self._compiled.ptx, self._compiled.cubin)
        self._cooperative = bool(cooperative)
        self._kernels = {}

    @property
    def ptx(self):
        """The PTX NVRTC made (the cubin's, when compiled for a real architecture)."""
        return self._compiled.ptx

    @property
    def cubin(self):
        """The cubin NVRTC made (None when compiled for a virtual architecture)."""
        return self._compiled.cubin

    @property
    def log(self):
        """NVRTC's log (its warnings) of the compilation."""
        return self._compiled.log

    def get_lowered_name(self, name_expression):
        """The mangled name NVRTC gave a name expression."""
        try:
            return self._compiled.lowered[name_expression]
        except KeyError:
            raise KeyError(f"{name_expression!r} is not one of the name expressions given "
                           f"({', '.join(self.name_expressions) or 'none'})") from None

    def _entry(self, name):
        """(.entry name, name expression or None) of the kernel `name`."""
        if name in self._compiled.lowered:
            return self._compiled.lowered[name], name
        entries = _csource.entries(self._compiled.ptx)
        if name in entries:
            return name, None
        matches = []
        for e in entries:
            d = _csource.demangle(e)
            if d and (d[0] == name or d[0].split("::")[-1] == name):
                matches.append(e)
        if len(matches) == 1:
            return matches[0], None
        if matches:
            raise CudaError(f"kernel {name!r} is overloaded or a template ({', '.join(matches)}): "
                            "name the one to launch with name_expressions=['f<float>'] and "
                            "get_function('f<float>')", "CUDA_ERROR_NOT_FOUND", 500)
        names = [e for e in entries if not e.startswith("_Z")] + list(self._compiled.lowered)
        raise CudaError(f"no kernel named {name!r} in this module (its kernels: "
                        f"{', '.join(names) or 'none'}; a C++ kernel that is not extern \"C\" "
                        "is named through name_expressions)", "CUDA_ERROR_NOT_FOUND", 500)

    def get_function(self, name):
        """The kernel `name` (an extern "C" name, or one of the name expressions) as a pyjit
        kernel, launched as PyCUDA's and CuPy's are and as kernel[grid, block](*args)."""
        if not isinstance(name, str):
            raise TypeError(f"get_function takes a kernel's name, not {name!r}")
        if name not in self._kernels:
            self._kernels[name] = _make_kernel(SourceKernel, self, name)
        return self._kernels[name]

    def get_global(self, name):
        """(device array of the bytes of the __device__ or __constant__ variable `name`, its
        size): loads the module on the current GPU. Fill it with
        `arr.copy_to_device(host.view(np.uint8))`, read it with copy_to_host()."""
        address, size = _core.cuda_source_global(self._image, name)
        from . import hardware
        arr = hardware.from_cuda_array_interface(
            {"shape": (size,), "typestr": "|u1", "data": (address, False), "version": 3,
             "strides": None, "stream": None}, owner=self)
        return arr, size


def _make_kernel(cls, module, name):
    entry, expr = module._entry(name)
    described = _csource.describe(entry, module._compiled.ptx, module.code, expr)
    if described is None:
        raise CudaError(f"kernel {name!r}: no .entry {entry} in the PTX", "CUDA_ERROR_NOT_FOUND",
                        500)
    params, total = described
    k = _core.cuda_source_kernel(cls, module._image, name, entry,
                                 [p.as_tuple() for p in params], total, module._cooperative)
    k.module = module
    k.params = params
    return k


def _require_hardware(kind):
    from . import hardware
    if not hardware._HAVE_RUNTIME:
        raise GpuUnavailableError(f"{kind}: {hardware._NO_RUNTIME}")


class SourceModule(_Module):
    """PyCUDA's SourceModule: CUDA C source compiled (NVRTC) for the current GPU, or for arch
    ('sm_90', 'compute_90') without one. The source is wrapped in extern "C" { } unless
    no_extern_c=True (then C++ templates and overloads are named with name_expressions).
    nvcc, keep and code are accepted for PyCUDA's sake and not used; cache_dir=False turns the
    on-disk cache off."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False,
                 arch=None, code=None, cache_dir=None, include_dirs=(), name_expressions=()):
        super().__init__(source, options or (), name_expressions, arch, cache_dir,
                         not no_extern_c, include_dirs, kind="SourceModule")
        self.source = source


class RawModule(_Module):
    """CuPy's RawModule: CUDA C source compiled as written (kernels meant to be found by name
    are extern "C", or named by name_expressions), with get_function and get_global."""

    def __init__(self, code=None, path=None, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 name_expressions=None, jitify=False, arch=None, cache_dir=None):
        ptx = None
        if path is not None:
            if code is not None:
                raise TypeError("RawModule takes code or path, not both")
            if str(path).endswith((".cubin", ".fatbin", ".o")):
                raise ValueError(f"RawModule: {path}: the parameters of a cubin's kernels cannot "
                                 "be read; give its CUDA C source (code= or a .cu path) or PTX "
                                 "(a .ptx path)")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if str(path).endswith(".ptx"):
                ptx = text
            else:
                code = text
        if code is None and ptx is None:
            raise TypeError("RawModule needs code= (CUDA C source) or path= (a .cu or .ptx file)")
        if backend != "nvrtc":
            raise ValueError(f"RawModule: backend {backend!r}: pyjit compiles with NVRTC only")
        if jitify or translate_cucomplex:
            raise ValueError("RawModule: jitify and translate_cucomplex are not supported")
        super().__init__(code, options, name_expressions, arch, cache_dir, False,
                         cooperative=enable_cooperative_groups, kind="RawModule", ptx=ptx)


if hasattr(_core, "Kernel"):
    class SourceKernel(_core.Kernel):
        """A kernel of CUDA C source (SourceModule.get_function, RawModule.get_function,
        RawKernel). Launch it as PyCUDA's `f(*args, block=(256, 1, 1), grid=(n, 1), shared=0,
        stream=None)`, as CuPy's `f(grid, block, args, shared_mem=0, stream=None)`, or as
        `f[grid, block, stream, shared](*args)`. .params lists what each parameter takes."""

        def __init__(self, *args, **kwargs):
            pass   # made by _core.cuda_source_kernel

        def _call_with(self, args, kwargs):
            """The launch for keywords the C path leaves to Python (time_kernel=True)."""
            kwargs = dict(kwargs)
            timed = kwargs.pop("time_kernel", False)
            if "block" in kwargs:
                grid = kwargs.pop("grid", (1, 1))
                block = kwargs.pop("block")
                shared = kwargs.pop("shared", 0)
                stream = kwargs.pop("stream", None)
                kernel_args = args
            else:
                if len(args) != 3:
                    raise TypeError(f"kernel '{self.__name__}' is launched as f(*args, "
                                    "block=..., grid=...) or f(grid, block, args)")
                grid, block, kernel_args = args
                shared = kwargs.pop("shared_mem", 0)
                stream = kwargs.pop("stream", None)
            if kwargs.pop("enable_cooperative_groups", False) and not self.module._cooperative:
                raise ValueError(f"kernel '{self.__name__}': a cooperative launch needs the "
                                 "kernel made with enable_cooperative_groups=True (RawKernel, "
                                 "RawModule)")
            if kwargs:
                raise TypeError(f"kernel '{self.__name__}': unexpected keyword argument(s) "
                                f"{', '.join(kwargs)}")
            launch = self[grid, block, stream, shared]
            if not timed:
                return launch(*kernel_args)
            from . import hardware
            start, end = hardware.event(), hardware.event()
            start.record(stream or 0)
            launch(*kernel_args)
            end.record(stream or 0)
            end.synchronize()
            return start.elapsed_time(end) / 1000.0   # PyCUDA gives seconds

        def configure(self, griddim, blockdim, stream=0, sharedmem=0):
            return self[griddim, blockdim, stream, sharedmem]

        # PyCUDA's prepared calls: the parameter types are known already
        def prepare(self, arg_types=None, texrefs=()):
            return self

        def prepared_call(self, grid, block, *args, shared_size=0):
            self[grid, block, 0, shared_size](*args)

        def prepared_async_call(self, grid, block, stream, *args, shared_size=0):
            self[grid, block, stream, shared_size](*args)

        def prepared_timed_call(self, grid, block, *args, shared_size=0):
            t = self(*args, grid=grid, block=block, shared=shared_size, time_kernel=True)
            return lambda: t

        def get_attribute(self, attr):
            """A CUfunction_attribute of this kernel on the current GPU (loads it there)."""
            _core.cuda_source_load(self)
            return next(iter(self._func_attribute(int(attr)).values()))

        num_regs = property(lambda self: self.get_attribute(4))
        shared_size_bytes = property(lambda self: self.get_attribute(1))
        const_size_bytes = property(lambda self: self.get_attribute(2))
        local_size_bytes = property(lambda self: self.get_attribute(3))
        max_threads_per_block = property(lambda self: self.get_attribute(0))

        @property
        def ptx(self):
            return self.module.ptx

        def __repr__(self):
            sig = ", ".join(f"{p.ctype}{'' if str(p.ctype).endswith('*') else ' '}{p.name}"
                            for p in self.params)
            return f"<pyjit.gpu CUDA C kernel {self.__name__}({sig})>"

    Function = SourceKernel

    class RawKernel(SourceKernel):
        """CuPy's RawKernel(code, name): one kernel of CUDA C source (extern "C", or a name
        expression such as 'f<float>'), compiled when made. Launch it as CuPy's
        kernel(grid, block, args, shared_mem=0, stream=None)."""

        def __new__(cls, code, name, options=(), backend="nvrtc", translate_cucomplex=False,
                    enable_cooperative_groups=False, jitify=False, arch=None, cache_dir=None):
            if not isinstance(name, str):
                raise TypeError(f"RawKernel: name must be a str, not {name!r}")
            exprs = [name] if ("<" in name or "::" in name) else []
            module = RawModule(code, None, options, backend, translate_cucomplex,
                               enable_cooperative_groups, exprs, jitify, arch, cache_dir)
            return _make_kernel(cls, module, name)

        @property
        def code(self):
            return self.module.code

        @property
        def name(self):
            return self.__name__

        @property
        def options(self):
            return self.module.options

        @property
        def kernel(self):
            return self

        @property
        def attributes(self):
            names = {0: "max_threads_per_block", 1: "shared_size_bytes", 2: "const_size_bytes",
                     3: "local_size_bytes", 4: "num_regs"}
            return {v: self.get_attribute(k) for k, v in names.items()}
else:   # a pyjit without the GPU runtime: the names exist and say so
    class SourceKernel:
        def __init__(self, *args, **kwargs):
            _require_hardware("a CUDA C kernel")

    Function = RawKernel = SourceKernel


# ---- PyCUDA's untyped device memory: mem_alloc, memcpy_htod, memcpy_dtoh ----

class DeviceAllocation:
    """What gpu.mem_alloc returns, as PyCUDA's: `nbytes` bytes of device memory with no dtype.
    A kernel's pointer parameter of any type takes it (its address: int(alloc)); the memory
    is freed when the last reference goes (or by free())."""

    def __init__(self, nbytes):
        from . import hardware
        import numpy as np
        self._array = hardware.device_array(int(nbytes), np.uint8)
        self.nbytes = int(nbytes)

    def __index__(self):
        if self._array is None:
            raise ValueError("this DeviceAllocation was freed")
        return self._array.device_ctypes_pointer_value

    __int__ = __index__

    def free(self):
        self._array = None

    def _bytes(self, nbytes, what):
        """A uint8 device array over the first nbytes bytes."""
        if self._array is None:
            raise ValueError("this DeviceAllocation was freed")
        if nbytes > self.nbytes:
            raise ValueError(f"{what}: {nbytes} bytes into an allocation of {self.nbytes}")
        return self._array[:nbytes]

    def __repr__(self):
        return f"<pyjit.gpu DeviceAllocation of {self.nbytes} bytes>"


def mem_alloc(nbytes):
    """PyCUDA's mem_alloc: nbytes of device memory (a DeviceAllocation)."""
    if int(nbytes) < 0:
        raise ValueError(f"mem_alloc: a negative size ({nbytes})")
    return DeviceAllocation(nbytes)


def _host_bytes(ary, what):
    import numpy as np
    if not isinstance(ary, np.ndarray):
        raise TypeError(f"{what} copies a NumPy array, not {type(ary).__name__}")
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        raise ValueError(f"{what}: the NumPy array must be contiguous")
    return ary.reshape(-1, order="A").view(np.uint8)


def memcpy_htod(dest, src, stream=None):
    """PyCUDA's memcpy_htod: the bytes of NumPy array src into dest (a DeviceAllocation or a
    device array)."""
    data = _host_bytes(src, "memcpy_htod")
    target = dest._bytes(data.size, "memcpy_htod") if isinstance(dest, DeviceAllocation) \
        else dest
    if target is not dest or getattr(target, "dtype", None) == data.dtype:
        target.copy_to_device(data, stream=stream or 0)
    else:
        target.copy_to_device(src, stream=stream or 0)


def memcpy_dtoh(dest, src, stream=None):
    """PyCUDA's memcpy_dtoh: the bytes of src (a DeviceAllocation or a device array) into the
    NumPy array dest."""
    data = _host_bytes(dest, "memcpy_dtoh")
    if isinstance(src, DeviceAllocation):
        src._bytes(data.size, "memcpy_dtoh").copy_to_host(data, stream=stream or 0)
    else:
        src.copy_to_host(dest, stream=stream or 0)
    if stream:
        stream.synchronize()


def needs_gpu(name):
    """The simulators' SourceModule, RawKernel and RawModule: CUDA C runs only on a GPU."""
    def refuse(*args, **kwargs):
        raise GpuUnavailableError(
            f"gpu.{name}: CUDA C (SourceModule, RawKernel, RawModule, mem_alloc) needs a GPU "
            "and runs only there; the simulator "
            "(PYJIT_SIMULATOR) runs kernels written in Python with @gpu.jit. Unset "
            "PYJIT_SIMULATOR on a machine with a GPU to launch it")
    refuse.__name__ = refuse.__qualname__ = name
    return refuse


__all__ = ["SourceModule", "RawModule", "RawKernel", "SourceKernel", "Function",
           "compile_nvrtc", "DeviceAllocation", "mem_alloc", "memcpy_htod", "memcpy_dtoh"]
