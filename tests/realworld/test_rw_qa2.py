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
