/* lower_rng.c: the np.random.Generator rows of builtins.def (`rng` in the lower column): a call of
 * the runtime function the row names (runtime/generator.c), a Generator passed as its MemInfo.
 *
 * The draws a loop makes one at a time are written inline instead, as NumPy's own C inlines them:
 * the BitGenerator's next_uint64 or next_double called through its function pointer, and for
 * standard normals and exponentials the ziggurat's first layer over tables built into the module
 * as constants; the rare word the first layer refuses goes to the runtime's rest of the draw.
 * A call of the runtime per draw costs about as much again as the draw itself. */
#include "compiler/lower.h"

#include <stddef.h>

#include "runtime/ziggurat.h"

/* BitGen's fields (runtime/generator.c: NumPy's bitgen_t), by their index as pointers. */
enum { BITGEN_STATE, BITGEN_NEXT_U64, BITGEN_NEXT_U32, BITGEN_NEXT_DOUBLE };

/* A load of a pointer that stays the same while the Generator lives (its BitGen, the state's
 * address, the functions): marked invariant, so that a loop of draws loads it once. */
static LLVMValueRef load_fixed(Lower *L, LLVMValueRef at, const char *name)
{
    LLVMValueRef v = LLVMBuildLoad2(L->b, L->ptr, at, name);
    LLVMSetMetadata(v, LLVMGetMDKindIDInContext(L->ctx, "invariant.load", 14),
                    LLVMMDNodeInContext(L->ctx, NULL, 0));
    return v;
}

/* The bitgen_t function at field `which` called on its state: (state) -> ret. */
static LLVMValueRef call_bitgen(Lower *L, LLVMValueRef mi, int which, LLVMTypeRef ret)
{
    LLVMValueRef data_at = LLVMBuildGEP2(L->b, L->i8, mi,
                                         (LLVMValueRef[]){lower_i64(L, offsetof(MemInfo, data))}, 1, "");
    LLVMValueRef bitgen = load_fixed(L, data_at, "bitgen");
    LLVMValueRef state = load_fixed(L, bitgen, "state");
    LLVMValueRef fn_at = LLVMBuildGEP2(L->b, L->ptr, bitgen, (LLVMValueRef[]){lower_i64(L, which)}, 1, "");
    LLVMValueRef fn = load_fixed(L, fn_at, "next");
    LLVMTypeRef fty = LLVMFunctionType(ret, (LLVMTypeRef[]){L->ptr}, 1, 0);
    return LLVMBuildCall2(L->b, fty, fn, &state, 1, "");
}

/* A table of 256 numbers as a constant of this module (made once per module, by name). */
static LLVMValueRef zig_table(Lower *L, const char *name, LLVMTypeRef item, const uint64_t *k,
                              const double *w)
{
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, name);
    if (g)
        return g;
    LLVMValueRef items[256];
    for (int i = 0; i < 256; i++)
        items[i] = k ? LLVMConstInt(item, k[i], 0) : LLVMConstReal(item, w[i]);
    LLVMValueRef init = LLVMConstArray(item, items, 256);
    g = LLVMAddGlobal(L->mod, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    return g;
}

static LLVMValueRef table_item(Lower *L, LLVMValueRef table, LLVMTypeRef item, LLVMValueRef idx)
{
    LLVMValueRef at = LLVMBuildGEP2(L->b, item, table, &idx, 1, "");
    return LLVMBuildLoad2(L->b, item, at, "");
}

/* x if accept, else the runtime's `rest`(mi, word): the draw's value after the branch. */
static LLVMValueRef accept_or_rest(Lower *L, LLVMValueRef accept, LLVMValueRef x, const char *rest,
                                   LLVMValueRef mi, LLVMValueRef word)
{
    LLVMBasicBlockRef from = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef done = lower_unlikely(L, LLVMBuildNot(L->b, accept, ""));
    LLVMValueRef slow = lower_call_rt(L, rest, L->f64, (LLVMValueRef[]){mi, word}, 2);
    LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    LLVMValueRef v = LLVMBuildPhi(L->b, L->f64, "draw");
    LLVMAddIncoming(v, (LLVMValueRef[]){x, slow}, (LLVMBasicBlockRef[]){from, slow_end}, 2);
    return v;
}

/* NumPy's random_standard_normal, first layer: byte 0 the layer, bit 8 the sign, 52 bits above. */
static LLVMValueRef inline_normal(Lower *L, LLVMValueRef mi)
{
    LLVMValueRef r = call_bitgen(L, mi, BITGEN_NEXT_U64, L->i64);
    LLVMValueRef idx = LLVMBuildAnd(L->b, r, lower_i64(L, 0xff), "");
    LLVMValueRef rest = LLVMBuildLShr(L->b, r, lower_i64(L, 8), "");
    LLVMValueRef rabs = LLVMBuildAnd(L->b, LLVMBuildLShr(L->b, rest, lower_i64(L, 1), ""),
                                     lower_i64(L, 0x000fffffffffffffll), "");
    LLVMValueRef w = table_item(L, zig_table(L, "pj.zig.normal_w", L->f64, NULL, normal_w), L->f64, idx);
    LLVMValueRef x = LLVMBuildFMul(L->b, LLVMBuildUIToFP(L->b, rabs, L->f64, ""), w, "");
    /* the sign bit flipped by bit 8, without a branch: the sign is a coin toss, which a branch
     * would mispredict half the time */
    LLVMValueRef sign = LLVMBuildShl(L->b, LLVMBuildAnd(L->b, rest, lower_i64(L, 1), ""),
                                     lower_i64(L, 63), "");
    x = LLVMBuildBitCast(L->b, LLVMBuildXor(L->b, LLVMBuildBitCast(L->b, x, L->i64, ""), sign, ""),
                         L->f64, "");
    LLVMValueRef k = table_item(L, zig_table(L, "pj.zig.normal_k", L->i64, normal_k, NULL), L->i64, idx);
    return accept_or_rest(L, LLVMBuildICmp(L->b, LLVMIntULT, rabs, k, ""), x, "pj_rng_normal_from", mi, r);
}

/* NumPy's random_standard_exponential, first layer: the word's low 3 bits dropped, then byte 0
 * the layer and the bits above it the value. */
static LLVMValueRef inline_exponential(Lower *L, LLVMValueRef mi)
{
    LLVMValueRef word = call_bitgen(L, mi, BITGEN_NEXT_U64, L->i64);
    LLVMValueRef r = LLVMBuildLShr(L->b, word, lower_i64(L, 3), "");
    LLVMValueRef idx = LLVMBuildAnd(L->b, r, lower_i64(L, 0xff), "");
    r = LLVMBuildLShr(L->b, r, lower_i64(L, 8), "");
    LLVMValueRef w = table_item(L, zig_table(L, "pj.zig.exponential_w", L->f64, NULL, exponential_w),
                                L->f64, idx);
    LLVMValueRef x = LLVMBuildFMul(L->b, LLVMBuildUIToFP(L->b, r, L->f64, ""), w, "");
    LLVMValueRef k = table_item(L, zig_table(L, "pj.zig.exponential_k", L->i64, exponential_k, NULL),
                                L->i64, idx);
    return accept_or_rest(L, LLVMBuildICmp(L->b, LLVMIntULT, r, k, ""), x, "pj_rng_exponential_from",
                          mi, word);
}

/* The draw written inline, or NULL where the row's runtime function is called. */
static LLVMValueRef lower_inline_draw(Lower *L, Builtin bi, LLVMValueRef mi)
{
    switch (bi) {
    case BI_RNG_RANDOM: return call_bitgen(L, mi, BITGEN_NEXT_DOUBLE, L->f64);
    case BI_RNG_NEXT32: return call_bitgen(L, mi, BITGEN_NEXT_U32, L->i32);
    case BI_RNG_NORMAL: return inline_normal(L, mi);
    case BI_RNG_EXPONENTIAL: return inline_exponential(L, mi);
    default: return NULL;
    }
}

LLVMValueRef lower_bi_rng(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef args[4];
    int n = in->nargs < 4 ? in->nargs : 4;
    for (int i = 0; i < n; i++) {
        LLVMValueRef v = lower_value(L, in->args[i]);
        args[i] = in->args[i]->type->kind == TY_RNG ? LLVMBuildExtractValue(L->b, v, 0, "") : v;
    }
    if (in->type->kind != TY_RNG) {
        LLVMValueRef v = n == 1 ? lower_inline_draw(L, bi, args[0]) : NULL;
        return v ? v : lower_call_rt(L, ir_builtin_fn(bi), lower_type(L, in->type), args, n);
    }
    LLVMValueRef mi = lower_call_rt(L, ir_builtin_fn(bi), L->ptr, args, n);
    lower_check(L, LLVMBuildIsNull(L->b, mi, ""), ABI_EXC_MEMORY, "out of memory making a Generator",
                NULL, 0);
    LLVMValueRef v = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, in->type)), mi, 0, "");
    lower_own(L, in, v);
    return v;
}

/* random.seed(n) and random.random(): calls of the runtime's second state. */
LLVMValueRef lower_bi_py_random(Lower *L, Instr *in, Builtin bi)
{
    if (bi == BI_PY_RANDOM_SEED) {
        LLVMValueRef seed = lower_value(L, in->args[0]);
        lower_call_rt(L, ir_builtin_fn(bi), LLVMVoidTypeInContext(L->ctx), &seed, 1);
        return LLVMConstNull(L->none_ty);
    }
    return lower_call_rt(L, ir_builtin_fn(bi), L->f64, NULL, 0);
}
