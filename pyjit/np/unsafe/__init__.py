"""pyjit.np.unsafe: Numba's `numba.np.unsafe` spellings (ndarray.to_fixed_tuple)."""
