"""What a CUDA C kernel takes: its parameters read from the source, the mangled name and the PTX.

gpu.SourceModule and gpu.RawKernel launch kernels written in CUDA C. The launch (runtime/launch.c,
the CUDA C kernels' part) needs, for each parameter, where it lies in the parameter buffer and
what it accepts, so that a wrong argument is a TypeError naming the parameter rather than
garbage in the kernel. Three readings give that:

  the source     `__global__ void f(const float *x, float *y, int n)`: the parameters' names and
                 C types (typedefs and `using` aliases resolved, template parameters bound from
                 the name expression `f<float>`); the only reading for extern "C" kernels;
  the mangling   `_Z4axpyIfEvT_PKS0_PS0_i`: the exact types of a C++ kernel (templates, overloads),
                 read by a small Itanium demangler (builtin types, qualifiers, pointers, class
                 names, template parameters and substitutions);
  the PTX        `.param .u64 x, .param .f32 a, .param .align 8 .b8 p[16]`: the byte layout,
                 which always wins; a parameter whose C type disagrees with its PTX size is
                 taken by size only.

Each parameter becomes a Param: a pointer (with the dtype its pointee must have, when known, and
whether it points to const: a NumPy array given for a non-const pointer is copied back), a
scalar with a NumPy dtype (Python and NumPy scalars are converted to it, checked), or bytes of a
known size (structs: a NumPy scalar of that size).
"""
import re

import numpy as np

# C scalar types -> NumPy dtypes (LP64, as the device follows the host)
_SCALARS = {
    "float": "f4", "double": "f8", "__half": "f2", "half": "f2", "__nv_half": "f2",
    "bool": "?", "char": "i1", "signed char": "i1", "unsigned char": "u1",
    "short": "i2", "unsigned short": "u2", "int": "i4", "unsigned int": "u4",
    "long": "i8", "unsigned long": "u8", "long long": "i8", "unsigned long long": "u8",
    "int8_t": "i1", "int16_t": "i2", "int32_t": "i4", "int64_t": "i8",
    "uint8_t": "u1", "uint16_t": "u2", "uint32_t": "u4", "uint64_t": "u8",
    "size_t": "u8", "ptrdiff_t": "i8", "intptr_t": "i8", "uintptr_t": "u8",
    "complex<float>": "c8", "complex<double>": "c16",
}
# types NumPy scalars of the same size stand for (structs of the toolkit's headers)
_SIZED = {"float2": 8, "double2": 16, "float4": 16, "double4": 32, "int2": 8, "int4": 16,
          "uint2": 8, "uint4": 16, "float3": 12, "int3": 12, "cuComplex": 8,
          "cuFloatComplex": 8, "cuDoubleComplex": 16, "__half2": 4, "half2": 4,
          "__nv_bfloat16": 2, "__nv_bfloat162": 4, "char4": 4, "uchar4": 4, "short2": 4}

_INT_WORDS = ("unsigned", "signed", "short", "long", "int", "char")
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct",
               "class", "enum", "typename", "register", "__grid_constant__", "__align__"}


class CType:
    """A C type as far as a launch cares: a base name, pointer depth and const-ness of what the
    outermost pointer points to (of the value itself for ptr == 0)."""

    __slots__ = ("base", "ptr", "const")

    def __init__(self, base, ptr=0, const=False):
        self.base, self.ptr, self.const = base, ptr, const

    def qualified(self):
        return CType(self.base, self.ptr, True)

    def __eq__(self, other):
        return isinstance(other, CType) and (self.base, self.ptr, self.const) == \
            (other.base, other.ptr, other.const)

    def __hash__(self):
        return hash((self.base, self.ptr, self.const))

    def __str__(self):
        return ("const " if self.const else "") + self.base + (" " + "*" * self.ptr
                                                              if self.ptr else "")

    __repr__ = __str__


# ---- the source ----

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
                       re.S)


def _strip(source):
    """The source without comments, strings and preprocessor lines (same line count)."""
    def blank(m):
        text = m.group(0)
        if text.startswith('"'):
            return '""'
        return re.sub(r"[^\n]", " ", text)
    source = _COMMENTS.sub(blank, source)
    return re.sub(r"(?m)^[ \t]*#.*(?:\\\n.*)*$", lambda m: "\n" * m.group(0).count("\n"),
                  source)


def _split_top(text, sep=","):
    """text split at sep outside (), <>, [] and {}."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def _aliases(text):
    """{name: C type text} of the source's typedefs, `using X = ...;` and `#define X type`."""
    found = {}
    for m in re.finditer(r"\btypedef\s+([^;{}()]+?)\s*\b([A-Za-z_]\w*)\s*;", text):
        found[m.group(2)] = m.group(1)
    for m in re.finditer(r"\busing\s+([A-Za-z_]\w*)\s*=\s*([^;{}()]+);", text):
        found[m.group(1)] = m.group(2)
    return found


def _defines(source):
    """{name: replacement} of object-like #defines whose replacement names a type."""
    found = {}
    for m in re.finditer(r"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([A-Za-z_][\w \t]*?)"
                         r"[ \t]*$", source):
        words = m.group(2).split()
        if words and all(w in _INT_WORDS or w in _SCALARS or w in ("float", "double", "bool")
                         for w in words):
            found[m.group(1)] = m.group(2)
    return found


def parse_type(text, bindings=None, aliases=None, depth=0):
    """A CType for a declaration's type text ('const float *__restrict__', 'T*', 'unsigned')."""
    bindings = bindings or {}
    aliases = aliases or {}
    text = re.sub(r"\b__align__\s*\(\s*\d+\s*\)", " ", text)
    text = re.sub(r"\[\s*[^\]]*\]", "*", text)            # float x[] is a pointer
    text = text.replace("&", " ")                           # references: the referred type
    tokens = re.findall(r"[A-Za-z_][\w:]*(?:\s*<[^<>]*(?:<[^<>]*>[^<>]*)*>)?|\*", text)
    const = False           # a const before the first '*': what the pointer points to
    ptr = 0
    words = []
    for tok in tokens:
        if tok == "*":
            ptr += 1
        elif tok == "const":
            const = const or ptr == 0
        elif tok not in _QUALIFIERS:
            words.append(tok)
    base = " ".join(words)
    base = re.sub(r"\s*<\s*", "<", re.sub(r"\s*>", ">", base))
    base = re.sub(r"^(?:std|thrust|cuda::std)::", "", base)
    if words and all(w in _INT_WORDS for w in words):
        base = _int_name(words)
    inner = None
    if base in bindings:
        inner = bindings[base] if isinstance(bindings[base], CType) else \
            parse_type(bindings[base], None, aliases, depth + 1)
    elif base in aliases and depth < 8:
        inner = parse_type(aliases[base], bindings, aliases, depth + 1)
    if inner is None:
        return CType(base, ptr, const)
    if ptr:
        return CType(inner.base, inner.ptr + ptr, const)
    return CType(inner.base, inner.ptr, inner.const or (const and inner.ptr == 0))


def _int_name(words):
    """The canonical name of an integer type spelled with several words."""
    unsigned = "unsigned" in words
    longs = words.count("long")
    if "char" in words:
        if unsigned:
            return "unsigned char"
        return "signed char" if "signed" in words else "char"
    core = "short" if "short" in words else "long long" if longs >= 2 else \
        "long" if longs == 1 else "int"
    return ("unsigned " if unsigned else "") + core


class Decl:
    """One __global__ function of the source: its name, template parameters, and parameters as
    [(name, type text)]; line is its line in the source (1-based)."""

    def __init__(self, name, template, params, line):
        self.name, self.template, self.params, self.line = name, template, params, line

    def __repr__(self):
        return f"<__global__ {self.name}{self.template or ''}({self.params}) line {self.line}>"


def _template_names(text):
    """['T', 'N'] of 'template <typename T, int N = 4>'."""
    names = []
    for part in _split_top(text):
        part = part.split("=")[0].strip()
        m = re.search(r"([A-Za-z_]\w*)\s*$", part)
        if m:
            names.append(m.group(1))
    return names


def _param(text, i):
    """(name, type text) of one declared parameter."""
    text = text.split("=")[0].strip()
    m = re.search(r"([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$", text)
    if m and m.start() > 0 and m.group(1) not in _QUALIFIERS | set(_INT_WORDS) | \
            {"float", "double", "bool", "void"} and re.search(r"[\w*&>]", text[:m.start()]):
        return m.group(1), text[:m.start()] + ("*" * m.group(2).count("["))
    return f"argument {i + 1}", text


def kernels(source):
    """The __global__ functions the source declares (Decl), in order."""
    text = _strip(source)
    found = []
    for m in re.finditer(r"\b__global__\b", text):
        start = max(text.rfind(c, 0, m.start()) for c in ";{}") + 1
        head = text[start:m.start()]
        i = m.end()
        # the name: the identifier before the first '(' that is not an attribute's
        name = None
        while True:
            p = text.find("(", i)
            if p < 0:
                break
            before = re.search(r"([A-Za-z_]\w*)\s*$", text[i:p])
            if before and before.group(1) in ("__launch_bounds__", "__attribute__",
                                               "__declspec", "alignas", "__maxnreg__",
                                               "__cluster_dims__"):
                i = _close(text, p) + 1
                continue
            name = before.group(1) if before else None
            break
        if not name:
            continue
        close = _close(text, p)
        if close < 0:
            continue
        body = text[p + 1:close].strip()
        params = [] if body in ("", "void") else \
            [_param(t, j) for j, t in enumerate(_split_top(body))]
        tm = re.search(r"\btemplate\s*<(.*)>\s*$", head + text[m.end():p], re.S) or \
            re.search(r"\btemplate\s*<(.*?)>", head, re.S)
        template = _template_names(tm.group(1)) if tm else None
        found.append(Decl(name, template, params, text.count("\n", 0, m.start()) + 1))
    return found


def _close(text, p):
    depth = 0
    for j in range(p, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


def split_expression(expr):
    """('ns::f', ['float', '128']) of a name expression 'ns::f<float, 128>' (or '&f<...>')."""
    expr = expr.strip().lstrip("&").strip()
    if "<" in expr and expr.endswith(">"):
        at = expr.index("<")
        return expr[:at].strip(), _split_top(expr[at + 1:-1])
    return expr, []


# ---- the mangling (Itanium C++ ABI), as far as kernel parameters go ----

_BUILTIN = {"v": "void", "b": "bool", "c": "char", "a": "signed char", "h": "unsigned char",
            "s": "short", "t": "unsigned short", "i": "int", "j": "unsigned int", "l": "long",
            "m": "unsigned long", "x": "long long", "y": "unsigned long long", "f": "float",
            "d": "double", "e": "long double", "w": "wchar_t", "n": "__int128",
            "o": "unsigned __int128", "z": "..."}
_STD = {"Sa": "allocator", "Sb": "basic_string", "Ss": "string", "Si": "istream",
        "So": "ostream", "Sd": "iostream"}


class _Demangler:
    def __init__(self, text):
        self.s, self.i = text, 0
        self.subs = []          # substitution candidates: CType or name strings
        self.targs = []         # the function's template arguments (CType or text)

    def peek(self, n=1):
        return self.s[self.i:self.i + n]

    def take(self, n=1):
        t = self.s[self.i:self.i + n]
        if len(t) < n:
            raise ValueError("truncated")
        self.i += n
        return t

    def number(self):
        m = re.match(r"n?\d+", self.s[self.i:])
        if not m:
            raise ValueError("number expected")
        self.i += m.end()
        return int(m.group(0).replace("n", "-"))

    def source_name(self):
        n = self.number()
        return self.take(n)

    def seq_id(self):
        """After 'S' or 'T': '_' is 0, '<base36>_' is that plus one."""
        if self.peek() == "_":
            self.i += 1
            return 0
        m = re.match(r"[0-9A-Z]+", self.s[self.i:])
        if not m or self.s[self.i + m.end():self.i + m.end() + 1] != "_":
            raise ValueError("sequence id expected")
        self.i += m.end() + 1
        return int(m.group(0), 36) + 1

    def template_args(self):
        self.take()   # I
        args = []
        while self.peek() != "E":
            c = self.peek()
            if c == "L":             # a literal: L <type> <value> E
                self.i += 1
                t = self.type()
                m = re.match(r"n?[^E]*", self.s[self.i:])
                self.i += m.end()
                self.take()
                args.append(f"({t}){m.group(0).replace('n', '-')}")
            elif c == "X":
                depth = 0
                while True:
                    ch = self.take()
                    depth += ch == "X"
                    depth -= ch == "E"
                    if depth == 0:
                        break
                args.append("?")
            elif c == "J":
                self.i += 1
                while self.peek() != "E":
                    args.append(self.type())
                self.take()
            else:
                args.append(self.type())
        self.take()   # E
        return args

    def unqualified(self):
        c = self.peek()
        if c.isdigit():
            return self.source_name()
        raise ValueError(f"unsupported name at {self.s[self.i:]!r}")

    def name(self):
        """The function's or a class's name, as text; adds substitution candidates."""
        c = self.peek()
        if c == "N":
            self.i += 1
            while self.peek() in "rVK":
                self.i += 1
            parts = []
            while self.peek() != "E":
                if self.peek() == "I":
                    args = self.template_args()
                    parts[-1] += "<" + ", ".join(map(str, args)) + ">"
                    self.last_args = args
                elif self.peek() == "S":
                    parts.append(str(self.substitution()))
                    continue
                elif self.peek() == "T":
                    parts.append(str(self.template_param()))
                    continue
                else:
                    parts.append(self.unqualified())
                    self.last_args = None
                self.subs.append("::".join(parts))
            self.take()
            if self.subs and self.subs[-1] == "::".join(parts):
                self.subs.pop()   # the whole name is not a candidate of itself
            return "::".join(parts)
        if self.peek(2) == "St":
            self.i += 2
            name = "std::" + self.unqualified()
        elif c == "S":
            name = str(self.substitution())
        else:
            name = self.unqualified()
        self.last_args = None
        if self.peek() == "I":
            self.subs.append(name)
            args = self.template_args()
            self.last_args = args
            name += "<" + ", ".join(map(str, args)) + ">"
        return name

    def substitution(self):
        self.take()   # S
        two = "S" + self.peek()
        if two in _STD:
            self.i += 1
            return "std::" + _STD[two]
        if self.peek() == "t":
            self.i += 1
            return "std::" + self.unqualified()
        k = self.seq_id()
        if k >= len(self.subs):
            raise ValueError("substitution out of range")
        return self.subs[k]

    def template_param(self):
        self.take()   # T
        k = self.seq_id()
        if k >= len(self.targs):
            raise ValueError("template parameter out of range")
        return self.targs[k]

    def type(self):
        c = self.peek()
        if c in _BUILTIN:
            self.i += 1
            return CType(_BUILTIN[c])
        if c == "D":
            two = self.take(2)
            if two == "Dh":
                return CType("__half")
            if two == "Dn":
                return CType("nullptr_t")
            if two in ("Dp", "Dv"):
                if two == "Dv":
                    n = self.number()
                    self.take()
                    inner = self.type()
                    t = CType(f"{inner.base}{n}")
                    self.subs.append(t)
                    return t
                return self.type()
            if two == "DF":
                m = re.match(r"(\d+)(b?)_", self.s[self.i:])
                if not m:
                    raise ValueError("DF type")
                self.i += m.end()
                return CType("__half" if m.group(1) == "16" and not m.group(2) else
                             f"_Float{m.group(1)}")
            raise ValueError(f"unsupported type {two}")
        if c in "KVr":
            quals = ""
            while self.peek() in ("K", "V", "r"):
                quals += self.take()
            inner = self.type()
            # const T is a const value; T *const a const pointer, whose pointee may be written
            t = inner.qualified() if "K" in quals and inner.ptr == 0 else inner
            self.subs.append(t)
            return t
        if c in "PRO":   # pointer, reference, rvalue reference (passed as the referred type)
            self.i += 1
            inner = self.type()
            t = CType(inner.base, inner.ptr + 1, inner.const) if c == "P" else inner
            self.subs.append(t)
            return t
        if c == "T":
            arg = self.template_param()
            t = arg if isinstance(arg, CType) else CType(str(arg))
            self.subs.append(t)
            return t
        if c == "S" and self.peek(2) not in ("St",) and self.peek(2) not in _STD:
            sub = self.substitution()
            t = sub if isinstance(sub, CType) else CType(sub)
            if self.peek() == "I":   # a template named by a substitution
                args = self.template_args()
                t = CType(f"{t.base}<{', '.join(map(str, args))}>")
                self.subs.append(t)
            return t
        if c.isdigit() or c in "NS":
            name = self.name()
            t = CType(name)
            self.subs.append(t)
            return t
        raise ValueError(f"unsupported type at {self.s[self.i:]!r}")


def demangle(mangled):
    """(name, [CType of each parameter]) of a mangled function name; None when it is not one
    this reader understands (then the source and the PTX are used)."""
    if not mangled.startswith("_Z"):
        return None
    d = _Demangler(mangled)
    d.i = 2
    try:
        d.last_args = None
        name = d.name()
        templated = d.last_args is not None
        if templated:
            d.targs = d.last_args
            d.type()   # the return type, mangled for templates
        params = []
        while d.i < len(d.s) and d.peek() != ".":
            params.append(d.type())
        if len(params) == 1 and params[0].base == "void" and params[0].ptr == 0:
            params = []
        base = re.sub(r"<.*>$", "", name)
        return base, params
    except (ValueError, IndexError):
        return None


# ---- the PTX ----

def ptx_params(ptx, entry):
    """[(size, align, PTX type)] of the parameters of .entry `entry`, or None if absent."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(([^)]*)\)", ptx)
    if not m:
        m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\n?\s*\{", ptx)
        return [] if m else None
    out = []
    for decl in m.group(1).split(","):
        decl = decl.strip()
        if not decl:
            continue
        t = re.search(r"\.([usbf])(8|16|32|64)\b", decl)
        if not t:
            return None
        elem = int(t.group(2)) // 8
        count = re.search(r"\[(\d+)\]", decl)
        align = re.search(r"\.align\s+(\d+)", decl)
        if ".ptr" in decl:
            out.append((8, 8, "u64"))
        elif count:
            out.append((elem * int(count.group(1)), int(align.group(1)) if align else elem,
                        "b"))
        else:
            out.append((elem, elem, t.group(1) + t.group(2)))
    return out


def entries(ptx):
    """The names of the kernels (.entry) in a PTX text."""
    return re.findall(r"\.entry\s+([\w$.]+)", ptx)


# ---- parameters as the launch takes them ----

class Param:
    """One parameter of a CUDA C kernel, as runtime/launch.c reads it (as_tuple)."""

    def __init__(self, name, ctype, kind, dtype=None, check="any", itemsize=0, writes=False):
        self.name, self.ctype, self.kind = name, ctype, kind
        self.dtype, self.check, self.itemsize, self.writes = dtype, check, itemsize, writes
        self.offset = self.size = 0

    def as_tuple(self):
        return (self.name, str(self.ctype), self.kind,
                None if self.dtype is None else self.dtype.name, self.check, self.itemsize,
                self.offset, self.size, self.writes)

    def __repr__(self):
        return f"<param {self.ctype} {self.name}: {self.kind} @{self.offset}+{self.size}>"


def _base_dtype(base):
    code = _SCALARS.get(re.sub(r"^(?:std|thrust|cuda::std)::", "", base))
    return np.dtype(code) if code else None


def _describe(name, ctype, size, ptxtype):
    """A Param for a parameter of C type ctype (None: unknown) whose PTX is (size, ptxtype)."""
    if ctype is not None and ctype.ptr:
        if size != 8:
            return _by_size(name, ctype, size, ptxtype)
        dt = _base_dtype(ctype.base)
        writes = not ctype.const
        if ctype.ptr > 1:
            return Param(name, ctype, "pointer", check="size", itemsize=8, writes=writes)
        if dt is None:
            return Param(name, ctype, "pointer", writes=writes)
        if dt.kind in "iub" and dt.itemsize == 1 and ctype.base in ("char", "signed char",
                                                                     "unsigned char", "bool"):
            return Param(name, ctype, "pointer", check="int", itemsize=1, writes=writes)
        if dt.kind in "iu":
            return Param(name, ctype, "pointer", check="int", itemsize=dt.itemsize,
                         writes=writes)
        return Param(name, ctype, "pointer", dtype=dt, check="exact", writes=writes)
    if ctype is not None:
        dt = _base_dtype(ctype.base)
        if dt is not None and dt.itemsize == size:
            return Param(name, ctype, "scalar", dtype=dt)
    return _by_size(name, ctype, size, ptxtype)


def _by_size(name, ctype, size, ptxtype):
    """A parameter whose C type says too little (a typedef of a header, a struct), taken by its
    PTX: floats by their PTX type, an 8-byte integer of unknown type as a pointer (what it
    mostly is; a NumPy integer scalar still passes its 8 bytes), other integers as signed ints
    of their size, the rest (structs) as bytes of their size."""
    label = ctype if ctype is not None else CType(f"{size}-byte value")
    known = ctype is not None and (ctype.ptr or _base_dtype(ctype.base) is not None or
                                   ctype.base in _SIZED)
    if ptxtype in ("f32", "f64") and not known:
        return Param(name, label, "scalar", dtype=np.dtype(f"f{size}"))
    if ptxtype in ("u64", "s64", "b64") and not known:
        return Param(name, label, "pointer", writes=True)
    if re.fullmatch(r"[usb](8|16|32)", ptxtype) and not known:
        return Param(name, label, "scalar", dtype=np.dtype(f"i{size}"))
    return Param(name, label, "bytes", itemsize=size)


def describe(entry, ptx, source, expression=None):
    """The Params of kernel `entry` (its .entry name in ptx), read from its mangling, the
    source's declaration (found by name; expression: the name expression that named it, whose
    template arguments bind the template's parameters) and the PTX. None when the PTX has no
    such entry."""
    layout = ptx_params(ptx, entry)
    if layout is None:
        return None
    demangled = demangle(entry)
    base = demangled[0].split("::")[-1] if demangled else entry
    types = demangled[1] if demangled else None
    decl = _declaration(source, base, len(layout), types, expression)
    names = [n for n, _t in decl.params] if decl else [f"argument {i + 1}"
                                                        for i in range(len(layout))]
    if types is None and decl is not None:
        text = _strip(source)
        aliases = dict(_aliases(text), **{k: v for k, v in _defines(source).items()})
        bindings = _bindings(decl, expression)
        types = [parse_type(t, bindings, aliases) for _n, t in decl.params]
    if types is not None and len(types) != len(layout):
        types = None
    params = []
    off = 0
    for i, (size, align, ptxtype) in enumerate(layout):
        p = _describe(names[i], types[i] if types else None, size, ptxtype)
        off = (off + align - 1) // align * align
        p.offset, p.size = off, size
        off += size
        params.append(p)
    return params, off


def _bindings(decl, expression):
    """{template parameter: argument text} from the name expression f<float, 4>."""
    if not expression or not decl.template:
        return {}
    _name, args = split_expression(expression)
    return dict(zip(decl.template, args))


def _declaration(source, base, nparams, types, expression):
    """The source's __global__ declaration of base with nparams parameters (the one whose
    declared types agree with the demangled ones, among overloads)."""
    if source is None:
        return None
    found = [d for d in kernels(source) if d.name == base and len(d.params) == nparams]
    if len(found) > 1 and types is not None:
        text = _strip(source)
        aliases = _aliases(text)
        for d in found:
            b = _bindings(d, expression)
            if [parse_type(t, b, aliases) for _n, t in d.params] == types:
                return d
    return found[0] if found else None
