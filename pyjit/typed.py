"""pyjit.typed: containers whose memory Python and compiled code share (Numba's numba.typed).

A List is the compiled list itself, owned by a Python object: passed to an @njit function it is
not copied (changes made there are the caller's list's), and one made and returned by compiled
code comes back as a List. Its items have one type, given by List.empty_list(item_type) or by
the first item stored. See docs/guarantees.md (typed lists).

A Dict is a dict of one key type and one value type (Numba's typed.Dict), the same way: a dict
made by compiled code returns as one; passed to a compiled function it is passed as it is, so
changes on either side are seen by the other. Its operations are C (runtime/typed_dict.c).

A Set (Numba's typed.Set) is a Python set that knows its item type, from Set.empty(item_type)
or from its first item, so an empty one can be passed too. Passed to compiled code, what the
code adds and discards is written back into it when the call returns (pyjit's reflected sets);
a set made in compiled code returns as a Python set. Set() and Set.empty(item_type) work in
compiled code as well.
"""
from collections.abc import MutableSequence as _MutableSequence

from ._core import TypedList as List  # noqa: F401  (the type is C: runtime/typedlist.c)
from ._typed_dict import Dict

__all__ = ["List", "Dict", "Set"]


class Set(set):
    """A set of one item type (Numba's numba.typed.Set): Set.empty(types.int64), Set(), or
    Set(iterable)."""

    _item_type = None   # the canonical name of the item type, once known

    @classmethod
    def empty(cls, key_type):
        """An empty Set of items of key_type (types.unicode_type, types.int64, ...)."""
        from . import types
        made = cls()
        made._item_type = types._as_type(key_type).name
        return made

    def _check(self, item):
        from . import types
        name = types.unliteral(types.typeof(item)).name
        if self._item_type is None:
            self._item_type = name
        elif (name == "str") != (self._item_type == "str"):
            raise TypeError(f"Set of {self._item_type}: cannot add {item!r} ({name})")

    def add(self, item):
        self._check(item)
        super().add(item)

    def update(self, *iterables):
        for it in iterables:
            for item in it:
                self.add(item)

    @property
    def _numba_type_(self):
        """The set's pyjit type, as typeof() gives it (Numba's attribute); None until known."""
        from . import types
        if self._item_type is None and not self:
            return None
        return types.typeof(self) if self else types.Set(types._from_canonical(self._item_type))

    def __repr__(self):
        return f"Set({set(self)!r})" if self else "Set()"



_MutableSequence.register(List)   # as Numba's List, which derives from it


def _submodule(name, doc, **names):
    """A module object under pyjit.typed, importable by its name as well (sys.modules)."""
    import sys
    import types as _pytypes
    mod = _pytypes.ModuleType(f"{__name__}.{name}", doc)
    mod.__dict__.update(names)
    sys.modules[mod.__name__] = mod
    return mod


def _container_types():
    from .types import DictType, ListType
    return ListType, DictType


# Numba's submodules of numba.typed, which code imports the containers from
# (`from numba.typed import typedlist` ... `typedlist.List.empty_list(item_type)`)
typedlist = _submodule("typedlist", "Numba's numba.typed.typedlist: the typed List.", List=List,
                       ListType=_container_types()[0])
typeddict = _submodule("typeddict", "Numba's numba.typed.typeddict: the typed Dict.", Dict=Dict,
                       DictType=_container_types()[1])

