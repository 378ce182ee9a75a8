"""The simulator accepts what the GPU compiler accepts, and refuses what it refuses.

Each case is a kernel and a launch. It runs once in the simulator (PYJIT_SIMULATOR=1) and once
through the compiled path: gpu.compile_ptx for what the compiler decides, the argument typing of a
compiled launch (_core.typeof(value, gpu=True), what runtime/launch.c types arguments with, and a
real launch where a GPU is present) for arguments, and a compiled launch for the configuration
(checked before any GPU is needed). Both must raise the same exception class (or none), and the
message both give where the case names one.
"""
import re
import textwrap

import pytest

from pyjit import _core
from util import run_subprocess

pytestmark = pytest.mark.skipif(not hasattr(_core, "cuda_compile_ptx"),
                                reason="pyjit built without the GPU compiler")

PRELUDE = """
import numpy as np
from pyjit import _core, gpu
N = 16

def atomic_kernel(op, dtype):
    fn = getattr(gpu.atomic, op)
    def k(a):
        fn(a, 0, 1)
    return k

def shared_param(a, n):
    s = gpu.shared.array(n, np.float64)
    s[0] = 1.0
    a[0] = s[0]

def shared_const(a):
    s = gpu.shared.array(N, np.float64)
    s[0] = 2.0
    a[0] = s[0]

def shared_folded(a):
    s = gpu.shared.array((N + 1, 2 * N - (-N // 3)), np.float64)
    t = gpu.local.array(N << 1, np.int32)
    t[0] = 3
    s[N, 2 * N + 1] = 2.0
    a[0] = s[N, 2 * N + 1] + t[0]

def shared_huge(a):
    s = gpu.shared.array(10**9, np.float64)
    s[0] = 1.0
    a[0] = s[0]

def local_param(a, n):
    s = gpu.local.array(n, np.float64)
    s[0] = 1.0
    a[0] = s[0]

def local_negative(a):
    s = gpu.local.array(-1, np.float64)
    a[0] = 1.0

def local_empty_axis(a):
    s = gpu.local.array((2, 0), np.int32)
    a[0] = 1.0

def shared_negative(a):
    s = gpu.shared.array((4, -2), np.float64)
    a[0] = 1.0

def shared_float_shape(a):
    s = gpu.shared.array(4.0, np.float64)
    a[0] = 1.0

def shared_dynamic(a):
    s = gpu.shared.array(0, np.float64)
    a[0] = 1.0

@gpu.jit(device=True)
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)

def recursive_device(a):
    a[0] = fact(5)

def makes_list(a):
    xs = [1.0, 2.0]
    a[0] = xs[0]

def comprehension(a):
    a[0] = [i * 2.0 for i in range(3)][1]

def makes_dict(a):
    d = {1: 2.0}
    a[0] = d[1]

def makes_set(a):
    s = {1.0, a[1]}
    a[0] = len(s)

def catches(a):
    try:
        a[0] = 1.0 / a[1]
    except ZeroDivisionError:
        a[0] = -1.0

def store(a):
    a[0] = 1

def ident(a):
    pass

def report(f):
    try:
        f()
        print("RESULT", "ok")
    except Exception as e:
        print("RESULT", type(e).__name__)
        print("MESSAGE", str(e).splitlines()[0] if str(e) else "")
"""

# (id, kernel expression, signature for compile_ptx or None, launch arguments, message part)
ATOMICS = [(f"atomic_{op}_{dt}", f"atomic_kernel({op!r}, {dt!r})", f"void({sig}[:])",
            f"np.zeros(4, {dt!r})", f"gpu.atomic.{op}() does not support arrays of {dt}"
            if bad else None)
           for op, dt, sig, bad in [
               ("add", "complex128", "complex128", True), ("add", "bool", "boolean", True),
               ("add", "int8", "int8", True), ("max", "int8", "int8", True),
               ("and_", "float64", "float64", True), ("xor", "bool", "boolean", True),
               ("add", "float32", "float32", False), ("add", "int32", "int32", False),
               ("and_", "uint64", "uint64", False), ("max", "float64", "float64", False)]]

COMPILED = ATOMICS + [
    ("shared_runtime_shape", "shared_param", "void(float64[:], int64)", "np.zeros(4), 3",
     "gpu.shared.array() argument 1 must be a constant int or tuple of ints"),
    ("shared_const_shape", "shared_const", "void(float64[:])", "np.zeros(4)", None),
    ("shared_folded_shape", "shared_folded", "void(float64[:])", "np.zeros(4)", None),
    ("shared_over_limit", "shared_huge", "void(float64[:])", "np.zeros(4)",
     "of 8000000000 bytes takes the block's shared memory to 8000000000 bytes, over the "
     "49152-byte limit"),
    ("local_runtime_shape", "local_param", "void(float64[:], int64)", "np.zeros(4), 3",
     "gpu.local.array() argument 1 must be a constant int or tuple of ints"),
    ("local_negative_shape", "local_negative", "void(float64[:])", "np.zeros(4)",
     "invalid local array shape (axis 0 is -1)"),
    ("local_empty_axis", "local_empty_axis", "void(float64[:])", "np.zeros(4)",
     "invalid local array shape (axis 1 is 0)"),
    ("shared_negative_shape", "shared_negative", "void(float64[:])", "np.zeros(4)",
     "invalid shared array shape (axis 1 is -2)"),
    ("shared_float_shape", "shared_float_shape", "void(float64[:])", "np.zeros(4)",
     "gpu.shared.array() argument 1 must be a constant int or tuple of ints"),
    ("shared_dynamic", "shared_dynamic", "void(float64[:])", "np.zeros(4)", None),
    ("list", "makes_list", "void(float64[:])", "np.zeros(4)", "lists are not supported in GPU kernels"),
    ("dict", "makes_dict", "void(float64[:])", "np.zeros(4)", "dicts are not supported in GPU kernels"),
    ("set", "makes_set", "void(float64[:])", "np.zeros(4)", "sets are not supported in GPU kernels"),
    ("try_except", "catches", "void(float64[:])", "np.zeros(4)",
     "try/except and try/finally are not supported in GPU kernels"),
    # the GPU compiler of 3.12, which inlines comprehensions, refuses the comprehension itself
    ("list_comprehension", "comprehension", "void(float64[:])", "np.zeros(4)", "not supported"),
    ("recursive_device_function", "recursive_device", "void(int64[:])", "np.zeros(4, np.int64)",
     None),
]

ARGUMENTS = [
    ("datetime64", "np.zeros(4, 'M8[s]')", "got ndarray of dtype datetime64[s]"),
    ("structured", "np.zeros(4, [('x', 'f8'), ('y', 'i4')])", None),
    ("structured_str_field", "np.zeros(4, [('s', 'U3'), ('x', 'f8')])", "got ndarray of dtype"),
    ("big_endian", "np.zeros(4, '>f8')", "non-native byte order"),
    ("object", "object()", "argument 'a'"),
    ("float64_array", "np.zeros(4)", None),
    ("int", "3", None),
]

CONFIGS = [
    ("griddim_4_tuple", "(1, 1, 1, 1), 1"),
    ("blockdim_4_tuple", "1, (1, 1, 1, 1)"),
    ("config_of_5", "1, 1, 0, 0, 0"),
    ("config_of_1", "(1,)"),
]


def _run(body, simulator):
    code = PRELUDE + textwrap.dedent(body)
    rc, out, err = run_subprocess(code, env={"PYJIT_SIMULATOR": "1" if simulator else "0"})
    assert rc == 0, err
    result = re.search(r"^RESULT (\w+)$", out, re.M).group(1)
    m = re.search(r"^MESSAGE (.*)$", out, re.M)
    return result, m.group(1) if m else ""


@pytest.mark.parametrize("case", COMPILED, ids=[c[0] for c in COMPILED])
def test_compile_matches_simulator(case):
    _, kernel, sig, args, msg = case
    sim, sim_msg = _run(f"k = gpu.jit({kernel})\nreport(lambda: k[1, 1]({args}))\n", True)
    hw, hw_msg = _run(f"report(lambda: gpu.compile_ptx({kernel}, {sig!r}))\n", False)
    assert sim == hw, (sim_msg, hw_msg)
    if msg is None:
        assert sim == "ok", sim_msg
    else:
        assert sim != "ok"
        assert msg in sim_msg and msg in hw_msg, (sim_msg, hw_msg)


@pytest.mark.parametrize("case", ARGUMENTS, ids=[c[0] for c in ARGUMENTS])
def test_arguments_match_compiled_launch(case):
    _, value, msg = case
    sim, sim_msg = _run(f"k = gpu.jit(ident)\nreport(lambda: k[1, 1]({value}))\n", True)
    typed, typed_msg = _run(f"report(lambda: _core.typeof({value}, True))\n", False)
    assert sim == typed, (sim_msg, typed_msg)
    if msg is not None:
        assert sim == "TypeError" and msg in sim_msg, sim_msg
    launched, launch_msg = _run(
        "if not gpu.is_available():\n    print('RESULT skip')\n"
        f"else:\n    k = gpu.jit(ident)\n    report(lambda: k[1, 1]({value}))\n", False)
    if launched != "skip":
        assert launched == sim, (sim_msg, launch_msg)


@pytest.mark.parametrize("case", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_launch_configuration_matches(case):
    _, cfg = case
    body = f"k = gpu.jit(store)\nreport(lambda: k[{cfg}](np.zeros(4)))\n"
    sim, sim_msg = _run(body, True)
    hw, hw_msg = _run(body, False)
    assert sim == hw == "ValueError", (sim_msg, hw_msg)


def test_recursive_device_function_computes_in_the_simulator():
    """A device function calling itself finds its own simulator version (it once found None)."""
    body = ("k = gpu.jit(recursive_device)\na = np.zeros(4, np.int64)\n"
            "report(lambda: k[1, 1](a))\nprint('VALUE', a[0])\n")
    rc, out, err = run_subprocess(PRELUDE + body, env={"PYJIT_SIMULATOR": "1"})
    assert rc == 0, err
    assert "RESULT ok" in out and "VALUE 120" in out, out
