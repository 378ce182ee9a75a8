/* cuda_compile.c: the compiler side of @gpu.jit, behind cuda_compile_kernel (runtime/cuda.h).
 *
 * The same pipeline as @njit: the frontend builds the IR of the kernel (and, through the
 * CompilerHost below, of the device functions it calls), inference types it for the launch's
 * argument types, and lowering emits it for target_nvptx, which jit_compile_ptx turns into PTX.
 * What the runtime also needs comes from the typed IR: which array arguments the kernel may
 * write (so that only those are copied back to host arrays after a launch). */
#include "runtime/cuda.h"
#include "runtime/runtime.h"
#include "frontend/frontend.h"

#include <stdio.h>
#include <string.h>

/* ---- the CompilerHost: device functions (and @njit functions) called from a kernel ---------- */

static IRFunc *gpu_get_ir(void *ctx, void *handle, Arena *arena, Diag *diag)
{
    PyObject *registry = ctx, *obj = handle;
    if (rt_is_dispatcher(obj))
        return fe_build(((RtDispatcher *)obj)->py_func, registry, arena, diag);
    PyObject *func = PyObject_GetAttrString(obj, "py_func");
    if (!func) {
        PyErr_Clear();
        diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "a device function without py_func");
        return NULL;
    }
    IRFunc *ir = fe_build(func, registry, arena, diag);
    Py_DECREF(func);
    return ir;
}

static Type *gpu_known_return(void *ctx, void *handle, Type **args, int nargs)
{
    return NULL;   /* device functions are typed from their bodies, for each call's types */
}

/* ---- which array arguments the kernel may write ---------------------------------------------- */

static bool holds_array(const Type *t)
{
    if (t->kind == TY_ARRAY)
        return true;
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            if (holds_array(t->tuple.items[i]))
                return true;
    return false;
}

static uint64_t arg_bit(int64_t i)
{
    return 1ull << (i < 63 ? i : 63);
}

/* The arguments an array value may come from: back through views, phis and tuples. */
static uint64_t sources(Instr *v, bool *seen, int nids)
{
    if (v->id < 0 || v->id >= nids || seen[v->id])
        return 0;
    seen[v->id] = true;
    if (v->op == OP_ARG)
        return arg_bit(v->imm);
    if (v->op == OP_CONST || v->op == OP_CALL_JIT)
        return 0;
    uint64_t m = 0;
    for (int i = 0; i < v->nargs; i++)
        if (v->args[i]->type && holds_array(v->args[i]->type))
            m |= sources(v->args[i], seen, nids);
    return m;
}

static uint64_t written_by(TypedFunc *tf, Arena *arena, int depth);

/* The arguments one instruction may write through, as a mask of tf's arguments. */
static uint64_t instr_writes(Instr *in, TypedFunc *tf, Arena *arena, int depth, bool *seen, int nids)
{
    bool writes = in->op == OP_INTRINSIC && ir_builtin_written((Builtin)in->sub) == 0;
    if ((in->op == OP_ARRAY_SET || writes) &&
        in->nargs > 0) {
        memset(seen, 0, (size_t)nids);
        return sources(in->args[0], seen, nids);
    }
    if (in->op != OP_CALL_JIT || !in->callee)
        return 0;
    uint64_t callee = depth > 6 ? CUDA_WRITES_ALL : written_by(in->callee, arena, depth + 1);
    uint64_t m = 0;
    for (int i = 0; i < in->nargs; i++)
        if ((callee & arg_bit(i)) && holds_array(in->args[i]->type)) {
            memset(seen, 0, (size_t)nids);
            m |= sources(in->args[i], seen, nids);
        }
    return m;
}

static uint64_t written_by(TypedFunc *tf, Arena *arena, int depth)
{
    IRFunc *fn = tf->ir;
    int nids = fn->next_id + 1;
    bool *seen = arena_alloc(arena, (size_t)nids);
    uint64_t m = 0;
    for (int b = 0; b < fn->blocks.len; b++) {
        Block *blk = fn->blocks.items[b];
        for (int i = 0; i < blk->instrs.len; i++)
            m |= instr_writes(blk->instrs.items[i], tf, arena, depth, seen, nids);
    }
    return m;
}

/* ---- the compilation ------------------------------------------------------------------------- */

static void dump(const char *stage, const char *name, const char *text)
{
    if (text)
        fprintf(stderr, "---- %s: %s ----\n%s\n", stage, name, text);
}

static int check_kernel(Program *prog, TypedFunc *tf, bool device, Diag *diag)
{
    if (device || !tf->ret || tf->ret->kind == TY_NONE)
        return 0;
    return diag_error(diag, DIAG_TYPING, tf->ir->qualname, tf->ir->filename, tf->ir->firstline, -1,
                      -1, "a kernel cannot return a value (this one returns %s); write results "
                      "into an array argument, or use @gpu.jit(device=True) for a function that "
                      "kernels call", tf->ret->name);
}

int cuda_compile_kernel(PyObject *pyfunc, PyObject *registry, Type **argtypes, int nargs,
                        const CudaCompileOptions *opts, Arena *arena, CudaKernelCode *out,
                        Diag *diag)
{
    const CompileOptions *base = &opts->base;
    IRFunc *fn = fe_build(pyfunc, registry, arena, diag);
    if (!fn)
        return -1;
    if (base->dump & DUMP_BYTECODE)
        dump("bytecode", fn->qualname, fn->bytecode_dump);
    if (base->dump & DUMP_SSA)
        dump("ssa", fn->qualname, ir_dump(fn, false));
    if (fn->nargs != nargs)
        return diag_error(diag, DIAG_TYPING, fn->qualname, fn->filename, fn->firstline, -1, -1,
                          "%s() takes %d arguments but %d were given", fn->name, fn->nargs, nargs);
    CompilerHost host = {registry, gpu_get_ir, gpu_known_return};
    Program prog = {.arena = arena, .opts = base, .host = &host, .gpu = true,
                    .gpu_device = opts->device, .gpu_cc = opts->cc_major * 10 + opts->cc_minor,
                    .gpu_aligned = opts->aligned, .gpu_noalias = opts->noalias};
    if (base->debug && ir_check(fn, false, diag) < 0)
        return -1;
    TypedFunc *tf = infer_program(&prog, fn, argtypes, nargs, NULL, diag);
    if (!tf || check_kernel(&prog, tf, opts->device, diag) < 0)
        return -1;
    if (base->dump & DUMP_TYPES)
        dump("types", fn->qualname, prog.types_dump);
    uint64_t written = written_by(tf, arena, 0);
    prog.gpu_readonly = ~written;
    if (jit_compile_ptx(&prog, diag) < 0)
        return -1;
    if (base->dump & DUMP_LLVM)
        dump("llvm", fn->qualname, prog.llvm_dump);
    if (base->dump & (DUMP_PTX | DUMP_ASM))
        dump("ptx", fn->qualname, prog.asm_dump);
    out->ptx = prog.asm_dump;
    out->entry = prog.gpu_entry;
    out->written = written;
    out->types_dump = prog.types_dump;
    out->llvm_dump = prog.llvm_dump;
    return 0;
}
