"""The LAPACK calls pyjit/lib/numpy_linalg.py makes in compiled code: builtins.def's
pyjit.lib._lapack rows, over runtime/linalg.c (SciPy's LAPACK). Compiled code only; the
statuses below are runtime/linalg.c's, beside LAPACK's own info."""

NO_SCIPY = -1001
NO_MEMORY = -1002
TOO_LARGE = -1003
COMPLEX = -1004


def getrf(*args):
    raise TypeError("getrf() is called by pyjit's compiled np.linalg only")


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
