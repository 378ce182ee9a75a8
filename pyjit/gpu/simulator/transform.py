"""Kernels with barriers as generators: each barrier or warp operation becomes a `yield`.

A simulated thread must stop at syncthreads() and let the others of its block run. Switching
Python generators costs a fraction of a microsecond, far less than switching greenlets or OS
threads, so a kernel that uses barriers or warp operations is recompiled from its source with
every such call wrapped in `(yield ...)`, and every call of a device function that itself
(transitively) synchronises wrapped in `(yield from ...)`:

    gpu.syncthreads()          ->  (yield gpu.syncthreads())
    v = gpu.shfl_down_sync(m, v, 1) ->  v = (yield gpu.shfl_down_sync(m, v, 1))
    s = block_sum(a)           ->  s = (yield from block_sum(a))    # block_sum synchronises

While generators run, S.suspend returns the request it is given, so the intrinsic call builds the
request that the `yield` hands to the scheduler, and the scheduler's answer is the value of the
yield. The new code keeps the file name, line numbers and columns of the original, so pdb,
breakpoints and tracebacks show the user's source. Where the source is unavailable or a call
cannot be rewritten (a barrier inside a lambda or comprehension, a synchronising function
reached through an attribute), make_generator returns None and the kernel runs on greenlets.
"""
import ast
import inspect
import types


class _Unsupported(Exception):
    pass


class _Rewriter(ast.NodeTransformer):
    """Wraps synchronising calls in yield / yield from; raises _Unsupported where it cannot."""

    def __init__(self, classify, is_sync_ref):
        self.classify = classify        # ast.Call -> "yield", "yield from" or None
        self.is_sync_ref = is_sync_ref  # a Name/Attribute naming something that synchronises
        self.depth = 0                  # > 0 inside a nested function, lambda or comprehension
        self.count = 0

    def visit_Call(self, node):
        kind = self.classify(node)
        if kind is not None:
            node.func.pyjit_rewritten = True
        self.generic_visit(node)
        if kind is None:
            return node
        if self.depth:
            raise _Unsupported("a barrier or warp operation inside a nested function, lambda "
                               "or comprehension")
        self.count += 1
        new = ast.Yield(value=node) if kind == "yield" else ast.YieldFrom(value=node)
        return ast.copy_location(new, node)

    def visit_Name(self, node):
        self._check_ref(node)
        return node

    def visit_Attribute(self, node):
        self._check_ref(node)
        self.generic_visit(node)
        return node

    def _check_ref(self, node):
        """A synchronising function used other than by a rewritten call cannot be followed."""
        if self.is_sync_ref(node) and not getattr(node, "pyjit_rewritten", False):
            raise _Unsupported("a synchronising function is used as a value")

    def _nested(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = _nested
    visit_GeneratorExp = visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _nested

    def visit_Yield(self, node):
        raise _Unsupported("the kernel is already a generator")

    visit_YieldFrom = visit_Await = visit_Yield


def _parse(pyfunc):
    """The FunctionDef of pyfunc, with the line numbers and columns of the original file."""
    lines, first = inspect.getsourcelines(pyfunc)
    src = "".join(lines)
    indented = src[:1] in (" ", "\t")
    tree = ast.parse(("if 1:\n" + src) if indented else src)
    body = tree.body[0].body if indented else tree.body
    node = body[0]
    if not isinstance(node, ast.FunctionDef) or node.name != pyfunc.__name__:
        raise _Unsupported("source not found")
    ast.increment_lineno(tree, first - (2 if indented else 1))
    node.decorator_list = []
    return node


def make_generator(pyfunc, globals_, cells, classify, is_sync_ref):
    """A generator function for pyfunc (globals_ and closure cells given), or None if impossible.

    classify(call_node) says which calls become `yield` and `yield from`; is_sync_ref(node)
    whether a Name or Attribute refers to something that synchronises.
    """
    try:
        node = _parse(pyfunc)
        rw = _Rewriter(classify, is_sync_ref)
        node.body = [rw.visit(stmt) for stmt in node.body]
        node.args = rw.visit(node.args)
    except (_Unsupported, OSError, TypeError, SyntaxError, IndexError):
        return None
    if rw.count == 0:
        return None
    freevars = pyfunc.__code__.co_freevars
    code = _compile(node, freevars, pyfunc.__code__.co_filename)
    by_name = dict(zip(freevars, cells))
    closure = tuple(by_name[n] for n in code.co_freevars) or None
    fn = types.FunctionType(code, globals_, pyfunc.__name__, pyfunc.__defaults__, closure)
    fn.__kwdefaults__ = pyfunc.__kwdefaults__
    fn.__qualname__ = pyfunc.__qualname__
    return fn


def _compile(node, freevars, filename):
    """Compiles the FunctionDef inside an outer function whose locals are the free variables,
    so that the new code has the same closure variables as the original."""
    outer = ast.FunctionDef(
        name="__pyjit_outer__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in freevars],
                           kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_comment=None)
    ast.copy_location(outer, node)
    mod = ast.Module(body=[outer], type_ignores=[])
    ast.fix_missing_locations(mod)
    module_code = compile(mod, filename, "exec")
    outer_code = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    return next(c for c in outer_code.co_consts
                if isinstance(c, types.CodeType) and c.co_name == node.name)
