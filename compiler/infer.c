/* infer.c: type inference, from the untyped SSA IR to the typed IR contract of ir.h.
 *
 * Each function of a Program is typed for its argument types in two passes over the same
 * per-opcode handlers (infer.h says why): a worklist that runs until no type and no block's
 * reachability changes (phis unify their inputs, loops converge, conditions known at compile time
 * such as `x is None` leave their dead branch untyped), then a rewrite that inserts the CASTs and
 * replaces Python-level operations with explicit ones. Literals are weak (NEP 50) while inference
 * runs, so `x * 2.0` stays float32 for a float32 x; whatever is still weak at the end becomes
 * strong. Calls to other compiled functions type them as further functions of the same Program.
 *
 * This file holds the drivers, the shared helpers and the handlers of the scalar opcodes;
 * infer_items.c handles attributes, indexing and iteration, infer_calls.c calls. */
#include "compiler/infer.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define MAX_ROUNDS 256     /* worklist rounds before inference gives up (never on real code) */
#define MAX_DEPTH 64       /* nested specialisations (f(t) calling f((t,)) would never end) */

typedef struct MemoEntry {
    void *handle;
    Type **argtypes;
    int nargs;
    Type *declared;
    TypedFunc *tf;
    int literal_arg;    /* >= 0: typing it asked for this argument's value (DIAG_LITERAL) */
    int literal_shape;  /* that request came from an array's shape (Diag.literal_shape) */
} MemoEntry;

typedef struct IrEntry {
    void *handle;
    IRFunc *ir;
    bool taken;         /* already given to a specialisation, which edits it */
} IrEntry;

typedef struct BlockInfo {
    bool exec;
} BlockInfo;

/* ---- shared helpers ---------------------------------------------------------------------- */

static bool failed(const Infer *c)
{
    return c->diag->kind != DIAG_NONE;
}

Type *infer_fail(Infer *c, const Instr *at, DiagKind kind, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(c->diag, kind, c->fn->qualname, c->fn->filename, at ? at->line : c->fn->firstline,
               at ? at->col : -1, at ? at->end_col : -1, "%s", msg);
    return NULL;
}

Instr *infer_emit(Infer *c, Instr *before, Opcode op, Type *type, int nargs)
{
    Instr *in = ir_new_instr(c->fn, op, nargs, before->line);
    in->col = before->col;
    in->end_col = before->end_col;
    in->type = type;
    ir_insert_before(before, in);
    return in;
}

/* val converted to type `to`: scalars by CAST, tuples item by item; arrays that differ only in
 * layout or writability share one representation and are passed as they are. */
Instr *infer_coerce(Infer *c, Instr *before, Instr *val, Type *to)
{
    Type *from = ty_strong(val->type);
    if (!to || from == to || !from)
        return val;
    if (to->kind == TY_OPTIONAL)
        return infer_wrap_optional(c, before, val, to);
    if (from->kind == TY_STRING && to->kind == TY_STR && from->literal) {   /* the constant as a value */
        Instr *k = infer_emit(c, before, OP_CONST, to, 0);
        k->cst = (Const *)from->literal;
        return k;
    }
    if (from->kind == TY_DISPATCHER && to->kind == TY_FUNCPTR)
        return infer_function_address(c, before, val, to);
    if (ty_is_scalar(from) && ty_is_scalar(to)) {
        Instr *cast = infer_emit(c, before, OP_CAST, to, 1);
        cast->args[0] = val;
        return cast;
    }
    if (from->kind == TY_TUPLE && to->kind == TY_TUPLE && from->tuple.n == to->tuple.n) {
        int n = from->tuple.n;
        Instr *tuple = ir_new_instr(c->fn, OP_BUILD_TUPLE, n, before->line);
        for (int i = 0; i < n; i++) {
            Instr *item = infer_emit(c, before, OP_STATIC_GET, from->tuple.items[i], 1);
            item->args[0] = val;
            item->imm = i;
            tuple->args[i] = infer_coerce(c, before, item, to->tuple.items[i]);
        }
        tuple->type = to;
        ir_insert_before(before, tuple);
        return tuple;
    }
    return val;
}

Instr *infer_const_int(Infer *c, Instr *before, int64_t v)
{
    Instr *in = infer_emit(c, before, OP_CONST, ty_scalar(TY_INT64), 0);
    in->cst = ir_new_const(c->fn, K_INT);
    in->cst->i = v;
    return in;
}

void infer_make_const_bool(Infer *c, Instr *in, bool v)
{
    in->op = OP_CONST;
    in->cst = ir_new_const(c->fn, K_BOOL);
    in->cst->b = v;
    in->nargs = 0;
    in->nkw = 0;
    in->sub = 0;
    in->type = ty_scalar(TY_BOOL);
}

void infer_set_args(Infer *c, Instr *in, Instr **args, int nargs)
{
    Instr **copy = nargs ? arena_alloc(c->arena, sizeof *copy * (size_t)nargs) : NULL;
    if (nargs)
        memcpy(copy, args, sizeof *copy * (size_t)nargs);
    in->args = copy;
    in->nargs = nargs;
    in->nkw = 0;
    in->kwnames = NULL;
}

void infer_set_known(Infer *c, Instr *in, int v)
{
    if (in->id >= 0 && in->id < c->nknown)
        c->known[in->id] = (signed char)v;
}

int infer_known(Infer *c, const Instr *in)
{
    if (in->op == OP_CONST) {
        const Const *k = in->cst;
        switch (k->kind) {
        case K_NONE: return 0;
        case K_BOOL: return k->b;
        case K_INT: return k->i != 0;
        case K_FLOAT: return k->f != 0;
        case K_COMPLEX: return k->c.re != 0 || k->c.im != 0;
        case K_TUPLE: return k->tuple.n != 0;
        default: return -1;
        }
    }
    return in->id >= 0 && in->id < c->nknown ? c->known[in->id] : -1;
}

bool infer_const_index(const Instr *in, int64_t *out)
{
    if (in->op != OP_CONST || (in->cst->kind != K_INT && in->cst->kind != K_BOOL))
        return false;
    *out = in->cst->kind == K_INT ? in->cst->i : in->cst->b;
    return true;
}

bool infer_is_none_const(const Instr *in)
{
    return in->op == OP_CONST && in->cst->kind == K_NONE;
}

const char *infer_type_name(const Type *t)
{
    if (!t)
        return "?";
    return t->weak ? ty_strong((Type *)t)->name : t->name;
}

bool infer_is_runtime(const Type *t)
{
    if (!t)
        return false;
    if (ty_is_scalar(t))
        return true;
    switch (t->kind) {
    case TY_NONE: case TY_ARRAY: case TY_RANGE: case TY_SLICE: case TY_ITER: case TY_NDITER: case TY_LIST:
    case TY_DICT: case TY_SET: case TY_STR: case TY_CLASS: case TY_CPOINTER: case TY_FUNCPTR:
    case TY_OPTIONAL: case TY_RNG: case TY_RECORD: case TY_DATETIME: case TY_TIMEDELTA:
        return true;
    case TY_TUPLE:
        for (int i = 0; i < t->tuple.n; i++)
            if (!infer_is_runtime(t->tuple.items[i]))
                return false;
        return true;
    default:
        return false;
    }
}

bool infer_is_complete(const Type *t)
{
    if (t && t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            if (!infer_is_complete(t->tuple.items[i]))
                return false;
    return !ty_is_undetermined(t);
}

Type *infer_const_type(Infer *c, const Const *k)
{
    switch (k->kind) {
    case K_NONE: return ty_scalar(TY_NONE);
    case K_ELLIPSIS: return ty_scalar(TY_ELLIPSIS);
    case K_BOOL: return ty_scalar(TY_BOOL);
    case K_INT: return k->array_type ? k->array_type : ty_scalar(TY_INT64);
    case K_FLOAT: return ty_scalar(TY_FLOAT64);
    case K_COMPLEX: return ty_scalar(TY_COMPLEX128);
    case K_STR: return ty_str();   /* inside a tuple constant: a value */
    case K_ARRAY: return k->array_type;
    case K_TUPLE: {
        Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(k->tuple.n + 1));
        for (int i = 0; i < k->tuple.n; i++)
            if (!(items[i] = infer_const_type(c, k->tuple.items[i])))
                return NULL;
        if (k->fields)   /* a namedtuple */
            return ty_namedtuple(k->handle, k->name, k->fields, items, k->tuple.n);
        return ty_tuple(items, k->tuple.n);
    }
    default: return NULL;
    }
}

/* ---- reachability ------------------------------------------------------------------------ */

static bool block_exec(const Block *b)
{
    return b && b->aux && ((BlockInfo *)b->aux)->exec;
}

static void mark_exec(Infer *c, Block *b)
{
    if (b && b->aux && !((BlockInfo *)b->aux)->exec) {
        ((BlockInfo *)b->aux)->exec = true;
        c->changed = true;
    }
}

/* The side a CBR takes when known at compile time (1 true, 0 false, -1 unknown): type_cbr
 * records it on the CBR itself, as the truth of a value of no run-time truth (None, a tuple) is
 * known from its type alone, the TRUTH the rewrite puts in the condition's place not. */
static int cbr_known(Infer *c, const Instr *t)
{
    int k = infer_known(c, t);
    return k >= 0 ? k : infer_known(c, t->args[0]);
}

/* Whether control can go from p to b: p is reachable and, if it branches on a condition known
 * at compile time, b is the side taken. */
static bool edge_live(Infer *c, Block *p, Block *b)
{
    if (!block_exec(p))
        return false;
    Instr *t = ir_terminator(p);
    if (!t)
        return false;
    if (t->op == OP_CBR && t->nargs == 1) {
        int k = cbr_known(c, t);
        if (k >= 0)
            return t->succ[k ? 0 : 1] == b;
    }
    return true;
}

/* ---- scalar opcodes ---------------------------------------------------------------------- */

static bool is_undefined_value(const Instr *a)
{
    return !a->type || (a->op == OP_CONST && a->cst->kind == K_UNDEFINED);
}

static Type *phi_conflict(Infer *c, Instr *phi, Instr *a, Type *ta, Instr *b)
{
    if (phi->var)
        return infer_fail(c, phi, DIAG_TYPING,
                          "variable '%s' is %s at line %d and %s at line %d; a variable must keep "
                          "one type", phi->var, infer_type_name(ta), a->line,
                          infer_type_name(b->type), b->line);
    return infer_fail(c, phi, DIAG_TYPING,
                      "a value is %s at line %d and %s at line %d where control flow joins",
                      infer_type_name(ta), a->line, infer_type_name(b->type), b->line);
}

/* A value of type t for a path where the variable has none: zero for scalars, None, a tuple of
 * such values, else (arrays) a CONST K_UNDEFINED of that type, for lowering an undefined value. */
static Instr *undefined_value(Infer *c, Instr *before, Instr *old, Type *t)
{
    if (ty_is_scalar(t))
        return infer_coerce(c, before, infer_const_int(c, before, 0), t);
    if (t->kind == TY_NONE || t->kind == TY_OPTIONAL) {
        Instr *none = infer_emit(c, before, OP_CONST, ty_scalar(TY_NONE), 0);
        none->cst = ir_new_const(c->fn, K_NONE);
        return infer_coerce(c, before, none, t);
    }
    if (t->kind == TY_TUPLE) {
        Instr **items = arena_alloc(c->arena, sizeof *items * (size_t)(t->tuple.n + 1));
        for (int i = 0; i < t->tuple.n; i++)
            items[i] = undefined_value(c, before, old, t->tuple.items[i]);
        Instr *tuple = infer_emit(c, before, OP_BUILD_TUPLE, t, 0);
        infer_set_args(c, tuple, items, t->tuple.n);
        return tuple;
    }
    Instr *in = infer_emit(c, before, OP_CONST, t, 0);
    in->cst = ir_new_const(c->fn, K_UNDEFINED);
    in->cst->s = old && old->op == OP_CONST ? old->cst->s : NULL;
    return in;
}

static bool maybe_unset(Infer *c, const Instr *a)
{
    return is_undefined_value(a) || (a->id < c->nknown && c->maybe_unset[a->id]);
}

/* A variable unset on some path into a phi is an error where it is used (finish_types), unless
 * it is assigned in a loop: `for i in ...: pass` then `i` is Python's own business (the value
 * is then zero if the loop never ran), as it is Numba's. */
static void note_unset(Infer *c, Instr *phi)
{
    bool unset = false, loop = false;
    for (int i = 0; i < phi->nargs; i++) {
        Instr *a = phi->args[i];
        if (maybe_unset(c, a))
            unset = true;
        else if (a->block && a->block->id < c->fn->blocks.len && c->in_cycle[a->block->id])
            loop = true;
    }
    if (phi->id < c->nknown)
        c->maybe_unset[phi->id] = unset && !loop;
}

static void rewrite_phi(Infer *c, Instr *phi, Type *t)
{
    Block *b = phi->block;
    note_unset(c, phi);
    for (int i = 0; i < phi->nargs && i < b->preds.len; i++) {
        Block *p = b->preds.items[i];
        Instr *term = ir_terminator(p), *a = phi->args[i];
        if (!term)
            continue;
        if (is_undefined_value(a))
            phi->args[i] = undefined_value(c, term, a, t);
        else
            phi->args[i] = infer_coerce(c, term, a, t);
    }
}

Type *infer_no_debugger(Infer *c, Instr *in, const char *what)
{
    const Program *p = c->pi->prog;
    return infer_fail(c, in, DIAG_UNSUPPORTED, "%s cannot stop in a kernel compiled %s: pdb "
                      "needs the kernel's own Python, which PYJIT_SIMULATOR=1 (the interpreted "
                      "simulator) runs, one thread at a time (docs/simulator.md)", what,
                      p->gpu_sim ? "by PYJIT_SIMULATOR=cpu" : "for the GPU");
}

/* A value compiled code cannot use; a plain Python function gets told how to become callable. */
static Type *opaque_fail(Infer *c, Instr *in, const Const *k)
{
    const char *name = k->name ? k->name : "this value";
    const char *last = strrchr(name, '.') ? strrchr(name, '.') + 1 : name;
    if (prog_kernel_code(c->pi->prog)) {   /* pdb's (or a test runner's wrapper of it) */
        if (strcmp(name, "builtins.breakpoint") == 0)
            return infer_no_debugger(c, in, "breakpoint()");
        if (strcmp(last, "set_trace") == 0)
            return infer_no_debugger(c, in, "pdb.set_trace()");
        if (strcmp(last, "post_mortem") == 0)
            return infer_no_debugger(c, in, "pdb.post_mortem()");
    }
    if (k->python_function)
        return infer_fail(c, in, DIAG_TYPING, "%s() is a plain Python function: decorate it with "
                          "@njit to call it from compiled code", name);
    if (k->gpu_kernel)
        return infer_fail(c, in, DIAG_TYPING, "%s is a kernel: kernels are launched from the "
                          "host only (a kernel launching kernels, dynamic parallelism, is not "
                          "supported); make it @gpu.jit(device=True) to call it from a kernel",
                          name);
    if (strncmp(name, "pyjit.types.", 12) == 0)   /* types.UniTuple(...) inside: Numba refuses too */
        return infer_fail(c, in, DIAG_TYPING, "%s(...) is not supported in compiled code: "
                          "build the type outside the function (a global such as "
                          "key_ty = types.UniTuple(types.int64, 2)) and use that name inside",
                          name);
    return infer_fail(c, in, DIAG_TYPING, "%s is not supported in compiled code", name);
}

/* A Python int meeting a narrower integer where control flow joins gives int64, as Numba types
 * the variable: `s = 0` then `s += a[i]` over uint8 items sums in int64 (and `h = h * 31 + b[i]`
 * over bytes hashes as CPython's ints do). NEP 50 keeps operands weak, not accumulators. */
static Type *join_values(Type *a, Type *b)
{
    bool weak_a = a->weak && a->kind == TY_INT64, weak_b = b->weak && b->kind == TY_INT64;
    if (weak_a != weak_b) {
        Type *other = weak_a ? b : a;
        if (!other->weak && ty_is_int(other) && ty_bits(other) < 64)
            return ty_scalar(TY_INT64);
    }
    return infer_join(a, b);
}

static Type *type_phi(Infer *c, Instr *phi)
{
    Block *b = phi->block;
    Type *acc = NULL;
    Instr *from = NULL;
    for (int i = 0; i < phi->nargs && i < b->preds.len; i++) {
        Instr *a = phi->args[i];
        if (!edge_live(c, b->preds.items[i], b) || is_undefined_value(a) || a == phi)
            continue;
        if (a->op == OP_CONST && a->cst->kind == K_OPAQUE)
            return opaque_fail(c, phi, a->cst);
        if (!acc) {
            acc = a->type;
            from = a;
            continue;
        }
        Type *u = join_values(acc, a->type);
        if (!u)
            return phi_conflict(c, phi, from, acc, a);
        acc = u;
    }
    if (acc && !infer_is_runtime(acc) && acc->kind != TY_UNDEFINED) {
        /* Compile-time values (a module, a function) may flow through a join only unchanged. */
        for (int i = 0; i < phi->nargs; i++)
            if (phi->args[i]->type && !is_undefined_value(phi->args[i]) && phi->args[i]->type != acc)
                return phi_conflict(c, phi, from, acc, phi->args[i]);
    }
    if (c->rewrite && acc)
        rewrite_phi(c, phi, ty_strong(acc));
    return acc;
}

static const char *binop_symbol(int op)
{
    static const char *const s[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"};
    return op >= 0 && op <= BIN_MATMUL ? s[op] : "?";
}

static bool is_bitwise(int op)
{
    return op == BIN_AND || op == BIN_OR || op == BIN_XOR;
}

bool infer_binop_types(int op, Type *a, Type *b, bool python, Type **opt, Type **res)
{
    Type *t = ty_promote(a, b);
    if (!t || op == BIN_MATMUL)
        return false;
    bool weak = t->weak;
    Type *s = ty_strong(t), *i64 = ty_scalar(TY_INT64), *f64 = ty_scalar(TY_FLOAT64);
    bool shift = op == BIN_LSHIFT || op == BIN_RSHIFT;
    if (s->kind == TY_BOOL && !is_bitwise(op) && (python || shift || op == BIN_SUB))
        s = i64;
    /* NumPy has no common type for a uint64 and a signed int; Numba shifts them anyway, the
     * shifted operand's signedness deciding (`x >> k` of a uint64 by an int64 count) */
    if (shift && python && ty_is_int(ty_strong(a)) && ty_is_int(ty_strong(b)) && !ty_is_int(s))
        s = ty_is_signed(ty_strong(a)) ? i64 : ty_scalar(TY_UINT64);
    if ((shift || is_bitwise(op)) && !ty_is_int(s) && s->kind != TY_BOOL)
        return false;
    if ((op == BIN_FLOORDIV || op == BIN_MOD) && ty_is_complex(s))
        return false;
    /* int ** int computes in int64; a uint64 (NumPy's scalar) keeps its type, whose values past
     * 2**63 an int64 exponent would take for negative ones */
    if (op == BIN_POW && python && (ty_is_int(s) || s->kind == TY_BOOL) && s->kind != TY_UINT64)
        s = i64;
    /* NumPy has no bool loop for //, % and **: bool arrays compute them in int8 */
    if (!python && s->kind == TY_BOOL && (op == BIN_FLOORDIV || op == BIN_MOD || op == BIN_POW))
        s = ty_scalar(TY_INT8);
    Type *r = s;
    if (op == BIN_TRUEDIV && (ty_is_int(s) || s->kind == TY_BOOL))
        r = s = f64;
    *opt = weak ? ty_weak(s) : s;
    *res = weak ? ty_weak(r) : r;
    return true;
}

static Type *elem_type(Type *t)
{
    return t && t->kind == TY_ARRAY ? t->array.dtype : t;
}

static Type *binop_unsupported(Infer *c, Instr *in, Type *a, Type *b)
{
    return infer_fail(c, in, DIAG_TYPING, "unsupported operand types for %s: %s and %s",
                      binop_symbol(in->sub), infer_type_name(a), infer_type_name(b));
}

static Type *array_binop(Infer *c, Instr *in, Type *a, Type *b)
{
    Type *opt, *res;
    if (!ty_is_scalar(elem_type(a)) || !ty_is_scalar(elem_type(b)) ||
        !infer_binop_types(in->sub, elem_type(a), elem_type(b), false, &opt, &res))
        return binop_unsupported(c, in, a, b);
    int ndim_a = a->kind == TY_ARRAY ? a->array.ndim : 0, ndim_b = b->kind == TY_ARRAY ? b->array.ndim : 0;
    Type *result = ty_array(ty_strong(res), ndim_a > ndim_b ? ndim_a : ndim_b, 'C', false);
    if (in->imm && a->kind == TY_ARRAY) {
        if (a->array.readonly)
            return infer_fail(c, in, DIAG_TYPING, "array is read-only: cannot update it with %s=",
                              binop_symbol(in->sub));
        if (ndim_b > ndim_a)
            return infer_fail(c, in, DIAG_TYPING, "cannot broadcast a %dd operand into a %dd array "
                              "updated in place", ndim_b, ndim_a);
        result = a;
    }
    if (c->rewrite)
        for (int k = 0; k < 2; k++)
            if (in->args[k]->type->kind != TY_ARRAY)
                in->args[k] = infer_coerce(c, in, in->args[k], ty_strong(opt));
    return result;
}

/* (a, b) + (c,) is a new tuple of the items. */
static Type *tuple_concat(Infer *c, Instr *in, Type *a, Type *b)
{
    int n = a->tuple.n + b->tuple.n;
    Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(n + 1));
    memcpy(items, a->tuple.items, sizeof *items * (size_t)a->tuple.n);
    memcpy(items + a->tuple.n, b->tuple.items, sizeof *items * (size_t)b->tuple.n);
    Type *t = ty_tuple(items, n);
    if (c->rewrite) {
        Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(n + 1));
        for (int i = 0; i < n; i++) {
            Instr *src = i < a->tuple.n ? in->args[0] : in->args[1];
            int idx = i < a->tuple.n ? i : i - a->tuple.n;
            args[i] = infer_emit(c, in, OP_STATIC_GET, items[i], 1);
            args[i]->args[0] = src;
            args[i]->imm = idx;
        }
        in->op = OP_BUILD_TUPLE;
        infer_set_args(c, in, args, n);
    }
    return t;
}

static Type *list_item_unify(Type *a, Type *b);
static int *count_uses(Infer *c);

/* list + list (a new list; += extends the left one in place and gives it), list * n, n * list. */
static Type *list_binop(Infer *c, Instr *in, Type *a, Type *b)
{
    Instr *x = in->args[0], *y = in->args[1];
    bool int_b = ty_is_int(ty_strong(b)) || b->kind == TY_BOOL;
    bool int_a = ty_is_int(ty_strong(a)) || a->kind == TY_BOOL;
    Builtin bi;
    Type *t;
    if (in->sub == BIN_ADD && a->kind == TY_LIST && b->kind == TY_LIST) {
        Type *item = !b->list.item ? NULL : in->imm ? infer_list_takes(c, in, x, b->list.item)
                                                    : list_item_unify(a->list.item ? a->list.item
                                                                                   : b->list.item,
                                                                      b->list.item);
        if (!item && !failed(c) && b->list.item)
            return infer_fail(c, in, DIAG_TYPING, "cannot join %s and %s: a list holds one type",
                              infer_type_name(a), infer_type_name(b));
        if (!item)
            return NULL;   /* typed once the items are known */
        if (a->list.typed != b->list.typed)
            return infer_fail(c, in, DIAG_TYPING, "cannot join %s and %s: a typed list is not a "
                              "reflected one", infer_type_name(a), infer_type_name(b));
        bi = in->imm ? BI_LIST_IADD : BI_LIST_ADD;
        t = in->imm ? x->type : ty_list_like(a, item);
        if (!in->imm && (a->list.item != item || b->list.item != item))
            return infer_fail(c, in, DIAG_TYPING, "cannot join %s and %s: a list holds one type",
                              infer_type_name(a), infer_type_name(b));
    } else if (in->sub == BIN_MUL && ((a->kind == TY_LIST && int_b) || (b->kind == TY_LIST && int_a))) {
        if (b->kind == TY_LIST) {
            Instr *tmp = x;
            x = y;
            y = tmp;
        }
        if (!x->type->list.item)
            return NULL;
        bi = BI_LIST_MUL;
        t = x->type;
    } else {
        return binop_unsupported(c, in, a, b);
    }
    if (c->rewrite) {
        Instr *args[2] = {x, bi == BI_LIST_MUL ? infer_coerce(c, in, y, ty_scalar(TY_INT64)) : y};
        in->op = OP_INTRINSIC;
        in->sub = bi;
        infer_set_args(c, in, args, 2);
    }
    return t;
}

/* s | t, s & t, s - t, s ^ t (and in place): the set's method (pyjit/lib/dicts.py). */
static Type *table_binop(Infer *c, Instr *in)
{
    static const struct { BinOp op; const char *name, *inplace; } ops[] = {
        {BIN_OR, "__or__", "__ior__"}, {BIN_AND, "__and__", "__iand__"},
        {BIN_SUB, "__sub__", "__isub__"}, {BIN_XOR, "__xor__", "__ixor__"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (ops[i].op == (BinOp)in->sub && in->args[0]->type->kind == TY_SET)
            return infer_operator_method(c, in, in->imm ? ops[i].inplace : ops[i].name);
    return binop_unsupported(c, in, in->args[0]->type, in->args[1]->type);
}

/* Whether an operator on a and b may have the user's implementation (overload(operator.add)):
 * an operand of a type the user made (a jitclass or structref, a record). */
static bool user_operands(const Type *a, const Type *b)
{
    return a->kind == TY_CLASS || b->kind == TY_CLASS || a->kind == TY_RECORD || b->kind == TY_RECORD;
}

/* NumPy's operators give a scalar where no operand has a dimension (np.array(2.0) * 3.0 and
 * -np.array(2.0) are float64s), as Numba's do: a 0-d array's element stands for it there. */
static bool zero_d(const Type *t)
{
    return t->kind == TY_ARRAY && t->array.ndim == 0 && ty_is_scalar(t->array.dtype);
}

static bool dimensionless(const Type *a, const Type *b)
{
    return (zero_d(a) || zero_d(b)) && (zero_d(a) || ty_is_scalar(a)) && (zero_d(b) || ty_is_scalar(b));
}

/* The operand's value as a scalar: the element of a 0-d array (read in the rewrite pass), or
 * the operand itself; *t becomes its type. */
static Instr *zero_d_element(Infer *c, Instr *at, Instr *v, Type **t)
{
    if (!zero_d(v->type))
        return v;
    *t = v->type->array.dtype;
    if (!c->rewrite)
        return v;
    Instr *e = infer_emit(c, at, OP_ARRAY_GET, *t, 1);
    e->args[0] = v;
    return e;
}

static Type *type_binop(Infer *c, Instr *in)
{
    Type *a = in->args[0]->type, *b = in->args[1]->type;
    if (user_operands(a, b)) {
        bool found;
        Type *t = infer_operator_overload(c, in, &found);
        if (found || t)
            return t;
    }
    if (a->kind == TY_TUPLE || b->kind == TY_TUPLE) {   /* p + q of Polynomials */
        bool found;
        Type *t = infer_namedtuple_operator(c, in, &found);
        if (found)
            return t;
    }
    if (infer_is_datetime_op(in))
        return infer_datetime_op(c, in);
    if (a->kind == TY_CLASS)
        return infer_class_operator(c, in);
    if (a->kind == TY_SET || b->kind == TY_SET || a->kind == TY_DICT || b->kind == TY_DICT)
        return table_binop(c, in);
    if (a->kind == TY_LIST || b->kind == TY_LIST)
        return list_binop(c, in, a, b);
    if (infer_is_text(a) || infer_is_text(b))
        return infer_str_binop(c, in);
    if (a->kind == TY_TUPLE && b->kind == TY_TUPLE && in->sub == BIN_ADD)
        return tuple_concat(c, in, a, b);
    if (in->sub == BIN_MATMUL && a->kind == TY_ARRAY && b->kind == TY_ARRAY && !in->imm) {
        if (a->array.ndim <= 2 && b->array.ndim <= 2)
            return infer_dot(c, in);
        Instr *args[2] = {in->args[0], in->args[1]};   /* stacks: np.matmul's broadcasting */
        return infer_library_call(c, in, "method.array.__matmul__", args, 2);
    }
    if (dimensionless(a, b) && !(in->imm && a->kind == TY_ARRAY)) {   /* not x0d += 1 */
        in->imm2 = 1;   /* the arrays' error model: 1.0 / np.array(0.0) is inf */
        in->args[0] = zero_d_element(c, in, in->args[0], &a);
        in->args[1] = zero_d_element(c, in, in->args[1], &b);
    } else if (a->kind == TY_ARRAY || b->kind == TY_ARRAY) {
        return array_binop(c, in, a, b);
    }
    Type *opt, *res;
    if (!ty_is_scalar(a) || !ty_is_scalar(b) || !infer_binop_types(in->sub, a, b, true, &opt, &res))
        return binop_unsupported(c, in, a, b);
    if (c->rewrite) {
        in->args[0] = infer_coerce(c, in, in->args[0], ty_strong(opt));
        in->args[1] = infer_coerce(c, in, in->args[1], ty_strong(opt));
    }
    return res;
}

/* bool(v) as far as the type tells: a tuple's truth is its length, None is false. Returns the
 * known value (or -1) and fails on values that have no truth. */
static int truth_of(Infer *c, Instr *at, Instr *v)
{
    Type *t = v->type;
    if (ty_is_scalar(t))
        return infer_known(c, v);
    if (t->kind == TY_NONE)
        return 0;
    if (t->kind == TY_OPTIONAL && t->optional.value->kind != TY_ARRAY)
        return -1;   /* present and true, at run time */
    if (t->kind == TY_TUPLE)
        return t->tuple.n != 0;
    if (ty_is_container(t))
        return -1;   /* its length, at run time */
    if (t->kind == TY_STRING && t->literal)
        return t->literal->s[0] != 0;
    if (t->kind == TY_ARRAY && ty_is_scalar(t->array.dtype))
        return -1;   /* its one element's, as NumPy's (a ValueError for other sizes) */
    if (t->kind == TY_ARRAY)
        infer_fail(c, at, DIAG_TYPING, "the truth value of an array of %s is not defined",
                   infer_type_name(t->array.dtype));
    else
        infer_fail(c, at, DIAG_TYPING, "%s has no truth value in compiled code", infer_type_name(t));
    return -2;
}

/* The bool that a condition tests: v itself, or a TRUTH of it. */
static Instr *as_bool(Infer *c, Instr *before, Instr *v)
{
    if (ty_strong(v->type)->kind == TY_BOOL)
        return v;
    Instr *t = infer_emit(c, before, OP_TRUTH, ty_scalar(TY_BOOL), 1);
    t->args[0] = v;
    return t;
}

static Type *type_truth(Infer *c, Instr *in)
{
    int k = truth_of(c, in, in->args[0]);
    if (k == -2)
        return NULL;
    infer_set_known(c, in, k);
    if (c->rewrite && k >= 0 && !ty_is_scalar(in->args[0]->type))
        infer_make_const_bool(c, in, k);
    return ty_scalar(TY_BOOL);
}

static Type *type_unary(Infer *c, Instr *in)
{
    Type *t = in->args[0]->type;
    if (in->sub == UN_NOT) {
        int k = truth_of(c, in, in->args[0]);
        if (k == -2)
            return NULL;
        infer_set_known(c, in, k < 0 ? -1 : !k);
        if (c->rewrite && k >= 0 && !ty_is_scalar(t))
            infer_make_const_bool(c, in, !k);
        else if (c->rewrite)
            in->args[0] = as_bool(c, in, in->args[0]);
        return ty_scalar(TY_BOOL);
    }
    if (t->kind == TY_TUPLE) {   /* -p of a Polynomial */
        bool found;
        Type *r = infer_namedtuple_operator(c, in, &found);
        if (found)
            return r;
    }
    in->args[0] = zero_d_element(c, in, in->args[0], &t);
    Type *e = elem_type(t);
    bool timedelta = e->kind == TY_TIMEDELTA && in->sub != UN_INVERT;   /* -NaT is NaT: INT64_MIN */
    if ((!ty_is_scalar(e) && !timedelta) || (in->sub == UN_INVERT && !ty_is_int(e) && e->kind != TY_BOOL))
        return infer_fail(c, in, DIAG_TYPING, "bad operand type for unary %s: %s",
                          in->sub == UN_NEG ? "-" : in->sub == UN_POS ? "+" : "~", infer_type_name(t));
    if (t->kind == TY_ARRAY)
        return ty_array(e, t->array.ndim, 'C', false);
    /* ~ of a bool some comparison or array made is NumPy's bool's, a logical not (CPython's
     * ~np.bool_, and Numba's ~ of any bool: librosa's `~link`); of a Python bool (weak: an
     * argument, a literal) Python's int, ~True == -2. - and + of a bool are ints. */
    Type *r = t;
    if (t->kind == TY_BOOL && (in->sub != UN_INVERT || t->weak))
        r = t->weak ? ty_weak(ty_scalar(TY_INT64)) : ty_scalar(TY_INT64);
    if (c->rewrite)
        in->args[0] = infer_coerce(c, in, in->args[0], ty_strong(r));
    return r;
}

const char *infer_const_str(const Type *t)
{
    return t->kind == TY_STRING && t->literal && t->literal->kind == K_STR ? t->literal->s : NULL;
}

/* `x in (a, b, c)` becomes (x == a) | (x == b) | (x == c), each compare at its own promotion. */
static Type *tuple_contains(Infer *c, Instr *in, Instr *tuple, Instr *x)
{
    Type *tt = tuple->type;
    bool text = infer_is_text(x->type);
    for (int i = 0; i < tt->tuple.n; i++)
        if (text ? tt->tuple.items[i]->kind != TY_STR
                 : !ty_is_scalar(tt->tuple.items[i]) || !ty_is_scalar(x->type))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "'in' is supported over tuples of numbers "
                              "only, not %s in %s", infer_type_name(x->type), infer_type_name(tt));
    if (!c->rewrite)
        return ty_scalar(TY_BOOL);
    bool negate = in->sub == CMP_NOTIN;
    int n = tt->tuple.n;
    Instr *acc = NULL;
    for (int i = 0; i < n; i++) {
        bool last = i == n - 1 && !negate;   /* the last test is `in` itself */
        Type *t = text ? ty_str() : ty_strong(ty_promote(tt->tuple.items[i], x->type));
        Instr *item = infer_emit(c, in, OP_STATIC_GET, tt->tuple.items[i], 1);
        item->args[0] = tuple;
        item->imm = i;
        Instr *args[2] = {infer_coerce(c, in, x, t), infer_coerce(c, in, item, t)};
        Instr *eq = last && !acc ? in : infer_emit(c, in, OP_COMPARE, ty_scalar(TY_BOOL), 2);
        eq->op = OP_COMPARE;
        eq->sub = CMP_EQ;
        infer_set_args(c, eq, args, 2);
        if (acc) {
            Instr *or = last ? in : infer_emit(c, in, OP_BINOP, ty_scalar(TY_BOOL), 2);
            Instr *pair[2] = {acc, eq};
            or->op = OP_BINOP;
            or->sub = BIN_OR;
            infer_set_args(c, or, pair, 2);
            eq = or;
        }
        acc = eq;
    }
    if (!acc) {
        infer_make_const_bool(c, in, negate);
    } else if (negate) {
        in->op = OP_UNARY;
        in->sub = UN_NOT;
        infer_set_args(c, in, &acc, 1);
    }
    return ty_scalar(TY_BOOL);
}

Instr *infer_membership(Infer *c, Instr *in)
{
    if (in->sub != CMP_NOTIN)
        return in;
    Instr *contains = infer_emit(c, in, OP_INTRINSIC, ty_scalar(TY_BOOL), 2);
    in->op = OP_UNARY;
    in->sub = UN_NOT;
    infer_set_args(c, in, &contains, 1);
    return contains;
}

/* k in d, x in s: the intrinsic method.dict/set.__contains__, the key converted to the key type. */
static Type *table_contains(Infer *c, Instr *in, Instr *table, Instr *x)
{
    Type *k = infer_table_key(c, in, table, x);
    if (!k && ty_is_undetermined(table->type) && !c->rewrite)
        return ty_scalar(TY_BOOL);   /* `if k not in d: d[k] = ...` types d in its branch */
    if (!k)
        return NULL;
    if (c->rewrite) {
        Instr *contains = infer_membership(c, in);
        Instr *args[2] = {table, infer_coerce(c, contains, x, k)};
        contains->op = OP_INTRINSIC;
        contains->sub = table->type->kind == TY_SET ? BI_SET_CONTAINS : BI_DICT_CONTAINS;
        infer_set_args(c, contains, args, 2);
    }
    return ty_scalar(TY_BOOL);
}

/* "key" in d of a literal dict (types.h): known when compiling, from its keys. */
static Type *literal_dict_contains(Infer *c, Instr *in, Instr *d, Instr *x)
{
    const char *key = infer_const_str(x->type);
    if (!key)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "'in' over %s takes a constant string key "
                          "only", infer_type_name(d->type));
    bool v = (ty_field_index(d->type, key) >= 0) != (in->sub == CMP_NOTIN);
    if (c->rewrite)
        infer_make_const_bool(c, in, v);
    return ty_scalar(TY_BOOL);
}

static Type *type_contains(Infer *c, Instr *in)
{
    Instr *x = in->args[0], *seq = in->args[1];
    if (ty_is_literal_dict(seq->type))
        return literal_dict_contains(c, in, seq, x);
    if (seq->type->kind == TY_TUPLE)
        return tuple_contains(c, in, seq, x);
    if (infer_is_text(seq->type))
        return infer_str_contains(c, in);
    if (seq->type->kind == TY_DICT || seq->type->kind == TY_SET)
        return table_contains(c, in, seq, x);
    Type *to = ty_scalar(TY_INT64), *item = seq->type->kind == TY_LIST ? seq->type->list.item : NULL;
    if (seq->type->kind == TY_ARRAY) {   /* x in a: some element equals x (Numba's __contains__) */
        Type *et = seq->type->array.dtype;
        to = ty_is_scalar(et) && (ty_is_scalar(x->type) || x->type->kind == TY_BOOL) ? ty_strong(x->type) : NULL;
        if (!to || !ty_promote(et, to))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "'in' over an array looks for a number in "
                              "an array of numbers, not %s in %s", infer_type_name(x->type),
                              infer_type_name(seq->type));
    } else if (seq->type->kind == TY_LIST) {
        if (!item)   /* a bool whatever the stores that follow make the items (`if x in seen:
                      * continue` before `seen.append(x)` types the append's block too) */
            return c->rewrite ? NULL : ty_scalar(TY_BOOL);
        to = ty_is_scalar(item) && ty_is_scalar(x->type) ? ty_promote(item, ty_strong(x->type)) : NULL;
        if (item->kind == TY_STR && infer_is_text(x->type))
            to = item;
        if (!to)
            return infer_fail(c, in, DIAG_UNSUPPORTED, "'in' over a list of %s: pyjit looks for "
                              "numbers in lists of numbers", infer_type_name(item));
    } else if (seq->type->kind != TY_RANGE) {
        return infer_fail(c, in, DIAG_UNSUPPORTED, "'in' is supported over tuples, lists, arrays "
                          "and ranges, not %s", infer_type_name(seq->type));
    } else if (!ty_is_int(x->type) && x->type->kind != TY_BOOL)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "'in' over a range needs an integer, not %s",
                          infer_type_name(x->type));
    if (c->rewrite) {
        Instr *contains = infer_membership(c, in);
        Instr *args[2] = {seq, infer_coerce(c, contains, x, to)};
        contains->op = OP_INTRINSIC;
        contains->sub = BI_CONTAINS;
        infer_set_args(c, contains, args, 2);
    }
    return ty_scalar(TY_BOOL);
}

/* Whether two tuple items are both strings (str values or constants): compared as strings. */
static bool both_text(Type *a, Type *b)
{
    return infer_is_text(a) && infer_is_text(b);
}

/* Whether == between tuples of these types is known to compile: items numbers, strings, None or
 * tuples. */
static bool tuples_comparable(Type *a, Type *b)
{
    if (a->kind == TY_TUPLE && b->kind == TY_TUPLE) {
        for (int i = 0; i < a->tuple.n && a->tuple.n == b->tuple.n; i++)
            if (!tuples_comparable(a->tuple.items[i], b->tuple.items[i]))
                return false;
        return true;
    }
    return (ty_is_scalar(a) && ty_is_scalar(b)) || both_text(a, b) || a->kind == TY_NONE ||
           b->kind == TY_NONE;
}

static Instr *emit_bool(Infer *c, Instr *before, bool v)
{
    Instr *k = infer_emit(c, before, OP_CONST, ty_scalar(TY_BOOL), 0);
    k->cst = ir_new_const(c->fn, K_BOOL);
    k->cst->b = v;
    return k;
}

/* x op y of two numbers (promoted together) or two strings, emitted before `before`. */
static Instr *emit_item_compare(Infer *c, Instr *before, CmpOp op, Instr *x, Instr *y)
{
    Type *a = ty_strong(x->type), *b = ty_strong(y->type);
    Type *t = both_text(a, b) ? ty_str() : ty_promote(a, b);
    Instr *args[2] = {infer_coerce(c, before, x, t), infer_coerce(c, before, y, t)};
    Instr *r = infer_emit(c, before, OP_COMPARE, ty_scalar(TY_BOOL), 2);
    r->sub = op;
    infer_set_args(c, r, args, 2);
    return r;
}

/* x == y for two values, emitted before `before`: item by item for tuples. */
static Instr *emit_equal(Infer *c, Instr *before, Instr *x, Instr *y)
{
    Type *a = ty_strong(x->type), *b = ty_strong(y->type);
    if (a->kind == TY_NONE || b->kind == TY_NONE)
        return emit_bool(c, before, a->kind == b->kind);
    if (ty_is_scalar(a) || both_text(a, b))
        return emit_item_compare(c, before, CMP_EQ, x, y);
    if (a->tuple.n != b->tuple.n)
        return emit_bool(c, before, false);
    Instr *acc = NULL;
    for (int i = 0; i < a->tuple.n; i++) {
        Instr *xi = infer_emit(c, before, OP_STATIC_GET, a->tuple.items[i], 1);
        xi->args[0] = x;
        xi->imm = i;
        Instr *yi = infer_emit(c, before, OP_STATIC_GET, b->tuple.items[i], 1);
        yi->args[0] = y;
        yi->imm = i;
        Instr *eq = emit_equal(c, before, xi, yi);
        if (acc) {
            Instr *and = infer_emit(c, before, OP_BINOP, ty_scalar(TY_BOOL), 2);
            and->sub = BIN_AND;
            and->args[0] = acc;
            and->args[1] = eq;
            eq = and;
        }
        acc = eq;
    }
    return acc ? acc : emit_bool(c, before, true);
}

/* Whether < between tuples of these types compiles: items real numbers, strings or such
 * tuples, of any lengths (the shorter one first when it is a prefix of the other). */
static bool tuples_ordered(Type *a, Type *b)
{
    a = ty_strong(a);
    b = ty_strong(b);
    if (a->kind == TY_TUPLE && b->kind == TY_TUPLE) {
        for (int i = 0; i < a->tuple.n && i < b->tuple.n; i++)
            if (!tuples_ordered(a->tuple.items[i], b->tuple.items[i]))
                return false;
        return true;
    }
    return both_text(a, b) ||
           (ty_is_scalar(a) && ty_is_scalar(b) && !ty_is_complex(a) && !ty_is_complex(b));
}

static Instr *emit_binop_bool(Infer *c, Instr *before, BinOp op, Instr *x, Instr *y)
{
    Instr *r = infer_emit(c, before, OP_BINOP, ty_scalar(TY_BOOL), 2);
    r->sub = op;
    r->args[0] = x;
    r->args[1] = y;
    return r;
}

/* x < y (x <= y when or_equal) of two tuples, lexicographically as Python orders them: the
 * first items that differ decide, else the lengths. Every item comparison is made (they have
 * no effects) and folded from the last: r = x[i] < y[i] or (x[i] == y[i] and r). */
static Instr *emit_tuple_less(Infer *c, Instr *before, Instr *x, Instr *y, bool or_equal)
{
    Type *a = ty_strong(x->type), *b = ty_strong(y->type);
    Instr *acc = emit_bool(c, before, or_equal ? a->tuple.n <= b->tuple.n : a->tuple.n < b->tuple.n);
    for (int i = (a->tuple.n < b->tuple.n ? a->tuple.n : b->tuple.n) - 1; i >= 0; i--) {
        Instr *xi = infer_emit(c, before, OP_STATIC_GET, a->tuple.items[i], 1);
        xi->args[0] = x;
        xi->imm = i;
        Instr *yi = infer_emit(c, before, OP_STATIC_GET, b->tuple.items[i], 1);
        yi->args[0] = y;
        yi->imm = i;
        Instr *lt;
        if (ty_strong(xi->type)->kind == TY_TUPLE)
            lt = emit_tuple_less(c, before, xi, yi, false);
        else
            lt = emit_item_compare(c, before, CMP_LT, xi, yi);
        Instr *eq = emit_equal(c, before, xi, yi);
        acc = emit_binop_bool(c, before, BIN_OR, lt, emit_binop_bool(c, before, BIN_AND, eq, acc));
    }
    return acc;
}

static Type *tuple_order(Infer *c, Instr *in, Type *a, Type *b)
{
    if (!tuples_ordered(a, b))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "tuples are ordered (<, <=, >, >=) when their "
                          "items are real numbers, strings or such tuples, not %s with %s",
                          infer_type_name(a), infer_type_name(b));
    if (c->rewrite) {
        bool swap = in->sub == CMP_GT || in->sub == CMP_GE;   /* a > b is b < a */
        Instr *lt = emit_tuple_less(c, in, in->args[swap], in->args[!swap],
                                    in->sub == CMP_LE || in->sub == CMP_GE);
        in->op = OP_CAST;   /* a bool CAST of a bool is the value */
        infer_set_args(c, in, &lt, 1);
    }
    return ty_scalar(TY_BOOL);
}

static Type *tuple_compare(Infer *c, Instr *in, Type *a, Type *b)
{
    if (in->sub == CMP_LT || in->sub == CMP_LE || in->sub == CMP_GT || in->sub == CMP_GE)
        return tuple_order(c, in, a, b);
    if ((in->sub != CMP_EQ && in->sub != CMP_NE) || !tuples_comparable(a, b))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "tuples can be compared with ==, !=, <, <=, "
                          ">, >= only, item by item, not %s with %s", infer_type_name(a),
                          infer_type_name(b));
    if (c->rewrite) {
        Instr *eq = emit_equal(c, in, in->args[0], in->args[1]);
        in->op = in->sub == CMP_EQ ? OP_CAST : OP_UNARY;   /* a bool CAST of a bool is the value */
        in->sub = UN_NOT;
        infer_set_args(c, in, &eq, 1);
    }
    return ty_scalar(TY_BOOL);
}

static Type *fold_compare(Infer *c, Instr *in, bool v)
{
    infer_set_known(c, in, v);
    if (c->rewrite)
        infer_make_const_bool(c, in, v);
    return ty_scalar(TY_BOOL);
}

/* An int known when compiling: a constant, or an array's ndim (Numba rewrites `a.ndim` to its
 * value, so `if a.ndim == 1: ... else: a.shape[1]` types one branch only). */
static bool known_int(const Instr *v, int64_t *out)
{
    if (infer_const_index(v, out))
        return true;
    const Type *t = v->nargs > 0 ? v->args[0]->type : NULL;
    if (!t || t->kind != TY_ARRAY)
        return false;
    bool ndim = (v->op == OP_GETATTR && v->name && strcmp(v->name, "ndim") == 0) ||
                (v->op == OP_ARRAY_ATTR && v->sub == AA_NDIM);
    if (ndim)
        *out = t->array.ndim;
    return ndim;
}

/* a OP b of two ints known when compiling (one of them an ndim): the folded result, or -1. */
static int fold_known_ints(const Instr *in)
{
    int64_t a, b;
    const Instr *x = in->args[0], *y = in->args[1];
    if (x->op == OP_CONST && y->op == OP_CONST)
        return -1;   /* left as the frontend gave it */
    if (!known_int(x, &a) || !known_int(y, &b))
        return -1;
    switch (in->sub) {
    case CMP_LT: return a < b;
    case CMP_LE: return a <= b;
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    case CMP_GT: return a > b;
    case CMP_GE: return a >= b;
    default: return -1;
    }
}

static bool int64_against_float64(Type *a, Type *b)
{
    TypeKind ka = ty_strong(a)->kind, kb = ty_strong(b)->kind;
    return (ka == TY_INT64 && kb == TY_FLOAT64) || (ka == TY_FLOAT64 && kb == TY_INT64);
}

/* An enum member's type: a namedtuple of its class with the one field `value`
 * (frontend/consts.c: fe_enum_class). */
static bool is_enum_member(const Type *t)
{
    return t->kind == TY_TUPLE && t->tuple.cls && t->tuple.n == 1 && t->tuple.fields &&
           strcmp(t->tuple.fields[0], "value") == 0;
}

/* `a is b` where neither is None, as Numba has it: false (`is not`: true) between different
 * types; between objects of one type (arrays, lists, dicts, sets, jitclass instances) whether
 * they are the same (arrays: the same data, shape and strides, as Numba compares them); between
 * values of one type (numbers, strings, tuples), `==` (in->sub made CMP_EQ or CMP_NE, NULL
 * returned, for the caller to go on with). */
static Type *identity_compare(Infer *c, Instr *in, Type *a, Type *b)
{
    bool is = in->sub == CMP_IS;
    Type *va = ty_strong(infer_value_type(a)), *vb = ty_strong(infer_value_type(b));
    if (va != vb)
        return fold_compare(c, in, !is);
    switch (va->kind) {
    case TY_ARRAY: case TY_LIST: case TY_DICT: case TY_SET: case TY_CLASS:
        if (c->rewrite) {
            Instr *args[2] = {in->args[0], in->args[1]};
            in->op = OP_INTRINSIC;
            in->sub = is ? BI_IS_SAME : BI_IS_NOT_SAME;
            infer_set_args(c, in, args, 2);
        }
        return ty_scalar(TY_BOOL);
    case TY_STR: case TY_TUPLE: case TY_DATETIME: case TY_TIMEDELTA:
        in->sub = is ? CMP_EQ : CMP_NE;
        return NULL;
    default:
        if (ty_is_scalar(va)) {
            in->sub = is ? CMP_EQ : CMP_NE;
            return NULL;
        }
        return infer_fail(c, in, DIAG_UNSUPPORTED, "'is' between two values of %s is not "
                          "supported in compiled code", infer_type_name(a));
    }
}

/* a == s and a != s of a unicode array and a str, element by element as NumPy compares them
 * (pyjit/lib/strings.py); other comparisons of arrays with strings are refused. */
static Type *text_array_compare(Infer *c, Instr *in)
{
    bool swap = in->args[0]->type->kind != TY_ARRAY;
    Instr *args[2] = {in->args[swap], in->args[!swap]};
    if (args[0]->type->array.dtype->kind != TY_CHARSEQ || (in->sub != CMP_EQ && in->sub != CMP_NE))
        return infer_fail(c, in, DIAG_TYPING, "cannot compare %s with %s",
                          infer_type_name(in->args[0]->type), infer_type_name(in->args[1]->type));
    return infer_library_call(c, in, in->sub == CMP_EQ ? "method.array._text_eq"
                                                       : "method.array._text_ne", args, 2);
}

/* A module, function, compiled function or exception class: a constant whose type is interned
 * per object, so two such values are the same object exactly when their types are one. */
static bool is_object_constant(const Type *t)
{
    return t->kind == TY_MODULE || t->kind == TY_FUNCTION || t->kind == TY_DISPATCHER ||
           t->kind == TY_EXCCLASS;
}

static Type *type_compare(Infer *c, Instr *in)
{
    Type *a = in->args[0]->type, *b = in->args[1]->type;
    int op = in->sub;
    bool a_none = a->kind == TY_NONE, b_none = b->kind == TY_NONE;
    if (op == CMP_IN || op == CMP_NOTIN)
        return type_contains(c, in);
    if (is_object_constant(a) && is_object_constant(b) &&
        (op == CMP_EQ || op == CMP_NE || op == CMP_IS || op == CMP_ISNOT))
        /* `if dist == alternative_dot:` (pynndescent): functions compare by identity */
        return fold_compare(c, in, (a == b) == (op == CMP_EQ || op == CMP_IS));
    if ((op == CMP_IS || op == CMP_ISNOT) && is_enum_member(a) && is_enum_member(b)) {
        /* members are singletons: `c is Color.RED` is c == Color.RED, and false across classes */
        if (a->tuple.cls != b->tuple.cls)
            return fold_compare(c, in, op == CMP_ISNOT);
        in->sub = op = op == CMP_IS ? CMP_EQ : CMP_NE;   /* the same in every pass */
    }
    if (user_operands(a, b)) {
        bool found;
        Type *t = infer_operator_overload(c, in, &found);
        if (found || t)
            return t;
    }
    if ((a->kind == TY_TUPLE || b->kind == TY_TUPLE) && op <= CMP_GE) {
        bool found;
        Type *t = infer_namedtuple_operator(c, in, &found);
        if (found)
            return t;
    }
    if ((op == CMP_IS || op == CMP_ISNOT) && !a_none && !b_none && a->kind != TY_OPTIONAL &&
        b->kind != TY_OPTIONAL) {
        if (ty_is_undetermined(a) || ty_is_undetermined(b))
            return NULL;   /* typed once their items are known */
        Type *t = identity_compare(c, in, a, b);
        if (t || (in->sub != CMP_EQ && in->sub != CMP_NE))
            return t;
        op = in->sub;   /* `is` of values: `==`, below */
    }
    if (op == CMP_IS || op == CMP_ISNOT || ((op == CMP_EQ || op == CMP_NE) && (a_none || b_none))) {
        if ((a_none || b_none) && (a->kind == TY_OPTIONAL || b->kind == TY_OPTIONAL))
            return infer_optional_compare(c, in);
        if (!a_none && !b_none)
            return infer_fail(c, in, DIAG_UNSUPPORTED, "'is' compares with None only in compiled "
                              "code, not %s with %s", infer_type_name(a), infer_type_name(b));
        bool same = a_none && b_none;
        return fold_compare(c, in, (op == CMP_IS || op == CMP_EQ) ? same : !same);
    }
    if (a->kind == TY_TUPLE && b->kind == TY_TUPLE)
        return tuple_compare(c, in, a, b);
    int folded = fold_known_ints(in);
    if (folded >= 0)
        return fold_compare(c, in, folded);
    if ((op == CMP_EQ || op == CMP_NE) && (a->kind == TY_DTYPE || b->kind == TY_DTYPE)) {
        /* a.dtype == np.int64 (or a dtype, or its name): the types are known when compiling */
        Type *da = infer_dtype_of(c, in->args[0]), *db = infer_dtype_of(c, in->args[1]);
        if (da && db)
            return fold_compare(c, in, (da == db) == (op == CMP_EQ));
    }
    if ((a->kind == TY_ARRAY && infer_is_text(b)) || (infer_is_text(a) && b->kind == TY_ARRAY))
        return text_array_compare(c, in);
    if (infer_is_text(a) || infer_is_text(b))
        return infer_str_compare(c, in);
    if (infer_is_datetime_op(in))
        return infer_datetime_op(c, in);
    if (a->kind == TY_CLASS)
        return infer_class_operator(c, in);
    if ((a->kind == TY_SET || a->kind == TY_DICT || (a->kind == TY_LIST && b->kind == TY_LIST)) &&
        op <= CMP_GE) {   /* their methods */
        static const char *const names[] = {"__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"};
        return infer_operator_method(c, in, names[op - CMP_LT]);
    }
    if (dimensionless(a, b) && op <= CMP_GE) {
        in->args[0] = zero_d_element(c, in, in->args[0], &a);
        in->args[1] = zero_d_element(c, in, in->args[1], &b);
    } else if (a->kind == TY_ARRAY || b->kind == TY_ARRAY) {
        Type *ea = elem_type(a), *eb = elem_type(b), *t = ty_promote(ea, eb);
        if (!t)
            return infer_fail(c, in, DIAG_TYPING, "cannot compare %s with %s", infer_type_name(a),
                              infer_type_name(b));
        int na = a->kind == TY_ARRAY ? a->array.ndim : 0, nb = b->kind == TY_ARRAY ? b->array.ndim : 0;
        if (c->rewrite)
            for (int k = 0; k < 2; k++)
                if (in->args[k]->type->kind != TY_ARRAY)
                    in->args[k] = infer_coerce(c, in, in->args[k], ty_strong(t));
        return ty_array(ty_scalar(TY_BOOL), na > nb ? na : nb, 'C', false);
    }
    if (ty_is_int(a) && ty_is_int(b) && ty_is_signed(a) != ty_is_signed(b)) {
        /* NumPy 2 compares mixed-sign integers by value (uint64(2**63) > -1): as int64 against
         * uint64, which lowering compares exactly */
        if (c->rewrite)
            for (int k = 0; k < 2; k++) {
                Type *t = in->args[k]->type;
                in->args[k] = infer_coerce(c, in, in->args[k],
                                           ty_scalar(ty_is_signed(t) ? TY_INT64 : TY_UINT64));
            }
        return ty_scalar(TY_BOOL);
    }
    if (int64_against_float64(a, b) && op <= CMP_GE) {
        /* CPython compares an int with a float exactly (2**53 + 1 != 2.0**53): lowering
         * compares them so when they are equal as floats */
        if (c->rewrite)
            for (int k = 0; k < 2; k++)
                in->args[k] = infer_coerce(c, in, in->args[k], ty_strong(in->args[k]->type));
        return ty_scalar(TY_BOOL);
    }
    Type *t = ty_promote(a, b);
    if (!t || (ty_is_complex(t) && op != CMP_EQ && op != CMP_NE))
        return infer_fail(c, in, DIAG_TYPING, "cannot compare %s with %s", infer_type_name(a),
                          infer_type_name(b));
    if (c->rewrite) {
        in->args[0] = infer_coerce(c, in, in->args[0], ty_strong(t));
        in->args[1] = infer_coerce(c, in, in->args[1], ty_strong(t));
    }
    return ty_scalar(TY_BOOL);
}

static Type *type_build_tuple(Infer *c, Instr *in)
{
    Type **items = arena_alloc(c->arena, sizeof *items * (size_t)(in->nargs + 1));
    for (int i = 0; i < in->nargs; i++)
        items[i] = infer_value_type(in->args[i]->type);
    if (infer_is_compile_time_tuple(items, in->nargs))   /* (int, float), (f, g) */
        return ty_tuple(items, in->nargs);
    for (int i = 0; i < in->nargs; i++) {
        bool index_part = items[i]->kind == TY_ELLIPSIS;   /* a[..., 0]: no room, no value */
        if ((!infer_is_runtime(items[i]) && !index_part) || ty_is_iterator(items[i]))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "a tuple cannot hold %s in compiled code",
                              infer_type_name(items[i]));
    }
    if (c->rewrite)
        for (int i = 0; i < in->nargs; i++)
            in->args[i] = infer_coerce(c, in, in->args[i], items[i]);
    return ty_tuple(items, in->nargs);
}

/* The item type two item types make together in a list: one of them, numbers promoted, tuples
 * item by item, arrays widened to layout A. */
static Type *list_item_unify(Type *a, Type *b)
{
    Type *t = ty_unify(infer_value_type(a), infer_value_type(b));
    return ty_is_undetermined(t) ? NULL : ty_strong(t);
}

static bool list_item_ok(Type *t)
{
    return infer_is_runtime(t) && !ty_is_iterator(t) && t->kind != TY_NONE && t->kind != TY_RANGE &&
           t->kind != TY_SLICE && !ty_is_undetermined(t);
}

/* The BUILD_LIST a list value comes from, through phis (a list variable assigned on one path
 * only is the list on every path) and `l += ...` (which gives l itself); NULL when it comes from
 * elsewhere. */
static Instr *list_origin(Instr *v)
{
    for (int guard = 0; v && guard < 64; guard++) {
        if (v->op == OP_BINOP && v->imm && v->sub == BIN_ADD) {
            v = v->args[0];
            continue;
        }
        if (v->op != OP_PHI)
            break;
        Instr *next = NULL;
        for (int i = 0; i < v->nargs && !next; i++)
            if (v->args[i] != v && v->args[i]->type && v->args[i]->type->kind == TY_LIST)
                next = v->args[i];
        v = next;
    }
    return v && v->op == OP_BUILD_LIST ? v : NULL;
}

/* Whether a value of type v is stored into a typed list whose item type t is fixed, as Numba's
 * typed containers cast it (their _sentry_safe_cast): numbers into numbers of the same kind or
 * wider (int into int of any size, int or float into float, numbers into complex; a float
 * does not become an int), tuples item by item. */
static bool casts_into_fixed(const Type *v, const Type *t)
{
    if (v == t)
        return true;
    if (v->kind == TY_TUPLE && t->kind == TY_TUPLE) {
        if (v->tuple.n != t->tuple.n || t->tuple.cls)
            return false;
        for (int i = 0; i < v->tuple.n; i++)
            if (!casts_into_fixed(v->tuple.items[i], t->tuple.items[i]))
                return false;
        return true;
    }
    if (!ty_is_scalar(v) || !ty_is_scalar(t) || v->kind == TY_FLOAT16 || t->kind == TY_FLOAT16)
        return false;
    if (ty_is_complex(t))
        return true;
    if (ty_is_float(t))
        return !ty_is_complex(v);
    if (ty_is_int(t))
        return ty_is_int(v) || v->kind == TY_BOOL;
    return false;
}

Type *infer_list_takes(Infer *c, Instr *in, Instr *list, Type *vt)
{
    Type *item = list->type->list.item, *given = vt;
    vt = infer_value_type(vt);
    if (ty_is_undetermined(vt))
        return NULL;   /* a container stored before its own items are known: typed in a later round */
    if (!list_item_ok(vt))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "a list cannot hold %s in compiled code",
                          infer_type_name(vt));
    Type *want = item ? list_item_unify(item, vt) : vt;
    Instr *origin = list_origin(list);
    if (want && want != item && origin && origin->imm != TYPED_LIST_GIVEN && origin->id < c->nknown &&
        !c->rewrite) {
        c->list_items[origin->id] = want;   /* the BUILD_LIST takes it in the next round */
        c->changed = true;
        return want;
    }
    /* a literal is weak (NEP 50): 0.5 goes into a list of float32 that cannot widen; a typed
     * list whose item type is fixed casts what it is given, as Numba's does */
    if (item && (want == item || (ty_is_scalar(vt) && ty_is_scalar(item) &&
                                  ty_promote(given, item) == item)))
        return item;
    if (item && list->type->list.typed && casts_into_fixed(ty_strong(vt), item))
        return item;
    if (!item && !c->rewrite)
        return NULL;   /* a list whose origin types it in this round: the next one sees it */
    return infer_fail(c, in, DIAG_TYPING, "cannot store %s in a list of %s (a list holds one type)",
                      infer_type_name(vt), item ? infer_type_name(item) : "items of unknown type");
}

/* The type nested lists of numbers a and b both convert to ([[1.5], [2]]: list(float64)), NULL
 * where they are not both such lists. */
static Type *nested_list_unify(Type *a, Type *b)
{
    if (a->kind != TY_LIST || b->kind != TY_LIST || !a->list.item || !b->list.item ||
        a->list.typed || b->list.typed)
        return NULL;
    Type *ia = a->list.item, *ib = b->list.item;
    Type *item = ia->kind == TY_LIST ? nested_list_unify(ia, ib)
                 : ty_is_scalar(ia) && ty_is_scalar(ib) ? list_item_unify(ia, ib) : NULL;
    return item ? ty_list(item) : NULL;
}

/* A list literal whose items are list literals of other numbers ([[1.5, 2], [3, 4]]): the items
 * that are literals used only here take want's items (the next round types them), as NumPy
 * reads the nesting as one array. False where an item cannot (a list used elsewhere too). */
static bool retype_list_items(Infer *c, Instr *in, Type *want)
{
    int *uses = NULL;
    for (int i = 0; i < in->nargs; i++) {
        Instr *x = in->args[i];
        if (infer_value_type(x->type) == want)
            continue;
        if (x->op != OP_BUILD_LIST || x->imm || x->id >= c->nknown)
            return false;
        if (!uses)
            uses = count_uses(c);
        if (uses[x->id] != 1)
            return false;
    }
    for (int i = 0; i < in->nargs; i++)
        if (infer_value_type(in->args[i]->type) != want) {
            c->list_items[in->args[i]->id] = want->list.item;
            c->changed = true;
        }
    return true;
}

Type *infer_build_list(Infer *c, Instr *in)
{
    if (prog_kernel_code(c->pi->prog))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "lists are not supported in GPU kernels (use a "
                          "tuple, or a local array: gpu.local.array)");
    Type *item = in->id < c->nknown ? c->list_items[in->id] : NULL;
    for (int i = 0; i < in->nargs; i++) {
        Type *t = infer_value_type(in->args[i]->type);
        if (t && t->kind == TY_LIST && !t->list.item && !c->rewrite)
            return NULL;   /* [[]]: np.array may type the empty list (infer_calls.c) */
        if (!list_item_ok(t))
            return infer_fail(c, in, DIAG_UNSUPPORTED, "a list cannot hold %s in compiled code",
                              infer_type_name(t));
        Type *u = item ? list_item_unify(item, t) : t;
        Type *nested = u || c->rewrite ? NULL : nested_list_unify(item, t);
        if (nested) {   /* [[1.5, 2], [3, 4]]: the items are retyped, or an error below */
            for (int j = i + 1; j < in->nargs && nested; j++) {
                Type *tj = infer_value_type(in->args[j]->type);
                nested = tj && tj != nested ? nested_list_unify(nested, tj) : nested;
            }
            if (nested && retype_list_items(c, in, nested))
                return NULL;
        }
        if (!u)
            return infer_fail(c, in, DIAG_TYPING, "list items of types %s and %s: a list holds "
                              "one type in compiled code (Numba's literal lists of mixed types are "
                              "not taken: use a tuple)", infer_type_name(item), infer_type_name(t));
        item = u;
    }
    if (c->rewrite)
        for (int i = 0; i < in->nargs; i++)
            in->args[i] = infer_coerce(c, in, in->args[i], item);
    return in->imm ? ty_typed_list(item) : ty_list(item);
}

/* ---- dicts and sets ------------------------------------------------------------------------ */

static bool is_empty_maker(const Instr *v)
{
    const Type *f = v->op == OP_CALL && v->nargs == 1 ? v->args[0]->type : NULL;
    return f && f->kind == TY_FUNCTION && f->literal && f->literal->name &&
           (strcmp(f->literal->name, "builtins.dict") == 0 || strcmp(f->literal->name, "builtins.set") == 0 ||
            strcmp(f->literal->name, "pyjit.typed.Dict") == 0);
}

/* The BUILD_DICT or BUILD_SET (or the dict() or set() call) a dict or set value comes from,
 * through phis, as list_origin. */
static Instr *table_origin(Instr *v)
{
    for (int guard = 0; v && v->op == OP_PHI && guard < 64; guard++) {
        Instr *next = NULL;
        for (int i = 0; i < v->nargs && !next; i++)
            if (v->args[i] != v && v->args[i]->type && ty_is_container(v->args[i]->type))
                next = v->args[i];
        v = next;
    }
    return v && (v->op == OP_BUILD_DICT || v->op == OP_BUILD_SET || is_empty_maker(v)) ? v : NULL;
}

/* A key hashes in compiled code: a real number, a run-time string (lower_dict.c says where its
 * hash and equality are lowered) or a tuple of them. */
static bool key_ok(const Type *t)
{
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->tuple.n; i++)
            if (!key_ok(t->tuple.items[i]))
                return false;
        return t->tuple.n > 0;
    }
    return (ty_is_scalar(t) && !ty_is_complex(t) && t->kind != TY_FLOAT16) || t->kind == TY_STR;
}

/* Whether a dict of keys kt and values vt (a set when vt is NULL) can be made in compiled code. */
bool infer_table_types_ok(const Type *kt, const Type *vt)
{
    int32_t refs[ABI_DICT_MAX_REFS];
    if (!key_ok(kt))
        return false;
    return !vt || (list_item_ok((Type *)vt) &&
                   !(vt->kind == TY_TUPLE && ty_ref_offsets(vt, 0, refs, 0, ABI_DICT_MAX_REFS)));
}

/* Whether a value of type x is stored as type to with no loss (numbers widened, tuples item by item). */
static bool stores_as(Type *x, Type *to)
{
    return x == to || list_item_unify(to, x) == to;
}

/* The table type t widened to hold a key of type kt and a value of type vt (strong): *wider,
 * NULL when they do not join (the caller says why); -1 with the error for a key or value compiled
 * code cannot hold. */
static int table_join(Infer *c, Instr *in, Type *t, Type *kt, Type *vt, Type **wider)
{
    bool set = t->kind == TY_SET;
    int32_t refs[ABI_DICT_MAX_REFS];
    kt = infer_value_type(kt);   /* a string constant is a str key */
    vt = vt ? infer_value_type(vt) : NULL;
    if (!key_ok(kt))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%s cannot be a %s in compiled code (numbers, "
                          "strings and tuples of them can)", infer_type_name(kt), set ? "set item" : "dict key"), -1;
    if (vt && (!list_item_ok(vt) || (vt->kind == TY_TUPLE && ty_ref_offsets(vt, 0, refs, 0, ABI_DICT_MAX_REFS))))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "a dict cannot hold %s in compiled code (numbers, "
                          "tuples of numbers, arrays and containers can)", infer_type_name(vt)), -1;
    Type *k0 = set ? t->set.item : t->dict.key, *v0 = set ? NULL : t->dict.value;
    Type *wk = k0 ? list_item_unify(k0, kt) : kt, *wv = set ? NULL : v0 ? list_item_unify(v0, vt) : vt;
    *wider = !wk || (!set && !wv) ? NULL : set ? ty_set(wk) : ty_dict(wk, wv);
    return 0;
}

Type *infer_table_takes(Infer *c, Instr *in, Instr *table, Type *kt, Type *vt)
{
    Type *t = table->type, *want;
    bool set = t->kind == TY_SET;
    kt = ty_strong(kt);
    vt = set ? NULL : ty_strong(vt);
    if (ty_is_undetermined(kt) || (vt && ty_is_undetermined(vt)))
        return NULL;   /* typed in a later round */
    if (table_join(c, in, t, kt, vt, &want) < 0)
        return NULL;
    Instr *origin = table_origin(table);
    if (want && want != t && origin && origin->id < c->nknown && !c->rewrite) {
        c->table_types[origin->id] = want;   /* the maker takes it in the next round */
        c->changed = true;
        return want;
    }
    Type *k0 = set ? t->set.item : t->dict.key, *v0 = set ? NULL : t->dict.value;
    if (k0 && stores_as(kt, k0) && (set || stores_as(vt, v0)))
        return t;
    /* a dict's types fixed (Dict.empty(int32, float32), a dict passed in): the key and the value
     * cast to them, as Numba's typed dict casts */
    if (!set && k0 && casts_into_fixed(infer_value_type(kt), k0) &&
        casts_into_fixed(infer_value_type(vt), v0))
        return t;
    return infer_fail(c, in, DIAG_TYPING, "cannot store %s%s%s in %s (a %s holds one type of key%s)",
                      infer_type_name(kt), set ? "" : ": ", set ? "" : infer_type_name(vt),
                      k0 ? infer_type_name(t) : "a container of items of unknown type",
                      set ? "set" : "dict", set ? "" : " and one of value");
}

Type *infer_table_key(Infer *c, Instr *in, Instr *table, Instr *key)
{
    Type *t = table->type, *k = t->kind == TY_SET ? t->set.item : t->dict.key;
    if (!k)
        return NULL;   /* typed once something is stored */
    Type *x = ty_strong(key->type);
    if (ty_is_undetermined(x))
        return NULL;
    if (stores_as(x, k))
        return k;
    /* an int key of another width looks up its value converted to the key type, as Numba casts
     * it (umap asks `i in d`, i a range's int64, of a Dict.empty(int32, int32)) */
    if (ty_is_int(x) && ty_is_int(k))
        return k;
    if (t->kind == TY_DICT && casts_into_fixed(infer_value_type(x), k))
        return k;   /* a float64 key into a dict of float32 keys: cast, as Numba's typed dict does */
    return infer_fail(c, in, DIAG_TYPING, "%s looked up with a key of type %s (its keys are %s)",
                      infer_type_name(t), infer_type_name(x), infer_type_name(k));
}

Type *infer_table_made(Infer *c, Instr *in, bool set)
{
    if (prog_kernel_code(c->pi->prog))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "%s are not supported in GPU kernels",
                          set ? "sets" : "dicts");
    Type *t = in->id < c->nknown ? c->table_types[in->id] : NULL;
    return t ? t : set ? ty_set(NULL) : ty_dict(NULL, NULL);
}

/* {"n": 3, "name": "run"}: constant string keys, each once, and values of mixed types make a
 * literal dict (types.h), built as the tuple of its values; NULL when the display is not one. */
static Type *type_literal_dict(Infer *c, Instr *in)
{
    int n = in->nargs / 2;
    const char **keys = arena_alloc(c->arena, sizeof *keys * (size_t)(n + 1));
    Type **values = arena_alloc(c->arena, sizeof *values * (size_t)(n + 1));
    Instr **args = arena_alloc(c->arena, sizeof *args * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        keys[i] = infer_const_str(in->args[2 * i]->type);
        if (!keys[i])
            return NULL;
        for (int j = 0; j < i; j++)
            if (strcmp(keys[i], keys[j]) == 0)
                return NULL;
        args[i] = in->args[2 * i + 1];
        values[i] = infer_value_type(ty_strong(args[i]->type));
        if (c->rewrite)
            args[i] = infer_coerce(c, in, args[i], values[i]);
    }
    if (c->rewrite) {
        in->op = OP_BUILD_TUPLE;
        infer_set_args(c, in, args, n);
    }
    return ty_literal_dict(keys, values, n);
}

/* {k: v, ...} and {x, ...}: typed by their items and by what later uses store. */
static Type *type_build_table(Infer *c, Instr *in)
{
    bool set = in->op == OP_BUILD_SET;
    Type *t = infer_table_made(c, in, set);
    if (!t)
        return NULL;
    int per = set ? 1 : 2;
    for (int i = 0; i + per <= in->nargs; i += per) {
        Type *kt = ty_strong(in->args[i]->type), *vt = set ? NULL : ty_strong(in->args[i + 1]->type);
        if (table_join(c, in, t, kt, vt, &t) < 0)
            return NULL;
        Type *lit = !t && !set ? type_literal_dict(c, in) : NULL;
        if (lit)
            return lit;
        if (!t)
            return infer_fail(c, in, DIAG_TYPING, "%s of mixed types: a %s holds one type of key%s",
                              set ? "set items" : "dict items", set ? "set" : "dict",
                              set ? "" : " and one of value (a display of constant string keys, "
                              "each once, may mix its values' types)");
    }
    if (c->rewrite)
        for (int i = 0; i < in->nargs; i++)
            in->args[i] = infer_coerce(c, in, in->args[i], set ? t->set.item : i % 2 ? t->dict.value
                                                                                     : t->dict.key);
    return t;
}

static Type *type_build_slice(Infer *c, Instr *in)
{
    for (int i = 0; i < in->nargs; i++) {
        Type *t = in->args[i]->type;
        if (t->kind == TY_NONE)
            continue;
        if (!ty_is_int(t) && t->kind != TY_BOOL)
            return infer_fail(c, in, DIAG_TYPING, "slice indices must be integers or None, not %s",
                              infer_type_name(t));
        if (c->rewrite)
            in->args[i] = infer_coerce(c, in, in->args[i], ty_scalar(TY_INT64));
    }
    return ty_scalar(TY_SLICE);
}

static Type *type_const(Infer *c, Instr *in);

/* An argument compiled for one value (its type a literal: literally(), an overload chosen for
 * literal types) is that value, a constant: the overloads it is passed to see it as a literal,
 * literally() on it is itself, and LLVM folds it. An int is weak there, as a Python int
 * constant written in the code is. */
static Type *type_arg(Infer *c, Instr *in)
{
    Type *t = c->argtypes[in->imm];
    const Const *v = ty_literal_value(t);
    if (!v)
        return t;
    Const *k = ir_new_const(c->fn, v->kind);
    if (v->kind == K_INT)
        k->i = v->i;
    else if (v->kind == K_BOOL)
        k->b = v->b;
    else
        k->s = arena_strdup(c->arena, v->s ? v->s : "");
    in->op = OP_CONST;
    in->cst = k;
    return type_const(c, in);
}

static Type *type_const(Infer *c, Instr *in)
{
    Const *k = in->cst;
    switch (k->kind) {
    case K_INT: return k->array_type ? k->array_type : ty_weak(ty_scalar(TY_INT64));
    case K_FLOAT: return ty_weak(ty_scalar(TY_FLOAT64));
    case K_COMPLEX: return ty_weak(ty_scalar(TY_COMPLEX128));
    case K_STR: return in->type && in->type->kind == TY_STR ? in->type : ty_literal(TY_STRING, k);
    case K_MODULE: return ty_literal(TY_MODULE, k);
    case K_FUNC:
        if (k->name && strcmp(k->name, "gpu.laneid") == 0)   /* a value, not a function */
            return infer_gpu_value(c, in, BI_GPU_LANEID);
        return ty_literal(TY_FUNCTION, k);
    case K_DISPATCHER: return ty_literal(TY_DISPATCHER, k);
    case K_CFUNC:
    case K_OBJMODE: return ty_literal(TY_FUNCTION, k);
    case K_EXCCLASS: return ty_literal(TY_EXCCLASS, k);
    case K_TYPE: {   /* a dtype constant is a value; other types are told they are no function */
        Type *t = ty_parse(k->name);
        return t && t->kind == TY_DTYPE ? t : ty_literal(TY_FUNCTION, k);
    }
    case K_NAMEDTUPLE: return ty_literal(TY_NTCLASS, k);
    case K_OPAQUE:
    case K_UNDEFINED: return in->type && in->type->kind != TY_UNDEFINED ? in->type : ty_undefined();
    case K_TUPLE: {
        Type *t = infer_const_type(c, k);
        return t ? t : infer_fail(c, in, DIAG_UNSUPPORTED, "this tuple constant holds values "
                                  "compiled code cannot use");
    }
    default: {
        Type *t = infer_const_type(c, k);
        return t ? t : infer_fail(c, in, DIAG_INTERNAL, "a constant without a type");
    }
    }
}

/* ---- terminators ------------------------------------------------------------------------- */

static Type *type_cbr(Infer *c, Instr *in)
{
    int k = truth_of(c, in, in->args[0]);
    if (k == -2)
        return NULL;
    if (k < 0)
        k = infer_known(c, in->args[0]);
    infer_set_known(c, in, k);
    if (k != 0)
        mark_exec(c, in->succ[0]);
    if (k != 1)
        mark_exec(c, in->succ[1]);
    if (c->rewrite)
        in->args[0] = as_bool(c, in, in->args[0]);
    return ty_scalar(TY_NONE);
}

/* Two returns of types that do not unify. Where both return one variable (CPython 3.12 copies
 * a shared `return y` into each branch), the lines where it was assigned say more than the
 * returns'. */
static Type *ret_clash(Infer *c, Instr *in, Instr *first, Instr *v, Type *t)
{
    if (first->var && v->var && strcmp(first->var, v->var) == 0)
        return infer_fail(c, in, DIAG_TYPING, "variable '%s' is %s at line %d and %s at line %d; "
                          "the function must return one type", v->var, infer_type_name(c->ret),
                          first->line, infer_type_name(t), v->line);
    return infer_fail(c, in, DIAG_TYPING, "the function returns %s at line %d and %s at line %d; "
                      "it must return one type", infer_type_name(c->ret), c->ret_from->line,
                      infer_type_name(t), in->line);
}

/* Whether a returned value of type from converts to a declared return type: numbers convert
 * to any number type (as casts do), tuples item by item, anything else only to what it unifies
 * with unchanged. */
static bool returns_as(Type *from, Type *to)
{
    if (ty_is_scalar(from) && ty_is_scalar(to))
        return true;
    if (from->kind == TY_TUPLE && to->kind == TY_TUPLE) {
        if (from->tuple.n != to->tuple.n)
            return false;
        for (int i = 0; i < from->tuple.n; i++)
            if (!returns_as(ty_strong(from->tuple.items[i]), to->tuple.items[i]))
                return false;
        return true;
    }
    return ty_unify(to, from) == to;
}

static Type *type_ret(Infer *c, Instr *in)
{
    Instr *v = in->args[0];
    Type *t = infer_value_type(v->type);
    if (ty_is_closure(t) || t->kind == TY_DISPATCHER || t->kind == TY_FUNCPTR)
        return infer_fail(c, in, DIAG_UNSUPPORTED, "returning a function (%s) from compiled code "
                          "is not supported: call it where it is made, or pass it to the "
                          "function that calls it", infer_type_name(t));
    /* a dtype (np.float64, a.dtype) is known when compiling: the caller gets it with no value */
    bool dtype = t->kind == TY_DTYPE && t->dtype.scalar;
    if ((!infer_is_runtime(t) && !dtype) || ty_is_iterator(t))
        return infer_fail(c, in, DIAG_TYPING, "cannot return %s from compiled code", infer_type_name(t));
    /* an optional returned where a value is declared: None is a TypeError at run time */
    bool unwrap = t->kind == TY_OPTIONAL && c->declared && c->declared->kind != TY_OPTIONAL;
    if (unwrap)
        t = t->optional.value;
    if (c->rewrite) {
        in->args[0] = infer_coerce(c, in, unwrap ? infer_unwrap(c, in, v) : v, c->tf->ret);
        return ty_scalar(TY_NONE);
    }
    if (c->declared && !returns_as(t, c->declared))
        return infer_fail(c, in, DIAG_TYPING, "cannot return %s from a function declared to "
                          "return %s", infer_type_name(t), infer_type_name(c->declared));
    if (!c->ret) {
        c->ret = t;
        c->ret_from = in;
    } else {
        Type *u = infer_join(c->ret, t);
        if (!u)
            return ret_clash(c, in, c->ret_from->args[0], v, t);
        c->ret = u;
    }
    return ty_scalar(TY_NONE);
}

static Type *type_raise(Infer *c, Instr *in)
{
    Type *t = in->args[0]->type;
    if (t->kind != TY_EXCCLASS && t->kind != TY_EXCEPTION && t->kind != TY_CAUGHT)
        return infer_fail(c, in, DIAG_TYPING, "exceptions must derive from BaseException, not %s",
                          infer_type_name(t));
    return ty_scalar(TY_NONE);
}

/* ---- try/except ------------------------------------------------------------------------- */

static Type *type_exc_match(Infer *c, Instr *in)
{
    for (int i = 1; i < in->nargs; i++) {
        Type *t = in->args[i]->type;
        if (t->kind != TY_EXCCLASS || !t->literal)
            return infer_fail(c, in, DIAG_TYPING, "an except clause names exception classes (or "
                              "a tuple of them), not %s", infer_type_name(t));
    }
    return ty_scalar(TY_BOOL);
}

/* str(e), as a call or once inference made it the builtin. */
static bool is_str_of(const Instr *in)
{
    if (in->op == OP_INTRINSIC)
        return in->sub == BI_STR;
    const Instr *f = in->op == OP_CALL && in->nargs == 2 ? in->args[0] : NULL;
    return f && f->op == OP_CONST && f->cst->kind == K_FUNC && f->cst->name &&
           strcmp(f->cst->name, "builtins.str") == 0;
}

/* A caught exception (`except E as e`) can be matched, raised again and made a string (str(e)),
 * nothing more. */
static bool uses_caught(Instr *in)
{
    if (in->op == OP_RAISE || in->op == OP_EXC_MATCH || in->op == OP_EXC_DONE || is_str_of(in))
        return false;
    for (int i = 0; i < in->nargs; i++)
        if (in->args[i]->type && in->args[i]->type->kind == TY_CAUGHT)
            return true;
    return false;
}

/* ---- the per-instruction dispatch -------------------------------------------------------- */

/* Reports operands that cannot be used (an unsupported global, a variable that may be unset);
 * false also when one has no type yet. */
static bool operands_ready(Infer *c, Instr *in)
{
    for (int i = 0; i < in->nargs; i++) {
        Instr *a = in->args[i];
        if (a->op == OP_CONST && a->cst->kind == K_OPAQUE) {
            opaque_fail(c, in, a->cst);
            return false;
        }
        if (a->op == OP_CONST && a->cst->kind == K_UNDEFINED && a->type &&
            a->type->kind == TY_UNDEFINED) {
            infer_fail(c, in, DIAG_TYPING, "local variable '%s' may be used before it is assigned",
                       a->cst->s ? a->cst->s : a->var ? a->var : "?");
            return false;
        }
        if (!a->type)
            return false;
    }
    return true;
}

static Type *type_instr(Infer *c, Instr *in)
{
    if (in->op == OP_PHI)
        return type_phi(c, in);
    if (in->op == OP_CALL && infer_empty_list_arg(c, in))
        return NULL;   /* its argument is typed in the next round */
    if (!operands_ready(c, in) || infer_none_waits(c, in))
        return NULL;
    if (uses_caught(in))
        return infer_fail(c, in, DIAG_UNSUPPORTED, "an exception caught with `except ... as` can "
                          "only be raised again (raise, raise e) or made a string (str(e)) in "
                          "compiled code");
    infer_unwrap_operands(c, in);
    switch (in->op) {
    case OP_ARG:
        if (in->imm < 0 || in->imm >= c->tf->nargs)
            return infer_fail(c, in, DIAG_INTERNAL, "argument %lld out of range", (long long)in->imm);
        return type_arg(c, in);
    case OP_CONST: return type_const(c, in);
    case OP_BINOP: return type_binop(c, in);
    case OP_UNARY: return type_unary(c, in);
    case OP_COMPARE: return type_compare(c, in);
    case OP_TRUTH: return type_truth(c, in);
    case OP_GETATTR: return infer_getattr(c, in);
    case OP_GETITEM: return infer_getitem(c, in);
    case OP_SETITEM: return infer_setitem(c, in);
    case OP_STATIC_GETITEM: return infer_static_getitem(c, in);
    case OP_CALL: return infer_call(c, in);
    case OP_BUILD_TUPLE: return type_build_tuple(c, in);
    case OP_BUILD_LIST: return infer_build_list(c, in);
    case OP_BUILD_DICT: case OP_BUILD_SET: return type_build_table(c, in);
    case OP_BUILD_SLICE: return type_build_slice(c, in);
    case OP_GETITER: return infer_getiter(c, in);
    case OP_BR:
        mark_exec(c, in->succ[0]);
        return ty_scalar(TY_NONE);
    case OP_CBR: return type_cbr(c, in);
    case OP_FOR_ITER: {
        Type *t = infer_for_iter(c, in);
        Type *over = in->args[0]->type->iter.over;
        if (t || ty_is_undetermined(over)) {   /* the loop may type the container */
            mark_exec(c, in->succ[0]);
            mark_exec(c, in->succ[1]);
        }
        return t;
    }
    case OP_RET: return type_ret(c, in);
    case OP_RAISE: return type_raise(c, in);
    case OP_CATCH: return ty_caught();
    case OP_EXC_MATCH: return type_exc_match(c, in);
    case OP_EXC_DONE: return ty_scalar(TY_NONE);
    case OP_OPTIONAL: return infer_optional_instr(c, in);
    default:
        return in->type;   /* already typed (made by inference) */
    }
}

/* ---- the worklist ------------------------------------------------------------------------ */

static int run_fixpoint(Infer *c)
{
    mark_exec(c, c->fn->blocks.items[0]);
    for (int round = 0; round < MAX_ROUNDS; round++) {
        c->changed = false;
        c->none_waits = false;
        c->lists_wait = false;
        c->ret = NULL;
        c->ret_from = NULL;
        for (int i = 0; i < c->fn->blocks.len; i++) {
            Block *b = c->fn->blocks.items[i];
            if (!block_exec(b))
                continue;
            mark_exec(c, b->handler);   /* what it calls or checks may raise */
            for (int j = 0; j < b->instrs.len; j++) {
                Instr *in = b->instrs.items[j];
                Type *t = type_instr(c, in);
                if (failed(c))
                    return -1;
                if (t && t != in->type) {
                    in->type = t;
                    c->changed = true;
                }
            }
        }
        if (!c->changed && c->none_waits && !c->none_final) {
            c->none_final = true;   /* the variables still None are None: report their uses */
            continue;
        }
        if (!c->changed && c->lists_wait && !c->lists_final) {
            c->lists_final = true;   /* no other use typed them: np.array's dtype does */
            continue;
        }
        if (!c->changed)
            return 0;
    }
    infer_fail(c, NULL, DIAG_INTERNAL, "type inference did not converge");
    return -1;
}

/* ---- the rewrite ------------------------------------------------------------------------- */

static void remove_pred_at(Block *b, int i)
{
    for (int j = 0; j < b->instrs.len; j++) {
        Instr *phi = b->instrs.items[j];
        if (phi->op != OP_PHI)
            break;
        if (i < phi->nargs) {
            memmove(&phi->args[i], &phi->args[i + 1], sizeof(Instr *) * (size_t)(phi->nargs - i - 1));
            phi->nargs--;
        }
    }
    memmove(&b->preds.items[i], &b->preds.items[i + 1], sizeof(void *) * (size_t)(b->preds.len - i - 1));
    b->preds.len--;
}

static void remove_pred(Block *b, Block *p)
{
    for (int i = 0; i < b->preds.len; i++)
        if (b->preds.items[i] == p) {
            remove_pred_at(b, i);
            return;
        }
}

/* Folds branches on known conditions and drops the blocks no path reaches, renumbering the rest. */
static void prune_cfg(Infer *c)
{
    IRFunc *fn = c->fn;
    for (int i = 0; i < fn->blocks.len; i++) {
        Block *b = fn->blocks.items[i];
        Instr *t = block_exec(b) ? ir_terminator(b) : NULL;
        int k = t && t->op == OP_CBR ? cbr_known(c, t) : -1;
        if (k < 0)
            continue;
        Block *keep = t->succ[k ? 0 : 1], *drop = t->succ[k ? 1 : 0];
        t->op = OP_BR;
        t->succ[0] = keep;
        t->succ[1] = NULL;
        t->nargs = 0;
        remove_pred(drop, b);
    }
    int n = 0;
    for (int i = 0; i < fn->blocks.len; i++) {
        Block *b = fn->blocks.items[i];
        if (!block_exec(b))
            continue;
        for (int p = b->preds.len - 1; p >= 0; p--)
            if (!block_exec(b->preds.items[p]))
                remove_pred_at(b, p);
        b->id = n;
        fn->blocks.items[n++] = b;
    }
    fn->blocks.len = n;
}

static void remove_instr(Block *b, int j)
{
    memmove(&b->instrs.items[j], &b->instrs.items[j + 1], sizeof(void *) * (size_t)(b->instrs.len - j - 1));
    b->instrs.len--;
}

/* Counts, by value id, the uses of each value by the instructions left in the function. */
static int *count_uses(Infer *c)
{
    int *uses = arena_alloc(c->arena, sizeof(int) * (size_t)(c->fn->next_id + 1));
    for (int i = 0; i < c->fn->blocks.len; i++) {
        Block *b = c->fn->blocks.items[i];
        for (int j = 0; j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j];
            for (int k = 0; k < in->nargs; k++)
                uses[in->args[k]->id]++;
        }
    }
    return uses;
}

bool infer_used_once(Infer *c, const Instr *v)
{
    int uses = 0;
    for (int i = 0; i < c->fn->blocks.len; i++) {
        Block *b = c->fn->blocks.items[i];
        for (int j = 0; j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j];
            for (int k = 0; k < in->nargs; k++)
                if (in->args[k] == v && ++uses > 1)
                    return false;
        }
    }
    return uses == 1;
}

/* Whether an unused in can go: it computes a value without effect (no exception either). */
static bool is_pure(const Instr *in)
{
    switch (in->op) {
    case OP_CONST: case OP_BUILD_TUPLE: case OP_BUILD_LIST: case OP_BUILD_DICT: case OP_BUILD_SET:
    case OP_BUILD_SLICE: case OP_STATIC_GET: case OP_GETATTR:
    case OP_ARRAY_ATTR: case OP_CAST: case OP_PHI:
        return true;
    default:
        return false;
    }
}

/* A use, other than by a phi, of a variable that may be unassigned (note_unset). */
static int check_unset_uses(Infer *c)
{
    for (int i = 0; i < c->fn->blocks.len; i++) {
        Block *b = c->fn->blocks.items[i];
        for (int j = 0; j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j];
            for (int k = 0; k < in->nargs && in->op != OP_PHI; k++) {
                Instr *a = in->args[k];
                if (a->op == OP_PHI && a->id < c->nknown && c->maybe_unset[a->id]) {
                    infer_fail(c, in, DIAG_TYPING, "local variable '%s' may be used before it is "
                               "assigned: it is not set on every path to line %d",
                               a->var ? a->var : "?", in->line);
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* Drops values nothing uses that have no type (untyped phis of variables never assigned on a
 * live path) or no effect (the tuple an index was written as, the module of math.sqrt), then
 * strips weakness from what remains. */
static int finish_types(Infer *c)
{
    for (bool again = true; again;) {
        again = false;
        int *uses = count_uses(c);
        for (int i = 0; i < c->fn->blocks.len; i++) {
            Block *b = c->fn->blocks.items[i];
            for (int j = b->instrs.len - 1; j >= 0; j--) {
                Instr *in = b->instrs.items[j];
                if (uses[in->id] == 0 && j != b->instrs.len - 1 && (!in->type || is_pure(in))) {
                    remove_instr(b, j);
                    again = true;
                }
            }
        }
    }
    /* GPU kernels and device functions take a variable unset on some path to a use, as
     * numba-cuda's do: a kernel sets a value under `if i < n:` and reads it under the same test
     * after a barrier, which cannot sit inside the branch. The value on a path that never set it
     * is zero (undefined_value); the interpreted simulator raises UnboundLocalError there. */
    if (!prog_kernel_code(c->pi->prog) && check_unset_uses(c) < 0)
        return -1;
    for (int i = 0; i < c->fn->blocks.len; i++) {
        Block *b = c->fn->blocks.items[i];
        for (int j = 0; j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j];
            if (!in->type) {
                if (in->op == OP_BUILD_LIST)   /* [[]] that nothing typed */
                    infer_fail(c, in, DIAG_TYPING, "the type of this list's items is unknown: "
                               "its empty lists need an append (or an item assignment) in the "
                               "function that makes them");
                else if (in->var)
                    infer_fail(c, in, DIAG_TYPING, "local variable '%s' is used before it is "
                               "assigned", in->var);
                else
                    infer_fail(c, in, DIAG_TYPING, "this value is never computed on any path "
                               "that reaches its use");
                return -1;
            }
            if (in->type->kind == TY_LIST && !in->type->list.item) {
                infer_fail(c, in, DIAG_TYPING, "the type of this list's items is unknown: an "
                           "empty list needs an append (or an item assignment) in the function "
                           "that makes it");
                return -1;
            }
            if (in->type->kind == TY_DICT && !in->type->dict.key) {
                infer_fail(c, in, DIAG_TYPING, "the key and value types of this dict are unknown: "
                           "an empty dict needs an item assignment (d[k] = v) in the function "
                           "that makes it");
                return -1;
            }
            if (in->type->kind == TY_SET && !in->type->set.item) {
                infer_fail(c, in, DIAG_TYPING, "the type of this set's items is unknown: an empty "
                           "set needs an add() in the function that makes it");
                return -1;
            }
            in->type = ty_strong(in->type);
            if (in->op == OP_GETITER)
                in->aux = NULL;   /* infer_items.c's note on enumerate/zip loops */
        }
    }
    return 0;
}

/* Marks the blocks that can reach themselves (loops), by a search from each block. */
static void find_cycles(Infer *c)
{
    int n = c->fn->blocks.len;
    c->in_cycle = arena_alloc(c->arena, sizeof(bool) * (size_t)(n + 1));
    Block **stack = arena_alloc(c->arena, sizeof *stack * (size_t)(n + 1));
    bool *seen = arena_alloc(c->arena, sizeof(bool) * (size_t)(n + 1));
    for (int s = 0; s < n; s++) {
        Block *start = c->fn->blocks.items[s];
        memset(seen, 0, sizeof(bool) * (size_t)n);
        int top = 0;
        stack[top++] = start;
        while (top > 0 && !c->in_cycle[s]) {
            Block *succs[3];
            int nsucc = ir_successors(stack[--top], succs);
            for (int k = 0; k < nsucc; k++) {
                Block *succ = succs[k];
                if (succ == start)
                    c->in_cycle[s] = true;
                else if (succ && succ->id < n && !seen[succ->id]) {
                    seen[succ->id] = true;
                    stack[top++] = succ;
                }
            }
        }
    }
}

static int rewrite_function(Infer *c)
{
    prune_cfg(c);
    find_cycles(c);
    c->maybe_unset = arena_alloc(c->arena, sizeof(bool) * (size_t)(c->nknown + 1));
    c->rewrite = true;
    for (int i = 0; i < c->fn->blocks.len; i++) {
        Block *b = c->fn->blocks.items[i];
        int n = b->instrs.len;
        Instr **snapshot = arena_alloc(c->arena, sizeof *snapshot * (size_t)(n + 1));
        memcpy(snapshot, b->instrs.items, sizeof *snapshot * (size_t)n);
        for (int j = 0; j < n; j++) {
            Instr *in = snapshot[j];
            if (!in->type)
                continue;
            Type *t = type_instr(c, in);
            if (failed(c))
                return -1;
            if (t)
                in->type = t;
        }
    }
    return finish_types(c);
}

/* ---- functions and the program ----------------------------------------------------------- */

static MemoEntry *memo_entry(ProgInfer *pi, TypedFunc *tf)
{
    for (int i = 0; i < pi->memo.len; i++) {
        MemoEntry *e = pi->memo.items[i];
        if (e->tf == tf)
            return e;
    }
    return NULL;
}

/* A member of a cycle runs again once its head's provisional return changed: whether its own
 * return (and the one it assumes for calls of itself) changed too. -1 on error. */
static int rerun_member(Infer *m)
{
    Type *before = m->tf->ret;
    if (m->self_call)
        m->provisional = ty_strong(m->ret);
    if (run_fixpoint(m) < 0)
        return -1;
    m->tf->ret = m->ret ? ty_strong(m->ret) : NULL;
    return m->tf->ret != before;
}

/* A function that calls itself, like fib, directly or through others (its cycle's members), is
 * typed as Numba does: the calls first have no type, the returns that do not go through them give
 * a provisional return type, the calls take it, and the function and its members run again
 * until the return types settle. */
static int infer_cycle(Infer *c)
{
    const CompilerHost *host = c->pi->prog->host;
    MemoEntry *self = memo_entry(c->pi, c->tf);   /* its handle is the one calls name it by */
    Type *known = host && host->known_return && self && self->handle
                      ? host->known_return(host->ctx, self->handle, self->argtypes, self->nargs) : NULL;
    for (int round = 0; round < 8; round++) {
        Type *ret = known ? known : ty_strong(c->ret);
        if (!ret) {
            infer_fail(c, NULL, DIAG_TYPING, "recursive function '%s' has no return that does not "
                       "go through a call to itself; give it an explicit signature", c->fn->qualname);
            return -1;
        }
        bool changed = ret != c->provisional;
        c->provisional = ret;
        for (int i = 0; i < c->members.len; i++) {
            int rc = rerun_member(c->members.items[i]);
            if (rc < 0)
                return -1;
            changed |= rc > 0;
        }
        if (!changed)
            return 0;
        if (run_fixpoint(c) < 0)
            return -1;
    }
    infer_fail(c, NULL, DIAG_TYPING, "the return type of recursive function '%s' does not settle; "
               "give it an explicit signature", c->fn->qualname);
    return -1;
}

/* head, still being inferred, is called from the innermost function: every function inferred
 * above head waits for it (infer_cycle). */
static void join_cycle(ProgInfer *pi, Infer *head)
{
    bool above = false;
    for (int i = 0; i < pi->active.len; i++) {
        Infer *a = pi->active.items[i];
        if (above && a->head != head) {
            a->head = head;
            vec_push(head->arena, &head->members, a);
        }
        above |= a == head;
    }
}

static Infer *active_infer(ProgInfer *pi, TypedFunc *tf)
{
    for (int i = 0; i < pi->active.len; i++)
        if (((Infer *)pi->active.items[i])->tf == tf)
            return pi->active.items[i];
    return NULL;
}

static void clear_blocks(Infer *c)
{
    for (int i = 0; i < c->fn->blocks.len; i++)
        ((Block *)c->fn->blocks.items[i])->aux = NULL;
}

/* A head's members, typed for good: rewritten, before the head itself. */
static int rewrite_members(Infer *c)
{
    for (int i = 0; i < c->members.len; i++) {
        Infer *m = c->members.items[i];
        if (rewrite_function(m) < 0)
            return -1;
        clear_blocks(m);
    }
    return 0;
}

/* The state the worklist starts from: nothing typed, nothing known, no block reached. */
static void start_state(Infer *c)
{
    c->nknown = c->fn->next_id;
    c->known = arena_alloc(c->arena, (size_t)c->nknown + 1);
    c->list_items = arena_alloc(c->arena, sizeof(Type *) * ((size_t)c->nknown + 1));
    c->table_types = arena_alloc(c->arena, sizeof(Type *) * ((size_t)c->nknown + 1));
    memset(c->known, -1, (size_t)c->nknown + 1);
    for (int i = 0; i < c->fn->blocks.len; i++) {
        Block *b = c->fn->blocks.items[i];
        b->aux = arena_alloc(c->arena, sizeof(BlockInfo));
        for (int j = 0; j < b->instrs.len; j++)
            ((Instr *)b->instrs.items[j])->type = NULL;
    }
}

/* A loop over a tuple whose items differ in type, unrolled; then the function is inferred again
 * from the start (the copies are new code, typed per item). */
static int unroll_and_restart(Infer *c)
{
    Instr *getiter = c->unroll;
    c->unroll = NULL;
    if (infer_unroll(c, getiter, getiter->args[0]->type->tuple.n) < 0)
        return -1;
    start_state(c);
    c->ret = NULL;
    c->ret_from = NULL;
    c->none_final = false;
    c->lists_final = false;
    return run_fixpoint(c);
}

/* A member of a cycle, its worklist done: its head finishes it, and the members of its own
 * cycles. Its return type so far is what its callers see meanwhile. */
static void defer_to_head(Infer *c)
{
    for (int i = 0; i < c->members.len; i++) {
        Infer *m = c->members.items[i];
        if (m->head != c->head) {   /* else join_cycle listed it there already */
            m->head = c->head;
            vec_push(c->arena, &c->head->members, m);
        }
    }
    c->pi->active.len--;
    c->pi->depth--;
    c->tf->ret = c->ret ? ty_strong(c->ret) : NULL;
    c->tf->inferring = false;
}

/* An integer literal in [2**63, 2**64) is a uint64, as Numba types it; it may meet only uint64
 * values (np.uint64(0x8000000000000000), a mask xored into a uint64), where it computes what
 * CPython computes. Elsewhere CPython's big int would differ from any 64-bit result: refused. */
static bool big_unsigned(const Instr *a)
{
    return a->op == OP_CONST && a->cst->kind == K_INT && a->cst->array_type &&
           a->cst->array_type->kind == TY_UINT64;
}

static bool is_u64(const Type *t)
{
    return t && ty_strong((Type *)t)->kind == TY_UINT64;
}

static bool big_unsigned_use_fits(const Instr *in, int k)
{
    switch (in->op) {
    case OP_BINOP: case OP_COMPARE:
        return is_u64(in->args[1 - k]->type) || big_unsigned(in->args[1 - k]);
    case OP_CALL:
        return is_u64(in->type);
    case OP_SETITEM:
        return k == 2 && in->args[0]->type && in->args[0]->type->kind == TY_ARRAY &&
               is_u64(in->args[0]->type->array.dtype);
    default:
        return false;
    }
}

static int check_big_unsigned(Infer *c)
{
    for (int i = 0; i < c->fn->blocks.len; i++) {
        Block *b = c->fn->blocks.items[i];
        for (int j = 0; block_exec(b) && j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j];
            for (int k = 0; k < in->nargs; k++) {
                if (!big_unsigned(in->args[k]) || big_unsigned_use_fits(in, k))
                    continue;
                infer_fail(c, in, DIAG_UNSUPPORTED, "the integer %llu does not fit in 64 bits; "
                           "compiled code uses int64 (np.uint64(...) of it computes in uint64)",
                           (unsigned long long)in->args[k]->cst->i);
                return -1;
            }
        }
    }
    return 0;
}

static int infer_function(ProgInfer *pi, TypedFunc *tf, Type **argtypes, Type *declared)
{
    Infer *c = arena_alloc(pi->prog->arena, sizeof *c);   /* a cycle's member outlives this call */
    *c = (Infer){.pi = pi, .tf = tf, .fn = tf->ir, .argtypes = argtypes, .arena = pi->prog->arena,
                 .diag = pi->diag, .declared = declared};
    if (c->fn->blocks.len == 0) {
        infer_fail(c, NULL, DIAG_INTERNAL, "function has no blocks");
        return -1;
    }
    start_state(c);
    tf->inferring = true;
    pi->depth++;
    vec_push(c->arena, &pi->active, c);
    int rc = run_fixpoint(c);
    for (int round = 0; rc == 0 && c->unroll && round < 64; round++)
        rc = unroll_and_restart(c);
    if (rc == 0)
        rc = check_big_unsigned(c);
    if (rc == 0 && c->head) {
        defer_to_head(c);
        return 0;
    }
    if (rc == 0 && (c->self_call || c->members.len) && !declared)
        rc = infer_cycle(c);
    if (rc == 0) {
        tf->ret = declared ? declared : c->ret ? ty_strong(c->ret) : ty_scalar(TY_NONE);
        rc = rewrite_members(c);
    }
    if (rc == 0)
        rc = rewrite_function(c);
    pi->active.len--;
    pi->depth--;
    tf->inferring = false;
    clear_blocks(c);
    return rc;
}

static const char *make_symbol(Arena *arena, const char *name)
{
    static atomic_int counter;   /* per process: symbols must be unique in the one JIT */
    int n = atomic_fetch_add(&counter, 1);
    char *s = arena_printf(arena, "pj_%s_%d", name ? name : "f", n);
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            *p = '_';
    return s;
}

/* A function's own options: the entry's are the Program's (the first function made); a callee's
 * are its dispatcher's, or the entry's when the host gives none (a device function). */
static const CompileOptions *function_options(ProgInfer *pi, void *handle)
{
    const CompilerHost *host = pi->prog->host;
    const CompileOptions *own = NULL;
    if (pi->memo.len > 0 && host && host->options_of && handle)
        own = host->options_of(host->ctx, handle);
    return own ? own : pi->prog->opts;
}

static TypedFunc *new_typed_func(ProgInfer *pi, IRFunc *ir, void *handle, Type **argtypes,
                                 int nargs, Type *declared)
{
    Arena *arena = pi->prog->arena;
    TypedFunc *tf = arena_alloc(arena, sizeof *tf);
    tf->ir = ir;
    tf->nargs = nargs;
    tf->argtypes = arena_alloc(arena, sizeof(Type *) * (size_t)(nargs + 1));
    MemoEntry *e = arena_alloc(arena, sizeof *e);
    e->argtypes = arena_alloc(arena, sizeof(Type *) * (size_t)(nargs + 1));
    for (int i = 0; i < nargs; i++) {
        e->argtypes[i] = argtypes[i];
        tf->argtypes[i] = ty_strong(argtypes[i]);
    }
    tf->symbol = make_symbol(arena, ir->name);
    tf->opts = function_options(pi, handle);
    e->handle = handle;
    e->nargs = nargs;
    e->declared = declared;
    e->tf = tf;
    e->literal_arg = -1;
    e->literal_shape = 0;
    vec_push(arena, &pi->memo, e);
    return tf;
}

IRFunc *infer_callee_ir(Infer *c, Instr *at, void *handle)
{
    ProgInfer *pi = c->pi;
    const CompilerHost *host = pi->prog->host;
    if (!host || !host->get_ir) {
        infer_fail(c, at, DIAG_UNSUPPORTED, "calling another compiled function is not possible here");
        return NULL;
    }
    for (int i = 0; i < pi->irs.len; i++) {
        IrEntry *e = pi->irs.items[i];
        if (e->handle == handle && !e->taken)
            return e->ir;
    }
    IRFunc *ir = host->get_ir(host->ctx, handle, pi->prog->arena, pi->diag);
    if (!ir) {
        if (!failed(c))
            infer_fail(c, at, DIAG_INTERNAL, "the callee's code could not be read");
        return NULL;
    }
    IrEntry *e = arena_alloc(pi->prog->arena, sizeof *e);
    e->handle = handle;
    e->ir = ir;
    vec_push(pi->prog->arena, &pi->irs, e);
    return ir;
}


static bool same_types(Type **a, Type **b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* The IR for a new specialisation of handle: the cached one if no specialisation took it. */
static IRFunc *take_ir(Infer *c, Instr *at, void *handle)
{
    IRFunc *ir = infer_callee_ir(c, at, handle);
    if (!ir)
        return NULL;
    for (int i = 0; i < c->pi->irs.len; i++) {
        IrEntry *e = c->pi->irs.items[i];
        if (e->ir == ir)
            e->taken = true;
    }
    return ir;
}


/* A generator function that reaches no return (an endless `while True: yield`): compiled as
 * the list of what it yields, it would never complete that list. True (and the error set) if
 * tf is one. */
static bool endless_generator(Infer *c, Instr *at, const TypedFunc *tf)
{
    if (!tf->ir->generator || !tf->ret || tf->ret->kind != TY_NONE)
        return false;
    infer_fail(c, at, DIAG_UNSUPPORTED, "%s() is a generator that never ends (no return after "
               "its endless loop): compiled code runs a generator to its end and iterates the "
               "list of what it yielded, so an endless one is not supported; yield up to a "
               "bound, or loop over a range", tf->ir->name);
    return true;
}

/* Whether a recursive call of e has a return type without inferring it: a signature's. */
static bool recursive_known(Infer *c, MemoEntry *e)
{
    const CompilerHost *host = c->pi->prog->host;
    return host && host->known_return &&
           host->known_return(host->ctx, e->handle, e->argtypes, e->nargs);
}

static Type *recursive_return(Infer *c, Instr *at, MemoEntry *e)
{
    if (e->declared)
        return e->declared;
    const CompilerHost *host = c->pi->prog->host;
    Type *r = host && host->known_return ? host->known_return(host->ctx, e->handle, e->argtypes,
                                                              e->nargs) : NULL;
    if (!r)
        infer_fail(c, at, DIAG_TYPING, "recursive call of '%s': a recursive function needs an "
                   "explicit signature (its return type cannot be inferred)", e->tf->ir->qualname);
    return r;
}

TypedFunc *infer_specialise(Infer *c, Instr *at, void *handle, Type **argtypes, int nargs,
                            Type *declared, Type **ret)
{
    ProgInfer *pi = c->pi;
    for (int i = 0; i < pi->memo.len; i++) {
        MemoEntry *e = pi->memo.items[i];
        if (e->handle != handle || e->nargs != nargs || !same_types(e->argtypes, argtypes, nargs))
            continue;
        if (e->literal_arg >= 0) {   /* asked again, for the caller's next round */
            infer_fail(c, at, DIAG_LITERAL, "literally() asks for the value of argument %d of "
                       "%s", e->literal_arg + 1, e->tf->ir->qualname);
            c->diag->literal_arg = e->literal_arg;
            c->diag->literal_shape = e->literal_shape;
            return NULL;
        }
        if (e->tf == c->tf && !e->declared && e->tf->inferring) {
            /* f calling itself: typed from its other returns first (infer_cycle) */
            *ret = c->provisional;
            c->self_call = true;
            return e->tf;
        }
        Infer *head = e->tf->inferring && !e->declared ? active_infer(pi, e->tf) : NULL;
        if (head && !recursive_known(c, e)) {   /* f calls g calls f: the same, through g */
            join_cycle(pi, head);
            *ret = head->provisional;
            return *ret ? e->tf : NULL;
        }
        if (!e->tf->inferring && endless_generator(c, at, e->tf))
            return NULL;
        *ret = e->tf->inferring ? recursive_return(c, at, e) : e->tf->ret;
        return *ret ? e->tf : NULL;
    }
    if (pi->depth >= MAX_DEPTH) {
        infer_fail(c, at, DIAG_TYPING, "calls nest too deeply while specialising (a recursive "
                   "function called with ever new argument types?)");
        return NULL;
    }
    IRFunc *ir = take_ir(c, at, handle);
    if (!ir)
        return NULL;
    TypedFunc *tf = new_typed_func(pi, ir, handle, argtypes, nargs, declared);
    MemoEntry *e = memo_entry(pi, tf);
    if (infer_function(pi, tf, e->argtypes, declared) < 0) {
        if (c->diag->kind == DIAG_LITERAL) {
            e->literal_arg = c->diag->literal_arg;
            e->literal_shape = c->diag->literal_shape;
        }
        return NULL;
    }
    if (endless_generator(c, at, tf))
        return NULL;
    *ret = tf->ret;
    return tf;
}

/* Program.funcs: the entry, then every function its calls reach (specialisations made while
 * types were still changing and then left unused are not compiled). */
static void collect_funcs(Program *prog, TypedFunc *tf)
{
    for (int i = 0; i < prog->funcs.len; i++)
        if (prog->funcs.items[i] == tf)
            return;
    vec_push(prog->arena, &prog->funcs, tf);
    IRFunc *fn = tf->ir;
    for (int i = 0; i < fn->blocks.len; i++) {
        Block *b = fn->blocks.items[i];
        for (int j = 0; j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j];
            if ((in->op == OP_CALL_JIT || in->op == OP_INTRINSIC || in->op == OP_FUNC_ADDR) && in->callee)
                collect_funcs(prog, in->callee);   /* an INTRINSIC's: a prange loop's chunk */
        }
    }
}

static void dump_types(Program *prog)
{
    char *text = arena_strdup(prog->arena, "");
    for (int i = 0; i < prog->funcs.len; i++) {
        TypedFunc *tf = prog->funcs.items[i];
        char *sig = arena_strdup(prog->arena, "");
        for (int k = 0; k < tf->nargs; k++)
            sig = arena_printf(prog->arena, "%s%s%s", sig, k ? ", " : "", tf->argtypes[k]->name);
        text = arena_printf(prog->arena, "%s%s# %s(%s) -> %s  [%s]\n%s", text, i ? "\n" : "",
                            tf->ir->qualname ? tf->ir->qualname : tf->ir->name, sig,
                            tf->ret ? tf->ret->name : "?", tf->symbol, ir_dump(tf->ir, true));
    }
    prog->types_dump = text;
}

/* What an entry's argument may be: a run-time value, a C function (a K_CFUNC literal: the
 * version is for that function, its argument carries nothing) or a dtype (np.float32 given
 * from Python: the version is for it, and it carries nothing either), or a pyjit type object
 * (types.Tuple([...]) given for List.empty_list: the same). */
static bool entry_takes(const Type *t)
{
    return t && (infer_is_passable(t) || t->kind == TY_DTYPE || ty_literal_value(t) ||
                 (t->kind == TY_FUNCTION && t->literal &&
                  (t->literal->kind == K_CFUNC || t->literal->kind == K_TYPE)));
}

TypedFunc *infer_program(Program *prog, IRFunc *entry, Type **argtypes, int nargs, Type *ret,
                         Diag *diag)
{
    ProgInfer pi = {.prog = prog, .diag = diag};
    if (nargs != entry->nargs) {   /* CPython's words */
        diag_error(diag, DIAG_TYPE_ERROR, entry->qualname, entry->filename, entry->firstline, -1,
                   -1, "%s() takes %d positional argument%s but %d %s given",
                   entry->qualname ? entry->qualname : entry->name, entry->nargs,
                   entry->nargs == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
        return NULL;
    }
    for (int i = 0; i < nargs; i++)
        if (!entry_takes(argtypes[i])) {
            diag_error(diag, DIAG_TYPE_ERROR, entry->qualname, entry->filename, entry->firstline,
                       -1, -1, "argument %d of %s() has a type compiled code cannot take", i,
                       entry->name);
            return NULL;
        }
    prog->funcs.len = 0;
    TypedFunc *tf = new_typed_func(&pi, entry, entry->handle, argtypes, nargs, ret);
    IrEntry *mine = arena_alloc(prog->arena, sizeof *mine);
    mine->handle = entry->handle;
    mine->ir = entry;
    mine->taken = true;
    vec_push(prog->arena, &pi.irs, mine);
    int rc = infer_function(&pi, tf, argtypes, ret);
    if (rc < 0)
        return NULL;
    collect_funcs(prog, tf);
    dump_types(prog);
    if (prog->opts && prog->opts->debug)
        for (int i = 0; i < prog->funcs.len; i++)
            if (ir_check_typed(prog->funcs.items[i], diag) < 0)
                return NULL;
    return tf;
}
