"""pyjit.gpu's backend under PYJIT_SIMULATOR=cpu: kernels compiled for the CPU, run with the
GPU's semantics (the C simulator in simulator/; docs/simulator.md).

A kernel is compiled by the same pipeline as for the GPU, typed as a kernel (the kernel language,
and what the GPU refuses, refused here too), and lowered for the CPU (compiler/lower_sim.c): a
launch runs its blocks on the CPU's cores, its threads in a loop, or as fibers switched at its
barriers, with every index checked. The kernel language's objects are the compiled backend's
(hardware.py), which the compiler knows; the host side (device arrays in host memory, streams,
events, devices) is the interpreted simulator's, whose launches complete before they return,
as these do.
"""
import importlib as _importlib
import os as _os
import sys as _sys
import types as _types

import numpy as np

from .. import _core, _registry, _serialize
from .. import types as _types_mod
from . import _link
from . import _options as _kernel_options
from . import hardware as _hw
from ._builtins import INTRINSICS, NAMESPACES
from ._kernels import LaunchForms, Overloads, SpecializedKernel, VersionCode, with_defaults, \
    threads_of as _threads_of
from .simulator import arrays as _arrays, host as _host
from .simulator.kernel import _config, _co_resident_blocks, _gpu_typeof
from .simulator.scheduler import BarrierError
from .simulator.state import SimulatorError, RaceError

_KERNEL_NAMES = [n for n in INTRINSICS + tuple(NAMESPACES) if hasattr(_hw, n)]
globals().update((n, getattr(_hw, n)) for n in _KERNEL_NAMES)
warpsize = 32

_HOST_NAMES = [
    "DeviceNDArray", "to_device", "device_array", "device_array_like", "pinned_array",
    "pinned_array_like", "mapped_array", "mapped_array_like", "managed_array", "is_cuda_array",
    "as_cuda_array",
    "In", "Out", "InOut", "from_cuda_array_interface", "open_ipc_array",
]
globals().update((n, getattr(_arrays, n)) for n in _HOST_NAMES)
_HOST_RUNTIME = [
    "Stream", "Event", "stream", "default_stream", "legacy_default_stream",
    "per_thread_default_stream", "external_stream", "event", "event_elapsed_time", "synchronize",
    "gpus", "select_device", "get_current_device", "current_context", "list_devices", "close",
    "defer_cleanup", "is_available", "is_supported_version", "detect", "pinned", "mapped",
    "profile_start", "profile_stop", "profiling", "is_float16_supported",
]
globals().update((n, getattr(_host, n)) for n in _HOST_RUNTIME)

__all__ = _KERNEL_NAMES + _HOST_NAMES + _HOST_RUNTIME + [
    "SimulatorError", "RaceError", "BarrierError", "warpsize", "jit", "Kernel", "DeviceFunction",
    "compile_ptx", "compile_ptx_for_current_device", "compile", "compile_for_current_device",
    "declare_device", "vectorize",
    "guvectorize", "reduce", "Reduce", "Vectorized", "GUVectorized",
    "SourceModule", "RawModule", "RawKernel", "NvrtcError", "CompileError", "mem_alloc",
    "memcpy_htod", "memcpy_dtoh",
]

DeviceFunction = _hw.DeviceFunction      # compiled into the kernels that call it, as on the GPU
compile_ptx = _hw.compile_ptx            # PTX needs no GPU
compile_ptx_for_current_device = _hw.compile_ptx_for_current_device
compile = _hw.compile
compile_for_current_device = _hw.compile_for_current_device


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """numba-cuda's cuda.declare_device: the kernels compiled for the CPU call the function by
    name, from its CUDA C compiled for the CPU and loaded into the process (gpu/_link.py)."""
    declared = _hw.declare_device(name, sig, link, use_cooperative, abi)
    _link.host_libraries(declared.link)
    return declared
# CUDA C source runs only on a GPU: these say so when used (pyjit/gpu/source.py)
SourceModule, RawModule, RawKernel, mem_alloc, memcpy_htod, memcpy_dtoh = (
    _hw._source.needs_gpu(n) for n in ("SourceModule", "RawModule", "RawKernel", "mem_alloc",
                                       "memcpy_htod", "memcpy_dtoh"))
NvrtcError = CompileError = _hw.NvrtcError


def _argument(value, name):
    """A launch's argument as the compiled dispatcher takes it, typed as the GPU path types it:
    device arrays are their NumPy arrays, a Python int or float is an int64 or float64 (not a
    weak literal), and what a GPU launch refuses is refused here too."""
    if isinstance(value, _arrays.DeviceNDArray):
        return value._ary[()] if value._record else value._ary   # a DeviceRecord: its record
    if isinstance(value, (_arrays.In, _arrays.Out, _arrays.InOut)):
        return _argument(value.array, name)
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise TypeError(f"argument '{name}' is an array of Python objects: kernels take "
                            "arrays of numbers")
        return value
    if isinstance(value, bool) or isinstance(value, np.generic):
        return value
    if isinstance(value, int):
        return np.int64(value)
    if isinstance(value, float):
        return np.float64(value)
    if isinstance(value, complex):
        return np.complex128(value)
    if hasattr(value, "__cuda_array_interface__"):
        return _arrays.as_cuda_array(value)._ary
    if isinstance(value, (list, dict, set, str, bytes)):
        raise TypeError(f"argument '{name}' is a {type(value).__name__}: kernels take numbers, "
                        "tuples, NumPy arrays and device arrays")
    if isinstance(value, tuple) and any(isinstance(v, (_arrays.DeviceNDArray, tuple))
                                        for v in value):
        # a tuple of device arrays, as a GPU launch takes it: each item as it would be alone
        items = [_argument(v, f"{name}[{i}]") for i, v in enumerate(value)]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    _gpu_typeof(value, name)
    return value


class _Launcher:
    __slots__ = ("kernel", "griddim", "blockdim", "sharedmem", "co_resident")

    def __init__(self, kernel, griddim, blockdim, sharedmem):
        self.kernel = kernel
        self.griddim = griddim
        self.blockdim = blockdim
        self.sharedmem = sharedmem
        # a kernel that syncs its grid may have no more blocks than the GPU runs at once
        self.co_resident = _co_resident_blocks(blockdim[0] * blockdim[1] * blockdim[2], sharedmem)

    def __call__(self, *args):
        k = self.kernel
        names = k._argnames
        args = with_defaults(k.py_func, args)
        values = [_argument(a, names[i] if i < len(names) else f"#{i}") for i, a in enumerate(args)]
        _core.sim_configure(self.griddim, self.blockdim, self.sharedmem, BarrierError,
                            self.co_resident, RaceError)
        k._dispatcher(*values)


class Kernel(LaunchForms):
    """A @gpu.jit kernel, compiled for the CPU on its first launch for the argument types:
    kernel[griddim, blockdim, stream, sharedmem](*args)."""

    def __init__(self, py_func, signature=None, debug=False, fastmath=False, opt=True,
                 lineinfo=False, cache=False, max_registers=None, launch_bounds=None,
                 inline=None, forceinline=None, link=(), error_model="numpy"):
        self.py_func = py_func
        self.signature = signature
        self.options = dict(launch_bounds=launch_bounds)
        self._dispatcher = _core.Dispatcher(py_func, _registry.REGISTRY, fastmath=bool(fastmath),
                                            error_model=error_model, debug=bool(debug),
                                            opt=3 if opt else 0, gpu_sim=True)
        if signature is not None:      # one signature, or numba-cuda's list of them
            for sig in signature if isinstance(signature, list) else [signature]:
                args, _ret = _types_mod._canonical_signature(sig)
                self._dispatcher._add_signature(args, None, True)
            self._dispatcher.disable_compile()
        code = py_func.__code__
        self._argnames = code.co_varnames[:code.co_argcount]
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self.__module__ = py_func.__module__

    def __getitem__(self, cfg):
        griddim, blockdim, _stream, sharedmem = _config(self, cfg)
        _kernel_options.check_block(self.__name__, self.options.get("launch_bounds"),
                                    blockdim[0] * blockdim[1] * blockdim[2])
        return _Launcher(self, griddim, blockdim, sharedmem)

    def specialize(self, *args):
        """This kernel for the types of args only: a launch with other types is a TypeError."""
        return SpecializedKernel(self, _launch_types, args)

    @property
    def overloads(self):
        """kernel.overloads[signature]: as numba-cuda's, with max_cooperative_grid_blocks."""
        return _Overloads(self)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The most blocks of blockdim threads a launch of a kernel that syncs its grid may
        have (all of them run at once): the simulated sm_90 GPU's occupancy, as under
        PYJIT_SIMULATOR=1."""
        return _co_resident_blocks(_threads_of(blockdim), dynsmemsize)

    def inspect_types(self, file=None):
        return self._dispatcher.inspect_types(file=file)

    def inspect_llvm(self, signature=None):
        return self._dispatcher.inspect_llvm(signature)

    def _versions(self):
        return [tuple(str(t) for t in sig) for sig in self._dispatcher.signatures]

    def __reduce__(self):
        return _serialize.reduce(self)

    def __repr__(self):
        return f"<pyjit CPU-simulated kernel {self.__qualname__}>"


def _Overloads(kernel):
    return Overloads(kernel, _Overload, kernel._versions)


class _Overload(VersionCode):
    """kernel.overloads[signature]: a version, as numba-cuda's _Kernel."""

    def __init__(self, kernel, argtypes=None):
        self.kernel = kernel
        self.argtypes = argtypes

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        return self.kernel.max_cooperative_grid_blocks(blockdim, dynsmemsize)


def _launch_types(args):
    return tuple(_core.typeof(_argument(a, "?"), True).replace("weak ", "") for a in args)


def jit(func_or_sig=None, device=False, debug=None, fastmath=False, **options):
    """@gpu.jit, as the compiled backend's: kernels compiled for the CPU simulator."""
    if isinstance(func_or_sig, (DeviceFunction, Kernel)):
        return func_or_sig
    cls = DeviceFunction if device else Kernel
    opts = dict(_kernel_options.check(options, device, debug), debug=bool(debug),
                fastmath=fastmath)
    kws = dict(options, device=device, debug=debug, fastmath=fastmath)
    if opts.get("link"):    # CUDA C for the CPU, loaded before the kernel that calls it compiles
        _link.host_libraries(opts["link"])

    def make(f, sig):
        return _serialize.record(cls(f, sig, **opts), f, jit, () if sig is None else (sig,), kws)
    if callable(func_or_sig) and not isinstance(func_or_sig, str) and \
            hasattr(func_or_sig, "__code__"):
        return make(func_or_sig, None)
    return lambda f: make(f, func_or_sig)

_laneid = _hw._laneid   # pyjit.gpu.laneid outside a kernel: the TypeError the GPU path raises


# ---- GPU ufuncs and reductions: kernels written around the user's function (gpu/ufunc.py),
# launched here as any kernel ----

_ufunc = _importlib.import_module(__package__ + ".ufunc")
Vectorized = _ufunc.Vectorized
GUVectorized = _ufunc.GUVectorized


def vectorize(signatures=None, target="cuda", **options):
    """@vectorize(..., target='cuda'): a GPU ufunc whose kernels run in this simulator."""
    return _ufunc.vectorize(signatures, target, backend=_sys.modules[__name__], **options)


def guvectorize(signatures, layout=None, target="cuda", **options):
    """@guvectorize(signatures, layout, target='cuda'): a generalized GPU ufunc, simulated."""
    return _ufunc.guvectorize(signatures, layout, target, backend=_sys.modules[__name__],
                              **options)


def reduce(functor):
    """@gpu.reduce on a binary function: r(arr, size=None, res=None, init=0, stream=0)."""
    return _ufunc.Reduce(functor, backend=_sys.modules[__name__])


Reduce = reduce


def __getattr__(name):
    """gpu.random (the compiled backend's generators) and numba-cuda's type names."""
    if name == "random":
        global random
        random = _random_module()
        return random
    from . import _type_name
    t = _type_name(name)
    if t is None:
        raise AttributeError(f"module 'pyjit.gpu.cpu' has no attribute '{name}'")
    return t


def _random_module():
    """gpu.random here: pyjit.gpu.random's generators (compiled into the kernels that call them,
    as on the GPU), with states made as this backend's device arrays."""
    r = _importlib.import_module(__package__ + ".random")
    m = _types.ModuleType(__name__ + ".random", r.__doc__)
    for n in r.__all__:
        setattr(m, n, getattr(r, n))

    def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
        """A new device array of n generators for `seed`."""
        return r._create(_arrays.device_array, n, seed, subsequence_start, stream)
    m.create_xoroshiro128p_states = create_xoroshiro128p_states
    m.__all__ = r.__all__
    return m
