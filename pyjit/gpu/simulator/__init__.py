"""pyjit's GPU simulator: @gpu.jit kernels run in the Python interpreter (PYJIT_SIMULATOR=1).

Everything here has the name and behaviour of the compiled GPU path (and of numba-cuda), so a
kernel debugged here runs unchanged on a GPU. See docs/simulator.md.
"""
import sys as _sys
import types as _types

from .state import threadIdx, blockIdx, blockDim, gridDim, SimulatorError, RaceError
from .intrinsics import (
    _laneid, warpsize, grid, gridsize, syncthreads, syncthreads_count, syncthreads_and,
    syncthreads_or, syncwarp, threadfence, threadfence_block, threadfence_system, shfl_sync,
    shfl_up_sync, shfl_down_sync, shfl_xor_sync, ballot_sync, all_sync, any_sync, eq_sync,
    match_any_sync, match_all_sync, activemask, lanemask_lt, shared, local, const, atomic, popc,
    clz, ffs, brev, fma, selp, cbrt,
)
from .arrays import (
    DeviceNDArray, to_device, device_array, device_array_like, pinned_array, pinned_array_like,
    mapped_array, managed_array, is_cuda_array, as_cuda_array, In, Out, InOut,
)
from .host import (
    Stream, Event, stream, default_stream, legacy_default_stream, per_thread_default_stream,
    external_stream, event, event_elapsed_time, synchronize, gpus, select_device,
    get_current_device, current_context, list_devices, close, is_available,
    is_supported_version, detect, pinned, mapped, profile_start, profile_stop, profiling,
)
from .kernel import jit, Kernel, DeviceFunction, Reduce, reduce, Vectorized, vectorize
from .scheduler import BarrierError, BACKEND as scheduler_backend


__all__ = [
    "threadIdx", "blockIdx", "blockDim", "gridDim", "SimulatorError", "RaceError",
    "BarrierError", "warpsize", "grid", "gridsize", "syncthreads", "syncthreads_count",
    "syncthreads_and", "syncthreads_or", "syncwarp", "threadfence", "threadfence_block",
    "threadfence_system", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",
    "ballot_sync", "all_sync", "any_sync", "eq_sync", "match_any_sync", "match_all_sync",
    "activemask", "lanemask_lt", "shared", "local", "const", "atomic", "popc", "clz", "ffs",
    "brev", "fma", "selp", "cbrt", "DeviceNDArray", "to_device", "device_array",
    "device_array_like", "pinned_array", "pinned_array_like", "mapped_array", "managed_array",
    "is_cuda_array", "as_cuda_array", "In", "Out", "InOut", "Stream", "Event", "stream",
    "default_stream", "legacy_default_stream", "per_thread_default_stream", "external_stream",
    "event", "event_elapsed_time", "synchronize", "gpus", "select_device",
    "get_current_device", "current_context", "list_devices", "close", "is_available",
    "is_supported_version", "detect", "pinned", "mapped", "profile_start", "profile_stop",
    "profiling", "jit", "Kernel", "DeviceFunction", "Reduce", "reduce", "Vectorized",
    "vectorize", "guvectorize", "scheduler_backend",
]


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
