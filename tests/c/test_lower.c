/* test_lower.c: unit tests of the back half (compiler/lower*.c, jit.c) on typed IR written as
 * text (what PYJIT_DUMP=types prints): an int loop sum over range, a float expression and its
 * ZeroDivisionError, an array reduction over a temporary array (reference counts back to zero),
 * and a returned array. Each is lowered, verified, optimised and run as CPU code.
 * The runtime's pj_* functions are stubbed here so no Python is needed.
 * Build: cc -std=c11 -I. -I$(llvm-config-16 --includedir) tests/c/test_lower.c compiler/lower.c
 *   compiler/lower_math.c compiler/lower_array.c compiler/lower_gpu.c compiler/jit.c compiler/target_cpu.c
 *   compiler/target_nvptx.c compiler/ir.c compiler/ir_read.c compiler/types.c compiler/arena.c
 *   compiler/diag.c -L$(llvm-config-16 --libdir) -lLLVM-16 -lpthread -lm */
#include "compiler/compiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/c/check.h"

/* ---- runtime stubs: one per line of compiler/runtime_symbols.def (abi.h declares them from
 * it, so a stub whose signature differs does not compile, and jit.c binds each one) ---- */
static int64_t live;
MemInfo *pj_nrt_alloc(int64_t size)   /* the data at ABI_NRT_DATA_OFFSET, as the runtime's */
{
    MemInfo *mi = aligned_alloc(64, (size_t)((size + 63) / 64 * 64 + ABI_NRT_DATA_OFFSET));
    memset(mi, 0, sizeof *mi);
    mi->refcount = 1;
    mi->size = size;
    mi->data = (char *)mi + ABI_NRT_DATA_OFFSET;
    live++;
    return mi;
}
void pj_nrt_incref(MemInfo *mi) { if (mi) mi->refcount++; }
void pj_nrt_free(MemInfo *mi)
{
    free(mi);
    live--;
}
void pj_nrt_decref(MemInfo *mi)
{
    if (mi && --mi->refcount == 0)
        pj_nrt_free(mi);
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
void pj_py_random_seed(int64_t seed) { (void)seed; }
double pj_py_random_random(void) { return 0.5; }
uint32_t pj_py_random_next32(void) { return 0; }
double pj_py_random_gauss(void) { return 0.0; }
double pj_random_normal(void) { return 0.0; }
int64_t pj_random_randint(int64_t lo, int64_t hi) { (void)hi; return lo; }
double pj_random_exponential(void) { return 1.0; }
void *pj_random_state(void) { return NULL; }
double pj_random_f64_at(void *s) { (void)s; return 0.5; }
double pj_random_normal_at(void *s) { (void)s; return 0.0; }
double pj_random_exponential_at(void *s) { (void)s; return 1.0; }
int64_t pj_random_randint_at(void *s, int64_t lo, int64_t hi) { (void)s; (void)hi; return lo; }
double pj_random_gamma(double shape) { return shape; }
double pj_random_beta(double a, double b) { return a / (a + b); }
int64_t pj_random_poisson(double lam) { return (int64_t)lam; }
int64_t pj_random_binomial(int64_t n, double p) { return (int64_t)((double)n * p); }
MemInfo *pj_rng_new(int64_t seed, int32_t seeded) { (void)seed; (void)seeded; return pj_nrt_alloc(64); }
double pj_rng_random(MemInfo *g) { (void)g; return 0.5; }
float pj_rng_random_f(MemInfo *g) { (void)g; return 0.5f; }
double pj_rng_normal(MemInfo *g) { (void)g; return 0.0; }
float pj_rng_normal_f(MemInfo *g) { (void)g; return 0.0f; }
double pj_rng_exponential(MemInfo *g) { (void)g; return 1.0; }
float pj_rng_exponential_f(MemInfo *g) { (void)g; return 1.0f; }
double pj_rng_normal_from(MemInfo *g, uint64_t w) { (void)g; (void)w; return 0.0; }
double pj_rng_exponential_from(MemInfo *g, uint64_t w) { (void)g; (void)w; return 1.0; }
double pj_rng_gamma(MemInfo *g, double shape) { (void)g; return shape; }
float pj_rng_gamma_f(MemInfo *g, float shape) { (void)g; return shape; }
double pj_rng_beta(MemInfo *g, double a, double b) { (void)g; return a / (a + b); }
int64_t pj_rng_poisson(MemInfo *g, double lam) { (void)g; return (int64_t)lam; }
int64_t pj_rng_binomial(MemInfo *g, int64_t n, double p, int32_t corrected) { (void)g; (void)corrected; return (int64_t)((double)n * p); }
uint32_t pj_rng_next32(MemInfo *g) { (void)g; return 7; }
uint64_t pj_rng_bounded(MemInfo *g, uint64_t off, uint64_t rng) { (void)g; (void)rng; return off; }
double pj_rng_pow(double x, double y) { (void)y; return x; }
double pj_rng_loggam(double x) { return x; }
uint64_t pj_rng_interval(MemInfo *g, uint64_t max) { (void)g; return max; }
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
/* Nor is the stack limit's (runtime/stack.c): no limit. */
void *pj_stack_limit(void) { return NULL; }
MemInfo *pj_list_new(int64_t itemsize, int64_t len, const int32_t *refs, int32_t nrefs) { (void)itemsize; (void)len; (void)refs; (void)nrefs; return NULL; }
MemInfo *pj_class_new(int64_t size, const int32_t *refs, int32_t nrefs) { (void)size; (void)refs; (void)nrefs; return NULL; }
MemInfo *pj_array_adopt(void *parent, void *data) { (void)parent; (void)data; return NULL; }
int32_t pj_list_reserve(MemInfo *list, int64_t n) { (void)list; (void)n; return -1; }
/* Nor are dicts' (runtime/dict.c): stand-ins that fail. */
MemInfo *pj_dict_new(int64_t entrysize, int32_t valoff, const int32_t *refs, int32_t nrefs, int64_t n) { (void)entrysize; (void)valoff; (void)refs; (void)nrefs; (void)n; return NULL; }
int64_t pj_dict_grow_slot(MemInfo *dict, int64_t h) { (void)dict; (void)h; return -1; }
MemInfo *pj_dict_copy(MemInfo *dict) { (void)dict; return NULL; }
void pj_dict_clear(MemInfo *dict) { (void)dict; }
int64_t pj_dict_slot_of(MemInfo *dict, int64_t ix) { (void)dict; (void)ix; return 0; }
int64_t pj_hash_double(double v) { (void)v; return 0; }
/* Nor is round(x, n < 0)'s (runtime/round.c): x as it is. */
double pj_round_neg(double x, int64_t ndigits) { (void)ndigits; return x; }
/* Nor is the thread pool's (runtime/pool.c): one thread. */
int32_t pj_parfor(void *wrapper, void **argv, int32_t nargs, int64_t n, ExcInfo *exc) { (void)wrapper; (void)argv; (void)nargs; (void)n; (void)exc; return 0; }
int32_t pj_pool_for(void *fn, void *ctx, int64_t n, ExcInfo *exc) { (void)fn; (void)ctx; (void)n; (void)exc; return 0; }
int64_t pj_num_threads(void) { return 1; }
int64_t pj_thread_id(void) { return 0; }
int64_t pj_set_parallel_chunksize(int64_t n) { return n; }
int64_t pj_get_parallel_chunksize(void) { return 0; }
/* Nor is the CPU simulator's (simulator/sim.c): no barrier waits. */
int32_t pj_sim_barrier(AbiSimThread *t, int32_t op, int32_t pred, int32_t site) { (void)t; (void)op; (void)site; return pred; }
int64_t pj_sim_warp(AbiSimThread *t, int32_t kind, int32_t mask, int64_t value, int32_t arg, int32_t site) { (void)t; (void)kind; (void)mask; (void)arg; (void)site; return value; }
void *pj_sim_scratch(AbiSimThread *t, int64_t bytes) { (void)t; (void)bytes; return NULL; }
int64_t pj_sim_regions_sync(AbiSimThread *t, int32_t *at, const int32_t *pred, const int32_t *sites, const int64_t *wval, int64_t *wres, const int32_t *wmask, const int32_t *warg) { (void)t; (void)at; (void)pred; (void)sites; (void)wval; (void)wres; (void)wmask; (void)warg; return 0; }
int32_t pj_sim_race(AbiSimThread *t, char *p, int64_t size, int32_t write, const AbiSimRaceSite *site, int64_t i0, int64_t i1, int64_t i2, int64_t i3) { (void)t; (void)p; (void)size; (void)write; (void)site; (void)i0; (void)i1; (void)i2; (void)i3; return 0; }
/* Nor is the strings' (runtime/str.c): stand-ins that fail (NULL: out of memory) or give 0. */
MemInfo *pj_str_concat(MemInfo *a, MemInfo *b) { (void)a; (void)b; return NULL; }
MemInfo *pj_str_repeat(MemInfo *s, int64_t n) { (void)s; (void)n; return NULL; }
MemInfo *pj_str_slice(MemInfo *s, int64_t start, int64_t step, int64_t n) { (void)s; (void)start; (void)step; (void)n; return NULL; }
int32_t pj_str_compare(MemInfo *a, MemInfo *b) { (void)a; (void)b; return 0; }
int32_t pj_str_equal(MemInfo *a, MemInfo *b) { return a == b; }
void pj_str_sort(MemInfo **items, int64_t n) { (void)items; (void)n; }
int64_t pj_str_hash(MemInfo *s) { (void)s; return 0; }
int64_t pj_str_find(MemInfo *s, MemInfo *sub, int64_t start, int64_t end, int32_t how) { (void)s; (void)sub; (void)start; (void)end; (void)how; return -1; }
/* Nor is linalg.c's: LAPACK is missing (LA_NO_SCIPY), BLAS declines */
int64_t pj_la_getrf(int32_t kind, int64_t m, int64_t n, void *a, void *ipiv) { (void)kind; (void)m; (void)n; (void)a; (void)ipiv; return -1001; }
int64_t pj_la_getri(int32_t kind, int64_t n, void *a, void *ipiv) { (void)kind; (void)n; (void)a; (void)ipiv; return -1001; }
int64_t pj_la_gesv(int32_t kind, int64_t n, int64_t nrhs, void *a, void *b) { (void)kind; (void)n; (void)nrhs; (void)a; (void)b; return -1001; }
int64_t pj_la_potrf(int32_t kind, int64_t uplo, int64_t n, void *a) { (void)kind; (void)uplo; (void)n; (void)a; return -1001; }
int64_t pj_la_syevd(int32_t kind, int64_t jobz, int64_t uplo, int64_t n, void *a, void *w) { (void)kind; (void)jobz; (void)uplo; (void)n; (void)a; (void)w; return -1001; }
int64_t pj_la_geev(int32_t kind, int64_t jobv, int64_t n, void *a, void *w, void *v) { (void)kind; (void)jobv; (void)n; (void)a; (void)w; (void)v; return -1001; }
int64_t pj_la_gesdd(int32_t kind, int64_t jobz, int64_t m, int64_t n, void *a, void *s, void *u, void *vt) { (void)kind; (void)jobz; (void)m; (void)n; (void)a; (void)s; (void)u; (void)vt; return -1001; }
int64_t pj_la_gelsd(int32_t kind, int64_t m, int64_t n, int64_t nrhs, void *a, void *b, void *s, double rcond, void *rank) { (void)kind; (void)m; (void)n; (void)nrhs; (void)a; (void)b; (void)s; (void)rcond; (void)rank; return -1001; }
int64_t pj_la_geqrf(int32_t kind, int64_t m, int64_t n, void *a, void *tau) { (void)kind; (void)m; (void)n; (void)a; (void)tau; return -1001; }
int64_t pj_la_orgqr(int32_t kind, int64_t m, int64_t n, int64_t k, void *a, void *tau) { (void)kind; (void)m; (void)n; (void)k; (void)a; (void)tau; return -1001; }
int32_t pj_la_dot(int32_t kind, int64_t m, int64_t n, int64_t k, char *a, int64_t sa0, int64_t sa1, char *b, int64_t sb0, int64_t sb1, char *c) { (void)kind; (void)m; (void)n; (void)k; (void)a; (void)sa0; (void)sa1; (void)b; (void)sb0; (void)sb1; (void)c; return 1; }
int32_t pj_str_to_int(MemInfo *s, int64_t *out) { (void)s; *out = 0; return -1; }
int32_t pj_str_to_float(MemInfo *s, double *out) { (void)s; *out = 0; return -1; }
MemInfo *pj_str_from_int(int64_t v) { (void)v; return NULL; }
MemInfo *pj_str_from_uint(uint64_t v) { (void)v; return NULL; }
MemInfo *pj_str_from_float(double v) { (void)v; return NULL; }
MemInfo *pj_str_intern(const void *data, int64_t length, int32_t kind) { (void)data; (void)length; (void)kind; return NULL; }
MemInfo *pj_str_chr(int64_t cp) { (void)cp; return NULL; }
MemInfo *pj_str_from_ucs4(const uint32_t *p, int64_t n) { (void)p; (void)n; return NULL; }
void pj_str_to_ucs4(MemInfo *s, uint32_t *p, int64_t n) { (void)s; (void)p; (void)n; }
int64_t pj_str_char(MemInfo *s, int64_t i) { (void)s; (void)i; return 0; }
MemInfo *pj_str_split(MemInfo *s, MemInfo *sep, int64_t maxsplit) { (void)s; (void)sep; (void)maxsplit; return NULL; }
MemInfo *pj_str_join(MemInfo *sep, MemInfo *const *items, int64_t n) { (void)sep; (void)items; (void)n; return NULL; }
MemInfo *pj_str_join_chars(MemInfo *sep, MemInfo *s) { (void)sep; (void)s; return NULL; }
MemInfo *pj_str_strip(MemInfo *s, MemInfo *chars, int32_t sides) { (void)s; (void)chars; (void)sides; return NULL; }
MemInfo *pj_str_case(MemInfo *s, int32_t how) { (void)s; (void)how; return NULL; }
MemInfo *pj_str_replace(MemInfo *s, MemInfo *old, MemInfo *new_, int64_t count) { (void)s; (void)old; (void)new_; (void)count; return NULL; }
int32_t pj_str_is(MemInfo *s, int32_t what) { (void)s; (void)what; return 0; }
MemInfo *pj_str_repr(MemInfo *s) { (void)s; return NULL; }
void pj_str_print(MemInfo *s, int32_t quoted) { (void)s; (void)quoted; }
int32_t pj_exc_matches(const ExcInfo *saved, void *cls) { (void)saved; (void)cls; return 0; }
void pj_exc_reraise(ExcInfo *exc, const ExcInfo *saved) { *exc = *saved; }
void pj_exc_release(ExcInfo *saved) { saved->kind = ABI_EXC_NONE; }
MemInfo *pj_exc_str(const ExcInfo *saved) { (void)saved; return NULL; }
void pj_cfunc_error(const ExcInfo *exc, const char *name) { (void)exc; (void)name; }
int32_t pj_objmode_call(void *fn, int32_t nargs, void *const *args, const char *const *typenames,
                        const char *ret, void *out, ExcInfo *exc)
{
    (void)fn; (void)nargs; (void)args; (void)typenames; (void)ret; (void)out; (void)exc;
    return 1;
}
void pj_print_boxed(const char *typename, void *value, int32_t quoted)
{
    (void)typename; (void)value; (void)quoted;
}

/* ---- typed IR from text, through the stages after inference ---- */
static CompileOptions opts = {.opt_level = 3};

/* The function of typed IR text, its signature read off its args and its return. */
static TypedFunc *read_typed(Arena *a, const char *text, Diag *diag)
{
    IRFunc *fn = ir_read(a, text, diag);
    if (!fn)
        return NULL;
    TypedFunc *tf = arena_alloc(a, sizeof *tf);
    tf->ir = fn;
    tf->nargs = fn->nargs;
    tf->argtypes = arena_alloc(a, sizeof *tf->argtypes * (size_t)(fn->nargs + 1));
    tf->ret = ty_scalar(TY_NONE);
    tf->symbol = arena_printf(a, "test_%s", fn->name);
    for (int i = 0; i < fn->blocks.len; i++) {
        Block *b = fn->blocks.items[i];
        for (int j = 0; j < b->instrs.len; j++) {
            Instr *in = b->instrs.items[j];
            if (in->op == OP_ARG && in->imm >= 0 && in->imm < fn->nargs)
                tf->argtypes[in->imm] = in->type;
            else if (in->op == OP_RET && in->nargs == 1)
                tf->ret = in->args[0]->type;
        }
    }
    return ir_check_typed(tf, diag) < 0 ? NULL : tf;
}

/* Typed IR text to CPU code: lowering, verification, optimisation, emission, as the pipeline
 * calls them. TEST_LOWER_DUMP=1 prints the optimised LLVM IR. */
static int compile(Arena *a, const char *typed, JitCode *code)
{
    Program *prog = arena_alloc(a, sizeof *prog);
    prog->arena = a;
    prog->opts = &opts;
    Diag diag = {0};
    TypedFunc *tf = read_typed(a, typed, &diag);
    if (tf)
        vec_push(a, &prog->funcs, tf);
    if (!tf || jit_lower(prog, &diag) < 0 || jit_verify(prog, &diag) < 0 ||
        jit_optimise(prog, &diag) < 0 || jit_emit_cpu(prog, code, &diag) < 0) {
        fprintf(stderr, "compile: %s\n", diag.message);
        return -1;
    }
    if (getenv("TEST_LOWER_DUMP"))
        fprintf(stderr, "%s\n", prog->llvm_dump);
    return 0;
}

/* def range_sum(n):
 *     s = 0
 *     for i in range(n): s += i
 *     return s */
static void test_range_sum(void)
{
    Arena *a = arena_new();
    JitCode code;
    if (compile(a,
                "function range_sum(n)\n"
                "\n"
                "b0:  ; offset 0\n"
                "  %0 = arg 0 : int64                        ; line 1, n\n"
                "  %1 = const 0 : int64                      ; line 2, s\n"
                "  %3 = intrinsic builtins.range %0 : range  ; line 3\n"
                "  %4 = getiter %3 : iter(range)             ; line 3\n"
                "  br b1 : none                              ; line 3\n"
                "\n"
                "b1:  ; offset 36, preds b0, b2\n"
                "  %8 = phi [b0: %1], [b2: %9] : int64       ; line 3, s\n"
                "  %7 = for_iter %4 ? b2 : b3 : int64        ; line 3, i\n"
                "\n"
                "b2:  ; offset 38, preds b1\n"
                "  %9 = binop add= %8, %7 : int64            ; line 3, s\n"
                "  br b1 : none                              ; line 3\n"
                "\n"
                "b3:  ; offset 52, preds b1\n"
                "  ret %8 : none                             ; line 4\n",
                &code) == 0) {
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

/* def float_expr(x, y): return (x * y + 1.5) / (x - y) */
static void test_float_expr(void)
{
    Arena *a = arena_new();
    JitCode code;
    if (compile(a,
                "function float_expr(x, y)\n"
                "\n"
                "b0:  ; offset 0\n"
                "  %0 = arg 0 : float64                      ; line 1, x\n"
                "  %1 = arg 1 : float64                      ; line 1, y\n"
                "  %2 = binop mul %0, %1 : float64           ; line 2\n"
                "  %3 = const 1.5 : float64                  ; line 2\n"
                "  %4 = binop add %2, %3 : float64           ; line 2\n"
                "  %5 = binop sub %0, %1 : float64           ; line 2\n"
                "  %6 = binop truediv %4, %5 : float64       ; line 2\n"
                "  ret %6 : none                             ; line 2\n",
                &code) == 0) {
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

/* def array_sum(a):            def array_ret(a):
 *     b = a * 2.0                  b = a * 2.0
 *     return b.sum()               return b */
static const char *array_sum_text =
    "function array_sum(a)\n"
    "\n"
    "b0:  ; offset 0\n"
    "  %0 = arg 0 : array(float64, 1d, C)        ; line 1, a\n"
    "  %1 = const 2.0 : float64                  ; line 2\n"
    "  %2 = binop mul %0, %1 : array(float64, 1d, C) ; line 2, b\n"
    "  %4 = intrinsic method.array.sum %2 : float64 ; line 3\n"
    "  ret %4 : none                             ; line 3\n";

static const char *array_ret_text =
    "function array_ret(a)\n"
    "\n"
    "b0:  ; offset 0\n"
    "  %0 = arg 0 : array(float64, 1d, C)        ; line 1, a\n"
    "  %1 = const 2.0 : float64                  ; line 2\n"
    "  %2 = binop mul %0, %1 : array(float64, 1d, C) ; line 2, b\n"
    "  ret %2 : none                             ; line 3\n";

static void test_array(bool ret_array)
{
    Arena *a = arena_new();
    JitCode code;
    if (compile(a, ret_array ? array_ret_text : array_sum_text, &code) == 0) {
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
    return check_report("test_lower");
}
