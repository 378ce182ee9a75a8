/* abi.h: what compiled code and the runtime agree on. Plain C: no Python here.
 *
 * Lowering (compiler/lower.c) emits code that follows these layouts, and the runtime
 * (runtime/) reads and writes them; change both together. */
#ifndef PYJIT_ABI_H
#define PYJIT_ABI_H

#include <stdint.h>

/* A reference-counted block of memory made by compiled code (an array's data). Arrays that come
 * from NumPy have no MemInfo (NULL): their owner, the Python array, outlives the call. */
typedef struct MemInfo {
    int64_t refcount;               /* atomic */
    void *data;
    int64_t size;
    void (*dtor)(struct MemInfo *); /* NULL: free(data) */
    void *owner;                    /* dtor's use (a PyObject* for memory NumPy owns) */
} MemInfo;

/* pj_nrt_alloc places the data this many bytes after its MemInfo (runtime/nrt.c), and compiled
 * code takes it from there, not from the data field, so LLVM sees that a new array's data aliases
 * no memory that was there before (pj_nrt_alloc is declared noalias, as malloc is). */
#define ABI_NRT_DATA_OFFSET 64

/* An array as compiled code sees it. In LLVM: { ptr meminfo, ptr parent, ptr data,
 * [ndim x i64] shape, [ndim x i64] strides }, passed by pointer. Strides are in bytes, as NumPy's.
 * parent is the Python array it came from (borrowed for the call), or NULL. */
typedef struct ArrayDesc {
    MemInfo *meminfo;
    void *parent;
    char *data;
    int64_t dims[];         /* shape[ndim] then strides[ndim] */
} ArrayDesc;

#define ABI_MAX_NDIM 32

/* A list's value is a MemInfo whose data is a ListPayload. Compiled code reads and writes len and
 * the items in place; making, growing and freeing are runtime functions (runtime/list.c). An item
 * holding references (an array, a list, a tuple of them) holds one on each MemInfo at the offsets
 * refs lists, released when the item is replaced or the list freed. */
#define ABI_LIST_MAX_REFS 8
typedef struct ListPayload {
    int64_t len, cap;
    char *items;            /* cap items of itemsize bytes */
    int64_t itemsize;
    void *parent;           /* the Python list this one was made from (an argument), or NULL */
    int32_t dirty;          /* set by every change: the parent is brought up to date */
    int32_t nrefs;
    int32_t refs[ABI_LIST_MAX_REFS];
} ListPayload;

/* A string's value is a MemInfo whose data is a StrPayload, laid out as CPython's compact
 * strings (PEP 393) are, so crossing to and from Python is a copy of the code points: kind is
 * the narrowest width (1, 2 or 4 bytes) that holds every code point, which makes equal strings
 * equal byte for byte and lets the hash be CPython's own. Strings are immutable: compiled code
 * reads the payload in place; making one is a runtime call (runtime/str.c). A constant string is
 * made once per process by the runtime (pj_str_intern) with a refcount that never reaches zero
 * (ABI_STR_IMMORTAL), so what holds it may outlive the module that named it. */
typedef struct StrPayload {
    int64_t length;         /* in code points */
    int64_t hash;           /* CPython's hash(s), or -1 while not computed */
    int32_t kind;           /* bytes per code point: 1, 2 or 4 */
    int32_t unused;
    char data[];            /* length code points, then a zero one */
} StrPayload;
#define ABI_STR_IMMORTAL ((int64_t)1 << 60)
/* A dict's (or a set's) value is a MemInfo whose data is a DictPayload: an insertion-ordered
 * hash table laid out as CPython's. entries holds, in insertion order, entries of entrysize bytes:
 * the int64 hash at 0, the key at 8, the value at valoff (a set has none); a deleted entry keeps
 * its place with the hash ABI_DICT_DELETED (no key hashes to -1, as in CPython). index is the open
 * addressing table of mask + 1 slots (a power of two), each an entry number, ABI_DICT_EMPTY or
 * ABI_DICT_DUMMY (a deleted key's slot, which probes pass over). Compiled code probes, inserts
 * and deletes in place (compiler/lower_dict.c: it alone knows how keys hash and compare); making,
 * growing (rehashing from the stored hashes), copying and freeing are runtime functions
 * (runtime/dict.c). Values holding references hold one on each MemInfo at the offsets refs lists
 * (keys are numbers or tuples of numbers, which hold none). */
#define ABI_DICT_MAX_REFS 8
#define ABI_DICT_EMPTY (-1)
#define ABI_DICT_DUMMY (-2)
#define ABI_DICT_DELETED (-1)
typedef struct DictPayload {
    int64_t used;           /* live entries: len() */
    int64_t nentries;       /* entries written, deleted ones included */
    int64_t usable;         /* entries there is room for before the table grows */
    int64_t mask;           /* index slots - 1 */
    int64_t *index;
    char *entries;
    int64_t entrysize;
    int32_t valoff;
    int32_t nrefs;
    int32_t refs[ABI_DICT_MAX_REFS];   /* offsets in an entry */
    void *parent;           /* a set: the Python set it was made from (an argument), or NULL */
} DictPayload;

/* A jitclass instance's value is a MemInfo whose data holds its fields, laid out as the tuple of
 * their types is (types.h klass.data), zeroed when made. Compiled code reads and writes the fields
 * in place; making one is a runtime call (runtime/jitclass.c, pj_class_new), which stores after
 * the fields, at the tuple's size rounded up to 4 bytes, the int32 offsets of the MemInfo
 * pointers the fields hold and then their count: the destructor releases those. */
typedef struct ClassTrailer {
    int32_t nrefs;          /* the offsets lie just before it */
} ClassTrailer;

/* The exception state compiled code fills before returning ABI_STATUS_ERROR. */
typedef enum AbiExcKind {
    ABI_EXC_NONE = 0,
    ABI_EXC_USER,           /* cls is the Python class (an address baked into the code) */
    ABI_EXC_ZERO_DIVISION,
    ABI_EXC_INDEX,
    ABI_EXC_VALUE,
    ABI_EXC_OVERFLOW,
    ABI_EXC_MEMORY,
    ABI_EXC_TYPE,
    ABI_EXC_RECURSION,      /* the stack reached ExcInfo.stack_limit */
    ABI_EXC_KEY,
    ABI_EXC_RUNTIME,
    ABI_EXC_PYTHON,         /* raised by the interpreter in an objmode block (runtime/objmode.c):
                             * cls is the exception object itself, a reference the raise takes */
    ABI_EXC_STOP_ITERATION, /* next() of an exhausted iterator */
} AbiExcKind;

/* First byte of an ExcInfo message that is not the message but a spec of the exception's
 * arguments: per argument "s<len>:<text>" for a constant string, or a letter for a number in the
 * next args slots: i int64, u uint64, b bool, f a float64's bits, c two of them for a complex;
 * or S for a string made at run time: its MemInfo, whose reference the runtime takes over. */
#define ABI_EXC_ARGS_SPEC '\x1e'

/* Where compiled code raised: the statement's position in the source, a constant in the code. */
typedef struct AbiWhere {
    const char *filename;
    const char *funcname;
    int32_t line;
} AbiWhere;

typedef struct ExcInfo {
    int32_t kind;           /* AbiExcKind */
    int32_t nargs;          /* how many of args the message formats */
    void *cls;              /* ABI_EXC_USER: PyObject* class (borrowed, kept alive by the code) */
    const char *msg;        /* a printf format over int64 args ("%lld"), or a plain message; may be NULL */
    int64_t args[4];
    /* Set on entry by the wrapper of a Program with recursive functions (pj_stack_limit): those
     * raise ABI_EXC_RECURSION when their frame lies below it. Compiled callers pass the same
     * ExcInfo down, so one store serves the whole call tree. */
    void *stack_limit;
    const AbiWhere *where;  /* the raising statement (its function may be a compiled callee) */
} ExcInfo;

enum { ABI_STATUS_OK = 0, ABI_STATUS_ERROR = 1 };

/* What the first thread of a kernel to raise leaves for the host (compiler/lower_gpu.c writes
 * it, runtime/kernel_errors.c reads it at the next synchronising call): in device memory, at
 * the address the module's global pj_fault_record holds. Device addresses are of the module's
 * constants (the message, the kernel's name). */
typedef struct AbiKernelFault {
    int32_t claimed;        /* 0 until a thread takes the record (compare-and-swap) */
    int32_t kind;           /* ExcInfo's */
    int32_t nargs;
    uint32_t thread[3], block[3];
    uint64_t cls;           /* ABI_EXC_USER: the class's address where the kernel was compiled */
    uint64_t msg;           /* device address of ExcInfo.msg, 0 for none */
    uint64_t name;          /* device address of the kernel's name */
    int64_t args[4];
} AbiKernelFault;
#define ABI_FAULT_GLOBAL "pj_fault_record"

/* A simulated GPU thread under PYJIT_SIMULATOR=cpu (simulator/): a kernel compiled for the CPU
 * takes it where other code takes its ExcInfo, so the ExcInfo comes first and every function of
 * the kernel reaches the thread's indices through the pointer it already passes down
 * (compiler/lower_sim.c reads the fields at these offsets: simulator/sim.c checks them). */
typedef struct AbiSimThread {
    ExcInfo exc;
    int32_t tid[3], ctaid[3], ntid[3], nctaid[3];
    char *shared;           /* the block's static shared memory */
    char *dynshared;        /* the block's dynamic shared memory (the launch's sharedmem bytes) */
    int64_t dynbytes;
    void *fiber;            /* simulator/: the thread's fiber, NULL when its block runs as a loop */
} AbiSimThread;
/* A shared memory access under PYJIT_SIMULATOR_RACECHECK (compiler/lower_sim.c, pj_sim_race). */
typedef struct AbiSimRaceSite {
    const char *name, *file;    /* the array's, the access's */
    int32_t line, ndim;
} AbiSimRaceSite;
/* pj_sim_barrier's op for the grid barrier (gpu.cg.this_grid().sync()); 0 is syncthreads, 1 to 3
 * its count, and and or forms. */
#define ABI_SIM_GRID_BARRIER 4
/* compiler/lower_sim_regions.c's sites table: a warp operation's op is this plus its kind. */
#define ABI_SIM_WARP_OP 100
/* pj_sim_warp's kinds (compiler/lower_sim.c passes them, simulator/launch.c runs them). */
typedef enum AbiSimWarpKind {
    ABI_WARP_SHFL_IDX, ABI_WARP_SHFL_UP, ABI_WARP_SHFL_DOWN, ABI_WARP_SHFL_XOR,
    ABI_WARP_BALLOT, ABI_WARP_ALL, ABI_WARP_ANY, ABI_WARP_EQ, ABI_WARP_MATCH_ANY,
    ABI_WARP_MATCH_ALL, ABI_WARP_SYNC, ABI_WARP_ACTIVEMASK,
} AbiSimWarpKind;
/* The block function lowering adds to a simulated kernel (symbol__simblock):
 *   int32 f(void **args, AbiSimThread *t)
 * runs every thread of t's block in order (t's tid is ignored); on ABI_STATUS_ERROR, t holds the
 * failing thread's exception and tid. One thread alone (a fiber's) is the kernel's wrapper
 * called with the thread as its ExcInfo. */
typedef int32_t (*AbiSimBlock)(void **args, AbiSimThread *t);

/* Every compiled function has two entry points.
 *  - The native one, used by compiled callers:
 *      int32 name(RetT *ret, ExcInfo *exc, Arg0 a0, Arg1 a1, ...)
 *    scalars by value (bool as i1 in registers, i8 in memory), complex as { fN, fN } by value,
 *    arrays as a pointer to their ArrayDesc (borrowed), tuples as LLVM structs by value.
 *  - The wrapper, used by the dispatcher, with one C signature for every function:
 *      int32 name__wrap(void **args, void *ret, ExcInfo *exc)
 *    args[i] points at argument i as stored in memory (an ArrayDesc for arrays, an LLVM struct
 *    laid out by the data layout for tuples); the result is stored at ret the same way.
 * A returned array carries a new reference to its MemInfo (or a NULL meminfo and a parent). */
typedef int32_t (*AbiWrapper)(void **args, void *ret, ExcInfo *exc);

/* Runtime functions compiled code calls, declared from their one list; the JIT binds them by
 * these names. */
#define RUNTIME_SYMBOL(ret, name, params) ret name params;
#include "compiler/runtime_symbols.def"
#undef RUNTIME_SYMBOL
int64_t pj_nrt_live(void);                  /* MemInfos alive now (leak tests; not for compiled code) */
/* pj_sort and friends' key: the element type of the rows they sort (runtime/sort.c). */
typedef enum AbiSortKey {
    ABI_SORT_BOOL, ABI_SORT_INT8, ABI_SORT_INT16, ABI_SORT_INT32, ABI_SORT_INT64, ABI_SORT_UINT8,
    ABI_SORT_UINT16, ABI_SORT_UINT32, ABI_SORT_UINT64, ABI_SORT_FLOAT32, ABI_SORT_FLOAT64,
    ABI_SORT_FLOAT16,   /* IEEE half floats, NaNs last */
    ABI_SORT_DATETIME,  /* datetime64 and timedelta64: int64 counts, NaT (INT64_MIN) last */
    ABI_SORT_COMPLEX64, ABI_SORT_COMPLEX128   /* by real then imaginary parts, NaNs last */
} AbiSortKey;

/* ---- the kernel parameter ABI (what the NVPTX lowering emits and a launch packs) ----
 *
 * A kernel's Python arguments become PTX kernel parameters, flattened in argument order; each
 * parameter lies in the parameter buffer at its natural alignment (the layout PTX gives .param
 * declarations in order), so the runtime packs them with no per-kernel table:
 *
 *   bool                    one .u8 parameter, 0 or 1 (the kernel truncates it to i1)
 *   int8..int64, uint*      one parameter of that width
 *   float16/32/64           one parameter of that width (float16 as .b16)
 *   complex64, complex128   two parameters, real then imaginary (f32 or f64)
 *   array, ndim n           1 + 2n parameters:
 *                             data     .u64  global-memory address of element [0, ..., 0]
 *                             shape    n x .s64
 *                             strides  n x .s64, in bytes (NumPy's convention; may be 0 or
 *                                      negative for views)
 *                           the array's dtype, ndim, layout (C/F/A) and readonly flag are in
 *                           its Type, so the kernel is specialised on them
 *   tuple                   its items, flattened one after the other by these rules
 *   none                    no parameter
 *
 * So `def k(a, x, out)` with a float32, x a 1-d and out a 2-d array takes
 *   (.f32 a, .u64 x_data, .s64 x_shape0, .s64 x_stride0,
 *    .u64 out_data, .s64 out_shape0, .s64 out_shape1, .s64 out_stride0, .s64 out_stride1).
 * Lowering: compiler/lower_gpu.c (rebuild); packing: runtime/launch.c. Change both together. */

#endif
