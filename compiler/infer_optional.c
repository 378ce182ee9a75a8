/* infer_optional.c: Optional values, a variable that is None on one path and a value on another.
 *
 * Where control flow joins None (or an optional) with a value of type T, the variable becomes
 * optional(T) (infer_join, used by phis and returns) instead of the "one type" error. An optional
 * is tested as it is (`x is None`, `x is not None`, `x == None`, `if x:`) and returned to Python
 * as it is (None or the value); every other use takes its value: inference puts an OPTIONAL GET
 * before that use, which raises TypeError ("expected float64, got None") when it is None, as
 * Numba does. After a test such as `if x is not None:` the GET cannot fail, and LLVM folds its
 * check into the test. Values become optional through a CAST (ir.h). A tuple holds an optional
 * item as it is, and tuples join item by item, so `(v, 1)`, `(None, 2) if c else (x, 3)`, and
 * their unpacking keep the None. */
#include "compiler/infer.h"

/* The value type an operand of type t gives an optional: NULL for None. */
static Type *value_of(Type *t)
{
    if (t->kind == TY_NONE)
        return NULL;
    return t->kind == TY_OPTIONAL ? t->optional.value : ty_strong(infer_value_type(t));
}

static bool holds_optional(Type *t)
{
    return t->kind == TY_NONE || t->kind == TY_OPTIONAL;
}

/* Values an optional may hold: run-time values other than iterators and containers whose items
 * are not known yet (an empty list's later appends go through the optional). */
static bool may_be_optional(Type *v)
{
    return infer_is_runtime(v) && !ty_is_iterator(v) && v->kind != TY_NONE && infer_is_complete(v);
}

/* optional(S) to optional(T) converts scalars and array layouts only (ir.h's CAST). */
static bool converts_in_place(Type *from, Type *to)
{
    if (!from || from == to || (ty_is_scalar(from) && ty_is_scalar(to)))
        return true;
    return from->kind == TY_ARRAY && ty_unify(from, to) == to;
}

/* Two tuples joined item by item, as ty_unify does, but an item may become optional:
 * (None, 2) and (x, 3) make (optional(x), int64). */
static Type *join_tuples(Type *a, Type *b)
{
    Type *items[64];
    int n = a->tuple.n;
    if (n != b->tuple.n || a->tuple.cls != b->tuple.cls || n > 64)
        return NULL;
    for (int i = 0; i < n; i++)
        if (!(items[i] = infer_join(a->tuple.items[i], b->tuple.items[i])))
            return NULL;
    return a->tuple.cls ? ty_namedtuple(a->tuple.cls, a->tuple.cls_name,
                                        (const char *const *)a->tuple.fields, items, n)
                        : ty_tuple(items, n);
}

Type *infer_join(Type *a, Type *b)
{
    Type *u = ty_unify(a, b);
    if (!u && a && b && a->kind == TY_TUPLE && b->kind == TY_TUPLE)
        return join_tuples(a, b);
    if (u || !a || !b || (!holds_optional(a) && !holds_optional(b)))
        return u;
    Type *va = value_of(a), *vb = value_of(b);
    Type *v = !va ? vb : !vb ? va : ty_strong(ty_unify(va, vb));
    if (!v || !may_be_optional(v))
        return NULL;
    if ((a->kind == TY_OPTIONAL && !converts_in_place(va, v)) ||
        (b->kind == TY_OPTIONAL && !converts_in_place(vb, v)))
        return NULL;
    return ty_optional(v);
}

Instr *infer_wrap_optional(Infer *c, Instr *before, Instr *val, Type *to)
{
    Type *from = ty_strong(val->type);
    if (!holds_optional(from))
        val = infer_coerce(c, before, val, to->optional.value);
    Instr *cast = infer_emit(c, before, OP_CAST, to, 1);
    cast->args[0] = val;
    return cast;
}

/* Operations that take an optional as it is: tests against None, truth, returns, calls of other
 * @njit functions (specialised for it: `helper(x, out=buf)` with buf None or an array) and of
 * jitclass constructors and methods (a linked node made from a head that may be None), and the
 * operations on optionals themselves. */
static bool takes_optional(const Instr *in)
{
    switch (in->op) {
    case OP_PHI: case OP_RET: case OP_TRUTH: case OP_CBR: case OP_OPTIONAL: case OP_CAST:
    case OP_BUILD_TUPLE:   /* (x, None) with x optional: the item stays optional */
        return true;
    case OP_CALL:
        if (in->args[0]->op == OP_CONST && in->args[0]->cst->kind == K_FUNC &&
            in->args[0]->cst->jitclass)
            return true;
        if (in->args[0]->type && in->args[0]->type->kind == TY_BOUND_METHOD &&
            in->args[0]->type->method.self->kind == TY_CLASS)   /* a jitclass's own methods */
            return true;
        return in->args[0]->type && in->args[0]->type->kind == TY_DISPATCHER && in->imm != 1;
    case OP_COMPARE:
        return in->sub == CMP_IS || in->sub == CMP_ISNOT || in->args[0]->type->kind == TY_NONE ||
               in->args[1]->type->kind == TY_NONE;
    default:
        return false;
    }
}

/* A phi that is None so far while an input is not (a loop's back edge, not taken yet in this
 * round, or an input not typed yet): it becomes optional in a later round. */
static bool may_change(const Instr *phi)
{
    if (phi->op != OP_PHI || phi->type->kind != TY_NONE)
        return false;
    for (int i = 0; i < phi->nargs; i++)
        if (!phi->args[i]->type || phi->args[i]->type->kind != TY_NONE)
            return true;
    return false;
}

bool infer_none_waits(Infer *c, Instr *in)
{
    if (c->none_final || takes_optional(in))
        return false;
    for (int i = 0; i < in->nargs; i++)
        if (may_change(in->args[i])) {
            c->none_waits = true;
            return true;
        }
    return false;
}

Instr *infer_unwrap(Infer *c, Instr *before, Instr *v)
{
    Instr *get = infer_emit(c, before, OP_OPTIONAL, v->type->optional.value, 1);
    get->sub = OPT_GET;
    get->args[0] = v;
    return get;
}

void infer_unwrap_operands(Infer *c, Instr *in)
{
    if (takes_optional(in))
        return;
    for (int i = 0; i < in->nargs; i++) {
        Instr *a = in->args[i];
        if (a->type && a->type->kind == TY_OPTIONAL)
            in->args[i] = infer_unwrap(c, in, a);
    }
}

Type *infer_optional_instr(Infer *c, Instr *in)
{
    (void)c;
    Type *t = in->args[0]->type;
    if (in->sub == OPT_IS_NONE)
        return ty_scalar(TY_BOOL);
    return t->kind == TY_OPTIONAL ? t->optional.value : t;
}

Type *infer_optional_compare(Infer *c, Instr *in)
{
    bool is = in->sub == CMP_IS || in->sub == CMP_EQ;
    infer_set_known(c, in, -1);   /* folded while the variable was None in an earlier round */
    if (c->rewrite) {
        Instr *x = in->args[in->args[0]->type->kind == TY_OPTIONAL ? 0 : 1];
        Instr *test = in;
        if (!is)
            test = infer_emit(c, in, OP_OPTIONAL, ty_scalar(TY_BOOL), 1);
        test->op = OP_OPTIONAL;
        test->sub = OPT_IS_NONE;
        infer_set_args(c, test, &x, 1);
        if (!is) {
            in->op = OP_UNARY;
            in->sub = UN_NOT;
            infer_set_args(c, in, &test, 1);
        }
    }
    return ty_scalar(TY_BOOL);
}
