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
        if count == 0:
            return
        self._bytes(count, "memset").setitem(slice(None), int(byte) & 0xFF, stream=stream)
        _finish(stream)

    def _bytes(self, count, what):
        """A uint8 device array over the first count bytes (kept alive with the owner)."""
        if not 0 <= count <= self.size:
            raise ValueError(f"{what}: {count} bytes, but the device memory has {self.size}")
        import pyjit.gpu as gpu
        cai = {"shape": (count,), "typestr": "|u1", "data": (int(self.device_pointer), False),
               "version": 3, "strides": None}
        return gpu.from_cuda_array_interface(cai, owner=self._owner)

    def __repr__(self):
        return f"<MemoryPointer of {self.size} bytes at 0x{int(self.device_pointer):x}>"


def _finish(stream):
    """A copy on the default stream (0) is complete when the call returns, as numba-cuda's."""
    if not stream:
        import pyjit.gpu as gpu
        gpu.synchronize()


def _device_bytes(obj, size, what):
    """The first size bytes of device memory: a MemoryPointer, or a device array's gpu_data."""
    mp = obj if isinstance(obj, MemoryPointer) else getattr(obj, "gpu_data", None)
    if not isinstance(mp, MemoryPointer):
        raise TypeError(f"{what}: device memory is a device array or its gpu_data, not "
                        f"{type(obj).__name__}")
    return mp._bytes(int(size), what)


def _host_bytes(ary, size, what):
    """The first size bytes of a contiguous NumPy array, as a uint8 view of them."""
    import numpy as np
    if not isinstance(ary, np.ndarray) or not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        raise TypeError(f"{what}: host memory is a contiguous NumPy array, not "
                        f"{type(ary).__name__}")
    flat = ary.reshape(-1, order="A").view(np.uint8)
    if not 0 <= size <= flat.size:
        raise ValueError(f"{what}: {size} bytes, but the host array has {flat.size}")
    return flat[:size]


def host_to_device(dst, src, size, stream=0):
    """numba-cuda's driver.host_to_device: size bytes of NumPy array src into device memory
    dst (a device array or a MemoryPointer)."""
    if size:
        _device_bytes(dst, size, "host_to_device").copy_to_device(
            _host_bytes(src, size, "host_to_device"), stream=stream)
        _finish(stream)


def device_to_host(dst, src, size, stream=0):
    """numba-cuda's driver.device_to_host: size bytes of device memory src into NumPy array
    dst."""
    if size:
        _device_bytes(src, size, "device_to_host").copy_to_host(
            _host_bytes(dst, size, "device_to_host"), stream=stream)
        _finish(stream)


def device_to_device(dst, src, size, stream=0):
    """numba-cuda's driver.device_to_device: size bytes between device memory (device arrays
    or MemoryPointers, such as views of gpu_data)."""
    if size:
        _device_bytes(dst, size, "device_to_device").copy_to_device(
            _device_bytes(src, size, "device_to_device"), stream=stream)
        _finish(stream)


def device_memset(dst, val, size, stream=0):
    """numba-cuda's driver.device_memset: size bytes of device memory set to byte val."""
    if size:
        _device_bytes(dst, size, "device_memset").setitem(slice(None), int(val) & 0xFF,
                                                           stream=stream)
        _finish(stream)


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
           "MemoryPointer", "Stream", "device_memset", "device_to_device", "device_to_host",
           "driver", "host_to_device", "_raise_driver_not_found"]
