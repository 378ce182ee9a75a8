"""Add one to every element of a matrix with a 2-D grid of 2-D blocks.

`cuda.grid(2)` gives the thread's (x, y) position in the whole grid. Here x runs along the
columns, so neighbouring threads of a warp touch neighbouring addresses (coalesced accesses).
The grid is rounded up, so threads past the edge must do nothing.

    PYJIT_SIMULATOR=1 python examples/gpu_add_one_2d.py      # without a GPU
"""
import numpy as np

from pyjit import cuda


@cuda.jit
def add_one(m):
    col, row = cuda.grid(2)
    if row < m.shape[0] and col < m.shape[1]:
        m[row, col] += 1


def main():
    rows, cols = 50, 70
    host = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
    expected = host + 1

    threads = (16, 16)                                # 256 threads a block, x first
    blocks = ((cols + threads[0] - 1) // threads[0],
              (rows + threads[1] - 1) // threads[1])

    m = cuda.to_device(host)
    add_one[blocks, threads](m)
    assert np.array_equal(m.copy_to_host(), expected), "device array: wrong result"

    # A NumPy array is written in place: the kernel writes m, so it is copied back.
    add_one[blocks, threads](host)
    assert np.array_equal(host, expected), "host array: wrong result"

    # Views of device arrays are device arrays too: add one more to the top-left corner only.
    corner = m[:20, :30]
    add_one[(2, 2), threads](corner)
    expected[:20, :30] += 1
    assert np.array_equal(m.copy_to_host(), expected), "view: wrong result"

    print(f"add one over a {rows}x{cols} matrix with {blocks} blocks of {threads} threads: OK")


if __name__ == "__main__":
    main()
