/* lower_parallel.c: a prange loop's call of the thread pool, the loops of array expressions
 * and reductions outlined onto it, and the pool's queries.
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

/* ---- outlined loops (lower.h: Outline) ---- */

bool lower_parallel_ok(Lower *L)
{
    return L->opts && L->opts->parallel && !L->t->is_gpu;
}

void lower_outline_begin(Lower *L, Outline *o)
{
    LLVMTypeRef params[5] = {L->ptr, L->i64, L->i64, L->i64, L->ptr};
    char *name = arena_printf(L->prog->arena, "%s.par", LLVMGetValueName(L->fn));
    o->fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(L->i32, params, 5, 0));
    LLVMSetLinkage(o->fn, LLVMInternalLinkage);
    unsigned nattrs = LLVMGetAttributeCountAtIndex(L->fn, LLVMAttributeFunctionIndex);
    LLVMAttributeRef attrs[nattrs + 1];   /* fast math and the like, as the function's own */
    LLVMGetAttributesAtIndex(L->fn, LLVMAttributeFunctionIndex, attrs);
    for (unsigned k = 0; k < nattrs; k++)
        LLVMAddAttributeAtIndex(o->fn, LLVMAttributeFunctionIndex, attrs[k]);
    o->outer_fn = L->fn;
    o->outer_exc = L->exc_ptr;
    o->outer_at = LLVMGetInsertBlock(L->b);
    o->outer_allocas = LLVMGetInsertBlock(L->ab);
    o->outer_entry = L->entry_bb;
    o->outer_err = L->err_bb;
    o->outer_fail = L->fail_bb;
    L->fn = o->fn;
    o->entry = L->entry_bb = lower_block(L, "entry");
    o->fail = L->err_bb = L->fail_bb = lower_block(L, "error");
    L->exc_ptr = LLVMGetParam(o->fn, 4);
    o->lo = LLVMGetParam(o->fn, 1);
    o->hi = LLVMGetParam(o->fn, 2);
    o->slot = LLVMGetParam(o->fn, 3);
    LLVMPositionBuilderAtEnd(L->ab, o->entry);
    o->body = lower_block(L, "body");
    LLVMPositionBuilderAtEnd(L->b, o->body);
}

/* Whether v is a value of another function than fn (an instruction or a parameter of it). */
static bool outer_value(LLVMValueRef v, LLVMValueRef fn)
{
    if (LLVMIsAArgument(v))
        return LLVMGetParamParent(v) != fn;
    return LLVMIsAInstruction(v) && LLVMGetBasicBlockParent(LLVMGetInstructionParent(v)) != fn;
}

/* Calls visit(acc, i, k, v) for every operand v of the chunk's instructions that belongs to
 * the enclosing function. */
typedef void (*OuterVisit)(void *acc, LLVMValueRef i, unsigned k, LLVMValueRef v);

static void each_outer_use(Outline *o, OuterVisit visit, void *acc)
{
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(o->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            for (int k = 0; k < LLVMGetNumOperands(i); k++) {
                LLVMValueRef v = LLVMGetOperand(i, (unsigned)k);
                if (outer_value(v, o->fn))
                    visit(acc, i, (unsigned)k, v);
            }
}

/* The outer values the chunk uses (each once) and their copies loaded from ctx. */
typedef struct Captures {
    Arena *arena;
    PtrVec outer;
    LLVMValueRef *inner;
} Captures;

static int capture_index(Captures *c, LLVMValueRef v)
{
    for (int j = 0; j < c->outer.len; j++)
        if (c->outer.items[j] == v)
            return j;
    return -1;
}

static void collect(void *acc, LLVMValueRef i, unsigned k, LLVMValueRef v)
{
    Captures *c = acc;
    if (capture_index(c, v) < 0)
        vec_push(c->arena, &c->outer, v);
}

static void replace(void *acc, LLVMValueRef i, unsigned k, LLVMValueRef v)
{
    Captures *c = acc;
    LLVMSetOperand(i, k, c->inner[capture_index(c, v)]);
}

/* The chunk's exits; its entry loads the captured values and goes on into the body. Returns
 * the struct type of ctx. */
static LLVMTypeRef finish_chunk(Lower *L, Outline *o, Captures *c)
{
    LLVMBuildRet(L->b, LLVMConstInt(L->i32, ABI_STATUS_OK, 0));
    LLVMPositionBuilderAtEnd(L->b, o->fail);
    LLVMBuildRet(L->b, LLVMConstInt(L->i32, ABI_STATUS_ERROR, 0));
    each_outer_use(o, collect, c);
    int nc = c->outer.len;
    LLVMTypeRef fields[nc + 1];
    for (int j = 0; j < nc; j++)
        fields[j] = LLVMTypeOf(c->outer.items[j]);
    LLVMTypeRef ctx_ty = LLVMStructTypeInContext(L->ctx, fields, (unsigned)nc, 0);
    c->inner = arena_alloc(c->arena, sizeof(LLVMValueRef) * (size_t)(nc + 1));
    LLVMValueRef ctx = LLVMGetParam(o->fn, 0);
    for (int j = 0; j < nc; j++)
        c->inner[j] = LLVMBuildLoad2(L->ab, fields[j], LLVMBuildStructGEP2(L->ab, ctx_ty, ctx, (unsigned)j, ""), "");
    each_outer_use(o, replace, c);
    LLVMBuildBr(L->ab, o->body);
    return ctx_ty;
}

void lower_outline_end(Lower *L, Outline *o, LLVMValueRef n)
{
    Captures c = {.arena = L->prog->arena};
    LLVMTypeRef ctx_ty = finish_chunk(L, o, &c);
    L->fn = o->outer_fn;
    L->exc_ptr = o->outer_exc;
    L->entry_bb = o->outer_entry;
    L->err_bb = o->outer_err;
    L->fail_bb = o->outer_fail;
    LLVMPositionBuilderAtEnd(L->ab, o->outer_allocas);
    LLVMPositionBuilderAtEnd(L->b, o->outer_at);
    LLVMValueRef ctx = lower_alloca(L, ctx_ty);
    for (int j = 0; j < c.outer.len; j++)
        LLVMBuildStore(L->b, c.outer.items[j], LLVMBuildStructGEP2(L->b, ctx_ty, ctx, (unsigned)j, ""));
    LLVMValueRef args[4] = {o->fn, ctx, n, L->exc_ptr};
    LLVMValueRef st = lower_call_rt(L, "pj_pool_for", L->i32, args, 4);
    LLVMBasicBlockRef cont = lower_block(L, "par.ok");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, st, LLVMConstInt(L->i32, 0, 0), ""),
                    L->err_bb, cont);
    LLVMPositionBuilderAtEnd(L->b, cont);
}

/* get_thread_id(), get_num_threads(), get_parallel_chunksize(): the pool's answer for the
 * running thread; set_parallel_chunksize(n): the running thread's setting, the old one back. */
LLVMValueRef lower_bi_thread_query(Lower *L, Instr *in, Builtin bi)
{
    if (bi == BI_SET_CHUNKSIZE) {
        LLVMValueRef n = lower_value(L, in->args[0]);
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntSLT, n, LLVMConstInt(L->i64, 0, 0), ""),
                    ABI_EXC_VALUE, "chunksize must be greater than or equal to zero", NULL, 0);
        return lower_call_rt(L, ir_builtin_fn(bi), L->i64, &n, 1);
    }
    return lower_call_rt(L, ir_builtin_fn(bi), L->i64, NULL, 0);
}
