"""A teaching autodiff library's CUDA backend (MiniTorch's cuda_ops), the import switched to
pyjit: tensors as flat float64 storage with int32 shape and stride arrays; the library's plain
Python index helpers (`to_index`, `index_to_position` zipping a local index with the strides,
`broadcast_index`) and the user's scalar functions made device functions by `cuda.jit(device=True)`
applied to them; higher-order kernel factories (`tensor_map`, `tensor_zip`, `tensor_reduce`)
returning `cuda.jit()(_map)`-style kernels that call the function they close over, with
annotated parameters (`out: Storage`, `out_size: int`); a practice block sum over shared memory;
a batched matrix product over shared tiles indexed by strides and `blockIdx.z`.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy.
"""
import math
import os
import sys
from typing import Callable

import numpy as np
import numpy.typing as npt
import pytest

from pyjit import float64, int32

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU

Storage = npt.NDArray[np.float64]
Index = npt.NDArray[np.int32]
Shape = npt.NDArray[np.int32]
Strides = npt.NDArray[np.int32]
MAX_DIMS = 8
THREADS = 32
REDUCE_BLOCK = 64
MM_BLOCK = 8


# ---- the library's index helpers, plain Python (the CPU backend @njit's them) ----

def index_to_position(index: Index, strides: Strides) -> int:
    position = 0
    for ind, stride in zip(index, strides):
        position += ind * stride
    return position


def to_index(ordinal: int, shape: Shape, out_index: Index) -> None:
    cur = ordinal + 0
    for i in range(len(shape) - 1, -1, -1):
        sh = shape[i]
        out_index[i] = int(cur % sh)
        cur = cur // sh


def broadcast_index(big_index: Index, big_shape: Shape, shape: Shape, out_index: Index) -> None:
    for i, s in enumerate(shape):
        if s > 1:
            out_index[i] = big_index[i + (len(big_shape) - len(shape))]
        else:
            out_index[i] = 0
    return None


# ---- the user's scalar functions (the library's operators module) ----

def neg(x: float) -> float:
    return -1.0 * x


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    return math.exp(x) / (1.0 + math.exp(x))


def mul(x: float, y: float) -> float:
    return x * y


def lt(x: float, y: float) -> float:
    return 1.0 if x < y else 0.0


def maximum(x: float, y: float) -> float:
    return x if x > y else y


def _backend(cuda):
    """The library's cuda_ops module, built over the backend under test."""
    def device_jit(fn, **kwargs):
        return cuda.jit(device=True, **kwargs)(fn)

    to_index_d = device_jit(to_index)
    position_d = device_jit(index_to_position)
    broadcast_d = device_jit(broadcast_index)

    def tensor_map(fn: Callable[[float], float]):
        def _map(out: Storage, out_shape: Shape, out_strides: Strides, out_size: int,
                 in_storage: Storage, in_shape: Shape, in_strides: Strides) -> None:
            out_index = cuda.local.array(MAX_DIMS, int32)
            in_index = cuda.local.array(MAX_DIMS, int32)
            i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
            if i >= out_size:
                return
            to_index_d(i, out_shape, out_index)
            broadcast_d(out_index, out_shape, in_shape, in_index)
            out[position_d(out_index, out_strides)] = fn(in_storage[position_d(in_index,
                                                                                in_strides)])
        return cuda.jit()(_map)

    def tensor_zip(fn: Callable[[float, float], float]):
        def _zip(out: Storage, out_shape: Shape, out_strides: Strides, out_size: int,
                 a_storage: Storage, a_shape: Shape, a_strides: Strides,
                 b_storage: Storage, b_shape: Shape, b_strides: Strides) -> None:
            out_index = cuda.local.array(MAX_DIMS, int32)
            a_index = cuda.local.array(MAX_DIMS, int32)
            b_index = cuda.local.array(MAX_DIMS, int32)
            i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
            if i >= out_size:
                return
            to_index_d(i, out_shape, out_index)
            broadcast_d(out_index, out_shape, a_shape, a_index)
            broadcast_d(out_index, out_shape, b_shape, b_index)
            out[position_d(out_index, out_strides)] = fn(
                a_storage[position_d(a_index, a_strides)],
                b_storage[position_d(b_index, b_strides)])
        return cuda.jit()(_zip)

    def tensor_reduce(fn: Callable[[float, float], float]):
        def _reduce(out: Storage, out_shape: Shape, out_strides: Strides, out_size: int,
                    a_storage: Storage, a_shape: Shape, a_strides: Strides, reduce_dim: int,
                    reduce_value: float) -> None:
            cache = cuda.shared.array(REDUCE_BLOCK, float64)
            out_index = cuda.local.array(MAX_DIMS, int32)
            out_pos = cuda.blockIdx.x
            pos = cuda.threadIdx.x
            reduce_size = a_shape[reduce_dim]
            to_index_d(out_pos, out_shape, out_index)
            block = out_index[reduce_dim] if reduce_dim < len(out_shape) else 0
            k = block * REDUCE_BLOCK + pos
            cache[pos] = reduce_value
            if k < reduce_size:
                out_index[reduce_dim] = k
                cache[pos] = a_storage[position_d(out_index, a_strides)]
            cuda.syncthreads()
            if pos == 0:
                acc = reduce_value
                for j in range(min(REDUCE_BLOCK, reduce_size - block * REDUCE_BLOCK)):
                    acc = fn(acc, cache[j])
                out[out_pos] = acc
        return cuda.jit(_reduce)

    def _sum_practice(out: Storage, a: Storage, size: int) -> None:
        cache = cuda.shared.array(THREADS, float64)
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        pos = cuda.threadIdx.x
        cache[pos] = a[i] if i < size else 0.0
        cuda.syncthreads()
        if pos == 0:
            s = 0.0
            for j in range(THREADS):
                s += cache[j]
            out[cuda.blockIdx.x] = s

    def _matmul(out: Storage, out_shape: Shape, out_strides: Strides, out_size: int,
                a_storage: Storage, a_shape: Shape, a_strides: Strides,
                b_storage: Storage, b_shape: Shape, b_strides: Strides) -> None:
        a_batch = a_strides[0] if a_shape[0] > 1 else 0
        b_batch = b_strides[0] if b_shape[0] > 1 else 0
        batch = cuda.blockIdx.z
        a_tile = cuda.shared.array((MM_BLOCK, MM_BLOCK), float64)
        b_tile = cuda.shared.array((MM_BLOCK, MM_BLOCK), float64)
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        j = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        pi = cuda.threadIdx.x
        pj = cuda.threadIdx.y
        acc = 0.0
        for k0 in range(0, a_shape[2], MM_BLOCK):
            k = k0 + pj
            if i < a_shape[1] and k < a_shape[2]:
                a_tile[pi, pj] = a_storage[batch * a_batch + i * a_strides[1] + k * a_strides[2]]
            else:
                a_tile[pi, pj] = 0.0
            k = k0 + pi
            if j < b_shape[2] and k < b_shape[1]:
                b_tile[pi, pj] = b_storage[batch * b_batch + k * b_strides[1] + j * b_strides[2]]
            else:
                b_tile[pi, pj] = 0.0
            cuda.syncthreads()
            for kk in range(MM_BLOCK):
                acc += a_tile[pi, kk] * b_tile[kk, pj]
            cuda.syncthreads()
        if i < out_shape[1] and j < out_shape[2]:
            out[batch * out_strides[0] + i * out_strides[1] + j * out_strides[2]] = acc

    return tensor_map, tensor_zip, tensor_reduce, cuda.jit()(_sum_practice), cuda.jit(_matmul)


def _tensor(arr):
    """(storage, shape, strides) of a C-contiguous float64 array, as TensorData.tuple()."""
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    return (arr.ravel().copy(), np.array(arr.shape, dtype=np.int32),
            np.array([s // 8 for s in arr.strides], dtype=np.int32))


def _blocks(n):
    return (n + THREADS - 1) // THREADS


def test_map_zip_broadcasting(cuda):
    tensor_map, tensor_zip, _, _, _ = _backend(cuda)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 5))
    b = rng.standard_normal((4, 1))
    for fn, want in ((neg, -a), (sigmoid, 1 / (1 + np.exp(-a)))):
        out = _tensor(np.zeros_like(a))
        tensor_map(cuda.jit(device=True)(fn))[_blocks(a.size), THREADS](*out, a.size, *_tensor(a))
        np.testing.assert_allclose(out[0].reshape(a.shape), want, rtol=1e-12)
    # a column broadcast into a (4, 5) row block: map of a smaller tensor into a larger out
    small = rng.standard_normal((1, 5))
    out = _tensor(np.zeros((4, 5)))
    tensor_map(cuda.jit(device=True)(neg))[1, THREADS](*out, 20, *_tensor(small))
    np.testing.assert_allclose(out[0].reshape(4, 5), -np.broadcast_to(small, (4, 5)))
    for fn, want in ((mul, a * b), (lt, (a < b).astype(float))):
        shape = np.broadcast_shapes(a.shape, b.shape)
        out = _tensor(np.zeros(shape))
        n = int(np.prod(shape))
        tensor_zip(cuda.jit(device=True)(fn))[_blocks(n), THREADS](*out, n, *_tensor(a),
                                                                   *_tensor(b))
        np.testing.assert_allclose(out[0].reshape(shape), want, rtol=1e-12)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_reduce_along_a_dim(cuda, dim):
    _, _, tensor_reduce, _, _ = _backend(cuda)
    a = np.random.default_rng(2).standard_normal((3, 70, 4)) if dim == 1 else \
        np.random.default_rng(2).standard_normal((5, 3, 6))
    for fn, start, ref in ((mul, 1.0, np.prod), (maximum, -1e9, np.max)):
        shape = list(a.shape)
        shape[dim] = (a.shape[dim] - 1) // REDUCE_BLOCK + 1
        out = _tensor(np.zeros(shape))
        n = int(np.prod(shape))
        tensor_reduce(cuda.jit(device=True)(fn))[n, REDUCE_BLOCK](*out, n, *_tensor(a), dim, start)
        got = out[0].reshape(shape)
        if shape[dim] == 1:
            np.testing.assert_allclose(got, ref(a, axis=dim, keepdims=True), rtol=1e-10)
        else:   # partial results per block of the reduced dimension, combined on the host
            parts = [ref(np.take(a, range(s, min(s + REDUCE_BLOCK, a.shape[dim])), axis=dim),
                         axis=dim, keepdims=True)
                     for s in range(0, a.shape[dim], REDUCE_BLOCK)]
            np.testing.assert_allclose(got, np.concatenate(parts, axis=dim), rtol=1e-10)


def test_sum_practice_and_batched_matmul(cuda):
    _, _, _, sum_practice, matmul = _backend(cuda)
    x = np.random.default_rng(3).standard_normal(100)
    out = np.zeros(_blocks(100))
    sum_practice[_blocks(100), THREADS](out, x, 100)
    np.testing.assert_allclose(out, [x[i:i + THREADS].sum() for i in range(0, 100, THREADS)])

    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 10, 7))
    b = rng.standard_normal((1, 7, 12))     # broadcast over the batch
    c = np.zeros((2, 10, 12))
    grid = ((10 + MM_BLOCK - 1) // MM_BLOCK, (12 + MM_BLOCK - 1) // MM_BLOCK, 2)
    out = _tensor(c)
    matmul[grid, (MM_BLOCK, MM_BLOCK, 1)](*out, c.size, *_tensor(a), *_tensor(b))
    np.testing.assert_allclose(out[0].reshape(c.shape), a @ b, rtol=1e-12)
