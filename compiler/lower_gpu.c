/* lower_gpu.c: what lowering does only for target_nvptx.
 *
 *   - the kernel language's builtins (builtins.def, "gpu.*"): special registers, grid/gridsize,
 *     shared/local/constant arrays, barriers and fences, atomics, warp shuffles and votes, bit
 *     intrinsics, and print() through the CUDA runtime's vprintf;
 *   - the kernel entry: a ptx_kernel function taking the flattened parameters of runtime/cuda.h,
 *     which rebuilds each argument (arrays as ArrayDesc values in local memory) and calls the
 *     entry's native function, which the optimiser then inlines into it.
 * Arrays in kernels own no memory (their meminfo is NULL), so the reference-counting calls the
 * shared lowering emits go to empty local stand-ins that the optimiser removes.
 * Pointers stay generic (address space 0); NVPTX's address-space inference turns the accesses
 * through a kernel parameter, a shared or a constant global into ld.global/ld.shared/ld.const. */
#include "compiler/lower.h"

#include <stdio.h>
#include <string.h>

/* ---- helpers -------------------------------------------------------------------------------- */

static LLVMValueRef call_nvvm(Lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n)
{
    return target_call_extern(L->mod, L->b, name, ret, args, n);
}

/* A special register read, with the range NVVM guarantees so that index arithmetic narrows. */
static LLVMValueRef sreg(Lower *L, const char *name, unsigned lo, unsigned hi)
{
    char full[64];
    snprintf(full, sizeof full, "llvm.nvvm.read.ptx.sreg.%s", name);
    LLVMValueRef v = call_nvvm(L, full, L->i32, NULL, 0);
    LLVMMetadataRef md[2] = {LLVMValueAsMetadata(LLVMConstInt(L->i32, lo, 0)),
                             LLVMValueAsMetadata(LLVMConstInt(L->i32, hi, 0))};
    LLVMSetMetadata(v, LLVMGetMDKindIDInContext(L->ctx, "range", 5),
                    LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, md, 2)));
    return v;
}

/* kind 0 tid, 1 ctaid, 2 ntid, 3 nctaid; axis 0..2 */
static LLVMValueRef sreg_axis(Lower *L, int kind, int axis)
{
    static const char *const names[4] = {"tid", "ctaid", "ntid", "nctaid"};
    static const unsigned lo[4] = {0, 0, 1, 1};
    unsigned hi[4][3] = {{1024, 1024, 64}, {0x7fffffff, 65535, 65535},
                         {1025, 1025, 65}, {0x80000000u, 65536, 65536}};
    char name[16];
    snprintf(name, sizeof name, "%s.%c", names[kind], "xyz"[axis]);
    return sreg(L, name, lo[kind], hi[kind][axis]);
}

/* A special register named by the fn column: "tid.x" ... "nctaid.z", "laneid", "lanemask_lt". */
LLVMValueRef lower_bi_sreg(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim)
        return lower_sim_sreg(L, in, bi);
    static const char *const kinds[4] = {"tid.", "ctaid.", "ntid.", "nctaid."};
    const char *name = ir_builtin_fn(bi);
    (void)in;
    for (int k = 0; k < 4; k++)
        if (strncmp(name, kinds[k], strlen(kinds[k])) == 0)
            return sreg_axis(L, k, name[strlen(kinds[k])] - 'x');
    return strcmp(name, "laneid") == 0 ? sreg(L, name, 0, 32) : call_nvvm(L, name, L->i32, NULL, 0);
}

static LLVMValueRef zext64(Lower *L, LLVMValueRef v)
{
    return LLVMBuildZExt(L->b, v, L->i64, "");
}

/* grid(n) and gridsize(n): int64 for n = 1, else a tuple. The products are of two values under
 * 2^31, so they are computed as a widening 32x32 multiply (no 64-bit multiply in the PTX). */
static LLVMValueRef grid_value(Lower *L, Instr *in, bool size)
{
    int n = in->type->kind == TY_TUPLE ? in->type->tuple.n : 1;
    LLVMValueRef r = n > 1 ? LLVMGetUndef(lower_type(L, in->type)) : NULL, x = NULL;
    for (int k = 0; k < n; k++) {
        if (size)
            x = LLVMBuildNUWMul(L->b, zext64(L, sreg_axis(L, 2, k)), zext64(L, sreg_axis(L, 3, k)), "");
        else
            x = LLVMBuildNUWAdd(L->b, LLVMBuildNUWMul(L->b, zext64(L, sreg_axis(L, 1, k)),
                                                      zext64(L, sreg_axis(L, 2, k)), ""),
                                zext64(L, sreg_axis(L, 0, k)), "");
        if (n > 1)
            r = LLVMBuildInsertValue(L->b, r, x, (unsigned)k, "");
    }
    return n > 1 ? r : x;
}

static LLVMValueRef inline_asm(Lower *L, LLVMTypeRef ret, const char *text, const char *cons)
{
    LLVMTypeRef fty = LLVMFunctionType(ret, NULL, 0, 0);
    LLVMValueRef asmv = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)cons, strlen(cons),
                                         1, 0, LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(L->b, fty, asmv, NULL, 0, "");
}

/* ---- memory: shared, local and constant arrays ------------------------------------------------ */

/* The constant shape of shared/local arrays: an int or a tuple of ints, as the IR holds it,
 * each computed from constants at most (`(TPB, TPB + 1)`). */
static bool const_shape(Instr *s, int64_t *shape, int *nd)
{
    if (ir_const_int(s, &shape[0])) {
        *nd = 1;
        return true;
    }
    if (s->op == OP_CONST && s->cst->kind == K_TUPLE) {
        *nd = s->cst->tuple.n;
        for (int k = 0; k < *nd; k++) {
            if (s->cst->tuple.items[k]->kind != K_INT)
                return false;
            shape[k] = s->cst->tuple.items[k]->i;
        }
        return true;
    }
    if (s->op == OP_BUILD_TUPLE) {
        *nd = s->nargs;
        for (int k = 0; k < s->nargs; k++) {
            int one;
            if (!const_shape(s->args[k], &shape[k], &one) || one != 1)
                return false;
        }
        return true;
    }
    return false;
}

static LLVMTypeRef mem_elem_type(Lower *L, Type *dt)
{
    return dt->kind == TY_BOOL ? L->i8 : lower_type(L, dt);
}

/* A C-contiguous array value over data with a constant shape. */
static LLVMValueRef c_array(Lower *L, Type *at, LLVMValueRef data, const int64_t *shape,
                            LLVMValueRef dyn0)
{
    int nd = at->array.ndim;
    LLVMValueRef sh[ABI_MAX_NDIM], st[ABI_MAX_NDIM];
    int64_t stride = ty_itemsize(at->array.dtype);
    for (int k = nd - 1; k >= 0; k--) {
        sh[k] = k == 0 && dyn0 ? dyn0 : lower_i64(L, shape[k]);
        st[k] = lower_i64(L, stride);
        stride *= shape[k];
    }
    return lower_array_make(L, at, LLVMConstNull(L->ptr), data, sh, st);
}

static LLVMValueRef generic_ptr(Lower *L, LLVMValueRef g)
{
    return LLVMConstAddrSpaceCast(g, L->ptr);
}

/* The static shared memory of a block, as the simulator's MAX_SHARED_BYTES. */
#define GPU_MAX_SHARED_BYTES (48 * 1024)

/* A shared array of the CPU simulator: its block's memory (n = 0: the dynamic part). */
static LLVMValueRef sim_shared_array(Lower *L, Instr *in, int64_t *shape, int64_t n)
{
    LLVMValueRef len = NULL;
    LLVMValueRef data = lower_sim_shared(L, n, ty_itemsize(in->type->array.dtype), &len);
    int64_t ones[ABI_MAX_NDIM] = {1, 1, 1, 1, 1, 1, 1, 1};
    return data ? c_array(L, in->type, data, n == 0 ? ones : shape, len) : NULL;
}

static LLVMValueRef shared_array(Lower *L, Instr *in, int64_t *shape, int nd)
{
    Type *dt = in->type->array.dtype;
    LLVMTypeRef et = mem_elem_type(L, dt);
    int64_t n = 1;
    for (int k = 0; k < nd; k++)
        n *= shape[k];
    if (L->prog->gpu_sim)
        return sim_shared_array(L, in, shape, n);
    if (n == 0) {   /* dynamic: every dynamic shared array is the one extern block */
        LLVMValueRef g = LLVMGetNamedGlobal(L->mod, "pj_dynshared");
        if (!g) {
            g = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType(L->i8, 0), "pj_dynshared", 3);
            LLVMSetAlignment(g, 16);
        }
        LLVMValueRef bytes = zext64(L, inline_asm(L, L->i32, "mov.u32 $0, %dynamic_smem_size;", "=r"));
        LLVMValueRef len = LLVMBuildUDiv(L->b, bytes, lower_i64(L, ty_itemsize(dt)), "");
        int64_t ones[ABI_MAX_NDIM] = {1, 1, 1, 1, 1, 1, 1, 1};
        return c_array(L, in->type, generic_ptr(L, g), ones, len);
    }
    int64_t bytes = n * ty_itemsize(dt);
    L->shared_bytes += bytes;
    if (L->shared_bytes > GPU_MAX_SHARED_BYTES) {
        lower_unsupported(L, "shared array of %lld bytes takes the block's shared memory to %lld "
                          "bytes, over the %d-byte limit", (long long)bytes,
                          (long long)L->shared_bytes, GPU_MAX_SHARED_BYTES);
        return NULL;
    }
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType(et, (unsigned)n), "pj_shared", 3);
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetInitializer(g, LLVMGetUndef(LLVMArrayType(et, (unsigned)n)));
    LLVMSetAlignment(g, 16);
    return c_array(L, in->type, generic_ptr(L, g), shape, NULL);
}

static LLVMValueRef local_array(Lower *L, Instr *in, int64_t *shape, int nd)
{
    int64_t n = 1;
    for (int k = 0; k < nd; k++)
        n *= shape[k];
    LLVMValueRef a = lower_alloca(L, LLVMArrayType(mem_elem_type(L, in->type->array.dtype), (unsigned)n));
    LLVMSetAlignment(a, 16);
    return c_array(L, in->type, a, shape, NULL);
}

static LLVMValueRef new_array(Lower *L, Instr *in, bool shared)
{
    int64_t shape[ABI_MAX_NDIM + 1];
    int nd = 0;
    if (!const_shape(in->args[0], shape, &nd) || nd != in->type->array.ndim) {
        lower_unsupported(L, "the shape of a %s array must be a constant int or tuple of ints",
                          shared ? "shared" : "local");
        return NULL;
    }
    for (int k = 0; k < nd; k++)
        if (shape[k] < 0 || (shape[k] == 0 && (!shared || nd != 1)) || shape[k] > (1 << 30)) {
            lower_unsupported(L, "invalid %s array shape (axis %d is %lld)", shared ? "shared" : "local",
                              k, (long long)shape[k]);
            return NULL;
        }
    return shared ? shared_array(L, in, shape, nd) : local_array(L, in, shape, nd);
}

/* A frozen NumPy array copied, C-contiguous, into constant memory (address space 4). */
LLVMValueRef lower_gpu_const_array(Lower *L, const Const *c, Type *t)
{
    Type *at = c->array_type;
    int nd = at->array.ndim, isz = ty_itemsize(at->array.dtype);
    int64_t n = 1;
    for (int k = 0; k < nd; k++)
        n *= c->array_shape[k];
    Type *vt = t && t->kind == TY_ARRAY ? t : ty_array(at->array.dtype, nd, 'C', true);
    bool f_order = vt->array.layout == 'F';   /* the copy is laid out as its type says */
    char *bytes = arena_alloc(L->prog->arena, (size_t)(n * isz + 1));
    for (int64_t e = 0; e < n; e++) {   /* element e in C (or F) order, read through the strides */
        int64_t rest = e, off = 0;
        for (int j = 0; j < nd; j++) {
            int k = f_order ? j : nd - 1 - j;
            off += (rest % c->array_shape[k]) * c->array_strides[k];
            rest /= c->array_shape[k];
        }
        memcpy(bytes + e * isz, (const char *)c->data + off, (size_t)isz);
    }
    LLVMValueRef init = LLVMConstStringInContext(L->ctx, bytes, (unsigned)(n * isz), 1);
    unsigned space = L->t->is_gpu ? 4 : 0;   /* the CPU simulator's copy is in host memory */
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(L->mod, LLVMTypeOf(init), "pj_const", space);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetAlignment(g, 16);
    return c_array(L, vt, space ? generic_ptr(L, g) : g, c->array_shape, NULL);
}

/* ---- atomics -------------------------------------------------------------------------------- */

static LLVMTypeRef int_of(Lower *L, Type *dt)
{
    return LLVMIntTypeInContext(L->ctx, (unsigned)ty_bits(dt));
}

/* inc/dec with CUDA's wrapping rules, as a compare-and-swap loop:
 *   inc: old >= v ? 0 : old + 1        dec: (old == 0 || old > v) ? v : old - 1  (unsigned) */
static LLVMValueRef atomic_wrap(Lower *L, LLVMValueRef p, LLVMValueRef v, bool inc)
{
    LLVMBuilderRef B = L->b;
    LLVMTypeRef ty = LLVMTypeOf(v);
    LLVMValueRef zero = LLVMConstInt(ty, 0, 0), one = LLVMConstInt(ty, 1, 0);
    LLVMValueRef first = LLVMBuildLoad2(B, ty, p, "");
    LLVMSetVolatile(first, 1);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(B), loop = lower_block(L, "cas"), done = lower_block(L, "cas.done");
    LLVMBuildBr(B, loop);
    LLVMPositionBuilderAtEnd(B, loop);
    LLVMValueRef old = LLVMBuildPhi(B, ty, "");
    LLVMValueRef nv = inc ? LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, old, v, ""), zero,
                                            LLVMBuildAdd(B, old, one, ""), "")
                          : LLVMBuildSelect(B, LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntEQ, old, zero, ""),
                                                           LLVMBuildICmp(B, LLVMIntUGT, old, v, ""), ""),
                                            v, LLVMBuildSub(B, old, one, ""), "");
    LLVMValueRef x = LLVMBuildAtomicCmpXchg(B, p, old, nv, LLVMAtomicOrderingMonotonic,
                                            LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef seen = LLVMBuildExtractValue(B, x, 0, "");
    LLVMBuildCondBr(B, LLVMBuildExtractValue(B, x, 1, ""), done, loop);
    LLVMBasicBlockRef blocks[2] = {pre, loop};
    LLVMValueRef vals[2] = {first, seen};
    LLVMAddIncoming(old, vals, blocks, 2);
    LLVMPositionBuilderAtEnd(B, done);
    return seen;
}

/* max/min and nanmax/nanmin of a float, as numba-cuda computes them, by a compare-and-swap
 * loop: v replaces the stored value while that is smaller (min: larger) than v. A NaN v changes
 * nothing; a NaN stored value stays for max/min and is replaced for nanmax/nanmin (`nan`).
 * Returns the value the swap replaced, or the one that stopped it. */
static LLVMValueRef atomic_float_minmax(Lower *L, LLVMValueRef p, LLVMValueRef v, Type *dt,
                                        bool max, bool nan)
{
    LLVMBuilderRef B = L->b;
    LLVMTypeRef ft = LLVMTypeOf(v), it = int_of(L, dt);
    LLVMValueRef load = LLVMBuildLoad2(B, it, p, "");
    LLVMSetVolatile(load, 1);
    LLVMValueRef first = LLVMBuildBitCast(B, load, ft, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(B), check = lower_block(L, "minmax"),
                      attempt = lower_block(L, "minmax.cas"), done = lower_block(L, "minmax.done");
    LLVMBuildCondBr(B, LLVMBuildFCmp(B, LLVMRealUNO, v, nan ? v : first, ""), done, check);
    LLVMPositionBuilderAtEnd(B, check);
    LLVMValueRef old = LLVMBuildPhi(B, ft, "");
    LLVMRealPredicate below = nan ? (max ? LLVMRealULT : LLVMRealUGT)
                                  : (max ? LLVMRealOLT : LLVMRealOGT);
    LLVMBuildCondBr(B, LLVMBuildFCmp(B, below, old, v, ""), attempt, done);
    LLVMPositionBuilderAtEnd(B, attempt);
    LLVMValueRef x = LLVMBuildAtomicCmpXchg(B, p, LLVMBuildBitCast(B, old, it, ""),
                                            LLVMBuildBitCast(B, v, it, ""), LLVMAtomicOrderingMonotonic,
                                            LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef seen = LLVMBuildBitCast(B, LLVMBuildExtractValue(B, x, 0, ""), ft, "");
    LLVMBuildCondBr(B, LLVMBuildExtractValue(B, x, 1, ""), done, check);
    LLVMAddIncoming(old, (LLVMValueRef[]){first, seen}, (LLVMBasicBlockRef[]){pre, attempt}, 2);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMValueRef r = LLVMBuildPhi(B, ft, "");
    LLVMAddIncoming(r, (LLVMValueRef[]){first, old, old}, (LLVMBasicBlockRef[]){pre, check, attempt}, 3);
    return r;
}

static bool rmw_op(Builtin bi, Type *dt, LLVMAtomicRMWBinOp *op)
{
    bool f = ty_is_float(dt), s = ty_is_signed(dt);
    switch (bi) {
    case BI_GPU_ATOMIC_ADD: *op = f ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; return true;
    case BI_GPU_ATOMIC_SUB: *op = f ? LLVMAtomicRMWBinOpFSub : LLVMAtomicRMWBinOpSub; return true;
    case BI_GPU_ATOMIC_MAX: case BI_GPU_ATOMIC_NANMAX:   /* ints only here */
        *op = f ? LLVMAtomicRMWBinOpFMax : s ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
        return true;
    case BI_GPU_ATOMIC_MIN: case BI_GPU_ATOMIC_NANMIN:
        *op = f ? LLVMAtomicRMWBinOpFMin : s ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
        return true;
    case BI_GPU_ATOMIC_AND: *op = LLVMAtomicRMWBinOpAnd; return true;
    case BI_GPU_ATOMIC_OR: *op = LLVMAtomicRMWBinOpOr; return true;
    case BI_GPU_ATOMIC_XOR: *op = LLVMAtomicRMWBinOpXor; return true;
    case BI_GPU_ATOMIC_EXCH: *op = LLVMAtomicRMWBinOpXchg; return true;
    default: return false;
    }
}

/* args: the array, one int64 index per axis, then the value (cas: expected, then new). */
LLVMValueRef lower_bi_atomic(Lower *L, Instr *in, Builtin bi)
{
    if (bi == BI_GPU_ATOMIC_COMPARE_AND_SWAP)
        bi = BI_GPU_ATOMIC_CAS;
    Type *at = in->args[0]->type, *dt = at->array.dtype;
    int nd = at->array.ndim;
    LLVMValueRef p = lower_array_elem_ptr(L, in, nd);
    if (!p)
        return NULL;
    LLVMBuilderRef B = L->b;
    LLVMValueRef v = lower_value(L, in->args[nd + 1]);
    bool f = ty_is_float(dt);
    if (bi == BI_GPU_ATOMIC_CAS) {
        LLVMValueRef nv = lower_value(L, in->args[nd + 2]);
        if (f) {
            v = LLVMBuildBitCast(B, v, int_of(L, dt), "");
            nv = LLVMBuildBitCast(B, nv, int_of(L, dt), "");
        }
        LLVMValueRef x = LLVMBuildAtomicCmpXchg(B, p, v, nv, LLVMAtomicOrderingMonotonic,
                                                LLVMAtomicOrderingMonotonic, 0);
        LLVMValueRef old = LLVMBuildExtractValue(B, x, 0, "");
        return f ? LLVMBuildBitCast(B, old, lower_type(L, dt), "") : old;
    }
    if (bi == BI_GPU_ATOMIC_INC || bi == BI_GPU_ATOMIC_DEC)
        return atomic_wrap(L, p, v, bi == BI_GPU_ATOMIC_INC);
    if ((bi == BI_GPU_ATOMIC_NANMAX || bi == BI_GPU_ATOMIC_NANMIN || bi == BI_GPU_ATOMIC_MAX ||
         bi == BI_GPU_ATOMIC_MIN) && f)
        return atomic_float_minmax(L, p, v, dt, bi == BI_GPU_ATOMIC_NANMAX || bi == BI_GPU_ATOMIC_MAX,
                                   bi == BI_GPU_ATOMIC_NANMAX || bi == BI_GPU_ATOMIC_NANMIN);
    LLVMAtomicRMWBinOp op;
    if (!rmw_op(bi, dt, &op)) {
        lower_unsupported(L, "internal: %s", ir_builtin_name(bi));
        return NULL;
    }
    if (op == LLVMAtomicRMWBinOpXchg && f) {
        LLVMValueRef old = LLVMBuildAtomicRMW(B, op, p, LLVMBuildBitCast(B, v, int_of(L, dt), ""),
                                              LLVMAtomicOrderingMonotonic, 0);
        return LLVMBuildBitCast(B, old, lower_type(L, dt), "");
    }
    return LLVMBuildAtomicRMW(B, op, p, v, LLVMAtomicOrderingMonotonic, 0);
}

/* ---- warps ---------------------------------------------------------------------------------- */

/* One 32-bit shuffle of kind ("idx", "up", "down", "bfly"). */
static LLVMValueRef shfl32(Lower *L, const char *kind, LLVMValueRef mask, LLVMValueRef v,
                           LLVMValueRef lane, bool is_float)
{
    char name[48];
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%s", kind, is_float ? "f32" : "i32");
    LLVMValueRef clamp = LLVMConstInt(L->i32, strcmp(kind, "up") == 0 ? 0 : 0x1f, 0);
    LLVMValueRef args[4] = {mask, v, lane, clamp};
    return call_nvvm(L, name, is_float ? L->f32 : L->i32, args, 4);
}

static LLVMValueRef lower_shfl(Lower *L, Instr *in, const char *kind)
{
    LLVMBuilderRef B = L->b;
    Type *t = in->args[1]->type;
    LLVMValueRef mask = lower_value(L, in->args[0]), v = lower_value(L, in->args[1]);
    LLVMValueRef lane = lower_value(L, in->args[2]);
    if (t->kind == TY_FLOAT32)
        return shfl32(L, kind, mask, v, lane, true);
    int bits = ty_bits(t);
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, (unsigned)(bits < 32 ? 32 : bits));
    LLVMValueRef x = ty_is_float(t) ? LLVMBuildBitCast(B, v, int_of(L, t), "") : v;
    if (t->kind == TY_BOOL)
        x = LLVMBuildZExt(B, x, it, "");
    else if (bits < 32)
        x = ty_is_signed(t) ? LLVMBuildSExt(B, x, it, "") : LLVMBuildZExt(B, x, it, "");
    LLVMValueRef r;
    if (bits <= 32) {
        r = shfl32(L, kind, mask, x, lane, false);
    } else {   /* 64 bits: the two halves */
        LLVMValueRef lo = LLVMBuildTrunc(B, x, L->i32, "");
        LLVMValueRef hi = LLVMBuildTrunc(B, LLVMBuildLShr(B, x, LLVMConstInt(it, 32, 0), ""), L->i32, "");
        lo = zext64(L, shfl32(L, kind, mask, lo, lane, false));
        hi = zext64(L, shfl32(L, kind, mask, hi, lane, false));
        r = LLVMBuildOr(B, lo, LLVMBuildShl(B, hi, LLVMConstInt(L->i64, 32, 0), ""), "");
    }
    if (t->kind == TY_BOOL)
        return LLVMBuildICmp(B, LLVMIntNE, r, LLVMConstInt(L->i32, 0, 0), "");
    if (bits < 32)
        r = LLVMBuildTrunc(B, r, lower_type(L, t), "");
    return ty_is_float(t) ? LLVMBuildBitCast(B, r, lower_type(L, t), "") : r;
}

static LLVMValueRef lower_vote(Lower *L, Instr *in, const char *kind)
{
    char name[48];
    snprintf(name, sizeof name, "llvm.nvvm.vote.%s.sync", kind);
    LLVMValueRef args[2] = {lower_value(L, in->args[0]), lower_value(L, in->args[1])};
    return call_nvvm(L, name, strcmp(kind, "ballot") == 0 ? L->i32 : L->i1, args, 2);
}

/* ---- bits ----------------------------------------------------------------------------------- */

static LLVMValueRef bit_intrinsic(Lower *L, const char *name, LLVMValueRef x, bool with_flag)
{
    LLVMTypeRef ty = LLVMTypeOf(x);
    LLVMValueRef args[2] = {x, LLVMConstInt(L->i1, 0, 0)};
    return target_call_intrinsic(L->mod, L->b, name, &ty, 1, args, with_flag ? 2 : 1);
}

static LLVMValueRef to_i32(Lower *L, LLVMValueRef v)
{
    unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
    return w == 32 ? v : w > 32 ? LLVMBuildTrunc(L->b, v, L->i32, "") : LLVMBuildZExt(L->b, v, L->i32, "");
}

/* popc, clz, brev: the LLVM intrinsic of the fn column (int32 results but brev's). */
LLVMValueRef lower_bi_bits(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef x = lower_value(L, in->args[0]);
    const char *name = ir_builtin_fn(bi);
    LLVMValueRef r = bit_intrinsic(L, name, x, strcmp(name, "llvm.ctlz") == 0);
    return bi == BI_GPU_BREV ? r : to_i32(L, r);
}

/* ffs: 1 + index of the lowest set bit, 0 when none. */
LLVMValueRef lower_bi_ffs(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef x = lower_value(L, in->args[0]);
    LLVMValueRef tz = to_i32(L, bit_intrinsic(L, ir_builtin_fn(bi), x, true));
    LLVMValueRef none = LLVMBuildICmp(L->b, LLVMIntEQ, x, LLVMConstNull(LLVMTypeOf(x)), "");
    return LLVMBuildSelect(L->b, none, LLVMConstInt(L->i32, 0, 0),
                           LLVMBuildAdd(L->b, tz, LLVMConstInt(L->i32, 1, 0), ""), "");
}

/* ---- print ---------------------------------------------------------------------------------- */

/* One print() operand as a vprintf argument and its conversion (*spec); NULL if unsupported. */
static LLVMValueRef print_arg(Lower *L, Instr *a, const char **spec)
{
    Type *t = a->type;
    *spec = "%s";
    if (t->kind == TY_STRING || t->kind == TY_NONE) {
        const char *s = t->kind == TY_NONE ? "None" : a->cst && a->cst->kind == K_STR ? a->cst->s : "?";
        return LLVMBuildGlobalStringPtr(L->b, s, "pj.str");
    }
    if (t->kind == TY_BOOL)
        return LLVMBuildSelect(L->b, lower_value(L, a), LLVMBuildGlobalStringPtr(L->b, "True", "pj.str"),
                               LLVMBuildGlobalStringPtr(L->b, "False", "pj.str"), "");
    if (ty_is_int(t)) {
        *spec = ty_is_signed(t) ? "%lld" : "%llu";
        return lower_cast(L, lower_value(L, a), t, ty_scalar(ty_is_signed(t) ? TY_INT64 : TY_UINT64));
    }
    if (ty_is_float(t)) {
        *spec = "%f";
        return lower_cast(L, lower_value(L, a), t, ty_scalar(TY_FLOAT64));
    }
    lower_unsupported(L, "print() of %s is not supported in kernels", t->name);
    return NULL;
}

/* print(a, b, ...) as one vprintf: ints as %lld/%llu, floats as %f (as double), bools and
 * strings as %s, separated by spaces, ending with a newline. */
LLVMValueRef lower_gpu_print(Lower *L, Instr *in)
{
    char fmt[1024] = "";
    LLVMValueRef vals[32];
    LLVMTypeRef fields[32];
    int nv = 0;
    for (int i = 0; i < in->nargs && nv < 32; i++) {
        const char *spec;
        if (!(vals[nv] = print_arg(L, in->args[i], &spec)))
            return NULL;
        fields[nv] = LLVMTypeOf(vals[nv]);
        nv++;
        snprintf(fmt + strlen(fmt), sizeof fmt - strlen(fmt), "%s%s", i ? " " : "", spec);
    }
    snprintf(fmt + strlen(fmt), sizeof fmt - strlen(fmt), "\n");
    LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, fields, (unsigned)nv, 0);
    LLVMValueRef buf = lower_alloca(L, nv ? st : L->i64);
    for (int i = 0; i < nv; i++)
        LLVMBuildStore(L->b, vals[i], LLVMBuildStructGEP2(L->b, st, buf, (unsigned)i, ""));
    LLVMValueRef args[2] = {LLVMBuildGlobalStringPtr(L->b, fmt, "pj.fmt"), buf};
    call_nvvm(L, "vprintf", L->i32, args, 2);
    return LLVMConstNull(L->none_ty);
}

/* ---- the builtins --------------------------------------------------------------------------- */

static LLVMValueRef barrier_op(Lower *L, Instr *in, const char *name)
{
    LLVMValueRef p = lower_value(L, in->args[0]);
    return call_nvvm(L, name, L->i32, &p, 1);
}

static LLVMValueRef fence(Lower *L, const char *name)
{
    call_nvvm(L, name, LLVMVoidTypeInContext(L->ctx), NULL, 0);
    return LLVMConstNull(L->none_ty);
}

LLVMValueRef lower_bi_fence(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim)
        return lower_sim_fence(L, in, bi);
    (void)in;
    return fence(L, ir_builtin_fn(bi));
}

LLVMValueRef lower_bi_barrier(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim)
        return lower_sim_barrier(L, in, bi);
    return barrier_op(L, in, ir_builtin_fn(bi));
}

LLVMValueRef lower_bi_syncwarp(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim)
        return lower_sim_warp(L, in, bi);
    LLVMValueRef m = in->nargs ? lower_value(L, in->args[0]) : LLVMConstInt(L->i32, 0xffffffffu, 0);
    call_nvvm(L, ir_builtin_fn(bi), LLVMVoidTypeInContext(L->ctx), &m, 1);
    return LLVMConstNull(L->none_ty);
}

LLVMValueRef lower_bi_grid(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim)
        return lower_sim_grid(L, in, bi == BI_GPU_GRIDSIZE);
    return grid_value(L, in, bi == BI_GPU_GRIDSIZE);
}

LLVMValueRef lower_bi_new_array(Lower *L, Instr *in, Builtin bi)
{
    return new_array(L, in, bi == BI_GPU_SHARED_ARRAY);
}

LLVMValueRef lower_bi_const_array(Lower *L, Instr *in, Builtin bi)
{
    (void)bi;
    return lower_value(L, in->args[0]);
}

LLVMValueRef lower_bi_shfl(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim)
        return lower_sim_warp(L, in, bi);
    return lower_shfl(L, in, ir_builtin_fn(bi));
}

LLVMValueRef lower_bi_vote(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim)
        return lower_sim_warp(L, in, bi);
    return lower_vote(L, in, ir_builtin_fn(bi));
}

/* match_any_sync and match_all_sync compare bits: the value goes to the i32 or i64 intrinsic of
 * the fn column (floats bitcast, narrower ints and bools widened); match_all's "p" variant also
 * returns the predicate, as the {uint32, bool} tuple the call is typed as. */
LLVMValueRef lower_bi_match(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim)
        return lower_sim_warp(L, in, bi);
    LLVMBuilderRef B = L->b;
    Type *t = in->args[1]->type;
    LLVMValueRef args[2] = {lower_value(L, in->args[0]), lower_value(L, in->args[1])};
    int bits = ty_bits(t) > 32 ? 64 : 32;
    if (ty_is_float(t))
        args[1] = LLVMBuildBitCast(B, args[1], int_of(L, t), "");
    else if (ty_bits(t) < 32)
        args[1] = ty_is_signed(t) ? LLVMBuildSExt(B, args[1], L->i32, "")
                                  : LLVMBuildZExt(B, args[1], L->i32, "");
    bool all = bi == BI_GPU_MATCH_ALL_SYNC;
    char name[48];
    snprintf(name, sizeof name, "%s%d%s", ir_builtin_fn(bi), bits, all ? "p" : "");
    LLVMTypeRef pair[2] = {L->i32, L->i1};
    return call_nvvm(L, name, all ? LLVMStructTypeInContext(L->ctx, pair, 2, 0) : L->i32, args, 2);
}

LLVMValueRef lower_bi_select(Lower *L, Instr *in, Builtin bi)
{
    (void)bi;
    return LLVMBuildSelect(L->b, lower_value(L, in->args[0]), lower_value(L, in->args[1]),
                           lower_value(L, in->args[2]), "");
}

/* Inline PTX with one 32-bit result: the fn column is its text. */
LLVMValueRef lower_bi_asm(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim && bi == BI_GPU_ACTIVEMASK)
        return lower_sim_warp(L, in, bi);
    if (L->prog->gpu_sim)
        return lower_sim_unsupported(L, in, bi);
    (void)in;
    return inline_asm(L, L->i32, ir_builtin_fn(bi), "=r");
}

/* nanosleep(ns): the warp sleeps about ns nanoseconds (sm_70 and later), as spin-wait loops
 * back off; a simulated thread has nothing to wait for. */
LLVMValueRef lower_bi_nanosleep(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim)
        return LLVMConstNull(L->none_ty);
    LLVMValueRef ns = lower_value(L, in->args[0]);
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(L->ctx), &L->i32, 1, 0);
    const char *text = ir_builtin_fn(bi);
    LLVMValueRef asmv = LLVMGetInlineAsm(fty, (char *)text, strlen(text), "r", 1, 1, 0,
                                         LLVMInlineAsmDialectATT, 0);
    LLVMBuildCall2(L->b, fty, asmv, &ns, 1, "");
    return LLVMConstNull(L->none_ty);
}

LLVMValueRef lower_bi_fma(Lower *L, Instr *in, Builtin bi)
{
    LLVMValueRef a[3] = {lower_value(L, in->args[0]), lower_value(L, in->args[1]),
                         lower_value(L, in->args[2])};
    LLVMTypeRef ty = LLVMTypeOf(a[0]);
    return target_call_intrinsic(L->mod, L->b, ir_builtin_fn(bi), &ty, 1, a, 3);
}

/* One float argument through libdevice: __nv_<fn>, or __nv_<fn>f for float32 (libm's <fn> and
 * <fn>f on the CPU simulator). */
LLVMValueRef lower_bi_libdevice(Lower *L, Instr *in, Builtin bi)
{
    char name[48];
    LLVMValueRef x = lower_value(L, in->args[0]);
    bool single = LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMFloatTypeKind;
    snprintf(name, sizeof name, "%s%s%s", L->prog->gpu_sim ? "" : "__nv_", ir_builtin_fn(bi),
             single ? "f" : "");   /* the CPU simulator's is the C library's */
    return target_call_extern(L->mod, L->b, name, LLVMTypeOf(x), &x, 1);
}

/* ---- cooperative groups: the grid barrier ------------------------------------------------------ */

/* The grid barrier's counter: one 32-bit word of the module's global memory, zero when the module
 * is loaded (runtime/launch.c launches a kernel whose PTX has it cooperatively). Its top bit flips
 * at each barrier and its low bits come back to where they were, so no launch has to reset it. */
static LLVMValueRef grid_barrier_word(Lower *L)
{
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, "pj_grid_barrier");
    if (!g) {
        g = LLVMAddGlobalInAddressSpace(L->mod, L->i32, "pj_grid_barrier", 1);
        LLVMSetLinkage(g, LLVMInternalLinkage);   /* the module's own: PTX linked in beside it
                                                   * may have one too */
        LLVMSetInitializer(g, LLVMConstInt(L->i32, 0, 0));
        LLVMSetAlignment(g, 4);
    }
    return g;
}

static LLVMValueRef is_zero3(Lower *L, int kind)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef any = LLVMBuildOr(B, LLVMBuildOr(B, sreg_axis(L, kind, 0), sreg_axis(L, kind, 1), ""),
                                   sreg_axis(L, kind, 2), "");
    return LLVMBuildICmp(B, LLVMIntEQ, any, LLVMConstInt(L->i32, 0, 0), "");
}

/* grid.sync(): every block's first thread, once its block has arrived (bar.sync), adds to the
 * counter (block 0 adds 2^31 - (blocks - 1), the others 1: the sum flips the top bit) and spins
 * until it sees the flip; the fences make the writes before the barrier visible to every block
 * after it, and the closing bar.sync holds the block's other threads until then. */
static void grid_sync(Lower *L)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef word = grid_barrier_word(L), top = LLVMConstInt(L->i32, 0x80000000u, 0);
    LLVMBasicBlockRef arrive = lower_block(L, "gridsync"), wait = lower_block(L, "gridsync.wait"),
                      seen = lower_block(L, "gridsync.seen"), done = lower_block(L, "gridsync.done");
    fence(L, "llvm.nvvm.barrier0");
    LLVMBuildCondBr(B, is_zero3(L, 0), arrive, done);
    LLVMPositionBuilderAtEnd(B, arrive);
    LLVMValueRef blocks = LLVMBuildMul(B, LLVMBuildMul(B, sreg_axis(L, 3, 0), sreg_axis(L, 3, 1), ""),
                                       sreg_axis(L, 3, 2), "");
    LLVMValueRef first = LLVMBuildSub(B, LLVMConstInt(L->i32, 0x80000001u, 0), blocks, "");
    LLVMValueRef add = LLVMBuildSelect(B, is_zero3(L, 1), first, LLVMConstInt(L->i32, 1, 0), "");
    fence(L, "llvm.nvvm.membar.gl");
    LLVMValueRef old = LLVMBuildAtomicRMW(B, LLVMAtomicRMWBinOpAdd, word, add,
                                          LLVMAtomicOrderingMonotonic, 0);
    LLVMBuildBr(B, wait);
    LLVMPositionBuilderAtEnd(B, wait);
    LLVMValueRef now = LLVMBuildLoad2(B, L->i32, word, "");
    LLVMSetVolatile(now, 1);
    LLVMValueRef flip = LLVMBuildAnd(B, LLVMBuildXor(B, old, now, ""), top, "");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntNE, flip, LLVMConstInt(L->i32, 0, 0), ""), seen, wait);
    LLVMPositionBuilderAtEnd(B, seen);
    fence(L, "llvm.nvvm.membar.gl");
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
    fence(L, "llvm.nvvm.barrier0");
}

/* this_grid() is a constant (infer_calls.c: type_gpu_cg); sync() and size are lowered here. */
LLVMValueRef lower_bi_cg(Lower *L, Instr *in, Builtin bi)
{
    if (L->prog->gpu_sim && bi == BI_GPU_CG_GRID_SYNC) {
        lower_sim_barrier(L, in, bi);
        return LLVMConstNull(L->none_ty);
    }
    if (L->prog->gpu_sim)
        return lower_sim_unsupported(L, in, bi);
    (void)in;
    if (bi == BI_GPU_CG_GRID_SYNC) {
        grid_sync(L);
        return LLVMConstNull(L->none_ty);
    }
    LLVMValueRef n = LLVMConstInt(L->i64, 1, 0);
    for (int k = 0; k < 3; k++)
        n = LLVMBuildNUWMul(L->b, n, LLVMBuildNUWMul(L->b, zext64(L, sreg_axis(L, 2, k)),
                                                     zext64(L, sreg_axis(L, 3, k)), ""), "");
    return n;
}

/* ---- the module and the kernel entry -------------------------------------------------------- */

/* Empty local definitions of the runtime's reference counting (kernel arrays own no memory). */
void lower_gpu_prepare(Lower *L)
{
    static const char *const names[2] = {"pj_nrt_incref", "pj_nrt_decref"};
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(L->ctx), &L->ptr, 1, 0);
    for (int i = 0; i < 2; i++) {
        LLVMValueRef fn = LLVMAddFunction(L->mod, names[i], fty);
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        LLVMPositionBuilderAtEnd(L->b, LLVMAppendBasicBlockInContext(L->ctx, fn, "entry"));
        LLVMBuildRetVoid(L->b);
    }
}

enum { PARAM_MAX = 1024 };   /* the driver's 4 KiB of parameters hold fewer */

typedef struct Params {
    LLVMTypeRef types[PARAM_MAX];
    int n;
} Params;

/* The parameter types of a value of type t, flattened (runtime/cuda.h). */
static void flatten(Lower *L, Type *t, Params *p)
{
    if (p->n + 2 * ABI_MAX_NDIM + 1 >= PARAM_MAX)
        return;
    if (t->kind == TY_ARRAY) {
        p->types[p->n++] = LLVMPointerTypeInContext(L->ctx, 1);
        for (int k = 0; k < 2 * t->array.ndim; k++)
            p->types[p->n++] = L->i64;
    } else if (t->kind == TY_RECORD) {   /* its bytes' address: the launch copies them there */
        p->types[p->n++] = LLVMPointerTypeInContext(L->ctx, 1);
    } else if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->tuple.n; i++)
            flatten(L, t->tuple.items[i], p);
    } else if (ty_is_complex(t)) {
        p->types[p->n++] = t->kind == TY_COMPLEX64 ? L->f32 : L->f64;
        p->types[p->n++] = t->kind == TY_COMPLEX64 ? L->f32 : L->f64;
    } else if (t->kind == TY_BOOL) {
        p->types[p->n++] = L->i8;
    } else if (ty_is_scalar(t)) {
        p->types[p->n++] = lower_type(L, t);
    }
}

/* The launch checked that this array's data is 16-byte aligned: say so on the parameter and,
 * as an assumption, on the generic pointer the body uses (known bits do not cross the address
 * space cast), so that loads and stores carry the alignment and the load-store vectoriser may
 * join x[4i .. 4i+3] into one 128-bit access. */
static void mark_aligned(Lower *L, LLVMValueRef k, unsigned param, LLVMValueRef data)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("align", 5);
    LLVMAddAttributeAtIndex(k, param + 1, LLVMCreateEnumAttribute(L->ctx, kind, 16));
    LLVMValueRef low = LLVMBuildAnd(L->b, LLVMBuildPtrToInt(L->b, data, L->i64, ""),
                                    lower_i64(L, 15), "");
    LLVMValueRef ok = LLVMBuildICmp(L->b, LLVMIntEQ, low, lower_i64(L, 0), "");
    target_call_intrinsic(L->mod, L->b, "llvm.assume", NULL, 0, &ok, 1);
}

/* Parameter attributes: noalias where the launch checked that no other array argument
 * overlaps this one, and then readonly where the kernel never writes the array (the written
 * mask); with both, loads become ld.global.nc (the read-only data cache). */
static void mark_param(Lower *L, LLVMValueRef k, unsigned param, const char *attr)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(attr, strlen(attr));
    LLVMAddAttributeAtIndex(k, param + 1, LLVMCreateEnumAttribute(L->ctx, kind, 0));
}

/* Rebuilds a value of type t from the kernel's parameters from *next on; for array argument
 * number arg (-1: none, as inside tuples) the launch's alignment and overlap facts apply. */
static LLVMValueRef rebuild(Lower *L, LLVMValueRef k, Type *t, unsigned *next, int arg)
{
    LLVMBuilderRef B = L->b;
    if (t->kind == TY_ARRAY) {
        LLVMValueRef data = LLVMBuildAddrSpaceCast(B, LLVMGetParam(k, *next), L->ptr, "");
        if (arg >= 0 && arg < 64 && ((L->prog->gpu_aligned >> arg) & 1))
            mark_aligned(L, k, *next, data);
        if (arg >= 0 && arg < 64 && ((L->prog->gpu_noalias >> arg) & 1)) {
            mark_param(L, k, *next, "noalias");
            if (!((L->prog->written >> arg) & 1))   /* only read: effects.c */
                mark_param(L, k, *next, "readonly");
        }
        (*next)++;
        LLVMValueRef sh[ABI_MAX_NDIM], st[ABI_MAX_NDIM];
        for (int j = 0; j < t->array.ndim; j++)
            sh[j] = LLVMGetParam(k, (*next)++);
        for (int j = 0; j < t->array.ndim; j++)
            st[j] = LLVMGetParam(k, (*next)++);
        return lower_array_make(L, t, LLVMConstNull(L->ptr), data, sh, st);
    }
    if (t->kind == TY_RECORD) {   /* {no MemInfo, the address}, as lower_type has it */
        LLVMValueRef at = LLVMBuildAddrSpaceCast(B, LLVMGetParam(k, (*next)++), L->ptr, "");
        LLVMValueRef v = LLVMBuildInsertValue(B, LLVMGetUndef(lower_type(L, t)),
                                              LLVMConstNull(L->ptr), 0, "");
        return LLVMBuildInsertValue(B, v, at, 1, "");
    }
    if (t->kind == TY_TUPLE) {
        LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
        for (int i = 0; i < t->tuple.n; i++) {
            LLVMValueRef x = rebuild(L, k, t->tuple.items[i], next, -1);
            v = LLVMBuildInsertValue(B, v, x ? x : LLVMConstNull(L->none_ty), (unsigned)i, "");
        }
        return v;
    }
    if (ty_is_complex(t)) {
        LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
        v = LLVMBuildInsertValue(B, v, LLVMGetParam(k, (*next)++), 0, "");
        return LLVMBuildInsertValue(B, v, LLVMGetParam(k, (*next)++), 1, "");
    }
    if (t->kind == TY_BOOL)
        return LLVMBuildICmp(B, LLVMIntNE, LLVMGetParam(k, (*next)++), LLVMConstInt(L->i8, 0, 0), "");
    if (ty_is_scalar(t))
        return LLVMGetParam(k, (*next)++);
    return LLVMConstNull(L->none_ty);
}

static void annotate(Lower *L, LLVMValueRef k, const char *key, int value)
{
    LLVMMetadataRef md[3] = {LLVMValueAsMetadata(k), LLVMMDStringInContext2(L->ctx, key, strlen(key)),
                             LLVMValueAsMetadata(LLVMConstInt(L->i32, (unsigned)value, 0))};
    LLVMAddNamedMetadataOperand(L->mod, "nvvm.annotations",
                                LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, md, 3)));
}

/* max_registers and launch_bounds as NVVM annotations: the back end writes them as .maxnreg,
 * .maxntid and .minnctapersm (.maxclusterrank, which LLVM 16 does not know, is added to the PTX
 * text: runtime/cuda_compile.c). */
static void annotate_limits(Lower *L, LLVMValueRef k)
{
    if (L->prog->gpu_maxnreg > 0)
        annotate(L, k, "maxnreg", L->prog->gpu_maxnreg);
    if (L->prog->gpu_bounds[0] > 0)
        annotate(L, k, "maxntidx", L->prog->gpu_bounds[0]);
    if (L->prog->gpu_bounds[1] > 0)
        annotate(L, k, "minctasm", L->prog->gpu_bounds[1]);
}

static void mark_kernel(Lower *L, LLVMValueRef k)
{
    LLVMSetFunctionCallConv(k, LLVMPTXKernelCallConv);
    annotate(L, k, "kernel", 1);
    annotate_limits(L, k);
}

/* debug: the exception printed where it happens too (the message, the thread and the block),
 * so that a kernel that never synchronises still shows it. */
static void print_exception(Lower *L, LLVMValueRef exc)
{
    LLVMBuilderRef B = L->b;
    LLVMValueRef msg = LLVMBuildLoad2(B, L->ptr, LLVMBuildStructGEP2(B, L->exc_ty, exc, 3, ""), "");
    LLVMValueRef has = LLVMBuildIsNotNull(B, msg, "");
    LLVMValueRef fmt = LLVMBuildSelect(B, has, msg, LLVMBuildGlobalStringPtr(B, "exception raised", "pj.str"), "");
    LLVMValueRef args[2] = {fmt, LLVMBuildStructGEP2(B, L->exc_ty, exc, 4, "")};
    call_nvvm(L, "vprintf", L->i32, (LLVMValueRef[]){LLVMBuildGlobalStringPtr(B, "pyjit: in kernel: ", "pj.str"),
                                                     LLVMConstNull(L->ptr)}, 2);
    call_nvvm(L, "vprintf", L->i32, args, 2);
    LLVMTypeRef it[6];
    LLVMValueRef ids[6];
    for (int k = 0; k < 6; k++) {
        it[k] = L->i32;
        ids[k] = sreg_axis(L, k / 3, k % 3);
    }
    LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, it, 6, 0);
    LLVMValueRef buf = LLVMBuildAlloca(B, st, "");   /* on the failing path only */
    for (int k = 0; k < 6; k++)
        LLVMBuildStore(B, ids[k], LLVMBuildStructGEP2(B, st, buf, (unsigned)k, ""));
    LLVMValueRef a2[2] = {LLVMBuildGlobalStringPtr(B, " (thread (%u, %u, %u), block (%u, %u, %u))\n", "pj.fmt"), buf};
    call_nvvm(L, "vprintf", L->i32, a2, 2);
}

/* ---- exceptions reported to the host (runtime/kernel_errors.c) ---- */

/* The module global the runtime points at the device's fault record when it loads the module
 * (external, so that cuModuleGetGlobal finds it and the optimiser keeps its loads). */
static LLVMValueRef fault_global(Lower *L)
{
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, ABI_FAULT_GLOBAL);
    if (!g) {
        g = LLVMAddGlobalInAddressSpace(L->mod, L->ptr, ABI_FAULT_GLOBAL, 1);
        LLVMSetInitializer(g, LLVMConstNull(L->ptr));
        LLVMSetAlignment(g, 8);
    }
    return g;
}

/* abi.h's AbiKernelFault as LLVM lays it out (the same offsets as C's: kernel_errors.c checks
 * them). */
static LLVMTypeRef fault_type(Lower *L)
{
    LLVMTypeRef three = LLVMArrayType(L->i32, 3);
    LLVMTypeRef f[9] = {L->i32, L->i32, L->i32, three, three, L->i64, L->i64, L->i64,
                        LLVMArrayType(L->i64, 4)};
    return LLVMStructTypeInContext(L->ctx, f, 9, 0);
}

/* A constant's device address, as the host's copies take it (global space, not generic). */
static LLVMValueRef device_address(Lower *L, LLVMValueRef p)
{
    LLVMValueRef g = LLVMBuildAddrSpaceCast(L->b, p, LLVMPointerTypeInContext(L->ctx, 1), "");
    return LLVMBuildPtrToInt(L->b, g, L->i64, "");
}

/* The raising thread's exception into the fault record, if it is the first to claim it. */
static void record_fault(Lower *L, LLVMValueRef k, LLVMValueRef exc, const char *kname)
{
    LLVMBuilderRef B = L->b;
    LLVMTypeRef ft = fault_type(L);
    LLVMValueRef rec = LLVMBuildLoad2(B, L->ptr, fault_global(L), "fault");
    LLVMBasicBlockRef claim = LLVMAppendBasicBlockInContext(L->ctx, k, "fault.claim");
    LLVMBasicBlockRef write = LLVMAppendBasicBlockInContext(L->ctx, k, "fault.write");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->ctx, k, "fault.done");
    LLVMBuildCondBr(B, LLVMBuildIsNotNull(B, rec, ""), claim, done);
    LLVMPositionBuilderAtEnd(B, claim);
    LLVMValueRef cas = LLVMBuildAtomicCmpXchg(B, LLVMBuildStructGEP2(B, ft, rec, 0, ""),
                                              LLVMConstInt(L->i32, 0, 0), LLVMConstInt(L->i32, 1, 0),
                                              LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
    LLVMBuildCondBr(B, LLVMBuildExtractValue(B, cas, 1, ""), write, done);
    LLVMPositionBuilderAtEnd(B, write);
    for (unsigned f = 0; f < 2; f++)   /* kind, nargs */
        LLVMBuildStore(B, LLVMBuildLoad2(B, L->i32, LLVMBuildStructGEP2(B, L->exc_ty, exc, f, ""), ""),
                       LLVMBuildStructGEP2(B, ft, rec, f + 1, ""));
    for (int i = 0; i < 6; i++) {
        LLVMValueRef idx[3] = {LLVMConstInt(L->i32, 0, 0), LLVMConstInt(L->i32, 3 + (unsigned)i / 3, 0),
                               LLVMConstInt(L->i32, (unsigned)i % 3, 0)};
        LLVMBuildStore(B, sreg_axis(L, i / 3, i % 3), LLVMBuildInBoundsGEP2(B, ft, rec, idx, 3, ""));
    }
    LLVMValueRef cls = LLVMBuildLoad2(B, L->ptr, LLVMBuildStructGEP2(B, L->exc_ty, exc, 2, ""), "");
    LLVMBuildStore(B, LLVMBuildPtrToInt(B, cls, L->i64, ""), LLVMBuildStructGEP2(B, ft, rec, 5, ""));
    LLVMValueRef msg = LLVMBuildLoad2(B, L->ptr, LLVMBuildStructGEP2(B, L->exc_ty, exc, 3, ""), "");
    LLVMValueRef msga = LLVMBuildSelect(B, LLVMBuildIsNull(B, msg, ""), lower_i64(L, 0),
                                        device_address(L, msg), "");
    LLVMBuildStore(B, msga, LLVMBuildStructGEP2(B, ft, rec, 6, ""));
    LLVMBuildStore(B, device_address(L, lower_device_string(L, kname, "pj.kname")),
                   LLVMBuildStructGEP2(B, ft, rec, 7, ""));
    LLVMTypeRef args_ty = LLVMArrayType(L->i64, 4);
    LLVMBuildStore(B, LLVMBuildLoad2(B, args_ty, LLVMBuildStructGEP2(B, L->exc_ty, exc, 4, ""), ""),
                   LLVMBuildStructGEP2(B, ft, rec, 8, ""));
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
}

/* A status other than OK (a raise, a failed assert or bounds check) leaves the exception in the
 * fault record, and the thread returns; the host raises it at its next synchronising call, as
 * numba-cuda does in debug mode. Free while nothing raises (the branch is not taken), and gone
 * where nothing can raise (the status folds to OK). With print, debug's, it is printed too. */
static void report_if_raised(Lower *L, LLVMValueRef k, LLVMValueRef status, LLVMValueRef exc,
                             const char *kname, bool print)
{
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(L->ctx, k, "raised");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(L->ctx, k, "done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, status, LLVMConstInt(L->i32, 0, 0), ""), bad, ok);
    LLVMPositionBuilderAtEnd(L->b, bad);
    if (print)
        print_exception(L, exc);
    record_fault(L, k, exc, kname);
    LLVMBuildBr(L->b, ok);
    LLVMPositionBuilderAtEnd(L->b, ok);
}

/* Whether some function of the kernel checks bounds (its own options or the kernel's): debug's
 * checks print what they find. */
static bool any_checks(Lower *L)
{
    for (int i = 0; i < L->prog->funcs.len; i++) {
        const TypedFunc *f = L->prog->funcs.items[i];
        const CompileOptions *o = f->opts ? f->opts : L->prog->opts;
        if (o && (o->debug || o->boundscheck))
            return true;
    }
    return false;
}

void lower_gpu_entry(Lower *L, TypedFunc *tf)
{
    Params p = {.n = 0};
    for (int i = 0; i < tf->nargs; i++)
        flatten(L, tf->argtypes[i], &p);
    LLVMValueRef native = tf->aux;
    char *name = arena_printf(L->prog->arena, "%s_kernel", tf->symbol);
    LLVMValueRef k = LLVMAddFunction(L->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(L->ctx), p.types, (unsigned)p.n, 0));
    mark_kernel(L, k);
    L->fn = k;
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->ctx, k, "entry");
    LLVMPositionBuilderAtEnd(L->b, entry);
    L->ir = tf->ir;
    lower_debug_function(L);   /* lineinfo: the body inlined here keeps its lines */
    LLVMValueRef args[tf->nargs + 2];
    Type *rt = tf->ret;
    args[0] = LLVMBuildAlloca(L->b, rt && rt->kind != TY_NONE ? lower_type(L, rt) : L->i8, "");
    args[1] = LLVMBuildAlloca(L->b, L->exc_ty, "");
    unsigned next = 0;
    for (int i = 0; i < tf->nargs; i++) {
        Type *t = tf->argtypes[i];
        LLVMValueRef v = rebuild(L, k, t, &next, i);
        if (t->kind == TY_ARRAY) {
            LLVMValueRef tmp = LLVMBuildAlloca(L->b, LLVMTypeOf(v), "");
            LLVMBuildStore(L->b, v, tmp);
            v = tmp;
        }
        args[i + 2] = v;
    }
    LLVMValueRef st = LLVMBuildCall2(L->b, LLVMGlobalGetValueType(native), native, args,
                                     (unsigned)tf->nargs + 2, "");
    report_if_raised(L, k, st, args[1], tf->ir->name, any_checks(L));
    LLVMBuildRetVoid(L->b);
    L->prog->gpu_entry = name;
}

/* ---- cuda.fp16 and cuda.libdevice ------------------------------------------------------------ */

/* An fp16 row's operation, named by its fn column: an LLVM instruction or intrinsic on half
 * values, an ordered comparison, or a float32 libdevice function (__nv_...) computed on the
 * widened value and rounded back to half once. */
LLVMValueRef lower_bi_half(Lower *L, Instr *in, Builtin bi)
{
    static const struct { const char *name; LLVMRealPredicate pred; } cmps[] = {
        {"oeq", LLVMRealOEQ}, {"one", LLVMRealONE}, {"olt", LLVMRealOLT},
        {"ole", LLVMRealOLE}, {"ogt", LLVMRealOGT}, {"oge", LLVMRealOGE},
    };
    LLVMBuilderRef B = L->b;
    const char *fn = ir_builtin_fn(bi);
    LLVMValueRef a[3] = {NULL, NULL, NULL};
    for (int i = 0; i < in->nargs && i < 3; i++)
        a[i] = lower_value(L, in->args[i]);
    LLVMTypeRef half = LLVMTypeOf(a[0]);
    if (strcmp(fn, "fadd") == 0)
        return LLVMBuildFAdd(B, a[0], a[1], "");
    if (strcmp(fn, "fsub") == 0)
        return LLVMBuildFSub(B, a[0], a[1], "");
    if (strcmp(fn, "fmul") == 0)
        return LLVMBuildFMul(B, a[0], a[1], "");
    if (strcmp(fn, "fdiv") == 0)
        return LLVMBuildFDiv(B, a[0], a[1], "");
    if (strcmp(fn, "fneg") == 0)
        return LLVMBuildFNeg(B, a[0], "");
    for (size_t i = 0; i < sizeof cmps / sizeof cmps[0]; i++)
        if (strcmp(fn, cmps[i].name) == 0)
            return LLVMBuildFCmp(B, cmps[i].pred, a[0], a[1], "");
    if (strncmp(fn, "llvm.", 5) == 0)
        return target_call_intrinsic(L->mod, B, fn, &half, 1, a, in->nargs);
    LLVMValueRef wide = LLVMBuildFPExt(B, a[0], L->f32, "");
    if (L->prog->gpu_sim)
        fn = lower_sim_libdevice(L, fn);
    LLVMValueRef r = target_call_extern(L->mod, B, fn, L->f32, &wide, 1);
    return LLVMBuildFPTrunc(B, r, half, "");
}

/* A libdevice function by its fn column's name; its results are the row's result type: a
 * scalar, or a tuple whose first item is the return value and the rest what the function wrote
 * through its trailing pointer parameters (frexp, modf, remquo). */
static LLVMValueRef call_with_outputs(Lower *L, Instr *in, const char *fn, bool returns)
{
    LLVMBuilderRef B = L->b;
    Type *rt = in->type;
    int nout = rt->kind == TY_TUPLE ? rt->tuple.n - returns : 0;
    LLVMValueRef args[8], slots[4];
    int n = 0;
    for (int i = 0; i < in->nargs; i++)
        args[n++] = lower_value(L, in->args[i]);
    for (int i = 0; i < nout; i++)
        args[n++] = slots[i] = lower_alloca(L, lower_type(L, rt->tuple.items[i + returns]));
    LLVMTypeRef ret = !returns ? LLVMVoidTypeInContext(L->ctx)
                               : lower_type(L, nout ? rt->tuple.items[0] : rt);
    LLVMValueRef r = target_call_extern(L->mod, B, fn, ret, args, n);
    if (!nout)
        return r;
    LLVMValueRef t = LLVMGetUndef(lower_type(L, rt));
    if (returns)
        t = LLVMBuildInsertValue(B, t, r, 0, "");
    for (int i = 0; i < nout; i++) {
        LLVMTypeRef ty = lower_type(L, rt->tuple.items[i + returns]);
        LLVMValueRef v = LLVMBuildLoad2(B, ty, slots[i], "");
        t = LLVMBuildInsertValue(B, t, v, (unsigned)(i + returns), "");
    }
    return t;
}

/* The function a libdevice row calls: its __nv_ function, or on the CPU simulator the one of
 * the same signature lower_sim_libdevice names. */
static const char *nv_function(Lower *L, Instr *in, Builtin bi)
{
    const char *fn = ir_builtin_fn(bi);
    return L->prog->gpu_sim ? lower_sim_libdevice(L, fn) : fn;
}

LLVMValueRef lower_bi_nv_call(Lower *L, Instr *in, Builtin bi)
{
    const char *fn = nv_function(L, in, bi);
    return fn ? call_with_outputs(L, in, fn, true) : NULL;
}

/* A void libdevice function whose results are all written through pointers (sincos). */
LLVMValueRef lower_bi_nv_outputs(Lower *L, Instr *in, Builtin bi)
{
    const char *fn = nv_function(L, in, bi);
    return fn ? call_with_outputs(L, in, fn, false) : NULL;
}
