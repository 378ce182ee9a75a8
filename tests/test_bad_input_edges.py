"""Bad input at the edges: recursion too deep for the stack, integer constants past 64 bits,
floats converted to ints out of range, array division by zero, deeply nested tuples.

Each case runs the same source in CPython (or NumPy) and compiled and compares: the same result,
or the same exception class, or pyjit's documented refusal (docs/guarantees.md) where CPython
would make an int that does not fit int64. Deep recursion runs in subprocesses, so that a crash
fails the test instead of ending pytest.
"""
import inspect
import math
import os
import textwrap
import time
import warnings

import numpy as np
import pytest

import pyjit
from pyjit.errors import UnsupportedError
from util import run_subprocess

THIS_FILE = os.path.basename(__file__)


def outcome(fn, *args):
    """("ok", value) or (exception class, str), NumPy's warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return ("ok", fn(*args))
        except Exception as e:  # noqa: BLE001 - the exception is the behaviour compared
            return (type(e), str(e))


def copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


# ---- recursion ---------------------------------------------------------------------------------

_RECURSION = '''
import os, sys, threading
import numpy as np
import pyjit
from util import memory_in_use   # the resident set, or under ASan the bytes malloc'd

sys.setrecursionlimit(2_000_000)     # CPython's own answer for deep but finite recursion

SOURCE = """
def sum_to(n):
    if n == 0:
        return 0
    return n + sum_to(n - 1)

def alloc_down(n, a):
    if n == 0:
        return a.sum()
    b = a + 1.0
    return alloc_down(n - 1, b) + b[0] * 0.0

def caller(n):
    return sum_to(n) * 2 + 1
"""
py, compiled = {}, {}
exec(SOURCE, py)
exec(SOURCE, compiled)
for name in ("sum_to", "alloc_down", "caller"):
    compiled[name] = pyjit.njit(compiled[name])

def py_is_even(n):
    return True if n == 0 else py_is_odd(n - 1)

def py_is_odd(n):
    return False if n == 0 else py_is_even(n - 1)

@pyjit.njit("boolean(int64)")
def is_even(n):
    return True if n == 0 else is_odd(n - 1)

@pyjit.njit("boolean(int64)")
def is_odd(n):
    return False if n == 0 else is_even(n - 1)

@pyjit.njit("float64(int64)")
def endless(n):
    return endless(n + 1) + 1.0

@pyjit.njit("int64(int64)")
def endless_a(n):
    return endless_b(n + 1) - 1

@pyjit.njit("int64(int64)")
def endless_b(n):
    return endless_a(n + 1) + 1

@pyjit.njit("float64(int64, float64[:])")
def alloc_endless(n, a):
    b = a + 1.0
    return alloc_endless(n + 1, b) + b[0]

def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as e:
        return ("raises", type(e).__name__)

def in_thread(fn, *args, stack_mb=0):
    threading.stack_size(stack_mb * 1024 * 1024)
    box = []
    t = threading.Thread(target=lambda: box.append(outcome(fn, *args)))
    t.start()
    t.join()
    threading.stack_size(0)
    return box[0]

def rss_mb():
    return memory_in_use() / 2**20

def show(*values):
    print(*values, sep=" | ")
'''


def _recursion(body):
    tests = os.path.dirname(os.path.abspath(__file__))   # for util
    code = f"import sys; sys.path.insert(0, {tests!r})\n" + _RECURSION + textwrap.dedent(body)
    rc, out, err = run_subprocess(code, timeout=300)
    assert rc == 0, f"exit status {rc}\nstdout:\n{out}\nstderr:\n{err[-3000:]}"
    return out.splitlines()


RAISES = "('raises', 'RecursionError')"


def test_endless_recursion_plain_and_mutual_raises_again_and_again():
    lines = _recursion('''
        for fn in (endless, endless_a, endless_b):
            show(*[outcome(fn, 0) for _ in range(3)], in_thread(fn, 0, stack_mb=8))
    ''')
    assert lines == [" | ".join([RAISES] * 4)] * 3, lines


def test_a_function_works_after_its_recursion_error():
    lines = _recursion('''
        show(outcome(compiled["sum_to"], 10 ** 7), outcome(compiled["sum_to"], 100), py["sum_to"](100))
        show(outcome(is_even, 10 ** 7), outcome(is_even, 10), outcome(is_odd, 7))
        show(outcome(endless, 0), outcome(compiled["sum_to"], 1000), py["sum_to"](1000))
        show(in_thread(compiled["sum_to"], 10 ** 7, stack_mb=8), in_thread(compiled["sum_to"], 50))
    ''')
    assert lines == [f"{RAISES} | ('ok', 5050) | 5050",
                     f"{RAISES} | ('ok', True) | ('ok', True)",
                     f"{RAISES} | ('ok', 500500) | 500500",
                     f"{RAISES} | ('ok', 1275)"], lines


@pytest.mark.parametrize("depth", [10 ** 5, 3 * 10 ** 5, 10 ** 6])
def test_deep_recursion_gives_cpythons_answer_where_the_stack_holds_it(depth):
    """The limit is the thread's stack: a 256 MB stack holds a million frames of these
    functions, an 8 MB one does not hold 10**6; either way nothing crashes."""
    lines = _recursion(f'''
        n = {depth}
        show(in_thread(compiled["sum_to"], n, stack_mb=256) == in_thread(py["sum_to"], n, stack_mb=256))
        show(in_thread(is_even, n, stack_mb=256) == in_thread(py_is_even, n, stack_mb=256))
        show(in_thread(compiled["caller"], n, stack_mb=256) == in_thread(py["caller"], n, stack_mb=256))
        show(in_thread(compiled["sum_to"], n, stack_mb=8), in_thread(is_odd, n, stack_mb=8))
    ''')
    assert lines[:3] == ["True"] * 3, lines
    small_stack = lines[3].split(" | ")
    if depth == 10 ** 6:
        assert small_stack == [RAISES] * 2, lines
    for got in small_stack:
        assert got == RAISES or got.startswith("('ok', "), lines


def test_recursion_error_through_a_non_recursive_caller():
    lines = _recursion('''
        show(outcome(compiled["caller"], 10 ** 7), outcome(compiled["caller"], 10), py["caller"](10))
    ''')
    assert lines == [f"{RAISES} | ('ok', 111) | 111"], lines


def test_recursion_error_frees_the_arrays_of_every_frame():
    lines = _recursion('''
        a = np.ones(100)
        for _ in range(2):
            outcome(alloc_endless, 0, a), outcome(compiled["alloc_down"], 10 ** 7, a)
        before = rss_mb()
        results = [outcome(alloc_endless, 0, a) for _ in range(5)]
        results += [outcome(compiled["alloc_down"], 10 ** 7, a) for _ in range(5)]
        show(set(results) == {("raises", "RecursionError")}, rss_mb() - before < 64)
        show(compiled["alloc_down"](1000, a) == py["alloc_down"](1000, a), a[:2].tolist())
    ''')
    assert lines == ["True | True", "True | [1.0, 1.0]"], lines


# ---- integer constants past 64 bits ---------------------------------------------------------

BIG_GLOBAL = 2 ** 70
NEG_GLOBAL = -2 ** 64
EDGE_GLOBAL = 2 ** 63
TUPLE_GLOBAL = (1, 2 ** 65)
MIN_GLOBAL = -2 ** 63
U64_MAX_GLOBAL = np.uint64(2 ** 64 - 1)
U64_TOP_GLOBAL = np.uint64(2 ** 63 + 5)


def big_pow_product(x):
    return x * 2**100  # <-


def big_shift(x):
    return x + (1 << 70)  # <-


def big_negative_pow(x):
    return -2**64 + x  # <-


def big_two_to_63(x):
    return x - 2**63  # <-


def big_literal(x):
    return x - 9223372036854775808  # <-


def big_hex(x):
    return x + 0x10000000000000000  # <-


def big_decimal(x):
    return x + 10**19  # <-


def big_modulus(x):
    return x % 2**64  # <-


def big_comparison(x):
    return x < 2**64  # <-


def big_in_tuple(x):
    return (x, 2**70)  # <-


def big_in_untaken_branch(x):
    return x if x > 0 else 2**70  # <-


def big_made_float(x):
    return x + float(2**70)  # <-


def big_inverted(x):
    return x + ~2**64  # <-


def big_global(x):
    y = x * 2
    return y + BIG_GLOBAL  # <-


def big_negative_global(x):
    return NEG_GLOBAL + x  # <-


def big_edge_global(x):
    return x + EDGE_GLOBAL  # <-


def big_global_tuple(x):
    return x + TUPLE_GLOBAL[0]  # <-


def _big_closure():
    c = 2**70

    def big_closure(x):
        y = x + 1
        return y + c  # <-
    return big_closure


BIG_CONSTANTS = [big_pow_product, big_shift, big_negative_pow, big_two_to_63, big_literal,
                 big_hex, big_decimal, big_modulus, big_comparison, big_in_tuple,
                 big_in_untaken_branch, big_made_float, big_inverted, big_global,
                 big_negative_global, big_edge_global, big_global_tuple, _big_closure()]


@pytest.mark.parametrize("func", BIG_CONSTANTS, ids=lambda f: f.__name__)
def test_constant_past_64_bits_is_refused_at_its_line(func):
    """CPython computes these with big ints; compiled code would wrap, so it refuses them, at
    compile time, naming the line of the constant with the source and a caret."""
    outcome(func, 1)    # CPython runs them all
    with pytest.raises(UnsupportedError, match="does not fit in 64 bits") as info:
        pyjit.njit(func)(1)
    msg = str(info.value)
    lines, start = inspect.getsourcelines(func)
    (line, text), = [(start + i, t) for i, t in enumerate(lines) if "# <-" in t]
    assert f"line {line}" in msg and THIS_FILE in msg and func.__name__ in msg, msg
    assert text.split("# <-")[0].strip() in msg and "^" in msg, msg


def fits_min_power(x):
    return x + -2**63


def fits_min_literal(x):
    return -9223372036854775808 + x


def fits_max_literal(x):
    return x - 9223372036854775807


def fits_after_folding(x):
    return x * (2**62 * 4 // 2**61) + 2**64 % 7 + (1 << 64 >> 60)


def fits_float_power(x):
    return x + 2.0**70


def fits_min_global(x):
    return MIN_GLOBAL + x


def fits_10_to_18(x):
    return x + 10**18


@pytest.mark.parametrize("func", [fits_min_power, fits_min_literal, fits_max_literal,
                                  fits_after_folding, fits_float_power, fits_min_global,
                                  fits_10_to_18], ids=lambda f: f.__name__)
def test_constants_that_fit_int64_give_cpythons_answer(func):
    cf = pyjit.njit(func)
    for x in (1, 5, 0):
        expected = func(x)
        assert cf(x) == expected and type(cf(x)) is type(expected), (x, cf(x), expected)


def big_default(x, k=2**70):
    return x + k


def test_constant_past_64_bits_as_a_default():
    """Left out, the default is a bad argument; given, the frozen default is still a constant
    past 64 bits, refused at the def that holds it."""
    with pytest.raises(OverflowError, match="argument 'k'"):
        pyjit.njit(big_default)(1)
    with pytest.raises(UnsupportedError, match="does not fit in 64 bits") as info:
        pyjit.njit(big_default)(1, 2)
    _, start = inspect.getsourcelines(big_default)
    assert f"line {start}" in str(info.value) and "def big_default" in str(info.value)


def uint64_global_plus(x):
    return x + U64_MAX_GLOBAL


def uint64_global_ops(x):
    return (U64_TOP_GLOBAL // x, U64_TOP_GLOBAL % np.uint64(10), U64_MAX_GLOBAL > x,
            U64_MAX_GLOBAL >> np.uint64(60), U64_MAX_GLOBAL - x, U64_MAX_GLOBAL)


@pytest.mark.parametrize("func", [uint64_global_plus, uint64_global_ops], ids=lambda f: f.__name__)
def test_uint64_globals_past_int64_are_numpy_values(func):
    """A np.uint64 global past 2**63 is a uint64, not a big int to refuse (it once was)."""
    for x in (np.uint64(1), np.uint64(3), np.uint64(2**64 - 1)):
        e, g = outcome(func, x), outcome(pyjit.njit(func), x)
        assert e[0] == "ok" and g[0] == "ok", (x, e, g)
        expected = e[1] if isinstance(e[1], tuple) else (e[1],)
        got = g[1] if isinstance(g[1], tuple) else (g[1],)
        assert [int(v) for v in got] == [int(v) for v in expected], (x, e, g)


def uint64_literal_ops(x):
    top = np.uint64(0x8000000000000000)
    return (top, x ^ 0xFFFFFFFFFFFFFFFF, x & 0x8000000000000001, 0x8000000000000000 > x,
            (top | x) >> np.uint64(60), x >> 3)


def test_uint64_literals_past_int64_meet_uint64_values():
    """An int literal in [2**63, 2**64) converted to uint64 or combined with a uint64 is a
    uint64, as Numba types it (hash and cipher code writes np.uint64(0x8000000000000000)); a
    uint64 shifted by a signed count stays a uint64, as Numba shifts it."""
    cf = pyjit.njit(uint64_literal_ops)
    for x in (np.uint64(1), np.uint64(2**63 + 7), np.uint64(2**64 - 1)):
        assert [int(v) for v in cf(x)] == [int(v) for v in uint64_literal_ops(x)], x


# ---- floats converted to ints ------------------------------------------------------------------

EDGE_FLOATS = [math.inf, -math.inf, math.nan, 9.3e18, -9.3e18, 2.0**63, -2.0**63,
               float(np.nextafter(2.0**63, 0)), float(np.nextafter(-2.0**63, -math.inf)),
               -0.0, 0.5, -0.5, 2.5, -2.5, 4503599627370497.0, 1e300, -1e-300]
EDGE_FLOAT32 = [np.float32(v) for v in (math.inf, -math.inf, math.nan, 9.3e18, -9.3e18, 2.0**63,
                                        -2.0**63, 2.5, -1.5)] + \
    [np.nextafter(np.float32(2**63), np.float32(0)),
     np.nextafter(np.float32(-2**63), np.float32(-math.inf))]

TO_INT = ["int(x)", "round(x)", "math.floor(x)", "math.ceil(x)", "math.trunc(x)",
          "int(x * 1.0)", "math.floor(-x)", "round(x, 0)", "round(x, 3)", "round(x, -3)",
          "round(x, -18)", "round(x, -19)"]


def compiled_and_python(src, name="f"):
    ns = dict(np=np, math=math)
    exec(src, ns)
    return pyjit.njit(ns[name]), ns[name]


@pytest.mark.parametrize("expr", TO_INT)
def test_float_to_int_edges_as_cpython(expr):
    """CPython's int where it fits int64, OverflowError naming int64 where it does not, and
    CPython's own ValueError/OverflowError for NaN and infinities (float32 values reach CPython
    as the floats they equal)."""
    cf, pf = compiled_and_python(f"def f(x):\n    return {expr}\n")
    for x in EDGE_FLOATS + EDGE_FLOAT32:
        e, g = outcome(pf, float(x)), outcome(cf, x)
        if e[0] == "ok" and isinstance(e[1], int) and not -2**63 <= e[1] < 2**63:
            assert g[0] is OverflowError and "int64" in g[1], (x, e, g)
        elif e[0] == "ok" and isinstance(e[1], int):
            assert g == e and type(g[1]) is int, (x, e, g)
        elif e[0] == "ok":      # round(x, n) is a float: a float32 one for a float32 x
            want = float(type(x)(e[1])) if isinstance(x, np.float32) else e[1]
            assert g[0] == "ok" and type(g[1]) is float, (x, e, g)
            assert g[1] == want or (math.isnan(g[1]) and math.isnan(want)), (x, e, g)
            assert math.copysign(1, g[1]) == math.copysign(1, want), (x, e, g)
        else:
            assert g == e, (x, e, g)


def convert_elements(a):
    s = 0
    for i in range(len(a)):
        s += int(a[i]) // 2 + math.floor(a[i] / 4)
    return s


def test_float_to_int_error_from_a_loop_and_a_helper():
    for dtype in (np.float64, np.float32):
        for bad in (math.nan, math.inf, -9.3e18, 2.0**63):
            a = np.array([1.5, -2.5, 7.0, bad], dtype=dtype)
            e = outcome(convert_elements, [float(v) for v in a])
            g = outcome(pyjit.njit(convert_elements), a)
            assert g[0] is (OverflowError if e[0] == "ok" else e[0]), (dtype, bad, e, g)
        a = np.array([1.5, -2.5, 7.0, -2.0**63], dtype=dtype)    # -2**63 itself fits
        assert pyjit.njit(convert_elements)(a) == convert_elements([float(v) for v in a])

    helper = pyjit.njit(lambda x: math.ceil(x) - 1)

    @pyjit.njit
    def outer(x):
        return helper(x) + 1

    assert outcome(outer, 9.3e18)[0] is OverflowError
    assert outcome(outer, math.nan)[0] is ValueError
    assert outer(-2.0**63 + 4096) == math.ceil(-2.0**63 + 4096)     # and it works after


CAST_VALUES = [np.nan, np.inf, -np.inf, 1e30, -1e30, 9.3e18, -9.3e18, 2.0**63, -2.0**63, 1.8e19,
               2.0**64, 3e9, -3e9, 2.0**31, -2.0**31 - 1, 70000.0, -70000.0, 300.0, -300.0,
               255.9, 128.0, -129.0, -1.0, 1.5, -2.5, -0.0]
CAST_TO = ["int8", "int16", "int32", "int64", "uint8", "uint64"]


def astype_of(a, b):
    return a.astype(b.dtype)


def astype_2d_view(a, b):
    return a.reshape(2, -1).T[::-1].astype(b.dtype)


def assign_into(a, b):
    b[:] = a
    return b


def assign_strided(a, b):
    b[::-1] = a
    return b


def assign_row(a, b):
    c = np.zeros((2, b.shape[0]), b.dtype)
    c[1] = a
    c[0, ::2] = a[::2]
    return c


@pytest.mark.parametrize("src", ["float64", "float32"])
@pytest.mark.parametrize("dst", CAST_TO)
@pytest.mark.parametrize("func", [astype_of, astype_2d_view, assign_into, assign_strided,
                                  assign_row], ids=lambda f: f.__name__)
def test_float_array_to_int_array_as_numpy(func, dst, src):
    """NaN, infinities and values out of the type's range convert as NumPy converts them, through
    astype and through assignment of a float array into an int array (which once saturated)."""
    a = np.array(CAST_VALUES, dtype=src)
    b = np.zeros(len(a), dtype=dst)
    expected = outcome(func, a.copy(), b.copy())
    got = outcome(pyjit.njit(func), a.copy(), b.copy())
    assert expected[0] == got[0] == "ok", (expected, got)
    assert got[1].dtype == expected[1].dtype
    np.testing.assert_array_equal(got[1], expected[1])


# ---- array division by zero --------------------------------------------------------------------

def div(a, b):
    return a / b


def floordiv(a, b):
    return a // b


def mod(a, b):
    return a % b


def power(a, b):
    return a ** b


def np_power(a, b):
    return np.power(a, b)


def ifloordiv(a, b):
    a //= b
    return a


def imod(a, b):
    a %= b
    return a


DIVISION_VALUES = {
    "float64": [0.0, -0.0, 1.0, -1.0, 2.5, -3.5, np.inf, -np.inf, np.nan],
    "float32": [0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan],
    "int64": [0, 1, -1, 7, -7, 2, -2**63, 2**63 - 1],
    "int32": [0, 1, -1, 7, -2**31, 2**31 - 1],
    "int8": [0, 1, -1, 5, -128, 127],
    "uint8": [0, 1, 3, 255],
    "uint64": [0, 1, 3, 2**64 - 1],
    "bool": [False, True],
}


def same_as_numpy(expected, got, where):
    """Same outcome: the same exception class, or arrays of one dtype and shape with the same
    values, NaN where NaN, and the same sign of every zero and infinity. Finite floats may differ
    in their last bits: NumPy's pow on AVX-512 machines is its own SIMD code, not libm's."""
    assert got[0] == expected[0] if expected[0] == "ok" else got[0] is expected[0], \
        (where, expected, got)
    if expected[0] != "ok":
        return
    e, g = np.asarray(expected[1]), np.asarray(got[1])
    assert g.dtype == e.dtype and g.shape == e.shape, (where, e.dtype, g.dtype, e.shape, g.shape)
    if e.dtype.kind == "f":
        finite = np.isfinite(e)
        assert np.array_equal(g[~finite], e[~finite], equal_nan=True), (where, e, g)
        np.testing.assert_allclose(g[finite], e[finite], rtol=4 * np.finfo(e.dtype).eps, atol=0,
                                   err_msg=str(where))
        assert (np.signbit(g) == np.signbit(e))[~np.isnan(e)].all(), (where, e, g)
    else:
        assert np.array_equal(g, e), (where, e, g)


def division_operands(dtype):
    """Every pair of values (zeros as divisors included), as two 1-d arrays."""
    v = np.array(DIVISION_VALUES[dtype], dtype=dtype)
    return np.repeat(v, len(v)), np.tile(v, len(v))


@pytest.mark.parametrize("dtype", list(DIVISION_VALUES))
@pytest.mark.parametrize("func", [div, floordiv, mod, power, np_power], ids=lambda f: f.__name__)
def test_array_division_by_zero_as_numpy(func, dtype):
    """Whole-array /, //, %, ** give NumPy's inf, nan and 0 (and NumPy's int8 for bools, uint64
    exponents past 2**63, and its ValueError for an int to a negative power); INT_MIN // -1
    does not trap."""
    a, b = division_operands(dtype)
    cf = pyjit.njit(func)
    for args in [(a, b), (a, b[len(b) // 2]), (b[0], a), (a[::-1], b[::-1]),
                 (a.reshape(-1, len(DIVISION_VALUES[dtype])).T, b[:len(DIVISION_VALUES[dtype])])]:
        same_as_numpy(outcome(func, *copies(args)), outcome(cf, *copies(args)),
                      (func.__name__, dtype, args))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "uint8"])
@pytest.mark.parametrize("func", [ifloordiv, imod], ids=lambda f: f.__name__)
def test_augmented_array_division_by_zero_as_numpy(func, dtype):
    a, b = division_operands(dtype)
    cf = pyjit.njit(func)
    for args in [(a, b), (a, b.dtype.type(0)), (a[::2], b[::2])]:
        same_as_numpy(outcome(func, *copies(args)), outcome(cf, *copies(args)),
                      (func.__name__, dtype, args))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "int8", "uint8",
                                   "uint64"])
@pytest.mark.parametrize("op", ["/", "//", "%", "**"])
def test_vectorize_division_by_zero_as_numpy(op, dtype):
    kernel = {"/": div, "//": floordiv, "%": mod, "**": power}[op]
    a, b = division_operands(dtype)
    expected = outcome(kernel, a, b)
    if expected[0] != "ok":          # NumPy refuses an int to a negative power, as pyjit does
        sig = f"{dtype}({dtype}, {dtype})"
    else:
        sig = f"{expected[1].dtype}({dtype}, {dtype})"
    got = outcome(pyjit.vectorize([sig])(kernel), a, b)
    same_as_numpy(expected, got, (op, dtype))


def scalar_beside_array(a, x, y):
    return (a // x).sum() + (a % x).sum() + x // y


def test_scalar_division_by_zero_still_raises_beside_array_division():
    cf = pyjit.njit(scalar_beside_array)
    for args in [(np.arange(4.0), 0.0, 1.0), (np.arange(4.0), 2.0, 0.0), (np.arange(4), 0, 1),
                 (np.arange(4), 3, 0), (np.arange(4), 0, 0)]:
        e, g = outcome(scalar_beside_array, *args), outcome(cf, *args)
        if e[0] == "ok":
            assert g[0] == "ok" and (g[1] == e[1] or (math.isnan(g[1]) and math.isnan(e[1]))), \
                (args, e, g)
        else:
            assert g[0] is e[0] is ZeroDivisionError, (args, e, g)


# ---- deeply nested tuples ----------------------------------------------------------------------

def nested(leaf, depth, mixed=False):
    for k in range(depth):
        leaf = (leaf, 0.5 * k, k) if mixed and k % 3 == 0 else (leaf,)
    return leaf


def nested_sources(depth):
    """Functions over tuples nested `depth` deep, in source form (the nesting is in the code)."""
    unpack = "".join(f"    t, y{k} = t\n    s += y{k}\n" for k in range(depth))
    return {
        "identity": "def f(t):\n    return t\n",
        "index": "def f(t):\n    return t" + "[0]" * depth + " + 1\n",
        "negative_index": "def f(t):\n    return t" + "[-1]" * depth + "\n",
        "build": "def f(x):\n    return " + "(" * depth + "x" + ",)" * depth + "\n",
        "unpack": "def f(t):\n    s = 0.0\n" + unpack + "    return t, s\n",
        "through_helper": "def f(t):\n    return helper(t), len(t)\n",
    }


def nested_argument(name, depth):
    if name == "build":
        return 2.5
    if name == "unpack":
        t = 1
        for k in range(depth):
            t = (t, float(k))
        return t
    if name == "through_helper":
        return nested(np.arange(3.0), depth, mixed=True)
    return nested(7, depth, mixed=name == "identity")


@pytest.fixture(scope="module")
def warm_compiler():
    pyjit.njit(lambda t: t)((1, 2.0))     # LLVM's start is not part of the timings


@pytest.mark.parametrize("depth", [20, 30, 40])
@pytest.mark.parametrize("name", ["identity", "index", "negative_index", "build", "unpack",
                                  "through_helper"])
def test_deeply_nested_tuples_are_right_and_fast(warm_compiler, name, depth):
    """As arguments and results, indexed, built, unpacked, passed to a compiled helper: the
    result is CPython's, compiling and the first call take well under a second, a call
    well under a millisecond (the cost is linear in the size of the tuple). The bounds leave
    room for a loaded machine: what they catch is a cost growing with the depth, which takes
    seconds at these depths."""
    ns = dict(helper=pyjit.njit(lambda t: t))
    exec(nested_sources(depth)[name], ns)
    pf = ns["f"]
    arg = nested_argument(name, depth)
    cf = pyjit.njit(pf)
    start = time.perf_counter()
    got = cf(arg)
    first = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(20):
        cf(arg)
    per_call = (time.perf_counter() - start) / 20
    expected = pf(arg)
    if name == "through_helper":
        leaf = got[0]
        for _ in range(depth):
            leaf = leaf[0]
        assert np.array_equal(leaf, np.arange(3.0)) and got[1] == len(arg)
        assert repr(got).replace("array", "") == repr(expected).replace("array", "")
    else:
        assert got == expected and type(got) is type(expected), (got, expected)
    assert first < 2.0, f"compile and first call took {first:.3f} s"
    assert per_call < 5e-3, f"a call took {per_call * 1e6:.0f} us"
