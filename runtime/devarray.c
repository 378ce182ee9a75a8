/* devarray.c: arrays in GPU memory, and GPU arrays that other libraries made.
 *
 * A DeviceArray is NumPy's array model over device memory: data address, shape, strides in
 * bytes, a dtype, and a base that keeps the memory alive. The array that allocated the memory
 * owns it; views (slices, reshape, ravel) hold a reference to it, so the memory goes with the
 * last view. Each array caches the pyjit Type kernels are specialised on, so a launch reads
 * one pointer per array argument.
 *
 * Export: __cuda_array_interface__ (v3) and DLPack (__dlpack__/__dlpack_device__, kDLCUDA).
 * Import: cuda_read_foreign reads any object exposing either (CuPy, PyTorch) for a launch,
 * without a copy. NumPy's C API is imported on first use, not when pyjit is imported. */
#include "runtime/cuda.h"
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

#include <numpy/arrayobject.h>

static int np_ready(void)
{
    static bool ready;
    if (!ready) {
        if (PyArray_ImportNumPyAPI() < 0)
            return -1;
        ready = true;
    }
    return 0;
}

/* ---- types and layouts ---- */

/* A typestr such as "<f4" -> the scalar kind, or -1. */
static int kind_of_typestr(const char *ts)
{
    static const struct { const char *code; TypeKind kind; } table[] = {
        {"b1", TY_BOOL}, {"i1", TY_INT8}, {"i2", TY_INT16}, {"i4", TY_INT32}, {"i8", TY_INT64},
        {"u1", TY_UINT8}, {"u2", TY_UINT16}, {"u4", TY_UINT32}, {"u8", TY_UINT64},
        {"f2", TY_FLOAT16}, {"f4", TY_FLOAT32}, {"f8", TY_FLOAT64}, {"c8", TY_COMPLEX64},
        {"c16", TY_COMPLEX128},
    };
    if (!ts || (ts[0] != '<' && ts[0] != '|' && ts[0] != '='))
        return -1;   /* big-endian data cannot be read by a kernel */
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(ts + 1, table[i].code) == 0)
            return table[i].kind;
    return -1;
}

/* ty_array takes the interning lock; launches with foreign arrays ask for the same few types
 * again and again, so they are cached here (written under the GIL, only ever set to the one
 * interned value). */
static Type *array_cache[TY_COMPLEX128 + 1][9][3][2];

static Type *array_type(int kind, int ndim, char layout, bool readonly)
{
    int l = layout == 'C' ? 0 : layout == 'F' ? 1 : 2;
    if (ndim > 8)
        return ty_array(ty_scalar((TypeKind)kind), ndim, layout, readonly);
    Type **slot = &array_cache[kind][ndim][l][readonly];
    if (!*slot)
        *slot = ty_array(ty_scalar((TypeKind)kind), ndim, layout, readonly);
    return *slot;
}

static Type *type_of_typestr(const char *ts, int ndim, char layout, bool readonly)
{
    int k = kind_of_typestr(ts);
    return k < 0 ? NULL : array_type(k, ndim, layout, readonly);
}

Type *cuda_array_type(PyObject *dtype, int ndim, char layout, bool readonly)
{
    Type *rec = rt_record_array_type(dtype, ndim, layout, readonly);
    if (rec || PyErr_Occurred()) {
        PyErr_Clear();
        return rec;
    }
    PyObject *s = PyObject_GetAttrString(dtype, "str");
    const char *ts = s ? PyUnicode_AsUTF8(s) : NULL;
    Type *t = ts ? type_of_typestr(ts, ndim, layout, readonly) : NULL;
    Py_XDECREF(s);
    PyErr_Clear();
    return t;
}

static bool is_contiguous(int ndim, const int64_t *shape, const int64_t *strides, int itemsize,
                          bool fortran)
{
    int64_t expect = itemsize;
    for (int k = 0; k < ndim; k++) {
        int i = fortran ? k : ndim - 1 - k;
        if (shape[i] == 0)
            return true;
        if (shape[i] != 1 && strides[i] != expect)
            return false;
        expect *= shape[i];
    }
    return true;
}

char cuda_layout(int ndim, const int64_t *shape, const int64_t *strides, int itemsize)
{
    if (is_contiguous(ndim, shape, strides, itemsize, false))
        return 'C';
    return is_contiguous(ndim, shape, strides, itemsize, true) ? 'F' : 'A';
}

static int64_t array_size(const CudaArray *a)
{
    int64_t n = 1;
    for (int i = 0; i < a->ndim; i++)
        n *= a->shape[i];
    return n;
}

static char array_layout(const CudaArray *a)
{
    return cuda_layout(a->ndim, a->shape, a->strides, a->itemsize);
}

/* ---- making arrays ---- */

static void fill_strides(int ndim, const int64_t *shape, int64_t *strides, int itemsize,
                         bool fortran)
{
    int64_t s = itemsize;
    for (int k = 0; k < ndim; k++) {
        int i = fortran ? k : ndim - 1 - k;
        strides[i] = s;
        s *= shape[i] > 0 ? shape[i] : 1;
    }
}

/* A new array object (not yet pointing at memory): dtype is a new reference, stolen. */
static CudaArray *array_shell(PyObject *dtype, int ndim, const int64_t *shape,
                              const int64_t *strides, CUstream stream, int device)
{
    CudaArray *a = PyObject_GC_New(CudaArray, &CudaArrayType);
    if (!a) {
        Py_DECREF(dtype);
        return NULL;
    }
    a->data = a->alloc = 0;
    a->base = NULL;
    a->record = false;
    a->writeback = NULL;
    a->weakrefs = NULL;
    a->dtype = dtype;
    a->itemsize = (int)PyDataType_ELSIZE((PyArray_Descr *)dtype);
    a->ndim = ndim;
    a->stream = stream;
    a->device = device;
    memcpy(a->shape, shape, sizeof(int64_t) * (size_t)ndim);
    memcpy(a->strides, strides, sizeof(int64_t) * (size_t)ndim);
    a->type = cuda_array_type(dtype, ndim, array_layout(a), false);
    PyObject_GC_Track(a);
    return a;
}

/* A new array owning fresh device memory. strides NULL: contiguous in order fortran or C. */
static CudaArray *array_alloc(PyObject *dtype, int ndim, const int64_t *shape,
                              const int64_t *strides, bool fortran, CUstream stream)
{
    int64_t own[CUDA_MAX_NDIM];
    int device = cuda_current_device();
    if (np_ready() < 0 || cuda_enter(device) < 0) {
        Py_DECREF(dtype);
        return NULL;
    }
    int itemsize = (int)PyDataType_ELSIZE((PyArray_Descr *)dtype);
    if (!strides) {
        fill_strides(ndim, shape, own, itemsize, fortran);
        strides = own;
    }
    CudaArray *a = array_shell(dtype, ndim, shape, strides, stream, device);
    int64_t bytes = array_size(a) * itemsize;   /* contiguous or given strides over as much */
    for (int i = 0; a && i < ndim; i++)
        if (shape[i] > 0 && (strides[i] < 0 ? -strides[i] : strides[i]) * shape[i] > bytes)
            bytes = (strides[i] < 0 ? -strides[i] : strides[i]) * shape[i];
    if (a && bytes > 0) {
        CUresult r = cuda_api.cuMemAlloc(&a->alloc, (size_t)bytes);
        if (r != CUDA_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "allocating %lld bytes on the GPU", (long long)bytes);
            cuda_raise(r, what, NULL);
            Py_DECREF(a);
            return NULL;
        }
        a->data = a->alloc;
    }
    return a;
}

/* A view of base (an array) at data with this geometry. */
static PyObject *array_view(CudaArray *of, CUdeviceptr data, int ndim, const int64_t *shape,
                            const int64_t *strides)
{
    Py_INCREF(of->dtype);
    CudaArray *v = array_shell(of->dtype, ndim, shape, strides, of->stream, of->device);
    if (!v)
        return NULL;
    v->data = data;
    v->base = of->base ? of->base : (PyObject *)of;
    Py_INCREF(v->base);
    return (PyObject *)v;
}

static int traverse(CudaArray *a, visitproc visit, void *arg)
{
    Py_VISIT(a->base);
    Py_VISIT(a->dtype);
    Py_VISIT(a->writeback);
    return 0;
}

static int clear(CudaArray *a)
{
    Py_CLEAR(a->base);
    Py_CLEAR(a->dtype);
    Py_CLEAR(a->writeback);
    return 0;
}

/* numba-cuda's defer_cleanup(): while a block of it runs, device memory whose last array goes
 * is freed when the outermost block ends, not at once (cuMemFree waits for the device, which
 * would serialise the asynchronous work the block queues). The GIL guards the list. */
typedef struct { CUdeviceptr ptr; int device; } Deferred;
static int defer_depth;
static Deferred *deferred;
static size_t ndeferred, deferred_cap;

static void free_now(CUdeviceptr ptr, int device)
{
    if (cuda_enter(device) == 0)
        cuda_api.cuMemFree(ptr);
    PyErr_Clear();
}

/* Holds ptr for the end of the defer_cleanup block; false when there is none, or no room. */
static bool defer_free(CUdeviceptr ptr, int device)
{
    if (defer_depth == 0)
        return false;
    if (ndeferred == deferred_cap) {
        size_t cap = deferred_cap ? 2 * deferred_cap : 64;
        Deferred *grown = PyMem_RawRealloc(deferred, cap * sizeof *grown);
        if (!grown)
            return false;
        deferred = grown;
        deferred_cap = cap;
    }
    deferred[ndeferred++] = (Deferred){ptr, device};
    return true;
}

/* _core.cuda_defer_cleanup(entering): a defer_cleanup block begins or ends. */
static PyObject *py_defer_cleanup(PyObject *self, PyObject *entering)
{
    int enter = PyObject_IsTrue(entering);
    if (enter < 0)
        return NULL;
    if (enter) {
        defer_depth++;
    } else if (defer_depth > 0 && --defer_depth == 0) {
        for (size_t i = 0; i < ndeferred; i++)
            free_now(deferred[i].ptr, deferred[i].device);
        ndeferred = 0;
    }
    Py_RETURN_NONE;
}

static void dealloc(CudaArray *a)
{
    PyObject_GC_UnTrack(a);
    if (a->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)a);
    if (a->alloc) {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);   /* a dealloc must not disturb a pending exception */
        if (!defer_free(a->alloc, a->device))
            free_now(a->alloc, a->device);
        PyErr_Restore(et, ev, tb);
    }
    clear(a);
    PyObject_GC_Del(a);
}

/* ---- arguments: shapes, dtypes, streams ---- */

/* An int or a tuple of ints -> shape. Returns ndim, or -1 with an exception. */
static int parse_shape(PyObject *obj, int64_t *shape)
{
    if (PyIndex_Check(obj)) {
        shape[0] = PyLong_AsLongLong(obj);
        if (shape[0] == -1 && PyErr_Occurred())
            return -1;
        if (shape[0] < 0)
            goto negative;
        return 1;
    }
    PyObject *seq = PySequence_Fast(obj, "a shape must be an int or a tuple of ints");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > CUDA_MAX_NDIM) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "at most %d dimensions, not %zd", CUDA_MAX_NDIM, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        shape[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((shape[i] == -1 && PyErr_Occurred()) || shape[i] < 0) {
            Py_DECREF(seq);
            if (PyErr_Occurred())
                return -1;
            goto negative;
        }
    }
    Py_DECREF(seq);
    return (int)n;
negative:
    PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
    return -1;
}

/* Anything numpy.dtype() takes -> a new reference to the dtype. */
static PyObject *to_dtype(PyObject *obj)
{
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter(obj, &d))
        return NULL;
    if (d->type_num == NPY_OBJECT || PyDataType_REFCHK(d)) {
        /* a device holds no Python objects */
        Py_DECREF(d);
        PyErr_Format(PyExc_TypeError, "device arrays hold bool, int, uint, float, complex or "
                     "record values, not %R", obj);
        return NULL;
    }
    return (PyObject *)d;
}

static int order_fortran(const char *order)
{
    if (!order || strcmp(order, "C") == 0)
        return 0;
    if (strcmp(order, "F") == 0)
        return 1;
    PyErr_Format(PyExc_ValueError, "order must be 'C' or 'F', not '%s'", order);
    return -1;
}

/* ---- copies ---- */

static int sync_if_default(CUstream s)
{
    if (s != NULL)
        return 0;
    CUresult r;
    Py_BEGIN_ALLOW_THREADS
    r = cuda_api.cuStreamSynchronize(NULL);
    Py_END_ALLOW_THREADS
    return cuda_check(r, "waiting for a copy");
}

static int check_same(CudaArray *a, PyArrayObject *h)
{
    bool same = PyArray_NDIM(h) == a->ndim;
    for (int i = 0; same && i < a->ndim; i++)
        same = PyArray_DIMS(h)[i] == a->shape[i];
    if (!same) {
        PyErr_SetString(PyExc_ValueError, "the host array's shape differs from the device "
                        "array's");
        return -1;
    }
    if (!PyArray_EquivTypes(PyArray_DESCR(h), (PyArray_Descr *)a->dtype)) {
        PyErr_Format(PyExc_TypeError, "the host array's dtype %R differs from the device "
                     "array's %R", (PyObject *)PyArray_DESCR(h), a->dtype);
        return -1;
    }
    return 0;
}

/* Copies host array h (same shape and dtype) into a. */
static int copy_in(CudaArray *a, PyArrayObject *h, CUstream s)
{
    char layout = array_layout(a);
    if (check_same(a, h) < 0)
        return -1;
    if (layout == 'A') {
        PyErr_SetString(PyExc_ValueError, "copying into a non-contiguous device array is not "
                        "supported: copy into a contiguous one");
        return -1;
    }
    int64_t nbytes = array_size(a) * a->itemsize;
    if (nbytes == 0)
        return 0;
    bool fits = layout == 'F' ? PyArray_IS_F_CONTIGUOUS(h) : PyArray_IS_C_CONTIGUOUS(h);
    PyArrayObject *src = fits ? (Py_INCREF(h), h) :
        (PyArrayObject *)PyArray_NewCopy(h, layout == 'F' ? NPY_FORTRANORDER : NPY_CORDER);
    if (!src || cuda_enter(a->device) < 0) {
        Py_XDECREF(src);
        return -1;
    }
    CUresult r = cuda_api.cuMemcpyHtoDAsync(a->data, PyArray_DATA(src), (size_t)nbytes, s);
    if (r == CUDA_SUCCESS && src != h)
        r = cuda_api.cuStreamSynchronize(s);   /* the temporary goes now */
    Py_DECREF(src);
    return cuda_check(r, "copying to the GPU");
}

/* The lowest and highest byte offsets a's elements reach (relative to a->data). */
static void byte_span(const CudaArray *a, int64_t *lo, int64_t *hi)
{
    *lo = 0;
    *hi = a->itemsize;
    for (int i = 0; i < a->ndim; i++) {
        int64_t ext = (a->shape[i] - 1) * a->strides[i];
        if (ext < 0)
            *lo += ext;
        else
            *hi += ext;
    }
}

/* A host array with a's geometry over a copy of the device bytes it spans (for views that are
 * not contiguous). A new reference, or NULL. */
static PyArrayObject *fetch_span(CudaArray *a, CUstream s)
{
    int64_t lo, hi;
    byte_span(a, &lo, &hi);
    npy_intp n = (npy_intp)(hi - lo);
    PyArrayObject *raw = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_UINT8);
    if (!raw)
        return NULL;
    CUresult r = cuda_api.cuMemcpyDtoHAsync(PyArray_DATA(raw), a->data + lo, (size_t)n, s);
    if (r == CUDA_SUCCESS)
        r = cuda_api.cuStreamSynchronize(s);
    if (cuda_check(r, "copying from the GPU") < 0) {
        Py_DECREF(raw);
        return NULL;
    }
    npy_intp dims[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM];
    for (int i = 0; i < a->ndim; i++) {
        dims[i] = (npy_intp)a->shape[i];
        strides[i] = (npy_intp)a->strides[i];
    }
    Py_INCREF(a->dtype);
    PyObject *view = PyArray_NewFromDescr(&PyArray_Type, (PyArray_Descr *)a->dtype, a->ndim,
                                          dims, strides, (char *)PyArray_DATA(raw) - lo,
                                          NPY_ARRAY_WRITEABLE, NULL);
    if (!view || PyArray_SetBaseObject((PyArrayObject *)view, (PyObject *)raw) < 0) {
        Py_XDECREF(view);
        if (view == NULL)
            Py_DECREF(raw);
        return NULL;
    }
    return (PyArrayObject *)view;
}

/* Copies a into host array h (same shape and dtype). */
static int copy_out(CudaArray *a, PyArrayObject *h, CUstream s)
{
    if (check_same(a, h) < 0 || cuda_enter(a->device) < 0)
        return -1;
    int64_t nbytes = array_size(a) * a->itemsize;
    char layout = array_layout(a);
    if (nbytes == 0)
        return 0;
    if ((layout == 'C' && PyArray_IS_C_CONTIGUOUS(h)) ||
        (layout == 'F' && PyArray_IS_F_CONTIGUOUS(h))) {
        if (!PyArray_ISWRITEABLE(h)) {
            PyErr_SetString(PyExc_ValueError, "copy_to_host: the host array is read-only");
            return -1;
        }
        CUresult r = cuda_api.cuMemcpyDtoHAsync(PyArray_DATA(h), a->data, (size_t)nbytes, s);
        return cuda_check(r, "copying from the GPU") < 0 ? -1 : sync_if_default(s);
    }
    PyArrayObject *tmp = fetch_span(a, s);
    int rc = tmp ? PyArray_CopyInto(h, tmp) : -1;
    Py_XDECREF(tmp);
    return rc;
}

/* ---- Python methods ---- */

static PyObject *copy_to_host(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ary", "stream", NULL};
    PyObject *ary = Py_None, *sobj = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:copy_to_host", kwlist, &ary, &sobj) ||
        np_ready() < 0 || cuda_stream_handle(sobj, &s) < 0)
        return NULL;
    if (!sobj)
        s = a->stream;
    if (ary != Py_None) {
        if (!PyArray_Check(ary))
            return PyErr_Format(PyExc_TypeError, "copy_to_host(ary): ary must be a NumPy "
                                "array, not %.100s", Py_TYPE(ary)->tp_name);
        if (copy_out(a, (PyArrayObject *)ary, s) < 0 || (!s && cuda_fault_check() < 0))
            return NULL;
        return Py_NewRef(ary);
    }
    npy_intp dims[CUDA_MAX_NDIM];
    for (int i = 0; i < a->ndim; i++)
        dims[i] = (npy_intp)a->shape[i];
    Py_INCREF(a->dtype);
    PyObject *h = PyArray_Empty(a->ndim, dims, (PyArray_Descr *)a->dtype,
                                array_layout(a) == 'F' && a->ndim > 1);
    if (h && (copy_out(a, (PyArrayObject *)h, s) < 0 || (!s && cuda_fault_check() < 0)))
        Py_CLEAR(h);
    return h;
}

/* numba-cuda's __array__(dtype=None, copy=None): np.asarray(d) copies to the host (a view is
 * impossible: copy=False is refused, as numba-cuda refuses it). */
static PyObject *as_numpy(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:__array__", kwlist, &dtype, &copy))
        return NULL;
    if (copy == Py_False) {
        PyErr_SetString(PyExc_ValueError, "a device array cannot be seen from the host without "
                        "a copy (copy=False): np.asarray(d) and copy_to_host() copy it");
        return NULL;
    }
    PyObject *empty = PyTuple_New(0);
    PyObject *h = empty ? copy_to_host(a, empty, NULL) : NULL;
    Py_XDECREF(empty);
    if (!h || dtype == Py_None)
        return h;
    PyObject *r = PyObject_CallMethod(h, "astype", "O", dtype);
    Py_DECREF(h);
    return r;
}

/* numba-cuda's legacy to_host(stream=0): copies back into the NumPy array to_device made this
 * array from, and returns it; a new host array when there is none (or it is gone). A NumPy array
 * given first is copied into, as copy_to_host(ary) does. */
static PyObject *to_host(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *sobj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:to_host", kwlist, &sobj) || np_ready() < 0)
        return NULL;
    if (sobj && PyArray_Check(sobj))
        return PyObject_CallMethod((PyObject *)a, "copy_to_host", "O", sobj);
    PyObject *host = a->writeback ? PyWeakref_GetObject(a->writeback) : Py_None;  /* borrowed */
    PyObject *call = Py_BuildValue("(OO)", host, sobj ? sobj : Py_None);
    if (!call)
        return NULL;
    PyObject *r = copy_to_host(a, call, NULL);
    Py_DECREF(call);
    return r;
}

static PyObject *copy_to_device(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ary", "stream", NULL};
    PyObject *ary, *sobj = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:copy_to_device", kwlist, &ary, &sobj) ||
        np_ready() < 0 || cuda_stream_handle(sobj, &s) < 0)
        return NULL;
    if (!sobj)
        s = a->stream;
    if (Py_TYPE(ary) == &CudaArrayType) {
        CudaArray *b = (CudaArray *)ary;
        int64_t n = array_size(a) * a->itemsize;
        if (array_size(b) * b->itemsize != n || array_layout(a) == 'A' ||
            array_layout(b) != array_layout(a))
            return PyErr_Format(PyExc_ValueError, "copy_to_device: device arrays of different "
                                "sizes or layouts");
        if (n && (cuda_enter(a->device) < 0 ||
                  cuda_check(cuda_api.cuMemcpyDtoDAsync(a->data, b->data, (size_t)n, s),
                             "copying on the GPU") < 0))
            return NULL;
        Py_RETURN_NONE;
    }
    Py_INCREF(a->dtype);
    PyObject *h = PyArray_FromAny(ary, (PyArray_Descr *)a->dtype, 0, 0, 0, NULL);
    int rc = h ? copy_in(a, (PyArrayObject *)h, s) : -1;
    Py_XDECREF(h);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* The strides of a new contiguous array like one of this geometry that is neither C- nor
 * F-contiguous, as numba-cuda's device_array_like makes them: its axes laid out in the order
 * of the given strides, smallest (by signed value, as numba-cuda sorts them) first, so that a
 * transposed view gives a transposed array. pyjit/gpu/_layout.py does the same for the other
 * backends and the host arrays. */
static void strides_like(int ndim, const int64_t *shape, const int64_t *strides, int itemsize,
                         int64_t *out)
{
    int order[CUDA_MAX_NDIM];
    for (int i = 0; i < ndim; i++) {   /* a stable insertion sort of the axes by stride */
        int j = i;
        for (; j > 0 && strides[order[j - 1]] > strides[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    int64_t step = itemsize;
    for (int k = 0; k < ndim; k++) {
        out[order[k]] = step;
        step *= shape[order[k]];
    }
}

/* A new device array like one of this geometry: its order when it is contiguous (or has at
 * most one axis), else strides_like's layout. */
static PyObject *alloc_like(PyObject *dtype, int ndim, const int64_t *shape,
                            const int64_t *strides, int itemsize, CUstream s)
{
    char layout = cuda_layout(ndim, shape, strides, itemsize);
    int64_t own[CUDA_MAX_NDIM];
    if (layout == 'A' && ndim > 1)
        strides_like(ndim, shape, strides, itemsize, own);
    return (PyObject *)array_alloc(dtype, ndim, shape, layout == 'A' && ndim > 1 ? own : NULL,
                                   layout == 'F' && ndim > 1, s);
}

/* h's dtype in the native byte order: a new reference. */
static PyObject *native_dtype(PyArrayObject *h)
{
    if (!PyArray_ISNBO(PyArray_DESCR(h)->byteorder))
        return (PyObject *)PyArray_DescrNewByteorder(PyArray_DESCR(h), NPY_NATIVE);
    return Py_NewRef((PyObject *)PyArray_DESCR(h));
}

/* A new device array of h's shape and dtype: like h (alloc_like) for device_array_like, else
 * contiguous in h's order (to_device, which copies any host array). */
static PyObject *new_like_host(PyArrayObject *h, CUstream s, bool like)
{
    int ndim = PyArray_NDIM(h);
    int64_t shape[CUDA_MAX_NDIM];
    if (ndim > CUDA_MAX_NDIM)
        return PyErr_Format(PyExc_ValueError, "at most %d dimensions", CUDA_MAX_NDIM);
    for (int i = 0; i < ndim; i++)
        shape[i] = PyArray_DIMS(h)[i];
    PyObject *dtype = native_dtype(h);
    if (!dtype)
        return NULL;
    if (like)
        return alloc_like(dtype, ndim, shape, (const int64_t *)PyArray_STRIDES(h),
                          (int)PyArray_ITEMSIZE(h), s);
    bool fortran = ndim > 1 && PyArray_IS_F_CONTIGUOUS(h) && !PyArray_IS_C_CONTIGUOUS(h);
    return (PyObject *)array_alloc(dtype, ndim, shape, NULL, fortran, s);
}

/* gpu.to_device(obj, stream=0, copy=True, to=None) */
static PyObject *py_to_device(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"obj", "stream", "copy", "to", NULL};
    PyObject *obj, *sobj = NULL, *to = Py_None, *h = NULL, *d = NULL;
    int copy = 1;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OpO:to_device", kwlist, &obj, &sobj, &copy,
                                     &to) ||
        np_ready() < 0 || cuda_stream_handle(sobj, &s) < 0 || cuda_ensure() < 0)
        return NULL;
    if (Py_TYPE(obj) == &CudaArrayType && to == Py_None)
        return Py_NewRef(obj);
    h = PyArray_FromAny(obj, NULL, 0, 0, NPY_ARRAY_NOTSWAPPED, NULL);
    if (!h)
        return NULL;
    if (PyArray_DESCR((PyArrayObject *)h)->type_num == NPY_OBJECT) {
        PyErr_Format(PyExc_TypeError, "to_device: %.100s has no numeric dtype",
                     Py_TYPE(obj)->tp_name);
        goto fail;
    }
    if (to != Py_None) {
        if (Py_TYPE(to) != &CudaArrayType) {
            PyErr_SetString(PyExc_TypeError, "to_device(to=...) takes a device array");
            goto fail;
        }
        d = Py_NewRef(to);
    } else if (!(d = new_like_host((PyArrayObject *)h, s, false))) {
        goto fail;
    }
    if (copy && copy_in((CudaArray *)d, (PyArrayObject *)h, s) < 0)
        goto fail;
    if (to == Py_None && h == obj && !(((CudaArray *)d)->writeback = PyWeakref_NewRef(obj, NULL)))
        goto fail;
    if (to == Py_None && PyArray_IsScalar(obj, Void) &&
        PyDataType_HASFIELDS(PyArray_DESCR((PyArrayObject *)h)))
        ((CudaArray *)d)->record = ((CudaArray *)d)->type != NULL;   /* a DeviceRecord */
    Py_DECREF(h);
    return d;
fail:
    Py_XDECREF(h);
    Py_XDECREF(d);
    return NULL;
}

/* gpu.device_array(shape, dtype=float64, strides=None, order='C', stream=0) */
static PyObject *py_device_array(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"shape", "dtype", "strides", "order", "stream", NULL};
    PyObject *shape_obj, *dtype_obj = NULL, *strides_obj = Py_None, *sobj = NULL;
    const char *order = "C";
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM];
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOsO:device_array", kwlist, &shape_obj,
                                     &dtype_obj, &strides_obj, &order, &sobj) ||
        np_ready() < 0 || cuda_stream_handle(sobj, &s) < 0 || cuda_ensure() < 0)
        return NULL;
    int ndim = parse_shape(shape_obj, shape), fortran = order_fortran(order);
    if (ndim < 0 || fortran < 0)
        return NULL;
    if (strides_obj != Py_None) {
        if (PySequence_Size(strides_obj) != ndim)
            return PyErr_Format(PyExc_ValueError, "strides must have %d items", ndim);
        for (int i = 0; i < ndim; i++) {
            PyObject *v = PySequence_GetItem(strides_obj, i);
            strides[i] = v ? PyLong_AsLongLong(v) : -1;
            Py_XDECREF(v);
            if (PyErr_Occurred())
                return NULL;
        }
    }
    PyObject *dtype = to_dtype(dtype_obj ? dtype_obj : (PyObject *)&PyFloat_Type);
    if (!dtype)
        return NULL;
    return (PyObject *)array_alloc(dtype, ndim, shape, strides_obj == Py_None ? NULL : strides,
                                   fortran, s);
}

/* gpu.device_array_like(ary, stream=0): same shape, dtype and layout (not the contents). */
static PyObject *py_device_array_like(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ary", "stream", NULL};
    PyObject *ary, *sobj = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:device_array_like", kwlist, &ary, &sobj) ||
        np_ready() < 0 || cuda_stream_handle(sobj, &s) < 0 || cuda_ensure() < 0)
        return NULL;
    if (Py_TYPE(ary) == &CudaArrayType) {
        CudaArray *a = (CudaArray *)ary;
        Py_INCREF(a->dtype);
        return alloc_like(a->dtype, a->ndim, a->shape, a->strides, a->itemsize, s);
    }
    PyObject *h = PyArray_FromAny(ary, NULL, 0, 0, 0, NULL);
    PyObject *d = h ? new_like_host((PyArrayObject *)h, s, true) : NULL;
    Py_XDECREF(h);
    return d;
}

/* ---- pinned host memory ---- */

typedef struct PinnedBlock {
    void *ptr;
    int device;
} PinnedBlock;

static void pinned_free(PyObject *capsule)
{
    PinnedBlock *b = PyCapsule_GetPointer(capsule, "pyjit.pinned");
    if (!b)
        return;
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    if (cuda_enter(b->device) == 0)
        cuda_api.cuMemFreeHost(b->ptr);
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
    PyMem_Free(b);
}

enum { MEMHOSTALLOC_PORTABLE = 1 };

/* gpu.pinned_array(shape, dtype=float64, strides=None, order='C'): a NumPy array in
 * page-locked memory (fast, asynchronous copies); freed with the array. */
static PyObject *py_pinned_array(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"shape", "dtype", "strides", "order", NULL};
    PyObject *shape_obj, *dtype_obj = NULL, *strides_obj = Py_None, *arr = NULL, *cap = NULL;
    const char *order = "C";
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM];
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOs:pinned_array", kwlist, &shape_obj,
                                     &dtype_obj, &strides_obj, &order) ||
        np_ready() < 0 || cuda_enter(cuda_current_device()) < 0)
        return NULL;
    int ndim = parse_shape(shape_obj, shape), fortran = order_fortran(order);
    PyObject *dtype = ndim < 0 || fortran < 0 ? NULL :
                      to_dtype(dtype_obj ? dtype_obj : (PyObject *)&PyFloat_Type);
    if (!dtype)
        return NULL;
    int itemsize = (int)PyDataType_ELSIZE((PyArray_Descr *)dtype);
    fill_strides(ndim, shape, strides, itemsize, fortran);
    int64_t bytes = itemsize;
    for (int i = 0; i < ndim; i++)
        bytes *= shape[i];
    PinnedBlock *b = PyMem_Calloc(1, sizeof *b);
    if (!b || cuda_check(cuda_api.cuMemHostAlloc(&b->ptr, (size_t)(bytes ? bytes : 1),
                                                 MEMHOSTALLOC_PORTABLE),
                         "allocating pinned host memory") < 0) {
        PyMem_Free(b);
        Py_DECREF(dtype);
        return b ? NULL : PyErr_NoMemory();
    }
    b->device = cuda_current_device();
    if (!(cap = PyCapsule_New(b, "pyjit.pinned", pinned_free))) {
        cuda_api.cuMemFreeHost(b->ptr);
        PyMem_Free(b);
        Py_DECREF(dtype);
        return NULL;
    }
    npy_intp dims[CUDA_MAX_NDIM], st[CUDA_MAX_NDIM];
    for (int i = 0; i < ndim; i++) {
        dims[i] = (npy_intp)shape[i];
        st[i] = (npy_intp)strides[i];
    }
    arr = PyArray_NewFromDescr(&PyArray_Type, (PyArray_Descr *)dtype, ndim, dims,
                               strides_obj == Py_None ? st : NULL, b->ptr, NPY_ARRAY_WRITEABLE,
                               NULL);   /* steals dtype */
    if (!arr || PyArray_SetBaseObject((PyArrayObject *)arr, cap) < 0) {   /* steals cap */
        if (!arr)
            Py_DECREF(cap);
        Py_XDECREF(arr);
        return NULL;
    }
    return arr;
}

/* ---- indexing and views ---- */

/* Applies one index item to dimension *dim of (shape, strides, offset), writing the result
 * dimensions into out. */
static int index_item(CudaArray *a, PyObject *item, int *dim, int *nout, int64_t *oshape,
                      int64_t *ostrides, int64_t *offset)
{
    if (item == Py_None) {
        oshape[*nout] = 1;
        ostrides[(*nout)++] = 0;
        return 0;
    }
    if (*dim >= a->ndim) {
        PyErr_Format(PyExc_IndexError, "too many indices for a device array of %d dimensions",
                     a->ndim);
        return -1;
    }
    int64_t n = a->shape[*dim], st = a->strides[*dim];
    if (PySlice_Check(item)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(item, &start, &stop, &step) < 0)
            return -1;
        Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)n, &start, &stop, step);
        *offset += len > 0 ? start * st : 0;
        oshape[*nout] = len;
        ostrides[(*nout)++] = st * step;
        (*dim)++;
        return 0;
    }
    if (!PyIndex_Check(item) || PyBool_Check(item)) {
        PyErr_Format(PyExc_IndexError, "device arrays take ints, slices, None and ... as "
                     "indices, not %.100s", Py_TYPE(item)->tp_name);
        return -1;
    }
    Py_ssize_t i = PyNumber_AsSsize_t(item, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred())
        return -1;
    if (i < -n || i >= n) {
        PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for axis %d with size %lld",
                     i, *dim, (long long)n);
        return -1;
    }
    *offset += (i < 0 ? i + n : i) * st;
    (*dim)++;
    return 0;
}

/* One element, as NumPy's scalar of the dtype (a record's np.void owns a copy of its bytes). */
static PyObject *read_scalar(CudaArray *a, CUdeviceptr where)
{
    char small[32];
    char *buf = a->itemsize <= (int)sizeof small ? small : PyMem_Malloc((size_t)a->itemsize);
    PyObject *r = NULL;
    if (!buf)
        return PyErr_NoMemory();
    if (cuda_enter(a->device) == 0 &&
        cuda_check(cuda_api.cuMemcpyDtoHAsync(buf, where, (size_t)a->itemsize, a->stream),
                   "reading an element") == 0 &&
        cuda_check(cuda_api.cuStreamSynchronize(a->stream), "reading an element") == 0)
        r = PyArray_Scalar(buf, (PyArray_Descr *)a->dtype, NULL);
    if (buf != small)
        PyMem_Free(buf);
    return r;
}

/* The geometry key selects: a view's ndim (*nout), shape, strides and byte offset; *element
 * says every dimension was given an int (numpy returns a scalar then). 0, or -1. */
static int resolve_index(CudaArray *a, PyObject *key, int *nout, int64_t *shape,
                         int64_t *strides, int64_t *offset, bool *element)
{
    int dim = 0, nints = 0;
    *nout = 0;
    *offset = 0;
    PyObject *items = PyTuple_Check(key) ? Py_NewRef(key) : PyTuple_Pack(1, key);
    if (!items)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(items), nreal = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PyTuple_GET_ITEM(items, i);
        nreal += it != Py_None && it != Py_Ellipsis;
        nints += PyIndex_Check(it) && !PySlice_Check(it);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PyTuple_GET_ITEM(items, i);
        if (it == Py_Ellipsis) {   /* the dimensions no other item names, whole */
            for (int64_t k = 0; k < a->ndim - nreal && *nout < CUDA_MAX_NDIM; k++, dim++) {
                shape[*nout] = a->shape[dim];
                strides[(*nout)++] = a->strides[dim];
            }
            nreal = a->ndim;   /* a second ... takes nothing */
            continue;
        }
        if (*nout >= CUDA_MAX_NDIM) {
            PyErr_SetString(PyExc_IndexError, "too many dimensions");
            goto fail;
        }
        if (index_item(a, it, &dim, nout, shape, strides, offset) < 0)
            goto fail;
    }
    for (; dim < a->ndim; dim++) {
        shape[*nout] = a->shape[dim];
        strides[(*nout)++] = a->strides[dim];
    }
    Py_DECREF(items);
    *element = *nout == 0 && nints == a->ndim;
    return 0;
fail:
    Py_DECREF(items);
    return -1;
}

static PyObject *getitem(CudaArray *a, PyObject *key)
{
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM], offset;
    int nout;
    bool element;
    if (np_ready() < 0 || resolve_index(a, key, &nout, shape, strides, &offset, &element) < 0)
        return NULL;
    if (element)
        return read_scalar(a, a->data + offset);
    return array_view(a, a->data + offset, nout, shape, strides);
}

/* Writes host array h (v's shape) into v, which need not be contiguous: the bytes v spans are
 * read, updated and written back. */
static int store_strided(CudaArray *v, PyArrayObject *h)
{
    int64_t lo, hi;
    PyArrayObject *tmp = fetch_span(v, v->stream);
    if (!tmp)
        return -1;
    PyArrayObject *raw = (PyArrayObject *)PyArray_BASE(tmp);
    byte_span(v, &lo, &hi);
    int rc = PyArray_CopyInto(tmp, h);
    if (rc == 0) {
        CUresult r = cuda_api.cuMemcpyHtoDAsync(v->data + lo, PyArray_DATA(raw),
                                                (size_t)(hi - lo), v->stream);
        if (r == CUDA_SUCCESS)
            r = cuda_api.cuStreamSynchronize(v->stream);
        rc = cuda_check(r, "writing to a device array");
    }
    Py_DECREF(tmp);
    return rc;
}

/* d[key] = value: value (a scalar or an array broadcast to the selection) is copied in. */
static int setitem(CudaArray *a, PyObject *key, PyObject *value)
{
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM], offset;
    npy_intp dims[CUDA_MAX_NDIM];
    int nout, rc = -1;
    bool element;
    PyObject *src = NULL, *h = NULL, *v = NULL;
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "device array items cannot be deleted");
        return -1;
    }
    if (np_ready() < 0 || cuda_enter(a->device) < 0 ||
        resolve_index(a, key, &nout, shape, strides, &offset, &element) < 0)
        return -1;
    for (int i = 0; i < nout; i++)
        dims[i] = (npy_intp)shape[i];
    Py_INCREF(a->dtype);
    src = PyArray_FromAny(value, (PyArray_Descr *)a->dtype, 0, 0, 0, NULL);
    Py_INCREF(a->dtype);
    h = src ? PyArray_Empty(nout, dims, (PyArray_Descr *)a->dtype, 0) : NULL;
    if (!src)
        Py_DECREF(a->dtype);
    if (!h || PyArray_CopyInto((PyArrayObject *)h, (PyArrayObject *)src) < 0)
        goto done;   /* CopyInto broadcasts value to the selection, as NumPy assigns */
    if (!(v = array_view(a, a->data + offset, nout, shape, strides)))
        goto done;
    if (array_size((CudaArray *)v) == 0)
        rc = 0;
    else if (array_layout((CudaArray *)v) == 'C')
        rc = copy_in((CudaArray *)v, (PyArrayObject *)h, a->stream) < 0 ? -1 :
             sync_if_default(a->stream);
    else
        rc = store_strided((CudaArray *)v, (PyArrayObject *)h);
done:
    Py_XDECREF(src);
    Py_XDECREF(h);
    Py_XDECREF(v);
    return rc;
}

static Py_ssize_t length(CudaArray *a)
{
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d device array");
        return -1;
    }
    return (Py_ssize_t)a->shape[0];
}

/* reshape(*shape, order='C'): a view; the array must be contiguous in that order. */
static PyObject *reshape(CudaArray *a, PyObject *args, PyObject *kwds)
{
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM];
    const char *order = "C";
    if (kwds) {
        PyObject *o = PyDict_GetItemString(kwds, "order");
        if (o && !(order = PyUnicode_AsUTF8(o)))
            return NULL;
    }
    int fortran = order_fortran(order);
    PyObject *spec = PyTuple_GET_SIZE(args) == 1 ? PyTuple_GET_ITEM(args, 0) : args;
    if (fortran < 0)
        return NULL;
    int unknown = -1, ndim;
    int64_t known = 1, size = array_size(a);
    /* parse_shape rejects -1, so read the items here */
    PyObject *seq = PyIndex_Check(spec) ? PyTuple_Pack(1, spec) : PySequence_Tuple(spec);
    if (!seq)
        return NULL;
    ndim = (int)PyTuple_GET_SIZE(seq);
    for (int i = 0; i < ndim && i < CUDA_MAX_NDIM; i++) {
        shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
        if (shape[i] == -1 && !PyErr_Occurred() && unknown < 0)
            unknown = i;
        else if (shape[i] < 0) {
            Py_DECREF(seq);
            return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "bad shape");
        } else
            known *= shape[i];
    }
    Py_DECREF(seq);
    if (ndim > CUDA_MAX_NDIM)
        return PyErr_Format(PyExc_ValueError, "at most %d dimensions", CUDA_MAX_NDIM);
    if (unknown >= 0 && known > 0 && size % known == 0)
        shape[unknown] = size / known, known = size;
    if (known != size)
        return PyErr_Format(PyExc_ValueError, "cannot reshape a device array of size %lld "
                            "into that shape", (long long)size);
    if (!is_contiguous(a->ndim, a->shape, a->strides, a->itemsize, fortran))
        return PyErr_Format(PyExc_NotImplementedError, "reshape of a device array that is not "
                            "%s-contiguous would need a copy", fortran ? "F" : "C");
    fill_strides(ndim, shape, strides, a->itemsize, fortran);
    return array_view(a, a->data, ndim, shape, strides);
}

static PyObject *ravel(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"order", NULL};
    const char *order = "C";
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|s:ravel", kwlist, &order))
        return NULL;
    int fortran = order_fortran(order);
    if (fortran < 0)
        return NULL;
    if (!is_contiguous(a->ndim, a->shape, a->strides, a->itemsize, fortran))
        return PyErr_Format(PyExc_NotImplementedError, "ravel of a device array that is not "
                            "%s-contiguous would need a copy", fortran ? "F" : "C");
    int64_t n = array_size(a), st = a->itemsize;
    return array_view(a, a->data, 1, &n, &st);
}

/* transpose(*axes): a view with the dimensions permuted (reversed by default); .T */
static PyObject *transpose(CudaArray *a, PyObject *args)
{
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM];
    int perm[CUDA_MAX_NDIM];
    bool seen[CUDA_MAX_NDIM] = {false};
    PyObject *spec = args && PyTuple_GET_SIZE(args) == 1 ? PyTuple_GET_ITEM(args, 0) : args;
    if (!spec || PyTuple_GET_SIZE(args) == 0 || spec == Py_None) {
        for (int i = 0; i < a->ndim; i++)
            perm[i] = a->ndim - 1 - i;
    } else {
        PyObject *seq = PySequence_Tuple(spec);
        if (!seq)
            return NULL;
        bool ok = PyTuple_GET_SIZE(seq) == a->ndim;
        for (int i = 0; ok && i < a->ndim; i++) {
            long v = PyLong_AsLong(PyTuple_GET_ITEM(seq, i));
            v = v < 0 ? v + a->ndim : v;
            ok = v >= 0 && v < a->ndim && !seen[v];
            if (ok) {
                perm[i] = (int)v;
                seen[v] = true;
            }
        }
        Py_DECREF(seq);
        if (!ok)
            return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "transpose: axes "
                                                          "must be a permutation of 0..%d",
                                                          a->ndim - 1);
    }
    for (int i = 0; i < a->ndim; i++) {
        shape[i] = a->shape[perm[i]];
        strides[i] = a->strides[perm[i]];
    }
    return array_view(a, a->data, a->ndim, shape, strides);
}

static PyObject *get_T(CudaArray *a, void *u)
{
    return transpose(a, NULL);
}

/* numba-cuda's squeeze(axis=None, stream=0): a view without the axes of length 1 (only those
 * named by axis, an int or a tuple, when given). */
static PyObject *squeeze(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"axis", "stream", NULL};
    PyObject *axis = Py_None, *sobj = NULL;
    bool drop[CUDA_MAX_NDIM] = {false};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:squeeze", kwlist, &axis, &sobj))
        return NULL;
    PyObject *seq = axis == Py_None ? NULL
                    : PyIndex_Check(axis) ? PyTuple_Pack(1, axis) : PySequence_Tuple(axis);
    if (axis != Py_None && !seq)
        return NULL;
    for (int i = 0; seq && i < (int)PyTuple_GET_SIZE(seq); i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(seq, i));
        long k = v < 0 ? v + a->ndim : v;
        if ((v == -1 && PyErr_Occurred()) || k < 0 || k >= a->ndim || a->shape[k] != 1) {
            Py_DECREF(seq);
            return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "squeeze: axis %ld "
                                                          "is not an axis of length 1", v);
        }
        drop[k] = true;
    }
    Py_XDECREF(seq);
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM];
    int n = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (axis == Py_None ? a->shape[i] == 1 : drop[i])
            continue;
        shape[n] = a->shape[i];
        strides[n++] = a->strides[i];
    }
    return array_view(a, a->data, n, shape, strides);
}

/* numba-cuda's split(section, stream=0) of a 1-d array: views of section elements each, the
 * last one shorter when section does not divide the length. */
static PyObject *split(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"section", "stream", NULL};
    long long section;
    PyObject *sobj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "L|O:split", kwlist, &section, &sobj))
        return NULL;
    if (a->ndim != 1)
        return PyErr_Format(PyExc_ValueError, "split: only a 1-d device array can be split, "
                            "not one of %d dimensions", a->ndim);
    if (section < 1)
        return PyErr_Format(PyExc_ValueError, "split: section must be at least 1, not %lld",
                            section);
    PyObject *parts = PyList_New(0);
    for (int64_t start = 0; parts && start < a->shape[0]; start += section) {
        int64_t n = a->shape[0] - start < section ? a->shape[0] - start : section;
        PyObject *v = array_view(a, a->data + start * a->strides[0], 1, &n, a->strides);
        if (!v || PyList_Append(parts, v) < 0)
            Py_CLEAR(parts);
        Py_XDECREF(v);
    }
    return parts;
}

/* numba-cuda's view(dtype): the same memory read as another dtype; one of another size needs a
 * C-contiguous array, whose last axis then holds as many of it as fit exactly. */
static PyObject *view(CudaArray *a, PyObject *arg)
{
    PyArray_Descr *d = NULL;
    if (np_ready() < 0 || !PyArray_DescrConverter(arg, &d))
        return NULL;
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM];
    memcpy(shape, a->shape, sizeof shape);
    memcpy(strides, a->strides, sizeof strides);
    int size = (int)PyDataType_ELSIZE(d);
    if (size != a->itemsize) {
        int last = a->ndim - 1;
        if (a->ndim == 0 || !is_contiguous(a->ndim, a->shape, a->strides, a->itemsize, false) ||
            size == 0 || (shape[last] * a->itemsize) % size != 0) {
            Py_DECREF(d);
            return PyErr_Format(PyExc_ValueError, "view: a dtype of another size needs a "
                                "C-contiguous array whose last axis holds a whole number of it");
        }
        shape[last] = shape[last] * a->itemsize / size;
        strides[last] = size;
    }
    CudaArray *v = array_shell((PyObject *)d, a->ndim, shape, strides, a->stream, a->device);
    if (!v)
        return NULL;   /* array_shell released d */
    v->data = a->data;
    v->base = a->base ? a->base : (PyObject *)a;
    Py_INCREF(v->base);
    return (PyObject *)v;
}

/* numba-cuda's bind(stream=0): the same array with stream as its default for copies. */
static PyObject *bind(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *sobj = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:bind", kwlist, &sobj) ||
        cuda_stream_handle(sobj, &s) < 0)
        return NULL;
    CudaArray *v = (CudaArray *)array_view(a, a->data, a->ndim, a->shape, a->strides);
    if (v)
        v->stream = sobj ? s : 0;
    return (PyObject *)v;
}

/* numba-cuda's getitem(item, stream=0) and setitem(key, value, stream=0): a[item] and
 * a[key] = value (the copy of a single element waits for it either way). */
static PyObject *getitem_method(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"item", "stream", NULL};
    PyObject *item, *sobj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:getitem", kwlist, &item, &sobj))
        return NULL;
    return getitem(a, item);
}

static PyObject *setitem_method(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"key", "value", "stream", NULL};
    PyObject *key, *value, *sobj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:setitem", kwlist, &key, &value, &sobj))
        return NULL;
    if (setitem(a, key, value) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *is_c_contig(CudaArray *a, PyObject *unused)
{
    return PyBool_FromLong(is_contiguous(a->ndim, a->shape, a->strides, a->itemsize, false));
}

static PyObject *is_f_contig(CudaArray *a, PyObject *unused)
{
    return PyBool_FromLong(is_contiguous(a->ndim, a->shape, a->strides, a->itemsize, true));
}

/* ---- attributes ---- */

/* numba-cuda's flags: {'C_CONTIGUOUS': bool, 'F_CONTIGUOUS': bool} */
static PyObject *get_flags(CudaArray *a, void *unused)
{
    bool c = is_contiguous(a->ndim, a->shape, a->strides, a->itemsize, false);
    bool f = is_contiguous(a->ndim, a->shape, a->strides, a->itemsize, true);
    return Py_BuildValue("{sOsO}", "C_CONTIGUOUS", c ? Py_True : Py_False, "F_CONTIGUOUS",
                         f ? Py_True : Py_False);
}

static PyObject *tuple_of(const int64_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *get_shape(CudaArray *a, void *u) { return tuple_of(a->shape, a->ndim); }
static PyObject *get_strides(CudaArray *a, void *u) { return tuple_of(a->strides, a->ndim); }
static PyObject *get_dtype(CudaArray *a, void *u) { return Py_NewRef(a->dtype); }
static PyObject *get_ndim(CudaArray *a, void *u) { return PyLong_FromLong(a->ndim); }
static PyObject *get_size(CudaArray *a, void *u) { return PyLong_FromLongLong(array_size(a)); }
static PyObject *get_itemsize(CudaArray *a, void *u) { return PyLong_FromLong(a->itemsize); }
static PyObject *get_device(CudaArray *a, void *u) { return PyLong_FromLong(a->device); }
static PyObject *get_ptr(CudaArray *a, void *u) { return PyLong_FromUnsignedLongLong(a->data); }

/* numba-cuda's device_ctypes_pointer: the data address as a ctypes.c_void_p (0 when empty), as
 * programs pass it to libraries bound through ctypes. */
static PyObject *get_ctypes_ptr(CudaArray *a, void *u)
{
    PyObject *ctypes = PyImport_ImportModule("ctypes");
    if (!ctypes)
        return NULL;
    PyObject *r = PyObject_CallMethod(ctypes, "c_void_p", "K",
                                      array_size(a) ? (unsigned long long)a->data : 0ULL);
    Py_DECREF(ctypes);
    return r;
}

static PyObject *get_nbytes(CudaArray *a, void *u)
{
    return PyLong_FromLongLong(array_size(a) * a->itemsize);
}

/* numba-cuda's alloc_size: the bytes the elements span (nbytes when contiguous). */
static PyObject *get_alloc_size(CudaArray *a, void *u)
{
    int64_t lo, hi;
    byte_span(a, &lo, &hi);
    return PyLong_FromLongLong(array_size(a) ? hi - lo : 0);
}

/* numba-cuda's gpu_data: a MemoryPointer over those bytes (pyjit/gpu/cudadrv/driver.py). */
static PyObject *get_gpu_data(CudaArray *a, void *u)
{
    PyObject *mod = PyImport_ImportModule("pyjit.gpu.cudadrv.driver");
    PyObject *cls = mod ? PyObject_GetAttrString(mod, "MemoryPointer") : NULL;
    PyObject *r = cls ? PyObject_CallMethod(cls, "of_array", "O", (PyObject *)a) : NULL;
    Py_XDECREF(cls);
    Py_XDECREF(mod);
    return r;
}

static PyObject *as_cuda_arg(CudaArray *a, PyObject *unused)
{
    return get_gpu_data(a, NULL);
}

static PyObject *get_stream(CudaArray *a, void *u)
{
    PyObject *h = PyLong_FromVoidPtr(a->stream);
    PyObject *core = h ? PyImport_ImportModule("pyjit._core") : NULL;
    PyObject *s = core ? PyObject_CallMethod(core, "cuda_wrap_stream", "O", h) : NULL;
    Py_XDECREF(core);
    Py_XDECREF(h);
    return s;
}

/* __cuda_array_interface__ v3: the stream is the array's (1, the legacy default stream, for
 * stream 0: the protocol reserves 0). */
static PyObject *get_cai(CudaArray *a, void *u)
{
    PyObject *shape = tuple_of(a->shape, a->ndim), *strides = NULL, *ts = NULL, *res = NULL;
    if (!shape)
        return NULL;
    if (array_layout(a) == 'C' && a->ndim > 0)
        strides = Py_NewRef(Py_None);
    else
        strides = tuple_of(a->strides, a->ndim);
    ts = PyObject_GetAttrString(a->dtype, "str");
    if (strides && ts) {
        uintptr_t stream = a->stream ? (uintptr_t)a->stream : 1;
        res = Py_BuildValue("{s:O,s:O,s:O,s:(KO),s:i,s:K}", "shape", shape, "strides", strides,
                            "typestr", ts, "data", (unsigned long long)a->data, Py_False,
                            "version", 3, "stream", (unsigned long long)stream);
    }
    if (res && PyDataType_HASFIELDS((PyArray_Descr *)a->dtype)) {   /* a record's fields */
        PyObject *descr = PyObject_GetAttrString(a->dtype, "descr");
        if (!descr || PyDict_SetItemString(res, "descr", descr) < 0)
            Py_CLEAR(res);
        Py_XDECREF(descr);
    }
    Py_DECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(ts);
    return res;
}

/* ---- DLPack ---- */

typedef struct DLDevice { int32_t device_type, device_id; } DLDevice;
typedef struct DLDataType { uint8_t code, bits; uint16_t lanes; } DLDataType;
typedef struct DLTensor {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape, *strides;   /* strides in elements */
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_COMPLEX = 5, DL_BOOL = 6, DL_CUDA = 2,
       DL_CUDA_MANAGED = 13 };

/* Our exported tensor: the managed tensor and its shape and strides in one block. */
typedef struct Export {
    DLManagedTensor m;
    int64_t dims[2 * CUDA_MAX_NDIM];
} Export;

static void export_deleter(DLManagedTensor *m)
{
    PyGILState_STATE g = PyGILState_Ensure();   /* consumers may free from any thread */
    Py_XDECREF((PyObject *)m->manager_ctx);
    PyMem_RawFree(m);
    PyGILState_Release(g);
}

static void export_capsule_free(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "dltensor")) {   /* never consumed */
        DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        m->deleter(m);
    }
}

static int dl_dtype(const Type *t, DLDataType *out)
{
    Type *d = t->array.dtype;
    out->code = d->kind == TY_BOOL ? DL_BOOL : ty_is_complex(d) ? DL_COMPLEX :
                ty_is_float(d) ? DL_FLOAT : ty_is_signed(d) ? DL_INT : DL_UINT;
    out->bits = (uint8_t)(d->kind == TY_BOOL ? 8 : ty_bits(d));
    out->lanes = 1;
    return 0;
}

static PyObject *dlpack(CudaArray *a, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *sobj = Py_None, *maxv = Py_None, *dev = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$OOOO:__dlpack__", kwlist, &sobj, &maxv,
                                     &dev, &copy))
        return NULL;
    if (!a->type)
        return PyErr_Format(PyExc_TypeError, "DLPack cannot describe dtype %R", a->dtype);
    if (copy == Py_True)
        return PyErr_Format(PyExc_BufferError, "__dlpack__(copy=True) is not supported");
    /* The consumer will use its stream: make our work visible to it first. */
    if (sobj != Py_None && !(PyLong_Check(sobj) && PyLong_AsLong(sobj) == -1)) {
        if (cuda_enter(a->device) < 0 ||
            cuda_check(cuda_api.cuStreamSynchronize(a->stream), "synchronizing for DLPack") < 0)
            return NULL;
    }
    Export *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e)
        return PyErr_NoMemory();
    DLTensor *t = &e->m.dl_tensor;
    t->data = (void *)(uintptr_t)a->data;
    t->device = (DLDevice){DL_CUDA, a->device};
    t->ndim = a->ndim;
    dl_dtype(a->type, &t->dtype);
    t->shape = e->dims;
    t->strides = e->dims + CUDA_MAX_NDIM;
    for (int i = 0; i < a->ndim; i++) {
        t->shape[i] = a->shape[i];
        t->strides[i] = a->strides[i] / a->itemsize;
        if (a->strides[i] % a->itemsize) {
            PyMem_RawFree(e);
            return PyErr_Format(PyExc_BufferError, "DLPack needs strides that are whole items");
        }
    }
    e->m.manager_ctx = Py_NewRef(a);
    e->m.deleter = export_deleter;
    PyObject *cap = PyCapsule_New(&e->m, "dltensor", export_capsule_free);
    if (!cap) {
        Py_DECREF(a);
        PyMem_RawFree(e);
    }
    return cap;
}

static PyObject *dlpack_device(CudaArray *a, PyObject *unused)
{
    return Py_BuildValue("(ii)", DL_CUDA, a->device);
}

/* ---- the type ---- */

static PyObject *repr(CudaArray *a)
{
    PyObject *shape = tuple_of(a->shape, a->ndim);
    PyObject *r = shape ? PyUnicode_FromFormat("<pyjit.gpu DeviceNDArray shape=%R dtype=%R "
                                               "on GPU %d>", shape, a->dtype, a->device) : NULL;
    Py_XDECREF(shape);
    return r;
}

/* A device array's memory belongs to this process's context: another process could not read it. */
static PyObject *refuse_pickle(PyObject *self, PyObject *unused)
{
    return PyErr_Format(PyExc_TypeError, "a device array cannot be pickled: its memory is on the "
                        "GPU of this process; copy it to the host first (a.copy_to_host()) and "
                        "send the NumPy array");
}

/* d.get_ipc_handle(): an IpcArrayHandle another process opens (pyjit.gpu.hardware builds it
 * over runtime/hostmem.c's cuda_ipc_get_handle). */
static PyObject *get_ipc_handle(CudaArray *self, PyObject *unused)
{
    PyObject *mod = PyImport_ImportModule("pyjit.gpu.hardware");
    PyObject *r = mod ? PyObject_CallMethod(mod, "_ipc_handle", "O", (PyObject *)self) : NULL;
    Py_XDECREF(mod);
    return r;
}

static PyMethodDef methods[] = {
    {"__reduce__", refuse_pickle, METH_NOARGS, "Refuses: copy to the host first."},
    {"get_ipc_handle", (PyCFunction)get_ipc_handle, METH_NOARGS,
     "An IpcArrayHandle: pickled to another process of this machine, opened there."},
    {"copy_to_host", (PyCFunction)(void (*)(void))copy_to_host, METH_VARARGS | METH_KEYWORDS,
     "copy_to_host(ary=None, stream=0): a NumPy array with the contents (into ary if given)."},
    {"__array__", (PyCFunction)(void (*)(void))as_numpy, METH_VARARGS | METH_KEYWORDS,
     "__array__(dtype=None, copy=None): a NumPy copy (np.asarray(d))."},
    {"as_cuda_arg", (PyCFunction)as_cuda_arg, METH_NOARGS,
     "numba-cuda's as_cuda_arg(): the array's gpu_data."},
    {"to_host", (PyCFunction)(void (*)(void))to_host, METH_VARARGS | METH_KEYWORDS,
     "to_host(stream=0): numba-cuda's legacy copy back into the array to_device copied from."},
    {"copy_to_device", (PyCFunction)(void (*)(void))copy_to_device, METH_VARARGS | METH_KEYWORDS,
     "copy_to_device(ary, stream=0): overwrites the contents with a host or device array's."},
    {"reshape", (PyCFunction)(void (*)(void))reshape, METH_VARARGS | METH_KEYWORDS,
     "reshape(*shape, order='C'): a view with another shape (contiguous arrays)."},
    {"ravel", (PyCFunction)(void (*)(void))ravel, METH_VARARGS | METH_KEYWORDS,
     "ravel(order='C'): a 1-d view (contiguous arrays)."},
    {"transpose", (PyCFunction)transpose, METH_VARARGS,
     "transpose(*axes): a view with the axes permuted (reversed by default)."},
    {"squeeze", (PyCFunction)(void (*)(void))squeeze, METH_VARARGS | METH_KEYWORDS,
     "squeeze(axis=None, stream=0): a view without axes of length 1."},
    {"split", (PyCFunction)(void (*)(void))split, METH_VARARGS | METH_KEYWORDS,
     "split(section, stream=0): views of section elements of a 1-d array."},
    {"view", (PyCFunction)view, METH_O, "view(dtype): the same memory as another dtype."},
    {"bind", (PyCFunction)(void (*)(void))bind, METH_VARARGS | METH_KEYWORDS,
     "bind(stream=0): the array with stream as its default."},
    {"getitem", (PyCFunction)(void (*)(void))getitem_method, METH_VARARGS | METH_KEYWORDS,
     "getitem(item, stream=0): a[item]."},
    {"setitem", (PyCFunction)(void (*)(void))setitem_method, METH_VARARGS | METH_KEYWORDS,
     "setitem(key, value, stream=0): a[key] = value."},
    {"is_c_contiguous", (PyCFunction)is_c_contig, METH_NOARGS, "C-contiguous?"},
    {"is_f_contiguous", (PyCFunction)is_f_contig, METH_NOARGS, "Fortran-contiguous?"},
    {"__dlpack__", (PyCFunction)(void (*)(void))dlpack, METH_VARARGS | METH_KEYWORDS,
     "A DLPack capsule over the array (no copy)."},
    {"__dlpack_device__", (PyCFunction)dlpack_device, METH_NOARGS, "(kDLCUDA, device id)."},
    {NULL},
};

static PyGetSetDef getset[] = {
    {"shape", (getter)get_shape, NULL, NULL, NULL},
    {"T", (getter)get_T, NULL, "the transposed view", NULL},
    {"strides", (getter)get_strides, NULL, "in bytes", NULL},
    {"dtype", (getter)get_dtype, NULL, NULL, NULL},
    {"ndim", (getter)get_ndim, NULL, NULL, NULL},
    {"size", (getter)get_size, NULL, NULL, NULL},
    {"itemsize", (getter)get_itemsize, NULL, NULL, NULL},
    {"flags", (getter)get_flags, NULL, "{'C_CONTIGUOUS': bool, 'F_CONTIGUOUS': bool}", NULL},
    {"nbytes", (getter)get_nbytes, NULL, NULL, NULL},
    {"alloc_size", (getter)get_alloc_size, NULL, "the bytes the elements span", NULL},
    {"gpu_data", (getter)get_gpu_data, NULL, "a MemoryPointer over the array's memory", NULL},
    {"device_id", (getter)get_device, NULL, "the GPU the memory is on", NULL},
    {"device_ctypes_pointer_value", (getter)get_ptr, NULL, "the data address", NULL},
    {"device_ctypes_pointer", (getter)get_ctypes_ptr, NULL, "the data address, a c_void_p", NULL},
    {"stream", (getter)get_stream, NULL, "the array's default stream", NULL},
    {"__cuda_array_interface__", (getter)get_cai, NULL, "CUDA Array Interface v3", NULL},
    {NULL},
};

/* d[i] through the sequence protocol: what `for x in d` and zip(dX, dY) read past one dimension
 * (each item a view; IndexError past the end stops the loop). */
static PyObject *item(CudaArray *a, Py_ssize_t i)
{
    PyObject *key = PyLong_FromSsize_t(i);
    PyObject *r = key ? getitem(a, key) : NULL;
    Py_XDECREF(key);
    return r;
}

/* iter(d): a 1-d array's elements as NumPy scalars, from one copy to the host made when the loop
 * starts (numba-cuda copies each element on its own); more dimensions give views of d[i]. */
static PyObject *iterate(CudaArray *a)
{
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d device array");
        return NULL;
    }
    if (a->ndim > 1)
        return PySeqIter_New((PyObject *)a);
    PyObject *none = PyTuple_New(0);
    PyObject *host = none ? copy_to_host(a, none, NULL) : NULL;
    Py_XDECREF(none);
    PyObject *it = host ? PyObject_GetIter(host) : NULL;
    Py_XDECREF(host);
    return it;
}

static PyMappingMethods as_mapping = {.mp_length = (lenfunc)length,
                                      .mp_subscript = (binaryfunc)getitem,
                                      .mp_ass_subscript = (objobjargproc)setitem};
static PySequenceMethods as_sequence = {.sq_length = (lenfunc)length, .sq_item = (ssizeargfunc)item};

PyTypeObject CudaArrayType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit._core.DeviceNDArray",
    .tp_basicsize = sizeof(CudaArray),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "An array in GPU memory (gpu.to_device, gpu.device_array, ...).",
    .tp_dealloc = (destructor)dealloc,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_repr = (reprfunc)repr,
    .tp_as_mapping = &as_mapping,
    .tp_as_sequence = &as_sequence,
    .tp_iter = (getiterfunc)iterate,
    .tp_methods = methods,
    .tp_getset = getset,
    .tp_weaklistoffset = offsetof(CudaArray, weakrefs),
};

/* ---- foreign arrays (kernel arguments, as_cuda_array) ---- */

static int read_int_tuple(PyObject *t, int64_t *out, int n)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != n) {
        PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__: bad shape or strides");
        return -1;
    }
    for (int i = 0; i < n; i++)
        if ((out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, i))) == -1 && PyErr_Occurred())
            return -1;
    return 0;
}

/* Interned names: a launch with foreign arrays reads them for every argument. */
enum { K_CAI, K_SHAPE, K_TYPESTR, K_DATA, K_STRIDES, K_MASK, K_STREAM, K_DESCR, K_DLPACK,
       K__COUNT };
static PyObject *keys[K__COUNT];

static int intern_keys(void)
{
    static const char *names[K__COUNT] = {"__cuda_array_interface__", "shape", "typestr", "data",
                                          "strides", "mask", "stream", "descr", "__dlpack__"};
    for (int i = 0; i < K__COUNT; i++)
        if (!keys[i] && !(keys[i] = PyUnicode_InternFromString(names[i])))
            return -1;
    return 0;
}

/* The interface's entries, borrowed; -1 if a lookup raised (a key whose __eq__ raises). */
static int cai_items(PyObject *cai, PyObject **items)
{
    for (int k = K_SHAPE; k <= K_DESCR; k++)
        if (!(items[k] = PyDict_GetItemWithError(cai, keys[k])) && PyErr_Occurred())
            return -1;
    return 0;
}

/* The NumPy dtype of an interface's descr (a structured array's fields, as NumPy's
 * dtype.descr lists them), or NULL: with an exception when making it failed. */
static PyObject *record_dtype(PyObject *descr)
{
    if (!descr || !PyList_Check(descr) || np_ready() < 0)
        return NULL;
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter(descr, &d))
        return NULL;
    if (!PyDataType_HASFIELDS(d))
        Py_CLEAR(d);
    return (PyObject *)d;
}

static int read_cai(PyObject *cai, CudaForeign *f, CUstream consumer)
{
    PyObject *items[K__COUNT] = {0};
    if (cai_items(cai, items) < 0)
        return -1;
    PyObject *shape = items[K_SHAPE], *ts = items[K_TYPESTR], *data = items[K_DATA];
    PyObject *strides = items[K_STRIDES], *mask = items[K_MASK], *stream = items[K_STREAM];
    if (!shape || !ts || !data || !PyTuple_Check(shape) || !PyUnicode_Check(ts) ||
        !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 || (mask && mask != Py_None)) {
        PyErr_SetString(PyExc_ValueError, "a __cuda_array_interface__ without shape, typestr "
                        "or data, or with a mask (not supported)");
        return -1;
    }
    f->ndim = (int)PyTuple_GET_SIZE(shape);
    if (f->ndim > CUDA_MAX_NDIM || read_int_tuple(shape, f->shape, f->ndim) < 0)
        return -1;
    f->data = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
    if (PyErr_Occurred())
        return -1;
    int k = kind_of_typestr(PyUnicode_AsUTF8(ts));
    PyObject *rec = k < 0 ? record_dtype(items[K_DESCR]) : NULL;
    if (k < 0 && !rec) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "a GPU array of typestr %U cannot be a kernel "
                         "argument", ts);
        return -1;
    }
    int itemsize = rec ? (int)PyDataType_ELSIZE((PyArray_Descr *)rec) : ty_itemsize(ty_scalar((TypeKind)k));
    if (strides && strides != Py_None) {
        if (read_int_tuple(strides, f->strides, f->ndim) < 0)
            goto fail;
    } else {
        fill_strides(f->ndim, f->shape, f->strides, itemsize, false);
    }
    int readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    if (readonly < 0)
        goto fail;
    char layout = cuda_layout(f->ndim, f->shape, f->strides, itemsize);
    f->type = rec ? rt_record_array_type(rec, f->ndim, layout, readonly == 1)
                  : array_type(k, f->ndim, layout, readonly == 1);
    Py_CLEAR(rec);
    if (!f->type) {
        PyErr_Format(PyExc_TypeError, "a GPU array of typestr %U cannot be a kernel argument", ts);
        return -1;
    }
    /* v3: work on the producer's stream must be done before ours uses the data */
    if (stream && stream != Py_None) {
        CUstream ps = PyLong_AsVoidPtr(stream);
        if (PyErr_Occurred())
            return -1;
        bool same = ps == consumer || (ps == (CUstream)1 && consumer == NULL);
        if (!same && cuda_check(cuda_api.cuStreamSynchronize(ps), "waiting for an array's "
                                "stream") < 0)
            return -1;
    }
    return 1;
fail:
    Py_XDECREF(rec);
    return -1;
}

static int read_dlpack(PyObject *obj, CudaForeign *f, CUstream consumer)
{
    PyObject *s = PyLong_FromVoidPtr(consumer ? consumer : (CUstream)1);
    PyObject *kw = s ? Py_BuildValue("{s:O}", "stream", s) : NULL;
    PyObject *meth = kw ? PyObject_GetAttrString(obj, "__dlpack__") : NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *cap = meth && empty ? PyObject_Call(meth, empty, kw) : NULL;
    Py_XDECREF(s);
    Py_XDECREF(kw);
    Py_XDECREF(meth);
    Py_XDECREF(empty);
    if (!cap)
        return -1;
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
    if (!m) {
        Py_DECREF(cap);
        return -1;
    }
    f->capsule = cap;
    DLTensor *t = &m->dl_tensor;
    static const TypeKind ints[] = {TY_INT8, TY_INT16, TY_INT32, TY_INT64};
    static const TypeKind uints[] = {TY_UINT8, TY_UINT16, TY_UINT32, TY_UINT64};
    int lg = t->dtype.bits == 8 ? 0 : t->dtype.bits == 16 ? 1 : t->dtype.bits == 32 ? 2 :
             t->dtype.bits == 64 ? 3 : t->dtype.bits == 128 ? 4 : -1;
    int k = -1;
    if (t->dtype.lanes == 1 && lg >= 0) {
        if (t->dtype.code == DL_INT && lg < 4) k = ints[lg];
        else if (t->dtype.code == DL_UINT && lg < 4) k = uints[lg];
        else if (t->dtype.code == DL_BOOL && lg == 0) k = TY_BOOL;
        else if (t->dtype.code == DL_FLOAT && lg >= 1 && lg <= 3) k = TY_FLOAT16 + lg - 1;
        else if (t->dtype.code == DL_COMPLEX && lg >= 3) k = TY_COMPLEX64 + lg - 3;
    }
    if ((t->device.device_type != DL_CUDA && t->device.device_type != DL_CUDA_MANAGED) ||
        k < 0 || t->ndim > CUDA_MAX_NDIM) {
        PyErr_Format(PyExc_TypeError, "a DLPack tensor of %.100s is not a GPU array of a dtype "
                     "kernels take", Py_TYPE(obj)->tp_name);
        return -1;
    }
    int itemsize = ty_itemsize(ty_scalar((TypeKind)k));
    f->ndim = t->ndim;
    f->data = (CUdeviceptr)(uintptr_t)t->data + t->byte_offset;
    for (int i = 0; i < f->ndim; i++) {
        f->shape[i] = t->shape[i];
        f->strides[i] = t->strides ? t->strides[i] * itemsize : 0;
    }
    if (!t->strides)
        fill_strides(f->ndim, f->shape, f->strides, itemsize, false);
    f->type = array_type(k, f->ndim, cuda_layout(f->ndim, f->shape, f->strides, itemsize),
                         false);
    return 1;
}

int cuda_read_foreign(PyObject *obj, CudaForeign *f, CUstream consumer)
{
    f->capsule = NULL;
    if (intern_keys() < 0)
        return -1;
    PyObject *cai = PyObject_GetAttr(obj, keys[K_CAI]);
    if (cai) {
        int rc = PyDict_Check(cai) ? read_cai(cai, f, consumer) : 0;
        Py_DECREF(cai);
        return rc;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    PyErr_Clear();
    if (!PyObject_HasAttr(obj, keys[K_DLPACK]))
        return 0;
    int rc = read_dlpack(obj, f, consumer);
    if (rc < 0)
        cuda_release_foreign(f);
    return rc;
}

void cuda_release_foreign(CudaForeign *f)
{
    if (!f->capsule)
        return;
    /* Called on error paths too: the error pending (a CPU tensor's TypeError, a failed launch)
     * is kept, and nothing the release itself raises replaces it. */
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *pending = PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
#endif
    /* Consumed: tell the producer it may free its side (the Python object still holds the
     * memory, and the launch is ordered before any later use of it on the stream). */
    DLManagedTensor *m = PyCapsule_GetPointer(f->capsule, "dltensor");
    if (m && PyCapsule_SetName(f->capsule, "used_dltensor") == 0 && m->deleter)
        m->deleter(m);
    PyErr_Clear();
    Py_CLEAR(f->capsule);
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(pending);
#else
    PyErr_Restore(type, value, traceback);
#endif
}

/* gpu.as_cuda_array(obj): a DeviceArray view of another library's GPU array (no copy); obj
 * keeps the memory alive. */
static PyObject *py_as_cuda_array(PyObject *self, PyObject *obj)
{
    CudaForeign f;
    if (Py_TYPE(obj) == &CudaArrayType)
        return Py_NewRef(obj);
    if (np_ready() < 0 || cuda_ensure() < 0)
        return NULL;
    int rc = cuda_read_foreign(obj, &f, NULL);
    if (rc <= 0)
        return rc < 0 ? NULL : PyErr_Format(PyExc_TypeError, "%.100s is not a GPU array (it "
                                            "has no __cuda_array_interface__ or __dlpack__)",
                                            Py_TYPE(obj)->tp_name);
    cuda_release_foreign(&f);
    PyObject *dtype = NULL;
    PyObject *name = PyUnicode_FromString(f.type->array.dtype->name);
    if (name) {
        dtype = to_dtype(name);
        Py_DECREF(name);
    }
    if (!dtype)
        return NULL;
    CudaArray *a = array_shell(dtype, f.ndim, f.shape, f.strides, NULL, cuda_current_device());
    if (a) {
        a->data = f.data;
        a->base = Py_NewRef(obj);
    }
    return (PyObject *)a;
}

/* _core.cuda_deferred_frees(): how many allocations wait for the end of a defer_cleanup block. */
static PyObject *py_deferred_frees(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromSize_t(ndeferred);
}

static PyObject *py_is_cuda_array(PyObject *self, PyObject *obj)
{
    return PyBool_FromLong(Py_TYPE(obj) == &CudaArrayType ||
                           PyObject_HasAttrString(obj, "__cuda_array_interface__"));
}

static PyMethodDef module_methods[] = {
    {"cuda_to_device", (PyCFunction)(void (*)(void))py_to_device, METH_VARARGS | METH_KEYWORDS,
     "to_device(obj, stream=0, copy=True, to=None)"},
    {"cuda_device_array", (PyCFunction)(void (*)(void))py_device_array,
     METH_VARARGS | METH_KEYWORDS, "device_array(shape, dtype=float64, strides=None, order='C', "
     "stream=0)"},
    {"cuda_device_array_like", (PyCFunction)(void (*)(void))py_device_array_like,
     METH_VARARGS | METH_KEYWORDS, "device_array_like(ary, stream=0)"},
    {"cuda_pinned_array", (PyCFunction)(void (*)(void))py_pinned_array,
     METH_VARARGS | METH_KEYWORDS, "pinned_array(shape, dtype=float64, strides=None, order='C')"},
    {"cuda_as_cuda_array", py_as_cuda_array, METH_O, "as_cuda_array(obj): a view, no copy"},
    {"cuda_is_cuda_array", py_is_cuda_array, METH_O, "is_cuda_array(obj)"},
    {"cuda_defer_cleanup", py_defer_cleanup, METH_O,
     "cuda_defer_cleanup(entering): a defer_cleanup() block begins (True) or ends (False)"},
    {"cuda_deferred_frees", py_deferred_frees, METH_NOARGS,
     "cuda_deferred_frees(): allocations waiting for the end of a defer_cleanup() block"},
    {NULL, NULL, 0, NULL},
};

int cuda_devarray_init(PyObject *module)
{
    if (PyType_Ready(&CudaArrayType) < 0 || PyModule_AddFunctions(module, module_methods) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "DeviceNDArray", (PyObject *)&CudaArrayType);
}
