/* ir.c: building, printing and checking pyjit's SSA IR (ir.h).
 *
 * Everything lives in the function's arena. The printer is what PYJIT_DUMP=ssa/types and the
 * stage tests read, so its format is stable: one paragraph per block headed by its id, bytecode
 * offset and predecessors, then one instruction a line with its source line in a comment.
 * The checker is the IR's invariants written down once (QBE's ssacheck); stages run it between
 * passes when PYJIT_DEBUG=1. Plain C: no Python here. */
#include "compiler/ir.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"   /* TypedFunc, for CALL_JIT's callee name */
#include "compiler/diag.h"

/* ---- building -------------------------------------------------------------------------------- */

/* ir_append and ir_insert_before grow a block's vector but are given no function (ir.h), so each
 * block made here carries its arena in a hidden header just before it. Blocks must therefore be
 * made by ir_new_block, which also numbers them. */
typedef struct BlockBox {
    Arena *arena;
    Block block;
} BlockBox;

static Arena *block_arena(Block *block)
{
    BlockBox *box = (BlockBox *)((char *)block - offsetof(BlockBox, block));
    return box->arena;
}

Block *ir_new_block(IRFunc *fn, int offset)
{
    BlockBox *box = arena_alloc(fn->arena, sizeof *box);
    box->arena = fn->arena;
    Block *b = &box->block;
    b->id = fn->blocks.len;
    b->offset = offset;
    vec_push(fn->arena, &fn->blocks, b);
    return b;
}

Instr *ir_new_instr(IRFunc *fn, Opcode op, int nargs, int line)
{
    Instr *in = arena_alloc(fn->arena, sizeof *in);
    in->op = op;
    in->id = fn->next_id++;
    in->nargs = nargs;
    if (nargs > 0)
        in->args = arena_alloc(fn->arena, sizeof *in->args * (size_t)nargs);
    in->line = line;
    in->col = in->end_col = -1;
    return in;
}

void ir_append(Block *block, Instr *instr)
{
    instr->block = block;
    vec_push(block_arena(block), &block->instrs, instr);
}

void ir_insert_before(Instr *at, Instr *instr)
{
    Block *b = at->block;
    int i = 0;
    while (i < b->instrs.len && b->instrs.items[i] != at)
        i++;
    instr->block = b;
    vec_push(block_arena(b), &b->instrs, instr);   /* grows the vector; shifted below */
    memmove(&b->instrs.items[i + 1], &b->instrs.items[i],
            sizeof(void *) * (size_t)(b->instrs.len - 1 - i));
    b->instrs.items[i] = instr;
}

void ir_add_pred(IRFunc *fn, Block *block, Block *pred)
{
    vec_push(fn->arena, &block->preds, pred);
}

static bool is_terminator(Opcode op)
{
    return op == OP_BR || op == OP_CBR || op == OP_FOR_ITER || op == OP_RET || op == OP_RAISE;
}

Instr *ir_terminator(const Block *block)
{
    if (block->instrs.len == 0)
        return NULL;
    Instr *last = block->instrs.items[block->instrs.len - 1];
    return is_terminator(last->op) ? last : NULL;
}

Const *ir_new_const(IRFunc *fn, ConstKind kind)
{
    Const *c = arena_alloc(fn->arena, sizeof *c);
    c->kind = kind;
    return c;
}

/* ---- names ----------------------------------------------------------------------------------- */

static const char *const op_names[] = {
#define OP(name, str) str,
#include "compiler/ir_ops.def"
#undef OP
};

static const struct {
    const char *name, *fn, *keywords;
    int written;
    BuiltinWhere where;
    const char *typed;
} builtin_rows[] = {
#define BUILTIN(id, pyname, infer, lower, fn, keywords, written, where, typed) \
    {pyname, fn, keywords, written, where, typed},
#include "compiler/builtins.def"
#undef BUILTIN
};

const char *ir_op_name(Opcode op)
{
    return (unsigned)op < OP__COUNT ? op_names[op] : "?";
}

const char *ir_builtin_name(Builtin b)
{
    return (unsigned)b < BI__COUNT ? builtin_rows[b].name : "?";
}

const char *ir_builtin_fn(Builtin b)
{
    return (unsigned)b < BI__COUNT ? builtin_rows[b].fn : NULL;
}

const char *ir_builtin_keywords(Builtin b)
{
    return (unsigned)b < BI__COUNT ? builtin_rows[b].keywords : NULL;
}

int ir_builtin_written(Builtin b)
{
    return (unsigned)b < BI__COUNT ? builtin_rows[b].written : -1;
}

BuiltinWhere ir_builtin_where(Builtin b)
{
    return (unsigned)b < BI__COUNT ? builtin_rows[b].where : BI_BOTH;
}

const char *ir_builtin_typed_form(Builtin b)
{
    return (unsigned)b < BI__COUNT ? builtin_rows[b].typed : "";
}

Builtin ir_builtin_lookup(const char *pyname)
{
    for (int i = 0; pyname && i < BI__COUNT; i++)
        if (strcmp(builtin_rows[i].name, pyname) == 0)
            return (Builtin)i;
    return BI__COUNT;
}

static const char *const binop_names[] = {
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
    "lshift", "rshift", "and", "or", "xor", "matmul",
};
static const char *const unary_names[] = {"neg", "pos", "not", "invert"};
static const char *const cmp_names[] = {"lt", "le", "eq", "ne", "gt", "ge", "is", "isnot", "in", "notin"};
static const char *const attr_names[] = {
    "shape", "strides", "size", "ndim", "itemsize", "nbytes", "T", "real", "imag",
};

#define NAME_OF(table, i) ((unsigned)(i) < sizeof(table) / sizeof(table[0]) ? table[i] : "?")

/* ---- printing -------------------------------------------------------------------------------- */

typedef struct Buf {
    char *s;
    size_t len, cap;
} Buf;

static void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            abort();
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void print_float(Buf *b, double f)
{
    if (isnan(f) || isinf(f)) {
        buf_printf(b, "%s", isnan(f) ? "nan" : f > 0 ? "inf" : "-inf");
        return;
    }
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.17g", f);
    /* Shortest form that reads back exactly, as Python's repr does. */
    for (int prec = 1; prec < 17; prec++) {
        char t[64];
        snprintf(t, sizeof t, "%.*g", prec, f);
        if (strtod(t, NULL) == f) {
            memcpy(tmp, t, sizeof t);
            break;
        }
    }
    buf_printf(b, "%s%s", tmp, strpbrk(tmp, ".eni") ? "" : ".0");
}

static void print_str(Buf *b, const char *s)
{
    buf_printf(b, "'");
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (*p == '\'' || *p == '\\')
            buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            buf_printf(b, "\\n");
        else if (*p < 0x20 || *p == 0x7f)
            buf_printf(b, "\\x%02x", *p);
        else
            buf_printf(b, "%c", *p);
    }
    buf_printf(b, "'");
}

static void print_const(Buf *b, const Const *c)
{
    switch (c->kind) {
    case K_NONE: buf_printf(b, "None"); break;
    case K_BOOL: buf_printf(b, "%s", c->b ? "True" : "False"); break;
    case K_INT: buf_printf(b, "%" PRId64, c->i); break;
    case K_FLOAT: print_float(b, c->f); break;
    case K_COMPLEX:
        buf_printf(b, "(");
        print_float(b, c->c.re);
        buf_printf(b, "%s", c->c.im < 0 || signbit(c->c.im) ? "" : "+");
        print_float(b, c->c.im);
        buf_printf(b, "j)");
        break;
    case K_STR: print_str(b, c->s); break;
    case K_TUPLE:
        buf_printf(b, "(");
        for (int i = 0; i < c->tuple.n; i++) {
            buf_printf(b, "%s", i ? ", " : "");
            print_const(b, c->tuple.items[i]);
        }
        buf_printf(b, "%s)", c->tuple.n == 1 ? "," : "");
        break;
    case K_MODULE: buf_printf(b, "module %s", c->name); break;
    case K_FUNC: buf_printf(b, "func %s", c->name); break;
    case K_DISPATCHER: buf_printf(b, "dispatcher %s", c->name); break;
    case K_EXCCLASS: buf_printf(b, "exception %s", c->name); break;
    case K_ARRAY:
        buf_printf(b, "array %s", c->array_type ? c->array_type->name : "(untyped)");
        break;
    case K_OPAQUE: buf_printf(b, "opaque %s", c->name ? c->name : "?"); break;
    case K_UNDEFINED: buf_printf(b, "undefined %s", c->s ? c->s : "?"); break;
    }
}

static bool has_value(const Instr *in)
{
    switch (in->op) {
    case OP_BR: case OP_CBR: case OP_RET: case OP_RAISE: case OP_SETITEM: case OP_ARRAY_SET:
        return false;
    default:
        return true;
    }
}

static void print_operands(Buf *b, const Instr *in, int from)
{
    for (int i = from; i < in->nargs; i++) {
        const Instr *a = in->args[i];
        buf_printf(b, "%s", i > from ? ", " : " ");
        if (in->op == OP_CALL && in->nkw > 0 && i >= in->nargs - in->nkw && in->kwnames)
            buf_printf(b, "%s=", in->kwnames[i - (in->nargs - in->nkw)]);
        if (a)
            buf_printf(b, "%%%d", a->id);
        else
            buf_printf(b, "<null>");
    }
}

static void print_phi(Buf *b, const Instr *in)
{
    for (int i = 0; i < in->nargs; i++) {
        const Block *pred = i < in->block->preds.len ? in->block->preds.items[i] : NULL;
        buf_printf(b, "%s[b%d: ", i ? ", " : " ", pred ? pred->id : -1);
        if (in->args[i])
            buf_printf(b, "%%%d]", in->args[i]->id);
        else
            buf_printf(b, "<null>]");
    }
}

/* The opcode-specific part after the name: sub-operation, constant, attribute, immediates. */
static void print_detail(Buf *b, const Instr *in)
{
    switch (in->op) {
    case OP_ARG: buf_printf(b, " %" PRId64, in->imm); break;
    case OP_CONST: buf_printf(b, " "); if (in->cst) print_const(b, in->cst); break;
    case OP_BINOP: buf_printf(b, " %s%s", NAME_OF(binop_names, in->sub), in->imm ? "=" : ""); break;
    case OP_UNARY: buf_printf(b, " %s", NAME_OF(unary_names, in->sub)); break;
    case OP_COMPARE: buf_printf(b, " %s", NAME_OF(cmp_names, in->sub)); break;
    case OP_ARRAY_ATTR: buf_printf(b, " %s", NAME_OF(attr_names, in->sub)); break;
    case OP_INTRINSIC: buf_printf(b, " %s", ir_builtin_name((Builtin)in->sub)); break;
    case OP_CALL_JIT:
        buf_printf(b, " %s", in->callee && in->callee->ir ? in->callee->ir->qualname : "?");
        break;
    default: break;
    }
}

static void print_instr(Buf *b, const Instr *in, bool with_types)
{
    size_t start = b->len;
    buf_printf(b, "  ");
    if (has_value(in))
        buf_printf(b, "%%%d = ", in->id);
    buf_printf(b, "%s", ir_op_name(in->op));
    print_detail(b, in);
    if (in->op == OP_PHI)
        print_phi(b, in);
    else
        print_operands(b, in, 0);
    if (in->op == OP_GETATTR && in->name)
        buf_printf(b, " .%s", in->name);
    if (in->op == OP_STATIC_GETITEM || in->op == OP_STATIC_GET)
        buf_printf(b, " [%" PRId64 "]%s", in->imm, in->imm2 > 0 ? " of unpack" : "");
    if (in->op == OP_STATIC_GETITEM && in->imm2 > 0)
        buf_printf(b, " %" PRId64, in->imm2);
    if (in->op == OP_BR)
        buf_printf(b, " b%d", in->succ[0] ? in->succ[0]->id : -1);
    else if (in->op == OP_CBR || in->op == OP_FOR_ITER)
        buf_printf(b, " ? b%d : b%d", in->succ[0] ? in->succ[0]->id : -1,
                   in->succ[1] ? in->succ[1]->id : -1);
    if (with_types && in->type)
        buf_printf(b, " : %s", in->type->name ? in->type->name : "?");
    size_t width = b->len - start;
    buf_printf(b, "%*s; line %d", width < 44 ? (int)(44 - width) : 1, "", in->line);
    if (in->var)
        buf_printf(b, ", %s", in->var);
    buf_printf(b, "\n");
}

char *ir_dump(IRFunc *fn, bool with_types)
{
    Buf b = {0};
    buf_printf(&b, "function %s(", fn->qualname ? fn->qualname : fn->name ? fn->name : "?");
    for (int i = 0; i < fn->nargs; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", fn->argnames ? fn->argnames[i] : "?");
    buf_printf(&b, ")");
    for (int i = 0; i < fn->ndefaults; i++) {
        buf_printf(&b, "%s", i ? ", " : "  defaults: ");
        print_const(&b, fn->defaults[i]);
    }
    buf_printf(&b, "\n");
    for (int i = 0; i < fn->blocks.len; i++) {
        Block *bl = fn->blocks.items[i];
        buf_printf(&b, "\nb%d:  ; offset %d", bl->id, bl->offset);
        for (int p = 0; p < bl->preds.len; p++)
            buf_printf(&b, "%s b%d", p ? "," : ", preds", ((Block *)bl->preds.items[p])->id);
        buf_printf(&b, "\n");
        for (int j = 0; j < bl->instrs.len; j++)
            print_instr(&b, bl->instrs.items[j], with_types);
    }
    char *out = arena_strdup(fn->arena, b.s ? b.s : "");
    free(b.s);
    return out;
}

/* ---- checking -------------------------------------------------------------------------------- */

typedef struct Checker {
    IRFunc *fn;
    Diag *diag;
    Instr **defined;    /* by value number: the instruction placed in a block */
    int *pos;           /* by value number: its index in its block */
} Checker;

static int check_fail(Checker *ck, const Instr *in, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int check_fail(Checker *ck, const Instr *in, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_error(ck->diag, DIAG_INTERNAL, ck->fn->qualname, ck->fn->filename,
                      in ? in->line : 0, -1, -1, "IR check failed: %s", msg);
}

static bool block_in_fn(const IRFunc *fn, const Block *b)
{
    return b && b->id >= 0 && b->id < fn->blocks.len && fn->blocks.items[b->id] == b;
}

static int count_preds(const Block *b, const Block *pred)
{
    int n = 0;
    for (int i = 0; i < b->preds.len; i++)
        n += b->preds.items[i] == pred;
    return n;
}

static int check_terminator(Checker *ck, Block *b, Instr *in)
{
    int nsucc = in->op == OP_BR ? 1 : (in->op == OP_CBR || in->op == OP_FOR_ITER) ? 2 : 0;
    for (int s = 0; s < nsucc; s++) {
        Block *succ = in->succ[s];
        if (!block_in_fn(ck->fn, succ))
            return check_fail(ck, in, "b%d: %s has a successor outside the function", b->id,
                              ir_op_name(in->op));
        int edges = 0;
        for (int t = 0; t < nsucc; t++)
            edges += in->succ[t] == succ;
        if (count_preds(succ, b) != edges)
            return check_fail(ck, in, "b%d is a successor of b%d but its preds do not say so",
                              succ->id, b->id);
    }
    return 0;
}

static int check_block_shape(Checker *ck, Block *b)
{
    if (b->instrs.len == 0)
        return check_fail(ck, NULL, "b%d is empty", b->id);
    bool in_phis = true;
    for (int j = 0; j < b->instrs.len; j++) {
        Instr *in = b->instrs.items[j];
        if (in->block != b)
            return check_fail(ck, in, "%%%d is in b%d but points to another block", in->id, b->id);
        if (in->op == OP_PHI && !in_phis)
            return check_fail(ck, in, "phi %%%d after a non-phi in b%d", in->id, b->id);
        if (in->op != OP_PHI)
            in_phis = false;
        if (in->op == OP_PHI && in->nargs != b->preds.len)
            return check_fail(ck, in, "phi %%%d has %d inputs, b%d has %d preds", in->id,
                              in->nargs, b->id, b->preds.len);
        if (is_terminator(in->op) != (j == b->instrs.len - 1))
            return check_fail(ck, in, "b%d: %s", b->id,
                              is_terminator(in->op) ? "terminator before the block's end"
                                                    : "the block does not end in a terminator");
        if (in->id < 0 || in->id >= ck->fn->next_id || ck->defined[in->id])
            return check_fail(ck, in, "value number %%%d is out of range or used twice", in->id);
        ck->defined[in->id] = in;
        ck->pos[in->id] = j;
    }
    for (int p = 0; p < b->preds.len; p++)
        if (!block_in_fn(ck->fn, b->preds.items[p]))
            return check_fail(ck, NULL, "b%d has a predecessor outside the function", b->id);
    return 0;
}

static int check_operands(Checker *ck, Instr *in, bool typed)
{
    for (int k = 0; k < in->nargs; k++) {
        Instr *a = in->args[k];
        if (!a || a->id < 0 || a->id >= ck->fn->next_id || ck->defined[a->id] != a)
            return check_fail(ck, in, "operand %d of %%%d (%s) is not defined in the function", k,
                              in->id, ir_op_name(in->op));
        if (in->op != OP_PHI && a->block == in->block && ck->pos[a->id] >= ck->pos[in->id])
            return check_fail(ck, in, "%%%d is used by %%%d before it is defined in b%d", a->id,
                              in->id, in->block->id);
    }
    if (in->op == OP_CALL && (in->nargs < 1 || in->nkw < 0 || in->nkw > in->nargs - 1))
        return check_fail(ck, in, "call %%%d has a bad keyword count", in->id);
    if (in->op == OP_CONST && !in->cst)
        return check_fail(ck, in, "const %%%d has no value", in->id);
    if (typed && !in->type)
        return check_fail(ck, in, "%%%d (%s) has no type", in->id, ir_op_name(in->op));
    return 0;
}

int ir_check(IRFunc *fn, bool typed, Diag *diag)
{
    Checker ck = {fn, diag, calloc((size_t)fn->next_id + 1, sizeof(Instr *)),
                  calloc((size_t)fn->next_id + 1, sizeof(int))};
    int rc = -1;
    if (!ck.defined || !ck.pos)
        abort();
    if (fn->blocks.len == 0) {
        check_fail(&ck, NULL, "function has no blocks");
        goto done;
    }
    if (((Block *)fn->blocks.items[0])->preds.len != 0) {
        check_fail(&ck, NULL, "the entry block has predecessors");
        goto done;
    }
    for (int i = 0; i < fn->blocks.len; i++) {
        Block *b = fn->blocks.items[i];
        if (b->id != i) {
            check_fail(&ck, NULL, "block %d is numbered b%d", i, b->id);
            goto done;
        }
        if (check_block_shape(&ck, b) < 0)
            goto done;
    }
    for (int i = 0; i < fn->blocks.len; i++) {
        Block *b = fn->blocks.items[i];
        for (int j = 0; j < b->instrs.len; j++)
            if (check_operands(&ck, b->instrs.items[j], typed) < 0)
                goto done;
        if (check_terminator(&ck, b, ir_terminator(b)) < 0)
            goto done;
    }
    rc = 0;
done:
    free(ck.defined);
    free(ck.pos);
    return rc;
}
