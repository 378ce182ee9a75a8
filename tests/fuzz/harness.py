"""Runs a generated program in CPython and compiled, and compares what each did.

The program's source goes to a real .py file that is imported (so the compiler gets a real
co_filename and inspect/linecache find the source), once with `njit` bound to the identity
(CPython) and once with `njit` bound to the compiler under test (pyjit.njit, or numba.njit to
check the generator itself).

CPython sees arrays through PyArray, which hands out Python ints and floats: NumPy scalars do not
have Python semantics (np.float64 division by zero gives inf, np.int64 // 0 gives 0), and the
compiled code follows Python's.

Outcomes: "ok", "mismatch", "compile-error" (the compiler refused the program: a generator bug or
a compiler gap), "invalid" (CPython itself failed in a way the generator must prevent: a bug of
the generator, never the compiler's).
"""
import importlib.util
import math
import os
import signal
import sys
import tempfile
import traceback

import numpy as np

INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1
RTOL = 1e-12
ATOL = 1e-12
CPYTHON_TIMEOUT_S = 10


class PyArray:
    """A NumPy array seen with Python scalar semantics (reads give int/float)."""

    def __init__(self, arr):
        self.arr = arr

    @property
    def shape(self):
        return tuple(int(s) for s in self.arr.shape)

    def __len__(self):
        return len(self.arr)

    def __getitem__(self, idx):
        v = self.arr[idx]
        if isinstance(v, np.ndarray):
            return PyArray(v)           # a view, as in compiled code
        return v.item()

    def __iter__(self):
        for i in range(len(self.arr)):
            yield self[i]

    def copy(self):
        return PyArray(self.arr.copy())

    # whole-array arithmetic is NumPy's on both sides (inf, nan and 0 where a divisor is 0)
    def _op(self, fn, other, reverse=False):
        other = other.arr if isinstance(other, PyArray) else other
        with np.errstate(all="ignore"):
            return PyArray(fn(other, self.arr) if reverse else fn(self.arr, other))

    def __add__(self, o): return self._op(np.add, o)
    def __radd__(self, o): return self._op(np.add, o, True)
    def __sub__(self, o): return self._op(np.subtract, o)
    def __rsub__(self, o): return self._op(np.subtract, o, True)
    def __mul__(self, o): return self._op(np.multiply, o)
    def __rmul__(self, o): return self._op(np.multiply, o, True)
    def __truediv__(self, o): return self._op(np.true_divide, o)
    def __rtruediv__(self, o): return self._op(np.true_divide, o, True)
    def __floordiv__(self, o): return self._op(np.floor_divide, o)
    def __rfloordiv__(self, o): return self._op(np.floor_divide, o, True)
    def __mod__(self, o): return self._op(np.remainder, o)
    def __rmod__(self, o): return self._op(np.remainder, o, True)
    def __pow__(self, o): return self._op(np.power, o)
    def __rpow__(self, o): return self._op(np.power, o, True)
    def __gt__(self, o): return self._op(np.greater, o)

    def __ifloordiv__(self, o):
        with np.errstate(all="ignore"):
            self.arr //= o.arr if isinstance(o, PyArray) else o
        return self

    def __imod__(self, o):
        with np.errstate(all="ignore"):
            self.arr %= o.arr if isinstance(o, PyArray) else o
        return self

    def sum(self):
        return self.arr.sum().item()

    def min(self):
        return self.arr.min().item()

    def max(self):
        return self.arr.max().item()

    def __setitem__(self, idx, value):
        if self.arr.dtype.kind == "i":
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError("int array given %r" % (value,))
            if not INT64_MIN <= value <= INT64_MAX:
                raise OverflowError("int64 element out of range: %d" % value)
        self.arr[idx] = value


class NumPyShim:
    """What generated programs use of NumPy, making PyArrays (for CPython's side)."""
    int64 = np.int64
    float64 = np.float64

    @staticmethod
    def zeros(n, dtype=np.float64):
        return PyArray(np.zeros(n, dtype=dtype))

    @staticmethod
    def ones(n, dtype=np.float64):
        return PyArray(np.ones(n, dtype=dtype))

    @staticmethod
    def full(n, value, dtype=None):
        return PyArray(np.full(n, value, dtype=dtype))

    @staticmethod
    def isnan(a):
        return PyArray(np.isnan(a.arr))

    @staticmethod
    def isinf(a):
        return PyArray(np.isinf(a.arr))

    @staticmethod
    def isfinite(a):
        return PyArray(np.isfinite(a.arr))

    @staticmethod
    def where(cond, a, b):
        return PyArray(np.where(cond.arr, a.arr if isinstance(a, PyArray) else a,
                                b.arr if isinstance(b, PyArray) else b))


def wrap64_python(x):
    """int64 two's complement wrapping, for CPython's side of wrap64(...)."""
    return ((x + 2 ** 63) % 2 ** 64) - 2 ** 63


def wrap64_compiled(x):
    return x


def fits64_python(x):
    """CPython's side of fits64(...): the int64 an int() of a float gives in compiled code, or
    the OverflowError compiled code raises for one outside int64."""
    if not INT64_MIN <= x <= INT64_MAX:
        raise OverflowError("float out of range for an int64 result")
    return x


def identity(fn=None, **kw):
    """njit for the CPython run: @njit, @njit(...) and @njit("signature") leave the function."""
    if fn is None or isinstance(fn, (str, list, tuple)):
        return identity
    return fn


class Backend:
    """A compiler under test: its njit and the exception classes meaning 'refused to compile'."""

    def __init__(self, name):
        self.name = name
        if name == "pyjit":
            import pyjit
            from pyjit import errors
            self.njit = pyjit.njit
            self.compile_errors = (errors.CompileError,)
        elif name == "numba":
            import numba
            from numba.core import errors
            self.njit = numba.njit
            self.compile_errors = (errors.TypingError, errors.UnsupportedError,
                                   errors.LoweringError, errors.NumbaError)
        else:
            raise ValueError("unknown backend %r" % name)
        self._wrap64 = None

    @property
    def wrap64(self):
        if self._wrap64 is None:
            self._wrap64 = self.njit(wrap64_compiled)
        return self._wrap64


_tmpdir = None
_serial = 0


def load(source, njit, wrap64=wrap64_python, numpy=NumPyShim, fits64=fits64_python):
    """Imports `source` as a fresh module whose globals njit, wrap64, fits64 and np are those
    given."""
    global _tmpdir, _serial
    if _tmpdir is None:
        _tmpdir = tempfile.mkdtemp(prefix="pyjit_fuzz_")
    _serial += 1
    name = "fuzzprog_%d_%d" % (os.getpid(), _serial)
    path = os.path.join(_tmpdir, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.njit = njit
    mod.wrap64 = wrap64
    mod.fits64 = fits64
    mod.np = numpy
    sys.modules[name] = mod          # pickling/inspect look modules up by name
    spec.loader.exec_module(mod)
    return mod


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


class Outcome:
    def __init__(self, kind, detail="", expected=None, got=None):
        self.kind = kind
        self.detail = detail
        self.expected = expected
        self.got = got

    def __repr__(self):
        return "Outcome(%s, %s)" % (self.kind, self.detail)


def _libc_fflush():
    import ctypes
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


def capture_fd1(fn):
    """(fn(), text written to file descriptor 1 meanwhile): compiled print writes through C
    stdio, below sys.stdout."""
    sys.stdout.flush()
    _libc_fflush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            value = fn()
        finally:
            sys.stdout.flush()
            _libc_fflush()
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        return value, tmp.read().decode("utf-8", "replace")


def run_cpython(source, main, args, allowed=("ZeroDivisionError",)):
    """(("ok", value) or ("raise", exc class name), arrays after) with Python semantics, or
    raises ValueError when the program is not valid (an exception not in `allowed`, a result
    outside int64, no end within CPYTHON_TIMEOUT_S). A program converting edge floats to ints
    may end in OverflowError or ValueError too (gen.Program.allowed)."""
    mod = load(source, identity)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    wrapped = [PyArray(a) if isinstance(a, np.ndarray) else a for a in args]
    old = signal.signal(signal.SIGALRM, _on_alarm) if _main_thread() else None
    if old is not None:
        signal.alarm(CPYTHON_TIMEOUT_S)
    import contextlib
    import io
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            value = getattr(mod, main)(*wrapped)
        res = ("ok", value)
    except (ZeroDivisionError, OverflowError, ValueError) as exc:
        if type(exc).__name__ not in allowed:
            raise ValueError("CPython raised %s: %s" % (type(exc).__name__, exc))
        res = ("raise", type(exc).__name__)
    except _Timeout:
        raise ValueError("CPython run did not end in %d s" % CPYTHON_TIMEOUT_S)
    except Exception as exc:  # noqa: BLE001 - any other exception is a generator bug
        raise ValueError("CPython raised %s: %s" % (type(exc).__name__, exc))
    finally:
        if old is not None:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
    if res[0] == "ok":
        _check_int64(res[1])
    res = res + (printed.getvalue(),) if "print(" in source else res
    return res, arrays


def _main_thread():
    import threading
    return threading.current_thread() is threading.main_thread()


def _check_int64(v):
    if isinstance(v, tuple):
        for x in v:
            _check_int64(x)
    elif isinstance(v, int) and not isinstance(v, bool):
        if not INT64_MIN <= v <= INT64_MAX:
            raise ValueError("CPython result %d is outside int64" % v)
    elif isinstance(v, float) and not math.isfinite(v):
        raise ValueError("CPython result %r is not finite" % v)


def run_compiled(source, main, args, backend):
    """("ok", value) / ("raise", class name) / ("compile-error", message), arrays after."""
    mod = load(source, backend.njit, backend.wrap64, np, backend.wrap64)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    try:
        if "print(" in source:
            value, printed = capture_fd1(lambda: getattr(mod, main)(*args))
            return ("ok", value, printed), arrays
        return ("ok", getattr(mod, main)(*args)), arrays
    except backend.compile_errors as exc:
        return ("compile-error", "%s: %s" % (type(exc).__name__, exc)), arrays
    except Exception as exc:  # noqa: BLE001 - compared with CPython's exception
        return ("raise", type(exc).__name__, str(exc)), arrays


def same_value(e, g):
    """Python-semantics equality of a CPython result e and a compiled result g."""
    if isinstance(e, tuple):
        return isinstance(g, tuple) and len(e) == len(g) and all(map(same_value, e, g))
    if isinstance(e, bool):
        return isinstance(g, (bool, np.bool_)) and bool(g) == e
    if isinstance(e, int):
        return isinstance(g, (int, np.integer)) and not isinstance(g, (bool, np.bool_)) \
            and int(g) == e
    if isinstance(e, float):
        if not isinstance(g, (float, np.floating)):
            return False
        return close(e, float(g))
    return False


def close(e, g):
    if math.isnan(e) or math.isnan(g):
        return math.isnan(e) and math.isnan(g)
    if math.isinf(e) or math.isinf(g):
        return e == g
    if e == 0.0 and g == 0.0:
        return math.copysign(1.0, e) == math.copysign(1.0, g)     # the sign of zero too
    return math.isclose(e, g, rel_tol=RTOL, abs_tol=ATOL)


def same_arrays(ea, ga):
    for e, g in zip(ea, ga):
        if e.dtype.kind == "f":
            for x, y in zip(e.ravel().tolist(), g.ravel().tolist()):
                if not close(x, y):
                    return False
        elif not np.array_equal(e, g):
            return False
    return True


def _typed_as(value, ty):
    if isinstance(ty, tuple) and ty and ty[0] == "tuple":
        return isinstance(value, tuple) and len(value) == len(ty[1]) and \
            all(_typed_as(v, t) for v, t in zip(value, ty[1]))
    want = {"int": int, "float": float, "bool": bool}[ty]
    return type(value) is want


def check(program_source, main, make_args, backend, result_types=None,
          allowed=("ZeroDivisionError",)):
    """Runs one program both ways. make_args() gives fresh arguments each call. result_types,
    when given, are the types the generator meant the results to have: CPython giving another
    type (an int where a float was meant) is a generator bug, as compiled code would differ.
    allowed: the exceptions a valid CPython run may end in."""
    try:
        (exp, exp_arrays) = run_cpython(program_source, main, make_args(), allowed)
    except Exception as exc:  # noqa: BLE001 - SyntaxError on import, or ValueError above
        return Outcome("invalid", "%s: %s" % (type(exc).__name__, exc))
    if exp[0] == "ok" and result_types is not None and \
            not _typed_as(exp[1], ("tuple", tuple(result_types))):
        return Outcome("invalid", "CPython result %r is not of the types %r" % (exp[1], result_types))
    try:
        got, got_arrays = run_compiled(program_source, main, make_args(), backend)
    except backend.compile_errors as exc:      # raised while importing (decorating)
        return Outcome("compile-error", "%s: %s" % (type(exc).__name__, exc))
    except Exception:  # noqa: BLE001 - a harness failure, reported as a mismatch
        return Outcome("mismatch", "import failed: " + traceback.format_exc(limit=3))
    if got[0] == "compile-error":
        return Outcome("compile-error", got[1])
    if exp[0] != got[0] or (exp[0] == "raise" and exp[1] != got[1]):
        return Outcome("mismatch", "CPython %s, compiled %s" % (_show(exp), _show(got)),
                       exp, got)
    if exp[0] == "ok" and not same_value(exp[1], got[1]):
        return Outcome("mismatch", "results differ: CPython %r, compiled %r" % (exp[1], got[1]),
                       exp, got)
    if exp[0] == "ok" and len(exp) > 2 and exp[2] != got[2]:
        return Outcome("mismatch", "printed output differs: CPython %r, compiled %r"
                       % (exp[2][-2000:], got[2][-2000:]), exp, got)
    if not same_arrays(exp_arrays, got_arrays):
        return Outcome("mismatch", "arrays differ after the call: CPython %r, compiled %r"
                       % ([a.tolist() for a in exp_arrays], [a.tolist() for a in got_arrays]),
                       exp, got)
    return Outcome("ok")


def _show(res):
    if res[0] == "ok":
        return "returned %r" % (res[1],)
    if res[0] == "raise":
        return "raised %s%s" % (res[1], (" (%s)" % res[2]) if len(res) > 2 else "")
    return res[0]


def check_program(program, backend):
    return check(program.source(), program.main, program.make_args, backend,
                 getattr(program, "result_types", None),
                 getattr(program, "allowed", ("ZeroDivisionError",)))


def _literal(text):
    return eval(text, {"__builtins__": {}, "nan": float("nan"), "inf": float("inf")})


def check_regression(source, main, args_src, expected, expected_arrays, backend="pyjit"):
    """For tests/fuzz_regressions: runs `source` compiled on the arguments `args_src` (a Python
    literal using np.array) and asserts it gives CPython's recorded answer `expected`
    (repr of ("ok", value) or ("raise", class name)) and leaves the arrays as
    `expected_arrays` (repr of their lists)."""
    be = Backend(backend)
    args = eval(args_src, {"np": np})
    got, arrays = run_compiled(source, main, args, be)
    exp = _literal(expected)
    assert got[0] != "compile-error", got[1]
    if exp[0] == "raise":
        assert got[0] == "raise" and got[1] == exp[1], "expected %s, got %s" % (exp[1], _show(got))
    else:
        assert got[0] == "ok", "expected %r, got %s" % (exp[1], _show(got))
        assert same_value(exp[1], got[1]), "expected %r, got %r" % (exp[1], got[1])
    exp_arrays = [np.array(a, dtype=g.dtype) for a, g in zip(_literal(expected_arrays), arrays)]
    assert same_arrays(exp_arrays, arrays), "arrays: expected %r, got %r" % (
        [a.tolist() for a in exp_arrays], [a.tolist() for a in arrays])
