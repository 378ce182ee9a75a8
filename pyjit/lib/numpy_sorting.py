"""np.unique, written in the compiled subset and compiled per dtype (as Numba does).

np.sort, a.sort(), np.argsort, a.argsort(), np.partition and np.argpartition are builtins
(compiler/builtins.def) over runtime/sort.c: sorting compiled per element type in C compiles in
no time, where the same algorithms in the subset cost each caller's first compile LLVM's
optimisation of them (about 150 ms)."""
import numpy as np

from ._util import is_array, overload, types


def _sortable(a):
    return is_array(a) and isinstance(a.dtype, (types.Integer, types.Float, types.Boolean))


@overload(np.unique)
def _unique(ar):
    if not _sortable(ar):
        return None
    dt = ar.dtype

    def impl(ar):
        b = np.sort(ar.ravel())
        out = np.empty(b.size, dtype=dt)
        n = 0
        for i in range(b.size):
            v = b[i]
            if v != v:          # NaNs sort last: keep one
                out[n] = v
                n += 1
                break
            if n == 0 or v != out[n - 1]:
                out[n] = v
                n += 1
        return out[:n].copy()
    return impl
