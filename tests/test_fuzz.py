"""Differential fuzzing, fixed seed: a few hundred generated programs, each run in CPython and
compiled by pyjit.njit, must agree (results, exceptions, arrays written).

The long run is `python -m tests.fuzz.run --count 10000 --seed S`; each mismatch it finds goes
to tests/fuzz_regressions/ as a test of its own. PYJIT_FUZZ_COUNT and PYJIT_FUZZ_SEED change
the size and seed of this run.
"""
import os
import re

import numpy as np
import pytest

from fuzz import gen, harness

SEED = int(os.environ.get("PYJIT_FUZZ_SEED", "2026"))
COUNT = int(os.environ.get("PYJIT_FUZZ_COUNT", "300"))
CHUNK = 25


def _report(program, index, outcome):
    return "program %d (seed %d): %s: %s\n%s# args: %s" % (
        index, SEED, outcome.kind, outcome.detail[:1500], program.source(),
        program.args_source())


def test_generator_programs_are_valid_python():
    """The generator's programs run in CPython with no error but ZeroDivisionError (and
    OverflowError or ValueError where a program converts edge floats to ints), ints that stay
    in int64 and finite float results: otherwise a mismatch could be the generator's."""
    bad = []
    raised = 0
    for i in range(COUNT):
        p = gen.generate(SEED, i)
        try:
            (res, _) = harness.run_cpython(p.source(), p.main, p.make_args(), p.allowed)
        except ValueError as exc:
            bad.append("program %d: %s\n%s" % (i, exc, p.source()))
            continue
        raised += res[0] == "raise"
    assert not bad, "\n\n".join(bad[:3])
    assert raised < COUNT // 5, "too many programs end in an exception: %d" % raised


def test_generator_covers_the_edge_classes():
    """The fixed sample holds each class of edge input the generator makes."""
    sources = [gen.generate(SEED, i).source() for i in range(COUNT)]
    for what, pattern in [("edge float to int", r"fits64\((int|round|math\.\w+)\("),
                          ("array division", r"np\.isinf\(z\d+\)"),
                          ("nested tuple index", r"t\d+(\[-?\d\]){2,}"),
                          ("nested unpacking", r"^\s*\(.*\), .* = "),
                          ("recursion", r"return .*r0\(n - 1, "),
                          ("recursion with a signature", r"@njit\('\w+\(int64, "),
                          ("list", r"^\s*n\d+ = .*\bl\d+\b"),
                          ("string", r"^\s*n\d+ = .*\bs\d+\b"),
                          ("dict or set", r"^\s*n\d+ = .*\bd\d+\b")]:
        assert any(re.search(pattern, src, re.M) for src in sources), what


def test_generator_is_deterministic():
    assert gen.generate(7, 11).source() == gen.generate(7, 11).source()
    assert gen.generate(7, 11).source() != gen.generate(7, 12).source()


@pytest.fixture(scope="module")
def backend():
    return harness.Backend(os.environ.get("PYJIT_FUZZ_BACKEND", "pyjit"))


@pytest.mark.parametrize("start", range(0, COUNT, CHUNK))
def test_fuzz_compiled_matches_cpython(backend, start):
    failures, refused = [], []
    for i in range(start, min(start + CHUNK, COUNT)):
        p = gen.generate(SEED, i)
        out = harness.check_program(p, backend)
        if out.kind in ("mismatch", "invalid"):
            failures.append(_report(p, i, out))
        elif out.kind == "compile-error":
            refused.append(_report(p, i, out))
    assert not failures, "%d mismatches; first:\n%s" % (len(failures), failures[0])
    # every generated program is inside the @njit subset: a refusal is a compiler gap
    assert not refused, "%d programs refused; first:\n%s" % (len(refused), refused[0])


def test_harness_gives_numpy_array_arithmetic_and_edge_conversions_to_both(backend):
    src = ("import math\n\n@njit\ndef f(a, x):\n    z = a / (a - a)\n"
           "    n = fits64(math.floor(x * 1e13)) % 1000003\n"
           "    return (float(np.isnan(z).sum() + 2 * np.isinf(z).sum()), n)\n")
    args = lambda x: lambda: [np.array([1.0, 0.0, -2.0]), x]
    edges = ("ZeroDivisionError", "OverflowError", "ValueError")
    assert harness.check(src, "f", args(1.0), backend, allowed=edges).kind == "ok"
    exp, _ = harness.run_cpython(src, "f", args(1.0)(), edges)
    assert exp == ("ok", (5.0, 10 ** 13 % 1000003))
    for x in (1e7, float("inf"), float("nan")):     # past int64: both raise
        assert harness.check(src, "f", args(x), backend, allowed=edges).kind == "ok"
        assert harness.run_cpython(src, "f", args(x)(), edges)[0][0] == "raise"
    with pytest.raises(ValueError, match="OverflowError"):    # not allowed: a generator bug
        harness.run_cpython(src, "f", args(1e7)())


class _WrongBackend(harness.Backend):
    """A 'compiler' that runs the Python function and gets one thing wrong on purpose."""

    def __init__(self, wrong):
        self.name = "wrong"
        self.compile_errors = (NotImplementedError,)
        self._wrap64 = harness.wrap64_python
        self.njit = wrong


def _off_by_one(fn):
    def run(*args):
        args = [harness.PyArray(a) if hasattr(a, "dtype") else a for a in args]
        value = fn(*args)
        return (value[0] + 1,) + value[1:] if fn.__name__ == "f" else value
    run.__name__ = fn.__name__
    return run


def test_harness_sees_a_wrong_result_and_reduces_it():
    from fuzz.reduce import reduce_program
    be = _WrongBackend(_off_by_one)
    p = gen.generate(SEED, 1)
    out = harness.check_program(p, be)
    assert out.kind == "mismatch", out
    before = len(p.source().splitlines())
    reduce_program(p, be)
    assert harness.check_program(p, be).kind == "mismatch"
    assert len(p.source().splitlines()) < before


def test_harness_compares_exceptions_and_output(backend):
    src = "import math\n\n@njit\ndef f(x):\n    print(x, 0.1 + 0.2)\n    return (1.0 / x,)\n"
    assert harness.check(src, "f", lambda: [0.0], backend).kind == "ok"      # both raise
    assert harness.check(src, "f", lambda: [2.0], backend).kind == "ok"
    wrong = src.replace("print(x, ", "print(x + 1.0, ")
    exp, _ = harness.run_cpython(src, "f", [2.0])
    got, _ = harness.run_compiled(wrong, "f", [2.0], backend)
    assert exp[2] == "2.0 0.30000000000000004\n" and got[2] == "3.0 0.30000000000000004\n"
    assert harness.close(0.1 + 0.2, 0.3 + 1e-17) and not harness.close(-0.0, 0.0)
    assert harness.same_value((1, 2.5, True), (1, 2.5, True))
    assert not harness.same_value((1,), (1.0,)) and not harness.same_value((True,), (1,))
