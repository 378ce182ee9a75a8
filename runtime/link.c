/* link.c: kernels joined with foreign device code by the driver's linker.
 *
 * A kernel that calls a function of gpu.declare_device (its PTX declares it .extern), or that
 * was given @gpu.jit(link=[...]), is not loaded from its PTX alone: pyjit/gpu/_link.py says
 * what else goes in (files read, CUDA C compiled through NVRTC), and cuLinkCreate,
 * cuLinkAddData and cuLinkComplete make one cubin of it all, loaded as the kernel's module.
 * The functions the driver itself provides (vprintf, malloc, free, __assertfail), which kernels
 * also declare .extern, need no link. */
#define PY_SSIZE_T_CLEAN   /* y# takes a Py_ssize_t length */
#include "runtime/cuda.h"
#include "runtime/runtime.h"

#include <string.h>

enum {   /* CUjit_option and CUjitInputType numbers (the driver's ABI) */
    LINK_ERROR_LOG_BUFFER = 5, LINK_ERROR_LOG_BUFFER_SIZE_BYTES = 6, LINK_LTO = 20,
    LINK_INPUT_PTX = 1, LINK_INPUT_NVVM = 5,
};

/* The files kernel's link= gave (a tuple), or an empty tuple for a kernel without them. */
static PyObject *link_files(PyObject *kernel)
{
    PyObject *files = kernel ? PyObject_GetAttrString(kernel, "_link") : NULL;
    if (!files) {
        PyErr_Clear();
        files = PyTuple_New(0);
    }
    return files;
}

/* [(data, input type, name)] for the kernel (pyjit.gpu._link.inputs): empty for a kernel
 * without link files that calls no declared function. Python is asked only when the PTX
 * declares some function .extern or the kernel has link files. */
static PyObject *link_inputs(PyObject *kernel, const char *ptx, int dev)
{
    PyObject *files = link_files(kernel);
    int any_files = files ? PyObject_IsTrue(files) : -1;
    if (any_files < 0 || (!any_files && !strstr(ptx, ".extern .func"))) {
        Py_XDECREF(files);
        return any_files < 0 ? NULL : PyList_New(0);
    }
    const CudaDeviceInfo *info = cuda_device_info(dev);
    PyObject *mod = info ? PyImport_ImportModule("pyjit.gpu._link") : NULL;
    PyObject *inputs = mod ? PyObject_CallMethod(mod, "inputs", "sO(ii)", ptx, files,
                                                 info->cc_major, info->cc_minor) : NULL;
    Py_XDECREF(mod);
    Py_DECREF(files);
    if (inputs && !PyList_Check(inputs)) {
        Py_CLEAR(inputs);
        PyErr_SetString(PyExc_SystemError, "pyjit.gpu._link.inputs did not return a list");
    }
    return inputs;
}

static int link_fail(CUresult r, const char *what, const char *log, const char *kname)
{
    char text[4400];
    snprintf(text, sizeof text, "%s for kernel '%s'%s%s", what, kname, log[0] ? ":\n" : "", log);
    cuda_raise(r, text, kname);
    return -1;
}

/* Adds each input to the link; 0, or -1 with an exception. */
static int add_inputs(CUlinkState st, PyObject *inputs, const char *log, const char *kname)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(inputs); i++) {
        const char *data, *name;
        Py_ssize_t size;
        int kind;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(inputs, i), "y#is", &data, &size, &kind, &name))
            return -1;
        CUresult r = cuda_api.cuLinkAddData(st, kind, (void *)data, (size_t)size, name, 0, NULL,
                                            NULL);
        if (r != CUDA_SUCCESS) {
            char what[1100];
            snprintf(what, sizeof what, "linking %s", name);
            return link_fail(r, what, log, kname);
        }
    }
    return 0;
}

static bool any_lto(PyObject *inputs)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(inputs); i++) {
        PyObject *item = PyList_GET_ITEM(inputs, i);
        if (PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 3 &&
            PyLong_AsLong(PyTuple_GET_ITEM(item, 1)) == LINK_INPUT_NVVM)
            return true;
    }
    PyErr_Clear();
    return false;
}

/* 1: nothing to link, the caller loads the PTX alone. */
int cuda_link_load(PyObject *kernel, const char *ptx, int dev, CUmodule *out, const char *kname)
{
    PyObject *inputs = link_inputs(kernel, ptx, dev);
    if (!inputs)
        return -1;
    if (PyList_GET_SIZE(inputs) == 0) {
        Py_DECREF(inputs);
        return 1;
    }
    char log[4096] = "";
    int opts[] = {LINK_ERROR_LOG_BUFFER, LINK_ERROR_LOG_BUFFER_SIZE_BYTES, LINK_LTO};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log, (void *)(uintptr_t)1};
    CUlinkState st = NULL;
    void *cubin = NULL;
    size_t size = 0;
    int rc = -1;
    CUresult r = cuda_api.cuLinkCreate(any_lto(inputs) ? 3 : 2, opts, vals, &st);
    if (r != CUDA_SUCCESS) {
        st = NULL;
        link_fail(r, "starting the link", log, kname);
        goto done;
    }
    r = cuda_api.cuLinkAddData(st, LINK_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "kernel", 0,
                               NULL, NULL);
    if (r != CUDA_SUCCESS) {
        link_fail(r, "linking the kernel's PTX", log, kname);
        goto done;
    }
    if (add_inputs(st, inputs, log, kname) < 0)
        goto done;
    if ((r = cuda_api.cuLinkComplete(st, &cubin, &size)) != CUDA_SUCCESS) {
        link_fail(r, "completing the link", log, kname);
        goto done;
    }
    if ((r = cuda_api.cuModuleLoadDataEx(out, cubin, 0, NULL, NULL)) != CUDA_SUCCESS) {
        *out = NULL;
        link_fail(r, "loading the linked code", "", kname);
        goto done;
    }
    rc = 0;
done:
    if (st)
        cuda_api.cuLinkDestroy(st);   /* frees the cubin, which the module has copied */
    Py_DECREF(inputs);
    return rc;
}
