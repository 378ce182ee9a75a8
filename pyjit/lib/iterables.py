"""any() and all() of what compiled code iterates over (lists, homogeneous tuples, 1-d arrays,
ranges, and so generator expressions, which are compiled as lists), written in the compiled
subset: the loop stops at the first item that decides, as CPython's does. min() and max() of a
list of tuples, of two tuples, and with key=. map(), filter() and functools.reduce(); the
tuple methods index() and count()."""
import functools

from .. import types
from ..extending import overload, overload_method


def _iterable(x):
    if isinstance(x, types.Array):
        return x.ndim == 1
    return isinstance(x, (types.List, types.UniTuple, types.Set)) or str(x) == "range"


@overload(any)
def _any(iterable):
    if not _iterable(iterable):
        return None

    def impl(iterable):
        for x in iterable:
            if x:
                return True
        return False
    return impl


@overload(all)
def _all(iterable):
    if not _iterable(iterable):
        return None

    def impl(iterable):
        for x in iterable:
            if not x:
                return False
        return True
    return impl


_VALUES = (types.Number, types.Boolean, types.Array, types.List, types.Tuple, types.UniTuple)


def _keyed_iterable(t):
    """An iterable that min()/max() with key= take as the list of its items: a range, a 1-d
    array, a set, a dict (its keys), a string."""
    return t.name == "range" or (isinstance(t, types.Array) and t.ndim == 1) or \
        isinstance(t, (types.Set, types.Dict, types.UnicodeType, types.StringLiteral))


def _extreme(name, smaller):
    """min() and max() of one list or homogeneous tuple whose items the builtin does not
    compare (tuples: lexicographically), or with key= (also over a range, a 1-d array, a set, a
    dict or a string, taken as the list of their items; those without key= too): the first
    extreme item, as CPython's; ValueError when empty. Numbers of a list or tuple, and arrays,
    without key= are left to the builtin."""
    message = f"{name}() iterable argument is empty"
    listed = []

    def pick(keyed):
        def impl(iterable, key=None):
            if len(iterable) == 0:
                raise ValueError(message)
            best = iterable[0]
            kb = key(best) if keyed else best
            for i in range(1, len(iterable)):
                x = iterable[i]
                kx = key(x) if keyed else x
                if (kx < kb) if smaller else (kx > kb):
                    best = x
                    kb = kx
            return best
        return impl

    def over_items(keyed):
        """The picker of a list, called on the list of the iterable's items: compiled once
        for every caller, with key= and without."""
        if not listed:
            from ..decorators import njit
            listed.extend([njit(pick(False)), njit(pick(True))])
        over_list = listed[keyed]

        def impl(iterable, key=None):
            return over_list(list(iterable), key)
        return impl

    def typing(iterable, key=None):
        dated = (types.NPDatetime, types.NPTimedelta)
        if isinstance(iterable, dated) and key == iterable:   # min(d1, d2): NaT compares False
            if smaller:
                return lambda iterable, key=None: key if key < iterable else iterable
            return lambda iterable, key=None: key if key > iterable else iterable
        tuples = (types.Tuple, types.UniTuple)
        texts = (types.UnicodeType, types.StringLiteral)
        if (isinstance(iterable, tuples) and isinstance(key, tuples)) or \
                (isinstance(iterable, texts) and isinstance(key, texts)):   # min(t1, t2), min(s1, s2)
            if smaller:
                return lambda iterable, key=None: key if key < iterable else iterable
            return lambda iterable, key=None: key if key > iterable else iterable
        keyed = key is not None and not isinstance(key, (types.NoneType, types.Omitted))
        if keyed and not isinstance(key, _VALUES) and _keyed_iterable(iterable):
            return over_items(True)
        if not keyed and _keyed_iterable(iterable) and not isinstance(iterable, types.Array):
            return over_items(False)   # max(range(n)), min(a_set), max(d), max("abc")
        if not isinstance(iterable, (types.List, types.UniTuple)) or isinstance(key, _VALUES):
            return None   # min(a, b) of numbers: the builtin's
        if not keyed and isinstance(iterable.dtype, (types.Number, types.Boolean)):
            return None
        return pick(keyed)
    return typing


overload(min)(_extreme("min", True))
overload(max)(_extreme("max", False))


# ---- map, filter, functools.reduce ------------------------------------------------------------

def _iterated(x):
    """What a for loop in compiled code walks: _iterable's, and arrays of any rank (their rows),
    strings, dicts (their keys)."""
    return _iterable(x) or isinstance(x, (types.Array, types.UnicodeType, types.Dict))


def _given(x):
    return x is not None and not isinstance(x, (types.NoneType, types.Omitted))


# map() and filter() are generators, and compiled generators are lists (docs/architecture.md):
# iterating the result, list() of it and the other consumers all work; next() does not.
@overload(map)
def _map(func, *iterables):
    if len(iterables) == 1 and isinstance(iterables[0], types.Tuple):   # the packed *iterables
        iterables = tuple(iterables[0])
    if not iterables or not all(_iterated(x) for x in iterables) or len(iterables) > 4:
        return None
    names = [f"iterables[{k}]" for k in range(len(iterables))]
    items = ", ".join(f"x{k}" for k in range(len(iterables)))
    source = (f"def impl(func, *iterables):\n"
              f"    for {items} in zip({', '.join(names)}):\n"
              f"        yield func({items})\n") if len(iterables) > 1 else (
              "def impl(func, *iterables):\n"
              "    for x in iterables[0]:\n"
              "        yield func(x)\n")
    scope = {}
    exec(source, scope)
    return scope["impl"]


@overload(filter)
def _filter(func, iterable):
    if not _iterated(iterable):
        return None
    if not _given(func):      # filter(None, xs): the true items
        def truthy(func, iterable):
            for x in iterable:
                if x:
                    yield x
        return truthy

    def impl(func, iterable):
        for x in iterable:
            if func(x):
                yield x
    return impl


@overload(functools.reduce)
def _reduce(function, iterable, initial=None):
    if not _iterated(iterable):
        return None
    if _given(initial):
        def with_initial(function, iterable, initial=None):
            acc = initial
            for x in iterable:
                acc = function(acc, x)
            return acc
        return with_initial

    def impl(function, iterable, initial=None):
        items = [x for x in iterable]
        if len(items) == 0:
            raise TypeError("reduce() of empty iterable with no initial value")
        acc = items[0]
        for i in range(1, len(items)):
            acc = function(acc, items[i])
        return acc
    return impl


# ---- tuple.index, tuple.count -----------------------------------------------------------------

def _unrolled(body, n, tail):
    """A function of (t, value) whose body repeats `body` for each index i of an n-tuple (its
    items may differ in type, so no loop can walk them)."""
    lines = ["def impl(t, value):", "    found = 0"]
    lines += [f"    {line}" for i in range(n) for line in body(i)]
    lines.append(f"    {tail}")
    scope = {}
    exec("\n".join(lines) + "\n", scope)
    return scope["impl"]


@overload_method(types.Tuple, "index")
def _tuple_index(t, value):
    if isinstance(t, types.UniTuple):
        def loop(t, value):
            for i in range(len(t)):
                if t[i] == value:
                    return i
            raise ValueError("tuple.index(x): x not in tuple")
        return loop
    return _unrolled(lambda i: [f"if t[{i}] == value:", f"    return {i}"], len(t),
                     'raise ValueError("tuple.index(x): x not in tuple")')


@overload_method(types.Tuple, "count")
def _tuple_count(t, value):
    if isinstance(t, types.UniTuple):
        def loop(t, value):
            found = 0
            for x in t:
                if x == value:
                    found += 1
            return found
        return loop
    return _unrolled(lambda i: [f"if t[{i}] == value:", "    found += 1"], len(t),
                     "return found")


# ---- zip() and enumerate() as values ----------------------------------------------------------

_ITEMS = {}


def _items_of(maker, n):
    """frontend/ssa.c: the compiled function that gives the list of the items of maker(x0, ...,
    x<n-1>) (maker zip or enumerate), which stands for such an iterator passed to a call that
    consumes it (list(z), sorted(pairs), dict(zip(keys, values)), a compiled function taking
    it): an iterator's state lives in the loop that walks it, so no call can take one. One per
    maker and argument count, kept for the process."""
    key = (maker, n)
    disp = _ITEMS.get(key)
    if disp is None:
        from ..decorators import njit
        names = ", ".join(f"x{k}" for k in range(n))
        source = (f"def items_of_{maker.__name__}({names}):\n"
                  f"    out = []\n"
                  f"    for item in {maker.__name__}({names}):\n"
                  f"        out.append(item)\n"
                  f"    return out\n")
        scope = {}
        exec(source, scope)   # noqa: S102 - source made above from the argument count only
        disp = _ITEMS[key] = njit(scope[f"items_of_{maker.__name__}"])
    return disp
