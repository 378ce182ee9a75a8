"""pyjit._ffi: where pyjit meets plain C functions, both ways.

    @cfunc("float64(float64, float64)")     a C callback compiled now: f.address, f.ctypes,
    def f(x, y): ...                        f.cffi, f.native_name, f.inspect_llvm(), f(x, y);
                                            scipy.LowLevelCallable(f.ctypes) takes it
    carray(ptr, shape, dtype=None)          the array a C pointer points at (farray: Fortran
                                            order), in compiled code and in Python

and the other way, compiled code calling a ctypes function (with argtypes and restype set), a
cffi library's function, or a cfunc: the frontend (frontend/consts.c) asks describe() for the
function's address and C signature, and inference (compiler/infer_ffi.c) types the call.

The C types of a signature are pyjit's: the numbers, CPointer(scalar) and voidptr. A cfunc's
body that raises reports the exception through sys.unraisablehook (printed, as Numba's cfunc
does; C cannot be handed an exception) and returns zero to C.
"""
import ctypes

from . import types

__all__ = ["cfunc", "carray", "farray", "CFunc"]

# ---- pyjit types <-> C types --------------------------------------------------------------

_CTYPES = {
    "bool": ctypes.c_bool, "int8": ctypes.c_int8, "int16": ctypes.c_int16,
    "int32": ctypes.c_int32, "int64": ctypes.c_int64, "uint8": ctypes.c_uint8,
    "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
    "float32": ctypes.c_float, "float64": ctypes.c_double,
}
_C_NAMES = {
    "bool": "_Bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
    "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
    "float32": "float", "float64": "double", "none": "void", "voidptr": "void *",
}
# ctypes' type codes (a simple type's _type_) of the numbers
_CODES = {"?": "bool", "f": "float32", "d": "float64"}


def _c_type_ok(t, is_return=False):
    """Whether a pyjit type crosses the C boundary: numbers but complex and float16, pointers,
    and none as a result."""
    if isinstance(t, (types.CPointer, types.RawPointer)):
        return True
    if isinstance(t, types.NoneType):
        return is_return
    return isinstance(t, types.Scalar) and t.name in _CTYPES


def _ctype_of(t):
    if isinstance(t, types.NoneType):
        return None
    if isinstance(t, types.RawPointer):
        return ctypes.c_void_p
    if isinstance(t, types.CPointer) and isinstance(t.dtype, types.Record):
        return ctypes.c_void_p     # a C struct's pointer: ctypes knows no layout for it
    if isinstance(t, types.CPointer):
        return ctypes.POINTER(_CTYPES[t.dtype.name])
    return _CTYPES[t.name]


def _cdecl_of(t):
    if isinstance(t, types.CPointer) and isinstance(t.dtype, types.Record):
        return "void *"
    if isinstance(t, types.CPointer):
        return _C_NAMES[t.dtype.name] + " *"
    return _C_NAMES[t.name]


def _name_of_ctype(ct, what):
    """The canonical pyjit name of a ctypes type, or TypeError."""
    if ct is None:
        return "none"
    if isinstance(ct, type) and issubclass(ct, ctypes._Pointer):
        item = _name_of_ctype(ct._type_, what)
        if item not in _CTYPES:
            raise TypeError(f"{what}: a pointer to {ct._type_.__name__} is not a type compiled code "
                            f"passes to C (pointers to numbers and c_void_p are)")
        return f"cpointer({item})"
    code = getattr(ct, "_type_", None)
    if ct is ctypes.c_void_p:
        return "voidptr"
    if isinstance(code, str) and code in _CODES:
        return _CODES[code]
    if isinstance(code, str) and code in "bBhHiIlLqQ":
        signed = code.islower()
        return f"{'' if signed else 'u'}int{8 * ctypes.sizeof(ct)}"
    raise TypeError(f"{what}: {getattr(ct, '__name__', ct)} is not a C type compiled code "
                    f"supports (numbers, POINTER(number), c_void_p)")


# ---- describe: C functions compiled code calls -------------------------------------------

def describe(obj):
    """(name, address, "ret|arg|...") of a C function compiled code may call: a @cfunc, a
    ctypes function with argtypes set, a cffi function; None for anything else. TypeError
    (the compile error) for a C function whose signature compiled code cannot use."""
    describe_self = getattr(type(obj), "_pyjit_describe", None)
    if describe_self is not None:   # gpu.declare_device: a symbol the GPU linker resolves
        return describe_self(obj)
    if isinstance(obj, CFunc):
        return obj.__name__, obj.address, "|".join((obj._ret.name,) + tuple(a.name for a in obj._args))
    if isinstance(obj, ctypes._CFuncPtr):
        return _describe_ctypes(obj)
    if type(obj).__module__ == "_cffi_backend":
        return _describe_cffi(obj)
    lib = getattr(obj, "__self__", None)
    if type(lib).__module__ == "_cffi_backend" and type(lib).__name__ == "Lib":
        return _describe_cffi_api(obj, lib)
    return None


def _describe_cffi_api(fn, lib):
    """A function of an out-of-line API-mode cffi module (`lib.f` of a compiled module): its
    ffi, the module's own, gives its type and address."""
    import sys
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    ffi = getattr(module, "ffi", None)
    if ffi is None or getattr(module, "lib", None) is not lib:
        raise TypeError(f"cffi function {fn.__name__}: its module (and so its ffi) was not found")
    return _describe_cffi(ffi.addressof(lib, fn.__name__), ffi, fn.__name__)


def _describe_ctypes(fn):
    name = getattr(fn, "__name__", None) or repr(fn)
    if fn.argtypes is None:
        raise TypeError(f"ctypes function {name} has no argtypes: set {name}.argtypes (and "
                        f"restype) so that compiled code knows its C signature")
    what = f"ctypes function {name}"
    sig = [_name_of_ctype(fn.restype, what)] + [_name_of_ctype(a, what) for a in fn.argtypes]
    address = ctypes.cast(fn, ctypes.c_void_p).value
    return name, address, "|".join(sig)


_FFI = None


def _describe_cffi(obj, ffi=None, name=None):
    global _FFI
    if ffi is None:
        import cffi
        if _FFI is None:
            _FFI = cffi.FFI()
        ffi = _FFI
    try:
        tp = ffi.typeof(obj)
    except (TypeError, ffi.error):
        return None
    if tp.kind == "pointer" and tp.item.kind == "function":
        tp = tp.item
    if tp.kind != "function":
        return None
    name = name or getattr(obj, "__name__", None) or tp.cname
    what = f"cffi function {name}"
    if tp.ellipsis:
        raise TypeError(f"{what} takes variable arguments (...), which compiled code cannot pass")
    sig = [_name_of_cffi(ffi, tp.result, what)] + [_name_of_cffi(ffi, a, what) for a in tp.args]
    return name, int(ffi.cast("uintptr_t", obj)), "|".join(sig)


def _name_of_cffi(ffi, tp, what):
    if tp.kind == "void":
        return "none"
    if tp.kind == "pointer":
        if tp.item.kind == "void":
            return "voidptr"
        item = _name_of_cffi(ffi, tp.item, what)
        if item in _CTYPES:
            return f"cpointer({item})"
    if tp.kind == "primitive":
        if tp.cname in ("double", "float"):
            return "float64" if tp.cname == "double" else "float32"
        if tp.cname == "_Bool":
            return "bool"
        if tp.cname not in ("char", "wchar_t", "char16_t", "char32_t", "long double"):
            signed = int(ffi.cast(tp, -1)) < 0
            return f"{'' if signed else 'u'}int{8 * ffi.sizeof(tp)}"
    raise TypeError(f"{what}: {tp.cname} is not a C type compiled code supports (numbers, "
                    f"pointers to numbers, void *)")


# ---- @cfunc -------------------------------------------------------------------------------

# Options a cfunc takes: those the compiler applies, locals= (as @njit's), nopython (always),
# and the hints that change nothing here, which warn once that they do not
_PASSED = {"nogil", "fastmath", "boundscheck", "error_model", "debug", "opt"}
_IGNORED = {"nopython", "locals"}
_HINTS = {"cache": "a cfunc compiles when decorated and is not stored on disk (its C entry's "
                   "address is this process's)",
          "_nrt": "pyjit always reference counts the arrays and containers it makes"}


class CFunc:
    """A function compiled to a plain C function of one signature (Numba's CFunc)."""

    _pyjit_cfunc = True   # what frontend/consts.c looks for before asking describe()

    def __init__(self, func, sig, options):
        from . import _core, _registry
        self.__name__, self.__qualname__ = func.__name__, func.__qualname__
        self.__doc__, self.__wrapped__ = func.__doc__, func
        from .decorators import _declare_locals, warn_hints
        unknown = set(options) - _PASSED - _IGNORED - set(_HINTS)
        if unknown:
            raise TypeError(f"cfunc() got unexpected option(s): {', '.join(sorted(unknown))}")
        warn_hints("cfunc", options, _HINTS)
        compiled = _declare_locals(func, func, options["locals"]) if options.get("locals") \
            else func
        parsed = types.parse_signature(sig)
        if parsed.return_type is None:
            raise TypeError(f"cfunc() needs a signature with a return type, e.g. "
                            f"'float64(float64)', not {sig!r}")
        self._args, self._ret = tuple(parsed.args), parsed.return_type
        for t in self._args:
            if not _c_type_ok(t):
                raise TypeError(f"cfunc(): {t} is not a C parameter type (numbers, "
                                f"CPointer(number), voidptr)")
        if not _c_type_ok(self._ret, is_return=True):
            raise TypeError(f"cfunc(): {self._ret} is not a C result type (numbers, pointers, "
                            f"none)")
        kwargs = {k: v for k, v in options.items() if k in _PASSED}
        if "fastmath" in kwargs:
            from .decorators import fastmath_flags
            kwargs["fastmath"] = fastmath_flags(kwargs["fastmath"])
        disp = _core.Dispatcher(compiled, _registry.REGISTRY, cfunc=True, **kwargs)
        disp._add_signature(tuple(a.name for a in self._args), self._ret.name, True)
        disp.disable_compile()
        self._dispatcher = disp
        self._pyfunc = func
        self.address = disp._cfunc_address()
        self._ctypes = self._cffi = None

    @property
    def ctypes(self):
        """A ctypes function object of the C entry (what scipy.LowLevelCallable takes)."""
        if self._ctypes is None:
            proto = ctypes.CFUNCTYPE(_ctype_of(self._ret), *(_ctype_of(a) for a in self._args))
            self._ctypes = proto(self.address)
        return self._ctypes

    @property
    def cffi(self):
        """The C entry as a cffi function pointer (needs cffi)."""
        if self._cffi is None:
            import cffi
            decl = f"{_cdecl_of(self._ret)}(*)({', '.join(_cdecl_of(a) for a in self._args) or 'void'})"
            self._cffi = cffi.FFI().cast(decl, self.address)
        return self._cffi

    @property
    def native_name(self):
        """The symbol of the C entry in the compiled code."""
        import re
        m = re.search(r"define [^@]*@\"?([^\"(]+__cfunc)\"?\(", self.inspect_llvm())
        return m.group(1) if m else None

    @property
    def signature(self):
        return types.Signature(self._ret, self._args)

    def inspect_llvm(self):
        """The optimised LLVM IR of the compiled function and its C entry."""
        return self._dispatcher.inspect_llvm(self._args)

    def inspect_asm(self):
        return self._dispatcher.inspect_asm(self._args)

    def inspect_types(self, file=None):
        return self._dispatcher.inspect_types(self._args, file=file)

    def __call__(self, *args):
        """Calls the compiled C function through ctypes, as C would."""
        return self.ctypes(*args)

    def __repr__(self):
        return f"<cfunc {self.__qualname__} {self.signature}>"


def cfunc(sig, **options):
    """@cfunc(signature): compiles the function now to a C function of that signature
    (Numba's cfunc). The signature is a string ('float64(intc, CPointer(float64))') or a
    pyjit signature (float64(intc, types.CPointer(float64)))."""
    if callable(sig) and not isinstance(sig, (str, types.Type, types.Signature)):
        raise TypeError("cfunc needs a signature: @cfunc('float64(float64)')")

    def decorate(func):
        return CFunc(func, sig, options)
    return decorate


# ---- carray / farray ------------------------------------------------------------------------

def _array_over(ptr, shape, dtype, order):
    import numpy as np
    if isinstance(shape, int):
        shape = (shape,)
    if isinstance(ptr, ctypes._Pointer):
        item = ptr._type_
        if dtype is not None and np.dtype(dtype) != np.dtype(item):
            raise TypeError(f"carray: the pointer is to {item.__name__}, dtype says {np.dtype(dtype)}")
        dtype = np.dtype(item)
        address = ctypes.cast(ptr, ctypes.c_void_p).value
    elif isinstance(ptr, (int, ctypes.c_void_p)):
        if dtype is None:
            raise TypeError("carray of a void pointer needs dtype=")
        address = ptr if isinstance(ptr, int) else ptr.value
        dtype = np.dtype(dtype)
    else:
        raise TypeError(f"carray takes a ctypes pointer or an address, not {type(ptr).__name__}")
    count = 1
    for n in shape:
        count *= n
    buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(buf, dtype=dtype).reshape(shape, order=order)


def carray(ptr, shape, dtype=None):
    """The C-ordered array of shape over the memory ptr points at (no copy). In compiled code
    ptr is a CPointer or voidptr (dtype= then says the item type); in Python a ctypes pointer
    or an address."""
    return _array_over(ptr, shape, dtype, "C")


def farray(ptr, shape, dtype=None):
    """carray in Fortran order."""
    return _array_over(ptr, shape, dtype, "F")
