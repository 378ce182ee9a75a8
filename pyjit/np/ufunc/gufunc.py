"""pyjit.np.ufunc.gufunc: `from numba.np.ufunc.gufunc import GUFunc` names what
@guvectorize makes (pyjit.vectorize.GUFunc)."""
from ...vectorize import GUFunc

__all__ = ["GUFunc"]
