"""pyjit.gpu.errors: the exceptions of the compiled GPU path.

CudaError is pyjit.errors.CudaError (one class, whichever module it is imported from): a CUDA
driver call failed; .name is the driver's error name (CUDA_ERROR_...), .code its number and
.kernel the kernel being launched, if any. Out of device memory is CudaMemoryError, which is
also a MemoryError. GpuUnavailableError says that no GPU can be used and why. NvrtcError:
CUDA C source that did not compile.
"""
try:
    from pyjit.errors import CudaError
except ImportError:  # pragma: no cover - pyjit.errors always defines it today
    class CudaError(RuntimeError):
        def __init__(self, message="", name=None, code=None):
            super().__init__(message)
            self.name = name
            self.code = code


class CudaMemoryError(CudaError, MemoryError):
    """The GPU ran out of memory (CUDA_ERROR_OUT_OF_MEMORY)."""


class GpuUnavailableError(CudaError):
    """No GPU can be used: no CUDA driver, or it sees no device. The message says which, and
    that PYJIT_SIMULATOR=1 runs kernels in the simulator instead."""


try:
    from pyjit.errors import CompileError as _CompileError
except ImportError:  # pragma: no cover
    _CompileError = Exception


class NvrtcError(_CompileError):
    """CUDA C source (gpu.SourceModule, RawKernel, RawModule) that NVRTC could not compile: the
    message gives the first error's line of the source and NVRTC's log; .log, .lineno and
    .filename say the same for programs. PyCUDA's name for it, CompileError, is an alias in
    pyjit.gpu."""

    log = ""


__all__ = ["CudaError", "CudaMemoryError", "GpuUnavailableError", "NvrtcError"]
