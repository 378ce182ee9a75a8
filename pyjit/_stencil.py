"""@stencil, as Numba's: a kernel written for one element with relative indices (`a[-1, 0]`,
`a[0, 1]`) applied at every element whose neighbourhood lies inside the array; the border is
`cval` (0 by default), or left as it is when `out=` is given.

    @stencil                                # or @stencil(neighborhood=((-2, 0),), cval=-1.0,
    def smooth(a):                          #     standard_indexing=("weights",))
        return 0.25 * (a[0, 1] + a[1, 0] + a[0, -1] + a[-1, 0])

    smooth(image)                           # from Python, or inside @njit functions

How: the kernel's source is rewritten so that each relative index of an input array becomes an
absolute one (`a[-1, 0]` -> `a[__i0 + -1, __i1 + 0]`), the neighbourhood read off the constant
offsets (or taken from `neighborhood=`), and the rewritten kernel is compiled by njit with the
element's indices as extra parameters. A call resolves like a call of any overloaded function:
the typing function compiles the kernel for the argument types to learn the result dtype and
returns a loop, generated for the number of dimensions, over the elements the neighbourhood
allows.
"""
import ast
import inspect
import textwrap

__all__ = ["stencil"]

_INDEX = "__pyjit_i{}"


def _constant(node):
    """The int a constant index is (3, -3, +3), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and \
            not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _constant(node.operand)
        if v is not None:
            return -v if isinstance(node.op, ast.USub) else v
    return None


class _Relative(ast.NodeTransformer):
    """Rewrites the relative indices of the kernel's input arrays and records their offsets."""

    def __init__(self, arrays, name):
        self.arrays, self.name = arrays, name
        self.ndim = None
        self.offsets = []          # per axis: the constant offsets seen, None for another index

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not (isinstance(node.value, ast.Name) and node.value.id in self.arrays):
            return node
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            raise ValueError(f"stencil kernel '{self.name}' assigns to its input "
                             f"'{node.value.id}' (line {node.lineno}); it returns the value of "
                             "the element instead")
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if self.ndim is None:
            self.ndim = len(items)
            self.offsets = [[] for _ in items]
        elif len(items) != self.ndim:
            raise ValueError(f"stencil kernel '{self.name}' indexes its inputs with "
                             f"{self.ndim} and {len(items)} indices (line {node.lineno})")
        absolute = []
        for k, item in enumerate(items):
            if isinstance(item, ast.Slice):
                raise ValueError(f"stencil kernel '{self.name}': a slice as a relative index "
                                 f"(line {node.lineno}) is not supported")
            self.offsets[k].append(_constant(item))
            absolute.append(ast.BinOp(ast.Name(_INDEX.format(k), ast.Load()), ast.Add(), item))
        index = absolute[0] if len(absolute) == 1 else ast.Tuple(absolute, ast.Load())
        return ast.copy_location(ast.Subscript(node.value, index, node.ctx), node)


class Stencil:
    """What @stencil makes: callable from Python and from compiled code (`kernel(a, ...,
    out=None)`)."""

    def __init__(self, func, neighborhood=None, cval=None, standard_indexing=(),
                 func_or_mode="constant"):
        if func_or_mode != "constant":
            raise ValueError(f"stencil: func_or_mode={func_or_mode!r} is not supported; "
                             "'constant' (the border set to cval) is")
        self.py_func = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self._cval = 0 if cval is None else cval
        sig = inspect.signature(func)
        self._params = list(sig.parameters)
        standard = (standard_indexing,) if isinstance(standard_indexing, str) \
            else tuple(standard_indexing)
        unknown = set(standard) - set(self._params)
        if unknown:
            raise ValueError(f"stencil: standard_indexing names {sorted(unknown)}, which are not "
                             f"parameters of {func.__name__}")
        self._relative = [p for p in self._params if p not in standard]
        if not self._relative:
            raise ValueError(f"stencil kernel '{func.__name__}' has no relatively indexed input")
        self._point, self.ndim, self.neighborhood = self._rewrite(func, neighborhood)
        self._calls = {}
        from .extending import overload
        overload(self, strict=False)(self._typing_function())

    # ---- the kernel, rewritten ----

    def _rewrite(self, func, neighborhood):
        try:
            source = textwrap.dedent(inspect.getsource(func))
        except (OSError, TypeError):
            raise ValueError(f"stencil: the source of {func.__name__} cannot be read (a stencil "
                             "kernel is rewritten from its source)") from None
        tree = ast.parse(source)
        fdef = next(n for n in tree.body if isinstance(n, (ast.FunctionDef,)))
        fdef.decorator_list = []
        rel = _Relative(set(self._relative), func.__name__)
        fdef.body = [rel.visit(stmt) for stmt in fdef.body]
        ndim = rel.ndim if rel.ndim is not None else \
            (len(neighborhood) if neighborhood is not None else 1)
        fdef.args.args += [ast.arg(_INDEX.format(k)) for k in range(ndim)]
        fdef.name = f"{func.__name__}_point"
        ast.fix_missing_locations(tree)
        ns = dict(func.__globals__)
        if func.__closure__:
            ns.update(zip(func.__code__.co_freevars, (c.cell_contents for c in func.__closure__)))
        filename = inspect.getsourcefile(func) or "<stencil>"
        exec(compile(tree, filename, "exec"), ns)  # noqa: S102 - the user's kernel, rewritten
        point = ns[fdef.name]
        # line numbers of errors name the kernel's own lines
        point.__code__ = point.__code__.replace(
            co_firstlineno=point.__code__.co_firstlineno + func.__code__.co_firstlineno - 1)
        return point, ndim, self._extent(func.__name__, rel.offsets, ndim, neighborhood)

    @staticmethod
    def _extent(name, offsets, ndim, neighborhood):
        """((lo, hi) per axis): the neighbourhood given, or read off the constant offsets."""
        if neighborhood is not None:
            hood = tuple(tuple(int(v) for v in axis) for axis in neighborhood)
            if len(hood) != ndim or any(len(axis) != 2 for axis in hood):
                raise ValueError(f"stencil '{name}': neighborhood must give (low, high) for "
                                 f"each of the {ndim} axes, got {neighborhood!r}")
            return hood
        hood = []
        for axis in offsets:
            if any(v is None for v in axis):
                raise ValueError(f"stencil kernel '{name}' has an index that is not a constant: "
                                 "the neighborhood option is needed")
            hood.append((min([0] + axis), max([0] + axis)))
        return tuple(hood) if hood else ((0, 0),) * ndim

    # ---- calls ----

    def _typing_function(self):
        params = ", ".join(self._params)
        ns = {"typing": self._typing}
        exec(f"def stencil_call({params}, out=None):\n"  # noqa: S102
             f"    return typing(({params},), out)\n", ns)
        return ns["stencil_call"]

    def _typing(self, args, out):
        from . import types
        from .decorators import njit
        arrays = [p for p in self._relative
                  if isinstance(args[self._params.index(p)], types.Array)]   # others: scalars
        if not arrays:
            raise TypeError(f"stencil '{self.__name__}' needs an array among its inputs "
                            f"({', '.join(self._relative)})")
        for p in arrays:
            t = args[self._params.index(p)]
            if t.ndim != self.ndim:
                raise TypeError(f"stencil '{self.__name__}': input '{p}' must be a "
                                f"{self.ndim}-d array, not {t}")
        first = args[self._params.index(arrays[0])]
        point = njit(self._point)
        key = tuple(args) + (types.int64,) * self.ndim
        if key not in point.overloads:
            point.compile(key)
        ret = point.overloads[key].return_type
        if not isinstance(ret, (types.Number, types.Boolean)):
            raise TypeError(f"stencil '{self.__name__}' returns {ret}, not a number")
        given = out is not None and not isinstance(out, (types.NoneType, types.Omitted))
        if given and (not isinstance(out, types.Array) or out.ndim != first.ndim):
            raise TypeError(f"stencil '{self.__name__}': out must be a {first.ndim}-d array, "
                            f"not {out}")
        import numpy as np
        ns = {"np": np, "point": point, "R": np.dtype(ret.name).type, "cval": self._cval}
        exec(self._loop_source(arrays, given), ns)  # noqa: S102
        return ns["impl"]

    def _loop_source(self, arrays, given):
        params = ", ".join(self._params)
        a0 = arrays[0]
        lines = [f"def impl({params}, out=None):"]
        for p in arrays[1:]:
            lines += [f"    if {p}.shape != {a0}.shape:",
                      "        raise ValueError('Secondary stencil array does not have same "
                      "shape as the first input')"]
        if given:
            lines += [f"    if out.shape != {a0}.shape:",
                      "        raise ValueError('stencil: out must have the shape of the first "
                      "input')",
                      "    res = out"]
        else:
            lines.append(f"    res = np.full({a0}.shape, cval, dtype=R)")
        indent = "    "
        for k, (lo, hi) in enumerate(self.neighborhood):
            lines.append(f"{indent}for {_INDEX.format(k)} in range({-lo}, "
                         f"{a0}.shape[{k}] - {hi}):")
            indent += "    "
        index = ", ".join(_INDEX.format(k) for k in range(self.ndim))
        lines.append(f"{indent}res[{index},] = point({params}, {index})")
        lines.append("    return res")
        return "\n".join(lines) + "\n"

    def __call__(self, *args, **kws):
        from .decorators import njit
        if set(kws) - {"out"}:
            raise TypeError(f"stencil '{self.__name__}' takes out= only as a keyword, got "
                            f"{sorted(set(kws) - {'out'})}")
        if len(args) != len(self._params):
            raise TypeError(f"stencil '{self.__name__}' takes {len(self._params)} arguments "
                            f"({', '.join(self._params)}), got {len(args)}")
        with_out = "out" in kws and kws["out"] is not None
        call = self._calls.get(with_out)
        if call is None:
            params = ", ".join(f"a{i}" for i in range(len(args)))
            ns = {"kernel": self}
            extra = ", out" if with_out else ""
            exec(f"def call({params}{extra}):\n"  # noqa: S102
                 f"    return kernel({params}{', out=out' if with_out else ''})\n", ns)
            call = self._calls[with_out] = njit(ns["call"])
        return call(*args, kws["out"]) if with_out else call(*args)

    def __repr__(self):
        return f"<pyjit.stencil '{self.__name__}'>"


def stencil(func_or_mode="constant", **options):
    """@stencil or @stencil(neighborhood=..., cval=..., standard_indexing=...): Numba's."""
    known = {"neighborhood", "cval", "standard_indexing"}
    unknown = set(options) - known
    if unknown:
        raise TypeError(f"stencil() got unexpected option(s): {', '.join(sorted(unknown))} "
                        f"(it takes {', '.join(sorted(known))})")
    if callable(func_or_mode):
        return Stencil(func_or_mode, **options)

    def decorate(func):
        return Stencil(func, func_or_mode=func_or_mode, **options)
    return decorate


def _stencil_in_compiled_code(func_or_mode="constant", **options):
    """stencil(kernel) called inside a compiled function (Numba inlines such a kernel, a lambda
    too): refused with what to write instead."""
    raise TypeError("stencil() cannot be called inside compiled code: make the kernel with "
                    "@stencil (or stencil(f)) outside, then call it from the compiled function, "
                    "passing what the kernel reads as arguments")


def _register():
    from .extending import overload
    overload(stencil, strict=False)(_stencil_in_compiled_code)


_register()
