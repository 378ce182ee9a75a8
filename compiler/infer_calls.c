/* infer_calls.c: type inference of calls.
 *
 * A CALL never survives inference: a known function (builtins.def) becomes INTRINSIC with its
 * arguments cast to the types its entry documents, a scalar type called as a constructor
 * (int(x), np.float32(x)) becomes CAST, a method call (through the bound method a GETATTR made)
 * becomes INTRINSIC with the receiver first, and a call of another compiled function becomes
 * CALL_JIT to a specialisation typed for the argument types. Only an exception being built for
 * `raise` stays a CALL, typed TY_EXCEPTION. Each handler takes its decisions in a Plan, applied
 * only in the rewrite pass. */
#include "compiler/infer.h"

#include <stdio.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>

/* The most arguments a call of a builtin takes: the pool's call of a prange loop passes the
 * variables its body reads (umap's SGD epoch reads 29), in step with runtime/pool.c's
 * PAR_MAX_ARGS. */
#define MAX_ARGS 128

typedef struct Args {
    const char *name;   /* for messages: "math.sqrt", "abs", "array.sum" */
    const char *pyname; /* the builtins.def name: "numpy.zeros", "method.array.sum" */
    Instr *pos[MAX_ARGS];
    int npos;
    Instr *dtype;       /* the dtype= keyword */
} Args;

typedef struct Plan {
    Opcode op;
    int sub;
    int n;
    Instr *args[MAX_ARGS];
    Type *to[MAX_ARGS];    /* the type each argument is cast to, or NULL to pass it as it is */
} Plan;

static void plan_arg(Plan *p, Instr *v, Type *to)
{
    if (p->n < MAX_ARGS) {
        p->args[p->n] = v;
        p->to[p->n] = to;
        p->n++;
    }
}

/* Applies the plan in the rewrite and returns the result type either way. */
static Type *apply(Infer *c, Instr *in, Plan *p, Type *ret)
{
    if (!ret || !c->rewrite)
        return ret;
    Instr *args[MAX_ARGS];
    for (int i = 0; i < p->n; i++)
        args[i] = p->to[i] ? infer_coerce(c, in, p->args[i], p->to[i]) : p->args[i];
    in->op = p->op;
    in->sub = p->sub;
    infer_set_args(c, in, args, p->n);
    return ret;
}

static Type *intrinsic(Infer *c, Instr *in, Builtin bi, Args *a, Type **to, Type *ret)
{
    Plan p = {.op = OP_INTRINSIC, .sub = bi};
    for (int i = 0; i < a->npos; i++)
        plan_arg(&p, a->pos[i], to ? to[i] : NULL);
    return apply(c, in, &p, ret);
}

/* ---- types the builtins take ------------------------------------------------------------- */

static Type *i64(void) { return ty_scalar(TY_INT64); }
static Type *f64(void) { return ty_scalar(TY_FLOAT64); }
static Type *boolean(void) { return ty_scalar(TY_BOOL); }

static bool is_real(const Type *t)
{
    return ty_is_scalar(t) && !ty_is_complex(t);
}

static bool is_integral(const Type *t)
{
    return ty_is_int(t) || (t && t->kind == TY_BOOL);
}

/* F: float32 and float64 stay; float16 computes in float32; ints and bool become float64. */
static Type *float_for(Type *t)
{
    t = ty_strong(t);
    if (!is_real(t))
        return NULL;
    if (t->kind == TY_FLOAT32 || t->kind == TY_FLOAT64)
        return t;
    return ty_scalar(t->kind == TY_FLOAT16 ? TY_FLOAT32 : TY_FLOAT64);
}

/* The element type of a float function's result over an array of dtype: float16 arrays give
 * float16 arrays, as NumPy's loops (computed in float32, each result rounded). */
static Type *float_elem_for(Type *dtype)
{
    return ty_strong(dtype)->kind == TY_FLOAT16 ? ty_strong(dtype) : float_for(dtype);
}

/* C: complex types stay; everything else becomes complex128. */
static Type *complex_for(Type *t)
{
    t = ty_strong(t);
    return ty_is_complex(t) ? t : ty_scalar(TY_COMPLEX128);
}

/* N: a number type kept as it is (bool counts as int64, as Python's int does). */
static Type *number_for(Type *t)
{
    t = ty_strong(t);
    return t->kind == TY_BOOL ? i64() : t;
}

static Type *component_of(Type *complex)
{
    return ty_scalar(complex->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
}

static Type *sum_type(Type *dtype)
{
    if (is_integral(dtype))
        return ty_is_int(dtype) && !ty_is_signed(dtype) ? ty_scalar(TY_UINT64) : i64();
    return dtype;
}

static const char *arg_word(int n)
{
    return n == 1 ? "argument" : "arguments";
}

static Type *count_error(Infer *c, Instr *in, Args *a, const char *expected)
{
    return infer_fail(c, in, DIAG_TYPING, "%s() takes %s %s, got %d", a->name, expected,
                      strcmp(expected, "1") == 0 ? "argument" : "arguments", a->npos);
}

static bool want_args(Infer *c, Instr *in, Args *a, int lo, int hi)
{
    if (a->npos >= lo && a->npos <= hi)
        return true;
    char expected[48];
    if (lo == hi)
        snprintf(expected, sizeof expected, "%d", lo);
    else if (hi == lo + 1)
        snprintf(expected, sizeof expected, "%d or %d", lo, hi);
    else
        snprintf(expected, sizeof expected, "from %d to %d", lo, hi);
    count_error(c, in, a, expected);
    return false;
}

static Type *arg_error(Infer *c, Instr *in, Args *a, int i, const char *what)
{
    return infer_fail(c, in, DIAG_TYPING, "%s() argument %d must be %s, not %s", a->name, i + 1,
                      what, infer_type_name(a->pos[i]->type));
}

/* ---- dtypes ------------------------------------------------------------------------------ */

static const struct {
    const char *name;
    TypeKind kind;
} scalar_type_names[] = {
    {"numpy.bool_", TY_BOOL}, {"numpy.bool", TY_BOOL}, {"numpy.int8", TY_INT8},
    {"numpy.int16", TY_INT16}, {"numpy.int32", TY_INT32}, {"numpy.int64", TY_INT64},
    {"numpy.uint8", TY_UINT8}, {"numpy.uint16", TY_UINT16}, {"numpy.uint32", TY_UINT32},
    {"numpy.uint64", TY_UINT64}, {"numpy.float16", TY_FLOAT16}, {"numpy.float32", TY_FLOAT32},
    {"numpy.float64", TY_FLOAT64}, {"numpy.complex64", TY_COMPLEX64},
    {"numpy.complex128", TY_COMPLEX128}, {"builtins.int", TY_INT64}, {"builtins.float", TY_FLOAT64},
    {"builtins.bool", TY_BOOL}, {"builtins.complex", TY_COMPLEX128}, {"float", TY_FLOAT64},
    {"int", TY_INT64}, {"bool", TY_BOOL}, {"complex", TY_COMPLEX128},
};

static Type *scalar_type_named(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof scalar_type_names / sizeof *scalar_type_names; i++)
        if (strcmp(name, scalar_type_names[i].name) == 0)
            return ty_scalar(scalar_type_names[i].kind);
    Type *t = ty_parse(name);
    return ty_is_scalar(t) ? t : NULL;
}

/* NumPy's type codes and C names, as np.dtype reads them in a dtype string ('<' or '=' before
 * one is the native byte order, that of every host pyjit runs on). */
static const struct {
    const char *name;
    TypeKind kind;
} type_codes[] = {
    {"?", TY_BOOL}, {"b1", TY_BOOL}, {"b", TY_INT8}, {"i1", TY_INT8}, {"h", TY_INT16},
    {"i2", TY_INT16}, {"i", TY_INT32}, {"i4", TY_INT32}, {"l", TY_INT64}, {"q", TY_INT64},
    {"i8", TY_INT64}, {"B", TY_UINT8}, {"u1", TY_UINT8}, {"H", TY_UINT16}, {"u2", TY_UINT16},
    {"I", TY_UINT32}, {"u4", TY_UINT32}, {"L", TY_UINT64}, {"Q", TY_UINT64}, {"u8", TY_UINT64},
    {"e", TY_FLOAT16}, {"f2", TY_FLOAT16}, {"f", TY_FLOAT32}, {"f4", TY_FLOAT32},
    {"d", TY_FLOAT64}, {"f8", TY_FLOAT64}, {"F", TY_COMPLEX64}, {"c8", TY_COMPLEX64},
    {"D", TY_COMPLEX128}, {"c16", TY_COMPLEX128}, {"double", TY_FLOAT64}, {"single", TY_FLOAT32},
    {"half", TY_FLOAT16}, {"intc", TY_INT32}, {"uintc", TY_UINT32}, {"longlong", TY_INT64},
    {"ulonglong", TY_UINT64}, {"short", TY_INT16}, {"ushort", TY_UINT16}, {"byte", TY_INT8},
    {"ubyte", TY_UINT8}, {"cdouble", TY_COMPLEX128}, {"csingle", TY_COMPLEX64},
    {"int", TY_INT64}, {"uint", TY_UINT64}, {"long", TY_INT64}, {"ulong", TY_UINT64},
    {"float", TY_FLOAT64}, {"complex", TY_COMPLEX128},
};

static Type *scalar_type_of_string(const char *name)
{
    if ((name[0] == '<' || name[0] == '=' || name[0] == '|') && name[1])
        name++;
    for (size_t i = 0; i < sizeof type_codes / sizeof *type_codes; i++)
        if (strcmp(name, type_codes[i].name) == 0)
            return ty_scalar(type_codes[i].kind);
    return scalar_type_named(name);
}

Type *infer_dtype_of(Infer *c, Instr *val)
{
    (void)c;
    Type *t = val->type;
    if (!t)
        return NULL;
    if (t->kind == TY_DTYPE)
        return t->dtype.scalar;
    if (t->kind == TY_FUNCTION && t->literal && t->literal->kind == K_TYPE) {
        Type *r = ty_parse(t->literal->name);   /* a structured dtype's record type */
        return r && r->kind == TY_RECORD ? r : NULL;
    }
    if (t->kind == TY_FUNCTION && t->literal)
        return scalar_type_named(t->literal->name);
    if (t->kind == TY_STRING && t->literal)
        return scalar_type_of_string(t->literal->s);
    return NULL;
}

/* The dtype argument as lowering takes it: a value typed TY_DTYPE. */
static Instr *dtype_value(Infer *c, Instr *at, Instr *val, Type *scalar)
{
    if (val->type->kind == TY_DTYPE)
        return val;
    Instr *d = infer_emit(c, at, OP_CONST, ty_dtype(scalar), 0);
    d->cst = val->op == OP_CONST ? val->cst : ir_new_const(c->fn, K_NONE);
    return d;
}

/* ---- argument binding -------------------------------------------------------------------- */

static const char *display_name(const char *pyname)
{
    if (strncmp(pyname, "builtins.", 9) == 0)
        return pyname + 9;
    if (strncmp(pyname, "method.", 7) == 0)
        return pyname + 7;
    if (strncmp(pyname, "numpy.", 6) == 0) {
        static __thread char buf[64];
        snprintf(buf, sizeof buf, "np.%s", pyname + 6);
        return buf;
    }
    return pyname;
}

/* The entry of parameter p in builtins.def's keyword names of bi (its length in *len, a '?'
 * that marks it optional included), or NULL. */
static const char *keyword_entry(Builtin bi, int p, size_t *len)
{
    const char *names = ir_builtin_keywords(bi);
    for (int k = 0; names && *names; k++) {
        const char *end = strchr(names, ',');
        *len = end ? (size_t)(end - names) : strlen(names);
        if (k == p)
            return names;
        names += *len + (end != NULL);
    }
    return NULL;
}

/* The position of keyword kw among builtins.def's keyword names of bi, or -1. */
static int keyword_position(Builtin bi, const char *kw)
{
    size_t n = strlen(kw), len;
    const char *name;
    for (int p = 0; (name = keyword_entry(bi, p, &len)) != NULL; p++) {
        len -= len > 0 && name[len - 1] == '?';
        if (len == n && strncmp(name, kw, n) == 0)
            return p;
    }
    return -1;
}

/* Whether parameter p of bi may be left out before a keyword argument ("axis?"): its slot stays
 * NULL and the handler applies the default. */
static bool keyword_optional(Builtin bi, int p)
{
    size_t len;
    const char *name = keyword_entry(bi, p, &len);
    return name && len > 0 && name[len - 1] == '?';
}

/* Puts a keyword argument in its positional slot; slots it skips stay NULL until filled. */
static bool bind_keyword(Infer *c, Instr *in, Args *a, const char *kw, Instr *value, int skip)
{
    int p = keyword_position(ir_builtin_lookup(a->pyname), kw);
    if (p < 0)
        return infer_fail(c, in, DIAG_TYPING, "%s() got an unexpected keyword argument '%s'",
                          a->name, kw) != NULL;
    p += skip;   /* the receiver of a method comes first */
    if (p < a->npos && a->pos[p])
        return infer_fail(c, in, DIAG_TYPING, "%s() got multiple values for argument '%s'",
                          a->name, kw) != NULL;
    while (a->npos <= p)
        a->pos[a->npos++] = NULL;
    a->pos[p] = value;
    return true;
}

/* Splits a CALL's operands (from `first` on) into positionals and the dtype= keyword, which only
 * builtins that take a dtype accept; other keywords go to their positional slots. */
static bool bind_args(Infer *c, Instr *in, int first, Instr *self, const char *pyname,
                      bool takes_dtype, Args *a)
{
    a->name = display_name(pyname);
    a->pyname = pyname;
    a->npos = 0;
    a->dtype = NULL;
    if (self)
        a->pos[a->npos++] = self;
    int npos = in->nargs - in->nkw;
    if (npos - first + a->npos > MAX_ARGS) {
        infer_fail(c, in, DIAG_UNSUPPORTED, "%s() is called with too many arguments", a->name);
        return false;
    }
    for (int i = first; i < npos; i++)
        a->pos[a->npos++] = in->args[i];
    for (int k = 0; k < in->nkw; k++) {
        const char *kw = in->kwnames ? in->kwnames[k] : "?";
        if (takes_dtype && strcmp(kw, "dtype") == 0)
            a->dtype = in->args[npos + k];
        else if (!bind_keyword(c, in, a, kw, in->args[npos + k], self != NULL))
            return false;
    }
    for (int i = 0; i < a->npos; i++)
        if (!a->pos[i] && !keyword_optional(ir_builtin_lookup(pyname), i - (self != NULL)))
            return infer_fail(c, in, DIAG_TYPING, "%s() missing a positional argument before "
                              "the keyword ones", a->name) != NULL;
    return true;
}

/* A positional dtype (np.zeros(n, np.float32)) is moved to Args.dtype. */
static bool take_dtype(Infer *c, Instr *in, Args *a, int position, Type **scalar)
{
    if (a->npos > position) {
        if (a->dtype)
            return infer_fail(c, in, DIAG_TYPING, "%s() got multiple values for argument 'dtype'",
                              a->name) != NULL;
        a->dtype = a->pos[position];
        a->npos = position;
    }
    *scalar = NULL;
    if (!a->dtype || a->dtype->type->kind == TY_NONE)
        return true;
    *scalar = infer_dtype_of(c, a->dtype);
    if (!*scalar)
        return infer_fail(c, in, DIAG_TYPING, "%s(): %s is not a dtype compiled code knows",
                          a->name, infer_type_name(a->dtype->type)) != NULL;
    return true;
}

/* ---- math and numpy functions of numbers ------------------------------------------------- */

static Type *elementwise(Type *arg, Type *elem_result)
{
    return ty_array(elem_result, arg->array.ndim, 'C', false);
}

/* (F) -> F, and elementwise over arrays when allowed (numpy's functions). */
static Type *unary_float(Infer *c, Instr *in, Builtin bi, Args *a, bool arrays)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type;
    if (arrays && t->kind == TY_ARRAY) {
        Type *f = float_elem_for(t->array.dtype);
        if (!f)
            return arg_error(c, in, a, 0, "an array of real numbers");
        return intrinsic(c, in, bi, a, NULL, elementwise(t, f));
    }
    Type *f = float_for(t);
    if (!f)
        return arg_error(c, in, a, 0, "a real number");
    return intrinsic(c, in, bi, a, &f, f);
}

/* (F, F) -> F at the promotion of both. */
static Type *binary_float(Infer *c, Instr *in, Builtin bi, Args *a, bool arrays)
{
    if (!want_args(c, in, a, 2, 2))
        return NULL;
    Type *x = a->pos[0]->type, *y = a->pos[1]->type;
    if (arrays && (x->kind == TY_ARRAY || y->kind == TY_ARRAY)) {
        Type *ex = x->kind == TY_ARRAY ? x->array.dtype : x, *ey = y->kind == TY_ARRAY ? y->array.dtype : y;
        Type *f = float_elem_for(ty_promote(ex, ey));
        if (!f)
            return arg_error(c, in, a, 0, "a real number or array");
        int nx = x->kind == TY_ARRAY ? x->array.ndim : 0, ny = y->kind == TY_ARRAY ? y->array.ndim : 0;
        Type *to[2] = {x->kind == TY_ARRAY ? NULL : f, y->kind == TY_ARRAY ? NULL : f};
        return intrinsic(c, in, bi, a, to, ty_array(f, nx > ny ? nx : ny, 'C', false));
    }
    if (!is_real(x))
        return arg_error(c, in, a, 0, "a real number");
    if (!is_real(y))
        return arg_error(c, in, a, 1, "a real number");
    Type *f = float_for(ty_promote(x, y));
    Type *to[2] = {f, f};
    return intrinsic(c, in, bi, a, to, f);
}

/* math.floor/ceil/trunc: floats give int64, ints are returned as they are. */
static Type *math_round_to_int(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type;
    if (!is_real(t))
        return arg_error(c, in, a, 0, "a real number");
    if (is_integral(t)) {
        Plan p = {.op = OP_CAST};
        plan_arg(&p, a->pos[0], NULL);
        return apply(c, in, &p, number_for(t));
    }
    Type *f = float_for(t);
    return intrinsic(c, in, bi, a, &f, i64());
}

/* isnan/isinf/isfinite: ints are known finite, so the answer is a constant. */
static Type *float_predicate(Infer *c, Instr *in, Builtin bi, Args *a, bool arrays)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type;
    if (arrays && t->kind == TY_ARRAY)
        return intrinsic(c, in, bi, a, NULL, elementwise(t, boolean()));
    if (ty_is_complex(t) && bi >= BI_NP_SQRT) {
        Type *ct = ty_strong(t);
        return intrinsic(c, in, bi, a, &ct, boolean());
    }
    if (!is_real(t))
        return arg_error(c, in, a, 0, "a real number");
    if (is_integral(t)) {
        bool v = bi == BI_MATH_ISFINITE || bi == BI_NP_ISFINITE;
        infer_set_known(c, in, v);
        if (c->rewrite)
            infer_make_const_bool(c, in, v);
        return boolean();
    }
    Type *f = float_for(t);
    return intrinsic(c, in, bi, a, &f, boolean());
}

static Type *cmath_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (bi == BI_CMATH_RECT) {
        if (!want_args(c, in, a, 2, 2))
            return NULL;
        if (!is_real(a->pos[0]->type) || !is_real(a->pos[1]->type))
            return arg_error(c, in, a, is_real(a->pos[0]->type), "a real number");
        Type *f = float_for(ty_promote(a->pos[0]->type, a->pos[1]->type));
        Type *to[2] = {f, f};
        return intrinsic(c, in, bi, a, to, ty_scalar(f->kind == TY_FLOAT32 ? TY_COMPLEX64 : TY_COMPLEX128));
    }
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    if (!ty_is_scalar(a->pos[0]->type))
        return arg_error(c, in, a, 0, "a number");
    Type *z = complex_for(a->pos[0]->type), *f = component_of(z);
    switch (bi) {
    case BI_CMATH_PHASE:
        return intrinsic(c, in, bi, a, &z, f);
    case BI_CMATH_POLAR: {
        Type *items[2] = {f, f};
        return intrinsic(c, in, bi, a, &z, ty_tuple(items, 2));
    }
    case BI_CMATH_ISNAN: case BI_CMATH_ISINF: case BI_CMATH_ISFINITE:
        return intrinsic(c, in, bi, a, &z, boolean());
    default:
        return intrinsic(c, in, bi, a, &z, z);
    }
}

/* abs(x), np.abs(x), np.sign(x): the number type is kept; abs of complex is its float type. */
static Type *abs_like(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type;
    bool is_abs = bi != BI_NP_SIGN;
    if (t->kind == TY_ARRAY) {
        Type *e = t->array.dtype, *r = is_abs && ty_is_complex(e) ? component_of(e) : e;
        return intrinsic(c, in, bi, a, NULL, elementwise(t, r));
    }
    if (!ty_is_scalar(t))
        return arg_error(c, in, a, 0, "a number");
    Type *n = number_for(t);
    return intrinsic(c, in, bi, a, &n, is_abs && ty_is_complex(n) ? component_of(n) : n);
}

/* max(t)/min(t) of a tuple of numbers: of its items (promoted), each a STATIC_GET made in the
 * rewrite; one item is compared with itself. */
static Type *min_max_tuple(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Instr *tuple = a->pos[0];
    Type *tt = tuple->type, *t = NULL;
    int n = tt->tuple.n;
    if (n == 0)
        return infer_fail(c, in, DIAG_TYPING, "%s() arg is an empty sequence", a->name);
    if (n > MAX_ARGS)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%s() of a tuple of more than %d items",
                          a->name, MAX_ARGS);
    for (int i = 0; i < n; i++) {
        if (!is_real(tt->tuple.items[i]))
            return arg_error(c, in, a, 0, "a tuple of real numbers");
        t = t ? ty_promote(t, tt->tuple.items[i]) : tt->tuple.items[i];
    }
    t = ty_strong(t);
    Type *to[MAX_ARGS];
    for (int i = 0; i < n || i < 2; i++) {
        to[i] = t;
        if (c->rewrite) {
            a->pos[i] = infer_emit(c, in, OP_STATIC_GET, tt->tuple.items[i % n], 1);
            a->pos[i]->args[0] = tuple;
            a->pos[i]->imm = i % n;
        }
    }
    a->npos = n < 2 ? 2 : n;
    return c->rewrite ? intrinsic(c, in, bi, a, to, t) : t;
}

/* min/max of numbers (promoted), or of an array (its dtype); np.minimum/maximum of two. */
static Type *min_max(Infer *c, Instr *in, Builtin bi, Args *a)
{
    bool np = bi == BI_NP_MINIMUM || bi == BI_NP_MAXIMUM;
    if (np && !want_args(c, in, a, 2, 2))
        return NULL;
    if (!np && a->npos == 1 && a->pos[0]->type->kind == TY_ARRAY)
        return intrinsic(c, in, bi, a, NULL, a->pos[0]->type->array.dtype);
    if (!np && a->npos == 1 && a->pos[0]->type->kind == TY_LIST) {
        Type *item = a->pos[0]->type->list.item;
        if (item && !is_real(item))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "%s() of a list of %s: pyjit compares "
                              "numbers", a->name, infer_type_name(item));
        return item ? intrinsic(c, in, bi, a, NULL, item) : NULL;
    }
    if (!np && a->npos == 1 && a->pos[0]->type->kind == TY_TUPLE)
        return min_max_tuple(c, in, bi, a);
    if (a->npos < 2)
        return infer_fail(c, in, DIAG_TYPING, "%s() takes an array or at least 2 numbers, got %d "
                          "arguments", a->name, a->npos);
    Type *t = NULL;
    for (int i = 0; i < a->npos; i++) {
        if (!is_real(a->pos[i]->type))
            return arg_error(c, in, a, i, "a real number");
        t = t ? ty_promote(t, a->pos[i]->type) : a->pos[i]->type;
    }
    t = ty_strong(t);
    Type *to[MAX_ARGS];
    for (int i = 0; i < a->npos; i++)
        to[i] = t;
    return intrinsic(c, in, bi, a, to, t);
}

/* np.minimum/np.maximum over arrays: elementwise at the promoted dtype, kept as it is. */
static Type *np_min_max_arrays(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *x = a->pos[0]->type, *y = a->pos[1]->type;
    Type *ex = x->kind == TY_ARRAY ? x->array.dtype : x, *ey = y->kind == TY_ARRAY ? y->array.dtype : y;
    Type *t = ty_strong(ty_promote(ex, ey));
    if (!t)
        return arg_error(c, in, a, 0, "a number or array");
    int nx = x->kind == TY_ARRAY ? x->array.ndim : 0, ny = y->kind == TY_ARRAY ? y->array.ndim : 0;
    Type *to[2] = {x->kind == TY_ARRAY ? NULL : t, y->kind == TY_ARRAY ? NULL : t};
    return intrinsic(c, in, bi, a, to, ty_array(t, nx > ny ? nx : ny, 'C', false));
}

/* pow(a, b), np.power(a, b): the semantics of a ** b (NumPy's promotion for np.power). */
static Type *power(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 2, 2))
        return NULL;
    Type *x = a->pos[0]->type, *y = a->pos[1]->type, *opt, *res;
    bool arrays = x->kind == TY_ARRAY || y->kind == TY_ARRAY;
    Type *ex = x->kind == TY_ARRAY ? x->array.dtype : x, *ey = y->kind == TY_ARRAY ? y->array.dtype : y;
    if (bi == BI_POW && arrays)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "pow() of arrays: use ** or np.power");
    if (!ty_is_scalar(ex) || !ty_is_scalar(ey) ||
        !infer_binop_types(BIN_POW, ex, ey, bi == BI_POW, &opt, &res))
        return infer_fail(c, in, DIAG_TYPING, "unsupported operand types for %s(): %s and %s",
                          a->name, infer_type_name(x), infer_type_name(y));
    opt = ty_strong(opt);
    res = ty_strong(res);
    if (arrays) {
        int nx = x->kind == TY_ARRAY ? x->array.ndim : 0, ny = y->kind == TY_ARRAY ? y->array.ndim : 0;
        Type *to[2] = {x->kind == TY_ARRAY ? NULL : opt, y->kind == TY_ARRAY ? NULL : opt};
        return intrinsic(c, in, bi, a, to, ty_array(res, nx > ny ? nx : ny, 'C', false));
    }
    Plan p = {.op = bi == BI_POW ? OP_BINOP : OP_INTRINSIC, .sub = bi == BI_POW ? BIN_POW : (int)bi};
    plan_arg(&p, a->pos[0], opt);
    plan_arg(&p, a->pos[1], opt);
    return apply(c, in, &p, res);
}

static Type *divmod_call(Infer *c, Instr *in, Args *a)
{
    if (!want_args(c, in, a, 2, 2))
        return NULL;
    Type *x = a->pos[0]->type, *y = a->pos[1]->type;
    if (!is_real(x) || !is_real(y))
        return arg_error(c, in, a, is_real(x), "a real number");
    Type *t = number_for(ty_promote(x, y));
    Type *to[2] = {t, t}, *items[2] = {t, t};
    return intrinsic(c, in, BI_DIVMOD, a, to, ty_tuple(items, 2));
}

static Type *round_call(Infer *c, Instr *in, Args *a)
{
    if (!want_args(c, in, a, 1, 2))
        return NULL;
    Type *x = a->pos[0]->type;
    if (!is_real(x))
        return arg_error(c, in, a, 0, "a real number");
    if (a->npos == 2 && a->pos[1]->type->kind != TY_NONE) {
        if (!is_integral(a->pos[1]->type))
            return arg_error(c, in, a, 1, "an integer");
        if (is_integral(x))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "round() of an integer to ndigits is not "
                              "supported");
        Type *f = float_for(x), *to[2] = {f, i64()};
        return intrinsic(c, in, BI_ROUND, a, to, f);
    }
    a->npos = 1;
    if (is_integral(x)) {
        Plan p = {.op = OP_CAST};
        plan_arg(&p, a->pos[0], NULL);
        return apply(c, in, &p, number_for(x));
    }
    Type *f = float_for(x);
    return intrinsic(c, in, BI_ROUND, a, &f, i64());
}

static Type *range_call(Infer *c, Instr *in, Args *a)
{
    if (!want_args(c, in, a, 1, 3))
        return NULL;
    Type *to[3];
    for (int i = 0; i < a->npos; i++) {
        if (!is_integral(a->pos[i]->type))
            return infer_fail(c, in, DIAG_TYPING, "range() arguments must be integers, not %s",
                              infer_type_name(a->pos[i]->type));
        to[i] = i64();
    }
    return intrinsic(c, in, BI_RANGE, a, to, ty_scalar(TY_RANGE));
}

/* slice(stop), slice(start, stop[, step]): the slice a[start:stop:step] makes. */
static Type *slice_call(Infer *c, Instr *in, Args *a)
{
    if (!want_args(c, in, a, 1, 3))
        return NULL;
    for (int i = 0; i < a->npos; i++) {
        Type *t = a->pos[i]->type;
        if (t->kind != TY_NONE && !is_integral(t))
            return infer_fail(c, in, DIAG_TYPING, "slice indices must be integers or None, "
                              "not %s", infer_type_name(t));
    }
    if (c->rewrite) {
        Instr *parts[3] = {NULL, NULL, NULL};
        if (a->npos == 1)
            parts[1] = a->pos[0];
        else
            memcpy(parts, a->pos, sizeof *parts * (size_t)a->npos);
        for (int i = 0; i < 3; i++) {
            if (!parts[i]) {
                parts[i] = infer_emit(c, in, OP_CONST, ty_scalar(TY_NONE), 0);
                parts[i]->cst = ir_new_const(c->fn, K_NONE);
            } else if (parts[i]->type->kind != TY_NONE) {
                parts[i] = infer_coerce(c, in, parts[i], i64());
            }
        }
        in->op = OP_BUILD_SLICE;
        infer_set_args(c, in, parts, 3);
    }
    return ty_scalar(TY_SLICE);
}

static Type *len_call(Infer *c, Instr *in, Args *a)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type;
    if (t->kind == TY_TUPLE) {
        if (c->rewrite) {
            in->op = OP_CONST;
            in->cst = ir_new_const(c->fn, K_INT);
            in->cst->i = t->tuple.n;
            in->nargs = in->nkw = 0;
        }
        return i64();
    }
    if (t->kind == TY_ARRAY && t->array.ndim == 0)
        return infer_fail(c, in, DIAG_TYPING, "len() of a 0-d array");
    if (t->kind == TY_STRING && t->literal) {   /* known now: its code points */
        int64_t n = 0;
        for (const unsigned char *p = (const unsigned char *)t->literal->s; *p; p++)
            n += (*p & 0xc0) != 0x80;
        if (c->rewrite) {
            in->op = OP_CONST;
            in->cst = ir_new_const(c->fn, K_INT);
            in->cst->i = n;
            in->nargs = in->nkw = 0;
        }
        return i64();
    }
    if (infer_is_text(t))
        return intrinsic(c, in, BI_LEN, a, (Type *[]){ty_str()}, i64());
    if (t->kind == TY_CLASS)
        return infer_class_dunder(c, in, "__len__", a->pos, 1);
    if (t->kind == TY_NDITER && t->nditer.what == ND_FLAT)   /* NumPy's flatiter: the size */
        return intrinsic(c, in, BI_LEN, a, NULL, i64());
    if (t->kind != TY_ARRAY && t->kind != TY_RANGE && t->kind != TY_LIST && t->kind != TY_DICT &&
        t->kind != TY_SET)
        return arg_error(c, in, a, 0, "an array, a list, a dict, a set, a tuple, a string or a range");
    return intrinsic(c, in, BI_LEN, a, NULL, i64());
}

/* ---- dicts and sets ------------------------------------------------------------------------- */

/* Whether a value of type x converts to type to with no loss (numbers widened). */
static bool stores_into(Type *x, Type *to)
{
    x = ty_strong(x);
    Type *u = ty_unify(to, x);
    return x == to || (u && ty_strong(u) == to);
}

/* dict() and set(): an empty one, which becomes a BUILD_DICT or BUILD_SET typed by later use;
 * dict(d): a copy. */
static Type *table_new_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    bool set = bi == BI_SET_NEW;
    if (!want_args(c, in, a, 0, 1))
        return NULL;
    if (a->npos == 1) {
        Type *t = a->pos[0]->type;
        if (t->kind != (set ? TY_SET : TY_DICT))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "%s() of %s is not supported (%s)",
                              set ? "set" : "dict", infer_type_name(t),
                              set ? "a list, tuple, range, string, 1-d array or set is" : "another dict is");
        return ty_is_undetermined(t) ? NULL : intrinsic(c, in, set ? BI_SET_COPY : BI_DICT_COPY, a, NULL, t);
    }
    Type *t = infer_table_made(c, in, set);
    if (t && c->rewrite) {
        in->op = set ? OP_BUILD_SET : OP_BUILD_DICT;
        infer_set_args(c, in, NULL, 0);
        in->nkw = 0;
    }
    return t;
}

/* A type given as an argument: a number type (as a dtype is named), or another pyjit type
 * object (types.unicode_type, types.UniTuple(types.int64, 2), types.float64[:]); NULL if not. */
static Type *type_argument(Infer *c, Instr *val)
{
    Type *t = infer_dtype_of(c, val);
    const Const *k = val->op == OP_CONST ? val->cst
                     : val->type->kind == TY_FUNCTION ? val->type->literal : NULL;
    if (!t && k && k->kind == K_TYPE)
        t = ty_parse(k->name);
    return t && infer_is_runtime(t) ? t : NULL;
}

/* pyjit.typed.Dict.empty(key_type, value_type): an empty dict of them; pyjit.typed.Set.empty(
 * key_type): an empty set of them. */
static Type *typed_empty_call(Infer *c, Instr *in, Args *a, bool set)
{
    if (!want_args(c, in, a, set ? 1 : 2, set ? 1 : 2))
        return NULL;
    Type *k = type_argument(c, a->pos[0]), *v = set ? k : type_argument(c, a->pos[1]);
    if (set && (!k || !infer_table_types_ok(k, NULL)))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "Set.empty() in compiled code takes an item "
                          "type of real numbers, strings (types.unicode_type) or tuples of them; "
                          "not %s", k ? infer_type_name(k) : "that type");
    if (!k || !v || !infer_table_types_ok(k, v))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "Dict.empty() in compiled code takes key "
                          "types of real numbers, strings (types.unicode_type) and tuples of "
                          "them, and value types of numbers, strings, arrays, tuples and "
                          "containers; not %s and %s", k ? infer_type_name(k) : "that key type",
                          v ? infer_type_name(v) : "that value type");
    if (prog_kernel_code(c->pi->prog))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "dicts and sets are not supported in GPU kernels");
    if (c->rewrite) {
        in->op = set ? OP_BUILD_SET : OP_BUILD_DICT;
        infer_set_args(c, in, NULL, 0);
        in->nkw = 0;
    }
    return set ? ty_set(k) : ty_dict(k, v);
}

/* The rows of dicts and sets (dict(), set(), hash(), method.dict.*, method.set.*): keys converted
 * to the key type; what is stored may widen the types of a table made in this function. */
static Type *table_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (bi == BI_DICT_NEW || bi == BI_SET_NEW || bi == BI_TYPED_DICT)
        return table_new_call(c, in, bi, a);
    if (bi == BI_DICT_EMPTY || bi == BI_SET_EMPTY)
        return typed_empty_call(c, in, a, bi == BI_SET_EMPTY);
    Instr *d = a->pos[0];
    Type *t = d->type, *none = ty_scalar(TY_NONE);
    if (bi == BI_HASH) {
        if (!want_args(c, in, a, 1, 1))
            return NULL;
        Type *x = infer_value_type(d->type);   /* a string constant hashed as a str */
        if (!(ty_is_scalar(x) && !ty_is_complex(x)) && x->kind != TY_TUPLE && x->kind != TY_STR)
            return arg_error(c, in, a, 0, "a number, a string or a tuple of them");
        return intrinsic(c, in, bi, a, (Type *[]){x}, i64());
    }
    switch (bi) {
    case BI_DICT_SETITEM:
    case BI_SET_ADD: {
        bool set = bi == BI_SET_ADD;
        if (!want_args(c, in, a, set ? 2 : 3, set ? 2 : 3))
            return NULL;
        Type *to = infer_table_takes(c, in, d, a->pos[1]->type, set ? NULL : a->pos[2]->type);
        if (!to)
            return NULL;
        Type *k = set ? to->set.item : to->dict.key;
        return intrinsic(c, in, bi, a, (Type *[]){NULL, k, set ? NULL : to->dict.value}, none);
    }
    case BI_DICT_SETDEFAULT: {
        if (!want_args(c, in, a, 3, 3))
            return NULL;
        Type *to = infer_table_takes(c, in, d, a->pos[1]->type, a->pos[2]->type);
        return to ? intrinsic(c, in, bi, a, (Type *[]){NULL, to->dict.key, to->dict.value}, to->dict.value) : NULL;
    }
    case BI_DICT_GET:
        if (a->npos == 2)   /* no default: the value or None (pyjit/lib/dicts.py) */
            return infer_library_call(c, in, "method.dict._get_or_none", a->pos, 2);
        /* fall through */
    case BI_DICT_POP:
    case BI_DICT_GETITEM:
    case BI_DICT_DELITEM:
    case BI_DICT_CONTAINS:
    case BI_SET_CONTAINS:
    case BI_SET_DISCARD:
    case BI_SET_REMOVE: {
        int hi = bi == BI_DICT_GET || bi == BI_DICT_POP ? 3 : 2;
        if (!want_args(c, in, a, bi == BI_DICT_GET ? 3 : 2, hi))
            return NULL;
        Type *k = infer_table_key(c, in, d, a->pos[1]);
        if (!k && bi == BI_DICT_GET && ty_is_undetermined(t) && !c->rewrite)
            return ty_strong(a->pos[2]->type);   /* `d[k] = d.get(k, 0) + 1` types d from there */
        if (!k)
            return NULL;
        Type *v = t->kind == TY_DICT ? t->dict.value : NULL;
        if (a->npos == 3 && !stores_into(a->pos[2]->type, v))
            return infer_fail(c, in, DIAG_TYPING, "%s() default of %s for a dict of %s values",
                              a->name, infer_type_name(a->pos[2]->type), infer_type_name(v));
        Type *ret = bi == BI_DICT_CONTAINS || bi == BI_SET_CONTAINS ? boolean()
                    : bi == BI_DICT_GET || bi == BI_DICT_POP || bi == BI_DICT_GETITEM ? v : none;
        return intrinsic(c, in, bi, a, (Type *[]){NULL, k, v}, ret);
    }
    case BI_DICT_POPITEM:
    case BI_SET_POP:
    case BI_DICT_CLEAR:
    case BI_SET_CLEAR:
    case BI_DICT_COPY:
    case BI_SET_COPY: {
        if (!want_args(c, in, a, 1, 1))
            return NULL;
        if (ty_is_undetermined(t))
            return NULL;
        Type *ret = bi == BI_DICT_COPY || bi == BI_SET_COPY ? t : bi == BI_SET_POP ? t->set.item
                    : bi == BI_DICT_POPITEM ? ty_tuple((Type *[]){t->dict.key, t->dict.value}, 2) : none;
        return intrinsic(c, in, bi, a, NULL, ret);
    }
    default:
        return infer_fail(c, in, DIAG_INTERNAL, "dict builtin %s", ir_builtin_name(bi));
    }
}

/* ---- lists ----------------------------------------------------------------------------------- */

/* lst.sort(key=f[, reverse=r]): the library's (pyjit/lib/lists.py: _sort_by_key), which calls f
 * once per item and sorts stably by the results, of any type that has `<`. */
static Type *sort_in_library(Infer *c, Instr *in, const char *method, Instr **args, int nargs)
{
    int nkw = in->nkw;
    const char **kwnames = in->kwnames;
    in->nkw = 0;   /* the operands below are positional */
    in->kwnames = NULL;
    Type *t = infer_list_library_call(c, in, method, args, nargs);
    if (in->op == OP_CALL) {   /* typed only: the next round binds the keywords again */
        in->nkw = nkw;
        in->kwnames = kwnames;
    }
    return t;
}

static Type *sort_by_key(Infer *c, Instr *in, Args *a)
{
    Instr *args[3] = {a->pos[0], a->pos[1], a->npos > 2 ? a->pos[2] : NULL};
    return sort_in_library(c, in, "_sort_by_key", args, args[2] ? 3 : 2);
}

static Type *list_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Instr *list = a->pos[0];
    Type *none = ty_scalar(TY_NONE), *item = list->type->list.item;
    switch (bi) {
    case BI_LIST_APPEND: {
        if (!want_args(c, in, a, 2, 2))
            return NULL;
        Type *to = infer_list_takes(c, in, list, a->pos[1]->type);
        return to ? intrinsic(c, in, bi, a, (Type *[]){NULL, to}, none) : NULL;
    }
    case BI_LIST_SETITEM: {
        Type *to = infer_list_takes(c, in, list, a->pos[2]->type);
        return to ? intrinsic(c, in, bi, a, (Type *[]){NULL, i64(), to}, none) : NULL;
    }
    case BI_LIST_POP:
    case BI_LIST_GETITEM:
        if (!want_args(c, in, a, 1 + (bi == BI_LIST_GETITEM), 2))
            return NULL;
        if (a->npos == 2 && !is_integral(a->pos[1]->type))
            return arg_error(c, in, a, 1, "an int");
        if (!item)
            return NULL;   /* typed once something is stored in the list */
        return intrinsic(c, in, bi, a, (Type *[]){NULL, i64()}, item);
    case BI_LIST_CLEAR:
        return want_args(c, in, a, 1, 1) ? intrinsic(c, in, bi, a, NULL, none) : NULL;
    case BI_LIST_EXTEND: {
        if (!want_args(c, in, a, 2, 2))
            return NULL;
        Type *other = a->pos[1]->type;
        if (other->kind == TY_TUPLE || other->kind == TY_ARRAY || other->kind == TY_RANGE ||
            other->kind == TY_SET || other->kind == TY_DICT || infer_is_text(other)) {
            Type *it = infer_is_text(other) ? ty_str() : infer_item_of(other);
            if (!it || !infer_list_takes(c, in, list, it))
                return NULL;
            Instr *args[2] = {list, a->pos[1]};   /* appended one by one (pyjit/lib/lists.py) */
            return infer_list_library_call(c, in, "_extend_items", args, 2);
        }
        if (other->kind != TY_LIST)
            return infer_fail(c, in, DIAG_UNSUPPORTED, "list.extend() of %s: pyjit extends a list "
                              "by a list, tuple, array, range, set, dict or string",
                              infer_type_name(other));
        if (!other->list.item)
            return NULL;
        Type *to = infer_list_takes(c, in, list, other->list.item);
        if (to && to != other->list.item)
            return infer_fail(c, in, DIAG_TYPING, "cannot extend a list of %s by %s",
                              infer_type_name(to), infer_type_name(other));
        return to ? intrinsic(c, in, bi, a, NULL, none) : NULL;
    }
    case BI_LIST_ADD:
    case BI_LIST_IADD:
    case BI_LIST_MUL:
    case BI_LIST_GETSLICE:
        return infer_fail(c, in, DIAG_TYPING, "call the operator (+, +=, *) instead of %s", a->name);
    case BI_LIST_SORT: {
        if (!want_args(c, in, a, 1, 3))
            return NULL;
        if (a->npos > 1 && a->pos[1] && !infer_is_none_const(a->pos[1]))
            return sort_by_key(c, in, a);
        if (item && item->kind == TY_TUPLE) {   /* by the tuples' own `<` (pyjit/lib/lists.py) */
            Instr *args[2] = {list, a->npos > 2 ? a->pos[2] : NULL};
            return sort_in_library(c, in, "_sort_items", args, args[1] ? 2 : 1);
        }
        if (item && !is_real(item) && item->kind != TY_STR)
            return infer_fail(c, in, DIAG_UNSUPPORTED, "list.sort() of a list of %s: pyjit sorts "
                              "lists of numbers, strings and tuples", infer_type_name(item));
        Args b = {.name = a->name, .pyname = a->pyname, .pos = {list}, .npos = 1};
        if (a->npos > 2 && a->pos[2])
            b.pos[b.npos++] = a->pos[2];   /* reverse */
        return intrinsic(c, in, bi, &b, (Type *[]){NULL, boolean()}, none);
    }
    default:
        return infer_fail(c, in, DIAG_INTERNAL, "list builtin %s", ir_builtin_name(bi));
    }
}

/* list(), List() and List.empty_list(item_type): the call becomes the BUILD_LIST of an empty
 * list (typed for List) at once (nothing later can change what it is), so appends that follow
 * type it as they type `[]`; item_type gives it as an append would. */
static Type *typed_list_new(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *item = NULL;
    if (bi == BI_LIST_NEW && a->npos > 0)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "list(%s): compiled code makes a list of an "
                          "array, a tuple, a list, a set, a dict, a string or a range",
                          infer_type_name(a->pos[0]->type));
    if (bi == BI_TYPED_LIST && a->npos > 0)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "List(iterable) of %s: compiled code makes "
                          "a typed List of an array, a tuple, a list or a range",
                          infer_type_name(a->pos[0]->type));
    if (bi == BI_TYPED_LIST_EMPTY) {
        if (!want_args(c, in, a, 1, 2))
            return NULL;
        if (a->npos == 2 && a->pos[1] && !is_integral(a->pos[1]->type))
            return arg_error(c, in, a, 1, "an int (the room to allocate)");
        Instr *t = a->pos[0];
        item = type_argument(c, t);
        if (!item || !infer_is_runtime(item) || item->kind == TY_NONE)
            return arg_error(c, in, a, 0, "an item type (types.float64, types.int64[:], "
                             "types.UniTuple(types.int64, 2), ...)");
    }
    if (item && in->id < c->nknown)
        c->list_items[in->id] = item;
    in->op = OP_BUILD_LIST;
    in->imm = bi == BI_LIST_NEW ? 0 : item ? TYPED_LIST_GIVEN : TYPED_LIST;
    in->nargs = in->nkw = 0;
    return infer_build_list(c, in);
}

static Type *type_slice_indices(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 2, 2))
        return NULL;
    if (!is_integral(a->pos[1]->type))
        return arg_error(c, in, a, 1, "an int");
    Type *three[3] = {i64(), i64(), i64()};
    return intrinsic(c, in, bi, a, (Type *[]){NULL, i64()}, ty_tuple(three, 3));
}

/* ---- strings ----------------------------------------------------------------------------- */

/* Argument i of a string builtin: a string (or, with none_ok, None or absent), made a str. */
static bool str_arg(Infer *c, Instr *in, Args *a, int i, bool none_ok, Type **to)
{
    Instr *v = i < a->npos ? a->pos[i] : NULL;
    to[i] = NULL;
    if (!v || infer_is_none_const(v) || v->type->kind == TY_NONE)
        return none_ok || arg_error(c, in, a, i, "a string");
    if (!infer_is_text(v->type))
        return arg_error(c, in, a, i, none_ok ? "a string or None" : "a string");
    to[i] = ty_str();
    return true;
}

static Instr *none_const(Infer *c, Instr *before)
{
    Instr *none = infer_emit(c, before, OP_CONST, ty_scalar(TY_NONE), 0);
    none->cst = ir_new_const(c->fn, K_NONE);
    return none;
}

/* Optional int arguments from `from` on, given their defaults: the plan passes all of them. */
static bool int_args(Infer *c, Instr *in, Args *a, int from, int upto, const int64_t *defaults,
                     Type **to)
{
    for (int i = from; i < upto; i++) {
        if (i < a->npos && a->pos[i] && !infer_is_none_const(a->pos[i])) {
            if (!is_integral(a->pos[i]->type))
                return arg_error(c, in, a, i, "an int");
        } else if (c->rewrite) {
            a->pos[i] = infer_const_int(c, in, defaults[i - from]);
        }
        to[i] = i64();
    }
    a->npos = upto;
    return true;
}

/* s.startswith(x) / s.endswith(x) with x a tuple of strings: one call per item, or'ed. */
static Type *str_fix_tuple(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *tt = a->pos[1]->type;
    for (int i = 0; i < tt->tuple.n; i++)
        if (tt->tuple.items[i]->kind != TY_STR)
            return arg_error(c, in, a, 1, "a string or a tuple of strings");
    if (!c->rewrite)
        return boolean();
    Instr *acc = NULL;
    for (int i = 0; i < tt->tuple.n; i++) {
        Instr *item = infer_emit(c, in, OP_STATIC_GET, ty_str(), 1);
        item->args[0] = a->pos[1];
        item->imm = i;
        Instr *one = infer_emit(c, in, OP_INTRINSIC, boolean(), 4);
        one->sub = bi;
        Instr *args[4] = {infer_coerce(c, in, a->pos[0], ty_str()), item, a->pos[2], a->pos[3]};
        infer_set_args(c, one, args, 4);
        if (acc) {
            Instr *or = infer_emit(c, in, OP_BINOP, boolean(), 2);
            or->sub = BIN_OR;
            or->args[0] = acc;
            or->args[1] = one;
            one = or;
        }
        acc = one;
    }
    if (!acc) {   /* an empty tuple matches nothing */
        acc = infer_emit(c, in, OP_CONST, boolean(), 0);
        acc->cst = ir_new_const(c->fn, K_BOOL);
    }
    in->op = OP_CAST;   /* a bool CAST of a bool is the value */
    infer_set_args(c, in, &acc, 1);
    return boolean();
}

/* str(x) or repr(x) (bi): strings as they are or quoted, numbers as Python prints them (floats
 * through float64). */
static Type *str_of(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, bi == BI_REPR, 1))   /* str() is "", repr() needs its argument */
        return NULL;
    if (a->npos == 0) {
        Const *k = ir_new_const(c->fn, K_STR);
        k->s = "";
        Plan p = {.op = OP_CONST};
        if (c->rewrite) {
            in->cst = k;
            in->nkw = 0;
        }
        return apply(c, in, &p, ty_str());
    }
    Type *t = a->pos[0]->type, *to;
    if (infer_is_text(t))
        to = ty_str();
    else if (ty_is_int(t) || t->kind == TY_BOOL)
        to = ty_strong(t)->kind == TY_UINT64 || t->kind == TY_BOOL ? ty_strong(t) : i64();
    else if (ty_is_float(t))
        to = f64();
    else if (t->kind == TY_CAUGHT && bi == BI_STR)   /* str(e) of `except E as e` */
        to = t;
    else
        return arg_error(c, in, a, 0, "a string, an int, a float or a bool");
    return intrinsic(c, in, bi, a, &to, ty_str());
}

static Type *str_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *to[MAX_ARGS] = {0}, *s = ty_str();
    if (!infer_str_allowed(c, in))
        return NULL;
    static const int64_t whole[2] = {0, INT64_MAX}, all[1] = {-1};
    switch (bi) {
    case BI_STR:
    case BI_REPR:
        return str_of(c, in, bi, a);
    case BI_STR_INT:
    case BI_STR_FLOAT:
        if (!want_args(c, in, a, 1, 1) || !str_arg(c, in, a, 0, false, to))
            return NULL;
        return intrinsic(c, in, bi, a, to, bi == BI_STR_INT ? i64() : f64());
    case BI_ORD:
        if (!want_args(c, in, a, 1, 1) || !str_arg(c, in, a, 0, false, to))
            return NULL;
        return intrinsic(c, in, bi, a, to, i64());
    case BI_CHR:
        if (!want_args(c, in, a, 1, 1))
            return NULL;
        if (!is_integral(a->pos[0]->type))
            return arg_error(c, in, a, 0, "an int");
        return intrinsic(c, in, bi, a, (Type *[]){i64()}, s);
    case BI_STR_FIND:
    case BI_STR_RFIND:
    case BI_STR_COUNT:
    case BI_STR_STARTSWITH:
    case BI_STR_ENDSWITH: {
        bool fix = bi == BI_STR_STARTSWITH || bi == BI_STR_ENDSWITH;
        if (!want_args(c, in, a, 2, 4) || !str_arg(c, in, a, 0, false, to) ||
            !int_args(c, in, a, 2, 4, whole, to))
            return NULL;
        if (fix && a->pos[1]->type->kind == TY_TUPLE)
            return str_fix_tuple(c, in, bi, a);
        if (!str_arg(c, in, a, 1, false, to))
            return NULL;
        return intrinsic(c, in, bi, a, to, fix ? boolean() : i64());
    }
    case BI_STR_SPLIT:
        if (!want_args(c, in, a, 1, 3))
            return NULL;
        if (a->npos < 2)
            a->pos[1] = NULL;
        if (!str_arg(c, in, a, 0, false, to) || !str_arg(c, in, a, 1, true, to) ||
            !int_args(c, in, a, 2, 3, all, to))
            return NULL;
        if (c->rewrite && !a->pos[1])
            a->pos[1] = none_const(c, in);
        return intrinsic(c, in, bi, a, to, ty_list(s));
    case BI_STR_JOIN: {
        if (!want_args(c, in, a, 2, 2) || !str_arg(c, in, a, 0, false, to))
            return NULL;
        Type *t = a->pos[1]->type;
        if (infer_is_text(t))   /* sep.join(s): the characters of s */
            return str_arg(c, in, a, 1, false, to) ? intrinsic(c, in, bi, a, to, s) : NULL;
        bool ok = t->kind == TY_LIST ? t->list.item == s : t->kind == TY_TUPLE;
        for (int i = 0; t->kind == TY_TUPLE && i < t->tuple.n; i++)
            ok &= infer_is_text(t->tuple.items[i]);
        if (t->kind == TY_LIST && !t->list.item)
            return NULL;
        if (!ok)
            return arg_error(c, in, a, 1, "a list or tuple of strings");
        if (t->kind == TY_TUPLE) {
            Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(t->tuple.n + 1));
            for (int i = 0; i < t->tuple.n; i++)
                items[i] = s;
            to[1] = ty_tuple(items, t->tuple.n);
        }
        return intrinsic(c, in, bi, a, to, s);
    }
    case BI_STR_STRIP:
    case BI_STR_LSTRIP:
    case BI_STR_RSTRIP:
        if (!want_args(c, in, a, 1, 2) || !str_arg(c, in, a, 0, false, to) ||
            !str_arg(c, in, a, 1, true, to))
            return NULL;
        a->npos = to[1] ? 2 : 1;
        return intrinsic(c, in, bi, a, to, s);
    case BI_STR_REPLACE:
        if (!want_args(c, in, a, 3, 4) || !str_arg(c, in, a, 0, false, to) ||
            !str_arg(c, in, a, 1, false, to) || !str_arg(c, in, a, 2, false, to) ||
            !int_args(c, in, a, 3, 4, all, to))
            return NULL;
        return intrinsic(c, in, bi, a, to, s);
    case BI_STR_LOWER: case BI_STR_UPPER: case BI_STR_CAPITALIZE: case BI_STR_TITLE:
    case BI_STR_SWAPCASE: case BI_STR_CASEFOLD:
        if (!want_args(c, in, a, 1, 1) || !str_arg(c, in, a, 0, false, to))
            return NULL;
        return intrinsic(c, in, bi, a, to, s);
    case BI_STR_ISDIGIT: case BI_STR_ISALPHA: case BI_STR_ISSPACE: case BI_STR_ISALNUM:
    case BI_STR_ISLOWER: case BI_STR_ISUPPER: case BI_STR_ISDECIMAL: case BI_STR_ISNUMERIC:
    case BI_STR_ISIDENTIFIER:
        if (!want_args(c, in, a, 1, 1) || !str_arg(c, in, a, 0, false, to))
            return NULL;
        return intrinsic(c, in, bi, a, to, boolean());
    default:
        return infer_fail(c, in, DIAG_TYPING, "call the operator ([], +, *, in) instead of %s",
                          a->name);
    }
}

/* What print() writes: numbers, strings, None, and on the CPU arrays, lists, dicts, sets (the
 * interpreter formats them: runtime/objmode.c) and tuples of all these. */
static bool printable(Infer *c, Type *t)
{
    bool boxed = t->kind == TY_ARRAY || t->kind == TY_LIST || t->kind == TY_DICT ||
                 t->kind == TY_SET;
    if (boxed && !prog_kernel_code(c->pi->prog))
        return true;   /* an empty one is typed by a later append, or reported as untyped */
    if (t->kind == TY_TUPLE && !prog_kernel_code(c->pi->prog)) {
        for (int i = 0; i < t->tuple.n; i++)
            if (!printable(c, t->tuple.items[i]))
                return false;
        return true;
    }
    return ty_is_scalar(t) || infer_is_text(t) || t->kind == TY_NONE;
}

static Type *print_call(Infer *c, Instr *in, Args *a)
{
    for (int i = 0; i < a->npos; i++) {
        Type *t = a->pos[i]->type;
        if (!printable(c, t))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "print() of %s is not supported in compiled "
                              "code (numbers, strings, None, and on the CPU arrays, lists, dicts, "
                              "sets and tuples are)", infer_type_name(t));
    }
    Type *to[MAX_ARGS];
    for (int i = 0; i < a->npos; i++)
        to[i] = ty_is_scalar(a->pos[i]->type) ? ty_strong(a->pos[i]->type) : NULL;
    return intrinsic(c, in, BI_PRINT, a, to, ty_scalar(TY_NONE));
}

/* ---- constructors ------------------------------------------------------------------------ */

/* int(x), float(x), bool(x), np.float32(x), ...: a CAST (a zero constant without argument). */
static Type *scalar_constructor(Infer *c, Instr *in, Args *a, Type *target)
{
    if (!want_args(c, in, a, 0, 1))
        return NULL;
    if (a->npos == 0) {
        Plan p = {.op = OP_CAST};
        if (c->rewrite)
            plan_arg(&p, infer_const_int(c, in, 0), NULL);
        return apply(c, in, &p, target);
    }
    Type *t = a->pos[0]->type;
    if (target->kind == TY_BOOL && !ty_is_scalar(t) && (t->kind == TY_NONE || t->kind == TY_TUPLE)) {
        bool v = t->kind == TY_TUPLE && t->tuple.n > 0;
        infer_set_known(c, in, v);
        if (c->rewrite)
            infer_make_const_bool(c, in, v);
        return target;
    }
    if (target->kind == TY_BOOL && ty_is_container(t) && !ty_is_undetermined(t)) {
        Plan p = {.op = OP_TRUTH};   /* not empty */
        plan_arg(&p, a->pos[0], NULL);
        return apply(c, in, &p, target);
    }
    if (!ty_is_scalar(t))
        return arg_error(c, in, a, 0, "a number");
    if (ty_is_complex(t) && !ty_is_complex(target) && target->kind != TY_BOOL)
        return infer_fail(c, in, DIAG_TYPING, "cannot convert complex to %s with %s()",
                          target->name, a->name);
    if (target->kind == TY_BOOL && ty_strong(t)->kind != TY_BOOL) {
        Plan p = {.op = OP_TRUTH};
        plan_arg(&p, a->pos[0], NULL);
        return apply(c, in, &p, target);
    }
    Plan p = {.op = OP_CAST};
    plan_arg(&p, a->pos[0], NULL);
    return apply(c, in, &p, target);
}

/* What CPython's float() accepts of a string, for the constant strings compiled code has:
 * surrounding whitespace, a sign, then "inf", "infinity" or "nan" in any case, or a decimal
 * number. False when float() would raise ValueError. */
static bool parse_float_literal(const char *s, double *out)
{
    while (isspace((unsigned char)*s))
        s++;
    double sign = *s == '-' ? -1.0 : 1.0;
    const char *p = s + (*s == '-' || *s == '+');
    size_t n = strlen(p);
    while (n > 0 && isspace((unsigned char)p[n - 1]))
        n--;
    if ((n == 3 && strncasecmp(p, "inf", 3) == 0) || (n == 8 && strncasecmp(p, "infinity", 8) == 0)) {
        *out = sign * HUGE_VAL;
        return true;
    }
    if (n == 3 && strncasecmp(p, "nan", 3) == 0) {
        *out = sign * NAN;
        return true;
    }
    if (n == 0 || strspn(p, "0123456789.eE+-") < n)   /* no hex, no "infinityx" */
        return false;
    char *end;
    *out = strtod(s, &end);
    return end == p + n;
}

/* float("inf") and friends fold to the constant; a string float() cannot parse, or one not
 * known when compiling, is a TypingError here rather than a ValueError at run time. */
static Type *float_of_string(Infer *c, Instr *in, Args *a)
{
    const Const *k = a->pos[0]->type->literal;
    double v;
    if (!k || k->kind != K_STR || !k->s)
        return infer_fail(c, in, DIAG_TYPING, "float() of a string needs a constant string");
    if (!parse_float_literal(k->s, &v))
        return infer_fail(c, in, DIAG_TYPING, "could not convert string to float: '%s'", k->s);
    if (c->rewrite) {
        in->op = OP_CONST;
        in->cst = ir_new_const(c->fn, K_FLOAT);
        in->cst->f = v;
        in->nargs = 0;
        in->nkw = 0;
        in->sub = 0;
    }
    return f64();
}

static Type *complex_call(Infer *c, Instr *in, Args *a)
{
    if (!want_args(c, in, a, 0, 2))
        return NULL;
    if (a->npos == 1 && ty_is_complex(a->pos[0]->type))
        return scalar_constructor(c, in, a, ty_scalar(TY_COMPLEX128));
    if (a->npos == 0)
        return scalar_constructor(c, in, a, ty_scalar(TY_COMPLEX128));
    Type *to[2] = {f64(), f64()};
    for (int i = 0; i < a->npos; i++)
        if (!is_real(a->pos[i]->type))
            return arg_error(c, in, a, i, "a real number");
    return intrinsic(c, in, BI_COMPLEX, a, to, ty_scalar(TY_COMPLEX128));
}

/* ---- arrays ------------------------------------------------------------------------------ */

/* The number of dimensions a shape argument gives (int or tuple of ints); its int64 form. */
static int shape_ndim(Infer *c, Instr *in, Args *a, int i, Type **as)
{
    Type *t = a->pos[i]->type;
    if (is_integral(t)) {
        *as = i64();
        return 1;
    }
    if (t->kind == TY_TUPLE) {
        for (int k = 0; k < t->tuple.n; k++)
            if (!is_integral(t->tuple.items[k])) {
                arg_error(c, in, a, i, "an int or a tuple of ints (a shape)");
                return -1;
            }
        Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(t->tuple.n + 1));
        for (int k = 0; k < t->tuple.n; k++)
            items[k] = i64();
        *as = ty_tuple(items, t->tuple.n);
        return t->tuple.n;
    }
    arg_error(c, in, a, i, "an int or a tuple of ints (a shape)");
    return -1;
}

static Type *finish_dtype_arg(Infer *c, Instr *in, Args *a, Type *scalar, Type **to)
{
    if (a->dtype && scalar && c->rewrite) {
        a->pos[a->npos] = dtype_value(c, in, a->dtype, scalar);
        to[a->npos] = NULL;
        a->npos++;
    }
    return scalar;
}

static Type *array_creation(Infer *c, Instr *in, Builtin bi, Args *a)
{
    bool full = bi == BI_NP_FULL;
    Type *dt, *to[4] = {NULL, NULL, NULL, NULL}, *shape;
    if (!take_dtype(c, in, a, full ? 2 : 1, &dt) || !want_args(c, in, a, full ? 2 : 1, full ? 2 : 1))
        return NULL;
    int ndim = shape_ndim(c, in, a, 0, &shape);
    if (ndim < 0)
        return NULL;
    to[0] = shape;
    if (full) {
        Type *fill = a->pos[1]->type;
        if (!ty_is_scalar(fill))
            return arg_error(c, in, a, 1, "a number");
        if (!dt)
            dt = ty_strong(fill);
        to[1] = dt;
    }
    if (!dt)
        dt = f64();
    if (dt->kind == TY_RECORD && bi != BI_NP_EMPTY && bi != BI_NP_ZEROS)
        return infer_fail(c, in, DIAG_TYPING, "%s() of a structured dtype is not supported "
                          "(np.empty and np.zeros are)", a->name);
    finish_dtype_arg(c, in, a, dt, to);
    return intrinsic(c, in, bi, a, to, ty_array(dt, ndim, 'C', false));
}

static Type *like_creation(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *dt, *to[2] = {NULL, NULL};
    if (!take_dtype(c, in, a, 1, &dt) || !want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type;
    if (t->kind != TY_ARRAY)
        return arg_error(c, in, a, 0, "an array");
    if (!dt)
        dt = t->array.dtype;
    if (dt->kind == TY_RECORD && bi == BI_NP_ONES_LIKE)
        return infer_fail(c, in, DIAG_TYPING, "%s() of a structured dtype is not supported "
                          "(np.empty_like and np.zeros_like are)", a->name);
    finish_dtype_arg(c, in, a, dt, to);
    return intrinsic(c, in, bi, a, to, ty_array(dt, t->array.ndim, 'C', false));
}

static Type *arange_call(Infer *c, Instr *in, Args *a)
{
    Type *dt, *to[4] = {NULL, NULL, NULL, NULL}, *t = NULL;
    if (!take_dtype(c, in, a, 3, &dt) || !want_args(c, in, a, 1, 3))
        return NULL;
    for (int i = 0; i < a->npos; i++) {
        if (!is_real(a->pos[i]->type))
            return arg_error(c, in, a, i, "a real number");
        t = t ? ty_promote(t, a->pos[i]->type) : a->pos[i]->type;
    }
    t = number_for(t);
    for (int i = 0; i < a->npos; i++)
        to[i] = t;
    if (!dt)
        dt = t;
    finish_dtype_arg(c, in, a, dt, to);
    return intrinsic(c, in, BI_NP_ARANGE, a, to, ty_array(dt, 1, 'C', false));
}

static Type *reduction(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type;
    if (t->kind != TY_ARRAY)
        return arg_error(c, in, a, 0, "an array");
    Type *e = t->array.dtype, *r;
    if (!ty_is_scalar(e))   /* records, datetimes */
        return arg_error(c, in, a, 0, "an array of numbers");
    switch (bi) {
    case BI_ARRAY_MEAN:
        r = ty_is_complex(e) ? e : e->kind == TY_FLOAT32 || e->kind == TY_FLOAT16 ? ty_scalar(TY_FLOAT32)
                                                                                   : f64();
        break;
    case BI_ARRAY_MIN: case BI_ARRAY_MAX: case BI_NP_NANMIN: case BI_NP_NANMAX:
    case BI_ARRAY_ARGMIN: case BI_ARRAY_ARGMAX:
        if (ty_is_complex(e))
            return infer_fail(c, in, DIAG_TYPING, "%s() of a complex array is not supported", a->name);
        r = bi == BI_ARRAY_ARGMIN || bi == BI_ARRAY_ARGMAX ? i64() : e;
        break;
    default:
        r = sum_type(e);
    }
    return intrinsic(c, in, bi, a, NULL, r);
}

/* np.min(a) and friends: the array method that computes the same (nanmin and nanmax are their
 * own), so lowering knows one builtin per reduction. */
static Builtin numpy_reduction_as(Builtin bi)
{
    switch (bi) {
    case BI_NP_MIN: case BI_NP_AMIN: return BI_ARRAY_MIN;
    case BI_NP_MAX: case BI_NP_AMAX: return BI_ARRAY_MAX;
    case BI_NP_ARGMIN: return BI_ARRAY_ARGMIN;
    case BI_NP_ARGMAX: return BI_ARRAY_ARGMAX;
    case BI_NP_MEAN: return BI_ARRAY_MEAN;
    case BI_NP_PROD: return BI_ARRAY_PROD;
    default: return bi;
    }
}

static Type *array_method(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *t = a->pos[0]->type, *to[MAX_ARGS] = {NULL};
    switch (bi) {
    case BI_ARRAY_SUM: case BI_ARRAY_MIN: case BI_ARRAY_MAX: case BI_ARRAY_MEAN:
    case BI_ARRAY_PROD: case BI_ARRAY_ARGMIN: case BI_ARRAY_ARGMAX:
        return reduction(c, in, bi, a);
    case BI_ARRAY_COPY:
        return want_args(c, in, a, 1, 1) ? intrinsic(c, in, bi, a, NULL, ty_array(t->array.dtype,
                                           t->array.ndim, 'C', false)) : NULL;
    case BI_ARRAY_RAVEL:
        return want_args(c, in, a, 1, 1) ? intrinsic(c, in, bi, a, NULL, ty_array(t->array.dtype, 1,
                                           'C', t->array.readonly)) : NULL;
    case BI_ARRAY_EXTENT: {
        Type *pair[2] = {i64(), i64()};
        return want_args(c, in, a, 1, 1) ? intrinsic(c, in, bi, a, NULL, ty_tuple(pair, 2)) : NULL;
    }
    case BI_ARRAY_FILL:
        if (!want_args(c, in, a, 2, 2))
            return NULL;
        if (t->array.readonly)
            return infer_fail(c, in, DIAG_TYPING, "array is read-only: fill() cannot write it");
        if (!ty_is_scalar(a->pos[1]->type) || t->array.dtype->kind == TY_RECORD ||
            (ty_is_complex(a->pos[1]->type) && !ty_is_complex(t->array.dtype)))
            return arg_error(c, in, a, 1, ty_is_complex(t->array.dtype) ? "a number" : "a real number");
        to[1] = t->array.dtype;
        return intrinsic(c, in, bi, a, to, ty_scalar(TY_NONE));
    case BI_ARRAY_ASTYPE: {
        Type *dt;
        if (!take_dtype(c, in, a, 1, &dt) || !want_args(c, in, a, 1, 1))
            return NULL;
        if (!dt)
            return infer_fail(c, in, DIAG_TYPING, "astype() needs a dtype");
        if (dt->kind == TY_RECORD || t->array.dtype->kind == TY_RECORD)
            return infer_fail(c, in, DIAG_TYPING, "astype() to or from a structured dtype is "
                              "not supported");
        if ((dt->kind == TY_CHARSEQ || t->array.dtype->kind == TY_CHARSEQ) && dt != t->array.dtype)
            return infer_fail(c, in, DIAG_TYPING, "astype() to or from a unicode dtype is not "
                              "supported in compiled code (read the elements as str)");
        finish_dtype_arg(c, in, a, dt, to);
        return intrinsic(c, in, bi, a, to, ty_array(dt, t->array.ndim, 'C', false));
    }
    default:
        return infer_fail(c, in, DIAG_INTERNAL, "method %s without typing", a->name);
    }
}

/* a.reshape(shape) or a.reshape(d0, d1, ...): the shape as one int64 tuple. */
static Type *reshape_method(Infer *c, Instr *in, Args *a)
{
    Type *t = a->pos[0]->type;
    if (a->npos < 2)
        return infer_fail(c, in, DIAG_TYPING, "reshape() needs a shape");
    int ndim;
    Instr *shape = NULL;
    Type *as;
    if (a->npos == 2) {
        a->npos = 2;
        if ((ndim = shape_ndim(c, in, a, 1, &as)) < 0)
            return NULL;
        if (ndim == 1 && is_integral(a->pos[1]->type))
            as = i64();
        if (c->rewrite)
            shape = infer_coerce(c, in, a->pos[1], as);
    } else {
        ndim = a->npos - 1;
        for (int i = 1; i < a->npos; i++)
            if (!is_integral(a->pos[i]->type))
                return arg_error(c, in, a, i, "an integer");
        if (c->rewrite) {
            Type **items = arena_alloc(c->arena, sizeof *items * (size_t)ndim);
            shape = infer_emit(c, in, OP_BUILD_TUPLE, NULL, ndim);
            for (int i = 0; i < ndim; i++) {
                items[i] = i64();
                shape->args[i] = infer_coerce(c, shape, a->pos[i + 1], i64());
            }
            shape->type = ty_tuple(items, ndim);
        }
    }
    Type *r = ty_array(t->array.dtype, ndim, 'C', t->array.readonly);
    if (c->rewrite) {
        Instr *args[2] = {a->pos[0], shape};
        in->op = OP_INTRINSIC;
        in->sub = BI_ARRAY_RESHAPE;
        infer_set_args(c, in, args, 2);
    }
    return r;
}

/* ---- dispatch over the known functions --------------------------------------------------- */

static bool takes_dtype(Builtin bi)
{
    return keyword_position(bi, "dtype") >= 0;
}

/* NumPy's ufuncs of numbers and 0-d arrays give numbers (np.sqrt(np.array(2.0)) is a float64),
 * as Numba's do: each 0-d array's element stands for it. Typing passes see a value of the
 * element's type that no block holds; the rewrite pass reads the element before the call. */
static void zero_d_arguments(Infer *c, Instr *in, Args *a)
{
    bool any = false;
    for (int i = 0; i < a->npos; i++) {
        Type *t = a->pos[i]->type;
        if (t->kind == TY_ARRAY && (t->array.ndim != 0 || !ty_is_scalar(t->array.dtype)))
            return;
        any |= t->kind == TY_ARRAY;
    }
    for (int i = 0; any && i < a->npos; i++) {
        Type *t = a->pos[i]->type;
        if (t->kind != TY_ARRAY)
            continue;
        Instr *e = c->rewrite ? infer_emit(c, in, OP_ARRAY_GET, t->array.dtype, 1)
                              : ir_new_instr(c->fn, OP_ARRAY_GET, 1, in->line);
        e->type = t->array.dtype;
        e->args[0] = a->pos[i];
        a->pos[i] = e;
    }
}

static Type *call_numpy_math(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (bi != BI_NP_SUM)
        zero_d_arguments(c, in, a);
    switch (bi) {
    case BI_NP_ARCTAN2: case BI_NP_HYPOT:
        return binary_float(c, in, bi, a, true);
    case BI_NP_ABS: case BI_NP_ABSOLUTE: case BI_NP_SIGN:
        return abs_like(c, in, bi, a);
    case BI_NP_POWER:
        return power(c, in, bi, a);
    case BI_NP_ISNAN: case BI_NP_ISINF: case BI_NP_ISFINITE:
        return float_predicate(c, in, bi, a, true);
    case BI_NP_MINIMUM: case BI_NP_MAXIMUM:
        if (a->npos == 2 && (a->pos[0]->type->kind == TY_ARRAY || a->pos[1]->type->kind == TY_ARRAY))
            return np_min_max_arrays(c, in, bi, a);
        return min_max(c, in, bi, a);
    case BI_NP_SUM:
        return reduction(c, in, BI_NP_SUM, a);
    default:
        return unary_float(c, in, bi, a, true);
    }
}

/* ---- np.random ---------------------------------------------------------------------------- */

/* np.random.rand(d0, d1, ...) and randn: no argument gives a float, int arguments an array of
 * that shape; np.random.random(size) takes the shape as one argument. */
static Type *random_array_or_scalar(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *to[MAX_ARGS] = {NULL};
    if (a->npos == 0)
        return intrinsic(c, in, bi, a, NULL, f64());
    if (bi == BI_NP_RANDOM_RANDOM) {
        if (!want_args(c, in, a, 0, 1))
            return NULL;
        if (a->pos[0]->type->kind == TY_NONE)
            return infer_fail(c, in, DIAG_UNSUPPORTED, "%s(None) is not supported; call it "
                              "without an argument", a->name);
        int ndim = shape_ndim(c, in, a, 0, &to[0]);
        return ndim < 0 ? NULL : intrinsic(c, in, bi, a, to, ty_array(f64(), ndim, 'C', false));
    }
    if (a->npos > ABI_MAX_NDIM)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%s() with more than %d dimensions", a->name,
                          ABI_MAX_NDIM);
    for (int i = 0; i < a->npos; i++) {
        if (!is_integral(a->pos[i]->type))
            return arg_error(c, in, a, i, "an int");
        to[i] = i64();
    }
    return intrinsic(c, in, bi, a, to, ty_array(f64(), a->npos, 'C', false));
}

/* seed(n), randint(lo[, hi]) take ints; uniform and normal take up to two real numbers, which
 * lowering fills in with the defaults (0, 1) when absent. */
static Type *random_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *to[MAX_ARGS] = {NULL};
    bool ints = bi == BI_NP_RANDOM_SEED || bi == BI_NP_RANDOM_RANDINT;
    switch (bi) {
    case BI_NP_RANDOM_RANDOM: case BI_NP_RANDOM_RAND: case BI_NP_RANDOM_RANDN:
        return random_array_or_scalar(c, in, bi, a);
    case BI_NP_RANDOM_SEED:
        if (!want_args(c, in, a, 1, 1))
            return NULL;
        break;
    case BI_NP_RANDOM_RANDINT:
        if (!want_args(c, in, a, 1, 2))
            return NULL;
        break;
    case BI_NP_RANDOM_STANDARD_EXPONENTIAL: case BI_NP_RANDOM_STANDARD_GAMMA:
    case BI_NP_RANDOM_BETA: case BI_NP_RANDOM_BINOMIAL: {
        int n = bi == BI_NP_RANDOM_STANDARD_EXPONENTIAL ? 0 : bi == BI_NP_RANDOM_STANDARD_GAMMA ? 1 : 2;
        if (!want_args(c, in, a, n, n))
            return NULL;
        break;
    }
    case BI_NP_RANDOM_POISSON:
        if (!want_args(c, in, a, 0, 1))
            return NULL;
        break;
    default:
        if (!want_args(c, in, a, 0, 2))
            return NULL;
    }
    for (int i = 0; i < a->npos; i++) {
        bool want_int = ints || (bi == BI_NP_RANDOM_BINOMIAL && i == 0);
        if (want_int ? !is_integral(a->pos[i]->type) : !is_real(a->pos[i]->type))
            return arg_error(c, in, a, i, want_int ? "an int" : "a real number");
        to[i] = want_int ? i64() : f64();
    }
    bool int_result = ints || bi == BI_NP_RANDOM_POISSON || bi == BI_NP_RANDOM_BINOMIAL;
    Type *ret = bi == BI_NP_RANDOM_SEED ? ty_scalar(TY_NONE) : int_result ? i64() : f64();
    return intrinsic(c, in, bi, a, to, ret);
}

/* ---- np.dot and @ ------------------------------------------------------------------------- */

/* The operands are in->args[0] and in->args[1] (a CALL's were moved there by the caller). */
Type *infer_dot(Infer *c, Instr *in)
{
    Type *a = in->args[0]->type, *b = in->args[1]->type;
    if (a->kind != TY_ARRAY || b->kind != TY_ARRAY || a->array.ndim < 1 || a->array.ndim > 2 ||
        b->array.ndim < 1 || b->array.ndim > 2)
        return infer_fail(c, in, DIAG_TYPING, "np.dot() and @ need two arrays of 1 or 2 dimensions, "
                          "not %s and %s", infer_type_name(a), infer_type_name(b));
    Type *e = ty_promote(a->array.dtype, b->array.dtype);
    if (!e || !(ty_is_int(e) || ty_is_float(e) || ty_is_complex(e)))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "np.dot() and @ of %s and %s arrays are not "
                          "supported (int, float and complex dtypes are)", infer_type_name(a->array.dtype),
                          infer_type_name(b->array.dtype));
    e = ty_strong(e);
    int nd = a->array.ndim + b->array.ndim - 2;
    if (c->rewrite) {
        Instr *args[2] = {in->args[0], in->args[1]};
        in->op = OP_INTRINSIC;
        in->sub = BI_NP_DOT;
        infer_set_args(c, in, args, 2);
    }
    return nd == 0 ? e : ty_array(e, nd, 'C', false);
}

static Type *dot_call(Infer *c, Instr *in, Args *a)
{
    if (!want_args(c, in, a, 2, 2))
        return NULL;
    if (c->rewrite) {
        infer_set_args(c, in, a->pos, 2);
        return infer_dot(c, in);
    }
    /* typing pass: the operands where infer_dot looks for them, then the call as it was */
    Instr *saved[2] = {in->args[0], in->args[1]};
    in->args[0] = a->pos[0];
    in->args[1] = a->pos[1];
    Type *t = infer_dot(c, in);
    in->args[0] = saved[0];
    in->args[1] = saved[1];
    return t;
}

/* ---- LAPACK (pyjit/lib/numpy_linalg.py's, through runtime/linalg.c) ---------------------- */

/* Arrays (their data goes to LAPACK), ints (as int64) and floats (as float64); the first array
 * is of a float or complex dtype, whose kind the runtime function is called with. */
static Type *lapack_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *to[MAX_ARGS];
    bool kind_seen = false;
    for (int i = 0; i < a->npos; i++) {
        Type *t = a->pos[i]->type;
        to[i] = NULL;
        if (t->kind == TY_ARRAY && !kind_seen) {
            kind_seen = true;
            if (!ty_is_float(t->array.dtype) && !ty_is_complex(t->array.dtype))
                return arg_error(c, in, a, i, "an array of floats or complex numbers");
        } else if (t->kind != TY_ARRAY) {
            if (!is_real(t))
                return arg_error(c, in, a, i, "an array or a real number");
            to[i] = is_integral(t) ? i64() : f64();
        }
    }
    if (!kind_seen)
        return infer_fail(c, in, DIAG_TYPING, "%s() needs an array", a->name);
    return intrinsic(c, in, bi, a, to, i64());
}

/* ---- where, cumsum, linspace, std, var ---------------------------------------------------- */

/* np.where(cond, x, y): elementwise, scalars broadcast; the result has x's and y's promoted type. */
static Type *where_call(Infer *c, Instr *in, Args *a)
{
    if (!want_args(c, in, a, 3, 3))
        return NULL;
    int nd = -1;   /* no array yet */
    for (int i = 0; i < 3; i++) {
        Type *t = a->pos[i]->type;
        if (t->kind == TY_ARRAY ? !ty_is_scalar(t->array.dtype) : !ty_is_scalar(t))
            return arg_error(c, in, a, i, "an array or a number");
        if (t->kind == TY_ARRAY && t->array.ndim > nd)
            nd = t->array.ndim;
    }
    if (nd < 0)
        nd = 0;   /* numbers only: a 0-d array, as NumPy's */
    Type *x = a->pos[1]->type, *y = a->pos[2]->type;
    Type *e = ty_promote(x->kind == TY_ARRAY ? x->array.dtype : x, y->kind == TY_ARRAY ? y->array.dtype : y);
    if (!e)
        return arg_error(c, in, a, 2, "of a type that combines with the second argument's");
    e = ty_strong(e);
    Type *to[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++)
        if (a->pos[i]->type->kind != TY_ARRAY)
            to[i] = i == 0 ? ty_strong(a->pos[i]->type) : e;
    return intrinsic(c, in, BI_NP_WHERE, a, to, ty_array(e, nd, 'C', false));
}

static Type *linspace_call(Infer *c, Instr *in, Args *a)
{
    if (!want_args(c, in, a, 2, 3))
        return NULL;
    Type *to[3] = {f64(), f64(), i64()};
    for (int i = 0; i < a->npos; i++)
        if (i < 2 ? !is_real(a->pos[i]->type) : !is_integral(a->pos[i]->type))
            return arg_error(c, in, a, i, i < 2 ? "a real number" : "an int");
    if (a->npos == 2 && c->rewrite)
        a->pos[a->npos++] = infer_const_int(c, in, 50);
    return intrinsic(c, in, BI_NP_LINSPACE, a, to, ty_array(f64(), 1, 'C', false));
}

/* The one array argument of cumsum, std and var; std and var want real ones. */
static Type *one_array(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type;
    if (t->kind != TY_ARRAY)
        return arg_error(c, in, a, 0, "an array");
    Type *e = t->array.dtype;
    if (!ty_is_scalar(e) ||
        (bi != BI_NP_CUMSUM && bi != BI_ARRAY_CUMSUM && (ty_is_complex(e) || e->kind == TY_FLOAT16)))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%s() of a %s array is not supported", a->name,
                          infer_type_name(e));
    return t;
}

static Type *array_more(Infer *c, Instr *in, Builtin bi, Args *a)
{
    switch (bi) {
    case BI_NP_WHERE: return where_call(c, in, a);
    case BI_NP_LINSPACE: return linspace_call(c, in, a);
    default: break;
    }
    Type *t = one_array(c, in, bi, a);
    if (!t)
        return NULL;
    Type *e = t->array.dtype;
    switch (bi) {
    case BI_NP_CUMSUM: case BI_ARRAY_CUMSUM:
        return intrinsic(c, in, BI_NP_CUMSUM, a, NULL, ty_array(sum_type(e), 1, 'C', false));
    default:   /* std, var */
        return intrinsic(c, in, bi == BI_NP_STD || bi == BI_ARRAY_STD ? BI_NP_STD : BI_NP_VAR, a, NULL,
                         e->kind == TY_FLOAT32 ? e : f64());
    }
}

/* ---- sort, argsort, partition, argpartition (runtime/sort.c) ------------------------------ */

static const char *const sort_kinds[] = {"quicksort", "mergesort", "heapsort", "stable"};

/* kind= is checked and dropped: every kind gives a valid answer (argsort is always stable). */
static bool check_sort_kind(Infer *c, Instr *in, Instr *kind)
{
    if (!kind || kind->type->kind == TY_NONE)
        return true;
    const char *s = kind->type->kind == TY_STRING && kind->type->literal ? kind->type->literal->s : NULL;
    for (size_t i = 0; s && i < sizeof sort_kinds / sizeof *sort_kinds; i++)
        if (strcmp(s, sort_kinds[i]) == 0)
            return true;
    return infer_fail(c, in, DIAG_TYPING, "sort kind must be one of 'quicksort', 'mergesort', "
                      "'stable' or 'heapsort', got %s%s%s", s ? "'" : "", s ? s : infer_type_name(kind->type),
                      s ? "'" : "") != NULL;
}

/* The array to sort: bool, int, float (float16 too), complex (NumPy's lexicographic order),
 * datetime64 or timedelta64, of at least one dimension. */
static Type *sortable_array(Infer *c, Instr *in, Args *a)
{
    Type *t = a->pos[0]->type;
    if (t->kind != TY_ARRAY)
        return arg_error(c, in, a, 0, "an array");
    Type *e = t->array.dtype;
    if (!(ty_is_scalar(e) || ty_is_datetime(e)))
        return infer_fail(c, in, DIAG_TYPING, "%s() of a %s array is not supported", a->name,
                          infer_type_name(e));
    if (t->array.ndim == 0)
        return infer_fail(c, in, DIAG_TYPING, "%s() of a 0-d array: axis -1 is out of bounds",
                          a->name);
    return t;
}

/* np.sort(a, axis=-1, kind=None), a.sort(axis=-1, kind=None), np.argsort, a.argsort: the
 * intrinsic's operands are the array and the axis, an int64 (checked at run time to name the
 * last axis) or None (flattened: sort and argsort only). */
static Type *sort_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 1, 3))
        return NULL;
    Type *t = sortable_array(c, in, a);
    if (!t || !check_sort_kind(c, in, a->npos > 2 ? a->pos[2] : NULL))
        return NULL;
    Instr *axis = a->npos > 1 ? a->pos[1] : NULL;
    bool flat = axis && axis->type->kind == TY_NONE;
    if (axis && !flat && !is_integral(axis->type))
        return arg_error(c, in, a, 1, "an int or None");
    Type *to[2] = {NULL, flat ? NULL : i64()}, *ret;
    bool arg = bi == BI_NP_ARGSORT || bi == BI_ARRAY_ARGSORT;
    Type *e = arg ? i64() : t->array.dtype;
    if (bi == BI_ARRAY_SORT) {
        if (flat)
            return infer_fail(c, in, DIAG_TYPING, "a.sort(axis=None) is not supported by NumPy: "
                              "give an integer axis");
        if (t->array.readonly)
            return infer_fail(c, in, DIAG_TYPING, "array is read-only: sort() cannot write it");
        ret = ty_scalar(TY_NONE);
    } else {
        ret = ty_array(e, flat ? 1 : t->array.ndim, 'C', false);
    }
    if (!axis && c->rewrite)
        axis = infer_const_int(c, in, -1);
    a->pos[1] = axis;
    a->npos = 2;
    return intrinsic(c, in, arg ? BI_NP_ARGSORT : bi, a, to, ret);
}

/* np.partition(a, kth), np.argpartition(a, kth): along the last axis, kth an int (negative
 * counts from the end, checked at run time). */
static Type *partition_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 2, 2))
        return NULL;
    Type *t = sortable_array(c, in, a);
    if (!t)
        return NULL;
    if (!is_integral(a->pos[1]->type))
        return arg_error(c, in, a, 1, "an int");
    Type *to[2] = {NULL, i64()};
    Type *e = bi == BI_NP_ARGPARTITION ? i64() : t->array.dtype;
    return intrinsic(c, in, bi, a, to, ty_array(e, t->array.ndim, 'C', false));
}

/* ---- the inference handlers of builtins.def's infer column -------------------------------- */

/* Each takes the call's builtin and its bound arguments; rows of one group share a handler. */
#define BUILTIN(id, pyname, infer, ...) static Type *type_##infer(Infer *c, Instr *in, Builtin bi, Args *a);
#include "compiler/builtins.def"
#undef BUILTIN

static Type *type_math_unary(Infer *c, Instr *in, Builtin bi, Args *a)
{
    return unary_float(c, in, bi, a, false);
}

static Type *type_math_binary(Infer *c, Instr *in, Builtin bi, Args *a)
{
    return binary_float(c, in, bi, a, false);
}

static Type *type_math_log(Infer *c, Instr *in, Builtin bi, Args *a)
{
    return a->npos == 2 ? binary_float(c, in, bi, a, false) : unary_float(c, in, bi, a, false);
}

static Type *type_math_round(Infer *c, Instr *in, Builtin bi, Args *a)
{
    return math_round_to_int(c, in, bi, a);
}

static Type *type_math_predicate(Infer *c, Instr *in, Builtin bi, Args *a)
{
    return float_predicate(c, in, bi, a, false);
}

static Type *type_gcd(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 2, 2))
        return NULL;
    for (int i = 0; i < 2; i++)
        if (!is_integral(a->pos[i]->type))
            return arg_error(c, in, a, i, "an integer");
    Type *to[2] = {i64(), i64()};
    return intrinsic(c, in, bi, a, to, i64());
}

static Type *type_cmath(Infer *c, Instr *in, Builtin bi, Args *a) { return cmath_call(c, in, bi, a); }
static Type *type_abs(Infer *c, Instr *in, Builtin bi, Args *a) { return abs_like(c, in, bi, a); }
static Type *type_min_max(Infer *c, Instr *in, Builtin bi, Args *a) { return min_max(c, in, bi, a); }
static Type *type_power(Infer *c, Instr *in, Builtin bi, Args *a) { return power(c, in, bi, a); }
static Type *type_len(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return len_call(c, in, a); }
static Type *type_complex(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return complex_call(c, in, a); }
static Type *type_round(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return round_call(c, in, a); }
static Type *type_divmod(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return divmod_call(c, in, a); }
static Type *type_range(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return range_call(c, in, a); }
static Type *type_slice(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return slice_call(c, in, a); }
static Type *type_slice_field(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)a;
    return infer_fail(c, in, DIAG_TYPING, "%s is an attribute, not a method", ir_builtin_name(bi) + 7);
}
static Type *type_print(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return print_call(c, in, a); }
static Type *type_arange(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return arange_call(c, in, a); }
static Type *type_sort(Infer *c, Instr *in, Builtin bi, Args *a) { return sort_call(c, in, bi, a); }
static Type *type_partition(Infer *c, Instr *in, Builtin bi, Args *a) { return partition_call(c, in, bi, a); }
static Type *type_dot(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return dot_call(c, in, a); }
static Type *type_lapack(Infer *c, Instr *in, Builtin bi, Args *a) { return lapack_call(c, in, bi, a); }
static Type *type_numpy_math(Infer *c, Instr *in, Builtin bi, Args *a) { return call_numpy_math(c, in, bi, a); }
static Type *type_creation(Infer *c, Instr *in, Builtin bi, Args *a) { return array_creation(c, in, bi, a); }
static Type *type_like(Infer *c, Instr *in, Builtin bi, Args *a) { return like_creation(c, in, bi, a); }
static Type *type_random(Infer *c, Instr *in, Builtin bi, Args *a) { return random_call(c, in, bi, a); }
static Type *type_array_more(Infer *c, Instr *in, Builtin bi, Args *a) { return array_more(c, in, bi, a); }
static Type *type_method(Infer *c, Instr *in, Builtin bi, Args *a) { return array_method(c, in, bi, a); }
static Type *type_list(Infer *c, Instr *in, Builtin bi, Args *a) { return list_call(c, in, bi, a); }
static Type *type_typed_list(Infer *c, Instr *in, Builtin bi, Args *a) { return typed_list_new(c, in, bi, a); }
static Type *type_str(Infer *c, Instr *in, Builtin bi, Args *a) { return str_call(c, in, bi, a); }
static Type *type_dict(Infer *c, Instr *in, Builtin bi, Args *a) { return table_call(c, in, bi, a); }
static Type *type_jitclass(Infer *c, Instr *in, Builtin bi, Args *a)
{
    return infer_class_builtin(c, in, bi, a->pos, a->npos);
}
static Type *type_datetime(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (bi == BI_NP_ISNAT)
        return infer_isnat(c, in, a->pos, a->npos);
    return infer_fail(c, in, DIAG_TYPING, "%s is what compiled code makes of an operator on "
                      "datetimes", ir_builtin_name(bi));
}
static Type *type_record(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)a;
    return infer_record_builtin(c, in, bi);
}
static Type *type_ffi(Infer *c, Instr *in, Builtin bi, Args *a) { return infer_carray(c, in, bi, a->pos, a->npos, a->dtype); }
static Type *type_reshape(Infer *c, Instr *in, Builtin bi, Args *a) { (void)bi; return reshape_method(c, in, a); }

/* np.lib.stride_tricks.as_strided(x, shape, strides): a view of x's memory; shape and strides
 * are ints or tuples of ints of one length, the view's ndim. Unchecked, as NumPy's is: the
 * library builds its views (transpose(axes), swapaxes, squeeze, ...) on it, and those of another
 * item type (a.view(dtype), np.frombuffer) on pyjit._views.as_strided, which takes a dtype. */
static Type *type_as_strided(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *shape_as, *strides_as, *dtype = NULL;
    if (bi == BI_VIEW_AS_STRIDED && !take_dtype(c, in, a, 3, &dtype))
        return NULL;
    if (!want_args(c, in, a, 3, 3))
        return NULL;
    if (a->pos[0]->type->kind != TY_ARRAY)
        return arg_error(c, in, a, 0, "an array");
    int nd = shape_ndim(c, in, a, 1, &shape_as), ns = nd < 0 ? -1 : shape_ndim(c, in, a, 2, &strides_as);
    if (nd < 0 || ns < 0)
        return NULL;
    if (nd != ns || nd > ABI_MAX_NDIM)
        return infer_fail(c, in, DIAG_TYPING, "as_strided() takes a shape and strides of one length "
                          "(at most %d), got %d and %d", ABI_MAX_NDIM, nd, ns);
    Type *x = a->pos[0]->type;
    Type *r = ty_array(dtype ? dtype : x->array.dtype, nd, 'A', x->array.readonly);
    if (c->rewrite) {
        Instr *args[3] = {a->pos[0], infer_coerce(c, in, a->pos[1], shape_as),
                          infer_coerce(c, in, a->pos[2], strides_as)};
        in->op = OP_INTRINSIC;
        in->sub = bi;
        infer_set_args(c, in, args, 3);
    }
    return r;
}

static Type *type_numpy_reduction(Infer *c, Instr *in, Builtin bi, Args *a)
{
    return reduction(c, in, numpy_reduction_as(bi), a);
}

static Type *type_numpy_type(Infer *c, Instr *in, Builtin bi, Args *a)
{
    return scalar_constructor(c, in, a, scalar_type_named(ir_builtin_name(bi)));
}

static Type *type_int(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;   /* of a float: checked for NaN and infinities when lowered */
    if (a->npos == 1 && infer_is_text(a->pos[0]->type))
        return str_call(c, in, BI_STR_INT, a);
    if (a->npos == 1 && ty_is_float(a->pos[0]->type))
        return want_args(c, in, a, 1, 1) ? intrinsic(c, in, BI_INT, a, NULL, i64()) : NULL;
    return scalar_constructor(c, in, a, i64());
}

static Type *type_float(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    if (a->npos == 1 && a->pos[0]->type->kind == TY_STRING)
        return float_of_string(c, in, a);
    if (a->npos == 1 && a->pos[0]->type->kind == TY_STR)
        return str_call(c, in, BI_STR_FLOAT, a);
    return scalar_constructor(c, in, a, f64());
}

static Type *type_bool(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    Type *t = a->npos == 1 ? a->pos[0]->type : NULL;
    if (t && (t->kind == TY_STR ||                                /* not empty */
              (t->kind == TY_ARRAY && ty_is_scalar(t->array.dtype)))) {   /* its one element */
        Plan p = {.op = OP_TRUTH};
        plan_arg(&p, a->pos[0], NULL);
        return apply(c, in, &p, boolean());
    }
    return scalar_constructor(c, in, a, boolean());
}

static Type *type_iter_call(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 1, bi == BI_ITER ? 1 : 2))
        return NULL;
    if (bi == BI_ITER)
        return infer_iter_call(c, in, a->pos[0]);
    return infer_next_call(c, in, a->pos[0], a->npos > 1 ? a->pos[1] : NULL);
}

static Type *type_iterable(Infer *c, Instr *in, Builtin bi, Args *a)
{
    return infer_iterable_call(c, in, bi == BI_ZIP, a->pos, a->npos);
}

/* np.ndindex(*shape) or np.ndindex(shape): the shape as a tuple of int64, its one operand. */
static Type *ndindex_call(Infer *c, Instr *in, Args *a)
{
    bool tuple = a->npos == 1 && a->pos[0]->type->kind == TY_TUPLE;
    int n = tuple ? a->pos[0]->type->tuple.n : a->npos;
    Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(n + 1));
    for (int k = 0; k < n; k++) {
        Type *t = tuple ? a->pos[0]->type->tuple.items[k] : a->pos[k]->type;
        if (!is_integral(t))
            return infer_fail(c, in, DIAG_TYPING, "np.ndindex() takes a shape (ints, or a tuple "
                              "of ints), not %s", infer_type_name(tuple ? a->pos[0]->type : t));
        items[k] = i64();
    }
    Type *shape = ty_tuple(items, n);
    if (c->rewrite && !tuple) {
        Instr *t = infer_emit(c, in, OP_BUILD_TUPLE, shape, n);
        for (int k = 0; k < n; k++)
            t->args[k] = infer_coerce(c, t, a->pos[k], i64());
        a->pos[0] = t;
        a->npos = 1;
    }
    return intrinsic(c, in, BI_NP_NDINDEX, a, (Type *[]){shape}, ty_nditer(ND_INDEX, shape));
}

/* a.flat, np.ndenumerate(a), np.nditer(a), np.ndindex(shape): values of type TY_NDITER, laid
 * out as what they iterate (infer_items.c types their loops and a.flat[i]). */
static Type *type_nditer(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (bi == BI_NP_NDINDEX)
        return ndindex_call(c, in, a);
    if (bi == BI_FLAT_GETITEM || bi == BI_FLAT_SETITEM || bi == BI_NDITER_ITEM)
        return infer_fail(c, in, DIAG_TYPING, "%s() is called as a.flat[i] or made by a loop", a->name);
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type;
    if (t->kind != TY_ARRAY)
        return arg_error(c, in, a, 0, "an array");
    NditerKind what = bi == BI_ARRAY_FLAT ? ND_FLAT : bi == BI_NP_NDENUMERATE ? ND_ENUMERATE : ND_ITER;
    return intrinsic(c, in, bi, a, NULL, ty_nditer(what, t));
}

static Type *type_unsupported(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    return infer_fail(c, in, DIAG_UNSUPPORTED, "%s() is not supported in compiled code yet", a->name);
}

static Type *type_isinstance(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    return want_args(c, in, a, 2, 2) ? infer_isinstance(c, in, a->pos[0], a->pos[1]) : NULL;
}

/* type(p) of a namedtuple: its class, a K_NAMEDTUPLE constant (infer_records.c). */
static Type *namedtuple_class(Infer *c, Instr *in, Type *t)
{
    Const *k = infer_namedtuple_class_of(c, t);
    if (c->rewrite) {
        in->op = OP_CONST;
        in->cst = k;
        infer_set_args(c, in, NULL, 0);
    }
    return ty_literal(TY_NTCLASS, k);
}

/* type(x) of a number or bool: its scalar type, the constant np.float32 (or int64, float64 for
 * Python's int and float) is, so that type(x)(1) converts 1 to x's type, as in Numba; of a
 * namedtuple, its class, so that type(p)(1, 2) makes another. */
static Type *type_type(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = a->pos[0]->type, *r = NULL;
    if (t->kind == TY_TUPLE && t->tuple.cls && !ty_is_closure(t))
        return namedtuple_class(c, in, t);
    if (ty_is_scalar(t) && t->kind != TY_FLOAT16)
        r = infer_dtype_type(ty_dtype(t));
    if (!r)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "type() takes a number or a bool in compiled "
                          "code (type(x)(1) converts to x's type), not %s", infer_type_name(t));
    return r;
}

/* Whether obj has the attribute `name` as compiled code types it: obj.name typed on the side,
 * its error (if any) taken back. 1 yes, 0 no, -1 not known yet. */
static int has_attribute(Infer *c, Instr *in, Instr *obj, const char *name)
{
    if (ty_is_undetermined(obj->type))
        return -1;
    Diag saved = *c->diag;
    if (saved.kind != DIAG_NONE)
        return -1;
    Instr **args = arena_alloc(c->arena, sizeof *args);
    args[0] = obj;
    Instr probe = *in;
    probe.op = OP_GETATTR;
    probe.name = name;
    probe.args = args;
    probe.nargs = 1;
    probe.nkw = 0;
    bool rewrite = c->rewrite;
    c->rewrite = false;
    Type *t = infer_getattr(c, &probe);
    c->rewrite = rewrite;
    if (t)
        return 1;
    if (c->diag->kind == DIAG_NONE)
        return -1;
    *c->diag = saved;
    return 0;
}

/* hasattr(obj, "name"), a constant as Numba has it; getattr(obj, "name") is obj.name, and
 * getattr(obj, "name", default) obj.name where obj has it, else default. The name must be a
 * constant string. */
static Type *type_attribute(Infer *c, Instr *in, Builtin bi, Args *a)
{
    bool get = bi == BI_GETATTR;
    if (!want_args(c, in, a, 2, get ? 3 : 2))
        return NULL;
    const Const *k = a->pos[1]->type->literal;
    if (a->pos[1]->type->kind != TY_STRING || !k || k->kind != K_STR || !k->s)
        return infer_fail(c, in, DIAG_TYPING, "%s() in compiled code takes the attribute's name as "
                          "a constant string, not %s", a->name, infer_type_name(a->pos[1]->type));
    Instr *obj = a->pos[0];
    int has = get && a->npos == 2 ? 1 : has_attribute(c, in, obj, k->s);
    if (has < 0)
        return NULL;
    if (!get) {
        infer_set_known(c, in, has);
        if (c->rewrite)
            infer_make_const_bool(c, in, has);
        return ty_scalar(TY_BOOL);
    }
    if (!has) {   /* the default, passed through a one-item tuple */
        Type *d = a->pos[2]->type;
        if (c->rewrite) {
            Instr *pack = infer_emit(c, in, OP_BUILD_TUPLE, ty_tuple(&d, 1), 1);
            pack->args[0] = a->pos[2];
            in->op = OP_STATIC_GET;
            in->imm = 0;
            in->nkw = 0;
            infer_set_args(c, in, &pack, 1);
        }
        return d;
    }
    Instr **args = arena_alloc(c->arena, sizeof *args);
    args[0] = obj;
    in->op = OP_GETATTR;   /* in every pass: the same attribute */
    in->name = k->s;
    in->nkw = 0;
    in->args = args;
    in->nargs = 1;
    return infer_getattr(c, in);
}

/* numba.np.unsafe.ndarray.to_fixed_tuple(a, n): the tuple of a[0], ..., a[n - 1], n known when
 * compiling (a constant, or an array's ndim); the items are read unchecked, as in Numba. */
static Type *type_to_fixed_tuple(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    if (!want_args(c, in, a, 2, 2))
        return NULL;
    Instr *arr = a->pos[0], *len = a->pos[1];
    int64_t n;
    if (arr->type->kind != TY_ARRAY || arr->type->array.ndim != 1)
        return arg_error(c, in, a, 0, "a 1-d array");
    bool ndim = len->nargs == 1 && len->args[0]->type->kind == TY_ARRAY &&
                ((len->op == OP_GETATTR && strcmp(len->name, "ndim") == 0) ||
                 (len->op == OP_ARRAY_ATTR && len->sub == AA_NDIM));
    if (ndim)
        n = len->args[0]->type->array.ndim;
    else if (!infer_const_index(len, &n))
        return infer_fail(c, in, DIAG_TYPING, "to_fixed_tuple() needs its length known when "
                          "compiling (a constant, or an array's ndim), not a %s value",
                          infer_type_name(len->type));
    if (n < 0 || n > 1024)
        return infer_fail(c, in, DIAG_VALUE_ERROR, "to_fixed_tuple() of %lld items: the length "
                          "must be from 0 to 1024", (long long)n);
    Type *item = arr->type->array.dtype;
    Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        items[i] = item;
    Type *t = ty_tuple(items, (int)n);
    if (c->rewrite) {
        Instr **vals = arena_alloc(c->arena, sizeof *vals * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++) {
            vals[i] = infer_emit(c, in, OP_ARRAY_GET, item, 2);
            vals[i]->args[0] = arr;
            vals[i]->args[1] = infer_const_int(c, vals[i], i);
        }
        in->op = OP_BUILD_TUPLE;
        in->nkw = 0;
        infer_set_args(c, in, vals, (int)n);
    }
    return t;
}

/* kernel_code(): a constant, true where this function is compiled as GPU kernel code (for the
 * GPU or the CPU simulator). Library code branches on it to allocate on the host only, and
 * inference types just the branch taken. */
static Type *type_kernel_code(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    if (!want_args(c, in, a, 0, 0))
        return NULL;
    bool v = prog_kernel_code(c->pi->prog);
    infer_set_known(c, in, v);
    if (c->rewrite)
        infer_make_const_bool(c, in, v);
    return ty_scalar(TY_BOOL);
}

/* literal_unroll(t) is t: a loop over it is unrolled when its items differ in type (GETITER). */
static Type *type_literal_unroll(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Instr *t = a->pos[0];
    if (t->type->kind != TY_TUPLE)
        return arg_error(c, in, a, 0, "a tuple");
    if (c->rewrite) {   /* the same tuple, rebuilt from its items (a value, not a call) */
        Instr **items = arena_alloc(c->arena, sizeof *items * (size_t)(t->type->tuple.n + 1));
        for (int i = 0; i < t->type->tuple.n; i++) {
            items[i] = infer_emit(c, in, OP_STATIC_GET, t->type->tuple.items[i], 1);
            items[i]->args[0] = t;
            items[i]->imm = i;
        }
        in->op = OP_BUILD_TUPLE;
        infer_set_args(c, in, items, t->type->tuple.n);
    }
    return t->type;
}

/* literally(x): x, whose value is known when compiling (a constant, an argument compiled for
 * one value), and the call becomes that constant. An argument of this function that is not
 * asks for its value (DIAG_LITERAL): the function is compiled again for the value its caller
 * passes (call_jit), or the dispatcher for the value given, as Numba does. */
static Type *type_literally(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Instr *x = a->pos[0];
    const Const *v = infer_known_value(x);
    if (!v && x->op == OP_ARG) {
        const char *name = c->fn->argnames ? c->fn->argnames[x->imm] : "?";
        infer_fail(c, in, DIAG_LITERAL, "literally(%s) asks for a version of %s for each value "
                   "of its argument '%s', which a function compiled for declared signatures or a "
                   "cfunc cannot have", name, c->fn->name, name);
        c->diag->literal_arg = (int)x->imm;
        c->diag->literal_shape = 0;
        return NULL;
    }
    if (!v)
        return infer_fail(c, in, DIAG_TYPING, "literally() takes an int, bool or str constant, "
                          "or an argument of %s (compiled for each of its values); this %s is "
                          "computed at run time", c->fn->name, infer_type_name(x->type));
    /* a constant from now on, as the code had written it: the uses typed after it (a tuple's
     * index, an overload's argument) see the value */
    Type *t = x->type;
    in->op = OP_CONST;
    in->cst = (Const *)v;
    infer_set_args(c, in, NULL, 0);
    return t;
}

static Type *type_parfor(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    return infer_parfor(c, in, a->pos, a->npos);
}

static Type *type_conjugate(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *z = ty_strong(a->pos[0]->type);
    return intrinsic(c, in, bi, a, &z, z);
}

typedef Type *(*InferBuiltinFn)(Infer *c, Instr *in, Builtin bi, Args *a);

static const InferBuiltinFn infer_handlers[BI__COUNT] = {
#define BUILTIN(id, pyname, infer, ...) [id] = type_##infer,
#include "compiler/builtins.def"
#undef BUILTIN
};

/* The where column, checked for every call and every value builtin (gpu.threadIdx.x): false,
 * with the error, when bi cannot be used where this function is compiled. */
static bool where_ok(Infer *c, Instr *in, Builtin bi, const char *name, const char *parens)
{
    BuiltinWhere where = ir_builtin_where(bi);
    if (prog_kernel_code(c->pi->prog) && !(where & BI_DEVICE)) {   /* host runtime calls */
        infer_fail(c, in, DIAG_UNSUPPORTED, "%s%s is not supported in GPU kernels", name, parens);
        return false;
    }
    if (!prog_kernel_code(c->pi->prog) && !(where & BI_HOST)) {
        infer_fail(c, in, DIAG_TYPING, "%s%s can only be used in a GPU kernel or device function "
                   "(@gpu.jit)", name, parens);
        return false;
    }
    return true;
}

static Type *call_builtin(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!where_ok(c, in, bi, a->name, "()"))
        return NULL;
    return infer_handlers[bi](c, in, bi, a);
}

/* The literal type of a value known when compiling (an int, bool or string constant), for a
 * parameter compiled for that value; NULL for any other. */
static Type *literal_type_of(const Const *v)
{
    if (!v || v->array_type)   /* a datetime64 constant's count is no Python int */
        return NULL;
    switch (v->kind) {
    case K_INT: return ty_int_literal(v->i);
    case K_BOOL: return ty_bool_literal(v->b);
    case K_STR: return v->s ? ty_str_literal(v->s) : NULL;
    default: return NULL;
    }
}

const Const *infer_known_value(const Instr *x)
{
    for (int depth = 0; x && depth < 64; depth++) {
        if (x->op == OP_CONST)   /* (a string made a run-time str is passed as one) */
            return x->cst && literal_type_of(x->cst) &&
                   !(x->type && x->type->kind == TY_STR) ? x->cst : NULL;
        Type *ft = x->op == OP_CALL && x->nargs == 2 && !x->nkw ? x->args[0]->type : NULL;
        const Const *f = ft && ft->kind == TY_FUNCTION ? ft->literal : NULL;
        if (!f || !f->name || strcmp(f->name, "pyjit.literally") != 0)
            return NULL;
        x = x->args[1];   /* literally(x), not rewritten yet */
    }
    return NULL;
}

static Type *call_jit(Infer *c, Instr *in, const Const *k);
static Type *call_jit_literal(Infer *c, Instr *in, const Const *k, bool literal);

/* The argument types of a call, for a typing function or a message. */
static const char *call_signature(Infer *c, Instr *in)
{
    char *s = arena_strdup(c->arena, "");
    for (int i = 1; i < in->nargs; i++) {
        int kw = i - (in->nargs - in->nkw);
        s = arena_printf(c->arena, "%s%s%s%s%s", s, i > 1 ? ", " : "",
                         kw >= 0 && in->kwnames ? in->kwnames[kw] : "", kw >= 0 ? "=" : "",
                         infer_type_name(in->args[i]->type));
    }
    return s;
}

/* A function with pyjit.extending.overload implementations: the host runs its typing functions
 * on the argument types, and the implementation chosen is called like another @njit function.
 * *declined when every typing function declined (the builtin of the same name may serve). */
static Type *call_overload(Infer *c, Instr *in, const Const *k, bool *declined)
{
    const CompilerHost *host = c->pi->prog->host;
    /* the arguments as written: an implementation taking *args had the trailing positional ones
     * gathered into a tuple (pack_varargs, imm2 of a call), and the typing functions take them
     * one by one; a library call made of another instruction (a, b = lst) keeps that one's imm2 */
    Instr *packed = in->op == OP_CALL && in->imm2 == 1 && in->nargs - in->nkw > 1 ?
                    in->args[in->nargs - in->nkw - 1] : NULL;
    if (packed && packed->op != OP_BUILD_TUPLE)
        packed = NULL;
    int n = in->nargs - 1 + (packed ? packed->nargs - 1 : 0);
    Instr **written = arena_alloc(c->arena, sizeof *written * (size_t)(n + 1));
    for (int i = 1, w = 0; i < in->nargs; i++) {
        if (in->args[i] != packed)
            written[w++] = in->args[i];
        for (int j = 0; in->args[i] == packed && j < packed->nargs; j++)
            written[w++] = packed->args[j];
    }
    Type **types = arena_alloc(c->arena, sizeof *types * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        Instr *arg = written[i];
        types[i] = arg->type;
        if (!types[i] || types[i]->kind == TY_UNDEFINED || !infer_is_complete(types[i]))
            return NULL;   /* not typed yet */
        Type *lit = literal_type_of(infer_known_value(arg));   /* keepdims=True, axes=2 */
        types[i] = lit ? lit : types[i];
    }
    void *impl = NULL;
    const char *why = NULL;
    bool literal = false;
    int rc = host && host->resolve_overload
                 ? host->resolve_overload(host->ctx, k->handle, types, n, in->kwnames, in->nkw,
                                          c->arena, &impl, &literal, &why)
                 : 0;
    if (rc < 0)
        return infer_fail(c, in, DIAG_TYPING, "%s", why ? why : "overload resolution failed");
    if (rc == 0) {
        *declined = true;
        return NULL;
    }
    Const *callee = arena_alloc(c->arena, sizeof *callee);
    callee->kind = K_DISPATCHER;
    callee->handle = impl;
    callee->name = k->name;
    return call_jit_literal(c, in, callee, literal);
}
/* The empty list literals nested in `list` (np.array([[], []])): every one at the same depth,
 * each level a BUILD_LIST of BUILD_LISTs; their items take item, and each level above a list of
 * the level below. False where the nesting is not of that form or the lists are typed already. */
static bool type_empty_nest(Infer *c, Instr *list, Type *item, int depth)
{
    if (!list || list->op != OP_BUILD_LIST || list->id >= c->nknown || c->list_items[list->id] ||
        depth > 32)
        return false;
    if (list->nargs == 0) {
        if (!list->type || list->type->kind != TY_LIST || list->type->list.item)
            return false;
        c->list_items[list->id] = item;
        return true;
    }
    if (depth == 0 || list->type)
        return false;
    Type *inner = item;
    for (int d = 1; d < depth; d++)
        inner = ty_list(inner);
    for (int i = 0; i < list->nargs; i++)
        if (!type_empty_nest(c, list->args[i], item, depth - 1))
            return false;
    c->list_items[list->id] = ty_list(inner);
    return true;
}

/* How deep the first path of nested list literals from list goes to an empty one. */
static int empty_nest_depth(const Instr *list)
{
    int depth = 0;
    while (list && list->op == OP_BUILD_LIST && list->nargs > 0 && depth < 32) {
        list = list->args[0];
        depth++;
    }
    return list && list->op == OP_BUILD_LIST ? depth : -1;
}

/* np.array([]), np.array([[], []]) and np.array([], dtype=d): the empty list literals' items
 * take d (float64 without one), as NumPy makes an empty array of that dtype; without this the
 * lists' item types would be unknown. A list used elsewhere too (`b = []`, appends on a branch
 * not yet reached, then np.array(b)) takes them only once the rounds have converged with its
 * items still unknown: its appends type it first. True when it set them or waits (another round
 * of inference follows). */
static bool type_empty_list(Infer *c, Instr *in)
{
    int npos = in->nargs - in->nkw;
    Instr *list = npos > 1 ? in->args[1] : NULL;
    int depth = empty_nest_depth(list);
    if (depth < 0 || (depth == 0 && (!list->type || list->type->kind != TY_LIST ||
                                     list->type->list.item)))
        return false;
    Instr *dtype = npos > 2 ? in->args[2] : NULL;
    for (int k = 0; k < in->nkw; k++)
        if (in->kwnames && strcmp(in->kwnames[k], "dtype") == 0)
            dtype = in->args[npos + k];
    if (!c->lists_final && !infer_used_once(c, list)) {
        c->lists_wait = true;
        return true;
    }
    Type *item = ty_scalar(TY_FLOAT64);
    if (dtype && dtype->type && dtype->type->kind != TY_NONE) {
        Type *d = infer_dtype_of(c, dtype);
        if (!d || !ty_is_scalar(d))
            return false;   /* the overload's own message names the dtype */
        item = d;
    }
    if (!type_empty_nest(c, list, item, depth))
        return false;
    c->changed = true;
    return true;
}

bool infer_empty_list_arg(Infer *c, Instr *in)
{
    Type *ft = in->nargs > 1 ? in->args[0]->type : NULL;
    const Const *k = ft && ft->kind == TY_FUNCTION ? ft->literal : NULL;
    return k && k->name && (strcmp(k->name, "numpy.array") == 0 ||
                            strcmp(k->name, "numpy.asarray") == 0) &&
           in->args[1]->op == OP_BUILD_LIST && !in->args[1]->type && type_empty_list(c, in);
}


static Type *call_function(Infer *c, Instr *in, const Const *k)
{
    const char *name = k && k->name ? k->name : "?";
    if (k && (k->kind == K_CFUNC || k->kind == K_OBJMODE)) {   /* C, or an objmode block */
        Args a;
        Builtin row = k->kind == K_OBJMODE ? BI_OBJMODE_CALL
                      : k->data ? BI_FFI_CALL : BI_DECLARED_CALL;   /* no address: by name */
        if (!where_ok(c, in, row, name, "()") || !bind_args(c, in, 1, NULL, name, false, &a))
            return NULL;
        return k->kind == K_CFUNC ? infer_c_call(c, in, k, a.pos, a.npos)
                                  : infer_objmode_call(c, in, k, a.pos, a.npos);
    }
    Builtin bi = ir_builtin_lookup(name);
    if (k && (strcmp(name, "numpy.array") == 0 || strcmp(name, "numpy.asarray") == 0) &&
        type_empty_list(c, in))
        return NULL;   /* typed in the next round */
    if (k && k->overloaded) {
        bool declined = false;
        Type *t = call_overload(c, in, k, &declined);
        if (!declined)
            return t;
        if (bi == BI__COUNT)
            return infer_fail(c, in, DIAG_TYPING, "no implementation of %s() accepts the "
                              "argument types (%s)", name, call_signature(c, in));
    }
    if (bi == BI__COUNT && strcmp(name, "builtins.breakpoint") == 0 &&
        prog_kernel_code(c->pi->prog))
        return infer_no_debugger(c, in, "breakpoint()");
    if (bi == BI__COUNT || strncmp(name, "method.", 7) == 0)
        return infer_fail(c, in, DIAG_TYPING, "%s is not supported in compiled code", name);
    Args a;
    if (!bind_args(c, in, 1, NULL, name, takes_dtype(bi), &a))
        return NULL;
    return call_builtin(c, in, bi, &a);
}

/* A method with pyjit.extending.overload_method implementations: resolved as a call of the
 * overloads with the receiver as first argument (the call's operands are that call's while it
 * is typed; the rewrite makes it a CALL_JIT of the implementation). *declined as call_overload. */
static Type *call_method_overload(Infer *c, Instr *in, Instr *callee, void *handle,
                                  const char *pyname, bool *declined)
{
    Instr **args = in->args;
    int nargs = in->nargs;
    Instr **with_self = arena_alloc(c->arena, sizeof *with_self * (size_t)(nargs + 1));
    with_self[0] = callee;
    with_self[1] = callee->args[0];
    memcpy(with_self + 2, args + 1, sizeof *args * (size_t)(nargs - 1));
    in->args = with_self;
    in->nargs = nargs + 1;
    Const k = {.kind = K_FUNC, .handle = handle, .name = pyname + 7, .overloaded = true};
    Type *t = call_overload(c, in, &k, declined);
    if (in->op == OP_CALL) {   /* still the method call: typed only, or declined */
        in->args = args;
        in->nargs = nargs;
    }
    return t;
}

/* The family a method's builtins row and library overloads are named by: method.<family>.<name>. */
static const char *method_family(const Type *self)
{
    switch (self->kind) {
    case TY_ARRAY: return "array";
    case TY_LIST: return "list";
    case TY_DICT: return "dict";
    case TY_SET: return "set";
    case TY_STR: case TY_STRING: return "str";
    case TY_SLICE: return "slice";
    case TY_CLASS: return self->name;   /* each jitclass has its own methods */
    case TY_RNG: return "generator";
    case TY_TUPLE: return "tuple";
    case TY_DTYPE: return "dtype";
    default: return "number";   /* a scalar: x.conjugate(), x.item() */
    }
}

Type *infer_library_call(Infer *c, Instr *in, const char *key, Instr **args, int nargs)
{
    const CompilerHost *host = c->pi->prog->host;
    void *handle = host && host->method_overloads ? host->method_overloads(host->ctx, key) : NULL;
    if (!handle)
        return infer_fail(c, in, DIAG_INTERNAL, "the library's %s is not registered", key + 7);
    Instr **saved = in->args;
    int nsaved = in->nargs;
    Opcode op = in->op;
    Instr **with_callee = arena_alloc(c->arena, sizeof *with_callee * (size_t)(nargs + 1));
    with_callee[0] = args[0];   /* in the callee's slot: read by nothing but messages */
    memcpy(with_callee + 1, args, sizeof *args * (size_t)nargs);
    in->args = with_callee;
    in->nargs = nargs + 1;
    Const k = {.kind = K_FUNC, .handle = handle, .name = key + 7, .overloaded = true};
    bool declined = false;
    Type *t = call_overload(c, in, &k, &declined);
    if (in->op == op) {   /* typed only, or declined */
        in->args = saved;
        in->nargs = nsaved;
    }
    if (declined)
        return infer_fail(c, in, DIAG_TYPING, "no implementation of %s() accepts the argument "
                          "types (%s)", key + 7, call_signature(c, in));
    return t;
}

Type *infer_list_library_call(Infer *c, Instr *in, const char *method, Instr **args, int nargs)
{
    return infer_library_call(c, in, arena_printf(c->arena, "method.list.%s", method), args, nargs);
}

Type *infer_operator_method(Infer *c, Instr *in, const char *method)
{
    Instr **args = in->args;
    Type *self = args[0]->type;
    if (ty_is_undetermined(self) || ty_is_undetermined(args[1]->type))
        return NULL;   /* typed once their items are known */
    const char *pyname = arena_printf(c->arena, "method.%s.%s", method_family(self), method);
    const CompilerHost *host = c->pi->prog->host;
    void *handle = host && host->method_overloads ? host->method_overloads(host->ctx, pyname) : NULL;
    if (!handle)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%s: no %s in compiled code", infer_type_name(self),
                          method);
    Opcode op = in->op;
    Instr **with_self = arena_alloc(c->arena, sizeof *with_self * 3);
    with_self[0] = with_self[1] = args[0];
    with_self[2] = args[1];
    in->args = with_self;
    in->nargs = 3;
    bool declined = false;
    Const k = {.kind = K_FUNC, .handle = handle, .name = pyname + 7, .overloaded = true};
    Type *t = call_overload(c, in, &k, &declined);
    if (in->op == op) {   /* typed only, or declined */
        in->args = args;
        in->nargs = 2;
    }
    if (declined)
        return infer_fail(c, in, DIAG_TYPING, "unsupported operand types: %s and %s",
                          infer_type_name(self), infer_type_name(args[1]->type));
    return t;
}

/* a + b, a < b, ... where pyjit.extending.overload(operator.add) (operator.lt, operator.iadd,
 * ...) has implementations of the user's: a call of them with the two operands, Numba's way of
 * giving a type its operators. *found false when there are none or all decline, so the caller
 * goes on with the built-in operators. */
/* The operator module's name of a binary operator or comparison ("add", "and_", "lt"), or
 * NULL for another instruction. */
static const char *operator_name(const Instr *in)
{
    static const char *const binops[] = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                         "lshift", "rshift", "and_", "or_", "xor", "matmul"};
    static const char *const cmps[] = {"lt", "le", "eq", "ne", "gt", "ge"};
    if (in->op == OP_COMPARE && in->sub <= CMP_GE)
        return cmps[in->sub];
    if (in->op == OP_BINOP && in->sub <= BIN_MATMUL)
        return binops[in->sub];
    return NULL;
}

Type *infer_operator_overload(Infer *c, Instr *in, bool *found)
{
    *found = false;
    const char *name = operator_name(in);
    if (!name)
        return NULL;
    const CompilerHost *host = c->pi->prog->host;
    if (!host || !host->method_overloads)
        return NULL;
    const char *pyname = arena_printf(c->arena, "operator.%s%s",
                                      in->op == OP_BINOP && in->imm ? "i" : "", name);
    void *handle = host->method_overloads(host->ctx, pyname);
    if (!handle && in->op == OP_BINOP && in->imm)   /* a += b falls back on a + b */
        handle = host->method_overloads(host->ctx, arena_printf(c->arena, "operator.%s", name));
    if (!handle)
        return NULL;
    Instr **args = in->args;
    Opcode op = in->op;
    Instr **with_callee = arena_alloc(c->arena, sizeof *with_callee * 3);
    with_callee[0] = with_callee[1] = args[0];
    with_callee[2] = args[1];
    in->args = with_callee;
    in->nargs = 3;
    bool declined = false;
    Const k = {.kind = K_FUNC, .handle = handle, .name = pyname, .overloaded = true};
    Type *t = call_overload(c, in, &k, &declined);
    if (in->op == op) {   /* typed only, or declined */
        in->args = args;
        in->nargs = 2;
    }
    *found = !declined;
    return t;
}

/* ---- namedtuples whose class pyjit's library gives methods (np.polynomial.Polynomial) ---- */

/* The handle of method `name` of t's class, "method.<class name>.<name>" (numpy_polynomial.py
 * registers "method.Polynomial.__call__"), with its key; NULL for a plain tuple or a class
 * without it. */
static void *namedtuple_method(Infer *c, const Type *t, const char *name, const char **key)
{
    if (t->kind != TY_TUPLE || !t->tuple.cls || !t->tuple.cls_name || ty_is_closure(t))
        return NULL;
    const CompilerHost *host = c->pi->prog->host;
    if (!host || !host->method_overloads)
        return NULL;
    *key = arena_printf(c->arena, "method.%s.%s", t->tuple.cls_name, name);
    return host->method_overloads(host->ctx, *key);
}

bool infer_namedtuple_has_method(Infer *c, const Type *t, const char *name)
{
    const char *key;
    return namedtuple_method(c, t, name, &key) != NULL;
}

/* p(x) of such a namedtuple: its class's __call__ with p first. */
static Type *namedtuple_dunder_call(Infer *c, Instr *in)
{
    const char *key;
    if (!namedtuple_method(c, in->args[0]->type, "__call__", &key))
        return infer_fail(c, in, DIAG_TYPING, "%s is not callable", infer_type_name(in->args[0]->type));
    return infer_library_call(c, in, key, in->args, in->nargs);
}

/* a + b, a == b, -a where an operand is such a namedtuple and its class has the dunder method
 * (__add__, or __radd__ of the right operand; __eq__/__ne__ either way round; __neg__, __pos__):
 * a call of it. NULL with *found false where it has none, so the tuple's own operators serve. */
Type *infer_namedtuple_operator(Infer *c, Instr *in, bool *found)
{
    *found = false;
    const char *key, *name;
    Instr *a = in->args[0];
    if (in->op == OP_UNARY) {
        if (in->sub != UN_NEG && in->sub != UN_POS)
            return NULL;
        if (!namedtuple_method(c, a->type, in->sub == UN_NEG ? "__neg__" : "__pos__", &key))
            return NULL;
        *found = true;
        return infer_library_call(c, in, key, &a, 1);
    }
    if (!(name = operator_name(in)))
        return NULL;
    size_t len = strlen(name);
    const char *bare = name[len - 1] == '_' ? arena_printf(c->arena, "%.*s", (int)(len - 1), name)
                                            : name;
    Instr *b = in->args[1];
    bool symmetric = in->op == OP_COMPARE && (in->sub == CMP_EQ || in->sub == CMP_NE);
    Instr *args[2] = {a, b};
    if (!namedtuple_method(c, a->type, arena_printf(c->arena, "__%s__", bare), &key)) {
        const char *reflected = symmetric ? arena_printf(c->arena, "__%s__", bare)
                              : in->op == OP_BINOP ? arena_printf(c->arena, "__r%s__", bare) : NULL;
        if (!reflected || !namedtuple_method(c, b->type, reflected, &key))
            return NULL;
        args[0] = b;
        args[1] = a;
    }
    *found = true;
    return infer_library_call(c, in, key, args, 2);
}

/* obj.name, where pyjit.extending.overload_attribute implements attribute `name` of obj's family
 * ("attr.array.name"): a call of the implementation with obj. NULL with *found false when it has
 * none, so the caller goes on with the built-in attributes. */
Type *infer_attribute_overload(Infer *c, Instr *in, bool *found)
{
    Instr *obj = in->args[0];
    const CompilerHost *host = c->pi->prog->host;
    const char *pyname = arena_printf(c->arena, "attr.%s.%s", method_family(obj->type), in->name);
    void *handle = host && host->method_overloads ? host->method_overloads(host->ctx, pyname) : NULL;
    *found = handle != NULL;
    if (!handle)
        return NULL;
    Instr **with_self = arena_alloc(c->arena, sizeof *with_self * 2);
    with_self[0] = with_self[1] = obj;
    in->args = with_self;
    in->nargs = 2;
    bool declined = false;
    Const k = {.kind = K_FUNC, .handle = handle, .name = pyname + 5, .overloaded = true};
    Opcode op = in->op;
    Type *t = call_overload(c, in, &k, &declined);
    if (in->op == op) {   /* typed only, or declined */
        in->args = with_self + 1;
        in->nargs = 1;
    }
    if (declined)
        return infer_fail(c, in, DIAG_TYPING, "no implementation of attribute %s accepts %s",
                          pyname + 5, infer_type_name(obj->type));
    return t;
}

static Type *call_method(Infer *c, Instr *in, Instr *callee)
{
    Type *mt = callee->type, *self = mt->method.self;
    if (self->kind == TY_TUPLE && callee->op == OP_GETATTR && callee->nargs >= 1 &&
        strcmp(mt->method.name, "_replace") == 0)
        return infer_namedtuple_replace(c, in, callee->args[0]);
    if (self->kind == TY_CLASS && strcmp(mt->method.name, "__setattr__") == 0)
        return infer_class_setattr(c, in, callee->args[0]);
    if (self->kind == TY_RECORD && strcmp(mt->method.name, "__setattr__") == 0)
        return infer_record_setattr(c, in, callee->args[0]);
    char pyname[256];
    snprintf(pyname, sizeof pyname, "method.%s.%s", method_family(self), mt->method.name);
    if (infer_namedtuple_has_method(c, self, mt->method.name))   /* its class's own (Polynomial) */
        snprintf(pyname, sizeof pyname, "method.%s.%s", self->tuple.cls_name, mt->method.name);
    Builtin bi = ir_builtin_lookup(pyname);
    const CompilerHost *host = c->pi->prog->host;
    void *handle = host && host->method_overloads && (self->kind == TY_ARRAY || ty_is_container(self) ||
                                                       self->kind == TY_CLASS || self->kind == TY_RNG ||
                                                       self->kind == TY_TUPLE || ty_is_scalar(self)) &&
                   callee->op == OP_GETATTR && callee->nargs >= 1
                   ? host->method_overloads(host->ctx, pyname) : NULL;
    if (handle) {
        bool declined = false;
        Type *t = call_method_overload(c, in, callee, handle, arena_strdup(c->arena, pyname),
                                       &declined);
        if (!declined)
            return t;
        if (bi == BI__COUNT)
            return infer_fail(c, in, DIAG_TYPING, "no implementation of %s() accepts the "
                              "argument types (%s)", pyname + 7, call_signature(c, in));
    }
    if (bi == BI__COUNT || callee->op != OP_GETATTR || callee->nargs < 1)
        return infer_fail(c, in, DIAG_TYPING, "%s has no method '%s'", infer_type_name(self),
                          mt->method.name);
    Args a;
    if (!bind_args(c, in, 1, callee->args[0], pyname, takes_dtype(bi), &a))
        return NULL;
    return call_builtin(c, in, bi, &a);
}

/* ---- other compiled functions ------------------------------------------------------------ */

/* Binds the call's operands to the callee's parameters, defaults filling the missing ones; a
 * default is returned as NULL in vals with its constant in defs. */
/* A call of a function with *args: its positional arguments past the parameters become one
 * tuple, placed after the other positional arguments (in->imm2 marks the call done). */
static void pack_varargs(Infer *c, Instr *in, IRFunc *ir)
{
    int nfixed = ir->nargs - 1 - ir->nkwonly, npos = in->nargs - in->nkw - 1;
    if (in->imm2)
        return;
    int keep = npos < nfixed ? npos : nfixed, extra = npos - keep;
    Instr *tuple = infer_emit(c, in, OP_BUILD_TUPLE, NULL, extra);
    memcpy(tuple->args, &in->args[1 + keep], sizeof(Instr *) * (size_t)extra);
    Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(in->nargs - extra + 2));
    memcpy(args, in->args, sizeof *args * (size_t)(1 + keep));
    args[1 + keep] = tuple;
    memcpy(&args[2 + keep], &in->args[1 + npos], sizeof *args * (size_t)in->nkw);
    in->args = args;
    in->nargs = in->nargs - extra + 1;
    in->imm2 = 1;
    c->changed = true;   /* the tuple is typed in the next round */
}

static bool bind_jit_args(Infer *c, Instr *in, IRFunc *ir, Instr **vals, const Const **defs)
{
    int npos = in->nargs - in->nkw - 1, n = ir->nargs;
    Instr *packed = NULL;
    if (ir->varargs) {   /* binds the other parameters, then the tuple */
        pack_varargs(c, in, ir);
        npos = in->nargs - in->nkw - 2;
        packed = in->args[npos + 1];
        n--;
        if (!packed->type)
            return false;   /* typed in the next round */
    }
    const char *name = ir->name ? ir->name : "?";
    int npositional = n - ir->nkwonly;   /* the keyword-only parameters come after them */
    if (npos > npositional)
        return infer_fail(c, in, DIAG_TYPING, "%s() takes %d positional %s but %d were given",
                          name, npositional, arg_word(npositional), npos) != NULL;
    for (int i = 0; i < n; i++) {
        vals[i] = i < npos ? in->args[i + 1] : NULL;
        defs[i] = NULL;
    }
    for (int k = 0; k < in->nkw; k++) {
        const char *kw = in->kwnames ? in->kwnames[k] : "?";
        int i = 0;
        while (i < n && !(ir->argnames && strcmp(ir->argnames[i], kw) == 0))
            i++;
        if (i == n)
            return infer_fail(c, in, DIAG_TYPING, "%s() got an unexpected keyword argument '%s'",
                              name, kw) != NULL;
        if (vals[i])
            return infer_fail(c, in, DIAG_TYPING, "%s() got multiple values for argument '%s'",
                              name, kw) != NULL;
        vals[i] = in->args[in->nargs - in->nkw + k];
    }
    for (int i = 0; i < n; i++) {
        int d = i - (npositional - ir->ndefaults);
        if (!vals[i] && i < npositional && d >= 0 && ir->defaults)
            defs[i] = ir->defaults[d];
        else if (!vals[i] && i >= npositional && ir->kwdefaults && ir->kwdefaults[i - npositional])
            defs[i] = ir->kwdefaults[i - npositional];
        else if (!vals[i])
            return infer_fail(c, in, DIAG_TYPING, "%s() missing required argument '%s'", name,
                              ir->argnames ? ir->argnames[i] : "?") != NULL;
    }
    if (packed) {
        vals[n] = packed;
        defs[n] = NULL;
    }
    return true;
}

/* A callee with declared signatures is called as from Python: the arguments are converted to
 * the signature they fit best and the result is its declared return type (the types in params
 * and *declared); a callee without is specialised for the argument types as they are. */
static bool bind_signature(Infer *c, Instr *in, const Const *k, IRFunc *ir, Type **types,
                           Type **params, Type **declared)
{
    const CompilerHost *host = c->pi->prog->host;
    int n = ir->nargs, rc = 0;
    char why[1024] = "";
    *declared = NULL;
    if (host && host->declared_signature)
        rc = host->declared_signature(host->ctx, k->handle, types, n, params, declared, why,
                                      sizeof why);
    if (rc < 0) {
        char *got = arena_strdup(c->arena, "");
        for (int i = 0; i < n; i++)
            got = arena_printf(c->arena, "%s%s%s", got, i ? ", " : "", infer_type_name(types[i]));
        return infer_fail(c, in, DIAG_TYPING, "%s(): no matching definition for argument type(s) "
                          "(%s); its signatures:%s", ir->name, got, why) != NULL;
    }
    if (rc == 0)
        for (int i = 0; i < n; i++)
            params[i] = types[i];
    return true;
}

/* A compile-time constant a compiled function can take as a parameter: a string (side='left'),
 * a dtype or NumPy type (np.array(x, dtype=np.float32) passes it on), a builtin, math or NumPy
 * function (sorted(key=len)), or a function with overload implementations (interpolation's
 * fmap(get_index, ...)), a GPU intrinsic (numba-cuda's tests pass cuda.atomic.add to a device
 * function as binop_func); the callee sees the constant, typed per value, and nothing is passed
 * at run time. Compiled functions and closures are passed as infer_is_passable says. */
static bool is_constant_param(const Type *t)
{
    return t && ((t->kind == TY_STRING && t->literal) || t->kind == TY_DTYPE ||
                 (t->kind == TY_FUNCTION && t->literal && t->literal->overloaded) ||
                 (t->kind == TY_FUNCTION && t->literal && t->literal->name &&
                  (strncmp(t->literal->name, "numpy.", 6) == 0 ||
                   strncmp(t->literal->name, "builtins.", 9) == 0 ||
                   strncmp(t->literal->name, "math.", 5) == 0 ||
                   strncmp(t->literal->name, "gpu.", 4) == 0)));   /* an atomic, this_grid() */
}

/* literally(x) inside the callee asked for the value of its parameter j (DIAG_LITERAL): the
 * callee is specialised again with that parameter's literal type when the value this call
 * passes is known when compiling (a constant, a default), as Numba compiles it again with a
 * literal argument; an argument of this function passed on makes the request this function's,
 * for its own caller (or the dispatcher) to answer; any other value is a TypingError. */
static TypedFunc *specialise_literal(Infer *c, Instr *in, const Const *k, IRFunc *ir,
                                     Instr **vals, const Const **defs, Type **params,
                                     Type **ret)
{
    TypedFunc *tf = NULL;
    for (int tries = 0; !tf && c->diag->kind == DIAG_LITERAL && tries <= ir->nargs; tries++) {
        int j = c->diag->literal_arg;
        if (j < 0 || j >= ir->nargs)
            return NULL;
        const char *pname = ir->argnames ? ir->argnames[j] : "?";
        Type *lit = literal_type_of(vals[j] ? infer_known_value(vals[j]) : defs[j]);
        int shape = c->diag->literal_shape;
        const char *asks = shape ? "sizes a shared or local array by" : "calls literally() on";
        c->diag->kind = DIAG_NONE;
        if (lit && params[j] != lit) {
            params[j] = lit;
            tf = infer_specialise(c, in, k->handle, params, ir->nargs, NULL, ret);
            continue;
        }
        Instr *v = vals[j];
        if (v && v->op == OP_ARG && !lit) {
            const char *vname = c->fn->argnames ? c->fn->argnames[v->imm] : "?";
            if (shape)
                infer_fail(c, in, DIAG_LITERAL, "%s() %s its argument '%s', which is passed "
                           "%s's argument '%s' here: %s needs a version for each value of it; "
                           "pass a constant, or ask for its value with literally(%s) in the "
                           "kernel", ir->name, asks, pname, c->fn->name, vname, c->fn->name,
                           vname);
            else
                infer_fail(c, in, DIAG_LITERAL, "%s() %s its argument '%s', which is passed "
                           "%s's argument '%s' here: %s needs a version for each value of it, "
                           "which a call from a declared signature cannot have", ir->name, asks,
                           pname, c->fn->name, vname, c->fn->name);
            c->diag->literal_arg = (int)v->imm;
            c->diag->literal_shape = shape;
            return NULL;
        }
        return (TypedFunc *)infer_fail(
            c, in, DIAG_TYPING, "%s() %s its argument '%s', so it is compiled for each value of "
            "it, but this call passes %s, whose value is not known when compiling (pass a "
            "constant, or an argument of %s)", ir->name, asks, pname,
            v ? infer_type_name(v->type) : "a default", c->fn->name);
    }
    return tf;
}

static Type *call_jit(Infer *c, Instr *in, const Const *k)
{
    return call_jit_literal(c, in, k, false);
}

/* A call of another compiled function, specialised for the argument types; literal: the
 * arguments known when compiling as literal types (an overload chosen for those). */
static Type *call_jit_literal(Infer *c, Instr *in, const Const *k, bool literal)
{
    if (k->device_only && !prog_kernel_code(c->pi->prog) && k->gpu_kernel)
        return infer_fail(c, in, DIAG_TYPING, "%s is a kernel: kernels are launched from the "
                          "host only; a kernel or device function may call it", k->name ? k->name
                          : "?");
    if (k->device_only && !prog_kernel_code(c->pi->prog))
        return infer_fail(c, in, DIAG_TYPING, "device function '%s' can only be called from a GPU "
                          "kernel or another device function", k->name ? k->name : "?");
    IRFunc *ir = infer_callee_ir(c, in, k->handle);
    if (!ir)
        return NULL;
    int n = ir->nargs;
    Instr **vals = arena_alloc(c->arena, sizeof *vals * (size_t)(n + 1));
    const Const **defs = arena_alloc(c->arena, sizeof *defs * (size_t)(n + 1));
    Type **types = arena_alloc(c->arena, sizeof *types * (size_t)(n + 1));
    if (!bind_jit_args(c, in, ir, vals, defs))
        return NULL;
    for (int i = 0; i < n; i++) {
        /* A Python number (a literal, a default) stays weak in the callee, as in CPython, where
         * it is still a Python int there; its parameter type itself is strong. */
        types[i] = vals[i] ? vals[i]->type : defs[i]->kind == K_STR
                   ? ty_literal(TY_STRING, defs[i]) : infer_const_type(c, defs[i]);
        if (!vals[i] && types[i] && ty_is_scalar(types[i]) && defs[i]->kind != K_BOOL)
            types[i] = ty_weak(types[i]);
        if (!infer_is_complete(types[i]))
            return NULL;   /* a list whose items are not known yet */
        if ((!infer_is_passable(types[i]) && !is_constant_param(types[i])) ||
            ty_is_iterator(types[i]))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "%s passed to %s() as '%s': compiled "
                              "functions take numbers, arrays, tuples and None",
                              vals[i] ? infer_type_name(vals[i]->type) : "this default",
                              ir->name, ir->argnames ? ir->argnames[i] : "?");
    }
    Type **params = arena_alloc(c->arena, sizeof *params * (size_t)(n + 1)), *declared, *ret = NULL;
    if (!bind_signature(c, in, k, ir, types, params, &declared))
        return NULL;
    for (int i = 0; literal && !declared && i < n; i++) {
        Type *lit = vals[i] ? literal_type_of(infer_known_value(vals[i])) : NULL;
        params[i] = lit ? lit : params[i];
    }
    TypedFunc *tf = infer_specialise(c, in, k->handle, params, n, declared, &ret);
    if (!tf && !declared && c->diag->kind == DIAG_LITERAL)
        tf = specialise_literal(c, in, k, ir, vals, defs, params, &ret);
    if (!tf)
        return NULL;
    if (c->rewrite) {
        for (int i = 0; i < n; i++) {
            if (!vals[i]) {
                vals[i] = infer_emit(c, in, OP_CONST, types[i], 0);
                vals[i]->cst = (Const *)defs[i];
            }
            vals[i] = infer_coerce(c, in, vals[i], ty_unliteral(ty_strong(params[i])));
        }
        in->op = OP_CALL_JIT;
        in->callee = tf;
        infer_set_args(c, in, vals, n);
    }
    return ret;
}

/* ValueError("message"): an exception for `raise`; the CALL stays, typed TY_EXCEPTION, its
 * operands the class then the arguments. */
static Type *call_exception(Infer *c, Instr *in)
{
    int slots = 0;   /* numbers travel in ExcInfo's 4 int64 slots (abi.h); a complex takes two */
    for (int i = 1; i < in->nargs; i++) {
        Type *t = in->args[i]->type;
        if (!ty_is_scalar(t) && !infer_is_text(t))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "exception arguments must be strings or "
                              "numbers, not %s", infer_type_name(t));
        slots += ty_is_complex(t) ? 2 : ty_is_scalar(t) || t->kind == TY_STR;
    }
    if (slots > 4)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "an exception raised in compiled code takes at "
                          "most 4 numbers and strings made at run time among its arguments");
    if (in->nkw)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "keyword arguments to an exception");
    if (c->rewrite)
        for (int i = 1; i < in->nargs; i++)
            if (ty_is_scalar(in->args[i]->type))
                in->args[i] = infer_coerce(c, in, in->args[i], ty_strong(in->args[i]->type));
    return ty_literal(TY_EXCEPTION, in->args[0]->cst);
}

/* f(*t) (CALL imm = 1): its operand t, a tuple, becomes one operand per item, STATIC_GETITEMs
 * typed like any other. Done while types are still being found, which is safe because it
 * depends only on the tuple's length, which no later round changes. */
static Type *spread_args(Infer *c, Instr *in)
{
    Instr *t = in->args[1];
    if (in->nargs != 2 || t->type->kind != TY_TUPLE)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "f(*x) is supported with a tuple x in compiled "
                          "code, not %s", infer_type_name(t->type));
    int n = t->type->tuple.n;
    Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(n + 1));
    args[0] = in->args[0];
    for (int i = 0; i < n; i++) {
        args[1 + i] = infer_emit(c, in, OP_STATIC_GETITEM, NULL, 1);
        args[1 + i]->args[0] = t;
        args[1 + i]->imm = i;
        args[1 + i]->imm2 = -1;
    }
    in->imm = 0;
    infer_set_args(c, in, args, n + 1);
    c->changed = true;
    return NULL;   /* typed in the next round, its new operands first */
}

Type *infer_call(Infer *c, Instr *in)
{
    if (in->imm == 1)
        return spread_args(c, in);
    Instr *callee = in->args[0];
    Type *ft = callee->type;
    switch (ft->kind) {
    case TY_FUNCTION:
        return call_function(c, in, ft->literal);
    case TY_BOUND_METHOD:
        return call_method(c, in, callee);
    case TY_DISPATCHER:
        return in->imm == 2 ? infer_make_closure(c, in) : call_jit(c, in, ft->literal);
    case TY_EXCCLASS:
        return call_exception(c, in);
    case TY_NTCLASS:
        return infer_namedtuple_call(c, in);
    case TY_CLASS:   /* obj(...): its __call__ */
        return infer_class_dunder(c, in, "__call__", in->args, in->nargs);
    case TY_FUNCPTR:
        return infer_call_pointer(c, in);
    case TY_TUPLE:
        if (ty_is_closure(ft))
            return infer_call_closure(c, in);
        return namedtuple_dunder_call(c, in);
    case TY_DTYPE: {
        Args a;
        if (!bind_args(c, in, 1, NULL, ft->name, false, &a))
            return NULL;
        return scalar_constructor(c, in, &a, ft->dtype.scalar);
    }
    default:
        return infer_fail(c, in, DIAG_TYPING, "%s is not callable", infer_type_name(ft));
    }
}

/* ---- the GPU kernel language (gpu.*; lowered by lower_gpu.c) ------------------------------- */

/* gpu.shared.array and the other members of the gpu namespaces, as function values: one
 * constant per builtin for the life of the process, so their literal types are interned once. */
static Const gpu_member_consts[BI__COUNT];
static pthread_mutex_t gpu_member_lock = PTHREAD_MUTEX_INITIALIZER;

static Const *gpu_member_const(Builtin bi)
{
    pthread_mutex_lock(&gpu_member_lock);
    Const *k = &gpu_member_consts[bi];
    if (!k->name) {
        k->kind = K_FUNC;
        k->name = ir_builtin_name(bi);
    }
    pthread_mutex_unlock(&gpu_member_lock);
    return k;
}

static Type *gpu_member(Builtin bi)
{
    return ty_literal(TY_FUNCTION, gpu_member_const(bi));
}

/* dtype.type (a.dtype.type(0.0)): the NumPy scalar type of a numeric dtype, as the function
 * value np.float32 is; NULL for a dtype that has none here (records, datetimes). */
Type *infer_dtype_type(Type *dtype)
{
    Type *s = dtype->dtype.scalar;
    if (!s || !ty_is_scalar(s))
        return NULL;
    for (size_t i = 0; i < sizeof scalar_type_names / sizeof *scalar_type_names; i++) {
        if (scalar_type_names[i].kind != s->kind || strncmp(scalar_type_names[i].name, "numpy.", 6))
            continue;
        Builtin bi = ir_builtin_lookup(scalar_type_names[i].name);
        return bi == BI__COUNT ? NULL : gpu_member(bi);
    }
    return NULL;
}

static Type *i32(void) { return ty_scalar(TY_INT32); }
static Type *u32(void) { return ty_scalar(TY_UINT32); }

/* A builtin that is a value (gpu.threadIdx.x, gpu.laneid): in becomes INTRINSIC without args. */
Type *infer_gpu_value(Infer *c, Instr *in, Builtin bi)
{
    if (!where_ok(c, in, bi, ir_builtin_name(bi), ""))
        return NULL;
    if (c->rewrite) {
        in->op = OP_INTRINSIC;
        in->sub = bi;
        infer_set_args(c, in, NULL, 0);
    }
    return i32();
}

static Type *cg_value(Infer *c, Instr *in, Builtin bi);

Type *infer_gpu_getattr(Infer *c, Instr *in, Type *t)
{
    const char *base = t->literal && t->literal->name ? t->literal->name : "?";
    char full[128];
    snprintf(full, sizeof full, "%s.%s", base, in->name);
    Builtin bi = ir_builtin_lookup(full);
    if (bi == BI__COUNT || strncmp(full, "gpu.", 4) != 0)
        return infer_fail(c, in, DIAG_TYPING, "%s has no attribute '%s' in compiled code", base, in->name);
    if (infer_handlers[bi] == type_gpu_value)
        return infer_gpu_value(c, in, bi);
    if (infer_handlers[bi] == type_gpu_cg_value)
        return cg_value(c, in, bi);
    return gpu_member(bi);
}

static Type *gpu_plan(Infer *c, Instr *in, Builtin bi, Instr **args, Type **to, int n, Type *ret)
{
    Plan p = {.op = OP_INTRINSIC, .sub = bi};
    for (int i = 0; i < n; i++)
        plan_arg(&p, args[i], to ? to[i] : NULL);
    return apply(c, in, &p, ret);
}

/* ---- cooperative groups (gpu.cg) ---- */

/* gpu.cg.this_grid() is the grid group: a constant of its own literal type (it holds nothing; its
 * members read the special registers), so `g = this_grid()` becomes that constant, `g.sync()` a
 * call of the GridGroup.sync row and `g.size` the GridGroup.size value. */
static Type *type_gpu_cg(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (bi == BI_GPU_CG_GRID_GROUP)
        return infer_fail(c, in, DIAG_TYPING, "gpu.cg.GridGroup is made by gpu.cg.this_grid(), "
                          "not called");
    if (!want_args(c, in, a, 0, 0))
        return NULL;
    if (bi == BI_GPU_CG_GRID_SYNC)
        return gpu_plan(c, in, bi, NULL, NULL, 0, ty_scalar(TY_NONE));
    Const *group = gpu_member_const(BI_GPU_CG_GRID_GROUP);
    if (c->rewrite) {
        in->op = OP_CONST;
        in->cst = group;
        infer_set_args(c, in, NULL, 0);
    }
    return ty_literal(TY_FUNCTION, group);
}

static Type *type_gpu_cg_value(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    return infer_fail(c, in, DIAG_TYPING, "%s is a value, not a function", a->name);
}

/* g.size: in becomes INTRINSIC without args, an int64. */
static Type *cg_value(Infer *c, Instr *in, Builtin bi)
{
    if (!where_ok(c, in, bi, ir_builtin_name(bi), ""))
        return NULL;
    if (c->rewrite) {
        in->op = OP_INTRINSIC;
        in->sub = bi;
        infer_set_args(c, in, NULL, 0);
    }
    return ty_scalar(TY_INT64);
}

static Type *type_gpu_grid(Infer *c, Instr *in, Builtin bi, Args *a)
{
    int64_t n;
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    if (!infer_const_index(a->pos[0], &n) || n < 1 || n > 3)
        return arg_error(c, in, a, 0, "the constant 1, 2 or 3");
    Type *items[3] = {i64(), i64(), i64()};
    return gpu_plan(c, in, bi, NULL, NULL, 0, n == 1 ? i64() : ty_tuple(items, (int)n));
}

/* The constant shape of a shared or local array: its number of axes, or -1. */
static int gpu_shape_ndim(Instr *s)
{
    int64_t v;
    if (ir_const_int(s, &v))
        return 1;
    if (s->op == OP_CONST && s->cst->kind == K_TUPLE) {
        for (int k = 0; k < s->cst->tuple.n; k++)
            if (s->cst->tuple.items[k]->kind != K_INT)
                return -1;
        return s->cst->tuple.n;
    }
    if (s->op == OP_BUILD_TUPLE) {
        for (int k = 0; k < s->nargs; k++)
            if (!ir_const_int(s->args[k], &v))
                return -1;
        return s->nargs;
    }
    return -1;
}

/* The argument of this function a shared or local array's shape reads (n, or an item of
 * (n, 4)), when the rest of it is constant; NULL otherwise. */
static Instr *shape_param(Instr *s)
{
    if (s->op == OP_ARG && s->type && ty_is_int(ty_strong(s->type)))
        return s;
    if (s->op != OP_BUILD_TUPLE)
        return NULL;
    Instr *found = NULL;
    int64_t v;
    for (int k = 0; k < s->nargs; k++) {
        Instr *p = shape_param(s->args[k]);
        if (p && !found)
            found = p;
        else if (!p && !ir_const_int(s->args[k], &v))
            return NULL;
    }
    return found;
}

static Type *type_gpu_new_array(Infer *c, Instr *in, Builtin bi, Args *a)
{
    Type *scalar;
    if (!take_dtype(c, in, a, 1, &scalar) || !want_args(c, in, a, 1, 1))
        return NULL;
    if (!scalar)
        return infer_fail(c, in, DIAG_TYPING, "%s() needs a dtype", a->name);
    int nd = gpu_shape_ndim(a->pos[0]);
    Instr *param = nd < 1 ? shape_param(a->pos[0]) : NULL;
    if (param) {   /* a caller passing a constant compiles this function again for it */
        const char *name = c->fn->argnames ? c->fn->argnames[param->imm] : "?";
        infer_fail(c, in, DIAG_LITERAL, "%s() argument 1 must be a constant int or tuple of ints "
                   "(the shape is fixed when the kernel is compiled), not %s's argument '%s': "
                   "pass a constant for it, or literally(%s) in the kernel", a->name,
                   c->fn->name, name, name);
        c->diag->literal_arg = (int)param->imm;
        c->diag->literal_shape = 1;
        return NULL;
    }
    if (nd < 1 || nd > ABI_MAX_NDIM)
        return arg_error(c, in, a, 0, "a constant int or tuple of ints (the shape is fixed when "
                         "the kernel is compiled)");
    return gpu_plan(c, in, bi, a->pos, NULL, 1, ty_array(scalar, nd, 'C', false));
}

static Type *type_gpu_const_array(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Instr *v = a->pos[0];
    /* an array the kernel was given is already in global memory: numba-cuda hands it back as
     * it is, and so does pyjit (only a global array is copied to constant memory) */
    bool runtime_array = v->type && v->type->kind == TY_ARRAY && v->op != OP_CONST;
    if (!runtime_array && (v->op != OP_CONST || !v->cst || v->cst->kind != K_ARRAY))
        return arg_error(c, in, a, 0, "a global NumPy array (it is copied to constant memory "
                         "when the kernel is compiled) or an array argument");
    return gpu_plan(c, in, bi, a->pos, NULL, 1, v->type);
}

static Type *type_gpu_sync(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (bi != BI_GPU_SYNCWARP) {   /* syncthreads_count, _and, _or */
        if (!want_args(c, in, a, 1, 1))
            return NULL;
        if (!ty_is_scalar(a->pos[0]->type) || ty_is_complex(a->pos[0]->type))
            return arg_error(c, in, a, 0, "an int or a bool");
        Type *to = i32();
        return gpu_plan(c, in, bi, a->pos, &to, 1, i32());
    }
    if (!want_args(c, in, a, 0, 1))
        return NULL;
    if (a->npos && !is_integral(a->pos[0]->type))
        return arg_error(c, in, a, 0, "an int mask");
    Type *to = u32();
    return gpu_plan(c, in, bi, a->pos, &to, a->npos, ty_scalar(TY_NONE));
}

static bool atomic_dtype_ok(Builtin bi, Type *dt)
{
    bool wide = dt->kind == TY_INT32 || dt->kind == TY_UINT32 || dt->kind == TY_INT64 ||
                dt->kind == TY_UINT64;
    bool fl = dt->kind == TY_FLOAT32 || dt->kind == TY_FLOAT64;
    switch (bi) {
    case BI_GPU_ATOMIC_AND: case BI_GPU_ATOMIC_OR: case BI_GPU_ATOMIC_XOR:
    case BI_GPU_ATOMIC_INC: case BI_GPU_ATOMIC_DEC:
        return wide;
    default:
        return wide || fl;
    }
}

/* The index of an atomic: one int64 per axis (args out, in the rewrite). */
static bool atomic_index(Infer *c, Instr *in, Args *a, Instr *idx, int nd, Instr **out)
{
    Type *t = idx->type;
    int n = t->kind == TY_TUPLE ? t->tuple.n : 1;
    if (n != nd) {
        infer_fail(c, in, DIAG_TYPING, "%s(): the index has %d %s, the array %d", a->name, n,
                   n == 1 ? "axis" : "axes", nd);
        return false;
    }
    for (int k = 0; k < n; k++) {
        Type *it = t->kind == TY_TUPLE ? t->tuple.items[k] : t;
        if (!is_integral(it)) {
            infer_fail(c, in, DIAG_TYPING, "%s(): index %d is %s, not an int", a->name, k,
                       infer_type_name(it));
            return false;
        }
        if (!c->rewrite)
            continue;
        if (t->kind != TY_TUPLE) {
            out[k] = idx;
        } else if (idx->op == OP_BUILD_TUPLE) {
            out[k] = idx->args[k];
        } else {
            out[k] = infer_emit(c, in, OP_STATIC_GET, it, 1);
            out[k]->args[0] = idx;
            out[k]->imm = k;
        }
    }
    return true;
}

static Type *type_gpu_atomic(Infer *c, Instr *in, Builtin bi, Args *a)
{
    bool cas = bi == BI_GPU_ATOMIC_CAS || bi == BI_GPU_ATOMIC_COMPARE_AND_SWAP;
    int nvals = cas ? 2 : 1, nidx = bi == BI_GPU_ATOMIC_COMPARE_AND_SWAP ? 0 : 1;
    if (!want_args(c, in, a, 1 + nidx + nvals, 1 + nidx + nvals))
        return NULL;
    Type *at = a->pos[0]->type;
    if (at->kind != TY_ARRAY || at->array.readonly)
        return arg_error(c, in, a, 0, "a writable array");
    Type *dt = at->array.dtype;
    if (!atomic_dtype_ok(bi, dt))
        return infer_fail(c, in, DIAG_TYPING, "%s() does not support arrays of %s", a->name, dt->name);
    int nd = at->array.ndim;
    if (!nidx && nd != 1)
        return arg_error(c, in, a, 0, "a 1-d array");
    Instr *args[MAX_ARGS];
    Type *to[MAX_ARGS];
    args[0] = a->pos[0];
    to[0] = NULL;
    if (nidx) {
        if (!atomic_index(c, in, a, a->pos[1], nd, args + 1))
            return NULL;
    } else {
        args[1] = c->rewrite ? infer_const_int(c, in, 0) : NULL;
    }
    for (int k = 0; k < nd; k++)
        to[1 + k] = i64();
    for (int v = 0; v < nvals; v++) {
        Instr *x = a->pos[1 + nidx + v];
        if (!ty_is_scalar(x->type) || ty_is_complex(x->type))
            return arg_error(c, in, a, 1 + nidx + v, "a number");
        args[1 + nd + v] = x;
        to[1 + nd + v] = dt;
    }
    return gpu_plan(c, in, cas ? BI_GPU_ATOMIC_CAS : bi, args, to, 1 + nd + nvals, dt);
}

static Type *type_gpu_warp(Infer *c, Instr *in, Builtin bi, Args *a)
{
    bool vote = bi != BI_GPU_SHFL_SYNC && bi != BI_GPU_SHFL_UP_SYNC && bi != BI_GPU_SHFL_DOWN_SYNC &&
                bi != BI_GPU_SHFL_XOR_SYNC;
    int n = vote ? 2 : 3;
    if (!want_args(c, in, a, n, n))
        return NULL;
    if (!is_integral(a->pos[0]->type))
        return arg_error(c, in, a, 0, "an int mask");
    Type *v = ty_strong(a->pos[1]->type);
    if (!ty_is_scalar(v) || ty_is_complex(v) || v->kind == TY_FLOAT16)
        return arg_error(c, in, a, 1, vote ? "a bool or a number" : "an int, a float or a bool");
    if (!vote && !is_integral(a->pos[2]->type))
        return arg_error(c, in, a, 2, "an int lane");
    Type *to[3] = {u32(), vote ? boolean() : v, i32()};
    Type *ret = !vote ? v : bi == BI_GPU_BALLOT_SYNC ? u32() : boolean();
    return gpu_plan(c, in, bi, a->pos, to, n, ret);
}

/* match_any_sync, match_all_sync: the value's bits are compared, so it keeps its type (an int,
 * a float or a bool; lowering widens it to 32 or 64 bits). */
static Type *type_gpu_match(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 2, 2))
        return NULL;
    if (!is_integral(a->pos[0]->type))
        return arg_error(c, in, a, 0, "an int mask");
    Type *v = ty_strong(a->pos[1]->type);
    if (!ty_is_scalar(v) || ty_is_complex(v) || v->kind == TY_FLOAT16)
        return arg_error(c, in, a, 1, "an int, a float or a bool");
    Type *to[2] = {u32(), v}, *pair[2] = {u32(), boolean()};
    return gpu_plan(c, in, bi, a->pos, to, 2, bi == BI_GPU_MATCH_ANY_SYNC ? u32() : ty_tuple(pair, 2));
}

/* fma and cbrt: floats at the promotion of their arguments. */
static Type *type_gpu_float(Infer *c, Instr *in, Builtin bi, Args *a)
{
    int n = bi == BI_GPU_FMA ? 3 : 1;
    if (!want_args(c, in, a, n, n))
        return NULL;
    Type *t = NULL;
    for (int i = 0; i < n; i++) {
        if (!is_real(a->pos[i]->type))
            return arg_error(c, in, a, i, "a float");
        t = t ? ty_promote(t, a->pos[i]->type) : a->pos[i]->type;
    }
    Type *ft = float_for(t);
    Type *to[3] = {ft, ft, ft};
    return gpu_plan(c, in, bi, a->pos, to, n, ft);
}

/* popc, clz, ffs: int32 of any int; brev keeps the int type. */
static Type *type_gpu_bits(Infer *c, Instr *in, Builtin bi, Args *a)
{
    if (!want_args(c, in, a, 1, 1))
        return NULL;
    Type *t = ty_strong(a->pos[0]->type);
    if (!ty_is_int(t))
        return arg_error(c, in, a, 0, "an int");
    return gpu_plan(c, in, bi, a->pos, &t, 1, bi == BI_GPU_BREV ? t : i32());
}

static Type *type_gpu_value(Infer *c, Instr *in, Builtin bi, Args *a)
{
    (void)bi;
    return infer_fail(c, in, DIAG_TYPING, "%s is a value, not a function", a->name);
}

/* One type of a typed form: a scalar type name, or X (*x, the same for every X). */
static Type *signature_type(const char *name, size_t len, Type *x)
{
    char buf[32];
    if (len == 1 && name[0] == 'X')
        return x;
    if (len == 0 || len >= sizeof buf)
        return NULL;
    memcpy(buf, name, len);
    buf[len] = 0;
    return strcmp(buf, "none") == 0 ? ty_scalar(TY_NONE) : ty_parse(buf);
}

/* The type of a typed form's X: the X arguments' types promoted together (NumPy's rules, a
 * Python literal weak as in NEP 50), as a binary operation of them would be. */
static Type *unify_x(Args *a, const bool *is_x, int n)
{
    Type *x = NULL;
    for (int i = 0; i < n; i++)
        if (is_x[i])
            x = x ? ty_promote(x, a->pos[i]->type) : a->pos[i]->type;
    return x ? ty_strong(x) : NULL;
}

/* Types a call by its row's typed form, "(uint32, X, int32) -> X": each argument must be an int,
 * a float or a bool, and is cast to its parameter's type; every X argument is cast to X, their
 * types promoted together (unify_x). */
static Type *type_signature(Infer *c, Instr *in, Builtin bi, Args *a)
{
    const char *form = ir_builtin_typed_form(bi), *p = form + 1, *arrow = strstr(form, ") -> ");
    Type *to[MAX_ARGS], *x;
    bool is_x[MAX_ARGS];
    int n = 0;
    while (arrow && p < arrow && n < MAX_ARGS) {
        size_t len = strcspn(p, ",)");
        is_x[n] = len == 1 && *p == 'X';
        to[n++] = signature_type(p, len, NULL);
        p += len + (p[len] == ',' ? 2 : 0);
    }
    if (!arrow)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "internal: %s has no typed form", a->name);
    if (!want_args(c, in, a, n, n))
        return NULL;
    for (int i = 0; i < n; i++) {
        Type *t = ty_strong(a->pos[i]->type);
        if (to[i] && to[i]->kind == TY_RNG && t == to[i])   /* a Generator, passed as it is */
            continue;
        bool half_ok = is_x[i] || (to[i] && ty_is_float(to[i]));   /* where a float or X is */
        if ((!to[i] && !is_x[i]) || !ty_is_scalar(t) || ty_is_complex(t) ||
            (t->kind == TY_FLOAT16 && !half_ok))
            return arg_error(c, in, a, i, "an int, a float or a bool");
    }
    x = unify_x(a, is_x, n);
    for (int i = 0; i < n; i++)
        if (is_x[i])
            to[i] = x;
    const char *ret = arrow + 5;
    return gpu_plan(c, in, bi, a->pos, to, n, signature_type(ret, strlen(ret), x));
}
