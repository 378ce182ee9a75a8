"""numba.cuda.cudadrv.error's names for pyjit's GPU exceptions: CudaSupportError is raised when no
GPU can be used, CudaDriverError by a failed driver call, NvrtcError by CUDA C that does not
compile."""
from pyjit.gpu.errors import CudaError, GpuUnavailableError, NvrtcError

CudaSupportError = GpuUnavailableError
CudaDriverError = CudaError
CudaRuntimeError = CudaError
NvrtcCompilationError = NvrtcError

__all__ = ["CudaSupportError", "CudaDriverError", "CudaRuntimeError", "NvrtcError",
           "NvrtcCompilationError"]
