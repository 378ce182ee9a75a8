/* cuda.h: the interface of the GPU runtime (the host side of @gpu.jit).
 *
 *   cuda.c      the CUDA driver, loaded with dlopen (pyjit imports without it); primary contexts;
 *               driver errors -> pyjit.gpu.errors; streams, events, devices; cuda_module_init
 *   devarray.c  the DeviceArray type (gpu.to_device, device_array, views, CAI and DLPack export)
 *               and the reading of foreign GPU arrays (__cuda_array_interface__, __dlpack__)
 *   launch.c    the Kernel type (compiled modules per argument types and device) and the
 *               configured launch kernel[grid, block, stream, sharedmem](*args), cooperative
 *               for kernels that sync their grid
 *   hostmem.c   mapped, managed and registered host memory kernels use in place; IPC handles
 *
 * The compiler side (PTX generation) is reached through one function, cuda_compile_kernel,
 * declared below (runtime/cuda_compile.c); the kernel parameters it takes are laid out by the
 * ABI in compiler/abi.h. */
#ifndef PYJIT_CUDA_H
#define PYJIT_CUDA_H

#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler/arena.h"
#include "compiler/compiler.h"
#include "compiler/diag.h"
#include "compiler/types.h"

/* Kernel parameters follow the kernel parameter ABI of compiler/abi.h. */
#define CUDA_MAX_NDIM ABI_MAX_NDIM
#define CUDA_MAX_DEVICES 16
#define CUDA_MAX_PARAM_BYTES 4096    /* the driver's limit on a kernel's parameters */

/* ---- what the compiler side implements ---- */

typedef struct CudaCompileOptions {
    CompileOptions base;    /* opt_level, fastmath, debug (bounds checks in kernels), dump */
    int cc_major, cc_minor; /* target sm_<major><minor> (9, 0 on the H200) */
    bool device;            /* a device function: no kernel entry (compile_ptx(device=True)) */
    bool lineinfo;          /* .loc line information in the PTX */
    uint64_t aligned;       /* bit i: array argument i's data is 16-byte aligned (checked at
                             * launch; a specialisation of the kernel, like its types) */
    uint64_t noalias;       /* bit i: array argument i overlaps no other array argument
                             * (checked at launch, a specialisation too) */
    int max_registers;      /* max_registers=: .maxnreg (0: none) */
    int launch_bounds[3];   /* launch_bounds=: .maxntid, .minnctapersm, .maxclusterrank (0:
                             * none) */
    const char *c_abi_name; /* a device function's C ABI name (cuda.compile(abi='c')); NULL */
} CudaCompileOptions;

typedef struct CudaKernelCode {
    const char *ptx;        /* NUL-terminated PTX text, ready for cuModuleLoadData */
    const char *entry;      /* the kernel's .entry name in it */
    uint64_t written;       /* bit i: argument i is an array the kernel may write
                             * (compiler/effects.c; EFFECTS_WRITES_ALL: every one) */
    const char *types_dump; /* typed IR and optimised LLVM IR, for inspect_types()/inspect_llvm();
                             * may be NULL */
    const char *llvm_dump;
} CudaKernelCode;

/* Compiles the Python function pyfunc for these argument types into PTX (frontend -> typed IR
 * -> LLVM IR for target_nvptx -> PTX), with globals resolved through registry ({object: builtins
 * name}, filled by the caller). Everything out points to lives in arena. 0, or -1 with diag
 * filled. Plain data in, plain data out: it raises no Python exception.
 *
 * Weak: until the GPU code generation defines it, the symbol is NULL and the runtime says that
 * kernels cannot be compiled yet (hand-written PTX still loads through _cuda_load_ptx). */
int cuda_compile_kernel(PyObject *pyfunc, PyObject *registry, Type **argtypes, int nargs,
                        const CudaCompileOptions *opts, Arena *arena, CudaKernelCode *out,
                        Diag *diag) __attribute__((weak));

/* ---- the driver (cuda.c) ---- */

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlinkState_st *CUlinkState;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef unsigned long long CUdeviceptr;
typedef struct CUipcMemHandle { char reserved[64]; } CUipcMemHandle;   /* CU_IPC_HANDLE_SIZE */
typedef struct CUuuid { unsigned char bytes[16]; } CUuuid;
typedef void (*CUstreamCallback)(CUstream stream, CUresult status, void *data);

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_READY = 600,
};

/* The driver's function table: one pointer per line of cuda_api.def. Per process. */
typedef struct CudaApi {
#define CUDA_FN(field, symbol, params) CUresult (*field) params;
#include "runtime/cuda_api.def"
#undef CUDA_FN
} CudaApi;
extern CudaApi cuda_api;

/* Loads the driver and initialises it once. 0, or -1 with GpuUnavailableError set (its message
 * says why and names PYJIT_SIMULATOR=1). Cheap after the first call. */
int cuda_ensure(void);
/* True when a driver loaded and sees at least one device (sets no exception). */
bool cuda_available(void);
/* The device this thread uses (gpu.select_device), and making its primary context current in
 * this thread (retained on first use). 0, or -1 with an exception. */
int cuda_current_device(void);
int cuda_enter(int device);
/* Device attributes read once per device (CU_DEVICE_ATTRIBUTE_* numbers). */
typedef struct CudaDeviceInfo {
    int max_threads_per_block;
    int max_block[3], max_grid[3];
    int max_shared_per_block;           /* without opt-in (48 KiB) */
    int max_shared_per_block_optin;     /* with cuFuncSetAttribute (227 KiB on sm_90) */
    int cc_major, cc_minor;
    int warp_size, multiprocessors;
} CudaDeviceInfo;
const CudaDeviceInfo *cuda_device_info(int device);   /* NULL with an exception */

/* Raises the Python exception for a failed driver call: CudaError (or CudaMemoryError, also a
 * MemoryError, for CUDA_ERROR_OUT_OF_MEMORY) with the driver's error name and string, what was
 * being done, and the kernel's name when kernel is not NULL. Returns NULL. */
PyObject *cuda_raise(CUresult r, const char *what, const char *kernel);
/* Remembers the name (a str) of the kernel launched last, so that an error the driver reports
 * later (a fault is seen at the next synchronization) can name it. */
void cuda_note_launch(PyObject *kernel_name);
/* Exceptions raised in kernels (kernel_errors.c): a loaded module is pointed at the device's
 * fault record; a launch notes that a kernel ran; a synchronising call then checks the record
 * and raises what a kernel left there (0, or -1 with that exception set). Classes of user
 * exceptions a kernel compiled here may raise are registered by their address. */
int cuda_fault_attach(CUmodule module, int dev);
/* Kernels with foreign device code (link.c): kernel (a Kernel, or NULL) linked for this PTX
 * with its link= files and those of the declare_device functions it calls, into *out. 0; 1 when
 * it has nothing to link (load the PTX alone); -1 with an exception naming the kernel and the
 * file. */
int cuda_link_load(PyObject *kernel, const char *ptx, int dev, CUmodule *out, const char *kname);
void cuda_fault_note_launch(int dev);
/* Whether a kernel's PTX uses the fault record (declares it and refers to it again): a kernel
 * whose raising paths the optimiser removed needs no check after its launches. */
bool cuda_fault_used(const char *ptx);
int cuda_fault_check(void);
int cuda_fault_register_class(PyObject *cls);
/* 0 when r is CUDA_SUCCESS, else cuda_raise and -1. */
int cuda_check(CUresult r, const char *what);
/* The class pyjit.gpu.errors.<name> (borrowed), or NULL with an exception. */
PyObject *cuda_error_class(const char *name);

/* A stream argument (None, 0, an int handle, a Stream, or an object with .handle/.ptr) -> the
 * handle. 0, or -1 with a TypeError. */
int cuda_stream_handle(PyObject *obj, CUstream *out);

/* ---- device arrays (devarray.c) ---- */

typedef struct CudaArray {
    PyObject_HEAD
    CUdeviceptr data;       /* address of element [0, ..., 0] */
    CUdeviceptr alloc;      /* the allocation this array owns (0 for views and foreign memory) */
    PyObject *base;         /* what keeps the memory alive for views (the owning array or a
                             * foreign object); NULL when this array owns it */
    PyObject *dtype;        /* numpy.dtype */
    Type *type;             /* array(dtype, ndim, layout) as kernels are typed; NULL when the
                             * dtype cannot reach a kernel (records, objects) */
    CUstream stream;        /* the array's stream: the default for its copies */
    int ndim, device, itemsize;
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM];
    bool record;            /* numba-cuda's DeviceRecord: to_device of one record (np.void), 0-d,
                             * a kernel takes it as a record (its type's dtype), not an array */
    PyObject *writeback;    /* a weak reference to the NumPy array to_device copied from (the
                             * legacy to_host() copies back into it), or NULL */
    PyObject *weakrefs;
} CudaArray;

extern PyTypeObject CudaArrayType;

/* A foreign GPU array seen through __cuda_array_interface__ or __dlpack__, for one launch. */
typedef struct CudaForeign {
    CUdeviceptr data;
    Type *type;
    int ndim;
    int64_t shape[CUDA_MAX_NDIM], strides[CUDA_MAX_NDIM];
    PyObject *capsule;      /* a DLPack capsule to release after the launch, or NULL */
} CudaForeign;

/* Reads obj's __cuda_array_interface__ (preferred) or __dlpack__ into f, for use on the stream
 * consumer (the producer's pending work on another stream is waited for). 1 when obj is such an
 * array, 0 when it is not (no exception), -1 on error. */
int cuda_read_foreign(PyObject *obj, CudaForeign *f, CUstream consumer);
/* Releases what cuda_read_foreign took (the DLPack capsule). */
void cuda_release_foreign(CudaForeign *f);
/* 'C', 'F' or 'A' for these shape and strides (NumPy's contiguity rules). */
char cuda_layout(int ndim, const int64_t *shape, const int64_t *strides, int itemsize);
/* The kernel type of an array of this NumPy dtype; NULL when kernels cannot take it. */
Type *cuda_array_type(PyObject *dtype, int ndim, char layout, bool readonly);

/* ---- module registration ---- */

/* Adds the GPU runtime's types and functions to pyjit._core (called from its PyInit). Loads no
 * driver and imports no NumPy. 0, or -1 with an exception. */
int cuda_module_init(PyObject *module);
int cuda_devarray_init(PyObject *module);   /* devarray.c's part */
int cuda_launch_init(PyObject *module);     /* launch.c's part */
int cuda_hostmem_init(PyObject *module);    /* hostmem.c's part */
/* Whether p is in host memory a kernel reaches in place (mapped, managed or registered with
 * gpu.mapped): then *dev is its device address (hostmem.c). */
bool cuda_host_device_pointer(const void *p, CUdeviceptr *dev);

#endif
