"""np.linalg on NumPy's stacks of matrices (..., M, N) and np.matmul of stacks, against NumPy:
every function on 3-d and 4-d stacks, empty stacks and stacks of empty matrices, in float32,
float64, complex128 and int64, C-ordered, Fortran-ordered and strided; solve's and matmul's
broadcasting of the leading dimensions; np.linalg.norm along an int axis and over a pair of axes,
with keepdims=. Decompositions unique only up to signs or phases are checked by reconstruction."""
import numpy as np
import pytest

from pyjit import njit

from util import assert_same, check, check_raises

# each layout with float64, each other dtype with one layout: every case compiles anew
KINDS = [(np.float64, "C"), (np.float64, "F"), (np.float64, "strided"), (np.float32, "C"),
         (np.complex128, "strided"), (np.int64, "F")]
STACKS = [(2, 3, 3), (2, 1, 4, 4), (0, 3, 3), (2, 0, 0)]


def _stack(shape, dtype, layout="C", seed=0):
    rng = np.random.default_rng(seed + sum(shape))
    if np.issubdtype(dtype, np.integer):
        a = rng.integers(-5, 6, size=shape).astype(dtype)
        if len(shape) > 1 and shape[-1] == shape[-2]:
            a = a + np.eye(shape[-1], dtype=dtype) * 11   # well conditioned
    else:
        a = rng.standard_normal(shape)
        if np.issubdtype(dtype, np.complexfloating):
            a = a + 1j * rng.standard_normal(shape)
        a = a.astype(dtype)
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "strided":
        big = np.zeros(shape[:-2] + (shape[-2] * 2, shape[-1] * 3), a.dtype)
        big[..., ::2, ::3] = a
        return big[..., ::2, ::3]
    return a


def _hermitian(shape, dtype, layout="C"):
    a = _stack(shape, dtype)
    h = (a @ np.swapaxes(a, -1, -2).conj() + 3 * np.eye(shape[-1])).astype(dtype)
    return _stack_layout(h, layout)


def _stack_layout(a, layout):
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "strided":
        return np.repeat(a, 2, axis=-1)[..., ::2]
    return a


def _tol(dtype):
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return dict(rtol=2e-4, atol=1e-4) if single else dict(rtol=1e-9, atol=1e-9)


_JITTED = {}


def _jit(f):
    """One dispatcher per test function, so each signature compiles once for the whole file."""
    if f not in _JITTED:
        _JITTED[f] = njit(f)
    return _JITTED[f]


def _check(f, *args, **tol):
    return check(f, *args, jit=_jit(f), **tol)


def inv(a):
    return np.linalg.inv(a)


def det(a):
    return np.linalg.det(a)


def slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign, logdet


def solve(a, b):
    return np.linalg.solve(a, b)


def pinv(a):
    return np.linalg.pinv(a)


def pinv_rcond(a, rcond):
    return np.linalg.pinv(a, rcond)


def matrix_power(a, n):
    return np.linalg.matrix_power(a, n)


def matrix_rank(a):
    return np.linalg.matrix_rank(a)


def cond(a):
    return np.linalg.cond(a)


def cond_p(a, p):
    return np.linalg.cond(a, p)


def cond_fro(a):
    return np.linalg.cond(a, "fro")


def svd_values(a):
    return np.linalg.svd(a, compute_uv=False)


def eigvalsh(a):
    return np.linalg.eigvalsh(a)


def eigvalsh_upper(a):
    return np.linalg.eigvalsh(a, "U")


def matmul(a, b):
    return np.matmul(a, b)


@pytest.mark.parametrize("dtype,layout", KINDS)
@pytest.mark.parametrize("shape", STACKS)
def test_square_functions(dtype, layout, shape):
    a = _stack(shape, dtype, layout)
    tol = _tol(dtype)
    for f in (inv, det, slogdet, cond, cond_fro):
        _check(f, a, **tol)
    _check(cond_p, a, 1, **tol)
    _check(cond_p, a, -np.inf, **tol)
    _check(matrix_power, a, 3, **tol)
    _check(matrix_power, a, 0, **tol)
    if not np.issubdtype(dtype, np.integer):
        _check(matrix_power, a, -2, rtol=tol["rtol"] * 100, atol=tol["atol"] * 100)


@pytest.mark.parametrize("dtype,layout", KINDS)
@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 2, 5, 3), (0, 2, 4), (3, 0, 2)])
def test_rectangular_functions(dtype, layout, shape):
    a = _stack(shape, dtype, layout)
    tol = _tol(dtype)
    if a.size or not np.issubdtype(dtype, np.integer):
        # NumPy's pinv of empty int matrices keeps their dtype, which compiled code's result
        # type, float64 for ints, cannot depend on
        _check(pinv, a, **tol)
        _check(pinv_rcond, a, 0.5, **tol)
    _check(matrix_rank, a)
    _check(svd_values, a, **tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
@pytest.mark.parametrize("shapes", [((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 2)),
                                    ((2, 1, 3, 3), (4, 3, 1)), ((3, 3), (2, 3, 4)),
                                    ((1, 3, 3), (2, 3, 3)), ((0, 3, 3), (3, 2))])
def test_solve_broadcasts(dtype, shapes):
    a = _stack(shapes[0], dtype)
    a = a + 4 * np.eye(a.shape[-1], dtype=dtype)
    b = _stack(shapes[1], dtype, seed=1)
    _check(solve, a, b, **_tol(dtype))


def test_stack_errors():
    check_raises(np.linalg.LinAlgError, _jit(inv), np.ones((2, 3, 4)),
                 match="Last 2 dimensions of the array must be square")
    check_raises(np.linalg.LinAlgError, _jit(det), np.ones((0, 3, 4)),
                 match="Last 2 dimensions of the array must be square")
    check_raises(np.linalg.LinAlgError, _jit(inv), np.ones((2, 3, 3)), match="Singular matrix")
    check_raises(ValueError, _jit(solve), np.ones((2, 3, 3)), np.ones((2, 4, 1)))
    check_raises(ValueError, _jit(solve), np.eye(3) + np.zeros((2, 3, 3)), np.ones((3, 3, 1)),
                 match="broadcast")
    check_raises(ValueError, _jit(matmul), np.ones((2, 3, 4)), np.ones((5, 2)),
                 match="(size 5 is different from 4)")
    check_raises(ValueError, _jit(matmul), np.ones((2, 3, 4)), np.ones((3, 4, 2)),
                 match="broadcast")


@pytest.mark.parametrize("dtype,layout", KINDS[:5])
@pytest.mark.parametrize("shape", [(2, 4, 4), (2, 1, 3, 3), (0, 2, 2), (2, 0, 0)])
def test_hermitian_functions(dtype, layout, shape):
    h = _hermitian(shape, dtype, layout)
    tol = _tol(dtype)
    _check(eigvalsh, h, **tol)
    _check(eigvalsh_upper, h, **tol)
    w, v = njit(lambda a: np.linalg.eigh(a))(h)
    ew, ev = np.linalg.eigh(h)
    assert w.dtype == ew.dtype and v.dtype == ev.dtype and v.shape == ev.shape
    np.testing.assert_allclose(w, ew, **tol)
    np.testing.assert_allclose(h @ v, v * w[..., None, :], rtol=tol["rtol"] * 10,
                               atol=tol["atol"] * 10)
    low = njit(lambda a: np.linalg.cholesky(a))(h)
    assert_same(np.linalg.cholesky(h), low, **tol)
    w = njit(lambda a: np.linalg.eigvals(a))(h)
    assert w.dtype == np.linalg.eigvals(h).dtype and w.shape == h.shape[:-1]
    np.testing.assert_allclose(np.sort(w.real, axis=-1), ew, **tol)
    w, v = njit(lambda a: np.linalg.eig(a))(h)
    np.testing.assert_allclose(h @ v, v * w[..., None, :], rtol=tol["rtol"] * 10,
                               atol=tol["atol"] * 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 2, 4, 3), (0, 2, 3), (2, 0, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_and_qr_reconstruct(dtype, shape, full):
    a = _stack(shape, dtype, "strided")
    tol = _tol(dtype)
    loose = dict(rtol=tol["rtol"] * 10, atol=tol["atol"] * 10)
    u, s, vh = njit(lambda a, f: np.linalg.svd(a, f))(a, full)
    eu, es, evh = np.linalg.svd(a, full)
    assert (u.shape, s.shape, vh.shape) == (eu.shape, es.shape, evh.shape)
    assert (u.dtype, s.dtype, vh.dtype) == (eu.dtype, es.dtype, evh.dtype)
    np.testing.assert_allclose(s, es, **tol)
    k = s.shape[-1]
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, **loose)
    mode = "complete" if full else "reduced"
    q, r = njit(lambda a: np.linalg.qr(a, mode))(a)
    eq, er = np.linalg.qr(a, mode)
    assert (q.shape, r.shape, q.dtype) == (eq.shape, er.shape, eq.dtype)
    np.testing.assert_allclose(q @ r, a, **loose)
    r_only = njit(lambda a: np.linalg.qr(a, "r"))(a)
    np.testing.assert_allclose(np.abs(r_only), np.abs(np.linalg.qr(a, "r")), **loose)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128, np.float32])
@pytest.mark.parametrize("shapes", [((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                                    ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
                                    ((2, 3, 4), (4,)), ((0, 3, 4), (4, 2)), ((2, 3, 0), (0, 2))])
def test_matmul_stacks(dtype, shapes):
    a = _stack(shapes[0], dtype) if len(shapes[0]) > 1 else np.arange(4).astype(dtype)
    b = _stack(shapes[1], dtype, "F", seed=2) if len(shapes[1]) > 1 else np.ones(4, dtype)
    _check(matmul, a, b, **_tol(dtype))
    _check(matmul, np.swapaxes(b, -1, -2) if b.ndim > 1 else b,
           np.swapaxes(a, -1, -2) if a.ndim > 1 else a, **_tol(dtype))


def matmul_operator(a, b):
    return a @ b


@pytest.mark.parametrize("shapes", [((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                                    ((4,), (2, 4, 3)), ((2, 3, 4), (4,))])
def test_matmul_operator_on_stacks(shapes):
    """a @ b where an operand has 3 dimensions or more: np.matmul's broadcasting, as NumPy's."""
    a = _stack(shapes[0], np.float64) if len(shapes[0]) > 1 else np.arange(4.0)
    b = _stack(shapes[1], np.float64, "F", seed=2) if len(shapes[1]) > 1 else np.ones(4)
    _check(matmul_operator, a, b, **_tol(np.float64))
    check_raises(ValueError, _jit(matmul_operator), np.ones((2, 3, 4)), np.ones((5, 2)))


def norm_axis(x, o, axis):
    return np.linalg.norm(x, o, axis)


def norm_axis_keep(x, o, axis):
    return np.linalg.norm(x, o, axis, True)


def norm_fro_pair(x):
    return np.linalg.norm(x, "fro", (2, 0))


def norm_nuc_pair(x):
    return np.linalg.norm(x, "nuc", (-1, 1), True)


def norm_keep(x):
    return np.linalg.norm(x, keepdims=True)


@pytest.mark.parametrize("dtype,layout", [(np.float64, "strided"), (np.float32, "C"),
                                          (np.complex128, "F"), (np.int64, "C")])
def test_norm_axes(dtype, layout):
    x = _stack((2, 3, 4), dtype, layout)
    tol = _tol(dtype)
    for axis in (0, 1, -1, (2,)):
        for o in (None, 1, 2, np.inf, -np.inf, 0, 3):
            _check(norm_axis, x, o, axis, **tol)
            _check(norm_axis_keep, x, o, axis, **tol)
    for axis in ((1, 2), (2, 1), (0, -1), (-2, 0)):
        for o in (None, 1, -1, 2, -2, np.inf, -np.inf):
            _check(norm_axis, x, o, axis, **tol)
            _check(norm_axis_keep, x, o, axis, **tol)
    _check(norm_fro_pair, x, **tol)
    _check(norm_nuc_pair, x, **tol)
    _check(norm_keep, x, **tol)
    _check(norm_axis, x[0], 2, (0, 1), **tol)
    _check(norm_axis_keep, x[0, 0], 1, 0, **tol)
    _check(norm_axis, np.zeros((0, 3, 2), dtype), None, (1, 2), **tol)
    check_raises(ValueError, _jit(norm_axis), x, 2, (1, 1), match="Duplicate axes given.")
    check_raises(np.exceptions.AxisError, _jit(norm_axis), x, 2, 3)
    check_raises(ValueError, _jit(norm_axis), x, 3, (0, 1),
                 match="Invalid norm order for matrices.")
