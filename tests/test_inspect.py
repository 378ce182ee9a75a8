"""inspect_types / inspect_llvm / inspect_asm return the stages as text, and PYJIT_DUMP prints
them to stderr as they are made."""
import io
import textwrap

import numpy as np
import pytest

import pyjit
from util import run_subprocess


def as_text(x):
    """The text of an inspect_* result: a str, or a dict of str (one per signature)."""
    if isinstance(x, dict):
        assert x, "empty dict"
        assert all(isinstance(v, str) for v in x.values())
        return "\n".join(x.values())
    assert isinstance(x, str), f"expected text, got {type(x)}"
    return x


def axpy(a, x, y):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += a * x[i] + y[i]
    return acc


def scale32(x):
    return x * 2.0


def types_text(f, **kw):
    """inspect_types' text: returned (as the issue says), or printed to file= (as Numba does)."""
    buf = io.StringIO()
    try:
        r = f.inspect_types(file=buf, **kw)
    except TypeError:         # no file= argument: the text is returned
        r = f.inspect_types(**kw)
    if r is None:
        return buf.getvalue()
    return as_text(r)


@pytest.fixture(scope="module")
def compiled():
    f = pyjit.njit(axpy)
    f(2.0, np.arange(4.0), np.ones(4))
    return f


def test_inspect_types(compiled):
    text = types_text(compiled)
    assert "axpy" in text
    assert "float64" in text
    assert "array(float64, 1d, C)" in text or "array(float64" in text
    assert "acc" in text            # the variable names


def test_inspect_llvm(compiled):
    text = as_text(compiled.inspect_llvm())
    assert "define" in text
    assert "double" in text
    assert "fadd" in text or "fmul" in text or "llvm.fma" in text or "fmuladd" in text


def test_inspect_asm(compiled):
    text = as_text(compiled.inspect_asm())
    assert "ret" in text
    assert any(op in text for op in ("mulsd", "addsd", "vfmadd", "vmulsd", "vaddsd", "mulpd",
                                     "vmulpd", "fmul", "fmadd"))


FROZEN = 1234567


def times_frozen(x):
    return x * FROZEN


def test_inspect_asm_shows_the_code_compiled_not_a_new_compilation():
    """Globals are frozen at compile time: the assembly must be that of the running code, so a
    global changed since then must not show up in it."""
    global FROZEN
    f = pyjit.njit(times_frozen)
    assert f(3) == 3 * 1234567
    FROZEN = 7654321
    try:
        text = as_text(f.inspect_asm())
        assert f(3) == 3 * 1234567
    finally:
        FROZEN = 1234567
    assert "1234567" in text and "7654321" not in text
    assert f.inspect_asm((pyjit.int64,)) == text      # the same text, kept


def test_inspect_types_shows_weak_literal_result_float32():
    f = pyjit.njit(scale32)
    f(np.float32(1.5))
    text = types_text(f)
    assert "float32" in text
    r = f(np.float32(0.1))
    assert r == np.float32(0.1) * 2.0


def test_inspect_with_signature_argument():
    f = pyjit.njit(axpy)
    f(2.0, np.arange(4.0), np.ones(4))
    f(2, np.arange(4), np.ones(4, np.int32))
    assert len(f.signatures) == 2
    both = types_text(f)
    assert "int32" in both and "float64" in both


def test_inspect_before_compiling_is_empty_or_an_error():
    f = pyjit.njit(axpy)
    try:
        text = types_text(f)
    except (RuntimeError, ValueError, TypeError):
        return
    assert "float64" not in text


DUMP_SCRIPT = textwrap.dedent("""
    import numpy as np
    import pyjit

    def dumped_function(x, n):
        s = 0.0
        for i in range(n):
            s += x * i
        return s

    print("RESULT", pyjit.njit(dumped_function)(1.5, 4))
""")


def run_dump(stages):
    rc, out, err = run_subprocess(DUMP_SCRIPT, timeout=120, env={"PYJIT_DUMP": stages})
    assert rc == 0, err[-3000:]
    assert "RESULT 9.0" in out
    return err


def test_dump_ssa_types_llvm():
    err = run_dump("ssa,types,llvm")
    low = err.lower()
    assert "dumped_function" in err
    for stage in ("ssa", "types", "llvm"):
        assert stage in low, f"stage {stage} not printed:\n{err[:3000]}"
    assert "define" in err                       # LLVM IR
    assert "float64" in err                      # typed IR
    assert "phi" in low                          # the loop's SSA


def test_dump_one_stage_only():
    err = run_dump("llvm")
    assert "define" in err
    err = run_dump("types")
    assert "float64" in err and "define" not in err


def test_dump_bytecode_and_asm():
    err = run_dump("bytecode")
    assert "FOR_ITER" in err or "for_iter" in err.lower()
    err = run_dump("asm")
    assert "ret" in err


def test_no_dump_by_default():
    rc, out, err = run_subprocess(DUMP_SCRIPT, timeout=120, env={"PYJIT_DUMP": ""})
    assert rc == 0 and "RESULT 9.0" in out
    assert "define" not in err


def test_dump_all_prints_the_stages_in_pipeline_order():
    err = run_dump("all")
    heads = [line.split(":")[0].strip("- ") for line in err.splitlines()
             if line.startswith("---- ") and "dumped_function" in line]
    assert heads == ["bytecode", "ssa", "types", "llvm", "asm"], heads
