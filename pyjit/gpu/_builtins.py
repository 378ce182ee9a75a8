"""The kernel language's names, read from compiler/builtins.def (through _core.builtin_table()).

Both backends offer exactly the "gpu.*" rows of that table: the compiled backend (hardware.py)
as host-side stand-ins that say they run only in kernels, the simulator (simulator/__init__.py)
as its Python implementations. Adding a row to builtins.def adds the name to both; a row the
simulator cannot implement fails tests/test_builtins_table.py. No NumPy is imported here.

    INTRINSICS  functions called as gpu.<name>(...): "syncthreads", "shfl_sync", ...
    NAMESPACES  {"atomic": ("add", ...), "shared": ("array",), "threadIdx": (), ...}: the
                functions of each gpu.<space>; threadIdx and friends have attributes (x, y, z),
                which are values, not functions
    ATTRIBUTES  {"threadIdx": ("x", "y", "z"), ...}: those attributes
    VALUES      names read as values, with no call: ("laneid",)
    MEMBERS     {"cg.GridGroup": ("size", "sync"), ...}: the members of values that kernels make
                (gpu.cg.this_grid()'s grid group), from the "gpu.<space>.<Class>.<member>" rows
"""
from .. import _core


def _read():
    intrinsics, spaces, attributes, values, members_of = [], {}, {}, [], {}
    for name, _where, form in _core.builtin_table():
        if not name.startswith("gpu."):
            continue
        parts = name[len("gpu."):].split(".")
        if len(parts) == 1:
            (values if form.startswith("value") else intrinsics).append(parts[0])
            continue
        if len(parts) == 3:
            members_of.setdefault(".".join(parts[:2]), []).append(parts[2])
            continue
        space, member = parts
        members = spaces.setdefault(space, [])
        if form.startswith("attribute"):
            attributes.setdefault(space, []).append(member)
        else:
            members.append(member)
    return (tuple(intrinsics), {k: tuple(v) for k, v in spaces.items()},
            {k: tuple(v) for k, v in attributes.items()}, tuple(values),
            {k: tuple(sorted(v)) for k, v in members_of.items()})


INTRINSICS, NAMESPACES, ATTRIBUTES, VALUES, MEMBERS = _read()
