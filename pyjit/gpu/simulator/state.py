"""The simulator's per-process state: which kernel, block and thread is running now.

Only one simulated thread runs at any moment (threads are run one after another, or switched
explicitly at barriers and warp operations), so the running thread's indices live in plain
mutable objects: the scheduler writes threadIdx.x/.y/.z before it runs or resumes a thread, and
a kernel's `gpu.threadIdx.x` is then an ordinary attribute load.
"""


class Dim3:
    """threadIdx, blockIdx, blockDim, gridDim: x, y, z of the running thread."""

    __slots__ = ("x", "y", "z")

    def __init__(self, x=0, y=0, z=0):
        self.x = x
        self.y = y
        self.z = z

    def __iter__(self):
        return iter((self.x, self.y, self.z))

    def __getitem__(self, i):
        return (self.x, self.y, self.z)[i]

    def __len__(self):
        return 3

    def __eq__(self, other):
        return tuple(self) == tuple(other)

    __hash__ = None

    def __repr__(self):
        return f"({self.x}, {self.y}, {self.z})"


threadIdx = Dim3()
blockIdx = Dim3()
blockDim = Dim3(1, 1, 1)
gridDim = Dim3(1, 1, 1)


class SimulatorError(RuntimeError):
    """A kernel did something the GPU leaves undefined: a barrier not all threads reach, ..."""


class RaceError(SimulatorError):
    """Two threads of a block touched the same shared-memory location with no barrier between."""


SimulatorError.__module__ = RaceError.__module__ = "pyjit.gpu"


def _outside(*_args):
    raise SimulatorError("a barrier or warp operation was called outside a running kernel")


class State:
    """What the running launch needs: one instance, reset by each launch."""

    __slots__ = ("active", "kernel", "suspend", "shared", "dyn_shared", "sharedmem",
                 "static_bytes", "epoch", "warp_epochs", "racecheck", "const_cache", "pending",
                 "numpy_errors")

    def __init__(self):
        self.active = False
        self.kernel = ""
        self.suspend = _outside     # how a thread waits at a barrier/warp operation
        self.shared = {}            # (code, instruction offset) -> this block's shared array
        self.dyn_shared = None      # this block's dynamic shared memory (uint8 array)
        self.sharedmem = 0
        self.static_bytes = 0
        self.epoch = 0              # barriers passed by this block (race detector)
        self.warp_epochs = []       # warp operations passed by each warp (race detector)
        self.racecheck = False
        self.const_cache = {}
        self.pending = None         # a request not yet yielded (generator kernels)
        self.numpy_errors = False   # the kernel's error model is NumPy's: math domain errors nan

    def new_block(self, nwarps):
        self.shared = {}
        self.dyn_shared = None
        self.static_bytes = 0
        self.epoch = 0
        self.warp_epochs = [0] * nwarps


S = State()


def thread_tuple():
    return (threadIdx.x, threadIdx.y, threadIdx.z)


def block_tuple():
    return (blockIdx.x, blockIdx.y, blockIdx.z)


def linear_tid():
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)
