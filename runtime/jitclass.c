/* jitclass.c: jitclass instances (pyjit.experimental.jitclass) in memory and across the boundary.
 *
 * An instance is a MemInfo whose data holds its fields (abi.h ClassTrailer says how); compiled
 * code reads and writes them in place and calls here only to make one. In Python an instance is
 * a JitClassBox owning one reference on that MemInfo, as a typed List owns its list: passing it
 * to compiled code passes the reference, not a copy, so both sides see one object's fields. Each
 * jitclass is a Python subclass of JitClassBox (pyjit/experimental/jitclass.py makes it) whose
 * properties and methods call compiled accessors; its instance type (types.h TY_CLASS) points
 * back at that subclass, which boxing instantiates. */
#include "runtime/runtime.h"

#include <string.h>

typedef struct JitClassBox {
    PyObject_HEAD
    MemInfo *mi;    /* one reference; NULL only in a box that was never filled */
    Type *type;     /* its instance type */
} JitClassBox;

#define BOX(o) ((JitClassBox *)(o))

/* ---- memory (plain C, no GIL) ---- */

static int64_t trailer_offset(int64_t size)
{
    return (size + 3) / 4 * 4;
}

static void class_dtor(MemInfo *mi)
{
    char *data = mi->data;
    const int32_t *nrefs = (const int32_t *)(data + mi->size - sizeof(int32_t));
    const int32_t *refs = nrefs - *nrefs;
    for (int32_t k = 0; k < *nrefs; k++)
        pj_nrt_decref(*(MemInfo **)(data + refs[k]));
}

MemInfo *pj_class_new(int64_t size, const int32_t *refs, int32_t nrefs)
{
    if (size < 0 || nrefs < 0)
        return NULL;
    int64_t off = trailer_offset(size);
    int64_t total = off + (int64_t)sizeof(int32_t) * (nrefs + 1);
    MemInfo *mi = pj_nrt_alloc(total);
    if (!mi)
        return NULL;
    char *data = mi->data;
    memset(data, 0, (size_t)off);
    if (nrefs)
        memcpy(data + off, refs, sizeof(int32_t) * (size_t)nrefs);
    memcpy(data + off + sizeof(int32_t) * (size_t)nrefs, &nrefs, sizeof nrefs);
    mi->dtor = class_dtor;
    return mi;
}

MemInfo *pj_array_adopt(void *parent, void *data)
{
    PyGILState_STATE gil = PyGILState_Ensure();   /* nogil functions store fields too */
    MemInfo *mi = rt_nrt_adopt(parent, data, 0);
    if (!mi)
        PyErr_Clear();   /* compiled code raises MemoryError itself */
    PyGILState_Release(gil);
    return mi;
}

/* ---- the Python box ---- */

static void box_dealloc(PyObject *self)
{
    pj_nrt_decref(BOX(self)->mi);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *box_repr(PyObject *self)
{
    Type *t = BOX(self)->type;
    return PyUnicode_FromFormat("<%s jitclass instance at %p>",
                                t ? t->klass.cls_name : Py_TYPE(self)->tp_name, (void *)self);
}

static PyObject *box_get_address(PyObject *self, void *unused)
{
    (void)unused;   /* the MemInfo: two boxes of one instance have the same */
    return PyLong_FromVoidPtr(BOX(self)->mi);
}

static PyGetSetDef box_getset[] = {
    {"_meminfo", box_get_address, NULL, "The address of the instance's memory (its identity).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject RtJitClassBoxType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit._core.JitClassBox",
    .tp_basicsize = sizeof(JitClassBox),
    .tp_dealloc = box_dealloc,
    .tp_repr = box_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The base of every jitclass: an instance whose fields live in compiled memory.",
    .tp_getset = box_getset,
};

Type *rt_typeof_jitclass(PyObject *obj)
{
    return BOX(obj)->type;
}

int rt_unbox_jitclass(PyObject *obj, Type *ty, MemInfo **out)
{
    if (!PyObject_TypeCheck(obj, &RtJitClassBoxType) || BOX(obj)->type != ty || !BOX(obj)->mi) {
        PyErr_Format(PyExc_TypeError, "expected an instance of jitclass %s, got %s",
                     ty->klass.cls_name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    pj_nrt_incref(BOX(obj)->mi);
    *out = BOX(obj)->mi;
    return 0;
}

PyObject *rt_box_jitclass(Type *ty, MemInfo *mi)
{
    PyTypeObject *tp = (PyTypeObject *)ty->klass.cls;
    PyObject *self = tp->tp_alloc(tp, 0);
    if (!self) {
        pj_nrt_decref(mi);
        return NULL;
    }
    BOX(self)->mi = mi;   /* takes over the reference */
    BOX(self)->type = ty;
    return self;
}

/* jitclass_type(cls, name, fields, types): the instance type of a new jitclass, cls (a subclass
 * of JitClassBox, kept alive for the process as the type points at it), with these field names
 * and field types (canonical names); its canonical name. */
static PyObject *core_jitclass_type(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cls, *fields, *types;
    const char *name;
    if (!PyArg_ParseTuple(args, "O!sO!O!", &PyType_Type, &cls, &name, &PyTuple_Type, &fields,
                          &PyTuple_Type, &types))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    if (!PyType_IsSubtype((PyTypeObject *)cls, &RtJitClassBoxType) || PyTuple_GET_SIZE(types) != n ||
        n > 256)
        return PyErr_Format(PyExc_TypeError, "jitclass_type: a JitClassBox subclass and as many "
                            "types as fields (at most 256)");
    const char *names[256];
    Type *tys[256];
    for (Py_ssize_t i = 0; i < n; i++) {
        names[i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(fields, i));
        const char *tname = PyUnicode_AsUTF8(PyTuple_GET_ITEM(types, i));
        if (!names[i] || !tname)
            return NULL;
        tys[i] = ty_parse(tname);
        if (!tys[i] || ty_is_undetermined(tys[i]) || tys[i]->kind == TY_NONE)
            return PyErr_Format(PyExc_TypeError, "field '%s': %s is not a type a jitclass field "
                                "can hold", names[i], tname);
    }
    Type *t = ty_class(Py_NewRef(cls), name, names, tys, (int)n);
    return PyUnicode_FromString(t->name);
}

/* jitclass_set_field(instance, i, type): field i of the jitclass instance type named instance
 * given the type named type, once a deferred_type its declaration used is defined (a field of
 * the class's own type: linked lists, trees). Nothing has been compiled for the class yet. */
static PyObject *core_jitclass_set_field(PyObject *self, PyObject *args)
{
    (void)self;
    const char *instance, *tname;
    int i;
    if (!PyArg_ParseTuple(args, "sis", &instance, &i, &tname))
        return NULL;
    Type *t = ty_parse(instance), *ft = ty_parse(tname);
    if (!t || t->kind != TY_CLASS || i < 0 || i >= t->klass.data->tuple.n)
        return PyErr_Format(PyExc_TypeError, "jitclass_set_field: %s has no field %d", instance, i);
    if (!ft || ty_is_undetermined(ft) || ft->kind == TY_NONE)
        return PyErr_Format(PyExc_TypeError, "field '%s': %s is not a type a jitclass field can "
                            "hold", t->klass.fields[i], tname);
    int n = t->klass.data->tuple.n;
    Type *tys[256];
    for (int k = 0; k < n; k++)
        tys[k] = k == i ? ft : t->klass.data->tuple.items[k];
    t->klass.data = ty_tuple(tys, n);
    Py_RETURN_NONE;
}

static PyMethodDef jitclass_methods[] = {
    {"jitclass_type", core_jitclass_type, METH_VARARGS,
     "jitclass_type(cls, name, fields, types): the canonical name of a new jitclass's instance type."},
    {"jitclass_set_field", core_jitclass_set_field, METH_VARARGS,
     "jitclass_set_field(instance, i, type): a field's type, given once its deferred_type is defined."},
    {NULL, NULL, 0, NULL},
};

int rt_jitclass_init(PyObject *module)
{
    if (PyType_Ready(&RtJitClassBoxType) < 0 ||
        PyModule_AddObjectRef(module, "JitClassBox", (PyObject *)&RtJitClassBoxType) < 0)
        return -1;
    return PyModule_AddFunctions(module, jitclass_methods);
}
