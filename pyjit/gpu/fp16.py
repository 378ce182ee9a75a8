"""pyjit.gpu.fp16 (numba-cuda's numba.cuda.fp16) as a module that can be imported, for
code that writes `from pyjit.cuda.fp16 import ...`: its names are the backend's gpu.fp16
functions (builtins.def's gpu.fp16 rows; the simulator's in
pyjit/gpu/simulator/fp16_math.py)."""
from . import _load_backend


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_load_backend().fp16, name)


def __dir__():
    return sorted(n for n in dir(_load_backend().fp16) if not n.startswith("_"))
