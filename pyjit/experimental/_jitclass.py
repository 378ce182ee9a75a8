"""pyjit.experimental.jitclass: classes whose instances live in compiled memory (Numba's jitclass).

    from pyjit import float64, int64
    from pyjit.experimental import jitclass

    @jitclass([("width", float64), ("count", int64)])
    class Bag:
        def __init__(self, width):
            self.width = width
            self.count = 0

        def add(self, n):
            self.count += n
            return self.count

An instance is a reference-counted block holding the fields (types.h TY_CLASS, abi.h
ClassTrailer); in Python it is an instance of the class jitclass returns, a subclass of
_core.JitClassBox owning one reference on that block (runtime/jitclass.c). Everything the class
defines is compiled: its methods, properties and static methods are registered as overloads under
keys naming the instance type (compiler/infer_class.c reads them), so compiled code calls them as
it calls library methods, and their Python-side counterparts call the same compiled versions.
The constructor is a compiled function written here for each class: it makes the instance
(new_instance, a builtins.def row) and calls __init__ on it. Fields are read and set from Python
through small compiled accessors, so a value is converted exactly as an assignment in compiled
code converts it, and one of the wrong type is a TypeError.
"""
import collections
import inspect
import typing

from .. import errors, extending, types
from .._core import JitClassBox, jitclass_set_field, jitclass_type
from ..decorators import njit

_SKIPPED = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__annotations__",
            "__firstlineno__", "__static_attributes__", "__slots__"}


def new_instance(instance_type):
    """Compiled code only (the constructor's first step): a new instance, its fields zeroed."""
    raise TypeError("new_instance() makes an instance in compiled code only; call the class")


def get_field(obj):
    """Compiled code only: what obj.x becomes."""
    raise TypeError("get_field() is what compiled code makes of obj.x; read the attribute")


def set_field(obj, value):
    """Compiled code only: what obj.x = value becomes."""
    raise TypeError("set_field() is what compiled code makes of obj.x = value; set the attribute")


def jitclass(cls_or_spec=None, spec=None):
    if isinstance(cls_or_spec, type):
        return _build(cls_or_spec, spec)
    if cls_or_spec is not None:
        if spec is not None:
            raise TypeError("jitclass(spec) takes the spec once, not both positionally and as spec=")
        spec = cls_or_spec

    def wrap(cls):
        if not isinstance(cls, type):
            raise TypeError(f"@jitclass decorates a class, not {cls!r}")
        return _build(cls, spec)
    return wrap


# ---- the spec ----

def _field_type(name, t):
    if isinstance(t, type) and issubclass(t, JitClassBox):   # a jitclass itself: its instances
        return t.class_type.instance_type
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is list and len(args) == 1:   # List[float], as Numba reads annotations
        return types.ListType(_field_type(name, args[0]))
    if origin is dict and len(args) == 2:
        return types.DictType(_field_type(name, args[0]), _field_type(name, args[1]))
    if isinstance(t, types.ClassType):
        return t.instance_type
    if origin is tuple and args and args[-1] is not Ellipsis:   # Tuple[float, float]
        return types.Tuple([_field_type(name, a) for a in args])
    if origin is set and len(args) == 1:
        return types.Set(_field_type(name, args[0]))
    try:
        ft = types._as_type(t)
    except TypeError:
        ft = None
    try:
        ft = ft if isinstance(ft, types.Type) else extending.as_numba_type(t)
    except errors.TypingError:
        raise TypeError(f"jitclass field '{name}': {t!r} is not a type (give a pyjit type such as "
                        "float64, int64[:], types.ListType(float64), or another jitclass's "
                        "Cls.class_type.instance_type)") from None
    if ft == types.none:
        raise TypeError(f"jitclass field '{name}': a field cannot be of type none")
    return ft


def _spec_items(spec):
    if spec is None:
        return []
    if isinstance(spec, dict):
        return list(spec.items())
    try:
        items = list(spec)
    except TypeError:
        items = None
    if items is None or not all(isinstance(p, tuple) and len(p) == 2 for p in items):
        raise TypeError(f"jitclass spec must be a list of (name, type) pairs or a dict, not {spec!r}")
    return items


def _struct(cls, spec):
    """The fields in order: the spec's, then the annotations' the spec does not name."""
    struct = collections.OrderedDict()
    for name, t in _spec_items(spec):
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"jitclass spec: field name {name!r} is not an identifier")
        if name in struct:
            raise TypeError(f"jitclass spec: field '{name}' given twice")
        struct[name] = _field_type(name, t)
    for name, t in cls.__dict__.get("__annotations__", {}).items():
        if name not in struct:
            struct[name] = _field_type(name, t)
    return struct


def _members(cls, struct):
    """(methods, properties, static methods) of cls, each name -> function(s); anything else
    is refused here, with what to do instead."""
    if cls.__bases__ != (object,):
        raise TypeError(f"jitclass {cls.__name__}: inheritance is not supported (a jitclass "
                        "derives from object only)")
    methods, props, statics = {}, {}, {}
    for name, value in cls.__dict__.items():
        if name in _SKIPPED or (name == "__hash__" and value is None):   # __eq__'s doing
            continue
        if name in struct:
            raise TypeError(f"jitclass {cls.__name__}: '{name}' is both a field and a class member")
        if isinstance(value, staticmethod):
            statics[name] = value.__func__
        elif isinstance(value, classmethod):
            raise TypeError(f"jitclass {cls.__name__}: classmethod '{name}' is not supported "
                            "(use a staticmethod)")
        elif isinstance(value, property):
            if value.fdel is not None:
                raise TypeError(f"jitclass {cls.__name__}: property '{name}' has a deleter, "
                                "which jitclasses do not support")
            props[name] = (value.fget, value.fset)
        elif inspect.isfunction(value):
            methods[name] = value
        else:
            raise TypeError(f"jitclass {cls.__name__}: class attribute '{name}' = {value!r} is not "
                            "supported (jitclasses have fields, methods, properties and static "
                            "methods; make it a field or a global constant)")
    return methods, props, statics


# ---- compiled helpers written for the class ----

def _source_of(fn_name, params, body, skip=0):
    """The source of a function named fn_name taking params (inspect.Parameters) whose body's
    '{call}' is the parameters after the first skip passed on, and the namespace its defaults
    need. Keyword-only parameters are plain ones here, passed on by name: the callee's own
    compilation says that compiled code does not take them."""
    heads, passes, defaults = [], [], {}
    for i, p in enumerate(params):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"{fn_name}: *args and **kwargs are not supported in jitclass methods")
        head = p.name
        if p.default is not p.empty:
            defaults[f"_default_{p.name}"] = p.default
            head += f"=_default_{p.name}"
        heads.append(head)
        if i >= skip:
            passes.append(f"{p.name}={p.name}" if p.kind == p.KEYWORD_ONLY else p.name)
    lines = body.format(call=", ".join(passes)).splitlines()
    src = f"def {fn_name}({', '.join(heads)}):\n" + "".join(f"    {line}\n" for line in lines)
    return src, defaults


def _compile_source(src, fn_name, cls_name, namespace):
    exec(compile(src, f"<jitclass {cls_name}>", "exec"), namespace)   # noqa: S102 - written here
    return namespace[fn_name]


def _constructor(cls_name, init, instance_type):
    params = list(inspect.signature(init).parameters.values())[1:] if init else []
    body = "self = new_instance(T)\n" + ("self.__init__({call})\n" if init else "") + "return self"
    src, defaults = _source_of(cls_name, params, body)
    ns = {"new_instance": new_instance, "T": instance_type, **defaults}
    return njit(_compile_source(src, cls_name, cls_name, ns))


def _static_forwarder(cls_name, name, func, disp):
    """obj.name(...) of a static method: a function taking the instance first, then calling it."""
    params = list(inspect.signature(func).parameters.values())
    taken = {p.name for p in params}
    self_name = next(n for n in ("self", "self_", "_self", "__self") if n not in taken)
    first = inspect.Parameter(self_name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    src, defaults = _source_of(name, [first] + params, "return target({call})", skip=1)
    return _compile_source(src, name, cls_name, {"target": disp, **defaults})


def _accessors(cls_name, name):
    src = (f"def get_{name}(self):\n    return self.{name}\n"
           f"def set_{name}(self, value):\n    self.{name} = value\n")
    ns = {}
    _compile_source(src, f"get_{name}", cls_name, ns)
    return njit(ns[f"get_{name}"]), njit(ns[f"set_{name}"])


def _register(kind, instance_type, name, func):
    """Registers func as the implementation of <kind>.<instance type>.<name> (compiler/
    infer_class.c looks it up) and returns the dispatcher Python-side calls use."""
    key = f"{kind}.{instance_type.name}.{name}"
    key = extending._METHODS.setdefault(key, key)

    def typing(*args, **kwargs):
        return func
    extending.overload(key, strict=False)(typing)
    return extending._OVERLOADS[key][-1].compile(func)


# ---- the Python class ----

_MAY_BE_UNSET = (types.List, types.Dict, types.Set, types.UnicodeType, types.ClassInstanceType)


def _field_property(cls_name, name, ftype):
    getter, setter = _accessors(cls_name, name)

    def fget(self):
        try:
            return getter(self)
        except ValueError as exc:   # the one error reading a field raises: never set
            raise AttributeError(str(exc)) from None
    if not isinstance(ftype, _MAY_BE_UNSET):   # numbers, arrays, tuples: read as they are
        fget = getter

    def fset(self, value):
        try:
            setter(self, value)
        except (errors.CompileError, TypeError):
            raise TypeError(f"cannot set {cls_name}.{name}, a field of type {ftype!r}, to "
                            f"{type(value).__name__} {value!r}") from None
    return property(fget, fset, doc=f"field {name}: {ftype!r}")


def _method(name, disp):
    def call(self, *args, **kwargs):
        return disp(self, *args, **kwargs)
    call.__name__ = call.__qualname__ = name
    return call


def _user_property(cls_name, name, instance_type, fget, fset):
    get = _register("getter", instance_type, name, fget) if fget else None
    put = _register("setter", instance_type, name, fset) if fset else None

    def pget(self):
        if get is None:
            raise AttributeError(f"property '{name}' of {cls_name} has no getter")
        return get(self)

    def pset(self, value):
        if put is None:
            raise AttributeError(f"property '{name}' of {cls_name} has no setter")
        put(self, value)
    return property(pget, pset)


def _static_method(cls_name, instance_type, name, func):
    """Cls.name(...) and obj.name(...), from Python and compiled code: Cls.name is a dispatcher
    that compiled code calls as an overloaded function (its typing gives func), and obj.name a
    method of the instance that forwards to it."""
    disp = njit(func)

    def typing(*args, **kwargs):
        return func
    extending.overload(disp, strict=False)(typing)
    _register("method", instance_type, name, _static_forwarder(cls_name, name, func, disp))
    return staticmethod(disp)


def _rebuild(cls, values):
    """Unpickling: an instance of cls with these field values (its __init__ is not run)."""
    obj = cls._pyjit_blank()
    for name, value in zip(cls.class_type.struct, values):
        setattr(obj, name, value)
    return obj


def _new(cls, *args, **kwargs):
    """Calling the class runs the compiled constructor, which returns the instance."""
    if cls._pyjit_undefined:
        raise TypeError(f"jitclass {cls.__name__}: the deferred_type of field(s) "
                        f"{', '.join(sorted(cls._pyjit_undefined))} is not defined yet (call its "
                        "define() with the type, as Cls.class_type.instance_type, first)")
    return cls._pyjit_new(*args, **kwargs)


def _init(self, *args, **kwargs):
    """__init__ already ran, compiled, in the constructor."""


def _reduce(self):
    return _rebuild, (type(self), tuple(getattr(self, n) for n in type(self).class_type.struct))


def _deferred(t):
    """The deferred_type a field's type t is (or is optional of), else None."""
    if isinstance(t, types.Optional):
        t = t.type
    return t if isinstance(t, types.DeferredType) else None


def _defer_fields(box, instance_type, struct):
    """Fields declared with a deferred_type get their type once it is defined: the instance type
    is patched then (jitclass_set_field), before anything of the class is compiled; until then
    the class cannot be instantiated."""
    box._pyjit_undefined = set()
    for i, (fname, ftype) in enumerate(struct.items()):
        deferred = _deferred(ftype)
        if deferred is None:
            continue
        box._pyjit_undefined.add(fname)

        def resolve(i=i, fname=fname, ftype=ftype, deferred=deferred):
            real = deferred.get()
            real = types.Optional(real) if isinstance(ftype, types.Optional) else real
            jitclass_set_field(instance_type.name, i, real.name)
            struct[fname] = real
            setattr(box, fname, _field_property(box.__name__, fname, real))
            box._pyjit_undefined.discard(fname)
        deferred.when_defined(resolve)


def _build(cls, spec):
    struct = _struct(cls, spec)
    methods, props, statics = _members(cls, struct)
    box = type(cls.__name__, (JitClassBox,), {
        "__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__, "__new__": _new, "__init__": _init, "__reduce__": _reduce})
    # a deferred field holds an int64 until its type is defined (jitclass_set_field)
    names = tuple("int64" if _deferred(t) else t.name for t in struct.values())
    name = jitclass_type(box, cls.__name__, tuple(struct), names)
    instance_type = types.ClassInstanceType(name, cls.__name__, struct, box)
    box.class_type = types.ClassType(instance_type, dict(methods))
    for fname, ftype in struct.items():
        setattr(box, fname, _field_property(cls.__name__, fname, ftype))
    for mname, func in methods.items():
        disp = _register("method", instance_type, mname, func)
        if mname != "__init__":
            setattr(box, mname, _method(mname, disp))
    for pname, (fget, fset) in props.items():
        setattr(box, pname, _user_property(cls.__name__, pname, instance_type, fget, fset))
    for sname, func in statics.items():
        setattr(box, sname, _static_method(cls.__name__, instance_type, sname, func))
    ctor = _constructor(cls.__name__, methods.get("__init__"), instance_type)
    blank = _constructor(cls.__name__, None, instance_type)
    box._pyjit_new = staticmethod(ctor)
    box._pyjit_blank = staticmethod(blank)
    _callable_in_compiled_code(box, ctor.py_func)
    _defer_fields(box, instance_type, struct)
    return box


def _callable_in_compiled_code(box, constructor):
    """Cls(...) in compiled code: the class is marked overloaded, its typing giving the
    constructor."""
    def typing(*args, **kwargs):
        return constructor
    extending.overload(box, strict=False)(typing)
