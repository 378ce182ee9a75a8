"""numba.cuda.devices' names (`cuda.devices.get_context()`, `cuda.devices.gpus`), as libraries
written against numba-cuda's internals reach the current context through them: the running
backend's own objects."""
import importlib as _importlib

_gpu = _importlib.import_module("pyjit.gpu")


def get_context(devnum=None):
    """The context of device devnum (the current device when None)."""
    return _gpu.current_context(devnum)


def reset():
    """Releases the current device's context (cuda.close())."""
    _gpu.close()


def require_context(fn):
    """numba-cuda's decorator making sure a context exists before fn runs: pyjit makes one on
    first use, so fn is returned as it is."""
    return fn


def __getattr__(name):
    if name == "gpus":
        return _gpu.gpus
    raise AttributeError(f"module 'pyjit.gpu.devices' has no attribute '{name}'")


__all__ = ["get_context", "reset", "require_context", "gpus"]
