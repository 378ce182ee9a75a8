/* pipeline.c: the whole compiler, one stage a line, for the CPU and the GPU alike.
 *
 *   frontend    bytecode -> SSA IR (frontend/, reached through the CompilerHost: compiler/ does
 *               not see Python)
 *   IR check    the untyped IR's contract (ir.h), when PYJIT_DEBUG=1
 *   inference   SSA IR -> typed IR, for the entry and every function it calls (infer.c)
 *   effects     which array arguments may be written (effects.c)
 *   lowering    typed IR -> one LLVM module for the target (lower*.c through jit.c)
 *   verify      LLVM's verifier
 *   optimise    LLVM's optimiser
 *   emission    ORC LLJIT machine code (CPU) or PTX (GPU)
 *
 * PYJIT_DUMP prints a stage's text right after the stage, here and nowhere else. */
#include "compiler/compiler.h"

#include <stdio.h>

static void print_stage(const char *stage, const IRFunc *fn, const char *text)
{
    if (text)
        fprintf(stderr, "---- %s: %s ----\n%s\n", stage, fn->qualname, text);
}

/* PYJIT_DUMP: the texts of the stages just run (stages: DUMP_* bits) that opts->dump asks for. */
static void dump(Program *prog, IRFunc *fn, unsigned stages)
{
    unsigned want = prog->opts->dump & stages;
    if (want & DUMP_BYTECODE)
        print_stage("bytecode", fn, fn->bytecode_dump);
    if (want & DUMP_SSA)
        print_stage("ssa", fn, ir_dump(fn, false));
    if (want & DUMP_TYPES)
        print_stage("types", fn, prog->types_dump);
    if (want & DUMP_LLVM)
        print_stage("llvm", fn, prog->llvm_dump);
    if (prog->gpu && (want & (DUMP_PTX | DUMP_ASM)))
        print_stage("ptx", fn, prog->asm_dump);
    if (!prog->gpu && (want & DUMP_ASM)) {
        Diag ignored = {0};   /* a dump that cannot be made is not a failed compilation */
        prog->asm_dump = jit_asm_of(prog->llvm_dump, prog->arena, &ignored);
        print_stage("asm", fn, prog->asm_dump);
    }
}

/* A kernel's results go to its array arguments; only device functions return values. */
static int check_kernel_returns_none(Program *prog, Diag *diag)
{
    TypedFunc *tf = prog->funcs.items[0];
    if (!prog_kernel_code(prog) || prog->gpu_device || !tf->ret || tf->ret->kind == TY_NONE)
        return 0;
    return diag_error(diag, DIAG_TYPING, tf->ir->qualname, tf->ir->filename, tf->ir->firstline, -1,
                      -1, "a kernel cannot return a value (this one returns %s); write results "
                      "into an array argument, or use @gpu.jit(device=True) for a function that "
                      "kernels call", tf->ret->name);
}

int pipeline_compile(Program *prog, void *entry, Type **argtypes, int nargs, Type *ret,
                     JitCode *code, Diag *diag)
{
    IRFunc *fn = prog->host->get_ir(prog->host->ctx, entry, prog->arena, diag);    /* frontend */
    if (!fn)
        goto fail;
    dump(prog, fn, DUMP_BYTECODE | DUMP_SSA);
    if (prog->opts->debug && ir_check(fn, false, diag) < 0)
        goto fail;
    if (!infer_program(prog, fn, argtypes, nargs, ret, diag))
        goto fail;
    if (check_kernel_returns_none(prog, diag) < 0)
        goto fail;
    dump(prog, fn, DUMP_TYPES);
    for (int i = 0; i < prog->funcs.len; i++)
        ir_single_back_edges(((TypedFunc *)prog->funcs.items[i])->ir);
    effects_find_written(prog);
    if (jit_lower(prog, diag) < 0)
        goto fail;
    if (jit_verify(prog, diag) < 0)
        goto fail;
    if (jit_optimise(prog, diag) < 0)
        goto fail;
    dump(prog, fn, DUMP_LLVM);
    if (arena_check(prog->arena, diag) < 0)   /* memory ran out in a stage: MemoryError */
        goto fail;
    if ((prog->gpu ? jit_emit_ptx(prog, diag) : jit_emit_cpu(prog, code, diag)) < 0)
        goto fail;
    dump(prog, fn, DUMP_ASM | DUMP_PTX);
    return 0;
fail:
    arena_check(prog->arena, diag);   /* out of memory explains whatever failed after it */
    return -1;
}
