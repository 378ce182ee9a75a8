/* fake_cuda.c: a stand-in for libcuda.so.1, for testing the host side of launches without a GPU.
 *
 * pyjit loads it through PYJIT_CUDA_DRIVER. It reports one device (compute capability 9.0, the
 * H100's limits), gives "device memory" from malloc (so a test reads and writes it through
 * ctypes), copies with memcpy, and runs nothing: cuLaunchKernel keeps the kernel's parameter
 * buffer (fake_last_params) and calls the hook a test set (fake_set_launch_hook), which may do
 * the kernel's work on that memory. Every function of runtime/cuda_api.def is defined, with its
 * exported name; those the tests need nothing from succeed and write plausible outputs. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef void (*LaunchHook)(const char *name, const void *params, size_t size, unsigned grid_x,
                           unsigned block_x);

static char last_params[4096];
static size_t last_size;
static char last_name[256];
static char current_function[256];
static long launches;
static LaunchHook hook;
static void *current_ctx;

void fake_set_launch_hook(LaunchHook h) { hook = h; }
long fake_launches(void) { return launches; }
size_t fake_last_params(void *out)
{
    memcpy(out, last_params, last_size);
    return last_size;
}
const char *fake_last_name(void) { return last_name; }

CUresult cuInit(unsigned flags) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuGetErrorName(CUresult e, const char **s) { *s = "CUDA_ERROR_FAKE"; return 0; }
CUresult cuGetErrorString(CUresult e, const char **s) { *s = "an error of the fake driver";
                                                         return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int ordinal) { *d = ordinal; return 0; }
CUresult cuDeviceGetName(char *name, int len, int d) { strncpy(name, "Fake GPU", len); return 0; }

CUresult cuDeviceGetAttribute(int *v, int attr, int d)
{
    switch (attr) {
    case 1: *v = 1024; break;                          /* threads per block */
    case 2: case 3: *v = 1024; break;                  /* block x, y */
    case 4: *v = 64; break;                            /* block z */
    case 5: *v = 2147483647; break;                    /* grid x */
    case 6: case 7: *v = 65535; break;
    case 8: *v = 49152; break;                         /* shared per block */
    case 10: *v = 32; break;                           /* warp */
    case 16: *v = 132; break;                          /* multiprocessors */
    case 75: *v = 9; break;                            /* compute capability */
    case 76: *v = 0; break;
    case 97: *v = 232448; break;                       /* shared with opt-in */
    case 12: *v = 65536; break;                        /* registers per block */
    case 36: *v = 2619000; break;                      /* memory clock, kHz */
    case 37: *v = 5120; break;                         /* memory bus width, bits */
    case 38: *v = 52428800; break;                     /* L2 cache */
    case 39: *v = 2048; break;                         /* threads per multiprocessor */
    default: *v = 0;
    }
    return 0;
}

CUresult cuDeviceTotalMem_v2(size_t *b, int d) { *b = (size_t)80 << 30; return 0; }
CUresult cuDeviceGetUuid(unsigned char *uuid, int d)
{
    for (int i = 0; i < 16; i++)
        uuid[i] = (unsigned char)(0x10 * d + i);    /* GPU-00010203-0405-... for device 0 */
    return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) { *ctx = (void *)0x100; return 0; }
CUresult cuCtxGetCurrent(void **ctx) { *ctx = current_ctx; return 0; }
CUresult cuCtxSetCurrent(void *ctx) { current_ctx = ctx; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n, int *o, void **v)
{
    *m = (void *)0x200;
    return 0;
}
CUresult cuModuleUnload(void *m) { return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name)
{
    strncpy(current_function, name, sizeof current_function - 1);
    *f = strdup(name);   /* the function's name, read at its launch; kept for the process */
    return 0;
}
CUresult cuModuleGetGlobal_v2(uint64_t *p, size_t *size, void *m, const char *name)
{
    *p = (uint64_t)(uintptr_t)calloc(1, 64);
    *size = 64;
    return 0;
}
CUresult cuLinkCreate_v2(unsigned n, int *o, void **v, void **st) { *st = (void *)1; return 0; }
CUresult cuLinkAddData_v2(void *st, int type, void *data, size_t size, const char *name,
                          unsigned n, int *o, void **v) { return 0; }
CUresult cuLinkComplete(void *st, void **cubin, size_t *size) { *cubin = NULL; *size = 0;
                                                                 return 0; }
CUresult cuLinkDestroy(void *st) { return 0; }
CUresult cuFuncGetAttribute(int *v, int attr, void *f) { *v = attr == 0 ? 1024 : 0; return 0; }
CUresult cuFuncSetAttribute(void *f, int attr, int v) { return 0; }

static CUresult launch(void *f, unsigned gx, unsigned bx, void **params, void **extra)
{
    launches++;
    strncpy(last_name, (const char *)f, sizeof last_name - 1);
    last_size = 0;
    if (extra) {   /* {BUFFER_POINTER, buf, BUFFER_SIZE, &size, END} */
        last_size = *(size_t *)extra[3];
        memcpy(last_params, extra[1], last_size < sizeof last_params ? last_size
                                                                     : sizeof last_params);
    }
    if (hook)
        hook(last_name, last_params, last_size, gx, bx);
    return 0;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream,
                        void **params, void **extra)
{
    return launch(f, gx, bx, params, extra);
}
CUresult cuLaunchCooperativeKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned shared, void *stream,
                                   void **params) { return launch(f, gx, bx, params, NULL); }

CUresult cuMemAlloc_v2(uint64_t *p, size_t n) { *p = (uint64_t)(uintptr_t)malloc(n ? n : 1);
                                               return 0; }
CUresult cuMemFree_v2(uint64_t p) { free((void *)(uintptr_t)p); return 0; }
CUresult cuMemAllocAsync(uint64_t *p, size_t n, void *s) { return cuMemAlloc_v2(p, n); }
CUresult cuMemFreeAsync(uint64_t p, void *s) { return cuMemFree_v2(p); }
CUresult cuDeviceGetDefaultMemPool(void **pool, int d) { *pool = (void *)0x300; return 0; }
CUresult cuMemPoolSetAttribute(void *pool, int attr, void *v) { return 0; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { *f = *t = (size_t)80 << 30; return 0; }
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) { *p = calloc(1, n ? n : 1);
                                                               return 0; }
CUresult cuMemFreeHost(void *p) { free(p); return 0; }
CUresult cuMemcpyHtoDAsync_v2(uint64_t d, const void *s, size_t n, void *st)
{
    memcpy((void *)(uintptr_t)d, s, n);
    return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, uint64_t s, size_t n, void *st)
{
    memcpy(d, (const void *)(uintptr_t)s, n);
    return 0;
}
CUresult cuMemcpyDtoDAsync_v2(uint64_t d, uint64_t s, size_t n, void *st)
{
    memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n);
    return 0;
}
CUresult cuStreamCreate(void **s, unsigned flags) { *s = (void *)0x400; return 0; }
CUresult cuStreamDestroy_v2(void *s) { return 0; }
CUresult cuStreamSynchronize(void *s) { return 0; }
CUresult cuStreamQuery(void *s) { return 0; }

/* The work queued before a callback is done at once, so the callback runs now, on a thread of
 * its own as the driver's does (it must not need the thread that queued it). */
typedef void (*StreamCallback)(void *stream, CUresult status, void *data);
struct CallbackCall { StreamCallback fn; void *stream, *data; };

static void *run_callback(void *p)
{
    struct CallbackCall *c = p;
    c->fn(c->stream, 0, c->data);
    return NULL;
}

CUresult cuStreamAddCallback(void *s, StreamCallback fn, void *data, unsigned flags)
{
    struct CallbackCall c = {fn, s, data};
    pthread_t t;
    if (pthread_create(&t, NULL, run_callback, &c) != 0)
        return 1;
    pthread_join(t, NULL);
    return 0;
}
CUresult cuStreamWaitEvent(void *s, void *e, unsigned flags) { return 0; }
CUresult cuEventCreate(void **e, unsigned flags) { *e = malloc(1); return 0; }
CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }
CUresult cuEventRecord(void *e, void *s) { return 0; }
CUresult cuEventSynchronize(void *e) { return 0; }
CUresult cuEventQuery(void *e) { return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { *ms = 1.0f; return 0; }
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int bs, size_t dyn)
{
    *n = 1;
    return 0;
}
CUresult cuMemHostGetDevicePointer_v2(uint64_t *d, void *h, unsigned flags)
{
    *d = (uint64_t)(uintptr_t)h;
    return 0;
}
CUresult cuMemAllocManaged(uint64_t *p, size_t n, unsigned flags) { return cuMemAlloc_v2(p, n); }
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned flags) { return 0; }
CUresult cuMemHostUnregister(void *p) { return 0; }
CUresult cuIpcGetMemHandle(void *h, uint64_t p) { memset(h, 0, 64); return 0; }
CUresult cuIpcOpenMemHandle_v2(uint64_t *p, char h[64], unsigned flags) { *p = 0; return 0; }
CUresult cuIpcCloseMemHandle(uint64_t p) { return 0; }
CUresult cuMemGetAddressRange_v2(uint64_t *base, size_t *size, uint64_t p)
{
    if (base)
        *base = p;
    if (size)
        *size = 0;
    return 0;
}
