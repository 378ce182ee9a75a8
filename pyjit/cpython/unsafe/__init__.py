"""pyjit.cpython.unsafe: Numba's `numba.cpython.unsafe` spellings (tuple.tuple_setitem)."""
from . import tuple  # noqa: F401,A004  (Numba's module name)
