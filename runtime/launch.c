/* launch.c: GPU kernels and their launches.
 *
 * A Kernel (what @gpu.jit returns) keeps one compiled version per argument types, each with its
 * PTX and, per device, the loaded module and function. kernel[grid, block, stream, shared]
 * makes a Launch (the last one is cached, so the usual `k[g, b](...)` in a loop builds
 * nothing); calling it types each argument in C, finds the version (the last hit first),
 * packs the arguments straight into the kernel's parameter buffer as compiler/abi.h lays them
 * out, and calls cuLaunchKernel. A device array costs a pointer read and a copy of its shape.
 *
 * NumPy arrays are copied to the device for the launch and back after it when the kernel may
 * write them (the compiler's written mask; gpu.In/Out/InOut say it explicitly). Arrays of other
 * libraries (CuPy, PyTorch) are used in place through __cuda_array_interface__ or DLPack.
 * The launch configuration is checked before the driver sees it, so a wrong one is a
 * ValueError that says the limit. */
#include "runtime/cuda.h"
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

#include <numpy/arrayobject.h>

/* ---- versions ---- */

/* What a launch checked about its array arguments, beyond their types: a version is compiled
 * for these facts (bit i for argument i, 63 at most). */
typedef struct VFacts {
    uint64_t aligned;       /* the data is 16-byte aligned: 128-bit loads and stores */
    uint64_t noalias;       /* the memory overlaps no other array argument's */
} VFacts;

typedef struct KVersion {
    Type **argtypes;        /* nargs types; NULL for a hand-loaded PTX kernel (any arguments) */
    int nargs;
    char *ptx, *entry;
    uint64_t written;
    VFacts facts;
    char *types_dump, *llvm_dump;
    CUmodule module[CUDA_MAX_DEVICES];
    CUfunction func[CUDA_MAX_DEVICES];
    int max_threads[CUDA_MAX_DEVICES];
    int static_shared[CUDA_MAX_DEVICES];
    int dyn_shared[CUDA_MAX_DEVICES];   /* the dynamic shared memory the function allows now */
    bool can_raise;         /* its PTX uses the fault record (kernel_errors.c) */
    int8_t cooperative;     /* 0 not looked at yet, 1 no, 2 yes: the kernel syncs its grid */
} KVersion;

typedef struct CudaKernel {
    PyObject_HEAD
    PyObject *py_func;      /* NULL for a hand-loaded PTX kernel */
    PyObject *registry;
    PyObject *name;
    PyObject *dict;
    PyObject *weakrefs;
    const char *cname;      /* name's UTF-8 */
    int nargs;              /* positional parameters; -1: not checked (PTX kernels) */
    CudaCompileOptions opts;
    bool cache;             /* cache=True: PTX stored on disk (pyjit/_cache.py) */
    KVersion **versions;
    int nversions;
    KVersion *last;
    PyObject *cfg_key, *cfg;    /* the last configuration and its Launch */
} CudaKernel;

static PyTypeObject CudaKernelType, CudaLaunchType;

/* gpu.In / Out / InOut, registered by pyjit.gpu.hardware (classes with an `array` attribute). */
enum { DIR_AUTO = 0, DIR_IN = 1, DIR_OUT = 2, DIR_INOUT = 3 };
static PyObject *direction_class[4];

static char *dup_str(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = PyMem_RawMalloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void version_free(KVersion *v)
{
    for (int d = 0; d < CUDA_MAX_DEVICES; d++)
        if (v->module[d] && cuda_enter(d) == 0)
            cuda_api.cuModuleUnload(v->module[d]);
    PyErr_Clear();
    PyMem_RawFree(v->argtypes);
    PyMem_RawFree(v->ptx);
    PyMem_RawFree(v->entry);
    PyMem_RawFree(v->types_dump);
    PyMem_RawFree(v->llvm_dump);
    PyMem_RawFree(v);
}

static KVersion *version_new(Type **argtypes, int nargs, const char *ptx, const char *entry,
                             uint64_t written)
{
    KVersion *v = PyMem_RawCalloc(1, sizeof *v);
    if (!v)
        return (KVersion *)PyErr_NoMemory();
    v->nargs = nargs;
    v->written = written;
    v->ptx = dup_str(ptx);
    v->entry = dup_str(entry);
    if (argtypes && nargs > 0 && (v->argtypes = PyMem_RawMalloc(sizeof(Type *) * nargs)))
        memcpy(v->argtypes, argtypes, sizeof(Type *) * nargs);
    if (!v->ptx || !v->entry || (argtypes && nargs > 0 && !v->argtypes)) {
        version_free(v);
        return (KVersion *)PyErr_NoMemory();
    }
    return v;
}

static int add_version(CudaKernel *k, KVersion *v)
{
    KVersion **vs = PyMem_RawRealloc(k->versions, sizeof *vs * (size_t)(k->nversions + 1));
    if (!vs) {
        version_free(v);
        PyErr_NoMemory();
        return -1;
    }
    k->versions = vs;
    vs[k->nversions++] = v;
    return 0;
}

static bool version_matches(const KVersion *v, Type **types, int n, const VFacts *f)
{
    if (!v->argtypes)
        return true;
    if (v->nargs != n || v->facts.aligned != f->aligned || v->facts.noalias != f->noalias)
        return false;
    for (int i = 0; i < n; i++)
        if (v->argtypes[i] != types[i])
            return false;
    return true;
}

/* ---- compiling (through the compiler side's cuda_compile_kernel) ---- */

static int populate_registry(PyObject *registry)
{
    static PyObject *done;   /* the registry filled last: pyjit has one */
    if (registry == done)
        return 0;
    PyObject *mod = PyImport_ImportModule("pyjit._registry");
    PyObject *res = mod ? PyObject_CallMethod(mod, "populate", "O", registry) : NULL;
    Py_XDECREF(mod);
    if (!res)
        return -1;
    Py_DECREF(res);
    done = registry;
    return 0;
}

static PyObject *raise_no_codegen(const char *name)
{
    return PyErr_Format(PyExc_NotImplementedError, "cannot compile kernel '%s': this pyjit "
                        "has no GPU code generation yet; set PYJIT_SIMULATOR=1 before importing "
                        "pyjit to run kernels in the simulator", name);
}

/* A version from the on-disk cache's hit, (ptx, entry, written, types_dump, llvm_dump); NULL,
 * with no error, if the hit is malformed (compiled instead). */
static KVersion *version_of_hit(Type **types, int n, const VFacts *f, PyObject *hit)
{
    const char *ptx, *entry, *types_dump, *llvm_dump;
    unsigned long long written;
    if (!PyArg_ParseTuple(hit, "ysKzz", &ptx, &entry, &written, &types_dump, &llvm_dump)) {
        PyErr_Clear();
        return NULL;
    }
    KVersion *v = version_new(types, n, ptx, entry, (uint64_t)written);
    if (v) {
        v->facts = *f;
        v->types_dump = dup_str(types_dump);
        v->llvm_dump = dup_str(llvm_dump);
    }
    return v;
}

/* Runs the compiler for these types; the result's texts are copied out of the arena. With
 * cache=True the on-disk cache is asked first and given what was compiled. */
static KVersion *compile_version(CudaKernel *k, Type **types, int n, const VFacts *f,
                                 int cc_major, int cc_minor)
{
    if (!cuda_compile_kernel)
        return (KVersion *)raise_no_codegen(k->cname);
    PyObject *token = NULL;
    if (k->cache) {
        char target[96];
        snprintf(target, sizeof target, "sm_%d%d aligned=%llx noalias=%llx", cc_major, cc_minor,
                 (unsigned long long)f->aligned, (unsigned long long)f->noalias);
        PyObject *hit = rt_cache_load_kernel((PyObject *)k, types, n, target, &token);
        KVersion *v = hit ? version_of_hit(types, n, f, hit) : NULL;
        Py_XDECREF(hit);
        if (v) {
            Py_XDECREF(token);
            return v;
        }
    }
    if (populate_registry(k->registry) < 0) {
        Py_XDECREF(token);
        return NULL;
    }
    CudaCompileOptions opts = k->opts;
    opts.cc_major = cc_major;
    opts.cc_minor = cc_minor;
    opts.aligned = f->aligned;
    opts.noalias = f->noalias;
    Arena *arena = arena_new();
    Diag diag = {0};
    CudaKernelCode code = {0};
    KVersion *v = NULL;
    if (!arena) {
        Py_XDECREF(token);
        return (KVersion *)PyErr_NoMemory();
    }
    if (cuda_compile_kernel(k->py_func, k->registry, types, n, &opts, arena, &code, &diag) < 0 ||
        arena_failed(arena))
        rt_raise_compile_error(arena, &diag);
    else if ((v = version_new(types, n, code.ptx, code.entry, code.written))) {
        v->facts = *f;
        v->types_dump = dup_str(code.types_dump);
        v->llvm_dump = dup_str(code.llvm_dump);
        if (token)
            rt_cache_store_kernel(token, code.ptx, code.entry, code.written, code.types_dump,
                                  code.llvm_dump);
    }
    Py_XDECREF(token);
    arena_free(arena);
    return v;
}

enum {   /* CUjit_option and CUfunction_attribute numbers (the driver's ABI) */
    JIT_ERROR_LOG_BUFFER = 5, JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    FUNC_MAX_THREADS_PER_BLOCK = 0, FUNC_SHARED_SIZE_BYTES = 1,
    FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

/* v's module on device dev: its PTX loaded, or linked with foreign code first (link.c). */
static int load_module(KVersion *v, int dev, const char *kname, PyObject *kernel)
{
    int linked = cuda_link_load(kernel, v->ptx, dev, &v->module[dev], kname);
    if (linked != 1)
        return linked;
    char log[4096] = "";
    int opts[] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = cuda_api.cuModuleLoadDataEx(&v->module[dev], v->ptx, 2, opts, vals);
    if (r != CUDA_SUCCESS) {
        char what[4300];
        snprintf(what, sizeof what, "loading the PTX of kernel '%s'%s%s", kname,
                 log[0] ? ":\n" : "", log);
        cuda_raise(r, what, kname);
        return -1;
    }
    return 0;
}

/* Loads v on device dev (once) and reads the function's limits. */
static int load_version(KVersion *v, int dev, const char *kname, PyObject *kernel)
{
    if (load_module(v, dev, kname, kernel) < 0) {
        v->module[dev] = NULL;
        return -1;
    }
    CUfunction f;
    v->can_raise = cuda_fault_used(v->ptx);
    if (v->can_raise && cuda_fault_attach(v->module[dev], dev) < 0)
        return -1;
    if (cuda_check(cuda_api.cuModuleGetFunction(&f, v->module[dev], v->entry),
                   "finding the kernel in its module") < 0 ||
        cuda_check(cuda_api.cuFuncGetAttribute(&v->max_threads[dev], FUNC_MAX_THREADS_PER_BLOCK,
                                               f), "reading the kernel's limits") < 0 ||
        cuda_check(cuda_api.cuFuncGetAttribute(&v->static_shared[dev], FUNC_SHARED_SIZE_BYTES,
                                               f), "reading the kernel's limits") < 0 ||
        cuda_check(cuda_api.cuFuncGetAttribute(&v->dyn_shared[dev],
                                               FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, f),
                   "reading the kernel's limits") < 0)
        return -1;
    v->func[dev] = f;
    return 0;
}

/* ---- the Kernel type ---- */

static int kernel_init(CudaKernel *k, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"py_func", "registry", "debug", "fastmath", "opt", "lineinfo",
                             "cache", "max_registers", "launch_bounds", "error_model_numpy",
                             NULL};
    PyObject *func, *registry;
    int debug = 0, fastmath = 0, opt = 3, lineinfo = 0, cache = 0, maxreg = 0, numpy_errors = 0;
    int *bounds = k->opts.launch_bounds;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO!|ppippi(iii)p:Kernel", kwlist, &func,
                                     &PyDict_Type, &registry, &debug, &fastmath, &opt, &lineinfo,
                                     &cache, &maxreg, &bounds[0], &bounds[1], &bounds[2],
                                     &numpy_errors))
        return -1;
    if (!PyFunction_Check(func)) {
        PyErr_Format(PyExc_TypeError, "@gpu.jit takes a Python function, not %.100s",
                     Py_TYPE(func)->tp_name);
        return -1;
    }
    PyCodeObject *code = (PyCodeObject *)PyFunction_GET_CODE(func);
    if (code->co_flags & (CO_VARARGS | CO_VARKEYWORDS) || code->co_kwonlyargcount) {
        PyErr_Format(PyExc_TypeError, "kernel '%U' must take positional parameters only (no "
                     "*args, **kwargs or keyword-only ones)", code->co_name);
        return -1;
    }
    PyObject *name = PyObject_GetAttrString(func, "__name__");
    if (!name || !(k->cname = PyUnicode_AsUTF8(name))) {
        Py_XDECREF(name);
        return -1;
    }
    Py_XSETREF(k->name, name);
    Py_XSETREF(k->py_func, Py_NewRef(func));
    Py_XSETREF(k->registry, Py_NewRef(registry));
    k->nargs = code->co_argcount;
    rt_default_options(&k->opts.base);
    k->opts.base.opt_level = opt;
    k->opts.base.fastmath = fastmath;
    k->opts.base.debug |= debug;
    k->opts.base.boundscheck |= debug;
    if (rt_boundscheck_env() >= 0)
        k->opts.base.boundscheck = rt_boundscheck_env();
    k->opts.lineinfo = lineinfo;
    k->opts.max_registers = maxreg;
    k->opts.base.error_model_numpy = numpy_errors;
    k->cache = cache;
    return 0;
}

static int kernel_traverse(CudaKernel *k, visitproc visit, void *arg)
{
    Py_VISIT(k->py_func);
    Py_VISIT(k->registry);
    Py_VISIT(k->dict);
    Py_VISIT(k->cfg_key);
    Py_VISIT(k->cfg);
    return 0;
}

static int kernel_clear(CudaKernel *k)
{
    Py_CLEAR(k->py_func);
    Py_CLEAR(k->registry);
    Py_CLEAR(k->dict);
    Py_CLEAR(k->cfg_key);
    Py_CLEAR(k->cfg);
    return 0;
}

static void kernel_dealloc(CudaKernel *k)
{
    PyObject_GC_UnTrack(k);
    if (k->weakrefs)
        PyObject_ClearWeakRefs((PyObject *)k);
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    for (int i = 0; i < k->nversions; i++)
        version_free(k->versions[i]);
    PyErr_Restore(et, ev, tb);
    PyMem_RawFree(k->versions);
    kernel_clear(k);
    Py_CLEAR(k->name);
    Py_TYPE(k)->tp_free(k);
}

/* ---- launch configurations ---- */

typedef struct CudaLaunch {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    CudaKernel *kernel;
    unsigned grid[3], block[3], shared;
    CUstream stream;
    PyObject *stream_obj;   /* keeps a Stream alive while this configuration exists */
} CudaLaunch;

/* An int or a tuple of 1-3 ints, each at least 1. */
static int parse_dims(PyObject *obj, unsigned *out, const char *what, const char *kname)
{
    out[0] = out[1] = out[2] = 1;
    PyObject *items = PyTuple_Check(obj) ? Py_NewRef(obj) : PyTuple_Pack(1, obj);
    if (!items)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (n < 1 || n > 3) {
        Py_DECREF(items);
        PyErr_Format(PyExc_ValueError, "kernel '%s': %s must be an int or a tuple of 1 to 3 "
                     "ints, not a tuple of %zd", kname, what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PyTuple_GET_ITEM(items, i);
        long long v = PyIndex_Check(it) ? PyLong_AsLongLong(it) : (PyErr_Format(
            PyExc_TypeError, "kernel '%s': %s must hold ints, not %.100s", kname, what,
            Py_TYPE(it)->tp_name), -1);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(items);
            return -1;
        }
        if (v < 1 || v > 0x7fffffffLL) {
            Py_DECREF(items);
            PyErr_Format(PyExc_ValueError, "kernel '%s': %s %R: each dimension must be from 1 "
                         "to 2147483647 (a launch of 0 %s runs nothing and is refused)", kname,
                         what, obj, strcmp(what, "griddim") == 0 ? "blocks" : "threads");
            return -1;
        }
        out[i] = (unsigned)v;
    }
    Py_DECREF(items);
    return 0;
}

/* The limits every CUDA GPU has; the device's own are checked at launch. */
static int check_static_limits(CudaLaunch *l, const char *kname)
{
    unsigned long long threads = (unsigned long long)l->block[0] * l->block[1] * l->block[2];
    if (threads > 1024)
        return PyErr_Format(PyExc_ValueError, "kernel '%s': a block of %u x %u x %u = %llu "
                            "threads; the limit is 1024 threads a block", kname, l->block[0],
                            l->block[1], l->block[2], threads), -1;
    if (l->block[2] > 64)
        return PyErr_Format(PyExc_ValueError, "kernel '%s': blockdim z is %u; the limit is 64",
                            kname, l->block[2]), -1;
    if (l->grid[1] > 65535 || l->grid[2] > 65535)
        return PyErr_Format(PyExc_ValueError, "kernel '%s': griddim y and z must be at most "
                            "65535 (got %u, %u)", kname, l->grid[1], l->grid[2]), -1;
    return 0;
}

/* launch_bounds=(n, ...): a block of more than n threads is refused when configured, before
 * the driver would (its own refusal names no option). */
static int check_launch_bounds(CudaLaunch *l, CudaKernel *k)
{
    unsigned long long threads = (unsigned long long)l->block[0] * l->block[1] * l->block[2];
    int most = k->opts.launch_bounds[0];
    if (most > 0 && threads > (unsigned long long)most)
        return PyErr_Format(PyExc_ValueError, "kernel '%s': a block of %llu threads; its "
                            "launch_bounds allow at most %d threads a block", k->cname, threads,
                            most), -1;
    return 0;
}

static PyObject *launch_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames);

static PyObject *make_launch(CudaKernel *k, PyObject *grid, PyObject *block, PyObject *stream,
                             PyObject *shared)
{
    CudaLaunch *l = PyObject_GC_New(CudaLaunch, &CudaLaunchType);
    if (!l)
        return NULL;
    l->vectorcall = launch_vectorcall;
    l->kernel = (CudaKernel *)Py_NewRef(k);
    l->stream_obj = stream && stream != Py_None ? Py_NewRef(stream) : NULL;
    l->shared = 0;
    PyObject_GC_Track(l);
    if (parse_dims(grid, l->grid, "griddim", k->cname) < 0 ||
        parse_dims(block, l->block, "blockdim", k->cname) < 0 ||
        check_static_limits(l, k->cname) < 0 || check_launch_bounds(l, k) < 0 ||
        cuda_stream_handle(stream, &l->stream) < 0)
        goto fail;
    if (shared && shared != Py_None) {
        long long v = PyLong_AsLongLong(shared);
        if (v == -1 && PyErr_Occurred())
            goto fail;
        if (v < 0 || v > 0x7fffffffLL) {
            PyErr_Format(PyExc_ValueError, "kernel '%s': sharedmem must be a byte count from 0, "
                         "not %lld", k->cname, v);
            goto fail;
        }
        l->shared = (unsigned)v;
    }
    return (PyObject *)l;
fail:
    Py_DECREF(l);
    return NULL;
}

static bool same_key(PyObject *a, PyObject *b)
{
    if (!a || PyTuple_GET_SIZE(a) != PyTuple_GET_SIZE(b))
        return false;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a); i++) {
        PyObject *x = PyTuple_GET_ITEM(a, i), *y = PyTuple_GET_ITEM(b, i);
        if (x == y)
            continue;
        if (Py_TYPE(x) != Py_TYPE(y) || !(PyLong_CheckExact(x) || PyTuple_CheckExact(x)))
            return false;   /* streams and other objects: by identity */
        int eq = PyObject_RichCompareBool(x, y, Py_EQ);
        if (eq != 1) {
            PyErr_Clear();
            return false;
        }
    }
    return true;
}

/* kernel[griddim, blockdim, stream=0, sharedmem=0] */
static PyObject *kernel_getitem(CudaKernel *k, PyObject *key)
{
    if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) < 2 || PyTuple_GET_SIZE(key) > 4)
        return PyErr_Format(PyExc_ValueError, "kernel '%s' is launched as kernel[griddim, "
                            "blockdim] or kernel[griddim, blockdim, stream, sharedmem]",
                            k->cname);
    if (same_key(k->cfg_key, key))
        return Py_NewRef(k->cfg);
    Py_ssize_t n = PyTuple_GET_SIZE(key);
    PyObject *l = make_launch(k, PyTuple_GET_ITEM(key, 0), PyTuple_GET_ITEM(key, 1),
                              n > 2 ? PyTuple_GET_ITEM(key, 2) : NULL,
                              n > 3 ? PyTuple_GET_ITEM(key, 3) : NULL);
    if (l) {
        Py_XSETREF(k->cfg_key, Py_NewRef(key));
        Py_XSETREF(k->cfg, Py_NewRef(l));
    }
    return l;
}

/* kernel.forall(ntasks, tpb=0, stream=0, sharedmem=0): enough blocks of tpb threads (256 by
 * default) for ntasks threads. */
static PyObject *kernel_forall(CudaKernel *k, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ntasks", "tpb", "stream", "sharedmem", NULL};
    long long ntasks, tpb = 0;
    PyObject *stream = NULL, *shared = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "L|LOO:forall", kwlist, &ntasks, &tpb, &stream,
                                     &shared))
        return NULL;
    if (ntasks < 1)
        return PyErr_Format(PyExc_ValueError, "kernel '%s': forall(%lld): ntasks must be at "
                            "least 1", k->cname, ntasks);
    if (tpb <= 0)
        tpb = ntasks < 256 ? ntasks : 256;
    PyObject *g = PyLong_FromLongLong((ntasks + tpb - 1) / tpb), *b = PyLong_FromLongLong(tpb);
    PyObject *l = g && b ? make_launch(k, g, b, stream, shared) : NULL;
    Py_XDECREF(g);
    Py_XDECREF(b);
    return l;
}

static PyObject *kernel_call(CudaKernel *k, PyObject *args, PyObject *kwds)
{
    return PyErr_Format(PyExc_TypeError, "kernel '%s' is launched with a configuration: "
                        "%s[blocks, threads](...)", k->cname, k->cname);
}

/* ---- arguments ---- */

enum { ARG_DEVICE, ARG_SCALAR, ARG_HOST, ARG_FOREIGN };

typedef struct Arg {
    int kind, dir;
    Type *type;
    PyObject *obj;              /* the value (for host arrays: the NumPy array) */
    CUdeviceptr data;
    int ndim;
    const int64_t *shape, *strides;
    PyArrayObject *staged;      /* host arrays: the contiguous copy moved (may be obj) */
    CUdeviceptr temp;           /* host arrays: the device copy */
    bool locked;                /* host arrays: staged's memory page-locked for the launch */
    CudaForeign *foreign;
} Arg;

static int np_ready(void)
{
    static bool ready;
    if (!ready && PyArray_ImportNumPyAPI() < 0)
        return -1;
    ready = true;
    return 0;
}

static int direction_of(PyObject *obj)
{
    for (int d = DIR_IN; d <= DIR_INOUT; d++)
        if (direction_class[d] && PyObject_TypeCheck(obj, (PyTypeObject *)direction_class[d]))
            return d;
    return DIR_AUTO;
}

static int classify_host(Arg *a, PyObject *arr, int dir)
{
    CUdeviceptr dev;
    /* mapped, managed or gpu.mapped memory: the kernel uses it in place */
    a->kind = cuda_host_device_pointer(PyArray_DATA((PyArrayObject *)arr), &dev) ? ARG_DEVICE
                                                                                 : ARG_HOST;
    a->data = a->kind == ARG_DEVICE ? dev : 0;
    a->dir = dir;
    a->obj = arr;
    a->ndim = PyArray_NDIM((PyArrayObject *)arr);
    a->shape = (const int64_t *)PyArray_DIMS((PyArrayObject *)arr);   /* npy_intp is 64-bit */
    a->strides = (const int64_t *)PyArray_STRIDES((PyArrayObject *)arr);
    return 0;
}

/* Types one argument and says how it travels. 0, or -1 with an exception. */

/* The TypeError for argument i of a kernel that no launch accepts, naming the parameter. */
static int raise_kernel_arg_error(CudaKernel *k, int i, PyObject *obj)
{
    PyObject *names = k->py_func ? PyObject_GetAttrString(PyFunction_GET_CODE(k->py_func),
                                                          "co_varnames") : NULL;
    const char *argname = names && PyTuple_Check(names) && i < PyTuple_GET_SIZE(names) ?
                          PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i)) : NULL;
    PyErr_Clear();
    rt_raise_arg_error(k->cname, argname ? argname : "?", i + 1, obj);
    Py_XDECREF(names);
    return -1;
}

static int classify(CudaKernel *k, int i, PyObject *obj, Arg *a, CudaForeign **pool, int n,
                    CUstream s)
{
    a->obj = obj;
    a->dir = DIR_AUTO;
    a->staged = NULL;
    a->temp = 0;
    a->foreign = NULL;
    if (Py_TYPE(obj) == &CudaArrayType) {
        CudaArray *d = (CudaArray *)obj;
        if (!(a->type = d->type))
            return PyErr_Format(PyExc_TypeError, "kernel '%s' argument %d: a device array of "
                                "dtype %R cannot be a kernel argument", k->cname, i + 1,
                                d->dtype), -1;
        a->kind = ARG_DEVICE;
        a->data = d->data;
        a->ndim = d->ndim;
        a->shape = d->shape;
        a->strides = d->strides;
        return 0;
    }
    if ((a->type = rt_typeof(obj, RT_TYPEOF_GPU))) {
        a->kind = ARG_SCALAR;
        if (a->type->kind == TY_ARRAY)
            return np_ready() < 0 ? -1 : classify_host(a, obj, DIR_AUTO);
        if (a->type->kind == TY_TUPLE)
            for (int j = 0; j < a->type->tuple.n; j++)
                if (a->type->tuple.items[j]->kind == TY_ARRAY)
                    return PyErr_Format(PyExc_TypeError, "kernel '%s' argument %d: tuples of "
                                        "arrays cannot be kernel arguments yet", k->cname,
                                        i + 1), -1;
        return 0;
    }
    if (PyErr_Occurred())
        return -1;
    int dir = direction_of(obj);
    if (dir != DIR_AUTO) {
        PyObject *inner = PyObject_GetAttrString(obj, "array");   /* the wrapper keeps it */
        Py_XDECREF(inner);
        if (!inner)
            return -1;
        Type *t = rt_typeof(inner, RT_TYPEOF_GPU);
        if (!t || t->kind != TY_ARRAY)
            return PyErr_Format(PyExc_TypeError, "kernel '%s' argument %d: gpu.In/Out/InOut "
                                "wrap a NumPy array, not %.100s", k->cname, i + 1,
                                Py_TYPE(inner)->tp_name), -1;
        a->type = t;
        return np_ready() < 0 ? -1 : classify_host(a, inner, dir);
    }
    if (!*pool && !(*pool = PyMem_Calloc((size_t)n, sizeof **pool))) {
        PyErr_NoMemory();
        return -1;
    }
    /* A NumPy array of a dtype kernels do not take (object, str, ...) is refused here, before
     * NumPy's own DLPack export answers the reading below with an unrelated error. */
    if (np_ready() < 0)
        return -1;
    if (PyArray_Check(obj))
        return raise_kernel_arg_error(k, i, obj);
    CudaForeign *fbuf = &(*pool)[i];
    int rc = cuda_read_foreign(obj, fbuf, s);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return raise_kernel_arg_error(k, i, obj);
    a->kind = ARG_FOREIGN;
    a->foreign = fbuf;
    a->type = fbuf->type;
    a->data = fbuf->data;
    a->ndim = fbuf->ndim;
    a->shape = fbuf->shape;
    a->strides = fbuf->strides;
    return 0;
}

/* From this size up, a host array's memory is page-locked in place for the launch
 * (cuMemHostRegister), so that its copies run at the DMA engines' speed rather than through the
 * driver's pageable staging: on an H100, locking, copying in and unlocking 64 MiB took 4.8 ms
 * against 8.9 ms for the pageable copy, and the copy back gains as much. Smaller arrays copy
 * faster than they lock. */
#define LOCK_IN_PLACE_MIN_BYTES ((size_t)4 << 20)

/* Copies a host array to the device (or only allocates for gpu.Out). Memory the driver knows
 * already (pinned by the user, or shared with another argument) refuses the lock and is copied
 * as it is. */
static int stage_host(CudaKernel *k, Arg *a, CUstream s)
{
    PyArrayObject *h = (PyArrayObject *)a->obj;
    bool contiguous = PyArray_IS_C_CONTIGUOUS(h) || PyArray_IS_F_CONTIGUOUS(h);
    a->staged = contiguous ? (PyArrayObject *)Py_NewRef(h) :
                             (PyArrayObject *)PyArray_NewCopy(h, NPY_CORDER);
    if (!a->staged)
        return -1;
    a->shape = (const int64_t *)PyArray_DIMS(a->staged);
    a->strides = (const int64_t *)PyArray_STRIDES(a->staged);
    size_t nbytes = (size_t)PyArray_NBYTES(a->staged);
    if (nbytes == 0) {
        a->data = 0;
        return 0;
    }
    CUresult r = cuda_api.cuMemAllocAsync(&a->temp, nbytes, s);
    if (r != CUDA_SUCCESS) {
        a->temp = 0;
        cuda_raise(r, "allocating device memory for a NumPy argument", k->cname);
        return -1;
    }
    /* element [0,...,0] of an F-ordered or C-ordered block is its first byte */
    a->data = a->temp;
    if (nbytes >= LOCK_IN_PLACE_MIN_BYTES)
        a->locked = cuda_api.cuMemHostRegister(PyArray_DATA(a->staged), nbytes, 0) == CUDA_SUCCESS;
    if (a->dir != DIR_OUT) {
        r = cuda_api.cuMemcpyHtoDAsync(a->temp, PyArray_DATA(a->staged), nbytes, s);
        if (r != CUDA_SUCCESS) {
            cuda_raise(r, "copying a NumPy argument to the GPU", k->cname);
            return -1;
        }
    }
    return 0;
}

static bool copies_back(const Arg *a, uint64_t written, int i)
{
    if (a->dir == DIR_IN)
        return false;
    if (a->dir == DIR_OUT || a->dir == DIR_INOUT)
        return true;
    if (!PyArray_ISWRITEABLE((PyArrayObject *)a->obj))
        return false;
    return (written >> (i < 63 ? i : 63)) & 1;
}

/* After the launch: copies written host arrays back and frees the device copies. The stream
 * is synchronized whenever a host array took part (its memory may be pinned, so the copies are
 * truly asynchronous, and the caller may change it as soon as the launch returns). */
static int unstage_host(CudaKernel *k, Arg *args, int n, uint64_t written, CUstream s, bool ok)
{
    CUresult r = CUDA_SUCCESS;
    bool any = false;
    for (int i = 0; i < n; i++) {
        Arg *a = &args[i];
        if (a->kind != ARG_HOST || !a->staged)
            continue;
        any = true;
        a->dir = ok && a->temp && copies_back(a, written, i) ? DIR_INOUT : DIR_IN;
        if (a->dir == DIR_INOUT && r == CUDA_SUCCESS)
            r = cuda_api.cuMemcpyDtoHAsync(PyArray_DATA(a->staged), a->temp,
                                           (size_t)PyArray_NBYTES(a->staged), s);
        if (a->temp)
            cuda_api.cuMemFreeAsync(a->temp, s);
    }
    if (any) {   /* even after a failed copy: nothing may be in flight to memory unlocked below */
        CUresult rs;
        Py_BEGIN_ALLOW_THREADS
        rs = cuda_api.cuStreamSynchronize(s);
        Py_END_ALLOW_THREADS
        if (r == CUDA_SUCCESS)
            r = rs;
    }
    int rc = 0;
    if (ok && r != CUDA_SUCCESS) {
        cuda_raise(r, "copying a NumPy argument back from the GPU", k->cname);
        rc = -1;
    }
    for (int i = 0; i < n; i++) {
        Arg *a = &args[i];
        if (a->kind != ARG_HOST || !a->staged)
            continue;
        if (a->locked)
            cuda_api.cuMemHostUnregister(PyArray_DATA(a->staged));
        a->locked = false;
        if (rc == 0 && a->dir == DIR_INOUT && (PyObject *)a->staged != a->obj &&
            PyArray_CopyInto((PyArrayObject *)a->obj, a->staged) < 0)
            rc = -1;
        Py_CLEAR(a->staged);
    }
    if (rc == 0 && ok && any && cuda_fault_check() < 0)   /* synchronised: report a raise */
        rc = -1;
    return rc;
}

/* ---- packing the parameter buffer ---- */

static int put(char *buf, size_t *off, const void *v, size_t size, size_t align)
{
    size_t o = (*off + align - 1) & ~(align - 1);
    if (o + size > CUDA_MAX_PARAM_BYTES)
        return -1;
    memcpy(buf + o, v, size);
    *off = o + size;
    return 0;
}

static int pack_array(char *buf, size_t *off, const Arg *a)
{
    uint64_t p = a->data;
    if (put(buf, off, &p, 8, 8) < 0)
        return -1;
    size_t o = *off;   /* 8-aligned already */
    if (o + 16 * (size_t)a->ndim > CUDA_MAX_PARAM_BYTES)
        return -1;
    if (a->ndim > 0) {   /* a 0-d NumPy array may have NULL dims */
        memcpy(buf + o, a->shape, 8 * (size_t)a->ndim);
        memcpy(buf + o + 8 * a->ndim, a->strides, 8 * (size_t)a->ndim);
    }
    *off = o + 16 * (size_t)a->ndim;
    return 0;
}

/* A scalar or tuple value of type t, flattened (tuples item by item). */
static int pack_value(char *buf, size_t *off, PyObject *obj, Type *t, const char *kname)
{
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->tuple.n; i++)
            if (pack_value(buf, off, PyTuple_GET_ITEM(obj, i), t->tuple.items[i], kname) < 0)
                return -1;
        return 0;
    }
    if (t->kind == TY_NONE)
        return 0;
    if (PyFloat_CheckExact(obj) && t->kind == TY_FLOAT64) {
        double v = PyFloat_AS_DOUBLE(obj);
        return put(buf, off, &v, 8, 8) < 0 ? -2 : 0;
    }
    _Alignas(16) char tmp[32];
    if (rt_unbox(obj, t, tmp) < 0)
        return -1;
    size_t size = (size_t)ty_mem_size(t), align = (size_t)ty_mem_align(t);
    return put(buf, off, tmp, size, align) < 0 ? -2 : 0;
}

/* ---- the launch ---- */

/* The byte range [*lo, *hi) an array argument may touch; false when it is empty. */
static bool extent(const Arg *a, uint64_t *lo, uint64_t *hi)
{
    int64_t below = 0, above = ty_itemsize(a->type->array.dtype);
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] == 0)
            return false;
        int64_t span = (a->shape[d] - 1) * a->strides[d];
        *(span < 0 ? &below : &above) += span;
    }
    *lo = a->data + (uint64_t)below;
    *hi = a->data + (uint64_t)above;
    return true;
}

/* The facts of a version's key: which array arguments are 16-byte aligned (whole allocations
 * are 256-byte aligned; views such as a[1:] need not be), and which overlap no other array
 * argument. Host arrays are copied into fresh allocations: aligned and apart from the rest. */
static void launch_facts(const Arg *args, int n, VFacts *f)
{
    uint64_t lo[64], hi[64], live = 0;
    f->aligned = f->noalias = 0;
    for (int i = 0; i < n && i < 64; i++) {
        if (args[i].kind == ARG_SCALAR)
            continue;
        if (args[i].kind == ARG_HOST || !(args[i].data & 15))
            f->aligned |= 1ull << i;
        if (args[i].kind == ARG_HOST || !extent(&args[i], &lo[i], &hi[i]))
            f->noalias |= 1ull << i;   /* an empty array is never accessed */
        else
            live |= 1ull << i;
    }
    for (int i = 0; i < n && i < 64; i++) {
        if (!((live >> i) & 1))
            continue;
        bool apart = true;
        for (int j = 0; j < n && j < 64 && apart; j++)
            if (j != i && ((live >> j) & 1) && lo[i] < hi[j] && lo[j] < hi[i])
                apart = false;
        if (apart)
            f->noalias |= 1ull << i;
    }
}

/* The version for these argument types on device dev, compiled and loaded as needed. */
static KVersion *version_for(CudaKernel *k, Type **types, int n, const VFacts *f, int dev)
{
    KVersion *v = k->last;
    if (!v || !version_matches(v, types, n, f)) {
        v = NULL;
        for (int i = 0; i < k->nversions && !v; i++)
            if (version_matches(k->versions[i], types, n, f))
                v = k->versions[i];
        if (!v) {
            const CudaDeviceInfo *info = cuda_device_info(dev);
            if (!info || !(v = compile_version(k, types, n, f, info->cc_major,
                                               info->cc_minor)) ||
                add_version(k, v) < 0)
                return NULL;
        }
        k->last = v;
    }
    if (!v->func[dev] && load_version(v, dev, k->cname, k->py_func ? (PyObject *)k : NULL) < 0)
        return NULL;
    return v;
}

/* The device's and the function's own limits, and the opt-in to large dynamic shared memory. */
static int check_device_limits(CudaLaunch *l, KVersion *v, int dev)
{
    const char *kname = l->kernel->cname;
    const CudaDeviceInfo *info = cuda_device_info(dev);
    if (!info)
        return -1;
    unsigned threads = l->block[0] * l->block[1] * l->block[2];
    if ((int)threads > v->max_threads[dev])
        return PyErr_Format(PyExc_ValueError, "kernel '%s': a block of %u threads; this kernel "
                            "can run at most %d threads a block on GPU %d (its register use "
                            "limits it)", kname, threads, v->max_threads[dev], dev), -1;
    for (int i = 0; i < 3; i++)
        if ((long long)l->block[i] > info->max_block[i] ||
            (long long)l->grid[i] > info->max_grid[i])
            return PyErr_Format(PyExc_ValueError, "kernel '%s': griddim %c is %u and blockdim "
                                "%c is %u; GPU %d allows at most %d and %d", kname, "xyz"[i],
                                l->grid[i], "xyz"[i], l->block[i], dev, info->max_grid[i],
                                info->max_block[i]), -1;
    long long total = (long long)l->shared + v->static_shared[dev];
    if (total > info->max_shared_per_block_optin)
        return PyErr_Format(PyExc_ValueError, "kernel '%s': %u bytes of dynamic shared memory "
                            "and %d static; GPU %d allows at most %d bytes of shared memory a "
                            "block", kname, l->shared, v->static_shared[dev], dev,
                            info->max_shared_per_block_optin), -1;
    if ((int)l->shared > v->dyn_shared[dev]) {
        if (cuda_check(cuda_api.cuFuncSetAttribute(v->func[dev],
                                                   FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                   (int)l->shared),
                       "allowing more dynamic shared memory") < 0)
            return -1;
        v->dyn_shared[dev] = (int)l->shared;
    }
    return 0;
}

enum { PARAM_BUFFER_POINTER = 1, PARAM_BUFFER_SIZE = 2, PARAM_END = 0 };

static int pack_all(CudaKernel *k, Arg *args, int n, char *buf, size_t *size)
{
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        int rc = args[i].kind == ARG_SCALAR ? pack_value(buf, &off, args[i].obj, args[i].type,
                                                         k->cname)
                                            : pack_array(buf, &off, &args[i]) < 0 ? -2 : 0;
        if (rc == -1)
            return -1;
        if (rc == -2)
            return PyErr_Format(PyExc_ValueError, "kernel '%s': its arguments take more than "
                                "the %d bytes a kernel's parameters may", k->cname,
                                CUDA_MAX_PARAM_BYTES), -1;
    }
    *size = off;
    return 0;
}

/* ---- cooperative launches (gpu.cg.this_grid().sync()) ---- */

/* A kernel that syncs its grid has the grid barrier's counter in its PTX (compiler/lower_gpu.c:
 * grid_sync); it is launched with cuLaunchCooperativeKernel, which guarantees that all its blocks
 * run at once (a grid barrier over blocks that wait for others to finish would never open). */
static bool version_cooperative(KVersion *v)
{
    if (!v->cooperative)
        v->cooperative = v->ptx && strstr(v->ptx, "pj_grid_barrier") ? 2 : 1;
    return v->cooperative == 2;
}

/* The most blocks of blockdim threads (and dynsmem bytes of dynamic shared memory) that are on
 * GPU dev at once: the occupancy per multiprocessor times the multiprocessors. -1 on error. */
static long long co_resident_blocks(KVersion *v, int dev, unsigned threads, unsigned dynsmem)
{
    const CudaDeviceInfo *info = cuda_device_info(dev);
    int per_sm = 0;
    if (!info || cuda_check(cuda_api.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                                &per_sm, v->func[dev], (int)threads, dynsmem),
                            "reading the kernel's occupancy") < 0)
        return -1;
    return (long long)per_sm * info->multiprocessors;
}

static int check_co_resident(CudaLaunch *l, KVersion *v, int dev)
{
    unsigned threads = l->block[0] * l->block[1] * l->block[2];
    long long blocks = (long long)l->grid[0] * l->grid[1] * l->grid[2];
    long long most = co_resident_blocks(v, dev, threads, l->shared);
    if (most < 0)
        return -1;
    if (blocks > most)
        return PyErr_Format(PyExc_ValueError, "kernel '%s' syncs its grid (gpu.cg.this_grid()"
                            ".sync()), so all its blocks must run at once: a grid of %lld blocks "
                            "of %u threads is more than the %lld GPU %d holds together "
                            "(kernel.max_cooperative_grid_blocks(blockdim) gives that limit)",
                            l->kernel->cname, blocks, threads, most, dev), -1;
    return 0;
}

/* The bytes of one PTX parameter type such as ".u32", ".f64", ".b8" (0 if none is in
 * [s, stop)). */
static size_t ptx_elem_bytes(const char *s, const char *stop)
{
    for (; s < stop; s++)
        if (s[0] == '.' && strchr("usbf", s[1]) && s[1] && s[2] >= '0' && s[2] <= '9')
            return (size_t)atoi(s + 2) / 8;
    return 0;
}

/* The offsets of the kernel's parameters in the packed buffer (pack_all): each placed at its
 * alignment after the one before, as the driver reads a buffer passed through `extra`.
 * cuLaunchCooperativeKernel takes a pointer per parameter instead, so these are read from the
 * .entry's declarations: ".param .u64 x", ".param .u64 .ptr .global .align 16 x" (a pointer; its
 * .align is the pointee's), ".param .align 8 .b8 x[24]". Returns the count and sets *total to
 * the bytes they take, or -1 when the declarations are not understood. */
static int param_layout(const char *ptx, const char *entry, size_t *offs, int max, size_t *total)
{
    char head[512];
    snprintf(head, sizeof head, ".entry %s(", entry);
    const char *p = strstr(ptx, head), *end = p ? strchr(p, ')') : NULL;
    size_t off = 0;
    int n = 0;
    if (!end)
        return -1;
    for (p += strlen(head); (p = strstr(p, ".param")) && p < end; n++) {
        const char *stop = strpbrk(p, ",)");
        const char *align = strstr(p, ".align "), *count = strchr(p, '['), *ptr = strstr(p, ".ptr");
        size_t elem = ptx_elem_bytes(p + 6, stop), bytes = elem, al = elem;
        if (ptr && ptr < stop)
            bytes = al = 8;
        else if (count && count < stop) {
            bytes = elem * (size_t)atoi(count + 1);
            al = align && align < stop ? (size_t)atoi(align + 7) : elem;
        }
        if (!elem || !al || n >= max)
            return -1;
        off = (off + al - 1) / al * al;
        offs[n] = off;
        off += bytes;
        p = stop;
    }
    *total = off;
    return n;
}

static int cooperative_launch(CudaLaunch *l, KVersion *v, int dev, char *buf, size_t size)
{
    if (check_co_resident(l, v, dev) < 0)
        return -1;
    size_t *offs = PyMem_Malloc(sizeof *offs * CUDA_MAX_PARAM_BYTES);
    void **params = PyMem_Malloc(sizeof *params * CUDA_MAX_PARAM_BYTES);
    size_t total = 0;
    int n = offs && params ? param_layout(v->ptx, v->entry, offs, CUDA_MAX_PARAM_BYTES, &total)
                           : -1;
    if (!offs || !params)
        PyErr_NoMemory();
    else if (n < 0 || total != size) {
        PyErr_Format(PyExc_RuntimeError, "kernel entry '%s': its parameters could not be laid "
                     "out for a cooperative launch (internal error)", v->entry);
        n = -1;
    }
    for (int i = 0; i < n; i++)
        params[i] = buf + offs[i];
    CUresult r = n < 0 ? CUDA_SUCCESS : cuda_api.cuLaunchCooperativeKernel(
        v->func[dev], l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
        l->shared, l->stream, params);
    PyMem_Free(offs);
    PyMem_Free(params);
    if (n < 0)
        return -1;
    if (r != CUDA_SUCCESS) {
        cuda_raise(r, "launching a kernel cooperatively", l->kernel->cname);
        return -1;
    }
    cuda_note_launch(l->kernel->name);
    if (v->can_raise)
        cuda_fault_note_launch(dev);
    return 0;
}

static int do_launch(CudaLaunch *l, KVersion *v, int dev, char *buf, size_t size)
{
    if (version_cooperative(v))
        return cooperative_launch(l, v, dev, buf, size);
    void *extra[] = {(void *)(uintptr_t)PARAM_BUFFER_POINTER, buf,
                     (void *)(uintptr_t)PARAM_BUFFER_SIZE, &size, (void *)(uintptr_t)PARAM_END};
    CUresult r = cuda_api.cuLaunchKernel(v->func[dev], l->grid[0], l->grid[1], l->grid[2],
                                         l->block[0], l->block[1], l->block[2], l->shared,
                                         l->stream, NULL, size ? extra : NULL);
    if (r != CUDA_SUCCESS) {
        cuda_raise(r, "launching a kernel", l->kernel->cname);
        return -1;
    }
    cuda_note_launch(l->kernel->name);
    if (v->can_raise)
        cuda_fault_note_launch(dev);
    return 0;
}

#define STACK_ARGS 8

static PyObject *launch_vectorcall(PyObject *self, PyObject *const *argv, size_t nargsf,
                                   PyObject *kwnames)
{
    CudaLaunch *l = (CudaLaunch *)self;
    CudaKernel *k = l->kernel;
    int n = (int)PyVectorcall_NARGS(nargsf), dev = cuda_current_device(), rc = -1;
    Arg stack_args[STACK_ARGS], *args = stack_args;
    Type *stack_types[STACK_ARGS], **types = stack_types;
    CudaForeign *foreign = NULL;
    _Alignas(16) char buf[CUDA_MAX_PARAM_BYTES];
    size_t size = 0;
    bool staged = false;
    if (kwnames && PyTuple_GET_SIZE(kwnames))
        return PyErr_Format(PyExc_TypeError, "kernel '%s' takes positional arguments only",
                            k->cname);
    if (k->nargs >= 0 && n != k->nargs)
        return PyErr_Format(PyExc_TypeError, "kernel '%s' takes %d arguments, %d given",
                            k->cname, k->nargs, n);
    if (n > RT_MAX_ARGS)
        return PyErr_Format(PyExc_TypeError, "kernel '%s': at most %d arguments", k->cname,
                            RT_MAX_ARGS);
    if (cuda_ensure() < 0 || cuda_enter(dev) < 0)
        return NULL;
    if (n > STACK_ARGS && (!(args = PyMem_Malloc(sizeof(Arg) * n)) ||
                           !(types = PyMem_Malloc(sizeof(Type *) * n))))
        goto nomem;
    for (int i = 0; i < n; i++) {
        args[i].kind = ARG_SCALAR;
        args[i].staged = NULL;
        args[i].locked = false;
        args[i].foreign = NULL;
    }
    for (int i = 0; i < n; i++) {
        if (classify(k, i, argv[i], &args[i], &foreign, n, l->stream) < 0)
            goto done;
        types[i] = args[i].type;
    }
    VFacts facts;
    launch_facts(args, n, &facts);
    KVersion *v = version_for(k, types, n, &facts, dev);
    if (!v || check_device_limits(l, v, dev) < 0)
        goto done;
    staged = true;
    for (int i = 0; i < n; i++)
        if (args[i].kind == ARG_HOST && stage_host(k, &args[i], l->stream) < 0)
            goto done;
    if (pack_all(k, args, n, buf, &size) < 0 || do_launch(l, v, dev, buf, size) < 0)
        goto done;
    rc = 0;
    if (staged && unstage_host(k, args, n, v->written, l->stream, true) < 0)
        rc = -1;
    staged = false;
done:
    if (staged)
        unstage_host(k, args, n, 0, l->stream, false);
    for (int i = 0; foreign && i < n; i++)
        cuda_release_foreign(&foreign[i]);
    PyMem_Free(foreign);
    if (args != stack_args)
        PyMem_Free(args);
    if (types != stack_types)
        PyMem_Free(types);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
nomem:
    PyErr_NoMemory();
    goto done;
}

/* ---- the Launch type ---- */

static int launch_traverse(CudaLaunch *l, visitproc visit, void *arg)
{
    Py_VISIT(l->kernel);
    Py_VISIT(l->stream_obj);
    return 0;
}

static int launch_clear(CudaLaunch *l)
{
    Py_CLEAR(l->kernel);
    Py_CLEAR(l->stream_obj);
    return 0;
}

static void launch_dealloc(CudaLaunch *l)
{
    PyObject_GC_UnTrack(l);
    launch_clear(l);
    PyObject_GC_Del(l);
}

static PyObject *launch_repr(CudaLaunch *l)
{
    return PyUnicode_FromFormat("<launch of kernel '%s' grid (%u, %u, %u) block (%u, %u, %u) "
                                "shared %u stream %p>", l->kernel->cname, l->grid[0],
                                l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
                                l->shared, l->stream);
}

static PyObject *launch_get_griddim(CudaLaunch *l, void *u)
{
    return Py_BuildValue("(III)", l->grid[0], l->grid[1], l->grid[2]);
}

static PyObject *launch_get_blockdim(CudaLaunch *l, void *u)
{
    return Py_BuildValue("(III)", l->block[0], l->block[1], l->block[2]);
}

static PyObject *launch_get_sharedmem(CudaLaunch *l, void *u)
{
    return PyLong_FromUnsignedLong(l->shared);
}

static PyGetSetDef launch_getset[] = {
    {"griddim", (getter)launch_get_griddim, NULL, NULL, NULL},
    {"blockdim", (getter)launch_get_blockdim, NULL, NULL, NULL},
    {"sharedmem", (getter)launch_get_sharedmem, NULL, NULL, NULL},
    {NULL},
};

static PyTypeObject CudaLaunchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit._core.KernelLaunch",
    .tp_basicsize = sizeof(CudaLaunch),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A kernel with its launch configuration: call it with the kernel's arguments.",
    .tp_dealloc = (destructor)launch_dealloc,
    .tp_traverse = (traverseproc)launch_traverse,
    .tp_clear = (inquiry)launch_clear,
    .tp_repr = (reprfunc)launch_repr,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(CudaLaunch, vectorcall),
    .tp_getset = launch_getset,
};

/* ---- Kernel: inspection ---- */

static PyObject *signature_of(KVersion *v)
{
    PyObject *t = PyTuple_New(v->argtypes ? v->nargs : 0);
    for (int i = 0; t && v->argtypes && i < v->nargs; i++) {
        PyObject *s = PyUnicode_FromString(v->argtypes[i]->name);
        if (!s) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

/* d[signature of v] = val, taking val's reference (NULL: an error already set); -1 on error. */
static int set_by_signature(PyObject *d, KVersion *v, PyObject *val)
{
    PyObject *key = signature_of(v);
    int r = key && val ? PyDict_SetItem(d, key, val) : -1;
    Py_XDECREF(key);
    Py_XDECREF(val);
    return r;
}

/* {signature (tuple of type names): text} over the compiled versions. */
static PyObject *texts(CudaKernel *k, size_t field)
{
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < k->nversions; i++) {
        KVersion *v = k->versions[i];
        const char *text = *(char **)((char *)v + field);
        if (set_by_signature(d, v, PyUnicode_FromString(text ? text : "")) < 0)
            Py_CLEAR(d);
    }
    return d;
}

static PyObject *kernel_inspect_asm(CudaKernel *k, PyObject *u)
{
    return texts(k, offsetof(KVersion, ptx));
}

static PyObject *kernel_inspect_llvm(CudaKernel *k, PyObject *u)
{
    return texts(k, offsetof(KVersion, llvm_dump));
}

static PyObject *kernel_inspect_types(CudaKernel *k, PyObject *u)
{
    return texts(k, offsetof(KVersion, types_dump));
}

/* kernel._written(): {signature: written mask} (tests of the copy-back rule). */
static PyObject *kernel_written(CudaKernel *k, PyObject *u)
{
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < k->nversions; i++) {
        KVersion *v = k->versions[i];
        if (set_by_signature(d, v, PyLong_FromUnsignedLongLong(v->written)) < 0)
            Py_CLEAR(d);
    }
    return d;
}

/* kernel._func_attribute(attr): {signature: cuFuncGetAttribute(attr)} over the versions loaded
 * on the current device (numba-cuda's get_regs_per_thread() and the rest). */
static PyObject *kernel_func_attribute(CudaKernel *k, PyObject *arg)
{
    int attr = PyLong_AsLong(arg), dev = cuda_current_device();
    if ((attr == -1 && PyErr_Occurred()) || cuda_ensure() < 0 || cuda_enter(dev) < 0)
        return NULL;
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < k->nversions; i++) {
        KVersion *v = k->versions[i];
        int value;
        if (!v->func[dev])
            continue;
        if (cuda_check(cuda_api.cuFuncGetAttribute(&value, attr, v->func[dev]),
                       "reading a kernel attribute") < 0) {
            Py_CLEAR(d);
            break;
        }
        if (set_by_signature(d, v, PyLong_FromLong(value)) < 0)
            Py_CLEAR(d);
    }
    return d;
}

/* kernel._max_cooperative_blocks(argtypes, threads, dynsmem): the most blocks of `threads`
 * threads a cooperative launch of the version for these argument type names (None: the version
 * launched last) may have on the current GPU; compiles and loads that version as needed. */
static PyObject *kernel_max_coop_blocks(CudaKernel *k, PyObject *args)
{
    PyObject *names;
    unsigned threads, dynsmem;
    if (!PyArg_ParseTuple(args, "OII:_max_cooperative_blocks", &names, &threads, &dynsmem))
        return NULL;
    int dev = cuda_current_device();
    if (dev < 0 || cuda_ensure() < 0 || cuda_enter(dev) < 0)
        return NULL;
    KVersion *v = k->last;
    if (names != Py_None) {
        Type *types[RT_MAX_ARGS];
        VFacts f = {0};
        Py_ssize_t n = PySequence_Size(names);
        if (n < 0 || n > RT_MAX_ARGS)
            return n < 0 ? NULL : PyErr_Format(PyExc_TypeError, "at most %d arguments",
                                               RT_MAX_ARGS);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *s = PySequence_GetItem(names, i);
            const char *tn = s ? PyUnicode_AsUTF8(s) : NULL;
            types[i] = tn ? ty_parse(tn) : NULL;
            if (tn && !types[i])
                PyErr_Format(PyExc_TypeError, "not a type name: '%s'", tn);
            Py_XDECREF(s);
            if (!types[i])
                return NULL;
            if (types[i]->kind == TY_ARRAY)   /* as a launch on separate whole arrays finds them */
                f.aligned |= f.noalias |= 1ull << i;
        }
        v = version_for(k, types, (int)n, &f, dev);
    } else if (!v)
        return PyErr_Format(PyExc_ValueError, "kernel '%s' has no compiled version yet: launch "
                            "it, or ask kernel.overloads[signature]", k->cname);
    if (!v || (!v->func[dev] && load_version(v, dev, k->cname, k->py_func ? (PyObject *)k : NULL) < 0))
        return NULL;
    long long most = co_resident_blocks(v, dev, threads, dynsmem);
    return most < 0 ? NULL : PyLong_FromLongLong(most);
}

/* kernel._versions() -> [(argument type names, cooperative)]: the compiled versions (one per
 * argument types and launch facts), for kernel.overloads. */
static PyObject *kernel_versions(CudaKernel *k, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < k->nversions; i++) {
        KVersion *v = k->versions[i];
        PyObject *names = PyTuple_New(v->argtypes ? v->nargs : 0);
        for (int j = 0; names && v->argtypes && j < v->nargs; j++) {
            PyObject *s = PyUnicode_FromString(v->argtypes[j]->name);
            if (!s)
                Py_CLEAR(names);
            else
                PyTuple_SET_ITEM(names, j, s);
        }
        PyObject *item = names ? Py_BuildValue("(NO)", names, version_cooperative(v) ? Py_True
                                                                                     : Py_False)
                               : NULL;
        if (!item || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

static PyMethodDef kernel_methods[] = {
    {"_func_attribute", (PyCFunction)kernel_func_attribute, METH_O,
     "{signature: the driver's function attribute attr} of the versions loaded on this GPU."},
    {"_versions", (PyCFunction)kernel_versions, METH_NOARGS,
     "[(argument type names, cooperative)] of the compiled versions."},
    {"_max_cooperative_blocks", (PyCFunction)kernel_max_coop_blocks, METH_VARARGS,
     "The most blocks a cooperative launch of a version may have on the current GPU."},
    {"forall", (PyCFunction)(void (*)(void))kernel_forall, METH_VARARGS | METH_KEYWORDS,
     "forall(ntasks, tpb=0, stream=0, sharedmem=0): a launch covering ntasks threads."},
    {"inspect_asm", (PyCFunction)kernel_inspect_asm, METH_NOARGS,
     "{signature: PTX} of the compiled versions."},
    {"inspect_llvm", (PyCFunction)kernel_inspect_llvm, METH_NOARGS,
     "{signature: LLVM IR} of the compiled versions."},
    {"inspect_types", (PyCFunction)kernel_inspect_types, METH_NOARGS,
     "{signature: typed IR} of the compiled versions."},
    {"_written", (PyCFunction)kernel_written, METH_NOARGS,
     "{signature: mask of the array arguments the kernel may write}."},
    {NULL},
};

static PyObject *kernel_get_py_func(CudaKernel *k, void *u)
{
    return Py_NewRef(k->py_func ? k->py_func : Py_None);
}

static PyObject *kernel_get_name(CudaKernel *k, void *u)
{
    return Py_NewRef(k->name ? k->name : Py_None);
}

static PyObject *kernel_get_nversions(CudaKernel *k, void *u)
{
    return PyLong_FromLong(k->nversions);
}

static PyGetSetDef kernel_getset[] = {
    {"py_func", (getter)kernel_get_py_func, NULL, "The Python function.", NULL},
    {"__name__", (getter)kernel_get_name, NULL, NULL, NULL},
    {"_nversions", (getter)kernel_get_nversions, NULL, "How many versions are compiled.", NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL},
};

static PyMappingMethods kernel_as_mapping = {.mp_subscript = (binaryfunc)kernel_getitem};

static PyTypeObject CudaKernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit._core.Kernel",
    .tp_basicsize = sizeof(CudaKernel),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A GPU kernel (@gpu.jit): launch it as kernel[griddim, blockdim](*args).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)kernel_init,
    .tp_dealloc = (destructor)kernel_dealloc,
    .tp_traverse = (traverseproc)kernel_traverse,
    .tp_clear = (inquiry)kernel_clear,
    .tp_call = (ternaryfunc)kernel_call,
    .tp_as_mapping = &kernel_as_mapping,
    .tp_methods = kernel_methods,
    .tp_getset = kernel_getset,
    .tp_dictoffset = offsetof(CudaKernel, dict),
    .tp_weaklistoffset = offsetof(CudaKernel, weakrefs),
};

/* ---- module functions ---- */

/* _cuda_load_ptx(ptx, entry, nargs=-1, written=all) -> a Kernel running hand-written PTX with
 * any arguments, packed by the ABI in cuda.h (the test path until kernels compile). */
static PyObject *py_load_ptx(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ptx", "entry", "nargs", "written", NULL};
    const char *ptx, *entry;
    int nargs = -1;
    unsigned long long written = EFFECTS_WRITES_ALL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "ss|iK:_cuda_load_ptx", kwlist, &ptx, &entry,
                                     &nargs, &written))
        return NULL;
    CudaKernel *k = (CudaKernel *)PyType_GenericNew(&CudaKernelType, NULL, NULL);
    if (!k)
        return NULL;
    k->nargs = nargs;
    k->name = PyUnicode_FromString(entry);
    KVersion *v = k->name ? version_new(NULL, 0, ptx, entry, written) : NULL;
    if (!v || !(k->cname = PyUnicode_AsUTF8(k->name)) || add_version(k, v) < 0) {
        Py_DECREF(k);
        return NULL;
    }
    return (PyObject *)k;
}

/* cuda_compile_ptx(pyfunc, registry, argtypes, device=False, fastmath=False, cc=(9, 0),
 * debug=False, lineinfo=False, opt=3, aligned=0, noalias=0) -> (ptx, entry, written):
 * compiles without a GPU. aligned and noalias are the masks of array arguments a launch would
 * find 16-byte aligned and apart from the other arrays (the version a launch over separate
 * whole allocations runs: every array bit in both). */
static PyObject *py_compile_ptx(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pyfunc", "registry", "argtypes", "device", "fastmath", "cc",
                             "debug", "lineinfo", "opt", "aligned", "noalias", "max_registers",
                             "launch_bounds", "error_model_numpy", NULL};
    PyObject *func, *registry, *typenames, *result = NULL;
    int device = 0, fastmath = 0, debug = 0, lineinfo = 0, opt = 3, major = 9, minor = 0;
    int maxreg = 0, bounds[3] = {0, 0, 0}, numpy_errors = 0;
    unsigned long long aligned = 0, noalias = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO!O|pp(ii)ppiKKi(iii)p:cuda_compile_ptx",
                                     kwlist, &func, &PyDict_Type, &registry, &typenames, &device,
                                     &fastmath, &major, &minor, &debug, &lineinfo, &opt,
                                     &aligned, &noalias, &maxreg, &bounds[0], &bounds[1],
                                     &bounds[2], &numpy_errors))
        return NULL;
    PyObject *name = PyObject_GetAttrString(func, "__name__");
    const char *cname = name ? PyUnicode_AsUTF8(name) : NULL;
    if (!cname)
        goto done;
    if (!cuda_compile_kernel) {
        raise_no_codegen(cname);
        goto done;
    }
    Py_ssize_t n = PySequence_Size(typenames);
    if (n < 0 || n > RT_MAX_ARGS) {
        if (n >= 0)
            PyErr_Format(PyExc_TypeError, "at most %d arguments", RT_MAX_ARGS);
        goto done;
    }
    Type *types[RT_MAX_ARGS];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PySequence_GetItem(typenames, i);
        const char *tn = s ? PyUnicode_AsUTF8(s) : NULL;
        types[i] = tn ? ty_parse(tn) : NULL;
        if (tn && !types[i])
            PyErr_Format(PyExc_TypeError, "not a type name: '%s'", tn);
        Py_XDECREF(s);
        if (!types[i])
            goto done;
    }
    if (populate_registry(registry) < 0)
        goto done;
    CudaCompileOptions opts = {.cc_major = major, .cc_minor = minor, .device = device,
                               .lineinfo = lineinfo, .aligned = aligned,
                               .noalias = noalias, .max_registers = maxreg,
                               .launch_bounds = {bounds[0], bounds[1], bounds[2]}};
    rt_default_options(&opts.base);
    opts.base.opt_level = opt;
    opts.base.fastmath = fastmath;
    opts.base.error_model_numpy = numpy_errors;
    opts.base.debug |= debug;
    opts.base.boundscheck |= debug;
    if (rt_boundscheck_env() >= 0)
        opts.base.boundscheck = rt_boundscheck_env();
    Arena *arena = arena_new();
    Diag diag = {0};
    CudaKernelCode code = {0};
    if (!arena) {
        PyErr_NoMemory();
        goto done;
    }
    if (cuda_compile_kernel(func, registry, types, (int)n, &opts, arena, &code, &diag) < 0 ||
        arena_failed(arena))
        rt_raise_compile_error(arena, &diag);
    else
        result = Py_BuildValue("(ssK)", code.ptx, code.entry, (unsigned long long)code.written);
    arena_free(arena);
done:
    Py_XDECREF(name);
    return result;
}

/* cuda_set_directions(In, Out, InOut): the classes of gpu.In/Out/InOut (pyjit.gpu.hardware). */
static PyObject *py_set_directions(PyObject *self, PyObject *args)
{
    PyObject *c[3];
    if (!PyArg_ParseTuple(args, "O!O!O!:cuda_set_directions", &PyType_Type, &c[0], &PyType_Type,
                          &c[1], &PyType_Type, &c[2]))
        return NULL;
    for (int i = 0; i < 3; i++)
        Py_XSETREF(direction_class[DIR_IN + i], Py_NewRef(c[i]));
    Py_RETURN_NONE;
}

/* _cuda_param_layout(ptx, entry) -> ([offsets], total): the parameter layout a cooperative
 * launch uses (param_layout), for tests that check it without a GPU. */
static PyObject *py_param_layout(PyObject *self, PyObject *args)
{
    const char *ptx, *entry;
    if (!PyArg_ParseTuple(args, "ss:_cuda_param_layout", &ptx, &entry))
        return NULL;
    size_t *offs = PyMem_Malloc(sizeof *offs * CUDA_MAX_PARAM_BYTES), total = 0;
    if (!offs)
        return PyErr_NoMemory();
    int n = param_layout(ptx, entry, offs, CUDA_MAX_PARAM_BYTES, &total);
    PyObject *list = n < 0 ? NULL : PyList_New(n);
    for (int i = 0; list && i < n; i++)
        PyList_SET_ITEM(list, i, PyLong_FromSize_t(offs[i]));
    PyMem_Free(offs);
    if (n < 0)
        return PyErr_Format(PyExc_ValueError, "the parameters of entry '%s' are not understood",
                            entry);
    return list ? Py_BuildValue("(Nn)", list, (Py_ssize_t)total) : NULL;
}

static PyObject *py_has_codegen(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(cuda_compile_kernel != NULL);
}

static PyMethodDef launch_functions[] = {
    {"_cuda_load_ptx", (PyCFunction)(void (*)(void))py_load_ptx, METH_VARARGS | METH_KEYWORDS,
     "_cuda_load_ptx(ptx, entry, nargs=-1, written=all): a Kernel over hand-written PTX."},
    {"cuda_compile_ptx", (PyCFunction)(void (*)(void))py_compile_ptx,
     METH_VARARGS | METH_KEYWORDS, "Compiles a Python function to PTX: (ptx, entry, written)."},
    {"cuda_set_directions", py_set_directions, METH_VARARGS, "Registers gpu.In/Out/InOut."},
    {"cuda_has_codegen", py_has_codegen, METH_NOARGS, "True when kernels compile to PTX."},
    {"_cuda_param_layout", py_param_layout, METH_VARARGS,
     "The parameter offsets a cooperative launch passes (tests)."},
    {NULL, NULL, 0, NULL},
};

int cuda_launch_init(PyObject *module)
{
    if (PyType_Ready(&CudaKernelType) < 0 || PyType_Ready(&CudaLaunchType) < 0 ||
        PyModule_AddFunctions(module, launch_functions) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Kernel", (PyObject *)&CudaKernelType);
}
