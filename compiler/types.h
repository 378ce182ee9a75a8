/* types.h: pyjit's types, interned for the life of the process.
 *
 * Two types are equal exactly when their pointers are equal, so the dispatcher can key compiled
 * versions by arrays of Type pointers. Interning takes a lock (compilations may run in several
 * threads). Types are never freed: there are few of them. Plain C: no Python here.
 *
 * Canonical names (ty_name, and ty_parse reads them back, used by signatures and the dispatcher):
 *   bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64
 *   complex64 complex128 none
 *   array(float64, 2d, C)  array(int32, 1d, A, readonly)      layouts: C, F, A
 *   tuple(int64, float64)  tuple()  range  slice  list(float64)  list(array(int64, 1d, C))
 *   typed_list(float64)  typed_list(typed_list(int64))
 *   dict(int64, float64)  set(int64)  str  function_type(float64(float64, int64))
 *   cpointer(float64)  voidptr        (raw C pointers: cfunc signatures, ctypes calls)
 *   optional(float64)  Generator        (a np.random.Generator, any BitGenerator)
 *   Point(x=float64, y=float64)   (a namedtuple: not parsed back, its class is not in the name)
 *   instance(Bag@1)               (a jitclass: parsed back while its type exists, by that name)
 *   record(x:float64@0, v:float32[3]@8, size=24, aligned)   (a NumPy structured dtype: fields
 *                                 with their offsets, subarray shapes, the itemsize)
 *   datetime64[D]  timedelta64[ns]  timedelta64  datetime64   (no unit: NumPy's generic one)
 * Other kinds (modules, functions, ...) are compile-time only and have descriptive names. */
#ifndef PYJIT_TYPES_H
#define PYJIT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef enum TypeKind {
    /* Scalars, in NumPy promotion order within each family. Keep in step with ty_scalar_info. */
    TY_BOOL,
    TY_INT8, TY_INT16, TY_INT32, TY_INT64,
    TY_UINT8, TY_UINT16, TY_UINT32, TY_UINT64,
    TY_FLOAT16, TY_FLOAT32, TY_FLOAT64,
    TY_COMPLEX64, TY_COMPLEX128,
    /* Values that exist at run time. */
    TY_NONE,
    TY_ARRAY,       /* array.dtype (scalar), array.ndim, array.layout, array.readonly */
    TY_TUPLE,       /* tuple.n, tuple.items */
    TY_RANGE,       /* range(start, stop, step), int64 */
    TY_SLICE,       /* slice(start, stop, step): int64 fields, missing ones flagged */
    TY_ELLIPSIS,    /* `...`: only in an array's index, where inference expands it to slices */
    TY_ITER,        /* iterator over iter.over (a range, array, tuple or list) */
    TY_NDITER,      /* a.flat, np.ndindex(shape), np.ndenumerate(a), np.nditer(a): what
                     * nditer.what says, over nditer.src (the array, or ndindex's shape tuple),
                     * laid out as src; it borrows src's reference (it never outlives the call) */
    TY_LIST,        /* a mutable list of list.item; item NULL while inference has not seen one
                     * (`[]` typed by later use: "list(undetermined)"). list.typed: a typed list
                     * (pyjit.typed.List, Numba's ListType), which Python and compiled code share;
                     * otherwise a reflected list, copied from a Python list and written back */
    TY_DICT,        /* an insertion-ordered hash table dict.key -> dict.value; both NULL while
                     * inference has not seen an item ("dict(undetermined)") */
    TY_SET,         /* an insertion-ordered hash set of set.item; NULL as for lists */
    TY_STR,         /* a unicode string made or passed at run time */
    TY_CLASS,       /* an instance of a jitclass (pyjit.experimental.jitclass): a MemInfo whose
                     * data holds klass.data, the tuple of its fields (abi.h ClassTrailer) */
    TY_CAUGHT,      /* the exception an except clause caught (a pointer to its saved ExcInfo,
                     * lower_exc.c): matched, re-raised and released, nothing else */
    TY_CPOINTER,    /* a raw C pointer to cpointer.item (a scalar), or to anything when item is
                     * NULL (voidptr): cfunc parameters, ctypes/cffi arguments, carray's input */
    TY_FUNCPTR,     /* a first-class function (pyjit.types.FunctionType): the address of a
                     * compiled function of signature fn.ret(fn.args), called through it */
    TY_OPTIONAL,    /* optional.value or None (a variable None on one path): laid out as
                     * {bool present; value} with the value zeroed when absent */
    TY_DTYPE,       /* a dtype or scalar type object used as a value: dtype.scalar */
    /* Compile-time only: values whose every use is resolved by inference. */
    TY_STRING,      /* a constant string (exception messages); literal holds it */
    TY_MODULE,      /* a module constant (math, numpy, ...); literal holds it */
    TY_FUNCTION,    /* a known function (builtins.def); literal holds it */
    TY_DISPATCHER,  /* another @njit function; literal holds it */
    TY_EXCCLASS,    /* an exception class; literal holds it */
    TY_NTCLASS,     /* a namedtuple class (K_NAMEDTUPLE); literal holds it */
    TY_EXCEPTION,   /* an exception instance being built for `raise`: exc.cls, exc.msg */
    TY_BOUND_METHOD,/* receiver.method: method.self (a type), method.name */
    TY_UNDEFINED,   /* a variable with no value on some path (reported where it is used) */
    /* Run-time values added last, after the compile-time kinds, so those keep their numbers. */
    TY_RNG,         /* a np.random.Generator: a MemInfo whose data is the BitGenerator's C
                     * interface (runtime/generator.c), whichever BitGenerator it has */
    TY_RECORD,      /* a NumPy structured dtype's item (record.fields in NumPy's layout); as a
                     * value, a view of its bytes in an array, as in Numba: {MemInfo of the
                     * array (NULL for a np.void argument), address of the bytes} */
    TY_DATETIME,    /* np.datetime64 of unit datetime.unit: an int64 count, NaT its minimum */
    TY_TIMEDELTA,   /* np.timedelta64 of unit datetime.unit, likewise */
    TY_CHARSEQ,     /* NumPy's unicode dtype 'U<charseq.n>' as an array's dtype only: n UCS4
                     * code points, NUL padded; an element read is a str, a str stored is cut
                     * or padded (Numba's UnicodeCharSeq) */
} TypeKind;

/* The units of datetime64 and timedelta64, coarsest first (NumPy's order, without the business
 * day and the units below a nanosecond); DT_GENERIC: no unit (np.timedelta64(3)). */
typedef enum DateUnit { DT_Y, DT_M, DT_W, DT_D, DT_h, DT_m, DT_s, DT_ms, DT_us, DT_ns, DT_GENERIC } DateUnit;

/* One field of a record: a scalar, a datetime or a nested record, or a subarray of them. */
#define TY_RECORD_MAX_NDIM 8
typedef struct RecordField {
    const char *name;
    struct Type *type;
    int64_t offset;
    int ndim;
    int64_t shape[TY_RECORD_MAX_NDIM];
} RecordField;

typedef struct Const Const;   /* ir.h */

typedef struct Type {
    TypeKind kind;
    bool weak;          /* a Python int/float/complex literal (NEP 50): takes the other operand's type */
    const char *name;   /* canonical name, see above */
    union {
        struct { struct Type *dtype; int ndim; char layout; bool readonly; } array;
        struct {
            int n; struct Type **items; int64_t size; int align;   /* size, align: ty_mem_* */
            /* A namedtuple: its class (a PyObject*, kept alive by whoever made the type, for the
             * life of the process), the class's name and its field names; NULL for a plain tuple. */
            const void *cls; const char *cls_name; const char **fields;
        } tuple;
        struct { struct Type *over; } iter;
        struct { int what; struct Type *src; } nditer;   /* what: NditerKind */
        struct { struct Type *item; bool typed; } list;
        struct { struct Type *key, *value; } dict;
        struct { struct Type *item; } set;
        struct { struct Type *scalar; } dtype;
        struct { struct Type *item; } cpointer;
        struct { struct Type *value; } optional;
        struct { struct Type *self; const char *name; } method;
        /* A jitclass: its Python class (kept alive for the process by whoever made the type),
         * the class's name, its field names and the tuple type of its fields, laid out in
         * memory as that tuple is. */
        struct { const void *cls; const char *cls_name; const char **fields; struct Type *data; } klass;
        /* A record: its fields in NumPy's order, the itemsize, whether NumPy aligned it
         * (align=True); descr the NumPy dtype the runtime made for it when boxing (a PyObject*
         * kept for the process), NULL until then. */
        struct { int n; RecordField *fields; int64_t size; bool aligned; void *descr; } record;
        struct { DateUnit unit; } datetime;
        struct { int n; } charseq;
        struct { struct Type *ret; struct Type **args; int n; } fn;
        const Const *literal;   /* TY_STRING, TY_MODULE, TY_FUNCTION, TY_DISPATCHER, TY_EXCCLASS */
    };
} Type;

/* Scalars and other singletons. ty_scalar(k) for k <= TY_COMPLEX128 or TY_NONE/RANGE/SLICE. */
Type *ty_scalar(TypeKind kind);
Type *ty_weak(Type *scalar);            /* the weak variant of int64/float64/complex128/bool */
Type *ty_strong(Type *t);               /* t without weakness */
Type *ty_array(Type *dtype, int ndim, char layout, bool readonly);
Type *ty_tuple(Type **items, int n);
/* A namedtuple of class cls (the dispatcher keys on it: two classes with the same fields are two
 * types), named "Point(x=float64, y=float64)". The names are copied. */
Type *ty_namedtuple(const void *cls, const char *cls_name, const char *const *fields, Type **items,
                    int n);
/* The plain tuple of a namedtuple's items (t itself for a plain tuple). */
Type *ty_plain_tuple(Type *t);
/* A closure: a lambda or inner function made in compiled code, with the values it captured (by
 * value, when it was made). It is a namedtuple whose class is its function's dispatcher, item 0
 * its function (func, a TY_DISPATCHER, which takes no room) and the other items the captured
 * values, named as their variables: so it is lowered, passed to calls and reference counted as
 * the tuple of those values, and its function is known when compiling. */
Type *ty_closure(Type *func, const char *const *names, Type **captured, int n);
bool ty_is_closure(const Type *t);
/* A dict display of constant string keys and values of mixed types ({"n": 3, "name": "run"},
 * Numba's LiteralStrKeyDict): a namedtuple of its values named by its keys, read by constant key
 * (d["n"]); its class is no Python class, and it leaves compiled code as a dict. */
Type *ty_literal_dict(const char *const *keys, Type **values, int n);
bool ty_is_literal_dict(const Type *t);
/* Index of field name in namedtuple t, or -1. */
int ty_field_index(const Type *t, const char *name);
Type *ty_iter(Type *over);
/* The C-order iterables of NumPy's over an array's items (TY_NDITER). */
typedef enum NditerKind { ND_FLAT, ND_INDEX, ND_ENUMERATE, ND_ITER } NditerKind;
Type *ty_nditer(NditerKind what, Type *src);
/* The constant True or False as an overload's typing function sees it (types.BooleanLiteral),
 * where an option fixes the result's type (keepdims=); never the type of a value. */
Type *ty_bool_literal(bool value);
/* An int constant as a literal type (types.IntegerLiteral, "Literal[int](3)"): what an overload's
 * typing function sees for a constant argument, and the type of a parameter compiled for one
 * value (literally(), prefer_literal), which inference makes that constant; never the type of a
 * value. Kind TY_INT64, literal its K_INT Const. */
Type *ty_int_literal(int64_t value);
/* A string constant as a literal type (TY_STRING), keyed by its text alone. */
Type *ty_str_literal(const char *text);
/* The Const of a literal type standing for one value (int, bool or string), else NULL. */
const Const *ty_literal_value(const Type *t);
/* t without its value: int64 for an int literal, bool for a bool literal, t otherwise. */
Type *ty_unliteral(Type *t);
/* An iterator or NumPy iterable: a value that lives only inside the function that made it. */
bool ty_is_iterator(const Type *t);
Type *ty_list(Type *item);              /* item strong; NULL: not known yet */
Type *ty_typed_list(Type *item);        /* the same, typed (pyjit.typed.List) */
Type *ty_list_like(const Type *list, Type *item);   /* typed or not as list is */
Type *ty_dict(Type *key, Type *value); /* both strong, or both NULL: not known yet */
Type *ty_set(Type *item);               /* item strong; NULL: not known yet */
Type *ty_str(void);
Type *ty_rng(void);                     /* "Generator" */
Type *ty_caught(void);
Type *ty_cpointer(Type *item);          /* "cpointer(float64)"; item NULL: "voidptr" */
/* value or None: value itself when it is None or already optional; value strong. */
Type *ty_optional(Type *value);
Type *ty_dtype(Type *scalar);
/* NumPy's unicode dtype of n code points ('U<n>'), an array's dtype (TY_CHARSEQ). */
Type *ty_charseq(int n);
/* What reading one element of an array of dtype dt gives: a str for a unicode dtype, else dt. */
Type *ty_element(Type *dt);
Type *ty_literal(TypeKind kind, const Const *value);   /* keyed by the Const's identity */
Type *ty_method(Type *self, const char *name);
Type *ty_undefined(void);
/* A new jitclass instance type named instance(<cls_name>@<n>), n counting the classes made in
 * the process (two classes of one name are two types); the names are copied. */
Type *ty_class(const void *cls, const char *cls_name, const char *const *fields, Type **types, int n);
/* Index of field name in jitclass type t, or -1. */
int ty_class_field(const Type *t, const char *name);
/* A record type of n fields (copied), named as above: equal layouts are one type. NULL for a
 * field of another kind or a subarray of too many dimensions. */
Type *ty_record(const RecordField *fields, int n, int64_t size, bool aligned);
/* Index of field name in record type t, or -1. */
int ty_record_field(const Type *t, const char *name);
/* datetime64[unit] (kind TY_DATETIME) or timedelta64[unit] (TY_TIMEDELTA); DT_GENERIC: NumPy's
 * unit-less one (np.datetime64('NaT'), np.timedelta64(3)). ty_unit_name: "D", "ms", ... ("" for
 * DT_GENERIC). */
Type *ty_datetime(TypeKind kind, DateUnit unit);
const char *ty_unit_name(DateUnit unit);
bool ty_is_datetime(const Type *t);     /* datetime64 or timedelta64 */
/* The unit datetimes and timedeltas a and b (or arrays of them; an int has no unit) convert to
 * for an operation, NumPy's: the finer of their units (a generic timedelta takes the other's);
 * -1 when they do not convert (a timedelta in years or months beside a unit of fixed length). */
int ty_common_unit(const Type *a, const Type *b);
/* A first-class function type, named "function_type(float64(float64, int64))". */
Type *ty_function_type(Type *ret, Type **args, int n);

/* Parses a canonical name (see above); NULL if it is not one. */
Type *ty_parse(const char *name);

bool ty_is_scalar(const Type *t);       /* bool, int, uint, float, complex */
/* A value whose first field is a reference-counted MemInfo: an array, a record (of the array it
 * is in), or a container (list, dict, set, str), a jitclass instance or a Generator, which is
 * that MemInfo and nothing else. */
bool ty_holds_meminfo(const Type *t);
bool ty_is_container(const Type *t);
/* A list, dict or set whose items inference has not seen yet. */
bool ty_is_undetermined(const Type *t);
bool ty_is_int(const Type *t);          /* signed or unsigned, not bool */
bool ty_is_signed(const Type *t);
bool ty_is_float(const Type *t);
bool ty_is_complex(const Type *t);
int ty_bits(const Type *t);             /* scalar width in bits: bool 8, complex64 64 */
int ty_itemsize(const Type *t);         /* bytes a scalar or record takes in an array */
const char *ty_numpy_char(const Type *t);  /* NumPy's dtype.char: '?', 'b', 'h', 'i'/'l', 'f', 'd', ... */

/* Size and alignment in memory, as the ABI lays values out (abi.h): scalars at their width (bool 1
 * byte, complex as two floats), arrays as an ArrayDesc with 2*ndim dims, tuples as a C struct of
 * their items at natural alignment, none as 0 bytes. */
int64_t ty_mem_size(const Type *t);
int ty_mem_align(const Type *t);
/* The offsets, from base, of the MemInfo pointers a value of type t holds in memory (arrays,
 * lists, and those inside tuples), added to refs after the n found so far: the new count, or -1
 * past max. */
int ty_ref_offsets(const Type *t, int32_t base, int32_t *refs, int n, int max);
/* The entry layout of a dict or set type's table (abi.h DictPayload): the value's offset and the
 * entry's size. */
void ty_table_layout(const Type *t, int64_t *valoff, int64_t *entrysize);
/* The offsets in an entry of dict or set type t of the MemInfo pointers its key and value hold
 * (strings as keys, arrays and containers as values): their count, or -1 past max. */
int ty_table_refs(const Type *t, int32_t *refs, int max);
/* Offset of item i of a tuple type in memory. */
int64_t ty_tuple_offset(const Type *t, int i);

/* NumPy 2 promotion (NEP 50) of two scalar types, weak ones taking the other's kind. NULL if the
 * pair does not promote (one is not a scalar). */
Type *ty_promote(Type *a, Type *b);

/* Unification at a join (phi): equal types, or scalars promoted, or arrays of one dtype and ndim
 * with layouts widened to A, or a list whose items are not known yet with any list of its kind
 * (typed or reflected: the two never join), or strings (constant or not) as str; NULL when they
 * cannot be one type. */
Type *ty_unify(Type *a, Type *b);

#endif
