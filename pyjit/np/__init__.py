"""pyjit.np: Numba's `numba.np` spellings (numba.np.numpy_support, numba.np.unsafe.ndarray)."""
from . import unsafe  # noqa: F401  (numba.np.unsafe.ndarray reached as attributes)
