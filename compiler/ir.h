/* ir.h: pyjit's SSA IR, made by the frontend and typed by inference, then lowered to LLVM IR.
 *
 * A function is a list of basic blocks; blocks[0] is the entry. Each block holds its phis first,
 * then ordinary instructions, then exactly one terminator (BR, CBR, FOR_ITER, RET, RAISE).
 * An instruction is also the SSA value it defines. Every instruction carries the source line
 * (and columns, where CPython knows them) of the bytecode it came from.
 *
 * Two forms, one data structure:
 *  - untyped, as the frontend makes it: Python-level operations (BINOP, GETATTR, CALL, ...) on
 *    values whose meaning depends on their types;
 *  - typed, after inference (compiler/infer.c): every instr->type is set (TY_NONE for
 *    instructions with no value), and the operations whose meaning the types decide are rewritten
 *    into explicit ones, so lowering never decides a promotion or looks up a name. The contract
 *    lowering relies on is written beside each opcode below, under "Typed:".
 * Plain C: no Python here (constants that are Python objects are opaque handles). */
#ifndef PYJIT_IR_H
#define PYJIT_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/arena.h"
#include "compiler/types.h"

typedef enum Opcode {
#define OP(name, str) OP_##name,
#include "compiler/ir_ops.def"
#undef OP
    OP__COUNT
} Opcode;

/* The sub-operations of BINOP, UNARY, COMPARE, ARRAY_ATTR and OPTIONAL, one list per enum, each entry with
 * the name the IR text gives it (ir_dump prints it, ir_read reads it back: ir_sub_name and
 * ir_sub_lookup in ir.c). */
#define IR_BINOPS(X)                                                                              \
    X(BIN_ADD, "add") X(BIN_SUB, "sub") X(BIN_MUL, "mul") X(BIN_TRUEDIV, "truediv")              \
    X(BIN_FLOORDIV, "floordiv") X(BIN_MOD, "mod") X(BIN_POW, "pow") X(BIN_LSHIFT, "lshift")      \
    X(BIN_RSHIFT, "rshift") X(BIN_AND, "and") X(BIN_OR, "or") X(BIN_XOR, "xor")                  \
    X(BIN_MATMUL, "matmul")
#define IR_UNARYOPS(X) X(UN_NEG, "neg") X(UN_POS, "pos") X(UN_NOT, "not") X(UN_INVERT, "invert")
#define IR_CMPOPS(X)                                                                              \
    X(CMP_LT, "lt") X(CMP_LE, "le") X(CMP_EQ, "eq") X(CMP_NE, "ne") X(CMP_GT, "gt")              \
    X(CMP_GE, "ge") X(CMP_IS, "is") X(CMP_ISNOT, "isnot") X(CMP_IN, "in") X(CMP_NOTIN, "notin")
#define IR_ARRAY_ATTRS(X)                                                                         \
    X(AA_SHAPE, "shape") X(AA_STRIDES, "strides") X(AA_SIZE, "size") X(AA_NDIM, "ndim")          \
    X(AA_ITEMSIZE, "itemsize") X(AA_NBYTES, "nbytes") X(AA_T, "T") X(AA_REAL, "real")            \
    X(AA_IMAG, "imag")
/* OPTIONAL: the value of an optional (TypeError when it is None), whether it is None. */
#define IR_OPTIONAL_OPS(X) X(OPT_GET, "get") X(OPT_IS_NONE, "is_none")

#define IR_ENUM_ITEM(id, name) id,
typedef enum BinOp { IR_BINOPS(IR_ENUM_ITEM) } BinOp;
typedef enum UnaryOp { IR_UNARYOPS(IR_ENUM_ITEM) } UnaryOp;
typedef enum CmpOp { IR_CMPOPS(IR_ENUM_ITEM) } CmpOp;
typedef enum ArrayAttr { IR_ARRAY_ATTRS(IR_ENUM_ITEM) } ArrayAttr;
typedef enum OptionalOp { IR_OPTIONAL_OPS(IR_ENUM_ITEM) } OptionalOp;
#undef IR_ENUM_ITEM

/* Known functions and methods, the subject of OP_INTRINSIC. */
typedef enum Builtin {
#define BUILTIN(id, ...) id,
#include "compiler/builtins.def"
#undef BUILTIN
    BI__COUNT
} Builtin;

/* Where a builtin may be called (builtins.def's where column). */
typedef enum BuiltinWhere { BI_HOST = 1, BI_DEVICE = 2, BI_BOTH = 3 } BuiltinWhere;

/* A compile-time constant: a literal of the code, or a global / closure cell / default argument
 * frozen at compile time by the frontend. */
typedef enum ConstKind {
    K_NONE, K_BOOL, K_INT, K_FLOAT, K_COMPLEX, K_STR, K_TUPLE,
    K_ELLIPSIS,     /* `...` (in an index: as many full slices as the axes it stands for) */
    K_MODULE,       /* name: "math", "cmath", "numpy", "pyjit", "pyjit.gpu", ... */
    K_FUNC,         /* name: a Python name in builtins.def ("math.sqrt", "numpy.zeros", "builtins.abs",
                       "numpy.float32" for type objects too); handle: the Python object */
    K_DISPATCHER,   /* handle: the Python dispatcher object of another @njit function; name: its qualname */
    K_EXCCLASS,     /* handle: the Python exception class; name: its name */
    K_ARRAY,        /* a global NumPy array, frozen: handle (kept alive by the compiled code), data,
                       array_type, shape/strides in array_shape/array_strides (bytes) */
    K_TYPE,         /* a pyjit.types type object (types.float64[:], types.ListType(...)) used as a
                       value, as List.empty_list(item_type) takes one; name: its canonical name */
    K_NAMEDTUPLE,   /* a namedtuple class (collections.namedtuple, typing.NamedTuple): handle the
                       class, name its name, fields its n = tuple.n field names, tuple.items their
                       default values (NULL where a field has none) */
    K_CFUNC,        /* a ctypes or cffi function (or a cfunc) compiled code calls at its address:
                       handle the object, name its name, data the address, s its signature as
                       canonical type names "ret|arg|arg..." (pyjit/_ffi.py: describe) */
    K_OBJMODE,      /* a `with objmode(...)` block outlined by pyjit/_objmode.py: handle the
                       ObjModeCall, name its name, s the canonical tuple type of its outputs */
    K_OPAQUE,       /* anything else; name: its repr, for the error that its use will give */
    K_UNDEFINED,    /* a local read where it may not have been assigned; s: the variable's name.
                       A phi ignores such an input; any other use is a TypingError */
} ConstKind;

typedef struct Const {
    ConstKind kind;
    union {
        bool b;
        int64_t i;
        double f;
        struct { double re, im; } c;
        const char *s;                                  /* K_STR */
        struct { int n; struct Const **items; } tuple;  /* K_TUPLE */
    };
    const char *name;   /* K_MODULE, K_FUNC, K_DISPATCHER, K_EXCCLASS, K_OPAQUE */
    void *handle;       /* K_FUNC, K_DISPATCHER, K_EXCCLASS, K_ARRAY: a borrowed PyObject*, kept
                           alive by whoever owns the compilation */
    void *data;         /* K_ARRAY */
    bool device_only;   /* K_DISPATCHER: a @gpu.jit(device=True) function, callable from kernels only */
    bool c_abi;         /* K_CFUNC of gpu.declare_device(abi="c"): ret_t name(args), not
                           numba-cuda's int name(ret_t *, args) */
    bool python_function;   /* K_OPAQUE: a plain Python function (errors suggest @njit) */
    bool gpu_kernel;        /* a @gpu.jit kernel: K_OPAQUE (errors say kernels cannot call it), or
                             * K_DISPATCHER device_only (one without a signature) */
    bool jitclass;      /* K_FUNC: a jitclass, whose constructor takes optional arguments as they
                           are (Frame(value, self.top) with self.top None or an instance) */
    bool overloaded;    /* K_FUNC: has pyjit.extending.overload implementations, chosen by the
                           argument types through CompilerHost.resolve_overload (the builtin of
                           the same name, if any, serves when every overload declines) */
    Type *array_type;   /* K_ARRAY; K_INT of a np.datetime64/timedelta64 constant: its type */
    const char **fields;    /* K_NAMEDTUPLE; K_TUPLE of a namedtuple instance (then handle is
                               its class and name the class's name) */
    int64_t *array_shape, *array_strides;   /* K_ARRAY */
} Const;

typedef struct Block Block;
typedef struct TypedFunc TypedFunc;

typedef struct Instr {
    Opcode op;
    int id;             /* value number, unique in its function; printed %id */
    int sub;            /* BinOp, UnaryOp, CmpOp, ArrayAttr, OptionalOp or Builtin, by opcode */
    int64_t imm, imm2;
    const char *name;   /* GETATTR: the attribute */
    struct Instr **args;
    int nargs;
    int nkw;            /* CALL: the last nkw args are keyword arguments named by kwnames */
    const char **kwnames;
    Const *cst;         /* CONST */
    Block *block;
    Block *succ[2];     /* terminators */
    int line, col, end_col;   /* source position; col/end_col -1 when unknown */
    const char *var;    /* the local variable this value was stored to, if any (diagnostics) */
    Type *type;         /* set by inference */
    TypedFunc *callee;  /* CALL_JIT */
    void *aux;          /* free for one stage's private use */
} Instr;

struct Block {
    int id;
    PtrVec instrs;      /* Instr*: phis, body, terminator */
    PtrVec preds;       /* Block*: a phi's args[i] comes from preds.items[i] */
    int offset;         /* bytecode offset where the block starts (dumps) */
    /* Inside a try: the block an exception raised here goes to (an edge of its own, not the
     * terminator's: the handler's preds list this block). It is a landing block, made for this
     * block alone, which holds nothing but the casts its phi inputs need and a BR to the
     * except clause's code; the frontend ends a block at every assignment to a local inside a
     * try, so wherever the exception is raised the locals are those at the block's end. */
    struct Block *handler;
    void *aux;
};

typedef struct IRFunc {
    Arena *arena;
    const char *name, *qualname, *filename;
    int firstline;
    int nargs;          /* positional parameters, then keyword-only ones, then *args */
    const char **argnames;
    bool varargs;       /* the last argument is *args: the tuple of the extra positional ones */
    int nkwonly;        /* keyword-only parameters (def f(a, *, scale=2)), before *args */
    PtrVec blocks;      /* Block*; blocks.items[0] is the entry */
    int next_id;        /* the next value number */
    void *handle;       /* the Python function (borrowed; owned by the dispatcher) */
    int ndefaults;      /* default values of the last ndefaults positional arguments, frozen */
    Const **defaults;
    Const **kwdefaults; /* nkwonly of them: each keyword-only parameter's default, or NULL */
    const char *bytecode_dump;   /* the decoded bytecode as text (PYJIT_DUMP=bytecode) */
    bool generator;     /* a generator function, compiled to return the list of what it yields */
} IRFunc;

/* Building and editing. */
Block *ir_new_block(IRFunc *fn, int offset);
Instr *ir_new_instr(IRFunc *fn, Opcode op, int nargs, int line);   /* not yet in a block */
void ir_append(Block *block, Instr *instr);
void ir_insert_before(Instr *at, Instr *instr);   /* in at's block, just before at */
void ir_add_pred(IRFunc *fn, Block *block, Block *pred);
/* Every loop header entered by two or more back edges (jumps from blocks at or after it) gets
 * one: the jumps go to a new block that jumps to the header, the header's phis split across it.
 * LLVM's LoopSimplify otherwise splits such a loop into nested ones wherever a phi keeps its
 * value on one of the edges (a count incremented on one branch only), and the outer loop's index
 * is then no longer known to be a non-negative induction variable (its wrap-around and range
 * tests stay in the loop). Numba shapes its loops the same way. */
void ir_single_back_edges(IRFunc *fn);
Instr *ir_terminator(const Block *block);         /* NULL if the block has none yet */
/* The blocks control may go to from block: its terminator's successors, then its handler. */
int ir_successors(const Block *block, Block *out[3]);
Const *ir_new_const(IRFunc *fn, ConstKind kind);
/* The value of an int (or bool) the code computes from constants alone, as Python computes it
 * (`TPB + 1`, `2 * N`, `-(-n // 32)` over frozen globals): true and *out set, or false when
 * some operand is not constant or the operation would raise or leave int64. */
bool ir_const_int(const Instr *in, int64_t *out);

/* Printing, for PYJIT_DUMP=ssa/types and inspect_types(): instructions with their lines, and
 * their types once inference has run. The result lives in fn's arena. */
char *ir_dump(IRFunc *fn, bool with_types);
/* ir_read.c: the function ir_dump printed (either form), rebuilt in arena; NULL with diag
 * filled if the text is not such a dump. For stage tests written as IR text. */
struct Diag;
IRFunc *ir_read(Arena *arena, const char *text, struct Diag *diag);
const char *ir_op_name(Opcode op);
/* The IR text's name of sub-operation sub of op (BINOP, UNARY, COMPARE, ARRAY_ATTR), "?" if
 * none; and back: the sub-operation of op named word, or -1. */
const char *ir_sub_name(Opcode op, int sub);
int ir_sub_lookup(Opcode op, const char *word);
const char *ir_builtin_name(Builtin b);   /* the Python name, "math.sqrt" */
Builtin ir_builtin_lookup(const char *pyname);   /* BI__COUNT if unknown */
/* builtins.def's columns of b: the name its handler calls ("sqrt", "llvm.nvvm.barrier0") or
 * NULL, the keyword parameters ("shape,dtype") or NULL, the argument it writes through or -1,
 * where it may be called, and its typed form. */
const char *ir_builtin_fn(Builtin b);
const char *ir_builtin_keywords(Builtin b);
int ir_builtin_written(Builtin b);
BuiltinWhere ir_builtin_where(Builtin b);
const char *ir_builtin_typed_form(Builtin b);

/* Checks the IR's invariants (one terminator per block, phis match preds, every operand defined)
 * and, when typed, the typed IR contract below, opcode by opcode; run between stages when
 * PYJIT_DEBUG=1. Returns 0, or -1 with diag filled (DIAG_INTERNAL naming the function, the
 * instruction and its line; DIAG_MEMORY if the checker's own memory cannot be had). */
struct Diag;
int ir_check(IRFunc *fn, bool typed, struct Diag *diag);
/* ir_check(tf->ir, true, diag), and also ARG and RET against tf's signature. */
int ir_check_typed(TypedFunc *tf, struct Diag *diag);

/* ---------------------------------------------------------------------------------------------
 * The typed IR contract (what inference guarantees and lowering relies on).
 *
 * Types: every instr->type is non-NULL. Compile-time-only types (TY_MODULE, TY_FUNCTION,
 * TY_DISPATCHER, TY_EXCCLASS, TY_STRING, TY_BOUND_METHOD, TY_DTYPE) may remain on CONST, GETATTR
 * and PHI-free values that nothing lowers; lowering emits nothing for them. Weak types are gone
 * after inference: a value that is still weak when used is given its strong type.
 * "Passes as" (PHI, BUILD_TUPLE, RET, CALL_JIT): the same type, or an array where an array of its dtype
 * and ndim with layout 'A' (or read-only) is expected, item by item in tuples: every layout has
 * one descriptor, so no conversion is emitted.
 *
 * ARG           type = the argument's type.
 * CONST         type = the constant's type (K_INT int64, K_FLOAT float64, ...), or a literal type.
 * PHI           type = the unified type; every incoming arg passes as it (inference inserts CASTs
 *               at the end of the predecessor, before its terminator, where needed).
 * BINOP         scalars: args and result share one type T, except
 *                 - TRUEDIV: args are float/complex T, result T (ints are cast to float64 first);
 *                 - POW with int T and int exponent: result int64;
 *                 - shifts: both args the same int type.
 *               Python semantics: FLOORDIV/MOD floor (sign of the divisor for MOD), int division
 *               or modulo by zero raises ZeroDivisionError, float division by zero too (Python
 *               semantics, unless error_model='numpy').
 *               arrays: at least one arg is an array; result is a new C-contiguous array of the
 *               broadcast shape with dtype = promotion of the element types (array op array, array
 *               op scalar, scalar op array); with imm = 1 (augmented) and args[0] an array, the
 *               result is args[0] updated in place.
 * UNARY         NEG/POS/INVERT: arg and result of one scalar type (or array, elementwise);
 *               NOT: result bool (arg is bool after a TRUTH inserted by inference).
 * COMPARE       LT..GE: scalar args of one type, result bool (arrays: elementwise, bool array);
 *               except int64 against uint64 and int64 against float64 (either order), left mixed
 *               so lowering compares them exactly by value, as NumPy 2 and CPython do.
 *               IS/ISNOT/IN/NOTIN never reach lowering: inference folds them to CONST bool (is None)
 *               or rewrites IN over a tuple/range into INTRINSIC BI_CONTAINS.
 * TRUTH         arg any scalar, array of size 1 is an error, optional(T) false when absent;
 *               result bool.
 * CAST          scalar -> scalar: int->int wraps/extends by signedness, float->int truncates
 *               toward zero, bool->x is 0/1, x->bool is x != 0, complex->real takes the real part.
 *               Also T or None -> optional(T) (the value present, or absent), and
 *               optional(S) -> optional(T) for scalars S, T.
 * OPTIONAL      arg optional(T); GET: T (TypeError "expected T, got None" when absent; an arg that
 *               is not optional is its own value); IS_NONE: bool.
 * GETATTR       only compile-time results remain (module.func); lowering skips them.
 * SETITEM       never remains (ARRAY_SET).
 * GETITEM       never remains (ARRAY_GET, STATIC_GET, TUPLE_GET).
 * STATIC_GETITEM never remains (STATIC_GET).
 * CALL          never remains (INTRINSIC, CALL_JIT, CAST, or a constructor).
 * BUILD_TUPLE   result a tuple whose items the args pass as.
 * BUILD_SLICE   result TY_SLICE; args int64 or CONST None (missing bound).
 * GETITER       arg a range, a 1-d or n-d array (iterates the first axis: items are views or
 *               scalars) or a tuple; result TY_ITER.
 * FOR_ITER      arg the iterator; result the item type.
 * RET           arg passes as the function's return type (all RETs agree; CASTs inserted).
 * RAISE         arg of type TY_EXCEPTION or TY_EXCCLASS, or TY_CAUGHT (a re-raise).
 * CATCH         type TY_CAUGHT; at the start of a handler block, which only exceptions reach.
 * EXC_MATCH     args[0] TY_CAUGHT, then one or more TY_EXCCLASS; type bool.
 * EXC_DONE      args[0] TY_CAUGHT; type none.
 * INTRINSIC     sub = Builtin; args already cast to the parameter types the builtin's entry in
 *               builtins.def documents; type = its result.
 * CALL_JIT      callee = the typed callee (same Program); args cast to (or passing as) its
 *               parameter types: those of the declared signature the call binds to, if any.
 * ARRAY_GET     args[0] the array, then one arg per indexed axis: int64 (negative wraps, checked
 *               when boundscheck) or TY_SLICE; fewer indices than ndim leave trailing axes whole.
 *               type = the dtype (all axes int-indexed) or an array view (layout from inference).
 * ARRAY_SET     args[0] array, indices as for ARRAY_GET, last arg the value: the dtype (element
 *               or fill of the selection) or an array broadcast to the selection.
 * ARRAY_ATTR    sub = ArrayAttr; SHAPE/STRIDES: tuple of ndim int64; SIZE/NDIM/ITEMSIZE/NBYTES
 *               int64; T: a view; REAL/IMAG: a view (complex) or the array itself.
 * TUPLE_GET     homogeneous tuple, int64 index (wraps negative, IndexError out of range).
 * STATIC_GET    any tuple, imm a valid index.
 * ------------------------------------------------------------------------------------------- */

#endif
