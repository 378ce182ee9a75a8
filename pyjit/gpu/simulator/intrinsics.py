"""What a kernel calls in the simulator: indices, memory, barriers, warp operations, atomics.

Barriers and warp operations hand a request to the scheduler (S.suspend) and return what the
scheduler answers once every thread concerned has arrived; the scheduler (scheduler.py) is the
only place that knows about other threads. Everything else here acts on the running thread.
"""
import dis
import math as _math
import sys
import types

import numpy as np

from .arrays import CheckedArray, RaceCheckedArray, as_dtype, as_shape, checked
from .state import S, threadIdx, blockIdx, blockDim, gridDim

_getframe = sys._getframe
FULL_MASK = 0xFFFFFFFF
warpsize = 32
MAX_SHARED_BYTES = 48 * 1024

# Request kinds a thread hands to the scheduler.
BAR = 0        # (BAR, variant, predicate, frame, lasti); variant 0 plain, 1 count, 2 and, 3 or
WARP = 1       # (WARP, op, mask, value, arg, frame)
ACTIVE = 2     # (ACTIVE, frame)
GRID = 4       # (GRID, frame, lasti): gpu.cg.this_grid().sync()

# Names whose presence in a kernel (or what it calls) means its threads must run concurrently.
SYNC_NAMES = frozenset((
    "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "syncwarp",
    "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "ballot_sync", "all_sync",
    "any_sync", "eq_sync", "activemask", "match_any_sync", "match_all_sync",
))
# ... and the attribute names that synchronise when called: those, and a grid group's sync().
SYNC_ATTRIBUTES = SYNC_NAMES | {"sync"}


def _laneid():
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31


def grid(ndim):
    x = threadIdx.x + blockIdx.x * blockDim.x
    if ndim == 1:
        return x
    y = threadIdx.y + blockIdx.y * blockDim.y
    if ndim == 2:
        return (x, y)
    if ndim == 3:
        return (x, y, threadIdx.z + blockIdx.z * blockDim.z)
    raise ValueError(f"grid(ndim): ndim must be 1, 2 or 3, got {ndim!r}")


def gridsize(ndim):
    x = blockDim.x * gridDim.x
    if ndim == 1:
        return x
    y = blockDim.y * gridDim.y
    if ndim == 2:
        return (x, y)
    if ndim == 3:
        return (x, y, blockDim.z * gridDim.z)
    raise ValueError(f"gridsize(ndim): ndim must be 1, 2 or 3, got {ndim!r}")


# --- cooperative groups ---------------------------------------------------------------------

class _GridGroup:
    """What gpu.cg.this_grid() returns: the whole grid. sync() waits until every thread of every
    block has reached it (the scheduler runs the blocks of such a kernel side by side)."""

    __slots__ = ()

    def sync(self):
        f = _getframe(1)
        return S.suspend((GRID, f, f.f_lasti))

    @property
    def size(self):
        """The threads in the grid."""
        return (blockDim.x * gridDim.x) * (blockDim.y * gridDim.y) * (blockDim.z * gridDim.z)

    def __repr__(self):
        return "<pyjit.gpu grid group>"


_THE_GRID = _GridGroup()


class cg:
    """gpu.cg: cooperative groups, as numba-cuda's cuda.cg."""

    GridGroup = _GridGroup

    @staticmethod
    def this_grid():
        return _THE_GRID


# --- barriers -------------------------------------------------------------------------------

def syncthreads():
    f = _getframe(1)
    return S.suspend((BAR, 0, 1, f, f.f_lasti))


def syncthreads_count(predicate):
    f = _getframe(1)
    return S.suspend((BAR, 1, predicate, f, f.f_lasti))


def syncthreads_and(predicate):
    f = _getframe(1)
    return S.suspend((BAR, 2, predicate, f, f.f_lasti))


def syncthreads_or(predicate):
    f = _getframe(1)
    return S.suspend((BAR, 3, predicate, f, f.f_lasti))


def threadfence():
    """Memory fences order nothing here: one simulated thread runs at a time."""


threadfence_block = threadfence


def nanosleep(ns):
    """A simulated thread has nothing to wait for: the sleep ends at once."""
    if not isinstance(ns, (int, np.integer)) or isinstance(ns, bool) or ns < 0:
        raise TypeError(f"gpu.nanosleep() takes a count of nanoseconds (a non-negative int), "
                        f"not {ns!r}")
threadfence_system = threadfence


# --- warp operations ------------------------------------------------------------------------

def syncwarp(mask=FULL_MASK):
    return S.suspend((WARP, "syncwarp", int(mask), None, None, _getframe(1)))


def shfl_sync(mask, value, src_lane):
    return S.suspend((WARP, "shfl", int(mask), value, int(src_lane), _getframe(1)))


def shfl_up_sync(mask, value, delta):
    return S.suspend((WARP, "shfl_up", int(mask), value, int(delta), _getframe(1)))


def shfl_down_sync(mask, value, delta):
    return S.suspend((WARP, "shfl_down", int(mask), value, int(delta), _getframe(1)))


def shfl_xor_sync(mask, value, lane_mask):
    return S.suspend((WARP, "shfl_xor", int(mask), value, int(lane_mask), _getframe(1)))


def ballot_sync(mask, predicate):
    return S.suspend((WARP, "ballot", int(mask), bool(predicate), None, _getframe(1)))


def all_sync(mask, predicate):
    return S.suspend((WARP, "all", int(mask), bool(predicate), None, _getframe(1)))


def any_sync(mask, predicate):
    return S.suspend((WARP, "any", int(mask), bool(predicate), None, _getframe(1)))


def eq_sync(mask, predicate):
    return S.suspend((WARP, "eq", int(mask), bool(predicate), None, _getframe(1)))


def _match_key(value):
    """What the match operations compare: a float's bits (0.0 is not -0.0, a NaN matches the
    same NaN), an int's value."""
    if isinstance(value, np.floating):
        return int(value.view(np.uint32 if value.dtype.itemsize == 4 else np.uint64))
    if isinstance(value, float):
        return int(np.float64(value).view(np.uint64))
    return int(value)


def match_any_sync(mask, value):
    return S.suspend((WARP, "match_any", int(mask), _match_key(value), None, _getframe(1)))


def match_all_sync(mask, value):
    return S.suspend((WARP, "match_all", int(mask), _match_key(value), None, _getframe(1)))


def activemask():
    return S.suspend((ACTIVE, _getframe(1)))


def lanemask_lt():
    return (1 << _laneid()) - 1


# --- memory ---------------------------------------------------------------------------------

_target_names = {}


def _target_name(frame, what):
    """The variable a call's result is stored into (`sdata = shared.array(...)` -> 'sdata')."""
    code, lasti = frame.f_code, frame.f_lasti
    key = (code, lasti)
    name = _target_names.get(key)
    if name is None:
        name = f"{what} at line {frame.f_lineno}"
        for ins in dis.get_instructions(code):
            if ins.offset > lasti:
                if ins.opname in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"):
                    name = ins.argval
                break
        _target_names[key] = name
    return name


class shared:
    """gpu.shared.array: one array per block and per allocation (the call instruction)."""

    @staticmethod
    def array(shape, dtype):
        f = _getframe(1)
        key = (f.f_code, f.f_lasti)
        a = S.shared.get(key)
        if a is None:
            a = _new_shared(shape, dtype, f, key)
        return a


def _new_shared(shape, dtype, frame, key):
    shape = _compiled_shape(shape, "shared", frame, key)
    dt = as_dtype(dtype)
    name = _target_name(frame, "shared array")
    if _prod(shape) == 0:
        if S.dyn_shared is None:     # every dynamic shared array aliases the same bytes
            S.dyn_shared = np.zeros(S.sharedmem, dtype=np.uint8)
        n = S.sharedmem // dt.itemsize
        data = S.dyn_shared[: n * dt.itemsize].view(dt)
    else:
        data = np.zeros(shape, dtype=dt)
        S.static_bytes += data.nbytes
        if S.static_bytes + S.sharedmem > MAX_SHARED_BYTES:
            from ...errors import UnsupportedError     # what the GPU compiler raises for it
            raise UnsupportedError(
                f"shared array '{name}' of {data.nbytes} bytes takes the block's shared memory to "
                f"{S.static_bytes + S.sharedmem} bytes, over the {MAX_SHARED_BYTES}-byte limit")
    a = RaceCheckedArray(data, name) if S.racecheck else checked(data, name)
    S.shared[key] = a
    return a


def _compiled_shape(shape, kind, frame, key):
    """The shape of a shared or local array, refused as the GPU compiler refuses it: a kernel
    argument or a non-int is its TypingError, an axis below 0 (or 0, but for a 1-d dynamic
    shared array) or past 2**30 its UnsupportedError."""
    from ...errors import TypingError, UnsupportedError
    must = (f"gpu.{kind}.array() argument 1 must be a constant int or tuple of ints (the shape "
            "is fixed when the kernel is compiled), not ")
    if _runtime_shape(frame, key):
        raise TypingError(must + "a kernel argument: pass a constant for it, or literally(it) "
                          "in the kernel")
    try:
        shape = as_shape(shape)
    except TypeError:
        raise TypingError(must + type(shape).__name__) from None
    for k, n in enumerate(shape):
        if n < 0 or (n == 0 and (kind != "shared" or len(shape) != 1)) or n > 1 << 30:
            raise UnsupportedError(f"invalid {kind} array shape (axis {k} is {n})")
    return shape


_runtime_shapes = {}


def _kernel_frame(frame):
    """Whether frame is a kernel's own (called by the simulator), not a device function's."""
    caller = frame.f_back
    return caller is None or caller.f_code.co_filename.startswith(_SIMULATOR_DIR)


_SIMULATOR_DIR = __import__("os").path.dirname(__file__)


def _literal_params(code):
    """The parameters the function calls literally() on: compiled for each of their values, so
    constants when it compiles (Numba's literal dispatch)."""
    found, prev = set(), None
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_FAST", "LOAD_DEREF") and prev is not None and \
                prev.argval == "literally":
            found.add(ins.argval)
        if ins.opname not in ("PUSH_NULL", "PRECALL", "CACHE"):
            prev = ins
    return found


def _runtime_shape(frame, key):
    """Whether the arguments of the shared.array or local.array call at frame's current
    instruction read a parameter of the kernel that the kernel does not ask the value of
    (literally()): the GPU compiler wants a shape known when it compiles. A device function's
    parameter is compiled for the constant its caller passes (infer_calls.c: shape_param)."""
    if not _kernel_frame(frame):
        return False
    found = _runtime_shapes.get(key)
    if found is None:
        code, lasti = key
        params = set(code.co_varnames[:code.co_argcount]) - _literal_params(code)
        reads = []
        prev = None
        for ins in dis.get_instructions(code):
            if ins.offset >= lasti:
                break
            if ins.argval == "array" and ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                reads = []
            elif ins.opname in ("LOAD_FAST", "LOAD_DEREF"):
                reads.append(ins.argval)
            elif ins.opname == "LOAD_ATTR" and ins.argval == "dtype" and reads and \
                    prev.opname in ("LOAD_FAST", "LOAD_DEREF"):
                reads.pop()     # dtype=a.dtype: the argument's dtype is known when it compiles
            prev = ins
        found = _runtime_shapes[key] = any(r in params for r in reads)
    return found


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class local:
    """gpu.local.array: a private array of the calling thread."""

    @staticmethod
    def array(shape, dtype):
        f = _getframe(1)
        shape = _compiled_shape(shape, "local", f, (f.f_code, f.f_lasti))
        return checked(np.zeros(shape, dtype=as_dtype(dtype)), _target_name(f, "local array"))


class const:
    """gpu.const.array_like: a read-only copy, made once per launch and allocation."""

    @staticmethod
    def array_like(ary):
        f = _getframe(1)
        key = (f.f_code, f.f_lasti, id(ary))
        a = S.const_cache.get(key)
        if a is None:
            data = np.array(ary._a if isinstance(ary, CheckedArray) else ary, copy=True)
            data.flags.writeable = False
            a = S.const_cache[key] = checked(data, _target_name(f, "constant array"))
        return a


# --- atomics --------------------------------------------------------------------------------

_ATOMIC_INTS = frozenset(map(np.dtype, ("int32", "uint32", "int64", "uint64")))
_ATOMIC_NUMBERS = _ATOMIC_INTS | frozenset(map(np.dtype, ("float32", "float64")))
_ATOMIC_INT_ONLY = frozenset(("and_", "or_", "xor", "inc", "dec"))


def _target(ary, idx):
    if isinstance(ary, CheckedArray):
        a, i = ary._a, ary.check(idx)
    elif isinstance(ary, np.ndarray):
        a, i = ary, idx
    else:
        raise TypeError(f"atomic operations need an array, got {type(ary).__name__}")
    if a.dtype not in _ATOMIC_NUMBERS:
        _atomic_dtype_error(a.dtype)
    return a, i


def _atomic_dtype_error(dt):
    """The GPU compiler's TypingError for an atomic on an array of a dtype it has no atomic for
    (the operation named as the compiled path names it)."""
    from ...errors import TypingError
    f = _getframe(1)
    while f.f_code.co_name.startswith("_"):
        f = f.f_back
    op = f.f_code.co_name
    raise TypingError(f"gpu.atomic.{op}() does not support arrays of {dt.name}")


def _value(a, val):
    """An atomic's operand converted to the array's dtype first, as the compiled path types it
    (dtype(array, index, dtype)): an int64 -1 given to a uint32 array is 0xFFFFFFFF there."""
    return np.asarray(val).astype(a.dtype, casting="unsafe")[()]


def _int_target(ary, idx):
    a, i = _target(ary, idx)
    if a.dtype not in _ATOMIC_INTS:
        _atomic_dtype_error(a.dtype)
    return a, i


class atomic:
    """gpu.atomic.*: read-modify-write of one element, returning the old value.

    They are atomic because only one simulated thread runs at a time and none is switched out
    in the middle of one of these functions.
    """

    @staticmethod
    def add(ary, idx, val):
        a, i = _target(ary, idx)
        val = _value(a, val)
        old = a[i]
        a[i] = old + val
        return old

    @staticmethod
    def sub(ary, idx, val):
        a, i = _target(ary, idx)
        val = _value(a, val)
        old = a[i]
        a[i] = old - val
        return old

    @staticmethod
    def max(ary, idx, val):
        a, i = _target(ary, idx)
        val = _value(a, val)
        old = a[i]
        if val > old:        # a NaN on either side changes nothing, as in numba-cuda
            a[i] = val
        return old

    @staticmethod
    def min(ary, idx, val):
        a, i = _target(ary, idx)
        val = _value(a, val)
        old = a[i]
        if val < old:
            a[i] = val
        return old

    @staticmethod
    def nanmax(ary, idx, val):
        a, i = _target(ary, idx)
        val = _value(a, val)
        old = a[i]
        if old != old or val > old:
            if val == val:
                a[i] = val
        return old

    @staticmethod
    def nanmin(ary, idx, val):
        a, i = _target(ary, idx)
        val = _value(a, val)
        old = a[i]
        if old != old or val < old:
            if val == val:
                a[i] = val
        return old

    @staticmethod
    def and_(ary, idx, val):
        a, i = _int_target(ary, idx)
        val = _value(a, val)
        old = a[i]
        a[i] = old & val
        return old

    @staticmethod
    def or_(ary, idx, val):
        a, i = _int_target(ary, idx)
        val = _value(a, val)
        old = a[i]
        a[i] = old | val
        return old

    @staticmethod
    def xor(ary, idx, val):
        a, i = _int_target(ary, idx)
        val = _value(a, val)
        old = a[i]
        a[i] = old ^ val
        return old

    @staticmethod
    def exch(ary, idx, val):
        a, i = _target(ary, idx)
        val = _value(a, val)
        old = a[i]
        a[i] = val
        return old

    @staticmethod
    def inc(ary, idx, val):
        a, i = _int_target(ary, idx)
        val = _value(a, val)
        old = a[i]
        a[i] = 0 if old >= val else old + 1
        return old

    @staticmethod
    def dec(ary, idx, val):
        a, i = _int_target(ary, idx)
        val = _value(a, val)
        old = a[i]
        a[i] = val if (old == 0 or old > val) else old - 1
        return old

    @staticmethod
    def cas(ary, idx, old, val):
        a, i = _target(ary, idx)
        old, val = _value(a, old), _value(a, val)
        cur = a[i]
        if cur == old:
            a[i] = val
        return cur

    @staticmethod
    def compare_and_swap(ary, old, val):
        return atomic.cas(ary, 0, old, val)


# --- bit and arithmetic intrinsics ----------------------------------------------------------

def _bits(x):
    w = x.dtype.itemsize * 8 if isinstance(x, np.integer) else 64
    return int(x) & ((1 << w) - 1), w


def popc(x):
    v, _ = _bits(x)
    return v.bit_count()


def clz(x):
    v, w = _bits(x)
    return w - v.bit_length()


def ffs(x):
    v, _ = _bits(x)
    return (v & -v).bit_length()


def brev(x):
    v, w = _bits(x)
    r = int(format(v, f"0{w}b")[::-1], 2)
    if isinstance(x, np.unsignedinteger):
        return x.dtype.type(r)
    if r >= 1 << (w - 1):
        r -= 1 << w
    return x.dtype.type(r) if isinstance(x, np.integer) else r


def fma(a, b, c):
    return a * b + c


def selp(cond, a, b):
    return a if cond else b


def cbrt(x):
    return np.cbrt(x) if isinstance(x, np.float32) else _math.copysign(abs(x) ** (1.0 / 3.0), x)


# --- math for kernels: float32 in, float32 out ----------------------------------------------

_f32 = np.float32
_f16 = np.float16     # a half's math is float32's too, as compiled (the result stays float32)
_UNARY = {
    "sqrt": np.sqrt, "exp": np.exp, "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "fabs": np.fabs, "degrees": np.degrees, "radians": np.radians, "exp2": np.exp2,
    "cbrt": np.cbrt,
}
_UNARY_VIA_DOUBLE = ("erf", "erfc", "gamma", "lgamma")
_BINARY = {"atan2": np.arctan2, "pow": np.power, "hypot": np.hypot, "copysign": np.copysign,
           "fmod": np.fmod}


def _domain(mf):
    """math's function, giving nan where it raises "math domain error" when the kernel's error
    model is NumPy's (as the compiled kernel does)."""
    def f(*args):
        try:
            return mf(*args)
        except ValueError:
            if S.numpy_errors:
                return _math.nan
            raise
    return f


def _unary(name, npf):
    mf = _domain(getattr(_math, name, None) or (lambda x: float(npf(x))))

    def f(x):
        if x.__class__ is _f32:
            return npf(x)
        if x.__class__ is _f16:
            return npf(_f32(x))
        return mf(x)
    f.__name__ = name
    return f


def _unary_double(name):
    mf = _domain(getattr(_math, name))

    def f(x):
        if x.__class__ is _f32 or x.__class__ is _f16:
            return _f32(mf(x))
        return mf(x)
    f.__name__ = name
    return f


def _binary(name, npf):
    mf = _domain(getattr(_math, name))
    weak = (int, float, _f32, _f16)
    single = (_f32, _f16)

    def f(x, y):
        if (x.__class__ in single and y.__class__ in weak) or \
                (y.__class__ in single and x.__class__ in weak):
            return npf(_f32(x), _f32(y))
        return mf(x, y)
    f.__name__ = name
    return f


def make_math_module():
    """A stand-in for `math` in kernels: float32 arguments give float32 results (as on the GPU)."""
    m = types.ModuleType("math", "math functions for simulated kernels (float32 stays float32)")
    m.__dict__.update({k: v for k, v in vars(_math).items() if not k.startswith("__")})
    for name, npf in _UNARY.items():
        setattr(m, name, _unary(name, npf))
    for name in _UNARY_VIA_DOUBLE:
        setattr(m, name, _unary_double(name))
    for name, npf in _BINARY.items():
        setattr(m, name, _binary(name, npf))
    m.modf = _modf
    m.remainder = _remainder
    return m


def _modf(x):
    """math.modf: a float32 gives float32 parts, as compiled kernels do (pyjit/lib/pymath.py)."""
    f, i = _math.modf(x)
    return (_f32(f), _f32(i)) if x.__class__ is _f32 or x.__class__ is _f16 else (f, i)


def _remainder(x, y):
    """math.remainder, NaN where CPython raises (an infinite x, a zero y), as compiled kernels
    compute it (pyjit/lib/pymath.py) and libdevice does."""
    try:
        return _math.remainder(x, y)
    except ValueError:
        return _math.nan


math_module = make_math_module()


# --- gpu.fp16 and gpu.libdevice: modules of their own (fp16.py, libdevice.py) -------------------

class _Functions:
    """gpu.fp16 and gpu.libdevice: the functions of fp16_math.py, or those libdevice_math.py
    builds into its `namespace` module, as a namespace of the kernel language (as the compiled
    backend's are; a module would not be one of its names). Loaded on first use: libdevice's 317
    functions are built from the table, which costs more than the rest of the simulator's
    import."""

    def __init__(self, name):
        self._name = name

    def _load(self):
        import importlib
        module = importlib.import_module(f"{__package__}.{self._name}_math")
        module = getattr(module, "namespace", module)
        self.__dict__.update((k, v) for k, v in vars(module).items()
                             if not k.startswith("_") and callable(v))

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        self._load()
        try:
            return self.__dict__[attr]
        except KeyError:
            raise AttributeError(f"gpu.{self._name} has no function {attr!r}") from None

    def __dir__(self):
        self._load()
        return sorted(k for k in self.__dict__ if not k.startswith("_"))

    def __repr__(self):
        return f"<pyjit.gpu.{self._name} (simulated)>"


fp16 = _Functions("fp16")
libdevice = _Functions("libdevice")
