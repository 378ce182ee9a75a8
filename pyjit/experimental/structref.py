"""pyjit.experimental.structref: Numba's structref, mutable structs whose field types are those
of the values a constructor is called with.

    @structref.register
    class PointType(types.StructRef):
        def preprocess_fields(self, fields):
            return tuple((name, types.unliteral(t)) for name, t in fields)

    class Point(structref.StructRefProxy):
        def __new__(cls, x, y):
            return structref.StructRefProxy.__new__(cls, x, y)

    structref.define_proxy(Point, PointType, ["x", "y"])

    @overload_method(PointType, "norm2")
    def _norm2(self):
        return lambda self: self.x * self.x + self.y * self.y

It is built on jitclass's machinery (pyjit/experimental/_jitclass.py): each combination of field
types a constructor meets is the instance type of a jitclass whose Python class is the proxy, so
instances cross between Python and compiled code as jitclass instances do, and compiled code
reads and sets their fields. Methods are overload_method's on the StructRef type, found for
every instance type made from it (pyjit.extending._method_overloads asks method_key here).
Python code reaches fields through properties calling @njit functions, as with Numba.
"""
from .. import extending, types
from .._core import JitClassBox, jitclass_type
from ..decorators import njit
from ._jitclass import _compile_source, new_instance

__all__ = ["register", "StructRefProxy", "define_proxy", "define_constructor", "define_boxing",
           "define_attributes"]

# instance type name -> the StructRef type class it was made from (for method_key)
_STRUCT_OF = {}


def register(struct_type):
    """@structref.register on a types.StructRef subclass: it becomes a structref type."""
    if not (isinstance(struct_type, type) and issubclass(struct_type, types.StructRef)):
        raise TypeError(f"structref.register takes a subclass of types.StructRef, not {struct_type!r}")
    return struct_type


class StructRefProxy(JitClassBox):
    """The base of a structref's Python class; StructRefProxy.__new__(cls, *fields) makes an
    instance (compiled, for the fields' types)."""

    __slots__ = ()

    def __new__(cls, *args):
        make = getattr(cls, "_pyjit_make", None)
        if make is None:
            raise TypeError(f"{cls.__name__} has no constructor: call structref.define_proxy "
                            f"({cls.__name__}, its StructRef type, its field names) first")
        return make(*args)

    def __init__(self, *args, **kwargs):
        """The fields were set by the compiled constructor."""


def method_key(key):
    """extending._method_overloads: a structref type's method key, method.structref.<id>.<name>,
    for the key inference asks about an instance type made from it; None for any other."""
    kind, _, rest = key.partition(".")
    name, _, attr = rest.rpartition(".")
    struct_type = _STRUCT_OF.get(name) if kind == "method" else None
    return _struct_key(struct_type, attr) if struct_type is not None else None


def family(struct_type):
    """The family overload_method names a structref type's methods by."""
    return f"structref.{id(struct_type)}"


def _struct_key(struct_type, attr):
    return f"method.{family(struct_type)}.{attr}"


def _instance_type(proxy_cls, struct_type, fields, argtypes):
    """The instance type for these field types, made on first use (preprocess_fields applied):
    a ClassInstanceType, which compiled code can name; typing functions are given the StructRef
    type itself."""
    made = proxy_cls.__dict__.get("_pyjit_types")
    if made is None:
        made = {}
        setattr(proxy_cls, "_pyjit_types", made)
    key = tuple(t.name for t in argtypes)
    if key not in made:
        st = struct_type(list(zip(fields, argtypes)))
        names = tuple(n for n, _ in st._fields)
        name = jitclass_type(proxy_cls, proxy_cls.__name__, names,
                             tuple(types.unliteral(t).name for _, t in st._fields))
        st.name = name
        made[key] = types.ClassInstanceType(name, proxy_cls.__name__, st.field_dict, proxy_cls)
        types._CLASS_TYPES[name] = st      # what typing functions receive: the StructRef type
        _STRUCT_OF[name] = struct_type
    return made[key]


def define_constructor(py_class, struct_typeclass, fields):
    """py_class(*values) in compiled code: an instance whose fields take the values' types."""
    fields = list(fields)
    params = ", ".join(fields)
    body = "".join(f"    self.{f} = {f}\n" for f in fields)
    src = f"def construct({params}):\n    self = new_instance(T)\n{body}    return self\n"

    def typing(*args, **kwargs):
        bound = list(args) + [kwargs.get(f) for f in fields[len(args):]]
        if len(bound) != len(fields) or None in bound or len(args) + len(kwargs) != len(fields):
            return None
        instance_type = _instance_type(py_class, struct_typeclass, fields, bound)
        return _compile_source(src, "construct", py_class.__name__,
                               {"new_instance": new_instance, "T": instance_type})
    extending.overload(py_class, strict=False)(typing)
    call_src = f"def make({params}):\n    return cls({params})\n"
    py_class._pyjit_make = staticmethod(njit(_compile_source(call_src, "make", py_class.__name__,
                                                             {"cls": py_class})))


def define_boxing(struct_typeclass, obj_class):
    """Nothing to do: an instance reaches Python as an instance of its proxy class."""


def define_attributes(struct_typeclass):
    """Nothing to do: compiled code reads and sets the fields of every structref."""


def define_proxy(proxy_cls, struct_typeclass, fields):
    """Numba's define_proxy: the constructor, boxing and attributes of a structref."""
    if not (isinstance(proxy_cls, type) and issubclass(proxy_cls, StructRefProxy)):
        raise TypeError(f"define_proxy takes a subclass of StructRefProxy, not {proxy_cls!r}")
    define_constructor(proxy_cls, struct_typeclass, fields)
    define_boxing(struct_typeclass, proxy_cls)
    define_attributes(struct_typeclass)
