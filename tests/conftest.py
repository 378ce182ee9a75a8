"""pytest set-up for pyjit: the `gpu` marker skips unless a GPU and driver are usable."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs an NVIDIA GPU and driver")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")


def _gpu_available():
    try:
        from pyjit import gpu
    except ImportError:
        return False, "pyjit.gpu is not available"
    if gpu is None:
        return False, "pyjit.gpu is not available"
    try:
        ok = bool(gpu.is_available())
    except Exception as exc:  # noqa: BLE001 - a broken driver means no GPU tests
        return False, f"pyjit.gpu.is_available() raised {exc!r}"
    return ok, "no usable NVIDIA GPU (pyjit.gpu.is_available() is false)"


def pytest_collection_modifyitems(config, items):
    # Slow tests first (the order is otherwise kept): under xdist a long one then runs beside the
    # rest instead of alone at the end.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu_items:
        return
    ok, why = _gpu_available()
    if ok:
        return
    skip = pytest.mark.skip(reason=why)
    for item in gpu_items:
        item.add_marker(skip)
