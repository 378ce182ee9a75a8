/* module.c: the extension module pyjit._core. */
#include "runtime/runtime.h"
#include "frontend/frontend.h"

/* _core.dump_ir(func, registry) -> str: the untyped SSA IR of func (PYJIT_DUMP=ssa). */
static PyObject *core_dump_ir(PyObject *self, PyObject *args)
{
    PyObject *func, *registry;
    if (!PyArg_ParseTuple(args, "OO!:dump_ir", &func, &PyDict_Type, &registry))
        return NULL;
    Arena *arena = arena_new();
    Diag diag = {0};
    PyObject *result = NULL;
    IRFunc *fn = fe_build(func, registry, arena, &diag);
    if (!fn) {
        rt_raise_diag(&diag);
        goto done;
    }
    result = PyUnicode_FromString(ir_dump(fn, false));
done:
    arena_free(arena);
    return result;
}

static PyMethodDef core_methods[] = {
    {"dump_ir", core_dump_ir, METH_VARARGS, "The untyped SSA IR of a Python function, as text."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "pyjit._core", "pyjit's compiler and runtime, in C.", -1, core_methods,
};

PyMODINIT_FUNC PyInit__core(void)
{
    return PyModule_Create(&core_module);
}
