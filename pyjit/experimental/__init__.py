"""pyjit.experimental: Numba's numba.experimental names.

    from pyjit.experimental import jitclass

jitclass makes a class whose instances live in compiled memory (see pyjit/experimental/
_jitclass.py and docs/jitclass.md); structref (pyjit.experimental.structref) makes structs whose
field types come from their constructor's arguments, on the same machinery. Importing this
package loads no compiler: a class is built when jitclass is applied.
"""

__all__ = ["jitclass"]


def jitclass(cls_or_spec=None, spec=None):
    """@jitclass, @jitclass(spec) or jitclass(cls, spec): Numba's jitclass. spec lists the fields
    and their types: a list of (name, type) pairs, or a dict (name -> type); annotations of the
    class (x: float64) give the fields the spec does not. Returns the jitclass, whose instances are
    made in Python or in compiled code and passed both ways."""
    from . import _jitclass
    return _jitclass.jitclass(cls_or_spec, spec)
