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
} AbiExcKind;

/* First byte of an ExcInfo message that is not the message but a spec of the exception's
 * arguments: per argument "s<len>:<text>" for a constant string, or a letter for a number in the
 * next args slots: i int64, u uint64, b bool, f a float64's bits, c two of them for a complex. */
#define ABI_EXC_ARGS_SPEC '\x1e'

typedef struct ExcInfo {
    int32_t kind;           /* AbiExcKind */
    int32_t nargs;          /* how many of args the message formats */
    void *cls;              /* ABI_EXC_USER: PyObject* class (borrowed, kept alive by the code) */
    const char *msg;        /* a printf format over int64 args ("%lld"), or a plain message; may be NULL */
    int64_t args[4];
} ExcInfo;

enum { ABI_STATUS_OK = 0, ABI_STATUS_ERROR = 1 };

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

/* Runtime functions compiled code calls; the JIT resolves them by these names. */
MemInfo *pj_nrt_alloc(int64_t size);        /* data aligned to 64 bytes; NULL on failure */
void pj_nrt_incref(MemInfo *mi);            /* NULL-safe */
void pj_nrt_decref(MemInfo *mi);            /* NULL-safe; frees at zero */
int64_t pj_nrt_live(void);                  /* MemInfos alive now (leak tests) */
void pj_print_i64(int64_t v);
void pj_print_u64(uint64_t v);
void pj_print_f64(double v);
void pj_print_c128(double re, double im);
void pj_print_bool(int32_t v);
void pj_print_str(const char *s);
void pj_print_sep(int32_t end);             /* 0: a space between items; 1: the newline at the end */
/* runtime/random.c: np.random in compiled code (a per-thread generator of pyjit's own). */
void pj_random_seed(int64_t seed);
double pj_random_f64(void);                 /* uniform on [0, 1) */
double pj_random_normal(void);              /* standard normal */
int64_t pj_random_randint(int64_t lo, int64_t hi);   /* uniform on [lo, hi); lo < hi */
void pj_random_fill(double *data, int64_t n, int32_t normal);
/* runtime/sort.c: 1-d sorting; key is ABI_SORT_<kind> * 16 + itemsize; -1 when out of memory. */
enum { ABI_SORT_SIGNED = 0, ABI_SORT_UNSIGNED = 1, ABI_SORT_FLOAT = 2 };
int32_t pj_sort(void *data, int64_t n, int64_t stride, int32_t key);
int32_t pj_argsort(const void *data, int64_t n, int64_t stride, int32_t key, int64_t *out);

#endif
