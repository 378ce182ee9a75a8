"""numba.np.unsafe.ndarray's spelling: to_fixed_tuple(array, length), the first `length` items
of a 1-d array as a tuple, `length` a constant (an int written in the code, a global, or an
array's ndim). Compiled code reads the items unchecked, as Numba's does; in Python it is
tuple(array[:length]), the length checked."""


def to_fixed_tuple(array, length):
    if length > len(array):
        raise IndexError(f"to_fixed_tuple() of {length} items from an array of {len(array)}")
    return tuple(array[:length])
