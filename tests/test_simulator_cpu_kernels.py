"""The kernel tests of gpu_kernels.py, compiled for the CPU and run by the C simulator
(PYJIT_SIMULATOR=cpu's backend, pyjit.gpu.cpu, used directly so that CI runs them in any mode)."""
import importlib

import pytest

from gpu_kernels import *  # noqa: F401,F403 - the shared test functions


@pytest.fixture
def gpu():
    return importlib.import_module("pyjit.gpu.cpu")
