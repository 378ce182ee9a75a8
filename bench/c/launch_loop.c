/* launch_loop.c: the floor of a kernel launch, for bench/gpu.py's `launch` case.
 *
 *   launch_loop PTX_FILE ENTRY LAUNCHES REPEATS PARAM...
 *
 * Loads PTX_FILE in the device's primary context and launches ENTRY on 1 block of 32 threads
 * LAUNCHES times, then synchronizes; REPEATS such rounds after one warm-up round. Prints the
 * median of the rounds in microseconds per launch. Each PARAM is one 8-byte kernel parameter:
 * `buf` is a fresh 4 KiB device allocation (a device pointer), anything else an integer.
 *
 * It declares the few driver types and functions it calls and opens libcuda.so.1 itself, so it
 * builds with a plain C compiler and no CUDA headers. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;

#define MAX_PARAMS 64
#define MAX_REPEATS 101

static struct {
    CUresult (*init)(unsigned int);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*primary_ctx_retain)(CUcontext *, CUdevice);
    CUresult (*ctx_set_current)(CUcontext);
    CUresult (*ctx_synchronize)(void);
    CUresult (*module_load_data)(CUmodule *, const void *);
    CUresult (*module_get_function)(CUfunction *, CUmodule, const char *);
    CUresult (*mem_alloc)(CUdeviceptr *, size_t);
    CUresult (*launch_kernel)(CUfunction, unsigned int, unsigned int, unsigned int,
                              unsigned int, unsigned int, unsigned int, unsigned int, CUstream,
                              void **, void **);
    CUresult (*get_error_name)(CUresult, const char **);
} cu;

static void die(const char *what, const char *detail) {
    fprintf(stderr, "launch_loop: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void check(CUresult r, const char *call) {
    const char *name = NULL;
    if (r == 0)
        return;
    if (cu.get_error_name)
        cu.get_error_name(r, &name);
    die(call, name ? name : "unknown CUresult");
}

static void *symbol(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p)
        die("missing driver symbol", name);
    return p;
}

/* Fills the table from libcuda.so.1; the _v2 names are the ABI the plain names alias in
 * cuda.h. Function pointers come from dlsym as void *, which POSIX allows to convert. */
static void load_driver(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        die("cannot open libcuda.so.1", dlerror());
    *(void **)&cu.init = symbol(lib, "cuInit");
    *(void **)&cu.device_get = symbol(lib, "cuDeviceGet");
    *(void **)&cu.primary_ctx_retain = symbol(lib, "cuDevicePrimaryCtxRetain");
    *(void **)&cu.ctx_set_current = symbol(lib, "cuCtxSetCurrent");
    *(void **)&cu.ctx_synchronize = symbol(lib, "cuCtxSynchronize");
    *(void **)&cu.module_load_data = symbol(lib, "cuModuleLoadData");
    *(void **)&cu.module_get_function = symbol(lib, "cuModuleGetFunction");
    *(void **)&cu.mem_alloc = symbol(lib, "cuMemAlloc_v2");
    *(void **)&cu.launch_kernel = symbol(lib, "cuLaunchKernel");
    *(void **)&cu.get_error_name = symbol(lib, "cuGetErrorName");
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long size;
    if (!f)
        die("cannot open", path);
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        die("cannot size", path);
    buf = malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size)
        die("cannot read", path);
    buf[size] = '\0';                       /* the driver takes PTX as a C string */
    fclose(f);
    return buf;
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static double round_us(CUfunction fn, void **params, long launches) {
    double t0 = now_us();
    for (long i = 0; i < launches; i++)
        check(cu.launch_kernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel");
    check(cu.ctx_synchronize(), "cuCtxSynchronize");
    return (now_us() - t0) / (double)launches;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    static uint64_t values[MAX_PARAMS];
    static void *params[MAX_PARAMS];
    double rounds[MAX_REPEATS];
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    long launches, repeats;
    int nparams = argc - 5;

    if (argc < 5 || nparams > MAX_PARAMS)
        die("usage: launch_loop PTX_FILE ENTRY LAUNCHES REPEATS PARAM...", NULL);
    launches = strtol(argv[3], NULL, 10);
    repeats = strtol(argv[4], NULL, 10);
    if (launches < 1 || repeats < 1 || repeats > MAX_REPEATS)
        die("LAUNCHES must be >= 1 and REPEATS within 1..101", NULL);
    load_driver();
    check(cu.init(0), "cuInit");
    check(cu.device_get(&dev, 0), "cuDeviceGet");
    check(cu.primary_ctx_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cu.ctx_set_current(ctx), "cuCtxSetCurrent");
    check(cu.module_load_data(&mod, read_file(argv[1])), "cuModuleLoadData");
    check(cu.module_get_function(&fn, mod, argv[2]), "cuModuleGetFunction");
    for (int k = 0; k < nparams; k++) {
        const char *p = argv[5 + k];
        if (strcmp(p, "buf") == 0) {
            CUdeviceptr d;
            check(cu.mem_alloc(&d, 4096), "cuMemAlloc");
            values[k] = (uint64_t)d;
        } else {
            values[k] = (uint64_t)strtoll(p, NULL, 10);
        }
        params[k] = &values[k];
    }
    round_us(fn, params, launches < 1000 ? launches : 1000);          /* warm-up */
    for (long r = 0; r < repeats; r++)
        rounds[r] = round_us(fn, params, launches);
    qsort(rounds, (size_t)repeats, sizeof rounds[0], by_value);
    printf("%.4f\n", rounds[repeats / 2]);
    return 0;
}
