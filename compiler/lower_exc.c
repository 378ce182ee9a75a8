/* lower_exc.c: try/except and try/finally.
 *
 * Nothing is paid while no exception is raised. Whatever raises (a raise statement, a failed
 * check, a compiled callee returning an error status) fills the ExcInfo and branches to
 * L->err_bb; inside a try that is the block's landing (lower.c: lower_block_body), which leads
 * to the handler, instead of the function's exit. So the code after each check is the same as
 * outside a try, and only the rarely taken side of the branch goes elsewhere.
 *
 * The handler starts with CATCH, which copies the pending ExcInfo into a slot of its own (an
 * alloca), so that an exception raised and caught inside the except clause cannot overwrite it:
 * a bare `raise` later re-raises the saved one. The saved ExcInfo may hold references (a string
 * made at run time among its arguments, abi.h's ABI_EXC_ARGS_SPEC); the slot owns them until
 * the clause ends (EXC_DONE) or the function exits, and a re-raise copies them with references
 * of their own (runtime/errors.c: pj_exc_reraise). */
#include "compiler/lower.h"

/* A slot for one caught exception, empty (kind 0) from the function's entry on. */
static LLVMValueRef caught_slot(Lower *L)
{
    LLVMValueRef slot = lower_alloca(L, L->exc_ty);
    LLVMBuildStore(L->ab, LLVMConstInt(L->i32, ABI_EXC_NONE, 0),
                   LLVMBuildStructGEP2(L->ab, L->exc_ty, slot, 0, ""));
    vec_push(L->prog->arena, &L->caught, slot);
    return slot;
}

LLVMValueRef lower_catch(Lower *L, Instr *in)
{
    (void)in;
    LLVMValueRef slot = caught_slot(L);
    LLVMBuildStore(L->b, LLVMBuildLoad2(L->b, L->exc_ty, L->exc_ptr, ""), slot);
    return slot;
}

LLVMValueRef lower_exc_match(Lower *L, Instr *in)
{
    LLVMValueRef slot = lower_value(L, in->args[0]), any = LLVMConstInt(L->i1, 0, 0);
    for (int i = 1; i < in->nargs; i++) {
        void *cls = in->args[i]->type->literal->handle;
        LLVMValueRef args[2] = {slot, lower_ref(L, REF_EXCCLASS, cls, cls)};
        LLVMValueRef m = lower_call_rt(L, "pj_exc_matches", L->i32, args, 2);
        any = LLVMBuildOr(L->b, any, LLVMBuildICmp(L->b, LLVMIntNE, m, LLVMConstInt(L->i32, 0, 0), ""), "");
    }
    return any;
}

void lower_exc_done(Lower *L, Instr *in)
{
    LLVMValueRef slot = lower_value(L, in->args[0]);
    lower_call_rt(L, "pj_exc_release", LLVMVoidTypeInContext(L->ctx), &slot, 1);
}

void lower_reraise(Lower *L, Instr *in)
{
    LLVMValueRef args[2] = {L->exc_ptr, lower_value(L, in->args[0])};
    lower_call_rt(L, "pj_exc_reraise", LLVMVoidTypeInContext(L->ctx), args, 2);
    LLVMBuildBr(L->b, L->err_bb);
}

/* At an exit: each slot still holding an exception (its clause left by return, break or a
 * raise) releases it. */
void lower_exc_release_caught(Lower *L)
{
    for (int i = 0; i < L->caught.len; i++) {
        LLVMValueRef slot = L->caught.items[i];
        LLVMValueRef kind = LLVMBuildLoad2(L->b, L->i32, LLVMBuildStructGEP2(L->b, L->exc_ty, slot, 0, ""), "");
        LLVMValueRef held = LLVMBuildICmp(L->b, LLVMIntNE, kind, LLVMConstInt(L->i32, ABI_EXC_NONE, 0), "");
        LLVMBasicBlockRef rel = lower_block(L, "caught.release"), cont = lower_block(L, "caught.done");
        LLVMBuildCondBr(L->b, held, rel, cont);
        LLVMPositionBuilderAtEnd(L->b, rel);
        lower_call_rt(L, "pj_exc_release", LLVMVoidTypeInContext(L->ctx), &slot, 1);
        LLVMBuildBr(L->b, cont);
        LLVMPositionBuilderAtEnd(L->b, cont);
    }
}

int lower_exc_check_kernel(Lower *L)
{
    for (int i = 0; i < L->ir->blocks.len; i++) {
        Block *b = L->ir->blocks.items[i];
        if (b->handler && b->instrs.len > 0) {
            L->cur = b->instrs.items[0];
            return lower_unsupported(L, "try/except and try/finally are not supported in GPU "
                                     "kernels and device functions");
        }
    }
    return 0;
}
