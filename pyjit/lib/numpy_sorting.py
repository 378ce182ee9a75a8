"""np.unique, written in the compiled subset (sorted, flattened; NaNs collapse into one, as in
NumPy 2)."""
import numpy as np

from ._util import is_array, overload


@overload(np.unique)
def _unique(ar):
    if not is_array(ar):
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
