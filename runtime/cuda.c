/* cuda.c: the CUDA driver, devices, contexts, streams and events.
 *
 * The driver is loaded with dlopen on first use, never at import, so pyjit imports and runs its
 * CPU path on machines without a GPU; without a driver every GPU operation raises
 * GpuUnavailableError naming PYJIT_SIMULATOR=1. The driver's functions are listed once, in
 * cuda_api.def, and resolved together into cuda_api (the one per-process table).
 *
 * Each device is used through its primary context (the one the CUDA runtime, CuPy and PyTorch
 * also use, so their pointers and streams work here), retained on first use and made current
 * in a thread when that thread first touches the device. gpu.select_device is per thread. */
#include "runtime/cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

CudaApi cuda_api;

/* Per-process state: the driver is loaded once and the primary contexts live as long as the
 * process. Written under the GIL. */
static int driver_state;            /* 0 not tried, 1 usable, -1 unusable */
static char driver_reason[512];     /* why it is unusable */
static int device_count;
static CUcontext primary[CUDA_MAX_DEVICES];
static CudaDeviceInfo dev_info[CUDA_MAX_DEVICES];
static bool dev_info_ready[CUDA_MAX_DEVICES];
static _Thread_local int tls_device;

static const char SIMULATOR_HINT[] =
    "set PYJIT_SIMULATOR=1 before importing pyjit to run kernels in the simulator";

/* ---- loading ---- */

static void *open_driver(void)
{
    static const char *paths[] = {"libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1",
                                  "libcuda.so"};
    const char *env = getenv("PYJIT_CUDA_DRIVER");   /* a test may point at no driver */
    if (env && *env)
        return dlopen(env, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        void *h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
        if (i == 0)   /* the first failure says most */
            snprintf(driver_reason, sizeof driver_reason, "no CUDA driver (%s)", dlerror());
    }
    return NULL;
}

static int resolve_table(void *lib)
{
#define CUDA_FN(field, symbol, params)                                                    \
    cuda_api.field = (CUresult(*) params)dlsym(lib, symbol);                              \
    if (!cuda_api.field) {                                                                \
        snprintf(driver_reason, sizeof driver_reason,                                     \
                 "the CUDA driver lacks %s (too old a driver?)", symbol);                 \
        return -1;                                                                        \
    }
#include "runtime/cuda_api.def"
#undef CUDA_FN
    return 0;
}

static void load_driver(void)
{
    void *lib = open_driver();
    driver_state = -1;
    if (!lib) {
        if (!driver_reason[0])
            snprintf(driver_reason, sizeof driver_reason, "no CUDA driver (%s)", dlerror());
        return;
    }
    if (resolve_table(lib) < 0)
        return;
    CUresult r = cuda_api.cuInit(0);
    if (r == CUDA_SUCCESS)
        r = cuda_api.cuDeviceGetCount(&device_count);
    if (r != CUDA_SUCCESS) {
        const char *name = "?";
        cuda_api.cuGetErrorName(r, &name);
        snprintf(driver_reason, sizeof driver_reason, "the CUDA driver did not initialise (%s)",
                 name ? name : "?");
        return;
    }
    if (device_count <= 0) {
        snprintf(driver_reason, sizeof driver_reason, "the CUDA driver sees no GPU");
        return;
    }
    if (device_count > CUDA_MAX_DEVICES)
        device_count = CUDA_MAX_DEVICES;
    driver_state = 1;
}

bool cuda_available(void)
{
    if (driver_state == 0)
        load_driver();
    return driver_state == 1;
}

int cuda_ensure(void)
{
    if (cuda_available())
        return 0;
    PyObject *cls = cuda_error_class("GpuUnavailableError");
    if (cls)
        PyErr_Format(cls, "%s; %s", driver_reason, SIMULATOR_HINT);
    return -1;
}

/* ---- errors ---- */

PyObject *cuda_error_class(const char *name)
{
    static PyObject *errors_module;
    if (!errors_module && !(errors_module = PyImport_ImportModule("pyjit.gpu.errors")))
        return NULL;
    PyObject *cls = PyObject_GetAttrString(errors_module, name);
    Py_XDECREF(cls);   /* the module keeps it alive: a borrowed reference */
    return cls;
}

static PyObject *last_launched;   /* the name of the kernel launched last */

void cuda_note_launch(PyObject *kernel_name)
{
    if (kernel_name != last_launched)
        Py_XSETREF(last_launched, Py_XNewRef(kernel_name));
}

/* Errors a kernel leaves behind (the context is unusable after them). */
static bool is_kernel_fault(CUresult r)
{
    return r == 700 || r == 702 || (r >= 710 && r <= 719);
}

PyObject *cuda_raise(CUresult r, const char *what, const char *kernel)
{
    if (!kernel && is_kernel_fault(r) && last_launched)
        kernel = PyUnicode_AsUTF8(last_launched);

    const char *name = NULL, *text = NULL;
    if (driver_state == 1) {
        cuda_api.cuGetErrorName(r, &name);
        cuda_api.cuGetErrorString(r, &text);
    }
    PyObject *cls = cuda_error_class(r == CUDA_ERROR_OUT_OF_MEMORY ? "CudaMemoryError"
                                                                    : "CudaError");
    if (!cls)
        return NULL;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s: %s: %s%s%s%s%s", what, name ? name : "CUDA_ERROR_UNKNOWN",
             text ? text : "unknown error", kernel ? " (kernel '" : "", kernel ? kernel : "",
             kernel ? "')" : "", is_kernel_fault(r) ? "; the GPU context cannot be used "
             "after this error: restart the process (PYJIT_DEBUG=1 checks array bounds)" : "");
    PyObject *exc = PyObject_CallFunction(cls, "ssi", msg, name ? name : "CUDA_ERROR_UNKNOWN",
                                          (int)r);
    if (!exc)
        return NULL;
    PyObject *kname = kernel ? PyUnicode_FromString(kernel) : Py_NewRef(Py_None);
    if (!kname || PyObject_SetAttrString(exc, "kernel", kname) < 0)
        PyErr_Clear();
    Py_XDECREF(kname);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

int cuda_check(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return 0;
    cuda_raise(r, what, NULL);
    return -1;
}

/* ---- devices and contexts ---- */

int cuda_current_device(void)
{
    return tls_device;
}

static int check_device(int device)
{
    if (cuda_ensure() < 0)
        return -1;
    if (device < 0 || device >= device_count) {
        PyErr_Format(PyExc_ValueError, "no GPU %d: this machine has %d (0 to %d)", device,
                     device_count, device_count - 1);
        return -1;
    }
    return 0;
}

enum { MEMPOOL_ATTR_RELEASE_THRESHOLD = 4 };

/* NumPy arguments of a launch get their device copies from the device's default memory pool
 * (cuMemAllocAsync). By default the pool returns its memory to the system at every
 * synchronization, so each launch would map its buffers afresh; keeping up to a quarter of the
 * GPU's memory in the pool makes the next launch reuse them. */
static void keep_pool_memory(CUdevice dev)
{
    CUmemoryPool pool;
    size_t total = 0;
    if (cuda_api.cuDeviceGetDefaultMemPool(&pool, dev) != CUDA_SUCCESS ||
        cuda_api.cuDeviceTotalMem(&total, dev) != CUDA_SUCCESS)
        return;
    unsigned long long keep = total / 4;
    cuda_api.cuMemPoolSetAttribute(pool, MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
}

int cuda_enter(int device)
{
    if (driver_state == 1 && (unsigned)device < (unsigned)device_count && primary[device]) {
        /* Another library may have changed the thread's context: ask, it costs little. */
        CUcontext cur = NULL;
        if (cuda_api.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == primary[device])
            return 0;
        return cuda_check(cuda_api.cuCtxSetCurrent(primary[device]), "making the context current");
    }
    if (check_device(device) < 0)
        return -1;
    CUdevice dev;
    if (cuda_check(cuda_api.cuDeviceGet(&dev, device), "getting the device") < 0 ||
        cuda_check(cuda_api.cuDevicePrimaryCtxRetain(&primary[device], dev),
                   "creating the device's context") < 0)
        return -1;
    keep_pool_memory(dev);
    return cuda_check(cuda_api.cuCtxSetCurrent(primary[device]), "making the context current");
}

/* CU_DEVICE_ATTRIBUTE_* numbers (the driver's ABI, stable). */
enum {
    ATTR_MAX_THREADS_PER_BLOCK = 1, ATTR_MAX_BLOCK_X = 2, ATTR_MAX_GRID_X = 5,
    ATTR_MAX_SHARED_PER_BLOCK = 8, ATTR_WARP_SIZE = 10, ATTR_MULTIPROCESSORS = 16,
    ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76, ATTR_MAX_SHARED_PER_BLOCK_OPTIN = 97,
};

static int read_info(int device, CudaDeviceInfo *d)
{
    struct { int attr; int *out; } wanted[] = {
        {ATTR_MAX_THREADS_PER_BLOCK, &d->max_threads_per_block},
        {ATTR_MAX_BLOCK_X, &d->max_block[0]}, {ATTR_MAX_BLOCK_X + 1, &d->max_block[1]},
        {ATTR_MAX_BLOCK_X + 2, &d->max_block[2]}, {ATTR_MAX_GRID_X, &d->max_grid[0]},
        {ATTR_MAX_GRID_X + 1, &d->max_grid[1]}, {ATTR_MAX_GRID_X + 2, &d->max_grid[2]},
        {ATTR_MAX_SHARED_PER_BLOCK, &d->max_shared_per_block},
        {ATTR_MAX_SHARED_PER_BLOCK_OPTIN, &d->max_shared_per_block_optin},
        {ATTR_CC_MAJOR, &d->cc_major}, {ATTR_CC_MINOR, &d->cc_minor},
        {ATTR_WARP_SIZE, &d->warp_size}, {ATTR_MULTIPROCESSORS, &d->multiprocessors},
    };
    CUdevice dev;
    if (cuda_check(cuda_api.cuDeviceGet(&dev, device), "getting the device") < 0)
        return -1;
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (cuda_check(cuda_api.cuDeviceGetAttribute(wanted[i].out, wanted[i].attr, dev),
                       "reading a device attribute") < 0)
            return -1;
    if (d->max_shared_per_block_optin < d->max_shared_per_block)
        d->max_shared_per_block_optin = d->max_shared_per_block;
    return 0;
}

const CudaDeviceInfo *cuda_device_info(int device)
{
    if (check_device(device) < 0)
        return NULL;
    if (!dev_info_ready[device]) {
        if (read_info(device, &dev_info[device]) < 0)
            return NULL;
        dev_info_ready[device] = true;
    }
    return &dev_info[device];
}

/* ---- streams ---- */

typedef struct CudaStream {
    PyObject_HEAD
    CUstream handle;
    int device;
    bool owned;             /* created here: destroyed with the object */
} CudaStream;

static PyTypeObject CudaStreamType;

static PyObject *stream_wrap(CUstream handle, int device, bool owned)
{
    CudaStream *s = PyObject_New(CudaStream, &CudaStreamType);
    if (s) {
        s->handle = handle;
        s->device = device;
        s->owned = owned;
    }
    return (PyObject *)s;
}

static PyObject *stream_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"non_blocking", NULL};
    int non_blocking = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p:Stream", kwlist, &non_blocking))
        return NULL;
    int device = tls_device;
    CUstream h;
    if (cuda_enter(device) < 0 ||
        cuda_check(cuda_api.cuStreamCreate(&h, non_blocking ? 1 : 0), "creating a stream") < 0)
        return NULL;
    return stream_wrap(h, device, true);
}

static void stream_dealloc(CudaStream *s)
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);   /* a dealloc must not disturb a pending exception */
    if (s->owned && driver_state == 1 && cuda_enter(s->device) == 0)
        cuda_api.cuStreamDestroy(s->handle);
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
    PyObject_Free(s);
}

/* ---- stream callbacks ----
 * stream.add_callback(callback, arg) runs callback(stream, status, arg) once the work queued on
 * the stream before it is done. The driver calls back on a thread of its own, which must not
 * wait for the GIL: the thread that holds it may be waiting in the driver for that very stream.
 * So the driver's thread only queues the callback, and the interpreter runs it in the main thread
 * (a pending call); synchronizing a stream or the device runs those queued by then, so that
 * after stream.synchronize() every callback added before it has run. */

typedef struct StreamCallback {
    struct StreamCallback *next;
    PyObject *stream, *callback, *arg;      /* owned */
    CUresult status;
} StreamCallback;

/* Per process: the driver's threads append, the thread holding the GIL takes. */
static pthread_mutex_t callbacks_lock = PTHREAD_MUTEX_INITIALIZER;
static StreamCallback *callbacks_head, **callbacks_tail = &callbacks_head;

static StreamCallback *take_callback(void)
{
    pthread_mutex_lock(&callbacks_lock);
    StreamCallback *cb = callbacks_head;
    if (cb && !(callbacks_head = cb->next))
        callbacks_tail = &callbacks_head;
    pthread_mutex_unlock(&callbacks_lock);
    return cb;
}

/* With the GIL. */
static void free_callback(StreamCallback *cb)
{
    Py_DECREF(cb->stream);
    Py_DECREF(cb->callback);
    Py_DECREF(cb->arg);
    PyMem_RawFree(cb);
}

/* Runs the callbacks whose streams have reached them, in order; with the GIL. An exception a
 * callback raises is reported as unraisable, as it would be on the driver's thread. */
static int run_stream_callbacks(void *unused)
{
    StreamCallback *cb;
    while ((cb = take_callback())) {
        PyObject *r = PyObject_CallFunction(cb->callback, "OiO", cb->stream, (int)cb->status,
                                            cb->arg);
        if (!r)
            PyErr_WriteUnraisable(cb->callback);
        Py_XDECREF(r);
        free_callback(cb);
    }
    return 0;
}

/* On the driver's thread: no GIL, no CUDA calls. */
static void stream_callback_reached(CUstream stream, CUresult status, void *data)
{
    StreamCallback *cb = data;
    cb->status = status;
    pthread_mutex_lock(&callbacks_lock);
    *callbacks_tail = cb;
    callbacks_tail = &cb->next;
    pthread_mutex_unlock(&callbacks_lock);
    if (Py_IsInitialized())     /* not while the interpreter goes away at exit */
        Py_AddPendingCall(run_stream_callbacks, NULL);   /* its queue full: a synchronize runs it */
}

static PyObject *stream_add_callback(CudaStream *s, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"callback", "arg", NULL};
    PyObject *callback, *arg = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:add_callback", kwlist, &callback, &arg))
        return NULL;
    if (!PyCallable_Check(callback))
        return PyErr_Format(PyExc_TypeError, "stream.add_callback: callback must be callable "
                            "as callback(stream, status, arg), not %.100s",
                            Py_TYPE(callback)->tp_name);
    if (cuda_enter(s->device) < 0)
        return NULL;
    StreamCallback *cb = PyMem_RawCalloc(1, sizeof *cb);
    if (!cb)
        return PyErr_NoMemory();
    cb->stream = Py_NewRef((PyObject *)s);
    cb->callback = Py_NewRef(callback);
    cb->arg = Py_NewRef(arg);
    CUresult r = cuda_api.cuStreamAddCallback(s->handle, stream_callback_reached, cb, 0);
    if (r != CUDA_SUCCESS) {
        free_callback(cb);
        return cuda_raise(r, "adding a stream callback", NULL);
    }
    Py_RETURN_NONE;
}

static PyObject *stream_synchronize(CudaStream *s, PyObject *unused)
{
    if (cuda_enter(s->device) < 0)
        return NULL;
    CUresult r;
    Py_BEGIN_ALLOW_THREADS
    r = cuda_api.cuStreamSynchronize(s->handle);
    Py_END_ALLOW_THREADS
    if (r != CUDA_SUCCESS)
        return cuda_raise(r, "synchronizing a stream", NULL);
    if (cuda_fault_check() < 0)   /* an exception a kernel raised (kernel_errors.c) */
        return NULL;
    run_stream_callbacks(NULL);
    Py_RETURN_NONE;
}

static PyObject *stream_query(CudaStream *s, PyObject *unused)
{
    if (cuda_enter(s->device) < 0)
        return NULL;
    CUresult r = cuda_api.cuStreamQuery(s->handle);
    if (r == CUDA_ERROR_NOT_READY)
        Py_RETURN_FALSE;
    if (r != CUDA_SUCCESS)
        return cuda_raise(r, "querying a stream", NULL);
    run_stream_callbacks(NULL);
    Py_RETURN_TRUE;
}

/* stream.async_done(): numba-cuda's awaitable of the stream's work, a future of the running
 * asyncio loop resolved with the stream (pyjit.gpu._hostapi.py, shared with the simulators). */
static PyObject *stream_async_done(CudaStream *s, PyObject *unused)
{
    PyObject *mod = PyImport_ImportModule("pyjit.gpu._hostapi");
    if (!mod)
        return NULL;
    PyObject *future = PyObject_CallMethod(mod, "async_done", "O", (PyObject *)s);
    Py_DECREF(mod);
    return future;
}

static PyObject *stream_get_handle(CudaStream *s, void *unused)
{
    return PyLong_FromVoidPtr(s->handle);
}

static PyObject *stream_int(CudaStream *s)
{
    return PyLong_FromVoidPtr(s->handle);
}

static PyObject *stream_repr(CudaStream *s)
{
    const char *kind = s->handle == NULL ? "default" :
                       s->handle == (CUstream)1 ? "legacy default" :
                       s->handle == (CUstream)2 ? "per-thread default" :
                       s->owned ? "stream" : "external";
    return PyUnicode_FromFormat("<pyjit.gpu Stream %s %p on GPU %d>", kind, s->handle, s->device);
}

/* with stream.auto_synchronize(): ... synchronizes the stream at the end of the block. */
static PyObject *stream_enter(CudaStream *s, PyObject *unused)
{
    return Py_NewRef(s);
}

static PyObject *stream_exit(CudaStream *s, PyObject *args)
{
    PyObject *r = stream_synchronize(s, NULL);
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_FALSE;
}

static PyMethodDef stream_methods[] = {
    {"synchronize", (PyCFunction)stream_synchronize, METH_NOARGS,
     "Waits until everything queued on the stream has run."},
    {"auto_synchronize", (PyCFunction)stream_enter, METH_NOARGS,
     "with stream.auto_synchronize(): the stream is synchronized when the block ends."},
    {"__enter__", (PyCFunction)stream_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)stream_exit, METH_VARARGS, NULL},
    {"query", (PyCFunction)stream_query, METH_NOARGS, "True when the stream's work is done."},
    {"add_callback", (PyCFunction)(void (*)(void))stream_add_callback,
     METH_VARARGS | METH_KEYWORDS,
     "add_callback(callback, arg=None): callback(stream, status, arg) runs, in the main "
     "thread, once the work queued on the stream before it is done."},
    {"async_done", (PyCFunction)stream_async_done, METH_NOARGS,
     "An asyncio future resolved with the stream when its work is done."},
    {NULL},
};

static PyGetSetDef stream_getset[] = {
    {"handle", (getter)stream_get_handle, NULL, "The CUstream handle, as an int.", NULL},
    {"ptr", (getter)stream_get_handle, NULL, "The CUstream handle (CuPy's name).", NULL},
    {NULL},
};

static PyNumberMethods stream_as_number = {.nb_int = (unaryfunc)stream_int,
                                           .nb_index = (unaryfunc)stream_int};

static PyTypeObject CudaStreamType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit._core.Stream",
    .tp_basicsize = sizeof(CudaStream),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A CUDA stream: Stream() makes one; gpu.default_stream() is stream 0.",
    .tp_new = stream_new,
    .tp_dealloc = (destructor)stream_dealloc,
    .tp_repr = (reprfunc)stream_repr,
    .tp_methods = stream_methods,
    .tp_getset = stream_getset,
    .tp_as_number = &stream_as_number,
};

int cuda_stream_handle(PyObject *obj, CUstream *out)
{
    if (obj == NULL || obj == Py_None) {
        *out = NULL;
        return 0;
    }
    if (Py_TYPE(obj) == &CudaStreamType) {
        *out = ((CudaStream *)obj)->handle;
        return 0;
    }
    if (PyLong_Check(obj)) {
        *out = PyLong_AsVoidPtr(obj);
        return *out == NULL && PyErr_Occurred() ? -1 : 0;
    }
    /* Another library's stream (CuPy: .ptr; PyTorch: .cuda_stream; Numba: .handle.value). */
    static const char *attrs[] = {"ptr", "cuda_stream", "handle"};
    for (size_t i = 0; i < 3; i++) {
        PyObject *v = PyObject_GetAttrString(obj, attrs[i]);
        if (!v) {
            PyErr_Clear();
            continue;
        }
        if (!PyLong_Check(v)) {
            PyObject *inner = PyObject_GetAttrString(v, "value");   /* a ctypes c_void_p */
            Py_SETREF(v, inner);
            if (!v || (v != Py_None && !PyLong_Check(v))) {
                Py_XDECREF(v);
                PyErr_Clear();
                continue;
            }
        }
        *out = v == Py_None ? NULL : PyLong_AsVoidPtr(v);
        Py_DECREF(v);
        return PyErr_Occurred() ? -1 : 0;
    }
    PyErr_Format(PyExc_TypeError, "a stream must be a pyjit.gpu stream, an int handle or None, "
                 "not %.100s", Py_TYPE(obj)->tp_name);
    return -1;
}

/* ---- events ---- */

typedef struct CudaEvent {
    PyObject_HEAD
    CUevent handle;
    int device;
} CudaEvent;

enum { EVENT_DISABLE_TIMING = 2 };

static PyObject *event_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"timing", NULL};
    int timing = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p:Event", kwlist, &timing))
        return NULL;
    int device = tls_device;
    CUevent h;
    if (cuda_enter(device) < 0 ||
        cuda_check(cuda_api.cuEventCreate(&h, timing ? 0 : EVENT_DISABLE_TIMING),
                   "creating an event") < 0)
        return NULL;
    CudaEvent *e = (CudaEvent *)type->tp_alloc(type, 0);
    if (!e) {
        cuda_api.cuEventDestroy(h);
        return NULL;
    }
    e->handle = h;
    e->device = device;
    return (PyObject *)e;
}

static void event_dealloc(CudaEvent *e)
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    if (e->handle && cuda_enter(e->device) == 0)
        cuda_api.cuEventDestroy(e->handle);
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
    Py_TYPE(e)->tp_free(e);
}

static PyObject *event_record(CudaEvent *e, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *sobj = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:record", kwlist, &sobj) ||
        cuda_stream_handle(sobj, &s) < 0 || cuda_enter(e->device) < 0 ||
        cuda_check(cuda_api.cuEventRecord(e->handle, s), "recording an event") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *event_wait(CudaEvent *e, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *sobj = NULL;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:wait", kwlist, &sobj) ||
        cuda_stream_handle(sobj, &s) < 0 || cuda_enter(e->device) < 0 ||
        cuda_check(cuda_api.cuStreamWaitEvent(s, e->handle, 0), "waiting on an event") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *event_synchronize(CudaEvent *e, PyObject *unused)
{
    CUresult r;
    if (cuda_enter(e->device) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    r = cuda_api.cuEventSynchronize(e->handle);
    Py_END_ALLOW_THREADS
    if (r != CUDA_SUCCESS)
        return cuda_raise(r, "synchronizing an event", NULL);
    Py_RETURN_NONE;
}

static PyObject *event_query(CudaEvent *e, PyObject *unused)
{
    if (cuda_enter(e->device) < 0)
        return NULL;
    CUresult r = cuda_api.cuEventQuery(e->handle);
    if (r == CUDA_ERROR_NOT_READY)
        Py_RETURN_FALSE;
    if (r != CUDA_SUCCESS)
        return cuda_raise(r, "querying an event", NULL);
    Py_RETURN_TRUE;
}

static PyTypeObject CudaEventType;

/* start.elapsed_time(end) -> milliseconds between the two recorded events. */
static PyObject *event_elapsed_time(CudaEvent *e, PyObject *end)
{
    if (Py_TYPE(end) != &CudaEventType)
        return PyErr_Format(PyExc_TypeError, "elapsed_time() takes an event, not %.100s",
                            Py_TYPE(end)->tp_name);
    float ms = 0;
    if (cuda_enter(e->device) < 0 ||
        cuda_check(cuda_api.cuEventElapsedTime(&ms, e->handle, ((CudaEvent *)end)->handle),
                   "measuring the time between events") < 0)
        return NULL;
    return PyFloat_FromDouble(ms);
}

static PyMethodDef event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))event_record, METH_VARARGS | METH_KEYWORDS,
     "record(stream=0): marks the point the stream has reached."},
    {"wait", (PyCFunction)(void (*)(void))event_wait, METH_VARARGS | METH_KEYWORDS,
     "wait(stream=0): later work on the stream waits for this event."},
    {"synchronize", (PyCFunction)event_synchronize, METH_NOARGS, "Waits for the event."},
    {"query", (PyCFunction)event_query, METH_NOARGS, "True when the event has happened."},
    {"elapsed_time", (PyCFunction)event_elapsed_time, METH_O,
     "elapsed_time(end): milliseconds from this event to end."},
    {NULL},
};

static PyTypeObject CudaEventType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit._core.Event",
    .tp_basicsize = sizeof(CudaEvent),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A CUDA event: Event(timing=True).",
    .tp_new = event_new,
    .tp_dealloc = (destructor)event_dealloc,
    .tp_methods = event_methods,
};

/* ---- module functions ---- */

static PyObject *py_is_available(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(cuda_available());
}

static PyObject *py_unavailable_reason(PyObject *self, PyObject *unused)
{
    if (cuda_available())
        Py_RETURN_NONE;
    return PyUnicode_FromFormat("%s; %s", driver_reason, SIMULATOR_HINT);
}

static PyObject *py_device_count(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(cuda_available() ? device_count : 0);
}

static PyObject *py_driver_version(PyObject *self, PyObject *unused)
{
    int v = 0;
    if (cuda_ensure() < 0 || cuda_check(cuda_api.cuDriverGetVersion(&v), "driver version") < 0)
        return NULL;
    return PyLong_FromLong(v);
}

/* cuda_device_info(i) -> dict: name, compute_capability, memory and launch limits. */
static PyObject *py_device_info(PyObject *self, PyObject *arg)
{
    int i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    const CudaDeviceInfo *d = cuda_device_info(i);
    if (!d)
        return NULL;
    char name[256] = "";
    size_t mem = 0;
    CUdevice dev;
    CUuuid uuid;
    if (cuda_check(cuda_api.cuDeviceGet(&dev, i), "getting the device") < 0 ||
        cuda_check(cuda_api.cuDeviceGetName(name, sizeof name, dev), "device name") < 0 ||
        cuda_check(cuda_api.cuDeviceTotalMem(&mem, dev), "device memory") < 0 ||
        cuda_check(cuda_api.cuDeviceGetUuid(&uuid, dev), "device UUID") < 0)
        return NULL;
    PyObject *uuid_bytes = PyBytes_FromStringAndSize((const char *)uuid.bytes,
                                                     (Py_ssize_t)sizeof uuid.bytes);
    if (!uuid_bytes)
        return NULL;
    return Py_BuildValue(   /* N: the dict takes uuid_bytes' reference */
        "{s:i,s:s,s:N,s:(ii),s:n,s:i,s:(iii),s:(iii),s:i,s:i,s:i,s:i}", "id", i, "name", name,
        "uuid", uuid_bytes,
        "compute_capability", d->cc_major, d->cc_minor, "total_memory", (Py_ssize_t)mem,
        "max_threads_per_block", d->max_threads_per_block, "max_block_dim", d->max_block[0],
        d->max_block[1], d->max_block[2], "max_grid_dim", d->max_grid[0], d->max_grid[1],
        d->max_grid[2], "max_shared_memory_per_block", d->max_shared_per_block,
        "max_shared_memory_per_block_optin", d->max_shared_per_block_optin, "warp_size",
        d->warp_size, "multiprocessor_count", d->multiprocessors);
}

/* cuda_device_attribute(i, code) -> int: the driver's CU_DEVICE_ATTRIBUTE `code` of GPU i
 * (numba-cuda's Device.<NAME>; the names are pyjit/gpu/_hostapi.py's DEVICE_ATTRIBUTES). */
static PyObject *py_device_attribute(PyObject *self, PyObject *args)
{
    int i, code, value = 0;
    CUdevice dev;
    if (!PyArg_ParseTuple(args, "ii:cuda_device_attribute", &i, &code) || check_device(i) < 0 ||
        cuda_check(cuda_api.cuDeviceGet(&dev, i), "getting the device") < 0 ||
        cuda_check(cuda_api.cuDeviceGetAttribute(&value, code, dev),
                   "reading a device attribute") < 0)
        return NULL;
    return PyLong_FromLong(value);
}

static PyObject *py_select_device(PyObject *self, PyObject *arg)
{
    int i = PyLong_AsLong(arg);
    if ((i == -1 && PyErr_Occurred()) || cuda_enter(i) < 0)
        return NULL;
    tls_device = i;
    return PyLong_FromLong(i);
}

static PyObject *py_current_device(PyObject *self, PyObject *unused)
{
    return PyLong_FromLong(tls_device);
}

static PyObject *py_synchronize(PyObject *self, PyObject *unused)
{
    CUresult r;
    if (cuda_enter(tls_device) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    r = cuda_api.cuCtxSynchronize();
    Py_END_ALLOW_THREADS
    if (r != CUDA_SUCCESS)
        return cuda_raise(r, "synchronizing the device", NULL);
    if (cuda_fault_check() < 0)   /* an exception a kernel raised (kernel_errors.c) */
        return NULL;
    run_stream_callbacks(NULL);
    Py_RETURN_NONE;
}

static PyObject *py_mem_info(PyObject *self, PyObject *unused)
{
    size_t free_b = 0, total = 0;
    if (cuda_enter(tls_device) < 0 ||
        cuda_check(cuda_api.cuMemGetInfo(&free_b, &total), "reading memory use") < 0)
        return NULL;
    return Py_BuildValue("(nn)", (Py_ssize_t)free_b, (Py_ssize_t)total);
}

/* cuda_wrap_stream(handle) -> a Stream over an existing handle (0 default, 1 legacy, 2 per
 * thread, or another library's stream), not destroyed by pyjit. */
static PyObject *py_wrap_stream(PyObject *self, PyObject *arg)
{
    CUstream h;
    if (cuda_stream_handle(arg, &h) < 0)
        return NULL;
    return stream_wrap(h, tls_device, false);
}

static PyMethodDef cuda_methods[] = {
    {"cuda_is_available", py_is_available, METH_NOARGS, "True when a GPU can run kernels."},
    {"cuda_unavailable_reason", py_unavailable_reason, METH_NOARGS,
     "Why no GPU can be used (None when one can)."},
    {"cuda_device_count", py_device_count, METH_NOARGS, "How many GPUs the driver sees."},
    {"cuda_driver_version", py_driver_version, METH_NOARGS, "The driver's CUDA version."},
    {"cuda_device_info", py_device_info, METH_O, "A dict describing GPU i."},
    {"cuda_device_attribute", py_device_attribute, METH_VARARGS,
     "cuda_device_attribute(i, code): the driver's device attribute code of GPU i."},
    {"cuda_select_device", py_select_device, METH_O, "Makes GPU i this thread's device."},
    {"cuda_current_device", py_current_device, METH_NOARGS, "This thread's GPU number."},
    {"cuda_synchronize", py_synchronize, METH_NOARGS, "Waits for all work on this thread's GPU."},
    {"cuda_mem_info", py_mem_info, METH_NOARGS, "(free, total) bytes of this thread's GPU."},
    {"cuda_wrap_stream", py_wrap_stream, METH_O, "A Stream over an existing handle."},
    {NULL, NULL, 0, NULL},
};

int cuda_module_init(PyObject *module)
{
    if (PyType_Ready(&CudaStreamType) < 0 || PyType_Ready(&CudaEventType) < 0 ||
        PyModule_AddFunctions(module, cuda_methods) < 0 ||
        PyModule_AddObjectRef(module, "Stream", (PyObject *)&CudaStreamType) < 0 ||
        PyModule_AddObjectRef(module, "Event", (PyObject *)&CudaEventType) < 0)
        return -1;
    if (cuda_hostmem_init(module) < 0)
        return -1;
    return cuda_devarray_init(module) < 0 ? -1 : cuda_launch_init(module);
}
