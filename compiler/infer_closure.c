/* infer_closure.c: functions as values in compiled code.
 *
 * A lambda or inner function that reads variables of the function it is made in is compiled as a
 * function of its own (pyjit.decorators._closure) whose first parameters are those variables;
 * the frontend makes it as CALL imm=2 of that function's dispatcher with the values it captures
 * (ssa.c: make_function). Here that call becomes the closure value, a tuple of the captured values
 * typed as a closure (types.h: ty_closure), and a call of a closure becomes a call of its function
 * with the captured values first. A dispatcher itself (an @njit function, or a lambda that
 * captures nothing) is a compile-time value: passed to a compiled function, the callee is
 * specialised on it and nothing is passed at run time (infer_calls.c: call_jit). */
#include "compiler/infer.h"

/* What a closure can capture: a value that exists at run time, a function, or another closure. */
static bool capturable(const Type *t)
{
    return infer_is_runtime(t) || (t && t->kind == TY_DISPATCHER) || ty_is_closure(t);
}

Type *infer_make_closure(Infer *c, Instr *in)
{
    Instr *fn = in->args[0];
    int n = in->nargs - 1;
    IRFunc *ir = infer_callee_ir(c, in, fn->type->literal->handle);
    if (!ir)
        return NULL;
    if (ir->nargs < n)
        return infer_fail(c, in, DIAG_INTERNAL, "closure %s takes fewer parameters than it "
                          "captures", ir->name);
    Type **captured = arena_alloc(c->arena, sizeof *captured * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        Type *t = in->args[i + 1]->type;
        if (!infer_is_complete(t))
            return NULL;   /* a list whose items are not known yet */
        if (!capturable(t) || t->kind == TY_ITER)
            return infer_fail(c, in, DIAG_UNSUPPORTED, "%s() captures '%s', a %s, which compiled "
                              "closures cannot hold", ir->name, ir->argnames[i], infer_type_name(t));
        captured[i] = infer_value_type(ty_strong(t));
    }
    Type *t = ty_closure(fn->type, ir->argnames, captured, n);
    if (c->rewrite) {
        Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(n + 2));
        args[0] = fn;
        for (int i = 0; i < n; i++)
            args[i + 1] = infer_coerce(c, in, in->args[i + 1], captured[i]);
        in->op = OP_BUILD_TUPLE;
        in->imm = 0;
        infer_set_args(c, in, args, n + 1);
    }
    return t;
}

/* g(args) with g a closure: g's function called with g's captured values, then args. Rewritten
 * while types are still being found (as f(*t) is), which is safe because it depends only on
 * how many values g captured, which no later round changes; typed in the next round. */
Type *infer_call_closure(Infer *c, Instr *in)
{
    Instr *g = in->args[0];
    Type *t = g->type;
    int n = t->tuple.n - 1;
    Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(in->nargs + n + 1));
    args[0] = infer_emit(c, in, OP_CONST, t->tuple.items[0], 0);
    args[0]->cst = (Const *)t->tuple.items[0]->literal;
    for (int i = 0; i < n; i++) {
        args[1 + i] = infer_emit(c, in, OP_STATIC_GETITEM, NULL, 1);
        args[1 + i]->args[0] = g;
        args[1 + i]->imm = i + 1;
        args[1 + i]->imm2 = -1;
    }
    for (int i = 1; i < in->nargs; i++)
        args[n + i] = in->args[i];
    int nkw = in->nkw;
    const char **kwnames = in->kwnames;
    infer_set_args(c, in, args, in->nargs + n);
    in->nkw = nkw;   /* still the call's keyword arguments, last */
    in->kwnames = kwnames;
    c->changed = true;
    return NULL;
}
