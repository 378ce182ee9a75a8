"""GPU ufuncs and reductions: vectorize / guvectorize (target='cuda') and gpu.reduce.

The user writes the scalar function; this module writes the kernel around it as Python source
and compiles that with the backend's own @gpu.jit, the user's function becoming a device function
inlined into it. So the same code runs on the hardware backend (PTX) and in the simulator.

    elementwise, contiguous:  a grid-stride loop over flat 1-d views, UNROLL consecutive
                              elements a thread an iteration with every load issued before the
                              stores (loads in flight are what a memory-bound kernel's bandwidth
                              needs), 128-bit accesses where the arrays are 16-byte aligned
    elementwise, otherwise:   an n-d kernel over views of the broadcast shape; a broadcast input
                              is a view with stride 0, so nothing is materialised
    scalars:                  kernel scalar arguments, never arrays
    reduce:                   a grid-stride loop into 4 accumulators a thread (128-bit loads
                              where aligned, 8 loads in flight), then a per-block tree (warp
                              shuffles, shared memory); a second one-block launch over the
                              per-block values when more than one block, `init` folded in there

Type resolution is NumPy's: the first signature every input casts to safely (a Python scalar is
weak, as NEP 50 has it). Without signatures a version is compiled per input dtypes on first use.
"""
import functools
import linecache

import numpy as np

from .._cache import blake2b

__all__ = ["vectorize", "guvectorize", "reduce", "Reduce", "Vectorized", "GUVectorized"]

# The flat kernel's shape, from sweeps on an H200 (saxpy with out=, 2^26 float32 device arrays,
# median of 20 samples of 10 calls timed with events; Triton's saxpy 4292-4315 GB/s there):
# one group of 4 consecutive elements a thread (128-bit loads and stores) and a block for every
# THREADS * 4 elements, so each thread runs its loop once: 4297 GB/s; the same grid-stride
# with at most 4 blocks an SM 4160, 2 groups an iteration 3980-4276, 4 scalar elements a
# thread strided by the grid (no 128-bit accesses) 4000-4070.
UNROLL = 4            # consecutive elements a group of the flat kernel (one 128-bit access)
GROUPS = 1            # groups a thread an iteration of the flat kernel
THREADS = 256         # threads a block
BLOCKS_PER_SM = None  # at most this many blocks an SM (the rest by grid-stride); None: no cap
REDUCE_THREADS = 256
REDUCE_UNROLL = 4       # accumulators a thread of the reduction: element u of a group goes to a[u]
REDUCE_GROUPS = 2       # groups of REDUCE_UNROLL elements a thread loads an iteration
REDUCE_BLOCKS_PER_SM = 4
_REDUCE_BUFFERS = 8     # per-block value buffers a Reduce keeps (per device, dtype and stream)
_SHUFFLE_DTYPES = {"int32", "int64", "uint32", "uint64", "float32", "float64"}
_WEAK = (bool, int, float, complex)


def _default_backend():
    from . import _load_backend
    return _load_backend()


def _is_simulator(backend):
    return backend.__name__.endswith("simulator")


def _source_function(name, source, namespace):
    """The function `name` defined by source, which linecache keeps so errors can show it. Its
    file is named by the source's hash, the same in every process: the on-disk cache's key
    includes it."""
    digest = blake2b(source.encode(), digest_size=8).hexdigest()
    filename = f"<pyjit gpu ufunc {digest}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)   # noqa: S102 - our own generated source
    return namespace[name]


def _cached_kernel(backend, fn, user_func, options):
    """cache=True: the generated kernel is stored on disk as @gpu.jit(cache=True) kernels are,
    beside the user function's source file and named after it (pyjit/_cache.py)."""
    if options.get("cache"):
        fn._pyjit_cache_source = user_func.__code__.co_filename
        fn.__qualname__ = f"{user_func.__qualname__}.{fn.__name__}"
    return backend.jit(**options)(fn)


def _pyjit_type(dtype):
    from .. import types
    return types._SCALARS[np.dtype(dtype).name]


def _nparams(func):
    code = getattr(func, "py_func", func).__code__
    if code.co_flags & 0x0C:
        raise TypeError(f"{code.co_name}(): a GPU ufunc takes a fixed number of arguments")
    return code.co_argcount


# ---- operands ----

class _Operand:
    """One argument of a call: kind 'weak' (Python scalar), 'scalar' (NumPy scalar), 'host'
    (NumPy array) or 'dev' (a device array of the backend)."""

    __slots__ = ("kind", "value", "dtype", "shape")

    def __init__(self, kind, value, dtype, shape=()):
        self.kind, self.value, self.dtype, self.shape = kind, value, dtype, shape


def _is_device(backend, obj):
    if isinstance(obj, np.ndarray):
        return False
    if isinstance(obj, backend.DeviceNDArray) or hasattr(obj, "__cuda_array_interface__"):
        return True
    dev = getattr(obj, "__dlpack_device__", None)
    return dev is not None and dev()[0] in (2, 13)     # kDLCUDA, kDLCUDAManaged


def _operand(backend, obj):
    if isinstance(obj, _WEAK) and not isinstance(obj, np.generic):
        return _Operand("weak", obj, np.asarray(obj).dtype)
    if isinstance(obj, np.generic):
        return _Operand("scalar", obj, obj.dtype)
    if _is_device(backend, obj):
        d = backend.as_cuda_array(obj)
        return _Operand("dev", d, np.dtype(d.dtype), tuple(d.shape))
    a = np.asarray(obj)
    if a.ndim == 0:
        return _Operand("scalar", a[()], a.dtype)
    return _Operand("host", a, a.dtype, a.shape)


def _can_cast(op, dtype):
    """NumPy's safe casting, with Python scalars weak (NEP 50)."""
    if op.kind != "weak":
        return np.can_cast(op.dtype, dtype, "safe")
    v = op.value
    if isinstance(v, bool):
        return True
    if isinstance(v, int):
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return info.min <= v <= info.max
        return dtype.kind in "fc"
    return dtype.kind in ("fc" if isinstance(v, float) else "c")


def _weak_dtype(op, ops):
    """The dtype a Python scalar takes among these operands (NumPy's result_type, NEP 50)."""
    typed = [o.dtype for o in ops if o.kind != "weak"]
    return np.result_type(*typed, op.value) if typed else op.dtype


class _View:
    """A __cuda_array_interface__ over another device array's memory with a new geometry
    (stride 0 for broadcast dimensions); it keeps that array alive."""

    def __init__(self, base, shape, strides):
        cai = base.__cuda_array_interface__
        self.base = base
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "strides": tuple(strides), "typestr": cai["typestr"],
            "data": (cai["data"][0], False), "version": 3, "stream": None}


def _strides(d):
    return tuple(d.strides)


def _broadcast_view(backend, d, shape):
    """d seen with the broadcast shape: stride 0 where d has no dimension or size 1."""
    if tuple(d.shape) == tuple(shape):
        return d
    own = _strides(d)
    pad = len(shape) - d.ndim
    strides = [0] * pad + [0 if n == 1 and m != 1 else s
                           for n, m, s in zip(d.shape, shape[pad:], own)]
    return backend.as_cuda_array(_View(d, shape, strides))


def _contiguous(d, order):
    st, size, item = _strides(d), 1, d.dtype.itemsize
    dims = range(d.ndim - 1, -1, -1) if order == "C" else range(d.ndim)
    for k in dims:
        if d.shape[k] != 1 and st[k] != size * item:
            return False
        size *= d.shape[k]
    return True


def _flat(backend, d, n):
    if d.ndim == 1:
        return d
    return backend.as_cuda_array(_View(d, (n,), (d.dtype.itemsize,)))


def _sync(stream):
    if stream and hasattr(stream, "synchronize"):
        stream.synchronize()


def _sm_count(backend):
    try:
        return backend.get_current_device().MULTIPROCESSOR_COUNT
    except Exception:   # noqa: BLE001 - no device here: the launch says why
        return 132


def _launch_shape(backend, n, per_thread):
    if _is_simulator(backend):
        return max(1, min(2, -(-n // 32))), 32
    blocks = -(-n // (THREADS * per_thread))
    if BLOCKS_PER_SM is not None:
        blocks = min(blocks, _sm_count(backend) * BLOCKS_PER_SM)
    return max(1, min(blocks, 2 ** 31 - 1)), THREADS


# ---- kernel sources ----

def _call(nin, scalars, index):
    args = ", ".join(f"__c{k}(x{k})" if k in scalars else f"__c{k}(x{k}[{index}])"
                     for k in range(nin))
    return f"__o(__r(__f({args})))"


def _group_body(nin, scalars, unroll, groups, indent):
    """One iteration of the flat kernel over `groups` groups of `unroll` elements: q, q + sq, ...
    (coalesced across the warp), every load before the first store."""
    pad = " " * indent
    lines = [f"{pad}j{g} = __i64(q + {g} * sq) * {unroll}" if g else f"{pad}j0 = __i64(q) * {unroll}"
             for g in range(groups)]
    count = unroll * groups
    lines += [f"{pad}i{e} = j{e // unroll} + {e % unroll}" for e in range(count)]
    for k in range(nin):
        if k not in scalars:
            lines += [f"{pad}v{k}_{e} = x{k}[i{e}]" for e in range(count)]
    for e in range(count):
        args = ", ".join(f"__c{k}(x{k})" if k in scalars else f"__c{k}(v{k}_{e})"
                         for k in range(nin))
        lines.append(f"{pad}out[i{e}] = __o(__r(__f({args})))")
    return lines + [f"{pad}q += {groups} * sq"]


def _flat_source(nin, scalars, unroll, groups=None):
    """The flat kernel. Element group q is elements unroll * q .. unroll * q + unroll - 1; thread
    i takes groups i, i + gridsize, ..., `groups` of them an iteration, then the last n % unroll
    elements are taken one a thread. The group index is uint32 (n < 2^32 here), so the element
    index int64(q) * unroll + u is known non-negative with its low bits clear: the indexing needs
    no wrap-around of negative indices, and over 16-byte aligned arrays (the launch checks it)
    the back end joins each group into 128-bit loads and stores (ld.global.v4.f32). Larger
    arrays take a plain grid-stride loop."""
    groups = GROUPS if groups is None else groups
    params = ", ".join([f"x{k}" for k in range(nin)] + ["out", "n"])
    lines = [f"def __k({params}):", "    i = __gpu.grid(1)", "    s = __gpu.gridsize(1)",
             "    if n < 4294967296:",
             "        q = __u32(i)",
             "        sq = __u32(s)",
             f"        nq = __u32(n // {unroll})",
             f"        while q + {groups - 1} * sq < nq:" if groups > 1 else "        while q < nq:"]
    lines += _group_body(nin, scalars, unroll, groups, 12)
    if groups > 1:
        lines.append("        while q < nq:")
        lines += _group_body(nin, scalars, unroll, 1, 12)
    lines += [f"        i += n - n % {unroll}",
              "        if i < n:",
              f"            out[i] = {_call(nin, scalars, 'i')}",
              "    else:",
              "        while i < n:",
              f"            out[i] = {_call(nin, scalars, 'i')}",
              "            i += s"]
    return "\n".join(lines) + "\n"


def _nd_source(nin, scalars, ndim):
    params = ", ".join([f"x{k}" for k in range(nin)] + ["out", "n"])
    idx = ", ".join(f"j{d}" for d in range(ndim))
    lines = [f"def __k({params}):", "    i = __gpu.grid(1)", "    s = __gpu.gridsize(1)",
             "    while i < n:", "        r = i"]
    for d in range(ndim - 1, 0, -1):
        lines += [f"        j{d} = r % out.shape[{d}]", f"        r = r // out.shape[{d}]"]
    lines += ["        j0 = r", f"        out[{idx}] = {_call(nin, scalars, idx)}",
              "        i += s"]
    return "\n".join(lines) + "\n"


# ---- @vectorize(target='cuda') ----

class Vectorized:
    """A GPU ufunc: elementwise over NumPy arrays, device arrays and scalars, with broadcasting.

    NumPy inputs give a NumPy result (copied back); any device input, or a device `out=`, keeps
    the result on the GPU. `stream=` orders the copies and the launch on that stream."""

    def __init__(self, py_func, signatures, backend=None, **options):
        from .. import types
        self.py_func = getattr(py_func, "py_func", py_func)
        self._backend = backend or _default_backend()
        self.nin = _nparams(self.py_func)
        self.nout = 1
        self._sigs = []
        self._cpu = None
        self._reducer = None            # the Reduce behind .reduce, made on first use
        for sig in signatures:
            s = types.parse_signature(sig)
            if len(s.args) != self.nin:
                raise TypeError(f"vectorize(target='cuda'): signature {sig!r} does not fit "
                                f"{self.py_func.__name__}() of {self.nin} argument(s) (write "
                                f"'ret(args)' or '(args)')")
            args = tuple(np.dtype(a.name) for a in s.args)
            ret = (self._inferred_return(args) if s.return_type is None
                   else np.dtype(s.return_type.name))   # '(int16, int16)': Numba infers it
            self._sigs.append((args, ret))
        self._dynamic = not self._sigs
        self._options = {k: v for k, v in options.items() if k in ("fastmath", "debug", "opt")}
        self._device_fn = self._backend.jit(device=True, **self._options)(self.py_func)
        self._options["cache"] = bool(options.get("cache"))
        self._options["error_model"] = "numpy"   # a ufunc's arithmetic is NumPy's
        self._kernels = {}
        functools.update_wrapper(self, self.py_func)

    @property
    def types(self):
        return [("".join(d.char for d in a) + "->" + r.char) for a, r in self._sigs]

    def __repr__(self):
        return f"<pyjit.gpu ufunc '{self.__name__}'>"

    # -- type resolution --

    def _resolve(self, ops):
        if self._dynamic:
            return self._compile_types(ops)
        for args, ret in self._sigs:
            if all(_can_cast(o, d) for o, d in zip(ops, args)):
                return args, ret
        names = ", ".join(str(o.dtype) if o.kind != "weak" else type(o.value).__name__
                          for o in ops)
        raise TypeError(f"ufunc '{self.__name__}' not supported for the input types ({names}): "
                        f"no signature they cast to safely among {self.types}")

    def _compile_types(self, ops):
        args = tuple(_weak_dtype(o, ops) if o.kind == "weak" else o.dtype for o in ops)
        for known, ret in self._sigs:
            if known == args:
                return known, ret
        ret = self._inferred_return(args)
        self._sigs.append((args, ret))
        return args, ret

    def _inferred_return(self, args):
        """The dtype the function returns for arguments of these dtypes (the compiler types it)."""
        from ..vectorize import _kernel_of, _kernel_return, _scalar_of
        if self._cpu is None:
            self._cpu = _kernel_of(self.py_func, {})
        scalars = [_scalar_of(d) for d in args]
        return np.dtype(_kernel_return("vectorize", self._cpu, scalars, "").name)

    # -- the call --

    def __call__(self, *args, out=None, stream=0, **kws):
        if kws:
            raise TypeError(f"{self.__name__}() got unexpected keyword(s) "
                            f"{', '.join(sorted(kws))} (a GPU ufunc takes out= and stream=)")
        if len(args) == self.nin + 1 and out is None:
            args, out = args[:-1], args[-1]
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} input(s), got {len(args)}")
        B = self._backend
        ops = [_operand(B, a) for a in args]
        argdt, ret = self._resolve(ops)
        arrays = [o for o in ops if o.kind in ("host", "dev")]
        out_op = _operand(B, out) if out is not None else None
        shape = np.broadcast_shapes(*(o.shape for o in arrays))
        if out_op is not None:
            if out_op.kind not in ("host", "dev") or \
                    np.broadcast_shapes(shape, out_op.shape) != out_op.shape:
                raise ValueError(f"{self.__name__}: out= has shape {out_op.shape}; the "
                                 f"inputs broadcast to {shape}")
            shape = out_op.shape
        on_device = any(o.kind == "dev" for o in arrays) or (
            out_op is not None and out_op.kind == "dev")
        dout = self._run(ops, argdt, ret, shape, out_op, stream)
        if out_op is not None:
            if out_op.kind == "host":
                dout.copy_to_host(out_op.value, stream=stream)
                _sync(stream)
            return out
        if on_device:
            return dout
        host = dout.copy_to_host(stream=stream)
        _sync(stream)
        return host[()] if shape == () else host

    def _run(self, ops, argdt, ret, shape, out_op, stream):
        """Launches the kernel; gives the device array the result is in."""
        B = self._backend
        if out_op is not None and out_op.kind == "dev":
            dout = out_op.value
        else:
            odt = out_op.dtype if out_op is not None else ret
            dout = B.device_array(shape, dtype=odt, stream=stream)
        n = int(np.prod(shape, dtype=np.int64))
        if n == 0:
            return dout
        ins = []
        for o, dt in zip(ops, argdt):
            if o.kind in ("weak", "scalar"):
                ins.append(dt.type(o.value))
            elif o.kind == "host":
                ins.append(B.to_device(np.ascontiguousarray(o.value, dtype=dt), stream=stream))
            else:
                ins.append(o.value)
        scalars = frozenset(k for k, o in enumerate(ops) if o.kind in ("weak", "scalar"))
        self._launch(ins, scalars, argdt, ret, dout, shape, n, stream)
        return dout

    def _launch(self, ins, scalars, argdt, ret, dout, shape, n, stream):
        B = self._backend
        arrays = [ins[k] for k in range(len(ins)) if k not in scalars]
        order = "C" if all(tuple(a.shape) == shape and _contiguous(a, "C")
                           for a in arrays + [dout]) else \
            "F" if all(tuple(a.shape) == shape and _contiguous(a, "F")
                       for a in arrays + [dout]) else None
        if order is not None or len(shape) <= 1 and not any(
                tuple(a.shape) != shape for a in arrays):
            if order is None:        # 1-d, strided: the flat kernel indexes with strides
                views, vout = arrays, dout
            else:
                views = [_flat(B, a, n) for a in arrays]
                vout = _flat(B, dout, n)
            kernel = self._kernel("flat", scalars, argdt, ret, dout.dtype)
            per = UNROLL * GROUPS
        else:
            shp = shape if shape else (1,)
            views = [_broadcast_view(B, a, shp) for a in arrays]
            vout = dout if shape else _flat(B, dout, 1)
            kernel = self._kernel(len(shp), scalars, argdt, ret, dout.dtype)
            per = 1
        it = iter(views)
        kargs = [ins[k] if k in scalars else next(it) for k in range(len(ins))]
        blocks, threads = _launch_shape(B, n, per)
        kernel[blocks, threads, stream](*kargs, vout, n)

    def _kernel(self, shape_kind, scalars, argdt, ret, outdt):
        key = (shape_kind, scalars, argdt, ret, np.dtype(outdt))
        k = self._kernels.get(key)
        if k is None:
            nin = len(argdt)
            src = (_flat_source(nin, scalars, UNROLL) if shape_kind == "flat"
                   else _nd_source(nin, scalars, shape_kind))
            ns = {"__gpu": self._backend, "__f": self._device_fn, "__r": _pyjit_type(ret),
                  "__o": _pyjit_type(outdt), "__u32": _pyjit_type(np.uint32),
                  "__i64": _pyjit_type(np.int64)}
            ns.update({f"__c{i}": _pyjit_type(d) for i, d in enumerate(argdt)})
            fn = _source_function("__k", src, ns)
            k = self._kernels[key] = _cached_kernel(self._backend, fn, self.py_func,
                                                    self._options)
        return k

    def kernel_source(self, flat=True, nin_scalars=(), ndim=1):
        """The Python source of the generated kernel (for inspection and tests)."""
        return (_flat_source(self.nin, frozenset(nin_scalars), UNROLL) if flat
                else _nd_source(self.nin, frozenset(nin_scalars), ndim))

    # -- ufunc methods --

    def reduce(self, array, axis=0, dtype=None, out=None, stream=0):
        """The ufunc's reduction of a 1-d array (axis 0) on the GPU, as np.ufunc.reduce."""
        if self.nin != 2:
            raise ValueError(f"reduce only supported for binary functions ({self.__name__} "
                             f"takes {self.nin})")
        B = self._backend
        op = _operand(B, array)
        if op.kind not in ("host", "dev") or len(op.shape) != 1 or axis not in (0, -1, None):
            raise NotImplementedError(f"{self.__name__}.reduce: only 1-d arrays on axis 0")
        dt = np.dtype(dtype) if dtype is not None else op.dtype
        args, ret = self._resolve([_Operand("scalar", None, dt)] * 2)
        if self._reducer is None:
            self._reducer = Reduce(self.py_func, backend=B)
        red = self._reducer
        if op.shape[0] == 0:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which "
                             f"has no identity")
        data = op.value
        if op.kind == "host" or data.dtype != args[0]:
            host = data if op.kind == "host" else data.copy_to_host()
            data = B.to_device(np.ascontiguousarray(host, dtype=args[0]), stream=stream)
        return red(data, res=out, init=None, stream=stream)


def vectorize(signatures=None, target="cuda", backend=None, **options):
    """@vectorize(['float32(float32, float32)'], target='cuda') and @vectorize(target='cuda'):
    a GPU ufunc; without signatures it compiles for each new set of input dtypes on first use."""
    options.pop("identity", None)
    options.pop("nopython", None)
    if callable(signatures) and hasattr(getattr(signatures, "py_func", signatures), "__code__"):
        return Vectorized(signatures, [], backend, **options)
    if isinstance(signatures, str):
        signatures = [signatures]
    sigs = list(signatures or [])
    return lambda f: Vectorized(f, sigs, backend, **options)


# ---- gpu.reduce ----

def _reduce_group(unroll, groups, nacc, indent):
    """One iteration of the reduction's loop over `groups` groups of `unroll` consecutive
    elements, q, q + sq, ...: every load issued before the first fold (loads in flight are
    what a bandwidth-bound loop needs), element u of a group folded into accumulator u."""
    pad = " " * indent
    lines = [f"{pad}j{g} = __i64(q + {g} * sq) * {unroll}" if g
             else f"{pad}j0 = __i64(q) * {unroll}" for g in range(groups)]
    count = unroll * groups
    lines += [f"{pad}v{e} = x[j{e // unroll} + {e % unroll}]" for e in range(count)]
    lines += [f"{pad}a{e % nacc} = __t(__f(a{e % nacc}, __t(v{e})))" for e in range(count)]
    return lines


def _reduce_source(dtype):
    """A block reduction. Each thread folds its share of x into REDUCE_UNROLL independent
    accumulators: group q is elements 4q .. 4q + 3 (one 128-bit load of float32 where x is
    16-byte aligned, as in the flat kernel), thread i takes groups i, i + gridsize, ...,
    REDUCE_GROUPS of them an iteration; the last n % 4 elements go one a thread. Then warp
    shuffles (or a shared-memory tree for dtypes a shuffle does not move) and the block's
    value goes to part[blockIdx]. Threads holding a value are always a prefix of the grid
    (global index < m), so a lane only folds in a lane it knows holds one; the launch makes
    no block that holds none."""
    T, U, G = REDUCE_THREADS, REDUCE_UNROLL, REDUCE_GROUPS
    first = ", ".join(f"__t(x[j0 + {u}])" for u in range(U))
    accs = ", ".join(f"a{u}" for u in range(U))
    pairs = [f"a{u}" for u in range(U)]
    while len(pairs) > 1:                       # the accumulators folded as a tree
        pairs = [f"__t(__f({pairs[k]}, {pairs[k + 1]}))" for k in range(0, len(pairs), 2)]
    head = [
        "def __red(x, part, n, init, fold):",
        "    tid = __gpu.threadIdx.x",
        "    bid = __gpu.blockIdx.x",
        "    i = __gpu.grid(1)",
        "    s = __gpu.gridsize(1)",
        "    acc = __t(0)",
        "    if n < 4294967296:",
        "        q = __u32(i)",
        "        sq = __u32(s)",
        f"        nq = __u32(n // {U})",
        f"        r = n % {U}",
        "        if q < nq:",
        f"            j0 = __i64(q) * {U}",
        f"            {accs} = {first}",
        "            q += sq",
        f"            while q + {G - 1} * sq < nq:",
    ]
    head += _reduce_group(U, G, U, 16)
    head += [f"                q += {' + '.join(['sq'] * G)}",
             "            while q < nq:"]
    head += _reduce_group(U, 1, U, 16)
    head += [
        "                q += sq",
        f"            acc = {pairs[0]}",
        "        if i < r:",
        "            e = __t(x[n - r + i])",
        "            if i < nq:",
        "                acc = __t(__f(acc, e))",
        "            else:",
        "                acc = e",
        "        m = __i64(nq)",
        "        if r > m:",
        "            m = r",
        "    else:",
        "        m = n",
        "        acc = __t(x[i])",
        "        i += s",
        "        while i < n:",
        "            acc = __t(__f(acc, __t(x[i])))",
        "            i += s",
        f"    v = m - bid * {T}",
        f"    if v > {T}:",
        f"        v = {T}",
    ]
    if np.dtype(dtype).name in _SHUFFLE_DTYPES:
        body = [
            "    sm = __gpu.shared.array(32, __dt)",
            "    lane = tid % 32",
            "    w = tid // 32",
            "    wv = v - w * 32",
            "    off = 16",
            "    while off > 0:",
            "        o = __gpu.shfl_down_sync(0xffffffff, acc, off)",
            "        if lane + off < wv:",
            "            acc = __t(__f(acc, o))",
            "        off = off // 2",
            "    if lane == 0:",
            "        sm[w] = acc",
            "    __gpu.syncthreads()",
            "    if w == 0:",
            "        nw = (v + 31) // 32",
            "        if lane < nw:",
            "            acc = sm[lane]",
            "        off = 16",
            "        while off > 0:",
            "            o = __gpu.shfl_down_sync(0xffffffff, acc, off)",
            "            if lane + off < nw:",
            "                acc = __t(__f(acc, o))",
            "            off = off // 2",
        ]
    else:
        body = [
            f"    sm = __gpu.shared.array({T}, __dt)",
            "    sm[tid] = acc",
            "    __gpu.syncthreads()",
            f"    st = {T // 2}",
            "    while st > 0:",
            "        if tid < st and tid + st < v:",
            "            sm[tid] = __t(__f(sm[tid], sm[tid + st]))",
            "        __gpu.syncthreads()",
            "        st = st // 2",
            "    acc = sm[0]",
        ]
    tail = [
        "    if tid == 0:",
        "        if fold != 0:",
        "            acc = __t(__f(init, acc))",
        "        part[bid] = acc",
    ]
    return "\n".join(head + body + tail) + "\n"


def _reduce_blocks(backend, n):
    """The first pass's grid: a block for every REDUCE_THREADS threads that hold a value (so no
    block holds none), at most REDUCE_BLOCKS_PER_SM an SM (the rest by the grid-stride loop);
    two blocks at most in the simulator."""
    holders = n if n >= 4294967296 else max(n // REDUCE_UNROLL, n % REDUCE_UNROLL)
    blocks = -(-holders // REDUCE_THREADS)
    cap = 2 if _is_simulator(backend) else _sm_count(backend) * REDUCE_BLOCKS_PER_SM
    return max(1, min(blocks, cap))


class Reduce:
    """gpu.reduce(binop): reduces a 1-d array (host or device) on the GPU, as numba-cuda's
    cuda.reduce: r(arr, size=None, res=None, init=0, stream=0). The function must be
    associative and commutative: elements combine as a tree. `init` is folded in once (numba
    does too, so a max over negative numbers needs init=arr[0]); init=None folds nothing."""

    def __init__(self, functor, backend=None):
        self.py_func = getattr(functor, "py_func", functor)
        self._backend = backend or _default_backend()
        self._device_fn = self._backend.jit(device=True)(self.py_func)
        self._kernels = {}
        self._parts = {}
        functools.update_wrapper(self, self.py_func)

    def __repr__(self):
        return f"<pyjit.gpu reduce '{self.__name__}'>"

    def _kernel(self, dtype):
        k = self._kernels.get(dtype)
        if k is None:
            ns = {"__gpu": self._backend, "__f": self._device_fn, "__t": _pyjit_type(dtype),
                  "__dt": _pyjit_type(dtype), "__u32": _pyjit_type(np.uint32),
                  "__i64": _pyjit_type(np.int64)}
            fn = _source_function("__red", _reduce_source(dtype), ns)
            k = self._kernels[dtype] = self._backend.jit(fn)
        return k

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        B = self._backend
        op = _operand(B, arr)
        if op.kind not in ("host", "dev") or len(op.shape) != 1:
            raise TypeError(f"reduce '{self.__name__}': expected a 1-d array, got "
                            f"{len(op.shape) if op.kind in ('host', 'dev') else 0}-d")
        dt = op.dtype
        n = op.shape[0] if size is None else max(0, min(int(size), op.shape[0]))
        data = op.value
        if op.kind == "host":
            data = B.to_device(np.ascontiguousarray(data[:n]), stream=stream)
        elif n != op.shape[0]:
            data = data[:n]
        dres = res if res is not None else B.device_array(1, dtype=dt, stream=stream)
        if n == 0:
            if init is None:
                raise ValueError(f"reduce '{self.__name__}' of an empty array with no init")
            dres.copy_to_device(np.full(1, init, dtype=dres.dtype), stream=stream)
        else:
            self._reduce(data, n, dt, dres, init, stream)
        if res is not None:
            return None
        value = dres.copy_to_host(stream=stream)
        _sync(stream)
        return value[0]

    def _reduce(self, data, n, dt, dres, init, stream):
        """Two launches and no host round trip: per-block values into `part`, then one block
        over those (init folded in there)."""
        B = self._backend
        k = self._kernel(dt)
        T = REDUCE_THREADS
        blocks = _reduce_blocks(B, n)
        fold = 0 if init is None else 1
        ival = dt.type(0 if init is None else init)
        if blocks == 1:
            k[1, T, stream](data, self._target(dres, dt), n, ival, fold)
            return
        part = self._partials(dt, blocks, stream)
        k[blocks, T, stream](data, part, n, ival, 0)
        k[1, T, stream](part, self._target(dres, dt), blocks, ival, fold)

    def _partials(self, dt, blocks, stream):
        """The first pass's per-block values: a buffer kept per device, dtype and stream, as
        allocating and freeing one a call (cuMemAlloc, cuMemFree) would stall the stream's
        pipeline. Work on one stream runs in order, so reusing its buffer is safe; another
        stream gets its own (the entry holds the stream, so its id is not reused)."""
        B = self._backend
        key = (B.get_current_device().id, dt, stream if isinstance(stream, int) else id(stream))
        _owner, part = self._parts.get(key, (None, None))
        if part is None or part.shape[0] < blocks:
            if len(self._parts) >= _REDUCE_BUFFERS:
                self._parts.pop(next(iter(self._parts)))
            part = B.device_array(blocks, dtype=dt, stream=stream)
            self._parts[key] = (stream, part)
        return part if part.shape[0] == blocks else part[:blocks]

    def _target(self, dres, dt):
        if np.dtype(dres.dtype) != dt:
            raise TypeError(f"reduce '{self.__name__}': res= has dtype {dres.dtype}, the array "
                            f"{dt}")
        return dres


def reduce(functor=None, backend=None):
    """@gpu.reduce on a binary function (numba-cuda's cuda.reduce)."""
    if functor is None:
        return lambda f: Reduce(f, backend)
    return Reduce(functor, backend)


# ---- @guvectorize(target='cuda') ----

def _gu_source(nops, scalars, ndim, views):
    """views[k]: the extra index text operand k takes ('' or ', 0:1' for a '()' output); the
    loop shape is read from the first array operand's leading dimensions."""
    first = min(k for k in range(nops) if k not in scalars)
    params = ", ".join([f"a{k}" for k in range(nops)] + ["n"])
    idx = ", ".join(f"j{d}" for d in range(ndim))
    lines = [f"def __gk({params}):", "    i = __gpu.grid(1)", "    s = __gpu.gridsize(1)",
             "    while i < n:", "        r = i"]
    for d in range(ndim - 1, 0, -1):
        lines += [f"        j{d} = r % a{first}.shape[{d}]",
                  f"        r = r // a{first}.shape[{d}]"]
    args = ", ".join(f"a{k}" if k in scalars else f"a{k}[{idx}{views[k]}]" for k in range(nops))
    lines += ["        j0 = r", f"        __f({args})", "        i += s"]
    src = "\n".join(lines) + "\n"
    return src


class GUVectorized:
    """A generalized GPU ufunc: the kernel runs the function once per element of the loop
    dimensions (broadcast as NumPy's gufuncs do) on views of the core dimensions."""

    def __init__(self, py_func, signatures, layout, backend=None, **options):
        from .. import types
        from ..vectorize import _parse_layout
        self.py_func = getattr(py_func, "py_func", py_func)
        self._backend = backend or _default_backend()
        ins, outs = _parse_layout(layout)
        self._cores, self.nin, self.nout = ins + outs, len(ins), len(outs)
        if _nparams(self.py_func) != len(self._cores):
            raise TypeError(f"guvectorize(): layout {layout!r} has {len(self._cores)} operands; "
                            f"{self.py_func.__name__}() takes {_nparams(self.py_func)}")
        self._sigs = []
        for sig in signatures:
            s = types.parse_signature(sig)
            if len(s.args) != len(self._cores):
                raise TypeError(f"guvectorize(): signature {sig!r} does not fit layout "
                                f"{layout!r}")
            self._sigs.append(tuple(np.dtype((a.dtype if isinstance(a, types.Array) else a).name)
                                    for a in s.args))
        self._device_fn = self._backend.jit(device=True)(self.py_func)
        self._kernels = {}
        self._cache = bool(options.get("cache"))
        functools.update_wrapper(self, self.py_func)

    def __repr__(self):
        return f"<pyjit.gpu gufunc '{self.__name__}'>"

    def _resolve(self, ops):
        for sig in self._sigs:
            if all(_can_cast(o, d) for o, d in zip(ops, sig)):
                return sig
        if not self._sigs:
            return tuple(_weak_dtype(o, ops) if o.kind == "weak" else o.dtype for o in ops)
        raise TypeError(f"gufunc '{self.__name__}' not supported for the input types "
                        f"({', '.join(str(o.dtype) for o in ops[:self.nin])})")

    def __call__(self, *args, out=None, stream=0):
        B = self._backend
        if out is not None:
            args = args + (tuple(out) if isinstance(out, (tuple, list)) else (out,))
        if len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f"{self.__name__}() takes {self.nin} inputs (and optionally "
                            f"{self.nout} outputs), got {len(args)}")
        ops = [_operand(B, a) for a in args]
        sig = self._resolve(ops + [_Operand("scalar", None, np.dtype("b"))] *
                            (len(self._cores) - len(ops)))
        sizes, loops = {}, []
        for o, core in zip(ops, self._cores):
            k = len(core)
            if len(o.shape) < k:
                raise ValueError(f"{self.__name__}: an operand of shape {o.shape} has fewer "
                                 f"dimensions than its core {core}")
            for name, m in zip(core, o.shape[len(o.shape) - k:]):
                if sizes.setdefault(name, m) != m:
                    raise ValueError(f"{self.__name__}: core dimension {name} is {sizes[name]} "
                                     f"and {m}")
            loops.append(o.shape[:len(o.shape) - k])
        loop = np.broadcast_shapes(*loops[:self.nin])
        on_device = any(o.kind == "dev" for o in ops)
        devs = []
        for o, dt in zip(ops, sig):
            if o.kind in ("weak", "scalar"):
                devs.append(dt.type(o.value))
            elif o.kind == "host":
                devs.append(B.to_device(np.ascontiguousarray(o.value, dtype=dt), stream=stream))
            else:
                devs.append(o.value)
        made = []
        for j in range(len(ops), len(self._cores)):
            core = self._cores[j]
            missing = [c for c in core if c not in sizes]
            if missing:
                raise ValueError(f"{self.__name__}: output core dimension(s) {missing} are not "
                                 f"given by the inputs: pass the output")
            d = B.device_array(loop + tuple(sizes[c] for c in core), dtype=sig[j], stream=stream)
            devs.append(d)
            made.append(d)
        self._launch(devs, loop, stream)
        given = ops[self.nin:]
        for o, d in zip(given, devs[self.nin:]):
            if o.kind == "host":
                d.copy_to_host(o.value, stream=stream)
        _sync(stream)
        if not made:
            return None
        res = made if on_device else [d.copy_to_host(stream=stream) for d in made]
        _sync(stream)
        return res[0] if len(res) == 1 else tuple(res)

    def _launch(self, devs, loop, stream):
        B = self._backend
        n = int(np.prod(loop, dtype=np.int64))
        if n == 0:
            return
        shp = loop if loop else (1,)
        scalars = frozenset(k for k, d in enumerate(devs) if isinstance(d, np.generic))
        views, extra = [], []
        for k, (d, core) in enumerate(zip(devs, self._cores)):
            if k in scalars:
                views.append(d)
                extra.append("")
                continue
            full = tuple(shp) + tuple(d.shape[d.ndim - len(core):])
            if not core:                       # '()': a 1-element array of the loop dims
                full = full + (1,)
                d = B.as_cuda_array(_View(d, tuple(d.shape) + (1,), _strides(d) + (0,)))
                extra.append(", 0:1" if k >= self.nin else ", 0")
            else:
                extra.append("")
            views.append(_broadcast_view(B, d, full) if loop else
                         B.as_cuda_array(_View(d, full, (0,) + _strides(d))))
        key = (len(shp), scalars, tuple(extra))
        kern = self._kernels.get(key)
        if kern is None:
            ns = {"__gpu": B, "__f": self._device_fn}
            fn = _source_function("__gk", _gu_source(len(devs), scalars, len(shp), extra), ns)
            kern = self._kernels[key] = _cached_kernel(B, fn, self.py_func,
                                                       {"cache": self._cache,
                                                        "error_model": "numpy"})
        blocks, threads = _launch_shape(B, n, 1)
        kern[blocks, threads, stream](*views, n)


def guvectorize(signatures, layout=None, target="cuda", backend=None, **options):
    """@guvectorize(signatures, layout, target='cuda'): a generalized ufunc on the GPU."""
    if layout is None and isinstance(signatures, str) and "->" in signatures:
        signatures, layout = [], signatures
    if isinstance(signatures, str):
        signatures = [signatures]
    sigs = list(signatures or [])
    return lambda f: GUVectorized(f, sigs, layout, backend, **options)

