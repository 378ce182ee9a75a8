/* lower_parallel.c: a prange loop's call of the thread pool, and the pool's queries.
 *
 * INTRINSIC BI_PARFOR (infer_parallel.c) holds the chunk function as its callee, then n and the
 * chunk's other arguments. The chunk gets the uniform wrapper every entry has (abi.h), so the
 * pool (runtime/pool.c) calls it with one C signature; the caller lays the arguments out as a
 * call from Python does (a pointer to each value in memory, an array's descriptor), leaving the
 * first three slots to the pool, which fills lo, hi and slot per chunk. */
#include "compiler/lower.h"

#include <string.h>

/* The chunk function's wrapper, made once per module, the builder kept where it was. */
static LLVMValueRef chunk_wrapper(Lower *L, TypedFunc *chunk)
{
    char *name = arena_printf(L->prog->arena, "%s__wrap", chunk->symbol);
    LLVMValueRef w = LLVMGetNamedFunction(L->mod, name);
    if (w)
        return w;
    LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);
    w = lower_build_wrapper(L, chunk);
    LLVMSetLinkage(w, LLVMInternalLinkage);
    LLVMPositionBuilderAtEnd(L->b, here);
    return w;
}

/* A pointer to the value of v in memory, as the wrapper loads it. */
static LLVMValueRef in_memory(Lower *L, Instr *v)
{
    LLVMTypeRef lt = lower_type(L, v->type);
    if (!lt || v->type->kind == TY_NONE)
        return LLVMConstNull(L->ptr);
    LLVMValueRef val = lower_value(L, v);
    LLVMValueRef slot = lower_alloca(L, v->type->kind == TY_ARRAY ? LLVMTypeOf(val) : lt);
    if (v->type->kind == TY_ARRAY)
        LLVMBuildStore(L->b, val, slot);
    else
        lower_store_mem(L, v->type, val, slot);
    return slot;
}

LLVMValueRef lower_bi_parfor(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef wrapper = chunk_wrapper(L, in->callee);
    int nenv = in->nargs - 1, nargv = 3 + nenv;
    LLVMTypeRef argv_ty = LLVMArrayType(L->ptr, (unsigned)nargv);
    LLVMValueRef argv = lower_alloca(L, argv_ty);
    for (int i = 0; i < nenv; i++) {
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, 3 + i)};
        LLVMBuildStore(L->b, in_memory(L, in->args[1 + i]),
                       LLVMBuildInBoundsGEP2(L->b, argv_ty, argv, idx, 2, ""));
    }
    LLVMValueRef args[5] = {wrapper, argv, LLVMConstInt(L->i32, (unsigned)nargv, 0),
                            lower_value(L, in->args[0]), L->exc_ptr};
    LLVMValueRef st = lower_call_rt(L, ir_builtin_fn(bi), L->i32, args, 5);
    LLVMBasicBlockRef cont = lower_block(L, "parfor.ok");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, st, LLVMConstInt(L->i32, 0, 0), ""),
                    L->err_bb, cont);
    LLVMPositionBuilderAtEnd(L->b, cont);
    return LLVMConstNull(L->none_ty);
}

/* get_thread_id(), get_num_threads(): the pool's answer for the running thread. */
LLVMValueRef lower_bi_thread_query(Lower *L, Instr *in, Builtin bi)
{
    return lower_call_rt(L, ir_builtin_fn(bi), L->i64, NULL, 0);
}
