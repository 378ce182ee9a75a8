"""The geometry of a new array made like another (device_array_like, pinned_array_like,
mapped_array_like), as numba-cuda makes it: a C- or F-contiguous array (or one of at most one
axis) gives an array of its order; any other array (a strided or transposed view) gives a
contiguous array whose axes are laid out in the order of the given array's strides, smallest
first, so that a transposed view's copy is transposed too. numba-cuda orders the strides by
their signed values, a negative stride first; so does this. The compiled backend's
device_array_like (runtime/devarray.c: strides_like) computes the same in C."""


def _flags(ary):
    flags = ary.flags
    return bool(flags["C_CONTIGUOUS"]), bool(flags["F_CONTIGUOUS"])


def like_geometry(ary):
    """(strides in bytes or None, order) for a new contiguous array like ary (a NumPy array or a
    device array of any backend)."""
    c, f = _flags(ary)
    order = "F" if f and not c else "C"
    if c or f or ary.ndim <= 1:
        return None, order
    strides = [0] * ary.ndim
    step = ary.dtype.itemsize
    for axis, _ in sorted(enumerate(ary.strides), key=lambda item: item[1]):
        strides[axis] = step
        step *= ary.shape[axis]
    return tuple(strides), order


def strided_over(flat, shape, dtype, strides):
    """A NumPy array of this shape and strides over flat, a contiguous NumPy array of at least
    the elements it needs (strides None: flat itself, reshaped in order C)."""
    import numpy as np
    if strides is None:
        return flat
    return np.ndarray(shape, dtype, buffer=flat, strides=strides)


def byte_extent(shape, strides, itemsize):
    """(lowest, highest + 1) byte offsets from element [0, ..., 0] that an array of this
    geometry reaches; (0, 0) when it is empty."""
    if any(n == 0 for n in shape):
        return 0, 0
    lo, hi = 0, itemsize
    for n, s in zip(shape, strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi
