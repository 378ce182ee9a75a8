"""numba.cuda.cudadrv.devices: the names of pyjit.gpu.devices (numba-cuda's cuda.devices is this
module), for code that imports them from here (`from numba.cuda.cudadrv.devices import reset`)."""
from ..devices import __getattr__, get_context, require_context, reset  # noqa: F401

__all__ = ["get_context", "reset", "require_context", "gpus"]
