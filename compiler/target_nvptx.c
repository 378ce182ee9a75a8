/* target_nvptx.c: the NVIDIA GPU target (a first version: the table is complete, the GPU entry
 * ABI and the PTX emission come with @gpu.jit). Math goes to libdevice's __nv_* functions, which
 * jit.c links into the module before optimising; float32 uses the __nv_*f variants. */
#include "compiler/target.h"

#include <stdio.h>

/* libdevice names (float64; float32 appends "f"), indexed by MathFn. */
static const char *const nv_math[MF__COUNT] = {
    [MF_SQRT] = "__nv_sqrt",   [MF_EXP] = "__nv_exp",       [MF_EXPM1] = "__nv_expm1",
    [MF_LOG] = "__nv_log",     [MF_LOG2] = "__nv_log2",     [MF_LOG10] = "__nv_log10",
    [MF_LOG1P] = "__nv_log1p", [MF_SIN] = "__nv_sin",       [MF_COS] = "__nv_cos",
    [MF_TAN] = "__nv_tan",     [MF_ASIN] = "__nv_asin",     [MF_ACOS] = "__nv_acos",
    [MF_ATAN] = "__nv_atan",   [MF_ATAN2] = "__nv_atan2",   [MF_SINH] = "__nv_sinh",
    [MF_COSH] = "__nv_cosh",   [MF_TANH] = "__nv_tanh",     [MF_ASINH] = "__nv_asinh",
    [MF_ACOSH] = "__nv_acosh", [MF_ATANH] = "__nv_atanh",   [MF_ERF] = "__nv_erf",
    [MF_ERFC] = "__nv_erfc",   [MF_TGAMMA] = "__nv_tgamma", [MF_LGAMMA] = "__nv_lgamma",
    [MF_FABS] = "__nv_fabs",   [MF_FLOOR] = "__nv_floor",   [MF_CEIL] = "__nv_ceil",
    [MF_TRUNC] = "__nv_trunc", [MF_RINT] = "__nv_rint",     [MF_POW] = "__nv_pow",
    [MF_HYPOT] = "__nv_hypot", [MF_COPYSIGN] = "__nv_copysign", [MF_FMOD] = "__nv_fmod",
    [MF_MINNUM] = "__nv_fmin", [MF_MAXNUM] = "__nv_fmax",
};

static LLVMValueRef nvptx_emit_math(LLVMModuleRef mod, LLVMBuilderRef b, MathFn fn,
                                    LLVMTypeRef ft, LLVMValueRef *args, int nargs)
{
    char name[40];
    bool single = LLVMGetTypeKind(ft) == LLVMFloatTypeKind;
    snprintf(name, sizeof name, "%s%s", nv_math[fn], single ? "f" : "");
    return target_call_extern(mod, b, name, ft, args, nargs);
}

static const Target nvptx_target = {
    .name = "nvptx",
    .is_gpu = true,
    .generic_as = 0,
    .shared_as = 3,
    .triple = "nvptx64-nvidia-cuda",
    .data_layout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64",
    .emit_math = nvptx_emit_math,
};

const Target *target_nvptx(void)
{
    return &nvptx_target;
}
