/* infer_datetime.c: type inference of np.datetime64 and np.timedelta64 operations.
 *
 * Arithmetic and comparisons with a datetime or timedelta operand (scalars or arrays, element-wise
 * with broadcasting) become INTRINSIC BI_DT_BINOP / BI_DT_COMPARE (imm: the BinOp or CmpOp,
 * imm2: an in-place update of args[0]); lowering (lower_datetime.c) converts both operands to
 * their common unit, the finer one as NumPy does, and keeps NaT's semantics. NumPy's rules:
 * datetime - datetime is a timedelta, datetime +- timedelta a datetime, timedelta * int or float
 * and timedelta / int or float (truncating) a timedelta, timedelta / timedelta a float64, timedelta //
 * timedelta an int64, timedelta % timedelta a timedelta; an int beside a datetime or timedelta
 * counts in its unit. Years and months convert to days through the calendar for datetimes only,
 * as NumPy refuses to for timedeltas. */
#include "compiler/infer.h"

typedef enum Operand { OPD_DT, OPD_TD, OPD_INT, OPD_FLOAT, OPD_OTHER } Operand;

static Type *elem(Type *t)
{
    return t->kind == TY_ARRAY ? t->array.dtype : t;
}

static Operand operand_of(Type *t)
{
    t = elem(t);
    if (t->kind == TY_DATETIME)
        return OPD_DT;
    if (t->kind == TY_TIMEDELTA)
        return OPD_TD;
    if (ty_is_float(t))
        return OPD_FLOAT;
    return ty_is_int(t) || t->kind == TY_BOOL ? OPD_INT : OPD_OTHER;
}

/* The element type of a op b, NULL when NumPy has no such operation. */
static Type *result_of(int op, Operand a, Operand b, DateUnit u)
{
    Type *dt = ty_datetime(TY_DATETIME, u), *td = ty_datetime(TY_TIMEDELTA, u);
    bool dt_a = a == OPD_DT, dt_b = b == OPD_DT, td_a = a == OPD_TD, td_b = b == OPD_TD;
    bool int_a = a == OPD_INT, int_b = b == OPD_INT;
    switch (op) {
    case BIN_ADD:
        if ((dt_a && (td_b || int_b)) || (dt_b && (td_a || int_a)))
            return dt;
        return (td_a && (td_b || int_b)) || (td_b && int_a) ? td : NULL;
    case BIN_SUB:
        if (dt_a && dt_b)
            return td;
        if (dt_a && (td_b || int_b))
            return dt;
        return td_a && (td_b || int_b) ? td : NULL;
    case BIN_MUL:
        return (td_a && (int_b || b == OPD_FLOAT)) || ((int_a || a == OPD_FLOAT) && td_b) ? td : NULL;
    case BIN_TRUEDIV:
        return td_a && td_b ? ty_scalar(TY_FLOAT64) : td_a && (int_b || b == OPD_FLOAT) ? td : NULL;
    case BIN_FLOORDIV:
        return td_a && td_b ? ty_scalar(TY_INT64) : td_a && int_b ? td : NULL;
    case BIN_MOD:
        return td_a && td_b ? td : NULL;
    default:
        return NULL;
    }
}

static const char *op_name(bool compare, int op)
{
    static const char *const bins[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"};
    static const char *const cmps[] = {"<", "<=", "==", "!=", ">", ">="};
    if (compare)
        return op >= CMP_LT && op <= CMP_GE ? cmps[op - CMP_LT] : "comparison";
    return op >= 0 && op < (int)(sizeof bins / sizeof *bins) ? bins[op] : "operator";
}

static Type *unsupported(Infer *c, Instr *in, bool compare)
{
    return infer_fail(c, in, DIAG_TYPING, "unsupported operand types for %s: %s and %s",
                      op_name(compare, in->sub), infer_type_name(in->args[0]->type),
                      infer_type_name(in->args[1]->type));
}

/* The result over the operands' shapes: an array when either is one (args[0] itself when it is
 * updated in place, which must then hold the result's dtype). */
static Type *shaped(Infer *c, Instr *in, Type *r)
{
    Type *a = in->args[0]->type, *b = in->args[1]->type;
    if (a->kind != TY_ARRAY && b->kind != TY_ARRAY)
        return r;
    int na = a->kind == TY_ARRAY ? a->array.ndim : 0, nb = b->kind == TY_ARRAY ? b->array.ndim : 0;
    if (in->op == OP_BINOP && in->imm && a->kind == TY_ARRAY) {
        if (a->array.dtype != r || a->array.readonly || nb > na)
            return infer_fail(c, in, DIAG_TYPING, "cannot update %s in place with %s",
                              infer_type_name(a), infer_type_name(r));
        return a;
    }
    return ty_array(r, na > nb ? na : nb, 'C', false);
}

Type *infer_datetime_op(Infer *c, Instr *in)
{
    bool compare = in->op == OP_COMPARE;
    Type *a = in->args[0]->type, *b = in->args[1]->type;
    Operand oa = operand_of(a), ob = operand_of(b);
    int u = ty_common_unit(a, b);
    if (u < 0)
        return infer_fail(c, in, DIAG_TYPING, "cannot convert %s and %s to one unit: years and "
                          "months have no fixed length", infer_type_name(a), infer_type_name(b));
    Type *r;
    if (compare)
        r = in->sub >= CMP_LT && in->sub <= CMP_GE &&
            ((oa == ob && oa != OPD_OTHER) || (oa == OPD_TD && ob == OPD_INT) ||
             (oa == OPD_INT && ob == OPD_TD)) ? ty_scalar(TY_BOOL) : NULL;
    else
        r = result_of(in->sub, oa, ob, (DateUnit)u);
    if (!r)
        return unsupported(c, in, compare);
    Type *t = shaped(c, in, r);
    if (t && c->rewrite) {
        bool inplace = !compare && in->imm && a->kind == TY_ARRAY;
        in->imm = in->sub;
        in->imm2 = inplace;
        in->op = OP_INTRINSIC;
        in->sub = compare ? BI_DT_COMPARE : BI_DT_BINOP;
    }
    return t;
}

bool infer_is_datetime_op(const Instr *in)
{
    return ty_is_datetime(elem(in->args[0]->type)) || ty_is_datetime(elem(in->args[1]->type));
}

/* np.isnat(x) of a datetime or timedelta, or an array of them. */
Type *infer_isnat(Infer *c, Instr *in, Instr **pos, int npos)
{
    if (npos != 1 || !ty_is_datetime(elem(pos[0]->type)))
        return infer_fail(c, in, DIAG_TYPING, "np.isnat() takes one datetime64 or timedelta64 "
                          "value or array, not %s", npos ? infer_type_name(pos[0]->type) : "nothing");
    Type *t = pos[0]->type;
    if (c->rewrite) {
        in->op = OP_INTRINSIC;
        in->sub = BI_NP_ISNAT;
        in->nkw = 0;
        in->kwnames = NULL;
        infer_set_args(c, in, pos, 1);
    }
    return t->kind == TY_ARRAY ? ty_array(ty_scalar(TY_BOOL), t->array.ndim, 'C', false)
                               : ty_scalar(TY_BOOL);
}
