"""The options of @gpu.jit, checked once for both backends (hardware and simulator).

numba-cuda's jit takes these keywords; pyjit gives each the same meaning, or refuses it with an
error naming it, so that no option is silently dropped:

    debug, opt, fastmath, lineinfo, cache   as before (code generation and the on-disk cache)
    max_registers=n                         .maxnreg n: ptxas keeps the kernel within n registers
    launch_bounds=n or (n, m) or (n, m, c)  .maxntid n, .minnctapersm m, .maxclusterrank c; a
                                            launch of more than n threads a block is a ValueError
    inline, forceinline                     accepted: LLVM inlines device functions already
    error_model='python' or 'numpy'         as @njit's: 'numpy' makes division by zero inf, nan
                                            or 0 and math.sqrt(-1) nan instead of raising. The
                                            default is numba-cuda's: 'numpy', or 'python' with
                                            debug=True
    link=[files]                            CUDA C, PTX, cubin, fatbin, object, library or LTO-IR
                                            files linked into the kernel (pyjit/gpu/_link.py);
                                            each must exist
Any other keyword is a TypeError naming it and listing these.
"""
import os

ACCEPTED = ("debug", "opt", "fastmath", "lineinfo", "cache", "max_registers", "launch_bounds",
            "inline", "forceinline", "link", "error_model")

# The extensions numba-cuda's linker takes (cuda.declare_device and link=).
LINKABLE = (".cu", ".ptx", ".cubin", ".fatbin", ".o", ".a", ".ltoir")


def _positive_int(name, value, limit, least=1):
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= limit:
        raise TypeError(f"gpu.jit({name}=...): an int from {least} to {limit}, not {value!r}")
    return value


def launch_bounds(value):
    """(max threads a block, min blocks a multiprocessor, max blocks a cluster), 0 where not
    given (a 0 given is the same); None stays None."""
    if value is None:
        return None
    items = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(items) <= 3:
        raise TypeError("gpu.jit(launch_bounds=...): an int (max threads a block) or a tuple "
                        "(maxThreadsPerBlock, minBlocksPerMultiprocessor, maxBlocksPerCluster) "
                        f"of 1 to 3 ints, not {value!r}")
    bounds = [_positive_int("launch_bounds", items[0], 1024)]
    for item in items[1:]:
        bounds.append(_positive_int("launch_bounds", item, 2 ** 31 - 1, least=0))
    return tuple(bounds + [0] * (3 - len(bounds)))


def link_files(files):
    """The files of link=[...], each checked to exist (numba-cuda's error for a missing one)."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    paths = []
    for f in files:
        path = os.fspath(f)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"gpu.jit(link=...): no such file: {path!r}")
        if not path.endswith(LINKABLE):
            raise TypeError(f"gpu.jit(link=...): cannot link {path!r}: the linker takes "
                            f"{', '.join(LINKABLE)} files")
        paths.append(path)
    return paths


def _numbapro_signature(options, device):
    """numbapro's cuda.jit(argtypes=[...], restype=...), which numba-cuda refuses too: the
    signature to write instead, spelt from the types given."""
    def name(t):
        ndim, layout = getattr(t, "ndim", None), getattr(t, "layout", None)
        if ndim and layout and hasattr(t, "dtype"):      # float64[:, ::1] as Numba spells it
            axes = [":"] * ndim
            if layout in "CF":
                axes[-1 if layout == "C" else 0] = "::1"
            return f"{name(t.dtype)}[{', '.join(axes)}]"
        return getattr(t, "name", None) or str(t)
    try:
        args = ", ".join(name(t) for t in options.get("argtypes") or ())
        ret = name(options["restype"]) if options.get("restype") is not None else "void"
        sig = f"'{ret}({args})'"
    except TypeError:
        sig = "'void(float32[:], ...)'"
    return (f"gpu.jit(argtypes=..., restype=...) is numbapro's form, which numba-cuda no longer "
            f"takes either: give the signature first, gpu.jit({sig}"
            f"{', device=True' if device else ''})")


def check(options, device=False, debug=False):
    """The options of a @gpu.jit, checked and made canonical: a dict of the accepted names.
    error_model defaults to numba-cuda's choice: Python's with debug=True (a division by zero
    raises ZeroDivisionError, reported after the launch), NumPy's otherwise (inf or nan)."""
    unknown = sorted(set(options) - set(ACCEPTED))
    if "argtypes" in options or "restype" in options:
        raise TypeError(_numbapro_signature(options, device))
    if unknown:
        raise TypeError(f"gpu.jit() got unexpected option{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(repr(u) for u in unknown)}; it accepts device, "
                        f"{', '.join(ACCEPTED)}")
    opts = dict(options)
    if opts.get("max_registers") is not None:
        opts["max_registers"] = _positive_int("max_registers", opts["max_registers"], 255)
    opts["launch_bounds"] = launch_bounds(opts.get("launch_bounds"))
    opts.setdefault("error_model", "python" if debug else "numpy")
    if opts["error_model"] not in ("python", "numpy"):
        raise TypeError(f"gpu.jit(error_model=...): 'python' or 'numpy', not "
                        f"{opts['error_model']!r}")
    if device and (opts.get("max_registers") or opts["launch_bounds"]):
        raise TypeError("gpu.jit(device=True): max_registers and launch_bounds are a kernel's; "
                        "a device function takes those of the kernel that calls it")
    opts["link"] = tuple(link_files(opts["link"])) if opts.get("link") else ()
    if device and opts["link"]:
        raise TypeError("gpu.jit(device=True, link=...): files are linked into kernels; give "
                        "link= to the kernel (or to declare_device)")
    return opts


def check_block(name, bounds, threads):
    """A launch of `threads` threads a block of a kernel with launch_bounds: within them."""
    if bounds and threads > bounds[0]:
        raise ValueError(f"kernel '{name}': a block of {threads} threads; its launch_bounds "
                         f"allow at most {bounds[0]} threads a block")
