/* infer_str.c: type inference of run-time strings (TY_STR).
 *
 * A string constant is typed TY_STRING, its text known when compiling: exception messages,
 * dtype names and keyword constants use it as such. Where a string must exist at run time (an
 * operation on it, a store into a list or tuple, a return, a phi joining it with another
 * string) the constant becomes a str: infer_coerce makes a CONST of type str of it, which
 * lowering emits as a constant string (lower_str.c). Operators on strings become the str
 * builtins (builtins.def: method.str.__add__ and friends), comparisons stay COMPAREs of two strs. */
#include "compiler/infer.h"

#include <string.h>

bool infer_is_text(const Type *t)
{
    return t && (t->kind == TY_STR || t->kind == TY_STRING);
}

Type *infer_value_type(Type *t)
{
    return t && t->kind == TY_STRING ? ty_str() : ty_strong(t);
}

/* Strings live in host memory made by the runtime: GPU code has none (constant strings in
 * print and raise are compile-time values there). */
bool infer_str_allowed(Infer *c, Instr *in)
{
    if (!prog_kernel_code(c->pi->prog))
        return true;
    infer_fail(c, in, DIAG_UNSUPPORTED, "strings made or used at run time are not supported in "
               "GPU kernels (constant strings in print() and raise are)");
    return false;
}

static bool is_int_like(const Type *t)
{
    return ty_is_int(t) || (t && t->kind == TY_BOOL);
}

static void make_intrinsic(Infer *c, Instr *in, Builtin bi, Instr *a, Instr *b)
{
    Instr *args[2] = {a, b};
    in->op = OP_INTRINSIC;
    in->sub = bi;
    infer_set_args(c, in, args, 2);
}

Type *infer_str_binop(Infer *c, Instr *in)
{
    Instr *x = in->args[0], *y = in->args[1];
    Type *a = x->type, *b = y->type;
    Builtin bi;
    if (in->sub == BIN_ADD && infer_is_text(a) && infer_is_text(b)) {
        bi = BI_STR_ADD;
    } else if (in->sub == BIN_MUL && (is_int_like(a) || is_int_like(b))) {
        bi = BI_STR_MUL;
        if (!infer_is_text(a)) {   /* n * s is s * n */
            Instr *t = x;
            x = y;
            y = t;
        }
    } else if (in->sub == BIN_MOD && infer_is_text(a)) {
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%%-formatting of strings is not supported in "
                          "compiled code (an f-string with plain {x} fields, str(x) and + are)");
    } else {
        return infer_fail(c, in, DIAG_TYPING, "unsupported operand types for %s: %s and %s",
                          in->sub == BIN_ADD ? "+" : in->sub == BIN_MUL ? "*" : "this operator",
                          infer_type_name(a), infer_type_name(b));
    }
    if (!infer_str_allowed(c, in))
        return NULL;
    if (c->rewrite)
        make_intrinsic(c, in, bi, infer_coerce(c, in, x, ty_str()),
                       infer_coerce(c, in, y, bi == BI_STR_MUL ? ty_scalar(TY_INT64) : ty_str()));
    return ty_str();
}

Type *infer_str_compare(Infer *c, Instr *in)
{
    Type *a = in->args[0]->type, *b = in->args[1]->type;
    if (!infer_is_text(a) || !infer_is_text(b)) {
        if (in->sub == CMP_EQ || in->sub == CMP_NE) {   /* a string never equals a number */
            bool ne = in->sub == CMP_NE;
            infer_set_known(c, in, ne);
            if (c->rewrite)
                infer_make_const_bool(c, in, ne);
            return ty_scalar(TY_BOOL);
        }
        return infer_fail(c, in, DIAG_TYPING, "cannot compare %s with %s", infer_type_name(a),
                          infer_type_name(b));
    }
    if (a->kind == TY_STRING && b->kind == TY_STRING && a->literal && b->literal &&
        (in->sub == CMP_EQ || in->sub == CMP_NE)) {   /* known now: library code tests its constants */
        bool v = (strcmp(a->literal->s, b->literal->s) == 0) == (in->sub == CMP_EQ);
        infer_set_known(c, in, v);
        if (c->rewrite)
            infer_make_const_bool(c, in, v);
        return ty_scalar(TY_BOOL);
    }
    if (!infer_str_allowed(c, in))
        return NULL;
    if (c->rewrite)
        for (int k = 0; k < 2; k++)
            in->args[k] = infer_coerce(c, in, in->args[k], ty_str());
    return ty_scalar(TY_BOOL);
}

/* sub in s: BI_STR_CONTAINS (s, sub), under a NOT for `not in`. */
Type *infer_str_contains(Infer *c, Instr *in)
{
    Instr *sub = in->args[0], *s = in->args[1];
    if (!infer_is_text(sub->type))
        return infer_fail(c, in, DIAG_TYPING, "'in <string>' requires string as left operand, "
                          "not %s", infer_type_name(sub->type));
    if (!infer_str_allowed(c, in))
        return NULL;
    if (c->rewrite) {
        Instr *contains = infer_membership(c, in);
        make_intrinsic(c, contains, BI_STR_CONTAINS, infer_coerce(c, contains, s, ty_str()),
                       infer_coerce(c, contains, sub, ty_str()));
    }
    return ty_scalar(TY_BOOL);
}

Type *infer_str_getitem(Infer *c, Instr *in)
{
    Instr *s = in->args[0], *idx = in->args[1];
    bool slice = idx->type->kind == TY_SLICE;
    if (!slice && !is_int_like(idx->type))
        return infer_fail(c, in, DIAG_TYPING, "string indices must be integers, not %s",
                          infer_type_name(idx->type));
    if (!infer_str_allowed(c, in))
        return NULL;
    if (c->rewrite)
        make_intrinsic(c, in, slice ? BI_STR_GETSLICE : BI_STR_GETITEM, infer_coerce(c, in, s, ty_str()),
                       slice ? idx : infer_coerce(c, in, idx, ty_scalar(TY_INT64)));
    return ty_str();
}
