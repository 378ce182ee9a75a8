/* infer_items.c: type inference of attributes, indexing and iteration.
 *
 * Attributes of arrays become ARRAY_ATTR (or a bound method that a CALL consumes); indexing of
 * arrays becomes ARRAY_GET/ARRAY_SET with one operand per indexed axis, whatever form the index
 * had in the source (`a[i, j]`, `a[t]` for a tuple t, `a[1:3]`); indexing of tuples becomes
 * STATIC_GET for a constant index and TUPLE_GET otherwise. The layout of a view stays C only
 * when the index provably keeps it contiguous, else it becomes A. Loops over enumerate() and
 * zip() become loops over a range whose item tuple is built by indexing. */
#include "compiler/infer.h"

#include <stdio.h>
#include <string.h>

/* ---- attributes -------------------------------------------------------------------------- */

static const struct {
    const char *name;
    ArrayAttr attr;
} array_attrs[] = {
    {"shape", AA_SHAPE}, {"strides", AA_STRIDES}, {"size", AA_SIZE}, {"ndim", AA_NDIM},
    {"itemsize", AA_ITEMSIZE}, {"nbytes", AA_NBYTES}, {"T", AA_T}, {"real", AA_REAL},
    {"imag", AA_IMAG},
};

static Type *int_tuple(Infer *c, int n)
{
    Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        items[i] = ty_scalar(TY_INT64);
    return ty_tuple(items, n);
}

static Type *component_type(Type *complex)
{
    return ty_scalar(complex->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
}

static Type *array_attr_type(Infer *c, Instr *in, Type *t, ArrayAttr attr)
{
    switch (attr) {
    case AA_SHAPE:
    case AA_STRIDES:
        return int_tuple(c, t->array.ndim);
    case AA_T: {
        char layout = t->array.layout == 'C' ? 'F' : t->array.layout == 'F' ? 'C' : 'A';
        if (t->array.ndim <= 1)
            return t;
        return ty_array(t->array.dtype, t->array.ndim, layout, t->array.readonly);
    }
    case AA_REAL:
    case AA_IMAG:
        if (ty_is_complex(t->array.dtype))
            return ty_array(component_type(t->array.dtype), t->array.ndim, 'A', t->array.readonly);
        if (attr == AA_REAL)
            return t;
        return infer_fail(c, in, DIAG_UNSUPPORTED, ".imag of an array of %s is not supported",
                          t->array.dtype->name);
    default:
        return ty_scalar(TY_INT64);
    }
}

static Type *array_getattr(Infer *c, Instr *in, Type *t)
{
    if (strcmp(in->name, "imag") == 0 && ty_is_scalar(t->array.dtype) &&
        !ty_is_complex(t->array.dtype)) {   /* zeros of the array's shape and dtype, as Numba */
        Instr *self = in->args[0];
        return infer_library_call(c, in, "method.array._imag_of_real", &self, 1);
    }
    for (size_t i = 0; i < sizeof array_attrs / sizeof *array_attrs; i++)
        if (strcmp(in->name, array_attrs[i].name) == 0) {
            Type *r = array_attr_type(c, in, t, array_attrs[i].attr);
            if (r && c->rewrite) {
                in->op = OP_ARRAY_ATTR;
                in->sub = array_attrs[i].attr;
            }
            return r;
        }
    if (strcmp(in->name, "dtype") == 0)
        return ty_dtype(t->array.dtype);
    if (strcmp(in->name, "ctypes") == 0)
        return infer_array_ctypes(c, in, t);
    if (strcmp(in->name, "flat") == 0) {
        if (prog_kernel_code(c->pi->prog))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "a.flat is not supported in GPU kernels");
        if (c->rewrite) {
            in->op = OP_INTRINSIC;
            in->sub = BI_ARRAY_FLAT;
        }
        return ty_nditer(ND_FLAT, t);
    }
    if (t->array.dtype->kind == TY_RECORD && ty_record_field(t->array.dtype, in->name) >= 0)
        return infer_record_view_attr(c, in);
    char method[96];
    snprintf(method, sizeof method, "method.array.%s", in->name);
    const CompilerHost *host = c->pi->prog->host;
    if (ir_builtin_lookup(method) != BI__COUNT ||
        (host && host->method_overloads && host->method_overloads(host->ctx, method)))
        return ty_method(t, in->name);
    bool found;
    Type *r = infer_attribute_overload(c, in, &found);
    if (found)
        return r;
    return infer_fail(c, in, DIAG_TYPING, "array has no attribute '%s'", in->name);
}

/* z.real, z.imag of a scalar: a CAST of z (the real part), the imaginary part itself (not the real
 * part of z * -1j, which a NaN or inf real part would spoil), or zero. Its methods (x.item(),
 * x.conjugate()) are the library's method.number.* and the builtins' rows of that name. */
static Type *scalar_getattr(Infer *c, Instr *in, Type *t)
{
    bool real = strcmp(in->name, "real") == 0, imag = strcmp(in->name, "imag") == 0;
    if (strcmp(in->name, "dtype") == 0)   /* np.float32(x).dtype: a constant, as a.dtype */
        return ty_dtype(ty_strong(t));
    if (ty_is_complex(t) && strcmp(in->name, "conjugate") == 0)
        return ty_method(ty_strong(t), in->name);
    char method[96];
    snprintf(method, sizeof method, "method.number.%s", in->name);
    const CompilerHost *host = c->pi->prog->host;
    if (!real && !imag && host && host->method_overloads &&
        host->method_overloads(host->ctx, method))
        return ty_method(ty_strong(t), in->name);
    if (!real && !imag)
        return infer_fail(c, in, DIAG_TYPING, "%s has no attribute '%s'", infer_type_name(t), in->name);
    Type *s = ty_strong(t), *r = ty_is_complex(s) ? component_type(s) : s->kind == TY_BOOL ?
                                 ty_scalar(TY_INT64) : s;
    if (!c->rewrite)
        return r;
    Instr *src = in->args[0];
    if (imag && ty_is_complex(s)) {
        src = infer_coerce(c, in, src, s);
        in->op = OP_INTRINSIC;
        in->sub = BI_COMPLEX_IMAG;
        infer_set_args(c, in, &src, 1);
        return r;
    }
    if (imag)
        src = infer_const_int(c, in, 0);
    in->op = OP_CAST;
    infer_set_args(c, in, &src, 1);
    return r;
}

/* s.start, s.stop, s.step: ints, a None filled in as Numba does (its slices hold no None); the
 * rest are methods (s.indices). */
static Type *slice_getattr(Infer *c, Instr *in, Type *t)
{
    static const struct { const char *name; Builtin bi; } fields[] = {
        {"start", BI_SLICE_START}, {"stop", BI_SLICE_STOP}, {"step", BI_SLICE_STEP}};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        if (strcmp(in->name, fields[i].name) != 0)
            continue;
        if (c->rewrite) {
            Instr *sl = in->args[0];
            in->op = OP_INTRINSIC;
            in->sub = fields[i].bi;
            infer_set_args(c, in, &sl, 1);
        }
        return ty_scalar(TY_INT64);
    }
    return ty_method(t, in->name);
}

/* r.start, r.stop, r.step. */
static Type *range_getattr(Infer *c, Instr *in, Type *t)
{
    static const struct { const char *name; Builtin bi; } fields[] = {
        {"start", BI_RANGE_START}, {"stop", BI_RANGE_STOP}, {"step", BI_RANGE_STEP}};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        if (strcmp(in->name, fields[i].name) != 0)
            continue;
        if (c->rewrite) {
            Instr *r = in->args[0];
            in->op = OP_INTRINSIC;
            in->sub = fields[i].bi;
            infer_set_args(c, in, &r, 1);
        }
        return ty_scalar(TY_INT64);
    }
    return infer_fail(c, in, DIAG_TYPING, "range has no attribute '%s'", in->name);
}

Type *infer_getattr(Infer *c, Instr *in)
{
    Type *t = in->args[0]->type;
    if (!in->name)
        return infer_fail(c, in, DIAG_INTERNAL, "getattr without a name");
    if (t->kind == TY_CLASS)
        return infer_class_getattr(c, in, t);
    if (t->kind == TY_RECORD)
        return infer_record_getattr(c, in, t);
    if (strcmp(in->name, "__setattr__") == 0)   /* obj.x = v (frontend) */
        return infer_fail(c, in, DIAG_UNSUPPORTED, "setting an attribute of %s is not supported "
                          "in compiled code (jitclass instances have settable fields)",
                          infer_type_name(t));
    if (t->kind == TY_MODULE)
        return infer_fail(c, in, DIAG_TYPING, "module '%s' has no attribute '%s'",
                          t->literal && t->literal->name ? t->literal->name : "?", in->name);
    /* arrays: after their own attributes; dtypes: their NumPy attributes (numpy_dtypes.py) */
    if (ty_is_container(t) || t->kind == TY_STR || t->kind == TY_DTYPE) {
        bool found;
        Type *r = infer_attribute_overload(c, in, &found);
        if (found)
            return r;
    }
    if (t->kind == TY_ARRAY)
        return array_getattr(c, in, t);
    if (t->kind == TY_DTYPE && strcmp(in->name, "type") == 0) {
        Type *r = infer_dtype_type(t);
        if (r)
            return r;
    }
    if (t->kind == TY_SLICE)
        return slice_getattr(c, in, t);
    if (t->kind == TY_RANGE)
        return range_getattr(c, in, t);
    if (t->kind == TY_LIST || t->kind == TY_DICT || t->kind == TY_SET || t->kind == TY_RNG)
        return ty_method(t, in->name);
    if (strcmp(in->name, "__delitem__") == 0)   /* what `del x[i]` becomes (frontend) */
        return infer_fail(c, in, DIAG_UNSUPPORTED, "del x[i] is supported on lists in compiled "
                          "code, not on %s", infer_type_name(t));
    if (ty_is_literal_dict(t))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%s has no attribute '%s' in compiled code: a "
                          "dict of constant string keys and values of mixed types is read as "
                          "d[\"key\"] only (and by `in` and len())", infer_type_name(t), in->name);
    if (t->kind == TY_TUPLE && (strcmp(in->name, "index") == 0 || strcmp(in->name, "count") == 0) &&
        !(t->tuple.cls && ty_field_index(t, in->name) >= 0))   /* a namedtuple's field wins */
        return ty_method(t, in->name);   /* pyjit/lib's method.tuple.index and .count */
    if (t->kind == TY_TUPLE && t->tuple.cls)
        return infer_namedtuple_getattr(c, in, t);
    if (infer_is_text(t))   /* a constant receiver is made a str by the method's call */
        return ty_method(ty_str(), in->name);
    if (t->kind == TY_FUNCTION && t->literal && t->literal->name &&
        strncmp(t->literal->name, "gpu.", 4) == 0)
        return infer_gpu_getattr(c, in, t);
    if (ty_is_scalar(t))
        return scalar_getattr(c, in, t);
    return infer_fail(c, in, DIAG_TYPING, "%s has no attribute '%s'", infer_type_name(t), in->name);
}

/* ---- array indexing ---------------------------------------------------------------------- */

typedef struct Index {
    int n;
    int nnew;                           /* None parts: new axes of length 1 */
    bool ellipsis;                      /* `...` was expanded into full slices */
    Type *types[2 * ABI_MAX_NDIM + 1];
    Instr *values[2 * ABI_MAX_NDIM + 1];   /* in the rewrite only */
} Index;

/* The per-axis parts of an index: a tuple built in place, a constant tuple, a tuple value, or a
 * single index. Values are made (STATIC_GET, CONST) only in the rewrite. */
static bool split_index(Infer *c, Instr *at, Instr *idx, Index *ix)
{
    Type *t = idx->type;
    int n = t->kind == TY_TUPLE ? t->tuple.n : 1;
    if (n > 2 * ABI_MAX_NDIM) {
        infer_fail(c, at, DIAG_TYPING, "too many indices (%d)", n);
        return false;
    }
    ix->n = n;
    ix->nnew = 0;
    ix->ellipsis = false;
    if (t->kind != TY_TUPLE) {
        ix->types[0] = t;
        ix->values[0] = idx;
        return true;
    }
    for (int i = 0; i < n; i++) {
        ix->types[i] = t->tuple.items[i];
        if (!c->rewrite)
            continue;
        if (idx->op == OP_BUILD_TUPLE) {
            ix->values[i] = idx->args[i];
        } else if (idx->op == OP_CONST && idx->cst->kind == K_TUPLE &&
                   idx->cst->tuple.items[i]->kind == K_INT) {
            ix->values[i] = infer_const_int(c, at, idx->cst->tuple.items[i]->i);
        } else if (idx->op == OP_CONST && idx->cst->kind == K_TUPLE) {   /* None, ... */
            ix->values[i] = infer_emit(c, at, OP_CONST, ix->types[i], 0);
            ix->values[i]->cst = idx->cst->tuple.items[i];
        } else {
            ix->values[i] = infer_emit(c, at, OP_STATIC_GET, ix->types[i], 1);
            ix->values[i]->args[0] = idx;
            ix->values[i]->imm = i;
        }
    }
    return true;
}

static Instr *none_value(Infer *c, Instr *before)
{
    Instr *none = infer_emit(c, before, OP_CONST, ty_scalar(TY_NONE), 0);
    none->cst = ir_new_const(c->fn, K_NONE);
    return none;
}

/* `...` in an index: replaced by the full slices of the axes it stands for (those the other
 * parts, None aside, leave). */
static bool expand_ellipsis(Infer *c, Instr *at, Type *arr, Index *ix)
{
    int at_part = -1, used = 0;
    for (int i = 0; i < ix->n; i++) {
        if (ix->types[i]->kind == TY_ELLIPSIS) {
            if (at_part >= 0) {
                infer_fail(c, at, DIAG_TYPING, "an index can only have a single ellipsis ('...')");
                return false;
            }
            at_part = i;
        } else if (ix->types[i]->kind != TY_NONE) {
            used++;
        }
    }
    if (at_part < 0)
        return true;
    int fill = arr->array.ndim - used;
    if (fill < 0 || ix->n - 1 + fill > 2 * ABI_MAX_NDIM)
        fill = 0;   /* too many indices: check_index_types says so */
    memmove(&ix->types[at_part + fill], &ix->types[at_part + 1],
            sizeof *ix->types * (size_t)(ix->n - at_part - 1));
    memmove(&ix->values[at_part + fill], &ix->values[at_part + 1],
            sizeof *ix->values * (size_t)(ix->n - at_part - 1));
    for (int k = 0; k < fill; k++) {
        ix->types[at_part + k] = ty_scalar(TY_SLICE);
        if (c->rewrite) {
            Instr *start = none_value(c, at), *stop = none_value(c, at);   /* defined first */
            Instr *s = infer_emit(c, at, OP_BUILD_SLICE, ty_scalar(TY_SLICE), 2);
            s->args[0] = start;
            s->args[1] = stop;
            ix->values[at_part + k] = s;
        }
    }
    ix->n += fill - 1;
    ix->ellipsis = true;
    return true;
}

static bool check_index_types(Infer *c, Instr *at, Type *arr, Index *ix, int *nints)
{
    *nints = 0;
    if (!expand_ellipsis(c, at, arr, ix))
        return false;
    for (int i = 0; i < ix->n; i++) {
        Type *t = ix->types[i];
        if (ty_is_int(t))
            (*nints)++;
        else if (t->kind == TY_ARRAY) {
            infer_fail(c, at, DIAG_UNSUPPORTED, "indexing with an array (fancy indexing) is not "
                       "supported");
            return false;
        } else if (t->kind == TY_NONE) {
            ix->nnew++;
        } else if (t->kind == TY_BOOL) {
            infer_fail(c, at, DIAG_UNSUPPORTED, "indexing an array with a bool is not supported");
            return false;
        } else if (t->kind != TY_SLICE) {
            infer_fail(c, at, DIAG_TYPING, "array indices must be integers or slices, not %s",
                       infer_type_name(t));
            return false;
        }
    }
    if (ix->n - ix->nnew > arr->array.ndim) {
        infer_fail(c, at, DIAG_TYPING, "too many indices for array: array is %d-dimensional, but "
                   "%d were indexed", arr->array.ndim, ix->n - ix->nnew);
        return false;
    }
    if (arr->array.ndim - *nints + ix->nnew > ABI_MAX_NDIM) {
        infer_fail(c, at, DIAG_TYPING, "an index of %d new axes makes more than %d dimensions",
                   ix->nnew, ABI_MAX_NDIM);
        return false;
    }
    return true;
}

/* The BUILD_SLICE behind an index part, when the index was written in place. */
static Instr *slice_instr(Instr *idx, int axis)
{
    if (idx->type->kind == TY_SLICE)
        return idx->op == OP_BUILD_SLICE ? idx : NULL;
    if (idx->op == OP_BUILD_TUPLE && axis < idx->nargs && idx->args[axis]->op == OP_BUILD_SLICE)
        return idx->args[axis];
    return NULL;
}

static bool is_full_slice(const Instr *s)
{
    if (!s)
        return false;
    for (int i = 0; i < s->nargs; i++)
        if (!infer_is_none_const(s->args[i]))
            return false;
    return true;
}

static bool has_unit_step(const Instr *s)
{
    int64_t step;
    return s && (s->nargs < 3 || infer_is_none_const(s->args[2]) ||
                 (infer_const_index(s->args[2], &step) && step == 1));
}

/* Whether a view keeps C order: ints on the leading axes, then at most one unit-step slice, then
 * only full slices. F order is the mirror image, when every axis is indexed. */
static char view_layout(Instr *idx, Index *ix, Type *arr)
{
    char layout = arr->array.layout;
    if (layout == 'C') {
        int i = 0;
        while (i < ix->n && ty_is_int(ix->types[i]))
            i++;
        if (i < ix->n && !has_unit_step(slice_instr(idx, i)))
            return 'A';
        for (i++; i < ix->n; i++)
            if (!is_full_slice(slice_instr(idx, i)))
                return 'A';
        return 'C';
    }
    if (layout == 'F' && ix->n == arr->array.ndim) {
        int i = ix->n - 1;
        while (i >= 0 && ty_is_int(ix->types[i]))
            i--;
        if (i >= 0 && !has_unit_step(slice_instr(idx, i)))
            return 'A';
        for (i--; i >= 0; i--)
            if (!is_full_slice(slice_instr(idx, i)))
                return 'A';
        return 'F';
    }
    return 'A';
}

static Type *selection_type(Type *arr, Instr *idx, Index *ix, int nints)
{
    int ndim = arr->array.ndim - nints + ix->nnew;
    if (ndim == 0)
        return ty_element(arr->array.dtype);
    /* view_layout reads the index as written: not once `...` or None moved its parts */
    char layout = ix->nnew || ix->ellipsis ? 'A' : view_layout(idx, ix, arr);
    if (ndim == 1 && layout == 'F')
        layout = 'C';
    return ty_array(arr->array.dtype, ndim, layout, arr->array.readonly);
}

/* Rewrites in into op(arr, per-axis indices..., extra?) with ints as int64. */
static void rewrite_array_access(Infer *c, Instr *in, Opcode op, Instr *arr, Index *ix, Instr *extra)
{
    Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(ix->n + 2));
    args[0] = arr;
    for (int i = 0; i < ix->n; i++)
        args[i + 1] = ty_is_int(ix->types[i]) ? infer_coerce(c, in, ix->values[i], ty_scalar(TY_INT64))
                                              : ix->values[i];
    if (extra)
        args[ix->n + 1] = extra;
    in->op = op;
    infer_set_args(c, in, args, ix->n + 1 + (extra != NULL));
}

/* Whether an index has an array or a list among its parts (advanced indexing:
 * pyjit/lib/numpy_index.py). */
static bool is_advanced_index(const Type *t)
{
    if (t->kind == TY_ARRAY || t->kind == TY_LIST)
        return true;
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            if (t->tuple.items[i]->kind == TY_ARRAY || t->tuple.items[i]->kind == TY_LIST)
                return true;
    return false;
}

static Type *array_getitem(Infer *c, Instr *in, Instr *arr, Instr *idx)
{
    if (is_advanced_index(idx->type)) {
        Instr *args[2] = {arr, idx};
        return infer_library_call(c, in, "method.array.__getitem__", args, 2);
    }
    Index ix;
    int nints;
    if (!split_index(c, in, idx, &ix) || !check_index_types(c, in, arr->type, &ix, &nints))
        return NULL;
    Type *r = selection_type(arr->type, idx, &ix, nints);
    if (ix.ellipsis && r->kind != TY_ARRAY)   /* a[..., j] of a 1-d a: a 0-d view, as NumPy */
        r = ty_array(arr->type->array.dtype, 0, 'C', arr->type->array.readonly);
    if (c->rewrite)
        rewrite_array_access(c, in, OP_ARRAY_GET, arr, &ix, NULL);
    return r;
}

/* ---- tuple indexing ---------------------------------------------------------------------- */

static bool homogeneous(const Type *t)
{
    for (int i = 1; i < t->tuple.n; i++)
        if (t->tuple.items[i] != t->tuple.items[0])
            return false;
    return t->tuple.n > 0;
}

/* Whether v is literal_unroll(t) of a tuple of strings, or of a constant tuple of ints: Numba
 * gives its loop variable each item as a literal, which names a record's field (r[f]); unrolled,
 * each copy's f is a constant (infer_structured.c follows it). */
static bool unrolled_strings(Instr *v)
{
    if (v->op != OP_CALL || v->nargs != 2 || v->args[0]->op != OP_CONST)
        return false;
    bool constant = v->args[1]->op == OP_CONST;
    const Const *callee = v->args[0]->cst;
    if (callee->kind != K_FUNC || !callee->name || strcmp(callee->name, "pyjit.literal_unroll") != 0)
        return false;
    const Type *t = v->type;
    for (int i = 0; t && t->kind == TY_TUPLE && i < t->tuple.n; i++)
        if (t->tuple.items[i]->kind != TY_STR && t->tuple.items[i]->kind != TY_STRING &&
            !(constant && ty_is_int(t->tuple.items[i])))
            return false;
    return t && t->kind == TY_TUPLE;
}

static Type *tuple_static(Infer *c, Instr *in, Instr *tuple, int64_t i)
{
    Type *t = tuple->type;
    if (i < 0)
        i += t->tuple.n;
    if (i < 0 || i >= t->tuple.n)
        return infer_fail(c, in, DIAG_TYPING, "tuple index out of range (%s has %d items)",
                          infer_type_name(t), t->tuple.n);
    if (c->rewrite) {
        in->op = OP_STATIC_GET;
        in->imm = i;
        infer_set_args(c, in, &tuple, 1);
    }
    return t->tuple.items[i];
}

/* t[a:b:c] with constant bounds: a new tuple of the items picked, as Python picks them. */
static Type *tuple_slice(Infer *c, Instr *in, Instr *tuple, Instr *s)
{
    int64_t v[3] = {0, 0, 1};
    bool given[3] = {false, false, false};
    for (int k = 0; k < 3 && k < s->nargs; k++) {
        if (infer_is_none_const(s->args[k]))
            continue;
        if (!infer_const_index(s->args[k], &v[k]))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "a tuple can be sliced with constant bounds only");
        given[k] = true;
    }
    int64_t n = tuple->type->tuple.n, step = given[2] ? v[2] : 1;
    if (step == 0)
        return infer_fail(c, in, DIAG_TYPING, "slice step cannot be zero");
    int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
    int64_t start = given[0] ? v[0] : step > 0 ? lo : hi, stop = given[1] ? v[1] : step > 0 ? hi : lo;
    if (given[0])
        start = start < 0 ? (start + n < lo ? lo : start + n) : start > hi ? hi : start;
    if (given[1])
        stop = stop < 0 ? (stop + n < lo ? lo : stop + n) : stop > hi ? hi : stop;
    Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(n + 1));
    Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(n + 1));
    int m = 0;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
        items[m] = tuple->type->tuple.items[i];
        if (c->rewrite) {
            args[m] = infer_emit(c, in, OP_STATIC_GET, items[m], 1);
            args[m]->args[0] = tuple;
            args[m]->imm = i;
        }
        m++;
    }
    if (c->rewrite) {
        in->op = OP_BUILD_TUPLE;
        infer_set_args(c, in, args, m);
    }
    return ty_tuple(items, m);
}

static Type *tuple_getitem(Infer *c, Instr *in, Instr *tuple, Instr *idx)
{
    Type *t = tuple->type;
    int64_t i;
    if (ty_is_literal_dict(t)) {
        const char *key = infer_const_str(idx->type);
        int f = key ? ty_field_index(t, key) : -1;
        if (f < 0)
            return infer_fail(c, in, key ? DIAG_TYPING : DIAG_UNSUPPORTED, key ? "KeyError: "
                              "'%s' is not a key of %s" : "%s is read by a constant string key "
                              "only (its values have several types)", key ? key : infer_type_name(t),
                              infer_type_name(t));
        return tuple_static(c, in, tuple, f);
    }
    if (infer_const_index(idx, &i))
        return tuple_static(c, in, tuple, i);
    if (idx->type->kind == TY_SLICE && idx->op == OP_BUILD_SLICE)
        return tuple_slice(c, in, tuple, idx);
    if (!ty_is_int(idx->type))
        return infer_fail(c, in, DIAG_TYPING, "tuple indices must be integers, not %s",
                          infer_type_name(idx->type));
    if (t->tuple.n && !infer_is_runtime(t->tuple.items[0]))
        return infer_fail(c, in, DIAG_TYPING, "%s is indexed by a constant only: a tuple of "
                          "functions is indexed at run time when each declares one signature, the "
                          "same (@njit('float64(float64)')), or is passed as a FunctionType",
                          infer_type_name(t));
    /* An empty tuple is a 0-d array's shape or strides, which Numba types UniTuple(intp, 0):
     * a loop over a.ndim indexes them without running, and an index, if reached, is out of
     * range, raised when run as CPython does. */
    if (t->tuple.n == 0) {
        if (c->rewrite) {
            Instr *args[2] = {tuple, infer_coerce(c, in, idx, ty_scalar(TY_INT64))};
            in->op = OP_TUPLE_GET;
            infer_set_args(c, in, args, 2);
        }
        return ty_scalar(TY_INT64);
    }
    if (!homogeneous(t))
        return infer_fail(c, in, DIAG_TYPING, "%s can be indexed by a variable only when its "
                          "items have one type; use a constant index", infer_type_name(t));
    if (c->rewrite) {
        Instr *args[2] = {tuple, infer_coerce(c, in, idx, ty_scalar(TY_INT64))};
        in->op = OP_TUPLE_GET;
        infer_set_args(c, in, args, 2);
    }
    return t->tuple.items[0];
}

/* ---- list items ----------------------------------------------------------------------------- */

static bool list_index_ok(Infer *c, Instr *in, Instr *idx)
{
    Type *t = idx->type;
    if (!ty_is_int(t) && t->kind != TY_BOOL)
        return infer_fail(c, in, DIAG_TYPING, "list indices must be integers, not %s",
                          infer_type_name(t)) != NULL;
    return true;
}

/* l[i]: the intrinsic list.__getitem__ (lower_list.c); l[a:b:c], a new list. */
static Type *list_getitem(Infer *c, Instr *in, Instr *list, Instr *idx)
{
    Type *item = list->type->list.item;
    if (idx->type->kind == TY_SLICE) {
        if (c->rewrite) {
            Instr *args[2] = {list, idx};
            in->op = OP_INTRINSIC;
            in->sub = BI_LIST_GETSLICE;
            infer_set_args(c, in, args, 2);
        }
        return list->type;
    }
    if (!list_index_ok(c, in, idx) || !item)
        return NULL;
    if (c->rewrite) {
        Instr *args[2] = {list, infer_coerce(c, in, idx, ty_scalar(TY_INT64))};
        in->op = OP_INTRINSIC;
        in->sub = BI_LIST_GETITEM;
        infer_set_args(c, in, args, 2);
    }
    return item;
}

static Type *list_setitem(Infer *c, Instr *in, Instr *list, Instr *idx, Instr *val)
{
    if (idx->type->kind == TY_SLICE) {   /* l[i:j] = other: written in the library */
        if (val->type->kind != TY_LIST)
            return infer_fail(c, in, DIAG_UNSUPPORTED, "a slice of a list is assigned a list in "
                              "compiled code, not %s", infer_type_name(val->type));
        Instr *args[3] = {list, idx, val};
        return infer_list_library_call(c, in, "__setitem__", args, 3);
    }
    if (!list_index_ok(c, in, idx))
        return NULL;
    Type *to = infer_list_takes(c, in, list, val->type);
    if (to && c->rewrite) {
        Instr *args[3] = {list, infer_coerce(c, in, idx, ty_scalar(TY_INT64)), infer_coerce(c, in, val, to)};
        in->op = OP_INTRINSIC;
        in->sub = BI_LIST_SETITEM;
        infer_set_args(c, in, args, 3);
    }
    return to ? ty_scalar(TY_NONE) : NULL;
}

static bool is_none_const(const Instr *v)
{
    return v->op == OP_CONST && v->cst->kind == K_NONE;
}

/* One `:` or `::1` of an array type's spelling: 1, 2 for `::1` (that axis contiguous), 0 else. */
static int type_axis(const Instr *d)
{
    if (d->op != OP_BUILD_SLICE || !is_none_const(d->args[0]) || !is_none_const(d->args[1]))
        return 0;
    if (is_none_const(d->args[2]))
        return 1;
    return d->args[2]->op == OP_CONST && d->args[2]->cst->kind == K_INT && d->args[2]->cst->i == 1 ? 2 : 0;
}

/* types.float64[:], types.int64[:, ::1] in compiled code: an array type used as a value (what
 * List.empty_list takes), which becomes a constant at once. */
static Type *array_type_value(Infer *c, Instr *in, Type *dtype, Instr *idx)
{
    bool tuple = idx->op == OP_BUILD_TUPLE;
    int n = tuple ? idx->nargs : 1;
    char layout = 'A';
    for (int k = 0; k < n; k++) {
        int axis = type_axis(tuple ? idx->args[k] : idx);
        if (!axis)
            return infer_fail(c, in, DIAG_TYPING, "%s[...] spells an array type with `:` per "
                              "axis (`::1` on the contiguous one)", dtype->name);
        if (axis == 2)
            layout = k == n - 1 ? 'C' : k == 0 ? 'F' : 'A';
    }
    in->op = OP_CONST;
    in->cst = ir_new_const(c->fn, K_TYPE);
    in->cst->name = ty_array(dtype, n, layout, false)->name;
    in->nargs = 0;
    return ty_literal(TY_FUNCTION, in->cst);
}

/* ---- dict items ------------------------------------------------------------------------------ */

/* d[k] and d[k] = v: the intrinsics method.dict.__getitem__ and __setitem__ (lower_dict.c). */
static Type *dict_getitem(Infer *c, Instr *in, Instr *d, Instr *key)
{
    Type *k = infer_table_key(c, in, d, key);
    if (k && c->rewrite) {
        Instr *args[2] = {d, infer_coerce(c, in, key, k)};
        in->op = OP_INTRINSIC;
        in->sub = BI_DICT_GETITEM;
        infer_set_args(c, in, args, 2);
    }
    return k ? d->type->dict.value : NULL;
}

static Type *dict_setitem(Infer *c, Instr *in, Instr *d, Instr *key, Instr *val)
{
    Type *t = infer_table_takes(c, in, d, key->type, val->type);
    if (t && c->rewrite) {
        Instr *args[3] = {d, infer_coerce(c, in, key, t->dict.key), infer_coerce(c, in, val, t->dict.value)};
        in->op = OP_INTRINSIC;
        in->sub = BI_DICT_SETITEM;
        infer_set_args(c, in, args, 3);
    }
    return t ? ty_scalar(TY_NONE) : NULL;
}

/* ---- a.flat[i] ------------------------------------------------------------------------------ */

/* a.flat[i] (val NULL) or a.flat[i] = val: the intrinsics flatiter.__getitem__/__setitem__
 * (lower_nditer.c), the i-th element in C order. */
static Type *flat_item(Infer *c, Instr *in, Instr *flat, Instr *idx, Instr *val)
{
    Type *t = flat->type, *at = t->nditer.src, *dt = at->array.dtype;
    if (t->nditer.what != ND_FLAT)
        return infer_fail(c, in, DIAG_TYPING, "%s is not subscriptable", infer_type_name(t));
    if (!ty_is_int(idx->type) && idx->type->kind != TY_BOOL)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "a.flat[...] takes an int in compiled code, "
                          "not %s (index a.ravel() for slices and arrays)", infer_type_name(idx->type));
    if (val && at->array.readonly)
        return infer_fail(c, in, DIAG_TYPING, "array is read-only: %s cannot be assigned to",
                          infer_type_name(at));
    if (val && (!ty_is_scalar(val->type) || (ty_is_complex(val->type) && !ty_is_complex(dt))))
        return infer_fail(c, in, DIAG_TYPING, "cannot store %s into an element of an array of %s",
                          infer_type_name(val->type), infer_type_name(dt));
    if (c->rewrite) {
        Instr *args[3] = {flat, infer_coerce(c, in, idx, ty_scalar(TY_INT64)),
                          val ? infer_coerce(c, in, val, dt) : NULL};
        in->op = OP_INTRINSIC;
        in->sub = val ? BI_FLAT_SETITEM : BI_FLAT_GETITEM;
        infer_set_args(c, in, args, val ? 3 : 2);
    }
    return val ? ty_scalar(TY_NONE) : dt;
}

Type *infer_getitem(Infer *c, Instr *in)
{
    Instr *obj = in->args[0], *idx = in->args[1];
    Type *dtype = obj->type->kind == TY_FUNCTION ? infer_dtype_of(c, obj) : NULL;
    if (dtype)
        return array_type_value(c, in, dtype, idx);
    if (obj->type->kind == TY_ARRAY && infer_is_text(idx->type) &&
        obj->type->array.dtype->kind == TY_RECORD)
        return infer_record_view(c, in);
    if (obj->type->kind == TY_ARRAY)
        return array_getitem(c, in, obj, idx);
    if (obj->type->kind == TY_RECORD)
        return infer_record_getitem(c, in);
    if (obj->type->kind == TY_CLASS)
        return infer_class_dunder(c, in, "__getitem__", in->args, 2);
    if (obj->type->kind == TY_LIST)
        return list_getitem(c, in, obj, idx);
    if (obj->type->kind == TY_DICT)
        return dict_getitem(c, in, obj, idx);
    if (obj->type->kind == TY_TUPLE)
        return tuple_getitem(c, in, obj, idx);
    if (obj->type->kind == TY_CPOINTER)
        return infer_ptr_item(c, in, NULL);
    if (obj->type->kind == TY_NDITER)
        return flat_item(c, in, obj, idx, NULL);
    if (infer_is_text(obj->type))
        return infer_str_getitem(c, in);
    if (obj->type->kind == TY_DISPATCHER && obj->type->literal && obj->type->literal->gpu_kernel)
        return infer_fail(c, in, DIAG_TYPING, "%s is a kernel: kernels are launched from the host "
                          "only (a kernel launching kernels, dynamic parallelism, is not "
                          "supported)", obj->type->literal->name);
    return infer_fail(c, in, DIAG_TYPING, "%s is not subscriptable", infer_type_name(obj->type));
}

Type *infer_static_getitem(Infer *c, Instr *in)
{
    Instr *obj = in->args[0];
    Type *t = obj->type;
    if (t->kind == TY_TUPLE) {
        if (in->imm2 <= -2 && t->tuple.n < -2 - in->imm2)   /* a starred unpacking */
            return infer_fail(c, in, DIAG_TYPING, "not enough values to unpack (expected at least "
                              "%lld, got %d)", (long long)(-2 - in->imm2), t->tuple.n);
        if (in->imm2 >= 0 && in->imm2 != t->tuple.n)
            return infer_fail(c, in, DIAG_TYPING, "%s values to unpack (expected %lld, got %d)",
                              in->imm2 < t->tuple.n ? "too many" : "not enough",
                              (long long)in->imm2, t->tuple.n);
        return tuple_static(c, in, obj, in->imm);
    }
    if (t->kind == TY_LIST && in->imm2 <= -2) {   /* a starred unpacking: its items by index */
        if (c->rewrite) {
            Instr *args[2] = {obj, infer_const_int(c, in, in->imm)};
            in->op = OP_INTRINSIC;
            in->sub = BI_LIST_GETITEM;
            infer_set_args(c, in, args, 2);
        }
        return t->list.item;
    }
    if (t->kind == TY_LIST && in->imm2 >= 0) {   /* a, b = lst: its length checked (lib/lists.py) */
        if (!t->list.item || !c->rewrite)
            return t->list.item;   /* the constants below are made once, when rewriting */
        Instr *args[3] = {obj, infer_const_int(c, in, in->imm), infer_const_int(c, in, in->imm2)};
        return infer_list_library_call(c, in, "_unpacked", args, 3);
    }
    if (t->kind == TY_ARRAY && t->array.ndim >= 1) {
        Index ix = {.n = 1, .types = {ty_scalar(TY_INT64)}};
        Type *r = selection_type(t, obj, &ix, 1);
        if (c->rewrite && in->imm2 >= 0) {   /* a, b = arr: its length checked (lib/lists.py) */
            Instr *args[3] = {obj, infer_const_int(c, in, in->imm), infer_const_int(c, in, in->imm2)};
            return infer_library_call(c, in, "method.array._unpacked", args, 3);
        }
        if (c->rewrite) {
            ix.values[0] = infer_const_int(c, in, in->imm);
            rewrite_array_access(c, in, OP_ARRAY_GET, obj, &ix, NULL);
        }
        return r;
    }
    return infer_fail(c, in, DIAG_TYPING, "cannot unpack or index %s", infer_type_name(t));
}

Type *infer_setitem(Infer *c, Instr *in)
{
    Instr *obj = in->args[0], *idx = in->args[1], *val = in->args[2];
    Type *t = obj->type;
    if (ty_is_literal_dict(t))   /* as in Numba */
        return infer_fail(c, in, DIAG_TYPING, "%s cannot be changed: a dict display of constant "
                          "string keys and values of mixed types is read-only (give its values "
                          "one type to make a dict that can)", infer_type_name(t));
    if (t->kind == TY_TUPLE)
        return infer_fail(c, in, DIAG_TYPING, "tuples are immutable: cannot assign to an item");
    if (t->kind == TY_LIST)
        return list_setitem(c, in, obj, idx, val);
    if (t->kind == TY_DICT)
        return dict_setitem(c, in, obj, idx, val);
    if (t->kind == TY_CLASS)
        return infer_class_dunder(c, in, "__setitem__", in->args, 3);
    if (t->kind == TY_CPOINTER)
        return infer_ptr_item(c, in, val);
    if (t->kind == TY_NDITER)
        return flat_item(c, in, obj, idx, val);
    if (t->kind == TY_RECORD)
        return infer_record_setitem(c, in);
    if (t->kind != TY_ARRAY)
        return infer_fail(c, in, DIAG_TYPING, "%s does not support item assignment", infer_type_name(t));
    if (t->array.readonly)
        return infer_fail(c, in, DIAG_TYPING, "array is read-only: %s cannot be assigned to",
                          infer_type_name(t));
    /* advanced indices, and a list or tuple stored (converted as np.array converts it) */
    bool sequence = val->type->kind == TY_LIST || val->type->kind == TY_TUPLE;
    if (is_advanced_index(idx->type) || sequence) {
        Instr *args[3] = {obj, idx, val};
        return infer_library_call(c, in, "method.array.__setitem__", args, 3);
    }
    Index ix;
    int nints;
    if (!split_index(c, in, idx, &ix) || !check_index_types(c, in, t, &ix, &nints))
        return NULL;
    Type *sel = selection_type(t, idx, &ix, nints), *vt = val->type;
    if (sel->kind != TY_ARRAY && vt->kind == TY_ARRAY && vt->array.ndim == 0) {
        /* a[i] = b with b a 0-d array (b[()], np.sum(x, keepdims=True) of a 0-d x): its item */
        Instr *args[3] = {obj, idx, val};
        return infer_library_call(c, in, "method.array.__setitem__", args, 3);
    }
    bool same_chars = vt->kind == TY_ARRAY && vt->array.dtype == t->array.dtype;
    if (t->array.dtype->kind == TY_CHARSEQ && !same_chars) {   /* a str, cut or padded */
        if (sel->kind == TY_ARRAY || !infer_is_text(vt))
            return infer_fail(c, in, DIAG_TYPING, "cannot store %s into %s of %s: one element "
                              "of a unicode array takes a str", infer_type_name(vt),
                              sel->kind == TY_ARRAY ? "a selection" : "an element",
                              infer_type_name(t->array.dtype));
        if (c->rewrite)
            rewrite_array_access(c, in, OP_ARRAY_SET, obj, &ix, infer_coerce(c, in, val, ty_str()));
        return ty_scalar(TY_NONE);
    }
    bool ok = ty_is_scalar(vt) || (vt->kind == TY_ARRAY && sel->kind == TY_ARRAY &&
                                   vt->array.ndim <= sel->array.ndim);
    Type *ve = vt->kind == TY_ARRAY ? vt->array.dtype : vt;
    if (ok && ty_is_complex(ve) && !ty_is_complex(t->array.dtype))
        ok = false;   /* NumPy refuses to drop an imaginary part on a store */
    if (!ty_is_scalar(t->array.dtype) || !ty_is_scalar(ve))   /* records, datetimes: of one dtype */
        ok = ve == t->array.dtype && (vt->kind != TY_ARRAY || (sel->kind == TY_ARRAY &&
                                                               vt->array.ndim <= sel->array.ndim));
    if (!ok)
        return infer_fail(c, in, DIAG_TYPING, "cannot store %s into %s of %s", infer_type_name(vt),
                          sel->kind == TY_ARRAY ? "a selection of an array" : "an element of an array",
                          infer_type_name(t->array.dtype));
    if (c->rewrite) {
        Instr *v = ty_is_scalar(vt) ? infer_coerce(c, in, val, t->array.dtype) : val;
        rewrite_array_access(c, in, OP_ARRAY_SET, obj, &ix, v);
    }
    return ty_scalar(TY_NONE);
}

/* ---- iteration --------------------------------------------------------------------------- */

static bool is_zip_marker(const Type *over);

/* The item of a loop over a.flat (an element), np.ndindex (the index tuple), np.ndenumerate
 * (both) or np.nditer (a 0-d view of the element, as Numba gives). */
static Type *nditer_item(Type *t)
{
    Type *src = t->nditer.src;
    if (t->nditer.what == ND_INDEX)
        return src;
    Type *dt = src->array.dtype;
    if (t->nditer.what == ND_ITER)
        return ty_array(dt, 0, 'C', src->array.readonly);
    if (t->nditer.what == ND_FLAT)
        return ty_element(dt);
    Type *index[ABI_MAX_NDIM + 1];
    for (int k = 0; k < src->array.ndim; k++)
        index[k] = ty_scalar(TY_INT64);
    Type *pair[2] = {ty_tuple(index, src->array.ndim), ty_element(dt)};
    return ty_tuple(pair, 2);
}

/* The item a loop over a value of type t gets: a number of a range, an element or a view (first
 * axis) of an array, an item of a homogeneous tuple, the tuple of items of a zip(). */
Type *infer_item_of(Type *t)
{
    switch (t->kind) {
    case TY_ITER: {
        Type *items[64];
        if (t->iter.over->kind == TY_ITER) {   /* enumerate(x): (int, item of x) */
            Type *pair[2] = {ty_scalar(TY_INT64), infer_item_of(t->iter.over->iter.over)};
            return pair[1] ? ty_tuple(pair, 2) : NULL;
        }
        int n = is_zip_marker(t->iter.over) ? t->iter.over->tuple.n : 0;
        for (int k = 0; k < n && k < 64; k++)
            if (!(items[k] = infer_item_of(t->iter.over->tuple.items[k]->iter.over)))
                return NULL;
        return n && n <= 64 ? ty_tuple(items, n) : NULL;
    }
    case TY_RANGE:
        return ty_scalar(TY_INT64);
    case TY_ARRAY:
        if (t->array.ndim == 1)
            return ty_element(t->array.dtype);
        return ty_array(t->array.dtype, t->array.ndim - 1, t->array.layout == 'C' ? 'C' : 'A',
                        t->array.readonly);
    case TY_TUPLE:
        return t->tuple.n ? t->tuple.items[0] : ty_scalar(TY_NONE);
    case TY_LIST:
        return t->list.item;   /* NULL until known */
    case TY_STR:
        return t;              /* strings of one code point */
    case TY_DICT:
        return t->dict.key;    /* a loop over a dict gets its keys */
    case TY_SET:
        return t->set.item;
    case TY_NDITER:
        return nditer_item(t);
    default:
        return NULL;
    }
}

/* ---- enumerate and zip ---------------------------------------------------------------------
 * enumerate(x) and zip(x, y, ...) over arrays and tuples become a loop over range(n), n the
 * (shortest) length, whose item tuple is built from indexing: (i, x[i]) or (x[i], y[i]). While
 * types are inferred they have marker types that nothing else makes: enumerate(x) is
 * iter(iter(X)), zip(x, y) is iter(tuple(iter(X), iter(Y))) (tuples never hold iterators).
 * The CALL becomes a BUILD_TUPLE of its operands (x, start) or (x, y, ...), which the GETITER
 * then reads and which is dropped once unused. */

static bool is_zip_marker(const Type *over)
{
    return over->kind == TY_TUPLE && over->tuple.n > 0 && over->tuple.items[0]->kind == TY_ITER;
}

Type *infer_iterable_call(Infer *c, Instr *in, bool zip, Instr **args, int nargs)
{
    if (nargs < 1 || (!zip && nargs > 2))
        return infer_fail(c, in, DIAG_TYPING, "%s() takes %s, got %d arguments",
                          zip ? "zip" : "enumerate", zip ? "at least 1 argument" : "1 or 2 arguments",
                          nargs);
    Type **iters = arena_alloc(c->arena, sizeof *iters * (size_t)(nargs + 1));
    int n = zip ? nargs : 1;
    for (int i = 0; i < n; i++) {
        Type *t = args[i]->type;
        if (t->kind == TY_LIST && !t->list.item)
            return NULL;   /* typed once something is stored in the list */
        if ((t->kind == TY_SET || t->kind == TY_DICT) && ty_is_undetermined(t))
            return NULL;   /* typed once something is stored in it */
        if (t->kind == TY_SET || t->kind == TY_DICT) {   /* walked as the list of its items */
            Type *list = ty_list(infer_item_of(t));
            if (c->rewrite) {
                Instr *items = infer_emit(c, in, OP_CALL, list, 0);
                const char *key = t->kind == TY_SET ? "method.set._items" : "method.dict._items";
                if (!infer_library_call(c, items, key, &args[i], 1))
                    return NULL;
                items->type = list;
                args[i] = items;
            }
            t = list;
        }
        if (t->kind == TY_STRING && t->literal) {   /* zip("ab", x): the constant as a value */
            if (c->rewrite)
                args[i] = infer_coerce(c, in, args[i], ty_str());
            t = ty_str();
        }
        bool ok = (t->kind == TY_ARRAY && t->array.ndim >= 1) ||
                  (t->kind == TY_TUPLE && homogeneous(t)) || t->kind == TY_LIST ||
                  t->kind == TY_STR || t->kind == TY_RANGE || t->kind == TY_NDITER ||
                  (t->kind == TY_ITER && (is_zip_marker(t->iter.over) ||
                                          t->iter.over->kind == TY_ITER));   /* zip, enumerate */
        if (!ok)
            return infer_fail(c, in, DIAG_UNSUPPORTED, "%s() over %s is not supported (arrays, "
                              "lists, strings, ranges, sets, dicts, tuples of one item type, "
                              "a.flat, np.ndindex, np.ndenumerate and np.nditer are)",
                              zip ? "zip" : "enumerate", infer_type_name(t));
        iters[i] = ty_iter(t);
    }
    if (!zip && nargs == 2 && !ty_is_int(args[1]->type) && args[1]->type->kind != TY_BOOL)
        return infer_fail(c, in, DIAG_TYPING, "enumerate() start must be an integer, not %s",
                          infer_type_name(args[1]->type));
    if (c->rewrite) {
        in->op = OP_BUILD_TUPLE;
        infer_set_args(c, in, args, nargs);
    }
    return ty_iter(zip ? ty_tuple(iters, nargs) : iters[0]);
}

typedef struct LoopSource {
    Instr *sources;     /* the BUILD_TUPLE the enumerate/zip call became */
    Type *marker;
} LoopSource;

static Instr *shortest(Infer *c, Instr *before, Instr **srcs, int n);

static Instr *length_of(Infer *c, Instr *before, Instr *v)
{
    if (v->type->kind == TY_TUPLE)
        return infer_const_int(c, before, v->type->tuple.n);
    if (v->type->kind == TY_ITER && is_zip_marker(v->type->iter.over))   /* a zip() in it */
        return shortest(c, before, v->args, v->nargs);
    if (v->type->kind == TY_ITER)   /* an enumerate() in it: its sequence's length */
        return length_of(c, before, v->args[0]);
    Instr *len = infer_emit(c, before, OP_INTRINSIC, ty_scalar(TY_INT64), 1);
    len->sub = BI_LEN;
    len->args[0] = v;
    return len;
}

/* The length of the shortest of n loop sources. */
static Instr *shortest(Infer *c, Instr *before, Instr **srcs, int n)
{
    Instr *len = NULL;
    for (int i = 0; i < n; i++) {
        Instr *l = length_of(c, before, srcs[i]);
        if (len) {
            Instr *min = infer_emit(c, before, OP_INTRINSIC, ty_scalar(TY_INT64), 2);
            min->sub = BI_MIN;
            min->args[0] = len;
            min->args[1] = l;
            l = min;
        }
        len = l;
    }
    return len;
}

/* GETITER of an enumerate/zip: a GETITER of range(shortest length). */
static Type *getiter_of_loop(Infer *c, Instr *in, Type *marker)
{
    Instr *src = in->args[0];
    if (!c->rewrite)
        return marker;
    bool zip = is_zip_marker(marker->iter.over);
    Instr *len = shortest(c, in, src->args, zip ? src->nargs : 1);
    Instr *range = infer_emit(c, in, OP_INTRINSIC, ty_scalar(TY_RANGE), 1);
    range->sub = BI_RANGE;
    range->args[0] = len;
    LoopSource *ls = arena_alloc(c->arena, sizeof *ls);
    ls->sources = src;
    ls->marker = marker;
    in->aux = ls;
    infer_set_args(c, in, &range, 1);
    return ty_iter(ty_scalar(TY_RANGE));
}

/* GETITER of (): a GETITER of range(0), so the body (never run) is typed with int items. */
static Type *getiter_of_empty(Infer *c, Instr *in)
{
    if (c->rewrite) {
        Instr *range = infer_emit(c, in, OP_INTRINSIC, ty_scalar(TY_RANGE), 1);
        range->sub = BI_RANGE;
        range->args[0] = infer_const_int(c, range, 0);
        infer_set_args(c, in, &range, 1);
    }
    return ty_iter(ty_scalar(TY_RANGE));
}

Type *infer_getiter(Infer *c, Instr *in)
{
    Type *t = in->args[0]->type;
    if (ty_is_literal_dict(t))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%s is read by constant keys only: its values "
                          "have several types, so a loop over it has no one item type",
                          infer_type_name(t));
    switch (t->kind) {
    case TY_RANGE:
        return ty_iter(t);
    case TY_ITER:
        if (t->iter.over->kind == TY_ITER || is_zip_marker(t->iter.over))
            return getiter_of_loop(c, in, t);
        return t;   /* a loop over an iterator iter() made goes on from where next() left it */
    case TY_ARRAY:
        if (t->array.ndim == 0)
            return infer_fail(c, in, DIAG_TYPING, "iteration over a 0-d array");
        return ty_iter(t);
    case TY_LIST:
    case TY_DICT:
    case TY_SET:
    case TY_NDITER:
        return ty_iter(t);
    case TY_STR:
    case TY_STRING:
        if (!infer_str_allowed(c, in))
            return NULL;
        if (c->rewrite)
            in->args[0] = infer_coerce(c, in, in->args[0], ty_str());
        return ty_iter(ty_str());
    case TY_TUPLE:
        if (t->tuple.n == 0)
            return getiter_of_empty(c, in);
        if (!homogeneous(t) || unrolled_strings(in->args[0]))
            return infer_request_unroll(c, in);
        return ty_iter(t);
    default:
        return infer_fail(c, in, DIAG_TYPING, "%s is not iterable in compiled code", infer_type_name(t));
    }
}

static Instr *int_binop(Infer *c, Instr *before, BinOp op, Instr *a, Instr *b)
{
    Instr *r = infer_emit(c, before, OP_BINOP, ty_scalar(TY_INT64), 2);
    r->sub = op;
    r->args[0] = infer_coerce(c, r, a, ty_scalar(TY_INT64));
    r->args[1] = infer_coerce(c, r, b, ty_scalar(TY_INT64));
    return r;
}

static Instr *range_field(Infer *c, Instr *before, Instr *range, Builtin field)
{
    Instr *f = infer_emit(c, before, OP_INTRINSIC, ty_scalar(TY_INT64), 1);
    f->sub = field;
    f->args[0] = range;
    return f;
}

/* The i-th item of a range: start + i * step. */
static Instr *range_item(Infer *c, Instr *before, Instr *range, Instr *i)
{
    Instr *scaled = int_binop(c, before, BIN_MUL, i, range_field(c, before, range, BI_RANGE_STEP));
    return int_binop(c, before, BIN_ADD, range_field(c, before, range, BI_RANGE_START), scaled);
}

/* x[i] for a loop source: an array element or view, a tuple item, a range's item, the i-th item
 * of a.flat, np.ndindex, np.ndenumerate or np.nditer, the tuple of the items of the sources of a
 * zip (enumerate(zip(...))), or an enumerate's (start + i, item) (zip(enumerate(x), y)). */
static Instr *index_source(Infer *c, Instr *before, Instr *x, Instr *i)
{
    Type *t = x->type, *item = infer_item_of(t);
    if (t->kind == TY_RANGE)
        return range_item(c, before, x, i);
    if (t->kind == TY_ITER && !is_zip_marker(t->iter.over)) {   /* enumerate: (start + i, x[i]) */
        Instr *tuple = ir_new_instr(c->fn, OP_BUILD_TUPLE, 2, before->line);
        tuple->args[0] = x->nargs == 2 ? int_binop(c, before, BIN_ADD, x->args[1], i) : i;
        tuple->args[1] = index_source(c, before, x->args[0], i);
        tuple->type = item;
        ir_insert_before(before, tuple);
        return tuple;
    }
    if (t->kind == TY_ITER) {
        Instr *tuple = ir_new_instr(c->fn, OP_BUILD_TUPLE, x->nargs, before->line);
        for (int k = 0; k < x->nargs; k++)
            tuple->args[k] = index_source(c, before, x->args[k], i);
        tuple->type = item;
        ir_insert_before(before, tuple);
        return tuple;
    }
    bool by_builtin = t->kind == TY_LIST || t->kind == TY_STR || t->kind == TY_NDITER;
    Opcode op = t->kind == TY_ARRAY ? OP_ARRAY_GET : by_builtin ? OP_INTRINSIC : OP_TUPLE_GET;
    Instr *get = infer_emit(c, before, op, item, 2);
    get->sub = t->kind == TY_LIST ? BI_LIST_GETITEM : t->kind == TY_STR ? BI_STR_GETITEM
             : t->kind == TY_NDITER ? BI_NDITER_ITEM : 0;
    get->args[0] = x;
    get->args[1] = i;
    return get;
}

/* Points every use of old at new, except in the values numbered from `made` on (just made). */
static void replace_uses(IRFunc *fn, Instr *old, Instr *new, int made)
{
    for (int b = 0; b < fn->blocks.len; b++) {
        Block *block = fn->blocks.items[b];
        for (int j = 0; j < block->instrs.len; j++) {
            Instr *in = block->instrs.items[j];
            for (int k = 0; k < in->nargs && in->id < made; k++)
                if (in->args[k] == old)
                    in->args[k] = new;
        }
    }
}

/* FOR_ITER over range(n) for an enumerate/zip: the index, and the item tuple built at the top of
 * the loop body, where every use of the old item now points. */
static Type *for_iter_of_loop(Infer *c, Instr *in, Type *item)
{
    Instr *it = in->args[0];
    for (int guard = 0; it->op == OP_PHI && guard < 64; guard++) {
        Instr *next = NULL;
        for (int k = 0; k < it->nargs && !next; k++)
            if (it->args[k] != it && it->args[k]->op != OP_CONST)
                next = it->args[k];
        it = next ? next : it;
    }
    LoopSource *ls = it->op == OP_GETITER ? it->aux : NULL;
    if (!ls)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "this enumerate()/zip() loop is not supported");
    Block *body = in->succ[0];
    int first = 0;
    while (first < body->instrs.len && ((Instr *)body->instrs.items[first])->op == OP_PHI)
        first++;
    Instr *at = body->instrs.items[first];
    int made = c->fn->next_id;
    bool zip = is_zip_marker(ls->marker->iter.over);
    int n = zip ? ls->sources->nargs : 2;
    Instr **items = arena_alloc(c->arena, sizeof *items * (size_t)n);
    if (zip) {
        for (int k = 0; k < n; k++)
            items[k] = index_source(c, at, ls->sources->args[k], in);
    } else {
        items[0] = in;
        if (ls->sources->nargs == 2) {
            items[0] = infer_emit(c, at, OP_BINOP, ty_scalar(TY_INT64), 2);
            items[0]->sub = BIN_ADD;
            items[0]->args[0] = in;
            items[0]->args[1] = infer_coerce(c, items[0], ls->sources->args[1], ty_scalar(TY_INT64));
        }
        items[1] = index_source(c, at, ls->sources->args[0], in);
    }
    Instr *tuple = infer_emit(c, at, OP_BUILD_TUPLE, item, n);
    memcpy(tuple->args, items, sizeof *items * (size_t)n);
    replace_uses(c->fn, in, tuple, made);
    return ty_scalar(TY_INT64);
}

Type *infer_iter_call(Infer *c, Instr *in, Instr *x)
{
    Type *t = x->type;
    if (t->kind == TY_ITER)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "iter() of an iterator is not supported in "
                          "compiled code: call next() on the iterator itself");
    if (t->kind == TY_RANGE || t->kind == TY_ARRAY || t->kind == TY_LIST || t->kind == TY_DICT ||
        t->kind == TY_SET || t->kind == TY_STR || t->kind == TY_STRING || t->kind == TY_TUPLE) {
        in->op = OP_GETITER;   /* the same in every pass: a loop's GETITER from here on */
        infer_set_args(c, in, &x, 1);
        return infer_getiter(c, in);
    }
    return infer_fail(c, in, DIAG_TYPING, "iter() takes a range, array, list, tuple, dict, set or "
                      "str in compiled code, not %s", infer_type_name(t));
}

Type *infer_next_call(Infer *c, Instr *in, Instr *it, Instr *dflt)
{
    Type *t = it->type;
    if (t->kind != TY_ITER || t->iter.over->kind == TY_ITER || is_zip_marker(t->iter.over))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "next() takes an iterator made by iter() in "
                          "compiled code (of a range, array, list, tuple, dict, set or str), not "
                          "%s", infer_type_name(t));
    Type *item = infer_item_of(t->iter.over);
    if (!item)
        return ty_is_undetermined(t->iter.over) ? NULL
               : infer_fail(c, in, DIAG_TYPING, "next() of %s", infer_type_name(t));
    if (dflt && !ty_is_scalar(ty_strong(item)))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "next() with a default is supported for "
                          "iterators of numbers in compiled code, not of %s", infer_type_name(item));
    Type *r = dflt ? ty_promote(item, dflt->type) : item;
    if (!r)
        return infer_fail(c, in, DIAG_TYPING, "next()'s default %s and the items %s have no "
                          "common type", infer_type_name(dflt->type), infer_type_name(item));
    r = ty_strong(r);
    if (c->rewrite) {
        Instr *args[2] = {it, dflt ? infer_coerce(c, in, dflt, r) : NULL};
        in->op = OP_INTRINSIC;
        in->sub = BI_NEXT;
        infer_set_args(c, in, args, dflt ? 2 : 1);
    }
    return r;
}

Type *infer_for_iter(Infer *c, Instr *in)
{
    Type *it = in->args[0]->type;
    if (it->kind != TY_ITER)
        return infer_fail(c, in, DIAG_INTERNAL, "for_iter over %s", infer_type_name(it));
    Type *over = it->iter.over;
    bool marker = over->kind == TY_ITER || is_zip_marker(over);
    if (c->rewrite && in->type && in->type->kind == TY_TUPLE && (marker || over->kind == TY_RANGE))
        return for_iter_of_loop(c, in, in->type);   /* its GETITER is a range(n) by now */
    if (marker) {
        int n = over->kind == TY_ITER ? 2 : over->tuple.n;
        Type **items = arena_alloc(c->arena, sizeof *items * (size_t)n);
        for (int k = 0; k < n; k++)
            items[k] = over->kind == TY_ITER ? (k ? infer_item_of(over->iter.over) : ty_scalar(TY_INT64))
                                             : infer_item_of(over->tuple.items[k]->iter.over);
        return ty_tuple(items, n);
    }
    Type *item = infer_item_of(over);
    if (!item && ty_is_undetermined(over))
        return NULL;   /* typed once something is stored in the container */
    return item ? item : infer_fail(c, in, DIAG_INTERNAL, "for_iter over %s", infer_type_name(over));
}
