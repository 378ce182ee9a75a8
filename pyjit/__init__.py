"""pyjit: a just-in-time compiler for numeric Python, on the CPU (@njit) and NVIDIA GPUs (@gpu.jit).

    from pyjit import njit
    @njit
    def f(x, y):
        return x + y

The names follow Numba's (njit, jit, prange, the type names, signature strings, `cuda`), so Numba
code runs after changing its import line. `import pyjit` loads neither NumPy nor LLVM: the
compiler (pyjit._core) loads on the first @njit, NumPy when it is first needed.
"""
import sys as _sys

__version__ = "0.1.0"

from . import config, errors, types  # noqa: E402
from ._ffi import carray, cfunc, farray  # noqa: E402
from ._objmode import objmode  # noqa: E402
from ._parallel import (  # noqa: E402
    get_num_threads, get_parallel_chunksize, get_thread_id, parallel_chunksize, set_num_threads,
    set_parallel_chunksize, threading_layer,
)
from .decorators import (  # noqa: E402
    guvectorize, jit, jit_module, literal_unroll, literally, njit, pndindex, prange, vectorize,
)
from .errors import InternalError, TypingError, UnsupportedError  # noqa: E402,F401
from .experimental import jitclass  # noqa: E402  (light: the class is built when applied)
from .types import (  # noqa: E402,F401  (Numba's other spellings of the scalar types)
    char, deferred_type, from_dtype, long_, optional, size_t, ssize_t, typeof, uchar, ulong,
)
from .types import (  # noqa: E402,F401
    b1, bool_, boolean, byte, c8, c16, complex64, complex128, double, f2, f4, f8, float16, float32,
    float64, float_, i1, i2, i4, i8, int8, int16, int32, int64, int_, intc, intp, longlong, none,
    short, u1, u2, u4, u8, uint, uint8, uint16, uint32, uint64, uintc, uintp, ulonglong, ushort,
    void,
)

try:
    from . import gpu  # noqa: E402  (light: the GPU backend loads on first use)
except ImportError:   # the GPU package is optional for the CPU compiler
    gpu = None
cuda = gpu
if gpu is not None:
    _sys.modules[__name__ + ".cuda"] = gpu



class _VersionInfo(tuple):
    """pyjit.version_info, shaped as numba.version_info: major, minor, patch, short, full, string,
    tuple, git_revision."""

    _fields = ("major", "minor", "patch", "short", "full", "string", "tuple", "git_revision")

    def __new__(cls, version):
        parts = version.split(".")
        major, minor, patch = (int(p) for p in parts[:3])
        return super().__new__(cls, (major, minor, patch, (major, minor), (major, minor, patch),
                                     version, tuple(parts), None))

    def __getattr__(self, name):
        try:
            return self[self._fields.index(name)]
        except ValueError:
            raise AttributeError(name) from None


version_info = _VersionInfo(__version__)

# Numba exports its errors and warnings, and `bool`, at the top
for _name in errors.NUMBA_NAMES:
    globals()[_name] = getattr(errors, _name)
globals()["bool"] = types.boolean

# Submodules loaded on first use, as Numba's `numba.typed` and friends are reachable as attributes
_SUBMODULES = ("typed", "extending", "experimental", "core", "np", "cpython")

# Numba's other public names, each with what pyjit offers instead (`from pyjit import gdb` is an
# ImportError that says so, never a name that silently does nothing)
_NOT_OFFERED = {
    "gdb": "debug @njit code in Python with pyjit.config.DISABLE_JIT = True (PYJIT_DISABLE_JIT=1) "
           "and pdb; GPU kernels with PYJIT_SIMULATOR=1",
    "gdb_init": "see pyjit.gdb's message: debug in Python with PYJIT_DISABLE_JIT=1 and pdb",
    "gdb_breakpoint": "use breakpoint() under PYJIT_DISABLE_JIT=1 (or in the GPU simulator)",
    "generated_jit": "Numba removed it in 0.59; write a typing function with "
                     "pyjit.extending.overload, which chooses an implementation by argument types",
    "stencils": "Numba's internal module; @stencil is pyjit.stencil",
    "ffi_forced_object": "pyjit has no object mode",
    "misc": "Numba's internal module; pyjit has no counterpart",
    "parfors": "Numba's internal module; prange and parallel=True are pyjit's",
    "llvmlite": "pyjit does not use llvmlite",
    "cloudpickle": "pickle pyjit functions with pickle itself (docs/processes.md)",
    "test": "run pyjit's own tests with pytest (README)",
    "ffi": "Numba's type of a cffi ffi object; pyjit types cffi functions themselves",
}


def __getattr__(name):
    if name == "stencil":   # imported on first use (it reads kernels' source with ast)
        from ._stencil import stencil
        return stencil
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    if name in _NOT_OFFERED:
        raise ImportError(f"pyjit has no {name}: {_NOT_OFFERED[name]}", name=name)
    raise AttributeError(f"module 'pyjit' has no attribute '{name}'")


def cache_info():
    """The on-disk cache (cache=True) in this process: {'enabled', 'hits', 'misses', 'stores',
    'rejected', 'unwritable', 'directories'}; PYJIT_CACHE=0 turns it off, PYJIT_CACHE_DIR moves it
    (docs/performance.md)."""
    from . import _cache
    return _cache.info()


__all__ = [
    "njit", "jit", "jit_module", "prange", "vectorize", "guvectorize", "errors", "types", "gpu",
    "cuda", "config", "typeof", "from_dtype", "version_info", "threading_layer", "jitclass",
    "cfunc", "carray", "farray", "objmode", "literal_unroll", "literally", "pndindex",
    "cache_info", "__version__", "set_num_threads", "get_num_threads", "get_thread_id",
    "set_parallel_chunksize", "get_parallel_chunksize", "parallel_chunksize",
    "bool_", "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "intp", "uintp", "float16", "float32", "float64", "complex64", "complex128", "void", "none",
    "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16",
]
