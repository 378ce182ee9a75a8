"""pyjit.extending: overload and register_jitable (Numba's API), compiled vs CPython."""
import math
import os
import sys

import numpy as np
import pytest

import pyjit
from pyjit import _core, _registry, errors, extending, njit, types
from pyjit.extending import overload, register_jitable

sys.path.insert(0, os.path.dirname(__file__))
from util import assemble_ptx  # noqa: E402


# ---- user functions with overloads ----

def clip01(x):
    """The Python version (what CPython runs)."""
    if isinstance(x, np.ndarray):
        return np.minimum(np.maximum(x, 0.0), 1.0)
    return min(max(x, 0.0), 1.0)


@overload(clip01)
def _clip01_scalar(x):
    if isinstance(x, types.Float):
        def impl(x):
            return min(max(x, 0.0), 1.0)
        return impl
    return None


@overload(clip01)
def _clip01_array(x):
    if isinstance(x, types.Array) and isinstance(x.dtype, types.Float):
        def impl(x):
            out = np.empty_like(x)
            flat, res = x.ravel(), out.ravel()
            for i in range(flat.size):
                res[i] = min(max(flat[i], 0.0), 1.0)
            return out
        return impl
    return None


def scale(x, factor=2.0, offset=0):
    return x * factor + offset


@overload(scale)
def _scale(x, factor=2.0, offset=0):
    if isinstance(x, types.Number):
        def impl(x, factor=2.0, offset=0):
            return x * factor + offset
        return impl


def kind(x):
    return "?"


@overload(kind)
def _kind_int(x):
    if isinstance(x, types.Integer):
        return lambda x: 1


@overload(kind)
def _kind_number(x):   # tried after _kind_int: catches what it declined
    if isinstance(x, types.Number):
        return lambda x: 2


@overload(kind)
def _kind_tuple(x):
    if isinstance(x, types.UniTuple) and x.count == 2:
        return lambda x: 3
    if isinstance(x, types.NoneType):
        return lambda x: 4


@register_jitable
def hyp2(a, b=3.0):
    return a * a + b * b


@register_jitable(fastmath=False)
def hyp2_twice(a):
    return 2 * hyp2(a)


def test_choice_by_argument_types():
    @njit
    def f(x, a):
        return clip01(x), clip01(a)
    a = np.array([-1.0, 0.25, 3.0])
    s, arr = f(1.5, a)
    assert s == 1.0
    np.testing.assert_array_equal(arr, clip01(a))
    np.testing.assert_array_equal(f(-0.5, a[::2])[1], clip01(a[::2]))
    a32 = np.array([[-1.0, 0.5], [2.0, 0.1]], dtype=np.float32)
    got = f(0.5, a32)[1]
    assert got.dtype == np.float32 and got.shape == (2, 2)
    np.testing.assert_array_equal(got, np.clip(a32, 0, 1))


def test_several_overloads_tried_in_order():
    @njit
    def f(i, x, t):
        return kind(i), kind(x), kind(t), kind(None)
    assert f(3, 2.5, (1, 2)) == (1, 2, 3, 4)
    assert f(np.int32(3), np.float32(1), (1.0, 2.0)) == (1, 2, 3, 4)


def test_keywords_and_defaults():
    @njit
    def f(x):
        return scale(x), scale(x, 3.0), scale(x, offset=1), scale(x, factor=0.5, offset=2), \
            scale(offset=1, x=x)
    assert f(2.0) == (scale(2.0), scale(2.0, 3.0), scale(2.0, offset=1),
                      scale(2.0, factor=0.5, offset=2), scale(offset=1, x=2.0))
    assert f(3) == (6.0, 9.0, 7.0, 3.5, 7.0)


def test_register_jitable_from_python_and_compiled():
    assert hyp2(2.0) == 13.0 and hyp2(1, 1) == 2   # still the plain function
    assert not isinstance(hyp2, _core.Dispatcher)

    @njit
    def f(a, b):
        return hyp2(a), hyp2(a, b), hyp2_twice(b)
    assert f(2.0, 1.0) == (hyp2(2.0), hyp2(2.0, 1.0), hyp2_twice(1.0))
    assert f(2, 5) == (13.0, 29, 2 * hyp2(5))


def test_called_through_another_compiled_function():
    @njit
    def inner(x):
        return clip01(x) + hyp2(x)

    @njit
    def outer(xs):
        s = 0.0
        for i in range(xs.size):
            s += inner(xs[i])
        return s
    xs = np.array([-1.0, 0.5, 2.0])
    assert outer(xs) == pytest.approx(sum(clip01(x) + hyp2(x) for x in xs))


def test_no_overload_accepts_is_a_typing_error_with_the_line():
    @njit
    def f(x):
        y = x + 1
        return clip01(y)
    with pytest.raises(errors.TypingError) as info:
        f(3)
    msg = str(info.value)
    assert "clip01" in msg and "int64" in msg and "return clip01(y)" in msg
    assert info.value.lineno == f.py_func.__code__.co_firstlineno + 3


def bad(x):
    return x


@overload(bad)
def _bad(x):
    raise KeyError("no such case")


def wrong_sig(x, y=1):
    return x


@overload(wrong_sig)
def _wrong_sig(x, y=1):
    return lambda x, z=1: x


def test_typing_function_that_raises_is_a_typing_error():
    @njit
    def f(x):
        return bad(x)
    with pytest.raises(errors.TypingError) as info:
        f(1.0)
    msg = str(info.value)
    assert "_bad" in msg and "KeyError" in msg and "no such case" in msg and "float64" in msg
    assert "return bad(x)" in msg


def test_implementation_signature_must_match():
    @njit
    def f(x):
        return wrong_sig(x)
    with pytest.raises(errors.TypingError, match="signatures must match"):
        f(1.0)


def test_options_that_cannot_be_honoured_raise():
    def g(x):
        return x
    with pytest.raises(ValueError, match="'never', 'always' or a callable"):
        overload(g, inline="sometimes")
    with pytest.raises(NotImplementedError, match="target"):
        overload(g, target="cuda")
    with pytest.raises(TypeError, match="unexpected"):
        overload(g, jit_options={"parallel_please": True})
    with pytest.raises(TypeError, match="unexpected"):
        overload(g, colour="red")
    with pytest.raises(TypeError):
        register_jitable(nothing_such=True)


@pytest.fixture
def hypot_overloaded():
    """math.hypot with an overload for ints only, removed afterwards."""
    @overload(math.hypot)
    def _hypot_ints(a, b):
        if isinstance(a, types.Integer) and isinstance(b, types.Integer):
            return lambda a, b: -1.0   # visibly not the builtin
    yield
    del extending._OVERLOADS[math.hypot]
    _registry.REGISTRY[math.hypot] = "math.hypot"
    extending._CHOSEN.clear()


def test_builtin_serves_when_every_overload_declines(hypot_overloaded):
    @njit
    def f(a, b):
        return math.hypot(a, b)
    assert f(3, 4) == -1.0
    assert f(3.0, 4.0) == 5.0


def test_string_arguments_choose_the_implementation():
    def pick(x, how="add"):
        return x + 1 if how == "add" else x - 1

    @overload(pick, prefer_literal=True)   # the literal first: Numba's order otherwise is plain
    def _pick(x, how="add"):
        which = how.literal_value if isinstance(how, types.StringLiteral) else how
        if which == "add":
            return lambda x, how="add": x + 1
        return lambda x, how="add": x - 1

    @njit
    def f(x):
        return pick(x), pick(x, "sub"), pick(x, how="add"), pick(x, how="sub")
    assert f(5) == (6, 4, 6, 4)


def test_types_for_typing_functions():
    seen = []

    def probe(*args):
        return 0

    @overload(probe)
    def _probe(a, b, c, d, e):
        seen.extend([a, b, c, d, e])
        return lambda a, b, c, d, e: 0

    @njit
    def f(a, b, c, d):
        return probe(a, b, c, d, None)
    f(np.zeros((2, 3), np.float32)[:, ::2], np.int16(1), 1.5j, (1.0, 2))
    a, b, c, d, e = seen
    assert isinstance(a, types.Array) and a.dtype == types.float32 and a.ndim == 2
    assert a.layout == "A"
    assert isinstance(b, types.Integer) and b.signed and b.bitwidth == 16
    assert isinstance(b, types.Number) and not isinstance(b, types.Float)
    assert isinstance(c, types.Complex) and isinstance(d, types.Tuple)
    assert not isinstance(d, types.UniTuple) and e == types.none
    assert isinstance(types.bool_, types.Boolean) and isinstance(types.float32, types.Float)
    assert types.Omitted(3).value == 3


# ---- GPU kernels: through the simulator, and PTX assembled by ptxas ----

@register_jitable
def _saxpy_one(a, x, y):
    return a * x + y


def _saxpy_kernel(a, x, y, out):
    i = pyjit.gpu.grid(1)
    if i < x.size:
        out[i] = _saxpy_one(a, x[i], clip01(y[i]))


def test_gpu_kernel_ptx_calls_overloads():
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")
    _registry.populate()
    argtypes = ["float32", "array(float32, 1d, C)", "array(float32, 1d, C)",
                "array(float32, 1d, C)"]
    ptx, entry, written = _core.cuda_compile_ptx(_saxpy_kernel, _registry.REGISTRY, argtypes)
    assert entry in ptx
    assemble_ptx(ptx)


def test_gpu_kernel_through_the_simulator():
    from pyjit.gpu import simulator as sim

    @sim.jit
    def kernel(a, x, y, out):
        i = sim.grid(1)
        if i < x.size:
            out[i] = _saxpy_one(a, x[i], clip01(y[i]))
    x = np.arange(8, dtype=np.float32)
    y = np.linspace(-1, 2, 8).astype(np.float32)
    out = np.zeros_like(x)
    kernel[2, 4](np.float32(2.0), x, y, out)
    np.testing.assert_allclose(out, 2 * x + np.clip(y, 0, 1))


# ---- jit_options: the implementation's own options, wherever it is called from ----

def ratio(a, b):
    return a / b


@overload(ratio, jit_options={"error_model": "numpy"})
def _ratio(a, b):
    return lambda a, b: a / b


@register_jitable(error_model="numpy")
def ratio_jitable(a, b):
    return a / b


@register_jitable(boundscheck=True)
def eleventh(a):
    return a[10]


def test_jit_options_error_model_is_honoured():
    @njit
    def f(a, b):
        return ratio(a, b), ratio_jitable(a, b)
    assert f(1.0, 0.0) == (float("inf"), float("inf"))
    assert f(3.0, 2.0) == (ratio(3.0, 2.0), ratio_jitable(3.0, 2.0))


def test_jit_options_boundscheck_is_honoured():
    @njit(boundscheck=False)
    def f(a):
        return eleventh(a)
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 3"):
        f(np.zeros(3))
    assert f(np.arange(12.0)) == eleventh(np.arange(12.0))


def test_jit_options_opt_raises_and_nogil_is_taken():
    with pytest.raises(NotImplementedError, match="opt"):
        register_jitable(opt=0)

    # Numba's documented replacement for the removed generated_jit, as libraries copied it:
    # the decorator's options, nogil among them, become the overload's jit_options
    def generated_jit(function=None, cache=False, **options):
        jit_options = {"cache": cache} | options
        overload(function, jit_options=jit_options, strict=False)(function)
        return function

    def is_close(reference, value):
        if isinstance(reference, types.Integer) and isinstance(value, types.Integer):
            return lambda reference, value: value == reference
        return lambda reference, value: abs(value - reference) <= 1e-8 + 1e-5 * abs(reference)

    generated_jit(is_close, nogil=True, nopython=True)

    @njit(nogil=True)
    def f(a, b, x, y):
        return is_close(a, b), is_close(x, y), is_close(x, x + 1e-3)

    assert f(3, 3, 1.0, 1.0 + 1e-9) == (True, True, False)
    g = register_jitable(nogil=True)(lambda x: 2 * x)

    @njit
    def h(x):
        return g(x)
    assert h(2.5) == 5.0


# ---- operators of the user's types through overload(operator.add), as in Numba ----

def test_operator_overloads_give_a_jitclass_its_operators():
    import operator

    from pyjit.experimental import jitclass

    @jitclass([("x", types.float64), ("y", types.float64)])
    class Vec:
        def __init__(self, x, y):
            self.x = x
            self.y = y

    vec = Vec.class_type.instance_type

    @overload(operator.add)
    def _add(a, b):
        if a == vec and b == vec:
            return lambda a, b: Vec(a.x + b.x, a.y + b.y)

    @overload(operator.mul)
    def _mul(a, b):
        if a == vec and isinstance(b, types.Number):
            return lambda a, b: Vec(a.x * b, a.y * b)

    @overload(operator.lt)
    def _lt(a, b):
        if a == vec and b == vec:
            return lambda a, b: a.x * a.x + a.y * a.y < b.x * b.x + b.y * b.y

    def use(a, b):
        c = a + b
        c += a            # no operator.iadd overload: a + b, as Python falls back
        d = c * 2.0
        return d.x, d.y, a < b, b < a, 1 + 2   # numbers keep the builtin +

    assert njit(use)(Vec(1.0, 2.0), Vec(3.0, 4.0)) == (10.0, 16.0, True, False, 3)

    def unsupported(a):
        return a - a      # no operator.sub overload and no __sub__
    with pytest.raises(errors.TypingError, match="__sub__"):
        njit(unsupported)(Vec(1.0, 2.0))


def test_numbas_inline_and_prefer_literal_options_are_taken():
    import warnings

    def twice(x):
        raise NotImplementedError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the once-per-process hint that LLVM inlines

        @overload(twice, inline="always", prefer_literal=True)
        def ol_twice(x):
            if isinstance(x, types.Integer):
                return lambda x: x * 2

        @overload(twice, inline=lambda expr, caller, callee: True)
        def ol_twice_str(x):
            if isinstance(x, types.UnicodeType):
                return lambda x: x + x

    @njit
    def call(n, s):
        return twice(n), twice(s)

    assert call(21, "ab") == (42, "abab")


def test_literal_dispatch_in_an_overload():
    # Numba's documented literally() pattern: the implementation given for a plain n asks for
    # its value, so the caller is compiled again for each value of its argument n
    import pyjit

    def power(x, n):
        raise NotImplementedError

    @overload(power)
    def ov_power(x, n):
        if isinstance(n, pyjit.types.IntegerLiteral):
            p = n.literal_value
            return lambda x, n: x ** p
        return lambda x, n: pyjit.literally(n)

    @njit
    def call(x, n):
        return power(x, n)

    assert (call(3, 2), call(3, 3), call(2, 2)) == (3 ** 2, 3 ** 3, 2 ** 2)
    assert len(call.signatures) == 2

    def greet(s):
        raise NotImplementedError

    @overload(greet)
    def ov_greet(s):     # a string constant arrives literal: its literally() branch is not taken
        if isinstance(s, pyjit.types.StringLiteral):
            text = s.literal_value.upper()
            return lambda s: text
        return lambda s: pyjit.literally(s)

    @njit
    def shout():
        return greet("hi")
    assert shout() == "HI"


def test_numbas_abstract_tuple_classes_in_typing_functions():
    # Numba's high-level extension docs: len() of any tuple through isinstance(seq, BaseTuple)
    def my_len(seq):
        return len(seq)

    @overload(my_len)
    def tuple_len(seq):
        if isinstance(seq, types.BaseTuple):
            n = len(seq)
            return lambda seq: n

    @njit
    def call(t):
        return my_len(t)

    for t in [(1, 2.0, 3), (4, 5), (1.5,)]:
        assert call(t) == my_len(t)
    Point = __import__("collections").namedtuple("Point", "x y")
    assert isinstance(types.typeof(Point(1, 2)), types.BaseNamedTuple)
    assert not isinstance(types.typeof(Point(1, 2)), types.BaseAnonymousTuple)
    assert isinstance(types.typeof((1, 2.0)), types.BaseAnonymousTuple)
    assert not isinstance(types.float64, types.BaseTuple)
