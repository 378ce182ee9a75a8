"""pyjit.np: Numba's `numba.np` spellings (numba.np.numpy_support)."""
