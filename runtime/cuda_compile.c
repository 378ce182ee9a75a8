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

/* An @njit function with declared signatures, called from a kernel, binds as from Python. */
static int gpu_declared_signature(void *ctx, void *handle, Type **args, int nargs, Type **params,
                                  Type **ret, char *why, size_t why_size)
{
    if (!rt_is_dispatcher(handle))
        return 0;
    return rt_declared_signature(ctx, handle, args, nargs, params, ret, why, why_size);
}

/* ---- the compilation ------------------------------------------------------------------------- */

int cuda_compile_kernel(PyObject *pyfunc, PyObject *registry, Type **argtypes, int nargs,
                        const CudaCompileOptions *opts, Arena *arena, CudaKernelCode *out,
                        Diag *diag)
{
    CompilerHost host = {.ctx = registry, .get_ir = gpu_get_ir, .known_return = gpu_known_return,
                         .declared_signature = gpu_declared_signature,
                         .resolve_overload = rt_resolve_overload,
                         .method_overloads = rt_method_overloads,
                         .options_of = rt_callee_options};
    Program prog = {.arena = arena, .opts = &opts->base, .host = &host, .gpu = true,
                    .gpu_device = opts->device, .gpu_cc = opts->cc_major * 10 + opts->cc_minor,
                    .gpu_aligned = opts->aligned, .gpu_noalias = opts->noalias};
    if (pipeline_compile(&prog, pyfunc, argtypes, nargs, NULL, NULL, diag) < 0)
        return -1;
    out->ptx = prog.asm_dump;
    out->entry = prog.gpu_entry;
    out->written = prog.written;
    out->types_dump = prog.types_dump;
    out->llvm_dump = prog.llvm_dump;
    return 0;
}
