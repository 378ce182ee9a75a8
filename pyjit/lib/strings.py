"""Methods of strings written in the compiled subset: what needs no more than len, indexing,
slicing, +, * and find (the primitives lower_str.c compiles over runtime/str.c). Semantics and
messages are CPython's."""
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


@overload_method(types.UnicodeType, "title")
def _title(s):
    """Each run of cased characters starts upper case, the rest lower (CPython's rule: a cased
    character after a cased one is lowered, any other is raised)."""
    def impl(s):
        out = s[:0]
        prev_cased = False
        for ch in s:
            cased = ch.islower() or ch.isupper()
            if cased:
                out += ch.lower() if prev_cased else ch.upper()
            else:
                out += ch
            prev_cased = cased
        return out
    return impl


@overload_method(types.UnicodeType, "istitle")
def _istitle(s):
    def impl(s):
        prev_cased = False
        seen = False
        for ch in s:
            if ch.isupper():
                if prev_cased:
                    return False
                prev_cased = seen = True
            elif ch.islower():
                if not prev_cased:
                    return False
                prev_cased = seen = True
            else:
                prev_cased = False
        return seen
    return impl


@overload_method(types.UnicodeType, "swapcase")
def _swapcase(s):
    def impl(s):
        out = s[:0]
        for ch in s:
            if ch.islower():
                out += ch.upper()
            elif ch.isupper():
                out += ch.lower()
            else:
                out += ch
        return out
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
