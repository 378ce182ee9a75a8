"""pyjit.np: Numba's `numba.np` spellings (numba.np.numpy_support, numba.np.unsafe.ndarray).
Both are reachable as attributes once `numba.np` is, as in Numba, whose import loads
numpy_support (sparse writes `numba.np.numpy_support.from_dtype(dt)` after `import numba`)."""
from . import numpy_support, unsafe  # noqa: F401
