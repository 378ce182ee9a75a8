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

    def inspect_asm(self, signature=None):
        """numba-cuda's inspect_asm: the PTX a GPU would run, {argument types: text} for the
        versions launched so far (or declared), or the text for one signature; pyjit compiles
        PTX without a GPU."""
        from pyjit import _core, _registry, types as _types
        if not hasattr(_core, "cuda_compile_ptx"):
            raise RuntimeError("this pyjit was built without GPU code generation: no PTX")
        if signature is not None:
            versions = [_types._canonical_args(signature)]
        else:
            versions = list(self._versions())
        _registry.populate()
        import sys
        sim = sys.modules.get("pyjit.gpu.simulator")
        if sim is not None:       # its kernels name the interpreted simulator's intrinsics
            _registry.add_gpu_backend(sim)
        texts = {names: _core.cuda_compile_ptx(self.py_func, _registry.REGISTRY, list(names))[0]
                 for names in versions}
        return texts[versions[0]] if signature is not None else texts


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

    def _versions(self):
        return [self.argtypes]

    def inspect_asm(self, signature=None):
        """The PTX of the one version: {argument types: text}, as numba-cuda's."""
        return LaunchForms.inspect_asm(self, signature)

    def __getattr__(self, name):
        # the rest (inspect_types, overloads, options, ...) is the kernel's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.kernel, name)

    def __repr__(self):
        return f"<pyjit.gpu kernel {self.__qualname__} specialized for {self.argtypes}>"


# ---- kernels declared with signatures (numba-cuda's cuda.jit('void(float32[:], float32)') or a
# list of them): a launch takes the first signature whose arrays its arrays match, and converts
# its scalars to that signature's types, as numba-cuda's dispatcher does; in every backend ----

def declared_signatures(kernel):
    """The parsed signatures of a kernel declared with one or a list of them (cached)."""
    sigs = kernel.__dict__.get("_declared_sigs")
    if sigs is None:
        from .. import types as pyjit_types
        given = kernel.signature
        sigs = [pyjit_types.parse_signature(sg)
                for sg in (given if isinstance(given, list) else [given])]
        kernel.__dict__["_declared_sigs"] = sigs
    return sigs


_ARRAY, _SCALAR, _OTHER = range(3)


def _plans(kernel):
    """For each declared signature, what each parameter takes: (_ARRAY, element type, ndim,
    layout), (_SCALAR, the NumPy scalar type it converts to) or (_OTHER,). Cached: a launch
    reads it without parsing."""
    plans = kernel.__dict__.get("_declared_plans")
    if plans is None:
        import numpy as np
        plans = []
        for sig in declared_signatures(kernel):
            params = []
            for t in sig.args:
                kind = t.__class__.__name__
                if kind == "Array":
                    params.append((_ARRAY, t.dtype, t.ndim, t.layout))
                elif kind in ("Integer", "Float", "Complex", "Boolean"):
                    params.append((_SCALAR, np.dtype("bool" if t.name == "bool" else t.name).type))
                else:
                    params.append((_OTHER,))
            plans.append((sig, params))
        kernel.__dict__["_declared_plans"] = plans
    return plans


_ARRAY_CLASSES = {}     # class -> whether its objects are arrays a kernel takes


def _array_of(a):
    """The NumPy or device array an argument is (gpu.In/Out/InOut unwrapped), or None."""
    cls = type(a)
    if cls.__name__ in ("In", "Out", "InOut"):
        a = a.array
        cls = type(a)
    is_array = _ARRAY_CLASSES.get(cls)
    if is_array is None:
        import numpy as np
        is_array = _ARRAY_CLASSES[cls] = issubclass(cls, np.ndarray) or \
            hasattr(cls, "__cuda_array_interface__")
    return a if is_array else None


def _contiguous(a, layout):
    flags = getattr(a, "flags", None)
    if flags is not None:
        return flags.c_contiguous if layout == "C" else flags.f_contiguous
    return a.is_c_contiguous() if layout == "C" else a.is_f_contiguous()


_SAME_DTYPE = {}


def _same_dtype(dtype, t):
    """Whether arrays of NumPy dtype dtype have pyjit's element type t (records included)."""
    key = (dtype, id(t))     # t lives in the kernel's cached plans: its id is stable
    same = _SAME_DTYPE.get(key)
    if same is None:
        from .. import types as pyjit_types
        try:
            same = pyjit_types.from_dtype(dtype) == t
        except (TypeError, ValueError, NotImplementedError):
            same = False
        _SAME_DTYPE[key] = same
    return same


_NUMBERS = (int, float, complex, bool)


def _converted(params, args):
    """args converted for one signature's parameters, or None when its arrays do not match."""
    out = list(args)
    for k, p in enumerate(params):
        a = args[k]
        if p[0] == _SCALAR:
            if type(a) in _NUMBERS or _array_of(a) is None:
                out[k] = p[1](a)
        elif p[0] == _ARRAY:
            arr = _array_of(a)
            if arr is None or arr.ndim != p[2] or not _same_dtype(arr.dtype, p[1]) or \
                    (p[3] != "A" and not _contiguous(arr, p[3])):
                return None
    return out


def signature_args(kernel, args, types_of):
    """args converted for the first declared signature they match; a TypeError naming the
    argument types and the signatures when none does."""
    plans = _plans(kernel)
    for sig, params in plans:
        if len(params) == len(args):
            converted = _converted(params, args)
            if converted is not None:
                return converted
    got = ", ".join(types_of(args))
    want = "\n    ".join("?(" + ", ".join(t.name for t in sig.args) + ")" for sig, _ in plans)
    raise TypeError(f"{kernel.__name__}(): no matching definition for argument type(s) "
                    f"({got}); its signatures:\n    {want}")
