"""Compiling many distinct functions: memory grows by a bounded amount per function.

1000 generated functions (different constants, operators, control flow and argument types)
are compiled and called, each checked against CPython. The growth of the process's memory
(util.memory_in_use: the resident set, or under AddressSanitizer the bytes allocated and not
freed) is measured between the 200th and the 1000th compilation, so one-time costs (LLVM's
own tables, the first JIT session, allocator pools) do not count. Sources are registered with
linecache, as a module's would be, so the compiler sees real source lines."""
import linecache
import math
import os
import time

import numpy as np
import pytest

import pyjit
from util import memory_in_use

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                                reason="needs /proc/self/statm (Linux)")

KB = 1024
TOTAL = 1000
MEASURE_FROM = 200
# A dropped dispatcher gives its code back: measured at well under 1 KB per function. One that
# is kept holds its JIT-compiled code: about 20 KB per function. The dropped bound sits below
# what a kept function costs, so leaking each compilation's code or module fails the test;
# the kept bound is a few times what is measured, for the allocator's slack.
DROPPED_BOUND = 10 * KB
KEPT_BOUND = 128 * KB

OPS = ["+", "-", "*"]
CMPS = ["<", "<=", ">", ">=", "!=", "=="]
MATH = ["math.sin", "math.cos", "math.sqrt", "math.exp", "abs"]

TEMPLATES = [
    # scalar ints: floor division and modulo by a nonzero constant, wrapping-free sizes
    """
def {name}(x, y):
    s = x {op} {c}
    for i in range(y):
        if i % {m} {cmp} {k}:
            s = s {op} i // {m}
        else:
            s -= {c} % (i + 1)
    return s
""",
    # floats and math functions
    """
def {name}(x, y):
    t = {fn}(x * 0.{c}) {op} y
    while t > {k}.5:
        t = t / {m}
    return t
""",
    # arrays: a reduction and an in-place write
    """
def {name}(a, y):
    s = 0.0
    for i in range(a.shape[0]):
        a[i] = a[i] {op} {c}.25
        if a[i] {cmp} {k}:
            s += a[i]
    return s + y
""",
    # tuples, chained comparisons, short-circuit and calls of math
    """
def {name}(x, y):
    p = (x {op} {c}, y - {k})
    if {k} < p[0] <= {c} + {m} or p[1] == {m}:
        return p[0] * 2
    return {fn}(abs(p[1]) * 1.0) + p[0]
""",
]


def sources(start, stop):
    """Distinct (name, source, args) for indices start..stop-1."""
    for i in range(start, stop):
        tpl = TEMPLATES[i % len(TEMPLATES)]
        fn = MATH[(i // 4) % len(MATH)]
        if tpl is TEMPLATES[1] and fn == "math.exp":
            fn = "math.tanh"
        name = f"gen_{i}"
        src = tpl.format(name=name, op=OPS[(i // 3) % 3], cmp=CMPS[(i // 5) % 6], fn=fn,
                         c=i % 97 + 1, k=i % 13, m=i % 7 + 2)
        if tpl is TEMPLATES[2]:
            args = (np.linspace(0.0, 20.0, 16), float(i % 5))
        elif tpl is TEMPLATES[1]:
            args = (float(i % 11) + 0.5, 1.5)
        else:
            args = (i % 50, i % 17 + 1)
        yield name, src, args


def load(name, src, i):
    """exec's src as if it came from a file, with its lines in linecache."""
    filename = f"<pyjit-generated-{i}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = {"math": math, "np": np}
    exec(compile(src, filename, "exec"), ns)
    return ns[name], filename


def same(got, exp):
    if isinstance(exp, float) and math.isnan(exp):
        return math.isnan(got)
    return got == exp or abs(got - exp) <= 1e-9 * max(1.0, abs(exp))


def compile_and_check(i, name, src, args, keep):
    py, filename = load(name, src, i)
    d = pyjit.njit(py)
    a1 = tuple(x.copy() if isinstance(x, np.ndarray) else x for x in args)
    a2 = tuple(x.copy() if isinstance(x, np.ndarray) else x for x in args)
    got, exp = d(*a1), py(*a2)
    assert same(got, exp), f"{name}: compiled {got!r}, CPython {exp!r}\n{src}"
    for x, y in zip(a1, a2):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(x, y, rtol=1e-12)
    if keep is not None:
        keep.append(d)
    else:
        del linecache.cache[filename]


def run(keep, base):
    start = time.perf_counter()
    before = None
    for n, (name, src, args) in enumerate(sources(base, base + TOTAL), 1):
        compile_and_check(base + n, name, src, args, keep)
        if n == MEASURE_FROM:
            before = memory_in_use()
    grown = memory_in_use() - before
    return grown / (TOTAL - MEASURE_FROM), time.perf_counter() - start


def test_sources_are_distinct_and_valid():
    """Every generated function runs in CPython without an error: otherwise a failure below
    would be the generator's."""
    srcs = [src for base in (0, 5000) for _, src, _ in sources(base, base + TOTAL)]
    assert len(set(srcs)) == 2 * TOTAL
    for base in (0, 5000):
        for name, src, args in sources(base, base + TOTAL):
            py, filename = load(name, src, 0)
            py(*[x.copy() if isinstance(x, np.ndarray) else x for x in args])
            del linecache.cache[filename]


@pytest.mark.slow
def test_compiling_1000_dropped_functions_is_bounded():
    per_function, took = run(None, 0)
    assert per_function < DROPPED_BOUND, \
        f"memory grew {per_function / KB:.0f} KB per compiled function ({took:.1f} s)"


@pytest.mark.slow
def test_compiling_1000_kept_functions_is_bounded():
    kept = []
    per_function, took = run(kept, 5000)
    assert len(kept) == TOTAL
    assert all(len(d.signatures) == 1 for d in kept)
    assert per_function < KEPT_BOUND, \
        f"memory grew {per_function / KB:.0f} KB per kept function ({took:.1f} s)"
