"""Bad input: constructs pyjit does not compile, types that clash, bad calls, bad signatures.

Each compile error must be the right class (UnsupportedError or TypingError, both CompileError)
and name the function, the file and the line (marked `# <-` in the source below), with the source
line and a caret. Each bad call must be a TypeError naming the argument and what was given."""
import inspect
import math
import os
import re


import numpy as np
import pytest

import pyjit
from pyjit.errors import CompileError, TypingError, UnsupportedError

THIS_FILE = os.path.basename(__file__)
GLOBAL_LIST = [1, 2, 3]
COUNTER = 0


def marked_lines(func, marker="# <-"):
    """Line numbers (in this file) of the lines of func carrying the marker."""
    lines, start = inspect.getsourcelines(func)
    found = [(start + i, line) for i, line in enumerate(lines) if marker in line]
    assert found, f"{func.__name__} has no {marker!r} line"
    return found


def assert_located(msg, func, marker="# <-"):
    """msg names func, this file, one of the marked lines, shows that line and a caret."""
    assert func.__name__ in msg, f"function name {func.__name__!r} missing from:\n{msg}"
    assert THIS_FILE in msg, f"file name missing from:\n{msg}"
    lines = marked_lines(func, marker)
    assert any(f"line {n}" in msg for n, _ in lines), \
        f"none of lines {[n for n, _ in lines]} named in:\n{msg}"
    assert any(text.split("# <-")[0].strip() in msg for _, text in lines), \
        f"source line missing from:\n{msg}"
    assert "^" in msg, f"no caret in:\n{msg}"


def compile_error(cls, func, *args):
    """Compiles and calls func(*args); asserts a located cls; returns the message."""
    with pytest.raises(cls) as info:
        pyjit.njit(func)(*args)
    assert isinstance(info.value, CompileError)
    msg = str(info.value)
    assert_located(msg, func)
    return msg


# --- unsupported constructs ---------------------------------------------------------------------

def uses_dict(x):
    d = {1j: x}  # <-   complex numbers are no keys in compiled code
    return d[1j]


def uses_dict_unpacking(x):
    d = {**x}  # <-
    return len(d)


def uses_set_of_arrays(x):
    s = {x, x}  # <-
    return len(s)


def uses_class(x):
    class Point:  # <-
        pass
    return x


def uses_caught_exception(x):
    try:
        y = 1 // x
    except ZeroDivisionError as e:
        return e  # <-
    return y


def uses_bare_raise_outside_except(x):
    if x > 0:
        raise  # <-
    return x


def uses_with(x):
    with np.errstate(all="ignore"):  # <-
        y = x + 1
    return y


def uses_yield_from(x):
    yield from range(x)  # <-


def uses_yield_after_yield_from(x):
    s = x * 2
    yield from range(s)  # <-
    yield s


def uses_nonlocal_write(x):
    total = 0

    def add(y):
        nonlocal total
        total += y  # <-
    add(x)
    return total


def uses_returned_closure(x):
    return lambda y: y + x  # <-


def uses_global_store(x):
    global COUNTER
    COUNTER = x  # <-
    return x


def uses_fstring_spec(x):
    s = f"value {x:.2f}"  # <-
    return len(s)


def uses_import(x):
    import os as o  # <-
    return x


def uses_from_import(x):
    from math import sqrt  # <-
    return sqrt(x)


def uses_star_kwargs(x, **kwargs):  # <-
    return x


def uses_np_random(x):
    return np.random.SeedSequence(x)  # <-


def uses_os_getcwd(x):
    return os.getcwd()  # <-


def uses_bytes(x):
    b = b"abc"  # <-
    return len(b)  # <-


def uses_sorted(x):
    return sorted((x, 1.5))  # <-


def uses_open(x):
    return open("file")  # <-


def uses_del_item(a):
    del a[0]  # <-
    return a


def uses_store_attr(a):
    a.shape = (2, 2)  # <-
    return a


def uses_python_function(x):
    return plain_python_helper(x)  # <-


def plain_python_helper(x):
    return x + 1


def uses_list_global(x):
    return GLOBAL_LIST[0] + x  # <-


def uses_string_format(x):
    return "%d" % x  # <-


def uses_getattr(x, name):
    return getattr(x, name)  # <-


UNSUPPORTED = [
    (uses_dict, (1,)), (uses_dict_unpacking, (1,)), (uses_set_of_arrays, (np.zeros(2),)),
    (uses_class, (1,)), (uses_caught_exception, (0,)), (uses_bare_raise_outside_except, (1,)),
    (uses_with, (1,)),
    (uses_yield_from, (3,)), (uses_yield_after_yield_from, (1,)),
    (uses_nonlocal_write, (1,)), (uses_returned_closure, (1,)),
    (uses_global_store, (1,)), (uses_fstring_spec, (1,)), (uses_import, (1,)),
    (uses_from_import, (1.0,)), (uses_star_kwargs, (1,)),
    (uses_np_random, (3,)), (uses_os_getcwd, (1,)),
    (uses_sorted, (1,)), (uses_open, (1,)),
    (uses_del_item, (np.zeros(3),)), (uses_store_attr, (np.zeros(4),)),
    (uses_python_function, (1,)), (uses_list_global, (1,)), (uses_string_format, (1,)),
    (uses_getattr, (1.5, "real")),
]


@pytest.mark.parametrize("func,args", UNSUPPORTED, ids=[f.__name__ for f, _ in UNSUPPORTED])
def test_unsupported_constructs(func, args):
    # UnsupportedError for constructs; a call of something unknown may be a TypingError: both are
    # CompileErrors, and either way the message is located
    with pytest.raises(CompileError) as info:
        pyjit.njit(func)(*args)
    assert_located(str(info.value), func)


STRICTLY_UNSUPPORTED = [uses_dict, uses_dict_unpacking, uses_set_of_arrays, uses_class,
                        uses_caught_exception, uses_bare_raise_outside_except, uses_with,
                        uses_yield_from, uses_yield_after_yield_from, uses_nonlocal_write, uses_returned_closure,
                        uses_global_store, uses_fstring_spec, uses_import, uses_star_kwargs]


@pytest.mark.parametrize("func", STRICTLY_UNSUPPORTED, ids=lambda f: f.__name__)
def test_unsupported_constructs_are_unsupported_error(func):
    args = dict(UNSUPPORTED)[func]
    compile_error(UnsupportedError, func, *args)


@pytest.mark.parametrize("func", [uses_yield_from, uses_yield_after_yield_from],
                         ids=lambda f: f.__name__)
def test_generator_is_reported_at_its_first_yield(func):
    """Not at the def (where CPython places the code every generator starts with)."""
    msg = compile_error(UnsupportedError, func, 1)
    assert "generators" in msg, msg
    _, def_line = inspect.getsourcelines(func)
    assert not re.search(rf"line {def_line}\b", msg), msg
    with pytest.raises(UnsupportedError) as info:    # compiled at decoration: the same place
        pyjit.njit("int64(int64)")(func)
    (line, _), = marked_lines(func)
    assert info.value.lineno == line, str(info.value)


def test_unsupported_error_is_not_a_silent_fallback_with_jit():
    with pytest.raises(UnsupportedError):
        pyjit.jit(uses_dict)(1)
    with pytest.raises(UnsupportedError):
        pyjit.jit(uses_set_of_arrays)(np.zeros(2))


# --- typing errors ------------------------------------------------------------------------------

def clash_int_tuple(x):
    if x > 0:
        y = 1  # <- A
    else:
        y = (1, 2)  # <- B
    return y  # <-


def clash_array_float(a, x):
    if x > 0:
        v = a  # <- A
    else:
        v = 1.5  # <- B
    return v  # <-


def test_type_clash_names_variable_types_and_lines():
    msg = compile_error(TypingError, clash_int_tuple, 1)
    assert "'y'" in msg or " y " in msg, msg
    assert "int64" in msg and "tuple" in msg, msg
    for marker in ("# <- A", "# <- B"):
        (line, _), = marked_lines(clash_int_tuple, marker)
        assert f"line {line}" in msg or f":{line}" in msg, f"line {line} missing:\n{msg}"


def test_type_clash_array_and_float():
    msg = compile_error(TypingError, clash_array_float, np.zeros(3), 1)
    assert "'v'" in msg or " v " in msg, msg
    assert "float64" in msg and "array" in msg, msg


def undefined_on_a_path(x):
    if x > 0:
        y = 1
    return y  # <-


def test_undefined_variable_on_a_path():
    with pytest.raises((CompileError, NameError, UnboundLocalError)) as info:
        pyjit.njit(undefined_on_a_path)(-1)
    msg = str(info.value)
    assert "y" in msg
    if isinstance(info.value, CompileError):
        assert_located(msg, undefined_on_a_path)


def uses_undefined_global(x):
    return not_defined_anywhere(x)  # <-  # noqa: F821


def unknown_array_attribute(a):
    return a.foo  # <-


def unknown_module_function(x):
    return math.no_such_function(x)  # <-


def unknown_int_method(x):
    return x.append(1)  # <-


def tuple_plus_int(x):
    t = (1, 2)
    return t + x  # <-


def index_a_scalar(x):
    return x[0]  # <-


def too_many_indices(a):
    return a[0, 0]  # <-


def float_index(a):
    return a[1.5]  # <-


def returns_int_or_tuple(x):
    if x > 0:
        return 1  # <-
    return (1, 2)  # <-


def math_on_string(x):
    return math.sqrt("x")  # <-


def len_of_int(x):
    return len(x)  # <-


def range_of_float(x):
    s = 0
    for i in range(x):  # <-
        s += i
    return s


def float_bitwise(x):
    return x & 1  # <-


def float_invert(x):
    return ~x  # <-


def complex_less(x):
    return x < 1j  # <-


def complex_floordiv(x):
    return x // 2j  # <-


def array_truth(a):
    if a:  # <-
        return 1
    return 0


def too_large_constant(x):
    return x + 100000000000000000000000  # <-


@pyjit.njit
def two_args(a, b):
    return a + b


def wrong_arity_inner_call(x):
    return two_args(x, x, x)  # <-


def wrong_keyword_inner_call(x):
    return two_args(x, c=x)  # <-


def recursive_without_signature(n):
    if n <= 0:
        return 0
    return n + recursive_without_signature_jit(n - 1)  # <-


recursive_without_signature_jit = pyjit.njit(recursive_without_signature)


def write_readonly(a):
    a[0] = 1.0  # <-


def write_readonly_slice(a):
    a[1:3] = 0.0  # <-


def write_readonly_via_view(a):
    v = a[1:]
    v[0] = 2.0  # <-


TYPING = [
    (uses_undefined_global, (1,)), (unknown_array_attribute, (np.zeros(3),)),
    (unknown_module_function, (1.0,)), (unknown_int_method, (1,)), (tuple_plus_int, (1,)),
    (index_a_scalar, (1,)), (too_many_indices, (np.zeros(3),)), (float_index, (np.zeros(3),)),
    (returns_int_or_tuple, (1,)), (math_on_string, (1.0,)), (len_of_int, (3,)),
    (range_of_float, (2.5,)), (float_bitwise, (2.5,)), (float_invert, (2.5,)),
    (complex_less, (1j,)), (complex_floordiv, (1j,)),
    (too_large_constant, (1,)), (wrong_arity_inner_call, (1,)), (wrong_keyword_inner_call, (1,)),
]


@pytest.mark.parametrize("func,args", TYPING, ids=[f.__name__ for f, _ in TYPING])
def test_typing_errors(func, args):
    with pytest.raises(CompileError) as info:
        pyjit.njit(func)(*args)
    assert_located(str(info.value), func)


def test_bytes_constant_and_array_truth_run_as_in_python():
    """Once refusals, now what CPython and NumPy do: a bytes constant has its length, and the
    truth of an array is that of its one item, NumPy's ValueError for more items."""
    assert pyjit.njit(uses_bytes)(1) == uses_bytes(1)
    compiled = pyjit.njit(array_truth)
    for a in (np.zeros(1), np.ones(1), np.array([[2.5]])):
        assert compiled(a) == array_truth(a)
    with pytest.raises(ValueError) as expected:
        array_truth(np.zeros(3))
    with pytest.raises(ValueError) as got:
        compiled(np.zeros(3))
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("func", [tuple_plus_int, index_a_scalar, float_index, float_bitwise,
                                  complex_less, len_of_int, wrong_arity_inner_call],
                         ids=lambda f: f.__name__)
def test_type_mismatch_is_typing_error(func):
    compile_error(TypingError, func, *dict(TYPING)[func])


def endless(n):  # <-
    return endless_jit(n - 1) + 1  # <-


endless_jit = pyjit.njit(endless)


def test_recursion_without_signature():
    # a recursion with no path that gives its type cannot be typed without a signature
    with pytest.raises(CompileError) as info:
        endless_jit(5)
    assert_located(str(info.value), endless)
    # one with a base case may be typed from it; then it must compute the right thing
    try:
        got = recursive_without_signature_jit(5)
    except CompileError as exc:
        assert_located(str(exc), recursive_without_signature)
    else:
        assert got == 15


def readonly_array():
    a = np.arange(4.0)
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("func", [write_readonly, write_readonly_slice, write_readonly_via_view],
                         ids=lambda f: f.__name__)
def test_write_to_readonly_array(func):
    a = readonly_array()
    msg = compile_error(TypingError, func, a)
    assert "read" in msg.lower(), msg
    assert np.array_equal(a, np.arange(4.0))


def test_compile_error_attributes():
    with pytest.raises(UnsupportedError) as info:
        pyjit.njit(uses_dict)(1)
    exc = info.value
    (line, _), = marked_lines(uses_dict)
    assert exc.lineno == line
    assert exc.filename.endswith(THIS_FILE)
    assert "uses_dict" in exc.func_name


def test_error_is_raised_again_on_the_next_call():
    f = pyjit.njit(uses_dict)
    for _ in range(3):
        with pytest.raises(UnsupportedError):
            f(1)


# --- bad calls: TypeError naming the argument and what was given --------------------------------

def takes_one(x):
    return x


class Opaque:
    pass


BAD_ARGUMENTS = [
    ([], "empty list"),
    ([[1]], "list of lists"),
    ({"a": 1}, "dict"),
    ({None}, "set"),
    (np.array([1, "a"], dtype=object), "object"),
    (Opaque(), "Opaque"),
    (np.array(["2020-01-01"], dtype="datetime64[5s]"), "datetime64"),
    (np.zeros(2, dtype=[("a", "f8"), ("b", "U4")]), "U4"),
    (takes_one, "function"),
    (np, "module"),
    (2**70, "int"),
]


@pytest.mark.parametrize("value,given", BAD_ARGUMENTS,
                         ids=[f"{type(v).__name__}{i}" for i, (v, _) in enumerate(BAD_ARGUMENTS)])
def test_bad_argument_types(value, given):
    f = pyjit.njit(takes_one)
    with pytest.raises((TypeError, ValueError, OverflowError)) as info:
        f(value)
    msg = str(info.value)
    assert "x" in msg and ("argument" in msg or "'x'" in msg), msg
    assert given in msg, f"{given!r} not named in {msg!r}"
    if isinstance(info.value, TypeError):     # what is accepted instead
        assert "accept" in msg.lower() or "expected" in msg.lower() or "support" in msg.lower(), msg
    assert not isinstance(info.value, CompileError)
    assert f(3) == 3          # the dispatcher still works


def two_params(a, b):
    return a + b


def test_too_many_and_too_few_arguments():
    f = pyjit.njit(two_params)
    with pytest.raises(TypeError) as info:
        f(1, 2, 3)
    assert "two_params" in str(info.value) and "3" in str(info.value), str(info.value)
    with pytest.raises(TypeError) as info:
        f(1)
    assert "'b'" in str(info.value), str(info.value)
    with pytest.raises(TypeError):
        f()
    with pytest.raises(TypeError) as info:
        f(1, c=2)
    assert "c" in str(info.value)
    with pytest.raises(TypeError):
        f(1, 2, a=3)
    assert f(1, 2) == 3


def test_call_not_matching_explicit_signature():
    f = pyjit.njit("float64(float64)")(takes_one)
    with pytest.raises(TypeError) as info:
        f(np.zeros(3))
    assert "float64" in str(info.value)


@pytest.mark.parametrize("sig", ["float64(", "float64(float99)", "nosuchtype(int64)",
                                 "int64(int64[:::])", "int64 int64", "(int64)->", "",
                                 "float64(int64,,int64)"])
def test_bad_signature_strings(sig):
    with pytest.raises(TypeError) as info:
        pyjit.njit(sig)(two_params)
    assert f"'{sig}'" in str(info.value) or (sig and sig in str(info.value)), str(info.value)


def test_bad_signature_object():
    with pytest.raises(TypeError):
        pyjit.njit(12345)(two_params)


def test_signature_with_wrong_arity():
    with pytest.raises(TypeError) as info:
        pyjit.njit("float64(float64)")(two_params)
    assert "two_params" in str(info.value)


def test_bad_option():
    with pytest.raises(TypeError):
        pyjit.njit(no_such_option=True)(two_params)


def test_njit_of_a_non_function():
    with pytest.raises(TypeError):
        pyjit.njit(Opaque)(1)


# ---- replacing __code__ after decoration ---------------------------------------------------------

def _plus_one(x):
    return x + 1


def _times_two(x):
    return x * 2


def _make_plus_one():
    def plus_one(x):
        return x + 1
    return plus_one


def test_replaced_code_is_a_user_error_not_an_internal_one():
    """Compiled code keeps the code it was decorated with: after __code__ is replaced, every call
    (compiled before or not) and every compile of a caller is an UnsupportedError saying so."""
    f = pyjit.njit(_make_plus_one())
    assert f(1) == 2
    f.py_func.__code__ = _times_two.__code__
    for args in [(1,), (2.5,)]:
        with pytest.raises(UnsupportedError, match="__code__ of 'plus_one' was replaced"):
            f(*args)

    g = pyjit.njit(_make_plus_one())

    @pyjit.njit
    def caller(x):
        return g(x) * 10

    g.py_func.__code__ = _times_two.__code__
    with pytest.raises(UnsupportedError, match="decorate the new function"):
        caller(1)
    assert pyjit.njit(_plus_one)(1) == 2     # the functions whose code was borrowed are intact
