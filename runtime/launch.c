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
#include "frontend/frontend.h"

#include <stdlib.h>
#include <string.h>

#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

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
    struct SrcImage *image; /* a CUDA C kernel's: the module it shares with its source's */
} KVersion;

/* CUDA C kernels (gpu.SourceModule, RawKernel): their own part, at the end of this file. */
typedef struct SrcImage SrcImage;
typedef struct SrcKernel SrcKernel;

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
    RtSignature *sigs;      /* declared signatures (@gpu.jit('void(float32[:], int32)')) */
    int nsigs;
    SrcKernel *src;         /* a CUDA C kernel's parameters; NULL for @gpu.jit kernels */
    uint64_t literal_args;  /* bit i: argument i is keyed by its value (literally() asked for
                             * it, as numba-cuda's dispatcher makes it a literal type) */
} CudaKernel;

static PyTypeObject CudaKernelType, CudaLaunchType;

static int src_image_load(SrcImage *im, int dev, const char *kname, CUmodule *out);
static void src_kernel_free(SrcKernel *sk);
static PyObject *source_call(CudaKernel *k, PyObject *args, PyObject *kwds);
static PyObject *source_vectorcall(PyObject *self, PyObject *const *argv, size_t nargsf,
                                   PyObject *kwnames);

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
        if (v->module[d] && !v->image && cuda_enter(d) == 0)
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
                                 int cc_major, int cc_minor, int *asked)
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
        arena_failed(arena)) {
        if (asked && diag.kind == DIAG_LITERAL && !diag.literal_shape && diag.literal_arg >= 0 &&
            diag.literal_arg < n && diag.literal_arg < 64 && !k->nsigs)
            *asked = diag.literal_arg;   /* compiled again for that argument's value */
        else
            rt_raise_compile_error(arena, &diag);
    }
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
    if (v->image)
        return src_image_load(v->image, dev, kname, &v->module[dev]);
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
    for (int i = 0; i < k->nsigs; i++)
        PyMem_RawFree(k->sigs[i].args);
    PyMem_RawFree(k->sigs);
    src_kernel_free(k->src);
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
    l->vectorcall = k->src ? source_vectorcall : launch_vectorcall;
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

static PyObject *no_tasks(PyObject *self, PyObject *args)
{
    Py_RETURN_NONE;
}

static PyMethodDef no_tasks_def = {"forall_of_no_tasks", no_tasks, METH_VARARGS,
                                   "kernel.forall(0)(...): launches nothing"};

/* kernel.forall(ntasks, tpb=0, stream=0, sharedmem=0): enough blocks of tpb threads (256 by
 * default) for ntasks threads; none for none. */
static PyObject *kernel_forall(CudaKernel *k, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ntasks", "tpb", "stream", "sharedmem", NULL};
    long long ntasks, tpb = 0;
    PyObject *stream = NULL, *shared = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "L|LOO:forall", kwlist, &ntasks, &tpb, &stream,
                                     &shared))
        return NULL;
    if (ntasks < 0)
        return PyErr_Format(PyExc_ValueError, "kernel '%s': forall(%lld): can't create ForAll "
                            "with a negative task count", k->cname, ntasks);
    if (ntasks == 0)   /* nothing to run, as numba-cuda's ForAll launches nothing */
        return PyCFunction_New(&no_tasks_def, NULL);
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
    if (k->src)
        return source_call(k, args, kwds);
    return PyErr_Format(PyExc_TypeError, "kernel '%s' is launched with a configuration: "
                        "%s[blocks, threads](...)", k->cname, k->cname);
}

/* ---- arguments ---- */

enum { ARG_DEVICE, ARG_SCALAR, ARG_HOST, ARG_FOREIGN, ARG_TUPLE };

typedef struct Arg {
    int kind, dir;
    Type *type;
    Type *given;                /* a scalar converted to its declared type: the value's own */
    PyObject *obj;              /* the value (for host arrays: the NumPy array) */
    CUdeviceptr data;
    int ndim;
    const int64_t *shape, *strides;
    PyArrayObject *staged;      /* host arrays: the contiguous copy moved (may be obj) */
    bool in_tuple;              /* an item of a tuple argument (flattened: tuple_leaves) */
    int param;                  /* the kernel parameter it is (or is an item of) */
    CUdeviceptr temp;           /* host arrays: the device copy */
    PyObject *owned;            /* a record's 0-d array over its bytes (classify_record) */
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

static void classify_device(Arg *a, const CudaArray *d)
{
    a->kind = ARG_DEVICE;
    a->data = d->data;
    a->ndim = d->ndim;
    a->shape = d->shape;
    a->strides = d->strides;
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

/* A record argument (np.void, np.record) travels as a 0-d host array over its bytes: copied to
 * the device before the launch, its address the kernel's parameter (lower_gpu.c: flatten), and
 * copied back when the kernel writes it, into the record and so into the array it is an item of,
 * as numba-cuda copies a record argument in and out. */
static int classify_record(CudaKernel *k, int i, Arg *a, PyObject *obj)
{
    if (!PyArray_IsScalar(obj, Void))
        return PyErr_Format(PyExc_TypeError, "kernel '%s' argument %d: a record argument is a "
                            "NumPy record (np.void), not %.100s", k->cname, i + 1,
                            Py_TYPE(obj)->tp_name), -1;
    PyVoidScalarObject *v = (PyVoidScalarObject *)obj;
    Py_INCREF(v->descr);
    PyObject *view = PyArray_NewFromDescr(&PyArray_Type, v->descr, 0, NULL, NULL, v->obval,
                                          v->flags & NPY_ARRAY_WRITEABLE, NULL);
    if (!view || PyArray_SetBaseObject((PyArrayObject *)view, Py_NewRef(obj)) < 0) {
        Py_XDECREF(view);
        return -1;
    }
    a->owned = view;
    return classify_host(a, view, DIR_AUTO);
}

static bool holds_record(const Type *t)
{
    if (t->kind == TY_RECORD)
        return true;
    if (t->kind == TY_TUPLE)
        for (int j = 0; j < t->tuple.n; j++)
            if (holds_record(t->tuple.items[j]))
                return true;
    return false;
}

static bool holds_array(const Type *t)
{
    if (t->kind == TY_ARRAY)
        return true;
    if (t->kind == TY_TUPLE)
        for (int j = 0; j < t->tuple.n; j++)
            if (holds_array(t->tuple.items[j]))
                return true;
    return false;
}

/* The type of a tuple argument holding device arrays (which rt_typeof does not know): its
 * items typed one by one; NULL, with no exception, when some item has no type. */
static Type *typeof_tuple_arg(PyObject *obj)
{
    Py_ssize_t n = PyTuple_GET_SIZE(obj);
    Type *stack[16], **items = n <= 16 ? stack : PyMem_Malloc(sizeof(Type *) * (size_t)n);
    Type *t = NULL;
    if (!items)
        return NULL;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *item = PyTuple_GET_ITEM(obj, j);
        items[j] = Py_TYPE(item) == &CudaArrayType ? ((CudaArray *)item)->type
                   : PyTuple_Check(item) ? typeof_tuple_arg(item)
                   : rt_typeof(item, RT_TYPEOF_GPU);
        if (!items[j])
            goto done;
        items[j] = ty_strong(items[j]);
    }
    const FeNamedTuple *nt = fe_namedtuple_class((PyObject *)Py_TYPE(obj));
    t = nt && nt->n == n ? ty_namedtuple(nt->cls, nt->name, (const char *const *)nt->fields,
                                         items, (int)n)
                         : ty_tuple(items, (int)n);
done:
    if (items != stack)
        PyMem_Free(items);
    PyErr_Clear();
    return t;
}

/* Types one argument and says how it travels. 0, or -1 with an exception. */

/* The kernel's parameter names (co_varnames, whose first nargs they are); NULL for a PTX
 * kernel or on error, with no exception. */
static PyObject *param_names(CudaKernel *k)
{
    PyObject *names = k->py_func ? PyObject_GetAttrString(PyFunction_GET_CODE(k->py_func),
                                                          "co_varnames") : NULL;
    if (names && !PyTuple_Check(names))
        Py_CLEAR(names);
    PyErr_Clear();
    return names;
}

/* The TypeError for argument i of a kernel that no launch accepts, naming the parameter. */
static int raise_kernel_arg_error(CudaKernel *k, int i, PyObject *obj)
{
    PyObject *names = param_names(k);
    const char *argname = names && i < PyTuple_GET_SIZE(names) ?
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
        if (d->record)   /* to_device(record): the record itself, its address the parameter */
            a->type = d->type->array.dtype;
        classify_device(a, d);
        return 0;
    }
    if ((a->type = rt_typeof(obj, RT_TYPEOF_GPU)) ||
        (PyTuple_Check(obj) && (a->type = typeof_tuple_arg(obj)))) {
        a->kind = ARG_SCALAR;
        if (a->type->kind == TY_ARRAY)
            return np_ready() < 0 ? -1 : classify_host(a, obj, DIR_AUTO);
        if (a->type->kind == TY_RECORD)
            return np_ready() < 0 ? -1 : classify_record(k, i, a, obj);
        if (a->type->kind == TY_TUPLE && holds_record(a->type))
            return PyErr_Format(PyExc_TypeError, "kernel '%s' argument %d: a tuple holding a "
                                "NumPy record cannot be a kernel argument: pass the record as "
                                "an argument of its own", k->cname, i + 1), -1;
        if (a->type->kind == TY_TUPLE && holds_array(a->type))
            a->kind = ARG_TUPLE;   /* flattened into its items before the launch */
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

/* ---- tuples holding arrays ----
 *
 * The kernel takes a tuple's items flattened, an array as its data pointer, shape and strides
 * as when passed alone: so a tuple argument becomes one Arg per item, and the launch stages,
 * packs and copies back those as it does separate arguments. */

static int count_leaves(const Type *t)
{
    if (t->kind != TY_TUPLE)
        return 1;
    int n = 0;
    for (int j = 0; j < t->tuple.n; j++)
        n += count_leaves(t->tuple.items[j]);
    return n;
}

/* The items of tuple obj (of type t, argument i) appended to out from *m. */
static int tuple_leaves(CudaKernel *k, int i, PyObject *obj, Type *t, Arg *out, int *m)
{
    for (int j = 0; j < t->tuple.n; j++) {
        PyObject *item = PyTuple_GET_ITEM(obj, j);
        Type *it = t->tuple.items[j];
        if (it->kind == TY_TUPLE) {
            if (tuple_leaves(k, i, item, it, out, m) < 0)
                return -1;
            continue;
        }
        Arg *a = &out[(*m)++];
        memset(a, 0, sizeof *a);
        a->kind = ARG_SCALAR;
        a->obj = item;
        a->type = it;
        a->in_tuple = true;
        a->param = i;
        if (it->kind != TY_ARRAY)
            continue;
        if (Py_TYPE(item) == &CudaArrayType)
            classify_device(a, (CudaArray *)item);
        else if (np_ready() == 0 && PyArray_Check(item))
            classify_host(a, item, DIR_AUTO);
        else
            return PyErr_Format(PyExc_TypeError, "kernel '%s' argument %d: a tuple's arrays are "
                                "device arrays or NumPy arrays, not %.100s", k->cname, i + 1,
                                Py_TYPE(item)->tp_name), -1;
    }
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
    /* what the kernel writes is known by parameter: a tuple's arrays go back when writable */
    return a->in_tuple || ((written >> (i < 63 ? i : 63)) & 1);
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
        a->dir = ok && a->temp && copies_back(a, written, a->param) ? DIR_INOUT : DIR_IN;
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

/* A scalar or tuple value of type t, flattened (tuples item by item); given, when not NULL, is
 * the value's own type, converted to t (a declared signature's). */
static int pack_value(char *buf, size_t *off, PyObject *obj, Type *given, Type *t)
{
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->tuple.n; i++) {
            int rc = pack_value(buf, off, PyTuple_GET_ITEM(obj, i),
                                given ? given->tuple.items[i] : NULL, t->tuple.items[i]);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    if (t->kind == TY_NONE)
        return 0;
    if (PyFloat_CheckExact(obj) && t->kind == TY_FLOAT64) {
        double v = PyFloat_AS_DOUBLE(obj);
        return put(buf, off, &v, 8, 8) < 0 ? -2 : 0;
    }
    _Alignas(16) char tmp[32];
    if ((given && ty_strong(given) != t ? rt_unbox_as(obj, given, t, tmp) : rt_unbox(obj, t, tmp))
        < 0)
        return -1;
    size_t size = (size_t)ty_mem_size(t), align = (size_t)ty_mem_align(t);
    return put(buf, off, tmp, size, align) < 0 ? -2 : 0;
}

/* ---- the launch ---- */

/* The byte range [*lo, *hi) an array argument may touch; false when it is empty. */
static bool extent(const Arg *a, uint64_t *lo, uint64_t *hi)
{
    int64_t below = 0, above = ty_itemsize(a->type->kind == TY_RECORD ? a->type
                                                                      : a->type->array.dtype);
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
        if (args[i].kind == ARG_SCALAR || args[i].kind == ARG_TUPLE)
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

/* literally() asked for argument i's value: the kernel is keyed by it from now on, and this
 * launch's type of it is its literal type. -1 with a TypingError when the value has none, or
 * was asked for again (typing went wrong elsewhere), as the CPU dispatcher says it. */
static int key_by_value(CudaKernel *k, PyObject *const *argv, Type **types, int i)
{
    Type *lit = argv ? rt_literal_type(argv[i]) : NULL;
    if (!lit || ty_literal_value(types[i])) {
        PyObject *names = param_names(k);
        const char *name = names && i < PyTuple_GET_SIZE(names) ?
                           PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i)) : NULL;
        PyErr_Clear();
        PyErr_Format(rt_error_class("TypingError"), "kernel '%s' calls literally() on its "
                     "argument '%s', so it is compiled for each value of it; %s", k->cname,
                     name ? name : "?", !argv ? "this version is compiled for its types alone"
                     : lit ? "typing it asked for that value again"
                           : "that takes an int, a bool or a str, not the value given");
        Py_XDECREF(names);
        return -1;
    }
    k->literal_args |= (uint64_t)1 << i;
    types[i] = lit;
    return 0;
}

/* The types of the arguments keyed by their values made their literal types (a value with
 * none keeps its type: literally() then asks for it, and key_by_value says why it cannot). */
static void literal_types(CudaKernel *k, PyObject *const *argv, Type **types, int n)
{
    for (int i = 0; i < n && i < 64; i++) {
        Type *lit = (k->literal_args >> i) & 1 ? rt_literal_type(argv[i]) : NULL;
        if (lit)
            types[i] = lit;
    }
}

/* The version for these argument types on device dev, compiled and loaded as needed; argv, when
 * given, the launch's values (for literally()'s requests). */
static KVersion *version_for(CudaKernel *k, Type **types, int n, const VFacts *f, int dev,
                             PyObject *const *argv)
{
    KVersion *v = k->last;
    if (!v || !version_matches(v, types, n, f)) {
        v = NULL;
        for (int i = 0; i < k->nversions && !v; i++)
            if (version_matches(k->versions[i], types, n, f))
                v = k->versions[i];
        const CudaDeviceInfo *info = v ? NULL : cuda_device_info(dev);
        if (!v && !info)
            return NULL;
        for (int tries = 0; !v && tries <= n; tries++) {
            int asked = -1;
            KVersion *made = compile_version(k, types, n, f, info->cc_major, info->cc_minor,
                                             &asked);
            if (made) {
                if (add_version(k, made) < 0)
                    return NULL;
                v = made;
                break;
            }
            if (asked < 0 || key_by_value(k, argv, types, asked) < 0)
                return NULL;
            for (int i = 0; !v && i < k->nversions; i++)   /* made for this value already */
                if (version_matches(k->versions[i], types, n, f))
                    v = k->versions[i];
        }
        if (!v)
            return (KVersion *)PyErr_Format(rt_error_class("TypingError"), "kernel '%s': "
                                            "literally() kept asking for values", k->cname);
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
        int rc = args[i].kind == ARG_SCALAR ? pack_value(buf, &off, args[i].obj, args[i].given,
                                                         args[i].type)
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

/* A kernel declared with signatures takes the one its arguments convert to best, as the CPU
 * dispatcher chooses (rt_best_of; numba-cuda's rules, rt_kernel_arg_rank). Scalars and tuples
 * of scalars become its parameter types (converted when packed); arrays and tuples holding them
 * keep their own types, so the version compiled is for the layout given. */
static int match_declared(CudaKernel *k, Arg *args, Type **types, int n)
{
    int s = rt_best_of(k->sigs, k->nsigs, types, n, rt_kernel_arg_rank);
    if (s < 0) {
        PyObject *names = param_names(k);
        rt_raise_no_declared_match(k->cname, names, k->sigs, k->nsigs, types, n,
                                   rt_kernel_arg_rank);
        Py_XDECREF(names);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        Type *want = k->sigs[s].args[i];
        if (args[i].kind != ARG_SCALAR || holds_array(want))
            continue;
        if (ty_strong(args[i].type) != want)
            args[i].given = args[i].type;
        args[i].type = types[i] = want;
    }
    return 0;
}

#define STACK_ARGS 8

/* numba-cuda fills in the defaults of the trailing parameters a launch leaves out
 * (`def k(x, out, eps=1e-5)` launched with two arguments): full gets argv then those defaults,
 * borrowed from *defaults, a reference the caller releases. False when there are not enough
 * defaults (the count check then refuses the launch). */
static bool fold_defaults(CudaKernel *k, PyObject *const *argv, int n, PyObject **full,
                          PyObject **defaults)
{
    if (!k->py_func || !PyFunction_Check(k->py_func) || k->nargs > RT_MAX_ARGS)
        return false;
    PyObject *d = PyFunction_GetDefaults(k->py_func);   /* borrowed; may be NULL */
    int nd = d ? (int)PyTuple_GET_SIZE(d) : 0, missing = k->nargs - n;
    if (missing <= 0 || missing > nd)
        return false;
    for (int i = 0; i < n; i++)
        full[i] = argv[i];
    for (int i = 0; i < missing; i++)
        full[n + i] = PyTuple_GET_ITEM(d, nd - missing + i);
    *defaults = Py_NewRef(d);
    return true;
}

static PyObject *launch_vectorcall(PyObject *self, PyObject *const *argv, size_t nargsf,
                                   PyObject *kwnames)
{
    CudaLaunch *l = (CudaLaunch *)self;
    CudaKernel *k = l->kernel;
    int n = (int)PyVectorcall_NARGS(nargsf), dev = cuda_current_device(), rc = -1;
    Arg stack_args[STACK_ARGS], *args = stack_args, *run = stack_args;
    int nrun = n, leaves = 0;   /* the Args staged and packed: tuples flattened */
    int classified = 0;         /* the Args classify has filled (and may own a reference) */
    bool tuples = false;
    Type *stack_types[STACK_ARGS], **types = stack_types;
    CudaForeign *foreign = NULL;
    _Alignas(16) char buf[CUDA_MAX_PARAM_BYTES];
    size_t size = 0;
    bool staged = false;
    PyObject *full[RT_MAX_ARGS], *defaults = NULL;
    if (kwnames && PyTuple_GET_SIZE(kwnames))
        return PyErr_Format(PyExc_TypeError, "kernel '%s' takes positional arguments only",
                            k->cname);
    if (k->nargs >= 0 && n < k->nargs && fold_defaults(k, argv, n, full, &defaults)) {
        argv = full;
        n = nrun = k->nargs;
    }
    if (k->nargs >= 0 && n != k->nargs)
        return PyErr_Format(PyExc_TypeError, "kernel '%s' takes %d arguments, %d given",
                            k->cname, k->nargs, n);
    if (n > RT_MAX_ARGS)
        return PyErr_Format(PyExc_TypeError, "kernel '%s': at most %d arguments", k->cname,
                            RT_MAX_ARGS);
    if (cuda_ensure() < 0 || cuda_enter(dev) < 0)
        goto done;
    if (n > STACK_ARGS && (!(args = PyMem_Malloc(sizeof(Arg) * n)) ||
                           !(types = PyMem_Malloc(sizeof(Type *) * n))))
        goto nomem;
    memset(args, 0, sizeof(Arg) * (size_t)n);
    run = args;
    for (int i = 0; i < n; i++) {
        args[i].kind = ARG_SCALAR;
        args[i].param = i;
        classified = i + 1;
        if (classify(k, i, argv[i], &args[i], &foreign, n, l->stream) < 0)
            goto done;
        types[i] = args[i].type;
        if (args[i].kind == ARG_TUPLE) {
            nrun += count_leaves(args[i].type) - 1;
            tuples = true;
        }
    }
    if (k->nsigs && match_declared(k, args, types, n) < 0)
        goto done;
    VFacts facts;
    launch_facts(args, n, &facts);
    if (k->literal_args)
        literal_types(k, argv, types, n);
    KVersion *v = version_for(k, types, n, &facts, dev, argv);
    if (!v || check_device_limits(l, v, dev) < 0)
        goto done;
    if (tuples) {
        if (!(run = PyMem_Calloc((size_t)nrun, sizeof(Arg))))
            goto nomem;
        for (int i = 0; i < n; i++)
            if (args[i].kind != ARG_TUPLE)
                run[leaves++] = args[i];
            else if (tuple_leaves(k, i, args[i].obj, args[i].type, run, &leaves) < 0)
                goto done;
    }
    staged = true;
    for (int i = 0; i < nrun; i++)
        if (run[i].kind == ARG_HOST && stage_host(k, &run[i], l->stream) < 0)
            goto done;
    if (pack_all(k, run, nrun, buf, &size) < 0 || do_launch(l, v, dev, buf, size) < 0)
        goto done;
    rc = 0;
    if (staged && unstage_host(k, run, nrun, v->written, l->stream, true) < 0)
        rc = -1;
    staged = false;
done:
    if (staged)
        unstage_host(k, run, nrun, 0, l->stream, false);
    for (int i = 0; i < classified; i++)
        Py_CLEAR(args[i].owned);
    for (int i = 0; foreign && i < n; i++)
        cuda_release_foreign(&foreign[i]);
    PyMem_Free(foreign);
    if (run != args && run != stack_args)
        PyMem_Free(run);
    if (args != stack_args)
        PyMem_Free(args);
    if (types != stack_types)
        PyMem_Free(types);
    Py_XDECREF(defaults);
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

/* A version's argument types as every backend names them (numba-cuda's names): a Python
 * number's weak type by its own, 'float64' for 'weak float64'. */
static PyObject *signature_of(KVersion *v)
{
    PyObject *t = PyTuple_New(v->argtypes ? v->nargs : 0);
    for (int i = 0; t && v->argtypes && i < v->nargs; i++) {
        PyObject *s = PyUnicode_FromString(ty_strong(v->argtypes[i])->name);
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

/* Whether the type names of a signature asked for take those of a compiled version: the same
 * (a weak Python number's as its type), or an array of any layout ("array(float64, 1d, A)") where the version's has one. */
static bool signature_takes(PyObject *asked, PyObject *have)
{
    if (PyTuple_GET_SIZE(asked) != PyTuple_GET_SIZE(have))
        return false;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(asked); i++) {
        const char *a = PyUnicode_AsUTF8(PyTuple_GET_ITEM(asked, i));
        const char *h = PyUnicode_AsUTF8(PyTuple_GET_ITEM(have, i));
        if (!a || !h)
            return false;
        if (strncmp(h, "weak ", 5) == 0)   /* a Python number's version answers for its type */
            h += 5;
        size_t n = strlen(a);
        bool any_layout = n > 3 && strcmp(a + n - 3, " A)") == 0;
        if (strcmp(a, h) != 0 && !(any_layout && strlen(h) == n && strncmp(a, h, n - 2) == 0))
            return false;
    }
    return true;
}

/* inspect_X(signature=None, file=None): {signature: text} over the versions, or the text of the
 * version of signature (its types or their names); with file= the text (all versions' when no
 * signature) is written there and None returned, as numba-cuda's kernels do. */
static PyObject *inspect_text(CudaKernel *k, size_t field, const char *format, PyObject *args,
                              PyObject *kw)
{
    static char *kwlist[] = {"signature", "file", NULL};
    PyObject *sig = Py_None, *file = Py_None, *text = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, format, kwlist, &sig, &file))
        return NULL;
    PyObject *d = texts(k, field);
    if (!d || (sig == Py_None && file == Py_None))
        return d;
    if (sig != Py_None) {
        PyObject *names = PySequence_Tuple(sig), *key = NULL;
        if (names)
            key = PyTuple_New(PyTuple_GET_SIZE(names));
        for (Py_ssize_t i = 0; key && i < PyTuple_GET_SIZE(names); i++) {
            PyObject *s = PyObject_Str(PyTuple_GET_ITEM(names, i));
            if (!s)
                Py_CLEAR(key);
            else
                PyTuple_SET_ITEM(key, i, s);
        }
        text = key ? PyDict_GetItemWithError(d, key) : NULL;
        Py_ssize_t pos = 0;
        PyObject *have, *value;
        while (key && !text && !PyErr_Occurred() && PyDict_Next(d, &pos, &have, &value))
            if (signature_takes(key, have))
                text = value;
        if (key && !text && !PyErr_Occurred())
            PyErr_Format(PyExc_KeyError, "kernel '%s' has no version for the signature %R",
                         k->cname, key);
        Py_XINCREF(text);
        Py_XDECREF(names);
        Py_XDECREF(key);
    } else {
        PyObject *sep = PyUnicode_FromString("\n"), *values = PyDict_Values(d);
        text = sep && values ? PyUnicode_Join(sep, values) : NULL;
        Py_XDECREF(sep);
        Py_XDECREF(values);
    }
    Py_DECREF(d);
    if (!text || file == Py_None)
        return text;
    int rc = PyFile_WriteObject(text, file, Py_PRINT_RAW);
    Py_DECREF(text);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *kernel_inspect_asm(CudaKernel *k, PyObject *args, PyObject *kw)
{
    return inspect_text(k, offsetof(KVersion, ptx), "|OO:inspect_asm", args, kw);
}

static PyObject *kernel_inspect_llvm(CudaKernel *k, PyObject *args, PyObject *kw)
{
    return inspect_text(k, offsetof(KVersion, llvm_dump), "|OO:inspect_llvm", args, kw);
}

static PyObject *kernel_inspect_types(CudaKernel *k, PyObject *args, PyObject *kw)
{
    return inspect_text(k, offsetof(KVersion, types_dump), "|OO:inspect_types", args, kw);
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
        v = version_for(k, types, (int)n, &f, dev, NULL);
    } else if (!v)
        return PyErr_Format(PyExc_ValueError, "kernel '%s' has no compiled version yet: launch "
                            "it, or ask kernel.overloads[signature]", k->cname);
    if (!v || (!v->func[dev] && load_version(v, dev, k->cname, k->py_func ? (PyObject *)k : NULL) < 0))
        return NULL;
    long long most = co_resident_blocks(v, dev, threads, dynsmem);
    return most < 0 ? NULL : PyLong_FromLongLong(most);
}

/* kernel._declare(argument type names): adds a declared signature (numba-cuda's eager
 * @cuda.jit('void(float32[:], int32)'), or each of a list); launches then convert to them. */
static PyObject *kernel_declare(CudaKernel *k, PyObject *names)
{
    Type *types[RT_MAX_ARGS];
    if (k->nargs < 0 || k->src)
        return PyErr_Format(PyExc_TypeError, "kernel '%s' takes no declared signature", k->cname);
    if (PyTuple_Check(names) && PyTuple_GET_SIZE(names) != k->nargs)
        return PyErr_Format(PyExc_TypeError, "kernel '%s' takes %d argument%s; its signature "
                            "declares %zd", k->cname, k->nargs, k->nargs == 1 ? "" : "s",
                            PyTuple_GET_SIZE(names));
    if (k->nargs > RT_MAX_ARGS)
        return PyErr_Format(PyExc_TypeError, "kernel '%s': at most %d arguments", k->cname,
                            RT_MAX_ARGS);
    if (rt_parse_type_names(names, types, k->nargs, "signature") < 0)
        return NULL;
    Type **args = PyMem_RawMalloc(sizeof(Type *) * (size_t)(k->nargs + 1));
    RtSignature *sigs = args ? PyMem_RawRealloc(k->sigs, sizeof *sigs * (size_t)(k->nsigs + 1))
                             : NULL;
    if (!sigs) {
        PyMem_RawFree(args);
        return PyErr_NoMemory();
    }
    memcpy(args, types, sizeof(Type *) * (size_t)k->nargs);
    k->sigs = sigs;
    k->sigs[k->nsigs++] = (RtSignature){args, NULL};
    Py_RETURN_NONE;
}

/* kernel._versions() -> [(argument type names, cooperative)]: the compiled versions (one per
 * argument types and launch facts), for kernel.overloads. */
static PyObject *kernel_versions(CudaKernel *k, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < k->nversions; i++) {
        KVersion *v = k->versions[i];
        PyObject *names = signature_of(v);
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
    {"_declare", (PyCFunction)kernel_declare, METH_O,
     "Adds a declared signature (a tuple of canonical argument type names)."},
    {"_func_attribute", (PyCFunction)kernel_func_attribute, METH_O,
     "{signature: the driver's function attribute attr} of the versions loaded on this GPU."},
    {"_versions", (PyCFunction)kernel_versions, METH_NOARGS,
     "[(argument type names, cooperative)] of the compiled versions."},
    {"_max_cooperative_blocks", (PyCFunction)kernel_max_coop_blocks, METH_VARARGS,
     "The most blocks a cooperative launch of a version may have on the current GPU."},
    {"forall", (PyCFunction)(void (*)(void))kernel_forall, METH_VARARGS | METH_KEYWORDS,
     "forall(ntasks, tpb=0, stream=0, sharedmem=0): a launch covering ntasks threads."},
    {"inspect_asm", (PyCFunction)(void (*)(void))kernel_inspect_asm,
     METH_VARARGS | METH_KEYWORDS,
     "{signature: PTX} of the compiled versions."},
    {"inspect_llvm", (PyCFunction)(void (*)(void))kernel_inspect_llvm,
     METH_VARARGS | METH_KEYWORDS,
     "{signature: LLVM IR} of the compiled versions."},
    {"inspect_types", (PyCFunction)(void (*)(void))kernel_inspect_types,
     METH_VARARGS | METH_KEYWORDS,
     "inspect_types(signature=None, file=None): {signature: typed IR} of the compiled versions, "
     "one version's text, or written to file."},
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
 * debug=False, lineinfo=False, opt=3, aligned=0, noalias=0, max_registers=0,
 * launch_bounds=(0, 0, 0), error_model_numpy=False, c_abi_name=None) -> (ptx, entry, written):
 * compiles without a GPU. aligned and noalias are the masks of array arguments a launch would
 * find 16-byte aligned and apart from the other arrays (the version a launch over separate
 * whole allocations runs: every array bit in both). */
static PyObject *py_compile_ptx(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pyfunc", "registry", "argtypes", "device", "fastmath", "cc",
                             "debug", "lineinfo", "opt", "aligned", "noalias", "max_registers",
                             "launch_bounds", "error_model_numpy", "c_abi_name", NULL};
    PyObject *func, *registry, *typenames, *result = NULL;
    int device = 0, fastmath = 0, debug = 0, lineinfo = 0, opt = 3, major = 9, minor = 0;
    int maxreg = 0, bounds[3] = {0, 0, 0}, numpy_errors = 0;
    unsigned long long aligned = 0, noalias = 0;
    const char *c_abi_name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO!O|pp(ii)ppiKKi(iii)pz:cuda_compile_ptx",
                                     kwlist, &func, &PyDict_Type, &registry, &typenames, &device,
                                     &fastmath, &major, &minor, &debug, &lineinfo, &opt,
                                     &aligned, &noalias, &maxreg, &bounds[0], &bounds[1],
                                     &bounds[2], &numpy_errors, &c_abi_name))
        return NULL;
    if (c_abi_name && !device)
        return PyErr_Format(PyExc_ValueError, "c_abi_name: the C ABI is for device functions "
                            "(device=True), not kernels");
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
                               .launch_bounds = {bounds[0], bounds[1], bounds[2]},
                               .c_abi_name = c_abi_name};
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

/* ---- CUDA C kernels (gpu.SourceModule, RawKernel, RawModule) ----
 *
 * A kernel of CUDA C source is a Kernel with one version (no argument types: the C source fixed
 * them) and a parameter list pyjit/gpu/_csource.py read from the source, the mangled name and
 * the PTX. Its launch checks each argument against its parameter before the GPU is touched (a
 * wrong one is a TypeError naming the parameter), packs scalars converted to the parameter's C
 * type and arrays as a bare pointer at the PTX's offsets, and shares the rest with @gpu.jit
 * kernels: NumPy arrays staged and copied back (for a pointer to non-const, or gpu.Out/InOut),
 * foreign arrays read through CAI or DLPack, the limits checked, cuLaunchKernel. */

/* What NVRTC made of one source, shared by the kernels of its module: one CUmodule per device
 * for them all, so that its __device__ and __constant__ variables are the same for each, as in
 * one module of PyCUDA's or CuPy's. Owned by a capsule (cuda_source_image). */
struct SrcImage {
    char *ptx;
    char *cubin;            /* NULL: the PTX is loaded (and compiled by the driver) */
    size_t cubin_size;
    CUmodule module[CUDA_MAX_DEVICES];
};

#define SRC_IMAGE "pyjit.cuda_source_image"

enum { SP_POINTER, SP_SCALAR, SP_BYTES };       /* how a parameter is passed */
enum { PT_ANY, PT_EXACT, PT_INT, PT_SIZE };     /* what a pointer parameter's array must hold */

typedef struct SrcParam {
    int kind, check;
    PyArray_Descr *descr;   /* SP_SCALAR: the C type's dtype; PT_EXACT: the pointee's */
    Type *elem;             /* PT_EXACT: the pointee as pyjit types it (foreign arrays) */
    int itemsize;           /* PT_INT, PT_SIZE: the pointee's bytes */
    size_t offset, size;    /* in the parameter buffer, as the PTX's .entry lays it out */
    bool writes;            /* a pointer to non-const: a NumPy array given is copied back */
    char *name, *ctype;     /* "y", "float *": for messages */
} SrcParam;

struct SrcKernel {
    PyObject *image;        /* the SrcImage's capsule */
    int n;
    size_t total;
    SrcParam *params;
};

static void src_image_free(PyObject *capsule)
{
    SrcImage *im = PyCapsule_GetPointer(capsule, SRC_IMAGE);
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    for (int d = 0; im && d < CUDA_MAX_DEVICES; d++)
        if (im->module[d] && cuda_enter(d) == 0)
            cuda_api.cuModuleUnload(im->module[d]);
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
    if (im) {
        PyMem_RawFree(im->ptx);
        PyMem_RawFree(im->cubin);
        PyMem_RawFree(im);
    }
}

/* The image's module on device dev (current already), loaded once: the cubin, or the PTX. */
static int src_image_load(SrcImage *im, int dev, const char *kname, CUmodule *out)
{
    if (!im->module[dev]) {
        char log[4096] = "";
        int opts[] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *vals[] = {log, (void *)(uintptr_t)sizeof log};
        CUresult r = cuda_api.cuModuleLoadDataEx(&im->module[dev], im->cubin ? im->cubin
                                                                              : im->ptx,
                                                 2, opts, vals);
        if (r != CUDA_SUCCESS) {
            char what[4300];
            im->module[dev] = NULL;
            snprintf(what, sizeof what, "loading the %s of the CUDA C source of kernel '%s'%s%s",
                     im->cubin ? "cubin" : "PTX", kname, log[0] ? ":\n" : "", log);
            cuda_raise(r, what, kname);
            return -1;
        }
    }
    *out = im->module[dev];
    return 0;
}

static void src_kernel_free(SrcKernel *sk)
{
    if (!sk)
        return;
    for (int i = 0; i < sk->n; i++) {
        Py_XDECREF(sk->params[i].descr);
        PyMem_RawFree(sk->params[i].name);
        PyMem_RawFree(sk->params[i].ctype);
    }
    PyMem_RawFree(sk->params);
    Py_XDECREF(sk->image);
    PyMem_RawFree(sk);
}

/* ---- arguments against parameters ---- */

static int src_error(CudaKernel *k, const SrcParam *p, PyObject *exc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *what = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (what)
        PyErr_Format(exc, "kernel '%s' parameter '%s' (%s): %U", k->cname, p->name, p->ctype,
                     what);
    Py_XDECREF(what);
    return -1;
}

/* An array of items of this size (integers or bools when is_int) and pyjit type for pointer
 * parameter p; given names the array's dtype for the message. */
static int src_check_items(CudaKernel *k, const SrcParam *p, int size, bool is_int, Type *elem,
                           PyObject *given)
{
    bool ok = p->check == PT_ANY ||
              (p->check == PT_EXACT && elem == p->elem) ||
              (p->check == PT_INT && size == p->itemsize && is_int) ||
              (p->check == PT_SIZE && size == p->itemsize);
    if (ok)
        return 0;
    if (p->check == PT_EXACT)
        return src_error(k, p, PyExc_TypeError, "given an array of %S; it takes an array of %S",
                         given, (PyObject *)p->descr);
    return src_error(k, p, PyExc_TypeError, "given an array of %S; it takes an array of "
                     "%d-byte %s", given, p->itemsize, p->check == PT_INT ? "integers" : "items");
}

static int src_check_descr(CudaKernel *k, const SrcParam *p, PyArray_Descr *d)
{
    int size = (int)PyDataType_ELSIZE(d);
    bool is_int = PyTypeNum_ISINTEGER(d->type_num) || PyTypeNum_ISBOOL(d->type_num);
    Type *elem = p->check == PT_EXACT && (d == p->descr || PyArray_EquivTypes(d, p->descr))
                 ? p->elem : NULL;
    return src_check_items(k, p, size, is_int, elem, (PyObject *)d);
}

/* A pointer parameter's argument: what it points to, or (ARG_FOREIGN) an object read once the
 * GPU is in use. */
static int src_take_pointer(CudaKernel *k, const SrcParam *p, PyObject *obj, Arg *a)
{
    if (obj == Py_None) {   /* a null pointer */
        a->kind = ARG_DEVICE;
        a->data = 0;
        return 0;
    }
    if (PyObject_TypeCheck(obj, &CudaArrayType)) {
        CudaArray *d = (CudaArray *)obj;
        a->kind = ARG_DEVICE;
        a->data = d->data;
        return src_check_descr(k, p, (PyArray_Descr *)d->dtype);
    }
    int dir = direction_of(obj);
    PyObject *arr = obj;
    if (dir != DIR_AUTO) {
        arr = PyObject_GetAttrString(obj, "array");
        Py_XDECREF(arr);   /* the wrapper keeps it */
        if (!arr)
            return -1;
        if (!PyArray_Check(arr))
            return src_error(k, p, PyExc_TypeError, "gpu.In/Out/InOut wrap a NumPy array, not "
                             "%.100s", Py_TYPE(arr)->tp_name);
    }
    if (PyArray_Check(arr)) {
        if (src_check_descr(k, p, PyArray_DESCR((PyArrayObject *)arr)) < 0)
            return -1;
        if (PyArray_DESCR((PyArrayObject *)arr)->type_num == NPY_OBJECT)
            return src_error(k, p, PyExc_TypeError, "an array of Python objects cannot reach "
                             "the GPU");
        return classify_host(a, arr, dir);
    }
    if (PyArray_IsScalar(obj, Integer)) {   /* an address, as np.intp(ptr) */
        PyArray_Descr *d = PyArray_DescrFromScalar(obj);
        if (!d)
            return -1;
        int size = (int)PyDataType_ELSIZE(d);
        Py_DECREF(d);
        if (size == 8) {
            a->kind = ARG_DEVICE;
            PyArray_ScalarAsCtype(obj, &a->data);
            return 0;
        }
    }
    if (PyIndex_Check(obj) && !PyLong_Check(obj) && !PyArray_IsScalar(obj, Generic)) {
        /* an allocation that converts to its address (gpu.mem_alloc's, PyCUDA's habit) */
        PyObject *addr = PyNumber_Index(obj);
        unsigned long long v = addr ? PyLong_AsUnsignedLongLong(addr) : 0;
        Py_XDECREF(addr);
        if (PyErr_Occurred())
            return -1;
        a->kind = ARG_DEVICE;
        a->data = (CUdeviceptr)v;
        return 0;
    }
    if (PyObject_HasAttrString(obj, "__cuda_array_interface__") ||
        PyObject_HasAttrString(obj, "__dlpack__")) {
        a->kind = ARG_FOREIGN;
        return 0;
    }
    size_t len = strlen(p->ctype);
    if (len && p->ctype[len - 1] != '*')   /* a typedef of a header, read from its PTX */
        return src_error(k, p, PyExc_TypeError, "given %.100s; of this 8-byte type pyjit knows "
                         "only that it is passed as a pointer would be: give an array, or a "
                         "NumPy integer (np.int64(...)) for an integer", Py_TYPE(obj)->tp_name);
    return src_error(k, p, PyExc_TypeError, "given %.100s; it takes an array: a device array, "
                     "a NumPy array (copied), an object with __cuda_array_interface__ or "
                     "DLPack, or None for a null pointer", Py_TYPE(obj)->tp_name);
}

/* A float (re, im) as the parameter's floating or complex type. */
static int src_store_float(const SrcParam *p, double re, double im, char *dst)
{
    switch (p->descr->type_num) {
    case NPY_FLOAT: { float f = (float)re; memcpy(dst, &f, 4); return 0; }
    case NPY_DOUBLE: memcpy(dst, &re, 8); return 0;
    case NPY_CFLOAT: { float f[2] = {(float)re, (float)im}; memcpy(dst, f, 8); return 0; }
    case NPY_CDOUBLE: { double f[2] = {re, im}; memcpy(dst, f, 16); return 0; }
    default: {   /* half: NumPy converts (rounding as it does) */
        PyArray_Descr *dd = PyArray_DescrFromType(NPY_DOUBLE);
        PyObject *s = dd ? PyArray_Scalar(&re, dd, NULL) : NULL;
        int rc = s ? PyArray_CastScalarToCtype(s, dst, p->descr) : -1;
        Py_XDECREF(s);
        Py_XDECREF(dd);
        return rc;
    }
    }
}

/* A Python int as the parameter's integer type, in range. */
static int src_store_int(CudaKernel *k, const SrcParam *p, PyObject *obj, char *dst)
{
    int bits = (int)p->size * 8, overflow = 0;
    bool is_unsigned = p->descr->kind == 'u';
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    unsigned long long u = (unsigned long long)v;
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow > 0 && is_unsigned && bits == 64) {
        u = PyLong_AsUnsignedLongLong(obj);
        if (u == (unsigned long long)-1 && PyErr_Occurred())
            overflow = 1, PyErr_Clear();
        else
            overflow = 0;
    } else if (overflow == 0) {
        long long lo = is_unsigned ? 0 : bits == 64 ? LLONG_MIN : -(1LL << (bits - 1));
        long long hi = bits == 64 ? LLONG_MAX : is_unsigned ? (1LL << bits) - 1
                                                             : (1LL << (bits - 1)) - 1;
        overflow = v < lo || v > hi;
    }
    if (overflow)
        return src_error(k, p, PyExc_OverflowError, "%R is out of its range (%s %d-bit)", obj,
                         is_unsigned ? "unsigned" : "signed", bits);
    memcpy(dst, &u, p->size);   /* little-endian, as the host and the GPU are */
    return 0;
}

static const char *src_takes(const SrcParam *p)
{
    if (p->kind == SP_BYTES)
        return "a NumPy scalar of its size (a structured np.void, say)";
    switch (p->descr->kind) {
    case 'f': return "a float (Python or NumPy)";
    case 'c': return "a complex (Python or NumPy)";
    case 'b': return "a bool";
    default: return "an integer (a Python int or a NumPy integer)";
    }
}

/* A scalar parameter's argument, converted to its C type into dst. */
static int src_pack_scalar(CudaKernel *k, const SrcParam *p, PyObject *obj, char *dst)
{
    if (PyArray_IsScalar(obj, Generic)) {
        PyArray_Descr *from = PyArray_DescrFromScalar(obj);
        if (!from)
            return -1;
        int rc = 1;
        if (p->kind == SP_BYTES ? (size_t)PyDataType_ELSIZE(from) == p->size
                                : (bool)PyArray_EquivTypes(from, p->descr)) {
            Py_buffer view;
            rc = PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0 ? -1 : 0;
            if (rc == 0) {
                memcpy(dst, view.buf, (size_t)view.len < p->size ? (size_t)view.len : p->size);
                PyBuffer_Release(&view);
            }
        } else if (p->kind == SP_SCALAR && PyArray_CanCastTypeTo(from, p->descr,
                                                                 NPY_SAFE_CASTING))
            rc = PyArray_CastScalarToCtype(obj, dst, p->descr) < 0 ? -1 : 0;
        if (rc == 1)
            src_error(k, p, PyExc_TypeError, "given a NumPy %S, which does not convert to %S "
                      "without loss; it takes %s", (PyObject *)from,
                      p->descr ? (PyObject *)p->descr : Py_None, src_takes(p));
        Py_DECREF(from);
        return rc == 0 ? 0 : -1;
    }
    char kind = p->kind == SP_SCALAR ? p->descr->kind : 0;
    if (PyLong_Check(obj) && (kind == 'i' || kind == 'u'))
        return src_store_int(k, p, obj, dst);
    if (PyLong_Check(obj) && kind == 'b') {
        *dst = (char)PyObject_IsTrue(obj);
        return 0;
    }
    if ((PyLong_Check(obj) || PyFloat_Check(obj)) && (kind == 'f' || kind == 'c')) {
        double v = PyFloat_Check(obj) ? PyFloat_AS_DOUBLE(obj) : PyLong_AsDouble(obj);
        return v == -1.0 && PyErr_Occurred() ? -1 : src_store_float(p, v, 0.0, dst);
    }
    if (PyComplex_Check(obj) && kind == 'c')
        return src_store_float(p, PyComplex_RealAsDouble(obj), PyComplex_ImagAsDouble(obj), dst);
    if (PyArray_Check(obj) || PyObject_TypeCheck(obj, &CudaArrayType) || direction_of(obj))
        return src_error(k, p, PyExc_TypeError, "given an array; it takes %s", src_takes(p));
    return src_error(k, p, PyExc_TypeError, "given %.100s %R; it takes %s",
                     Py_TYPE(obj)->tp_name, obj, src_takes(p));
}

static PyObject *src_count_error(CudaKernel *k, int n)
{
    PyObject *decl = PyUnicode_FromString("");
    for (int i = 0; decl && i < k->src->n; i++)
    {
        const char *ct = k->src->params[i].ctype;
        Py_SETREF(decl, PyUnicode_FromFormat("%U%s%s%s%s", decl, i ? ", " : "", ct,
                                             ct[0] && ct[strlen(ct) - 1] == '*' ? "" : " ",
                                             k->src->params[i].name));
    }
    if (decl)
        PyErr_Format(PyExc_TypeError, "kernel '%s' takes %d argument%s (%U), %d given",
                     k->cname, k->src->n, k->src->n == 1 ? "" : "s", decl, n);
    Py_XDECREF(decl);
    return NULL;
}

/* A foreign array (CAI or DLPack) for pointer parameter i, read on the launch's stream. */
static int src_take_foreign(CudaKernel *k, const SrcParam *p, PyObject *obj, Arg *a,
                            CudaForeign *f, CUstream s)
{
    int rc = cuda_read_foreign(obj, f, s);
    if (rc <= 0)
        return rc < 0 ? -1 : src_error(k, p, PyExc_TypeError, "given %.100s, whose "
                                       "__cuda_array_interface__ or DLPack could not be read",
                                       Py_TYPE(obj)->tp_name);
    a->foreign = f;
    a->data = f->data;
    if (!f->type)
        return 0;
    Type *dt = f->type->array.dtype;
    PyObject *name = PyUnicode_FromString(dt->name);
    int r = name ? src_check_items(k, p, ty_itemsize(dt), ty_is_int(dt) || dt->kind == TY_BOOL,
                                   dt, name) : -1;
    Py_XDECREF(name);
    return r;
}

static PyObject *source_vectorcall(PyObject *self, PyObject *const *argv, size_t nargsf,
                                   PyObject *kwnames)
{
    CudaLaunch *l = (CudaLaunch *)self;
    CudaKernel *k = l->kernel;
    SrcKernel *sk = k->src;
    int n = (int)PyVectorcall_NARGS(nargsf), dev, rc = -1;
    Arg stack_args[STACK_ARGS], *args = stack_args;
    CudaForeign *foreign = NULL;
    _Alignas(16) char buf[CUDA_MAX_PARAM_BYTES];
    bool staged = false;
    if (kwnames && PyTuple_GET_SIZE(kwnames))
        return PyErr_Format(PyExc_TypeError, "kernel '%s' takes positional arguments only",
                            k->cname);
    if (n != sk->n)
        return src_count_error(k, n);
    if (np_ready() < 0)
        return NULL;
    if (n > STACK_ARGS && !(args = PyMem_Malloc(sizeof(Arg) * (size_t)n)))
        return PyErr_NoMemory();
    memset(args, 0, sizeof(Arg) * (size_t)n);
    memset(buf, 0, sk->total);
    for (int i = 0; i < n; i++) {   /* checked before the GPU is touched */
        const SrcParam *p = &sk->params[i];
        args[i].kind = ARG_SCALAR;
        args[i].param = i;
        args[i].obj = argv[i];
        if ((p->kind == SP_POINTER ? src_take_pointer(k, p, argv[i], &args[i])
                                   : src_pack_scalar(k, p, argv[i], buf + p->offset)) < 0)
            goto done;
    }
    dev = cuda_current_device();
    if (dev < 0 || cuda_ensure() < 0 || cuda_enter(dev) < 0)
        goto done;
    for (int i = 0; i < n; i++) {
        if (args[i].kind != ARG_FOREIGN)
            continue;
        if (!foreign && !(foreign = PyMem_Calloc((size_t)n, sizeof *foreign))) {
            PyErr_NoMemory();
            goto done;
        }
        if (src_take_foreign(k, &sk->params[i], argv[i], &args[i], &foreign[i], l->stream) < 0)
            goto done;
    }
    KVersion *v = k->last;
    if ((!v->func[dev] && load_version(v, dev, k->cname, NULL) < 0) ||
        check_device_limits(l, v, dev) < 0)
        goto done;
    staged = true;
    for (int i = 0; i < n; i++)
        if (args[i].kind == ARG_HOST && stage_host(k, &args[i], l->stream) < 0)
            goto done;
    for (int i = 0; i < n; i++)
        if (sk->params[i].kind == SP_POINTER) {
            uint64_t ptr = args[i].data;
            memcpy(buf + sk->params[i].offset, &ptr, 8);
        }
    if (do_launch(l, v, dev, buf, sk->total) < 0)
        goto done;
    rc = 0;
    staged = false;
    if (unstage_host(k, args, n, v->written, l->stream, true) < 0)
        rc = -1;
done:
    if (staged)
        unstage_host(k, args, n, 0, l->stream, false);
    for (int i = 0; foreign && i < n; i++)
        if (args[i].foreign)
            cuda_release_foreign(&foreign[i]);
    PyMem_Free(foreign);
    if (args != stack_args)
        PyMem_Free(args);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* f(*args, block=, grid=(1, 1), shared=0, stream=None) as PyCUDA's, f(grid, block, args,
 * shared_mem=0, stream=None) as CuPy's: the configured launch (kernel_getitem) called with the
 * arguments. Other keywords (time_kernel=True) go to the Python class's _call_with. */
/* The launch keywords, interned once: a call looks them up without making strings. */
enum { KW_BLOCK, KW_GRID, KW_SHARED, KW_STREAM, KW_SHARED_MEM, KW_COUNT };
static PyObject *launch_keywords[KW_COUNT];

static PyObject *keyword(PyObject *kwds, int which)   /* borrowed, or NULL */
{
    return kwds ? PyDict_GetItemWithError(kwds, launch_keywords[which]) : NULL;
}

static PyObject *source_call(CudaKernel *k, PyObject *args, PyObject *kwds)
{
    static const char *names[KW_COUNT] = {"block", "grid", "shared", "stream", "shared_mem"};
    static PyObject *one;   /* PyCUDA's default grid */
    for (int i = 0; i < KW_COUNT; i++)
        if (!launch_keywords[i] && !(launch_keywords[i] = PyUnicode_InternFromString(names[i])))
            return NULL;
    if (!one && !(one = PyLong_FromLong(1)))
        return NULL;
    Py_ssize_t nkw = kwds ? PyDict_GET_SIZE(kwds) : 0, known = 0;
    PyObject *block = nkw ? keyword(kwds, KW_BLOCK) : NULL;
    PyObject *grid, *shared, *stream, *kargs, *key, *launch, *res = NULL;
    if (block) {
        grid = keyword(kwds, KW_GRID);
        shared = keyword(kwds, KW_SHARED);
        stream = keyword(kwds, KW_STREAM);
        known = 1 + (grid != NULL) + (shared != NULL) + (stream != NULL);
        kargs = Py_NewRef(args);
        if (!grid)
            grid = one;
    } else {
        PyObject *third = PyTuple_GET_SIZE(args) == 3 ? PyTuple_GET_ITEM(args, 2) : NULL;
        if (!third || (nkw && keyword(kwds, KW_GRID)) ||
            !(PyTuple_Check(third) || PyList_Check(third)))
            return PyErr_Format(PyExc_TypeError, "kernel '%s' is launched as PyCUDA's f(*args, "
                                "block=(x, y, z), grid=(x, y)), as CuPy's f(grid, block, args) "
                                "or as f[grid, block](*args)", k->cname);
        grid = PyTuple_GET_ITEM(args, 0);
        block = PyTuple_GET_ITEM(args, 1);
        shared = nkw ? keyword(kwds, KW_SHARED_MEM) : NULL;
        stream = nkw ? keyword(kwds, KW_STREAM) : NULL;
        known = (shared != NULL) + (stream != NULL);
        if (!(kargs = PySequence_Tuple(third)))
            return NULL;
    }
    if (known != nkw) {
        Py_DECREF(kargs);
        return PyObject_CallMethod((PyObject *)k, "_call_with", "OO", args, kwds);
    }
    key = PyTuple_Pack(4, grid, block, stream ? stream : Py_None, shared ? shared : Py_None);
    launch = key ? kernel_getitem(k, key) : NULL;
    if (launch)
        res = PyObject_Vectorcall(launch, &PyTuple_GET_ITEM(kargs, 0),
                                  (size_t)PyTuple_GET_SIZE(kargs), NULL);
    Py_XDECREF(launch);
    Py_XDECREF(key);
    Py_DECREF(kargs);
    return res;
}

/* cuda_source_image(ptx, cubin or None) -> the capsule of a SrcImage. */
static PyObject *py_source_image(PyObject *self, PyObject *args)
{
    const char *ptx;
    PyObject *cubin;
    char *data = NULL;
    Py_ssize_t size = 0;
    if (!PyArg_ParseTuple(args, "sO:cuda_source_image", &ptx, &cubin) ||
        (cubin != Py_None && PyBytes_AsStringAndSize(cubin, &data, &size) < 0))
        return NULL;
    SrcImage *im = PyMem_RawCalloc(1, sizeof *im);
    if (!im || !(im->ptx = dup_str(ptx)) ||
        (data && !(im->cubin = PyMem_RawMalloc((size_t)size)))) {
        if (im) {
            PyMem_RawFree(im->ptx);
            PyMem_RawFree(im);
        }
        return PyErr_NoMemory();
    }
    if (data) {
        memcpy(im->cubin, data, (size_t)size);
        im->cubin_size = (size_t)size;
    }
    PyObject *cap = PyCapsule_New(im, SRC_IMAGE, src_image_free);
    if (!cap) {
        PyMem_RawFree(im->ptx);
        PyMem_RawFree(im->cubin);
        PyMem_RawFree(im);
    }
    return cap;
}

/* One parameter from (name, ctype, kind, dtype name or None, check, itemsize, offset, size,
 * writes), as pyjit.gpu._csource.Param.as_tuple gives it. */
static int src_param(SrcParam *p, PyObject *item)
{
    const char *name, *ctype, *kind, *dtype, *check;
    Py_ssize_t itemsize, offset, size;
    int writes;
    if (!PyArg_ParseTuple(item, "ssszsnnnp", &name, &ctype, &kind, &dtype, &check, &itemsize,
                          &offset, &size, &writes))
        return -1;
    p->kind = strcmp(kind, "pointer") == 0 ? SP_POINTER : strcmp(kind, "scalar") == 0
                                                            ? SP_SCALAR : SP_BYTES;
    p->check = strcmp(check, "exact") == 0 ? PT_EXACT : strcmp(check, "int") == 0 ? PT_INT
             : strcmp(check, "size") == 0 ? PT_SIZE : PT_ANY;
    p->itemsize = (int)itemsize;
    p->offset = (size_t)offset;
    p->size = (size_t)size;
    p->writes = writes;
    if (!(p->name = dup_str(name)) || !(p->ctype = dup_str(ctype))) {
        PyErr_NoMemory();
        return -1;
    }
    if (offset < 0 || size < 0 || (size_t)(offset + size) > CUDA_MAX_PARAM_BYTES ||
        (p->kind == SP_POINTER && size != 8)) {
        PyErr_Format(PyExc_ValueError, "parameter '%s': a layout of %zd bytes at %zd is not "
                     "one a kernel can have", name, size, offset);
        return -1;
    }
    if (dtype) {
        PyObject *s = PyUnicode_FromString(dtype);
        int ok = s && PyArray_DescrConverter(s, &p->descr);
        Py_XDECREF(s);
        if (!ok)
            return -1;
        p->elem = ty_parse(dtype);
    }
    if ((p->kind == SP_SCALAR || p->check == PT_EXACT) && !p->descr) {
        PyErr_Format(PyExc_ValueError, "parameter '%s': no dtype given", name);
        return -1;
    }
    if (p->kind == SP_SCALAR && (size_t)PyDataType_ELSIZE(p->descr) != p->size) {
        PyErr_Format(PyExc_ValueError, "parameter '%s': dtype %s of %zd bytes", name, dtype,
                     size);
        return -1;
    }
    return 0;
}

/* cuda_source_kernel(cls, image, name, entry, params, total, cooperative) -> a kernel of class
 * cls (a subclass of Kernel) launching .entry `entry` of the image with these parameters. */
static PyObject *py_source_kernel(PyObject *self, PyObject *args)
{
    PyTypeObject *cls;
    PyObject *image, *params;
    const char *name, *entry;
    Py_ssize_t total;
    int coop;
    if (!PyArg_ParseTuple(args, "O!O!ssO!np:cuda_source_kernel", &PyType_Type, &cls,
                          &PyCapsule_Type, &image, &name, &entry, &PyList_Type, &params, &total,
                          &coop) || np_ready() < 0)
        return NULL;
    SrcImage *im = PyCapsule_GetPointer(image, SRC_IMAGE);
    if (!im)
        return NULL;
    if (!PyType_IsSubtype(cls, &CudaKernelType))
        return PyErr_Format(PyExc_TypeError, "cuda_source_kernel: %s is not a Kernel class",
                            cls->tp_name);
    Py_ssize_t n = PyList_GET_SIZE(params);
    if (n > RT_MAX_ARGS || total < 0 || total > CUDA_MAX_PARAM_BYTES)
        return PyErr_Format(PyExc_ValueError, "kernel '%s': %zd parameters of %zd bytes; a "
                            "kernel may have %d bytes of parameters", name, n, total,
                            CUDA_MAX_PARAM_BYTES);
    CudaKernel *k = (CudaKernel *)PyType_GenericNew(cls, NULL, NULL);
    SrcKernel *sk = PyMem_RawCalloc(1, sizeof *sk);
    uint64_t written = 0;
    if (!k || !sk || (n && !(sk->params = PyMem_RawCalloc((size_t)n, sizeof *sk->params)))) {
        PyMem_RawFree(sk);
        Py_XDECREF(k);
        return PyErr_NoMemory();
    }
    k->src = sk;
    sk->image = Py_NewRef(image);
    sk->total = (size_t)total;
    for (Py_ssize_t i = 0; i < n; i++, sk->n++)
        if (src_param(&sk->params[i], PyList_GET_ITEM(params, i)) < 0) {
            sk->n++;   /* freed with the rest */
            goto fail;
        } else if (sk->params[i].kind == SP_POINTER && sk->params[i].writes)
            written |= 1ull << (i < 63 ? i : 63);
    k->nargs = (int)n;
    if (!(k->name = PyUnicode_FromString(name)) || !(k->cname = PyUnicode_AsUTF8(k->name)))
        goto fail;
    KVersion *v = version_new(NULL, 0, im->ptx, entry, written);
    if (!v)
        goto fail;
    v->image = im;
    v->cooperative = coop ? 2 : 1;
    if (add_version(k, v) < 0)
        goto fail;
    k->last = v;
    return (PyObject *)k;
fail:
    Py_DECREF(k);
    return NULL;
}

/* cuda_source_load(kernel): loads a CUDA C kernel on the current GPU (for its attributes). */
static PyObject *py_source_load(PyObject *self, PyObject *arg)
{
    if (!PyObject_TypeCheck(arg, &CudaKernelType) || !((CudaKernel *)arg)->src)
        return PyErr_Format(PyExc_TypeError, "cuda_source_load takes a CUDA C kernel");
    CudaKernel *k = (CudaKernel *)arg;
    int dev = cuda_current_device();
    if (dev < 0 || cuda_ensure() < 0 || cuda_enter(dev) < 0 ||
        (!k->last->func[dev] && load_version(k->last, dev, k->cname, NULL) < 0))
        return NULL;
    Py_RETURN_NONE;
}

/* cuda_source_global(image, name) -> (address, bytes) of a __device__ or __constant__ variable
 * of the image's module on the current GPU. */
static PyObject *py_source_global(PyObject *self, PyObject *args)
{
    PyObject *image;
    const char *name;
    if (!PyArg_ParseTuple(args, "O!s:cuda_source_global", &PyCapsule_Type, &image, &name))
        return NULL;
    SrcImage *im = PyCapsule_GetPointer(image, SRC_IMAGE);
    int dev = cuda_current_device();
    CUmodule m;
    CUdeviceptr ptr;
    size_t size;
    if (!im || dev < 0 || cuda_ensure() < 0 || cuda_enter(dev) < 0 ||
        src_image_load(im, dev, name, &m) < 0)
        return NULL;
    CUresult r = cuda_api.cuModuleGetGlobal(&ptr, &size, m, name);
    if (r != CUDA_SUCCESS) {
        char what[300];
        snprintf(what, sizeof what, "finding the variable '%.200s' in the module", name);
        return cuda_raise(r, what, NULL);
    }
    return Py_BuildValue("(Kn)", (unsigned long long)ptr, (Py_ssize_t)size);
}

/* _core.cuda_arg_type(value) -> the type name a launch gives value: a device array's, a
 * foreign GPU array's (__cuda_array_interface__, __dlpack__), a NumPy array's or a scalar's (a
 * Python number's weak type by its own name, as the versions' keys say it), a tuple's.
 * kernel.specialize types its arguments with it, so that it accepts what a launch does. */
static PyObject *py_arg_type(PyObject *self, PyObject *obj)
{
    Type *t = NULL;
    if (Py_TYPE(obj) == &CudaArrayType) {
        if (!(t = ((CudaArray *)obj)->type))
            return PyErr_Format(PyExc_TypeError, "a device array of dtype %R cannot be a kernel "
                                "argument", ((CudaArray *)obj)->dtype);
        if (((CudaArray *)obj)->record)
            t = t->array.dtype;
    } else if ((t = rt_typeof(obj, RT_TYPEOF_GPU)) ||
               (PyTuple_Check(obj) && (t = typeof_tuple_arg(obj)))) {
        t = ty_strong(t);
    } else if (!PyErr_Occurred()) {
        if (np_ready() < 0)
            return NULL;
        CudaForeign f;
        bool foreign = !PyArray_Check(obj) &&
                       (PyObject_HasAttrString(obj, "__cuda_array_interface__") ||
                        PyObject_HasAttrString(obj, "__dlpack__"));
        if (foreign && cuda_ensure() < 0)
            return NULL;
        int rc = foreign ? cuda_read_foreign(obj, &f, NULL) : 0;
        if (rc < 0)
            return NULL;
        if (rc > 0) {
            t = f.type;
            cuda_release_foreign(&f);
        }
    }
    if (!t) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "a kernel cannot take %.100s: kernels take numbers, "
                         "tuples, NumPy arrays, device arrays and GPU arrays of other libraries "
                         "(__cuda_array_interface__ or __dlpack__)", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return PyUnicode_FromString(t->name);
}

static PyMethodDef launch_functions[] = {
    {"cuda_arg_type", py_arg_type, METH_O,
     "cuda_arg_type(value) -> the type name a kernel launch gives value."},
    {"_cuda_load_ptx", (PyCFunction)(void (*)(void))py_load_ptx, METH_VARARGS | METH_KEYWORDS,
     "_cuda_load_ptx(ptx, entry, nargs=-1, written=all): a Kernel over hand-written PTX."},
    {"cuda_compile_ptx", (PyCFunction)(void (*)(void))py_compile_ptx,
     METH_VARARGS | METH_KEYWORDS, "Compiles a Python function to PTX: (ptx, entry, written)."},
    {"cuda_set_directions", py_set_directions, METH_VARARGS, "Registers gpu.In/Out/InOut."},
    {"cuda_has_codegen", py_has_codegen, METH_NOARGS, "True when kernels compile to PTX."},
    {"_cuda_param_layout", py_param_layout, METH_VARARGS,
     "The parameter offsets a cooperative launch passes (tests)."},
    {"cuda_source_image", py_source_image, METH_VARARGS,
     "cuda_source_image(ptx, cubin): the module of a CUDA C source, for its kernels."},
    {"cuda_source_kernel", py_source_kernel, METH_VARARGS,
     "cuda_source_kernel(cls, image, name, entry, params, total, cooperative): a CUDA C kernel."},
    {"cuda_source_load", py_source_load, METH_O, "Loads a CUDA C kernel on the current GPU."},
    {"cuda_source_global", py_source_global, METH_VARARGS,
     "cuda_source_global(image, name) -> (address, bytes) of a module's variable."},
    {NULL, NULL, 0, NULL},
};

int cuda_launch_init(PyObject *module)
{
    if (PyType_Ready(&CudaKernelType) < 0 || PyType_Ready(&CudaLaunchType) < 0 ||
        PyModule_AddFunctions(module, launch_functions) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Kernel", (PyObject *)&CudaKernelType);
}
