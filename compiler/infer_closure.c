/* infer_closure.c: functions as values in compiled code.
 *
 * A lambda or inner function that reads variables of the function it is made in is compiled as a
 * function of its own (pyjit.decorators._closure) whose first parameters are those variables;
 * the frontend makes it as CALL imm=2 of that function's dispatcher with the values it captures
 * (ssa.c: make_closure). Here that call becomes the closure value, a tuple of the captured values
 * typed as a closure (types.h: ty_closure), and a call of a closure becomes a call of its function
 * with the captured values first. A dispatcher itself (an @njit function, or a lambda that
 * captures nothing) is a compile-time value: passed to a compiled function, the callee is
 * specialised on it and nothing is passed at run time (infer_calls.c: call_jit).
 *
 * A first-class function (TY_FUNCPTR, pyjit.types.FunctionType(sig)) is a run-time value: the
 * address of a compiled function of that signature, called through it. A dispatcher becomes one
 * where one is expected (a parameter declared so, a tuple of functions of one signature indexed
 * at run time): its version for the signature, compiled in the same module. */
#include "compiler/infer.h"

bool infer_is_passable(const Type *t)
{
    if (t && t->kind == TY_TUPLE && !ty_is_closure(t)) {
        for (int i = 0; i < t->tuple.n; i++)
            if (!infer_is_passable(t->tuple.items[i]))
                return false;
        return true;
    }
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
        if (!infer_is_passable(t) || ty_is_iterator(t))
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

Instr *infer_function_address(Infer *c, Instr *before, Instr *val, Type *ft)
{
    Type *ret = NULL;
    TypedFunc *tf = infer_specialise(c, before, val->type->literal->handle, ft->fn.args, ft->fn.n,
                                     ft->fn.ret, &ret);
    if (!tf)
        return val;
    if (ret != ft->fn.ret) {
        infer_fail(c, before, DIAG_TYPING, "%s returns %s where %s is expected",
                   val->type->literal->name, infer_type_name(ret), infer_type_name(ft));
        return val;
    }
    Instr *addr = infer_emit(c, before, OP_FUNC_ADDR, ft, 0);
    addr->callee = tf;
    return addr;
}

/* Whether an argument of type from may be passed where to is declared: converted as a call from
 * Python would be (numbers to numbers, a dispatcher to a function type), or the same type. */
static bool passes_to(const Type *from, const Type *to)
{
    return from == to || (ty_is_scalar(from) && ty_is_scalar(to)) ||
           (from->kind == TY_DISPATCHER && to->kind == TY_FUNCPTR) ||
           (from->kind == TY_ARRAY && to->kind == TY_ARRAY && from->array.dtype == to->array.dtype &&
            from->array.ndim == to->array.ndim && (to->array.layout == 'A' || from->array.layout == to->array.layout));
}

Type *infer_call_pointer(Infer *c, Instr *in)
{
    Type *ft = in->args[0]->type;
    int n = in->nargs - 1;
    if (in->nkw)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "a %s is called with positional arguments only",
                          infer_type_name(ft));
    if (n != ft->fn.n)
        return infer_fail(c, in, DIAG_TYPING, "a %s takes %d argument%s, %d given",
                          infer_type_name(ft), ft->fn.n, ft->fn.n == 1 ? "" : "s", n);
    for (int i = 0; i < n; i++)
        if (!passes_to(ty_strong(in->args[i + 1]->type), ft->fn.args[i]))
            return infer_fail(c, in, DIAG_TYPING, "argument %d of a %s is %s, not %s", i + 1,
                              infer_type_name(ft), infer_type_name(in->args[i + 1]->type),
                              infer_type_name(ft->fn.args[i]));
    if (c->rewrite) {
        for (int i = 0; i < n; i++)
            in->args[i + 1] = infer_coerce(c, in, in->args[i + 1], ft->fn.args[i]);
        in->op = OP_CALL_PTR;
    }
    return ft->fn.ret;
}
