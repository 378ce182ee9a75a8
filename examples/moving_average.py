"""A moving average as a generalized ufunc: @guvectorize with the layout '(n),()->(n)'.

The kernel sees one row (a 1-d view) and the window width, and writes its output row; NumPy
loops it over every row of any-dimensional input, broadcasting the width. target='parallel'
spreads the rows over all cores.
"""
import numpy as np

from pyjit import guvectorize


def moving_mean(a, width, out):
    asum = 0.0
    count = 0
    for i in range(width):
        asum += a[i]
        count += 1
        out[i] = asum / count
    for i in range(width, len(a)):
        asum += a[i] - a[i - width]
        out[i] = asum / count


move_mean = guvectorize(["void(float64[:], int64, float64[:])",
                         "void(float32[:], int64, float32[:])"], "(n),()->(n)")(moving_mean)
move_mean_parallel = guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->(n)",
                                 target="parallel")(moving_mean)


def reference(a, width):
    c = np.cumsum(a, axis=-1)
    out = np.empty(a.shape)
    n = a.shape[-1]
    for i in range(n):
        lo = i - width
        out[..., i] = (c[..., i] - (c[..., lo] if lo >= 0 else 0)) / min(i + 1, width)
    return out


def main():
    a = np.arange(20, dtype=np.float64).reshape(2, 10)
    print(move_mean.signature, move_mean.types)
    print(move_mean(a, 3))
    assert np.allclose(move_mean(a, 3), reference(a, 3))
    big = np.random.default_rng(0).normal(size=(2000, 1000))
    assert np.allclose(move_mean_parallel(big, 50), reference(big, 50))
    print("parallel moving average over", big.shape, "matches")


if __name__ == "__main__":
    main()
