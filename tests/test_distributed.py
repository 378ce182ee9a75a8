"""Compiled objects across processes: pickling by reference and by value (pyjit/_serialize.py),
multiprocessing's start methods, and a Dask cluster of worker processes."""
import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyjit
from pyjit import njit, vectorize, guvectorize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_child(code, data):
    """Runs code in a fresh interpreter with data (pickled) on stdin; its stdout. This module is
    importable there (what it holds at module level pickles by reference)."""
    package = os.path.dirname(os.path.dirname(pyjit.__file__))   # the package this run imports
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package, os.path.join(ROOT, "tests")]))
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], input=pickle.dumps(data),
                         capture_output=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode()


@njit
def module_level(x):
    return x + 1


def make_scaler(k):
    @njit
    def scale(a):
        return a * k + module_level(0.0)
    return scale


def make_recursive():
    @njit
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)
    return fib


def make_ufuncs(k):
    @vectorize(["float64(float64)", "int64(int64)"])
    def times(x):
        return x * k

    @vectorize
    def axpy(x, y):
        return k * x + y

    @guvectorize(["void(float64[:], float64[:])"], "(n)->()")
    def total(a, out):
        s = 0.0
        for v in a:
            s += v
        out[0] = s * k
    return times, axpy, total


def test_importable_dispatcher_pickles_by_reference():
    data = pickle.dumps(module_level)
    assert b"module_level" in data and len(data) < 200
    assert pickle.loads(data) is module_level


def test_closure_made_dispatcher_pickles_by_value_into_another_process():
    scale, a = make_scaler(2.5), np.arange(5.0)
    assert pickle.loads(pickle.dumps(scale)) is scale   # one object per process
    out = run_child("""
        import pickle, sys
        import numpy as np
        scale, again, a = pickle.loads(sys.stdin.buffer.read())
        assert scale is again
        print(repr(scale(a).tolist()), scale.signatures)
        """, (scale, scale, a))
    assert out.split(" [")[0] == repr(scale(a).tolist())
    assert "float64" in out


def test_recursive_and_signature_dispatchers_by_value():
    fib = make_recursive()

    def square(x):
        return x * x
    sq = njit("float64(float64)")(square)
    out = run_child("""
        import pickle, sys
        fib, sq = pickle.loads(sys.stdin.buffer.read())
        print(fib(20), sq(3.0), sq.signatures)
        """, (fib, sq))
    assert out.split()[:2] == [str(fib(20)), str(sq(3.0))]
    assert "float64" in out


def test_pickled_by_value_needs_the_same_python():
    from pyjit import _serialize
    scale = make_scaler(1.0)
    _, (ident, state, made) = _serialize.reduce(scale)
    state = dict(state, version=(2, 7))
    with pytest.raises(RuntimeError, match="Python 2.7 cannot be loaded by Python"):
        _serialize._rebuild("another", state, made)


def test_ufuncs_and_gufuncs_by_value():
    objs = make_ufuncs(3.0)
    assert all(pickle.loads(pickle.dumps(o)) is o for o in objs)
    assert pickle.loads(pickle.dumps(np.add)) is np.add   # NumPy's own ufuncs as before
    a, i = np.linspace(0, 1, 7), np.arange(4)
    times, axpy, total = objs
    out = run_child("""
        import pickle, sys
        import numpy as np
        (times, axpy, total), a, i = pickle.loads(sys.stdin.buffer.read())
        print(repr([times(a).tolist(), times(i).tolist(), axpy(a, a).tolist(), total(a).tolist()]))
        """, (objs, a, i))
    assert out.strip() == repr([times(a).tolist(), times(i).tolist(), axpy(a, a).tolist(),
                                total(a).tolist()])


def test_simulated_kernel_by_value_and_device_arrays_refuse():
    out = run_child("""
        import os, pickle, subprocess, sys
        os.environ["PYJIT_SIMULATOR"] = "1"
        import numpy as np
        from pyjit import gpu

        def make(k):
            @gpu.jit
            def kern(a):
                i = gpu.grid(1)
                if i < a.size:
                    a[i] *= k
            return kern
        kern = make(3.0)
        assert pickle.loads(pickle.dumps(kern)) is kern
        again = pickle.loads(pickle.dumps(kern))
        a = np.arange(4.0)
        again[1, 4](a)
        try:
            pickle.dumps(gpu.to_device(a))
        except TypeError as exc:
            print(a.tolist(), exc)
        """, None)
    assert out.startswith("[0.0, 3.0, 6.0, 9.0] a device array cannot be pickled")
    assert "copy_to_host" in out


def _apply(f, a):
    return f(a)


@pytest.mark.parametrize("method", ["spawn", "forkserver", "fork"])
def test_multiprocessing_start_methods_with_functions_by_value(method):
    scale = make_scaler(4.0)
    chunks = [np.arange(3.0) + i for i in range(4)]
    with multiprocessing.get_context(method).Pool(2) as pool:
        got = pool.starmap(_apply, [(scale, c) for c in chunks])
    for c, g in zip(chunks, got):
        np.testing.assert_array_equal(g, scale(c))


def _worker_versions(ident):
    """In a Dask worker: how many versions the object pickled under ident has there."""
    from pyjit import _serialize
    obj = _serialize._OBJECTS.get(ident)
    return None if obj is None else len(obj.signatures)


def test_dask_cluster_maps_compiled_functions_over_arrays_and_dataframes():
    # installed by scripts/setup.sh; absent only where nothing can be installed (the GPU machine)
    pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed")
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd
    from dask.distributed import Client, LocalCluster
    from pyjit import _serialize

    scale = make_scaler(1.5)

    def make_zscore():
        @njit
        def zscore(x):
            m = x.mean()
            s = x.std()
            out = np.empty_like(x)
            for i in range(x.size):
                out[i] = (x[i] - m) / s if s > 0 else 0.0
            return out
        return zscore
    zscore = make_zscore()

    x = np.random.default_rng(0).random((4000, 10))
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1]})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        arr = da.from_array(x, chunks=(500, 10))
        got = arr.map_blocks(scale, dtype=x.dtype).compute()
        np.testing.assert_array_equal(got, scale(x))
        ddf = dd.from_pandas(frame, npartitions=8)
        parts = ddf.map_partitions(lambda p: pd.Series(zscore(p["a"].to_numpy()), index=p.index),
                                   meta=("a", "f8")).compute()
        want = np.concatenate([zscore(frame["a"].to_numpy()[i:i + 500])
                               for i in range(0, len(frame), 500)])
        np.testing.assert_allclose(parts.to_numpy(), want)
        # every worker that ran a task holds one dispatcher with one version: it compiled once
        ident = _serialize._identity(scale, scale.__dict__)
        versions = client.run(_worker_versions, ident)
        assert set(versions.values()) <= {None, 1} and 1 in versions.values()
