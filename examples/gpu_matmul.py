"""The classic shared-memory tiled matrix product, C = A @ B, in float32.

Each block computes a TPB x TPB tile of C. It walks along A's rows and B's columns one tile at
a time: every thread loads one element of each tile into shared memory, the block waits
(syncthreads) until the tiles are complete, each thread adds its TPB products, and the block
waits again before the tiles are overwritten. Every element of A and B is read from global
memory N / TPB times instead of N times.

    PYJIT_SIMULATOR=1 python examples/gpu_matmul.py      # without a GPU (a few seconds)
"""
import numpy as np

from pyjit import cuda, float32

TPB = 16        # threads per block along each axis; a global, so a compile-time constant


@cuda.jit
def matmul(A, B, C):
    sA = cuda.shared.array((TPB, TPB), dtype=float32)
    sB = cuda.shared.array((TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)                 # x: column of C, y: row of C
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y

    tmp = float32(0.)                   # a float32 accumulator: no float64 in the loop
    for t in range((A.shape[1] + TPB - 1) // TPB):
        # Load one tile of A and one of B; zeros past the edges (sizes need not divide by TPB).
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and t * TPB + tx < A.shape[1]:
            sA[ty, tx] = A[y, t * TPB + tx]
        if x < B.shape[1] and t * TPB + ty < B.shape[0]:
            sB[ty, tx] = B[t * TPB + ty, x]
        cuda.syncthreads()              # the tiles are complete

        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()              # everyone is done with the tiles before the next load

    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


def main():
    n, k, m = 40, 56, 36                # not multiples of 16: the edge handling is exercised
    rng = np.random.default_rng(1)
    A = rng.random((n, k), dtype=np.float32)
    B = rng.random((k, m), dtype=np.float32)

    d_A = cuda.to_device(A)
    d_B = cuda.to_device(B)
    d_C = cuda.device_array((n, m), dtype=np.float32)
    blocks = ((m + TPB - 1) // TPB, (n + TPB - 1) // TPB)
    matmul[blocks, (TPB, TPB)](d_A, d_B, d_C)
    C = d_C.copy_to_host()

    assert C.dtype == np.float32
    assert np.allclose(C, A @ B, rtol=1e-5, atol=1e-5), "wrong product"
    print(f"tiled matmul ({n}x{k}) @ ({k}x{m}) with {blocks} blocks of {TPB}x{TPB}: OK")


if __name__ == "__main__":
    main()
