/* infer_records.c: namedtuples (collections.namedtuple, typing.NamedTuple) in compiled code.
 *
 * A namedtuple value is a tuple whose type carries its class and field names (types.h), so
 * everything tuples do (indexing, unpacking, len, iteration, ==, passing, returning) works on it
 * unchanged; here are what only namedtuples have: construction from the class, with keywords
 * and the fields' defaults, the fields as attributes, and _replace. Each becomes tuple IR: a
 * BUILD_TUPLE typed as the namedtuple, or a STATIC_GET. */
#include "compiler/infer.h"

#include <string.h>

/* The class of namedtuple type t as a K_NAMEDTUPLE constant, what type(p) gives: the type has
 * the class and the field names; the fields' defaults are not known here, so each is given. */
Const *infer_namedtuple_class_of(Infer *c, Type *t)
{
    Const *k = arena_alloc(c->arena, sizeof *k);
    memset(k, 0, sizeof *k);
    k->kind = K_NAMEDTUPLE;
    k->handle = (void *)t->tuple.cls;
    k->name = t->tuple.cls_name;
    k->fields = t->tuple.fields;
    k->tuple.n = t->tuple.n;
    k->tuple.items = arena_alloc(c->arena, sizeof(Const *) * (size_t)(t->tuple.n + 1));
    memset(k->tuple.items, 0, sizeof(Const *) * (size_t)(t->tuple.n + 1));
    return k;
}

/* The class constant a call's callee is: a K_NAMEDTUPLE CONST (globals and closure cells are
 * frozen into constants, so a class is always one), or type(p) of a namedtuple p, which becomes
 * one when the IR is rewritten. */
static const Const *class_const(Infer *c, Instr *callee)
{
    if (callee->op == OP_CONST && callee->cst && callee->cst->kind == K_NAMEDTUPLE)
        return callee->cst;
    Type *of = callee->op == OP_CALL && callee->type && callee->type->kind == TY_NTCLASS &&
               callee->nargs == 2 ? callee->args[1]->type : NULL;
    return of && of->kind == TY_TUPLE && of->tuple.cls ? infer_namedtuple_class_of(c, of) : NULL;
}

/* The namedtuple type of class k with these items (made strong: a field holds a value). */
static Type *record_type(Infer *c, const Const *k, Type **items, int n)
{
    Type **strong = arena_alloc(c->arena, sizeof *strong * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        strong[i] = ty_strong(items[i]);
    return ty_namedtuple(k->handle, k->name, k->fields, strong, n);
}

static int field_of(const char *const *fields, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i], name) == 0)
            return i;
    return -1;
}

/* Puts the keyword arguments of `in` (from its operand `first` on, positionals first) into slots
 * by field name. false with the error on an unknown or repeated field. */
static bool bind_fields(Infer *c, Instr *in, int first, const char *cls, const char *const *fields,
                        int n, Instr **slots)
{
    int npos = in->nargs - in->nkw - first;
    if (npos > n)
        return infer_fail(c, in, DIAG_TYPING, "%s() takes %d positional argument%s (%s%s), "
                          "%d given", cls, n, n == 1 ? "" : "s", n ? fields[0] : "",
                          n > 1 ? ", ..." : "", npos) != NULL;
    for (int i = 0; i < npos; i++)
        slots[i] = in->args[first + i];
    for (int k = 0; k < in->nkw; k++) {
        const char *kw = in->kwnames ? in->kwnames[k] : "?";
        int f = field_of(fields, n, kw);
        if (f < 0)
            return infer_fail(c, in, DIAG_TYPING, "%s() got an unexpected keyword argument '%s'",
                              cls, kw) != NULL;
        if (slots[f])
            return infer_fail(c, in, DIAG_TYPING, "%s() got multiple values for argument '%s'",
                              cls, kw) != NULL;
        slots[f] = in->args[in->nargs - in->nkw + k];
    }
    return true;
}

/* in becomes BUILD_TUPLE of the slots, each converted to its field's type. */
static void build_record(Infer *c, Instr *in, Instr **slots, Type *t)
{
    int n = t->tuple.n;
    Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        args[i] = infer_coerce(c, in, slots[i], t->tuple.items[i]);
    in->op = OP_BUILD_TUPLE;
    in->nkw = 0;
    in->kwnames = NULL;
    infer_set_args(c, in, args, n);
}

Type *infer_namedtuple_call(Infer *c, Instr *in)
{
    const Const *k = class_const(c, in->args[0]);
    if (!k)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "a namedtuple class must be a global or a "
                          "closure variable to be called in compiled code");
    int n = k->tuple.n;
    Instr **slots = arena_alloc(c->arena, sizeof *slots * (size_t)(n + 1));
    Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(n + 1));
    if (!bind_fields(c, in, 1, k->name, k->fields, n, slots))
        return NULL;
    for (int i = 0; i < n; i++) {
        const Const *dflt = k->tuple.items[i];
        if (!slots[i] && !dflt)
            return infer_fail(c, in, DIAG_TYPING, "%s() missing required argument '%s'%s", k->name,
                              k->fields[i], in->args[0]->op == OP_CONST ? "" : " (the class "
                              "type() gives in compiled code takes every field: call the class "
                              "by its name for its defaults)");
        items[i] = slots[i] ? infer_value_type(slots[i]->type) : infer_const_type(c, dflt);
        if (!items[i] || !infer_is_runtime(items[i]))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "%s() field '%s' cannot hold %s in "
                              "compiled code", k->name, k->fields[i],
                              items[i] ? infer_type_name(items[i]) : "its default value");
    }
    Type *t = record_type(c, k, items, n);
    if (c->rewrite) {
        for (int i = 0; i < n; i++)
            if (!slots[i]) {
                slots[i] = infer_emit(c, in, OP_CONST, items[i], 0);
                slots[i]->cst = (Const *)k->tuple.items[i];
            }
        build_record(c, in, slots, t);
    }
    return t;
}

Type *infer_namedtuple_getattr(Infer *c, Instr *in, Type *t)
{
    if (strcmp(in->name, "_replace") == 0)
        return ty_method(t, in->name);
    if (strcmp(in->name, "_fields") == 0)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%s._fields is not supported in compiled code",
                          t->tuple.cls_name);
    int i = ty_field_index(t, in->name);
    if (i < 0 && infer_namedtuple_has_method(c, t, in->name))   /* p.deriv(): its class's method */
        return ty_method(t, in->name);
    if (i < 0)
        return infer_fail(c, in, DIAG_TYPING, "%s has no attribute '%s'", infer_type_name(t), in->name);
    if (c->rewrite) {
        in->op = OP_STATIC_GET;
        in->imm = i;
        in->name = NULL;
    }
    return t->tuple.items[i];
}

/* p._replace(x=...): a new namedtuple of the same class, the fields given replaced (their types
 * may differ, as in Python: the result is typed from the values). */
Type *infer_namedtuple_replace(Infer *c, Instr *in, Instr *self)
{
    Type *t = self->type;
    int n = t->tuple.n;
    const char *const *fields = (const char *const *)t->tuple.fields;
    if (in->nargs - in->nkw > 1)
        return infer_fail(c, in, DIAG_TYPING, "%s._replace() takes keyword arguments only",
                          t->tuple.cls_name);
    Instr **slots = arena_alloc(c->arena, sizeof *slots * (size_t)(n + 1));
    Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(n + 1));
    if (!bind_fields(c, in, 1, "_replace", fields, n, slots))
        return NULL;
    for (int i = 0; i < n; i++)
        items[i] = slots[i] ? ty_strong(slots[i]->type) : t->tuple.items[i];
    Type *r = ty_namedtuple(t->tuple.cls, t->tuple.cls_name, fields, items, n);
    if (c->rewrite) {
        for (int i = 0; i < n; i++)
            if (!slots[i]) {
                slots[i] = infer_emit(c, in, OP_STATIC_GET, items[i], 1);
                slots[i]->args[0] = self;
                slots[i]->imm = i;
            }
        build_record(c, in, slots, r);
    }
    return r;
}
