"""pyjit.lib: pyjit's NumPy library, written in the compiled subset itself.

Each module registers implementations with pyjit.extending.overload, exactly as users do; this
package is imported on the first compilation (pyjit._registry.populate), so `import pyjit` stays
fast. To add a NumPy function: write its typing function and implementation in the module of its
family (or a new module listed below), and its test in tests/test_numpy_lib.py.
"""
from . import numpy_logic, numpy_math, numpy_search, numpy_sorting, numpy_stats  # noqa: F401
