"""NumPy structured dtypes as pyjit record types.

`type_name(dtype)` writes the canonical name of a structured dtype's record type (compiler/types.h:
`record(x:float64@0, v:float32[3]@8, size=24, aligned)`), which the C side parses into the type;
the runtime (typeof of an array or a np.void argument) and the frontend (a dtype constant such as
`np.zeros(n, dtype=particle)`) both go through it, so the two agree on every layout.
"""
import numpy as np

_SCALARS = {
    ("b", 1): "bool",
    ("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
    ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
    ("f", 2): "float16", ("f", 4): "float32", ("f", 8): "float64",
    ("c", 8): "complex64", ("c", 16): "complex128",
}


_UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "generic")


def _identifier(name):
    if not name or len(name) >= 64:
        return False
    for ch in name:
        if not (ch.isascii() and (ch.isalnum() or ch == "_")):
            return False
    return True


def _item_name(dt):
    """The name of a field's element type (a scalar or a nested record), or None."""
    if dt.names is not None:
        return type_name(dt)
    if not dt.isnative:
        return None
    if dt.kind in "mM":   # datetime64[D], timedelta64[ns], of one unit
        unit, count = np.datetime_data(dt)
        if count != 1 or unit not in _UNITS:
            return None
        base = "datetime64" if dt.kind == "M" else "timedelta64"
        return base + ("[%s]" % unit if unit != "generic" else "")
    return _SCALARS.get((dt.kind, dt.itemsize))


def dtype_name(dtype):
    """The canonical name compiled code knows a NumPy dtype constant by: its record type's for a
    structured dtype, dtype(float32) for a number's (a value typed as `a.dtype` is), or None."""
    if dtype.names is not None:
        return type_name(dtype)
    if dtype.kind in "mM":
        return None   # datetime dtypes as values are not taken yet
    item = _item_name(dtype)
    return "dtype(%s)" % item if item is not None else None


def type_name(dtype):
    """The record type's canonical name of a structured dtype, or None when compiled code does
    not take it (a field of another dtype, an odd field name, overlapping fields)."""
    if dtype.names is None or dtype.hasobject:
        return None
    parts = []
    for name in dtype.names:
        if not _identifier(name):
            return None
        field = dtype.fields[name]
        dt, offset = field[0], field[1]
        shape = ()
        if dt.subdtype is not None:
            dt, shape = dt.subdtype
        item = _item_name(dt)
        if item is None:
            return None
        dims = "[" + ",".join([str(n) for n in shape]) + "]" if shape else ""
        parts.append("%s:%s%s@%d, " % (name, item, dims, offset))
    aligned = ", aligned" if dtype.isalignedstruct else ""
    return "record(%ssize=%d%s)" % ("".join(parts), dtype.itemsize, aligned)


def get_field(record):
    """Compiled code only: what r.x and r['x'] become."""
    raise TypeError("get_field() is what compiled code makes of r.x; read the field")


def set_field(record, value):
    """Compiled code only: what r.x = v and r['x'] = v become."""
    raise TypeError("set_field() is what compiled code makes of r.x = v; assign the field")


def field_view(array):
    """Compiled code only: what a['x'] of an array of records becomes."""
    raise TypeError("field_view() is what compiled code makes of a['x']; index the array")


def datetime_binop(a, b):
    """Compiled code only: what an operator on datetimes becomes."""
    raise TypeError("datetime_binop() is what compiled code makes of an operator on datetimes")


def datetime_compare(a, b):
    """Compiled code only: what a comparison of datetimes becomes."""
    raise TypeError("datetime_compare() is what compiled code makes of a comparison of datetimes")
