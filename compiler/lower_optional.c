/* lower_optional.c: Optional values (infer_optional.c makes them).
 *
 * optional(T) is the LLVM struct {i1 present, T value}, laid out in memory as the C struct
 * {bool; T} (types.c: ty_mem_size), its value zeroed when absent: a zero MemInfo, which reference
 * counting skips, so an optional is counted as its value is. The value is borrowed from the
 * instruction that made it, as a phi's is. */
#include "compiler/lower.h"

#include <stdio.h>

static LLVMValueRef make(Lower *L, Type *t, LLVMValueRef present, LLVMValueRef value)
{
    LLVMValueRef v = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, t)), present, 0, "");
    return LLVMBuildInsertValue(L->b, v, value, 1, "");
}

LLVMValueRef lower_optional_cast(Lower *L, LLVMValueRef v, Type *from, Type *to)
{
    Type *value = to->optional.value;
    if (from->kind == TY_NONE)
        return make(L, to, LLVMConstInt(L->i1, 0, 0), LLVMConstNull(lower_type(L, value)));
    if (from->kind != TY_OPTIONAL)
        return make(L, to, LLVMConstInt(L->i1, 1, 0), v);
    LLVMValueRef x = LLVMBuildExtractValue(L->b, v, 1, "");
    return make(L, to, LLVMBuildExtractValue(L->b, v, 0, ""),
                lower_cast(L, x, from->optional.value, value));   /* arrays: one representation */
}

/* The value, after a check that raises TypeError as Numba does when it is None. */
static LLVMValueRef get_value(Lower *L, Instr *in, LLVMValueRef v)
{
    char msg[256];
    snprintf(msg, sizeof msg, "expected %s, got None", in->type->name);
    LLVMValueRef absent = LLVMBuildNot(L->b, LLVMBuildExtractValue(L->b, v, 0, ""), "");
    lower_check(L, absent, ABI_EXC_TYPE, msg, NULL, 0);
    return LLVMBuildExtractValue(L->b, v, 1, "");
}

LLVMValueRef lower_optional(Lower *L, Instr *in)
{
    Type *t = in->args[0]->type;
    LLVMValueRef v = lower_value(L, in->args[0]);
    if (in->sub == OPT_IS_NONE)
        return LLVMBuildNot(L->b, LLVMBuildExtractValue(L->b, v, 0, ""), "");
    return t->kind == TY_OPTIONAL ? get_value(L, in, v) : v;
}

/* Present and true: the value's truth is taken only when it is there (an absent list has no
 * length to read). */
LLVMValueRef lower_optional_truth(Lower *L, LLVMValueRef v, Type *t)
{
    LLVMValueRef present = LLVMBuildExtractValue(L->b, v, 0, "");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef test = lower_block(L, "opt.truth"), done = lower_block(L, "opt.truth.done");
    LLVMBuildCondBr(L->b, present, test, done);
    LLVMPositionBuilderAtEnd(L->b, test);
    LLVMValueRef truth = lower_truth(L, LLVMBuildExtractValue(L->b, v, 1, ""), t->optional.value);
    LLVMBasicBlockRef test_end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    LLVMValueRef phi = LLVMBuildPhi(L->b, L->i1, "");
    LLVMValueRef vals[2] = {LLVMConstInt(L->i1, 0, 0), truth};
    LLVMBasicBlockRef blocks[2] = {from, test_end};
    LLVMAddIncoming(phi, vals, blocks, 2);
    return phi;
}
