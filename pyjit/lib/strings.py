"""Methods of strings written in the compiled subset: what needs no more than len, indexing,
slicing, +, * and find (the primitives lower_str.c compiles over runtime/str.c). Semantics and
messages are CPython's."""
import numpy as np

from .. import types
from ..extending import overload_method

_END = 2**62   # past any string's end


def _is_int(t):
    return isinstance(t, (types.Integer, types.Boolean))


@overload_method(types.UnicodeType, "index")
def _index(s, sub, start=0, end=_END):
    def impl(s, sub, start=0, end=_END):
        i = s.find(sub, start, end)
        if i < 0:
            raise ValueError("substring not found")
        return i
    return impl


@overload_method(types.UnicodeType, "rindex")
def _rindex(s, sub, start=0, end=_END):
    def impl(s, sub, start=0, end=_END):
        i = s.rfind(sub, start, end)
        if i < 0:
            raise ValueError("substring not found")
        return i
    return impl


@overload_method(types.UnicodeType, "zfill")
def _zfill(s, width):
    if not _is_int(width):
        return None

    def impl(s, width):
        n = len(s)
        if width <= n:
            return s
        zeros = "0" * (width - n)
        if n > 0 and (s[0] == "+" or s[0] == "-"):
            return s[0] + zeros + s[1:]
        return zeros + s
    return impl


@overload_method(types.UnicodeType, "ljust")
def _ljust(s, width, fillchar=" "):
    if not _is_int(width):
        return None

    def impl(s, width, fillchar=" "):
        if len(fillchar) != 1:
            raise TypeError("The fill character must be exactly one character long")
        return s + fillchar * (width - len(s))
    return impl


@overload_method(types.UnicodeType, "rjust")
def _rjust(s, width, fillchar=" "):
    if not _is_int(width):
        return None

    def impl(s, width, fillchar=" "):
        if len(fillchar) != 1:
            raise TypeError("The fill character must be exactly one character long")
        return fillchar * (width - len(s)) + s
    return impl


@overload_method(types.UnicodeType, "center")
def _center(s, width, fillchar=" "):
    if not _is_int(width):
        return None

    def impl(s, width, fillchar=" "):
        if len(fillchar) != 1:
            raise TypeError("The fill character must be exactly one character long")
        margin = width - len(s)
        if margin <= 0:
            return s
        left = margin // 2 + (margin & width & 1)   # CPython's rounding of the odd margin
        return fillchar * left + s + fillchar * (margin - left)
    return impl


@overload_method(types.UnicodeType, "partition")
def _partition(s, sep):
    def impl(s, sep):
        if len(sep) == 0:
            raise ValueError("empty separator")
        i = s.find(sep)
        if i < 0:
            return s, s[:0], s[:0]
        return s[:i], sep, s[i + len(sep):]
    return impl


def _no_sep(sep):
    return sep is None or isinstance(sep, (types.NoneType, types.Omitted))


@overload_method(types.UnicodeType, "rsplit")
def _rsplit(s, sep=None, maxsplit=-1):
    if _no_sep(sep):
        def by_whitespace(s, sep=None, maxsplit=-1):
            parts = [s[:0]]
            parts.pop()
            j = len(s)
            while True:
                while j > 0 and s[j - 1].isspace():
                    j -= 1
                if j == 0:
                    break
                if len(parts) == maxsplit:   # the rest, its leading whitespace kept
                    parts.append(s[:j])
                    break
                i = j
                while i > 0 and not s[i - 1].isspace():
                    i -= 1
                parts.append(s[i:j])
                j = i
            parts.reverse()
            return parts
        return by_whitespace

    def by_sep(s, sep=None, maxsplit=-1):
        if len(sep) == 0:
            raise ValueError("empty separator")
        parts = [s[:0]]
        parts.pop()
        j = len(s)
        while len(parts) != maxsplit:
            i = s.rfind(sep, 0, j)
            if i < 0:
                break
            parts.append(s[i + len(sep):j])
            j = i
        parts.append(s[:j])
        parts.reverse()
        return parts
    return by_sep


_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@overload_method(types.UnicodeType, "splitlines")
def _splitlines(s, keepends=False):
    def impl(s, keepends=False):
        parts = [s[:0]]
        parts.pop()
        n = len(s)
        start = 0
        i = 0
        while i < n:
            c = s[i]
            if c in _LINE_BREAKS:
                end = i
                if c == "\r" and i + 1 < n and s[i + 1] == "\n":
                    i += 1
                parts.append(s[start:i + 1] if keepends else s[start:end])
                start = i + 1
            i += 1
        if start < n:
            parts.append(s[start:])
        return parts
    return impl


@overload_method(types.UnicodeType, "rpartition")
def _rpartition(s, sep):
    def impl(s, sep):
        if len(sep) == 0:
            raise ValueError("empty separator")
        i = s.rfind(sep)
        if i < 0:
            return s[:0], s[:0], s
        return s[:i], sep, s[i + len(sep):]
    return impl


@overload_method(types.UnicodeType, "removeprefix")
def _removeprefix(s, prefix):
    def impl(s, prefix):
        if s.startswith(prefix):
            return s[len(prefix):]
        return s
    return impl


@overload_method(types.UnicodeType, "removesuffix")
def _removesuffix(s, suffix):
    def impl(s, suffix):
        if len(suffix) > 0 and s.endswith(suffix):
            return s[:len(s) - len(suffix)]
        return s
    return impl


@overload_method(types.UnicodeType, "istitle")
def _istitle(s):
    def impl(s):
        cased = False
        previous = False
        for c in s:
            # upper case, or title case ('ǅ': neither upper nor lower, and unlike both)
            if c.isupper() or (not c.islower() and c.upper() != c and c.lower() != c):
                if previous:
                    return False
                previous = True
                cased = True
            elif c.islower():
                if not previous:
                    return False
                cased = True
            else:
                previous = False
        return cased
    return impl


@overload_method(types.UnicodeType, "isascii")
def _isascii(s):
    def impl(s):
        for c in s:
            if ord(c) >= 128:
                return False
        return True
    return impl


# Characters CPython does not print among those below U+3000: the C0 and C1 controls, the
# separators other than the space, and the format characters.
_UNPRINTABLE = ("\xa0\xad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180e"
                "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u200b"
                "\u200c\u200d\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u202f"
                "\u205f\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b"
                "\u206c\u206d\u206e\u206f")


@overload_method(types.UnicodeType, "isprintable")
def _isprintable(s):
    def impl(s):
        for c in s:
            o = ord(c)
            if o < 32 or 127 <= o < 160 or (o < 0x3000 and c in _UNPRINTABLE) or \
                    o == 0x3000 or 0xd800 <= o < 0xe000 or o == 0xfeff:
                return False
        return True
    return impl


@overload_method(types.UnicodeType, "expandtabs")
def _expandtabs(s, tabsize=8):
    if isinstance(tabsize, types.Type) and not isinstance(tabsize, types.Omitted) and \
            not _is_int(tabsize):
        return None

    def impl(s, tabsize=8):
        out = [s[:0]]
        out.pop()
        column = 0
        for c in s:
            if c == "\t":
                if tabsize > 0:
                    pad = tabsize - column % tabsize
                    out.append(" " * pad)
                    column += pad
            else:
                out.append(c)
                column = 0 if c == "\n" or c == "\r" else column + 1
        return s[:0].join(out)
    return impl


# ---- unicode arrays ('U<n>') compared with a str, element by element as NumPy does -----------

def _text_comparison(equal):
    def typing(a, s):
        if not isinstance(a, types.Array) or not isinstance(a.dtype, types.UnicodeCharSeq):
            return None

        def impl(a, s):
            out = np.empty(a.shape, np.bool_)
            flat = out.reshape(-1)
            k = 0
            for idx in np.ndindex(a.shape):
                flat[k] = (a[idx] == s) == equal
                k += 1
            return out
        return impl
    return typing


overload_method(types.Array, "_text_eq")(_text_comparison(True))
overload_method(types.Array, "_text_ne")(_text_comparison(False))
