/* infer_parallel.c: typing the call that runs an outlined prange loop on the thread pool.
 *
 * pyjit/_parallel.py turns `for i in prange(...)` of a parallel=True function into a chunk
 * function chunk(lo, hi, slot, args...) and, in its place, a call parfor(chunk, n, args...).
 * Here that call becomes INTRINSIC BI_PARFOR: the chunk function is specialised for
 * (int64, int64, int64, the types of args), like a call of another @njit function in the same
 * Program, and kept as the instruction's callee; the operands are n then args, each passed as
 * its own strong type. lower_parallel.c calls the chunk function's wrapper on the pool. */
#include "compiler/infer.h"

#include <string.h>

Type *infer_parfor(Infer *c, Instr *in, Instr **pos, int npos)
{
    if (npos < 2 || pos[0]->type->kind != TY_DISPATCHER || !pos[0]->type->literal)
        return infer_fail(c, in, DIAG_TYPING, "internal: parfor() takes the chunk function, the "
                          "number of iterations, then the chunk's arguments");
    Type *n = ty_strong(pos[1]->type);
    if (!ty_is_scalar(n) || n->kind == TY_FLOAT32 || n->kind == TY_FLOAT64 || ty_is_complex(n))
        return infer_fail(c, in, DIAG_TYPING, "internal: parfor()'s iteration count is %s",
                          infer_type_name(n));
    int nenv = npos - 2, nparams = 3 + nenv;
    Type **params = arena_alloc(c->arena, sizeof *params * (size_t)nparams);
    params[0] = params[1] = params[2] = ty_scalar(TY_INT64);
    for (int i = 0; i < nenv; i++) {
        Type *t = pos[2 + i]->type;
        if (!t || !infer_is_complete(t))
            return NULL;   /* not typed yet */
        params[3 + i] = ty_strong(t);
    }
    Type *ret = NULL;
    TypedFunc *tf = infer_specialise(c, in, pos[0]->type->literal->handle, params, nparams, NULL,
                                     &ret);
    if (!tf || !ret)
        return NULL;
    if (c->rewrite) {
        Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(1 + nenv));
        args[0] = infer_coerce(c, in, pos[1], ty_scalar(TY_INT64));
        for (int i = 0; i < nenv; i++)
            args[1 + i] = infer_coerce(c, in, pos[2 + i], params[3 + i]);
        in->op = OP_INTRINSIC;
        in->sub = BI_PARFOR;
        in->callee = tf;
        infer_set_args(c, in, args, 1 + nenv);
    }
    return ty_scalar(TY_NONE);
}
