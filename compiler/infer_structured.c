/* infer_structured.c: type inference of NumPy records (structured dtypes).
 *
 * An item of an array of a structured dtype is a record (TY_RECORD), a view of the item's bytes,
 * as in Numba. A field is named by a constant: r.x, r['x'], or r[k] with a constant int k (the
 * k-th field). Reads and writes become INTRINSIC BI_RECORD_GET / BI_RECORD_SET with the field's
 * index in imm; a['x'] on an array of records is BI_RECORD_VIEW, a strided view of that field.
 * A field is a scalar, a nested record, or a subarray (an array view of the record's bytes). */
#include "compiler/infer.h"

#include <string.h>

/* "x, y, v": the fields of record type t, for errors. */
static const char *field_list(Infer *c, Type *t)
{
    size_t len = 1;
    for (int i = 0; i < t->record.n; i++)
        len += strlen(t->record.fields[i].name) + 2;
    char *s = arena_alloc(c->arena, len);
    s[0] = 0;
    for (int i = 0; i < t->record.n; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, t->record.fields[i].name);
    }
    return s;
}

static const Const *const_value(Instr *v, int depth);

/* Item i of a tuple known when compiling (a constant, a tuple display, literal_unroll of one). */
static const Const *const_item(Instr *tuple, int64_t i, int depth)
{
    if (tuple->op == OP_BUILD_TUPLE) {
        i = i < 0 ? i + tuple->nargs : i;
        return i >= 0 && i < tuple->nargs ? const_value(tuple->args[i], depth + 1) : NULL;
    }
    const Const *k = const_value(tuple, depth + 1);
    if (!k || k->kind != K_TUPLE)
        return NULL;
    i = i < 0 ? i + k->tuple.n : i;
    return i >= 0 && i < k->tuple.n ? k->tuple.items[i] : NULL;
}

/* The constant v is when compiling, through items of constant tuples taken at constant indices
 * (`names = ('a', 'b'); r[names[0]]`, the loop variable of `for f in literal_unroll(names)`), as
 * Numba's literal values reach a record's getitem; NULL if not known. */
static const Const *const_value(Instr *v, int depth)
{
    if (!v || depth > 16)
        return NULL;
    switch (v->op) {
    case OP_CONST:
        return v->cst;
    case OP_STATIC_GET:
    case OP_STATIC_GETITEM:
        return const_item(v->args[0], v->imm, depth);
    case OP_GETITEM: {
        const Const *index = const_value(v->args[1], depth + 1);
        return index && index->kind == K_INT ? const_item(v->args[0], index->i, depth) : NULL;
    }
    case OP_CALL: {   /* literal_unroll(t), before inference rewrites it to t's items */
        const Const *callee = v->nargs == 2 ? const_value(v->args[0], depth + 1) : NULL;
        bool unroll = callee && callee->kind == K_FUNC && callee->name &&
                      strcmp(callee->name, "pyjit.literal_unroll") == 0;
        return unroll ? const_value(v->args[1], depth + 1) : NULL;
    }
    default:
        return NULL;
    }
}

/* The field of record type t that the constant key names (a name, or a position): its index,
 * or -1 after the error. */
static int field_of(Infer *c, Instr *in, Type *t, Instr *key)
{
    const Const *k = const_value(key, 0);
    if (k && k->kind == K_STR) {
        int i = ty_record_field(t, k->s);
        if (i < 0)
            infer_fail(c, in, DIAG_TYPING, "record has no field '%s' (its fields: %s)",
                       k->s, field_list(c, t));
        return i;
    }
    if (k && k->kind == K_INT) {
        int64_t i = k->i < 0 ? k->i + t->record.n : k->i;
        if (i < 0 || i >= t->record.n)
            infer_fail(c, in, DIAG_TYPING, "record index %lld out of range: it has %d fields (%s)",
                       (long long)k->i, t->record.n, field_list(c, t));
        return i >= 0 && i < t->record.n ? (int)i : -1;
    }
    infer_fail(c, in, DIAG_TYPING, "a record's field is named by a constant string or int, not "
               "by %s", infer_type_name(key->type));
    return -1;
}

/* The value a field reads as: its scalar or record, or an array view of a subarray. */
static Type *field_value_type(const RecordField *f)
{
    return f->ndim ? ty_array(f->type, f->ndim, 'C', false) : f->type;
}

static Type *get_field(Infer *c, Instr *in, Instr *rec, int i)
{
    if (c->rewrite) {
        in->op = OP_INTRINSIC;
        in->sub = BI_RECORD_GET;
        in->imm = i;
        in->name = NULL;
        in->nkw = 0;
        in->kwnames = NULL;
        infer_set_args(c, in, &rec, 1);
    }
    return field_value_type(&rec->type->record.fields[i]);
}

Type *infer_record_getattr(Infer *c, Instr *in, Type *t)
{
    if (strcmp(in->name, "__setattr__") == 0)   /* r.x = v (frontend) */
        return ty_method(t, in->name);
    int i = ty_record_field(t, in->name);
    if (i < 0)
        return infer_fail(c, in, DIAG_TYPING, "record has no field '%s' (its fields: %s)",
                          in->name, field_list(c, t));
    return get_field(c, in, in->args[0], i);
}

Type *infer_record_getitem(Infer *c, Instr *in)
{
    int i = field_of(c, in, in->args[0]->type, in->args[1]);
    return i < 0 ? NULL : get_field(c, in, in->args[0], i);
}

static Type *set_field(Infer *c, Instr *in, Instr *rec, int i, Instr *val)
{
    const RecordField *f = &rec->type->record.fields[i];
    Type *vt = val->type;
    if (f->ndim && (vt->kind == TY_ARRAY || ty_is_scalar(vt))) {
        /* a subarray field: the array (or number) copied into the field's view, as Numba does
         * (the library's method.array._set_all: view[...] = val) */
        if (!c->rewrite)
            return ty_scalar(TY_NONE);
        Instr *view = infer_emit(c, in, OP_INTRINSIC, field_value_type(f), 1);
        view->sub = BI_RECORD_GET;
        view->imm = i;
        view->args[0] = rec;
        Instr *args[2] = {view, val};
        in->name = NULL;
        in->nkw = 0;
        in->kwnames = NULL;
        return infer_library_call(c, in, "method.array._set_all", args, 2);
    }
    bool number = ty_is_scalar(f->type);   /* else a record or a datetime, of its own type */
    bool ok = f->ndim == 0 && (!number ? vt == f->type
                                       : ty_is_scalar(vt) && (ty_is_complex(f->type) || !ty_is_complex(vt)));
    if (!ok)
        return infer_fail(c, in, DIAG_TYPING, "cannot store %s into field '%s' of a record (%s)",
                          infer_type_name(vt), f->name, infer_type_name(field_value_type(f)));
    if (c->rewrite) {
        Instr *args[2] = {rec, number ? infer_coerce(c, in, val, f->type) : val};
        in->op = OP_INTRINSIC;
        in->sub = BI_RECORD_SET;
        in->imm = i;
        in->name = NULL;
        in->nkw = 0;
        in->kwnames = NULL;
        infer_set_args(c, in, args, 2);
    }
    return ty_scalar(TY_NONE);
}

Type *infer_record_setitem(Infer *c, Instr *in)
{
    int i = field_of(c, in, in->args[0]->type, in->args[1]);
    return i < 0 ? NULL : set_field(c, in, in->args[0], i, in->args[2]);
}

/* r.x = v, which the frontend made r.__setattr__("x", v): in is that call. */
Type *infer_record_setattr(Infer *c, Instr *in, Instr *self)
{
    Instr *name = in->nargs == 3 ? in->args[1] : NULL, *val = in->nargs == 3 ? in->args[2] : NULL;
    if (!name || name->op != OP_CONST || name->cst->kind != K_STR)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "__setattr__ of a record takes a constant name");
    if (!val->type)
        return NULL;
    int i = field_of(c, in, self->type, name);
    return i < 0 ? NULL : set_field(c, in, self, i, val);
}

/* a['x'] of an array of records: a view of that field of every item, with the subarray's axes
 * after the array's. */
static Type *field_view(Infer *c, Instr *in, Instr *arr, int i)
{
    Type *at = arr->type, *rt = at->array.dtype;
    const RecordField *f = &rt->record.fields[i];
    if (at->array.ndim + f->ndim > TY_RECORD_MAX_NDIM)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "a view of field '%s' would have too many "
                          "dimensions", f->name);
    if (c->rewrite) {
        in->op = OP_INTRINSIC;
        in->sub = BI_RECORD_VIEW;
        in->imm = i;
        infer_set_args(c, in, &arr, 1);
    }
    return ty_array(f->type, at->array.ndim + f->ndim, 'A', at->array.readonly);
}

Type *infer_record_view(Infer *c, Instr *in)
{
    Instr *arr = in->args[0];
    if (in->args[1]->op != OP_CONST || in->args[1]->cst->kind != K_STR)
        return infer_fail(c, in, DIAG_TYPING, "an array of records is indexed by ints and slices, "
                          "or by a constant field name");
    int i = field_of(c, in, arr->type->array.dtype, in->args[1]);
    return i < 0 ? NULL : field_view(c, in, arr, i);
}

/* a.x of an array of records with a field x (a np.recarray's attribute, and Numba's for any
 * record array): a['x']. NULL, with no error, when x is not a field. */
Type *infer_record_view_attr(Infer *c, Instr *in)
{
    Instr *arr = in->args[0];
    int i = ty_record_field(arr->type->array.dtype, in->name);
    return i < 0 ? NULL : field_view(c, in, arr, i);
}

/* The builtins' rows are what inference makes of fields: never called by name. */
Type *infer_record_builtin(Infer *c, Instr *in, Builtin bi)
{
    return infer_fail(c, in, DIAG_TYPING, "%s is what compiled code makes of a record's field; "
                      "read or write the field", ir_builtin_name(bi));
}
