/* diag.h: diagnostics, collected as structs and turned into Python exceptions at one edge
 * (runtime/errors.c). Compiler stages never raise: they fill a Diag and return NULL/-1. */
#ifndef PYJIT_DIAG_H
#define PYJIT_DIAG_H

typedef enum DiagKind {
    DIAG_NONE = 0,
    DIAG_UNSUPPORTED,   /* pyjit.errors.UnsupportedError: a construct pyjit does not compile */
    DIAG_TYPING,        /* pyjit.errors.TypingError: types that do not fit together */
    DIAG_TYPE_ERROR,    /* TypeError: a wrong argument or signature */
    DIAG_VALUE_ERROR,   /* ValueError */
    DIAG_INTERNAL,      /* pyjit.errors.InternalError: a bug in pyjit */
    DIAG_MEMORY,        /* MemoryError: the compiler ran out of memory */
    DIAG_LITERAL,       /* literally(x) met x, argument literal_arg of func_name, not compiled
                         * for one value: its caller compiles it again for the value it passes
                         * (infer_calls.c: call_jit), the dispatcher for the value given
                         * (runtime/dispatch.c); a TypingError where neither can */
} DiagKind;

typedef struct Diag {
    DiagKind kind;
    char message[2048];
    const char *func_name;  /* qualified name of the function being compiled */
    const char *file;
    int line;               /* 1-based; 0 when unknown */
    int col, end_col;       /* 0-based columns of the offending expression; -1 when unknown */
    int literal_arg;        /* DIAG_LITERAL: the argument asked for */
    int literal_shape;      /* DIAG_LITERAL: asked by a shared or local array's shape, not by
                             * literally(): callers passing a constant compile the function
                             * again for it, as Numba's literal arguments do, but a kernel or a
                             * dispatcher makes no version per value for it (Numba does not) */
} Diag;

/* Records the first error only: later ones are usually consequences of it. Returns -1 so callers
 * can write `return diag_error(...)`. file/func may be NULL. */
int diag_error(Diag *diag, DiagKind kind, const char *func, const char *file, int line, int col,
               int end_col, const char *fmt, ...) __attribute__((format(printf, 8, 9)));

#endif
