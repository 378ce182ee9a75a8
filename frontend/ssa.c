/* ssa.c: turns the basic blocks of the bytecode into SSA IR, and fe_build, the frontend in one
 * function.
 *
 * Each block is simulated once, in reverse post-order: the value stack holds IR values, and the
 * local variables are read and written through Braun et al.'s on-the-fly SSA construction
 * ("Simple and Efficient Construction of Static Single Assignment Form", CC 2013): a read looks
 * for the variable's definition in the block, then in its predecessors, placing a phi at joins;
 * a loop header is "sealed" once its back edges are filled, completing the phis left open there.
 * Stack slots that live across blocks (the FOR_ITER iterator, the operands of `and`/`or`, a
 * ternary's value) are variables too, one per depth, written at a block's end and read at the
 * entry of its successors. Trivial phis (one distinct input) are forwarded and removed at the end.
 *
 * The CALL protocol of 3.11/3.12 keeps a NULL (or a method's self) beneath the callee; here the
 * NULL is a marker value that never reaches the IR, and a method lookup is modelled as
 * [NULL, getattr(obj, name)], so every call is `call callee, args...`. */
#include "frontend/fe_internal.h"

#include <string.h>

typedef struct Ssa {
    FeCtx *ctx;
    IRFunc *fn;
    int nvars;              /* locals (co_nlocalsplus), then one per stack depth, then the
                               exception being handled (curexc) */
    int curexc;
    int nrows;              /* CFG blocks, plus a pre-entry block when block 0 is a jump target,
                               plus a landing block per block inside a try */
    int *landing;           /* per CFG block: the row of its landing block, or -1 */
    Instr ***entry_stack;   /* per CFG block inside a try: its value stack at entry */
    Instr **defs;           /* [row * nvars + var]: the variable's value at the end of the row */
    bool *sealed, *filled, *started;
    PtrVec *incomplete;     /* per row: phis made before the block was sealed */
    PtrVec *phis;           /* per row: every phi made there */
    Block **ir;             /* per row */
    int *expected_preds;    /* per row */
    PtrVec prefix;          /* ARGs and undefined-variable constants, at the top of the entry */
    Instr **undef;          /* per var */
    Instr **stack;
    int sp;
    Block *cur;             /* the IR block being filled */
    int row;
    const char **kwnames;   /* names of the next CALL's keyword arguments (KW_NAMES) */
    int nkw;
    Instr null_mark;        /* the NULL of the call protocol */
    Instr *yielded;         /* a generator's list of the values it yields (generator_op) */
    PtrVec remade;          /* zip()/enumerate() calls whose items a call consumed (iterator_items) */
    bool underflow;
} Ssa;

/* The local variable argument i defines: itself, except for a comprehension's free variables,
 * which come after its parameter as arguments and live in the free-variable slots. */
static int arg_var(const FeCtx *ctx, int i)
{
    if (ctx->closure)   /* its free variables first */
        return i < ctx->nfree ? ctx->nlocalsplus - ctx->nfree + i : i - ctx->nfree;
    if (!ctx->comprehension)
        return i;
    if (i >= ctx->nover)
        return ctx->nlocalsplus - ctx->nfree + i - ctx->nover;
    return ctx->over ? -1 : 0;   /* zip/enumerate's arguments: no variable (ctx->over_args) */
}

/* A cell of this function (a local a nested function reads) or, in a comprehension or closure,
 * a free variable: either way a plain variable here. */
static bool deref_is_local(const FeCtx *ctx, int index)
{
    return index < ctx->nlocalsplus - ctx->nfree || ctx->comprehension || ctx->closure;
}

/* ---- Braun et al.: variables across blocks --------------------------------------------------- */

static Instr *resolve(Instr *v)
{
    while (v && v->op == OP_PHI && v->aux)
        v = v->aux;
    return v;
}

static int row_of(const Block *b)
{
    return (int)(intptr_t)b->aux;
}

static const char *var_name(Ssa *s, int var)
{
    return arena_strdup(s->fn->arena, var < s->ctx->nlocalsplus ? bc_local_name(s->ctx, var) : "<stack>");
}

static Instr *undefined(Ssa *s, int var)
{
    if (!s->undef[var]) {
        Instr *c = ir_new_instr(s->fn, OP_CONST, 0, s->fn->firstline);
        c->cst = ir_new_const(s->fn, K_UNDEFINED);
        c->cst->s = var_name(s, var);
        c->block = s->fn->blocks.items[0];
        vec_push(s->fn->arena, &s->prefix, c);
        s->undef[var] = c;
    }
    return s->undef[var];
}

static void write_var(Ssa *s, int var, int row, Instr *v)
{
    s->defs[(size_t)row * (size_t)s->nvars + (size_t)var] = v;
}

static Instr *new_phi(Ssa *s, int row, int var)
{
    Block *b = s->ir[row];
    int line = row < s->ctx->nblocks ? s->ctx->instrs[s->ctx->blocks[row].first].line : s->fn->firstline;
    Instr *phi = ir_new_instr(s->fn, OP_PHI, 0, line);
    phi->block = b;
    phi->imm = var;   /* the variable, while building; cleared at the end */
    if (var < s->ctx->nlocalsplus)
        phi->var = var_name(s, var);
    vec_push(s->fn->arena, &s->phis[row], phi);
    return phi;
}

static Instr *read_var(Ssa *s, int var, int row);

/* A phi whose inputs are all one value (or itself) is that value. */
static Instr *try_remove_trivial(Ssa *s, Instr *phi)
{
    Instr *same = NULL;
    for (int i = 0; i < phi->nargs; i++) {
        Instr *a = resolve(phi->args[i]);
        if (a == same || a == phi)
            continue;
        if (same)
            return phi;
        same = a;
    }
    if (!same)
        same = undefined(s, (int)phi->imm);
    phi->aux = same;
    return same;
}

static Instr *add_phi_operands(Ssa *s, Instr *phi, int var)
{
    Block *b = phi->block;
    phi->nargs = b->preds.len;
    phi->args = arena_alloc(s->fn->arena, sizeof(Instr *) * (size_t)(phi->nargs + 1));
    for (int i = 0; i < phi->nargs; i++)
        phi->args[i] = read_var(s, var, row_of(b->preds.items[i]));
    return try_remove_trivial(s, phi);
}

static Instr *read_var_recursive(Ssa *s, int var, int row)
{
    Block *b = s->ir[row];
    Instr *v;
    if (!s->sealed[row]) {
        v = new_phi(s, row, var);
        vec_push(s->fn->arena, &s->incomplete[row], v);
    } else if (b->preds.len == 0) {
        v = undefined(s, var);
    } else if (b->preds.len == 1) {
        v = read_var(s, var, row_of(b->preds.items[0]));
    } else {
        Instr *phi = new_phi(s, row, var);
        write_var(s, var, row, phi);   /* breaks cycles through loops */
        v = add_phi_operands(s, phi, var);
    }
    write_var(s, var, row, v);
    return v;
}

static Instr *read_var(Ssa *s, int var, int row)
{
    Instr *v = s->defs[(size_t)row * (size_t)s->nvars + (size_t)var];
    return v ? resolve(v) : read_var_recursive(s, var, row);
}

static void seal(Ssa *s, int row)
{
    PtrVec *open = &s->incomplete[row];
    s->sealed[row] = true;
    for (int i = 0; i < open->len; i++) {
        Instr *phi = open->items[i];
        add_phi_operands(s, phi, (int)phi->imm);
    }
    open->len = 0;
}

/* ---- emitting -------------------------------------------------------------------------------- */

static Instr *emit(Ssa *s, Opcode op, int nargs)
{
    const BcInstr *at = s->ctx->cur;
    Instr *in = ir_new_instr(s->fn, op, nargs, at ? at->line : s->fn->firstline);
    if (at) {
        in->col = at->col;
        in->end_col = at->end_col;
    }
    ir_append(s->cur, in);
    return in;
}

static int push(Ssa *s, Instr *v)
{
    if (s->sp >= s->ctx->stacksize + 2)
        return fe_error(s->ctx, DIAG_INTERNAL, "value stack overflow");
    s->stack[s->sp++] = v;
    return 0;
}

/* An underflow (malformed bytecode) yields the marker and is reported after the instruction. */
static Instr *pop(Ssa *s)
{
    if (s->sp > 0)
        return s->stack[--s->sp];
    s->underflow = true;
    return &s->null_mark;
}

static Instr *emit_const(Ssa *s, Const *c)
{
    Instr *in = emit(s, OP_CONST, 0);
    in->cst = c;
    return in;
}

/* A frozen global: its constant, or type(value) for a NumPy scalar (see freeze_object). */
static Instr *emit_frozen(Ssa *s, Const *c)
{
    Const *type = s->ctx->scalar_type;
    s->ctx->scalar_type = NULL;
    if (!type)
        return emit_const(s, c);
    Instr *f = emit_const(s, type), *v = emit_const(s, c);
    Instr *call = emit(s, OP_CALL, 2);
    call->args[0] = f;
    call->args[1] = v;
    return call;
}

static Instr *emit_none(Ssa *s)
{
    return emit_const(s, ir_new_const(s->fn, K_NONE));
}

static void link_succ(Ssa *s, Instr *term, int slot, int to_block)
{
    Block *to = s->ir[to_block];
    term->succ[slot] = to;
    ir_add_pred(s->fn, to, s->cur);
}

static Instr *emit1(Ssa *s, Opcode op, int sub, Instr *a)
{
    Instr *in = emit(s, op, 1);
    in->sub = sub;
    in->args[0] = a;
    return in;
}

static Instr *emit2(Ssa *s, Opcode op, int sub, Instr *a, Instr *b)
{
    Instr *in = emit(s, op, 2);
    in->sub = sub;
    in->args[0] = a;
    in->args[1] = b;
    return in;
}

/* ---- translating one instruction ------------------------------------------------------------- */

static const BinOp binop_of_nb[13] = {
    BIN_ADD, BIN_AND, BIN_FLOORDIV, BIN_LSHIFT, BIN_MATMUL, BIN_MUL, BIN_MOD,
    BIN_OR, BIN_POW, BIN_RSHIFT, BIN_SUB, BIN_TRUEDIV, BIN_XOR,
};

/* Both operands of the instruction being translated are literals, loaded right before it:
 * an expression of constants that CPython left unfolded (globals wrap at run time instead). */
static bool literal_operands(Ssa *s)
{
    const BcInstr *at = s->ctx->cur;
    return at && at - s->ctx->instrs >= 2 && at[-1].op == BC_LOAD_CONST && at[-2].op == BC_LOAD_CONST;
}

/* What a construct is, in Python terms, for the opcodes that only it produces. */
static const char *unsupported_construct(const BcInstr *in)
{
    switch (in->op) {
    case BC_LIST_EXTEND: case BC_LIST_TO_TUPLE:
        return "unpacking into a list ([*a, b], tuple([...])) is not supported in compiled code";
    case BC_DICT_UPDATE: case BC_DICT_MERGE:
        return "unpacking into a dict ({**a, ...}) is not supported in compiled code (use update())";
    case BC_SET_UPDATE:
        return "unpacking into a set ({*a, ...}) is not supported in compiled code (use update())";
    case BC_IMPORT_NAME: case BC_IMPORT_FROM: case BC_IMPORT_STAR:
        return "import inside a compiled function is not supported (import at module level)";
    case BC_LOAD_BUILD_CLASS:
        return "class definitions are not supported in compiled code";
    case BC_MAKE_FUNCTION:
        return "this nested function is not supported in compiled code (lambdas, inner functions, "
               "comprehensions and generator expressions are)";
    case BC_STORE_GLOBAL: case BC_DELETE_GLOBAL:
        return "assigning to a global variable (the global statement) is not supported in compiled code";
    case BC_STORE_DEREF: case BC_DELETE_DEREF:
        return "assigning to a variable of an enclosing function (nonlocal) is not supported in compiled code";
    case BC_DELETE_ATTR: case BC_DELETE_NAME:
        return "the del statement is supported on items only (del d[k], del l[i]) in compiled code";
    case BC_CALL_FUNCTION_EX:
        return "calls with **kwargs, or with *args after other arguments, are not supported in "
               "compiled code (f(*t) with a tuple t is)";
    case BC_GET_YIELD_FROM_ITER: case BC_SEND:
        return "yield from (generators that delegate) is not supported in compiled code";
    case BC_YIELD_VALUE: case BC_RETURN_GENERATOR:
        return "generators (yield) are not supported in compiled code";
    case BC_GET_AWAITABLE: case BC_GET_AITER: case BC_GET_ANEXT: case BC_BEFORE_ASYNC_WITH:
    case BC_END_ASYNC_FOR:
        return "async code is not supported in compiled code";
    case BC_BEFORE_WITH:
        return "the with statement is not supported in compiled code";
    case BC_MATCH_CLASS: case BC_MATCH_MAPPING: case BC_MATCH_SEQUENCE: case BC_MATCH_KEYS:
    case BC_GET_LEN:
        return "the match statement is not supported in compiled code";
    case BC_LOAD_NAME: case BC_STORE_NAME: case BC_LOAD_CLASSDEREF: case BC_LOAD_LOCALS:
    case BC_LOAD_FROM_DICT_OR_GLOBALS: case BC_LOAD_FROM_DICT_OR_DEREF:
        return "only functions are compiled, not class bodies or module-level code";
    case BC_LOAD_SUPER_ATTR:
        return "super() is not supported in compiled code";
    case BC_CHECK_EG_MATCH:
        return "except* is not supported in compiled code";
    default:
        return NULL;
    }
}

static int unsupported(Ssa *s, const BcInstr *in)
{
    const char *what = unsupported_construct(in);
    if (what)
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "%s", what);
    return fe_error(s->ctx, DIAG_UNSUPPORTED, "opcode %s at line %d is not supported", in->opname,
                    in->line);
}

static const char *name_at(Ssa *s, int index)
{
    PyObject *names = s->ctx->names;
    if (index < 0 || index >= PyTuple_GET_SIZE(names))
        return "?";
    const char *n = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, index));
    if (!n)
        PyErr_Clear();
    return n ? arena_strdup(s->fn->arena, n) : "?";
}

/* A module constant whose attribute was folded is dead if it was just loaded (math.pi): drop it,
 * so dumps and inference do not see it. */
static void drop_if_dead(Ssa *s, Instr *v)
{
    PtrVec *body = &s->cur->instrs;
    if (body->len == 0 || body->items[body->len - 1] != v || v->var)   /* var: stored to a local */
        return;
    for (int i = 0; i < s->sp; i++)
        if (s->stack[i] == v)
            return;
    body->len--;
}

static int load_attr(Ssa *s, const char *name, bool method)
{
    Instr *obj = pop(s), *v;
    Const *c;
    if (method && push(s, &s->null_mark) < 0)
        return -1;
    int folded = obj->op == OP_CONST ? fe_fold_attr_function(s->ctx, obj->cst, name, &c) : 0;
    if (folded < 0)
        return -1;
    if (folded) {
        drop_if_dead(s, obj);
        v = emit_frozen(s, c);
    } else if (obj->op == OP_CONST && obj->cst->kind == K_MODULE) {
        Const *c;
        if (fe_fold_module_attr(s->ctx, obj->cst, name, &c) < 0)
            return -1;
        drop_if_dead(s, obj);
        v = emit_frozen(s, c);
    } else {
        v = emit1(s, OP_GETATTR, 0, obj);
        v->name = name;
    }
    return push(s, v);
}

static int load_global(Ssa *s, int arg)
{
    Const *c;
    if ((arg & 1) && push(s, &s->null_mark) < 0)
        return -1;
    if (fe_load_global(s->ctx, name_at(s, arg >> 1), &c) < 0)
        return -1;
    return push(s, emit_frozen(s, c));
}

static int kw_names(Ssa *s, int index)
{
    PyObject *t = index < PyTuple_GET_SIZE(s->ctx->consts) ? PyTuple_GET_ITEM(s->ctx->consts, index) : NULL;
    if (!t || !PyTuple_Check(t))
        return fe_error(s->ctx, DIAG_INTERNAL, "KW_NAMES without a tuple of names");
    s->nkw = (int)PyTuple_GET_SIZE(t);
    s->kwnames = arena_alloc(s->fn->arena, sizeof(char *) * (size_t)(s->nkw + 1));
    for (int i = 0; i < s->nkw; i++) {
        const char *n = PyUnicode_AsUTF8(PyTuple_GET_ITEM(t, i));
        s->kwnames[i] = arena_strdup(s->fn->arena, n ? n : "?");
        PyErr_Clear();
    }
    return 0;
}

/* A list comprehension (3.11) is a nested function that MAKE_FUNCTION makes and CALL calls at
 * once with the iterator. It is compiled as a callee of its own (pyjit.decorators._comprehension):
 * the callee constant carries the values of the outer variables it reads (its closure), which
 * the call passes after the iterable. Other nested functions are refused. */
typedef struct Comprehension {
    PyObject *code;     /* kept alive by the constant that loaded it */
    int n;
    Instr **values;
} Comprehension;

static bool is_last_instr(Ssa *s, Instr *v)
{
    return s->cur->instrs.len && s->cur->instrs.items[s->cur->instrs.len - 1] == v;
}

/* Iterators a comprehension cannot take as an argument, so it makes them from the call's
 * arguments itself: zip, enumerate, np.ndenumerate, np.ndindex, np.nditer. */
static bool made_by_call(const char *name)
{
    static const char *const names[] = {"builtins.zip", "builtins.enumerate", "numpy.ndenumerate",
                                        "numpy.ndindex", "numpy.nditer"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

/* The call of a comprehension with the iterator `it` (a GETITER just made, dropped here: the
 * comprehension takes the iterable). Over zip(...) or enumerate(...), it takes that call's
 * arguments instead, and is a comprehension of its own form (pyjit.decorators._comprehension). */
static int call_comprehension(Ssa *s, Instr *callee, Instr *it, Comprehension *comp)
{
    if (it->op == OP_GETITER && is_last_instr(s, it)) {
        s->cur->instrs.len--;
        it = it->args[0];
    }
    if (it->op == OP_CALL && it->imm == 1)   /* its arguments are known only once typed */
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "a list comprehension over a call with *args "
                        "(zip(*x)) is not supported in compiled code: write the loop");
    Instr *over = it->op == OP_CALL && it->nkw == 0 && it->args[0]->op == OP_CONST &&
                  it->args[0]->cst->kind == K_FUNC && it->args[0]->cst->name &&
                  made_by_call(it->args[0]->cst->name) ? it : NULL;
    int nover = over ? over->nargs - 1 : 1;
    if (over) {
        PyObject *mod = PyImport_ImportModule("pyjit.decorators");
        PyObject *disp = mod ? PyObject_CallMethod(mod, "_comprehension", "OOOi", comp->code, s->ctx->func,
                                                   (PyObject *)over->args[0]->cst->handle, nover) : NULL;
        Py_XDECREF(mod);
        if (!disp)
            return fe_error_from_python(s->ctx, "compiling a list comprehension");
        Const *c;
        int rc = fe_const_of(s->ctx, disp, &c);
        Py_DECREF(disp);
        if (rc < 0)
            return -1;
        /* the comprehension makes the zip/enumerate call itself; this one, maybe a variable's
         * value, is left unused (walked again, check_remade refuses it) */
        vec_push(s->fn->arena, &s->remade, over);
        callee = emit_const(s, c);
    }
    Instr *in = emit(s, OP_CALL, 1 + nover + comp->n);
    in->args[0] = callee;
    if (over)
        memcpy(&in->args[1], &over->args[1], sizeof(Instr *) * (size_t)nover);
    else
        in->args[1] = it;
    if (comp->n)
        memcpy(&in->args[1 + nover], comp->values, sizeof(Instr *) * (size_t)comp->n);
    s->sp -= 2;
    return push(s, in);
}

/* Stack before CALL n: [NULL or method, callee or self, arg1 .. argn]. */
/* Whether v is a zip(...) or enumerate(...) call (a value: `pairs = zip(a, b)`). */
static bool is_zip_call(const Instr *v)
{
    return v->op == OP_CALL && v->nkw == 0 && v->imm == 0 && v->args[0]->op == OP_CONST &&
           v->args[0]->cst->kind == K_FUNC && v->args[0]->cst->name &&
           (strcmp(v->args[0]->cst->name, "builtins.zip") == 0 ||
            strcmp(v->args[0]->cst->name, "builtins.enumerate") == 0);
}

/* Whether a call of callee consumes an iterable argument whole, so a zip() or enumerate() given
 * to it may be the list of its items: the builtins that take an iterable, list.extend and
 * dict.update, and compiled functions (which take no iterator). */
static bool consumes_iterables(const Instr *callee)
{
    static const char *const names[] = {
        "builtins.list", "builtins.sorted", "builtins.dict", "builtins.set", "builtins.sum",
        "builtins.min", "builtins.max", "builtins.any", "builtins.all", "builtins.map",
        "builtins.filter", "functools.reduce", "pyjit.typed.List", "heapq.nsmallest",
        "heapq.nlargest"};
    if (callee->op == OP_GETATTR)
        return strcmp(callee->name, "extend") == 0 || strcmp(callee->name, "update") == 0;
    if (callee->op != OP_CONST)
        return false;
    if (callee->cst->kind == K_DISPATCHER)
        return true;
    if (callee->cst->kind != K_FUNC || !callee->cst->name)
        return false;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(callee->cst->name, names[i]) == 0)
            return true;
    return false;
}

/* An iterator made by zip() or enumerate() and passed to a call that consumes it becomes the
 * list of its items, made by a compiled helper from the same arguments
 * (pyjit.lib.iterables._items_of): compiled functions cannot take an iterator, whose state
 * lives in the loop that walks it. Returns the list, or v itself. */
static Instr *iterator_items(Ssa *s, Instr *v)
{
    if (!is_zip_call(v))
        return v;
    vec_push(s->fn->arena, &s->remade, v);
    PyObject *mod = PyImport_ImportModule("pyjit.lib.iterables");
    PyObject *disp = mod ? PyObject_CallMethod(mod, "_items_of", "Oi",
                                               (PyObject *)v->args[0]->cst->handle, v->nargs - 1)
                         : NULL;
    Py_XDECREF(mod);
    if (!disp) {
        fe_error_from_python(s->ctx, "compiling the items of a zip() or enumerate()");
        return NULL;
    }
    Const *c;
    int rc = fe_const_of(s->ctx, disp, &c);
    Py_DECREF(disp);
    if (rc < 0)
        return NULL;
    Instr *callee = emit_const(s, c);
    Instr *in = emit(s, OP_CALL, v->nargs);
    in->args[0] = callee;
    memcpy(&in->args[1], &v->args[1], sizeof(Instr *) * (size_t)(v->nargs - 1));
    return in;
}

/* hasattr(module, "name") and getattr(module, "name"[, default]) of a module known when
 * compiling: folded here, where the module object is at hand, as `module.name` is (the
 * attribute frozen, or the default where the module lacks it). 1 folded (v set), 0 not. */
static int fold_module_attr_call(Ssa *s, Instr *callee, Instr **argv, int n, Instr **v)
{
    if (s->nkw || n < 2 || callee->op != OP_CONST || callee->cst->kind != K_FUNC ||
        !callee->cst->name || argv[0]->op != OP_CONST || argv[0]->cst->kind != K_MODULE ||
        argv[1]->op != OP_CONST || argv[1]->cst->kind != K_STR || !argv[1]->cst->s)
        return 0;
    bool has = strcmp(callee->cst->name, "builtins.hasattr") == 0;
    if (!(has && n == 2) && !(strcmp(callee->cst->name, "builtins.getattr") == 0 && n <= 3))
        return 0;
    const Const *module = argv[0]->cst;
    const char *attr = argv[1]->cst->s;
    int found = module->handle ? PyObject_HasAttrString((PyObject *)module->handle, attr) : 0;
    if (has) {
        Const *c = ir_new_const(s->fn, K_BOOL);
        c->b = found;
        *v = emit_const(s, c);
        return 1;
    }
    if (!found && n == 3) {
        *v = argv[2];
        return 1;
    }
    Const *c;
    if (fe_fold_module_attr(s->ctx, module, attr, &c) < 0)
        return -1;
    *v = emit_frozen(s, c);
    return 1;
}

static int call(Ssa *s, int n)
{
    if (s->sp < n + 2 || s->nkw > n)
        return fe_error(s->ctx, DIAG_INTERNAL, "malformed call");
    Instr **argv = &s->stack[s->sp - n];
    Instr *x = s->stack[s->sp - n - 2], *y = s->stack[s->sp - n - 1];
    bool bound = x != &s->null_mark;
    /* CPython calls a comprehension as [function, iterator] CALL 0 */
    Comprehension *comp = bound && n == 0 && x->op == OP_CONST ? x->aux : NULL;
    if (comp)
        return call_comprehension(s, x, y, comp);
    Instr *folded;
    int rc = bound ? 0 : fold_module_attr_call(s, y, argv, n, &folded);
    if (rc < 0)
        return -1;
    if (rc) {
        s->sp -= n + 2;
        return push(s, folded);
    }
    if (consumes_iterables(bound ? x : y))
        for (int i = 0; i < n - s->nkw; i++)
            if (!(argv[i] = iterator_items(s, argv[i])))
                return -1;
    Instr *in = emit(s, OP_CALL, 1 + n + bound);
    in->args[0] = bound ? x : y;
    if (bound)
        in->args[1] = y;
    memcpy(&in->args[1 + bound], argv, sizeof(Instr *) * (size_t)n);
    in->nkw = s->nkw;
    in->kwnames = s->kwnames;
    s->nkw = 0;
    s->kwnames = NULL;
    s->sp -= n + 2;
    return push(s, in);
}

static void drop_cells_tuple(Ssa *s, Instr *cells);

/* The tuple LIST_TO_TUPLE made of a display's list (aux): a call's arguments when spread at once. */
static const char display_tuple = 0;

/* f(*t): a CALL whose one operand, t, inference spreads into f's arguments (imm = 1); other
 * forms (f(a, *t), **kwargs) are refused. */
static int call_spread(Ssa *s, const BcInstr *at)
{
    if (at->arg & 1 || s->sp < 3 || s->stack[s->sp - 3] != &s->null_mark)
        return unsupported(s, at);
    Instr *args = pop(s), *fn = pop(s);
    pop(s);
    if (args->op == OP_CONST && args->cst->kind == K_TUPLE && !args->cst->fields) {
        /* f(*t) of a constant tuple (a global or closure tuple, of types too: Dict.empty(*kv)):
         * its items as the arguments, each a constant */
        const Const *t = args->cst;
        Instr **items = arena_alloc(s->ctx->arena, sizeof(Instr *) * (size_t)(t->tuple.n + 1));
        for (int i = 0; i < t->tuple.n; i++)
            items[i] = emit_const(s, t->tuple.items[i]);
        Instr *in = emit(s, OP_CALL, 1 + t->tuple.n);
        in->args[0] = fn;
        memcpy(&in->args[1], items, sizeof(Instr *) * (size_t)t->tuple.n);
        drop_cells_tuple(s, args);   /* the tuple itself is read by nothing else */
        return push(s, in);
    }
    if (args->op == OP_BUILD_TUPLE && args->aux == &display_tuple) {
        /* a call of more than 30 arguments (display_append): the tuple's items as the
         * arguments, so each is taken as written (a function, a dispatcher) */
        Instr *in = emit(s, OP_CALL, 1 + args->nargs);
        in->args[0] = fn;
        if (args->nargs)
            memcpy(&in->args[1], args->args, sizeof(Instr *) * (size_t)args->nargs);
        args->nargs = 0;   /* read by nothing else: left empty, inference drops it */
        return push(s, in);
    }
    Instr *in = emit2(s, OP_CALL, 0, fn, args);
    in->imm = 1;
    return push(s, in);
}

/* A constant default value as the Python object it was frozen from (a new reference), or NULL. */
static PyObject *python_of_const(const Const *k)
{
    switch (k->kind) {
    case K_NONE: Py_RETURN_NONE;
    case K_BOOL: return PyBool_FromLong(k->b);
    case K_INT: return PyLong_FromLongLong((long long)k->i);
    case K_FLOAT: return PyFloat_FromDouble(k->f);
    case K_COMPLEX: return PyComplex_FromDoubles(k->c.re, k->c.im);
    case K_STR: return PyUnicode_FromString(k->s);
    case K_TUPLE: {
        if (k->handle)   /* a namedtuple */
            return NULL;
        PyObject *t = PyTuple_New(k->tuple.n);
        for (int i = 0; t && i < k->tuple.n; i++) {
            PyObject *item = python_of_const(k->tuple.items[i]);
            if (!item)
                Py_CLEAR(t);
            else
                PyTuple_SET_ITEM(t, i, item);
        }
        return t;
    }
    default: return NULL;
    }
}

/* The tuple of cells MAKE_FUNCTION takes: its values become the closure's operands, and nothing
 * else reads it (typed, it would be a tuple of values no tuple may hold, such as functions).
 * call_spread drops a constant tuple spread into a call's arguments the same way. */
static void drop_cells_tuple(Ssa *s, Instr *cells)
{
    PtrVec *body = &s->cur->instrs;
    for (int i = body->len - 1; i >= 0; i--)
        if (body->items[i] == cells) {
            memmove(&body->items[i], &body->items[i + 1], sizeof(void *) * (size_t)(body->len - i - 1));
            body->len--;
            return;
        }
}

/* A lambda or inner function: compiled as a function of its own (pyjit.decorators._closure)
 * whose first parameters are the variables it reads from this one. It is the dispatcher constant
 * when it reads none; otherwise CALL imm=2 of it with their values, which inference makes the
 * closure value (infer_closure.c): captured by value here, where it is made, as Numba does. */
static int make_closure(Ssa *s, PyObject *co, Instr *closure, Instr *defaults, Instr *kwdefaults)
{
    if (kwdefaults)
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "keyword-only parameters with defaults in a "
                        "nested function are not supported in compiled code");
    if (closure && closure->op != OP_BUILD_TUPLE)
        return fe_error(s->ctx, DIAG_INTERNAL, "MAKE_FUNCTION without a tuple of cells");
    if (((PyCodeObject *)co)->co_flags & (CO_VARARGS | CO_VARKEYWORDS))
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "a nested function or lambda with *args or "
                        "**kwargs is not supported in compiled code");
    PyObject *dflt = defaults && defaults->op == OP_CONST ? python_of_const(defaults->cst) : NULL;
    PyErr_Clear();
    if (defaults && !dflt)
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "the default values of a nested function or "
                        "lambda must be constants in compiled code");
    PyObject *mod = PyImport_ImportModule("pyjit.decorators");
    PyObject *disp = mod ? PyObject_CallMethod(mod, "_closure", "OOO", co, s->ctx->func,
                                               dflt ? dflt : Py_None) : NULL;
    Py_XDECREF(mod);
    Py_XDECREF(dflt);
    if (!disp)
        return fe_error_from_python(s->ctx, "compiling a nested function");
    Const *c;
    int rc = fe_const_of(s->ctx, disp, &c);   /* pyjit.decorators keeps disp alive */
    Py_DECREF(disp);
    if (rc < 0)
        return -1;
    Instr *fn = emit_const(s, c);
    if (!closure || closure->nargs == 0)
        return push(s, fn);
    drop_cells_tuple(s, closure);
    Instr *mk = emit(s, OP_CALL, 1 + closure->nargs);
    mk->args[0] = fn;
    memcpy(&mk->args[1], closure->args, sizeof(Instr *) * (size_t)closure->nargs);
    mk->imm = 2;
    return push(s, mk);
}

static int make_function(Ssa *s, const BcInstr *in)
{
    Instr *code = pop(s);
    Instr *closure = (in->arg & 8) ? pop(s) : NULL;
    if (in->arg & 4)
        pop(s);   /* annotations: not used */
    Instr *kwdefaults = (in->arg & 2) ? pop(s) : NULL;
    Instr *defaults = (in->arg & 1) ? pop(s) : NULL;
    if (code->op == OP_CONST && code->cst->kind == K_OPAQUE && code->cst->name == FE_CODE_CONST)
        return make_closure(s, code->cst->handle, closure, defaults, kwdefaults);
    /* fe_load_const lets only code objects through, as these constants */
    bool listcomp = code->op == OP_CONST && code->cst->kind == K_OPAQUE && code->cst->name &&
                    fe_comprehension_name(code->cst->name) && (in->arg & ~8) == 0;
    PyObject *co = listcomp ? code->cst->handle : NULL;
    if (!listcomp || (closure && closure->op != OP_BUILD_TUPLE))
        return unsupported(s, in);
    PyObject *mod = PyImport_ImportModule("pyjit.decorators");
    PyObject *disp = mod ? PyObject_CallMethod(mod, "_comprehension", "OO", co, s->ctx->func) : NULL;
    Py_XDECREF(mod);
    if (!disp)
        return fe_error_from_python(s->ctx, "compiling a list comprehension");
    Const *c;
    int rc = fe_const_of(s->ctx, disp, &c);   /* pyjit.decorators keeps disp alive */
    Py_DECREF(disp);
    if (rc < 0)
        return -1;
    if (closure)
        drop_cells_tuple(s, closure);   /* its values are passed to the call instead */
    Instr *callee = emit_const(s, c);
    Comprehension *comp = arena_alloc(s->fn->arena, sizeof *comp);
    comp->code = co;
    comp->n = closure ? closure->nargs : 0;
    comp->values = closure ? closure->args : NULL;
    callee->aux = comp;
    return push(s, callee);
}

/* `.0` in a comprehension: an iterator of its iterable, or of zip/enumerate of its arguments. */
static int comprehension_iter(Ssa *s)
{
    FeCtx *ctx = s->ctx;
    Instr *iterable;
    if (ctx->over) {
        Const *c;
        if (fe_const_of(ctx, ctx->over, &c) < 0)
            return -1;
        Instr *callee = emit_const(s, c);
        iterable = emit(s, OP_CALL, 1 + ctx->nover);
        iterable->args[0] = callee;
        memcpy(&iterable->args[1], ctx->over_args, sizeof(Instr *) * (size_t)ctx->nover);
    } else {
        iterable = read_var(s, 0, s->row);
    }
    return push(s, emit1(s, OP_GETITER, 0, iterable));
}

/* obj.name(a[, b]): a method call with no result on the stack. */
static void call_method(Ssa *s, Instr *obj, const char *name, Instr *a, Instr *b)
{
    Instr *method = emit1(s, OP_GETATTR, 0, obj);
    method->name = name;
    Instr *in = emit(s, OP_CALL, b ? 3 : 2);
    in->args[0] = method;
    in->args[1] = a;
    if (b)
        in->args[2] = b;
}

/* obj.name = value: obj.__setattr__("name", value), which jitclass instances have (inference
 * refuses it on any other receiver). */
static int store_attr(Ssa *s, const char *name)
{
    Instr *obj = pop(s), *v = pop(s);
    Const *k = ir_new_const(s->fn, K_STR);
    k->s = name;
    call_method(s, obj, "__setattr__", emit_const(s, k), v);
    return 0;
}

/* A tuple display with starred parts, (*shape, 2): CPython builds a list, extends it by each
 * starred part, appends the others, and makes it a tuple (LIST_TO_TUPLE). Here the parts are
 * tuples concatenated as they come, the value marked (aux = &star_display) until the display
 * ends; a list display with starred parts ([*a, b]) is refused. */
static const char star_display = 0;

/* Whether the display whose list sits at stack index slot ends as a tuple: 1 yes, 0 no (a list
 * display, or the list used otherwise), -1 unknown (a jump first). */
static int display_is_tuple(Ssa *s, const BcInstr *at, int slot)
{
    int depth = s->sp;
    for (const BcInstr *in = at + 1; in < s->ctx->instrs + s->ctx->ninstrs; in++) {
        if (in->op == BC_LIST_TO_TUPLE || (in->op == BC_CALL_INTRINSIC_1 && in->arg == 6))
            return depth - 1 == slot;
        if (in->target >= 0)
            return -1;
        int e = PyCompile_OpcodeStackEffectWithJump(in->opcode, in->arg, 0);
        if (e == PY_INVALID_STACK_EFFECT) {
            PyErr_Clear();
            return -1;
        }
        depth += e;
        if (depth <= slot)
            return 0;
    }
    return -1;
}

/* Appends the tuple `part` to the starred display at stack depth i (the first time, its list
 * of the items before the first star becomes a tuple). */
static int star_concat(Ssa *s, int i, Instr *part)
{
    Instr *acc = s->stack[s->sp - i];
    if (acc->aux != &star_display && acc->op == OP_BUILD_LIST) {
        /* the list was only ever this display's: it becomes the tuple in place, so a list of
         * mixed items (f(t, y, *args)) is never typed as one */
        acc->op = OP_BUILD_TUPLE;
        acc->imm = 0;
    } else if (acc->aux != &star_display) {
        Instr *t = emit(s, OP_BUILD_TUPLE, acc->nargs);
        if (acc->nargs)
            memcpy(t->args, acc->args, sizeof(Instr *) * (size_t)acc->nargs);
        acc = t;
    }
    Instr *sum = emit2(s, OP_BINOP, BIN_ADD, acc, part);
    sum->aux = (void *)&star_display;
    s->stack[s->sp - i] = sum;
    return 0;
}

static int star_extend(Ssa *s, const BcInstr *at, int i, Instr *list, Instr *seq)
{
    if (list->aux != &star_display && display_is_tuple(s, at, s->sp - i) != 1)
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "a list display with starred parts ([*a, b]) is "
                        "not supported in compiled code; tuple displays of tuples ((*a, b)) are");
    return star_concat(s, i, seq);
}

/* A display of more than 30 items, or a call of more than 30 positional arguments (f(a0, ...,
 * a30)): CPython makes an empty list and appends each item (LIST_APPEND 1: a comprehension's
 * list sits below its iterator, at 2), then, for a tuple or a call, makes it a tuple
 * (LIST_TO_TUPLE) and spreads it (CALL_FUNCTION_EX). The list, read by nothing else, is made
 * again with the item after its own: a list display is typed as written out, and a tuple's items
 * keep their own types. */
static int display_append(Ssa *s, Instr *list, Instr *v)
{
    Instr *in = emit(s, OP_BUILD_LIST, list->nargs + 1);
    if (list->nargs)
        memcpy(in->args, list->args, sizeof(Instr *) * (size_t)list->nargs);
    in->args[list->nargs] = v;
    list->nargs = 0;   /* read by nothing else now: left empty, inference drops it */
    s->stack[s->sp - 1] = in;
    return 0;
}

/* LIST_APPEND i, SET_ADD i, MAP_ADD i (a comprehension's body): list.append(value),
 * set.add(value), dict[key] = value, the container i deep in the stack once they are popped. */
static int comprehension_add(Ssa *s, const BcInstr *at, int i)
{
    Instr *v = pop(s), *k = at->op == BC_MAP_ADD ? pop(s) : NULL;
    if (i < 1 || s->sp < i)
        return fe_error(s->ctx, DIAG_INTERNAL, "%s below the stack", at->opname);
    Instr *obj = s->stack[s->sp - i];
    if (obj->aux == &star_display)   /* an item after a starred part: (*shape, 2) */
        return star_concat(s, i, emit1(s, OP_BUILD_TUPLE, 0, v));
    if (at->op == BC_LIST_APPEND && i == 1 && obj->op == OP_BUILD_LIST && !obj->imm)
        return display_append(s, obj, v);
    if (k)
        call_method(s, obj, "__setitem__", k, v);
    else
        call_method(s, obj, at->op == BC_SET_ADD ? "add" : "append", v, NULL);
    return 0;
}

/* A generator (function or expression) runs to its end, appending what it yields to a list made
 * at RETURN_GENERATOR, and returns the list: its caller iterates over that, and a call from Python
 * gets an iterator of it (runtime/dispatch.c). The value of a yield expression is None (nothing is
 * sent), and a return gives the list whatever it names. */
static int generator_op(Ssa *s, const BcInstr *in)
{
    switch (in->op) {
    case BC_RETURN_GENERATOR:
        s->yielded = emit(s, OP_BUILD_LIST, 0);
        return push(s, emit_none(s));
    case BC_YIELD_VALUE: {
        /* the value of `yield x` is what send() passes: only a yield statement compiles (after
         * it, RESUME and the POP_TOP of its value) */
        const BcInstr *end = s->ctx->instrs + s->ctx->ninstrs, *after = in + 1;
        while (after < end && after->op == BC_RESUME)
            after++;
        if (after < end && after->op != BC_POP_TOP)
            return fe_error(s->ctx, DIAG_UNSUPPORTED, "the value of a yield expression (what "
                            "generator.send() passes) is not supported in compiled code: "
                            "generators are iterated, and yield is a statement");
        call_method(s, s->yielded, "append", pop(s), NULL);
        return push(s, emit_none(s));
    }
    case BC_RETURN_VALUE:
        pop(s);
        /* fall through */
    default:   /* RETURN_CONST */
        emit1(s, OP_RET, 0, s->yielded);
        return 0;
    }
}

/* BUILD_MAP n (keys and values alternate on the stack), BUILD_CONST_KEY_MAP n (the keys a
 * constant tuple on top of the n values), BUILD_SET n. */
static int build_table(Ssa *s, const BcInstr *at, int n)
{
    Instr *keys = at->op == BC_BUILD_CONST_KEY_MAP ? pop(s) : NULL;
    int per = at->op == BC_BUILD_MAP ? 2 : 1, nargs = at->op == BC_BUILD_SET ? n : 2 * n;
    if (s->sp < per * n || (keys && (keys->op != OP_CONST || keys->cst->kind != K_TUPLE ||
                                     keys->cst->tuple.n != n)))
        return fe_error(s->ctx, DIAG_INTERNAL, "malformed %s", at->opname);
    Instr **items = arena_alloc(s->fn->arena, sizeof(Instr *) * (size_t)(nargs + 1));
    Instr **from = &s->stack[s->sp - per * n];
    for (int k = 0; k < n; k++) {
        if (keys) {
            items[2 * k] = emit_const(s, keys->cst->tuple.items[k]);
            items[2 * k + 1] = from[k];
        } else {
            memcpy(&items[per * k], &from[per * k], sizeof(Instr *) * (size_t)per);
        }
    }
    s->sp -= per * n;
    Instr *in = emit(s, at->op == BC_BUILD_SET ? OP_BUILD_SET : OP_BUILD_DICT, nargs);
    if (nargs)
        memcpy(in->args, items, sizeof(Instr *) * (size_t)nargs);
    return push(s, in);
}

/* SET_UPDATE of a set display of constants: CPython builds {1, 2, 3} as an empty set updated by
 * a frozenset constant (a tuple here), made again with the items after its own, as list_extend. */
static int set_update(Ssa *s, const BcInstr *at, int i)
{
    Instr *seq = pop(s);
    Instr *set = s->sp >= i && i > 0 ? s->stack[s->sp - i] : NULL;
    if (!set || set->op != OP_BUILD_SET || seq->op != OP_CONST || seq->cst->kind != K_TUPLE)
        return unsupported(s, at);
    int n0 = set->nargs, n = seq->cst->tuple.n;
    Instr **items = arena_alloc(s->fn->arena, sizeof(Instr *) * (size_t)(n0 + n + 1));
    if (n0)
        memcpy(items, set->args, sizeof(Instr *) * (size_t)n0);
    for (int k = 0; k < n; k++)
        items[n0 + k] = emit_const(s, seq->cst->tuple.items[k]);
    Instr *in = emit(s, OP_BUILD_SET, n0 + n);
    if (n0 + n)
        memcpy(in->args, items, sizeof(Instr *) * (size_t)(n0 + n));
    s->stack[s->sp - i] = in;
    return 0;
}

static int build_slice(Ssa *s, int n)
{
    Instr *step = n == 3 ? pop(s) : NULL;
    Instr *stop = pop(s), *start = pop(s);
    if (!step)
        step = emit_none(s);
    Instr *in = emit(s, OP_BUILD_SLICE, 3);
    in->args[0] = start;
    in->args[1] = stop;
    in->args[2] = step;
    return push(s, in);
}

static int build_tuple(Ssa *s, int n)
{
    if (s->sp < n)
        return fe_error(s->ctx, DIAG_INTERNAL, "value stack underflow");
    Instr *in = emit(s, OP_BUILD_TUPLE, n);
    if (n)
        memcpy(in->args, &s->stack[s->sp - n], sizeof(Instr *) * (size_t)n);
    s->sp -= n;
    return push(s, in);
}

/* f"{x}": a field with no format spec is str(x), or repr(x) with !r; a format spec
 * (f"{x:.2f}") and !a are refused. */
static int format_value(Ssa *s, int flags)
{
    if ((flags & 0x04) || (flags & 0x03) == 3)
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "an f-string field with a format spec or a !a "
                        "conversion is not supported in compiled code (plain {x}, {x!s} and {x!r} "
                        "fields are)");
    Instr *v = pop(s);
    Const *str = ir_new_const(s->fn, K_FUNC);
    str->name = (flags & 0x03) == 2 ? "builtins.repr" : "builtins.str";
    Instr *in = emit(s, OP_CALL, 2);
    in->args[0] = emit_const(s, str);
    in->args[1] = v;
    return push(s, in);
}

/* The pieces of an f-string joined: a chain of +. */
static int build_string(Ssa *s, int n)
{
    if (s->sp < n)
        return fe_error(s->ctx, DIAG_INTERNAL, "value stack underflow");
    s->sp -= n;
    Instr **pieces = &s->stack[s->sp];
    Instr *acc = NULL;
    if (n == 0) {
        Const *empty = ir_new_const(s->fn, K_STR);
        empty->s = "";
        acc = emit_const(s, empty);
    }
    for (int i = 0; i < n; i++)
        acc = acc ? emit2(s, OP_BINOP, BIN_ADD, acc, pieces[i]) : pieces[i];
    return push(s, acc);
}

static int build_list(Ssa *s, int n)
{
    if (s->sp < n)
        return fe_error(s->ctx, DIAG_INTERNAL, "value stack underflow");
    Instr *in = emit(s, OP_BUILD_LIST, n);
    if (n)   /* [] has no args array */
        memcpy(in->args, &s->stack[s->sp - n], sizeof(Instr *) * (size_t)n);
    s->sp -= n;
    return push(s, in);
}

/* list.extend(seq) of a list display: CPython builds [1.0, 2.0, 3.0] as an empty list extended by
 * the constant tuple. The list is made again with the tuple's items as constants after its own
 * (the first one, now unused, is dropped by inference); any other LIST_EXTEND is refused. A
 * display that ends as a tuple is a starred one, even when its starred part is a constant
 * (f(x, n, *args) with args a global or closure tuple): star_extend. */
static int list_extend(Ssa *s, const BcInstr *at, int i)
{
    Instr *seq = pop(s);
    Instr *list = s->sp >= i && i > 0 ? s->stack[s->sp - i] : NULL;
    bool const_seq = seq->op == OP_CONST && seq->cst->kind == K_TUPLE;
    if (list && (list->aux == &star_display ||
                 (list->op == OP_BUILD_LIST &&
                  (!const_seq || display_is_tuple(s, at, s->sp - i) == 1))))
        return star_extend(s, at, i, list, seq);
    if (!list || list->op != OP_BUILD_LIST || seq->op != OP_CONST || seq->cst->kind != K_TUPLE)
        return unsupported(s, at);
    int n0 = list->nargs, n = seq->cst->tuple.n;
    Instr **items = arena_alloc(s->fn->arena, sizeof(Instr *) * (size_t)(n0 + n + 1));
    if (n0)
        memcpy(items, list->args, sizeof(Instr *) * (size_t)n0);
    for (int k = 0; k < n; k++)
        items[n0 + k] = emit_const(s, seq->cst->tuple.items[k]);
    Instr *in = emit(s, OP_BUILD_LIST, n0 + n);
    if (n0 + n)
        memcpy(in->args, items, sizeof(Instr *) * (size_t)(n0 + n));
    s->stack[s->sp - i] = in;
    return 0;
}

static int unpack(Ssa *s, int n)
{
    Instr *seq = pop(s);
    for (int i = n - 1; i >= 0; i--) {
        Instr *in = emit1(s, OP_STATIC_GETITEM, 0, seq);
        in->imm = i;
        in->imm2 = n;
        if (push(s, in) < 0)
            return -1;
    }
    return 0;
}

static Instr *emit_int(Ssa *s, int64_t v)
{
    Const *c = ir_new_const(s->fn, K_INT);
    c->i = v;
    return emit_const(s, c);
}

/* a, *rest, z = seq (arg: `before` items in its low byte, `after` in the next): the items as
 * unpack() gives them (STATIC_GETITEM, those after the star by negative index, all checking a
 * length of at least before + after: imm2 = -2 - that), and rest as list(seq[before:-after]),
 * a list as in CPython. */
static int unpack_ex(Ssa *s, int arg)
{
    int before = arg & 0xff, after = arg >> 8;
    Instr *seq = pop(s), *list_fn = NULL;
    PyObject *builtins = PyEval_GetBuiltins();   /* borrowed */
    PyObject *list_type = builtins ? PyDict_GetItemString(builtins, "list") : NULL;
    Const *c;
    if (!list_type || fe_const_of(s->ctx, list_type, &c) < 0)
        return fe_error(s->ctx, DIAG_INTERNAL, "builtins.list not found");
    for (int i = after - 1; i >= 0; i--) {
        Instr *in = emit1(s, OP_STATIC_GETITEM, 0, seq);
        in->imm = i - after;
        in->imm2 = -2 - (before + after);
        if (push(s, in) < 0)
            return -1;
    }
    Instr *lo = emit_int(s, before), *hi = after ? emit_int(s, -after) : emit_none(s);
    Instr *step = emit_none(s);
    Instr *sl = emit(s, OP_BUILD_SLICE, 3);
    sl->args[0] = lo;
    sl->args[1] = hi;
    sl->args[2] = step;
    list_fn = emit_const(s, c);
    Instr *rest = emit2(s, OP_GETITEM, 0, seq, sl);
    Instr *call = emit(s, OP_CALL, 2);
    call->args[0] = list_fn;
    call->args[1] = rest;
    if (push(s, call) < 0)
        return -1;
    for (int i = before - 1; i >= 0; i--) {
        Instr *in = emit1(s, OP_STATIC_GETITEM, 0, seq);
        in->imm = i;
        in->imm2 = -2 - (before + after);
        if (push(s, in) < 0)
            return -1;
    }
    return 0;
}

static int store_fast(Ssa *s, int index)
{
    Instr *v = pop(s);
    if (index < 0 || index >= s->ctx->nlocalsplus)
        return fe_error(s->ctx, DIAG_INTERNAL, "local index %d out of range", index);
    if (s->ctx->declared && s->ctx->declared[index] && v && v != &s->null_mark) {
        Instr *cast = emit(s, OP_CALL, 2);   /* locals={'x': float32}: x = float32(value) */
        cast->args[0] = emit_const(s, s->ctx->declared[index]);
        cast->args[1] = v;
        v = cast;
    }
    if (v && v != &s->null_mark && !v->var && v->op != OP_PHI)
        v->var = var_name(s, index);
    write_var(s, index, s->row, v);
    return 0;
}

static int load_fast(Ssa *s, int index, bool clear)
{
    if (index < 0 || index >= s->ctx->nlocalsplus)
        return fe_error(s->ctx, DIAG_INTERNAL, "local index %d out of range", index);
    Instr *v = read_var(s, index, s->row);
    if (clear)
        write_var(s, index, s->row, undefined(s, index));
    return push(s, v);
}

/* Pops/peeks a condition and ends the block in a CBR; jump_if_true: the target is taken on true. */
static int cond_jump(Ssa *s, const BcInstr *in, bool jump_if_true, bool keep, int none_test)
{
    Instr *v = keep ? s->stack[s->sp - 1] : pop(s);
    if (none_test)
        v = emit2(s, OP_COMPARE, none_test > 0 ? CMP_IS : CMP_ISNOT, v, emit_none(s));
    Instr *br = emit1(s, OP_CBR, 0, v);
    const CfgBlock *cb = &s->ctx->blocks[s->row];
    int fall = cb->succ[0], target = cb->nsucc > 1 ? cb->succ[1] : cb->succ[0];
    link_succ(s, br, 0, jump_if_true ? target : fall);
    link_succ(s, br, 1, jump_if_true ? fall : target);
    return 0;   /* a kept value stays on the stack: the target reads it, the fall-through does not */
}

static int for_iter(Ssa *s)
{
    const CfgBlock *cb = &s->ctx->blocks[s->row];
    Instr *it = emit1(s, OP_FOR_ITER, 0, s->stack[s->sp - 1]);
    link_succ(s, it, 0, cb->succ[0]);
    link_succ(s, it, 1, cb->nsucc > 1 ? cb->succ[1] : cb->succ[0]);
    return push(s, it);   /* the item: slot depth+1 is read only by the loop body */
}

static int jump(Ssa *s)
{
    Instr *br = emit(s, OP_BR, 0);
    link_succ(s, br, 0, s->ctx->blocks[s->row].succ[0]);
    return 0;
}

static bool is_undefined(const Instr *v)
{
    return v->op == OP_CONST && v->cst->kind == K_UNDEFINED;
}

/* ---- try/except ------------------------------------------------------------------------------
 * The exception being handled is a variable of its own (curexc): PUSH_EXC_INFO, which starts an
 * except clause, sets it to the caught exception and pushes the one it held; POP_EXCEPT, which
 * ends the clause, finishes the caught one (EXC_DONE) and restores the one popped. A bare
 * `raise` re-raises curexc. The handler block itself starts with CATCH (fill_block). */

static int push_exc_info(Ssa *s)
{
    Instr *exc = pop(s);
    if (push(s, read_var(s, s->curexc, s->row)) < 0 || push(s, exc) < 0)
        return -1;
    write_var(s, s->curexc, s->row, exc);
    return 0;
}

static int pop_except(Ssa *s)
{
    Instr *prev = pop(s), *cur = read_var(s, s->curexc, s->row);
    if (!is_undefined(cur))
        emit1(s, OP_EXC_DONE, 0, cur);
    write_var(s, s->curexc, s->row, prev);
    return 0;
}

/* CHECK_EXC_MATCH: [exc, cls] -> [exc, isinstance(exc, cls)]. A tuple of classes, built just
 * before or a constant, becomes one operand per class. */
static int check_exc_match(Ssa *s)
{
    Instr *cls = pop(s), *exc = pop(s), *m;
    if (push(s, exc) < 0)
        return -1;
    if (cls->op == OP_BUILD_TUPLE && s->cur->instrs.len > 0 &&
        s->cur->instrs.items[s->cur->instrs.len - 1] == cls) {
        s->cur->instrs.len--;
        m = emit(s, OP_EXC_MATCH, cls->nargs + 1);
        for (int i = 0; i < cls->nargs; i++)
            m->args[i + 1] = cls->args[i];
    } else if (cls->op == OP_CONST && cls->cst->kind == K_TUPLE) {
        int n = cls->cst->tuple.n;
        drop_if_dead(s, cls);
        Instr *items[n + 1];
        for (int i = 0; i < n; i++)
            items[i] = emit_const(s, cls->cst->tuple.items[i]);
        m = emit(s, OP_EXC_MATCH, n + 1);
        for (int i = 0; i < n; i++)
            m->args[i + 1] = items[i];
    } else {
        m = emit(s, OP_EXC_MATCH, 2);
        m->args[1] = cls;
    }
    m->args[0] = exc;
    return push(s, m);
}

static int reraise(Ssa *s)
{
    emit1(s, OP_RAISE, 0, pop(s));
    return 0;
}

/* `del x`, and the end of `except E as x:`, which deletes x: x is unset from here on. */
static int delete_fast(Ssa *s, int index)
{
    if (index < 0 || index >= s->ctx->nlocalsplus)
        return fe_error(s->ctx, DIAG_INTERNAL, "local index %d out of range", index);
    write_var(s, index, s->row, undefined(s, index));
    return 0;
}

static int emit_raise(Ssa *s, const BcInstr *in)
{
    if (in->arg == 0) {
        Instr *cur = read_var(s, s->curexc, s->row);
        if (is_undefined(cur))
            return fe_error(s->ctx, DIAG_UNSUPPORTED, "a bare raise outside an except clause has "
                            "no exception to re-raise");
        emit1(s, OP_RAISE, 0, cur);
        return 0;
    }
    if (in->arg == 2) {
        /* `from None` only hides the context, which an exception from compiled code never has;
         * a cause would be lost */
        Instr *cause = pop(s);
        if (!(cause->op == OP_CONST && cause->cst->kind == K_NONE))
            return fe_error(s->ctx, DIAG_UNSUPPORTED, "raise ... from an exception is not "
                            "supported in compiled code (raise ... from None is)");
        drop_if_dead(s, cause);
    }
    emit1(s, OP_RAISE, 0, pop(s));
    return 0;
}

static int load_const(Ssa *s, int index)
{
    Const *c;
    if (fe_load_const(s->ctx, index, &c) < 0)
        return -1;
    return push(s, emit_const(s, c));
}

static int load_deref(Ssa *s, int index)
{
    Const *c;
    if (fe_load_deref(s->ctx, index, &c) < 0)
        return -1;
    return push(s, emit_frozen(s, c));
}

/* The end of a tuple display with starred parts (star_display); a display with none, or one
 * extended by constants only, is its list's items as a tuple. */
static int list_to_tuple(Ssa *s)
{
    Instr *v = pop(s);
    if (v->aux == &star_display)
        return push(s, v);
    if (v->op != OP_BUILD_LIST)
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "starred expressions (*x) are supported in "
                        "tuple displays of tuples in compiled code");
    Instr *t = emit(s, OP_BUILD_TUPLE, v->nargs);
    if (v->nargs)
        memcpy(t->args, v->args, sizeof(Instr *) * (size_t)v->nargs);
    v->nargs = 0;   /* the display's list, read by nothing else: left empty, inference drops it */
    t->aux = (void *)&display_tuple;
    return push(s, t);
}

static int intrinsic_1(Ssa *s, const BcInstr *in)
{
    switch (in->arg) {
    case 5:   /* INTRINSIC_UNARY_POSITIVE */
        return push(s, emit1(s, OP_UNARY, UN_POS, pop(s)));
    case 3:   /* INTRINSIC_STOPITERATION_ERROR */
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "generators (yield) are not supported in compiled code");
    case 6:   /* INTRINSIC_LIST_TO_TUPLE */
        return list_to_tuple(s);
    default:
        return fe_error(s->ctx, DIAG_UNSUPPORTED, "opcode CALL_INTRINSIC_1 %d at line %d is not supported",
                        in->arg, in->line);
    }
}

static int translate_stack_op(Ssa *s, const BcInstr *in)
{
    Instr *a, *b;
    switch (in->op) {
    case BC_POP_TOP: pop(s); return 0;
    case BC_END_FOR: pop(s); pop(s); return 0;
    case BC_PUSH_NULL: return push(s, &s->null_mark);
    case BC_COPY: return push(s, s->stack[s->sp - in->arg]);
    case BC_SWAP:
        a = s->stack[s->sp - 1];
        s->stack[s->sp - 1] = s->stack[s->sp - in->arg];
        s->stack[s->sp - in->arg] = a;
        return 0;
    case BC_BINARY_OP:
        if (in->arg < 0 || in->arg >= 26)
            return unsupported(s, in);
        b = pop(s), a = pop(s);
        if (a->op == OP_CONST && b->op == OP_CONST && literal_operands(s)
            && fe_check_int_binop(s->ctx, binop_of_nb[in->arg % 13], a->cst, b->cst) < 0)
            return -1;
        a = emit2(s, OP_BINOP, binop_of_nb[in->arg % 13], a, b);
        a->imm = in->arg >= 13;
        return push(s, a);
    case BC_COMPARE_OP: {
        int cmp = s->ctx->minor >= 12 ? in->arg >> 4 : in->arg;   /* 3.12 keeps flags below */
        if (cmp < CMP_LT || cmp > CMP_GE)
            return unsupported(s, in);
        b = pop(s), a = pop(s);
        return push(s, emit2(s, OP_COMPARE, cmp, a, b));
    }
    case BC_IS_OP:
        b = pop(s), a = pop(s);
        return push(s, emit2(s, OP_COMPARE, in->arg ? CMP_ISNOT : CMP_IS, a, b));
    case BC_CONTAINS_OP:
        b = pop(s), a = pop(s);
        return push(s, emit2(s, OP_COMPARE, in->arg ? CMP_NOTIN : CMP_IN, a, b));
    case BC_UNARY_NEGATIVE: return push(s, emit1(s, OP_UNARY, UN_NEG, pop(s)));
    case BC_UNARY_POSITIVE: return push(s, emit1(s, OP_UNARY, UN_POS, pop(s)));
    case BC_UNARY_NOT: return push(s, emit1(s, OP_UNARY, UN_NOT, pop(s)));
    case BC_UNARY_INVERT: return push(s, emit1(s, OP_UNARY, UN_INVERT, pop(s)));
    case BC_GET_ITER: return push(s, emit1(s, OP_GETITER, 0, pop(s)));
    default: return 1;
    }
}

static int translate_subscript(Ssa *s, const BcInstr *in)
{
    Instr *obj, *idx, *v, *slice;
    switch (in->op) {
    case BC_BINARY_SUBSCR:
        idx = pop(s), obj = pop(s);
        return push(s, emit2(s, OP_GETITEM, 0, obj, idx));
    case BC_STORE_SUBSCR:
        idx = pop(s), obj = pop(s), v = pop(s);
        break;
    case BC_DELETE_SUBSCR:   /* del d[k]: d.__delitem__(k), which dicts and lists have */
        idx = pop(s), obj = pop(s);
        call_method(s, obj, "__delitem__", idx, NULL);
        return 0;
    case BC_BINARY_SLICE:
    case BC_STORE_SLICE:
        if (build_slice(s, 2) < 0)
            return -1;
        slice = pop(s);
        obj = pop(s);
        if (in->op == BC_BINARY_SLICE)
            return push(s, emit2(s, OP_GETITEM, 0, obj, slice));
        idx = slice, v = pop(s);
        break;
    default:
        return 1;
    }
    Instr *set = emit(s, OP_SETITEM, 3);
    set->args[0] = obj;
    set->args[1] = idx;
    set->args[2] = v;
    return 0;
}

static int translate(Ssa *s, const BcInstr *in)
{
    int rc = translate_stack_op(s, in);
    if (rc <= 0)
        return rc;
    rc = translate_subscript(s, in);
    if (rc <= 0)
        return rc;
    switch (in->op) {
    case BC_NOP: case BC_RESUME: case BC_PRECALL: case BC_COPY_FREE_VARS: case BC_MAKE_CELL:
    case BC_CACHE: case BC_EXTENDED_ARG:
        return 0;
    case BC_RETURN_GENERATOR: case BC_YIELD_VALUE:
        return s->ctx->generator ? generator_op(s, in) : unsupported(s, in);
    case BC_LOAD_FAST: case BC_LOAD_FAST_CHECK:
        if (s->ctx->comprehension && in->arg == 0)   /* .0: the loop's iterator, of the iterable */
            return comprehension_iter(s);
        return load_fast(s, in->arg, false);
    case BC_LOAD_FAST_AND_CLEAR:   /* 3.12's inlined comprehension saves its variable */
        return load_fast(s, in->arg, true);
    case BC_STORE_FAST: return store_fast(s, in->arg);
    case BC_LOAD_CONST: return load_const(s, in->arg);
    case BC_LOAD_GLOBAL: return load_global(s, in->arg);
    case BC_LOAD_DEREF:
        if (deref_is_local(s->ctx, in->arg))
            return load_fast(s, in->arg, false);
        return load_deref(s, in->arg);
    case BC_LOAD_CLOSURE:   /* a value a nested function captures */
        if (!deref_is_local(s->ctx, in->arg))
            return load_deref(s, in->arg);   /* a free variable of this one: frozen */
        return load_fast(s, in->arg, false);
    case BC_STORE_DEREF:
        if (in->arg >= s->ctx->nlocalsplus - s->ctx->nfree)
            return unsupported(s, in);   /* nonlocal */
        return store_fast(s, in->arg);
    case BC_MAKE_FUNCTION: return make_function(s, in);
    case BC_LIST_APPEND: case BC_SET_ADD: case BC_MAP_ADD: return comprehension_add(s, in, in->arg);
    case BC_BUILD_MAP: case BC_BUILD_CONST_KEY_MAP: case BC_BUILD_SET: return build_table(s, in, in->arg);
    case BC_SET_UPDATE: return set_update(s, in, in->arg);
    case BC_LOAD_ATTR:
        if (s->ctx->minor >= 12)
            return load_attr(s, name_at(s, in->arg >> 1), in->arg & 1);
        return load_attr(s, name_at(s, in->arg), false);
    case BC_LOAD_METHOD: return load_attr(s, name_at(s, in->arg), true);
    case BC_STORE_ATTR: return store_attr(s, name_at(s, in->arg));
    case BC_KW_NAMES: return kw_names(s, in->arg);
    case BC_CALL: return call(s, in->arg);
    case BC_BUILD_SLICE: return build_slice(s, in->arg);
    case BC_BUILD_TUPLE: return build_tuple(s, in->arg);
    case BC_BUILD_LIST: return build_list(s, in->arg);
    case BC_FORMAT_VALUE: return format_value(s, in->arg);
    case BC_BUILD_STRING: return build_string(s, in->arg);
    case BC_LIST_EXTEND: return list_extend(s, in, in->arg);
    case BC_LIST_TO_TUPLE: return list_to_tuple(s);
    case BC_UNPACK_SEQUENCE: return unpack(s, in->arg);
    case BC_UNPACK_EX: return unpack_ex(s, in->arg);
    case BC_CALL_FUNCTION_EX: return call_spread(s, in);
    case BC_CALL_INTRINSIC_1: return intrinsic_1(s, in);
    case BC_LOAD_ASSERTION_ERROR: {
        Const *c;
        if (fe_const_of(s->ctx, PyExc_AssertionError, &c) < 0)
            return -1;
        return push(s, emit_const(s, c));
    }
    case BC_RETURN_VALUE:
        if (s->yielded)
            return generator_op(s, in);
        emit1(s, OP_RET, 0, pop(s));
        return 0;
    case BC_RETURN_CONST:
        if (s->yielded)
            return generator_op(s, in);
        if (load_const(s, in->arg) < 0)
            return -1;
        emit1(s, OP_RET, 0, pop(s));
        return 0;
    case BC_RAISE_VARARGS: return emit_raise(s, in);
    case BC_PUSH_EXC_INFO: return push_exc_info(s);
    case BC_POP_EXCEPT: return pop_except(s);
    case BC_CHECK_EXC_MATCH: return check_exc_match(s);
    case BC_RERAISE: return reraise(s);
    case BC_DELETE_FAST: return delete_fast(s, in->arg);
    case BC_FOR_ITER: return for_iter(s);
    case BC_JUMP_FORWARD: case BC_JUMP_BACKWARD: case BC_JUMP_BACKWARD_NO_INTERRUPT: return jump(s);
    case BC_POP_JUMP_IF_FALSE: case BC_POP_JUMP_FORWARD_IF_FALSE: case BC_POP_JUMP_BACKWARD_IF_FALSE:
        return cond_jump(s, in, false, false, 0);
    case BC_POP_JUMP_IF_TRUE: case BC_POP_JUMP_FORWARD_IF_TRUE: case BC_POP_JUMP_BACKWARD_IF_TRUE:
        return cond_jump(s, in, true, false, 0);
    case BC_POP_JUMP_IF_NONE: case BC_POP_JUMP_FORWARD_IF_NONE: case BC_POP_JUMP_BACKWARD_IF_NONE:
        return cond_jump(s, in, true, false, 1);
    case BC_POP_JUMP_IF_NOT_NONE: case BC_POP_JUMP_FORWARD_IF_NOT_NONE:
    case BC_POP_JUMP_BACKWARD_IF_NOT_NONE:
        return cond_jump(s, in, true, false, -1);
    case BC_JUMP_IF_TRUE_OR_POP: return cond_jump(s, in, true, true, 0);
    case BC_JUMP_IF_FALSE_OR_POP: return cond_jump(s, in, false, true, 0);
    default:
        return unsupported(s, in);
    }
}

/* ---- blocks ---------------------------------------------------------------------------------- */

static bool stack_ok(Ssa *s, const BcInstr *in)
{
    int need = 0;
    switch (in->op) {
    case BC_COPY: case BC_SWAP: need = in->arg; break;
    case BC_FOR_ITER: case BC_JUMP_IF_TRUE_OR_POP: case BC_JUMP_IF_FALSE_OR_POP: case BC_RERAISE:
    case BC_PUSH_EXC_INFO: case BC_POP_EXCEPT: need = 1; break;
    case BC_CHECK_EXC_MATCH: need = 2; break;
    default: return s->sp >= 0;
    }
    return need >= 1 && s->sp >= need;
}

/* A handler's stack: what lay below the table's depth, then lasti (a value nothing uses) if
 * the table says so, then the exception, which CATCH takes over. */
static void enter_handler(Ssa *s, const CfgBlock *cb)
{
    const ExcEntry *e = cb->entry;
    for (int i = 0; i < e->depth; i++)
        s->stack[s->sp++] = read_var(s, s->ctx->nlocalsplus + i, s->row);
    s->ctx->cur = &s->ctx->instrs[cb->first];
    if (e->lasti)
        s->stack[s->sp++] = emit_none(s);
    s->stack[s->sp++] = emit(s, OP_CATCH, 0);
}

static int fill_block(Ssa *s, int row)
{
    FeCtx *ctx = s->ctx;
    const CfgBlock *cb = &ctx->blocks[row];
    s->row = row;
    s->cur = s->ir[row];
    s->sp = 0;
    s->nkw = 0;
    s->kwnames = NULL;
    if (cb->entry) {
        enter_handler(s, cb);
    } else {
        for (int i = 0; i < cb->depth; i++)
            s->stack[s->sp++] = read_var(s, ctx->nlocalsplus + i, row);
    }
    if (cb->handler >= 0) {
        s->entry_stack[row] = arena_alloc(s->fn->arena, sizeof(Instr *) * (size_t)(s->sp + 1));
        memcpy(s->entry_stack[row], s->stack, sizeof(Instr *) * (size_t)s->sp);
    }
    for (int i = cb->first; i <= cb->last; i++) {
        ctx->cur = &ctx->instrs[i];
        if (!stack_ok(s, ctx->cur))
            return fe_error(ctx, DIAG_INTERNAL, "value stack underflow at %s", ctx->cur->opname);
        if (translate(s, ctx->cur) < 0)
            return -1;
        if (s->underflow)
            return fe_error(ctx, DIAG_INTERNAL, "value stack underflow at %s", ctx->cur->opname);
    }
    if (!ir_terminator(s->cur)) {
        if (cb->nsucc != 1)
            return fe_error(ctx, DIAG_INTERNAL, "block at offset %d ends without a jump",
                            ctx->instrs[cb->first].offset);
        jump(s);
    }
    for (int i = 0; i < s->sp && i < s->curexc - ctx->nlocalsplus; i++)
        write_var(s, ctx->nlocalsplus + i, row, s->stack[i]);
    return 0;
}

static void seal_ready(Ssa *s, int row)
{
    if (!s->sealed[row] && s->ir[row]->preds.len == s->expected_preds[row])
        seal(s, row);
}

/* The landing block of a block inside a try: its only predecessor is that block (by the
 * exception edge, Block.handler), and it goes on to the handler. The stack below the handler's
 * depth is the block's at its entry: instructions that cannot raise may shuffle it before the
 * block ends (`return x` in an except clause swaps x under the exception being handled). */
static void fill_landing(Ssa *s, int row)
{
    const CfgBlock *cb = &s->ctx->blocks[row];
    int land = s->landing[row];
    Block *b = s->ir[row];
    b->handler = s->ir[land];
    ir_add_pred(s->fn, b->handler, b);
    s->sealed[land] = s->started[land] = s->filled[land] = true;
    int depth = s->ctx->blocks[cb->handler].entry->depth;
    for (int i = 0; i < depth && i < cb->depth; i++)
        write_var(s, s->ctx->nlocalsplus + i, land, s->entry_stack[row][i]);
    s->cur = b->handler;
    s->row = land;
    s->ctx->cur = &s->ctx->instrs[cb->last];
    link_succ(s, emit(s, OP_BR, 0), 0, cb->handler);
    if (s->started[cb->handler])
        seal_ready(s, cb->handler);
}

static int fill_all(Ssa *s)
{
    FeCtx *ctx = s->ctx;
    for (int k = 0; k < ctx->nblocks; k++) {
        int row = ctx->rpo[k];
        seal_ready(s, row);
        s->started[row] = true;
        if (fill_block(s, row) < 0)
            return -1;
        s->filled[row] = true;
        const CfgBlock *cb = &ctx->blocks[row];
        if (cb->handler >= 0)
            fill_landing(s, row);
        for (int j = 0; j < cb->nsucc; j++)
            if (s->started[cb->succ[j]])
                seal_ready(s, cb->succ[j]);
    }
    for (int row = 0; row < ctx->nblocks; row++)
        if (!s->sealed[row])
            return fe_error(ctx, DIAG_INTERNAL, "block b%d was never sealed", s->ir[row]->id);
    return 0;
}

/* ---- finishing ------------------------------------------------------------------------------- */

/* Braun's removal cascades through users; here a few passes over the phis reach the same point. */
static void remove_trivial_phis(Ssa *s)
{
    bool changed = true;
    while (changed) {
        changed = false;
        for (int r = 0; r < s->nrows; r++)
            for (int i = 0; i < s->phis[r].len; i++) {
                Instr *phi = s->phis[r].items[i];
                if (!phi->aux && try_remove_trivial(s, phi) != phi)
                    changed = true;
            }
    }
}

/* Each block's final list: its live phis, the entry's prefix, then its body. */
static void assemble(Ssa *s)
{
    for (int r = 0; r < s->nrows; r++) {
        Block *b = s->ir[r];
        PtrVec all = {0};
        for (int i = 0; i < s->phis[r].len; i++) {
            Instr *phi = s->phis[r].items[i];
            if (!phi->aux)
                vec_push(s->fn->arena, &all, phi);
        }
        if (b == s->fn->blocks.items[0])
            for (int i = 0; i < s->prefix.len; i++)
                vec_push(s->fn->arena, &all, s->prefix.items[i]);
        for (int i = 0; i < b->instrs.len; i++)
            vec_push(s->fn->arena, &all, b->instrs.items[i]);
        b->instrs = all;
    }
}

static int resolve_operands(Ssa *s)
{
    for (int r = 0; r < s->fn->blocks.len; r++) {
        Block *b = s->fn->blocks.items[r];
        for (int i = 0; i < b->instrs.len; i++) {
            Instr *in = b->instrs.items[i];
            for (int a = 0; a < in->nargs; a++) {
                in->args[a] = resolve(in->args[a]);
                if (!in->args[a] || in->args[a] == &s->null_mark) {
                    s->ctx->cur = NULL;
                    return diag_error(s->ctx->diag, DIAG_INTERNAL, s->fn->qualname, s->fn->filename,
                                      in->line, -1, -1, "%s uses a value the stack never held",
                                      ir_op_name(in->op));
                }
            }
        }
    }
    for (int r = 0; r < s->fn->blocks.len; r++) {
        Block *b = s->fn->blocks.items[r];
        b->aux = NULL;
        for (int i = 0; i < b->instrs.len; i++) {
            Instr *in = b->instrs.items[i];
            in->aux = NULL;
            if (in->op == OP_PHI)
                in->imm = 0;
        }
    }
    return 0;
}

/* ---- setting up ------------------------------------------------------------------------------ */

static void make_blocks(Ssa *s, bool pre_entry)
{
    FeCtx *ctx = s->ctx;
    if (pre_entry) {
        s->ir[ctx->nblocks] = ir_new_block(s->fn, 0);
        s->ir[ctx->nblocks]->aux = (void *)(intptr_t)ctx->nblocks;
    }
    /* Numbered in reverse post-order: every block after its dominators, so a pass in block order
     * meets definitions before uses (phi inputs along back edges aside). */
    int next_row = ctx->nblocks + pre_entry;
    for (int k = 0; k < ctx->nblocks; k++) {
        int b = ctx->rpo[k];
        s->ir[b] = ir_new_block(s->fn, ctx->instrs[ctx->blocks[b].first].start);
        s->ir[b]->aux = (void *)(intptr_t)b;
        s->expected_preds[b] = ctx->blocks[b].npreds + (b == 0 && pre_entry);
        s->landing[b] = -1;
        if (ctx->blocks[b].handler >= 0) {   /* right after its block, before the handler */
            int land = s->landing[b] = next_row++;
            s->ir[land] = ir_new_block(s->fn, ctx->instrs[ctx->blocks[b].first].start);
            s->ir[land]->aux = (void *)(intptr_t)land;
            s->expected_preds[land] = 1;
        }
    }
}

/* The arguments, as ARG instructions in the entry, are the first definitions of their locals. */
static void define_args(Ssa *s, int entry_row)
{
    IRFunc *fn = s->fn;
    for (int i = 0; i < fn->nargs; i++) {
        Instr *a = ir_new_instr(fn, OP_ARG, 0, fn->firstline);
        a->imm = i;
        a->var = fn->argnames[i];
        a->block = fn->blocks.items[0];
        vec_push(fn->arena, &s->prefix, a);
        if (arg_var(s->ctx, i) < 0)
            s->ctx->over_args[i] = a;
        else
            write_var(s, arg_var(s->ctx, i), entry_row, a);
    }
}

static void init_ssa(Ssa *s, FeCtx *ctx, bool pre_entry)
{
    Arena *A = ctx->arena;
    s->ctx = ctx;
    s->fn = ctx->fn;
    s->nvars = ctx->nlocalsplus + ctx->stacksize + 3;
    s->curexc = s->nvars - 1;
    s->nrows = ctx->nblocks + pre_entry;
    for (int b = 0; b < ctx->nblocks; b++)
        s->nrows += ctx->blocks[b].handler >= 0;
    size_t rows = (size_t)s->nrows + 1;
    s->defs = arena_alloc(A, sizeof(Instr *) * rows * (size_t)s->nvars);
    s->sealed = arena_alloc(A, rows);
    s->filled = arena_alloc(A, rows);
    s->started = arena_alloc(A, rows);
    s->incomplete = arena_alloc(A, sizeof(PtrVec) * rows);
    s->phis = arena_alloc(A, sizeof(PtrVec) * rows);
    s->ir = arena_alloc(A, sizeof(Block *) * rows);
    s->expected_preds = arena_alloc(A, sizeof(int) * rows);
    s->landing = arena_alloc(A, sizeof(int) * rows);
    s->entry_stack = arena_alloc(A, sizeof(Instr **) * rows);
    s->undef = arena_alloc(A, sizeof(Instr *) * (size_t)s->nvars);
    s->stack = arena_alloc(A, sizeof(Instr *) * (size_t)(ctx->stacksize + 3));
    s->null_mark.op = OP_CONST;
    s->null_mark.id = -1;
    s->null_mark.cst = ir_new_const(ctx->fn, K_NONE);
}

/* A zip() or enumerate() whose items a call or comprehension took (each makes its own from the
 * same arguments) must not be walked again: CPython's would be exhausted by then. */
static int check_remade(Ssa *s)
{
    for (int k = 0; k < s->remade.len; k++) {
        Instr *z = s->remade.items[k];
        bool twice = false;
        for (int j = 0; j < k; j++)
            twice |= s->remade.items[j] == z;
        for (int r = 0; r < s->fn->blocks.len && !twice; r++) {
            Block *b = s->fn->blocks.items[r];
            for (int i = 0; i < b->instrs.len; i++) {
                Instr *in = b->instrs.items[i];
                for (int a = 0; a < in->nargs; a++)
                    twice |= in->args[a] == z;
            }
        }
        if (twice) {
            s->ctx->cur = NULL;
            return diag_error(s->ctx->diag, DIAG_UNSUPPORTED, s->fn->qualname, s->fn->filename,
                              z->line, z->col, z->end_col, "this zip() or enumerate() is walked "
                              "more than once (a second loop, list() or call of it): compiled "
                              "code walks it again from the start, where Python's would be "
                              "exhausted; take its items once (items = list(zip(...)))");
        }
    }
    return 0;
}

int ssa_build(FeCtx *ctx)
{
    Ssa s = {0};
    bool pre_entry = ctx->blocks[0].npreds > 0;   /* the entry may not be a loop header */
    init_ssa(&s, ctx, pre_entry);
    make_blocks(&s, pre_entry);
    int entry_row = pre_entry ? ctx->nblocks : 0;
    define_args(&s, entry_row);
    s.sealed[entry_row] = true;
    if (pre_entry) {
        s.cur = s.ir[entry_row];
        s.row = entry_row;
        ctx->cur = NULL;
        Instr *br = emit(&s, OP_BR, 0);
        br->succ[0] = s.ir[0];
        ir_add_pred(s.fn, s.ir[0], s.cur);
        s.filled[entry_row] = s.started[entry_row] = true;
    }
    if (fill_all(&s) < 0)
        return -1;
    remove_trivial_phis(&s);
    assemble(&s);
    if (resolve_operands(&s) < 0)
        return -1;
    return check_remade(&s);
}

/* ---- the frontend ---------------------------------------------------------------------------- */

static const char *attr_utf8(FeCtx *ctx, PyObject *obj, const char *attr)
{
    PyObject *v = PyObject_GetAttrString(obj, attr);
    const char *s = v && PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
    const char *copy = arena_strdup(ctx->arena, s ? s : "?");
    PyErr_Clear();
    Py_XDECREF(v);
    return copy;
}

/* @njit(locals={'x': float32}): pyjit/decorators.py leaves the dict, checked (scalar types of
 * the function's own variables), on the function it compiles as __pyjit_locals__. */
static int read_declared_locals(FeCtx *ctx, PyObject *func)
{
    PyObject *decl = PyObject_GetAttrString(func, "__pyjit_locals__");
    if (!decl) {
        PyErr_Clear();
        return 0;
    }
    int rc = 0;
    if (PyDict_Check(decl) && PyDict_GET_SIZE(decl) > 0) {
        ctx->declared = arena_alloc(ctx->arena, sizeof(Const *) * (size_t)ctx->nlocalsplus);
        memset(ctx->declared, 0, sizeof(Const *) * (size_t)ctx->nlocalsplus);
        for (int i = 0; i < ctx->nlocalsplus && rc >= 0; i++) {
            PyObject *t = PyDict_GetItem(decl, PyTuple_GET_ITEM(ctx->localsplusnames, i));
            if (t)
                rc = fe_const_of(ctx, t, &ctx->declared[i]);
        }
    }
    Py_DECREF(decl);
    return rc < 0 ? -1 : 0;
}

static int setup(FeCtx *ctx, PyObject *func)
{
    if (!PyFunction_Check(func))
        return fe_error(ctx, DIAG_TYPE_ERROR, "pyjit compiles Python functions, not %s objects",
                        Py_TYPE(func)->tp_name);
    PyCodeObject *co = (PyCodeObject *)PyFunction_GET_CODE(func);   /* borrowed */
    ctx->func = func;
    ctx->code = (PyObject *)co;
    ctx->qualname = attr_utf8(ctx, func, "__qualname__");
    ctx->filename = attr_utf8(ctx, ctx->code, "co_filename");
    IRFunc *fn = ctx->fn = arena_alloc(ctx->arena, sizeof *fn);
    fn->arena = ctx->arena;
    fn->name = attr_utf8(ctx, func, "__name__");
    fn->qualname = ctx->qualname;
    fn->filename = ctx->filename;
    fn->firstline = co->co_firstlineno;
    fn->handle = func;
    ctx->globals = PyFunction_GET_GLOBALS(func);
    ctx->builtins = PyObject_GetAttrString(func, "__builtins__");   /* owned */
    ctx->consts = PyObject_GetAttrString(ctx->code, "co_consts");   /* owned */
    ctx->names = PyObject_GetAttrString(ctx->code, "co_names");     /* owned */
    ctx->localsplusnames = co->co_localsplusnames;   /* borrowed, as long as the code lives */
    ctx->nlocalsplus = co->co_nlocalsplus;
    ctx->nfree = co->co_nfreevars;
    ctx->stacksize = co->co_stacksize;
    if (!ctx->builtins || !PyDict_Check(ctx->builtins) || !ctx->consts || !ctx->names)
        return fe_error_from_python(ctx, "reading the function");
    fn->varargs = (co->co_flags & CO_VARARGS) != 0;
    fn->nkwonly = co->co_kwonlyargcount;
    /* the parameters are the first locals: positional, keyword-only, then *args */
    fn->nargs = co->co_argcount + fn->nkwonly + fn->varargs;
    ctx->comprehension = fe_comprehension_name(attr_utf8(ctx, ctx->code, "co_name")) &&
                         fn->nargs == 1 && strcmp(bc_local_name(ctx, 0), ".0") == 0;
    ctx->nover = 1;
    ctx->closure = !ctx->comprehension && PyObject_HasAttrString(func, "__pyjit_closure__");
    if (ctx->closure)
        fn->nargs = ctx->nfree + co->co_argcount;   /* the values it captured, then its own */
    if (ctx->closure || ctx->comprehension)
        fn->nkwonly = 0;   /* a nested function has none (bc_check_code) */
    if (ctx->comprehension) {
        PyObject *over = PyObject_GetAttrString(func, "__pyjit_over__");   /* (zip, n) or absent */
        PyErr_Clear();
        if (over && PyTuple_Check(over) && PyTuple_GET_SIZE(over) == 2) {
            ctx->over = PyTuple_GET_ITEM(over, 0);   /* borrowed: the function keeps it */
            ctx->nover = (int)PyLong_AsLong(PyTuple_GET_ITEM(over, 1));
        }
        Py_XDECREF(over);
        fn->nargs = ctx->nover + ctx->nfree;   /* then the outer variables it reads, by value */
        ctx->over_args = arena_alloc(ctx->arena, sizeof(Instr *) * (size_t)(ctx->nover + 1));
    }
    fn->argnames = arena_alloc(ctx->arena, sizeof(char *) * (size_t)(fn->nargs + 1));
    for (int i = 0; i < fn->nargs; i++)
        fn->argnames[i] = arena_strdup(ctx->arena, arg_var(ctx, i) < 0 ? ".0" : bc_local_name(ctx, arg_var(ctx, i)));
    return read_declared_locals(ctx, func);
}

IRFunc *fe_build(PyObject *func, PyObject *registry, FeIsDispatcher is_dispatcher, Arena *arena,
                 Diag *diag)
{
    FeCtx ctx = {.arena = arena, .diag = diag, .registry = registry, .is_dispatcher = is_dispatcher};
    IRFunc *result = NULL;
    if (setup(&ctx, func) < 0)
        goto done;
    if (bc_decode(&ctx) < 0 || bc_check_code(&ctx) < 0)
        goto done;
    ctx.fn->bytecode_dump = bc_dump(&ctx);
    ctx.fn->generator = ctx.generator;
    ctx.cur = NULL;
    if (fe_freeze_defaults(&ctx) < 0)
        goto done;
    if (cfg_build(&ctx) < 0)
        goto done;
    if (ssa_build(&ctx) < 0)
        goto done;
    result = ctx.fn;
done:
    if (PyErr_Occurred()) {
        if (!result)
            fe_error_from_python(&ctx, "frontend");
        PyErr_Clear();
    }
    if (!result && diag->kind == DIAG_NONE)
        fe_error(&ctx, DIAG_INTERNAL, "the frontend failed without saying why");
    Py_XDECREF(ctx.builtins);
    Py_XDECREF(ctx.consts);
    Py_XDECREF(ctx.names);
    return result;
}
