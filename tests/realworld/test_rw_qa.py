"""Real-world patterns: Numba code as users post it in question-and-answer threads and blog
tutorials, restated in our own words with the import switched (the working answers, mostly): a
prime sum through a compiled helper, the `linspace(...) - k` then `astype` question and its
`np.round(x, 0, x)` answer, cumulative sums that reset, EWMA, drawdowns, word and value counts in
dicts, `typed.Dict.empty(unicode_type, float64[:])` filled from Python, the `Bag` jitclass of the
tutorials, Mandelbrot over `complex(x, y)`, `'void(double[:], double[:], double[:])'` signatures,
`@vectorize` with four signatures and its `reduce`/`accumulate`, `@guvectorize` moving means with
a scalar passed as `y[0]`, whole-array reductions in `prange` (`y += x[i]`), structured arrays
read by field, string helpers, sorting and searching questions. Each is compared with CPython
running the same source (the undecorated function) on several inputs, edge cases included.
Question code that Numba rejects too is checked to fail with a message naming its line."""
import math
from types import FunctionType

import numpy as np
import pytest

import pyjit as numba
from pyjit import njit, jit, prange, vectorize, guvectorize, types
from pyjit import int32, int64, float32, float64
from pyjit.typed import Dict, List
from pyjit.errors import CompileError
from util import check, assert_same

RNG = np.random.default_rng(7)


# ---- loops made fast: the tutorials' first examples ----
@njit
def if_prime(x):
    if x <= 1:
        return 0
    elif x <= 3:
        return x
    elif x % 2 == 0 or x % 3 == 0:
        return 0
    i = 5
    while i ** 2 <= x:
        if x % i == 0 or x % (i + 2) == 0:
            return 0
        i += 6
    return x

@njit
def sum_primes(n):
    result = 0
    for i in range(n):
        result += if_prime(i)
    return result

@pytest.mark.parametrize("n", [0, 1, 2, 4, 25, 1000, 20000])
def test_sum_primes(n):
    assert sum_primes(n) == sum(if_prime.py_func(i) for i in range(n))
    check(if_prime.py_func, n, jit=if_prime)

@njit
def sum_numbers(n):
    total = 0
    for i in range(n):
        total += i
    return total

@njit
def monte_carlo_like(n, arr):
    total = 0.0
    for i in range(n):
        x = arr[i % arr.size]
        if x > 0.5:
            total += math.sqrt(x)
        else:
            total -= x * x
    return total / n

@pytest.mark.parametrize("n", [1, 10, 12345])
def test_simple_loops(n):
    check(sum_numbers.py_func, n, jit=sum_numbers)
    check(monte_carlo_like.py_func, n, RNG.random(97), jit=monte_carlo_like)


# ---- "very strange results of astype": linspace minus a constant, then the rounding answer ----
@njit
def linspace_shift_astype(nn):
    x = np.linspace(0, 8 * nn - 1, 8 * nn) - 4 * nn
    return x, x.astype(np.int32)

@njit
def linspace_round_astype(nn):
    x = np.linspace(0, 8 * nn - 1, 8 * nn) - 4 * nn
    np.round(x, 0, x)
    return x.astype(np.int32)

@njit
def round_into(a, decimals, out):
    np.round(a, decimals, out)
    return out

def test_round_into_out():
    a = np.array([[1.256, -2.5], [3.5, 0.049]])
    for decimals in (0, 1, 2, -1):
        check(round_into.py_func, a, decimals, np.empty_like(a), jit=round_into)
        check(round_into.py_func, a, decimals, np.empty((2, 2), np.float32), jit=round_into)
    check(round_into.py_func, np.arange(-7, 7).reshape(2, 7), 0, np.empty((2, 7), np.int64),
          jit=round_into)
    check(round_into.py_func, a, 1, np.empty((2, 3)), jit=round_into)   # NumPy's ValueError

@pytest.mark.parametrize("nn", [1, 3, 7, 50])
def test_linspace_astype(nn):
    check(linspace_shift_astype.py_func, nn, jit=linspace_shift_astype, exact=True)
    check(linspace_round_astype.py_func, nn, jit=linspace_round_astype)


# ---- running quantities over a series ----
@njit
def cumsum_with_reset(a, limit):
    out = np.empty_like(a)
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
        if s >= limit:
            s = 0.0
        out[i] = s
    return out

@njit
def ewma(x, alpha):
    out = np.empty(x.shape[0])
    if x.shape[0] == 0:
        return out
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out

@njit
def max_drawdown(prices):
    peak = prices[0]
    worst = 0.0
    for p in prices:
        if p > peak:
            peak = p
        dd = (peak - p) / peak
        if dd > worst:
            worst = dd
    return worst

@njit
def rolling_mean(a, w):
    n = a.shape[0]
    out = np.full(n, np.nan)
    s = 0.0
    for i in range(n):
        s += a[i]
        if i >= w:
            s -= a[i - w]
        if i >= w - 1:
            out[i] = s / w
    return out

@njit
def consecutive_count(mask):
    out = np.zeros(mask.shape[0], dtype=np.int64)
    run = 0
    for i in range(mask.shape[0]):
        run = run + 1 if mask[i] else 0
        out[i] = run
    return out

@pytest.mark.parametrize("n", [0, 1, 2, 50])
def test_series(n):
    a = RNG.random(n)
    check(cumsum_with_reset.py_func, a, 1.7, jit=cumsum_with_reset)
    check(ewma.py_func, a, 0.3, jit=ewma)
    check(rolling_mean.py_func, a, 3, jit=rolling_mean)
    check(consecutive_count.py_func, a > 0.4, jit=consecutive_count)
    if n:
        check(max_drawdown.py_func, 100 + np.cumsum(a - 0.5), jit=max_drawdown)


# ---- dicts: counting, two-sum, typed dicts filled from Python ----
@njit
def count_values(arr):
    d = dict()
    for x in arr:
        d[x] = d.get(x, 0) + 1
    return d

@njit
def two_sum(nums, target):
    seen = {}
    for i in range(len(nums)):
        want = target - nums[i]
        if want in seen:
            return seen[want], i
        seen[nums[i]] = i
    return -1, -1

@njit
def word_counts(text):
    counts = {}
    for w in text.split():
        w = w.lower()
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    return counts

@njit
def total_by_key(d):
    out = 0.0
    for k, v in d.items():
        out += len(k) * v.sum()
    return out

@njit
def fill_typed_dict(n):
    d = Dict.empty(key_type=types.int64, value_type=types.float64[:])
    for i in range(n):
        d[i] = np.arange(i, dtype=np.float64)
    return d

@pytest.mark.parametrize("arr", [np.array([3, 1, 3, 2, 1, 3]), np.array([], dtype=np.int64),
                                 np.array([5])])
def test_count_values(arr):
    got = count_values(arr)
    assert dict(got) == count_values.py_func(arr)

@pytest.mark.parametrize("nums,target", [(np.array([2, 7, 11, 15]), 9), (np.array([3, 3]), 6),
                                         (np.array([1, 2]), 7), (np.array([], np.int64), 0)])
def test_two_sum(nums, target):
    check(two_sum.py_func, nums, target, jit=two_sum)

@pytest.mark.parametrize("text", ["the cat The dog the end", "", "one", "  a  b   A "])
def test_word_counts(text):
    assert dict(word_counts(text)) == word_counts.py_func(text)

def test_typed_dict_from_python():
    d = Dict.empty(key_type=types.unicode_type, value_type=types.float64[:])
    d["ab"] = np.arange(3.0)
    d["xyz"] = np.ones(4)
    d[""] = np.array([5.0])
    assert total_by_key(d) == total_by_key.py_func(dict(d))
    got = fill_typed_dict(4)
    exp = fill_typed_dict.py_func(4)   # a typed Dict filled by the interpreter
    assert sorted(got.keys()) == sorted(exp)
    for k in exp:
        assert_same(exp[k], got[k])


# ---- "pass parameters as a dict": string keys, values of mixed types (LiteralStrKeyDict) ----
@njit
def simulate_with_params(n):
    params = {"steps": n, "dt": 0.1, "label": "euler", "x0": np.ones(3)}
    x = params["x0"].copy()
    for _ in range(params["steps"]):
        x += params["dt"] * x
    return x, params["label"], "dt" in params, "gamma" not in params, len(params)

@njit
def make_config(n):
    return {"n": n, "scale": n / 2, "name": "cfg", "grid": np.zeros((n, 2))}

@njit
def params_total(p):
    return p["steps"] * p["dt"] + p["x0"].sum()

@njit
def choose_params(n):
    if n > 1:
        p = {"steps": n, "dt": 0.5, "label": "fine", "x0": np.ones(2)}
    else:
        p = {"steps": 1, "dt": 1.0, "label": "coarse", "x0": np.zeros(2)}
    return params_total(p), p["label"]

@pytest.mark.parametrize("n", [0, 1, 5])
def test_literal_str_key_dict(n):
    check(simulate_with_params.py_func, n, jit=simulate_with_params)
    # the same source in CPython, with its helper interpreted too
    interpreted = FunctionType(choose_params.py_func.__code__,
                               dict(globals(), params_total=params_total.py_func))
    assert choose_params(n) == interpreted(n)
    got, exp = make_config(n), make_config.py_func(n)
    assert type(got) is dict and list(got) == list(exp)
    for k in exp:
        assert_same(exp[k], got[k])


# ---- the tutorials' jitclass ----
spec = [("value", int32), ("array", float32[:])]

class BagPy(object):
    def __init__(self, value):
        self.value = value
        self.array = np.zeros(value, dtype=np.float32)

    @property
    def size(self):
        return self.array.size

    def increment(self, val):
        for i in range(self.size):
            self.array[i] += val
        return self.array

    @staticmethod
    def add(x, y):
        return x + y

Bag = numba.experimental.jitclass(spec)(type("Bag", (object,), dict(BagPy.__dict__)))

@njit
def use_bag(n):
    b = Bag(n)
    b.increment(1.5)
    b.increment(2)
    return b.array.sum(), b.size, Bag.add(b.value, 3)

@pytest.mark.parametrize("n", [0, 1, 21])
def test_bag(n):
    b, p = Bag(n), BagPy(n)
    assert_same(p.increment(3), b.increment(3))
    assert b.size == p.size and b.value == p.value
    assert use_bag(n) == (np.float32(n * 3.5), n, n + 3)


# ---- Mandelbrot and a signature spelt with C names ----
@jit
def mandel(x, y, max_iters):
    i = 0
    c = complex(x, y)
    z = 0.0j
    for i in range(max_iters):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i
    return 255

@njit
def mandel_image(xs, ys, iters):
    img = np.zeros((ys.size, xs.size), dtype=np.uint8)
    for r in range(ys.size):
        for c in range(xs.size):
            img[r, c] = mandel(xs[c], ys[r], iters)
    return img

@jit('void(double[:], double[:], double[:])', nopython=True, nogil=True)
def inner_func_nb(result, a, b):
    for i in range(len(result)):
        result[i] = np.exp(2.1 * a[i] + 3.2 * b[i])

def test_mandelbrot():
    xs, ys = np.linspace(-2, 1, 31), np.linspace(-1.2, 1.2, 17)
    check(mandel_image.py_func, xs, ys, 40, jit=mandel_image)
    assert mandel(0.0, 0.0, 20) == 255 and mandel(2.0, 2.0, 20) == 0

@pytest.mark.parametrize("n", [0, 1, 100])
def test_double_signature(n):
    a, b = RNG.random(n), RNG.random(n)
    r1, r2 = np.zeros(n), np.zeros(n)
    inner_func_nb(r1, a, b)
    inner_func_nb.py_func(r2, a, b)
    assert_same(r2, r1)


# ---- vectorize with several signatures, reduce and accumulate ----
@vectorize([int32(int32, int32), int64(int64, int64), float32(float32, float32),
            float64(float64, float64)])
def vadd(x, y):
    return x + y

@vectorize(["float64(float64, float64, float64)"])
def weighted_avg(x, y, weight):
    return x * weight + y * (1 - weight)

@vectorize
def relu(x):
    return x if x > 0 else 0.0

def test_vectorize_signatures():
    a = np.arange(6)
    assert_same(a + a, vadd(a, a))
    b = np.linspace(0, 1, 6)
    assert_same(b + b, vadd(b, b))
    f = np.arange(4, dtype=np.float32)
    assert_same(f + f, vadd(f, f))
    m = np.arange(12).reshape(3, 4)
    assert_same(np.add.reduce(m, axis=0), vadd.reduce(m, axis=0))
    assert_same(np.add.reduce(m, axis=1), vadd.reduce(m, axis=1))
    assert_same(np.add.accumulate(m), vadd.accumulate(m))
    assert_same(np.add.accumulate(m, axis=1), vadd.accumulate(m, axis=1))
    x, y, w = np.array([1.5, 2.7, 3.9]), np.array([4.1, 5.3, 6.5]), np.array([0.3, 0.5, 0.7])
    assert_same(x * w + y * (1 - w), weighted_avg(x, y, w))
    z = np.array([-1.0, 0.0, 2.5, -3.0])
    assert_same(np.where(z > 0, z, 0.0), relu(z))
    with pytest.raises(TypeError):
        vadd(np.linspace(0, 1 + 1j, 6), np.linspace(0, 1 + 1j, 6))


# ---- guvectorize: the tutorial's `g` and moving mean ----
@guvectorize([(int64[:], int64[:], int64[:])], "(n),()->(n)")
def g(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y[0]

def move_mean_py(a, window_arr, out):
    window_width = window_arr[0]
    asum = 0.0
    count = 0
    for i in range(window_width):
        asum += a[i]
        count += 1
        out[i] = asum / count
    for i in range(window_width, len(a)):
        asum += a[i] - a[i - window_width]
        out[i] = asum / count

move_mean = guvectorize([(float64[:], int64[:], float64[:])], "(n),()->(n)")(move_mean_py)

def _move_mean_py(arr, w):
    out = np.empty_like(arr)
    for row in np.ndindex(arr.shape[:-1]):
        move_mean_py(arr[row], np.array([w]), out[row])
    return out

def test_guvectorize_tutorial():
    a = np.arange(6)
    assert_same(a + 10, g(a, 10))
    b = np.arange(6).reshape(2, 3)
    assert_same(b + 10, g(b, 10))
    assert_same(b + np.array([[10], [20]]), g(b, np.array([10, 20])))
    arr = np.arange(20, dtype=np.float64).reshape(2, 10)
    for w in (1, 3, 10):
        assert_same(_move_mean_py(arr, w), move_mean(arr, w))


# ---- prange: the race question and its whole-array answer ----
@njit(parallel=True)
def prange_array_reduce(x):
    n = x.shape[0]
    y = np.zeros(4)
    for i in prange(n):
        y += x[i]
    return y

@njit(parallel=True)
def parallel_sum(arr):
    total = 0.0
    for i in prange(arr.size):
        total += arr[i]
    return total

@njit(parallel=True)
def row_norms(X):
    out = np.empty(X.shape[0])
    for i in prange(X.shape[0]):
        out[i] = np.sqrt(np.sum(X[i] ** 2))
    return out

@pytest.mark.parametrize("n", [0, 1, 1000])
def test_prange(n):
    x = np.ones(n)
    check(prange_array_reduce.py_func, x, jit=prange_array_reduce)
    check(prange_array_reduce.py_func, np.arange(n * 4.0).reshape(n, 4), jit=prange_array_reduce)
    check(parallel_sum.py_func, np.arange(float(n)), jit=parallel_sum)
    check(row_norms.py_func, RNG.random((n, 3)), jit=row_norms)


# ---- structured arrays read by field ----
rec_dt = np.dtype([("x", np.float64), ("y", np.float64), ("tag", np.int32)])

@njit
def rec_distance(points):
    out = np.empty(points.shape[0])
    for i in range(points.shape[0]):
        p = points[i]
        out[i] = math.hypot(p["x"], p["y"])
    return out

@njit
def rec_sum_tagged(points, tag):
    s = 0.0
    for i in range(len(points)):
        if points[i]["tag"] == tag:
            s += points["x"][i]
    return s

@njit
def rec_shift(points, dx):
    for p in points:
        p["x"] += dx
    return points["x"].copy()

@pytest.mark.parametrize("n", [0, 1, 9])
def test_structured(n):
    pts = np.zeros(n, dtype=rec_dt)
    pts["x"], pts["y"], pts["tag"] = RNG.random(n), RNG.random(n), np.arange(n) % 3
    assert_same(rec_distance.py_func(pts), rec_distance(pts))
    assert_same(rec_sum_tagged.py_func(pts, 1), rec_sum_tagged(pts, 1))
    p1, p2 = pts.copy(), pts.copy()
    assert_same(rec_shift.py_func(p1, 2.5), rec_shift(p2, 2.5))
    assert p1.tobytes() == p2.tobytes()


# ---- strings ----
@njit
def count_vowels(s):
    n = 0
    for ch in s:
        if ch in "aeiouAEIOU":
            n += 1
    return n

@njit
def reverse_words(s):
    return " ".join(s.split(" ")[::-1])

@njit
def is_palindrome(s):
    t = ""
    for ch in s.lower():
        if ch.isalnum():
            t += ch
    return t == t[::-1]

@njit
def levenshtein(a, b):
    m, n = len(a), len(b)
    d = np.zeros((m + 1, n + 1), dtype=np.int64)
    for i in range(m + 1):
        d[i, 0] = i
    for j in range(n + 1):
        d[0, j] = j
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[m, n]

@njit
def csv_floats(line):
    out = []
    for field in line.split(","):
        field = field.strip()
        if field:
            out.append(float(field))
    return out

@njit
def startswith_count(words, prefix):
    n = 0
    for w in words:
        if w.startswith(prefix):
            n += 1
    return n

@pytest.mark.parametrize("s", ["", "a", "Hello World", "A man, a plan, a canal: Panama",
                               "héllo wörld", "abc cba"])
def test_strings(s):
    check(count_vowels.py_func, s, jit=count_vowels)
    check(reverse_words.py_func, s, jit=reverse_words)
    check(is_palindrome.py_func, s, jit=is_palindrome)
    check(levenshtein.py_func, s, "kitten sitting", jit=levenshtein)

@pytest.mark.parametrize("line", ["1.5, 2, -3e2", "", "7", " 1 ,, 2 "])
def test_csv_floats(line):
    check(csv_floats.py_func, line, jit=csv_floats)

def test_typed_list_of_words():
    words = List(["apple", "apricot", "banana", "", "ap"])
    assert startswith_count(words, "ap") == startswith_count.py_func(list(words), "ap")


# ---- sorting, searching, ranking ----
@njit
def bubble_sort(arr):
    n = len(arr)
    for i in range(n):
        for j in range(0, n - i - 1):
            if arr[j] > arr[j + 1]:
                arr[j], arr[j + 1] = arr[j + 1], arr[j]
    return arr

@njit
def ranks(x):
    return np.argsort(np.argsort(x))

@njit
def top_k(x, k):
    idx = np.argsort(x)[::-1][:k]
    return idx, x[idx]

@njit
def binary_search(arr, v):
    lo, hi = 0, len(arr) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if arr[mid] == v:
            return mid
        elif arr[mid] < v:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1

@njit
def bin_values(x, edges):
    return np.searchsorted(edges, x, side="right") - 1

@njit
def unique_sorted(a):
    return np.unique(a)

@njit
def unique_set_count(a):
    return len(set(a))

@pytest.mark.parametrize("n", [0, 1, 2, 17])
def test_sorting(n):
    a = RNG.integers(-5, 5, n)
    check(bubble_sort.py_func, a.copy(), jit=bubble_sort)
    check(ranks.py_func, RNG.permutation(n).astype(np.float64), jit=ranks)
    check(top_k.py_func, RNG.permutation(n) * 1.5, 3, jit=top_k)
    s = np.sort(RNG.choice(100, n, replace=False))
    for v in (-1, 50) + tuple(s[:2]):
        check(binary_search.py_func, s, v, jit=binary_search)
    check(bin_values.py_func, RNG.random(n) * 10, np.arange(0.0, 11.0, 2.5), jit=bin_values)
    check(unique_sorted.py_func, a, jit=unique_sorted)
    check(unique_set_count.py_func, a, jit=unique_set_count)


# ---- array questions: masks, axis sums, tuples of arrays, distances ----
@njit
def filter_greater(arr, t):
    return arr[arr > t]

@njit
def col_row_sums(a):
    return np.sum(a, axis=0), np.sum(a, axis=1), a.sum()

@njit
def pairwise_dist(X):
    n = X.shape[0]
    D = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(X.shape[1]):
                t = X[i, k] - X[j, k]
                s += t * t
            D[i, j] = np.sqrt(s)
    return D

@njit
def matmul_loops(A, B):
    C = np.zeros((A.shape[0], B.shape[1]))
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            for j in range(B.shape[1]):
                C[i, j] += A[i, k] * B[k, j]
    return C

@njit
def min_max(a):
    lo = hi = a[0]
    for v in a[1:]:
        if v < lo:
            lo = v
        elif v > hi:
            hi = v
    return lo, hi

@njit
def life_step(grid):
    n, m = grid.shape
    new = np.zeros_like(grid)
    for i in range(n):
        for j in range(m):
            s = 0
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    if di or dj:
                        s += grid[(i + di) % n, (j + dj) % m]
            if grid[i, j] and (s == 2 or s == 3):
                new[i, j] = 1
            elif not grid[i, j] and s == 3:
                new[i, j] = 1
    return new

@njit
def histogram_counts(x, bins):
    return np.histogram(x, bins=bins)

@njit
def interp_diff(xp, fp, x):
    y = np.interp(x, xp, fp)
    return np.diff(y), np.cumsum(y)

@njit
def trapezoid(y, x):
    s = 0.0
    for i in range(1, len(x)):
        s += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2
    return s

@pytest.mark.parametrize("n", [1, 2, 9])
def test_arrays(n):
    a = RNG.random(n)
    check(filter_greater.py_func, a, 0.5, jit=filter_greater)
    m = RNG.integers(0, 9, (n, 3))
    check(col_row_sums.py_func, m, jit=col_row_sums)
    check(pairwise_dist.py_func, RNG.random((n, 3)), jit=pairwise_dist)
    check(matmul_loops.py_func, RNG.random((n, 4)), RNG.random((4, 2)), jit=matmul_loops)
    check(min_max.py_func, a, jit=min_max)
    check(life_step.py_func, RNG.integers(0, 2, (n + 3, 5)).astype(np.uint8), jit=life_step)
    check(histogram_counts.py_func, a, 4, jit=histogram_counts)
    xp = np.sort(RNG.random(n + 1))
    check(interp_diff.py_func, xp, xp ** 2, np.linspace(-0.1, 1.1, 7), jit=interp_diff)
    x = np.linspace(0, 1, n + 1)
    check(trapezoid.py_func, x ** 2, x, jit=trapezoid)


# ---- functions passed around, recursion, complex roots ----
@njit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

@njit
def square(x):
    return x * x

@njit
def apply_sum(f, arr):
    s = 0.0
    for v in arr:
        s += f(v)
    return s

@njit
def quad_roots(a, b, c):
    d = b * b - 4 * a * c
    sq = np.sqrt(complex(d))
    return (-b + sq) / (2 * a), (-b - sq) / (2 * a)

@njit
def any_negative(a):
    for v in a:
        if v < 0:
            return True
    return False

@pytest.mark.parametrize("n", [0, 1, 15])
def test_functions(n):
    check(fib.py_func, n, jit=fib)
    arr = np.arange(float(n))
    assert apply_sum(square, arr) == apply_sum.py_func(square.py_func, arr)
    check(any_negative.py_func, arr - 3, jit=any_negative)

@pytest.mark.parametrize("abc", [(1.0, -3.0, 2.0), (1.0, 2.0, 5.0), (2.0, 4.0, 2.0)])
def test_quad_roots(abc):
    check(quad_roots.py_func, *abc, jit=quad_roots)


# ---- question code that Numba rejects as well: a clear error naming the line ----
def retyped_variable(n):
    x = 1
    for i in range(n):
        x = "a"                      # int then str: cannot be unified
    return x

def ragged_list_array(n):
    rows = [[1.0, 2.0], [3.0]]
    return np.array(rows) * n

def call_python_object(n):
    return object()

def mixed_value_dict_loop(n):
    d = {"count": n, "name": "run"}
    for k in d:
        n += 1
    return n

def mixed_value_dict_store(n):
    d = {"count": n, "name": "run"}
    d["count"] = n + 1
    return d["count"]

def test_question_code_rejected():
    with pytest.raises(CompileError, match=r"'x' is int64 at line \d+ and string.* at line \d+"):
        njit(retyped_variable)(3)
    # a ragged nested list: NumPy's own ValueError at run time, as CPython raises it
    check(ragged_list_array, 2)
    # a literal dict of mixed values is read-only and cannot be looped over, in Numba as here
    with pytest.raises(CompileError, match=r"cannot be changed(.|\n)*line \d+"):
        njit(mixed_value_dict_store)(2)
    with pytest.raises(CompileError, match=r"a loop over it has no one item type(.|\n)*line \d+"):
        njit(mixed_value_dict_loop)(2)
    with pytest.raises(CompileError, match="object"):
        njit(call_python_object)(1)
