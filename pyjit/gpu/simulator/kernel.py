"""@gpu.jit in the simulator: kernels, device functions, launch configurations and launches.

A kernel runs its own Python function, re-created once with a private copy of its globals in
which `math` is the float32-preserving stand-in and device functions are their plain Python
functions (so a device-function call is an ordinary call, and pdb sees the user's code only).
The same scan that builds this copy looks for barrier and warp-operation names in the kernel and
everything it calls: a kernel without any runs its threads one after another, with no
scheduler at all; a kernel with them is rewritten into a generator (transform.py) whose threads
the scheduler (scheduler.py) switches at each barrier and warp operation.

A failure in any thread stops the launch; the exception is re-raised with the kernel, thread
and block put in front of its message, and with the simulator's own frames taken out of its
traceback so that pdb.post_mortem() opens in the kernel's frame.
"""
import ast
import dis
import os
import threading
import types

import numpy as np

from . import intrinsics as I
from . import host, scheduler, transform
from ... import _serialize
from .. import _options as _kernel_options
from .._kernels import LaunchForms, Overloads, SpecializedKernel, VersionCode, signature_args, \
    with_defaults, threads_of as _threads_of
from .arrays import CheckedArray, DeviceNDArray, In, Out, InOut, RecordArg, checked
from .state import S, threadIdx, blockIdx, blockDim, gridDim

_HERE = os.path.dirname(os.path.abspath(__file__))
_launch_lock = threading.RLock()
_SYNC_FUNCS = frozenset(id(getattr(I, n)) for n in I.SYNC_NAMES)

MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2 ** 31 - 1, 65535, 65535)
MAX_THREADS = 1024


def racecheck_enabled():
    v = os.environ.get("PYJIT_SIMULATOR_RACECHECK", "").strip().lower()
    return v not in ("", "0", "false", "no", "off")


# --- preparing a function to run in the simulator -------------------------------------------

class _Prepared:
    """A function made ready to run: fn (plain), and gen (a generator version) when it needs
    to synchronise and could be rewritten (else the kernel runs on greenlets)."""
    __slots__ = ("fn", "needs_sync", "gen", "names")

    def __init__(self):
        self.fn = None
        self.needs_sync = False
        self.gen = None
        self.names = frozenset()    # the names it and what it calls use (for grid_sync)

    @property
    def grid_sync(self):
        """Whether it (or what it calls) syncs its grid: gpu.cg.this_grid() and a .sync() call
        (this_grid() alone needs no barrier; the group may be passed to a device function)."""
        return {"this_grid", "sync"} <= self.names


# What builds a list, dict or set (also in a comprehension's own code), and the GPU compiler's
# message refusing it.
_CONTAINER_OPCODES = {
    "BUILD_LIST": "lists", "LIST_APPEND": "lists", "LIST_EXTEND": "lists",
    "BUILD_MAP": "dicts", "BUILD_CONST_KEY_MAP": "dicts", "MAP_ADD": "dicts",
    "BUILD_SET": "sets", "SET_ADD": "sets", "SET_UPDATE": "sets",
}
_LIST_ADVICE = " (use a tuple, or a local array: gpu.local.array)"


def _refuse_lists(pyfunc, code):
    """The GPU compiler's UnsupportedError for a kernel or device function that makes a list,
    dict or set, at the line that makes it, so that the simulator refuses what the GPU refuses."""
    line = code.co_firstlineno
    for ins in dis.get_instructions(code):
        if isinstance(ins.argval, types.CodeType):
            _refuse_lists(pyfunc, ins.argval)
        if ins.positions and ins.positions.lineno:
            line = ins.positions.lineno
        what = _CONTAINER_OPCODES.get(ins.opname)
        if what or ins.opname == "PUSH_EXC_INFO":     # an except or finally block's start
            from ...errors import UnsupportedError
            text = ("try/except and try/finally are not supported in GPU kernels and device "
                    "functions" if not what else f"{what} are not supported in GPU kernels"
                    f"{_LIST_ADVICE if what == 'lists' else ''}")
            raise UnsupportedError(
                f"{text}\n  in function '{pyfunc.__name__}', file \"{code.co_filename}\", "
                f"line {line}")


def _prepare(pyfunc, memo):
    """Gives pyfunc simulator globals, finds whether it synchronises, and rewrites it if so."""
    key = id(pyfunc)
    if key in memo:
        return memo[key]
    code = pyfunc.__code__
    _refuse_lists(pyfunc, code)
    prep = memo[key] = _Prepared()
    g = dict(pyfunc.__globals__)
    cells = list(pyfunc.__closure__ or ())
    names = _code_names(code)
    sync = bool(names & I.SYNC_ATTRIBUTES)
    prep.names = frozenset(names)
    callees = {}              # name -> _Prepared of a function it calls that synchronises
    intrinsics = set()        # names bound to barrier/warp intrinsics
    values = [(n, g[n], None) for n in names if n in g]
    for n, (name, cell) in enumerate(zip(code.co_freevars, cells)):
        try:
            values.append((name, cell.cell_contents, n))
        except ValueError:
            continue
        cells[n] = types.CellType(_frozen(cell.cell_contents))   # the user's cell is left alone
    for n in names:
        if n in g:
            g[n] = _frozen(g[n])
    # made before the scan, so that a function calling itself (through g, filled in below)
    # finds its own simulator version
    prep.fn = _function(pyfunc, g, cells)
    closure_changed = bool(cells)
    for name, v, cell_index in values:
        r = _replacement(v, memo)
        if r is not None:
            if cell_index is None:
                g[name] = r[0]
            else:             # a new cell: the user's closure is left alone
                cells[cell_index] = types.CellType(r[0])
                closure_changed = True
            if r[1] is not None and r[1].needs_sync:
                sync = True
                callees[name] = r[1]
            if r[1] is not None:
                prep.names |= r[1].names
        elif id(v) in _SYNC_FUNCS:
            sync = True
            intrinsics.add(name)
    if closure_changed:
        prep.fn = _function(pyfunc, g, cells)
    prep.needs_sync = sync
    if sync:
        prep.gen = _generator(pyfunc, g, cells, callees, intrinsics)
    return prep


def _frozen(value):
    """A global or closure variable as the kernel sees it: read once, when the kernel is first
    launched, as numba-cuda reads them when it compiles (later rebinding is not seen); a NumPy
    array is copied then, read-only, as the GPU path freezes it into the kernel's constants."""
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.flags.writeable = False
    return value


def _function(pyfunc, g, cells):
    fn = types.FunctionType(pyfunc.__code__, g, pyfunc.__name__, pyfunc.__defaults__,
                            tuple(cells) or None)
    fn.__kwdefaults__ = pyfunc.__kwdefaults__
    fn.__qualname__ = pyfunc.__qualname__
    return fn


def _generator(pyfunc, g, cells, callees, intrinsics):
    """The generator version of pyfunc (transform.py), or None where it cannot be made."""
    g = dict(g)
    cells = list(cells)
    freevars = pyfunc.__code__.co_freevars
    for name, callee in callees.items():
        if callee.gen is None:
            return None
        if name in freevars:
            cells[freevars.index(name)] = types.CellType(callee.gen)
        else:
            g[name] = callee.gen

    def classify(call):
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr in I.SYNC_ATTRIBUTES:
            return "yield"
        if isinstance(f, ast.Name):
            if f.id in intrinsics:
                return "yield"
            if f.id in callees:
                return "yield from"
        return None

    def is_sync_ref(node):
        if isinstance(node, ast.Attribute):
            return node.attr in I.SYNC_ATTRIBUTES
        return node.id in intrinsics or node.id in callees

    return transform.make_generator(pyfunc, g, cells, classify, is_sync_ref)


def _replacement(v, memo):
    """What a global of a kernel becomes in the simulator: (new value, its _Prepared or None),
    or None to leave it."""
    if v is _math_real:
        return I.math_module, None
    if isinstance(v, types.BuiltinFunctionType) and getattr(v, "__module__", None) == "math":
        return getattr(I.math_module, v.__name__, v), None
    if isinstance(v, types.ModuleType) and v.__name__ in ("pyjit.gpu.random", "pyjit.cuda.random"):
        from . import random   # gpu.random's functions as the simulator's device functions
        return random, None
    if isinstance(v, DeviceFunction) or _is_dispatcher(v) or \
            (isinstance(v, Kernel) and v.signature is None):
        # an @njit function runs as its Python, as a device function; so does a kernel without
        # a signature, which numba-cuda compiles as a device function where a kernel calls it
        p = _prepare(v.py_func, memo)
        return (_CalledKernel(p.fn, v.__qualname__) if isinstance(v, Kernel) else p.fn), p
    if isinstance(v, types.FunctionType) and not (v.__module__ or "").startswith("pyjit."):
        p = _prepare(v, memo)    # a plain helper: scanned (and given float32 math) like a device fn
        return p.fn, p
    return None


class _CalledKernel:
    """A kernel as the kernels that use it see it: called, it runs as a device function;
    launched, it is refused as on the GPU (a kernel launching kernels is not supported)."""

    __slots__ = ("fn", "name")

    def __init__(self, fn, name):
        self.fn = fn
        self.name = name

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __getitem__(self, cfg):
        from ...errors import TypingError
        raise TypingError(f"{self.name} is a kernel: kernels are launched from the host only (a "
                          "kernel launching kernels, dynamic parallelism, is not supported)")


def _is_dispatcher(v):
    """An @njit function (which kernels call on the GPU too, as pyjit.gpu.random's)."""
    from ... import _core
    return isinstance(v, _core.Dispatcher)


import math as _math_real  # noqa: E402 - compared against by identity above


def _code_names(code):
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


# --- launch configuration -------------------------------------------------------------------

def _dim3(value, what, limits, kname):
    """(x, y, z) from an int or a tuple of 1 to 3 ints; the errors as the GPU path gives them:
    ValueError for a wrong count or range, TypeError for a wrong type, the kernel named."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        dims = (int(value),)
    elif isinstance(value, (tuple, list)):
        if not 1 <= len(value) <= 3:
            raise ValueError(f"kernel '{kname}': {what} must be an int or a tuple of 1 to 3 "
                             f"ints, not a tuple of {len(value)}")
        dims = tuple(value)
    else:
        raise TypeError(f"kernel '{kname}': {what} must be an int or a tuple of 1 to 3 ints, "
                        f"got {value!r}")
    out = []
    for d, lim, axis in zip(dims, limits, "xyz"):
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"kernel '{kname}': {what}.{axis} must be an int, got {d!r} "
                            f"({type(d).__name__})")
        if not 1 <= d <= lim:
            raise ValueError(f"kernel '{kname}': {what}.{axis} = {d} is not in the allowed "
                             f"range 1..{lim}")
        out.append(int(d))
    return tuple(out) + (1,) * (3 - len(out))


def _config(kernel, cfg):
    if not isinstance(cfg, tuple) or not 2 <= len(cfg) <= 4:
        raise ValueError(f"kernel '{kernel.__name__}': launch configuration must be [griddim, "
                         f"blockdim] or [griddim, blockdim, stream, sharedmem], got {cfg!r}")
    griddim = _dim3(cfg[0], "griddim", MAX_GRID, kernel.__name__)
    blockdim = _dim3(cfg[1], "blockdim", MAX_BLOCK, kernel.__name__)
    n = blockdim[0] * blockdim[1] * blockdim[2]
    if n > MAX_THREADS:
        raise ValueError(f"kernel '{kernel.__name__}': a block of {blockdim} has {n} threads; "
                         f"the limit is {MAX_THREADS} threads per block")
    stream = cfg[2] if len(cfg) > 2 else 0
    sharedmem = cfg[3] if len(cfg) > 3 else 0
    if not isinstance(sharedmem, (int, np.integer)) or sharedmem < 0:
        raise ValueError(f"sharedmem must be a byte count >= 0, got {sharedmem!r}")
    if sharedmem > I.MAX_SHARED_BYTES:
        raise ValueError(f"kernel '{kernel.__name__}': sharedmem={sharedmem} bytes is over the "
                         f"limit of {I.MAX_SHARED_BYTES} bytes of shared memory per block")
    return griddim, blockdim, stream, int(sharedmem)


class _Launcher:
    __slots__ = ("kernel", "griddim", "blockdim", "stream", "sharedmem")

    def __init__(self, kernel, griddim, blockdim, stream, sharedmem):
        self.kernel = kernel
        self.griddim = griddim
        self.blockdim = blockdim
        self.stream = stream
        self.sharedmem = sharedmem

    def __call__(self, *args):
        _launch(self.kernel, self.griddim, self.blockdim, self.sharedmem, args)
        try:
            self.kernel._launched.add(_launch_types(args))   # inspect_asm's versions
        except (TypeError, ValueError):
            pass    # arguments only the interpreter takes: no PTX version to show


# --- kernels and device functions -----------------------------------------------------------

class Kernel(LaunchForms):
    """A @gpu.jit kernel: launch it with kernel[griddim, blockdim, stream, sharedmem](*args)."""

    def __init__(self, py_func, signature=None, **options):
        self.py_func = py_func
        self.signature = signature
        self.options = options
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self._prep = None
        self._returns_checked = False
        self._launched = set()     # the argument types launched with (inspect_asm's versions)
        code = py_func.__code__
        self._argnames = code.co_varnames[:code.co_argcount]

    def __getitem__(self, cfg):
        launcher = _Launcher(self, *_config(self, cfg))
        block = launcher.blockdim
        _kernel_options.check_block(self.__name__, self.options.get("launch_bounds"),
                                    block[0] * block[1] * block[2])
        return launcher

    def __call__(self, *args, **kwargs):
        if S.active:      # called from a running kernel: the compiled backends' TypingError
            from ...errors import TypingError
            raise TypingError(f"{self.__qualname__} is a kernel: kernels are launched from the "
                              "host only (a kernel launching kernels, dynamic parallelism, is "
                              "not supported); make it @gpu.jit(device=True) to call it from "
                              "a kernel")
        return LaunchForms.__call__(self, *args, **kwargs)

    def specialize(self, *args):
        """This kernel for the types of args only, as the compiled backend's: a launch with
        arguments of other types is a TypeError."""
        return SpecializedKernel(self, _launch_types, args)

    @property
    def overloads(self):
        """{signature: version}, as numba-cuda's: here each version is the one Python kernel."""
        return _Overloads(self)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The most blocks of blockdim threads a kernel that syncs its grid may be launched with
        (all of them must run at once): the simulated sm_90 GPU's occupancy."""
        return _co_resident_blocks(_threads_of(blockdim), dynsmemsize)

    def prepared(self):
        if self._prep is None:
            self._prep = _prepare(self.py_func, {})
        return self._prep

    def inspect_types(self, file=None):
        print(f"{self.__name__}: runs in the pyjit simulator (no typed IR)", file=file)

    def _versions(self):
        from ... import types as _types
        if self.signature is not None:
            return [_types._canonical_signature(sig)[0] for sig in
                    (self.signature if isinstance(self.signature, list) else [self.signature])]
        return sorted(self._launched)

    def __reduce__(self):
        return _serialize.reduce(self)

    def __repr__(self):
        return f"<pyjit simulated kernel {self.__qualname__}>"


class DeviceFunction:
    """A @gpu.jit(device=True) function: called from kernels (or from the host, in Python)."""

    def __init__(self, py_func, signature=None, **options):
        self.py_func = py_func
        self.signature = signature
        self.options = options
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self._prep = None

    def __call__(self, *args, **kwargs):
        if self._prep is None:
            self._prep = _prepare(self.py_func, {})
        return self._prep.fn(*args, **kwargs)

    def __reduce__(self):
        return _serialize.reduce(self)

    def __repr__(self):
        return f"<pyjit simulated device function {self.__qualname__}>"


def jit(func_or_sig=None, device=False, debug=None, fastmath=False, **options):
    """@gpu.jit, @gpu.jit('void(float32[:])'), @gpu.jit(device=True): as numba.cuda.jit, with
    the options the compiled path takes (pyjit/gpu/_options.py), checked the same way."""
    opts = dict(_kernel_options.check(options, device, debug), debug=debug, fastmath=fastmath)
    if opts["link"]:      # CUDA C for the CPU: its functions are declare_device's to call
        from .._link import host_libraries
        host_libraries(opts["link"])

    def wrap(f, sig=None):
        if isinstance(f, (Kernel, DeviceFunction)):
            f = f.py_func
        if not isinstance(f, types.FunctionType):
            raise TypeError(f"gpu.jit expects a Python function, got {type(f).__name__}")
        cls = DeviceFunction if device else Kernel
        return _serialize.record(cls(f, sig, **opts), f, jit, () if sig is None else (sig,),
                                 dict(opts, device=device))

    if isinstance(func_or_sig, (types.FunctionType, Kernel, DeviceFunction)):
        return wrap(func_or_sig)
    sig = func_or_sig
    return lambda f: wrap(f, sig)


class DeclaredDevice:
    """gpu.declare_device in the simulator: a device function of CUDA C, compiled for the CPU
    on its first call and called through ctypes in numba-cuda's ABI (pyjit/gpu/_link.py)."""

    def __init__(self, name, signature, link=None, abi="numba"):
        from .._link import check_abi, check_host_files
        self.name = self.__name__ = name
        self.signature = signature
        self.abi = check_abi(name, abi)
        self.link = tuple(_kernel_options.link_files(link)) if link else ()
        check_host_files(self.link)
        self._call = None

    def __call__(self, *args):
        if self._call is None:
            from .._link import host_function
            self._call = host_function(self.name, self.signature, self.link, self.abi)
        return self._call(*args)


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """numba-cuda's cuda.declare_device: foreign CUDA C the simulated kernels call, in
    numba-cuda's ABI or (abi="c") the C ABI."""
    return DeclaredDevice(name, sig, link, abi)


class Reduce:
    """gpu.reduce: a reduction over a 1-D array with a binary function (numba-cuda's API)."""

    def __init__(self, functor):
        self.py_func = getattr(functor, "py_func", functor)
        self.__name__ = self.py_func.__name__
        self._fn = None

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        if self._fn is None:
            self._fn = _prepare(self.py_func, {}).fn
        data = arr._ary if isinstance(arr, DeviceNDArray) else np.asarray(arr)
        if data.ndim != 1:
            raise TypeError(f"reduce '{self.__name__}': expected a 1-D array, got {data.ndim}-D")
        data = data[: data.size if size is None else size]
        acc = data.dtype.type(init)
        for v in data:                     # pairs in order; a GPU combines them as a tree
            acc = self._fn(acc, v)
        if res is None:
            return acc
        (res._ary if isinstance(res, DeviceNDArray) else res)[0] = acc
        return None


def reduce(functor):
    return Reduce(functor)


class Vectorized:
    """A ufunc for the GPU (vectorize(..., target='cuda')): elementwise, with broadcasting.

    Device-array inputs give a device-array result; `out=` may be given.
    """

    def __init__(self, py_func, signatures):
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self._sigs = [_parse_signature(sg) for sg in signatures]
        self._fn = None

    def __call__(self, *args, out=None, stream=0):
        if self._fn is None:
            self._fn = _prepare(self.py_func, {}).fn
        on_device = any(isinstance(a, DeviceNDArray) for a in args)
        arrays = [a._ary if isinstance(a, DeviceNDArray) else np.asarray(a) for a in args]
        ret, argtypes = self._choose(arrays)
        if argtypes:
            arrays = [a.astype(t, copy=False) for a, t in zip(arrays, argtypes)]
        parts = np.broadcast_arrays(*arrays)
        flat = [p.ravel() for p in parts]
        n = parts[0].size if parts else 1
        vals = [self._fn(*(f[k] for f in flat)) for k in range(n)]
        dtype = ret or (np.asarray(vals[0]).dtype if vals else np.float64)
        result = np.array(vals, dtype=dtype).reshape(parts[0].shape if parts else ())
        if out is not None:
            (out._ary if isinstance(out, DeviceNDArray) else out)[...] = result
            return out
        return DeviceNDArray(result) if on_device else result

    def _choose(self, arrays):
        for ret, argtypes in self._sigs:
            if argtypes and len(argtypes) == len(arrays) and all(
                    np.dtype(t) == a.dtype for t, a in zip(argtypes, arrays)):
                return ret, argtypes
        return self._sigs[0] if self._sigs else (None, None)


def vectorize(signatures=None, target="cuda", **options):
    """@vectorize(['float32(float32, float32)'], target='cuda'), run in the simulator."""
    if isinstance(signatures, types.FunctionType):
        return Vectorized(signatures, [])
    if isinstance(signatures, str):
        signatures = [signatures]
    return lambda f: Vectorized(f, list(signatures or []))


def _parse_signature(sig):
    """('float32', ['float32', 'float32']) from 'float32(float32, float32)', (None, [...]) from
    '(int16, int16)' (the result's type is the values'), or (None, None)."""
    if not isinstance(sig, str) or "(" not in sig:
        return None, None
    ret = sig[: sig.index("(")].strip()
    args = [a.strip() for a in sig[sig.index("(") + 1: sig.rindex(")")].split(",") if a.strip()]
    cast = _SCALAR_CASTS.get
    if (ret and cast(ret) is None) or any(cast(a) is None for a in args):
        return None, None
    return cast(ret) if ret else None, [cast(a) for a in args]


_SCALAR_CASTS = {
    "float32": np.float32, "f4": np.float32, "float64": np.float64, "f8": np.float64,
    "float16": np.float16, "f2": np.float16, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "i4": np.int32, "int64": np.int64, "i8": np.int64, "uint8": np.uint8,
    "uint16": np.uint16, "uint32": np.uint32, "u4": np.uint32, "uint64": np.uint64,
    "u8": np.uint64, "complex64": np.complex64, "c8": np.complex64, "complex128": np.complex128,
    "c16": np.complex128, "boolean": np.bool_, "bool_": np.bool_, "b1": np.bool_,
}


# --- launching ------------------------------------------------------------------------------

def _kernel_arg(value, name):
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise TypeError(f"argument '{name}' is an array of Python objects: kernels take "
                            "arrays of numbers")
        _gpu_typeof(value, name)
        return checked(value, name)
    if isinstance(value, DeviceNDArray):
        if value._record:              # to_device(record): the record, in place
            return RecordArg(value._ary[()])
        return checked(value._ary, name)
    if isinstance(value, (In, Out, InOut)):
        return _kernel_arg(value.array, name)
    if isinstance(value, np.void) and value.dtype.names is not None:
        _gpu_typeof(value, name)
        return RecordArg(value)        # fields by attribute too, written through
    if isinstance(value, float):
        return np.float64(value)       # a float argument is a float64 on the GPU, not weak
    if isinstance(value, complex):
        return np.complex128(value)
    if hasattr(value, "__cuda_array_interface__") and not isinstance(value, CheckedArray):
        from .arrays import as_cuda_array
        return checked(as_cuda_array(value)._ary, name)
    if isinstance(value, (list, dict, set, str, bytes)):
        raise TypeError(f"argument '{name}' is a {type(value).__name__}: kernels take numbers, "
                        "tuples, NumPy arrays and device arrays")
    if isinstance(value, tuple) and any(isinstance(v, (np.ndarray, DeviceNDArray, tuple))
                                        for v in value):
        # a tuple of arrays (device arrays too), as a compiled launch takes it: each item checked
        items = [_kernel_arg(v, f"{name}[{i}]") for i, v in enumerate(value)]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if not isinstance(value, CheckedArray):
        _gpu_typeof(value, name)
    return value


def _gpu_typeof(value, name):
    """Refuses what a compiled launch refuses (datetime64, structured and non-native byte order
    arrays, arbitrary objects): the TypeError of the compiled path's argument typing."""
    from ... import _core
    if isinstance(value, tuple) and any(isinstance(v, np.void) for v in value):
        raise TypeError(f"argument '{name}': a tuple holding a NumPy record cannot be a kernel "
                        "argument: pass the record as an argument of its own")
    try:
        _core.typeof(value, True)
    except TypeError as e:
        raise TypeError(str(e).replace("typeof() argument 'value' (position 1)",
                                       f"argument '{name}'", 1)) from None


# --- cooperative launches: a kernel that syncs its grid (gpu.cg) ------------------------------

# The simulated GPU's multiprocessors hold at most this many threads, blocks and bytes of shared
# memory each (sm_90); registers, which also limit a real GPU, are not modelled.
SM_THREADS, SM_BLOCKS, SM_SHARED = 2048, 32, 228 * 1024


def _co_resident_blocks(threads, sharedmem):
    per_sm = min(SM_BLOCKS, SM_THREADS // threads, SM_SHARED // max(int(sharedmem), 1))
    return per_sm * host.Device.MULTIPROCESSOR_COUNT


def _check_co_resident(kernel, griddim, blockdim, sharedmem):
    blocks = griddim[0] * griddim[1] * griddim[2]
    threads = blockdim[0] * blockdim[1] * blockdim[2]
    most = _co_resident_blocks(threads, sharedmem)
    if blocks > most:
        raise ValueError(f"kernel '{kernel.__name__}' syncs its grid (gpu.cg.this_grid().sync()), "
                         f"so all its blocks must run at once: a grid of {blocks} blocks of "
                         f"{threads} threads is more than the {most} GPU 0 holds together "
                         "(kernel.max_cooperative_grid_blocks(blockdim) gives that limit)")


def _launch_types(args):
    """The type names the compiled backend's launch gives args."""
    from ... import _core

    def host(a):
        a = a.array if isinstance(a, (In, Out, InOut)) else a
        if isinstance(a, tuple):
            items = [host(v) for v in a]
            return type(a)(*items) if hasattr(a, "_fields") else tuple(items)
        if isinstance(a, DeviceNDArray):
            return a._ary[()] if a._record else a._ary
        return a
    return tuple(_core.typeof(host(a), True).replace("weak ", "") for a in args)


class _Overload(VersionCode):
    """kernel.overloads[signature]: a compiled version, as numba-cuda's _Kernel."""

    def __init__(self, kernel, argtypes=None):
        self.kernel = kernel
        self.argtypes = argtypes

    @property
    def cooperative(self):
        """Whether the kernel syncs its grid (it is then launched cooperatively on a GPU)."""
        return self.kernel.prepared().grid_sync

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        return self.kernel.max_cooperative_grid_blocks(blockdim, dynsmemsize)


def _Overloads(kernel):
    return Overloads(kernel, _Overload, kernel._versions)


def _launch(kernel, griddim, blockdim, sharedmem, args):
    names = kernel._argnames
    args = with_defaults(kernel.py_func, args)
    if len(args) != len(names):
        raise TypeError(f"kernel '{kernel.__name__}' takes {len(names)} argument(s) "
                        f"({', '.join(names)}), {len(args)} given")
    if kernel.signature is not None:
        args = signature_args(kernel, args, _launch_types)
    try:
        kargs = [_kernel_arg(a, n) for a, n in zip(args, names)]
    except TypeError as e:
        raise TypeError(f"kernel '{kernel.__name__}': {e}") from None
    _check_no_return_value(kernel)
    _check_literal_args(kernel, args, names)
    prep = kernel.prepared()
    if prep.grid_sync:
        _check_co_resident(kernel, griddim, blockdim, sharedmem)
    with _launch_lock:
        if S.active:
            raise RuntimeError(f"kernel '{kernel.__name__}' launched from inside a running "
                               "kernel: dynamic parallelism is not supported")
        _begin(kernel, griddim, blockdim, sharedmem)
        try:
            _run(prep, kargs, griddim, blockdim, kernel.__name__,
                 kernel.options.get("error_model") == "numpy")
        except BaseException as exc:
            exc = _zero_division(exc)
            _annotate(exc, kernel.__name__)
            raise exc.with_traceback(_kernel_traceback(exc.__traceback__))
        finally:
            S.active = False
            S.shared = {}
            S.const_cache = {}
            S.dyn_shared = None


def _zero_division(exc):
    """A NumPy scalar's division by zero, made to raise by _run, as the compiled kernel raises
    it: a ZeroDivisionError."""
    if isinstance(exc, FloatingPointError) and "divide by zero" in str(exc):
        zde = ZeroDivisionError("division by zero")
        zde.__traceback__ = exc.__traceback__
        return zde
    return exc


def _run(prep, kargs, griddim, blockdim, name, numpy_errors=False):
    # integer arithmetic wraps silently, as on the GPU (NumPy's scalars would warn); a division
    # by zero raises, as the compiled kernel's does under Python's error model (not NumPy's)
    S.numpy_errors = numpy_errors
    with np.errstate(over="ignore", divide="ignore" if numpy_errors else "raise",
                     invalid="ignore" if numpy_errors else "warn"):
        nwarps = (blockdim[0] * blockdim[1] * blockdim[2] + 31) // 32
        if prep.gen is not None:
            scheduler.run_concurrent(prep.gen, kargs, griddim, blockdim, nwarps, name,
                                     generator=True)
        elif prep.needs_sync:
            scheduler.run_concurrent(prep.fn, kargs, griddim, blockdim, nwarps, name)
        else:
            scheduler.run_sequential(prep.fn, kargs, griddim, blockdim, nwarps)


def _returns_value(code):
    """Whether a code object has a `return` of something other than None (from its bytecode:
    a bare or missing return is a return of the constant None)."""
    import dis
    prev = None
    for ins in dis.get_instructions(code):
        if ins.opname == "RETURN_CONST" and ins.argval is not None:
            return True
        if ins.opname == "RETURN_VALUE" and not (prev is not None and prev.opname == "LOAD_CONST"
                                                 and prev.argval is None):
            return True
        prev = ins
    return False


def _check_no_return_value(kernel):
    """A kernel returning a value is a TypingError before any thread runs, as on the GPU."""
    if getattr(kernel, "_returns_checked", False):
        return
    if _returns_value(kernel.py_func.__code__):
        from ...errors import TypingError
        raise TypingError(f"kernel '{kernel.__name__}': a kernel cannot return a value; write "
                          "results into an array argument, or use @gpu.jit(device=True) for a "
                          "function that kernels call")
    kernel._returns_checked = True


def _check_literal_args(kernel, args, names):
    """An argument the kernel calls literally() on is compiled for each of its values, which
    must be ints, bools or strs: any other is the compiled path's TypingError."""
    from .intrinsics import _literal_params
    wanted = getattr(kernel, "_literal_names", None)
    if wanted is None:
        wanted = kernel._literal_names = _literal_params(kernel.py_func.__code__)
    for value, name in zip(args, names):
        if name in wanted and not isinstance(value, (int, str, np.integer, np.bool_)):
            from ...errors import TypingError
            raise TypingError(f"kernel '{kernel.__name__}' calls literally() on its argument "
                              f"'{name}', so it is compiled for each value of it; that takes an "
                              "int, a bool or a str, not the value given")


def _begin(kernel, griddim, blockdim, sharedmem):
    S.active = True
    S.kernel = kernel.__name__
    S.sharedmem = sharedmem
    S.racecheck = racecheck_enabled()
    S.const_cache = {}
    gridDim.x, gridDim.y, gridDim.z = griddim
    blockDim.x, blockDim.y, blockDim.z = blockdim


def _annotate(exc, kernel):
    """Puts the kernel, thread and block in front of the message of an exception from a thread."""
    if isinstance(exc, (scheduler.BarrierError, KeyboardInterrupt, SystemExit)):
        return
    thread = (threadIdx.x, threadIdx.y, threadIdx.z)
    block = (blockIdx.x, blockIdx.y, blockIdx.z)
    prefix = f"kernel '{kernel}', thread {thread}, block {block}: "
    try:
        exc.pyjit_thread, exc.pyjit_block, exc.pyjit_kernel = thread, block, kernel
    except AttributeError:
        pass
    if exc.args and isinstance(exc.args[0], str):
        exc.args = (prefix + exc.args[0],) + exc.args[1:]
    elif not exc.args:
        exc.args = (prefix[:-2],)
    else:
        exc.add_note(prefix[:-2])


def _kernel_traceback(tb):
    """The traceback without the simulator's frames: from the kernel to where it failed."""
    kept = []
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_HERE):
            kept.append(tb)
        tb = tb.tb_next
    if not kept:
        return None
    for a, b in zip(kept, kept[1:]):
        a.tb_next = b
    kept[-1].tb_next = None
    return kept[0]
