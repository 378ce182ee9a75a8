"""Python's operator module called from compiled code (`operator.add(a, b)`, `operator.lt`,
`operator.getitem`, `operator.iadd`, ...): each function is the operator it names, compiled as
that operator is, so it takes what the operator takes and raises what it raises."""
import operator

from .. import types
from ..extending import overload

_BINARY = {
    "add": "a + b", "sub": "a - b", "mul": "a * b", "truediv": "a / b", "floordiv": "a // b",
    "mod": "a % b", "pow": "a ** b", "lshift": "a << b", "rshift": "a >> b", "and_": "a & b",
    "or_": "a | b", "xor": "a ^ b", "matmul": "a @ b", "lt": "a < b", "le": "a <= b",
    "eq": "a == b", "ne": "a != b", "gt": "a > b", "ge": "a >= b", "is_": "a is b",
    "is_not": "a is not b", "contains": "b in a", "concat": "a + b", "getitem": "a[b]",
}
_UNARY = {
    "neg": "-a", "pos": "+a", "invert": "~a", "inv": "~a", "not_": "not a", "truth": "bool(a)",
    "abs": "abs(a)", "index": "int(a)",
}
_INPLACE = {
    "iadd": "+=", "isub": "-=", "imul": "*=", "itruediv": "/=", "ifloordiv": "//=", "imod": "%=",
    "ipow": "**=", "ilshift": "<<=", "irshift": ">>=", "iand": "&=", "ior": "|=", "ixor": "^=",
    "imatmul": "@=", "iconcat": "+=",
}

# What these functions take: the values the operators are compiled for (a jitclass or structref
# operand is left to its own overloads of the operator function, when there are any).
_VALUES = (types.Number, types.Boolean, types.Array, types.UnicodeType, types.Tuple,
           types.UniTuple, types.List, types.Set, types.Dict, types.NoneType,
           types.NPDatetime, types.NPTimedelta, types.Literal, types.StringLiteral)


def _define(name, params, body):
    """Registers operator.<name>: a typing function and an implementation of the same
    parameters, the implementation's body the operator's own text."""
    ns = {"_VALUES": _VALUES, "__name__": __name__}
    exec(f"def impl({params}):\n    {body}\n\n"  # noqa: S102
         f"def _{name}({params}):\n"
         f"    if all(isinstance(x, _VALUES) for x in ({params},)):\n"
         f"        return impl\n", ns)
    overload(getattr(operator, name))(ns[f"_{name}"])


for _name, _expr in _BINARY.items():
    _define(_name, "a, b", f"return {_expr}")
for _name, _expr in _UNARY.items():
    _define(_name, "a", f"return {_expr}")
for _name, _op in _INPLACE.items():
    _define(_name, "a, b", f"a {_op} b\n    return a")
_define("setitem", "a, b, c", "a[b] = c")
