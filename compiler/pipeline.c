/* pipeline.c: the whole compiler, one stage a line. */
#include "compiler/compiler.h"

#include <stdio.h>

static void dump_stage(const Program *prog, unsigned stage, const char *title, const char *text)
{
    if ((prog->opts->dump & stage) && text)
        fprintf(stderr, "---- %s: %s ----\n%s\n", title, ((TypedFunc *)prog->funcs.items[0])->ir->qualname,
                text);
}

int pipeline_compile_cpu(Program *prog, IRFunc *fn, Type **argtypes, int nargs, Type *ret,
                         JitCode *out, Diag *diag)
{
    if (prog->opts->debug && ir_check(fn, false, diag) < 0)
        return -1;
    if (!infer_program(prog, fn, argtypes, nargs, ret, diag))
        return -1;
    dump_stage(prog, DUMP_TYPES, "types", prog->types_dump);
    if (jit_compile_cpu(prog, out, diag) < 0)
        return -1;
    dump_stage(prog, DUMP_LLVM, "llvm", prog->llvm_dump);
    if (prog->opts->dump & DUMP_ASM)
        dump_stage(prog, DUMP_ASM, "asm", jit_emit_asm(prog, diag));
    return 0;
}
