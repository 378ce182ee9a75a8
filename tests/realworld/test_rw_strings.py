"""Real-world patterns: strings in compiled loops.

Numba code in public projects works on text in njit functions: bioinformatics scripts take the
GC content and the reverse complement of DNA reads and count k-mers, text-processing notebooks
tokenize lines (split, strip, lower) and filter the words, log scanners pick the fields of
matching lines, and tutorials encode strings (run-length encoding, Caesar ciphers with ord/chr).
Written here in the style of those projects, with `from numba import njit` switched to pyjit.
Each is compared with the same source run by CPython (`py_func`), and with Numba when it is
installed.
"""
import pytest

from pyjit import njit
from util import numba_or_none


@njit
def gc_content(seq):
    gc = 0
    for ch in seq:
        if ch == "G" or ch == "C":
            gc += 1
    return gc / len(seq) if len(seq) > 0 else 0.0


@njit
def reverse_complement(seq):
    out = []
    for i in range(len(seq) - 1, -1, -1):
        ch = seq[i]
        if ch == "A":
            out.append("T")
        elif ch == "T":
            out.append("A")
        elif ch == "G":
            out.append("C")
        elif ch == "C":
            out.append("G")
        else:
            out.append("N")
    return "".join(out)


@njit
def kmer_hits(seq, kmers):
    counts = []
    for k in kmers:
        n = 0
        for i in range(len(seq) - len(k) + 1):
            if seq[i:i + len(k)] == k:
                n += 1
        counts.append(n)
    return counts


@njit
def tokenize(lines, min_len):
    words = []
    for line in lines:
        for w in line.lower().split():
            w = w.strip(".,;:!?\"'()")
            if len(w) >= min_len and not w.isdigit():
                words.append(w)
    return words


@njit
def error_fields(log, level):
    found = []
    for line in log.split("\n"):
        if line.startswith(level):
            parts = line.split(" ", 2)
            if len(parts) == 3:
                found.append(parts[1] + ":" + parts[2].strip())
    return found


@njit
def run_length_encode(s):
    if len(s) == 0:
        return ""
    out = ""
    current = s[0]
    count = 1
    for i in range(1, len(s)):
        if s[i] == current:
            count += 1
        else:
            out += current + str(count)
            current = s[i]
            count = 1
    return out + current + str(count)


@njit
def caesar(text, shift):
    out = []
    for ch in text:
        c = ord(ch)
        if 97 <= c <= 122:
            out.append(chr((c - 97 + shift) % 26 + 97))
        elif 65 <= c <= 90:
            out.append(chr((c - 65 + shift) % 26 + 65))
        else:
            out.append(ch)
    return "".join(out)


def _numba_list(items):
    """A typed list for Numba, whose reflected lists of strings are deprecated."""
    from numba.typed import List
    out = List()
    for x in items:
        out.append(x)
    return out


DNA = "ATGCGCGATTACAGGCTTANNGCGCATATGCCGTA" * 3
LOG = ("INFO 10:01 started\nERROR 10:02 disk  full \nWARN 10:03 slow\n"
       "ERROR 10:04 lost connection to host\nERROR short\nINFO 10:05 done")
LINES = ["The quick brown fox, 42 times!", "Jumps over the (lazy) dog.", "", "Ünïcode wörds: é 中文"]

CASES = [
    (gc_content, lambda: (DNA,)),
    (gc_content, lambda: ("",)),
    (reverse_complement, lambda: (DNA,)),
    (kmer_hits, lambda: (DNA, ["GC", "ATG", "NN", "TTTT"])),
    (tokenize, lambda: (LINES, 3)),
    (error_fields, lambda: (LOG, "ERROR")),
    (run_length_encode, lambda: ("aaabccddddde",)),
    (run_length_encode, lambda: ("",)),
    (caesar, lambda: ("Hello, World! ünï", 3)),
]


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = make()
    got = f(*args)
    assert got == f.py_func(*args)
    nb = numba_or_none(f)
    if nb is not None:
        nb_args = tuple(_numba_list(a) if isinstance(a, list) else a for a in args)
        expected = nb(*nb_args)
        assert (list(expected) if not isinstance(expected, (str, float)) else expected) == got
