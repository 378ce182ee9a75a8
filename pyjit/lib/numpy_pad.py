"""np.pad written in the compiled subset: the modes 'constant', 'edge', 'wrap', 'reflect',
'symmetric' and 'empty' of arrays of any ndim.

The widths (an int, a pair, or a pair per axis, as NumPy broadcasts pad_width) become an (ndim, 2)
array; the array is copied into the middle of the result, then each axis is padded in turn over
the whole extent of the others, as NumPy's pad does, so the corners take the values the axes
padded before them hold. The modes that repeat the array are periodic extensions of its items
along the axis (wrap: period n; symmetric: the items and their mirror, 2n; reflect: the mirror
without the edge item, 2n - 2), which is what NumPy's chunk-by-chunk padding builds."""
import numpy as np

from ._util import generated, is_array, is_number, overload, register_jitable, types

_MODES = ("constant", "edge", "wrap", "reflect", "symmetric", "empty")


def _pairs_source(t, name, nd, what):
    """Source lines filling an (nd, 2) array `name` from t, an int or number, a tuple of one or
    two of them, or a tuple of such pairs (one, or one per axis), as np.pad broadcasts them."""
    if is_number(t) or isinstance(t, (int, float)):   # a number, or the default 0 left as it is
        return [f"{name}[:, :] = {what}"]
    if not isinstance(t, types.BaseTuple) or len(t) == 0:
        raise TypeError(f"np.pad: {what} takes an int, a pair or a pair per axis, not {t}")
    items = list(t)
    if all(is_number(x) for x in items):
        if len(items) == 1:
            return [f"{name}[:, :] = {what}[0]"]
        if len(items) == 2:
            return [f"{name}[:, 0] = {what}[0]", f"{name}[:, 1] = {what}[1]"]
        raise ValueError(f"np.pad: {what} of {len(items)} numbers cannot broadcast to ({nd}, 2)")
    if not all(isinstance(x, types.BaseTuple) and 1 <= len(x) <= 2 and
               all(is_number(y) for y in x) for x in items):
        raise TypeError(f"np.pad: {what} takes an int, a pair or a pair per axis, not {t}")
    if len(items) not in (1, nd):
        raise ValueError(f"np.pad: {what} of {len(items)} pairs cannot broadcast to ({nd}, 2)")
    lines = []
    for d in range(nd):
        k = 0 if len(items) == 1 else d
        pair = items[k]
        lines.append(f"{name}[{d}, 0] = {what}[{k}][0]")
        lines.append(f"{name}[{d}, 1] = {what}[{k}][{len(pair) - 1}]")
    return lines


# the source item (an index into the axis's own n items, from j = i - before) of each mode
_SOURCE = {
    "edge": "0 if j < 0 else n - 1",
    "wrap": "j % n",
    "symmetric": "_mirror(j % (2 * n), n, 2 * n - 1)",
    "reflect": "0 if n == 1 else _mirror(j % (2 * n - 2), n, 2 * n - 2)",
}


@register_jitable
def _mirror(t, n, top):
    """The item a mirrored period's position t stands for: itself in the first n, then back."""
    return t if t < n else top - t


@overload(np.pad)
def _pad(array, pad_width, mode="constant", constant_values=0, reflect_type="even"):
    if not is_array(array):
        return None
    if isinstance(mode, types.StringLiteral):
        mode = mode.literal_value
    elif not isinstance(mode, str):      # a str: the default left as it is
        raise TypeError("np.pad: mode= must be a constant string in compiled code (one of "
                        f"{', '.join(_MODES)}), not {mode}")
    if mode not in _MODES:
        raise ValueError(f"np.pad: mode '{mode}' is not supported in compiled code (supported: "
                         f"{', '.join(_MODES)}; NumPy also has linear_ramp, maximum, mean, "
                         "median, minimum)")
    if isinstance(reflect_type, types.StringLiteral) and reflect_type.literal_value != "even":
        raise ValueError("np.pad: reflect_type='odd' is not supported in compiled code")
    nd = array.ndim
    if nd == 0:
        raise ValueError("np.pad of a 0-d array: NumPy pads nothing; pass a 1-d array")
    lines = ["widths = np.empty((%d, 2), np.int64)" % nd]
    lines += _pairs_source(pad_width, "widths", nd, "pad_width")
    lines += ["for d in range(%d):" % nd,
              "    if widths[d, 0] < 0 or widths[d, 1] < 0:",
              "        raise ValueError(\"index can't contain negative values\")"]
    shape = ", ".join(f"array.shape[{d}] + widths[{d}, 0] + widths[{d}, 1]" for d in range(nd))
    lines.append(f"out = np.empty(({shape},), array.dtype)")
    if mode == "constant":
        lines.append("values = np.empty((%d, 2), array.dtype)" % nd)
        lines += _pairs_source(constant_values, "values", nd, "constant_values")
    middle = ", ".join(f"widths[{d}, 0]:widths[{d}, 0] + array.shape[{d}]" for d in range(nd))
    lines.append(f"out[{middle}] = array")
    if mode != "empty":
        for d in range(nd):
            lines += [f"v = np.moveaxis(out, {d}, 0)" if d else "v = out",
                      f"before, n = widths[{d}, 0], array.shape[{d}]",
                      "total = v.shape[0]"]
            if mode == "constant":
                lines += ["for i in range(before):", f"    v[i] = values[{d}, 0]",
                          "for i in range(before + n, total):", f"    v[i] = values[{d}, 1]"]
                continue
            lines += ["if n == 0 and total > 0:",
                      "    raise ValueError(\"can't extend empty axis %d using modes other "
                      "than 'constant' or 'empty'\")" % d,
                      "for i in range(total):",
                      "    if before <= i < before + n:",
                      "        continue",
                      "    j = i - before",
                      f"    v[i] = v[before + ({_SOURCE[mode]})]"]
    lines.append("return out")
    source = ("def impl(array, pad_width, mode='constant', constant_values=0, "
              "reflect_type='even'):\n" + "".join(f"    {line}\n" for line in lines))
    return generated("impl", source, {"_mirror": _mirror})
