"""Numba's numba.core.typing.cffi_utils.map_type: the pyjit type of a cffi type, so a @cfunc's
signature can come from C declarations.

    ffi.cdef("typedef struct {int i1; float af4[7];} my_struct;"
             "typedef double (*my_func)(my_struct *, size_t);")
    sig = cffi_utils.map_type(ffi.typeof("my_func"), use_record_dtype=True)
    @cfunc(sig)                     # double(cpointer(record(...)), uint64)
    def f(ptr, n): ...

Numbers map to the scalar types of their width, `void *` to voidptr, other pointers to
CPointer, a struct to the record of its fields (Record.make_c_struct, a C array field a
NestedArray), a function (or a pointer to one) to its Signature.
"""
from ... import types

__all__ = ["map_type"]


def map_type(cffi_type, use_record_dtype=False):
    """The pyjit type of cffi_type (a cffi ctype). Structs always map to records
    (use_record_dtype is accepted for Numba's spelling)."""
    kind = cffi_type.kind
    if kind == "function" or (kind == "pointer" and cffi_type.item.kind == "function"):
        fn = cffi_type if kind == "function" else cffi_type.item
        if fn.ellipsis:
            raise TypeError(f"map_type: {fn.cname} takes variable arguments (...)")
        return types.Signature(map_type(fn.result), [map_type(a) for a in fn.args])
    if kind == "void":
        return types.none
    if kind == "pointer":
        if cffi_type.item.kind == "void":
            return types.voidptr
        return types.CPointer(map_type(cffi_type.item, use_record_dtype))
    if kind == "struct":
        return types.Record.make_c_struct([(name, map_type(f.type, use_record_dtype))
                                           for name, f in cffi_type.fields])
    if kind == "array":
        item, shape = cffi_type, []
        while item.kind == "array":
            shape.append(item.length)
            item = item.item
        return types.NestedArray(map_type(item, use_record_dtype), tuple(shape))
    if kind == "primitive":
        return types._from_canonical(_primitive(cffi_type))
    raise TypeError(f"map_type: {cffi_type.cname} ({kind}) has no pyjit type")


def _primitive(tp):
    import cffi
    from ..._ffi import _name_of_cffi
    return _name_of_cffi(cffi.FFI(), tp, f"map_type({tp.cname})")
