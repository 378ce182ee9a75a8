/* types.c: pyjit's interned types, NumPy 2 promotion (NEP 50) and ABI sizes.
 *
 * Every type is made once per process and found again through a hash table keyed by a string
 * that identifies it (its canonical name, plus a tag for weak and compile-time-only types), so
 * pointer equality is type equality. The table takes a mutex because compilations may run in
 * several threads. Types are allocated with malloc and never freed: there are few of them. */
#include "compiler/types.h"
#include "compiler/ir.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the intern table ------------------------------------------------------------------- */

typedef struct Entry {
    char *key;
    Type *type;
    struct Entry *next;
} Entry;

#define TABLE_SIZE 1024
static Entry *table[TABLE_SIZE];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static void *xmalloc(size_t size)
{
    void *p = calloc(1, size);
    if (!p) {
        fprintf(stderr, "pyjit: out of memory\n");
        abort();
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

static unsigned hash_key(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Returns the type interned under key, or interns a copy of proto (name and key copied). */
static Type *intern(const char *key, const Type *proto)
{
    unsigned h = hash_key(key) % TABLE_SIZE;
    pthread_mutex_lock(&table_lock);
    Entry *e = table[h];
    while (e && strcmp(e->key, key) != 0)
        e = e->next;
    if (!e) {
        e = xmalloc(sizeof *e);
        e->key = xstrdup(key);
        e->type = xmalloc(sizeof *e->type);
        *e->type = *proto;
        e->type->name = xstrdup(proto->name);
        e->next = table[h];
        table[h] = e;
    }
    Type *t = e->type;
    pthread_mutex_unlock(&table_lock);
    return t;
}

/* Tuples are found again by their items' identities before their name is built: a name holds
 * its items' names, so building it at every level of a nested tuple would cost the square of
 * the depth (typeof runs at every call). Each entry points at the type interned by name. */
typedef struct TupleEntry {
    unsigned hash;
    Type *type;
    struct TupleEntry *next;
} TupleEntry;

static TupleEntry *tuple_table[TABLE_SIZE];

static unsigned hash_items(const void *cls, Type **items, int n)
{
    unsigned h = (2166136261u ^ (unsigned)n ^ (unsigned)((uintptr_t)cls >> 4)) * 16777619u;
    for (int i = 0; i < n; i++)
        h = (h ^ (unsigned)((uintptr_t)items[i] >> 4) ^ (unsigned)((uintptr_t)items[i] >> 36)) * 16777619u;
    return h;
}

static Type *tuple_find(const void *cls, Type **items, int n, unsigned h)
{
    pthread_mutex_lock(&table_lock);
    TupleEntry *e = tuple_table[h % TABLE_SIZE];
    while (e && (e->hash != h || e->type->tuple.n != n || e->type->tuple.cls != cls ||
                 (n && memcmp(e->type->tuple.items, items, sizeof(Type *) * (size_t)n) != 0)))
        e = e->next;
    pthread_mutex_unlock(&table_lock);
    return e ? e->type : NULL;
}

static void tuple_add(Type *t, unsigned h)
{
    TupleEntry *e = xmalloc(sizeof *e);
    e->hash = h;
    e->type = t;
    pthread_mutex_lock(&table_lock);
    e->next = tuple_table[h % TABLE_SIZE];
    tuple_table[h % TABLE_SIZE] = e;
    pthread_mutex_unlock(&table_lock);
}

/* A small growable string for building names. */
typedef struct Buf {
    char *s;
    size_t len, cap;
} Buf;

static void buf_add(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_add(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *s = xmalloc(cap);
        if (b->s)
            memcpy(s, b->s, b->len);
        free(b->s);
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += n;
}

/* ---- constructors ----------------------------------------------------------------------- */

static const char *const scalar_names[] = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
};

Type *ty_scalar(TypeKind kind)
{
    Type proto = {.kind = kind};
    if (kind <= TY_COMPLEX128)
        proto.name = scalar_names[kind];
    else if (kind == TY_NONE)
        proto.name = "none";
    else if (kind == TY_RANGE)
        proto.name = "range";
    else if (kind == TY_SLICE)
        proto.name = "slice";
    else if (kind == TY_ELLIPSIS)
        proto.name = "ellipsis";
    else
        return NULL;
    return intern(proto.name, &proto);
}

Type *ty_weak(Type *scalar)
{
    if (!scalar || !ty_is_scalar(scalar))
        return scalar;
    if (scalar->weak)
        return scalar;
    char name[64];
    snprintf(name, sizeof name, "weak %s", scalar->name);
    Type proto = {.kind = scalar->kind, .weak = true, .name = name};
    return intern(name, &proto);
}

Type *ty_strong(Type *t)
{
    return t && t->weak ? ty_scalar(t->kind) : t;
}

Type *ty_array(Type *dtype, int ndim, char layout, bool readonly)
{
    if (!dtype || !(ty_is_scalar(dtype) || dtype->kind == TY_RECORD || ty_is_datetime(dtype) ||
                    dtype->kind == TY_CHARSEQ) ||
        ndim < 0)
        return NULL;
    dtype = ty_strong(dtype);
    if (layout != 'C' && layout != 'F')
        layout = 'A';
    Buf name = {0};   /* a record's name has no bound */
    buf_add(&name, "array(%s, %dd, %c%s)", dtype->name, ndim, layout, readonly ? ", readonly" : "");
    Type proto = {.kind = TY_ARRAY, .name = name.s};
    proto.array.dtype = dtype;
    proto.array.ndim = ndim;
    proto.array.layout = layout;
    proto.array.readonly = readonly;
    Type *t = intern(name.s, &proto);
    free(name.s);
    return t;
}

/* A tuple's size and alignment in memory (ty_mem_size, ty_mem_align), computed once when it is
 * interned: its items' are already known, so nesting costs no more than a flat tuple. */
static void tuple_layout(Type *t)
{
    int64_t off = 0;
    int align = 1;
    for (int i = 0; i < t->tuple.n; i++) {
        int a = ty_mem_align(t->tuple.items[i]);
        off = (off + a - 1) / a * a + ty_mem_size(t->tuple.items[i]);
        align = a > align ? a : align;
    }
    t->tuple.size = (off + align - 1) / align * align;
    t->tuple.align = align;
}

/* Interns a tuple (cls NULL) or a namedtuple: found first by its items' identities (and class),
 * then by name, under a key that tells apart two classes of one name. */
/* The classes of namedtuples seen, by name: the name a class goes by in type names is its own,
 * or for a second class of one name (two modules' Point) that name and a number, since a type
 * holding one (a tuple of them, a list of them) is interned by its name and would otherwise be
 * the first class's. Under table_lock. */
typedef struct ClassName {
    const void *cls;
    char *name;         /* the class's own name */
    int number;         /* 1 for the first class of that name */
    struct ClassName *next;
} ClassName;

static ClassName *class_names;

static void name_class(Buf *b, const void *cls, const char *cls_name)
{
    pthread_mutex_lock(&table_lock);
    ClassName *e = class_names;
    int same = 0;
    while (e && !(e->cls == cls && strcmp(e->name, cls_name) == 0)) {
        same += strcmp(e->name, cls_name) == 0;
        e = e->next;
    }
    if (!e) {
        e = xmalloc(sizeof *e);
        e->cls = cls;
        e->name = xstrdup(cls_name);
        e->number = same + 1;
        e->next = class_names;
        class_names = e;
    }
    int number = e->number;
    pthread_mutex_unlock(&table_lock);
    if (number == 1)
        buf_add(b, "%s(", cls_name);
    else
        buf_add(b, "%s#%d(", cls_name, number);
}

static Type *intern_tuple(const void *cls, const char *cls_name, const char *const *fields,
                          Type **items, int n)
{
    unsigned h = hash_items(cls, items, n);
    Type *found = tuple_find(cls, items, n, h);
    if (found)
        return found;
    Buf b = {0};
    if (cls)
        name_class(&b, cls, cls_name);
    else
        buf_add(&b, "tuple(");
    for (int i = 0; i < n; i++)
        buf_add(&b, "%s%s%s%s", i ? ", " : "", cls ? fields[i] : "", cls ? "=" : "", items[i]->name);
    buf_add(&b, ")");
    Type proto = {.kind = TY_TUPLE, .name = b.s};
    proto.tuple.n = n;
    proto.tuple.items = xmalloc(sizeof(Type *) * (n ? n : 1));
    memcpy(proto.tuple.items, items, sizeof(Type *) * n);
    tuple_layout(&proto);
    char *key = b.s;
    if (cls) {
        proto.tuple.cls = cls;
        proto.tuple.cls_name = xstrdup(cls_name);
        proto.tuple.fields = xmalloc(sizeof(char *) * (n ? n : 1));
        for (int i = 0; i < n; i++)
            proto.tuple.fields[i] = xstrdup(fields[i]);
        key = xmalloc(strlen(b.s) + 32);
        sprintf(key, "%s@%p", b.s, cls);
    }
    Type *t = intern(key, &proto);
    if (t->tuple.items != proto.tuple.items)
        free(proto.tuple.items);    /* it was already there (the names, a few bytes, stay) */
    if (key != b.s)
        free(key);
    free(b.s);
    tuple_add(t, h);
    return t;
}

Type *ty_tuple(Type **items, int n)
{
    return intern_tuple(NULL, NULL, NULL, items, n);
}

Type *ty_namedtuple(const void *cls, const char *cls_name, const char *const *fields, Type **items,
                    int n)
{
    return intern_tuple(cls, cls_name, fields, items, n);
}

/* The class of every literal dict type: its address only, so no Python class is one. */
static const char LITERAL_DICT_CLASS[] = "LiteralStrKeyDict";

Type *ty_literal_dict(const char *const *keys, Type **values, int n)
{
    return intern_tuple(LITERAL_DICT_CLASS, LITERAL_DICT_CLASS, keys, values, n);
}

bool ty_is_literal_dict(const Type *t)
{
    return t && t->kind == TY_TUPLE && t->tuple.cls == (const void *)LITERAL_DICT_CLASS;
}

/* Item 0's field name: no Python identifier, so no namedtuple of the user's is a closure. */
static const char CLOSURE_FUNCTION[] = "<function>";

Type *ty_closure(Type *func, const char *const *names, Type **captured, int n)
{
    const char **fields = xmalloc(sizeof(char *) * (size_t)(n + 1));
    Type **items = xmalloc(sizeof(Type *) * (size_t)(n + 1));
    fields[0] = CLOSURE_FUNCTION;
    items[0] = func;
    for (int i = 0; i < n; i++) {
        fields[i + 1] = names[i];
        items[i + 1] = captured[i];
    }
    char *cls_name = xmalloc(strlen(func->literal->name) + 16);
    sprintf(cls_name, "closure %s", func->literal->name);
    Type *t = intern_tuple(func->literal->handle, cls_name, fields, items, n + 1);
    free(cls_name);
    free(items);
    free(fields);
    return t;
}

bool ty_is_closure(const Type *t)
{
    return t && t->kind == TY_TUPLE && t->tuple.cls && t->tuple.n > 0 &&
           t->tuple.items[0]->kind == TY_DISPATCHER && strcmp(t->tuple.fields[0], CLOSURE_FUNCTION) == 0;
}

Type *ty_plain_tuple(Type *t)
{
    return t && t->kind == TY_TUPLE && t->tuple.cls ? ty_tuple(t->tuple.items, t->tuple.n) : t;
}

int ty_field_index(const Type *t, const char *name)
{
    if (!t || t->kind != TY_TUPLE || !t->tuple.cls)
        return -1;
    for (int i = 0; i < t->tuple.n; i++)
        if (strcmp(t->tuple.fields[i], name) == 0)
            return i;
    return -1;
}

/* Interns a type that has a payload and a name built from fmt. */
static Type *intern_named(Type *proto, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static Type *intern_named(Type *proto, const char *fmt, ...)
{
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    proto->name = name;
    return intern(name, proto);
}

Type *ty_iter(Type *over)
{
    Type proto = {.kind = TY_ITER};
    proto.iter.over = over;
    return intern_named(&proto, "iter(%s)", over->name);
}

Type *ty_nditer(NditerKind what, Type *src)
{
    static const char *const names[] = {"flatiter", "ndindex", "ndenumerate", "nditer"};
    Type proto = {.kind = TY_NDITER};
    proto.nditer.what = what;
    proto.nditer.src = src;
    return intern_named(&proto, "%s(%s)", names[what], src->name);
}

Type *ty_bool_literal(bool value)
{
    static const Const consts[2] = {{.kind = K_BOOL, .b = false}, {.kind = K_BOOL, .b = true}};
    Type proto = {.kind = TY_BOOL};
    proto.literal = &consts[value];
    return intern_named(&proto, "Literal[bool](%s)", value ? "True" : "False");
}

Type *ty_int_literal(int64_t value)
{
    char name[64];
    snprintf(name, sizeof name, "Literal[int](%lld)", (long long)value);
    Const *k = xmalloc(sizeof *k);
    *k = (Const){.kind = K_INT, .i = value};
    Type proto = {.kind = TY_INT64, .name = name};
    proto.literal = k;
    Type *t = intern(name, &proto);
    if (t->literal != k)
        free(k);   /* it was already there */
    return t;
}

Type *ty_str_literal(const char *text)
{
    Const k = {.kind = K_STR, .s = text};
    return ty_literal(TY_STRING, &k);
}

const Const *ty_literal_value(const Type *t)
{
    if (!t || !((t->kind == TY_INT64 && !t->weak) || t->kind == TY_BOOL || t->kind == TY_STRING))
        return NULL;
    return t->literal;
}

Type *ty_unliteral(Type *t)
{
    return t && (t->kind == TY_INT64 || t->kind == TY_BOOL) && !t->weak && t->literal
           ? ty_scalar(t->kind) : t;
}

Type *ty_list(Type *item)
{
    Type proto = {.kind = TY_LIST};
    proto.list.item = ty_strong(item);
    return intern_named(&proto, "list(%s)", item ? proto.list.item->name : "undetermined");
}

Type *ty_typed_list(Type *item)
{
    Type proto = {.kind = TY_LIST};
    proto.list.item = ty_strong(item);
    proto.list.typed = true;
    return intern_named(&proto, "typed_list(%s)", item ? proto.list.item->name : "undetermined");
}

Type *ty_list_like(const Type *list, Type *item)
{
    return list->list.typed ? ty_typed_list(item) : ty_list(item);
}

Type *ty_dict(Type *key, Type *value)
{
    Type proto = {.kind = TY_DICT};
    proto.dict.key = key && value ? ty_strong(key) : NULL;
    proto.dict.value = key && value ? ty_strong(value) : NULL;
    if (!proto.dict.key)
        return intern_named(&proto, "dict(undetermined)");
    return intern_named(&proto, "dict(%s, %s)", proto.dict.key->name, proto.dict.value->name);
}

Type *ty_set(Type *item)
{
    Type proto = {.kind = TY_SET};
    proto.set.item = ty_strong(item);
    return intern_named(&proto, "set(%s)", item ? proto.set.item->name : "undetermined");
}

Type *ty_str(void)
{
    Type proto = {.kind = TY_STR};
    return intern_named(&proto, "str");
}

Type *ty_rng(void)
{
    Type proto = {.kind = TY_RNG};
    return intern_named(&proto, "Generator");
}

Type *ty_caught(void)
{
    Type proto = {.kind = TY_CAUGHT};
    return intern_named(&proto, "caught exception");
}

Type *ty_cpointer(Type *item)
{
    Type proto = {.kind = TY_CPOINTER};
    proto.cpointer.item = item ? ty_strong(item) : NULL;
    if (!item)
        return intern_named(&proto, "voidptr");
    return intern_named(&proto, "cpointer(%s)", proto.cpointer.item->name);
}

Type *ty_optional(Type *value)
{
    value = ty_strong(value);
    if (!value || value->kind == TY_NONE || value->kind == TY_OPTIONAL)
        return value;
    Type proto = {.kind = TY_OPTIONAL};
    proto.optional.value = value;
    return intern_named(&proto, "optional(%s)", value->name);
}

Type *ty_charseq(int n)
{
    Type proto = {.kind = TY_CHARSEQ};
    proto.charseq.n = n;
    return intern_named(&proto, "unicode_charseq(%d)", n);
}

Type *ty_element(Type *dt)
{
    return dt && dt->kind == TY_CHARSEQ ? ty_str() : dt;
}

Type *ty_dtype(Type *scalar)
{
    Type proto = {.kind = TY_DTYPE};
    proto.dtype.scalar = ty_strong(scalar);
    return intern_named(&proto, "dtype(%s)", proto.dtype.scalar->name);
}

static const char *literal_kind_name(TypeKind kind)
{
    switch (kind) {
    case TY_STRING: return "string";
    case TY_MODULE: return "module";
    case TY_FUNCTION: return "function";
    case TY_DISPATCHER: return "dispatcher";
    case TY_EXCCLASS: return "exception class";
    case TY_NTCLASS: return "namedtuple class";
    case TY_EXCEPTION: return "exception";
    default: return "literal";
    }
}

/* Literal types outlive the compilation whose Const made them, so each holds its own copy of
 * the Const (kind, name, string, handle), and two Consts that say the same thing share a type:
 * a Const freed with its arena, its address then reused, can never be mistaken for another. */
static Const *copy_literal(const Const *value)
{
    Const *copy = xmalloc(sizeof *copy);
    copy->kind = value->kind;
    copy->name = value->name ? xstrdup(value->name) : NULL;
    copy->handle = value->handle;
    copy->overloaded = value->overloaded;
    copy->data = value->data;   /* K_CFUNC: the address */
    copy->c_abi = value->c_abi; /* K_CFUNC: a declared device function's ABI */
    copy->device_only = value->device_only;   /* K_DISPATCHER: as the handle is (in the key) */
    copy->gpu_kernel = value->gpu_kernel;
    if ((value->kind == K_STR || value->kind == K_CFUNC || value->kind == K_OBJMODE) && value->s)
        copy->s = xstrdup(value->s);
    return copy;
}

static void free_literal(Const *copy)
{
    free((char *)copy->name);
    if (copy->kind == K_STR || copy->kind == K_CFUNC || copy->kind == K_OBJMODE)
        free((char *)copy->s);
    free(copy);
}

Type *ty_literal(TypeKind kind, const Const *value)
{
    if (!value)
        return NULL;
    const char *what = value->kind == K_STR ? value->s : value->name;
    Buf key = {0};
    /* a string is its text, wherever it came from (a constant, an argument compiled for it) */
    buf_add(&key, "%s|%d|%p|%d|%s", literal_kind_name(kind), (int)value->kind,
            value->kind == K_STR ? NULL : value->handle, (int)value->overloaded, what ? what : "");
    Buf name = {0};
    buf_add(&name, "%s(%s)", literal_kind_name(kind), what ? what : "");
    Const *copy = copy_literal(value);
    Type proto = {.kind = kind, .name = name.s};
    proto.literal = copy;
    Type *t = intern(key.s, &proto);
    if (t->literal != copy)
        free_literal(copy);   /* it was already there */
    free(key.s);
    free(name.s);
    return t;
}

Type *ty_method(Type *self, const char *name)
{
    Type proto = {.kind = TY_BOUND_METHOD};
    char *copy = xstrdup(name);
    proto.method.self = self;
    proto.method.name = copy;
    Type *t = intern_named(&proto, "method %s.%s", self->name, name);
    if (t->method.name != copy)
        free(copy);   /* it was already there */
    return t;
}

Type *ty_function_type(Type *ret, Type **args, int n)
{
    Buf b = {0};
    buf_add(&b, "function_type(%s(", ret->name);
    for (int i = 0; i < n; i++)
        buf_add(&b, "%s%s", i ? ", " : "", args[i]->name);
    buf_add(&b, "))");
    Type proto = {.kind = TY_FUNCPTR, .name = b.s};
    proto.fn.ret = ret;
    proto.fn.n = n;
    proto.fn.args = xmalloc(sizeof(Type *) * (size_t)(n ? n : 1));
    memcpy(proto.fn.args, args, sizeof(Type *) * (size_t)n);
    Type *t = intern(b.s, &proto);
    if (t->fn.args != proto.fn.args)
        free(proto.fn.args);   /* it was already there */
    free(b.s);
    return t;
}

Type *ty_undefined(void)
{
    Type proto = {.kind = TY_UNDEFINED, .name = "undefined"};
    return intern("undefined", &proto);
}

static int class_count;   /* under table_lock */

Type *ty_class(const void *cls, const char *cls_name, const char *const *fields, Type **types, int n)
{
    Type proto = {.kind = TY_CLASS};
    proto.klass.cls = cls;
    proto.klass.cls_name = xstrdup(cls_name);
    proto.klass.fields = xmalloc(sizeof(char *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        proto.klass.fields[i] = xstrdup(fields[i]);
    proto.klass.data = ty_tuple(types, n);
    pthread_mutex_lock(&table_lock);
    int id = ++class_count;
    pthread_mutex_unlock(&table_lock);
    return intern_named(&proto, "instance(%s@%d)", cls_name, id);
}

int ty_class_field(const Type *t, const char *name)
{
    if (!t || t->kind != TY_CLASS)
        return -1;
    for (int i = 0; i < t->klass.data->tuple.n; i++)
        if (strcmp(t->klass.fields[i], name) == 0)
            return i;
    return -1;
}

static void record_field_name(Buf *b, const RecordField *f)
{
    buf_add(b, "%s:%s", f->name, f->type->name);
    for (int d = 0; d < f->ndim; d++)
        buf_add(b, "%s%lld", d ? "," : "[", (long long)f->shape[d]);
    buf_add(b, "%s@%lld", f->ndim ? "]" : "", (long long)f->offset);
}

Type *ty_record(const RecordField *fields, int n, int64_t size, bool aligned)
{
    for (int i = 0; i < n; i++)
        if (!fields[i].type || !(ty_is_scalar(fields[i].type) || fields[i].type->kind == TY_RECORD ||
                                 ty_is_datetime(fields[i].type)) ||
            fields[i].ndim < 0 || fields[i].ndim > TY_RECORD_MAX_NDIM)
            return NULL;
    Buf b = {0};
    buf_add(&b, "record(");
    for (int i = 0; i < n; i++) {
        record_field_name(&b, &fields[i]);
        buf_add(&b, ", ");
    }
    buf_add(&b, "size=%lld%s)", (long long)size, aligned ? ", aligned" : "");
    Type proto = {.kind = TY_RECORD, .name = b.s};
    proto.record.n = n;
    proto.record.size = size;
    proto.record.aligned = aligned;
    RecordField *copy = xmalloc(sizeof *copy * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        copy[i] = fields[i];
        copy[i].name = xstrdup(fields[i].name);
        copy[i].type = ty_strong(fields[i].type);
    }
    proto.record.fields = copy;
    Type *t = intern(b.s, &proto);
    if (t->record.fields != copy) {   /* it was already there */
        for (int i = 0; i < n; i++)
            free((char *)copy[i].name);
        free(copy);
    }
    free(b.s);
    return t;
}

int ty_record_field(const Type *t, const char *name)
{
    if (!t || t->kind != TY_RECORD)
        return -1;
    for (int i = 0; i < t->record.n; i++)
        if (strcmp(t->record.fields[i].name, name) == 0)
            return i;
    return -1;
}

static const char *const unit_names[] = {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", ""};

const char *ty_unit_name(DateUnit unit)
{
    return unit_names[unit];
}

bool ty_is_datetime(const Type *t)
{
    return t && (t->kind == TY_DATETIME || t->kind == TY_TIMEDELTA);
}

static bool nonlinear(DateUnit u)
{
    return u == DT_Y || u == DT_M;
}

int ty_common_unit(const Type *a, const Type *b)
{
    const Type *ts[2] = {a->kind == TY_ARRAY ? a->array.dtype : a, b->kind == TY_ARRAY ? b->array.dtype : b};
    int unit = -1;
    for (int k = 0; k < 2; k++)
        if (ty_is_datetime(ts[k]) && ts[k]->datetime.unit != DT_GENERIC && (int)ts[k]->datetime.unit > unit)
            unit = ts[k]->datetime.unit;
    if (unit < 0)
        return DT_GENERIC;
    for (int k = 0; k < 2; k++)
        if (ts[k]->kind == TY_TIMEDELTA && nonlinear(ts[k]->datetime.unit) && !nonlinear((DateUnit)unit))
            return -1;
    return unit;
}

Type *ty_datetime(TypeKind kind, DateUnit unit)
{
    if ((kind != TY_DATETIME && kind != TY_TIMEDELTA) || unit < DT_Y || unit > DT_GENERIC)
        return NULL;
    Type proto = {.kind = kind};
    proto.datetime.unit = unit;
    const char *base = kind == TY_DATETIME ? "datetime64" : "timedelta64";
    if (unit == DT_GENERIC)
        return intern_named(&proto, "%s", base);
    return intern_named(&proto, "%s[%s]", base, unit_names[unit]);
}

/* The jitclass type interned under name, or NULL. */
static Type *find_class(const char *name)
{
    unsigned h = hash_key(name) % TABLE_SIZE;
    pthread_mutex_lock(&table_lock);
    Entry *e = table[h];
    while (e && strcmp(e->key, name) != 0)
        e = e->next;
    Type *t = e && e->type->kind == TY_CLASS ? e->type : NULL;
    pthread_mutex_unlock(&table_lock);
    return t;
}

/* A namedtuple type already interned (a value of it was typed) under its printed name, which
 * starts at name and ends at its closing parenthesis: a class of its name, fields and items
 * (a second class of one name prints as Point#2, name_class). None found: NULL. */
static Type *find_named_tuple(const char **p)
{
    const char *end = *p;
    int depth = 0;
    for (; *end; end++) {
        depth += *end == '(' ? 1 : *end == ')' ? -1 : 0;
        if (*end == ')' && depth == 0)
            break;
    }
    if (!*end)
        return NULL;
    size_t len = (size_t)(end - *p + 1);
    Type *t = NULL;
    int found = 0;
    pthread_mutex_lock(&table_lock);
    for (int h = 0; h < TABLE_SIZE; h++)
        for (Entry *e = table[h]; e; e = e->next)
            if (e->type->kind == TY_TUPLE && e->type->tuple.cls &&
                strncmp(e->type->name, *p, len) == 0 && e->type->name[len] == 0) {
                t = e->type;
                found++;
            }
    pthread_mutex_unlock(&table_lock);
    if (found != 1)
        return NULL;
    *p = end + 1;
    return t;
}

/* ---- parsing canonical names ------------------------------------------------------------- */

static void skip_space(const char **p)
{
    while (isspace((unsigned char)**p))
        (*p)++;
}

static bool eat(const char **p, const char *word)
{
    skip_space(p);
    size_t n = strlen(word);
    if (strncmp(*p, word, n) != 0)
        return false;
    *p += n;
    return true;
}

static Type *parse_type(const char **p, int depth);

static Type *parse_array(const char **p, int depth)
{
    Type *dtype = parse_type(p, depth + 1);
    if (!dtype || !(ty_is_scalar(dtype) || dtype->kind == TY_RECORD || ty_is_datetime(dtype)) ||
        !eat(p, ","))
        return NULL;
    skip_space(p);
    char *end;
    long ndim = strtol(*p, &end, 10);
    if (end == *p || *end != 'd' || ndim < 0 || ndim > 32)
        return NULL;
    *p = end + 1;
    if (!eat(p, ","))
        return NULL;
    skip_space(p);
    char layout = **p;
    if (layout != 'C' && layout != 'F' && layout != 'A')
        return NULL;
    (*p)++;
    bool readonly = false;
    if (eat(p, ",")) {
        if (!eat(p, "readonly"))
            return NULL;
        readonly = true;
    }
    if (!eat(p, ")"))
        return NULL;
    return ty_array(dtype, (int)ndim, layout, readonly);
}

static Type *parse_tuple(const char **p, int depth)
{
    Type *items[64];
    int n = 0;
    if (eat(p, ")"))
        return ty_tuple(items, 0);
    for (;;) {
        if (n == 64)
            return NULL;
        Type *item = parse_type(p, depth + 1);
        if (!item)
            return NULL;
        items[n++] = item;
        if (eat(p, ")"))
            return ty_tuple(items, n);
        if (!eat(p, ","))
            return NULL;
    }
}

/* A field name of a record: letters, digits and underscores. */
static bool parse_field_name(const char **p, char *name, size_t cap)
{
    skip_space(p);
    size_t n = 0;
    while (isalnum((unsigned char)(*p)[n]) || (*p)[n] == '_')
        n++;
    if (n == 0 || n >= cap)
        return false;
    memcpy(name, *p, n);
    name[n] = 0;
    *p += n;
    return true;
}

static bool parse_int(const char **p, int64_t *v)
{
    skip_space(p);
    char *end;
    long long x = strtoll(*p, &end, 10);
    if (end == *p || x < 0)
        return false;
    *v = x;
    *p = end;
    return true;
}

/* name:type[shape]@offset, one field of a record. */
static bool parse_record_field(const char **p, int depth, RecordField *f, char *name, size_t cap)
{
    if (!parse_field_name(p, name, cap) || !eat(p, ":") || !(f->type = parse_type(p, depth + 1)))
        return false;
    f->name = name;
    f->ndim = 0;
    if (eat(p, "["))
        do {
            if (f->ndim == TY_RECORD_MAX_NDIM || !parse_int(p, &f->shape[f->ndim++]))
                return false;
        } while (eat(p, ","));
    return (f->ndim == 0 || eat(p, "]")) && eat(p, "@") && parse_int(p, &f->offset);
}

/* record(fields..., size=N[, aligned]), after its opening parenthesis. */
static Type *parse_record(const char **p, int depth)
{
    enum { MAX_FIELDS = 256, NAME = 64 };
    RecordField *fields = xmalloc(sizeof *fields * MAX_FIELDS);   /* nested records recurse */
    char *names = xmalloc(MAX_FIELDS * NAME);
    Type *t = NULL;
    int n = 0;
    int64_t size;
    while (!eat(p, "size=")) {
        if (n == MAX_FIELDS || !parse_record_field(p, depth, &fields[n], names + n * NAME, NAME) ||
            !eat(p, ","))
            goto done;
        n++;
    }
    if (!parse_int(p, &size))
        goto done;
    bool aligned = eat(p, ",") && eat(p, "aligned");
    t = eat(p, ")") ? ty_record(fields, n, size, aligned) : NULL;
done:
    free(fields);
    free(names);
    return t;
}

/* function_type(ret(args...)), after its opening parenthesis. */
static Type *parse_function_type(const char **p, int depth)
{
    Type *ret = parse_type(p, depth + 1), *args[64];
    int n = 0;
    if (!ret || !eat(p, "("))
        return NULL;
    if (!eat(p, ")"))
        for (;;) {
            if (n == 64 || !(args[n++] = parse_type(p, depth + 1)))
                return NULL;
            if (eat(p, ")"))
                break;
            if (!eat(p, ","))
                return NULL;
        }
    return eat(p, ")") ? ty_function_type(ret, args, n) : NULL;
}

/* datetime64[unit] or timedelta64[unit] (or timedelta64), after its name's first word. */
static Type *parse_datetime(const char **p, TypeKind kind)
{
    if (!eat(p, "["))
        return ty_datetime(kind, DT_GENERIC);
    for (int u = DT_ns; u >= DT_Y; u--)   /* "ms" before "m" */
        if (strncmp(*p, unit_names[u], strlen(unit_names[u])) == 0 &&
            (*p)[strlen(unit_names[u])] == ']') {
            *p += strlen(unit_names[u]) + 1;
            return ty_datetime(kind, (DateUnit)u);
        }
    return NULL;
}

/* Reads one type at *p and advances past it. Longer names are tried first (int16 before int1). */
/* Literal[int](-3), Literal[bool](True): the types of ints and bools keyed by value, as
 * ty_int_literal and ty_bool_literal name them. */
static Type *parse_literal(const char **p)
{
    if (eat(p, "bool](True)"))
        return ty_bool_literal(true);
    if (eat(p, "bool](False)"))
        return ty_bool_literal(false);
    if (!eat(p, "int]("))
        return NULL;
    char *end;
    errno = 0;
    long long v = strtoll(*p, &end, 10);
    if (end == *p || errno || *end != ')')
        return NULL;
    *p = end + 1;
    return ty_int_literal(v);
}

static Type *parse_type(const char **p, int depth)
{
    if (depth > 32)
        return NULL;
    skip_space(p);
    if (eat(p, "array("))
        return parse_array(p, depth);
    if (eat(p, "Literal["))
        return parse_literal(p);
    if (eat(p, "tuple("))
        return parse_tuple(p, depth);
    if (eat(p, "list(")) {
        Type *item = parse_type(p, depth + 1);
        return item && eat(p, ")") ? ty_list(item) : NULL;
    }
    if (eat(p, "typed_list(")) {
        Type *item = parse_type(p, depth + 1);
        return item && eat(p, ")") ? ty_typed_list(item) : NULL;
    }
    if (eat(p, "set(")) {
        Type *item = parse_type(p, depth + 1);
        return item && eat(p, ")") ? ty_set(item) : NULL;
    }
    if (strncmp(*p, "instance(", 9) == 0) {
        const char *end = strchr(*p, ')');
        char name[256];
        if (!end || end - *p + 2 > (long)sizeof name)
            return NULL;
        memcpy(name, *p, (size_t)(end - *p + 1));
        name[end - *p + 1] = 0;
        *p = end + 1;
        return find_class(name);
    }
    if (eat(p, "cpointer(")) {
        Type *item = parse_type(p, depth + 1);
        bool ok = item && (ty_is_scalar(item) || item->kind == TY_RECORD);   /* C structs too */
        return ok && eat(p, ")") ? ty_cpointer(item) : NULL;
    }
    if (eat(p, "function_type("))
        return parse_function_type(p, depth);
    if (eat(p, "record("))
        return parse_record(p, depth);
    if (eat(p, "dtype(")) {   /* a dtype value (np.dtype('f4'), a.dtype) */
        Type *item = parse_type(p, depth + 1);
        return item && ty_is_scalar(item) && eat(p, ")") ? ty_dtype(item) : NULL;
    }
    if (eat(p, "optional(")) {   /* a cached version's return type */
        Type *value = parse_type(p, depth + 1);
        return value && eat(p, ")") ? ty_optional(value) : NULL;
    }
    if (eat(p, "dict(")) {
        Type *key = parse_type(p, depth + 1);
        if (!key || !eat(p, ","))
            return NULL;
        Type *value = parse_type(p, depth + 1);
        return value && eat(p, ")") ? ty_dict(key, value) : NULL;
    }
    size_t n = 0;
    while (isalnum((unsigned char)(*p)[n]) || (*p)[n] == '_' || (*p)[n] == '#')
        n++;
    if (n && (*p)[n] == '(') {   /* Point(x=float64, y=float64), Point#2(...): a namedtuple seen */
        Type *named = find_named_tuple(p);
        if (named)
            return named;
    }
    char word[32];
    if (n == 0 || n >= sizeof word)
        return NULL;
    memcpy(word, *p, n);
    word[n] = 0;
    *p += n;
    for (int k = 0; k <= TY_COMPLEX128; k++)
        if (strcmp(word, scalar_names[k]) == 0)
            return ty_scalar(k);
    if (strcmp(word, "none") == 0)
        return ty_scalar(TY_NONE);
    if (strcmp(word, "range") == 0)
        return ty_scalar(TY_RANGE);
    if (strcmp(word, "slice") == 0)
        return ty_scalar(TY_SLICE);
    if (strcmp(word, "str") == 0)
        return ty_str();
    if (strcmp(word, "Generator") == 0)
        return ty_rng();
    if (strcmp(word, "voidptr") == 0)
        return ty_cpointer(NULL);
    if (strcmp(word, "datetime64") == 0 || strcmp(word, "timedelta64") == 0)
        return parse_datetime(p, word[0] == 'd' ? TY_DATETIME : TY_TIMEDELTA);
    return NULL;
}

Type *ty_parse(const char *name)
{
    if (!name)
        return NULL;
    const char *p = name;
    Type *t = parse_type(&p, 0);
    skip_space(&p);
    return t && *p == 0 ? t : NULL;
}

/* ---- predicates and sizes ---------------------------------------------------------------- */

bool ty_is_scalar(const Type *t) { return t && t->kind <= TY_COMPLEX128; }
bool ty_is_container(const Type *t)
{
    return t && (t->kind == TY_LIST || t->kind == TY_DICT || t->kind == TY_SET || t->kind == TY_STR);
}
bool ty_holds_meminfo(const Type *t)
{
    return t && (t->kind == TY_ARRAY || t->kind == TY_CLASS || t->kind == TY_RNG ||
                 t->kind == TY_RECORD || ty_is_container(t));
}
bool ty_is_iterator(const Type *t)
{
    return t && (t->kind == TY_ITER || t->kind == TY_NDITER);
}
bool ty_is_undetermined(const Type *t)
{
    return t && ((t->kind == TY_LIST && !t->list.item) || (t->kind == TY_DICT && !t->dict.key) ||
                 (t->kind == TY_SET && !t->set.item));
}
bool ty_is_int(const Type *t) { return t && t->kind >= TY_INT8 && t->kind <= TY_UINT64; }
bool ty_is_signed(const Type *t) { return t && t->kind >= TY_INT8 && t->kind <= TY_INT64; }
bool ty_is_float(const Type *t) { return t && t->kind >= TY_FLOAT16 && t->kind <= TY_FLOAT64; }
bool ty_is_complex(const Type *t) { return t && (t->kind == TY_COMPLEX64 || t->kind == TY_COMPLEX128); }

int ty_bits(const Type *t)
{
    static const int bits[] = {8, 8, 16, 32, 64, 8, 16, 32, 64, 16, 32, 64, 64, 128};
    return ty_is_scalar(t) ? bits[t->kind] : 0;
}

int ty_itemsize(const Type *t)
{
    if (t && t->kind == TY_RECORD)
        return (int)t->record.size;
    if (t && t->kind == TY_CHARSEQ)
        return 4 * t->charseq.n;
    return ty_is_datetime(t) ? 8 : ty_bits(t) / 8;
}

const char *ty_numpy_char(const Type *t)
{
    static const char *const chars[] = {"?", "b", "h", "i", "l", "B", "H", "I", "L",
                                        "e", "f", "d", "F", "D"};
    return ty_is_scalar(t) ? chars[t->kind] : NULL;
}

int64_t ty_mem_size(const Type *t)
{
    if (!t)
        return 0;
    if (ty_is_scalar(t))
        return ty_itemsize(t);
    switch (t->kind) {
    case TY_ARRAY:
        return 3 * 8 + 16 * (int64_t)t->array.ndim;   /* meminfo, parent, data, shape, strides */
    case TY_TUPLE:
        return t->tuple.size;
    case TY_LIST:
    case TY_DICT:
    case TY_SET:
    case TY_STR:
    case TY_CLASS:
    case TY_RNG:
        return 8;                                      /* its MemInfo */
    case TY_FUNCPTR:
        return 8;                                      /* the function's address */
    case TY_RANGE:
    case TY_SLICE:
        return 24;                                     /* start, stop, step as int64 */
    case TY_CPOINTER:
    case TY_DATETIME:
    case TY_TIMEDELTA:
        return 8;
    case TY_RECORD:                                    /* its array's MemInfo, its address */
        return 16;
    case TY_OPTIONAL: {                                /* {present, value}, as a C struct */
        int64_t a = ty_mem_align(t->optional.value);
        return (a + ty_mem_size(t->optional.value) + a - 1) / a * a;
    }
    default:
        return 0;
    }
}

int ty_mem_align(const Type *t)
{
    if (!t)
        return 1;
    if (ty_is_complex(t))
        return ty_itemsize(t) / 2;
    if (ty_is_scalar(t))
        return ty_itemsize(t);
    switch (t->kind) {
    case TY_ARRAY:
    case TY_LIST:
    case TY_DICT:
    case TY_SET:
    case TY_STR:
    case TY_CLASS:
    case TY_RNG:
    case TY_RANGE:
    case TY_SLICE:
    case TY_CPOINTER:
    case TY_FUNCPTR:
    case TY_RECORD:
    case TY_DATETIME:
    case TY_TIMEDELTA:
        return 8;
    case TY_TUPLE:
        return t->tuple.align;
    case TY_OPTIONAL:
        return ty_mem_align(t->optional.value);
    default:
        return 1;
    }
}

void ty_table_layout(const Type *t, int64_t *valoff, int64_t *entrysize)
{
    const Type *key = t->kind == TY_DICT ? t->dict.key : t->set.item;
    const Type *value = t->kind == TY_DICT ? t->dict.value : NULL;
    int64_t align = value ? ty_mem_align(value) : 8, after_key = 8 + ty_mem_size(key);
    *valoff = (after_key + align - 1) / align * align;
    int64_t end = *valoff + (value ? ty_mem_size(value) : 0);
    *entrysize = (end + 7) / 8 * 8;
}

int ty_table_refs(const Type *t, int32_t *refs, int max)
{
    int64_t valoff, size;
    ty_table_layout(t, &valoff, &size);
    int n = ty_ref_offsets(t->kind == TY_DICT ? t->dict.key : t->set.item, 8, refs, 0, max);
    return t->kind == TY_DICT ? ty_ref_offsets(t->dict.value, (int32_t)valoff, refs, n, max) : n;
}

int ty_ref_offsets(const Type *t, int32_t base, int32_t *refs, int n, int max)
{
    if (n < 0)
        return n;
    if (ty_holds_meminfo(t)) {
        if (n == max)
            return -1;
        refs[n] = base;
        return n + 1;
    }
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->tuple.n; i++)
            n = ty_ref_offsets(t->tuple.items[i], base + (int32_t)ty_tuple_offset(t, i), refs, n, max);
    if (t->kind == TY_OPTIONAL)   /* the value after the flag; NULL when absent */
        n = ty_ref_offsets(t->optional.value, base + ty_mem_align(t->optional.value), refs, n, max);
    return n;
}

int64_t ty_tuple_offset(const Type *t, int i)
{
    if (!t || t->kind != TY_TUPLE || i < 0 || i >= t->tuple.n)
        return -1;
    int64_t off = 0;
    for (int k = 0; k <= i; k++) {
        int64_t align = ty_mem_align(t->tuple.items[k]);
        off = (off + align - 1) / align * align;
        if (k < i)
            off += ty_mem_size(t->tuple.items[k]);
    }
    return off;
}

/* ---- promotion --------------------------------------------------------------------------- */

/* The smallest float kind that holds every value of an integer kind (NumPy's rule). */
static TypeKind float_for_int(TypeKind k)
{
    int bits = ty_bits(ty_scalar(k));
    return bits <= 8 ? TY_FLOAT16 : bits <= 16 ? TY_FLOAT32 : TY_FLOAT64;
}

static TypeKind max_kind(TypeKind a, TypeKind b)
{
    return a > b ? a : b;
}

static TypeKind complex_for_float(TypeKind f)
{
    return f == TY_FLOAT64 ? TY_COMPLEX128 : TY_COMPLEX64;
}

static TypeKind float_of_complex(TypeKind c)
{
    return c == TY_COMPLEX128 ? TY_FLOAT64 : TY_FLOAT32;
}

/* Promotion of two strong scalar kinds, as numpy.result_type. */
static TypeKind promote_strong(TypeKind a, TypeKind b)
{
    if (a > b) {
        TypeKind t = a;
        a = b;
        b = t;
    }
    /* Now a <= b in the enum order: bool < signed < unsigned < float < complex. */
    if (a == TY_BOOL || a == b)
        return b;
    bool a_signed = a <= TY_INT64, b_unsigned = b >= TY_UINT8 && b <= TY_UINT64;
    if (b <= TY_INT64 || (a >= TY_UINT8 && b <= TY_UINT64))
        return b;                                     /* same signedness: the wider */
    if (a_signed && b_unsigned) {
        int sbits = ty_bits(ty_scalar(a)), ubits = ty_bits(ty_scalar(b));
        if (ubits < sbits)
            return a;
        return ubits == 8 ? TY_INT16 : ubits == 16 ? TY_INT32 : ubits == 32 ? TY_INT64 : TY_FLOAT64;
    }
    if (a <= TY_UINT64 && b <= TY_FLOAT64)            /* int and float */
        return max_kind(b, float_for_int(a));
    if (a <= TY_UINT64)                               /* int and complex */
        return complex_for_float(max_kind(float_of_complex(b), float_for_int(a)));
    if (b <= TY_FLOAT64)                              /* two floats */
        return b;
    if (a <= TY_FLOAT64)                              /* float and complex */
        return complex_for_float(max_kind(a, float_of_complex(b)));
    return b;
}

/* A weak (Python literal) kind meeting a strong kind (NEP 50). */
static TypeKind promote_weak(TypeKind weak, TypeKind strong)
{
    if (weak == TY_BOOL)
        return strong;
    if (weak <= TY_UINT64)                            /* Python int */
        return strong == TY_BOOL ? TY_INT64 : strong;
    if (weak <= TY_FLOAT64) {                         /* Python float */
        if (strong <= TY_UINT64)
            return TY_FLOAT64;
        return strong;
    }
    if (strong <= TY_UINT64)                          /* Python complex */
        return TY_COMPLEX128;
    if (strong <= TY_FLOAT64)
        return strong == TY_FLOAT64 ? TY_COMPLEX128 : TY_COMPLEX64;
    return strong;
}

Type *ty_promote(Type *a, Type *b)
{
    if (!ty_is_scalar(a) || !ty_is_scalar(b))
        return NULL;
    if (a->weak && b->weak)
        return ty_weak(ty_scalar(promote_strong(a->kind, b->kind)));
    if (a->weak)
        return ty_scalar(promote_weak(a->kind, b->kind));
    if (b->weak)
        return ty_scalar(promote_weak(b->kind, a->kind));
    return ty_scalar(promote_strong(a->kind, b->kind));
}

Type *ty_unify(Type *a, Type *b)
{
    if (!a || !b)
        return NULL;
    if (a == b)
        return a;
    if (ty_is_scalar(a) && ty_is_scalar(b))
        return ty_promote(a, b);
    if (a->kind == TY_ARRAY && b->kind == TY_ARRAY) {
        if (a->array.dtype != b->array.dtype || a->array.ndim != b->array.ndim)
            return NULL;
        char layout = a->array.layout == b->array.layout ? a->array.layout : 'A';
        return ty_array(a->array.dtype, a->array.ndim, layout,
                        a->array.readonly || b->array.readonly);
    }
    if (a->kind == TY_TUPLE && b->kind == TY_TUPLE && a->tuple.n == b->tuple.n &&
        a->tuple.cls == b->tuple.cls) {
        Type *items[64];
        if (a->tuple.n > 64)
            return NULL;
        for (int i = 0; i < a->tuple.n; i++) {
            items[i] = ty_strong(ty_unify(a->tuple.items[i], b->tuple.items[i]));
            if (!items[i])
                return NULL;
        }
        return a->tuple.cls ? ty_namedtuple(a->tuple.cls, a->tuple.cls_name,
                                            (const char *const *)a->tuple.fields, items, a->tuple.n)
                            : ty_tuple(items, a->tuple.n);
    }
    if (a->kind == TY_LIST && b->kind == TY_LIST && a->list.typed != b->list.typed)
        return NULL;   /* a typed list is not a reflected one (Numba's ListType and List) */
    if (a->kind == b->kind && ty_is_undetermined(a))   /* items are not converted in place */
        return b;
    if (a->kind == b->kind && ty_is_undetermined(b))
        return a;
    bool text_a = a->kind == TY_STR || a->kind == TY_STRING, text_b = b->kind == TY_STR || b->kind == TY_STRING;
    if (text_a && text_b)   /* two constants, or a constant and a run-time string: a run-time one */
        return ty_str();
    if (a->kind == TY_ITER && b->kind == TY_ITER) {
        Type *over = ty_unify(a->iter.over, b->iter.over);
        return over ? ty_iter(over) : NULL;
    }
    return NULL;
}
