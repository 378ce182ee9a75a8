"""A histogram with atomics: many threads add to the same bins at once.

`bins[b] += 1` from many threads loses updates (read, add, write race with each other);
`cuda.atomic.add(bins, b, 1)` does the read-add-write as one indivisible operation and returns
the old value. The kernel first counts into a per-block histogram in shared memory (atomics
there are cheap and contend only within the block), then adds each block's counts to the
global histogram, one atomic per bin per block. A grid-stride loop lets any number of blocks
cover any number of samples.

    PYJIT_SIMULATOR=1 python examples/gpu_histogram.py     # without a GPU
"""
import numpy as np

from pyjit import cuda, int32

NBINS = 64


@cuda.jit
def histogram(x, lo, hi, bins):
    local = cuda.shared.array(NBINS, dtype=int32)
    t = cuda.threadIdx.x
    for b in range(t, NBINS, cuda.blockDim.x):    # shared memory starts uninitialised
        local[b] = 0
    cuda.syncthreads()

    width = (hi - lo) / NBINS
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        v = x[i]
        if v >= lo and v <= hi:                     # int32() truncates toward zero: test first
            b = min(int32((v - lo) / width), NBINS - 1)   # the last bin is closed, as in NumPy
            cuda.atomic.add(local, b, 1)
    cuda.syncthreads()

    for b in range(t, NBINS, cuda.blockDim.x):
        if local[b] != 0:
            cuda.atomic.add(bins, b, local[b])


@cuda.jit
def count_negative(x, counter, first_index):
    i = cuda.grid(1)
    if i < x.shape[0] and x[i] < 0:
        cuda.atomic.add(counter, 0, 1)
        cuda.atomic.min(first_index, 0, i)     # the smallest index over all threads


def main():
    rng = np.random.default_rng(2)
    # Samples on a grid of 1/1024 and bins 1/8 wide: every bin edge is exact in float32, so the
    # kernel's float32 arithmetic and NumPy's float64 put each sample in the same bin.
    x = (np.round(rng.normal(0.0, 1.5, 20000) * 1024) / 1024).astype(np.float32)
    lo, hi = np.float32(-4), np.float32(4)

    bins = cuda.to_device(np.zeros(NBINS, dtype=np.int32))
    histogram[8, 128](cuda.to_device(x), lo, hi, bins)
    expected, _ = np.histogram(x, bins=NBINS, range=(lo, hi))
    assert np.array_equal(bins.copy_to_host(), expected), "histogram: wrong counts"

    counter = np.zeros(1, dtype=np.int32)
    first = np.full(1, x.size, dtype=np.int32)
    count_negative[(x.size + 255) // 256, 256](x, counter, first)     # host arrays
    assert counter[0] == np.count_nonzero(x < 0), "atomic.add: wrong count"
    assert first[0] == np.flatnonzero(x < 0)[0], "atomic.min: wrong index"

    print(f"histogram of {x.size} samples into {NBINS} bins with shared and global atomics: OK")


if __name__ == "__main__":
    main()
