/* cfunc.c: what a @cfunc needs of the runtime (pyjit/_ffi.py makes the Python object).
 *
 * A cfunc is a dispatcher made with cfunc=True and one declared signature: its version is
 * compiled with Program.cfunc, so the object code also holds the C entry symbol__cfunc
 * (compiler/lower_ffi.c), whose address C callers take. C has no exceptions: when the body
 * raises, the C entry calls pj_cfunc_error, which reports the exception as Python reports one
 * it cannot raise (sys.unraisablehook, printed to stderr by default), and returns zero. This is
 * Numba's behaviour for cfuncs. */
#include "runtime/runtime.h"
#include "frontend/frontend.h"

void pj_cfunc_error(const ExcInfo *exc, const char *name)
{
    PyGILState_STATE gil = PyGILState_Ensure();   /* C may call from any thread */
    RtPendingError pending = rt_error_save();
    rt_raise_exc(exc);
    PyObject *where = PyUnicode_FromFormat("<cfunc %s>", name);
    PyErr_WriteUnraisable(where);
    Py_XDECREF(where);
    rt_error_restore(pending);
    PyGILState_Release(gil);
}

PyObject *rt_cfunc_address(PyObject *self, PyObject *unused)
{
    RtDispatcher *d = (RtDispatcher *)self;
    if (!d->cfunc || d->nversions != 1 || !d->versions[0]->code.cfunc)
        return PyErr_Format(PyExc_TypeError, "%s is not a compiled @cfunc", d->cname);
    return PyLong_FromVoidPtr(d->versions[0]->code.cfunc);
}

/* ---- C functions passed as arguments ---- */

/* {id(function): (function, its type as an int)}: describe() runs once per function (by
 * identity: ctypes functions are unhashable), and the dict keeps each function alive for as long
 * as its type, the process. */
static PyObject *c_function_types;

static Type *describe_c_function(PyObject *obj)
{
    PyObject *mod = PyImport_ImportModule("pyjit._ffi");
    PyObject *d = mod ? PyObject_CallMethod(mod, "describe", "O", obj) : NULL;
    Py_XDECREF(mod);
    const char *name, *sig;
    PyObject *addr;
    Type *t = NULL;
    if (d && d != Py_None && PyArg_ParseTuple(d, "sOs", &name, &addr, &sig)) {
        Const k = {.kind = K_CFUNC, .name = name, .handle = obj, .data = PyLong_AsVoidPtr(addr)};
        k.s = sig;
        t = PyErr_Occurred() ? NULL : ty_literal(TY_FUNCTION, &k);   /* copies what it keeps */
    }
    Py_XDECREF(d);
    return t;
}

Type *rt_typeof_c_function(PyObject *obj)
{
    if (!fe_maybe_c_function(obj))
        return NULL;
    if (!c_function_types && !(c_function_types = PyDict_New()))
        return NULL;
    PyObject *key = PyLong_FromVoidPtr(obj);
    PyObject *known = key ? PyDict_GetItemWithError(c_function_types, key) : NULL;   /* borrowed */
    Type *t = known ? PyLong_AsVoidPtr(PyTuple_GET_ITEM(known, 1)) : NULL;
    if (!known && !PyErr_Occurred() && (t = describe_c_function(obj))) {
        PyObject *entry = Py_BuildValue("(ON)", obj, PyLong_FromVoidPtr(t));
        if (!entry || PyDict_SetItem(c_function_types, key, entry) < 0)
            t = NULL;
        Py_XDECREF(entry);
    }
    Py_XDECREF(key);
    return t;
}

bool rt_takes_c_function(Type **argtypes, int nargs)
{
    for (int i = 0; i < nargs; i++)
        if (argtypes[i]->kind == TY_FUNCTION && argtypes[i]->literal &&
            argtypes[i]->literal->kind == K_CFUNC)
            return true;
    return false;
}
