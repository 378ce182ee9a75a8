/* typedlist.c: pyjit.typed.List, Numba's typed.List: a Python object that owns a compiled list.
 *
 * A reflected list (list.c) is copied into compiled code and written back after the call; a
 * typed list is the compiled list itself (a MemInfo whose data is abi.h's ListPayload), owned
 * through one reference by this object, so Python and compiled code share its memory: passing
 * it in is a reference, not a copy, and a typed list returned from compiled code comes back as
 * one of these, holding the reference the result carried.
 *
 * From Python, items cross one at a time: rt_box for reads, unbox_item below for writes, which
 * takes a reference on every MemInfo a stored item holds (an array from NumPy is adopted, so the
 * list keeps it alive). The item type is the list's type's (typed_list(T)); List() has none until
 * the first append gives it, as Numba's does. Comparisons, search and sorting box the items and
 * use Python's own operators, so they mean what they mean on a Python list. */
#include "runtime/runtime.h"

#include <string.h>

typedef struct TypedList {
    PyObject_HEAD
    Type *type;     /* typed_list(T); typed_list(undetermined) until an item gives T */
    MemInfo *mi;    /* one reference; NULL while the item type is not known */
} TypedList;

#define TL(o) ((TypedList *)(o))

static ListPayload *payload(TypedList *self)
{
    return (ListPayload *)self->mi->data;
}

static int64_t length(TypedList *self)
{
    return self->mi ? payload(self)->len : 0;
}

static char *item_at(TypedList *self, int64_t i)
{
    ListPayload *p = payload(self);
    return p->items + i * p->itemsize;
}

static Type *item_type(TypedList *self)
{
    return self->type->list.item;
}

/* Releases what items [from, to) hold. */
static void release_items(TypedList *self, int64_t from, int64_t to)
{
    ListPayload *p = payload(self);
    for (int64_t i = from; i < to; i++)
        for (int k = 0; k < p->nrefs; k++)
            pj_nrt_decref(*(MemInfo **)(item_at(self, i) + p->refs[k]));
}

/* ---- making ---- */

static TypedList *new_object(PyTypeObject *tp, Type *type, MemInfo *mi)
{
    TypedList *self = (TypedList *)tp->tp_alloc(tp, 0);
    if (!self) {
        pj_nrt_decref(mi);
        return NULL;
    }
    self->type = type;
    self->mi = mi;
    return self;
}

/* Gives a list whose item type is not known yet the item type item (its memory made). */
static int settle_type(TypedList *self, Type *item)
{
    int32_t refs[ABI_LIST_MAX_REFS];
    int nrefs = ty_ref_offsets(item, 0, refs, 0, ABI_LIST_MAX_REFS);
    if (nrefs < 0) {
        PyErr_Format(PyExc_TypeError, "a typed List of %s: its items hold more than %d arrays or "
                     "lists", item->name, ABI_LIST_MAX_REFS);
        return -1;
    }
    MemInfo *mi = pj_list_new(ty_mem_size(item), 0, refs, nrefs);
    if (!mi) {
        PyErr_NoMemory();
        return -1;
    }
    self->mi = mi;
    self->type = ty_typed_list(item);
    return 0;
}

PyObject *rt_box_typed_list(Type *ty, MemInfo *mi)
{
    return (PyObject *)new_object(&RtTypedListType, ty, mi);
}

Type *rt_typeof_typed_list(PyObject *obj)
{
    return item_type(TL(obj)) ? TL(obj)->type : NULL;
}

int rt_unbox_typed_list(PyObject *obj, Type *ty, MemInfo **out)
{
    if (!PyObject_TypeCheck(obj, &RtTypedListType) || TL(obj)->type != ty) {
        PyErr_Format(PyExc_TypeError, "expected a typed List of type %s, got %.80s", ty->name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    pj_nrt_incref(TL(obj)->mi);   /* the value's reference, released after the call */
    *out = TL(obj)->mi;
    return 0;
}

/* ---- items across the border ---- */

/* The item type a Python value would give an empty list: its own type, if a list can hold it. */
static Type *type_for_item(PyObject *x)
{
    Type *t = ty_strong(rt_typeof(x, 0));
    PyErr_Clear();
    int32_t refs[ABI_LIST_MAX_REFS];
    if (!t || t->kind == TY_NONE || (t->kind == TY_LIST && !t->list.typed) ||
        ty_ref_offsets(t, 0, refs, 0, ABI_LIST_MAX_REFS) < 0)
        return NULL;
    return t;
}

static int wrong_item(PyObject *x, Type *item)
{
    if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "cannot store %.80s in a typed List of %s (a typed List "
                     "holds one type)", Py_TYPE(x)->tp_name, item->name);
    }
    return -1;
}

/* x stored at buf as an item of type item, with references of its own on the MemInfos it holds.
 * Numbers convert where that is safe (an int into a list of floats, a Python int into a list of
 * int32), as compiled code's do. */
static int unbox_item(PyObject *x, Type *item, char *buf)
{
    if (item->kind == TY_TUPLE) {
        if (!PyTuple_Check(x) || PyTuple_GET_SIZE(x) != item->tuple.n)
            return wrong_item(x, item);
        for (int i = 0; i < item->tuple.n; i++)
            if (unbox_item(PyTuple_GET_ITEM(x, i), item->tuple.items[i],
                           buf + ty_tuple_offset(item, i)) < 0) {
                while (--i >= 0)
                    rt_release_value(item->tuple.items[i], buf + ty_tuple_offset(item, i));
                return wrong_item(x, item);
            }
        return 0;
    }
    Type *xt = rt_typeof(x, 0);
    if (!xt)
        return wrong_item(x, item);
    if (item->kind == TY_LIST)
        return rt_unbox_typed_list(x, item, (MemInfo **)buf) < 0 ? wrong_item(x, item) : 0;
    if (item->kind == TY_ARRAY) {
        if (xt->kind != TY_ARRAY || rt_conversion_rank(xt, item) < 0 || rt_unbox(x, xt, buf) < 0)
            return wrong_item(x, item);
        ArrayDesc *desc = (ArrayDesc *)buf;
        desc->meminfo = rt_nrt_adopt(x, desc->data, 0);   /* the list keeps the array alive */
        desc->parent = NULL;
        return desc->meminfo ? 0 : -1;
    }
    /* Python numbers are weak (NEP 50): 1 fits a list of int32, 0.5 one of float32 */
    bool converts = ty_is_scalar(xt) && ty_is_scalar(item) && ty_promote(xt, item) == item;
    if (ty_strong(xt) != item && !converts)
        return wrong_item(x, item);
    return rt_unbox_as(x, xt, item, buf) < 0 ? wrong_item(x, item) : 0;
}

/* Item i as a new Python object (the list keeps its own references). */
static PyObject *box_item(TypedList *self, int64_t i)
{
    Type *item = item_type(self);
    _Alignas(16) char tmp[ty_mem_size(item) + 1];
    memcpy(tmp, item_at(self, i), (size_t)ty_mem_size(item));
    rt_retain_value(item, tmp);   /* rt_box takes over references */
    return rt_box(item, tmp);
}

/* The items as a new Python list. */
static PyObject *to_pylist(TypedList *self)
{
    int64_t n = length(self);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (int64_t i = 0; list && i < n; i++) {
        PyObject *x = box_item(self, i);
        if (!x)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, x);
    }
    return list;
}

static int reserve(TypedList *self, int64_t n)
{
    if (pj_list_reserve(self->mi, n) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Inserts x before item i (0 <= i <= len); the first item gives List() its type. */
static int insert_at(TypedList *self, int64_t i, PyObject *x)
{
    if (!self->mi) {
        Type *t = type_for_item(x);
        if (!t && PyObject_TypeCheck(x, &RtTypedListType))
            PyErr_SetString(PyExc_TypeError, "an empty typed List has no item type yet, so a "
                            "typed List cannot hold it: append to it first, or make it with "
                            "List.empty_list(item_type)");
        else if (!t)
            PyErr_Format(PyExc_TypeError, "a typed List cannot hold %.80s (numbers, NumPy "
                         "arrays, tuples of these and typed Lists are accepted)", Py_TYPE(x)->tp_name);
        if (!t)
            return -1;
        if (settle_type(self, t) < 0)
            return -1;
    }
    int64_t n = length(self), size = payload(self)->itemsize;
    if (reserve(self, n + 1) < 0)
        return -1;
    char *at = item_at(self, i);
    memmove(at + size, at, (size_t)((n - i) * size));
    if (unbox_item(x, item_type(self), at) < 0) {
        memmove(at, at + size, (size_t)((n - i) * size));
        return -1;
    }
    payload(self)->len = n + 1;
    return 0;
}

static int extend_from(TypedList *self, PyObject *iterable)
{
    PyObject *seq = PySequence_Fast(iterable, "a typed List extends by an iterable");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int rc = 0;
    for (Py_ssize_t i = 0; i < n && rc == 0; i++)
        rc = insert_at(self, length(self), PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
    return rc;
}

/* Replaces the items by those of the Python list items (same type), all or none. */
static int replace_items(TypedList *self, PyObject *items)
{
    Py_ssize_t n = PyList_GET_SIZE(items);
    MemInfo *old = self->mi;
    ListPayload *p = payload(self);
    self->mi = pj_list_new(p->itemsize, 0, p->refs, p->nrefs);
    if (!self->mi) {
        self->mi = old;
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (insert_at(self, i, PyList_GET_ITEM(items, i)) < 0) {
            pj_nrt_decref(self->mi);
            self->mi = old;
            return -1;
        }
    /* the payload, not the MemInfo, is what compiled code holding this list sees: swap them */
    ListPayload tmp = *payload(self);
    *payload(self) = *(ListPayload *)old->data;
    *(ListPayload *)old->data = tmp;
    pj_nrt_decref(self->mi);
    self->mi = old;
    return 0;
}

/* ---- Python protocol ---- */

static void tl_dealloc(PyObject *obj)
{
    pj_nrt_decref(TL(obj)->mi);
    Py_TYPE(obj)->tp_free(obj);
}

static PyObject *tl_new(PyTypeObject *tp, PyObject *args, PyObject *kwargs)
{
    PyObject *iterable = NULL;
    static char *kwlist[] = {"iterable", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:List", kwlist, &iterable))
        return NULL;
    TypedList *self = new_object(tp, ty_typed_list(NULL), NULL);
    if (self && iterable && extend_from(self, iterable) < 0)
        Py_CLEAR(self);
    return (PyObject *)self;
}

/* The item type as a pyjit.types object (pyjit.types reads canonical names back). */
static PyObject *types_object(Type *t)
{
    PyObject *mod = PyImport_ImportModule("pyjit.types");
    PyObject *r = mod ? PyObject_CallMethod(mod, "_from_canonical", "s", t->name) : NULL;
    Py_XDECREF(mod);
    return r;
}

static PyObject *tl_empty_list(PyObject *cls, PyObject *args, PyObject *kwargs)
{
    PyObject *spec, *allocated = NULL, *mod = NULL, *t = NULL, *name = NULL;
    static char *kwlist[] = {"item_type", "allocated", NULL};
    TypedList *self = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:empty_list", kwlist, &spec, &allocated))
        return NULL;
    mod = PyImport_ImportModule("pyjit.types");
    t = mod ? PyObject_CallMethod(mod, "_as_type", "O", spec) : NULL;
    name = t ? PyObject_GetAttrString(t, "name") : NULL;
    Type *item = name && PyUnicode_Check(name) ? ty_parse(PyUnicode_AsUTF8(name)) : NULL;
    if (!item && (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError))) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "List.empty_list() takes an item type (types.float64, "
                     "types.int64[:], types.UniTuple(types.int64, 2), ...), not %R", spec);
        goto fail;
    }
    if (!item)
        goto fail;
    long long room = allocated && allocated != Py_None ? PyLong_AsLongLong(allocated) : 0;
    if (room == -1 && PyErr_Occurred())
        goto fail;
    self = new_object((PyTypeObject *)cls, ty_typed_list(NULL), NULL);
    if (self && (settle_type(self, item) < 0 || reserve(self, room) < 0))   /* room: a hint */
        Py_CLEAR(self);
fail:
    Py_XDECREF(mod);
    Py_XDECREF(t);
    Py_XDECREF(name);
    return (PyObject *)self;
}

static Py_ssize_t tl_len(PyObject *obj)
{
    return (Py_ssize_t)length(TL(obj));
}

/* i wrapped if negative; -1 with IndexError(msg) outside. */
static int64_t checked_index(TypedList *self, PyObject *index, const char *msg)
{
    Py_ssize_t i = PyNumber_AsSsize_t(index, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred())
        return -1;
    int64_t n = length(self);
    if (i < 0)
        i += (Py_ssize_t)n;
    if (i < 0 || i >= n) {
        PyErr_SetString(PyExc_IndexError, msg);
        return -1;
    }
    return i;
}

static PyObject *slice_of(TypedList *self, PyObject *slice)
{
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(slice, &start, &stop, &step) < 0)
        return NULL;
    Py_ssize_t n = PySlice_AdjustIndices((Py_ssize_t)length(self), &start, &stop, step);
    TypedList *out = new_object(Py_TYPE(self), self->type, NULL);
    if (!out || !self->mi)
        return (PyObject *)out;
    ListPayload *p = payload(self);
    out->mi = pj_list_new(p->itemsize, (int64_t)n, p->refs, p->nrefs);
    if (!out->mi) {
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        char *to = item_at(out, k);
        memcpy(to, item_at(self, start + k * step), (size_t)p->itemsize);
        rt_retain_value(item_type(self), to);
    }
    return (PyObject *)out;
}

static PyObject *tl_subscript(PyObject *obj, PyObject *index)
{
    TypedList *self = TL(obj);
    if (PySlice_Check(index))
        return slice_of(self, index);
    if (!PyIndex_Check(index))
        return PyErr_Format(PyExc_TypeError, "list indices must be integers or slices, not %.200s",
                            Py_TYPE(index)->tp_name);
    int64_t i = checked_index(self, index, "list index out of range");
    return i < 0 ? NULL : box_item(self, i);
}

/* The sequence protocol's item (reversed(), and what takes sequences): i is not negative. */
static PyObject *tl_item(PyObject *obj, Py_ssize_t i)
{
    if (i < 0 || i >= (Py_ssize_t)length(TL(obj))) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return NULL;
    }
    return box_item(TL(obj), i);
}

static PyObject *pop_at(TypedList *self, int64_t i)
{
    Type *item = item_type(self);
    int64_t n = length(self), size = payload(self)->itemsize;
    _Alignas(16) char tmp[size + 1];
    memcpy(tmp, item_at(self, i), (size_t)size);   /* its references pass to the result */
    memmove(item_at(self, i), item_at(self, i + 1), (size_t)((n - i - 1) * size));
    payload(self)->len = n - 1;
    return rt_box(item, tmp);
}

/* l[a:b:c] = items, del l[a:b:c]: done by a Python list of the items (CPython's own rules and
 * errors for slices), which then replaces them. */
static int assign_slice(TypedList *self, PyObject *slice, PyObject *value)
{
    PyObject *items = to_pylist(self);
    int rc = !items ? -1 : value ? PyObject_SetItem(items, slice, value) : PyObject_DelItem(items, slice);
    if (rc == 0)
        rc = self->mi ? replace_items(self, items) : extend_from(self, items);
    Py_XDECREF(items);
    return rc;
}

static int tl_ass_subscript(PyObject *obj, PyObject *index, PyObject *value)
{
    TypedList *self = TL(obj);
    if (PySlice_Check(index))
        return assign_slice(self, index, value);
    if (!PyIndex_Check(index)) {
        PyErr_Format(PyExc_TypeError, "list indices must be integers or slices, not %.200s",
                     Py_TYPE(index)->tp_name);
        return -1;
    }
    int64_t i = checked_index(self, index, "list assignment index out of range");
    if (i < 0)
        return -1;
    if (!value) {   /* del l[i] */
        PyObject *x = pop_at(self, i);
        Py_XDECREF(x);
        return x ? 0 : -1;
    }
    int64_t size = payload(self)->itemsize;
    _Alignas(16) char tmp[size + 1];
    if (unbox_item(value, item_type(self), tmp) < 0)
        return -1;
    release_items(self, i, i + 1);
    memcpy(item_at(self, i), tmp, (size_t)size);
    return 0;
}

/* The index of the first item in [lo, hi) equal to x, -1 if none, -2 on an error. */
static int64_t find(TypedList *self, PyObject *x, int64_t lo, int64_t hi)
{
    for (int64_t i = lo; i < hi && i < length(self); i++) {
        PyObject *v = box_item(self, i);
        int eq = v ? PyObject_RichCompareBool(v, x, Py_EQ) : -1;
        Py_XDECREF(v);
        if (eq != 0)
            return eq < 0 ? -2 : i;
    }
    return -1;
}

static int tl_contains(PyObject *obj, PyObject *x)
{
    int64_t i = find(TL(obj), x, 0, length(TL(obj)));
    return i == -2 ? -1 : i >= 0;
}

static PyObject *tl_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, &RtTypedListType) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *x = to_pylist(TL(a)), *y = x ? to_pylist(TL(b)) : NULL;
    PyObject *r = y ? PyObject_RichCompare(x, y, op) : NULL;
    Py_XDECREF(x);
    Py_XDECREF(y);
    return r;
}

/* Numba's spelling of a type in a repr: ListType[float64]. */
static PyObject *type_repr(TypedList *self)
{
    if (!item_type(self))
        return PyUnicode_FromString("ListType[Undefined]");
    PyObject *t = types_object(self->type);
    PyObject *r = t ? PyObject_Repr(t) : NULL;
    Py_XDECREF(t);
    return r;
}

/* Numba's str: the items' str between brackets ([1.0, 2.0]; arrays as NumPy prints them). */
static PyObject *tl_str(PyObject *obj)
{
    PyObject *items = to_pylist(TL(obj)), *strs = items ? PyList_New(PyList_GET_SIZE(items)) : NULL;
    PyObject *sep = NULL, *body = NULL, *r = NULL;
    for (Py_ssize_t i = 0; strs && i < PyList_GET_SIZE(items); i++) {
        PyObject *s = PyObject_Str(PyList_GET_ITEM(items, i));
        if (!s)
            goto fail;
        PyList_SET_ITEM(strs, i, s);
    }
    sep = strs ? PyUnicode_FromString(", ") : NULL;
    body = sep ? PyUnicode_Join(sep, strs) : NULL;
    r = body ? PyUnicode_FromFormat("[%U]", body) : NULL;
fail:
    Py_XDECREF(items);
    Py_XDECREF(strs);
    Py_XDECREF(sep);
    Py_XDECREF(body);
    return r;
}

/* Numba's repr: ListType[float64]([1.0, 2.0]). */
static PyObject *tl_repr(PyObject *obj)
{
    PyObject *t = type_repr(TL(obj)), *s = t ? tl_str(obj) : NULL;
    PyObject *r = s ? PyUnicode_FromFormat("%U(%U)", t, s) : NULL;
    Py_XDECREF(t);
    Py_XDECREF(s);
    return r;
}

/* ---- methods ---- */

static PyObject *tl_append(PyObject *obj, PyObject *x)
{
    return insert_at(TL(obj), length(TL(obj)), x) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *tl_extend(PyObject *obj, PyObject *iterable)
{
    if (iterable == obj) {   /* l.extend(l): the items as they were */
        PyObject *items = to_pylist(TL(obj));
        int rc = items ? extend_from(TL(obj), items) : -1;
        Py_XDECREF(items);
        return rc < 0 ? NULL : Py_NewRef(Py_None);
    }
    return extend_from(TL(obj), iterable) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *tl_insert(PyObject *obj, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2)
        return PyErr_Format(PyExc_TypeError, "insert expected 2 arguments, got %zd", nargs);
    Py_ssize_t i = PyNumber_AsSsize_t(args[0], PyExc_IndexError);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n = (Py_ssize_t)length(TL(obj));
    i = i < 0 ? (i + n < 0 ? 0 : i + n) : (i > n ? n : i);
    return insert_at(TL(obj), i, args[1]) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *tl_pop(PyObject *obj, PyObject *const *args, Py_ssize_t nargs)
{
    TypedList *self = TL(obj);
    if (nargs > 1)
        return PyErr_Format(PyExc_TypeError, "pop expected at most 1 argument, got %zd", nargs);
    if (length(self) == 0) {
        PyErr_SetString(PyExc_IndexError, "pop from empty list");
        return NULL;
    }
    int64_t i = nargs ? checked_index(self, args[0], "pop index out of range") : length(self) - 1;
    return i < 0 ? NULL : pop_at(self, i);
}

static PyObject *tl_remove(PyObject *obj, PyObject *x)
{
    int64_t i = find(TL(obj), x, 0, length(TL(obj)));
    if (i == -1)
        PyErr_SetString(PyExc_ValueError, "list.remove(x): x not in list");
    if (i < 0)
        return NULL;
    PyObject *v = pop_at(TL(obj), i);
    Py_XDECREF(v);
    return v ? Py_NewRef(Py_None) : NULL;
}

/* An index argument of list.index (Python's __index__ rules, clipped to ssize_t). */
static int index_arg(PyObject *v, Py_ssize_t *out)
{
    if (!PyIndex_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "slice indices must be integers or have an __index__ method");
        return -1;
    }
    *out = PyNumber_AsSsize_t(v, NULL);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* start and stop of list.index, clipped as CPython clips them. */
static int64_t clip(Py_ssize_t i, int64_t n)
{
    if (i < 0)
        return i + n < 0 ? 0 : i + n;
    return i > n ? n : i;
}

static PyObject *tl_index(PyObject *obj, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t start = 0, stop = PY_SSIZE_T_MAX;
    if (nargs < 1 || nargs > 3)
        return PyErr_Format(PyExc_TypeError, "index expected 1 to 3 arguments, got %zd", nargs);
    if ((nargs > 1 && index_arg(args[1], &start) < 0) || (nargs > 2 && index_arg(args[2], &stop) < 0))
        return NULL;
    int64_t n = length(TL(obj)), i = find(TL(obj), args[0], clip(start, n), clip(stop, n));
    if (i == -1)
        PyErr_Format(PyExc_ValueError, "%R is not in list", args[0]);
    return i < 0 ? NULL : PyLong_FromLongLong(i);
}

static PyObject *tl_count(PyObject *obj, PyObject *x)
{
    int64_t count = 0;
    for (int64_t i = 0; i < length(TL(obj)); i++) {
        int64_t at = find(TL(obj), x, i, i + 1);
        if (at == -2)
            return NULL;
        count += at >= 0;
    }
    return PyLong_FromLongLong(count);
}

static PyObject *tl_reverse(PyObject *obj, PyObject *unused)
{
    (void)unused;
    TypedList *self = TL(obj);
    int64_t n = length(self), size = n ? payload(self)->itemsize : 0;
    char tmp[size + 1];
    for (int64_t i = 0, j = n - 1; i < j; i++, j--) {   /* references move with the bytes */
        memcpy(tmp, item_at(self, i), (size_t)size);
        memcpy(item_at(self, i), item_at(self, j), (size_t)size);
        memcpy(item_at(self, j), tmp, (size_t)size);
    }
    Py_RETURN_NONE;
}

/* Sorted as list.sort sorts the boxed items (key= and reverse= as there), then stored back. */
static PyObject *tl_sort(PyObject *obj, PyObject *args, PyObject *kwargs)
{
    if (PyTuple_GET_SIZE(args) != 0)
        return PyErr_Format(PyExc_TypeError, "sort() takes no positional arguments");
    if (!TL(obj)->mi)
        Py_RETURN_NONE;
    PyObject *items = to_pylist(TL(obj)), *sort = items ? PyObject_GetAttrString(items, "sort") : NULL;
    PyObject *r = sort ? PyObject_Call(sort, args, kwargs) : NULL;
    int rc = r ? replace_items(TL(obj), items) : -1;
    Py_XDECREF(items);
    Py_XDECREF(sort);
    Py_XDECREF(r);
    return rc < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *tl_copy(PyObject *obj, PyObject *unused)
{
    (void)unused;
    PyObject *all = PySlice_New(NULL, NULL, NULL);
    PyObject *r = all ? slice_of(TL(obj), all) : NULL;
    Py_XDECREF(all);
    return r;
}

static PyObject *tl_clear(PyObject *obj, PyObject *unused)
{
    (void)unused;
    if (TL(obj)->mi) {
        release_items(TL(obj), 0, length(TL(obj)));
        payload(TL(obj))->len = 0;
    }
    Py_RETURN_NONE;
}

static PyObject *tl_get_dtype(PyObject *obj, void *closure)
{
    (void)closure;
    Type *item = item_type(TL(obj));
    return item ? types_object(item) : Py_NewRef(Py_None);
}

/* ---- iteration: the length read at every step, as a Python list's iterator reads it ---- */

typedef struct TypedListIter {
    PyObject_HEAD
    TypedList *list;
    int64_t next;
} TypedListIter;

static void iter_dealloc(PyObject *obj)
{
    Py_XDECREF(((TypedListIter *)obj)->list);
    Py_TYPE(obj)->tp_free(obj);
}

static PyObject *iter_next(PyObject *obj)
{
    TypedListIter *it = (TypedListIter *)obj;
    if (!it->list || it->next >= length(it->list)) {
        Py_CLEAR(it->list);
        return NULL;
    }
    return box_item(it->list, it->next++);
}

static PyTypeObject TypedListIterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit.typed.ListIterator",
    .tp_basicsize = sizeof(TypedListIter),
    .tp_dealloc = iter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = iter_next,
};

static PyObject *tl_iter(PyObject *obj)
{
    TypedListIter *it = PyObject_New(TypedListIter, &TypedListIterType);
    if (!it)
        return NULL;
    it->list = (TypedList *)Py_NewRef(obj);
    it->next = 0;
    return (PyObject *)it;
}

/* pickle and copy.deepcopy: List.empty_list(item type), then the items appended (pickle's
 * list items), so the item type survives even when the list is empty. */
static PyObject *tl_reduce(PyObject *obj, PyObject *unused)
{
    (void)unused;
    TypedList *self = TL(obj);
    if (!item_type(self))
        return Py_BuildValue("(O())", (PyObject *)Py_TYPE(obj));
    PyObject *make = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "empty_list");
    PyObject *dtype = make ? types_object(item_type(self)) : NULL;
    PyObject *items = dtype ? to_pylist(self) : NULL;
    PyObject *it = items ? PyObject_GetIter(items) : NULL;
    PyObject *r = it ? Py_BuildValue("(O(O)OO)", make, dtype, Py_None, it) : NULL;
    Py_XDECREF(make);
    Py_XDECREF(dtype);
    Py_XDECREF(items);
    Py_XDECREF(it);
    return r;
}

static PyMethodDef tl_methods[] = {
    {"empty_list", (PyCFunction)(void (*)(void))tl_empty_list, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "empty_list(item_type, allocated=None): a new empty typed List of item_type."},
    {"append", tl_append, METH_O, "Appends an item."},
    {"extend", tl_extend, METH_O, "Appends the items of an iterable."},
    {"insert", (PyCFunction)(void (*)(void))tl_insert, METH_FASTCALL, "insert(index, item)"},
    {"pop", (PyCFunction)(void (*)(void))tl_pop, METH_FASTCALL, "pop(index=-1): removes and returns an item."},
    {"remove", tl_remove, METH_O, "Removes the first item equal to the argument."},
    {"index", (PyCFunction)(void (*)(void))tl_index, METH_FASTCALL, "index(item, start=0, stop=len)"},
    {"count", tl_count, METH_O, "How many items equal the argument."},
    {"reverse", tl_reverse, METH_NOARGS, "Reverses the items in place."},
    {"sort", (PyCFunction)(void (*)(void))tl_sort, METH_VARARGS | METH_KEYWORDS,
     "sort(*, key=None, reverse=False): sorts in place, as list.sort."},
    {"copy", tl_copy, METH_NOARGS, "A new typed List of the same items."},
    {"clear", tl_clear, METH_NOARGS, "Removes every item."},
    {"__reduce__", tl_reduce, METH_NOARGS, "For pickle and copy: the item type, then the items."},
    /* List[T] in annotations, as Numba's List (a MutableSequence) allows */
    {"__class_getitem__", Py_GenericAlias, METH_O | METH_CLASS, "List[T]: a generic alias."},
    {NULL, NULL, 0, NULL},
};

/* Numba's _numba_type_: the list's type (ListType[item]), as typeof() gives it; None until its
 * item type is known. */
static PyObject *tl_get_numba_type(PyObject *obj, void *closure)
{
    (void)closure;
    return item_type(TL(obj)) ? types_object(TL(obj)->type) : Py_NewRef(Py_None);
}

static PyGetSetDef tl_getset[] = {
    {"_dtype", tl_get_dtype, NULL, "The item type (a pyjit.types type), None until known.", NULL},
    {"_numba_type_", tl_get_numba_type, NULL, "The list's pyjit type, None until known.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* l += iterable: extended in place, as a list is. */
static PyObject *tl_inplace_concat(PyObject *obj, PyObject *iterable)
{
    PyObject *r = tl_extend(obj, iterable);
    Py_XDECREF(r);
    return r ? Py_NewRef(obj) : NULL;
}

static PySequenceMethods tl_as_sequence = {
    .sq_length = tl_len,
    .sq_item = tl_item,
    .sq_contains = tl_contains,
    .sq_inplace_concat = tl_inplace_concat,
};

static PyMappingMethods tl_as_mapping = {
    .mp_length = tl_len,
    .mp_subscript = tl_subscript,
    .mp_ass_subscript = tl_ass_subscript,
};

PyTypeObject RtTypedListType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit.typed.List",
    .tp_basicsize = sizeof(TypedList),
    .tp_dealloc = tl_dealloc,
    .tp_repr = tl_repr,
    .tp_str = tl_str,
    .tp_as_sequence = &tl_as_sequence,
    .tp_as_mapping = &tl_as_mapping,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "List(iterable=()): a list of one item type whose memory compiled code shares "
              "(Numba's numba.typed.List).",
    .tp_richcompare = tl_richcompare,
    .tp_iter = tl_iter,
    .tp_methods = tl_methods,
    .tp_getset = tl_getset,
    .tp_new = tl_new,
};

int rt_typedlist_init(PyObject *module)
{
    if (PyType_Ready(&RtTypedListType) < 0 || PyType_Ready(&TypedListIterType) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "TypedList", (PyObject *)&RtTypedListType);
}
