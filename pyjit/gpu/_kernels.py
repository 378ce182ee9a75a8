"""What both backends' kernels share: the block size a launch configuration gives, and
kernel.specialize's kernel for one set of argument types (numba-cuda's specialize).

Each backend passes its own `types_of(args)` (the type names its launch gives the arguments),
so a specialised kernel refuses the same arguments in the simulator as on the GPU.
"""
import operator


def threads_of(blockdim):
    """The threads of a block given as an int or a tuple of ints."""
    n = 1
    for d in (blockdim if isinstance(blockdim, tuple) else (blockdim,)):
        try:
            n *= operator.index(d)
        except TypeError:
            raise TypeError(f"blockdim must be an int or a tuple of ints, not {blockdim!r}") \
                from None
    if n < 1:
        raise ValueError(f"blockdim {blockdim!r}: each dimension must be at least 1")
    return n


class LaunchForms:
    """What a Python-side kernel (the simulator's, the CPU backend's) offers beside
    kernel[griddim, blockdim, stream, sharedmem]: configure, forall, and the error of a call
    without a configuration."""

    specialized = False

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        return self[griddim, blockdim, stream, sharedmem]

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        ntasks = int(ntasks)
        tpb = int(tpb) or 128
        if ntasks <= 0:
            return lambda *args: None
        return self[(ntasks + tpb - 1) // tpb, tpb, stream, sharedmem]

    def __call__(self, *args, **kwargs):
        raise ValueError(f"kernel '{self.__name__}' was called without a launch configuration: "
                         f"launch it as {self.__name__}[blocks, threads](...)")


class SpecializedKernel:
    """kernel.specialize(*args): the kernel for those argument types only. It launches as the
    kernel does (the same compiled versions) after checking the arguments' types."""

    specialized = True

    def __init__(self, kernel, types_of, args):
        self.kernel = kernel
        self.types_of = types_of
        self.argtypes = types_of(args)
        self.py_func = kernel.py_func
        self.__name__ = kernel.__name__
        self.__qualname__ = kernel.__qualname__

    def __getitem__(self, cfg):
        launch = self.kernel[cfg]

        def checked(*args):
            given = self.types_of(args)
            if given != self.argtypes:
                raise TypeError(f"kernel '{self.__name__}' is specialized for "
                                f"({', '.join(self.argtypes)}), not ({', '.join(given)})")
            return launch(*args)
        return checked

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        return self[griddim, blockdim, stream, sharedmem]

    def specialize(self, *args):
        raise RuntimeError(f"kernel '{self.__name__}' is already specialized")

    def __repr__(self):
        return f"<pyjit.gpu kernel {self.__qualname__} specialized for {self.argtypes}>"
