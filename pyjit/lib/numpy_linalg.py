"""np.linalg in compiled code, written in the subset over LAPACK (builtins.def's
pyjit._lapack rows; runtime/linalg.c calls the LAPACK SciPy ships, through
scipy.linalg.cython_lapack, as Numba does).

Each function copies its operands into Fortran-ordered work arrays (any layout, any dtype, in),
lets LAPACK work on those, and copies the results out C-ordered. The dtypes are NumPy's: the work
is done in double precision (float64, or complex128 when an operand is complex; ints and bools
become float64), and a result is single precision when every operand was (float32,
complex64), as numpy.linalg's _commonType does. Errors are NumPy's: LinAlgError for singular
matrices and what does not converge, with NumPy's messages; a wrong number of dimensions is a
TypeError when compiling (NumPy's stacks of matrices, more than 2 dimensions, are not
supported). SciPy is needed by the functions that call LAPACK: without it their compilation
fails saying so (np.linalg in compiled code needs SciPy).

Where NumPy's result type depends on the values, the Numba rule holds: eig and eigvals of a real
matrix return real arrays, and a real matrix with complex eigenvalues raises ValueError;
svd's compute_uv and qr's mode must be constants."""
import numpy as np

from .. import _lapack
from ._util import generated, given, is_array, overload, register_jitable, types

_NO_SCIPY, _NO_MEMORY, _TOO_LARGE, _COMPLEX = (_lapack.NO_SCIPY, _lapack.NO_MEMORY,
                                               _lapack.TOO_LARGE, _lapack.COMPLEX)
_V, _N, _A, _S, _L, _U = (ord(c) for c in "VNASLU")


def _given(t):
    """Whether the call passed this argument (left out, the typing function sees the default)."""
    return isinstance(t, types.Type) and given(t)


def _bind():
    """Binds SciPy's LAPACK now, so that a missing SciPy fails the compilation, saying so."""
    from .. import _core
    _core.linalg_bind()


def _dtypes(fname, *arrays):
    """(work dtype, result dtype) of NumPy's linalg for these arrays (numpy.linalg._commonType):
    float64 or complex128 to work in, single precision results when every operand is."""
    complex_, single = False, True
    for a in arrays:
        d = a.dtype
        if not isinstance(d, (types.Integer, types.Boolean, types.Float, types.Complex)) or \
                d == types.float16:
            raise TypeError(f"np.linalg.{fname}(): array type {d} is unsupported in linalg")
        complex_ = complex_ or isinstance(d, types.Complex)
        single = single and d in (types.float32, types.complex64)
    work = types.complex128 if complex_ else types.float64
    if single:
        return work, types.complex64 if complex_ else types.float32
    return work, work


def _real(dt):
    return {types.complex64: types.float32, types.complex128: types.float64}.get(dt, dt)


def _matrix(fname, a, lapack=True):
    """Checks that a is a 2-d array (when compiling) and binds LAPACK if the function needs it."""
    if not is_array(a):
        raise TypeError(f"np.linalg.{fname}() takes an array, not {a}")
    if a.ndim < 2:
        raise TypeError(f"np.linalg.{fname}(): {a.ndim}-dimensional array given. Array must be "
                        "at least two-dimensional")
    if a.ndim > 2:
        raise TypeError(f"np.linalg.{fname}() of a {a.ndim}-d array: pyjit takes 2-d arrays, "
                        "not NumPy's stacks of matrices")
    if lapack:
        _bind()


def _literal(fname, name, value, default, allowed):
    """The value of a string option, which must be a constant in compiled code."""
    if not _given(value):
        return default
    text = getattr(value, "literal_value", None)
    if text not in allowed:
        shown = repr(text) if text is not None else f"a run-time {value}"
        choices = ", ".join(map(repr, allowed))
        raise ValueError(f"np.linalg.{fname}(): {name} must be one of {choices} (a constant), "
                         f"not {shown}")
    return text


# ---- helpers shared by the implementations ---------------------------------------------------

@register_jitable
def _check(info):
    """Raises for runtime/linalg.c's statuses and LAPACK's rejected arguments (info < 0)."""
    if info == _NO_SCIPY:
        raise ImportError("np.linalg in compiled code needs SciPy (pip install scipy)")
    if info == _NO_MEMORY:
        raise MemoryError("cannot allocate LAPACK's workspace")
    if info == _TOO_LARGE:
        raise ValueError("array too large for LAPACK (a dimension past 2**31 - 1)")
    if info < 0:
        raise ValueError(f"LAPACK rejected its argument {-info}")


@register_jitable
def _fill(w, a):
    """w[i, j] = a[i, j] over a's 2-d shape, converting to w's dtype, in w's memory order."""
    if w.strides[0] < w.strides[1]:     # Fortran-ordered
        for j in range(a.shape[1]):
            for i in range(a.shape[0]):
                w[i, j] = a[i, j]
    else:
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                w[i, j] = a[i, j]


@register_jitable
def _fill1(w, a):
    for i in range(a.shape[0]):
        w[i] = a[i]


@register_jitable
def _square(a):
    if a.shape[0] != a.shape[1]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")


# ---- inv, solve, det, slogdet -----------------------------------------------------------------

@register_jitable
def _lu(a, wt):
    """The LU factors of a (square, checked) in a work array, the pivots, and getrf's info."""
    n = a.shape[0]
    w = np.empty((n, n), wt)        # A^T in Fortran order: det(A^T) = det(A)
    _fill(w, a)
    ipiv = np.empty(max(n, 1), np.int32)
    info = _lapack.getrf(n, n, w, ipiv)
    _check(info)
    return w, ipiv


@overload(np.linalg.inv)
def _inv(a):
    _matrix("inv", a)
    wt, rt = _dtypes("inv", a)

    def impl(a):
        _square(a)
        n = a.shape[0]
        # C-ordered A is Fortran-ordered A^T: getri inverts it in place, and inv(A^T) in
        # Fortran order is inv(A) in C order
        w, ipiv = _lu(a, wt)
        if n > 0:
            for i in range(n):
                if w[i, i] == 0:
                    raise np.linalg.LinAlgError("Singular matrix")
            _check(_lapack.getri(n, w, ipiv))
        out = np.empty((n, n), rt)
        _fill(out, w)
        return out
    return impl


@overload(np.linalg.solve)
def _solve(a, b):
    _matrix("solve", a)
    if not is_array(b) or b.ndim not in (1, 2):
        raise TypeError(f"np.linalg.solve() takes b as a 1-d or 2-d array, not {b}")
    wt, rt = _dtypes("solve", a, b)
    if b.ndim == 1:
        def impl(a, b):
            _square(a)
            n = a.shape[0]
            if b.shape[0] != n:
                raise ValueError(f"solve1: Input operand 1 has a mismatch in its core dimension 0, "
                                 f"with gufunc signature (m,m),(m)->(m) (size {b.shape[0]} is "
                                 f"different from {n})")
            w = np.empty((n, n), wt).T
            _fill(w, a)
            x = np.empty(n, wt)
            _fill1(x, b)
            info = _lapack.gesv(n, 1, w, x)
            _check(info)
            if info > 0:
                raise np.linalg.LinAlgError("Singular matrix")
            return x.astype(rt)
        return impl

    def impl2(a, b):
        _square(a)
        n, k = a.shape[0], b.shape[1]
        if b.shape[0] != n:
            raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension 0, "
                             f"with gufunc signature (m,m),(m,n)->(m,n) (size {b.shape[0]} is "
                             f"different from {n})")
        w = np.empty((n, n), wt).T
        _fill(w, a)
        x = np.empty((k, n), wt).T
        _fill(x, b)
        info = _lapack.gesv(n, k, w, x)
        _check(info)
        if info > 0:
            raise np.linalg.LinAlgError("Singular matrix")
        out = np.empty((n, k), rt)
        _fill(out, x)
        return out
    return impl2


@overload(np.linalg.det)
def _det(a):
    _matrix("det", a)
    wt, rt = _dtypes("det", a)

    def impl(a):
        _square(a)
        w, ipiv = _lu(a, wt)
        d = wt(1)
        for i in range(a.shape[0]):
            d *= w[i, i]
            if ipiv[i] != i + 1:
                d = -d
        return rt(d)
    return impl


@overload(np.linalg.slogdet)
def _slogdet(a):
    _matrix("slogdet", a)
    wt, rt = _dtypes("slogdet", a)
    real = _real(rt)

    def impl(a):
        _square(a)
        w, ipiv = _lu(a, wt)
        sign = wt(1)
        logdet = 0.0
        for i in range(a.shape[0]):
            u = w[i, i]
            m = abs(u)
            if m == 0:
                return rt(0), real(-np.inf)
            sign *= u / m
            logdet += np.log(m)
            if ipiv[i] != i + 1:
                sign = -sign
        return rt(sign), real(logdet)
    return impl


# ---- eigenvalues ------------------------------------------------------------------------------

@register_jitable
def _geev(a, wt, vectors):
    _square(a)
    n = a.shape[0]
    w = np.empty((n, n), wt).T
    _fill(w, a)
    vals = np.empty(n, wt)
    vecs = np.empty((n, n) if vectors else (1, 1), wt).T
    info = _lapack.geev(_V if vectors else _N, n, w, vals, vecs)
    if info == _COMPLEX:
        raise ValueError("eig() argument must not cause a domain change: this real matrix has "
                         "complex eigenvalues (pass a complex matrix)")
    _check(info)
    if info > 0:
        raise np.linalg.LinAlgError("Eigenvalues did not converge")
    return vals, vecs


# NumPy 2.5 made eig and eigvals of a real matrix complex always; before, they were real unless
# an eigenvalue was complex, which compiled code, whose result type cannot depend on values,
# refuses (Numba's rule).
_EIG_COMPLEX = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 5)


def _eig_dtypes(fname, a):
    wt, rt = _dtypes(fname, a)
    if _EIG_COMPLEX and not isinstance(rt, types.Complex):
        return types.complex128, types.complex64 if rt == types.float32 else types.complex128
    return wt, rt


@overload(np.linalg.eig)
def _eig(a):
    _matrix("eig", a)
    wt, rt = _eig_dtypes("eig", a)

    def impl(a):
        vals, vecs = _geev(a, wt, True)
        n = a.shape[0]
        out = np.empty((n, n), rt)
        _fill(out, vecs)
        return vals.astype(rt), out
    return impl


@overload(np.linalg.eigvals)
def _eigvals(a):
    _matrix("eigvals", a)
    wt, rt = _eig_dtypes("eigvals", a)

    def impl(a):
        vals, vecs = _geev(a, wt, False)
        return vals.astype(rt)
    return impl


def _syevd(fname, a, UPLO, vectors):
    _matrix(fname, a)
    wt, rt = _dtypes(fname, a)
    uplo = ord(_literal(fname, "UPLO", UPLO, "L", ("L", "U")))
    rwt, real = _real(wt), _real(rt)

    def run(a):
        _square(a)
        n = a.shape[0]
        w = np.empty((n, n), wt).T
        _fill(w, a)
        vals = np.empty(n, rwt)
        info = _lapack.syevd(_V if vectors else _N, uplo, n, w, vals)
        _check(info)
        if info > 0:
            raise np.linalg.LinAlgError("Eigenvalues did not converge")
        return vals.astype(real), w
    return run, rt


@overload(np.linalg.eigh)
def _eigh(a, UPLO="L"):
    run, rt = _syevd("eigh", a, UPLO, True)
    run = register_jitable(run)

    def impl(a, UPLO="L"):
        vals, w = run(a)
        out = np.empty(w.shape, rt)
        _fill(out, w)
        return vals, out
    return impl


@overload(np.linalg.eigvalsh)
def _eigvalsh(a, UPLO="L"):
    run, rt = _syevd("eigvalsh", a, UPLO, False)
    run = register_jitable(run)

    def impl(a, UPLO="L"):
        return run(a)[0]
    return impl


# ---- svd, and what is built on it -------------------------------------------------------------

@register_jitable
def _singular_values(a, wt, rwt):
    """The singular values of the 2-d array a, in descending order (work precision)."""
    m, n = a.shape
    k = min(m, n)
    s = np.empty(k, rwt)
    if k == 0:
        return s
    w = np.empty((n, m), wt).T
    _fill(w, a)
    info = _lapack.gesdd(_N, m, n, w, s, s, s)
    _check(info)
    if info > 0:
        raise np.linalg.LinAlgError("SVD did not converge")
    return s


@register_jitable
def _svd(a, wt, rwt, full):
    """u, s, vt of the 2-d array a (u and vt Fortran-ordered work arrays)."""
    m, n = a.shape
    k = min(m, n)
    um, vn = (m, n) if full else (k, k)
    u = np.zeros((um, m), wt).T
    vt = np.zeros((n, vn), wt).T
    s = np.empty(k, rwt)
    if k == 0:
        for i in range(min(um, m)):
            u[i, i] = 1
        for i in range(min(vn, n)):
            vt[i, i] = 1
        return u, s, vt
    w = np.empty((n, m), wt).T
    _fill(w, a)
    info = _lapack.gesdd(_A if full else _S, m, n, w, s, u, vt)
    _check(info)
    if info > 0:
        raise np.linalg.LinAlgError("SVD did not converge")
    return u, s, vt


@overload(np.linalg.svd)
def _svd_overload(a, full_matrices=True, compute_uv=True, hermitian=False):
    _matrix("svd", a)
    wt, rt = _dtypes("svd", a)
    rwt, real = _real(wt), _real(rt)
    if _given(compute_uv):
        # the result's type depends on it: given, it is taken as False (its default is True)
        def values(a, full_matrices=True, compute_uv=True, hermitian=False):
            if compute_uv:
                raise ValueError("np.linalg.svd(): compute_uv takes a constant False in compiled "
                                 "code (leave it out for u, s, vh)")
            return _singular_values(a, wt, rwt).astype(real)
        return values

    def impl(a, full_matrices=True, compute_uv=True, hermitian=False):
        u, s, vt = _svd(a, wt, rwt, full_matrices)
        uo = np.empty(u.shape, rt)
        _fill(uo, u)
        vo = np.empty(vt.shape, rt)
        _fill(vo, vt)
        return uo, s.astype(real), vo
    return impl


@overload(np.linalg.matrix_rank)
def _matrix_rank(A, tol=None, hermitian=False):
    if not is_array(A):
        raise TypeError(f"np.linalg.matrix_rank() takes an array, not {A}")
    if A.ndim > 2:
        raise TypeError(f"np.linalg.matrix_rank() of a {A.ndim}-d array: pyjit takes up to 2-d "
                        "arrays, not NumPy's stacks of matrices")
    if A.ndim < 2:
        def vector(A, tol=None, hermitian=False):
            for v in A.ravel() if A.ndim == 1 else A.reshape(1):
                if v != 0:
                    return 1
            return 0
        return vector
    _matrix("matrix_rank", A)
    wt, rt = _dtypes("matrix_rank", A)
    rwt = _real(wt)
    eps = float(np.finfo(np.dtype(_real(rt).name)).eps)
    has_tol = _given(tol)

    def impl(A, tol=None, hermitian=False):
        s = _singular_values(A, wt, rwt)
        if s.size == 0:
            return 0
        t = s[0] * max(A.shape[0], A.shape[1]) * eps
        if has_tol:
            t = tol
        r = 0
        for v in s:
            if v > t:
                r += 1
        return r
    return impl


@overload(np.linalg.pinv)
def _pinv(a, rcond=None, hermitian=False):
    _matrix("pinv", a)
    wt, rt = _dtypes("pinv", a)
    rwt = _real(wt)
    has_rcond = _given(rcond)

    def impl(a, rcond=None, hermitian=False):
        m, n = a.shape
        out = np.zeros((n, m), rt)
        if m == 0 or n == 0:
            return out
        u, s, vt = _svd(a, wt, rwt, False)
        cut = 1e-15
        if has_rcond:
            cut = rcond
        cutoff = cut * s[0]
        k = s.size
        # pinv = V diag(1/s) U^H, the small singular values dropped
        res = np.zeros((n, m), wt)
        for p in range(k):
            if s[p] > cutoff:
                inv = 1.0 / s[p]
                for i in range(n):
                    vi = np.conj(vt[p, i]) * inv
                    for j in range(m):
                        res[i, j] += vi * np.conj(u[j, p])
        _fill(out, res)
        return out
    return impl


# ---- norm and cond ----------------------------------------------------------------------------

@register_jitable
def _vector_norm(x, p):
    """The p-norm of the 1-d array x (p a number; inf and -inf allowed), in float64."""
    n = x.shape[0]
    if n == 0:
        return 0.0
    if p == np.inf or p == -np.inf:
        r = abs(x[0]) * 1.0
        for i in range(n):
            v = abs(x[i])
            r = max(r, v) if p > 0 else min(r, v)
        return r
    r = 0.0
    if p == 0:
        for i in range(n):
            if x[i] != 0:
                r += 1.0
        return r
    if p == 1:
        for i in range(n):
            r += abs(x[i])
        return r
    if p == 2:
        for i in range(n):
            v = abs(x[i])
            r += v * v
        return np.sqrt(r)
    for i in range(n):
        r += (abs(x[i]) * 1.0) ** p
    return r ** (1.0 / p)


@register_jitable
def _frobenius(x):
    r = 0.0
    for v in x.ravel():
        a = abs(v)
        r += a * a
    return np.sqrt(r)


@register_jitable
def _matrix_norm(x, p, wt, rwt):
    """The p-norm of the 2-d array x (p: 1, -1, 2, -2, inf, -inf), in float64."""
    m, n = x.shape
    if p == 2 or p == -2:
        if m == 0 or n == 0:
            raise ValueError("zero-size array to reduction operation maximum which has no identity")
        s = _singular_values(x, wt, rwt)
        return s[0] * 1.0 if p == 2 else s[s.size - 1] * 1.0
    if p == 1 or p == -1 or p == np.inf or p == -np.inf:
        cols = p == 1 or p == -1
        outer, inner = (n, m) if cols else (m, n)
        if outer == 0:
            raise ValueError("zero-size array to reduction operation maximum which has no identity")
        best = 0.0
        for o in range(outer):
            t = 0.0
            for i in range(inner):
                t += abs(x[i, o]) if cols else abs(x[o, i])
            if o == 0 or (t > best if p > 0 else t < best):
                best = t
        return best
    raise ValueError("Invalid norm order for matrices.")


@register_jitable
def _nuclear(x, wt, rwt):
    r = 0.0
    for v in _singular_values(x, wt, rwt):
        r += v
    return r


def _norm_order(ord):
    """'fro', 'nuc', None, or 'number' for an ord given as a number (known at run time)."""
    if not _given(ord):
        return None
    if isinstance(ord, types.StringLiteral):
        if ord.literal_value not in ("fro", "nuc"):
            raise ValueError(f"Invalid norm order '{ord.literal_value}' for matrices.")
        return ord.literal_value
    if isinstance(ord, (types.Integer, types.Float, types.Boolean)):
        return "number"
    raise TypeError(f"np.linalg.norm(): ord must be None, a number, 'fro' or 'nuc', not {ord}")


@overload(np.linalg.norm)
def _norm(x, ord=None, axis=None, keepdims=False):
    if not is_array(x):
        raise TypeError(f"np.linalg.norm() takes an array, not {x}")
    if _given(keepdims):
        raise TypeError("np.linalg.norm(): keepdims is not supported in compiled code")
    wt, rt = _dtypes("norm", x)
    real, rwt = _real(rt), _real(wt)
    how = _norm_order(ord)
    if _given(axis):
        return _norm_axis(x, how, axis, real)
    if how is None:
        return lambda x, ord=None, axis=None, keepdims=False: real(_frobenius(x))
    if x.ndim == 1:
        if how != "number":
            raise ValueError(f"Invalid norm order '{how}' for vectors")
        return lambda x, ord=None, axis=None, keepdims=False: real(_vector_norm(x, ord))
    if x.ndim != 2:
        raise ValueError("Improper number of dimensions to norm.")
    if how == "fro":
        return lambda x, ord=None, axis=None, keepdims=False: real(_frobenius(x))
    _bind()
    if how == "nuc":
        return lambda x, ord=None, axis=None, keepdims=False: real(_nuclear(x, wt, rwt))
    return lambda x, ord=None, axis=None, keepdims=False: real(_matrix_norm(x, ord, wt, rwt))


def _norm_axis(x, how, axis, real):
    """norm along one axis of a 1-d or 2-d array: the vector norms of its rows or columns."""
    if not isinstance(axis, types.Integer) or x.ndim > 2:
        raise TypeError(f"np.linalg.norm(): pyjit takes axis as an int, on arrays of 1 or 2 "
                        f"dimensions, not {axis} on a {x.ndim}-d array")
    if how in ("fro", "nuc"):
        raise ValueError(f"Invalid norm order '{how}' for vectors")
    numbered = how == "number"
    if x.ndim == 1:
        def vec(x, ord=None, axis=None, keepdims=False):
            if axis != 0 and axis != -1:
                raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of "
                                              "dimension 1")
            return real(_vector_norm(x, ord if numbered else 2))
        return vec

    def impl(x, ord=None, axis=None, keepdims=False):
        if axis < -2 or axis > 1:
            raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension 2")
        y = x if axis == 1 or axis == -1 else x.T
        out = np.empty(y.shape[0], real)
        for i in range(y.shape[0]):
            out[i] = _vector_norm(y[i], ord if numbered else 2)
        return out
    return impl


@overload(np.linalg.cond)
def _cond(x, p=None):
    _matrix("cond", x)
    wt, rt = _dtypes("cond", x)
    real, rwt = _real(rt), _real(wt)
    how = _norm_order(p)

    if how is None:
        def two(x, p=None):
            s = _singular_values(x, wt, rwt)
            return real(s[0] / s[s.size - 1])
        return two

    def impl(x, p=None):
        _square(x)
        n = x.shape[0]
        w, ipiv = _lu(x, wt)
        for i in range(n):
            if w[i, i] == 0:
                return real(np.inf)
        if how == "fro":
            return real(_frobenius(x) * _frobenius(np.linalg.inv(x)))
        if how == "nuc":
            return real(_nuclear(x, wt, rwt) * _nuclear(np.linalg.inv(x), wt, rwt))
        if p == 2 or p == -2:
            s = _singular_values(x, wt, rwt)
            return real(s[0] / s[n - 1] if p == 2 else s[n - 1] / s[0])
        return real(_matrix_norm(x, p, wt, rwt) * _matrix_norm(np.linalg.inv(x), p, wt, rwt))
    return impl


# ---- lstsq, qr, cholesky ----------------------------------------------------------------------

@overload(np.linalg.lstsq)
def _lstsq(a, b, rcond=None):
    _matrix("lstsq", a)
    if not is_array(b) or b.ndim not in (1, 2):
        raise TypeError(f"np.linalg.lstsq() takes b as a 1-d or 2-d array, not {b}")
    wt, rt = _dtypes("lstsq", a, b)
    rwt, real = _real(wt), _real(rt)
    eps = float(np.finfo(np.dtype(rwt.name)).eps)
    has_rcond = _given(rcond)

    def solve(a, b2, rcond):
        """x (n x k, C order), the residuals, the rank and the singular values."""
        m, n = a.shape
        k = b2.shape[1]
        rc = eps * max(m, n)
        if has_rcond:
            rc = rcond
        w = np.empty((n, m), wt).T
        _fill(w, a)
        x = np.zeros((max(k, 1), max(m, n)), wt).T
        _fill(x, b2)
        s = np.zeros(min(m, n), rwt)
        rank = np.zeros(1, np.int64)
        if m > 0 and n > 0 and k > 0:
            info = _lapack.gelsd(m, n, k, w, x, s, rc, rank)
            _check(info)
            if info > 0:
                raise np.linalg.LinAlgError("SVD did not converge in Linear Least Squares")
        sol = np.zeros((n, k), rt)
        if m > 0:
            for j in range(k):
                for i in range(n):
                    sol[i, j] = x[i, j]
        nres = k if rank[0] == n and m > n else 0
        resid = np.zeros(nres, real)
        for j in range(nres):
            t = 0.0
            for i in range(n, m):
                v = abs(x[i, j])
                t += v * v
            resid[j] = t
        return sol, resid, rank[0], s.astype(real)
    solve = register_jitable(solve)

    def check(a, b):
        if b.shape[0] != a.shape[0]:
            raise np.linalg.LinAlgError("Incompatible dimensions")
    check = register_jitable(check)

    if b.ndim == 1:
        def vector(a, b, rcond=None):
            check(a, b)
            sol, resid, rank, s = solve(a, b.reshape((b.shape[0], 1)), rcond)
            return sol.reshape(a.shape[1]), resid, rank, s
        return vector

    def impl(a, b, rcond=None):
        check(a, b)
        return solve(a, b, rcond)
    return impl


@overload(np.linalg.qr)
def _qr(a, mode="reduced"):
    _matrix("qr", a)
    wt, rt = _dtypes("qr", a)
    how = _literal("qr", "mode", mode, "reduced", ("reduced", "complete", "r"))

    def factor(a):
        m, n = a.shape
        k = min(m, n)
        w = np.empty((n, m), wt).T
        _fill(w, a)
        tau = np.empty(max(k, 1), wt)
        if k > 0:
            _check(_lapack.geqrf(m, n, w, tau))
        return w, tau
    factor = register_jitable(factor)

    def r_of(w, rows):
        m, n = w.shape
        r = np.zeros((rows, n), rt)
        for i in range(rows):
            for j in range(i, n):
                r[i, j] = w[i, j]
        return r
    r_of = register_jitable(r_of)

    if how == "r":
        def only_r(a, mode="reduced"):
            w, tau = factor(a)
            return r_of(w, min(a.shape[0], a.shape[1]))
        return only_r

    complete = how == "complete"

    def impl(a, mode="reduced"):
        m, n = a.shape
        k = min(m, n)
        w, tau = factor(a)
        cols = m if complete else k
        q = np.zeros((cols, m), wt).T
        for j in range(k):
            for i in range(m):
                q[i, j] = w[i, j]
        if cols > 0 and m > 0:
            _check(_lapack.orgqr(m, cols, k, q, tau))
        qo = np.empty((m, cols), rt)
        _fill(qo, q)
        return qo, r_of(w, m if complete else k)
    return impl


@overload(np.linalg.cholesky)
def _cholesky(a, upper=False):
    _matrix("cholesky", a)
    wt, rt = _dtypes("cholesky", a)
    if _given(upper):
        raise TypeError("np.linalg.cholesky(): upper= is not supported in compiled code")

    def impl(a, upper=False):
        _square(a)
        n = a.shape[0]
        w = np.empty((n, n), wt).T
        _fill(w, a)
        info = _lapack.potrf(_L, n, w)
        _check(info)
        if info > 0:
            raise np.linalg.LinAlgError("Matrix is not positive definite")
        out = np.zeros((n, n), rt)
        for j in range(n):
            for i in range(j, n):
                out[i, j] = w[i, j]
        return out
    return impl


# ---- products ---------------------------------------------------------------------------------

@overload(np.linalg.matrix_power)
def _matrix_power(a, n):
    _matrix("matrix_power", a, lapack=False)
    if not isinstance(n, (types.Integer, types.Boolean)):
        raise TypeError(f"np.linalg.matrix_power(): exponent must be an integer, not {n}")
    integral = not isinstance(a.dtype, (types.Float, types.Complex))
    dt = a.dtype
    if not integral:
        _bind()

    def impl(a, n):
        _square(a)
        m = a.shape[0]
        if n == 0:
            r = np.zeros((m, m), dt)
            for i in range(m):
                r[i, i] = 1
            return r
        base = np.empty((m, m), dt)
        if n < 0:
            _fill(base, np.linalg.inv(a))
        else:
            _fill(base, a)
        e = -n if n < 0 else n
        result = base.copy()
        e -= 1
        while e > 0:
            if e & 1:
                result = np.dot(result, base)
            e >>= 1
            if e > 0:
                base = np.dot(base, base)
        return result
    if integral:
        def int_impl(a, n):
            _square(a)
            m = a.shape[0]
            r = np.zeros((m, m), dt)
            for i in range(m):
                r[i, i] = 1
            if n == 0:
                return r
            if n < 0:
                raise TypeError("np.linalg.matrix_power(): a negative power of an integer "
                                "matrix is a float matrix, which compiled code cannot return "
                                "here: pass a float matrix")
            base = np.empty((m, m), dt)
            _fill(base, a)
            e = n
            while e > 0:
                if e & 1:
                    r = np.dot(r, base)
                e >>= 1
                if e > 0:
                    base = np.dot(base, base)
            return r
        return int_impl
    return impl


@overload(np.vdot)
def _vdot(a, b):
    if not (is_array(a) and is_array(b)):
        raise TypeError(f"np.vdot() takes two arrays, not {a} and {b}")
    complex_ = isinstance(a.dtype, types.Complex)

    def impl(a, b):
        x, y = a.ravel(), b.ravel()
        if x.size != y.size:
            raise ValueError("cannot reshape array: vdot's arrays must have the same size")
        if complex_:
            return np.dot(np.conj(x), y)
        return np.dot(x, y)
    return impl


@overload(np.linalg.multi_dot)
def _multi_dot(arrays, out=None):
    if _given(out):
        raise TypeError("np.linalg.multi_dot(): out= is not supported in compiled code")
    if isinstance(arrays, (types.Tuple, types.UniTuple)):
        count = len(arrays.types) if isinstance(arrays, types.Tuple) else arrays.count
        if count < 2:
            raise ValueError("Expecting at least two arrays.")
        body = "    r = np.dot(arrays[0], arrays[1])\n" + "".join(
            f"    r = np.dot(r, arrays[{i}])\n" for i in range(2, count))
        return generated("impl", "def impl(arrays, out=None):\n" + body + "    return r\n", {})
    if isinstance(arrays, types.List):
        def from_list(arrays, out=None):
            if len(arrays) < 2:
                raise ValueError("Expecting at least two arrays.")
            r = np.dot(arrays[0], arrays[1])
            for i in range(2, len(arrays)):
                r = np.dot(r, arrays[i])
            return r
        return from_list
    raise TypeError(f"np.linalg.multi_dot() takes a tuple or list of arrays, not {arrays}")


@overload(np.matmul)
def _matmul(x1, x2):
    if not (is_array(x1) and is_array(x2)) or not (1 <= x1.ndim <= 2 and 1 <= x2.ndim <= 2):
        raise TypeError(f"np.matmul() in compiled code takes two arrays of 1 or 2 dimensions, "
                        f"not {x1} and {x2}")
    return lambda x1, x2: x1 @ x2
