/* errors.c: Diag -> Python exception, in one place. */
#include "runtime/runtime.h"

PyObject *rt_raise_diag(const Diag *diag)
{
    /* Placeholder until pyjit.errors exists: the runtime owner replaces this. */
    PyErr_Format(PyExc_RuntimeError, "%s:%d: %s", diag->file ? diag->file : "?", diag->line,
                 diag->message);
    return NULL;
}
