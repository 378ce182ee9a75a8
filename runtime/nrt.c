/* nrt.c: reference-counted memory for arrays made by compiled code, and print for compiled code.
 *
 * Compiled code allocates array data with pj_nrt_alloc and passes MemInfo references around
 * (abi.h). When such an array reaches Python, a MemInfoOwner object takes over the reference and
 * becomes the NumPy array's base, so NumPy frees the memory through it: nothing leaks and nothing
 * is copied. The allocator is plain C and runs without the GIL (nogil functions call it).
 *
 * pj_print_* write to C's stdout and flush it at the end of every print(). They cannot flush
 * Python's sys.stdout first (they may run without the GIL): the dispatcher does that before
 * calling a function that prints, so output from Python and compiled code keeps its order. */
#include "runtime/runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The header sits in the 64 bytes before the data, so one allocation serves both; the block
 * malloc returned is kept in the 8 bytes before the header, which free takes. Arrays' data is
 * 64-byte aligned by placing the header within a block 63 bytes larger: glibc's posix_memalign
 * splits a chunk for each small aligned block and costs 3-4x malloc's time in a loop making
 * temporaries (np.empty(4) 200000 times: 58 ns a block against 15 for Numba's NRT). */
#define NRT_HEADER ABI_NRT_DATA_OFFSET   /* compiled code finds the data of an array there */
#define NRT_ALIGN 64
#define NRT_BACK 16   /* room for the block's address, keeping the header 16-byte aligned */

/* From 4 MiB up, array data asks the kernel for 2 MiB pages (transparent huge pages), as NumPy's
 * own allocator does: first writing a fresh 80 MB array then takes 40 page faults, not 20000,
 * which is most of the time of a whole-array expression over it. */
#define NRT_HUGE_MIN ((int64_t)4 << 20)
#define NRT_HUGE_PAGE ((uintptr_t)2 << 20)

static int64_t nrt_live_count;   /* atomic, through __atomic builtins */

static void nrt_free_block(MemInfo *mi)
{
    if (mi->dtor)
        mi->dtor(mi);
    else if (mi->data != (char *)mi + NRT_HEADER)
        free(mi->data);
    free(((void **)mi)[-1]);
}

/* A block of the header and size bytes of data; aligned: the data on 64 bytes (arrays), else
 * malloc's 16 (strings, many and small). */
static MemInfo *nrt_alloc_block(int64_t size, bool aligned)
{
    if (size < 0 || (uint64_t)size > (uint64_t)INT64_MAX - 4 * NRT_HEADER)
        return NULL;
    size_t bytes = NRT_BACK + NRT_HEADER + (aligned ? NRT_ALIGN - 1 : 0) + (size_t)(size ? size : 1);
    char *block = malloc(bytes);
    if (!block)
        return NULL;
    char *data = block + NRT_BACK + NRT_HEADER;
    if (aligned)
        data = (char *)(((uintptr_t)data + NRT_ALIGN - 1) & ~(uintptr_t)(NRT_ALIGN - 1));
#ifdef MADV_HUGEPAGE
    if (aligned && size >= NRT_HUGE_MIN) {   /* the whole 2 MiB pages inside the data */
        uintptr_t lo = ((uintptr_t)data + NRT_HUGE_PAGE - 1) & ~(NRT_HUGE_PAGE - 1);
        uintptr_t hi = ((uintptr_t)data + (uintptr_t)size) & ~(NRT_HUGE_PAGE - 1);
        if (lo < hi)
            madvise((void *)lo, hi - lo, MADV_HUGEPAGE);   /* a hint: failure changes nothing */
    }
#endif
    MemInfo *mi = (MemInfo *)(data - NRT_HEADER);
    ((void **)mi)[-1] = block;
    mi->refcount = 1;
    mi->data = data;
    mi->size = size;
    mi->dtor = NULL;
    mi->owner = NULL;
    __atomic_fetch_add(&nrt_live_count, 1, __ATOMIC_RELAXED);
    return mi;
}

MemInfo *pj_nrt_alloc(int64_t size)
{
    return nrt_alloc_block(size, true);
}

MemInfo *rt_nrt_alloc_small(int64_t size)
{
    return nrt_alloc_block(size, false);
}

void pj_nrt_incref(MemInfo *mi)
{
    if (mi)
        __atomic_fetch_add(&mi->refcount, 1, __ATOMIC_RELAXED);
}

/* Freeing a block may free the blocks it holds (a linked list of jitclass instances, lists of
 * lists): those freed meanwhile wait in a per-thread queue, linked through their refcounts (zero,
 * unused once freed), and are freed in turn by the outermost call, so a chain of any length is
 * released in constant stack. */
static __thread MemInfo *free_queue;
static __thread bool freeing;

void pj_nrt_free(MemInfo *mi)
{
    if (freeing) {
        mi->refcount = (int64_t)(uintptr_t)free_queue;
        free_queue = mi;
        return;
    }
    freeing = true;
    while (mi) {
        nrt_free_block(mi);
        __atomic_fetch_sub(&nrt_live_count, 1, __ATOMIC_RELAXED);
        mi = free_queue;
        if (mi)
            free_queue = (MemInfo *)(uintptr_t)mi->refcount;
    }
    freeing = false;
}

/* Compiled code for the CPU does this in its own module (lower.c: define_refcounting); the two
 * must agree. */
void pj_nrt_decref(MemInfo *mi)
{
    if (mi && __atomic_fetch_sub(&mi->refcount, 1, __ATOMIC_ACQ_REL) == 1)
        pj_nrt_free(mi);
}

int64_t pj_nrt_live(void)
{
    return __atomic_load_n(&nrt_live_count, __ATOMIC_RELAXED);
}

/* A MemInfo over memory a Python object owns (a NumPy array): the dtor drops the object. */
static void nrt_release_pyobject(MemInfo *mi)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF((PyObject *)mi->owner);
    PyGILState_Release(gil);
}

MemInfo *rt_nrt_adopt(PyObject *owner, void *data, int64_t size)
{
    PyObject *keeper = rt_memory_owner(owner);
    if (!keeper)
        return NULL;
    MemInfo *mi = pj_nrt_alloc(0);
    if (!mi) {
        Py_DECREF(keeper);
        PyErr_NoMemory();
        return NULL;
    }
    mi->data = data;
    mi->size = size;
    mi->dtor = nrt_release_pyobject;
    mi->owner = keeper;
    return mi;
}

/* ---- MemInfoOwner: the base object of NumPy arrays whose memory compiled code made ---- */

typedef struct {
    PyObject_HEAD
    MemInfo *mi;
} MemInfoOwner;

static void owner_dealloc(PyObject *self)
{
    pj_nrt_decref(((MemInfoOwner *)self)->mi);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *owner_repr(PyObject *self)
{
    MemInfo *mi = ((MemInfoOwner *)self)->mi;
    return PyUnicode_FromFormat("<pyjit MemInfoOwner of %lld bytes at %p>", (long long)mi->size,
                                mi->data);
}

static PyObject *owner_get_refcount(PyObject *self, void *closure)
{
    MemInfo *mi = ((MemInfoOwner *)self)->mi;
    return PyLong_FromLongLong(__atomic_load_n(&mi->refcount, __ATOMIC_RELAXED));
}

static PyGetSetDef owner_getset[] = {
    {"refcount", owner_get_refcount, NULL, "References to the memory (NRT count).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject RtMemInfoOwnerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjit._core.MemInfoOwner",
    .tp_basicsize = sizeof(MemInfoOwner),
    .tp_dealloc = owner_dealloc,
    .tp_repr = owner_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Owns the memory of an array made by compiled code; NumPy frees it through this.",
    .tp_getset = owner_getset,
};

PyObject *rt_meminfo_owner_new(MemInfo *mi)
{
    MemInfoOwner *owner = PyObject_New(MemInfoOwner, &RtMemInfoOwnerType);
    if (!owner) {
        pj_nrt_decref(mi);
        return NULL;
    }
    owner->mi = mi;
    return (PyObject *)owner;
}

/* ---- print() in compiled code: the same text as Python's print ---- */

/* The shortest %e form that reads back as v: digits without the dot, and the exponent. */
static int shortest_digits(double v, char *digits, int *exp10)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
        if (strtod(buf, NULL) == v || prec == 17)
            break;
    }
    int n = 0;
    char *p = buf;
    if (*p == '-')
        p++;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    *exp10 = atoi(p + 1);
    return n;
}

/* Python's repr of a float ('r' format): fixed notation for exponents -4..15, else scientific;
 * add_dot_0 appends ".0" to integral values as repr(float) does (complex parts do not). */
void rt_float_repr(double v, bool add_dot_0, char *out, size_t size)
{
    if (isnan(v)) {
        snprintf(out, size, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(out, size, v < 0 ? "-inf" : "inf");
        return;
    }
    char digits[24], *o = out;
    int e, n = shortest_digits(v, digits, &e);
    if (signbit(v))
        *o++ = '-';
    if (v == 0) {
        snprintf(o, size - 1, add_dot_0 ? "0.0" : "0");
        return;
    }
    if (e < -4 || e >= 16) {
        o += sprintf(o, "%c", digits[0]);
        if (n > 1)
            o += sprintf(o, ".%s", digits + 1);
        sprintf(o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    } else if (e < 0) {
        o += sprintf(o, "0.");
        for (int i = -1; i > e; i--)
            *o++ = '0';
        sprintf(o, "%s", digits);
    } else {
        for (int i = 0; i <= e || i < n; i++) {
            if (i == e + 1)
                *o++ = '.';
            *o++ = i < n ? digits[i] : '0';
        }
        *o = '\0';
        if (n <= e + 1 && add_dot_0)
            strcpy(o, ".0");
    }
}

void pj_print_i64(int64_t v)
{
    printf("%lld", (long long)v);
}

void pj_print_u64(uint64_t v)
{
    printf("%llu", (unsigned long long)v);
}

void pj_print_f64(double v)
{
    char buf[64];
    rt_float_repr(v, true, buf, sizeof buf);
    fputs(buf, stdout);
}

void pj_print_c128(double re, double im)
{
    char rbuf[64], ibuf[64];
    rt_float_repr(im, false, ibuf, sizeof ibuf);
    if (re == 0 && !signbit(re)) {
        printf("%sj", ibuf);
        return;
    }
    rt_float_repr(re, false, rbuf, sizeof rbuf);
    printf("(%s%s%sj)", rbuf, ibuf[0] == '-' ? "" : "+", ibuf);
}

void pj_print_bool(int32_t v)
{
    fputs(v ? "True" : "False", stdout);
}

void pj_print_str(const char *s)
{
    fputs(s ? s : "None", stdout);
}

void pj_print_sep(int32_t end)
{
    if (end) {
        fputc('\n', stdout);
        fflush(stdout);
    } else {
        fputc(' ', stdout);
    }
}

/* _core.print_float(x) -> str: the compiled print's text for a float (tests compare it with
 * repr). Formats into a string instead of stdout so the test needs no capture of fd 1. */
PyObject *rt_format_float(double v)
{
    char buf[64];
    rt_float_repr(v, true, buf, sizeof buf);
    return PyUnicode_FromString(buf);
}
