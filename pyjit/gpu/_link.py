"""Foreign device code: gpu.declare_device and @gpu.jit(link=[...]), as numba-cuda has them.

A function declared with declare_device(name, signature, link=...) is called from kernels by
its name: the kernel's PTX declares it (.extern .func) and the driver's linker (runtime/link.c:
cuLinkCreate, cuLinkAddData, cuLinkComplete) joins the kernel with the files that define it.
The function follows numba-cuda's ABI:

    extern "C" __device__ int name(ret_t *return_value, arg_t arg, ...);   /* returns 0 */

or, declared with abi="c" (as numba-cuda's declare_device takes it), the C ABI, as CUDA C
writes device functions and gpu.compile(abi="c") compiles Python ones:

    extern "C" __device__ ret_t name(arg_t arg, ...);

Files: CUDA C (.cu, compiled here through NVRTC, loaded from the CUDA toolkit at run time with
dlopen, as the driver is), PTX (.ptx), cubin (.cubin), fatbin (.fatbin), object (.o), library
(.a) and LTO-IR (.ltoir). The files of a kernel are those of its link= and those of the declared
functions its PTX calls. A missing file is a FileNotFoundError naming it.
"""
import ctypes
import ctypes.util
import os

from . import _options

# CUjitInputType (the driver's ABI)
INPUT_CUBIN, INPUT_PTX, INPUT_FATBINARY, INPUT_OBJECT, INPUT_LIBRARY, INPUT_NVVM = range(6)
_KINDS = {".ptx": INPUT_PTX, ".cubin": INPUT_CUBIN, ".fatbin": INPUT_FATBINARY,
          ".o": INPUT_OBJECT, ".a": INPUT_LIBRARY, ".ltoir": INPUT_NVVM}

_DECLARED = {}      # name -> the DeclaredDevice of that name (the last declared)


class DeclaredDevice:
    """A device function of foreign code: kernels call it by name (see the module's text)."""

    _pyjit_cfunc = True      # the frontend freezes it as a C function (pyjit/_ffi.py)

    def __init__(self, name, signature, link=(), abi="numba"):
        from .. import types
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"declare_device: the name must be a C identifier, not {name!r}")
        args, ret = types._canonical_signature(signature)
        self.name = name
        self.__name__ = name
        self.signature = signature
        self.abi = check_abi(name, abi)
        self._args, self._ret = tuple(args), ret or "none"
        self.link = tuple(_options.link_files(link)) if link else ()
        _DECLARED[name] = self

    def _pyjit_describe(self):
        """(name, address, "ret|arg|...", abi) for pyjit/_ffi.py: address 0, a symbol to link,
        called in numba-cuda's ABI or the C ABI."""
        return self.name, 0, "|".join((self._ret,) + self._args), self.abi

    def __call__(self, *args):
        raise TypeError(f"device function '{self.name}' (declare_device) can only be called "
                        "from a kernel")

    def __repr__(self):
        return f"<pyjit.gpu declared device function {self.name}{self.signature!r}>"


def check_abi(name, abi):
    """declare_device's abi: "numba" (numba-cuda's, the default) or "c"."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"declare_device('{name}'): abi={abi!r}; the ABIs are 'numba' "
                                  "(int name(ret_t *result, args...)) and 'c' (ret_t name(args...))")
    return abi


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """numba-cuda's cuda.declare_device: a device function defined in foreign code, in
    numba-cuda's ABI or (abi="c") the C ABI."""
    return DeclaredDevice(name, sig, link or (), abi)


# ---- NVRTC: CUDA C to PTX ----

_NVRTC = None


def _nvrtc_folders():
    """Where a toolkit's libnvrtc may be: CUDA_HOME, CUDA_PATH, /usr/local/cuda, and NVIDIA's
    pip wheels (nvidia-cuda-nvrtc) on sys.path."""
    import sys
    folders = []
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            folders.append(os.path.join(home, "lib64"))
    for entry in sys.path:
        for sub in ("cuda_nvrtc", "cu13", "cu12"):
            folders.append(os.path.join(entry, "nvidia", sub, "lib"))
    return [f for f in folders if os.path.isdir(f)]


def _load_builtins(folder):
    """libnvrtc opens libnvrtc-builtins by name when it compiles; from a folder the loader does
    not search (a pip wheel's), it is found only if already loaded: load it first, globally."""
    if not folder:
        return
    for n in sorted(os.listdir(folder)):
        if n.startswith("libnvrtc-builtins.so"):
            ctypes.CDLL(os.path.join(folder, n), mode=ctypes.RTLD_GLOBAL)
            return


def _nvrtc():
    """libnvrtc from the CUDA toolkit (the folders above, then the library path), opened once."""
    global _NVRTC
    if _NVRTC is None:
        names = []
        for folder in _nvrtc_folders():
            names += sorted((os.path.join(folder, n) for n in os.listdir(folder)
                             if n.startswith("libnvrtc.so")), reverse=True)
        names += [ctypes.util.find_library("nvrtc"), "libnvrtc.so", "libnvrtc.so.13",
                  "libnvrtc.so.12", "libnvrtc.so.11.2"]
        for n in names:
            if not n:
                continue
            try:
                _load_builtins(os.path.dirname(n))
                _NVRTC = ctypes.CDLL(n)
                break
            except OSError:
                continue
        if _NVRTC is None:
            raise RuntimeError("compiling CUDA C (.cu) needs NVRTC (libnvrtc.so of the CUDA "
                               "toolkit), which was not found: set CUDA_HOME, or link PTX or "
                               "cubin instead")
    return _NVRTC


def _check(lib, status, what, prog=None):
    if status == 0:
        return
    text = ""
    if prog is not None:
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        text = log.value.decode(errors="replace")
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    raise RuntimeError(f"NVRTC: {what}: {lib.nvrtcGetErrorString(status).decode()}\n{text}")


def compile_cuda(source, filename, cc):
    """The PTX of CUDA C source, for compute capability cc, relocatable (to be linked)."""
    lib = _nvrtc()
    prog = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(),
                                       os.path.basename(filename).encode(), 0, None, None),
           f"reading {filename}")
    try:
        opts = [f"--gpu-architecture=compute_{cc[0]}{cc[1]}".encode(), b"-rdc=true",
                b"-default-device"]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        _check(lib, lib.nvrtcCompileProgram(prog, len(opts), arr), f"compiling {filename}", prog)
        size = ctypes.c_size_t()
        _check(lib, lib.nvrtcGetPTXSize(prog, ctypes.byref(size)), "reading the PTX")
        ptx = ctypes.create_string_buffer(size.value)
        _check(lib, lib.nvrtcGetPTX(prog, ptx), "reading the PTX")
        return ptx.raw
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


# ---- what the linker gets ----

def _externs(ptx):
    """The names of the functions a kernel's PTX declares .extern."""
    names = []
    for line in ptx.splitlines():
        if line.startswith(".extern .func"):
            # ".extern .func  (.param .b32 func_retval0) name" or ".extern .func name("
            rest = line[len(".extern .func"):].strip()
            if rest.startswith("("):
                rest = rest.split(")", 1)[1]
            names.append(rest.split("(")[0].split()[0])
    return names


def inputs(ptx, files, cc):
    """runtime/link.c: [(data, CUjitInputType, name)] for the files of link= and those of the
    declared functions the kernel's PTX calls, each file once, in order. Its other .extern
    functions are the driver's (vprintf, malloc, free, __assertfail): nothing to add for them,
    and a kernel without files to link loads its PTX alone (an empty list)."""
    wanted = list(files or ())
    for name in _externs(ptx):
        if name in _DECLARED:
            wanted += _DECLARED[name].link
    out = []
    for path in dict.fromkeys(wanted):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"link: no such file: {path!r}")
        ext = os.path.splitext(path)[1]
        if ext == ".cu":
            with open(path, encoding="utf-8") as f:
                out.append((compile_cuda(f.read(), path, cc), INPUT_PTX, path))
        else:
            with open(path, "rb") as f:
                data = f.read()
            if ext == ".ptx" and not data.endswith(b"\0"):
                data += b"\0"
            out.append((data, _KINDS[ext], path))
    return out


# ---- the simulators: CUDA C device functions compiled for the CPU ----
#
# A kernel the simulators run calls a declare_device function as the GPU does: by name, in
# numba-cuda's ABI. Its CUDA C (.cu) is compiled by the host's C++ compiler into a shared
# library, the CUDA qualifiers defined away, and loaded globally: the compiled simulator's JIT
# resolves the name from the process, the interpreted one calls it through ctypes. Device code
# that uses the GPU itself (threadIdx, __syncthreads, atomics, intrinsics) does not compile for
# the CPU: that is an error naming the file and quoting the compiler. PTX, cubin and the other
# GPU binaries cannot run on the CPU.

_HOST_PRELUDE = """\
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#include <math.h>
#include <stdint.h>
#include <stddef.h>
"""

_HOST_LIBRARIES = {}    # (path, mtime, size) -> the loaded ctypes.CDLL (kept: never unloaded)


def _host_compiler():
    import shutil
    for name in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise RuntimeError("running CUDA C device functions (declare_device, link=) in the "
                       "simulator needs a C++ compiler for the CPU (c++, g++ or clang++; or "
                       "set CXX); none was found")


def _compile_for_host(path):
    import subprocess
    import tempfile
    folder = tempfile.mkdtemp(prefix="pyjit-cu-")
    prelude = os.path.join(folder, "cuda_host_prelude.h")
    with open(prelude, "w") as f:
        f.write(_HOST_PRELUDE)
    out = os.path.join(folder, os.path.splitext(os.path.basename(path))[0] + ".so")
    cmd = [_host_compiler(), "-x", "c++", "-std=c++17", "-O2", "-fPIC", "-shared", "-include",
           prelude, "-I", os.path.dirname(os.path.abspath(path)), path, "-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{path}: this CUDA C does not compile for the CPU, so the simulator "
                           "cannot run it (device functions of plain C++ run there; code that "
                           f"uses the GPU itself needs one):\n{r.stderr.strip()}")
    return ctypes.CDLL(out, mode=ctypes.RTLD_GLOBAL)


def check_host_files(files):
    """Refuses, when declared, a file the simulators cannot run: anything but CUDA C."""
    for path in files:
        if not path.endswith(".cu"):
            raise NotImplementedError(f"{path}: {os.path.splitext(path)[1]} files are GPU code: "
                                      "the simulator runs CUDA C (.cu) device functions only; "
                                      "a GPU links this one")


def host_libraries(files):
    """The CUDA C files of a declare_device or a link= compiled for the CPU and loaded globally
    (once per version of each file), for the simulators."""
    check_host_files(files)
    libs = []
    for path in files:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
        if key not in _HOST_LIBRARIES:
            _HOST_LIBRARIES[key] = _compile_for_host(path)
        libs.append(_HOST_LIBRARIES[key])
    return libs


_CTYPES = {"bool": ctypes.c_bool, "int8": ctypes.c_int8, "int16": ctypes.c_int16,
           "int32": ctypes.c_int32, "int64": ctypes.c_int64, "uint8": ctypes.c_uint8,
           "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
           "float32": ctypes.c_float, "float64": ctypes.c_double}


def host_function(name, signature, files, abi="numba"):
    """A declare_device function compiled for the CPU as a Python callable in numba-cuda's ABI
    (the result through a pointer) or the C ABI: what the interpreted simulator's kernels
    call."""
    import numpy as np

    from .. import types
    sig = types.parse_signature(signature)
    ret = sig.return_type.name if sig.return_type is not None else "none"
    for t in list(sig.args) + ([sig.return_type] if ret != "none" else []):
        if t.name not in _CTYPES:
            raise NotImplementedError(f"declare_device('{name}'): the simulator calls foreign "
                                      f"functions of scalar types; {t.name} is not one")
    # its own files, then what a kernel's link= loaded into the process
    fn = None
    for lib in host_libraries(files) + [ctypes.CDLL(None)]:
        fn = getattr(lib, name, None)
        if fn is not None:
            break
    if fn is None:
        raise RuntimeError(f"declare_device('{name}'): no CUDA C linked so far ({list(files)!r} "
                           f"and the kernels' link=) defines an extern \"C\" __device__ "
                           f"function '{name}'")
    rtype = _CTYPES.get(ret, ctypes.c_int8)
    out_type = np.dtype(ret).type if ret != "none" else None
    if abi == "c":
        fn.restype = _CTYPES[ret] if ret != "none" else None
        fn.argtypes = [_CTYPES[t.name] for t in sig.args]

        def call_c(*args):
            r = fn(*[a.item() if hasattr(a, "item") else a for a in args])
            return out_type(r) if out_type is not None else None
        return call_c
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.POINTER(rtype)] + [_CTYPES[t.name] for t in sig.args]

    def call(*args):
        slot = rtype()
        fn(ctypes.byref(slot), *[a.item() if hasattr(a, "item") else a for a in args])
        return out_type(slot.value) if out_type is not None else None
    return call
