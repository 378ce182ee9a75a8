"""A NumPy ufunc written in Python: @vectorize compiles the scalar function into ufunc loops.

The result is a real np.ufunc, so NumPy supplies broadcasting, out=, where=, reduce, accumulate
and outer. Without signatures (add_ten_any), a loop is compiled for each new input dtype.
"""
import numpy as np

from pyjit import vectorize


@vectorize(["int64(int64)", "float32(float32)", "float64(float64)"])
def add_ten(x):
    return x + 10


@vectorize(identity=0)
def add_any(a, b):          # dynamic: compiled per input dtypes, on first use
    return a + b


def main():
    a = np.arange(6).reshape(2, 3)
    print("add_ten is a", type(add_ten).__name__, "with loops", add_ten.types)
    print(add_ten(a))
    print(add_ten(np.linspace(0, 1, 3, dtype=np.float32)))
    out = np.zeros(6)
    add_ten(np.arange(6.0), out=out, where=np.arange(6) % 2 == 0)
    print("where=even:", out)
    assert np.array_equal(add_ten(a), a + 10)

    x = np.arange(5.0)
    print("add_any.reduce:", add_any.reduce(x), " outer:\n", add_any.outer(x[:2], x[:3]))
    print("add_any on int32:", add_any(np.arange(3, dtype=np.int32), np.int32(1)), add_any.types)
    assert add_any.reduce(x) == x.sum()


if __name__ == "__main__":
    main()
