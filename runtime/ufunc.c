/* ufunc.c: NumPy ufuncs whose loops are compiled code (@vectorize, @guvectorize on the CPU).
 *
 * pyjit/vectorize.py compiles, per signature, a loop function over 1-d (or, for a gufunc,
 * (1 + core)-d) 'A'-layout arrays that calls the user's kernel element by element. This file
 * turns such loops into a real np.ufunc, so broadcasting, out=, where=, casting, reduce,
 * accumulate, outer, at and __array_ufunc__ are NumPy's own:
 *
 *   - each NumPy inner-loop call builds one ArrayDesc per operand from (args, dimensions, steps)
 *     and calls the compiled loop's wrapper once: no indirect call per element;
 *   - every loop is registered twice: in the legacy type table (ufunc.types, and NumPy's legacy
 *     type resolution, which finds the loop inputs cast to), and as an ArrayMethod
 *     (PyUFunc_AddLoopFromSpec), whose strided loop can return an error: an exception the kernel
 *     raises surfaces as that exception. NumPy finds the ArrayMethod first, for exact dtypes and
 *     after casting alike, so the legacy function is a fallback that is normally never called;
 *   - a dynamic ufunc (vectorize without signatures) adds loops later through the same call;
 *   - the generic loop takes strided arrays; when NumPy announces fixed strides where inputs are
 *     contiguous or broadcast scalars (stride 0) and the output is contiguous, a variant for
 *     that pattern is compiled once (with the GIL, in get_loop), with contiguous arrays and the
 *     scalars read once, so LLVM can vectorise it; each call checks the strides it is given;
 *   - target='parallel' runs the same loop over chunks of the outer dimension on the thread
 *     pool prange loops use (runtime/pool.c; set_num_threads applies to both); the compiled
 *     loop does not need the GIL.
 *
 * The ufunc owns its loops: a capsule in ufunc->obj (NumPy releases it with the ufunc) holds the
 * loop records, the type tables and the loop dispatchers that keep the machine code alive. */
#include "runtime/runtime.h"

#define NPY_TARGET_VERSION 0x00000012   /* NPY_2_0_API_VERSION: the ArrayMethod API */
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>
#include <numpy/dtype_api.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UF_CAPSULE "pyjit.ufunc"
#define UF_FRAME_MAX 4096               /* bytes of ArrayDescs one call builds on the stack */
#define UF_PARALLEL_MIN (1 << 15)       /* elements below which threads cost more than they give */
#define UF_MAX_VARIANTS 8

/* How a specialised variant takes each operand (the codes vectorize.py's factory reads). */
enum { UF_STRIDED = 0, UF_BROADCAST = 1, UF_CONTIG = 2 };

typedef struct UfVariant {
    signed char pattern[NPY_MAXARGS];
    AbiWrapper wrapper;         /* NULL: compiling this pattern failed, the generic loop runs */
} UfVariant;

/* One compiled loop of a ufunc: its operand types and how to build its ArrayDescs. */
typedef struct UfLoop {
    AbiWrapper wrapper;                 /* the generic loop: any strides */
    int nargs;
    bool parallel;
    int typenums[NPY_MAXARGS];
    npy_intp itemsize[NPY_MAXARGS];
    PyObject *factory;                  /* pattern tuple -> variant Dispatcher (or NULL) */
    UfVariant variants[UF_MAX_VARIANTS];
    atomic_int nvariants;               /* entries are written before the count is raised */
    bool specialising;                  /* a variant is compiling (the GIL may be released) */
    int core_ndim[NPY_MAXARGS];         /* core dimensions of each operand (0 for a ufunc) */
    int core_off[NPY_MAXARGS];          /* where operand i's entries start in dim_ixs */
    int dim_ixs[2 * NPY_MAXARGS];       /* core dimension -> index into dimensions[1..] */
    int ncore;                          /* distinct core dimensions */
} UfLoop;

/* What a ufunc's capsule owns. The type tables grow as a dynamic ufunc adds loops; replaced
 * tables are kept (retired) until the ufunc dies, in case NumPy still reads an old pointer. */
typedef struct UfOwner {
    char *name, *doc;
    int identity;                       /* PyUFunc_Zero, _One, _None or _ReorderableNone */
    UfLoop **loops;
    int nloops;
    PyUFuncGenericFunction *funcs;
    void **data;
    char *types;
    void **retired;
    int nretired;
    PyObject *keep;                     /* list: the loop dispatchers */
    PyObject *made;                     /* dict: how pyjit/vectorize.py made it (for pickling) */
} UfOwner;

/* The NpyAuxData NumPy hands back to the strided loop. */
typedef struct UfAux {
    NpyAuxData base;
    UfLoop *loop;
} UfAux;

static int numpy_ready(void)
{
    if (PyArray_ImportNumPyAPI() < 0 || PyUFunc_ImportUFuncAPI() < 0)
        return -1;
    return 0;
}

/* ---- one call of a compiled loop ---- */

/* Runs the loop over outer elements [start, start + count): one wrapper call. */
static int32_t run_chunk(const UfLoop *lp, AbiWrapper wrapper, char *const *args,
                         const npy_intp *dims, const npy_intp *steps, npy_intp start,
                         npy_intp count, ExcInfo *exc)
{
    _Alignas(16) char frame[UF_FRAME_MAX];
    _Alignas(16) char ret[64];
    void *ptrs[NPY_MAXARGS];
    char *p = frame;
    for (int i = 0; i < lp->nargs; i++) {
        ArrayDesc *d = (ArrayDesc *)p;
        int core = lp->core_ndim[i], nd = 1 + core;
        d->meminfo = NULL;
        d->parent = NULL;
        d->data = args[i] + start * steps[i];
        d->dims[0] = count;
        d->dims[nd] = steps[i];
        for (int j = 0; j < core; j++) {
            d->dims[1 + j] = dims[1 + lp->dim_ixs[lp->core_off[i] + j]];
            d->dims[nd + 1 + j] = steps[lp->nargs + lp->core_off[i] + j];
        }
        ptrs[i] = d;
        p += sizeof(ArrayDesc) + 2 * (size_t)nd * sizeof(int64_t);
    }
    exc->kind = ABI_EXC_NONE;
    return wrapper(ptrs, ret, exc);
}

/* Bytes of ArrayDescs run_chunk builds for a loop. */
static size_t frame_bytes(const UfLoop *lp)
{
    size_t n = 0;
    for (int i = 0; i < lp->nargs; i++)
        n += sizeof(ArrayDesc) + 2 * (size_t)(1 + lp->core_ndim[i]) * sizeof(int64_t);
    return n;
}

/* Elements of work in one inner-loop call: outer length times the core dimensions. */
static npy_intp work_of(const UfLoop *lp, const npy_intp *dims)
{
    npy_intp w = dims[0];
    for (int k = 0; k < lp->ncore; k++)
        if (dims[1 + k] > 1)
            w = w > NPY_MAX_INTP / dims[1 + k] ? NPY_MAX_INTP : w * dims[1 + k];
    return w;
}

/* Whether the strides of a call fit a variant's pattern. */
static bool pattern_fits(const UfLoop *lp, const signed char *pattern, const npy_intp *steps)
{
    for (int i = 0; i < lp->nargs; i++) {
        if ((pattern[i] == UF_BROADCAST && steps[i] != 0) ||
            (pattern[i] == UF_CONTIG && steps[i] != lp->itemsize[i]))
            return false;
    }
    return true;
}

/* The compiled variant for these strides, or the generic loop. */
static AbiWrapper pick_wrapper(const UfLoop *lp, const npy_intp *steps)
{
    int n = atomic_load_explicit(&((UfLoop *)lp)->nvariants, memory_order_acquire);
    for (int k = 0; k < n; k++)
        if (lp->variants[k].wrapper && pattern_fits(lp, lp->variants[k].pattern, steps))
            return lp->variants[k].wrapper;
    return lp->wrapper;
}

/* What the chunks of one parallel call share. */
typedef struct UfCall {
    const UfLoop *loop;
    AbiWrapper wrapper;
    char *const *args;
    const npy_intp *dims, *steps;
} UfCall;

static int32_t call_chunk(void *ctx, int64_t lo, int64_t hi, int64_t slot, ExcInfo *exc)
{
    const UfCall *c = ctx;
    return run_chunk(c->loop, c->wrapper, c->args, c->dims, c->steps, lo, hi - lo, exc);
}

/* Small loops run on the calling thread; target='parallel' ones share the pool of prange
 * loops (runtime/pool.c). */
static int32_t run_loop(const UfLoop *lp, char *const *args, const npy_intp *dims,
                        const npy_intp *steps, ExcInfo *exc)
{
    npy_intp n = dims[0];
    AbiWrapper wrapper = pick_wrapper(lp, steps);
    if (!lp->parallel || n < 2 || work_of(lp, dims) < UF_PARALLEL_MIN)
        return run_chunk(lp, wrapper, args, dims, steps, 0, n, exc);
    UfCall call = {lp, wrapper, args, dims, steps};
    exc->kind = ABI_EXC_NONE;
    return rt_pool_for(call_chunk, &call, n, exc);
}

/* ---- the loops NumPy calls ---- */

static void raise_with_gil(const ExcInfo *exc)
{
    PyGILState_STATE g = PyGILState_Ensure();
    rt_raise_exc(exc);
    PyGILState_Release(g);
}

/* The ArrayMethod's strided loop: an error in the kernel is returned to NumPy as one. */
static int strided_loop(PyArrayMethod_Context *ctx, char *const *args, const npy_intp *dims,
                        const npy_intp *steps, NpyAuxData *aux)
{
    ExcInfo exc;
    if (run_loop(((UfAux *)aux)->loop, args, dims, steps, &exc) == ABI_STATUS_OK)
        return 0;
    raise_with_gil(&exc);
    return -1;
}

/* The legacy loop, in ufunc.functions: NumPy calls the ArrayMethod instead; should it ever call
 * this one, an error is at least set (NumPy then reports it). */
static void legacy_loop(char **args, npy_intp const *dims, npy_intp const *steps, void *data)
{
    ExcInfo exc;
    if (run_loop((const UfLoop *)data, args, dims, steps, &exc) != ABI_STATUS_OK)
        raise_with_gil(&exc);
}

static void aux_free(NpyAuxData *aux) { free(aux); }

static NpyAuxData *aux_clone(NpyAuxData *aux)
{
    UfAux *copy = malloc(sizeof *copy);
    if (copy)
        memcpy(copy, aux, sizeof *copy);
    return (NpyAuxData *)copy;
}

static UfOwner *owner_of(PyObject *ufunc)
{
    PyObject *obj = NULL;
    if (ufunc && PyObject_TypeCheck(ufunc, &PyUFunc_Type))
        obj = ((PyUFuncObject *)ufunc)->obj;
    return obj && PyCapsule_IsValid(obj, UF_CAPSULE) ? PyCapsule_GetPointer(obj, UF_CAPSULE) : NULL;
}

/* The loop whose operand types are the descriptors' (the ArrayMethod was made for it). */
static UfLoop *find_loop(UfOwner *owner, PyArray_Descr *const *descrs, int nargs)
{
    for (int k = 0; owner && k < owner->nloops; k++) {
        UfLoop *lp = owner->loops[k];
        int i = 0;
        while (i < nargs && descrs[i]->type_num == lp->typenums[i])
            i++;
        if (i == nargs)
            return lp;
    }
    return NULL;
}

/* The pattern of NumPy's fixed strides when a variant applies: every output contiguous and
 * every input contiguous or broadcast (stride 0); false otherwise. */
static bool pattern_of(const UfLoop *lp, int nin, const npy_intp *strides, signed char *pattern)
{
    for (int i = 0; i < lp->nargs; i++) {
        if (strides[i] == lp->itemsize[i])
            pattern[i] = UF_CONTIG;
        else if (strides[i] == 0 && i < nin)
            pattern[i] = UF_BROADCAST;
        else
            return false;
    }
    return true;
}

/* The variant's wrapper from what the factory returned, or NULL. */
static AbiWrapper variant_wrapper(const UfLoop *lp, PyObject *res)
{
    if (!res || !PyObject_TypeCheck(res, &RtDispatcherType))
        return NULL;
    RtDispatcher *d = (RtDispatcher *)res;
    if (d->nversions < 1 || d->nargs != lp->nargs)
        return NULL;
    for (int i = 0; i < lp->nargs; i++) {
        Type *t = d->versions[0]->argtypes[i];
        if (t->kind != TY_ARRAY || t->array.ndim != 1)
            return NULL;
    }
    return d->versions[0]->code.wrapper;
}

/* Compiles (once) the variant for the strides NumPy fixed for this operation. Called with the
 * GIL; a variant that fails to compile is recorded as such and the generic loop runs. */
static void specialise(UfLoop *lp, UfOwner *owner, int nin, const npy_intp *strides)
{
    signed char pattern[NPY_MAXARGS];
    int n = atomic_load(&lp->nvariants);
    if (!lp->factory || lp->specialising || !strides || n >= UF_MAX_VARIANTS ||
        !pattern_of(lp, nin, strides, pattern))
        return;
    for (int k = 0; k < n; k++)
        if (memcmp(lp->variants[k].pattern, pattern, (size_t)lp->nargs) == 0)
            return;
    PyObject *pat = PyTuple_New(lp->nargs), *res = NULL;
    for (int i = 0; pat && i < lp->nargs; i++)
        PyTuple_SET_ITEM(pat, i, PyLong_FromLong(pattern[i]));
    lp->specialising = true;
    if (pat && !PyErr_Occurred())
        res = PyObject_CallOneArg(lp->factory, pat);
    lp->specialising = false;
    UfVariant *v = &lp->variants[n];
    memcpy(v->pattern, pattern, (size_t)lp->nargs);
    v->wrapper = variant_wrapper(lp, res);
    if (!v->wrapper || PyList_Append(owner->keep, res) < 0)
        v->wrapper = NULL;
    PyErr_Clear();      /* a variant is an optimisation: without it, the generic loop runs */
    atomic_store_explicit(&lp->nvariants, n + 1, memory_order_release);
    Py_XDECREF(pat);
    Py_XDECREF(res);
}

static int get_loop(PyArrayMethod_Context *ctx, int aligned, int move_references,
                    const npy_intp *strides, PyArrayMethod_StridedLoop **out_loop,
                    NpyAuxData **out_aux, NPY_ARRAYMETHOD_FLAGS *flags)
{
    PyUFuncObject *uf = (PyUFuncObject *)ctx->caller;
    UfOwner *owner = uf ? owner_of((PyObject *)uf) : NULL;
    UfLoop *lp = owner ? find_loop(owner, ctx->descriptors, uf->nargs) : NULL;
    if (!lp) {
        PyErr_SetString(PyExc_RuntimeError, "pyjit ufunc: no compiled loop for these dtypes");
        return -1;
    }
    if (!uf->core_enabled)
        specialise(lp, owner, uf->nin, strides);
    UfAux *aux = calloc(1, sizeof *aux);
    if (!aux) {
        PyErr_NoMemory();
        return -1;
    }
    aux->base.free = aux_free;
    aux->base.clone = aux_clone;
    aux->loop = lp;
    *out_loop = strided_loop;
    *out_aux = (NpyAuxData *)aux;
    *flags = 0;             /* the GIL is not needed; floating-point flags are checked */
    return 0;
}

/* The start of a reduction over an empty or non-empty axis: the ufunc's identity (0 or 1). */
static int reduction_initial(PyArrayMethod_Context *ctx, npy_bool empty, void *initial)
{
    UfOwner *owner = owner_of(ctx->caller);
    if (!owner || (owner->identity != PyUFunc_Zero && owner->identity != PyUFunc_One))
        return 0;
    PyObject *value = PyLong_FromLong(owner->identity == PyUFunc_One);
    int rc = value ? PyArray_Pack(ctx->descriptors[0], initial, value) : -1;
    Py_XDECREF(value);
    return rc < 0 ? -1 : 1;
}

/* ---- the ufunc and its owner ---- */

static void owner_free(UfOwner *owner)
{
    for (int k = 0; k < owner->nloops; k++) {
        Py_XDECREF(owner->loops[k]->factory);
        free(owner->loops[k]);
    }
    for (int k = 0; k < owner->nretired; k++)
        free(owner->retired[k]);
    free(owner->loops);
    free(owner->retired);
    free(owner->funcs);
    free(owner->data);
    free(owner->types);
    free(owner->name);
    free(owner->doc);
    Py_XDECREF(owner->keep);
    Py_XDECREF(owner->made);
    free(owner);
}

static void owner_destroy(PyObject *capsule)
{
    UfOwner *owner = PyCapsule_GetPointer(capsule, UF_CAPSULE);
    if (owner)
        owner_free(owner);
}

static UfOwner *owner_new(const char *name, const char *doc, int identity)
{
    UfOwner *owner = calloc(1, sizeof *owner);
    if (!owner)
        return NULL;
    owner->identity = identity;
    owner->name = strdup(name);
    owner->doc = doc ? strdup(doc) : NULL;
    owner->keep = PyList_New(0);
    owner->made = PyDict_New();
    if (!owner->name || (doc && !owner->doc) || !owner->keep || !owner->made) {
        owner_free(owner);
        return NULL;
    }
    return owner;
}

/* _core.ufunc_made(ufunc) -> the dict pyjit/vectorize.py records how a pyjit ufunc was made in
 * (pickling by value makes it again from that), or None for any other ufunc. */
PyObject *rt_ufunc_made(PyObject *self, PyObject *ufunc)
{
    UfOwner *owner = owner_of(ufunc);
    PyObject *made = owner ? owner->made : Py_None;
    Py_INCREF(made);
    return made;
}

/* Marks the inputs numbered in writable (Numba's writable_args) read-write: NumPy's iterator then
 * writes a cast copy of such an operand back into the caller's array, so the kernel's writes
 * reach it whatever its dtype. */
static int mark_writable(PyUFuncObject *uf, PyObject *writable)
{
    Py_ssize_t n = writable ? PySequence_Length(writable) : 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PySequence_GetItem(writable, k);
        long i = item ? PyLong_AsLong(item) : -1;
        Py_XDECREF(item);
        if (i < 0 || i >= uf->nin) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "writable_args: %ld is not an input", i);
            return -1;
        }
        uf->op_flags[i] |= NPY_ITER_READWRITE | NPY_ITER_UPDATEIFCOPY;
    }
    return n < 0 ? -1 : 0;
}

/* _core.ufunc_new(name, doc, nin, nout, identity, core_signature=None, writable=()) -> a np.ufunc
 * with no loops yet (identity: NumPy's PyUFunc_Zero/One/None/ReorderableNone code; writable: the
 * numbers of the inputs the kernel may write, mark_writable). */
PyObject *rt_ufunc_new(PyObject *self, PyObject *args)
{
    const char *name, *doc, *core = NULL;
    int nin, nout, identity;
    PyObject *writable = NULL;
    if (!PyArg_ParseTuple(args, "sziii|zO:ufunc_new", &name, &doc, &nin, &nout, &identity, &core,
                          &writable))
        return NULL;
    /* a gufunc may have no outputs (layout '(n),(m)'): its kernel writes into its operands */
    if (nin < 0 || nout < (core ? 0 : 1) || nin + nout < 1 || nin + nout > NPY_MAXARGS)
        return PyErr_Format(PyExc_ValueError, "a ufunc takes 1 to %d operands in all, with at "
                            "least one output unless it is a gufunc; got %d in, %d out",
                            NPY_MAXARGS, nin, nout);
    if (numpy_ready() < 0)
        return NULL;
    UfOwner *owner = owner_new(name, doc, identity);
    if (!owner)
        return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(owner, UF_CAPSULE, owner_destroy);
    if (!capsule) {
        owner_free(owner);
        return NULL;
    }
    PyObject *uf = PyUFunc_FromFuncAndDataAndSignatureAndIdentity(
        NULL, NULL, NULL, 0, nin, nout, identity, owner->name, owner->doc, 0, core, NULL);
    if (!uf) {
        Py_DECREF(capsule);
        return NULL;
    }
    ((PyUFuncObject *)uf)->obj = capsule;   /* stolen: released with the ufunc */
    if (mark_writable((PyUFuncObject *)uf, writable) < 0)
        Py_CLEAR(uf);
    return uf;
}

/* Fills lp's operand layout from the ufunc's core signature and checks it against the compiled
 * loop's argument types. */
static int describe_loop(UfLoop *lp, PyUFuncObject *uf, RtVersion *v)
{
    int total = 0;
    for (int i = 0; i < lp->nargs; i++) {
        lp->core_ndim[i] = uf->core_enabled ? uf->core_num_dims[i] : 0;
        lp->core_off[i] = uf->core_enabled ? uf->core_offsets[i] : 0;
        total += lp->core_ndim[i];
        Type *t = v->argtypes[i];
        if (t->kind != TY_ARRAY || t->array.ndim != 1 + lp->core_ndim[i]) {
            PyErr_Format(PyExc_TypeError, "ufunc loop: operand %d is %s, expected a %d-d array", i,
                         t->name, 1 + lp->core_ndim[i]);
            return -1;
        }
    }
    int room = (int)(sizeof lp->dim_ixs / sizeof lp->dim_ixs[0]);
    if (total > room || frame_bytes(lp) > UF_FRAME_MAX) {
        PyErr_SetString(PyExc_ValueError, "ufunc loop: too many core dimensions");
        return -1;
    }
    for (int k = 0; k < total; k++)
        lp->dim_ixs[k] = uf->core_dim_ixs[k];
    lp->ncore = uf->core_enabled ? uf->core_num_dim_ix : 0;
    return 0;
}

/* Registers lp as an ArrayMethod of the ufunc (its loops are found first). */
static int add_array_method(PyObject *uf, UfOwner *owner, UfLoop *lp, int nin)
{
    PyArray_DTypeMeta *dtypes[NPY_MAXARGS];
    for (int i = 0; i < lp->nargs; i++) {
        PyArray_Descr *descr = PyArray_DescrFromType(lp->typenums[i]);
        if (!descr)
            return -1;
        dtypes[i] = NPY_DTYPE(descr);   /* the DType class lives as long as NumPy */
        Py_DECREF(descr);
    }
    bool has_identity = owner->identity == PyUFunc_Zero || owner->identity == PyUFunc_One;
    /* Without an identity, no initial value: NumPy starts a reduction at its first item. */
    PyType_Slot slots[3] = {{NPY_METH_get_loop, (void *)get_loop}, {0, NULL}, {0, NULL}};
    if (has_identity)
        slots[1] = (PyType_Slot){NPY_METH_get_reduction_initial, (void *)reduction_initial};
    PyArrayMethod_Spec spec = {
        .name = "pyjit_compiled_loop",
        .nin = nin,
        .nout = lp->nargs - nin,
        .casting = NPY_NO_CASTING,
        .flags = (has_identity || owner->identity == PyUFunc_ReorderableNone)
                     ? NPY_METH_IS_REORDERABLE : 0,
        .dtypes = dtypes,
        .slots = slots,
    };
    return PyUFunc_AddLoopFromSpec(uf, &spec);
}

/* Appends lp to the ufunc's legacy tables (ufunc.types, and what legacy type resolution reads).
 * The old tables are retired, not freed: NumPy may hold a pointer into them. */
static int add_legacy_entry(PyUFuncObject *uf, UfOwner *owner, UfLoop *lp)
{
    int n = uf->ntypes, nargs = lp->nargs;
    PyUFuncGenericFunction *funcs = malloc(((size_t)n + 1) * sizeof *funcs);
    void **data = malloc(((size_t)n + 1) * sizeof *data);
    char *types = malloc(((size_t)n + 1) * (size_t)nargs);
    void **retired = realloc(owner->retired, ((size_t)owner->nretired + 3) * sizeof *retired);
    if (retired)
        owner->retired = retired;
    if (!funcs || !data || !types || !retired) {
        free(funcs);
        free(data);
        free(types);
        PyErr_NoMemory();
        return -1;
    }
    if (n > 0) {
        memcpy(funcs, owner->funcs, (size_t)n * sizeof *funcs);
        memcpy(data, owner->data, (size_t)n * sizeof *data);
        memcpy(types, owner->types, (size_t)n * (size_t)nargs);
    }
    funcs[n] = legacy_loop;
    data[n] = lp;
    for (int i = 0; i < nargs; i++)
        types[n * nargs + i] = (char)lp->typenums[i];
    owner->retired[owner->nretired++] = owner->funcs;
    owner->retired[owner->nretired++] = owner->data;
    owner->retired[owner->nretired++] = owner->types;
    owner->funcs = funcs;
    owner->data = data;
    owner->types = types;
    uf->functions = funcs;
    uf->data = data;
    uf->types = types;
    uf->ntypes = n + 1;
    return 0;
}

static int parse_typenums(PyObject *tuple, UfLoop *lp)
{
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != lp->nargs) {
        PyErr_Format(PyExc_TypeError, "ufunc loop: expected a tuple of %d type numbers", lp->nargs);
        return -1;
    }
    for (int i = 0; i < lp->nargs; i++) {
        lp->typenums[i] = (int)PyLong_AsLong(PyTuple_GET_ITEM(tuple, i));
        if (lp->typenums[i] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* _core.ufunc_add_loop(ufunc, loop, typenums, parallel=False, factory=None): adds a compiled
 * loop (a Dispatcher with one version over the operands' arrays) for these NumPy type numbers;
 * factory(pattern) compiles the variant for a stride pattern (a tuple of UF_* codes). */
PyObject *rt_ufunc_add_loop(PyObject *self, PyObject *args)
{
    PyObject *ufobj, *disp, *typenums, *factory = Py_None;
    int parallel = 0;
    if (!PyArg_ParseTuple(args, "OO!O|pO:ufunc_add_loop", &ufobj, &RtDispatcherType, &disp,
                          &typenums, &parallel, &factory))
        return NULL;
    if (numpy_ready() < 0)
        return NULL;
    UfOwner *owner = owner_of(ufobj);
    PyUFuncObject *uf = (PyUFuncObject *)ufobj;
    RtDispatcher *d = (RtDispatcher *)disp;
    if (!owner)
        return PyErr_Format(PyExc_TypeError, "ufunc_add_loop: %R is not a pyjit ufunc", ufobj);
    if (d->nversions < 1 || d->nargs != uf->nargs)
        return PyErr_Format(PyExc_TypeError, "ufunc_add_loop: the loop must be compiled, with %d "
                            "arguments", uf->nargs);
    UfLoop *lp = calloc(1, sizeof *lp);
    UfLoop **loops = lp ? realloc(owner->loops, ((size_t)owner->nloops + 1) * sizeof *loops) : NULL;
    if (!loops) {
        free(lp);
        return PyErr_NoMemory();
    }
    owner->loops = loops;
    lp->wrapper = d->versions[0]->code.wrapper;
    lp->nargs = uf->nargs;
    lp->parallel = parallel;
    if (parse_typenums(typenums, lp) < 0 || describe_loop(lp, uf, d->versions[0]) < 0)
        goto fail;
    for (int i = 0; i < lp->nargs; i++) {
        PyArray_Descr *descr = PyArray_DescrFromType(lp->typenums[i]);
        if (!descr)
            goto fail;
        lp->itemsize[i] = PyDataType_ELSIZE(descr);
        Py_DECREF(descr);
    }
    atomic_init(&lp->nvariants, 0);
    lp->factory = factory == Py_None ? NULL : Py_NewRef(factory);
    owner->loops[owner->nloops++] = lp;
    if (add_array_method(ufobj, owner, lp, uf->nin) < 0) {
        owner->nloops--;
        goto fail;
    }
    /* From here the ArrayMethod refers to lp: it stays, whatever fails. */
    if (PyList_Append(owner->keep, disp) < 0 || add_legacy_entry(uf, owner, lp) < 0)
        return NULL;
    Py_RETURN_NONE;
fail:
    Py_XDECREF(lp->factory);
    free(lp);
    return NULL;
}

