/* lower.h: what the lowering files (lower.c, lower_math.c, lower_array.c) share; private to
 * them. The interface of lowering to the rest of compiler/ is lower_program in target.h.
 *
 * Value representation in LLVM (registers; memory layout in abi.h):
 *   bool i1 (i8 in memory), ints iN, floats half/float/double, complex {fN, fN},
 *   none {}, tuple {items...}, range {i64 start, i64 stop, i64 step}, optional {i1, value},
 *   slice {i64 start, i64 stop, i64 step, i1 has_start, i1 has_stop},
 *   array {ptr meminfo, ptr parent, ptr data, [n x i64] shape, [n x i64] strides} (an ArrayDesc
 *   by value), iterator ptr (its state, an alloca). Compile-time-only values have no LLVM value.
 *
 * Ownership of arrays: every array-valued instruction except ARG and CONST owns one reference
 * to its meminfo, held in a per-instruction slot (an alloca set to NULL on entry). Defining the
 * value again (a loop) releases the previous one; every exit releases all slots. */
#ifndef PYJIT_LOWER_H
#define PYJIT_LOWER_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "compiler/compiler.h"
#include "compiler/target.h"

typedef struct IterInfo IterInfo;

typedef struct Lower {
    Program *prog;
    const Target *t;
    Diag *diag;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;          /* the current position */
    LLVMBuilderRef ab;         /* the end of the entry block, for allocas */
    TypedFunc *tf;
    IRFunc *ir;
    const CompileOptions *opts; /* the function's own (TypedFunc.opts, else the Program's): its
                                 * fastmath, error_model and boundscheck; may be NULL */
    LLVMValueRef fn, ret_ptr, exc_ptr;
    LLVMValueRef exc_slot;     /* the function's frame copy of exc_ptr (CPU), or NULL */
    LLVMBasicBlockRef entry_bb, ret_bb;
    LLVMBasicBlockRef err_bb;   /* where what raises goes: fail_bb, or inside a try the block's
                                 * landing (lower_block_body) */
    LLVMBasicBlockRef fail_bb;  /* the function's exit with an exception */
    int nids;
    LLVMValueRef *vals;        /* by Instr id */
    LLVMValueRef *slots;       /* by Instr id: the meminfo slot of an owning instruction */
    IterInfo **iters;          /* by Instr id of GETITER */
    uint32_t *fits_axes;       /* by Instr id of ARRAY_GET/SET: axes whose check a loop's flag
                                * covers (NULL without boundscheck) */
    LLVMValueRef *loop_fits;   /* by Instr id of FOR_ITER: the flag of its loop and those around */
    uint32_t *wrap_axes;       /* by Instr id of ARRAY_GET/SET: covered axes whose flag allows
                                * [-n, n), the wrap of negative indices kept */
    Instr **inner_loop;        /* by Instr id of ARRAY_GET/SET or FOR_ITER: the innermost range
                                * loop around it */
    bool *outer_loop;          /* by Instr id of FOR_ITER: another range loop lies in its body */
    LLVMValueRef *exact_cmp;   /* by Instr id of COMPARE of an int64 with a float64: a flag, "the
                                * int is within 2**53 of zero", set by its loop (or NULL) */
    bool *fused;               /* by Instr id: an elementwise array operation computed inside its
                                * one user's loop (lower_array.c: lower_mark_fused), no array */
    PtrVec owned;              /* LLVMValueRef: every slot, released on exit */
    PtrVec caught;             /* LLVMValueRef: the ExcInfo slot of every CATCH, released on exit */
    Instr *cur;                /* the instruction being lowered (diagnostics) */
    bool *in_cycle;            /* by index in prog->funcs: part of a call cycle (checks the stack) */
    bool any_cycle;
    int64_t shared_bytes;      /* static shared memory of the module so far (GPU) */
    bool failed;
    bool ew_numpy;             /* lowering an element of an array operation: NumPy's error model
                                * (inf/nan, integer division by zero gives 0) whatever opts say */
    LLVMTypeRef i1, i8, i32, i64, f32, f64, ptr, none_ty, exc_ty, mi_ty;
    /* lineinfo (lower_debug.c): line tables, NULL without them */
    LLVMDIBuilderRef dib;
    LLVMMetadataRef di_file, di_sp;
} Lower;

/* lower_array.c: marks the elementwise array operations of the function to fuse into their user */
void lower_mark_fused(Lower *L);
/* lower_optional.c: optional(T) values: T or None made optional (CAST), OPTIONAL (GET, IS_NONE),
 * and the truth of an optional. */
LLVMValueRef lower_optional_cast(Lower *L, LLVMValueRef v, Type *from, Type *to);
LLVMValueRef lower_optional(Lower *L, Instr *in);
LLVMValueRef lower_optional_truth(Lower *L, LLVMValueRef v, Type *t);

/* lower.c: shared helpers */
LLVMTypeRef lower_type(Lower *L, Type *t);              /* NULL for compile-time-only types */
LLVMValueRef lower_value(Lower *L, Instr *in);
LLVMValueRef lower_i64(Lower *L, int64_t v);
LLVMValueRef lower_device_string(Lower *L, const char *s, const char *name);
LLVMValueRef lower_alloca(Lower *L, LLVMTypeRef ty);
LLVMBasicBlockRef lower_block(Lower *L, const char *name);
int lower_unsupported(Lower *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Raises kind (message msg, a printf format over the int64 args) when cond is true; the code
 * after continues where it is false. */
/* NumPy's error model: error_model='numpy', or an element of array arithmetic. */
bool lower_numpy_errors(Lower *L);
void lower_check(Lower *L, LLVMValueRef cond, AbiExcKind kind, const char *msg, LLVMValueRef *args,
                 int nargs);
/* lower_unlikely: the builder moves to a block taken when cond is true (for checks that need
 * several tests once the cheap one fails); it returns the block where code goes on otherwise.
 * lower_raise_exc ends the current block by raising kind. */
LLVMBasicBlockRef lower_unlikely(Lower *L, LLVMValueRef cond);
void lower_raise_exc(Lower *L, AbiExcKind kind, const char *msg);
/* i1: every index in the innermost range loop around access (and the loops around it) is in
 * bounds, computed before the loop; NULL when no such flag covers the index of axis axis of
 * access (lower.c). *wraps: the flag allows this index [-n, n), and its wrap stays. */
LLVMValueRef lower_loop_index_fits(Lower *L, Instr *access, int axis, bool *wraps);
/* Whether int value v is never negative by how it is made (range loop variables counting up
 * from a non-negative start, plus small constants); depth 0 from callers (lower.c). */
bool lower_known_nonneg(Lower *L, Instr *v, int depth);
void lower_incref(Lower *L, LLVMValueRef meminfo);
/* Arrays and lists are reference counted (and tuples holding them): lower_incref_value and
 * lower_decref_value take or release a reference on everything a value of type t holds. */
bool lower_is_counted(const Type *t);
void lower_incref_value(Lower *L, Type *t, LLVMValueRef v);
void lower_decref_value(Lower *L, Type *t, LLVMValueRef v);
void lower_own(Lower *L, Instr *in, LLVMValueRef array);   /* in's slot takes array's reference */
/* The references a value of type t holds taken by slots: in's for an array, list, dict or
 * string; one slot each for the counted items of a tuple or optional. */
void lower_own_value(Lower *L, Instr *in, Type *t, LLVMValueRef v);
/* in owns the new references a value r of type rt returned by a call carries; returns r. */
LLVMValueRef lower_own_returned(Lower *L, Instr *in, Type *rt, LLVMValueRef r);
LLVMValueRef lower_load_mem(Lower *L, Type *t, LLVMValueRef ptr);
void lower_store_mem(Lower *L, Type *t, LLVMValueRef v, LLVMValueRef ptr);
LLVMValueRef lower_cast(Lower *L, LLVMValueRef v, Type *from, Type *to);
LLVMValueRef lower_cast_numpy(Lower *L, LLVMValueRef v, Type *from, Type *to);   /* astype's */
LLVMValueRef lower_truth(Lower *L, LLVMValueRef v, Type *t);
LLVMValueRef lower_binop_scalar(Lower *L, BinOp op, Type *t, LLVMValueRef a, LLVMValueRef b,
                                Instr *rhs);
LLVMValueRef lower_unary_scalar(Lower *L, UnaryOp op, Type *t, LLVMValueRef a);
LLVMValueRef lower_compare_scalar(Lower *L, CmpOp op, Type *t, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef lower_array_contains(Lower *L, Instr *a, Instr *x);   /* x in a (lower_array.c) */
LLVMValueRef lower_const_f(Lower *L, Type *ft, double v);
LLVMValueRef lower_math(Lower *L, MathFn fn, Type *ft, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef lower_call_rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef *args,
                           int nargs);
/* The uniform wrapper symbol__wrap (abi.h) of tf; the builder is left inside it. */
LLVMValueRef lower_build_wrapper(Lower *L, TypedFunc *tf);
/* The native entry's arguments args[2..] loaded from a wrapper's void **argv (args[0], args[1],
 * the result and exception pointers, are the caller's). */
void lower_wrapper_args(Lower *L, TypedFunc *tf, LLVMValueRef argv, LLVMValueRef *args);
/* lower_sim.c: the kernel language on the CPU simulator (Program.gpu_sim). */
LLVMValueRef lower_sim_sreg(Lower *L, Instr *in, Builtin bi);
LLVMValueRef lower_sim_grid(Lower *L, Instr *in, bool size);
LLVMValueRef lower_sim_shared(Lower *L, int64_t n, int itemsize, LLVMValueRef *len);
LLVMValueRef lower_sim_barrier(Lower *L, Instr *in, Builtin bi);
void lower_sim_race(Lower *L, Instr *access, LLVMValueRef p, bool write, LLVMValueRef *index);
LLVMValueRef lower_sim_index_fits(Lower *L, Instr *ix, LLVMValueRef n);
LLVMValueRef lower_sim_fence(Lower *L, Instr *in, Builtin bi);
LLVMValueRef lower_sim_warp(Lower *L, Instr *in, Builtin bi);
LLVMValueRef lower_sim_unsupported(Lower *L, Instr *in, Builtin bi);
/* The CPU simulator's function for libdevice's nv_name: the C library's of that name
 * ("__nv_sinf": "sinf"), else simulator/libdevice.c's ("__nv_rsqrtf": "pj_sim_nv_rsqrtf"). */
const char *lower_sim_libdevice(Lower *L, const char *nv_name);
void lower_sim_block(Lower *L, TypedFunc *tf);
/* lower_sim_regions.c: the block function of a kernel with barriers cut into loops over its
 * threads, after a first optimisation; false when it cannot be (its threads need fibers). */
bool lower_sim_regions(Program *prog, LLVMModuleRef mod);
/* The same file: once the cut function's values are in registers, each round's loop split where
 * a test of the thread's x against a value the round shares turns (thread_nest). */
void lower_sim_split(LLVMModuleRef mod);
/* lower_ffi.c: the C entry symbol__cfunc of a cfunc (Program.cfunc), `R f(A0, ...)` in the C
 * ABI; the builder is left inside it. */
LLVMValueRef lower_build_cfunc(Lower *L, TypedFunc *tf);
LLVMValueRef lower_build_gpu_c_abi(Lower *L, TypedFunc *tf, const char *name);
/* The address of a Python object of this process (kind, handle: CodeRef in compiler.h) as code
 * uses it: a symbol the JIT binds when it loads the code, on the CPU; a constant on the GPU. */
LLVMValueRef lower_ref(Lower *L, RefKind kind, void *handle, void *addr);
/* Counted loops: i runs 0 .. n-1 between begin and end. */
typedef struct LoopInfo {
    LLVMValueRef i, n;
    LLVMBasicBlockRef head, body, exit, latch_from;
} LoopInfo;
LLVMValueRef lower_loop_begin(Lower *L, LoopInfo *lp, LLVMValueRef n);
void lower_loop_end(Lower *L, LoopInfo *lp);

/* lower_list.c: lists. lower_list_next reads item i for the loop item `in` (a counted item is
 * owned by it). */
LLVMValueRef lower_list_len(Lower *L, LLVMValueRef list);
LLVMValueRef lower_build_list(Lower *L, Instr *in);
LLVMValueRef lower_list_next(Lower *L, Instr *in, LLVMValueRef list, LLVMValueRef i);
LLVMValueRef lower_list_contains(Lower *L, Type *item, LLVMValueRef list, Type *xt, LLVMValueRef x);
/* min(list) or max(list) of numbers, as CPython's: the first of the extreme items; ValueError
 * when empty. */
LLVMValueRef lower_list_extreme(Lower *L, Type *item, LLVMValueRef list, bool is_max);
/* lower_list.c: a list's item storage (where its first item lies). */
LLVMValueRef lower_list_items(Lower *L, LLVMValueRef list);

/* lower_str.c: strings (abi.h's StrPayload). lower_str_hash is CPython's hash(s) (int64),
 * lower_str_equal s == t (i1): what hash tables keyed by strings need. lower_str_item is s[i]
 * (i in range) owned by owner; lower_str_const a constant string (never freed). */
LLVMValueRef lower_str_hash(Lower *L, LLVMValueRef s);
LLVMValueRef lower_str_equal(Lower *L, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef lower_str_compare(Lower *L, CmpOp op, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef lower_str_len(Lower *L, LLVMValueRef s);
LLVMValueRef lower_str_item(Lower *L, Instr *owner, LLVMValueRef s, LLVMValueRef i);
LLVMValueRef lower_str_const(Lower *L, const char *text);
void lower_str_print(Lower *L, LLVMValueRef s, bool quoted);   /* quoted: its repr */

/* lower_dict.c: dicts and sets (BUILD_DICT and BUILD_SET make one), their length, `in`, and the
 * next key of a loop over one (lower.c's iterator keeps the entry number in state and the length
 * the loop began with in used0). */
LLVMValueRef lower_build_dict(Lower *L, Instr *in);
LLVMValueRef lower_dict_len(Lower *L, LLVMValueRef d);
LLVMValueRef lower_dict_contains(Lower *L, Type *t, LLVMValueRef d, LLVMValueRef key);
LLVMValueRef lower_dict_next(Lower *L, Type *t, LLVMValueRef d, LLVMValueRef state, LLVMValueRef used0,
                             LLVMBasicBlockRef done);
/* lower_nditer.c: a loop over a TY_NDITER value v of type t: the number of items, and the i-th
 * (0 <= i < size) as a value of item_t (a view's reference owner's). */
LLVMValueRef lower_nditer_size(Lower *L, Type *t, LLVMValueRef v);
LLVMValueRef lower_nditer_item(Lower *L, Type *t, LLVMValueRef v, LLVMValueRef i, Type *item_t,
                               Instr *owner);
/* lower_array.c: Python's slice.indices(n) of a slice value: the length, *start and *step. */
LLVMValueRef lower_slice_indices(Lower *L, LLVMValueRef sl, LLVMValueRef n, LLVMValueRef *start_out,
                                 LLVMValueRef *step_out);
LLVMValueRef lower_slice_bounds(Lower *L, LLVMValueRef sl, LLVMValueRef n, LLVMValueRef *start_out,
                                LLVMValueRef *stop_out, LLVMValueRef *step_out);
/* lower_array.c: runtime/sort.c's key for elements of scalar type t. */
AbiSortKey lower_sort_key(Type *t);

/* The lowering handlers of builtins.def's lower column, lower_bi_<lower>: one INTRINSIC of
 * builtin bi (rows of one group share a handler, which reads the row's columns). */
#define BUILTIN(id, pyname, infer, lower, ...) LLVMValueRef lower_bi_##lower(Lower *L, Instr *in, Builtin bi);
#include "compiler/builtins.def"
#undef BUILTIN

/* lower_math.c: INTRINSIC, dispatched through builtins.def's lower column. */
int lower_intrinsic(Lower *L, Instr *in);
int lower_builtin_math(Builtin b);   /* the MathFn of b's fn column, or -1 */
LLVMValueRef lower_complex_abs(Lower *L, Type *ct, LLVMValueRef z);
/* isnan, isinf or isfinite (math., cmath. or numpy.) of x of type t: an int is finite, a
 * complex number nan or inf when a part is, finite when both are. */
LLVMValueRef lower_number_class(Lower *L, Builtin b, Type *t, LLVMValueRef x);
LLVMValueRef lower_minmax(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b, bool is_max,
                          bool nan_propagating);

/* lower_parallel.c: a loop of a parallel=True function outlined onto the thread pool. Between
 * lower_outline_begin and lower_outline_end the builder fills the body of a chunk function,
 * int32 chunk(ctx, lo, hi, slot, exc) (runtime/pool.c's RtChunkFn), with o->lo and o->hi the
 * iterations it runs; what it raises goes to its own exit. The values of the enclosing function
 * the body uses reach it through ctx, copied there by lower_outline_end, which then calls the
 * pool for the iterations [0, n) and raises what a chunk raised. */
typedef struct Outline {
    LLVMValueRef fn, lo, hi, slot;
    LLVMValueRef outer_fn, outer_exc;            /* the enclosing function's state, restored */
    LLVMBasicBlockRef outer_at, outer_allocas, outer_entry, outer_err, outer_fail;
    LLVMBasicBlockRef entry, fail, body;
} Outline;
bool lower_parallel_ok(Lower *L);    /* parallel=True, on the CPU */
void lower_outline_begin(Lower *L, Outline *o);
void lower_outline_end(Lower *L, Outline *o, LLVMValueRef n);

/* lower_array.c */
LLVMValueRef lower_array_get(Lower *L, Instr *in);
int lower_array_set(Lower *L, Instr *in);
LLVMValueRef lower_array_attr(Lower *L, Instr *in);
LLVMValueRef lower_array_binop(Lower *L, Instr *in);
LLVMValueRef lower_array_unary(Lower *L, Instr *in);
LLVMValueRef lower_array_compare(Lower *L, Instr *in);
LLVMValueRef lower_array_dim(Lower *L, LLVMValueRef arr, int k);
LLVMValueRef lower_array_stride(Lower *L, Type *at, LLVMValueRef arr, int k);
LLVMValueRef lower_array_data(Lower *L, LLVMValueRef arr);
LLVMValueRef lower_array_load(Lower *L, Type *dtype, LLVMValueRef ptr);
LLVMValueRef lower_array_element(Lower *L, Instr *owner, Type *dtype, LLVMValueRef ptr);
/* fn over the elements of in's operands args[0..nops-1] (arrays broadcast together, scalars as
 * they are) into a new array of in->type, or into args[0] when inplace: the result. */
typedef LLVMValueRef (*LowerElemFn)(Lower *L, void *ctx, LLVMValueRef *elems);
LLVMValueRef lower_array_map(Lower *L, Instr *in, int nops, bool inplace, LowerElemFn fn, void *ctx);
/* lower_structured.c: the record of type rt at data in the array of MemInfo meminfo, with a
 * reference of its own that owner's slot takes (none when owner is NULL: used at once); and the
 * address of a record's bytes. */
LLVMValueRef lower_record_in(Lower *L, Instr *owner, Type *rt, LLVMValueRef meminfo, LLVMValueRef data);
LLVMValueRef lower_record_data(Lower *L, LLVMValueRef rec);
void lower_array_store(Lower *L, Type *dtype, LLVMValueRef v, LLVMValueRef ptr);
/* An array value from its parts (parent NULL); shape and strides hold ndim values each. */
LLVMValueRef lower_array_make(Lower *L, Type *at, LLVMValueRef meminfo, LLVMValueRef data,
                              LLVMValueRef *shape, LLVMValueRef *strides);
/* The view arr[i] along the first axis (no wrap, no check), of type vt. */
LLVMValueRef lower_array_subview(Lower *L, Type *at, LLVMValueRef arr, LLVMValueRef i, Type *vt);

/* lower_array.c: the element pointer of in->args[0][in->args[1..nidx]] (int indices, wrapped
 * and checked as ARRAY_GET does). */
LLVMValueRef lower_array_elem_ptr(Lower *L, Instr *in, int nidx);

/* lower_exc.c: try/except. CATCH saves the pending ExcInfo in a slot of its own (its value, a
 * pointer); EXC_MATCH tests the saved exception's class; RAISE of a caught exception copies it
 * back and raises it; EXC_DONE releases what the slot holds, as every exit does. Kernels have
 * no exceptions to catch: lower_exc_check_kernel refuses a try in one. */
LLVMValueRef lower_catch(Lower *L, Instr *in);
LLVMValueRef lower_exc_match(Lower *L, Instr *in);
void lower_exc_done(Lower *L, Instr *in);
void lower_reraise(Lower *L, Instr *in);
void lower_exc_release_caught(Lower *L);
int lower_exc_check_kernel(Lower *L);

/* lower_gpu.c (target_nvptx): print through vprintf, the constant-memory copy of a frozen array,
 * the stand-ins of the runtime's reference counting (arrays in kernels own no memory), and the
 * kernel entry over the entry's native function. The GPU builtins are lower_bi_ handlers. */
LLVMValueRef lower_gpu_print(Lower *L, Instr *in);
LLVMValueRef lower_gpu_const_array(Lower *L, const Const *c, Type *t);
void lower_gpu_prepare(Lower *L);
/* lower_debug.c: line tables (prog->lineinfo): a compile unit for the module, a subprogram per
 * function, the line of each IR instruction on what it lowers to; finish repairs what lowering
 * placed outside its function's scope, and finalises. */
void lower_debug_begin(Lower *L);
void lower_debug_function(Lower *L);
void lower_debug_line(Lower *L, int line);
void lower_debug_finish(Lower *L);
void lower_gpu_entry(Lower *L, TypedFunc *tf);

#endif
