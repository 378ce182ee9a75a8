"""numba.cuda.cudadrv.driver's exception names: CudaAPIError is a failed driver call (.code its
number, .name the driver's error name), as pyjit's CudaError is."""
from pyjit.gpu.errors import CudaError, CudaMemoryError
from .error import CudaDriverError, CudaSupportError

CudaAPIError = CudaError


class Driver:
    """numba.cuda.cudadrv.driver.driver: the driver's CUDA version and its device count."""

    def get_version(self):
        from .runtime import _cuda_version
        return _cuda_version()

    def get_device_count(self):
        import pyjit.gpu as gpu
        return len(gpu.list_devices()) if gpu.SIMULATOR or gpu.is_available() else 0

    @property
    def is_available(self):
        import pyjit.gpu as gpu
        return gpu.is_available()


driver = Driver()

__all__ = ["CudaAPIError", "CudaDriverError", "CudaMemoryError", "CudaSupportError", "Driver",
           "driver"]
