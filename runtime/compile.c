/* compile.c: drives the frontend and the compiler for a dispatcher.
 *
 * One compilation = one arena: the frontend builds the IR of the function (and, through the
 * CompilerHost, of every @njit function it calls) into it, pipeline_compile_cpu types and
 * compiles it, and the arena is freed at the end. What must outlive the arena is copied into
 * the RtVersion: the machine code (JitCode), the texts for inspect_*(), and references to the
 * Python objects whose addresses the machine code holds (exception classes, frozen arrays). */
#include "runtime/runtime.h"
#include "frontend/frontend.h"

#include <stdio.h>
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
    return fe_build(callee->py_func, callee->registry, arena, diag);
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

static void dump_text(const char *stage, const char *name, const char *text)
{
    if (text)
        fprintf(stderr, "---- %s: %s ----\n%s\n", stage, name, text);
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
    if ((c->kind == K_EXCCLASS || c->kind == K_ARRAY) && c->handle)
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
static int layout_frame(RtVersion *v, int nargs)
{
    v->offsets = calloc((size_t)nargs + 1, sizeof(int64_t));
    if (!v->offsets)
        return -1;
    int64_t off = 0;
    for (int i = 0; i < nargs; i++) {
        int64_t align = ty_mem_align(v->argtypes[i]);
        off = (off + align - 1) / align * align;
        v->offsets[i] = off;
        off += ty_mem_size(v->argtypes[i]);
    }
    v->frame_size = off;
    v->ret_size = ty_mem_size(v->ret);
    return 0;
}

static RtVersion *version_new(RtDispatcher *d, Program *prog, Type **argtypes, JitCode *code)
{
    RtVersion *v = calloc(1, sizeof *v);
    if (!v)
        goto nomem;
    v->code = *code;
    v->argtypes = malloc(((size_t)d->nargs + 1) * sizeof(Type *));
    if (!v->argtypes)
        goto nomem;
    memcpy(v->argtypes, argtypes, (size_t)d->nargs * sizeof(Type *));
    v->ret = ((TypedFunc *)prog->funcs.items[0])->ret;
    v->keepalive = PyList_New(0);
    if (!v->keepalive || layout_frame(v, d->nargs) < 0)
        goto fail;
    v->types_dump = copy_text(prog->types_dump);
    v->llvm_dump = copy_text(prog->llvm_dump);
    if (scan_program(prog, v) < 0)
        goto fail;
    return v;
nomem:
    PyErr_NoMemory();
fail:
    if (v)
        rt_version_free(v);
    else
        jit_release(code);
    return NULL;
}

void rt_version_free(RtVersion *v)
{
    if (v->code.wrapper || v->code.tracker)
        jit_release(&v->code);
    free(v->argtypes);
    free(v->offsets);
    free(v->types_dump);
    free(v->llvm_dump);
    Py_XDECREF(v->keepalive);
    free(v);
}

/* Builds d's IR and compiles it into prog (whose arena the caller frees). */
static int compile_into(RtDispatcher *d, Program *prog, const CompileOptions *opts,
                        const CompilerHost *host, Type **argtypes, Type *ret, JitCode *code)
{
    Diag diag = {0};
    if (ensure_registry(d) < 0)
        return -1;
    IRFunc *fn = fe_build(d->py_func, d->registry, prog->arena, &diag);
    if (!fn)
        goto fail;
    if (opts->dump & DUMP_BYTECODE)
        dump_text("bytecode", fn->qualname, fn->bytecode_dump);
    if (opts->dump & DUMP_SSA)
        dump_text("ssa", fn->qualname, ir_dump(fn, false));
    if (fn->nargs != d->nargs) {
        diag_error(&diag, DIAG_INTERNAL, fn->qualname, fn->filename, fn->firstline, -1, -1,
                   "the frontend saw %d arguments, the dispatcher %d", fn->nargs, d->nargs);
        goto fail;
    }
    prog->opts = opts;
    prog->host = host;
    if (pipeline_compile_cpu(prog, fn, argtypes, d->nargs, ret, code, &diag) < 0)
        goto fail;
    if (arena_check(prog->arena, &diag) < 0) {
        jit_release(code);
        goto fail;
    }
    return 0;
fail:
    arena_check(prog->arena, &diag);   /* out of memory explains whatever failed after it */
    rt_raise_diag(&diag);
    return -1;
}

RtVersion *rt_compile_version(RtDispatcher *d, Type **argtypes, Type *ret)
{
    CompilerHost host = {d, host_get_ir, host_known_return};
    Program prog = {0};
    JitCode code = {0};
    RtVersion *v = NULL;
    if (!(prog.arena = arena_new()))
        return (RtVersion *)PyErr_NoMemory();
    if (compile_into(d, &prog, &d->opts, &host, argtypes, ret, &code) == 0)
        v = version_new(d, &prog, argtypes, &code);
    arena_free(prog.arena);
    return v;
}

PyObject *rt_version_asm(RtDispatcher *d, RtVersion *v)
{
    CompilerHost host = {d, host_get_ir, host_known_return};
    CompileOptions opts = d->opts;
    Program prog = {0};
    JitCode code = {0};
    PyObject *result = NULL;
    Diag diag = {0};
    opts.dump = 0;
    if (!(prog.arena = arena_new()))
        return PyErr_NoMemory();
    if (compile_into(d, &prog, &opts, &host, v->argtypes, v->ret, &code) < 0)
        goto done;
    const char *text = jit_emit_asm(&prog, &diag);
    result = text ? PyUnicode_FromString(text) : rt_raise_diag(&diag);
    jit_release(&code);
done:
    arena_free(prog.arena);
    return result;
}
