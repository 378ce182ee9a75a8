/* target.h: what one lowering (lower*.c) asks of the machine it generates code for.
 *
 * lower*.c emits the same LLVM IR for every target except where a Target says otherwise: the
 * module's triple and data layout, the address spaces arrays live in, and how a math function is
 * reached (the CPU calls LLVM intrinsics or libm; the GPU calls libdevice's __nv_* functions).
 * A Target is a constant table of data and function pointers; target_cpu.c and target_nvptx.c
 * each define one. Plain C over the LLVM C API. */
#ifndef PYJIT_TARGET_H
#define PYJIT_TARGET_H

#include <stdbool.h>

#include <llvm-c/Core.h>

#include "compiler/ir.h"

/* The math functions a target must supply, for float32 and float64. Keep in step with
 * target_cpu.c's and target_nvptx.c's name tables. */
typedef enum MathFn {
    MF_SQRT, MF_EXP, MF_EXPM1, MF_LOG, MF_LOG2, MF_LOG10, MF_LOG1P,
    MF_SIN, MF_COS, MF_TAN, MF_ASIN, MF_ACOS, MF_ATAN, MF_ATAN2,
    MF_SINH, MF_COSH, MF_TANH, MF_ASINH, MF_ACOSH, MF_ATANH,
    MF_ERF, MF_ERFC, MF_TGAMMA, MF_LGAMMA,
    MF_FABS, MF_FLOOR, MF_CEIL, MF_TRUNC, MF_RINT, MF_POW, MF_HYPOT, MF_COPYSIGN, MF_FMOD,
    MF_MINNUM, MF_MAXNUM,
    MF__COUNT
} MathFn;

/* The MathFn whose libm name (on the CPU) is name ("sqrt", "tgamma"), or -1: builtins.def's fn
 * column names math this way. */
int target_math_named(const char *name);

typedef struct Target {
    const char *name;           /* "cpu", "nvptx" */
    bool is_gpu;
    int generic_as;             /* address space of ordinary pointers (0) */
    int shared_as;              /* GPU shared memory (3); -1 on the CPU */
    /* The triple and data layout of the module; the CPU fills them from the host's target
     * machine (jit.c), so these may be NULL there. */
    const char *triple;
    const char *data_layout;
    /* Emits fn(args) for a float type ft (LLVMFloatType or LLVMDoubleType of ctx) at the
     * builder's position; nargs is 1 or 2 by fn. Declares what it calls in mod. */
    LLVMValueRef (*emit_math)(LLVMModuleRef mod, LLVMBuilderRef b, MathFn fn, LLVMTypeRef ft,
                              LLVMValueRef *args, int nargs);
    /* x (a float or double) truncated to an int64 by an instruction that gives INT64_MIN for
     * NaN, the infinities and values out of range (x86's cvttsd2si), or NULL where the target
     * has none: then int() of a float tests the float before a plain conversion. */
    LLVMValueRef (*truncate_i64)(LLVMModuleRef mod, LLVMBuilderRef b, LLVMValueRef x);
} Target;

const Target *target_cpu(void);
const Target *target_nvptx(void);

/* lower.c: every function of prog as one LLVM module in ctx, for target t. The caller owns the
 * module (NULL and diag filled on failure). The module's triple and data layout are set by the
 * caller when t leaves them NULL. */
struct Program;
struct Diag;
LLVMModuleRef lower_program(struct Program *prog, const Target *t, LLVMContextRef ctx,
                            struct Diag *diag);

/* Emits an LLVM intrinsic call: name like "llvm.sqrt" with its overload types. Shared by
 * targets and lowering. */
LLVMValueRef target_call_intrinsic(LLVMModuleRef mod, LLVMBuilderRef b, const char *name,
                                   LLVMTypeRef *overloads, int noverloads, LLVMValueRef *args,
                                   int nargs);
/* Calls (declaring if needed) an external function `name` of type ret(args' types). */
LLVMValueRef target_call_extern(LLVMModuleRef mod, LLVMBuilderRef b, const char *name,
                                LLVMTypeRef ret, LLVMValueRef *args, int nargs);

#endif
