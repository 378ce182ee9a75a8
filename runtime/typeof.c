/* typeof.c: Python values -> pyjit types, and values across the border in the ABI layout.
 *
 * The dispatcher calls rt_typeof on every argument of every call, so it looks at the object's
 * type pointer and flags and never builds a Python object: the common scalar types are pointer
 * comparisons, arrays a lookup in a small cache of interned array types. Unboxing writes values
 * where the compiled wrapper reads them (abi.h: ArrayDesc for arrays, C structs for tuples laid
 * out by ty_mem_size/ty_tuple_offset); boxing builds the Python result and hands the MemInfo of
 * a returned array to a MemInfoOwner that NumPy frees it through.
 *
 * This is the only file that uses NumPy's C API; it imports it on first need, so `import pyjit`
 * does not import NumPy. */
#include "runtime/runtime.h"
#include "frontend/frontend.h"

#include <math.h>
#include <string.h>

#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

#define N_SCALARS (TY_COMPLEX128 + 1)

static Type *scalar_types[N_SCALARS];
static Type *weak_int, *weak_float, *weak_complex;   /* Python int/float/complex arguments */
static Type *none_type;
/* Interned array types by (dtype, ndim, layout, readonly): interning takes a lock, this does not.
 * Entries are written under the GIL and only ever set to the one interned value. */
static Type *array_cache[N_SCALARS][ABI_MAX_NDIM + 1][3][2];

static const char ACCEPTED[] = "bool, int, float, complex, str, NumPy scalars, NumPy arrays of "
                               "bool/int/uint/float/complex/datetime64/timedelta64 or structured "
                               "dtype, records (np.void), bytes, bytearray, array.array and "
                               "memoryview, tuples, lists and "
                               "sets of these, "
                               "typed Lists, pyjit.typed.Dict, None, @njit functions, NumPy scalar "
                               "types and dtypes, pyjit types (types.int64, types.Tuple(...)), "
                               "np.polynomial.Polynomial";

void rt_typeof_init(void)
{
    for (int k = 0; k < N_SCALARS; k++)
        scalar_types[k] = ty_scalar((TypeKind)k);
    weak_int = ty_weak(scalar_types[TY_INT64]);
    weak_float = ty_weak(scalar_types[TY_FLOAT64]);
    weak_complex = ty_weak(scalar_types[TY_COMPLEX128]);
    none_type = ty_scalar(TY_NONE);
}

int rt_numpy_ready(void)
{
    return PyArray_ImportNumPyAPI();
}

/* NumPy type number -> scalar kind, or -1 for dtypes compiled code does not take. */
static int kind_of_typenum(int typenum)
{
    switch (typenum) {
    case NPY_BOOL: return TY_BOOL;
    case NPY_BYTE: return TY_INT8;
    case NPY_UBYTE: return TY_UINT8;
    case NPY_SHORT: return TY_INT16;
    case NPY_USHORT: return TY_UINT16;
    case NPY_INT: return sizeof(int) == 4 ? TY_INT32 : TY_INT64;
    case NPY_UINT: return sizeof(int) == 4 ? TY_UINT32 : TY_UINT64;
    case NPY_LONG: return sizeof(long) == 8 ? TY_INT64 : TY_INT32;
    case NPY_ULONG: return sizeof(long) == 8 ? TY_UINT64 : TY_UINT32;
    case NPY_LONGLONG: return TY_INT64;
    case NPY_ULONGLONG: return TY_UINT64;
    case NPY_HALF: return TY_FLOAT16;
    case NPY_FLOAT: return TY_FLOAT32;
    case NPY_DOUBLE: return TY_FLOAT64;
    case NPY_CFLOAT: return TY_COMPLEX64;
    case NPY_CDOUBLE: return TY_COMPLEX128;
    default: return -1;
    }
}

static int typenum_of_kind(TypeKind kind)
{
    static const int nums[N_SCALARS] = {
        NPY_BOOL, NPY_INT8, NPY_INT16, NPY_INT32, NPY_INT64, NPY_UINT8, NPY_UINT16, NPY_UINT32,
        NPY_UINT64, NPY_HALF, NPY_FLOAT32, NPY_FLOAT64, NPY_COMPLEX64, NPY_COMPLEX128,
    };
    return nums[kind];
}

static Type *typeof_int(PyObject *obj)
{
    int overflow;
    PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (!overflow)
        return weak_int;
    if (overflow > 0) {
        PyLong_AsUnsignedLongLong(obj);
        if (!PyErr_Occurred())
            return scalar_types[TY_UINT64];
    }
    PyErr_Clear();
    PyErr_SetString(PyExc_OverflowError, "int too large for int64 and uint64");
    return NULL;
}

/* The dispatcher behind a tuple item that may be a first-class function: an @njit function, or
 * a @cfunc (its _dispatcher, which declares the C signature); NULL for anything else. A new
 * reference. */
static RtDispatcher *function_item(PyObject *item)
{
    if (PyObject_TypeCheck(item, &RtDispatcherType))
        return (RtDispatcher *)Py_NewRef(item);
    if (!PyObject_HasAttrString((PyObject *)Py_TYPE(item), "_pyjit_cfunc"))
        return NULL;
    PyObject *d = PyObject_GetAttrString(item, "_dispatcher");
    PyErr_Clear();
    if (d && PyObject_TypeCheck(d, &RtDispatcherType))
        return (RtDispatcher *)d;
    Py_XDECREF(d);
    return NULL;
}

/* A tuple of functions of one signature, the one those that declare a signature declare (@njit
 * functions with one declared signature, @cfuncs), the others compiled for it when unboxed: a
 * tuple of first-class functions of it (Numba's UniTuple(FunctionType)), so that funcs[i](x)
 * picks one at run time. NULL otherwise: a tuple of the dispatchers themselves, each known when
 * compiling. */
static Type *typeof_function_tuple(PyObject *obj, Type **items, Py_ssize_t n)
{
    Type *ft = NULL;
    bool ok = true;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        RtDispatcher *d = function_item(PyTuple_GET_ITEM(obj, i));
        ok = d && (items[i]->kind == TY_DISPATCHER || items[i]->kind == TY_FUNCTION);
        if (ok && d->nsigs == 1 && d->sigs[0].ret) {
            Type *t = ty_function_type(d->sigs[0].ret, d->sigs[0].args, d->nargs);
            ok = !ft || t == ft;
            ft = t;
        } else if (ok) {
            ok = d->nsigs == 0 && !d->cfunc;   /* a lazy @njit function: compiled for ft */
        }
        Py_XDECREF(d);
    }
    if (!ok || !ft)
        return NULL;
    Type *same[RT_MAX_ARGS];
    for (Py_ssize_t i = 0; i < n; i++)
        same[i] = ft;
    return ty_tuple(same, (int)n);
}

static Type *typeof_tuple(PyObject *obj, int flags)
{
    Py_ssize_t n = PyTuple_GET_SIZE(obj);
    if (n > RT_MAX_ARGS)
        return NULL;
    Type *items[RT_MAX_ARGS];
    for (Py_ssize_t i = 0; i < n; i++) {
        items[i] = rt_typeof(PyTuple_GET_ITEM(obj, i), flags);
        /* a kernel's record argument is copied to the device on its own (runtime/launch.c:
         * classify_record), never inside a tuple */
        if (!items[i] || (items[i]->kind == TY_RECORD && (flags & RT_TYPEOF_GPU)))
            return NULL;
        items[i] = ty_strong(items[i]);   /* weak values are scalars, never tuple items */
    }
    Type *functions = typeof_function_tuple(obj, items, n);
    return functions ? functions : ty_tuple(items, (int)n);
}

/* An instance of a namedtuple class: a tuple type carrying the class, so the dispatcher keys on
 * it and a result is boxed back as an instance of it. Another tuple subclass is a plain tuple. */
static Type *typeof_namedtuple(PyObject *obj, int flags)
{
    const FeNamedTuple *nt = fe_namedtuple_class((PyObject *)Py_TYPE(obj));
    Type *plain = typeof_tuple(obj, flags);
    if (!plain || !nt || nt->n != PyTuple_GET_SIZE(obj))
        return plain;
    return ty_namedtuple(nt->cls, nt->name, (const char *const *)nt->fields, plain->tuple.items,
                         plain->tuple.n);
}

/* An enum member (fe_enum_class): the namedtuple type of its class over its value's type. */
static Type *typeof_enum_member(PyObject *obj, const FeNamedTuple *nt, int flags)
{
    PyObject *value = fe_enum_value(obj);
    Type *item = value ? rt_typeof(value, flags) : NULL;
    Py_XDECREF(value);
    if (!item)
        return NULL;
    item = ty_strong(item);
    return ty_namedtuple(nt->cls, nt->name, (const char *const *)nt->fields, &item, 1);
}

/* An instance of an attribute class (fe_attribute_class, np.polynomial.Polynomial): the
 * namedtuple type of its class over its attributes' types. */
static Type *typeof_attribute_instance(PyObject *obj, const FeNamedTuple *nt, int flags)
{
    PyObject *values = fe_attribute_values(nt, obj);
    Type *plain = values ? typeof_tuple(values, flags) : NULL;
    Py_XDECREF(values);
    if (!plain)
        return NULL;
    return ty_namedtuple(nt->cls, nt->name, (const char *const *)nt->fields, plain->tuple.items,
                         plain->tuple.n);
}

/* Record types of structured dtypes by the dtype object, which the entry keeps alive (so its
 * address is not reused), with their array types: naming a dtype's record type costs a call of
 * pyjit/_records.py, once per dtype object. Written under the GIL, as array_cache. */
#define N_RECORD_CACHE 64
typedef struct RecordEntry {
    PyArray_Descr *descr;
    Type *record;
    Type *arrays[ABI_MAX_NDIM + 1][3][2];
} RecordEntry;
static RecordEntry record_cache[N_RECORD_CACHE];

/* The record type of a structured dtype: NULL (no exception) when compiled code does not take
 * it, or with an exception set when asking failed. */
static RecordEntry *record_entry(PyArray_Descr *d)
{
    int free_slot = -1;
    for (int i = 0; i < N_RECORD_CACHE; i++) {
        if (record_cache[i].descr == d)
            return &record_cache[i];
        if (!record_cache[i].descr && free_slot < 0)
            free_slot = i;
    }
    static RecordEntry spare;   /* past the cache's capacity: recomputed at every call */
    PyObject *mod = PyImport_ImportModule("pyjit._records");
    PyObject *name = mod ? PyObject_CallMethod(mod, "type_name", "O", (PyObject *)d) : NULL;
    Py_XDECREF(mod);
    if (!name)
        return NULL;
    Type *t = PyUnicode_Check(name) ? ty_parse(PyUnicode_AsUTF8(name)) : NULL;
    Py_DECREF(name);
    if (!t || t->kind != TY_RECORD)
        return NULL;
    RecordEntry *e = free_slot >= 0 ? &record_cache[free_slot] : &spare;
    memset(e, 0, sizeof *e);
    e->descr = free_slot >= 0 ? (PyArray_Descr *)Py_NewRef((PyObject *)d) : NULL;
    e->record = t;
    return e;
}

static Type *typeof_record_array(PyArray_Descr *descr, int ndim, int layout, int readonly)
{
    RecordEntry *e = record_entry(descr);
    if (!e)
        return NULL;
    Type **slot = &e->arrays[ndim][layout][readonly];
    if (!*slot)
        *slot = ty_array(e->record, ndim, "CFA"[layout], readonly);
    return *slot;
}

Type *rt_record_array_type(PyObject *dtype, int ndim, char layout, bool readonly)
{
    if (rt_numpy_ready() < 0 || !PyArray_DescrCheck(dtype) ||
        !PyDataType_HASFIELDS((PyArray_Descr *)dtype) || ndim > ABI_MAX_NDIM)
        return NULL;
    return typeof_record_array((PyArray_Descr *)dtype, ndim, layout == 'C' ? 0 : layout == 'F' ? 1 : 2,
                               readonly);
}

/* The datetime64 or timedelta64 type of a dtype, from its unit (NumPy's NPY_DATETIMEUNIT: Y, M,
 * W, a gap where NumPy 1.6's business day was, then D ... ns); NULL for another dtype, a unit
 * below a nanosecond or a multiple of a unit (M8[5s]). */
static Type *datetime_of_descr(PyArray_Descr *d)
{
    if (d->type_num != NPY_DATETIME && d->type_num != NPY_TIMEDELTA)
        return NULL;
    PyArray_DatetimeMetaData *meta = &((PyArray_DatetimeDTypeMetaData *)PyDataType_C_METADATA(d))->meta;
    int base = meta->base;
    DateUnit unit = base == NPY_FR_GENERIC ? DT_GENERIC : base <= NPY_FR_W ? (DateUnit)base
                  : base >= NPY_FR_D && base <= NPY_FR_ns ? (DateUnit)(base - 1) : (DateUnit)-1;
    if ((int)unit < 0 || (meta->num != 1 && unit != DT_GENERIC))
        return NULL;
    return ty_datetime(d->type_num == NPY_DATETIME ? TY_DATETIME : TY_TIMEDELTA, unit);
}

/* Array types of datetime64 and timedelta64 dtypes, as array_cache (under the GIL). */
static Type *datetime_arrays[2][DT_GENERIC + 1][ABI_MAX_NDIM + 1][3][2];

static Type *typeof_datetime_array(Type *dt, int ndim, int layout, int readonly)
{
    Type **slot = &datetime_arrays[dt->kind == TY_TIMEDELTA][dt->datetime.unit][ndim][layout][readonly];
    if (!*slot)
        *slot = ty_array(dt, ndim, "CFA"[layout], readonly);
    return *slot;
}

static Type *typeof_array(PyArrayObject *arr, int flags)
{
    int kind = kind_of_typenum(PyArray_DESCR(arr)->type_num);
    int ndim = PyArray_NDIM(arr);
    bool record = PyDataType_HASFIELDS(PyArray_DESCR(arr));   /* kernels take them too */
    Type *dt = flags & RT_TYPEOF_GPU ? NULL : datetime_of_descr(PyArray_DESCR(arr));
    if (!(flags & RT_TYPEOF_GPU) && PyArray_DESCR(arr)->type_num == NPY_UNICODE &&
        PyArray_ITEMSIZE(arr) >= 4)   /* 'U<n>': NumPy's elsize is 4n */
        dt = ty_charseq((int)(PyArray_ITEMSIZE(arr) / 4));
    if ((kind < 0 && !record && !dt) || ndim > ABI_MAX_NDIM || !PyArray_ISNOTSWAPPED(arr) ||
        (!PyArray_ISALIGNED(arr) && (flags & RT_TYPEOF_GPU)))
        return NULL;   /* unaligned arrays are fine on the CPU: lower_array.c elem_align */
    int layout = PyArray_IS_C_CONTIGUOUS(arr) ? 0 : PyArray_IS_F_CONTIGUOUS(arr) ? 1 : 2;
    int readonly = !PyArray_ISWRITEABLE(arr);
    if (record)
        return typeof_record_array(PyArray_DESCR(arr), ndim, layout, readonly);
    if (dt && dt->kind == TY_CHARSEQ)
        return ty_array(dt, ndim, "CFA"[layout], readonly);
    if (dt)
        return typeof_datetime_array(dt, ndim, layout, readonly);
    Type **slot = &array_cache[kind][ndim][layout][readonly];
    if (!*slot)
        *slot = ty_array(scalar_types[kind], ndim, "CFA"[layout], readonly);
    return *slot;
}

/* What a subclass may define of ndarray's attributes and still be a plain array in compiled
 * code: how it is made, finalised, copied, pickled and printed. */
static const char *const harmless_overrides[] = {
    "__new__", "__init__", "__array_finalize__", "__doc__", "__module__", "__qualname__",
    "__dict__", "__weakref__", "__slots__", "__annotations__", "__hash__", "__repr__", "__str__",
    "__format__", "__reduce__", "__reduce_ex__", "__setstate__", "__getstate__", "__copy__",
    "__deepcopy__", "__init_subclass__", "__class_getitem__", "__sizeof__",
};

static bool harmless_override(PyObject *name)
{
    const char *s = PyUnicode_AsUTF8(name);
    for (size_t i = 0; s && i < sizeof harmless_overrides / sizeof *harmless_overrides; i++)
        if (strcmp(s, harmless_overrides[i]) == 0)
            return true;
    PyErr_Clear();
    return false;
}

/* The first attribute of ndarray that tp, or a class between it and ndarray in its MRO,
 * redefines beyond the harmless ones: a new reference to its name, Py_None when there is none,
 * NULL with an exception set. */
static PyObject *overridden_attribute(PyTypeObject *tp)
{
    PyObject *mro = tp->tp_mro;
    for (Py_ssize_t i = 0; mro && i < PyTuple_GET_SIZE(mro); i++) {
        PyObject *base = PyTuple_GET_ITEM(mro, i);   /* borrowed */
        if (base == (PyObject *)&PyArray_Type)
            break;
        PyObject *dict = PyObject_GetAttrString(base, "__dict__");
        PyObject *keys = dict ? PyMapping_Keys(dict) : NULL;
        Py_XDECREF(dict);
        if (!keys)
            return NULL;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(keys); k++) {
            PyObject *name = PyList_GET_ITEM(keys, k);   /* borrowed */
            if (PyUnicode_Check(name) && !harmless_override(name) &&
                PyObject_HasAttr((PyObject *)&PyArray_Type, name)) {
                Py_INCREF(name);
                Py_DECREF(keys);
                return name;
            }
        }
        Py_DECREF(keys);
    }
    return Py_NewRef(Py_None);
}

/* overridden_attribute(tp), remembered per subclass (a borrowed reference: the cache holds it
 * and the type for the life of the process, as the types of compiled code live). */
static PyObject *subclass_override(PyTypeObject *tp)
{
    static PyObject *seen;   /* type -> name or None, made on first need (under the GIL) */
    if (!seen && !(seen = PyDict_New()))
        return NULL;
    PyObject *known = PyDict_GetItemWithError(seen, (PyObject *)tp);   /* borrowed */
    if (known || PyErr_Occurred())
        return known;
    PyObject *name = overridden_attribute(tp);
    int err = name ? PyDict_SetItem(seen, (PyObject *)tp, name) : -1;
    Py_XDECREF(name);
    return err < 0 ? NULL : PyDict_GetItem(seen, (PyObject *)tp);
}

/* Whether an ndarray subclass is compiled as a plain array: one that redefines none of
 * ndarray's attributes beyond how it is made, finalised, pickled and printed (it adds
 * attributes, properties and methods of its own, as stumpy's mparray does: Numba takes every
 * subclass as a plain array); np.memmap, whose elements, indexing and arithmetic are ndarray's
 * (its data lives in a mapped file, which writes reach); np.recarray, whose redefinitions give
 * fields as attributes (p.x, p[i].x), which compiled code gives any record array, as Numba and
 * numba-cuda take it; and the subclasses that declare
 * `_pyjit_plain` for the same reason (pyjit.gpu's arrays in mapped or managed memory).
 * Others change what operations mean (np.matrix's `*`, np.ma.MaskedArray's masked elements),
 * so compiling them as plain arrays would give other results: they are refused. 1, 0, or -1
 * with an exception set. */
static int plain_subclass(PyTypeObject *tp)
{
    /* numpy.memmap and numpy.recarray, looked up on first need (under the GIL) */
    static PyObject *memmap, *recarray;
    if (!memmap) {
        PyObject *np = PyImport_ImportModule("numpy");
        memmap = np ? PyObject_GetAttrString(np, "memmap") : NULL;
        recarray = np && memmap ? PyObject_GetAttrString(np, "recarray") : NULL;
        Py_XDECREF(np);
        if (!memmap || !recarray) {
            Py_CLEAR(memmap);
            return -1;
        }
    }
    if ((PyObject *)tp == memmap || (PyObject *)tp == recarray ||
        PyObject_HasAttrString((PyObject *)tp, "_pyjit_plain"))
        return 1;
    PyObject *override = subclass_override(tp);   /* borrowed */
    return override ? override == Py_None : -1;
}

/* A dispatcher passed as an argument: the callee specialises on it (its type is the dispatcher
 * itself, as in Numba), and nothing is passed at run time. The type holds the dispatcher, so it
 * keeps a reference to it for the life of the process, as types live. */
static Type *typeof_dispatcher(PyObject *obj)
{
    RtDispatcher *d = (RtDispatcher *)obj;
    if (!d->as_value) {
        Const k = {.kind = K_DISPATCHER, .handle = obj, .name = d->cname};
        PyObject *qualname = PyObject_GetAttrString(obj, "__qualname__");
        const char *q = qualname ? PyUnicode_AsUTF8(qualname) : NULL;
        PyErr_Clear();
        if (q)
            k.name = q;
        Py_INCREF(obj);
        d->as_value = ty_literal(TY_DISPATCHER, &k);
        Py_XDECREF(qualname);
    }
    return d->as_value;
}

/* A pyjit type object given as a value (types.int64, types.Tuple([...]), types.float64[:]), as
 * Numba takes one: f(dem, mask, tuple_type) then List.empty_list(tuple_type). A constant of the
 * compiled version, keyed by the type's canonical name, with nothing to pass at run time. NULL
 * for any other object. */
static Type *typeof_type_object(PyObject *obj)
{
    PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__module__");
    bool ours = mod && PyUnicode_Check(mod) && strcmp(PyUnicode_AsUTF8(mod), "pyjit.types") == 0;
    Py_XDECREF(mod);
    PyObject *name = ours ? PyObject_GetAttrString(obj, "name") : NULL;
    const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    Type *t = NULL;
    if (s && ty_parse(s)) {
        Const k = {.kind = K_TYPE, .name = s};
        t = ty_literal(TY_FUNCTION, &k);
    }
    Py_XDECREF(name);
    PyErr_Clear();
    return t;
}

/* A NumPy scalar type (np.float32) or a plain dtype (np.dtype("int16")) given as a value, as
 * in f(n, dtype=np.float32): typed as in compiled code, a compile-time dtype with nothing to
 * pass at run time, so each dtype compiles its own version. NULL for any other object. */
static Type *typeof_dtype_object(PyObject *obj)
{
    PyArray_Descr *descr = NULL;
    if (PyType_Check(obj) && PyType_IsSubtype((PyTypeObject *)obj, &PyGenericArrType_Type))
        descr = PyArray_DescrFromTypeObject(obj);
    else if (PyArray_DescrCheck(obj)) {
        descr = (PyArray_Descr *)obj;
        Py_INCREF(descr);
    }
    if (!descr) {
        PyErr_Clear();
        return NULL;
    }
    int kind = PyDataType_HASFIELDS(descr) || PyDataType_HASSUBARRAY(descr) ||
               !PyArray_ISNBO(descr->byteorder) ? -1 : kind_of_typenum(descr->type_num);
    Py_DECREF(descr);
    return kind < 0 ? NULL : ty_dtype(scalar_types[kind]);
}

/* Everything but the exact built-in scalar types: NumPy arrays and scalars, subclasses. */
/* bytes and bytearray are arrays of uint8 in compiled code, as Numba's Bytes and ByteArray
 * types are array-like: indexing, len, iteration, np.frombuffer; bytes read-only. */
static Type *typeof_bytes(PyObject *obj)
{
    bool readonly = PyBytes_Check(obj);
    Type **slot = &array_cache[TY_UINT8][1][0][readonly];
    if (!*slot)
        *slot = ty_array(scalar_types[TY_UINT8], 1, 'C', readonly);
    return *slot;
}

/* array.array and memoryview reach compiled code through the buffer protocol, as Numba takes
 * them: an array of the buffer's item type over its memory (indexing, len, iteration). */
static bool is_buffer_arg(PyObject *obj)
{
    return PyMemoryView_Check(obj) || strcmp(Py_TYPE(obj)->tp_name, "array.array") == 0;
}

/* The scalar kind of a buffer's one-character struct format (native order and sizes), or -1. */
static int buffer_kind(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=')
        f++;
    if (!f[0] || f[1])
        return -1;
    static const TypeKind ints[] = {TY_INT8, TY_INT16, TY_INT32, TY_INT64};
    static const TypeKind uints[] = {TY_UINT8, TY_UINT16, TY_UINT32, TY_UINT64};
    int size_log = v->itemsize == 1 ? 0 : v->itemsize == 2 ? 1 : v->itemsize == 4 ? 2
                 : v->itemsize == 8 ? 3 : -1;
    if (size_log < 0)
        return -1;
    if (strchr("bhilqn", *f))
        return (int)ints[size_log];
    if (strchr("BHILQN", *f))
        return (int)uints[size_log];
    if (*f == '?' && v->itemsize == 1)
        return TY_BOOL;
    if ((*f == 'f' || *f == 'd') && size_log >= 2)
        return size_log == 2 ? TY_FLOAT32 : TY_FLOAT64;
    return -1;
}

static Type *typeof_buffer(PyObject *obj)
{
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return NULL;
    }
    int kind = buffer_kind(&v);
    char layout = PyBuffer_IsContiguous(&v, 'C') ? 'C' : PyBuffer_IsContiguous(&v, 'F') ? 'F' : 'A';
    bool ok = kind >= 0 && v.ndim >= 1 && v.ndim <= ABI_MAX_NDIM;
    Type *t = ok ? ty_array(scalar_types[kind], v.ndim, layout, v.readonly) : NULL;
    PyBuffer_Release(&v);
    return t;
}

/* Fills desc from a buffer argument (typeof_buffer): its memory stays the caller's object's,
 * which the caller holds for the call. */
static int unbox_buffer(PyObject *obj, Type *ty, ArrayDesc *desc)
{
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_RECORDS_RO) < 0)
        return -1;
    int ndim = ty->array.ndim;
    desc->data = v.buf;
    for (int i = 0; i < ndim && i < v.ndim; i++) {
        desc->dims[i] = v.shape ? v.shape[i] : v.len / v.itemsize;
        desc->dims[ndim + i] = v.strides ? v.strides[i] : v.itemsize;
    }
    PyBuffer_Release(&v);
    return 0;
}

static Type *typeof_other(PyObject *obj, int flags)
{
    if (rt_numpy_ready() < 0)
        return NULL;
    if ((PyType_Check(obj) || PyArray_DescrCheck(obj)) && !(flags & RT_TYPEOF_GPU))
        return typeof_dtype_object(obj);
    if (PyArray_CheckExact(obj))
        return typeof_array((PyArrayObject *)obj, flags);
    if (PyArray_Check(obj))
        return plain_subclass(Py_TYPE(obj)) > 0 ? typeof_array((PyArrayObject *)obj, flags) : NULL;
    if (PyArray_IsScalar(obj, Generic)) {
        PyArray_Descr *descr = PyArray_DescrFromScalar(obj);
        if (descr && PyDataType_HASFIELDS(descr)) {   /* np.void, np.record; kernels too */
            RecordEntry *e = record_entry(descr);
            Py_DECREF(descr);
            return e ? e->record : NULL;
        }
        int kind = descr ? kind_of_typenum(descr->type_num) : -1;
        Type *dt = descr && !(flags & RT_TYPEOF_GPU) ? datetime_of_descr(descr) : NULL;
        Py_XDECREF(descr);
        if (dt)
            return dt;
        if (kind < 0)
            return NULL;
        return scalar_types[kind];
    }
    if (PyBool_Check(obj))
        return scalar_types[TY_BOOL];
    if (PyLong_Check(obj))
        return typeof_int(obj);
    if (PyFloat_Check(obj))
        return weak_float;
    if (PyComplex_Check(obj))
        return weak_complex;
    if (PyTuple_Check(obj))
        return typeof_namedtuple(obj, flags);
    const FeNamedTuple *enum_class = fe_enum_class((PyObject *)Py_TYPE(obj));
    if (enum_class)
        return typeof_enum_member(obj, enum_class, flags);
    if (PyList_Check(obj) && !(flags & RT_TYPEOF_GPU))
        return rt_typeof_list(obj, flags);
    if (PyObject_TypeCheck(obj, &RtTypedListType) && !(flags & RT_TYPEOF_GPU))
        return rt_typeof_typed_list(obj);
    if (PyObject_TypeCheck(obj, &RtDictType) && !(flags & RT_TYPEOF_GPU))
        return rt_typeof_dict(obj);
    if (PyObject_TypeCheck(obj, &RtJitClassBoxType) && !(flags & RT_TYPEOF_GPU))
        return rt_typeof_jitclass(obj);
    if ((PySet_Check(obj) || PyFrozenSet_Check(obj)) && !(flags & RT_TYPEOF_GPU))
        return rt_typeof_set(obj, flags);
    if (PyObject_TypeCheck(obj, &RtDispatcherType) && !(flags & RT_TYPEOF_GPU))
        return typeof_dispatcher(obj);
    if (!(flags & RT_TYPEOF_GPU) && rt_is_generator(obj))
        return ty_rng();
    if ((PyBytes_Check(obj) || PyByteArray_Check(obj)) && !(flags & RT_TYPEOF_GPU))
        return typeof_bytes(obj);
    if (is_buffer_arg(obj) && !(flags & RT_TYPEOF_GPU))
        return typeof_buffer(obj);
    const FeNamedTuple *by_attributes = fe_attribute_class((PyObject *)Py_TYPE(obj));
    if (by_attributes && !(flags & RT_TYPEOF_GPU))
        return typeof_attribute_instance(obj, by_attributes, flags);
    if (flags & RT_TYPEOF_GPU)
        return NULL;
    Type *as_type = typeof_type_object(obj);
    return as_type ? as_type : rt_typeof_c_function(obj);
}

Type *rt_typeof(PyObject *obj, int flags)
{
    PyTypeObject *tp = Py_TYPE(obj);
    if (tp == &PyLong_Type) {
        /* Ints of a few digits fit int64: skip the overflow check for them. */
#if PY_VERSION_HEX >= 0x030C0000
        if (_PyLong_IsCompact((PyLongObject *)obj))
#else
        if (Py_ABS(Py_SIZE(obj)) <= 2)
#endif
            return weak_int;
        return typeof_int(obj);
    }
    if (tp == &PyFloat_Type)
        return weak_float;
    if (tp == &PyBool_Type)
        return scalar_types[TY_BOOL];
    if (obj == Py_None)
        return none_type;
    if (tp == &PyComplex_Type)
        return weak_complex;
    if (tp == &PyTuple_Type)
        return typeof_tuple(obj, flags);
    if (tp == &PyUnicode_Type)
        return flags & RT_TYPEOF_GPU ? NULL : ty_str();
    return typeof_other(obj, flags);
}

/* ---- what was given, for the TypeError ---- */

static PyObject *describe_array(PyArrayObject *arr)
{
    PyArray_Descr *d = PyArray_DESCR(arr);
    int kind = kind_of_typenum(d->type_num);
    if (PyArray_NDIM(arr) > ABI_MAX_NDIM)
        return PyUnicode_FromFormat("ndarray of %d dimensions (at most %d)", PyArray_NDIM(arr),
                                    ABI_MAX_NDIM);
    if (kind >= 0 && !PyArray_ISNOTSWAPPED(arr))
        return PyUnicode_FromFormat("ndarray of dtype %S (non-native byte order)", (PyObject *)d);
    if (kind >= 0)
        return PyUnicode_FromString("unaligned ndarray");
    return PyUnicode_FromFormat("ndarray of dtype %S", (PyObject *)d);
}

/* An ndarray subclass compiled code refuses, by its module-qualified name and the attribute
 * of ndarray it redefines. */
static PyObject *describe_subclass(PyTypeObject *tp)
{
    PyObject *mod = PyObject_GetAttrString((PyObject *)tp, "__module__");
    PyObject *name = PyObject_GetAttrString((PyObject *)tp, "__qualname__");
    PyObject *override = mod && name ? subclass_override(tp) : NULL;   /* borrowed */
    PyObject *s = NULL;
    if (override && PyUnicode_Check(mod) && PyUnicode_Check(name))
        s = PyUnicode_FromFormat("%U.%U, an ndarray subclass, which is not supported: it "
                                 "redefines ndarray's %R, so its operations are not a plain "
                                 "array's (pass np.asarray(x) for its plain data)", mod, name,
                                 override);
    Py_XDECREF(mod);
    Py_XDECREF(name);
    return s;
}

static PyObject *describe_value(PyObject *obj)
{
    if (PyArray_API && PyArray_Check(obj) && !PyArray_CheckExact(obj) && plain_subclass(Py_TYPE(obj)) == 0)
        return describe_subclass(Py_TYPE(obj));
    if (PyArray_API && PyArray_Check(obj))
        return describe_array((PyArrayObject *)obj);
    if (PyArray_API && PyArray_IsScalar(obj, Generic))
        return PyUnicode_FromFormat("NumPy scalar %s", Py_TYPE(obj)->tp_name);
    if (PyTuple_Check(obj)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(obj); i++) {
            PyObject *item = PyTuple_GET_ITEM(obj, i);
            if (rt_typeof(item, 0))
                continue;
            PyErr_Clear();
            PyObject *inner = describe_value(item);
            const FeNamedTuple *nt = fe_namedtuple_class((PyObject *)Py_TYPE(obj));
            PyObject *s = !inner ? NULL
                          : nt && i < nt->n ? PyUnicode_FromFormat("namedtuple %s whose field '%s' is %U",
                                                                   nt->name, nt->fields[i], inner)
                                            : PyUnicode_FromFormat("tuple whose item %zd is %U", i, inner);
            Py_XDECREF(inner);
            return s;
        }
        if (PyTuple_GET_SIZE(obj) > RT_MAX_ARGS)
            return PyUnicode_FromFormat("tuple of %zd items (at most %d)", PyTuple_GET_SIZE(obj),
                                        RT_MAX_ARGS);
    }
    const FeNamedTuple *by_attributes = fe_attribute_class((PyObject *)Py_TYPE(obj));
    PyObject *values = by_attributes ? fe_attribute_values(by_attributes, obj) : NULL;
    PyErr_Clear();
    for (int i = 0; values && i < by_attributes->n; i++) {
        PyObject *item = PyTuple_GET_ITEM(values, i);
        if (rt_typeof(item, 0))
            continue;
        PyErr_Clear();
        PyObject *inner = describe_value(item);
        PyObject *s = inner ? PyUnicode_FromFormat("%s whose %s is %U", by_attributes->name,
                                                   by_attributes->fields[i], inner) : NULL;
        Py_XDECREF(inner);
        Py_DECREF(values);
        return s;
    }
    Py_XDECREF(values);
    if (PyObject_TypeCheck(obj, &RtTypedListType))
        return PyUnicode_FromString("a typed List whose item type is not known yet (append an "
                                    "item, or make it with List.empty_list(item_type))");
    if (PyDict_Check(obj))
        return PyUnicode_FromString("dict (pass a pyjit.typed.Dict: Python dicts are not passed "
                                    "to compiled code, as in Numba)");
    if (PyObject_TypeCheck(obj, &RtDictType))
        return PyUnicode_FromString("an empty pyjit.typed.Dict() whose types are not known yet "
                                    "(make it with Dict.empty(key_type, value_type))");
    if (PyAnySet_Check(obj) && PySet_GET_SIZE(obj) == 0)
        return PyUnicode_FromString("an empty set (its item type cannot be told from it)");
    if (PyList_Check(obj) && PyList_GET_SIZE(obj) == 0)
        return PyUnicode_FromString("an empty list (its item type cannot be told from it: pass a "
                                    "list with items)");
    if (PyList_Check(obj)) {
        PyObject *item = PyList_GET_ITEM(obj, 0);
        if (PyList_Check(item))
            return PyUnicode_FromString("a list of lists (lists inside lists are not passed in: "
                                        "pass a tuple of lists, or arrays)");
        PyErr_Clear();
        PyObject *inner = describe_value(item);
        PyObject *s = inner ? PyUnicode_FromFormat("list whose item 0 is %U", inner) : NULL;
        Py_XDECREF(inner);
        return s;
    }
    if (PyFunction_Check(obj))
        return PyUnicode_FromFormat("the Python function %R (decorate it with @pyjit.njit to pass "
                                    "it to compiled code)", obj);
    return PyUnicode_FromString(Py_TYPE(obj)->tp_name);
}

PyObject *rt_raise_arg_error(const char *func, const char *argname, int position, PyObject *obj)
{
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_OverflowError))
        return NULL;
    if (PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError,
                     "%s() argument '%s' (position %d): int %R does not fit in int64 or uint64",
                     func, argname, position, obj);
        return NULL;
    }
    PyObject *got = describe_value(obj);
    if (got)
        PyErr_Format(PyExc_TypeError, "%s() argument '%s' (position %d): got %U; accepted: %s",
                     func, argname, position, got, ACCEPTED);
    Py_XDECREF(got);
    return NULL;
}

/* ---- unboxing ---- */

static int unbox_array(PyObject *obj, Type *ty, ArrayDesc *desc)
{
    PyArrayObject *arr = (PyArrayObject *)obj;
    int ndim = ty->array.ndim;
    desc->meminfo = NULL;
    desc->parent = obj;     /* borrowed: the caller holds the argument for the call */
    if (PyBytes_Check(obj) || PyByteArray_Check(obj)) {   /* typeof_bytes */
        bool bytes = PyBytes_Check(obj);
        desc->data = bytes ? PyBytes_AS_STRING(obj) : PyByteArray_AS_STRING(obj);
        desc->dims[0] = bytes ? PyBytes_GET_SIZE(obj) : PyByteArray_GET_SIZE(obj);
        desc->dims[1] = 1;
        return 0;
    }
    if (is_buffer_arg(obj))
        return unbox_buffer(obj, ty, desc);
    desc->data = PyArray_DATA(arr);
    for (int i = 0; i < ndim; i++) {
        desc->dims[i] = PyArray_DIM(arr, i);
        desc->dims[ndim + i] = PyArray_STRIDE(arr, i);
    }
    return 0;
}

static int unbox_scalar(PyObject *obj, Type *ty, void *buf)
{
    /* The common cases first, without a NumPy type check or an error check on success. */
    PyTypeObject *tp = Py_TYPE(obj);
    if (tp == &PyLong_Type && ty->kind == TY_INT64) {
        int64_t v = PyLong_AsLongLong(obj);
        *(int64_t *)buf = v;
        return v == -1 && PyErr_Occurred() ? -1 : 0;
    }
    if (tp == &PyFloat_Type) {
        *(double *)buf = PyFloat_AS_DOUBLE(obj);
        return 0;
    }
    if (PyArray_API && PyArray_IsScalar(obj, Generic)) {
        PyArray_ScalarAsCtype(obj, buf);   /* typeof took the type from this scalar's dtype */
        return 0;
    }
    switch (ty->kind) {
    case TY_BOOL:
        *(uint8_t *)buf = obj == Py_True;
        return 0;
    case TY_INT64:
        *(int64_t *)buf = PyLong_AsLongLong(obj);
        break;
    case TY_UINT64:
        *(uint64_t *)buf = PyLong_AsUnsignedLongLong(obj);
        break;
    case TY_FLOAT64:
        *(double *)buf = PyFloat_AsDouble(obj);
        break;
    case TY_COMPLEX128: {
        Py_complex c = PyComplex_AsCComplex(obj);
        memcpy(buf, &c, sizeof c);
        break;
    }
    default:
        PyErr_Format(PyExc_SystemError, "pyjit: cannot unbox %s", ty->name);
        return -1;
    }
    return PyErr_Occurred() ? -1 : 0;
}

/* A first-class function: the address of the dispatcher's version of that signature. */
static int unbox_function(PyObject *obj, Type *ty, void *buf)
{
    RtDispatcher *d = function_item(obj);
    if (!d) {
        PyErr_Format(PyExc_TypeError, "a %s takes an @njit function or a @cfunc, not %.100s",
                     ty->name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    void *fn = rt_function_address(d, ty);
    Py_DECREF(d);
    if (!fn)
        return -1;
    *(void **)buf = fn;
    return 0;
}

/* A record argument (np.void): a view of its bytes (abi: {MemInfo, address}, no MemInfo: the
 * caller holds the argument), so that writes reach it and the array it is an item of, as in
 * Numba. */
static int unbox_record(PyObject *obj, Type *ty, void *buf)
{
    if (!PyArray_IsScalar(obj, Void)) {
        PyErr_Format(PyExc_TypeError, "a %s takes a NumPy record (np.void), not %.100s", ty->name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    ((void **)buf)[0] = NULL;
    ((void **)buf)[1] = ((PyVoidScalarObject *)obj)->obval;
    return 0;
}

int rt_unbox(PyObject *obj, Type *ty, void *buf)
{
    switch (ty->kind) {
    case TY_RECORD:
        return unbox_record(obj, ty, buf);
    case TY_NONE: case TY_DISPATCHER: case TY_DTYPE:   /* nothing at run time */
    case TY_STRING:   /* an argument keyed by its value, a str: a constant in the code */
    case TY_FUNCTION:   /* a C function: its type says which (rt_typeof_c_function) */
        return 0;
    case TY_FUNCPTR:
        return unbox_function(obj, ty, buf);
    case TY_ARRAY:
        return unbox_array(obj, ty, buf);
    case TY_LIST:
        return ty->list.typed ? rt_unbox_typed_list(obj, ty, buf) : rt_unbox_list(obj, ty, buf);
    case TY_STR:
        return rt_unbox_str(obj, buf);
    case TY_DICT:
        return rt_unbox_dict(obj, ty, buf);
    case TY_SET:
        return rt_unbox_set(obj, ty, buf);
    case TY_CLASS:
        return rt_unbox_jitclass(obj, ty, buf);
    case TY_RNG:
        return rt_unbox_generator(obj, buf);
    case TY_OPTIONAL: {   /* {present, value}, the value zeroed when None */
        int64_t at = ty_mem_align(ty->optional.value);
        memset(buf, 0, (size_t)ty_mem_size(ty));
        if (obj == Py_None)
            return 0;
        *(uint8_t *)buf = 1;
        return rt_unbox(obj, ty->optional.value, (char *)buf + at);
    }
    case TY_TUPLE:
        if (!PyTuple_Check(obj) && fe_attribute_class((PyObject *)Py_TYPE(obj))) {
            /* typeof_attribute_instance: the tuple of its attributes, which obj keeps alive */
            PyObject *values = fe_attribute_values(fe_attribute_class((PyObject *)Py_TYPE(obj)),
                                                   obj);
            int rc = values ? rt_unbox(values, ty, buf) : -1;
            Py_XDECREF(values);
            return rc;
        }
        if (!PyTuple_Check(obj)) {   /* an enum member (typeof_enum_member): its value */
            PyObject *value = fe_enum_value(obj);
            int rc = value ? rt_unbox(value, ty->tuple.items[0], buf) : -1;
            Py_XDECREF(value);
            return rc;
        }
        for (int i = 0; i < ty->tuple.n; i++)
            if (rt_unbox(PyTuple_GET_ITEM(obj, i), ty->tuple.items[i],
                         (char *)buf + ty_tuple_offset(ty, i)) < 0) {
                while (--i >= 0)
                    rt_release_arg(ty->tuple.items[i], (char *)buf + ty_tuple_offset(ty, i));
                return -1;
            }
        return 0;
    default:
        return unbox_scalar(obj, ty, buf);
    }
}

/* ---- casts between scalars, for explicit signatures ---- */

typedef struct Number {
    bool is_int, is_unsigned;
    int64_t i;
    uint64_t u;
    double re, im;
} Number;

static double half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v = exp == 0 ? ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY)
                                                       : ldexp(mant | 0x400, exp - 25);
    return (h & 0x8000) ? -v : v;
}

static Number load_number(TypeKind kind, const void *p)
{
    Number n = {0};
    switch (kind) {
    case TY_BOOL: n.i = *(const uint8_t *)p != 0; n.is_int = true; break;
    case TY_INT8: n.i = *(const int8_t *)p; n.is_int = true; break;
    case TY_INT16: n.i = *(const int16_t *)p; n.is_int = true; break;
    case TY_INT32: n.i = *(const int32_t *)p; n.is_int = true; break;
    case TY_INT64: n.i = *(const int64_t *)p; n.is_int = true; break;
    case TY_UINT8: n.i = *(const uint8_t *)p; n.is_int = true; break;
    case TY_UINT16: n.i = *(const uint16_t *)p; n.is_int = true; break;
    case TY_UINT32: n.i = *(const uint32_t *)p; n.is_int = true; break;
    case TY_UINT64: n.u = *(const uint64_t *)p; n.is_int = n.is_unsigned = true; break;
    case TY_FLOAT16: n.re = half_to_double(*(const uint16_t *)p); break;
    case TY_FLOAT32: n.re = *(const float *)p; break;
    case TY_FLOAT64: n.re = *(const double *)p; break;
    case TY_COMPLEX64: n.re = ((const float *)p)[0]; n.im = ((const float *)p)[1]; break;
    case TY_COMPLEX128: n.re = ((const double *)p)[0]; n.im = ((const double *)p)[1]; break;
    default: break;
    }
    if (n.is_int && !n.is_unsigned)
        n.u = (uint64_t)n.i;
    if (n.is_int)
        n.re = n.is_unsigned ? (double)n.u : (double)n.i;
    return n;
}

/* A float truncated toward zero into 64 bits without undefined behaviour out of range. */
static uint64_t float_to_bits(double v)
{
    if (!(v > -9223372036854775808.0 && v < 18446744073709551616.0))
        return (uint64_t)INT64_MIN;
    return v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v;
}

/* A double as IEEE half, rounded to nearest even (CPython's packer); beyond its range an infinity,
 * as np.float16 gives. */
static void store_half(double v, void *p)
{
    if (PyFloat_Pack2(v, p, 1) < 0) {
        PyErr_Clear();
        uint16_t inf = v < 0 ? 0xfc00 : 0x7c00;
        memcpy(p, &inf, sizeof inf);
    }
}

static void store_number(TypeKind kind, Number n, void *p)
{
    uint64_t bits = n.is_int ? n.u : float_to_bits(n.re);
    switch (kind) {
    case TY_BOOL: *(uint8_t *)p = n.is_int ? n.u != 0 : (n.re != 0 || n.im != 0); break;
    case TY_INT8: case TY_UINT8: *(uint8_t *)p = (uint8_t)bits; break;
    case TY_INT16: case TY_UINT16: *(uint16_t *)p = (uint16_t)bits; break;
    case TY_INT32: case TY_UINT32: *(uint32_t *)p = (uint32_t)bits; break;
    case TY_INT64: case TY_UINT64: *(uint64_t *)p = bits; break;
    case TY_FLOAT16: store_half(n.re, p); break;
    case TY_FLOAT32: *(float *)p = (float)n.re; break;
    case TY_FLOAT64: *(double *)p = n.re; break;
    case TY_COMPLEX64: ((float *)p)[0] = (float)n.re; ((float *)p)[1] = (float)n.im; break;
    case TY_COMPLEX128: ((double *)p)[0] = n.re; ((double *)p)[1] = n.im; break;
    default: break;
    }
}

int rt_unbox_as(PyObject *obj, Type *from, Type *to, void *buf)
{
    if (to->kind == TY_OPTIONAL && from->kind != TY_OPTIONAL) {   /* {present, value} */
        memset(buf, 0, (size_t)ty_mem_size(to));
        if (from->kind == TY_NONE)
            return 0;
        *(uint8_t *)buf = 1;
        return rt_unbox_as(obj, from, to->optional.value,
                           (char *)buf + ty_mem_align(to->optional.value));
    }
    if (ty_strong(from) == to || ty_holds_meminfo(from))
        return rt_unbox(obj, from, buf);
    if (to->kind == TY_FUNCPTR)   /* a dispatcher where a FunctionType is declared */
        return rt_unbox(obj, to, buf);
    if (from->kind == TY_TUPLE) {
        for (int i = 0; i < from->tuple.n; i++)
            if (rt_unbox_as(PyTuple_GET_ITEM(obj, i), from->tuple.items[i], to->tuple.items[i],
                            (char *)buf + ty_tuple_offset(to, i)) < 0)
                return -1;
        return 0;
    }
    if (from->kind == TY_NONE)
        return 0;
    _Alignas(16) char tmp[16];
    if (unbox_scalar(obj, from, tmp) < 0)
        return -1;
    store_number(to->kind, load_number(from->kind, tmp), buf);
    return 0;
}

static int scalar_rank(Type *from, Type *to)
{
    if (to->kind == TY_FLOAT16 || from->kind == TY_FLOAT16)
        return -1;
    if (ty_is_complex(from))
        return ty_is_complex(to) ? (ty_bits(to) > ty_bits(from) ? 1 : 3) : -1;
    if (to->kind == TY_BOOL)
        return 3;
    if (from->kind == TY_BOOL)
        return 2;
    if (ty_is_float(from)) {
        if (ty_is_complex(to))
            return 2;
        return ty_is_float(to) ? (ty_bits(to) > ty_bits(from) ? 1 : 3) : 3;
    }
    /* from is an int */
    if (ty_is_float(to) || ty_is_complex(to)) {
        int mant = to->kind == TY_FLOAT32 || to->kind == TY_COMPLEX64 ? 24 : 53;
        return ty_bits(from) <= mant || (ty_bits(from) == 64 && mant == 53) ? 2 : 3;
    }
    if (ty_is_signed(from) == ty_is_signed(to))
        return ty_bits(to) > ty_bits(from) ? 1 : 3;
    return !ty_is_signed(from) && ty_bits(to) > ty_bits(from) ? 2 : 3;
}

/* Numba's width subtyping of records: a record whose fields include each of to's, of the same
 * type at the same offset, is read through to's layout (rank 1). */
static bool record_subtype(const Type *from, const Type *to)
{
    if (to->record.size > from->record.size)
        return false;
    for (int i = 0; i < to->record.n; i++) {
        const RecordField *want = &to->record.fields[i];
        int j = ty_record_field((Type *)from, want->name);
        const RecordField *have = j >= 0 ? &from->record.fields[j] : NULL;
        if (!have || have->type != want->type || have->offset != want->offset ||
            have->ndim != want->ndim ||
            memcmp(have->shape, want->shape, sizeof(int64_t) * (size_t)want->ndim) != 0)
            return false;
    }
    return true;
}

int rt_conversion_rank(Type *from, Type *to)
{
    from = ty_strong(from);
    to = ty_strong(to);
    if (from == to)
        return 0;
    if (ty_is_scalar(from) && ty_is_scalar(to))
        return scalar_rank(from, to);
    if (from->kind == TY_ARRAY && to->kind == TY_ARRAY) {
        if (from->array.dtype != to->array.dtype || from->array.ndim != to->array.ndim ||
            (from->array.readonly && !to->array.readonly))
            return -1;
        if (to->array.layout != 'A' && to->array.layout != from->array.layout)
            return -1;
        return 1;
    }
    if (from->kind == TY_DISPATCHER && to->kind == TY_FUNCPTR)
        return 1;   /* its version for the signature, when unboxed */
    if (from->kind == TY_RECORD && to->kind == TY_RECORD)
        return record_subtype(from, to) ? 1 : -1;
    if (to->kind == TY_OPTIONAL) {   /* None, or what converts to the value; an unsafe cast */
        int r = from->kind == TY_NONE ? 0 : rt_conversion_rank(from, to->optional.value);
        return r < 0 ? -1 : r < 3 ? r + 1 : 3;   /* into the value stays one a signature takes */
    }
    if (from->kind == TY_TUPLE && to->kind == TY_TUPLE && from->tuple.n == to->tuple.n) {
        int worst = 0;
        for (int i = 0; i < from->tuple.n; i++) {
            int r = rt_conversion_rank(from->tuple.items[i], to->tuple.items[i]);
            if (r < 0)
                return -1;
            worst = r > worst ? r : worst;
        }
        return worst;
    }
    return -1;
}

/* A kernel argument against a parameter of its declared signature (numba-cuda's eager kernels):
 * scalars convert as rt_conversion_rank says, but a float or complex never becomes an integer or
 * bool parameter (numba-cuda's launch refuses it too); float16 takes any real number. An array
 * passes for its dtype and ndim in its own layout (exact) or 'A' (safe), read-only or not: a
 * launch copies host arrays, and keeps the array's own type for the version it compiles. */
int rt_kernel_arg_rank(Type *from, Type *to)
{
    from = ty_strong(from);
    to = ty_strong(to);
    if (from == to)
        return 0;
    if (from->kind == TY_ARRAY && to->kind == TY_ARRAY) {
        if (from->array.dtype != to->array.dtype || from->array.ndim != to->array.ndim)
            return -1;
        return to->array.layout == from->array.layout ? 0 : to->array.layout == 'A' ? 2 : -1;
    }
    if (ty_is_scalar(from) && ty_is_scalar(to)) {
        bool int_param = ty_is_int(to) || to->kind == TY_BOOL;
        if (int_param && !(ty_is_int(from) || from->kind == TY_BOOL))
            return -1;
        if (to->kind == TY_FLOAT16)
            return ty_is_complex(from) ? -1 : 3;
        if (from->kind == TY_FLOAT16)
            return ty_is_complex(to) ? 2 : 1;
        return rt_conversion_rank(from, to);
    }
    if (from->kind == TY_TUPLE && to->kind == TY_TUPLE && from->tuple.n == to->tuple.n) {
        int worst = 0;
        for (int i = 0; i < from->tuple.n && worst >= 0; i++) {
            int r = rt_kernel_arg_rank(from->tuple.items[i], to->tuple.items[i]);
            worst = r < 0 ? -1 : r > worst ? r : worst;
        }
        return worst;
    }
    return rt_conversion_rank(from, to);
}

/* ---- boxing ---- */

void rt_release_value(Type *ty, void *buf)
{
    if (ty->kind == TY_ARRAY)
        pj_nrt_decref(((ArrayDesc *)buf)->meminfo);
    else if (ty_is_container(ty) || ty->kind == TY_CLASS || ty->kind == TY_RNG || ty->kind == TY_RECORD)
        pj_nrt_decref(*(MemInfo **)buf);
    else if (ty->kind == TY_TUPLE)
        for (int i = 0; i < ty->tuple.n; i++)
            rt_release_value(ty->tuple.items[i], (char *)buf + ty_tuple_offset(ty, i));
    else if (ty->kind == TY_OPTIONAL && *(uint8_t *)buf)
        rt_release_value(ty->optional.value, (char *)buf + ty_mem_align(ty->optional.value));
}

int rt_release_arg(Type *ty, void *buf)
{
    if (ty->kind == TY_OPTIONAL)
        return *(uint8_t *)buf ? rt_release_arg(ty->optional.value,
                                                (char *)buf + ty_mem_align(ty->optional.value)) : 0;
    if (ty->kind == TY_TUPLE) {
        int rc = 0;
        for (int i = 0; i < ty->tuple.n; i++)
            rc |= rt_release_arg(ty->tuple.items[i], (char *)buf + ty_tuple_offset(ty, i));
        return rc;
    }
    if (ty->kind == TY_STR || ty->kind == TY_DICT || ty->kind == TY_CLASS || ty->kind == TY_RNG)
        pj_nrt_decref(*(MemInfo **)buf);   /* a string's copy, a dict's, instance's or Generator's reference */
    if (ty->kind != TY_LIST && ty->kind != TY_SET)
        return 0;
    int (*release)(Type *, MemInfo *) = ty->kind == TY_LIST ? rt_release_list_arg : rt_release_set_arg;
    if (!PyErr_Occurred())
        return release(ty, *(MemInfo **)buf);
    RtPendingError pending = rt_error_save();   /* the exception being raised is the one to report */
    release(ty, *(MemInfo **)buf);
    rt_error_restore(pending);
    return 0;
}

static PyArray_Descr *descr_of(Type *dtype);

/* One field of a record as np.dtype's dict form takes it: its element's dtype, or (that dtype,
 * shape) for a subarray. A new reference, or NULL with an exception set. */
static PyObject *field_format(const RecordField *f)
{
    PyObject *item = (PyObject *)descr_of(f->type);
    if (!item || f->ndim == 0)
        return item;
    PyObject *shape = PyTuple_New(f->ndim);
    for (int d = 0; shape && d < f->ndim; d++)
        PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(f->shape[d]));
    PyObject *format = shape ? PyTuple_Pack(2, item, shape) : NULL;
    Py_DECREF(item);
    Py_XDECREF(shape);
    return format;
}

/* The NumPy dtype of a record type, made once from its fields (names, formats, offsets,
 * itemsize) and kept in the type for the life of the process. A borrowed reference. */
static PyArray_Descr *record_descr(Type *ty)
{
    if (ty->record.descr)
        return ty->record.descr;
    int n = ty->record.n;
    PyObject *names = PyList_New(n), *formats = PyList_New(n), *offsets = PyList_New(n);
    PyObject *spec = NULL;
    PyArray_Descr *descr = NULL;
    for (int i = 0; names && formats && offsets && i < n; i++) {
        PyObject *format = field_format(&ty->record.fields[i]);
        if (!format)
            goto done;
        PyList_SET_ITEM(names, i, PyUnicode_FromString(ty->record.fields[i].name));
        PyList_SET_ITEM(formats, i, format);
        PyList_SET_ITEM(offsets, i, PyLong_FromLongLong(ty->record.fields[i].offset));
    }
    spec = names && formats && offsets ? Py_BuildValue("{sOsOsOsL}", "names", names, "formats",
                                                       formats, "offsets", offsets, "itemsize",
                                                       (long long)ty->record.size) : NULL;
    if (spec && !(ty->record.aligned ? PyArray_DescrAlignConverter(spec, &descr)
                                     : PyArray_DescrConverter(spec, &descr)))
        descr = NULL;
    ty->record.descr = descr;   /* under the GIL; kept for the process, as types are */
done:
    Py_XDECREF(names);
    Py_XDECREF(formats);
    Py_XDECREF(offsets);
    Py_XDECREF(spec);
    return descr;
}

/* The dtype of an array of dtype (a scalar or a record type): a new reference, or NULL with an
 * exception set. */
static PyArray_Descr *descr_of(Type *dtype)
{
    if (ty_is_datetime(dtype)) {   /* "M8[D]", "m8" */
        PyArray_Descr *d = NULL;
        PyObject *spec = PyUnicode_FromFormat("%s8%s%s%s", dtype->kind == TY_DATETIME ? "M" : "m",
                                              dtype->datetime.unit == DT_GENERIC ? "" : "[",
                                              ty_unit_name(dtype->datetime.unit),
                                              dtype->datetime.unit == DT_GENERIC ? "" : "]");
        if (spec && !PyArray_DescrConverter(spec, &d))
            d = NULL;
        Py_XDECREF(spec);
        return d;
    }
    if (dtype->kind == TY_CHARSEQ) {   /* 'U<n>' */
        PyObject *spec = PyUnicode_FromFormat("U%d", dtype->charseq.n);
        PyArray_Descr *d = NULL;
        if (spec && !PyArray_DescrConverter(spec, &d))
            d = NULL;
        Py_XDECREF(spec);
        return d;
    }
    if (dtype->kind != TY_RECORD)
        return PyArray_DescrFromType(typenum_of_kind(dtype->kind));
    PyArray_Descr *d = record_descr(dtype);
    Py_XINCREF(d);
    return d;
}

/* A record result: a np.void holding a copy of its bytes; the reference the result carried on
 * its array is released. */
static PyObject *box_record(Type *ty, void *buf)
{
    PyArray_Descr *d = rt_numpy_ready() < 0 ? NULL : record_descr(ty);
    PyObject *r = d ? PyArray_Scalar(((void **)buf)[1], d, NULL) : NULL;
    pj_nrt_decref(((MemInfo **)buf)[0]);
    return r;
}

/* The parent itself when the result is exactly it (`return a` gives back a, as Numba does). */
static bool is_whole_parent(Type *ty, ArrayDesc *desc)
{
    PyArrayObject *p = desc->parent;
    int ndim = ty->array.ndim;
    Type *dt = ty->array.dtype;
    int typenum = dt->kind == TY_RECORD ? NPY_VOID : dt->kind == TY_DATETIME ? NPY_DATETIME
                : dt->kind == TY_TIMEDELTA ? NPY_TIMEDELTA : dt->kind == TY_CHARSEQ ? NPY_UNICODE
                : typenum_of_kind(dt->kind);
    if (!PyArray_Check((PyObject *)p) || PyArray_DATA(p) != desc->data || PyArray_NDIM(p) != ndim ||
        PyArray_DESCR(p)->type_num != typenum || PyArray_ITEMSIZE(p) != ty_itemsize(dt) ||
        PyArray_ISWRITEABLE(p) == ty->array.readonly)
        return false;
    for (int i = 0; i < ndim; i++)
        if (PyArray_DIM(p, i) != desc->dims[i] || PyArray_STRIDE(p, i) != desc->dims[ndim + i])
            return false;
    return true;
}

/* The object that keeps an argument's memory alive for an array made of it (a new reference):
 * the argument itself, but for a bytearray or an array.array a memoryview of it, whose buffer
 * export stops it from being resized (and its memory moved) under the array, as np.frombuffer's. */
PyObject *rt_memory_owner(PyObject *parent)
{
    if (PyByteArray_Check(parent) || strcmp(Py_TYPE(parent)->tp_name, "array.array") == 0)
        return PyMemoryView_FromObject(parent);
    return Py_NewRef(parent);
}

static PyObject *box_array(Type *ty, ArrayDesc *desc)
{
    MemInfo *mi = desc->meminfo;
    PyObject *parent = desc->parent, *base = NULL, *arr = NULL;
    if (rt_numpy_ready() < 0)
        goto fail;
    if (!mi && parent && is_whole_parent(ty, desc))
        return Py_NewRef(parent);
    int ndim = ty->array.ndim;
    PyArray_Descr *descr = descr_of(ty->array.dtype);
    if (!descr)
        goto fail;
    arr = PyArray_NewFromDescr(&PyArray_Type, descr /* stolen */, ndim, (npy_intp *)desc->dims,
                               (npy_intp *)desc->dims + ndim, desc->data,
                               ty->array.readonly ? 0 : NPY_ARRAY_WRITEABLE, NULL);
    if (!arr)
        goto fail;
    if (mi) {
        base = rt_meminfo_owner_new(mi);   /* takes the reference the result carried */
        mi = NULL;
    } else if (parent) {
        base = rt_memory_owner(parent);
    } else {
        /* Memory of unknown lifetime: hand out a copy rather than a dangling view. */
        PyObject *copy = PyArray_NewCopy((PyArrayObject *)arr, NPY_CORDER);
        Py_DECREF(arr);
        return copy;
    }
    if (!base || PyArray_SetBaseObject((PyArrayObject *)arr, base /* stolen */) < 0)
        goto fail;
    return arr;
fail:
    pj_nrt_decref(mi);
    Py_XDECREF(arr);
    return NULL;
}

/* A literal dict result ({"n": 3, "name": "run"}): the dict CPython makes of it. */
static PyObject *box_literal_dict(Type *ty, PyObject *tuple)
{
    PyObject *d = tuple ? PyDict_New() : NULL;
    if (!d)
        goto fail;
    for (int i = 0; i < ty->tuple.n; i++)
        if (PyDict_SetItemString(d, ty->tuple.fields[i], PyTuple_GET_ITEM(tuple, i)) < 0)
            goto fail;
    Py_DECREF(tuple);
    return d;
fail:
    Py_XDECREF(d);
    Py_XDECREF(tuple);
    return NULL;
}

/* A namedtuple result: an instance of its class, made from the plain tuple of its items. */
static PyObject *box_namedtuple(Type *ty, PyObject *tuple)
{
    if (ty_is_literal_dict(ty))
        return box_literal_dict(ty, tuple);
    PyObject *obj = tuple ? PyObject_Call((PyObject *)ty->tuple.cls, tuple, NULL) : NULL;
    Py_XDECREF(tuple);
    return obj;
}

static PyObject *box_tuple(Type *ty, char *buf)
{
    PyObject *tuple = PyTuple_New(ty->tuple.n);
    int i = 0;
    if (!tuple)
        goto fail;
    for (; i < ty->tuple.n; i++) {
        PyObject *item = rt_box(ty->tuple.items[i], buf + ty_tuple_offset(ty, i));
        if (!item) {
            i++;
            goto fail;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    return ty->tuple.cls ? box_namedtuple(ty, tuple) : tuple;
fail:
    for (; i < ty->tuple.n; i++)   /* the items not boxed yet still hold their references */
        rt_release_value(ty->tuple.items[i], buf + ty_tuple_offset(ty, i));
    Py_XDECREF(tuple);
    return NULL;
}

PyObject *rt_box(Type *ty, void *buf)
{
    switch (ty->kind) {
    case TY_BOOL: return PyBool_FromLong(*(uint8_t *)buf);
    case TY_INT8: return PyLong_FromLong(*(int8_t *)buf);
    case TY_INT16: return PyLong_FromLong(*(int16_t *)buf);
    case TY_INT32: return PyLong_FromLong(*(int32_t *)buf);
    case TY_INT64: return PyLong_FromLongLong(*(int64_t *)buf);
    case TY_UINT8: return PyLong_FromLong(*(uint8_t *)buf);
    case TY_UINT16: return PyLong_FromLong(*(uint16_t *)buf);
    case TY_UINT32: return PyLong_FromUnsignedLong(*(uint32_t *)buf);
    case TY_UINT64: return PyLong_FromUnsignedLongLong(*(uint64_t *)buf);
    case TY_FLOAT16: return PyFloat_FromDouble(half_to_double(*(uint16_t *)buf));
    case TY_FLOAT32: return PyFloat_FromDouble(*(float *)buf);
    case TY_FLOAT64: return PyFloat_FromDouble(*(double *)buf);
    case TY_COMPLEX64: return PyComplex_FromDoubles(((float *)buf)[0], ((float *)buf)[1]);
    case TY_COMPLEX128: return PyComplex_FromDoubles(((double *)buf)[0], ((double *)buf)[1]);
    case TY_NONE: Py_RETURN_NONE;
    case TY_DTYPE:   /* known from the type: nothing was stored */
        return rt_numpy_ready() < 0 ? NULL : (PyObject *)descr_of(ty->dtype.scalar);
    case TY_ARRAY: return box_array(ty, buf);
    case TY_RECORD: return box_record(ty, buf);
    case TY_DATETIME:
    case TY_TIMEDELTA: {
        PyArray_Descr *d = rt_numpy_ready() < 0 ? NULL : descr_of(ty);
        PyObject *r = d ? PyArray_Scalar(buf, d, NULL) : NULL;
        Py_XDECREF(d);
        return r;
    }
    case TY_TUPLE: return box_tuple(ty, buf);
    case TY_LIST:
        if (ty->list.typed)
            return rt_box_typed_list(ty, *(MemInfo **)buf);
        return rt_box_list(ty, *(MemInfo **)buf);
    case TY_STR: return rt_box_str(*(MemInfo **)buf);
    case TY_DICT: return rt_box_dict(ty, *(MemInfo **)buf);
    case TY_SET: return rt_box_set(ty, *(MemInfo **)buf);
    case TY_CLASS: return rt_box_jitclass(ty, *(MemInfo **)buf);
    case TY_RNG: return rt_box_generator(*(MemInfo **)buf);
    case TY_OPTIONAL:   /* {present, value} (compiler/lower_optional.c) */
        if (!*(uint8_t *)buf)
            Py_RETURN_NONE;
        return rt_box(ty->optional.value, (char *)buf + ty_mem_align(ty->optional.value));
    default:
        PyErr_Format(PyExc_TypeError, "pyjit: a value of type %s cannot be returned to Python",
                     ty->name);
        return NULL;
    }
}
