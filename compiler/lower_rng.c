/* lower_rng.c: the np.random.Generator rows of builtins.def (`rng` in the lower column): a call of
 * the runtime function the row names (runtime/generator.c), a Generator passed as its MemInfo. */
#include "compiler/lower.h"

LLVMValueRef lower_bi_rng(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef args[4];
    int n = in->nargs < 4 ? in->nargs : 4;
    for (int i = 0; i < n; i++) {
        LLVMValueRef v = lower_value(L, in->args[i]);
        args[i] = in->args[i]->type->kind == TY_RNG ? LLVMBuildExtractValue(L->b, v, 0, "") : v;
    }
    if (in->type->kind != TY_RNG)
        return lower_call_rt(L, ir_builtin_fn(bi), lower_type(L, in->type), args, n);
    LLVMValueRef mi = lower_call_rt(L, ir_builtin_fn(bi), L->ptr, args, n);
    lower_check(L, LLVMBuildIsNull(L->b, mi, ""), ABI_EXC_MEMORY, "out of memory making a Generator",
                NULL, 0);
    LLVMValueRef v = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, in->type)), mi, 0, "");
    lower_own(L, in, v);
    return v;
}
