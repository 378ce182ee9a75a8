"""Helpers for pyjit's differential tests: run a function in CPython and compiled, compare.

check(f, *args) compiles f with pyjit.njit (or uses the dispatcher given as jit=), runs both on
private copies of the arguments and asserts that the results agree (assert_same), that arrays
passed in were changed in the same way, and that an exception raised by CPython is raised, with
the same class, by the compiled code.
"""
import cmath
import copy
import ctypes
import gc
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pytest

import pyjit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FLOAT32_RTOL = 2e-6
FLOAT64_RTOL = 1e-12


def _is_bool(x):
    return isinstance(x, (bool, np.bool_))


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not _is_bool(x)


def _is_float(x):
    return isinstance(x, (float, np.floating))


def _is_complex(x):
    return isinstance(x, (complex, np.complexfloating))


def _close(e, g, rtol, atol):
    if math.isnan(e) or math.isnan(g):
        return math.isnan(e) and math.isnan(g)
    if math.isinf(e) or math.isinf(g):
        return e == g
    if rtol == 0:
        return e == g
    return math.isclose(e, g, rel_tol=rtol, abs_tol=atol)


def _rtol_for(x, exact):
    if exact:
        return 0.0
    if isinstance(x, (np.float32, np.complex64, np.float16)):
        return FLOAT32_RTOL
    if isinstance(x, np.ndarray) and x.dtype in (np.float32, np.complex64, np.float16):
        return FLOAT32_RTOL
    return FLOAT64_RTOL


def assert_same(expected, got, exact=False, rtol=None, atol=None, where="result"):
    """Asserts got (compiled) matches expected (CPython): same kind of value, same value.

    ints and bools compare exactly; floats within rtol (exact=True: bit-equal value), NaN equals
    NaN; arrays need the same dtype and shape; tuples and lists compare item by item."""
    r = _rtol_for(expected, exact) if rtol is None else rtol
    a = (1e-300 if r == 0 else r * 1e-3) if atol is None else atol
    if expected is None:
        assert got is None, f"{where}: expected None, got {got!r}"
    elif isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray), f"{where}: expected an array, got {type(got)}: {got!r}"
        assert got.dtype == expected.dtype, f"{where}: dtype {got.dtype}, expected {expected.dtype}"
        assert got.shape == expected.shape, f"{where}: shape {got.shape}, expected {expected.shape}"
        if expected.dtype.kind in "biuU":
            assert np.array_equal(got, expected), f"{where}: {got!r} != {expected!r}"
        else:
            np.testing.assert_allclose(got, expected, rtol=r, atol=a if r else 0, equal_nan=True,
                                       err_msg=where)
    elif isinstance(expected, (tuple, list)):
        kind = type(expected).__name__
        assert type(got) is type(expected), f"{where}: expected a {kind}, got {type(got)}: {got!r}"
        assert len(got) == len(expected), f"{where}: {got!r} != {expected!r}"
        for i, (e, g) in enumerate(zip(expected, got)):
            assert_same(e, g, exact, rtol, atol, where=f"{where}[{i}]")
    elif _is_bool(expected):
        assert _is_bool(got), f"{where}: expected a bool, got {type(got)}: {got!r}"
        assert bool(got) == bool(expected), f"{where}: {got!r} != {expected!r}"
    elif _is_int(expected):
        assert _is_int(got), f"{where}: expected an int, got {type(got)}: {got!r}"
        assert int(got) == int(expected), f"{where}: {got!r} != {expected!r}"
    elif _is_float(expected):
        assert _is_float(got), f"{where}: expected a float, got {type(got)}: {got!r}"
        assert _close(float(expected), float(got), r, a), f"{where}: {got!r} != {expected!r}"
    elif _is_complex(expected):
        assert _is_complex(got), f"{where}: expected a complex, got {type(got)}: {got!r}"
        e, g = complex(expected), complex(got)
        assert _close(e.real, g.real, r, a) and _close(e.imag, g.imag, r, a), \
            f"{where}: {got!r} != {expected!r}"
    else:
        assert got == expected, f"{where}: {got!r} != {expected!r}"


def same_as_numpy(got, want):
    """got (compiled) equals want (NumPy): values, and the dtype and shape of arrays; tuples item
    by item. Scalars come back as Python numbers, as compiled code returns them."""
    import numpy as np
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            same_as_numpy(g, w)
        return
    if np.ndim(want) == 0 and not isinstance(want, np.ndarray):
        assert np.ndim(got) == 0, (got, want)
        assert np.allclose(got, want, equal_nan=True) or got == want, (got, want)
        return
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "fc":
        assert np.allclose(got, want, equal_nan=True, rtol=1e-6), (got, want)
    else:
        assert np.array_equal(got, want), (got, want)


def same_as_cpython(want, got):
    """got (compiled) is want (CPython on the same source): tuples and lists item by item,
    namedtuples of the same class, arrays of the same shape and dtype (structured ones field by
    field), floats within 1e-9 (float32 and complex64 arrays 1e-5), NaN equal to NaN."""
    import numpy as np
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (want, got)
        if hasattr(want, "_fields"):
            assert type(got) is type(want), (want, got)
        for w, g in zip(want, got):
            same_as_cpython(w, g)
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.shape == want.shape, (want, got)
        assert got.dtype == want.dtype, (want.dtype, got.dtype)
        if want.dtype.names:
            for name in want.dtype.names:
                same_as_cpython(want[name], got[name])
        else:
            rtol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-9
            np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)
    elif isinstance(want, (float, np.floating)):
        assert math.isclose(want, got, rel_tol=1e-9, abs_tol=1e-12) or \
            (math.isnan(want) and math.isnan(got)), (want, got)
    else:
        assert got == want, (want, got)


def case_name(f):
    """A test id for a compiled function: its Python name."""
    return getattr(f, "py_func", f).__name__


def check_case(f, make):
    """f (a dispatcher) and its Python function, each on fresh copies of make()'s arguments (a
    function may write into its arrays), give the same result (same_as_cpython)."""
    import numpy as np
    args = tuple(make())
    copies = lambda: [a.copy() if isinstance(a, np.ndarray) else a for a in args]  # noqa: E731
    same_as_cpython(f.py_func(*copies()), f(*copies()))


def _copy_args(args):
    return tuple(a.copy(order="K") if isinstance(a, np.ndarray) else copy.copy(a) for a in args)


def run_python(pyfunc, args):
    """(result, exception) of pyfunc(*args) in CPython, NumPy warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return pyfunc(*args), None
        except Exception as exc:  # noqa: BLE001 - any exception is part of the behaviour
            return None, exc


def check(pyfunc, *args, jit=None, exact=False, rtol=None, atol=None, **options):
    """Runs pyfunc in CPython and compiled; asserts the same result or the same exception class.

    Returns the dispatcher so a test can call it again."""
    cfunc = jit if jit is not None else pyjit.njit(**options)(pyfunc) if options \
        else pyjit.njit(pyfunc)
    pargs, cargs = _copy_args(args), _copy_args(args)
    expected, exc = run_python(pyfunc, pargs)
    if exc is not None:
        try:
            got = cfunc(*cargs)
        except Exception as cexc:  # noqa: BLE001
            assert isinstance(cexc, type(exc)), \
                f"{pyfunc.__name__}{args!r}: CPython raised {exc!r}, compiled raised {cexc!r}"
        else:
            raise AssertionError(f"{pyfunc.__name__}{args!r}: CPython raised {exc!r}, "
                                 f"compiled returned {got!r}")
        return cfunc
    got = cfunc(*cargs)
    assert_same(expected, got, exact, rtol, atol, where=f"{pyfunc.__name__}{args!r}")
    for i, (pa, ca) in enumerate(zip(pargs, cargs)):
        if isinstance(pa, np.ndarray):
            assert_same(pa, ca, exact, rtol, atol, where=f"{pyfunc.__name__} argument {i} after call")
    return cfunc


def check_raises(exc_class, cfunc, *args, match=None):
    """Asserts cfunc(*args) raises exc_class (and that its message contains match)."""
    try:
        cfunc(*args)
    except exc_class as exc:
        if match is not None:
            assert match in str(exc), f"message {str(exc)!r} does not contain {match!r}"
        return exc
    raise AssertionError(f"{exc_class.__name__} not raised")


def wrap64(x):
    """x reduced to int64 as two's complement (what compiled int arithmetic gives)."""
    return ((int(x) + 2**63) % 2**64) - 2**63


# Under AddressSanitizer (scripts/sanitize.sh preloads its runtime) freed memory waits in a
# quarantine, so the resident set grows whatever is freed; ASan's own count of the bytes
# allocated and not yet freed measures leaks there instead.
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")


def memory_in_use():
    """What memory-growth tests measure, after a collection: the resident set size (Linux), or
    under ASan the bytes malloc'd and not yet freed. That count leaves out memory mapped
    directly, the JIT's code pages among it, which only the resident set includes."""
    gc.collect()
    if UNDER_ASAN:
        allocated = ctypes.CDLL(None).__sanitizer_get_current_allocated_bytes
        allocated.restype = ctypes.c_size_t
        return allocated()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def run_subprocess(code, timeout=120, env=None):
    """Runs code in a fresh interpreter that imports this checkout's pyjit: (rc, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [p for p in [os.path.dirname(os.path.dirname(pyjit.__file__)),
                     full_env.get("PYTHONPATH", "")] if p])
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, env=full_env)
    return proc.returncode, proc.stdout, proc.stderr


__all__ = ["assert_same", "check", "check_raises", "memory_in_use", "run_python", "run_subprocess",
           "wrap64", "math", "cmath", "np", "pyjit"]


def run_in_both_simulators(simulators, make, config, *arrays):
    """make(gpu) gives the kernel; each of simulators (the compiled pyjit.gpu.cpu and the
    interpreted pyjit.gpu.simulator) launches it on its own copies of arrays, and the arrays
    must end equal. The compiled simulator's copies are returned."""
    results = []
    for gpu in simulators:
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
        make(gpu)[config](*args)
        results.append(args)
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)
    return results[0]


def _find_ptxas():
    found = shutil.which("ptxas")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root and os.path.exists(os.path.join(root, "bin", "ptxas")):
            return os.path.join(root, "bin", "ptxas")
    return None


PTXAS = _find_ptxas()


def assemble_ptx(ptx):
    """Assembles ptx for sm_90 with ptxas (CUDA toolkit) when it is installed, so the PTX pyjit
    emits is checked on machines without a GPU; without ptxas it does nothing."""
    if not PTXAS:
        return
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        # a call of a declare_device function is resolved by the driver's linker: relocatable
        linked = re.search(r"\.extern \.func[^;]*?\b(?!vprintf\b)\w+\s*\(", ptx) is not None
        r = subprocess.run([PTXAS, "-arch=sm_90"] + (["-c"] if linked else []) +
                           [path, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr + "\n" + ptx


NVLINK = os.path.join(os.path.dirname(PTXAS), "nvlink") if PTXAS else None


def link_ptx(ptxs):
    """Assembles each PTX text relocatable for sm_90 and links them with nvlink, as the driver's
    linker joins a kernel with the device code it calls: a function declared with another
    prototype than its definition's fails here as it does on a GPU. Without the CUDA toolkit
    it does nothing."""
    if not PTXAS or not os.path.exists(NVLINK):
        return
    with tempfile.TemporaryDirectory() as d:
        objects = []
        for i, ptx in enumerate(ptxs):
            path = os.path.join(d, f"m{i}.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            objects.append(os.path.join(d, f"m{i}.cubin"))
            r = subprocess.run([PTXAS, "-arch=sm_90", "-c", path, "-o", objects[-1]],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr + "\n" + ptx
        r = subprocess.run([NVLINK, "-arch=sm_90", *objects, "-o", os.path.join(d, "linked.cubin")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr + "\n" + "\n".join(ptxs)


def numba_or_none(f):
    """Numba's njit of a compiled function's Python source, the compiled functions it calls
    compiled by Numba too, when Numba is installed (not under the sanitizers, where Numba's own
    LLVM overflows the stack of an instrumented process): the real-world tests compare with it."""
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        return None
    try:
        import numba
    except ImportError:
        return None
    return _numba_compiled(_source_function(f), numba)


def _source_function(f):
    """The function as written: py_func of a parallel=True or objmode function is the
    rewritten one pyjit compiles (its loops outlined), functools' __wrapped__ the user's."""
    return getattr(f, "__wrapped__", f.py_func)


def _global_names(code):
    """The names code reads, with those of the functions nested in it (their globals are its)."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, type(code)):
            names += [n for n in _global_names(const) if n not in names]
    return names


def _numba_compiled(func, numba):
    """Numba's njit of func, the compiled functions it calls replaced by Numba's compilations
    of them (func calling itself calls Numba's)."""
    import types
    scope = dict(func.__globals__)
    recursive = []
    for name in _global_names(func.__code__):
        callee = scope.get(name)
        if callee is pyjit:   # `import pyjit as nb`: nb.prange, nb.literal_unroll are Numba's
            scope[name] = numba
        elif getattr(callee, "__module__", "").startswith("pyjit") and \
                callable(getattr(numba, name, None)) and not hasattr(callee, "py_func"):
            scope[name] = getattr(numba, name)   # prange, literal_unroll imported by name
        elif hasattr(callee, "py_func") and callee.py_func is func:
            recursive.append(name)
        elif hasattr(callee, "py_func"):
            scope[name] = _numba_compiled(_source_function(callee), numba)
    compiled = numba.njit(types.FunctionType(func.__code__, scope, func.__name__,
                                             func.__defaults__, func.__closure__))
    for name in recursive:
        scope[name] = compiled
    return compiled
