/* ir_read.c: reads back what ir_dump prints (untyped or typed), so a stage's C tests can be
 * written as IR text and ir_dump(ir_read(ir_dump(f))) gives the same text.
 *
 * Two passes over the text: the first makes every block (bN headers, in order), the second one
 * instruction per line, operands kept as value numbers and resolved once all are known (phis
 * and branches refer forward). Types are canonical names (ty_parse) or the names of the
 * compile-time types (module(math), function(math.sqrt), ...), rebuilt from their text.
 * Instructions printed without a value number (br, ret, ...) get fresh ones. A CALL_JIT's callee
 * is a stand-in TypedFunc that has only the callee's name. Plain C: no Python here. */
#include "compiler/compiler.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* Value numbers are ints in the IR; the text may not name one past this (the table of values by
 * number is as large as the largest). */
#define MAX_VALUE_ID (1 << 24)

typedef struct Reader {
    IRFunc *fn;
    Diag *diag;
    int lineno;         /* of the text, for errors */
    const char *p;      /* the rest of the current line */
    Instr **byid;       /* value number -> instruction */
    int nbyid;
    int *pending;       /* per instruction, in order: operand value numbers, -1 separated */
} Reader;

static int read_fail(Reader *r, const char *what)
{
    return diag_error(r->diag, DIAG_VALUE_ERROR, r->fn ? r->fn->qualname : NULL, NULL, 0, -1, -1,
                      "IR text, line %d: %s near '%.40s'", r->lineno, what, r->p ? r->p : "");
}

static bool eat(Reader *r, const char *s)
{
    size_t n = strlen(s);
    if (strncmp(r->p, s, n) != 0)
        return false;
    r->p += n;
    return true;
}

static const char *read_word(Reader *r)
{
    const char *start = r->p;
    while (*r->p && !isspace((unsigned char)*r->p) && *r->p != ',' && *r->p != ')')
        r->p++;
    return arena_printf(r->fn->arena, "%.*s", (int)(r->p - start), start);
}

static bool read_int(Reader *r, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(r->p, &end, 10);
    if (end == r->p || errno)
        return false;
    *out = v;
    r->p = end;
    return true;
}

/* ---- constants, as print_const writes them ---- */

static Const *read_const(Reader *r);

static const char *read_str(Reader *r)
{
    char *out = arena_alloc(r->fn->arena, strlen(r->p) + 1), *o = out;
    if (!eat(r, "'"))
        return NULL;
    while (*r->p && *r->p != '\'') {
        char c = *r->p++;
        if (c == '\\' && *r->p == 'n') {
            c = '\n';
            r->p++;
        } else if (c == '\\' && *r->p == 'x') {   /* exactly two hex digits */
            if (!isxdigit((unsigned char)r->p[1]) || !isxdigit((unsigned char)r->p[2]))
                return NULL;
            c = (char)strtol((char[3]){r->p[1], r->p[2], 0}, NULL, 16);
            r->p += 3;
        } else if (c == '\\' && *r->p) {
            c = *r->p++;
        }
        *o++ = c;
    }
    return eat(r, "'") ? out : NULL;
}

static bool read_number(Reader *r, Const *c)
{
    char *end;
    errno = 0;
    long long i = strtoll(r->p, &end, 10);
    if (end != r->p && !errno && !(*end && strchr(".eE", *end))) {   /* strchr finds the NUL */
        c->kind = K_INT;
        c->i = i;
    } else {
        c->kind = K_FLOAT;
        c->f = strtod(r->p, &end);
    }
    if (end == r->p)
        return false;
    r->p = end;
    return true;
}

/* "(re+imj)" or a tuple "(a, b)", "(a,)", "()". */
static bool read_paren(Reader *r, Const *c)
{
    PtrVec items = {0};
    if (eat(r, ")"))
        goto tuple;
    for (;;) {
        Const *item = read_const(r);
        if (!item)
            return false;
        if (item->kind == K_FLOAT && (*r->p == '+' || *r->p == '-')) {
            double im = strtod(r->p, (char **)&r->p);
            c->kind = K_COMPLEX;
            c->c.re = item->f;
            c->c.im = im;
            return eat(r, "j)");
        }
        vec_push(r->fn->arena, &items, item);
        if (eat(r, ")"))
            goto tuple;
        if (!eat(r, ","))
            return false;
        eat(r, " ");
        if (eat(r, ")"))
            goto tuple;
    }
tuple:
    c->kind = K_TUPLE;
    c->tuple.n = items.len;
    c->tuple.items = (Const **)items.items;
    return true;
}

static Type *read_type_name(Reader *r, const char *name);

/* The text of a type from here: up to the matching ')' of its first '(' or the next space. */
static Type *read_type_token(Reader *r)
{
    const char *start = r->p;
    int depth = 0;
    while (*r->p && (depth > 0 || (!isspace((unsigned char)*r->p) && *r->p != ','))) {
        depth += *r->p == '(' ? 1 : *r->p == ')' ? -1 : 0;
        r->p++;
    }
    return read_type_name(r, arena_printf(r->fn->arena, "%.*s", (int)(r->p - start), start));
}

static const struct { const char *word; ConstKind kind; } named_consts[] = {
    {"module ", K_MODULE}, {"func ", K_FUNC}, {"dispatcher ", K_DISPATCHER},
    {"exception ", K_EXCCLASS}, {"undefined ", K_UNDEFINED},
};

static Const *read_const(Reader *r)
{
    Const *c = ir_new_const(r->fn, K_NONE);
    if (eat(r, "None"))
        return c;
    if (eat(r, "...")) {
        c->kind = K_ELLIPSIS;
        return c;
    }
    if (eat(r, "True") || eat(r, "False")) {
        c->kind = K_BOOL;
        c->b = r->p[-1] == 'e' && r->p[-2] == 'u';
        return c;
    }
    if (*r->p == '\'') {
        c->kind = K_STR;
        return (c->s = read_str(r)) ? c : NULL;
    }
    if (eat(r, "("))
        return read_paren(r, c) ? c : NULL;
    for (size_t i = 0; i < sizeof named_consts / sizeof named_consts[0]; i++)
        if (eat(r, named_consts[i].word)) {
            c->kind = named_consts[i].kind;
            c->name = read_word(r);
            if (c->kind == K_UNDEFINED)
                c->s = c->name;
            return c;
        }
    if (eat(r, "array ")) {
        c->kind = K_ARRAY;
        if (!eat(r, "(untyped)") && !(c->array_type = read_type_token(r)))
            return NULL;
        return c;
    }
    if (eat(r, "opaque ")) {   /* a repr: the rest, up to a type if there is one */
        const char *colon = strstr(r->p, " : ");
        size_t n = colon ? (size_t)(colon - r->p) : strlen(r->p);
        c->kind = K_OPAQUE;
        c->name = arena_printf(r->fn->arena, "%.*s", (int)n, r->p);
        r->p += n;
        return c;
    }
    return read_number(r, c) ? c : NULL;
}

/* ---- types ---- */

static const struct { const char *prefix; TypeKind kind; ConstKind ckind; } literal_types[] = {
    {"string(", TY_STRING, K_STR}, {"module(", TY_MODULE, K_MODULE},
    {"function(", TY_FUNCTION, K_FUNC}, {"dispatcher(", TY_DISPATCHER, K_DISPATCHER},
    {"exception class(", TY_EXCCLASS, K_EXCCLASS}, {"exception(", TY_EXCEPTION, K_EXCCLASS},
};

static Type *inner_type(Reader *r, const char *name, size_t skip)
{
    size_t n = strlen(name);
    if (n <= skip || name[n - 1] != ')')
        return NULL;
    return read_type_name(r, arena_printf(r->fn->arena, "%.*s", (int)(n - skip - 1), name + skip));
}

static Type *read_type_name(Reader *r, const char *name)
{
    Type *t = ty_parse(name);
    if (t)
        return t;
    if (strncmp(name, "weak ", 5) == 0)
        return (t = read_type_name(r, name + 5)) ? ty_weak(t) : NULL;
    if (strncmp(name, "iter(", 5) == 0)
        return (t = inner_type(r, name, 5)) ? ty_iter(t) : NULL;
    if (strncmp(name, "dtype(", 6) == 0)
        return (t = inner_type(r, name, 6)) ? ty_dtype(t) : NULL;
    if (strcmp(name, "undefined") == 0)
        return ty_undefined();
    if (strncmp(name, "method ", 7) == 0) {
        const char *dot = strrchr(name, '.');
        Type *self = dot ? read_type_name(r, arena_printf(r->fn->arena, "%.*s",
                                                          (int)(dot - name - 7), name + 7)) : NULL;
        return self ? ty_method(self, dot + 1) : NULL;
    }
    for (size_t i = 0; i < sizeof literal_types / sizeof literal_types[0]; i++) {
        size_t n = strlen(literal_types[i].prefix), len = strlen(name);
        if (strncmp(name, literal_types[i].prefix, n) == 0 && name[len - 1] == ')') {
            Const *c = ir_new_const(r->fn, literal_types[i].ckind);
            c->name = c->s = arena_printf(r->fn->arena, "%.*s", (int)(len - n - 1), name + n);
            return ty_literal(literal_types[i].kind, c);
        }
    }
    return NULL;
}

/* ---- instructions ---- */

static Block *read_block_ref(Reader *r)
{
    int64_t id;
    if (!eat(r, "b") || !read_int(r, &id) || id < 0 || id >= r->fn->blocks.len)
        return NULL;
    return r->fn->blocks.items[id];
}

/* The sub-operation, constant or callee after the opcode's name (print_detail). */
static int read_detail(Reader *r, Instr *in)
{
    const char *w;
    switch (in->op) {
    case OP_ARG: return eat(r, " ") && read_int(r, &in->imm) ? 0 : -1;
    case OP_CONST: return eat(r, " ") && (in->cst = read_const(r)) ? 0 : -1;
    case OP_BINOP:
        w = (eat(r, " "), read_word(r));
        in->imm = w[0] && w[strlen(w) - 1] == '=';
        in->sub = ir_sub_lookup(in->op, arena_printf(r->fn->arena, "%.*s",
                                                     (int)(strlen(w) - (size_t)in->imm), w));
        return in->sub;
    case OP_UNARY:
    case OP_COMPARE:
    case OP_ARRAY_ATTR:
    case OP_OPTIONAL: return (in->sub = (eat(r, " "), ir_sub_lookup(in->op, read_word(r))));
    case OP_INTRINSIC:
        in->sub = (int)ir_builtin_lookup((eat(r, " "), read_word(r)));
        return in->sub == BI__COUNT ? -1 : 0;
    case OP_CALL_JIT: {
        TypedFunc *stub = arena_alloc(r->fn->arena, sizeof *stub);
        stub->ir = arena_alloc(r->fn->arena, sizeof *stub->ir);
        stub->ir->arena = r->fn->arena;
        stub->ir->qualname = stub->ir->name = (eat(r, " "), read_word(r));
        in->callee = stub;
        return 0;
    }
    default: return 0;
    }
}

/* Operands: " %1, k=%2" or a phi's " [b0: %1], [b2: %5]"; value numbers noted for later. */
static int read_operands(Reader *r, Instr *in, PtrVec *ids)
{
    PtrVec kw = {0};
    bool phi = in->op == OP_PHI, first = true;
    while (eat(r, first ? " " : ", ")) {
        const char *save = r->p;
        int64_t id;
        if (phi && !(eat(r, "[") && read_block_ref(r) && eat(r, ": ")))
            return -1;
        const char *eq = strchr(r->p, '=');
        if (!phi && *r->p != '%' && eq) {
            vec_push(r->fn->arena, &kw, arena_printf(r->fn->arena, "%.*s", (int)(eq - r->p), r->p));
            r->p = eq + 1;
        }
        if (!eat(r, "%") || !read_int(r, &id) || (phi && !eat(r, "]"))) {
            r->p = save - (first ? 1 : 2);
            break;
        }
        if (id < 0 || id >= MAX_VALUE_ID)
            return read_fail(r, "operand value number out of range");
        vec_push(r->fn->arena, ids, (void *)(intptr_t)id);
        first = false;
    }
    in->nkw = kw.len;
    in->kwnames = (const char **)kw.items;
    return 0;
}

/* What follows the operands: .attr, [imm], successors, then " : type". */
static int read_tail(Reader *r, Instr *in)
{
    if (in->op == OP_GETATTR && eat(r, " ."))
        in->name = read_word(r);
    if (in->op == OP_STATIC_GETITEM)
        in->imm2 = -1;
    if ((in->op == OP_STATIC_GETITEM || in->op == OP_STATIC_GET) &&
        !(eat(r, " [") && read_int(r, &in->imm) && eat(r, "]")))
        return -1;
    if (eat(r, " of unpack") && !(eat(r, " ") && read_int(r, &in->imm2)))
        in->imm2 = 1;
    if (in->op == OP_BR && !(eat(r, " ") && (in->succ[0] = read_block_ref(r))))
        return -1;
    if ((in->op == OP_CBR || in->op == OP_FOR_ITER) &&
        !(eat(r, " ? ") && (in->succ[0] = read_block_ref(r)) && eat(r, " : ") &&
          (in->succ[1] = read_block_ref(r))))
        return -1;
    if (eat(r, " : ")) {
        if (!(in->type = read_type_name(r, r->p)))
            return -1;
        r->p += strlen(r->p);
    }
    return 0;
}

/* One instruction line, its "; line N, var" comment already cut off into line/var. */
static Instr *read_instr(Reader *r, Block *b, PtrVec *ids)
{
    int64_t id = -1;
    while (*r->p == ' ')
        r->p++;
    if (eat(r, "%") && !(read_int(r, &id) && eat(r, " = ")))
        return NULL;
    if (id >= MAX_VALUE_ID) {
        read_fail(r, "value number too large");
        return NULL;
    }
    const char *name = read_word(r);
    int op = 0;
    while (op < OP__COUNT && strcmp(ir_op_name((Opcode)op), name) != 0)
        op++;
    if (op == OP__COUNT)
        return NULL;
    Instr *in = ir_new_instr(r->fn, (Opcode)op, 0, 0);
    in->id = (int)id;
    in->block = b;
    if (read_detail(r, in) < 0 || read_operands(r, in, ids) < 0 || read_tail(r, in) < 0)
        return NULL;
    return in;
}

static int note_value(Reader *r, Instr *in)
{
    if (in->id < 0)
        return 0;
    if (in->id >= r->nbyid) {
        int n = in->id < MAX_VALUE_ID / 2 ? in->id * 2 + 16 : MAX_VALUE_ID;
        Instr **byid = arena_alloc(r->fn->arena, sizeof *byid * (size_t)n);
        if (r->nbyid)
            memcpy(byid, r->byid, sizeof *byid * (size_t)r->nbyid);
        r->byid = byid;
        r->nbyid = n;
    }
    if (r->byid[in->id])
        return read_fail(r, "value number defined twice");
    r->byid[in->id] = in;
    return 0;
}

/* Cuts "; line N[, var]" off the end of the line. */
static char *cut_comment(Reader *r, char *line, Instr *in_line)
{
    char *c = NULL;
    for (char *s = strstr(line, "; line "); s; s = strstr(s + 1, "; line "))
        c = s;
    if (!c)
        return NULL;
    in_line->line = atoi(c + 7);
    char *comma = strchr(c, ',');
    if (comma)
        in_line->var = arena_strdup(r->fn->arena, comma + 2);
    while (c > line && c[-1] == ' ')
        c--;
    *c = 0;
    return line;
}

static int read_header(Reader *r, const char *line)
{
    IRFunc *fn = r->fn;
    r->p = line;
    if (!eat(r, "function "))
        return read_fail(r, "expected 'function'");
    const char *open = strchr(r->p, '(');
    if (!open)
        return read_fail(r, "expected '('");
    fn->qualname = arena_printf(fn->arena, "%.*s", (int)(open - r->p), r->p);
    const char *dot = strrchr(fn->qualname, '.');
    fn->name = dot ? dot + 1 : fn->qualname;
    r->p = open + 1;
    PtrVec names = {0}, defaults = {0};
    while (*r->p && *r->p != ')') {
        vec_push(fn->arena, &names, (void *)read_word(r));
        eat(r, ", ");
    }
    fn->nargs = names.len;
    fn->argnames = (const char **)names.items;
    if (eat(r, ")  defaults: "))
        do {
            Const *c = read_const(r);
            if (!c)
                return read_fail(r, "bad default");
            vec_push(fn->arena, &defaults, c);
        } while (eat(r, ", "));
    fn->ndefaults = defaults.len;
    fn->defaults = (Const **)defaults.items;
    return 0;
}

static int read_block_header(Reader *r, Block *b)
{
    int64_t off;
    if (!eat(r, ":  ; offset ") || !read_int(r, &off))
        return read_fail(r, "bad block header");
    b->offset = (int)off;
    if (eat(r, ", preds "))
        do {
            Block *pred = read_block_ref(r);
            if (!pred)
                return read_fail(r, "bad predecessor");
            ir_add_pred(r->fn, b, pred);
        } while (eat(r, ", b") && (r->p -= 1));
    if (eat(r, ", handler ") && !(b->handler = read_block_ref(r)))
        return read_fail(r, "bad handler");
    return 0;
}

/* Operands by value number, now that every instruction is known; fresh numbers for the rest. */
static int resolve(Reader *r, PtrVec *all, PtrVec *idlists)
{
    int next = r->nbyid;
    while (next > 0 && !r->byid[next - 1])
        next--;
    for (int i = 0; i < all->len; i++) {
        Instr *in = all->items[i];
        PtrVec *ids = idlists->items[i];
        in->nargs = ids->len;
        in->args = arena_alloc(r->fn->arena, sizeof *in->args * (size_t)(ids->len + 1));
        for (int k = 0; k < ids->len; k++) {
            intptr_t id = (intptr_t)ids->items[k];
            if (id < 0 || id >= r->nbyid || !r->byid[id])
                return diag_error(r->diag, DIAG_VALUE_ERROR, r->fn->qualname, NULL, in->line, -1,
                                  -1, "IR text: %%%d is not defined", (int)id);
            in->args[k] = r->byid[id];
        }
        if (in->id < 0)
            in->id = next++;
    }
    r->fn->next_id = next;
    return 0;
}

static int read_body(Reader *r, char *text)
{
    PtrVec all = {0}, idlists = {0};
    Block *b = NULL;
    bool first = true;
    for (char *line = text, *next; line; line = next, r->lineno++) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (!*line)   /* an empty line (strtok's habit of skipping them, kept) */
            continue;
        r->p = line;
        if (first) {
            if (read_header(r, line) < 0)
                return -1;
            first = false;
        } else if (line[0] == 'b') {
            r->p = line;
            if (!(b = read_block_ref(r)) || read_block_header(r, b) < 0)
                return read_fail(r, "bad block header");
        } else if (line[0] == ' ' && b) {
            Instr probe = {0};
            if (!cut_comment(r, line, &probe))
                return read_fail(r, "no '; line' comment");
            r->p = line;
            PtrVec *ids = arena_alloc(r->fn->arena, sizeof *ids);
            Instr *in = read_instr(r, b, ids);
            if (!in || *r->p)
                return read_fail(r, "cannot read the instruction");
            in->line = probe.line;
            in->var = probe.var;
            ir_append(b, in);
            vec_push(r->fn->arena, &all, in);
            vec_push(r->fn->arena, &idlists, ids);
            if (note_value(r, in) < 0)
                return -1;
        }
    }
    return resolve(r, &all, &idlists);
}

IRFunc *ir_read(Arena *arena, const char *text, Diag *diag)
{
    IRFunc *fn = arena_alloc(arena, sizeof *fn);
    fn->arena = arena;
    fn->filename = "<ir>";
    Reader r = {.fn = fn, .diag = diag, .lineno = 1, .p = ""};
    /* Blocks first, in order, so that branches and phis may name later ones. */
    for (const char *s = text; (s = strstr(s, "\nb")); s++) {
        char *end;
        long id = strtol(s + 2, &end, 10);
        if (end == s + 2 || *end != ':')
            continue;
        if (id != fn->blocks.len) {
            diag_error(diag, DIAG_VALUE_ERROR, NULL, NULL, 0, -1, -1,
                       "IR text: block b%ld out of order", id);
            return NULL;
        }
        ir_new_block(fn, 0);
    }
    char *copy = arena_strdup(arena, text);
    return read_body(&r, copy) < 0 ? NULL : fn;
}
