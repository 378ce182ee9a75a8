"""pyjit.errors: the exceptions pyjit raises.

Compile errors name the function, the file and the line, and show the source line with a caret
under the offending expression; their attributes say the same for programs (filename, lineno,
func_name). Bad arguments at a call are plain TypeError/ValueError, as Python's own are.
"""

__all__ = ["PyjitError", "CompileError", "TypingError", "UnsupportedError", "InternalError",
           "CudaError", "PyjitWarning", "PerformanceWarning", "ParallelSafetyWarning",
           "TypeSafetyWarning", "ExperimentalFeatureWarning",
           # Numba's names for the same classes, so `from numba.core.errors import X` ports
           "NumbaError", "CompilerError", "NumbaWarning", "NumbaPerformanceWarning",
           "NumbaParallelSafetyWarning", "NumbaDeprecationWarning",
           "NumbaPendingDeprecationWarning", "NumbaTypeSafetyWarning",
           "NumbaExperimentalFeatureWarning"]


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


class DeprecationWarning(PyjitWarning, DeprecationWarning):  # noqa: A001 - Numba's name
    """A pyjit feature that will go (none today); Numba's NumbaDeprecationWarning, so code that
    filters it keeps working."""


class PendingDeprecationWarning(PyjitWarning, PendingDeprecationWarning):  # noqa: A001
    """A pyjit feature that may go later (none today); Numba's NumbaPendingDeprecationWarning."""


class TypeSafetyWarning(PyjitWarning):
    """A conversion that may lose information (Numba's NumbaTypeSafetyWarning)."""


class ExperimentalFeatureWarning(PyjitWarning):
    """A feature whose behaviour may still change (Numba's NumbaExperimentalFeatureWarning)."""


NumbaError = PyjitError
CompilerError = CompileError
NumbaWarning = PyjitWarning
NumbaPerformanceWarning = PerformanceWarning
NumbaParallelSafetyWarning = ParallelSafetyWarning
NumbaDeprecationWarning = DeprecationWarning
NumbaPendingDeprecationWarning = PendingDeprecationWarning
NumbaTypeSafetyWarning = TypeSafetyWarning
NumbaExperimentalFeatureWarning = ExperimentalFeatureWarning


# Numba's finer compile-time classes, as the pyjit classes that stand for them: `except
# NumbaTypeError` around a compilation catches pyjit's TypingError (pyjit raises no finer ones).
_NUMBA_ALIASES = {
    TypingError: ("NumbaTypeError", "NumbaValueError", "NumbaIndexError", "NumbaKeyError",
                  "NumbaAttributeError", "NumbaNotImplementedError", "NumbaAssertionError",
                  "UntypedAttributeError", "LiteralTypingError", "NotDefinedError",
                  "RequireLiteralValue", "ConstantInferenceError"),
    UnsupportedError: ("UnsupportedBytecodeError", "UnsupportedRewriteError",
                       "UnsupportedParforsError", "ByteCodeSupportError", "ForbiddenConstruct"),
    CompileError: ("LoweringError", "IRError", "VerificationError", "RedefinedError",
                   "DeprecationError", "InternalTargetMismatchError", "NonexistentTargetError",
                   "ForceLiteralArg"),
    PyjitError: ("NumbaRuntimeError",),
    PyjitWarning: ("NumbaDebugInfoWarning", "NumbaIRAssumptionWarning", "NumbaInvalidConfigWarning",
                   "NumbaPedanticWarning", "NumbaSystemWarning"),
}
# the Numba names pyjit exports at the top, as Numba does (pyjit/__init__.py)
NUMBA_NAMES = ["CompilerError", "NumbaError", "NumbaWarning", "NumbaPerformanceWarning",
               "NumbaParallelSafetyWarning", "NumbaDeprecationWarning",
               "NumbaPendingDeprecationWarning", "NumbaTypeSafetyWarning",
               "NumbaExperimentalFeatureWarning"]
for _cls, _names in _NUMBA_ALIASES.items():
    for _name in _names:
        globals()[_name] = _cls
        NUMBA_NAMES.append(_name)
__all__ += NUMBA_NAMES[9:]


def _performance_warnings_off():
    """PYJIT_DISABLE_PERFORMANCE_WARNINGS or Numba's NUMBA_DISABLE_PERFORMANCE_WARNINGS (a true
    value, read at import): PerformanceWarning and its subclasses are not shown, as in Numba."""
    import os
    import warnings
    for name in ("PYJIT_DISABLE_PERFORMANCE_WARNINGS", "NUMBA_DISABLE_PERFORMANCE_WARNINGS"):
        value = os.environ.get(name, "").strip().lower()
        if value:
            if value not in ("0", "false", "no", "off"):
                warnings.filterwarnings("ignore", category=PerformanceWarning)
            return


_performance_warnings_off()
