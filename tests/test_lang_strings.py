"""Strings in compiled code: str arguments and results, constants used as values, len, indexing,
slicing, iteration, comparisons, `in`, +, *, hash, str() of numbers, ord/chr, the methods,
f-strings, print, and exceptions whose messages are built at run time. Each function runs in
CPython and compiled on the same arguments: results and exception classes must agree. The strings
cover the three widths of CPython's storage (PEP 393): ASCII and Latin-1 (1 byte), BMP (2 bytes:
'中') and astral (4 bytes: '😀')."""
import numpy as np
import pytest

import pyjit
from pyjit import errors
from util import check, check_raises, memory_in_use, run_subprocess

WORDS = ["", "a", "abc", "hello world", "  padded  ", "é", "café", "中文字", "a😀b", "😀",
         "Mixed CASE 123", "a,b,,c", "x" * 100, "line\nbreak\ttab", "ßü", "12345", "١٢٣"]
PAIRS = [(a, b) for a in ["", "a", "ab", "abc", "b", "é", "中", "😀", "a😀"]
         for b in ["", "a", "abc", "b", "é", "中", "😀"]]


# ---- the basics ------------------------------------------------------------------------------

def identity(s):
    return s


def length(s):
    return len(s)


def concat(a, b):
    return a + b


def concat_constant(s):
    return "<" + s + ">"


def repeat(s, n):
    return s * n, n * s


def augmented(s):
    t = s
    t += "!"
    t += s
    return t


def truth(s):
    if s:
        return 1
    return 0


def not_truth(s):
    return not s


def compare_all(a, b):
    return a == b, a != b, a < b, a <= b, a > b, a >= b


def contains(a, b):
    return a in b, a not in b


def smaller_and_larger(a, b):
    return min(a, b), max(a, b), max(a, "m"), min("m", b)


def hashed(s):
    return hash(s)


@pytest.mark.parametrize("s", WORDS)
def test_unary_basics(s):
    for f in (identity, length, concat_constant, augmented, truth, not_truth, hashed):
        check(f, s)


@pytest.mark.parametrize("a,b", PAIRS)
def test_binary_basics(a, b):
    for f in (concat, compare_all, contains, smaller_and_larger):
        check(f, a, b)


@pytest.mark.parametrize("n", [-2, 0, 1, 3])
def test_repeat(n):
    for s in ["", "ab", "é中😀"]:
        check(repeat, s, n)


def test_hash_equals_cpython_for_made_strings():
    def made(s):
        return hash(s + "x"), hash(s[1:]), hash(str(12345))
    for s in ["abc", "é中", "a😀"]:
        check(made, s)


# ---- indexing, slicing, iteration ----------------------------------------------------------

def index_at(s, i):
    return s[i]


def slice_of(s, a, b, c):
    return s[a:b:c]


def slices(s):
    return s[1:], s[:-1], s[::2], s[::-1], s[1:100], s[-3:], s[5:2]


def chars(s):
    out = []
    for ch in s:
        out.append(ch)
    return out


def char_codes(s):
    total = 0
    for ch in s:
        total = (total * 31 + ord(ch)) % 1000003
    return total


def enumerate_chars(s):
    out = []
    for i, ch in enumerate(s):
        out.append(str(i) + ch)
    return out


@pytest.mark.parametrize("s", WORDS)
def test_indexing_and_slicing(s):
    for i in (0, 1, -1, -len(s) - 1, len(s), 2):
        check(index_at, s, i)
    check(slices, s)
    for args in [(0, 3, 1), (None, None, -1), (-2, None, None), (1, None, 2), (5, 0, -2)]:
        check(slice_of, s, *args)
    for f in (chars, char_codes, enumerate_chars):
        check(f, s)


def test_index_error_text():
    f = pyjit.njit(index_at)
    check_raises(IndexError, f, "abc", 3, match="string index out of range")
    check_raises(IndexError, f, "", 0, match="string index out of range")


def test_slice_step_zero():
    check(slice_of, "abc", 0, 3, 0)


# ---- constants as values --------------------------------------------------------------------

def constant_reassigned(n):
    s = "first"
    if n > 0:
        s = "second"
    elif n < 0:
        s = "third 中"
    return s


def constant_loop(n):
    out = ""
    for i in range(n):
        out = out + "ab"[i % 2]
    return out


@pyjit.njit
def callee(s):
    return s + "/" + s


def constant_to_callee(n):
    return callee("x" * n)


def constants_in_containers(n):
    words = ["zero", "one", "two"]
    pair = ("a", n)
    return words, pair, words[n % 3], ("x", "y")


def constant_compared(s):
    return s == "abc", "abc" < s, s in ("a", "abc", "b")


def test_constants_as_values():
    for n in (-1, 0, 1, 5):
        check(constant_reassigned, n)
        check(constant_loop, n)
        check(constant_to_callee, n)
        check(constants_in_containers, n)
    for s in ["abc", "", "b", "ab"]:
        check(constant_compared, s)


# ---- lists and tuples of strings -----------------------------------------------------------

def sort_words(words):
    out = []
    for w in words:
        if len(w) > 1:
            out.append(w.upper())
    return out, len(words), words[0] in words


def append_to_argument(words):
    words.append("new")
    return len(words)


def tuple_of_strings(t):
    a, b = t
    return b, a, (a + b, len(a))


def sorting(words):
    a = sorted(words)
    b = sorted(words, reverse=True)
    words.sort()
    return a, b, words, words.index("apple"), words.count("apple")


def test_sorting_lists_of_strings():
    check(sorting, ["pear", "apple", "中", "Zebra", "", "apple", "😀", "é", "apples"])


def test_lists_and_tuples_across_the_boundary():
    check(sort_words, ["ab", "c", "中文", "😀😀"])
    check(tuple_of_strings, ("x", "yé"))
    words = ["a", "b"]
    pyjit.njit(append_to_argument)(words)
    assert words == ["a", "b", "new"]


def test_explicit_signature_with_strings():
    from pyjit import types
    f = pyjit.njit("int64(unicode_type, int64)")(lambda s, n: len(s) * n)
    assert f("abc", 2) == 6
    g = pyjit.njit(types.unicode_type(types.unicode_type))(lambda s: s + "!")
    assert g("中") == "中!"


# ---- numbers to strings ---------------------------------------------------------------------

def str_of(x):
    return str(x)


@pytest.mark.parametrize("x", [0, -7, 2**63 - 1, -2**63, True, False, 0.1, 1.0, -0.0, 1e16,
                               1e-5, 123456.789, 1.5e300, float("inf"), float("-inf"),
                               float("nan"), 2.0**60, 0.3, 5e-324])
def test_str_of_numbers(x):
    check(str_of, x)


def test_str_of_numpy_scalars():
    check(str_of, np.uint64(2**64 - 1))
    check(str_of, np.int32(-5))


def int_of(s):
    return int(s), bool(s)


def float_of(s):
    return float(s)


@pytest.mark.parametrize("s", ["12", " -7 ", "1_000", "١٢٣", "+0", "9223372036854775807",
                               "-9223372036854775808", "x", "", "1__0", "1.5", "_1", " "])
def test_int_of_strings(s):
    check(int_of, s)


@pytest.mark.parametrize("s", ["1.5", " -2e3 ", "inf", "-Infinity", "nan", "1_0.5", "0x10",
                               "infinityx", ".5", "5.", "١.٥", "", "e5", "1e", "--1", "1.5.2"])
def test_float_of_strings(s):
    check(float_of, s)


def test_int_of_string_overflow():
    check_raises(OverflowError, pyjit.njit(int_of), "9223372036854775808")


def ord_chr(s):
    return ord(s), chr(ord(s) + 1), chr(65)


def chr_of(n):
    return chr(n)


def test_ord_chr():
    for s in ["a", "é", "中", "😀"]:
        check(ord_chr, s)
    check_raises(TypeError, pyjit.njit(ord_chr), "ab", match="ord() expected a character")
    f = pyjit.njit(chr_of)
    check_raises(ValueError, f, 0x110000, match="chr() arg not in range(0x110000)")


# ---- methods -------------------------------------------------------------------------------

def searching(s, sub):
    return (s.find(sub), s.rfind(sub), s.count(sub), s.startswith(sub), s.endswith(sub),
            s.find(sub, 1), s.find(sub, -3, -1), s.count(sub, 1, 5), s.startswith(sub, 1))


def prefix_tuple(s):
    return s.startswith(("x", "ab")), s.endswith(("c", "zz"))


def splitting(s):
    return (s.split(), s.split(","), s.split(",", 1), s.split(" "), s.split(maxsplit=1),
            s.split("ab"))


def right_splitting(s):
    return (s.rsplit(), s.rsplit(maxsplit=1), s.rsplit(","), s.rsplit(",", 1), s.rsplit("ab", 2),
            s.splitlines(), s.splitlines(True))


def joining(s):
    parts = s.split(",")
    return "-".join(parts), "".join(parts), ", ".join(("a", s)), "é".join(["x", "y"])


def stripping(s):
    return s.strip(), s.lstrip(), s.rstrip(), s.strip("a "), s.lstrip("ab"), s.rstrip("😀 ")


def casing(s):
    return s.lower(), s.upper()


def replacing(s):
    return (s.replace("a", "XY"), s.replace("ab", ""), s.replace("", "-"), s.replace("a", "b", 1),
            s.replace("😀", "o"), s.replace("o", "中"))


def predicates(s):
    return (s.isdigit(), s.isalpha(), s.isspace(), s.isalnum(), s.islower(), s.isupper(),
            s.isdecimal(), s.isnumeric())


def library_methods(s):
    return (s.zfill(8), s.ljust(6, "*"), s.rjust(6), s.center(9, "-"), s.index(s[:1]),
            s.rindex(s[-1:]), s.partition(","), s.capitalize())


def more_library_methods(s):
    return (s.rpartition(","), s.rpartition("a"), s.removeprefix("ab"), s.removesuffix("c"),
            s.removesuffix(""), s.swapcase(), s.title(), s.istitle(), s.casefold(), s.isascii(),
            s.isidentifier(), s.isprintable(), s.expandtabs(), s.expandtabs(4), s.expandtabs(0))


@pytest.mark.parametrize("s", WORDS + ["abcabcab", "a😀a😀", " ab, cd ,ef ", "aaa",
                               "x\r\ny\n\nz\r", "中\u2028😀\x0c", "Title Case", "They'Re 2nd",
                               "ǅungla", "_id3", "3id", "a\tbc\td\n\tx", "Straße ΣΑΣ µ"])
def test_methods(s):
    for sub in ["", "a", "ab", "😀", ",", "zz"]:
        check(searching, s, sub)
    for f in (prefix_tuple, splitting, right_splitting, joining, stripping, casing, replacing,
              predicates):
        check(f, s)
    check(more_library_methods, s)
    if s:
        check(library_methods, s)


def test_method_errors():
    def idx(s):
        return s.index("zz")
    check(idx, "abc")
    def bad_split(s):
        return s.split("")
    check(bad_split, "abc")


# ---- f-strings, print, exceptions ------------------------------------------------------------

def fstring(n, x, s, b):
    return f"n={n}, x={x}, s={s}, b={b}!", f"{s}", f"{n}{s}", f"{s!r}:{n!r}:{x!s}"


def reprs(s):
    return repr(s), repr(s + "'"), repr(s + "'\""), repr(3), repr(0.5), repr(True)


@pytest.mark.parametrize("s", WORDS + ["\x00\x7f\\", "\u200b\u00a0\U0001f600\ud7ff"])
def test_repr(s):
    check(reprs, s)


def test_fstrings():
    check(fstring, 3, 0.5, "中", True)
    check(fstring, -10, 1e20, "", False)


def test_fstring_with_spec_is_refused_naming_the_line():
    def spec(x):
        return f"{x:.2f}"
    with pytest.raises(errors.UnsupportedError, match=r"(?s)format spec.*line"):
        pyjit.njit(spec)(1.0)

    def ascii_conversion(x):
        return f"{x!a}"
    with pytest.raises(errors.UnsupportedError, match=r"(?s)!a.*line"):
        pyjit.njit(ascii_conversion)("é")


def test_print_strings():
    rc, out, err = run_subprocess(
        "from pyjit import njit\n"
        "@njit\n"
        "def f(s, n):\n"
        "    print(s, n, 'const', s + '!')\n"
        "    print(f'{n}:{s}')\n"
        "    print((s, n), ('it\\'s',))\n"
        "f('héllo 中😀', 3)\n", env={"PYTHONIOENCODING": "utf-8"})
    assert rc == 0, err
    assert out.splitlines() == ["héllo 中😀 3 const héllo 中😀!", "3:héllo 中😀",
                                "('héllo 中😀', 3) (\"it's\",)"]


def raises_built_message(x):
    if x < 0:
        raise ValueError("bad value " + str(x))
    if x > 10:
        raise KeyError(f"too big: {x}", x)
    return x


def test_exception_messages_built_at_run_time():
    f = pyjit.njit(raises_built_message)
    for x in (1, -3, 20):
        check(raises_built_message, x)
    exc = check_raises(ValueError, f, -3)
    assert exc.args == ("bad value -3",)
    exc = check_raises(KeyError, f, 20)
    assert exc.args == ("too big: 20", 20)


# ---- errors at compile time ------------------------------------------------------------------

def test_bad_operations_are_typing_errors():
    def add_int(s):
        return s + 1
    def sub(s):
        return s - s
    for f in (add_int, sub):
        with pytest.raises(errors.TypingError, match="line"):
            pyjit.njit(f)("a")


def test_strings_in_gpu_kernels_are_refused():
    from pyjit import _core, _registry
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")

    def kernel(x):
        s = "ab"
        x[0] = len(s + s)
    _registry.populate()
    with pytest.raises(errors.CompileError, match="not supported in GPU kernels"):
        _core.cuda_compile_ptx(kernel, _registry.REGISTRY, ["array(float64, 1d, C)"])


# ---- memory ----------------------------------------------------------------------------------

def builds_strings(s, n):
    out = ""
    for i in range(n):
        out += s[i % len(s)] + str(i)
    parts = out.split("1")
    return "|".join(parts), parts


def test_many_calls_keep_memory_flat():
    f = pyjit.njit(builds_strings)
    for _ in range(2000):
        f("ab中", 10)
    before = memory_in_use()
    for _ in range(100_000):
        f("ab中", 10)
    grown = memory_in_use() - before
    assert grown < 8 << 20, f"memory grew {grown / (1 << 20):.1f} MB over 10^5 calls"


def test_no_string_outlives_its_use():
    """Every string made (results, items of returned lists, exception messages, strings in lists
    passed in) is freed: the count of live blocks comes back where it was."""
    from pyjit import _core
    f, g = pyjit.njit(builds_strings), pyjit.njit(raises_built_message)
    h = pyjit.njit(append_to_argument)
    f("ab", 3), h(["x"])
    live = _core.nrt_live()
    for _ in range(1000):
        f("ab中", 10)
        h(["a", "b"])
        try:
            g(-1)
        except ValueError:
            pass
    assert _core.nrt_live() == live


def test_list_of_a_string_and_new_str_methods():
    def f(s):
        head, sep, tail = s.rpartition(" ")
        return (list(s), list("xyz"), sorted(list(s)), len(list("")), s.title(), s.istitle(),
                s.title().istitle(), s.swapcase(), head, sep, tail, s.rpartition("#"))
    for s in ("hello world 3rd-time", "Hello World", "", "ABC def", "ünïcode straße"):
        check(f, s)


def join_characters(s, sep):
    # Manacher's transform and friends: a string's characters joined, as CPython joins them
    return ("#".join(s), sep.join(s), "^#" + "#".join(s) + "#$", "".join(s[::-1]), "-".join(""))


@pytest.mark.parametrize("s, sep", [("abc", ", "), ("", "x"), ("q", "--"), ("héllo", "€"),
                                     ("€uro", "a"), ("ab", "")])
def test_join_of_a_string(s, sep):
    check(join_characters, s, sep)


def distinct_letters(word, extra):
    letters = set(word)
    letters.update(extra)
    vowels = set("aeiou")
    return len(letters), sorted(letters), sorted(letters & vowels), \
        sorted(letters.union("xy")), len(set(word)) == len(word)


@pytest.mark.parametrize("word", ["banana", "", "abc", "héllo"])
def test_set_of_a_string(word):
    check(distinct_letters, word, "zz")
