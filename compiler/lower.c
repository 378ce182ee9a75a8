/* lower.c: typed IR -> LLVM IR, one module per Program, for any Target.
 *
 * Each TypedFunc becomes its native entry (abi.h: int32 f(RetT *ret, ExcInfo *exc, args...)),
 * internal except the Program's entry, which also gets the uniform wrapper f__wrap. Each IR block
 * becomes one or more LLVM blocks (FOR_ITER and run-time checks split them), so the LLVM block
 * each IR edge leaves from is recorded and phis are filled once every block is lowered.
 * Errors branch to one exit per function that releases the arrays the function owns (lower.h)
 * and returns ABI_STATUS_ERROR with the ExcInfo filled. Scalar semantics are Python's.
 * Arrays are in lower_array.c, builtins and math in lower_math.c. */
#include "compiler/lower.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>
#include <llvm/Config/llvm-config.h>

typedef struct BlockInfo {
    int index;                   /* position in the function's block list */
    LLVMBasicBlockRef start;
    LLVMBasicBlockRef exit[2];   /* the LLVM block the edge to succ[i] leaves from */
} BlockInfo;

/* Iteration state: see GETITER below. */
typedef enum IterKind {
    IT_RANGE, IT_ARRAY, IT_TUPLE, IT_LIST, IT_STR, IT_DICT, IT_ENUMERATE, IT_ZIP, IT_NDITER
} IterKind;
struct IterInfo {
    IterKind kind;
    LLVMValueRef state;     /* range: range_state_type; others: i64 index */
    int unit_step;          /* range: its step when a constant 1 or -1, else 0 */
    LLVMValueRef used0;     /* dict or set: its length when the loop began */
    LLVMValueRef obj;       /* the array or tuple iterated */
    Type *over;             /* its type */
    int nsub;
    IterInfo **sub;         /* enumerate: 1, zip: n */
};

/* ---- small helpers -------------------------------------------------------------------------- */

int lower_unsupported(Lower *L, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    Instr *in = L->cur;
    L->failed = true;
    return diag_error(L->diag, DIAG_UNSUPPORTED, L->ir ? L->ir->qualname : NULL,
                      L->ir ? L->ir->filename : NULL, in ? in->line : 0, in ? in->col : -1,
                      in ? in->end_col : -1, "%s", msg);
}

LLVMValueRef lower_i64(Lower *L, int64_t v)
{
    return LLVMConstInt(L->i64, (unsigned long long)v, 1);
}

LLVMBasicBlockRef lower_block(Lower *L, const char *name)
{
    return LLVMAppendBasicBlockInContext(L->ctx, L->fn, name);
}

LLVMValueRef lower_alloca(Lower *L, LLVMTypeRef ty)
{
    return LLVMBuildAlloca(L->ab, ty, "");
}

LLVMValueRef lower_call_rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef *args,
                           int nargs)
{
    return target_call_extern(L->mod, L->b, name, ret, args, nargs);
}

LLVMValueRef lower_value(Lower *L, Instr *in)
{
    if (in->id < 0 || in->id >= L->nids)
        return NULL;
    return L->vals[in->id];
}

LLVMValueRef lower_const_f(Lower *L, Type *ft, double v)
{
    return LLVMConstReal(lower_type(L, ft), v);
}

/* libdevice's approximate float32 functions, for fastmath kernels (MUFU instructions). */
static const char *gpu_fast_name(MathFn fn)
{
    switch (fn) {
    case MF_SIN: return "__nv_fast_sinf";
    case MF_COS: return "__nv_fast_cosf";
    case MF_TAN: return "__nv_fast_tanf";
    case MF_EXP: return "__nv_fast_expf";
    case MF_LOG: return "__nv_fast_logf";
    case MF_LOG2: return "__nv_fast_log2f";
    case MF_LOG10: return "__nv_fast_log10f";
    case MF_POW: return "__nv_fast_powf";
    default: return NULL;
    }
}

/* float16 on the CPU is computed in float32 and rounded back, as NumPy does: x86 has no half
 * arithmetic before AVX-512 FP16, and LLVM 16's x86 code generator crashes legalising
 * vectorised half operations. The GPU has half + - * / and comparisons; //, % and ** of halves
 * are computed in float32 there too, as NumPy computes them (one rounding, not one a step). */
static bool half_in_float32(Lower *L, Type *t, BinOp op)
{
    if (t->kind != TY_FLOAT16)
        return false;
    return !L->t->is_gpu || op == BIN_FLOORDIV || op == BIN_MOD || op == BIN_POW;
}

/* Math functions of float16 are computed in float32 on both targets (libdevice has no half
 * functions; cuda_fp16.h computes them so too), the result rounded back once. */
LLVMValueRef lower_math(Lower *L, MathFn fn, Type *ft, LLVMValueRef a, LLVMValueRef b)
{
    if (ft->kind == TY_FLOAT16) {
        Type *f32 = ty_scalar(TY_FLOAT32);
        LLVMValueRef r = lower_math(L, fn, f32, lower_cast(L, a, ft, f32),
                                    b ? lower_cast(L, b, ft, f32) : NULL);
        return LLVMTypeOf(r) == L->f32 ? lower_cast(L, r, f32, ft) : r;
    }
    LLVMValueRef args[2] = {a, b};
    if (L->t->is_gpu && ft->kind == TY_FLOAT32 && L->opts && L->opts->fastmath &&
        gpu_fast_name(fn))
        return target_call_extern(L->mod, L->b, gpu_fast_name(fn), L->f32, args, b ? 2 : 1);
    return L->t->emit_math(L->mod, L->b, fn, lower_type(L, ft), args, b ? 2 : 1);
}

/* ---- types ---------------------------------------------------------------------------------- */

static LLVMTypeRef scalar_type(Lower *L, Type *t)
{
    switch (t->kind) {
    case TY_BOOL: return L->i1;
    case TY_INT8: case TY_UINT8: return L->i8;
    case TY_INT16: case TY_UINT16: return LLVMInt16TypeInContext(L->ctx);
    case TY_INT32: case TY_UINT32: return L->i32;
    case TY_INT64: case TY_UINT64: return L->i64;
    case TY_FLOAT16: return LLVMHalfTypeInContext(L->ctx);
    case TY_FLOAT32: return L->f32;
    case TY_FLOAT64: return L->f64;
    case TY_COMPLEX64: {
        LLVMTypeRef f[2] = {L->f32, L->f32};
        return LLVMStructTypeInContext(L->ctx, f, 2, 0);
    }
    case TY_COMPLEX128: {
        LLVMTypeRef f[2] = {L->f64, L->f64};
        return LLVMStructTypeInContext(L->ctx, f, 2, 0);
    }
    default: return NULL;
    }
}

LLVMTypeRef lower_type(Lower *L, Type *t)
{
    if (!t)
        return NULL;
    if (ty_is_scalar(t))
        return scalar_type(L, t);
    switch (t->kind) {
    case TY_NONE: return L->none_ty;
    case TY_ARRAY: {
        LLVMTypeRef dims = LLVMArrayType(L->i64, (unsigned)t->array.ndim);
        LLVMTypeRef f[5] = {L->ptr, L->ptr, L->ptr, dims, dims};
        return LLVMStructTypeInContext(L->ctx, f, 5, 0);
    }
    case TY_LIST:
    case TY_DICT:
    case TY_SET:
    case TY_STR:
    case TY_CLASS:
    case TY_RNG: {
        LLVMTypeRef f[1] = {L->ptr};   /* its MemInfo */
        return LLVMStructTypeInContext(L->ctx, f, 1, 0);
    }
    case TY_TUPLE: {
        LLVMTypeRef f[t->tuple.n + 1];
        for (int i = 0; i < t->tuple.n; i++) {
            f[i] = lower_type(L, t->tuple.items[i]);
            if (!f[i])
                f[i] = L->none_ty;   /* a compile-time item takes no room */
        }
        return LLVMStructTypeInContext(L->ctx, f, (unsigned)t->tuple.n, 0);
    }
    case TY_RANGE: {
        LLVMTypeRef f[3] = {L->i64, L->i64, L->i64};
        return LLVMStructTypeInContext(L->ctx, f, 3, 0);
    }
    case TY_SLICE: {
        LLVMTypeRef f[5] = {L->i64, L->i64, L->i64, L->i1, L->i1};
        return LLVMStructTypeInContext(L->ctx, f, 5, 0);
    }
    case TY_NDITER: return lower_type(L, t->nditer.src);   /* a borrowed view of its source */
    case TY_ITER:
    case TY_CPOINTER:
    case TY_FUNCPTR: return L->ptr;
    case TY_DATETIME:
    case TY_TIMEDELTA: return L->i64;   /* NaT: INT64_MIN */
    case TY_CHARSEQ:   /* an element's code points, as copies move them */
        return LLVMArrayType(L->i32, (unsigned)t->charseq.n);
    case TY_RECORD: {
        LLVMTypeRef f[2] = {L->ptr, L->ptr};   /* its array's MemInfo, the address of its bytes */
        return LLVMStructTypeInContext(L->ctx, f, 2, 0);
    }
    case TY_CAUGHT: return L->ptr;   /* its saved ExcInfo (lower_exc.c) */
    case TY_OPTIONAL: {
        LLVMTypeRef f[2] = {L->i1, lower_type(L, t->optional.value)};
        return LLVMStructTypeInContext(L->ctx, f, 2, 0);
    }
    default: return NULL;   /* compile-time only */
    }
}

/* bool is i8 in memory; everything else is stored as its register type (an i1 inside a struct
 * takes a byte, which is the C layout abi.h describes). */
LLVMValueRef lower_load_mem(Lower *L, Type *t, LLVMValueRef ptr)
{
    if (t->kind == TY_BOOL) {
        LLVMValueRef v = LLVMBuildLoad2(L->b, L->i8, ptr, "");
        return LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstInt(L->i8, 0, 0), "");
    }
    return LLVMBuildLoad2(L->b, lower_type(L, t), ptr, "");
}

void lower_store_mem(Lower *L, Type *t, LLVMValueRef v, LLVMValueRef ptr)
{
    if (t->kind == TY_BOOL)
        v = LLVMBuildZExt(L->b, v, L->i8, "");
    LLVMBuildStore(L->b, v, ptr);
}

/* ---- exceptions and reference counts -------------------------------------------------------- */

/* The AbiWhere of the statement being lowered: a constant { file, function, line }. */
static LLVMValueRef where_const(Lower *L)
{
    int line = L->cur ? L->cur->line : L->ir->firstline;
    LLVMValueRef f[3] = {LLVMBuildGlobalStringPtr(L->b, L->ir->filename ? L->ir->filename : "?", "pj.file"),
                         LLVMBuildGlobalStringPtr(L->b, L->ir->qualname ? L->ir->qualname : L->ir->name, "pj.func"),
                         LLVMConstInt(L->i32, (unsigned)line, 0)};
    LLVMValueRef init = LLVMConstStructInContext(L->ctx, f, 3, 0);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMTypeOf(init), "pj.where");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    return g;
}

/* The address of an object of this process (an exception class, a frozen array's data) as CPU
 * code uses it: the symbol pj.ref.<n>, an external of unknown size which the JIT binds to
 * prog->refs[n]'s address when it loads the code (jit.c), so that the same object code serves
 * another process, with that process's addresses (the on-disk cache, runtime/cache.c). A
 * kernel's addresses are constants; its exception classes are listed in prog->refs all the
 * same, so that the runtime knows the classes a fault record may name (kernel_errors.c). */
static int ref_index(Lower *L, RefKind kind, void *handle, void *addr)
{
    PtrVec *refs = &L->prog->refs;
    int n = 0;
    while (n < refs->len && !(((CodeRef *)refs->items[n])->handle == handle &&
                              ((CodeRef *)refs->items[n])->addr == addr))
        n++;
    if (n == refs->len) {
        CodeRef *r = arena_alloc(L->prog->arena, sizeof *r);
        *r = (CodeRef){kind, handle, addr};
        vec_push(L->prog->arena, refs, r);
    }
    return n;
}

LLVMValueRef lower_ref(Lower *L, RefKind kind, void *handle, void *addr)
{
    if (L->t->is_gpu) {
        if (kind == REF_EXCCLASS)
            ref_index(L, kind, handle, addr);
        return LLVMConstIntToPtr(LLVMConstInt(L->i64, (uintptr_t)addr, 0), L->ptr);
    }
    int n = ref_index(L, kind, handle, addr);
    char name[32];
    snprintf(name, sizeof name, "pj.ref.%d", n);
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, name);
    return g ? g : LLVMAddGlobal(L->mod, LLVMArrayType(L->i8, 0), name);
}

/* The error record is written only on the way out with an exception. Read from the frame there
 * (a volatile copy, which LLVM keeps in memory), its pointer holds no register through the
 * function's loops: a checked insertion sort otherwise has its array's pointer in r13, whose
 * stores must carry a displacement, and runs 1.3x slower on Zen 3 (bench/store_addressing.py).
 * A loop body outlined for threads has its own record (lower_parallel.c). */
static LLVMValueRef exc_record(Lower *L)
{
    LLVMValueRef slot = L->exc_slot;
    if (!slot || LLVMGetBasicBlockParent(LLVMGetInstructionParent(slot)) != L->fn)
        return L->exc_ptr;
    LLVMValueRef e = LLVMBuildLoad2(L->b, L->ptr, slot, "");
    LLVMSetVolatile(e, 1);
    return e;
}

static void save_exc_record(Lower *L)
{
    L->exc_slot = NULL;
    /* a simulated kernel's record is its thread's AbiSimThread, which the block function's loop
     * keeps in registers once no volatile store takes its address */
    if (L->t->is_gpu || L->prog->gpu_sim)
        return;
    /* the store is plain: a volatile one would order every memory access around it, and once
     * the function is inlined into a caller's loop it would keep that loop from holding a value
     * just stored in a register (needleman_wunsch's dp[i, j - 1]: 2.3x Numba's time); the
     * volatile loads alone keep the pointer in the frame */
    L->exc_slot = lower_alloca(L, L->ptr);
    LLVMBuildStore(L->ab, L->exc_ptr, L->exc_slot);
}

/* A constant C string for a message the host reads back from the GPU: zero-padded to a
 * multiple of 8 bytes and 8-aligned, since the host copies it 8 bytes at a time
 * (runtime/kernel_errors.c: read_string) and a copy past the end of the module's memory fails. */
LLVMValueRef lower_device_string(Lower *L, const char *s, const char *name)
{
    size_t n = strlen(s) + 1, padded = (n + 7) & ~(size_t)7;
    char *buf = calloc(padded, 1);
    if (!buf)   /* unpadded: the message is still right, only its last read may fail */
        return LLVMBuildGlobalStringPtr(L->b, s, name);
    memcpy(buf, s, n);
    LLVMValueRef init = LLVMConstStringInContext(L->ctx, buf, (unsigned)padded, 1);
    free(buf);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    LLVMSetAlignment(g, 8);
    return g;
}

static void fill_exc(Lower *L, AbiExcKind kind, void *cls, const char *msg, LLVMValueRef *args,
                     int nargs)
{
    LLVMValueRef e = exc_record(L);
    if (!L->prog->gpu)   /* a kernel reports its own way (lower_gpu.c) */
        LLVMBuildStore(L->b, where_const(L), LLVMBuildStructGEP2(L->b, L->exc_ty, e, 6, ""));
    LLVMBuildStore(L->b, LLVMConstInt(L->i32, (unsigned)kind, 0),
                   LLVMBuildStructGEP2(L->b, L->exc_ty, e, 0, ""));
    LLVMBuildStore(L->b, LLVMConstInt(L->i32, (unsigned)nargs, 0),
                   LLVMBuildStructGEP2(L->b, L->exc_ty, e, 1, ""));
    LLVMValueRef clsv = cls ? lower_ref(L, REF_EXCCLASS, cls, cls) : LLVMConstNull(L->ptr);
    LLVMBuildStore(L->b, clsv, LLVMBuildStructGEP2(L->b, L->exc_ty, e, 2, ""));
    LLVMValueRef msgv = !msg ? LLVMConstNull(L->ptr)
                        : L->prog->gpu ? lower_device_string(L, msg, "pj.msg")
                        : LLVMBuildGlobalStringPtr(L->b, msg, "pj.msg");
    LLVMBuildStore(L->b, msgv, LLVMBuildStructGEP2(L->b, L->exc_ty, e, 3, ""));
    LLVMValueRef argsp = LLVMBuildStructGEP2(L->b, L->exc_ty, e, 4, "");
    for (int i = 0; i < nargs && i < 4; i++) {
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, i)};
        LLVMValueRef p = LLVMBuildInBoundsGEP2(L->b, LLVMArrayType(L->i64, 4), argsp, idx, 2, "");
        LLVMBuildStore(L->b, args[i], p);
    }
    LLVMBuildBr(L->b, L->err_bb);
}

/* Marks a conditional branch as almost never taken toward its first successor. */
static void mark_unlikely(Lower *L, LLVMValueRef br)
{
    LLVMMetadataRef md[3] = {
        LLVMMDStringInContext2(L->ctx, "branch_weights", 14),
        LLVMValueAsMetadata(LLVMConstInt(L->i32, 1, 0)),
        LLVMValueAsMetadata(LLVMConstInt(L->i32, 1048575, 0)),
    };
    LLVMValueRef node = LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, md, 3));
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "prof", 4), node);
}

void lower_check(Lower *L, LLVMValueRef cond, AbiExcKind kind, const char *msg, LLVMValueRef *args,
                 int nargs)
{
    if (LLVMIsAConstantInt(cond) && LLVMConstIntGetZExtValue(cond) == 0)
        return;
    LLVMBasicBlockRef fail = lower_block(L, "raise"), cont = lower_block(L, "ok");
    mark_unlikely(L, LLVMBuildCondBr(L->b, cond, fail, cont));
    LLVMPositionBuilderAtEnd(L->b, fail);
    fill_exc(L, kind, NULL, msg, args, nargs);
    LLVMPositionBuilderAtEnd(L->b, cont);
}

/* Branches to a new, rarely taken block when cond is true and leaves the builder there; the
 * returned block is where the code continues when cond is false. */
LLVMBasicBlockRef lower_unlikely(Lower *L, LLVMValueRef cond)
{
    LLVMBasicBlockRef rare = lower_block(L, "rare"), cont = lower_block(L, "ok");
    mark_unlikely(L, LLVMBuildCondBr(L->b, cond, rare, cont));
    LLVMPositionBuilderAtEnd(L->b, rare);
    return cont;
}

void lower_raise_exc(Lower *L, AbiExcKind kind, const char *msg)
{
    fill_exc(L, kind, NULL, msg, NULL, 0);
}

/* Calls fn(meminfo) only when meminfo is not NULL, so arrays from NumPy cost a compare. */
static void call_if_nonnull(Lower *L, const char *fn, LLVMValueRef mi)
{
    if (LLVMIsNull(mi))
        return;
    LLVMBasicBlockRef call = lower_block(L, "rc"), cont = lower_block(L, "rc.done");
    LLVMBuildCondBr(L->b, LLVMBuildIsNotNull(L->b, mi, ""), call, cont);
    LLVMPositionBuilderAtEnd(L->b, call);
    lower_call_rt(L, fn, LLVMVoidTypeInContext(L->ctx), &mi, 1);
    LLVMBuildBr(L->b, cont);
    LLVMPositionBuilderAtEnd(L->b, cont);
}

void lower_incref(Lower *L, LLVMValueRef meminfo)
{
    call_if_nonnull(L, "pj_nrt_incref", meminfo);
}

static LLVMValueRef new_slot(Lower *L)
{
    LLVMValueRef slot = lower_alloca(L, L->ptr);
    LLVMBuildStore(L->ab, LLVMConstNull(L->ptr), slot);
    vec_push(L->prog->arena, &L->owned, slot);
    return slot;
}

/* slot takes array's reference, releasing the one it held. */
static void own_in_slot(Lower *L, LLVMValueRef slot, LLVMValueRef array)
{
    LLVMValueRef old = LLVMBuildLoad2(L->b, L->ptr, slot, "");
    LLVMBuildStore(L->b, LLVMBuildExtractValue(L->b, array, 0, ""), slot);
    call_if_nonnull(L, "pj_nrt_decref", old);
}

/* The references inside a tuple (or an optional's value), each taken by a slot of its own:
 * the arrays, lists and strings of the items, nested tuples item by item. */
static void own_parts(Lower *L, Type *t, LLVMValueRef v)
{
    if (ty_holds_meminfo(t))
        own_in_slot(L, new_slot(L), v);
    else if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            own_parts(L, t->tuple.items[i], LLVMBuildExtractValue(L->b, v, (unsigned)i, ""));
    else if (t->kind == TY_OPTIONAL)
        own_parts(L, t->optional.value, LLVMBuildExtractValue(L->b, v, 1, ""));
}

void lower_own_value(Lower *L, Instr *in, Type *t, LLVMValueRef v)
{
    if (ty_holds_meminfo(t))
        lower_own(L, in, v);
    else
        own_parts(L, t, v);
}

/* A callee's result comes with references of its own, which the call's slots take. */
static void own_result(Lower *L, Instr *in, Type *rt, LLVMValueRef r)
{
    lower_own_value(L, in, rt, r);
}

void lower_own(Lower *L, Instr *in, LLVMValueRef array)
{
    LLVMValueRef slot = L->slots[in->id];
    if (!slot)
        slot = L->slots[in->id] = new_slot(L);
    own_in_slot(L, slot, array);
}

bool lower_is_counted(const Type *t)
{
    if (t->kind == TY_OPTIONAL)
        return lower_is_counted(t->optional.value);
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            if (lower_is_counted(t->tuple.items[i]))
                return true;
    return ty_holds_meminfo(t);
}

void lower_incref_value(Lower *L, Type *t, LLVMValueRef v)
{
    if (ty_holds_meminfo(t))
        lower_incref(L, LLVMBuildExtractValue(L->b, v, 0, ""));
    else if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            lower_incref_value(L, t->tuple.items[i], LLVMBuildExtractValue(L->b, v, (unsigned)i, ""));
    else if (t->kind == TY_OPTIONAL)   /* an absent value's MemInfos are NULL */
        lower_incref_value(L, t->optional.value, LLVMBuildExtractValue(L->b, v, 1, ""));
}

void lower_decref_value(Lower *L, Type *t, LLVMValueRef v)
{
    if (ty_holds_meminfo(t))
        call_if_nonnull(L, "pj_nrt_decref", LLVMBuildExtractValue(L->b, v, 0, ""));
    else if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            lower_decref_value(L, t->tuple.items[i], LLVMBuildExtractValue(L->b, v, (unsigned)i, ""));
    else if (t->kind == TY_OPTIONAL)
        lower_decref_value(L, t->optional.value, LLVMBuildExtractValue(L->b, v, 1, ""));
}

/* ---- casts and truth ------------------------------------------------------------------------ */

static LLVMValueRef complex_make(Lower *L, Type *ct, LLVMValueRef re, LLVMValueRef im)
{
    LLVMValueRef z = LLVMGetUndef(lower_type(L, ct));
    z = LLVMBuildInsertValue(L->b, z, re, 0, "");
    return LLVMBuildInsertValue(L->b, z, im, 1, "");
}

static Type *complex_part(Type *ct)
{
    return ty_scalar(ct->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
}

static LLVMValueRef cast_to_float(Lower *L, LLVMValueRef v, Type *from, LLVMTypeRef ft)
{
    if (from->kind == TY_BOOL)
        return LLVMBuildUIToFP(L->b, v, ft, "");
    if (ty_is_int(from))
        return ty_is_signed(from) ? LLVMBuildSIToFP(L->b, v, ft, "") : LLVMBuildUIToFP(L->b, v, ft, "");
    return LLVMBuildFPCast(L->b, v, ft, "");
}

static LLVMValueRef cast_to_int(Lower *L, LLVMValueRef v, Type *from, Type *to)
{
    LLVMTypeRef it = lower_type(L, to);
    if (from->kind == TY_BOOL)
        return LLVMBuildZExt(L->b, v, it, "");
    if (ty_is_int(from))
        return LLVMBuildIntCast2(L->b, v, it, ty_is_signed(from), "");
    /* float -> int truncates toward zero; the saturating form has no undefined results */
    LLVMTypeRef ov[2] = {it, LLVMTypeOf(v)};
    return target_call_intrinsic(L->mod, L->b, ty_is_signed(to) ? "llvm.fptosi.sat" : "llvm.fptoui.sat",
                                 ov, 2, &v, 1);
}

/* x86-64's truncating conversion to a signed integer of `bits` bits (cvttsd2si): NaN and values
 * outside the range give the minimum, where LLVM's plain fptosi would be undefined. */
static LLVMValueRef convert_truncating(Lower *L, LLVMValueRef x, Type *ft, unsigned bits)
{
    LLVMBuilderRef B = L->b;
    double lim = ldexp(1.0, (int)bits - 1);
    LLVMValueRef fits = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOGE, x, lower_const_f(L, ft, -lim), ""),
                                     LLVMBuildFCmp(B, LLVMRealOLT, x, lower_const_f(L, ft, lim), ""), "");
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
    LLVMValueRef r = LLVMBuildFPToSI(B, LLVMBuildSelect(B, fits, x, lower_const_f(L, ft, 0.0), ""), it, "");
    return LLVMBuildSelect(B, fits, r, LLVMConstInt(it, 1ULL << (bits - 1), 0), "");
}

/* Float -> int as NumPy's casts give it on x86-64, where they are C casts: int64 and int32
 * convert at their width, narrower types through int32, uint32 through int64 (NumPy's loop over
 * one item at a time; its SIMD loop differs out of range), and uint64 subtracts 2**63 from
 * values past it first. So NaN and out-of-range values give what NumPy gives, not a saturated
 * value. Other casts are lower_cast's. */
LLVMValueRef lower_cast_numpy(Lower *L, LLVMValueRef v, Type *from, Type *to)
{
    from = ty_strong(from);
    to = ty_strong(to);
    if (!ty_is_float(from) || !ty_is_int(to))
        return lower_cast(L, v, from, to);
    LLVMBuilderRef B = L->b;
    LLVMTypeRef it = lower_type(L, to);
    switch (to->kind) {
    case TY_INT64: return convert_truncating(L, v, from, 64);
    case TY_INT32: return convert_truncating(L, v, from, 32);
    case TY_UINT32: return LLVMBuildTrunc(B, convert_truncating(L, v, from, 64), it, "");
    case TY_UINT64: {
        LLVMValueRef lim = lower_const_f(L, from, 9223372036854775808.0);
        LLVMValueRef high = LLVMBuildXor(B, convert_truncating(L, LLVMBuildFSub(B, v, lim, ""), from, 64),
                                         LLVMConstInt(L->i64, 1ULL << 63, 0), "");
        return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGE, v, lim, ""), high,
                               convert_truncating(L, v, from, 64), "");
    }
    default: return LLVMBuildTrunc(B, convert_truncating(L, v, from, 32), it, "");
    }
}

LLVMValueRef lower_cast(Lower *L, LLVMValueRef v, Type *from, Type *to)
{
    from = ty_strong(from);
    to = ty_strong(to);
    if (from == to || !ty_is_scalar(to) || !ty_is_scalar(from))
        return v;
    if (ty_is_complex(from)) {
        if (ty_is_complex(to)) {
            LLVMTypeRef ft = lower_type(L, complex_part(to));
            return complex_make(L, to, LLVMBuildFPCast(L->b, LLVMBuildExtractValue(L->b, v, 0, ""), ft, ""),
                                LLVMBuildFPCast(L->b, LLVMBuildExtractValue(L->b, v, 1, ""), ft, ""));
        }
        if (to->kind == TY_BOOL)
            return lower_truth(L, v, from);
        return lower_cast(L, LLVMBuildExtractValue(L->b, v, 0, ""), complex_part(from), to);
    }
    if (ty_is_complex(to)) {
        Type *pt = complex_part(to);
        LLVMValueRef re = lower_cast(L, v, from, pt);
        return complex_make(L, to, re, LLVMConstNull(lower_type(L, pt)));
    }
    if (to->kind == TY_BOOL)
        return lower_truth(L, v, from);
    if (ty_is_float(to))
        return cast_to_float(L, v, from, lower_type(L, to));
    return cast_to_int(L, v, from, to);
}

LLVMValueRef lower_truth(Lower *L, LLVMValueRef v, Type *t)
{
    t = ty_strong(t);
    if (t->kind == TY_BOOL)
        return v;
    if (ty_is_int(t))
        return LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    if (ty_is_float(t))
        return LLVMBuildFCmp(L->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    if (ty_is_complex(t)) {
        Type *pt = complex_part(t);
        return LLVMBuildOr(L->b, lower_truth(L, LLVMBuildExtractValue(L->b, v, 0, ""), pt),
                           lower_truth(L, LLVMBuildExtractValue(L->b, v, 1, ""), pt), "");
    }
    if (t->kind == TY_TUPLE)
        return LLVMConstInt(L->i1, t->tuple.n > 0, 0);
    if (t->kind == TY_OPTIONAL)
        return lower_optional_truth(L, v, t);
    if (t->kind == TY_LIST)
        return LLVMBuildICmp(L->b, LLVMIntNE, lower_list_len(L, v), lower_i64(L, 0), "");
    if (t->kind == TY_STR)
        return LLVMBuildICmp(L->b, LLVMIntNE, lower_str_len(L, v), lower_i64(L, 0), "");
    if (t->kind == TY_DICT || t->kind == TY_SET)
        return LLVMBuildICmp(L->b, LLVMIntNE, lower_dict_len(L, v), lower_i64(L, 0), "");
    if (t->kind == TY_RANGE) {
        LLVMValueRef s = LLVMBuildExtractValue(L->b, v, 0, ""), e = LLVMBuildExtractValue(L->b, v, 1, "");
        LLVMValueRef st = LLVMBuildExtractValue(L->b, v, 2, "");
        LLVMValueRef up = LLVMBuildICmp(L->b, LLVMIntSLT, s, e, ""), dn = LLVMBuildICmp(L->b, LLVMIntSGT, s, e, "");
        return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, st, lower_i64(L, 0), ""), up, dn, "");
    }
    if (t->kind == TY_ARRAY) {
        /* NumPy: truth of a one-element array is its element; otherwise an error */
        LLVMValueRef n = lower_i64(L, 1);
        for (int k = 0; k < t->array.ndim; k++)
            n = LLVMBuildMul(L->b, n, lower_array_dim(L, v, k), "");
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, n, lower_i64(L, 0), ""), ABI_EXC_VALUE,
                    "The truth value of an empty array is ambiguous. Use `array.size > 0` to "
                    "check that an array is not empty.", NULL, 0);
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntNE, n, lower_i64(L, 1), ""), ABI_EXC_VALUE,
                    "The truth value of an array with more than one element is ambiguous. Use "
                    "a.any() or a.all()", NULL, 0);
        LLVMValueRef e = lower_array_load(L, t->array.dtype, lower_array_data(L, v));
        return lower_truth(L, e, t->array.dtype);
    }
    return LLVMConstInt(L->i1, 0, 0);   /* None */
}

/* ---- scalar arithmetic ---------------------------------------------------------------------- */

/* NumPy's error model: division by zero gives inf/nan (and 0 for integers) instead of raising;
 * error_model='numpy', and always for the elements of array arithmetic. */
bool lower_numpy_errors(Lower *L)
{
    return L->ew_numpy || (L->opts && L->opts->error_model_numpy);
}

/* Python's floor division and modulo of signed ints: the quotient rounds toward minus infinity
 * and the remainder takes the divisor's sign. INT64_MIN // -1 wraps (the hardware would trap).
 * Under NumPy's error model a zero divisor gives 0 for both (as NumPy and Numba). */
static LLVMValueRef int_floordiv_mod_nonzero(Lower *L, LLVMValueRef a, LLVMValueRef b, bool is_mod,
                                             bool is_signed);

static LLVMValueRef int_floordiv_mod(Lower *L, LLVMValueRef a, LLVMValueRef b, bool is_mod,
                                     bool is_signed)
{
    LLVMTypeRef it = LLVMTypeOf(a);
    LLVMValueRef zero = LLVMConstNull(it);
    if (LLVMIsAConstantInt(b)) {   /* a positive power of two: floor semantics are a mask and a shift */
        unsigned long long c = LLVMConstIntGetZExtValue(b);
        unsigned bits = LLVMGetIntTypeWidth(it);
        bool pos = is_signed ? LLVMConstIntGetSExtValue(b) > 0 : c > 0;
        if (pos && (c & (c - 1)) == 0) {
            if (is_mod)
                return LLVMBuildAnd(L->b, a, LLVMConstInt(it, c - 1, 0), "");
            unsigned k = 0;
            while (k < bits && (1ULL << k) != c)
                k++;
            LLVMValueRef sh = LLVMConstInt(it, k, 0);
            return is_signed ? LLVMBuildAShr(L->b, a, sh, "") : LLVMBuildLShr(L->b, a, sh, "");
        }
    }
    LLVMValueRef b_zero = LLVMBuildICmp(L->b, LLVMIntEQ, b, zero, "");
    if (lower_numpy_errors(L)) {
        LLVMValueRef safe = LLVMBuildSelect(L->b, b_zero, LLVMConstInt(it, 1, 0), b, "");
        LLVMValueRef r = int_floordiv_mod_nonzero(L, a, safe, is_mod, is_signed);
        return LLVMBuildSelect(L->b, b_zero, zero, r, "");
    }
    lower_check(L, b_zero, ABI_EXC_ZERO_DIVISION, "integer division or modulo by zero", NULL, 0);
    return int_floordiv_mod_nonzero(L, a, b, is_mod, is_signed);
}

static LLVMValueRef int_divide(Lower *L, LLVMValueRef a, LLVMValueRef b, bool is_mod, bool is_signed);

/* int_floordiv_mod for a divisor known not to be zero. a % b of a variable b skips the division
 * where 0 <= a < b, where a is the answer: a 64-bit division costs tens of cycles, and the
 * wrap-around index of a stencil (`(j + 1) % n`) is below n but at one end. (LLVM from 17 makes
 * such a select itself where it knows a < 2 * b; 16 does not.) */
static LLVMValueRef int_floordiv_mod_nonzero(Lower *L, LLVMValueRef a, LLVMValueRef b, bool is_mod,
                                             bool is_signed)
{
    if (!is_mod || LLVMIsAConstantInt(b))
        return int_divide(L, a, b, is_mod, is_signed);
    LLVMBuilderRef B = L->b;
    LLVMValueRef below = is_signed ? LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, a, LLVMConstNull(LLVMTypeOf(a)), ""),
                                                  LLVMBuildICmp(B, LLVMIntSLT, a, b, ""), "")
                                   : LLVMBuildICmp(B, LLVMIntULT, a, b, "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef slow = lower_block(L, "mod.divide"), done = lower_block(L, "mod.done");
    LLVMBuildCondBr(B, below, done, slow);
    LLVMPositionBuilderAtEnd(B, slow);
    LLVMValueRef r = int_divide(L, a, b, is_mod, is_signed);
    LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMValueRef phi = LLVMBuildPhi(B, LLVMTypeOf(a), "");
    LLVMValueRef vals[2] = {a, r};
    LLVMBasicBlockRef froms[2] = {here, slow_end};
    LLVMAddIncoming(phi, vals, froms, 2);
    return phi;
}

/* Python's quotient or remainder by a nonzero divisor, by the hardware's division. */
static LLVMValueRef int_divide(Lower *L, LLVMValueRef a, LLVMValueRef b, bool is_mod, bool is_signed)
{
    LLVMTypeRef it = LLVMTypeOf(a);
    LLVMValueRef zero = LLVMConstNull(it);
    if (!is_signed)
        return is_mod ? LLVMBuildURem(L->b, a, b, "") : LLVMBuildUDiv(L->b, a, b, "");
    LLVMValueRef minus1 = LLVMConstAllOnes(it);
    LLVMValueRef is_m1 = LLVMBuildICmp(L->b, LLVMIntEQ, b, minus1, "");
    LLVMValueRef bs = LLVMBuildSelect(L->b, is_m1, LLVMConstInt(it, 1, 0), b, "");
    LLVMValueRef q = LLVMBuildSDiv(L->b, a, bs, ""), r = LLVMBuildSRem(L->b, a, bs, "");
    LLVMValueRef adjust = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, r, zero, ""),
                                       LLVMBuildICmp(L->b, LLVMIntSLT, LLVMBuildXor(L->b, r, b, ""), zero, ""), "");
    if (is_mod)
        return LLVMBuildSelect(L->b, adjust, LLVMBuildAdd(L->b, r, b, ""), r, "");
    q = LLVMBuildSelect(L->b, adjust, LLVMBuildSub(L->b, q, LLVMConstInt(it, 1, 0), ""), q, "");
    return LLVMBuildSelect(L->b, is_m1, LLVMBuildNeg(L->b, a, ""), q, "");
}

/* int64 ** int64 by repeated squaring, as one internal function per module. */
static LLVMValueRef ipow_function(Lower *L)
{
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, "pj.ipow");
    if (fn)
        return fn;
    LLVMTypeRef params[2] = {L->i64, L->i64};
    fn = LLVMAddFunction(L->mod, "pj.ipow", LLVMFunctionType(L->i64, params, 2, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(L->ctx);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, fn, "entry");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, fn, "loop");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, fn, "done");
    LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef zero = lower_i64(L, 0), one = lower_i64(L, 1);
    /* the exponent is not negative (int_pow checks), or is an unsigned one past 2**63 */
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, LLVMGetParam(fn, 1), zero, ""), loop, done);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef res = LLVMBuildPhi(b, L->i64, "r"), base = LLVMBuildPhi(b, L->i64, "b");
    LLVMValueRef e = LLVMBuildPhi(b, L->i64, "e");
    LLVMValueRef odd = LLVMBuildTrunc(b, e, L->i1, "");
    LLVMValueRef res2 = LLVMBuildSelect(b, odd, LLVMBuildMul(b, res, base, ""), res, "");
    LLVMValueRef base2 = LLVMBuildMul(b, base, base, "");
    LLVMValueRef e2 = LLVMBuildLShr(b, e, one, "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, e2, zero, ""), loop, done);
    LLVMValueRef vr[2] = {one, res2}, vb[2] = {LLVMGetParam(fn, 0), base2}, ve[2] = {LLVMGetParam(fn, 1), e2};
    LLVMBasicBlockRef from[2] = {entry, loop};
    LLVMAddIncoming(res, vr, from, 2);
    LLVMAddIncoming(base, vb, from, 2);
    LLVMAddIncoming(e, ve, from, 2);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef out = LLVMBuildPhi(b, L->i64, "");
    LLVMValueRef vo[2] = {one, res2};
    LLVMAddIncoming(out, vo, from, 2);
    LLVMBuildRet(b, out);
    LLVMDisposeBuilder(b);
    return fn;
}

/* int ** int is typed int64. Python would give a float for a negative exponent; an int64 result
 * cannot hold it, so pyjit raises ValueError there (as Numba's integer power does not say). An
 * unsigned exponent (uint64 arrays) is never negative, whatever its top bit. */
static LLVMValueRef int_pow(Lower *L, LLVMValueRef a, LLVMValueRef b, Instr *rhs, bool is_signed)
{
    if (rhs && rhs->op == OP_CONST && rhs->cst->kind == K_INT && rhs->cst->i >= 0 && rhs->cst->i <= 8) {
        LLVMValueRef r = lower_i64(L, 1);
        for (int64_t k = 0; k < rhs->cst->i; k++)
            r = LLVMBuildMul(L->b, r, a, "");
        return r;
    }
    if (is_signed)
        lower_check(L, LLVMBuildICmp(L->b, LLVMIntSLT, b, lower_i64(L, 0), ""), ABI_EXC_VALUE,
                    "integer to a negative integer power: the result is not an integer", NULL, 0);
    LLVMValueRef fn = ipow_function(L), args[2] = {a, b};
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

static LLVMValueRef shift(Lower *L, bool left, bool is_signed, LLVMValueRef a, LLVMValueRef b)
{
    LLVMTypeRef it = LLVMTypeOf(a);
    unsigned bits = LLVMGetIntTypeWidth(it);
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntSLT, b, LLVMConstNull(it), ""), ABI_EXC_VALUE,
                "negative shift count", NULL, 0);
    LLVMValueRef big = LLVMBuildICmp(L->b, LLVMIntUGE, b, LLVMConstInt(it, bits, 0), "");
    LLVMValueRef safe = LLVMBuildSelect(L->b, big, LLVMConstInt(it, bits - 1, 0), b, "");
    if (left)
        return LLVMBuildSelect(L->b, big, LLVMConstNull(it), LLVMBuildShl(L->b, a, safe, ""), "");
    if (is_signed)
        return LLVMBuildAShr(L->b, a, safe, "");
    return LLVMBuildSelect(L->b, big, LLVMConstNull(it), LLVMBuildLShr(L->b, a, safe, ""), "");
}

static LLVMValueRef int_binop(Lower *L, BinOp op, Type *t, LLVMValueRef a, LLVMValueRef b, Instr *rhs)
{
    bool s = ty_is_signed(t);
    switch (op) {
    case BIN_ADD: return LLVMBuildAdd(L->b, a, b, "");
    case BIN_SUB: return LLVMBuildSub(L->b, a, b, "");
    case BIN_MUL: return LLVMBuildMul(L->b, a, b, "");
    case BIN_FLOORDIV: return int_floordiv_mod(L, a, b, false, s);
    case BIN_MOD: return int_floordiv_mod(L, a, b, true, s);
    case BIN_POW: {
        /* computed in int64, then wrapped to t (np.power of uint16 stays uint16) */
        Type *i64t = ty_scalar(TY_INT64);
        LLVMValueRef r = int_pow(L, lower_cast(L, a, t, i64t), lower_cast(L, b, t, i64t), rhs, s);
        return lower_cast(L, r, i64t, t);
    }
    case BIN_LSHIFT: return shift(L, true, s, a, b);
    case BIN_RSHIFT: return shift(L, false, s, a, b);
    case BIN_AND: return LLVMBuildAnd(L->b, a, b, "");
    case BIN_OR: return LLVMBuildOr(L->b, a, b, "");
    case BIN_XOR: return LLVMBuildXor(L->b, a, b, "");
    default:
        lower_unsupported(L, "operator not supported on %s", t->name);
        return NULL;
    }
}

/* Python's float // and %: fmod, then moved toward the divisor's sign (CPython's float_divmod),
 * as selects so the common case stays branch-free. Under NumPy's error model a zero divisor gives
 * a / b for // and fmod's nan for % (NumPy's npy_floor_divide and npy_remainder). */
static LLVMValueRef float_floordiv_mod(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b, bool is_mod)
{
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(a));
    if (!lower_numpy_errors(L))
        lower_check(L, LLVMBuildFCmp(L->b, LLVMRealOEQ, b, zero, ""), ABI_EXC_ZERO_DIVISION,
                    is_mod ? "float modulo" : "float floor division by zero", NULL, 0);
    LLVMValueRef mod = LLVMBuildFRem(L->b, a, b, "");
    LLVMValueRef div = LLVMBuildFDiv(L->b, LLVMBuildFSub(L->b, a, mod, ""), b, "");
    LLVMValueRef nz = LLVMBuildFCmp(L->b, LLVMRealUNE, mod, zero, "");
    LLVMValueRef signs = LLVMBuildXor(L->b, LLVMBuildFCmp(L->b, LLVMRealOLT, b, zero, ""),
                                      LLVMBuildFCmp(L->b, LLVMRealOLT, mod, zero, ""), "");
    LLVMValueRef adj = LLVMBuildAnd(L->b, nz, signs, "");
    if (is_mod) {
        LLVMValueRef m = LLVMBuildSelect(L->b, adj, LLVMBuildFAdd(L->b, mod, b, ""), mod, "");
        return LLVMBuildSelect(L->b, nz, m, lower_math(L, MF_COPYSIGN, t, zero, b), "");
    }
    div = LLVMBuildSelect(L->b, adj, LLVMBuildFSub(L->b, div, lower_const_f(L, t, 1.0), ""), div, "");
    LLVMValueRef fl = lower_math(L, MF_FLOOR, t, div, NULL);
    LLVMValueRef up = LLVMBuildFCmp(L->b, LLVMRealOGT, LLVMBuildFSub(L->b, div, fl, ""),
                                    lower_const_f(L, t, 0.5), "");
    fl = LLVMBuildSelect(L->b, up, LLVMBuildFAdd(L->b, fl, lower_const_f(L, t, 1.0), ""), fl, "");
    LLVMValueRef q = LLVMBuildFDiv(L->b, a, b, "");
    LLVMValueRef z = lower_math(L, MF_COPYSIGN, t, zero, q);
    LLVMValueRef r = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealUNE, div, zero, ""), fl, z, "");
    if (lower_numpy_errors(L))
        r = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, b, zero, ""), q, r, "");
    return r;
}

/* x ** n for a float64 x and a constant int n, -64 <= n <= -1 or 3 <= n <= 64 (Lennard-Jones'
 * `** 6` and `** 12`; LLVM makes x ** 2 x * x already). libm's pow costs some 20 ns and stops
 * the loop from being vectorised. Binary exponentiation in
 * double-double arithmetic (each product's error kept through fma, the last product's terms
 * summed by one fma) holds x ** n to about 2**-100 relative, so the one final rounding gives the
 * correctly rounded power. glibc's pow, which
 * CPython uses, is within 0.52 ulp: the two differ in the last bit for about 1 input in 1000
 * (Numba's repeated multiplication: 1 in 4). Where the double-double terms leave the normal
 * range (0, inf, nan, overflow, results near the subnormals), libm's pow answers. */
typedef struct DD { LLVMValueRef hi, lo; } DD;

static LLVMValueRef fma64(Lower *L, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    LLVMValueRef args[3] = {a, b, c};
    return target_call_intrinsic(L->mod, L->b, "llvm.fma", &L->f64, 1, args, 3);
}

/* (x.hi + x.lo) * (y.hi + y.lo) as hi + lo, unnormalised: lo stays within a few ulps of hi,
 * which the next product carries as well, and the last one is rounded once (hi + lo). A NULL lo
 * is an exact zero (hi * 0.0 is not folded away: it is nan for an infinite hi). */
static DD dd_mul(Lower *L, DD x, DD y)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef p = LLVMBuildFMul(B, x.hi, y.hi, "");
    LLVMValueRef e = fma64(L, x.hi, y.hi, LLVMBuildFNeg(B, p, ""));
    if (y.lo)
        e = LLVMBuildFAdd(B, e, LLVMBuildFMul(B, x.hi, y.lo, ""), "");
    if (x.lo)
        e = LLVMBuildFAdd(B, e, LLVMBuildFMul(B, x.lo, y.hi, ""), "");
    return (DD){p, e};
}

/* LLVM's memory attribute: two bits (read, write) per kind of memory, inaccessible memory the
 * second kind in every LLVM from 16 on. */
#define MEMORY_INACCESSIBLE_ONLY (3u << 2)

static void add_fn_attr(Lower *L, LLVMValueRef fn, const char *name, uint64_t value)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, kind, value));
}

/* (x.hi + x.lo) * (y.hi + y.lo) rounded once: the cross terms, then x.hi * y.hi added by fma
 * (the last product of x ** n; three operations fewer than dd_mul and the sum). */
static LLVMValueRef dd_mul_rounded(Lower *L, DD x, DD y)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef t = y.lo ? LLVMBuildFMul(B, x.hi, y.lo, "") : NULL;
    if (x.lo) {
        LLVMValueRef u = LLVMBuildFMul(B, x.lo, y.hi, "");
        t = t ? LLVMBuildFAdd(B, t, u, "") : u;
    }
    return t ? fma64(L, x.hi, y.hi, t) : LLVMBuildFMul(B, x.hi, y.hi, "");
}

/* libm's pow as a plain call: the intrinsic counts as speculatable, and LLVM would then call it
 * on every iteration to make a select of the rare path. It touches no memory of the program
 * (errno, which compiled code never reads, apart): said so, the loads of a loop that calls it on
 * its rare path are still hoisted out (pos[i, 0] of a loop over j). */
static LLVMValueRef libm_pow(Lower *L, LLVMValueRef x, LLVMValueRef y)
{
    if (L->t->is_gpu)
        return lower_math(L, MF_POW, ty_scalar(TY_FLOAT64), x, y);
    LLVMTypeRef params[2] = {L->f64, L->f64};
    LLVMTypeRef fty = LLVMFunctionType(L->f64, params, 2, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, "pow");
    if (!fn) {
        fn = LLVMAddFunction(L->mod, "pow", fty);
        add_fn_attr(L, fn, "nounwind", 0);
        add_fn_attr(L, fn, "willreturn", 0);
        add_fn_attr(L, fn, "memory", MEMORY_INACCESSIBLE_ONLY);
    }
    LLVMValueRef args[2] = {x, y};
    return LLVMBuildCall2(L->b, fty, fn, args, 2, "");
}

static bool is_small_int_power(LLVMValueRef b, int *n)
{
    if (!LLVMIsAConstantFP(b))
        return false;
    LLVMBool lossy = 0;
    double v = LLVMConstRealGetDouble(b, &lossy);
    if (lossy || v != (double)(int)v || v > 64 || v < -64 || (v > -1 && v < 3))
        return false;
    *n = (int)v;
    return true;
}

/* x ** k (1 / x ** k when recip) by binary exponentiation, each product rounded. */
static LLVMValueRef plain_pow(Lower *L, LLVMValueRef x, unsigned k, bool recip)
{
    LLVMValueRef acc = NULL;
    for (; k; k >>= 1) {
        if (k & 1)
            acc = acc ? LLVMBuildFMul(L->b, acc, x, "") : x;
        if (k > 1)
            x = LLVMBuildFMul(L->b, x, x, "");
    }
    return recip ? LLVMBuildFDiv(L->b, LLVMConstReal(LLVMTypeOf(acc), 1.0), acc, "") : acc;
}

/* r, the power x ** y computed without libm, where the bits of x (or of |x|) lie in
 * [lo_bits, hi_bits): one unsigned compare, which 0, nan and inf fail too; libm's pow of x and y
 * elsewhere. */
static LLVMValueRef pow_in_range(Lower *L, LLVMValueRef r, LLVMValueRef bits, uint64_t lo_bits,
                                 uint64_t hi_bits, LLVMValueRef x, double y)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef off = LLVMBuildSub(B, bits, LLVMConstInt(L->i64, lo_bits, 0), "");
    LLVMValueRef normal = LLVMBuildICmp(B, LLVMIntULT, off, LLVMConstInt(L->i64, hi_bits - lo_bits, 0), "");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef slow = lower_block(L, "pow.libm"), done = lower_block(L, "pow.done");
    LLVMBuildCondBr(B, normal, done, slow);
    LLVMPositionBuilderAtEnd(B, slow);
    LLVMValueRef libm = libm_pow(L, x, LLVMConstReal(L->f64, y));
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMValueRef phi = LLVMBuildPhi(B, L->f64, "");
    LLVMValueRef vals[2] = {r, libm};
    LLVMBasicBlockRef froms[2] = {here, slow};
    LLVMAddIncoming(phi, vals, froms, 2);
    return phi;
}

static LLVMValueRef pow_small_int(Lower *L, LLVMValueRef x, int n, bool products)
{
    LLVMBuilderRef B = L->b;
    unsigned k = (unsigned)(n < 0 ? -n : n);
    Type *f64 = ty_scalar(TY_FLOAT64);
    if (n < 0 && !lower_numpy_errors(L))
        lower_check(L, LLVMBuildFCmp(B, LLVMRealOEQ, x, LLVMConstReal(L->f64, 0.0), ""),
                    ABI_EXC_ZERO_DIVISION, "0.0 cannot be raised to a negative power", NULL, 0);
    if (products || (L->opts && L->opts->fastmath))    /* plain products, as Numba's */
        return plain_pow(L, x, k, n < 0);
    DD base = {x, NULL}, acc = {NULL, NULL};
    LLVMValueRef r = NULL;
    for (; k; k >>= 1) {
        if (k == 1 && acc.hi && n > 0)
            r = dd_mul_rounded(L, acc, base);
        else if (k & 1)
            acc = acc.hi ? dd_mul(L, acc, base) : base;
        if (k > 1)
            base = dd_mul(L, base, base);
    }
    if (!r)
        r = acc.lo ? LLVMBuildFAdd(B, acc.hi, acc.lo, "") : acc.hi;
    if (n < 0) {     /* 1 / (hi + lo): q, then q's residual 1 - q*(hi + lo) folded in */
        LLVMValueRef one = LLVMConstReal(L->f64, 1.0);
        LLVMValueRef q = LLVMBuildFDiv(B, one, acc.hi, "");
        LLVMValueRef res = fma64(L, LLVMBuildFNeg(B, q, ""), acc.hi, one);
        if (acc.lo)
            res = LLVMBuildFSub(B, res, LLVMBuildFMul(B, q, acc.lo, ""), "");
        r = fma64(L, res, q, q);
    }
    /* The range test is of x, not of the result: 2**-lo <= |x| < 2**hi keeps every product on
     * the way, and x ** n (or its reciprocal), within 2**-960 .. 2**1023 (2**960 for a
     * reciprocal), where each error term is exact. One unsigned compare of the bits, which 0,
     * nan and inf fail too; it waits for no product (and takes no float operation from the
     * products, which a float compare of the result would: that measured 15% slower in a
     * Lennard-Jones loop). */
    unsigned k_abs = (unsigned)(n < 0 ? -n : n);
    uint64_t lo_exp = 960 / k_abs, hi_exp = (n < 0 ? 960 : 1023) / k_abs;
    LLVMValueRef bits = LLVMBuildBitCast(B, lower_math(L, MF_FABS, f64, x, NULL), L->i64, "");
    return pow_in_range(L, r, bits, (1023 - lo_exp) << 52, (1023 + hi_exp) << 52, x, n);
}

/* Whether b is a constant y = n / 2 with n odd, |n| <= 33, other than 0.5 (which LLVM makes a
 * sqrt already): gravity's `r2 ** -1.5`, `x ** 1.5`, `d ** -0.5`. */
static bool is_half_int_power(LLVMValueRef b, int *n)
{
    if (!LLVMIsAConstantFP(b))
        return false;
    LLVMBool lossy = 0;
    double v = LLVMConstRealGetDouble(b, &lossy), twice = 2.0 * v;
    if (lossy || twice > 33 || twice < -33 || twice != (double)(int)twice || ((int)twice & 1) == 0 ||
        twice == 1.0)
        return false;
    *n = (int)twice;
    return true;
}

/* x ** (n / 2) for a float64 x and an odd constant n (is_half_int_power), without libm's pow
 * (some 20 ns a call, and Numba calls it): from s = sqrt(x), correctly rounded, and its exact
 * residual r = x - s * s (one fma), sqrt(x) = s + r / (2 s) to about 2**-105, so x ** 1.5 is the
 * double-double x * s + (fma's error of it + r * s / 2) (x / s is s within an ulp, which the small
 * term does not feel); further whole powers of x multiply it as in pow_small_int, and a
 * negative power takes the reciprocal with one correction step. The one final rounding gives the
 * correctly rounded power, which glibc's pow (within 0.52 ulp) gives too but for about one input
 * in a thousand. Outside 2**-lim <= x < 2**lim, for x negative, zero, inf or nan, libm's pow
 * answers. */
static LLVMValueRef pow_half_int(Lower *L, LLVMValueRef x, int n)
{
    LLVMBuilderRef B = L->b;
    Type *f64 = ty_scalar(TY_FLOAT64);
    unsigned m = (unsigned)(n < 0 ? -n : n);
    if (n < 0 && !lower_numpy_errors(L))
        lower_check(L, LLVMBuildFCmp(B, LLVMRealOEQ, x, LLVMConstReal(L->f64, 0.0), ""),
                    ABI_EXC_ZERO_DIVISION, "0.0 cannot be raised to a negative power", NULL, 0);
    LLVMValueRef half = LLVMConstReal(L->f64, 0.5), one = LLVMConstReal(L->f64, 1.0);
    LLVMValueRef sq = lower_math(L, MF_SQRT, f64, x, NULL);
    LLVMValueRef res = fma64(L, LLVMBuildFNeg(B, sq, ""), sq, x);
    LLVMValueRef half_res = LLVMBuildFMul(B, res, half, "");
    DD t;
    if (m == 1) {
        t = (DD){sq, NULL};
    } else {
        LLVMValueRef h = LLVMBuildFMul(B, x, sq, "");
        LLVMValueRef lo = LLVMBuildFAdd(B, fma64(L, x, sq, LLVMBuildFNeg(B, h, "")),
                                        LLVMBuildFMul(B, half_res, sq, ""), "");
        DD base = {x, NULL}, acc = {NULL, NULL}, x15 = {h, lo};
        for (unsigned k = (m - 3) / 2; k; k >>= 1) {   /* x ** ((m - 3) / 2) */
            if (k & 1)
                acc = acc.hi ? dd_mul(L, acc, base) : base;
            if (k > 1)
                base = dd_mul(L, base, base);
        }
        t = x15;
        if (acc.hi)
            t = n > 0 ? (DD){dd_mul_rounded(L, acc, x15), NULL} : dd_mul(L, acc, x15);
    }
    LLVMValueRef r;
    if (n > 0) {
        r = t.lo ? LLVMBuildFAdd(B, t.hi, t.lo, "") : t.hi;
    } else {     /* 1 / (hi + lo), lo of sqrt(x) alone being r / (2 s) = r * q / 2 */
        LLVMValueRef q = LLVMBuildFDiv(B, one, t.hi, "");
        LLVMValueRef lo = t.lo ? t.lo : LLVMBuildFMul(B, half_res, q, "");
        LLVMValueRef e = fma64(L, LLVMBuildFNeg(B, q, ""), t.hi, one);
        e = LLVMBuildFSub(B, e, LLVMBuildFMul(B, q, lo, ""), "");
        r = fma64(L, e, q, q);
    }
    /* every term normal: x ** ((m + 1) / 2) and its reciprocal within 2**-900 .. 2**900; the test
     * of the bits fails for negative x, 0, inf and nan too */
    uint64_t lim = 1800 / (m + 1);
    LLVMValueRef bits = LLVMBuildBitCast(B, x, L->i64, "");
    return pow_in_range(L, r, bits, (1023 - lim) << 52, (1023 + lim) << 52, x, n / 2.0);
}

/* x ** y for float64 x and y, y known only at run time (a p-norm's `abs(d) ** p`, Minkowski's
 * distance): where y is 2 or 3, the exact products of pow_small_int (x * x is correctly rounded
 * as it is) instead of libm's pow, some 20 ns a call; other exponents call pow. The tests of y
 * are loop-invariant where y is: LLVM versions such a loop on them, or predicts them. pow is the
 * plain call (libm_pow), which LLVM does not speculate into the other branches. */
static LLVMValueRef pow_by_exponent(Lower *L, LLVMValueRef x, LLVMValueRef y)
{
    LLVMBuilderRef B = L->b;
    LLVMBasicBlockRef cube = lower_block(L, "pow.cube"), other = lower_block(L, "pow.other");
    LLVMBasicBlockRef square = lower_block(L, "pow.square"), any = lower_block(L, "pow.any");
    LLVMBasicBlockRef done = lower_block(L, "pow.end");
    LLVMBuildCondBr(B, LLVMBuildFCmp(B, LLVMRealOEQ, y, LLVMConstReal(L->f64, 3.0), ""), cube, other);
    LLVMPositionBuilderAtEnd(B, other);
    LLVMBuildCondBr(B, LLVMBuildFCmp(B, LLVMRealOEQ, y, LLVMConstReal(L->f64, 2.0), ""), square, any);
    LLVMValueRef vals[3];
    LLVMBasicBlockRef froms[3];
    LLVMPositionBuilderAtEnd(B, cube);
    vals[0] = pow_small_int(L, x, 3, false);
    froms[0] = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, square);
    vals[1] = LLVMBuildFMul(B, x, x, "");
    froms[1] = square;
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, any);
    vals[2] = libm_pow(L, x, y);
    froms[2] = any;
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMValueRef phi = LLVMBuildPhi(B, L->f64, "");
    LLVMAddIncoming(phi, vals, froms, 3);
    return phi;
}

/* Whether a float32 power on this target is libdevice's fast one (a fastmath kernel's:
 * 2 ** (y * log2(x)), nan for every negative x). x ** n of a constant integer n is then
 * multiplied out, as numba-cuda does for an integer literal exponent: (-0.5) ** 2 is 0.25 there,
 * on the CPU and in the simulators alike; math.pow keeps the fast function, as numba-cuda's. */
static bool fast_float32_pow(Lower *L, Type *t)
{
    return L->t->is_gpu && t->kind == TY_FLOAT32 && L->opts && L->opts->fastmath;
}

/* A constant exponent that is an integer n, -64 <= n <= 64. */
static bool is_int_exponent(LLVMValueRef b, int *n)
{
    if (!LLVMIsAConstantFP(b))
        return false;
    LLVMBool lossy = 0;
    double v = LLVMConstRealGetDouble(b, &lossy);
    if (v != v || v > 64 || v < -64 || v != (double)(int)v)
        return false;
    *n = (int)v;
    return true;
}

/* int_exp: the exponent is an int (`x ** 3`, not `x ** 3.0`), NULL rhs (arrays' items) not */
static LLVMValueRef float_binop(Lower *L, BinOp op, Type *t, LLVMValueRef a, LLVMValueRef b, bool int_exp)
{
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(a));
    switch (op) {
    case BIN_ADD: return LLVMBuildFAdd(L->b, a, b, "");
    case BIN_SUB: return LLVMBuildFSub(L->b, a, b, "");
    case BIN_MUL: return LLVMBuildFMul(L->b, a, b, "");
    case BIN_TRUEDIV:
        if (!lower_numpy_errors(L))
            lower_check(L, LLVMBuildFCmp(L->b, LLVMRealOEQ, b, zero, ""), ABI_EXC_ZERO_DIVISION,
                        "float division by zero", NULL, 0);
        return LLVMBuildFDiv(L->b, a, b, "");
    case BIN_FLOORDIV: return float_floordiv_mod(L, t, a, b, false);
    case BIN_MOD: return float_floordiv_mod(L, t, a, b, true);
    case BIN_POW: {
        /* constant exponents of float64 (scalars, and arrays' items): without libm's pow. A
         * scalar to an int's power multiplies as Numba does (its `x ** 3` is x * (x * x), two
         * roundings): the correctly rounded cube's two operations more, on the chain of a
         * Lennard-Jones loop, took a quarter of its time. A float exponent (`x ** 3.0`), which
         * Numba gives to pow, and arrays' items (np.power's loop calls pow) stay exact. */
        int n;
        bool f64 = ty_strong(t)->kind == TY_FLOAT64;
        if (f64 && is_small_int_power(b, &n))
            return pow_small_int(L, a, n, int_exp);
        if (f64 && !(L->opts && L->opts->fastmath) && is_half_int_power(b, &n))
            return pow_half_int(L, a, n);
        /* 0.0 ** negative raises in Python; a negative base with a fractional exponent gives
         * nan here (Python would make a complex number) */
        if (!lower_numpy_errors(L))
            lower_check(L, LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, a, zero, ""),
                                        LLVMBuildFCmp(L->b, LLVMRealOLT, b, zero, ""), ""),
                        ABI_EXC_ZERO_DIVISION, "0.0 cannot be raised to a negative power", NULL, 0);
        if (!L->t->is_gpu && ty_strong(t)->kind == TY_FLOAT64 && !LLVMIsAConstant(b) &&
            !(L->opts && L->opts->fastmath))
            return pow_by_exponent(L, a, b);
        if (fast_float32_pow(L, t) && is_int_exponent(b, &n))
            return n == 0 ? LLVMConstReal(L->f32, 1.0)
                          : plain_pow(L, a, (unsigned)(n < 0 ? -n : n), n < 0);
        return lower_math(L, MF_POW, t, a, b);
    }
    default:
        lower_unsupported(L, "operator not supported on %s", t->name);
        return NULL;
    }
}

/* Complex true division by Smith's algorithm (no overflow for large components); both branches
 * are computed and one is selected, so the loop bodies stay straight-line. */
static LLVMValueRef complex_div(Lower *L, Type *t, Type *pt, LLVMValueRef a, LLVMValueRef c,
                                LLVMValueRef d, LLVMValueRef b)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(c));
    if (!lower_numpy_errors(L))
        lower_check(L, LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, c, zero, ""),
                                    LLVMBuildFCmp(B, LLVMRealOEQ, d, zero, ""), ""),
                    ABI_EXC_ZERO_DIVISION, "complex division by zero", NULL, 0);
    LLVMValueRef big_c = LLVMBuildFCmp(B, LLVMRealOGE, lower_math(L, MF_FABS, pt, c, NULL),
                                       lower_math(L, MF_FABS, pt, d, NULL), "");
    LLVMValueRef r1 = LLVMBuildFDiv(B, d, c, ""), den1 = LLVMBuildFAdd(B, c, LLVMBuildFMul(B, d, r1, ""), "");
    LLVMValueRef re1 = LLVMBuildFDiv(B, LLVMBuildFAdd(B, a, LLVMBuildFMul(B, b, r1, ""), ""), den1, "");
    LLVMValueRef im1 = LLVMBuildFDiv(B, LLVMBuildFSub(B, b, LLVMBuildFMul(B, a, r1, ""), ""), den1, "");
    LLVMValueRef r2 = LLVMBuildFDiv(B, c, d, ""), den2 = LLVMBuildFAdd(B, LLVMBuildFMul(B, c, r2, ""), d, "");
    LLVMValueRef re2 = LLVMBuildFDiv(B, LLVMBuildFAdd(B, LLVMBuildFMul(B, a, r2, ""), b, ""), den2, "");
    LLVMValueRef im2 = LLVMBuildFDiv(B, LLVMBuildFSub(B, LLVMBuildFMul(B, b, r2, ""), a, ""), den2, "");
    return complex_make(L, t, LLVMBuildSelect(B, big_c, re1, re2, ""), LLVMBuildSelect(B, big_c, im1, im2, ""));
}

static LLVMValueRef complex_mul(Lower *L, Type *t, LLVMValueRef x, LLVMValueRef y)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef a = LLVMBuildExtractValue(B, x, 0, ""), b = LLVMBuildExtractValue(B, x, 1, "");
    LLVMValueRef c = LLVMBuildExtractValue(B, y, 0, ""), d = LLVMBuildExtractValue(B, y, 1, "");
    return complex_make(L, t, LLVMBuildFSub(B, LLVMBuildFMul(B, a, c, ""), LLVMBuildFMul(B, b, d, ""), ""),
                        LLVMBuildFAdd(B, LLVMBuildFMul(B, a, d, ""), LLVMBuildFMul(B, b, c, ""), ""));
}

/* z ** n for n >= 0 by binary exponentiation, one internal function per complex type. */
static LLVMValueRef cpowu_function(Lower *L, Type *t)
{
    const char *name = t->kind == TY_COMPLEX64 ? "pj.cpowu.c64" : "pj.cpowu.c128";
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (fn)
        return fn;
    LLVMTypeRef ct = lower_type(L, t), params[2] = {ct, L->i64};
    fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(ct, params, 2, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMBuilderRef saved = L->b;
    LLVMBuilderRef b = L->b = LLVMCreateBuilderInContext(L->ctx);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, fn, "entry");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->ctx, fn, "loop");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, fn, "done");
    LLVMPositionBuilderAtEnd(b, entry);
    Type *pt = complex_part(t);
    LLVMValueRef one = complex_make(L, t, lower_const_f(L, pt, 1.0), lower_const_f(L, pt, 0.0));
    LLVMValueRef zero = lower_i64(L, 0);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGT, LLVMGetParam(fn, 1), zero, ""), loop, done);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef res = LLVMBuildPhi(b, ct, "r"), base = LLVMBuildPhi(b, ct, "b"), e = LLVMBuildPhi(b, L->i64, "e");
    LLVMValueRef odd = LLVMBuildTrunc(b, e, L->i1, "");
    LLVMValueRef res2 = LLVMBuildSelect(b, odd, complex_mul(L, t, res, base), res, "");
    LLVMValueRef base2 = complex_mul(L, t, base, base);
    LLVMValueRef e2 = LLVMBuildLShr(b, e, lower_i64(L, 1), "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, e2, zero, ""), loop, done);
    LLVMValueRef vr[2] = {one, res2}, vb[2] = {LLVMGetParam(fn, 0), base2}, ve[2] = {LLVMGetParam(fn, 1), e2};
    LLVMBasicBlockRef from[2] = {entry, loop};
    LLVMAddIncoming(res, vr, from, 2);
    LLVMAddIncoming(base, vb, from, 2);
    LLVMAddIncoming(e, ve, from, 2);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef out = LLVMBuildPhi(b, ct, "");
    LLVMValueRef vo[2] = {one, res2};
    LLVMAddIncoming(out, vo, from, 2);
    LLVMBuildRet(b, out);
    LLVMDisposeBuilder(b);
    L->b = saved;
    return fn;
}

/* z ** w as CPython's complex power: small integral constant exponents by multiplication, the
 * rest through polar form (|z|**w.re / exp(arg*w.im), angle arg*w.re + w.im*log|z|). */
static LLVMValueRef complex_pow(Lower *L, Type *t, LLVMValueRef x, LLVMValueRef y, Instr *rhs)
{
    Type *pt = complex_part(t);
    LLVMBuilderRef B = L->b;
    if (rhs && rhs->op == OP_CAST && rhs->nargs == 1)
        rhs = rhs->args[0];
    if (rhs && rhs->op == OP_CONST && rhs->cst->kind == K_INT && rhs->cst->i >= 1 && rhs->cst->i <= 8) {
        LLVMValueRef r = x;
        for (int64_t k = 1; k < rhs->cst->i; k++)
            r = complex_mul(L, t, r, x);
        return r;
    }
    LLVMValueRef a = LLVMBuildExtractValue(B, x, 0, ""), b = LLVMBuildExtractValue(B, x, 1, "");
    LLVMValueRef c = LLVMBuildExtractValue(B, y, 0, ""), d = LLVMBuildExtractValue(B, y, 1, "");
    LLVMValueRef zero = LLVMConstNull(lower_type(L, pt)), one = lower_const_f(L, pt, 1.0);
    /* integral exponents up to 100 by repeated multiplication, as CPython (exact for z**2) */
    LLVMValueRef is_int = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, d, zero, ""),
                                       LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, c, lower_math(L, MF_RINT, pt, c, NULL), ""),
                                                    LLVMBuildFCmp(B, LLVMRealOLE, lower_math(L, MF_FABS, pt, c, NULL),
                                                                  lower_const_f(L, pt, 100.0), ""), ""), "");
    LLVMBasicBlockRef ib = lower_block(L, "cpow.int"), gb = lower_block(L, "cpow"), jb = lower_block(L, "cpow.done");
    LLVMBuildCondBr(B, is_int, ib, gb);
    LLVMPositionBuilderAtEnd(B, ib);
    LLVMValueRef n = LLVMBuildFPToSI(B, c, L->i64, "");
    LLVMValueRef an = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, n, lower_i64(L, 0), ""), LLVMBuildNeg(B, n, ""), n, "");
    LLVMValueRef cargs[2] = {x, an};
    LLVMValueRef fn = cpowu_function(L, t);
    LLVMValueRef pw = LLVMBuildCall2(B, LLVMGlobalGetValueType(fn), fn, cargs, 2, "");
    LLVMValueRef pc = LLVMBuildExtractValue(B, pw, 0, ""), pd = LLVMBuildExtractValue(B, pw, 1, "");
    LLVMValueRef inv = complex_div(L, t, pt, one, pc, pd, zero);
    LLVMValueRef ires = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, n, lower_i64(L, 0), ""), inv, pw, "");
    LLVMBasicBlockRef ib_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, jb);
    LLVMPositionBuilderAtEnd(B, gb);
    LLVMValueRef vabs = lower_math(L, MF_HYPOT, pt, a, b);
    LLVMValueRef len = lower_math(L, MF_POW, pt, vabs, c);
    LLVMValueRef at = lower_math(L, MF_ATAN2, pt, b, a);
    LLVMValueRef phase = LLVMBuildFMul(B, at, c, "");
    len = LLVMBuildFDiv(B, len, lower_math(L, MF_EXP, pt, LLVMBuildFMul(B, at, d, ""), NULL), "");
    phase = LLVMBuildFAdd(B, phase, LLVMBuildFMul(B, d, lower_math(L, MF_LOG, pt, vabs, NULL), ""), "");
    LLVMValueRef re = LLVMBuildFMul(B, len, lower_math(L, MF_COS, pt, phase, NULL), "");
    LLVMValueRef im = LLVMBuildFMul(B, len, lower_math(L, MF_SIN, pt, phase, NULL), "");
    LLVMValueRef w0 = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, c, zero, ""),
                                   LLVMBuildFCmp(B, LLVMRealOEQ, d, zero, ""), "");
    LLVMValueRef z0 = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, a, zero, ""),
                                   LLVMBuildFCmp(B, LLVMRealOEQ, b, zero, ""), "");
    if (!lower_numpy_errors(L))
        lower_check(L, LLVMBuildAnd(B, LLVMBuildAnd(B, z0, LLVMBuildNot(B, w0, ""), ""),
                                    LLVMBuildOr(B, LLVMBuildFCmp(B, LLVMRealONE, d, zero, ""),
                                                LLVMBuildFCmp(B, LLVMRealOLT, c, zero, ""), ""), ""),
                    ABI_EXC_ZERO_DIVISION, "0.0 to a negative or complex power", NULL, 0);
    re = LLVMBuildSelect(B, z0, zero, re, "");
    im = LLVMBuildSelect(B, z0, zero, im, "");
    LLVMValueRef gres = complex_make(L, t, LLVMBuildSelect(B, w0, one, re, ""), LLVMBuildSelect(B, w0, zero, im, ""));
    LLVMBasicBlockRef gb_end = LLVMGetInsertBlock(B);
    LLVMBuildBr(B, jb);
    LLVMPositionBuilderAtEnd(B, jb);
    LLVMValueRef res = LLVMBuildPhi(B, lower_type(L, t), "");
    LLVMValueRef vals[2] = {ires, gres};
    LLVMBasicBlockRef froms[2] = {ib_end, gb_end};
    LLVMAddIncoming(res, vals, froms, 2);
    return res;
}

static LLVMValueRef complex_binop(Lower *L, BinOp op, Type *t, LLVMValueRef x, LLVMValueRef y, Instr *rhs)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef a = LLVMBuildExtractValue(B, x, 0, ""), b = LLVMBuildExtractValue(B, x, 1, "");
    LLVMValueRef c = LLVMBuildExtractValue(B, y, 0, ""), d = LLVMBuildExtractValue(B, y, 1, "");
    switch (op) {
    case BIN_ADD: return complex_make(L, t, LLVMBuildFAdd(B, a, c, ""), LLVMBuildFAdd(B, b, d, ""));
    case BIN_SUB: return complex_make(L, t, LLVMBuildFSub(B, a, c, ""), LLVMBuildFSub(B, b, d, ""));
    case BIN_MUL: return complex_mul(L, t, x, y);
    case BIN_TRUEDIV: return complex_div(L, t, complex_part(t), a, c, d, b);
    case BIN_POW: return complex_pow(L, t, x, y, rhs);
    default:
        lower_unsupported(L, "operator not supported on complex numbers");
        return NULL;
    }
}

/* Whether operand v is an int: typed so, a literal int (weak, typed as the float beside it) or
 * an int converted. */
static bool is_int_operand(Instr *v)
{
    if (!v || !v->type)
        return false;
    if (ty_is_int(ty_strong(v->type)))
        return true;
    if (v->op == OP_CONST)
        return v->cst && v->cst->kind == K_INT;
    return v->op == OP_CAST && v->args[0]->type && ty_is_int(ty_strong(v->args[0]->type));
}

LLVMValueRef lower_binop_scalar(Lower *L, BinOp op, Type *t, LLVMValueRef a, LLVMValueRef b,
                                Instr *rhs)
{
    t = ty_strong(t);
    if (half_in_float32(L, t, op)) {
        Type *f32 = ty_scalar(TY_FLOAT32);
        LLVMValueRef r = lower_binop_scalar(L, op, f32, lower_cast(L, a, t, f32),
                                            lower_cast(L, b, t, f32), rhs);
        return r ? lower_cast(L, r, f32, t) : NULL;
    }
    if (t->kind == TY_BOOL && (op == BIN_AND || op == BIN_OR || op == BIN_XOR))
        return int_binop(L, op, t, a, b, rhs);
    if (t->kind == TY_BOOL) {   /* arithmetic on bools is on ints */
        Type *it = ty_scalar(TY_INT64);
        return int_binop(L, op, it, lower_cast(L, a, t, it), lower_cast(L, b, t, it), rhs);
    }
    if (ty_is_int(t))
        return int_binop(L, op, t, a, b, rhs);
    if (ty_is_float(t))
        return float_binop(L, op, t, a, b, is_int_operand(rhs));
    if (ty_is_complex(t))
        return complex_binop(L, op, t, a, b, rhs);
    lower_unsupported(L, "operator not supported on %s", t->name);
    return NULL;
}

LLVMValueRef lower_unary_scalar(Lower *L, UnaryOp op, Type *t, LLVMValueRef a)
{
    t = ty_strong(t);
    switch (op) {
    case UN_POS: return a;
    case UN_NOT: return LLVMBuildNot(L->b, lower_truth(L, a, t), "");
    case UN_INVERT: return LLVMBuildNot(L->b, a, "");
    case UN_NEG:
        if (ty_is_float(t))
            return LLVMBuildFNeg(L->b, a, "");
        if (ty_is_complex(t))
            return complex_make(L, t, LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, a, 0, ""), ""),
                                LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, a, 1, ""), ""));
        return LLVMBuildNeg(L->b, a, "");
    }
    return NULL;
}

LLVMValueRef lower_compare_scalar(Lower *L, CmpOp op, Type *t, LLVMValueRef a, LLVMValueRef b)
{
    static const LLVMIntPredicate spred[] = {LLVMIntSLT, LLVMIntSLE, LLVMIntEQ, LLVMIntNE, LLVMIntSGT, LLVMIntSGE};
    static const LLVMIntPredicate upred[] = {LLVMIntULT, LLVMIntULE, LLVMIntEQ, LLVMIntNE, LLVMIntUGT, LLVMIntUGE};
    /* NaN compares false, except != which is true (unordered) */
    static const LLVMRealPredicate fpred[] = {LLVMRealOLT, LLVMRealOLE, LLVMRealOEQ, LLVMRealUNE, LLVMRealOGT, LLVMRealOGE};
    t = ty_strong(t);
    if (op > CMP_GE) {
        lower_unsupported(L, "comparison not supported here");
        return NULL;
    }
    if (ty_is_float(t))
        return LLVMBuildFCmp(L->b, fpred[op], a, b, "");
    if (ty_is_complex(t)) {
        if (op != CMP_EQ && op != CMP_NE) {
            lower_unsupported(L, "complex numbers are not ordered");
            return NULL;
        }
        LLVMValueRef re = LLVMBuildFCmp(L->b, fpred[op], LLVMBuildExtractValue(L->b, a, 0, ""),
                                        LLVMBuildExtractValue(L->b, b, 0, ""), "");
        LLVMValueRef im = LLVMBuildFCmp(L->b, fpred[op], LLVMBuildExtractValue(L->b, a, 1, ""),
                                        LLVMBuildExtractValue(L->b, b, 1, ""), "");
        return op == CMP_EQ ? LLVMBuildAnd(L->b, re, im, "") : LLVMBuildOr(L->b, re, im, "");
    }
    if (t->kind == TY_NONE)
        return LLVMConstInt(L->i1, op == CMP_EQ, 0);
    if (ty_is_int(t) && ty_is_signed(t))
        return LLVMBuildICmp(L->b, spred[op], a, b, "");
    if (ty_is_scalar(t))
        return LLVMBuildICmp(L->b, upred[op], a, b, "");
    lower_unsupported(L, "comparison not supported on %s", t->name);
    return NULL;
}

/* ---- counted loops (lower_array.c uses them) ------------------------------------------------ */

LLVMValueRef lower_loop_begin(Lower *L, LoopInfo *lp, LLVMValueRef n)
{
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    lp->n = n;
    lp->head = lower_block(L, "loop");
    lp->body = lower_block(L, "loop.body");
    lp->exit = lower_block(L, "loop.end");
    LLVMBuildBr(L->b, lp->head);
    LLVMPositionBuilderAtEnd(L->b, lp->head);
    lp->i = LLVMBuildPhi(L->b, L->i64, "i");
    LLVMValueRef zero = lower_i64(L, 0);
    LLVMAddIncoming(lp->i, &zero, &pre, 1);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, lp->i, n, ""), lp->body, lp->exit);
    LLVMPositionBuilderAtEnd(L->b, lp->body);
    return lp->i;
}

void lower_loop_end(Lower *L, LoopInfo *lp)
{
    LLVMValueRef next = LLVMBuildNSWAdd(L->b, lp->i, lower_i64(L, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    LLVMAddIncoming(lp->i, &next, &latch, 1);
    LLVMBuildBr(L->b, lp->head);
    LLVMPositionBuilderAtEnd(L->b, lp->exit);
}

/* ---- constants ------------------------------------------------------------------------------ */

static LLVMValueRef const_value(Lower *L, const Const *c, Type *t)
{
    t = ty_strong(t);
    switch (c->kind) {
    case K_BOOL: return lower_cast(L, LLVMConstInt(L->i1, c->b, 0), ty_scalar(TY_BOOL), t);
    case K_INT: return lower_cast(L, lower_i64(L, c->i), ty_scalar(TY_INT64), t);
    case K_FLOAT: return lower_cast(L, LLVMConstReal(L->f64, c->f), ty_scalar(TY_FLOAT64), t);
    case K_COMPLEX: {
        Type *ct = ty_scalar(TY_COMPLEX128);
        LLVMValueRef f[2] = {LLVMConstReal(L->f64, c->c.re), LLVMConstReal(L->f64, c->c.im)};
        return lower_cast(L, LLVMConstStructInContext(L->ctx, f, 2, 0), ct, t);
    }
    case K_NONE: case K_ELLIPSIS: return LLVMConstNull(L->none_ty);
    case K_STR: return t->kind == TY_STR ? lower_str_const(L, c->s) : NULL;
    case K_TUPLE: {
        if (t->kind != TY_TUPLE)
            return NULL;
        LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
        for (int i = 0; i < c->tuple.n && i < t->tuple.n; i++) {
            LLVMValueRef item = const_value(L, c->tuple.items[i], t->tuple.items[i]);
            if (item)
                v = LLVMBuildInsertValue(L->b, v, item, (unsigned)i, "");
        }
        return v;
    }
    case K_ARRAY: {
        /* the host's memory is not the GPU's: a copy in constant memory (and a simulated
         * kernel's copy, so that it too reads the values of its first launch) */
        if (prog_kernel_code(L->prog))
            return lower_gpu_const_array(L, c, t);
        /* a global array, frozen: its shape is baked in, its data address bound at load;
         * borrowed */
        Type *at = t->kind == TY_ARRAY ? t : c->array_type;
        LLVMValueRef sh[ABI_MAX_NDIM], st[ABI_MAX_NDIM];
        for (int k = 0; k < at->array.ndim && k < ABI_MAX_NDIM; k++) {
            sh[k] = lower_i64(L, c->array_shape[k]);
            st[k] = lower_i64(L, c->array_strides[k]);
        }
        LLVMValueRef data = lower_ref(L, REF_ARRAY, c->handle, c->data);
        return lower_array_make(L, at, LLVMConstNull(L->ptr), data, sh, st);
    }
    default: return NULL;   /* strings, modules, functions: compile-time only */
    }
}

/* ---- iteration ------------------------------------------------------------------------------ */

static IterInfo *make_iter(Lower *L, Instr *iterable);

/* A range's iteration state, four int64s. With a step of constant 1 or -1 (range(n),
 * range(a, b)): {cur, -, stop, -}, the canonical loop whose item never wraps (cur < stop), so
 * LLVM knows `range(1, n)` gives no negative index. Any other step: {start, k, n, step}, the k-th
 * of n items being start + k * step, the loop ending on k reaching the trip count computed once
 * (CPython's len(range)): one induction variable and a known trip count whatever the step, so
 * `range(i * i, n + 1, i)` tests neither the step's sign nor int64's end at every step. */
static LLVMTypeRef range_state_type(Lower *L)
{
    LLVMTypeRef f[4] = {L->i64, L->i64, L->i64, L->i64};
    return LLVMStructTypeInContext(L->ctx, f, 4, 0);
}

/* 1 or -1 when range instruction r's step is that constant (no step is 1), else 0. */
static int unit_step(Instr *r)
{
    if (r->op != OP_INTRINSIC || r->sub != BI_RANGE)
        return 0;
    if (r->nargs < 3)
        return 1;
    Instr *k = r->args[2];
    if (k->op != OP_CONST || !k->cst || k->cst->kind != K_INT || (k->cst->i != 1 && k->cst->i != -1))
        return 0;
    return (int)k->cst->i;
}

static LLVMValueRef range_as_state(Lower *L, LLVMValueRef r)
{
    LLVMValueRef st = LLVMGetUndef(range_state_type(L));
    st = LLVMBuildInsertValue(L->b, st, LLVMBuildExtractValue(L->b, r, 0, ""), 0, "");
    return LLVMBuildInsertValue(L->b, st, LLVMBuildExtractValue(L->b, r, 1, ""), 2, "");
}

static LLVMValueRef range_counted(Lower *L, LLVMValueRef r)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef start = LLVMBuildExtractValue(B, r, 0, ""), stop = LLVMBuildExtractValue(B, r, 1, "");
    LLVMValueRef step = LLVMBuildExtractValue(B, r, 2, ""), one = lower_i64(L, 1);
    LLVMValueRef up = LLVMBuildICmp(B, LLVMIntSGT, step, lower_i64(L, 0), "");
    LLVMValueRef nonempty = LLVMBuildSelect(B, up, LLVMBuildICmp(B, LLVMIntSLT, start, stop, ""),
                                            LLVMBuildICmp(B, LLVMIntSGT, start, stop, ""), "");
    /* (|stop - start| - 1) / |step| + 1, all unsigned (the span of two int64 fits a uint64;
     * |INT64_MIN| is 2**63 unsigned) */
    LLVMValueRef span = LLVMBuildSelect(B, up, LLVMBuildSub(B, stop, start, ""), LLVMBuildSub(B, start, stop, ""), "");
    LLVMValueRef mag = LLVMBuildSelect(B, up, step, LLVMBuildNeg(B, step, ""), "");
    LLVMValueRef n = LLVMBuildAdd(B, LLVMBuildUDiv(B, LLVMBuildSub(B, span, one, ""), mag, ""), one, "");
    /* at most 2**63 - 1 trips (more would take centuries), so k + 1 never wraps as a signed int */
    LLVMValueRef most = lower_i64(L, INT64_MAX);
    n = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGT, n, most, ""), most, n, "");
    LLVMValueRef items[4] = {start, lower_i64(L, 0), LLVMBuildSelect(B, nonempty, n, lower_i64(L, 0), ""), step};
    LLVMValueRef st = LLVMGetUndef(range_state_type(L));
    for (unsigned k = 0; k < 4; k++)
        st = LLVMBuildInsertValue(B, st, items[k], k, "");
    return st;
}

/* The iterable an INTRINSIC enumerate/zip was given, or the value itself. */
static IterInfo *make_iter_of(Lower *L, Instr *src)
{
    if (src->op == OP_GETITER)
        src = src->args[0];
    return make_iter(L, src);
}

static IterInfo *make_iter(Lower *L, Instr *iterable)
{
    IterInfo *it = arena_alloc(L->prog->arena, sizeof *it);
    Type *t = iterable->type;
    it->over = t;
    if (iterable->op == OP_INTRINSIC && (iterable->sub == BI_ENUMERATE || iterable->sub == BI_ZIP)) {
        bool en = iterable->sub == BI_ENUMERATE;
        it->kind = en ? IT_ENUMERATE : IT_ZIP;
        it->nsub = en ? 1 : iterable->nargs;
        it->sub = arena_alloc(L->prog->arena, sizeof(IterInfo *) * (size_t)(it->nsub + 1));
        for (int i = 0; i < it->nsub; i++)
            if (!(it->sub[i] = make_iter_of(L, iterable->args[i])))
                return NULL;
        if (en) {
            it->state = lower_alloca(L, L->i64);
            LLVMBuildStore(L->b, lower_i64(L, 0), it->state);
        }
        return it;
    }
    if (t->kind == TY_ITER && iterable->op == OP_GETITER)
        return make_iter(L, iterable->args[0]);
    it->obj = lower_value(L, iterable);
    if (t->kind == TY_RANGE) {
        it->kind = IT_RANGE;
        it->unit_step = unit_step(iterable);
        it->state = lower_alloca(L, range_state_type(L));
        LLVMBuildStore(L->b, it->unit_step ? range_as_state(L, it->obj) : range_counted(L, it->obj), it->state);
        return it;
    }
    if (t->kind == TY_DICT || t->kind == TY_SET) {   /* by entry, its size checked at every step */
        it->kind = IT_DICT;
        it->state = lower_alloca(L, L->i64);
        LLVMBuildStore(L->b, lower_i64(L, 0), it->state);
        it->used0 = lower_dict_len(L, it->obj);
        return it;
    }
    if (t->kind == TY_NDITER) {   /* by flat index in C order (lower_nditer.c) */
        it->kind = IT_NDITER;
        it->state = lower_alloca(L, L->i64);
        LLVMBuildStore(L->b, lower_i64(L, 0), it->state);
        return it;
    }
    if (t->kind == TY_LIST || t->kind == TY_STR) {   /* by index, the length read at every step as CPython does */
        it->kind = t->kind == TY_LIST ? IT_LIST : IT_STR;
        it->state = lower_alloca(L, L->i64);
        LLVMBuildStore(L->b, lower_i64(L, 0), it->state);
        return it;
    }
    if (t->kind == TY_ARRAY || t->kind == TY_TUPLE) {
        if (t->kind == TY_TUPLE)
            for (int i = 1; i < t->tuple.n; i++)
                if (t->tuple.items[i] != t->tuple.items[0]) {
                    lower_unsupported(L, "iterating over a heterogeneous tuple %s is not supported "
                                      "(its items have different types)", t->name);
                    return NULL;
                }
        it->kind = t->kind == TY_ARRAY ? IT_ARRAY : IT_TUPLE;
        it->state = lower_alloca(L, L->i64);
        LLVMBuildStore(L->b, lower_i64(L, 0), it->state);
        return it;
    }
    lower_unsupported(L, "cannot iterate over %s", t->name);
    return NULL;
}

/* The i-th item of a homogeneous tuple, i in range. */
static LLVMValueRef tuple_item(Lower *L, Type *tt, LLVMValueRef tup, LLVMValueRef i)
{
    LLVMValueRef tmp = lower_alloca(L, lower_type(L, tt));
    LLVMBuildStore(L->b, tup, tmp);
    LLVMTypeRef et = lower_type(L, tt->tuple.items[0]);
    LLVMValueRef idx[2] = {lower_i64(L, 0), i};
    LLVMValueRef p = LLVMBuildInBoundsGEP2(L->b, LLVMArrayType(et, (unsigned)tt->tuple.n), tmp, idx, 2, "");
    return LLVMBuildLoad2(L->b, et, p, "");
}

/* Advances it: branches to done when exhausted, else continues (in a new block) with the item. */
static LLVMValueRef iter_next(Lower *L, IterInfo *it, Type *item_t, LLVMBasicBlockRef done, Instr *owner)
{
    LLVMBuilderRef B = L->b;
    LLVMBasicBlockRef more = lower_block(L, "iter.next");
    LLVMValueRef item = NULL;
    switch (it->kind) {
    case IT_RANGE: {   /* range_state_type */
        LLVMTypeRef rt = range_state_type(L);
        LLVMValueRef f[4];
        for (unsigned k = 0; k < 4; k++)
            f[k] = LLVMBuildLoad2(B, L->i64, LLVMBuildStructGEP2(B, rt, it->state, k, ""), "");
        if (it->unit_step) {
            bool up = it->unit_step > 0;
            LLVMBuildCondBr(B, LLVMBuildICmp(B, up ? LLVMIntSLT : LLVMIntSGT, f[0], f[2], ""), more, done);
            LLVMPositionBuilderAtEnd(B, more);
            LLVMBuildStore(B, LLVMBuildNSWAdd(B, f[0], lower_i64(L, it->unit_step), ""),
                           LLVMBuildStructGEP2(B, rt, it->state, 0, ""));
            return lower_cast(L, f[0], ty_scalar(TY_INT64), item_t);
        }
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, f[1], f[2], ""), more, done);
        LLVMPositionBuilderAtEnd(B, more);
        LLVMBuildStore(B, LLVMBuildNSWAdd(B, f[1], lower_i64(L, 1), ""), LLVMBuildStructGEP2(B, rt, it->state, 1, ""));
        return lower_cast(L, LLVMBuildAdd(B, f[0], LLVMBuildMul(B, f[1], f[3], ""), ""), ty_scalar(TY_INT64), item_t);
    }
    case IT_LIST: {
        LLVMValueRef i = LLVMBuildLoad2(B, L->i64, it->state, "");
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i, lower_list_len(L, it->obj), ""), more, done);
        LLVMPositionBuilderAtEnd(B, more);
        LLVMBuildStore(B, LLVMBuildNSWAdd(B, i, lower_i64(L, 1), ""), it->state);
        return lower_list_next(L, owner, it->obj, i);
    }
    case IT_STR: {
        LLVMValueRef i = LLVMBuildLoad2(B, L->i64, it->state, "");
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i, lower_str_len(L, it->obj), ""), more, done);
        LLVMPositionBuilderAtEnd(B, more);
        LLVMBuildStore(B, LLVMBuildNSWAdd(B, i, lower_i64(L, 1), ""), it->state);
        return lower_str_item(L, owner, it->obj, i);
    }
    case IT_DICT: {
        item = lower_dict_next(L, it->over, it->obj, it->state, it->used0, done);
        LLVMBuildBr(B, more);
        LLVMPositionBuilderAtEnd(B, more);
        Type *key = it->over->kind == TY_DICT ? it->over->dict.key : it->over->set.item;
        if (lower_is_counted(key)) {   /* a string key: the loop variable's own reference */
            lower_incref_value(L, key, item);
            lower_own_value(L, owner, key, item);
        }
        return item;
    }
    case IT_ARRAY:
    case IT_TUPLE: {
        LLVMValueRef i = LLVMBuildLoad2(B, L->i64, it->state, "");
        LLVMValueRef n = it->kind == IT_ARRAY ? lower_array_dim(L, it->obj, 0) : lower_i64(L, it->over->tuple.n);
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i, n, ""), more, done);
        LLVMPositionBuilderAtEnd(B, more);
        LLVMBuildStore(B, LLVMBuildNSWAdd(B, i, lower_i64(L, 1), ""), it->state);
        if (it->kind == IT_TUPLE)
            return tuple_item(L, it->over, it->obj, i);
        Type *at = it->over;
        if (at->array.ndim == 1) {
            LLVMValueRef off = LLVMBuildMul(B, i, lower_array_stride(L, at, it->obj, 0), "");
            LLVMValueRef p = LLVMBuildInBoundsGEP2(B, L->i8, lower_array_data(L, it->obj), &off, 1, "");
            if (at->array.dtype->kind == TY_RECORD)
                return lower_record_in(L, owner, at->array.dtype, LLVMBuildExtractValue(B, it->obj, 0, ""), p);
            return lower_array_element(L, owner, at->array.dtype, p);
        }
        item = lower_array_subview(L, at, it->obj, i, item_t);
        lower_incref(L, LLVMBuildExtractValue(B, item, 0, ""));
        if (owner)
            lower_own(L, owner, item);
        return item;
    }
    case IT_NDITER: {
        LLVMValueRef i = LLVMBuildLoad2(B, L->i64, it->state, "");
        LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntSLT, i, lower_nditer_size(L, it->over, it->obj), ""),
                        more, done);
        LLVMPositionBuilderAtEnd(B, more);
        LLVMBuildStore(B, LLVMBuildNSWAdd(B, i, lower_i64(L, 1), ""), it->state);
        return lower_nditer_item(L, it->over, it->obj, i, item_t, owner);
    }
    case IT_ENUMERATE: {
        LLVMBuildBr(B, more);
        LLVMPositionBuilderAtEnd(B, more);
        Type *inner_t = item_t->kind == TY_TUPLE && item_t->tuple.n == 2 ? item_t->tuple.items[1] : NULL;
        LLVMValueRef x = inner_t ? iter_next(L, it->sub[0], inner_t, done, NULL) : NULL;
        if (!x)
            return NULL;
        LLVMValueRef cnt = LLVMBuildLoad2(B, L->i64, it->state, "");
        LLVMBuildStore(B, LLVMBuildAdd(B, cnt, lower_i64(L, 1), ""), it->state);
        item = LLVMGetUndef(lower_type(L, item_t));
        item = LLVMBuildInsertValue(B, item, lower_cast(L, cnt, ty_scalar(TY_INT64), item_t->tuple.items[0]), 0, "");
        return LLVMBuildInsertValue(B, item, x, 1, "");
    }
    case IT_ZIP: {
        LLVMBuildBr(B, more);
        LLVMPositionBuilderAtEnd(B, more);
        if (item_t->kind != TY_TUPLE || item_t->tuple.n != it->nsub) {
            lower_unsupported(L, "zip() item type %s does not match its arguments", item_t->name);
            return NULL;
        }
        item = LLVMGetUndef(lower_type(L, item_t));
        for (int k = 0; k < it->nsub; k++) {
            LLVMValueRef x = iter_next(L, it->sub[k], item_t->tuple.items[k], done, NULL);
            if (!x)
                return NULL;
            item = LLVMBuildInsertValue(B, item, x, (unsigned)k, "");
        }
        return item;
    }
    }
    return NULL;
}

/* The GETITER an iterator value comes from, looking through the loop-header phis that carry it. */
static Instr *iter_source(Instr *v)
{
    for (int guard = 0; v && v->op == OP_PHI && guard < 64; guard++) {
        Instr *next = NULL;
        for (int i = 0; i < v->nargs; i++)
            if (v->args[i] != v && !(v->args[i]->op == OP_CONST && v->args[i]->cst->kind == K_UNDEFINED)) {
                next = v->args[i];
                break;
            }
        v = next;
    }
    return v && v->op == OP_GETITER ? v : NULL;
}

/* next(it[, default]): the step a for loop over it takes, its end raising StopIteration or
 * giving the default. */
LLVMValueRef lower_bi_iter(Lower *L, Instr *in, Builtin bi)
{
    Instr *src = bi == BI_NEXT ? iter_source(in->args[0]) : NULL;
    IterInfo *it = src ? L->iters[src->id] : NULL;
    if (!it) {
        lower_unsupported(L, "next() of an iterator pyjit cannot follow");
        return NULL;
    }
    LLVMBasicBlockRef done = lower_block(L, "next.done");
    LLVMValueRef item = iter_next(L, it, in->type, done, in);
    if (!item)
        return NULL;
    LLVMBasicBlockRef got = LLVMGetInsertBlock(L->b);
    if (in->nargs < 2) {
        LLVMPositionBuilderAtEnd(L->b, done);
        fill_exc(L, ABI_EXC_STOP_ITERATION, NULL, NULL, NULL, 0);
        LLVMPositionBuilderAtEnd(L->b, got);
        return item;
    }
    LLVMBasicBlockRef join = lower_block(L, "next.join");
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, done);
    LLVMValueRef dflt = lower_value(L, in->args[1]);
    LLVMBuildBr(L->b, join);
    LLVMPositionBuilderAtEnd(L->b, join);
    LLVMValueRef phi = LLVMBuildPhi(L->b, LLVMTypeOf(item), "");
    LLVMValueRef vals[2] = {item, dflt};
    LLVMBasicBlockRef from[2] = {got, done};
    LLVMAddIncoming(phi, vals, from, 2);
    return phi;
}

/* ---- instructions --------------------------------------------------------------------------- */

/* The text of an exception argument known when compiling: a string constant, or a value of a
 * constant string's type (a variable given the same text on every path, a phi of constants);
 * NULL for a string made at run time or a number. */
static const char *exc_const_text(const Instr *a)
{
    if (a->op == OP_CONST && a->cst->kind == K_STR)
        return a->cst->s;
    if (a->type && a->type->kind == TY_STRING && a->type->literal &&
        a->type->literal->kind == K_STR)
        return a->type->literal->s;
    return NULL;
}

/* The class and message of a RAISE argument: a class, or a class called with a constant string. */
static void exc_parts(Instr *e, void **cls, const char **msg)
{
    *cls = NULL;
    *msg = NULL;
    if (e->op == OP_CALL && e->nargs >= 1) {
        for (int i = 1; i < e->nargs && !*msg; i++)
            *msg = exc_const_text(e->args[i]);
        e = e->args[0];
    }
    if (e->op == OP_CONST && e->cst)
        *cls = e->cst->handle;
    else if (e->type && e->type->kind == TY_EXCCLASS && e->type->literal)
        *cls = e->type->literal->handle;
}

/* Whether the exception is built with its arguments as a tuple (anything but none or one
 * constant string, which the plain message carries). */
static bool exc_needs_args_spec(Instr *e)
{
    if (e->op != OP_CALL || e->nargs < 2)
        return false;
    return e->nargs > 2 || !exc_const_text(e->args[1]);
}

/* One numeric exception argument into its int64 slot(s) (abi.h: ExcInfo.args); its code in the
 * spec says how errors.c reads it back: i/u an integer, b a bool, f a float's bits, c two. */
static int exc_numeric_arg(Lower *L, Instr *a, LLVMValueRef *slots, char *code)
{
    Type *t = ty_strong(a->type);
    LLVMValueRef v = lower_value(L, a);
    if (ty_is_complex(t)) {
        Type *ft = ty_scalar(t->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
        for (unsigned k = 0; k < 2; k++)
            slots[k] = LLVMBuildBitCast(L->b, lower_cast(L, LLVMBuildExtractValue(L->b, v, k, ""), ft,
                                                         ty_scalar(TY_FLOAT64)), L->i64, "");
        *code = 'c';
        return 2;
    }
    if (ty_is_float(t)) {
        slots[0] = LLVMBuildBitCast(L->b, lower_cast(L, v, t, ty_scalar(TY_FLOAT64)), L->i64, "");
        *code = 'f';
    } else if (t->kind == TY_BOOL) {
        slots[0] = LLVMBuildZExt(L->b, v, L->i64, "");
        *code = 'b';
    } else {
        slots[0] = LLVMBuildIntCast2(L->b, v, L->i64, ty_is_signed(t), "");
        *code = ty_is_signed(t) ? 'i' : 'u';
    }
    return 1;
}

/* A string made at run time: its MemInfo, with a reference of its own that errors.c takes over
 * when it builds the exception (the value's own is released as the function exits). */
static int exc_str_arg(Lower *L, Instr *a, LLVMValueRef *slots, char *code)
{
    LLVMValueRef v = lower_value(L, a);
    lower_incref_value(L, a->type, v);
    slots[0] = LLVMBuildPtrToInt(L->b, LLVMBuildExtractValue(L->b, v, 0, ""), L->i64, "");
    *code = 'S';
    return 1;
}

/* raise E(a, b, ...): the message is a spec of the argument tuple (ABI_EXC_ARGS_SPEC, then per
 * argument "s<len>:<text>" for a constant string or one letter for a number in the next slots),
 * which errors.c turns into E(*args): .args and str() as CPython gives them. */
static void raise_with_args(Lower *L, void *cls, Instr *e)
{
    char spec[1024];
    size_t n = 0;
    LLVMValueRef slots[4];
    int nslots = 0;
    spec[n++] = ABI_EXC_ARGS_SPEC;
    for (int i = 1; i < e->nargs; i++) {
        Instr *a = e->args[i];
        const char *text = exc_const_text(a);
        if (text) {
            int w = snprintf(spec + n, sizeof spec - n, "s%zu:%s", strlen(text), text);
            if (w < 0 || (size_t)w >= sizeof spec - n) {
                lower_unsupported(L, "exception arguments too long");
                return;
            }
            n += (size_t)w;
            continue;
        }
        LLVMValueRef v[2];
        char code;
        int k = a->type->kind == TY_STR ? exc_str_arg(L, a, v, &code) : exc_numeric_arg(L, a, v, &code);
        if (nslots + k > 4 || n + 2 > sizeof spec) {
            lower_unsupported(L, "more than 4 numbers and strings in an exception's arguments");
            return;
        }
        for (int j = 0; j < k; j++)
            slots[nslots++] = v[j];
        spec[n++] = code;
    }
    spec[n] = '\0';
    fill_exc(L, ABI_EXC_USER, cls, spec, slots, nslots);
}

static void lower_raise(Lower *L, Instr *in)
{
    if (in->args[0]->type->kind == TY_CAUGHT) {
        lower_reraise(L, in);
        return;
    }
    void *cls;
    const char *msg;
    exc_parts(in->args[0], &cls, &msg);
    /* a kernel prints its message (lower_gpu.c): the first string is what it has to say */
    if (!L->t->is_gpu && exc_needs_args_spec(in->args[0])) {
        raise_with_args(L, cls, in->args[0]);
        return;
    }
    fill_exc(L, ABI_EXC_USER, cls, msg, NULL, 0);
}

/* Whether a function returning t returns nothing at run time: None, or a dtype (which its
 * caller knows from the type). */
static bool returns_nothing(const Type *t)
{
    return !t || t->kind == TY_NONE || t->kind == TY_DTYPE;
}

static void lower_ret(Lower *L, Instr *in)
{
    Type *rt = L->tf->ret;
    if (in->nargs > 0 && !returns_nothing(rt)) {
        LLVMValueRef v = lower_value(L, in->args[0]);
        if (v) {
            lower_incref_value(L, rt, v);
            lower_store_mem(L, rt, v, L->ret_ptr);
        }
    }
    LLVMBuildBr(L->b, L->ret_bb);
}

/* A call of fn, of native type fnty (abi.h: int32 f(RetT *ret, ExcInfo *exc, args...)), with
 * the n values args returning rt; an error status leaves for the error block. */
static LLVMValueRef call_native(Lower *L, Instr *in, LLVMTypeRef fnty, LLVMValueRef fn, Instr **args,
                                int n, Type *rt)
{
    LLVMValueRef vals[n + 2];
    LLVMTypeRef rmem = !returns_nothing(rt) ? lower_type(L, rt) : L->i8;
    vals[0] = lower_alloca(L, rmem);
    vals[1] = L->exc_ptr;
    for (int i = 0; i < n; i++) {
        LLVMValueRef v = lower_value(L, args[i]);
        if (args[i]->type->kind == TY_ARRAY) {
            LLVMValueRef tmp = lower_alloca(L, LLVMTypeOf(v));
            LLVMBuildStore(L->b, v, tmp);
            v = tmp;
        }
        vals[i + 2] = v ? v : LLVMConstNull(L->none_ty);
    }
    LLVMValueRef st = LLVMBuildCall2(L->b, fnty, fn, vals, (unsigned)n + 2, "");
    LLVMBasicBlockRef cont = lower_block(L, "call.ok");
    mark_unlikely(L, LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, st, LLVMConstInt(L->i32, 0, 0), ""),
                                     L->err_bb, cont));
    LLVMPositionBuilderAtEnd(L->b, cont);
    if (returns_nothing(rt))
        return LLVMConstNull(L->none_ty);
    return lower_own_returned(L, in, rt, lower_load_mem(L, rt, vals[0]));
}

static LLVMValueRef lower_call_jit(Lower *L, Instr *in)
{
    TypedFunc *callee = in->callee;
    LLVMValueRef fn = callee ? callee->aux : NULL;
    if (!fn) {
        lower_unsupported(L, "call of a function outside this compilation");
        return NULL;
    }
    return call_native(L, in, LLVMGlobalGetValueType(fn), fn, in->args, in->nargs, callee->ret);
}

static LLVMTypeRef native_fn_type(Lower *L, TypedFunc *tf);

/* The address of a function of this module, for a first-class function value. */
static LLVMValueRef lower_func_addr(Lower *L, Instr *in)
{
    if (!in->callee || !in->callee->aux) {
        lower_unsupported(L, "address of a function outside this compilation");
        return NULL;
    }
    return in->callee->aux;
}

/* A call through a first-class function value: its native type is that of any compiled function
 * of its signature. */
static LLVMValueRef lower_call_ptr(Lower *L, Instr *in)
{
    Type *ft = in->args[0]->type;
    TypedFunc sig = {.argtypes = ft->fn.args, .nargs = ft->fn.n, .ret = ft->fn.ret};
    return call_native(L, in, native_fn_type(L, &sig), lower_value(L, in->args[0]), in->args + 1,
                       in->nargs - 1, ft->fn.ret);
}

LLVMValueRef lower_own_returned(Lower *L, Instr *in, Type *rt, LLVMValueRef r)
{
    own_result(L, in, rt, r);   /* the callee returned new references */
    return r;
}

static LLVMValueRef lower_build_slice(Lower *L, Instr *in)
{
    LLVMValueRef v = LLVMGetUndef(lower_type(L, in->type));
    static const int64_t defaults[3] = {0, 0, 1};
    for (int k = 0; k < 3; k++) {
        Instr *a = k < in->nargs ? in->args[k] : NULL;
        bool present = a && a->type->kind != TY_NONE;
        LLVMValueRef x = present ? lower_cast(L, lower_value(L, a), a->type, ty_scalar(TY_INT64))
                                 : lower_i64(L, defaults[k]);
        v = LLVMBuildInsertValue(L->b, v, x, (unsigned)k, "");
        if (k < 2)
            v = LLVMBuildInsertValue(L->b, v, LLVMConstInt(L->i1, present, 0), (unsigned)(3 + k), "");
        if (k == 2 && present)
            lower_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, x, lower_i64(L, 0), ""), ABI_EXC_VALUE,
                        "slice step cannot be zero", NULL, 0);
    }
    return v;
}

static LLVMValueRef lower_tuple_get(Lower *L, Instr *in)
{
    Type *tt = in->args[0]->type;
    LLVMValueRef i = lower_value(L, in->args[1]), n = lower_i64(L, tt->tuple.n);
    i = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, lower_i64(L, 0), ""),
                        LLVMBuildAdd(L->b, i, n, ""), i, "");
    lower_check(L, LLVMBuildICmp(L->b, LLVMIntUGE, i, n, ""), ABI_EXC_INDEX, "tuple index out of range",
                NULL, 0);
    if (tt->tuple.n == 0)   /* a 0-d array's shape: the check above always raises */
        return LLVMGetUndef(lower_type(L, in->type));
    LLVMValueRef v = tuple_item(L, tt, lower_value(L, in->args[0]), i);
    if (ty_holds_meminfo(in->type)) {
        lower_incref(L, LLVMBuildExtractValue(L->b, v, 0, ""));
        lower_own(L, in, v);
    }
    return v;
}

/* ---- bounds checks hoisted out of range loops ------------------------------------------------
 *
 * An index that is a range loop's variable plus or minus a constant, into an array defined
 * before the loop, takes values whose least and greatest are known before the loop runs. Each
 * such loop computes one flag at the start of its body, "every such index in the loop is in
 * bounds", from the range and the arrays' shapes; the checks it covers test it first. The flag
 * is loop-invariant: the optimiser hoists it and versions the loop on it, so a loop whose
 * indices fit runs with no check at all, and stays a single-exit loop that the loop
 * optimisations accept (vectorising; forwarding a value stored in one iteration to the load of
 * the next, as in a prefix sum). The checked version runs otherwise, and raises where the
 * unhoisted check would: nothing is raised early. Only innermost loops are versioned (a loop
 * nest's hot code, and one more copy of it, not one per level): their flag includes the flags of
 * the loops around them, so it covers indices by any variable of the nest; checks in outer loops
 * stay where they are. An index below zero at the first trip (`x[i - 1]` from 0) is covered
 * where it stays in [-n, n), and keeps its wrap; a remainder `e % d` by a value fixed before the
 * loop (periodic boundaries) where 0 < d <= n. */

/* Whether int64 ix is s * loop + k, loop's variable times a small constant s plus a value k that
 * does not change in the loop: sums, differences and products of the variable, constants and
 * values defined outside the loop (`i - 1`, `i - rise - flat`, `n - 1 - i`, `2 * i + off`). k is
 * built at the builder as the program computes it, modulo 2**64: if s * loop + k, taken exactly,
 * stays in [0, n) over the range, the index the program computes is that value. *s is 0 when ix
 * does not depend on the loop. With consts, k may hold constants only. */
static bool loop_affine(Lower *L, Instr *ix, Instr *loop, const bool *in_loop, bool consts, int depth,
                        int64_t *s, LLVMValueRef *k)
{
    if (ix->type != ty_scalar(TY_INT64) || depth > 6)
        return false;
    *s = 0;
    if (ix == loop) {
        *s = 1;
        *k = lower_i64(L, 0);
        return true;
    }
    if (ix->op == OP_CONST) {
        *k = ix->cst && ix->cst->kind == K_INT ? lower_i64(L, ix->cst->i) : NULL;
        return *k != NULL;
    }
    if (!consts && !in_loop[((BlockInfo *)ix->block->aux)->index]) {   /* defined before the loop */
        *k = L->vals[ix->id];
        return *k != NULL;
    }
    if (ix->op != OP_BINOP || (ix->sub != BIN_ADD && ix->sub != BIN_SUB && ix->sub != BIN_MUL))
        return false;
    int64_t sa, sb;
    LLVMValueRef ka, kb;
    if (!loop_affine(L, ix->args[0], loop, in_loop, consts, depth + 1, &sa, &ka) ||
        !loop_affine(L, ix->args[1], loop, in_loop, consts, depth + 1, &sb, &kb))
        return false;
    if (ix->sub == BIN_MUL) {   /* by a small constant when the loop's variable is in it */
        Instr *c = sa ? ix->args[1] : ix->args[0];
        if (sa && sb)
            return false;
        if (sa || sb) {
            if (c->op != OP_CONST || c->cst->i < -(1 << 16) || c->cst->i > (1 << 16))
                return false;
            *s = (sa + sb) * c->cst->i;
        }
        *k = LLVMBuildMul(L->b, ka, kb, "");
        return true;
    }
    *s = ix->sub == BIN_ADD ? sa + sb : sa - sb;
    *k = ix->sub == BIN_ADD ? LLVMBuildAdd(L->b, ka, kb, "") : LLVMBuildSub(L->b, ka, kb, "");
    return *s >= -(1 << 16) && *s <= (1 << 16);
}

/* Whether the least value of c * i + off over FOR_ITER loop's range is negative whatever the range's
 * stop, known at compile time: the range starts at a constant and counts up by a constant, c and
 * off are constants, c > 0 (`x[i - 1]` for i in range(n): -1 at the first trip). */
static bool starts_below_zero(Instr *loop, int64_t c, LLVMValueRef off)
{
    Instr *src = iter_source(loop->args[0]);
    Instr *r = src ? src->args[0] : NULL;
    if (c <= 0 || !LLVMIsAConstantInt(off) || !r || r->op != OP_INTRINSIC || r->sub != BI_RANGE)
        return false;
    int64_t start = 0, step = 1;
    if (r->nargs >= 2) {
        Instr *a = r->args[0];
        if (a->op != OP_CONST || !a->cst || a->cst->kind != K_INT)
            return false;
        start = a->cst->i;
    }
    if (r->nargs == 3) {
        Instr *a = r->args[2];
        if (a->op != OP_CONST || !a->cst || a->cst->kind != K_INT)
            return false;
        step = a->cst->i;
    }
    if (step <= 0 || start < -(1 << 20) || start > (1 << 20))
        return false;
    return (__int128)c * start + LLVMConstIntGetSExtValue(off) < 0;
}

/* Whether int64 ix is e % d with d defined before FOR_ITER loop (or a constant): Python's
 * remainder by d > 0 lies in [0, d), whatever e, so `(j + 1) % n` (periodic boundaries) is in
 * bounds of an axis of at least d items. */
static LLVMValueRef mod_divisor(Lower *L, Instr *ix, const bool *in_loop)
{
    if (ix->op != OP_BINOP || ix->sub != BIN_MOD || ix->type != ty_scalar(TY_INT64) ||
        ix->args[1]->type != ty_scalar(TY_INT64))
        return NULL;
    Instr *d = ix->args[1];
    if (d->op == OP_CONST)
        return d->cst && d->cst->kind == K_INT ? lower_i64(L, d->cst->i) : NULL;
    return in_loop[((BlockInfo *)d->block->aux)->index] ? NULL : L->vals[d->id];
}

/* Whether the blocks in_loop call a compiled function (one of the program's or the library's)
 * or a builtin over an array (np.mean(a), a.sum()): code that brings loops of its own. */
static bool calls_compiled(Lower *L, const bool *in_loop)
{
    for (int bi = 0; bi < L->ir->blocks.len; bi++) {
        Block *blk = L->ir->blocks.items[bi];
        for (int j = 0; in_loop[bi] && j < blk->instrs.len; j++) {
            Instr *in = blk->instrs.items[j];
            if (in->op == OP_CALL_JIT)
                return true;
            for (int k = 0; in->op == OP_INTRINSIC && in->sub != BI_LEN && k < in->nargs; k++)
                if (in->args[k]->type && in->args[k]->type->kind == TY_ARRAY)
                    return true;
        }
    }
    return false;
}

/* Whether FOR_ITER loop runs over a range of constant bounds. */
static bool constant_range(Instr *loop)
{
    Instr *src = iter_source(loop->args[0]);
    Instr *r = src ? src->args[0] : NULL;
    if (!r || r->op != OP_INTRINSIC || r->sub != BI_RANGE)
        return false;
    for (int k = 0; k < r->nargs; k++)
        if (r->args[k]->op != OP_CONST)
            return false;
    return true;
}

/* Marks in seen the blocks reachable from start without passing the block avoid. */
static void reach_avoiding(Lower *L, Block *start, Block *avoid, bool *seen)
{
    Block **stack = arena_alloc(L->prog->arena, sizeof(Block *) * (size_t)L->ir->blocks.len);
    int sp = 0;
    stack[sp++] = start;
    seen[((BlockInfo *)start->aux)->index] = true;
    while (sp) {
        Block *b = stack[--sp], *succs[3];
        int n = ir_successors(b, succs);
        for (int k = 0; k < n; k++) {
            Block *s = succs[k];
            if (s && s != avoid && !seen[((BlockInfo *)s->aux)->index]) {
                seen[((BlockInfo *)s->aux)->index] = true;
                stack[sp++] = s;
            }
        }
    }
}

/* The blocks of the loop whose header holds the FOR_ITER loop: those its body reaches without
 * passing the header that lead back to it, and that the header dominates (not reached from the
 * entry around it: a `break` leading round an outer loop to another loop is not this one's).
 * in_loop is by block index. */
static void loop_blocks(Lower *L, Instr *loop, bool *in_loop)
{
    int n = L->ir->blocks.len;
    Block *head = loop->block;
    bool *fwd = arena_alloc(L->prog->arena, (size_t)n), *around = arena_alloc(L->prog->arena, (size_t)n);
    Block **stack = arena_alloc(L->prog->arena, sizeof(Block *) * (size_t)n);
    int sp = 0;
    reach_avoiding(L, loop->succ[0], head, fwd);   /* forward from the body, stopping at the header */
    if (head != L->ir->blocks.items[0])
        reach_avoiding(L, L->ir->blocks.items[0], head, around);
    for (int i = 0; i < n; i++)
        fwd[i] &= !around[i];
    in_loop[((BlockInfo *)head->aux)->index] = true;
    for (int i = 0; i < head->preds.len; i++) {   /* back from the latches, within fwd */
        Block *p = head->preds.items[i];
        if (fwd[((BlockInfo *)p->aux)->index] && !in_loop[((BlockInfo *)p->aux)->index]) {
            in_loop[((BlockInfo *)p->aux)->index] = true;
            stack[sp++] = p;
        }
    }
    while (sp) {
        Block *b = stack[--sp];
        for (int i = 0; i < b->preds.len; i++) {
            Block *p = b->preds.items[i];
            int pi = ((BlockInfo *)p->aux)->index;
            if (fwd[pi] && !in_loop[pi]) {
                in_loop[pi] = true;
                stack[sp++] = p;
            }
        }
    }
}

static bool has_none_index(const Instr *access, int nidx)
{
    for (int k = 0; k < nidx; k++)
        if (access->args[1 + k]->type->kind == TY_NONE)
            return true;
    return false;
}

/* Whether block blk of the loop of FOR_ITER loop runs on every trip that comes back to the
 * header: the header cannot be reached from the body's start, within the loop, without it. */
static bool runs_every_trip(Lower *L, Instr *loop, const bool *in_loop, Block *blk)
{
    Block *head = loop->block, *start = loop->succ[0];
    if (blk == start || blk == head)
        return true;
    int n = L->ir->blocks.len, sp = 0;
    bool *seen = arena_alloc(L->prog->arena, (size_t)n);
    Block **stack = arena_alloc(L->prog->arena, sizeof(Block *) * (size_t)n);
    stack[sp++] = start;
    seen[((BlockInfo *)start->aux)->index] = true;
    while (sp) {
        Block *b = stack[--sp], *succs[3];
        int ns = ir_successors(b, succs);
        for (int k = 0; k < ns; k++) {
            Block *x = succs[k];
            if (x == head)
                return false;   /* back round without blk */
            int xi = x ? ((BlockInfo *)x->aux)->index : -1;
            if (x && x != blk && in_loop[xi] && !seen[xi]) {
                seen[xi] = true;
                stack[sp++] = x;
            }
        }
    }
    return true;
}

/* The int64 operand of a comparison of an int64 with a float64, or NULL. */
static Instr *int_of_int_float_compare(Instr *in)
{
    if (in->op != OP_COMPARE || in->sub > CMP_GE || in->nargs != 2)
        return NULL;
    Type *a = in->args[0]->type, *b = in->args[1]->type;
    if (!a || !b)   /* compile-time values */
        return NULL;
    if (a->kind == TY_INT64 && b->kind == TY_FLOAT64)
        return in->args[0];
    return a->kind == TY_FLOAT64 && b->kind == TY_INT64 ? in->args[1] : NULL;
}

/* For a comparison of an int64 with a float64 in the loop of FOR_ITER loop whose int is s * loop
 * + k (loop_affine): the flag "every value it takes over the range is within 2**53 of zero",
 * where a float64 holds it exactly and the comparison in float64 is the exact one
 * (compare_int_float). The flag is loop-invariant: LLVM versions the loop on it, and the version
 * that runs compares as Numba does, in one float compare. lo and hi are the range's least and
 * greatest values (i128). A loop nested deeper, lowered later, puts its own flag in place. */
static LLVMValueRef within_2_53(Lower *L, Instr *ii, Instr *loop, const bool *in_loop, bool consts,
                                LLVMValueRef lo, LLVMValueRef hi, int depth)
{
    int64_t c;
    LLVMValueRef off;
    if (depth > 4)
        return NULL;
    if (ii->op == OP_BINOP && ii->sub == BIN_MOD && ii->type == ty_scalar(TY_INT64))   /* |i % d| < |d| */
        return within_2_53(L, ii->args[1], loop, in_loop, consts, lo, hi, depth + 1);
    if (!loop_affine(L, ii, loop, in_loop, consts, 0, &c, &off))
        return NULL;
    LLVMBuilderRef B = L->b;
    LLVMTypeRef w = LLVMTypeOf(lo);
    LLVMValueRef cw = LLVMConstInt(w, (unsigned long long)c, 1), ow = LLVMBuildSExt(B, off, w, "");
    LLVMValueRef least = LLVMBuildAdd(B, LLVMBuildMul(B, c > 0 ? lo : hi, cw, ""), ow, "");
    LLVMValueRef most = LLVMBuildAdd(B, LLVMBuildMul(B, c > 0 ? hi : lo, cw, ""), ow, "");
    LLVMValueRef limit = LLVMConstInt(w, 1ULL << 53, 0);
    return LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, least, LLVMBuildNeg(B, limit, ""), ""),
                        LLVMBuildICmp(B, LLVMIntSLE, most, limit, ""), "");
}

static void flag_exact_compare(Lower *L, Instr *in, Instr *loop, const bool *in_loop, bool consts,
                               LLVMValueRef lo, LLVMValueRef hi)
{
    Instr *ii = int_of_int_float_compare(in);
    LLVMValueRef flag = ii && L->exact_cmp ? within_2_53(L, ii, loop, in_loop, consts, lo, hi, 0) : NULL;
    if (flag)
        L->exact_cmp[in->id] = flag;
}

/* For the range loop of FOR_ITER loop (the builder at the start of its body): its flag, with its
 * enclosing loop's, in L->loop_fits; the axes it covers marked in L->fits_axes, and itself as
 * the innermost loop of each access and loop in its body. */
static void hoist_loop_checks(Lower *L, Instr *loop, IterInfo *it)
{
    if (it->kind != IT_RANGE || loop->type != ty_scalar(TY_INT64))
        return;
    bool *in_loop = arena_alloc(L->prog->arena, (size_t)L->ir->blocks.len);
    loop_blocks(L, loop, in_loop);
    LLVMBuilderRef B = L->b;
    LLVMTypeRef w = LLVMInt128TypeInContext(L->ctx);   /* the range's ends plus c cannot overflow */
    LLVMValueRef start = LLVMBuildExtractValue(B, it->obj, 0, ""), stop = LLVMBuildExtractValue(B, it->obj, 1, "");
    LLVMValueRef up = LLVMBuildICmp(B, LLVMIntSGT, LLVMBuildExtractValue(B, it->obj, 2, ""), lower_i64(L, 0), "");
    LLVMValueRef one = LLVMConstInt(w, 1, 0), s = LLVMBuildSExt(B, start, w, ""), e = LLVMBuildSExt(B, stop, w, "");
    LLVMValueRef lo = LLVMBuildSelect(B, up, s, LLVMBuildAdd(B, e, one, ""), "");   /* the least value */
    LLVMValueRef hi = LLVMBuildSelect(B, up, LLVMBuildSub(B, e, one, ""), s, "");   /* the greatest */
    Instr *outer = L->inner_loop[loop->id];
    LLVMValueRef fits = outer && L->loop_fits ? L->loop_fits[outer->id] : NULL;
    /* A loop of constant bounds (a stencil's `for dj in range(-1, 2)`) is unrolled whole, and its
     * flag is then tested in the loop around it: offsets by values of that loop (`j + dj`) would
     * make the flag change there, and keep the checks it covers (and the loop's vectorisation) */
    bool few = constant_range(loop);
    /* Wrapping indices and remainders widen what the flag covers, where the loop will be split
     * on it. A loop calling compiled code grows by what LLVM inlines past what unswitching copies
     * (stumpy's rolling variance calls np.mean and np.var on a rare branch); a flag left in the
     * loop costs each check it covers an `or` more, so there the flag stays as it was (false at
     * compile time when an index is below zero at the first trip, and folded away). */
    bool widen = !calls_compiled(L, in_loop);
    signed char *every = arena_alloc(L->prog->arena, (size_t)L->ir->blocks.len);   /* runs_every_trip */
    for (int bi = 0; bi < L->ir->blocks.len; bi++) {
        Block *blk = L->ir->blocks.items[bi];
        for (int j = 0; in_loop[bi] && j < blk->instrs.len; j++) {
            Instr *in = blk->instrs.items[j];
            if (in->op == OP_COMPARE)
                flag_exact_compare(L, in, loop, in_loop, few, lo, hi);
            if (in->op == OP_FOR_ITER || in->op == OP_ARRAY_GET || in->op == OP_ARRAY_SET)
                L->inner_loop[in->id] = loop;   /* loops nested deeper are lowered later */
            if (in->op == OP_FOR_ITER && in != loop)
                L->outer_loop[loop->id] = true;
            if ((in->op != OP_ARRAY_GET && in->op != OP_ARRAY_SET) || !L->fits_axes)
                continue;
            Instr *a = in->args[0];
            int nidx = in->nargs - 1 - (in->op == OP_ARRAY_SET);
            /* an array made in the loop has no shape before it; with None parts (new axes) the
             * parts are not the axes */
            if (a->type->kind != TY_ARRAY || in_loop[((BlockInfo *)a->block->aux)->index] || !L->vals[a->id] ||
                has_none_index(in, nidx))
                continue;
            for (int k = 0; k < nidx && k < a->type->array.ndim; k++) {
                int64_t c;
                LLVMValueRef off, d;
                if (L->fits_axes[in->id] & (1u << k))   /* by a loop around this one */
                    continue;
                if (!few && widen && (d = mod_divisor(L, in->args[1 + k], in_loop))) {
                    LLVMValueRef n = lower_array_dim(L, L->vals[a->id], k);
                    LLVMValueRef ok = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGT, d, lower_i64(L, 0), ""),
                                                   LLVMBuildICmp(B, LLVMIntSLE, d, n, ""), "");
                    fits = fits ? LLVMBuildAnd(B, fits, ok, "") : ok;
                    L->fits_axes[in->id] |= 1u << k;
                    continue;
                }
                if (!loop_affine(L, in->args[1 + k], loop, in_loop, few, 0, &c, &off) || c == 0)
                    continue;
                /* an offset by a variable under a test (`if i >= w: x[i - w]`) may leave the
                 * array on the trips that skip it: it would make the flag false for all */
                if (!LLVMIsAConstantInt(off)) {
                    if (every[bi] == 0)
                        every[bi] = runs_every_trip(L, loop, in_loop, blk) ? 1 : -1;
                    if (every[bi] < 0)
                        continue;
                }
                /* an index below zero at the first trip (`x[i - 1]` from i = 0) wraps there:
                 * the flag asks [-n, n) of it, and the wrap stays */
                bool wraps = widen && starts_below_zero(loop, c, off);
                /* the least and greatest of c * i + off over the range, exactly */
                LLVMValueRef cw = LLVMConstInt(w, (unsigned long long)c, 1), ow = LLVMBuildSExt(B, off, w, "");
                LLVMValueRef least = LLVMBuildAdd(B, LLVMBuildMul(B, c > 0 ? lo : hi, cw, ""), ow, "");
                LLVMValueRef most = LLVMBuildAdd(B, LLVMBuildMul(B, c > 0 ? hi : lo, cw, ""), ow, "");
                LLVMValueRef n = LLVMBuildSExt(B, lower_array_dim(L, L->vals[a->id], k), w, "");
                LLVMValueRef floor = wraps ? LLVMBuildNeg(B, n, "") : LLVMConstNull(w);
                LLVMValueRef ok = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, least, floor, ""),
                                               LLVMBuildICmp(B, LLVMIntSLT, most, n, ""), "");
                fits = fits ? LLVMBuildAnd(B, fits, ok, "") : ok;
                L->fits_axes[in->id] |= 1u << k;
                L->wrap_axes[in->id] |= (uint32_t)wraps << k;
            }
        }
    }
    if (L->fits_axes)
        L->loop_fits[loop->id] = fits;
}

/* Whether int v is never negative by its definition: a non-negative constant, the variable of a
 * range loop counting up from a non-negative start, such a value plus a small non-negative
 * constant, or a variable whose every assignment is one of these or itself plus such a constant
 * (a phi: `i = 0` ... `i += 1` in a while loop, a merge's counters). A range's items stay below
 * its stop, so the variable's own increment cannot wrap; a sum past int64 would be out of bounds
 * as an index whether wrapped round or not. Indexing by such a value needs no wrap of negative
 * indices (`for j in range(i + 1, n): pos[j]`), which LLVM cannot always prove: a loop with an
 * early exit (a check that raises) loses the no-wrap flag of its increment, and a counter
 * incremented on one branch is no induction variable. open holds the phis being followed (taken
 * as non-negative: the others are what they are made of); *budget bounds the walk. */
static bool known_nonneg(Lower *L, Instr *v, Instr **open, int nopen, int *budget)
{
    if (!v || --*budget < 0 || !ty_is_int(v->type))
        return false;
    if (v->op == OP_CONST)
        return v->cst && v->cst->kind == K_INT && v->cst->i >= 0;
    if (v->op == OP_BINOP && v->sub == BIN_ADD && v->type == ty_scalar(TY_INT64)) {
        for (int k = 0; k < 2; k++) {
            Instr *c = v->args[k];
            if (c->op == OP_CONST && c->cst && c->cst->kind == K_INT && c->cst->i >= 0 &&
                c->cst->i <= INT32_MAX)
                return known_nonneg(L, v->args[1 - k], open, nopen, budget);
        }
        return false;
    }
    if (v->op == OP_PHI && v->type == ty_scalar(TY_INT64)) {
        for (int k = 0; k < nopen; k++)
            if (open[k] == v)
                return true;
        if (nopen == 8)
            return false;
        open[nopen] = v;
        for (int k = 0; k < v->nargs; k++)
            if (!known_nonneg(L, v->args[k], open, nopen + 1, budget))
                return false;
        return true;
    }
    if (v->op != OP_FOR_ITER || v->type != ty_scalar(TY_INT64))
        return false;
    Instr *src = iter_source(v->args[0]);
    Instr *r = src ? src->args[0] : NULL;
    if (!r || r->op != OP_INTRINSIC || r->sub != BI_RANGE || r->nargs < 1)
        return false;
    if (r->nargs == 1)
        return true;    /* range(stop) starts at 0 */
    if (r->nargs == 3) {
        Instr *k = r->args[2];
        if (k->op != OP_CONST || !k->cst || k->cst->kind != K_INT || k->cst->i <= 0)
            return false;
    }
    return r->args[0]->type == ty_scalar(TY_INT64) && known_nonneg(L, r->args[0], open, nopen, budget);
}

bool lower_known_nonneg(Lower *L, Instr *v, int depth)
{
    Instr *open[8];
    int budget = 32 - depth;
    return known_nonneg(L, v, open, 0, &budget);
}

LLVMValueRef lower_loop_index_fits(Lower *L, Instr *access, int axis, bool *wraps)
{
    *wraps = false;
    if (!L->fits_axes || !(L->fits_axes[access->id] & (1u << axis)))
        return NULL;
    Instr *loop = L->inner_loop[access->id];
    LLVMValueRef fits = L->outer_loop[loop->id] ? NULL : L->loop_fits[loop->id];
    *wraps = fits && (L->wrap_axes[access->id] >> axis & 1);
    return fits;
}

static LLVMValueRef lower_getiter(Lower *L, Instr *in)
{
    Instr *made = in->args[0]->type->kind == TY_ITER ? iter_source(in->args[0]) : NULL;
    if (made && made != in && L->iters[made->id]) {   /* iter(it) is it: its state, shared */
        L->iters[in->id] = L->iters[made->id];
        return L->vals[made->id];
    }
    IterInfo *it = make_iter(L, in->args[0]);
    if (!it)
        return NULL;
    L->iters[in->id] = it;
    return it->state ? it->state : LLVMConstNull(L->ptr);
}

static void lower_for_iter(Lower *L, Instr *in, BlockInfo *bi)
{
    Instr *src = iter_source(in->args[0]);
    IterInfo *it = src ? L->iters[src->id] : NULL;
    if (!it) {
        lower_unsupported(L, "for loop over an iterator pyjit cannot follow");
        return;
    }
    BlockInfo *done = in->succ[1]->aux;
    bi->exit[1] = LLVMGetInsertBlock(L->b);
    LLVMValueRef item = iter_next(L, it, in->type, done->start, in);
    if (!item)
        return;
    L->vals[in->id] = item;
    hoist_loop_checks(L, in, it);
    /* enumerate/zip may test several sub-iterators: each test block is an edge to succ[1]; the
     * IR says succ[1] has this block as one predecessor, so the exits go through one block */
    bi->exit[0] = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, ((BlockInfo *)in->succ[0]->aux)->start);
}

static bool is_compile_time(Type *t)
{
    return !t || (t->kind >= TY_DTYPE && t->kind <= TY_UNDEFINED);   /* the kinds after are run-time ones */
}

/* int64 against uint64 (either order), exactly: both widened to i128. */
static LLVMValueRef compare_mixed_ints(Lower *L, Instr *in)
{
    static const LLVMIntPredicate preds[] = {LLVMIntSLT, LLVMIntSLE, LLVMIntEQ, LLVMIntNE,
                                             LLVMIntSGT, LLVMIntSGE};
    if (in->sub > CMP_GE) {
        lower_unsupported(L, "internal: comparison %d of mixed integers", in->sub);
        return NULL;
    }
    LLVMTypeRef wide = LLVMIntTypeInContext(L->ctx, 128);
    LLVMValueRef v[2];
    for (int k = 0; k < 2; k++) {
        Instr *a = in->args[k];
        v[k] = ty_is_signed(a->type) ? LLVMBuildSExt(L->b, lower_value(L, a), wide, "")
                                     : LLVMBuildZExt(L->b, lower_value(L, a), wide, "");
    }
    return LLVMBuildICmp(L->b, preds[in->sub], v[0], v[1], "");
}

static bool is_int_const_within(const Instr *i, int64_t limit)
{
    return i->op == OP_CONST && i->cst && i->cst->kind == K_INT && i->cst->i >= -limit &&
           i->cst->i <= limit;
}

/* Whether an int64 is within 2**53 of zero by how it is made, where a float64 holds it exactly
 * and compared with a float as a float it gives the exact answer: a constant, a narrower int or
 * a bool widened, a remainder by such a constant (`i % 7`), a bitwise and with a non-negative
 * one (`h & 1023`). */
static bool is_exact_float_int(const Instr *i)
{
    const int64_t limit = (int64_t)1 << 53;
    if (is_int_const_within(i, limit))
        return true;
    if (i->op == OP_CAST && i->nargs == 1) {
        Type *from = i->args[0]->type;
        return from->kind == TY_BOOL || (ty_is_int(from) && ty_bits(from) <= 32);
    }
    if (i->op != OP_BINOP || i->nargs != 2)
        return false;
    if (i->sub == BIN_MOD)
        return is_int_const_within(i->args[1], limit);
    if (i->sub == BIN_AND)
        for (int k = 0; k < 2; k++)
            if (is_int_const_within(i->args[k], limit) && i->args[k]->cst->i >= 0)
                return true;
    return false;
}

/* int64 against float64, exactly as CPython: in float, unless the two are equal as floats; then
 * the int against the float made an int (a float equal to some int64 as a float is integral;
 * 2**63 is above every int64). */
static LLVMValueRef compare_int_float(Lower *L, Instr *in)
{
    static const LLVMIntPredicate ipred[] = {LLVMIntSLT, LLVMIntSLE, LLVMIntEQ, LLVMIntNE, LLVMIntSGT, LLVMIntSGE};
    static const LLVMRealPredicate fpred[] = {LLVMRealOLT, LLVMRealOLE, LLVMRealOEQ, LLVMRealUNE, LLVMRealOGT, LLVMRealOGE};
    static const int swapped[] = {CMP_GT, CMP_GE, CMP_EQ, CMP_NE, CMP_LT, CMP_LE};
    LLVMBuilderRef B = L->b;
    bool int_first = ty_is_int(in->args[0]->type);
    int op = int_first ? in->sub : swapped[in->sub];
    Instr *ii = in->args[int_first ? 0 : 1];
    LLVMValueRef i = lower_value(L, ii), f = lower_value(L, in->args[int_first ? 1 : 0]);
    LLVMValueRef fi = LLVMBuildSIToFP(B, i, L->f64, "");
    LLVMValueRef by_float = LLVMBuildFCmp(B, fpred[op], fi, f, "");
    if (is_exact_float_int(ii))   /* `x >= 4`: the int is exactly a float; so is the compare */
        return by_float;
    /* In a loop whose flag says the int is small, a branch on the flag (loop-invariant: LLVM
     * versions the loop on it) skips the exact compare */
    LLVMValueRef small = L->exact_cmp ? L->exact_cmp[in->id] : NULL;   /* flag_exact_compare */
    LLVMBasicBlockRef here = LLVMGetInsertBlock(B), slow = NULL, done = NULL;
    if (small) {
        slow = lower_block(L, "cmp.exact");
        done = lower_block(L, "cmp.done");
        LLVMBuildCondBr(B, small, done, slow);
        LLVMPositionBuilderAtEnd(B, slow);
    }
    LLVMValueRef same = LLVMBuildFCmp(B, LLVMRealOEQ, fi, f, "");
    LLVMValueRef in_range = LLVMBuildFCmp(B, LLVMRealOLT, f, LLVMConstReal(L->f64, 9223372036854775808.0), "");
    LLVMValueRef fint = LLVMBuildFPToSI(B, LLVMBuildSelect(B, in_range, f, LLVMConstReal(L->f64, 0.0), ""), L->i64, "");
    LLVMValueRef lhs = LLVMBuildSelect(B, in_range, i, lower_i64(L, 0), "");
    LLVMValueRef rhs = LLVMBuildSelect(B, in_range, fint, lower_i64(L, 1), "");
    LLVMValueRef by_int = LLVMBuildICmp(B, ipred[op], lhs, rhs, "");
    LLVMValueRef exact = LLVMBuildSelect(B, same, by_int, by_float, "");
    if (!small)
        return exact;
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMValueRef phi = LLVMBuildPhi(B, L->i1, "");
    LLVMValueRef vals[2] = {by_float, exact};
    LLVMBasicBlockRef froms[2] = {here, slow};
    LLVMAddIncoming(phi, vals, froms, 2);
    return phi;
}

static LLVMValueRef lower_instr(Lower *L, Instr *in)
{
    LLVMBuilderRef B = L->b;
    Type *t = in->type;
    switch (in->op) {
    case OP_CONST: return in->cst ? const_value(L, in->cst, t) : NULL;
    case OP_BINOP: {
        if (t->kind == TY_ARRAY)
            return lower_array_binop(L, in);
        bool saved = L->ew_numpy;
        L->ew_numpy = saved || in->imm2;   /* 0-d arrays' elements: as their array operation */
        LLVMValueRef r = lower_binop_scalar(L, (BinOp)in->sub, in->args[0]->type,
                                            lower_value(L, in->args[0]), lower_value(L, in->args[1]),
                                            in->args[1]);
        L->ew_numpy = saved;
        return r;
    }
    case OP_UNARY:
        if (t->kind == TY_ARRAY)
            return lower_array_unary(L, in);
        return lower_unary_scalar(L, (UnaryOp)in->sub, in->args[0]->type, lower_value(L, in->args[0]));
    case OP_COMPARE:
        if (t->kind == TY_ARRAY)
            return lower_array_compare(L, in);
        if (in->args[0]->type->kind == TY_STR)
            return lower_str_compare(L, (CmpOp)in->sub, lower_value(L, in->args[0]), lower_value(L, in->args[1]));
        if (in->args[0]->type != in->args[1]->type && ty_is_int(in->args[0]->type) &&
            ty_is_int(in->args[1]->type))
            return compare_mixed_ints(L, in);
        if (in->sub <= CMP_GE && ((in->args[0]->type->kind == TY_INT64 && in->args[1]->type->kind == TY_FLOAT64) ||
                                  (in->args[0]->type->kind == TY_FLOAT64 && in->args[1]->type->kind == TY_INT64)))
            return compare_int_float(L, in);
        if (in->args[0]->type != in->args[1]->type && !(ty_is_scalar(in->args[0]->type)))
            return LLVMConstInt(L->i1, in->sub == CMP_NE, 0);   /* None against a value */
        return lower_compare_scalar(L, (CmpOp)in->sub, in->args[0]->type, lower_value(L, in->args[0]),
                                    lower_value(L, in->args[1]));
    case OP_TRUTH: return lower_truth(L, lower_value(L, in->args[0]), in->args[0]->type);
    case OP_CAST:
        if (t->kind == TY_OPTIONAL)
            return lower_optional_cast(L, lower_value(L, in->args[0]), in->args[0]->type, t);
        return lower_cast(L, lower_value(L, in->args[0]), in->args[0]->type, t);
    case OP_OPTIONAL: return lower_optional(L, in);
    case OP_BUILD_TUPLE: {
        LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
        for (int i = 0; i < in->nargs; i++) {
            LLVMValueRef x = lower_value(L, in->args[i]);
            v = LLVMBuildInsertValue(B, v, x ? x : LLVMConstNull(L->none_ty), (unsigned)i, "");
        }
        return v;
    }
    case OP_STATIC_GET: {
        LLVMValueRef v = LLVMBuildExtractValue(B, lower_value(L, in->args[0]), (unsigned)in->imm, "");
        if (ty_holds_meminfo(t)) {
            lower_incref(L, LLVMBuildExtractValue(B, v, 0, ""));
            lower_own(L, in, v);
        }
        return v;
    }
    case OP_TUPLE_GET: return lower_tuple_get(L, in);
    case OP_BUILD_SLICE: return lower_build_slice(L, in);
    case OP_BUILD_LIST: return lower_build_list(L, in);
    case OP_BUILD_DICT: case OP_BUILD_SET: return lower_build_dict(L, in);
    case OP_GETITER: return lower_getiter(L, in);
    case OP_CALL_JIT: return lower_call_jit(L, in);
    case OP_FUNC_ADDR: return lower_func_addr(L, in);
    case OP_CALL_PTR: return lower_call_ptr(L, in);
    case OP_INTRINSIC: return lower_intrinsic(L, in) < 0 ? NULL : L->vals[in->id];
    case OP_ARRAY_GET: return lower_array_get(L, in);
    case OP_ARRAY_SET: lower_array_set(L, in); return NULL;
    case OP_ARRAY_ATTR: return lower_array_attr(L, in);
    case OP_GETATTR: return NULL;   /* compile-time only (module.func) */
    case OP_CATCH: return lower_catch(L, in);
    case OP_EXC_MATCH: return lower_exc_match(L, in);
    case OP_EXC_DONE: lower_exc_done(L, in); return NULL;
    default:
        lower_unsupported(L, "internal: '%s' reached lowering", ir_op_name(in->op));
        return NULL;
    }
}

static bool fastmath(Lower *L)
{
    return L->opts && L->opts->fastmath;
}

/* Whether the body of FOR_ITER loop holds a loop of any kind (a while loop too): a block of
 * it other than the header entered from a block at or after it. */
static bool holds_a_loop(Lower *L, Instr *loop)
{
    bool *in_loop = arena_alloc(L->prog->arena, (size_t)L->ir->blocks.len);
    loop_blocks(L, loop, in_loop);
    for (int bi = 0; bi < L->ir->blocks.len; bi++) {
        Block *b = L->ir->blocks.items[bi];
        if (!in_loop[bi] || b == loop->block)
            continue;
        for (int i = 0; i < b->preds.len; i++)
            if (((BlockInfo *)((Block *)b->preds.items[i])->aux)->index >= bi)
                return true;
    }
    return false;
}

/* The innermost range loop (no loop inside it) whose back edge term is, with bounds not all
 * constants (a loop of a few trips known at compile time is unrolled whole already), or NULL. */
static Instr *innermost_counted_loop(Lower *L, BlockInfo *from, Instr *term)
{
    for (int k = 0; k < 2; k++) {
        Block *h = term->succ[k];
        if (!h || ((BlockInfo *)h->aux)->index > from->index || !h->instrs.len)
            continue;
        Instr *loop = h->instrs.items[h->instrs.len - 1];
        if (loop->op != OP_FOR_ITER || !L->outer_loop || L->outer_loop[loop->id] || holds_a_loop(L, loop))
            continue;
        Instr *src = iter_source(loop->args[0]);
        IterInfo *it = src ? L->iters[src->id] : NULL;
        Instr *r = src ? src->args[0] : NULL;
        if (!it || it->kind != IT_RANGE || !r || r->op != OP_INTRINSIC || r->sub != BI_RANGE)
            continue;
        for (int i = 0; i < r->nargs; i++)
            if (r->args[i]->op != OP_CONST)
                return loop;
    }
    return NULL;
}

/* A loop's back edge carries hints for LLVM (llvm.loop):
 * - fastmath before LLVM 18, whose C API cannot set fast-math flags on instructions:
 *   llvm.loop.vectorize.enable, which lets the vectorizer reorder float reductions (what fastmath
 *   users want from it), as `#pragma clang loop vectorize(enable)` does;
 * - an innermost range loop: pyjit.unroll, read after the optimiser's pipeline (jit.c), which
 *   unrolls such loops that were not vectorised. */
static void mark_back_edge(Lower *L, LLVMValueRef br, BlockInfo *from, Instr *term)
{
    bool back = false;
    for (int k = 0; k < 2; k++)
        back |= term->succ[k] && ((BlockInfo *)term->succ[k]->aux)->index <= from->index;
    if (!back)
        return;
    LLVMMetadataRef hints[3];
    int n = 1;
    hints[0] = LLVMTemporaryMDNode(L->ctx, NULL, 0);
    if (fastmath(L) && LLVM_VERSION_MAJOR < 18) {
        LLVMMetadataRef hint[2] = {LLVMMDStringInContext2(L->ctx, "llvm.loop.vectorize.enable", 26),
                                   LLVMValueAsMetadata(LLVMConstInt(L->i1, 1, 0))};
        hints[n++] = LLVMMDNodeInContext2(L->ctx, hint, 2);
    }
    if (!L->t->is_gpu && innermost_counted_loop(L, from, term)) {
        LLVMMetadataRef mark = LLVMMDStringInContext2(L->ctx, JIT_UNROLL_HINT, strlen(JIT_UNROLL_HINT));
        hints[n++] = LLVMMDNodeInContext2(L->ctx, &mark, 1);
    }
    if (n == 1) {
        LLVMDisposeTemporaryMDNode(hints[0]);
        return;
    }
    LLVMMetadataRef loop = LLVMMDNodeInContext2(L->ctx, hints, (size_t)n);
    LLVMMetadataReplaceAllUsesWith(hints[0], loop);
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "llvm.loop", 9), LLVMMetadataAsValue(L->ctx, loop));
}

/* fastmath on LLVM 18+: every float operation gets all fast-math flags. */
static void set_fast_flags(LLVMValueRef fn)
{
#if LLVM_VERSION_MAJOR >= 18
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            if (LLVMCanValueUseFastMathFlags(i))
                LLVMSetFastMathFlags(i, LLVMFastMathAll);
#else
    (void)fn;
#endif
}

/* Lowers the terminator; records where each IR edge leaves from. */
static void lower_terminator(Lower *L, Instr *in, BlockInfo *bi)
{
    switch (in->op) {
    case OP_BR:
        bi->exit[0] = LLVMGetInsertBlock(L->b);
        mark_back_edge(L, LLVMBuildBr(L->b, ((BlockInfo *)in->succ[0]->aux)->start), bi, in);
        break;
    case OP_CBR: {
        LLVMValueRef c = lower_truth(L, lower_value(L, in->args[0]), in->args[0]->type);
        bi->exit[0] = bi->exit[1] = LLVMGetInsertBlock(L->b);
        LLVMBasicBlockRef t = ((BlockInfo *)in->succ[0]->aux)->start, f = ((BlockInfo *)in->succ[1]->aux)->start;
        mark_back_edge(L, t == f ? LLVMBuildBr(L->b, t) : LLVMBuildCondBr(L->b, c, t, f), bi, in);
        break;
    }
    case OP_FOR_ITER: lower_for_iter(L, in, bi); break;
    case OP_RET: lower_ret(L, in); break;
    case OP_RAISE: lower_raise(L, in); break;
    default: lower_unsupported(L, "internal: block ends without a terminator"); break;
    }
}

/* Every run-time operand must have been lowered already: a violation of the typed IR contract
 * becomes an internal error rather than a NULL handed to LLVM. */
static bool operands_ready(Lower *L, Instr *in)
{
    if (in->op == OP_RAISE)
        return true;
    for (int i = 0; i < in->nargs; i++) {
        Instr *a = in->args[i];
        if (!a || !a->type) {
            lower_unsupported(L, "internal: operand %d of '%s' is untyped", i, ir_op_name(in->op));
            return false;
        }
        if (!is_compile_time(a->type) && a->type->kind != TY_NONE && !L->fused[a->id] &&
            !lower_value(L, a)) {
            lower_unsupported(L, "internal: operand %d of '%s' (%s) has no value", i, ir_op_name(in->op),
                              a->type->name);
            return false;
        }
    }
    return true;
}

static void lower_phis_start(Lower *L, Block *blk)
{
    for (int k = 0; k < blk->instrs.len; k++) {
        Instr *in = blk->instrs.items[k];
        if (in->op != OP_PHI)
            break;
        LLVMTypeRef ty = is_compile_time(in->type) ? NULL : lower_type(L, in->type);
        if (ty)
            L->vals[in->id] = LLVMBuildPhi(L->b, ty, "");
    }
    /* array phis take their own reference, after all phis of the block */
    for (int k = 0; k < blk->instrs.len; k++) {
        Instr *in = blk->instrs.items[k];
        if (in->op != OP_PHI)
            break;
        if (ty_holds_meminfo(in->type) && L->vals[in->id]) {
            lower_incref(L, LLVMBuildExtractValue(L->b, L->vals[in->id], 0, ""));
            lower_own(L, in, L->vals[in->id]);
        }
    }
}

static int lower_block_body(Lower *L, Block *blk)
{
    BlockInfo *bi = blk->aux;
    /* inside a try, what raises goes to the block's landing instead of returning */
    L->err_bb = blk->handler ? ((BlockInfo *)blk->handler->aux)->start : L->fail_bb;
    LLVMPositionBuilderAtEnd(L->b, bi->start);
    lower_phis_start(L, blk);
    for (int k = 0; k < blk->instrs.len && !L->failed; k++) {
        Instr *in = blk->instrs.items[k];
        L->cur = in;
        if (in->op == OP_PHI || in->op == OP_ARG)
            continue;
        /* values only the compiler sees (an exception being built for RAISE, a module.func) */
        if (in->op != OP_ARRAY_SET && in->op != OP_INTRINSIC && in->op < OP_BR && is_compile_time(in->type))
            continue;
        if (!operands_ready(L, in))
            return -1;
        if (L->fused[in->id])   /* computed in its user's loop */
            continue;
        lower_debug_line(L, in->line);
        if (in->op >= OP_BR && in->op <= OP_RAISE) {
            lower_terminator(L, in, bi);
            return L->failed ? -1 : 0;
        }
        LLVMValueRef v = lower_instr(L, in);
        if (in->id >= 0 && in->id < L->nids)
            L->vals[in->id] = v;
    }
    if (!L->failed && !LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(L->b)))
        lower_unsupported(L, "internal: block %d has no terminator", blk->id);
    return L->failed ? -1 : 0;
}

/* Adds each phi's incoming values, from the LLVM block its IR edge leaves from. */
static void fill_phis(Lower *L, Block *blk)
{
    for (int k = 0; k < blk->instrs.len; k++) {
        Instr *in = blk->instrs.items[k];
        if (in->op != OP_PHI)
            break;
        LLVMValueRef phi = L->vals[in->id];
        if (!phi)
            continue;
        for (int p = 0; p < in->nargs && p < blk->preds.len; p++) {
            Block *pred = blk->preds.items[p];
            BlockInfo *pi = pred->aux;
            Instr *term = ir_terminator(pred);
            LLVMBasicBlockRef from = term && term->succ[0] == blk ? pi->exit[0] : pi->exit[1];
            if (!from)
                continue;
            bool seen = false;
            for (unsigned j = 0; j < LLVMCountIncoming(phi); j++)
                seen |= LLVMGetIncomingBlock(phi, j) == from;
            if (seen)
                continue;
            /* a variable not yet assigned on this edge (`labels` before a loop's first trip):
             * no value, but a counted one must be NULL, which the phi's owner increfs */
            LLVMValueRef v = lower_value(L, in->args[p]);
            if (!v || LLVMTypeOf(v) != LLVMTypeOf(phi))
                v = lower_is_counted(in->type) ? LLVMConstNull(LLVMTypeOf(phi))
                                               : LLVMGetUndef(LLVMTypeOf(phi));
            LLVMAddIncoming(phi, &v, &from, 1);
        }
    }
}

/* ---- functions ------------------------------------------------------------------------------ */

static LLVMTypeRef native_fn_type(Lower *L, TypedFunc *tf)
{
    LLVMTypeRef params[tf->nargs + 2];
    params[0] = params[1] = L->ptr;
    for (int i = 0; i < tf->nargs; i++) {
        Type *t = tf->argtypes[i];
        LLVMTypeRef lt = t->kind == TY_ARRAY ? L->ptr : lower_type(L, t);
        params[i + 2] = lt ? lt : L->none_ty;
    }
    return LLVMFunctionType(L->i32, params, (unsigned)tf->nargs + 2, 0);
}

static void add_attr(Lower *L, LLVMValueRef fn, unsigned idx, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(L->ctx, kind, 0));
}

/* The options a function is lowered under: its own, else the Program's. */
static const CompileOptions *options_of(Lower *L, const TypedFunc *tf)
{
    return tf->opts ? tf->opts : L->prog->opts;
}

static void declare_function(Lower *L, TypedFunc *tf, bool is_entry)
{
    L->opts = options_of(L, tf);
    LLVMValueRef fn = LLVMAddFunction(L->mod, tf->symbol, native_fn_type(L, tf));
    if (!is_entry || (L->t->is_gpu && !L->prog->gpu_device))   /* a kernel entry calls it */
        LLVMSetLinkage(fn, LLVMInternalLinkage);
    for (unsigned i = 1; i <= 2; i++) {
        add_attr(L, fn, i, "noalias");
        add_attr(L, fn, i, "nocapture");
    }
    for (int i = 0; i < tf->nargs; i++)
        if (tf->argtypes[i]->kind == TY_ARRAY) {   /* descriptors are only read */
            add_attr(L, fn, (unsigned)i + 3, "nocapture");
            add_attr(L, fn, (unsigned)i + 3, "readonly");
            add_attr(L, fn, (unsigned)i + 3, "noalias");
        }
    add_attr(L, fn, LLVMAttributeFunctionIndex, "nounwind");
    /* the wrapper calls it: inlining would compile the body twice (a simulated kernel's is
     * inlined into its block function's loop over the threads) */
    if (is_entry && !L->t->is_gpu && !L->prog->gpu_sim)
        add_attr(L, fn, LLVMAttributeFunctionIndex, "noinline");
    if (L->opts && L->opts->fastmath) {
        /* LLVM 16's C API cannot set fast-math flags on instructions; these function attributes
         * give code generation the same freedom */
        static const char *const fm[] = {"unsafe-fp-math", "no-nans-fp-math", "no-infs-fp-math",
                                         "no-signed-zeros-fp-math", "approx-func-fp-math"};
        for (size_t k = 0; k < sizeof fm / sizeof *fm; k++)
            LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                    LLVMCreateStringAttribute(L->ctx, fm[k], (unsigned)strlen(fm[k]), "true", 4));
    }
    tf->aux = fn;
}

/* Entry: allocas; then each ARG gets its parameter (arrays: the descriptor loaded by value). */
static void bind_args(Lower *L)
{
    for (int bi = 0; bi < L->ir->blocks.len; bi++) {
        Block *blk = L->ir->blocks.items[bi];
        for (int k = 0; k < blk->instrs.len; k++) {
            Instr *in = blk->instrs.items[k];
            if (in->op != OP_ARG || in->imm < 0 || in->imm >= L->tf->nargs)
                continue;
            LLVMValueRef p = LLVMGetParam(L->fn, (unsigned)in->imm + 2);
            Type *t = L->tf->argtypes[in->imm];
            if (t->kind == TY_ARRAY)
                p = LLVMBuildLoad2(L->ab, lower_type(L, t), p, "");
            L->vals[in->id] = p;
        }
    }
}

static void finish_exits(Lower *L)
{
    LLVMBasicBlockRef bbs[2] = {L->ret_bb, L->fail_bb};
    for (int k = 0; k < 2; k++) {
        LLVMPositionBuilderAtEnd(L->b, bbs[k]);
        lower_exc_release_caught(L);
        for (int s = 0; s < L->owned.len; s++) {
            LLVMValueRef mi = LLVMBuildLoad2(L->b, L->ptr, L->owned.items[s], "");
            lower_call_rt(L, "pj_nrt_decref", LLVMVoidTypeInContext(L->ctx), &mi, 1);
        }
        LLVMBuildRet(L->b, LLVMConstInt(L->i32, k == 0 ? ABI_STATUS_OK : ABI_STATUS_ERROR, 0));
    }
}

/* ---- recursion: functions in a call cycle check the stack at entry ------------------------ */

static int func_index(Program *prog, TypedFunc *tf)
{
    for (int i = 0; i < prog->funcs.len; i++)
        if (prog->funcs.items[i] == tf)
            return i;
    return -1;
}

/* The CALL_JIT edges of the Program: callees[i] lists the indices function i calls. */
static PtrVec *call_graph(Program *prog)
{
    int n = prog->funcs.len;
    PtrVec *callees = arena_alloc(prog->arena, sizeof(PtrVec) * (size_t)n);
    for (int f = 0; f < n; f++) {
        IRFunc *ir = ((TypedFunc *)prog->funcs.items[f])->ir;
        for (int b = 0; b < ir->blocks.len; b++) {
            Block *blk = ir->blocks.items[b];
            for (int k = 0; k < blk->instrs.len; k++) {
                Instr *in = blk->instrs.items[k];
                int c = in->op == OP_CALL_JIT && in->callee ? func_index(prog, in->callee) : -1;
                if (c >= 0)
                    vec_push(prog->arena, &callees[f], (void *)(intptr_t)c);
            }
        }
    }
    return callees;
}

/* Whether function from reaches function to through one call or more (seen: scratch, n). */
static bool reaches(PtrVec *callees, int from, int to, bool *seen)
{
    for (int k = 0; k < callees[from].len; k++) {
        int c = (int)(intptr_t)callees[from].items[k];
        if (c == to)
            return true;
        if (!seen[c] && (seen[c] = true, reaches(callees, c, to, seen)))
            return true;
    }
    return false;
}

/* Marks the functions that are part of a call cycle (self or mutual recursion). */
static void find_cycles(Lower *L)
{
    int n = L->prog->funcs.len;
    PtrVec *callees = call_graph(L->prog);
    bool *seen = arena_alloc(L->prog->arena, (size_t)n);
    L->in_cycle = arena_alloc(L->prog->arena, (size_t)n);
    for (int f = 0; f < n; f++) {
        memset(seen, 0, (size_t)n);
        L->in_cycle[f] = reaches(callees, f, f, seen);
        L->any_cycle |= L->in_cycle[f];
    }
}

/* RecursionError when the frame lies below the limit the wrapper stored in the ExcInfo (abi.h);
 * returns the block the entry continues in. The function keeps its recursive calls as calls:
 * LLVM's tail recursion elimination would make a loop of them, in which the frame never moves,
 * so endless recursion (`return f(n + 1)`) would hang instead of raising. */
static LLVMBasicBlockRef stack_guard(Lower *L)
{
    static const char no_tail[] = "disable-tail-calls";
    LLVMAddAttributeAtIndex(L->fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(L->ctx, no_tail, sizeof no_tail - 1, "true", 4));
    LLVMBasicBlockRef guard = lower_block(L, "stack.check");
    LLVMPositionBuilderAtEnd(L->b, guard);
    LLVMValueRef zero = LLVMConstInt(L->i32, 0, 0);
    LLVMValueRef frame = target_call_intrinsic(L->mod, L->b, "llvm.frameaddress", &L->ptr, 1, &zero, 1);
    LLVMValueRef limit = LLVMBuildLoad2(L->b, L->ptr, LLVMBuildStructGEP2(L->b, L->exc_ty, L->exc_ptr, 5, ""), "");
    LLVMValueRef below = LLVMBuildICmp(L->b, LLVMIntULT, LLVMBuildPtrToInt(L->b, frame, L->i64, ""),
                                       LLVMBuildPtrToInt(L->b, limit, L->i64, ""), "");
    lower_check(L, below, ABI_EXC_RECURSION, NULL, NULL, 0);
    LLVMBuildBr(L->b, ((BlockInfo *)((Block *)L->ir->blocks.items[0])->aux)->start);
    return guard;
}

static int lower_function(Lower *L, TypedFunc *tf, bool in_cycle)
{
    L->tf = tf;
    L->ir = tf->ir;
    L->cur = NULL;
    L->opts = options_of(L, tf);
    L->fn = tf->aux;
    L->nids = tf->ir->next_id + 1;
    L->vals = arena_alloc(L->prog->arena, sizeof(LLVMValueRef) * (size_t)L->nids);
    L->slots = arena_alloc(L->prog->arena, sizeof(LLVMValueRef) * (size_t)L->nids);
    L->iters = arena_alloc(L->prog->arena, sizeof(IterInfo *) * (size_t)L->nids);
    L->exact_cmp = arena_alloc(L->prog->arena, sizeof(LLVMValueRef) * (size_t)L->nids);
    L->inner_loop = arena_alloc(L->prog->arena, sizeof(Instr *) * (size_t)L->nids);
    L->outer_loop = arena_alloc(L->prog->arena, sizeof(bool) * (size_t)L->nids);
    L->fits_axes = NULL;
    L->loop_fits = NULL;
    if (L->opts && (L->opts->boundscheck || L->opts->debug)) {
        L->fits_axes = arena_alloc(L->prog->arena, sizeof(uint32_t) * (size_t)L->nids);
        L->loop_fits = arena_alloc(L->prog->arena, sizeof(LLVMValueRef) * (size_t)L->nids);
        L->wrap_axes = arena_alloc(L->prog->arena, sizeof(uint32_t) * (size_t)L->nids);
    }
    L->owned = (PtrVec){0};
    lower_mark_fused(L);
    L->caught = (PtrVec){0};
    L->ret_ptr = LLVMGetParam(L->fn, 0);
    L->exc_ptr = LLVMGetParam(L->fn, 1);
    L->entry_bb = lower_block(L, "entry");
    LLVMPositionBuilderAtEnd(L->ab, L->entry_bb);
    save_exc_record(L);
    lower_debug_function(L);
    for (int i = 0; i < tf->ir->blocks.len; i++) {
        Block *blk = tf->ir->blocks.items[i];
        BlockInfo *bi = arena_alloc(L->prog->arena, sizeof *bi);
        bi->index = i;
        bi->start = lower_block(L, "b");
        blk->aux = bi;
    }
    L->ret_bb = lower_block(L, "return");
    L->err_bb = L->fail_bb = lower_block(L, "error");
    if (prog_kernel_code(L->prog) && lower_exc_check_kernel(L) < 0)
        return -1;
    bind_args(L);
    LLVMBasicBlockRef first = ((BlockInfo *)((Block *)tf->ir->blocks.items[0])->aux)->start;
    if (in_cycle && !L->t->is_gpu)
        first = stack_guard(L);
    for (int i = 0; i < tf->ir->blocks.len; i++)
        if (lower_block_body(L, tf->ir->blocks.items[i]) < 0)
            return -1;
    for (int i = 0; i < tf->ir->blocks.len; i++)
        fill_phis(L, tf->ir->blocks.items[i]);
    finish_exits(L);
    if (fastmath(L))
        set_fast_flags(L->fn);
    LLVMPositionBuilderAtEnd(L->ab, L->entry_bb);
    LLVMBuildBr(L->ab, first);
    return 0;
}

void lower_wrapper_args(Lower *L, TypedFunc *tf, LLVMValueRef argv, LLVMValueRef *args)
{
    LLVMBuilderRef B = L->b;
    for (int i = 0; i < tf->nargs; i++) {
        LLVMValueRef idx = lower_i64(L, i);
        LLVMValueRef pp = LLVMBuildInBoundsGEP2(B, L->ptr, argv, &idx, 1, "");
        LLVMValueRef p = LLVMBuildLoad2(B, L->ptr, pp, "");
        Type *t = tf->argtypes[i];
        LLVMTypeRef lt = lower_type(L, t);
        if (t->kind == TY_ARRAY) {
            /* the caller's descriptor, whole: its fields may be loaded early (a size read under
             * a condition in a loop, as a kernel's block function inlines it, is hoisted) */
            if (lt && LLVMGetTypeKind(lt) == LLVMStructTypeKind) {
                uint64_t size = LLVMABISizeOfType(LLVMGetModuleDataLayout(L->mod), lt);
                LLVMMetadataRef md = LLVMValueAsMetadata(LLVMConstInt(L->i64, size, 0));
                LLVMSetMetadata(p, LLVMGetMDKindIDInContext(L->ctx, "dereferenceable", 15),
                                LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, &md, 1)));
                md = LLVMValueAsMetadata(LLVMConstInt(L->i64, 8, 0));
                LLVMSetMetadata(p, LLVMGetMDKindIDInContext(L->ctx, "align", 5),
                                LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, &md, 1)));
            }
            args[i + 2] = p;
        } else if (!lt || t->kind == TY_NONE)
            args[i + 2] = LLVMConstNull(lt ? lt : L->none_ty);
        else
            args[i + 2] = lower_load_mem(L, t, p);
    }
}

/* symbol__wrap(void **args, void *ret, ExcInfo *exc): loads each argument from memory and calls
 * the native entry, which stores the result at ret itself. The entry's, and a prange loop's
 * chunk function's (lower_parallel.c); the builder is left in the wrapper. */
LLVMValueRef lower_build_wrapper(Lower *L, TypedFunc *tf)
{
    LLVMTypeRef params[3] = {L->ptr, L->ptr, L->ptr};
    char *name = arena_printf(L->prog->arena, "%s__wrap", tf->symbol);
    LLVMValueRef w = LLVMAddFunction(L->mod, name, LLVMFunctionType(L->i32, params, 3, 0));
    LLVMBuilderRef B = L->b;
    LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(L->ctx, w, "entry"));
    LLVMValueRef args[tf->nargs + 2];
    args[0] = LLVMGetParam(w, 1);
    args[1] = LLVMGetParam(w, 2);
    if (L->any_cycle) {   /* the limit its recursive functions check */
        LLVMValueRef limit = lower_call_rt(L, "pj_stack_limit", L->ptr, NULL, 0);
        LLVMBuildStore(B, limit, LLVMBuildStructGEP2(B, L->exc_ty, args[1], 5, ""));
    }
    lower_wrapper_args(L, tf, LLVMGetParam(w, 0), args);
    LLVMValueRef fn = tf->aux;
    LLVMBuildRet(B, LLVMBuildCall2(B, LLVMGlobalGetValueType(fn), fn, args, (unsigned)tf->nargs + 2, ""));
    return w;
}

static void init_types(Lower *L)
{
    L->i1 = LLVMInt1TypeInContext(L->ctx);
    L->i8 = LLVMInt8TypeInContext(L->ctx);
    L->i32 = LLVMInt32TypeInContext(L->ctx);
    L->i64 = LLVMInt64TypeInContext(L->ctx);
    L->f32 = LLVMFloatTypeInContext(L->ctx);
    L->f64 = LLVMDoubleTypeInContext(L->ctx);
    L->ptr = LLVMPointerTypeInContext(L->ctx, 0);
    L->none_ty = LLVMStructTypeInContext(L->ctx, NULL, 0, 0);
    LLVMTypeRef ef[7] = {L->i32, L->i32, L->ptr, L->ptr, LLVMArrayType(L->i64, 4), L->ptr, L->ptr};
    L->exc_ty = LLVMStructTypeInContext(L->ctx, ef, 7, 0);
    LLVMTypeRef mf[5] = {L->i64, L->ptr, L->i64, L->ptr, L->ptr};
    L->mi_ty = LLVMStructTypeInContext(L->ctx, mf, 5, 0);
}

/* The runtime's memory functions as the CPU module sees them. pj_nrt_alloc returns memory
 * nothing else points to, as malloc does (noalias): a new array's data (at ABI_NRT_DATA_OFFSET
 * from its MemInfo) then aliases no argument, and loops writing it need no runtime alias checks
 * nor reload what they read from arguments. Reference counting (runtime/nrt.c: pj_nrt_incref,
 * pj_nrt_decref) is defined in the module, as the runtime does it: LLVM inlines the test and the
 * atomic into the caller and drops the releases of slots it knows empty; only a release that
 * frees calls the runtime (pj_nrt_free). A recursive merge sort making new arrays at each level
 * spent 8% of its time in the runtime's pj_nrt_decref. */
static void define_runtime_memory(Lower *L)
{
    LLVMValueRef alloc = LLVMAddFunction(L->mod, "pj_nrt_alloc", LLVMFunctionType(L->ptr, &L->i64, 1, 0));
    add_fn_attr(L, alloc, "nounwind", 0);
    LLVMAddAttributeAtIndex(alloc, LLVMAttributeReturnIndex, LLVMCreateEnumAttribute(
        L->ctx, LLVMGetEnumAttributeKindForName("noalias", 7), 0));
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(L->ctx), &L->ptr, 1, 0);
    LLVMValueRef free_fn = LLVMAddFunction(L->mod, "pj_nrt_free", fty);
    add_fn_attr(L, free_fn, "nounwind", 0);
    for (int dec = 0; dec < 2; dec++) {
        LLVMValueRef fn = LLVMAddFunction(L->mod, dec ? "pj_nrt_decref" : "pj_nrt_incref", fty);
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        add_fn_attr(L, fn, "nounwind", 0);
        LLVMValueRef mi = LLVMGetParam(fn, 0);
        LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, fn, "entry");
        LLVMBasicBlockRef count = LLVMAppendBasicBlockInContext(L->ctx, fn, "count");
        LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, fn, "done");
        LLVMPositionBuilderAtEnd(L->b, entry);
        LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, mi, ""), done, count);
        LLVMPositionBuilderAtEnd(L->b, count);
        LLVMValueRef one = LLVMConstInt(L->i64, 1, 0);   /* the count is the MemInfo's first field */
        LLVMValueRef old = LLVMBuildAtomicRMW(L->b, dec ? LLVMAtomicRMWBinOpSub : LLVMAtomicRMWBinOpAdd,
                                              mi, one, dec ? LLVMAtomicOrderingAcquireRelease
                                                           : LLVMAtomicOrderingMonotonic, 0);
        if (dec) {
            LLVMBasicBlockRef release = LLVMAppendBasicBlockInContext(L->ctx, fn, "free");
            mark_unlikely(L, LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, old, one, ""),
                                             release, done));
            LLVMPositionBuilderAtEnd(L->b, release);
            LLVMBuildCall2(L->b, fty, free_fn, &mi, 1, "");
        }
        LLVMBuildBr(L->b, done);
        LLVMPositionBuilderAtEnd(L->b, done);
        LLVMBuildRetVoid(L->b);
    }
}

LLVMModuleRef lower_program(Program *prog, const Target *t, LLVMContextRef ctx, Diag *diag)
{
    Lower L = {.prog = prog, .t = t, .diag = diag, .ctx = ctx};
    TypedFunc *entry = prog->funcs.items[0];
    L.mod = LLVMModuleCreateWithNameInContext(entry->symbol, ctx);
    if (t->triple)
        LLVMSetTarget(L.mod, t->triple);
    if (t->data_layout)
        LLVMSetDataLayout(L.mod, t->data_layout);
    init_types(&L);
    L.b = LLVMCreateBuilderInContext(ctx);
    L.ab = LLVMCreateBuilderInContext(ctx);
    if (t->is_gpu)
        lower_gpu_prepare(&L);
    else
        define_runtime_memory(&L);
    lower_debug_begin(&L);
    for (int i = 0; i < prog->funcs.len; i++)
        declare_function(&L, prog->funcs.items[i], i == 0);
    find_cycles(&L);
    int rc = 0;
    for (int i = 0; i < prog->funcs.len && rc == 0; i++)
        rc = lower_function(&L, prog->funcs.items[i], L.in_cycle[i]);
    if (rc == 0 && !t->is_gpu)
        lower_build_wrapper(&L, entry);
    else if (rc == 0 && !prog->gpu_device)
        lower_gpu_entry(&L, entry);
    if (rc == 0 && prog->gpu_sim)
        lower_sim_block(&L, entry);
    if (rc == 0 && prog->cfunc)
        lower_build_cfunc(&L, entry);
    if (rc == 0 && prog->gpu_device && prog->gpu_c_abi)
        lower_build_gpu_c_abi(&L, entry, prog->gpu_c_abi);
    lower_debug_finish(&L);
    LLVMDisposeBuilder(L.b);
    LLVMDisposeBuilder(L.ab);
    if (rc < 0 || L.failed) {
        if (diag && diag->kind == DIAG_NONE)
            diag_error(diag, DIAG_INTERNAL, entry->ir->qualname, entry->ir->filename, 0, -1, -1,
                       "lowering failed");
        LLVMDisposeModule(L.mod);
        return NULL;
    }
    return L.mod;
}
