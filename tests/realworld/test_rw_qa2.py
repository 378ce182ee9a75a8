"""Real-world patterns, continued: more Numba code from question-and-answer threads and blog
tutorials, the import switched: seeded `np.random` streams, broadcasting with `a[:, None]`,
rows sorted by a column, `np.where(cond)` as a tuple, stacking and concatenating, a sieve, list
comprehensions turned into arrays, `sorted(key=lambda ...)`, tuples as dict keys, `heapq`,
generators summed, closures made by a factory, errors raised from compiled code, explicit
contiguous signatures (`'float64[:, ::1](float64[:, ::1])'`), `fastmath`, a DFT through `cmath`,
`np.convolve`, the linear algebra users reach for, and typed Lists of tuples and arrays. Each is
compared with CPython running the same source on several inputs, edge cases included."""
import cmath
import heapq
import math

import numpy as np
import pytest

import pyjit as numba
from pyjit import njit, prange, types
from pyjit.typed import List
from util import check, assert_same

RNG = np.random.default_rng(11)


# ---- seeded random streams: the same numbers as NumPy's legacy generator ----
@njit
def seeded_uniform(seed, n):
    np.random.seed(seed)
    return np.random.random(n)

@njit
def seeded_randint(seed, n):
    np.random.seed(seed)
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = np.random.randint(0, 10)
    return out

@njit
def seeded_normal(seed, n):
    np.random.seed(seed)
    return np.random.normal(0.0, 2.0, n)

@njit
def seeded_shuffle(seed, n):
    np.random.seed(seed)
    a = np.arange(n)
    np.random.shuffle(a)
    return a

@pytest.mark.parametrize("seed,n", [(0, 1), (42, 10), (123, 0)])
def test_seeded(seed, n):
    for f in (seeded_uniform, seeded_randint, seeded_normal, seeded_shuffle):
        check(f.py_func, seed, n, jit=f)


# ---- broadcasting and indexing questions ----
@njit
def pairwise_diff(a, b):
    return a[:, None] - b[None, :]

@njit
def sort_rows_by_col(a, col):
    return a[np.argsort(a[:, col])]

@njit
def where_indices(a, t):
    idx = np.where(a > t)
    return idx[0], idx[1]

@njit
def nonzero_count(a):
    return len(np.nonzero(a)[0])

@njit
def stack_things(a, b):
    return np.concatenate((a, b)), np.vstack((a, b)), np.hstack((a, b)), np.stack((a, b), axis=1)

@njit
def reshape_pairs(a):
    return a.reshape(-1, 2).sum(axis=1)

@njit
def flip_copy(a):
    return a[::-1].copy(), np.flip(a)

@njit
def expand(a):
    return np.expand_dims(a, 0), np.expand_dims(a, 1)

@pytest.mark.parametrize("n", [1, 2, 8])
def test_broadcast_index(n):
    a, b = RNG.random(n), RNG.random(n + 1)
    check(pairwise_diff.py_func, a, b, jit=pairwise_diff)
    m = RNG.random((n, 3))
    check(sort_rows_by_col.py_func, m, 1, jit=sort_rows_by_col)
    check(where_indices.py_func, m, 0.5, jit=where_indices)
    check(nonzero_count.py_func, (m > 0.5).astype(np.int64), jit=nonzero_count)
    check(stack_things.py_func, a, a * 2, jit=stack_things)
    check(reshape_pairs.py_func, np.arange(2.0 * n), jit=reshape_pairs)
    check(flip_copy.py_func, a, jit=flip_copy)
    check(expand.py_func, a, jit=expand)


# ---- lists, comprehensions, sorting by key ----
@njit
def sieve(n):
    is_p = np.ones(n + 1, dtype=np.bool_)
    is_p[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_p[i]:
            is_p[i * i::i] = False
    return np.nonzero(is_p)[0]

@njit
def squares_array(n):
    return np.array([x ** 2 for x in range(n)])

@njit
def sort_by_second(pairs):
    return sorted(pairs, key=lambda p: p[1])

@njit
def sort_desc(lst):
    lst.sort(reverse=True)
    return lst

@njit
def builtin_reductions(arr):
    lst = [v for v in arr]
    return max(arr), min(arr), sum(lst), len(lst)

@njit
def enumerate_zip(a, b):
    out = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        out += i * x * y
    return out

@pytest.mark.parametrize("n", [2, 3, 30])
def test_lists(n):
    check(sieve.py_func, n, jit=sieve)
    check(squares_array.py_func, n, jit=squares_array)
    pairs = [(i, float((i * 7) % 5)) for i in range(n)]
    check(sort_by_second.py_func, pairs, jit=sort_by_second)
    check(sort_desc.py_func, [int(v) for v in RNG.integers(0, 50, n)], jit=sort_desc)
    check(builtin_reductions.py_func, RNG.random(n), jit=builtin_reductions)
    check(enumerate_zip.py_func, RNG.random(n), RNG.random(n), jit=enumerate_zip)


# ---- dict keys of tuples, sets, heapq, strings built up ----
@njit
def grid_counts(xs, ys):
    d = {}
    for x, y in zip(xs, ys):
        key = (int(x), int(y))
        d[key] = d.get(key, 0) + 1
    best = (0, 0)
    most = 0
    for k, v in d.items():
        if v > most or (v == most and k < best):
            most, best = v, k
    return best, most, len(d)

@njit
def common_elements(a, b):
    return sorted(set(a) & set(b))

@njit
def k_smallest(a, k):
    h = [(a[0], 0)]
    h.pop()
    for i in range(len(a)):
        heapq.heappush(h, (a[i], i))
    out = []
    for _ in range(min(k, len(h))):
        out.append(heapq.heappop(h)[1])
    return out

@njit
def label_items(n):
    out = []
    for i in range(n):
        out.append("item_" + str(i))
    return ",".join(out)

@njit
def parse_ints(s):
    total = 0
    for tok in s.split(";"):
        if tok.isdigit():
            total += int(tok)
    return total

@pytest.mark.parametrize("n", [1, 5, 40])
def test_dicts_sets(n):
    xs, ys = RNG.random(n) * 3, RNG.random(n) * 3
    check(grid_counts.py_func, xs, ys, jit=grid_counts)
    a, b = RNG.integers(0, 10, n), RNG.integers(0, 10, n)
    check(common_elements.py_func, a, b, jit=common_elements)
    check(k_smallest.py_func, RNG.random(n), 3, jit=k_smallest)
    check(label_items.py_func, n, jit=label_items)

@pytest.mark.parametrize("s", ["1;2;3", "", "12;x;;7", "5"])
def test_parse_ints(s):
    check(parse_ints.py_func, s, jit=parse_ints)


# ---- generators, closures, exceptions ----
@njit
def squares_gen(n):
    for i in range(n):
        yield i * i

@njit
def sum_squares_gen(n):
    total = 0
    for v in squares_gen(n):
        total += v
    return total

def make_scaler(factor):
    @njit
    def scale(arr):
        return arr * factor
    return scale

@njit
def safe_log(x):
    if x <= 0:
        raise ValueError("x must be positive")
    return math.log(x)

@njit
def checked_mean(a):
    if a.size == 0:
        raise ZeroDivisionError("empty input")
    return a.sum() / a.size

@pytest.mark.parametrize("n", [0, 1, 10])
def test_gen_closure_raise(n):
    check(sum_squares_gen.py_func, n, jit=sum_squares_gen)
    f = make_scaler(2.5)
    a = np.arange(float(n))
    assert_same(a * 2.5, f(a))
    check(safe_log.py_func, float(n), jit=safe_log)
    check(checked_mean.py_func, a, jit=checked_mean)
    with pytest.raises(ValueError, match="x must be positive"):
        safe_log(-1.0)


# ---- signatures, fastmath, complex, convolve, linear algebra ----
@njit("float64[:, ::1](float64[:, ::1])")
def normalise_rows(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] / s
    return out

@njit(fastmath=True)
def dot_fast(a, b):
    s = 0.0
    for i in range(a.size):
        s += a[i] * b[i]
    return s

@njit
def dft(x):
    n = x.shape[0]
    out = np.zeros(n, dtype=np.complex128)
    for k in range(n):
        for t in range(n):
            out[k] += x[t] * cmath.exp(-2j * cmath.pi * k * t / n)
    return out

@njit
def smooth(x, w):
    kernel = np.ones(w) / w
    return np.convolve(x, kernel)

@njit
def lstsq_line(x, y):
    A = np.empty((x.size, 2))
    A[:, 0] = x
    A[:, 1] = 1.0
    coef = np.linalg.solve(A.T @ A, A.T @ y)
    return coef

@njit
def inv_det(m):
    return np.linalg.inv(m), np.linalg.det(m)

@njit
def norms(a):
    return np.linalg.norm(a), np.sqrt((a ** 2).sum())

@pytest.mark.parametrize("n", [2, 5])
def test_numeric(n):
    m = RNG.random((n, 4)) + 0.1
    check(normalise_rows.py_func, m, jit=normalise_rows)
    a, b = RNG.random(n), RNG.random(n)
    check(dot_fast.py_func, a, b, jit=dot_fast)
    check(dft.py_func, a, jit=dft)
    assert_same(np.fft.fft(a), dft(a), rtol=1e-9, atol=1e-12)
    check(smooth.py_func, RNG.random(n + 5), 3, jit=smooth)
    x = np.linspace(0, 1, n + 3)
    check(lstsq_line.py_func, x, 2 * x + 1 + RNG.random(n + 3) * 0.01, jit=lstsq_line)
    check(inv_det.py_func, RNG.random((n, n)) + np.eye(n) * n, jit=inv_det)
    check(norms.py_func, a, jit=norms)


# ---- typed Lists of tuples and of arrays built in compiled code ----
edge_ty = types.UniTuple(types.int64, 2)   # the answer: the type built outside the function

@njit
def edges_list(n):
    out = List.empty_list(edge_ty)
    for i in range(n):
        for j in range(i + 1, n):
            if (i + j) % 3 == 0:
                out.append((i, j))
    return out

@njit
def split_runs(a):
    runs = List()
    start = 0
    for i in range(1, a.size + 1):
        if i == a.size or a[i] != a[i - 1] + 1:
            runs.append(a[start:i].copy())
            start = i
    return runs

def edges_list_question(n):
    out = List.empty_list(types.UniTuple(types.int64, 2))
    out.append((n, n))
    return out

def test_type_built_inside_rejected():
    # Numba refuses this as well ("Cannot type types.Tuple"); the message says what to do
    with pytest.raises(numba.errors.TypingError,
                       match=r"UniTuple\(...\) is not supported in compiled code: build the type "
                             r"outside the function(.|\n)*line \d+"):
        njit(edges_list_question)(1)

@pytest.mark.parametrize("n", [1, 6])
def test_typed_lists(n):
    assert list(edges_list(n)) == [(i, j) for i in range(n) for j in range(i + 1, n)
                                   if (i + j) % 3 == 0]
    a = np.array([1, 2, 3, 7, 8, 10][:n])
    got, exp = split_runs(a), split_runs.py_func(a)
    assert len(got) == len(exp)
    for g, e in zip(got, exp):
        assert_same(e, g)


# ---- prange over a 2-d output and a reduction with a condition ----
@njit(parallel=True)
def blur_rows(img):
    out = np.zeros_like(img)
    for i in prange(img.shape[0]):
        for j in range(1, img.shape[1] - 1):
            out[i, j] = (img[i, j - 1] + img[i, j] + img[i, j + 1]) / 3
    return out

@njit(parallel=True)
def count_above(a, t):
    c = 0
    for i in prange(a.size):
        if a[i] > t:
            c += 1
    return c

@pytest.mark.parametrize("n", [1, 4, 64])
def test_prange2(n):
    check(blur_rows.py_func, RNG.random((n, 7)), jit=blur_rows)
    check(count_above.py_func, RNG.random(n), 0.3, jit=count_above)


# ---- more seeded draws (NumPy's legacy algorithms) ----
@njit
def seeded_draws(seed, n):
    np.random.seed(seed)
    a = np.random.rand(n, 2)
    b = np.random.randn(n)
    c = np.random.uniform(-1.0, 3.0, n)
    d = np.random.choice(10, 3, replace=False)
    e = np.random.exponential(2.0, n)
    f = np.random.poisson(3.5, n)
    g = np.random.binomial(10, 0.3, n)
    return a, b, c, d, e, f, g

@pytest.mark.parametrize("seed,n", [(1, 1), (2024, 6)])
def test_seeded_draws(seed, n):
    check(seeded_draws.py_func, seed, n, jit=seeded_draws)


# ---- strings, characters, formatting by hand ----
@njit
def caesar(s, k):
    out = ""
    for ch in s:
        if "a" <= ch <= "z":
            out += chr((ord(ch) - ord("a") + k) % 26 + ord("a"))
        elif "A" <= ch <= "Z":
            out += chr((ord(ch) - ord("A") + k) % 26 + ord("A"))
        else:
            out += ch
    return out

@njit
def str_methods(s):
    return (s.find("lo"), s.replace("l", "L"), s.count("l"), s.zfill(12), s.center(15, "*"),
            s.upper().strip(), s.rfind("o"), s.title(), s.endswith("d"))

@njit
def longest_word(words):
    best = ""
    for w in words:
        if len(w) > len(best) or (len(w) == len(best) and w < best):
            best = w
    return best, max(words), min(words)

@pytest.mark.parametrize("s", ["hello world", "", "Zebra-42 lol", "ll"])
def test_string_methods(s):
    check(caesar.py_func, s, 3, jit=caesar)
    check(caesar.py_func, s, -30, jit=caesar)
    check(str_methods.py_func, s, jit=str_methods)

def test_longest_word():
    ws = ["pear", "fig", "banana", "cherry", "kiwi"]
    check(longest_word.py_func, ws, jit=longest_word)


# ---- integers: bits, floor division, divmod, gcd, rounding ----
@njit
def popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c

@njit
def int_ops(a, b):
    return a // b, a % b, divmod(a, b), math.gcd(a, b), -a // b, a >> 2, a << 3, a ^ b

@njit
def round_builtin(x):
    return round(x), round(x, 2), round(x, -1), int(x), math.floor(x), math.ceil(x)

@njit
def xorshift64(state, n):
    out = np.empty(n, dtype=np.uint64)
    x = np.uint64(state)
    for i in range(n):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        out[i] = x
    return out

@pytest.mark.parametrize("a,b", [(17, 5), (-17, 5), (17, -5), (0, 3), (2 ** 40 + 3, 12)])
def test_ints(a, b):
    check(popcount.py_func, abs(a), jit=popcount)
    check(int_ops.py_func, a, b, jit=int_ops)

@pytest.mark.parametrize("x", [2.5, 3.5, -2.675, 1234.5678, -0.4, 0.0])
def test_round_builtin(x):
    check(round_builtin.py_func, x, jit=round_builtin)

def test_xorshift():
    check(xorshift64.py_func, 88172645463325252, 5, jit=xorshift64)


# ---- statistics, fancy indexing, axes ----
@njit
def stats(a):
    return (np.median(a), np.percentile(a, 90), np.quantile(a, 0.25), np.std(a), np.var(a),
            np.mean(a))

@njit
def corr(x, y):
    return np.corrcoef(x, y)[0, 1], np.cov(x, y)

@njit
def fancy(a, idx, mask):
    b = a.copy()
    b[idx] = -1.0
    b[mask] = 0.0
    return a[idx], b, a[np.array([0, -1])]

@njit
def axis_ops(m):
    return np.argmax(m, axis=1), m.sum(axis=0), np.all(np.diff(m[0]) >= 0), np.count_nonzero(m > 0.5)

@njit
def is_sorted_while(a):
    i = 1
    while i < a.size:
        if a[i - 1] > a[i]:
            break
        i += 1
    else:
        return True
    return False

@njit
def grid_list(n, m):
    g = [[0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            g[i][j] = i * m + j
    return g

@pytest.mark.parametrize("n", [1, 4, 11])
def test_stats_indexing(n):
    a = RNG.random(n)
    check(stats.py_func, a, jit=stats)
    if n > 1:
        check(corr.py_func, a, a ** 2 + RNG.random(n) * 0.1, jit=corr)
    idx = np.array([0, n - 1])
    check(fancy.py_func, a, idx, a > 0.5, jit=fancy)
    check(axis_ops.py_func, RNG.random((n, 3)), jit=axis_ops)
    check(is_sorted_while.py_func, np.sort(a), jit=is_sorted_while)
    check(is_sorted_while.py_func, a[::-1].copy(), jit=is_sorted_while)
    check(grid_list.py_func, n, 3, jit=grid_list)


# ---- a recursive quicksort in place, a nested typed container, mixed returns ----
@njit
def quicksort(a, lo, hi):
    if lo < hi:
        p = a[hi]
        i = lo
        for j in range(lo, hi):
            if a[j] < p:
                a[i], a[j] = a[j], a[i]
                i += 1
        a[i], a[hi] = a[hi], a[i]
        quicksort(a, lo, i - 1)
        quicksort(a, i + 1, hi)

list_ty = types.ListType(types.int64)

@njit
def group_indices(labels):
    d = numba.typed.Dict.empty(types.int64, list_ty)
    for i in range(labels.size):
        k = labels[i]
        if k not in d:
            d[k] = List.empty_list(types.int64)
        d[k].append(i)
    return d

@njit
def summary(a):
    return a.size, float(a.sum()), (a.min(), a.max()), a > a.mean()

@pytest.mark.parametrize("n", [0, 1, 2, 25])
def test_recursion_nested(n):
    a = RNG.integers(-9, 9, n)
    b, c = a.copy(), a.copy()
    quicksort(b, 0, n - 1)
    quicksort.py_func(c, 0, n - 1)
    assert_same(c, b)
    labels = RNG.integers(0, 4, n)
    got = group_indices(labels)
    exp = {}
    for i, k in enumerate(labels):
        exp.setdefault(int(k), []).append(i)
    assert {int(k): list(v) for k, v in got.items()} == exp
    if n:
        check(summary.py_func, RNG.random(n), jit=summary)


# ---- Python's random module, f-strings, dates ----
import random

@njit
def py_random(seed, n):
    random.seed(seed)
    out = np.empty(n)
    for i in range(n):
        out[i] = random.random() + random.uniform(1.0, 3.0)
    return out

def np_random_stream(seed, n):
    # Numba's random.seed(int) seeds the generator NumPy's np.random.seed(int) does (not
    # CPython's random module's), so the stream to compare with is NumPy's legacy one
    np.random.seed(seed)
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.random() + np.random.uniform(1.0, 3.0)
    return out

@njit
def fstring_label(i, name):
    return f"{name}-{i}"

@njit
def next_day(d):
    return d + np.timedelta64(1, "D"), (d - np.datetime64("2020-01-01")) / np.timedelta64(1, "D")

@njit
def days_between(dates):
    return (dates[1:] - dates[:-1]).astype(np.int64)

def test_random_fstring_dates():
    for seed, n in ((0, 3), (7, 1)):
        assert_same(np_random_stream(seed, n), py_random(seed, n))
    check(fstring_label.py_func, 3, "run", jit=fstring_label)
    d = np.datetime64("2021-03-01")
    got, exp = next_day(d), next_day.py_func(d)
    assert got[0] == exp[0] and got[1] == exp[1]
    dates = np.array(["2020-01-01", "2020-01-05", "2020-03-01"], dtype="datetime64[D]")
    assert_same(days_between.py_func(dates), days_between(dates))


# ---- error models, dtype strings, array creation ----
@njit(error_model="numpy")
def ratio_numpy(a, b):
    return a / b

@njit
def ratio_python(a, b):
    return a / b

@njit
def creations(n):
    return (np.zeros(n, "i8"), np.array([1, 2, 3], dtype=np.float32), np.ones(n).astype("float32"),
            np.full((2, n), np.nan), np.eye(n, k=1), np.identity(n), np.arange(0, 1, 0.1),
            np.triu(np.ones((n, n))), np.diag(np.arange(n)), np.roll(np.arange(n), 2))

def test_creation_errors():
    assert np.isinf(ratio_numpy(1.0, 0.0))
    check(ratio_python.py_func, 1.0, 0.0, jit=ratio_python)
    check(ratio_python.py_func, 3, 2, jit=ratio_python)
    for n in (1, 4):
        check(creations.py_func, n, jit=creations)


# ---- NaN-aware and whole-array helpers ----
@njit
def nan_helpers(a):
    return (np.nanmax(a), np.nansum(a), np.isnan(a).sum(), np.where(a > 0.5, a, np.nan),
            np.nanmean(a), np.argwhere(a > 0.5), np.flatnonzero(a > 0.2))

@njit
def close_checks(a, b):
    return np.isclose(a, b), np.allclose(a, b), np.array_equal(a, b)

@njit
def uniq_counts(a):
    return np.unique(a, return_counts=True)

@njit
def unpack_row(arr):
    x, y, z = arr
    return x * y - z

@pytest.mark.parametrize("n", [1, 6])
def test_nan_helpers(n):
    a = RNG.random(n)
    a[0] = np.nan
    check(nan_helpers.py_func, a, jit=nan_helpers)
    b = RNG.random(n)
    check(close_checks.py_func, b, b + 1e-12, jit=close_checks)
    check(uniq_counts.py_func, RNG.integers(0, 3, n), jit=uniq_counts)
    check(unpack_row.py_func, np.array([2.0, 3.0, 1.0]), jit=unpack_row)


# ---- dicts and sets edited, generator expressions ----
@njit
def dict_edit(keys):
    d = {}
    for k in keys:
        d[k] = k * k
    removed = d.pop(keys[0])
    if len(keys) > 1:
        del d[keys[1]]
    ks = [k for k in d.keys()]
    s = set()
    for k in keys:
        s.add(k % 3)
    s.discard(0)
    return removed, len(d), sorted(ks), len(s), 1 in s

@njit
def gen_exprs(arr):
    return sum(x * x for x in arr), any(x > 0.9 for x in arr), all(x >= 0 for x in arr)

@pytest.mark.parametrize("n", [1, 2, 7])
def test_dict_edit(n):
    check(dict_edit.py_func, np.arange(n) + 1, jit=dict_edit)
    check(gen_exprs.py_func, RNG.random(n), jit=gen_exprs)


# ---- linear algebra and complex arrays ----
@njit
def linalg_more(m):
    q, r = np.linalg.qr(m)
    u, s, vt = np.linalg.svd(m)
    return np.abs(np.diag(r)), s, np.linalg.pinv(m), np.linalg.matrix_power(m, 3)

@njit
def complex_arrays(z):
    return np.abs(z), np.angle(z), z.conjugate(), np.real(z), z.imag, np.exp(1j * z.real)

@njit
def slices3d(a, i, j):
    return a[i, :, j], a[:, j, :].sum(), a[..., 0]

@pytest.mark.parametrize("n", [2, 4])
def test_linalg_complex(n):
    m = RNG.random((n, n)) + np.eye(n)
    check(linalg_more.py_func, m, jit=linalg_more)
    z = RNG.random(n) + 1j * RNG.random(n)
    check(complex_arrays.py_func, z, jit=complex_arrays)
    check(slices3d.py_func, RNG.random((3, n, 2)), 1, 1, jit=slices3d)


# ---- smaller answers: optionals, constant tuples, while/else, unpacking, list(array) ----
@njit
def optional_ret(n):
    x = None
    if n > 5:
        x = n * 2
    if x is None:
        return -1
    return x

TUP = (1.5, 2.5, 3.5)

@njit
def const_tuples(i):
    t = ((1, 2), (3, 4))
    return t[i][1 - i], TUP[i] + sum(TUP)

@njit
def while_else(n):
    i = 0
    found = -1
    while i < n:
        if i * i > 20:
            found = i
            break
        i += 1
    for _ in range(3):
        pass
    else:
        found += 100
    return found

@njit
def nested_unpack(a):
    b, c = a[:2], a[2:]
    (d, e), f = (b, c), 3
    return d + e * f

@njit
def list_from_array(a):
    l = list(a)
    l.sort()
    return l, sorted(a), [int(x) for x in a[::-1]]

@njit
def set_ops_sorted(a, b):
    return (np.intersect1d(a, b), np.union1d(a, b), np.searchsorted(np.sort(a), b),
            np.cumprod(a[:4] + 1), np.ediff1d(a))

@pytest.mark.parametrize("n", [0, 1, 7])
def test_small_answers(n):
    check(optional_ret.py_func, n, jit=optional_ret)
    check(const_tuples.py_func, min(n, 1), jit=const_tuples)
    check(while_else.py_func, n, jit=while_else)
    check(nested_unpack.py_func, np.arange(4.0) + n, jit=nested_unpack)
    a = RNG.integers(0, 9, n + 1)
    check(list_from_array.py_func, a, jit=list_from_array)
    check(set_ops_sorted.py_func, a, RNG.integers(0, 9, 3), jit=set_ops_sorted)
