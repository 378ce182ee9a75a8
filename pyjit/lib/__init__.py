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
import importlib

# module -> the functions it implements: NumPy's by name, builtins as "builtins.<name>" (an
# overload of a builtin declines what pyjit compiles itself, e.g. min of two numbers). Must agree
# with what the modules register:
# tests/test_numpy_lib.py::test_library_index fails when it does not.
INDEX = {
    "numpy_logic": ("any", "all", "count_nonzero", "flatnonzero", "nonzero"),
    "numpy_math": ("diff", "cumprod", "interp", "isclose", "allclose"),
    "numpy_search": ("searchsorted",),
    "numpy_sorting": ("unique",),
    "numpy_stats": ("median", "nanmedian", "percentile", "quantile", "nanmean", "nansum",
                    "histogram", "bincount", "ptp"),
    "lists": ("builtins.sum", "builtins.sorted", "builtins.list", "array", "asarray"),
    "dicts": ("builtins.set",),
}

# module -> the methods it implements, by their overload keys ("method.list.index"): imported
# when compiled code first calls one (pyjit.extending._method_overloads).
METHODS = {
    "lists": tuple(f"method.list.{name}" for name in (
        "insert", "remove", "index", "count", "reverse", "copy")),
    "dicts": tuple(f"method.dict.{name}" for name in (
        "keys", "values", "items", "update", "__eq__", "__ne__")) + tuple(
        f"method.set.{name}" for name in (
            "update", "difference_update", "intersection_update", "symmetric_difference_update",
            "union", "intersection", "difference", "symmetric_difference", "issubset",
            "issuperset", "isdisjoint", "__or__", "__and__", "__sub__", "__xor__", "__ior__",
            "__iand__", "__isub__", "__ixor__", "__eq__", "__ne__", "__le__", "__ge__", "__lt__",
            "__gt__")),
}


def functions():
    """(the function, the name of the module implementing it), for the whole library."""
    import builtins

    import numpy as np
    return [(getattr(builtins, name[9:]) if name.startswith("builtins.") else getattr(np, name), module)
            for module, names in INDEX.items() for name in names]


def load(module):
    """Imports one module of the library (its overloads register as it is imported)."""
    importlib.import_module(f"{__name__}.{module}")
