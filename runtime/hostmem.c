/* hostmem.c: host memory that kernels use in place, and memory shared between processes.
 *
 *   - mapped memory (gpu.mapped_array): page-locked host memory the GPU reads and writes over
 *     the bus (cuMemHostAlloc with DEVICEMAP);
 *   - managed memory (gpu.managed_array): unified memory that the driver migrates between host
 *     and GPU on use (cuMemAllocManaged);
 *   - registered memory (gpu.pinned(...), gpu.mapped(...)): an existing NumPy array page-locked
 *     in place for the duration of a `with` (cuMemHostRegister), mapped for the GPU or not;
 *   - IPC handles (DeviceNDArray.get_ipc_handle, gpu.open_ipc_array): a device allocation opened
 *     by another process (cuIpcGetMemHandle / cuIpcOpenMemHandle).
 *
 * pyjit.gpu.hardware makes NumPy arrays over the memory; each allocation or registration is a
 * capsule that frees or unregisters it when the last array over it goes. The ranges the GPU can
 * reach are kept in a table, so that a launch passes such an array's device address instead of
 * copying it (launch.c: classify_host asks cuda_host_device_pointer). Under the GIL. */
#include "runtime/cuda.h"

#include <string.h>

enum {   /* the driver's flags (cuda.h) */
    MEMHOSTALLOC_PORTABLE = 0x01, MEMHOSTALLOC_DEVICEMAP = 0x02, MEMHOSTALLOC_WRITECOMBINED = 0x04,
    MEMHOSTREGISTER_PORTABLE = 0x01, MEMHOSTREGISTER_DEVICEMAP = 0x02,
    MEM_ATTACH_GLOBAL = 0x01, MEM_ATTACH_HOST = 0x02,
    IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x01,
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
};

/* ---- the ranges kernels reach in place ---- */

typedef struct Range {
    uintptr_t host;
    size_t bytes;
    CUdeviceptr dev;
} Range;

static Range *ranges;
static int nranges, cap_ranges;

static int add_range(uintptr_t host, size_t bytes, CUdeviceptr dev)
{
    if (nranges == cap_ranges) {
        int cap = cap_ranges ? 2 * cap_ranges : 16;
        Range *r = PyMem_Realloc(ranges, sizeof *r * (size_t)cap);
        if (!r) {
            PyErr_NoMemory();
            return -1;
        }
        ranges = r;
        cap_ranges = cap;
    }
    ranges[nranges++] = (Range){host, bytes, dev};
    return 0;
}

static void remove_range(uintptr_t host)
{
    for (int i = 0; i < nranges; i++)
        if (ranges[i].host == host) {
            ranges[i] = ranges[--nranges];
            return;
        }
}

bool cuda_host_device_pointer(const void *p, CUdeviceptr *dev)
{
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < nranges; i++)
        if (a >= ranges[i].host && a - ranges[i].host < ranges[i].bytes) {
            *dev = ranges[i].dev + (a - ranges[i].host);
            return true;
        }
    return false;
}

/* ---- allocations and registrations, each owned by a capsule ---- */

typedef enum { HOST_MAPPED, HOST_MANAGED, HOST_REGISTERED } HostKind;

typedef struct HostBlock {
    void *ptr;
    size_t bytes;
    int device;
    HostKind kind;
    bool reachable;         /* in the range table */
} HostBlock;

/* Frees or unregisters b's memory and b itself; keeps the exception being raised, if any. */
static void free_block(HostBlock *b)
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    if (b->reachable)
        remove_range((uintptr_t)b->ptr);
    if (cuda_enter(b->device) == 0) {
        if (b->kind == HOST_MAPPED)
            cuda_api.cuMemFreeHost(b->ptr);
        else if (b->kind == HOST_MANAGED)
            cuda_api.cuMemFree((CUdeviceptr)(uintptr_t)b->ptr);
        else
            cuda_api.cuMemHostUnregister(b->ptr);
    }
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
    PyMem_Free(b);
}

static void block_release(PyObject *capsule)
{
    HostBlock *b = PyCapsule_GetPointer(capsule, "pyjit.hostmem");
    if (b)
        free_block(b);
}

/* (capsule, host address, device address) for block b, made reachable by kernels at dev (if
 * reachable; else the device address is 0). On failure b is freed. */
static PyObject *own_block(HostBlock *b, bool reachable, CUdeviceptr dev)
{
    PyObject *cap = NULL;
    if (reachable && add_range((uintptr_t)b->ptr, b->bytes, dev) < 0)
        goto fail;
    b->reachable = reachable;
    if (!(cap = PyCapsule_New(b, "pyjit.hostmem", block_release)))
        goto fail;
    return Py_BuildValue("(NKK)", cap, (unsigned long long)(uintptr_t)b->ptr,
                         (unsigned long long)dev);   /* the capsule frees b if this fails */
fail:
    free_block(b);
    return NULL;
}

static HostBlock *new_block(size_t bytes, HostKind kind)
{
    HostBlock *b = PyMem_Calloc(1, sizeof *b);
    if (!b)
        return (HostBlock *)PyErr_NoMemory();
    b->bytes = bytes;
    b->kind = kind;
    b->device = cuda_current_device();
    if (b->device < 0 || cuda_ensure() < 0 || cuda_enter(b->device) < 0) {
        PyMem_Free(b);
        return NULL;
    }
    return b;
}

/* cuda_mapped_alloc(bytes, portable, wc) -> (capsule, address, device address): page-locked
 * host memory mapped into the GPU's address space. */
static PyObject *py_mapped_alloc(PyObject *self, PyObject *args)
{
    unsigned long long bytes;
    int portable, wc;
    if (!PyArg_ParseTuple(args, "Kpp:cuda_mapped_alloc", &bytes, &portable, &wc))
        return NULL;
    HostBlock *b = new_block(bytes ? bytes : 1, HOST_MAPPED);
    if (!b)
        return NULL;
    unsigned flags = MEMHOSTALLOC_DEVICEMAP | (portable ? MEMHOSTALLOC_PORTABLE : 0) |
                     (wc ? MEMHOSTALLOC_WRITECOMBINED : 0);
    CUdeviceptr dev = 0;
    if (cuda_check(cuda_api.cuMemHostAlloc(&b->ptr, b->bytes, flags),
                   "allocating mapped host memory") < 0) {
        PyMem_Free(b);
        return NULL;
    }
    if (cuda_check(cuda_api.cuMemHostGetDevicePointer(&dev, b->ptr, 0),
                   "mapping host memory for the GPU") < 0) {
        cuda_api.cuMemFreeHost(b->ptr);
        PyMem_Free(b);
        return NULL;
    }
    return own_block(b, true, dev);
}

/* cuda_managed_alloc(bytes, attach_global) -> (capsule, address, device address): unified
 * memory, at the same address on the host and the GPU. */
static PyObject *py_managed_alloc(PyObject *self, PyObject *args)
{
    unsigned long long bytes;
    int global;
    if (!PyArg_ParseTuple(args, "Kp:cuda_managed_alloc", &bytes, &global))
        return NULL;
    HostBlock *b = new_block(bytes ? bytes : 1, HOST_MANAGED);
    if (!b)
        return NULL;
    CUdeviceptr p = 0;
    if (cuda_check(cuda_api.cuMemAllocManaged(&p, b->bytes,
                                              global ? MEM_ATTACH_GLOBAL : MEM_ATTACH_HOST),
                   "allocating managed memory") < 0) {
        PyMem_Free(b);
        return NULL;
    }
    b->ptr = (void *)(uintptr_t)p;
    return own_block(b, true, p);
}

/* cuda_host_register(address, bytes, mapped) -> (capsule, address, device address), or None
 * when there is nothing to do: page-locks existing host memory in place until the capsule goes;
 * mapped: also reachable by kernels. Memory already page-locked (another array on the same
 * pages, registered first) is left as it is. */
static PyObject *py_host_register(PyObject *self, PyObject *args)
{
    unsigned long long addr, bytes;
    int mapped;
    if (!PyArg_ParseTuple(args, "KKp:cuda_host_register", &addr, &bytes, &mapped))
        return NULL;
    if (!bytes)   /* nothing to lock: an empty array */
        Py_RETURN_NONE;
    HostBlock *b = new_block(bytes, HOST_REGISTERED);
    if (!b)
        return NULL;
    b->ptr = (void *)(uintptr_t)addr;
    unsigned flags = MEMHOSTREGISTER_PORTABLE | (mapped ? MEMHOSTREGISTER_DEVICEMAP : 0);
    CUdeviceptr dev = 0;
    CUresult r = cuda_api.cuMemHostRegister(b->ptr, b->bytes, flags);
    if (r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) {
        PyMem_Free(b);
        Py_RETURN_NONE;
    }
    if (cuda_check(r, "page-locking host memory") < 0) {
        PyMem_Free(b);
        return NULL;
    }
    if (mapped && cuda_check(cuda_api.cuMemHostGetDevicePointer(&dev, b->ptr, 0),
                             "mapping host memory for the GPU") < 0) {
        cuda_api.cuMemHostUnregister(b->ptr);
        PyMem_Free(b);
        return NULL;
    }
    return own_block(b, mapped, dev);
}

/* cuda_host_release(capsule): frees or unregisters now (the end of a `with gpu.pinned(...)`),
 * rather than when the capsule goes. */
static PyObject *py_host_release(PyObject *self, PyObject *cap)
{
    if (cap == Py_None)
        Py_RETURN_NONE;
    if (!PyCapsule_IsValid(cap, "pyjit.hostmem"))
        return PyErr_Format(PyExc_TypeError, "not a pyjit host memory block");
    if (PyCapsule_GetDestructor(cap)) {   /* not released yet */
        free_block(PyCapsule_GetPointer(cap, "pyjit.hostmem"));
        PyCapsule_SetDestructor(cap, NULL);
    }
    Py_RETURN_NONE;
}

/* cuda_host_device_address(address) -> the device address of page-locked, mapped host memory
 * (cuMemHostGetDevicePointer). */
static PyObject *py_host_device_address(PyObject *self, PyObject *args)
{
    unsigned long long addr;
    if (!PyArg_ParseTuple(args, "K:cuda_host_device_address", &addr))
        return NULL;
    CUdeviceptr dev = 0;
    if (cuda_ensure() < 0 || cuda_enter(cuda_current_device()) < 0 ||
        cuda_check(cuda_api.cuMemHostGetDevicePointer(&dev, (void *)(uintptr_t)addr, 0),
                   "finding mapped host memory's device address") < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong((unsigned long long)dev);
}

/* ---- IPC ---- */

/* cuda_ipc_get_handle(address) -> (handle bytes, offset, allocation bytes): the handle of the
 * device allocation holding address, and where address is in it. */
static PyObject *py_ipc_get_handle(PyObject *self, PyObject *args)
{
    unsigned long long addr;
    if (!PyArg_ParseTuple(args, "K:cuda_ipc_get_handle", &addr))
        return NULL;
    int dev = cuda_current_device();
    if (dev < 0 || cuda_ensure() < 0 || cuda_enter(dev) < 0)
        return NULL;
    CUdeviceptr base = 0;
    size_t size = 0;
    CUipcMemHandle h;
    if (cuda_check(cuda_api.cuMemGetAddressRange(&base, &size, (CUdeviceptr)addr),
                   "finding a device array's allocation") < 0 ||
        cuda_check(cuda_api.cuIpcGetMemHandle(&h, base), "making an IPC handle") < 0)
        return NULL;
    PyObject *bytes = PyBytes_FromStringAndSize(h.reserved, (Py_ssize_t)sizeof h.reserved);
    return bytes ? Py_BuildValue("(NKK)", bytes, (unsigned long long)(addr - base),
                                 (unsigned long long)size) : NULL;
}

/* cuda_ipc_open(handle bytes) -> address: the other process's allocation, in this one. */
static PyObject *py_ipc_open(PyObject *self, PyObject *args)
{
    PyObject *data;
    if (!PyArg_ParseTuple(args, "O!:cuda_ipc_open", &PyBytes_Type, &data))
        return NULL;
    if (PyBytes_GET_SIZE(data) != (Py_ssize_t)sizeof(CUipcMemHandle))
        return PyErr_Format(PyExc_ValueError, "an IPC handle is %zu bytes, not %zd",
                            sizeof(CUipcMemHandle), PyBytes_GET_SIZE(data));
    int dev = cuda_current_device();
    if (dev < 0 || cuda_ensure() < 0 || cuda_enter(dev) < 0)
        return NULL;
    CUipcMemHandle h;
    memcpy(h.reserved, PyBytes_AS_STRING(data), sizeof h.reserved);
    CUdeviceptr p = 0;
    if (cuda_check(cuda_api.cuIpcOpenMemHandle(&p, h, IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                   "opening an IPC handle") < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong((unsigned long long)p);
}

/* cuda_ipc_close(address): closes what cuda_ipc_open opened. */
static PyObject *py_ipc_close(PyObject *self, PyObject *args)
{
    unsigned long long addr;
    if (!PyArg_ParseTuple(args, "K:cuda_ipc_close", &addr))
        return NULL;
    if (cuda_enter(cuda_current_device()) < 0 ||
        cuda_check(cuda_api.cuIpcCloseMemHandle((CUdeviceptr)addr), "closing an IPC handle") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef hostmem_methods[] = {
    {"cuda_mapped_alloc", py_mapped_alloc, METH_VARARGS,
     "(bytes, portable, wc) -> (capsule, address, device address): mapped host memory."},
    {"cuda_managed_alloc", py_managed_alloc, METH_VARARGS,
     "(bytes, attach_global) -> (capsule, address, device address): managed memory."},
    {"cuda_host_register", py_host_register, METH_VARARGS,
     "(address, bytes, mapped) -> (capsule, address, device address) or None: page-locks."},
    {"cuda_host_release", py_host_release, METH_O, "Frees or unregisters a block now."},
    {"cuda_host_device_address", py_host_device_address, METH_VARARGS,
     "(address) -> the device address of mapped host memory."},
    {"cuda_ipc_get_handle", py_ipc_get_handle, METH_VARARGS,
     "(address) -> (handle, offset, bytes) of its device allocation."},
    {"cuda_ipc_open", py_ipc_open, METH_VARARGS, "(handle) -> the allocation's address here."},
    {"cuda_ipc_close", py_ipc_close, METH_VARARGS, "(address): closes an opened handle."},
    {NULL, NULL, 0, NULL},
};

int cuda_hostmem_init(PyObject *module)
{
    return PyModule_AddFunctions(module, hostmem_methods);
}
