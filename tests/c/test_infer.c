/* test_infer.c: unit tests of type inference (compiler/infer*.c) on IR built by hand, no Python:
 * weak literals (NEP 50), phis in loops, folded `is None` branches, and a typing error.
 * Build: cc -std=c11 -I. tests/c/test_infer.c compiler/infer.c compiler/infer_items.c
 *        compiler/infer_calls.c compiler/types.c compiler/ir.c compiler/arena.c compiler/diag.c
 *        -lpthread */
#include "compiler/compiler.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static IRFunc *new_func(Arena *arena, const char *name, int nargs)
{
    IRFunc *fn = arena_alloc(arena, sizeof *fn);
    fn->arena = arena;
    fn->name = fn->qualname = name;
    fn->filename = "test.py";
    fn->firstline = 1;
    fn->nargs = nargs;
    return fn;
}

static Instr *add(Block *b, IRFunc *fn, Opcode op, int nargs, int line)
{
    Instr *in = ir_new_instr(fn, op, nargs, line);
    ir_append(b, in);
    return in;
}

static Instr *add_const(Block *b, IRFunc *fn, ConstKind kind, double v)
{
    Instr *in = add(b, fn, OP_CONST, 0, 1);
    in->cst = ir_new_const(fn, kind);
    if (kind == K_INT)
        in->cst->i = (int64_t)v;
    else if (kind == K_FLOAT)
        in->cst->f = v;
    return in;
}

static TypedFunc *run(Arena *arena, IRFunc *fn, Type **args, int nargs, Diag *diag)
{
    static CompileOptions opts = {.opt_level = 3, .debug = true};
    static CompilerHost host;
    Program *prog = arena_alloc(arena, sizeof *prog);
    prog->arena = arena;
    prog->opts = &opts;
    prog->host = &host;
    return infer_program(prog, fn, args, nargs, NULL, diag);
}

/* f(x: float32) = x * 2.0 stays float32: the literal is cast, not x. */
static void test_weak_literal(void)
{
    Arena *arena = arena_new();
    IRFunc *fn = new_func(arena, "f", 1);
    Block *b = ir_new_block(fn, 0);
    Instr *x = add(b, fn, OP_ARG, 0, 1), *two = add_const(b, fn, K_FLOAT, 2.0);
    Instr *mul = add(b, fn, OP_BINOP, 2, 2), *ret = add(b, fn, OP_RET, 1, 2);
    mul->sub = BIN_MUL;
    mul->args[0] = x;
    mul->args[1] = two;
    ret->args[0] = mul;
    Type *f32 = ty_scalar(TY_FLOAT32);
    Diag diag = {0};
    TypedFunc *tf = run(arena, fn, &f32, 1, &diag);
    CHECK(tf && tf->ret == f32);
    CHECK(mul->type == f32 && mul->args[0] == x);
    CHECK(mul->args[1]->op == OP_CAST && mul->args[1]->type == f32 && mul->args[1]->args[0] == two);
    CHECK(two->type == ty_scalar(TY_FLOAT64));
    arena_free(arena);
}

/* s = 0; while c: s = s + x; return s  with x float32: the phi is float32 and the literal is
 * cast in the entry block, before its terminator. */
static void test_loop_phi(void)
{
    Arena *arena = arena_new();
    IRFunc *fn = new_func(arena, "g", 2);
    Block *entry = ir_new_block(fn, 0), *head = ir_new_block(fn, 10), *body = ir_new_block(fn, 20),
          *exit = ir_new_block(fn, 30);
    Instr *x = add(entry, fn, OP_ARG, 0, 1), *c = add(entry, fn, OP_ARG, 0, 1);
    c->imm = 1;
    Instr *zero = add_const(entry, fn, K_INT, 0);
    add(entry, fn, OP_BR, 0, 2)->succ[0] = head;
    ir_add_pred(fn, head, entry);
    ir_add_pred(fn, head, body);
    Instr *phi = add(head, fn, OP_PHI, 2, 3);
    phi->var = "s";
    Instr *cbr = add(head, fn, OP_CBR, 1, 3);
    cbr->args[0] = c;
    cbr->succ[0] = body;
    cbr->succ[1] = exit;
    ir_add_pred(fn, body, head);
    ir_add_pred(fn, exit, head);
    Instr *sum = add(body, fn, OP_BINOP, 2, 4);
    sum->sub = BIN_ADD;
    sum->args[0] = phi;
    sum->args[1] = x;
    add(body, fn, OP_BR, 0, 4)->succ[0] = head;
    phi->args[0] = zero;
    phi->args[1] = sum;
    add(exit, fn, OP_RET, 1, 5)->args[0] = phi;
    Type *args[2] = {ty_scalar(TY_FLOAT32), ty_scalar(TY_BOOL)};
    Diag diag = {0};
    TypedFunc *tf = run(arena, fn, args, 2, &diag);
    CHECK(tf && tf->ret == args[0]);
    CHECK(phi->type == args[0] && sum->type == args[0]);
    CHECK(phi->args[0]->op == OP_CAST && phi->args[0]->block == entry);
    CHECK(ir_terminator(entry)->op == OP_BR);
    arena_free(arena);
}

/* if b is None: r = 1 else: r = (2, 2): one branch is dead, so r has no conflicting types. */
static void test_none_folding(bool other_side)
{
    Arena *arena = arena_new();
    IRFunc *fn = new_func(arena, "h", 1);
    Block *entry = ir_new_block(fn, 0), *then = ir_new_block(fn, 10), *other = ir_new_block(fn, 20),
          *join = ir_new_block(fn, 30);
    Instr *b = add(entry, fn, OP_ARG, 0, 1), *none = add_const(entry, fn, K_NONE, 0);
    Instr *is = add(entry, fn, OP_COMPARE, 2, 2);
    is->sub = CMP_IS;
    is->args[0] = b;
    is->args[1] = none;
    Instr *cbr = add(entry, fn, OP_CBR, 1, 2);
    cbr->args[0] = is;
    cbr->succ[0] = then;
    cbr->succ[1] = other;
    ir_add_pred(fn, then, entry);
    ir_add_pred(fn, other, entry);
    Instr *one = add_const(then, fn, K_INT, 1);
    one->line = 3;
    add(then, fn, OP_BR, 0, 3)->succ[0] = join;
    Instr *two = add_const(other, fn, K_INT, 2);
    Instr *tuple = add(other, fn, OP_BUILD_TUPLE, 2, 5);
    tuple->args[0] = tuple->args[1] = two;
    add(other, fn, OP_BR, 0, 5)->succ[0] = join;
    ir_add_pred(fn, join, then);
    ir_add_pred(fn, join, other);
    Instr *phi = add(join, fn, OP_PHI, 2, 6);
    phi->var = "r";
    phi->args[0] = one;
    phi->args[1] = tuple;
    add(join, fn, OP_RET, 1, 6)->args[0] = phi;
    Type *arg = other_side ? ty_scalar(TY_INT64) : ty_scalar(TY_NONE);
    Diag diag = {0};
    TypedFunc *tf = run(arena, fn, &arg, 1, &diag);
    if (other_side) {   /* b is an int: `b is None` is False, the int branch is dead */
        CHECK(tf && tf->ret == ty_parse("tuple(int64, int64)"));
        CHECK(fn->blocks.len == 3 && phi->nargs == 1);
    } else {
        CHECK(tf && tf->ret == ty_scalar(TY_INT64));
        CHECK(fn->blocks.len == 3 && join->preds.len == 1 && phi->nargs == 1);
        CHECK(ir_terminator(entry)->op == OP_BR);
    }
    arena_free(arena);
}

/* A variable that is int64 on one path and a tuple on the other is a TypingError naming it. */
static void test_conflict_message(void)
{
    Arena *arena = arena_new();
    IRFunc *fn = new_func(arena, "k", 1);
    Block *entry = ir_new_block(fn, 0), *a = ir_new_block(fn, 10), *join = ir_new_block(fn, 20);
    Instr *c = add(entry, fn, OP_ARG, 0, 1);
    Instr *one = add_const(entry, fn, K_INT, 1);
    one->line = 3;
    Instr *cbr = add(entry, fn, OP_CBR, 1, 3);
    cbr->args[0] = c;
    cbr->succ[0] = a;
    cbr->succ[1] = join;
    ir_add_pred(fn, a, entry);
    Instr *t = add(a, fn, OP_BUILD_TUPLE, 2, 5);
    t->args[0] = t->args[1] = one;
    add(a, fn, OP_BR, 0, 5)->succ[0] = join;
    ir_add_pred(fn, join, entry);
    ir_add_pred(fn, join, a);
    Instr *phi = add(join, fn, OP_PHI, 2, 6);
    phi->var = "x";
    phi->args[0] = one;
    phi->args[1] = t;
    add(join, fn, OP_RET, 1, 6)->args[0] = phi;
    Type *arg = ty_scalar(TY_BOOL);
    Diag diag = {0};
    CHECK(!run(arena, fn, &arg, 1, &diag));
    CHECK(diag.kind == DIAG_TYPING && diag.line == 6);
    CHECK(strstr(diag.message, "variable 'x' is int64 at line 3 and tuple(int64, int64) at line 5"));
    arena_free(arena);
}

int main(void)
{
    test_weak_literal();
    test_loop_phi();
    test_none_folding(false);
    test_none_folding(true);
    test_conflict_message();
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        printf("test_infer: ok\n");
    return failures != 0;
}
