"""Real-world patterns: integer hashing, bit tricks and text handling in compiled loops.

Hash-table and sketching code compiles FNV-1a over bytes with `np.uint64` arithmetic that wraps,
MurmurHash3's 32-bit finaliser, xorshift64* random streams and a Bloom filter built on them;
bit-manipulation helpers count set bits and reverse bits; text code groups anagrams in a dict of
lists keyed by `"".join(sorted(word))`, ranks words by `sorted(d.items(), key=lambda kv: ...)`,
finds the longest palindromic substring and checks balanced brackets with a list as a stack.
Control flow seen in such code: `for ... else`, `try`/`except`/`else`/`finally`, `assert`, a
memoised recursion through a dict, module-level constant arrays. Restated with
`from numba import njit` switched to pyjit; compared with CPython (`py_func`) and with Numba.

PYTEST_DONT_REWRITE: the compiled functions' own `assert` statements must stay Python's.
"""
import numpy as np
import pytest

from pyjit import njit
from util import numba_or_none

FNV_OFFSET = np.uint64(14695981039346656037)
FNV_PRIME = np.uint64(1099511628211)


@njit
def fnv1a(data):
    h = FNV_OFFSET
    for b in data:
        h ^= np.uint64(b)
        h *= FNV_PRIME
    return h


@njit
def fnv1a_rows(rows):
    out = np.empty(rows.shape[0], dtype=np.uint64)
    for i in range(rows.shape[0]):
        out[i] = fnv1a(rows[i])
    return out


@njit
def fmix32(h):
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h


@njit
def mix_all(keys):
    out = np.empty_like(keys)
    for i in range(keys.shape[0]):
        out[i] = fmix32(keys[i])
    return out


@njit
def xorshift64star(state, n):
    out = np.empty(n, dtype=np.uint64)
    x = np.uint64(state)
    for i in range(n):
        x ^= x >> np.uint64(12)
        x ^= x << np.uint64(25)
        x ^= x >> np.uint64(27)
        out[i] = x * np.uint64(0x2545F4914F6CDD1D)
    return out


@njit
def bloom_filter(items, queries, m_bits, k):
    bits = np.zeros(m_bits, dtype=np.bool_)
    for it in items:
        h1 = fmix32(np.uint32(it))
        h2 = fmix32(np.uint32(it) ^ np.uint32(0x9E3779B9))
        for j in range(k):
            bits[(np.uint64(h1) + np.uint64(j) * np.uint64(h2)) % np.uint64(m_bits)] = True
    found = np.empty(queries.shape[0], dtype=np.bool_)
    for q in range(queries.shape[0]):
        h1 = fmix32(np.uint32(queries[q]))
        h2 = fmix32(np.uint32(queries[q]) ^ np.uint32(0x9E3779B9))
        hit = True
        for j in range(k):
            if not bits[(np.uint64(h1) + np.uint64(j) * np.uint64(h2)) % np.uint64(m_bits)]:
                hit = False
                break
        found[q] = hit
    return found, bits.sum()


@njit
def popcount_and_reverse(xs):
    counts = np.empty(xs.shape[0], dtype=np.int64)
    rev = np.empty(xs.shape[0], dtype=np.int64)
    for i in range(xs.shape[0]):
        x = xs[i]
        c = 0
        while x:
            x &= x - 1
            c += 1
        counts[i] = c
        r = 0
        x = xs[i]
        for _ in range(16):
            r = (r << 1) | (x & 1)
            x >>= 1
        rev[i] = r
    return counts, rev


@njit
def group_anagrams(words):
    groups = {}
    for w in words:
        key = "".join(sorted(w))
        if key in groups:
            groups[key].append(w)
        else:
            groups[key] = [w]
    out = []
    for key, members in groups.items():
        if len(members) > 1:
            out.append(members)
    return out


@njit
def top_words(text, k):
    counts = {}
    for w in text.split():
        counts[w] = counts.get(w, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:k]


@njit
def longest_palindrome(s):
    best_lo, best_len = 0, 0
    for centre in range(2 * len(s) - 1):
        lo = centre // 2
        hi = lo + centre % 2
        while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
            lo -= 1
            hi += 1
        if hi - lo - 1 > best_len:
            best_lo, best_len = lo + 1, hi - lo - 1
    return s[best_lo:best_lo + best_len]


@njit
def balanced(s):
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in s:
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if len(stack) == 0 or stack.pop() != pairs[ch]:
                return False
    return len(stack) == 0


@njit
def first_factor(numbers):
    out = []
    for n in numbers:
        for d in range(2, int(n ** 0.5) + 1):
            if n % d == 0:
                out.append(d)
                break
        else:
            out.append(n)
    return out


@njit
def parse_all(fields):
    total = 0.0
    bad = 0
    log = []
    for f in fields:
        try:
            v = float(f)
        except ValueError:
            bad += 1
            log.append("bad")
        else:
            total += v
            log.append("ok")
        finally:
            log.append(";")
    return total, bad, "".join(log)


@njit
def normalise_rows(m):
    assert m.ndim == 2, "need a matrix"
    out = np.empty_like(m)
    for i in range(m.shape[0]):
        s = m[i].sum()
        assert s != 0.0
        out[i] = m[i] / s
    return out


@njit
def partitions(n, k, memo):
    if n == 0:
        return 1
    if n < 0 or k == 0:
        return 0
    key = (n, k)
    if key in memo:
        return memo[key]
    r = partitions(n - k, k, memo) + partitions(n, k - 1, memo)
    memo[key] = r
    return r


@njit
def partition_counts(upto):
    memo = {(0, 0): 0}
    out = np.empty(upto, dtype=np.int64)
    for n in range(1, upto + 1):
        out[n - 1] = partitions(n, n, memo)
    return out


WEIGHTS = np.array([0.1, 0.2, 0.4, 0.2, 0.1])


@njit
def weighted_smooth(x):
    h = WEIGHTS.shape[0] // 2
    out = x.copy()
    for i in range(h, x.shape[0] - h):
        acc = 0.0
        for k, w in enumerate(WEIGHTS):
            acc += w * x[i - h + k]
        out[i] = acc
    return out


@njit
def zip_scores(names, scores, cutoff):
    passed = np.empty(0)
    who = []
    for i, (name, s) in enumerate(zip(names, scores)):
        if s >= cutoff:
            passed = np.append(passed, s)
            who.append(str(i) + ":" + name)
    return passed, who


rng = np.random.default_rng(21)

CASES = [
    (fnv1a_rows, lambda: (rng.integers(0, 256, (5, 12)).astype(np.uint8),)),
    (mix_all, lambda: (rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32),)),
    (xorshift64star, lambda: (88172645463325252, 10)),
    (bloom_filter, lambda: (np.arange(0, 200, 7), np.arange(0, 60), 512, 3)),
    (popcount_and_reverse, lambda: (rng.integers(0, 2**16, 20),)),
    (group_anagrams, lambda: (["listen", "silent", "enlist", "google", "gogole", "cat", "act",
                               "dog"],)),
    (top_words, lambda: ("a b c a b a d e a b c f", 3)),
    (longest_palindrome, lambda: ("forgeeksskeegfor",)),
    (longest_palindrome, lambda: ("abacdfgdcaba",)),
    (balanced, lambda: ("{[()()]}([])",)),
    (balanced, lambda: ("{[(])}",)),
    (first_factor, lambda: ([91, 97, 221, 1024, 7919],)),
    (parse_all, lambda: (["1.5", "x", "2", "", "-0.25"],)),
    (normalise_rows, lambda: (rng.uniform(0.5, 1.0, (4, 3)),)),
    (partition_counts, lambda: (15,)),
    (weighted_smooth, lambda: (rng.normal(size=20),)),
    (zip_scores, lambda: (["ann", "bob", "cy", "dee"], np.array([55.0, 80.0, 91.5, 60.0]), 60.0)),
]


def _same(a, b):
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and np.allclose(a, b, rtol=1e-12)
    if isinstance(a, (float, np.floating)):
        return np.isclose(a, b, rtol=1e-12)
    if isinstance(a, (int, np.integer)):   # NumPy scalars come back as Python ints
        return isinstance(b, (int, np.integer)) and a == b
    return a == b and type(a) is type(b)


def _copies(args):
    return [a.copy() if isinstance(a, (np.ndarray, list)) else a for a in args]


def _in_python(f, made=None):
    """f as CPython runs it with the compiled functions it calls run by CPython too (a Python
    dict passed to a compiled callee is refused, as Numba refuses it); recursion kept."""
    import types
    made = {} if made is None else made
    if f in made:
        return made[f]
    scope = dict(f.py_func.__globals__)
    made[f] = types.FunctionType(f.py_func.__code__, scope, f.py_func.__name__,
                                 f.py_func.__defaults__)
    for name in f.py_func.__code__.co_names:
        if hasattr(scope.get(name), "py_func"):
            scope[name] = _in_python(scope[name], made)
    return made[f]


# Numba types uint32 * uint32 as uint64 (its integer typing widens), NumPy and pyjit keep uint32:
# MurmurHash's finaliser wraps at 32 bits in CPython and pyjit only.
NUMBA_WIDENS = {"mix_all", "bloom_filter"}


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = make()
    want = _in_python(f)(*_copies(args))
    assert _same(f(*_copies(args)), want)
    nb = numba_or_none(f)
    if nb is not None and f.py_func.__name__ not in NUMBA_WIDENS:
        try:
            got = nb(*_copies(args))
        except Exception as exc:   # noqa: BLE001 - what this Numba cannot compile
            assert type(exc).__name__ in ("TypingError", "UnsupportedError"), exc
            return
        assert _same(got, want)


def test_assert_in_compiled_code_raises_assertion_error():
    with pytest.raises(AssertionError):
        normalise_rows(np.zeros((2, 2)))
    with pytest.raises(AssertionError):
        normalise_rows.py_func(np.zeros((2, 2)))
