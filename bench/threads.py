"""nogil=True in threads: how much faster N Python threads calling a compute-bound compiled
function finish than the same calls made one after another, with and without nogil.

    python bench/threads.py [--threads N] [--repeat R]

Prints the median serial and threaded times of R runs and their ratio (the speed-up; ideal is
min(N, cores) with nogil=True, about 1.0 without it)."""
import argparse
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pyjit  # noqa: E402  (the in-place build of this checkout)


def spin(n, seed):
    x = seed
    acc = 0.0
    for i in range(n):
        x = (x * 48271 + i) % 2147483647
        acc += (x % 1000) * 0.001 - 0.4995
    return acc


def threaded(fn, n, nthreads):
    threads = [threading.Thread(target=fn, args=(n, k)) for k in range(nthreads)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def serial(fn, n, nthreads):
    start = time.perf_counter()
    for k in range(nthreads):
        fn(n, k)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--n", type=int, default=20_000_000)
    args = parser.parse_args()
    print(f"{args.threads} threads, {os.cpu_count()} cores, n={args.n}, median of {args.repeat}")
    print(f"{'':12} {'serial s':>10} {'threads s':>10} {'speed-up':>9}")
    for label, options in (("nogil=True", {"nogil": True}), ("GIL held", {})):
        fn = pyjit.njit(**options)(spin)
        fn(1, 0)
        s = statistics.median(serial(fn, args.n, args.threads) for _ in range(args.repeat))
        t = statistics.median(threaded(fn, args.n, args.threads) for _ in range(args.repeat))
        print(f"{label:12} {s:10.3f} {t:10.3f} {s / t:8.2f}x")


if __name__ == "__main__":
    main()
