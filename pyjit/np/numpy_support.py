"""pyjit.np.numpy_support: Numba's conversions between NumPy dtypes and types."""
from ..types import as_dtype, from_dtype

__all__ = ["as_dtype", "from_dtype"]
