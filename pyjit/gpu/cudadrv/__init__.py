"""pyjit.cuda.cudadrv: numba-cuda's `numba.cuda.cudadrv` spellings of what pyjit.gpu has, so that
code importing from there (`from numba.cuda.cudadrv.devicearray import DeviceNDArray` for type
checks, `from numba.cuda.cudadrv.driver import CudaAPIError` around allocations) ports by
changing the package name. The names are the running backend's own objects."""
from . import devicearray, devices, driver, error, runtime  # noqa: F401

__all__ = ["devicearray", "devices", "driver", "error", "runtime"]
