"""The registry leaves the names of its late modules (the GPU backend's kernel language,
numpy.random, numpy.polynomial, random, heapq, cmath) until they are imported
(pyjit/_registry.py: LATE_MODULES, late()): a first compilation that uses none of them does
not pay for importing them, and code that uses them still compiles, with the same results and
the same errors. Each case runs in a fresh interpreter, where nothing has imported those
modules yet."""
import pytest

from pyjit import _core
from util import run_subprocess

GPU_CODEGEN = hasattr(_core, "cuda_compile_ptx")


def _ok(code, env=None):
    rc, out, err = run_subprocess(code, env=env)
    assert rc == 0, err
    return out.split()


def test_cpu_compilation_imports_no_gpu_backend():
    out = _ok("""
import sys, numpy as np
already = "random" in sys.modules   # some Pythons' own start-up imports it (3.12's tempfile)
import pyjit
from pyjit import njit

@njit
def add(a, b):
    return a + b

@njit
def total(a):
    s = 0.0
    for x in a:
        s += np.sqrt(x)
    return s

print(add(1, 2) == 3, total(np.arange(4.0)) == sum(np.sqrt(np.arange(4.0))))
late = [m for m in sys.modules
        if m.startswith(("pyjit.gpu.", "numpy.random", "numpy.polynomial")) or (m == "random" and not already)]
print(late == [] or late)
""")
    assert out == ["True", "True", "True"]


def test_late_names_resolve_once_their_modules_are_imported():
    """numpy.random and numpy.polynomial, reached as attributes of numpy after the registry was
    filled: the same results as NumPy's (the same seeded stream)."""
    out = _ok("""
import sys, numpy as np
from pyjit import njit

@njit
def add(a, b):
    return a + b

add(1, 2)
assert "numpy.random" not in sys.modules

def draws(n):
    np.random.seed(n)
    return np.random.rand() + np.random.choice(np.arange(5)) + np.random.randint(0, 10)

def poly(x):
    return np.polynomial.polynomial.polyval(x, np.array([1.0, 2.0, 3.0]))

print(njit(draws)(7) == draws(7), njit(poly)(1.5) == poly(1.5))
""")
    assert out == ["True", "True"]


STDLIB = """
import sys, numpy as np
from pyjit import njit
{before}
@njit
def add(a, b):
    return a + b
add(1, 2)
import random, heapq, cmath

def f(n):
    random.seed(n)
    h = [5.0, 1.0, 3.0, n]
    heapq.heapify(h)
    return random.random() + random.randint(0, 9) + h[0] + cmath.sqrt(-n).imag

print(njit(f)(3), njit(f)(4))
"""


def test_stdlib_late_modules_compile_as_when_imported_first():
    """random, heapq and cmath imported after the registry was filled: the same results as in
    a process that imported them before its first compilation."""
    late = run_subprocess(STDLIB.format(before=""))
    eager = run_subprocess(STDLIB.format(before="import random, heapq, cmath"))
    assert late[0] == 0 and eager[0] == 0, late[2] + eager[2]
    assert late[1] == eager[1] and len(late[1].split()) == 2


def test_second_registry_gets_the_late_names_too():
    out = _ok("""
import sys, numpy as np
from pyjit import _registry
first = _registry.populate()
second = _registry.populate({})
assert "numpy.random" not in sys.modules
seed = np.random.seed          # imports numpy.random
print(_registry.late(), first.get(seed) == second.get(seed) == "numpy.random.seed",
      _registry.late())
""")
    assert out == ["True", "True", "False"]


KERNEL = """
import sys, numpy as np
from pyjit import njit, _registry
{before}
@njit
def add(a, b):
    return a + b
add(1, 2)
from pyjit import gpu, cuda

def k(x, out):
    s = cuda.shared.array(32, np.float32)
    i = gpu.grid(1)
    s[cuda.threadIdx.x] = gpu.libdevice.sinf(x[i]) + gpu.laneid
    gpu.syncthreads()
    gpu.atomic.add(out, 0, s[0])

def bad(x):
    x[0] = gpu.no_such_intrinsic(1.0)

ptx, _ = gpu.compile_ptx(k, "void(float32[:], float32[:])")
print("%laneid" in ptx, "bar.sync" in ptx,
      "atom.global.add.f32" in ptx or "red.global.add.f32" in ptx)
try:
    gpu.compile_ptx(bad, "void(float32[:])")
except Exception as e:
    print("ERROR", type(e).__name__, str(e).replace(chr(10), " "))
"""


@pytest.mark.skipif(not GPU_CODEGEN, reason="this pyjit has no GPU code generation")
def test_kernel_language_resolves_after_a_cpu_compilation():
    """A kernel compiled after the registry was filled without the GPU backend compiles as one
    compiled with it there from the start, and an unknown name is the same error."""
    late = run_subprocess(KERNEL.format(before=""))
    eager = run_subprocess(KERNEL.format(before="from pyjit.gpu import hardware"))
    assert late[0] == 0 and eager[0] == 0, late[2] + eager[2]
    assert late[1].split()[:3] == ["True", "True", "True"]
    assert late[1] == eager[1]
    assert "ERROR" in late[1] and "no_such_intrinsic" in late[1]


def test_cpu_simulator_kernel_after_a_cpu_compilation():
    out = _ok("""
import numpy as np
from pyjit import njit, gpu

@njit
def add(a, b):
    return a + b
add(1, 2)

@gpu.jit
def scale(x, out):
    i = gpu.grid(1)
    if i < x.size:
        out[i] = gpu.libdevice.sqrt(x[i]) * 2

x = np.arange(64.0)
out = np.zeros_like(x)
scale[2, 32](x, out)
print(np.allclose(out, np.sqrt(x) * 2))
""", env={"PYJIT_SIMULATOR": "cpu"})
    assert out == ["True"]
