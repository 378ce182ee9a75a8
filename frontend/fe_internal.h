/* fe_internal.h: what the frontend's files share (private to frontend/; frontend.h is its interface).
 *
 * One FeCtx per fe_build call carries the function being compiled, its decoded bytecode
 * (bytecode.c), its basic blocks (cfg.c) and the IR being made (ssa.c, consts.c). */
#ifndef PYJIT_FE_INTERNAL_H
#define PYJIT_FE_INTERNAL_H

#include "frontend/frontend.h"

/* How an opcode's argument names its jump target (opcodes_3xx.def). */
typedef enum JumpKind { JK_NONE, JK_FWD, JK_BACK, JK_ABS } JumpKind;

/* Version-independent opcode names: every name of 3.11, then those new in 3.12. */
typedef enum BcOp {
#define OPC(name, num, ncache, jump) BC_##name,
#define OPC_NEW(name, num, ncache, jump)
#include "frontend/opcodes_311.def"
#undef OPC
#undef OPC_NEW
#define OPC(name, num, ncache, jump)
#define OPC_NEW(name, num, ncache, jump) BC_##name,
#include "frontend/opcodes_312.def"
#undef OPC
#undef OPC_NEW
    BC__COUNT
} BcOp;

/* One decoded instruction (EXTENDED_ARG prefixes folded in, inline caches skipped). */
typedef struct BcInstr {
    BcOp op;
    int opcode;         /* the running CPython's number */
    const char *opname;
    int arg;
    int start;          /* offset of its first EXTENDED_ARG, where jumps to it land */
    int offset;         /* offset of the opcode itself */
    int next;           /* offset of the next instruction, after the inline caches */
    int target;         /* jump target offset, or -1 */
    int target_index;   /* index of the target instruction, or -1 */
    int line, col, end_col;
} BcInstr;

/* One entry of the exception table: an exception raised by an instruction at an offset in
 * [start, end) goes to target, with the value stack cut to depth (then lasti, when set, and the
 * exception pushed). Offsets in bytes. */
typedef struct ExcEntry {
    int start, end, target, depth;
    bool lasti;
} ExcEntry;

/* A basic block of the bytecode: instructions [first, last]. */
typedef struct CfgBlock {
    int first, last;
    int succ[2], nsucc;     /* CfgBlock indices; for conditional jumps see cfg_successors */
    int npreds;             /* incoming edges from reachable blocks */
    int depth;              /* value-stack depth at entry; -1 while unknown */
    int handler;            /* the block an exception raised here goes to, or -1 */
    const ExcEntry *entry;  /* a handler block: the table entry that sends control here */
    int rpo;                /* position in reverse post-order; -1 if unreachable */
    Block *ir;
} CfgBlock;

typedef struct FeCtx {
    Arena *arena;
    Diag *diag;
    IRFunc *fn;
    PyObject *func, *code, *registry;   /* borrowed */
    FeIsDispatcher is_dispatcher;       /* may be NULL */
    PyObject *globals, *builtins;       /* borrowed */
    PyObject *consts, *names, *localsplusnames;   /* owned */
    const unsigned char *localspluskinds;
    int nlocalsplus, nfree, stacksize;
    int minor;                          /* 11 or 12: the running CPython */
    bool comprehension;                 /* a list comprehension's code (3.11): its parameters are
                                           the iterable, then its free variables (ssa.c) */
    bool closure;                       /* a lambda or inner function of a compiled function
                                           (pyjit.decorators._closure): its parameters are its
                                           free variables, then its own (ssa.c) */
    bool generator;                     /* a generator function or expression: compiled as a
                                           function returning the list of what it yields (ssa.c) */
    PyObject *over;                     /* a comprehension over zip or enumerate: that function,
                                           whose nover arguments are its first parameters */
    int nover;
    Instr **over_args;                  /* their ARG instructions */
    Const **declared;                   /* by local index: the scalar type @njit(locals=...)
                                           declares for it (K_TYPE), or NULL; may be NULL */
    const char *qualname, *filename;

    BcInstr *instrs;
    int ninstrs;
    int *index_at;          /* by offset / 2: the instruction starting there, or -1 */
    int ncodeunits;
    const BcInstr *cur;     /* the instruction being translated, for diagnostics */
    Const *scalar_type;     /* set by fe_load_global/deref/fold_module_attr when the object was a
                               NumPy scalar: the value is then scalar_type(*out) */

    ExcEntry *exc;          /* the exception table (bytecode.c) */
    int nexc;

    CfgBlock *blocks;       /* reachable blocks in offset order */
    int nblocks;
    int *block_of;          /* by instruction index: its block, or -1 */
    int *rpo;               /* block indices in reverse post-order */
} FeCtx;

/* bytecode.c */
int bc_decode(FeCtx *ctx);
int bc_check_code(FeCtx *ctx);          /* flags, signature, exception table */
const char *bc_local_name(FeCtx *ctx, int index);
const char *bc_dump(FeCtx *ctx);   /* the decoded instructions as text, in the arena */

/* cfg.c */
int cfg_build(FeCtx *ctx);
/* The exception table entry covering instruction in, or NULL. */
const ExcEntry *cfg_entry_at(const FeCtx *ctx, const BcInstr *in);

/* consts.c */
int fe_const_of(FeCtx *ctx, PyObject *obj, Const **out);
int fe_load_const(FeCtx *ctx, int index, Const **out);
/* The name of a comprehension's code ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>",
 * static), or NULL. */
const char *fe_comprehension_name(const char *name);
/* The name of the K_OPAQUE constant a lambda's or inner function's code loads as (its handle the
 * code object), for MAKE_FUNCTION. */
extern const char FE_CODE_CONST[];
int fe_load_global(FeCtx *ctx, const char *name, Const **out);
int fe_load_deref(FeCtx *ctx, int index, Const **out);
int fe_fold_module_attr(FeCtx *ctx, const Const *module, const char *attr, Const **out);
/* owner.attr, owner a known function or class constant whose attribute is a function compiled
 * code knows (List.empty_list, pyjit.typed.Dict.empty): 1 with its constant in *out, 0 when it
 * is not one (the attribute is left to inference), -1 on error. */
int fe_fold_attr_function(FeCtx *ctx, const Const *owner, const char *attr, Const **out);
int fe_freeze_defaults(FeCtx *ctx);
int fe_check_int_binop(FeCtx *ctx, BinOp op, const Const *a, const Const *b);

/* ssa.c */
int ssa_build(FeCtx *ctx);

/* Errors at the instruction being translated (ctx->cur), or at the function's first line. */
int fe_error(FeCtx *ctx, DiagKind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Turns a pending Python exception into an internal diagnostic and clears it. */
int fe_error_from_python(FeCtx *ctx, const char *what);

#endif
