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

from . import errors, types  # noqa: E402
from .decorators import guvectorize, jit, literal_unroll, njit, prange, vectorize  # noqa: E402
from ._parallel import get_num_threads, get_thread_id, set_num_threads  # noqa: E402
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



def cache_info():
    """The on-disk cache (cache=True) in this process: {'enabled', 'hits', 'misses', 'stores',
    'rejected', 'unwritable', 'directories'}; PYJIT_CACHE=0 turns it off, PYJIT_CACHE_DIR moves it
    (docs/performance.md)."""
    from . import _cache
    return _cache.info()


__all__ = [
    "njit", "jit", "prange", "literal_unroll", "vectorize", "guvectorize", "errors", "types", "gpu", "cuda",
    "cache_info", "__version__", "set_num_threads", "get_num_threads", "get_thread_id",
    "bool_", "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "intp", "uintp", "float16", "float32", "float64", "complex64", "complex128", "void", "none",
    "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16",
]
