/* lower_math.c: INTRINSIC on scalars: math, cmath, the builtins (abs, min, max, len, round,
 * divmod, range, print, ...) and NumPy's scalar functions. Float math reaches the target's
 * MathFn (target.h), so float32 code stays float32. math.sqrt(-1.0) and friends raise Python's
 * "math domain error" as CPython does, and give nan under NumPy's error model (error_model=
 * 'numpy', GPU kernels by default). Builtins whose arguments are arrays are in lower_array.c. */
#include "compiler/lower.h"

#include <math.h>

/* The MathFn of b's fn column (builtins.def), or -1. */
int lower_builtin_math(Builtin b)
{
    return target_math_named(ir_builtin_fn(b));
}

static Type *part_of(Type *ct)
{
    return ty_scalar(ct->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
}

static LLVMValueRef cplx(Lower *L, Type *ct, LLVMValueRef re, LLVMValueRef im)
{
    LLVMValueRef z = LLVMGetUndef(lower_type(L, ct));
    z = LLVMBuildInsertValue(L->b, z, re, 0, "");
    return LLVMBuildInsertValue(L->b, z, im, 1, "");
}

LLVMValueRef lower_complex_abs(Lower *L, Type *ct, LLVMValueRef z)
{
    return lower_math(L, MF_HYPOT, part_of(ct), LLVMBuildExtractValue(L->b, z, 0, ""),
                      LLVMBuildExtractValue(L->b, z, 1, ""));
}

/* min/max: Python's keep the first of equal or unordered values; NumPy's propagate NaN. */
LLVMValueRef lower_minmax(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b, bool is_max,
                          bool nan_propagating)
{
    LLVMBuilderRef B = L->b;
    if (ty_is_float(t)) {
        LLVMValueRef better = LLVMBuildFCmp(B, is_max ? LLVMRealOGT : LLVMRealOLT, b, a, "");
        LLVMValueRef r = LLVMBuildSelect(B, better, b, a, "");
        if (nan_propagating)
            r = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealUNO, b, b, ""), b, r, "");
        return r;
    }
    bool s = ty_is_int(t) && ty_is_signed(t);
    LLVMIntPredicate p = is_max ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT);
    return LLVMBuildSelect(B, LLVMBuildICmp(B, p, b, a, ""), b, a, "");
}

static LLVMValueRef lower_abs(Lower *L, Type *t, LLVMValueRef x)
{
    if (ty_is_complex(t))
        return lower_complex_abs(L, t, x);
    if (ty_is_float(t))
        return lower_math(L, MF_FABS, t, x, NULL);
    if (ty_is_int(t) && ty_is_signed(t))
        return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, x, LLVMConstNull(LLVMTypeOf(x)), ""),
                               LLVMBuildNeg(L->b, x, ""), x, "");
    return x;
}

static LLVMValueRef float_class(Lower *L, Builtin b, Type *t, LLVMValueRef x)
{
    if (!ty_is_float(t))   /* ints are never nan or inf */
        return LLVMConstInt(L->i1, b == BI_MATH_ISFINITE || b == BI_NP_ISFINITE, 0);
    if (b == BI_MATH_ISNAN || b == BI_NP_ISNAN)
        return LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, "");
    LLVMValueRef ax = lower_math(L, MF_FABS, t, x, NULL), inf = lower_const_f(L, t, INFINITY);
    if (b == BI_MATH_ISINF || b == BI_NP_ISINF)
        return LLVMBuildFCmp(L->b, LLVMRealOEQ, ax, inf, "");
    return LLVMBuildFCmp(L->b, LLVMRealOLT, ax, inf, "");
}

static LLVMValueRef complex_class(Lower *L, Builtin b, Type *ct, LLVMValueRef z)
{
    Type *pt = part_of(ct);
    Builtin fb = b == BI_CMATH_ISNAN || b == BI_NP_ISNAN ? BI_MATH_ISNAN
                 : b == BI_CMATH_ISINF || b == BI_NP_ISINF ? BI_MATH_ISINF : BI_MATH_ISFINITE;
    LLVMValueRef re = float_class(L, fb, pt, LLVMBuildExtractValue(L->b, z, 0, ""));
    LLVMValueRef im = float_class(L, fb, pt, LLVMBuildExtractValue(L->b, z, 1, ""));
    return fb == BI_MATH_ISFINITE ? LLVMBuildAnd(L->b, re, im, "") : LLVMBuildOr(L->b, re, im, "");
}

LLVMValueRef lower_number_class(Lower *L, Builtin b, Type *t, LLVMValueRef x)
{
    return ty_is_complex(t) ? complex_class(L, b, t, x) : float_class(L, b, t, x);
}

/* cmath by the textbook formulas, on the components. */
static LLVMValueRef lower_cmath(Lower *L, Builtin bi, Type *ct, LLVMValueRef z)
{
    LLVMBuilderRef B = L->b;
    Type *pt = part_of(ct);
    LLVMValueRef a = LLVMBuildExtractValue(B, z, 0, ""), b = LLVMBuildExtractValue(B, z, 1, "");
    switch (bi) {
    case BI_CMATH_EXP: {
        LLVMValueRef c = lower_math(L, MF_COS, pt, b, NULL), s = lower_math(L, MF_SIN, pt, b, NULL);
        LLVMValueRef e = lower_math(L, MF_EXP, pt, a, NULL);
        return cplx(L, ct, LLVMBuildFMul(B, e, c, ""), LLVMBuildFMul(B, e, s, ""));
    }
    case BI_CMATH_LOG:
    case BI_CMATH_LOG10: {
        LLVMValueRef re = lower_math(L, MF_LOG, pt, lower_complex_abs(L, ct, z), NULL);
        LLVMValueRef im = lower_math(L, MF_ATAN2, pt, b, a);
        if (bi == BI_CMATH_LOG10) {
            LLVMValueRef k = lower_const_f(L, pt, 0.4342944819032518);
            re = LLVMBuildFMul(B, re, k, "");
            im = LLVMBuildFMul(B, im, k, "");
        }
        return cplx(L, ct, re, im);
    }
    case BI_CMATH_SQRT: {
        LLVMValueRef zero = LLVMConstNull(lower_type(L, pt)), half = lower_const_f(L, pt, 0.5);
        LLVMValueRef s = lower_math(L, MF_SQRT, pt, LLVMBuildFMul(B, LLVMBuildFAdd(B, lower_complex_abs(L, ct, z),
                                                                    lower_math(L, MF_FABS, pt, a, NULL), ""), half, ""), NULL);
        LLVMValueRef d = LLVMBuildFDiv(B, b, LLVMBuildFAdd(B, s, s, ""), "");
        LLVMValueRef pos = LLVMBuildFCmp(B, LLVMRealOGE, a, zero, "");
        LLVMValueRef re = LLVMBuildSelect(B, pos, s, lower_math(L, MF_FABS, pt, d, NULL), "");
        LLVMValueRef im = LLVMBuildSelect(B, pos, d, lower_math(L, MF_COPYSIGN, pt, s, b), "");
        LLVMValueRef is0 = LLVMBuildFCmp(B, LLVMRealOEQ, s, zero, "");
        return cplx(L, ct, LLVMBuildSelect(B, is0, zero, re, ""), LLVMBuildSelect(B, is0, b, im, ""));
    }
    case BI_CMATH_SIN: case BI_CMATH_COS: case BI_CMATH_SINH: case BI_CMATH_COSH: {
        LLVMValueRef sa = lower_math(L, bi == BI_CMATH_SINH || bi == BI_CMATH_COSH ? MF_SINH : MF_SIN, pt, a, NULL);
        LLVMValueRef ca = lower_math(L, bi == BI_CMATH_SINH || bi == BI_CMATH_COSH ? MF_COSH : MF_COS, pt, a, NULL);
        LLVMValueRef sb = lower_math(L, bi == BI_CMATH_SIN || bi == BI_CMATH_COS ? MF_SINH : MF_SIN, pt, b, NULL);
        LLVMValueRef cb = lower_math(L, bi == BI_CMATH_SIN || bi == BI_CMATH_COS ? MF_COSH : MF_COS, pt, b, NULL);
        if (bi == BI_CMATH_SIN || bi == BI_CMATH_SINH)
            return cplx(L, ct, LLVMBuildFMul(B, sa, cb, ""), LLVMBuildFMul(B, ca, sb, ""));
        if (bi == BI_CMATH_COSH)
            return cplx(L, ct, LLVMBuildFMul(B, ca, cb, ""), LLVMBuildFMul(B, sa, sb, ""));
        return cplx(L, ct, LLVMBuildFMul(B, ca, cb, ""), LLVMBuildFNeg(B, LLVMBuildFMul(B, sa, sb, ""), ""));
    }
    case BI_CMATH_TAN:
    case BI_CMATH_TANH: {
        bool h = bi == BI_CMATH_TANH;
        LLVMValueRef s = lower_cmath(L, h ? BI_CMATH_SINH : BI_CMATH_SIN, ct, z);
        LLVMValueRef c = lower_cmath(L, h ? BI_CMATH_COSH : BI_CMATH_COS, ct, z);
        return lower_binop_scalar(L, BIN_TRUEDIV, ct, s, c, NULL);
    }
    default:
        lower_unsupported(L, "%s is not supported", ir_builtin_name(bi));
        return NULL;
    }
}

/* len(range): the distance over the step, in unsigned arithmetic so that ranges spanning more
 * than 2**63 (range(-2**62, 2**62, 2**60)) do not overflow:
 *   step > 0, start < stop: (stop - start - 1) / step + 1;  step < 0, start > stop: likewise. */
static LLVMValueRef range_len(Lower *L, LLVMValueRef r)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef s = LLVMBuildExtractValue(B, r, 0, ""), e = LLVMBuildExtractValue(B, r, 1, "");
    LLVMValueRef st = LLVMBuildExtractValue(B, r, 2, ""), zero = lower_i64(L, 0), one = lower_i64(L, 1);
    LLVMValueRef up = LLVMBuildICmp(B, LLVMIntSGT, st, zero, "");
    LLVMValueRef dist = LLVMBuildSelect(B, up, LLVMBuildSub(B, e, s, ""), LLVMBuildSub(B, s, e, ""), "");
    LLVMValueRef mag = LLVMBuildSelect(B, up, st, LLVMBuildSub(B, zero, st, ""), "");
    LLVMValueRef nonempty = LLVMBuildSelect(B, up, LLVMBuildICmp(B, LLVMIntSLT, s, e, ""),
                                            LLVMBuildICmp(B, LLVMIntSGT, s, e, ""), "");
    /* the divisor is 1 when empty, so that no path divides by zero */
    LLVMValueRef n = LLVMBuildAdd(B, LLVMBuildUDiv(B, LLVMBuildSub(B, dist, one, ""),
                                                   LLVMBuildSelect(B, nonempty, mag, one, ""), ""), one, "");
    return LLVMBuildSelect(B, nonempty, n, zero, "");
}

static LLVMValueRef lower_len(Lower *L, Instr *x)
{
    Type *t = x->type;
    if (t->kind == TY_ARRAY)
        return t->array.ndim ? lower_array_dim(L, lower_value(L, x), 0) : lower_i64(L, 0);
    if (t->kind == TY_TUPLE)
        return lower_i64(L, t->tuple.n);
    if (t->kind == TY_RANGE)
        return range_len(L, lower_value(L, x));
    if (t->kind == TY_LIST)
        return lower_list_len(L, lower_value(L, x));
    if (t->kind == TY_STR)
        return lower_str_len(L, lower_value(L, x));
    if (t->kind == TY_DICT || t->kind == TY_SET)
        return lower_dict_len(L, lower_value(L, x));
    if (t->kind == TY_NDITER)   /* a.flat, or a loop source of enumerate/zip: its item count */
        return lower_nditer_size(L, t, lower_value(L, x));
    lower_unsupported(L, "len() of %s", t->name);
    return NULL;
}

static LLVMValueRef lower_range(Lower *L, Instr *in)
{
    LLVMValueRef p[3] = {lower_i64(L, 0), NULL, lower_i64(L, 1)};
    Type *i64t = ty_scalar(TY_INT64);
    LLVMValueRef a[3] = {0};
    for (int i = 0; i < in->nargs && i < 3; i++)
        a[i] = lower_cast(L, lower_value(L, in->args[i]), in->args[i]->type, i64t);
    if (in->nargs == 1)
        p[1] = a[0];
    else {
        p[0] = a[0];
        p[1] = in->nargs > 1 ? a[1] : lower_i64(L, 0);
        if (in->nargs > 2) {
            p[2] = a[2];
            lower_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, p[2], lower_i64(L, 0), ""), ABI_EXC_VALUE,
                        "range() arg 3 must not be zero", NULL, 0);
        }
    }
    LLVMValueRef r = LLVMGetUndef(lower_type(L, ty_scalar(TY_RANGE)));
    for (unsigned i = 0; i < 3; i++)
        r = LLVMBuildInsertValue(L->b, r, p[i], i, "");
    return r;
}

/* r.start, r.stop, r.step: the fields of the range's { start, stop, step }. */
LLVMValueRef lower_bi_range_field(Lower *L, Instr *in, Builtin bi)
{
    unsigned field = bi == BI_RANGE_START ? 0 : bi == BI_RANGE_STOP ? 1 : 2;
    return LLVMBuildExtractValue(L->b, lower_value(L, in->args[0]), field, "");
}

/* round(x, n) for n < 0 (or n > 323: x) on the CPU, as runtime/round.c rounds it; a finite x
 * whose rounding is too large for a double raises OverflowError, as in CPython. */
static LLVMValueRef round_neg_cpu(Lower *L, LLVMValueRef x, LLVMValueRef n)
{
    LLVMBuilderRef B = L->b;
    Type *f64 = ty_scalar(TY_FLOAT64);
    LLVMValueRef fin = float_class(L, BI_MATH_ISFINITE, f64, x);
    LLVMValueRef use = LLVMBuildAnd(B, fin, LLVMBuildICmp(B, LLVMIntSLT, n, lower_i64(L, 0), ""), "");
    LLVMValueRef args[2] = {LLVMBuildSelect(B, use, x, LLVMConstReal(L->f64, 0.0), ""), n};
    LLVMValueRef r = LLVMBuildSelect(B, use, lower_call_rt(L, "pj_round_neg", L->f64, args, 2), x, "");
    lower_check(L, LLVMBuildAnd(B, fin, LLVMBuildNot(B, float_class(L, BI_MATH_ISFINITE, f64, r), ""), ""),
                ABI_EXC_OVERFLOW, "rounded value too large to represent", NULL, 0);
    return r;
}

/* round(x, n) in a kernel (on the GPU, and in the CPU simulator, which computes as the GPU
 * does), which has no C runtime for the exact expansion: as numba-cuda rounds it, through powers
 * of ten (10**n split as 10**(n-22) * 1e22 past n = 22, so that neither overflows), the scaled
 * value rounded half to even and scaled back, which rounds twice (an ulp off in rare cases).
 * x itself where the scaled value or the result is not finite (a NaN or an infinity, |x| * 10**n
 * past the largest double), and where n >= 0 and |x| >= 2**52 (an integer already); below
 * n = -308 every finite x rounds to a zero of its sign. */
static LLVMValueRef round_digits_gpu(Lower *L, LLVMValueRef x, LLVMValueRef n)
{
    LLVMBuilderRef B = L->b;
    Type *f64 = ty_scalar(TY_FLOAT64);
    LLVMValueRef zero = LLVMConstReal(L->f64, 0.0), one = LLVMConstReal(L->f64, 1.0);
    LLVMValueRef nf = lower_cast(L, n, ty_scalar(TY_INT64), f64);
    LLVMValueRef nonneg = LLVMBuildICmp(B, LLVMIntSGE, n, lower_i64(L, 0), "");
    LLVMValueRef big = LLVMBuildICmp(B, LLVMIntSGT, n, lower_i64(L, 22), "");
    LLVMValueRef e = lower_math(L, MF_FABS, f64, nf, NULL);
    e = LLVMBuildSelect(B, big, LLVMBuildFSub(B, e, LLVMConstReal(L->f64, 22.0), ""), e, "");
    LLVMValueRef p1 = lower_math(L, MF_POW, f64, LLVMConstReal(L->f64, 10.0), e);
    LLVMValueRef p2 = LLVMBuildSelect(B, big, LLVMConstReal(L->f64, 1e22), one, "");
    LLVMValueRef y = LLVMBuildSelect(B, nonneg, LLVMBuildFMul(B, LLVMBuildFMul(B, x, p1, ""), p2, ""),
                                     LLVMBuildFDiv(B, x, p1, ""), "");
    LLVMValueRef z = lower_math(L, MF_RINT, f64, y, NULL);
    LLVMValueRef r = LLVMBuildSelect(B, nonneg, LLVMBuildFDiv(B, LLVMBuildFDiv(B, z, p2, ""), p1, ""),
                                     LLVMBuildFMul(B, z, p1, ""), "");
    LLVMValueRef keep = LLVMBuildNot(B, LLVMBuildAnd(B, float_class(L, BI_MATH_ISFINITE, f64, y),
                                                     float_class(L, BI_MATH_ISFINITE, f64, r), ""), "");
    LLVMValueRef integral = LLVMBuildFCmp(B, LLVMRealOGE, lower_math(L, MF_FABS, f64, x, NULL),
                                          LLVMConstReal(L->f64, 4503599627370496.0), "");
    keep = LLVMBuildOr(B, keep, LLVMBuildAnd(B, nonneg, integral, ""), "");
    r = LLVMBuildSelect(B, keep, x, r, "");
    LLVMValueRef signed_zero = LLVMBuildFMul(B, x, zero, "");
    LLVMValueRef tiny = LLVMBuildICmp(B, LLVMIntSLT, n, lower_i64(L, -308), "");
    return LLVMBuildSelect(B, tiny, LLVMBuildSelect(B, float_class(L, BI_MATH_ISFINITE, f64, x),
                                                    signed_zero, x, ""), r, "");
}

/* round(x, n) correctly rounded as CPython does: through the exact decimal expansion (libc's
 * snprintf "%.*f" is exact), then read back. Floats with |x| >= 2**52 are integers already;
 * negative n rounds the expansion in runtime/round.c (a division by a power of ten would round
 * twice). Past the digits a double can have (n > 323) x is its own rounding. Kernels round as
 * round_digits_gpu does. */
static LLVMValueRef round_digits(Lower *L, LLVMValueRef x, LLVMValueRef n)
{
    if (L->t->is_gpu || L->prog->gpu_sim)
        return round_digits_gpu(L, x, n);
    LLVMBuilderRef B = L->b;
    Type *f64 = ty_scalar(TY_FLOAT64);
    LLVMValueRef buf = lower_alloca(L, LLVMArrayType(L->i8, 400));
    LLVMValueRef exact = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, n, lower_i64(L, 0), ""),
                                      LLVMBuildICmp(B, LLVMIntSLE, n, lower_i64(L, 323), ""), "");
    LLVMValueRef small = LLVMBuildFCmp(B, LLVMRealOLT, lower_math(L, MF_FABS, f64, x, NULL),
                                       LLVMConstReal(L->f64, 4503599627370496.0), "");
    LLVMBasicBlockRef pb = lower_block(L, "round.exact"), qb = lower_block(L, "round.neg");
    LLVMBasicBlockRef jb = lower_block(L, "round.done");
    LLVMBuildCondBr(B, exact, pb, qb);
    LLVMPositionBuilderAtEnd(B, pb);
    LLVMTypeRef sp[3] = {L->ptr, L->i64, L->ptr};
    LLVMTypeRef sty = LLVMFunctionType(L->i32, sp, 3, 1);
    LLVMValueRef sfn = LLVMGetNamedFunction(L->mod, "snprintf");
    if (!sfn)
        sfn = LLVMAddFunction(L->mod, "snprintf", sty);
    LLVMValueRef sargs[5] = {buf, lower_i64(L, 400), LLVMBuildGlobalStringPtr(B, "%.*f", ""),
                             LLVMBuildTrunc(B, n, L->i32, ""), x};
    LLVMBuildCall2(B, sty, sfn, sargs, 5, "");
    LLVMValueRef targs[2] = {buf, LLVMConstNull(L->ptr)};
    LLVMValueRef r1 = lower_call_rt(L, "strtod", L->f64, targs, 2);
    r1 = LLVMBuildSelect(B, small, r1, x, "");
    LLVMBasicBlockRef pb_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, jb);
    LLVMPositionBuilderAtEnd(B, qb);
    LLVMValueRef r2 = round_neg_cpu(L, x, n);
    LLVMBasicBlockRef qb_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, jb);
    LLVMPositionBuilderAtEnd(B, jb);
    LLVMValueRef phi = LLVMBuildPhi(B, L->f64, "");
    LLVMValueRef vals[2] = {r1, r2};
    LLVMBasicBlockRef froms[2] = {pb_end, qb_end};
    LLVMAddIncoming(phi, vals, froms, 2);
    return phi;
}

/* The errors of int() of a float x that failed the common case's test, raised from the
 * builder's block, which continues to `cont` where x is -2^63 (an int64 after all). */
static void float_to_int_errors(Lower *L, Type *t, LLVMValueRef x, LLVMBasicBlockRef cont)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef limit = lower_const_f(L, t, 9223372036854775808.0);
    LLVMValueRef lowest = LLVMBuildFCmp(B, LLVMRealOEQ, x, LLVMBuildFNeg(B, limit, ""), "");
    LLVMBasicBlockRef raise = lower_block(L, "raise");
    LLVMBuildCondBr(B, lowest, cont, raise);
    LLVMPositionBuilderAtEnd(B, raise);
    lower_check(L, LLVMBuildFCmp(B, LLVMRealUNO, x, x, ""), ABI_EXC_VALUE,
                "cannot convert float NaN to integer", NULL, 0);
    LLVMValueRef inf = lower_const_f(L, t, INFINITY);
    LLVMValueRef is_inf = LLVMBuildFCmp(B, LLVMRealOEQ, lower_math(L, MF_FABS, t, x, NULL), inf, "");
    lower_check(L, is_inf, ABI_EXC_OVERFLOW, "cannot convert float infinity to integer", NULL, 0);
    lower_raise_exc(L, ABI_EXC_OVERFLOW, "float out of range for an int64 result");
    LLVMPositionBuilderAtEnd(B, cont);
}

/* int(), math.floor/ceil/trunc and round() of a float: CPython raises on NaN and infinities,
 * and a finite float outside int64 has no int64 result, where a bare conversion would give
 * garbage. The common case pays one compare pair (false for NaN too); telling the three errors
 * apart happens only once it failed. Only these builtins pay, not the casts of array code. */
static void check_float_to_int(Lower *L, Type *t, LLVMValueRef x)
{
    LLVMValueRef limit = lower_const_f(L, t, 9223372036854775808.0);
    /* |x| < 2^63 in the common case, one compare (false for NaN); -2^63 itself fits too */
    LLVMValueRef fits = LLVMBuildFCmp(L->b, LLVMRealOLT, lower_math(L, MF_FABS, t, x, NULL), limit, "");
    LLVMBasicBlockRef cont = lower_unlikely(L, LLVMBuildNot(L->b, fits, ""));
    float_to_int_errors(L, t, x, cont);
}

/* x converted to int type `to` after check_float_to_int passed: in int64's range, so a plain
 * conversion, cheaper than the saturating one lower_cast makes. */
static LLVMValueRef checked_to_int(Lower *L, LLVMValueRef x, Type *from, Type *to)
{
    if (ty_strong(to)->kind != TY_INT64)
        return lower_cast(L, x, from, to);
    return LLVMBuildFPToSI(L->b, x, L->i64, "");
}

/* x (of float type t) as int type `to`, with check_float_to_int's errors. Where the target
 * truncates with a sentinel (x86: INT64_MIN for NaN, the infinities and what is out of range),
 * an int64 result is converted first and the sentinel tested: one integer compare in the
 * common case instead of a float absolute value and compare, which in a histogram's loop
 * (`counts[int(x[i] * n)] += 1`) is a third of its time. */
static LLVMValueRef float_to_int(Lower *L, Type *t, LLVMValueRef x, Type *to)
{
    TypeKind k = ty_strong(t)->kind;
    if (!L->t->truncate_i64 || ty_strong(to)->kind != TY_INT64 ||
        (k != TY_FLOAT64 && k != TY_FLOAT32)) {
        check_float_to_int(L, t, x);
        return checked_to_int(L, x, t, to);
    }
    LLVMValueRef r = L->t->truncate_i64(L->mod, L->b, x);
    LLVMValueRef sentinel = LLVMBuildICmp(L->b, LLVMIntEQ, r, LLVMConstInt(L->i64, (unsigned long long)INT64_MIN, 0), "");
    LLVMBasicBlockRef cont = lower_unlikely(L, sentinel);
    float_to_int_errors(L, t, x, cont);
    return r;
}

/* round(x) half to even -> int; round(x, n) -> float. */
static LLVMValueRef lower_round(Lower *L, Instr *in)
{
    Instr *x = in->args[0];
    LLVMValueRef v = lower_value(L, x);
    if (!ty_is_float(x->type))
        return lower_cast(L, v, x->type, in->type);
    if (in->nargs == 1 && ty_is_int(in->type))
        return float_to_int(L, x->type, lower_math(L, MF_RINT, x->type, v, NULL), in->type);
    if (in->nargs == 1)
        return lower_cast(L, lower_math(L, MF_RINT, x->type, v, NULL), x->type, in->type);
    Type *f64 = ty_scalar(TY_FLOAT64);
    LLVMValueRef n = lower_cast(L, lower_value(L, in->args[1]), in->args[1]->type, ty_scalar(TY_INT64));
    LLVMValueRef r = round_digits(L, lower_cast(L, v, x->type, f64), n);
    return lower_cast(L, r, f64, in->type);
}

static void print_value(Lower *L, Type *t, LLVMValueRef v, Instr *src)
{
    LLVMTypeRef vt = LLVMVoidTypeInContext(L->ctx);
    LLVMValueRef a[2];
    if (src && src->op == OP_CONST && src->cst && src->cst->kind == K_STR) {
        a[0] = LLVMBuildGlobalStringPtr(L->b, src->cst->s, "pj.str");
        lower_call_rt(L, "pj_print_str", vt, a, 1);
    } else if (t->kind == TY_STR) {
        lower_str_print(L, v, !src);   /* inside a tuple: its repr, as CPython prints it */
    } else if (t->kind == TY_BOOL) {
        a[0] = LLVMBuildZExt(L->b, v, L->i32, "");
        lower_call_rt(L, "pj_print_bool", vt, a, 1);
    } else if (ty_is_int(t)) {
        a[0] = LLVMBuildIntCast2(L->b, v, L->i64, ty_is_signed(t), "");
        lower_call_rt(L, ty_is_signed(t) ? "pj_print_i64" : "pj_print_u64", vt, a, 1);
    } else if (ty_is_float(t)) {
        a[0] = LLVMBuildFPCast(L->b, v, L->f64, "");
        lower_call_rt(L, "pj_print_f64", vt, a, 1);
    } else if (ty_is_complex(t)) {
        a[0] = LLVMBuildFPCast(L->b, LLVMBuildExtractValue(L->b, v, 0, ""), L->f64, "");
        a[1] = LLVMBuildFPCast(L->b, LLVMBuildExtractValue(L->b, v, 1, ""), L->f64, "");
        lower_call_rt(L, "pj_print_c128", vt, a, 2);
    } else if (t->kind == TY_ARRAY || t->kind == TY_LIST || t->kind == TY_DICT || t->kind == TY_SET) {
        LLVMValueRef slot = lower_alloca(L, lower_type(L, t));
        lower_store_mem(L, t, v, slot);
        LLVMValueRef b[3] = {LLVMBuildGlobalStringPtr(L->b, t->name, ""), slot,
                             LLVMConstInt(L->i32, src ? 0 : 1, 0)};   /* in a tuple: its repr */
        lower_call_rt(L, "pj_print_boxed", vt, b, 3);
    } else if (t->kind == TY_TUPLE) {
        a[0] = LLVMBuildGlobalStringPtr(L->b, "(", "");
        lower_call_rt(L, "pj_print_str", vt, a, 1);
        for (int i = 0; i < t->tuple.n; i++) {
            if (i > 0) {
                a[0] = LLVMBuildGlobalStringPtr(L->b, ", ", "");
                lower_call_rt(L, "pj_print_str", vt, a, 1);
            }
            print_value(L, t->tuple.items[i], LLVMBuildExtractValue(L->b, v, (unsigned)i, ""), NULL);
        }
        a[0] = LLVMBuildGlobalStringPtr(L->b, t->tuple.n == 1 ? ",)" : ")", "");
        lower_call_rt(L, "pj_print_str", vt, a, 1);
    } else {
        a[0] = LLVMBuildGlobalStringPtr(L->b, t->kind == TY_NONE ? "None" : t->name, "");
        lower_call_rt(L, "pj_print_str", vt, a, 1);
    }
}

static LLVMValueRef lower_print(Lower *L, Instr *in)
{
    LLVMTypeRef vt = LLVMVoidTypeInContext(L->ctx);
    int n = in->nargs - in->nkw;
    for (int i = 0; i < n; i++) {
        if (i > 0) {
            LLVMValueRef sep = LLVMConstInt(L->i32, 0, 0);
            lower_call_rt(L, "pj_print_sep", vt, &sep, 1);
        }
        print_value(L, in->args[i]->type, lower_value(L, in->args[i]), in->args[i]);
    }
    LLVMValueRef end = LLVMConstInt(L->i32, 1, 0);
    lower_call_rt(L, "pj_print_sep", vt, &end, 1);
    return LLVMConstNull(L->none_ty);
}

/* `a is b` of two objects of one type: lists, dicts, sets and jitclass instances the same
 * MemInfo; arrays the same data, shape and strides (a view of all of an array is it, as in
 * Numba). */
static LLVMValueRef lower_is_same(Lower *L, Instr *in)
{
    Type *t = in->args[0]->type;
    LLVMValueRef a = lower_value(L, in->args[0]), b = lower_value(L, in->args[1]);
    LLVMBuilderRef B = L->b;
    if (t->kind != TY_ARRAY)
        return LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildExtractValue(B, a, 0, ""),
                             LLVMBuildExtractValue(B, b, 0, ""), "");
    LLVMValueRef r = LLVMBuildICmp(B, LLVMIntEQ, lower_array_data(L, a), lower_array_data(L, b), "");
    for (int k = 0; k < t->array.ndim; k++) {
        r = LLVMBuildAnd(B, r, LLVMBuildICmp(B, LLVMIntEQ, lower_array_dim(L, a, k),
                                             lower_array_dim(L, b, k), ""), "");
        r = LLVMBuildAnd(B, r, LLVMBuildICmp(B, LLVMIntEQ, lower_array_stride(L, t, a, k),
                                             lower_array_stride(L, t, b, k), ""), "");
    }
    return r;
}

/* x in tuple: any item equal; x in range: within bounds and on the step. */
static LLVMValueRef lower_contains(Lower *L, Instr *in)
{
    Instr *seq = in->args[0], *x = in->args[1];
    LLVMValueRef sv = lower_value(L, seq), xv = lower_value(L, x);
    LLVMBuilderRef B = L->b;
    if (seq->type->kind == TY_LIST)
        return lower_list_contains(L, seq->type->list.item, sv, x->type, xv);
    if (seq->type->kind == TY_ARRAY)
        return lower_array_contains(L, seq, x);
    if (seq->type->kind == TY_TUPLE) {
        LLVMValueRef r = LLVMConstInt(L->i1, 0, 0);
        for (int i = 0; i < seq->type->tuple.n; i++) {
            Type *it = seq->type->tuple.items[i], *pt = ty_promote(it, x->type);
            if (!pt || !ty_is_scalar(pt))
                continue;
            LLVMValueRef item = lower_cast(L, LLVMBuildExtractValue(B, sv, (unsigned)i, ""), it, pt);
            r = LLVMBuildOr(B, r, lower_compare_scalar(L, CMP_EQ, pt, item, lower_cast(L, xv, x->type, pt)), "");
        }
        return r;
    }
    if (seq->type->kind != TY_RANGE || !ty_is_int(x->type)) {
        lower_unsupported(L, "'in' over %s", seq->type->name);
        return NULL;
    }
    xv = lower_cast(L, xv, x->type, ty_scalar(TY_INT64));
    LLVMValueRef s = LLVMBuildExtractValue(B, sv, 0, ""), e = LLVMBuildExtractValue(B, sv, 1, "");
    LLVMValueRef st = LLVMBuildExtractValue(B, sv, 2, ""), zero = lower_i64(L, 0);
    LLVMValueRef up = LLVMBuildICmp(B, LLVMIntSGT, st, zero, "");
    LLVMValueRef in_up = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, xv, s, ""), LLVMBuildICmp(B, LLVMIntSLT, xv, e, ""), "");
    LLVMValueRef in_dn = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSLE, xv, s, ""), LLVMBuildICmp(B, LLVMIntSGT, xv, e, ""), "");
    LLVMValueRef inside = LLVMBuildSelect(B, up, in_up, in_dn, "");
    LLVMValueRef on = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildSRem(B, LLVMBuildSub(B, xv, s, ""), st, ""), zero, "");
    return LLVMBuildAnd(B, inside, on, "");
}

static LLVMValueRef lower_gcd(Lower *L, Instr *in)
{
    Type *i64t = ty_scalar(TY_INT64);
    LLVMValueRef a = lower_abs(L, i64t, lower_value(L, in->args[0]));
    LLVMValueRef b = lower_abs(L, i64t, lower_value(L, in->args[1]));
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b), loop = lower_block(L, "gcd"), done = lower_block(L, "gcd.done");
    LLVMBuildBr(L->b, loop);
    LLVMPositionBuilderAtEnd(L->b, loop);
    LLVMValueRef x = LLVMBuildPhi(L->b, L->i64, ""), y = LLVMBuildPhi(L->b, L->i64, "");
    LLVMValueRef y0 = LLVMBuildICmp(L->b, LLVMIntEQ, y, lower_i64(L, 0), "");
    LLVMValueRef ys = LLVMBuildSelect(L->b, y0, lower_i64(L, 1), y, "");
    LLVMValueRef r = LLVMBuildURem(L->b, x, ys, "");
    LLVMAddIncoming(x, &a, &pre, 1);
    LLVMAddIncoming(y, &b, &pre, 1);
    LLVMAddIncoming(x, &y, &loop, 1);
    LLVMAddIncoming(y, &r, &loop, 1);
    LLVMBuildCondBr(L->b, y0, done, loop);
    LLVMPositionBuilderAtEnd(L->b, done);
    return x;
}

static LLVMValueRef np_sign(Lower *L, Type *t, LLVMValueRef x)
{
    LLVMBuilderRef B = L->b;
    if (ty_is_float(t)) {
        LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(x));
        LLVMValueRef r = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGT, x, zero, ""), lower_const_f(L, t, 1.0), x, "");
        return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOLT, x, zero, ""), lower_const_f(L, t, -1.0), r, "");
    }
    LLVMTypeRef it = LLVMTypeOf(x);
    LLVMValueRef zero = LLVMConstNull(it);
    LLVMValueRef pos = LLVMBuildZExt(B, LLVMBuildICmp(B, ty_is_signed(t) ? LLVMIntSGT : LLVMIntUGT, x, zero, ""), it, "");
    LLVMValueRef neg = LLVMBuildZExt(B, LLVMBuildICmp(B, LLVMIntSLT, x, zero, ""), it, "");
    return ty_is_signed(t) ? LLVMBuildSub(B, pos, neg, "") : pos;
}

static bool is_constructor(Builtin b)
{
    return b == BI_INT || b == BI_FLOAT || b == BI_BOOL || (b >= BI_NP_BOOL && b <= BI_NP_COMPLEX128);
}

/* CPython's math module raises ValueError("math domain error") outside a function's domain
 * (NumPy's functions give nan; so does a nan argument here). */
static void math_domain(Lower *L, Builtin bi, Type *t, LLVMValueRef x)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef bad = NULL;
    if (!ty_is_float(t) || lower_numpy_errors(L))
        return;
#define CMPF(pred, v) LLVMBuildFCmp(B, pred, x, lower_const_f(L, t, v), "")
    switch (bi) {
    case BI_MATH_SQRT: bad = CMPF(LLVMRealOLT, 0.0); break;
    case BI_MATH_LOG: case BI_MATH_LOG2: case BI_MATH_LOG10: bad = CMPF(LLVMRealOLE, 0.0); break;
    case BI_MATH_LOG1P: bad = CMPF(LLVMRealOLE, -1.0); break;
    case BI_MATH_ASIN: case BI_MATH_ACOS:
        bad = LLVMBuildOr(B, CMPF(LLVMRealOGT, 1.0), CMPF(LLVMRealOLT, -1.0), "");
        break;
    case BI_MATH_ACOSH: bad = CMPF(LLVMRealOLT, 1.0); break;
    case BI_MATH_ATANH: bad = LLVMBuildOr(B, CMPF(LLVMRealOGE, 1.0), CMPF(LLVMRealOLE, -1.0), ""); break;
    default: return;
    }
#undef CMPF
    lower_check(L, bad, ABI_EXC_VALUE, "math domain error", NULL, 0);
}

/* math.fmod(x, y) has no value for y == 0 or an infinite x (NaN operands give nan). */
static void fmod_domain(Lower *L, Type *t, LLVMValueRef x, LLVMValueRef y)
{
    LLVMBuilderRef B = L->b;
    if (!ty_is_float(t) || lower_numpy_errors(L))
        return;
    LLVMValueRef x_inf = LLVMBuildFCmp(B, LLVMRealOEQ, lower_math(L, MF_FABS, t, x, NULL),
                                       lower_const_f(L, t, INFINITY), "");
    LLVMValueRef y_zero = LLVMBuildFCmp(B, LLVMRealOEQ, y, lower_const_f(L, t, 0.0), "");
    LLVMValueRef y_nan = LLVMBuildFCmp(B, LLVMRealUNO, y, y, "");
    LLVMValueRef bad = LLVMBuildAnd(B, LLVMBuildOr(B, x_inf, y_zero, ""), LLVMBuildNot(B, y_nan, ""), "");
    lower_check(L, LLVMBuildAnd(B, bad, LLVMBuildFCmp(B, LLVMRealORD, x, x, ""), ""), ABI_EXC_VALUE,
                "math domain error", NULL, 0);
}

/* Builtins with one scalar argument x of type t. */
static LLVMValueRef lower_unary_builtin(Lower *L, Instr *in, Builtin bi, Type *t, LLVMValueRef x)
{
    int mf = lower_builtin_math(bi);
    if (mf >= 0) {
        math_domain(L, bi, t, x);
        return lower_math(L, (MathFn)mf, t, x, NULL);
    }
    switch (bi) {
    case BI_MATH_FLOOR: case BI_MATH_CEIL: case BI_MATH_TRUNC:
        if (!ty_is_float(t))
            return lower_cast(L, x, t, in->type);
        mf = bi == BI_MATH_FLOOR ? MF_FLOOR : bi == BI_MATH_CEIL ? MF_CEIL : MF_TRUNC;
        if (!ty_is_int(in->type))
            return lower_cast(L, lower_math(L, (MathFn)mf, t, x, NULL), t, in->type);
        return float_to_int(L, t, lower_math(L, (MathFn)mf, t, x, NULL), in->type);
    case BI_MATH_ISNAN: case BI_MATH_ISINF: case BI_MATH_ISFINITE:
    case BI_NP_ISNAN: case BI_NP_ISINF: case BI_NP_ISFINITE:
        return lower_number_class(L, bi, t, x);
    case BI_MATH_DEGREES: return LLVMBuildFMul(L->b, x, lower_const_f(L, t, 57.29577951308232), "");
    case BI_MATH_RADIANS: return LLVMBuildFMul(L->b, x, lower_const_f(L, t, 0.017453292519943295), "");
    case BI_ABS: case BI_NP_ABS: case BI_NP_ABSOLUTE: return lower_abs(L, t, x);
    case BI_NP_SIGN: return np_sign(L, t, x);
    case BI_CMATH_ISNAN: case BI_CMATH_ISINF: case BI_CMATH_ISFINITE: return complex_class(L, bi, t, x);
    case BI_CMATH_PHASE:
        return lower_math(L, MF_ATAN2, part_of(t), LLVMBuildExtractValue(L->b, x, 1, ""),
                          LLVMBuildExtractValue(L->b, x, 0, ""));
    case BI_CMATH_POLAR: {
        LLVMValueRef r = LLVMGetUndef(lower_type(L, in->type));
        r = LLVMBuildInsertValue(L->b, r, lower_complex_abs(L, t, x), 0, "");
        return LLVMBuildInsertValue(L->b, r, lower_unary_builtin(L, in, BI_CMATH_PHASE, t, x), 1, "");
    }
    case BI_COMPLEX_CONJ:
        return cplx(L, t, LLVMBuildExtractValue(L->b, x, 0, ""), LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, x, 1, ""), ""));
    case BI_COMPLEX_IMAG: return LLVMBuildExtractValue(L->b, x, 1, "");
    default:
        if (bi >= BI_CMATH_SQRT && bi <= BI_CMATH_TANH)
            return lower_cmath(L, bi, t, x);
        lower_unsupported(L, "%s() is not supported here", ir_builtin_name(bi));
        return NULL;
    }
}

/* Math, cmath, the builtins and NumPy's functions of scalars. */
LLVMValueRef lower_bi_scalar(Lower *L, Instr *in, Builtin bi)
{
    Instr *a0 = in->nargs > 0 ? in->args[0] : NULL, *a1 = in->nargs > 1 ? in->args[1] : NULL;
    LLVMValueRef x = a0 ? lower_value(L, a0) : NULL, y = a1 ? lower_value(L, a1) : NULL;
    if (is_constructor(bi)) {
        if (!a0)
            return LLVMConstNull(lower_type(L, in->type));
        if (bi == BI_INT && ty_is_float(a0->type) && ty_is_int(in->type))
            return float_to_int(L, a0->type, x, in->type);
        return bi == BI_BOOL ? lower_truth(L, x, a0->type) : lower_cast(L, x, a0->type, in->type);
    }
    int mf = lower_builtin_math(bi);
    if (bi == BI_MATH_LOG && a1) {   /* log(x, base) */
        y = lower_cast(L, y, a1->type, a0->type);
        math_domain(L, BI_MATH_LOG, a0->type, x);
        math_domain(L, BI_MATH_LOG, a0->type, y);
        return LLVMBuildFDiv(L->b, lower_math(L, MF_LOG, a0->type, x, NULL), lower_math(L, MF_LOG, a0->type, y, NULL), "");
    }
    if (mf >= 0 && a1) {
        y = lower_cast(L, y, a1->type, a0->type);
        if (bi == BI_MATH_FMOD)
            fmod_domain(L, a0->type, x, y);
        return lower_math(L, (MathFn)mf, a0->type, x, y);
    }
    switch (bi) {
    case BI_MATH_GCD: return lower_gcd(L, in);
    case BI_MIN: case BI_MAX: case BI_NP_MINIMUM: case BI_NP_MAXIMUM: {
        bool is_max = bi == BI_MAX || bi == BI_NP_MAXIMUM, np = bi == BI_NP_MINIMUM || bi == BI_NP_MAXIMUM;
        LLVMValueRef r = lower_cast(L, x, a0->type, in->type);
        for (int i = 1; i < in->nargs; i++)
            r = lower_minmax(L, in->type, r, lower_cast(L, lower_value(L, in->args[i]), in->args[i]->type, in->type),
                             is_max, np);
        return r;
    }
    case BI_LEN: return lower_len(L, a0);
    case BI_COMPLEX: {
        Type *f64 = ty_scalar(TY_FLOAT64);
        LLVMValueRef re = a0 ? lower_cast(L, x, a0->type, f64) : LLVMConstReal(L->f64, 0.0);
        LLVMValueRef im = a1 ? lower_cast(L, y, a1->type, f64) : LLVMConstReal(L->f64, 0.0);
        return lower_cast(L, cplx(L, ty_scalar(TY_COMPLEX128), re, im), ty_scalar(TY_COMPLEX128), in->type);
    }
    case BI_CMATH_RECT: {
        Type *ft = a0->type;
        LLVMValueRef phi = lower_cast(L, y, a1->type, ft);
        return lower_cast(L, cplx(L, ty_is_complex(in->type) && in->type->kind == TY_COMPLEX64 && ft->kind == TY_FLOAT32
                                          ? in->type : ty_scalar(ft->kind == TY_FLOAT32 ? TY_COMPLEX64 : TY_COMPLEX128),
                                  LLVMBuildFMul(L->b, x, lower_math(L, MF_COS, ft, phi, NULL), ""),
                                  LLVMBuildFMul(L->b, x, lower_math(L, MF_SIN, ft, phi, NULL), "")),
                          ty_scalar(ft->kind == TY_FLOAT32 ? TY_COMPLEX64 : TY_COMPLEX128), in->type);
    }
    case BI_ROUND: return lower_round(L, in);
    case BI_POW: case BI_NP_POWER:
        return lower_binop_scalar(L, BIN_POW, a0->type, x, lower_cast(L, y, a1->type, a0->type), a1);
    case BI_DIVMOD: {
        Type *t = a0->type;
        LLVMValueRef yv = lower_cast(L, y, a1->type, t);
        LLVMValueRef r = LLVMGetUndef(lower_type(L, in->type));
        r = LLVMBuildInsertValue(L->b, r, lower_binop_scalar(L, BIN_FLOORDIV, t, x, yv, a1), 0, "");
        return LLVMBuildInsertValue(L->b, r, lower_binop_scalar(L, BIN_MOD, t, x, yv, a1), 1, "");
    }
    case BI_RANGE: return lower_range(L, in);
    case BI_ENUMERATE: case BI_ZIP: return LLVMConstNull(L->ptr);   /* GETITER looks through */
    case BI_CONTAINS: return lower_contains(L, in);
    case BI_IS_SAME: return lower_is_same(L, in);
    case BI_IS_NOT_SAME: return LLVMBuildNot(L->b, lower_is_same(L, in), "");
    default:
        if (a0)
            return lower_unary_builtin(L, in, bi, a0->type, x);
    }
    lower_unsupported(L, "%s() is not supported here", ir_builtin_name(bi));
    return NULL;
}

LLVMValueRef lower_bi_print(Lower *L, Instr *in, Builtin bi)
{
    (void)bi;
    return L->t->is_gpu ? lower_gpu_print(L, in) : lower_print(L, in);
}

typedef LLVMValueRef (*LowerBuiltinFn)(Lower *L, Instr *in, Builtin bi);

static const LowerBuiltinFn lower_handlers[BI__COUNT] = {
#define BUILTIN(id, pyname, infer, lower, ...) [id] = lower_bi_##lower,
#include "compiler/builtins.def"
#undef BUILTIN
};

int lower_intrinsic(Lower *L, Instr *in)
{
    LLVMValueRef v = lower_handlers[in->sub](L, in, (Builtin)in->sub);
    if (L->failed)
        return -1;
    L->vals[in->id] = v;
    return 0;
}
