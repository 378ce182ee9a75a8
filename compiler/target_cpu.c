/* target_cpu.c: the CPU target. Math goes to LLVM intrinsics where LLVM has one (so the
 * optimiser can fold, vectorise and pick instructions), and to the process's libm otherwise; the
 * JIT resolves libm symbols from the process (jit.c). float32 stays float32 (sqrtf, expf, ...). */
#include "compiler/target.h"

#include <stdio.h>
#include <string.h>

LLVMValueRef target_call_intrinsic(LLVMModuleRef mod, LLVMBuilderRef b, const char *name,
                                   LLVMTypeRef *overloads, int noverloads, LLVMValueRef *args,
                                   int nargs)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(mod, id, overloads, (size_t)noverloads);
    LLVMTypeRef fty = LLVMIntrinsicGetType(LLVMGetModuleContext(mod), id, overloads,
                                           (size_t)noverloads);
    return LLVMBuildCall2(b, fty, fn, args, (unsigned)nargs, "");
}

LLVMValueRef target_call_extern(LLVMModuleRef mod, LLVMBuilderRef b, const char *name,
                                LLVMTypeRef ret, LLVMValueRef *args, int nargs)
{
    LLVMTypeRef params[16];
    for (int i = 0; i < nargs && i < 16; i++)
        params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, params, (unsigned)nargs, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(mod, name);
    if (!fn)
        fn = LLVMAddFunction(mod, name, fty);
    return LLVMBuildCall2(b, fty, fn, args, (unsigned)nargs, "");
}

/* Per MathFn: the LLVM intrinsic (NULL if none worth using) and the libm name (float64). */
static const struct { const char *intrinsic, *libm; } cpu_math[MF__COUNT] = {
    [MF_SQRT] = {"llvm.sqrt", "sqrt"},       [MF_EXP] = {"llvm.exp", "exp"},
    [MF_EXPM1] = {NULL, "expm1"},            [MF_LOG] = {"llvm.log", "log"},
    [MF_LOG2] = {"llvm.log2", "log2"},       [MF_LOG10] = {"llvm.log10", "log10"},
    [MF_LOG1P] = {NULL, "log1p"},            [MF_SIN] = {"llvm.sin", "sin"},
    [MF_COS] = {"llvm.cos", "cos"},          [MF_TAN] = {NULL, "tan"},
    [MF_ASIN] = {NULL, "asin"},              [MF_ACOS] = {NULL, "acos"},
    [MF_ATAN] = {NULL, "atan"},              [MF_ATAN2] = {NULL, "atan2"},
    [MF_SINH] = {NULL, "sinh"},              [MF_COSH] = {NULL, "cosh"},
    [MF_TANH] = {NULL, "tanh"},              [MF_ASINH] = {NULL, "asinh"},
    [MF_ACOSH] = {NULL, "acosh"},            [MF_ATANH] = {NULL, "atanh"},
    [MF_ERF] = {NULL, "erf"},                [MF_ERFC] = {NULL, "erfc"},
    [MF_TGAMMA] = {NULL, "tgamma"},          [MF_LGAMMA] = {NULL, "lgamma"},
    [MF_FABS] = {"llvm.fabs", "fabs"},       [MF_FLOOR] = {"llvm.floor", "floor"},
    [MF_CEIL] = {"llvm.ceil", "ceil"},       [MF_TRUNC] = {"llvm.trunc", "trunc"},
    [MF_RINT] = {"llvm.rint", "rint"},       [MF_POW] = {"llvm.pow", "pow"},
    [MF_HYPOT] = {NULL, "hypot"},            [MF_COPYSIGN] = {"llvm.copysign", "copysign"},
    [MF_FMOD] = {NULL, "fmod"},              [MF_MINNUM] = {"llvm.minnum", "fmin"},
    [MF_MAXNUM] = {"llvm.maxnum", "fmax"},
};

int target_math_named(const char *name)
{
    for (int fn = 0; name && fn < MF__COUNT; fn++)
        if (strcmp(cpu_math[fn].libm, name) == 0)
            return fn;
    return -1;
}

static LLVMValueRef cpu_emit_math(LLVMModuleRef mod, LLVMBuilderRef b, MathFn fn, LLVMTypeRef ft,
                                  LLVMValueRef *args, int nargs)
{
    if (fn == MF_FMOD)   /* frem is C's fmod */
        return LLVMBuildFRem(b, args[0], args[1], "");
    if (cpu_math[fn].intrinsic)
        return target_call_intrinsic(mod, b, cpu_math[fn].intrinsic, &ft, 1, args, nargs);
    char name[32];
    bool single = LLVMGetTypeKind(ft) == LLVMFloatTypeKind;
    snprintf(name, sizeof name, "%s%s", cpu_math[fn].libm, single ? "f" : "");
    return target_call_extern(mod, b, name, ft, args, nargs);
}

#if defined(__x86_64__)
/* cvttsd2si / cvttss2si: defined for every input (INT64_MIN where no int64 is right), unlike
 * LLVM's fptosi, so a checked int() tests the result instead of the float. */
static LLVMValueRef cpu_truncate_i64(LLVMModuleRef mod, LLVMBuilderRef b, LLVMValueRef x)
{
    LLVMTypeRef ft = LLVMTypeOf(x);
    bool single = LLVMGetTypeKind(ft) == LLVMFloatTypeKind;
    LLVMTypeRef vt = LLVMVectorType(ft, single ? 4 : 2);
    LLVMContextRef ctx = LLVMGetModuleContext(mod);
    LLVMValueRef v = LLVMBuildInsertElement(b, LLVMGetUndef(vt), x,
                                            LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0), "");
    const char *name = single ? "llvm.x86.sse.cvttss2si64" : "llvm.x86.sse2.cvttsd2si64";
    return target_call_intrinsic(mod, b, name, NULL, 0, &v, 1);
}
#define CPU_TRUNCATE_I64 cpu_truncate_i64
#else
#define CPU_TRUNCATE_I64 NULL
#endif

static const Target cpu_target = {
    .name = "cpu",
    .is_gpu = false,
    .generic_as = 0,
    .shared_as = -1,
    .triple = NULL,
    .data_layout = NULL,
    .emit_math = cpu_emit_math,
    .truncate_i64 = CPU_TRUNCATE_I64,
};

const Target *target_cpu(void)
{
    return &cpu_target;
}
