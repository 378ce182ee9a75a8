"""bench/gpu.py's parts that run without a GPU: the C launch loop builds warning-free, the PTX
it loads has the parameters it passes, and the table shows the new rows."""
import importlib.util
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _bench():
    spec = importlib.util.spec_from_file_location("bench_gpu", os.path.join(ROOT, "bench",
                                                                             "gpu.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_launch_loop_builds_without_warnings(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    exe = tmp_path / "launch_loop"
    subprocess.run([cc, "-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra",
                    "-Werror", "-o", str(exe), _bench().LAUNCH_LOOP_C, "-ldl"], check=True)
    p = subprocess.run([str(exe)], capture_output=True, text=True)
    assert p.returncode == 1 and "usage" in p.stderr


def test_launch_loop_parameters_match_the_ptx():
    from pyjit import _core, gpu
    if gpu.SIMULATOR or not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")
    bench = _bench()
    lib = bench.Lib("pyjit")
    ptx, _ = gpu.compile_ptx(lib.empty4.py_func,
                             "void(float32[::1], float32[::1], float32[::1], float32[::1])")
    entry, nparams = bench.entry_params(ptx)
    assert nparams == 12 and f".entry {entry}(" in ptx


def test_table_shows_the_c_loop_and_reduce_rows():
    bench = _bench()
    res = bench.Results()
    res.values["pyjit"].update(launch=3.0, launch_procs=3.0, reduce=60.0)
    res.values["cupy"].update(launch=5.0, reduce=66.0)
    res.values["c"].update(launch=2.5, launch_procs=2.5)   # fresh processes of each, alternating
    rows = {r[0]: r for r in bench.table_rows(res, ["launch", "reduce"])}
    c_row = rows["launch, against a raw cuLaunchKernel loop in C"]
    assert c_row[4] == "2.50 (C loop)" and c_row[5] == "1.20x C loop" and c_row[7] == "yes"
    r_row = rows["reduce a + b, 2^26 float32 device array"]
    assert r_row[5] == "0.91x CuPy" and r_row[7] == "yes"


def test_table_compares_the_cuda_c_kernel_with_gpu_jit():
    bench = _bench()
    res = bench.Results()
    res.values["pyjit"].update(launch=2.0, launch_raw=2.02)
    res.values["cupy"].update(launch=5.0, launch_raw=5.0)
    rows = {r[0]: r for r in bench.table_rows(res, ["launch"])}
    row = rows["launch, CUDA C kernel (gpu.RawKernel), 4 device arrays"]
    assert row[2] == "2.02" and row[4] == "5.00" and row[5] == "1.01x @gpu.jit"
    assert row[7] == "yes"
    res.values["pyjit"]["launch_raw"] = RuntimeError("no NVRTC")
    row = {r[0]: r for r in bench.table_rows(res, ["launch"])}[row[0]]
    assert row[2] == "error: RuntimeError" and row[7] == "-"
