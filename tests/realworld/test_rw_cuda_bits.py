"""numba-cuda kernels over bits and bytes from public projects, the import switched to pyjit: a
block cipher (PRESENT) with 64-bit delta swaps, a bitsliced S-box and a table S-box in constant
memory read by a device function; an MD5 password search (uint32 rotations, candidate strings in
local uint8 arrays, the first hit kept by atomic.min); SHA3-256 over 25 uint64 lanes in a local
array; DNA pattern counting, reverse complements through a constant table and GC fractions over
uint8 reads; reads decoded in reverse through a `dtype="uint8"` local buffer timed by events; an
FFT whose bit-reversal permutation comes from `cuda.brev`.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with hashlib, NumPy or plain Python.
"""
import cmath
import hashlib
import math
import os
import sys

import numpy as np

from pyjit import int32, uint8, uint32, uint64

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


# ---- PRESENT: a 64-bit block cipher, 31 rounds of key xor, S-box layer and bit permutation; the
# permutation as four delta swaps, the S-box either bitsliced over all 16 nibbles at once or looked
# up nibble by nibble in a constant-memory table; round keys staged in shared memory, each thread
# coarsened over several blocks (a GPU cipher benchmark) ----

PRESENT_SBOX = np.array([0xC, 5, 6, 0xB, 9, 0, 0xA, 0xD, 3, 0xE, 0xF, 8, 4, 7, 1, 2],
                        dtype=np.uint8)
PER_THREAD = 4


def _present_reference(block, keys):
    def sbox(x):
        return sum(int(PRESENT_SBOX[(x >> (4 * i)) & 0xF]) << (4 * i) for i in range(16))

    def perm(x):
        out = 0
        for i in range(64):
            if (x >> i) & 1:
                out |= 1 << (63 if i == 63 else (16 * i) % 63)
        return out
    s = int(block)
    for r in range(31):
        s = perm(sbox(s ^ int(keys[r])))
    return s ^ int(keys[31])


def test_present_cipher_bitsliced_and_table(cuda):
    @cuda.jit(device=True, inline=True)
    def swap_bits(x, mask, shift):
        t = (x ^ (x >> uint64(shift))) & uint64(mask)
        return x ^ t ^ (t << uint64(shift))

    @cuda.jit(device=True, inline=True)
    def permute(x):
        x = swap_bits(x, 0x0A0A0A0A0A0A0A0A, 3)
        x = swap_bits(x, 0x0000F0F00000F0F0, 12)
        x = swap_bits(x, 0x00CC00CC00CC00CC, 6)
        x = swap_bits(x, 0x00000000FF00FF00, 24)
        return x

    @cuda.jit(device=True, inline=True)
    def sbox_sliced(x):
        m = uint64(0x1111111111111111)
        b0 = x & m
        b1 = (x >> 1) & m
        b2 = (x >> 2) & m
        b3 = (x >> 3) & m
        y0 = b0 ^ b2 ^ (b1 & b2) ^ b3
        y1 = (b1 ^ (b0 & b1 & b2) ^ b3 ^ (b1 & b3) ^ (b0 & b1 & b3) ^ (b2 & b3)
              ^ (b0 & b2 & b3))
        y2 = (m ^ (b0 & b1) ^ b2 ^ b3 ^ (b0 & b3) ^ (b1 & b3) ^ (b0 & b1 & b3)
              ^ (b0 & b2 & b3))
        y3 = m ^ b0 ^ b1 ^ (b1 & b2) ^ (b0 & b1 & b2) ^ b3 ^ (b0 & b1 & b3) ^ (b0 & b2 & b3)
        return y0 | (y1 << 1) | (y2 << 2) | (y3 << 3)

    @cuda.jit(device=True, inline=True)
    def sbox_table(x):
        table = cuda.const.array_like(PRESENT_SBOX)
        out = uint64(0)
        for i in range(16):
            shift = i * 4
            nibble = (x >> shift) & uint64(0xF)
            out |= uint64(table[nibble]) << shift
        return out

    def make(sbox):
        @cuda.jit
        def encrypt(src, dst, round_keys, nblocks):
            first = cuda.grid(1) * PER_THREAD
            keys = cuda.shared.array(32, dtype=uint64)
            for i in range(cuda.threadIdx.x, 32, cuda.blockDim.x):
                keys[i] = round_keys[i]
            cuda.syncthreads()
            for k in range(PER_THREAD):
                b = first + k
                if b >= nblocks:
                    return
                s = src[b]
                for r in range(31):
                    s ^= keys[r]
                    s = sbox(s)
                    s = permute(s)
                dst[b] = s ^ keys[31]
        return encrypt

    rng = np.random.default_rng(7)
    n = 45
    keys = rng.integers(0, 2**63, 32, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    plain = rng.integers(0, 2**63, n, dtype=np.uint64)
    want = np.array([_present_reference(b, keys) for b in plain], dtype=np.uint64)
    d_keys = cuda.to_device(keys)
    host_in = cuda.pinned_array(n, dtype=np.uint64)
    host_out = cuda.pinned_array(n, dtype=np.uint64)
    d_in = cuda.device_array(n, dtype=np.uint64)
    d_out = cuda.device_array(n, dtype=np.uint64)
    host_in[:] = plain
    d_in.copy_to_device(host_in)
    tpb = 8
    grid = math.ceil(math.ceil(n / PER_THREAD) / tpb)
    for sbox in (sbox_sliced, sbox_table):
        make(sbox)[grid, tpb](d_in, d_out, d_keys, np.int32(n))
        cuda.synchronize()
        d_out.copy_to_host(host_out)
        np.testing.assert_array_equal(host_out, want)


# ---- an MD5 search over candidate passwords: each thread spells its index in a charset held in
# constant memory, pads the message into sixteen little-endian words in a local array, runs the 64
# steps and compares with the target digest; the smallest matching index wins by atomic.min (a
# password-recovery kernel) ----

CHARSET = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789", dtype=np.uint8).copy()
MD5_K = np.array([int(abs(math.sin(i + 1)) * 2**32) & 0xFFFFFFFF for i in range(64)],
                 dtype=np.uint32)
MD5_S = np.array([7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4
                 + [6, 10, 15, 21] * 4, dtype=np.int32)


def _candidate(index, length):
    chars = []
    for _ in range(length):
        chars.append(CHARSET[index % len(CHARSET)])
        index //= len(CHARSET)
    return bytes(reversed(chars))


def test_md5_password_search(cuda):
    @cuda.jit(device=True, inline=True)
    def rotl(x, c):
        return uint32((x << c) | (x >> (32 - c)))

    @cuda.jit(device=True)
    def md5_words(w):
        K = cuda.const.array_like(MD5_K)
        S = cuda.const.array_like(MD5_S)
        a0 = uint32(0x67452301)
        b0 = uint32(0xefcdab89)
        c0 = uint32(0x98badcfe)
        d0 = uint32(0x10325476)
        a, b, c, d = a0, b0, c0, d0
        for i in range(64):
            if i < 16:
                f = (b & c) | (~b & d)
                g = i
            elif i < 32:
                f = (d & b) | (~d & c)
                g = (5 * i + 1) % 16
            elif i < 48:
                f = b ^ c ^ d
                g = (3 * i + 5) % 16
            else:
                f = c ^ (b | ~d)
                g = (7 * i) % 16
            f = uint32(f + a + K[i] + w[g])
            a = d
            d = c
            c = b
            b = uint32(b + rotl(f, S[i]))
        return uint32(a + a0), uint32(b + b0), uint32(c + c0), uint32(d + d0)

    @cuda.jit(fastmath=True)
    def search(start, count, word_len, target, digests, found):
        idx = cuda.grid(1)
        if idx >= count:
            return
        charset = cuda.const.array_like(CHARSET)
        chars = cuda.local.array(16, dtype=uint8)
        v = start + idx
        for i in range(word_len):
            chars[word_len - 1 - i] = charset[v % charset.shape[0]]
            v //= charset.shape[0]
        w = cuda.local.array(16, dtype=uint32)
        for i in range(16):
            w[i] = 0
        for i in range(word_len):
            w[i // 4] |= uint32(chars[i]) << (8 * (i % 4))
        w[word_len // 4] |= uint32(0x80) << (8 * (word_len % 4))
        w[14] = uint32(word_len * 8)
        a, b, c, d = md5_words(w)
        digests[idx, 0] = a
        digests[idx, 1] = b
        digests[idx, 2] = c
        digests[idx, 3] = d
        if a == target[0] and b == target[1] and c == target[2] and d == target[3]:
            cuda.atomic.min(found, 0, start + idx)

    word_len, start, count = 3, 1000, 300
    secret = start + 217
    target = np.frombuffer(hashlib.md5(_candidate(secret, word_len)).digest(), dtype="<u4").copy()
    digests = np.zeros((count, 4), dtype=np.uint32)
    found = np.array([2**62], dtype=np.int64)
    search[_blocks(count, 64), 64](start, count, word_len, target, digests, found)
    assert found[0] == secret
    for i in (0, 5, 216, 217, count - 1):
        want = np.frombuffer(hashlib.md5(_candidate(start + i, word_len)).digest(), dtype="<u4")
        np.testing.assert_array_equal(digests[i], want)


# ---- SHA3-256 of many short messages, one a thread: the Keccak-f[1600] permutation over 25
# uint64 lanes in a local array, rotation offsets and round constants in constant memory, the
# digest bytes extracted with shifts of np.uint64 (a proof-of-work miner's hash) ----

KECCAK_RC = np.array([
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008],
    dtype=np.uint64)
KECCAK_ROT = np.array([0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8,
                       18, 2, 61, 56, 14], dtype=np.int32)


def test_sha3_256_local_lanes(cuda):
    @cuda.jit(device=True, inline=True)
    def rol(x, r):
        if r == 0:
            return x
        return (x << np.uint64(r)) | (x >> np.uint64(64 - r))

    @cuda.jit(device=True)
    def keccak_f(st):
        rc = cuda.const.array_like(KECCAK_RC)
        rot = cuda.const.array_like(KECCAK_ROT)
        c = cuda.local.array(5, dtype=uint64)
        b = cuda.local.array(25, dtype=uint64)
        for rnd in range(24):
            for x in range(5):
                c[x] = st[x] ^ st[x + 5] ^ st[x + 10] ^ st[x + 15] ^ st[x + 20]
            for x in range(5):
                d = c[(x + 4) % 5] ^ rol(c[(x + 1) % 5], 1)
                for y in range(5):
                    st[x + 5 * y] ^= d
            for x in range(5):
                for y in range(5):
                    b[y + 5 * ((2 * x + 3 * y) % 5)] = rol(st[x + 5 * y], rot[x + 5 * y])
            for x in range(5):
                for y in range(5):
                    st[x + 5 * y] = b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y]
                                                    & b[(x + 2) % 5 + 5 * y])
            st[0] ^= rc[rnd]

    @cuda.jit
    def sha3_kernel(messages, digests):
        i = cuda.grid(1)
        if i >= messages.shape[0]:
            return
        st = cuda.local.array(25, dtype=uint64)
        for k in range(25):
            st[k] = np.uint64(0)
        n = messages.shape[1]
        for k in range(n):
            st[k >> 3] ^= np.uint64(messages[i, k]) << np.uint64(8 * (k & 7))
        st[n >> 3] ^= np.uint64(0x06) << np.uint64(8 * (n & 7))
        st[16] ^= np.uint64(0x8000000000000000)
        keccak_f(st)
        for k in range(32):
            digests[i, k] = np.uint8((st[k >> 3] >> np.uint64(8 * (k & 7))) & np.uint64(0xFF))

    msgs = np.random.default_rng(3).integers(0, 256, (20, 40), dtype=np.uint8)
    d_out = cuda.device_array((20, 32), dtype=np.uint8)
    sha3_kernel[2, 16](cuda.to_device(msgs), d_out)
    got = d_out.copy_to_host()
    for i in range(20):
        assert bytes(got[i]) == hashlib.sha3_256(msgs[i].tobytes()).digest()


# ---- DNA over uint8 bases: every position tested against a motif (hits counted by atomics and
# marked), reverse complements through a 256-entry constant table, GC fractions per read (a
# genomics course's GPU exercises) ----

G, C = ord("G"), ord("C")
COMPLEMENT = np.arange(256, dtype=np.uint8)
for _a, _b in (b"AT", b"TA", b"CG", b"GC", b"NN"):
    COMPLEMENT[_a] = _b


def test_dna_motif_complement_gc(cuda):
    @cuda.jit('void(uint8[:], uint8[:], int32[:], uint8[:])')
    def find_motif(genome, motif, count, hits):
        pos = cuda.grid(1)
        m = motif.shape[0]
        if pos > genome.shape[0] - m:
            return
        for k in range(m):
            if genome[pos + k] != motif[k]:
                return
        hits[pos] = 1
        cuda.atomic.add(count, 0, 1)

    @cuda.jit
    def reverse_complement(reads, out):
        r, j = cuda.grid(2)
        if r < reads.shape[0] and j < reads.shape[1]:
            table = cuda.const.array_like(COMPLEMENT)
            out[r, reads.shape[1] - 1 - j] = table[reads[r, j]]

    @cuda.jit
    def gc_fraction(reads, frac):
        r = cuda.grid(1)
        if r < reads.shape[0]:
            gc = 0
            for base in reads[r]:
                if base == G or base == C:
                    gc += 1
            frac[r] = np.float32(gc) / reads.shape[1]

    rng = np.random.default_rng(11)
    genome = np.frombuffer(b"ACGT", dtype=np.uint8)[rng.integers(0, 4, 3000)].copy()
    motif = np.frombuffer(b"GATC", dtype=np.uint8).copy()
    count = np.zeros(1, dtype=np.int32)
    hits = np.zeros(genome.size, dtype=np.uint8)
    find_motif[_blocks(genome.size, 128), 128](genome, motif, count, hits)
    text = genome.tobytes()
    want = [i for i in range(len(text)) if text.startswith(b"GATC", i)]
    assert count[0] == len(want)
    np.testing.assert_array_equal(np.flatnonzero(hits), want)

    reads = genome[:24 * 50].reshape(24, 50)
    d_rc = cuda.device_array_like(reads)
    reverse_complement[(3, 4), (8, 16)](cuda.to_device(reads), d_rc)
    rc = d_rc.copy_to_host()
    table = bytes.maketrans(b"ACGT", b"TGCA")
    for r in range(24):
        assert rc[r].tobytes() == reads[r].tobytes().translate(table)[::-1]
    frac = np.zeros(24, dtype=np.float32)
    gc_fraction[1, 32](reads, frac)
    want_frac = ((reads == ord("G")) | (reads == ord("C"))).sum(1).astype(np.float32) / 50
    np.testing.assert_allclose(frac, want_frac, rtol=1e-6)


# ---- reads stored back to back with (start, end) offsets, each decoded in reverse into a local
# buffer declared with dtype="uint8" and written as one row; the launch timed by events between
# profile_start/profile_stop (a sequencing pipeline) ----

MAX_LEN = 64


def test_reads_local_buffer_events(cuda):
    @cuda.jit
    def unpack_reversed(reads, offsets, result):
        t = cuda.grid(1)
        buf = cuda.local.array(MAX_LEN, dtype="uint8")
        if t < offsets.shape[0]:
            start, end = offsets[t][0], offsets[t][1]
            n = end - start
            for k in range(n):
                buf[k] = reads[end - 1 - k]
            for k in range(n):
                result[t, k] = buf[k]
            for k in range(n, result.shape[1]):
                result[t, k] = 0

    rng = np.random.default_rng(5)
    lengths = rng.integers(10, MAX_LEN, 40)
    ends = np.cumsum(lengths)
    offsets = np.stack([ends - lengths, ends], axis=1).astype(np.int64)
    reads = rng.integers(65, 91, ends[-1]).astype(np.uint8)
    cuda.profile_start()
    start, end = cuda.event(), cuda.event()
    start.record()
    d_reads = cuda.to_device(reads)
    d_offsets = cuda.to_device(offsets)
    d_result = cuda.device_array((offsets.shape[0], MAX_LEN), dtype="uint8")
    tpb = 32
    unpack_reversed[(offsets.shape[0] + tpb) // tpb, tpb](d_reads, d_offsets, d_result)
    end.record()
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0.0
    cuda.profile_stop()
    got = d_result.copy_to_host()
    assert got.dtype == np.uint8
    for t, (s, e) in enumerate(offsets):
        np.testing.assert_array_equal(got[t, :e - s], reads[s:e][::-1])
        assert not got[t, e - s:].any()


# ---- a radix-2 FFT on the GPU: the bit-reversal permutation from cuda.brev of the index shifted
# down by clz of the length, then log2(n) butterfly passes, one launch each, twiddles from
# cmath.exp (an FFT written for a numerical-methods course) ----

def test_fft_brev_butterflies(cuda):
    @cuda.jit
    def bit_reverse(x, y):
        i = cuda.grid(1)
        n = x.shape[0]
        if i < n:
            shift = cuda.clz(int32(n)) + 1         # 32 - log2(n) for a power of two
            j = cuda.brev(uint32(i)) >> shift
            y[j] = x[i]

    @cuda.jit
    def butterfly(y, half):
        t = cuda.grid(1)
        if t < y.shape[0] // 2:
            group = t // half
            k = t % half
            i = group * 2 * half + k
            w = cmath.exp(-2j * cmath.pi * k / (2 * half))
            a = y[i]
            b = w * y[i + half]
            y[i] = a + b
            y[i + half] = a - b

    n = 64
    rng = np.random.default_rng(9)
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    d_y = cuda.device_array(n, dtype=np.complex128)
    bit_reverse[2, 32](cuda.to_device(x), d_y)
    half = 1
    while half < n:
        butterfly[1, n // 2](d_y, half)
        half *= 2
    np.testing.assert_allclose(d_y.copy_to_host(), np.fft.fft(x), rtol=1e-10, atol=1e-10)
