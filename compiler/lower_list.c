/* lower_list.c: lowering of lists (abi.h's ListPayload behind a MemInfo).
 *
 * A list value is { ptr meminfo }, reference counted as arrays are (lower.h). Compiled code works
 * on the payload in place: the length and the items are loads and stores; making a list and
 * growing its items are runtime calls (runtime/list.c). An item holding references (an array, a
 * list) keeps one of its own: storing one increfs it, replacing or removing one decrefs the old,
 * and reading one gives the reader a new reference. Every change sets the payload's dirty flag,
 * which tells the runtime to write a list that came from Python back to it. */
#include "compiler/lower.h"

#include "compiler/arena.h"

enum { PL_LEN, PL_CAP, PL_ITEMS, PL_ITEMSIZE, PL_PARENT, PL_DIRTY, PL_NREFS, PL_REFS };

static LLVMTypeRef payload_type(Lower *L)
{
    LLVMTypeRef f[8] = {L->i64, L->i64, L->ptr, L->i64, L->ptr, L->i32, L->i32,
                        LLVMArrayType(L->i32, ABI_LIST_MAX_REFS)};
    return LLVMStructTypeInContext(L->ctx, f, 8, 0);
}

static LLVMValueRef payload(Lower *L, LLVMValueRef list)
{
    LLVMValueRef mi = LLVMBuildExtractValue(L->b, list, 0, "");
    return LLVMBuildLoad2(L->b, L->ptr, LLVMBuildStructGEP2(L->b, L->mi_ty, mi, 1, ""), "list.payload");
}

static LLVMValueRef field(Lower *L, LLVMValueRef pl, int k)
{
    return LLVMBuildStructGEP2(L->b, payload_type(L), pl, (unsigned)k, "");
}

static LLVMValueRef load_len(Lower *L, LLVMValueRef pl)
{
    return LLVMBuildLoad2(L->b, L->i64, field(L, pl, PL_LEN), "list.len");
}

static void store_len(Lower *L, LLVMValueRef pl, LLVMValueRef n)
{
    LLVMBuildStore(L->b, n, field(L, pl, PL_LEN));
    LLVMBuildStore(L->b, LLVMConstInt(L->i32, 1, 0), field(L, pl, PL_DIRTY));
}

static LLVMValueRef item_ptr(Lower *L, Type *item, LLVMValueRef pl, LLVMValueRef i)
{
    LLVMValueRef items = LLVMBuildLoad2(L->b, L->ptr, field(L, pl, PL_ITEMS), "list.items");
    LLVMValueRef off = LLVMBuildMul(L->b, i, lower_i64(L, ty_mem_size(item)), "");
    return LLVMBuildInBoundsGEP2(L->b, L->i8, items, &off, 1, "");
}

LLVMValueRef lower_list_items(Lower *L, LLVMValueRef list)
{
    return LLVMBuildLoad2(L->b, L->ptr, field(L, payload(L, list), PL_ITEMS), "list.items");
}

LLVMValueRef lower_list_len(Lower *L, LLVMValueRef list)
{
    return load_len(L, payload(L, list));
}

/* A counted loop, for (i = 0; i < n; i++): loop_begin leaves the builder in the body and gives i;
 * loop_end closes it and leaves the builder after it. A loop that carries a value sets
 * lp->carry_init before loop_begin, reads lp->carry in the body and after the loop, and sets
 * lp->carry_next before loop_end. */
typedef struct Loop {
    LLVMBasicBlockRef entry, head, done;
    LLVMValueRef i;
    LLVMValueRef carry_init, carry, carry_next;
} Loop;

static LLVMValueRef loop_begin(Lower *L, Loop *lp, LLVMValueRef n, const char *name)
{
    lp->entry = LLVMGetInsertBlock(L->b);
    lp->head = lower_block(L, name);
    lp->done = lower_block(L, name);
    LLVMBasicBlockRef body = lower_block(L, name);
    LLVMBuildBr(L->b, lp->head);
    LLVMPositionBuilderAtEnd(L->b, lp->head);
    lp->i = LLVMBuildPhi(L->b, L->i64, "");
    if (lp->carry_init)
        lp->carry = LLVMBuildPhi(L->b, LLVMTypeOf(lp->carry_init), "");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, lp->i, n, ""), body, lp->done);
    LLVMPositionBuilderAtEnd(L->b, body);
    return lp->i;
}

static void loop_end(Lower *L, Loop *lp)
{
    LLVMValueRef next = LLVMBuildAdd(L->b, lp->i, lower_i64(L, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, lp->head);
    LLVMValueRef in[2] = {lower_i64(L, 0), next};
    LLVMBasicBlockRef from[2] = {lp->entry, latch};
    LLVMAddIncoming(lp->i, in, from, 2);
    if (lp->carry_init) {
        LLVMValueRef cv[2] = {lp->carry_init, lp->carry_next};
        LLVMAddIncoming(lp->carry, cv, from, 2);
    }
    LLVMPositionBuilderAtEnd(L->b, lp->done);
}

/* A new list of type lt with n items not yet written: a new reference the caller owns. */
static LLVMValueRef list_new(Lower *L, Type *lt, LLVMValueRef n)
{
    int32_t refs[ABI_LIST_MAX_REFS];
    int nrefs = ty_ref_offsets(lt->list.item, 0, refs, 0, ABI_LIST_MAX_REFS);
    if (nrefs < 0) {
        lower_unsupported(L, "a list of %s: its items hold more than %d arrays or lists",
                          lt->list.item->name, ABI_LIST_MAX_REFS);
        return NULL;
    }
    LLVMValueRef rv[ABI_LIST_MAX_REFS];
    for (int k = 0; k < nrefs; k++)
        rv[k] = LLVMConstInt(L->i32, (unsigned)refs[k], 0);
    LLVMValueRef table = LLVMConstArray(L->i32, rv, (unsigned)nrefs);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMTypeOf(table), "pj.list.refs");
    LLVMSetInitializer(g, table);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMValueRef args[4] = {lower_i64(L, ty_mem_size(lt->list.item)), n, g,
                            LLVMConstInt(L->i32, (unsigned)nrefs, 0)};
    LLVMValueRef mi = lower_call_rt(L, "pj_list_new", L->ptr, args, 4);
    lower_check(L, LLVMBuildIsNull(L->b, mi, ""), ABI_EXC_MEMORY, "out of memory making a list", NULL, 0);
    return LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, lt)), mi, 0, "");
}

/* Stores v as item i, taking a reference of its own for what it holds. */
static void store_item(Lower *L, Type *item, LLVMValueRef pl, LLVMValueRef i, LLVMValueRef v)
{
    lower_incref_value(L, item, v);
    lower_store_mem(L, item, v, item_ptr(L, item, pl, i));
}

LLVMValueRef lower_build_list(Lower *L, Instr *in)
{
    Type *lt = in->type;
    LLVMValueRef list = list_new(L, lt, lower_i64(L, in->nargs));
    if (!list)
        return NULL;
    LLVMValueRef pl = payload(L, list);
    for (int k = 0; k < in->nargs; k++)
        store_item(L, lt->list.item, pl, lower_i64(L, k), lower_value(L, in->args[k]));
    lower_own(L, in, list);
    return list;
}

/* i wrapped if negative and checked against the length: IndexError(msg) outside. */
static LLVMValueRef checked_index(Lower *L, LLVMValueRef i, LLVMValueRef n, const char *msg)
{
    LLVMValueRef w = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, lower_i64(L, 0), ""),
                                     LLVMBuildAdd(L->b, i, n, ""), i, "");
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntUGE, w, n, ""), ABI_EXC_INDEX, msg, NULL, 0);
    return w;
}

/* Item i read for the instruction in: a counted item gives in a reference of its own. */
static LLVMValueRef read_item(Lower *L, Instr *in, Type *item, LLVMValueRef pl, LLVMValueRef i)
{
    LLVMValueRef v = lower_load_mem(L, item, item_ptr(L, item, pl, i));
    if (lower_is_counted(item)) {
        lower_incref_value(L, item, v);
        lower_own_value(L, in, item, v);
    }
    return v;
}

LLVMValueRef lower_list_next(Lower *L, Instr *in, LLVMValueRef list, LLVMValueRef i)
{
    return read_item(L, in, in->type, payload(L, list), i);
}

static void append(Lower *L, Type *item, LLVMValueRef list, LLVMValueRef v)
{
    LLVMValueRef pl = payload(L, list), n = load_len(L, pl);
    LLVMValueRef cap = LLVMBuildLoad2(L->b, L->i64, field(L, pl, PL_CAP), "");
    LLVMBasicBlockRef cont = lower_unlikely(L, LLVMBuildICmp(L->b, LLVMIntEQ, n, cap, ""));
    LLVMValueRef args[2] = {LLVMBuildExtractValue(L->b, list, 0, ""), LLVMBuildAdd(L->b, n, lower_i64(L, 1), "")};
    LLVMValueRef rc = lower_call_rt(L, "pj_list_reserve", L->i32, args, 2);
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntNE, rc, LLVMConstInt(L->i32, 0, 0), ""), ABI_EXC_MEMORY,
                "out of memory growing a list", NULL, 0);
    LLVMBuildBr(L->b, cont);
    LLVMPositionBuilderAtEnd(L->b, cont);
    store_item(L, item, pl, n, v);   /* items reloaded: growing may have moved them */
    store_len(L, pl, LLVMBuildAdd(L->b, n, lower_i64(L, 1), ""));
}

/* list.pop(i): the item (its reference passes to the result), the ones after it moved down. */
static LLVMValueRef pop(Lower *L, Instr *in, Type *item, LLVMValueRef list, LLVMValueRef i)
{
    LLVMValueRef pl = payload(L, list), n = load_len(L, pl);
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, n, lower_i64(L, 0), ""), ABI_EXC_INDEX,
                "pop from empty list", NULL, 0);
    i = i ? checked_index(L, i, n, "pop index out of range") : LLVMBuildSub(L->b, n, lower_i64(L, 1), "");
    LLVMValueRef at = item_ptr(L, item, pl, i);
    LLVMValueRef v = lower_load_mem(L, item, at);
    if (lower_is_counted(item))
        lower_own_value(L, in, item, v);
    LLVMValueRef last = LLVMBuildSub(L->b, n, lower_i64(L, 1), "");
    LLVMValueRef size = lower_i64(L, ty_mem_size(item));
    LLVMValueRef bytes = LLVMBuildMul(L->b, LLVMBuildSub(L->b, last, i, ""), size, "");
    LLVMValueRef from = LLVMBuildInBoundsGEP2(L->b, L->i8, at, &size, 1, "");
    LLVMBuildMemMove(L->b, at, 1, from, 1, bytes);
    store_len(L, pl, last);
    return v;
}

/* Releases what items [0, n) hold, in a loop (nothing for items that hold no reference). */
static void release_items(Lower *L, Type *item, LLVMValueRef pl, LLVMValueRef n)
{
    if (!lower_is_counted(item))
        return;
    Loop lp = {0};
    LLVMValueRef i = loop_begin(L, &lp, n, "list.release");
    lower_decref_value(L, item, lower_load_mem(L, item, item_ptr(L, item, pl, i)));
    loop_end(L, &lp);
}

/* Copies n items of src from index from to dst from index at (room made), taking references. */
static void copy_items(Lower *L, Type *item, LLVMValueRef dst, LLVMValueRef at, LLVMValueRef src,
                       LLVMValueRef from, LLVMValueRef n)
{
    LLVMValueRef bytes = LLVMBuildMul(L->b, n, lower_i64(L, ty_mem_size(item)), "");
    LLVMBuildMemMove(L->b, item_ptr(L, item, dst, at), 1, item_ptr(L, item, src, from), 1, bytes);
    if (!lower_is_counted(item))
        return;
    Loop lp = {0};
    LLVMValueRef i = loop_begin(L, &lp, n, "list.copy");
    LLVMValueRef k = LLVMBuildAdd(L->b, at, i, "");
    lower_incref_value(L, item, lower_load_mem(L, item, item_ptr(L, item, dst, k)));
    loop_end(L, &lp);
}

/* The first n items in reverse order, in place (numbers: nothing to count). */
static void reverse_items(Lower *L, Type *item, LLVMValueRef pl, LLVMValueRef n)
{
    Loop lp = {0};
    LLVMValueRef i = loop_begin(L, &lp, LLVMBuildSDiv(L->b, n, lower_i64(L, 2), ""), "list.reverse");
    LLVMValueRef j = LLVMBuildSub(L->b, LLVMBuildSub(L->b, n, lower_i64(L, 1), ""), i, "");
    LLVMValueRef pi = item_ptr(L, item, pl, i), pj = item_ptr(L, item, pl, j);
    LLVMValueRef x = lower_load_mem(L, item, pi), y = lower_load_mem(L, item, pj);
    lower_store_mem(L, item, y, pi);
    lower_store_mem(L, item, x, pj);
    loop_end(L, &lp);
}

/* list.extend(other): other's items appended (other may be the list itself). */
static void extend(Lower *L, Type *item, LLVMValueRef list, LLVMValueRef other)
{
    LLVMValueRef pl = payload(L, list), opl = payload(L, other);
    LLVMValueRef n = load_len(L, pl), m = load_len(L, opl), total = LLVMBuildAdd(L->b, n, m, "");
    LLVMValueRef args[2] = {LLVMBuildExtractValue(L->b, list, 0, ""), total};
    LLVMValueRef rc = lower_call_rt(L, "pj_list_reserve", L->i32, args, 2);
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntNE, rc, LLVMConstInt(L->i32, 0, 0), ""), ABI_EXC_MEMORY,
                "out of memory growing a list", NULL, 0);
    copy_items(L, item, pl, n, opl, lower_i64(L, 0), m);
    store_len(L, pl, total);
}

/* list * n: a new list of the items n times (none for n <= 0). */
static LLVMValueRef repeat(Lower *L, Instr *in, LLVMValueRef list, LLVMValueRef n)
{
    Type *lt = in->type, *item = lt->list.item;
    LLVMValueRef pl = payload(L, list), m = load_len(L, pl);
    n = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, n, lower_i64(L, 0), ""), n, lower_i64(L, 0), "");
    LLVMValueRef total = LLVMBuildMul(L->b, m, n, "");   /* huge counts fail to allocate */
    LLVMValueRef out = list_new(L, lt, total);
    if (!out)
        return NULL;
    lower_own(L, in, out);
    LLVMValueRef opl = payload(L, out);
    Loop lp = {0};
    LLVMValueRef k = loop_begin(L, &lp, n, "list.repeat");
    copy_items(L, item, opl, LLVMBuildMul(L->b, k, m, ""), pl, lower_i64(L, 0), m);
    loop_end(L, &lp);
    return out;
}

/* x in list, for numbers: a scan comparing each item, cast to x's type xt (their promotion). */
LLVMValueRef lower_list_contains(Lower *L, Type *item, LLVMValueRef list, Type *xt, LLVMValueRef x)
{
    LLVMValueRef pl = payload(L, list), n = load_len(L, pl);
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef head = lower_block(L, "list.find"), body = lower_block(L, "list.find.body");
    LLVMBasicBlockRef done = lower_block(L, "list.found");
    LLVMBuildBr(L->b, head);
    LLVMPositionBuilderAtEnd(L->b, head);
    LLVMValueRef i = LLVMBuildPhi(L->b, L->i64, "");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, n, ""), body, done);
    LLVMPositionBuilderAtEnd(L->b, body);
    LLVMValueRef v = lower_load_mem(L, item, item_ptr(L, item, pl, i));
    LLVMValueRef eq = item->kind == TY_STR ? lower_str_equal(L, v, x)
                                           : lower_compare_scalar(L, CMP_EQ, xt, lower_cast(L, v, item, xt), x);
    LLVMValueRef next = LLVMBuildAdd(L->b, i, lower_i64(L, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    LLVMBuildCondBr(L->b, eq, done, head);
    LLVMValueRef iv[2] = {lower_i64(L, 0), next};
    LLVMBasicBlockRef from[2] = {entry, latch};
    LLVMAddIncoming(i, iv, from, 2);
    LLVMPositionBuilderAtEnd(L->b, done);
    LLVMValueRef found = LLVMBuildPhi(L->b, L->i1, "");
    LLVMValueRef fv[2] = {LLVMConstInt(L->i1, 0, 0), LLVMConstInt(L->i1, 1, 0)};
    LLVMBasicBlockRef fb[2] = {head, latch};
    LLVMAddIncoming(found, fv, fb, 2);
    return found;
}

LLVMValueRef lower_list_extreme(Lower *L, Type *item, LLVMValueRef list, bool is_max)
{
    LLVMValueRef pl = payload(L, list), n = load_len(L, pl);
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, n, lower_i64(L, 0), ""), ABI_EXC_VALUE,
                is_max ? "max() arg is an empty sequence" : "min() arg is an empty sequence", NULL, 0);
    /* from item 0 with the first as the best so far: comparing it with itself changes nothing */
    Loop lp = {.carry_init = lower_load_mem(L, item, item_ptr(L, item, pl, lower_i64(L, 0)))};
    LLVMValueRef i = loop_begin(L, &lp, n, "list.extreme");
    LLVMValueRef x = lower_load_mem(L, item, item_ptr(L, item, pl, i));
    lp.carry_next = lower_minmax(L, item, lp.carry, x, is_max, false);   /* x replaces only if < or > */
    loop_end(L, &lp);
    return lp.carry;
}

/* l[a:b:c]: a new list of the items the slice selects (Python's slice.indices). */
static LLVMValueRef slice_of(Lower *L, Instr *in, Type *item, LLVMValueRef list, LLVMValueRef sl)
{
    LLVMValueRef pl = payload(L, list), start, step;
    LLVMValueRef n = lower_slice_indices(L, sl, load_len(L, pl), &start, &step);
    LLVMValueRef out = list_new(L, in->type, n);
    if (!out)
        return NULL;
    lower_own(L, in, out);
    LLVMValueRef opl = payload(L, out);
    Loop lp = {0};
    LLVMValueRef k = loop_begin(L, &lp, n, "list.slice");
    LLVMValueRef from = LLVMBuildAdd(L->b, start, LLVMBuildMul(L->b, k, step, ""), "");
    store_item(L, item, opl, k, lower_load_mem(L, item, item_ptr(L, item, pl, from)));
    loop_end(L, &lp);
    return out;
}

LLVMValueRef lower_bi_list(Lower *L, Instr *in, Builtin bi)
{
    Instr *self = in->args[0];
    Type *item = self->type->list.item;
    LLVMValueRef list = lower_value(L, self), none = LLVMConstNull(L->none_ty);
    LLVMValueRef a1 = in->nargs > 1 ? lower_value(L, in->args[1]) : NULL;
    switch (bi) {
    case BI_LIST_APPEND:
        append(L, item, list, a1);
        return none;
    case BI_LIST_GETITEM: {
        LLVMValueRef pl = payload(L, list);
        return read_item(L, in, item, pl, checked_index(L, a1, load_len(L, pl), "list index out of range"));
    }
    case BI_LIST_SETITEM: {
        LLVMValueRef pl = payload(L, list);
        LLVMValueRef i = checked_index(L, a1, load_len(L, pl), "list assignment index out of range");
        LLVMValueRef at = item_ptr(L, item, pl, i);
        LLVMValueRef old = lower_is_counted(item) ? lower_load_mem(L, item, at) : NULL;
        store_item(L, item, pl, i, lower_value(L, in->args[2]));
        if (old)
            lower_decref_value(L, item, old);   /* after the store: l[i] = l[i] keeps it alive */
        LLVMBuildStore(L->b, LLVMConstInt(L->i32, 1, 0), field(L, pl, PL_DIRTY));
        return none;
    }
    case BI_LIST_POP:
        return pop(L, in, item, list, a1);
    case BI_LIST_CLEAR: {
        LLVMValueRef pl = payload(L, list);
        release_items(L, item, pl, load_len(L, pl));
        store_len(L, pl, lower_i64(L, 0));
        return none;
    }
    case BI_LIST_EXTEND:
        extend(L, item, list, a1);
        return none;
    case BI_LIST_IADD:   /* l += other: l extended, and l is the result (a reference of its own) */
        extend(L, item, list, a1);
        lower_incref_value(L, self->type, list);
        lower_own(L, in, list);
        return list;
    case BI_LIST_ADD: {
        LLVMValueRef n = load_len(L, payload(L, list)), m = load_len(L, payload(L, a1));
        LLVMValueRef out = list_new(L, in->type, lower_i64(L, 0));
        if (!out)
            return NULL;
        lower_own(L, in, out);
        LLVMValueRef args[2] = {LLVMBuildExtractValue(L->b, out, 0, ""), LLVMBuildAdd(L->b, n, m, "")};
        LLVMValueRef rc = lower_call_rt(L, "pj_list_reserve", L->i32, args, 2);
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntNE, rc, LLVMConstInt(L->i32, 0, 0), ""), ABI_EXC_MEMORY,
                    "out of memory making a list", NULL, 0);
        extend(L, item, out, list);
        extend(L, item, out, a1);
        return out;
    }
    case BI_LIST_MUL:
        return repeat(L, in, list, a1);
    case BI_LIST_GETSLICE:
        return slice_of(L, in, item, list, a1);
    case BI_LIST_SORT: {
        LLVMValueRef pl = payload(L, list), n = load_len(L, pl);
        LLVMValueRef items = LLVMBuildLoad2(L->b, L->ptr, field(L, pl, PL_ITEMS), "");
        if (item->kind == TY_STR) {
            LLVMValueRef args[2] = {items, n};
            lower_call_rt(L, "pj_str_sort", LLVMVoidTypeInContext(L->ctx), args, 2);
        } else {
            LLVMValueRef args[4] = {items, lower_i64(L, 1), n,
                                    LLVMConstInt(L->i32, (unsigned)lower_sort_key(item), 0)};
            lower_call_rt(L, "pj_sort", LLVMVoidTypeInContext(L->ctx), args, 4);
        }
        if (a1) {   /* reverse=: then the order is turned round */
            LLVMBasicBlockRef cont = lower_unlikely(L, a1);
            reverse_items(L, item, pl, n);
            LLVMBuildBr(L->b, cont);
            LLVMPositionBuilderAtEnd(L->b, cont);
        }
        LLVMBuildStore(L->b, LLVMConstInt(L->i32, 1, 0), field(L, pl, PL_DIRTY));
        return none;
    }
    default:
        lower_unsupported(L, "internal: list builtin %s", ir_builtin_name(bi));
        return NULL;
    }
}

/* slice.indices(n): (start, stop, step) of the items the slice picks from n, stop as
 * start + len * step. */
/* s.start, s.stop, s.step with Numba's values for a None: its slices keep no None, so code
 * written for Numba reads these. */
LLVMValueRef lower_bi_slice_field(Lower *L, Instr *in, Builtin bi)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef sl = lower_value(L, in->args[0]);
    LLVMValueRef step = LLVMBuildExtractValue(B, sl, 2, "");
    if (bi == BI_SLICE_STEP)
        return step;
    LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, step, lower_i64(L, 0), "");
    LLVMValueRef big = lower_i64(L, INT64_MAX);
    bool start = bi == BI_SLICE_START;
    LLVMValueRef none = start ? LLVMBuildSelect(B, neg, big, lower_i64(L, 0), "")
                              : LLVMBuildSelect(B, neg, lower_i64(L, INT64_MIN), big, "");
    LLVMValueRef present = LLVMBuildExtractValue(B, sl, start ? 3 : 4, "");
    return LLVMBuildSelect(B, present, LLVMBuildExtractValue(B, sl, start ? 0 : 1, ""), none, "");
}

LLVMValueRef lower_bi_slice_indices(Lower *L, Instr *in, Builtin bi)
{
    (void)bi;
    LLVMValueRef start, stop, step;
    lower_slice_bounds(L, lower_value(L, in->args[0]), lower_value(L, in->args[1]), &start, &stop, &step);
    LLVMValueRef t = LLVMGetUndef(lower_type(L, in->type));
    t = LLVMBuildInsertValue(L->b, t, start, 0, "");
    t = LLVMBuildInsertValue(L->b, t, stop, 1, "");
    return LLVMBuildInsertValue(L->b, t, step, 2, "");
}
