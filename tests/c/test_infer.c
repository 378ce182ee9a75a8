/* test_infer.c: unit tests of type inference (compiler/infer*.c), written as IR text, no Python.
 * Each case is the untyped IR of a small function as PYJIT_DUMP=ssa prints it, the argument
 * types it is inferred for, and the typed IR expected as PYJIT_DUMP=types prints it (less the
 * symbol): weak literals (NEP 50), phis in loops, folded `is None` branches, a tuple, float32
 * promotion, an int/float compare, a declared return type, and a typing error's message. */
#include "compiler/compiler.h"

#include <stdio.h>
#include <string.h>

#include "tests/c/check.h"

#define MAX_ARGS 8

/* Reads the untyped IR, checks it as the pipeline does with PYJIT_DEBUG=1, and infers it for
 * the argument types named in args (NULL-terminated, ty_parse names) and the declared return
 * type ret (a name, or NULL). The types dump is left in prog->types_dump. */
static TypedFunc *infer_text(Program *prog, const char *untyped, const char *const *args,
                             const char *ret, Diag *diag)
{
    static CompileOptions opts = {.opt_level = 3, .debug = true};
    static CompilerHost host;
    IRFunc *fn = ir_read(prog->arena, untyped, diag);
    if (!fn || ir_check(fn, false, diag) < 0)
        return NULL;
    Type *argtypes[MAX_ARGS];
    int nargs = 0;
    for (; nargs < MAX_ARGS && args[nargs]; nargs++)
        argtypes[nargs] = ty_parse(args[nargs]);
    prog->opts = &opts;
    prog->host = &host;
    return infer_program(prog, fn, argtypes, nargs, ret ? ty_parse(ret) : NULL, diag);
}

/* The types dump less its header's "  [symbol]" (symbols are numbered per process). */
static char *without_symbol(Arena *arena, const char *dump)
{
    const char *sym = strstr(dump, "  ["), *end = sym ? strstr(sym, "]\n") : NULL;
    if (!end)
        return arena_strdup(arena, dump);
    return arena_printf(arena, "%.*s%s", (int)(sym - dump), dump, end + 1);
}

/* untyped, inferred for args (and ret), prints exactly typed. */
static void expect_types(const char *untyped, const char *const *args, const char *ret,
                         const char *typed)
{
    Arena *arena = arena_new();
    Program prog = {.arena = arena};
    Diag diag = {0};
    TypedFunc *tf = infer_text(&prog, untyped, args, ret, &diag);
    CHECK(tf != NULL);
    if (tf) {
        const char *got = without_symbol(arena, prog.types_dump);
        CHECK(strcmp(got, typed) == 0);
        if (strcmp(got, typed) != 0)
            fprintf(stderr, "  expected:\n%s  got:\n%s", typed, got);
    } else {
        fprintf(stderr, "  %s\n", diag.message);
    }
    arena_free(arena);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* def f(x): return x * 2.0  for a float32 x stays float32: the literal is cast, not x. */
static void test_weak_literal(void)
{
    expect_types(
        "function f(x)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0                                ; line 1, x\n"
        "  %1 = const 2.0                            ; line 2\n"
        "  %2 = binop mul %0, %1                     ; line 2\n"
        "  ret %2                                    ; line 2\n",
        ARGS("float32"), NULL,
        "# f(float32) -> float32\n"
        "function f(x)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0 : float32                      ; line 1, x\n"
        "  %1 = const 2.0 : float64                  ; line 2\n"
        "  %4 = cast %1 : float32                    ; line 2\n"
        "  %2 = binop mul %0, %4 : float32           ; line 2\n"
        "  ret %2 : none                             ; line 2\n");
}

/* def g(x, c):
 *     s = 0
 *     while c: s = s + x
 *     return s
 * with x float32: both phis are float32, and the literal is cast in the entry block, before its
 * terminator, once for each phi that takes it. */
static void test_loop_phi(void)
{
    expect_types(
        "function g(x, c)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0                                ; line 1, x\n"
        "  %1 = arg 1                                ; line 1, c\n"
        "  %2 = const 0                              ; line 2, s\n"
        "  cbr %1 ? b1 : b2                          ; line 3\n"
        "\n"
        "b1:  ; offset 10, preds b0, b1\n"
        "  %4 = phi [b0: %2], [b1: %6]               ; line 4, s\n"
        "  %6 = binop add %4, %0                     ; line 4, s\n"
        "  cbr %1 ? b1 : b2                          ; line 3\n"
        "\n"
        "b2:  ; offset 24, preds b0, b1\n"
        "  %9 = phi [b0: %2], [b1: %6]               ; line 5, s\n"
        "  ret %9                                    ; line 5\n",
        ARGS("float32", "bool"), NULL,
        "# g(float32, bool) -> float32\n"
        "function g(x, c)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0 : float32                      ; line 1, x\n"
        "  %1 = arg 1 : bool                         ; line 1, c\n"
        "  %2 = const 0 : int64                      ; line 2, s\n"
        "  %13 = cast %2 : float32                   ; line 3\n"
        "  %14 = cast %2 : float32                   ; line 3\n"
        "  cbr %1 ? b1 : b2 : none                   ; line 3\n"
        "\n"
        "b1:  ; offset 10, preds b0, b1\n"
        "  %4 = phi [b0: %13], [b1: %6] : float32    ; line 4, s\n"
        "  %6 = binop add %4, %0 : float32           ; line 4, s\n"
        "  cbr %1 ? b1 : b2 : none                   ; line 3\n"
        "\n"
        "b2:  ; offset 24, preds b0, b1\n"
        "  %9 = phi [b0: %14], [b1: %6] : float32    ; line 5, s\n"
        "  ret %9 : none                             ; line 5\n");
}

/* def h(b):
 *     if b is None: r = 1
 *     else: r = (2, 2)
 *     return r
 * `b is not None` is known from b's type, so one branch is dead and r has one type. */
static const char *none_test =
    "function h(b)\n"
    "\n"
    "b0:  ; offset 0\n"
    "  %0 = arg 0                                ; line 1, b\n"
    "  %1 = const None                           ; line 2\n"
    "  %2 = compare isnot %0, %1                 ; line 2\n"
    "  cbr %2 ? b2 : b1                          ; line 2\n"
    "\n"
    "b1:  ; offset 6, preds b0\n"
    "  %4 = const 1                              ; line 3, r\n"
    "  br b3                                     ; line 3\n"
    "\n"
    "b2:  ; offset 12, preds b0\n"
    "  %6 = const (2, 2)                         ; line 5, r\n"
    "  br b3                                     ; line 5\n"
    "\n"
    "b3:  ; offset 16, preds b1, b2\n"
    "  %8 = phi [b1: %4], [b2: %6]               ; line 6, r\n"
    "  ret %8                                    ; line 6\n";

static void test_none_folding(void)
{
    expect_types(none_test, ARGS("none"), NULL,
                 "# h(none) -> int64\n"
                 "function h(b)\n"
                 "\n"
                 "b0:  ; offset 0\n"
                 "  %0 = arg 0 : none                         ; line 1, b\n"
                 "  br b1 : none                              ; line 2\n"
                 "\n"
                 "b1:  ; offset 6, preds b0\n"
                 "  %4 = const 1 : int64                      ; line 3, r\n"
                 "  br b2 : none                              ; line 3\n"
                 "\n"
                 "b2:  ; offset 16, preds b1\n"
                 "  %8 = phi [b1: %4] : int64                 ; line 6, r\n"
                 "  ret %8 : none                             ; line 6\n");
    expect_types(none_test, ARGS("int64"), NULL,
                 "# h(int64) -> tuple(int64, int64)\n"
                 "function h(b)\n"
                 "\n"
                 "b0:  ; offset 0\n"
                 "  %0 = arg 0 : int64                        ; line 1, b\n"
                 "  br b1 : none                              ; line 2\n"
                 "\n"
                 "b1:  ; offset 12, preds b0\n"
                 "  %6 = const (2, 2) : tuple(int64, int64)   ; line 5, r\n"
                 "  br b2 : none                              ; line 5\n"
                 "\n"
                 "b2:  ; offset 16, preds b1\n"
                 "  %8 = phi [b1: %6] : tuple(int64, int64)   ; line 6, r\n"
                 "  ret %8 : none                             ; line 6\n");
}

/* def t(a, b):
 *     p = (a, b * 2)
 *     return p[1] + a
 * The tuple keeps b's float32; its item is read by a constant index (static_get), and float32
 * with int64 promotes to float64 (both cast). */
static void test_tuple(void)
{
    expect_types(
        "function t(a, b)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0                                ; line 1, a\n"
        "  %1 = arg 1                                ; line 1, b\n"
        "  %2 = const 2                              ; line 2\n"
        "  %3 = binop mul %1, %2                     ; line 2\n"
        "  %4 = build_tuple %0, %3                   ; line 2, p\n"
        "  %5 = const 1                              ; line 3\n"
        "  %6 = getitem %4, %5                       ; line 3\n"
        "  %7 = binop add %6, %0                     ; line 3\n"
        "  ret %7                                    ; line 3\n",
        ARGS("int64", "float32"), NULL,
        "# t(int64, float32) -> float64\n"
        "function t(a, b)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0 : int64                        ; line 1, a\n"
        "  %1 = arg 1 : float32                      ; line 1, b\n"
        "  %2 = const 2 : int64                      ; line 2\n"
        "  %9 = cast %2 : float32                    ; line 2\n"
        "  %3 = binop mul %1, %9 : float32           ; line 2\n"
        "  %4 = build_tuple %0, %3 : tuple(int64, float32) ; line 2, p\n"
        "  %6 = static_get %4 [1] : float32          ; line 3\n"
        "  %10 = cast %6 : float64                   ; line 3\n"
        "  %11 = cast %0 : float64                   ; line 3\n"
        "  %7 = binop add %10, %11 : float64         ; line 3\n"
        "  ret %7 : none                             ; line 3\n");
}

/* def p(x, y): return x * y  -- float32 with int16 stays float32 (a float32 holds every int16),
 * with int32 it is float64, as numpy.result_type says. */
static const char *mul_test =
    "function p(x, y)\n"
    "\n"
    "b0:  ; offset 0\n"
    "  %0 = arg 0                                ; line 1, x\n"
    "  %1 = arg 1                                ; line 1, y\n"
    "  %2 = binop mul %0, %1                     ; line 2\n"
    "  ret %2                                    ; line 2\n";

static void test_float32_promotion(void)
{
    expect_types(mul_test, ARGS("float32", "int16"), NULL,
                 "# p(float32, int16) -> float32\n"
                 "function p(x, y)\n"
                 "\n"
                 "b0:  ; offset 0\n"
                 "  %0 = arg 0 : float32                      ; line 1, x\n"
                 "  %1 = arg 1 : int16                        ; line 1, y\n"
                 "  %4 = cast %1 : float32                    ; line 2\n"
                 "  %2 = binop mul %0, %4 : float32           ; line 2\n"
                 "  ret %2 : none                             ; line 2\n");
    expect_types(mul_test, ARGS("float32", "int32"), NULL,
                 "# p(float32, int32) -> float64\n"
                 "function p(x, y)\n"
                 "\n"
                 "b0:  ; offset 0\n"
                 "  %0 = arg 0 : float32                      ; line 1, x\n"
                 "  %1 = arg 1 : int32                        ; line 1, y\n"
                 "  %4 = cast %0 : float64                    ; line 2\n"
                 "  %5 = cast %1 : float64                    ; line 2\n"
                 "  %2 = binop mul %4, %5 : float64           ; line 2\n"
                 "  ret %2 : none                             ; line 2\n");
}

/* def c(i, x): return i < x  -- an int64 and a float64 compare as they are (exactly, as Python
 * does: no cast of the int that could round it); the result is bool. */
static void test_int_float_compare(void)
{
    expect_types(
        "function c(i, x)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0                                ; line 1, i\n"
        "  %1 = arg 1                                ; line 1, x\n"
        "  %2 = compare lt %0, %1                    ; line 2\n"
        "  ret %2                                    ; line 2\n",
        ARGS("int64", "float64"), NULL,
        "# c(int64, float64) -> bool\n"
        "function c(i, x)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0 : int64                        ; line 1, i\n"
        "  %1 = arg 1 : float64                      ; line 1, x\n"
        "  %2 = compare lt %0, %1 : bool             ; line 2\n"
        "  ret %2 : none                             ; line 2\n");
}

/* @njit("float64(int64)") def r(n): return n + 1  -- the sum is int64, cast to the declared
 * float64 before the return. */
static void test_declared_return(void)
{
    expect_types(
        "function r(n)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0                                ; line 1, n\n"
        "  %1 = const 1                              ; line 2\n"
        "  %2 = binop add %0, %1                     ; line 2\n"
        "  ret %2                                    ; line 2\n",
        ARGS("int64"), "float64",
        "# r(int64) -> float64\n"
        "function r(n)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0 : int64                        ; line 1, n\n"
        "  %1 = const 1 : int64                      ; line 2\n"
        "  %2 = binop add %0, %1 : int64             ; line 2\n"
        "  %4 = cast %2 : float64                    ; line 2\n"
        "  ret %4 : none                             ; line 2\n");
}

/* def k(c):
 *     x = 1
 *     if c: x = (1, 1)
 *     return x
 * x is int64 on one path and a tuple on the other: a TypingError naming it, at the join. */
static void test_conflict_message(void)
{
    Arena *arena = arena_new();
    Program prog = {.arena = arena};
    Diag diag = {0};
    CHECK(!infer_text(&prog,
                      "function k(c)\n"
                      "\n"
                      "b0:  ; offset 0\n"
                      "  %0 = arg 0                                ; line 1, c\n"
                      "  %1 = const 1                              ; line 2, x\n"
                      "  cbr %0 ? b1 : b2                          ; line 3\n"
                      "\n"
                      "b1:  ; offset 10, preds b0\n"
                      "  %3 = const (1, 1)                         ; line 4, x\n"
                      "  br b2                                     ; line 4\n"
                      "\n"
                      "b2:  ; offset 14, preds b0, b1\n"
                      "  %5 = phi [b0: %1], [b1: %3]               ; line 5, x\n"
                      "  ret %5                                    ; line 5\n",
                      ARGS("bool"), NULL, &diag));
    CHECK(diag.kind == DIAG_TYPING && diag.line == 5);
    CHECK(strstr(diag.message, "variable 'x' is int64 at line 2 and tuple(int64, int64) at line 4"));
    arena_free(arena);
}

int main(void)
{
    test_weak_literal();
    test_loop_phi();
    test_none_folding();
    test_tuple();
    test_float32_promotion();
    test_int_float_compare();
    test_declared_return();
    test_conflict_message();
    return check_report("test_infer");
}
