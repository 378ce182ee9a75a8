"""numba.cuda.cudadrv.driver's exception names: CudaAPIError is a failed driver call (.code its
number, .name the driver's error name), as pyjit's CudaError is."""
from pyjit.gpu.errors import CudaError, CudaMemoryError
from .error import CudaDriverError, CudaSupportError

CudaAPIError = CudaError

__all__ = ["CudaAPIError", "CudaDriverError", "CudaMemoryError", "CudaSupportError"]
