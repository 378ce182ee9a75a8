"""pyjit's GPU simulator: @gpu.jit kernels run in the Python interpreter (PYJIT_SIMULATOR=1).

Everything here has the name and behaviour of the compiled GPU path (and of numba-cuda), so a
kernel debugged here runs unchanged on a GPU. See docs/simulator.md.
"""
import sys as _sys
import types as _types

from . import intrinsics as _intrinsics, state as _state
from .._builtins import INTRINSICS as _INTRINSICS, NAMESPACES as _NAMESPACES
from .state import SimulatorError, RaceError
from .intrinsics import _laneid, warpsize
from .arrays import (
    DeviceNDArray, to_device, device_array, device_array_like, pinned_array, pinned_array_like,
    mapped_array, mapped_array_like, managed_array, is_cuda_array, as_cuda_array, In, Out,
    InOut, from_cuda_array_interface, open_ipc_array,
)
from .host import (
    Stream, Event, stream, default_stream, legacy_default_stream, per_thread_default_stream,
    external_stream, event, event_elapsed_time, synchronize, gpus, select_device,
    get_current_device, current_context, list_devices, close, defer_cleanup, is_available,
    is_supported_version, detect, pinned, mapped, profile_start, profile_stop, profiling,
    is_float16_supported,
)
from .kernel import (jit, Kernel, DeviceFunction, Reduce, reduce, Vectorized, vectorize,
                     declare_device)
from .scheduler import BarrierError, BACKEND as scheduler_backend


def _implementation(name):
    """The simulator's object for a kernel-language name of builtins.def (None if it has none:
    tests/test_builtins_table.py fails then)."""
    for module in (_intrinsics, _state):
        if hasattr(module, name):
            return getattr(module, name)
    return None


# The kernel language: builtins.def's "gpu.*" rows (pyjit/gpu/_builtins.py), as the compiled
# backend offers them; the host-side API below is written by hand.
_KERNEL_NAMES = [n for n in _INTRINSICS + tuple(_NAMESPACES) if _implementation(n) is not None]
globals().update((n, _implementation(n)) for n in _KERNEL_NAMES)

__all__ = _KERNEL_NAMES + [
    "SimulatorError", "RaceError", "BarrierError", "warpsize", "DeviceNDArray", "to_device",
    "device_array", "device_array_like", "pinned_array", "pinned_array_like", "mapped_array",
    "mapped_array_like", "managed_array", "is_cuda_array", "as_cuda_array", "In", "Out",
    "InOut", "Stream", "Event",
    "stream", "default_stream", "legacy_default_stream", "per_thread_default_stream",
    "external_stream", "event", "event_elapsed_time", "synchronize", "gpus", "select_device",
    "get_current_device", "current_context", "list_devices", "close", "defer_cleanup",
    "is_available",
    "is_supported_version", "detect", "pinned", "mapped", "profile_start", "profile_stop",
    "profiling", "jit", "Kernel", "DeviceFunction", "Reduce", "reduce", "Vectorized",
    "vectorize", "guvectorize", "scheduler_backend", "declare_device", "is_float16_supported",
    "from_cuda_array_interface", "open_ipc_array", "compile_ptx", "compile_ptx_for_current_device",
    "compile", "compile_for_current_device", "SourceModule", "RawModule", "RawKernel",
    "NvrtcError", "CompileError", "mem_alloc", "memcpy_htod", "memcpy_dtoh",
]

# CUDA C source runs only on a GPU: these say so when used (pyjit/gpu/source.py).
from ..source import needs_gpu as _needs_gpu  # noqa: E402
from ..errors import NvrtcError  # noqa: E402
SourceModule, RawModule, RawKernel, mem_alloc, memcpy_htod, memcpy_dtoh = (
    _needs_gpu(n) for n in ("SourceModule", "RawModule", "RawKernel", "mem_alloc", "memcpy_htod",
                            "memcpy_dtoh"))
CompileError = NvrtcError


def compile_ptx(pyfunc, signature, device=False, fastmath=False, cc=None, opt=True, debug=False,
                lineinfo=False, abi="numba", abi_info=None):
    """(ptx, return type name): the compiled backend's compile_ptx, which needs no GPU (the
    simulator runs kernels as Python, but the PTX they compile to can still be looked at).
    The function's references to this module and its kernel-language objects are read as the
    compiled backend's, which the compiler knows."""
    from .. import hardware
    return hardware.compile_ptx(_as_compiled(pyfunc, hardware), signature, device=device,
                                fastmath=fastmath, cc=cc, opt=opt, debug=debug,
                                lineinfo=lineinfo, abi=abi, abi_info=abi_info)


def compile(pyfunc, sig, **kwargs):
    """numba-cuda's cuda.compile (a device function with the C ABI by default), as the compiled
    backend's, reading the function's names as compile_ptx does."""
    from .. import hardware
    return hardware.compile(_as_compiled(pyfunc, hardware), sig, **kwargs)


def compile_for_current_device(pyfunc, sig, **kwargs):
    return compile(pyfunc, sig, cc=get_current_device().compute_capability, **kwargs)


def _as_compiled(pyfunc, hardware):
    """pyfunc with the globals that are this backend's objects replaced by the compiled
    backend's of the same name (pyjit.gpu itself, when it is this backend, included)."""
    pyfunc = getattr(pyfunc, "py_func", pyfunc)
    me = _sys.modules[__name__]
    ours = {id(v): n for n, v in globals().items() if n in __all__}
    g = dict(pyfunc.__globals__)
    for name in pyfunc.__code__.co_names:
        v = g.get(name)
        if v is me or getattr(v, "_backend", None) is me:
            g[name] = hardware
        elif id(v) in ours and hasattr(hardware, ours[id(v)]):
            g[name] = getattr(hardware, ours[id(v)])
    fn = _types.FunctionType(pyfunc.__code__, g, pyfunc.__name__, pyfunc.__defaults__,
                             pyfunc.__closure__)
    fn.__qualname__ = pyfunc.__qualname__
    return fn


def compile_ptx_for_current_device(pyfunc, signature, **kwargs):
    """compile_ptx for the simulated GPU's compute capability."""
    return compile_ptx(pyfunc, signature, cc=get_current_device().compute_capability, **kwargs)


def guvectorize(signatures, layout=None, target="cuda", **options):
    """@guvectorize(signatures, '(n),()->(n)', target='cuda'): a generalized GPU ufunc, built from
    kernels as on the GPU (pyjit.gpu.ufunc), which run here in the simulator."""
    from .. import ufunc
    return ufunc.guvectorize(signatures, layout, target, backend=_sys.modules[__name__], **options)


class _SimulatorModule(_types.ModuleType):
    """Gives this module a per-thread `laneid`, as pyjit.gpu has (it may be used in its place)."""

    @property
    def laneid(self):
        return _laneid()


_sys.modules[__name__].__class__ = _SimulatorModule


def __getattr__(name):
    """gpu.random (the generators, imported on first use), and the type names numba-cuda's
    module has too (cuda.int32, cuda.types): pyjit.gpu's."""
    if name == "random":
        import importlib
        return importlib.import_module(__name__ + ".random")
    from .. import _type_name
    t = _type_name(name)
    if t is None:
        raise AttributeError(f"module 'pyjit.gpu.simulator' has no attribute '{name}'")
    return t
