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
from ._util import (constant_flag, generated, given, is_array, overload, overload_method,
                    register_jitable, types)
from .numpy_shape import _norm_axis as _norm_axis1

_NO_SCIPY, _NO_MEMORY, _TOO_LARGE, _COMPLEX = (_lapack.NO_SCIPY, _lapack.NO_MEMORY,
                                               _lapack.TOO_LARGE, _lapack.COMPLEX)
_V, _N, _A, _S, _L, _U = (ord(c) for c in "VNASLU")
_SQUARE = "_square_sizes(a_0, a_1)"     # the check of a stack's matrices, before its loop


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
    """Checks that a is an array of 2 dimensions or more (when compiling) and binds LAPACK if the
    function needs it; whether a is a stack of matrices (more than 2 dimensions)."""
    if not is_array(a):
        raise TypeError(f"np.linalg.{fname}() takes an array, not {a}")
    if a.ndim < 2:
        raise TypeError(f"np.linalg.{fname}(): {a.ndim}-dimensional array given. Array must be "
                        "at least two-dimensional")
    if lapack:
        _bind()
    return a.ndim > 2


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


# ---- stacks of matrices -----------------------------------------------------------------------

@register_jitable
def _agree(size, d):
    """The broadcast length of a leading axis so far (size) and an operand's length d there."""
    if d == 1:
        return size
    if size != 1 and size != d:
        raise ValueError("operands could not be broadcast together: the stacks of matrices' "
                         "leading dimensions differ")
    return d


def _lead_lines(operands, lead):
    """Source of lead, the operands' leading dimensions broadcast together (right-aligned)."""
    lines = []
    for j in range(lead):
        lines.append(f"s{j} = 1")
        for name, t, core in operands:
            d = j - (lead - (t.ndim - core))
            if d >= 0:
                lines.append(f"s{j} = _agree(s{j}, {name}.shape[{d}])")
    return lines + ["lead = (" + "".join(f"s{j}, " for j in range(lead)) + ")"]


def _item_views(operands, lead):
    """Each operand's matrix (or vector) at the leading index idx: an axis of length 1 is
    broadcast (index 0), a 2-d operand is the same matrix for every index."""
    views = {}
    for name, t, core in operands:
        own = t.ndim - core
        if own == lead and len(operands) == 1:
            views[name] = f"{name}[idx]"
        elif own == 0:
            views[name] = name
        else:
            index = "".join(f"idx[{lead - own + d}] if {name}.shape[{d}] != 1 else 0, "
                            for d in range(own))
            views[name] = f"{name}[({index})]"
    return views


def _stack(signature, operands, call, outs, checks=""):
    """The implementation over NumPy's stacks of matrices (..., M, N): the operands' leading
    dimensions broadcast together, and call, the 2-d function applied to one matrix (or vector)
    of each operand, fills each output's item at the same leading index.

    operands: (name, array type, core) triples, core the operand's trailing dimensions (2 for a
    matrix, 1 for a vector); call: source with {name} where each operand's item stands;
    outs: (dtype, core shape) pairs, the shape a list of sources written in the operands' core
    sizes <name>_0, <name>_1;
    checks: source lines run before the loop (so an empty stack raises as NumPy's does)."""
    lead = max(t.ndim - core for _, t, core in operands)
    lines = []
    for name, t, core in operands:
        for k in range(core):
            lines.append(f"{name}_{k} = {name}.shape[{t.ndim - core + k}]")
    lines += [line for line in checks.splitlines() if line]
    lines += _lead_lines(operands, lead)
    for i, (dt, shape) in enumerate(outs):
        lines.append(f"o{i} = np.empty(lead + (" + "".join(f"{d}, " for d in shape) + f"), _dt{i})")
    lines.append("for idx in np.ndindex(lead):")
    lines.append("    r = " + call.format(**_item_views(operands, lead)))
    for i, (dt, shape) in enumerate(outs):
        item = "r" if len(outs) == 1 else f"r[{i}]"
        store = {0: f"o{i}[idx] = {item}", 1: f"_fill1(o{i}[idx], {item})",
                 2: f"_fill(o{i}[idx], {item})"}[len(shape)]
        lines.append("    " + store)
    lines.append("return " + ", ".join(f"o{i}" for i in range(len(outs))))
    source = f"def impl({signature}):\n" + "".join(f"    {line}\n" for line in lines)
    env = {f"_dt{i}": dt for i, (dt, _) in enumerate(outs)}
    env.update(_agree=_agree, _fill=_fill, _fill1=_fill1, _square_sizes=_square_sizes,
               _cond_defined=_cond_defined)
    return generated("impl", source, env)


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
def _square_sizes(m, n):
    if m != n:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")


@register_jitable
def _square(a):
    _square_sizes(a.shape[0], a.shape[1])


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
    stacked = _matrix("inv", a)
    wt, rt = _dtypes("inv", a)
    if stacked:
        return _stack("a", [("a", a, 2)], "np.linalg.inv({a})", [(rt, ["a_0", "a_1"])], _SQUARE)

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
    stacked = _matrix("solve", a)
    if not is_array(b) or b.ndim == 0:
        raise TypeError(f"np.linalg.solve() takes b as an array of 1 dimension or more, not {b}")
    wt, rt = _dtypes("solve", a, b)
    if stacked or b.ndim > 2:
        # NumPy's rule: b is one vector (M,) when 1-d, else a stack of matrices (..., M, K)
        core = 1 if b.ndim == 1 else 2
        checks = (_SQUARE + "\nif b_0 != a_0:\n    raise ValueError('solve: Input operand 1 "
                  "has a mismatch in its core dimension 0')\n")
        out = ["a_0"] if core == 1 else ["a_0", "b_1"]
        return _stack("a, b", [("a", a, 2), ("b", b, core)], "np.linalg.solve({a}, {b})",
                      [(rt, out)], checks)
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
    stacked = _matrix("det", a)
    wt, rt = _dtypes("det", a)
    if stacked:
        return _stack("a", [("a", a, 2)], "np.linalg.det({a})", [(rt, [])], _SQUARE)

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
    stacked = _matrix("slogdet", a)
    wt, rt = _dtypes("slogdet", a)
    real = _real(rt)
    if stacked:
        return _stack("a", [("a", a, 2)], "np.linalg.slogdet({a})", [(rt, []), (real, [])],
                      _SQUARE)

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
    stacked = _matrix("eig", a)
    wt, rt = _eig_dtypes("eig", a)
    if stacked:
        return _stack("a", [("a", a, 2)], "np.linalg.eig({a})",
                      [(rt, ["a_0"]), (rt, ["a_0", "a_0"])], _SQUARE)

    def impl(a):
        vals, vecs = _geev(a, wt, True)
        n = a.shape[0]
        out = np.empty((n, n), rt)
        _fill(out, vecs)
        return vals.astype(rt), out
    return impl


@overload(np.linalg.eigvals)
def _eigvals(a):
    stacked = _matrix("eigvals", a)
    wt, rt = _eig_dtypes("eigvals", a)
    if stacked:
        return _stack("a", [("a", a, 2)], "np.linalg.eigvals({a})", [(rt, ["a_0"])], _SQUARE)

    def impl(a):
        vals, vecs = _geev(a, wt, False)
        return vals.astype(rt)
    return impl


def _syevd(fname, a, UPLO, vectors):
    """eigh's and eigvalsh's work on a matrix, and its result dtype; on a stack of matrices, the
    implementation itself."""
    stacked = _matrix(fname, a)
    wt, rt = _dtypes(fname, a)
    text = _literal(fname, "UPLO", UPLO, "L", ("L", "U"))
    uplo = ord(text)
    rwt, real = _real(wt), _real(rt)
    if stacked:
        outs = [(real, ["a_0"]), (rt, ["a_0", "a_0"])] if vectors else [(real, ["a_0"])]
        return None, _stack('a, UPLO="L"', [("a", a, 2)], f"np.linalg.{fname}({{a}}, '{text}')",
                            outs, _SQUARE)

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
    if run is None:
        return rt
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
    if run is None:
        return rt
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
    stacked = _matrix("svd", a)
    wt, rt = _dtypes("svd", a)
    rwt, real = _real(wt), _real(rt)
    if stacked:
        return _svd_stack(a, rt, real, _given(compute_uv))
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


def _svd_stack(a, rt, real, values_only):
    signature = "a, full_matrices=True, compute_uv=True, hermitian=False"
    k = "min(a_0, a_1)"
    if values_only:
        return _stack(signature, [("a", a, 2)], "np.linalg.svd({a}, full_matrices, False)",
                      [(real, [k])], "if compute_uv:\n    raise ValueError('np.linalg.svd(): "
                      "compute_uv takes a constant False in compiled code')")
    return _stack(signature, [("a", a, 2)], "np.linalg.svd({a}, full_matrices)",
                  [(rt, ["a_0", f"a_0 if full_matrices else {k}"]), (real, [k]),
                   (rt, [f"a_1 if full_matrices else {k}", "a_1"])])


@overload(np.linalg.matrix_rank)
def _matrix_rank(A, tol=None, hermitian=False):
    if not is_array(A):
        raise TypeError(f"np.linalg.matrix_rank() takes an array, not {A}")
    if A.ndim > 2:
        _matrix("matrix_rank", A)
        return _stack("A, tol=None, hermitian=False", [("A", A, 2)],
                      "np.linalg.matrix_rank({A}, tol)", [(types.int64, [])])
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
    stacked = _matrix("pinv", a)
    wt, rt = _dtypes("pinv", a)
    if stacked:
        return _stack("a, rcond=None, hermitian=False", [("a", a, 2)],
                      "np.linalg.pinv({a}, rcond)", [(rt, ["a_1", "a_0"])])
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
    keep = constant_flag(keepdims, "keepdims")
    wt, rt = _dtypes("norm", x)
    real, rwt = _real(rt), _real(wt)
    how = _norm_order(ord)
    if _given(axis):
        return _norm_axis(x, how, axis, keep, (wt, rwt, real))
    whole = _norm_whole(x, how, (wt, rwt, real))
    if not keep:
        return whole
    return generated("impl", "def impl(x, ord=None, axis=None, keepdims=False):\n"
                     f"    return np.full(({'1, ' * x.ndim}), whole(x, ord, axis, False))\n",
                     {"whole": register_jitable(whole)})


def _norm_whole(x, how, dtypes):
    """norm without axis=: the Frobenius norm of any array, else a vector's or a matrix's."""
    wt, rwt, real = dtypes
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


def _norm_axes(x, axis):
    """axis= of norm as a list of sources of its items: one int (vector norms along it) or two
    (matrix norms over those axes)."""
    if isinstance(axis, (types.Integer, types.Boolean)):
        return ["axis"]
    items = getattr(axis, "types", None)
    if not isinstance(axis, types.Tuple) or not all(
            isinstance(t, (types.Integer, types.Boolean)) for t in items):
        raise TypeError(f"np.linalg.norm(): axis must be an int or a tuple of ints, not {axis}")
    if len(items) not in (1, 2):
        raise ValueError("Improper number of dimensions to norm.")
    return [f"axis[{i}]" for i in range(len(items))]


def _norm_axis(x, how, axis, keep, dtypes):
    """norm along axis=: the vector norms along one axis, or the matrix norms over two, the
    result having x's other axes (and the reduced ones with length 1 under keepdims=True)."""
    wt, rwt, real = dtypes
    axes = _norm_axes(x, axis)
    nd = x.ndim
    lines = [f"a{i} = _norm_axis1({src}, {nd})" for i, src in enumerate(axes)]
    if len(axes) == 1:
        if how in ("fro", "nuc"):
            raise ValueError(f"Invalid norm order '{how}' for vectors")
        order = "ord" if how == "number" else "2"
        one = f"_vector_norm({{}}, {order})"
        lines.append(f"y = np.moveaxis(x, a0, {nd - 1})")
    else:
        if nd < 2:
            raise ValueError("Improper number of dimensions to norm.")
        _bind()
        one = {None: "_frobenius({})", "fro": "_frobenius({})", "nuc": "_nuclear({}, _wt, _rwt)",
               "number": "_matrix_norm({}, ord, _wt, _rwt)"}[how]
        lines += ["if a0 == a1:", "    raise ValueError('Duplicate axes given.')",
                  f"perm = np.empty({nd}, np.int64)", "k = 0", f"for d in range({nd}):",
                  "    if d != a0 and d != a1:", "        perm[k] = d", "        k += 1",
                  f"perm[{nd - 2}] = a0", f"perm[{nd - 1}] = a1",
                  "y = np.transpose(x, (" + "".join(f"perm[{d}], " for d in range(nd)) + "))"]
    rest = nd - len(axes)
    if rest == 0:
        lines.append("r = _real(" + one.format("y") + ")")
    else:
        lead = "(" + "".join(f"y.shape[{d}], " for d in range(rest)) + ")"
        lines += [f"r = np.empty({lead}, _real)", f"for idx in np.ndindex({lead}):",
                  "    r[idx] = " + one.format("y[idx]")]
    if keep:
        shape = ""
        for d in range(nd):
            reduced = " or ".join(f"{d} == a{i}" for i in range(len(axes)))
            shape += f"1 if {reduced} else x.shape[{d}], "
        lines.append(f"return np.full(({shape}), r)" if rest == 0 else
                     f"return r.reshape(({shape}))")
    else:
        lines.append("return r")
    source = ("def impl(x, ord=None, axis=None, keepdims=False):\n" +
              "".join(f"    {line}\n" for line in lines))
    return generated("impl", source, dict(
        _norm_axis1=_norm_axis1, _vector_norm=_vector_norm, _frobenius=_frobenius,
        _nuclear=_nuclear, _matrix_norm=_matrix_norm, _wt=wt, _rwt=rwt, _real=real))


@register_jitable
def _cond_defined(m, n):
    """NumPy's check that the matrices are not empty (an empty stack of them is)."""
    if m * n == 0:
        raise np.linalg.LinAlgError("cond is not defined on empty arrays")


@overload(np.linalg.cond)
def _cond(x, p=None):
    stacked = _matrix("cond", x)
    wt, rt = _dtypes("cond", x)
    real, rwt = _real(rt), _real(wt)
    how = _norm_order(p)
    if stacked:
        order = {None: "None", "fro": "'fro'", "nuc": "'nuc'"}.get(how, "p")
        return _stack("x, p=None", [("x", x, 2)], f"np.linalg.cond({{x}}, {order})",
                      [(real, [])], "_cond_defined(x_0, x_1)")

    if how is None:
        def two(x, p=None):
            _cond_defined(x.shape[0], x.shape[1])
            s = _singular_values(x, wt, rwt)
            return real(s[0] / s[s.size - 1])
        return two

    def impl(x, p=None):
        _cond_defined(x.shape[0], x.shape[1])
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
    stacked = _matrix("qr", a)
    wt, rt = _dtypes("qr", a)
    how = _literal("qr", "mode", mode, "reduced", ("reduced", "complete", "r"))
    if stacked:
        k = "min(a_0, a_1)"
        rows = "a_0" if how == "complete" else k
        outs = [(rt, ["a_0", rows]), (rt, [rows, "a_1"])]
        return _stack('a, mode="reduced"', [("a", a, 2)], f"np.linalg.qr({{a}}, '{how}')",
                      outs[1:] if how == "r" else outs)

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
    stacked = _matrix("cholesky", a)
    wt, rt = _dtypes("cholesky", a)
    if _given(upper):
        raise TypeError("np.linalg.cholesky(): upper= is not supported in compiled code")
    if stacked:
        return _stack("a, upper=False", [("a", a, 2)], "np.linalg.cholesky({a})",
                      [(rt, ["a_0", "a_1"])], _SQUARE)

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
    stacked = _matrix("matrix_power", a, lapack=False)
    if not isinstance(n, (types.Integer, types.Boolean)):
        raise TypeError(f"np.linalg.matrix_power(): exponent must be an integer, not {n}")
    if stacked:
        return _stack("a, n", [("a", a, 2)], "np.linalg.matrix_power({a}, n)",
                      [(a.dtype, ["a_0", "a_1"])], _SQUARE)
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


@overload_method(types.Array, "__matmul__")
def _matmul_operator(x1, x2):
    """x1 @ x2 of stacks (an operand of 3 dimensions or more): np.matmul's broadcasting."""
    return _matmul(x1, x2)


@overload(np.matmul)
def _matmul(x1, x2):
    if not (is_array(x1) and is_array(x2)) or x1.ndim == 0 or x2.ndim == 0:
        raise TypeError(f"np.matmul() in compiled code takes two arrays of 1 dimension or more, "
                        f"not {x1} and {x2}")
    if x1.ndim <= 2 and x2.ndim <= 2:
        return lambda x1, x2: x1 @ x2
    # stacks (..., N, K) @ (..., K, M); a 1-d operand is one vector, its axis dropped
    c1, c2 = min(x1.ndim, 2), min(x2.ndim, 2)
    k1, k2 = f"x1_{c1 - 1}", "x2_0"
    checks = (f"if {k1} != {k2}:\n    raise ValueError('matmul: Input operand 1 has a mismatch "
              f"in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size ' + "
              f"str({k2}) + ' is different from ' + str({k1}) + ')')\n")
    shape = (["x1_0"] if c1 == 2 else []) + (["x2_1"] if c2 == 2 else [])
    dt = types._as_type(np.result_type(np.dtype(x1.dtype.name), np.dtype(x2.dtype.name)))
    return _stack("x1, x2", [("x1", x1, c1), ("x2", x2, c2)], "{x1} @ {x2}", [(dt, shape)],
                  checks)
