"""numba.cuda.cudadrv.runtime's `runtime` (also `cuda.runtime`): the CUDA version scripts print
before they start. pyjit talks to the driver only, so the version is the driver's; in the
simulators there is none and it is (-1, -1), as numba-cuda's simulator reports it."""
from .error import CudaSupportError


def _cuda_version():
    """(major, minor) of the CUDA the driver runs, or (-1, -1) in a simulator."""
    import pyjit.gpu as gpu
    if gpu.SIMULATOR:
        return (-1, -1)
    from pyjit import _core
    if not hasattr(_core, "cuda_driver_version") or not gpu.is_available():
        raise CudaSupportError("no CUDA driver: libcuda.so.1 could not be loaded or "
                                       "found no GPU (PYJIT_SIMULATOR=1 runs kernels without one)")
    v = _core.cuda_driver_version()
    return (v // 1000, (v % 1000) // 10)


class Runtime:
    """cuda.runtime: get_version() as (major, minor)."""

    def get_version(self):
        return _cuda_version()

    def is_supported_version(self):
        return True

    @property
    def supported_versions(self):
        return (self.get_version(),)


runtime = Runtime()

__all__ = ["Runtime", "runtime"]
