"""Numba's documentation for CPU code, second part: jitclass (the Bag of the user guide, classes
typed by annotations, typed containers as members), numba.typed's List, Dict and Set as the
reference pages use them, structref (the MyStruct proxy with an overloaded method), NumPy
Generators passed in, record fields named through constant tuples and literal_unroll, the
high-level extension API (@overload with isinstance(seq, types.BaseTuple), overload_attribute,
overload_method, register_jitable), literal dispatch through literally(), jit_module, and what
pyjit refuses with a message naming the alternative (Numba's low-level extension API of the
Interval example, literal containers of mixed types). Restated in our own words, the import
switched to pyjit; results compared with CPython/NumPy running the same source.
"""
import sys
import typing

import numpy as np
import pytest

import pyjit
from pyjit import float32, int32, literal_unroll, njit, typed, types
from pyjit.errors import TypingError
from pyjit.experimental import jitclass, structref
from pyjit.extending import overload, overload_attribute, overload_method, register_jitable


# ---- jitclass ----

@jitclass([("value", int32), ("array", float32[:])])
class Bag:
    def __init__(self, value):
        self.value = value
        self.array = np.zeros(value, dtype=np.float32)

    @property
    def size(self):
        return self.array.size

    def increment(self, val):
        for i in range(self.size):
            self.array[i] += val
        return self.array

    @staticmethod
    def add(x, y):
        return x + y


@jitclass
class Counter:
    value: int

    def __init__(self):
        self.value = 0

    def get(self) -> int:
        ret = self.value
        self.value += 1
        return ret


@jitclass
class Cycler:
    counter: Counter
    items: typing.List[float]

    def __init__(self, items):
        self.items = items
        self.counter = Counter()

    def get(self) -> float:
        return self.items[self.counter.get() % len(self.items)]


def test_jitclass_guide():
    bag = Bag(21)
    assert isinstance(bag, Bag) and bag.value == 21 and bag.size == 21
    np.testing.assert_array_equal(bag.increment(3), np.full(21, 3, np.float32))
    np.testing.assert_array_equal(bag.increment(6), np.full(21, 9, np.float32))
    assert bag.add(1, 1) == 2 and Bag.add(1, 2) == 3

    @njit
    def use(n):
        b = Bag(n)
        b.increment(1.5)
        return b.array.sum() + Bag.add(2, 3) + b.size

    assert use(4) == 4 * 1.5 + 5 + 4
    items = typed.List([1.5, 2.5, 4.0])
    it = Cycler(items)
    assert [it.get() for _ in range(7)] == [items[i % 3] for i in range(7)]


# ---- numba.typed ----

def test_typed_list_as_the_reference_shows():
    @njit
    def foo(x):
        x.append(10)

    a = typed.List()
    for v in (1, 2, 3):
        a.append(v)
    foo(a)
    assert list(a) == [1, 2, 3, 10]

    @njit
    def inferred():
        lst = typed.List()
        for i in range(4):
            lst.append(i * 2)
        nested = typed.List()
        for i in range(3):
            inner = typed.List()
            for j in range(i + 1):
                inner.append(j)
            nested.append(inner)
        return lst, nested

    lst, nested = inferred()
    assert list(lst) == [0, 2, 4, 6] and [list(x) for x in nested] == [[0], [0, 1], [0, 1, 2]]
    empty = typed.List.empty_list(types.float64)
    empty.append(1.5)
    assert list(empty) == [1.5]


def test_typed_dict_as_the_reference_shows():
    d = typed.Dict.empty(key_type=types.unicode_type, value_type=types.float64[:])
    d["posx"] = np.asarray([1, 0.5, 2], dtype="f8")
    d["posy"] = np.asarray([1.5, 3.5, 2], dtype="f8")
    d["velx"] = np.asarray([0.5, 0, 0.7], dtype="f8")
    d["vely"] = np.asarray([0.2, -0.2, 0.1], dtype="f8")

    def move(d):
        d["posx"] += d["velx"]
        d["posy"] += d["vely"]

    ref = {k: v.copy() for k, v in d.items()}
    njit(move)(d)
    move(ref)
    for k in ref:
        np.testing.assert_allclose(d[k], ref[k])
    float_array = types.float64[:]

    @njit
    def made():
        out = typed.Dict.empty(key_type=types.unicode_type, value_type=float_array)
        out["posx"] = np.arange(3).astype(np.float64)
        out["posy"] = np.arange(3, 6).astype(np.float64)
        return out

    m = made()
    np.testing.assert_array_equal(m["posy"], np.arange(3, 6))

    def inferred():
        out = dict()
        k = {1: np.arange(1), 2: np.arange(2)}
        out[3] = np.arange(3)
        out[5] = np.arange(5)
        return out, k

    got, want = njit(inferred)(), inferred()
    for g, w in zip(got, want):
        assert sorted(g) == sorted(w)
        for key in w:
            np.testing.assert_array_equal(g[key], w[key])


def test_typed_set_as_the_reference_shows():
    s = typed.Set.empty(types.unicode_type)
    for word in ("One", "Two", "Three"):
        s.add(word)

    def remove_elem(s, elem):
        s.discard(elem)

    py = set(s)
    njit(remove_elem)(s, "Three")
    remove_elem(py, "Three")
    assert len(s) == 2 and s == py


# ---- structref ----

@structref.register
class PointType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Point(structref.StructRefProxy):
    def __new__(cls, name, vector):
        return structref.StructRefProxy.__new__(cls, name, vector)

    @property
    def name(self):
        return point_name(self)

    @property
    def vector(self):
        return point_vector(self)


@njit
def point_name(self):
    return self.name


@njit
def point_vector(self):
    return self.vector


structref.define_proxy(Point, PointType, ["name", "vector"])


@overload_method(PointType, "distance")
def _point_distance(self, other):
    if not isinstance(other, PointType):
        raise TypingError(f"other must be a {PointType}; got {other}")

    def impl(self, other):
        return np.linalg.norm(self.vector - other.vector)
    return impl


def test_structref_guide():
    alice = Point("Alice", vector=np.array([1.0, 2.0, 2.0]))

    @njit
    def make_bob(v):
        bob = Point("unnamed", vector=np.zeros(3))
        bob.name = "Bob"
        bob.vector = v
        return bob

    bob = make_bob(np.array([4.0, 6.0, 2.0]))
    assert (alice.name, bob.name) == ("Alice", "Bob")

    @njit
    def distance(a, b):
        return np.linalg.norm(a.vector - b.vector), a.distance(b)

    want = np.linalg.norm(alice.vector - bob.vector)
    assert distance(alice, bob) == (want, want) == (5.0, 5.0)


# ---- NumPy Generators, records ----

def test_generator_stream_continues_after_compiled_code():
    x, y = np.random.default_rng(1), np.random.default_rng(1)

    @njit
    def draw(gen):
        return gen.random(size=5)

    original = x.random(size=10)
    np.testing.assert_array_equal(np.concatenate((draw(y), y.random(size=5))), original)


FIELDS = ("a1", "a2")


def fields_by_index(rec):
    local = ("a1", "a2")
    return rec[local[0]] + rec[FIELDS[1]]


def fields_unrolled(rec):
    out = 0
    for f in literal_unroll(FIELDS):
        out += rec[f]
    return out


def test_record_fields_named_by_constants():
    arr = np.array([(1.0, 2.0), (3.5, -1.0)], dtype=[("a1", "f8"), ("a2", "f8")])
    for fn in (fields_by_index, fields_unrolled):
        for rec in arr:
            assert njit(fn)(rec) == fn(rec)


# ---- the high-level extension API ----

def seq_len(seq):
    return len(seq)


@overload(seq_len)
def _tuple_len(seq):
    if isinstance(seq, types.BaseTuple):
        n = len(seq)

        def len_impl(seq):
            return n
        return len_impl


@overload_attribute(types.Array, "nbytes_doc")
def _array_nbytes(arr):
    def get(arr):
        return arr.size * arr.itemsize
    return get


@register_jitable
def clipped(x, lo, hi):
    return min(max(x, lo), hi)


def test_high_level_extension_api():
    @njit
    def use(t, a):
        return seq_len(t), a.nbytes_doc, clipped(a.sum(), 0.0, 10.0)

    a = np.ones((3, 4), np.float32)
    assert use((1, 2.0, "x"), a) == (3, a.nbytes, 10.0)


def test_jit_module(tmp_path, monkeypatch):
    (tmp_path / "docs_jit_module_demo.py").write_text(
        "from pyjit import jit, jit_module\n"
        "import numpy as np\n"
        "def inc(x):\n    return x + 1\n"
        "def add(x, y):\n    return x + y\n"
        "mean = np.mean\n"
        "@jit(nogil=True)\n"
        "def mul(a, b):\n    return a * b\n"
        "jit_module(nopython=True, error_model='numpy')\n"
        "def div(a, b):\n    return a / b\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import docs_jit_module_demo as mod
    try:
        assert pyjit.extending.is_jitted(mod.inc) and pyjit.extending.is_jitted(mod.add)
        assert mod.mean is np.mean and not pyjit.extending.is_jitted(mod.div)
        assert (mod.inc(2), mod.add(2, 3), mod.mul(2, 4)) == (3, 5, 8)
        assert mod.inc.py_func(2) == 3
    finally:
        sys.modules.pop("docs_jit_module_demo", None)


# ---- what pyjit refuses, saying what to use instead ----

def power(x, n):
    raise NotImplementedError


@overload(power)
def _ov_power(x, n):
    if isinstance(n, types.Literal):
        if n.literal_value == 2:
            return lambda x, n: x * x
        return lambda x, n: x * x * x
    return lambda x, n: pyjit.literally(n)


def test_literally_compiles_per_value():
    # the extending docs' power(): literally(n) compiles test_power for each value of n
    @njit
    def test_power(x, n):
        return power(x, n)

    assert (test_power(3, 2), test_power(3, 3)) == (3 * 3, 3 * 3 * 3)


def test_refusals_name_the_alternative():

    @njit
    def mixed_list():
        return ["a", 10, 1j]

    @njit
    def mixed_dict():
        return {"a": 1, "b": 2j, "c": "d"}

    with pytest.raises(TypingError, match="use a tuple"):
        mixed_list()
    # a dict display of constant string keys and mixed values is Numba's LiteralStrKeyDict:
    # read by constant key, and it leaves compiled code as the dict CPython makes
    assert mixed_dict() == mixed_dict.py_func()
    with pytest.raises(ImportError, match="@jitclass or a structref"):
        from pyjit.extending import typeof_impl  # noqa: F401


# ---- the supported-Python and supported-NumPy pages ----

def test_numpy_random_is_seeded_from_compiled_code():
    @njit
    def seed(a):
        np.random.seed(a)

    @njit
    def rand():
        return np.random.rand()

    seed(1234)
    first = rand()
    seed(1234)
    assert rand() == first
    np.random.seed(1234)
    assert np.random.rand() == first     # the same stream as NumPy's for the same seed


def test_record_subtyping():
    record1 = np.array([1], dtype=[("a", "f8")])[0]
    record2 = np.array([(2, 3)], dtype=[("a", "f8"), ("b", "f8")])[0]

    @njit(types.float64(pyjit.typeof(record1)))
    def foo(rec):
        return rec["a"]

    assert (foo(record1), foo(record2)) == (1.0, 2.0) and len(foo.signatures) == 1


def test_supported_python_extras():
    import array
    import cmath

    def stats(buf):
        s = 0.0
        for x in buf:
            s += x
        return len(buf), buf[0], s

    for buf in (array.array("d", [1.5, 2.5]), array.array("i", [4, 5, 6]),
                memoryview(np.arange(3.0))):
        assert njit(stats)(buf) == stats(buf)

    def inverse(z):
        return (cmath.acos(z), cmath.asin(z), cmath.atan(z), cmath.acosh(z), cmath.asinh(z),
                cmath.atanh(z), cmath.log(z, 10))

    for z in (0.3 + 0.4j, -2.0 + 0.5j, 3.0):
        got, want = njit(inverse)(z), inverse(z)
        assert all(abs(g - w) <= 1e-15 * max(1.0, abs(w)) for g, w in zip(got, want))

    def comprehensions(n):
        return ([[i for i in range(k)] for k in range(n)],
                np.array([[x * y for x in range(n)] for y in range(n)]).sum(),
                {i: i ** 2 for i in range(n)})

    assert njit(comprehensions)(4)[0] == comprehensions(4)[0]
    assert njit(comprehensions)(4)[1:] == comprehensions(4)[1:]


# ---- the types reference ----

def test_types_reference_examples():
    import ctypes
    import math

    assert pyjit.float32[:, :, ::1] == types.Array(types.float32, 3, "C")
    assert pyjit.float32[::1, :, :] == types.Array(types.float32, 3, "F")

    @njit
    def empty_of_arrays():
        return typed.List.empty_list(types.float64[:, ::1])

    assert len(empty_of_arrays()) == 0

    @njit
    def composition(funcs, x):
        r = x
        for f in funcs[::-1]:
            r = f(r)
        return r

    a = pyjit.cfunc("double(double)")(lambda x: x + 1.0)
    b = njit(lambda x: x * x)
    assert composition((a, b), 0.5) == 0.5 ** 2 + 1
    assert composition((b, a, b, b, a), 0.5) == b(a(b(b(a(0.5)))))

    libm = ctypes.CDLL(None)

    class LibMCos(types.WrapperAddressProtocol):
        def __wrapper_address__(self):
            return ctypes.cast(libm.cos, ctypes.c_void_p).value

        def signature(self):
            return pyjit.float64(pyjit.float64)

    @njit
    def foo(f, x):
        return f(x)

    assert foo(LibMCos(), 0.0) == 1.0 and foo(LibMCos(), 0.5) == math.cos(0.5)

    @pyjit.jit((types.optional(types.intp),))
    def given(x):
        return x is not None

    assert given(0) is True and given(None) is False
    rec = pyjit.from_dtype(np.dtype([("row", np.float64), ("col", np.float64)]))
    assert rec[:, :] == types.Array(rec, 2, "A")
