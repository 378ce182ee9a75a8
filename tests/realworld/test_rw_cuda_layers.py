"""numba-cuda deep-learning layers from public projects, the import switched to pyjit: a small
transformer's operations (a naive matrix product over a 2-d grid, a row softmax starting from
-float('inf'), a layer norm whose kernel has a default argument `eps=1e-5` launched with and
without it), scaled dot-product attention scores through shared tiles of Q and K transposed, a
tanh GELU over a grid-stride loop, an embedding lookup and its gradient scattered by atomics on a
2-d index, a cross-entropy loss summed by an atomic into one cell, an Adam step; and tensors of a
PyTorch-like framework handed to kernels through `__cuda_array_interface__` alone
(`cuda.is_cuda_array`, `cuda.as_cuda_array`, results written in place and seen by the owner).

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy.
"""
import math
import os
import sys

import numpy as np

from pyjit import float32

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


def _layer_norm_ref(x, w, b, eps):
    mean = x.mean(axis=1, keepdims=True)
    std = np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    return w * ((x - mean) / std) + b


# ---- a transformer's building blocks as one thread per output element or per row: matmul over
# cuda.grid(2), softmax and layer norm per row; the layer-norm kernel has a default argument, and
# the host launches it both ways (a from-scratch transformer in numba-cuda) ----

def test_transformer_ops(cuda):
    @cuda.jit
    def matmul_kernel(A, B, C):
        row, col = cuda.grid(2)
        if row < C.shape[0] and col < C.shape[1]:
            acc = 0.0
            for i in range(A.shape[1]):
                acc += A[row, i] * B[i, col]
            C[row, col] = acc

    @cuda.jit
    def softmax_kernel(scores, result, seq_length):
        row = cuda.grid(1)
        if row < seq_length:
            top = -float('inf')
            for i in range(seq_length):
                top = max(top, scores[row, i])
            total = 0.0
            for i in range(seq_length):
                e = math.exp(scores[row, i] - top)
                result[row, i] = e
                total += e
            for i in range(seq_length):
                result[row, i] /= total

    @cuda.jit
    def layer_norm_kernel(x, weight, bias, output, eps=1e-5):
        row = cuda.grid(1)
        if row < x.shape[0]:
            mean = 0.0
            for i in range(x.shape[1]):
                mean += x[row, i]
            mean /= x.shape[1]
            var = 0.0
            for i in range(x.shape[1]):
                var += (x[row, i] - mean) ** 2
            std = math.sqrt(var / x.shape[1] + eps)
            for i in range(x.shape[1]):
                output[row, i] = weight[i] * ((x[row, i] - mean) / std) + bias[i]

    rng = np.random.default_rng(3)
    m, k, n = 20, 12, 18
    A = rng.standard_normal((m, k)).astype(np.float32)
    B = rng.standard_normal((k, n)).astype(np.float32)
    dC = cuda.device_array((m, n), dtype=np.float32)
    tile = 16
    matmul_kernel[(_blocks(m, tile), _blocks(n, tile)), (tile, tile)](
        cuda.to_device(A), cuda.to_device(B), dC)
    np.testing.assert_allclose(dC.copy_to_host(), A @ B, rtol=1e-5, atol=1e-5)

    seq = 24
    scores = rng.standard_normal((seq, seq)) * 3
    probs = np.zeros_like(scores)
    softmax_kernel[1, 32](scores, probs, seq)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    np.testing.assert_allclose(probs, e / e.sum(axis=1, keepdims=True), rtol=1e-12)

    x = rng.standard_normal((30, 16))
    w = rng.random(16) + 0.5
    b = rng.standard_normal(16)
    out = np.zeros_like(x)
    d_x, d_w, d_b, d_out = (cuda.to_device(a) for a in (x, w, b, out))
    layer_norm_kernel[_blocks(30, 32), 32](d_x, d_w, d_b, d_out)
    np.testing.assert_allclose(d_out.copy_to_host(), _layer_norm_ref(x, w, b, 1e-5), rtol=1e-10)
    layer_norm_kernel[_blocks(30, 32), 32](d_x, d_w, d_b, d_out, 0.25)
    np.testing.assert_allclose(d_out.copy_to_host(), _layer_norm_ref(x, w, b, 0.25), rtol=1e-10)


# ---- attention scores S = Q K^T * scale through 16x16 shared tiles (K read transposed into its
# tile), then a causal mask and a row softmax with one block per row reducing in shared memory
# (an attention layer written for a course) ----

TILE = 16


def test_attention_tiles_and_block_softmax(cuda):
    @cuda.jit
    def qk_scores(Q, K, S, scale):
        sq = cuda.shared.array((TILE, TILE), float32)
        sk = cuda.shared.array((TILE, TILE), float32)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        row = cuda.blockIdx.y * TILE + ty
        col = cuda.blockIdx.x * TILE + tx
        acc = float32(0.0)
        for t in range((Q.shape[1] + TILE - 1) // TILE):
            kk = t * TILE + tx
            sq[ty, tx] = Q[row, kk] if row < Q.shape[0] and kk < Q.shape[1] else float32(0.0)
            kk = t * TILE + ty
            sk[ty, tx] = K[col, kk] if col < K.shape[0] and kk < K.shape[1] else float32(0.0)
            cuda.syncthreads()
            for j in range(TILE):
                acc += sq[ty, j] * sk[j, tx]
            cuda.syncthreads()
        if row < S.shape[0] and col < S.shape[1]:
            S[row, col] = acc * scale if col <= row else -np.inf

    @cuda.jit
    def block_softmax(S, P):
        buf = cuda.shared.array(128, float32)
        row = cuda.blockIdx.x
        tid = cuda.threadIdx.x
        n = S.shape[1]
        local = -np.inf
        for j in range(tid, n, cuda.blockDim.x):
            local = max(local, S[row, j])
        buf[tid] = local
        cuda.syncthreads()
        s = cuda.blockDim.x // 2
        while s > 0:
            if tid < s:
                buf[tid] = max(buf[tid], buf[tid + s])
            cuda.syncthreads()
            s //= 2
        top = buf[0]
        cuda.syncthreads()
        local = float32(0.0)
        for j in range(tid, n, cuda.blockDim.x):
            local += math.exp(S[row, j] - top)
        buf[tid] = local
        cuda.syncthreads()
        s = cuda.blockDim.x // 2
        while s > 0:
            if tid < s:
                buf[tid] += buf[tid + s]
            cuda.syncthreads()
            s //= 2
        total = buf[0]
        for j in range(tid, n, cuda.blockDim.x):
            P[row, j] = math.exp(S[row, j] - top) / total

    rng = np.random.default_rng(5)
    T, d = 40, 24
    Q = rng.standard_normal((T, d)).astype(np.float32)
    K = rng.standard_normal((T, d)).astype(np.float32)
    scale = np.float32(1.0 / math.sqrt(d))
    dS = cuda.device_array((T, T), dtype=np.float32)
    qk_scores[(_blocks(T, TILE), _blocks(T, TILE)), (TILE, TILE)](
        cuda.to_device(Q), cuda.to_device(K), dS, scale)
    want = (Q @ K.T) * scale
    want[np.triu_indices(T, 1)] = -np.inf
    np.testing.assert_allclose(dS.copy_to_host(), want, rtol=1e-5, atol=1e-5)
    dP = cuda.device_array_like(dS)
    block_softmax[T, 64](dS, dP)
    e = np.exp(want - want.max(axis=1, keepdims=True))
    np.testing.assert_allclose(dP.copy_to_host(), e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-6)


# ---- GELU (tanh form) over a grid-stride loop; an embedding lookup, its gradient scattered back
# with atomic.add on (token, feature) tuples; a cross-entropy loss from per-row log-sum-exp summed
# by one atomic; an Adam step with bias correction (a numba-cuda autograd toy) ----

def test_gelu_embedding_cross_entropy_adam(cuda):
    @cuda.jit
    def gelu(x, out):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        c = math.sqrt(2.0 / math.pi)
        for i in range(start, x.size, stride):
            v = x[i]
            out[i] = 0.5 * v * (1.0 + math.tanh(c * (v + 0.044715 * v * v * v)))

    @cuda.jit
    def embed_forward(table, tokens, out):
        t, f = cuda.grid(2)
        if t < tokens.shape[0] and f < table.shape[1]:
            out[t, f] = table[tokens[t], f]

    @cuda.jit
    def embed_backward(grad_out, tokens, grad_table):
        t, f = cuda.grid(2)
        if t < tokens.shape[0] and f < grad_table.shape[1]:
            cuda.atomic.add(grad_table, (tokens[t], f), grad_out[t, f])

    @cuda.jit
    def cross_entropy(logits, labels, loss):
        r = cuda.grid(1)
        if r >= logits.shape[0]:
            return
        top = logits[r, 0]
        for j in range(1, logits.shape[1]):
            if logits[r, j] > top:
                top = logits[r, j]
        s = 0.0
        for j in range(logits.shape[1]):
            s += math.exp(logits[r, j] - top)
        nll = top + math.log(s) - logits[r, labels[r]]
        cuda.atomic.add(loss, 0, nll / logits.shape[0])

    @cuda.jit
    def adam_step(p, g, m, v, lr, b1, b2, eps, t):
        i = cuda.grid(1)
        if i < p.size:
            m[i] = b1 * m[i] + (1 - b1) * g[i]
            v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i]
            mhat = m[i] / (1 - b1 ** t)
            vhat = v[i] / (1 - b2 ** t)
            p[i] -= lr * mhat / (math.sqrt(vhat) + eps)

    rng = np.random.default_rng(8)
    x = rng.standard_normal(500)
    out = np.zeros_like(x)
    gelu[4, 32](x, out)
    np.testing.assert_allclose(
        out, 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), rtol=1e-12)

    vocab, dim, ntok = 11, 8, 25
    table = rng.standard_normal((vocab, dim))
    tokens = rng.integers(0, vocab, ntok).astype(np.int32)
    emb = cuda.device_array((ntok, dim))
    embed_forward[(_blocks(ntok, 8), 1), (8, 8)](cuda.to_device(table), cuda.to_device(tokens), emb)
    np.testing.assert_array_equal(emb.copy_to_host(), table[tokens])
    grad_out = rng.standard_normal((ntok, dim))
    grad_table = cuda.to_device(np.zeros((vocab, dim)))
    embed_backward[(_blocks(ntok, 8), 1), (8, 8)](grad_out, tokens, grad_table)
    want = np.zeros((vocab, dim))
    np.add.at(want, tokens, grad_out)
    np.testing.assert_allclose(grad_table.copy_to_host(), want, rtol=1e-12, atol=1e-12)

    logits = rng.standard_normal((37, 6))
    labels = rng.integers(0, 6, 37)
    loss = np.zeros(1)
    cross_entropy[2, 32](logits, labels, loss)
    lse = np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) + logits.max(1)
    assert math.isclose(loss[0], np.mean(lse - logits[np.arange(37), labels]), rel_tol=1e-12)

    p = rng.standard_normal(70).astype(np.float32)
    dp, dm, dv = cuda.to_device(p), cuda.to_device(np.zeros(70, np.float32)), \
        cuda.to_device(np.zeros(70, np.float32))
    pw, mw, vw = p.copy(), np.zeros(70, np.float32), np.zeros(70, np.float32)
    lr, b1, b2, eps = np.float32(1e-2), np.float32(0.9), np.float32(0.999), np.float32(1e-8)
    for t in range(1, 4):
        g = (rng.standard_normal(70)).astype(np.float32)
        adam_step[3, 32](dp, cuda.to_device(g), dm, dv, lr, b1, b2, eps, t)
        mw = b1 * mw + (1 - b1) * g
        vw = b2 * vw + (1 - b2) * g * g
        pw -= lr * (mw / (1 - b1 ** t)) / (np.sqrt(vw / (1 - b2 ** t)) + eps)
    np.testing.assert_allclose(dp.copy_to_host(), pw, rtol=2e-5, atol=2e-6)


# ---- a framework's tensors reach kernels through __cuda_array_interface__ alone: a tensor type
# wrapping device memory (as PyTorch's CUDA tensors do), a ReLU and a bias add written into it
# in place, the owner seeing the result without a copy (PyTorch interop in numba-cuda's docs) ----

class _Tensor:
    """A framework's tensor: owns device memory, exposes only the interface."""

    def __init__(self, cuda, host):
        self._storage = cuda.to_device(host)

    @property
    def __cuda_array_interface__(self):
        return self._storage.__cuda_array_interface__

    def numpy(self):
        return self._storage.copy_to_host()


def test_tensor_interop_through_the_interface(cuda):
    @cuda.jit
    def relu_bias_(x, bias):
        r, c = cuda.grid(2)
        if r < x.shape[0] and c < x.shape[1]:
            v = x[r, c] + bias[c]
            x[r, c] = v if v > 0 else 0

    rng = np.random.default_rng(9)
    host = rng.standard_normal((12, 10)).astype(np.float32)
    bias = rng.standard_normal(10).astype(np.float32)
    t = _Tensor(cuda, host)
    b = _Tensor(cuda, bias)
    assert cuda.is_cuda_array(t) and not cuda.is_cuda_array(host)
    view = cuda.as_cuda_array(t)
    assert view.shape == (12, 10) and view.dtype == np.float32
    relu_bias_[(2, 2), (8, 8)](t, b)
    np.testing.assert_array_equal(t.numpy(), np.maximum(host + bias, 0))
    relu_bias_[(2, 2), (8, 8)](view, cuda.as_cuda_array(b))
    np.testing.assert_array_equal(t.numpy(), np.maximum(np.maximum(host + bias, 0) + bias, 0))
