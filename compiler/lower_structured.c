/* lower_structured.c: NumPy records (structured dtypes) in compiled code.
 *
 * A record value is a view of its bytes, {MemInfo, address}: writing a field writes the array,
 * as in Numba. It holds a reference on the MemInfo of the array it is in, as a view does, so a
 * record outlives the array's other uses safely (a np.void argument has none: its caller holds
 * it). Fields are read and written at their NumPy offsets with the array items' alignment
 * (lower_array_load/store: 1 on the CPU, packed dtypes included); a nested record and a
 * subarray's array view are views of the same bytes, sharing the MemInfo. */
#include "compiler/lower.h"

LLVMValueRef lower_record_in(Lower *L, Instr *owner, Type *rt, LLVMValueRef meminfo, LLVMValueRef data)
{
    LLVMValueRef v = LLVMGetUndef(lower_type(L, rt));
    v = LLVMBuildInsertValue(L->b, v, meminfo, 0, "");
    v = LLVMBuildInsertValue(L->b, v, data, 1, "");
    if (owner) {
        lower_incref(L, meminfo);
        lower_own(L, owner, v);
    }
    return v;
}

LLVMValueRef lower_record_data(Lower *L, LLVMValueRef rec)
{
    return LLVMBuildExtractValue(L->b, rec, 1, "");
}

static LLVMValueRef field_at(Lower *L, LLVMValueRef data, const RecordField *f)
{
    LLVMValueRef off = lower_i64(L, f->offset);
    return LLVMBuildInBoundsGEP2(L->b, L->i8, data, &off, 1, "");
}

/* The shape and C-contiguous strides of subarray field f. */
static void subarray_strides(Lower *L, const RecordField *f, LLVMValueRef *shape, LLVMValueRef *strides)
{
    int64_t s = ty_itemsize(f->type);
    for (int d = f->ndim - 1; d >= 0; d--) {
        shape[d] = lower_i64(L, f->shape[d]);
        strides[d] = lower_i64(L, s);
        s *= f->shape[d];
    }
}

/* The largest alignment of record type rt's fields when every field lies at a multiple of its
 * own alignment and the size is a multiple of the largest (NumPy's aligned layout, or one that
 * happens to be), else 0. */
static int64_t natural_align(const Type *rt)
{
    int64_t max = 1;
    for (int i = 0; i < rt->record.n; i++) {
        const Type *t = rt->record.fields[i].type;
        int64_t a = t->kind == TY_RECORD ? natural_align(t)
                  : ty_is_complex(t) ? ty_itemsize(t) / 2 : ty_itemsize(t);
        if (a == 0 || rt->record.fields[i].offset % a)
            return 0;
        max = a > max ? a : max;
    }
    return rt->record.size % max ? 0 : max;
}

/* A GPU load or store must be aligned: the fields of a packed record (np.dtype([('x', 'f8'),
 * ('n', 'i4')]): the second item's x is at byte 12) are moved bytewise, as LLVM does for
 * alignment 1. On the CPU every access already is (lower_array_load). */
static bool packed_on_gpu(Lower *L, const Type *rt)
{
    return prog_kernel_code(L->prog) && natural_align(rt) == 0;
}

static LLVMValueRef load_scalar(Lower *L, const Type *rt, Type *ft, LLVMValueRef p)
{
    LLVMValueRef v = lower_array_load(L, ft, p);
    if (!packed_on_gpu(L, rt))
        return v;
    LLVMValueRef ld = ft->kind == TY_BOOL ? LLVMGetOperand(v, 0) : v;
    LLVMSetAlignment(ld, 1);
    return v;
}

static void store_scalar(Lower *L, const Type *rt, Type *ft, LLVMValueRef v, LLVMValueRef p)
{
    lower_array_store(L, ft, v, p);
    if (packed_on_gpu(L, rt) && ft->kind != TY_RECORD)
        LLVMSetAlignment(LLVMGetLastInstruction(LLVMGetInsertBlock(L->b)), 1);
}

/* A scalar field's value, or a view (a nested record, a subarray) sharing rec's MemInfo. */
static LLVMValueRef get_field(Lower *L, Instr *in, const Type *rt, LLVMValueRef rec, const RecordField *f)
{
    LLVMValueRef p = field_at(L, lower_record_data(L, rec), f), mi = LLVMBuildExtractValue(L->b, rec, 0, "");
    if (f->ndim == 0 && f->type->kind == TY_RECORD)
        return lower_record_in(L, in, f->type, mi, p);
    if (f->ndim == 0)
        return load_scalar(L, rt, f->type, p);
    LLVMValueRef shape[TY_RECORD_MAX_NDIM], strides[TY_RECORD_MAX_NDIM];
    subarray_strides(L, f, shape, strides);
    LLVMValueRef v = lower_array_make(L, in->type, mi, p, shape, strides);
    lower_incref(L, mi);
    lower_own(L, in, v);
    return v;
}

/* a['x']: the array's shape and strides, then the subarray's; the array's MemInfo and parent,
 * with a reference of its own. */
static LLVMValueRef field_view(Lower *L, Instr *in, const RecordField *f)
{
    Type *at = in->args[0]->type;
    LLVMValueRef arr = lower_value(L, in->args[0]);
    LLVMValueRef shape[TY_RECORD_MAX_NDIM], strides[TY_RECORD_MAX_NDIM];
    int nd = at->array.ndim;
    for (int k = 0; k < nd; k++) {
        shape[k] = lower_array_dim(L, arr, k);
        strides[k] = lower_array_stride(L, at, arr, k);
    }
    subarray_strides(L, f, shape + nd, strides + nd);
    LLVMValueRef data = field_at(L, lower_array_data(L, arr), f);
    LLVMValueRef mi = LLVMBuildExtractValue(L->b, arr, 0, "");
    LLVMValueRef v = lower_array_make(L, in->type, mi, data, shape, strides);
    v = LLVMBuildInsertValue(L->b, v, LLVMBuildExtractValue(L->b, arr, 1, ""), 1, "");
    lower_incref(L, mi);
    lower_own(L, in, v);
    return v;
}

LLVMValueRef lower_bi_record(Lower *L, Instr *in, Builtin bi)
{
    Type *rt = bi == BI_RECORD_VIEW ? in->args[0]->type->array.dtype : in->args[0]->type;
    const RecordField *f = &rt->record.fields[in->imm];
    if (packed_on_gpu(L, rt) && (bi == BI_RECORD_VIEW ||
                                 (bi == BI_RECORD_GET && (f->ndim > 0 || f->type->kind == TY_RECORD)))) {
        /* an array view, or a nested record (whose own type does not know where it lies), loads
         * its items whole: the GPU cannot, off their alignment */
        lower_unsupported(L, "an array view or nested record of field '%s' of a packed "
                          "structured dtype is not supported on the GPU (its items are not "
                          "aligned): make the dtype with align=True", f->name);
        return NULL;
    }
    switch (bi) {
    case BI_RECORD_GET:
        return get_field(L, in, rt, lower_value(L, in->args[0]), f);
    case BI_RECORD_SET:
        store_scalar(L, rt, f->type, lower_value(L, in->args[1]),
                     field_at(L, lower_record_data(L, lower_value(L, in->args[0])), f));
        return LLVMConstNull(L->none_ty);
    case BI_RECORD_VIEW:
        return field_view(L, in, f);
    default:
        lower_unsupported(L, "record builtin %d", (int)bi);
        return NULL;
    }
}
