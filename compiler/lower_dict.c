/* lower_dict.c: lowering of dicts and sets (abi.h's DictPayload behind a MemInfo).
 *
 * A dict or set value is { ptr meminfo }, reference counted as lists are. A set is a dict whose
 * entries have no value. Lookups are emitted inline, specialised for the key type: the key's
 * hash (CPython's, so hash() agrees with Python), then CPython's probe over the index slots,
 * comparing stored hashes and then keys. Inserting writes the next entry in place; only making,
 * growing, copying and clearing call the runtime (runtime/dict.c). A value holding references
 * keeps one of its own, as a list item does.
 *
 * Run-time strings (TY_STR) are keys once their hash and equality are lowered: the two switches
 * below (hash_value, keys_equal) say where. */
#include "compiler/lower.h"

enum { DP_USED, DP_NENTRIES, DP_USABLE, DP_MASK, DP_INDEX, DP_ENTRIES, DP_ENTRYSIZE, DP_VALOFF,
       DP_NREFS, DP_REFS };

static LLVMTypeRef payload_type(Lower *L)
{
    LLVMTypeRef f[10] = {L->i64, L->i64, L->i64, L->i64, L->ptr, L->ptr, L->i64, L->i32, L->i32,
                         LLVMArrayType(L->i32, ABI_DICT_MAX_REFS)};
    return LLVMStructTypeInContext(L->ctx, f, 10, 0);
}

static LLVMValueRef payload(Lower *L, LLVMValueRef d)
{
    LLVMValueRef mi = LLVMBuildExtractValue(L->b, d, 0, "");
    return LLVMBuildLoad2(L->b, L->ptr, LLVMBuildStructGEP2(L->b, L->mi_ty, mi, 1, ""), "dict.payload");
}

static LLVMValueRef field(Lower *L, LLVMValueRef pl, int k)
{
    return LLVMBuildStructGEP2(L->b, payload_type(L), pl, (unsigned)k, "");
}

static LLVMValueRef load_field(Lower *L, LLVMValueRef pl, int k)
{
    return LLVMBuildLoad2(L->b, k == DP_INDEX || k == DP_ENTRIES ? L->ptr : L->i64, field(L, pl, k), "");
}

static void store_field(Lower *L, LLVMValueRef pl, int k, LLVMValueRef v)
{
    LLVMBuildStore(L->b, v, field(L, pl, k));
}

/* ---- layout -------------------------------------------------------------------------------- */

typedef struct Layout {
    Type *key, *value;      /* value NULL for a set */
    int64_t valoff, size;
} Layout;

static Layout layout_of(Type *t)
{
    Layout lo = {0};
    lo.key = t->kind == TY_DICT ? t->dict.key : t->set.item;
    lo.value = t->kind == TY_DICT ? t->dict.value : NULL;
    ty_table_layout(t, &lo.valoff, &lo.size);
    return lo;
}

static LLVMValueRef entry_ptr(Lower *L, LLVMValueRef pl, const Layout *lo, LLVMValueRef ix)
{
    LLVMValueRef off = LLVMBuildMul(L->b, ix, lower_i64(L, lo->size), "");
    return LLVMBuildInBoundsGEP2(L->b, L->i8, load_field(L, pl, DP_ENTRIES), &off, 1, "dict.entry");
}

static LLVMValueRef at_offset(Lower *L, LLVMValueRef p, int64_t off)
{
    LLVMValueRef o = lower_i64(L, off);
    return LLVMBuildInBoundsGEP2(L->b, L->i8, p, &o, 1, "");
}

static LLVMValueRef load_key(Lower *L, const Layout *lo, LLVMValueRef e)
{
    return lower_load_mem(L, lo->key, at_offset(L, e, 8));
}

static LLVMValueRef load_value(Lower *L, const Layout *lo, LLVMValueRef e)
{
    return lower_load_mem(L, lo->value, at_offset(L, e, lo->valoff));
}

LLVMValueRef lower_dict_len(Lower *L, LLVMValueRef d)
{
    return load_field(L, payload(L, d), DP_USED);
}

/* A new empty table of type t with room for n entries: a new reference the caller owns. */
static LLVMValueRef table_new(Lower *L, Type *t, LLVMValueRef n)
{
    Layout lo = layout_of(t);
    int32_t refs[ABI_DICT_MAX_REFS];
    int nrefs = ty_table_refs(t, refs, ABI_DICT_MAX_REFS);
    if (nrefs < 0) {
        lower_unsupported(L, "%s: its entries hold more than %d strings, arrays or containers",
                          t->name, ABI_DICT_MAX_REFS);
        return NULL;
    }
    LLVMValueRef rv[ABI_DICT_MAX_REFS];
    for (int k = 0; k < nrefs; k++)
        rv[k] = LLVMConstInt(L->i32, (unsigned)refs[k], 0);
    LLVMValueRef table = LLVMConstArray(L->i32, rv, (unsigned)nrefs);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMTypeOf(table), "pj.dict.refs");
    LLVMSetInitializer(g, table);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMValueRef args[5] = {lower_i64(L, lo.size), LLVMConstInt(L->i32, (unsigned)lo.valoff, 0), g,
                            LLVMConstInt(L->i32, (unsigned)nrefs, 0), n};
    LLVMValueRef mi = lower_call_rt(L, "pj_dict_new", L->ptr, args, 5);
    lower_check(L, LLVMBuildIsNull(L->b, mi, ""), ABI_EXC_MEMORY, "out of memory making a dict", NULL, 0);
    return LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, t)), mi, 0, "");
}

/* ---- hashing and comparing keys -------------------------------------------------------------- */

static LLVMValueRef i64c(Lower *L, uint64_t v)
{
    return LLVMConstInt(L->i64, v, 0);
}

/* CPython's hash of an int64: |x| mod 2**61 - 1 with x's sign, -1 becoming -2. */
static LLVMValueRef hash_i64(Lower *L, LLVMValueRef x, bool is_unsigned)
{
    LLVMValueRef mod = i64c(L, ((uint64_t)1 << 61) - 1);
    if (is_unsigned)
        return LLVMBuildURem(L->b, x, mod, "");
    LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, x, lower_i64(L, 0), "");
    LLVMValueRef a = LLVMBuildSelect(L->b, neg, LLVMBuildNeg(L->b, x, ""), x, "");   /* INT64_MIN: 2**63 unsigned */
    LLVMValueRef r = LLVMBuildURem(L->b, a, mod, "");
    r = LLVMBuildSelect(L->b, neg, LLVMBuildNeg(L->b, r, ""), r, "");
    LLVMValueRef m1 = LLVMBuildICmp(L->b, LLVMIntEQ, r, lower_i64(L, -1), "");
    return LLVMBuildSelect(L->b, m1, lower_i64(L, -2), r, "");
}

/* A float: an integral value within int64 hashes as its int (CPython's hash agrees), any other
 * through the runtime's _Py_HashDouble. */
static LLVMValueRef hash_f64(Lower *L, LLVMValueRef x)
{
    LLVMValueRef lim = LLVMConstReal(L->f64, 9223372036854775808.0);
    LLVMValueRef in = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, LLVMRealOLT, x, lim, ""),
                                   LLVMBuildFCmp(L->b, LLVMRealOGE, x, LLVMConstReal(L->f64, -9223372036854775808.0), ""), "");
    LLVMBasicBlockRef conv = lower_block(L, "hash.f.int"), slow = lower_block(L, "hash.f.slow");
    LLVMBasicBlockRef done = lower_block(L, "hash.f.done");
    LLVMBuildCondBr(L->b, in, conv, slow);
    LLVMPositionBuilderAtEnd(L->b, conv);
    LLVMValueRef i = LLVMBuildFPToSI(L->b, x, L->i64, "");
    LLVMValueRef exact = LLVMBuildFCmp(L->b, LLVMRealOEQ, LLVMBuildSIToFP(L->b, i, L->f64, ""), x, "");
    LLVMValueRef hi = hash_i64(L, i, false);
    LLVMBasicBlockRef conv_end = LLVMGetInsertBlock(L->b);
    LLVMBuildCondBr(L->b, exact, done, slow);
    LLVMPositionBuilderAtEnd(L->b, slow);
    LLVMValueRef hs = lower_call_rt(L, "pj_hash_double", L->i64, &x, 1);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    LLVMValueRef h = LLVMBuildPhi(L->b, L->i64, "hash");
    LLVMValueRef hv[2] = {hi, hs};
    LLVMBasicBlockRef hb[2] = {conv_end, slow};
    LLVMAddIncoming(h, hv, hb, 2);
    return h;
}

static LLVMValueRef hash_value(Lower *L, Type *t, LLVMValueRef v);

/* CPython 3.11's tuple hash: xxHash's round over the items' hashes (runtime/dict.c's twin). */
static LLVMValueRef hash_tuple(Lower *L, Type *t, LLVMValueRef v)
{
    LLVMValueRef acc = i64c(L, 2870177450012600261ULL);
    for (int i = 0; i < t->tuple.n; i++) {
        LLVMValueRef lane = hash_value(L, t->tuple.items[i], LLVMBuildExtractValue(L->b, v, (unsigned)i, ""));
        if (!lane)
            return NULL;
        acc = LLVMBuildAdd(L->b, acc, LLVMBuildMul(L->b, lane, i64c(L, 14029467366897019727ULL), ""), "");
        acc = LLVMBuildOr(L->b, LLVMBuildShl(L->b, acc, i64c(L, 31), ""),
                          LLVMBuildLShr(L->b, acc, i64c(L, 33), ""), "");
        acc = LLVMBuildMul(L->b, acc, i64c(L, 11400714785074694791ULL), "");
    }
    acc = LLVMBuildAdd(L->b, acc, i64c(L, (uint64_t)t->tuple.n ^ (2870177450012600261ULL ^ 3527539ULL)), "");
    LLVMValueRef m1 = LLVMBuildICmp(L->b, LLVMIntEQ, acc, lower_i64(L, -1), "");
    return LLVMBuildSelect(L->b, m1, lower_i64(L, 1546275796), acc, "");
}

static LLVMValueRef hash_value(Lower *L, Type *t, LLVMValueRef v)
{
    switch (t->kind) {
    case TY_BOOL:
        return LLVMBuildZExt(L->b, v, L->i64, "");
    case TY_INT8: case TY_INT16: case TY_INT32: case TY_INT64:
        return hash_i64(L, lower_cast(L, v, t, ty_scalar(TY_INT64)), false);
    case TY_UINT8: case TY_UINT16: case TY_UINT32: case TY_UINT64:
        return hash_i64(L, LLVMBuildZExt(L->b, v, L->i64, ""), true);
    case TY_FLOAT32: case TY_FLOAT64:
        return hash_f64(L, lower_cast(L, v, t, ty_scalar(TY_FLOAT64)));
    case TY_TUPLE:
        return hash_tuple(L, t, v);
    case TY_STR:
        return lower_str_hash(L, v);
    default:
        lower_unsupported(L, "%s is not hashable in compiled code", t->name);
        return NULL;
    }
}

/* Python's == of two keys of type t (NaN unequal to itself, -0.0 == 0.0). */
static LLVMValueRef keys_equal(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b)
{
    switch (t->kind) {
    case TY_TUPLE: {
        LLVMValueRef eq = LLVMConstInt(L->i1, 1, 0);
        for (int i = 0; i < t->tuple.n; i++) {
            LLVMValueRef e = keys_equal(L, t->tuple.items[i], LLVMBuildExtractValue(L->b, a, (unsigned)i, ""),
                                        LLVMBuildExtractValue(L->b, b, (unsigned)i, ""));
            if (!e)
                return NULL;
            eq = LLVMBuildAnd(L->b, eq, e, "");
        }
        return eq;
    }
    case TY_STR:
        return lower_str_equal(L, a, b);
    default:
        if (!ty_is_scalar(t) || ty_is_complex(t)) {
            lower_unsupported(L, "%s is not hashable in compiled code", t->name);
            return NULL;
        }
        return lower_compare_scalar(L, CMP_EQ, t, a, b);
    }
}

/* ---- probing ----------------------------------------------------------------------------- */

typedef struct Probe {
    LLVMValueRef h;         /* the key's hash */
    LLVMValueRef ix;        /* the entry found, or -1 */
    LLVMValueRef slot;      /* its index slot, or the empty slot that ended the probe */
} Probe;

/* CPython's probe for key (hash h) in the table pl: the entry and slot in pr. */
static int lookup(Lower *L, const Layout *lo, LLVMValueRef pl, LLVMValueRef key, Probe *pr)
{
    LLVMBuilderRef B = L->b;
    pr->h = hash_value(L, lo->key, key);
    if (!pr->h)
        return -1;
    LLVMValueRef mask = load_field(L, pl, DP_MASK), index = load_field(L, pl, DP_INDEX);
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef head = lower_block(L, "dict.probe"), used = lower_block(L, "dict.probe.used");
    LLVMBasicBlockRef cmp = lower_block(L, "dict.probe.cmp"), next = lower_block(L, "dict.probe.next");
    LLVMBasicBlockRef done = lower_block(L, "dict.probe.done");
    LLVMValueRef first = LLVMBuildAnd(B, pr->h, mask, "");
    LLVMBuildBr(B, head);
    LLVMPositionBuilderAtEnd(B, head);
    LLVMValueRef i = LLVMBuildPhi(B, L->i64, "slot"), perturb = LLVMBuildPhi(B, L->i64, "perturb");
    LLVMValueRef ix = LLVMBuildLoad2(B, L->i64, LLVMBuildInBoundsGEP2(B, L->i64, index, &i, 1, ""), "ix");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, ix, lower_i64(L, ABI_DICT_EMPTY), ""), done, used);
    LLVMPositionBuilderAtEnd(B, used);
    LLVMValueRef live = LLVMBuildICmp(B, LLVMIntSGE, ix, lower_i64(L, 0), "");
    LLVMValueRef e = entry_ptr(L, pl, lo, LLVMBuildSelect(B, live, ix, lower_i64(L, 0), ""));
    LLVMValueRef same_h = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildLoad2(B, L->i64, e, ""), pr->h, "");
    LLVMBuildCondBr(B, LLVMBuildAnd(B, live, same_h, ""), cmp, next);
    LLVMPositionBuilderAtEnd(B, cmp);
    LLVMValueRef eq = keys_equal(L, lo->key, load_key(L, lo, e), key);
    if (!eq)
        return -1;
    LLVMBasicBlockRef cmp_end = LLVMGetInsertBlock(B);
    LLVMBuildCondBr(B, eq, done, next);
    LLVMPositionBuilderAtEnd(B, next);
    LLVMValueRef p2 = LLVMBuildLShr(B, perturb, lower_i64(L, 5), "");
    LLVMValueRef i2 = LLVMBuildAnd(B, LLVMBuildAdd(B, LLVMBuildAdd(B, LLVMBuildMul(B, i, lower_i64(L, 5), ""),
                                                                 p2, ""), lower_i64(L, 1), ""), mask, "");
    LLVMBuildBr(B, head);
    LLVMValueRef iv[2] = {first, i2}, pv[2] = {pr->h, p2};
    LLVMBasicBlockRef from[2] = {entry, next};
    LLVMAddIncoming(i, iv, from, 2);
    LLVMAddIncoming(perturb, pv, from, 2);
    LLVMPositionBuilderAtEnd(B, done);
    pr->ix = LLVMBuildPhi(B, L->i64, "found");
    LLVMValueRef fv[2] = {lower_i64(L, -1), ix};
    LLVMBasicBlockRef fb[2] = {head, cmp_end};
    LLVMAddIncoming(pr->ix, fv, fb, 2);
    pr->slot = i;
    return 0;
}

static LLVMValueRef found(Lower *L, Probe *pr)
{
    return LLVMBuildICmp(L->b, LLVMIntSGE, pr->ix, lower_i64(L, 0), "");
}

/* A new entry for the key of pr (not in the table), its key stored: the entry's address. */
static LLVMValueRef insert_new(Lower *L, const Layout *lo, LLVMValueRef d, LLVMValueRef pl, Probe *pr,
                               LLVMValueRef key)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef n = load_field(L, pl, DP_NENTRIES);
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(B);
    LLVMValueRef full = LLVMBuildICmp(B, LLVMIntSGE, n, load_field(L, pl, DP_USABLE), "");
    LLVMBasicBlockRef cont = lower_unlikely(L, full);
    LLVMValueRef args[2] = {LLVMBuildExtractValue(B, d, 0, ""), pr->h};
    LLVMValueRef grown = lower_call_rt(L, "pj_dict_grow_slot", L->i64, args, 2);
    lower_check(L, LLVMBuildICmp(B, LLVMIntSLT, grown, lower_i64(L, 0), ""), ABI_EXC_MEMORY,
                "out of memory growing a dict", NULL, 0);
    LLVMBasicBlockRef grew = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, cont);
    LLVMPositionBuilderAtEnd(B, cont);
    LLVMValueRef slot = LLVMBuildPhi(B, L->i64, "slot");
    LLVMValueRef sv[2] = {pr->slot, grown};
    LLVMBasicBlockRef sb[2] = {entry, grew};
    LLVMAddIncoming(slot, sv, sb, 2);
    n = load_field(L, pl, DP_NENTRIES);   /* growing compacts the entries */
    LLVMValueRef index = load_field(L, pl, DP_INDEX);
    LLVMBuildStore(B, n, LLVMBuildInBoundsGEP2(B, L->i64, index, &slot, 1, ""));
    LLVMValueRef e = entry_ptr(L, pl, lo, n);
    LLVMBuildStore(B, pr->h, e);
    lower_incref_value(L, lo->key, key);   /* a string key: the table's own reference */
    lower_store_mem(L, lo->key, key, at_offset(L, e, 8));
    store_field(L, pl, DP_NENTRIES, LLVMBuildAdd(B, n, lower_i64(L, 1), ""));
    store_field(L, pl, DP_USED, LLVMBuildAdd(B, load_field(L, pl, DP_USED), lower_i64(L, 1), ""));
    return e;
}

/* Stores v as the value of entry e, taking a reference of its own. */
static void store_value(Lower *L, const Layout *lo, LLVMValueRef e, LLVMValueRef v)
{
    lower_incref_value(L, lo->value, v);
    lower_store_mem(L, lo->value, v, at_offset(L, e, lo->valoff));
}

/* The entry of pr deleted: its key and value released (unless their references pass to the
 * caller), its slot a dummy. */
static void delete_found(Lower *L, const Layout *lo, LLVMValueRef pl, Probe *pr, bool release)
{
    LLVMValueRef e = entry_ptr(L, pl, lo, pr->ix);
    if (release && lower_is_counted(lo->key))
        lower_decref_value(L, lo->key, load_key(L, lo, e));
    if (release && lo->value && lower_is_counted(lo->value))
        lower_decref_value(L, lo->value, load_value(L, lo, e));
    LLVMBuildStore(L->b, lower_i64(L, ABI_DICT_DELETED), e);
    LLVMValueRef index = load_field(L, pl, DP_INDEX);
    LLVMBuildStore(L->b, lower_i64(L, ABI_DICT_DUMMY), LLVMBuildInBoundsGEP2(L->b, L->i64, index, &pr->slot, 1, ""));
    store_field(L, pl, DP_USED, LLVMBuildSub(L->b, load_field(L, pl, DP_USED), lower_i64(L, 1), ""));
}

/* KeyError(key) of a string key: the string goes with a reference of its own, taken only when
 * the key is missing, which the exception takes over (abi.h: ABI_EXC_ARGS_SPEC). */
static void check_found_str(Lower *L, Probe *pr, LLVMValueRef key)
{
    LLVMBasicBlockRef cont = lower_unlikely(L, LLVMBuildNot(L->b, found(L, pr), ""));
    lower_incref_value(L, ty_str(), key);
    LLVMValueRef arg = LLVMBuildPtrToInt(L->b, LLVMBuildExtractValue(L->b, key, 0, ""), L->i64, "");
    lower_check(L, LLVMConstInt(L->i1, 1, 0), ABI_EXC_KEY, "\x1e" "S", &arg, 1);
    LLVMBuildUnreachable(L->b);
    LLVMPositionBuilderAtEnd(L->b, cont);
}

/* KeyError(key) unless pr found the key: CPython's message, the key's repr, for number and
 * string keys; other keys raise it bare. Continues where it was found. */
static void check_found(Lower *L, const Layout *lo, Probe *pr, LLVMValueRef key)
{
    Type *kt = lo->key;
    LLVMValueRef arg = NULL;
    const char *spec = NULL;
    if (kt->kind == TY_STR) {
        check_found_str(L, pr, key);
        return;
    }
    if (kt->kind == TY_BOOL) {
        arg = LLVMBuildZExt(L->b, key, L->i64, "");
        spec = "\x1e" "b";
    } else if (ty_is_signed(kt)) {
        arg = lower_cast(L, key, kt, ty_scalar(TY_INT64));
        spec = "\x1e" "i";
    } else if (ty_is_int(kt)) {
        arg = LLVMBuildZExt(L->b, key, L->i64, "");
        spec = "\x1e" "u";
    } else if (ty_is_float(kt)) {
        arg = LLVMBuildBitCast(L->b, lower_cast(L, key, kt, ty_scalar(TY_FLOAT64)), L->i64, "");
        spec = "\x1e" "f";
    }
    lower_check(L, LLVMBuildNot(L->b, found(L, pr), ""), ABI_EXC_KEY, spec, arg ? &arg : NULL, arg ? 1 : 0);
}

/* d[k] = v: the value replaced (the old one released after the store) or a new entry. */
static void set_item(Lower *L, const Layout *lo, LLVMValueRef d, LLVMValueRef key, LLVMValueRef v)
{
    LLVMValueRef pl = payload(L, d);
    Probe pr;
    if (lookup(L, lo, pl, key, &pr) < 0)
        return;
    LLVMBasicBlockRef hit = lower_block(L, "dict.set.hit"), miss = lower_block(L, "dict.set.new");
    LLVMBasicBlockRef done = lower_block(L, "dict.set.done");
    LLVMBuildCondBr(L->b, found(L, &pr), hit, miss);
    LLVMPositionBuilderAtEnd(L->b, hit);
    if (lo->value) {
        LLVMValueRef e = entry_ptr(L, pl, lo, pr.ix);
        LLVMValueRef old = lower_is_counted(lo->value) ? load_value(L, lo, e) : NULL;
        store_value(L, lo, e, v);
        if (old)
            lower_decref_value(L, lo->value, old);
    }
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, miss);
    LLVMValueRef e = insert_new(L, lo, d, pl, &pr, key);
    if (lo->value)
        store_value(L, lo, e, v);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
}

/* A phi of two values at the current block, from blocks a and b. */
static LLVMValueRef phi2(Lower *L, LLVMValueRef va, LLVMBasicBlockRef a, LLVMValueRef vb, LLVMBasicBlockRef b)
{
    LLVMValueRef p = LLVMBuildPhi(L->b, LLVMTypeOf(va), "");
    LLVMValueRef v[2] = {va, vb};
    LLVMBasicBlockRef f[2] = {a, b};
    LLVMAddIncoming(p, v, f, 2);
    return p;
}

/* d.get(k, default) and d.pop(k[, default]): the value, or the default (new reference for in). */
static LLVMValueRef get_or(Lower *L, Instr *in, const Layout *lo, LLVMValueRef d, LLVMValueRef key,
                           LLVMValueRef dflt, bool pop)
{
    LLVMValueRef pl = payload(L, d);
    Probe pr;
    if (lookup(L, lo, pl, key, &pr) < 0)
        return NULL;
    if (!dflt)
        check_found(L, lo, &pr, key);
    LLVMBasicBlockRef hit = lower_block(L, "dict.get.hit"), miss = lower_block(L, "dict.get.miss");
    LLVMBasicBlockRef done = lower_block(L, "dict.get.done");
    LLVMBuildCondBr(L->b, found(L, &pr), hit, miss);
    LLVMPositionBuilderAtEnd(L->b, hit);
    LLVMValueRef v = load_value(L, lo, entry_ptr(L, pl, lo, pr.ix));
    if (pop)
        delete_found(L, lo, pl, &pr, false);   /* the value's reference passes to the result */
    else
        lower_incref_value(L, lo->value, v);
    LLVMBasicBlockRef hit_end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, miss);
    if (dflt)
        lower_incref_value(L, lo->value, dflt);
    LLVMBasicBlockRef miss_end = LLVMGetInsertBlock(L->b);   /* the incref may add blocks */
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    LLVMValueRef r = phi2(L, v, hit_end, dflt ? dflt : LLVMGetUndef(LLVMTypeOf(v)), miss_end);
    if (lower_is_counted(lo->value))
        lower_own_value(L, in, lo->value, r);
    return r;
}

/* d.setdefault(k, v): the value of k, stored as v first when k is missing. */
static LLVMValueRef setdefault(Lower *L, Instr *in, const Layout *lo, LLVMValueRef d, LLVMValueRef key,
                               LLVMValueRef v)
{
    LLVMValueRef pl = payload(L, d);
    Probe pr;
    if (lookup(L, lo, pl, key, &pr) < 0)
        return NULL;
    LLVMBasicBlockRef hit = lower_block(L, "dict.sd.hit"), miss = lower_block(L, "dict.sd.new");
    LLVMBasicBlockRef done = lower_block(L, "dict.sd.done");
    LLVMBuildCondBr(L->b, found(L, &pr), hit, miss);
    LLVMPositionBuilderAtEnd(L->b, hit);
    LLVMValueRef old = load_value(L, lo, entry_ptr(L, pl, lo, pr.ix));
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, miss);
    store_value(L, lo, insert_new(L, lo, d, pl, &pr, key), v);
    LLVMBasicBlockRef miss_end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    LLVMValueRef r = phi2(L, old, hit, v, miss_end);
    if (lower_is_counted(lo->value)) {
        lower_incref_value(L, lo->value, r);
        lower_own_value(L, in, lo->value, r);
    }
    return r;
}

/* The last live entry (dict.popitem, set.pop): its number, KeyError(msg) when empty. The
 * entries after it (deleted ones) are dropped, so the next pop starts there. */
static LLVMValueRef last_entry(Lower *L, const Layout *lo, LLVMValueRef pl, const char *msg)
{
    LLVMBuilderRef B = L->b;
    lower_check(L, LLVMBuildICmp(B, LLVMIntEQ, load_field(L, pl, DP_USED), lower_i64(L, 0), ""),
                ABI_EXC_KEY, msg, NULL, 0);
    LLVMValueRef n = load_field(L, pl, DP_NENTRIES);
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(B), head = lower_block(L, "dict.last");
    LLVMBasicBlockRef done = lower_block(L, "dict.last.done");
    LLVMBuildBr(B, head);
    LLVMPositionBuilderAtEnd(B, head);
    LLVMValueRef i = LLVMBuildPhi(B, L->i64, "");
    LLVMValueRef ix = LLVMBuildSub(B, i, lower_i64(L, 1), "");
    LLVMValueRef dead = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildLoad2(B, L->i64, entry_ptr(L, pl, lo, ix), ""),
                                      lower_i64(L, ABI_DICT_DELETED), "");
    LLVMBuildCondBr(B, dead, head, done);
    LLVMValueRef iv[2] = {n, ix};
    LLVMBasicBlockRef ib[2] = {entry, head};
    LLVMAddIncoming(i, iv, ib, 2);
    LLVMPositionBuilderAtEnd(B, done);
    return ix;
}

/* Pops the last live entry of d: its entry and slot in pr, for delete_found, and its address.
 * The slot is found from the entry number, not by comparing keys (a NaN key equals nothing). */
static LLVMValueRef pop_last(Lower *L, const Layout *lo, LLVMValueRef d, LLVMValueRef pl,
                             const char *msg, Probe *pr)
{
    pr->ix = last_entry(L, lo, pl, msg);
    LLVMValueRef args[2] = {LLVMBuildExtractValue(L->b, d, 0, ""), pr->ix};
    pr->slot = lower_call_rt(L, "pj_dict_slot_of", L->i64, args, 2);
    return entry_ptr(L, pl, lo, pr->ix);
}

LLVMValueRef lower_build_dict(Lower *L, Instr *in)
{
    Type *t = in->type;
    bool is_set = t->kind == TY_SET;
    int per = is_set ? 1 : 2;
    LLVMValueRef d = table_new(L, t, lower_i64(L, in->nargs / per));
    if (!d)
        return NULL;
    lower_own(L, in, d);
    Layout lo = layout_of(t);
    for (int k = 0; k + per <= in->nargs; k += per)
        set_item(L, &lo, d, lower_value(L, in->args[k]), is_set ? NULL : lower_value(L, in->args[k + 1]));
    return d;
}

LLVMValueRef lower_dict_contains(Lower *L, Type *t, LLVMValueRef d, LLVMValueRef key)
{
    Layout lo = layout_of(t);
    Probe pr;
    if (lookup(L, &lo, payload(L, d), key, &pr) < 0)
        return NULL;
    return found(L, &pr);
}

/* ---- iteration -------------------------------------------------------------------------------- */

/* The next key (a dict's or set's) at *state (an entry number), RuntimeError when the table's
 * size changed since the loop began (used0); branches to done at the end. */
LLVMValueRef lower_dict_next(Lower *L, Type *t, LLVMValueRef d, LLVMValueRef state, LLVMValueRef used0,
                             LLVMBasicBlockRef done)
{
    LLVMBuilderRef B = L->b;
    Layout lo = layout_of(t);
    LLVMValueRef pl = payload(L, d);
    lower_check(L, LLVMBuildICmp(B, LLVMIntNE, load_field(L, pl, DP_USED), used0, ""), ABI_EXC_RUNTIME,
                t->kind == TY_SET ? "Set changed size during iteration"
                                  : "dictionary changed size during iteration", NULL, 0);
    LLVMValueRef n = load_field(L, pl, DP_NENTRIES), start = LLVMBuildLoad2(B, L->i64, state, "");
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(B), head = lower_block(L, "dict.iter");
    LLVMBasicBlockRef test = lower_block(L, "dict.iter.test"), more = lower_block(L, "dict.iter.item");
    LLVMBuildBr(B, head);
    LLVMPositionBuilderAtEnd(B, head);
    LLVMValueRef i = LLVMBuildPhi(B, L->i64, "");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i, n, ""), test, done);
    LLVMPositionBuilderAtEnd(B, test);
    LLVMValueRef e = entry_ptr(L, pl, &lo, i);
    LLVMValueRef next = LLVMBuildAdd(B, i, lower_i64(L, 1), "");
    LLVMValueRef dead = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildLoad2(B, L->i64, e, ""), lower_i64(L, ABI_DICT_DELETED), "");
    LLVMBuildCondBr(B, dead, head, more);
    LLVMValueRef iv[2] = {start, next};
    LLVMBasicBlockRef ib[2] = {entry, test};
    LLVMAddIncoming(i, iv, ib, 2);
    LLVMPositionBuilderAtEnd(B, more);
    LLVMBuildStore(B, next, state);
    return load_key(L, &lo, e);
}

/* ---- builtins ------------------------------------------------------------------------------- */

LLVMValueRef lower_bi_dict(Lower *L, Instr *in, Builtin bi)
{
    Instr *self = in->args[0];
    Type *t = self->type;
    LLVMValueRef none = LLVMConstNull(L->none_ty);
    if (bi == BI_HASH)
        return hash_value(L, t, lower_value(L, self));
    Layout lo = layout_of(t);
    LLVMValueRef d = lower_value(L, self);
    LLVMValueRef a1 = in->nargs > 1 ? lower_value(L, in->args[1]) : NULL;
    LLVMValueRef a2 = in->nargs > 2 ? lower_value(L, in->args[2]) : NULL;
    switch (bi) {
    case BI_DICT_SETITEM:
    case BI_SET_ADD:
        set_item(L, &lo, d, a1, a2);
        return none;
    case BI_DICT_GETITEM:
    case BI_DICT_GET:
        return get_or(L, in, &lo, d, a1, a2, false);
    case BI_DICT_POP:
        return get_or(L, in, &lo, d, a1, a2, true);
    case BI_DICT_SETDEFAULT:
        return setdefault(L, in, &lo, d, a1, a2);
    case BI_DICT_CONTAINS:
    case BI_SET_CONTAINS:
        return lower_dict_contains(L, t, d, a1);
    case BI_DICT_DELITEM:
    case BI_SET_REMOVE:
    case BI_SET_DISCARD: {
        LLVMValueRef pl = payload(L, d);
        Probe pr;
        if (lookup(L, &lo, pl, a1, &pr) < 0)
            return NULL;
        if (bi != BI_SET_DISCARD)
            check_found(L, &lo, &pr, a1);
        LLVMBasicBlockRef cont = lower_block(L, "dict.del.done"), del = lower_block(L, "dict.del");
        LLVMBuildCondBr(L->b, found(L, &pr), del, cont);
        LLVMPositionBuilderAtEnd(L->b, del);
        delete_found(L, &lo, pl, &pr, true);
        LLVMBuildBr(L->b, cont);
        LLVMPositionBuilderAtEnd(L->b, cont);
        return none;
    }
    case BI_DICT_POPITEM:
    case BI_SET_POP: {
        LLVMValueRef pl = payload(L, d);
        Probe pr;
        LLVMValueRef e = pop_last(L, &lo, d, pl, bi == BI_SET_POP ? "pop from an empty set"
                                                                : "popitem(): dictionary is empty", &pr);
        LLVMValueRef key = load_key(L, &lo, e), r = key;
        if (bi == BI_DICT_POPITEM) {   /* the value's reference passes to the tuple */
            r = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, in->type)), key, 0, "");
            r = LLVMBuildInsertValue(L->b, r, load_value(L, &lo, e), 1, "");
        }
        delete_found(L, &lo, pl, &pr, false);   /* the key's and value's references pass to r */
        lower_own_value(L, in, in->type, r);   /* the key's and the value's, a slot each */
        return r;
    }
    case BI_DICT_CLEAR:
    case BI_SET_CLEAR: {
        LLVMValueRef mi = LLVMBuildExtractValue(L->b, d, 0, "");
        lower_call_rt(L, "pj_dict_clear", LLVMVoidTypeInContext(L->ctx), &mi, 1);
        return none;
    }
    case BI_DICT_COPY:
    case BI_SET_COPY: {
        LLVMValueRef mi = LLVMBuildExtractValue(L->b, d, 0, "");
        LLVMValueRef copy = lower_call_rt(L, "pj_dict_copy", L->ptr, &mi, 1);
        lower_check(L, LLVMBuildIsNull(L->b, copy, ""), ABI_EXC_MEMORY, "out of memory copying a dict", NULL, 0);
        LLVMValueRef r = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, in->type)), copy, 0, "");
        lower_own(L, in, r);
        return r;
    }
    default:
        lower_unsupported(L, "internal: dict builtin %s", ir_builtin_name(bi));
        return NULL;
    }
}
