/* jit.c: the LLVM half of the pipeline, one call per stage (pipeline.c calls them in order):
 * jit_lower puts the typed program into one LLVM module (prog->llvm, released with the arena),
 * jit_verify and jit_optimise check and optimise it, and jit_emit_cpu makes it an object file
 * and loads that into ORC LLJIT (jit_load_object, which also loads object code from the on-disk
 * cache), or jit_emit_ptx prints it as PTX. jit_asm_of turns a kept optimised module back into
 * assembly, and jit_release frees a version's machine code. The file reads in that order, after
 * the module the stages pass along and the per-process JIT and target machines.
 *
 * One LLJIT per process, made on first use under a lock, for the host CPU with its features
 * (so loops vectorise with AVX2/AVX-512 where the machine has them). CPU code goes through an
 * object file made by a target machine with the JIT's settings, so code compiled now and code
 * loaded from the cache are the same bytes, linked the same way. Each version is loaded into a
 * JITDylib of its own, which resolves the runtime's pj_* functions as absolute addresses (they
 * live in this same shared library, which Python loads privately, so the process search cannot
 * see them), the addresses of Python objects the code refers to (pj.ref.<i>: lower_ref) and
 * everything else (libm, libc) from the process; jit_release clears exactly that dylib. */
#include "compiler/compiler.h"
#include "compiler/lower.h"
#include "compiler/target.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>

/* ---- shared by the stages: the module, LLVM's errors and buffers ----------------------------- */

/* The module between the stages. CPU modules live in an ORC thread-safe context, as the JIT
 * takes them; the arena releases whatever the JIT did not take. */
struct JitModule {
    LLVMOrcThreadSafeContextRef tsc;   /* CPU only */
    LLVMContextRef ctx;
    LLVMModuleRef mod;                 /* NULL once the JIT owns it */
};

static void release_module(void *p)
{
    JitModule *m = p;
    if (m->mod)
        LLVMDisposeModule(m->mod);
    if (m->tsc)
        LLVMOrcDisposeThreadSafeContext(m->tsc);
    else if (m->ctx)
        LLVMContextDispose(m->ctx);
}

static int llvm_error(Diag *diag, const char *what, LLVMErrorRef err)
{
    char *msg = LLVMGetErrorMessage(err);
    diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM: %s: %s", what, msg);
    LLVMDisposeErrorMessage(msg);
    return -1;
}

static char *copy_buffer(Arena *arena, LLVMMemoryBufferRef buf)
{
    size_t n = LLVMGetBufferSize(buf);
    char *text = arena_alloc(arena, n + 1);
    memcpy(text, LLVMGetBufferStart(buf), n);
    text[n] = 0;
    return text;
}

/* ---- the process's JIT and target machines, made on first use ------------------------------- */

/* Per process: the JIT, the host target machine the optimiser and the assembly printer use, and
 * the lock that serialises every use of them. */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;
static LLVMOrcLLJITRef jit;
static LLVMTargetMachineRef host_tm;
static unsigned long long jit_seq;

#if defined(__x86_64__)
/* What LLVM's x86 code generator calls for float16 conversions (float16 has no instructions
 * before AVX-512 FP16). They are libgcc's, linked into this module: the process need not have
 * libgcc_s loaded for the JIT to find them. Declared only to take their addresses. */
extern void __extendhfsf2(void), __truncsfhf2(void), __truncdfhf2(void);
#define HALF_SYMBOLS {"__extendhfsf2", (void *)__extendhfsf2}, \
    {"__truncsfhf2", (void *)__truncsfhf2}, {"__truncdfhf2", (void *)__truncdfhf2},
#else
#define HALF_SYMBOLS
#endif

static const JitSymbol *added_syms;   /* jit_add_symbols' */
static int nadded_syms;

void jit_add_symbols(const JitSymbol *syms, int n)
{
    added_syms = syms;
    nadded_syms = n;
}

/* The runtime functions compiled code calls (runtime_symbols.def, and jit_add_symbols'), by
 * address. */
static int define_runtime_symbols(LLVMOrcJITDylibRef jd, Diag *diag)
{
    static const struct { const char *name; void *addr; } syms[] = {
#define RUNTIME_SYMBOL(ret, name, params) {#name, (void *)name},
#include "compiler/runtime_symbols.def"
#undef RUNTIME_SYMBOL
        HALF_SYMBOLS
    };
    enum { N = sizeof syms / sizeof *syms };
    int n = N + nadded_syms;
    LLVMOrcCSymbolMapPair *pairs = calloc((size_t)n, sizeof *pairs);
    if (!pairs)
        return diag_error(diag, DIAG_MEMORY, NULL, NULL, 0, -1, -1, "out of memory");
    for (int i = 0; i < n; i++) {
        const char *name = i < N ? syms[i].name : added_syms[i - N].name;
        void *addr = i < N ? syms[i].addr : added_syms[i - N].addr;
        pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, name);
        pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)addr;
        pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
        pairs[i].Sym.Flags.TargetFlags = 0;
    }
    LLVMErrorRef err = LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(pairs, (size_t)n));
    free(pairs);
    return err ? llvm_error(diag, "defining runtime symbols", err) : 0;
}

/* The host CPU's features, and on x86-64 the tuning that divides 64-bit integers whose values
 * fit in 32 bits by the 32-bit instruction (a test of both and a branch): LLVM sets it for
 * Intel's CPUs and not for AMD's before LLVM 17, where `i % n` of a loop then took the 64-bit
 * division, 1.2x the time of Numba's loop (whose LLVM sets it for both). */
static void host_features(const char *triple, char *out, size_t size)
{
    char *features = LLVMGetHostCPUFeatures();
    snprintf(out, size, "%s%s", features,
             strncmp(triple, "x86_64", 6) == 0 && !strstr(features, "idivq-to-divl") ? ",+idivq-to-divl" : "");
    LLVMDisposeMessage(features);
}

/* A target machine for the host CPU with its features, the JIT's settings: LLVM's default code
 * generation level (the IR is already optimised at O3; aggressive instruction selection costs
 * compile time for no measured gain), the default relocation model, the JIT's code model. The
 * JIT is built from one and host_tm is another made alike, so the assembly inspect_asm shows is
 * generated as the JIT's. */
static LLVMTargetMachineRef host_machine(Diag *diag)
{
    char *triple = LLVMGetDefaultTargetTriple(), *err = NULL;
    LLVMTargetRef target;
    LLVMTargetMachineRef tm = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM: no target for %s: %s", triple, err);
        LLVMDisposeMessage(err);
        LLVMDisposeMessage(triple);
        return NULL;
    }
    char *cpu = LLVMGetHostCPUName(), features[8192];
    host_features(triple, features, sizeof features);
    tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelDefault,
                                 LLVMRelocDefault, LLVMCodeModelJITDefault);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(triple);
    if (!tm)
        diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM: no target machine");
    return tm;
}

/* Called with jit_lock held. */
static int jit_init(Diag *diag)
{
    if (jit)
        return 0;
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    LLVMInitializeNativeAsmParser();
    /* Loops whose indices are all known in bounds before they run test one flag (lower.c:
     * hoist_loop_checks), and the loop is split on it by non-trivial unswitching: LLVM's cost
     * limit for that, 50, left loops of five or more checked accesses (a trapezoidal filter's
     * `w_out[i - 1] + w_in[i] - w_in[i - rise] - ...`) checked, unrolled by none and reloading
     * the last stored item each step (1.8x the time of the split loop); 80 splits them. */
    const char *argv[2] = {"pyjit", "-unswitch-threshold=80"};
    LLVMParseCommandLineOptions(2, argv, NULL);
    LLVMTargetMachineRef model = NULL;
    if ((!host_tm && !(host_tm = host_machine(diag))) || !(model = host_machine(diag)))
        return -1;
    /* takes model */
    LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(model);
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
    LLVMErrorRef err = LLVMOrcCreateLLJIT(&jit, builder);
    if (err) {
        jit = NULL;
        return llvm_error(diag, "creating the JIT", err);
    }
    return 0;
}

static int ensure_jit(Diag *diag)
{
    pthread_mutex_lock(&jit_lock);
    int rc = jit_init(diag);
    pthread_mutex_unlock(&jit_lock);
    return rc;
}

/* NVPTX target machines by compute capability, made once each (under ptx_lock). */
static pthread_mutex_t ptx_lock = PTHREAD_MUTEX_INITIALIZER;
static LLVMTargetMachineRef ptx_tms[128];

static LLVMTargetMachineRef ptx_tm(int cc, Diag *diag)
{
    if (cc < 30 || cc > 90)   /* newer GPUs run sm_90 PTX (the driver compiles it for them) */
        cc = 90;
    if (ptx_tms[cc])
        return ptx_tms[cc];
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    static bool options_set;
    if (!options_set) {
        /* contract a * b + c into fma, as CUDA C does by default (-fmad=true) */
        const char *argv[2] = {"pyjit", "-nvptx-fma-level=1"};
        LLVMParseCommandLineOptions(2, argv, NULL);
        options_set = true;
    }
    LLVMTargetRef target;
    char *err = NULL, cpu[16];
    if (LLVMGetTargetFromTriple("nvptx64-nvidia-cuda", &target, &err)) {
        diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM has no NVPTX back end: %s", err);
        LLVMDisposeMessage(err);
        return NULL;
    }
    snprintf(cpu, sizeof cpu, "sm_%d", cc);
    /* PTX 7.8: the newest ISA LLVM 16 writes, which knows sm_90 and which ptxas of CUDA 12 and
     * later reads */
    ptx_tms[cc] = LLVMCreateTargetMachine(target, "nvptx64-nvidia-cuda", cpu, "+ptx78",
                                          LLVMCodeGenLevelAggressive, LLVMRelocDefault,
                                          LLVMCodeModelDefault);
    return ptx_tms[cc];
}

/* ---- LLVM's options for a simulated kernel -------------------------------------------------- */

/* A simulated kernel's block function is loops over the threads, copied per resume point and per
 * phase, and its first launch waits for their compile. Two of LLVM's fixed costs there buy those
 * loops nothing measured (bench/simulator.py's kernels run as fast without them): InstCombine
 * iterating to a fixed point, where one iteration is LLVM 18's own default (a tenth of the
 * compile), and loop strength reduction in code generation (a fifth to a quarter of it). LLVM sets
 * both only by global options, read as a compile builds its passes, so they are set around a
 * simulated kernel's optimisation and emission with both locks held, where no other compile
 * (CPU: jit_lock; PTX: ptx_lock) reads them, and set back after: @njit functions and GPU kernels
 * keep LLVM's defaults. (LLVM takes an option again, its last value winning.) */
static void set_llvm_option(const char *text)
{
    const char *argv[2] = {"pyjit", text};
    LLVMParseCommandLineOptions(2, argv, NULL);
}

static void set_sim_optimiser(bool sim)
{
#if LLVM_VERSION_MAJOR < 18
    set_llvm_option(sim ? "-instcombine-max-iterations=1" : "-instcombine-max-iterations=1000");
#else
    (void)sim;
#endif
}

static void set_sim_codegen(bool sim)
{
    set_llvm_option(sim ? "-disable-lsr=true" : "-disable-lsr=false");
}

/* ---- lowering ------------------------------------------------------------------------------- */

/* libdevice.10.bc of the CUDA toolkit ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda). */
static LLVMModuleRef load_libdevice(LLVMContextRef ctx, Diag *diag)
{
    const char *roots[3] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (int i = 0; i < 3; i++) {
        if (!roots[i] || !*roots[i])
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/nvvm/libdevice/libdevice.10.bc", roots[i]);
        LLVMMemoryBufferRef buf = NULL;
        char *err = NULL;
        if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &err)) {
            LLVMDisposeMessage(err);
            continue;
        }
        LLVMModuleRef m = NULL;
        bool bad = LLVMParseBitcodeInContext2(ctx, buf, &m);
        LLVMDisposeMemoryBuffer(buf);
        if (!bad)
            return m;
    }
    diag_error(diag, DIAG_UNSUPPORTED, NULL, NULL, 0, -1, -1,
               "math in kernels needs libdevice (nvvm/libdevice/libdevice.10.bc of the CUDA toolkit), "
               "which was not found under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda");
    return NULL;
}

static bool needs_libdevice(LLVMModuleRef mod)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (LLVMIsDeclaration(f) && strncmp(LLVMGetValueName(f), "__nv_", 5) == 0)
            return true;
    return false;
}

/* LLVM 16's InstCombine for NVPTX rewrites some NVVM intrinsics that libdevice calls into
 * generic operations of other semantics: llvm.nvvm.round.* (cvt.rni, halves to even: rint,
 * nearbyint, and inside sinpi, tgamma, powf ...) into llvm.round (halves away from zero), and the
 * round-toward-zero int-to-float conversions (cvt.rz) into sitofp/uitofp (to nearest). Their calls
 * are replaced before optimising: the rounds by llvm.rint, which NVPTX emits as cvt.rni, the
 * conversions by their PTX instruction as inline assembly, which InstCombine leaves alone. */
static const struct { const char *name, *ptx, *cons; } nvvm_miscombined[] = {
    {"llvm.nvvm.round.f", NULL, NULL},
    {"llvm.nvvm.round.ftz.f", NULL, NULL},
    {"llvm.nvvm.round.d", NULL, NULL},
    {"llvm.nvvm.i2f.rz", "cvt.rz.f32.s32 $0, $1;", "=f,r"},
    {"llvm.nvvm.ui2f.rz", "cvt.rz.f32.u32 $0, $1;", "=f,r"},
    {"llvm.nvvm.ll2f.rz", "cvt.rz.f32.s64 $0, $1;", "=f,l"},
    {"llvm.nvvm.ull2f.rz", "cvt.rz.f32.u64 $0, $1;", "=f,l"},
    {"llvm.nvvm.ll2d.rz", "cvt.rz.f64.s64 $0, $1;", "=d,l"},
    {"llvm.nvvm.ull2d.rz", "cvt.rz.f64.u64 $0, $1;", "=d,l"},
};

/* What replaces a call of nvvm_miscombined[k] (built before the call). */
static LLVMValueRef exact_nvvm_call(LLVMModuleRef mod, LLVMBuilderRef b, size_t k, LLVMValueRef call)
{
    LLVMValueRef x = LLVMGetOperand(call, 0);
    LLVMTypeRef rt = LLVMTypeOf(call), xt = LLVMTypeOf(x);
    const char *ptx = nvvm_miscombined[k].ptx, *cons = nvvm_miscombined[k].cons;
    if (!ptx)
        return target_call_intrinsic(mod, b, "llvm.rint", &rt, 1, &x, 1);
    LLVMTypeRef fty = LLVMFunctionType(rt, &xt, 1, 0);
    LLVMValueRef asmv = LLVMGetInlineAsm(fty, (char *)ptx, strlen(ptx), (char *)cons, strlen(cons),
                                         0, 0, LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(b, fty, asmv, &x, 1, "");
}

static void replace_miscombined_nvvm(LLVMModuleRef mod)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    for (size_t k = 0; k < sizeof nvvm_miscombined / sizeof nvvm_miscombined[0]; k++) {
        LLVMValueRef f = LLVMGetNamedFunction(mod, nvvm_miscombined[k].name);
        LLVMUseRef use;
        while (f && (use = LLVMGetFirstUse(f)) && LLVMIsACallInst(LLVMGetUser(use))) {
            LLVMValueRef call = LLVMGetUser(use);
            LLVMPositionBuilderBefore(b, call);
            LLVMReplaceAllUsesWith(call, exact_nvvm_call(mod, b, k, call));
            LLVMInstructionEraseFromParent(call);
        }
        if (f && !LLVMGetFirstUse(f))
            LLVMDeleteFunction(f);
    }
    LLVMDisposeBuilder(b);
}

/* Everything but the kernel (or the device function) becomes internal, so that the optimiser
 * drops what is not called (most of libdevice) and inlines the rest. */
static void internalize(LLVMModuleRef mod, const char *keep)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f) && strcmp(LLVMGetValueName(f), keep) != 0)
            LLVMSetLinkage(f, LLVMInternalLinkage);
}

/* libdevice when math needs it (its miscombined intrinsics replaced); then everything but the
 * entry internal, and fast math as asked. */
static int prepare_ptx_module(Program *prog, JitModule *m, Diag *diag)
{
    if (needs_libdevice(m->mod)) {
        LLVMModuleRef lib = load_libdevice(m->ctx, diag);
        if (!lib)
            return -1;
        if (LLVMLinkModules2(m->mod, lib))   /* takes lib */
            return diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM: linking libdevice failed");
        LLVMSetTarget(m->mod, target_nvptx()->triple);
        LLVMSetDataLayout(m->mod, target_nvptx()->data_layout);
        replace_miscombined_nvvm(m->mod);
    }
    TypedFunc *entry = prog->funcs.items[0];
    internalize(m->mod, !prog->gpu_device ? prog->gpu_entry
                        : prog->gpu_c_abi ? prog->gpu_c_abi : entry->symbol);
    if (prog->opts && prog->opts->fastmath)
        LLVMAddModuleFlag(m->mod, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                          LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(m->ctx), 1, 0)));
    return 0;
}

/* LLVM's optimiser reports what it could not do (a loop marked for vectorising under fastmath
 * that did not vectorise) as warnings and remarks on stderr; they say nothing wrong with the user's
 * code, so only errors are printed, as the default handler would. */
static void report_llvm_errors(LLVMDiagnosticInfoRef info, void *unused)
{
    (void)unused;
    if (LLVMGetDiagInfoSeverity(info) != LLVMDSError)
        return;
    char *text = LLVMGetDiagInfoDescription(info);
    fprintf(stderr, "LLVM error: %s\n", text);
    LLVMDisposeMessage(text);
}

static int lower_cpu(Program *prog, JitModule *m, Diag *diag)
{
    if (ensure_jit(diag) < 0)
        return -1;
    m->tsc = LLVMOrcCreateNewThreadSafeContext();
    m->ctx = LLVMOrcThreadSafeContextGetContext(m->tsc);
    LLVMContextSetDiagnosticHandler(m->ctx, report_llvm_errors, NULL);
    if (!(m->mod = lower_program(prog, target_cpu(), m->ctx, diag)))
        return -1;
    char *triple = LLVMGetTargetMachineTriple(host_tm);   /* host_tm and jit are set once */
    LLVMSetTarget(m->mod, triple);
    LLVMDisposeMessage(triple);
    LLVMSetDataLayout(m->mod, LLVMOrcLLJITGetDataLayoutStr(jit));
    return 0;
}

static int lower_ptx(Program *prog, JitModule *m, Diag *diag)
{
    m->ctx = LLVMContextCreate();
    LLVMContextSetDiagnosticHandler(m->ctx, report_llvm_errors, NULL);
    if (!(m->mod = lower_program(prog, target_nvptx(), m->ctx, diag)))
        return -1;
    return prepare_ptx_module(prog, m, diag);
}

int jit_lower(Program *prog, Diag *diag)
{
    if (!prog->funcs.len)
        return diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "no function to compile");
    JitModule *m = arena_alloc(prog->arena, sizeof *m);
    arena_defer(prog->arena, release_module, m);
    prog->llvm = m;
    return prog->gpu ? lower_ptx(prog, m, diag) : lower_cpu(prog, m, diag);
}

/* ---- verification --------------------------------------------------------------------------- */

int jit_verify(Program *prog, Diag *diag)
{
    char *msg = NULL;
    if (!LLVMVerifyModule(prog->llvm->mod, LLVMReturnStatusAction, &msg)) {
        LLVMDisposeMessage(msg);
        return 0;
    }
    diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "invalid LLVM IR generated: %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    return -1;
}

/* ---- optimisation --------------------------------------------------------------------------- */

/* Whether hint (an llvm.loop operand) is a node whose first operand is the string name. */
static bool hint_named(LLVMValueRef hint, const char *name)
{
    unsigned n = hint && LLVMIsAMDNode(hint) ? LLVMGetMDNodeNumOperands(hint) : 0;
    if (n < 1 || n > 8)
        return false;
    LLVMValueRef ops[8];
    LLVMGetMDNodeOperands(hint, ops);
    unsigned len = 0;
    const char *s = ops[0] ? LLVMGetMDString(ops[0], &len) : NULL;
    return s && len == strlen(name) && memcmp(s, name, len) == 0;
}

/* A function's blocks by number, with each block's predecessors (for ask_unrolling). */
typedef struct Cfg {
    int n;
    LLVMBasicBlockRef *blocks;
    int *npred, **pred;
} Cfg;

static int block_number(const Cfg *g, LLVMBasicBlockRef bb)
{
    for (int i = 0; i < g->n; i++)
        if (g->blocks[i] == bb)
            return i;
    return -1;
}

static void build_cfg(Arena *arena, LLVMValueRef fn, Cfg *g)
{
    g->n = (int)LLVMCountBasicBlocks(fn);
    g->blocks = arena_alloc(arena, sizeof *g->blocks * (size_t)g->n);
    g->npred = arena_alloc(arena, sizeof *g->npred * (size_t)g->n);
    g->pred = arena_alloc(arena, sizeof *g->pred * (size_t)g->n);
    LLVMGetBasicBlocks(fn, g->blocks);
    for (int pass = 0; pass < 2; pass++) {     /* count, then fill */
        for (int i = 0; i < g->n; i++) {
            if (pass == 1)
                g->pred[i] = arena_alloc(arena, sizeof(int) * (size_t)(g->npred[i] + 1));
            g->npred[i] = 0;
        }
        for (int i = 0; i < g->n; i++) {
            LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[i]);
            for (unsigned k = 0; t && k < LLVMGetNumSuccessors(t); k++) {
                int s = block_number(g, LLVMGetSuccessor(t, k));
                if (s >= 0 && pass == 1)
                    g->pred[s][g->npred[s]] = i;
                if (s >= 0)
                    g->npred[s]++;
            }
        }
    }
}

/* Whether the blocks marked in `in` other than head hold a cycle: a loop inside the loop (an
 * inlined callee's, or one LLVM made), which unrolling the outer loop would copy whole. */
static bool has_inner_cycle(Arena *arena, const Cfg *g, const bool *in, int head)
{
    char *color = arena_alloc(arena, (size_t)g->n);    /* 0 unseen, 1 on the path, 2 done */
    int *stack = arena_alloc(arena, sizeof(int) * (size_t)g->n);
    unsigned *next = arena_alloc(arena, sizeof(unsigned) * (size_t)g->n);
    memset(color, 0, (size_t)g->n);
    for (int root = 0; root < g->n; root++) {
        if (!in[root] || root == head || color[root])
            continue;
        int sp = 0;
        stack[sp++] = root;
        color[root] = 1;
        next[root] = 0;
        while (sp) {
            int b = stack[sp - 1];
            LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[b]);
            if (t && next[b] < LLVMGetNumSuccessors(t)) {
                int s = block_number(g, LLVMGetSuccessor(t, next[b]++));
                if (s < 0 || !in[s] || s == head)
                    continue;
                if (color[s] == 1)
                    return true;
                if (!color[s]) {
                    color[s] = 1;
                    next[s] = 0;
                    stack[sp++] = s;
                }
            } else {
                color[b] = 2;
                sp--;
            }
        }
    }
    return false;
}

/* Whether the call instruction i leaves the loop's code for a function: any call but to an LLVM
 * intrinsic that code generation expands in place (llvm.sin and the other libm intrinsics become
 * calls too). */
static bool calls_out(LLVMValueRef i)
{
    LLVMValueRef callee = LLVMGetCalledValue(i);
    if (!callee || !LLVMIsAFunction(callee) || !LLVMGetIntrinsicID(callee))
        return true;
    static const char *const libm[] = {"llvm.sin.", "llvm.cos.", "llvm.tan.", "llvm.exp.",
                                       "llvm.exp2.", "llvm.exp10.", "llvm.log.", "llvm.log2.",
                                       "llvm.log10.", "llvm.pow.", "llvm.asin.", "llvm.acos.",
                                       "llvm.atan.", "llvm.atan2."};
    size_t len = 0;
    const char *name = LLVMGetValueName2(callee, &len);
    for (size_t k = 0; k < sizeof libm / sizeof *libm; k++)
        if (strncmp(name, libm[k], strlen(libm[k])) == 0)
            return true;
    return false;
}

/* Whether a block marked in `in` calls a function (calls_out). Such a loop's time is the calls':
 * unrolling it saves a compare and a branch a trip, and its copies spill more around the calls
 * (a direct DFT's loop over cmath.exp ran 4% slower unrolled). */
static bool loop_calls_out(const Cfg *g, const bool *in)
{
    for (int b = 0; b < g->n; b++)
        for (LLVMValueRef i = in[b] ? LLVMGetFirstInstruction(g->blocks[b]) : NULL; i;
             i = LLVMGetNextInstruction(i))
            if (LLVMIsACallInst(i) && calls_out(i))
                return true;
    return false;
}

/* Whether the loop whose back edge leaves block latch is worth unrolling: it leaves only from
 * there (its blocks, those reaching the latch without passing the header, branch nowhere outside
 * it but from the latch), holds no inner loop and calls no function. Unrolling a loop with other
 * exits (a check that raises, a return) copies each of them. */
static bool unrollable_loop(Arena *arena, const Cfg *g, int latch)
{
    LLVMValueRef br = LLVMGetBasicBlockTerminator(g->blocks[latch]);
    if (LLVMGetNumSuccessors(br) != 2)
        return false;
    bool *in = arena_alloc(arena, (size_t)g->n);
    int *stack = arena_alloc(arena, sizeof(int) * (size_t)g->n);
    for (unsigned k = 0; k < 2; k++) {
        int head = block_number(g, LLVMGetSuccessor(br, k)), sp = 0;
        if (head < 0)
            continue;
        memset(in, 0, (size_t)g->n);
        in[head] = in[latch] = true;
        stack[sp++] = latch;
        bool entered_around = false;    /* the walk reached the entry: head is no header */
        while (sp && !entered_around) {
            int b = stack[--sp];
            entered_around = b == 0 && head != 0;
            for (int i = 0; i < g->npred[b] && b != head; i++)
                if (!in[g->pred[b][i]]) {
                    in[g->pred[b][i]] = true;
                    stack[sp++] = g->pred[b][i];
                }
        }
        if (entered_around)
            continue;
        for (int b = 0; b < g->n; b++) {
            LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[b]);
            for (unsigned j = 0; in[b] && b != latch && t && j < LLVMGetNumSuccessors(t); j++) {
                int s = block_number(g, LLVMGetSuccessor(t, j));
                if (s < 0 || !in[s])
                    return false;
            }
        }
        return !has_inner_cycle(arena, g, in, head) && !loop_calls_out(g, in);
    }
    return false;
}

/* The loops lowering marked JIT_UNROLL_HINT that the vectoriser left alone and that have one
 * exit get llvm.loop.unroll.count in place of the mark; returns how many. Unrolling after the
 * whole pipeline (not by a hint the pipeline's own unroller would act on) lets the loop be
 * versioned first on its bounds flag, which a loop four times the size would not be, and the
 * version without checks is then the single-exit loop that is unrolled. */
static int ask_unrolling(LLVMModuleRef mod, Arena *arena)
{
    LLVMContextRef ctx = LLVMGetModuleContext(mod);
    unsigned kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
    int count = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
        Cfg g = {0};
        int index = -1;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
            index++;
            LLVMValueRef br = LLVMGetBasicBlockTerminator(bb);
            LLVMValueRef md = br ? LLVMGetMetadata(br, kind) : NULL;
            unsigned n = md ? LLVMGetMDNodeNumOperands(md) : 0;
            if (n < 2 || n > 16)
                continue;
            LLVMValueRef ops[16];
            LLVMGetMDNodeOperands(md, ops);
            bool marked = false, vectorised = false;
            for (unsigned i = 1; i < n; i++) {
                marked |= hint_named(ops[i], JIT_UNROLL_HINT);
                vectorised |= hint_named(ops[i], "llvm.loop.isvectorized");
            }
            if (!marked)
                continue;
            LLVMMetadataRef keep[17];
            unsigned m = 1;
            keep[0] = LLVMTemporaryMDNode(ctx, NULL, 0);
            for (unsigned i = 1; i < n; i++)
                if (!hint_named(ops[i], JIT_UNROLL_HINT))
                    keep[m++] = LLVMValueAsMetadata(ops[i]);
            if (!vectorised && !g.n)
                build_cfg(arena, fn, &g);
            if (!vectorised && unrollable_loop(arena, &g, index)) {
                LLVMMetadataRef hint[2] = {
                    LLVMMDStringInContext2(ctx, "llvm.loop.unroll.count", 22),
                    LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), JIT_UNROLL_COUNT, 0))};
                keep[m++] = LLVMMDNodeInContext2(ctx, hint, 2);
                count++;
            }
            LLVMMetadataRef loop = LLVMMDNodeInContext2(ctx, keep, m);
            LLVMMetadataReplaceAllUsesWith(keep[0], loop);
            LLVMSetMetadata(br, kind, LLVMMetadataAsValue(ctx, loop));
        }
    }
    return count;
}

/* ---- tests a loop's header repeats: `while i < len(a) ... a[i]` ------------------------------
 *
 * CPython compiles a while loop with its test at the bottom too, so the loop comes to LLVM
 * rotated: `a[i]`'s check (`i >= n`) sits at the top of the body, and what makes it false is
 * the test `i < n` on each edge into the header (the guard before the loop, the test at the
 * bottom), across the phi of i. LLVM proves a test from a dominating one, not from one on every
 * edge into a phi, and a merge's loop kept one compare and branch for each of its indices.
 * Here, a signed test of such a phi against a value n defined before the loop is decided where
 * every incoming value v was tested v < n on the way into the header (through the blocks of one
 * predecessor each above it). n must dominate the header, so that the n of the tests is the n
 * of the check (not one of an earlier trip of a loop around). */

/* Whether cond, known to be `truth` (branch taken on its true or false edge), says x < n. */
static bool says_below(LLVMValueRef cond, bool truth, LLVMValueRef x, LLVMValueRef n, int depth)
{
    if (!cond || !LLVMIsAInstruction(cond) || depth > 4)
        return false;
    LLVMOpcode op = LLVMGetInstructionOpcode(cond);
    if (op == LLVMICmp) {
        LLVMIntPredicate p = LLVMGetICmpPredicate(cond);
        LLVMValueRef a = LLVMGetOperand(cond, 0), b = LLVMGetOperand(cond, 1);
        if (truth)
            return (p == LLVMIntSLT && a == x && b == n) || (p == LLVMIntSGT && a == n && b == x);
        return (p == LLVMIntSGE && a == x && b == n) || (p == LLVMIntSLE && a == n && b == x);
    }
    /* a && b true, or a || b false: each of a and b is what the whole is */
    bool conj = op == LLVMAnd, disj = op == LLVMOr;
    if (op == LLVMSelect) {
        LLVMValueRef t = LLVMGetOperand(cond, 1), f = LLVMGetOperand(cond, 2);
        conj = LLVMIsAConstantInt(f) && LLVMConstIntGetZExtValue(f) == 0;   /* a ? b : false */
        disj = LLVMIsAConstantInt(t) && LLVMConstIntGetZExtValue(t) == 1;   /* a ? true : b */
    }
    if ((truth && conj) || (!truth && disj)) {
        LLVMValueRef b = LLVMGetOperand(cond, op == LLVMSelect ? (conj ? 1 : 2) : 1);
        return says_below(LLVMGetOperand(cond, 0), truth, x, n, depth + 1) ||
               says_below(b, truth, x, n, depth + 1);
    }
    return false;
}

/* Whether x < n on the edge from block from into block to: some branch on the way there says
 * so, from from or the blocks above it that have one predecessor each, and neither x nor n is
 * made again between that branch and to (in a loop around them, their blocks may lie on that
 * way). */
static bool edge_says_below(const Cfg *g, int from, int to, LLVMValueRef x, LLVMValueRef n)
{
    LLVMBasicBlockRef n_block = LLVMIsAInstruction(n) ? LLVMGetInstructionParent(n) : NULL;
    LLVMBasicBlockRef x_block = LLVMIsAInstruction(x) ? LLVMGetInstructionParent(x) : NULL;
    for (int depth = 0; from >= 0 && depth < 4; depth++) {
        if (depth > 0 && (g->blocks[to] == n_block || g->blocks[to] == x_block))
            return false;
        LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[from]);
        if (t && LLVMGetInstructionOpcode(t) == LLVMBr && LLVMIsConditional(t)) {
            LLVMBasicBlockRef yes = LLVMGetSuccessor(t, 0), no = LLVMGetSuccessor(t, 1);
            if (yes != no && (yes == g->blocks[to] || no == g->blocks[to]) &&
                says_below(LLVMGetCondition(t), yes == g->blocks[to], x, n, 0))
                return true;
        }
        to = from;
        from = g->npred[from] == 1 ? g->pred[from][0] : -1;
    }
    return false;
}

/* Whether block d dominates block h: h cannot be reached from the entry without passing d. */
static bool dominates(Arena *arena, const Cfg *g, int d, int h)
{
    if (d == 0)
        return true;
    bool *seen = arena_alloc(arena, (size_t)g->n);
    int *stack = arena_alloc(arena, sizeof(int) * (size_t)g->n), sp = 0;
    stack[sp++] = 0;
    seen[0] = true;
    while (sp) {
        int b = stack[--sp];
        if (b == h)
            return false;
        LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[b]);
        for (unsigned k = 0; t && k < LLVMGetNumSuccessors(t); k++) {
            int s = block_number(g, LLVMGetSuccessor(t, k));
            if (s >= 0 && s != d && !seen[s]) {
                seen[s] = true;
                stack[sp++] = s;
            }
        }
    }
    return true;
}

/* The value of icmp i (true or false) when it tests a phi against a value n defined before the
 * phi's block and every value coming into the phi was tested below n on its edge; -1 when not
 * known so. */
static int phi_test_value(Arena *arena, const Cfg *g, LLVMValueRef i)
{
    LLVMIntPredicate p = LLVMGetICmpPredicate(i);
    LLVMValueRef a = LLVMGetOperand(i, 0), b = LLVMGetOperand(i, 1), x, n;
    int below;   /* the test's value when x < n */
    if ((p == LLVMIntSLT || p == LLVMIntSGE) && LLVMIsAPHINode(a)) {
        x = a, n = b, below = p == LLVMIntSLT;
    } else if ((p == LLVMIntSGT || p == LLVMIntSLE) && LLVMIsAPHINode(b)) {
        x = b, n = a, below = p == LLVMIntSGT;
    } else {
        return -1;
    }
    int h = block_number(g, LLVMGetInstructionParent(x));
    if (h < 0 || LLVMCountIncoming(x) == 0)
        return -1;
    if (LLVMIsAInstruction(n)) {   /* else an argument or a constant */
        int d = block_number(g, LLVMGetInstructionParent(n));
        if (d < 0 || d == h || !dominates(arena, g, d, h))
            return -1;
    } else if (!LLVMIsAArgument(n) && !LLVMIsAConstantInt(n)) {
        return -1;
    }
    for (unsigned k = 0; k < LLVMCountIncoming(x); k++)
        if (!edge_says_below(g, block_number(g, LLVMGetIncomingBlock(x, k)), h, LLVMGetIncomingValue(x, k), n))
            return -1;
    return below;
}

/* Replaces each signed test of a phi that the edges into it decide (phi_test_value) by its value;
 * the optimiser then drops the checks they made. */
static void fold_tests_the_header_repeats(LLVMModuleRef mod, Arena *arena)
{
    for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
        if (LLVMCountBasicBlocks(fn) == 0)
            continue;
        Cfg g;
        bool built = false;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
                next = LLVMGetNextInstruction(i);
                if (LLVMGetInstructionOpcode(i) != LLVMICmp ||
                    (!LLVMIsAPHINode(LLVMGetOperand(i, 0)) && !LLVMIsAPHINode(LLVMGetOperand(i, 1))))
                    continue;
                if (!built) {
                    build_cfg(arena, fn, &g);
                    built = true;
                }
                int v = phi_test_value(arena, &g, i);
                if (v >= 0) {
                    LLVMReplaceAllUsesWith(i, LLVMConstInt(LLVMInt1TypeInContext(LLVMGetModuleContext(mod)), (unsigned long long)v, 0));
                    LLVMInstructionEraseFromParent(i);
                }
            }
        }
    }
}

static int optimise_cpu(LLVMModuleRef mod, const CompileOptions *opts, Arena *arena, Diag *diag)
{
    int level = opts ? opts->opt_level : 3;
    if (level < 0 || level > 3)
        level = 3;
    /* IndVars runs after the loop unswitching of O3's pipeline, and can turn a bounds check into
     * one that no longer changes in the loop (`b[j]` with `j` counting down from `i - 1` checks
     * `i - 1 < n` each trip): unswitching once more takes it out of the loop. The pass looks only
     * at what the loops still test, so it costs little where nothing is left to do. */
    char passes[96];
    snprintf(passes, sizeof passes, "default<O%d>%s", level,
             level == 3 ? ",function(loop-mssa(simple-loop-unswitch<nontrivial>))" : "");
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(po, level >= 2);
    LLVMPassBuilderOptionsSetSLPVectorization(po, level >= 2);
    /* Runtime unrolling of every loop quadruples the compile time of loop nests (the first call
     * users wait for) and buys nothing measurable on latency-bound loops; vectorised loops are
     * still interleaved, and innermost range loops that were not vectorised are unrolled at the
     * end (ask_unrolling). */
    LLVMPassBuilderOptionsSetLoopUnrolling(po, false);
    LLVMPassBuilderOptionsSetLoopInterleaving(po, level >= 2);
    /* ... but a loop of a few iterations known at compile time (a stencil's `for di in
     * range(-1, 2)`) is unrolled whole first, so that the loop around it vectorises: a 3x3 blur
     * runs 9x faster. Full unrolling only, after the clean-up that lets it count the trips; the
     * compile time of the real-world kernels of bench/realworld.py is unchanged. */
    static const char pre[] = "function(sroa,early-cse,instcombine,simplifycfg,"
                              "loop(loop-rotate,indvars,loop-unroll-full))";
    LLVMErrorRef err = level >= 2 ? LLVMRunPasses(mod, pre, host_tm, po) : NULL;
    if (!err && level >= 2)
        fold_tests_the_header_repeats(mod, arena);
    if (!err)
        err = LLVMRunPasses(mod, passes, host_tm, po);
    if (!err && level == 3 && ask_unrolling(mod, arena) > 0)
        err = LLVMRunPasses(mod, "function(loop-unroll<O3>)", host_tm, po);
    LLVMDisposePassBuilderOptions(po);
    return err ? llvm_error(diag, "optimising", err) : 0;
}

/* A simulated kernel's pj.sim.fits(flag) calls (lower_sim_index_fits) become the flag when its
 * block is one loop over the threads (no barrier), false otherwise. */
static void sim_fits(LLVMModuleRef mod, bool loop)
{
    LLVMValueRef f = LLVMGetNamedFunction(mod, "pj.sim.fits");
    if (!f)
        return;
    for (LLVMUseRef u = LLVMGetFirstUse(f), next; u; u = next) {
        next = LLVMGetNextUse(u);
        LLVMValueRef call = LLVMGetUser(u);
        LLVMValueRef flag = LLVMGetOperand(call, 0);
        LLVMReplaceAllUsesWith(call, loop ? flag : LLVMConstInt(LLVMTypeOf(flag), 0, 0));
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDeleteFunction(f);
}

/* The kernel (and its device functions with barriers) inlined into a simulated kernel's block
 * function, and simplified, for lower_sim_regions to cut (optimise_cpu runs after). */
static int simplify_for_cut(LLVMModuleRef mod, Diag *diag)
{
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(mod, "always-inline,function(sroa,early-cse,instcombine,"
                                     "simplifycfg)", host_tm, po);
    LLVMDisposePassBuilderOptions(po);
    return err ? llvm_error(diag, "optimising", err) : 0;
}

/* A kernel cut into loops over the threads runs by its block function alone: its own entry
 * and wrapper (called by the fibers of an uncut kernel) keep their symbols, which the loader
 * looks up, but not their code, which would cost the optimiser and code generation as much as
 * a tenth of the block function's. The stubs are never called. */
static void drop_thread_entry(Program *prog, LLVMModuleRef mod)
{
    TypedFunc *entry = prog->funcs.items[0];
    char wrap[1100];
    snprintf(wrap, sizeof wrap, "%s__wrap", entry->symbol);
    LLVMValueRef fns[2] = {LLVMGetNamedFunction(mod, entry->symbol), LLVMGetNamedFunction(mod, wrap)};
    LLVMBuilderRef B = LLVMCreateBuilderInContext(LLVMGetModuleContext(mod));
    for (int i = 0; i < 2; i++) {
        LLVMValueRef f = fns[i];
        LLVMTypeRef ret = f ? LLVMGetReturnType(LLVMGlobalGetValueType(f)) : NULL;
        if (!f || LLVMIsDeclaration(f) || LLVMGetTypeKind(ret) != LLVMIntegerTypeKind)
            continue;
        /* the instructions' uses, then the branches to the blocks, then the blocks */
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
                if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind)
                    LLVMReplaceAllUsesWith(in, LLVMGetUndef(LLVMTypeOf(in)));
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            while (LLVMGetFirstInstruction(bb))
                LLVMInstructionEraseFromParent(LLVMGetFirstInstruction(bb));
        while (LLVMGetFirstBasicBlock(f))
            LLVMDeleteBasicBlock(LLVMGetFirstBasicBlock(f));
        LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(LLVMGetModuleContext(mod), f, "stub"));
        LLVMBuildRet(B, LLVMConstInt(ret, ABI_STATUS_ERROR, 0));
    }
    LLVMDisposeBuilder(B);
}

/* The cut function's values in registers and what its rounds share out of their loops, for
 * lower_sim_split to find where each round's loop splits. */
static int split_rounds(LLVMModuleRef mod, Diag *diag)
{
    if (!LLVMGetNamedFunction(mod, "pj.sim.split.lo"))
        return 0;
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(mod, "function(sroa,early-cse,instcombine,loop-mssa(licm))",
                                     host_tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (err)
        return llvm_error(diag, "optimising", err);
    lower_sim_split(mod);
    return 0;
}

static int optimise_ptx(Program *prog, LLVMModuleRef mod, LLVMTargetMachineRef tm, Diag *diag)
{
    int level = prog->opts ? prog->opts->opt_level : 3;
    char passes[32];
    snprintf(passes, sizeof passes, "default<O%d>", level < 0 || level > 3 ? 3 : level);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, passes, tm, po);
    LLVMDisposePassBuilderOptions(po);
    return e ? llvm_error(diag, "optimising", e) : 0;
}

/* A simulated kernel runs on the CPU, where the runtime's functions are at hand; the GPU has
 * none of them (ptxas would find the calls undefined). So a simulated kernel that calls one
 * (an array allocated in it, np.random) is refused as the GPU refuses it: the simulator must not
 * accept a kernel the GPU cannot run. What the GPU does its own way is allowed: printing
 * (vprintf), reference counts of arguments (none there), the stack check of a recursion. */
static bool on_gpu_too(const char *name)
{
    static const char *const also[] = {"pj_print_", "pj_nrt_incref", "pj_nrt_decref",
                                       "pj_nrt_free", "pj_stack_limit", "pj_sim_"};
    for (size_t i = 0; i < sizeof also / sizeof *also; i++)
        if (strncmp(name, also[i], strlen(also[i])) == 0)
            return true;
    return false;
}

static int check_gpu_runtime(LLVMModuleRef mod, Program *prog, Diag *diag)
{
    static const char *const runtime[] = {
#define RUNTIME_SYMBOL(ret, name, params) #name,
#include "compiler/runtime_symbols.def"
#undef RUNTIME_SYMBOL
    };
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        const char *name = LLVMGetValueName(f);
        if (!LLVMIsDeclaration(f) || !LLVMGetFirstUse(f) || on_gpu_too(name))
            continue;
        for (size_t i = 0; i < sizeof runtime / sizeof *runtime; i++) {
            if (strcmp(name, runtime[i]) != 0)
                continue;
            TypedFunc *entry = prog->funcs.items[0];
            return diag_error(diag, DIAG_UNSUPPORTED, entry->ir->qualname, entry->ir->filename,
                              entry->ir->firstline, -1, -1,
                              "this kernel uses something that needs the CPU runtime (%s): array "
                              "allocation and similar operations are not available on the GPU "
                              "(use gpu.local.array or gpu.shared.array)", name);
        }
    }
    return 0;
}

int jit_optimise(Program *prog, Diag *diag)
{
    LLVMModuleRef mod = prog->llvm->mod;
    int rc = 0;
    if (prog->gpu_sim && check_gpu_runtime(mod, prog, diag) < 0)
        return -1;
    if (prog->gpu) {
        pthread_mutex_lock(&ptx_lock);
        LLVMTargetMachineRef tm = ptx_tm(prog->gpu_cc, diag);
        rc = tm ? optimise_ptx(prog, mod, tm, diag) : -1;
        pthread_mutex_unlock(&ptx_lock);
    } else {
        pthread_mutex_lock(&jit_lock);
        /* a simulated kernel with barriers is inlined into its block function and simplified,
         * cut there into loops over the threads (lower_sim_regions.c), then optimised */
        if (prog->gpu_sim) {
            pthread_mutex_lock(&ptx_lock);
            set_sim_optimiser(true);
            sim_fits(mod, !prog->sim_sync);
        }
        if (prog->gpu_sim && prog->sim_sync) {
            rc = simplify_for_cut(mod, diag);
            if (rc == 0 && lower_sim_regions(prog, mod)) {
                prog->sim_sync = false;
                drop_thread_entry(prog, mod);
                rc = split_rounds(mod, diag);
            }
        }
        if (rc == 0)
            rc = optimise_cpu(mod, prog->opts, prog->arena, diag);
        if (prog->gpu_sim) {
            set_sim_optimiser(false);
            pthread_mutex_unlock(&ptx_lock);
        }
        pthread_mutex_unlock(&jit_lock);
    }
    if (rc < 0)
        return -1;
    char *text = LLVMPrintModuleToString(mod);
    prog->llvm_dump = arena_strdup(prog->arena, text);
    LLVMDisposeMessage(text);
    return 0;
}

/* ---- CPU emission --------------------------------------------------------------------------- */

/* Each version's code lives in a JITDylib of its own, which resolves the runtime's functions,
 * the process's (libm, libc) and that version's pj.ref.<i>: the names in its object code
 * (whichever process made it) never meet another version's. A released version's dylib is
 * cleared and kept for the next one (ORC's C API cannot remove a dylib). Under jit_lock. */
static LLVMOrcJITDylibRef *spare_dylibs;
static int nspare, spare_cap;

static void give_back_dylib(LLVMOrcJITDylibRef jd)
{
    LLVMErrorRef err = LLVMOrcJITDylibClear(jd);
    if (err)
        LLVMConsumeError(err);
    if (nspare == spare_cap) {
        int cap = spare_cap ? 2 * spare_cap : 16;
        LLVMOrcJITDylibRef *grown = realloc(spare_dylibs, (size_t)cap * sizeof *grown);
        if (!grown)
            return;   /* the dylib stays empty and unused */
        spare_dylibs = grown;
        spare_cap = cap;
    }
    spare_dylibs[nspare++] = jd;
}

static LLVMOrcJITDylibRef take_dylib(Diag *diag)
{
    LLVMOrcJITDylibRef jd;
    if (nspare) {
        jd = spare_dylibs[--nspare];
    } else {
        char name[48];
        snprintf(name, sizeof name, "pyjit.%llu", ++jit_seq);
        jd = LLVMOrcExecutionSessionCreateBareJITDylib(LLVMOrcLLJITGetExecutionSession(jit), name);
        LLVMOrcDefinitionGeneratorRef gen;
        LLVMErrorRef err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
            &gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
        if (err) {
            llvm_error(diag, "searching the process", err);
            return NULL;
        }
        LLVMOrcJITDylibAddGenerator(jd, gen);
    }
    if (define_runtime_symbols(jd, diag) < 0) {
        give_back_dylib(jd);
        return NULL;
    }
    return jd;
}

/* pj.ref.<i> = refs[i], as data symbols of jd. */
static int define_refs(LLVMOrcJITDylibRef jd, void *const *refs, int nrefs, Diag *diag)
{
    if (nrefs == 0)
        return 0;
    LLVMOrcCSymbolMapPair *pairs = calloc((size_t)nrefs, sizeof *pairs);
    if (!pairs)
        return diag_error(diag, DIAG_MEMORY, NULL, NULL, 0, -1, -1, "out of memory");
    for (int i = 0; i < nrefs; i++) {
        char name[32];
        snprintf(name, sizeof name, "pj.ref.%d", i);
        pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, name);
        pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)refs[i];
        pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported;
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, (size_t)nrefs);   /* takes the names */
    free(pairs);
    LLVMErrorRef err = LLVMOrcJITDylibDefine(jd, mu);
    if (err) {
        LLVMOrcDisposeMaterializationUnit(mu);
        return llvm_error(diag, "binding addresses", err);
    }
    return 0;
}

/* The addresses of the entry's symbols in jd (the native entry, its wrapper, and a cfunc's C
 * entry when the object has one), materialising its code: ORC's lookup reports through a
 * callback, which LLJIT (no compile threads) runs before the lookup returns. */
enum { MAX_FOUND = 3 };
typedef struct Found {
    bool done;
    LLVMErrorRef err;
    int n;
    LLVMOrcSymbolStringPoolEntryRef names[MAX_FOUND];
    LLVMOrcExecutorAddress addrs[MAX_FOUND];
} Found;

static void on_found(LLVMErrorRef err, LLVMOrcCSymbolMapPairs result, size_t n, void *ctx)
{
    Found *f = ctx;
    f->err = err;
    for (size_t i = 0; !err && i < n; i++)
        for (int k = 0; k < f->n; k++)
            if (result[i].Name == f->names[k])
                f->addrs[k] = result[i].Sym.Address;
    f->done = true;
}

/* The entry, its wrapper, and the entry's extra function (symbol + extra: "__cfunc", a cfunc's C
 * entry; "__simblock", a simulated kernel's block function) when extra is not NULL. */
static int lookup_entry(LLVMOrcJITDylibRef jd, const char *symbol, const char *extra, JitCode *out,
                        Diag *diag)
{
    char wrap[1100], third[1100];
    snprintf(wrap, sizeof wrap, "%s__wrap", symbol);
    snprintf(third, sizeof third, "%s%s", symbol, extra ? extra : "");
    Found f = {.n = extra ? 3 : 2,
               .names = {LLVMOrcLLJITMangleAndIntern(jit, symbol), LLVMOrcLLJITMangleAndIntern(jit, wrap),
                         extra ? LLVMOrcLLJITMangleAndIntern(jit, third) : NULL}};
    LLVMOrcCJITDylibSearchOrderElement order = {jd, LLVMOrcJITDylibLookupFlagsMatchAllSymbols};
    LLVMOrcCLookupSetElement want[MAX_FOUND];
    for (int k = 0; k < f.n; k++) {
        LLVMOrcRetainSymbolStringPoolEntry(f.names[k]);   /* the lookup takes one reference */
        want[k] = (LLVMOrcCLookupSetElement){f.names[k], LLVMOrcSymbolLookupFlagsRequiredSymbol};
    }
    LLVMOrcExecutionSessionLookup(LLVMOrcLLJITGetExecutionSession(jit), LLVMOrcLookupKindStatic,
                                  &order, 1, want, (size_t)f.n, on_found, &f);
    for (int k = 0; k < f.n; k++)
        LLVMOrcReleaseSymbolStringPoolEntry(f.names[k]);
    if (!f.done)
        return diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1,
                          "LLVM: the JIT did not finish the lookup of %s", symbol);
    if (f.err)
        return llvm_error(diag, "generating machine code", f.err);
    for (int k = 0; k < f.n; k++)
        if (!f.addrs[k])
            return diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM: %s not found", symbol);
    out->native = (void *)(uintptr_t)f.addrs[0];
    out->wrapper = (AbiWrapper)(uintptr_t)f.addrs[1];
    void *found = extra ? (void *)(uintptr_t)f.addrs[2] : NULL;
    if (extra && strcmp(extra, "__simblock") == 0)
        out->simblock = found;
    else
        out->cfunc = found;
    return 0;
}

static int load_locked(const char *object, size_t size, const char *symbol, const char *extra,
                       void *const *refs, int nrefs, JitCode *out, Diag *diag)
{
    if (jit_init(diag) < 0)
        return -1;
    LLVMOrcJITDylibRef jd = take_dylib(diag);
    if (!jd)
        return -1;
    if (define_refs(jd, refs, nrefs, diag) < 0)
        goto fail;
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(object, size, "pyjit");
    LLVMErrorRef err = LLVMOrcLLJITAddObjectFile(jit, jd, buf);   /* takes buf */
    if (err) {
        llvm_error(diag, "loading object code", err);
        goto fail;
    }
    if (lookup_entry(jd, symbol, extra, out, diag) < 0)
        goto fail;
    out->dylib = jd;
    return 0;
fail:
    give_back_dylib(jd);
    return -1;
}

static int load_object(const char *object, size_t size, const char *symbol, const char *extra,
                       void *const *refs, int nrefs, JitCode *out, Diag *diag)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&jit_lock);
    int rc = load_locked(object, size, symbol, extra, refs, nrefs, out, diag);
    pthread_mutex_unlock(&jit_lock);
    return rc;
}

int jit_load_object(const char *object, size_t size, const char *symbol, void *const *refs,
                    int nrefs, JitCode *out, Diag *diag)
{
    return load_object(object, size, symbol, NULL, refs, nrefs, out, diag);
}

/* The object file of the optimised module, made by host_tm, whose settings are the JIT's: the
 * code the JIT would have generated from the module itself. Code generation changes the module,
 * which is not used again (its text was kept by jit_optimise). Called with jit_lock held. */
static int emit_object_locked(Program *prog, Diag *diag)
{
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    if (prog->gpu_sim) {
        pthread_mutex_lock(&ptx_lock);
        set_sim_codegen(true);
    }
    LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(host_tm, prog->llvm->mod, LLVMObjectFile,
                                                          &err, &buf);
    if (prog->gpu_sim) {
        set_sim_codegen(false);
        pthread_mutex_unlock(&ptx_lock);
    }
    if (failed) {
        diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM: generating machine code: %s", err);
        LLVMDisposeMessage(err);
        return -1;
    }
    prog->object_size = LLVMGetBufferSize(buf);
    prog->object = copy_buffer(prog->arena, buf);
    LLVMDisposeMemoryBuffer(buf);
    return 0;
}

int jit_emit_cpu(Program *prog, JitCode *out, Diag *diag)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&jit_lock);
    int rc = emit_object_locked(prog, diag);
    pthread_mutex_unlock(&jit_lock);
    if (rc < 0)
        return -1;
    void **refs = arena_alloc(prog->arena, sizeof(void *) * (size_t)(prog->refs.len + 1));
    for (int i = 0; i < prog->refs.len; i++)
        refs[i] = ((CodeRef *)prog->refs.items[i])->addr;
    TypedFunc *entry = prog->funcs.items[0];
    const char *extra = prog->cfunc ? "__cfunc" : prog->gpu_sim ? "__simblock" : NULL;
    return load_object(prog->object, prog->object_size, entry->symbol, extra, refs,
                       prog->refs.len, out, diag);
}

static char host_text[10240];

static void describe_host(void)
{
    unsigned major, minor, patch;
    LLVMGetVersion(&major, &minor, &patch);
    char *triple = LLVMGetDefaultTargetTriple(), *cpu = LLVMGetHostCPUName(), features[8192];
    host_features(triple, features, sizeof features);
    snprintf(host_text, sizeof host_text, "llvm %u.%u.%u; %s; %s; %s", major, minor, patch, triple,
             cpu, features);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
}

const char *jit_host_description(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, describe_host);
    return host_text;
}

/* ---- PTX emission --------------------------------------------------------------------------- */

/* A call left to a function nothing defines would fail in ptxas: say which, in words. */
static int check_undefined(LLVMModuleRef mod, Program *prog, Diag *diag)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        const char *name = LLVMGetValueName(f);
        if (!LLVMIsDeclaration(f) || !LLVMGetFirstUse(f) || strncmp(name, "llvm.", 5) == 0 ||
            strcmp(name, "vprintf") == 0 ||
            LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "pyjit-linked", 12))
            continue;   /* gpu.declare_device's functions: the driver's linker resolves them */
        TypedFunc *entry = prog->funcs.items[0];
        return diag_error(diag, DIAG_UNSUPPORTED, entry->ir->qualname, entry->ir->filename,
                          entry->ir->firstline, -1, -1,
                          "this kernel uses something that needs the CPU runtime (%s): array "
                          "allocation and similar operations are not available on the GPU "
                          "(use gpu.local.array or gpu.shared.array)", name);
    }
    return 0;
}

static int emit_ptx_locked(Program *prog, LLVMTargetMachineRef tm, Diag *diag)
{
    JitModule *m = prog->llvm;
    char *err = NULL;
    if (check_undefined(m->mod, prog, diag) < 0)
        return -1;
    LLVMMemoryBufferRef out = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m->mod, LLVMAssemblyFile, &err, &out)) {
        diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM: emitting PTX: %s", err);
        LLVMDisposeMessage(err);
        return -1;
    }
    prog->asm_dump = copy_buffer(prog->arena, out);
    LLVMDisposeMemoryBuffer(out);
    if (prog->gpu_device)
        prog->gpu_entry = prog->gpu_c_abi ? prog->gpu_c_abi
                                          : ((TypedFunc *)prog->funcs.items[0])->symbol;
    return 0;
}

int jit_emit_ptx(Program *prog, Diag *diag)
{
    pthread_mutex_lock(&ptx_lock);
    LLVMTargetMachineRef tm = ptx_tm(prog->gpu_cc, diag);
    int rc = tm ? emit_ptx_locked(prog, tm, diag) : -1;
    pthread_mutex_unlock(&ptx_lock);
    return rc;
}

/* ---- assembly for inspection ---------------------------------------------------------------- */

/* Whether mod is a simulated kernel's (it defines a block function, symbol__simblock), whose
 * code generation runs with set_sim_codegen's options. */
static bool simulated_module(LLVMModuleRef mod)
{
    static const char suffix[] = "__simblock";
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        size_t len = 0;
        const char *name = LLVMGetValueName2(f, &len);
        if (!LLVMIsDeclaration(f) && len >= sizeof suffix - 1 &&
            memcmp(name + len - (sizeof suffix - 1), suffix, sizeof suffix - 1) == 0)
            return true;
    }
    return false;
}

static const char *asm_of_locked(const char *llvm_text, Arena *arena, Diag *diag)
{
    if (jit_init(diag) < 0)
        return NULL;
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMMemoryBufferRef ir = LLVMCreateMemoryBufferWithMemoryRangeCopy(llvm_text, strlen(llvm_text), "pyjit");
    LLVMModuleRef mod = NULL;
    LLVMMemoryBufferRef out = NULL;
    char *err = NULL;
    const char *result = NULL;
    if (LLVMParseIRInContext(ctx, ir, &mod, &err)) {   /* takes the buffer */
        diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM: re-reading IR: %s", err);
        goto done;
    }
    bool sim = simulated_module(mod);
    if (sim) {
        pthread_mutex_lock(&ptx_lock);
        set_sim_codegen(true);
    }
    LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(host_tm, mod, LLVMAssemblyFile, &err, &out);
    if (sim) {
        set_sim_codegen(false);
        pthread_mutex_unlock(&ptx_lock);
    }
    if (failed) {
        diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "LLVM: emitting assembly: %s", err);
        goto done;
    }
    result = copy_buffer(arena, out);
done:
    if (err)
        LLVMDisposeMessage(err);
    if (out)
        LLVMDisposeMemoryBuffer(out);
    if (mod)
        LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    return result;
}

const char *jit_asm_of(const char *llvm_text, Arena *arena, Diag *diag)
{
    if (!llvm_text) {
        diag_error(diag, DIAG_INTERNAL, NULL, NULL, 0, -1, -1, "no compiled code to show as assembly");
        return NULL;
    }
    pthread_mutex_lock(&jit_lock);
    const char *text = asm_of_locked(llvm_text, arena, diag);
    pthread_mutex_unlock(&jit_lock);
    return text;
}

/* ---- release -------------------------------------------------------------------------------- */

void jit_release(JitCode *code)
{
    if (!code || !code->dylib)
        return;
    pthread_mutex_lock(&jit_lock);
    give_back_dylib(code->dylib);
    pthread_mutex_unlock(&jit_lock);
    code->dylib = NULL;
    code->native = NULL;
    code->wrapper = NULL;
}
