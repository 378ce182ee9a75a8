"""Runs the compiler over every plain function of a few standard-library modules, with int and
float arguments. Most do not compile (strings, lists, dicts...): that must be a Python exception,
never a crash or a hang, and never a SystemError or an InternalError (pyjit bugs). When one does
compile and run, its result must be the one CPython gives.

Each module runs in its own interpreter with a timeout, so a crash or a hang fails the test and
names the function being compiled."""
import pytest

from util import run_subprocess

MODULES = ["statistics", "textwrap", "colorsys", "heapq", "bisect", "fractions", "string",
           "calendar", "difflib", "shlex", "fnmatch", "base64", "quopri", "this"]

DRIVER = r'''
import inspect, math, sys, warnings
import pyjit
from pyjit.errors import CompileError, InternalError

modname = sys.argv[1] if len(sys.argv) > 1 else MODNAME
import io, contextlib
with contextlib.redirect_stdout(io.StringIO()):
    mod = __import__(modname)
bad = []
compiled = ran = 0
ARGSETS = [lambda n: (1,) * n, lambda n: (2.5,) * n, lambda n: tuple(range(3, 3 + n)),
           lambda n: (0,) * n, lambda n: (-1.5,) * n]

def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return a == b or (isinstance(a, float) and math.isclose(a, b, rel_tol=1e-12))
    except Exception:
        return False

for name, fn in sorted(vars(mod).items()):
    if not inspect.isfunction(fn) or fn.__module__ != mod.__name__:
        continue
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        continue
    params = list(sig.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY) and p.default is p.empty
           for p in params):
        continue
    nreq = sum(1 for p in params if p.default is p.empty and p.kind != p.VAR_POSITIONAL
               and p.kind != p.VAR_KEYWORD)
    print("compiling", name, flush=True)
    for make in ARGSETS:
        args = make(nreq)
        try:
            f = pyjit.njit(fn)
            got = f(*args)
        except (SystemError, InternalError) as exc:
            bad.append(f"{name}{args}: {type(exc).__name__}: {exc}")
            continue
        except CompileError as exc:
            if not str(exc).strip():
                bad.append(f"{name}{args}: {type(exc).__name__} with an empty message")
            continue
        except Exception:
            continue
        compiled += 1
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected = fn(*args)
            except Exception:
                continue
        ran += 1
        if not same(expected, got):
            bad.append(f"{name}{args}: compiled gave {got!r}, CPython {expected!r}")
print("SUMMARY", modname, "compiled", compiled, "ran", ran, flush=True)
for b in bad:
    print("BAD", b, flush=True)
'''


@pytest.mark.parametrize("modname", MODULES)
def test_compile_stdlib_module(modname):
    code = DRIVER.replace("MODNAME", repr(modname))
    try:
        rc, out, err = run_subprocess(code, timeout=90)
    except Exception as exc:   # subprocess.TimeoutExpired: a hang
        out = getattr(exc, "stdout", b"") or b""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        last = [ln for ln in out.splitlines() if ln.startswith("compiling")][-1:]
        pytest.fail(f"{modname}: timed out; last function: {last}")
    last = [ln for ln in out.splitlines() if ln.startswith("compiling")][-1:]
    assert rc == 0, f"{modname}: interpreter exited with {rc} (a crash?) at {last}\n{err[-3000:]}"
    assert f"SUMMARY {modname}" in out, out[-2000:]
    bad = [ln for ln in out.splitlines() if ln.startswith("BAD")]
    assert not bad, "\n".join(bad)
