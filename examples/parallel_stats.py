"""Statistics of a large array in one pass over all cores, with @njit(parallel=True) and prange.

Each thread keeps private partials of the reductions (a sum, a sum of squares, the minimum, the
maximum and a histogram, an array reduction); pyjit combines them when the loop ends. Prints the
results beside NumPy's, the loops that ran in parallel, and the time on 1 thread and on all.
"""
import time

import numpy as np

import pyjit
from pyjit import njit, prange


@njit(parallel=True)
def stats(x, nbins, nchunks):
    total = 0.0
    squares = 0.0
    lo = x[0]
    hi = x[0]
    hist = np.zeros(nbins, np.int64)
    size = (x.shape[0] + nchunks - 1) // nchunks
    for c in prange(nchunks):
        counts = np.zeros(nbins, np.int64)
        for i in range(c * size, min(x.shape[0], (c + 1) * size)):
            v = x[i]
            total += v
            squares += v * v
            lo = min(lo, v)
            hi = max(hi, v)
            counts[min(int(v * nbins), nbins - 1)] += 1
        hist += counts
    n = x.shape[0]
    mean = total / n
    return mean, np.sqrt(squares / n - mean * mean), lo, hi, hist


def main():
    x = np.random.default_rng(1).random(10**7)
    mean, std, lo, hi, hist = stats(x, 10, 64)
    assert np.isclose(mean, x.mean()) and np.isclose(std, x.std())
    assert lo == x.min() and hi == x.max()
    assert np.array_equal(hist, np.histogram(x, 10, (0.0, 1.0))[0])
    print(f"mean {mean:.6f} std {std:.6f} min {lo:.2e} max {hi:.6f}")
    print("histogram", hist.tolist())
    stats.parallel_diagnostics(level=1)
    for threads in (1, pyjit.get_num_threads()):
        pyjit.set_num_threads(threads)
        t0 = time.perf_counter()
        stats(x, 10, 64)
        print(f"{threads} thread(s): {1e3 * (time.perf_counter() - t0):.1f} ms")


if __name__ == "__main__":
    main()
