"""Real-world patterns: string algorithms written for Numba, restated in our own words with the
import switched: Knuth-Morris-Pratt (a failure table in an int64 array, hits in a list),
Z-arrays (`[0] * n`), Boyer-Moore-Horspool with a dict of shifts and `dict.get` defaults,
Rabin-Karp with rolling hashes over `ord` and a typed `List.empty_list(types.int64)`, the
optimal-string-alignment (Damerau) distance in an int32 table, Jaro-Winkler over boolean match
arrays, the longest common substring, a pairwise distance matrix over a typed list of words,
run-length encoding and decoding (`str(count) + ch`, `ch.isdigit()`, `ch * num`), a suffix array by
`sorted(range(n), key=lambda i: s[i:])`, the Burrows-Wheeler transform from sorted rotations, and
Manacher's longest palindrome over `"#".join(s)`. Each is compared with CPython running the same
source; Numba 0.68 compiles all but the decoder, the suffix array and the distance matrix."""
import numpy as np
import pytest

import pyjit as numba  # noqa: F401
from pyjit import njit, types
from pyjit.typed import List, Dict  # noqa: F401
from util import check


# ---- string matching ----
@njit(cache=True)
def kmp_table(pattern):
    m = len(pattern)
    fail = np.zeros(m, dtype=np.int64)
    k = 0
    for i in range(1, m):
        while k > 0 and pattern[i] != pattern[k]:
            k = fail[k - 1]
        if pattern[i] == pattern[k]:
            k += 1
        fail[i] = k
    return fail

@njit(cache=True)
def kmp_search(text, pattern):
    fail = kmp_table(pattern)
    hits = []
    k = 0
    for i, ch in enumerate(text):
        while k > 0 and ch != pattern[k]:
            k = fail[k - 1]
        if ch == pattern[k]:
            k += 1
        if k == len(pattern):
            hits.append(i - k + 1)
            k = fail[k - 1]
    return hits

@njit
def z_array(s):
    n = len(s)
    z = [0] * n
    l = r = 0
    for i in range(1, n):
        if i < r:
            z[i] = min(r - i, z[i - l])
        while i + z[i] < n and s[z[i]] == s[i + z[i]]:
            z[i] += 1
        if i + z[i] > r:
            l, r = i, i + z[i]
    return z

@njit
def horspool(text, pat):
    m, n = len(pat), len(text)
    shift = {}
    for i in range(m - 1):
        shift[pat[i]] = m - 1 - i
    out = []
    i = 0
    while i <= n - m:
        j = m - 1
        while j >= 0 and text[i + j] == pat[j]:
            j -= 1
        if j < 0:
            out.append(i)
        i += shift.get(text[i + m - 1], m)
    return out

@njit
def rabin_karp(text, pat, base=256, mod=1_000_000_007):
    n, m = len(text), len(pat)
    if m > n:
        return List.empty_list(types.int64)
    h = pow(base, m - 1, mod) if False else 1
    for _ in range(m - 1):
        h = h * base % mod
    ph = th = 0
    for i in range(m):
        ph = (ph * base + ord(pat[i])) % mod
        th = (th * base + ord(text[i])) % mod
    res = List.empty_list(types.int64)
    for i in range(n - m + 1):
        if ph == th and text[i:i + m] == pat:
            res.append(i)
        if i < n - m:
            th = ((th - ord(text[i]) * h) * base + ord(text[i + m])) % mod
    return res

# ---- string distances ----
@njit
def damerau_osa(a, b):
    la, lb = len(a), len(b)
    d = np.zeros((la + 1, lb + 1), dtype=np.int32)
    d[:, 0] = np.arange(la + 1)
    d[0, :] = np.arange(lb + 1)
    for i in range(1, la + 1):
        for j in range(1, lb + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i, j] = min(d[i, j], d[i - 2, j - 2] + 1)
    return d[la, lb]

@njit
def jaro_winkler(s1, s2, p=0.1):
    if s1 == s2:
        return 1.0
    l1, l2 = len(s1), len(s2)
    if l1 == 0 or l2 == 0:
        return 0.0
    window = max(l1, l2) // 2 - 1
    m1 = np.zeros(l1, dtype=np.bool_)
    m2 = np.zeros(l2, dtype=np.bool_)
    matches = 0
    for i in range(l1):
        lo, hi = max(0, i - window), min(i + window + 1, l2)
        for j in range(lo, hi):
            if not m2[j] and s1[i] == s2[j]:
                m1[i] = m2[j] = True
                matches += 1
                break
    if matches == 0:
        return 0.0
    t = 0
    k = 0
    for i in range(l1):
        if m1[i]:
            while not m2[k]:
                k += 1
            if s1[i] != s2[k]:
                t += 1
            k += 1
    jaro = (matches / l1 + matches / l2 + (matches - t / 2) / matches) / 3
    prefix = 0
    for i in range(min(4, l1, l2)):
        if s1[i] == s2[i]:
            prefix += 1
        else:
            break
    return jaro + prefix * p * (1 - jaro)

@njit
def longest_common_substring(a, b):
    best, end = 0, 0
    prev = np.zeros(len(b) + 1, dtype=np.int64)
    for i in range(1, len(a) + 1):
        cur = np.zeros(len(b) + 1, dtype=np.int64)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best:
                    best, end = cur[j], i
        prev = cur
    return a[end - best:end]

@njit
def pairwise_distances(words):
    n = len(words)
    out = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = out[j, i] = damerau_osa(words[i], words[j])
    return out

@njit
def run_length_encode(s):
    if len(s) == 0:
        return ""
    parts = []
    prev, count = s[0], 1
    for ch in s[1:]:
        if ch == prev:
            count += 1
        else:
            parts.append(str(count) + prev)
            prev, count = ch, 1
    parts.append(str(count) + prev)
    return "".join(parts)

@njit
def rle_decode(s):
    out = ""
    num = 0
    for ch in s:
        if ch.isdigit():
            num = num * 10 + int(ch)
        else:
            out += ch * num
            num = 0
    return out

@njit
def suffix_array(s):
    n = len(s)
    sa = sorted(range(n), key=lambda i: s[i:])
    return np.array(sa)

@njit
def bwt(s):
    s = s + "$"
    rot = sorted([s[i:] + s[:i] for i in range(len(s))])
    return "".join([r[-1] for r in rot])

@njit
def manacher(s):
    t = "^#" + "#".join(s) + "#$"
    n = len(t)
    p = np.zeros(n, dtype=np.int64)
    c = r = 0
    for i in range(1, n - 1):
        if i < r:
            p[i] = min(r - i, p[2 * c - i])
        while t[i + 1 + p[i]] == t[i - 1 - p[i]]:
            p[i] += 1
        if i + p[i] > r:
            c, r = i, i + p[i]
    k = np.argmax(p)
    start = (k - p[k]) // 2
    return s[start:start + p[k]]

TEXT = "abracadabra abracadabra cadabra brac abra" * 3
WORDS = List(["kitten", "sitting", "mitten", "fitting", "smitten", "knitting"])
CASES = [
    ("kmp", kmp_search, (TEXT, "abra")),
    ("kmp_table", kmp_table, ("aabaaab",)),
    ("z_array", z_array, ("aabxaabxcaabxaabxay",)),
    ("horspool", horspool, (TEXT, "cadab")),
    ("rabin_karp", rabin_karp, (TEXT, "bra")),
    ("damerau", damerau_osa, ("a cat", "an act")),
    ("jaro_winkler", jaro_winkler, ("MARTHA", "MARHTA")),
    ("jaro_winkler2", jaro_winkler, ("DIXON", "DICKSONX")),
    ("lcsubstr", longest_common_substring, ("xabcdezy", "yzabcdxez")),
    ("pairwise", pairwise_distances, (WORDS,)),
    ("rle", run_length_encode, ("WWWWWWWWWWWWBWWWWWWWWWWWWBBBWWWWWWWWWWWWWWWWWWWWWWWWBWWWWWWWWWWWWWW",)),
    ("rle_decode", rle_decode, ("12W1B12W3B24W1B14W",)),
    ("suffix_array", suffix_array, ("banana",)),
    ("bwt", bwt, ("banana",)),
    ("manacher", manacher, ("forgeeksskeegfor",)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    check(f.py_func, *args, jit=f)
