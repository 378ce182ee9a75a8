"""jitclass (pyjit.experimental.jitclass, Numba's numba.experimental.jitclass): the spec forms,
fields of every kind, methods, properties, static methods and dunder methods, instances made and
used in Python and in compiled code and passed both ways, pickling, the errors, and memory.

Each class is written once as a plain Python class; jitclass(spec)(cls) makes the compiled one
and leaves the plain one as it was, so the same driver runs on both (in CPython with the plain
class, compiled with the jitclass) and the results must agree."""
import pickle
from collections import OrderedDict
from typing import List as TList

import numpy as np
import pytest

import pyjit
from pyjit import _core, errors, float32, float64, int32, int64, njit, typed, types
from pyjit.experimental import jitclass, structref
from pyjit.extending import overload_method
from util import memory_in_use

MB = 1 << 20


def both(make_driver, plain, jitted, *args):
    """The driver made for the plain class, run in CPython, and for the jitclass, compiled."""
    expected = make_driver(plain)(*args)
    got = njit(make_driver(jitted))(*args)
    return expected, got


def assert_same(expected, got):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for e, g in zip(expected, got):
            assert_same(e, g)
    elif isinstance(expected, np.ndarray):
        np.testing.assert_allclose(got, expected)
    else:
        assert got == pytest.approx(expected), (expected, got)


# ---- Numba's documentation examples ----

class Bag(object):
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


BAG_SPEC = [
    ('value', int32),               # a simple scalar field
    ('array', float32[:]),          # an array field
]
JBag = jitclass(BAG_SPEC)(Bag)


def test_bag_from_python():
    n = 21
    mybag, plain = JBag(n), Bag(n)
    assert isinstance(mybag, JBag) and not isinstance(plain, JBag)
    assert mybag.value == plain.value and mybag.size == plain.size
    np.testing.assert_array_equal(mybag.increment(3), plain.increment(3))
    np.testing.assert_array_equal(mybag.increment(1.5), plain.increment(1.5))
    np.testing.assert_array_equal(mybag.array, plain.array)
    assert JBag.add(1, 2) == Bag.add(1, 2) and mybag.add(1.5, 2) == plain.add(1.5, 2)


def test_bag_in_compiled_code():
    def driver(cls):
        def run(n):
            b = cls(n)
            b.increment(2.0)
            b.increment(0.5)
            return b.array.sum(), b.size, cls.add(b.value, 3), b.add(1, 2)
        return run
    expected, got = both(driver, Bag, JBag, 7)
    assert_same(expected, got)


def test_bag_passed_in_and_returned():
    @njit
    def grow(bag, by):
        bag.increment(by)
        return bag

    bag = JBag(4)
    same = grow(bag, 1.25)
    assert type(same) is JBag and same._meminfo == bag._meminfo   # one instance, not a copy
    np.testing.assert_array_equal(bag.array, np.full(4, 1.25, np.float32))


class Counter:
    value: int

    def __init__(self):
        self.value = 0

    def get(self) -> int:
        ret = self.value
        self.value += 1
        return ret


JCounter = jitclass(Counter)


def make_loop_iterator(counter_cls):
    class ListLoopIterator:
        counter: counter_cls
        items: TList[float]

        def __init__(self, items: TList[float]):
            self.items = items
            self.counter = counter_cls()

        def get(self) -> float:
            idx = self.counter.get() % len(self.items)
            return self.items[idx]
    return ListLoopIterator


def test_annotations_example():
    """Numba's example of fields given by annotations only: a typed list and another jitclass."""
    JIter = jitclass(make_loop_iterator(JCounter))
    assert list(JIter.class_type.struct) == ["counter", "items"]
    items = [3.14, 2.718, 0.123, -4.]
    loop_itr, plain = JIter(typed.List(items)), make_loop_iterator(Counter)(items)
    for _ in range(10):
        assert loop_itr.get() == plain.get()
    assert loop_itr.counter.value == 10


# ---- spec forms ----

class Vec:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def dot(self, other):
        return self.x * other.x + self.y * other.y


@pytest.mark.parametrize("spec", [
    [("x", float64), ("y", float64)],
    {"x": float64, "y": float64},
    OrderedDict([("x", types.float64), ("y", types.float64)]),
    [("x", "float64"), ("y", float)],
], ids=["pairs", "dict", "ordereddict", "names"])
def test_spec_forms(spec):
    V = jitclass(spec)(Vec)
    assert list(V.class_type.struct) == ["x", "y"]
    assert V.class_type.struct["x"] == float64
    v = V(3, 4)
    assert v.dot(v) == 25.0 and isinstance(v.x, float)


def test_spec_keyword_and_call_forms():
    V1 = jitclass(Vec, [("x", float64), ("y", float64)])
    V2 = jitclass(spec={"x": float64, "y": float64})(Vec)
    assert V1(1, 2).dot(V1(3, 4)) == V2(1, 2).dot(V2(3, 4)) == Vec(1, 2).dot(Vec(3, 4))


def test_annotations_merge_with_spec():
    class Mixed:
        a: int64
        b: float64

        def __init__(self):
            self.a = 2
            self.b = 0.5
            self.c = np.arange(3.0)

    M = jitclass([("c", float64[:]), ("a", int32)])(Mixed)
    assert list(M.class_type.struct) == ["c", "a", "b"]   # the spec first, its type winning
    assert M.class_type.struct["a"] == int32
    m = M()
    assert (m.a, m.b, list(m.c)) == (2, 0.5, [0.0, 1.0, 2.0])


# ---- fields of every kind ----

class Store:
    def __init__(self, n, other):
        self.count = n
        self.data = np.arange(n) * 1.5
        self.grid = np.ones((2, n))
        self.items = typed.List.empty_list(float64)
        self.table = typed.Dict.empty(types.int64, types.float64)
        self.pair = (n, 2.5)
        self.other = other
        self.on = False

    def fill(self):
        for i in range(self.count):
            self.items.append(self.data[i] + self.other.x)
            self.table[i] = self.data[i] * 2
        self.on = True
        self.pair = (self.pair[0] + 1, self.pair[1] * 2)
        return len(self.items)

    def total(self):
        s = 0.0
        for v in self.items:
            s += v
        for k in self.table:
            s += self.table[k] * k
        return s + self.grid.sum() + self.pair[0] + self.pair[1] + self.other.dot(self.other)


JVec = jitclass([("x", float64), ("y", float64)])(Vec)
STORE_SPEC = [("count", int64), ("data", float64[:]), ("grid", float64[:, :]),
              ("items", types.ListType(float64)), ("table", types.DictType(types.int64, float64)),
              ("pair", types.Tuple((int64, float64))), ("other", JVec.class_type.instance_type),
              ("on", types.boolean)]
JStore = jitclass(STORE_SPEC)(Store)


def test_fields_of_every_kind_in_compiled_code():
    def driver(store_cls, vec_cls):
        def run(n):
            s = store_cls(n, vec_cls(0.5, 2.0))
            k = s.fill()
            s.other.x = 1.0          # the inner instance, changed through the outer one
            return k, s.total(), s.on, s.pair, s.data
        return run
    expected = driver(Store, Vec)(5)
    got = njit(driver(JStore, JVec))(5)
    assert_same(expected, got)


def test_fields_from_python():
    s = JStore(3, JVec(1.0, 1.0))
    assert s.fill() == 3
    assert list(s.items) == [1.0, 2.5, 4.0] and dict(s.table) == {0: 0.0, 1: 3.0, 2: 6.0}
    assert s.pair == (4, 5.0) and s.on is True and s.grid.shape == (2, 3)
    s.data = np.array([9.0, 8.0, 7.0])   # replaced: the old array is released
    s.count = np.int32(2)                # converted to the field's type
    s.pair = (1, 2)
    assert list(s.data) == [9.0, 8.0, 7.0] and s.count == 2 and s.pair == (1, 2.0)
    s.other = JVec(3.0, 4.0)
    assert s.other.dot(s.other) == 25.0
    s.items.append(10.0)                 # the field is the list itself, shared
    assert len(s.items) == 4


@pytest.mark.parametrize("field, value", [
    ("count", "three"), ("data", [1.0, 2.0]), ("other", Vec(1, 2)), ("count", 1 + 2j),
    ("data", np.zeros((2, 2))),
])
def test_setting_a_field_to_a_wrong_type_is_a_type_error(field, value):
    s = JStore(2, JVec(0.0, 0.0))
    with pytest.raises(TypeError, match=f"cannot set Store.{field}, a field of type"):
        setattr(s, field, value)


def test_unknown_attribute_from_python():
    v = JVec(1.0, 2.0)
    with pytest.raises(AttributeError):
        v.z = 3
    with pytest.raises(AttributeError):
        v.z


def test_field_read_before_set():
    class Lazy:
        def __init__(self):
            pass

        def inner_x(self):
            return self.inner.x
    L = jitclass([("inner", JVec.class_type.instance_type), ("data", float64[:])])(Lazy)
    lazy = L()
    with pytest.raises(AttributeError, match="field 'inner' of jitclass Lazy was read before"):
        lazy.inner
    with pytest.raises(ValueError, match="field 'inner' of jitclass Lazy was read before"):
        lazy.inner_x()
    assert lazy.data.shape == (0,)       # an array field never set is empty
    lazy.inner = JVec(5.0, 0.0)
    assert lazy.inner_x() == 5.0


def test_empty_containers_take_the_field_type():
    """An empty list, dict or set made in __init__ is typed by the field it is stored in."""
    class Log:
        def __init__(self):
            self.items = typed.List()
            self.seen = {}
            self.tags = {0}

        def add(self, x):
            self.items.append(x)
            self.seen[len(self.items)] = x
            self.tags.add(len(self.items))
            return len(self.items) + len(self.seen) + len(self.tags)

    J = jitclass([("items", types.ListType(float64)), ("seen", types.DictType(int64, float64)),
                  ("tags", types.Set(int64))])(Log)
    j, p = J(), Log()
    assert (j.add(2.0), j.add(3), j.add(0.5)) == (p.add(2.0), p.add(3), p.add(0.5))
    assert list(j.items) == list(p.items) and dict(j.seen) == p.seen and j.tags == p.tags


# ---- methods, properties, static methods ----

@njit
def scaled(x, k):
    return x * k


class Account:
    def __init__(self, balance, rate=0.5):
        self.balance = balance
        self.rate = rate

    @property
    def interest(self):
        return scaled(self.balance, self.rate)

    @property
    def percent(self):
        return self.rate * 100

    @percent.setter
    def percent(self, p):
        self.rate = p / 100

    def deposit(self, amount):
        self.balance += amount
        return self.grow(1)

    def grow(self, years):
        for _ in range(years):
            self.balance += self.interest
        return self.balance

    @staticmethod
    def fee(amount, flat=1.0):
        return amount * 0.01 + flat


JAccount = jitclass({"balance": float64, "rate": float64})(Account)


def test_methods_properties_static_in_compiled_code():
    def driver(cls):
        def run(b):
            a = cls(b)
            a.percent = 10.0
            x = a.deposit(5.0)
            y = a.grow(3)
            return x, y, a.interest, a.percent, cls.fee(y), a.fee(y, 2.0), cls(1.0, 0.25).rate
        return run
    expected, got = both(driver, Account, JAccount, 100.0)
    assert_same(expected, got)


def test_methods_properties_static_from_python():
    a, p = JAccount(100.0, rate=0.1), Account(100.0, rate=0.1)
    a.percent = p.percent = 20
    assert a.deposit(3) == pytest.approx(p.deposit(3))
    assert a.interest == pytest.approx(p.interest) and a.percent == pytest.approx(p.percent)
    assert JAccount.fee(50) == Account.fee(50) and a.fee(50, flat=2) == p.fee(50, flat=2)
    with pytest.raises(AttributeError, match="has no setter"):
        a.interest = 1.0


def test_instances_in_a_typed_list():
    def driver(cls):
        def run(n):
            accounts = typed.List.empty_list(cls.class_type.instance_type)
            for i in range(n):
                accounts.append(cls(float(i)))
            total = 0.0
            for acc in accounts:
                total += acc.deposit(1.0)
            return total, accounts
        return run
    total, accounts = njit(driver(JAccount))(4)
    plain = [Account(float(i)) for i in range(4)]
    assert total == pytest.approx(sum(a.deposit(1.0) for a in plain))
    assert [a.balance for a in accounts] == pytest.approx([a.balance for a in plain])
    assert all(isinstance(a, JAccount) for a in accounts)


class Builder:
    def __init__(self, x=1.0, y=2.0):
        self.x = x
        self.y = y

    def set_x(self, v):
        self.x = v
        return self

    def fact(self, k):
        if k <= 1:
            return 1
        return k * self.fact(k - 1)

    def scale(self, k=2.0):
        return self.x * k + self.y


JBuilder = jitclass([("x", float64), ("y", float64)])(Builder)


@pytest.mark.parametrize("flag", [True, False])
def test_joins_chains_recursion_and_keywords(flag):
    """An instance chosen on two paths, methods returning self, a recursive method, defaults and
    keywords of __init__ and of methods."""
    def driver(cls):
        def run(c):
            b = cls(2.0, y=1.0)
            if c:
                q = b
            else:
                q = cls(y=0.5)
            q.set_x(7.0).set_x(8.0)
            return q.scale(), q.scale(k=3.0), q.fact(6), b.x, cls(x=4.0).scale()
        return run
    expected, got = both(driver, Builder, JBuilder, flag)
    assert_same(expected, got)
    b = JBuilder(y=5.0)
    assert (b.x, b.y, b.set_x(3.0).scale(k=1.0)) == (1.0, 5.0, 8.0)


# ---- dunder methods ----

def make_poly(decorate):
    """Poly, plain (decorate the identity) or a jitclass: its methods name the class itself,
    as a class decorated in place does."""
    class Poly:
        def __init__(self, n):
            self.c = np.zeros(n)

        def __len__(self):
            return self.c.size

        def __getitem__(self, i):
            return self.c[i]

        def __setitem__(self, i, v):
            self.c[i] = v

        def __add__(self, other):
            out = Poly(max(len(self), len(other)))
            for i in range(len(self)):
                out[i] += self[i]
            for i in range(len(other)):
                out[i] += other[i]
            return out

        def __eq__(self, other):
            if len(self) != len(other):
                return False
            for i in range(len(self)):
                if self[i] != other[i]:
                    return False
            return True

        def __lt__(self, other):
            return len(self) < len(other)

        def __call__(self, x):
            s = 0.0
            for i in range(len(self) - 1, -1, -1):
                s = s * x + self[i]
            return s
    Poly = decorate(Poly)
    return Poly


Poly = make_poly(lambda cls: cls)
JPoly = make_poly(jitclass([("c", float64[:])]))


def test_dunders_in_compiled_code():
    def driver(cls):
        def run(n):
            p, q = cls(n), cls(n + 2)
            for i in range(len(p)):
                p[i] = i + 1.0
            q[n + 1] = 2.0
            r = p + q
            r += p
            return len(r), r[0], r[n + 1], p == q, p == p, p < q, q < p, r(0.5)
        return run
    expected, got = both(driver, Poly, JPoly, 3)
    assert_same(expected, got)


def test_dunders_from_python():
    p, plain = JPoly(3), Poly(3)
    for i in range(3):
        p[i] = plain[i] = i * 2.0
    assert len(p) == 3 and p[2] == plain[2] and p == p and not (p == JPoly(2))
    assert (p + p)[2] == (plain + plain)[2] and p(2.0) == plain(2.0)


# ---- pickling, isinstance, imports ----

@jitclass
class Where:
    x: float64
    y: float64

    def __init__(self, x, y):
        self.x = x
        self.y = y


@jitclass([("name", types.unicode_type), ("weights", float64[:]), ("at", Where)])
class Pickled:
    def __init__(self, name, n):
        self.name = name
        self.weights = np.linspace(0, 1, n)
        self.at = Where(n, -1.0)


def test_pickle_round_trip():
    """An instance of a class importable by name pickles as its field values, inner instances
    included; one whose class is not (Vec's name reaches the plain class) says so."""
    p = pickle.loads(pickle.dumps(Pickled("w", 3)))
    assert type(p) is Pickled and p.name == "w" and list(p.weights) == [0.0, 0.5, 1.0]
    assert (p.at.x, p.at.y) == (3.0, -1.0)
    with pytest.raises(pickle.PicklingError):
        pickle.dumps(JVec(1.5, -2.0))


def test_isinstance_and_names():
    v = JVec(0.0, 1.0)
    assert isinstance(v, JVec) and not isinstance(v, JAccount) and not isinstance(Vec(0, 1), JVec)
    assert JVec.__name__ == "Vec" and "Vec" in repr(v)
    assert JVec.class_type.instance_type.name.startswith("instance(Vec@")
    assert pyjit.jitclass is jitclass
    from pyjit.experimental import jitclass as again
    assert again is jitclass


# ---- structref: Numba's documentation example ----

@structref.register
class MyStructType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class MyStruct(structref.StructRefProxy):
    def __new__(cls, name, vector):
        return structref.StructRefProxy.__new__(cls, name, vector)

    @property
    def name(self):
        return MyStruct_get_name(self)

    @property
    def vector(self):
        return MyStruct_get_vector(self)


@njit
def MyStruct_get_name(self):
    return self.name


@njit
def MyStruct_get_vector(self):
    return self.vector


structref.define_proxy(MyStruct, MyStructType, ["name", "vector"])


@overload_method(MyStructType, "distance")
def ol_distance(self, other):
    if not isinstance(other, MyStructType):
        raise TypeError(f"*other* must be a {MyStructType}; got {other}")

    def impl(self, other):
        d = self.vector - other.vector
        return np.sqrt(np.sum(d * d))
    return impl


def test_structref_example():
    alice = MyStruct("alice", vector=np.arange(3.0))
    assert isinstance(alice, MyStruct) and alice.name == "alice"
    np.testing.assert_array_equal(alice.vector, np.arange(3.0))

    @njit
    def make_bob():
        bob = MyStruct("unnamed", vector=np.zeros(3))
        bob.name = "Bob"
        bob.vector = np.ones(3)
        return bob

    @njit
    def distance(a, b):
        return a.distance(b)

    bob = make_bob()
    assert type(bob) is MyStruct and bob.name == "Bob" and list(bob.vector) == [1.0, 1.0, 1.0]
    assert distance(alice, bob) == pytest.approx(np.linalg.norm(alice.vector - bob.vector))
    with pytest.raises(errors.TypingError, match="other\\* must be a"):
        distance(alice, JVec(1.0, 2.0))


def test_structref_field_types_come_from_the_constructor():
    """Each combination of field types is its own instance type of the one proxy class."""
    ints, floats = MyStruct(1, 2), MyStruct(1.5, np.float32(2.5))
    assert type(ints) is type(floats) is MyStruct
    assert (MyStruct_get_name(ints), MyStruct_get_vector(ints)) == (1, 2)
    assert MyStruct_get_vector(floats) == 2.5
    ti, tf = types._from_canonical(_core.typeof(ints)), types._from_canonical(_core.typeof(floats))
    assert isinstance(ti, MyStructType) and ti != tf
    assert ti.field_dict == {"name": int64, "vector": int64}
    assert tf.field_dict == {"name": float64, "vector": float32}
    with pytest.raises(TypeError, match="StructRefProxy"):
        structref.define_proxy(Vec, MyStructType, ["x"])
    with pytest.raises(TypeError, match="subclass of types.StructRef"):
        structref.register(Vec)


# ---- errors ----

@pytest.mark.parametrize("make, match", [
    (lambda: jitclass([("x", "no_such_type")])(Vec), "field 'x': 'no_such_type' is not a type"),
    (lambda: jitclass([("x", float64), ("x", int64)])(Vec), "field 'x' given twice"),
    (lambda: jitclass(42)(Vec), "spec must be a list of"),
    (lambda: jitclass([("x", None)])(Vec), "cannot be of type none"),
], ids=["unknown-type", "twice", "bad-spec", "none"])
def test_bad_specs(make, match):
    with pytest.raises(TypeError, match=match):
        make()


def test_unsupported_class_members():
    class WithClassmethod:
        @classmethod
        def make(cls):
            return cls()

    class WithConstant:
        LIMIT = 3

    class Child(Vec):
        pass

    with pytest.raises(TypeError, match="classmethod 'make' is not supported"):
        jitclass([])(WithClassmethod)
    with pytest.raises(TypeError, match="class attribute 'LIMIT' = 3 is not supported"):
        jitclass([])(WithConstant)
    with pytest.raises(TypeError, match="inheritance is not supported"):
        jitclass([("x", float64), ("y", float64)])(Child)


def test_compile_errors_name_the_field():
    @njit
    def unknown_field(v):
        return v.z

    @njit
    def set_unknown(v):
        v.z = 1.0

    @njit
    def wrong_type(v):
        v.x = "text"

    @njit
    def not_a_class_attribute(a):
        a.x = 1

    v = JVec(1.0, 2.0)
    with pytest.raises(errors.TypingError, match="jitclass Vec has no attribute 'z'"):
        unknown_field(v)
    with pytest.raises(errors.TypingError, match="jitclass Vec has no field 'z'"):
        set_unknown(v)
    with pytest.raises(errors.TypingError, match="cannot set Vec.x, a field of type float64, to"):
        wrong_type(v)
    with pytest.raises(errors.UnsupportedError, match="setting an attribute of"):
        not_a_class_attribute(np.zeros(2))


def test_missing_dunder_is_a_typing_error():
    @njit
    def length(v):
        return len(v)

    with pytest.raises(errors.TypingError, match="jitclass Vec has no method __len__"):
        length(JVec(1.0, 2.0))


def test_wrong_instance_argument():
    @njit
    def dot(a, b):
        return a.dot(b)

    with pytest.raises(errors.TypingError):
        dot(JVec(1.0, 0.0), JAccount(1.0))


# ---- memory ----

def test_references_balance():
    """Every MemInfo made (instances, their arrays, lists, dicts, inner instances) is freed."""
    def driver(store_cls, vec_cls):
        def run(n):
            total = 0.0
            for i in range(n):
                s = store_cls(4, vec_cls(i, 1.0))
                s.fill()
                s.other = vec_cls(1.0, i)
                s.data = s.data * 2
                total += s.total()
            return total
        return run
    run = njit(driver(JStore, JVec))
    run(2)
    before = _core.nrt_live()
    run(50)
    s = JStore(3, JVec(1.0, 1.0))
    s.fill()
    s.other = JVec(2.0, 2.0)
    for k in range(20):
        s.data = np.arange(3.0) * k   # a NumPy array, adopted by the field, then let go
    del s
    assert _core.nrt_live() == before


def test_made_and_dropped_a_million_times_keeps_memory_flat():
    @njit
    def churn(n):
        s = 0.0
        for i in range(n):
            v = JVec(i, 1.0)
            a = JAccount(v.x)
            s += a.deposit(v.y)
        return s

    @njit
    def make(x):
        return JStore(2, JVec(x, x))

    churn(10)
    for _ in range(20000):
        make(1.0)
    before = memory_in_use()
    churn(1_000_000)
    for _ in range(200_000):
        make(1.0)
    assert memory_in_use() - before < 8 * MB


def test_cache_true_compiles_without_caching(monkeypatch):
    """cache=True on a function taking or using a jitclass: compiled and run, not cached (the
    instance type's name is this process's), with a warning that says why."""
    monkeypatch.setenv("PYJIT_CACHE", "1")
    def uses(n):
        return JVec(n, 1.0).dot(JVec(1.0, n))

    def takes(v):
        return v.x

    for f, arg in ((uses, 2.0), (takes, JVec(3.0, 0.0))):
        with pytest.warns(errors.PerformanceWarning, match="jitclass"):
            assert njit(cache=True)(f)(arg) == f(arg)   # in CPython, JVec's methods run compiled


# ---- Numba's jitclass documentation: typed containers as members, annotations ----

KV_TY = (types.int64, types.unicode_type)


def test_typed_container_members_as_numbas_docs_write_them():
    @jitclass([("d", types.DictType(*KV_TY)), ("l", types.ListType(types.float64))])
    class ContainerHolder:
        def __init__(self):
            self.d = typed.Dict.empty(*KV_TY)       # a constant tuple spread into the call
            self.l = typed.List.empty_list(types.float64)

    c = ContainerHolder()
    c.d[1] = "apple"
    c.d[2] = "orange"
    c.l.append(123.0)
    c.l.append(456.0)
    assert dict(c.d) == {1: "apple", 2: "orange"} and list(c.l) == [123.0, 456.0]

    d, lst = typed.Dict(), typed.List()
    d[1], d[2] = "apple", "orange"
    lst.append(123.0)

    @jitclass([("d", pyjit.typeof(d)), ("l", pyjit.typeof(lst))])
    class ContainerInstHolder:
        def __init__(self, dict_inst, list_inst):
            self.d = dict_inst
            self.l = list_inst

    held = ContainerInstHolder(d, lst)
    assert dict(held.d) == dict(d) and list(held.l) == list(lst)


def test_annotations_of_nested_typing_generics():
    import typing
    pair = types.UniTuple(types.float64, 2)

    @jitclass([("w", int32), ("y", float64[:])])
    class Foo:
        w: int
        x: float
        y: np.ndarray
        z: typing.Dict[int, typing.Tuple[float, float]]

        def __init__(self, w, x, y):
            self.w, self.x, self.y = w, x, y
            self.z = typed.Dict.empty(types.int64, pair)
            self.z[w] = (x, x * 2)

    f = Foo(3, 2.5, np.ones(3))
    assert (f.w, f.x, f.y.sum(), dict(f.z)) == (3, 2.5, 3.0, {3: (2.5, 5.0)})
    spec = dict(Foo.class_type.struct)
    assert spec["w"] == int32 and spec["x"] == float64


# ---- optional fields, deferred types (linked structures) ----

def test_optional_field_of_another_class():
    from pyjit import optional

    @jitclass([("data", int64)])
    class Leaf:
        def __init__(self, data):
            self.data = data

    @jitclass([("data", int64), ("next", optional(Leaf.class_type.instance_type))])
    class Link:
        def __init__(self, data, next):
            self.data = data
            self.next = next

    @pyjit.njit
    def use():
        a = Link(1, Leaf(5))
        b = Link(2, None)
        s = 0
        cur = a.next
        if cur is not None:
            s += cur.data
        if b.next is None:
            s += 100
        b.next = Leaf(7)
        s += b.next.data
        c = Link(3, b.next)        # an optional passed to a constructor as it is
        d = Link(4, a.next if s > 0 else None)
        return s, c.next.data, d.next.data
    assert use() == (112, 7, 5)
    link = Link(3, None)
    assert link.next is None
    link.next = Leaf(9)
    assert link.next.data == 9


def test_optional_arguments_reach_methods_and_fields():
    @jitclass([("v", float64)])
    class Acc:
        def __init__(self, v):
            self.v = v

        def add(self, x):
            self.v += x
            return self.v

    @pyjit.njit
    def run(flag):
        y = None if flag else 2.0
        acc = Acc(1.0)
        acc.add(y)                 # None reaches the method; its use raises TypeError
        return Acc(y).v
    assert run(False) == 2.0
    with pytest.raises(TypeError, match="expected float64, got None"):
        run(True)


def test_deferred_type_links_a_class_to_itself():
    node_type = pyjit.deferred_type()

    @jitclass([("data", int64), ("next", pyjit.optional(node_type))])
    class Node:
        def __init__(self, data, next):
            self.data = data
            self.next = next

        def prepend(self, data):
            return Node(data, self)

    with pytest.raises(TypeError, match="deferred_type of field.s. next is not defined yet"):
        Node(1, None)
    node_type.define(Node.class_type.instance_type)

    @pyjit.njit
    def build_and_sum(n):
        head = Node(0, None)
        for i in range(1, n):
            head = head.prepend(i)
        total = 0
        while head is not None:
            total += head.data
            head = head.next
        return total
    assert build_and_sum(10) == 45
    assert build_and_sum(300_000) == 300_000 * 299_999 // 2   # released without deep recursion
    node = Node(1, Node(2, None))
    assert node.next.data == 2 and node.next.next is None
    with pytest.raises(TypeError, match="cannot set Node.next"):
        node.next = 3
    with pytest.raises(TypeError, match="already defined"):
        node_type.define(int64)
