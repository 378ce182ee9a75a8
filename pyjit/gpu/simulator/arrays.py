"""Arrays in the simulator: checked kernel-side views and host-side device arrays.

CheckedArray is what a kernel sees for every array argument and every shared, local and
constant array: indexing is checked (a negative index wraps, as NumPy's and the GPU's do; one
still outside the axis raises IndexError naming the array and the index; the launcher adds the
kernel, thread and block), and elements
come back as NumPy scalars so float32 arithmetic stays float32. The common case, an int index
in range on a 1-D array, takes one comparison before NumPy.

RaceCheckedArray (shared arrays under PYJIT_SIMULATOR_RACECHECK=1) also remembers, per element,
who last wrote and read it in which barrier interval, and raises RaceError on a conflict.

DeviceNDArray is the host-side handle of "device memory", which in the simulator is a NumPy
array; it has numba-cuda's methods (copy_to_host, slicing, reshape, __cuda_array_interface__).
"""
import operator
import sys
import weakref

import numpy as np

from .._layout import byte_extent, like_geometry
from .state import S, RaceError, threadIdx, blockDim

_index = operator.index


def as_dtype(dtype):
    """A NumPy dtype from a NumPy dtype, a type, a string or a pyjit/numba type object."""
    try:
        return np.dtype(dtype)
    except TypeError:
        pass
    for attr in ("dtype", "np_dtype"):
        inner = getattr(dtype, attr, None)
        if inner is not None:
            return np.dtype(inner)
    try:
        return np.dtype(str(dtype))
    except TypeError:
        raise TypeError(f"cannot use {dtype!r} as an array dtype") from None


def as_shape(shape):
    if isinstance(shape, (tuple, list)):
        return tuple(_index(s) for s in shape)
    return (_index(shape),)


class CheckedArray:
    """A kernel's view of an array: NumPy indexing with bounds and sign checks."""

    __slots__ = ("_a", "_n", "name", "shape", "size", "ndim", "dtype")

    def __init__(self, a, name):
        self._a = a
        self._n = a.shape[0] if a.ndim == 1 else 0   # 0 sends every index to the slow path
        self.name = name
        self.shape = a.shape
        self.size = a.size
        self.ndim = a.ndim
        self.dtype = a.dtype

    def __getitem__(self, i):
        if i.__class__ is int and 0 <= i < self._n:
            return self._a[i]
        return self._get(i)

    def __setitem__(self, i, v):
        try:
            if i.__class__ is int and 0 <= i < self._n:
                self._a[i] = v
                return
            self._a[self.check(i)] = v
        except OverflowError:
            self._a[i] = _wrapped(self.dtype, v)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """np.sin(x, out) and other ufuncs over kernel arrays: computed on the NumPy arrays, the
        result written into out, as a kernel's ufunc call with an output argument does."""
        inputs = [x._a if isinstance(x, CheckedArray) else x for x in inputs]
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(o._a if isinstance(o, CheckedArray) else o for o in out)
        result = getattr(ufunc, method)(*inputs, **kwargs)
        return out[0] if out is not None and len(out) == 1 else result

    def __getattr__(self, name):
        """p.x of an array of records: its field x, a view (p['x']), as compiled kernels read a
        record array's fields (a np.recarray's attributes, and Numba's for any record array)."""
        names = self._a.dtype.names
        if names is not None and name in names:
            return self._get(name)
        raise AttributeError(f"array '{self.name}' has no attribute '{name}'")

    def _get(self, i):
        r = self._a[self.check(i)]
        if r.__class__ is np.ndarray:
            return checked(r, self.name + "[...]")
        return r

    def check(self, i):
        """Returns i when it is a valid index (ints in range, slices), else raises IndexError."""
        parts = i if i.__class__ is tuple else (i,)
        axis = 0
        for p in parts:
            if p.__class__ is slice:
                axis += 1
                continue
            if p is Ellipsis or p is None:
                return i
            if p.__class__ is str and self.dtype.names is not None:
                _check_field_view(self, p)
                return i          # a field of a structured array: NumPy names a missing one
            try:
                k = _index(p)
            except TypeError:
                raise IndexError(f"array '{self.name}' indexed with {p!r} ({type(p).__name__}): "
                                 "kernel indices must be integers or slices") from None
            if axis >= self.ndim:
                raise IndexError(f"too many indices for array '{self.name}': {i!r} on a "
                                 f"{self.ndim}-d array of shape {self.shape}")
            n = self.shape[axis]
            if k < -n or k >= n:    # a negative index wraps, as NumPy's and the GPU's do
                raise IndexError(f"index {k} is out of bounds for axis {axis} of array "
                                 f"'{self.name}' with size {n} (shape {self.shape}), index {i!r}")
            axis += 1
        return i

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        for k in range(self.shape[0]):
            yield self[k]

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)

    @property
    def strides(self):
        return self._a.strides

    @property
    def itemsize(self):
        return self._a.itemsize

    @property
    def nbytes(self):
        return self._a.nbytes

    @property
    def T(self):
        return checked(self._a.T, self.name + ".T")

    @property
    def real(self):
        """The real parts: a view kernels write through (atomics included), as on the GPU."""
        return checked(self._a.real, self.name + ".real")

    @property
    def imag(self):
        return checked(self._a.imag, self.name + ".imag")

    def copy(self):
        return checked(self._a.copy(), self.name)

    def reshape(self, *shape):
        return checked(self._a.reshape(*shape), self.name)

    def ravel(self):
        return checked(self._a.ravel(), self.name)

    # the array methods a GPU kernel compiles (reductions over a row, fill, dot, views):
    # NumPy's on the array itself
    def sum(self, *args, **kwargs):
        return self._a.sum(*args, **kwargs)

    def prod(self, *args, **kwargs):
        return self._a.prod(*args, **kwargs)

    def min(self, *args, **kwargs):
        return self._a.min(*args, **kwargs)

    def max(self, *args, **kwargs):
        return self._a.max(*args, **kwargs)

    def mean(self, *args, **kwargs):
        return self._a.mean(*args, **kwargs)

    def std(self, *args, **kwargs):
        return self._a.std(*args, **kwargs)

    def var(self, *args, **kwargs):
        return self._a.var(*args, **kwargs)

    def argmin(self, *args, **kwargs):
        return self._a.argmin(*args, **kwargs)

    def argmax(self, *args, **kwargs):
        return self._a.argmax(*args, **kwargs)

    def any(self, *args, **kwargs):
        return self._a.any(*args, **kwargs)

    def all(self, *args, **kwargs):
        return self._a.all(*args, **kwargs)

    def fill(self, value):
        self._a.fill(value)

    def dot(self, other):
        return self._a.dot(other._a if isinstance(other, CheckedArray) else other)

    def transpose(self, *axes):
        return checked(self._a.transpose(*axes), self.name + ".T")

    def view(self, dtype):
        return checked(self._a.view(dtype), self.name)

    def __repr__(self):
        return f"<array '{self.name}' shape={self.shape} dtype={self.dtype}>"


class CheckedArray2D(CheckedArray):
    """A 2-D CheckedArray: `a[i, j]` with both in range goes straight to NumPy."""

    __slots__ = ("_s0", "_s1")

    def __init__(self, a, name):
        CheckedArray.__init__(self, a, name)
        self._s0, self._s1 = a.shape

    def __getitem__(self, i):
        try:
            r, c = i
            if 0 <= r < self._s0 and 0 <= c < self._s1 and r is not True and c is not True:
                return self._a[r, c]
        except (TypeError, ValueError):
            pass
        return self._get(i)

    def __setitem__(self, i, v):
        try:
            r, c = i
            if 0 <= r < self._s0 and 0 <= c < self._s1 and r is not True and c is not True:
                self._a[r, c] = v
                return
        except (TypeError, ValueError):
            pass
        CheckedArray.__setitem__(self, i, v)


def _natural_align(dtype):
    """compiler/lower_structured.c's natural_align: the largest field alignment when every field
    lies at a multiple of its own and the size at a multiple of the largest, else 0."""
    largest = 1
    for name in dtype.names:
        ft, offset = dtype.fields[name][:2]
        base = ft.subdtype[0] if ft.subdtype is not None else ft
        a = _natural_align(base) if base.names is not None else \
            (base.itemsize // 2 if base.kind == "c" else base.itemsize)
        if a == 0 or offset % a:
            return 0
        largest = max(largest, a)
    return 0 if dtype.itemsize % largest else largest


def _check_field_view(array, field):
    """a['x'] of a packed structured dtype: refused, as the GPU compiler refuses it."""
    if _natural_align(array.dtype) == 0:
        _refuse_field_view(field)


def _refuse_field_view(field):
    from ...errors import UnsupportedError
    raise UnsupportedError(f"an array view or nested record of field '{field}' of a packed "
                           "structured dtype is not supported on the GPU (its items are not "
                           "aligned): make the dtype with align=True")


class PackedRecord:
    """An item of a packed structured array with subarray or nested record fields: the
    np.record, less those fields, which the GPU compiler refuses for such a dtype (their items
    are off their alignment)."""

    __slots__ = ("_r",)

    def __init__(self, record):
        object.__setattr__(self, "_r", record)

    def _field(self, key):
        name = self._r.dtype.names[key] if isinstance(key, int) else key
        if _is_view_field(self._r.dtype.fields[name][0]):
            _refuse_field_view(name)
        return name

    def __getitem__(self, key):
        return self._r[self._field(key)]

    def __setitem__(self, key, value):
        self._r[self._field(key)] = value

    def __getattr__(self, name):
        return getattr(self._r, self._field(name) if name in self._r.dtype.names else name)

    def __setattr__(self, name, value):
        setattr(self._r, self._field(name), value)


class PackedRecordArray(CheckedArray):
    """A packed structured array with subarray or nested record fields: its items are
    PackedRecord."""

    __slots__ = ()

    def __init__(self, a, name):
        CheckedArray.__init__(self, a, name)
        self._n = 0                   # every access goes through the checking path

    def __getitem__(self, i):
        r = self._get(i)
        return PackedRecord(r) if isinstance(r, np.record) else r

    def __setitem__(self, i, v):
        CheckedArray.__setitem__(self, i, v._r if isinstance(v, PackedRecord) else v)


class RecordArg:
    """A record passed to a kernel (np.void, np.record): its fields by name, by attribute and
    by position, read and written through to the record, and so to the array it is an item of,
    as on the GPU (where the launch copies it to the device and back). A nested record field is
    a RecordArg too; a packed dtype's subarray and nested record fields are refused, as the GPU
    compiler refuses them."""

    __slots__ = ("_r",)

    def __init__(self, record):
        object.__setattr__(self, "_r", record)

    def _field(self, key):
        names = self._r.dtype.names
        name = names[key] if isinstance(key, (int, np.integer)) else key
        if name not in names:
            raise AttributeError(f"record {self._r.dtype} has no field {key!r}")
        if _natural_align(self._r.dtype) == 0 and _is_view_field(self._r.dtype.fields[name][0]):
            _refuse_field_view(name)
        return name

    def __getitem__(self, key):
        v = self._r[self._field(key)]
        return RecordArg(v) if isinstance(v, np.void) else v

    def __setitem__(self, key, value):
        self._r[self._field(key)] = value._r if isinstance(value, RecordArg) else value

    def __getattr__(self, name):
        if name in self._r.dtype.names:
            return self[name]
        return getattr(self._r, name)

    def __setattr__(self, name, value):
        self[name] = value

    def __repr__(self):
        return repr(self._r)


def _is_view_field(dt):
    """A field read as a view of the record's bytes: a subarray, or a nested record."""
    return dt.subdtype is not None or dt.names is not None


def _has_view_fields(dtype):
    for name in dtype.names:
        if _is_view_field(dtype.fields[name][0]):
            return True
    return False


def _wrapped(dtype, v):
    """An int stored into an integer array keeps its low bits, as a GPU store does (NumPy raises
    OverflowError instead): 2**32 - 1 into int32 is -1."""
    if dtype.kind not in "iu":
        raise OverflowError(f"{v!r} does not fit the array's {dtype}")
    bits = dtype.itemsize * 8
    k = int(v) & ((1 << bits) - 1)
    if dtype.kind == "i" and k >> (bits - 1):
        k -= 1 << bits
    return k


def checked(a, name):
    """The kernel-side view of NumPy array a. A structured array is seen as a np.recarray, whose
    items (np.record) are views that take p[i].x as well as p[i]['x'], as kernels do."""
    if a.dtype.names is not None and not isinstance(a, np.recarray):
        a = a.view(np.recarray)
    if a.dtype.names is not None and _natural_align(a.dtype) == 0 and _has_view_fields(a.dtype):
        return PackedRecordArray(a, name)
    return CheckedArray2D(a, name) if a.ndim == 2 else CheckedArray(a, name)


def _caller_line():
    f = sys._getframe(3)
    return f.f_code, f.f_lineno


class RaceCheckedArray(CheckedArray):
    """A shared array that reports accesses by two threads with no barrier between them.

    Two accesses are ordered when a syncthreads() of the block, or (for two lanes of one warp)
    a warp operation of that warp, lies between them. For each element the last write and the
    reads since it are kept as (thread, block epoch, warp, warp epoch, line).
    """

    __slots__ = ("_w", "_r")

    def __init__(self, a, name):
        CheckedArray.__init__(self, a, name)
        self._n = 0                   # every access goes through the checking path
        self._w = {}
        self._r = {}

    def __getitem__(self, i):
        i = self.check(i)
        self._access(i, False)
        r = self._a[i]
        if r.__class__ is np.ndarray:
            return checked(r, self.name + "[...]")
        return r

    def __setitem__(self, i, v):
        i = self.check(i)
        self._access(i, True)
        try:
            self._a[i] = v
        except OverflowError:
            self._a[i] = _wrapped(self.dtype, v)

    def _access(self, key, write):
        if key.__class__ is tuple:
            for p in key:
                if p.__class__ is slice or p is Ellipsis or p is None:
                    return                # whole-slice accesses are not tracked
            # a[-1] and a[n - 1] are one element
            key = tuple(k + n if k < 0 else k for k, n in zip(map(_index, key), self.shape))
        else:
            key = _index(key)
            key = key + self.shape[0] if key < 0 else key
        tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)
        warp = tid >> 5
        me = (tid, S.epoch, warp, S.warp_epochs[warp])
        last = self._w.get(key)
        if last is not None and _conflict(last, me):
            self._report(key, last, "written", write)
        if write:
            for other in self._r.get(key, {}).values():
                if _conflict(other, me):
                    self._report(key, other, "read", write)
            self._w[key] = me + (_caller_line(),)
            self._r.pop(key, None)
        else:
            self._r.setdefault(key, {})[tid] = me + (_caller_line(),)

    def _report(self, key, other, what, write):
        t = _thread_of(other[0])
        code, line = other[4]
        raise RaceError(
            f"data race on shared array '{self.name}' at index {key}: "
            f"{'written' if write else 'read'} here after being {what} by thread {t} "
            f"at {code.co_filename}:{line} with no syncthreads() between them")


def _conflict(a, b):
    if a[0] == b[0] or a[1] != b[1]:
        return False
    return not (a[2] == b[2] and a[3] != b[3])


def _thread_of(tid):
    bx, by = blockDim.x, blockDim.y
    return (tid % bx, (tid // bx) % by, tid // (bx * by))


# ---------------------------------------------------------------------------------------------
# Host side: device arrays.

class DeviceNDArray:
    """An array in simulated device memory: a NumPy array the host reaches only by copies."""

    __array_priority__ = -1

    def __reduce__(self):
        raise TypeError("a device array cannot be pickled: its memory is on the GPU of this "
                        "process; copy it to the host first (a.copy_to_host()) and send the NumPy "
                        "array")

    _record = False     # numba-cuda's DeviceRecord: to_device of one record, a kernel's record

    def __init__(self, ary, stream=0, writeback=None):
        self._ary = ary
        self.stream = stream
        # the host array to_device copied from, for the legacy to_host() (a weak reference:
        # the device array does not keep it alive)
        self._writeback = weakref.ref(writeback) if writeback is not None else None

    shape = property(lambda self: self._ary.shape)
    strides = property(lambda self: self._ary.strides)
    dtype = property(lambda self: self._ary.dtype)
    size = property(lambda self: self._ary.size)
    ndim = property(lambda self: self._ary.ndim)
    nbytes = property(lambda self: self._ary.nbytes)
    itemsize = property(lambda self: self._ary.itemsize)

    @property
    def alloc_size(self):
        """numba-cuda's: the bytes the array's elements span (its nbytes when contiguous)."""
        lo, hi = byte_extent(self._ary.shape, self._ary.strides, self._ary.itemsize)
        return hi - lo

    @property
    def gpu_data(self):
        """numba-cuda's MemoryPointer of the array's memory (here the host memory standing for
        the device's)."""
        from ..cudadrv.driver import MemoryPointer
        return MemoryPointer.of_array(self)

    def as_cuda_arg(self):
        return self.gpu_data

    def __array__(self, dtype=None, copy=None):
        """np.asarray(d): a copy, as the compiled backend's (copy=False is refused there)."""
        if copy is False:
            raise ValueError("a device array cannot be seen from the host without a copy "
                             "(copy=False): np.asarray(d) and copy_to_host() copy it")
        h = self.copy_to_host()
        return h if dtype is None else h.astype(dtype)

    @property
    def device_ctypes_pointer(self):
        """numba-cuda's: the data address as a ctypes.c_void_p (here the host memory standing
        for the device's, the address __cuda_array_interface__ gives too)."""
        import ctypes
        return ctypes.c_void_p(self._ary.ctypes.data if self._ary.size else 0)

    @property
    def __cuda_array_interface__(self):
        a = self._ary
        cai = {
            "shape": a.shape,
            "strides": None if a.flags.c_contiguous else a.strides,
            "data": (a.ctypes.data if a.size else 0, False),
            "typestr": a.dtype.str,
            "stream": None,
            "version": 3,
        }
        if a.dtype.names is not None:
            cai["descr"] = a.dtype.descr      # a record's fields
        return cai

    def __dlpack__(self, stream=None, **kwargs):
        return self._ary.__dlpack__()       # simulated device memory is host memory (kDLCPU)

    def __dlpack_device__(self):
        return self._ary.__dlpack_device__()

    def copy_to_host(self, ary=None, stream=0):
        if ary is None:
            return self._ary.copy()
        ary = _host_target(ary)
        _check_same(ary, self._ary, "copy_to_host")
        _copy(ary, self._ary)
        return ary

    def to_host(self, stream=0):
        """numba-cuda's legacy to_host(stream=0): copies back into the NumPy array the device
        array was made from by to_device, and returns it; a new host array when there is none.
        (A NumPy array given first is copied into, as copy_to_host does.)"""
        if isinstance(stream, np.ndarray):
            return self.copy_to_host(stream)
        host = self._writeback() if self._writeback is not None else None
        return self.copy_to_host(host)

    def copy_to_device(self, ary, stream=0):
        src = ary._ary if isinstance(ary, DeviceNDArray) else np.asarray(ary)
        _check_same(src, self._ary, "copy_to_device")
        _copy(self._ary, src)

    def __getitem__(self, idx):
        r = self._ary[idx]
        if isinstance(r, np.ndarray):
            return DeviceNDArray(r, self.stream)
        return r

    def getitem(self, idx, stream=0):
        return self[idx]

    def __setitem__(self, idx, value):
        if isinstance(value, DeviceNDArray):
            value = value._ary
        self._ary[idx] = value

    def setitem(self, idx, value, stream=0):
        self[idx] = value

    def __len__(self):
        return self._ary.shape[0]

    def reshape(self, *newshape, order="C"):
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        return DeviceNDArray(self._ary.reshape(newshape, order=order), self.stream)

    def ravel(self, order="C", stream=0):
        return DeviceNDArray(self._ary.ravel(order=order), self.stream)

    def squeeze(self, axis=None, stream=0):
        try:
            return DeviceNDArray(self._ary.squeeze(axis), self.stream)
        except ValueError:
            raise ValueError(f"squeeze: axis {axis} is not an axis of length 1") from None

    def view(self, dtype):
        return DeviceNDArray(self._ary.view(as_dtype(dtype)), self.stream)

    def transpose(self, *axes):
        """transpose(axes) as numba-cuda's, or transpose(*axes) as NumPy's and the compiled
        backend's."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return DeviceNDArray(self._ary.transpose(axes or None), self.stream)

    T = property(lambda self: self.transpose())

    def split(self, section, stream=0):
        if self._ary.ndim != 1:
            raise ValueError(f"split: only a 1-d device array can be split, not one of "
                             f"{self._ary.ndim} dimensions")
        if section < 1:
            raise ValueError(f"split: section must be at least 1, not {section}")
        return [DeviceNDArray(p, self.stream)
                for p in np.array_split(self._ary, range(section, self.size, section))]

    def bind(self, stream=0):
        return DeviceNDArray(self._ary, stream)

    @property
    def flags(self):
        """numba-cuda's flags: {'C_CONTIGUOUS': bool, 'F_CONTIGUOUS': bool}."""
        return {"C_CONTIGUOUS": self._ary.flags.c_contiguous,
                "F_CONTIGUOUS": self._ary.flags.f_contiguous}

    def is_c_contiguous(self):
        return self._ary.flags.c_contiguous

    def is_f_contiguous(self):
        return self._ary.flags.f_contiguous

    def get_ipc_handle(self):
        raise NotImplementedError("IPC handles are not available in the simulator")

    def __repr__(self):
        return f"<pyjit simulated DeviceNDArray shape={self.shape} dtype={self.dtype}>"


def _host_target(ary):
    if not isinstance(ary, np.ndarray):
        raise TypeError("copy_to_host: expected a NumPy array to copy into, "
                        f"got {type(ary).__name__}")
    return ary


def _check_same(a, b, what):
    if a.dtype != b.dtype or a.size != b.size:
        raise ValueError(f"{what}: array of shape {a.shape} and dtype {a.dtype} does not match "
                         f"the device array's shape {b.shape} and dtype {b.dtype}")


def _copy(dst, src):
    """Copies src into dst of the same dtype and size (shapes may differ if both are contiguous)."""
    if dst.shape == src.shape:
        np.copyto(dst, src)
    elif dst.flags.c_contiguous and src.flags.c_contiguous:
        dst.reshape(-1)[...] = src.reshape(-1)
    else:
        raise ValueError(f"cannot copy an array of shape {src.shape} into one of shape {dst.shape}")


def _host_array(obj):
    if isinstance(obj, DeviceNDArray):
        return obj._ary
    if isinstance(obj, (In, Out, InOut)):
        return _host_array(obj.array)
    return np.asarray(obj)


def to_device(obj, stream=0, copy=True, to=None):
    src = _host_array(obj)
    if to is not None:
        to.copy_to_device(src, stream)
        return to
    d = DeviceNDArray(np.array(src, copy=True, order="K"), stream,
                      obj if isinstance(obj, np.ndarray) else None)
    d._record = isinstance(obj, np.void) and obj.dtype.names is not None
    return d


def _zeros(shape, dtype, strides, order):
    """Zeroed memory of this shape, laid out by strides (bytes; None: contiguous in order)."""
    a = np.zeros(shape, dtype=as_dtype(dtype), order=order)
    if strides is not None:
        a = np.lib.stride_tricks.as_strided(a, strides=tuple(strides))
    return a


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    return DeviceNDArray(_zeros(shape, dtype, strides, order), stream)


def device_array_like(ary, stream=0):
    strides, order = like_geometry(ary)
    return device_array(ary.shape, ary.dtype, strides=strides, order=order, stream=stream)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    return _zeros(shape, dtype, strides, order)


def pinned_array_like(ary):
    strides, order = like_geometry(ary)
    return pinned_array(ary.shape, ary.dtype, strides, order)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    """A NumPy array that kernels use in place, as the compiled backend's (host memory mapped
    for the GPU): here simply host memory, which the simulated kernels use anyway."""
    return _zeros(shape, dtype, strides, order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    """A mapped array of ary's shape, dtype and layout (see mapped_array)."""
    strides, order = like_geometry(ary)
    return mapped_array(ary.shape, ary.dtype, strides, order)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    """A NumPy array in managed memory on the GPU: here host memory (see mapped_array)."""
    return _zeros(shape, dtype, strides, order)


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A device array over the memory a CUDA Array Interface dict describes: in the simulator
    the memory is the host's, so the dict's data address must be a host array's."""
    return DeviceNDArray(_from_interface(dict(desc), owner))


def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    raise NotImplementedError("IPC handles are not available in the simulator (its device "
                              "arrays are in this process's memory); on the GPU, "
                              "gpu.open_ipc_array opens another process's array")


device_array.__module__ = to_device.__module__


def is_cuda_array(obj):
    return hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj, sync=True):
    if isinstance(obj, DeviceNDArray):
        return obj
    if not is_cuda_array(obj):
        raise TypeError(f"{type(obj).__name__} does not expose __cuda_array_interface__")
    return DeviceNDArray(_from_interface(obj.__cuda_array_interface__, obj))


def _from_interface(cai, owner):
    """A NumPy view of memory described by a CUDA array interface (host memory here)."""
    class _Holder:
        pass
    h = _Holder()
    h.__array_interface__ = {"shape": tuple(cai["shape"]), "typestr": cai["typestr"],
                             "data": cai["data"], "strides": cai.get("strides"), "version": 3}
    if cai.get("descr") is not None:
        h.__array_interface__["descr"] = cai["descr"]   # a record's fields
    h.owner = owner
    return np.asarray(h)


class _Direction:
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __repr__(self):
        return f"{type(self).__name__}({self.array!r})"


class In(_Direction):
    """A kernel argument only read by the kernel (the GPU path copies it in, not back)."""


class Out(_Direction):
    """A kernel argument only written by the kernel (copied back, not in)."""


class InOut(_Direction):
    """A kernel argument read and written (copied in and back)."""
