"""numba.cuda.cudadrv.devicearray's names: the backend's DeviceNDArray (isinstance checks and type
hints), DeviceNDArrayBase, is_cuda_ndarray and auto_device."""
import importlib as _importlib
import sys as _sys

_gpu = _importlib.import_module("pyjit.gpu")

DeviceNDArray = _gpu.DeviceNDArray

# numba-cuda's base of every array in device memory: its device arrays and its mapped and managed
# host arrays; here also the simulator's device arrays when a program runs kernels there too
_DEVICE_CLASSES = (("pyjit.gpu", "DeviceNDArray"), ("pyjit.gpu.hardware", "MappedNDArray"),
                   ("pyjit.gpu.simulator.arrays", "DeviceNDArray"))


def _device_classes():
    found = []
    for module, name in _DEVICE_CLASSES:
        mod = _sys.modules.get(module)
        cls = getattr(mod, name, None) if mod is not None else None
        if isinstance(cls, type):
            found.append(cls)
    return tuple(found)


class _BaseType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _device_classes())

    def __subclasscheck__(cls, sub):
        return sub is cls or issubclass(sub, _device_classes())


class DeviceNDArrayBase(metaclass=_BaseType):
    """isinstance(x, DeviceNDArrayBase): whether x is an array in device memory (a device
    array of any backend, or a mapped or managed array), as numba-cuda's base class answers."""


def is_cuda_ndarray(obj):
    """Whether obj is a device array of the running backend."""
    return isinstance(obj, DeviceNDArray)


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """(device array, whether it was copied to the device): obj itself when it is a device array
    already, else a new one with obj's contents (when copy is true)."""
    if is_cuda_ndarray(obj):
        return obj, False
    return _gpu.to_device(obj, stream=stream, copy=copy), True


__all__ = ["DeviceNDArray", "DeviceNDArrayBase", "is_cuda_ndarray", "auto_device"]
