"""NumPy arrays in compiled code: indexing, slicing to views, attributes, iteration, creation,
copy, sum, elementwise arithmetic, read-only arrays, bounds checks; across dtypes and layouts.
Each function runs in CPython and compiled (util.check), arrays changed in place compared too."""
import os

import numpy as np
import pytest

import pyjit
from pyjit import errors
from util import assert_same, check, check_raises

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float32, np.float64, np.complex64, np.complex128]
NUMERIC = DTYPES[1:]


def sample(dtype, shape, order="C"):
    """A deterministic array of small values that every dtype holds exactly."""
    n = int(np.prod(shape))
    base = (np.arange(n) * 7 + 3) % 11
    if dtype == np.bool_:
        a = (base % 2).astype(np.bool_)
    elif np.issubdtype(dtype, np.complexfloating):
        a = (base + 1j * (base % 3)).astype(dtype)
    else:
        a = base.astype(dtype)
    return np.asarray(a.reshape(shape), order=order)


def layouts(dtype, shape):
    """The same values as C-contiguous, Fortran-contiguous and non-contiguous (layout A) arrays."""
    big_shape = tuple(2 * s for s in shape)
    strided = sample(dtype, big_shape)[tuple(slice(None, None, 2) for _ in shape)]
    return {"C": sample(dtype, shape), "F": sample(dtype, shape, "F"), "A": strided}


_jit = {}


def jitted(f, **opts):
    key = (f, tuple(sorted(opts.items())))
    if key not in _jit:
        _jit[key] = pyjit.njit(**opts)(f) if opts else pyjit.njit(f)
    return _jit[key]


# --- indexing -----------------------------------------------------------------------------------

def get1(a, i):
    return a[i]


def get2(a, i, j):
    return a[i, j]


def get2_chain(a, i, j):
    return a[i][j]


def get3(a, i, j, k):
    return a[i, j, k]


def set1(a, i, v):
    a[i] = v


def set2(a, i, j, v):
    a[i, j] = v


def get_tuple_index(a, idx):
    return a[idx]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_index_1d(dtype):
    a = sample(dtype, (9,))
    for i in (0, 4, 8, -1, -9):
        check(get1, a, i, jit=jitted(get1))
    check(get1, a[::2], 2, jit=jitted(get1))
    check(get1, a[::-1], 0, jit=jitted(get1))
    v = sample(dtype, (3,))[2]
    check(set1, a, 3, v, jit=jitted(set1))
    check(set1, a, -2, v, jit=jitted(set1))
    check(set1, a[1::3], 1, v, jit=jitted(set1))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_index_2d_layouts(dtype, layout):
    a = layouts(dtype, (3, 5))[layout]
    for i, j in [(0, 0), (2, 4), (1, 3), (-1, -1), (-3, 2)]:
        check(get2, a, i, j, jit=jitted(get2))
        check(get2_chain, a, i, j, jit=jitted(get2_chain))
        check(get_tuple_index, a, (i, j), jit=jitted(get_tuple_index))
    v = sample(dtype, (3,))[1]
    check(set2, a, 1, 2, v, jit=jitted(set2))
    check(set2, a, -1, -5, v, jit=jitted(set2))


@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_index_3d_4d(layout):
    a = layouts(np.float64, (2, 3, 4))[layout]
    for idx in [(0, 0, 0), (1, 2, 3), (-1, -2, -3), (1, 0, 2)]:
        check(get3, a, *idx, jit=jitted(get3))
    b = layouts(np.int32, (2, 3, 2, 2))[layout]
    check(get_tuple_index, b, (1, 2, 0, 1), jit=jitted(get_tuple_index))
    check(get_tuple_index, b, (-1, -1, -1, -1), jit=jitted(get_tuple_index))


def set_with_cast(a, v):
    a[0] = v
    a[1] = v * 2
    return a[0]


def test_setitem_casts_like_numpy():
    check(set_with_cast, np.zeros(3, np.int32), 1.7)
    check(set_with_cast, np.zeros(3, np.float32), 3)
    check(set_with_cast, np.zeros(3, np.complex128), 2.5)
    check(set_with_cast, np.zeros(3, np.uint8), 7)
    check(set_with_cast, np.zeros(3, np.float64), True)


# --- bounds checks ------------------------------------------------------------------------------

def test_boundscheck_raises_index_error():
    f = jitted(get1, boundscheck=True)
    a = np.arange(5.0)
    assert f(a, 4) == 4.0
    assert f(a, -5) == 0.0
    check_raises(IndexError, f, a, 5)
    check_raises(IndexError, f, a, -6)
    check_raises(IndexError, f, a, 10**9)
    g = jitted(get2, boundscheck=True)
    b = np.zeros((3, 4))
    check_raises(IndexError, g, b, 3, 0)
    check_raises(IndexError, g, b, 0, 4)
    check_raises(IndexError, g, b, 0, -5)
    s = jitted(set1, boundscheck=True)
    check_raises(IndexError, s, a, 5, 1.0)
    check_raises(IndexError, f, np.empty(0), 0)
    # a valid call still works after the exception
    assert g(b, 2, 3) == 0.0


def neighbours(grid, i, j):
    row = grid[i]
    return row[j - 1] + row[j + 1]   # <- the line the IndexError names


def test_bounds_checked_by_default_with_array_axis_and_line():
    """Without boundscheck=..., an index outside the array is an IndexError naming the index, the
    axis, the size, the array and the line, where NumPy names the first three."""
    f = pyjit.njit(neighbours)
    assert f.targetoptions["boundscheck"] is True
    grid = np.arange(12.0).reshape(3, 4)
    assert f(grid, 1, 2) == neighbours(grid, 1, 2)
    assert f(grid, -1, 0) == neighbours(grid, -1, 0)    # row[-1] wraps, as in NumPy
    line = neighbours.__code__.co_firstlineno + 2
    for args, numpy_message in [((grid, 1, 3), "index 4 is out of bounds for axis 0 with size 4"),
                                ((grid, 5, 1), "index 5 is out of bounds for axis 0 with size 3"),
                                ((grid, 0, 10**12), "index 999999999999 is out of bounds for axis 0")]:
        with pytest.raises(IndexError) as info:
            neighbours(*args)
        assert str(info.value).startswith(numpy_message)
        with pytest.raises(IndexError) as info:
            f(*args)
        assert str(info.value).startswith(numpy_message)
        array = "grid" if args[1] == 5 else "row"
        assert "(array '%s', line %d)" % (array, line - (array == "grid")) in str(info.value)


def test_index_error_names_axis_of_2d_array():
    g = jitted(get2)
    b = np.zeros((3, 4))
    with pytest.raises(IndexError, match=r"^index -5 is out of bounds for axis 1 with size 4 \(array 'a', line \d+\)$"):
        g(b, 0, -5)


def test_boundscheck_false_opts_out():
    """boundscheck=False compiles no check: an index past the end of a row reads the next row's
    memory (inside the array here), as in C and in Numba's default."""
    g = jitted(get2, boundscheck=False)
    b = np.arange(9.0).reshape(3, 3)
    assert g(b, 0, 4) == 4.0
    check_raises(IndexError, jitted(get2), b, 0, 4)


def test_runtime_exception_traceback_names_compiled_line():
    """An exception raised by compiled code carries a traceback entry for the statement that
    raised it: the compiled function's file, name and line, so the traceback shows the source."""
    import traceback
    f = pyjit.njit(neighbours)
    with pytest.raises(IndexError) as info:
        f(np.zeros((2, 2)), 0, 1)
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (last.filename, last.name, last.lineno) == (__file__, "neighbours",
                                                       neighbours.__code__.co_firstlineno + 2)
    assert last.line == "return row[j - 1] + row[j + 1]   # <- the line the IndexError names"


def test_boundscheck_environment_variable_overrides_decorators():
    """PYJIT_BOUNDSCHECK=0/1 (or Numba's NUMBA_BOUNDSCHECK) turns checks off/on everywhere."""
    import subprocess
    import sys
    code = ("import numpy as np, pyjit\n"
            "f = pyjit.njit(boundscheck=%s)(lambda a, i, j: a[i, j])\n"
            "a = np.arange(9.0).reshape(3, 3)\n"
            "try:\n    print(f(a, 0, 4))\nexcept IndexError:\n    print('IndexError')\n")
    for var, value, option, expected in [("PYJIT_BOUNDSCHECK", "0", "True", "4.0"),
                                         ("NUMBA_BOUNDSCHECK", "0", "None", "4.0"),
                                         ("PYJIT_BOUNDSCHECK", "1", "False", "IndexError")]:
        env = dict(os.environ, **{var: value})
        out = subprocess.run([sys.executable, "-c", code % option], env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.stdout.strip() == expected, (var, value, option, out.stderr)


# Loops whose bounds checks are hoisted (range loop variable plus or minus a constant): the
# checked and the unchecked versions of each loop must behave as CPython with NumPy, whether the
# whole range fits, the loop leaves before the bad index, or it raises part way with the writes
# before it made.

def check_writes(f, *args):
    """check(), and when both raise, the arrays as they were left: the writes before the bad
    index are made, the ones after it are not."""
    check(f, *args)
    left = []
    for run in (f, pyjit.njit(f)):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        try:
            run(*copies)
        except IndexError:
            pass
        left.append([a for a in copies if isinstance(a, np.ndarray)])
    for python, compiled in zip(*left):
        assert_same(python, compiled)


def fill_upto(out, n):
    for i in range(n):
        out[i] = i * 2.0
    return out.sum()


def fill_stop_early(out, n, stop):
    for i in range(n):
        if i == stop:
            break
        out[i + 1] = out[i] + 1.0
    return out[0]


def fill_backwards(out, start, stop, step):
    for i in range(start, stop, step):
        out[i - 1] = i
    return out[-1]


def recurrence(x, out):
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = 0.5 * out[i - 1] + x[i]
    return out[-1]


def nest(a, out, shift):
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            out[i, j + shift] = a[i, j] + a[i - 1, j]
    return out.sum()


def branchy(a, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            s += a[i // 2]
        else:
            s += a[i + 1]
    return s


@pytest.mark.parametrize("n", [0, 3, 5, 6, 9])
def test_hoisted_checks_fill(n):
    check_writes(fill_upto, np.zeros(5), n)


@pytest.mark.parametrize("n,stop", [(3, 1), (10, 3), (10, 4), (10, 9), (0, 0)])
def test_hoisted_checks_leave_loop_early(n, stop):
    check_writes(fill_stop_early, np.zeros(5), n, stop)


@pytest.mark.parametrize("args", [(5, 0, -1), (6, 0, -1), (5, -4, -2), (5, -6, -1), (3, 10, 1),
                                  (1, 6, 2), (0, 0, 1), (2**62, 2**62 - 3, -1), (-2**63, -2**63 + 2, 1)])
def test_hoisted_checks_other_ranges(args):
    check_writes(fill_backwards, np.zeros(5), *args)


def test_hoisted_checks_recurrence():
    x = np.arange(1.0, 9.0)
    check_writes(recurrence, x, np.zeros(8))
    check_writes(recurrence, x, np.zeros(5))     # out is shorter: IndexError at i = 5, out[:5] written


@pytest.mark.parametrize("shift", [0, 1, 2, -1])
def test_hoisted_checks_nested(shift):
    check_writes(nest, np.arange(12.0).reshape(3, 4), np.zeros((3, 5)), shift)


@pytest.mark.parametrize("n", [0, 4, 5, 6, 7])
def test_hoisted_checks_under_branches(n):
    check_writes(branchy, np.arange(6.0), n)


# --- slicing: views that write through ----------------------------------------------------------

def slice_basic(a):
    return a[1:4]


def slice_step(a):
    return a[::2]


def slice_reverse(a):
    return a[::-1]


def slice_negative(a):
    return a[-3:]


def slice_empty(a):
    return a[5:2]


def slice_2d(a):
    return a[1:, :2]


def slice_row(a):
    return a[1]


def slice_col(a):
    return a[:, 1]


def slice_runtime(a, lo, hi, step):
    return a[lo:hi:step]


def write_through_slice(a):
    v = a[1:4]
    v[0] = 100
    v[-1] = 200
    w = a[::3]
    w[1] = 5
    return v.sum()


def write_through_row(a):
    row = a[2]
    row[1] = 42
    col = a[:, 0]
    col[0] = -1
    sub = a[1:, 1:]
    sub[0, 0] = 7
    return a[2, 1] + a[0, 0] + a[1, 1]


def fill_slice_1d(a, v):
    a[2:5] = v


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.float32, np.complex128, np.uint8],
                         ids=lambda d: np.dtype(d).name)
def test_slices_1d(dtype):
    for a in (sample(dtype, (10,)), sample(dtype, (20,))[::2]):
        for f in (slice_basic, slice_step, slice_reverse, slice_negative, slice_empty):
            check(f, a, jit=jitted(f))
        for lo, hi, step in [(0, 10, 1), (2, 8, 3), (8, 2, -2), (-5, -1, 1), (-100, 100, 4),
                             (9, -11, -1)]:
            check(slice_runtime, a, lo, hi, step, jit=jitted(slice_runtime))
        check(write_through_slice, a, jit=jitted(write_through_slice))
        check(fill_slice_1d, a, sample(dtype, (3,))[1], jit=jitted(fill_slice_1d))


def test_slice_zero_step_raises():
    check_raises(ValueError, pyjit.njit(slice_runtime), np.arange(5), 0, 5, 0)


@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_slices_2d(layout):
    a = layouts(np.float64, (4, 5))[layout]
    for f in (slice_2d, slice_row, slice_col):
        check(f, a, jit=jitted(f))
    check(write_through_row, a, jit=jitted(write_through_row))


def view_is_view(a):
    v = a[2:]
    v[0] = 99.0
    return a


def test_slice_view_shares_memory_with_argument():
    a = np.zeros(5)
    r = pyjit.njit(slice_basic)(a)
    assert np.shares_memory(r, a)
    r[0] = 3.0
    assert a[1] == 3.0
    b = np.zeros(4)
    out = pyjit.njit(view_is_view)(b)
    assert b[2] == 99.0 and np.shares_memory(out, b)


# --- attributes ---------------------------------------------------------------------------------

def attrs(a):
    return a.shape, a.size, a.ndim, a.strides, len(a)


def transpose(a):
    return a.T


def transpose_write(a):
    t = a.T
    t[0, 1] = 55
    return t.shape, t.strides


def dtype_attr(a):
    z = np.zeros(3, a.dtype)
    z[0] = a[0]
    return z


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_attributes(dtype, layout):
    for shape in [(6,), (3, 4), (2, 3, 4)]:
        a = layouts(dtype, shape)[layout]
        check(attrs, a, jit=jitted(attrs))
        check(transpose, a, jit=jitted(transpose))
        if a.ndim == 1:
            check(dtype_attr, a, jit=jitted(dtype_attr))


def test_transpose_writes_through():
    check(transpose_write, np.zeros((3, 4)))
    check(transpose_write, np.zeros((3, 4), np.int16, order="F"))


def test_empty_arrays():
    check(attrs, np.zeros((0, 3)))
    check(attrs, np.zeros(0, np.int8))


# --- iteration, sum, copy -----------------------------------------------------------------------

def do_sum(a):
    return a.sum()


def np_sum(a):
    return np.sum(a)


def do_copy(a):
    return a.copy()


def copy_is_independent(a):
    b = a.copy()
    b[0] = 123
    return b


def loop_sum(a):
    s = 0
    for v in a:
        s += v
    return s


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_sum_copy(dtype, layout):
    for shape in [(7,), (3, 4), (2, 3, 2)]:
        a = layouts(dtype, shape)[layout]
        check(do_sum, a, jit=jitted(do_sum))
        check(np_sum, a, jit=jitted(np_sum))
        check(do_copy, a, jit=jitted(do_copy))
    a1 = layouts(dtype, (6,))[layout]
    check(loop_sum, a1, jit=jitted(loop_sum))
    if dtype != np.bool_:
        check(copy_is_independent, a1, jit=jitted(copy_is_independent))


def test_copy_is_c_contiguous_and_owned():
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    c = pyjit.njit(do_copy)(a)
    assert c.flags.c_contiguous and c.flags.writeable
    assert not np.shares_memory(c, a)
    assert_same(a.copy(), c)


def test_sum_empty_and_float32():
    check(do_sum, np.zeros(0))
    check(do_sum, np.zeros(0, np.int32))
    check(do_sum, np.arange(1000, dtype=np.float32))
    r = pyjit.njit(do_sum)(np.arange(10, dtype=np.float32))
    assert float(r) == 45.0


# --- creation -----------------------------------------------------------------------------------

def make_zeros(n): return np.zeros(n)
def make_ones(n): return np.ones(n)
def make_zeros_2d(n, m): return np.zeros((n, m))
def make_ones_3d(n): return np.ones((n, 2, n))
def make_zeros_f32(n): return np.zeros(n, np.float32)
def make_ones_i32(n): return np.ones((n, 3), dtype=np.int32)
def make_zeros_c128(n): return np.zeros(n, dtype=np.complex128)
def make_ones_bool(n): return np.ones(n, np.bool_)
def make_ones_u8(n): return np.ones(n, np.uint8)
def make_empty(n): return np.empty(n)
def make_empty_2d_i64(n): return np.empty((n, 4), np.int64)
def make_arange1(n): return np.arange(n)
def make_arange2(a, b): return np.arange(a, b)
def make_arange3(a, b, s): return np.arange(a, b, s)
def make_arange_f32(n): return np.arange(n, dtype=np.float32)
def make_zeros_like(a): return np.zeros_like(a)
def make_ones_like(a): return np.ones_like(a)
def make_empty_like(a): return np.empty_like(a)
def make_zeros_like_dtype(a): return np.zeros_like(a, dtype=np.float32)


def fill_squares(n):
    a = np.empty(n)
    for i in range(n):
        a[i] = i * i
    return a


def fill_2d(n, m):
    a = np.zeros((n, m), np.int32)
    for i in range(n):
        for j in range(m):
            a[i, j] = i * 10 + j
    return a


CREATORS_N = [make_zeros, make_ones, make_ones_3d, make_zeros_f32, make_ones_i32,
              make_zeros_c128, make_ones_bool, make_ones_u8, make_arange1, make_arange_f32,
              fill_squares]


@pytest.mark.parametrize("f", CREATORS_N, ids=lambda f: f.__name__)
def test_creation(f):
    for n in (0, 1, 5, 17):
        check(f, n, jit=jitted(f))
        r = jitted(f)(n)
        assert r.flags.c_contiguous and r.flags.writeable


def test_creation_2d_and_empty():
    check(make_zeros_2d, 3, 4)
    check(make_zeros_2d, 0, 4)
    check(fill_2d, 4, 3)
    for f, shape, dtype in [(make_empty, (6,), np.float64), (make_empty_2d_i64, (6, 4), np.int64)]:
        r = pyjit.njit(f)(6)
        assert r.shape == shape and r.dtype == dtype and r.flags.c_contiguous


def test_arange():
    for a, b in [(0, 10), (5, 2), (-3, 4)]:
        check(make_arange2, a, b)
    for a, b, s in [(0, 10, 3), (10, 0, -2), (0.0, 1.0, 0.1), (1.5, -2.0, -0.25), (0, 5, 0.5)]:
        check(make_arange3, a, b, s)


@pytest.mark.parametrize("layout", ["C", "F", "A"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint8, np.complex64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_like_creation(dtype, layout):
    a = layouts(dtype, (3, 4))[layout]
    for f in (make_zeros_like, make_ones_like, make_zeros_like_dtype):
        check(f, a, jit=jitted(f))
    r = jitted(make_empty_like)(a)
    assert r.shape == a.shape and r.dtype == a.dtype


# --- returning arrays made in compiled code -----------------------------------------------------

def cumulative(a):
    out = np.empty_like(a)
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
        out[i] = s
    return out


def two_arrays(n):
    a = np.arange(n)
    b = np.ones(n)
    return a, b


def test_returned_arrays():
    check(cumulative, np.arange(10.0))
    check(cumulative, np.linspace(0, 1, 7))
    check(two_arrays, 4)
    r = pyjit.njit(cumulative)(np.ones(5))
    r[0] = 7.0           # owned and writeable
    assert r[0] == 7.0
    del r


# --- elementwise arithmetic; NEP 50 weak literals -----------------------------------------------

def scale(a):
    return a * 2.0


def shift(a):
    return a + 1


def add_arrays(a, b):
    return a + b


def neg_array(a):
    return -a


def positive_mask(a):
    return a > 0


def inplace_scale(a):
    a *= 3
    return a


def test_array_arithmetic():
    check(add_arrays, np.arange(5.0), np.ones(5))
    check(add_arrays, np.arange(6.0).reshape(2, 3), np.arange(3.0))        # broadcast
    check(add_arrays, np.arange(4, dtype=np.int32), np.arange(4, dtype=np.int64))
    check(neg_array, np.arange(4.0))
    check(positive_mask, np.arange(-2.0, 3.0))
    check(inplace_scale, np.arange(4.0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64],
                         ids=lambda d: np.dtype(d).name)
def test_weak_float_literal_keeps_dtype(dtype):
    # NEP 50: float32 array * 2.0 is float32 (Numba gives float64)
    a = sample(dtype, (5,)) + dtype(0.1)
    r = pyjit.njit(scale)(a)
    assert r.dtype == dtype, f"{a.dtype} * 2.0 gave {r.dtype}"
    assert_same(scale(a), r)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint16, np.float32],
                         ids=lambda d: np.dtype(d).name)
def test_weak_int_literal_keeps_dtype(dtype):
    a = sample(dtype, (5,))
    r = pyjit.njit(shift)(a)
    assert r.dtype == dtype, f"{a.dtype} + 1 gave {r.dtype}"
    assert_same(shift(a), r)


def scalar_weak(a):
    x = a[0] * 2.0 + 0.1
    out = np.empty(1, np.float64)
    out[0] = x
    return out


def test_weak_literal_scalar_from_array_element():
    # a[0] is float32; x = a[0] * 2.0 + 0.1 is computed in float32, then stored as float64
    a = np.array([0.1, 1.7], np.float32)
    expected = np.array([np.float64(a[0] * 2.0 + 0.1)])
    assert expected[0] != float(a[0]) * 2.0 + 0.1        # float64 arithmetic would differ
    assert_same(expected, pyjit.njit(scalar_weak)(a), exact=True)


# --- read-only arrays ---------------------------------------------------------------------------

def readonly(shape=(5,), dtype=np.float64):
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    a.setflags(write=False)
    return a


def write_elem(a):
    a[0] = 1


def write_slice(a):
    v = a[1:]
    v[0] = 2


def read_sum(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


def test_readonly_arrays_can_be_read():
    check(read_sum, readonly())
    check(do_sum, readonly((2, 3)))
    check(do_copy, readonly((2, 3)))
    assert pyjit.njit(do_copy)(readonly()).flags.writeable


@pytest.mark.parametrize("f", [write_elem, write_slice, fill_slice_1d, inplace_scale],
                         ids=lambda f: f.__name__)
def test_readonly_arrays_refuse_writes(f):
    a = readonly((8,))
    args = (a, 1.0) if f is fill_slice_1d else (a,)
    with pytest.raises(errors.CompileError) as info:
        pyjit.njit(f)(*args)
    assert np.array_equal(a, np.arange(8.0))
    assert "read" in str(info.value).lower()
    # the same function still compiles for a writeable array
    w = np.arange(8.0)
    pyjit.njit(f)(*((w, 1.0) if f is fill_slice_1d else (w,)))


# --- more edge cases ----------------------------------------------------------------------------

def slice_augmented(a):
    a[1:3] += 1
    a[::2] *= 2
    return a


def test_slice_augmented_assignment():
    check(slice_augmented, np.arange(6.0))
    check(slice_augmented, np.arange(6, dtype=np.int32))


def zero_d(a):
    return a.ndim, a.size, a.sum(), a.shape


def test_zero_dimensional_array():
    check(zero_d, np.array(5.0))
    check(zero_d, np.array(3, np.int32))


def test_non_native_byte_order_is_right_or_refused():
    a = np.arange(5, dtype=">f8")
    f = pyjit.njit(do_sum)
    try:
        got = f(a)
    except TypeError:
        return
    assert got == 10.0


def min_max_mean(a):
    return a.min(), a.max(), a.mean(), max(a), min(a)


def test_array_min_max_mean():
    check(min_max_mean, np.array([3.0, -1.0, 7.5, 2.0]))
    check(min_max_mean, np.array([3, -1, 7, 2], np.int32))
    check(min_max_mean, np.array([3.0, np.nan, 1.0]))
    check(min_max_mean, np.array([1.5, 2.5], np.float32))
    check_raises(ValueError, pyjit.njit(min_max_mean), np.zeros(0))


def store_complex_into_float(a):
    a[0] = 1j


def test_store_complex_into_float_array_is_a_compile_error():
    with pytest.raises(errors.TypingError):
        pyjit.njit(store_complex_into_float)(np.zeros(3))


def nested_views(a):
    b = a[1:, ::2]
    c = b[::-1, 1:]
    c[0, 0] = -1.0
    return c.shape, c.strides, c.sum()


@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_views_of_views(layout):
    check(nested_views, layouts(np.float64, (5, 6))[layout])


def reshape_ravel(a):
    return a.reshape((2, 6)), a.ravel(), a.reshape(12).sum()


def test_reshape_ravel():
    check(reshape_ravel, np.arange(12.0).reshape(3, 4))


def array_return_noncontig(a):
    return a[:, 1], a.T[1:]


def test_return_non_contiguous_views():
    check(array_return_noncontig, np.arange(12.0).reshape(3, 4))


from hypothesis import given, settings, strategies as st, HealthCheck  # noqa: E402

_HYP = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_bound = st.one_of(st.none(), st.integers(-25, 25))


def slice_opt(a, lo, hi, step):
    return a[lo:hi:step]


def slice_opt_2d(a, lo, hi, step, lo2, hi2):
    return a[lo:hi:step, lo2:hi2]


@given(_bound, _bound, st.one_of(st.none(), st.integers(-7, 7).filter(lambda s: s != 0)))
@_HYP
def test_slicing_hypothesis(lo, hi, step):
    a = np.arange(20.0)
    # None bounds are spelled out in the source: compile one function per pattern
    src = "def f(a):\n    return a[{}:{}:{}]\n".format(
        "" if lo is None else lo, "" if hi is None else hi, "" if step is None else step)
    ns = {}
    exec(src, ns)
    check(ns["f"], a)
    check(ns["f"], a[::-1])
    if None not in (lo, hi, step):
        check(slice_opt, a, lo, hi, step, jit=jitted(slice_opt))
        check(slice_opt_2d, np.arange(300.0).reshape(20, 15), lo, hi, step, hi, lo,
              jit=jitted(slice_opt_2d))


def test_zero_stride_broadcast_arrays():
    b = np.broadcast_to(np.arange(3.0), (4, 3))
    check(do_sum, b)
    check(get2, b, 3, 2)
    check(attrs, b)


def test_pyjit_debug_env_turns_bounds_checks_on():
    from util import run_subprocess
    code = (
        "import numpy as np, pyjit\n"
        "def get(a, i):\n"
        "    return a[i]\n"
        "f = pyjit.njit(get)\n"
        "try:\n"
        "    f(np.arange(3.0), 3)\n"
        "except IndexError as e:\n"
        "    print('IndexError')\n"
        "print(f(np.arange(3.0), -1))\n")
    rc, out, err = run_subprocess(code, timeout=60, env={"PYJIT_DEBUG": "1"})
    assert rc == 0, err
    assert out.split() == ["IndexError", "2.0"], out + err


def bool_array_ops(a, b):
    return a + b, a * 2, ~a, a & b, a | b, a == b


def test_bool_array_arithmetic():
    check(bool_array_ops, np.array([True, False, True]), np.array([True, True, False]))


PROMO_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                np.uint64, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dt1", PROMO_DTYPES, ids=lambda d: np.dtype(d).name)
def test_array_binop_promotion_table(dt1):
    # NumPy 2 promotion for every pair of dtypes, arrays and NumPy scalars alike
    for dt2 in PROMO_DTYPES:
        a, b = sample(dt1, (4,)), sample(dt2, (4,))
        for f in (add_arrays, mul_arrays):
            check(f, a, b, jit=jitted(f))
        if not (dt1 == np.bool_ and dt2 == np.bool_):   # bool scalars follow Python: True*True is 1
            check(mul_arrays, a[1], b[2], jit=jitted(mul_arrays))


def mul_arrays(a, b):
    return a * b


# ---- division and modulo by zero follow NumPy over arrays ------------------------------------

def _div(a, b):
    return a / b


def _floordiv(a, b):
    return a // b


def _mod(a, b):
    return a % b


def _idiv(a, b):
    a /= b
    return a


def _ifloordiv(a, b):
    a //= b
    return a


def _imod(a, b):
    a %= b
    return a


_FLOAT_VALUES = [0.0, -0.0, 1.0, -1.0, 2.5, -3.5, 7.0, np.inf, -np.inf, np.nan]
_INT_VALUES = [0, 1, -1, 7, -7, 3, -3, 100]


def _same_as_numpy(f, *args):
    """f over args in CPython (NumPy's arithmetic, warnings off) and compiled: same dtype, same
    values, same signs of zeros and infinities, nan where nan."""
    with np.errstate(all="ignore"):
        expected = f(*[x.copy() if isinstance(x, np.ndarray) else x for x in args])
    got = jitted(f)(*[x.copy() if isinstance(x, np.ndarray) else x for x in args])
    assert got.dtype == expected.dtype, (f.__name__, args, got.dtype, expected.dtype)
    assert np.array_equal(got, expected, equal_nan=True), (f.__name__, args, got, expected)
    if expected.dtype.kind == "f":
        assert (np.signbit(got) == np.signbit(expected))[~np.isnan(expected)].all(), \
            (f.__name__, args, got, expected)


def _operands(dtype):
    values = _FLOAT_VALUES if np.dtype(dtype).kind == "f" else _INT_VALUES
    a = np.array(values, dtype=dtype)
    return a[:, None] * np.ones(len(values), dtype=dtype), a[None, :] * np.ones((len(values), 1), dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("f", [_div, _floordiv, _mod])
def test_array_division_by_zero_follows_numpy(f, dtype):
    a, b = _operands(dtype)
    _same_as_numpy(f, a, b)                 # every pair of values, zeros as divisors included
    _same_as_numpy(f, a[:, 0], b[0])        # 1-d array op array
    _same_as_numpy(f, a[:, 0], b[0, ::-1])  # a non-contiguous divisor
    scalars = [0.0, -0.0, np.inf, np.nan, 2.0] if np.dtype(dtype).kind == "f" else [0, -1, 3]
    for s in scalars:
        _same_as_numpy(f, a[:, 0], s)       # array op scalar
        _same_as_numpy(f, s, b[0])          # scalar op array


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("f", [_idiv, _ifloordiv, _imod])
def test_augmented_array_division_by_zero_follows_numpy(f, dtype):
    if f is _idiv and np.dtype(dtype).kind == "i":
        return      # int_array /= x cannot keep the int dtype (NumPy refuses the cast)
    a, b = _operands(dtype)
    _same_as_numpy(f, a, b)
    _same_as_numpy(f, a[:, 0], b[0])
    for s in ([0.0, -0.0, np.nan, -2.0] if np.dtype(dtype).kind == "f" else [0, -1, 3]):
        _same_as_numpy(f, a[:, 0], s)


def test_integer_array_divided_by_zero_gives_float_inf_and_nan():
    _same_as_numpy(_div, np.array([1, 0, -1], dtype=np.int64), 0)
    _same_as_numpy(_div, np.array([1, 0, -1], dtype=np.int32), np.zeros(3, dtype=np.int32))


def _scalar_div_in_array_function(a, x, y):
    return a / x + x / y


def test_scalar_division_by_zero_still_raises_beside_array_division():
    f = jitted(_scalar_div_in_array_function)
    with np.errstate(all="ignore"):
        assert_same(_scalar_div_in_array_function(np.ones(2), 0.0, 1.0),
                    f(np.ones(2), 0.0, 1.0))
    check_raises(ZeroDivisionError, f, np.ones(2), 1.0, 0.0)
    check_raises(ZeroDivisionError, jitted(_floordiv), 3, 0)
    check_raises(ZeroDivisionError, jitted(_mod), 3.0, 0.0)


# ---- reshape with dimensions known at run time ------------------------------------------------

def _reshape2(a, n, m):
    return a.reshape(n, m)


def _reshape_tuple(a, n, m):
    return a.reshape((n, m))


def _reshape3(a, n):
    return a.reshape(n, 2, -1)


def _reshape1(a, n):
    return a.reshape(n)


@pytest.mark.parametrize("f", [_reshape2, _reshape_tuple])
@pytest.mark.parametrize("size, n, m", [
    (12, -1, 3), (12, 4, -1), (12, -1, 12), (12, 3, 4), (12, -2, 6), (0, 2, -1), (0, -1, 5),
    (12, 5, -1), (12, -1, 5), (12, -1, -1), (12, 0, -1), (12, 3, 5), (0, 0, -1),
])
def test_reshape_unknown_dimension_at_run_time(f, size, n, m):
    """The -1 (any negative) dimension is worked out at run time as NumPy does, and a shape that
    does not fit is NumPy's ValueError."""
    a = np.arange(float(size))
    check(f, a, n, m, jit=jitted(f))
    check(f, a[::-1], n, m, jit=jitted(f))      # a non-contiguous array is reshaped from a copy


def test_reshape_unknown_dimension_messages():
    a = np.arange(12.0)
    check_raises(ValueError, jitted(_reshape2), a, 5, -1,
                 match="cannot reshape array of size 12 into shape (5,-1)")
    check_raises(ValueError, jitted(_reshape2), a, -1, -1, match="only specify one unknown dimension")
    check_raises(ValueError, jitted(_reshape1), a, 5, match="size 12 into shape (5,)")
    check_raises(ValueError, jitted(_reshape3), a, 5, match="size 12 into shape (5,2,-1)")
    assert jitted(_reshape3)(a, 3).shape == a.reshape(3, 2, -1).shape
    assert jitted(_reshape1)(a, -1).shape == (12,)


def _unaligned(n, dtype):
    """An array of n items whose data starts one byte past an aligned address (as pickle's
    out-of-band buffers and packed records give)."""
    dtype = np.dtype(dtype)
    buf = np.zeros(n * dtype.itemsize + 1, np.uint8)
    a = buf[1:].view(dtype)
    a[:] = np.arange(n) % 7 - 3
    assert not a.flags.aligned
    return a


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "complex128"])
def test_unaligned_arrays_read_write_and_views(dtype):
    def f(a):
        s = a[0] * 0
        for i in range(a.size):
            a[i] = a[i] * 2 + 1
            s += a[i]
        return s, a[1:6], a.sum()

    a, b = _unaligned(1001, dtype), _unaligned(1001, dtype)
    got, want = pyjit.njit(f)(a), f(b)
    assert got[0] == want[0] and got[2] == want[2]
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(a, b)
    got[1][0] = 42   # the view is of the argument's own memory
    assert a[1] == 42


def _first_made_in_loop(x, n):
    for it in range(n + 1):
        labels = np.array([x[i] * it for i in range(x.shape[0])])
        if it == n:
            break
        x = x + labels
    return labels


@pytest.mark.parametrize("opt", [0, 3])
@pytest.mark.parametrize("fastmath", [False, True])
def test_array_variable_first_assigned_in_a_loop(opt, fastmath):
    # the loop's header holds `labels` before its first assignment: no array yet, and counting
    # references to it must see none (it crashed with opt=0 and with fastmath)
    x = np.arange(5.0)
    got = pyjit.njit(opt=opt, fastmath=fastmath)(_first_made_in_loop)(x.copy(), 4)
    np.testing.assert_array_equal(got, _first_made_in_loop(x.copy(), 4))


def _membership(x, a):
    return x in a, x not in a, (x + 1) in a[::2], 2 in a


@pytest.mark.parametrize("x, a", [
    (3, np.arange(5)), (3.0, np.arange(5.0)), (np.nan, np.array([np.nan, 1.0])),
    (1, np.arange(6).reshape(2, 3)), (2.5, np.arange(4, dtype=np.int32)),
    (True, np.array([False, True])), (5, np.array([], dtype=np.int64)),
    (1, np.array([1.0 + 0j])), (np.uint8(7), np.arange(9, dtype=np.uint8)[::-1])])
def test_in_over_an_array(x, a):
    # stumpy's `nn_i not in I[thread_idx, i]`: some element equals x, NaN equals nothing
    check(_membership, x, a)


def test_in_over_an_array_of_another_kind_is_a_compile_error():
    @pyjit.njit
    def f(s, a):
        return s in a
    with pytest.raises(pyjit.errors.UnsupportedError, match="'in' over an array looks for a number"):
        f("x", np.arange(3))


def _merge_rows(PA, PB, IA, IB):
    # stumpy's top-k merge: one source for 1-d and 2-d profiles, the branch chosen by a.ndim
    if PA.ndim == 1:
        mask = (PB < PA) & (IB != IA)
        PA[mask] = PB[mask]
        IA[mask] = IB[mask]
    else:
        k = PA.shape[1]
        for i in range(PA.shape[0]):
            for j in range(k):
                if PB[i, j] < PA[i, j]:
                    PA[i, j] = PB[i, j]
                    IA[i, j] = IB[i, j]
    return PA.ndim > 1, 2 <= PA.ndim


def test_branches_on_ndim_are_typed_for_the_array_given():
    # Numba folds a.ndim to its value, so the branch for other dimensions is never typed
    rng = np.random.default_rng(3)
    for shape in ((7,), (4, 3)):
        PA, PB = rng.random(shape), rng.random(shape)
        IA, IB = rng.integers(0, 5, shape), rng.integers(0, 5, shape)
        check(_merge_rows, PA, PB, IA, IB)

    @pyjit.njit
    def width(a):
        if a.ndim != 2:
            return -1
        return a.shape[1]
    assert (width(np.ones(3)), width(np.ones((2, 5)))) == (-1, 5)
