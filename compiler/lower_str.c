/* lower_str.c: lowering of run-time strings (abi.h's StrPayload behind a MemInfo).
 *
 * A string value is { ptr meminfo }, reference counted as lists are (lower.h). Strings are
 * immutable: compiled code reads the length, kind and cached hash in place, and everything that
 * makes a string or scans one is a call into runtime/str.c. A string the runtime returns is a new
 * reference, owned by the instruction that made it (lower_own). A constant string is a global
 * MemInfo with its payload behind it, whose refcount starts so high that it is never freed. */
#include "compiler/lower.h"

#include <string.h>

enum { SP_LENGTH, SP_HASH, SP_KIND };

static LLVMTypeRef header_type(Lower *L)
{
    LLVMTypeRef f[4] = {L->i64, L->i64, L->i32, L->i32};
    return LLVMStructTypeInContext(L->ctx, f, 4, 0);
}

static LLVMValueRef meminfo(Lower *L, LLVMValueRef s)
{
    return LLVMBuildExtractValue(L->b, s, 0, "");
}

static LLVMValueRef payload(Lower *L, LLVMValueRef s)
{
    LLVMValueRef at = LLVMBuildStructGEP2(L->b, L->mi_ty, meminfo(L, s), 1, "");
    return LLVMBuildLoad2(L->b, L->ptr, at, "str.payload");
}

static LLVMValueRef load_field(Lower *L, LLVMValueRef s, int k, LLVMTypeRef ty)
{
    LLVMValueRef at = LLVMBuildStructGEP2(L->b, header_type(L), payload(L, s), (unsigned)k, "");
    return LLVMBuildLoad2(L->b, ty, at, "");
}

LLVMValueRef lower_str_len(Lower *L, LLVMValueRef s)
{
    return load_field(L, s, SP_LENGTH, L->i64);
}

/* A string value of the runtime's result mi, owned by in; MemoryError when mi is NULL. */
static LLVMValueRef take(Lower *L, Instr *in, Type *t, LLVMValueRef mi)
{
    lower_check(L, LLVMBuildIsNull(L->b, mi, ""), ABI_EXC_MEMORY, "out of memory making a string",
                NULL, 0);
    LLVMValueRef v = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, t)), mi, 0, "");
    lower_own(L, in, v);
    return v;
}

/* ---- constants ---- */

/* The code points of UTF-8 text (which Python gave, so well formed); their count. */
static int64_t decode_utf8(const unsigned char *s, uint32_t *out)
{
    int64_t n = 0;
    while (*s) {
        uint32_t c = *s++;
        int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        c &= more == 3 ? 0x07 : more == 2 ? 0x0f : more == 1 ? 0x1f : 0x7f;
        for (; more > 0 && (*s & 0xc0) == 0x80; more--)
            c = (c << 6) | (*s++ & 0x3f);
        if (out)
            out[n] = c;
        n++;
    }
    return n;
}

/* The bytes of the code points at the narrowest kind (PEP 393), and a zero code point. */
static LLVMValueRef const_data(Lower *L, const uint32_t *cps, int64_t n, int kind)
{
    size_t size = (size_t)(n + 1) * (size_t)kind;
    char *bytes = arena_alloc(L->prog->arena, size);
    memset(bytes, 0, size);
    for (int64_t i = 0; i < n; i++) {
        uint32_t c = cps[i];
        if (kind == 1)
            bytes[i] = (char)c;
        else if (kind == 2)
            memcpy(bytes + 2 * i, &(uint16_t){(uint16_t)c}, 2);
        else
            memcpy(bytes + 4 * i, &c, 4);
    }
    return LLVMConstStringInContext(L->ctx, bytes, (unsigned)size, 1);
}

/* A constant string: made by the runtime on its first use (pj_str_intern: one per text for the
 * process, never freed, since what is made of it can outlive this module) and kept in a slot of
 * the module. Two threads filling the slot at once store the same pointer. */
LLVMValueRef lower_str_const(Lower *L, const char *text)
{
    if (L->t->is_gpu) {   /* inference refuses run-time strings in kernels; this is the backstop */
        lower_unsupported(L, "strings made or used at run time are not supported in GPU kernels");
        return NULL;
    }
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    int64_t n = decode_utf8(s, NULL);
    uint32_t *cps = arena_alloc(L->prog->arena, sizeof *cps * (size_t)(n + 1));
    decode_utf8(s, cps);
    uint32_t maxc = 0;
    for (int64_t i = 0; i < n; i++)
        maxc = cps[i] > maxc ? cps[i] : maxc;
    int kind = maxc < 0x100 ? 1 : maxc < 0x10000 ? 2 : 4;
    LLVMValueRef init = const_data(L, cps, n, kind);
    LLVMValueRef data = LLVMAddGlobal(L->mod, LLVMTypeOf(init), "pj.str.data");
    LLVMSetInitializer(data, init);
    LLVMSetGlobalConstant(data, 1);
    LLVMSetLinkage(data, LLVMPrivateLinkage);
    LLVMValueRef slot = LLVMAddGlobal(L->mod, L->ptr, "pj.str");
    LLVMSetInitializer(slot, LLVMConstNull(L->ptr));
    LLVMSetLinkage(slot, LLVMPrivateLinkage);
    LLVMValueRef mi = LLVMBuildLoad2(L->b, L->ptr, slot, "");
    LLVMSetOrdering(mi, LLVMAtomicOrderingMonotonic);
    LLVMSetAlignment(mi, 8);
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef cont = lower_unlikely(L, LLVMBuildIsNull(L->b, mi, ""));
    LLVMValueRef args[3] = {data, lower_i64(L, n), LLVMConstInt(L->i32, (unsigned)kind, 0)};
    LLVMValueRef made = lower_call_rt(L, "pj_str_intern", L->ptr, args, 3);
    lower_check(L, LLVMBuildIsNull(L->b, made, ""), ABI_EXC_MEMORY, "out of memory making a string",
                NULL, 0);
    LLVMValueRef store = LLVMBuildStore(L->b, made, slot);
    LLVMSetOrdering(store, LLVMAtomicOrderingMonotonic);
    LLVMSetAlignment(store, 8);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, cont);
    LLVMPositionBuilderAtEnd(L->b, cont);
    LLVMValueRef p = LLVMBuildPhi(L->b, L->ptr, "str.const");
    LLVMValueRef vals[2] = {mi, made};
    LLVMBasicBlockRef blocks[2] = {entry, from};
    LLVMAddIncoming(p, vals, blocks, 2);
    return LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, ty_str())), p, 0, "");
}

/* ---- what other lowering files and containers use ---- */

LLVMValueRef lower_str_hash(Lower *L, LLVMValueRef s)
{
    LLVMValueRef cached = load_field(L, s, SP_HASH, L->i64);
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef cont = lower_unlikely(L, LLVMBuildICmp(L->b, LLVMIntEQ, cached, lower_i64(L, -1), ""));
    LLVMValueRef mi = meminfo(L, s);
    LLVMValueRef computed = lower_call_rt(L, "pj_str_hash", L->i64, &mi, 1);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, cont);
    LLVMPositionBuilderAtEnd(L->b, cont);
    LLVMValueRef h = LLVMBuildPhi(L->b, L->i64, "str.hash");
    LLVMValueRef vals[2] = {cached, computed};
    LLVMBasicBlockRef blocks[2] = {entry, from};
    LLVMAddIncoming(h, vals, blocks, 2);
    return h;
}

LLVMValueRef lower_str_equal(Lower *L, LLVMValueRef a, LLVMValueRef b)
{
    LLVMValueRef args[2] = {meminfo(L, a), meminfo(L, b)};
    LLVMValueRef eq = lower_call_rt(L, "pj_str_equal", L->i32, args, 2);
    return LLVMBuildICmp(L->b, LLVMIntNE, eq, LLVMConstInt(L->i32, 0, 0), "");
}

LLVMValueRef lower_str_compare(Lower *L, CmpOp op, LLVMValueRef a, LLVMValueRef b)
{
    if (op == CMP_EQ || op == CMP_NE) {
        LLVMValueRef eq = lower_str_equal(L, a, b);
        return op == CMP_EQ ? eq : LLVMBuildNot(L->b, eq, "");
    }
    LLVMValueRef args[2] = {meminfo(L, a), meminfo(L, b)};
    LLVMValueRef c = lower_call_rt(L, "pj_str_compare", L->i32, args, 2), zero = LLVMConstInt(L->i32, 0, 0);
    LLVMIntPredicate p = op == CMP_LT ? LLVMIntSLT : op == CMP_LE ? LLVMIntSLE : op == CMP_GT ? LLVMIntSGT
                                                                                             : LLVMIntSGE;
    return LLVMBuildICmp(L->b, p, c, zero, "");
}

LLVMValueRef lower_str_item(Lower *L, Instr *owner, LLVMValueRef s, LLVMValueRef i)
{
    LLVMValueRef args[4] = {meminfo(L, s), i, lower_i64(L, 1), lower_i64(L, 1)};
    return take(L, owner, ty_str(), lower_call_rt(L, "pj_str_slice", L->ptr, args, 4));
}

void lower_str_print(Lower *L, LLVMValueRef s, bool quoted)
{
    LLVMValueRef args[2] = {meminfo(L, s), LLVMConstInt(L->i32, quoted, 0)};
    lower_call_rt(L, "pj_str_print", LLVMVoidTypeInContext(L->ctx), args, 2);
}

/* ---- the builtins ---- */

/* str(x) or repr(x) of a number, or of a string (itself, or quoted). */
static LLVMValueRef str_of(Lower *L, Instr *in, Builtin bi)
{
    if (in->nargs == 0)
        return lower_str_const(L, "");
    Type *t = in->args[0]->type;
    LLVMValueRef v = lower_value(L, in->args[0]);
    if (t->kind == TY_STR && bi == BI_REPR) {
        LLVMValueRef mi = meminfo(L, v);
        return take(L, in, ty_str(), lower_call_rt(L, "pj_str_repr", L->ptr, &mi, 1));
    }
    if (t->kind == TY_STR) {
        lower_incref_value(L, t, v);
        lower_own(L, in, v);
        return v;
    }
    if (t->kind == TY_BOOL)
        return LLVMBuildSelect(L->b, v, lower_str_const(L, "True"), lower_str_const(L, "False"), "");
    if (t->kind == TY_CAUGHT)   /* its saved ExcInfo (lower_exc.c) */
        return take(L, in, ty_str(), lower_call_rt(L, "pj_exc_str", L->ptr, &v, 1));
    const char *fn = ty_is_float(t) ? "pj_str_from_float" : t->kind == TY_UINT64 ? "pj_str_from_uint"
                                                                                : "pj_str_from_int";
    return take(L, in, ty_str(), lower_call_rt(L, fn, L->ptr, &v, 1));
}

/* s[i]: IndexError outside, negative indices from the end. */
static LLVMValueRef get_item(Lower *L, Instr *in, LLVMValueRef s, LLVMValueRef i)
{
    LLVMValueRef n = lower_str_len(L, s);
    LLVMValueRef w = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, lower_i64(L, 0), ""),
                                     LLVMBuildAdd(L->b, i, n, ""), i, "");
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntUGE, w, n, ""), ABI_EXC_INDEX, "string index out of range",
                NULL, 0);
    return lower_str_item(L, in, s, w);
}

static LLVMValueRef get_slice(Lower *L, Instr *in, LLVMValueRef s, LLVMValueRef sl)
{
    LLVMValueRef start, step;
    LLVMValueRef n = lower_slice_indices(L, sl, lower_str_len(L, s), &start, &step);
    LLVMValueRef args[4] = {meminfo(L, s), start, step, n};
    return take(L, in, ty_str(), lower_call_rt(L, "pj_str_slice", L->ptr, args, 4));
}

static LLVMValueRef ord(Lower *L, LLVMValueRef s)
{
    LLVMValueRef n = lower_str_len(L, s);
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntNE, n, lower_i64(L, 1), ""), ABI_EXC_TYPE,
                "ord() expected a character, but string of length %lld found", &n, 1);
    LLVMValueRef args[2] = {meminfo(L, s), lower_i64(L, 0)};
    return lower_call_rt(L, "pj_str_char", L->i64, args, 2);
}

/* int(s) or float(s): the runtime parses; ValueError (OverflowError past int64) otherwise. */
static LLVMValueRef number_of(Lower *L, Builtin bi, LLVMValueRef s)
{
    bool is_int = bi == BI_STR_INT;
    LLVMValueRef out = lower_alloca(L, is_int ? L->i64 : L->f64);
    LLVMValueRef args[2] = {meminfo(L, s), out};
    LLVMValueRef rc = lower_call_rt(L, is_int ? "pj_str_to_int" : "pj_str_to_float", L->i32, args, 2);
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, rc, LLVMConstInt(L->i32, (unsigned long long)-1, 1), ""),
                ABI_EXC_VALUE, is_int ? "invalid literal for int() with base 10"
                                      : "could not convert string to float", NULL, 0);
    if (is_int)
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, rc, LLVMConstInt(L->i32, (unsigned long long)-2, 1), ""),
                    ABI_EXC_OVERFLOW, "int too large to convert to int64", NULL, 0);
    return LLVMBuildLoad2(L->b, is_int ? L->i64 : L->f64, out, "");
}

static LLVMValueRef chr(Lower *L, Instr *in, LLVMValueRef cp)
{
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntUGE, cp, lower_i64(L, 0x110000), ""), ABI_EXC_VALUE,
                "chr() arg not in range(0x110000)", NULL, 0);
    return take(L, in, ty_str(), lower_call_rt(L, "pj_str_chr", L->ptr, &cp, 1));
}

/* The MemInfo pointers of a join's items and their count: a list's items in place, a tuple's
 * stored in a temporary (a tuple of strs is an array of pointers); a str's characters are
 * joined by the runtime directly. */
static LLVMValueRef join(Lower *L, Instr *in, LLVMValueRef sep, Instr *items)
{
    LLVMValueRef v = lower_value(L, items), ptr, n;
    if (items->type->kind == TY_STR) {
        LLVMValueRef args[2] = {meminfo(L, sep), meminfo(L, v)};
        return take(L, in, ty_str(), lower_call_rt(L, "pj_str_join_chars", L->ptr, args, 2));
    }
    if (items->type->kind == TY_LIST) {
        ptr = lower_list_items(L, v);
        n = lower_list_len(L, v);
    } else {
        ptr = lower_alloca(L, LLVMTypeOf(v));
        LLVMBuildStore(L->b, v, ptr);
        n = lower_i64(L, items->type->tuple.n);
    }
    LLVMValueRef args[3] = {meminfo(L, sep), ptr, n};
    return take(L, in, ty_str(), lower_call_rt(L, "pj_str_join", L->ptr, args, 3));
}

/* find, rfind, count, startswith, endswith: pj_str_find's `how`. */
static int find_how(Builtin bi)
{
    switch (bi) {
    case BI_STR_RFIND: return 1;
    case BI_STR_COUNT: return 2;
    case BI_STR_STARTSWITH: return 3;
    case BI_STR_ENDSWITH: return 4;
    default: return 0;
    }
}

static LLVMValueRef find(Lower *L, Builtin bi, LLVMValueRef *a)
{
    LLVMValueRef args[5] = {meminfo(L, a[0]), meminfo(L, a[1]), a[2], a[3],
                            LLVMConstInt(L->i32, (unsigned)find_how(bi), 0)};
    LLVMValueRef r = lower_call_rt(L, "pj_str_find", L->i64, args, 5);
    if (bi == BI_STR_STARTSWITH || bi == BI_STR_ENDSWITH)
        return LLVMBuildICmp(L->b, LLVMIntNE, r, lower_i64(L, 0), "");
    return r;
}

/* A string argument, or NULL for None. */
static LLVMValueRef optional_str(Lower *L, Instr *in, int k)
{
    if (k >= in->nargs || in->args[k]->type->kind != TY_STR)
        return LLVMConstNull(L->ptr);
    return meminfo(L, lower_value(L, in->args[k]));
}

LLVMValueRef lower_bi_str(Lower *L, Instr *in, Builtin bi)
{
    if (bi == BI_STR || bi == BI_REPR)
        return str_of(L, in, bi);
    LLVMValueRef a[4] = {0};
    for (int k = 0; k < in->nargs && k < 4; k++)
        if (in->args[k]->type->kind != TY_NONE)
            a[k] = lower_value(L, in->args[k]);
    Type *st = ty_str();
    switch (bi) {
    case BI_ORD: return ord(L, a[0]);
    case BI_STR_INT: case BI_STR_FLOAT: return number_of(L, bi, a[0]);
    case BI_CHR: return chr(L, in, a[0]);
    case BI_STR_GETITEM: return get_item(L, in, a[0], a[1]);
    case BI_STR_GETSLICE: return get_slice(L, in, a[0], a[1]);
    case BI_STR_ADD: {
        LLVMValueRef args[2] = {meminfo(L, a[0]), meminfo(L, a[1])};
        return take(L, in, st, lower_call_rt(L, "pj_str_concat", L->ptr, args, 2));
    }
    case BI_STR_MUL: {
        LLVMValueRef args[2] = {meminfo(L, a[0]), a[1]};
        return take(L, in, st, lower_call_rt(L, "pj_str_repeat", L->ptr, args, 2));
    }
    case BI_STR_CONTAINS: {
        LLVMValueRef f[4] = {a[0], a[1], lower_i64(L, 0), lower_i64(L, INT64_MAX)};
        return LLVMBuildICmp(L->b, LLVMIntSGE, find(L, BI_STR_FIND, f), lower_i64(L, 0), "");
    }
    case BI_STR_FIND: case BI_STR_RFIND: case BI_STR_COUNT: case BI_STR_STARTSWITH:
    case BI_STR_ENDSWITH:
        return find(L, bi, a);
    case BI_STR_SPLIT: {
        if (in->args[1]->type->kind == TY_STR)
            lower_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, lower_str_len(L, a[1]), lower_i64(L, 0), ""),
                        ABI_EXC_VALUE, "empty separator", NULL, 0);
        LLVMValueRef args[3] = {meminfo(L, a[0]), optional_str(L, in, 1), a[2]};
        return take(L, in, in->type, lower_call_rt(L, "pj_str_split", L->ptr, args, 3));
    }
    case BI_STR_JOIN: return join(L, in, a[0], in->args[1]);
    case BI_STR_STRIP: case BI_STR_LSTRIP: case BI_STR_RSTRIP: {
        int sides = bi == BI_STR_LSTRIP ? 1 : bi == BI_STR_RSTRIP ? 2 : 3;
        LLVMValueRef args[3] = {meminfo(L, a[0]), optional_str(L, in, 1), LLVMConstInt(L->i32, (unsigned)sides, 0)};
        return take(L, in, st, lower_call_rt(L, "pj_str_strip", L->ptr, args, 3));
    }
    case BI_STR_LOWER: case BI_STR_UPPER: case BI_STR_CAPITALIZE: case BI_STR_TITLE:
    case BI_STR_SWAPCASE: case BI_STR_CASEFOLD: {
        /* runtime/str.c's CASE_* order */
        int how = bi == BI_STR_UPPER ? 1 : bi == BI_STR_CAPITALIZE ? 2 : bi == BI_STR_TITLE ? 3 :
                  bi == BI_STR_SWAPCASE ? 4 : bi == BI_STR_CASEFOLD ? 5 : 0;
        LLVMValueRef args[2] = {meminfo(L, a[0]), LLVMConstInt(L->i32, (unsigned)how, 0)};
        return take(L, in, st, lower_call_rt(L, "pj_str_case", L->ptr, args, 2));
    }
    case BI_STR_REPLACE: {
        LLVMValueRef args[4] = {meminfo(L, a[0]), meminfo(L, a[1]), meminfo(L, a[2]), a[3]};
        return take(L, in, st, lower_call_rt(L, "pj_str_replace", L->ptr, args, 4));
    }
    default: {
        int what = (int)bi - (int)BI_STR_ISDIGIT;   /* the is* rows, in pj_str_is's order */
        if (what < 0 || what > 8) {
            lower_unsupported(L, "internal: string builtin %s", ir_builtin_name(bi));
            return NULL;
        }
        LLVMValueRef args[2] = {meminfo(L, a[0]), LLVMConstInt(L->i32, (unsigned)what, 0)};
        LLVMValueRef r = lower_call_rt(L, "pj_str_is", L->i32, args, 2);
        return LLVMBuildICmp(L->b, LLVMIntNE, r, LLVMConstInt(L->i32, 0, 0), "");
    }
    }
}
