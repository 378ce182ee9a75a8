"""pyjit.core: Numba's `numba.core` spellings of pyjit's modules, so `from numba.core import
types` and `from numba.core.errors import TypingError` port by changing the package name:
pyjit.core.types is pyjit.types (and so are its modules: `from numba.core.types.misc import
NoneType`), and likewise errors, config and extending; pyjit.core.typing holds
cffi_utils.map_type."""
import importlib as _importlib
import sys as _sys

_ALIASES = ("types", "errors", "config", "extending")

for _name in _ALIASES:
    _module = _importlib.import_module(f"pyjit.{_name}")
    _sys.modules[f"{__name__}.{_name}"] = _module
    globals()[_name] = _module

# numba.core.types is a package whose modules hold the type classes (misc.NoneType,
# npytypes.Array, scalars.Float, ...); pyjit.types holds them all, under the same names
for _name in ("abstract", "common", "containers", "functions", "iterators", "misc", "npytypes",
              "scalars"):
    _sys.modules[f"{__name__}.types.{_name}"] = types
