"""pyjit.core.typing: Numba's `numba.core.typing` spellings that user code reaches
(cffi_utils.map_type, for @cfunc signatures written in C with cffi)."""
