"""pyjit._objmode: `with objmode(...)` blocks, run by the interpreter inside compiled code.

    @njit
    def f(a):
        with objmode(t='float64', b='float64[:]'):   # the body runs in Python
            t = time.perf_counter()
            b = scipy.special.erf(a)
        return b * t

Numba's objmode: the block may use any Python; the variables of the function it reads are
handed to it (boxed as a compiled function's results are), and the variables named in
objmode(...) are brought back, converted to the types given (type strings as in signatures, or
pyjit type objects); a value that does not convert is a TypeError naming the variable. Other
variables the block assigns stay in it. An exception in the block propagates through the
compiled code as it was raised.

A function whose code mentions objmode is rewritten once, at decoration, from its source (as
pyjit/_parallel.py outlines prange loops): each such `with` statement becomes a call of an
ObjModeCall wrapping the block as a Python function of the variables it reads, which returns
the outputs; the compiler lowers that call to runtime/objmode.c. Code holding a block is not
cached on disk (the block is a Python object of this process).
"""
import ast
import sys

from . import types
from ._parallel import (
    _cell_full, _names, _source_tree, chunksize_block, chunksize_test, set_parallel_chunksize,
)
from .errors import UnsupportedError

_PREFIX = "_pj_objmode_"


class objmode:
    """`with objmode(x='float64[:]', n='int64'):` runs the block in the interpreter inside a
    compiled function (Numba's objmode). Run by the interpreter itself, it does nothing."""

    def __init__(self, **outputs):
        self.outputs = outputs

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_PLAIN = {"float64": float, "int64": int, "bool": bool, "complex128": complex}


class ObjModeCall:
    """One outlined block: calls it with the values of the variables it reads and returns its
    outputs as a tuple, each converted to its declared type (what runtime/objmode.c unboxes)."""

    _pyjit_objmode = True   # what frontend/consts.c looks for

    def __init__(self, block, names, declared, line, qualname):
        self.block = block
        self.names = names
        self.declared = declared
        self.line = line
        self.__qualname__ = qualname
        self.outputs_type = types.Tuple(tuple(declared)).name
        # per output, the Python class whose values need no conversion (None: always convert)
        self.exact = tuple(_PLAIN.get(t.name) for t in declared)

    def __call__(self, *args):
        values = self.block(*args)
        for v, k in zip(values, self.exact):
            if type(v) is not k:
                return tuple(_convert(v, t, name, self.line)
                             for v, t, name in zip(values, self.declared, self.names))
        return values   # Python floats for float64, ints for int64...: nothing to convert

    def __repr__(self):
        return f"<objmode block at line {self.line} of {self.__qualname__}>"


def _convert(value, t, name, line):
    """value as the declared type t, or TypeError."""
    import numpy as np
    what = f"objmode output '{name}' (line {line})"
    if isinstance(t, types.Array):
        ok = isinstance(value, np.ndarray) and value.dtype == t.dtype.dtype and value.ndim == t.ndim
        if ok and t.layout == "C" and not value.flags.c_contiguous:
            ok = False
        if ok and t.layout == "F" and not value.flags.f_contiguous:
            ok = False
        if not ok:
            got = (f"array({value.dtype}, {value.ndim}d)" if isinstance(value, np.ndarray)
                   else type(value).__name__)
            raise TypeError(f"{what} is declared {t} but the block gave {got}")
        if not t.readonly and not value.flags.writeable:
            raise TypeError(f"{what} is declared {t} but the block gave a read-only array")
        return value
    if isinstance(t, types.Scalar):
        numeric = isinstance(value, (bool, int, float, complex, np.generic)) and \
            not isinstance(value, (np.str_, np.bytes_, np.void))
        if not numeric or (isinstance(value, (complex, np.complexfloating)) and t.kind != "c"):
            raise TypeError(f"{what} is declared {t} but the block gave {type(value).__name__}")
        return t.dtype.type(value)
    from . import _core
    try:
        got = _core.typeof(value)
    except TypeError:
        got = type(value).__name__
    if got != t.name:
        raise TypeError(f"{what} is declared {t} but the block gave {got}")
    return value


def _output_type(spec, name):
    t = types._as_type(spec) if isinstance(spec, (str, types.Type)) else None
    if t is None:   # a Numba type object: by its name, which pyjit spells alike for numbers
        try:
            t = types._as_type(str(spec))
        except TypeError:
            t = None
    if t is None:
        raise TypeError(f"objmode: the type of '{name}' must be a type string ('float64[:]') or "
                        f"a pyjit type, not {spec!r}")
    if isinstance(t, types.List) and not isinstance(t, types.ListType):
        raise TypeError(f"objmode: '{name}' cannot be a reflected list ({t}): use an array or "
                        f"a typed List (types.ListType)")
    if isinstance(t, types.Tuple) and not all(isinstance(i, types.Scalar) for i in t):
        raise TypeError(f"objmode: '{name}' cannot be brought back as {t}: a tuple of numbers "
                        f"can, arrays are brought back one variable each")
    if isinstance(t, (types.NoneType, types.CPointer, types.RawPointer, types.Set)):
        raise TypeError(f"objmode: '{name}' cannot be brought back as {t}")
    return t


# ---- the rewrite -----------------------------------------------------------------------------

def mentions_objmode(func, names=("objmode",)):
    """Whether the function's code (or a nested one's) names objmode (or another of names):
    only those are read."""
    stack = [func.__code__]
    while stack:
        code = stack.pop()
        if any(n in code.co_names or n in code.co_freevars for n in names):
            return True
        stack.extend(c for c in code.co_consts if hasattr(c, "co_names"))
    return False


def _objmode_test(func):
    """Whether a with item's expression is objmode(...) or objmode (pyjit's or Numba's)."""
    numba = sys.modules.get("numba")
    known = {objmode} | ({getattr(numba, "objmode", None)} - {None} if numba else set())
    closure = dict(zip(func.__code__.co_freevars, (c.cell_contents for c in func.__closure__ or ())))

    def value_of(expr):
        if isinstance(expr, ast.Name):
            return closure.get(expr.id, func.__globals__.get(expr.id))
        if isinstance(expr, ast.Attribute):
            base = value_of(expr.value)
            return getattr(base, expr.attr, None)
        return None

    def test(expr):
        target = expr.func if isinstance(expr, ast.Call) else expr
        v = value_of(target)
        return any(v is k for k in known)
    return test


class _Rewriter:
    def __init__(self, func, fdef, is_objmode, is_chunksize):
        self.func = func
        self.is_objmode = is_objmode
        self.is_chunksize = is_chunksize   # None: left to pyjit/_parallel.py (parallel=True)
        self.chunksize_blocks = 0
        self.blocks = []         # (name, FunctionDef of the block, output names, declared types, line)
        args = fdef.args
        self.params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        self.fdef = fdef

    def rewrite_block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, ast.With) and any(self.is_objmode(i.context_expr) for i in s.items):
                out.append(self._outline(s))
                continue
            if isinstance(s, ast.With) and self.is_chunksize and self.is_chunksize(s):
                self.chunksize_blocks += 1
                out.extend(self.rewrite_block(chunksize_block(s, f"{_PREFIX}set_chunksize",
                                                              self.chunksize_blocks)))
                continue
            if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for field in ("body", "orelse", "finalbody"):
                    if isinstance(getattr(s, field, None), list):
                        setattr(s, field, self.rewrite_block(getattr(s, field)))
                for h in getattr(s, "handlers", []) or []:
                    h.body = self.rewrite_block(h.body)
            out.append(s)
        return out

    def _fail(self, node, why):
        raise UnsupportedError(f"{self.func.__qualname__}: the objmode block at line "
                               f"{node.lineno} {why}")

    def _outputs(self, node):
        if len(node.items) != 1 or node.items[0].optional_vars is not None:
            self._fail(node, "must be written `with objmode(name='type', ...):`, alone")
        call = node.items[0].context_expr
        if not isinstance(call, ast.Call):
            return [], []
        if call.args:
            self._fail(node, "takes its outputs as keywords: objmode(x='float64[:]')")
        names, declared = [], []
        for kw in call.keywords:
            if kw.arg is None:
                self._fail(node, "takes its outputs as keywords, not **mapping")
            try:
                spec = ast.literal_eval(kw.value)
            except ValueError:
                spec = eval(compile(ast.Expression(kw.value), "<objmode>", "eval"),   # noqa: S307
                            self.func.__globals__)
            names.append(kw.arg)
            declared.append(_output_type(spec, kw.arg))
        return names, declared

    def _inputs(self, node):
        """The function's variables the block reads: parameters, and variables assigned outside
        it (its own assignments stay in it)."""
        body = ast.Module(body=node.body, type_ignores=[])
        inside = _names(body, ast.Store)
        outside = _names(self.fdef, ast.Store) - inside
        for other in ast.walk(self.fdef):
            if other is not node and isinstance(other, (ast.Assign, ast.AugAssign, ast.AnnAssign,
                                                        ast.For)):
                for t in ast.walk(other):
                    if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store) and \
                            not _within(t, node):
                        outside.add(t.id)
        reads = _names(body, ast.Load) | {n.target.id for n in ast.walk(body)   # y += ... reads y
                                          if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
        return sorted(n for n in reads if n in self.params or n in outside)

    def _outline(self, node):
        for n in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)):
                self._fail(node, f"has a {type(n).__name__.lower()} at line {n.lineno}: a block "
                                 f"cannot leave the function")
        names, declared = self._outputs(node)
        inputs = self._inputs(node)
        k = len(self.blocks)
        name = f"{_PREFIX}{k}"
        block = ast.parse(f"def {name}_body({', '.join(inputs)}):\n"
                          f"    return ({''.join(n + ', ' for n in names)})").body[0]
        block.body = list(node.body) + block.body
        self.blocks.append((name, block, names, declared, node.lineno))
        call = f"{name}({', '.join(inputs)})"
        if names:
            stmt = ast.parse(f"({''.join(n + ', ' for n in names)}) = {call}").body[0]
        else:
            stmt = ast.parse(call).body[0]
        for n in ast.walk(stmt):
            ast.copy_location(n, node)
        ast.copy_location(block, node)
        return stmt


def _within(inner, outer):
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) <= \
        (outer.end_lineno, outer.end_col_offset)


def outline(func, chunksize=True):
    """The function to compile for func: a rewrite of it whose objmode blocks are calls of
    ObjModeCalls (and, with chunksize, whose `with parallel_chunksize(n):` blocks set and restore
    the setting), or func itself when it has none. UnsupportedError when it has some but no
    source to rewrite."""
    if not mentions_objmode(func, ("objmode", "parallel_chunksize") if chunksize else ("objmode",)):
        return func
    fdef = _source_tree(func)
    test = _objmode_test(func) if all(_cell_full(c) for c in func.__closure__ or ()) else None
    if fdef is None or test is None:
        raise UnsupportedError(f"{func.__qualname__}: pyjit needs the function's source (and "
                               f"its closure variables bound) to compile its objmode blocks")
    rw = _Rewriter(func, fdef, test, chunksize_test(func) if chunksize else None)
    fdef.body = rw.rewrite_block(fdef.body)
    if not rw.blocks and not rw.chunksize_blocks:
        return func
    return _build(func, fdef, rw)


def _build(func, fdef, rw):
    """The rewritten function and its blocks, made in one factory whose parameters are the
    original's free variables and the block-wrapping helper, so the blocks' ObjModeCalls reach
    the compiled code as closure values and the blocks see the function's globals."""
    fdef.decorator_list = []
    freevars = list(func.__code__.co_freevars)
    wrap, setter = f"{_PREFIX}wrap", f"{_PREFIX}set_chunksize"
    stmts = []
    for name, block, names, _declared, line in rw.blocks:
        stmts.append(block)
        stmts.append(ast.parse(f"{name} = {wrap}({name}_body, {line})").body[0])
    stmts.append(fdef)
    stmts.append(ast.parse(f"return {fdef.name}").body[0])
    factory = ast.parse(f"def {_PREFIX}factory({', '.join(freevars + [wrap, setter])}): pass").body[0]
    factory.body = stmts
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, func.__code__.co_filename, "exec")
    ns = {}
    exec(code, func.__globals__, ns)   # noqa: S102 - the user's own function, rewritten
    by_line = {line: (names, declared) for _n, _b, names, declared, line in rw.blocks}

    def make(block, line):
        names, declared = by_line[line]
        return ObjModeCall(block, names, declared, line,
                           f"{func.__qualname__}.<objmode at line {line}>")
    new = ns[f"{_PREFIX}factory"](*[c.cell_contents for c in func.__closure__ or ()], make,
                                  set_parallel_chunksize)
    new.__defaults__ = func.__defaults__
    new.__kwdefaults__ = func.__kwdefaults__
    new.__qualname__ = func.__qualname__
    new.__module__ = func.__module__
    new.__doc__ = func.__doc__
    new._pyjit_objmode_rewritten = True   # prange loops in it run serially (_parallel.py)
    return new
