"""pyjit._views: np.lib.stride_tricks.as_strided with a dtype (compiler/builtins.def row
"pyjit._views.as_strided"): a view of an array's memory as items of another type, on which
pyjit/lib builds a.view(dtype) and np.frombuffer after checking sizes and alignment. It has no
meaning in Python."""


def as_strided(x, shape, strides, dtype):
    raise NotImplementedError("pyjit._views.as_strided runs only in compiled code")
