/* runtime.h: the interface of runtime/, the Python-facing half of pyjit.
 *
 *   module.c    the extension module pyjit._core and its functions
 *   dispatch.c  the Dispatcher type: argument types -> compiled version -> call
 *   typeof.c    Python values -> pyjit types; unboxing arguments and boxing results
 *   nrt.c       reference-counted memory for arrays made by compiled code (abi.h)
 *   errors.c    Diag and ExcInfo -> Python exceptions, in one place
 *   compile.c   drives frontend + compiler for a dispatcher (CompilerHost)
 *   cache.c     cache=True: versions stored on disk as object code (with pyjit/_cache.py)
 *   overload.c  pyjit.extending.overload: implementations chosen by argument types (CompilerHost)
 *   stack.c     the per-thread stack limit recursive compiled code checks (plain C)
 *   round.c     round(x, ndigits) for ndigits < 0, called by compiled code (plain C)
 *   list.c      lists across the border: reflected Python lists (copied in, written back)
 *   typedlist.c pyjit.typed.List: the Python object owning a typed list compiled code shares
 *   ufunc.c     NumPy ufuncs and gufuncs over compiled loops (@vectorize, @guvectorize)
 *   cfunc.c     @cfunc: the C entry's address, and its exceptions reported (pyjit/_ffi.py)
 *   objmode.c   `with objmode(...)` blocks called from compiled code (pyjit/_objmode.py) */
#ifndef PYJIT_RUNTIME_H
#define PYJIT_RUNTIME_H

#include <Python.h>
#include <stdbool.h>
#include <pythread.h>

#include "compiler/compiler.h"
#include "compiler/diag.h"

/* errors.c: raises the Python exception a Diag describes (pyjit.errors classes, with the source
 * line and a caret) and returns NULL. */
PyObject *rt_raise_diag(const Diag *diag);
/* errors.c: raises what made a compilation in arena fail: MemoryError when the arena ran out
 * (arena_check), else diag's exception; returns NULL. */
PyObject *rt_raise_compile_error(const Arena *arena, Diag *diag);

/* errors.c: raises the exception compiled code reported (abi.h ExcInfo); returns NULL. */
PyObject *rt_raise_exc(const ExcInfo *exc);
/* The exception being raised, set aside while code that may raise (and whose own errors do not
 * matter) runs: rt_error_restore drops what that code raised and puts the first one back. */
typedef struct RtPendingError {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *raised;
#else
    PyObject *type, *value, *traceback;
#endif
} RtPendingError;
RtPendingError rt_error_save(void);
void rt_error_restore(RtPendingError e);

/* errors.c: the class pyjit.errors.<name> (borrowed; imports pyjit.errors once), or NULL with an
 * exception set. */
PyObject *rt_error_class(const char *name);

/* overload.c: CompilerHost.resolve_overload, for every compilation (ctx unused). */
int rt_resolve_overload(void *ctx, void *handle, Type **args, int nargs, const char **kwnames,
                        int nkw, Arena *arena, void **impl, bool *literal, const char **why);
/* overload.c: CompilerHost.method_overloads (ctx unused). */
void *rt_method_overloads(void *ctx, const char *key);

/* ---- nrt.c ---- */
extern PyTypeObject RtMemInfoOwnerType;
/* A MemInfoOwner holding mi's reference (stolen, also on failure). */
PyObject *rt_meminfo_owner_new(MemInfo *mi);
/* pj_nrt_alloc with the data at malloc's alignment (16 bytes), not 64: cheaper to get (strings).
 * Plain C, no GIL. */
MemInfo *rt_nrt_alloc_small(int64_t size);
/* A MemInfo over memory that the Python object owner keeps alive (a new reference to owner). */
MemInfo *rt_nrt_adopt(PyObject *owner, void *data, int64_t size);
PyObject *rt_memory_owner(PyObject *parent);
PyObject *rt_format_float(double v);
/* Python's repr of a float into out (plain C, no GIL): "0.1", "1e+16", "nan"; add_dot_0 gives
 * integral values their ".0" as repr(float) does. */
void rt_float_repr(double v, bool add_dot_0, char *out, size_t size);

/* ---- typeof.c ---- */
enum {
    RT_TYPEOF_GPU = 1 << 0,    /* accept float16 arrays (the CPU has no float16 arithmetic) */
};
/* Looks up the scalar types once, when the module loads. */
void rt_typeof_init(void);
/* Imports NumPy's C API on first use (pyjit imports without NumPy). 0, or -1 with an exception. */
int rt_numpy_ready(void);
/* The pyjit type of an argument value, computed without building Python objects. Python int,
 * float and complex values are weak (NEP 50: np.float32(x) + 0.5 stays float32, as in NumPy);
 * NumPy scalars, bools and tuple items are strong. NULL when the
 * value is not accepted: no exception is set, unless the value is an int beyond uint64 range
 * (OverflowError) or something failed. */
Type *rt_typeof(PyObject *obj, int flags);
/* The array type of a structured NumPy dtype (a record array, as typeof names it): NULL, with
 * no exception unless asking failed, for any other dtype or a record compiled code cannot take. */
Type *rt_record_array_type(PyObject *dtype, int ndim, char layout, bool readonly);
/* Raises the TypeError for an argument rt_typeof refused: "f() argument 'x' (position 1): got
 * list; accepted: ...". Returns NULL. */
PyObject *rt_raise_arg_error(const char *func, const char *argname, int position, PyObject *obj);
/* Writes obj (of type ty, as rt_typeof gave) into buf in the ABI layout. Arrays borrow obj as
 * parent. 0, or -1 with an exception. */
int rt_unbox(PyObject *obj, Type *ty, void *buf);
/* Like rt_unbox, converting scalars from the value's type from to the type to (the dispatcher's
 * casts for explicit signatures); arrays and tuples convert item by item. */
int rt_unbox_as(PyObject *obj, Type *from, Type *to, void *buf);
/* The Python object for a value of type ty stored at buf. Takes over the MemInfo references in
 * the value (also on failure, where they are released). */
PyObject *rt_box(Type *ty, void *buf);
/* Releases the MemInfo references held by a value stored at buf. */
void rt_release_value(Type *ty, void *buf);
/* list.c: lists across the boundary (reflected, as Numba's: see list.c). rt_typeof_list types a
 * Python list from its first item (NULL for an empty list or one of lists); rt_unbox_list makes
 * a new list of its items (a reference in *out) remembering it; rt_release_list_arg writes the
 * changes back to that Python list and releases the list; rt_box_list gives the Python list for
 * a list value, taking over its reference. rt_list_refs: the offsets of the MemInfo pointers in
 * a value of type ty (ListPayload.refs), from base, added after the n found so far; -1 if more
 * than ABI_LIST_MAX_REFS. */
Type *rt_typeof_list(PyObject *obj, int flags);
int rt_unbox_list(PyObject *obj, Type *ty, MemInfo **out);
int rt_release_list_arg(Type *ty, MemInfo *mi);
PyObject *rt_box_list(Type *ty, MemInfo *mi);
/* A new reference on every MemInfo inside a value of type ty at buf (before rt_box of a copy). */
void rt_retain_value(Type *ty, void *buf);
/* jitclass.c: jitclass instances (see there). rt_typeof_jitclass: an instance's type;
 * rt_unbox_jitclass: a reference on its MemInfo in *out (TypeError for anything else);
 * rt_box_jitclass: a new instance of the type's class owning the reference mi carried. */
extern PyTypeObject RtJitClassBoxType;
int rt_jitclass_init(PyObject *module);
Type *rt_typeof_jitclass(PyObject *obj);
int rt_unbox_jitclass(PyObject *obj, Type *ty, MemInfo **out);
PyObject *rt_box_jitclass(Type *ty, MemInfo *mi);
/* generator.c: np.random.Generator objects (see there). rt_is_generator: whether obj is one;
 * rt_unbox_generator: a new MemInfo over its BitGenerator's C interface, keeping it alive;
 * rt_box_generator: the Generator for a value, taking over mi's reference. random.c's
 * rt_loggam: log(Gamma(x)) as NumPy's distributions compute it. */
bool rt_is_generator(PyObject *obj);
int rt_unbox_generator(PyObject *obj, MemInfo **out);
PyObject *rt_box_generator(MemInfo *mi);
double rt_loggam(double x);
/* random.c: a gamma draw of scale 1, the algorithm NumPy's legacy and Generator streams share,
 * over the draws of either (each called with state). */
typedef struct GammaDraws {
    double (*uniform)(void *state);
    double (*normal)(void *state);
    double (*exponential)(void *state);
} GammaDraws;
double rt_gamma(double shape, const GammaDraws *d, void *state);
/* typedlist.c: pyjit.typed.List, a Python object owning a typed list's MemInfo (see there).
 * rt_typeof_typed_list: its type (NULL while its item type is unknown); rt_unbox_typed_list: a
 * new reference to its MemInfo in *out (an error unless obj is one of type ty);
 * rt_box_typed_list: a new List owning the reference mi carried. */
extern PyTypeObject RtTypedListType;
int rt_typedlist_init(PyObject *module);
Type *rt_typeof_typed_list(PyObject *obj);
int rt_unbox_typed_list(PyObject *obj, Type *ty, MemInfo **out);
PyObject *rt_box_typed_list(Type *ty, MemInfo *mi);

/* str.c: strings across the boundary. rt_unbox_str copies a Python str into a new string (a
 * reference in *out); rt_box_str gives the Python str of one, taking over its reference. */
int rt_unbox_str(PyObject *obj, MemInfo **out);
PyObject *rt_box_str(MemInfo *mi);
/* dict.c: the table behind dicts and sets, as typed_dict.c uses it from Python. dict_key_hash:
 * CPython's hash of a key of type t at at; dict_lookup: the entry number of key k (hash h), or
 * -1, and in *slot its index slot (or the empty one a new key takes); dict_insert: a new entry
 * of hash h at that slot (the table grown when full), its key and value left to the caller, NULL
 * when out of memory; dict_delete: the entry ix at slot released and marked deleted. */
DictPayload *rt_dict_payload(MemInfo *mi);
int64_t dict_key_hash(Type *t, const void *at);
int64_t dict_lookup(DictPayload *p, Type *key, const void *k, int64_t h, int64_t *slot);
char *dict_insert(MemInfo *mi, int64_t h, int64_t slot);
void dict_delete(DictPayload *p, int64_t ix, int64_t slot);
char *dict_entry(DictPayload *p, int64_t ix);
int64_t rt_tuple_hash_start(void);
int64_t rt_tuple_hash_step(int64_t acc, int64_t lane);
int64_t rt_tuple_hash_end(int64_t acc, int64_t n);
/* typed_dict.c: dicts and sets across the boundary. A dict is a pyjit.typed.Dict sharing the
 * table (passed in without a copy); a set is copied to and from a Python set. rt_box_dict and
 * rt_box_set take over the value's reference; rt_unbox_dict and rt_unbox_set give a new one. */
extern PyTypeObject RtDictType;
Type *rt_typeof_dict(PyObject *obj);
Type *rt_typeof_set(PyObject *obj, int flags);
int rt_unbox_dict(PyObject *obj, Type *ty, MemInfo **out);
int rt_unbox_set(PyObject *obj, Type *ty, MemInfo **out);
int rt_release_set_arg(Type *ty, MemInfo *mi);   /* the Python set brought up to date, released */
PyObject *rt_box_dict(Type *ty, MemInfo *mi);
PyObject *rt_box_set(Type *ty, MemInfo *mi);
/* After a call: the lists unboxed for an argument of type ty at buf written back and released
 * (the current exception, if any, kept). 0, or -1 with an exception. */
int rt_release_arg(Type *ty, void *buf);
/* How a value of type from passes for type to: 0 exact, 1 promotion, 2 safe conversion,
 * 3 unsafe conversion, -1 not at all (Numba's rules for explicit signatures). */
int rt_conversion_rank(Type *from, Type *to);
/* The same for a GPU kernel's argument against its declared signature (as numba-cuda's launch
 * converts: no float becomes an integer; arrays in their own layout or 'A', read-only too). */
int rt_kernel_arg_rank(Type *from, Type *to);

/* ---- dispatch.c ---- */
#define RT_MAX_ARGS 64

/* One compiled version of a dispatcher's function. */
typedef struct RtVersion {
    Type **argtypes;        /* nargs */
    Type *ret;
    JitCode code;
    bool uses_print;        /* flush sys.stdout before calling it */
    bool list_args;         /* some argument holds a list: rt_release_arg after the call */
    int64_t *offsets;       /* where argument i lies in the argument frame */
    int64_t frame_size, ret_size;
    char *types_dump, *llvm_dump;   /* copies of the compiler's texts (may be NULL) */
    char *asm_dump;         /* the assembly, once dumped or asked for (inspect_asm), or NULL */
    PyObject *keepalive;    /* list: the Python objects the machine code refers to */
    bool sim_sync;          /* a simulated kernel (gpu_sim): it has barriers, so its threads */
    int64_t sim_shared;     /* run as fibers; and its block's static shared memory */
    bool sim_grid;          /* it syncs its grid: its blocks run together, as fibers */
} RtVersion;

/* A key of the dispatch table: argument types -> version (exact, or through casts). */
typedef struct RtEntry {
    Type **key;
    RtVersion *version;
    bool exact;
} RtEntry;

typedef struct RtSignature {
    Type **args;
    Type *ret;              /* NULL: inferred */
} RtSignature;

typedef struct RtDispatcher {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    PyObject *weakrefs;
    PyObject *py_func;
    PyObject *code;         /* py_func.__code__ when decorated (compiled code is of this one) */
    PyObject *registry;     /* {python object: builtins.def name} */
    PyObject *argnames;     /* tuple of str: positional then keyword-only */
    PyObject *defaults;     /* tuple, values for the last ndefaults positional arguments */
    PyObject *kwdefaults;   /* dict or NULL */
    PyObject *name;         /* py_func.__name__ */
    const char *cname;      /* its UTF-8 (kept alive by name) */
    int nargs, npositional, nposonly, ndefaults;
    CompileOptions opts;
    bool can_compile;       /* false once explicit signatures are given */
    bool inline_always;     /* inline='always': compiled callers compile its body for their own
                               argument types, as Numba inlines it before typing */
    bool cache;             /* cache=True: versions are stored on disk and loaded from there */
    bool cfunc;             /* a @cfunc's: versions also get the C entry (cfunc.c) */
    bool generator;         /* a generator function: a call from Python gives an iterator */
    bool varargs;           /* *args: the last of the nargs arguments is their tuple */
    PyThread_type_lock lock;        /* one compilation at a time (taken with the GIL released) */
    unsigned long lock_owner;       /* thread holding it, so a nested compile does not deadlock */
    int lock_depth;
    RtVersion **versions;
    int nversions;
    RtVersion **retired;    /* versions recompile() replaced: compiled callers may still call them */
    int nretired;
    PyObject *targetoptions;        /* the options as a dict, once asked for (recompile() reads it) */
    RtSignature *sigs;      /* declared signatures, for known_return and casts */
    int nsigs;
    RtEntry *table;         /* open addressing; key NULL marks a free slot */
    size_t table_cap, table_len;
    RtEntry last;           /* the last hit */
    struct Type *as_value;  /* its type as an argument of compiled code (typeof.c), once asked */
    uint64_t literal_args;  /* bit i: argument i is keyed by its value (literally() asked for
                               it), its type the literal type of an int, bool or str */
} RtDispatcher;

extern PyTypeObject RtDispatcherType;
/* The declared signature that arguments of these types convert to best (a call from Python and
 * a call from compiled code choose alike), or NULL when none accepts them. */
RtSignature *rt_best_signature(RtDispatcher *d, Type **types);
/* The index of the signature among sigs[0..nsigs) (each of n arguments) that arguments of these
 * types convert to best under rank: the fewest unsafe conversions first, then the lowest sum of
 * ranks, the first declared on a tie; -1 when none takes them. */
int rt_best_of(const RtSignature *sigs, int nsigs, Type **types, int n,
               int (*rank)(Type *, Type *));
/* The TypeError of arguments (types, n) that no declared signature of fname takes: each signature
 * with the first argument it refuses, by its name in argnames (a tuple of str, or NULL). */
PyObject *rt_raise_no_declared_match(const char *fname, PyObject *argnames,
                                     const RtSignature *sigs, int nsigs, Type **types, int n,
                                     int (*rank)(Type *, Type *));
/* A tuple of n canonical type names as types (out); -1 with a TypeError naming what for a name
 * pyjit does not know. */
int rt_parse_type_names(PyObject *names, Type **out, int n, const char *what);
/* The native entry of d's version for function type ft's arguments, compiled if need be (a
 * first-class function value passed from Python); NULL with TypeError when that version's
 * signature is not exactly ft's. */
void *rt_function_address(RtDispatcher *d, Type *ft);
/* The declared signatures as "\n    ret(args)" lines, for no-match errors. */
PyObject *rt_signatures_text(RtDispatcher *d);
/* Options read from PYJIT_DEBUG and PYJIT_DUMP (once). */
void rt_default_options(CompileOptions *opts);
/* PYJIT_BOUNDSCHECK (else Numba's NUMBA_BOUNDSCHECK) set to 0 or 1 turns bounds checks off or on
 * in every function, whatever its decorator says, as Numba's variable does; -1 when unset. The
 * default without it: on for @njit functions, off for kernels unless debug=True. */
int rt_boundscheck_env(void);
PyObject *rt_set_boundscheck(PyObject *self, PyObject *arg);

/* ---- compile.c ---- */
/* True for an @njit dispatcher (the frontend's FeIsDispatcher). */
int rt_is_dispatcher(PyObject *obj);
/* -1 with an UnsupportedError in diag when d's function had its __code__ replaced after it was
 * decorated, else 0. */
int rt_check_code(RtDispatcher *d, Diag *diag);
/* CompilerHost.options_of: an @njit callee's own options (its dispatcher's); NULL for any other
 * handle (a device function, a kernel's Python function), which takes the entry's. */
const CompileOptions *rt_callee_options(void *ctx, void *handle);
/* Compiles d's function for these argument types (ret: declared, or NULL). NULL with an
 * exception on failure. */
/* The literal type of a value keyed by its value (literally()): an int, bool or str, or a NumPy
 * integer; NULL (no exception) for any other. */
Type *rt_literal_type(PyObject *obj);
/* literal_arg: where literally() asks for an argument's value, NULL and *literal_arg that
 * argument with no exception set (the dispatcher compiles again for the value); NULL: a
 * TypingError then. */
RtVersion *rt_compile_version(RtDispatcher *d, Type **argtypes, Type *ret, int *literal_arg);

/* ---- cfunc.c ---- */
/* Dispatcher._cfunc_address(): the C entry of a @cfunc dispatcher's one version, as an int. */
PyObject *rt_cfunc_address(PyObject *self, PyObject *unused);
/* The type of a C function passed as an argument (a ctypes or cffi function, a cfunc): the
 * literal type of its K_CFUNC constant, so a call is compiled for that function, as for a
 * global; NULL (no exception) for anything else, or NULL with the TypeError of one compiled
 * code cannot call. The function is kept alive for the process, as its type is. */
Type *rt_typeof_c_function(PyObject *obj);
/* Whether one of these argument types is a C function's: such a version calls an address of
 * this process and is not cached on disk. */
bool rt_takes_c_function(Type **argtypes, int nargs);
/* The CompilerHost's declared_signature (compiler.h) for a callee that is a dispatcher. */
int rt_declared_signature(void *ctx, void *handle, Type **args, int nargs, Type **params,
                          Type **ret, char *why, size_t why_size);
/* Assembly text of a compiled version, generated again from the optimised LLVM IR it kept by a
 * host target machine with the JIT's settings (jit_asm_of): the same code up to code generation's
 * choices, not the bytes that run. */
PyObject *rt_version_asm(RtDispatcher *d, RtVersion *v);
void rt_version_free(RtVersion *v);
/* A version of d over code, with its frame laid out; keepalive (a list, stolen) holds the
 * objects the code refers to. On failure, NULL with an exception, and code is released. */
RtVersion *rt_version_new(RtDispatcher *d, Type **argtypes, Type *ret, JitCode *code,
                          PyObject *keepalive);

/* ---- cache.c: the on-disk cache of cache=True dispatchers (pyjit/_cache.py does the files) ---- */
/* The version of d for these argument types (ret: declared, or NULL) loaded from the cache, or
 * NULL: then *token is what rt_cache_store needs to store the version compiled instead (a new
 * reference), or NULL when it is not to be stored. Never raises, except an interrupt. */
RtVersion *rt_cache_load(RtDispatcher *d, Type **argtypes, Type *ret, PyObject **token);
/* Stores v, just compiled by prog (its object code and references), under token. Never raises,
 * except an interrupt. */
void rt_cache_store(PyObject *token, Program *prog, RtVersion *v);
/* The same for a @gpu.jit(cache=True) kernel: target names the device and what the launch
 * checked of its arrays. A hit is (ptx: bytes, entry: str, written: int, types_dump, llvm_dump),
 * a new reference; NULL on a miss, and then *token is what rt_cache_store_kernel needs. */
PyObject *rt_cache_load_kernel(PyObject *kernel, Type **argtypes, int nargs, const char *target,
                               PyObject **token);
void rt_cache_store_kernel(PyObject *token, const char *ptx, const char *entry, uint64_t written,
                           const char *types_dump, const char *llvm_dump);

/* ---- ufunc.c (module functions of pyjit._core) ---- */
/* ufunc_new(name, doc, nin, nout, identity, core_signature=None) -> a np.ufunc with no loops. */
PyObject *rt_ufunc_new(PyObject *self, PyObject *args);
PyObject *rt_ufunc_made(PyObject *self, PyObject *ufunc);
/* ufunc_add_loop(ufunc, loop_dispatcher, typenums, parallel=False): adds a compiled loop. */
PyObject *rt_ufunc_add_loop(PyObject *self, PyObject *args);
/* ufunc_threads() -> the threads of target='parallel' loops. */
PyObject *rt_ufunc_threads(PyObject *self, PyObject *unused);
/* simulator/launch.c: a call of a gpu_sim dispatcher's version is a launch of the kernel with
 * the configuration sim_configure gave this thread (on the CPU's cores; args as the wrapper
 * takes them). ABI_STATUS_ERROR leaves the first failing thread's exception in *exc, and
 * rt_sim_name_thread then names that thread in the Python exception raised from it. */
int32_t rt_sim_launch(RtDispatcher *d, RtVersion *v, void **args, ExcInfo *exc);
/* simulator/libdevice.c: gives the JIT libdevice's functions the C library lacks (jit_add_symbols) */
void sim_libdevice_register(void);
void rt_sim_name_thread(RtDispatcher *d);
PyObject *rt_sim_configure(PyObject *self, PyObject *args);
/* The CompilerHost's declared_signature of GPU code (runtime/cuda_compile.c): an @njit callee's
 * declared signatures, or a device function's. */
int rt_gpu_declared_signature(void *ctx, void *handle, Type **args, int nargs, Type **params,
                              Type **ret, char *why, size_t why_size);
/* The name-the-thread step of a kernel's exception (runtime/kernel_errors.c), for the one being
 * raised: its message prefixed and its pyjit_kernel/thread/block attributes set. */
void rt_kernel_name_thread(const char *kname, const uint32_t thread[3], const uint32_t block[3]);
/* pool.c: the thread pool of prange loops (pyjit/_parallel.py) and parallel ufuncs. fn runs
 * chunks [lo, hi) of [0, n) on the calling thread (slot 0) and the workers (slots 1..); the
 * first chunk to fail stops the others from starting, and its ExcInfo is returned with
 * ABI_STATUS_ERROR. Called with or without the GIL (it lets the GIL go for the region). */
typedef int32_t (*RtChunkFn)(void *ctx, int64_t lo, int64_t hi, int64_t slot, ExcInfo *exc);
int32_t rt_pool_for(RtChunkFn fn, void *ctx, int64_t n, ExcInfo *exc);
PyObject *rt_parallel_configure(PyObject *self, PyObject *n);
/* linalg.c: SciPy's LAPACK and BLAS bound for compiled code (once; under the GIL): 0, or -1
 * with an ImportError saying SciPy is needed. linalg_bind() is its Python face. */
int rt_linalg_bind(void);
PyObject *rt_linalg_bind_py(PyObject *self, PyObject *unused);
PyObject *rt_parallel_started(PyObject *self, PyObject *unused);
PyObject *rt_parallel_set_threads(PyObject *self, PyObject *n);
PyObject *rt_parallel_get_threads(PyObject *self, PyObject *unused);
PyObject *rt_parallel_chunksize(PyObject *self, PyObject *n);
PyObject *rt_parallel_thread_id(PyObject *self, PyObject *unused);

#endif
