/* infer.h: what the files of type inference share (infer.c, infer_items.c, infer_calls.c).
 * Private to them: the rest of pyjit calls only infer_program (compiler.h).
 *
 * Inference types each function in two passes over the same per-opcode code. First a worklist
 * runs every handler with rewrite off until no type changes (only instr->type and the known
 * truth values are written). Then one more run with rewrite on turns the IR into the typed IR
 * contract of ir.h: CASTs inserted, Python-level operations replaced by explicit ones. Because the
 * types are final by then, both runs take the same decisions. A handler returns the result type;
 * NULL with diag set is an error, NULL without it means "an operand has no type yet". */
#ifndef PYJIT_INFER_H
#define PYJIT_INFER_H

#include "compiler/compiler.h"

typedef struct ProgInfer {
    Program *prog;
    Diag *diag;
    PtrVec memo;        /* MemoEntry*: every specialisation made, by (handle, argtypes) */
    PtrVec irs;         /* IrEntry*: the IR read for each callee, by handle */
    int depth;          /* callees being inferred, nested */
    PtrVec active;      /* Infer*: the functions being inferred, the innermost last */
} ProgInfer;

typedef struct Infer {
    ProgInfer *pi;
    TypedFunc *tf;
    IRFunc *fn;
    Type **argtypes;    /* as given: a Python scalar argument may be weak (its TypedFunc's is not) */
    Arena *arena;
    Diag *diag;
    bool rewrite;       /* the second pass: edit the IR */
    bool changed;       /* a type or a block's reachability changed in this round */
    Type *declared;     /* the declared return type, or NULL */
    Type *ret;          /* the return type unified so far (this round) */
    Instr *ret_from;    /* the RET that gave it (diagnostics) */
    bool self_call;     /* the function calls itself and its return type is not known yet */
    Type *provisional;  /* the return type assumed for such calls, from the other returns */
    /* Mutual recursion (f calls g calls f, no signatures): f, the outermost function of the
     * cycle, is its head; g and the others between are its members, whose rewrite waits until
     * the head's return type settles (infer.c: infer_cycle). */
    Instr *unroll;      /* a GETITER of a tuple whose items differ in type, to unroll */
    struct Infer *head; /* a member's head, or NULL */
    PtrVec members;     /* a head's members: Infer*, kept with their state until then */
    int nknown;
    signed char *known; /* by value id: -1 unknown, 0 false, 1 true (folded conditions) */
    bool *maybe_unset;  /* by value id: a phi whose variable may be unassigned (rewrite) */
    bool *in_cycle;     /* by block id: the block is in a loop (rewrite) */
    Type **list_items;  /* by value id (nknown of them): the item type uses gave a BUILD_LIST
                           (`[]` then append(x)); see infer_list_takes */
    bool none_waits;    /* this round, an operation waited for a variable that is None so far
                           while a loop may still give it a value (infer_none_waits) */
    bool none_final;    /* the rounds have converged: such variables are None */
    bool lists_wait;    /* this round, np.array(l) waited for other uses to type an empty l */
    bool lists_final;   /* the rounds have converged: such lists take np.array's dtype */
    Type **table_types; /* by value id (nknown of them): the dict or set type uses gave the
                           instruction that makes one (`{}` then d[k] = v); infer_table_takes */
} Infer;

/* infer_calls.c: a BINOP or COMPARE of a set or dict as a call of its method's library overload
 * (method.set.__or__, ...: pyjit/lib/dicts.py), the left operand the receiver. */
/* A kernel's breakpoint() or pdb.set_trace(): compiled code cannot stop in pdb; the interpreted
 * simulator can (infer.c). */
Type *infer_no_debugger(Infer *c, Instr *in, const char *what);
Type *infer_operator_method(Infer *c, Instr *in, const char *method);
/* infer_calls.c: a BINOP or COMPARE with the user's overload(operator.add) (...) implementing
 * it; *found false when there is none, or every one declines. */
Type *infer_operator_overload(Infer *c, Instr *in, bool *found);
/* infer.c: whether a dict of keys kt and values vt (a set: vt NULL) can be made. */
bool infer_table_types_ok(const Type *kt, const Type *vt);
Type *infer_attribute_overload(Infer *c, Instr *in, bool *found);
/* infer.c */
/* A key of type kt (and a value of type vt) stored into the dict or set `table`: the table's type
 * they are stored as. A table made in this function whose types were not known yet, or whose
 * numbers kt's or vt's promote, takes the wider types (inference runs another round); another
 * must already hold them. NULL with the error otherwise, or NULL while kt or vt is not known. */
Type *infer_table_takes(Infer *c, Instr *in, Instr *table, Type *kt, Type *vt);
/* The key type a lookup of key in table converts it to (the table's own); NULL while the table's
 * types are unknown, or with the error when key's type does not convert to it safely. */
Type *infer_table_key(Infer *c, Instr *in, Instr *table, Instr *key);
/* The type of a new empty dict or set made by in (dict(), set(), {}): what later uses gave it. */
Type *infer_table_made(Infer *c, Instr *in, bool set);
/* A value of type vt stored into list (append, item assignment): the item type it is stored as.
 * A list made in this function whose items were not known yet, or numbers that vt's type
 * promotes, takes the new item type (inference runs another round); another list must already
 * hold vt's type or one it converts to safely. NULL with the error otherwise. */
Type *infer_list_takes(Infer *c, Instr *in, Instr *list, Type *vt);
/* The type of a BUILD_LIST, its items' type from list_items and its args. Its imm says which
 * list it makes: 0 a list, TYPED_LIST a typed one, TYPED_LIST_GIVEN a typed one whose item type
 * List.empty_list gave (stores do not widen it). */
enum { TYPED_LIST = 1, TYPED_LIST_GIVEN = 2 };
Type *infer_build_list(Infer *c, Instr *in);
Type *infer_fail(Infer *c, const Instr *at, DiagKind kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
Instr *infer_emit(Infer *c, Instr *before, Opcode op, Type *type, int nargs);
Instr *infer_coerce(Infer *c, Instr *before, Instr *val, Type *to);
Instr *infer_const_int(Infer *c, Instr *before, int64_t v);
void infer_make_const_bool(Infer *c, Instr *in, bool v);
void infer_set_args(Infer *c, Instr *in, Instr **args, int nargs);
Const *infer_namedtuple_class_of(Infer *c, Type *t);
/* `x in s` / `x not in s` being rewritten: the instruction that becomes the intrinsic testing
 * membership: in itself, or, for `not in`, a new one before it, which in then negates. */
Instr *infer_membership(Infer *c, Instr *in);
void infer_set_known(Infer *c, Instr *in, int v);
int infer_known(Infer *c, const Instr *in);
bool infer_const_index(const Instr *in, int64_t *out);
bool infer_is_none_const(const Instr *in);
const char *infer_type_name(const Type *t);
bool infer_is_runtime(const Type *t);
/* False for a list whose items are not known yet (or a tuple holding one): such a value cannot
 * be passed on to a call until they are. */
bool infer_is_complete(const Type *t);
Type *infer_const_type(Infer *c, const Const *k);   /* strong; NULL if it has no runtime type */
/* The int, bool or string constant x is when compiling (a constant, literally() of one), for
 * literal types; NULL for a value known only at run time. */
const Const *infer_known_value(const Instr *x);
/* The type both operands of a scalar binary operation are cast to (*opt) and its result (*res);
 * python: scalar semantics (True + True == 2), else NumPy's for array elements. */
bool infer_binop_types(int op, Type *a, Type *b, bool python, Type **opt, Type **res);
/* The callee of a compiled function for these argument types (inferred on first use); declared,
 * if not NULL, is the return type of the signature the call binds to (the result is cast to it). */
IRFunc *infer_callee_ir(Infer *c, Instr *at, void *handle);   /* for its arguments and defaults */
TypedFunc *infer_specialise(Infer *c, Instr *at, void *handle, Type **argtypes, int nargs,
                            Type *declared, Type **ret);

/* infer_parallel.c: parfor(chunk, n, args...), an outlined prange loop (pyjit/_parallel.py). */
Type *infer_parfor(Infer *c, Instr *in, Instr **pos, int npos);

/* infer_items.c: attributes, indexing, iteration. */
Type *infer_getattr(Infer *c, Instr *in);
Type *infer_getitem(Infer *c, Instr *in);
Type *infer_static_getitem(Infer *c, Instr *in);
Type *infer_setitem(Infer *c, Instr *in);
Type *infer_getiter(Infer *c, Instr *in);
Type *infer_for_iter(Infer *c, Instr *in);
/* iter(x): the call made the GETITER a for loop over x would make. next(it[, default]): it an
 * iterator iter() made, typed as the item a loop over it gets. */
Type *infer_iter_call(Infer *c, Instr *in, Instr *x);
Type *infer_next_call(Infer *c, Instr *in, Instr *it, Instr *dflt);
/* enumerate(x[, start]) or zip(x, ...) called with these operands. */
Type *infer_iterable_call(Infer *c, Instr *in, bool zip, Instr **args, int nargs);

/* infer_closure.c: a closure made (CALL imm=2 of its function with the captured values), and a
 * call of a closure (the callee's type ty_is_closure). */
/* A value compiled code can pass to a compiled function or capture: one that exists at run
 * time, a function (a dispatcher, a closure), or a tuple of these. */
bool infer_is_passable(const Type *t);
Type *infer_make_closure(Infer *c, Instr *in);
Type *infer_call_closure(Infer *c, Instr *in);
/* A dispatcher val where a function_type ft is expected: the address of its version for ft's
 * signature (FUNC_ADDR, emitted before `before`); val itself, with the error, when it has none. */
Instr *infer_function_address(Infer *c, Instr *before, Instr *val, Type *ft);
/* f(args) with f a function_type value: a CALL_PTR. */
Type *infer_call_pointer(Infer *c, Instr *in);

/* infer_records.c: namedtuples: Point(...) (the callee a K_NAMEDTUPLE constant), p.x, and
 * p._replace(...) (self the namedtuple). */
Type *infer_namedtuple_call(Infer *c, Instr *in);
Type *infer_namedtuple_getattr(Infer *c, Instr *in, Type *t);
Type *infer_namedtuple_replace(Infer *c, Instr *in, Instr *self);
/* infer_str.c: run-time strings. A string constant (TY_STRING, known when compiling) becomes a
 * str where a value must exist at run time: stored, returned, joined with another string at a
 * phi, or operated on. infer_is_text: str or a string constant; infer_value_type: the type a
 * value of type t has at run time (t strong, a string constant str). The others type s + t,
 * s * n, comparisons, `in` and s[i] / s[a:b] of strings and rewrite them to the str builtins. */
bool infer_is_text(const Type *t);
/* The value of a string constant's type ("a" in d["a"]), or NULL for any other type. */
const char *infer_const_str(const Type *t);
Type *infer_value_type(Type *t);
/* infer_items.c: the item a loop over a value of type t gets (NULL where not known yet). */
Type *infer_item_of(Type *t);
bool infer_str_allowed(Infer *c, Instr *in);
Type *infer_str_binop(Infer *c, Instr *in);
Type *infer_str_compare(Infer *c, Instr *in);
Type *infer_str_contains(Infer *c, Instr *in);
Type *infer_str_getitem(Infer *c, Instr *in);

/* infer_optional.c: Optional values. infer_join: ty_unify, and None (or an optional) with a value
 * of type T gives optional(T), at phis and returns; NULL when they do not join. The others: val
 * made an optional of type `to` (a CAST); an OPTIONAL GET before each operand of `in` that is
 * optional, unless in takes optionals as they are (tests against None, truth, returns); the type
 * of an OPTIONAL; and `x is None`-style tests of an optional x. */
Type *infer_join(Type *a, Type *b);
Instr *infer_wrap_optional(Infer *c, Instr *before, Instr *val, Type *to);
void infer_unwrap_operands(Infer *c, Instr *in);
/* OPTIONAL get of the optional v before `before`: its value, a TypeError at run time if None. */
Instr *infer_unwrap(Infer *c, Instr *before, Instr *v);
Type *infer_optional_instr(Infer *c, Instr *in);
Type *infer_optional_compare(Infer *c, Instr *in);
/* Whether in must wait for a later round: an operand is None so far only because an input of
 * its phi (a loop's back edge) has no type yet, and in would fail on None. */
bool infer_none_waits(Infer *c, Instr *in);

/* infer_unroll.c: a loop over a tuple whose items differ in type. The worklist asks for it
 * (infer_request_unroll, at the loop's GETITER: NULL, the loop waits), then infer.c unrolls it
 * (infer_unroll: the body copied per item, n items) and infers the function again. */
Type *infer_request_unroll(Infer *c, Instr *getiter);
int infer_unroll(Infer *c, Instr *getiter, int n);

/* infer_isinstance.c: isinstance(x, classes) folded to a constant by x's type; a tuple of classes
 * or functions is a compile-time value (infer_is_compile_time_tuple). */
Type *infer_isinstance(Infer *c, Instr *in, Instr *x, Instr *classes);
bool infer_is_compile_time_tuple(Type **items, int n);

/* infer_calls.c: calls of builtins, methods, constructors and other compiled functions. */
Type *infer_call(Infer *c, Instr *in);
/* np.array([[], []]): types the nested empty list literals of the call's argument (float64
 * or its dtype=); true when it did. */
bool infer_empty_list_arg(Infer *c, Instr *in);
/* Whether v is used by one instruction only, of those left in the function. */
bool infer_used_once(Infer *c, const Instr *v);
/* infer_calls.c: an operation that is a list method of the library (pyjit/lib/lists.py) on
 * these operands, self first: l[i:j] = other is list.__setitem__. in becomes its CALL_JIT. */
Type *infer_list_library_call(Infer *c, Instr *in, const char *method, Instr **args, int nargs);
/* The same for the overloads registered under key ("method.list.index", an array's fancy
 * indexing "method.array.__getitem__", a jitclass's "method.instance(Bag@1).size"). */
Type *infer_library_call(Infer *c, Instr *in, const char *key, Instr **args, int nargs);
/* Methods pyjit's library gives a namedtuple's class ("method.Polynomial.deriv"): whether t's
 * class has `name`, and an operator of such an operand as its dunder method (found false: none) */
bool infer_namedtuple_has_method(Infer *c, const Type *t, const char *name);
Type *infer_namedtuple_operator(Infer *c, Instr *in, bool *found);
/* infer_class.c: jitclass instances. obj.x (a field, a property's getter, or a method bound to
 * obj), obj.x = v (the frontend's obj.__setattr__("x", v): a field or a property's setter), the
 * rows of builtins.def that make and touch instances, and the operations that are a jitclass's
 * dunder methods (len, [], operators): NULL without an error when t is no jitclass. */
Type *infer_class_getattr(Infer *c, Instr *in, Type *t);
Type *infer_class_setattr(Infer *c, Instr *in, Instr *self);
Type *infer_class_builtin(Infer *c, Instr *in, Builtin bi, Instr **pos, int npos);
Type *infer_class_dunder(Infer *c, Instr *in, const char *method, Instr **args, int nargs);
Type *infer_class_operator(Infer *c, Instr *in);
/* infer_structured.c: NumPy records (TY_RECORD): r.x, r['x'], r[k] with a constant k, their
 * assignments (r.x = v is the frontend's r.__setattr__("x", v): in is that call), a['x'] of an
 * array of records, and the builtins' rows, which are not called by name. */
Type *infer_record_getattr(Infer *c, Instr *in, Type *t);
Type *infer_record_getitem(Infer *c, Instr *in);
Type *infer_record_setitem(Infer *c, Instr *in);
Type *infer_record_setattr(Infer *c, Instr *in, Instr *self);
Type *infer_record_view(Infer *c, Instr *in);
Type *infer_record_view_attr(Infer *c, Instr *in);
Type *infer_record_builtin(Infer *c, Instr *in, Builtin bi);
/* infer_datetime.c: arithmetic and comparisons with a datetime64 or timedelta64 operand (scalars
 * or arrays: infer_is_datetime_op), and np.isnat. */
bool infer_is_datetime_op(const Instr *in);
Type *infer_datetime_op(Infer *c, Instr *in);
Type *infer_isnat(Infer *c, Instr *in, Instr **pos, int npos);
/* infer_calls.c: np.dot(a, b) and a @ b: the result type; in becomes INTRINSIC BI_NP_DOT. */
Type *infer_dot(Infer *c, Instr *in);
/* The Builtin a numpy/Python scalar type object names, or the scalar type of a dtype value. */
Type *infer_dtype_of(Infer *c, Instr *val);
Type *infer_dtype_type(Type *dtype);
/* infer_ffi.c: p[i] (val NULL) and p[i] = val on a C pointer; carray/farray; a call of a C
 * function (K_CFUNC) with these positional arguments. */
Type *infer_ptr_item(Infer *c, Instr *in, Instr *val);
Type *infer_carray(Infer *c, Instr *in, Builtin bi, Instr **pos, int npos, Instr *dtype);
Type *infer_array_ctypes(Infer *c, Instr *in, Type *t);
Type *infer_c_call(Infer *c, Instr *in, const Const *k, Instr **pos, int npos);
/* infer_ffi.c: the call of an objmode block (K_OBJMODE) with the variables it reads. */
Type *infer_objmode_call(Infer *c, Instr *in, const Const *k, Instr **pos, int npos);
/* gpu.threadIdx.x and the like (attributes of the gpu namespaces, a TY_FUNCTION literal t), and
 * values that are builtins (gpu.laneid): typed, and made INTRINSICs in the rewrite. */
Type *infer_gpu_getattr(Infer *c, Instr *in, Type *t);
Type *infer_gpu_value(Infer *c, Instr *in, Builtin bi);

#endif
