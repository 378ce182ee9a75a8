"""pyjit.types: type objects and signatures, as Numba spells them.

    float64, int32, boolean, ...           scalar types (with the short aliases f8, i4, b1, ...)
    float64[:]   float64[:, :]             arrays of any layout ('A')
    float64[::1]  float64[:, ::1]          C-contiguous arrays;  float64[::1, :]  Fortran order
    Array(float64, 2, 'C'), Tuple((f8, i8)), UniTuple(f8, 2), List(float64), none / void
    ListType(float64)                      the type of a pyjit.typed.List (typed_list(float64))
    FunctionType(float64(float64))         a first-class function of that signature
    float64(float64, int64)                a signature (return type and argument types)
    'float64(float64[:], int64)'           the same as a string, as @njit takes it

Every type has the canonical name the compiler uses (compiler/types.h), in `.name`:
'float64', 'array(float64, 2d, C)', 'tuple(float64, int64)', 'list(float64)', 'none'. Calling a scalar type with a
number converts like NumPy: float32(2.0) is numpy.float32(2.0).

The classes are Numba's, for the typing functions of pyjit.extending.overload:
isinstance(t, Integer / Float / Complex / Boolean / Number / Array / Tuple / UniTuple / List /
NoneType / Literal (IntegerLiteral, StringLiteral, BooleanLiteral) / Omitted; NamedTuple /
NamedUniTuple, with .fields), with t.dtype, t.ndim, t.layout on arrays, t.dtype (the item
type) on lists, t.bitwidth and t.signed on integers, t.count on tuples, t.literal_value on
literals (literal(value), unliteral(t)).
"""

__all__ = [
    "Type", "Scalar", "Array", "Tuple", "UniTuple", "NamedTuple", "NamedUniTuple", "List",
    "BaseTuple", "BaseNamedTuple", "BaseAnonymousTuple",
    "ListType", "Dict", "DictType", "Set", "DType", "NumberClass", "Record", "NPDatetime",
    "NPTimedelta", "NoneType", "IteratorType", "UnicodeCharSeq", "NestedArray",
    "ClassInstanceType", "ClassType", "StructRef", "unliteral",
    "Signature",
    "Number", "Boolean", "Integer", "Float", "Complex", "Omitted", "Literal", "StringLiteral", "BooleanLiteral",
    "IntegerLiteral", "literal", "maybe_literal",
    "UnicodeType", "unicode_type", "CPointer", "RawPointer", "voidptr", "FunctionType", "Optional",
    "WrapperAddressProtocol",
    "optional", "NumPyRandomGeneratorType", "numpy_random_generator",
    "bool_", "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "intp", "uintp", "float16", "float32", "float64", "complex64", "complex128", "void", "none",
    "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16",
    "byte", "intc", "uintc", "int_", "uint", "float_", "double", "short", "ushort", "longlong",
    "ulonglong",
]


class Type:
    """A pyjit type; equal types have equal canonical names."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, Type) and other.name == self.name

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.name)

    def __call__(self, *args):
        """Type(arg types...) is a signature returning this type."""
        return Signature(self, tuple(_as_type(a) for a in args))


def _wrap_int(value, kind, bits):
    """A Python int's low bits as an int of that kind and width: uint64(-1) is 2**64 - 1 and
    int32(2**31) is -2**31, as a conversion in compiled code (and on the GPU) gives them."""
    value &= (1 << bits) - 1
    if kind == "i" and value >> (bits - 1):
        value -= 1 << bits
    return value


class Scalar(Type):
    """bool, the ints, the floats and the complex types."""

    __slots__ = ("kind", "bitwidth")

    def __init__(self, name, kind, bitwidth):
        super().__init__(name)
        self.kind = kind            # 'b', 'i', 'u', 'f', 'c' as NumPy's dtype.kind
        self.bitwidth = bitwidth

    def __call__(self, *args):
        """float32(float64, int64) is a signature; float32(2.0) converts as NumPy does."""
        if not args or all(isinstance(a, (Type, str)) for a in args):
            return super().__call__(*args)
        if len(args) != 1:
            raise TypeError(f"{self.name}() converts one value, got {len(args)}")
        import numpy as np
        value = args[0]
        if self.kind in "iu" and isinstance(value, int) and value is not True and value is not False:
            value = _wrap_int(value, self.kind, self.bitwidth)   # as compiled code converts
        return getattr(np, "bool_" if self.name == "bool" else self.name)(value)

    def __getitem__(self, index):
        """float64[:], float64[:, ::1] (C), float64[::1, :] (F): array types."""
        return Array(self, *_layout_of(index, self.name))

    @property
    def dtype(self):
        import numpy as np
        return np.dtype("bool" if self.name == "bool" else self.name)


class Array(Type):
    """A NumPy array type: dtype, ndim, layout ('C', 'F' or 'A'), readonly."""

    __slots__ = ("dtype", "ndim", "layout", "readonly")

    def __init__(self, dtype, ndim, layout="A", readonly=False):
        dtype = _as_type(dtype)
        if not isinstance(dtype, (Scalar, Record, NPDatetime, NPTimedelta, UnicodeCharSeq)):
            raise TypeError(f"Array dtype must be a scalar, record, datetime or unicode type, "
                            f"not {dtype!r}")
        if not isinstance(ndim, int) or not 0 <= ndim <= 32:
            raise TypeError(f"Array ndim must be an int from 0 to 32, not {ndim!r}")
        if layout not in ("C", "F", "A"):
            raise TypeError(f"Array layout must be 'C', 'F' or 'A', not {layout!r}")
        ro = ", readonly" if readonly else ""
        super().__init__(f"array({dtype.name}, {ndim}d, {layout}{ro})")
        self.dtype, self.ndim, self.layout, self.readonly = dtype, ndim, layout, bool(readonly)

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
        return Array(self.dtype if dtype is None else dtype, self.ndim if ndim is None else ndim,
                     self.layout if layout is None else layout,
                     self.readonly if readonly is None else readonly)


class NestedArray(Array):
    """An array held inside a record (Numba's types.NestedArray): NestedArray(dtype=float32,
    shape=(7,)), a field type for Record.make_c_struct; read from a record it is a C array."""

    __slots__ = ("shape",)

    def __init__(self, dtype, shape):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if not shape or not all(isinstance(n, int) and n > 0 for n in shape):
            raise TypeError(f"NestedArray shape must be positive ints, not {shape!r}")
        super().__init__(dtype, len(shape), "C")
        self.shape = shape


class List(Type):
    """A list type: List(float64), its items' type in .dtype (Numba's types.List). Lists passed
    in from Python are reflected (Numba's reflected list): reflected is accepted for Numba's
    spelling and changes nothing."""

    __slots__ = ("dtype", "reflected")

    def __init__(self, dtype, reflected=False):
        dtype = _as_type(dtype)
        if not isinstance(dtype, Type):
            raise TypeError(f"List item type must be a type, not {dtype!r}")
        super().__init__(f"list({dtype.name})")
        self.dtype, self.reflected = dtype, bool(reflected)

    @property
    def item_type(self):
        return self.dtype

    # Numba's types.List.initial_value: the literal a list was made from, when its typing kept
    # it. pyjit types containers without their values, so it is always None (and a typing
    # function asking for literal dispatch with literally() is refused, pyjit.extending).
    initial_value = None


class ListType(List):
    """A typed list type: ListType(float64), the type of a pyjit.typed.List (Numba's ListType);
    a List too, so what takes lists takes it. Its canonical name is typed_list(...)."""

    __slots__ = ()

    def __init__(self, itemty):
        super().__init__(itemty)
        self.name = f"typed_list({self.dtype.name})"

    def __repr__(self):
        return f"ListType[{self.dtype!r}]"
class Dict(Type):
    """A dict type: Dict(int64, float64), its key and value types in .key_type and .value_type
    (Numba's types.DictType). Dicts cross to Python as pyjit.typed.Dict."""

    __slots__ = ("key_type", "value_type")

    def __init__(self, key_type, value_type):
        key_type, value_type = _as_type(key_type), _as_type(value_type)
        if not isinstance(key_type, Type) or not isinstance(value_type, Type):
            raise TypeError(f"Dict key and value types must be types, not {key_type!r}, {value_type!r}")
        super().__init__(f"dict({key_type.name}, {value_type.name})")
        self.key_type, self.value_type = key_type, value_type

    initial_value = None   # as List.initial_value


DictType = Dict


class Set(Type):
    """A set type: Set(int64), its items' type in .dtype (Numba's types.Set). Python sets passed
    in are copied and reflected back, as lists are."""

    __slots__ = ("dtype", "reflected")

    def __init__(self, dtype, reflected=False):
        dtype = _as_type(dtype)
        if not isinstance(dtype, Type):
            raise TypeError(f"Set item type must be a type, not {dtype!r}")
        super().__init__(f"set({dtype.name})")
        self.dtype, self.reflected = dtype, bool(reflected)


class DType(Type):
    """A dtype or NumPy scalar type passed as a value (`np.float32`, `np.dtype('f4')`, as a
    dtype= argument): the scalar type it names in .dtype (Numba's DType and NumberClass)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype, name=None):
        dtype = _as_type(dtype)
        super().__init__(name or f"dtype({dtype.name})")
        self.dtype = dtype


NumberClass = DType


class NPDatetime(Type):
    """np.datetime64 of a unit ('D', 'ns', ...; '' for NumPy's generic one; Numba's
    types.NPDatetime)."""

    __slots__ = ("unit",)

    def __init__(self, unit):
        super().__init__(f"datetime64[{unit}]" if unit else "datetime64")
        self.unit = unit


class NPTimedelta(Type):
    """np.timedelta64 of a unit, '' for NumPy's generic one (Numba's types.NPTimedelta)."""

    __slots__ = ("unit",)

    def __init__(self, unit):
        super().__init__(f"timedelta64[{unit}]" if unit else "timedelta64")
        self.unit = unit


class UnicodeCharSeq(Type):
    """NumPy's unicode dtype 'U<count>' as an array's dtype (Numba's types.UnicodeCharSeq): an
    element read in compiled code is a str, a str stored is cut or padded to count characters."""

    __slots__ = ("count",)

    def __init__(self, count):
        if not isinstance(count, int) or count < 1:
            raise TypeError(f"UnicodeCharSeq count must be a positive int, not {count!r}")
        super().__init__(f"unicode_charseq({count})")
        self.count = count


class Record(Type):
    """An item of a NumPy structured dtype (Numba's types.Record): .fields maps each field's name
    to (type, offset), a subarray field's type being a C-contiguous Array of its shape's ndim;
    .size is the itemsize, .aligned whether NumPy aligned it. Made from its canonical name
    (compiler/types.h: `record(x:float64@0, v:float32[3]@8, size=24)`)."""

    __slots__ = ("fields", "size", "aligned")

    def __init__(self, name):
        super().__init__(name)
        self.fields, self.size, self.aligned = {}, 0, False
        for part in _split_top(name[7:-1]):
            if part.startswith("size="):
                self.size = int(part[5:])
            elif part == "aligned":
                self.aligned = True
            else:
                field, rest = part.split(":", 1)
                typename, offset = rest.rsplit("@", 1)
                ndim = 0
                if typename.endswith("]"):
                    typename, dims = typename[:-1].rsplit("[", 1)
                    ndim = len(dims.split(","))
                item = _from_canonical(typename)
                self.fields[field] = (Array(item, ndim, "C") if ndim else item, int(offset))

    def __getitem__(self, index):
        """record[:, :]: the array type of these records, as a scalar type's [:] is."""
        return Array(self, *_layout_of(index, "Record"))

    @classmethod
    def make_c_struct(cls, name_types):
        """The record of a C struct of these (name, type) fields, laid out as a C compiler does
        (Numba's Record.make_c_struct): the types are scalars or NestedArray(dtype, shape)."""
        import numpy as np
        spec = []
        for name, t in name_types:
            t = _as_type(t)
            if isinstance(t, NestedArray):
                spec.append((name, t.dtype.dtype, t.shape))
            elif isinstance(t, Scalar):
                spec.append((name, t.dtype))
            else:
                raise TypeError(f"Record.make_c_struct: field {name!r} is {t!r}; fields are "
                                "scalar types or NestedArray(dtype, shape)")
        return from_dtype(np.dtype(spec, align=True))


class Tuple(Type):
    """A tuple type: Tuple((float64, int64)); a homogeneous one also has dtype and count."""

    __slots__ = ("types",)

    def __init__(self, types):
        self.types = tuple(_as_type(t) for t in types)
        super().__init__("tuple(" + ", ".join(t.name for t in self.types) + ")")

    @property
    def count(self):
        return len(self.types)

    @property
    def dtype(self):
        if len(set(self.types)) != 1:
            raise AttributeError("a heterogeneous tuple has no single dtype")
        return self.types[0]

    def __len__(self):
        return len(self.types)

    def __iter__(self):
        return iter(self.types)

    def __getitem__(self, i):
        return self.types[i]


class UniTuple(Tuple):
    """A homogeneous tuple type: UniTuple(float64, 3); also what a typing function receives for a
    tuple whose items share one type (as in Numba)."""

    __slots__ = ()

    def __init__(self, dtype, count):
        if not isinstance(count, int) or count < 0:
            raise TypeError(f"UniTuple count must be a non-negative int, not {count!r}")
        super().__init__((dtype,) * count)


def _fields_and_name(fields, cls_name):
    """A namedtuple type's field names and class name: given as such, or (Numba's form,
    types.NamedTuple(types, cls)) read from the namedtuple class."""
    if cls_name is not None:
        return fields, cls_name
    if not (isinstance(fields, type) and issubclass(fields, tuple) and hasattr(fields, "_fields")):
        raise TypeError(f"a namedtuple type takes the namedtuple class (as Numba's "
                        f"types.NamedTuple(types, cls)), not {fields!r}")
    return fields._fields, fields.__name__


def _intern_namedtuple(t, cls):
    """Makes the compiler know the type t of class cls by its name, so that a signature can name
    it before any value of it has been typed."""
    from . import _core
    t.name = _core.namedtuple_type(cls, tuple(item.name for item in t.types))


class NamedTuple(Tuple):
    """A namedtuple type (Numba's NamedTuple): a Tuple with its class's name and its fields'
    names; NamedUniTuple when the items share one type. Named "Point(x=float64, y=float64)"."""

    __slots__ = ("fields",)

    def __init__(self, types, fields, cls_name=None):
        cls = fields if cls_name is None else None
        fields, cls_name = _fields_and_name(fields, cls_name)
        super().__init__(types)
        self.fields = tuple(fields)
        self.name = f"{cls_name}(" + ", ".join(f"{f}={t.name}" for f, t in zip(fields, self.types)) + ")"
        if cls is not None:
            _intern_namedtuple(self, cls)


class NamedUniTuple(UniTuple):
    """A namedtuple type whose items share one type (Numba's NamedUniTuple)."""

    __slots__ = ("fields",)

    def __init__(self, dtype, count, fields, cls_name=None):
        cls = fields if cls_name is None else None
        fields, cls_name = _fields_and_name(fields, cls_name)
        super().__init__(dtype, count)
        self.fields = tuple(fields)
        self.name = f"{cls_name}(" + ", ".join(f"{f}={dtype.name}" for f in fields) + ")"
        if cls is not None:
            _intern_namedtuple(self, cls)


class _Kinds(type):
    """The metaclass of Numba's abstract tuple classes: isinstance() against the pyjit classes
    they stand for."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._of) and not isinstance(obj, cls._not)


class BaseTuple(metaclass=_Kinds):
    """Numba's types.BaseTuple, for typing functions: any tuple type, named or not."""
    _of, _not = (Tuple,), ()


class BaseNamedTuple(metaclass=_Kinds):
    """Numba's types.BaseNamedTuple: a namedtuple type (NamedTuple or NamedUniTuple)."""
    _of, _not = (NamedTuple, NamedUniTuple), ()


class BaseAnonymousTuple(metaclass=_Kinds):
    """Numba's types.BaseAnonymousTuple: a tuple type that is not a namedtuple's."""
    _of, _not = (Tuple,), (NamedTuple, NamedUniTuple)


def _namedtuple_type(name):
    """The type a namedtuple's canonical name names, or None if name is not one."""
    head, _, rest = name.partition("(")
    own, _, number = head.partition("#")   # Point#2: a second class named Point (types.c)
    if not own.isidentifier() or (number and not number.isdigit()) or not rest.endswith(")"):
        return None
    parts = [p.partition("=") for p in _split_top(rest[:-1])]
    if not all(f.isidentifier() and eq for f, eq, _ in parts):
        return None
    fields = [f for f, _, _ in parts]
    items = [_from_canonical(t.strip()) for _, _, t in parts]
    if items and len(set(items)) == 1:
        return NamedUniTuple(items[0], len(items), fields, head)
    return NamedTuple(items, fields, head)


class ClassInstanceType(Type):
    """The type of the instances of a jitclass (pyjit.experimental.jitclass): Bag.class_type.
    instance_type, what a spec names to give a field another jitclass's instances, and what
    typed.List.empty_list takes for a list of them. Its canonical name, instance(Bag@1), names
    one class of the process."""

    __slots__ = ("class_name", "struct", "jit_class")

    def __init__(self, name, class_name, struct, jit_class):
        super().__init__(name)
        self.class_name, self.struct, self.jit_class = class_name, struct, jit_class
        _CLASS_TYPES[name] = self

    def __repr__(self):
        return f"instance.jitclass.{self.class_name}({', '.join(f'{k}:{v!r}' for k, v in self.struct.items())})"

    __str__ = __repr__


_CLASS_TYPES = {}   # canonical name -> the ClassInstanceType of that jitclass


class ClassType(Type):
    """Bag.class_type, as Numba's: the class's name, its fields (struct: name -> type), its
    methods (the Python functions) and instance_type. Its name is its instance type's, so that
    compiled code may spell Bag.class_type.instance_type too."""

    __slots__ = ("class_name", "struct", "methods", "instance_type")

    def __init__(self, instance_type, methods):
        super().__init__(instance_type.name)
        self.class_name, self.struct = instance_type.class_name, instance_type.struct
        self.methods, self.instance_type = methods, instance_type

    def __repr__(self):
        return f"jitclass.{self.class_name}"

    __str__ = __repr__


class StructRef(Type):
    """The base of a structref type (pyjit.experimental.structref, Numba's types.StructRef): a
    subclass, registered with structref.register, is instantiated with the (name, type) fields a
    constructor call gives; preprocess_fields may change them first. Each set of field types is
    one instance type of the proxy class (a jitclass's kind), whose canonical name this takes."""

    def __init__(self, fields):
        fields = tuple(self.preprocess_fields(tuple(fields)))
        super().__init__(f"structref({', '.join(f'{n}: {t.name}' for n, t in fields)})")
        self._fields = fields

    def preprocess_fields(self, fields):
        return fields

    @property
    def field_dict(self):
        return dict(self._fields)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{n}: {t!r}' for n, t in self._fields)})"


def unliteral(t):
    """Numba's types.unliteral: a literal's type without its value (str for a string constant,
    int64 for an int one, bool for True/False); any other type as it is."""
    return t.literal_type if isinstance(t, Literal) and hasattr(t, "literal_type") else t


def literal(value):
    """Numba's types.literal: the literal type of a Python int, str or bool."""
    if value is True or value is False:   # (the module rebinds the name bool)
        return BooleanLiteral(value)
    if isinstance(value, int):
        return IntegerLiteral(value)
    if isinstance(value, str):
        return StringLiteral(value)
    from .errors import LiteralTypingError
    raise LiteralTypingError(f"{type(value).__name__} cannot be used as a literal: pyjit has "
                             "literal types of int, str and bool values")


def maybe_literal(value):
    """Numba's types.maybe_literal: types.literal(value), or None where it has none."""
    try:
        return literal(value)
    except Exception:   # noqa: BLE001 - LiteralTypingError, or a value too big for an int64
        return None
class CPointer(Type):
    """A raw C pointer to a scalar (Numba's types.CPointer): a @cfunc's `double *` parameter,
    as scipy.LowLevelCallable passes arrays; compiled code indexes it (p[i]) or views it as an
    array with pyjit.carray(p, shape)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        dtype = _as_type(dtype)
        if not isinstance(dtype, (Scalar, Record)):
            raise TypeError(f"CPointer points to a scalar type or a record (a C struct), not "
                            f"{dtype!r}")
        super().__init__(f"cpointer({dtype.name})")
        self.dtype = dtype


class RawPointer(Type):
    """An untyped C pointer, `void *` (Numba's types.voidptr): carray(p, shape, dtype) views it."""

    __slots__ = ()


class NoneType(Type):
    __slots__ = ()


class IteratorType(Type):
    """An iterator held as a value (Numba's types.IteratorType): what zip(), enumerate() and
    iter() give, as a typing function receives it for `z = zip(a, b); list(z)`. .source is the
    type of what it walks (for zip, a tuple of iterators; for enumerate, an iterator)."""

    __slots__ = ("source",)

    def __init__(self, source):
        source = _as_type(source)
        super().__init__(f"iter({source.name})")
        self.source = source


class Optional(Type):
    """A value of .type or None (Numba's types.Optional, also spelled types.optional): what
    compiled code gives a variable that is None on one path; a typing function receives it for
    such an argument, and a signature may declare one (optional(float64))."""

    __slots__ = ("type",)

    def __init__(self, typ):
        typ = _as_type(typ)
        super().__init__(f"optional({typ.name})")
        self.type = typ


optional = Optional   # Numba's other spelling


class DeferredType(Type):
    """A type named before it exists (Numba's types.deferred_type()): a jitclass field of the
    class's own type, for linked lists and trees, is declared optional(node_type) with node_type
    = deferred_type(), and node_type.define(Cls.class_type.instance_type) once the class is
    made. Fields declared with it are given their type then (pyjit/experimental/_jitclass.py)."""

    __slots__ = ("_defined", "_pending")
    _count = 0

    def __init__(self):
        DeferredType._count += 1
        super().__init__(f"deferred#{DeferredType._count}")
        self._defined = None
        self._pending = []

    def define(self, typ):
        typ = _as_type(typ)
        if self._defined is not None and typ != self._defined:
            raise TypeError(f"{self.name} is already defined as {self._defined!r}")
        self._defined = typ
        pending, self._pending = self._pending, []
        for resolve in pending:   # the jitclass fields declared with it
            resolve()

    def get(self):
        if self._defined is None:
            raise TypeError(f"{self.name} is not defined yet: call its define() first")
        return self._defined

    def when_defined(self, resolve):
        """resolve() now if the type is defined, else once define() is called."""
        if self._defined is None:
            self._pending.append(resolve)
        else:
            resolve()


deferred_type = DeferredType   # Numba's spelling


class Omitted(Type):
    """An argument left out, whose default value is value (Numba's types.Omitted)."""

    __slots__ = ("value",)

    def __init__(self, value):
        super().__init__(f"omitted(default={value!r})")
        self.value = value


class Literal(Type):
    """A value known when compiling, as an overload's typing function sees a constant argument
    (Numba's types.Literal): literal_value is the value, literal_type the type of values like
    it. IntegerLiteral, StringLiteral and BooleanLiteral are its kinds; types.literal(value)
    makes one."""

    __slots__ = ()

    def __init__(self, value):
        super().__init__(f"Literal[{type(value).__name__}]({value!r})")
        self.literal_value = value


class StringLiteral(Literal):
    """A string constant in compiled code (side='left'), known when compiling."""

    __slots__ = ("literal_value",)

    @property
    def literal_type(self):
        return unicode_type


class UnicodeType(Type):
    """The type of run-time strings (Numba's unicode_type): arguments, and strings made by
    compiled code."""

    __slots__ = ()


unicode_type = UnicodeType("str")   # its canonical name: what the C side parses


class NumPyRandomGeneratorType(Type):
    """A np.random.Generator (Numba's name), whatever its BitGenerator: passed in from Python, or
    made by np.random.default_rng in compiled code."""

    __slots__ = ()


numpy_random_generator = NumPyRandomGeneratorType("Generator")


class WrapperAddressProtocol:
    """A C function at an address, as Numba's types.WrapperAddressProtocol: a subclass defines
    __wrapper_address__() (the address) and signature() (a Signature of numbers, e.g.
    float64(float64, float64)); compiled code calls an instance as it calls a ctypes function
    (pyjit/_ffi.py). Libraries wrap scipy.special's C functions this way, addresses from
    get_cython_function_address."""

    _pyjit_cfunc = True   # frontend/consts.c: a C function, which pyjit._ffi.describe reads

    def __wrapper_address__(self):
        raise NotImplementedError(f"{type(self).__name__} defines no __wrapper_address__()")

    def signature(self):
        raise NotImplementedError(f"{type(self).__name__} defines no signature()")

    def _pyjit_describe(self):
        from ._ffi import _c_type_ok
        name = type(self).__name__
        sig = parse_signature(self.signature())
        if sig.return_type is None or not all(
                _c_type_ok(t) for t in sig.args) or not _c_type_ok(sig.return_type, True):
            raise TypeError(f"{name}: the signature {sig!r} of a WrapperAddressProtocol takes "
                            "numbers and pointers, and returns one or none")
        names = (sig.return_type.name,) + tuple(t.name for t in sig.args)
        return name, int(self.__wrapper_address__()), "|".join(names)


class FunctionType(Type):
    """A first-class function of one signature (Numba's types.FunctionType): a parameter of
    this type takes any @njit function, compiled for that signature and called through its
    address, and a tuple of @njit functions that each declare that one signature is a tuple of
    them, so funcs[i](x) picks one at run time. FunctionType(float64(float64)) or
    FunctionType('float64(float64)')."""

    __slots__ = ("signature",)

    def __init__(self, signature):
        sig = parse_signature(signature)
        if sig.return_type is None:
            raise TypeError(f"FunctionType needs a return type: {signature!r}")
        super().__init__(f"function_type({sig!r})")
        self.signature = sig

    def __repr__(self):
        return f"FunctionType[{self.signature!r}]"

    __str__ = __repr__


class WrapperAddressProtocol:
    """Numba's types.WrapperAddressProtocol: an object that gives the address of a C function
    (__wrapper_address__()) and its signature (signature(), a Signature or a string such as
    'float64(float64)'). Passed to compiled code it is called as that C function, as ctypes
    and cffi functions are (pyjit._ffi.describe reads it through _pyjit_describe)."""

    _pyjit_cfunc = True   # marks the class for frontend/consts.c: a C function compiled code calls

    def __wrapper_address__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __wrapper_address__()")

    def signature(self):
        raise NotImplementedError(f"{type(self).__name__} must define signature()")

    def _pyjit_describe(self):
        sig = parse_signature(self.signature())
        if sig.return_type is None:
            raise TypeError(f"{type(self).__name__}.signature() must give a return type, not "
                            f"{sig!r}")
        address = int(self.__wrapper_address__())
        names = [sig.return_type.name] + [a.name for a in sig.args]
        return type(self).__name__, address, "|".join(names)


class Signature:
    """A function signature: return_type (None when inferred) and args (a tuple of types)."""

    __slots__ = ("return_type", "args")

    def __init__(self, return_type, args):
        self.return_type = None if return_type is None else _as_type(return_type)
        self.args = tuple(_as_type(a) for a in args)

    def __repr__(self):
        ret = self.return_type.name if self.return_type is not None else ""
        return f"{ret}({', '.join(a.name for a in self.args)})"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, Signature) and (other.return_type, other.args) == (self.return_type, self.args)

    def __hash__(self):
        return hash((self.return_type, self.args))


def _layout_of(index, name):
    """(ndim, layout) of the subscript in float64[...]: ':' per axis, '::1' on the contiguous one."""
    axes = index if isinstance(index, tuple) else (index,)
    if not axes or not all(isinstance(a, slice) and a.start is None and a.stop is None
                           and a.step in (None, 1) for a in axes):
        raise TypeError(f"{name}[...] takes ':' or '::1' per axis, e.g. {name}[:, ::1]; got {index!r}")
    unit = [i for i, a in enumerate(axes) if a.step == 1]
    if not unit:
        return len(axes), "A"
    if unit == [len(axes) - 1]:
        return len(axes), "C"
    if unit == [0]:
        return len(axes), "F"
    raise TypeError(f"{name}[...]: '::1' goes on the first axis (F) or the last (C), got {index!r}")


# ---- the types ----

class Number(Scalar):
    """The integer, float and complex types."""

    __slots__ = ()


class Boolean(Scalar):
    __slots__ = ()


class BooleanLiteral(Literal, Boolean):
    """The constant True or False written in the code, as a typing function sees it: equal to
    bool (so tests written for bool accept it), its value in literal_value, for the options
    that fix the result's type (keepdims=True)."""

    __slots__ = ("literal_value",)

    def __init__(self, value):
        Boolean.__init__(self, "bool", "b", 8)
        self.literal_value = value is True   # (the module rebinds the name bool)

    @property
    def literal_type(self):
        return boolean


class Integer(Number):
    __slots__ = ()

    @property
    def signed(self):
        return self.kind == "i"


class IntegerLiteral(Literal, Integer):
    """An int constant as a typing function sees it (Numba's types.IntegerLiteral, named
    Literal[int](3)): an Integer of int64's width whose value is literal_value; not equal to
    int64, which types.unliteral gives (a weak int64, as for a Python int written in the code).
    A function compiled for it (literally(), prefer_literal=True) is compiled for that value."""

    __slots__ = ("literal_value",)

    def __init__(self, value):
        if value is True or value is False or not isinstance(value, int) or \
                not -2**63 <= value < 2**63:   # (the module rebinds the name bool)
            raise TypeError(f"IntegerLiteral takes an int of int64's range, not {value!r}")
        Integer.__init__(self, f"Literal[int]({value})", "i", 64)
        self.literal_value = value

    @property
    def literal_type(self):
        return _weak(int64)

    @property
    def dtype(self):
        import numpy as np
        return np.dtype("int64")


class Float(Number):
    __slots__ = ()


class Complex(Number):
    __slots__ = ()


_SCALAR_CLASSES = {"b": Boolean, "i": Integer, "u": Integer, "f": Float, "c": Complex}


def _scalar(name, kind, bits):
    return _SCALAR_CLASSES[kind](name, kind, bits)


boolean = bool_ = b1 = _scalar("bool", "b", 8)
int8 = i1 = _scalar("int8", "i", 8)
int16 = i2 = short = _scalar("int16", "i", 16)
int32 = i4 = intc = _scalar("int32", "i", 32)
int64 = i8 = intp = int_ = longlong = _scalar("int64", "i", 64)
uint8 = u1 = byte = _scalar("uint8", "u", 8)
uint16 = u2 = ushort = _scalar("uint16", "u", 16)
uint32 = u4 = uintc = _scalar("uint32", "u", 32)
uint64 = u8 = uintp = uint = ulonglong = _scalar("uint64", "u", 64)
float16 = f2 = _scalar("float16", "f", 16)
float32 = f4 = float_ = _scalar("float32", "f", 32)
float64 = f8 = double = _scalar("float64", "f", 64)
complex64 = c8 = _scalar("complex64", "c", 64)
complex128 = c16 = _scalar("complex128", "c", 128)
none = void = NoneType("none")
voidptr = RawPointer("voidptr")

_SCALARS = {t.name: t for t in (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                                float16, float32, float64, complex64, complex128)}


def _as_type(obj):
    """A Type from a Type, a type name or signature-string fragment ('f8[:]'), or a NumPy dtype."""
    if isinstance(obj, Type):
        return obj
    if obj is None:
        return none
    if isinstance(obj, tuple) and obj and all(isinstance(x, Type) for x in obj):
        # a tuple of types as an item type, List((int64, int64, float64)) (pynndescent): the
        # tuple type of those items
        return UniTuple(obj[0], len(obj)) if len(set(obj)) == 1 else Tuple(obj)
    if isinstance(obj, str):
        t = _eval_spec(obj)
        if isinstance(t, Type):
            return t
        raise TypeError(f"not a type: {obj!r}")
    name = getattr(obj, "__name__", None)
    if obj is bool or obj is int or obj is float or obj is complex:   # not `in`: a dtype == float
        return {bool: bool_, int: int64, float: float64, complex: complex128}[obj]
    try:
        import numpy as np
        dt = np.dtype(obj)
    except Exception:   # noqa: BLE001 - anything NumPy does not take is not a type
        raise TypeError(f"not a type: {obj!r}") from None
    if dt.name in _SCALARS and dt.isnative:
        return _SCALARS[dt.name]
    raise TypeError(f"not a type pyjit compiles for: {name or obj!r}")


# ---- signature strings ----

def _namespace():
    ns = {n: globals()[n] for n in __all__}
    ns.update(Array=Array, Tuple=Tuple, UniTuple=UniTuple, ListType=ListType, none=none, void=void)
    return ns


_NS = None


def _eval_spec(text):
    """Evaluates a type or signature spec in a namespace of type names only."""
    global _NS
    if _NS is None:
        _NS = _namespace()
    try:
        return eval(compile(text, "<signature>", "eval"), {"__builtins__": {}}, _NS)  # noqa: S307
    except Exception as exc:  # noqa: BLE001 - any failure means a malformed signature
        raise TypeError(f"malformed signature {text!r}: {exc}") from None


def parse_signature(spec):
    """A Signature from a string ('float64(float64[:], int64)', '(f8, i8)' with the return type
    inferred), a Signature, or a tuple of argument types."""
    if isinstance(spec, Signature):
        return spec
    value = _eval_spec(spec) if isinstance(spec, str) else spec
    if isinstance(value, Signature):
        return value
    if isinstance(value, tuple) and not isinstance(value, Type):
        try:
            return Signature(None, value)
        except TypeError as exc:
            raise TypeError(f"malformed signature {spec!r}: {exc}") from None
    if isinstance(value, Type) and isinstance(spec, str):
        raise TypeError(f"malformed signature {spec!r}: a type, not a signature (write e.g. "
                        f"'{value.name}({value.name})')")
    raise TypeError(f"malformed signature {spec!r}: expected a string like 'float64(float64, int64)', "
                    f"a Signature or a tuple of types")


def _canonical_signature(spec):
    """(argument names, return name or None), canonical: what the C dispatcher declares."""
    sig = parse_signature(spec)
    ret = sig.return_type.name if sig.return_type is not None else None
    return tuple(a.name for a in sig.args), ret


def _canonical_args(spec):
    """Canonical argument names of a signature given to inspect_*(): a tuple of types or a
    Signature or a string."""
    if isinstance(spec, (list, tuple)):
        return tuple(_as_type(a).name for a in spec)
    return tuple(a.name for a in parse_signature(spec).args)


# ---- canonical names back to type objects (the dispatcher's signatures) ----

def _split_top(text):
    """Splits 'a, tuple(b, c), d' at the top-level commas (a record's v:float32[2,3]@8 is one)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


_WEAK = {}   # name -> the weak twin of a scalar type


def _weak(t):
    """The twin of scalar type t that stands for a Python number (NEP 50's weak scalar): equal
    to t, and told apart by is_weak."""
    twin = _WEAK.get(t.name)
    if twin is None:
        twin = _WEAK[t.name] = type(t)(t.name, t.kind, t.bitwidth)
    return twin


def is_weak(t):
    """Whether a typing function's argument type is a Python number (int, float, complex, bool
    written in the code or passed from Python), which NumPy's promotion treats as weak: beside an
    array it takes the array's precision (float32 array + 2.5 stays float32)."""
    return _WEAK.get(getattr(t, "name", None)) is t or isinstance(t, BooleanLiteral)


def _from_canonical(name):
    """The Type for a canonical name ('array(float64, 2d, C)'); other kinds become a plain Type."""
    if name.startswith("weak "):
        return _weak(_from_canonical(name[5:]))
    if name.startswith("Literal[int](") and name.endswith(")"):   # a version for one value
        return IntegerLiteral(int(name[13:-1]))
    if name in ("Literal[bool](True)", "Literal[bool](False)"):
        return BooleanLiteral(name == "Literal[bool](True)")
    if name.startswith("string(") and name.endswith(")"):
        return StringLiteral(name[7:-1])
    if name in _SCALARS:
        return _SCALARS[name]
    if name == "none":
        return none
    if name == "str":
        return unicode_type
    if name == "Generator":
        return numpy_random_generator
    if name == "voidptr":
        return voidptr
    if name.startswith("cpointer(") and name.endswith(")"):
        return CPointer(_from_canonical(name[9:-1]))
    if name.startswith("array(") and name.endswith(")"):
        parts = _split_top(name[6:-1])
        readonly = len(parts) == 4 and parts[3] == "readonly"
        return Array(_from_canonical(parts[0]), int(parts[1].rstrip("d")), parts[2], readonly)
    if name.startswith("dtype(") and name.endswith(")"):
        return DType(_from_canonical(name[6:-1]), name)
    if name.startswith("record(") and name.endswith(")"):
        return Record(name)
    if name == "datetime64" or (name.startswith("datetime64[") and name.endswith("]")):
        return NPDatetime(name[11:-1])
    if name == "timedelta64" or (name.startswith("timedelta64[") and name.endswith("]")):
        return NPTimedelta(name[12:-1])
    if name.startswith("function(numpy.") and name.endswith(")"):   # np.float32 as a value
        try:
            import numpy as np
            scalar = _SCALARS.get(np.dtype(getattr(np, name[15:-1])).name)
        except (AttributeError, TypeError):
            scalar = None
        return DType(scalar, name) if scalar is not None else Type(name)
    if name.startswith("function_type(") and name.endswith(")"):
        return FunctionType(name[14:-1])
    if name.startswith("list(") and name.endswith(")"):
        return List(_from_canonical(name[5:-1]))
    if name.startswith("typed_list(") and name.endswith(")"):
        return ListType(_from_canonical(name[11:-1]))
    if name.startswith("optional(") and name.endswith(")"):
        return Optional(_from_canonical(name[9:-1]))
    if name.startswith("unicode_charseq(") and name.endswith(")"):
        return UnicodeCharSeq(int(name[16:-1]))
    if name.startswith("iter(") and name.endswith(")"):
        return IteratorType(_from_canonical(name[5:-1]))
    if name.startswith("set(") and name.endswith(")"):
        return Set(_from_canonical(name[4:-1]))
    if name.startswith("dict(") and name.endswith(")"):
        key, value = _split_top(name[5:-1])
        return Dict(_from_canonical(key), _from_canonical(value))
    if name.startswith("tuple(") and name.endswith(")"):
        items = tuple(_from_canonical(p) for p in _split_top(name[6:-1]))
        if items and len(set(items)) == 1:
            return UniTuple(items[0], len(items))
        return Tuple(items)
    if name in _CLASS_TYPES:
        return _CLASS_TYPES[name]
    return _namedtuple_type(name) or Type(name)


# ---- from values and dtypes (numba.typeof, numba.from_dtype) ----

def typeof(value):
    """The type compiled code gives `value` passed as an argument (numba.typeof): a Python int is
    int64, a float float64, an array Array(dtype, ndim, layout). A value compiled code does not
    take is a ValueError, as in Numba."""
    from . import _core
    try:
        name = _core.typeof(value)
    except TypeError as exc:
        raise ValueError(f"cannot determine the pyjit type of {type(value).__name__}: {exc}") \
            from None
    return _from_canonical(name[5:] if name.startswith("weak ") else name)


def from_dtype(dtype):
    """The scalar type of a NumPy dtype (numba.from_dtype): from_dtype(np.float32) is float32."""
    import numpy as np
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"from_dtype() takes a NumPy dtype, got {dtype!r}: {exc}") from None
    if dt.name in _SCALARS and dt.isnative:
        return _SCALARS[dt.name]
    if dt.names is not None:
        from pyjit._records import type_name
        name = type_name(dt)
        if name is not None:
            return Record(name)
    if dt.kind in "mM" and dt.isnative:
        unit, count = np.datetime_data(dt)
        if count == 1 and unit in ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "generic"):
            unit = "" if unit == "generic" else unit
            return NPDatetime(unit) if dt.kind == "M" else NPTimedelta(unit)
    raise NotImplementedError(f"from_dtype({dt!r}): pyjit compiles for native bool, integer, "
                              "float, complex, datetime64 and timedelta64 dtypes, and structured "
                              "dtypes of these")


def as_dtype(t):
    """The NumPy dtype of a scalar type (numba.np.numpy_support.as_dtype)."""
    t = _as_type(t)
    if not isinstance(t, Scalar):
        raise NotImplementedError(f"as_dtype({t!r}): only scalar types have a NumPy dtype")
    return t.dtype


# Numba's other spellings of the same types (numba.types.char is int8, size_t is uint64, ...)
char = int8
uchar = uint8
long_ = ssize_t = int64
ulong = size_t = uint64
string = unicode_type
globals()["bool"] = boolean   # numba.types.bool; a plain assignment would shadow bool above
__all__ += ["DeferredType", "deferred_type", "typeof", "from_dtype", "as_dtype", "char", "uchar", "long_", "ssize_t", "ulong",
            "size_t", "string", "bool"]

# Numba type names pyjit does not have: a clear AttributeError naming what is missing (hasattr
# still answers False)
_NOT_IN_PYJIT = ("EnumMember", "IntEnumMember", "Generator", "Dispatcher", "pyobject", "ffi", "Bytes", "CharSeq",
                 "Buffer", "MemoryView",
                 "RawPointer", "ExternalFunction", "ExternalFunctionPointer",
                 "EphemeralArray")


def __getattr__(name):
    if name in _NOT_IN_PYJIT:
        raise AttributeError(f"pyjit.types has no {name}: Numba's type of that name has no "
                             "counterpart in pyjit yet (docs/numba.md lists what ports)")
    raise AttributeError(f"module 'pyjit.types' has no attribute '{name}'")
