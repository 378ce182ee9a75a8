"""Mandelbrot set with complex numbers, compiled with @njit.

Renders the set as ASCII art, prints a checksum of the iteration counts (checked against the
same function run by CPython on a coarse grid) and the time of the first call (compilation
included) and of a second one.
"""
import time

import numpy as np

from pyjit import njit

CHARS = " .:-=+*#%@"


@njit
def escape_time(c, max_iter):
    z = 0j
    for n in range(max_iter):
        z = z * z + c
        if z.real * z.real + z.imag * z.imag > 4.0:
            return n
    return max_iter


@njit
def mandelbrot(xmin, xmax, ymin, ymax, max_iter, out):
    height, width = out.shape
    dx = (xmax - xmin) / width
    dy = (ymax - ymin) / height
    for i in range(height):
        y = ymin + (i + 0.5) * dy          # the centre of each pixel
        for j in range(width):
            out[i, j] = escape_time(complex(xmin + (j + 0.5) * dx, y), max_iter)


def render(counts, max_iter):
    # Square-root scale: most points escape within a few iterations.
    shade = np.sqrt(counts / max_iter) * (len(CHARS) - 1)
    return "\n".join("".join(CHARS[int(v)] for v in row) for row in shade)


def main():
    max_iter = 100
    region = (-2.0, 1.0, -1.2, 1.2)

    art = np.zeros((24, 72), dtype=np.int64)
    t0 = time.perf_counter()
    mandelbrot(*region, max_iter, art)            # compiles escape_time and mandelbrot
    first = time.perf_counter() - t0
    print(render(art, max_iter))

    # The compiled function must agree with the same source run by CPython.
    expected = np.zeros_like(art)
    mandelbrot.py_func(*region, max_iter, expected)
    assert np.array_equal(art, expected), "compiled and interpreted results differ"

    big = np.zeros((600, 900), dtype=np.int64)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        mandelbrot(*region, max_iter, big)
        times.append(time.perf_counter() - t0)
    print(f"first call (compiling) {1e3 * first:.1f} ms; 900x600, {max_iter} iterations: "
          f"checksum {int(big.sum())}, best of 3 {1e3 * min(times):.1f} ms")


if __name__ == "__main__":
    main()
