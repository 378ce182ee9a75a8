"""Reductions on the GPU with cuda.reduce: give the binary function, get a reduction of arrays.

`@cuda.reduce` turns a function of two values into an object that reduces a 1-D array (host
or device) to one value. The function must be associative and commutative: the GPU combines
the elements as a tree, in no fixed order. `init=` gives the starting value, `res=` a device
array of one element that receives the result without a copy to the host.

    PYJIT_SIMULATOR=1 python examples/gpu_reduce_sum.py       # without a GPU
"""
# pyjit: gpu  (scripts/examples.sh runs this in the simulator where there is no GPU)
import numpy as np

from pyjit import cuda


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.reduce
def max_reduce(a, b):
    return max(a, b)


def main():
    rng = np.random.default_rng(5)
    x = rng.integers(-1000, 1000, 10000).astype(np.int64)

    assert sum_reduce(x) == x.sum(), "sum of a host array is wrong"
    assert sum_reduce(x, init=7) == x.sum() + 7, "init= is wrong"
    assert max_reduce(x, init=x[0]) == x.max(), "max is wrong"

    d_x = cuda.to_device(x)
    res = cuda.device_array(1, dtype=np.int64)
    sum_reduce(d_x, res=res)                        # the result stays on the GPU
    assert res.copy_to_host()[0] == x.sum(), "sum into res= is wrong"
    assert sum_reduce(d_x, size=100) == x[:100].sum(), "size= is wrong"

    f = rng.random(5000, dtype=np.float32)
    total = sum_reduce(f)
    assert np.isclose(total, f.sum(dtype=np.float64), rtol=1e-5), "float32 sum is wrong"

    print(f"cuda.reduce sums and maxima of {x.size} int64 and {f.size} float32: OK")


if __name__ == "__main__":
    main()
