"""The kernel tests of gpu_kernels.py, compiled for the CPU and run by the C simulator
(PYJIT_SIMULATOR=cpu's backend, pyjit.gpu.cpu, used directly so that CI runs them in any mode).

What the CPU simulator does not run (the grid barrier) must be refused
when the kernel is compiled, naming the intrinsic: those tests are replaced by that check."""
import importlib
import re

import pytest

from gpu_kernels import *  # noqa: F401,F403 - the shared test functions
from pyjit.errors import UnsupportedError


@pytest.fixture
def gpu():
    return importlib.import_module("pyjit.gpu.cpu")


NOT_SIMULATED = {
    "test_grid_sync_sequential_rows": "gpu.cg.GridGroup.sync",
    "test_grid_sync_normalise": "gpu.cg.GridGroup.sync",
    "test_grid_group_passed_to_a_device_function": "gpu.cg.GridGroup.sync",
    "test_grid_sync_grid_too_large_is_refused": "gpu.cg.GridGroup.sync",
}


def _refused(name, intrinsic):
    original = globals()[name]

    def test(gpu):
        with pytest.raises(UnsupportedError, match=re.escape(intrinsic) +
                           r" is not implemented under PYJIT_SIMULATOR=cpu"):
            original(gpu)
    test.__name__ = name
    return test


for _name, _intrinsic in NOT_SIMULATED.items():
    globals()[_name] = _refused(_name, _intrinsic)
