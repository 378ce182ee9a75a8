"""pyjit._serialize: how compiled objects cross process boundaries (pickle, multiprocessing,
Dask, Ray).

A compiled object (a dispatcher, a vectorize or guvectorize ufunc, a GPU kernel) pickles by
reference when another process can find it again by its module and qualified name: a module-level
object of an importable module. The receiving process imports the module and takes the object
there, as pickle does for functions.

Otherwise (made inside a function, defined in __main__ or an interactive session) it pickles by
value: the Python function's code (marshal), the values of the globals the code names, its
closure's values, its defaults, and what the decorator was given. The receiving process rebuilds
the function and decorates it again. Each object carries an identity made when it is first
pickled, so every copy of one object in a process is one compiled object: a worker that receives
the same function with every task compiles it once. Code pickled by value runs only on the same
Python version (marshal's format is per version); another version is a clear error.
"""
import collections
import importlib
import marshal
import sys
import types as pytypes
import weakref

_VERSION = sys.version_info[:2]

# identity -> the object pickled or rebuilt under it, in this process (a np.ufunc cannot be
# referred to weakly: those stay, as the decorated functions that make them do). The objects
# rebuilt last stay alive too: a worker given the same function with each task (which it drops
# after the task) compiles it once, not once a task.
_OBJECTS = weakref.WeakValueDictionary()
_UFUNCS = {}
_RECENT = collections.deque(maxlen=256)


def record(obj, func, decorator, args, kws):
    """Notes that decorator(*args, **kws) made obj from the Python function func (or, without
    args, decorator(func, **kws)): pickling by value makes it again so. Returns obj."""
    _holder(obj)["_pyjit_made"] = (getattr(func, "py_func", func), decorator, args, dict(kws))
    return obj


def reduce(obj):
    """The __reduce__ of an object record() was told of: by reference when importable, else a
    call that makes it again from its function by value."""
    holder = _holder(obj)
    func, decorator, args, kws = holder["_pyjit_made"]
    if _importable(obj, func):
        return func.__qualname__   # pickle finds it in its module
    return (_rebuild, (_identity(obj, holder), _function_state(func, obj), (decorator, args, kws)))


def _holder(obj):
    """Where obj keeps what pickling needs: its __dict__, or for a np.ufunc the dict
    runtime/ufunc.c keeps with it."""
    d = getattr(obj, "__dict__", None)
    if d is not None:
        return d
    from . import _core
    return _core.ufunc_made(obj)


def _importable(obj, func):
    """Whether obj is what func's module holds under func's qualified name, in a module another
    process can import (not __main__, which is another program there)."""
    module, qualname = func.__module__, func.__qualname__
    if not module or module in ("__main__", "__mp_main__") or "<" in qualname:
        return False
    found = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found is obj


def _identity(obj, holder):
    """The identity obj is pickled under, made on first use."""
    ident = holder.get("_pyjit_identity")
    if ident is None:
        import uuid   # here, not at import: it costs milliseconds, and only pickling needs it
        ident = uuid.uuid4().hex
        _remember(ident, obj, holder)
    return ident


def _remember(ident, obj, holder):
    holder["_pyjit_identity"] = ident
    try:
        _OBJECTS[ident] = obj
    except TypeError:
        _UFUNCS[ident] = obj


def _rebuild(ident, state, made):
    obj = _OBJECTS.get(ident)
    if obj is None:
        obj = _UFUNCS.get(ident)
    if obj is None:
        decorator, args, kws = made
        pending = []
        func = _function(state, pending)
        obj = decorator(*args, **kws)(func) if args else decorator(func, **kws)
        for fill in pending:   # the function's references to obj itself
            fill(obj)
        _remember(ident, obj, _holder(obj))
        _RECENT.append(obj)
    return obj


# ---- functions by value ----

class _Self:
    """Stands for the compiled object itself among its function's globals (recursion)."""

    def __reduce__(self):
        return (_Self, ())


class _Module:
    """A module among a function's globals, imported again by name."""

    def __init__(self, name):
        self.name = name

    def __reduce__(self):
        return (_Module, (self.name,))


class _Function:
    """A plain Python function among a compiled function's globals that cannot be pickled by
    reference (a helper in __main__ given to an overload, say): pickled by value too."""

    def __init__(self, state):
        self.state = state

    def __reduce__(self):
        return (_Function, (self.state,))


def _names(code):
    """The global names code and the code objects nested in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            names |= _names(const)
    return names


def _by_value(value, owner):
    if value is owner:
        return _Self()
    if isinstance(value, pytypes.ModuleType):
        return _Module(value.__name__)
    if isinstance(value, pytypes.FunctionType) and not _importable(value, value):
        return _Function(_function_state(value, owner))
    return value


def _cell_values(func, owner):
    values = []
    for cell in func.__closure__ or ():
        try:
            values.append((True, _by_value(cell.cell_contents, owner)))
        except ValueError:   # a cell not yet filled (a name bound later in the outer function)
            values.append((False, None))
    return tuple(values)


def _function_state(func, owner):
    """What rebuilds func in another process (owner: the compiled object it belongs to)."""
    g = func.__globals__
    globals_ = {name: _by_value(g[name], owner) for name in _names(func.__code__) if name in g}
    return {
        "version": _VERSION,
        "code": marshal.dumps(func.__code__),
        "globals": globals_,
        "module": func.__module__,
        "name": func.__name__,
        "qualname": func.__qualname__,
        "doc": func.__doc__,
        "defaults": func.__defaults__,
        "kwdefaults": func.__kwdefaults__,
        "closure": _cell_values(func, owner),
        "dict": dict(func.__dict__),
    }


def _function(state, pending):
    """The function state describes. Its references to the compiled object being rebuilt stay
    unbound (a deferred compilation sees them so) and go to pending, to be filled once it exists."""
    if tuple(state["version"]) != _VERSION:
        raise RuntimeError(
            f"a pyjit function pickled by value under Python {'.'.join(map(str, state['version']))} "
            f"cannot be loaded by Python {'.'.join(map(str, _VERSION))} (its bytecode differs); "
            f"define it at module level of an importable module so it pickles by reference")
    code = marshal.loads(state["code"])
    g = {"__builtins__": __builtins__, "__name__": state["module"]}
    cells = tuple(pytypes.CellType() for _ in state["closure"])
    func = pytypes.FunctionType(code, g, state["name"], state["defaults"], cells or None)
    func.__qualname__ = state["qualname"]
    func.__doc__ = state["doc"]
    func.__kwdefaults__ = state["kwdefaults"]
    func.__module__ = state["module"]
    func.__dict__.update(state["dict"])
    for name, value in state["globals"].items():
        if isinstance(value, _Self):
            pending.append(lambda obj, name=name: g.__setitem__(name, obj))
        else:
            g[name] = _restore(value, pending)
    for cell, (full, value) in zip(cells, state["closure"]):
        if isinstance(value, _Self):
            pending.append(lambda obj, cell=cell: setattr(cell, "cell_contents", obj))
        elif full:
            cell.cell_contents = _restore(value, pending)
    return func


def _restore(value, pending):
    if isinstance(value, _Module):
        return importlib.import_module(value.name)
    if isinstance(value, _Function):
        return _function(value.state, pending)
    return value
