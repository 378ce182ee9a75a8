/* list.c: lists for compiled code (abi.h's ListPayload), and their crossing to and from Python.
 *
 * A list is a MemInfo (nrt.c) whose data is the payload; the items live in their own block,
 * grown geometrically as CPython's are. Compiled code appends, indexes and iterates in place and
 * calls here only to make a list or to grow it. The memory functions are plain C and run without
 * the GIL.
 *
 * A Python list passed to a compiled function is unboxed into a new list that remembers it
 * (ListPayload.parent), and is reflected, as Numba's lists are: after the call, if compiled code
 * changed the list, the Python list's items are replaced by the new ones. Returning such a list
 * returns the Python list itself, brought up to date; any other list returns as a new Python
 * list. */
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

static ListPayload *payload(MemInfo *mi)
{
    return (ListPayload *)mi->data;
}

/* Releases the references the items hold, then the items. */
static void list_dtor(MemInfo *mi)
{
    ListPayload *p = payload(mi);
    for (int64_t i = 0; i < p->len; i++)
        for (int k = 0; k < p->nrefs; k++)
            pj_nrt_decref(*(MemInfo **)(p->items + i * p->itemsize + p->refs[k]));
    free(p->items);
}

MemInfo *pj_list_new(int64_t itemsize, int64_t len, const int32_t *refs, int32_t nrefs)
{
    if (itemsize < 0 || len < 0 || nrefs < 0 || nrefs > ABI_LIST_MAX_REFS)
        return NULL;
    MemInfo *mi = pj_nrt_alloc((int64_t)sizeof(ListPayload));
    if (!mi)
        return NULL;
    ListPayload *p = payload(mi);
    memset(p, 0, sizeof *p);
    p->itemsize = itemsize;
    p->nrefs = nrefs;
    if (nrefs)
        memcpy(p->refs, refs, sizeof(int32_t) * (size_t)nrefs);
    mi->dtor = list_dtor;
    if (pj_list_reserve(mi, len < 4 ? 4 : len) < 0) {
        pj_nrt_decref(mi);
        return NULL;
    }
    p->len = len;
    return mi;
}

int32_t pj_list_reserve(MemInfo *mi, int64_t n)
{
    ListPayload *p = payload(mi);
    if (n <= p->cap)
        return 0;
    int64_t cap = p->cap + (p->cap >> 1) + 4;   /* grow by half again, as CPython */
    if (cap < n)
        cap = n;
    size_t size = (size_t)p->itemsize;
    if (size && (uint64_t)cap > (uint64_t)INT64_MAX / size)
        return -1;
    char *items = realloc(p->items, size * (size_t)cap + 1);
    if (!items)
        return -1;
    p->items = items;
    p->cap = cap;
    return 0;
}

/* ---- to and from Python ---- */

/* A new reference on every MemInfo inside a value of type ty at buf. */
void rt_retain_value(Type *ty, void *buf)
{
    if (ty_holds_meminfo(ty))
        pj_nrt_incref(*(MemInfo **)buf);
    else if (ty->kind == TY_TUPLE)
        for (int i = 0; i < ty->tuple.n; i++)
            rt_retain_value(ty->tuple.items[i], (char *)buf + ty_tuple_offset(ty, i));
}

/* A new Python list of the items (they keep their references). */
static PyObject *box_items(Type *item, ListPayload *p)
{
    PyObject *list = PyList_New((Py_ssize_t)p->len);
    for (int64_t i = 0; list && i < p->len; i++) {
        char *at = p->items + i * p->itemsize;
        rt_retain_value(item, at);   /* rt_box takes a reference of its own */
        PyObject *x = rt_box(item, at);
        if (!x)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, x);
    }
    return list;
}

/* Brings the Python list a list was made from up to date, when compiled code changed it. */
static int reflect(Type *ty, ListPayload *p)
{
    if (!p->parent || !p->dirty)
        return 0;
    PyObject *items = box_items(ty->list.item, p);
    if (!items)
        return -1;
    PyObject *parent = p->parent;
    int rc = PyList_SetSlice(parent, 0, PyList_GET_SIZE(parent), items);
    Py_DECREF(items);
    if (rc == 0)
        p->dirty = 0;
    return rc;
}

PyObject *rt_box_list(Type *ty, MemInfo *mi)
{
    ListPayload *p = payload(mi);
    PyObject *result = NULL;
    if (p->parent) {
        if (reflect(ty, p) == 0)
            result = Py_NewRef((PyObject *)p->parent);
    } else {
        result = box_items(ty->list.item, p);
    }
    pj_nrt_decref(mi);   /* the reference the value carried */
    return result;
}

int rt_unbox_list(PyObject *obj, Type *ty, MemInfo **out)
{
    Type *item = ty->list.item;
    int32_t refs[ABI_LIST_MAX_REFS];
    int nrefs = ty_ref_offsets(item, 0, refs, 0, ABI_LIST_MAX_REFS);
    Py_ssize_t n = PyList_GET_SIZE(obj);
    MemInfo *mi = nrefs < 0 ? NULL : pj_list_new(ty_mem_size(item), (int64_t)n, refs, nrefs);
    if (!mi) {
        PyErr_NoMemory();
        return -1;
    }
    ListPayload *p = payload(mi);
    p->len = 0;   /* the items unboxed so far, all the dtor may release */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyList_GET_ITEM(obj, i);
        Type *xt = rt_typeof(x, 0);
        bool converts = ty_is_scalar(xt) && ty_is_scalar(item) && ty_promote(ty_strong(xt), item) == item;
        if (!xt || (ty_strong(xt) != item && !converts)) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "list item %zd is %.80s, where item 0 made it a "
                             "list of %s: a list passed to a compiled function holds one type",
                             i, Py_TYPE(x)->tp_name, item->name);
            pj_nrt_decref(mi);
            return -1;
        }
        char *at = p->items + i * p->itemsize;
        if ((xt != item ? rt_unbox_as(x, xt, item, at) : rt_unbox(x, item, at)) < 0) {
            pj_nrt_decref(mi);
            return -1;
        }
        p->len = i + 1;
    }
    p->parent = obj;   /* borrowed: the caller holds the argument for the call */
    *out = mi;
    return 0;
}

int rt_release_list_arg(Type *ty, MemInfo *mi)
{
    int rc = reflect(ty, payload(mi));
    payload(mi)->parent = NULL;   /* a list compiled code kept must not write to it later */
    pj_nrt_decref(mi);
    return rc;
}

Type *rt_typeof_list(PyObject *obj, int flags)
{
    if (PyList_GET_SIZE(obj) == 0)
        return NULL;   /* no item to type it from */
    Type *item = rt_typeof(PyList_GET_ITEM(obj, 0), flags);
    if (!item || item->kind == TY_LIST || item->kind == TY_NONE)
        return NULL;   /* lists of lists are not reflected */
    int32_t refs[ABI_LIST_MAX_REFS];
    return ty_ref_offsets(item, 0, refs, 0, ABI_LIST_MAX_REFS) < 0 ? NULL : ty_list(item);
}
