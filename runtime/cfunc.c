/* cfunc.c: what a @cfunc needs of the runtime (pyjit/_ffi.py makes the Python object).
 *
 * A cfunc is a dispatcher made with cfunc=True and one declared signature: its version is
 * compiled with Program.cfunc, so the object code also holds the C entry symbol__cfunc
 * (compiler/lower_ffi.c), whose address C callers take. C has no exceptions: when the body
 * raises, the C entry calls pj_cfunc_error, which reports the exception as Python reports one
 * it cannot raise (sys.unraisablehook, printed to stderr by default), and returns zero. This is
 * Numba's behaviour for cfuncs. */
#include "runtime/runtime.h"

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
