"""pyjit.cpython: Numba's `numba.cpython` spellings (unsafe.tuple.tuple_setitem)."""
from . import unsafe  # noqa: F401  (numba.cpython.unsafe.tuple reached as attributes)
