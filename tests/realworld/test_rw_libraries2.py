"""Real-world patterns: the Numba code inside well-known libraries (library_kernels2.py), each case
run compiled here and in CPython (the same source under PYJIT_DISABLE_JIT=1, in a subprocess),
the results compared."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import library_kernels2 as lk  # noqa: E402
from util import assert_same  # noqa: E402

CASES = [name for name in dir(lk) if name.startswith("case_")]

_SCRIPT = ("import pickle, sys; sys.path.insert(0, sys.argv[1]); import library_kernels2 as lk; "
           "sys.stdout.buffer.write(pickle.dumps({n: getattr(lk, n)() for n in dir(lk) "
           "if n.startswith('case_')}))")


@pytest.fixture(scope="module")
def expected():
    env = dict(os.environ, PYJIT_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", _SCRIPT, HERE], env=env, check=True,
                         capture_output=True).stdout
    return pickle.loads(out)


def _same(a, b, where):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), where
        for x, y in zip(a, b):
            _same(x, y, where)
    else:
        assert_same(np.asarray(a) if isinstance(a, np.ndarray) else a,
                    np.asarray(b) if isinstance(b, np.ndarray) else b, False, 1e-5, 1e-6,
                    where=where)


@pytest.mark.parametrize("name", CASES)
def test_library_kernel(name, expected):
    _same(expected[name], getattr(lk, name)(), name)
