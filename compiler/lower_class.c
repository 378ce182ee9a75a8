/* lower_class.c: jitclass instances (types.h TY_CLASS): making one, reading and writing a field.
 *
 * An instance is a MemInfo whose data holds the fields, laid out as the tuple of their types
 * (abi.h ClassTrailer). Fields are loads and stores at the tuple's offsets; a field that holds
 * references (an array, a list, a dict, another instance) keeps one of its own, taken when it is
 * written and released when it is overwritten or the instance freed (runtime/jitclass.c), and
 * reading one gives the reader a new reference, as a list's items do. */
#include "compiler/lower.h"

#include <stdio.h>

/* The address of field i of instance obj (of type t). */
static LLVMValueRef field_ptr(Lower *L, Type *t, LLVMValueRef obj, int i)
{
    LLVMValueRef mi = LLVMBuildExtractValue(L->b, obj, 0, "");
    LLVMValueRef data = LLVMBuildLoad2(L->b, L->ptr, LLVMBuildStructGEP2(L->b, L->mi_ty, mi, 1, ""),
                                       "instance.data");
    LLVMValueRef off = lower_i64(L, ty_tuple_offset(t->klass.data, i));
    return LLVMBuildInBoundsGEP2(L->b, L->i8, data, &off, 1, "");
}

/* The constant table of the offsets of the MemInfo pointers t's fields hold. */
static LLVMValueRef refs_table(Lower *L, Type *t, int *nrefs)
{
    int max = 4 * t->klass.data->tuple.n + 1;
    int32_t *refs = arena_alloc(L->prog->arena, sizeof *refs * (size_t)max);
    *nrefs = ty_ref_offsets(t->klass.data, 0, refs, 0, max);
    LLVMValueRef *rv = arena_alloc(L->prog->arena, sizeof *rv * (size_t)(*nrefs + 1));
    for (int k = 0; k < *nrefs; k++)
        rv[k] = LLVMConstInt(L->i32, (unsigned)refs[k], 0);
    LLVMValueRef table = LLVMConstArray(L->i32, rv, (unsigned)*nrefs);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMTypeOf(table), "pj.class.refs");
    LLVMSetInitializer(g, table);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    return g;
}

/* A new instance of type t, its fields zeroed, owned by in. */
static LLVMValueRef class_new(Lower *L, Instr *in, Type *t)
{
    int nrefs = 0;
    LLVMValueRef table = refs_table(L, t, &nrefs);
    LLVMValueRef args[3] = {lower_i64(L, ty_mem_size(t->klass.data)), table,
                            LLVMConstInt(L->i32, (unsigned)nrefs, 0)};
    LLVMValueRef mi = lower_call_rt(L, "pj_class_new", L->ptr, args, 3);
    lower_check(L, LLVMBuildIsNull(L->b, mi, ""), ABI_EXC_MEMORY, "out of memory making an instance",
                NULL, 0);
    LLVMValueRef obj = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, t)), mi, 0, "");
    lower_own(L, in, obj);
    return obj;
}

/* Field i read for in: a counted value gives in a reference of its own. */
static LLVMValueRef get_field(Lower *L, Instr *in, Type *t, LLVMValueRef obj, int i)
{
    Type *ft = t->klass.data->tuple.items[i];
    LLVMValueRef v = lower_load_mem(L, ft, field_ptr(L, t, obj, i));
    if (ft->kind != TY_ARRAY && ty_holds_meminfo(ft)) {   /* zeroed until __init__ sets it */
        char msg[300];
        snprintf(msg, sizeof msg, "field '%s' of jitclass %s was read before it was set",
                 t->klass.fields[i], t->klass.cls_name);
        lower_check(L, LLVMBuildIsNull(L->b, LLVMBuildExtractValue(L->b, v, 0, ""), ""),
                    ABI_EXC_VALUE, msg, NULL, 0);
    }
    if (lower_is_counted(ft)) {   /* a tuple or an optional: each reference in it owned */
        lower_incref_value(L, ft, v);
        lower_own_value(L, in, ft, v);
    }
    return v;
}

/* The array v with a reference of its own for a field: its MemInfo's, or, for an array NumPy
 * owns (an argument, or a view of one: no MemInfo, borrowed for the call), a new MemInfo keeping
 * that array alive, so the field outlives the call safely. The parent is not kept: a field's
 * array reaches Python again through its MemInfo. */
static LLVMValueRef owned_array(Lower *L, LLVMValueRef v)
{
    LLVMValueRef mi = LLVMBuildExtractValue(L->b, v, 0, "");
    LLVMValueRef parent = LLVMBuildExtractValue(L->b, v, 1, "");
    LLVMValueRef borrowed = LLVMBuildAnd(L->b, LLVMBuildIsNull(L->b, mi, ""),
                                         LLVMBuildIsNotNull(L->b, parent, ""), "");
    lower_incref(L, mi);   /* a no-op where it is borrowed: there is no MemInfo */
    LLVMBasicBlockRef kept_at = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef cont = lower_unlikely(L, borrowed);
    LLVMValueRef args[2] = {parent, LLVMBuildExtractValue(L->b, v, 2, "")};
    LLVMValueRef adopted = lower_call_rt(L, "pj_array_adopt", L->ptr, args, 2);
    lower_check(L, LLVMBuildIsNull(L->b, adopted, ""), ABI_EXC_MEMORY,
                "out of memory keeping an array in a field", NULL, 0);
    LLVMBasicBlockRef adopted_at = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, cont);
    LLVMPositionBuilderAtEnd(L->b, cont);
    LLVMValueRef phi = LLVMBuildPhi(L->b, L->ptr, "field.mi");
    LLVMValueRef vals[2] = {adopted, mi};
    LLVMBasicBlockRef blocks[2] = {adopted_at, kept_at};
    LLVMAddIncoming(phi, vals, blocks, 2);
    v = LLVMBuildInsertValue(L->b, v, phi, 0, "");
    return LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->ptr), 1, "");
}

/* Field i set to v: the field takes a reference on what v holds, then lets go of the old value
 * (in this order, so that storing a field's own value back keeps it alive). */
static void set_field(Lower *L, Type *t, LLVMValueRef obj, int i, LLVMValueRef v)
{
    Type *ft = t->klass.data->tuple.items[i];
    LLVMValueRef at = field_ptr(L, t, obj, i);
    bool counted = lower_is_counted(ft);
    LLVMValueRef old = counted ? lower_load_mem(L, ft, at) : NULL;
    if (ft->kind == TY_ARRAY)
        v = owned_array(L, v);
    else if (counted)
        lower_incref_value(L, ft, v);
    lower_store_mem(L, ft, v, at);
    if (counted)
        lower_decref_value(L, ft, old);
}

LLVMValueRef lower_bi_jitclass(Lower *L, Instr *in, Builtin bi)
{
    switch (bi) {
    case BI_CLASS_NEW:
        return class_new(L, in, in->type);
    case BI_CLASS_GET:
        return get_field(L, in, in->args[0]->type, lower_value(L, in->args[0]), (int)in->imm);
    case BI_CLASS_SET:
        set_field(L, in->args[0]->type, lower_value(L, in->args[0]), (int)in->imm,
                  lower_value(L, in->args[1]));
        return LLVMConstNull(L->none_ty);
    default:
        lower_unsupported(L, "jitclass builtin %d", (int)bi);
        return NULL;
    }
}
