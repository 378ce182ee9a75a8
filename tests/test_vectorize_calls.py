"""@vectorize ufuncs called from compiled code, as Numba allows: on scalars, on arrays of any
dimensions with NumPy's broadcasting, with out=, the loop NumPy would pick for typed ufuncs and
the arguments' own dtypes for dynamic ones; each result compared with the ufunc called from
Python (NumPy running pyjit's loops)."""
import numpy as np
import pytest

from pyjit import errors, float32, float64, int64, njit, vectorize


@vectorize([float32(float32, float32), float64(float64, float64)])
def rel_diff(a, b):
    return abs(a - b) / (abs(a) + abs(b) + 1)


@vectorize
def affine(x, k):
    return x * k + 1


@vectorize([int64(int64)])
def collatz_steps(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def _check(f, *args):
    got = njit(f)(*args)
    want = f(*args)
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype, (got, want)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    else:
        assert got == pytest.approx(want, rel=1e-6)


rng = np.random.default_rng(3)
A = rng.normal(size=(4, 5))
CASES = [
    (A, A), (A, A[0]), (A[:, :1], A[0]), (A[:, ::2], 2.5), (1.5, A.T), (2.0, -1.0),
    (A.astype(np.float32), A[0].astype(np.float32)), (A.astype(np.float32), 2.0),
    (np.arange(6).reshape(2, 3), np.arange(3)), (np.zeros((0, 3)), np.ones(3)),
    (rng.normal(size=(2, 1, 3)), rng.normal(size=(4, 1))),
]


@pytest.mark.parametrize("a, b", CASES, ids=range(len(CASES)))
def test_typed_ufunc_broadcasts_and_picks_numpys_loop(a, b):
    _check(lambda x, y: rel_diff(x, y), a, b)


@pytest.mark.parametrize("a, b", CASES, ids=range(len(CASES)))
def test_dynamic_ufunc_compiles_for_the_arguments(a, b):
    _check(lambda x, y: affine(x, y), a, b)


def test_out_argument_and_integer_loops():
    def into(a, out):
        collatz_steps(a, out)
        return out

    a = np.arange(1, 30)
    np.testing.assert_array_equal(njit(into)(a, np.empty_like(a)), collatz_steps(a))

    def keyword(a, b):
        out = np.zeros((3, 4))
        rel_diff(a, b, out=out)
        return out
    _check(keyword, A[:3, :4], 1.0)


def test_bad_calls_say_why():
    with pytest.raises(ValueError, match="could not be broadcast"):
        njit(lambda a, b: rel_diff(a, b))(np.ones(3), np.ones(4))
    with pytest.raises(errors.TypingError, match="no loop for the argument types"):
        njit(lambda a: collatz_steps(a))(np.ones(3))
    with pytest.raises(ValueError, match="could not be broadcast"):
        njit(lambda a: collatz_steps(a, np.empty(2, np.int64)))(np.arange(3))
    with pytest.raises(ValueError, match="non-broadcastable output"):
        njit(lambda a: collatz_steps(a, np.empty(3, np.int64)))(np.arange(6).reshape(2, 3))


# ---- @guvectorize called from compiled code, every operand given (Numba's rule) ----

from pyjit import guvectorize  # noqa: E402


@guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
def running_sum(a, out):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
        out[i] = s


@guvectorize(["void(float64[:, :], float64[:], float64[:])"], "(m,n),(n)->(m)")
def matvec(m, v, out):
    for i in range(m.shape[0]):
        s = 0.0
        for j in range(m.shape[1]):
            s += m[i, j] * v[j]
        out[i] = s


@guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->()")
def scaled_norm(a, k, out):
    s = 0.0
    for x in a:
        s += x * x
    out[0] = k * s ** 0.5


@guvectorize("(n),()->(n)")
def shifted(a, k, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + k


G = np.random.default_rng(9).normal(size=(3, 4, 5))


def test_gufuncs_from_compiled_code():
    def sums(a):
        out = np.empty_like(a)
        running_sum(a, out)
        return out

    def products(m, v):
        out = np.empty(m.shape[:-1])
        matvec(m, v, out)
        return out

    def norms(a, k):
        out = np.empty(a.shape[:-1])
        scaled_norm(a, k, out)
        return out

    def shifts(a, k):
        out = np.empty_like(a)
        shifted(a, k, out)
        return out

    for a in (G, G[0], G[:, ::2, 1:], G[0, 0]):
        np.testing.assert_allclose(njit(sums)(a), running_sum(a))
        np.testing.assert_allclose(njit(norms)(a, 2.0), scaled_norm(a, 2.0))
        want = np.empty_like(a)
        shifted(a, 1.5, want)   # a dynamic gufunc takes its outputs from Python too
        np.testing.assert_allclose(njit(shifts)(a, 1.5), want)
    np.testing.assert_allclose(njit(products)(G, G[0, 0]), matvec(G, G[0, 0]))

    def into(m, v, out):
        matvec(m, v, out)
        return out
    want = matvec(G[0], G[:, 0])     # the loop dimension from v alone: (3, 4)
    np.testing.assert_allclose(njit(into)(G[0], G[:, 0], np.empty_like(want)), want)


def test_gufunc_calls_check_their_operands():
    def products(m, v):
        out = np.empty(m.shape[0])
        matvec(m, v, out)
        return out
    with pytest.raises(ValueError, match="core dimension n differs"):
        njit(products)(G[0], np.ones(3))
    with pytest.raises(errors.TypingError, match="fewer than its core dimensions"):
        njit(lambda v: matvec(v, v, v))(np.ones(3))
    # the output left out, as a NumPy call may: Numba's rule, said as such
    with pytest.raises(errors.TypingError, match="takes all its 3 operands, the 1 output"):
        njit(lambda a: scaled_norm(a, 2.0))(G)
    with pytest.raises(errors.TypingError, match="takes all its 3 operands, the 1 output"):
        njit(lambda a: shifted(a, 2.0))(G)


def test_inputs_broadcast_up_to_out():
    def fill(x, out):
        rel_diff(x, 1.0, out)
        return out
    for x, shape in ((2.0, (3,)), (np.arange(3.0), (2, 3)), (np.float64(0.5), ())):
        want = np.empty(shape)
        rel_diff(x, 1.0, want)
        np.testing.assert_allclose(njit(fill)(x, np.empty(shape)), want)
