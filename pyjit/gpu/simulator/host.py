"""Host-side runtime in the simulator: devices, contexts, streams, events.

Launches and copies complete before they return, so streams and events are bookkeeping that
behaves like the GPU path's (events still measure real elapsed time between records).
"""
import contextlib
import time

from .._hostapi import DEALLOCATIONS as _DEALLOCATIONS, DEVICE_ATTRIBUTES as _DEVICE_ATTRIBUTES, \
    unknown_device_attribute as _unknown_device_attribute
from .arrays import DeviceNDArray


class Stream:
    """A CUDA stream: in the simulator, work on it is already done when it is queued."""

    def __init__(self, handle=1):
        self.handle = handle

    def synchronize(self):
        pass

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def add_callback(self, callback, arg=None):
        callback(self, 0, arg)

    def query(self):
        """True: the stream's work is done (it was done when queued)."""
        return True

    def async_done(self):
        """numba-cuda's awaitable of the stream's work, resolved with the stream."""
        from .._hostapi import async_done
        return async_done(self)

    def __int__(self):
        return self.handle

    def __repr__(self):
        return f"<pyjit simulated stream {self.handle}>"


_streams = [0]


def stream():
    _streams[0] += 1
    return Stream(_streams[0] + 1)


_default = Stream(0)


def default_stream():
    return _default


legacy_default_stream = default_stream
per_thread_default_stream = default_stream


def external_stream(ptr):
    return Stream(int(ptr))


class Event:
    """A CUDA event: record() takes the time; elapsed_time() gives milliseconds between two."""

    def __init__(self, timing=True):
        self.timing = timing
        self._t = None

    def record(self, stream=0):
        self._t = time.perf_counter()

    def synchronize(self):
        pass

    def wait(self, stream=0):
        pass

    def query(self):
        return True

    def elapsed_time(self, evtend):
        if self._t is None or evtend._t is None:
            raise RuntimeError("elapsed_time: both events must have been recorded")
        if not (self.timing and evtend.timing):
            raise RuntimeError("elapsed_time: events were created with timing=False")
        return (evtend._t - self._t) * 1000.0


def event(timing=True):
    return Event(timing)


def event_elapsed_time(evtstart, evtend):
    return evtstart.elapsed_time(evtend)


def synchronize():
    pass


class Device:
    """The simulated GPU: reports the limits of an sm_90 part."""

    id = 0
    name = b"pyjit simulator"
    compute_capability = (9, 0)
    MAX_THREADS_PER_BLOCK = 1024
    MAX_BLOCK_DIM_X = 1024
    MAX_BLOCK_DIM_Y = 1024
    MAX_BLOCK_DIM_Z = 64
    MAX_GRID_DIM_X = 2 ** 31 - 1
    MAX_GRID_DIM_Y = 65535
    MAX_GRID_DIM_Z = 65535
    MAX_SHARED_MEMORY_PER_BLOCK = 48 * 1024
    WARP_SIZE = 32
    MULTIPROCESSOR_COUNT = 132
    uuid = "GPU-00000000-0000-0000-0000-000000000000"

    def __getattr__(self, name):
        """The driver's other device attributes by name, as the simulated sm_90 part has them."""
        row = _DEVICE_ATTRIBUTES.get(name)
        if row is None:
            raise _unknown_device_attribute(name)
        return row[1]

    def reset(self):
        pass

    def __enter__(self):   # `with gpu.gpus[0]:`, the one device current already
        return self

    def __exit__(self, *exc):
        pass

    def __repr__(self):
        return "<pyjit simulated device 0 'pyjit simulator'>"


class Context:
    def __init__(self, device):
        self.device = device

    def get_memory_info(self):
        return (8 << 30, 8 << 30)

    def synchronize(self):
        pass

    deallocations = _DEALLOCATIONS     # numba-cuda's queue of frees: nothing waits in it

    def reset(self):
        pass


_device = Device()
_context = Context(_device)


class _GPUList:
    """gpu.gpus: the list of devices (one in the simulator), with .current."""

    def __len__(self):
        return 1

    def __getitem__(self, i):
        if i not in (0, -1):
            raise IndexError(f"no GPU {i}: the simulator has one device (0)")
        return _device

    def __iter__(self):
        return iter([_device])

    @property
    def current(self):
        return _device

    def __repr__(self):
        return "[<pyjit simulated device 0>]"


gpus = _GPUList()


@contextlib.contextmanager
def defer_cleanup():
    """numba-cuda's: simulated device memory is host memory the garbage collector frees, with
    no device to wait for, so there is nothing to defer."""
    yield


def select_device(device_id):
    if int(device_id) != 0:
        raise ValueError(f"select_device({device_id}): the simulator has one device, 0")
    return _device


def get_current_device():
    return _device


def current_context(devnum=None):
    return _context


def list_devices():
    return [_device]


def close():
    pass


def is_available():
    return True


def is_supported_version():
    return True


def is_float16_supported():
    return True


def detect():
    print("Found 1 CUDA device (pyjit simulator: kernels run in the Python interpreter)")
    print("id 0    b'pyjit simulator'    [SUPPORTED]")
    print("Summary:\n\t1/1 devices are supported")
    return True


@contextlib.contextmanager
def pinned(*arylist):
    yield


@contextlib.contextmanager
def mapped(*arylist, stream=0):
    """Device arrays over the arrays' own memory for the block: one array gives its device
    array, several a list (as numba-cuda's)."""
    views = [DeviceNDArray(a) for a in arylist]
    yield views[0] if len(views) == 1 else views


def profile_start():
    pass


def profile_stop():
    pass


@contextlib.contextmanager
def profiling():
    yield
