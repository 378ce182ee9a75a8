/* compile.c: what the runtime does around pipeline_compile for a dispatcher.
 *
 * One compilation = one arena: the CompilerHost below lets the pipeline (compiler/pipeline.c)
 * build the IR of the function and of every @njit function it calls through the frontend, and
 * the arena is freed at the end. What must outlive the arena is copied into the RtVersion: the
 * machine code (JitCode), the texts for inspect_*(), and references to the Python objects whose
 * addresses the machine code holds (exception classes, frozen arrays). */
#include "runtime/runtime.h"
#include "frontend/frontend.h"

#include <stdlib.h>
#include <string.h>

int rt_is_dispatcher(PyObject *obj)
{
    return Py_TYPE(obj) == &RtDispatcherType;
}

/* ---- the CompilerHost: what the compiler asks about other @njit functions ---- */

static IRFunc *host_get_ir(void *ctx, void *handle, Arena *arena, Diag *diag)
{
    RtDispatcher *callee = handle;
    if (rt_check_code(callee, diag) < 0)
        return NULL;
    return fe_build(callee->py_func, callee->registry, rt_is_dispatcher, arena, diag);
}

const CompileOptions *rt_callee_options(void *ctx, void *handle)
{
    PyObject *obj = handle;
    return rt_is_dispatcher(obj) ? &((RtDispatcher *)obj)->opts : NULL;
}

/* Equal but for weakness (a version compiled for a Python int serves an int64 call). */
static bool same_types(Type **a, Type **b, int n)
{
    for (int i = 0; i < n; i++)
        if (ty_strong(a[i]) != ty_strong(b[i]))
            return false;
    return true;
}

static Type *host_known_return(void *ctx, void *handle, Type **args, int nargs)
{
    RtDispatcher *callee = handle;
    if (nargs != callee->nargs)
        return NULL;
    for (int i = 0; i < callee->nsigs; i++)
        if (callee->sigs[i].ret && same_types(callee->sigs[i].args, args, nargs))
            return callee->sigs[i].ret;
    for (int i = 0; i < callee->nversions; i++)
        if (same_types(callee->versions[i]->argtypes, args, nargs))
            return callee->versions[i]->ret;
    return NULL;
}

/* A simulated kernel's callees (PYJIT_SIMULATOR=cpu) are @njit dispatchers, as for @njit, or
 * device functions, as for the GPU (runtime/cuda_compile.c). */
static IRFunc *sim_get_ir(void *ctx, void *handle, Arena *arena, Diag *diag)
{
    PyObject *obj = handle;
    if (rt_is_dispatcher(obj))
        return host_get_ir(ctx, handle, arena, diag);
    PyObject *func = PyObject_GetAttrString(obj, "py_func");
    if (!func)
        PyErr_Clear();   /* not a function at all: the frontend says what it is */
    IRFunc *ir = fe_build(func ? func : obj, ((RtDispatcher *)ctx)->registry, rt_is_dispatcher,
                          arena, diag);
    Py_XDECREF(func);
    return ir;
}

static Type *sim_known_return(void *ctx, void *handle, Type **args, int nargs)
{
    return rt_is_dispatcher(handle) ? host_known_return(ctx, handle, args, nargs) : NULL;
}

/* A call from compiled code binds to declared signatures as a call from Python does
 * (dispatch.c): a dispatcher that compiles no new versions converts the arguments to the
 * signature they fit best; one that still compiles uses a signature only for its exact types.
 * An inline='always' callee's body is compiled for the arguments as they are: Numba inlines it
 * into its callers before typing, so their types, not its signatures, type it there. */
int rt_declared_signature(void *ctx, void *handle, Type **args, int nargs, Type **params,
                          Type **ret, char *why, size_t why_size)
{
    RtDispatcher *callee = handle;
    if (nargs != callee->nargs || callee->nsigs == 0 || callee->inline_always)
        return 0;
    RtSignature *sig = NULL;
    if (!callee->can_compile)
        sig = rt_best_signature(callee, args);
    else
        for (int i = 0; i < callee->nsigs && !sig; i++)
            if (same_types(callee->sigs[i].args, args, nargs))
                sig = &callee->sigs[i];
    if (!sig && callee->can_compile)
        return 0;
    if (!sig) {
        PyObject *text = rt_signatures_text(callee);
        const char *utf8 = text ? PyUnicode_AsUTF8(text) : NULL;
        snprintf(why, why_size, "%s", utf8 ? utf8 : "");
        Py_XDECREF(text);
        PyErr_Clear();
        return -1;
    }
    for (int i = 0; i < nargs; i++)
        params[i] = sig->args[i];
    *ret = sig->ret;
    return 1;
}

/* The registry is filled on the first compilation, so `import pyjit` imports no NumPy. */
static int ensure_registry(RtDispatcher *d)
{
    static PyObject *populated;   /* the registry filled last (pyjit has one, for its lifetime) */
    if (d->registry == populated)
        return 0;
    PyObject *mod = PyImport_ImportModule("pyjit._registry");
    PyObject *res = mod ? PyObject_CallMethod(mod, "populate", "O", d->registry) : NULL;
    Py_XDECREF(mod);
    Py_XDECREF(res);
    if (!res)
        return -1;
    populated = d->registry;
    return 0;
}

/* ---- what the machine code needs kept alive, and what the dispatcher needs to know ---- */

static int keep_const(PyObject *keep, const Const *c)
{
    if (c->kind == K_TUPLE) {
        for (int i = 0; i < c->tuple.n; i++)
            if (keep_const(keep, c->tuple.items[i]) < 0)
                return -1;
        return 0;
    }
    if ((c->kind == K_EXCCLASS || c->kind == K_ARRAY || c->kind == K_CFUNC ||
         c->kind == K_OBJMODE) && c->handle)
        return PyList_Append(keep, c->handle);
    return 0;
}

static int scan_program(Program *prog, RtVersion *v)
{
    for (int f = 0; f < prog->funcs.len; f++) {
        IRFunc *fn = ((TypedFunc *)prog->funcs.items[f])->ir;
        for (int b = 0; b < fn->blocks.len; b++) {
            Block *block = fn->blocks.items[b];
            for (int i = 0; i < block->instrs.len; i++) {
                Instr *in = block->instrs.items[i];
                if (in->op == OP_INTRINSIC && in->sub == BI_PRINT)
                    v->uses_print = true;
                if (in->op == OP_CONST && in->cst && keep_const(v->keepalive, in->cst) < 0)
                    return -1;
            }
        }
    }
    return 0;
}

static char *copy_text(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Where each argument lies in the frame the dispatcher unboxes into (abi.h wrapper). */
static bool holds_list(const Type *t)
{
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            if (holds_list(t->tuple.items[i]))
                return true;
    return ty_is_container(t) || t->kind == TY_CLASS || t->kind == TY_RNG;   /* a string argument is a copy, released */
}

static int layout_frame(RtVersion *v, int nargs)
{
    v->offsets = calloc((size_t)nargs + 1, sizeof(int64_t));
    if (!v->offsets) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t off = 0;
    for (int i = 0; i < nargs; i++) {
        int64_t align = ty_mem_align(v->argtypes[i]);
        off = (off + align - 1) / align * align;
        v->offsets[i] = off;
        off += ty_mem_size(v->argtypes[i]);
        v->list_args |= holds_list(v->argtypes[i]);
    }
    v->frame_size = off;
    v->ret_size = ty_mem_size(v->ret);
    return 0;
}

RtVersion *rt_version_new(RtDispatcher *d, Type **argtypes, Type *ret, JitCode *code,
                          PyObject *keepalive)
{
    RtVersion *v = calloc(1, sizeof *v);
    if (!v)
        goto nomem;
    v->code = *code;
    v->keepalive = keepalive;
    v->argtypes = malloc(((size_t)d->nargs + 1) * sizeof(Type *));
    if (!v->argtypes)
        goto nomem;
    memcpy(v->argtypes, argtypes, (size_t)d->nargs * sizeof(Type *));
    v->ret = ret;
    if (layout_frame(v, d->nargs) < 0)
        goto fail;
    return v;
nomem:
    PyErr_NoMemory();
fail:
    if (v) {
        rt_version_free(v);
    } else {
        jit_release(code);
        Py_DECREF(keepalive);
    }
    return NULL;
}

static RtVersion *version_of_program(RtDispatcher *d, Program *prog, Type **argtypes, JitCode *code)
{
    PyObject *keepalive = PyList_New(0);
    if (!keepalive) {
        jit_release(code);
        return NULL;
    }
    RtVersion *v = rt_version_new(d, argtypes, ((TypedFunc *)prog->funcs.items[0])->ret, code,
                                  keepalive);
    if (!v)
        return NULL;
    v->types_dump = copy_text(prog->types_dump);
    v->llvm_dump = copy_text(prog->llvm_dump);
    v->asm_dump = copy_text(prog->asm_dump);
    v->sim_sync = prog->sim_sync;
    v->sim_shared = prog->sim_shared_bytes;
    v->sim_grid = prog->sim_grid;
    if (scan_program(prog, v) < 0) {
        rt_version_free(v);
        return NULL;
    }
    return v;
}

void rt_version_free(RtVersion *v)
{
    if (v->code.dylib)
        jit_release(&v->code);
    free(v->argtypes);
    free(v->offsets);
    free(v->types_dump);
    free(v->llvm_dump);
    free(v->asm_dump);
    Py_XDECREF(v->keepalive);
    free(v);
}

/* Whether a type is or holds a dispatcher, which the compiled code builds in: the disk cache
 * names it only by its name, which another process may give another function. */
static bool holds_function(const Type *t)
{
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            if (holds_function(t->tuple.items[i]))
                return true;
    return t->kind == TY_DISPATCHER;
}

static bool cacheable(RtDispatcher *d, Type **argtypes)
{
    for (int i = 0; i < d->nargs; i++)
        if (holds_function(argtypes[i]))
            return false;
    return d->cache && !d->opts.dump && PyFunction_GET_CODE(d->py_func) == d->code &&
           !rt_takes_c_function(argtypes, d->nargs);   /* its address differs between processes */
}

/* PYJIT_SIMULATOR_RACECHECK set (not "", 0, false, no, off), as the interpreted simulator reads
 * it: a simulated kernel compiled now checks its shared memory for races. */
static bool racecheck_env(void)
{
    const char *v = getenv("PYJIT_SIMULATOR_RACECHECK");
    if (!v)
        return false;
    while (*v == ' ')
        v++;
    static const char *const off[] = {"", "0", "false", "no", "off"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (strncasecmp(v, off[i], strlen(off[i])) == 0 && !v[strlen(off[i])])
            return false;
    return true;
}

/* Whether a version is for one value of an argument: the disk cache keys versions by types. */
static bool takes_literal(RtDispatcher *d, Type **argtypes)
{
    for (int i = 0; i < d->nargs; i++)
        if (ty_literal_value(argtypes[i]))
            return true;
    return false;
}

RtVersion *rt_compile_version(RtDispatcher *d, Type **argtypes, Type *ret, int *literal_arg)
{
    CompilerHost host = {.ctx = d, .get_ir = host_get_ir, .known_return = host_known_return,
                         .declared_signature = rt_declared_signature,
                         .resolve_overload = rt_resolve_overload,
                         .method_overloads = rt_method_overloads,
                         .options_of = rt_callee_options};
    if (d->opts.gpu_sim) {
        host.get_ir = sim_get_ir;
        host.known_return = sim_known_return;
        host.declared_signature = rt_gpu_declared_signature;
    }
    Program prog = {.opts = &d->opts, .host = &host, .cfunc = d->cfunc, .gpu_sim = d->opts.gpu_sim,
                    .sim_racecheck = d->opts.gpu_sim && racecheck_env()};
    JitCode code = {0};
    Diag diag = {0};
    RtVersion *v = NULL;
    PyObject *cache_token = NULL;   /* what rt_cache_store needs, on a miss of the disk cache */
    /* before the registry is filled, which a version loaded from the cache does not need; a
     * stage printed by PYJIT_DUMP is one compiled now */
    if (cacheable(d, argtypes) && !takes_literal(d, argtypes) &&
        (v = rt_cache_load(d, argtypes, ret, &cache_token)))
        return v;
    if (PyErr_Occurred() || ensure_registry(d) < 0)   /* an interrupt while the cache was read */
        goto done;
    if (!(prog.arena = arena_new())) {
        PyErr_NoMemory();
        goto done;
    }
    if (pipeline_compile(&prog, d, argtypes, d->nargs, ret, &code, &diag) < 0) {
        if (literal_arg && diag.kind == DIAG_LITERAL && !diag.literal_shape &&
            diag.literal_arg >= 0 && diag.literal_arg < d->nargs)
            *literal_arg = diag.literal_arg;
        else
            rt_raise_diag(&diag);
    } else
        v = version_of_program(d, &prog, argtypes, &code);
    if (v && cache_token) {
        rt_cache_store(cache_token, &prog, v);
        if (PyErr_Occurred()) {   /* an interrupt while the entry was written */
            rt_version_free(v);
            v = NULL;
        }
    }
    arena_free(prog.arena);
done:
    Py_XDECREF(cache_token);
    return v;
}

/* The assembly of v (inspect_asm), generated again from the optimised LLVM IR it kept, since the
 * JIT keeps neither module nor text: jit_asm_of's target machine has the JIT's settings, so this
 * is the same code up to code generation's choices, not the bytes that run. Kept for the next
 * call. */
PyObject *rt_version_asm(RtDispatcher *d, RtVersion *v)
{
    if (!v->asm_dump) {
        Arena *arena = arena_new();
        Diag diag = {0};
        if (!arena)
            return PyErr_NoMemory();
        const char *text = jit_asm_of(v->llvm_dump, arena, &diag);
        v->asm_dump = copy_text(text);
        arena_free(arena);
        if (!text)
            return rt_raise_diag(&diag);
        if (!v->asm_dump)
            return PyErr_NoMemory();
    }
    return PyUnicode_FromString(v->asm_dump);
}
