"""pyjit.np.unsafe: Numba's `numba.np.unsafe` spellings (ndarray.to_fixed_tuple)."""
from . import ndarray  # noqa: F401
