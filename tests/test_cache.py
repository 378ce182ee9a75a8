"""@njit(cache=True): versions stored on disk and loaded by later processes (pyjit/_cache.py).

Every scenario runs in fresh interpreters over a small project written into a temporary folder:
a first process compiles and stores, a second one must load (f.stats.cache_hits says so) and give
what CPython gives. Then: each part of the key changed recompiles (f.stats.cache_misses), damaged
entries are ignored and replaced, a directory that cannot be written warns once and still runs,
concurrent processes storing one entry are safe, and multiprocessing works with cached functions.
"""
import json
import os
import textwrap

import numpy as np
import pytest

from util import run_subprocess

PRELUDE = '''
import json, sys, warnings
warnings.simplefilter("always")
import numpy as np
import pyjit

def norm(x):
    if isinstance(x, np.ndarray):
        return ["array", str(x.dtype), norm(x.tolist())]
    if isinstance(x, (tuple, list)):
        return [norm(i) for i in x]
    if isinstance(x, np.generic):
        x = x.item()
    return repr(x) if isinstance(x, float) else x

def outcome(f, *args):
    try:
        return ["ok", norm(f(*args))]
    except Exception as e:
        return ["raise", type(e).__name__, str(e)]

def hits(*fs):
    return sum(sum(f.stats.cache_hits.values()) for f in fs)

def misses(*fs):
    return sum(sum(f.stats.cache_misses.values()) for f in fs)

def report(**kw):
    print("REPORT " + json.dumps(kw))
'''

HELPERS = '''
from pyjit import njit

FACTOR = 1

@njit
def scale(x):
    return x * 2.5 + 1.0
'''

KERNELS = '''
import numpy as np
from pyjit import njit
import helpers
from helpers import scale

TABLE = np.array([1.5, -2.0, 3.25, 0.5])
OFFSET = 7

class Negative(ValueError):
    pass

@njit(cache=True)
def lookup(i):
    return TABLE[i % 4] * OFFSET * helpers.FACTOR

@njit(cache=True)
def checked(x, limit=100):
    if x < 0:
        raise Negative("negative input")
    if x > limit:
        raise ValueError("too big", x)
    return scale(x)

@njit(cache=True)
def summary(a):
    return a.min(), a.max(), a.sum() / a.size

@njit(cache=True)
def cumulative(a):
    out = np.empty_like(a)
    s = 0.0
    for i in range(a.size):
        s += a[i]
        out[i] = s
    return out

@njit(cache=True)
def index(a, i):
    return a[i]

@njit(cache=True)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

@njit(cache=True)
def shout(x):
    print("value", x)
    return x + 1
'''

CHECK = '''
import kernels as k
a = np.array([3.0, 1.0, 2.0])
cases = [(k.lookup, (5,)), (k.checked, (3.0,)), (k.checked, (-1.0,)), (k.checked, (1000.0,)),
         (k.summary, (a,)), (k.cumulative, (a,)), (k.index, (a, 1)), (k.index, (a, -1)),
         (k.fib, (15,)), (k.shout, (4,))]
compiled = [outcome(f, *args) for f, args in cases]
python = [outcome(f.py_func, *args) for f, args in cases]
bounds = outcome(k.index, a, 5)
fs = [k.lookup, k.checked, k.summary, k.cumulative, k.index, k.fib, k.shout]
report(compiled=compiled, python=python, bounds=bounds, hits=hits(*fs), misses=misses(*fs),
       info=pyjit.cache_info())
'''


class Project:
    """Source files in a folder of their own, and fresh interpreters run over them."""

    def __init__(self, root, files):
        self.src = root / "src"
        self.cache = root / "cache"
        self.src.mkdir()
        for name, text in files.items():
            self.write(name, text)

    def write(self, name, text):
        (self.src / name).write_text(textwrap.dedent(text))

    def edit(self, name, old, new):
        text = (self.src / name).read_text()
        assert old in text, f"{old!r} not in {name}"
        (self.src / name).write_text(text.replace(old, new, 1))

    def run(self, body, env=None, expect_ok=True):
        full_env = {"PYJIT_CACHE_DIR": str(self.cache), "PYTHONDONTWRITEBYTECODE": "1"}
        full_env.update(env or {})
        code = f"import sys; sys.path.insert(0, {str(self.src)!r})\n" + PRELUDE + \
            textwrap.dedent(body)
        rc, out, err = run_subprocess(code, timeout=300, env=full_env)
        if not expect_ok:
            return rc, out, err
        assert rc == 0, f"exit status {rc}\nstdout:\n{out}\nstderr:\n{err[-4000:]}"
        line = [x for x in out.splitlines() if x.startswith("REPORT ")][-1]
        result = json.loads(line[len("REPORT "):])
        result["stdout"], result["stderr"] = out, err
        return result

    def entries(self):
        return sorted(p for p in self.cache.rglob("*") if p.is_file())


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path, {"helpers.py": HELPERS, "kernels.py": KERNELS})


def same_as_python(r):
    """Compiled outcomes equal CPython's (exceptions by class and message)."""
    return r["compiled"] == r["python"]


def test_second_process_loads_what_the_first_stored(project):
    first = project.run(CHECK)
    assert same_as_python(first), first
    assert (first["hits"], first["misses"]) == (0, 7)
    assert first["info"]["stores"] == 7
    second = project.run(CHECK)
    assert (second["hits"], second["misses"]) == (7, 0)
    assert second["info"]["stores"] == 0
    # a cached version behaves exactly as a fresh one: values, exceptions and their messages
    assert second["compiled"] == first["compiled"] and same_as_python(second)
    assert second["bounds"] == first["bounds"] and second["bounds"][:2] == ["raise", "IndexError"]
    assert second["stdout"].count("value 4") == 2     # print in compiled code (and CPython's)


def test_cached_exceptions_keep_their_traceback_line(project):
    body = '''
        import traceback, kernels as k
        try:
            k.checked(-2.0)
        except k.Negative as e:
            frames = [(f.name, f.lineno) for f in traceback.extract_tb(e.__traceback__)]
        report(frames=frames[-1:], hits=hits(k.checked))
    '''
    first, second = project.run(body), project.run(body)
    assert second["hits"] == 1 and first["frames"] == second["frames"]
    assert first["frames"][0][0] == "checked"


def test_global_arrays_stay_frozen_by_reference(project):
    # as a fresh compilation: elements changed in place are seen by later calls
    body = '''
        import kernels as k
        before = k.lookup(1)
        k.TABLE[1] = 100.0
        report(values=[before, k.lookup(1)], hits=hits(k.lookup))
    '''
    first, second = project.run(body), project.run(body)
    assert first["values"] == second["values"] == [-14.0, 700.0]
    assert second["hits"] == 1


def test_inspection_of_a_cached_version(project):
    body = '''
        import kernels as k
        a = np.arange(3.0)
        k.cumulative(a)
        sig = k.cumulative.signatures[0]
        asm = k.cumulative.inspect_asm(sig)
        report(llvm=k.cumulative.inspect_llvm(sig), types=k.cumulative.inspect_types(sig),
               asm_ok="cumulative" in asm, hits=hits(k.cumulative),
               overloads=str(k.cumulative.overloads))
    '''
    first, second = project.run(body), project.run(body)
    assert second["hits"] == 1
    for key in ("llvm", "types", "overloads"):
        assert first[key] == second[key] and first[key]
    assert second["asm_ok"]


# ---- every part of the key ----

KEY_BODY = '''
    import kernels as k
    a = np.array([3.0, 1.0, 2.0])
    outcomes = {f.__name__: outcome(f, *args) for f, args in
                [(k.lookup, (5,)), (k.checked, (3.0,)), (k.summary, (a,)), (k.fib, (10,))]}
    report(outcomes=outcomes, python={f.__name__: outcome(f.py_func, *args) for f, args in
                [(k.lookup, (5,)), (k.checked, (3.0,)), (k.summary, (a,)), (k.fib, (10,))]},
           missed=sorted(f.__name__ for f in [k.lookup, k.checked, k.summary, k.fib]
                         if misses(f)))
'''

KEY_CHANGES = {
    "bytecode": ("kernels.py", "return n if n < 2", "return n if n <= 1", ["fib"]),
    "constant": ("kernels.py", "a.sum() / a.size", "a.sum() / a.size * 1.0 + 0.5", ["summary"]),
    "callee in another module": ("helpers.py", "x * 2.5 + 1.0", "x * 2.5 + 2.0", ["checked"]),
    "global scalar": ("kernels.py", "OFFSET = 7", "OFFSET = 8", ["lookup"]),
    "module attribute": ("helpers.py", "FACTOR = 1", "FACTOR = 2", ["lookup"]),
    "default argument": ("kernels.py", "limit=100", "limit=200", ["checked"]),
    "global array contents": ("kernels.py", "3.25, 0.5]", "3.25, 0.75]", ["lookup"]),
    "global array dtype": ("kernels.py", "np.array([1.5, -2.0, 3.25, 0.5])",
                           "np.array([1.5, -2.0, 3.25, 0.5], dtype=np.float32)", ["lookup"]),
    "options": ("kernels.py", "@njit(cache=True)\ndef summary",
                "@njit(cache=True, fastmath=True)\ndef summary", ["summary"]),
    "callee options": ("helpers.py", "@njit\n", "@njit(error_model='numpy')\n", ["checked"]),
    "lines above": ("kernels.py", "@njit(cache=True)\ndef fib", "\n\n@njit(cache=True)\ndef fib",
                    ["fib"]),
    "exception message": ("kernels.py", '"negative input"', '"below zero"', ["checked"]),
}


@pytest.mark.parametrize("change", list(KEY_CHANGES), ids=list(KEY_CHANGES))
def test_each_part_of_the_key_recompiles(project, change):
    filename, old, new, expected = KEY_CHANGES[change]
    first = project.run(KEY_BODY)
    assert first["outcomes"] == first["python"] and len(first["missed"]) == 4
    project.edit(filename, old, new)
    second = project.run(KEY_BODY)
    assert second["missed"] == sorted(expected), change
    assert second["outcomes"] == second["python"]


def test_argument_types_weak_scalars_and_declared_signatures(project):
    project.write("sigs.py", '''
        from pyjit import njit
        @njit(cache=True)
        def half(x):
            return x / 2 + 0.25
        @njit("float32(float32)", cache=True)
        def declared(x):
            return x * 3
    ''')
    body = '''
        import sigs
        r = [norm(sigs.half(3)), norm(sigs.half(np.int32(3))), norm(sigs.half(3.0)),
             norm(sigs.half(np.float32(3.0))), type(sigs.half(np.float32(3.0))).__name__,
             norm(sigs.declared(2.5))]
        report(r=r, hits=hits(sigs.half, sigs.declared), misses=misses(sigs.half, sigs.declared))
    '''
    first, second = project.run(body), project.run(body)
    assert first["r"] == second["r"] == ["1.75", "1.75", "1.75", "1.75", "float", "7.5"]
    assert (first["misses"], first["hits"]) == (5, 0)
    assert (second["misses"], second["hits"]) == (0, 5)


def test_pyjit_version_and_cpu_are_in_the_key(project):
    body = '''
        import kernels as k
        {patch}
        k.fib(10)
        report(hits=hits(k.fib), misses=misses(k.fib))
    '''
    project.run(body.format(patch=""))
    assert project.run(body.format(patch=""))["hits"] == 1
    new_version = project.run(body.format(patch="pyjit.__version__ = '99.0'"))
    assert (new_version["hits"], new_version["misses"]) == (0, 1)
    other_cpu = project.run(body.format(
        patch="from pyjit import _core; _core.host_description = lambda: 'llvm 16; x86_64; other'"))
    assert (other_cpu["hits"], other_cpu["misses"]) == (0, 1)


def test_user_overloads_are_in_the_key(project):
    project.write("ext.py", '''
        from pyjit import njit
        from pyjit.extending import overload

        def clip01(x):
            return min(max(x, 0.0), 1.0)

        @overload(clip01)
        def _clip01(x):
            def impl(x):
                return min(max(x, 0.0), 1.0)
            return impl

        @njit(cache=True)
        def use(x):
            return clip01(x) * 10.0
    ''')
    body = '''
        import ext
        report(r=ext.use(1.5), hits=hits(ext.use), misses=misses(ext.use))
    '''
    assert project.run(body)["r"] == 10.0
    assert project.run(body)["hits"] == 1
    project.edit("ext.py", "return min(max(x, 0.0), 1.0)\n    return impl",
                 "return min(max(x, 0.0), 0.5)\n    return impl")
    edited = project.run(body)
    assert (edited["r"], edited["misses"]) == (5.0, 1)


def test_library_objects_in_globals_are_told_apart(project):
    project.write("aliases.py", '''
        import numpy as np
        import pyjit
        from pyjit import njit
        OP = np.sqrt
        DT = pyjit.float32
        @njit(cache=True)
        def apply(x):
            return OP(x) + np.zeros(1, DT)[0]
    ''')
    body = '''
        import aliases
        r = aliases.apply(4.0)
        report(r=norm(r), misses=misses(aliases.apply))
    '''
    assert project.run(body)["r"] == "2.0"
    project.edit("aliases.py", "OP = np.sqrt", "OP = np.exp")
    exp = project.run(body)
    assert exp["misses"] == 1 and exp["r"] == repr(float(np.exp(4.0)))
    project.edit("aliases.py", "DT = pyjit.float32", "DT = pyjit.float64")
    assert project.run(body)["misses"] == 1


def test_closure_values_are_in_the_key(project):
    project.write("factory.py", '''
        from pyjit import njit
        def make(k):
            @njit(cache=True)
            def scaled(x):
                return x * k
            return scaled
        by2, by3 = make(2), make(3)
    ''')
    body = '''
        import factory
        report(r=[factory.by2(5), factory.by3(5)], hits=hits(factory.by2, factory.by3))
    '''
    assert project.run(body)["r"] == [10, 15]
    second = project.run(body)
    assert second["r"] == [10, 15] and second["hits"] == 2


def test_vectorize_and_guvectorize_cache(project):
    project.write("ufuncs.py", '''
        import numpy as np
        from pyjit import vectorize, guvectorize

        @vectorize(["float64(float64, float64)", "int64(int64, int64)"], cache=True)
        def hyp(a, b):
            return a * a + b

        @vectorize(cache=True)
        def dyn(a):
            return a * 0.5

        @guvectorize(["void(float64[:], float64[:])"], "(n)->(n)", cache=True)
        def cums(a, out):
            s = 0.0
            for i in range(a.shape[0]):
                s += a[i]
                out[i] = s
    ''')
    body = '''
        import ufuncs
        x = np.arange(6.0).reshape(2, 3)
        r = [norm(ufuncs.hyp(x, 2.0)), norm(ufuncs.hyp(np.arange(4), 3)),
             norm(ufuncs.dyn(np.arange(3.0))), norm(ufuncs.cums(x))]
        want = [norm(x * x + 2.0), norm(np.arange(4.0) ** 2 + 3), norm(np.arange(3.0) * 0.5),
                norm(np.cumsum(x, axis=1))]
        info = pyjit.cache_info()
        report(same=r == want, hits=info["hits"], misses=info["misses"])
    '''
    first = project.run(body)
    assert first["same"] and first["hits"] == 0 and first["misses"] > 0
    second = project.run(body)
    assert second["same"] and second["misses"] == 0 and second["hits"] == first["misses"]
    assert all(p.parent.name.startswith("ufuncs-") for p in project.entries())


# ---- damaged entries ----

def _damage(path, how):
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[:len(data) // 2])
    elif how == "flipped byte":
        i = len(data) // 2
        path.write_bytes(data[:i] + bytes([data[i] ^ 0x40]) + data[i + 1:])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "foreign":
        path.write_bytes(b"\x7fELF" + os.urandom(4000))
    elif how == "other format":
        # a sound file (its digest matches) of another format version
        import marshal
        from pyjit import _cache
        body = data[:-32]
        hlen = int.from_bytes(body[8:12], "little")
        header = marshal.loads(body[12:12 + hlen])
        header["format"] = 99
        new = marshal.dumps(header)
        body = body[:8] + len(new).to_bytes(4, "little") + new + body[12 + hlen:]
        path.write_bytes(body + _cache.blake2b(body, digest_size=32).digest())


@pytest.mark.parametrize("how", ["truncated", "flipped byte", "empty", "foreign", "other format"])
def test_damaged_entries_are_ignored_and_replaced(project, how):
    body = '''
        import kernels as k
        a = np.array([3.0, 1.0, 2.0])
        report(r=[outcome(k.cumulative, a), outcome(k.checked, -1.0)],
               py=[outcome(k.cumulative.py_func, a), outcome(k.checked.py_func, -1.0)],
               hits=hits(k.cumulative, k.checked), misses=misses(k.cumulative, k.checked))
    '''
    project.run(body)
    entries = project.entries()
    assert len(entries) == 2
    for path in entries:
        _damage(path, how)
    damaged = project.run(body)
    assert (damaged["hits"], damaged["misses"]) == (0, 2) and damaged["r"] == damaged["py"]
    repaired = project.run(body)
    assert (repaired["hits"], repaired["misses"]) == (2, 0) and repaired["r"] == repaired["py"]


def test_sound_entry_llvm_refuses_is_compiled_again(project):
    body = '''
        import kernels as k
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = k.fib(12)
        report(r=r, hits=hits(k.fib), misses=misses(k.fib), info=pyjit.cache_info(),
               warnings=[str(w.message) for w in caught])
    '''
    project.run(body)
    (entry,) = project.entries()
    # the object code replaced by bytes that are no object file, the digest made to match
    import marshal
    from pyjit import _cache
    data = entry.read_bytes()[:-32]
    hlen = int.from_bytes(data[8:12], "little")
    header = marshal.loads(data[12:12 + hlen])
    junk = b"not an object file " * 10
    old_size, header["sections"][0] = header["sections"][0], len(junk)
    new = marshal.dumps(header)
    rest = data[12 + hlen + old_size:]
    body_bytes = data[:8] + len(new).to_bytes(4, "little") + new + junk + rest
    entry.write_bytes(body_bytes + _cache.blake2b(body_bytes, digest_size=32).digest())
    refused = project.run(body)
    assert refused["r"] == 144 and (refused["hits"], refused["misses"]) == (0, 1)
    assert refused["info"]["rejected"] == 1 and "did not load" in refused["warnings"][0]
    assert project.run(body)["hits"] == 1       # replaced by the compilation


def test_stale_entry_of_another_key_is_not_loaded(project):
    body = '''
        import kernels as k
        report(r=k.fib(12), hits=hits(k.fib))
    '''
    project.run(body)
    (entry,) = project.entries()
    project.edit("kernels.py", "return n if n < 2", "return 1 if n < 2")
    stale = project.run(body)            # another key: another file, stored beside
    assert stale["r"] == 233 and stale["hits"] == 0
    # the old entry copied over the new one's name: its key does not match, so not loaded
    new_entry = [p for p in project.entries() if p != entry][0]
    new_entry.write_bytes(entry.read_bytes())
    again = project.run(body)
    assert again["r"] == 233 and again["hits"] == 0


# ---- where entries go, and where they cannot ----

def test_beside_the_source_then_user_cache(project, tmp_path):
    body = '''
        import kernels as k
        exec("def g(x):\\n    return x + 1", globals())
        g2 = pyjit.njit(g, cache=True)
        r = [k.fib(5), g2(1)]
        report(r=r, paths=[k.fib.stats.cache_path, g2.stats.cache_path], hits=hits(k.fib, g2))
    '''
    env = {"PYJIT_CACHE_DIR": "", "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    first = project.run(body, env=env)
    assert first["paths"][0] == str(project.src / "__pycache__")
    assert first["paths"][1].startswith(str(tmp_path / "xdg" / "pyjit"))
    assert any(n.endswith(".pjc") for n in os.listdir(project.src / "__pycache__"))
    second = project.run(body, env=env)
    assert second["hits"] == 2 and second["r"] == [5, 2]


def test_unwritable_directory_warns_once_and_runs(project, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    body = '''
        import kernels as k
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = [k.fib(10), k.lookup(2), k.checked(1.0)]
        report(r=r, warnings=[(w.category.__name__, str(w.message)) for w in caught],
               info=pyjit.cache_info())
    '''
    r = project.run(body, env={"PYJIT_CACHE_DIR": str(blocker / "cache")})
    assert r["r"] == [55, 22.75, 3.5]
    assert len(r["warnings"]) == 1 and r["warnings"][0][0] == "PerformanceWarning"
    assert "cannot write" in r["warnings"][0][1]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_directory_warns_once_and_runs(project):
    project.cache.mkdir()
    project.cache.chmod(0o555)
    try:
        r = project.run('''
            import kernels as k
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                r = [k.fib(10), k.lookup(2)]
            report(r=r, n=len(caught))
        ''')
    finally:
        project.cache.chmod(0o755)
    assert r["r"] == [55, 22.75] and r["n"] == 1


def test_full_disk_warns_once_and_runs(project):
    r = project.run('''
        import errno, os
        real_open = os.open
        def full(path, *args, **kw):
            if str(path).endswith(".tmp"):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
            return real_open(path, *args, **kw)
        os.open = full
        import kernels as k
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = [k.fib(10), k.lookup(2), k.checked(1.0)]
        report(r=r, warnings=[str(w.message) for w in caught])
    ''')
    assert r["r"] == [55, 22.75, 3.5]
    assert len(r["warnings"]) == 1 and "No space left" in r["warnings"][0]
    assert not [p for p in project.entries() if p.suffix == ".pjc"]
    assert not [p for p in project.entries() if p.suffix == ".tmp"]


def test_cache_off(project):
    r = project.run('''
        import kernels as k
        report(r=k.fib(10), hits=hits(k.fib), misses=misses(k.fib), info=pyjit.cache_info())
    ''', env={"PYJIT_CACHE": "0"})
    assert r["r"] == 55 and (r["hits"], r["misses"]) == (0, 0) and not r["info"]["enabled"]
    assert not project.entries()


def test_class_from_a_closure_is_cached(project):
    project.write("local.py", '''
        from pyjit import njit
        def make():
            class Local(Exception):
                pass
            @njit(cache=True)
            def f(x):
                if x < 0:
                    raise Local("no")
                return x
            return f, Local
        f, Local = make()
    ''')
    body = '''
        import local
        report(r=[outcome(local.f, 1), outcome(local.f, -1)], hits=hits(local.f))
    '''
    first, second = project.run(body), project.run(body)
    assert first["r"] == second["r"] == [["ok", 1], ["raise", "Local", "no"]]
    assert second["hits"] == 1


def test_class_no_other_process_can_find_is_not_cached(project):
    # made by a typing function at each resolution: nothing in the key leads to it
    project.write("local.py", '''
        from pyjit import njit
        from pyjit.extending import overload

        def check(x):
            return x

        @overload(check)
        def _check(x):
            class Local(Exception):
                pass
            def impl(x):
                if x < 0:
                    raise Local("no")
                return x
            return impl

        @njit(cache=True)
        def f(x):
            return check(x)
    ''')
    body = '''
        import local
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = [outcome(local.f, 1), outcome(local.f, -1)]
        report(r=r, hits=hits(local.f), warnings=[str(w.message) for w in caught])
    '''
    first = project.run(body)
    assert first["r"] == [["ok", 1], ["raise", "Local", "no"]]
    assert len(first["warnings"]) == 1 and "not cached" in first["warnings"][0]
    second = project.run(body)
    assert second["r"] == first["r"] and second["hits"] == 0


# ---- several processes ----

def test_concurrent_processes_compile_one_entry(project):
    project.write("conc.py", '''
        import numpy as np

        def work(barrier, queue):
            import kernels as k
            barrier.wait()
            out = k.cumulative(np.arange(50.0))
            queue.put((out.tolist(), sum(k.cumulative.stats.cache_hits.values()),
                       sum(k.cumulative.stats.cache_misses.values())))
    ''')
    r = project.run('''
        import multiprocessing as mp
        import conc
        ctx = mp.get_context("spawn")
        barrier, queue = ctx.Barrier(8), ctx.Queue()
        procs = [ctx.Process(target=conc.work, args=(barrier, queue)) for _ in range(8)]
        for p in procs:
            p.start()
        results = [queue.get(timeout=240) for _ in procs]
        for p in procs:
            p.join()
        report(results=results, codes=[p.exitcode for p in procs])
    ''')
    assert r["codes"] == [0] * 8
    expected = [float(sum(range(i + 1))) for i in range(50)]
    assert all(res[0] == expected for res in r["results"])
    assert all(res[1] + res[2] == 1 for res in r["results"])
    files = project.entries()
    assert len(files) == 1 and files[0].suffix == ".pjc"
    after = project.run('''
        import kernels as k
        k.cumulative(np.arange(50.0))
        report(hits=hits(k.cumulative))
    ''')
    assert after["hits"] == 1


@pytest.mark.parametrize("method", ["spawn", "fork", "forkserver"])
def test_multiprocessing_with_cached_functions(project, method):
    project.write("mp_work.py", '''
        import numpy as np
        import kernels as k
        def work(n):
            return float(k.cumulative(np.arange(float(n)))[-1]) + k.fib(n % 12)
    ''')
    body = f'''
        import multiprocessing as mp
        import mp_work, kernels as k
        k.fib(3)
        with mp.get_context({method!r}).Pool(2) as pool:
            got = pool.map(mp_work.work, range(1, 7))
        report(got=got, want=[mp_work.work(n) for n in range(1, 7)])
    '''
    project.run(body)
    r = project.run(body)
    assert r["got"] == r["want"]


def test_gpu_kernels_and_ufuncs_take_cache_without_a_warning():
    # GPU ufuncs store their generated kernels as @gpu.jit(cache=True) does
    # (tests/test_gpu_options.py checks that their keys are the same in another process)
    import warnings

    from pyjit.errors import PerformanceWarning
    from pyjit.gpu import hardware

    def saxpy(a, x, out):
        out[0] = a * x[0]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hardware.jit(cache=True)(saxpy)      # kernels are cached: no warning
        hardware.jit("void(float32, float32[:], float32[:])", cache=True)(saxpy)
        hardware.vectorize(["float32(float32)"], cache=True)
        hardware.guvectorize(["void(float32[:], float32[:])"], "(n)->(n)", cache=True)
        hardware.jit(saxpy)
    messages = [str(w.message) for w in caught if w.category is PerformanceWarning]
    assert messages == []


GPU_KERNELS = '''
from pyjit import gpu

FACTOR = 3.0

@gpu.jit(device=True)
def twice(x):
    return 2.0 * x

@gpu.jit(cache=True)
def scale(a, out):
    i = gpu.grid(1)
    if i < a.size:
        out[i] = twice(a[i]) * FACTOR
'''

GPU_CHECK = '''
    import numpy as np
    import gk
    a = np.arange(100, dtype=np.float32)
    out = np.zeros_like(a)
    gk.scale[1, 128](a, out)
    report(ok=bool((out == a * 6.0).all()), hits=hits(gk.scale), misses=misses(gk.scale),
           asm=".entry" in str(gk.scale.inspect_asm()))
'''


@pytest.mark.gpu
def test_gpu_kernel_ptx_cached_and_invalidated_by_device_functions(tmp_path):
    project = Project(tmp_path, {"gk.py": GPU_KERNELS})
    first, second = project.run(GPU_CHECK), project.run(GPU_CHECK)
    assert first["ok"] and second["ok"] and second["asm"]   # a loaded version shows its PTX
    assert (first["hits"], first["misses"]) == (0, 1)
    assert (second["hits"], second["misses"]) == (1, 0)
    project.edit("gk.py", "return 2.0 * x", "return x + x")   # a device function changed
    third = project.run(GPU_CHECK)
    assert third["ok"] and (third["hits"], third["misses"]) == (0, 1)
    project.edit("gk.py", "FACTOR = 3.0", "FACTOR = 4.0")     # a frozen global changed
    fourth = project.run(GPU_CHECK.replace("a * 6.0", "a * 8.0"))
    assert fourth["ok"] and (fourth["hits"], fourth["misses"]) == (0, 1)


def test_old_entries_of_a_function_are_pruned(tmp_path):
    import time

    from pyjit import _cache
    names = [f"mod.f.{i:020d}.{0:020d}.pjc" for i in range(_cache.MAX_PER_FUNCTION + 6)]
    for i, name in enumerate(names):
        (tmp_path / name).write_bytes(b"x")
        os.utime(tmp_path / name, ns=(i * 10**9, i * 10**9))
    (tmp_path / "mod.g.0.0.pjc").write_bytes(b"another function")
    stale = tmp_path / (names[0] + ".123.abc.tmp")
    stale.write_bytes(b"left by a killed process")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    _cache._prune(str(tmp_path), names[-1])
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(names[6:] + ["mod.g.0.0.pjc"])
