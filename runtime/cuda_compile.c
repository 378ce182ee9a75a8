/* cuda_compile.c: the compiler side of @gpu.jit, behind cuda_compile_kernel (runtime/cuda.h).
 *
 * The same pipeline as @njit (compiler/pipeline.c) with the Program's gpu flag set: the
 * CompilerHost below builds the IR of the kernel and of the device functions (and @njit
 * functions) it calls, and the pipeline types it for the launch's argument types and emits PTX
 * for target_nvptx. The result, with which array arguments the kernel may write (so that only
 * those are copied back to host arrays after a launch), is handed out in a CudaKernelCode. */
#include "runtime/cuda.h"
#include "runtime/runtime.h"
#include "frontend/frontend.h"

#include <stdio.h>
#include <string.h>

/* ---- the CompilerHost: the kernel, and the functions it calls --------------------------------- */

/* handle: the kernel's Python function, an @njit dispatcher, or a device function (which keeps
 * its Python function as py_func). */
static IRFunc *gpu_get_ir(void *ctx, void *handle, Arena *arena, Diag *diag)
{
    PyObject *registry = ctx, *obj = handle;
    if (PyFunction_Check(obj))
        return fe_build(obj, registry, rt_is_dispatcher, arena, diag);
    if (rt_is_dispatcher(obj))
        return fe_build(((RtDispatcher *)obj)->py_func, registry, rt_is_dispatcher, arena, diag);
    PyObject *func = PyObject_GetAttrString(obj, "py_func");
    if (!func)
        PyErr_Clear();   /* not a function at all: the frontend says what it is */
    IRFunc *ir = fe_build(func ? func : obj, registry, rt_is_dispatcher, arena, diag);
    Py_XDECREF(func);
    return ir;
}

static Type *gpu_known_return(void *ctx, void *handle, Type **args, int nargs)
{
    return NULL;   /* device functions are typed from their bodies, for each call's types */
}

/* A device function's declared signature (its _declared: argument names, return name or None,
 * canonical): 1 with params and *ret set when the arguments convert to it, -1 when they do not,
 * 0 when it declared none. */
static int device_signature(PyObject *func, Type **args, int nargs, Type **params, Type **ret,
                            char *why, size_t why_size)
{
    PyObject *sig = PyObject_GetAttrString(func, "_declared");
    int rc = 0;
    if (!sig || sig == Py_None || !PyTuple_Check(sig) || PyTuple_GET_SIZE(sig) != 2)
        goto done;
    PyObject *names = PyTuple_GET_ITEM(sig, 0), *rname = PyTuple_GET_ITEM(sig, 1);   /* borrowed */
    const char *r = rname == Py_None ? NULL : PyUnicode_AsUTF8(rname);
    rc = PyTuple_Check(names) && PyTuple_GET_SIZE(names) == nargs ? 1 : -1;
    for (int i = 0; rc == 1 && i < nargs; i++) {
        const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i));
        params[i] = name ? ty_parse(name) : NULL;
        if (!params[i] || rt_conversion_rank(args[i], params[i]) < 0)
            rc = -1;
    }
    *ret = r ? ty_parse(r) : NULL;
    if (rc < 0) {
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *text = sep ? PyUnicode_Join(sep, names) : NULL;
        Py_XDECREF(sep);
        const char *t = text ? PyUnicode_AsUTF8(text) : NULL;
        snprintf(why, why_size, "\n    %s(%s)", r ? r : "", t ? t : "");
        Py_XDECREF(text);
    }
done:
    Py_XDECREF(sig);
    PyErr_Clear();   /* a missing or malformed _declared is no signature */
    return rc;
}

/* A callee with declared signatures, called from a kernel, binds as from Python: an @njit
 * dispatcher through its own choice, a device function through its one signature. */
int rt_gpu_declared_signature(void *ctx, void *handle, Type **args, int nargs, Type **params,
                              Type **ret, char *why, size_t why_size)
{
    if (rt_is_dispatcher(handle))
        return rt_declared_signature(ctx, handle, args, nargs, params, ret, why, why_size);
    if (PyFunction_Check((PyObject *)handle))
        return 0;
    return device_signature(handle, args, nargs, params, ret, why, why_size);
}

/* ---- the compilation ------------------------------------------------------------------------- */

/* The exception classes the kernel may raise, known to kernel_errors.c by their address. */
static void register_classes(Program *prog)
{
    for (int i = 0; i < prog->refs.len; i++) {
        CodeRef *r = prog->refs.items[i];
        if (r->kind == REF_EXCCLASS && cuda_fault_register_class(r->handle) < 0)
            PyErr_Clear();   /* without memory: its record raises a RuntimeError instead */
    }
}

/* launch_bounds' third item, .maxclusterrank, which LLVM 16's NVPTX back end does not write:
 * put among the entry's other performance directives, just before its body's opening brace. */
static const char *with_cluster_rank(const char *ptx, int rank, Arena *arena)
{
    const char *entry = rank > 0 && ptx ? strstr(ptx, ".entry ") : NULL;
    const char *params_end = entry ? strchr(entry, ')') : NULL;
    const char *body = params_end ? strchr(params_end, '{') : NULL;
    if (!body)
        return ptx;
    return arena_printf(arena, "%.*s.maxclusterrank %d\n%s", (int)(body - ptx), ptx, rank, body);
}

int cuda_compile_kernel(PyObject *pyfunc, PyObject *registry, Type **argtypes, int nargs,
                        const CudaCompileOptions *opts, Arena *arena, CudaKernelCode *out,
                        Diag *diag)
{
    CompilerHost host = {.ctx = registry, .get_ir = gpu_get_ir, .known_return = gpu_known_return,
                         .declared_signature = rt_gpu_declared_signature,
                         .resolve_overload = rt_resolve_overload,
                         .method_overloads = rt_method_overloads,
                         .options_of = rt_callee_options};
    Program prog = {.arena = arena, .opts = &opts->base, .host = &host, .gpu = true,
                    .gpu_device = opts->device, .gpu_c_abi = opts->c_abi_name, .gpu_cc = opts->cc_major * 10 + opts->cc_minor,
                    .gpu_aligned = opts->aligned, .gpu_noalias = opts->noalias,
                    .gpu_maxnreg = opts->max_registers, .lineinfo = opts->lineinfo,
                    .gpu_bounds = {opts->launch_bounds[0], opts->launch_bounds[1],
                                   opts->launch_bounds[2]}};
    if (pipeline_compile(&prog, pyfunc, argtypes, nargs, NULL, NULL, diag) < 0)
        return -1;
    out->ptx = with_cluster_rank(prog.asm_dump, opts->launch_bounds[2], arena);
    out->entry = prog.gpu_entry;
    register_classes(&prog);
    out->written = prog.written;
    out->types_dump = prog.types_dump;
    out->llvm_dump = prog.llvm_dump;
    return 0;
}
