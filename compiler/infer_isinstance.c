/* infer_isinstance.c: isinstance(x, classes) decided by x's type at compile time, as Numba does:
 * the call becomes a constant, and the branch it rules out is never typed (inference leaves a
 * block whose condition is known false unreached), so code for the other types may sit there.
 * The classes are builtins.def names the frontend froze (int, float, complex, bool, str, tuple,
 * list, dict, set, numpy.ndarray, NumPy scalar types), alone or in a tuple. The Python number
 * classes are the types Python numbers have here, as in CPython and Numba: int is int64 (and bool,
 * a subclass of int in CPython, where Numba says no), float float64, complex complex128; an int32
 * is no int, as NumPy's int32 is not. */
#include "compiler/infer.h"

#include <string.h>

/* 1 or 0: a value of type t is an instance of cls; -1: cls is not a class this knows. */
static int instance_of(Type *t, Type *cls)
{
    t = ty_strong(t);
    if (cls->kind == TY_DTYPE)
        return t == cls->dtype.scalar;
    if (cls->kind != TY_FUNCTION || !cls->literal->name)
        return -1;
    const char *n = cls->literal->name;
    if (strcmp(n, "builtins.int") == 0)
        return t->kind == TY_INT64 || t->kind == TY_BOOL;
    if (strcmp(n, "builtins.float") == 0)
        return t->kind == TY_FLOAT64;
    if (strcmp(n, "builtins.complex") == 0)
        return t->kind == TY_COMPLEX128;
    if (strcmp(n, "builtins.bool") == 0)
        return t->kind == TY_BOOL;
    if (strcmp(n, "builtins.str") == 0)
        return infer_is_text(t);
    if (strcmp(n, "builtins.list") == 0)   /* a typed List is no list, in CPython as in Numba */
        return t->kind == TY_LIST && !t->list.typed;
    if (strcmp(n, "pyjit.typed.List") == 0)
        return t->kind == TY_LIST && t->list.typed;
    if (strcmp(n, "pyjit.typed.Dict") == 0)
        return t->kind == TY_DICT;
    static const struct { const char *name; TypeKind kind; } kinds[] = {
        {"builtins.tuple", TY_TUPLE}, {"builtins.dict", TY_DICT},
        {"builtins.set", TY_SET}, {"numpy.ndarray", TY_ARRAY},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(n, kinds[i].name) == 0)
            return t->kind == kinds[i].kind;
    if (strncmp(n, "numpy.", 6) == 0) {   /* a NumPy scalar type: that type exactly */
        Type *s = strcmp(n + 6, "bool_") == 0 ? ty_scalar(TY_BOOL) : ty_parse(n + 6);
        return s && ty_is_scalar(s) ? t == s : -1;
    }
    return -1;
}

/* Whether a tuple of these items can be built at compile time only: classes for isinstance,
 * builtins and @njit functions (or a mix) for a loop over them (Numba's literal_unroll of a
 * tuple of functions), each item read by a constant index. */
bool infer_is_compile_time_tuple(Type **items, int n)
{
    for (int i = 0; i < n; i++)
        if (items[i]->kind != TY_FUNCTION && items[i]->kind != TY_DTYPE && items[i]->kind != TY_DISPATCHER)
            return false;
    return n > 0;
}

Type *infer_isinstance(Infer *c, Instr *in, Instr *x, Instr *classes)
{
    Type *ct = classes->type;
    int n = ct->kind == TY_TUPLE ? ct->tuple.n : 1, v = 0;
    for (int i = 0; i < n && v == 0; i++) {
        v = instance_of(x->type, ct->kind == TY_TUPLE ? ct->tuple.items[i] : ct);
        if (v < 0)
            return infer_fail(c, in, DIAG_TYPING, "isinstance() in compiled code takes int, float, "
                              "complex, bool, str, tuple, list, dict, set, np.ndarray or a NumPy "
                              "scalar type, or a tuple of them, not %s", infer_type_name(ct));
    }
    infer_set_known(c, in, v);
    if (c->rewrite)
        infer_make_const_bool(c, in, v);
    return ty_scalar(TY_BOOL);
}
