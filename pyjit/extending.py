"""pyjit.extending: implementations written in the compiled subset, chosen by argument types.

Numba's API, with Numba's semantics:

    from pyjit import types
    from pyjit.extending import overload, register_jitable

    def clip01(x):                          # the Python function (still callable from Python)
        return min(max(x, 0.0), 1.0)

    @overload(clip01)
    def _clip01(x):                         # typing function: receives the argument TYPES
        if isinstance(x, types.Float):
            return lambda x: min(max(x, 0.0), 1.0)    # the implementation, compiled on first use
        return None                         # declines: the next overload is tried

    @register_jitable
    def hypot2(a, b):                       # callable from Python and from compiled code
        return a * a + b * b

A call of clip01 in compiled code (@njit, GPU kernels, device functions) is resolved while it is
typed: runtime/overload.c turns the argument types into pyjit.types objects, calls the typing
functions registered for clip01 in order, and the first implementation returned is compiled like
any @njit function called from there, specialised to the types, in the caller's module. The
implementation's signature must match the typing function's (names, order, defaults). A typing
function that raises, or no overload accepting the types, is a TypingError at the call's line.

Attributes: @overload_attribute(types.Array, "nbytes_total") registers a typing function that
receives the receiver's type and returns an implementation taking it: `a.nbytes_total` in compiled
code is then a call of that implementation (key "attr.array.nbytes_total"); the attributes pyjit
itself gives an array come first.

Methods: @overload_method(types.Array, "sort") registers a typing function that receives the
receiver's type then the arguments' types; its implementation takes self first. a.sort() then
resolves like a function call (runtime/overload.c, under the key "method.array.sort").

pyjit's own library (pyjit/lib/) is written the same way; a module of it is imported when compiled
code first calls one of its functions.
"""
import inspect
import sys

from . import errors

__all__ = ["overload", "overload_method", "overload_attribute", "register_jitable", "is_jitted",
           "as_numba_type", "get_cython_function_address", "kernel_code"]

# func -> [_Template], in registration order (the order they are tried in).
_OVERLOADS = {}
# (func, (argument type ids..., keyword names...)) -> dispatcher or None (declined); filled by
# runtime/overload.c, emptied when a new overload is registered.
_CHOSEN = {}

# (func, the argument types as pyjit's library reads them) -> _choose's answer, for functions
# only the library overloads: its int constants are weak ints, so a call with another value
# takes the same implementation (compiled once), as before ints had literal types.
_VIEWED = {}

# func -> the pyjit.lib module implementing it (a method's key), or the tuple of those that do (a
# function), not imported yet (pyjit/lib/__init__.py: INDEX); the first resolution of a call of
# func that a module serves imports it.
_LAZY = {}
# the method keys whose library modules _method_overloads has listed in _LAZY
_METHODS_SCANNED = set()

# "method.array.<name>" or "method.list.<name>" -> itself: the key of a method's overloads in
# _OVERLOADS, kept alive here for runtime/overload.c (rt_method_overloads hands it to the
# compiler as a handle).
_METHODS = {}

_TARGETS = ("generic", "cpu")


class _Template:
    """One typing function registered for func, with the options its implementations get."""

    def __init__(self, func, typing, jit_options, strict, prefer_literal=False):
        self.func = func
        self.typing = typing
        self.jit_options = dict(jit_options)
        self.strict = strict
        self.prefer_literal = bool(prefer_literal)
        # pyjit's own library reads True/False and string constants as literals always (its
        # options fix result types: keepdims=True, ord='fro') and int constants as weak ints
        # unless it prefers literals
        self.in_pyjit_lib = (getattr(typing, "__module__", None) or "").startswith("pyjit.lib.")
        self._dispatchers = {}   # implementation -> its dispatcher
        self._signature = None

    def accepts(self, args, kws):
        """Whether the typing function's parameters take a call of these arguments: one that
        does not declines, so the call goes on to other overloads or the builtin, whose message
        then says what is wrong with it."""
        if self._signature is None:
            try:
                self._signature = inspect.signature(self.typing)
            except (TypeError, ValueError):   # a builtin or other callable without one
                return True
        try:
            self._signature.bind(*args, **kws)
        except TypeError:
            return False
        return True

    def compile(self, impl):
        disp = self._dispatchers.get(impl)
        if disp is None:
            if self.strict:
                _check_signatures(self.typing, impl, _name_of(self.func))
            from .decorators import njit
            disp = njit(**self.jit_options)(impl)
            self._dispatchers[impl] = disp
        return disp


def _name_of(func):
    if isinstance(func, str):   # a method's key, "method.array.sort"
        return func[len("method."):]
    owner = getattr(func, "__self__", None)
    if owner is not None and not isinstance(owner, type(sys)) and hasattr(owner, "__name__"):
        return f"{_name_of(owner)}.{func.__name__}"   # a ufunc's method: numpy.add.reduce
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module}.{getattr(func, '__qualname__', getattr(func, '__name__', repr(func)))}"


def _check_signatures(typing, impl, name):
    """Numba's strict rule: the implementation takes the parameters the typing function takes,
    by the same names, in the same order, with the same defaults."""
    ts, cs = inspect.signature(typing), inspect.signature(impl)
    tp, cp = list(ts.parameters.values()), list(cs.parameters.values())
    same = len(tp) == len(cp) and all(
        a.name == b.name and a.kind == b.kind and
        (a.default is a.empty) == (b.default is b.empty) and
        (a.default is a.empty or _same_default(a.default, b.default))
        for a, b in zip(tp, cp))
    if not same:
        raise errors.TypingError(
            f"the implementation of {name}() returned by {typing.__qualname__} takes {cs}, "
            f"but the typing function takes {ts}: the two signatures must match")


def _same_default(a, b):
    try:
        return bool(a == b) or (a is b)
    except Exception:   # noqa: BLE001 - defaults that cannot be compared are not the same
        return a is b


def _check_jit_options(options):
    from .decorators import _IGNORED, _PASSED
    if not isinstance(options, dict):
        raise TypeError(f"jit_options takes a dict, not {options!r}")
    unknown = set(options) - _PASSED - _IGNORED
    if unknown:
        raise TypeError(f"jit_options: unexpected option(s) {', '.join(sorted(unknown))}")
    # An implementation is compiled into its caller under its own fastmath, error_model,
    # boundscheck and debug. The GIL belongs to the entry called from Python, which an
    # implementation never is: nogil=True is taken and has no effect, as in Numba (whose
    # documented replacement for generated_jit passes its options, nogil among them, here).
    # The optimisation level is the whole compilation's.
    if "opt" in options:
        raise NotImplementedError("jit_options opt: the optimisation level is the whole "
                                  "compilation's (the @njit entry's); give it to @njit")


def _mark(func):
    from . import _registry
    if not isinstance(func, str):   # a method is found by its key, not through the registry
        _registry.mark_overloaded(func)
    for key in [key for key in _CHOSEN if key[0] is func]:   # its choices may change now
        del _CHOSEN[key]
    for key in [key for key in _VIEWED if key[0] is func]:
        del _VIEWED[key]


def overload(func, jit_options={}, strict=True, inline="never", prefer_literal=False,  # noqa: B006
             **kwargs):
    """@overload(func): the decorated typing function receives the types of a call of func in
    compiled code and returns its implementation (a Python function in the compiled subset), or
    None to decline. Several overloads of one function are tried in registration order.

    jit_options go to @njit for the implementation, which is compiled under its own fastmath,
    boundscheck, error_model and debug wherever it is called from; nogil=True and opt concern
    the entry called from Python only and raise NotImplementedError;
    strict checks that the implementation's signature matches the typing function's.
    inline='always' (or Numba's cost-model callable) is taken as a hint: pyjit leaves inlining to
    LLVM, which inlines small implementations itself, and says so once (a PerformanceWarning).
    Constant arguments (ints, strings, True/False written in the call, and arguments compiled
    for one value by literally()) are literal types (types.IntegerLiteral, StringLiteral,
    BooleanLiteral, with .literal_value): as in Numba, the typing function is called with the
    plain types first (types.unliteral) and with the literal types if that declines, or the
    other way round with prefer_literal=True; an implementation chosen for the literal types is
    compiled for those values. A target other than 'generic' or 'cpu' is refused."""
    if not (inline in ("never", "always") or callable(inline)):
        raise ValueError(f"overload(inline={inline!r}): inline is 'never', 'always' or a "
                         "callable cost model, as in Numba")
    from .decorators import warn_hints
    warn_hints("overload", {"inline": None if inline == "never" else inline},
               {"inline": "pyjit leaves inlining to LLVM, which inlines small implementations"})
    target = kwargs.pop("target", "generic")
    if target not in _TARGETS:
        raise NotImplementedError(f"overload(target={target!r}): pyjit's overloads serve every "
                                  "target; give target='generic'")
    if kwargs:
        raise TypeError(f"overload() got unexpected option(s): {', '.join(sorted(kwargs))}")
    _check_jit_options(jit_options)
    try:
        hash(func)
    except TypeError:
        raise TypeError(f"overload() needs a hashable function, got {func!r}") from None

    def decorate(typing):
        if not callable(typing):
            raise TypeError(f"overload(...) decorates a typing function, got {typing!r}")
        _OVERLOADS.setdefault(func, []).append(_Template(func, typing, jit_options, strict,
                                                         prefer_literal))
        _mark(func)
        return typing
    return decorate


def _family(typ, what):
    from . import types
    kinds = {types.Array: "array", types.List: "list", types.UnicodeType: "str", types.Dict: "dict",
             types.Set: "set", types.NumPyRandomGeneratorType: "generator", types.Tuple: "tuple",
             types.DType: "dtype", types.Number: "number", types.Integer: "number",
             types.Float: "number", types.Complex: "number", types.Boolean: "number"}
    if isinstance(typ, type) and issubclass(typ, types.StructRef):   # a structref's methods
        from .experimental import structref
        kinds[typ] = structref.family(typ)
    if typ not in kinds:
        raise NotImplementedError(f"{what}({typ!r}, ...): pyjit overloads {what[9:]}s of "
                                  "types.Array, types.List, types.UnicodeType, types.Dict, "
                                  "types.Set and types.StructRef subclasses only")
    return kinds[typ]


def overload_method(typ, attr, **options):
    """@overload_method(types.Array, "sort"): the decorated typing function receives the type of
    the receiver, then the argument types of a call of that method in compiled code, and returns
    its implementation (taking self first) or None to decline. Options as for overload. pyjit
    overloads methods of arrays (types.Array), lists (types.List), strings (types.UnicodeType),
    dicts (types.Dict), sets (types.Set) and structrefs (a types.StructRef subclass,
    pyjit.experimental.structref); the operators of sets and dicts (|, &, -, ^, their in-place
    forms, ==, !=, <=, >=, <, >) are their methods __or__, __ior__, __eq__, ..."""
    family = _family(typ, "overload_method")
    if not isinstance(attr, str) or not attr.isidentifier():
        raise TypeError(f"overload_method needs a method name, got {attr!r}")
    key = f"method.{family}.{attr}"
    key = _METHODS.setdefault(key, key)
    return overload(key, **options)


def overload_attribute(typ, attr, **options):
    """@overload_attribute(types.Array, "name"): the decorated typing function receives the type
    of the receiver and returns an implementation taking it (or None to decline); `x.name` in
    compiled code is the implementation's result. Options as for overload."""
    family = _family(typ, "overload_attribute")
    if not isinstance(attr, str) or not attr.isidentifier():
        raise TypeError(f"overload_attribute needs an attribute name, got {attr!r}")
    key = f"attr.{family}.{attr}"
    key = _METHODS.setdefault(key, key)
    return overload(key, **options)


def _method_overloads(key):
    """runtime/overload.c: the handle of a method's overloads ("method.list.index"), or None.
    A method of pyjit's library is known before its module is imported: the module is imported
    by the first call it does not decline (_choose), as for functions."""
    if key.startswith("operator."):   # a + b on a user's type: overload(operator.add)'s
        return _operator_overloads(key[9:])
    structref = sys.modules.get("pyjit.experimental.structref")
    if key not in _METHODS and structref is not None:   # a structref instance's method
        key = structref.method_key(key) or key
    if key not in _METHODS_SCANNED:
        # every library module implementing it (numpy_axis and numpy_complex), those not
        # imported yet waiting in _LAZY (one may have registered the key when it was imported)
        _METHODS_SCANNED.add(key)
        from .lib import METHODS
        for module, names in METHODS.items():
            if key in names and f"{__package__}.lib.{module}" not in sys.modules:
                _METHODS[key] = key
                _LAZY[key] = _LAZY.get(key, ()) + (module,)
    return _METHODS.get(key)


def _operator_overloads(name):
    """operator.<name> when the user (not pyjit's library) has overloaded it, else None."""
    import operator
    func = getattr(operator, name, None)
    templates = _OVERLOADS.get(func, ()) if func is not None else ()
    if any(not (t.typing.__module__ or "").startswith("pyjit.lib.") for t in templates):
        return func
    return None


def register_jitable(*args, **kwargs):
    """@register_jitable or @register_jitable(**jit_options): fn stays a plain Python function
    and becomes callable from compiled code, compiled for each call's argument types."""
    _check_jit_options(kwargs)

    def wrap(fn):
        def typing(*a, **k):
            return fn
        overload(fn, jit_options=kwargs, strict=False)(typing)
        return fn
    if args:
        if len(args) != 1 or not callable(args[0]) or kwargs:
            raise TypeError("register_jitable takes a function, or keyword options only")
        return wrap(args[0])
    return wrap


def kernel_code():
    """Whether the code calling it is compiled as GPU kernel code (for the GPU or the CPU
    simulator): a builtin, a constant folded when compiling, so `if kernel_code():` types only
    the branch of the target, and an implementation serving every target can allocate on the
    host alone. False in the interpreter."""
    return False


def _type_list(args, kws):
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in (kws or {}).items()]
    return ", ".join(parts)


def _choose(func, args, kws):
    """runtime/overload.c: (the dispatcher of the implementation the first accepting typing
    function gives for these argument types, whether it was given the literal types), or None
    when every one declines. A typing function that raises lets the others try, as Numba's
    templates do; its error is raised when none accepts."""
    kws = kws or {}
    name = _name_of(func)
    modules = _LAZY.get(func)
    if modules is not None:
        from . import lib
        modules = (modules,) if isinstance(modules, str) else modules
        # modules that cannot serve the call stay unimported; the overloads of those already
        # imported (np.median's numpy_stats when numpy_axis is still waiting) are tried below
        serving = [m for m in modules if lib.serves(m, _library_view(args), _library_view(kws))]
        left = tuple(m for m in modules if m not in serving)
        if left:
            _LAZY[func] = left
        else:
            del _LAZY[func]
        for module in serving:
            lib.load(module)
    templates = _OVERLOADS.get(func, ())
    viewed = None
    if templates and all(t.in_pyjit_lib and not t.prefer_literal for t in templates):
        viewed = (func, _view_key(_library_view(args)), _view_key(_library_view(kws)))
        if viewed in _VIEWED:
            return _VIEWED[viewed]
    chosen = _try_templates(func, name, templates, args, kws)
    if viewed is not None:
        _VIEWED[viewed] = chosen
    return chosen


def _view_key(types_):
    """A hashable key of argument types: their names, whether weak, and the value of a literal."""
    from .types import is_weak
    items = types_.items() if isinstance(types_, dict) else enumerate(types_)
    return tuple((k, t.name, is_weak(t), getattr(t, "literal_value", None)) for k, t in items)


def _try_templates(func, name, templates, args, kws):
    failure = None   # the first typing function's error, raised when no other one accepts
    for template in templates:
        for a, k, literal in _attempts(template, args, kws):
            if not template.accepts(a, k):
                continue
            try:
                impl = template.typing(*a, **k)
            except Exception as exc:   # noqa: BLE001 - reported as a TypingError at the call
                if failure is None:
                    failure = errors.TypingError(
                        f"the typing function {template.typing.__qualname__} of {name}() raised "
                        f"{type(exc).__name__}: {exc}; argument types ({_type_list(a, k)})")
                if isinstance(exc, errors.CompileError):
                    continue
                break   # as in Numba, only a TypingError lets its other attempt follow
            if impl is None:
                continue
            if not callable(impl) or not hasattr(impl, "__code__"):
                raise errors.TypingError(
                    f"the typing function {template.typing.__qualname__} of {name}() returned "
                    f"{impl!r}: it must return a Python function or None")
            if not literal and _asks_literal(impl, template, args, kws):
                continue   # Numba's ForceLiteralArg: the literal attempt follows
            return template.compile(impl), literal
    if failure is not None:
        raise failure from None
    return None


def _has_literal(args, kws):
    from . import types
    return any(isinstance(t, types.Literal) for t in (*args, *kws.values()))


def _library_view(types_):
    """What pyjit's library sees of constants unless it prefers literals: True/False and
    strings as literals, ints as weak int64 (a Python int written in the code)."""
    from . import types
    plain = (lambda t: t.literal_type if isinstance(t, types.IntegerLiteral) else t)
    if isinstance(types_, dict):
        return {k: plain(v) for k, v in types_.items()}
    return tuple(plain(t) for t in types_)


def _attempts(template, args, kws):
    """The argument types a typing function is called with, in order, each with whether they
    are the literal ones: as Numba's BaseFunction.get_call_type does, the plain types
    (types.unliteral) first and then the literal ones, or literal first with prefer_literal=True;
    once only where no argument is a literal."""
    from . import types
    if not _has_literal(args, kws):
        return [(tuple(args), kws, False)]
    if template.in_pyjit_lib:
        plain = (_library_view(args), _library_view(kws), False)
        return [(tuple(args), kws, True), plain] if template.prefer_literal else [plain]
    plain = (tuple(types.unliteral(t) for t in args),
             {k: types.unliteral(v) for k, v in kws.items()}, False)
    literal = (tuple(args), kws, True)
    return [literal, plain] if template.prefer_literal else [plain, literal]


def _asks_literal(impl, template, args, kws):
    """Whether impl, given for the plain types, calls literally() on one of its parameters whose
    argument is a literal here: Numba then raises ForceLiteralArg while compiling it, and the
    typing function is tried again with the literal types."""
    from . import types
    wanted = _literally_params(impl)
    if not wanted:
        return False
    try:
        bound = inspect.signature(template.typing).bind(*args, **kws).arguments
    except (TypeError, ValueError):
        return False
    return any(isinstance(bound.get(p), types.Literal) for p in wanted)


def _literally_params(impl):
    """The parameters of impl its code passes to literally() (numba.literally(k), literally(k))."""
    import dis
    code = impl.__code__
    params = set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    if "literally" not in code.co_names and "literally" not in code.co_freevars:
        return set()
    found, after = set(), False
    for ins in dis.get_instructions(code):
        if after and ins.opname == "LOAD_FAST" and ins.argval in params:
            found.add(ins.argval)
        after = ins.argval == "literally" and ins.opname.startswith("LOAD_")
    return found


def is_jitted(obj):
    """Whether obj is a function pyjit compiles (an @njit dispatcher), as numba.extending's."""
    from . import _core
    return isinstance(obj, _core.Dispatcher)


def as_numba_type(py_type):
    """The pyjit type of a Python class or type hint: int -> int64, float -> float64, bool ->
    boolean, complex -> complex128, str -> unicode_type, typing.List[T] / list[T] -> a list of T,
    typing.Dict[K, V] -> a dict, typing.Set[T] -> a set, typing.Tuple[...] -> a tuple; a pyjit
    type is itself. Anything else is a TypingError, as in Numba."""
    import typing
    from . import types
    if isinstance(py_type, types.Type):
        return py_type
    simple = {int: types.int64, float: types.float64, bool: types.boolean,
              complex: types.complex128, str: types.unicode_type, type(None): types.none}
    if isinstance(py_type, type) and py_type in simple:
        return simple[py_type]
    origin, args = typing.get_origin(py_type), typing.get_args(py_type)
    items = tuple(as_numba_type(a) for a in args if a is not Ellipsis)
    if origin is list and len(items) == 1:
        return types.List(items[0])
    if origin is set and len(items) == 1:
        return types.Set(items[0])
    if origin is dict and len(items) == 2:
        return types.Dict(items[0], items[1])
    if origin is tuple and items:
        if Ellipsis in args:
            raise errors.TypingError(f"as_numba_type({py_type!r}): a tuple of unknown length has "
                                     "no pyjit type")
        return types.Tuple(items)
    raise errors.TypingError(f"as_numba_type: no pyjit type for {py_type!r}")


def get_cython_function_address(module_name, function_name):
    """The address of a Cython module's exported C function (its __pyx_capi__ capsule), to call
    through ctypes, as numba.extending's: e.g. ("scipy.special.cython_special", "j0")."""
    import ctypes
    import importlib
    module = importlib.import_module(module_name)
    capi = getattr(module, "__pyx_capi__", None)
    if capi is None or function_name not in capi:
        raise ValueError(f"no function {function_name!r} in the C API (__pyx_capi__) of "
                         f"{module_name}")
    capsule = ctypes.py_object(capi[function_name])
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(capsule, get_name(capsule))


# Numba's lower-level extension API works on Numba's own LLVM lowering (data models, boxing,
# intrinsics written in llvmlite IR), which pyjit does not expose: each name says so, and what to
# write instead, when it is imported.
_LOW_LEVEL = ("intrinsic", "typeof_impl", "type_callable", "models", "register_model", "box",
              "unbox", "reflect", "NativeValue", "lower_builtin", "lower_cast", "lower_getattr",
              "lower_getattr_generic", "lower_setattr", "lower_setattr_generic",
              "make_attribute_wrapper", "infer", "infer_getattr", "overload_classmethod",
              "include_path", "sentry_literal_args", "SentryLiteralArgs", "BoundLiteralArgs")


def __getattr__(name):
    if name in _LOW_LEVEL:
        raise ImportError(f"pyjit.extending has no {name}: Numba's low-level extension API "
                          "(data models, LLVM lowering) has no counterpart in pyjit; write the "
                          "function in the compiled subset with overload, overload_method, "
                          "overload_attribute or register_jitable, and a type of your own (Numba's "
                          "Interval example) as a @jitclass or a structref (docs/extending.md)",
                          name=name)
    raise AttributeError(f"module 'pyjit.extending' has no attribute '{name}'")
