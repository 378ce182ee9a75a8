"""The hardware GPU backend: kernels compiled to PTX and run through the CUDA driver.

pyjit.gpu picks this module when PYJIT_SIMULATOR is not set and copies the names in __all__
into itself (they are the simulator's names too, so code runs on both). The work is done in C
(pyjit._core: runtime/cuda.c, devarray.c, launch.c); this module is its thin Python face.

Without a CUDA driver, or without a GPU, pyjit still imports: gpu.is_available() is False and
a launch, or any use of device memory, raises GpuUnavailableError saying why and that
PYJIT_SIMULATOR=1 runs kernels in the simulator.
"""
import contextlib
import importlib as _importlib
import operator
import sys as _sys
import types as _types
import warnings

import numpy as np

from .. import _core, _registry, _serialize
from .. import decorators as _decorators
from .. import types as _types_mod
from . import _options as _kernel_options
from ._builtins import INTRINSICS, NAMESPACES
from ._hostapi import DEALLOCATIONS as _DEALLOCATIONS, DEVICE_ATTRIBUTES as _DEVICE_ATTRIBUTES, \
    unknown_device_attribute as _unknown_device_attribute
from ._link import declare_device
from ._layout import like_geometry
from ._kernels import Overloads as _KernelOverloads, SpecializedKernel, VersionCode, \
    definitions as _definitions, signatures as _signatures, not_specialized as _not_specialized, \
    threads_of as _threads_of
from .errors import CudaError, CudaMemoryError, GpuUnavailableError, NvrtcError

_NO_RUNTIME = ("no GPU backend is available: this pyjit has no compiled GPU path (or no CUDA "
               "driver); set PYJIT_SIMULATOR=1 before importing pyjit to run kernels in the "
               "simulator")

# The C runtime is in _core once the module registers it; until then this backend only says
# that kernels cannot run here (and, as the stub it replaces did, exports NO_BACKEND).
_HAVE_RUNTIME = hasattr(_core, "cuda_is_available") and hasattr(_core, "Kernel")
if not _HAVE_RUNTIME:
    NO_BACKEND = _NO_RUNTIME


def _unavailable_reason():
    if not _HAVE_RUNTIME:
        return _NO_RUNTIME
    return _core.cuda_unavailable_reason() or _NO_RUNTIME


def _unavailable(what):
    def f(*args, **kwargs):
        raise GpuUnavailableError(f"{what}: {_unavailable_reason()}")
    f.__name__ = what
    return f


# ---- errors the simulator has (never raised by the hardware, so `except` clauses still work)

class SimulatorError(CudaError):
    """Raised only by the simulator (pyjit.gpu.simulator); here for code that catches it."""


class RaceError(SimulatorError):
    pass


class BarrierError(SimulatorError):
    pass


# ---- gpu.In / Out / InOut ----

class _Direction:
    """Wraps a NumPy kernel argument to say which way it is copied (numba's cuda.In...)."""

    def __init__(self, array):
        self.array = array

    @property
    def value(self):   # numba-cuda's name
        return self.array

    def __repr__(self):
        return f"{type(self).__name__}({self.array!r})"


class In(_Direction):
    """Copied to the GPU before the launch, never back."""


class Out(_Direction):
    """Not copied to the GPU (its contents are undefined there), copied back after."""


class InOut(_Direction):
    """Copied both ways."""


# ---- kernels ----

def _options(debug, fastmath, opt, lineinfo, max_registers, launch_bounds, error_model):
    return dict(debug=bool(debug), fastmath=bool(fastmath), opt=3 if opt else 0,
                lineinfo=bool(lineinfo), max_registers=max_registers or 0,
                launch_bounds=_kernel_options.launch_bounds(launch_bounds) or (0, 0, 0),
                error_model_numpy=error_model == "numpy")


# CUfunction_attribute numbers (the driver's ABI)
_FUNC_MAX_THREADS_PER_BLOCK, _FUNC_SHARED_SIZE_BYTES, _FUNC_CONST_SIZE_BYTES = 0, 1, 2
_FUNC_LOCAL_SIZE_BYTES, _FUNC_NUM_REGS = 3, 4

if _HAVE_RUNTIME:
    _core.cuda_set_directions(In, Out, InOut)

    class Kernel(_core.Kernel):
        """A @gpu.jit kernel: kernel[griddim, blockdim, stream, sharedmem](*args).

        Compiled on the first launch for the argument types (and per GPU), then cached; the
        launch itself is C (pyjit._core.Kernel), also for a kernel declared with signatures:
        each launch takes the one its arguments convert to best and converts its scalars (a
        Python float given for a float32 parameter is a float32), as in the simulators."""

        def __init__(self, py_func, signature=None, debug=False, fastmath=False, opt=True,
                     lineinfo=False, cache=False, max_registers=None, launch_bounds=None,
                     inline=None, forceinline=None, link=(), error_model="numpy"):
            # in the cache key; inline and forceinline change nothing (LLVM inlines already)
            self.targetoptions = _options(debug, fastmath, opt, lineinfo, max_registers,
                                          launch_bounds, error_model)
            super().__init__(py_func, _registry.REGISTRY, cache=bool(cache), **self.targetoptions)
            self._link = tuple(link)   # files the driver's linker adds (runtime/link.c)
            self.stats = _decorators.CacheStats()
            self.signature = signature
            if signature is not None:   # one, or numba-cuda's list: launches convert to them
                for sig in signature if isinstance(signature, list) else [signature]:
                    self._declare(_types_mod._canonical_signature(sig)[0])
            self.__doc__ = py_func.__doc__
            self.__wrapped__ = py_func
            self.__qualname__ = py_func.__qualname__
            self.__module__ = py_func.__module__

        def configure(self, griddim, blockdim, stream=0, sharedmem=0):
            return self[griddim, blockdim, stream, sharedmem]

        def _attribute(self, attr, signature):
            """numba-cuda's rule: the value of the version for signature, of the only version
            of a kernel declared with a signature, else {signature: value}, from the driver
            (versions loaded on the current GPU, that is, launched there)."""
            values = self._func_attribute(attr)
            if signature is not None:
                args, _ = _types_mod._canonical_signature(signature)
                return values[tuple(args)]
            if self.signature is not None and len(values) == 1:
                return next(iter(values.values()))
            return values

        def get_regs_per_thread(self, signature=None):
            return self._attribute(_FUNC_NUM_REGS, signature)

        def get_shared_mem_per_block(self, signature=None):
            return self._attribute(_FUNC_SHARED_SIZE_BYTES, signature)

        def get_local_mem_per_thread(self, signature=None):
            return self._attribute(_FUNC_LOCAL_SIZE_BYTES, signature)

        def get_const_mem_size(self, signature=None):
            return self._attribute(_FUNC_CONST_SIZE_BYTES, signature)

        def get_max_threads_per_block(self, signature=None):
            return self._attribute(_FUNC_MAX_THREADS_PER_BLOCK, signature)

        @property
        def overloads(self):
            """kernel.overloads[signature]: the version for those argument types (numba-cuda's
            name), compiled and loaded on first use; it has max_cooperative_grid_blocks."""
            return _Overloads(self)

        @property
        def definitions(self):
            """numba-cuda's older name for the versions: {argument types: version}."""
            return _definitions(self)

        @property
        def signatures(self):
            return _signatures(self)

        @property
        def definition(self):
            _not_specialized(self)

        specialized = False

        def specialize(self, *args):
            """This kernel for the types of args only, as numba-cuda's specialize: a launch
            with arguments of other types is a TypeError (no new version is compiled)."""
            return SpecializedKernel(self, _launch_types, args)

        def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
            """The most blocks of blockdim threads (and dynsmemsize bytes of dynamic shared
            memory) a launch of the version launched last may have when it syncs its grid
            (gpu.cg.this_grid().sync(): all blocks must run at once), on the current GPU."""
            return self._max_cooperative_blocks(None, _threads_of(blockdim), int(dynsmemsize))

        def __reduce__(self):
            return _serialize.reduce(self)

        def __repr__(self):
            return f"<pyjit.gpu kernel {self.__qualname__}>"

else:
    class _Launcher:
        def __init__(self, name):
            self.name = name

        def __call__(self, *args):
            raise GpuUnavailableError(f"cannot launch kernel '{self.name}': {_NO_RUNTIME}")

    class Kernel:
        """A kernel that cannot run: this pyjit was built without the GPU runtime."""

        def __init__(self, py_func, signature=None, **options):
            self.py_func = py_func
            self.signature = signature
            self.__name__ = py_func.__name__
            self.__doc__ = py_func.__doc__
            self.__wrapped__ = py_func

        def __getitem__(self, cfg):
            return _Launcher(self.__name__)

        def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
            return _Launcher(self.__name__)

        def __call__(self, *args, **kwargs):
            raise GpuUnavailableError(f"cannot run kernel '{self.__name__}': {_NO_RUNTIME}")

        def __reduce__(self):
            return _serialize.reduce(self)


def _launch_types(args):
    """The type names a launch gives args (gpu.In/Out/InOut: their array's): device arrays and
    other libraries' GPU arrays as the launch types them (runtime/launch.c)."""
    return tuple(_core.cuda_arg_type(a.array if isinstance(a, _Direction) else a) for a in args)


class _Overload(VersionCode):
    """kernel.overloads[signature]: one compiled version, as numba-cuda's _Kernel."""

    def __init__(self, kernel, argtypes):
        self.kernel = kernel
        self.argtypes = argtypes

    @property
    def cooperative(self):
        """Whether this version syncs its grid, so that it is launched cooperatively."""
        for names, coop in self.kernel._versions():
            if names == self.argtypes:
                return coop
        ptx, _entry, _written = _core.cuda_compile_ptx(self.kernel.py_func, _registry.REGISTRY,
                                                       list(self.argtypes))
        return "pj_grid_barrier" in ptx

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The most blocks of blockdim threads a cooperative launch of this version may have
        on the current GPU: its occupancy per multiprocessor times the multiprocessors."""
        return self.kernel._max_cooperative_blocks(list(self.argtypes), _threads_of(blockdim),
                                                   int(dynsmemsize))

    def __repr__(self):
        return f"<pyjit.gpu kernel {self.kernel.__qualname__}({', '.join(self.argtypes)})>"


def _version_names(kernel):
    """The argument types of kernel's versions, as every backend names them: a kernel declared
    with signatures has those (numba-cuda compiles them when declared; here the first launch
    does), any other the ones its launches compiled."""
    if kernel.signature is not None:
        return [tuple(_types_mod._canonical_signature(sig)[0]) for sig in
                (kernel.signature if isinstance(kernel.signature, list) else [kernel.signature])]
    return [n for n, _coop in kernel._versions()]


def _Overloads(kernel):
    """kernel.overloads: the versions compiled (or declared) so far; indexing by a signature
    compiles that one when first used."""
    return _KernelOverloads(kernel, _Overload, lambda: _version_names(kernel))


class DeviceFunction:
    """A @gpu.jit(device=True) function: compiled into the kernels that call it."""

    def __init__(self, py_func, signature=None, **options):
        self.py_func = py_func
        self.signature = signature
        self.options = options
        # (argument names, return name): a kernel's call converts to these types, as a call of
        # an @njit function with a signature does (runtime/cuda_compile.c)
        self._declared = _types_mod._canonical_signature(signature) if signature else None
        if options.get("fastmath") or options.get("debug"):
            warnings.warn(f"device function '{py_func.__qualname__}': fastmath and debug are "
                          "taken from the kernel that calls it; its own are not used",
                          stacklevel=3)
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func

    def __call__(self, *args, **kwargs):
        raise TypeError(f"device function '{self.__name__}' can only be called from a kernel "
                        "or another device function (PYJIT_SIMULATOR=1 runs it in Python)")

    def __reduce__(self):
        return _serialize.reduce(self)

    def __repr__(self):
        return f"<pyjit.gpu device function {self.__qualname__}>"


def jit(func_or_sig=None, device=False, debug=None, fastmath=False, **options):
    """@gpu.jit, @gpu.jit('void(float32[:])'), @gpu.jit(device=True): as numba.cuda.jit.
    cache=True stores each version's PTX on disk (pyjit/_cache.py), for later processes."""
    if isinstance(func_or_sig, DeviceFunction) or isinstance(func_or_sig, Kernel):
        return func_or_sig
    cls = DeviceFunction if device else Kernel
    opts = dict(_kernel_options.check(options, device, debug), debug=bool(debug),
                fastmath=fastmath)
    kws = dict(options, device=device, debug=debug, fastmath=fastmath)

    def make(f, sig):
        return _serialize.record(cls(f, sig, **opts), f, jit, () if sig is None else (sig,), kws)
    if isinstance(func_or_sig, _types.FunctionType):
        return make(func_or_sig, None)
    return lambda f: make(f, func_or_sig)


def compile_ptx(pyfunc, signature, device=False, fastmath=False, cc=None, opt=True,
                debug=False, lineinfo=False, max_registers=None, launch_bounds=None,
                error_model=None, abi="numba", abi_info=None):
    """(ptx, return type name) for pyfunc compiled for signature: works without a GPU. The error
    model defaults as gpu.jit's does. abi='c' gives a device function the C ABI, under the name
    abi_info['abi_name'] (pyfunc's own by default), for CUDA C and C++ code to call."""
    from .. import types
    if not _HAVE_RUNTIME:
        raise GpuUnavailableError(f"compile_ptx: {_NO_RUNTIME}")
    args, ret = types._canonical_signature(signature)
    given = dict(max_registers=max_registers, launch_bounds=launch_bounds)
    if error_model is not None:
        given["error_model"] = error_model
    opts = _kernel_options.check(given, device, debug)
    ptx, _entry, _written = _core.cuda_compile_ptx(
        pyfunc, _registry.REGISTRY, list(args), device=bool(device), fastmath=bool(fastmath),
        cc=tuple(cc) if cc else (9, 0), debug=bool(debug), lineinfo=bool(lineinfo),
        opt=3 if opt else 0, max_registers=opts.get("max_registers") or 0,
        launch_bounds=opts["launch_bounds"] or (0, 0, 0),
        error_model_numpy=opts["error_model"] == "numpy",
        c_abi_name=_c_abi_name(pyfunc, device, abi, abi_info))
    return ptx, (ret or "none")


def _c_abi_name(pyfunc, device, abi, abi_info):
    """The C ABI name abi='c' asks for, or None for pyjit's own ABI ('numba')."""
    if abi == "numba":
        return None
    if abi != "c":
        raise ValueError(f"abi={abi!r}: the ABIs are 'numba' and 'c'")
    if not device:
        raise ValueError("abi='c' is for device functions (device=True), not kernels")
    name = (abi_info or {}).get("abi_name") or getattr(pyfunc, "__name__", None)
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"abi_info['abi_name'] must be a C identifier, not {name!r}")
    return name


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None,
            opt=None, abi="c", abi_info=None, output="ptx", forceinline=False,
            launch_bounds=None):
    """numba-cuda's cuda.compile: (code, return type name), a device function with the C ABI by
    default. output='ltoir' (LTO-IR) is NVIDIA's NVVM's format, which pyjit (compiling through
    LLVM's NVPTX back end) does not make: PTX only."""
    if output != "ptx":
        raise NotImplementedError(f"output={output!r}: pyjit compiles through LLVM's NVPTX back "
                                  "end and gives PTX only (output='ptx')")
    return compile_ptx(pyfunc, sig, device=device, fastmath=fastmath, cc=cc,
                       opt=True if opt is None else opt, debug=bool(debug), lineinfo=lineinfo,
                       launch_bounds=launch_bounds, abi=abi, abi_info=abi_info)


def compile_for_current_device(pyfunc, sig, **kwargs):
    return compile(pyfunc, sig, cc=get_current_device().compute_capability, **kwargs)


def compile_ptx_for_current_device(pyfunc, signature, **kwargs):
    return compile_ptx(pyfunc, signature, cc=get_current_device().compute_capability, **kwargs)


# ---- devices ----

class Device:
    """A GPU, as numba-cuda describes one (id, name, compute_capability, limits)."""

    def __init__(self, i):
        info = _core.cuda_device_info(i)
        self.id = i
        self._entered = []
        self.name = info["name"].encode()
        # numba-cuda's spelling of the 16 bytes: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
        h = info["uuid"].hex()
        self.uuid = f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        self.compute_capability = tuple(info["compute_capability"])
        self.total_memory = info["total_memory"]
        self.MAX_THREADS_PER_BLOCK = info["max_threads_per_block"]
        (self.MAX_BLOCK_DIM_X, self.MAX_BLOCK_DIM_Y, self.MAX_BLOCK_DIM_Z) = info["max_block_dim"]
        (self.MAX_GRID_DIM_X, self.MAX_GRID_DIM_Y, self.MAX_GRID_DIM_Z) = info["max_grid_dim"]
        self.MAX_SHARED_MEMORY_PER_BLOCK = info["max_shared_memory_per_block"]
        self.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = info["max_shared_memory_per_block_optin"]
        self.WARP_SIZE = info["warp_size"]
        self.MULTIPROCESSOR_COUNT = info["multiprocessor_count"]

    def __getattr__(self, name):
        """The driver's other device attributes by name (Device.L2_CACHE_SIZE, ...), read once."""
        row = _DEVICE_ATTRIBUTES.get(name)
        if row is None or not _HAVE_RUNTIME:
            raise _unknown_device_attribute(name)
        value = _core.cuda_device_attribute(self.id, row[0])
        setattr(self, name, value)
        return value

    def reset(self):
        synchronize()

    def __enter__(self):
        """`with gpu.gpus[i]:` makes this device current for the block, as numba-cuda's."""
        self._entered.append(_core.cuda_current_device())
        _core.cuda_select_device(self.id)
        return self

    def __exit__(self, *exc):
        _core.cuda_select_device(self._entered.pop())

    def __repr__(self):
        return f"<pyjit.gpu device {self.id} '{self.name.decode()}'>"


class Context:
    """The device's primary context (the one CuPy and PyTorch use too)."""

    def __init__(self, device):
        self.device = device

    def get_memory_info(self):
        return _core.cuda_mem_info()

    def synchronize(self):
        synchronize()

    deallocations = _DEALLOCATIONS     # numba-cuda's queue of frees: nothing waits in it

    def reset(self):
        synchronize()


_devices = {}


def _device(i):
    if i not in _devices:
        _devices[i] = Device(i)
    return _devices[i]


class _GPUList:
    """gpu.gpus: the GPUs the driver sees, with .current."""

    def __len__(self):
        return _core.cuda_device_count() if _HAVE_RUNTIME else 0

    def __getitem__(self, i):
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"no GPU {i}: this machine has {n}")
        return _device(i % n)

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    @property
    def current(self):
        return get_current_device()

    def __repr__(self):
        return repr(list(self))


gpus = _GPUList()


def is_available():
    """True when a CUDA driver is loaded and sees a GPU."""
    return _HAVE_RUNTIME and _core.cuda_is_available()


def is_supported_version():
    return is_available()


def is_float16_supported():
    """numba-cuda's: float16 compiles for every GPU (in half precision from sm_53 on)."""
    return True


def detect():
    """Prints the GPUs found; True if at least one can run kernels."""
    if not is_available():
        print(f"No CUDA devices: {_unavailable_reason()}")
        return False
    n = len(gpus)
    print(f"Found {n} CUDA device{'s' if n != 1 else ''}")
    for d in gpus:
        cc = ".".join(map(str, d.compute_capability))
        print(f"id {d.id:<4} {d.name!r:<30} [SUPPORTED] compute capability {cc}")
    print(f"Summary:\n\t{n}/{n} devices are supported")
    return True


if _HAVE_RUNTIME:
    DeviceNDArray = _core.DeviceNDArray
    Stream = _core.Stream
    Event = _core.Event
    to_device = _core.cuda_to_device
    device_array = _core.cuda_device_array
    device_array_like = _core.cuda_device_array_like
    pinned_array = _core.cuda_pinned_array
    as_cuda_array = _core.cuda_as_cuda_array
    is_cuda_array = _core.cuda_is_cuda_array
    synchronize = _core.cuda_synchronize

    def pinned_array_like(ary):
        """A pinned array of ary's shape, dtype and layout (_layout.py: as numba-cuda's)."""
        strides, order = like_geometry(ary)
        if strides is None:
            return pinned_array(ary.shape, ary.dtype, order=order)
        flat = pinned_array(int(np.prod(ary.shape, dtype=np.int64)), ary.dtype)
        return np.ndarray(ary.shape, ary.dtype, buffer=flat, strides=strides)

    def select_device(device_id):
        _core.cuda_select_device(int(device_id))
        return _device(int(device_id))

    def get_current_device():
        return _device(_core.cuda_current_device())

    def current_context(devnum=None):
        if devnum is not None:
            select_device(devnum)
        return Context(get_current_device())

    def list_devices():
        return list(gpus)

    def stream(non_blocking=False):
        return _core.Stream(non_blocking)

    def default_stream():
        return _core.cuda_wrap_stream(0)

    def legacy_default_stream():
        return _core.cuda_wrap_stream(1)

    def per_thread_default_stream():
        return _core.cuda_wrap_stream(2)

    def external_stream(ptr):
        return _core.cuda_wrap_stream(int(ptr))

    def event(timing=True):
        return _core.Event(timing)
else:
    class DeviceNDArray:   # noqa: D101 - only for isinstance checks when there is no runtime
        pass

    Stream = Event = DeviceNDArray
    for _name in ("to_device", "device_array", "device_array_like", "pinned_array",
                  "pinned_array_like", "as_cuda_array", "synchronize", "select_device",
                  "get_current_device", "current_context", "stream", "default_stream",
                  "legacy_default_stream", "per_thread_default_stream", "external_stream",
                  "event"):
        globals()[_name] = _unavailable(f"gpu.{_name}")

    def is_cuda_array(obj):
        return hasattr(obj, "__cuda_array_interface__")

    def list_devices():
        return []


def event_elapsed_time(evtstart, evtend):
    return evtstart.elapsed_time(evtend)


def close():
    synchronize()


@contextlib.contextmanager
def defer_cleanup():
    """Device memory whose last array goes inside the block is freed when the outermost block
    ends (numba-cuda's: freeing waits for the device, which would serialise the block's
    asynchronous work)."""
    if not _HAVE_RUNTIME:   # no device memory to free
        yield
        return
    _core.cuda_defer_cleanup(True)
    try:
        yield
    finally:
        _core.cuda_defer_cleanup(False)


# ---- host memory kernels use in place: mapped, managed, registered (runtime/hostmem.c) ----

class _HostMemory:
    """A block of host memory from runtime/hostmem.c as NumPy sees it (a byte array through
    __array_interface__); the arrays over it keep it, and it is freed (or unregistered) when
    the last goes."""

    def __init__(self, block, nbytes):
        self.capsule, self.address, self.device_address = block
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                    "data": (self.address, False), "version": 3}


def _host_memory_of(ary):
    """The _HostMemory an array (or a view of one) lies in, or None."""
    b = ary
    while isinstance(b, np.ndarray):
        b = b.base
    return b if isinstance(b, _HostMemory) else None


class MappedNDArray(np.ndarray):
    """What gpu.mapped_array and gpu.managed_array return: a NumPy array on the host that
    kernels use in place, with no copy (its memory is mapped into the GPU's address space, or
    is managed memory the driver migrates). A launch does not wait for the kernel: call
    gpu.synchronize() (or the stream's synchronize()) before reading what it wrote, as with
    numba-cuda's."""

    _pyjit_plain = True     # compiled code takes it as the plain array it is (runtime/typeof.c)

    @property
    def __cuda_array_interface__(self):
        mem = _host_memory_of(self)
        if mem is None:
            raise AttributeError("this array is not in mapped or managed memory (a result "
                                 "computed from one is an ordinary host array)")
        return {"shape": self.shape, "strides": None if self.flags.c_contiguous else
                self.strides, "typestr": self.dtype.str,
                "data": (mem.device_address + (self.ctypes.data - mem.address), False),
                "version": 3, "stream": None}

    def copy_to_host(self, ary=None, stream=0):
        """The contents as a new NumPy array (into ary if given); the memory is the host's."""
        synchronize()
        if ary is None:
            return np.array(self, copy=True).view(np.ndarray)
        ary[...] = self
        return ary

    def copy_to_device(self, ary, stream=0):
        synchronize()
        self[...] = ary

    to_host = copy_to_host


class ManagedNDArray(MappedNDArray):
    """What gpu.managed_array returns (managed memory; see MappedNDArray)."""


def _nbytes(shape, dtype, strides):
    """(shape as a tuple, the bytes an array of it takes)."""
    try:
        shape = (operator.index(shape),) if np.ndim(shape) == 0 else \
            tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, not {shape!r}") from None
    if any(n < 0 for n in shape):
        raise ValueError(f"shape {shape}: negative dimensions are not allowed")
    if any(n == 0 for n in shape):
        return shape, 0
    if strides is None:
        return shape, int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return shape, sum((n - 1) * abs(int(st)) for n, st in zip(shape, strides)) + dtype.itemsize


def _host_array(cls, alloc, shape, dtype, strides, order):
    """An array of class cls over new host memory: alloc(bytes) -> hostmem.c's block."""
    dtype = np.dtype(dtype)
    shape, n = _nbytes(shape, dtype, strides)
    raw = np.asarray(_HostMemory(alloc(n), n))
    return np.ndarray.__new__(cls, shape, dtype, buffer=raw, strides=strides, order=order)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    """A NumPy array in page-locked host memory mapped into the GPU's address space: kernels
    read and write it in place over the bus (no copy before or after a launch). portable: mapped
    for every GPU's context; wc: write-combined (fast for the GPU to read, slow for the CPU)."""
    return _host_array(MappedNDArray,
                       lambda n: _core.cuda_mapped_alloc(n, bool(portable), bool(wc)),
                       shape, dtype, strides, order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    """A mapped array of ary's shape, dtype and layout (see mapped_array; _layout.py)."""
    strides, order = like_geometry(ary)
    return mapped_array(ary.shape, ary.dtype, strides, order, stream, portable, wc)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    """A NumPy array in managed (unified) memory: the same address on the host and the GPU,
    migrated by the driver to where it is used. attach_global=False attaches it to the host
    (cuMemAllocManaged's CU_MEM_ATTACH_HOST) until a stream is attached."""
    return _host_array(ManagedNDArray, lambda n: _core.cuda_managed_alloc(n, bool(attach_global)),
                       shape, dtype, strides, order)


def _byte_span(ary):
    """(address, bytes) of the memory a NumPy array touches."""
    if not isinstance(ary, np.ndarray):
        raise TypeError(f"gpu.pinned/gpu.mapped take NumPy arrays, not {type(ary).__name__}")
    if ary.size == 0:
        return ary.ctypes.data, 0
    lo = hi = ary.ctypes.data
    for n, st in zip(ary.shape, ary.strides):
        if st > 0:
            hi += (n - 1) * st
        else:
            lo += (n - 1) * st
    return lo, hi - lo + ary.itemsize


def _register(arylist, mapped):
    blocks = []
    try:
        for ary in arylist:
            addr, n = _byte_span(ary)
            blocks.append(_core.cuda_host_register(addr, n, mapped))
    except BaseException:
        for b in blocks:
            if b is not None:
                _core.cuda_host_release(b[0])
        raise
    return blocks


@contextlib.contextmanager
def pinned(*arylist):
    """Page-locks the arrays' memory in place for the `with` block (cuMemHostRegister), so that
    copies to and from them are fast and asynchronous; unlocked at its end."""
    blocks = _register(arylist, mapped=False)
    try:
        yield
    finally:
        for b in blocks:
            if b is not None:
                _core.cuda_host_release(b[0])


@contextlib.contextmanager
def mapped(*arylist, stream=0):
    """Page-locks the arrays in place and maps them into the GPU's address space for the `with`
    block: yields a device array over each (one array: the device array itself), and a kernel
    given the NumPy array itself also uses it in place."""
    blocks = _register(arylist, mapped=True)
    try:
        views = [_device_view(ary, b) for ary, b in zip(arylist, blocks)]
        yield views[0] if len(views) == 1 else views
    finally:
        for b in blocks:
            if b is not None:
                _core.cuda_host_release(b[0])


class _Interface:
    """An object exposing a CUDA Array Interface, for as_cuda_array; keeps its owner alive."""

    def __init__(self, desc, owner=None):
        self.__cuda_array_interface__ = desc
        self.owner = owner


def _device_view(ary, block):
    """A device array over host memory registered with mapping (block keeps it registered)."""
    dev = _core.cuda_host_device_address(ary.ctypes.data)
    return as_cuda_array(_Interface({"shape": ary.shape, "strides": ary.strides,
                                     "typestr": ary.dtype.str, "data": (dev, False),
                                     "version": 3, "stream": None}, (ary, block)))


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A DeviceNDArray over the memory a CUDA Array Interface dict describes (no copy), as
    numba-cuda's; owner is kept alive with it."""
    return as_cuda_array(_Interface(dict(desc), owner))


# ---- IPC: device arrays shared with other processes of this machine ----

class IpcHandle:
    """The CUDA IPC handle of a device allocation (numba-cuda's IpcHandle): pickled to another
    process of this machine, opened there (open_array / open), closed with close()."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base                # the exporting process's array, kept alive there
        self.handle = bytes(handle)
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._address = None

    def open(self, context=None):
        """The allocation's address in this process (raises in the process that made it)."""
        if self._address is not None:
            raise ValueError("IpcHandle is already opened")
        self._address = _core.cuda_ipc_open(self.handle)
        return self._address + self.offset

    def open_array(self, context=None, shape=None, dtype=None, strides=None):
        dtype = np.dtype(dtype)
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(shape)
        desc = {"shape": shape, "strides": None if strides is None else
                ((int(strides),) if np.ndim(strides) == 0 else tuple(strides)),
                "typestr": dtype.str, "data": (self.open(), False), "version": 3,
                "stream": None}
        return as_cuda_array(_Interface(desc, self))

    def close(self):
        if self._address is None:
            raise ValueError("IpcHandle not opened")
        _core.cuda_ipc_close(self._address)
        self._address = None

    def __reduce__(self):
        return (IpcHandle, (None, self.handle, self.size, self.source_info, self.offset))

    def __repr__(self):
        return f"<pyjit.gpu IpcHandle of {self.size} bytes at offset {self.offset}>"


class IpcArrayHandle:
    """What DeviceNDArray.get_ipc_handle() returns: picklable; in another process, open() gives
    a DeviceNDArray over the same GPU memory and close() lets it go (also as a context manager:
    `with handle as ary:`)."""

    def __init__(self, ipc_handle, array_desc):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    def open(self):
        d = self._array_desc
        return self._ipc_handle.open_array(None, d["shape"], d["dtype"], d["strides"])

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()


def _ipc_handle(ary):
    """DeviceNDArray.get_ipc_handle (runtime/devarray.c calls it)."""
    handle, offset, size = _core.cuda_ipc_get_handle(ary.device_ctypes_pointer_value)
    ipch = IpcHandle(ary, handle, size, {"device": ary.device_id}, offset)
    return IpcArrayHandle(ipch, dict(shape=ary.shape, strides=ary.strides, dtype=ary.dtype))


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """Opens an IPC handle (its 64 bytes: bytes, or a sequence of ints) as a device array of
    this shape, dtype and strides (C-contiguous when None), closed at the end of the block."""
    ipch = IpcHandle(None, bytes(bytearray(handle)), 0, offset=offset)
    ary = ipch.open_array(None, shape, dtype, strides)
    try:
        yield ary
    finally:
        ipch.close()


def profile_start():
    pass


def profile_stop():
    pass


@contextlib.contextmanager
def profiling():
    yield


# ---- kernel-only names: the compiler resolves them inside kernels; on the host they say so ----

def _kernel_only(name):
    def f(*args, **kwargs):
        raise TypeError(f"gpu.{name}() can only be called inside a kernel "
                        "(PYJIT_SIMULATOR=1 runs kernels in Python)")
    f.__name__ = name
    f.__qualname__ = f"gpu.{name}"
    return f


def _anywhere(space, name):
    """A function of gpu.fp16 or gpu.libdevice: plain arithmetic, so it runs on the host too, as
    the simulator computes it; a kernel the simulator runs may then call the compiled backend's
    (`from pyjit.cuda.libdevice import sinf` in a program whose pyjit.gpu is this module)."""
    def f(*args):
        from .simulator import intrinsics
        return getattr(getattr(intrinsics, space), name)(*args)
    f.__name__ = name
    f.__qualname__ = f"gpu.{space}.{name}"
    return f


_RUN_ANYWHERE = ("fp16", "libdevice")


class _KernelOnly:
    """threadIdx, shared, atomic...: namespaces whose members exist only inside kernels (or, for
    gpu.fp16 and gpu.libdevice, run on the host too)."""

    def __init__(self, name, members):
        self._name = name
        make = (lambda m: _anywhere(name, m)) if name in _RUN_ANYWHERE else \
            (lambda m: _kernel_only(f"{name}.{m}"))
        for m in members:
            object.__setattr__(self, m, make(m))

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise TypeError(f"gpu.{self._name}.{attr} can only be used inside a kernel "
                        "(PYJIT_SIMULATOR=1 runs kernels in Python)")

    def __repr__(self):
        return f"<pyjit.gpu.{self._name}>"


# The kernel language is builtins.def's "gpu.*" rows (_builtins.py): a row there is a name here.
_INTRINSICS = INTRINSICS
for _name in _INTRINSICS:
    globals()[_name] = _kernel_only(_name)
for _name, _members in NAMESPACES.items():
    globals()[_name] = _KernelOnly(_name, _members)
warpsize = 32


def _laneid():
    raise TypeError("gpu.laneid can only be used inside a kernel "
                    "(PYJIT_SIMULATOR=1 runs kernels in Python)")


# ---- GPU ufuncs and reductions: kernels written around the user's function (gpu/ufunc.py) ----

# import_module, not `from . import ufunc`: that would consult pyjit.gpu's __getattr__, which is
# loading this module
_ufunc = _importlib.import_module(__package__ + ".ufunc")
Vectorized = _ufunc.Vectorized
GUVectorized = _ufunc.GUVectorized


def vectorize(signatures=None, target="cuda", **options):
    """@vectorize(['float32(float32, float32)'], target='cuda'), or without signatures (a
    version per input dtypes on first use): a GPU ufunc (pyjit.gpu.ufunc.Vectorized)."""
    return _ufunc.vectorize(signatures, target, backend=_sys.modules[__name__], **options)


def guvectorize(signatures, layout=None, target="cuda", **options):
    """@guvectorize(signatures, '(n),()->(n)', target='cuda'): a generalized GPU ufunc."""
    return _ufunc.guvectorize(signatures, layout, target, backend=_sys.modules[__name__],
                              **options)


def reduce(functor):
    """@gpu.reduce on a binary function: r(arr, size=None, res=None, init=0, stream=0)."""
    return _ufunc.Reduce(functor, backend=_sys.modules[__name__])


Reduce = reduce


scheduler_backend = None

# ---- CUDA C source: PyCUDA's SourceModule, CuPy's RawKernel and RawModule (gpu/source.py) ----

_source = _importlib.import_module(__package__ + ".source")
SourceModule = _source.SourceModule
RawModule = _source.RawModule
RawKernel = _source.RawKernel
SourceKernel = _source.SourceKernel
CompileError = NvrtcError       # PyCUDA's name (pycuda.driver.CompileError)
mem_alloc = _source.mem_alloc
memcpy_htod = _source.memcpy_htod
memcpy_dtoh = _source.memcpy_dtoh

# The host-side API (written here); the kernel language's names are added from the table.
__all__ = [
    "SimulatorError", "RaceError", "BarrierError", "warpsize", "DeviceNDArray",
    "to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
    "mapped_array", "mapped_array_like", "managed_array", "is_cuda_array", "as_cuda_array",
    "In", "Out", "InOut", "Stream", "Event", "stream", "default_stream", "legacy_default_stream",
    "per_thread_default_stream", "external_stream", "event", "event_elapsed_time",
    "synchronize", "gpus", "select_device", "get_current_device", "current_context",
    "list_devices", "close", "defer_cleanup", "is_available", "is_supported_version", "detect",
    "pinned",
    "mapped", "profile_start", "profile_stop", "profiling", "jit", "Kernel", "DeviceFunction",
    "Reduce", "reduce", "Vectorized", "vectorize", "guvectorize", "scheduler_backend",
    "compile_ptx", "is_float16_supported", "from_cuda_array_interface", "open_ipc_array",
    "compile_ptx_for_current_device", "compile", "compile_for_current_device",
    "declare_device", "CudaError", "CudaMemoryError",
    "GpuUnavailableError", "SourceModule", "RawModule", "RawKernel", "SourceKernel",
    "NvrtcError", "CompileError", "mem_alloc", "memcpy_htod", "memcpy_dtoh",
] + list(_INTRINSICS) + list(NAMESPACES) + ([] if _HAVE_RUNTIME else ["NO_BACKEND"])


def __getattr__(name):
    """gpu.random (numba-cuda's generators, imported on first use), and the type names
    numba-cuda's module has too (cuda.int32, cuda.types): pyjit.gpu's."""
    if name == "random":
        return _importlib.import_module(__package__ + ".random")
    from . import _type_name
    t = _type_name(name)
    if t is None:
        raise AttributeError(f"module 'pyjit.gpu.hardware' has no attribute '{name}'")
    return t
