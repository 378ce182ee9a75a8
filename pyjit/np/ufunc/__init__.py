"""pyjit.np.ufunc: Numba's `numba.np.ufunc` spellings of the ufunc classes
(`from numba.np.ufunc.gufunc import GUFunc`, libraries' annotations and isinstance checks)."""
from ...vectorize import GUFunc
from . import gufunc  # noqa: F401

__all__ = ["GUFunc"]
