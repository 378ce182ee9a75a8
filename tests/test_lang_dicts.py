"""Dicts in compiled code: literals, {} and dict() typed by later use, comprehensions, d[k],
d[k] = v, del, in, get, pop, popitem, setdefault, update, copy, clear, ==, len, truth, iteration
over keys, values and items; keys of ints, floats (-0.0, NaN), bools and tuples; values of
numbers, tuples, arrays, lists and dicts; hash() as CPython's; pyjit.typed.Dict across the
boundary. Each function runs in CPython and compiled on the same arguments: results (items in
insertion order) and exceptions must agree."""
import math

import numpy as np
import pytest

import pyjit
from pyjit import errors, types
from pyjit.typed import Dict
from util import assert_same, memory_in_use


def plain(x):
    """A value with every dict as a list of its items in insertion order, every set sorted."""
    if isinstance(x, (dict, Dict)):
        return [("item", plain(k), plain(v)) for k, v in x.items()]
    if isinstance(x, type({}.keys())) or isinstance(x, type({}.values())) or \
            isinstance(x, type({}.items())):
        return plain(list(x))
    if isinstance(x, (set, frozenset)):
        return sorted((plain(v) for v in x), key=repr)
    if isinstance(x, (list, tuple)):
        return type(x)(plain(v) for v in x)
    return x


def check(f, *args):
    """f in CPython and compiled: the same result, or the same exception class and text."""
    try:
        expected, exc = f(*args), None
    except Exception as e:  # noqa: BLE001 - the exception is the behaviour compared
        expected, exc = None, e
    if exc is not None:
        with pytest.raises(type(exc)) as info:
            pyjit.njit(f)(*args)
        assert str(info.value) == str(exc), f"{f.__name__}: {info.value!r} != {exc!r}"
        return
    got = pyjit.njit(f)(*args)
    assert_same(plain(expected), plain(got), where=f.__name__)


# ---- building, reading, order ----------------------------------------------------------------

def count(xs):
    d = {}
    for x in xs:
        d[x] = d.get(x, 0) + 1
    return d


def literal_then_store(x):
    d = {1: 2.5, 3: 4.0}
    d[5] = x
    d[1] = -x
    return d, d[3], len(d)


def const_key_literal(x):
    return {10: x, 20: x * 2, 30: x * 3}


def comprehension(n):
    return {i: i * i for i in range(n) if i % 3 != 1}


def deletes_then_reinserts(n):
    d = {}
    for i in range(n):
        d[i] = i
    for i in range(0, n, 2):
        del d[i]
    for i in range(0, n, 4):
        d[i] = -i
    return d


def growth(n):
    d = {}
    for i in range(n):
        d[i * 7919 % 100003] = i
    for i in range(0, n, 3):
        d.pop(i * 7919 % 100003)
    s = 0
    for k in d:
        s += k ^ d[k]
    return len(d), s, d[7919]


def methods(n):
    d = {}
    for i in range(n):
        d[i] = float(i)
    a = d.get(1, -1.0) + d.get(100, -1.0)
    b = d.pop(2) + d.pop(200, 0.5)
    c = d.setdefault(3, 9.0) + d.setdefault(300, 9.0)
    k, v = d.popitem()
    e = d.copy()
    e[1000] = 1.0
    f = dict(d)
    same = f == d and d != e and not (d == e)
    has = (1 in d, 2 in d, 2 not in d, 300 in d)
    out = (a, b, c, k, v, same, has, len(d), bool(d))
    d.clear()
    return out, len(d), bool(d), e


def views(n):
    d = {}
    for i in range(n, 0, -1):
        d[i] = i / 4
    total = 0.0
    for k, v in d.items():
        total += k * v
    return d.keys(), d.values(), d.items(), list(d), sorted(d), total, len(d.items())


def update_from_dict(n):
    d = {}
    for i in range(n):
        d[i] = i
    e = {}
    for i in range(n // 2, n + 3):
        e[i] = -i
    d.update(e)
    return d


@pytest.mark.parametrize("f, args", [
    (count, ([3, 1, 3, 2, 1, 3],)),
    (count, ([0.5, -0.0, 0.0, 1.0, 0.5],)),
    (count, ([True, False, True],)),
    (count, ([(1, 2), (2, 1), (1, 2)],)),
    (count, ([(1.5, 2), (1.5, 2), (0.0, -1)],)),
    (literal_then_store, (1.5,)),
    (const_key_literal, (2,)),
    (comprehension, (10,)),
    (deletes_then_reinserts, (40,)),
    (growth, (100000,)),
    (methods, (10,)),
    (views, (6,)),
    (update_from_dict, (6,)),
])
def test_dicts_agree_with_cpython(f, args):
    check(f, *args)


def ints_and_floats_are_one_key(x):
    d = {}
    d[1.0] = 10
    d[2.5] = 20
    return d[1], 1 in d, 2 in d, d.get(2, -1), x in d


def nan_keys(x):
    d = {}
    d[x - x] = 1          # each NaN is a new float in CPython too: no key equals it
    d[x - x] = 2
    d[0.0] = 3
    d[-0.0] = 4           # -0.0 == 0.0: the same key
    return len(d), (x - x) in d, d[0.0]


def nan_popped(x):
    d = {}
    for i in range(1000):   # many times the table's size: popping leaves no slot behind
        d[x - x] = i
        d[float(i)] = i
        d.popitem()
        d.popitem()
    return len(d)


def test_numbers_that_compare_equal_are_one_key():
    check(ints_and_floats_are_one_key, 1)
    check(ints_and_floats_are_one_key, 3)
    check(nan_keys, math.inf)
    check(nan_popped, math.inf)
    d = Dict.empty(key_type=types.float64, value_type=types.int64)
    for _ in range(1000):
        d[math.nan] = 1
        assert math.isnan(d.popitem()[0]) and len(d) == 0


# ---- values of every kind --------------------------------------------------------------------

def array_values(n):
    d = {}
    for i in range(n):
        d[i] = np.arange(i, dtype=np.float64)
    d[0] = np.ones(3)
    return d, d[2].sum()


def list_values(n):
    groups = {}
    for i in range(n):
        k = i % 3
        if k not in groups:
            groups[k] = [i]
        else:
            groups[k].append(i)
    return groups


def tuple_values(n):
    d = {}
    for i in range(n):
        d[(i, i + 1)] = (i * 0.5, i)
    return d, d[(1, 2)]


def dict_values(n):
    outer = {}
    for i in range(n):
        inner = {}
        inner[i] = i * 2.0
        outer[i] = inner
    return outer[n - 1][n - 1], len(outer)


@pytest.mark.parametrize("f", [array_values, list_values, tuple_values, dict_values])
def test_values_hold_containers(f):
    check(f, 5)


# ---- errors as CPython's --------------------------------------------------------------------

def missing_int(k):
    return {1: 2}[k]


def missing_float(k):
    return {1.5: 2}[k]


def missing_on_del(k):
    d = {1: 2}
    del d[k]
    return len(d)


def missing_on_pop(k):
    d = {1: 2}
    return d.pop(k)


def popitem_empty(n):
    d = {1: 2}
    d.popitem()
    return d.popitem()


def changed_while_iterating(n):
    d = {}
    for i in range(n):
        d[i] = i
    for k in d:
        d[k + n] = k
    return len(d)


def deleted_while_iterating(n):
    d = {}
    for i in range(n):
        d[i] = i
    for k in d:
        del d[k]
    return len(d)


@pytest.mark.parametrize("f, arg", [
    (missing_int, 5), (missing_int, -7), (missing_float, 2.5), (missing_float, -0.25),
    (missing_on_del, 3), (missing_on_pop, 4), (popitem_empty, 0),
    (changed_while_iterating, 4), (deleted_while_iterating, 4),
])
def test_errors_match_cpython_class_and_text(f, arg):
    check(f, arg)


def never_typed():
    d = {}
    return len(d)


def unhashable(a):
    d = {}
    d[a] = 1
    return len(d)


def get_without_default(k):
    d = {1: 2.0, 3: 4.0}
    v = d.get(k)
    w = d.get(k + 1)
    return (-1.0 if v is None else v) + (0.5 if w is None else w)


def get_returned(k):
    d = {1: 2.0}
    return d.get(k)


def test_get_without_default_is_an_optional_value():
    for k in (0, 1, 2, 3):
        assert pyjit.njit(get_without_default)(k) == get_without_default(k)
        assert pyjit.njit(get_returned)(k) == get_returned(k)


def test_refusals_are_compile_errors_naming_the_line():
    with pytest.raises(errors.TypingError, match=r"(?s)dict are unknown.*line \d+"):
        pyjit.njit(never_typed)()
    with pytest.raises(errors.UnsupportedError, match="cannot be a dict key"):
        pyjit.njit(unhashable)(np.zeros(2))


def test_a_python_dict_argument_is_a_type_error_naming_typed_dict():
    with pytest.raises(TypeError, match="pyjit.typed.Dict"):
        pyjit.njit(lambda d: len(d))({1: 2})


def test_dicts_are_refused_in_gpu_kernels():
    from pyjit import _core, _registry
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")

    def kernel(a):
        d = {1: 2.0}
        a[0] = d[1]
    _registry.populate()
    with pytest.raises(errors.CompileError, match="dicts are not supported in GPU kernels"):
        _core.cuda_compile_ptx(kernel, _registry.REGISTRY, ["array(float64, 1d, C)"])


# ---- hash() is CPython's ------------------------------------------------------------------------

def hash_of(x):
    return hash(x)


@pytest.mark.parametrize("x", [
    0, 1, -1, -2, 2**61 - 2, 2**61 - 1, 2**61, 2**63 - 1, -2**63, 123456789012345,
    0.0, -0.0, 0.5, -1.0, 1e300, -1e-300, 2.0**70, math.inf, -math.inf, 3.141592653589793,
    True, False, (1, 2), (-1, 0.5), ((1, 2), (3.5, -1)), (True,),
])
def test_hash_matches_cpython(x):
    assert pyjit.njit(hash_of)(x) == hash(x)


# ---- pyjit.typed.Dict ---------------------------------------------------------------------------

def test_typed_dict_is_a_mapping_like_dict():
    d = Dict.empty(key_type=types.int64, value_type=types.float64)
    ref = {}
    for k, v in [(3, 1.5), (1, 2.0), (2, -1.0), (3, 4.0)]:
        d[k] = v
        ref[k] = v
    del d[1]
    del ref[1]
    assert d == ref and ref == d and repr(d) == repr(ref) and len(d) == len(ref)
    assert list(d) == list(ref) and d.keys() == list(ref.keys())
    assert d.values() == list(ref.values()) and d.items() == list(ref.items())
    assert (3 in d, 7 in d) == (3 in ref, 7 in ref)
    assert d.get(3) == ref.get(3) and d.get(9, 0.5) == ref.get(9, 0.5) and d.get(9) is None
    assert d.setdefault(8, 1.0) == ref.setdefault(8, 1.0)
    assert d.pop(8) == ref.pop(8) and d.pop(8, -2.0) == ref.pop(8, -2.0)
    d.update({5: 5.0})
    ref.update({5: 5.0})
    assert d.popitem() == ref.popitem() and d == ref
    c = d.copy()
    c[100] = 1.0
    assert d == ref and c != d
    with pytest.raises(KeyError):
        d[12345]
    d.clear()
    assert len(d) == 0 and d == {}


def fill(d, n):
    for i in range(n):
        d[i] = i * 0.5
    return len(d)


def make(n):
    d = {}
    for i in range(n):
        d[i] = np.full(2, i, dtype=np.float64)
    return d


def test_typed_dict_is_shared_with_compiled_code():
    d = Dict.empty(key_type=types.int64, value_type=types.float64)
    d[100] = 1.0
    assert pyjit.njit(fill)(d, 3) == 4
    assert d == {100: 1.0, 0: 0.0, 1: 0.5, 2: 1.0}
    got = pyjit.njit(make)(3)
    assert isinstance(got, Dict) and list(got) == [0, 1, 2]
    assert np.array_equal(got[2], [2.0, 2.0])


def test_numba_documented_example_with_int_keys():
    """numba.typed.Dict's documented example (the float array values), with int keys."""
    float_array = types.float64[:]
    d = Dict.empty(key_type=types.int64, value_type=float_array)
    d[1] = np.asarray([1, 0.5, 2], dtype="f8")
    d[2] = np.asarray([1, 2, 3], dtype="f8")

    @pyjit.njit
    def foo(d):
        d[3] = np.asarray([4, 5, 6], dtype=np.float64)
        return d[1].sum() + d[2].sum()

    assert foo(d) == 9.5
    assert list(d) == [1, 2, 3] and np.array_equal(d[3], [4.0, 5.0, 6.0])

    @pyjit.njit
    def create():
        out = {}
        for i in range(3):
            out[i] = np.arange(i, dtype=np.float64)
        return out

    made = create()
    assert [list(v) for v in made.values()] == [[], [0.0], [0.0, 1.0]]


def test_typed_dict_empty_in_compiled_code():
    """Numba's "create and use a dict from within njit", with number types."""
    @pyjit.njit
    def make(n):
        d = Dict.empty(key_type=types.int64, value_type=types.float64)
        for i in range(n):
            d[i] = i / 2   # stored as the Dict's types, which later stores do not change
        d[1] = 7
        return d

    got = make(3)
    assert isinstance(got, Dict) and got == {0: 0.0, 1: 7.0, 2: 1.0}
    with pytest.raises(errors.UnsupportedError, match="not complex128 and int64"):
        pyjit.njit(lambda: len(Dict.empty(key_type=types.complex128, value_type=types.int64)))()


_PAIR = types.UniTuple(types.int64, 2)
_FLOATS = types.float64[:]


def test_typed_dict_empty_of_strings_tuples_and_arrays():
    """Numba's documented dicts of str keys, of tuple keys with array values, of str values."""
    def make(s):
        counts = Dict.empty(types.unicode_type, types.int64)
        for i, c in enumerate(s):
            counts[c] = counts.get(c, 0) + i
        arrays = Dict.empty(key_type=_PAIR, value_type=_FLOATS)
        arrays[(1, 2)] = np.arange(3.0)
        names = Dict.empty(types.int64, types.unicode_type)
        names[3] = s[:2]
        return counts, arrays[(1, 2)].sum(), names[3], "z" in counts

    counts, total, name, has_z = pyjit.njit(make)("banana")
    assert dict(counts) == {"b": 0, "a": 9, "n": 6} and total == 3.0
    assert name == "ba" and not has_z


PAIR = types.UniTuple(types.int64, 2)
VECTOR = types.float64[:]


def test_typed_dict_empty_as_word_counters_write_it():
    """Dict.empty(key_type=types.unicode_type, ...) as word counters write it, and tuple keys and
    array values named by module-level type objects."""
    @pyjit.njit
    def words(text):
        d = Dict.empty(key_type=types.unicode_type, value_type=types.int64)
        for w in text.split():
            d[w] = d.get(w, 0) + 1
        return d

    @pyjit.njit
    def rows(n):
        d = Dict.empty(key_type=PAIR, value_type=VECTOR)
        for i in range(n):
            d[(i, -i)] = np.arange(float(i))
        return d

    got = words("to be or not to be")
    assert isinstance(got, Dict) and dict(got) == {"to": 2, "be": 2, "or": 1, "not": 1}
    r = rows(3)
    assert list(r.keys()) == [(0, 0), (1, -1), (2, -2)]
    assert all(np.array_equal(r[(i, -i)], np.arange(float(i))) for i in range(3))


def test_typed_dict_empty_takes_types_from_the_first_item():
    d = Dict()
    d[(1, 2)] = 3
    assert d == {(1, 2): 3} and pyjit.njit(lambda d: d[(1, 2)])(d) == 3
    with pytest.raises(TypeError, match="Dict of"):
        d["a"] = 1
    with pytest.raises(TypeError, match="Dict.empty"):
        pyjit.njit(lambda d: len(d))(Dict())


# ---- memory -------------------------------------------------------------------------------------

def build_and_return(n):
    d = {}
    for i in range(n):
        d[i] = float(i)
    del d[0]
    return d


def build_arrays(n):
    d = {}
    for i in range(n):
        d[i] = np.zeros(4)
    d[0] = np.ones(2)
    e = d.copy()
    return len(e)


def test_building_dicts_keeps_memory_flat():
    f, g = pyjit.njit(build_and_return), pyjit.njit(build_arrays)
    for _ in range(2000):
        f(20), g(5)
    before = memory_in_use()
    for _ in range(100_000):
        f(20), g(5)
    grown = memory_in_use() - before
    assert grown < 8 << 20, f"memory grew {grown / (1 << 20):.1f} MB over 10^5 calls building dicts"


# ---- strings as keys and set items ----------------------------------------------------------

def word_counts(text):
    counts = {}
    for w in text.split():
        counts[w] = counts.get(w, 0) + 1
    return counts


def string_keys_everywhere(text):
    d = {"alpha": 1, "é": 2}
    for i, w in enumerate(text.split()):
        d[w + str(i % 3)] = i
    del d["alpha"]
    seen = set()
    for k in d:
        seen.add(k[:1])
    popped = d.pop("é", -1)
    last = d.popitem() if d else ("", 0)
    return d, sorted(seen), popped, last, "é" in d, len(d), hash("中文") == hash("中" + "文")


@pytest.mark.parametrize("text", ["", "a b a c b a", "é é 中 😀 a 中", "the cat the hat the end"])
def test_strings_as_keys_agree_with_cpython(text):
    check(word_counts, text)
    check(string_keys_everywhere, text)


def test_typed_dict_of_string_keys_from_python_and_compiled_code():
    d = Dict.empty(key_type=types.unicode_type, value_type=types.float64)
    d["x"] = 1.5
    d["中"] = 2.0

    @pyjit.njit
    def grow(d, suffix):
        for k in list(d.keys()):
            d[k + suffix] = d[k] * 2
        return len(d)

    assert grow(d, "!") == 4
    assert dict(d) == {"x": 1.5, "中": 2.0, "x!": 3.0, "中!": 4.0}
    assert "x!" in d and d["中!"] == 4.0
    del d["x"]
    assert list(d.keys()) == ["中", "x!", "中!"]


def test_string_keys_keep_memory_flat():
    f = pyjit.njit(word_counts)
    text = "alpha beta gamma alpha " * 20
    f(text)
    before = memory_in_use()
    for _ in range(20000):
        f(text)
    assert memory_in_use() - before < 4 * 2**20


def test_get_with_a_default_that_holds_a_reference():
    """d.get(k, default) of array values (the default's reference taken on the miss path), and
    popitem of tuple keys holding strings."""
    def get_arrays(ks):
        d = {1: np.ones(2)}
        out = []
        for k in ks:
            out.append(d.get(k, np.zeros(3)))
        return out

    def popitem_tuple_keys():
        d = {(1, "a"): np.ones(2), (2, "b"): np.zeros(1)}
        k, v = d.popitem()
        return k, v, d.get((1, "a"), np.arange(2.0)), len(d)

    got = pyjit.njit(get_arrays)([1, 2, 1])
    want = get_arrays([1, 2, 1])
    assert len(got) == 3 and all(np.array_equal(g, w) for g, w in zip(got, want))
    k, v, x, n = pyjit.njit(popitem_tuple_keys)()
    assert (k, n) == ((2, "b"), 1) and np.array_equal(v, [0.0]) and np.array_equal(x, [1.0, 1.0])


def test_values_that_hold_references_are_set_from_python():
    """A codon table filled in Python (str values), records of (str, float), typed lists and
    dicts as values: each stored value owns its reference, as in Numba, and compiled code reads
    and adds to the same table."""
    codons = Dict.empty(types.unicode_type, types.unicode_type)
    for k, v in {"ATG": "M", "GCC": "A", "TTT": "F", "TAA": "*"}.items():
        codons[k] = v
    codons["ATG"] = "Met"   # replacing releases the old value

    def translate(seq, table):
        prot = ""
        for i in range(0, len(seq) - 2, 3):
            prot += table.get(seq[i:i + 3], "X")
        table["CCC"] = "P"
        return prot

    seq = "ATGGCCTTTGGGTAA"
    expect = translate(seq, dict(codons))
    assert pyjit.njit(translate)(seq, codons) == expect
    assert dict(codons) == {"ATG": "Met", "GCC": "A", "TTT": "F", "TAA": "*", "CCC": "P"}

    records = Dict.empty(types.int64, types.Tuple((types.unicode_type, types.float64)))
    records[1] = ("alpha", 2.0)
    records[2] = ("beta", 3.5)
    assert dict(records) == {1: ("alpha", 2.0), 2: ("beta", 3.5)}

    from pyjit.typed import List
    groups = Dict.empty(types.unicode_type, types.ListType(types.int64))
    members = List()
    members.append(1)
    groups["a"] = members
    members.append(2)       # the table holds the list itself, not a copy
    nested = Dict.empty(types.unicode_type, types.DictType(types.int64, types.float64))
    inner = Dict.empty(types.int64, types.float64)
    inner[3] = 1.5
    nested["x"] = inner

    @pyjit.njit
    def total(groups, nested):
        s = 0.0
        for v in groups.values():
            for e in v:
                s += e
        return s + nested["x"][3]
    assert total(groups, nested) == 4.5
    with pytest.raises(TypeError, match="a value of type list for a Dict of"):
        groups["b"] = [1, 2]
    import copy
    copied = copy.copy(codons)     # as Numba's Dict: a new table of the same items
    copied["GGG"] = "G"
    assert "GGG" not in codons and copied["ATG"] == "Met"


def test_string_values_set_from_python_keep_memory_flat():
    table = Dict.empty(types.unicode_type, types.unicode_type)
    for i in range(2000):
        table[f"k{i % 50}"] = "v" * (i % 9)
    before = memory_in_use()
    for i in range(200000):
        table[f"k{i % 50}"] = "v" * (i % 9)
    assert len(table) == 50
    assert memory_in_use() - before < 4 * 2**20


def test_typed_dict_of_string_values_set_from_python():
    # Numba's jitclass docs fill a DictType(int64, unicode_type) member from Python
    d = Dict.empty(types.int64, types.unicode_type)
    ref = {}
    for i in range(50):
        d[i % 7] = ref[i % 7] = "v" * (i % 5) + str(i)
    assert dict(d) == ref

    def lengths(d):
        total = 0
        for v in d.values():
            total += len(v)
        d[100] = "added"
        return total

    want = lengths(dict(ref))
    assert pyjit.njit(lengths)(d) == want and d[100] == "added"
    with pytest.raises(TypeError, match="a value of type int for a Dict of str values"):
        d[1] = 5
    before = memory_in_use()
    for i in range(40000):
        d[i % 3] = "x" * 64 + str(i)     # each overwrite releases the string it replaces
    assert memory_in_use() - before < 2_000_000


def test_numba_type_attribute_of_typed_containers():
    # Numba's jitclass docs read a container's type off _numba_type_ for a spec
    d, lst, s = Dict(), pyjit.typed.List(), pyjit.typed.Set()
    assert d._numba_type_ is None and lst._numba_type_ is None and s._numba_type_ is None
    d[1] = "apple"
    lst.append(1.5)
    s.add("x")
    for c in (d, lst, s):
        assert c._numba_type_ == pyjit.typeof(c)
    assert pyjit.typed.Set.empty(types.int64)._numba_type_ == types.Set(types.int64)


def lookups_of_other_int_widths(d, n):
    out = np.zeros(n, np.int64)
    for i in range(n):
        if i in d:
            out[i] = d[i] * 2
    return out


def test_int_keys_of_another_width_look_up_their_value():
    # a Dict of int32 keys asked with a range's int64 (umap's aligned embedding), in compiled
    # code and in Python: the same key as the int32 of that value, as in Numba
    d = pyjit.typed.Dict.empty(pyjit.types.int32, pyjit.types.int32)
    for k, v in ((1, 10), (3, 30)):
        d[np.int32(k)] = np.int32(v)
    d[4] = 40                                  # a Python int that fits is stored as an int32
    check(lookups_of_other_int_widths, d, 6)
    assert 1 in d and np.int64(3) in d and np.uint8(4) in d
    assert 2**40 not in d and -1 not in d and 2 not in d
    with pytest.raises(TypeError, match="int32 keys"):
        d[2**40] = 1
