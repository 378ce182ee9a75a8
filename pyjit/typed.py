"""pyjit.typed: containers shared between Python and compiled code, as Numba's numba.typed.

Dict: a dict of one key type and one value type (Numba's typed.Dict). A dict made by compiled
code returns as one; passed to a compiled function it is passed as it is, without a copy, so
changes on either side are seen by the other. Its operations are implemented in C
(runtime/typed_dict.c).
"""
from ._typed_dict import Dict

__all__ = ["Dict"]
