/* test_types.c: unit tests of compiler/types.c: interning, names and parsing, NumPy 2 promotion
 * (tables taken from numpy.result_type), unification and ABI sizes.
 * Build: cc -std=c11 -I. tests/c/test_types.c compiler/types.c -lpthread */
#include "compiler/types.h"
#include "compiler/ir.h"

#include <stdio.h>
#include <string.h>

#include "tests/c/check.h"

/* numpy.result_type(row, column) over the 14 scalar kinds, in TypeKind order. */
static const char *const strong_table[14][14] = {
    {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
    {"int8", "int8", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
    {"int16", "int16", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
    {"int32", "int32", "int32", "int32", "int64", "int32", "int32", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"int64", "int64", "int64", "int64", "int64", "int64", "int64", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"uint8", "int16", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
    {"uint16", "int32", "int32", "int32", "int64", "uint16", "uint16", "uint32", "uint64", "float32", "float32", "float64", "complex64", "complex128"},
    {"uint32", "int64", "int64", "int64", "int64", "uint32", "uint32", "uint32", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
    {"uint64", "float64", "float64", "float64", "float64", "uint64", "uint64", "uint64", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
    {"float16", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
    {"float32", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
    {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"complex64", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex64", "complex128"},
    {"complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128"},

};

/* numpy.result_type(column_type(0), literal) for the Python literals 1, 1.0, 1j. */
static const char *const weak_table[3][14] = {
    {"int64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
    {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
    {"complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex64", "complex64", "complex128", "complex64", "complex128"},
};

static void test_promotion(void)
{
    for (int a = 0; a <= TY_COMPLEX128; a++)
        for (int b = 0; b <= TY_COMPLEX128; b++) {
            Type *r = ty_promote(ty_scalar(a), ty_scalar(b));
            if (!r || strcmp(r->name, strong_table[a][b]) != 0) {
                fprintf(stderr, "promote(%s, %s) = %s, numpy says %s\n", ty_scalar(a)->name,
                        ty_scalar(b)->name, r ? r->name : "NULL", strong_table[a][b]);
                failures++;
            }
        }
    TypeKind weak_kinds[3] = {TY_INT64, TY_FLOAT64, TY_COMPLEX128};
    for (int w = 0; w < 3; w++)
        for (int b = 0; b <= TY_COMPLEX128; b++) {
            Type *weak = ty_weak(ty_scalar(weak_kinds[w]));
            Type *r1 = ty_promote(weak, ty_scalar(b)), *r2 = ty_promote(ty_scalar(b), weak);
            if (r1 != r2 || strcmp(r1->name, weak_table[w][b]) != 0 || r1->weak) {
                fprintf(stderr, "promote(%s, %s) = %s, numpy says %s\n", weak->name,
                        ty_scalar(b)->name, r1->name, weak_table[w][b]);
                failures++;
            }
        }
    Type *wi = ty_weak(ty_scalar(TY_INT64)), *wf = ty_weak(ty_scalar(TY_FLOAT64));
    CHECK(ty_promote(wi, wf) == wf);
    CHECK(ty_promote(wi, wi) == wi);
    CHECK(ty_strong(wf) == ty_scalar(TY_FLOAT64));
    CHECK(ty_promote(ty_scalar(TY_NONE), wi) == NULL);
}

static void test_names(void)
{
    const char *names[] = {
        "bool", "int8", "uint64", "float16", "complex128", "none", "range", "slice",
        "array(float64, 2d, C)", "array(int32, 1d, A, readonly)", "array(complex64, 3d, F)",
        "tuple()", "tuple(int64, float64)", "tuple(int64, tuple(float32, array(bool, 1d, C)))",
        "list(float64)", "typed_list(float64)", "typed_list(typed_list(array(int64, 1d, C)))",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        Type *t = ty_parse(names[i]);
        CHECK(t != NULL);
        if (t && strcmp(t->name, names[i]) != 0) {
            fprintf(stderr, "parse(%s) named %s\n", names[i], t->name);
            failures++;
        }
        CHECK(t == ty_parse(names[i]));
    }
    CHECK(ty_parse("array(float64,2d,C)") == ty_parse("array(float64, 2d, C)"));
    CHECK(ty_parse("int") == NULL);
    CHECK(ty_parse("int64x") == NULL);
    CHECK(ty_parse("array(float64, 2d)") == NULL);
    CHECK(ty_parse("tuple(int64") == NULL);
    CHECK(ty_parse("") == NULL);
    Type *items[2] = {ty_scalar(TY_INT64), ty_scalar(TY_FLOAT64)};
    CHECK(ty_tuple(items, 2) == ty_parse("tuple(int64, float64)"));
    CHECK(ty_array(ty_scalar(TY_FLOAT32), 1, 'C', false) == ty_parse("array(float32, 1d, C)"));
    CHECK(ty_weak(ty_scalar(TY_INT64)) != ty_scalar(TY_INT64));
    CHECK(ty_weak(ty_scalar(TY_INT64))->weak);
    Type *m = ty_method(ty_parse("array(float64, 1d, C)"), "sum");
    CHECK(m == ty_method(ty_parse("array(float64, 1d, C)"), "sum"));
    CHECK(strcmp(m->method.name, "sum") == 0);
    CHECK(strcmp(ty_numpy_char(ty_scalar(TY_FLOAT32)), "f") == 0);
}

static void test_unify_and_sizes(void)
{
    Type *c = ty_parse("array(float64, 2d, C)"), *f = ty_parse("array(float64, 2d, F)");
    CHECK(ty_unify(c, f) == ty_parse("array(float64, 2d, A)"));
    CHECK(ty_unify(c, ty_parse("array(float32, 2d, C)")) == NULL);
    CHECK(ty_unify(ty_scalar(TY_INT64), ty_scalar(TY_FLOAT32)) == ty_scalar(TY_FLOAT64));
    CHECK(ty_unify(ty_scalar(TY_INT64), ty_parse("tuple(int64)")) == NULL);
    CHECK(ty_unify(ty_parse("tuple(int64, int32)"), ty_parse("tuple(float64, int32)")) ==
          ty_parse("tuple(float64, int32)"));
    CHECK(ty_mem_size(ty_scalar(TY_BOOL)) == 1);
    CHECK(ty_mem_size(ty_scalar(TY_COMPLEX64)) == 8 && ty_mem_align(ty_scalar(TY_COMPLEX64)) == 4);
    CHECK(ty_mem_size(c) == 24 + 32);
    Type *t = ty_parse("tuple(int8, float64, int32)");
    CHECK(ty_tuple_offset(t, 0) == 0 && ty_tuple_offset(t, 1) == 8 && ty_tuple_offset(t, 2) == 16);
    CHECK(ty_mem_size(t) == 24 && ty_mem_align(t) == 8);
    CHECK(ty_mem_size(ty_parse("tuple()")) == 0);
    CHECK(ty_mem_size(ty_scalar(TY_NONE)) == 0);
    /* typed and reflected lists are different types, also before their items are known */
    Type *typed = ty_parse("typed_list(float64)"), *reflected = ty_parse("list(float64)");
    CHECK(typed != reflected && typed->list.typed && !reflected->list.typed);
    CHECK(ty_unify(typed, reflected) == NULL);
    CHECK(ty_unify(ty_typed_list(NULL), typed) == typed && ty_unify(reflected, ty_list(NULL)) == reflected);
    CHECK(ty_unify(ty_list(NULL), typed) == NULL && ty_unify(typed, ty_list(NULL)) == NULL);
    CHECK(ty_list_like(typed, ty_scalar(TY_INT64)) == ty_parse("typed_list(int64)"));
    CHECK(ty_mem_size(typed) == 8 && ty_holds_meminfo(typed));
}

/* A namedtuple is a tuple that carries its class: two classes with the same fields are two
 * types, one class with the same items one type, and unification keeps the class. */
static void test_namedtuples(void)
{
    static int point_cls, pair_cls;   /* stand-ins for two Python classes */
    const char *fields[] = {"x", "y"};
    Type *f64 = ty_scalar(TY_FLOAT64), *i64 = ty_scalar(TY_INT64);
    Type *ff[] = {f64, f64}, *fi[] = {f64, i64};
    Type *p = ty_namedtuple(&point_cls, "Point", fields, ff, 2);
    CHECK(strcmp(p->name, "Point(x=float64, y=float64)") == 0);
    CHECK(p == ty_namedtuple(&point_cls, "Point", fields, ff, 2));
    CHECK(p != ty_namedtuple(&pair_cls, "Point", fields, ff, 2));
    CHECK(p != ty_tuple(ff, 2) && ty_plain_tuple(p) == ty_tuple(ff, 2));
    CHECK(ty_field_index(p, "y") == 1 && ty_field_index(p, "z") == -1);
    CHECK(ty_field_index(ty_tuple(ff, 2), "x") == -1);
    CHECK(ty_unify(ty_namedtuple(&point_cls, "Point", fields, fi, 2), p) == p);
    CHECK(ty_unify(p, ty_tuple(ff, 2)) == NULL);
    /* a second class of one name is named apart (so are the types holding one), and parsed */
    Type *p2 = ty_namedtuple(&pair_cls, "Point", fields, ff, 2);
    CHECK(strcmp(p2->name, "Point#2(x=float64, y=float64)") == 0);
    CHECK(ty_parse(p->name) == p && ty_parse(p2->name) == p2);
    CHECK(ty_parse("tuple(Point#2(x=float64, y=float64), int64)") == ty_tuple((Type *[]){p2, i64}, 2));
    CHECK(ty_mem_size(p) == 16);
    /* a name one class alone prints is that class's type, nested too */
    const char *qfields[] = {"re", "im"};
    Type *q = ty_namedtuple(&pair_cls, "Pair", qfields, fi, 2);
    CHECK(ty_parse("Pair(re=float64, im=int64)") == q);
    CHECK(ty_parse("tuple(Pair(re=float64, im=int64), int64)") == ty_tuple((Type *[]){q, i64}, 2));
    CHECK(ty_parse("Pair(re=float64, im=float64)") == NULL);
}

/* A literal type keeps its own copy of the constant: it outlives the compilation that made it. */
static void test_literals(void)
{
    char name[32];
    strcpy(name, "math.sqrt");
    Const k1 = {.kind = K_FUNC, .name = name}, k2 = {.kind = K_FUNC, .name = "math.sqrt"};
    Type *t = ty_literal(TY_FUNCTION, &k1);
    CHECK(t == ty_literal(TY_FUNCTION, &k2));
    strcpy(name, "math.cos");   /* the first constant changes (or is freed): the type does not */
    CHECK(strcmp(t->literal->name, "math.sqrt") == 0);
    CHECK(ty_literal(TY_FUNCTION, &k1) != t);
    CHECK(strcmp(t->name, "function(math.sqrt)") == 0);
}

static void test_optional(void)
{
    Type *f = ty_scalar(TY_FLOAT64), *o = ty_optional(f);
    CHECK(o->kind == TY_OPTIONAL && o->optional.value == f);
    CHECK(ty_optional(o) == o);                         /* optional of optional: itself */
    CHECK(ty_optional(ty_scalar(TY_NONE)) == ty_scalar(TY_NONE));
    CHECK(ty_optional(ty_weak(f)) == o);                /* the value is strong */
    CHECK(strcmp(o->name, "optional(float64)") == 0);
    CHECK(ty_parse("optional(float64)") == o);
    CHECK(ty_mem_size(o) == 16 && ty_mem_align(o) == 8);   /* {bool; double} */
    Type *ob = ty_optional(ty_scalar(TY_BOOL));
    CHECK(ty_mem_size(ob) == 2 && ty_mem_align(ob) == 1);
    Type *oa = ty_optional(ty_array(f, 1, 'C', false));
    int32_t refs[4];
    CHECK(ty_ref_offsets(oa, 0, refs, 0, 4) == 1 && refs[0] == 8);   /* the array's MemInfo */
}

/* Records: named and parsed back as one type, nested and with subarrays; arrays of them. */
static void test_records(void)
{
    RecordField inner[2] = {{.name = "a", .type = ty_scalar(TY_INT16), .offset = 0},
                            {.name = "b", .type = ty_scalar(TY_FLOAT64), .offset = 2}};
    Type *in = ty_record(inner, 2, 10, false);
    RecordField outer[2] = {{.name = "p", .type = in, .offset = 0},
                            {.name = "m", .type = ty_scalar(TY_FLOAT32), .offset = 16, .ndim = 2,
                             .shape = {2, 3}}};
    Type *out = ty_record(outer, 2, 40, true);
    CHECK(strcmp(out->name, "record(p:record(a:int16@0, b:float64@2, size=10)@0, "
                            "m:float32[2,3]@16, size=40, aligned)") == 0);
    CHECK(ty_parse(out->name) == out);
    CHECK(ty_record(outer, 2, 40, true) == out);
    CHECK(ty_record(outer, 2, 40, false) != out);
    CHECK(ty_record_field(out, "m") == 1 && ty_record_field(out, "q") == -1);
    CHECK(ty_itemsize(out) == 40 && ty_mem_size(out) == 16 && ty_holds_meminfo(out));
    Type *arr = ty_array(out, 2, 'C', false);
    CHECK(arr && ty_parse(arr->name) == arr && arr->array.dtype == out);
    CHECK(ty_parse("record(x:float64@0, size=)") == NULL);
    CHECK(ty_parse("record(x:str@0, size=8)") == NULL);
}

int main(void)
{
    test_records();
    test_optional();
    test_literals();
    test_promotion();
    test_names();
    test_unify_and_sizes();
    test_namedtuples();
    return check_report("test_types");
}
