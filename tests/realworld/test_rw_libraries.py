"""Real-world patterns: the Numba code inside well-known libraries (library_kernels.py to
library_kernels5.py), each case run compiled here and in CPython (the
same source under PYJIT_DISABLE_JIT=1, in a subprocess), the results compared."""
import importlib
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from util import assert_same  # noqa: E402

MODULES = ("library_kernels", "library_kernels2", "library_kernels3", "library_kernels4",
           "library_kernels5")
CASES = [(m, name) for m in MODULES for name in dir(importlib.import_module(m))
         if name.startswith("case_")]

_SCRIPT = ("import importlib, pickle, sys; sys.path.insert(0, sys.argv[1]); "
           "lk = importlib.import_module(sys.argv[2]); "
           "sys.stdout.buffer.write(pickle.dumps({n: getattr(lk, n)() for n in dir(lk) "
           "if n.startswith('case_')}))")


@pytest.fixture(scope="module")
def expected():
    """module -> case -> its result in CPython, computed once per module when first asked."""
    env = dict(os.environ, PYJIT_DISABLE_JIT="1")
    results = {}

    def of(module):
        if module not in results:
            out = subprocess.run([sys.executable, "-c", _SCRIPT, HERE, module], env=env,
                                 check=True, capture_output=True).stdout
            results[module] = pickle.loads(out)
        return results[module]
    return of


def _same(a, b, where):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), where
        for x, y in zip(a, b):
            _same(x, y, where)
    else:
        assert_same(np.asarray(a) if isinstance(a, np.ndarray) else a,
                    np.asarray(b) if isinstance(b, np.ndarray) else b, False, 1e-5, 1e-6,
                    where=where)


@pytest.mark.parametrize("module,name", CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_library_kernel(module, name, expected):
    _same(expected(module)[name], getattr(importlib.import_module(module), name)(), name)
