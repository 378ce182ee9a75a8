"""numba.cuda.cudadrv.devicearray's names: the backend's DeviceNDArray (isinstance checks and type
hints), is_cuda_ndarray and auto_device."""
import importlib as _importlib

_gpu = _importlib.import_module("pyjit.gpu")

DeviceNDArray = _gpu.DeviceNDArray
DeviceNDArrayBase = DeviceNDArray


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
