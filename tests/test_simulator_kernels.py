"""The kernel tests of gpu_kernels.py, run in the simulator.

Under PYJIT_SIMULATOR=1 they go through pyjit.gpu itself; otherwise through the simulator module
(pyjit.gpu.simulator), which has the same API, so CI runs them without a GPU either way.
"""
import importlib

import pytest

from gpu_kernels import *  # noqa: F401,F403 - the shared test functions


def simulator_module():
    import pyjit.gpu as g
    return g if g.SIMULATOR else importlib.import_module("pyjit.gpu.simulator")


@pytest.fixture
def gpu():
    return simulator_module()
