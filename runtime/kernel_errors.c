/* kernel_errors.c: exceptions raised in kernels, raised on the host at the next synchronising
 * call (gpu.synchronize, Stream.synchronize, copy_to_host, a launch with NumPy arguments).
 *
 * A kernel compiled without debug=True does not trap when one of its threads raises (a raise
 * statement, a ZeroDivisionError, a failed assert): the first thread to raise claims the device's
 * fault record (abi.h's AbiKernelFault, one per device in device memory) and fills it with the
 * exception and its thread and block, and the thread returns (compiler/lower_gpu.c). Each loaded
 * module's global pj_fault_record points at the record. A launch of a kernel that can raise
 * costs nothing more than a flag set here (one that cannot, nothing); a synchronising call after
 * such a launch reads the record back (one small copy), and
 * raises the exception it holds, as numba-cuda does in debug mode, naming the kernel, the thread
 * and the block. */
#include "runtime/cuda.h"
#include "runtime/runtime.h"

#include <stddef.h>
#include <string.h>

enum { CUDA_ERROR_NOT_FOUND = 500 };

/* The offsets compiler/lower_gpu.c (fault_type) writes at. */
_Static_assert(offsetof(AbiKernelFault, thread) == 12 && offsetof(AbiKernelFault, block) == 24 &&
               offsetof(AbiKernelFault, cls) == 40 && offsetof(AbiKernelFault, msg) == 48 &&
               offsetof(AbiKernelFault, name) == 56 && offsetof(AbiKernelFault, args) == 64 &&
               sizeof(AbiKernelFault) == 96, "AbiKernelFault's layout is lower_gpu.c's");

static CUdeviceptr fault_record[CUDA_MAX_DEVICES];   /* 0 until a module that raises loads */
static bool launched[CUDA_MAX_DEVICES];              /* a kernel ran since the last check */
static PyObject *known_classes;                      /* {address: exception class} */

void cuda_fault_note_launch(int dev)
{
    launched[dev] = true;
}

/* The exception classes a kernel compiled in this process may name in its record: a record of a
 * kernel loaded from the on-disk cache names the address its class had in another process. */
int cuda_fault_register_class(PyObject *cls)
{
    if (!known_classes && !(known_classes = PyDict_New()))
        return -1;
    PyObject *key = PyLong_FromVoidPtr(cls);
    int rc = key ? PyDict_SetItem(known_classes, key, cls) : -1;
    Py_XDECREF(key);
    return rc;
}

static int zero_record(int dev)
{
    static const AbiKernelFault zero;
    CUresult r = cuda_api.cuMemcpyHtoDAsync(fault_record[dev], &zero, sizeof zero, NULL);
    if (r == CUDA_SUCCESS)
        r = cuda_api.cuStreamSynchronize(NULL);
    return cuda_check(r, "clearing the kernel fault record");
}

bool cuda_fault_used(const char *ptx)
{
    const char *first = strstr(ptx, ABI_FAULT_GLOBAL);   /* its declaration */
    return first && strstr(first + sizeof ABI_FAULT_GLOBAL - 1, ABI_FAULT_GLOBAL);
}

/* Points a freshly loaded module's pj_fault_record at the device's record (made on first use).
 * A module without the global (no kernel in it can raise) needs nothing. */
int cuda_fault_attach(CUmodule module, int dev)
{
    CUdeviceptr global;
    size_t size;
    CUresult r = cuda_api.cuModuleGetGlobal(&global, &size, module, ABI_FAULT_GLOBAL);
    if (r == CUDA_ERROR_NOT_FOUND)
        return 0;
    if (cuda_check(r, "finding the kernel's fault record") < 0)
        return -1;
    if (!fault_record[dev]) {
        if (cuda_check(cuda_api.cuMemAlloc(&fault_record[dev], sizeof(AbiKernelFault)),
                       "allocating the kernel fault record") < 0 || zero_record(dev) < 0) {
            fault_record[dev] = 0;
            return -1;
        }
    }
    r = cuda_api.cuMemcpyHtoDAsync(global, &fault_record[dev], sizeof(CUdeviceptr), NULL);
    if (r == CUDA_SUCCESS)   /* the source is static; the launch after this must see the store */
        r = cuda_api.cuStreamSynchronize(NULL);
    return cuda_check(r, "setting the kernel's fault record");
}

/* A NUL-terminated string of the module's constants at device address p, into buf. Read in
 * small pieces so that no copy reaches past the module's memory. */
static void read_string(uint64_t p, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    while (p && n + 8 < size) {
        if (cuda_api.cuMemcpyDtoHAsync(buf + n, p + n, 8, NULL) != CUDA_SUCCESS ||
            cuda_api.cuStreamSynchronize(NULL) != CUDA_SUCCESS)
            break;
        buf[n + 8] = '\0';
        if (memchr(buf + n, '\0', 8))
            return;
        n += 8;
    }
    buf[n] = '\0';
}

/* Sets an attribute of the exception being handled, ignoring failure (a class with __slots__). */
static void set_attr(PyObject *ev, const char *name, PyObject *value)
{
    if (!value || PyObject_SetAttrString(ev, name, value) < 0)
        PyErr_Clear();
    Py_XDECREF(value);
}

/* As the simulator says it (pyjit/gpu/simulator/kernel.py: _annotate): "kernel 'k', thread
 * (x, y, z), block (x, y, z): " before the message when it is a str, as the message when there
 * is none, else as a note; and the three as the attributes pyjit_kernel, pyjit_thread and
 * pyjit_block. */
void rt_kernel_name_thread(const char *kname, const uint32_t thread[3], const uint32_t block[3])
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyErr_NormalizeException(&et, &ev, &tb);
    PyObject *where = PyUnicode_FromFormat("kernel '%s', thread (%u, %u, %u), block (%u, %u, %u)",
                                           kname, thread[0], thread[1], thread[2],
                                           block[0], block[1], block[2]);
    PyObject *args = ev ? PyObject_GetAttrString(ev, "args") : NULL;
    PyObject *fresh = NULL;
    if (!where || !args || !PyTuple_Check(args)) {
        PyErr_Clear();
    } else if (PyTuple_GET_SIZE(args) == 0) {
        fresh = PyTuple_Pack(1, where);
    } else if (PyUnicode_Check(PyTuple_GET_ITEM(args, 0))) {
        PyObject *text = PyUnicode_FromFormat("%U: %U", where, PyTuple_GET_ITEM(args, 0));
        PyObject *rest = PyTuple_GetSlice(args, 1, PyTuple_GET_SIZE(args));
        PyObject *head = text ? PyTuple_Pack(1, text) : NULL;
        fresh = head && rest ? PySequence_Concat(head, rest) : NULL;
        Py_XDECREF(text);
        Py_XDECREF(rest);
        Py_XDECREF(head);
    } else {
        PyObject *r = PyObject_CallMethod(ev, "add_note", "O", where);
        Py_XDECREF(r);
    }
    if (fresh && PyObject_SetAttrString(ev, "args", fresh) < 0)
        PyErr_Clear();
    Py_XDECREF(fresh);
    if (ev) {
        set_attr(ev, "pyjit_kernel", PyUnicode_FromString(kname));
        set_attr(ev, "pyjit_thread", Py_BuildValue("(III)", thread[0], thread[1], thread[2]));
        set_attr(ev, "pyjit_block", Py_BuildValue("(III)", block[0], block[1], block[2]));
    }
    PyErr_Clear();
    Py_XDECREF(args);
    Py_XDECREF(where);
    PyErr_Restore(et, ev, tb);
}

static int raise_fault(const AbiKernelFault *f)
{
    char msg[1024], kname[256];
    read_string(f->msg, msg, sizeof msg);
    read_string(f->name, kname, sizeof kname);
    ExcInfo e = {.kind = f->kind, .nargs = f->nargs, .msg = f->msg ? msg : NULL};
    memcpy(e.args, f->args, sizeof e.args);
    if (f->kind == ABI_EXC_USER) {
        PyObject *key = PyLong_FromUnsignedLongLong(f->cls);
        e.cls = key && known_classes ? PyDict_GetItemWithError(known_classes, key) : NULL;
        Py_XDECREF(key);
        if (!e.cls) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_RuntimeError, "kernel '%s', thread (%u, %u, %u), block "
                             "(%u, %u, %u) raised an exception of a class this process did not "
                             "compile (a kernel from the on-disk cache): %s", kname,
                             f->thread[0], f->thread[1], f->thread[2], f->block[0], f->block[1],
                             f->block[2], f->msg ? msg : "");
            return -1;
        }
    }
    if (e.msg && e.msg[0] == ABI_EXC_ARGS_SPEC && strchr(e.msg, 'S'))
        e.msg = NULL;   /* a string made at run time cannot come from a kernel */
    rt_raise_exc(&e);
    rt_kernel_name_thread(kname, f->thread, f->block);
    return -1;
}

int cuda_fault_check(void)
{
    int dev = cuda_current_device();   /* the launches this thread made went there */
    if (!launched[dev] || !fault_record[dev])
        return 0;
    if (cuda_enter(dev) < 0)
        return -1;
    launched[dev] = false;
    AbiKernelFault f;
    CUresult r = cuda_api.cuMemcpyDtoHAsync(&f, fault_record[dev], sizeof f, NULL);
    if (r == CUDA_SUCCESS)
        r = cuda_api.cuStreamSynchronize(NULL);
    if (cuda_check(r, "reading the kernel fault record") < 0)
        return -1;
    if (!f.claimed)
        return 0;
    if (zero_record(dev) < 0)
        return -1;
    return raise_fault(&f);
}
