/* dispatch.c: the Dispatcher, what @njit returns: argument types -> compiled version -> call.
 *
 * A call computes the pyjit type of every argument (typeof.c, no Python objects built), looks
 * the tuple of Type pointers up (types are interned, so a key is compared by pointers: first
 * against the last hit, then in an open-addressing table), unboxes the arguments into a frame
 * on the C stack and calls the version's wrapper (abi.h). A miss compiles a new version, or,
 * when explicit signatures turned lazy compilation off, picks the signature the arguments cast
 * to best, as Numba does, and remembers that choice in the table too.
 *
 * Compilation holds the GIL (the frontend needs it) and a per-dispatcher lock, taken with the
 * GIL released so that two threads calling at once neither deadlock nor compile twice. */
#include "runtime/runtime.h"

#include <structmember.h>

#include <stdlib.h>
#include <string.h>

/* ---- options ---- */

static unsigned parse_dump(const char *spec)
{
    static const struct { const char *word; unsigned bit; } words[] = {
        {"bytecode", DUMP_BYTECODE}, {"ssa", DUMP_SSA}, {"types", DUMP_TYPES},
        {"llvm", DUMP_LLVM}, {"asm", DUMP_ASM}, {"ptx", DUMP_PTX}, {"all", ~0u},
    };
    unsigned bits = 0;
    while (spec && *spec) {
        size_t len = strcspn(spec, ", ");
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (len == strlen(words[i].word) && strncmp(spec, words[i].word, len) == 0)
                bits |= words[i].bit;
        spec += len;
        spec += strspn(spec, ", ");
    }
    return bits;
}

/* The optimisation level of functions that give no opt=: PYJIT_OPT or Numba's NUMBA_OPT (0 to 3,
 * or "max"), else 3. */
static int default_opt_level(void)
{
    const char *v = getenv("PYJIT_OPT");
    if (!v || !*v)
        v = getenv("NUMBA_OPT");
    if (!v || !*v || strcmp(v, "max") == 0)
        return 3;
    return v[0] >= '0' && v[0] <= '3' && !v[1] ? v[0] - '0' : 3;
}

void rt_default_options(CompileOptions *opts)
{
    static CompileOptions env;
    static bool parsed;
    if (!parsed) {
        const char *debug = getenv("PYJIT_DEBUG");
        env.opt_level = default_opt_level();
        env.debug = env.boundscheck = debug && *debug && strcmp(debug, "0") != 0;
        env.dump = parse_dump(getenv("PYJIT_DUMP"));
        parsed = true;
    }
    *opts = env;
}

static int boundscheck_env = -2;   /* -2: not read yet */

int rt_boundscheck_env(void)
{
    if (boundscheck_env == -2) {
        const char *v = getenv("PYJIT_BOUNDSCHECK");
        if (!v || !*v)
            v = getenv("NUMBA_BOUNDSCHECK");
        boundscheck_env = v && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) ? v[0] - '0' : -1;
    }
    return boundscheck_env;
}

/* _core.set_boundscheck(None | 0 | 1): pyjit.config.BOUNDSCHECK assigned, for the functions and
 * kernels made from then on. */
PyObject *rt_set_boundscheck(PyObject *self, PyObject *arg)
{
    int v = arg == Py_None ? -1 : PyObject_IsTrue(arg);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    boundscheck_env = v;
    Py_RETURN_NONE;
}

/* ---- the dispatch table ---- */

static size_t hash_types(Type **types, int n)
{
    size_t h = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < n; i++)
        h = (h ^ ((uintptr_t)types[i] >> 4)) * 0x100000001b3u;
    return h ^ (h >> 29);
}

static inline bool keys_equal(Type **a, Type **b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* Equal but for weakness: the values unbox the same way. */
static bool keys_match(Type **a, Type **b, int n)
{
    for (int i = 0; i < n; i++)
        if (ty_strong(a[i]) != ty_strong(b[i]))
            return false;
    return true;
}

static RtEntry *table_find(RtDispatcher *d, Type **types)
{
    if (!d->table_cap)
        return NULL;
    size_t mask = d->table_cap - 1;
    for (size_t h = hash_types(types, d->nargs) & mask;; h = (h + 1) & mask) {
        RtEntry *e = &d->table[h];
        if (!e->key || keys_equal(e->key, types, d->nargs))
            return e->key ? e : NULL;
    }
}

static int table_grow(RtDispatcher *d)
{
    size_t cap = d->table_cap ? d->table_cap * 2 : 8;
    RtEntry *table = calloc(cap, sizeof *table);
    if (!table)
        return -1;
    for (size_t i = 0; i < d->table_cap; i++) {
        RtEntry *e = &d->table[i];
        if (!e->key)
            continue;
        size_t h = hash_types(e->key, d->nargs) & (cap - 1);
        while (table[h].key)
            h = (h + 1) & (cap - 1);
        table[h] = *e;
    }
    free(d->table);
    d->table = table;
    d->table_cap = cap;
    return 0;
}

/* Adds types -> version (the key is copied). Returns the entry, or NULL (MemoryError set). */
static RtEntry *table_insert(RtDispatcher *d, Type **types, RtVersion *v, bool exact)
{
    if ((d->table_len + 1) * 2 > d->table_cap && table_grow(d) < 0)
        goto nomem;
    Type **key = malloc(((size_t)d->nargs + 1) * sizeof(Type *));
    if (!key)
        goto nomem;
    memcpy(key, types, (size_t)d->nargs * sizeof(Type *));
    size_t mask = d->table_cap - 1, h = hash_types(types, d->nargs) & mask;
    while (d->table[h].key)
        h = (h + 1) & mask;
    d->table[h] = (RtEntry){key, v, exact};
    d->table_len++;
    return &d->table[h];
nomem:
    PyErr_NoMemory();
    return NULL;
}

static int add_version(RtDispatcher *d, RtVersion *v)
{
    RtVersion **vs = realloc(d->versions, ((size_t)d->nversions + 1) * sizeof *vs);
    if (!vs) {
        PyErr_NoMemory();
        return -1;
    }
    d->versions = vs;
    d->versions[d->nversions++] = v;
    return 0;
}

/* ---- the compile lock ---- */

static void compile_lock(RtDispatcher *d)
{
    unsigned long me = PyThread_get_thread_ident();
    if (d->lock_depth > 0 && d->lock_owner == me) {
        d->lock_depth++;
        return;
    }
    if (!PyThread_acquire_lock(d->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(d->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    d->lock_owner = me;
    d->lock_depth = 1;
}

static void compile_unlock(RtDispatcher *d)
{
    if (--d->lock_depth == 0) {
        d->lock_owner = 0;
        PyThread_release_lock(d->lock);
    }
}

/* ---- signatures as text and as Python objects ---- */

/* "int64, array(float64, 1d, C)" */
static PyObject *types_text(Type **types, int n)
{
    PyObject *parts = PyList_New(n), *sep = NULL, *text = NULL;
    for (int i = 0; parts && i < n; i++) {
        PyObject *s = PyUnicode_FromString(ty_strong(types[i])->name);
        if (!s)
            goto done;
        PyList_SET_ITEM(parts, i, s);
    }
    sep = parts ? PyUnicode_FromString(", ") : NULL;
    text = sep ? PyUnicode_Join(sep, parts) : NULL;
done:
    Py_XDECREF(parts);
    Py_XDECREF(sep);
    return text;
}

/* pyjit.types object for a type (its canonical name if pyjit.types is not importable). */
static PyObject *py_type(Type *t)
{
    static PyObject *from_canonical;
    if (!from_canonical) {
        PyObject *mod = PyImport_ImportModule("pyjit.types");
        from_canonical = mod ? PyObject_GetAttrString(mod, "_from_canonical") : NULL;
        Py_XDECREF(mod);
        if (!from_canonical) {
            PyErr_Clear();
            return PyUnicode_FromString(t->name);
        }
    }
    return PyObject_CallFunction(from_canonical, "s", ty_strong(t)->name);
}

static PyObject *py_type_tuple(Type **types, int n)
{
    PyObject *tuple = PyTuple_New(n);
    for (int i = 0; tuple && i < n; i++) {
        PyObject *t = py_type(types[i]);
        if (!t) {
            Py_CLEAR(tuple);
            break;
        }
        PyTuple_SET_ITEM(tuple, i, t);
    }
    return tuple;
}

/* "int64(int64, float64)" lines of the declared signatures, for the no-match TypeError. */
PyObject *rt_signatures_text(RtDispatcher *d)
{
    PyObject *text = PyUnicode_FromString("");
    for (int i = 0; text && i < d->nsigs; i++) {
        PyObject *args = types_text(d->sigs[i].args, d->nargs);
        PyObject *line = args ? PyUnicode_FromFormat("%U\n    %s(%U)", text,
                                                     d->sigs[i].ret ? d->sigs[i].ret->name : "?",
                                                     args)
                              : NULL;
        Py_XDECREF(args);
        Py_SETREF(text, line);
    }
    return text;
}

/* ---- binding arguments: keywords and defaults ---- */

static PyObject *too_many_positional(RtDispatcher *d, Py_ssize_t given)
{
    int lo = d->npositional - d->ndefaults, hi = d->npositional;
    if (lo == hi)
        return PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given",
                            d->cname, hi, hi == 1 ? "" : "s", given, given == 1 ? "was" : "were");
    return PyErr_Format(PyExc_TypeError, "%s() takes from %d to %d positional arguments but %zd %s given",
                        d->cname, lo, hi, given, given == 1 ? "was" : "were");
}

/* The index of the argument a keyword names (positional-only ones cannot be named); -1 if none,
 * -2 on error. */
static int keyword_index(RtDispatcher *d, PyObject *name)
{
    int n = d->nargs - d->varargs;   /* *args takes no keyword */
    for (int j = d->nposonly; j < n; j++)
        if (PyTuple_GET_ITEM(d->argnames, j) == name)
            return j;
    for (int j = d->nposonly; j < n; j++) {
        int eq = PyUnicode_Compare(PyTuple_GET_ITEM(d->argnames, j), name);
        if (eq == 0)
            return j;
        if (eq == -1 && PyErr_Occurred())
            return -2;
    }
    return -1;
}

static PyObject *default_of(RtDispatcher *d, int j)
{
    int first_default = d->npositional - d->ndefaults;
    if (j < d->npositional)
        return j >= first_default ? PyTuple_GET_ITEM(d->defaults, j - first_default) : NULL;
    return d->kwdefaults ? PyDict_GetItem(d->kwdefaults, PyTuple_GET_ITEM(d->argnames, j)) : NULL;
}

/* The TypeError of a call that leaves parameters without a value: the positional ones, or when
 * none of them, the keyword-only ones (as CPython reports them). */
static int missing_arguments(RtDispatcher *d, PyObject **out)
{
    bool positional = false;
    for (int j = 0; j < d->npositional; j++)
        positional |= !out[j];
    int from = positional ? 0 : d->npositional, upto = positional ? d->npositional : d->nargs;
    PyObject *names = PyList_New(0);
    for (int j = from; names && j < upto; j++)
        if (!out[j] && PyList_Append(names, PyTuple_GET_ITEM(d->argnames, j)) < 0)
            Py_CLEAR(names);
    if (!names)
        return -1;
    PyObject *sep = PyUnicode_FromString("', '");
    PyObject *joined = sep ? PyUnicode_Join(sep, names) : NULL;
    if (joined)
        PyErr_Format(PyExc_TypeError, "%s() missing %zd required %sargument%s: '%U'", d->cname,
                     PyList_GET_SIZE(names), positional ? "" : "keyword-only ",
                     PyList_GET_SIZE(names) == 1 ? "" : "s", joined);
    Py_XDECREF(sep);
    Py_XDECREF(joined);
    Py_DECREF(names);
    return -1;
}

/* Fills out[0..nargs) with borrowed references: positional arguments, keywords, defaults; with
 * *args, its tuple of the positional arguments past the parameters, a new reference in *packed. */
static int bind_args(RtDispatcher *d, PyObject *const *args, Py_ssize_t n, PyObject *kwnames,
                     PyObject **out, PyObject **packed)
{
    Py_ssize_t npos = n;
    if (d->varargs) {
        npos = n < d->npositional ? n : d->npositional;
        if (!(*packed = PyTuple_New(n - npos)))
            return -1;
        for (Py_ssize_t k = npos; k < n; k++)
            PyTuple_SET_ITEM(*packed, k - npos, Py_NewRef(args[k]));
    } else if (n > d->npositional) {
        too_many_positional(d, n);
        return -1;
    }
    bool missing = false;
    for (int j = 0; j < d->nargs; j++)
        out[j] = j < npos ? args[j] : NULL;
    if (d->varargs)
        out[d->nargs - 1] = *packed;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        int j = keyword_index(d, name);
        if (j == -2)
            return -1;
        if (j < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", d->cname, name);
            return -1;
        }
        if (out[j]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'", d->cname, name);
            return -1;
        }
        out[j] = args[n + k];
    }
    for (int j = 0; j < d->nargs; j++)
        if (!out[j] && !(out[j] = default_of(d, j)))
            missing = true;
    return missing ? missing_arguments(d, out) : 0;
}

/* ---- a miss: compile, or cast to an explicit signature ---- */

/* The literal type of an argument's value (a Python int in int64's range, a bool, a str; a
 * NumPy integer, as GPU launches pass a Python int typed int64), for an argument keyed by its
 * value; NULL for any other value, with no exception set. */
Type *rt_literal_type(PyObject *obj)
{
    if (PyBool_Check(obj))
        return ty_bool_literal(obj == Py_True);
    if (strcmp(Py_TYPE(obj)->tp_name, "numpy.bool") == 0 ||
        strcmp(Py_TYPE(obj)->tp_name, "numpy.bool_") == 0) {
        int truth = PyObject_IsTrue(obj);
        PyErr_Clear();
        return truth < 0 ? NULL : ty_bool_literal(truth);
    }
    if (!PyLong_Check(obj) && Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_index &&
        strncmp(Py_TYPE(obj)->tp_name, "numpy.", 6) == 0) {
        PyObject *v = PyNumber_Index(obj);
        Type *t = v ? rt_literal_type(v) : NULL;
        Py_XDECREF(v);
        PyErr_Clear();
        return t;
    }
    if (PyLong_CheckExact(obj)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return NULL;
        }
        return ty_int_literal(v);
    }
    if (PyUnicode_CheckExact(obj)) {
        const char *text = PyUnicode_AsUTF8(obj);
        if (!text)
            PyErr_Clear();   /* a lone surrogate: no literal */
        return text ? ty_str_literal(text) : NULL;
    }
    return NULL;
}

/* The types of the arguments keyed by their values (literal_args) made their literal types. */
static void literal_types(RtDispatcher *d, PyObject *const *argv, Type **types)
{
    for (int i = 0; i < d->nargs && i < 64; i++) {
        Type *lit = d->literal_args >> i & 1 ? rt_literal_type(argv[i]) : NULL;
        types[i] = lit ? lit : types[i];
    }
}

/* literally() asked for argument i's value: from now on it is keyed by its value, and this
 * call's type of it is its literal type. -1 with a TypingError for a value with none, or an
 * argument asked for again (typing went wrong elsewhere: Numba's "repeated literal typing
 * request"). */
static int key_by_value(RtDispatcher *d, PyObject *const *argv, Type **types, int i)
{
    Type *lit = argv && i < 64 ? rt_literal_type(argv[i]) : NULL;
    if (!lit || ty_literal_value(types[i])) {
        PyErr_Format(rt_error_class("TypingError"),
                     "%s() calls literally() on its argument '%U', so it is compiled for each "
                     "value of it; %s", d->cname, PyTuple_GET_ITEM(d->argnames, i),
                     !argv ? "this version is compiled for its types alone (a declared "
                             "signature or a function address)"
                     : lit ? "typing it asked for that value again"
                           : "that takes an int, a bool or a str, not the value given");
        return -1;
    }
    d->literal_args |= (uint64_t)1 << i;
    types[i] = lit;
    return 0;
}

static RtEntry *compile_for(RtDispatcher *d, Type **types, PyObject *const *argv)
{
    for (int tries = 0; tries <= d->nargs; tries++) {
        int asked = -1;
        RtVersion *v = rt_compile_version(d, types, NULL, &asked);
        if (!v && asked < 0)
            return NULL;
        if (v) {
            if (add_version(d, v) < 0) {
                rt_version_free(v);
                return NULL;
            }
            return table_insert(d, types, v, true);
        }
        if (key_by_value(d, argv, types, asked) < 0)
            return NULL;
        RtEntry *e = table_find(d, types);   /* compiled for this value already */
        if (e)
            return e;
    }
    PyErr_Format(rt_error_class("TypingError"), "%s(): literally() kept asking for values",
                 d->cname);
    return NULL;
}

/* Compiles the version of a declared signature (if not compiled yet): its table entry. */
static RtEntry *compile_signature(RtDispatcher *d, RtSignature *sig)
{
    RtEntry *e = table_find(d, sig->args);
    if (e && e->exact && (!sig->ret || e->version->ret == sig->ret))
        return e;
    RtVersion *v = rt_compile_version(d, sig->args, sig->ret, NULL);
    if (v && add_version(d, v) < 0) {
        rt_version_free(v);
        return NULL;
    }
    if (v && e) {   /* replaces a cast or a version of another return type */
        e->version = v;
        e->exact = true;
        d->last.key = NULL;
        return e;
    }
    return v ? table_insert(d, sig->args, v, true) : NULL;
}

int rt_best_of(const RtSignature *sigs, int nsigs, Type **types, int n,
               int (*rank)(Type *, Type *))
{
    int best = -1, best_worst = 4, best_sum = 0;
    for (int s = 0; s < nsigs; s++) {
        int worst = 0, sum = 0;
        for (int i = 0; i < n && worst >= 0; i++) {
            int r = rank(types[i], sigs[s].args[i]);
            worst = r < 0 ? -1 : r > worst ? r : worst;
            sum += r;
        }
        if (worst >= 0 && (worst < best_worst || (worst == best_worst && sum < best_sum))) {
            best = s;
            best_worst = worst;
            best_sum = sum;
        }
    }
    return best;
}

/* A kernel compiled for the CPU (gpu_sim) takes its arguments as the GPU's launch does. */
static int (*rank_of(RtDispatcher *d))(Type *, Type *)
{
    return d->opts.gpu_sim ? rt_kernel_arg_rank : rt_conversion_rank;
}

/* The declared signature the arguments cast to best. */
RtSignature *rt_best_signature(RtDispatcher *d, Type **types)
{
    int s = rt_best_of(d->sigs, d->nsigs, types, d->nargs, rank_of(d));
    return s < 0 ? NULL : &d->sigs[s];
}

/* One line of the no-match TypeError: the signature, and the first argument it refuses. */
static PyObject *mismatch_line(PyObject *argnames, const RtSignature *sig, Type **types, int n,
                               int (*rank)(Type *, Type *))
{
    PyObject *params = types_text(sig->args, n);
    if (!params)
        return NULL;
    if (n == 0) {
        Py_DECREF(params);
        return PyUnicode_FromFormat("\n    %s()", sig->ret ? sig->ret->name : "void");
    }
    int i = 0;
    while (i < n - 1 && rank(types[i], sig->args[i]) >= 0)
        i++;
    Type *given = ty_strong(types[i]), *want = ty_strong(sig->args[i]);
    PyObject *name = argnames && i < PyTuple_GET_SIZE(argnames) ? PyTuple_GET_ITEM(argnames, i)
                                                                 : NULL;
    bool fraction = (ty_is_float(given) || ty_is_complex(given)) &&
                    (ty_is_int(want) || want->kind == TY_BOOL);
    PyObject *line = PyUnicode_FromFormat(
        "\n    %s(%U): argument %d '%U' takes %s, given %s%s",
        sig->ret ? sig->ret->name : "void", params, i + 1, name ? name : Py_None, want->name,
        given->name, fraction ? " (a float is not converted to an integer or bool parameter, as "
                                "in numba-cuda: give an int)" : "");
    Py_DECREF(params);
    return line;
}

PyObject *rt_raise_no_declared_match(const char *fname, PyObject *argnames,
                                     const RtSignature *sigs, int nsigs, Type **types, int n,
                                     int (*rank)(Type *, Type *))
{
    PyObject *got = types_text(types, n), *lines = got ? PyUnicode_FromString("") : NULL;
    for (int s = 0; lines && s < nsigs; s++) {
        PyObject *line = mismatch_line(argnames, &sigs[s], types, n, rank);
        if (line)
            PyUnicode_AppendAndDel(&lines, line);
        else
            Py_CLEAR(lines);
    }
    if (lines)
        PyErr_Format(PyExc_TypeError, "%s(): no matching definition for argument type(s) (%U); "
                     "its signatures:%U", fname, got, lines);
    Py_XDECREF(got);
    Py_XDECREF(lines);
    return NULL;
}

/* The version for arguments that no version was compiled for, through the signature they cast
 * to best. A signature whose compilation the decorator deferred (its function named what was
 * not bound yet) is compiled now. */
static RtEntry *cast_for(RtDispatcher *d, Type **types)
{
    RtSignature *best = rt_best_signature(d, types);
    if (best) {
        RtEntry *e = compile_signature(d, best);
        if (!e || keys_equal(best->args, types, d->nargs))
            return e;
        return table_insert(d, types, e->version, keys_match(best->args, types, d->nargs));
    }
    if (d->opts.gpu_sim) {
        rt_raise_no_declared_match(d->cname, d->argnames, d->sigs, d->nsigs, types, d->nargs,
                                   rank_of(d));
        return NULL;
    }
    PyObject *got = types_text(types, d->nargs), *sigs = got ? rt_signatures_text(d) : NULL;
    if (sigs)
        PyErr_Format(PyExc_TypeError,
                     "%s(): no matching definition for argument type(s) (%U); its signatures:%U",
                     d->cname, got, sigs);
    Py_XDECREF(got);
    Py_XDECREF(sigs);
    return NULL;
}

/* argv: the call's arguments, NULL where there are none (a function's address). */
static RtEntry *resolve_miss(RtDispatcher *d, Type **types, PyObject *const *argv)
{
    compile_lock(d);
    /* Another thread may have compiled these types while this one waited. */
    RtEntry *e = table_find(d, types);
    if (!e)
        e = d->can_compile ? compile_for(d, types, argv) : cast_for(d, types);
    compile_unlock(d);
    return e;
}

void *rt_function_address(RtDispatcher *d, Type *ft)
{
    if (ft->fn.n != d->nargs) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d argument%s, a %s takes %d", d->cname,
                     d->nargs, d->nargs == 1 ? "" : "s", ft->name, ft->fn.n);
        return NULL;
    }
    RtEntry *e = table_find(d, ft->fn.args);
    if (!e && !(e = resolve_miss(d, ft->fn.args, NULL)))
        return NULL;
    RtVersion *v = e->version;
    for (int i = 0; i < d->nargs; i++)
        if (v->argtypes[i] != ft->fn.args[i]) {
            PyErr_Format(PyExc_TypeError, "%s() has no version taking exactly the arguments of "
                         "%s (its argument %d is %s)", d->cname, ft->name, i + 1, v->argtypes[i]->name);
            return NULL;
        }
    if (v->ret != ft->fn.ret) {
        PyErr_Format(PyExc_TypeError, "%s() returns %s where a %s is expected", d->cname,
                     v->ret->name, ft->name);
        return NULL;
    }
    return v->code.native;
}

/* ---- the call ---- */

static void flush_python_stdout(void)
{
    PyObject *out = PySys_GetObject("stdout");   /* borrowed */
    PyObject *res = out && out != Py_None ? PyObject_CallMethod(out, "flush", NULL) : NULL;
    Py_XDECREF(res);
    PyErr_Clear();
}

static PyObject *call_version(RtDispatcher *d, RtEntry *e, PyObject *const *argv, Type **types)
{
    RtVersion *v = e->version;
    _Alignas(64) char frame_buf[1024], ret_buf[256];
    char *frame = frame_buf, *ret = ret_buf;
    void *ptrs[RT_MAX_ARGS];
    PyObject *result = NULL;
    int unboxed = 0;   /* the arguments unboxed, whose lists are released at the end */
    if ((v->frame_size > (int64_t)sizeof frame_buf && !(frame = PyMem_Malloc((size_t)v->frame_size))) ||
        (v->ret_size > (int64_t)sizeof ret_buf && !(ret = PyMem_Malloc((size_t)v->ret_size)))) {
        PyErr_NoMemory();
        goto done;
    }
    for (int i = 0; i < d->nargs; i++) {
        ptrs[i] = frame + v->offsets[i];
        int rc = e->exact ? rt_unbox(argv[i], types[i], ptrs[i])
                          : rt_unbox_as(argv[i], types[i], v->argtypes[i], ptrs[i]);
        if (rc < 0)
            goto done;
        unboxed++;
    }
    if (v->uses_print)
        flush_python_stdout();
    ExcInfo exc;
    exc.kind = ABI_EXC_NONE;
    int32_t status;
    if (d->opts.gpu_sim) {
        status = rt_sim_launch(d, v, ptrs, &exc);
    } else if (d->opts.nogil) {
        Py_BEGIN_ALLOW_THREADS
        status = v->code.wrapper(ptrs, ret, &exc);
        Py_END_ALLOW_THREADS
    } else {
        status = v->code.wrapper(ptrs, ret, &exc);
    }
    result = status == ABI_STATUS_OK ? rt_box(v->ret, ret) : rt_raise_exc(&exc);
    if (!result && status != ABI_STATUS_OK && d->opts.gpu_sim)
        rt_sim_name_thread(d);
    if (result && d->generator)   /* the list of what it yielded (frontend/ssa.c: generator_op) */
        Py_SETREF(result, PyObject_GetIter(result));
done:
    for (int i = 0; v->list_args && i < unboxed; i++)   /* reflected lists written back */
        if (rt_release_arg(v->argtypes[i], ptrs[i]) < 0)
            Py_CLEAR(result);
    if (frame != frame_buf)
        PyMem_Free(frame);
    if (ret != ret_buf)
        PyMem_Free(ret);
    return result;
}

/* Replacing __code__ after decoration is refused rather than followed: the compiled versions,
 * the callers that built this function in, its frozen globals and defaults and its argument
 * names all come from the old code, and a mix of old and new is what a user would not expect. */
int rt_check_code(RtDispatcher *d, Diag *diag)
{
    if (PyFunction_GET_CODE(d->py_func) == d->code)
        return 0;
    PyCodeObject *code = (PyCodeObject *)d->code;
    diag_error(diag, DIAG_UNSUPPORTED, d->cname, PyUnicode_AsUTF8(code->co_filename),
               code->co_firstlineno, -1, -1,
               "the __code__ of '%s' was replaced after it was decorated: compiled code keeps "
               "the code it was decorated with; decorate the new function instead", d->cname);
    return -1;
}

static PyObject *code_replaced(RtDispatcher *d)
{
    Diag diag = {0};
    rt_check_code(d, &diag);
    return rt_raise_diag(&diag);
}

static PyObject *call_bound(RtDispatcher *d, PyObject *const *argv);

static PyObject *dispatcher_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                       PyObject *kwnames)
{
    RtDispatcher *d = (RtDispatcher *)self;
    if (PyFunction_GET_CODE(d->py_func) != d->code)
        return code_replaced(d);
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (!kwnames && n == d->nargs && !d->varargs)
        return call_bound(d, args);
    PyObject *bound[RT_MAX_ARGS] = {NULL}, *packed = NULL;   /* filled by bind_args */
    PyObject *result = bind_args(d, args, n, kwnames, bound, &packed) < 0 ? NULL : call_bound(d, bound);
    Py_XDECREF(packed);
    return result;
}

/* The call, its arguments bound (one for each parameter, *args's tuple last). */
static PyObject *call_bound(RtDispatcher *d, PyObject *const *argv)
{
    Type *types[RT_MAX_ARGS];
    for (int i = 0; i < d->nargs; i++) {
        if (!(types[i] = rt_typeof(argv[i], 0)))
            return rt_raise_arg_error(d->cname, PyUnicode_AsUTF8(PyTuple_GET_ITEM(d->argnames, i)),
                                      i + 1, argv[i]);
    }
    if (d->literal_args)
        literal_types(d, argv, types);
    RtEntry *e = &d->last;
    if (!e->key || !keys_equal(e->key, types, d->nargs)) {
        e = table_find(d, types);
        if (!e && !(e = resolve_miss(d, types, argv)))
            return NULL;
        d->last = *e;
    }
    return call_version(d, e, argv, types);
}

/* ---- explicit signatures ---- */

int rt_parse_type_names(PyObject *names, Type **out, int n, const char *what)
{
    if (!PyTuple_Check(names) || PyTuple_GET_SIZE(names) != n) {
        PyErr_Format(PyExc_TypeError, "%s: expected a tuple of %d type names", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const char *s = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i));
        if (!s)
            return -1;
        if (!(out[i] = ty_parse(s))) {
            PyErr_Format(PyExc_TypeError, "%s: '%s' is not a type pyjit knows", what, s);
            return -1;
        }
    }
    return 0;
}

/* _add_signature(argtypes: tuple of canonical names, ret: name or None, compile=True): declares
 * a signature and compiles it now, or on the first call that casts to it (compile=False). */
static PyObject *dispatcher_add_signature(PyObject *self, PyObject *args)
{
    RtDispatcher *d = (RtDispatcher *)self;
    PyObject *argnames, *retname;
    Type *types[RT_MAX_ARGS], *ret = NULL;
    int now = 1;
    if (!PyArg_ParseTuple(args, "OO|p:_add_signature", &argnames, &retname, &now))
        return NULL;
    if (PyTuple_Check(argnames) && PyTuple_GET_SIZE(argnames) != d->nargs)
        return PyErr_Format(PyExc_TypeError, "signature of %zd argument%s for %s(), which takes %d",
                            PyTuple_GET_SIZE(argnames), PyTuple_GET_SIZE(argnames) == 1 ? "" : "s",
                            d->cname, d->nargs);
    if (rt_parse_type_names(argnames, types, d->nargs, "signature") < 0)
        return NULL;
    if (retname != Py_None) {
        PyObject *one = PyTuple_Pack(1, retname);
        int rc = one ? rt_parse_type_names(one, &ret, 1, "signature") : -1;
        Py_XDECREF(one);
        if (rc < 0)
            return NULL;
    }
    Type **sigargs = malloc(((size_t)d->nargs + 1) * sizeof(Type *));
    RtSignature *sigs = sigargs ? realloc(d->sigs, ((size_t)d->nsigs + 1) * sizeof *sigs) : NULL;
    if (!sigs) {
        free(sigargs);
        return PyErr_NoMemory();
    }
    memcpy(sigargs, types, (size_t)d->nargs * sizeof(Type *));
    d->sigs = sigs;
    d->sigs[d->nsigs++] = (RtSignature){sigargs, ret};
    if (!now)
        Py_RETURN_NONE;
    compile_lock(d);
    RtEntry *e = compile_signature(d, &d->sigs[d->nsigs - 1]);
    compile_unlock(d);
    if (!e) {
        free(d->sigs[--d->nsigs].args);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* Calls pyjit.types.<helper>(arg): the signature parsing lives in Python (pyjit/types.py). */
static PyObject *call_types_helper(const char *helper, PyObject *arg)
{
    PyObject *mod = PyImport_ImportModule("pyjit.types");
    PyObject *name = mod ? PyUnicode_FromString(helper) : NULL;
    PyObject *res = name ? PyObject_CallMethodOneArg(mod, name, arg) : NULL;
    Py_XDECREF(name);
    Py_XDECREF(mod);
    return res;
}

/* compile(signature): as Numba's; a string ('f8(f8, i8)'), a Signature or a tuple of types. */
static PyObject *dispatcher_compile(PyObject *self, PyObject *sig)
{
    PyObject *pair = call_types_helper("_canonical_signature", sig), *res = NULL;
    if (pair)
        res = dispatcher_add_signature(self, pair);
    Py_XDECREF(pair);
    return res;
}

static PyObject *dispatcher_disable_compile(PyObject *self, PyObject *args)
{
    int off = 1;
    if (!PyArg_ParseTuple(args, "|p:disable_compile", &off))
        return NULL;
    ((RtDispatcher *)self)->can_compile = !off;
    Py_RETURN_NONE;
}

/* The version for a signature given as inspect_*() takes it, or NULL with KeyError set. */
static RtVersion *find_version(RtDispatcher *d, PyObject *sig)
{
    Type *types[RT_MAX_ARGS];
    PyObject *names = call_types_helper("_canonical_args", sig);
    int rc = names ? rt_parse_type_names(names, types, d->nargs, "signature") : -1;
    Py_XDECREF(names);
    if (rc < 0)
        return NULL;
    for (int i = 0; i < d->nversions; i++)
        if (keys_match(d->versions[i]->argtypes, types, d->nargs))
            return d->versions[i];
    PyErr_Format(PyExc_KeyError, "%s() has no compiled version for %R", d->cname, sig);
    return NULL;
}

typedef PyObject *(*VersionText)(RtDispatcher *d, RtVersion *v);

static PyObject *text_or_none(const char *s)
{
    return s ? PyUnicode_FromString(s) : Py_NewRef(Py_None);
}

static PyObject *llvm_text_of(RtDispatcher *d, RtVersion *v) { return text_or_none(v->llvm_dump); }

/* {signature tuple: text} over every version, or the text of the one signature given. */
static PyObject *texts_by_signature(RtDispatcher *d, PyObject *sig, VersionText text_of)
{
    if (sig && sig != Py_None) {
        RtVersion *v = find_version(d, sig);
        return v ? text_of(d, v) : NULL;
    }
    PyObject *result = PyDict_New();
    for (int i = 0; result && i < d->nversions; i++) {
        PyObject *key = py_type_tuple(d->versions[i]->argtypes, d->nargs);
        PyObject *text = key ? text_of(d, d->versions[i]) : NULL;
        if (!text || PyDict_SetItem(result, key, text) < 0)
            Py_CLEAR(result);
        Py_XDECREF(key);
        Py_XDECREF(text);
    }
    return result;
}

static PyObject *dispatcher_inspect_llvm(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"signature", NULL};
    PyObject *sig = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:inspect_llvm", kwlist, &sig))
        return NULL;
    return texts_by_signature((RtDispatcher *)self, sig, llvm_text_of);
}

static PyObject *dispatcher_inspect_asm(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"signature", NULL};
    PyObject *sig = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:inspect_asm", kwlist, &sig))
        return NULL;
    return texts_by_signature((RtDispatcher *)self, sig, rt_version_asm);
}

static PyObject *typed_ir_text(RtDispatcher *d, RtVersion *v)
{
    PyObject *key = py_type_tuple(v->argtypes, d->nargs);
    PyObject *text = key ? PyUnicode_FromFormat("%s %R\n%s\n%s\n", d->cname, key,
                                                "-----------------------------------------",
                                                v->types_dump ? v->types_dump : "(no typed IR)")
                         : NULL;
    Py_XDECREF(key);
    return text;
}

/* inspect_types(signature=None, file=None): the typed IR of one version or of all of them, as
 * text (the same text as PYJIT_DUMP=types); with file= it is written there instead, as Numba
 * does, and None returned. */
static PyObject *dispatcher_inspect_types(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"signature", "file", NULL};
    RtDispatcher *d = (RtDispatcher *)self;
    PyObject *sig = Py_None, *file = Py_None, *parts = NULL, *text = NULL, *sep = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:inspect_types", kwlist, &sig, &file))
        return NULL;
    if (!(parts = PyList_New(0)))
        return NULL;
    for (int i = 0; i < d->nversions; i++) {
        RtVersion *v = d->versions[i];
        if (sig != Py_None && v != find_version(d, sig))
            continue;
        PyObject *part = typed_ir_text(d, v);
        if (!part || PyList_Append(parts, part) < 0) {
            Py_XDECREF(part);
            goto fail;
        }
        Py_DECREF(part);
    }
    if (sig != Py_None && PyErr_Occurred())   /* find_version found no such signature */
        goto fail;
    if (!(sep = PyUnicode_FromString("\n")) || !(text = PyUnicode_Join(sep, parts)))
        goto fail;
    Py_DECREF(sep);
    Py_DECREF(parts);
    if (file == Py_None)
        return text;
    int rc = PyFile_WriteObject(text, file, Py_PRINT_RAW);
    Py_DECREF(text);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
fail:
    Py_XDECREF(sep);
    Py_XDECREF(parts);
    return NULL;
}

/* ---- attributes ---- */

static PyObject *make_signature(RtDispatcher *d, Type *ret, Type **args)
{
    PyObject *mod = PyImport_ImportModule("pyjit.types"), *sig = NULL;
    PyObject *cls = mod ? PyObject_GetAttrString(mod, "Signature") : NULL;
    PyObject *r = cls ? py_type(ret) : NULL;
    PyObject *a = r ? py_type_tuple(args, d->nargs) : NULL;
    if (a)
        sig = PyObject_CallFunctionObjArgs(cls, r, a, NULL);
    Py_XDECREF(mod);
    Py_XDECREF(cls);
    Py_XDECREF(r);
    Py_XDECREF(a);
    return sig;
}

/* signatures: the argument types of every compiled version, as Numba lists them. */
static PyObject *dispatcher_get_signatures(PyObject *self, void *closure)
{
    RtDispatcher *d = (RtDispatcher *)self;
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < d->nversions; i++) {
        PyObject *t = py_type_tuple(d->versions[i]->argtypes, d->nargs);
        if (!t || PyList_Append(list, t) < 0)
            Py_CLEAR(list);
        Py_XDECREF(t);
    }
    return list;
}

/* nopython_signatures: Signature objects (return type and arguments) of every version. */
static PyObject *dispatcher_get_nopython_signatures(PyObject *self, void *closure)
{
    RtDispatcher *d = (RtDispatcher *)self;
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < d->nversions; i++) {
        PyObject *s = make_signature(d, d->versions[i]->ret, d->versions[i]->argtypes);
        if (!s || PyList_Append(list, s) < 0)
            Py_CLEAR(list);
        Py_XDECREF(s);
    }
    return list;
}

/* overloads: {argument types: Signature} of every version. */
static PyObject *dispatcher_get_overloads(PyObject *self, void *closure)
{
    RtDispatcher *d = (RtDispatcher *)self;
    PyObject *dict = PyDict_New();
    for (int i = 0; dict && i < d->nversions; i++) {
        PyObject *k = py_type_tuple(d->versions[i]->argtypes, d->nargs);
        PyObject *s = k ? make_signature(d, d->versions[i]->ret, d->versions[i]->argtypes) : NULL;
        if (!s || PyDict_SetItem(dict, k, s) < 0)
            Py_CLEAR(dict);
        Py_XDECREF(k);
        Py_XDECREF(s);
    }
    return dict;
}

/* The options as Numba's targetoptions shows them. */
static PyObject *options_dict(const CompileOptions *o)
{
    return Py_BuildValue("{sOsOsOsssOsisO}", "nogil", o->nogil ? Py_True : Py_False, "fastmath",
                         o->fastmath ? Py_True : Py_False, "boundscheck",
                         o->boundscheck ? Py_True : Py_False, "error_model",
                         o->error_model_numpy ? "numpy" : "python", "debug",
                         o->debug ? Py_True : Py_False, "opt", o->opt_level, "parallel",
                         o->parallel ? Py_True : Py_False);
}

/* targetoptions: one dict per dispatcher, so that a change made in it (stumpy sets
 * f.targetoptions["fastmath"]) is what recompile() compiles with, as in Numba. */
static PyObject *dispatcher_get_targetoptions(PyObject *self, void *closure)
{
    RtDispatcher *d = (RtDispatcher *)self;
    if (!d->targetoptions)
        d->targetoptions = options_dict(&d->opts);
    return Py_XNewRef(d->targetoptions);
}

static PyObject *dispatcher_get_cache(PyObject *self, void *closure)
{
    return PyBool_FromLong(((RtDispatcher *)self)->cache);
}

/* _declared: the declared signatures, ((argument names), return name or None) each, in order:
 * they decide how calls from compiled code bind (the on-disk cache keys on them). */
static PyObject *dispatcher_get_declared(PyObject *self, void *closure)
{
    RtDispatcher *d = (RtDispatcher *)self;
    PyObject *list = PyList_New(d->nsigs);
    for (int i = 0; list && i < d->nsigs; i++) {
        PyObject *args = PyTuple_New(d->nargs);
        for (int k = 0; args && k < d->nargs; k++) {
            PyObject *s = PyUnicode_FromString(d->sigs[i].args[k]->name);
            if (!s)
                Py_CLEAR(args);
            else
                PyTuple_SET_ITEM(args, k, s);   /* stolen */
        }
        PyObject *sig = args ? Py_BuildValue("(Nz)", args, d->sigs[i].ret ? d->sigs[i].ret->name
                                                                             : NULL)
                             : NULL;
        if (!sig)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, i, sig);   /* stolen */
    }
    return list;
}

static PyObject *dispatcher_get_can_compile(PyObject *self, void *closure)
{
    return PyBool_FromLong(((RtDispatcher *)self)->can_compile);
}

static PyObject *dispatcher_repr(PyObject *self)
{
    return PyUnicode_FromFormat("CPUDispatcher(%R)", ((RtDispatcher *)self)->py_func);
}

/* Pickled by reference when another process can import it, else by value (the Python function's
 * code and what the decorator was given): pyjit/_serialize.py. */
static PyObject *dispatcher_reduce(PyObject *self, PyObject *unused)
{
    PyObject *mod = PyImport_ImportModule("pyjit._serialize");
    PyObject *r = mod ? PyObject_CallMethod(mod, "reduce", "O", self) : NULL;
    Py_XDECREF(mod);
    return r;
}

static int set_options(RtDispatcher *d, PyObject *nogil, PyObject *fastmath, PyObject *boundscheck,
                       const char *error_model, PyObject *debug, int opt, int parallel);

/* The options targetoptions now holds made the dispatcher's (parallel stays as decorated: its
 * loops were outlined then), and the dict rewritten in their canonical form. */
static int apply_targetoptions(RtDispatcher *d)
{
    PyObject *t = d->targetoptions;   /* its items are borrowed below */
    PyObject *mod = PyImport_ImportModule("pyjit.decorators");
    if (!mod)
        return -1;
    PyObject *given = PyDict_GetItemString(t, "fastmath");
    PyObject *fastmath = given ? PyObject_CallMethod(mod, "fastmath_flags", "O", given) : NULL;
    Py_DECREF(mod);
    if (given && !fastmath)
        return -1;
    PyObject *err = PyDict_GetItemString(t, "error_model"), *opt = PyDict_GetItemString(t, "opt");
    const char *model = err && PyUnicode_Check(err) ? PyUnicode_AsUTF8(err) : "python";
    int level = opt && PyLong_Check(opt) ? (int)PyLong_AsLong(opt) : -1;
    bool gpu_sim = d->opts.gpu_sim, parallel = d->opts.parallel;
    int rc = set_options(d, PyDict_GetItemString(t, "nogil"), fastmath,
                         PyDict_GetItemString(t, "boundscheck"), model,
                         PyDict_GetItemString(t, "debug"), level, parallel);
    Py_XDECREF(fastmath);
    if (rc < 0)
        return -1;
    if (gpu_sim)
        d->opts.gpu_sim = d->opts.boundscheck = true;
    PyObject *canonical = options_dict(&d->opts);
    if (!canonical)
        return -1;
    PyDict_Clear(t);
    rc = PyDict_Update(t, canonical);
    Py_DECREF(canonical);
    return rc;
}

/* recompile(): the versions compiled so far compiled afresh with the options targetoptions holds
 * now, as Numba's. Calls from Python get the new ones; the old ones stay alive (retired), since
 * compiled code that already calls them keeps calling them, as in Numba. */
static PyObject *dispatcher_recompile(PyObject *self, PyObject *unused)
{
    RtDispatcher *d = (RtDispatcher *)self;
    if (d->targetoptions && apply_targetoptions(d) < 0)
        return NULL;
    int n = d->nversions;
    RtVersion **retired = realloc(d->retired, ((size_t)d->nretired + (size_t)n + 1) * sizeof *retired);
    if (!retired)
        return PyErr_NoMemory();
    d->retired = retired;
    memcpy(d->retired + d->nretired, d->versions, (size_t)n * sizeof *retired);
    RtVersion **old = d->retired + d->nretired;
    d->nretired += n;
    d->nversions = 0;
    for (size_t i = 0; i < d->table_cap; i++) {
        free(d->table[i].key);
        d->table[i] = (RtEntry){0};
    }
    d->table_len = 0;
    d->last.key = NULL;
    compile_lock(d);
    bool ok = true;
    if (d->nsigs && !d->can_compile) {
        for (int i = 0; ok && i < d->nsigs; i++)
            ok = compile_signature(d, &d->sigs[i]) != NULL;
    } else {
        for (int i = 0; ok && i < n; i++)
            ok = table_find(d, old[i]->argtypes) || compile_for(d, old[i]->argtypes, NULL);
    }
    compile_unlock(d);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

/* enable_caching(): versions compiled from now on are stored on disk, as with cache=True. */
static PyObject *dispatcher_enable_caching(PyObject *self, PyObject *unused)
{
    RtDispatcher *d = (RtDispatcher *)self;
    d->cache = !d->cfunc && !d->opts.gpu_sim;
    Py_RETURN_NONE;
}

static PyMethodDef dispatcher_methods[] = {
    {"recompile", dispatcher_recompile, METH_NOARGS,
     "recompile(): compiles the versions so far afresh, with the options targetoptions holds now."},
    {"enable_caching", dispatcher_enable_caching, METH_NOARGS,
     "enable_caching(): versions compiled from now on are cached on disk (cache=True)."},
    {"__reduce__", dispatcher_reduce, METH_NOARGS, "Pickles the dispatcher by reference, or by value where no other process could import it."},
    {"_add_signature", dispatcher_add_signature, METH_VARARGS,
     "_add_signature(argtypes, ret, compile=True): declares a signature (canonical names)."},
    {"_cfunc_address", rt_cfunc_address, METH_NOARGS,
     "The C entry of a @cfunc's version (cfunc.c), as an int."},
    {"compile", dispatcher_compile, METH_O,
     "compile(signature): compiles a version now ('float64(float64, int64)', a Signature, ...)."},
    {"disable_compile", dispatcher_disable_compile, METH_VARARGS,
     "disable_compile(val=True): no more versions compiled on calls (casts to the signatures)."},
    {"inspect_types", (PyCFunction)(void (*)(void))dispatcher_inspect_types,
     METH_VARARGS | METH_KEYWORDS, "inspect_types(signature=None, file=None): the typed IR as text, or written to file."},
    {"inspect_llvm", (PyCFunction)(void (*)(void))dispatcher_inspect_llvm,
     METH_VARARGS | METH_KEYWORDS,
     "inspect_llvm(signature=None): optimised LLVM IR, {signature: text} or one text."},
    {"inspect_asm", (PyCFunction)(void (*)(void))dispatcher_inspect_asm,
     METH_VARARGS | METH_KEYWORDS,
     "inspect_asm(signature=None): machine code, {signature: text} or one text."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef dispatcher_members[] = {
    {"py_func", T_OBJECT_EX, offsetof(RtDispatcher, py_func), READONLY, "The Python function."},
    {"_code", T_OBJECT_EX, offsetof(RtDispatcher, code), READONLY,
     "The code object the function had when decorated (what is compiled)."},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef dispatcher_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {"signatures", dispatcher_get_signatures, NULL, "Argument types of the compiled versions.", NULL},
    {"nopython_signatures", dispatcher_get_nopython_signatures, NULL,
     "Signatures (return and argument types) of the compiled versions.", NULL},
    {"overloads", dispatcher_get_overloads, NULL, "{argument types: Signature}.", NULL},
    {"targetoptions", dispatcher_get_targetoptions, NULL, "The compile options.", NULL},
    {"_can_compile", dispatcher_get_can_compile, NULL, "Whether calls compile new versions.", NULL},
    {"_declared", dispatcher_get_declared, NULL, "The declared signatures, as canonical names.", NULL},
    {"_cache", dispatcher_get_cache, NULL, "Whether versions are cached on disk (cache=True).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- life cycle ---- */

static int option_flag(PyObject *value, bool dflt)
{
    return !value || value == Py_None ? dflt : PyObject_IsTrue(value);
}

static int set_options(RtDispatcher *d, PyObject *nogil, PyObject *fastmath, PyObject *boundscheck,
                       const char *error_model, PyObject *debug, int opt, int parallel)
{
    CompileOptions *o = &d->opts;
    rt_default_options(o);
    o->parallel = parallel;
    int flags[4] = {option_flag(nogil, false), option_flag(fastmath, false),
                    option_flag(boundscheck, true), option_flag(debug, o->debug)};
    for (int i = 0; i < 4; i++)
        if (flags[i] < 0)
            return -1;
    o->nogil = flags[0];
    o->fastmath = flags[1];
    o->boundscheck = rt_boundscheck_env() >= 0 ? rt_boundscheck_env() : flags[2];
    o->debug = flags[3];
    if (strcmp(error_model, "python") != 0 && strcmp(error_model, "numpy") != 0) {
        PyErr_Format(PyExc_ValueError, "error_model must be 'python' or 'numpy', not '%s'", error_model);
        return -1;
    }
    o->error_model_numpy = strcmp(error_model, "numpy") == 0;
    if (opt != -1 && (opt < 0 || opt > 3)) {   /* -1: not given, PYJIT_OPT/NUMBA_OPT's */
        PyErr_Format(PyExc_ValueError, "opt must be 0 to 3, not %d", opt);
        return -1;
    }
    if (opt != -1)
        o->opt_level = opt;
    return 0;
}

/* Reads the argument names and defaults off the function's code object. */
static int read_arguments(RtDispatcher *d)
{
    PyCodeObject *code = (PyCodeObject *)PyFunction_GET_CODE(d->py_func);
    if (code->co_flags & CO_VARKEYWORDS) {
        Diag diag = {0};
        diag_error(&diag, DIAG_UNSUPPORTED, d->cname, PyUnicode_AsUTF8(code->co_filename),
                   code->co_firstlineno, -1, -1,
                   "functions with **kwargs are not supported in compiled code");
        rt_raise_diag(&diag);
        return -1;
    }
    d->generator = (code->co_flags & CO_GENERATOR) != 0;
    d->varargs = (code->co_flags & CO_VARARGS) != 0;
    d->npositional = code->co_argcount;
    d->nposonly = code->co_posonlyargcount;
    d->nargs = code->co_argcount + code->co_kwonlyargcount + d->varargs;
    if (d->nargs > RT_MAX_ARGS) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d arguments; compiled functions take at most %d",
                     d->cname, d->nargs, RT_MAX_ARGS);
        return -1;
    }
    PyObject *varnames = PyCode_GetVarnames(code);
    d->argnames = varnames ? PyTuple_GetSlice(varnames, 0, d->nargs) : NULL;
    Py_XDECREF(varnames);
    if (!d->argnames)
        return -1;
    PyObject *defaults = PyFunction_GET_DEFAULTS(d->py_func);
    PyObject *kwdefaults = PyFunction_GET_KW_DEFAULTS(d->py_func);
    d->defaults = defaults ? Py_NewRef(defaults) : PyTuple_New(0);
    d->ndefaults = (int)PyTuple_GET_SIZE(d->defaults);
    d->kwdefaults = Py_XNewRef(kwdefaults);
    return 0;
}

static PyObject *dispatcher_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"py_func", "registry", "nogil", "fastmath", "boundscheck",
                             "error_model", "debug", "opt", "cache", "cfunc", "parallel",
                             "gpu_sim", "inline_always", NULL};
    PyObject *py_func, *registry, *nogil = NULL, *fastmath = NULL, *boundscheck = NULL, *debug = NULL;
    const char *error_model = "python";
    int opt = -1, cache = 0, cfunc = 0, parallel = 0, gpu_sim = 0, inline_always = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO!|$OOOsOippppp:Dispatcher", kwlist, &py_func,
                                     &PyDict_Type, &registry, &nogil, &fastmath, &boundscheck,
                                     &error_model, &debug, &opt, &cache, &cfunc, &parallel,
                                     &gpu_sim, &inline_always))
        return NULL;
    if (!PyFunction_Check(py_func))
        return PyErr_Format(PyExc_TypeError, "njit needs a Python function, got %R", py_func);
    RtDispatcher *d = (RtDispatcher *)type->tp_alloc(type, 0);
    if (!d)
        return NULL;
    d->vectorcall = dispatcher_vectorcall;
    d->py_func = Py_NewRef(py_func);
    d->code = Py_NewRef(PyFunction_GET_CODE(py_func));
    d->registry = Py_NewRef(registry);
    d->can_compile = true;
    d->inline_always = inline_always;
    /* a cfunc's C entry, and a simulated kernel's block function, are not in the cache's entries */
    d->cache = cache && !cfunc && !gpu_sim;
    d->cfunc = cfunc;
    d->name = PyObject_GetAttrString(py_func, "__name__");
    d->cname = d->name ? PyUnicode_AsUTF8(d->name) : NULL;
    d->lock = PyThread_allocate_lock();
    if (!d->cname || !d->lock || read_arguments(d) < 0 ||
        set_options(d, nogil, fastmath, boundscheck, error_model, debug, opt, parallel) < 0) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        Py_DECREF(d);
        return NULL;
    }
    if (gpu_sim) {   /* kernels are checked under the simulator, whatever PYJIT_BOUNDSCHECK says */
        d->opts.gpu_sim = true;
        d->opts.boundscheck = true;
    }
    return (PyObject *)d;
}

static int dispatcher_traverse(PyObject *self, visitproc visit, void *arg)
{
    RtDispatcher *d = (RtDispatcher *)self;
    Py_VISIT(d->dict);
    Py_VISIT(d->py_func);
    Py_VISIT(d->registry);
    Py_VISIT(d->defaults);
    Py_VISIT(d->kwdefaults);
    for (int i = 0; i < d->nversions; i++)
        Py_VISIT(d->versions[i]->keepalive);
    for (int i = 0; i < d->nretired; i++)
        Py_VISIT(d->retired[i]->keepalive);
    Py_VISIT(d->targetoptions);
    return 0;
}

static int dispatcher_clear(PyObject *self)
{
    RtDispatcher *d = (RtDispatcher *)self;
    /* registry and py_func stay: a call during collection must still find them; the cycles
     * they take part in are broken at the other objects (module dicts, closure cells). */
    Py_CLEAR(d->dict);
    Py_CLEAR(d->defaults);
    d->ndefaults = 0;
    Py_CLEAR(d->kwdefaults);
    Py_CLEAR(d->targetoptions);
    return 0;
}

static void dispatcher_dealloc(PyObject *self)
{
    RtDispatcher *d = (RtDispatcher *)self;
    PyObject_GC_UnTrack(self);
    if (d->weakrefs)
        PyObject_ClearWeakRefs(self);
    dispatcher_clear(self);
    Py_XDECREF(d->registry);
    for (int i = 0; i < d->nversions; i++)
        rt_version_free(d->versions[i]);
    free(d->versions);
    for (int i = 0; i < d->nretired; i++)
        rt_version_free(d->retired[i]);
    free(d->retired);
    for (size_t i = 0; i < d->table_cap; i++)
        free(d->table[i].key);
    free(d->table);
    for (int i = 0; i < d->nsigs; i++)
        free(d->sigs[i].args);
    free(d->sigs);
    if (d->lock)
        PyThread_free_lock(d->lock);
    Py_XDECREF(d->py_func);
    Py_XDECREF(d->code);
    Py_XDECREF(d->argnames);
    Py_XDECREF(d->name);
    Py_TYPE(self)->tp_free(self);
}

PyTypeObject RtDispatcherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit._core.Dispatcher",
    .tp_basicsize = sizeof(RtDispatcher),
    .tp_dealloc = dispatcher_dealloc,
    .tp_vectorcall_offset = offsetof(RtDispatcher, vectorcall),
    .tp_repr = dispatcher_repr,
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A function compiled by pyjit for the argument types it is called with.",
    .tp_traverse = dispatcher_traverse,
    .tp_clear = dispatcher_clear,
    .tp_weaklistoffset = offsetof(RtDispatcher, weakrefs),
    .tp_methods = dispatcher_methods,
    .tp_members = dispatcher_members,
    .tp_getset = dispatcher_getset,
    .tp_dictoffset = offsetof(RtDispatcher, dict),
    .tp_new = dispatcher_new,
};
