/* objmode.c: `with objmode(x='float64[:]'):` blocks, run by the interpreter in the middle of
 * compiled code.
 *
 * pyjit/_objmode.py outlines each block into a Python function and wraps it in an ObjModeCall,
 * which compiled code calls through pj_objmode_call (compiler/lower_ffi.c): the GIL is taken
 * (the caller may run without it: nogil, prange workers, a cfunc called from C), the variables
 * the block reads are boxed, the ObjModeCall runs the block and checks and converts its outputs
 * to their declared types (a wrong type is its TypeError), and the outputs are unboxed into the
 * tuple compiled code unpacks. An array output gets a MemInfo of its own holding the NumPy array
 * (rt_nrt_adopt), so compiled code may keep it after the call. An exception the block raises is
 * handed to compiled code as ABI_EXC_PYTHON, carrying the exception object itself, and raised
 * again, unchanged, where compiled code returns to Python. */
#include "runtime/runtime.h"

static PyObject *box_inputs(int32_t nargs, void *const *args, const char *const *typenames)
{
    PyObject *tuple = PyTuple_New(nargs);
    for (int32_t i = 0; tuple && i < nargs; i++) {
        Type *t = ty_parse(typenames[i]);   /* names, not addresses, in the code (abi.h) */
        if (!t) {
            PyErr_Format(PyExc_SystemError, "pyjit: objmode input of unknown type %s", typenames[i]);
            Py_CLEAR(tuple);
            break;
        }
        rt_retain_value(t, args[i]);   /* rt_box takes over references: the caller keeps its own */
        PyObject *v = rt_box(t, args[i]);
        if (!v)
            Py_CLEAR(tuple);
        else
            PyTuple_SET_ITEM(tuple, i, v);
    }
    return tuple;
}

/* An array output: a descriptor over the NumPy array with a MemInfo that holds the array. */
static int unbox_array_output(PyObject *obj, Type *t, void *buf)
{
    if (rt_unbox(obj, t, buf) < 0)
        return -1;
    ArrayDesc *desc = buf;
    int64_t size = ty_itemsize(t->array.dtype);
    for (int k = 0; k < t->array.ndim; k++)
        size *= desc->dims[k];
    desc->meminfo = rt_nrt_adopt(obj, desc->data, size);
    desc->parent = NULL;
    return desc->meminfo ? 0 : -1;
}

/* The outputs (a tuple the ObjModeCall already checked against the declared types) into out,
 * laid out as the tuple type ret. */
static int unbox_outputs(PyObject *values, Type *ret, char *out)
{
    if (!PyTuple_Check(values) || PyTuple_GET_SIZE(values) != ret->tuple.n) {
        PyErr_SetString(PyExc_SystemError, "pyjit: an objmode block gave the wrong outputs");
        return -1;
    }
    for (int i = 0; i < ret->tuple.n; i++) {
        Type *t = ret->tuple.items[i];
        PyObject *v = PyTuple_GET_ITEM(values, i);
        void *at = out + ty_tuple_offset(ret, i);
        int rc = t->kind == TY_ARRAY ? unbox_array_output(v, t, at) : rt_unbox(v, t, at);
        if (rc < 0) {
            while (--i >= 0)
                rt_release_value(ret->tuple.items[i], out + ty_tuple_offset(ret, i));
            return -1;
        }
    }
    return 0;
}

/* The exception being raised, moved into exc for compiled code to carry (abi.h). */
static void take_exception(ExcInfo *exc)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value && tb)
        PyException_SetTraceback(value, tb);
    exc->kind = ABI_EXC_PYTHON;
    exc->cls = value;   /* the reference: rt_raise_exc raises it, or rt_release_exc drops it */
    exc->msg = NULL;
    exc->nargs = 0;
    exc->where = NULL;
    Py_XDECREF(type);
    Py_XDECREF(tb);
}

int32_t pj_objmode_call(void *fn, int32_t nargs, void *const *args, const char *const *typenames,
                        const char *retname, void *out, ExcInfo *exc)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int32_t status = ABI_STATUS_ERROR;
    if (rt_numpy_ready() < 0)
        goto done;
    Type *ret = ty_parse(retname);
    PyObject *inputs = box_inputs(nargs, args, typenames);
    PyObject *values = inputs ? PyObject_Call(fn, inputs, NULL) : NULL;
    Py_XDECREF(inputs);
    if (values && ret && unbox_outputs(values, ret, out) == 0)
        status = ABI_STATUS_OK;
    Py_XDECREF(values);
done:
    if (status != ABI_STATUS_OK)
        take_exception(exc);
    PyGILState_Release(gil);
    return status;
}

/* print() of a value the interpreter formats (an array, a list, a dict, a set), as Numba prints
 * one: boxed, and its str() written where compiled code's print writes (runtime/nrt.c); the GIL
 * is taken, as for a block. Should boxing fail, the type's name is printed instead. */
void pj_print_boxed(const char *typename, void *value, int32_t quoted)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    Type *t = ty_parse(typename);
    PyObject *obj = NULL;
    if (t) {
        rt_retain_value(t, value);   /* rt_box takes over references: the caller keeps its own */
        obj = rt_box(t, value);
    }
    PyObject *text = obj ? (quoted ? PyObject_Repr(obj) : PyObject_Str(obj)) : NULL;
    const char *s = text ? PyUnicode_AsUTF8(text) : NULL;
    if (!s)
        PyErr_Clear();
    fputs(s ? s : typename, stdout);
    Py_XDECREF(text);
    Py_XDECREF(obj);
    PyGILState_Release(gil);
}
