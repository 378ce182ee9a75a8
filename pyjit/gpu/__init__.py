"""pyjit.gpu (also pyjit.cuda): GPU kernels, numba-cuda compatible.

This module only picks a backend; it imports nothing heavy so that `import pyjit` stays fast.
The backend is chosen once, from the environment at import time:

    PYJIT_SIMULATOR=1   pyjit.gpu.simulator: kernels run in the Python interpreter (print, pdb,
                        breakpoint() work inside them; arrays are checked; races can be found)
    PYJIT_SIMULATOR=cpu pyjit.gpu.cpu: kernels compiled for the CPU and run with the GPU's
                        semantics (the C simulator, simulator/; arrays are checked)
    otherwise           pyjit.gpu.hardware: the compiled path (PTX through the CUDA driver)

numba-cuda's NUMBA_ENABLE_CUDASIM=1, when PYJIT_SIMULATOR is not set, is PYJIT_SIMULATOR=1.

The backend module is loaded on the first attribute access (`gpu.jit`, `gpu.threadIdx`, ...)
and its public names are then copied here, so later accesses are plain module lookups.
`gpu.laneid` is a per-thread value, so it is a property of this module's class.
"""
import importlib as _importlib
import os as _os
import sys as _sys
import types as _types

_MODE = _os.environ.get("PYJIT_SIMULATOR", "").strip().lower()
if not _MODE and _os.environ.get("NUMBA_ENABLE_CUDASIM", "").strip() not in ("", "0"):
    _MODE = "1"   # numba-cuda's switch to its simulator, as programs ported from it set it
SIMULATOR = _MODE not in ("", "0", "false", "no", "off")
SIMULATOR_CPU = _MODE == "cpu"   # the compiled simulator; SIMULATOR is true for it too

_backend = None


def _load_backend():
    global _backend
    if _backend is None:
        # import_module, not `from . import x`: that would consult this module's __getattr__
        backend = ".cpu" if SIMULATOR_CPU else ".simulator" if SIMULATOR else ".hardware"
        mod = _importlib.import_module(__name__ + backend)
        names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
        g = globals()
        for name in names:
            if name != "laneid":
                g[name] = getattr(mod, name)
        _backend = mod
    return _backend


def _type_name(name):
    """numba-cuda's module also has the type names (`from numba.cuda import int32`, `cuda.types`,
    `cuda.float32(x)` in a kernel): pyjit.types and its scalar types, or None."""
    from .. import types
    if name == "types":
        return types
    if name in types.__all__ and isinstance(getattr(types, name), (types.Scalar, types.NoneType)):
        return getattr(types, name)
    return None


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    mod = _load_backend()
    try:
        return globals()[name] if name in globals() else getattr(mod, name)
    except AttributeError:
        t = _type_name(name)
        if t is not None:
            return t
        if name in ("cudadrv", "runtime", "driver"):   # cuda.cudadrv, .runtime, .driver
            cudadrv = _importlib.import_module(__name__ + ".cudadrv")
            return {"cudadrv": cudadrv, "runtime": cudadrv.runtime.runtime,
                    "driver": cudadrv.driver}[name]
        if name in ("devices", "testing"):   # numba-cuda's cuda.devices, cuda.testing
            return _importlib.import_module(__name__ + "." + name)
        raise AttributeError(f"module 'pyjit.gpu' has no attribute '{name}'") from None


def __dir__():
    mod = _load_backend()
    return sorted(set(globals()) | set(getattr(mod, "__all__", ())))


class _GpuModule(_types.ModuleType):
    """The module's class: gives `laneid`, which depends on the running thread, and `random`."""

    @property
    def laneid(self):
        return _load_backend()._laneid()

    @property
    def random(self):
        """The backend's generators (pyjit/gpu/random.py; the simulator's wraps them as its
        device functions), imported on first use."""
        return _load_backend().random

    @random.setter
    def random(self, module):
        """Importing pyjit.gpu.random sets this attribute to it: the backend's stays."""


_sys.modules[__name__].__class__ = _GpuModule


class _CudaAlias:
    """`import pyjit.cuda.X` imports pyjit.gpu.X and names the same module object both ways
    (pyjit.cuda is this package): a second copy would make a second set of classes, against
    which isinstance checks and `except` clauses of the first fail."""

    _PREFIX = "pyjit.cuda."

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith(self._PREFIX):
            return None
        from importlib.util import find_spec, spec_from_loader
        if find_spec(__name__ + "." + fullname[len(self._PREFIX):]) is None:
            return None     # the import fails naming pyjit.cuda.X, as written
        return spec_from_loader(fullname, self)

    def create_module(self, spec):
        return _importlib.import_module(__name__ + "." + spec.name[len(self._PREFIX):])

    def exec_module(self, module):
        """Already executed under its pyjit.gpu name."""


if not any(isinstance(f, _CudaAlias) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _CudaAlias())
