"""numba.cuda.cudadrv.driver's exception names: CudaAPIError is a failed driver call (.code its
number, .name the driver's error name), as pyjit's CudaError is."""
from pyjit.gpu.errors import CudaError, CudaMemoryError
from .error import CudaDriverError, CudaSupportError

CudaAPIError = CudaError


class Driver:
    """numba.cuda.cudadrv.driver.driver: the driver's CUDA version and its device count."""

    def get_version(self):
        from .runtime import _cuda_version
        return _cuda_version()

    def get_device_count(self):
        import pyjit.gpu as gpu
        return len(gpu.list_devices()) if gpu.SIMULATOR or gpu.is_available() else 0

    @property
    def is_available(self):
        import pyjit.gpu as gpu
        return gpu.is_available()


driver = Driver()


def _raise_driver_not_found():
    """Numba's private helper that libraries (stumpy) call where no GPU can be used: raises
    CudaSupportError saying why, as Numba's does."""
    from pyjit.gpu.hardware import _unavailable_reason
    raise CudaSupportError(f"CUDA driver library cannot be found: {_unavailable_reason()}")


class _DevicePointer(int):
    """A device address as numba-cuda's MemoryPointer.device_pointer gives it: int() of it is
    the address, and so is its .value (None for a null pointer), as of the ctypes and the
    cuda-python bindings numba-cuda has used."""

    @property
    def value(self):
        return int(self) or None


class MemoryPointer:
    """numba-cuda's MemoryPointer, as DeviceNDArray.gpu_data gives it: the memory an array's
    elements span (from its lowest byte, alloc_size bytes), kept alive by the array. Programs
    read its address (device_pointer, device_ctypes_pointer, device_pointer_value), its size,
    take views of byte ranges, and memset it."""

    __cuda_memory__ = True

    def __init__(self, owner, address, size):
        self._owner = owner
        self.device_pointer = self.handle = _DevicePointer(address)
        self.size = self._cuda_memsize_ = int(size)
        self.is_managed = False
        self.refct = 1

    @classmethod
    def of_array(cls, ary):
        """The memory of a device array (any backend's)."""
        from .._layout import byte_extent
        lo, hi = byte_extent(ary.shape, ary.strides, ary.dtype.itemsize)
        base = ary.device_ctypes_pointer.value or 0
        return cls(ary, base + lo if hi > lo else 0, hi - lo)

    @property
    def owner(self):
        return self._owner

    @property
    def context(self):
        import pyjit.gpu as gpu
        return gpu.current_context()

    @property
    def device_ctypes_pointer(self):
        import ctypes
        return ctypes.c_void_p(int(self.device_pointer) or None)

    @property
    def device_pointer_value(self):
        return int(self.device_pointer) or None

    def own(self):
        return self

    def free(self):
        """The memory goes with the last array over it: this only lets go of this pointer's."""
        self._owner = None

    def view(self, start, stop=None):
        """The bytes [start, stop) of this memory."""
        stop = self.size if stop is None else stop
        if not 0 <= start <= stop <= self.size:
            raise ValueError(f"view({start}, {stop}) of {self.size} bytes of device memory")
        if not self.device_pointer:
            return self
        return MemoryPointer(self._owner, int(self.device_pointer) + start, stop - start)

    def memset(self, byte, count=None, stream=0):
        """Sets count bytes (all by default) to byte, on stream (at once when 0)."""
        count = self.size if count is None else int(count)
        if not 0 <= count <= self.size:
            raise ValueError(f"memset of {count} bytes into {self.size} bytes of device memory")
        if count == 0:
            return
        import pyjit.gpu as gpu
        cai = {"shape": (count,), "typestr": "|u1", "data": (int(self.device_pointer), False),
               "version": 3, "strides": None}
        gpu.from_cuda_array_interface(cai, owner=self._owner).setitem(
            slice(None), int(byte) & 0xFF, stream=stream)
        if not stream:
            gpu.synchronize()

    def __repr__(self):
        return f"<MemoryPointer of {self.size} bytes at 0x{int(self.device_pointer):x}>"


class _StreamType(type):
    """driver.Stream(context, handle, finalizer=None): numba-cuda's stream class, called by
    libraries that wrap another library's CUstream (a CuPy stream's .ptr as a ctypes c_void_p):
    the running backend's stream over that handle, as cuda.external_stream(ptr) gives; and
    isinstance(s, driver.Stream) holds for the backend's streams."""

    def __call__(cls, context, handle, finalizer=None, external=False):
        import pyjit.gpu as gpu
        ptr = getattr(handle, "value", handle)     # a ctypes c_void_p, or an int
        return gpu.external_stream(int(ptr or 0))

    def __instancecheck__(cls, obj):
        import pyjit.gpu as gpu
        return isinstance(obj, gpu.Stream)


class Stream(metaclass=_StreamType):
    """numba-cuda's driver.Stream (see _StreamType)."""

__all__ = ["CudaAPIError", "CudaDriverError", "CudaMemoryError", "CudaSupportError", "Driver",
           "MemoryPointer", "Stream", "driver", "_raise_driver_not_found"]
