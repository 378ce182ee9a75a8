/* typed_dict.c: dicts and sets across the boundary between Python and compiled code.
 *
 * A dict made by compiled code returns as a pyjit.typed.Dict (the type here, RtDictType): a
 * Python mapping over the same table, which it keeps alive. Passed back to a compiled function,
 * the table itself is passed, so changes on either side are seen by the other, as Numba's
 * typed.Dict. Its operations run here, in C: keys and values are unboxed into the table's layout
 * (typeof.c), hashed and compared as compiled code does (dict.c). A Dict() made empty in Python
 * takes its key and value types from the first item stored.
 *
 * A Python set passed to a compiled function is copied into a new table that remembers it and,
 * like a list (list.c), is reflected: after the call the Python set's items are replaced by the
 * table's. A set returned from compiled code becomes a new Python set (or that same Python set,
 * when it is the one passed in). */
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

typedef struct RtDict {
    PyObject_HEAD
    Type *type;     /* dict(K, V), or NULL before the first item of a Dict() */
    MemInfo *mi;    /* one reference, or NULL with type */
} RtDict;

/* ---- tables from C ---- */

static MemInfo *table_new(Type *t, int64_t n)
{
    int64_t valoff, size;
    ty_table_layout(t, &valoff, &size);
    int32_t refs[ABI_DICT_MAX_REFS];
    int nrefs = ty_table_refs(t, refs, ABI_DICT_MAX_REFS);
    MemInfo *mi = nrefs < 0 ? NULL : pj_dict_new(size, (int32_t)valoff, refs, nrefs, n);
    if (!mi)
        PyErr_NoMemory();
    return mi;
}

/* Whether a Python value of type from is stored as type to: exactly, or converted safely. */
static bool converts(Type *from, Type *to)
{
    int rank = from ? rt_conversion_rank(from, to) : -1;
    return rank >= 0 && rank <= 2;
}

/* Whether the integer obj (of int type from) has a value int type t holds: a Python int or an
 * integer of another width is then the same key as that t (1 == np.int32(1), and they hash
 * alike), as Numba's typed.Dict casts it. */
static bool int_fits(PyObject *obj, Type *from, Type *t)
{
    if (!ty_is_int(from) || !ty_is_int(t))
        return false;
    PyObject *v = PyNumber_Index(obj);
    if (!v)
        return PyErr_Clear(), false;
    int bits = (int)ty_mem_size(t) * 8, overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    bool fits;
    if (overflow || (x == -1 && PyErr_Occurred())) {   /* beyond int64: only a uint64 may hold it */
        PyErr_Clear();
        unsigned long long u = overflow > 0 && !ty_is_signed(t) && bits == 64
                               ? PyLong_AsUnsignedLongLong(v) : 0;
        fits = overflow > 0 && !ty_is_signed(t) && bits == 64 && !(u == (unsigned long long)-1 && PyErr_Occurred());
        PyErr_Clear();
    } else if (ty_is_signed(t)) {
        fits = bits == 64 || (x >= -(1LL << (bits - 1)) && x < (1LL << (bits - 1)));
    } else {
        fits = x >= 0 && (bits == 64 || x < (1LL << bits));
    }
    Py_DECREF(v);
    return fits;
}

/* obj unboxed as type t into buf: 0, 1 when it is not a t (no exception), -1 on error. */
static int unbox_into(PyObject *obj, Type *t, void *buf)
{
    Type *from = rt_typeof(obj, 0);
    if (from && int_fits(obj, from, t))
        return rt_unbox_as(obj, from, t, buf) < 0 ? -1 : 0;
    if (!from || !converts(from, t)) {
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
        return 1;
    }
    return rt_unbox_as(obj, from, t, buf) < 0 ? -1 : 0;
}

/* Whether unboxing a value of type t gives the references it holds as its own (strings, typed
 * lists and dicts, tuples of them), so a table can keep it: a reflected list or set is a copy
 * made for one call. */
static bool unboxes_owned(Type *t)
{
    switch (t->kind) {
    case TY_STR: case TY_DICT:
        return true;
    case TY_LIST:
        return t->list.typed;
    case TY_OPTIONAL:
        return unboxes_owned(t->optional.value);
    case TY_TUPLE:
        for (int i = 0; i < t->tuple.n; i++)
            if (!unboxes_owned(t->tuple.items[i]))
                return false;
        return true;
    default:
        return !ty_holds_meminfo(t) && t->kind != TY_ARRAY;
    }
}

/* A Python value stored in a table of t's values at buf (an instance, a string, a typed list or
 * dict brings a reference of its own, unboxed): an array keeps its owner alive through a
 * MemInfo of its own (the table outlives the call). */
static int unbox_value(PyObject *obj, Type *t, void *buf)
{
    if (t->kind != TY_ARRAY && t->kind != TY_CLASS && !unboxes_owned(t)) {
        PyErr_Format(PyExc_TypeError, "pyjit.typed.Dict: values of type %s are set in compiled "
                     "code only", t->name);
        return -1;
    }
    int rc = unbox_into(obj, t, buf);
    if (rc > 0)
        PyErr_Format(PyExc_TypeError, "pyjit.typed.Dict: a value of type %.80s for a Dict of %s "
                     "values", Py_TYPE(obj)->tp_name, t->name);
    if (rc != 0)
        return -1;
    ArrayDesc *desc = buf;
    if (t->kind == TY_ARRAY && !desc->meminfo) {
        desc->meminfo = rt_nrt_adopt(obj, desc->data, 0);
        desc->parent = NULL;
        if (!desc->meminfo)
            return -1;
    }
    return 0;
}

/* The Python object for the value of type t at buf, which the table keeps. */
static PyObject *box_kept(Type *t, void *buf)
{
    rt_retain_value(t, buf);   /* rt_box takes over a reference */
    return rt_box(t, buf);
}

static Type *key_type(Type *t)
{
    return t->kind == TY_DICT ? t->dict.key : t->set.item;
}

/* Finds key (a Python object) in the table mi of type t: its entry number or -1, with its slot,
 * hash and unboxed form in *slot, *h and kbuf (of ty_mem_size(key) bytes). -2 when the key is
 * not of the key type (no exception), -3 on error. */
/* key's entry in the table: its number, -1 when absent (then *slot is where it goes), -2 when key
 * is not of the key type, -3 on error. kbuf holds the key unboxed (from -1 on): a string key holds
 * a reference there, which the entry made of it takes, or drop_key releases. */
static int64_t find(Type *t, MemInfo *mi, PyObject *key, char *kbuf, int64_t *h, int64_t *slot)
{
    Type *kt = key_type(t);
    int rc = unbox_into(key, kt, kbuf);
    if (rc != 0)
        return rc < 0 ? -3 : -2;
    *h = dict_key_hash(kt, kbuf);
    return dict_lookup(rt_dict_payload(mi), kt, kbuf, *h, slot);
}

static void drop_key(Type *t, char *kbuf, int64_t ix)
{
    if (ix >= -1)
        rt_release_value(key_type(t), kbuf);
}

/* A key buffer for a type: on the stack for most keys. */
#define KEYBUF 512

static int key_fits(Type *t)
{
    if (ty_mem_size(key_type(t)) <= KEYBUF)
        return 0;
    PyErr_SetString(PyExc_TypeError, "pyjit.typed.Dict: keys of more than 512 bytes");
    return -1;
}

/* ---- the Dict type ---- */

static RtDict *dict_alloc(PyTypeObject *cls, Type *t, MemInfo *mi)
{
    RtDict *d = (RtDict *)cls->tp_alloc(cls, 0);
    if (d) {
        d->type = t;
        d->mi = mi;
    } else {
        pj_nrt_decref(mi);
    }
    return d;
}

static void Dict_dealloc(RtDict *d)
{
    pj_nrt_decref(d->mi);
    Py_TYPE(d)->tp_free((PyObject *)d);
}

static PyObject *Dict_new(PyTypeObject *cls, PyObject *args, PyObject *kwargs)
{
    if (PyTuple_GET_SIZE(args) || (kwargs && PyDict_GET_SIZE(kwargs))) {
        PyErr_SetString(PyExc_TypeError, "Dict() takes no arguments (use Dict.empty(key_type, "
                        "value_type), then update())");
        return NULL;
    }
    return (PyObject *)dict_alloc(cls, NULL, NULL);
}

static Type *type_of_spec(PyObject *spec, const char *what)
{
    PyObject *name = PyUnicode_Check(spec) ? Py_NewRef(spec) : PyObject_GetAttrString(spec, "name");
    const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    Type *t = s ? ty_parse(s) : NULL;
    Py_XDECREF(name);
    PyErr_Clear();
    if (!t || ty_is_undetermined(t) || (!ty_is_scalar(t) && t->kind != TY_TUPLE && !ty_holds_meminfo(t)))
        PyErr_Format(PyExc_TypeError, "Dict.empty(): %s must be a pyjit type (pyjit.types.int64, "
                     "...), not %R", what, spec);
    return PyErr_Occurred() ? NULL : t;
}

/* Keys runtime/dict.c hashes and compares: real numbers and tuples of them. */
static bool key_type_ok(const Type *t)
{
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->tuple.n; i++)
            if (!key_type_ok(t->tuple.items[i]))
                return false;
        return t->tuple.n > 0;
    }
    return (ty_is_scalar(t) && !ty_is_complex(t) && t->kind != TY_FLOAT16) || t->kind == TY_STR;
}

static PyObject *Dict_empty(PyObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"key_type", "value_type", "n_keys", NULL};
    PyObject *k, *v;
    Py_ssize_t n = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|n:empty", kw, &k, &v, &n))
        return NULL;
    Type *kt = type_of_spec(k, "key_type"), *vt = kt ? type_of_spec(v, "value_type") : NULL;
    if (!vt)
        return NULL;
    if (!key_type_ok(kt))
        return PyErr_Format(PyExc_TypeError, "Dict.empty(): keys of type %s are not supported yet "
                            "(numbers, strings and tuples of them are)", kt->name);
    Type *t = ty_dict(kt, vt);
    MemInfo *mi = table_new(t, n > 0 ? n : 0);
    return mi ? (PyObject *)dict_alloc((PyTypeObject *)cls, t, mi) : NULL;
}

/* A Dict() takes its types from its first item. */
static int determine(RtDict *d, PyObject *key, PyObject *value)
{
    if (d->type)
        return 0;
    Type *kt = rt_typeof(key, 0), *vt = kt ? rt_typeof(value, 0) : NULL;
    if (!vt || !key_type_ok(ty_strong(kt))) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "pyjit.typed.Dict: cannot store %.80s: %.80s (keys are "
                         "numbers, strings or tuples of them)", Py_TYPE(key)->tp_name, Py_TYPE(value)->tp_name);
        return -1;
    }
    Type *t = ty_dict(kt, vt);
    MemInfo *mi = table_new(t, 0);
    if (!mi)
        return -1;
    d->type = t;
    d->mi = mi;
    return 0;
}

static Py_ssize_t Dict_len(RtDict *d)
{
    return d->mi ? (Py_ssize_t)rt_dict_payload(d->mi)->used : 0;
}

static PyObject *key_error(PyObject *key)
{
    if (!PyErr_Occurred())
        PyErr_SetObject(PyExc_KeyError, key);
    return NULL;
}

/* The value of key, a new reference; NULL with KeyError when missing. */
static PyObject *Dict_getitem(RtDict *d, PyObject *key)
{
    if (!d->mi || key_fits(d->type) < 0)
        return key_error(key);
    char kbuf[KEYBUF];
    int64_t h, slot, ix = find(d->type, d->mi, key, kbuf, &h, &slot);
    drop_key(d->type, kbuf, ix);
    if (ix < 0)
        return ix == -3 ? NULL : key_error(key);
    DictPayload *p = rt_dict_payload(d->mi);
    return box_kept(d->type->dict.value, dict_entry(p, ix) + p->valoff);
}

static int set_item(RtDict *d, PyObject *key, PyObject *value)
{
    if (determine(d, key, value) < 0 || key_fits(d->type) < 0)
        return -1;
    char kbuf[KEYBUF];
    int64_t h, slot, ix = find(d->type, d->mi, key, kbuf, &h, &slot);
    if (ix == -2)
        PyErr_Format(PyExc_TypeError, "pyjit.typed.Dict: a key of type %.80s for a Dict of %s keys",
                     Py_TYPE(key)->tp_name, d->type->dict.key->name);
    if (ix < -1)
        return -1;
    Type *vt = d->type->dict.value;
    char *vbuf = malloc((size_t)ty_mem_size(vt) + 1);
    if (!vbuf || unbox_value(value, vt, vbuf) < 0) {
        drop_key(d->type, kbuf, ix);
        free(vbuf);
        return vbuf ? -1 : (PyErr_NoMemory(), -1);
    }
    DictPayload *p = rt_dict_payload(d->mi);
    char *e = ix >= 0 ? dict_entry(p, ix) : dict_insert(d->mi, h, slot);
    if (!e) {
        drop_key(d->type, kbuf, ix);
        rt_release_value(vt, vbuf);
        free(vbuf);
        PyErr_NoMemory();
        return -1;
    }
    if (ix >= 0) {
        drop_key(d->type, kbuf, ix);
        rt_release_value(vt, e + p->valoff);
    } else {
        memcpy(e + 8, kbuf, (size_t)ty_mem_size(d->type->dict.key));   /* the entry's reference */
    }
    memcpy(e + p->valoff, vbuf, (size_t)ty_mem_size(vt));
    free(vbuf);
    return 0;
}

/* Deletes key: 0, or -1 with KeyError (or another error). */
static int del_item(RtDict *d, PyObject *key)
{
    if (!d->mi || key_fits(d->type) < 0)
        return key_error(key), -1;
    char kbuf[KEYBUF];
    int64_t h, slot, ix = find(d->type, d->mi, key, kbuf, &h, &slot);
    drop_key(d->type, kbuf, ix);
    if (ix < 0)
        return ix == -3 ? -1 : (key_error(key), -1);
    dict_delete(rt_dict_payload(d->mi), ix, slot);
    return 0;
}

static int Dict_ass_subscript(RtDict *d, PyObject *key, PyObject *value)
{
    return value ? set_item(d, key, value) : del_item(d, key);
}

static int Dict_contains(RtDict *d, PyObject *key)
{
    if (!d->mi || key_fits(d->type) < 0)
        return PyErr_Occurred() ? -1 : 0;
    char kbuf[KEYBUF];
    int64_t h, slot, ix = find(d->type, d->mi, key, kbuf, &h, &slot);
    drop_key(d->type, kbuf, ix);
    return ix == -3 ? -1 : ix >= 0;
}

/* A list of the keys (what 0), values (1) or (key, value) pairs (2), in insertion order. */
static PyObject *entries_list(RtDict *d, int what)
{
    PyObject *out = PyList_New(0);
    DictPayload *p = d->mi ? rt_dict_payload(d->mi) : NULL;
    for (int64_t i = 0; out && p && i < p->nentries; i++) {
        char *e = dict_entry(p, i);
        if (*(int64_t *)e == ABI_DICT_DELETED)
            continue;
        PyObject *k = what != 1 ? box_kept(d->type->dict.key, e + 8) : NULL;
        PyObject *v = what != 0 ? box_kept(d->type->dict.value, e + p->valoff) : NULL;
        PyObject *x = what == 2 && k && v ? PyTuple_Pack(2, k, v) : what == 0 ? Py_XNewRef(k) : Py_XNewRef(v);
        Py_XDECREF(k);
        Py_XDECREF(v);
        if (!x || PyList_Append(out, x) < 0)
            Py_CLEAR(out);
        Py_XDECREF(x);
    }
    return out;
}

static PyObject *Dict_keys(RtDict *d, PyObject *unused) { (void)unused; return entries_list(d, 0); }
static PyObject *Dict_values(RtDict *d, PyObject *unused) { (void)unused; return entries_list(d, 1); }
static PyObject *Dict_items(RtDict *d, PyObject *unused) { (void)unused; return entries_list(d, 2); }

static PyObject *Dict_iter(RtDict *d)
{
    PyObject *keys = entries_list(d, 0);
    PyObject *it = keys ? PyObject_GetIter(keys) : NULL;
    Py_XDECREF(keys);
    return it;
}

/* A Python dict of the items: what repr and == work on. */
static PyObject *as_pydict(RtDict *d)
{
    PyObject *items = entries_list(d, 2), *out = items ? PyDict_New() : NULL;
    for (Py_ssize_t i = 0; out && i < PyList_GET_SIZE(items); i++) {
        PyObject *kv = PyList_GET_ITEM(items, i);
        if (PyDict_SetItem(out, PyTuple_GET_ITEM(kv, 0), PyTuple_GET_ITEM(kv, 1)) < 0)
            Py_CLEAR(out);
    }
    Py_XDECREF(items);
    return out;
}

static PyObject *Dict_repr(RtDict *d)
{
    PyObject *py = as_pydict(d), *r = py ? PyObject_Repr(py) : NULL;
    Py_XDECREF(py);
    return r;
}

static PyObject *Dict_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !(PyDict_Check(b) || PyObject_TypeCheck(b, &RtDictType)))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *x = as_pydict((RtDict *)a);
    PyObject *y = !x ? NULL : PyDict_Check(b) ? Py_NewRef(b) : as_pydict((RtDict *)b);
    PyObject *r = y ? PyObject_RichCompare(x, y, op) : NULL;
    Py_XDECREF(x);
    Py_XDECREF(y);
    return r;
}

static PyObject *Dict_get(RtDict *d, PyObject *const *args, Py_ssize_t n)
{
    if (n < 1 || n > 2)
        return PyErr_Format(PyExc_TypeError, "get expected 1 or 2 arguments, got %zd", n);
    int has = Dict_contains(d, args[0]);
    if (has < 0)
        return NULL;
    return has ? Dict_getitem(d, args[0]) : Py_NewRef(n == 2 ? args[1] : Py_None);
}

static PyObject *Dict_pop(RtDict *d, PyObject *const *args, Py_ssize_t n)
{
    if (n < 1 || n > 2)
        return PyErr_Format(PyExc_TypeError, "pop expected 1 or 2 arguments, got %zd", n);
    int has = Dict_contains(d, args[0]);
    if (has <= 0)
        return has < 0 ? NULL : n == 2 ? Py_NewRef(args[1]) : key_error(args[0]);
    PyObject *v = Dict_getitem(d, args[0]);
    if (v && del_item(d, args[0]) < 0)
        Py_CLEAR(v);
    return v;
}

static PyObject *Dict_setdefault(RtDict *d, PyObject *const *args, Py_ssize_t n)
{
    if (n < 1 || n > 2)
        return PyErr_Format(PyExc_TypeError, "setdefault expected 1 or 2 arguments, got %zd", n);
    int has = Dict_contains(d, args[0]);
    if (has < 0 || (!has && set_item(d, args[0], n == 2 ? args[1] : Py_None) < 0))
        return NULL;
    return Dict_getitem(d, args[0]);
}

/* The last live entry removed, as (key, value); found by its number (a NaN key equals nothing). */
static PyObject *Dict_popitem(RtDict *d, PyObject *unused)
{
    (void)unused;
    DictPayload *p = d->mi ? rt_dict_payload(d->mi) : NULL;
    int64_t ix = p ? p->nentries - 1 : -1;
    while (ix >= 0 && *(int64_t *)dict_entry(p, ix) == ABI_DICT_DELETED)
        ix--;
    if (ix < 0) {
        PyErr_SetString(PyExc_KeyError, "popitem(): dictionary is empty");
        return NULL;
    }
    char *e = dict_entry(p, ix);
    PyObject *k = box_kept(d->type->dict.key, e + 8);
    PyObject *v = k ? box_kept(d->type->dict.value, e + p->valoff) : NULL;
    PyObject *kv = v ? PyTuple_Pack(2, k, v) : NULL;
    Py_XDECREF(k);
    Py_XDECREF(v);
    if (kv)
        dict_delete(p, ix, pj_dict_slot_of(d->mi, ix));
    return kv;
}

static PyObject *Dict_clear(RtDict *d, PyObject *unused)
{
    (void)unused;
    if (d->mi)
        pj_dict_clear(d->mi);
    Py_RETURN_NONE;
}

static PyObject *Dict_copy(RtDict *d, PyObject *unused)
{
    (void)unused;
    if (!d->mi)
        return (PyObject *)dict_alloc(Py_TYPE(d), NULL, NULL);
    MemInfo *mi = pj_dict_copy(d->mi);
    return mi ? (PyObject *)dict_alloc(Py_TYPE(d), d->type, mi) : PyErr_NoMemory();
}

static PyObject *Dict_update(RtDict *d, PyObject *other)
{
    PyObject *items = PyObject_TypeCheck(other, &RtDictType) ? entries_list((RtDict *)other, 2)
                      : PyMapping_Items(other);
    PyObject *seq = items ? PySequence_Fast(items, "update() needs a mapping") : NULL;
    for (Py_ssize_t i = 0; seq && i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *kv = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2 ||
            set_item(d, PyTuple_GET_ITEM(kv, 0), PyTuple_GET_ITEM(kv, 1)) < 0)
            Py_CLEAR(seq);
    }
    Py_XDECREF(items);
    if (!seq)
        return NULL;
    Py_DECREF(seq);
    Py_RETURN_NONE;
}

/* Numba's _numba_type_: the dict's type, as typeof() gives it; None until its first item. */
static PyObject *Dict_get_numba_type(PyObject *obj, void *closure)
{
    (void)closure;
    RtDict *d = (RtDict *)obj;
    if (!d->type)
        Py_RETURN_NONE;
    PyObject *mod = PyImport_ImportModule("pyjit.types");
    PyObject *r = mod ? PyObject_CallMethod(mod, "_from_canonical", "s", d->type->name) : NULL;
    Py_XDECREF(mod);
    return r;
}

static PyGetSetDef Dict_getset[] = {
    {"_numba_type_", Dict_get_numba_type, NULL, "The dict's pyjit type, None until known.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Dict_methods[] = {
    {"empty", (PyCFunction)(void (*)(void))Dict_empty, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "Dict.empty(key_type, value_type): an empty Dict of these pyjit types."},
    {"keys", (PyCFunction)Dict_keys, METH_NOARGS, "A list of the keys, in insertion order."},
    {"values", (PyCFunction)Dict_values, METH_NOARGS, "A list of the values, in insertion order."},
    {"items", (PyCFunction)Dict_items, METH_NOARGS, "A list of (key, value), in insertion order."},
    {"get", (PyCFunction)(void (*)(void))Dict_get, METH_FASTCALL, "As dict.get."},
    {"pop", (PyCFunction)(void (*)(void))Dict_pop, METH_FASTCALL, "As dict.pop."},
    {"setdefault", (PyCFunction)(void (*)(void))Dict_setdefault, METH_FASTCALL, "As dict.setdefault."},
    {"popitem", (PyCFunction)Dict_popitem, METH_NOARGS, "As dict.popitem."},
    {"clear", (PyCFunction)Dict_clear, METH_NOARGS, "As dict.clear."},
    {"copy", (PyCFunction)Dict_copy, METH_NOARGS, "A new Dict of the same items."},
    {"__copy__", (PyCFunction)Dict_copy, METH_NOARGS, "copy.copy(d): d.copy(), as Numba's Dict."},
    {"update", (PyCFunction)Dict_update, METH_O, "As dict.update (a mapping)."},
    /* Dict[K, V] in annotations, as Numba's Dict (a MutableMapping) allows */
    {"__class_getitem__", Py_GenericAlias, METH_O | METH_CLASS, "Dict[K, V]: a generic alias."},
    {NULL, NULL, 0, NULL},
};

static PyMappingMethods Dict_as_mapping = {
    .mp_length = (lenfunc)Dict_len,
    .mp_subscript = (binaryfunc)Dict_getitem,
    .mp_ass_subscript = (objobjargproc)Dict_ass_subscript,
};

static PySequenceMethods Dict_as_sequence = {
    .sq_contains = (objobjproc)Dict_contains,
};

PyTypeObject RtDictType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit.typed.Dict",
    .tp_basicsize = sizeof(RtDict),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A dict of one key type and one value type, shared with compiled code (Numba's "
              "typed.Dict).",
    .tp_new = Dict_new,
    .tp_dealloc = (destructor)Dict_dealloc,
    .tp_repr = (reprfunc)Dict_repr,
    .tp_as_mapping = &Dict_as_mapping,
    .tp_as_sequence = &Dict_as_sequence,
    .tp_iter = (getiterfunc)Dict_iter,
    .tp_richcompare = Dict_richcompare,
    .tp_methods = Dict_methods,
    .tp_getset = Dict_getset,
    .tp_hash = PyObject_HashNotImplemented,
};

/* ---- crossing the boundary ---- */

Type *rt_typeof_dict(PyObject *obj)
{
    return ((RtDict *)obj)->type;
}

int rt_unbox_dict(PyObject *obj, Type *ty, MemInfo **out)
{
    RtDict *d = (RtDict *)obj;
    if (!PyObject_TypeCheck(obj, &RtDictType) || d->type != ty) {
        PyErr_Format(PyExc_TypeError, "expected a pyjit.typed.Dict of type %s", ty->name);
        return -1;
    }
    pj_nrt_incref(d->mi);
    *out = d->mi;
    return 0;
}

PyObject *rt_box_dict(Type *ty, MemInfo *mi)
{
    return (PyObject *)dict_alloc(&RtDictType, ty, mi);   /* takes over the reference */
}

/* The item type a pyjit.typed.Set was made for (Set.empty(item_type)): its canonical name in
 * the _item_type attribute, so an empty one has a type too; NULL for a plain set. */
static Type *declared_item(PyObject *obj)
{
    if (PySet_CheckExact(obj) || PyFrozenSet_CheckExact(obj))
        return NULL;
    PyObject *name = PyObject_GetAttrString(obj, "_item_type");
    const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    Type *t = s ? ty_parse(s) : NULL;
    Py_XDECREF(name);
    PyErr_Clear();
    return t;
}

Type *rt_typeof_set(PyObject *obj, int flags)
{
    Type *item = declared_item(obj);
    if (!item) {
        PyObject *it = PyObject_GetIter(obj), *first = it ? PyIter_Next(it) : NULL;
        Py_XDECREF(it);
        item = first ? rt_typeof(first, flags) : NULL;
        Py_XDECREF(first);
    }
    if (!item || !(ty_is_scalar(item) || item->kind == TY_TUPLE || item->kind == TY_STR))
        return NULL;
    return ty_set(item);
}

/* The items of the table mi of set type ty added to the Python set out. */
static int add_items(Type *ty, MemInfo *mi, PyObject *out)
{
    DictPayload *p = rt_dict_payload(mi);
    for (int64_t i = 0; i < p->nentries; i++) {
        char *e = dict_entry(p, i);
        if (*(int64_t *)e == ABI_DICT_DELETED)
            continue;
        PyObject *x = rt_box(ty->set.item, e + 8);
        int rc = x ? PySet_Add(out, x) : -1;
        Py_XDECREF(x);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int rt_unbox_set(PyObject *obj, Type *ty, MemInfo **out)
{
    Type *item = ty->set.item;
    if (key_fits(ty) < 0)
        return -1;
    MemInfo *mi = table_new(ty, PySet_GET_SIZE(obj));
    PyObject *it = mi ? PyObject_GetIter(obj) : NULL, *x;
    char kbuf[KEYBUF];
    while (it && (x = PyIter_Next(it))) {
        int64_t h, slot, ix = find(ty, mi, x, kbuf, &h, &slot);
        if (ix == -2)
            PyErr_Format(PyExc_TypeError, "set item %R is %.80s, where another made it a set of %s: "
                         "a set passed to a compiled function holds one type", x, Py_TYPE(x)->tp_name,
                         item->name);
        Py_DECREF(x);
        char *e = ix == -1 ? dict_insert(mi, h, slot) : NULL;
        if (!e)
            drop_key(ty, kbuf, ix);   /* a duplicate, or no room */
        if (ix < -1 || (ix == -1 && !e)) {
            if (!PyErr_Occurred())
                PyErr_NoMemory();
            Py_CLEAR(it);
            break;
        }
        if (e)
            memcpy(e + 8, kbuf, (size_t)ty_mem_size(item));
    }
    Py_XDECREF(it);
    if (PyErr_Occurred()) {
        pj_nrt_decref(mi);
        return -1;
    }
    rt_dict_payload(mi)->parent = PySet_Check(obj) ? obj : NULL;   /* borrowed for the call */
    *out = mi;
    return 0;
}

/* Brings the Python set a set was made from up to date. */
static int reflect(Type *ty, DictPayload *p, MemInfo *mi)
{
    PyObject *parent = p->parent;
    if (!parent)
        return 0;
    if (PySet_Clear(parent) < 0)
        return -1;
    return add_items(ty, mi, parent);
}

int rt_release_set_arg(Type *ty, MemInfo *mi)
{
    DictPayload *p = rt_dict_payload(mi);
    int rc = reflect(ty, p, mi);
    p->parent = NULL;   /* a set compiled code kept must not write to it later */
    pj_nrt_decref(mi);
    return rc;
}

PyObject *rt_box_set(Type *ty, MemInfo *mi)
{
    DictPayload *p = rt_dict_payload(mi);
    PyObject *out = NULL;
    if (p->parent) {
        if (reflect(ty, p, mi) == 0)
            out = Py_NewRef((PyObject *)p->parent);
    } else {
        out = PySet_New(NULL);
        if (out && add_items(ty, mi, out) < 0)
            Py_CLEAR(out);
    }
    pj_nrt_decref(mi);
    return out;
}
