/* runtime.h: the interface of runtime/, the Python-facing half of pyjit.
 *
 *   module.c    the extension module pyjit._core and its functions
 *   dispatch.c  the Dispatcher type: argument types -> compiled version -> call
 *   typeof.c    Python values -> pyjit types; unboxing arguments and boxing results
 *   nrt.c       reference-counted memory for arrays made by compiled code (abi.h)
 *   errors.c    Diag and ExcInfo -> Python exceptions, in one place
 *   compile.c   drives frontend + compiler for a dispatcher (CompilerHost) */
#ifndef PYJIT_RUNTIME_H
#define PYJIT_RUNTIME_H

#include <Python.h>

#include "compiler/compiler.h"
#include "compiler/diag.h"

/* errors.c: raises the Python exception a Diag describes (pyjit.errors classes, with the source
 * line and a caret) and returns NULL. */
PyObject *rt_raise_diag(const Diag *diag);

#endif
