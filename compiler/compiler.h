/* compiler.h: the interface of compiler/, from IR to machine code. Plain C over the LLVM C API.
 *
 *   types.c       interned types, NumPy promotion, ABI sizes
 *   ir.c          building, printing and checking the IR
 *   infer.c       type inference over the SSA: untyped IR -> typed IR (contract in ir.h)
 *   lower.c       typed IR -> LLVM IR, one lowering for every target (target.h)
 *   target_cpu.c  the CPU target; target_nvptx.c the GPU one
 *   jit.c         LLVM's optimiser, ORC LLJIT for CPU code, PTX emission for the GPU
 *   pipeline.c    the whole pipeline, stage after stage, in one function */
#ifndef PYJIT_COMPILER_H
#define PYJIT_COMPILER_H

#include <stdbool.h>

#include "compiler/abi.h"
#include "compiler/diag.h"
#include "compiler/ir.h"

enum {
    DUMP_BYTECODE = 1 << 0,
    DUMP_SSA = 1 << 1,
    DUMP_TYPES = 1 << 2,
    DUMP_LLVM = 1 << 3,
    DUMP_ASM = 1 << 4,
    DUMP_PTX = 1 << 5,
};

typedef struct CompileOptions {
    int opt_level;          /* 0-3; 3 by default */
    bool fastmath;
    bool boundscheck;       /* IndexError on out-of-bounds indices (also PYJIT_DEBUG=1) */
    bool nogil;             /* the dispatcher releases the GIL around the call */
    bool error_model_numpy; /* float division by zero gives inf/nan instead of raising */
    bool debug;             /* PYJIT_DEBUG=1: IR checks between stages, bounds checks */
    unsigned dump;          /* DUMP_* bits: stages printed to stderr as they are made */
} CompileOptions;

/* What the compiler asks of whoever drives it (the runtime) about other compiled functions. */
typedef struct CompilerHost {
    void *ctx;
    /* The IR of another @njit function (handle = its K_DISPATCHER handle), built into arena. */
    IRFunc *(*get_ir)(void *ctx, void *handle, Arena *arena, Diag *diag);
    /* A return type the function declared (explicit signature) or already compiled for exactly
     * these argument types, so recursion can be typed; NULL if none. */
    Type *(*known_return)(void *ctx, void *handle, Type **args, int nargs);
    /* pyjit.extending.overload: the implementation chosen for a call of handle (an overloaded
     * K_FUNC's object) with these argument types, the last nkw of them named by kwnames.
     * 1: *impl is a dispatcher handle, typed like a K_DISPATCHER call; 0: every typing function
     * declined; -1: an error, said by *why (in arena). NULL: no overloads here. */
    int (*resolve_overload)(void *ctx, void *handle, Type **args, int nargs, const char **kwnames,
                            int nkw, Arena *arena, void **impl, const char **why);
} CompilerHost;

/* One function of a Program, specialised to argument types. */
struct TypedFunc {
    IRFunc *ir;
    Type **argtypes;
    int nargs;
    Type *ret;              /* NULL while being inferred (recursion) */
    const char *symbol;     /* unique LLVM symbol of the native entry; the wrapper is symbol__wrap */
    bool inferring;
    void *aux;              /* lowering's use */
};

/* A compilation: the entry function and the callees it reaches, typed, in one LLVM module. */
typedef struct Program {
    Arena *arena;
    const CompileOptions *opts;
    const CompilerHost *host;
    PtrVec funcs;           /* TypedFunc*; funcs.items[0] is the entry */
    const char *types_dump; /* texts of the stages, kept for inspect_*() (in arena) */
    const char *llvm_dump;
    const char *asm_dump;
    /* GPU compilations (jit_compile_ptx) only; zero for the CPU. */
    bool gpu;               /* lowering for target_nvptx: kernel entry, device functions */
    bool gpu_device;        /* a device function: no kernel entry (compile_ptx(device=True)) */
    int gpu_cc;             /* compute capability as 10 * major + minor (90 for sm_90) */
    const char *gpu_entry;  /* set by jit_compile_ptx: the kernel's .entry name */
    uint64_t gpu_aligned;   /* bit i: array argument i's data pointer is 16-byte aligned (the
                             * launch checked it), so loads and stores may be vectorised */
    uint64_t gpu_noalias;   /* bit i: array argument i's memory overlaps no other array
                             * argument's (checked at launch): its parameter is noalias, so a
                             * kernel that only reads it may use the read-only data cache */
    uint64_t gpu_readonly;  /* bit i: array argument i is never written by the kernel (the
                             * typed IR's written mask): its parameter is readonly */
} Program;

/* infer.c: types entry (and every callee it reaches) for these argument types. ret, if not NULL,
 * is the declared return type (the result is cast to it). Returns the entry's TypedFunc. */
TypedFunc *infer_program(Program *prog, IRFunc *entry, Type **argtypes, int nargs, Type *ret,
                         Diag *diag);

/* Compiled CPU code, alive until jit_release. */
typedef struct JitCode {
    void *native;           /* the entry's native entry point */
    AbiWrapper wrapper;     /* the entry's wrapper */
    void *tracker;          /* LLVM resource tracker that frees the code */
} JitCode;

/* lower.c + jit.c: lowers every function of prog into one LLVM module for the CPU, optimises it
 * at opts->opt_level, and adds it to the process's JIT. Sets prog->llvm_dump (optimised IR). */
int jit_compile_cpu(Program *prog, JitCode *out, Diag *diag);

/* Assembly of the optimised module of prog (for inspect_asm and PYJIT_DUMP=asm), in arena. */
const char *jit_emit_asm(Program *prog, Diag *diag);

/* lower.c + jit.c: lowers every function of prog for target_nvptx (the entry as a kernel unless
 * prog->gpu_device), links libdevice when math needs it, optimises and emits PTX into arena
 * (prog->asm_dump, prog->llvm_dump, prog->gpu_entry). Needs no GPU. 0, or -1 with diag filled. */
int jit_compile_ptx(Program *prog, Diag *diag);

/* Frees the machine code of a JitCode (when its dispatcher goes). */
void jit_release(JitCode *code);

/* pipeline.c: fn's IR (already built) -> typed -> machine code, printing stages as opts->dump
 * asks. prog must be zeroed except arena, opts, host. */
int pipeline_compile_cpu(Program *prog, IRFunc *fn, Type **argtypes, int nargs, Type *ret,
                         JitCode *out, Diag *diag);

#endif
