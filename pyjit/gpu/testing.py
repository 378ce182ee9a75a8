"""numba.cuda.testing's names, as the test suites of GPU libraries import them
(`from numba.cuda.testing import CUDATestCase, skip_on_cudasim, unittest`): a test case class,
skips by backend (the simulators are numba-cuda's simulator here) and by compute capability."""
import os
import unittest

import pyjit.gpu as _gpu


class CUDATestCase(unittest.TestCase):
    """A test that uses the GPU (or a simulator)."""


class ContextResettingTestCase(CUDATestCase):
    """A test after which the device's context is released (cuda.close())."""

    def tearDown(self):
        _gpu.close()


def skip_on_cudasim(reason):
    """Skips the test under a simulator (PYJIT_SIMULATOR or NUMBA_ENABLE_CUDASIM)."""
    return unittest.skipIf(_gpu.SIMULATOR, reason)


def skip_unless_cudasim(reason):
    """Skips the test on a GPU: it runs under a simulator only."""
    return unittest.skipUnless(_gpu.SIMULATOR, reason)


def skip_under_cuda_memcheck(reason):
    return unittest.skipIf(os.environ.get("CUDA_MEMCHECK") is not None, reason)


def cc_X_or_above(major, minor):
    """Whether the current device has compute capability (major, minor) or above (the
    simulators' device is an sm_90 part); False without a GPU."""
    if not _gpu.SIMULATOR and not _gpu.is_available():
        return False
    return tuple(_gpu.get_current_device().compute_capability) >= (major, minor)


def _skip_unless_cc(major, minor):
    def decorate(fn):
        return unittest.skipUnless(cc_X_or_above(major, minor),
                                   f"needs compute capability {major}.{minor} or above")(fn)
    return decorate


skip_unless_cc_50 = _skip_unless_cc(5, 0)
skip_unless_cc_53 = _skip_unless_cc(5, 3)
skip_unless_cc_60 = _skip_unless_cc(6, 0)
skip_unless_cc_75 = _skip_unless_cc(7, 5)
skip_unless_cc_90 = _skip_unless_cc(9, 0)

__all__ = ["CUDATestCase", "ContextResettingTestCase", "skip_on_cudasim", "skip_unless_cudasim",
           "skip_under_cuda_memcheck", "cc_X_or_above", "skip_unless_cc_50", "skip_unless_cc_53",
           "skip_unless_cc_60", "skip_unless_cc_75", "skip_unless_cc_90", "unittest"]
