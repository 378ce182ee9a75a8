/* diag.c: filling a Diag. */
#include "compiler/diag.h"

#include <stdarg.h>
#include <stdio.h>

int diag_error(Diag *diag, DiagKind kind, const char *func, const char *file, int line, int col,
               int end_col, const char *fmt, ...)
{
    if (!diag || diag->kind != DIAG_NONE)
        return -1;
    diag->kind = kind;
    diag->func_name = func;
    diag->file = file;
    diag->line = line;
    diag->col = col;
    diag->end_col = end_col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(diag->message, sizeof diag->message, fmt, ap);
    va_end(ap);
    return -1;
}
