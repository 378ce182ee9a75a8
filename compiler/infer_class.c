/* infer_class.c: jitclass instances (pyjit.experimental.jitclass) in compiled code.
 *
 * A jitclass's fields are typed by its spec (types.h TY_CLASS); everything else it has (methods,
 * properties, static methods, dunder methods) is Python code compiled like a library overload:
 * pyjit/experimental/_jitclass.py registers each under a key naming the instance type,
 * "method.instance(Bag@1).<name>" for a method, "getter.<type>.<name>" and "setter.<type>.<name>"
 * for a property, and inference calls it with the instance first (infer_library_call, or a method
 * call through call_method's overloads). Fields become the builtins.def rows CLASS_GET and
 * CLASS_SET, and the constructor that file writes makes the instance with CLASS_NEW. A structref
 * (pyjit/experimental/structref.py) is such a class too, one per combination of field types. */
#include "compiler/infer.h"

#include <string.h>

/* "<kind>.<t>.<name>" when overloads are registered under it for the jitclass of type t (or the
 * structref it was made from: pyjit.extending finds those), else NULL. */
static const char *member_key(Infer *c, const char *kind, Type *t, const char *name)
{
    const char *key = arena_printf(c->arena, "%s.%s.%s", kind, t->name, name);
    const CompilerHost *host = c->pi->prog->host;
    return host && host->method_overloads && host->method_overloads(host->ctx, key) ? key : NULL;
}

Type *infer_class_getattr(Infer *c, Instr *in, Type *t)
{
    int i = ty_class_field(t, in->name);
    if (i >= 0) {
        if (c->rewrite) {
            in->op = OP_INTRINSIC;
            in->sub = BI_CLASS_GET;
            in->imm = i;
            in->name = NULL;
        }
        return t->klass.data->tuple.items[i];
    }
    const char *getter = member_key(c, "getter", t, in->name);
    if (getter)
        return infer_library_call(c, in, getter, in->args, 1);
    if (strcmp(in->name, "__setattr__") == 0 || member_key(c, "method", t, in->name))
        return ty_method(t, in->name);
    return infer_fail(c, in, DIAG_TYPING, "jitclass %s has no attribute '%s'", t->klass.cls_name,
                      in->name);
}

/* Whether a value of type vt may be stored into a field of type ft: numbers convert (not a
 * complex one to a real field), other values must be of the field's type (an array of any
 * layout into an 'A' field). */
static bool field_accepts(Type *ft, Type *vt)
{
    if (ty_is_scalar(ft) && ty_is_scalar(vt))
        return ty_is_complex(ft) || !ty_is_complex(vt);
    if (ft->kind == TY_OPTIONAL && vt != ft)   /* optional(T) takes None and what T takes */
        return vt->kind == TY_NONE || field_accepts(ft->optional.value,
                                                    vt->kind == TY_OPTIONAL ? vt->optional.value : vt);
    return ty_unify(ft, vt) == ft;
}

/* An empty list, dict or set made in this function and stored into a field: it takes the
 * field's type, as it would from the items stored in it later (another round follows). */
static bool type_from_field(Infer *c, Instr *val, Type *ft)
{
    if (val->id >= c->nknown || val->type->kind != ft->kind)
        return false;
    if (val->op == OP_BUILD_LIST && !c->list_items[val->id])
        c->list_items[val->id] = ft->list.item;
    else if ((val->op == OP_BUILD_DICT || val->op == OP_BUILD_SET) && !c->table_types[val->id])
        c->table_types[val->id] = ft;
    else
        return false;
    c->changed = true;
    return true;
}

static Type *set_field(Infer *c, Instr *in, Instr *self, int i, Instr *val)
{
    Type *t = self->type, *ft = t->klass.data->tuple.items[i];
    Type *vt = infer_value_type(val->type);
    if (ty_is_undetermined(vt)) {
        if (type_from_field(c, val, ft))
            return NULL;
        return infer_fail(c, in, DIAG_TYPING, "%s.%s (%s) cannot be given an empty %s whose "
                          "items are not known: make it of the field's type (%s)",
                          t->klass.cls_name, t->klass.fields[i], infer_type_name(ft),
                          infer_type_name(vt), ft->name);
    }
    bool unwrap = vt->kind == TY_OPTIONAL && ft->kind != TY_OPTIONAL;
    if (unwrap)   /* an optional value (a method's argument): its value, TypeError when None */
        vt = vt->optional.value;
    if (!field_accepts(ft, vt))
        return infer_fail(c, in, DIAG_TYPING, "cannot set %s.%s, a field of type %s, to %s",
                          t->klass.cls_name, t->klass.fields[i], infer_type_name(ft),
                          infer_type_name(vt));
    if (c->rewrite && unwrap)
        val = infer_unwrap(c, in, val);
    if (c->rewrite) {
        Instr *args[2] = {self, infer_coerce(c, in, val, ft)};
        in->op = OP_INTRINSIC;
        in->sub = BI_CLASS_SET;
        in->imm = i;
        in->nkw = 0;
        in->kwnames = NULL;
        infer_set_args(c, in, args, 2);
    }
    return ty_scalar(TY_NONE);
}

/* obj.name = value, which the frontend made obj.__setattr__("name", value): in is that call. */
Type *infer_class_setattr(Infer *c, Instr *in, Instr *self)
{
    Type *t = self->type;
    Instr *name = in->nargs == 3 ? in->args[1] : NULL, *val = in->nargs == 3 ? in->args[2] : NULL;
    if (!name || name->op != OP_CONST || name->cst->kind != K_STR)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "__setattr__ of a jitclass takes a constant name");
    if (!val->type)
        return NULL;
    int i = ty_class_field(t, name->cst->s);
    if (i >= 0)
        return set_field(c, in, self, i, val);
    const char *setter = member_key(c, "setter", t, name->cst->s);
    if (setter)
        return infer_library_call(c, in, setter, (Instr *[]){self, val}, 2);
    if (member_key(c, "getter", t, name->cst->s))
        return infer_fail(c, in, DIAG_TYPING, "property '%s' of jitclass %s has no setter",
                          name->cst->s, t->klass.cls_name);
    return infer_fail(c, in, DIAG_TYPING, "jitclass %s has no field '%s' (its fields are those of "
                      "its spec)", t->klass.cls_name, name->cst->s);
}

/* new_instance(T), the constructor's first step: T an instance type given as a constant. */
Type *infer_class_builtin(Infer *c, Instr *in, Builtin bi, Instr **pos, int npos)
{
    Instr *k = npos == 1 ? pos[0] : NULL;
    Type *t = k && k->op == OP_CONST && k->cst->kind == K_TYPE ? ty_parse(k->cst->name) : NULL;
    if (bi != BI_CLASS_NEW || !t || t->kind != TY_CLASS)
        return infer_fail(c, in, DIAG_TYPING, "%s is made by a jitclass's constructor only",
                          ir_builtin_name(bi));
    if (c->rewrite) {
        in->op = OP_INTRINSIC;
        in->sub = BI_CLASS_NEW;
        in->nargs = in->nkw = 0;
        in->kwnames = NULL;
    }
    return t;
}

Type *infer_class_dunder(Infer *c, Instr *in, const char *method, Instr **args, int nargs)
{
    Type *t = args[0]->type;
    if (!t || t->kind != TY_CLASS)
        return NULL;
    const char *key = member_key(c, "method", t, method);
    if (!key)
        return infer_fail(c, in, DIAG_TYPING, "jitclass %s has no method %s", t->klass.cls_name,
                          method);
    return infer_library_call(c, in, key, args, nargs);
}

/* a + b, a < b, ... with a jitclass instance on the left: its dunder method (an in-place
 * operator falls back on the plain one, as in Python). */
Type *infer_class_operator(Infer *c, Instr *in)
{
    static const char *const binops[] = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                         "lshift", "rshift", "and", "or", "xor", "matmul"};
    static const char *const cmps[] = {"lt", "le", "eq", "ne", "gt", "ge"};
    Type *t = in->args[0]->type;
    const char *name;
    if (in->op == OP_COMPARE && in->sub <= CMP_GE)
        name = arena_printf(c->arena, "__%s__", cmps[in->sub]);
    else if (in->op == OP_BINOP && in->sub <= BIN_MATMUL)
        name = arena_printf(c->arena, "__%s%s__", in->imm ? "i" : "", binops[in->sub]);
    else
        return infer_fail(c, in, DIAG_UNSUPPORTED, "this operation on jitclass %s instances is "
                          "not supported", t->klass.cls_name);
    if (in->op == OP_BINOP && in->imm && !member_key(c, "method", t, name))
        name = arena_printf(c->arena, "__%s", name + 3);   /* __iadd__ -> __add__ */
    if (!member_key(c, "method", t, name))
        return infer_fail(c, in, DIAG_TYPING, "jitclass %s has no method %s", t->klass.cls_name, name);
    return infer_operator_method(c, in, name);
}
