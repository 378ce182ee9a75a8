"""The hardware GPU backend, as it stands without the compiled GPU path.

Kernels can be declared (so modules that define them import fine) but a launch, or any use of
device memory, raises GpuUnavailableError saying that no GPU backend is available and that
PYJIT_SIMULATOR=1 runs kernels in the simulator. gpu.is_available() is False.

The compiled GPU path replaces this module. pyjit.gpu copies the names in its __all__ into
itself on first use, and calls its _laneid() for `gpu.laneid`.
"""
import types

NO_BACKEND = ("no GPU backend is available: this pyjit has no compiled GPU path (or no CUDA "
              "driver); set PYJIT_SIMULATOR=1 before importing pyjit to run kernels in the "
              "simulator")


def _error_base():
    try:
        from pyjit.errors import CudaError
        return CudaError
    except Exception:  # noqa: BLE001 - pyjit.errors may not define it yet
        return RuntimeError


class GpuUnavailableError(_error_base()):
    """Raised when a kernel is launched (or device memory used) with no GPU backend."""


def _unavailable(what):
    def f(*args, **kwargs):
        raise GpuUnavailableError(f"{what}: {NO_BACKEND}")
    f.__name__ = what
    return f


class _Launcher:
    def __init__(self, name):
        self.name = name

    def __call__(self, *args):
        raise GpuUnavailableError(f"cannot launch kernel '{self.name}': {NO_BACKEND}")


class Kernel:
    def __init__(self, py_func, signature=None, device=False, **options):
        self.py_func = py_func
        self.signature = signature
        self.device = device
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func

    def __getitem__(self, cfg):
        return _Launcher(self.__name__)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        return _Launcher(self.__name__)

    def __call__(self, *args, **kwargs):
        what = "device function" if self.device else "kernel"
        raise GpuUnavailableError(f"cannot run {what} '{self.__name__}': {NO_BACKEND}")


def jit(func_or_sig=None, device=False, **options):
    if isinstance(func_or_sig, types.FunctionType):
        return Kernel(func_or_sig, None, device, **options)
    return lambda f: Kernel(f, func_or_sig, device, **options)


def is_available():
    return False


def detect():
    print(f"No CUDA devices: {NO_BACKEND}")
    return False


def _laneid():
    raise GpuUnavailableError(f"gpu.laneid: {NO_BACKEND}")


warpsize = 32

_HOST = ("to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
         "mapped_array", "managed_array", "stream", "default_stream", "event", "synchronize",
         "select_device", "get_current_device", "current_context", "list_devices", "grid",
         "gridsize", "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or",
         "syncwarp", "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync",
         "ballot_sync", "all_sync", "any_sync", "activemask", "popc", "clz", "ffs", "brev",
         "fma", "threadfence", "threadfence_block", "threadfence_system", "as_cuda_array",
         "is_cuda_array")
for _name in _HOST:
    globals()[_name] = _unavailable(f"gpu.{_name}")


class _Unavailable:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _unavailable(f"gpu.{self._name}.{attr}")


threadIdx = _Unavailable("threadIdx")
blockIdx = _Unavailable("blockIdx")
blockDim = _Unavailable("blockDim")
gridDim = _Unavailable("gridDim")
shared = _Unavailable("shared")
local = _Unavailable("local")
const = _Unavailable("const")
atomic = _Unavailable("atomic")
gpus = []


class _Direction:
    def __init__(self, array):
        self.array = array


class In(_Direction):
    pass


class Out(_Direction):
    pass


class InOut(_Direction):
    pass



__all__ = ["jit", "is_available", "detect", "warpsize", "threadIdx", "blockIdx", "blockDim",
           "gridDim", "shared", "local", "const", "atomic", "gpus", "In", "Out", "InOut",
           "GpuUnavailableError", "Kernel", "NO_BACKEND"] + list(_HOST)
