/* test_lower.c: unit tests of the back half (compiler/lower*.c, jit.c) on typed IR built by
 * hand: an int loop sum over range, a float expression and its ZeroDivisionError, an array
 * reduction over a temporary array (reference counts back to zero), and a returned array.
 * The runtime's pj_* functions are stubbed here so no Python is needed.
 * Build: cc -std=c11 -I. -I$(llvm-config-16 --includedir) tests/c/test_lower.c compiler/lower.c
 *   compiler/lower_math.c compiler/lower_array.c compiler/lower_gpu.c compiler/jit.c compiler/target_cpu.c
 *   compiler/target_nvptx.c compiler/ir.c compiler/types.c compiler/arena.c compiler/diag.c
 *   -L$(llvm-config-16 --libdir) -lLLVM-16 -lpthread -lm */
#include "compiler/compiler.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

/* ---- runtime stubs: one per line of compiler/runtime_symbols.def (abi.h declares them from
 * it, so a stub whose signature differs does not compile, and jit.c binds each one) ---- */
static int64_t live;
MemInfo *pj_nrt_alloc(int64_t size)
{
    MemInfo *mi = calloc(1, sizeof *mi);
    mi->refcount = 1;
    mi->size = size;
    mi->data = aligned_alloc(64, (size_t)((size + 63) / 64 * 64 + 64));
    live++;
    return mi;
}
void pj_nrt_incref(MemInfo *mi) { if (mi) mi->refcount++; }
void pj_nrt_decref(MemInfo *mi)
{
    if (mi && --mi->refcount == 0) {
        free(mi->data);
        free(mi);
        live--;
    }
}
int64_t pj_nrt_live(void) { return live; }
void pj_print_i64(int64_t v) { printf("%lld", (long long)v); }
void pj_print_u64(uint64_t v) { printf("%llu", (unsigned long long)v); }
void pj_print_f64(double v) { printf("%g", v); }
void pj_print_c128(double re, double im) { printf("(%g%+gj)", re, im); }
void pj_print_bool(int32_t v) { printf(v ? "True" : "False"); }
void pj_print_str(const char *s) { printf("%s", s); }
void pj_print_sep(int32_t end) { printf(end ? "\n" : " "); }
/* np.random's runtime (runtime/random.c) is not linked here: fixed stand-ins. */
void pj_random_seed(int64_t seed) { (void)seed; }
double pj_random_f64(void) { return 0.5; }
double pj_random_normal(void) { return 0.0; }
int64_t pj_random_randint(int64_t lo, int64_t hi) { (void)hi; return lo; }
void pj_random_fill(double *data, int64_t n, int32_t normal)
{
    for (int64_t i = 0; i < n; i++)
        data[i] = normal ? 0.0 : 0.5;
}
/* Nor is sorting's (runtime/sort.c): stand-ins that fail or do nothing. */
void pj_sort(void *data, int64_t rows, int64_t n, int32_t key) { (void)data; (void)rows; (void)n; (void)key; }
void pj_partition(void *data, int64_t rows, int64_t n, int64_t kth, int32_t key) { (void)data; (void)rows; (void)n; (void)kth; (void)key; }
int32_t pj_argsort(const void *data, int64_t rows, int64_t n, int32_t key, int64_t *out) { (void)data; (void)rows; (void)n; (void)key; (void)out; return -1; }
int32_t pj_argpartition(const void *data, int64_t rows, int64_t n, int64_t kth, int32_t key, int64_t *out) { (void)data; (void)rows; (void)n; (void)kth; (void)key; (void)out; return -1; }

/* ---- building typed IR ---- */
static CompileOptions opts = {.opt_level = 3};

static Instr *emit(IRFunc *fn, Block *b, Opcode op, Type *t, int nargs, ...)
{
    Instr *in = ir_new_instr(fn, op, nargs, 1);
    va_list ap;
    va_start(ap, nargs);
    for (int i = 0; i < nargs; i++)
        in->args[i] = va_arg(ap, Instr *);
    va_end(ap);
    in->type = t;
    ir_append(b, in);
    return in;
}

static Instr *cint(IRFunc *fn, Block *b, int64_t v)
{
    Instr *in = emit(fn, b, OP_CONST, ty_scalar(TY_INT64), 0);
    in->cst = ir_new_const(fn, K_INT);
    in->cst->i = v;
    return in;
}

static Instr *cfloat(IRFunc *fn, Block *b, double v)
{
    Instr *in = emit(fn, b, OP_CONST, ty_scalar(TY_FLOAT64), 0);
    in->cst = ir_new_const(fn, K_FLOAT);
    in->cst->f = v;
    return in;
}

static Instr *arg(IRFunc *fn, Block *b, int i, Type *t)
{
    Instr *in = emit(fn, b, OP_ARG, t, 0);
    in->imm = i;
    return in;
}

static IRFunc *new_func(Arena *a, const char *name, int nargs)
{
    IRFunc *fn = arena_alloc(a, sizeof *fn);
    fn->arena = a;
    fn->name = fn->qualname = name;
    fn->filename = "test_lower.c";
    fn->nargs = nargs;
    return fn;
}

static int compile(Arena *a, IRFunc *fn, Type **argtypes, int nargs, Type *ret, JitCode *code)
{
    Program *prog = arena_alloc(a, sizeof *prog);
    prog->arena = a;
    prog->opts = &opts;
    TypedFunc *tf = arena_alloc(a, sizeof *tf);
    tf->ir = fn;
    tf->argtypes = argtypes;
    tf->nargs = nargs;
    tf->ret = ret;
    tf->symbol = arena_printf(a, "test_%s", fn->name);
    vec_push(a, &prog->funcs, tf);
    Diag diag = {0};
    if (jit_lower(prog, &diag) < 0 || jit_verify(prog, &diag) < 0 ||
        jit_optimise(prog, &diag) < 0 || jit_emit_cpu(prog, code, &diag) < 0) {
        fprintf(stderr, "compile %s: %s\n", fn->name, diag.message);
        return -1;
    }
    if (getenv("TEST_LOWER_DUMP"))
        fprintf(stderr, "%s\n", prog->llvm_dump);
    return 0;
}

/* def f(n): s = 0; for i in range(n): s += i; return s */
static void test_range_sum(void)
{
    Arena *a = arena_new();
    IRFunc *fn = new_func(a, "range_sum", 1);
    Type *i64 = ty_scalar(TY_INT64), *rng = ty_scalar(TY_RANGE);
    Block *b0 = ir_new_block(fn, 0), *b1 = ir_new_block(fn, 2), *b2 = ir_new_block(fn, 4), *b3 = ir_new_block(fn, 6);
    Instr *n = arg(fn, b0, 0, i64), *zero = cint(fn, b0, 0);
    Instr *r = emit(fn, b0, OP_INTRINSIC, rng, 1, n);
    r->sub = BI_RANGE;
    Instr *it = emit(fn, b0, OP_GETITER, ty_iter(rng), 1, r);
    emit(fn, b0, OP_BR, ty_scalar(TY_NONE), 0)->succ[0] = b1;
    ir_add_pred(fn, b1, b0);
    ir_add_pred(fn, b1, b2);
    Instr *s = emit(fn, b1, OP_PHI, i64, 2, zero, NULL);
    Instr *fi = emit(fn, b1, OP_FOR_ITER, i64, 1, it);
    fi->succ[0] = b2;
    fi->succ[1] = b3;
    ir_add_pred(fn, b2, b1);
    ir_add_pred(fn, b3, b1);
    Instr *s2 = emit(fn, b2, OP_BINOP, i64, 2, s, fi);
    s2->sub = BIN_ADD;
    s->args[1] = s2;
    emit(fn, b2, OP_BR, ty_scalar(TY_NONE), 0)->succ[0] = b1;
    emit(fn, b3, OP_RET, ty_scalar(TY_NONE), 1, s);
    Type *args[1] = {i64};
    JitCode code;
    if (compile(a, fn, args, 1, i64, &code) == 0) {
        int64_t nv = 1000, out = -1;
        void *av[1] = {&nv};
        ExcInfo exc = {0};
        CHECK(code.wrapper(av, &out, &exc) == ABI_STATUS_OK);
        CHECK(out == 499500);
        nv = -5;
        CHECK(code.wrapper(av, &out, &exc) == ABI_STATUS_OK && out == 0);
        jit_release(&code);
    } else {
        failures++;
    }
    arena_free(a);
}

/* def g(x, y): return (x * y + 1.5) / (x - y) */
static void test_float_expr(void)
{
    Arena *a = arena_new();
    IRFunc *fn = new_func(a, "float_expr", 2);
    Type *f64 = ty_scalar(TY_FLOAT64);
    Block *b0 = ir_new_block(fn, 0);
    Instr *x = arg(fn, b0, 0, f64), *y = arg(fn, b0, 1, f64);
    Instr *m = emit(fn, b0, OP_BINOP, f64, 2, x, y);
    m->sub = BIN_MUL;
    Instr *p = emit(fn, b0, OP_BINOP, f64, 2, m, cfloat(fn, b0, 1.5));
    p->sub = BIN_ADD;
    Instr *d = emit(fn, b0, OP_BINOP, f64, 2, x, y);
    d->sub = BIN_SUB;
    Instr *q = emit(fn, b0, OP_BINOP, f64, 2, p, d);
    q->sub = BIN_TRUEDIV;
    emit(fn, b0, OP_RET, ty_scalar(TY_NONE), 1, q);
    Type *args[2] = {f64, f64};
    JitCode code;
    if (compile(a, fn, args, 2, f64, &code) == 0) {
        double xv = 3.0, yv = 2.0, out = 0;
        void *av[2] = {&xv, &yv};
        ExcInfo exc = {0};
        CHECK(code.wrapper(av, &out, &exc) == ABI_STATUS_OK && out == 7.5);
        yv = 3.0;
        CHECK(code.wrapper(av, &out, &exc) == ABI_STATUS_ERROR);
        CHECK(exc.kind == ABI_EXC_ZERO_DIVISION && exc.msg && strstr(exc.msg, "division by zero"));
        jit_release(&code);
    } else {
        failures++;
    }
    arena_free(a);
}

/* def h(a): b = a * 2.0; return b.sum()   (and, with ret_array, return b) */
static void test_array(bool ret_array)
{
    Arena *a = arena_new();
    IRFunc *fn = new_func(a, ret_array ? "array_ret" : "array_sum", 1);
    Type *f64 = ty_scalar(TY_FLOAT64), *at = ty_array(f64, 1, 'C', false);
    Block *b0 = ir_new_block(fn, 0);
    Instr *x = arg(fn, b0, 0, at);
    Instr *m = emit(fn, b0, OP_BINOP, at, 2, x, cfloat(fn, b0, 2.0));
    m->sub = BIN_MUL;
    Instr *s = emit(fn, b0, OP_INTRINSIC, f64, 1, m);
    s->sub = BI_ARRAY_SUM;
    emit(fn, b0, OP_RET, ty_scalar(TY_NONE), 1, ret_array ? m : s);
    Type *args[1] = {at};
    JitCode code;
    if (compile(a, fn, args, 1, ret_array ? at : f64, &code) == 0) {
        double data[5] = {1, 2, 3, 4, 5};
        struct { MemInfo *mi; void *parent; char *data; int64_t dims[2]; } desc = {NULL, NULL, (char *)data, {5, 8}};
        struct { MemInfo *mi; void *parent; char *data; int64_t dims[2]; } out = {0};
        double sum = 0;
        void *av[1] = {&desc};
        ExcInfo exc = {0};
        CHECK(code.wrapper(av, ret_array ? (void *)&out : (void *)&sum, &exc) == ABI_STATUS_OK);
        if (ret_array) {
            CHECK(out.mi && out.mi->refcount == 1 && live == 1);
            CHECK(out.dims[0] == 5 && out.dims[1] == 8 && ((double *)out.data)[4] == 10.0);
            pj_nrt_decref(out.mi);
        } else {
            CHECK(sum == 30.0);
        }
        CHECK(live == 0);
        jit_release(&code);
    } else {
        failures++;
    }
    arena_free(a);
}

int main(void)
{
    test_range_sum();
    test_float_expr();
    test_array(false);
    test_array(true);
    if (failures)
        fprintf(stderr, "test_lower: %d failure(s)\n", failures);
    else
        printf("test_lower: ok\n");
    return failures != 0;
}
