"""pyjit.typed: containers whose memory Python and compiled code share (Numba's numba.typed).

A List is the compiled list itself, owned by a Python object: passed to an @njit function it is
not copied (changes made there are the caller's list's), and one made and returned by compiled
code comes back as a List. Its items have one type, given by List.empty_list(item_type) or by
the first item stored. See docs/guarantees.md (typed lists).

A Dict is a dict of one key type and one value type (Numba's typed.Dict), the same way: a dict
made by compiled code returns as one; passed to a compiled function it is passed as it is, so
changes on either side are seen by the other. Its operations are C (runtime/typed_dict.c).
"""
from collections.abc import MutableSequence as _MutableSequence

from ._core import TypedList as List  # noqa: F401  (the type is C: runtime/typedlist.c)
from ._typed_dict import Dict

__all__ = ["List", "Dict"]

_MutableSequence.register(List)   # as Numba's List, which derives from it
