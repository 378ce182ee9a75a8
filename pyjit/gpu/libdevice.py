"""pyjit.gpu.libdevice (numba-cuda's numba.cuda.libdevice) as a module that can be imported, for
code that writes `from pyjit.cuda.libdevice import ...`: its names are the backend's gpu.libdevice
functions (builtins.def's gpu.libdevice rows; the simulator's in
pyjit/gpu/simulator/libdevice_math.py)."""
from . import _load_backend


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_load_backend().libdevice, name)


def __dir__():
    return sorted(n for n in dir(_load_backend().libdevice) if not n.startswith("_"))
