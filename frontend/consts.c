/* consts.c: freezes Python objects into IR constants.
 *
 * Globals, closure cells, literals and default arguments are read once, at compile time, as Numba
 * does: a later change to a global is not seen by code already compiled (docs/ says so). Each
 * object is classified into a Const kind (ir.h): numbers and strings by value; modules, known
 * functions (through the registry pyjit/_registry.py builds; those with pyjit.extending overloads
 * are marked there), other compiled functions, exception classes, NumPy arrays, C functions
 * (ctypes, cffi, @cfunc: K_CFUNC) and objmode blocks (K_OBJMODE) by handle. The arena holds a
 * reference to every handle, so the objects outlive the IR. Attribute lookups on modules
 * (math.pi, np.float32, np.random) fold here too. */
#include "frontend/fe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void decref_object(void *obj)
{
    Py_DECREF((PyObject *)obj);
}

static void keep_alive(FeCtx *ctx, Const *c, PyObject *obj)
{
    Py_INCREF(obj);
    arena_defer(ctx->arena, decref_object, obj);
    c->handle = obj;
}

static const char *utf8_or(PyObject *str, const char *fallback)
{
    const char *s = str && PyUnicode_Check(str) ? PyUnicode_AsUTF8(str) : NULL;
    if (!s)
        PyErr_Clear();
    return s ? s : fallback;
}

static const char *repr_of(FeCtx *ctx, PyObject *obj)
{
    PyObject *r = PyObject_Repr(obj);
    const char *s = arena_strdup(ctx->arena, utf8_or(r, "<object>"));
    Py_XDECREF(r);
    PyErr_Clear();
    return s;
}

/* Whether pyjit._registry.late() added names to the registries: those of modules it left
 * until they were imported (the GPU backend's, numpy.random's), imported since. */
static bool registry_grew(void)
{
    static PyObject *late;   /* the function, for the process */
    if (!late) {
        PyObject *mod = PyImport_ImportModule("pyjit._registry");
        late = mod ? PyObject_GetAttrString(mod, "late") : NULL;
        Py_XDECREF(mod);
    }
    PyObject *grew = late ? PyObject_CallNoArgs(late) : NULL;
    bool yes = grew == Py_True;
    Py_XDECREF(grew);
    PyErr_Clear();
    return yes;
}

/* The registry's name for obj, or the name builtins.def knows it by ("math.sqrt",
 * "builtins.len") from its module and name, or NULL. The second way keeps the frontend useful
 * without a registry; the registry wins where the two differ (numpy.bool_ is numpy.bool). */
static const char *known_function_name(FeCtx *ctx, PyObject *obj)
{
    if (ctx->registry && PyDict_Check(ctx->registry)) {
        PyObject *name = PyDict_GetItemWithError(ctx->registry, obj);   /* borrowed */
        if (!name && !PyErr_Occurred() && registry_grew())
            name = PyDict_GetItemWithError(ctx->registry, obj);
        if (name)
            return arena_strdup(ctx->arena, utf8_or(name, "?"));
        PyErr_Clear();   /* unhashable objects are simply not in it */
    }
    if (PyModule_Check(obj) || !PyCallable_Check(obj))
        return NULL;
    /* NumPy's ufuncs have no __module__; they all live in numpy. */
    bool ufunc = strcmp(Py_TYPE(obj)->tp_name, "numpy.ufunc") == 0;
    PyObject *mod = ufunc ? PyUnicode_FromString("numpy") : PyObject_GetAttrString(obj, "__module__");
    PyObject *qual = PyObject_GetAttrString(obj, ufunc ? "__name__" : "__qualname__");
    const char *found = NULL;
    if (mod && qual && PyUnicode_Check(mod) && PyUnicode_Check(qual)) {
        char *full = arena_printf(ctx->arena, "%s.%s", utf8_or(mod, "?"), utf8_or(qual, "?"));
        if (ir_builtin_lookup(full) != BI__COUNT)
            found = full;
    }
    PyErr_Clear();
    Py_XDECREF(mod);
    Py_XDECREF(qual);
    return found;
}

static int const_of_int(FeCtx *ctx, PyObject *obj, Const *c)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow > 0) {
        /* 2**63 <= v < 2**64 is a uint64, as Numba types it (hash constants, bit masks) */
        PyErr_Clear();
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);
        if (!PyErr_Occurred()) {
            c->i = (long long)u;
            c->array_type = ty_scalar(TY_UINT64);
            return 0;
        }
    }
    if (overflow) {
        PyErr_Clear();
        return fe_error(ctx, DIAG_UNSUPPORTED,
                        "the integer %s does not fit in 64 bits; compiled code uses int64",
                        repr_of(ctx, obj));
    }
    if (v == -1 && PyErr_Occurred())
        return fe_error_from_python(ctx, "reading an integer constant");
    c->i = v;
    return 0;
}

/* CPython leaves a ** b and a << b of two int constants unfolded when the result would pass
 * 128 bits (x - 2**70), so the code object holds no big constant to refuse; in int64 at run time
 * the result would wrap. Such a result is refused as a big constant is. Returns 0 or -1. */
int fe_check_int_binop(FeCtx *ctx, BinOp op, const Const *a, const Const *b)
{
    if (a->kind != K_INT || b->kind != K_INT || (op != BIN_POW && op != BIN_LSHIFT) || b->i < 0)
        return 0;
    if (op == BIN_POW ? a->i >= -1 && a->i <= 1 : a->i == 0)
        return 0;
    uint64_t mag = a->i < 0 ? 0 - (uint64_t)a->i : (uint64_t)a->i;
    int64_t width = 64 - __builtin_clzll(mag);   /* mag > 1 */
    /* Beyond 8192 bits the number is not worth writing out (and beyond 64 bits anyway). */
    if (b->i > 8192 || (op == BIN_POW ? width * b->i : width + b->i) > 8192)
        return fe_error(ctx, DIAG_UNSUPPORTED, "the integer %lld %s %lld does not fit in 64 bits; "
                        "compiled code uses int64", (long long)a->i, op == BIN_POW ? "**" : "<<",
                        (long long)b->i);
    PyObject *x = PyLong_FromLongLong(a->i), *y = PyLong_FromLongLong(b->i), *r = NULL;
    Const big;   /* only its check matters */
    int rc = -1;
    if (!x || !y)
        goto fail;
    r = op == BIN_POW ? PyNumber_Power(x, y, Py_None) : PyNumber_Lshift(x, y);
    if (!r)
        goto fail;
    rc = const_of_int(ctx, r, &big);
fail:
    if (rc < 0 && PyErr_Occurred())
        rc = fe_error_from_python(ctx, "computing an integer constant");
    Py_XDECREF(x);
    Py_XDECREF(y);
    Py_XDECREF(r);
    return rc;
}

static int const_of_tuple(FeCtx *ctx, PyObject *obj, Const *c)
{
    c->tuple.n = (int)PyTuple_GET_SIZE(obj);
    c->tuple.items = arena_alloc(ctx->arena, sizeof(Const *) * (size_t)(c->tuple.n + 1));
    for (int i = 0; i < c->tuple.n; i++)
        if (fe_const_of(ctx, PyTuple_GET_ITEM(obj, i), &c->tuple.items[i]) < 0)
            return -1;
    return 0;
}

/* Numbers, strings, None and tuples of them: by value. Returns 1 if obj is one of them. */
/* A np.datetime64 or np.timedelta64 scalar: K_INT of its count, its type in array_type; 0 for
 * anything else (and a unit compiled code does not take), -1 on error. */
static int const_of_datetime(PyObject *obj, Const *c)
{
    const char *tp = Py_TYPE(obj)->tp_name;
    if (strcmp(tp, "numpy.datetime64") != 0 && strcmp(tp, "numpy.timedelta64") != 0)
        return 0;
    PyObject *dtype = PyObject_GetAttrString(obj, "dtype");
    PyObject *name = dtype ? PyObject_Str(dtype) : NULL;
    PyObject *count = name ? PyObject_CallMethod(obj, "view", "s", "i8") : NULL;
    Type *t = name ? ty_parse(utf8_or(name, "")) : NULL;
    int rc = count ? 0 : -1;
    if (count && t && ty_is_datetime(t)) {
        c->kind = K_INT;
        c->i = PyLong_AsLongLong(count);
        c->array_type = t;
        rc = PyErr_Occurred() ? -1 : 1;
    }
    Py_XDECREF(dtype);
    Py_XDECREF(name);
    Py_XDECREF(count);
    return rc;
}

static const FeNamedTuple *enum_member_class(PyObject *obj);
static int const_of_enum_member(FeCtx *ctx, const FeNamedTuple *nt, PyObject *member, Const *c);
static int const_of_attribute_instance(FeCtx *ctx, const FeNamedTuple *nt, PyObject *obj,
                                       Const *c);

static int const_of_value(FeCtx *ctx, PyObject *obj, Const *c)
{
    if (obj == Py_None) {
        c->kind = K_NONE;
    } else if (obj == Py_Ellipsis) {
        c->kind = K_ELLIPSIS;
    } else if (PyBool_Check(obj)) {
        c->kind = K_BOOL;
        c->b = obj == Py_True;
    } else if (PyLong_CheckExact(obj)) {
        c->kind = K_INT;
        return const_of_int(ctx, obj, c) < 0 ? -1 : 1;
    } else if (PyFloat_CheckExact(obj)) {
        c->kind = K_FLOAT;
        c->f = PyFloat_AS_DOUBLE(obj);
    } else if (PyComplex_CheckExact(obj)) {
        c->kind = K_COMPLEX;
        c->c.re = PyComplex_RealAsDouble(obj);
        c->c.im = PyComplex_ImagAsDouble(obj);
    } else if (PyUnicode_CheckExact(obj)) {
        c->kind = K_STR;
        c->s = arena_strdup(ctx->arena, utf8_or(obj, "?"));
    } else if (PyTuple_CheckExact(obj)) {
        c->kind = K_TUPLE;
        return const_of_tuple(ctx, obj, c) < 0 ? -1 : 1;
    } else if (PyTuple_Check(obj) && fe_namedtuple_class((PyObject *)Py_TYPE(obj))) {
        const FeNamedTuple *nt = fe_namedtuple_class((PyObject *)Py_TYPE(obj));
        if (nt->n != PyTuple_GET_SIZE(obj))
            return 0;
        c->kind = K_TUPLE;   /* a namedtuple instance: a tuple that knows its class */
        c->handle = nt->cls;   /* kept alive by fe_namedtuple_class */
        c->name = nt->name;
        c->fields = (const char **)nt->fields;
        return const_of_tuple(ctx, obj, c) < 0 ? -1 : 1;
    } else if (enum_member_class(obj)) {
        return const_of_enum_member(ctx, enum_member_class(obj), obj, c) < 0 ? -1 : 1;
    } else if (fe_attribute_class((PyObject *)Py_TYPE(obj))) {
        const FeNamedTuple *nt = fe_attribute_class((PyObject *)Py_TYPE(obj));
        return const_of_attribute_instance(ctx, nt, obj, c) < 0 ? -1 : 1;
    } else if (PyLong_Check(obj) && !PyBool_Check(obj)) {   /* an IntEnum member: an int */
        c->kind = K_INT;
        return const_of_int(ctx, obj, c) < 0 ? -1 : 1;
    } else if (const_of_datetime(obj, c) != 0) {
        return PyErr_Occurred() ? -1 : 1;
    } else if (PyFrozenSet_CheckExact(obj)) {
        /* CPython folds the items of {1, 2} and of `x in {1, 2}` into a frozenset: its items */
        PyObject *items = PySequence_Tuple(obj);
        c->kind = K_TUPLE;
        int rc = items ? const_of_tuple(ctx, items, c) : -1;
        Py_XDECREF(items);
        return rc < 0 ? -1 : 1;
    } else {
        return 0;
    }
    return 1;
}

static TypeKind dtype_of_format(const char *fmt, Py_ssize_t itemsize)
{
    if (*fmt == '>' || *fmt == '!')
        return TY_NONE;   /* big-endian data: compiled code reads native order only */
    while (*fmt == '<' || *fmt == '=' || *fmt == '@')
        fmt++;
    static const TypeKind ints[] = {TY_INT8, TY_INT16, TY_INT32, TY_INT64};
    static const TypeKind uints[] = {TY_UINT8, TY_UINT16, TY_UINT32, TY_UINT64};
    int log2 = itemsize == 1 ? 0 : itemsize == 2 ? 1 : itemsize == 4 ? 2 : itemsize == 8 ? 3 : -1;
    if (fmt[0] == '?' && !fmt[1])
        return TY_BOOL;
    if (fmt[1] == 0 && strchr("bhilq", fmt[0]) && log2 >= 0)
        return ints[log2];
    if (fmt[1] == 0 && strchr("BHILQ", fmt[0]) && log2 >= 0)
        return uints[log2];
    if (strcmp(fmt, "e") == 0)
        return TY_FLOAT16;
    if (strcmp(fmt, "f") == 0)
        return TY_FLOAT32;
    if (strcmp(fmt, "d") == 0)
        return TY_FLOAT64;
    if (strcmp(fmt, "Zf") == 0)
        return TY_COMPLEX64;
    if (strcmp(fmt, "Zd") == 0)
        return TY_COMPLEX128;
    return TY_NONE;
}

static const char *record_type_name(FeCtx *ctx, PyObject *obj);

/* The record type of a structured array's dtype (a table of records, for gpu.const.array_like),
 * or NULL. */
static Type *structured_dtype(FeCtx *ctx, PyObject *array)
{
    PyObject *d = PyObject_GetAttrString(array, "dtype");
    const char *name = d ? record_type_name(ctx, d) : NULL;
    Py_XDECREF(d);
    PyErr_Clear();
    return name ? ty_parse(name) : NULL;
}

/* A global NumPy array, frozen read-only: its data, shape, strides and type through the buffer
 * protocol (no NumPy C API needed here). A bytes constant (b'...') is the read-only 1-d uint8
 * array a bytes argument is. Returns 1 if obj is an array of a supported dtype. */
static int const_of_array(FeCtx *ctx, PyObject *obj, Const *c)
{
    if (strcmp(Py_TYPE(obj)->tp_name, "numpy.ndarray") != 0 && !PyBytes_CheckExact(obj))
        return 0;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return 0;
    }
    TypeKind kind = dtype_of_format(view.format ? view.format : "B", view.itemsize);
    Type *dtype = kind != TY_NONE ? ty_scalar(kind) : structured_dtype(ctx, obj);
    if (dtype) {
        c->kind = K_ARRAY;
        c->data = view.buf;
        c->array_shape = arena_alloc(ctx->arena, sizeof(int64_t) * (size_t)(view.ndim + 1));
        c->array_strides = arena_alloc(ctx->arena, sizeof(int64_t) * (size_t)(view.ndim + 1));
        for (int d = 0; d < view.ndim; d++) {
            c->array_shape[d] = view.shape[d];
            c->array_strides[d] = view.strides[d];
        }
        char layout = PyBuffer_IsContiguous(&view, 'C') ? 'C' : PyBuffer_IsContiguous(&view, 'F') ? 'F' : 'A';
        c->array_type = ty_array(dtype, view.ndim, layout, true);
        keep_alive(ctx, c, obj);   /* data stays valid while the array lives */
    }
    PyBuffer_Release(&view);
    return dtype != NULL;
}

static const char *attr_string(FeCtx *ctx, PyObject *obj, const char *attr)
{
    PyObject *v = PyObject_GetAttrString(obj, attr);
    const char *s = arena_strdup(ctx->arena, utf8_or(v, "?"));
    Py_XDECREF(v);
    PyErr_Clear();
    return s;
}

/* pyjit.gpu's DeviceFunction (what @gpu.jit(device=True) returns): a Python object holding the
 * function in .py_func. Known by its class's name and module, so the frontend needs no import. */
static bool is_device_function(PyObject *obj)
{
    PyTypeObject *tp = Py_TYPE(obj);
    if (strcmp(tp->tp_name, "DeviceFunction") != 0)
        return false;
    PyObject *mod = PyObject_GetAttrString((PyObject *)tp, "__module__");
    bool ok = mod && PyUnicode_Check(mod) && strncmp(utf8_or(mod, ""), "pyjit.gpu", 9) == 0;
    Py_XDECREF(mod);
    PyErr_Clear();
    return ok;
}

/* The class of a @gpu.jit kernel of any backend that obj is an instance of (the first class of
 * its MRO named Kernel, DeclaredKernel or SpecializedKernel in a pyjit.gpu module: a subclass
 * made elsewhere is one too), its name without the module; NULL when obj is none. */
static const char *gpu_kernel_class(PyObject *obj)
{
    PyObject *mro = Py_TYPE(obj)->tp_mro;
    for (Py_ssize_t i = 0; mro && PyTuple_Check(mro) && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *tp = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        const char *name = tp->tp_name, *dot = strrchr(name, '.');
        name = dot ? dot + 1 : name;
        if (strcmp(name, "Kernel") != 0 && strcmp(name, "DeclaredKernel") != 0 &&
            strcmp(name, "SpecializedKernel") != 0)
            continue;
        PyObject *mod = PyObject_GetAttrString((PyObject *)tp, "__module__");
        bool ok = mod && PyUnicode_Check(mod) && strncmp(utf8_or(mod, ""), "pyjit.gpu", 9) == 0;
        Py_XDECREF(mod);
        PyErr_Clear();
        if (ok)
            return name;
    }
    return NULL;
}

/* A @gpu.jit kernel of any backend: called from compiled code, it is refused with words on
 * device functions (unless is_lazy_gpu_kernel). */
static bool is_gpu_kernel(PyObject *obj)
{
    return gpu_kernel_class(obj) != NULL;
}

/* A @gpu.jit kernel declared without a signature (numba-cuda compiles it for each call's types
 * when a kernel calls it); a declared or specialized one keeps its launch types only. */
static bool is_lazy_gpu_kernel(PyObject *obj)
{
    const char *cls = gpu_kernel_class(obj);
    if (!cls || strcmp(cls, "Kernel") != 0)
        return false;
    PyObject *sig = PyObject_GetAttrString(obj, "signature");
    bool lazy = sig == Py_None;
    Py_XDECREF(sig);
    PyErr_Clear();
    return lazy;
}

/* ---- namedtuple classes ---- */

static FeNamedTuple *namedtuples;   /* every class seen, for the process (under the GIL) */

static char *copy_utf8(PyObject *str)
{
    const char *s = PyUnicode_Check(str) ? PyUnicode_AsUTF8(str) : NULL;
    char *copy = s ? PyMem_RawMalloc(strlen(s) + 1) : NULL;
    return copy ? strcpy(copy, s) : NULL;
}

static bool all_str(PyObject *tuple)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); i++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(tuple, i)))
            return false;
    return true;
}

/* Reads cls's _fields (names) and _field_defaults into a new record; NULL (no exception) if cls
 * is not a namedtuple class. */
static FeNamedTuple *read_namedtuple(PyObject *cls)
{
    PyObject *fields = PyObject_GetAttrString(cls, "_fields");
    PyObject *defaults = PyObject_GetAttrString(cls, "_field_defaults");
    PyObject *name = PyObject_GetAttrString(cls, "__name__");
    PyErr_Clear();
    FeNamedTuple *nt = NULL;
    if (!fields || !PyTuple_Check(fields) || !all_str(fields) || (defaults && !PyDict_Check(defaults)))
        goto done;
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    nt = PyMem_RawCalloc(1, sizeof *nt);
    if (!nt || !(nt->fields = PyMem_RawCalloc((size_t)n + 1, sizeof(char *))) ||
        !(nt->defaults = PyMem_RawCalloc((size_t)n + 1, sizeof(PyObject *)))) {
        fprintf(stderr, "pyjit: out of memory\n");
        abort();   /* as the type table does (compiler/types.c): a few bytes per class */
    }
    nt->name = name && PyUnicode_Check(name) ? copy_utf8(name) : NULL;
    nt->name = nt->name ? nt->name : "?";
    nt->n = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        nt->fields[i] = copy_utf8(PyTuple_GET_ITEM(fields, i));
        nt->defaults[i] = defaults ? PyDict_GetItem(defaults, PyTuple_GET_ITEM(fields, i)) : NULL;
        Py_XINCREF(nt->defaults[i]);
        if (!nt->fields[i]) {
            fprintf(stderr, "pyjit: out of memory\n");
            abort();
        }
    }
    PyErr_Clear();
    Py_INCREF(cls);
    nt->cls = cls;
done:
    Py_XDECREF(fields);
    Py_XDECREF(defaults);
    Py_XDECREF(name);
    return nt;
}

const FeNamedTuple *fe_namedtuple_class(PyObject *cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &PyTuple_Type) ||
        cls == (PyObject *)&PyTuple_Type)
        return NULL;
    for (FeNamedTuple *nt = namedtuples; nt; nt = nt->next)
        if (nt->cls == cls)
            return nt;   /* an enum class is no tuple subclass: never one of these */
    FeNamedTuple *nt = read_namedtuple(cls);
    if (nt) {
        nt->next = namedtuples;
        namedtuples = nt;
    }
    return nt;
}

static const char *enum_fields[] = {"value", NULL};
static PyObject *enum_base;   /* enum.Enum, imported on the first question */

const FeNamedTuple *fe_enum_class(PyObject *cls)
{
    if (!PyType_Check(cls) || PyType_IsSubtype((PyTypeObject *)cls, &PyLong_Type))
        return NULL;
    if (!enum_base) {
        PyObject *module = PyImport_ImportModule("enum");
        enum_base = module ? PyObject_GetAttrString(module, "Enum") : NULL;
        Py_XDECREF(module);
        if (!enum_base) {
            PyErr_Clear();
            return NULL;
        }
    }
    if (cls == enum_base || PyObject_IsSubclass(cls, enum_base) != 1) {
        PyErr_Clear();
        return NULL;
    }
    for (FeNamedTuple *nt = namedtuples; nt; nt = nt->next)
        if (nt->cls == cls)
            return nt;
    FeNamedTuple *nt = PyMem_RawCalloc(1, sizeof *nt);
    PyObject *name = PyObject_GetAttrString(cls, "__name__");
    if (!nt || !(nt->defaults = PyMem_RawCalloc(2, sizeof(PyObject *)))) {
        fprintf(stderr, "pyjit: out of memory\n");
        abort();
    }
    nt->name = name && PyUnicode_Check(name) ? copy_utf8(name) : NULL;
    nt->name = nt->name ? nt->name : "?";
    Py_XDECREF(name);
    PyErr_Clear();
    nt->n = 1;
    nt->fields = enum_fields;
    nt->cls = Py_NewRef(cls);
    nt->next = namedtuples;
    namedtuples = nt;
    return nt;
}

/* A class registered by fe_register_attribute_class; its record's cls is NULL until the class
 * is first met (by its module and qualified name), then held for the process. */
typedef struct AttributeClass {
    char *module, *qualname;
    FeNamedTuple nt;
    struct AttributeClass *next;
} AttributeClass;
static AttributeClass *attribute_classes;

static char *copy_str(const char *s)
{
    char *copy = PyMem_RawMalloc(strlen(s) + 1);
    if (!copy) {
        fprintf(stderr, "pyjit: out of memory\n");
        abort();
    }
    return strcpy(copy, s);
}

int fe_register_attribute_class(const char *module, const char *qualname, PyObject *fields)
{
    if (!PyTuple_Check(fields) || !all_str(fields)) {
        PyErr_SetString(PyExc_TypeError, "the attribute names must be a tuple of str");
        return -1;
    }
    for (AttributeClass *a = attribute_classes; a; a = a->next)
        if (strcmp(a->module, module) == 0 && strcmp(a->qualname, qualname) == 0)
            return 0;
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    AttributeClass *a = PyMem_RawCalloc(1, sizeof *a);
    if (!a || !(a->nt.fields = PyMem_RawCalloc((size_t)n + 1, sizeof(char *))) ||
        !(a->nt.defaults = PyMem_RawCalloc((size_t)n + 1, sizeof(PyObject *)))) {
        fprintf(stderr, "pyjit: out of memory\n");
        abort();
    }
    a->module = copy_str(module);
    a->qualname = copy_str(qualname);
    const char *dot = strrchr(qualname, '.');
    a->nt.name = dot ? dot + 1 : a->qualname;
    a->nt.n = (int)n;
    for (Py_ssize_t i = 0; i < n; i++)
        a->nt.fields[i] = copy_utf8(PyTuple_GET_ITEM(fields, i));
    a->next = attribute_classes;
    attribute_classes = a;
    return 0;
}

/* Whether cls is the class a names: its __name__ first (a type's tp_name, no lookup), then its
 * module and qualified name. */
static bool is_named_class(const AttributeClass *a, PyObject *cls)
{
    if (strcmp(((PyTypeObject *)cls)->tp_name, a->nt.name) != 0)
        return false;
    PyObject *module = PyObject_GetAttrString(cls, "__module__");
    PyObject *qualname = PyObject_GetAttrString(cls, "__qualname__");
    bool same = module && qualname && strcmp(utf8_or(module, ""), a->module) == 0 &&
                strcmp(utf8_or(qualname, ""), a->qualname) == 0;
    Py_XDECREF(module);
    Py_XDECREF(qualname);
    PyErr_Clear();
    return same;
}

const FeNamedTuple *fe_attribute_class(PyObject *cls)
{
    if (!PyType_Check(cls))
        return NULL;
    for (AttributeClass *a = attribute_classes; a; a = a->next) {
        if (a->nt.cls == cls)
            return &a->nt;
        if (!a->nt.cls && is_named_class(a, cls)) {
            a->nt.cls = Py_NewRef(cls);   /* for the process, as the types naming it */
            return &a->nt;
        }
    }
    return NULL;
}

PyObject *fe_attribute_values(const FeNamedTuple *nt, PyObject *obj)
{
    PyObject *values = PyTuple_New(nt->n);
    for (int i = 0; values && i < nt->n; i++) {
        PyObject *v = PyObject_GetAttrString(obj, nt->fields[i]);
        if (!v) {
            Py_CLEAR(values);
            break;
        }
        PyTuple_SET_ITEM(values, i, v);
    }
    return values;
}

/* An instance of an attribute class frozen as a constant: the tuple of its attributes that
 * knows the class. */
static int const_of_attribute_instance(FeCtx *ctx, const FeNamedTuple *nt, PyObject *obj,
                                       Const *c)
{
    PyObject *items = fe_attribute_values(nt, obj);
    if (!items)
        return -1;
    c->kind = K_TUPLE;
    c->handle = nt->cls;   /* kept alive by fe_attribute_class */
    c->name = nt->name;
    c->fields = (const char **)nt->fields;
    int rc = const_of_tuple(ctx, items, c);
    Py_DECREF(items);
    return rc;
}

static const FeNamedTuple *enum_member_class(PyObject *obj)
{
    return fe_enum_class((PyObject *)Py_TYPE(obj));
}

PyObject *fe_enum_value(PyObject *member)
{
    return PyObject_GetAttrString(member, "_value_");
}

/* An enum member: a tuple of its value that knows the class (fe_enum_class). */
static int const_of_enum_member(FeCtx *ctx, const FeNamedTuple *nt, PyObject *member, Const *c)
{
    PyObject *value = fe_enum_value(member);
    PyObject *items = value ? PyTuple_Pack(1, value) : NULL;
    Py_XDECREF(value);
    if (!items)
        return -1;
    c->kind = K_TUPLE;
    c->handle = nt->cls;   /* kept alive by fe_enum_class */
    c->name = nt->name;
    c->fields = (const char **)nt->fields;
    int rc = const_of_tuple(ctx, items, c);
    Py_DECREF(items);
    return rc;
}

/* A namedtuple class: its fields and their defaults frozen as the other constants are. */
static int const_of_namedtuple(FeCtx *ctx, const FeNamedTuple *nt, Const *c)
{
    c->kind = K_NAMEDTUPLE;
    c->name = nt->name;
    c->tuple.n = nt->n;
    c->fields = (const char **)nt->fields;
    c->tuple.items = arena_alloc(ctx->arena, sizeof(Const *) * (size_t)(nt->n + 1));
    for (int i = 0; i < nt->n; i++)
        if (nt->defaults[i] && fe_const_of(ctx, nt->defaults[i], &c->tuple.items[i]) < 0)
            return -1;
    return 1;
}

/* A pyjit.types type object (types.float64[:], types.UniTuple(...)): its canonical name, which
 * the compiler's types read (ty_parse), or NULL for anything else. */
static const char *pyjit_type_name(FeCtx *ctx, PyObject *obj)
{
    PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__module__");
    bool ours = mod && PyUnicode_Check(mod) && strcmp(utf8_or(mod, ""), "pyjit.types") == 0;
    Py_XDECREF(mod);
    PyObject *name = ours ? PyObject_GetAttrString(obj, "name") : NULL;
    const char *s = name && PyUnicode_Check(name) ? arena_strdup(ctx->arena, utf8_or(name, "")) : NULL;
    Py_XDECREF(name);
    PyErr_Clear();
    return s && ty_parse(s) ? s : NULL;
}

/* The canonical name pyjit._records' function `how` gives a NumPy dtype, if pyjit parses it;
 * else NULL. */
static const char *records_name(FeCtx *ctx, PyObject *obj, const char *how)
{
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.dtype", 11) != 0)
        return NULL;
    PyObject *mod = PyImport_ImportModule("pyjit._records");
    PyObject *name = mod ? PyObject_CallMethod(mod, how, "O", obj) : NULL;
    const char *s = name && PyUnicode_Check(name) ? arena_strdup(ctx->arena, utf8_or(name, "")) : NULL;
    Py_XDECREF(mod);
    Py_XDECREF(name);
    PyErr_Clear();
    return s && ty_parse(s) ? s : NULL;
}

/* A NumPy structured dtype (np.dtype([('x', 'f8'), ...])): its record type's canonical name,
 * which pyjit/_records.py writes (as for arguments of that dtype), or NULL. */
static const char *record_type_name(FeCtx *ctx, PyObject *obj)
{
    return records_name(ctx, obj, "type_name");
}

/* A NumPy dtype constant: pyjit._records.dtype_name's canonical name (a record type, or
 * dtype(float32) for a number's dtype), or NULL. */
static const char *dtype_type_name(FeCtx *ctx, PyObject *obj)
{
    return records_name(ctx, obj, "dtype_name");
}

/* Whether obj's class says what it is by a class attribute (pyjit's CFunc and ObjModeCall): a
 * lookup in the class, never the object's own __getattr__. */
static bool has_class_marker(PyObject *obj, const char *marker)
{
    int has = PyObject_HasAttrString((PyObject *)Py_TYPE(obj), marker);
    PyErr_Clear();
    return has == 1;
}

bool fe_maybe_c_function(PyObject *obj)
{
    for (PyTypeObject *t = Py_TYPE(obj); t; t = t->tp_base)
        if (strcmp(t->tp_name, "_ctypes.CFuncPtr") == 0 || strcmp(t->tp_name, "CFuncPtr") == 0)
            return true;
    const char *name = Py_TYPE(obj)->tp_name;
    if (PyCFunction_Check(obj) && PyCFunction_GET_SELF(obj))   /* lib.f of a cffi API module */
        name = Py_TYPE(PyCFunction_GET_SELF(obj))->tp_name;
    return strncmp(name, "_cffi_backend.", 14) == 0 || has_class_marker(obj, "_pyjit_cfunc");
}

/* A C function (K_CFUNC): pyjit._ffi.describe(obj) gives its name, address and signature, or
 * None, or raises TypeError for one compiled code cannot call (no argtypes, a type it does not
 * map), which becomes the compile error. 1 when obj is one, 0 when not, -1 on error. */
static int const_of_c_function(FeCtx *ctx, PyObject *obj, Const *c)
{
    if (!fe_maybe_c_function(obj))
        return 0;
    PyObject *mod = PyImport_ImportModule("pyjit._ffi");
    PyObject *d = mod ? PyObject_CallMethod(mod, "describe", "O", obj) : NULL;
    Py_XDECREF(mod);
    if (!d) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError))
            return -1;
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *text = value ? PyObject_Str(value) : NULL;
        int rc = fe_error(ctx, DIAG_TYPING, "%s", utf8_or(text, "a C function compiled code cannot call"));
        Py_XDECREF(text);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return rc;
    }
    const char *name, *sig, *abi = NULL;
    PyObject *addr;
    int ok = d != Py_None && PyArg_ParseTuple(d, "sOs|s", &name, &addr, &sig, &abi);
    if (ok) {
        c->kind = K_CFUNC;
        c->name = arena_strdup(ctx->arena, name);
        c->s = arena_strdup(ctx->arena, sig);
        c->data = PyLong_AsVoidPtr(addr);
        c->c_abi = abi && strcmp(abi, "c") == 0;
        keep_alive(ctx, c, obj);
    }
    Py_DECREF(d);
    return PyErr_Occurred() ? -1 : ok;
}

/* An objmode block pyjit/_objmode.py outlined (an ObjModeCall): K_OBJMODE, its outputs' tuple
 * type in s. 1 when obj is one, 0 when not, -1 on error. */
static int const_of_objmode(FeCtx *ctx, PyObject *obj, Const *c)
{
    if (!has_class_marker(obj, "_pyjit_objmode"))
        return 0;
    PyObject *outputs = PyObject_GetAttrString(obj, "outputs_type");
    if (!outputs)
        return -1;
    c->kind = K_OBJMODE;
    c->s = arena_strdup(ctx->arena, utf8_or(outputs, "?"));
    c->name = attr_string(ctx, obj, "__qualname__");
    Py_DECREF(outputs);
    keep_alive(ctx, c, obj);
    return 1;
}

/* The attribute class whose raw constructor obj is (an object whose class names it in
 * `_pyjit_builds`, pyjit/lib's), or NULL. */
static const FeNamedTuple *builder_of(PyObject *obj)
{
    if (!has_class_marker(obj, "_pyjit_builds"))
        return NULL;
    PyObject *cls = PyObject_GetAttrString(obj, "_pyjit_builds");
    const FeNamedTuple *nt = cls ? fe_attribute_class(cls) : NULL;
    Py_XDECREF(cls);   /* the record holds the class */
    PyErr_Clear();
    return nt;
}

/* Objects known by identity: modules, known functions, dispatchers, exception classes, types. */
static int const_of_handle(FeCtx *ctx, PyObject *obj, Const *c)
{
    const char *fname = known_function_name(ctx, obj);
    if (fname) {
        /* pyjit.extending.overload marks its functions "overload:name" in the registry */
        c->kind = K_FUNC;
        c->overloaded = strncmp(fname, "overload:", 9) == 0;
        c->name = c->overloaded ? fname + 9 : fname;
        c->jitclass = PyType_Check(obj) && PyObject_HasAttrString(obj, "_pyjit_new");
    } else if (PyModule_Check(obj)) {
        c->kind = K_MODULE;
        c->name = attr_string(ctx, obj, "__name__");
    } else if (ctx->is_dispatcher && ctx->is_dispatcher(obj)) {
        c->kind = K_DISPATCHER;
        c->name = attr_string(ctx, obj, "__qualname__");
    } else if (is_device_function(obj) || is_lazy_gpu_kernel(obj)) {
        /* a @gpu.jit(device=True) function: compiled into the kernels that call it; so is a
         * @gpu.jit kernel without a signature called from a kernel, as numba-cuda compiles any
         * of its dispatchers called there as a device function (launching one stays refused) */
        c->kind = K_DISPATCHER;
        c->name = attr_string(ctx, obj, "__qualname__");
        c->device_only = true;
        c->gpu_kernel = !is_device_function(obj);
    } else if (PyExceptionClass_Check(obj)) {
        c->kind = K_EXCCLASS;
        c->name = arena_strdup(ctx->arena, ((PyTypeObject *)obj)->tp_name);
    } else if (fe_namedtuple_class(obj)) {
        if (const_of_namedtuple(ctx, fe_namedtuple_class(obj), c) < 0)
            return -1;
    } else if (builder_of(obj)) {
        /* the library's raw constructor of an attribute class: calling it builds the record
         * from the values given, as a namedtuple class's call does */
        const FeNamedTuple *nt = builder_of(obj);
        if (const_of_namedtuple(ctx, nt, c) < 0)
            return -1;
        obj = nt->cls;
    } else if ((c->name = pyjit_type_name(ctx, obj)) != NULL ||
               (c->name = dtype_type_name(ctx, obj)) != NULL) {
        c->kind = K_TYPE;
    } else {
        return const_of_array(ctx, obj, c);
    }
    keep_alive(ctx, c, obj);
    return 1;
}

/* How errors name a value compiled code cannot use: a function or class by its qualified name
 * (numpy.min, not <function min at 0x...>; a plain Python function by its own qualified name),
 * anything else by its repr. */
static const char *opaque_name(FeCtx *ctx, PyObject *obj)
{
    if (!PyCallable_Check(obj))
        return repr_of(ctx, obj);
    PyObject *mod = PyObject_GetAttrString(obj, "__module__");
    PyObject *qual = PyObject_GetAttrString(obj, "__qualname__");
    PyErr_Clear();
    const char *name;
    if (!qual || !PyUnicode_Check(qual))
        name = repr_of(ctx, obj);
    else if (PyFunction_Check(obj) || !mod || !PyUnicode_Check(mod))
        name = arena_strdup(ctx->arena, utf8_or(qual, "?"));
    else
        name = arena_printf(ctx->arena, "%s.%s", utf8_or(mod, "?"), utf8_or(qual, "?"));
    Py_XDECREF(mod);
    Py_XDECREF(qual);
    return name;
}

int fe_const_of(FeCtx *ctx, PyObject *obj, Const **out)
{
    Const *c = ir_new_const(ctx->fn, K_OPAQUE);
    *out = c;
    int found = const_of_value(ctx, obj, c);
    if (found == 0)
        found = const_of_c_function(ctx, obj, c);   /* before buffers: ctypes objects are ones */
    if (found == 0 && !PyType_Check(obj))
        found = const_of_objmode(ctx, obj, c);
    if (found == 0)
        found = const_of_handle(ctx, obj, c);
    if (found < 0)
        return -1;
    if (found == 0) {
        c->kind = K_OPAQUE;
        c->name = opaque_name(ctx, obj);
        c->python_function = PyFunction_Check(obj);   /* errors say how: @njit */
        c->gpu_kernel = is_gpu_kernel(obj);            /* ... or @gpu.jit(device=True) */
        keep_alive(ctx, c, obj);
    }
    return 0;
}

const char FE_CODE_CONST[] = "<code>";

/* A NumPy scalar (np.float32(0.5)) freezes to its Python value, with its type in
 * ctx->scalar_type, so that ssa.c emits numpy.float32(0.5) and the type survives. A uint64
 * past INT64_MAX freezes to the int64 of the same bits, which numpy.uint64() gives back. */
static int freeze_object(FeCtx *ctx, PyObject *obj, Const **out)
{
    ctx->scalar_type = NULL;
    if (strncmp(Py_TYPE(obj)->tp_name, "numpy.", 6) == 0) {
        const char *tname = known_function_name(ctx, (PyObject *)Py_TYPE(obj));
        if (tname && strncmp(tname, "overload:", 9) == 0)
            tname += 9;   /* np.float32 of an array is the library's (numpy_create.py) */
        /* datetime64 and timedelta64 scalars are constants of their own (fe_const_of): their
         * item() is a datetime.date, or an int that forgets the unit */
        bool dated = tname && (strcmp(tname, "numpy.datetime64") == 0 ||
                               strcmp(tname, "numpy.timedelta64") == 0);
        /* an array is no scalar, though one of one element has an item() too */
        if (tname && strcmp(tname, "numpy.ndarray") == 0)
            tname = NULL;
        PyObject *item = tname && !dated && strncmp(tname, "numpy.", 6) == 0
                             ? PyObject_CallMethod(obj, "item", NULL) : NULL;
        if (item && strcmp(tname, "numpy.uint64") == 0 && PyLong_Check(item)) {
            unsigned long long bits = PyLong_AsUnsignedLongLong(item);
            Py_DECREF(item);
            item = bits == (unsigned long long)-1 && PyErr_Occurred()
                       ? NULL : PyLong_FromLongLong((long long)bits);
        }
        PyErr_Clear();
        if (item) {
            Const *type;
            int rc = fe_const_of(ctx, (PyObject *)Py_TYPE(obj), &type);
            if (rc == 0)
                rc = fe_const_of(ctx, item, out);
            Py_DECREF(item);
            ctx->scalar_type = rc == 0 ? type : NULL;
            return rc;
        }
    }
    return fe_const_of(ctx, obj, out);
}

const char *fe_comprehension_name(const char *name)
{
    static const char *const names[] = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return names[i];
    return NULL;
}

int fe_load_const(FeCtx *ctx, int index, Const **out)
{
    if (index < 0 || index >= PyTuple_GET_SIZE(ctx->consts))
        return fe_error(ctx, DIAG_INTERNAL, "constant index %d out of range", index);
    PyObject *obj = PyTuple_GET_ITEM(ctx->consts, index);   /* borrowed */
    const char *comp = PyCode_Check(obj) ? fe_comprehension_name(attr_string(ctx, obj, "co_name")) : NULL;
    if (comp) {
        Const *c = *out = ir_new_const(ctx->fn, K_OPAQUE);   /* for MAKE_FUNCTION (ssa.c) */
        c->name = comp;
        keep_alive(ctx, c, obj);
        return 0;
    }
    if (PyCode_Check(obj)) {   /* a lambda or inner function: for MAKE_FUNCTION (ssa.c) */
        Const *c = *out = ir_new_const(ctx->fn, K_OPAQUE);
        c->name = FE_CODE_CONST;
        keep_alive(ctx, c, obj);
        return 0;
    }
    return fe_const_of(ctx, obj, out);
}

int fe_load_global(FeCtx *ctx, const char *name, Const **out)
{
    PyObject *value = PyDict_GetItemString(ctx->globals, name);   /* borrowed */
    if (!value && ctx->builtins)
        value = PyDict_GetItemString(ctx->builtins, name);   /* borrowed */
    PyErr_Clear();
    if (!value)
        return fe_error(ctx, DIAG_TYPING, "name '%s' is not defined (globals are looked up when "
                        "the function is compiled)", name);
    return freeze_object(ctx, value, out);
}

int fe_load_deref(FeCtx *ctx, int index, Const **out)
{
    int k = index - (ctx->nlocalsplus - ctx->nfree);
    const char *name = bc_local_name(ctx, index);
    PyObject *closure = PyFunction_GetClosure(ctx->func);   /* borrowed */
    if (k < 0 || !closure || !PyTuple_Check(closure) || k >= PyTuple_GET_SIZE(closure))
        return fe_error(ctx, DIAG_UNSUPPORTED, "variable '%s' is shared with a nested function, "
                        "which is not supported in compiled code", name);
    PyObject *cell = PyTuple_GET_ITEM(closure, k);
    PyObject *value = PyCell_Check(cell) ? PyCell_GET(cell) : NULL;   /* borrowed */
    if (!value)
        return fe_error(ctx, DIAG_TYPING, "free variable '%s' has no value yet when the function "
                        "is compiled", name);
    return freeze_object(ctx, value, out);
}

int fe_fold_module_attr(FeCtx *ctx, const Const *module, const char *attr, Const **out)
{
    PyObject *value = PyObject_GetAttrString((PyObject *)module->handle, attr);
    if (!value) {
        PyErr_Clear();
        /* values that exist only in compiled code (gpu.laneid raises outside a kernel) are in
         * the registry under "module.attr" */
        char *full = arena_printf(ctx->arena, "%s.%s", module->name ? module->name : "?", attr);
        PyObject *key = PyUnicode_FromString(full);
        PyObject *name = key && ctx->registry && PyDict_Check(ctx->registry)
                             ? PyDict_GetItemWithError(ctx->registry, key) : NULL;   /* borrowed */
        Py_XDECREF(key);
        PyErr_Clear();
        if (name && PyUnicode_Check(name)) {
            Const *c = ir_new_const(ctx->fn, K_FUNC);
            c->name = arena_strdup(ctx->arena, utf8_or(name, "?"));
            keep_alive(ctx, c, (PyObject *)module->handle);
            ctx->scalar_type = NULL;
            *out = c;
            return 0;
        }
        return fe_error(ctx, DIAG_TYPING, "module '%s' has no attribute '%s'", module->name, attr);
    }
    int rc = freeze_object(ctx, value, out);
    Py_DECREF(value);
    /* an object with no name of its own (np.mgrid's instance) is named by the path written */
    if (rc == 0 && *out && (*out)->kind == K_OPAQUE && (*out)->name && (*out)->name[0] == '<' &&
        module->name)
        (*out)->name = arena_printf(ctx->arena, "%s.%s", module->name, attr);
    return rc;
}

int fe_fold_attr_function(FeCtx *ctx, const Const *owner, const char *attr, Const **out)
{
    bool known_owner = owner->handle && (owner->kind == K_FUNC || owner->kind == K_TYPE ||
                                         (owner->kind == K_OPAQUE && PyType_Check((PyObject *)owner->handle)));
    PyObject *value = known_owner ? PyObject_GetAttrString((PyObject *)owner->handle, attr) : NULL;
    /* a function, or a type (a jitclass's Cls.class_type.instance_type) */
    const char *name = value ? known_function_name(ctx, value) : NULL;
    if (value && !name)
        name = pyjit_type_name(ctx, value);
    if (value && !name && owner->kind == K_OPAQUE &&
        (fe_enum_class((PyObject *)Py_TYPE(value)) || (PyLong_Check(value) &&
                                                       !PyLong_CheckExact(value))))
        name = "enum member";   /* Color.RED (an IntEnum's member is an int) */
    PyErr_Clear();
    int rc = name ? fe_const_of(ctx, value, out) : 0;
    Py_XDECREF(value);
    return rc < 0 ? -1 : name ? 1 : 0;
}

/* The keyword-only parameters' defaults, by name from __kwdefaults__ (NULL where none). */
static int freeze_kwdefaults(FeCtx *ctx)
{
    IRFunc *fn = ctx->fn;
    PyObject *kwdefaults = PyFunction_GetKwDefaults(ctx->func);   /* borrowed; NULL if none */
    int first = fn->nargs - fn->varargs - fn->nkwonly;
    fn->kwdefaults = arena_alloc(ctx->arena, sizeof(Const *) * (size_t)(fn->nkwonly + 1));
    for (int k = 0; k < fn->nkwonly; k++) {
        PyObject *v = kwdefaults && PyDict_Check(kwdefaults)
                          ? PyDict_GetItemString(kwdefaults, fn->argnames[first + k]) : NULL;
        fn->kwdefaults[k] = NULL;
        if (v && fe_const_of(ctx, v, &fn->kwdefaults[k]) < 0)
            return -1;
    }
    return 0;
}

int fe_freeze_defaults(FeCtx *ctx)
{
    if (ctx->fn->nkwonly && freeze_kwdefaults(ctx) < 0)
        return -1;
    PyObject *defaults = PyFunction_GetDefaults(ctx->func);   /* borrowed; NULL if none */
    if (!defaults || !PyTuple_Check(defaults))
        return 0;
    ctx->fn->ndefaults = (int)PyTuple_GET_SIZE(defaults);
    ctx->fn->defaults = arena_alloc(ctx->arena, sizeof(Const *) * (size_t)(ctx->fn->ndefaults + 1));
    for (int i = 0; i < ctx->fn->ndefaults; i++)
        if (fe_const_of(ctx, PyTuple_GET_ITEM(defaults, i), &ctx->fn->defaults[i]) < 0)
            return -1;
    return 0;
}
