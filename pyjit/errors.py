"""pyjit.errors: the exceptions pyjit raises.

Compile errors name the function, the file and the line, and show the source line with a caret
under the offending expression; their attributes say the same for programs (filename, lineno,
func_name). Bad arguments at a call are plain TypeError/ValueError, as Python's own are.
"""

__all__ = ["PyjitError", "CompileError", "TypingError", "UnsupportedError", "InternalError",
           "CudaError", "PyjitWarning", "PerformanceWarning", "ParallelSafetyWarning",
           "NumbaParallelSafetyWarning"]


class PyjitError(Exception):
    """Base class of pyjit's own exceptions."""


class CompileError(PyjitError):
    """A function could not be compiled. filename/lineno/func_name say where (None if unknown)."""

    filename = None
    lineno = None
    func_name = None


class TypingError(CompileError):
    """Types that do not fit together (an int array given a complex, a call with wrong types...)."""


class UnsupportedError(CompileError):
    """A construct pyjit does not compile (try/except, a dict, a generator, ...): never a silent
    fallback to the interpreter."""


class InternalError(CompileError):
    """A bug in pyjit: please report it with the function that triggered it."""


class CudaError(PyjitError):
    """An error from the CUDA driver: name (CUDA_ERROR_...) and code say which."""

    def __init__(self, message="", name=None, code=None):
        super().__init__(message)
        self.name = name
        self.code = code


class PyjitWarning(UserWarning):
    """Base class of pyjit's warnings."""


class PerformanceWarning(PyjitWarning):
    """Something costs time it need not: compiled code that cannot be cached, a cache directory
    that cannot be written (Numba's NumbaPerformanceWarning)."""


class ParallelSafetyWarning(PerformanceWarning):
    """A prange loop runs serially because its iterations depend on each other (`a[i] = a[i - 1]`),
    which pyjit proved (Numba's NumbaParallelSafetyWarning)."""


NumbaParallelSafetyWarning = ParallelSafetyWarning
