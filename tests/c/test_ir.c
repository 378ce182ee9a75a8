/* test_ir.c: the IR text reader (compiler/ir_read.c) and the typed IR checker (ir_check):
 * dumps read back print the same text, and typed IR that breaks ir.h's contract is refused
 * with a diagnostic naming the instruction. */
#include "compiler/compiler.h"

#include <stdio.h>
#include <string.h>

#include "tests/c/check.h"

static const char *typed_text =
    "function f(a, n)\n"
    "\n"
    "b0:  ; offset 0\n"
    "  %0 = arg 0 : array(float64, 1d, C)        ; line 3, a\n"
    "  %1 = arg 1 : int64                        ; line 3, n\n"
    "  %2 = const 0.0 : float64                  ; line 5, s\n"
    "  %4 = intrinsic builtins.range %1 : range  ; line 6\n"
    "  %5 = getiter %4 : iter(range)             ; line 6\n"
    "  br b1 : none                              ; line 6\n"
    "\n"
    "b1:  ; offset 36, preds b0, b2\n"
    "  %14 = phi [b0: %2], [b2: %18] : float64   ; line 6, s\n"
    "  %8 = for_iter %5 ? b2 : b3 : int64        ; line 6, i\n"
    "\n"
    "b2:  ; offset 38, preds b1\n"
    "  %10 = array_get %0, %8 : float64          ; line 7\n"
    "  %18 = binop add= %14, %10 : float64       ; line 8, s\n"
    "  br b1 : none                              ; line 8\n"
    "\n"
    "b3:  ; offset 94, preds b1\n"
    "  %24 = const (1, 2.5, 'a\\'b', (1.5-2.0j), None, True) : tuple(int64, float64) ; line 9, t\n"
    "  %26 = static_get %24 [1] : float64        ; line 10\n"
    "  %27 = binop add %14, %26 : float64        ; line 10\n"
    "  ret %27 : none                            ; line 10\n";

static void test_round_trip(bool typed)
{
    Arena *a = arena_new();
    Diag diag = {0};
    IRFunc *fn = ir_read(a, typed_text, &diag);
    CHECK(fn != NULL);
    if (fn) {
        char *once = ir_dump(fn, typed);
        IRFunc *again = ir_read(a, once, &diag);
        CHECK(again && strcmp(ir_dump(again, typed), once) == 0);
        if (typed)
            CHECK(strcmp(once, typed_text) == 0);
        CHECK(ir_check(fn, false, &diag) == 0);
    }
    if (diag.kind)
        fprintf(stderr, "%s\n", diag.message);
    arena_free(a);
}

/* Untyped text, where a constant ends its line: an int stays an int. */
static void test_untyped_round_trip(void)
{
    static const char *text =
        "function g(n)\n"
        "\n"
        "b0:  ; offset 0\n"
        "  %0 = arg 0                                ; line 1, n\n"
        "  %1 = const 0                              ; line 2\n"
        "  %2 = const -3                             ; line 2\n"
        "  %3 = const 1e+20                          ; line 2\n"
        "  %4 = binop add %0, %1                     ; line 2\n"
        "  ret %4                                    ; line 2\n";
    Arena *a = arena_new();
    Diag diag = {0};
    IRFunc *fn = ir_read(a, text, &diag);
    CHECK(fn && strcmp(ir_dump(fn, false), text) == 0);
    if (fn) {
        Block *b = fn->blocks.items[0];
        CHECK(((Instr *)b->instrs.items[1])->cst->kind == K_INT);
        CHECK(((Instr *)b->instrs.items[2])->cst->kind == K_INT);
        CHECK(((Instr *)b->instrs.items[3])->cst->kind == K_FLOAT);
    }
    arena_free(a);
}

/* typed_text with its first `from` replaced by `to`, into text. */
static void replace_in_typed_text(const char *from, const char *to, char *text, size_t size)
{
    const char *at = strstr(typed_text, from);
    snprintf(text, size, "%.*s%s%s", (int)(at - typed_text), typed_text, to, at + strlen(from));
}

/* Each line replaced breaks the contract in one way: the checker names that instruction. */
static void expect_violation(const char *from, const char *to, const char *message)
{
    char text[4096];
    replace_in_typed_text(from, to, text, sizeof text);
    Arena *a = arena_new();
    Diag diag = {0};
    IRFunc *fn = ir_read(a, text, &diag);
    CHECK(fn && diag.kind == DIAG_NONE);
    if (fn) {
        CHECK(ir_check(fn, false, &diag) == 0);
        CHECK(ir_check(fn, true, &diag) == -1);
        CHECK(diag.kind == DIAG_INTERNAL && strstr(diag.message, message));
        if (!strstr(diag.message, message))
            fprintf(stderr, "  got: %s\n", diag.message);
    }
    arena_free(a);
}

static void test_checker(void)
{
    Arena *a = arena_new();
    Diag diag = {0};
    IRFunc *fn = ir_read(a, typed_text, &diag);
    CHECK(fn && ir_check(fn, true, &diag) == 0);
    arena_free(a);
    expect_violation("%10 = array_get %0, %8 : float64", "%10 = getitem %0, %8 : float64",
                     "in f: %10 (getitem) at line 7: remains after inference");
    expect_violation("%2 = const 0.0 : float64", "%2 = const 0.0 : float32",
                     "%14 (phi) at line 6: phi is float64 but its input from b0 (%2) is float32");
    expect_violation("%27 = binop add %14, %26 : float64", "%27 = binop add %14, %26 : int64",
                     "%27 (binop) at line 10: args float64 and float64 and result int64");
    expect_violation("%10 = array_get %0, %8", "%10 = compare is %0, %8",
                     "%10 (compare) at line 7: is/is not/in/not in remains");
    expect_violation("%2 = const 0.0 : float64", "%2 = const 0.0 : weak float64",
                     "%2 (const) at line 5: weak type weak float64 remains");
    expect_violation("%5 = getiter %4 : iter(range)", "%5 = getiter %4 : range",
                     "%5 (getiter) at line 6: result is range");
    expect_violation("%26 = static_get %24 [1]", "%26 = static_get %24 [7]",
                     "item 7 of tuple(int64, float64) is not float64");
}

/* Malformed text is refused with a diagnostic, never read past its end. */
static void expect_refused(const char *from, const char *to, const char *message)
{
    char text[4096];
    replace_in_typed_text(from, to, text, sizeof text);
    Arena *a = arena_new();
    Diag diag = {0};
    CHECK(ir_read(a, text, &diag) == NULL);
    CHECK(diag.kind == DIAG_VALUE_ERROR && strstr(diag.message, message));
    if (!strstr(diag.message, message))
        fprintf(stderr, "  expected '%s', got: %s\n", message, diag.message);
    arena_free(a);
}

static void test_malformed(void)
{
    /* a string ending in \x, or \x with fewer than two hex digits */
    expect_refused("%2 = const 0.0 : float64", "%2 = const '\\x : float64",
                   "cannot read the instruction");
    expect_refused("%2 = const 0.0 : float64", "%2 = const '\\x4' : float64",
                   "cannot read the instruction");
    expect_refused("%2 = const 0.0 : float64", "%2 = const '\\x", "cannot read the instruction");
    /* value numbers past int, and operands past the limit */
    expect_refused("%2 = const 0.0", "%4294967298 = const 0.0", "value number too large");
    expect_refused("%2 = const 0.0", "%2147483647 = const 0.0", "value number too large");
    expect_refused("%27 = binop add %14, %26", "%27 = binop add %14, %99999999999",
                   "operand value number out of range");
    expect_refused("%27 = binop add", "%27 = binop plus", "cannot read the instruction");
    /* a large value number within the limit still reads */
    Arena *a = arena_new();
    Diag diag = {0};
    const char *at = strstr(typed_text, "%27 = ");
    char text[4096];
    snprintf(text, sizeof text, "%.*s%%100000 = %s", (int)(at - typed_text), typed_text,
             at + strlen("%27 = "));
    char *ret = strstr(text, "ret %27");
    memcpy(ret, "ret %28", 7);   /* an undefined operand: resolved after reading */
    CHECK(ir_read(a, text, &diag) == NULL && strstr(diag.message, "%28 is not defined"));
    arena_free(a);
}

/* The sub-operation names ir_dump prints and ir_read reads are one table. */
static void test_sub_names(void)
{
    CHECK(ir_sub_lookup(OP_BINOP, "matmul") == BIN_MATMUL);
    CHECK(strcmp(ir_sub_name(OP_COMPARE, CMP_NOTIN), "notin") == 0);
    CHECK(ir_sub_lookup(OP_ARRAY_ATTR, ir_sub_name(OP_ARRAY_ATTR, AA_IMAG)) == AA_IMAG);
    CHECK(ir_sub_lookup(OP_UNARY, "add") == -1);
    CHECK(strcmp(ir_sub_name(OP_BINOP, 99), "?") == 0);
    CHECK(ir_sub_lookup(OP_CONST, "add") == -1);
}

int main(void)
{
    test_malformed();
    test_sub_names();
    test_round_trip(false);
    test_round_trip(true);
    test_untyped_round_trip();
    test_checker();
    return check_report("test_ir");
}
