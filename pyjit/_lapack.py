"""The LAPACK calls pyjit/lib/numpy_linalg.py makes in compiled code: builtins.def's
pyjit._lapack rows, over runtime/linalg.c (SciPy's LAPACK). Compiled code only; the
statuses below are runtime/linalg.c's, beside LAPACK's own info.

capi() is where runtime/linalg.c finds SciPy's function pointers."""
import importlib.machinery
import importlib.util
import os
import sys

NO_SCIPY = -1001
NO_MEMORY = -1002
TOO_LARGE = -1003
COMPLEX = -1004


def capi():
    """The __pyx_capi__ dicts (name -> capsule of the C function) of scipy.linalg.cython_lapack
    and cython_blas. Importing scipy.linalg costs half a second, which the first compilation
    using np.linalg would pay: the two extension modules are loaded from their files on their
    own instead (they need only the scipy package), unless they already are."""
    import scipy
    found = []
    for name in ("cython_lapack", "cython_blas"):
        full = "scipy.linalg." + name
        mod = sys.modules.get(full) or _load_alone(scipy, name) or importlib.import_module(full)
        found.append(mod.__pyx_capi__)
    return tuple(found)


def _load_alone(scipy, name):
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(scipy.__path__[0], "linalg", name + suffix)
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location("scipy.linalg." + name, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod
    return None


def getrf(*args):
    raise TypeError("getrf() is called by pyjit's compiled np.linalg only")


def getri(*args):
    raise TypeError("getri() is called by pyjit's compiled np.linalg only")


def gesv(*args):
    raise TypeError("gesv() is called by pyjit's compiled np.linalg only")


def potrf(*args):
    raise TypeError("potrf() is called by pyjit's compiled np.linalg only")


def syevd(*args):
    raise TypeError("syevd() is called by pyjit's compiled np.linalg only")


def geev(*args):
    raise TypeError("geev() is called by pyjit's compiled np.linalg only")


def gesdd(*args):
    raise TypeError("gesdd() is called by pyjit's compiled np.linalg only")


def gelsd(*args):
    raise TypeError("gelsd() is called by pyjit's compiled np.linalg only")


def geqrf(*args):
    raise TypeError("geqrf() is called by pyjit's compiled np.linalg only")


def orgqr(*args):
    raise TypeError("orgqr() is called by pyjit's compiled np.linalg only")
