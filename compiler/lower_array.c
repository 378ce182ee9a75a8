/* lower_array.c: NumPy arrays in compiled code (abi.h's ArrayDesc, by value in registers).
 *
 * Indexing (ints wrap when negative and are checked when boundscheck is on; slices give views
 * that share the meminfo), attributes, creation through pj_nrt_alloc (C-contiguous, 64-byte
 * aligned data), reductions, and elementwise operations with NumPy broadcasting, which all go
 * through one loop-nest emitter (ew_loop). A C-layout array's strides are computed from its
 * shape, so the innermost stride is a constant and the loops vectorise. */
#include "compiler/lower.h"

#include <stdio.h>
#include <string.h>

static bool boundscheck(Lower *L)
{
    return L->opts && (L->opts->boundscheck || L->opts->debug);
}

/* ---- descriptors ---------------------------------------------------------------------------- */

LLVMValueRef lower_array_data(Lower *L, LLVMValueRef arr)
{
    return LLVMBuildExtractValue(L->b, arr, 2, "data");
}

LLVMValueRef lower_array_dim(Lower *L, LLVMValueRef arr, int k)
{
    return LLVMBuildExtractValue(L->b, LLVMBuildExtractValue(L->b, arr, 3, ""), (unsigned)k, "");
}

LLVMValueRef lower_array_stride(Lower *L, Type *at, LLVMValueRef arr, int k)
{
    int nd = at->array.ndim;
    char lay = at->array.layout;
    if (lay != 'C' && lay != 'F')
        return LLVMBuildExtractValue(L->b, LLVMBuildExtractValue(L->b, arr, 4, ""), (unsigned)k, "");
    LLVMValueRef s = lower_i64(L, ty_itemsize(at->array.dtype));
    if (lay == 'C')
        for (int j = nd - 1; j > k; j--)
            s = LLVMBuildNSWMul(L->b, s, lower_array_dim(L, arr, j), "");
    else
        for (int j = 0; j < k; j++)
            s = LLVMBuildNSWMul(L->b, s, lower_array_dim(L, arr, j), "");
    return s;
}

LLVMValueRef lower_array_make(Lower *L, Type *at, LLVMValueRef meminfo, LLVMValueRef data,
                              LLVMValueRef *shape, LLVMValueRef *strides)
{
    LLVMBuilderRef B = L->b;
    int nd = at->array.ndim;
    LLVMTypeRef dims = LLVMArrayType(L->i64, (unsigned)nd);
    LLVMValueRef sh = LLVMGetUndef(dims), st = LLVMGetUndef(dims);
    for (int k = 0; k < nd; k++) {
        sh = LLVMBuildInsertValue(B, sh, shape[k], (unsigned)k, "");
        st = LLVMBuildInsertValue(B, st, strides[k], (unsigned)k, "");
    }
    LLVMValueRef v = LLVMGetUndef(lower_type(L, at));
    v = LLVMBuildInsertValue(B, v, meminfo, 0, "");
    v = LLVMBuildInsertValue(B, v, LLVMConstNull(L->ptr), 1, "");
    v = LLVMBuildInsertValue(B, v, data, 2, "");
    v = LLVMBuildInsertValue(B, v, sh, 3, "");
    return LLVMBuildInsertValue(B, v, st, 4, "");
}

/* The alignment array items are loaded and stored with. On the CPU, 1: NumPy arrays need not be
 * aligned (a buffer received from another process, pickle's out-of-band frames, a packed record
 * field), x86-64 loads any address at full speed, and LLVM vectorises unaligned accesses alike.
 * GPU arrays are device allocations, always aligned, and an unaligned access there is split into
 * bytes. */
static unsigned elem_align(Lower *L, Type *dt)
{
    int n = ty_itemsize(dt);
    if (!L->prog->gpu)
        return 1;
    return (unsigned)(ty_is_complex(dt) ? n / 2 : n);
}

/* A record item loaded here is a view with no reference of its own, used at once (copied by an
 * assignment); storing one copies its bytes. */
LLVMValueRef lower_array_load(Lower *L, Type *dtype, LLVMValueRef ptr)
{
    if (dtype->kind == TY_RECORD)
        return lower_record_in(L, NULL, dtype, LLVMConstNull(L->ptr), ptr);
    LLVMValueRef v = LLVMBuildLoad2(L->b, dtype->kind == TY_BOOL ? L->i8 : lower_type(L, dtype), ptr, "");
    LLVMSetAlignment(v, elem_align(L, dtype));
    if (dtype->kind == TY_BOOL)
        v = LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstInt(L->i8, 0, 0), "");
    return v;
}

/* The element at ptr as a value of ty_element(dtype): a unicode element becomes a new str,
 * owned by owner's slot; other elements as lower_array_load reads them. */
LLVMValueRef lower_array_element(Lower *L, Instr *owner, Type *dtype, LLVMValueRef ptr)
{
    if (dtype->kind != TY_CHARSEQ)
        return lower_array_load(L, dtype, ptr);
    LLVMValueRef args[2] = {ptr, lower_i64(L, dtype->charseq.n)};
    LLVMValueRef mi = lower_call_rt(L, "pj_str_from_ucs4", L->ptr, args, 2);
    lower_check(L, LLVMBuildIsNull(L->b, mi, ""), ABI_EXC_MEMORY, "out of memory making a string",
                NULL, 0);
    LLVMValueRef v = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, ty_str())), mi, 0, "");
    lower_own(L, owner, v);
    return v;
}

void lower_array_store(Lower *L, Type *dtype, LLVMValueRef v, LLVMValueRef ptr)
{
    if (dtype->kind == TY_CHARSEQ && LLVMTypeOf(v) != lower_type(L, dtype)) {   /* a str, cut or NUL padded */
        LLVMValueRef args[3] = {LLVMBuildExtractValue(L->b, v, 0, ""), ptr, lower_i64(L, dtype->charseq.n)};
        lower_call_rt(L, "pj_str_to_ucs4", LLVMVoidTypeInContext(L->ctx), args, 3);
        return;
    }
    if (dtype->kind == TY_RECORD) {
        LLVMBuildMemMove(L->b, ptr, 1, lower_record_data(L, v), 1, lower_i64(L, dtype->record.size));
        return;
    }
    if (dtype->kind == TY_BOOL)
        v = LLVMBuildZExt(L->b, v, L->i8, "");
    LLVMSetAlignment(LLVMBuildStore(L->b, v, ptr), elem_align(L, dtype));
}

static LLVMValueRef byte_gep(Lower *L, LLVMValueRef p, LLVMValueRef off)
{
    return LLVMBuildInBoundsGEP2(L->b, L->i8, p, &off, 1, "");
}

/* A view of the array value src: its MemInfo and its parent (the argument's ndarray, which a view
 * returned to Python keeps as its base), other data, shape and strides. */
static LLVMValueRef array_view(Lower *L, Type *vt, LLVMValueRef src, LLVMValueRef data,
                               LLVMValueRef *shape, LLVMValueRef *strides)
{
    LLVMValueRef v = lower_array_make(L, vt, LLVMBuildExtractValue(L->b, src, 0, ""), data, shape,
                                      strides);
    return LLVMBuildInsertValue(L->b, v, LLVMBuildExtractValue(L->b, src, 1, ""), 1, "");
}

LLVMValueRef lower_array_subview(Lower *L, Type *at, LLVMValueRef arr, LLVMValueRef i, Type *vt)
{
    int nd = at->array.ndim;
    LLVMValueRef sh[ABI_MAX_NDIM], st[ABI_MAX_NDIM];
    for (int k = 1; k < nd; k++) {
        sh[k - 1] = lower_array_dim(L, arr, k);
        st[k - 1] = lower_array_stride(L, at, arr, k);
    }
    LLVMValueRef off = LLVMBuildMul(L->b, i, lower_array_stride(L, at, arr, 0), "");
    return array_view(L, vt, arr, byte_gep(L, lower_array_data(L, arr), off), sh, st);
}

/* A new C-contiguous array of type at and this shape; its reference is owner's (if given). */
static LLVMValueRef alloc_array(Lower *L, Type *at, LLVMValueRef *shape, Instr *owner)
{
    int nd = at->array.ndim;
    LLVMValueRef size = lower_i64(L, ty_itemsize(at->array.dtype)), st[ABI_MAX_NDIM];
    for (int k = nd - 1; k >= 0; k--) {
        st[k] = size;
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntSLT, shape[k], lower_i64(L, 0), ""), ABI_EXC_VALUE,
                    "negative dimensions are not allowed", NULL, 0);
        size = LLVMBuildMul(L->b, size, shape[k], "");
    }
    LLVMValueRef mi = lower_call_rt(L, "pj_nrt_alloc", L->ptr, &size, 1);
    lower_check(L, LLVMBuildIsNull(L->b, mi, ""), ABI_EXC_MEMORY, "cannot allocate array memory", NULL, 0);
    LLVMValueRef data = byte_gep(L, mi, lower_i64(L, ABI_NRT_DATA_OFFSET));   /* abi.h */
    LLVMValueRef v = lower_array_make(L, at, mi, data, shape, st);
    if (owner)
        lower_own(L, owner, v);
    return v;
}

static void get_shape(Lower *L, Type *at, LLVMValueRef arr, LLVMValueRef *shape)
{
    for (int k = 0; k < at->array.ndim; k++)
        shape[k] = lower_array_dim(L, arr, k);
}

static LLVMValueRef array_size(Lower *L, Type *at, LLVMValueRef arr)
{
    LLVMValueRef n = lower_i64(L, 1);
    for (int k = 0; k < at->array.ndim; k++)
        n = LLVMBuildMul(L->b, n, lower_array_dim(L, arr, k), "");
    return n;
}

/* ---- elementwise loop nests ----------------------------------------------------------------- */

typedef struct EwOp {
    Type *t;                /* array type, or the scalar type */
    LLVMValueRef v;
    LLVMValueRef stride[ABI_MAX_NDIM];   /* per output axis, 0 where broadcast */
    LLVMValueRef ptr;       /* during the loop */
} EwOp;

/* Computes the element of the output (or NULL) from the operands' elements. */
typedef LLVMValueRef (*ElemFn)(Lower *L, void *ctx, LLVMValueRef *elems);

static bool is_array(Type *t)
{
    return t->kind == TY_ARRAY;
}

/* Broadcasts the operands' shapes into shape[nd] (ValueError where they do not fit) and sets
 * each operand's strides along the output axes. */
static void ew_broadcast(Lower *L, int nd, LLVMValueRef *shape, EwOp *ops, int nops, bool shape_fixed)
{
    if (!shape_fixed)
        for (int k = 0; k < nd; k++)
            shape[k] = lower_i64(L, 1);
    for (int j = 0; j < nops; j++) {
        if (!is_array(ops[j].t))
            continue;
        int ond = ops[j].t->array.ndim;
        for (int k = 0; k < nd; k++) {
            int ok = k - (nd - ond);
            if (ok < 0) {
                ops[j].stride[k] = lower_i64(L, 0);
                continue;
            }
            LLVMValueRef d = lower_array_dim(L, ops[j].v, ok);
            LLVMValueRef one = LLVMBuildICmp(L->b, LLVMIntEQ, d, lower_i64(L, 1), "");
            if (!shape_fixed)
                shape[k] = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, shape[k], lower_i64(L, 1), ""),
                                           d, shape[k], "");
            LLVMValueRef bad = LLVMBuildAnd(L->b, LLVMBuildNot(L->b, one, ""),
                                            LLVMBuildICmp(L->b, LLVMIntNE, d, shape[k], ""), "");
            lower_check(L, bad, ABI_EXC_VALUE, "operands could not be broadcast together", NULL, 0);
            LLVMValueRef st = lower_array_stride(L, ops[j].t, ops[j].v, ok);
            ops[j].stride[k] = LLVMIsConstant(one) ? st : LLVMBuildSelect(L->b, one, lower_i64(L, 0), st, "");
        }
    }
}

static void ew_level(Lower *L, int k, int nd, LLVMValueRef *shape, EwOp *ops, int nops, EwOp *out,
                     Type *out_dt, ElemFn fn, void *ctx)
{
    if (k == nd) {
        LLVMValueRef elems[8];
        for (int j = 0; j < nops && j < 8; j++)
            elems[j] = is_array(ops[j].t) ? lower_array_load(L, ops[j].t->array.dtype, ops[j].ptr) : ops[j].v;
        LLVMValueRef r = fn(L, ctx, elems);
        if (out && r)
            lower_array_store(L, out_dt, r, out->ptr);
        return;
    }
    LLVMValueRef saved[9] = {0};
    LoopInfo lp;
    LLVMValueRef i = lower_loop_begin(L, &lp, shape[k]);
    for (int j = 0; j <= nops; j++) {
        EwOp *o = j < nops ? &ops[j] : out;
        if (!o || !is_array(o->t))
            continue;
        saved[j] = o->ptr;
        o->ptr = byte_gep(L, o->ptr, LLVMBuildMul(L->b, i, o->stride[k], ""));
    }
    ew_level(L, k + 1, nd, shape, ops, nops, out, out_dt, fn, ctx);
    for (int j = 0; j <= nops; j++) {
        EwOp *o = j < nops ? &ops[j] : out;
        if (o && is_array(o->t))
            o->ptr = saved[j];
    }
    lower_loop_end(L, &lp);
}

/* Runs fn over every index of shape[nd] whose first index is from or more (from + shape[0]
 * being the end); out (may be NULL) has exactly the whole shape. */
static void ew_loop(Lower *L, int nd, LLVMValueRef *shape, EwOp *ops, int nops, EwOp *out, ElemFn fn,
                    void *ctx, LLVMValueRef from)
{
    if (out)
        for (int k = 0; k < nd; k++)
            out->stride[k] = lower_array_stride(L, out->t, out->v, k);
    for (int j = 0; j <= nops; j++) {
        EwOp *o = j < nops ? &ops[j] : out;
        if (!o || !is_array(o->t))
            continue;
        o->ptr = lower_array_data(L, o->v);
        if (from)
            o->ptr = byte_gep(L, o->ptr, LLVMBuildMul(L->b, from, o->stride[0], ""));
    }
    ew_level(L, 0, nd, shape, ops, nops, out, out ? out->t->array.dtype : NULL, fn, ctx);
}

/* One flat loop when every array (operands and output) is C-contiguous with the output's
 * shape: unit strides the vectoriser can use. */
static bool ew_flat_candidate(EwOp *ops, int nops, EwOp *out, int nd)
{
    if (out && out->t->array.layout != 'C')
        return false;
    for (int j = 0; j < nops; j++)
        if (is_array(ops[j].t) && (ops[j].t->array.layout != 'C' || ops[j].t->array.ndim != nd))
            return false;
    return true;
}

static LLVMValueRef shape_size(Lower *L, int nd, LLVMValueRef *shape)
{
    LLVMValueRef n = lower_i64(L, 1);
    for (int k = 0; k < nd; k++)
        n = LLVMBuildMul(L->b, n, shape[k], "");
    return n;
}

/* The flat loop over the n elements from the first'th on. */
static void ew_flat(Lower *L, LLVMValueRef first, LLVMValueRef n, EwOp *ops, int nops, EwOp *out,
                    ElemFn fn, void *ctx)
{
    LoopInfo lp;
    LLVMValueRef i = LLVMBuildNSWAdd(L->b, first, lower_loop_begin(L, &lp, n), ""), elems[8];
    for (int j = 0; j < nops && j < 8; j++) {
        if (!is_array(ops[j].t)) {
            elems[j] = ops[j].v;
            continue;
        }
        Type *dt = ops[j].t->array.dtype;
        LLVMValueRef off = LLVMBuildMul(L->b, i, lower_i64(L, ty_itemsize(dt)), "");
        elems[j] = lower_array_load(L, dt, byte_gep(L, lower_array_data(L, ops[j].v), off));
    }
    LLVMValueRef r = fn(L, ctx, elems);
    if (out && r) {
        Type *dt = out->t->array.dtype;
        LLVMValueRef off = LLVMBuildMul(L->b, i, lower_i64(L, ty_itemsize(dt)), "");
        lower_array_store(L, dt, r, byte_gep(L, lower_array_data(L, out->v), off));
    }
    lower_loop_end(L, &lp);
}

/* One elementwise loop, as the variants below run it. */
typedef struct EwLoop {
    int nd;
    LLVMValueRef *shape;
    EwOp *ops, *out;
    int nops;
    ElemFn fn;
    void *ctx;
} EwLoop;

typedef void (*EwVariant)(Lower *L, EwLoop *w);

/* then(w) where cond holds at run time, otherwise(w) where not; a constant cond emits one. */
static void ew_select(Lower *L, LLVMValueRef cond, EwVariant then, EwVariant otherwise, EwLoop *w)
{
    if (LLVMIsAConstantInt(cond)) {
        (LLVMConstIntGetZExtValue(cond) ? then : otherwise)(L, w);
        return;
    }
    LLVMBasicBlockRef yes = lower_block(L, "ew.then"), no = lower_block(L, "ew.else");
    LLVMBasicBlockRef join = lower_block(L, "ew.join");
    LLVMBuildCondBr(L->b, cond, yes, no);
    LLVMPositionBuilderAtEnd(L->b, yes);
    then(L, w);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, no);
    otherwise(L, w);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
}

/* i1: every array's shape equals the loop's at run time, so the flat loop applies; a constant
 * false where the layouts rule it out. */
static LLVMValueRef ew_same_shapes(Lower *L, EwLoop *w)
{
    if (!ew_flat_candidate(w->ops, w->nops, w->out, w->nd) || w->nd == 0)
        return LLVMConstInt(L->i1, 0, 0);
    LLVMValueRef same = LLVMConstInt(L->i1, 1, 0);
    for (int j = 0; j < w->nops; j++)
        if (is_array(w->ops[j].t))
            for (int k = 0; k < w->nd; k++)
                same = LLVMBuildAnd(L->b, same, LLVMBuildICmp(L->b, LLVMIntEQ, lower_array_dim(L, w->ops[j].v, k),
                                                              w->shape[k], ""), "");
    return same;
}

static void flat_serial(Lower *L, EwLoop *w)
{
    ew_flat(L, lower_i64(L, 0), shape_size(L, w->nd, w->shape), w->ops, w->nops, w->out, w->fn, w->ctx);
}

static void nest_serial(Lower *L, EwLoop *w)
{
    ew_loop(L, w->nd, w->shape, w->ops, w->nops, w->out, w->fn, w->ctx, NULL);
}

static void ew_serial(Lower *L, EwLoop *w)
{
    ew_select(L, ew_same_shapes(L, w), flat_serial, nest_serial, w);
}

/* ---- on the thread pool (parallel=True) ---- */

/* An elementwise loop of a parallel=True function runs on the pool from this many elements on;
 * below, starting a region costs about what the threads save. */
#define EW_PARALLEL_MIN 32768

/* The flat loop, its chunks [lo, hi) on the pool. */
static void flat_pool(Lower *L, EwLoop *w)
{
    LLVMValueRef n = shape_size(L, w->nd, w->shape);
    Outline o;
    lower_outline_begin(L, &o);
    ew_flat(L, o.lo, LLVMBuildSub(L->b, o.hi, o.lo, ""), w->ops, w->nops, w->out, w->fn, w->ctx);
    lower_outline_end(L, &o, n);
}

/* The nest, its outermost axis cut into chunks on the pool. */
static void nest_pool(Lower *L, EwLoop *w)
{
    Outline o;
    lower_outline_begin(L, &o);
    LLVMValueRef part[ABI_MAX_NDIM];
    memcpy(part, w->shape, sizeof(LLVMValueRef) * (size_t)w->nd);
    part[0] = LLVMBuildSub(L->b, o.hi, o.lo, "");
    ew_loop(L, w->nd, part, w->ops, w->nops, w->out, w->fn, w->ctx, o.lo);
    lower_outline_end(L, &o, w->shape[0]);
}

static void ew_pool(Lower *L, EwLoop *w)
{
    ew_select(L, ew_same_shapes(L, w), flat_pool, nest_pool, w);
}

/* Runs fn over every index of shape[nd]. A parallel=True function runs a large loop into an
 * array on the pool (fn computes each element from its operands alone); the rest is serial. */
static void ew_run(Lower *L, int nd, LLVMValueRef *shape, EwOp *ops, int nops, EwOp *out, ElemFn fn, void *ctx)
{
    EwLoop w = {nd, shape, ops, out, nops, fn, ctx};
    if (!out || nd == 0 || !lower_parallel_ok(L)) {
        ew_serial(L, &w);
        return;
    }
    LLVMValueRef big = LLVMBuildICmp(L->b, LLVMIntSGE, shape_size(L, nd, shape), lower_i64(L, EW_PARALLEL_MIN), "");
    ew_select(L, big, ew_pool, ew_serial, &w);
}

static Type *elem_type(Type *t)
{
    return is_array(t) ? t->array.dtype : t;
}

static int ops_max_ndim(EwOp *ops, int nops)
{
    int nd = 0;
    for (int j = 0; j < nops; j++)
        if (is_array(ops[j].t) && ops[j].t->array.ndim > nd)
            nd = ops[j].t->array.ndim;
    return nd;
}

static void separate_operand(Lower *L, Type *dt, LLVMValueRef dst, EwOp *op);

/* Runs fn over the operands ops broadcast together, into a new result array of in->type, or
 * into ops[0] itself when inplace (a += ...), the other operands read as if copied first where
 * they overlap it: the result. */
static LLVMValueRef ew_into(Lower *L, Instr *in, EwOp *ops, int nops, bool inplace, ElemFn fn,
                            void *ctx)
{
    LLVMValueRef shape[ABI_MAX_NDIM];
    int nd = inplace ? ops[0].t->array.ndim : ops_max_ndim(ops, nops);
    if (inplace)
        get_shape(L, ops[0].t, ops[0].v, shape);
    ew_broadcast(L, nd, shape, ops, nops, inplace);
    EwOp out = {.t = in->type};
    bool separated[8] = {false};
    if (inplace) {
        out.t = ops[0].t;
        out.v = ops[0].v;
        lower_incref(L, LLVMBuildExtractValue(L->b, out.v, 0, ""));
        lower_own(L, in, out.v);
        for (int j = 1; j < nops && j < 8 && !prog_kernel_code(L->prog); j++)
            if (is_array(ops[j].t)) {
                separate_operand(L, out.t, out.v, &ops[j]);
                separated[j] = true;
            }
        if (nops > 1)
            ew_broadcast(L, nd, shape, ops, nops, inplace);   /* the strides of the copies */
    } else {
        out.v = alloc_array(L, in->type, shape, in);
    }
    ew_run(L, nd, shape, ops, nops, &out, fn, ctx);
    for (int j = 1; j < nops && j < 8; j++)
        if (separated[j])
            lower_decref_value(L, ops[j].t, ops[j].v);
    return out.v;
}

/* The common elementwise driver, for other files: the operands are in's args[0..nops-1]; a new
 * result array of in->type (or args[0] itself when inplace). */
LLVMValueRef lower_array_map(Lower *L, Instr *in, int nops, bool inplace, LowerElemFn fn, void *ctx)
{
    EwOp ops[8] = {{0}};
    for (int j = 0; j < nops; j++) {
        ops[j].t = in->args[j]->type;
        ops[j].v = lower_value(L, in->args[j]);
    }
    return ew_into(L, in, ops, nops, inplace, fn, ctx);
}

typedef struct BinCtx {
    BinOp op;
    CmpOp cmp;
    Type *ta, *tb, *ct;     /* operand element types, compute type */
    Type *out;
} BinCtx;

static LLVMValueRef elem_binop(Lower *L, void *vctx, LLVMValueRef *e)
{
    BinCtx *c = vctx;
    LLVMValueRef a = lower_cast(L, e[0], c->ta, c->ct), b = lower_cast(L, e[1], c->tb, c->ct);
    if (c->ct->kind == TY_BOOL && (c->op == BIN_ADD || c->op == BIN_MUL))   /* NumPy: or, and */
        return lower_cast(L, c->op == BIN_ADD ? LLVMBuildOr(L->b, a, b, "") : LLVMBuildAnd(L->b, a, b, ""),
                          c->ct, c->out);
    bool saved = L->ew_numpy;
    L->ew_numpy = true;     /* array arithmetic follows NumPy: inf, nan and 0, no exception */
    LLVMValueRef r = lower_binop_scalar(L, c->op, c->ct, a, b, NULL);
    L->ew_numpy = saved;
    return r ? lower_cast(L, r, c->op == BIN_POW && ty_is_int(c->ct) ? ty_scalar(TY_INT64) : c->ct, c->out) : NULL;
}

static bool binop_inplace(Instr *in)
{
    return in->imm && is_array(in->args[0]->type);
}

static void binop_ctx(Instr *in, BinCtx *c)
{
    Type *out_t = binop_inplace(in) ? in->args[0]->type : in->type;
    *c = (BinCtx){.op = (BinOp)in->sub, .ta = elem_type(in->args[0]->type),
                  .tb = elem_type(in->args[1]->type), .out = out_t->array.dtype};
    c->ct = in->type->array.dtype;
    if (c->op == BIN_TRUEDIV && !ty_is_float(c->ct) && !ty_is_complex(c->ct))
        c->ct = ty_scalar(TY_FLOAT64);
    if (c->op == BIN_POW && ty_is_int(c->ct) && !ty_is_int(c->ta)) {
        Type *p = ty_promote(c->ta, c->tb);   /* bool ** bool stays in the int result type */
        if (p && ty_is_int(ty_strong(p)))
            c->ct = p;
    }
}

static LLVMValueRef elem_compare(Lower *L, void *vctx, LLVMValueRef *e)
{
    BinCtx *c = vctx;
    return lower_compare_scalar(L, c->cmp, c->ct, lower_cast(L, e[0], c->ta, c->ct), lower_cast(L, e[1], c->tb, c->ct));
}

static void compare_ctx(Instr *in, BinCtx *c)
{
    *c = (BinCtx){.cmp = (CmpOp)in->sub, .ta = elem_type(in->args[0]->type),
                  .tb = elem_type(in->args[1]->type)};
    c->ct = ty_promote(c->ta, c->tb);
}

static LLVMValueRef elem_unary(Lower *L, void *vctx, LLVMValueRef *e)
{
    BinCtx *c = vctx;
    return lower_cast(L, lower_unary_scalar(L, (UnaryOp)c->op, c->ta, e[0]), c->op == (BinOp)UN_NOT ? ty_scalar(TY_BOOL) : c->ta, c->out);
}

static void unary_ctx(Instr *in, BinCtx *c)
{
    *c = (BinCtx){.op = (BinOp)in->sub, .ta = elem_type(in->args[0]->type),
                  .out = in->type->array.dtype};
}

/* The element functions of NumPy's functions (below) and their contexts. */
typedef struct MathCtx {
    Builtin bi;
    Type *t0, *t1, *ct, *out;
    int nargs;
} MathCtx;

typedef struct MoreCtx {
    Type *t[3], *out;
    LLVMValueRef acc, ptr, mean;
} MoreCtx;

static LLVMValueRef elem_math(Lower *L, void *vctx, LLVMValueRef *e);
static void math_ctx(Instr *in, MathCtx *c);
static LLVMValueRef elem_where(Lower *L, void *vctx, LLVMValueRef *e);
static void where_ctx(Instr *in, MoreCtx *c);

/* ---- fused array expressions ---------------------------------------------------------------
 *
 * `a * 2.0 + b * b - c` and `np.sqrt(a * a + b * b)` are computed in one loop with one result
 * array, as Numba's array expressions are: an elementwise operation (an operator, or a NumPy
 * function whose builtins.def row is lowered `elementwise`, or np.where of three operands) whose
 * only use is another one later in its block,
 * with nothing between them that writes memory or calls, is not lowered on its own (no
 * temporary array); its user's element function computes it from its operands' elements. Each
 * operation keeps its own types and casts, so the values are those of the unfused code; the
 * result's shape is the broadcast of all the leaves, as the unfused shapes compose to it. */

#define EW_MAX_OPS 8

/* One operation of a fused expression: its element function over its operands, each a loop
 * operand's element (leaf >= 0) or a fused operation's value (kid). */
typedef struct EwNode {
    ElemFn fn;
    union {
        BinCtx bin;
        MathCtx math;
        MoreCtx more;
    } ctx;
    int n;
    int leaf[3];
    struct EwNode *kid[3];
} EwNode;

/* Whether builtin bi's row is lowered by lower_bi_elementwise (its array form an ElemFn). */
static bool lowered_elementwise(int bi)
{
    switch (bi) {
#define BUILTIN(id, pyname, infer, lower, ...) case id: return strcmp(#lower, "elementwise") == 0;
#include "compiler/builtins.def"
#undef BUILTIN
    default: return false;
    }
}

static int ew_nargs(const Instr *in)
{
    if (in->op == OP_INTRINSIC)
        return in->sub == BI_NP_WHERE ? 3 : in->nargs - in->nkw > 2 ? 2 : in->nargs - in->nkw;
    return in->op == OP_UNARY ? 1 : 2;
}

static bool is_elementwise(const Instr *in)
{
    if (!in->type || in->type->kind != TY_ARRAY)
        return false;
    if (in->op == OP_INTRINSIC)
        return (in->sub == BI_NP_WHERE && in->nargs == 3) ||
               (lowered_elementwise(in->sub) && in->nargs - in->nkw >= 1);
    return in->op == OP_BINOP || in->op == OP_UNARY || in->op == OP_COMPARE;
}

/* Whether nothing between from and to (exclusive) in their block writes memory or calls. */
static bool pure_between(Block *blk, int from, int to)
{
    for (int k = from + 1; k < to; k++) {
        Instr *in = blk->instrs.items[k];
        bool pure = in->op == OP_CONST || in->op == OP_CAST || in->op == OP_TRUTH ||
                    in->op == OP_BUILD_TUPLE || in->op == OP_STATIC_GET ||
                    in->op == OP_ARRAY_ATTR || in->op == OP_ARRAY_GET ||
                    ((in->op == OP_BINOP || in->op == OP_UNARY || in->op == OP_COMPARE) &&
                     !(in->op == OP_BINOP && binop_inplace(in))) ||
                    (in->op == OP_INTRINSIC && is_elementwise(in));
        if (!pure)
            return false;
    }
    return true;
}

void lower_mark_fused(Lower *L)
{
    L->fused = arena_alloc(L->prog->arena, sizeof(bool) * (size_t)L->nids);
    memset(L->fused, 0, sizeof(bool) * (size_t)L->nids);
    int *uses = arena_alloc(L->prog->arena, sizeof(int) * (size_t)L->nids);
    int *pos = arena_alloc(L->prog->arena, sizeof(int) * (size_t)L->nids);
    int *leaves = arena_alloc(L->prog->arena, sizeof(int) * (size_t)L->nids);
    memset(uses, 0, sizeof(int) * (size_t)L->nids);
    for (int b = 0; b < L->ir->blocks.len; b++) {
        Block *blk = L->ir->blocks.items[b];
        for (int k = 0; k < blk->instrs.len; k++) {
            Instr *in = blk->instrs.items[k];
            pos[in->id] = k;
            for (int i = 0; i < in->nargs; i++)
                if (in->args[i])
                    uses[in->args[i]->id]++;
        }
    }
    for (int b = 0; b < L->ir->blocks.len; b++) {
        Block *blk = L->ir->blocks.items[b];
        for (int k = 0; k < blk->instrs.len; k++) {
            Instr *y = blk->instrs.items[k];
            if (!is_elementwise(y))
                continue;
            /* an operation writing into an operand keeps its operands' temporaries: a fused one
             * could read an element it already wrote (a += a[:1] * 2) */
            bool inplace = y->op == OP_BINOP && binop_inplace(y);
            int total = 0;
            bool fuse[3] = {false, false, false};
            for (int i = 0; i < ew_nargs(y); i++) {
                Instr *x = y->args[i];
                fuse[i] = !inplace && is_elementwise(x) && x->block == blk && uses[x->id] == 1 &&
                          !(x->op == OP_BINOP && binop_inplace(x)) && pos[x->id] < k &&
                          pure_between(blk, pos[x->id], k);
                total += fuse[i] ? leaves[x->id] : 1;
            }
            if (total > EW_MAX_OPS) {
                fuse[0] = fuse[1] = fuse[2] = false;
                total = ew_nargs(y);
            }
            for (int i = 0; i < ew_nargs(y); i++)
                L->fused[y->args[i]->id] = fuse[i];
            leaves[y->id] = total;
        }
    }
}

/* The node of in, its fused operands' nodes within, its other operands appended to ops. */
static EwNode *ew_node(Lower *L, Instr *in, EwOp *ops, int *nops)
{
    EwNode *n = arena_alloc(L->prog->arena, sizeof *n);
    n->n = ew_nargs(in);
    if (in->op == OP_BINOP) {
        binop_ctx(in, &n->ctx.bin);
        n->ctx.bin.out = in->type->array.dtype;   /* a fused operation's value, not a store */
        n->fn = elem_binop;
    } else if (in->op == OP_UNARY) {
        unary_ctx(in, &n->ctx.bin);
        n->fn = elem_unary;
    } else if (in->op == OP_COMPARE) {
        compare_ctx(in, &n->ctx.bin);
        n->fn = elem_compare;
    } else if (in->sub == BI_NP_WHERE) {
        where_ctx(in, &n->ctx.more);
        n->fn = elem_where;
    } else {
        math_ctx(in, &n->ctx.math);
        n->fn = elem_math;
    }
    for (int i = 0; i < n->n; i++) {
        Instr *a = in->args[i];
        n->kid[i] = NULL;
        n->leaf[i] = -1;
        if (L->fused[a->id]) {
            n->kid[i] = ew_node(L, a, ops, nops);
            continue;
        }
        ops[*nops].t = a->type;
        ops[*nops].v = lower_value(L, a);
        n->leaf[i] = (*nops)++;
    }
    return n;
}

static LLVMValueRef elem_tree(Lower *L, void *vctx, LLVMValueRef *e)
{
    EwNode *n = vctx;
    LLVMValueRef v[3];
    for (int i = 0; i < n->n; i++) {
        v[i] = n->kid[i] ? elem_tree(L, n->kid[i], e) : e[n->leaf[i]];
        if (!v[i])
            return NULL;
    }
    return n->fn(L, &n->ctx, v);
}

/* An elementwise operation and the operations fused into it: one loop over the leaves into a
 * new array of in's type, or into args[0] for an in-place binop (a += ...). */
static LLVMValueRef ew_fused(Lower *L, Instr *in)
{
    if (in->op == OP_COMPARE) {
        BinCtx c;
        compare_ctx(in, &c);
        if (!c.ct) {
            lower_unsupported(L, "cannot compare %s with %s", in->args[0]->type->name,
                              in->args[1]->type->name);
            return NULL;
        }
    }
    EwOp ops[EW_MAX_OPS] = {{0}};
    int nops = 0;
    EwNode *root = ew_node(L, in, ops, &nops);
    bool inplace = in->op == OP_BINOP && binop_inplace(in);
    if (inplace)
        root->ctx.bin.out = in->args[0]->type->array.dtype;
    return ew_into(L, in, ops, nops, inplace, elem_tree, root);
}

LLVMValueRef lower_array_binop(Lower *L, Instr *in)
{
    return ew_fused(L, in);
}

LLVMValueRef lower_array_compare(Lower *L, Instr *in)
{
    return ew_fused(L, in);
}

LLVMValueRef lower_array_unary(Lower *L, Instr *in)
{
    return ew_fused(L, in);
}

/* ---- indexing ------------------------------------------------------------------------------- */

/* IndexError's message for axis of array a, as NumPy's with the array's name and the line:
 * "index 10 is out of bounds for axis 0 with size 10 (array 'a', line 12)". */
static const char *index_error_message(Lower *L, Instr *a)
{
    const char *name = a->var ? a->var : NULL;
    int line = L->cur ? L->cur->line : L->ir->firstline;
    if (name)
        return arena_printf(L->prog->arena, "index %%lld is out of bounds for axis %%lld with size %%lld "
                            "(array '%s', line %d)", name, line);
    return arena_printf(L->prog->arena, "index %%lld is out of bounds for axis %%lld with size %%lld "
                        "(line %d)", line);
}

/* Whether index i, the value of ix, is negative. For x + c and x - c with a constant c it is
 * asked of x (x < -c), and for x - y of the two (x < y, `if i >= w: a[i - w]`): the same answer
 * unless the sum wraps, and then the index is out of bounds either way (a wrapped sum taken as non-negative is above 2**63, one taken as negative plus the
 * size is still negative or above it). LLVM knows x's range from the branches around the access
 * (`while j >= 0 ... b[j + 1]`), not the wrapped sum's, so the wrap folds away, and with it the
 * doubt that b[j + 1] may be b[j] (a second load of b[j] in an insertion sort). */
static LLVMValueRef index_is_negative(Lower *L, Instr *ix, LLVMValueRef i)
{
    LLVMValueRef zero = lower_i64(L, 0);
    if (lower_known_nonneg(L, ix, 0))
        return LLVMConstInt(L->i1, 0, 0);
    if (ix->op != OP_BINOP || (ix->sub != BIN_ADD && ix->sub != BIN_SUB) || ix->type != ty_scalar(TY_INT64))
        return LLVMBuildICmp(L->b, LLVMIntSLT, i, zero, "");
    Instr *x = ix->args[0], *k = ix->args[1];
    if (ix->sub == BIN_ADD && x->op == OP_CONST) {
        x = ix->args[1];
        k = ix->args[0];
    }
    if (ix->sub == BIN_SUB && k->op != OP_CONST && x->type == ix->type && k->type == ix->type)
        return LLVMBuildICmp(L->b, LLVMIntSLT, lower_value(L, x), lower_value(L, k), "");   /* x < y */
    if (k->op != OP_CONST || !k->cst || k->cst->kind != K_INT || k->cst->i == INT64_MIN || x->type != ix->type)
        return LLVMBuildICmp(L->b, LLVMIntSLT, i, zero, "");
    int64_t c = ix->sub == BIN_SUB ? -k->cst->i : k->cst->i;
    return LLVMBuildICmp(L->b, LLVMIntSLT, lower_value(L, x), lower_i64(L, -c), "");
}

/* Whether index ix is an item read from an array, or a sum or difference with one (a gather's
 * `x[idx[i]]`, librosa's DTW `D[n - steps[k, 0], ...]`): LLVM knows nothing of its range, so
 * neither of the two signed tests of its check can go, and one unsigned compare does both. */
static bool read_from_memory(Instr *ix, int depth)
{
    if (ix->op == OP_ARRAY_GET || (ix->op == OP_CAST && ix->args[0]->op == OP_ARRAY_GET))
        return true;
    if (depth > 1 || ix->op != OP_BINOP || (ix->sub != BIN_ADD && ix->sub != BIN_SUB))
        return false;
    return read_from_memory(ix->args[0], depth + 1) || read_from_memory(ix->args[1], depth + 1);
}

/* Wraps a negative index and, when boundscheck is on, checks it unless the flag of the loops
 * around the access (lower_loop_index_fits: the range of their indices is in bounds) holds.
 * The optimiser then splits the loop on the flag, and the copy where it holds has no check and
 * vectorises. (A branch on 0 <= i < n alone, cheaper for an index computed from data, kept
 * nested loops such as a 3x3 blur from vectorising.) */
static LLVMValueRef norm_index(Lower *L, Instr *access, Instr *ix, LLVMValueRef i, LLVMValueRef n, int axis)
{
    LLVMBuilderRef B = L->b;
    /* the CPU simulator wraps as the GPU does (numba-cuda's kernels index as NumPy: a[-1] is
     * the last element) and checks what is still outside the axis after the wrap */
    LLVMValueRef neg = index_is_negative(L, ix, i);
    bool wraps = false;
    LLVMValueRef fits = boundscheck(L) ? lower_loop_index_fits(L, access, axis, &wraps) : NULL;
    if (fits && !wraps)   /* every index of the loop is in bounds, so none is negative */
        neg = LLVMBuildAnd(B, LLVMBuildNot(B, fits, ""), neg, "");
    LLVMValueRef w = LLVMBuildSelect(B, neg, LLVMBuildAdd(B, i, n, ""), i, "");
    if (boundscheck(L)) {
        LLVMValueRef args[3] = {i, lower_i64(L, axis), n};
        /* w < 0 or w >= n, two signed tests rather than one unsigned: each is what LLVM can
         * prove of an index counting down in a while loop (j in `while j >= 0 and b[j] > key`
         * ... b[j + 1]) or one the code tested already (`if 0 <= k < nbins: counts[k]`), and
         * drops; LLVM makes them one unsigned test itself where it knows n is not negative.
         * An index read from memory, which LLVM can prove nothing of, and one a loop's flag
         * covers (its check then stays only where the flag fails, and where LLVM cannot take the
         * flag's test out of an outer loop) take the one test: a size is never negative. In
         * librosa's DTW the checks of the row loop around the steps' loop then fold into the
         * flag's test, where the two tests and the selects of each stayed in that loop. */
        LLVMValueRef bad = fits || read_from_memory(ix, 0)
            ? LLVMBuildICmp(B, LLVMIntUGE, w, n, "")    /* a size is never negative */
            : LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntSLT, w, lower_i64(L, 0), ""),
                          LLVMBuildICmp(B, LLVMIntSGE, w, n, ""), "");
        if (!fits && L->prog->gpu_sim)
            fits = lower_sim_index_fits(L, ix, n);
        if (fits)
            bad = LLVMBuildAnd(B, LLVMBuildNot(B, fits, ""), bad, "");
        lower_check(L, bad, ABI_EXC_INDEX, index_error_message(L, access->args[0]), args, 3);
    }
    return w;
}

/* Python's slice.indices(n) then the length: *start, *step and the returned length. */
LLVMValueRef lower_slice_indices(Lower *L, LLVMValueRef sl, LLVMValueRef n, LLVMValueRef *start_out,
                                 LLVMValueRef *step_out)
{
    LLVMValueRef stop;
    return lower_slice_bounds(L, sl, n, start_out, &stop, step_out);
}

/* Python's slice.indices(n), *start, *stop and *step, and the length of the range they make. */
LLVMValueRef lower_slice_bounds(Lower *L, LLVMValueRef sl, LLVMValueRef n, LLVMValueRef *start_out,
                                LLVMValueRef *stop_out, LLVMValueRef *step_out)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef zero = lower_i64(L, 0), m1 = lower_i64(L, -1), one = lower_i64(L, 1);
    LLVMValueRef start = LLVMBuildExtractValue(B, sl, 0, ""), stop = LLVMBuildExtractValue(B, sl, 1, "");
    LLVMValueRef step = LLVMBuildExtractValue(B, sl, 2, "");
    LLVMValueRef has_start = LLVMBuildExtractValue(B, sl, 3, ""), has_stop = LLVMBuildExtractValue(B, sl, 4, "");
    LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, step, zero, "");
    LLVMValueRef lo = LLVMBuildSelect(B, neg, m1, zero, ""), hi = LLVMBuildSelect(B, neg, LLVMBuildSub(B, n, one, ""), n, "");
    LLVMValueRef v[2] = {start, stop};
    for (int k = 0; k < 2; k++) {
        LLVMValueRef x = v[k];
        LLVMValueRef wrapped = LLVMBuildAdd(B, x, n, "");
        LLVMValueRef below = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, wrapped, zero, ""), lo, wrapped, "");
        LLVMValueRef above = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGE, x, n, ""), hi, x, "");
        v[k] = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, x, zero, ""), below, above, "");
    }
    start = LLVMBuildSelect(B, has_start, v[0], LLVMBuildSelect(B, neg, LLVMBuildSub(B, n, one, ""), zero, ""), "");
    stop = LLVMBuildSelect(B, has_stop, v[1], LLVMBuildSelect(B, neg, m1, n, ""), "");
    /* len = step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step, >= 0 */
    LLVMValueRef span = LLVMBuildSelect(B, neg, LLVMBuildSub(B, start, stop, ""), LLVMBuildSub(B, stop, start, ""), "");
    LLVMValueRef astep = LLVMBuildSelect(B, neg, LLVMBuildNeg(B, step, ""), step, "");
    LLVMValueRef len = LLVMBuildSDiv(B, LLVMBuildSub(B, LLVMBuildAdd(B, span, astep, ""), one, ""), astep, "");
    len = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, span, zero, ""), len, zero, "");
    *start_out = start;
    *stop_out = stop;
    *step_out = step;
    return len;
}

static bool is_const_i64(LLVMValueRef v, int64_t k)
{
    return k > 0 && LLVMIsAConstantInt(v) && LLVMConstIntGetSExtValue(v) == k;
}

/* arr[idx...]: the element pointer when every axis is int-indexed (*view = NULL), else the view
 * (of type vt). A None part adds an axis of length 1 (np.newaxis) and indexes no axis of arr. */
static LLVMValueRef index_array(Lower *L, Instr *in, int nidx, Type *vt, LLVMValueRef *view,
                                LLVMValueRef *ws)
{
    Instr *a = in->args[0];
    Type *at = a->type;
    LLVMValueRef arr = lower_value(L, a), off = lower_i64(L, 0);
    LLVMValueRef sh[ABI_MAX_NDIM], st[ABI_MAX_NDIM];
    /* the index of the axis whose stride is the item size (a contiguous array's last) counts
     * items, not bytes: an address LLVM can follow through a loop's phis (GVN then reuses the
     * load of b[j - 1] as the next iteration's b[j]) */
    LLVMValueRef unit = NULL;
    int64_t itemsize = (int64_t)ty_itemsize(at->array.dtype);
    int nd = 0, part = 0;
    for (int k = 0; k < at->array.ndim; k++) {
        for (; part < nidx && in->args[1 + part]->type->kind == TY_NONE && nd < ABI_MAX_NDIM; part++) {
            sh[nd] = lower_i64(L, 1);
            st[nd++] = lower_i64(L, 0);
        }
        LLVMValueRef n = lower_array_dim(L, arr, k), s = lower_array_stride(L, at, arr, k);
        Instr *ix = part < nidx ? in->args[1 + part++] : NULL;
        if (ix && ix->type->kind != TY_SLICE) {
            LLVMValueRef i = lower_cast(L, lower_value(L, ix), ix->type, ty_scalar(TY_INT64));
            LLVMValueRef w = norm_index(L, in, ix, i, n, k);
            if (ws)
                ws[k] = w;
            if (!unit && is_const_i64(s, itemsize))
                unit = w;
            else
                off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, w, s, ""), "");
        } else if (ix) {
            LLVMValueRef start, step;
            sh[nd] = lower_slice_indices(L, lower_value(L, ix), n, &start, &step);
            st[nd++] = LLVMBuildMul(L->b, s, step, "");
            off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, start, s, ""), "");
        } else {
            sh[nd] = n;
            st[nd++] = s;
        }
    }
    for (; part < nidx && nd < ABI_MAX_NDIM; part++) {   /* trailing None parts */
        sh[nd] = lower_i64(L, 1);
        st[nd++] = lower_i64(L, 0);
    }
    LLVMValueRef p = lower_array_data(L, arr);
    if (unit) {
        LLVMTypeRef elem = LLVMArrayType(L->i8, (unsigned)itemsize);
        p = LLVMBuildInBoundsGEP2(L->b, elem, p, &unit, 1, "");
    }
    p = byte_gep(L, p, off);
    *view = NULL;
    if (nd == 0 && (!vt || !is_array(vt)))
        return p;
    if (!vt || !is_array(vt) || vt->array.ndim != nd) {
        lower_unsupported(L, "internal: array index result type does not match");
        return NULL;
    }
    *view = array_view(L, vt, arr, p, sh, st);
    return p;
}

LLVMValueRef lower_array_elem_ptr(Lower *L, Instr *in, int nidx)
{
    LLVMValueRef view;
    return index_array(L, in, nidx, NULL, &view, NULL);
}

LLVMValueRef lower_array_get(Lower *L, Instr *in)
{
    LLVMValueRef view, ws[ABI_MAX_NDIM];
    LLVMValueRef p = index_array(L, in, in->nargs - 1, is_array(in->type) ? in->type : NULL, &view,
                                 ws);
    if (!p)
        return NULL;
    Type *dt = in->args[0]->type->array.dtype;
    if (!view && L->prog->sim_racecheck)
        lower_sim_race(L, in, p, false, ws);
    if (!view && dt->kind == TY_RECORD)
        return lower_record_in(L, in, dt, LLVMBuildExtractValue(L->b, lower_value(L, in->args[0]), 0, ""), p);
    if (!view)
        return lower_array_element(L, in, dt, p);
    lower_incref(L, LLVMBuildExtractValue(L->b, view, 0, ""));
    lower_own(L, in, view);
    return view;
}

typedef struct FillCtx { Type *from, *to; LLVMValueRef value; bool numpy_cast; } FillCtx;

static LLVMValueRef elem_fill(Lower *L, void *vctx, LLVMValueRef *e)
{
    FillCtx *c = vctx;
    if (c->value)
        return c->value;
    return c->numpy_cast ? lower_cast_numpy(L, e[0], c->from, c->to) : lower_cast(L, e[0], c->from, c->to);
}

/* dst[...] = src: a scalar fills, an array is broadcast to dst's shape; numpy_cast converts
 * floats to ints as NumPy's casts do (copies, astype). */
static void assign_array_cast(Lower *L, Type *dt, LLVMValueRef dst, Type *vt, LLVMValueRef v, bool numpy_cast)
{
    LLVMValueRef shape[ABI_MAX_NDIM];
    get_shape(L, dt, dst, shape);
    EwOp out = {.t = dt, .v = dst};
    FillCtx c = {.from = elem_type(vt), .to = dt->array.dtype, .numpy_cast = numpy_cast};
    if (!is_array(vt)) {
        c.value = lower_cast(L, v, vt, dt->array.dtype);
        ew_run(L, dt->array.ndim, shape, NULL, 0, &out, elem_fill, &c);
        return;
    }
    EwOp op = {.t = vt, .v = v};
    if (vt->array.ndim > dt->array.ndim) {
        lower_unsupported(L, "cannot assign a %dd array to a %dd selection", vt->array.ndim, dt->array.ndim);
        return;
    }
    ew_broadcast(L, dt->array.ndim, shape, &op, 1, true);
    ew_run(L, dt->array.ndim, shape, &op, 1, &out, elem_fill, &c);
}

static void assign_array(Lower *L, Type *dt, LLVMValueRef dst, Type *vt, LLVMValueRef v)
{
    assign_array_cast(L, dt, dst, vt, v, false);
}

/* The bytes [lo, hi) an array's elements span (strides may be negative), as integers; *empty is
 * an i1 that holds where the array has no element. */
static void array_extent(Lower *L, Type *at, LLVMValueRef arr, LLVMValueRef *lo, LLVMValueRef *hi,
                         LLVMValueRef *empty)
{
    LLVMValueRef base = LLVMBuildPtrToInt(L->b, lower_array_data(L, arr), L->i64, ""), zero = lower_i64(L, 0);
    LLVMValueRef low = zero, high = lower_i64(L, ty_itemsize(at->array.dtype));
    *empty = LLVMConstInt(L->i1, 0, 0);
    for (int k = 0; k < at->array.ndim; k++) {
        LLVMValueRef n = lower_array_dim(L, arr, k), s = lower_array_stride(L, at, arr, k);
        LLVMValueRef span = LLVMBuildMul(L->b, LLVMBuildSub(L->b, n, lower_i64(L, 1), ""), s, "");
        LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, span, zero, "");
        low = LLVMBuildAdd(L->b, low, LLVMBuildSelect(L->b, neg, span, zero, ""), "");
        high = LLVMBuildAdd(L->b, high, LLVMBuildSelect(L->b, neg, zero, span, ""), "");
        *empty = LLVMBuildOr(L->b, *empty, LLVMBuildICmp(L->b, LLVMIntSLE, n, zero, ""), "");
    }
    *lo = LLVMBuildAdd(L->b, base, low, "");
    *hi = LLVMBuildAdd(L->b, base, high, "");
}

/* a._extent(): (lo, hi), the bytes [lo, hi) a's items span, lo == hi when it has none. */
LLVMValueRef lower_bi_extent(Lower *L, Instr *in, Builtin bi)
{
    (void)bi;
    Instr *arr = in->args[0];
    LLVMValueRef lo, hi, empty;
    array_extent(L, arr->type, lower_value(L, arr), &lo, &hi, &empty);
    LLVMValueRef t = LLVMGetUndef(lower_type(L, in->type));
    t = LLVMBuildInsertValue(L->b, t, lo, 0, "");
    return LLVMBuildInsertValue(L->b, t, LLVMBuildSelect(L->b, empty, lo, hi, ""), 1, "");
}

/* i1: the arrays a and b share some byte at run time. */
static LLVMValueRef arrays_overlap(Lower *L, Type *ta, LLVMValueRef a, Type *tb, LLVMValueRef b)
{
    LLVMValueRef alo, ahi, aempty, blo, bhi, bempty;
    array_extent(L, ta, a, &alo, &ahi, &aempty);
    array_extent(L, tb, b, &blo, &bhi, &bempty);
    LLVMValueRef overlap = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntULT, alo, bhi, ""),
                                        LLVMBuildICmp(L->b, LLVMIntULT, blo, ahi, ""), "");
    return LLVMBuildAnd(L->b, overlap, LLVMBuildNot(L->b, LLVMBuildOr(L->b, aempty, bempty, ""), ""), "");
}

/* i1: a and b are the same items at run time (the same data, shape and strides, items of one
 * size), so a loop writing a item by item reads each item of b before writing it (a += a). */
static LLVMValueRef arrays_same_items(Lower *L, Type *ta, LLVMValueRef a, Type *tb, LLVMValueRef b)
{
    int nd = ta->array.ndim;
    if (nd != tb->array.ndim || ty_itemsize(ta->array.dtype) != ty_itemsize(tb->array.dtype))
        return LLVMConstInt(L->i1, 0, 0);
    LLVMValueRef same = LLVMBuildICmp(L->b, LLVMIntEQ, lower_array_data(L, a), lower_array_data(L, b), "");
    for (int k = 0; k < nd; k++) {
        same = LLVMBuildAnd(L->b, same, LLVMBuildICmp(L->b, LLVMIntEQ, lower_array_dim(L, a, k),
                                                      lower_array_dim(L, b, k), ""), "");
        same = LLVMBuildAnd(L->b, same, LLVMBuildICmp(L->b, LLVMIntEQ, lower_array_stride(L, ta, a, k),
                                                      lower_array_stride(L, tb, b, k), ""), "");
    }
    return same;
}

/* The operand op of an elementwise loop writing into dst, made safe to read while dst is
 * written: a C-contiguous copy where the two overlap at run time (a[1:] += a[:-1]) without
 * being the same items (a *= a reads each item before writing it), op itself elsewhere; either
 * way op then holds a reference that the caller releases with lower_decref_value(L, op->t,
 * op->v). NumPy reads such operands as if copied first. */
static void separate_operand(Lower *L, Type *dt, LLVMValueRef dst, EwOp *op)
{
    Type *vt = op->t, *ct = ty_array(vt->array.dtype, vt->array.ndim, 'C', false);
    LLVMValueRef shape[ABI_MAX_NDIM], v = op->v;
    LLVMBasicBlockRef copy = lower_block(L, "ew.overlap"), keep = lower_block(L, "ew.separate");
    LLVMBasicBlockRef join = lower_block(L, "ew.operand");
    LLVMValueRef needed = LLVMBuildAnd(L->b, arrays_overlap(L, dt, dst, vt, v),
                                       LLVMBuildNot(L->b, arrays_same_items(L, dt, dst, vt, v), ""), "");
    LLVMBuildCondBr(L->b, needed, copy, keep);
    LLVMPositionBuilderAtEnd(L->b, copy);
    get_shape(L, vt, v, shape);
    LLVMValueRef tmp = alloc_array(L, ct, shape, NULL);
    assign_array(L, ct, tmp, vt, v);
    LLVMBasicBlockRef copied = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, keep);
    lower_incref(L, LLVMBuildExtractValue(L->b, v, 0, ""));
    LLVMBasicBlockRef kept = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
    LLVMValueRef phi = LLVMBuildPhi(L->b, LLVMTypeOf(v), "");
    LLVMValueRef vals[2] = {tmp, v};
    LLVMBasicBlockRef from[2] = {copied, kept};
    LLVMAddIncoming(phi, vals, from, 2);
    if (vt->array.layout != 'C')    /* the copy is C-contiguous, the original may not be */
        op->t = ty_array(vt->array.dtype, vt->array.ndim, 'A', vt->array.readonly);
    op->v = phi;
}

/* dst[...] = src where the two may share memory (a[1:] = a[:-1], a[:] = a[::-1], a[:] = a.T):
 * the source is read whole before dst is written, as NumPy and Numba do. Kernels allocate no
 * heap memory and assign directly. */
static void assign_array_overlapping(Lower *L, Type *dt, LLVMValueRef dst, Type *vt, LLVMValueRef v,
                                     bool numpy_cast)
{
    if (!is_array(vt) || prog_kernel_code(L->prog)) {
        assign_array_cast(L, dt, dst, vt, v, numpy_cast);
        return;
    }
    EwOp op = {.t = vt, .v = v};
    separate_operand(L, dt, dst, &op);
    assign_array_cast(L, dt, dst, op.t, op.v, numpy_cast);
    lower_decref_value(L, op.t, op.v);
}

int lower_array_set(Lower *L, Instr *in)
{
    Type *at = in->args[0]->type;
    Instr *val = in->args[in->nargs - 1];
    int nidx = in->nargs - 2, nd = at->array.ndim;
    for (int k = 0; k < nidx; k++) {
        TypeKind kind = in->args[1 + k]->type->kind;
        nd += kind == TY_NONE ? 1 : kind == TY_SLICE ? 0 : -1;
    }
    Type *vt = nd > 0 ? ty_array(at->array.dtype, nd, 'A', false) : NULL;
    LLVMValueRef view, ws[ABI_MAX_NDIM];
    LLVMValueRef p = index_array(L, in, nidx, vt, &view, ws);
    if (!p)
        return -1;
    if (!view && L->prog->sim_racecheck)
        lower_sim_race(L, in, p, true, ws);
    if (!view) {
        lower_array_store(L, at->array.dtype, lower_cast(L, lower_value(L, val), val->type, at->array.dtype), p);
        return 0;
    }
    /* b[...] = a casts as NumPy's copyto does, as astype does (a scalar is cast as it is stored) */
    assign_array_overlapping(L, vt, view, val->type, lower_value(L, val), true);
    return L->failed ? -1 : 0;
}

/* The stride NumPy reports (may differ from the computed one along axes of length 0 or 1). */
static LLVMValueRef stored_stride(Lower *L, LLVMValueRef arr, int k)
{
    return LLVMBuildExtractValue(L->b, LLVMBuildExtractValue(L->b, arr, 4, ""), (unsigned)k, "");
}

LLVMValueRef lower_array_attr(Lower *L, Instr *in)
{
    Type *at = in->args[0]->type;
    LLVMValueRef arr = lower_value(L, in->args[0]);
    int nd = at->array.ndim;
    switch ((ArrayAttr)in->sub) {
    case AA_SHAPE:
    case AA_STRIDES: {
        LLVMValueRef t = LLVMGetUndef(lower_type(L, in->type));
        for (int k = 0; k < nd; k++)
            t = LLVMBuildInsertValue(L->b, t, in->sub == AA_SHAPE ? lower_array_dim(L, arr, k) : stored_stride(L, arr, k),
                                     (unsigned)k, "");
        return t;
    }
    case AA_SIZE: return array_size(L, at, arr);
    case AA_NDIM: return lower_i64(L, nd);
    case AA_ITEMSIZE: return lower_i64(L, ty_itemsize(at->array.dtype));
    case AA_NBYTES: return LLVMBuildMul(L->b, array_size(L, at, arr), lower_i64(L, ty_itemsize(at->array.dtype)), "");
    case AA_T: {
        LLVMValueRef sh[ABI_MAX_NDIM], st[ABI_MAX_NDIM];
        for (int k = 0; k < nd; k++) {
            sh[k] = lower_array_dim(L, arr, nd - 1 - k);
            st[k] = lower_array_stride(L, at, arr, nd - 1 - k);
        }
        LLVMValueRef v = array_view(L, in->type, arr, lower_array_data(L, arr), sh, st);
        lower_incref(L, LLVMBuildExtractValue(L->b, v, 0, ""));
        lower_own(L, in, v);
        return v;
    }
    case AA_REAL:
    case AA_IMAG: {
        if (!ty_is_complex(at->array.dtype)) {
            lower_incref(L, LLVMBuildExtractValue(L->b, arr, 0, ""));
            lower_own(L, in, arr);
            return arr;
        }
        LLVMValueRef sh[ABI_MAX_NDIM], st[ABI_MAX_NDIM];
        for (int k = 0; k < nd; k++) {
            sh[k] = lower_array_dim(L, arr, k);
            st[k] = lower_array_stride(L, at, arr, k);
        }
        LLVMValueRef data = lower_array_data(L, arr);
        if (in->sub == AA_IMAG)
            data = byte_gep(L, data, lower_i64(L, ty_itemsize(at->array.dtype) / 2));
        LLVMValueRef v = array_view(L, in->type, arr, data, sh, st);
        lower_incref(L, LLVMBuildExtractValue(L->b, v, 0, ""));
        lower_own(L, in, v);
        return v;
    }
    }
    return NULL;
}

/* ---- creation ------------------------------------------------------------------------------- */

/* A shape argument: an int or a tuple of ints. */
static void shape_of(Lower *L, Instr *s, int nd, LLVMValueRef *shape)
{
    LLVMValueRef v = lower_value(L, s);
    if (s->type->kind == TY_TUPLE) {
        for (int k = 0; k < nd && k < s->type->tuple.n; k++)
            shape[k] = lower_cast(L, LLVMBuildExtractValue(L->b, v, (unsigned)k, ""), s->type->tuple.items[k],
                                  ty_scalar(TY_INT64));
    } else {
        shape[0] = lower_cast(L, v, s->type, ty_scalar(TY_INT64));
    }
}

static LLVMValueRef fill_new(Lower *L, Instr *in, LLVMValueRef *shape, LLVMValueRef value)
{
    LLVMValueRef arr = alloc_array(L, in->type, shape, in);
    EwOp out = {.t = in->type, .v = arr};
    FillCtx c = {.value = value};
    if (value)
        ew_run(L, in->type->array.ndim, shape, NULL, 0, &out, elem_fill, &c);
    return arr;
}

static LLVMValueRef zero_new(Lower *L, Instr *in, LLVMValueRef *shape)
{
    LLVMValueRef arr = alloc_array(L, in->type, shape, in);
    LLVMValueRef n = LLVMBuildMul(L->b, array_size(L, in->type, arr), lower_i64(L, ty_itemsize(in->type->array.dtype)), "");
    LLVMBuildMemSet(L->b, lower_array_data(L, arr), LLVMConstInt(L->i8, 0, 0), n, 64);
    return arr;
}

/* np.arange's length, ceil((stop - start) / step), with NumPy's errors: Python's division error
 * for a zero step, ValueError for a NaN quotient or one beyond intp. A quotient that underflows
 * to zero (a step of inf) still gives one item when it is +0.0, as NumPy's does. */
static LLVMValueRef arange_length(Lower *L, Instr *in, int nargs, LLVMValueRef *v)
{
    LLVMBuilderRef B = L->b;
    Type *f64 = ty_scalar(TY_FLOAT64);
    bool floats = false;
    for (int i = 0; i < nargs; i++)
        floats |= ty_is_float(in->args[i]->type);
    LLVMValueRef zero = LLVMConstReal(L->f64, 0);
    lower_check(L, LLVMBuildFCmp(B, LLVMRealOEQ, v[2], zero, ""), ABI_EXC_ZERO_DIVISION,
                floats ? "float division by zero" : "division by zero", NULL, 0);
    LLVMValueRef delta = LLVMBuildFSub(B, v[1], v[0], ""), q = LLVMBuildFDiv(B, delta, v[2], "");
    lower_check(L, LLVMBuildFCmp(B, LLVMRealUNO, q, q, ""), ABI_EXC_VALUE, "arange: cannot compute length",
                NULL, 0);
    LLVMValueRef c = lower_math(L, MF_CEIL, f64, q, NULL);
    LLVMValueRef fits = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOGE, c, LLVMConstReal(L->f64, -9223372036854775808.0), ""),
                                     LLVMBuildFCmp(B, LLVMRealOLT, c, LLVMConstReal(L->f64, 9223372036854775808.0), ""), "");
    lower_check(L, LLVMBuildNot(B, fits, ""), ABI_EXC_VALUE, "Maximum allowed size exceeded", NULL, 0);
    LLVMValueRef len = lower_cast(L, c, f64, ty_scalar(TY_INT64));
    LLVMValueRef underflow = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, q, zero, ""),
                                          LLVMBuildFCmp(B, LLVMRealONE, delta, zero, ""), "");
    LLVMValueRef neg = LLVMBuildICmp(B, LLVMIntSLT, LLVMBuildBitCast(B, q, L->i64, ""), lower_i64(L, 0), "");
    LLVMValueRef one = LLVMBuildSelect(B, neg, lower_i64(L, 0), lower_i64(L, 1), "");
    len = LLVMBuildSelect(B, underflow, one, len, "");
    return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, len, lower_i64(L, 0), ""), lower_i64(L, 0), len, "");
}

static LLVMValueRef lower_arange(Lower *L, Instr *in)
{
    int n = in->nargs - in->nkw;
    Type *dt = in->type->array.dtype, *f64 = ty_scalar(TY_FLOAT64);
    LLVMValueRef v[3] = {LLVMConstReal(L->f64, 0), NULL, LLVMConstReal(L->f64, 1)};
    int np = 0;
    for (int i = 0; i < n && np < 3; i++)
        if (ty_is_scalar(in->args[i]->type))
            v[np++] = lower_cast(L, lower_value(L, in->args[i]), in->args[i]->type, f64);
    if (np == 1) {
        v[1] = v[0];
        v[0] = LLVMConstReal(L->f64, 0);
    }
    LLVMValueRef len = arange_length(L, in, n, v);
    LLVMValueRef arr = alloc_array(L, in->type, &len, in);
    LoopInfo lp;
    LLVMValueRef i = lower_loop_begin(L, &lp, len);
    LLVMValueRef x;
    if (ty_is_int(dt)) {   /* exact for ints: start + i*step in int64 */
        Type *i64 = ty_scalar(TY_INT64);
        x = LLVMBuildAdd(L->b, lower_cast(L, v[0], f64, i64), LLVMBuildMul(L->b, i, lower_cast(L, v[2], f64, i64), ""), "");
        x = lower_cast(L, x, i64, dt);
    } else {
        x = LLVMBuildFAdd(L->b, v[0], LLVMBuildFMul(L->b, LLVMBuildSIToFP(L->b, i, L->f64, ""), v[2], ""), "");
        /* the first item is start itself, as in NumPy (0 * inf would be nan, -0.0 + 0 is 0.0) */
        x = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, i, lower_i64(L, 0), ""), v[0], x, "");
        x = lower_cast(L, x, f64, dt);
    }
    LLVMValueRef off = LLVMBuildMul(L->b, i, lower_i64(L, ty_itemsize(dt)), "");
    lower_array_store(L, dt, x, byte_gep(L, lower_array_data(L, arr), off));
    lower_loop_end(L, &lp);
    return arr;
}

static LLVMValueRef copy_new(Lower *L, Instr *in, Instr *src)
{
    LLVMValueRef shape[ABI_MAX_NDIM], sv = lower_value(L, src);
    get_shape(L, src->type, sv, shape);
    LLVMValueRef arr = alloc_array(L, in->type, shape, in);
    assign_array_cast(L, in->type, arr, src->type, sv, true);
    return arr;
}

/* ---- reductions ----------------------------------------------------------------------------- */

typedef struct RedCtx {
    Builtin op;
    Type *et, *acc_t;
    LLVMValueRef acc;       /* alloca */
    LLVMValueRef pos, best; /* argmin/argmax: allocas of the flat index and the index found */
} RedCtx;

/* argmin/argmax: x replaces the best so far when strictly better, or when it is the first NaN
 * (NumPy returns the first NaN's index); once the best is NaN nothing replaces it. */
static void elem_argbest(Lower *L, RedCtx *c, LLVMValueRef cur, LLVMValueRef x)
{
    LLVMBuilderRef B = L->b;
    bool is_max = c->op == BI_ARRAY_ARGMAX;
    LLVMValueRef better;
    if (ty_is_float(c->et)) {
        better = LLVMBuildFCmp(B, is_max ? LLVMRealOGT : LLVMRealOLT, x, cur, "");
        better = LLVMBuildOr(B, better, LLVMBuildFCmp(B, LLVMRealUNO, x, x, ""), "");
        better = LLVMBuildAnd(B, better, LLVMBuildFCmp(B, LLVMRealORD, cur, cur, ""), "");
    } else {
        bool s = ty_is_int(c->et) && ty_is_signed(c->et);
        better = LLVMBuildICmp(B, is_max ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT), x, cur, "");
    }
    LLVMValueRef k = LLVMBuildLoad2(B, L->i64, c->pos, "");
    LLVMValueRef b = LLVMBuildLoad2(B, L->i64, c->best, "");
    LLVMBuildStore(B, LLVMBuildSelect(B, better, x, cur, ""), c->acc);
    LLVMBuildStore(B, LLVMBuildSelect(B, better, k, b, ""), c->best);
    LLVMBuildStore(B, LLVMBuildAdd(B, k, lower_i64(L, 1), ""), c->pos);
}

/* nanmin/nanmax: a NaN never replaces a number, and a number always replaces a NaN. */
static LLVMValueRef nan_skipping_minmax(Lower *L, Type *t, LLVMValueRef cur, LLVMValueRef x, bool is_max)
{
    LLVMValueRef r = lower_minmax(L, t, cur, x, is_max, false);
    if (!ty_is_float(t))
        return r;
    return LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealUNO, cur, cur, ""), x, r, "");
}

static LLVMValueRef elem_reduce(Lower *L, void *vctx, LLVMValueRef *e)
{
    RedCtx *c = vctx;
    if (c->op == BI_ARRAY_ARGMIN || c->op == BI_ARRAY_ARGMAX) {
        elem_argbest(L, c, LLVMBuildLoad2(L->b, lower_type(L, c->et), c->acc, ""), e[0]);
        return NULL;
    }
    LLVMValueRef cur = LLVMBuildLoad2(L->b, lower_type(L, c->acc_t), c->acc, "");
    LLVMValueRef x = lower_cast(L, e[0], c->et, c->acc_t), r;
    if (c->op == BI_ARRAY_MIN || c->op == BI_ARRAY_MAX)   /* NumPy: a NaN wins */
        r = lower_minmax(L, c->acc_t, cur, x, c->op == BI_ARRAY_MAX, true);
    else if (c->op == BI_NP_NANMIN || c->op == BI_NP_NANMAX)
        r = nan_skipping_minmax(L, c->acc_t, cur, x, c->op == BI_NP_NANMAX);
    else if (c->op == BI_ARRAY_PROD && c->acc_t->kind == TY_BOOL)
        r = LLVMBuildAnd(L->b, cur, x, "");
    else if (c->op == BI_ARRAY_PROD)
        r = lower_binop_scalar(L, BIN_MUL, c->acc_t, cur, x, NULL);
    else if (c->op == BI_MIN || c->op == BI_MAX)   /* Python: x replaces only if x < or > best */
        r = lower_minmax(L, c->acc_t, cur, x, c->op == BI_MAX, false);
    else
        r = lower_binop_scalar(L, BIN_ADD, c->acc_t, cur, x, NULL);
    LLVMBuildStore(L->b, r, c->acc);
    return NULL;
}

/* The ValueError of a reduction without identity over an empty array (NumPy's and CPython's
 * words), or NULL when the reduction has an identity. */
static const char *empty_reduction_message(Builtin op)
{
    switch (op) {
    case BI_ARRAY_MIN: return "zero-size array to reduction operation minimum which has no identity";
    case BI_ARRAY_MAX: return "zero-size array to reduction operation maximum which has no identity";
    case BI_NP_NANMIN: return "zero-size array to reduction operation fmin which has no identity";
    case BI_NP_NANMAX: return "zero-size array to reduction operation fmax which has no identity";
    case BI_ARRAY_ARGMIN: return "attempt to get argmin of an empty sequence";
    case BI_ARRAY_ARGMAX: return "attempt to get argmax of an empty sequence";
    case BI_MIN: return "min() arg is an empty sequence";
    case BI_MAX: return "max() arg is an empty sequence";
    default: return NULL;
    }
}

/* A reduction of a parallel=True function over this many elements or more runs on the pool, in
 * blocks of RED_BLOCK_MIN elements or more, RED_BLOCKS at most. Each block's partial has its own
 * slot, and the partials are folded in block order: the result does not depend on the number of
 * threads or on which thread ran which block. */
#define RED_BLOCK_MIN 16384
#define RED_BLOCKS 256

static bool reduce_pooled(Lower *L, Builtin op, Type *at)
{
    if (!lower_parallel_ok(L) || at->array.layout != 'C' ||
        !ty_is_scalar(at->array.dtype))
        return false;
    switch (op) {
    case BI_ARRAY_SUM: case BI_ARRAY_MEAN: case BI_ARRAY_PROD: case BI_ARRAY_MIN: case BI_ARRAY_MAX:
    case BI_NP_NANMIN: case BI_NP_NANMAX:
        return true;
    default:
        return false;
    }
}

/* The blocks lo..hi-1 of size elements each (the last may be shorter), each reduced from its
 * first element on into parts[block]. */
static void reduce_blocks(Lower *L, RedCtx *c, Outline *o, EwOp *op, LLVMValueRef n, LLVMValueRef size,
                          LLVMValueRef parts)
{
    LLVMTypeRef acc_ty = lower_type(L, c->acc_t);
    RedCtx local = *c;
    local.acc = lower_alloca(L, acc_ty);
    LoopInfo lp;
    LLVMValueRef blk = LLVMBuildNSWAdd(L->b, o->lo, lower_loop_begin(L, &lp, LLVMBuildSub(L->b, o->hi, o->lo, "")), "");
    LLVMValueRef first = LLVMBuildMul(L->b, blk, size, "");
    LLVMValueRef left = LLVMBuildSub(L->b, n, first, "");
    LLVMValueRef count = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, left, size, ""), left, size, "");
    LLVMValueRef off = LLVMBuildMul(L->b, first, lower_i64(L, ty_itemsize(c->et)), "");
    LLVMValueRef x = lower_array_load(L, c->et, byte_gep(L, lower_array_data(L, op->v), off));
    LLVMBuildStore(L->b, lower_cast(L, x, c->et, c->acc_t), local.acc);
    ew_flat(L, LLVMBuildNSWAdd(L->b, first, lower_i64(L, 1), ""), LLVMBuildSub(L->b, count, lower_i64(L, 1), ""),
            op, 1, NULL, elem_reduce, &local);
    LLVMValueRef idx[2] = {lower_i64(L, 0), blk};
    LLVMBuildStore(L->b, LLVMBuildLoad2(L->b, acc_ty, local.acc, ""),
                   LLVMBuildInBoundsGEP2(L->b, LLVMArrayType(acc_ty, RED_BLOCKS), parts, idx, 2, ""));
    lower_loop_end(L, &lp);
}

/* The n elements of a C-contiguous array reduced on the pool by blocks, the partials then folded
 * into c->acc in block order. */
static void reduce_pool(Lower *L, RedCtx *c, EwOp *op, LLVMValueRef n)
{
    LLVMBuilderRef B = L->b;
    LLVMTypeRef acc_ty = lower_type(L, c->acc_t);
    LLVMValueRef nb = LLVMBuildSDiv(B, n, lower_i64(L, RED_BLOCK_MIN), "");
    nb = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, nb, lower_i64(L, RED_BLOCKS), ""), lower_i64(L, RED_BLOCKS), nb, "");
    LLVMValueRef one = lower_i64(L, 1);
    LLVMValueRef size = LLVMBuildSDiv(B, LLVMBuildSub(B, LLVMBuildAdd(B, n, nb, ""), one, ""), nb, "");
    nb = LLVMBuildSDiv(B, LLVMBuildSub(B, LLVMBuildAdd(B, n, size, ""), one, ""), size, "");
    LLVMValueRef parts = lower_alloca(L, LLVMArrayType(acc_ty, RED_BLOCKS));
    Outline o;
    lower_outline_begin(L, &o);
    reduce_blocks(L, c, &o, op, n, size, parts);
    lower_outline_end(L, &o, nb);
    RedCtx fold = *c;   /* the partials, already of the accumulator's type */
    fold.et = c->acc_t;
    LoopInfo lp;
    LLVMValueRef idx[2] = {lower_i64(L, 0), lower_loop_begin(L, &lp, nb)};
    LLVMValueRef part = LLVMBuildLoad2(L->b, acc_ty, LLVMBuildInBoundsGEP2(L->b, LLVMArrayType(acc_ty, RED_BLOCKS), parts, idx, 2, ""), "");
    elem_reduce(L, &fold, &part);
    lower_loop_end(L, &lp);
}

/* Folds every element of arr (of type at, n of them) into c->acc. */
static void reduce_elements(Lower *L, RedCtx *c, Type *at, LLVMValueRef arr, LLVMValueRef *shape, LLVMValueRef n)
{
    EwOp op0 = {.t = at, .v = arr};
    ew_broadcast(L, at->array.ndim, shape, &op0, 1, true);
    if (!reduce_pooled(L, c->op, at)) {
        ew_run(L, at->array.ndim, shape, &op0, 1, NULL, elem_reduce, c);
        return;
    }
    LLVMBasicBlockRef pool = lower_block(L, "red.pool"), serial = lower_block(L, "red.serial");
    LLVMBasicBlockRef join = lower_block(L, "red.join");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSGE, n, lower_i64(L, 2 * RED_BLOCK_MIN), ""), pool, serial);
    LLVMPositionBuilderAtEnd(L->b, pool);
    reduce_pool(L, c, &op0, n);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, serial);
    ew_run(L, at->array.ndim, shape, &op0, 1, NULL, elem_reduce, c);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
}

static LLVMValueRef reduce(Lower *L, Instr *in, Builtin op)
{
    Instr *a = in->args[0];
    Type *at = a->type;
    LLVMValueRef arr = lower_value(L, a), shape[ABI_MAX_NDIM];
    bool arg = op == BI_ARRAY_ARGMIN || op == BI_ARRAY_ARGMAX;
    RedCtx c = {.op = op, .et = at->array.dtype, .acc_t = arg ? at->array.dtype : in->type};
    c.acc = lower_alloca(L, lower_type(L, c.acc_t));
    get_shape(L, at, arr, shape);
    LLVMValueRef n = array_size(L, at, arr);
    const char *empty = empty_reduction_message(op);
    if (empty) {   /* no identity: start from the first element */
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, n, lower_i64(L, 0), ""), ABI_EXC_VALUE, empty, NULL, 0);
        LLVMBuildStore(L->b, lower_cast(L, lower_array_load(L, c.et, lower_array_data(L, arr)), c.et, c.acc_t), c.acc);
    } else if (op == BI_ARRAY_PROD) {
        LLVMBuildStore(L->b, lower_cast(L, lower_i64(L, 1), ty_scalar(TY_INT64), c.acc_t), c.acc);
    } else {
        LLVMBuildStore(L->b, LLVMConstNull(lower_type(L, c.acc_t)), c.acc);
    }
    if (arg) {
        c.pos = lower_alloca(L, L->i64);
        c.best = lower_alloca(L, L->i64);
        LLVMBuildStore(L->b, lower_i64(L, 0), c.pos);
        LLVMBuildStore(L->b, lower_i64(L, 0), c.best);
    }
    reduce_elements(L, &c, at, arr, shape, n);
    if (arg)
        return LLVMBuildLoad2(L->b, L->i64, c.best, "");
    LLVMValueRef r = LLVMBuildLoad2(L->b, lower_type(L, c.acc_t), c.acc, "");
    if (op == BI_ARRAY_MEAN) {
        /* NumPy: the mean of an empty array is NaN (with a warning), not ZeroDivisionError: its
         * error model, for the complex division too */
        LLVMValueRef nf = lower_cast(L, n, ty_scalar(TY_INT64), c.acc_t);
        if (ty_is_float(c.acc_t))
            return LLVMBuildFDiv(L->b, r, nf, "");
        bool was = L->ew_numpy;
        L->ew_numpy = true;
        r = lower_binop_scalar(L, BIN_TRUEDIV, c.acc_t, r, nf, NULL);
        L->ew_numpy = was;
    }
    return r;
}

/* ---- reshape, ravel, astype ----------------------------------------------------------------- */

/* NumPy's message for a shape that does not fit, as a printf format over the size and (up to
 * three of) the dimensions: "cannot reshape array of size 6 into shape (4,-1)". */
static void reshape_message(char *buf, size_t n, int nd)
{
    int len = snprintf(buf, n, "cannot reshape array of size %%lld into shape (");
    for (int k = 0; k < nd && k < 3; k++)
        len += snprintf(buf + len, n - (size_t)len, k ? ",%%lld" : "%%lld");
    snprintf(buf + len, n - (size_t)len, nd == 1 ? ",)" : nd > 3 ? ",...)" : ")");
}

/* Fills in shape's unknown dimension (any negative one, as in NumPy, known at compile time or
 * not) from the array's size and checks that the shape holds size elements. */
static void reshape_dims(Lower *L, LLVMValueRef size, LLVMValueRef *shape, int nd)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef zero = lower_i64(L, 0), one = lower_i64(L, 1);
    LLVMValueRef known = one, nneg = zero, neg[ABI_MAX_NDIM], args[4] = {size, zero, zero, zero};
    for (int k = 0; k < nd; k++) {
        neg[k] = LLVMBuildICmp(B, LLVMIntSLT, shape[k], zero, "");
        nneg = LLVMBuildAdd(B, nneg, LLVMBuildZExt(B, neg[k], L->i64, ""), "");
        known = LLVMBuildMul(B, known, LLVMBuildSelect(B, neg[k], one, shape[k], ""), "");
        if (k < 3)
            args[k + 1] = shape[k];
    }
    lower_check(L, LLVMBuildICmp(B, LLVMIntUGT, nneg, one, ""), ABI_EXC_VALUE,
                "can only specify one unknown dimension", NULL, 0);
    LLVMValueRef has_unknown = LLVMBuildICmp(B, LLVMIntEQ, nneg, one, "");
    LLVMValueRef known0 = LLVMBuildICmp(B, LLVMIntEQ, known, zero, "");
    LLVMValueRef divisor = LLVMBuildSelect(B, known0, one, known, "");
    LLVMValueRef fill = LLVMBuildSDiv(B, size, divisor, "");
    LLVMValueRef uneven = LLVMBuildOr(B, known0, LLVMBuildICmp(B, LLVMIntNE, LLVMBuildSRem(B, size, divisor, ""),
                                                               zero, ""), "");
    LLVMValueRef bad = LLVMBuildSelect(B, has_unknown, uneven, LLVMBuildICmp(B, LLVMIntNE, known, size, ""), "");
    char msg[128];
    reshape_message(msg, sizeof msg, nd);
    lower_check(L, bad, ABI_EXC_VALUE, msg, args, nd < 3 ? nd + 1 : 4);
    for (int k = 0; k < nd; k++)
        shape[k] = LLVMBuildSelect(L->b, neg[k], fill, shape[k], "");
}

static LLVMValueRef reshape(Lower *L, Instr *in, Instr *src, LLVMValueRef *shape, int nd)
{
    Type *st = src->type;
    LLVMValueRef sv = lower_value(L, src);
    if (st->array.layout != 'C') {   /* not known contiguous: reshape a contiguous copy */
        Type *ct = ty_array(st->array.dtype, st->array.ndim, 'C', false);
        LLVMValueRef shp[ABI_MAX_NDIM];
        get_shape(L, st, sv, shp);
        LLVMValueRef copy = alloc_array(L, ct, shp, in);
        assign_array(L, ct, copy, st, sv);
        sv = copy;
        st = ct;
    }
    reshape_dims(L, array_size(L, st, sv), shape, nd);
    LLVMValueRef strides[ABI_MAX_NDIM], s = lower_i64(L, ty_itemsize(st->array.dtype));
    for (int k = nd - 1; k >= 0; k--) {
        strides[k] = s;
        s = LLVMBuildMul(L->b, s, shape[k], "");
    }
    LLVMValueRef v = array_view(L, in->type, sv, lower_array_data(L, sv), shape, strides);
    lower_incref(L, LLVMBuildExtractValue(L->b, v, 0, ""));
    lower_own(L, in, v);
    return v;
}

/* ---- numpy functions over arrays ------------------------------------------------------------ */

static LLVMValueRef elem_math(Lower *L, void *vctx, LLVMValueRef *e)
{
    MathCtx *c = vctx;
    LLVMValueRef a = lower_cast(L, e[0], c->t0, c->ct);
    LLVMValueRef b = c->nargs > 1 ? lower_cast(L, e[1], c->t1, c->ct) : NULL;
    LLVMValueRef r;
    int mf = lower_builtin_math(c->bi);
    Type *rt = c->ct;
    switch (c->bi) {
    case BI_ABS: case BI_NP_ABS: case BI_NP_ABSOLUTE:
        if (ty_is_complex(c->ct)) {
            r = lower_complex_abs(L, c->ct, a);
            rt = ty_scalar(c->ct->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
        } else if (ty_is_float(c->ct)) {
            r = lower_math(L, MF_FABS, c->ct, a, NULL);
        } else {
            r = ty_is_signed(c->ct) ? LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, a, LLVMConstNull(LLVMTypeOf(a)), ""),
                                                      LLVMBuildNeg(L->b, a, ""), a, "") : a;
        }
        break;
    case BI_NP_ISNAN: case BI_NP_ISINF: case BI_NP_ISFINITE:
        r = lower_number_class(L, c->bi, c->ct, a);
        rt = ty_scalar(TY_BOOL);
        break;
    case BI_NP_MINIMUM: case BI_NP_MAXIMUM:
        r = lower_minmax(L, c->ct, a, b, c->bi == BI_NP_MAXIMUM, true);
        break;
    case BI_NP_POWER: {
        bool saved = L->ew_numpy;
        L->ew_numpy = true;
        r = lower_binop_scalar(L, BIN_POW, c->ct, a, b, NULL);
        L->ew_numpy = saved;
        if (ty_is_int(c->ct) || c->ct->kind == TY_BOOL)   /* both computed in int64 */
            rt = ty_scalar(TY_INT64);
        break;
    }
    default:
        if (mf < 0) {
            lower_unsupported(L, "%s() over arrays is not supported", ir_builtin_name(c->bi));
            return NULL;
        }
        r = lower_math(L, (MathFn)mf, c->ct, a, b);
    }
    return r ? lower_cast(L, r, rt, c->out) : NULL;
}

static void math_ctx(Instr *in, MathCtx *c)
{
    *c = (MathCtx){.bi = (Builtin)in->sub, .t0 = elem_type(in->args[0]->type), .nargs = ew_nargs(in),
                   .out = in->type->array.dtype};
    c->t1 = c->nargs > 1 ? elem_type(in->args[1]->type) : NULL;
    c->ct = c->t1 ? ty_promote(c->t0, c->t1) : c->t0;
    if (lower_builtin_math(c->bi) >= 0 && !ty_is_float(c->ct))
        c->ct = ty_is_float(c->out) ? c->out : ty_scalar(TY_FLOAT64);
}

/* ---- where, cumsum, linspace, std, var ---------------------------------------------------- */

static LLVMValueRef elem_where(Lower *L, void *vctx, LLVMValueRef *e)
{
    MoreCtx *c = vctx;
    return LLVMBuildSelect(L->b, lower_truth(L, e[0], c->t[0]), lower_cast(L, e[1], c->t[1], c->out),
                           lower_cast(L, e[2], c->t[2], c->out), "");
}

static Type *elem_of(Type *t)
{
    return is_array(t) ? t->array.dtype : t;
}

static void where_ctx(Instr *in, MoreCtx *c)
{
    *c = (MoreCtx){.out = in->type->array.dtype};
    for (int i = 0; i < 3; i++)
        c->t[i] = elem_of(in->args[i]->type);
}

/* Runs fn over every element of the array operand in C order, with no output. */
static void over_elements(Lower *L, Instr *a, ElemFn fn, void *ctx)
{
    EwOp op = {.t = a->type, .v = lower_value(L, a)};
    LLVMValueRef shape[ABI_MAX_NDIM];
    get_shape(L, op.t, op.v, shape);
    ew_broadcast(L, op.t->array.ndim, shape, &op, 1, true);
    ew_run(L, op.t->array.ndim, shape, &op, 1, NULL, fn, ctx);
}

typedef struct FindCtx { Type *et, *ct; LLVMValueRef x, found; } FindCtx;

static LLVMValueRef elem_find(Lower *L, void *vctx, LLVMValueRef *e)
{
    FindCtx *c = vctx;
    LLVMValueRef eq = lower_compare_scalar(L, CMP_EQ, c->ct, lower_cast(L, e[0], c->et, c->ct), c->x);
    LLVMValueRef was = LLVMBuildLoad2(L->b, L->i1, c->found, "");
    LLVMBuildStore(L->b, LLVMBuildOr(L->b, was, eq, ""), c->found);
    return NULL;
}

/* x in a: whether some element of a equals x (NaN equals nothing), as Numba's array
 * __contains__; the two compared in their promoted type. */
LLVMValueRef lower_array_contains(Lower *L, Instr *a, Instr *x)
{
    Type *et = a->type->array.dtype;
    FindCtx c = {.et = et, .ct = ty_promote(et, x->type)};
    c.x = lower_cast(L, lower_value(L, x), x->type, c.ct);
    c.found = lower_alloca(L, L->i1);
    LLVMBuildStore(L->b, LLVMConstInt(L->i1, 0, 0), c.found);
    over_elements(L, a, elem_find, &c);
    return LLVMBuildLoad2(L->b, L->i1, c.found, "");
}

/* cumsum: the running sum stored at ptr, which then moves one element on. */
static LLVMValueRef elem_cumsum(Lower *L, void *vctx, LLVMValueRef *e)
{
    MoreCtx *c = vctx;
    LLVMTypeRef ot = lower_type(L, c->out);
    LLVMValueRef s = lower_binop_scalar(L, BIN_ADD, c->out, LLVMBuildLoad2(L->b, ot, c->acc, ""),
                                        lower_cast(L, e[0], c->t[0], c->out), NULL);
    LLVMBuildStore(L->b, s, c->acc);
    LLVMValueRef p = LLVMBuildLoad2(L->b, L->ptr, c->ptr, "");
    lower_array_store(L, c->out, s, p);
    LLVMBuildStore(L->b, byte_gep(L, p, lower_i64(L, ty_itemsize(c->out))), c->ptr);
    return NULL;
}

static LLVMValueRef lower_cumsum(Lower *L, Instr *in)
{
    Instr *a = in->args[0];
    MoreCtx c = {.t = {a->type->array.dtype}, .out = in->type->array.dtype};
    LLVMValueRef n = array_size(L, a->type, lower_value(L, a));
    LLVMValueRef out = alloc_array(L, in->type, &n, in);
    c.acc = lower_alloca(L, lower_type(L, c.out));
    LLVMBuildStore(L->b, LLVMConstNull(lower_type(L, c.out)), c.acc);
    c.ptr = lower_alloca(L, L->ptr);
    LLVMBuildStore(L->b, lower_array_data(L, out), c.ptr);
    over_elements(L, a, elem_cumsum, &c);
    return out;
}

/* start + i * step, the last element stop itself (NumPy's order of operations). */
static LLVMValueRef lower_linspace(Lower *L, Instr *in)
{
    LLVMValueRef start = lower_value(L, in->args[0]), stop = lower_value(L, in->args[1]);
    LLVMValueRef num = lower_value(L, in->args[2]);
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntSLT, num, lower_i64(L, 0), ""), ABI_EXC_VALUE,
                "Number of samples, %lld, must be non-negative.", &num, 1);
    LLVMValueRef out = alloc_array(L, in->type, &num, in), data = lower_array_data(L, out);
    LLVMValueRef many = LLVMBuildICmp(L->b, LLVMIntSGT, num, lower_i64(L, 1), "");
    LLVMValueRef div = LLVMBuildSIToFP(L->b, LLVMBuildSelect(L->b, many, LLVMBuildSub(L->b, num, lower_i64(L, 1), ""),
                                                             lower_i64(L, 1), ""), L->f64, "");
    LLVMValueRef step = LLVMBuildFDiv(L->b, LLVMBuildFSub(L->b, stop, start, ""), div, "");
    LoopInfo lp;
    LLVMValueRef i = lower_loop_begin(L, &lp, num);
    LLVMValueRef v = LLVMBuildFAdd(L->b, LLVMBuildFMul(L->b, LLVMBuildSIToFP(L->b, i, L->f64, ""), step, ""), start, "");
    lower_array_store(L, ty_scalar(TY_FLOAT64), v, byte_gep(L, data, LLVMBuildMul(L->b, i, lower_i64(L, 8), "")));
    lower_loop_end(L, &lp);
    LLVMBasicBlockRef last = lower_block(L, "linspace.last"), done = lower_block(L, "linspace.done");
    LLVMBuildCondBr(L->b, many, last, done);
    LLVMPositionBuilderAtEnd(L->b, last);
    LLVMValueRef end = byte_gep(L, data, LLVMBuildMul(L->b, LLVMBuildSub(L->b, num, lower_i64(L, 1), ""),
                                                      lower_i64(L, 8), ""));
    lower_array_store(L, ty_scalar(TY_FLOAT64), stop, end);
    LLVMBuildBr(L->b, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    return out;
}

/* std and var: the sum (mean NULL), then the sum of squared deviations from the mean, in float64. */
static LLVMValueRef elem_moment(Lower *L, void *vctx, LLVMValueRef *e)
{
    MoreCtx *c = vctx;
    LLVMValueRef x = lower_cast(L, e[0], c->t[0], ty_scalar(TY_FLOAT64));
    if (c->mean) {
        x = LLVMBuildFSub(L->b, x, c->mean, "");
        x = LLVMBuildFMul(L->b, x, x, "");
    }
    LLVMBuildStore(L->b, LLVMBuildFAdd(L->b, LLVMBuildLoad2(L->b, L->f64, c->acc, ""), x, ""), c->acc);
    return NULL;
}

static LLVMValueRef lower_moment(Lower *L, Instr *in, bool is_std)
{
    Instr *a = in->args[0];
    MoreCtx c = {.t = {a->type->array.dtype}};
    LLVMValueRef n = LLVMBuildSIToFP(L->b, array_size(L, a->type, lower_value(L, a)), L->f64, "");
    c.acc = lower_alloca(L, L->f64);
    LLVMBuildStore(L->b, LLVMConstReal(L->f64, 0), c.acc);
    over_elements(L, a, elem_moment, &c);
    c.mean = LLVMBuildFDiv(L->b, LLVMBuildLoad2(L->b, L->f64, c.acc, ""), n, "");
    LLVMBuildStore(L->b, LLVMConstReal(L->f64, 0), c.acc);
    over_elements(L, a, elem_moment, &c);
    LLVMValueRef v = LLVMBuildFDiv(L->b, LLVMBuildLoad2(L->b, L->f64, c.acc, ""), n, "");
    if (is_std)
        v = lower_math(L, MF_SQRT, ty_scalar(TY_FLOAT64), v, NULL);
    return lower_cast(L, v, ty_scalar(TY_FLOAT64), in->type);
}

/* ---- sort, argsort, partition, argpartition (runtime/sort.c) ------------------------------ */

AbiSortKey lower_sort_key(Type *dt)
{
    switch (dt->kind) {
    case TY_BOOL: return ABI_SORT_BOOL;
    case TY_INT8: return ABI_SORT_INT8;
    case TY_INT16: return ABI_SORT_INT16;
    case TY_INT32: return ABI_SORT_INT32;
    case TY_INT64: return ABI_SORT_INT64;
    case TY_UINT8: return ABI_SORT_UINT8;
    case TY_UINT16: return ABI_SORT_UINT16;
    case TY_UINT32: return ABI_SORT_UINT32;
    case TY_UINT64: return ABI_SORT_UINT64;
    case TY_FLOAT32: return ABI_SORT_FLOAT32;
    case TY_FLOAT16: return ABI_SORT_FLOAT16;
    case TY_DATETIME: case TY_TIMEDELTA: return ABI_SORT_DATETIME;
    case TY_COMPLEX64: return ABI_SORT_COMPLEX64;
    case TY_COMPLEX128: return ABI_SORT_COMPLEX128;
    default: return ABI_SORT_FLOAT64;
    }
}

/* The rows the runtime sorts in a C-contiguous array of type at: n elements each (the last
 * axis, or all of them when flat); no rows when n is 0. */
static void sort_rows(Lower *L, Type *at, LLVMValueRef arr, bool flat, LLVMValueRef *rows, LLVMValueRef *n)
{
    LLVMValueRef size = array_size(L, at, arr), zero = lower_i64(L, 0);
    *n = flat ? size : lower_array_dim(L, arr, at->array.ndim - 1);
    LLVMValueRef empty = LLVMBuildICmp(L->b, LLVMIntEQ, *n, zero, "");
    *rows = LLVMBuildSelect(L->b, empty, zero,
                            LLVMBuildSDiv(L->b, size, LLVMBuildSelect(L->b, empty, lower_i64(L, 1), *n, ""), ""), "");
}

/* The array's data as the runtime takes it: the array itself when C-contiguous, else a copy
 * that in's slot owns. */
static LLVMValueRef contiguous(Lower *L, Instr *in, Instr *src, Type **ct)
{
    Type *at = src->type;
    LLVMValueRef v = lower_value(L, src), shape[ABI_MAX_NDIM];
    *ct = at;
    if (at->array.layout == 'C')
        return v;
    *ct = ty_array(at->array.dtype, at->array.ndim, 'C', false);
    get_shape(L, at, v, shape);
    LLVMValueRef copy = alloc_array(L, *ct, shape, in);
    assign_array(L, *ct, copy, at, v);
    return copy;
}

/* A run-time axis must be the last one (-1 or ndim - 1), as the library's sorts required. */
static void check_last_axis(Lower *L, Instr *axis, int ndim)
{
    LLVMValueRef v = lower_value(L, axis);
    LLVMValueRef bad = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, v, lower_i64(L, -1), ""),
                                    LLVMBuildICmp(L->b, LLVMIntNE, v, lower_i64(L, ndim - 1), ""), "");
    lower_check(L, bad, ABI_EXC_VALUE, "sorting supports axis=-1 (the last axis) and axis=None only", NULL, 0);
}

/* kth as an index into a row of n (negative counts from the end); ValueError out of range. */
static LLVMValueRef kth_index(Lower *L, Instr *kth, LLVMValueRef n)
{
    LLVMValueRef k = lower_value(L, kth), neg = LLVMBuildICmp(L->b, LLVMIntSLT, k, lower_i64(L, 0), "");
    LLVMValueRef i = LLVMBuildSelect(L->b, neg, LLVMBuildAdd(L->b, k, n, ""), k, ""), args[2] = {k, n};
    LLVMValueRef bad = LLVMBuildOr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, lower_i64(L, 0), ""),
                                   LLVMBuildICmp(L->b, LLVMIntSGE, i, n, ""), "");
    lower_check(L, bad, ABI_EXC_VALUE, "kth(=%lld) out of bounds (%lld)", args, 2);
    return i;
}

/* np.sort and np.partition sort a C-contiguous copy (flattened: seen 1-d), a.sort() the array
 * itself or, when it is not C-contiguous, a copy written back. */
static LLVMValueRef sort_values(Lower *L, Instr *in, Builtin bi)
{
    Instr *src = in->args[0];
    Type *at = src->type, *ct = ty_array(at->array.dtype, at->array.ndim, 'C', false);
    bool flat = bi == BI_NP_SORT && in->args[1]->type->kind == TY_NONE, part = bi == BI_NP_PARTITION;
    if (!flat && !part)
        check_last_axis(L, in->args[1], at->array.ndim);
    LLVMValueRef arr, shape[ABI_MAX_NDIM], rows, n;
    if (bi == BI_ARRAY_SORT) {
        arr = contiguous(L, in, src, &ct);
    } else {
        get_shape(L, at, lower_value(L, src), shape);
        arr = alloc_array(L, ct, shape, in);
        assign_array(L, ct, arr, at, lower_value(L, src));
    }
    sort_rows(L, ct, arr, flat, &rows, &n);
    LLVMValueRef key = LLVMConstInt(L->i32, (unsigned long long)lower_sort_key(at->array.dtype), 0);
    if (part) {
        LLVMValueRef args[5] = {lower_array_data(L, arr), rows, n, kth_index(L, in->args[1], n), key};
        lower_call_rt(L, "pj_partition", LLVMVoidTypeInContext(L->ctx), args, 5);
    } else {
        LLVMValueRef args[4] = {lower_array_data(L, arr), rows, n, key};
        lower_call_rt(L, "pj_sort", LLVMVoidTypeInContext(L->ctx), args, 4);
    }
    if (bi == BI_ARRAY_SORT) {
        if (ct != at)
            assign_array(L, at, lower_value(L, src), ct, arr);
        return LLVMConstNull(L->none_ty);
    }
    if (!flat)
        return arr;
    LLVMValueRef step = lower_i64(L, ty_itemsize(at->array.dtype));   /* the copy seen 1-d */
    return array_view(L, in->type, arr, lower_array_data(L, arr), &n, &step);
}

/* argsort and argpartition fill a new int64 array from the (contiguous) values. */
static LLVMValueRef sort_indices(Lower *L, Instr *in, Builtin bi)
{
    Instr *src = in->args[0];
    Type *ct;
    bool flat = bi == BI_NP_ARGSORT && in->args[1]->type->kind == TY_NONE;
    if (bi == BI_NP_ARGSORT && !flat)
        check_last_axis(L, in->args[1], src->type->array.ndim);
    LLVMValueRef arr = contiguous(L, in, src, &ct), shape[ABI_MAX_NDIM], rows, n, rc;
    sort_rows(L, ct, arr, flat, &rows, &n);
    if (flat)
        shape[0] = n;
    else
        get_shape(L, ct, arr, shape);
    LLVMValueRef key = LLVMConstInt(L->i32, (unsigned long long)lower_sort_key(ct->array.dtype), 0);
    LLVMValueRef kth = bi == BI_NP_ARGPARTITION ? kth_index(L, in->args[1], n) : NULL;
    LLVMValueRef out = alloc_array(L, in->type, shape, NULL);
    if (kth) {
        LLVMValueRef args[6] = {lower_array_data(L, arr), rows, n, kth, key, lower_array_data(L, out)};
        rc = lower_call_rt(L, "pj_argpartition", L->i32, args, 6);
    } else {
        LLVMValueRef args[5] = {lower_array_data(L, arr), rows, n, key, lower_array_data(L, out)};
        rc = lower_call_rt(L, "pj_argsort", L->i32, args, 5);
    }
    lower_own(L, in, out);   /* releases the copy, if one was made */
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntNE, rc, LLVMConstInt(L->i32, 0, 0), ""), ABI_EXC_MEMORY,
                "cannot allocate memory to sort", NULL, 0);
    return out;
}

/* ---- np.dot and @ (plain loops) ------------------------------------------------------------ */

/* Both operands seen as matrices: a is m x k (a 1-d a is one row), b is k x n (a 1-d b is one
 * column); the strides are in bytes, 0 along an axis an operand lacks. */
typedef struct DotCtx {
    Type *et, *ta, *tb;
    LLVMValueRef pa, pb, m, n, k, sa_row, sa_k, sb_k, sb_col;
} DotCtx;

static void dot_operands(Lower *L, Instr *in, DotCtx *d)
{
    Type *ta = in->args[0]->type, *tb = in->args[1]->type;
    LLVMValueRef a = lower_value(L, in->args[0]), b = lower_value(L, in->args[1]), one = lower_i64(L, 1);
    bool a2 = ta->array.ndim == 2, b2 = tb->array.ndim == 2;
    d->ta = ta->array.dtype;
    d->tb = tb->array.dtype;
    d->pa = lower_array_data(L, a);
    d->pb = lower_array_data(L, b);
    d->m = a2 ? lower_array_dim(L, a, 0) : one;
    d->sa_row = a2 ? lower_array_stride(L, ta, a, 0) : lower_i64(L, 0);
    d->k = lower_array_dim(L, a, a2 ? 1 : 0);
    d->sa_k = lower_array_stride(L, ta, a, a2 ? 1 : 0);
    LLVMValueRef kb = lower_array_dim(L, b, 0);
    d->sb_k = lower_array_stride(L, tb, b, 0);
    d->n = b2 ? lower_array_dim(L, b, 1) : one;
    d->sb_col = b2 ? lower_array_stride(L, tb, b, 1) : lower_i64(L, 0);
    LLVMValueRef args[2] = {d->k, kb};
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntNE, d->k, kb, ""), ABI_EXC_VALUE,
                "shapes not aligned: %lld (inner dimension of the first) != %lld (dim 0 of the second)",
                args, 2);
}

/* The sum over k of a[pa + k*sa_k] * b[pb + k*sb_k], in the result's type. */
static LLVMValueRef dot_inner(Lower *L, DotCtx *d, LLVMValueRef pa, LLVMValueRef pb)
{
    LLVMValueRef acc = lower_alloca(L, lower_type(L, d->et));
    LLVMBuildStore(L->b, LLVMConstNull(lower_type(L, d->et)), acc);
    LoopInfo lp;
    LLVMValueRef i = lower_loop_begin(L, &lp, d->k);
    LLVMValueRef x = lower_array_load(L, d->ta, byte_gep(L, pa, LLVMBuildMul(L->b, i, d->sa_k, "")));
    LLVMValueRef y = lower_array_load(L, d->tb, byte_gep(L, pb, LLVMBuildMul(L->b, i, d->sb_k, "")));
    LLVMValueRef p = lower_binop_scalar(L, BIN_MUL, d->et, lower_cast(L, x, d->ta, d->et),
                                        lower_cast(L, y, d->tb, d->et), NULL);
    LLVMValueRef cur = LLVMBuildLoad2(L->b, lower_type(L, d->et), acc, "");
    LLVMBuildStore(L->b, lower_binop_scalar(L, BIN_ADD, d->et, cur, p, NULL), acc);
    lower_loop_end(L, &lp);
    return LLVMBuildLoad2(L->b, lower_type(L, d->et), acc, "");
}

/* The element kind runtime/linalg.c takes: 0 float32, 1 float64, 2 complex64, 3 complex128;
 * -1 for the types BLAS and LAPACK lack. */
static int la_kind(const Type *t)
{
    switch (t->kind) {
    case TY_FLOAT32: return 0;
    case TY_FLOAT64: return 1;
    case TY_COMPLEX64: return 2;
    case TY_COMPLEX128: return 3;
    default: return -1;
    }
}

/* Products of at least this many multiplications go to BLAS: below it, the call and BLAS's own
 * set-up cost more than the loop (measured on 2-d float64 operands). */
#define DOT_BLAS_MIN 1000

/* Whether the product goes to BLAS: CPU code, one element type throughout that BLAS has, and a
 * result that is an array (a 1-d . 1-d product is one loop either way). */
static bool dot_blas_fits(Lower *L, const DotCtx *d, Type *result)
{
    return !L->prog->gpu && is_array(result) && d->ta == d->et && d->tb == d->et &&
           la_kind(d->et) >= 0;
}

/* if (m*n*k >= DOT_BLAS_MIN && pj_la_dot(...) == 0) goto done: BLAS fills out; the loops below
 * run otherwise. Returns the block after the loops. */
static LLVMBasicBlockRef dot_try_blas(Lower *L, DotCtx *d, LLVMValueRef po)
{
    LLVMBasicBlockRef call = lower_block(L, "dot.blas"), loops = lower_block(L, "dot.loops");
    LLVMBasicBlockRef done = lower_block(L, "dot.done");
    LLVMValueRef work = LLVMBuildMul(L->b, LLVMBuildMul(L->b, d->m, d->n, ""), d->k, "");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSGE, work, lower_i64(L, DOT_BLAS_MIN), ""),
                    call, loops);
    LLVMPositionBuilderAtEnd(L->b, call);
    LLVMValueRef args[11] = {LLVMConstInt(L->i32, (unsigned)la_kind(d->et), 0), d->m, d->n, d->k,
                             d->pa, d->sa_row, d->sa_k, d->pb, d->sb_k, d->sb_col, po};
    LLVMValueRef rc = lower_call_rt(L, "pj_la_dot", L->i32, args, 11);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, rc, LLVMConstInt(L->i32, 0, 0), ""), done,
                    loops);
    LLVMPositionBuilderAtEnd(L->b, loops);
    return done;
}

static LLVMValueRef lower_dot(Lower *L, Instr *in)
{
    DotCtx d = {.et = is_array(in->type) ? in->type->array.dtype : in->type};
    dot_operands(L, in, &d);
    if (!is_array(in->type))
        return dot_inner(L, &d, d.pa, d.pb);
    LLVMValueRef shape[2] = {in->args[0]->type->array.ndim == 2 ? d.m : d.n, d.n};
    LLVMValueRef out = alloc_array(L, in->type, shape, in), po = lower_array_data(L, out);
    LLVMBasicBlockRef done = dot_blas_fits(L, &d, in->type) ? dot_try_blas(L, &d, po) : NULL;
    LLVMValueRef size = lower_i64(L, ty_itemsize(d.et));
    LoopInfo li, lj;
    LLVMValueRef i = lower_loop_begin(L, &li, d.m);
    LLVMValueRef row = byte_gep(L, d.pa, LLVMBuildMul(L->b, i, d.sa_row, ""));
    LLVMValueRef j = lower_loop_begin(L, &lj, d.n);
    LLVMValueRef v = dot_inner(L, &d, row, byte_gep(L, d.pb, LLVMBuildMul(L->b, j, d.sb_col, "")));
    LLVMValueRef flat = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, i, d.n, ""), j, "");
    lower_array_store(L, d.et, v, byte_gep(L, po, LLVMBuildMul(L->b, flat, size, "")));
    lower_loop_end(L, &lj);
    lower_loop_end(L, &li);
    if (done) {
        LLVMBuildBr(L->b, done);
        LLVMPositionBuilderAtEnd(L->b, done);
    }
    return out;
}

/* A LAPACK row (builtins.def): its runtime function called with the first array's kind, then
 * each argument, arrays as their data. */
LLVMValueRef lower_bi_lapack(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef args[16];
    int kind = -1, n = 1;
    for (int i = 0; i < in->nargs && n < 16; i++) {
        Type *t = in->args[i]->type;
        LLVMValueRef v = lower_value(L, in->args[i]);
        if (t->kind == TY_ARRAY && kind < 0)
            kind = la_kind(t->array.dtype);
        args[n++] = t->kind == TY_ARRAY ? lower_array_data(L, v) : v;
    }
    args[0] = LLVMConstInt(L->i32, (unsigned)kind, 0);
    return lower_call_rt(L, ir_builtin_fn(bi), L->i64, args, n);
}

/* ---- np.random (runtime/random.c holds the generator) --------------------------------------- */

static LLVMValueRef random_array(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef shape[ABI_MAX_NDIM];
    int nd = in->type->array.ndim;
    if (bi == BI_NP_RANDOM_RANDOM)
        shape_of(L, in->args[0], nd, shape);
    else
        for (int k = 0; k < nd; k++)
            shape[k] = lower_value(L, in->args[k]);
    LLVMValueRef arr = alloc_array(L, in->type, shape, in);
    LLVMValueRef args[3] = {lower_array_data(L, arr), array_size(L, in->type, arr),
                            LLVMConstInt(L->i32, bi == BI_NP_RANDOM_RANDN, 0)};
    lower_call_rt(L, "pj_random_fill", LLVMVoidTypeInContext(L->ctx), args, 3);
    return arr;
}

/* The calling thread's legacy np.random state. Its address is fixed for the thread, so the call
 * is declared to read and write no memory of the program: LLVM then makes one call of a loop of
 * draws, before the loop, where a call per draw would look the thread-local up each time. */
static LLVMValueRef random_state(Lower *L)
{
    bool declared = LLVMGetNamedFunction(L->mod, "pj_random_state") != NULL;
    LLVMValueRef state = lower_call_rt(L, "pj_random_state", L->ptr, NULL, 0);
    if (declared)
        return state;
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, "pj_random_state");
    static const char *const attrs[] = {"nounwind", "willreturn", "nosync"};
    for (size_t k = 0; k < sizeof attrs / sizeof *attrs; k++)
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(
            L->ctx, LLVMGetEnumAttributeKindForName(attrs[k], strlen(attrs[k])), 0));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(
        L->ctx, LLVMGetEnumAttributeKindForName("memory", 6), 0));   /* memory(none) */
    return state;
}

/* One draw of the runtime's function fn (double fn(void *state)). */
static LLVMValueRef random_draw(Lower *L, const char *fn)
{
    LLVMValueRef state = random_state(L);
    return lower_call_rt(L, fn, L->f64, &state, 1);
}

/* The i-th operand of uniform/normal, or its default when absent. */
static LLVMValueRef random_param(Lower *L, Instr *in, int i, double dflt)
{
    return i < in->nargs ? lower_value(L, in->args[i]) : LLVMConstReal(L->f64, dflt);
}

/* NumPy's ValueError(message) when `v cmp bound` holds (a parameter out of its domain). */
static void random_check(Lower *L, LLVMRealPredicate cmp, LLVMValueRef v, double bound,
                         const char *message)
{
    lower_check(L, LLVMBuildFCmp(L->b, cmp, v, LLVMConstReal(L->f64, bound), ""), ABI_EXC_VALUE,
                message, NULL, 0);
}

static LLVMValueRef lower_random(Lower *L, Instr *in, Builtin bi)
{
    LLVMTypeRef v = LLVMVoidTypeInContext(L->ctx);
    if (is_array(in->type))
        return random_array(L, in, bi);
    switch (bi) {
    case BI_NP_RANDOM_SEED: {
        LLVMValueRef seed = lower_value(L, in->args[0]);
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntUGT, seed, lower_i64(L, 0xffffffffLL), ""),
                    ABI_EXC_VALUE, "Seed must be between 0 and 2**32 - 1", NULL, 0);
        lower_call_rt(L, "pj_random_seed", v, &seed, 1);
        return LLVMConstNull(L->none_ty);
    }
    case BI_NP_RANDOM_RANDINT: {
        LLVMValueRef lh[2] = {lower_i64(L, 0), lower_value(L, in->args[0])};
        if (in->nargs > 1)
            lh[0] = lh[1], lh[1] = lower_value(L, in->args[1]);
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntSGE, lh[0], lh[1], ""), ABI_EXC_VALUE,
                    in->nargs > 1 ? "low >= high" : "high <= 0", NULL, 0);
        LLVMValueRef sl[3] = {random_state(L), lh[0], lh[1]};
        return lower_call_rt(L, "pj_random_randint_at", L->i64, sl, 3);
    }
    case BI_NP_RANDOM_UNIFORM: {
        LLVMValueRef lo = random_param(L, in, 0, 0.0), hi = random_param(L, in, 1, 1.0);
        LLVMValueRef u = random_draw(L, "pj_random_f64_at");
        return LLVMBuildFAdd(L->b, lo, LLVMBuildFMul(L->b, LLVMBuildFSub(L->b, hi, lo, ""), u, ""), "");
    }
    case BI_NP_RANDOM_NORMAL: {
        LLVMValueRef loc = random_param(L, in, 0, 0.0), scale = random_param(L, in, 1, 1.0);
        lower_check(L, LLVMBuildFCmp(L->b, LLVMRealOLT, scale, LLVMConstReal(L->f64, 0), ""),
                    ABI_EXC_VALUE, "scale < 0", NULL, 0);
        LLVMValueRef z = random_draw(L, "pj_random_normal_at");
        return LLVMBuildFAdd(L->b, loc, LLVMBuildFMul(L->b, scale, z, ""), "");
    }
    case BI_NP_RANDOM_RANDN:
        return random_draw(L, "pj_random_normal_at");
    case BI_NP_RANDOM_STANDARD_EXPONENTIAL:
        return random_draw(L, "pj_random_exponential_at");
    case BI_NP_RANDOM_STANDARD_GAMMA: {
        LLVMValueRef shape = lower_value(L, in->args[0]);
        random_check(L, LLVMRealOLT, shape, 0.0, "shape < 0");
        return lower_call_rt(L, "pj_random_gamma", L->f64, &shape, 1);
    }
    case BI_NP_RANDOM_BETA: {
        LLVMValueRef ab[2] = {lower_value(L, in->args[0]), lower_value(L, in->args[1])};
        random_check(L, LLVMRealOLE, ab[0], 0.0, "a <= 0");
        random_check(L, LLVMRealOLE, ab[1], 0.0, "b <= 0");
        return lower_call_rt(L, "pj_random_beta", L->f64, ab, 2);
    }
    case BI_NP_RANDOM_POISSON: {
        LLVMValueRef lam = random_param(L, in, 0, 1.0);
        random_check(L, LLVMRealULT, lam, 0.0, "lam < 0 or lam is NaN");
        random_check(L, LLVMRealOGT, lam, 9.223372006484771e18, "lam value too large");
        return lower_call_rt(L, "pj_random_poisson", L->i64, &lam, 1);
    }
    case BI_NP_RANDOM_BINOMIAL: {
        LLVMValueRef np[2] = {lower_value(L, in->args[0]), lower_value(L, in->args[1])};
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntSLT, np[0], lower_i64(L, 0), ""), ABI_EXC_VALUE,
                    "n < 0", NULL, 0);
        LLVMValueRef outside = LLVMBuildOr(L->b, LLVMBuildFCmp(L->b, LLVMRealULT, np[1], LLVMConstReal(L->f64, 0), ""),
                                           LLVMBuildFCmp(L->b, LLVMRealOGT, np[1], LLVMConstReal(L->f64, 1), ""), "");
        lower_check(L, outside, ABI_EXC_VALUE, "p < 0, p > 1 or p is NaN", NULL, 0);
        return lower_call_rt(L, "pj_random_binomial", L->i64, np, 2);
    }
    default:
        return random_draw(L, "pj_random_f64_at");
    }
}

/* ---- the handlers of builtins.def's lower column ---------------------------------------- */

/* NumPy's functions of numbers (and abs): elementwise when the result is an array. */
LLVMValueRef lower_bi_elementwise(Lower *L, Instr *in, Builtin bi)
{
    return is_array(in->type) ? ew_fused(L, in) : lower_bi_scalar(L, in, bi);
}

/* min(a) and max(a) of one array reduce it; of scalars, they compare them. */
LLVMValueRef lower_bi_min_max(Lower *L, Instr *in, Builtin bi)
{
    if (in->nargs == 1 && is_array(in->args[0]->type))
        return reduce(L, in, bi);
    if (in->nargs == 1 && in->args[0]->type->kind == TY_LIST)
        return lower_list_extreme(L, in->args[0]->type->list.item, lower_value(L, in->args[0]), bi == BI_MAX);
    return lower_bi_scalar(L, in, bi);
}

LLVMValueRef lower_bi_reduce(Lower *L, Instr *in, Builtin bi)
{
    return reduce(L, in, bi == BI_NP_SUM ? BI_ARRAY_SUM : bi);
}

LLVMValueRef lower_bi_creation(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef shape[ABI_MAX_NDIM];
    Type *dt = in->type->array.dtype;
    shape_of(L, in->args[0], in->type->array.ndim, shape);
    if (bi == BI_NP_ZEROS)
        return zero_new(L, in, shape);
    if (bi == BI_NP_EMPTY)
        return fill_new(L, in, shape, NULL);
    if (bi == BI_NP_ONES)
        return fill_new(L, in, shape, lower_cast(L, lower_i64(L, 1), ty_scalar(TY_INT64), dt));
    return fill_new(L, in, shape, lower_cast(L, lower_value(L, in->args[1]), in->args[1]->type, dt));
}

LLVMValueRef lower_bi_like(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef shape[ABI_MAX_NDIM];
    Instr *a0 = in->args[0];
    get_shape(L, a0->type, lower_value(L, a0), shape);
    if (bi == BI_NP_ZEROS_LIKE)
        return zero_new(L, in, shape);
    return fill_new(L, in, shape, bi == BI_NP_EMPTY_LIKE ? NULL
                    : lower_cast(L, lower_i64(L, 1), ty_scalar(TY_INT64), in->type->array.dtype));
}

LLVMValueRef lower_bi_arange(Lower *L, Instr *in, Builtin bi) { (void)bi; return lower_arange(L, in); }
LLVMValueRef lower_bi_dot(Lower *L, Instr *in, Builtin bi) { (void)bi; return lower_dot(L, in); }
LLVMValueRef lower_bi_where(Lower *L, Instr *in, Builtin bi) { (void)bi; return ew_fused(L, in); }
LLVMValueRef lower_bi_cumsum(Lower *L, Instr *in, Builtin bi) { (void)bi; return lower_cumsum(L, in); }
LLVMValueRef lower_bi_linspace(Lower *L, Instr *in, Builtin bi) { (void)bi; return lower_linspace(L, in); }
LLVMValueRef lower_bi_moment(Lower *L, Instr *in, Builtin bi) { return lower_moment(L, in, bi == BI_NP_STD); }
LLVMValueRef lower_bi_sort(Lower *L, Instr *in, Builtin bi)
{
    return bi == BI_NP_ARGSORT || bi == BI_NP_ARGPARTITION ? sort_indices(L, in, bi) : sort_values(L, in, bi);
}
LLVMValueRef lower_bi_copy(Lower *L, Instr *in, Builtin bi) { (void)bi; return copy_new(L, in, in->args[0]); }
LLVMValueRef lower_bi_random(Lower *L, Instr *in, Builtin bi) { return lower_random(L, in, bi); }

LLVMValueRef lower_bi_fill(Lower *L, Instr *in, Builtin bi)
{
    (void)bi;
    Instr *a0 = in->args[0];
    assign_array(L, a0->type, lower_value(L, a0), in->args[1]->type, lower_value(L, in->args[1]));
    return LLVMConstNull(L->none_ty);
}

LLVMValueRef lower_bi_reshape(Lower *L, Instr *in, Builtin bi)
{
    (void)bi;
    LLVMValueRef shape[ABI_MAX_NDIM];
    int nd = in->type->array.ndim;
    if (in->nargs == 2)
        shape_of(L, in->args[1], nd, shape);
    else
        for (int k = 0; k < nd && k + 1 < in->nargs; k++)
            shape[k] = lower_cast(L, lower_value(L, in->args[k + 1]), in->args[k + 1]->type, ty_scalar(TY_INT64));
    return reshape(L, in, in->args[0], shape, nd);
}

LLVMValueRef lower_bi_as_strided(Lower *L, Instr *in, Builtin bi)
{
    (void)bi;
    int nd = in->type->array.ndim;
    LLVMValueRef shape[ABI_MAX_NDIM], strides[ABI_MAX_NDIM], x = lower_value(L, in->args[0]);
    shape_of(L, in->args[1], nd, shape);
    shape_of(L, in->args[2], nd, strides);
    LLVMValueRef v = array_view(L, in->type, x, lower_array_data(L, x), shape, strides);
    lower_incref(L, LLVMBuildExtractValue(L->b, v, 0, ""));
    lower_own(L, in, v);
    return v;
}

LLVMValueRef lower_bi_ravel(Lower *L, Instr *in, Builtin bi)
{
    (void)bi;
    LLVMValueRef shape[1] = {lower_i64(L, -1)};
    return reshape(L, in, in->args[0], shape, 1);
}
