/* bytecode.c: decodes a code object's co_code for the running CPython (3.11 or 3.12).
 *
 * co_code is the deoptimised bytecode: specialised instructions are shown in their generic form,
 * so one table per version (opcodes_311.def, opcodes_312.def) names every opcode. The table is
 * picked at run time from Py_Version, so one binary is right on either interpreter. Decoding folds
 * EXTENDED_ARG prefixes into the argument, skips inline cache entries, resolves relative jumps to
 * offsets and gives each instruction its source position from co_positions(). It also rejects, up
 * front, what no instruction-level translation could rescue: generators, coroutines, *args,
 * the with statement; and it reads the exception table, which try/except and try/finally leave. */
#include "frontend/fe_internal.h"

#include <stdarg.h>
#include <string.h>

typedef struct OpInfo {
    const char *name;       /* NULL: not an opcode of this version */
    BcOp op;
    unsigned char ncache;
    unsigned char jump;     /* JumpKind */
} OpInfo;

static const OpInfo ops_311[256] = {
#define OPC(name, num, ncache, jump) [num] = {#name, BC_##name, ncache, jump},
#include "frontend/opcodes_311.def"
#undef OPC
};

static const OpInfo ops_312[256] = {
#define OPC(name, num, ncache, jump) [num] = {#name, BC_##name, ncache, jump},
#define OPC_NEW(name, num, ncache, jump) [num] = {#name, BC_##name, ncache, jump},
#include "frontend/opcodes_312.def"
#undef OPC
#undef OPC_NEW
};

enum {
    CO_VARARGS_ = 0x04, CO_VARKEYWORDS_ = 0x08, CO_GENERATOR_ = 0x20, CO_COROUTINE_ = 0x80,
    CO_ITERABLE_COROUTINE_ = 0x100, CO_ASYNC_GENERATOR_ = 0x200,
};

int fe_error(FeCtx *ctx, DiagKind kind, const char *fmt, ...)
{
    char msg[sizeof ctx->diag->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const BcInstr *at = ctx->cur;
    int line = at ? at->line : ctx->fn ? ctx->fn->firstline : 0;
    return diag_error(ctx->diag, kind, ctx->qualname, ctx->filename, line, at ? at->col : -1,
                      at ? at->end_col : -1, "%s", msg);
}

int fe_error_from_python(FeCtx *ctx, const char *what)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    const char *text = NULL;
    PyObject *str = value ? PyObject_Str(value) : NULL;
    if (str)
        text = PyUnicode_AsUTF8(str);
    PyErr_Clear();
    fe_error(ctx, DIAG_INTERNAL, "%s: %s", what, text ? text : "unknown Python error");
    Py_XDECREF(str);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return -1;
}

const char *bc_local_name(FeCtx *ctx, int index)
{
    if (index < 0 || index >= ctx->nlocalsplus)
        return "?";
    const char *s = PyUnicode_AsUTF8(PyTuple_GET_ITEM(ctx->localsplusnames, index));
    if (!s) {
        PyErr_Clear();
        return "?";
    }
    return s;
}

/* ---- positions ------------------------------------------------------------------------------- */

/* Lines and columns of every code unit from co_positions(); a unit with no line inherits the
 * line before it, so every instruction has one. */
static int read_positions(FeCtx *ctx, int *lines, int *cols, int *end_cols)
{
    PyObject *it = PyObject_CallMethod(ctx->code, "co_positions", NULL);
    PyObject *iter = it ? PyObject_GetIter(it) : NULL;
    Py_XDECREF(it);
    if (!iter)
        return fe_error_from_python(ctx, "reading co_positions");
    int last = ctx->fn->firstline;
    PyObject *item;
    for (int u = 0; u < ctx->ncodeunits && (item = PyIter_Next(iter)); u++) {
        PyObject *line = PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 4 ? PyTuple_GET_ITEM(item, 0) : NULL;
        PyObject *col = line ? PyTuple_GET_ITEM(item, 2) : NULL;
        PyObject *end_line = line ? PyTuple_GET_ITEM(item, 1) : NULL;
        PyObject *end_col = line ? PyTuple_GET_ITEM(item, 3) : NULL;
        if (line && line != Py_None)
            last = (int)PyLong_AsLong(line);
        lines[u] = last;
        cols[u] = col && col != Py_None ? (int)PyLong_AsLong(col) : -1;
        /* A multi-line range has no single end column on the first line. */
        bool one_line = end_line && end_line != Py_None && line != Py_None &&
                        PyLong_AsLong(end_line) == PyLong_AsLong(line);
        end_cols[u] = one_line && end_col != Py_None ? (int)PyLong_AsLong(end_col) : -1;
        Py_DECREF(item);
    }
    Py_DECREF(iter);
    if (PyErr_Occurred())
        return fe_error_from_python(ctx, "reading co_positions");
    return 0;
}

/* ---- decoding -------------------------------------------------------------------------------- */

static const OpInfo *op_table(FeCtx *ctx)
{
    ctx->minor = (int)((Py_Version >> 16) & 0xff);
    if ((Py_Version >> 24) == 3 && ctx->minor == 11)
        return ops_311;
    if ((Py_Version >> 24) == 3 && ctx->minor == 12)
        return ops_312;
    return NULL;
}

/* In 3.12 FOR_ITER's target is the END_FOR after the loop, which the interpreter skips when the
 * iterator is exhausted (it pops the iterator itself); point the jump past it. */
static void skip_end_for(FeCtx *ctx)
{
    for (int i = 0; i < ctx->ninstrs; i++) {
        BcInstr *in = &ctx->instrs[i];
        if (in->op != BC_FOR_ITER || in->target_index < 0)
            continue;
        BcInstr *t = &ctx->instrs[in->target_index];
        if (t->op == BC_END_FOR && in->target_index + 1 < ctx->ninstrs) {
            in->target = t->next;
            in->target_index = in->target_index + 1;
        }
    }
}

static int resolve_targets(FeCtx *ctx)
{
    for (int i = 0; i < ctx->ninstrs; i++) {
        BcInstr *in = &ctx->instrs[i];
        if (in->target < 0)
            continue;
        int unit = in->target / 2;
        if (unit >= ctx->ncodeunits || ctx->index_at[unit] < 0) {
            ctx->cur = in;
            return fe_error(ctx, DIAG_INTERNAL, "jump at offset %d to %d is not an instruction",
                            in->offset, in->target);
        }
        in->target_index = ctx->index_at[unit];
    }
    if (ctx->minor == 12)
        skip_end_for(ctx);
    return 0;
}

static int decode_units(FeCtx *ctx, const OpInfo *table, const unsigned char *code, int *lines,
                        int *cols, int *end_cols)
{
    int ext = 0, start = -1;
    for (int u = 0; u < ctx->ncodeunits;) {
        int opcode = code[2 * u], arg = code[2 * u + 1] | ext;
        const OpInfo *info = &table[opcode];
        if (start < 0)
            start = u;
        if (!info->name) {
            ctx->cur = NULL;
            return fe_error(ctx, DIAG_INTERNAL, "unknown opcode %d at offset %d", opcode, 2 * u);
        }
        if (info->op == BC_EXTENDED_ARG) {
            ext = arg << 8;
            u++;
            continue;
        }
        BcInstr *in = &ctx->instrs[ctx->ninstrs];
        *in = (BcInstr){info->op, opcode, info->name, arg, 2 * start, 2 * u,
                        2 * (u + 1 + info->ncache), -1, -1, lines[u], cols[u], end_cols[u]};
        if (info->jump == JK_FWD)
            in->target = in->next + 2 * arg;
        else if (info->jump == JK_BACK)
            in->target = in->next - 2 * arg;
        else if (info->jump == JK_ABS)
            in->target = 2 * arg;
        ctx->index_at[start] = ctx->index_at[u] = ctx->ninstrs++;
        u += 1 + info->ncache;
        ext = 0;
        start = -1;
    }
    return 0;
}

int bc_decode(FeCtx *ctx)
{
    const OpInfo *table = op_table(ctx);
    if (!table)
        return fe_error(ctx, DIAG_UNSUPPORTED, "pyjit supports CPython 3.11 and 3.12, not %d.%d",
                        (int)(Py_Version >> 24), ctx->minor);
    PyObject *bytes = PyObject_GetAttrString(ctx->code, "co_code");
    if (!bytes || !PyBytes_Check(bytes)) {
        Py_XDECREF(bytes);
        return fe_error_from_python(ctx, "reading co_code");
    }
    ctx->ncodeunits = (int)(PyBytes_GET_SIZE(bytes) / 2);
    int n = ctx->ncodeunits;
    ctx->instrs = arena_alloc(ctx->arena, sizeof(BcInstr) * (size_t)(n + 1));
    ctx->index_at = arena_alloc(ctx->arena, sizeof(int) * (size_t)(n + 1));
    int *lines = arena_alloc(ctx->arena, sizeof(int) * 3 * (size_t)(n + 1));
    int rc = -1;
    for (int u = 0; u <= n; u++)
        ctx->index_at[u] = -1;
    if (read_positions(ctx, lines, lines + n + 1, lines + 2 * (n + 1)) < 0)
        goto done;
    if (decode_units(ctx, table, (const unsigned char *)PyBytes_AS_STRING(bytes), lines,
                     lines + n + 1, lines + 2 * (n + 1)) < 0)
        goto done;
    rc = resolve_targets(ctx);
done:
    Py_DECREF(bytes);
    return rc;
}

/* ---- the bytecode as text (PYJIT_DUMP=bytecode) ---------------------------------------------- */

/* What the argument means, as dis shows it: a name, a constant, a jump target. */
static void describe_arg(FeCtx *ctx, const BcInstr *in, char *out, size_t size)
{
    PyObject *obj = NULL;
    out[0] = 0;
    if (in->target >= 0) {
        snprintf(out, size, "to %d", in->target);
        return;
    }
    switch (in->op) {
    case BC_LOAD_FAST: case BC_STORE_FAST: case BC_DELETE_FAST: case BC_LOAD_DEREF:
    case BC_LOAD_CLOSURE: case BC_STORE_DEREF: case BC_MAKE_CELL:
    case BC_LOAD_FAST_CHECK: case BC_LOAD_FAST_AND_CLEAR:
        snprintf(out, size, "%s", bc_local_name(ctx, in->arg));
        return;
    case BC_LOAD_CONST: case BC_RETURN_CONST: case BC_KW_NAMES:
        if (in->arg < PyTuple_GET_SIZE(ctx->consts))
            obj = PyObject_Repr(PyTuple_GET_ITEM(ctx->consts, in->arg));
        break;
    case BC_LOAD_GLOBAL:
        if ((in->arg >> 1) < PyTuple_GET_SIZE(ctx->names))
            obj = PyObject_Str(PyTuple_GET_ITEM(ctx->names, in->arg >> 1));
        break;
    case BC_LOAD_ATTR: case BC_LOAD_METHOD: case BC_STORE_ATTR: case BC_IMPORT_NAME:
    case BC_STORE_GLOBAL: case BC_LOAD_NAME: case BC_STORE_NAME: {
        int i = ctx->minor == 12 && in->op == BC_LOAD_ATTR ? in->arg >> 1 : in->arg;
        if (i < PyTuple_GET_SIZE(ctx->names))
            obj = PyObject_Str(PyTuple_GET_ITEM(ctx->names, i));
        break;
    }
    default:
        return;
    }
    const char *s = obj ? PyUnicode_AsUTF8(obj) : NULL;
    snprintf(out, size, "%.60s", s ? s : "?");
    PyErr_Clear();
    Py_XDECREF(obj);
}

const char *bc_dump(FeCtx *ctx)
{
    size_t cap = 128 * (size_t)ctx->ninstrs + 64, len = 0;
    char *text = arena_alloc(ctx->arena, cap);
    for (int i = 0; i < ctx->ninstrs; i++) {
        const BcInstr *in = &ctx->instrs[i];
        char argtext[80];
        describe_arg(ctx, in, argtext, sizeof argtext);
        int n = snprintf(text + len, cap - len, "%6d %-26s %6d  %-32s ; line %d\n", in->offset,
                         in->opname, in->arg, argtext, in->line);
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
    }
    return text;
}

/* ---- what cannot be compiled at all ---------------------------------------------------------- */

static int check_flags(FeCtx *ctx, long flags, int kwonly)
{
    if (flags & (CO_COROUTINE_ | CO_ITERABLE_COROUTINE_))
        return fe_error(ctx, DIAG_UNSUPPORTED, "async functions are not supported in compiled code");
    if (flags & CO_ASYNC_GENERATOR_)
        return fe_error(ctx, DIAG_UNSUPPORTED, "async generators are not supported in compiled code");
    ctx->generator = (flags & CO_GENERATOR_) != 0;
    if (flags & CO_VARKEYWORDS_)
        return fe_error(ctx, DIAG_UNSUPPORTED,
                        "**kwargs in the signature is not supported in compiled code");
    if (kwonly > 0 && ctx->closure)
        return fe_error(ctx, DIAG_UNSUPPORTED, "keyword-only parameters of a nested function or "
                        "lambda are not supported in compiled code (a module-level function "
                        "may have them)");
    return 0;
}

/* One number of the exception table: 6 bits a byte, most significant first, bit 6 saying that
 * more follow (CPython's Objects/exception_handling_notes.txt). -1 past the end. */
static int read_varint(const unsigned char **p, const unsigned char *end)
{
    if (*p >= end)
        return -1;
    int value = **p & 63;
    while (**p & 64) {
        if (++*p >= end)
            return -1;
        value = (value << 6) | (**p & 63);
    }
    ++*p;
    return value;
}

/* Whether the handler at offset only puts state back and raises again, which compiled code
 * needs no handler for: 3.12's inlined comprehension restoring its loop variable (SWAP ...
 * STORE_FAST ... RERAISE) and its guard of a generator's body, which turns a StopIteration
 * raised inside into a RuntimeError (CALL_INTRINSIC_1 ... RERAISE). */
static bool is_cleanup_handler(FeCtx *ctx, int offset)
{
    int unit = offset / 2;
    int at = unit < ctx->ncodeunits ? ctx->index_at[unit] : -1;
    if (at < 0)
        return false;
    BcOp op = ctx->instrs[at].op;
    return op == BC_SWAP || op == BC_CALL_INTRINSIC_1;
}

/* The entries of co_exceptiontable: (start, length, target, depth << 1 | lasti), the first three
 * in code units; they never overlap (nested try blocks are flattened into ranges). Cleanup
 * handlers (is_cleanup_handler) are left out: an exception leaves those ranges as it would with
 * no handler. */
static int parse_exception_table(FeCtx *ctx, PyObject *table)
{
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(table);
    const unsigned char *end = p + PyBytes_GET_SIZE(table);
    ctx->exc = arena_alloc(ctx->arena, sizeof(ExcEntry) * (size_t)(PyBytes_GET_SIZE(table) / 4 + 1));
    while (p < end) {
        int start = read_varint(&p, end), len = read_varint(&p, end);
        int target = read_varint(&p, end), dl = read_varint(&p, end);
        if (dl < 0)
            return fe_error(ctx, DIAG_INTERNAL, "malformed exception table");
        if (!is_cleanup_handler(ctx, 2 * target))
            ctx->exc[ctx->nexc++] = (ExcEntry){2 * start, 2 * (start + len), 2 * target, dl >> 1,
                                               dl & 1};
    }
    return 0;
}

/* The constructs whose exception handlers pyjit does not model (with, except*): reported at
 * their first instruction. try/except and try/finally are
 * compiled (their table is parsed for cfg.c). */
static int check_exception_table(FeCtx *ctx)
{
    PyObject *table = PyObject_GetAttrString(ctx->code, "co_exceptiontable");
    if (!table || !PyBytes_Check(table)) {
        Py_XDECREF(table);
        return fe_error_from_python(ctx, "reading co_exceptiontable");
    }
    int rc = 0;
    for (int i = 0; i < ctx->ninstrs && PyBytes_GET_SIZE(table) > 0; i++) {
        BcOp op = ctx->instrs[i].op;
        const char *what = op == BC_BEFORE_WITH || op == BC_BEFORE_ASYNC_WITH ? "the with statement is"
                           : op == BC_CHECK_EG_MATCH ? "except* is" : NULL;
        if (what) {
            ctx->cur = &ctx->instrs[i];
            rc = fe_error(ctx, DIAG_UNSUPPORTED, "%s not supported in compiled code", what);
            break;
        }
    }
    if (rc == 0)
        rc = parse_exception_table(ctx, table);
    Py_DECREF(table);
    return rc;
}

int bc_check_code(FeCtx *ctx)
{
    PyObject *flags = PyObject_GetAttrString(ctx->code, "co_flags");
    PyObject *kwonly = PyObject_GetAttrString(ctx->code, "co_kwonlyargcount");
    int rc = -1;
    if (!flags || !kwonly) {
        fe_error_from_python(ctx, "reading the code object");
        goto done;
    }
    if (check_flags(ctx, PyLong_AsLong(flags), (int)PyLong_AsLong(kwonly)) < 0)
        goto done;
    rc = check_exception_table(ctx);
done:
    Py_XDECREF(flags);
    Py_XDECREF(kwonly);
    return rc;
}
