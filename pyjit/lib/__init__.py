"""pyjit.lib: pyjit's NumPy library, written in the compiled subset itself.

Each module registers implementations with pyjit.extending.overload, exactly as users do. None
is imported until compiled code calls one of its functions: pyjit._registry.populate marks the
functions of INDEX as overloaded without importing anything, and the first resolution of a call
of one (pyjit.extending._choose) imports its module, whose overloads then register. So neither
`import pyjit` nor the first compilation of a function that calls no library function pays for
the library. To add a NumPy function: its typing function and implementation in the module of its
family, its name in INDEX, and its test in tests/test_numpy_lib.py. Methods (of lists) are
registered with overload_method (of lists, dicts and sets) and listed in METHODS, imported on their first call the same way.
"""
import builtins
import importlib

import numpy as np

from .._registry import _resolve

# the ufuncs whose methods (np.add.reduce, np.negative.at) numpy_ufunc_methods implements
# agree with its BINARY and UNARY
_BINARY_UFUNCS = (
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod", "power",
    "float_power", "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "gcd",
    "lcm", "hypot", "arctan2", "copysign", "nextafter", "logaddexp", "logaddexp2", "heaviside",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
_UNARY_UFUNCS = ("negative", "positive", "absolute", "square", "reciprocal", "sqrt", "exp", "log",
                 "sin", "cos", "tan", "floor", "ceil", "trunc", "rint", "sign", "invert",
                 "logical_not")

# numpy_arraylike: the NumPy functions that read a list or tuple argument as np.asarray reads
# it, by how many of their first positional parameters take arrays
ARRAY_PARAMS = {
    1: ("sum", "prod", "mean", "std", "var", "min", "max", "amin", "amax", "argmin", "argmax",
        "cumsum", "cumprod", "median", "percentile", "quantile", "nanmean", "nansum", "nanmin",
        "nanmax", "nanstd", "nanvar", "nanmedian", "nanprod", "nanargmin", "nanargmax",
        "nancumsum", "nancumprod", "nanpercentile", "nanquantile", "ptp", "average", "sort",
        "argsort", "unique", "diff", "count_nonzero", "nonzero", "flatnonzero", "argwhere",
        "any", "all", "sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "arcsin",
        "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor",
        "ceil", "trunc", "absolute", "fabs", "sign", "isnan", "isinf", "isfinite",
        "negative", "positive", "square", "reciprocal", "expm1", "log1p", "exp2", "cbrt", "rint",
        "around", "round", "clip", "ravel", "transpose", "flip", "roll", "histogram", "bincount",
        "unwrap", "trapezoid", "ediff1d", "nan_to_num", "real", "imag", "conjugate",
        "angle", "iscomplex", "isreal", "isposinf", "isneginf", "signbit", "deg2rad",
        "rad2deg", "degrees", "radians", "logical_not", "invert", "spacing",
        "sinc", "i0", "cov", "corrcoef", "gradient", "trim_zeros", "diag", "diagflat", "tril",
        "triu", "vander", "cumulative_sum", "partition", "argpartition", "fliplr", "flipud",
        "rot90", "squeeze", "expand_dims", "swapaxes", "moveaxis", "repeat", "tile", "resize",
        "append", "delete", "insert", "split", "array_split", "take", "put", "roots", "poly",
        "isnat", "frexp", "modf", "trace", "polyder", "polyint", "diagonal", "full_like", "zeros_like", "ones_like",
        "empty_like", "asarray_chkfinite", "ascontiguousarray", "asfortranarray",
        "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to", "copy", "extract",
        "linalg.inv", "linalg.det", "linalg.slogdet", "linalg.eig", "linalg.eigvals",
        "linalg.eigh", "linalg.eigvalsh", "linalg.svd", "linalg.norm", "linalg.cond", "linalg.qr",
        "linalg.cholesky", "linalg.pinv", "linalg.matrix_rank", "linalg.matrix_power"),
    2: ("add", "subtract", "multiply", "divide", "floor_divide", "power",
        "float_power", "remainder", "fmod", "divmod", "maximum", "minimum", "fmax", "fmin",
        "hypot", "arctan2", "copysign", "nextafter", "ldexp", "heaviside", "logaddexp",
        "logaddexp2", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
        "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
        "left_shift", "right_shift", "gcd", "lcm", "dot", "vdot", "inner", "outer", "cross",
        "kron", "convolve", "correlate", "isclose", "allclose", "array_equal", "searchsorted",
        "digitize", "isin", "union1d", "intersect1d", "setdiff1d", "setxor1d", "polyval",
        "matmul", "polyfit", "polyadd", "polysub", "polymul", "polydiv", "tensordot", "take_along_axis", "histogram2d", "linalg.solve", "compress", "vecdot",
        "linalg.lstsq"),
    3: ("interp", "where"),
}



# module -> the functions it implements: NumPy's by name, builtins as "builtins.<name>" (an
# overload of a builtin declines what pyjit compiles itself, e.g. min of two numbers), pyjit's
# own by their full name ("pyjit.typed.List"), those of STDLIB's modules as "heapq.heappush", and
# Python's random module's as "py.random.uniform" ("random.uniform" is np.random's). Must agree
# with what the modules register:
# tests/test_numpy_lib.py::test_library_index fails when it does not.
INDEX = {
    "numpy_logic": ("any", "all", "count_nonzero", "flatnonzero", "nonzero"),
    "numpy_complex": ("min", "max", "amin", "amax", "var", "std", "argmin", "argmax"),
    "numpy_memory": ("shares_memory", "may_share_memory"),
    "numpy_polynomial": ("polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint",
                         "polynomial.polynomial.Polynomial"),
    "numpy_algebra": ("einsum", "tensordot", "apply_along_axis", "polyfit", "poly"),
    "numpy_arraylike": tuple(name for group in ARRAY_PARAMS.values() for name in group),
    "numpy_datetime": ("datetime64", "timedelta64", "maximum", "minimum", "absolute",
                       "builtins.abs"),
    "numpy_math": ("diff", "cumprod", "interp", "isclose", "allclose", "nan_to_num", "angle",
                   "sign", "polyval", "roots", "fix", "sort_complex"),
    "numpy_edit": ("split", "array_split", "hsplit", "vsplit", "dsplit", "append", "delete", "insert", "ediff1d"),
    "numpy_search": ("searchsorted", "digitize", "argwhere", "where"),
    "numpy_sorting": ("unique", "sort", "argsort", "partition", "argpartition"),
    "numpy_sets": ("union1d", "intersect1d", "setdiff1d", "setxor1d", "isin", "lexsort"),
    "numpy_stats": ("median", "nanmedian", "percentile", "quantile", "nanpercentile",
                    "nanquantile", "nanmean", "nansum", "histogram", "bincount", "ptp"),
    "iterables": ("builtins.any", "builtins.all", "builtins.min", "builtins.max", "builtins.map",
                  "builtins.filter", "functools.reduce"),
    "lists": ("builtins.sum", "builtins.sorted", "builtins.list", "builtins.reversed",
              "array", "asarray", "pyjit.typed.List"),
    "numpy_create": ("eye", "identity", "diag", "full_like", "copy", "tri", "tril", "triu",
                     "outer", "trace", "cross", "meshgrid", "vander", "logspace", "geomspace",
                     "ascontiguousarray", "asfortranarray", "fill_diagonal", "linspace",
                     "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                     "uint64", "float32", "float64", "complex64", "complex128"),
    "numpy_ufuncs": ("add", "subtract", "multiply", "divide", "floor_divide", "remainder",
                     "fmod", "fmax", "fmin", "copysign", "heaviside", "logaddexp", "logaddexp2",
                     "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
                     "bitwise_xor", "left_shift", "right_shift",
                     "gcd", "lcm", "equal", "not_equal", "less", "less_equal", "greater",
                     "greater_equal", "negative", "positive", "square", "reciprocal",
                     "logical_not", "invert", "expm1", "log1p", "exp2", "cbrt",
                     "deg2rad", "radians", "rad2deg", "degrees", "signbit", "rint", "arcsin", "arccos", "arctan", "arcsinh",
                     "arccosh", "arctanh", "conjugate", "clip", "round", "around",
                     # the builtins' math ufuncs, given an output array (np.sin(x, out)) or complex x
                     "sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "arcsin",
                     "arccos", "arctan", "sinh", "cosh", "tanh", "floor", "ceil", "trunc",
                     "absolute", "fabs", "isnan", "isinf", "isfinite", "arctan2", "hypot",
                     "power", "minimum", "maximum", "float_power", "ldexp", "nextafter",
                     "spacing", "divmod", "frexp", "modf", "real", "imag", "sinc"),
    "numpy_signal": ("array_equal", "convolve", "correlate", "kron", "trapezoid", "cov",
                     "corrcoef"),
    "numpy_shape": ("concatenate", "stack", "vstack", "hstack", "column_stack", "expand_dims",
                    "atleast_1d", "atleast_2d", "atleast_3d", "flip", "fliplr", "flipud", "roll",
                    "repeat", "tile", "ravel", "reshape", "dstack", "diagflat", "rot90",
                    "broadcast_to", "broadcast_shapes", "broadcast_arrays"),
    "numpy_gather": ("take", "take_along_axis", "put", "select", "unravel_index",
                     "ravel_multi_index", "inner", "compress"),
    "numpy_pad": ("pad",),
    "numpy_arrayapi": ("astype", "matrix_transpose", "vecdot", "linalg.vector_norm",
                       "linalg.matrix_norm", "cumulative_sum", "cumulative_prod"),
    "numpy_ufunc_methods": tuple(
        f"{ufunc}.{method}" for ufunc in _BINARY_UFUNCS
        for method in ("reduce", "accumulate", "reduceat", "outer", "at")) + tuple(
        f"{ufunc}.at" for ufunc in _UNARY_UFUNCS),
    "numpy_misc": ("shape", "ndim", "size", "isscalar", "iscomplexobj", "isrealobj", "iscomplex",
                   "isreal", "isposinf", "isneginf", "asarray_chkfinite", "bartlett", "blackman",
                   "hamming", "hanning", "extract", "place", "copyto", "indices", "tril_indices",
                   "triu_indices", "tril_indices_from", "triu_indices_from", "trim_zeros",
                   "unwrap", "resize", "diagonal", "iinfo", "finfo", "diag_indices",
                   "concatenate", "expand_dims", "i0", "kaiser", "gradient",
                   "histogram2d") + tuple(
                       f"polynomial.polynomial.{name}" for name in (
                           "polyadd", "polysub", "polymul", "polydiv", "polyval", "polyder",
                           "polyint")) + ("polynomial.polyutils.trimseq",
                                          "polynomial.polyutils.as_series"),
    "numpy_views": ("transpose", "swapaxes", "moveaxis", "squeeze", "frombuffer",
                    "lib.stride_tricks.sliding_window_view"),
    "numpy_dtypes": ("dtype", "issubdtype", "promote_types", "result_type", "can_cast"),
    "numpy_linalg": ("linalg.inv", "linalg.solve", "linalg.det", "linalg.slogdet", "linalg.eig",
                     "linalg.eigvals", "linalg.eigh", "linalg.eigvalsh", "linalg.svd",
                     "linalg.matrix_rank", "linalg.pinv", "linalg.norm", "linalg.cond",
                     "linalg.lstsq", "linalg.qr", "linalg.cholesky", "linalg.matrix_power",
                     "linalg.multi_dot", "vdot", "matmul"),
    "numpy_random": ("random.random_sample", "random.sample", "random.ranf", "random.standard_normal",
                     "random.uniform", "random.normal", "random.randint",
                     "random.standard_exponential", "random.standard_gamma", "random.beta",
                     "random.poisson", "random.binomial", "random.exponential", "random.gamma",
                     "random.chisquare", "random.lognormal", "random.shuffle",
                     "random.permutation", "random.choice", "random.standard_cauchy",
                     "random.standard_t", "random.f", "random.noncentral_chisquare",
                     "random.noncentral_f", "random.pareto", "random.power", "random.weibull",
                     "random.rayleigh", "random.vonmises", "random.wald", "random.laplace",
                     "random.gumbel", "random.logistic", "random.triangular", "random.zipf",
                     "random.geometric", "random.logseries", "random.negative_binomial",
                     "random.hypergeometric", "random.multinomial", "random.dirichlet"),
    "numpy_generator": ("random.default_rng",),
    "pyrandom": tuple(f"py.random.{name}" for name in (
        "getrandbits", "randrange", "randint", "choice", "shuffle", "uniform", "triangular",
        "normalvariate", "gauss", "lognormvariate", "expovariate", "vonmisesvariate",
        "gammavariate", "betavariate", "paretovariate", "weibullvariate")),
    "dicts": ("builtins.set", "builtins.dict", "pyjit.typed.Set"),
    "numpy_nan": ("average", "nanvar", "nanstd", "nanargmin", "nanargmax", "nanprod",
                  "nancumsum", "nancumprod", "nansum", "nanmean", "nanmin", "nanmax"),
    "numpy_axis": ("sum", "prod", "min", "amin", "max", "amax", "mean", "var", "std", "argmin",
                   "argmax", "cumsum", "nansum", "nanmean", "nanmax", "nanmin", "nanstd",
                   "nanvar", "ptp", "count_nonzero", "median", "nanmedian"),
    "pymath": ("math.frexp", "math.ldexp", "math.exp2", "math.nextafter", "math.modf",
               "math.remainder", "math.cbrt", "math.lcm", "builtins.round"),
    "pycmath": ("cmath.acos", "cmath.acosh", "cmath.asin", "cmath.asinh", "cmath.atan",
                "cmath.atanh", "cmath.log"),
    "heaps": ("heapq.heapify", "heapq.heappush", "heapq.heappop", "heapq.heapreplace",
              "heapq.heappushpop", "heapq.nsmallest", "heapq.nlargest"),
    "operators": tuple(f"operator.{name}" for name in (
        "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and_",
        "or_", "xor", "matmul", "lt", "le", "eq", "ne", "gt", "ge", "is_", "is_not",
        "contains", "concat", "getitem", "neg", "pos", "invert", "inv", "not_", "truth", "abs",
        "index", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "ilshift",
        "irshift", "iand", "ior", "ixor", "imatmul", "iconcat", "setitem")),
}

# Python's own modules whose functions the library implements, named "<module>.<function>"
STDLIB = ("heapq", "operator", "functools", "math", "cmath")

# module -> the methods it implements, by their overload keys ("method.list.index"): imported
# when compiled code first calls one (pyjit.extending._method_overloads).
METHODS = {
    "lists": ("method.array._unpacked",) + tuple(f"method.list.{name}" for name in (
        "insert", "remove", "index", "count", "reverse", "copy", "__setitem__", "__delitem__",
        "_extend_items", "_unpacked",
        "_sort_by_key", "_sort_items", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
        "__ge__")),
    "numpy_complex": tuple(f"method.array.{name}" for name in ("min", "max", "var", "std",
                                                               "argmin", "argmax")),
    "numpy_shape": ("method.array.flatten", "method.array.item", "method.array.tolist",
                    "method.array.reshape", "method.array.ravel"),
    "numpy_math": ("method.array.cumprod", "method.array.conj", "method.array.conjugate",
                   "method.array._imag_of_real"),
    "numpy_polynomial": tuple(f"method.Polynomial.{name}" for name in (
        "__call__", "degree", "copy", "mapparms", "deriv", "integ", "__add__", "__radd__",
        "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__neg__", "__pos__",
        "__eq__", "__ne__")),
    "numpy_views": ("method.array.transpose", "method.array.swapaxes", "method.array.squeeze",
                    "method.array.view"),
    "numpy_flags": ("attr.array.flags",),
    "numpy_dtypes": tuple(f"attr.dtype.{name}" for name in (
        "itemsize", "name", "kind", "char", "str", "num", "alignment", "byteorder", "isnative",
        "ndim", "hasobject")),
    "numpy_index": ("method.array.__getitem__", "method.array.__setitem__"),
    "numpy_linalg": ("method.array.__matmul__",),
    "numpy_sorting": ("method.array.partition", "method.array.argpartition", "method.array.sort",
                      "method.array.argsort"),
    "numpy_misc": tuple(f"method.array.{name}" for name in (
        "dot", "repeat", "nonzero", "round", "clip", "searchsorted", "diagonal", "trace",
        "tobytes", "_set_all")) +
    ("method.number.item", "method.number.conjugate"),
    "numpy_gather": ("method.array.take", "method.array.put", "method.array.compress",
                     "method.array.itemset"),
    "numpy_axis": tuple(f"method.array.{name}" for name in (
        "sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "cumsum")),
    "numpy_signal": ("method.array.any", "method.array.all"),
    "numpy_generator": tuple(f"method.generator.{name}" for name in (
        "random", "standard_normal", "standard_exponential", "uniform", "normal", "exponential",
        "standard_gamma", "gamma", "chisquare", "beta", "poisson", "binomial", "lognormal", "laplace",
        "logistic", "geometric", "integers", "shuffle", "permutation", "choice", "standard_cauchy",
        "standard_t", "f", "noncentral_chisquare", "noncentral_f", "pareto", "power", "weibull",
        "rayleigh", "vonmises", "wald", "gumbel", "triangular", "zipf", "logseries",
        "negative_binomial", "hypergeometric", "multinomial", "dirichlet",
        "multivariate_hypergeometric", "multivariate_normal")),
    "iterables": ("method.tuple.index", "method.tuple.count"),
    "strings": ("method.array._text_eq", "method.array._text_ne") + tuple(f"method.str.{name}" for name in (
        "index", "rindex", "zfill", "ljust", "rjust", "center", "partition", "rpartition", "rsplit",
        "splitlines", "removeprefix", "removesuffix", "istitle", "isascii",
        "isprintable", "expandtabs")),
    "dicts": tuple(f"method.dict.{name}" for name in (
        "keys", "values", "items", "_get_or_none", "update", "__eq__", "__ne__", "_items")) + tuple(
        f"method.set.{name}" for name in (
            "_items", "update", "difference_update", "intersection_update", "symmetric_difference_update",
            "union", "intersection", "difference", "symmetric_difference", "issubset",
            "issuperset", "isdisjoint", "__or__", "__and__", "__sub__", "__xor__", "__ior__",
            "__iand__", "__isub__", "__ixor__", "__eq__", "__ne__", "__le__", "__ge__", "__lt__",
            "__gt__")),
}


def find(name):
    """The function an INDEX name reaches ("random.choice" is np.random.choice)."""
    if name.startswith("builtins."):
        return getattr(builtins, name[9:])
    if name.startswith("pyjit."):
        return _resolve(name)
    if name.startswith("py."):   # "py.random.uniform": Python's own module
        module, _, function = name[3:].partition(".")
        return getattr(importlib.import_module(module), function)
    module, _, function = name.partition(".")
    if module in STDLIB:
        return getattr(importlib.import_module(module), function)
    obj = np
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def dotted_name(name):
    """The full dotted name of an INDEX name ("numpy.random.choice"), which says the module it
    lives in."""
    if name.startswith(("builtins.", "pyjit.")):
        return name
    if name.startswith("py."):
        return name[3:]
    return name if name.partition(".")[0] in STDLIB else "numpy." + name


def entries():
    """(INDEX name, the name of the module implementing it), for the whole library."""
    return [(name, module) for module, names in INDEX.items() for name in names]


def functions():
    """(the function, the name of the module implementing it), for the whole library."""
    return [(find(name), module) for name, module in entries()]


# module -> which calls of its functions it can serve, told from the number of arguments and the
# keywords: a call it cannot serve declines without importing the module (numpy_axis implements
# np.sum and friends with an axis; without one, the builtins serve, and compilations that never
# pass an axis never import it)
GATES = {
    "numpy_axis": lambda args, kws: len(args) > 1 or bool(kws) or _datetime_array(args),
    "numpy_arraylike": lambda args, kws: _sequence_argument(args),
}


def _sequence_argument(args):
    """Whether an argument is a list or a tuple (numpy_arraylike reads some as arrays)."""
    from .. import types
    return any(isinstance(t, (types.List, types.Tuple)) for t in args)


def _datetime_array(args):
    """Whether the first argument is a datetime64 or timedelta64 array (numpy_axis hands its
    reductions without an axis to numpy_datetime)."""
    from .. import types
    return bool(args) and isinstance(args[0], types.Array) and isinstance(
        args[0].dtype, (types.NPDatetime, types.NPTimedelta))


def serves(module, args, kws):
    """Whether the module may serve a call with these argument types (GATES)."""
    gate = GATES.get(module)
    return gate is None or gate(args, kws)


# (ufunc, name, nin) of the @vectorize ufuncs made before numpy_ufunc_methods was imported: it
# registers their methods when it is
PENDING_UFUNCS = []


def register_ufunc_methods(ufunc, name, nin):
    """Makes the methods of a @vectorize ufunc (reduce, ..., at) callable from compiled code,
    without importing numpy_ufunc_methods before compiled code calls one of them."""
    import sys

    from .. import _registry, extending
    loaded = sys.modules.get(f"{__name__}.numpy_ufunc_methods")
    if loaded is not None:
        loaded.register(ufunc, name, nin)
        return
    PENDING_UFUNCS.append((ufunc, name, nin))
    methods = ("reduce", "accumulate", "reduceat", "outer", "at") if nin == 2 else ("at",)
    for method in methods:
        bound = getattr(ufunc, method, None)
        if bound is not None:
            extending._LAZY[bound] = ("numpy_ufunc_methods",)
            _registry.mark_overloaded(bound)


def load(module):
    """Imports one module of the library (its overloads register as it is imported)."""
    importlib.import_module(f"{__name__}.{module}")
