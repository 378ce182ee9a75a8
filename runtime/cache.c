/* cache.c: @njit(cache=True), the C half of the on-disk cache (pyjit/_cache.py is the other).
 *
 * A version is stored as the object file jit_emit_cpu made (Program.object) with what an
 * RtVersion keeps beside its code: the return type, whether it prints, the texts inspect_*()
 * show, the entry's symbol, and the Python objects whose addresses the code refers to (its
 * CodeRefs: exception classes, frozen arrays), which pyjit/_cache.py describes so that another
 * process finds its own objects. pyjit/_cache.py owns everything about files and keys (where,
 * what the key covers, atomic writes, checks, warnings, statistics); here a hit becomes a
 * version (jit_load_object with this process's addresses) and a compiled version becomes what
 * pyjit/_cache.py writes. A cache problem is never an error of the call: the worst case is a
 * compilation, and pyjit/_cache.py warns once. */
#define PY_SSIZE_T_CLEAN   /* y# and s# take Py_ssize_t lengths */
#include "runtime/runtime.h"

#include <string.h>

static PyObject *cache_module(void)
{
    static PyObject *mod;   /* pyjit._cache, imported on the first cached compilation */
    if (!mod)
        mod = PyImport_ImportModule("pyjit._cache");
    return mod;
}

/* A failed call into pyjit._cache (a bug there, or an interrupt): reported, never raised. */
static void report_failure(void)
{
    if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
        return;   /* left set: the interrupt goes on */
    PyErr_WriteUnraisable(NULL);
}

/* ("int64", "weak float64", "array(float64, 1d, C)", ...): weak types are named as such, since
 * code compiled for a Python float differs from code compiled for np.float64. */
static PyObject *type_names(Type **types, int n)
{
    PyObject *names = PyTuple_New(n);
    for (int i = 0; names && i < n; i++) {
        PyObject *s = PyUnicode_FromString(types[i]->name);
        if (!s)
            Py_CLEAR(names);
        else
            PyTuple_SET_ITEM(names, i, s);   /* stolen */
    }
    return names;
}

static Type *type_named(const char *name)
{
    if (strncmp(name, "weak ", 5) == 0) {
        Type *t = ty_parse(name + 5);
        return t ? ty_weak(t) : NULL;
    }
    return ty_parse(name);
}

/* The address compiled code uses for a CodeRef's object in this process (compiler.h). */
static int ref_address(int kind, PyObject *obj, void **addr)
{
    if (kind == REF_EXCCLASS && PyExceptionClass_Check(obj)) {
        *addr = obj;
        return 0;
    }
    Py_buffer view;
    if (kind != REF_ARRAY || PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return -1;
    }
    *addr = view.buf;   /* the array object keeps it valid: it goes into keepalive */
    PyBuffer_Release(&view);
    return 0;
}

/* hit = (object: bytes, symbol: str, refs: [(kind, object)], ret: str, uses_print: bool,
 * types_dump: str | None, llvm_dump: str | None), as pyjit._cache.load gives it. */
static RtVersion *version_of_hit(RtDispatcher *d, Type **argtypes, PyObject *hit, Diag *diag)
{
    const char *object, *symbol, *retname, *types_dump, *llvm_dump;
    Py_ssize_t size;
    PyObject *refs;
    int uses_print;
    if (!PyArg_ParseTuple(hit, "y#sO!spzz", &object, &size, &symbol, &PyList_Type, &refs, &retname,
                          &uses_print, &types_dump, &llvm_dump)) {
        PyErr_Clear();
        return NULL;
    }
    Type *ret = type_named(retname);
    Py_ssize_t nrefs = PyList_GET_SIZE(refs);
    void **addrs = PyMem_Calloc((size_t)nrefs + 1, sizeof *addrs);
    PyObject *keep = PyList_New(nrefs);
    RtVersion *v = NULL;
    JitCode code;
    if (!ret || !addrs || !keep)
        goto fail;
    for (Py_ssize_t i = 0; i < nrefs; i++) {
        int kind;
        PyObject *obj;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(refs, i), "iO", &kind, &obj) ||
            ref_address(kind, obj, &addrs[i]) < 0)
            goto fail;
        PyList_SET_ITEM(keep, i, Py_NewRef(obj));   /* stolen */
    }
    if (jit_load_object(object, (size_t)size, symbol, addrs, (int)nrefs, &code, diag) < 0)
        goto fail;
    v = rt_version_new(d, argtypes, ret, &code, keep);   /* takes keep */
    keep = NULL;
    if (v) {
        v->uses_print = uses_print;
        v->types_dump = types_dump ? strdup(types_dump) : NULL;
        v->llvm_dump = llvm_dump ? strdup(llvm_dump) : NULL;
    }
fail:
    PyErr_Clear();   /* a hit that does not load is a miss (the caller says so) */
    PyMem_Free(addrs);
    Py_XDECREF(keep);
    return v;
}

RtVersion *rt_cache_load(RtDispatcher *d, Type **argtypes, Type *ret, PyObject **token)
{
    *token = NULL;
    PyObject *mod = cache_module();
    PyObject *args = type_names(argtypes, d->nargs);
    PyObject *result = mod && args ? PyObject_CallMethod(mod, "load", "OOs", (PyObject *)d, args,
                                                         ret ? ret->name : NULL)
                                   : NULL;
    Py_XDECREF(args);
    RtVersion *v = NULL;
    PyObject *hit;
    if (!result || !PyArg_ParseTuple(result, "OO", token, &hit)) {
        report_failure();
        *token = NULL;
    } else {
        Py_INCREF(*token);
        Diag diag = {0};
        if (hit != Py_None && !(v = version_of_hit(d, argtypes, hit, &diag))) {
            PyObject *r = PyObject_CallMethod(mod, "rejected", "Os", *token,
                                              diag.message[0] ? diag.message : "malformed entry");
            if (!r)
                report_failure();
            Py_XDECREF(r);
        }
    }
    Py_XDECREF(result);
    if (*token == Py_None)
        Py_CLEAR(*token);
    return v;
}

void rt_cache_store(PyObject *token, Program *prog, RtVersion *v)
{
    if (type_named(v->ret->name) != v->ret)
        return;   /* a result its name does not give back (a namedtuple's class is not in its
                     name): such a function is compiled in each process */
    PyObject *refs = PyList_New(prog->refs.len), *args = NULL, *r = NULL;
    for (int i = 0; refs && i < prog->refs.len; i++) {
        CodeRef *ref = prog->refs.items[i];
        PyObject *item = Py_BuildValue("(iO)", (int)ref->kind, (PyObject *)ref->handle);
        if (!item)
            goto fail;
        PyList_SET_ITEM(refs, i, item);   /* stolen */
    }
    TypedFunc *entry = prog->funcs.items[0];
    args = refs ? Py_BuildValue("(Oy#sOsizz)", token, prog->object, (Py_ssize_t)prog->object_size,
                                entry->symbol, refs, v->ret->name, (int)v->uses_print,
                                v->types_dump, v->llvm_dump)
                : NULL;
    PyObject *mod = cache_module();
    PyObject *store = args && mod ? PyObject_GetAttrString(mod, "store") : NULL;
    r = store ? PyObject_Call(store, args, NULL) : NULL;
    Py_XDECREF(store);
fail:
    if (!r)
        report_failure();
    Py_XDECREF(refs);
    Py_XDECREF(args);
    Py_XDECREF(r);
}

/* ---- @gpu.jit(cache=True): PTX, keyed also by the device and the launch's facts ---- */

PyObject *rt_cache_load_kernel(PyObject *kernel, Type **argtypes, int nargs, const char *target,
                               PyObject **token)
{
    *token = NULL;
    PyObject *mod = cache_module();
    PyObject *args = type_names(argtypes, nargs);
    PyObject *result = mod && args ? PyObject_CallMethod(mod, "load_kernel", "OOs", kernel, args,
                                                         target)
                                   : NULL;
    Py_XDECREF(args);
    PyObject *hit = NULL;
    if (!result || !PyArg_ParseTuple(result, "OO", token, &hit)) {
        report_failure();
        *token = hit = NULL;
    } else {
        Py_INCREF(*token);
        hit = hit == Py_None ? NULL : Py_NewRef(hit);
    }
    Py_XDECREF(result);
    if (*token == Py_None)
        Py_CLEAR(*token);
    return hit;
}

void rt_cache_store_kernel(PyObject *token, const char *ptx, const char *entry, uint64_t written,
                           const char *types_dump, const char *llvm_dump)
{
    PyObject *mod = cache_module();
    PyObject *r = mod ? PyObject_CallMethod(mod, "store_kernel", "OysKzz", token, ptx, entry,
                                            (unsigned long long)written, types_dump, llvm_dump)
                      : NULL;
    if (!r)
        report_failure();
    Py_XDECREF(r);
}
