/* lower_datetime.c: np.datetime64 and np.timedelta64 arithmetic and comparisons.
 *
 * A datetime or timedelta is an int64 count of its unit since 1970-01-01 (or of its unit), NaT
 * the minimum int64. An operation converts both operands to the unit inference chose (the finer
 * one: a count of a coarser unit is multiplied; years and months of a datetime go through the
 * calendar to days), then computes as NumPy does: NaT in gives NaT out (NaN for a float result,
 * 0 for timedelta // timedelta), NaT compares false except with !=, a division by zero gives
 * NaT. Arrays go element by element through lower_array_map. */
#include "compiler/lower.h"

static const int64_t NANOSECONDS[] = {0, 0, 604800000000000, 86400000000000, 3600000000000,
                                      60000000000, 1000000000, 1000000, 1000, 1};

static LLVMValueRef nat(Lower *L)
{
    return lower_i64(L, INT64_MIN);
}

static LLVMValueRef is_nat(Lower *L, LLVMValueRef v)
{
    return LLVMBuildICmp(L->b, LLVMIntEQ, v, nat(L), "");
}

/* a // b and a % b rounded toward minus infinity (b != 0). */
static LLVMValueRef floor_div(Lower *L, LLVMValueRef a, LLVMValueRef b, bool mod)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef q = LLVMBuildSDiv(B, a, b, ""), r = LLVMBuildSRem(B, a, b, "");
    LLVMValueRef zero = lower_i64(L, 0);
    LLVMValueRef adjust = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, r, zero, ""),
                                       LLVMBuildICmp(B, LLVMIntNE, LLVMBuildICmp(B, LLVMIntSLT, r, zero, ""),
                                                     LLVMBuildICmp(B, LLVMIntSLT, b, zero, ""), ""), "");
    if (mod)
        return LLVMBuildSelect(B, adjust, LLVMBuildAdd(B, r, b, ""), r, "");
    return LLVMBuildSelect(B, adjust, LLVMBuildSub(B, q, lower_i64(L, 1), ""), q, "");
}

/* Days from 1970-01-01 to the first day of month m counted from January 1970 (the proleptic
 * Gregorian calendar, as NumPy's): Howard Hinnant's days_from_civil. */
static LLVMValueRef months_to_days(Lower *L, LLVMValueRef m)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef twelve = lower_i64(L, 12);
    LLVMValueRef y = LLVMBuildAdd(B, floor_div(L, m, twelve, false), lower_i64(L, 1970), "");
    LLVMValueRef mo = LLVMBuildAdd(B, floor_div(L, m, twelve, true), lower_i64(L, 1), "");
    LLVMValueRef early = LLVMBuildICmp(B, LLVMIntSLE, mo, lower_i64(L, 2), "");
    y = LLVMBuildSub(B, y, LLVMBuildZExt(B, early, L->i64, ""), "");
    LLVMValueRef era = floor_div(L, y, lower_i64(L, 400), false);
    LLVMValueRef yoe = LLVMBuildSub(B, y, LLVMBuildMul(B, era, lower_i64(L, 400), ""), "");
    LLVMValueRef mp = LLVMBuildSelect(B, early, LLVMBuildAdd(B, mo, lower_i64(L, 9), ""),
                                      LLVMBuildSub(B, mo, lower_i64(L, 3), ""), "");
    LLVMValueRef doy = LLVMBuildSDiv(B, LLVMBuildAdd(B, LLVMBuildMul(B, mp, lower_i64(L, 153), ""),
                                                     lower_i64(L, 2), ""), lower_i64(L, 5), "");
    LLVMValueRef doe = LLVMBuildAdd(B, LLVMBuildMul(B, yoe, lower_i64(L, 365), ""),
                                    LLVMBuildSDiv(B, yoe, lower_i64(L, 4), ""), "");
    doe = LLVMBuildSub(B, doe, LLVMBuildSDiv(B, yoe, lower_i64(L, 100), ""), "");
    doe = LLVMBuildAdd(B, doe, doy, "");
    LLVMValueRef days = LLVMBuildAdd(B, LLVMBuildMul(B, era, lower_i64(L, 146097), ""), doe, "");
    return LLVMBuildSub(B, days, lower_i64(L, 719468), "");
}

/* v, a value of type t (a datetime, a timedelta, or an int counting in u), as a count of u. */
static LLVMValueRef to_unit(Lower *L, LLVMValueRef v, Type *t, DateUnit u)
{
    if (!ty_is_datetime(t))
        return lower_cast(L, v, t, ty_scalar(TY_INT64));
    DateUnit from = t->datetime.unit;
    if (from == u || from == DT_GENERIC)
        return v;
    LLVMValueRef x;
    if (from == DT_Y && u == DT_M) {
        x = LLVMBuildMul(L->b, v, lower_i64(L, 12), "");
    } else if (from == DT_Y || from == DT_M) {
        LLVMValueRef days = months_to_days(L, from == DT_Y ? LLVMBuildMul(L->b, v, lower_i64(L, 12), "") : v);
        x = u == DT_W ? floor_div(L, days, lower_i64(L, 7), false)
                      : LLVMBuildMul(L->b, days, lower_i64(L, NANOSECONDS[DT_D] / NANOSECONDS[u]), "");
    } else {
        x = LLVMBuildMul(L->b, v, lower_i64(L, NANOSECONDS[from] / NANOSECONDS[u]), "");
    }
    return LLVMBuildSelect(L->b, is_nat(L, v), nat(L), x, "");
}

typedef struct DtOp {
    int op;                 /* BinOp, or CmpOp when compare */
    bool compare;
    Type *ta, *tb, *res;    /* operand element types, result element type */
    DateUnit unit;
} DtOp;

/* Whether either operand is NaT (an int is never). */
static LLVMValueRef either_nat(Lower *L, DtOp *d, LLVMValueRef a, LLVMValueRef b)
{
    LLVMValueRef f = LLVMConstInt(L->i1, 0, 0);
    LLVMValueRef na = ty_is_datetime(d->ta) ? is_nat(L, a) : f, nb = ty_is_datetime(d->tb) ? is_nat(L, b) : f;
    return LLVMBuildOr(L->b, na, nb, "");
}

static LLVMValueRef divide(Lower *L, DtOp *d, LLVMValueRef a, LLVMValueRef b, LLVMValueRef missing)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef by_zero = LLVMBuildICmp(B, LLVMIntEQ, b, lower_i64(L, 0), "");
    LLVMValueRef safe = LLVMBuildSelect(B, LLVMBuildOr(B, missing, by_zero, ""), lower_i64(L, 1), b, "");
    bool both = d->tb->kind == TY_TIMEDELTA;
    if (d->op == BIN_TRUEDIV && both) {   /* a float: NaN for NaT, inf or NaN for a zero divisor */
        LLVMValueRef q = LLVMBuildFDiv(B, LLVMBuildSIToFP(B, a, L->f64, ""),
                                       LLVMBuildSIToFP(B, b, L->f64, ""), "");
        return LLVMBuildSelect(B, missing, LLVMConstReal(L->f64, __builtin_nan("")), q, "");
    }
    if (d->op == BIN_FLOORDIV && both)    /* an int: 0 for NaT or a zero divisor */
        return LLVMBuildSelect(B, LLVMBuildOr(B, missing, by_zero, ""), lower_i64(L, 0),
                               floor_div(L, a, safe, false), "");
    LLVMValueRef r = d->op == BIN_MOD ? floor_div(L, a, safe, true) : LLVMBuildSDiv(B, a, safe, "");
    return LLVMBuildSelect(B, LLVMBuildOr(B, missing, by_zero, ""), nat(L), r, "");
}

/* timedelta * float, float * timedelta, timedelta / float: computed in float64 and truncated, NaT
 * where the result is NaN, infinite or past int64 (NumPy's). */
static LLVMValueRef scaled(Lower *L, DtOp *d, LLVMValueRef va, LLVMValueRef vb, LLVMValueRef missing)
{
    LLVMBuilderRef B = L->b;
    Type *f64 = ty_scalar(TY_FLOAT64);
    bool td_first = d->ta->kind == TY_TIMEDELTA;
    LLVMValueRef td = to_unit(L, td_first ? va : vb, td_first ? d->ta : d->tb, d->unit);
    LLVMValueRef f = td_first ? lower_cast(L, vb, d->tb, f64) : lower_cast(L, va, d->ta, f64);
    LLVMValueRef x = LLVMBuildSIToFP(B, td, L->f64, "");
    LLVMValueRef r = d->op == BIN_MUL ? LLVMBuildFMul(B, x, f, "") : LLVMBuildFDiv(B, x, f, "");
    LLVMValueRef fits = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOLT, r, LLVMConstReal(L->f64, 0x1p63), ""),
                                     LLVMBuildFCmp(B, LLVMRealOGT, r, LLVMConstReal(L->f64, -0x1p63), ""), "");
    LLVMValueRef bad = LLVMBuildOr(B, missing, LLVMBuildNot(B, fits, ""), "");
    return LLVMBuildSelect(B, bad, nat(L), LLVMBuildFPToSI(B, r, L->i64, ""), "");
}

static LLVMValueRef dt_compute(Lower *L, DtOp *d, LLVMValueRef va, LLVMValueRef vb)
{
    static const LLVMIntPredicate pred[] = {LLVMIntSLT, LLVMIntSLE, LLVMIntEQ,
                                            LLVMIntNE, LLVMIntSGT, LLVMIntSGE};
    LLVMBuilderRef B = L->b;
    LLVMValueRef missing = either_nat(L, d, va, vb);
    if (!d->compare && (ty_is_float(d->ta) || ty_is_float(d->tb)))
        return scaled(L, d, va, vb, missing);
    LLVMValueRef a = to_unit(L, va, d->ta, d->unit), b = to_unit(L, vb, d->tb, d->unit);
    if (d->compare)
        return LLVMBuildSelect(B, missing, LLVMConstInt(L->i1, d->op == CMP_NE, 0),
                               LLVMBuildICmp(B, pred[d->op - CMP_LT], a, b, ""), "");
    LLVMValueRef r;
    switch (d->op) {
    case BIN_ADD: r = LLVMBuildAdd(B, a, b, ""); break;
    case BIN_SUB: r = LLVMBuildSub(B, a, b, ""); break;
    case BIN_MUL: r = LLVMBuildMul(B, a, b, ""); break;
    default: return divide(L, d, a, b, missing);
    }
    return LLVMBuildSelect(B, missing, nat(L), r, "");
}

static Type *elem(Type *t)
{
    return t->kind == TY_ARRAY ? t->array.dtype : t;
}

static LLVMValueRef elem_dt(Lower *L, void *ctx, LLVMValueRef *e)
{
    return dt_compute(L, ctx, e[0], e[1]);
}

static LLVMValueRef elem_isnat(Lower *L, void *ctx, LLVMValueRef *e)
{
    (void)ctx;
    return is_nat(L, e[0]);
}

LLVMValueRef lower_bi_datetime(Lower *L, Instr *in, Builtin bi)
{
    if (bi == BI_NP_ISNAT)
        return in->type->kind == TY_ARRAY ? lower_array_map(L, in, 1, false, elem_isnat, NULL)
                                          : is_nat(L, lower_value(L, in->args[0]));
    Type *ta = in->args[0]->type, *tb = in->args[1]->type;
    DtOp d = {.op = (int)in->imm, .compare = bi == BI_DT_COMPARE, .ta = ty_strong(elem(ta)),
              .tb = ty_strong(elem(tb)), .res = elem(in->type)};
    int unit = ty_common_unit(ta, tb);
    if (unit < 0) {
        lower_unsupported(L, "internal: datetime units without a common one");
        return NULL;
    }
    d.unit = (DateUnit)unit;
    if (in->type->kind == TY_ARRAY)
        return lower_array_map(L, in, 2, in->imm2 != 0, elem_dt, &d);
    return dt_compute(L, &d, lower_value(L, in->args[0]), lower_value(L, in->args[1]));
}
