"""numba-cuda sequence and string kernels from public bioinformatics code, the import switched to
pyjit: Smith-Waterman local alignment of a query against a database, one thread per database
sequence with the DP row in a local array and a substitution matrix indexed by residue codes;
Needleman-Wunsch global alignment of one pair by anti-diagonal wavefronts within a block
(`syncthreads` between diagonals); k-mer counting by 2-bit codes with `atomic.add`; all-pairs
Hamming distances between barcodes through shared tiles; exact pattern search with the pattern
in constant memory (`cuda.const.array_like`) and the matches appended through an atomic cursor.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with plain Python or NumPy.
"""
import os
import sys

import numpy as np

from pyjit import int32, uint8

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


def _sw_ref(q, s, sub, gap):
    best = 0
    prev = [0] * (len(s) + 1)
    for i in range(1, len(q) + 1):
        cur = [0] * (len(s) + 1)
        for j in range(1, len(s) + 1):
            cur[j] = max(0, prev[j - 1] + sub[q[i - 1]][s[j - 1]], prev[j] - gap, cur[j - 1] - gap)
            best = max(best, cur[j])
        prev = cur
    return best


# ---- Smith-Waterman: the database flattened with offsets, each thread aligning the query with
# one entry; the previous DP row lives in a local array, the score is the best cell (a course
# project speeding up alignment with numba) ----

MAXLEN = 64


def test_smith_waterman_database(cuda):
    @cuda.jit
    def align_kernel(query, db, offsets, sub, gap, scores):
        t = cuda.grid(1)
        if t >= offsets.shape[0] - 1:
            return
        start = offsets[t]
        m = offsets[t + 1] - start
        row = cuda.local.array(MAXLEN + 1, int32)
        for j in range(m + 1):
            row[j] = 0
        best = 0
        for i in range(1, query.shape[0] + 1):
            diag = 0
            left = 0
            qi = query[i - 1]
            for j in range(1, m + 1):
                up = row[j]
                h = max(0, diag + sub[qi, db[start + j - 1]], up - gap, left - gap)
                diag = up
                row[j] = h
                left = h
                if h > best:
                    best = h
        scores[t] = best

    rng = np.random.default_rng(31)
    alphabet = 20
    sub = rng.integers(-4, 6, (alphabet, alphabet)).astype(np.int32)
    sub = ((sub + sub.T) // 2).astype(np.int32)
    query = rng.integers(0, alphabet, 30).astype(np.uint8)
    seqs = [rng.integers(0, alphabet, rng.integers(5, MAXLEN)).astype(np.uint8) for _ in range(45)]
    db = np.concatenate(seqs)
    offsets = np.zeros(len(seqs) + 1, np.int64)
    offsets[1:] = np.cumsum([len(s) for s in seqs])
    scores = np.zeros(len(seqs), np.int32)
    align_kernel[_blocks(len(seqs), 32), 32](query, db, offsets, sub, 3, scores)
    subl = sub.tolist()
    want = [_sw_ref(query.tolist(), s.tolist(), subl, 3) for s in seqs]
    np.testing.assert_array_equal(scores, want)


# ---- Needleman-Wunsch of one pair by wavefronts: cell (i, j) on anti-diagonal i + j, one block
# sweeping the diagonals with a thread per cell and a barrier between diagonals (a GPU course's
# dynamic-programming lab) ----

def test_needleman_wunsch_wavefront(cuda):
    @cuda.jit
    def nw_wavefront(a, b, match, mismatch, gap, H):
        n = a.shape[0]
        m = b.shape[0]
        tid = cuda.threadIdx.x
        for i in range(tid, n + 1, cuda.blockDim.x):
            H[i, 0] = -gap * i
        for j in range(tid, m + 1, cuda.blockDim.x):
            H[0, j] = -gap * j
        cuda.syncthreads()
        for diag in range(2, n + m + 1):
            lo = max(1, diag - m)
            hi = min(n, diag - 1)
            for i in range(lo + tid, hi + 1, cuda.blockDim.x):
                j = diag - i
                s = match if a[i - 1] == b[j - 1] else mismatch
                H[i, j] = max(H[i - 1, j - 1] + s, H[i - 1, j] - gap, H[i, j - 1] - gap)
            cuda.syncthreads()

    rng = np.random.default_rng(32)
    a = rng.integers(0, 4, 37).astype(np.uint8)
    b = rng.integers(0, 4, 29).astype(np.uint8)
    H = np.zeros((38, 30), np.int32)
    nw_wavefront[1, 16](a, b, 2, -1, 2, H)
    want = np.zeros((38, 30), np.int64)
    want[:, 0] = -2 * np.arange(38)
    want[0, :] = -2 * np.arange(30)
    for i in range(1, 38):
        for j in range(1, 30):
            s = 2 if a[i - 1] == b[j - 1] else -1
            want[i, j] = max(want[i - 1, j - 1] + s, want[i - 1, j] - 2, want[i, j - 1] - 2)
    np.testing.assert_array_equal(H, want)


# ---- k-mers: each thread encodes the k-mer starting at its position 2 bits a base (A C G T),
# skipping any with an N, and bumps its count; the count table is 4^k uint32 (a sequencing
# pipeline's GPU k-mer counter) ----

def test_kmer_counting(cuda):
    @cuda.jit(device=True)
    def base_code(c):
        if c == 65:     # A
            return 0
        if c == 67:     # C
            return 1
        if c == 71:     # G
            return 2
        if c == 84:     # T
            return 3
        return -1

    @cuda.jit
    def count_kmers(seq, k, counts):
        i = cuda.grid(1)
        if i + k > seq.shape[0]:
            return
        code = 0
        for p in range(k):
            c = base_code(seq[i + p])
            if c < 0:
                return
            code = (code << 2) | c
        cuda.atomic.add(counts, code, np.uint32(1))

    rng = np.random.default_rng(33)
    text = "".join(rng.choice(list("ACGTN"), 700, p=[0.24, 0.24, 0.24, 0.24, 0.04]))
    seq = np.frombuffer(text.encode(), dtype=np.uint8)
    k = 4
    counts = cuda.to_device(np.zeros(4 ** k, np.uint32))
    count_kmers[_blocks(seq.size, 128), 128](seq, k, counts)
    want = np.zeros(4 ** k, np.int64)
    for i in range(len(text) - k + 1):
        kmer = text[i:i + k]
        if "N" not in kmer:
            want[int(kmer.translate(str.maketrans("ACGT", "0123")), 4)] += 1
    np.testing.assert_array_equal(counts.copy_to_host(), want)


# ---- all-pairs Hamming distances between equal-length barcodes: 16x16 blocks stage their rows'
# and columns' barcodes in shared tiles (a single-cell toolkit's barcode correction) ----

BC_TILE = 16
BC_LEN = 12


def test_barcode_hamming_tiles(cuda):
    @cuda.jit
    def hamming_all_pairs(codes, dist):
        rows = cuda.shared.array((BC_TILE, BC_LEN), uint8)
        cols = cuda.shared.array((BC_TILE, BC_LEN), uint8)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        i = cuda.blockIdx.y * BC_TILE + ty
        j = cuda.blockIdx.x * BC_TILE + tx
        n = codes.shape[0]
        if tx < BC_LEN:
            r = cuda.blockIdx.y * BC_TILE + ty
            c = cuda.blockIdx.x * BC_TILE + ty
            rows[ty, tx] = codes[r, tx] if r < n else uint8(0)
            cols[ty, tx] = codes[c, tx] if c < n else uint8(0)
        cuda.syncthreads()
        if i < n and j < n:
            d = 0
            for p in range(BC_LEN):
                if rows[ty, p] != cols[tx, p]:
                    d += 1
            dist[i, j] = d

    rng = np.random.default_rng(34)
    n = 37
    codes = rng.integers(0, 4, (n, BC_LEN)).astype(np.uint8)
    dist = cuda.device_array((n, n), np.int32)
    hamming_all_pairs[(_blocks(n, BC_TILE), _blocks(n, BC_TILE)), (BC_TILE, BC_TILE)](codes, dist)
    want = (codes[:, None, :] != codes[None, :, :]).sum(-1)
    np.testing.assert_array_equal(dist.copy_to_host(), want)


# ---- exact pattern search: the pattern frozen into constant memory, each thread testing one
# offset and appending a hit through an atomic cursor; the host sorts the hits (a text-search
# exercise) ----

PATTERN = np.frombuffer(b"GATTACA", dtype=np.uint8)


def test_pattern_search_constant_memory(cuda):
    @cuda.jit
    def find_pattern(text, hits, cursor):
        pat = cuda.const.array_like(PATTERN)
        i = cuda.grid(1)
        if i + pat.shape[0] > text.shape[0]:
            return
        for p in range(pat.shape[0]):
            if text[i + p] != pat[p]:
                return
        slot = cuda.atomic.add(cursor, 0, 1)
        if slot < hits.shape[0]:
            hits[slot] = i

    rng = np.random.default_rng(35)
    chunks = []
    for _ in range(40):
        chunks.append("".join(rng.choice(list("ACGT"), rng.integers(0, 30))))
        chunks.append("GATTACA" if rng.random() < 0.6 else "GATTAC")
    text = "".join(chunks) + "GATTACATTACA"
    hits = np.full(64, -1, np.int64)
    cursor = np.zeros(1, np.int32)
    find_pattern[_blocks(len(text), 64), 64](np.frombuffer(text.encode(), np.uint8), hits, cursor)
    want = [i for i in range(len(text)) if text.startswith("GATTACA", i)]
    assert cursor[0] == len(want)
    assert sorted(hits[:cursor[0]].tolist()) == want
