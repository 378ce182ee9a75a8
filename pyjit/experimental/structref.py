"""numba.experimental.structref has no pyjit counterpart yet."""

raise ImportError("pyjit.experimental.structref is not available: use pyjit.experimental.jitclass, "
                  "whose instances are likewise mutable structs passed by reference between "
                  "Python and compiled code")
