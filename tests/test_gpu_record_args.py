"""Records as kernel arguments, as numba-cuda takes them: a structured array's item (np.void)
or a np.recarray's (np.record) passed alone, read by attribute, by name and by position, and
written (the launch copies it to the device and back, into the array it is an item of); a
np.recarray itself, whose fields a kernel reads as attributes (p.x, a view of field x, as Numba
reads any record array's), and a device array made from one. In the interpreted simulator; in
the compiled one with each launch's kernel compiled to PTX and assembled by ptxas; and on a GPU.
Each result is compared with the same arithmetic in NumPy."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "realworld"))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU

PARAMS = np.dtype([("scale", np.float64), ("shift", np.int32), ("gain", np.float32),
                   ("taps", np.float32, 3)], align=True)


def _params():
    p = np.zeros(3, PARAMS)
    p["scale"] = [1.5, 2.5, 3.5]
    p["shift"] = [1, 2, 3]
    p["gain"] = [0.5, 0.25, 2.0]
    p["taps"] = np.arange(9, dtype=np.float32).reshape(3, 3) / 4
    return p


def _want(r, x):
    i = np.arange(x.size)
    return r["scale"] * x + r["shift"] + np.float32(r["gain"]) * r["taps"][i % 3]


def test_a_record_read_by_attribute_name_and_position(cuda):
    @cuda.jit
    def apply(r, x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = r.scale * x[i] + r["shift"] + r[2] * r.taps[i % 3]

    p, x = _params(), np.linspace(-1, 1, 20)
    for r in (p[1], p.view(np.recarray)[2]):          # np.void and np.record
        out = np.zeros_like(x)
        apply[1, 32](r, x, out)
        np.testing.assert_allclose(out, _want(r, x), rtol=1e-6)
    out = cuda.device_array_like(x)                    # device arrays beside the record
    apply[1, 32](p[0], cuda.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host(), _want(p[0], x), rtol=1e-6)


def test_a_record_written_by_the_kernel_and_a_device_function(cuda):
    @cuda.jit(device=True)
    def count(r, n):
        r.shift += n

    @cuda.jit
    def calibrate(r, x):
        i = cuda.grid(1)
        if i == 0:
            r.scale = x[0] * 2.0
            count(r, x.size)
            r.taps[2] = r.taps[0] + 1.0

    p, x = _params(), np.array([3.0, 4.0, 5.0])
    want = p.copy()
    want[1]["scale"] = 6.0
    want[1]["shift"] += 3
    want[1]["taps"][2] = want[1]["taps"][0] + 1.0
    calibrate[1, 8](p[1], x)             # the item is written, and so is the array it is of
    for field in PARAMS.names:
        np.testing.assert_array_equal(p[field], want[field])


def test_a_recarray_and_its_fields_as_attributes(cuda):
    @cuda.jit
    def step(p, out):
        i = cuda.grid(1)
        if i < p.size:
            out[i] = p[i].scale * p.gain[i] + p.shift[i]
            p[i].gain = i

    for make in (lambda a: a, cuda.to_device):
        rec = _params().view(np.recarray)
        want_out = rec.scale * rec.gain + rec.shift
        out = np.zeros(rec.size)
        arg = make(rec)
        step[1, 32](arg, out)
        np.testing.assert_allclose(out, want_out, rtol=1e-6)
        got = arg if isinstance(arg, np.ndarray) else arg.copy_to_host()
        np.testing.assert_array_equal(got["gain"], np.arange(rec.size))


def test_a_tuple_holding_a_record_is_refused(cuda):
    @cuda.jit
    def first(t, out):
        out[0] = t[1]

    with pytest.raises(TypeError) as e:
        first[1, 1]((_params()[0], 2.0), np.zeros(1))
    assert "a tuple holding a NumPy record" in str(e.value)


def test_a_record_on_the_device(cuda):
    """cuda.to_device(record) is numba-cuda's DeviceRecord: kernels take it as the record,
    written in place on the device, and copy_to_host() gives it back as a 0-d array."""
    @cuda.jit
    def apply(r, x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = r.scale * x[i] + r["shift"] + r[2] * r.taps[i % 3]

    @cuda.jit
    def bump(r):
        if cuda.grid(1) == 0:
            r.shift += 10
            r.taps[0] = -1.0

    p, x = _params(), np.linspace(-1, 1, 20)
    d = cuda.to_device(p[2])
    out = np.zeros_like(x)
    apply[1, 32](d, x, out)
    np.testing.assert_allclose(out, _want(p[2], x), rtol=1e-6)
    bump[1, 1](d)
    back = d.copy_to_host()
    assert back.shape == () and back["shift"] == p[2]["shift"] + 10 and back["taps"][0] == -1
    assert p[2]["shift"] == 3                      # the host record is left as it was
