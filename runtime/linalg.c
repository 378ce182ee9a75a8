/* linalg.c: np.linalg and large np.dot in compiled code, through SciPy's LAPACK and BLAS.
 *
 * SciPy exports the LAPACK and BLAS it was built with as C function pointers, in the
 * __pyx_capi__ capsules of scipy.linalg.cython_lapack and cython_blas (Numba takes the same
 * route). They are read once, the first time compiled code needs one (rt_linalg_bind, under the
 * GIL: pyjit/lib/numpy_linalg.py binds when it is imported, and a version loaded from the disk
 * cache binds on its first call), so neither import pyjit nor a compilation without linear algebra
 * imports SciPy. The pj_la_* functions compiled code calls are plain C over those pointers: the
 * library (pyjit/lib/numpy_linalg.py) hands them Fortran-ordered work arrays it made, and they
 * ask LAPACK for the workspace it wants (lwork = -1), call it and return its info, or one of the
 * LA_* statuses below, which the library turns into NumPy's exceptions.
 *
 * kind, the element type of every call: 0 float32, 1 float64, 2 complex64, 3 complex128.
 * Character options (jobz, uplo) are passed as their codes ('V' is 86). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <complex.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/abi.h"
#include "runtime/runtime.h"

/* Statuses beside LAPACK's info (>= 0, or -i for a bad argument i); pyjit/lib/numpy_linalg.py
 * knows the same numbers. */
#define LA_NO_SCIPY (-1001)     /* SciPy (its cython_lapack) could not be imported */
#define LA_NO_MEMORY (-1002)
#define LA_TOO_LARGE (-1003)    /* a dimension past LAPACK's 32-bit int */
#define LA_COMPLEX (-1004)      /* eig of a real matrix has complex eigenvalues */

/* The routines, one row each with its name per kind: cython_lapack's, then from LA_GEMM on
 * cython_blas's. */
typedef enum LaFn {
    LA_GETRF, LA_GETRI, LA_GESV, LA_POTRF, LA_SYEVD, LA_GEEV, LA_GESDD, LA_GELSD, LA_GEQRF,
    LA_ORGQR, LA_GEMM, LA_GEMV, LA_NFN
} LaFn;

static const char *const names[LA_NFN][4] = {
    [LA_GETRF] = {"sgetrf", "dgetrf", "cgetrf", "zgetrf"},
    [LA_GETRI] = {"sgetri", "dgetri", "cgetri", "zgetri"},
    [LA_GESV] = {"sgesv", "dgesv", "cgesv", "zgesv"},
    [LA_POTRF] = {"spotrf", "dpotrf", "cpotrf", "zpotrf"},
    [LA_SYEVD] = {"ssyevd", "dsyevd", "cheevd", "zheevd"},
    [LA_GEEV] = {"sgeev", "dgeev", "cgeev", "zgeev"},
    [LA_GESDD] = {"sgesdd", "dgesdd", "cgesdd", "zgesdd"},
    [LA_GELSD] = {"sgelsd", "dgelsd", "cgelsd", "zgelsd"},
    [LA_GEQRF] = {"sgeqrf", "dgeqrf", "cgeqrf", "zgeqrf"},
    [LA_ORGQR] = {"sorgqr", "dorgqr", "cungqr", "zungqr"},
    [LA_GEMM] = {"sgemm", "dgemm", "cgemm", "zgemm"},
    [LA_GEMV] = {"sgemv", "dgemv", "cgemv", "zgemv"},
};

static void *fns[LA_NFN][4];
static atomic_int bound;       /* 1 once fns is filled; written under the GIL */

static const size_t item_size[4] = {4, 8, 8, 16};

static bool is_complex(int32_t kind) { return kind >= 2; }

/* fns[first..last) from one module's __pyx_capi__ dict. 0, or -1 with an exception set. */
static int bind_from(PyObject *capi, LaFn first, LaFn last)
{
    if (!PyDict_Check(capi)) {
        PyErr_SetString(PyExc_ImportError, "__pyx_capi__ is not a dict");
        return -1;
    }
    for (int f = first; f < (int)last; f++)
        for (int k = 0; k < 4; k++) {
            PyObject *cap = PyDict_GetItemString(capi, names[f][k]);   /* borrowed */
            void *p = cap ? PyCapsule_GetPointer(cap, PyCapsule_GetName(cap)) : NULL;
            if (!p) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ImportError, "SciPy exports no %s", names[f][k]);
                return -1;
            }
            fns[f][k] = p;
        }
    return 0;
}

/* pyjit._lapack.capi() finds the dicts (without importing all of scipy.linalg). */
int rt_linalg_bind(void)
{
    if (atomic_load(&bound))
        return 0;
    PyObject *mod = PyImport_ImportModule("pyjit._lapack");
    PyObject *dicts = mod ? PyObject_CallMethod(mod, "capi", NULL) : NULL;
    int rc = dicts && PyTuple_Check(dicts) && PyTuple_GET_SIZE(dicts) == 2 ? 0 : -1;
    if (rc == 0)
        rc = bind_from(PyTuple_GET_ITEM(dicts, 0), LA_GETRF, LA_GEMM) < 0 ||
             bind_from(PyTuple_GET_ITEM(dicts, 1), LA_GEMM, LA_NFN) < 0 ? -1 : 0;
    Py_XDECREF(dicts);
    Py_XDECREF(mod);
    if (rc < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ImportError, "np.linalg in compiled code needs SciPy "
                        "(pip install scipy): pyjit calls the LAPACK and BLAS SciPy ships");
        return -1;
    }
    atomic_store(&bound, 1);
    return 0;
}

/* _core.linalg_bind(): what pyjit/lib/numpy_linalg.py calls when it is imported. */
PyObject *rt_linalg_bind_py(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (rt_linalg_bind() < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Compiled code may run without the GIL (nogil, prange workers): take it to bind, once. */
static bool ready(void)
{
    if (atomic_load(&bound))
        return true;
    PyGILState_STATE gil = PyGILState_Ensure();
    int rc = rt_linalg_bind();
    PyErr_Clear();
    PyGILState_Release(gil);
    return rc == 0;
}

static bool fits(int64_t n) { return n >= 0 && n <= INT_MAX; }

/* The real part of a workspace query's answer, as a size. */
static int query_size(int32_t kind, const void *w)
{
    double v = kind == 0 || kind == 2 ? *(const float *)w : *(const double *)w;
    return v < 1 ? 1 : (int)v;
}

static void *alloc_items(int32_t kind, int64_t n)
{
    return malloc((size_t)(n < 1 ? 1 : n) * item_size[kind]);
}

/* Real workspace for a complex routine (rwork): float for kind 2, double for kind 3. */
static void *alloc_real(int32_t kind, int64_t n)
{
    return malloc((size_t)(n < 1 ? 1 : n) * (kind == 2 ? 4 : 8));
}

/* ---- LU, solve, Cholesky ----------------------------------------------------------------- */

typedef void getrf_fn(int *, int *, void *, int *, int *, int *);
typedef void getri_fn(int *, void *, int *, int *, void *, int *, int *);
typedef void gesv_fn(int *, int *, void *, int *, int *, void *, int *, int *);
typedef void potrf_fn(char *, int *, void *, int *, int *);

/* a (m x n, Fortran order) factored in place; ipiv: min(m, n) int32. */
int64_t pj_la_getrf(int32_t kind, int64_t m, int64_t n, void *a, void *ipiv)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(m) || !fits(n))
        return LA_TOO_LARGE;
    int im = (int)m, in = (int)n, lda = im > 1 ? im : 1, info = 0;
    ((getrf_fn *)fns[LA_GETRF][kind])(&im, &in, a, &lda, ipiv, &info);
    return info;
}

/* The inverse of a (n x n, Fortran order) from its LU factors (getrf's a and ipiv), in place. */
int64_t pj_la_getri(int32_t kind, int64_t n, void *a, void *ipiv)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(n))
        return LA_TOO_LARGE;
    int in = (int)n, lda = in > 1 ? in : 1, lwork = -1, info = 0;
    double q[2];
    getri_fn *f = (getri_fn *)fns[LA_GETRI][kind];
    f(&in, a, &lda, ipiv, q, &lwork, &info);
    if (info != 0)
        return info;
    lwork = query_size(kind, q);
    void *work = alloc_items(kind, lwork);
    if (!work)
        return LA_NO_MEMORY;
    f(&in, a, &lda, ipiv, work, &lwork, &info);
    free(work);
    return info;
}

/* a (n x n) and b (n x nrhs), Fortran order: b becomes the solution, a its LU factors. */
int64_t pj_la_gesv(int32_t kind, int64_t n, int64_t nrhs, void *a, void *b)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(n) || !fits(nrhs))
        return LA_TOO_LARGE;
    int in = (int)n, inrhs = (int)nrhs, ld = in > 1 ? in : 1, info = 0;
    int *ipiv = malloc(sizeof(int) * (size_t)(in > 0 ? in : 1));
    if (!ipiv)
        return LA_NO_MEMORY;
    ((gesv_fn *)fns[LA_GESV][kind])(&in, &inrhs, a, &ld, ipiv, b, &ld, &info);
    free(ipiv);
    return info;
}

/* The Cholesky factor of a (n x n, Fortran order) in its uplo triangle. */
int64_t pj_la_potrf(int32_t kind, int64_t uplo, int64_t n, void *a)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(n))
        return LA_TOO_LARGE;
    char u = (char)uplo;
    int in = (int)n, lda = in > 1 ? in : 1, info = 0;
    ((potrf_fn *)fns[LA_POTRF][kind])(&u, &in, a, &lda, &info);
    return info;
}

/* ---- eigenvalues --------------------------------------------------------------------------- */

typedef void syevd_fn(char *, char *, int *, void *, int *, void *, void *, int *, int *, int *,
                      int *);
typedef void heevd_fn(char *, char *, int *, void *, int *, void *, void *, int *, void *, int *,
                      int *, int *, int *);

/* Hermitian a (n x n, Fortran order, its uplo triangle read): w (n, real) the eigenvalues in
 * ascending order, a the eigenvectors as columns when jobz is 'V'. */
int64_t pj_la_syevd(int32_t kind, int64_t jobz, int64_t uplo, int64_t n, void *a, void *w)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(n))
        return LA_TOO_LARGE;
    char jz = (char)jobz, ul = (char)uplo;
    int in = (int)n, lda = in > 1 ? in : 1, info = 0, lwork = -1, lrwork = -1, liwork = -1, iq;
    double q[2], rq = 1;
    void *f = fns[LA_SYEVD][kind];
    if (is_complex(kind))
        ((heevd_fn *)f)(&jz, &ul, &in, a, &lda, w, q, &lwork, &rq, &lrwork, &iq, &liwork, &info);
    else
        ((syevd_fn *)f)(&jz, &ul, &in, a, &lda, w, q, &lwork, &iq, &liwork, &info);
    if (info != 0)
        return info;
    lwork = query_size(kind, q);
    lrwork = query_size(kind == 2 ? 0 : 1, &rq);
    liwork = iq < 1 ? 1 : iq;
    void *work = alloc_items(kind, lwork);
    void *rwork = is_complex(kind) ? alloc_real(kind, lrwork) : NULL;
    int *iwork = malloc(sizeof(int) * (size_t)liwork);
    if (work && (rwork || !is_complex(kind)) && iwork) {
        if (is_complex(kind))
            ((heevd_fn *)f)(&jz, &ul, &in, a, &lda, w, work, &lwork, rwork, &lrwork, iwork,
                            &liwork, &info);
        else
            ((syevd_fn *)f)(&jz, &ul, &in, a, &lda, w, work, &lwork, iwork, &liwork, &info);
    } else {
        info = LA_NO_MEMORY;
    }
    free(work);
    free(rwork);
    free(iwork);
    return info;
}

typedef void geev_real_fn(char *, char *, int *, void *, int *, void *, void *, void *, int *,
                          void *, int *, void *, int *, int *);
typedef void geev_complex_fn(char *, char *, int *, void *, int *, void *, void *, int *, void *,
                             int *, void *, int *, void *, int *);

/* One call of geev with the workspace given (lwork -1: the query). Real kinds get wr and wi,
 * complex kinds w (in wr) and rwork (in wi). */
static int call_geev(int32_t kind, char jobvr, int n, void *a, void *wr, void *wi, void *vr,
                     int ldvr, void *work, int lwork)
{
    char no = 'N';
    int lda = n > 1 ? n : 1, one = 1, info = 0;
    void *f = fns[LA_GEEV][kind];
    if (is_complex(kind))
        ((geev_complex_fn *)f)(&no, &jobvr, &n, a, &lda, wr, NULL, &one, vr, &ldvr, work, &lwork,
                               wi, &info);
    else
        ((geev_real_fn *)f)(&no, &jobvr, &n, a, &lda, wr, wi, NULL, &one, vr, &ldvr, work, &lwork,
                            &info);
    return info;
}

/* Whether every imaginary part (n of kind's real type) is zero. */
static bool all_zero(int32_t kind, const void *wi, int n)
{
    for (int i = 0; i < n; i++)
        if (kind == 0 ? ((const float *)wi)[i] != 0 : ((const double *)wi)[i] != 0)
            return false;
    return true;
}

/* General a (n x n, Fortran order, destroyed): w (n) its eigenvalues and, when jobv is 'V',
 * v (n x n, Fortran order) the right eigenvectors as columns, of a's kind. A real a with complex
 * eigenvalues gives LA_COMPLEX (the result would change type; Numba refuses it the same way). */
int64_t pj_la_geev(int32_t kind, int64_t jobv, int64_t n, void *a, void *w, void *v)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(n))
        return LA_TOO_LARGE;
    int in = (int)n, ldv = jobv == 'V' && in > 1 ? in : 1;
    /* wi: the imaginary parts (real kinds) or rwork, 2n reals (complex kinds) */
    void *wi = is_complex(kind) ? alloc_real(kind, 2 * n) : alloc_items(kind, n), *work = NULL;
    double q[2];
    int info = wi ? call_geev(kind, (char)jobv, in, a, w, wi, v, ldv, q, -1) : LA_NO_MEMORY;
    if (info == 0) {
        int lwork = query_size(kind, q);
        work = alloc_items(kind, lwork);
        info = work ? call_geev(kind, (char)jobv, in, a, w, wi, v, ldv, work, lwork) : LA_NO_MEMORY;
    }
    if (info == 0 && !is_complex(kind) && !all_zero(kind, wi, in))
        info = LA_COMPLEX;
    free(wi);
    free(work);
    return info;
}

/* ---- SVD and least squares ----------------------------------------------------------------- */

typedef void gesdd_real_fn(char *, int *, int *, void *, int *, void *, void *, int *, void *,
                           int *, void *, int *, int *, int *);
typedef void gesdd_complex_fn(char *, int *, int *, void *, int *, void *, void *, int *, void *,
                              int *, void *, int *, void *, int *, int *);

static int call_gesdd(int32_t kind, char jobz, int m, int n, void *a, void *s, void *u, int ldu,
                      void *vt, int ldvt, void *work, int lwork, void *rwork, int *iwork)
{
    int lda = m > 1 ? m : 1, info = 0;
    void *f = fns[LA_GESDD][kind];
    if (is_complex(kind))
        ((gesdd_complex_fn *)f)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork,
                                iwork, &info);
    else
        ((gesdd_real_fn *)f)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork,
                             &info);
    return info;
}

/* The real workspace complex gesdd needs (LAPACK's documented minimum). */
static int64_t gesdd_rwork(char jobz, int64_t mn, int64_t mx)
{
    if (jobz == 'N')
        return 7 * mn;
    int64_t a = 5 * mn * mn + 5 * mn, b = 2 * mx * mn + 2 * mn * mn + mn;
    return a > b ? a : b;
}

/* a (m x n, Fortran order, destroyed): s (min(m, n), real) its singular values, descending;
 * jobz 'A': u (m x m) and vt (n x n), 'S': u (m x k) and vt (k x n), 'N': neither (u and vt
 * unused), all Fortran order. */
int64_t pj_la_gesdd(int32_t kind, int64_t jobz, int64_t m, int64_t n, void *a, void *s, void *u,
                    void *vt)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(m) || !fits(n) || !fits(8 * m * n + 8 * (m + n)))
        return LA_TOO_LARGE;
    char jz = (char)jobz;
    int im = (int)m, in = (int)n, mn = im < in ? im : in, mx = im < in ? in : im;
    int ldu = jz == 'N' ? 1 : (im > 1 ? im : 1);
    int ldvt = jz == 'A' ? (in > 1 ? in : 1) : jz == 'S' ? (mn > 1 ? mn : 1) : 1;
    void *rwork = is_complex(kind) ? alloc_real(kind, gesdd_rwork(jz, mn, mx)) : NULL, *work = NULL;
    int *iwork = malloc(sizeof(int) * (size_t)(8 * (mn > 0 ? mn : 1)));
    double q[2];
    int info = iwork && (rwork || !is_complex(kind))
                   ? call_gesdd(kind, jz, im, in, a, s, u, ldu, vt, ldvt, q, -1, rwork, iwork)
                   : LA_NO_MEMORY;
    if (info == 0) {
        int lwork = query_size(kind, q);
        work = alloc_items(kind, lwork);
        info = work ? call_gesdd(kind, jz, im, in, a, s, u, ldu, vt, ldvt, work, lwork, rwork,
                                 iwork)
                    : LA_NO_MEMORY;
    }
    free(rwork);
    free(iwork);
    free(work);
    return info;
}

typedef void gelsd_real_fn(int *, int *, int *, void *, int *, void *, int *, void *, void *,
                           int *, void *, int *, int *, int *);
typedef void gelsd_complex_fn(int *, int *, int *, void *, int *, void *, int *, void *, void *,
                              int *, void *, int *, void *, int *, int *);

static int call_gelsd(int32_t kind, int m, int n, int nrhs, void *a, void *b, void *s,
                      void *rcond, int *rank, void *work, int lwork, void *rwork, int *iwork)
{
    int lda = m > 1 ? m : 1, ldb = m > n ? m : n, info = 0;
    ldb = ldb > 1 ? ldb : 1;
    void *f = fns[LA_GELSD][kind];
    if (is_complex(kind))
        ((gelsd_complex_fn *)f)(&m, &n, &nrhs, a, &lda, b, &ldb, s, rcond, rank, work, &lwork,
                                rwork, iwork, &info);
    else
        ((gelsd_real_fn *)f)(&m, &n, &nrhs, a, &lda, b, &ldb, s, rcond, rank, work, &lwork, iwork,
                             &info);
    return info;
}

/* Least squares: a (m x n) and b (max(m, n) x nrhs), Fortran order; b's first n rows become the
 * solution, s (min(m, n), real) the singular values, rank[0] (int64) the effective rank. */
int64_t pj_la_gelsd(int32_t kind, int64_t m, int64_t n, int64_t nrhs, void *a, void *b, void *s,
                    double rcond, void *rank)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(m) || !fits(n) || !fits(nrhs))
        return LA_TOO_LARGE;
    int im = (int)m, in = (int)n, inrhs = (int)nrhs, irank = 0, iq = 1;
    float rc32 = (float)rcond;
    void *rc = kind == 0 || kind == 2 ? (void *)&rc32 : (void *)&rcond;
    double q[2], rq[2] = {1, 0};
    int info = call_gelsd(kind, im, in, inrhs, a, b, s, rc, &irank, q, -1, rq, &iq);
    void *work = NULL, *rwork = NULL;
    int *iwork = NULL;
    if (info == 0) {
        int lwork = query_size(kind, q);
        work = alloc_items(kind, lwork);
        rwork = is_complex(kind) ? alloc_real(kind, query_size(kind == 2 ? 0 : 1, rq)) : NULL;
        iwork = malloc(sizeof(int) * (size_t)(iq > 1 ? iq : 1));
        info = work && iwork && (rwork || !is_complex(kind))
                   ? call_gelsd(kind, im, in, inrhs, a, b, s, rc, &irank, work, lwork, rwork, iwork)
                   : LA_NO_MEMORY;
    }
    *(int64_t *)rank = irank;
    free(work);
    free(rwork);
    free(iwork);
    return info;
}

/* ---- QR ------------------------------------------------------------------------------------ */

typedef void geqrf_fn(int *, int *, void *, int *, void *, void *, int *, int *);
typedef void orgqr_fn(int *, int *, int *, void *, int *, void *, void *, int *, int *);

/* a (m x n, Fortran order): R in its upper triangle, the reflectors below it and in tau
 * (min(m, n)). */
int64_t pj_la_geqrf(int32_t kind, int64_t m, int64_t n, void *a, void *tau)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(m) || !fits(n))
        return LA_TOO_LARGE;
    int im = (int)m, in = (int)n, lda = im > 1 ? im : 1, lwork = -1, info = 0;
    double q[2];
    geqrf_fn *f = (geqrf_fn *)fns[LA_GEQRF][kind];
    f(&im, &in, a, &lda, tau, q, &lwork, &info);
    if (info != 0)
        return info;
    lwork = query_size(kind, q);
    void *work = alloc_items(kind, lwork);
    if (!work)
        return LA_NO_MEMORY;
    f(&im, &in, a, &lda, tau, work, &lwork, &info);
    free(work);
    return info;
}

/* The first n columns of Q (a: m x n, Fortran order, holding geqrf's k reflectors). */
int64_t pj_la_orgqr(int32_t kind, int64_t m, int64_t n, int64_t k, void *a, void *tau)
{
    if (!ready())
        return LA_NO_SCIPY;
    if (!fits(m) || !fits(n) || !fits(k))
        return LA_TOO_LARGE;
    int im = (int)m, in = (int)n, ik = (int)k, lda = im > 1 ? im : 1, lwork = -1, info = 0;
    double q[2];
    orgqr_fn *f = (orgqr_fn *)fns[LA_ORGQR][kind];
    f(&im, &in, &ik, a, &lda, tau, q, &lwork, &info);
    if (info != 0)
        return info;
    lwork = query_size(kind, q);
    void *work = alloc_items(kind, lwork);
    if (!work)
        return LA_NO_MEMORY;
    f(&im, &in, &ik, a, &lda, tau, work, &lwork, &info);
    free(work);
    return info;
}

/* ---- np.dot and @ -------------------------------------------------------------------------- */

typedef void gemm_fn(char *, char *, int *, int *, int *, void *, void *, int *, void *, int *,
                     void *, void *, int *);
typedef void gemv_fn(char *, int *, int *, void *, void *, int *, void *, int *, void *, void *,
                     int *);

/* A matrix operand as BLAS takes it: column-major data with leading dimension ld, transposed
 * (trans 'T') or not, and the copy made when its strides suited neither. */
typedef struct Operand {
    char *data;
    int ld;
    char trans;
    void *copy;
} Operand;

/* rows x cols at p with byte strides (s0, s1), seen as the transpose of a column-major matrix
 * ('N' for the caller, which computes C^T = B^T A^T), as a column-major one ('T'), or copied
 * into a C-ordered buffer when neither. */
static int operand(Operand *o, int32_t kind, char *p, int64_t rows, int64_t cols, int64_t s0,
                   int64_t s1)
{
    int64_t size = (int64_t)item_size[kind];
    o->copy = NULL;
    if (s1 == size && s0 % size == 0 && s0 / size >= (cols > 1 ? cols : 1) && fits(s0 / size)) {
        *o = (Operand){p, (int)(s0 / size), 'N', NULL};
        return 0;
    }
    if (s0 == size && s1 % size == 0 && s1 / size >= (rows > 1 ? rows : 1) && fits(s1 / size)) {
        *o = (Operand){p, (int)(s1 / size), 'T', NULL};
        return 0;
    }
    char *c = malloc((size_t)(rows * cols > 0 ? rows * cols : 1) * (size_t)size);
    if (!c)
        return -1;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            memcpy(c + (i * cols + j) * size, p + i * s0 + j * s1, (size_t)size);
    *o = (Operand){c, (int)(cols > 1 ? cols : 1), 'N', c};
    return 0;
}

/* alpha = 1 and beta = 0 of the kind, for gemm and gemv. */
static void unit_scalars(int32_t kind, double one[2], double zero[2])
{
    memset(one, 0, 2 * sizeof(double));
    memset(zero, 0, 2 * sizeof(double));
    if (kind == 0 || kind == 2)
        *(float *)one = 1.0f;
    else
        one[0] = 1.0;
}

/* The vector product when one side is a vector (m or n is 1): y = op(M) x through gemv. */
static void dot_gemv(int32_t kind, Operand *mat, int64_t rows, int64_t cols, char *x,
                     int64_t incx, char *y)
{
    /* mat is 'N': its data is M^T column-major (cols x rows); 'T': M column-major */
    char t = mat->trans == 'N' ? 'T' : 'N';
    int r = (int)(mat->trans == 'N' ? cols : rows), c = (int)(mat->trans == 'N' ? rows : cols);
    int ix = (int)incx, one_inc = 1;
    double one[2], zero[2];
    unit_scalars(kind, one, zero);
    ((gemv_fn *)fns[LA_GEMV][kind])(&t, &r, &c, one, mat->data, &mat->ld, x, &ix, zero, y,
                                    &one_inc);
}

/* A vector's stride in items, for gemv: 0 when BLAS cannot take it. */
static int inc_of(int64_t stride, int64_t size)
{
    return stride % size == 0 && stride > 0 && fits(stride / size) ? (int)(stride / size) : 0;
}

/* c (m x n, C order) = a (m x k) @ b (k x n), strides in bytes, all of kind. 0 when done, 1 when
 * BLAS cannot serve (no SciPy, a dimension too large, no memory): the caller loops instead. */
int32_t pj_la_dot(int32_t kind, int64_t m, int64_t n, int64_t k, char *a, int64_t sa0,
                  int64_t sa1, char *b, int64_t sb0, int64_t sb1, char *c)
{
    if (!ready() || !fits(m) || !fits(n) || !fits(k) || m * n == 0 || k == 0)
        return 1;
    int64_t size = (int64_t)item_size[kind];
    int incb = inc_of(sb0, size), inca = inc_of(sa1, size);
    Operand oa = {0}, ob = {0};
    if (n == 1 && incb) {
        if (operand(&oa, kind, a, m, k, sa0, sa1) < 0)
            return 1;
        dot_gemv(kind, &oa, m, k, b, incb, c);
    } else if (m == 1 && inca) {
        if (operand(&ob, kind, b, k, n, sb0, sb1) < 0)
            return 1;
        /* c^T = b^T a^T: b^T's column-major form is b's read the other way round */
        Operand bt = {ob.data, ob.ld, ob.trans == 'N' ? 'T' : 'N', NULL};
        dot_gemv(kind, &bt, n, k, a, inca, c);
    } else {
        if (operand(&oa, kind, a, m, k, sa0, sa1) < 0)
            return 1;
        if (operand(&ob, kind, b, k, n, sb0, sb1) < 0) {
            free(oa.copy);
            return 1;
        }
        int im = (int)m, in = (int)n, ik = (int)k, ldc = in > 1 ? in : 1;
        double one[2], zero[2];
        unit_scalars(kind, one, zero);
        /* C^T (n x m, column-major: C in C order) = B^T A^T */
        ((gemm_fn *)fns[LA_GEMM][kind])(&ob.trans, &oa.trans, &in, &im, &ik, one, ob.data, &ob.ld,
                                        oa.data, &oa.ld, zero, c, &ldc);
    }
    free(oa.copy);
    free(ob.copy);
    return 0;
}
