"""pyjit.typed.Dict: the C type of runtime/typed_dict.c (its tp_name is pyjit.typed.Dict)."""
from ._core import Dict  # noqa: F401
