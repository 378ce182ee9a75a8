"""try/except/else/finally in compiled code. Each function runs in CPython and compiled on the
same arguments (util.check): the results, or the classes of the exceptions that escape, must
agree. Exceptions come from raise statements, compiled callees and pyjit's own checks (bounds,
division by zero, dict lookups, library functions); catching one leaves no error behind."""
import os
import traceback

import numpy as np
import pytest

import pyjit
from pyjit.errors import UnsupportedError
from util import check, memory_in_use, run_subprocess


class AppError(ValueError):
    pass


class OtherError(Exception):
    pass


ERRORS = (IndexError, ZeroDivisionError)


# ---- which clause catches --------------------------------------------------------------------

def catch_exception(a, i):
    try:
        return a[i]
    except Exception:
        return -1.0


def catch_bare(x, y):
    try:
        r = x // y
    except:  # noqa: E722 - the bare form is what is tested
        r = -99
    return r


def catch_by_class(a, i):
    try:
        v = a[i]
    except IndexError:
        v = -2.0
    return v


def catch_base_class(x, y):
    try:
        return x % y
    except ArithmeticError:
        return -3


def catch_lookup_error(k):
    d = {1: 10, 2: 20}
    try:
        return d[k]
    except LookupError:
        return -4


def catch_key_error(k):
    d = {"a": 1.5}
    try:
        return d[k]
    except KeyError:
        return -4.5


def catch_tuple(a, i, d):
    try:
        return float(a[i]) / d
    except (IndexError, ZeroDivisionError):
        return -5.0


def catch_global_tuple(a, i, d):
    try:
        return float(a[i]) / d
    except ERRORS:
        return -6.0


def clauses_in_order(kind):
    try:
        if kind == 0:
            raise KeyError("k")
        if kind == 1:
            raise ZeroDivisionError("z")
        if kind == 2:
            raise AppError("app")
        if kind == 3:
            raise OtherError("other")
        return 0
    except LookupError:
        return 1
    except ArithmeticError:
        return 2
    except ValueError:
        return 3
    except Exception:
        return 4


def first_matching_clause_wins(x):
    try:
        return 10 // x
    except ArithmeticError:
        return 1
    except ZeroDivisionError:
        return 2


def not_caught(x):
    try:
        return 10 // x
    except IndexError:
        return -1


@pytest.mark.parametrize("f,args", [
    (catch_exception, (np.arange(4.0), 2)), (catch_exception, (np.arange(4.0), 7)),
    (catch_bare, (7, 2)), (catch_bare, (7, 0)),
    (catch_by_class, (np.arange(3.0), -1)), (catch_by_class, (np.arange(3.0), 3)),
    (catch_base_class, (7, 3)), (catch_base_class, (7, 0)),
    (catch_tuple, (np.arange(3.0), 1, 2.0)), (catch_tuple, (np.arange(3.0), 5, 2.0)),
    (catch_tuple, (np.arange(3.0), 1, 0.0)),
    (catch_global_tuple, (np.arange(3.0), 9, 1.0)), (catch_global_tuple, (np.arange(3.0), 1, 0.0)),
    (clauses_in_order, (0,)), (clauses_in_order, (1,)), (clauses_in_order, (2,)),
    (clauses_in_order, (3,)), (clauses_in_order, (4,)),
    (first_matching_clause_wins, (0,)), (first_matching_clause_wins, (3,)),
    (not_caught, (0,)), (not_caught, (4,)),
])
def test_which_clause_catches(f, args):
    check(f, *args)


def key_error_message(k):
    d = {"a": 1}
    try:
        return str(d[k])
    except KeyError as e:
        return "missing " + str(e)


def test_dict_key_error_is_caught():
    for k in (2, 5):
        check(catch_lookup_error, k)
    for k in ("a", "b"):
        check(catch_key_error, k)
        check(key_error_message, k)


# ---- what raises: statements, callees, checks, the library ----------------------------------

@pyjit.njit
def checked_sqrt(x):
    if x < 0:
        raise AppError("negative")
    return x ** 0.5


@pyjit.njit
def deep_index(a, i):
    return a[i] * 2


def from_callee(x):
    try:
        return checked_sqrt(x)
    except ValueError:
        return -1.0


def from_nested_callee(a, i):
    try:
        return deep_index(a, i)
    except IndexError:
        return -7.0


def from_library(xs, start):
    try:
        return min(xs[start:])
    except ValueError:
        return -8


def from_parse(s):
    try:
        return int(s)
    except ValueError:
        return -9


def from_2d_bounds(m, i, j):
    try:
        return m[i, j]
    except IndexError:
        return -10.0


def test_callee_exceptions_are_caught():
    for x in (4.0, -4.0):
        check(from_callee, x)
    for i in (1, 3, -4):
        check(from_nested_callee, np.arange(3.0), i)


def test_library_and_check_exceptions_are_caught():
    check(from_library, [3, 1, 2], 1)
    check(from_library, [3, 1, 2], 3)
    for s in ("12", "x1", " 7 "):
        check(from_parse, s)
    for i, j in ((1, 1), (2, 0), (0, 2), (-3, 0)):
        check(from_2d_bounds, np.ones((2, 2)), i, j)


# ---- else and finally ------------------------------------------------------------------------

def with_else(x):
    r = 0
    try:
        r = 100 // x
    except ZeroDivisionError:
        r = -1
    else:
        r += 1
    return r


def finally_normal(x):
    log = 0
    try:
        log += x
    finally:
        log += 100
    return log


def finally_on_return(a, i):
    out = np.zeros(1)
    try:
        return a[i]
    finally:
        out[0] = 1.0
        a[0] = -1.0


def finally_on_propagate(a, i):
    try:
        a[0] = a[i]
    finally:
        a[1] = 42.0


def finally_in_loop(a):
    total = 0.0
    for i in range(6):
        try:
            if i == 1:
                continue
            if i == 4:
                break
            total += a[i]
        finally:
            total += 1000.0
    return total


def except_else_finally(x):
    steps = 0
    try:
        v = 12 // x
    except ZeroDivisionError:
        v = 0
        steps += 1
    else:
        steps += 10
    finally:
        steps += 100
    return v, steps


@pytest.mark.parametrize("x", [0, 3, -5])
def test_else_and_finally(x):
    check(with_else, x)
    check(finally_normal, x)
    check(except_else_finally, x)


def test_finally_on_return_and_propagation():
    for i in (1, 5):
        check(finally_on_return, np.arange(3.0), i)
        check(finally_on_propagate, np.arange(3.0), i)
    check(finally_in_loop, np.arange(6.0))
    check(finally_in_loop, np.arange(3.0))


# ---- nesting, raising in handlers, loops -----------------------------------------------------

def nested(a, i, d):
    try:
        try:
            return float(a[i]) / d
        except ZeroDivisionError:
            return a[i + 1]
    except IndexError:
        return -1.0


def reraise_bare(x):
    try:
        return 10 // x
    except ZeroDivisionError:
        raise


def reraise_named(x):
    try:
        return 10 // x
    except ZeroDivisionError as e:
        raise e


def raise_new_in_handler(x):
    try:
        return 10 // x
    except ZeroDivisionError:
        raise AppError("no zero")


def reraise_caught_outside(x):
    try:
        return reraise_inner(x)
    except ArithmeticError:
        return -2


@pyjit.njit
def reraise_inner(x):
    try:
        return 10 // x
    except Exception:
        raise


def reraise_after_inner_handler(x, y):
    try:
        return 10 // x
    except ZeroDivisionError:
        try:
            y = 5 // y
        except ZeroDivisionError:
            y = -1
        raise


def handler_in_loop(a, idx):
    s = 0.0
    bad = 0
    for k in idx:
        try:
            s += a[k]
        except IndexError:
            bad += 1
            continue
        s += 0.5
    return s, bad


def retry_loop(x):
    n = 0
    while True:
        try:
            return 60 // x
        except ZeroDivisionError:
            n += 1
            x += 1
            if n > 3:
                return -n


def caught_then_uncaught(a, i, j):
    try:
        v = a[i]
    except IndexError:
        v = 0.0
    return v + a[j]


def return_in_finally(x):
    try:
        return 10 // x
    finally:
        return -1  # noqa: B012 - the finally's return wins, exception or not


def break_in_handler(a):
    i = 0
    s = 0.0
    while True:
        try:
            s += a[i]
        except IndexError:
            break
        i += 1
    return s, i


def loop_inside_try(xs):
    s = 0
    try:
        for x in xs:
            s += 10 // x
    except ZeroDivisionError:
        s = -s
    return s


def nested_loops_with_handler(m):
    bad = 0
    s = 0.0
    for i in range(4):
        for j in range(4):
            try:
                s += m[i, j]
            except IndexError:
                bad += 1
                if bad > 3:
                    break
    return s, bad


@pytest.mark.parametrize("f,args", [
    (return_in_finally, (0,)), (return_in_finally, (2,)),
    (break_in_handler, (np.arange(4.0),)),
    (loop_inside_try, ([1, 2, 0, 4],)), (loop_inside_try, ([1, 2],)),
    (nested_loops_with_handler, (np.ones((2, 3)),)), (nested_loops_with_handler, (np.ones((4, 4)),)),
    (nested, (np.arange(3.0), 0, 2.0)), (nested, (np.arange(3.0), 0, 0.0)),
    (nested, (np.arange(3.0), 2, 0.0)), (nested, (np.arange(3.0), 5, 1.0)),
    (reraise_bare, (0,)), (reraise_bare, (2,)),
    (reraise_named, (0,)), (reraise_named, (2,)),
    (raise_new_in_handler, (0,)), (raise_new_in_handler, (5,)),
    (reraise_caught_outside, (0,)), (reraise_caught_outside, (3,)),
    (reraise_after_inner_handler, (0, 0)), (reraise_after_inner_handler, (0, 2)),
    (reraise_after_inner_handler, (1, 0)),
    (handler_in_loop, (np.arange(4.0), np.array([0, 7, 2, -9, 3]))),
    (retry_loop, (0,)), (retry_loop, (-3,)), (retry_loop, (5,)),
    (caught_then_uncaught, (np.arange(3.0), 9, 1)), (caught_then_uncaught, (np.arange(3.0), 9, 8)),
])
def test_nesting_and_raising(f, args):
    check(f, *args)


def message_of(kind, x, s):
    try:
        if kind == 0:
            raise AppError("bad value", x)
        if kind == 1:
            return str(1 // x)
        if kind == 2:
            raise KeyError(s)
        if kind == 3:
            raise ValueError("plain")
        if kind == 4:
            raise IndexError
        if kind == 5:
            raise ValueError(s + "!")
        d = {1: 1.5}
        return str(d[x])
    except Exception as e:
        return "caught: " + str(e)


@pytest.mark.parametrize("args", [(0, 3, "a"), (1, 0, "a"), (2, 1, "zz"), (3, 1, "a"), (4, 1, "a"),
                                  (5, 1, "q"), (6, 7, "a"), (6, 1, "a")])
def test_str_of_caught_exception(args):
    check(message_of, *args)


def wrap_message(x):
    try:
        return 10 // x
    except ZeroDivisionError as e:
        raise AppError("wrapped: " + str(e))


@pyjit.njit
def endless(n):
    if n < 0:
        return 0
    return endless(n + 1) + 1


def test_new_exception_from_caught_message():
    f = pyjit.njit(wrap_message)
    with pytest.raises(AppError, match="wrapped: integer division or modulo by zero"):
        f(0)
    assert f(5) == 2


def test_recursion_error_is_caught():
    @pyjit.njit
    def guarded():
        try:
            return endless(0)
        except RecursionError:
            return -1
    assert guarded() == -1 and guarded() == -1


def test_reraise_keeps_class_and_message():
    f = pyjit.njit(raise_new_in_handler)
    with pytest.raises(AppError, match="no zero"):
        f(0)
    g = pyjit.njit(reraise_bare)
    with pytest.raises(ZeroDivisionError):
        g(0)


def test_uncaught_after_caught_has_its_own_traceback():
    f = pyjit.njit(caught_then_uncaught)
    assert f(np.arange(3.0), 9, 1) == 1.0   # caught: nothing left pending
    with pytest.raises(IndexError) as info:
        f(np.arange(3.0), 9, 8)
    frames = traceback.extract_tb(info.tb)
    line = caught_then_uncaught.__code__.co_firstlineno + 5
    assert any(fr.name.endswith("caught_then_uncaught") and fr.lineno == line for fr in frames)


def test_str_of_caught_exception_without_the_gil():
    @pyjit.njit(nogil=True)
    def f(x):
        try:
            return str(10 // x)
        except ZeroDivisionError as e:
            return str(e)
    assert f(0) == "integer division or modulo by zero" and f(5) == "2"


def test_cached_function_with_handlers(tmp_path):
    # The classes an except clause names are references the cached code binds in each process.
    src = tmp_path / "cached_exc.py"
    src.write_text(
        "from pyjit import njit\n"
        "class Bad(ValueError):\n"
        "    pass\n"
        "@njit(cache=True)\n"
        "def f(x):\n"
        "    try:\n"
        "        if x < 0:\n"
        "            raise Bad('negative')\n"
        "        return 10 // x\n"
        "    except Bad:\n"
        "        return -1\n"
        "    except ArithmeticError:\n"
        "        return -2\n")
    code = ("import sys; sys.path.insert(0, %r); import cached_exc as m; "
            "print(m.f(-3), m.f(0), m.f(5), len(m.f.stats.cache_hits))" % str(tmp_path))
    env = {"PYJIT_CACHE_DIR": str(tmp_path / "cache")}
    for hits in ("0", "1"):   # compiled and stored, then loaded
        rc, out, err = run_subprocess(code, env=env)
        assert rc == 0, err
        assert out.split() == ["-1", "-2", "2", hits]


def test_callers_see_no_stale_error():
    @pyjit.njit
    def inner(x):
        try:
            return 10 // x
        except ZeroDivisionError:
            return 0

    @pyjit.njit
    def outer(x):
        return inner(x) + inner(x + 1)

    assert outer(0) == 10
    assert outer(-1) == -10


def test_run_time_string_arguments_are_released():
    @pyjit.njit
    def parse_all(words):
        bad = 0
        for w in words:
            try:
                if not w.isdigit():
                    raise ValueError("not a number: " + w)
            except ValueError:
                bad += 1
        return bad

    words = ["1", "x", "22", "yy"]
    assert parse_all(words) == 2
    if not os.path.exists("/proc/self/statm"):
        return
    for _ in range(2000):
        parse_all(words)
    before = memory_in_use()
    for _ in range(100_000):
        parse_all(words)
    assert memory_in_use() - before < 8 << 20


def test_arrays_made_in_try_are_released():
    @pyjit.njit
    def make(n, i):
        try:
            t = np.ones(n)
            return t[i]
        except IndexError:
            return -1.0

    for _ in range(2000):
        make(16, 40)
    before = memory_in_use()
    for _ in range(200_000):
        make(16, 40)
        make(16, 3)
    assert memory_in_use() - before < 8 << 20


# ---- what is refused -------------------------------------------------------------------------

def returns_caught(x):
    try:
        return 10 // x
    except ZeroDivisionError as e:
        return e


def raise_from_none(s):
    try:
        return int(s)
    except ValueError:
        raise AppError("not a number") from None


def raise_from_caught(x):
    try:
        return 10 // x
    except ZeroDivisionError as e:
        raise AppError("no") from e


def test_raise_from_none():
    for s in ("12", "x"):
        check(raise_from_none, s)


def bare_raise_outside(x):
    if x:
        raise
    return x


def test_unsupported_uses_name_the_line():
    with pytest.raises(UnsupportedError, match="raised again") as info:
        pyjit.njit(returns_caught)(0)
    assert str(returns_caught.__code__.co_firstlineno + 4) in str(info.value)
    with pytest.raises(UnsupportedError, match="from an exception") as info:
        pyjit.njit(raise_from_caught)(0)
    assert str(raise_from_caught.__code__.co_firstlineno + 4) in str(info.value)
    with pytest.raises(UnsupportedError, match="bare raise") as info:
        pyjit.njit(bare_raise_outside)(1)
    assert str(bare_raise_outside.__code__.co_firstlineno + 2) in str(info.value)


def test_with_stays_unsupported():
    def f(x):
        with x:
            return 1
    with pytest.raises(UnsupportedError, match="with statement"):
        pyjit.njit(f)(1)


def test_try_in_a_kernel_is_refused():
    from pyjit import _core, _registry
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("built without the GPU compiler")

    from pyjit.gpu import hardware as gpu

    def kernel(out):
        i = gpu.grid(1)
        try:
            out[i] = 1.0 / i
        except ZeroDivisionError:
            out[i] = 0.0

    with pytest.raises(UnsupportedError, match="GPU kernels") as info:
        _core.cuda_compile_ptx(kernel, _registry.REGISTRY, ["array(float32, 1d, C)"])
    assert str(kernel.__code__.co_firstlineno + 3) in str(info.value)


def test_simulator_refuses_try_as_the_gpu_does():
    # The interpreted simulator runs the kernel's own Python, but refuses what the GPU refuses,
    # so a kernel that runs there runs on the GPU too.
    code = """
import numpy as np
from pyjit import gpu

@gpu.jit
def k(out):
    i = gpu.grid(1)
    try:
        out[i] = 1.0 / i
    except ZeroDivisionError:
        out[i] = -1.0

out = np.zeros(4)
k[1, 4](out)
print(out.tolist())
"""
    rc, out, err = run_subprocess(code, env={"PYJIT_SIMULATOR": "1"})
    assert rc != 0 and "try/except and try/finally are not supported in GPU kernels" in err
