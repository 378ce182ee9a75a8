"""pyjit.types and the package's public names: type objects, array types, signatures.

Also the runtime's value <-> type mapping on its own (typeof, unboxing into the ABI layout and
boxing back, the casts of explicit signatures), through pyjit._core's test functions."""
import os
import subprocess
import sys

import numpy as np
import pytest

import pyjit
from pyjit import _core, errors, types
from pyjit.types import (Array, Signature, Tuple, UniTuple, boolean, complex64, complex128, f4,
                         f8, float32, float64, i4, i8, int8, int32, int64, intp, none, uint64,
                         void)


# ---- type objects ----

def test_scalar_names_and_aliases():
    assert float64.name == "float64" and str(float64) == "float64"
    assert f8 is float64 and f4 is float32 and i8 is int64 and i4 is int32
    assert pyjit.b1 is pyjit.bool_ is boolean and boolean.name == "bool"
    assert pyjit.c8 is complex64 and pyjit.c16 is complex128
    assert intp is int64 and pyjit.uintp is uint64
    assert void is none and none.name == "none"
    assert pyjit.u1.name == "uint8" and pyjit.f2.name == "float16"


@pytest.mark.parametrize("spec, name", [
    (float64[:], "array(float64, 1d, A)"),
    (float64[::1], "array(float64, 1d, C)"),
    (float64[:, :], "array(float64, 2d, A)"),
    (float64[:, ::1], "array(float64, 2d, C)"),
    (float64[::1, :], "array(float64, 2d, F)"),
    (int8[:, :, ::1], "array(int8, 3d, C)"),
    (Array(float32, 2, "F"), "array(float32, 2d, F)"),
    (Array(float32, 1, "C", readonly=True), "array(float32, 1d, C, readonly)"),
    (Tuple((f8, i8)), "tuple(float64, int64)"),
    (UniTuple(f8, 3), "tuple(float64, float64, float64)"),
    (Tuple(()), "tuple()"),
])
def test_compound_type_names(spec, name):
    assert spec.name == name
    assert types._from_canonical(name) == spec


def test_array_type_attributes():
    t = float64[:, ::1]
    assert (t.dtype, t.ndim, t.layout, t.readonly) == (float64, 2, "C", False)
    assert t == Array(float64, 2, "C") and hash(t) == hash(Array(float64, 2, "C"))
    assert t != float64[:, :]


@pytest.mark.parametrize("bad", [(slice(0, 3),), (slice(None, None, 2),), (slice(None, None, 1),) * 2, 3])
def test_bad_array_subscript(bad):
    with pytest.raises(TypeError):
        float64[bad]


def test_signature_objects():
    sig = float64(float64, int64)
    assert isinstance(sig, Signature)
    assert sig.return_type == float64 and sig.args == (float64, int64)
    assert str(sig) == "float64(float64, int64)"
    assert void(f4[:]).return_type is none
    assert float64() == Signature(float64, ())


def test_scalar_type_converts_like_numpy():
    v = float32(2.0)
    assert type(v) is np.float32 and v == 2.0
    assert type(int8(-5)) is np.int8 and int8(-5) == -5
    assert type(boolean(1)) is np.bool_
    assert type(complex64(1 + 2j)) is np.complex64


@pytest.mark.parametrize("text, ret, args", [
    ("float64(float64[:], int64)", "float64", ("array(float64, 1d, A)", "int64")),
    ("void(f4[:])", "none", ("array(float32, 1d, A)",)),
    ("Tuple((f8, i8))(f8)", "tuple(float64, int64)", ("float64",)),
    ("UniTuple(f8, 2)(f8)", "tuple(float64, float64)", ("float64",)),
    ("f8[:, ::1](f8[::1, :], b1)", "array(float64, 2d, C)", ("array(float64, 2d, F)", "bool")),
    ("(f8, i8)", None, ("float64", "int64")),
    ("int64()", "int64", ()),
    ("c16(c8, u8, intp)", "complex128", ("complex64", "uint64", "int64")),
])
def test_signature_strings(text, ret, args):
    assert types._canonical_signature(text) == (args, ret)


@pytest.mark.parametrize("text", ["float64(", "foo(f8)", "f8", "f8(f8", "f8(1)", "import os", "f8(f8)(f8)",
                                  "__import__('os')"])
def test_malformed_signature_is_type_error(text):
    with pytest.raises(TypeError) as info:
        types._canonical_signature(text)
    assert repr(text) in str(info.value)


def test_canonical_args_forms():
    assert types._canonical_args((f8, i8)) == ("float64", "int64")
    assert types._canonical_args(float64(float64[:])) == ("array(float64, 1d, A)",)
    assert types._canonical_args("f8(i4, i8)") == ("int32", "int64")
    assert types._canonical_args(("float64", np.int32)) == ("float64", "int32")


# ---- the package ----

def test_public_names():
    for name in ["njit", "jit", "prange", "errors", "types", "float32", "int64", "void", "__version__"]:
        assert hasattr(pyjit, name), name
    assert list(pyjit.prange(2, 9, 3)) == list(range(2, 9, 3))   # range outside parallel=True
    assert issubclass(errors.TypingError, errors.CompileError)
    assert issubclass(errors.UnsupportedError, errors.CompileError)


def test_cuda_is_gpu():
    if pyjit.gpu is None:
        pytest.skip("pyjit.gpu not present")
    from pyjit import cuda
    import pyjit.cuda as cuda2
    assert cuda is pyjit.gpu and cuda2 is pyjit.gpu


def test_import_is_light():
    """import pyjit loads neither NumPy nor the compiler."""
    code = "import sys, pyjit; print('numpy' in sys.modules, 'pyjit._core' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=":".join(sys.path)), timeout=60)
    assert out.stdout.split() == ["False", "False"], out.stderr


# ---- typeof, unboxing and boxing, on their own ----

@pytest.mark.parametrize("value, name", [
    (True, "bool"), (1, "weak int64"), (-2**63, "weak int64"), (2**63, "uint64"),
    (2**64 - 1, "uint64"), (1.5, "weak float64"), (1j, "weak complex128"), (None, "none"),
    (np.float32(1), "float32"), (np.int8(3), "int8"), (np.bool_(True), "bool"),
    (np.uint16(2), "uint16"), (np.longlong(2), "int64"), (np.complex64(1), "complex64"),
    (np.zeros(3), "array(float64, 1d, C)"), (np.zeros((2, 3), order="F"), "array(float64, 2d, F)"),
    (np.zeros((4, 4))[:, ::2], "array(float64, 2d, A)"), (np.zeros((), np.int32), "array(int32, 0d, C)"),
    (np.zeros(2, np.complex64), "array(complex64, 1d, C)"), (np.zeros(2, np.bool_), "array(bool, 1d, C)"),
    ((1, 2.0), "tuple(int64, float64)"), ((), "tuple()"),
    ((1, (np.zeros(1, np.uint8), None)), "tuple(int64, tuple(array(uint8, 1d, C), none))"),
])
def test_typeof(value, name):
    assert _core.typeof(value) == name


def test_python_scalars_are_weak_numpy_scalars_strong():
    """NEP 50: a Python number takes the other operand's type, as NumPy does with it."""
    assert _core.typeof(np.int64(1)) == "int64" and _core.typeof(np.float64(1)) == "float64"
    assert _core.typeof((1, 2.0)) == "tuple(int64, float64)"


def test_typeof_readonly():
    a = np.arange(3.0)
    a.flags.writeable = False
    assert _core.typeof(a) == "array(float64, 1d, C, readonly)"


@pytest.mark.parametrize("value, got", [
    ([], "got an empty list"), ({}, "got dict"), (np.zeros(2, object), "dtype object"),
    (np.zeros(2, "S3"), "dtype |S3"),
    (np.zeros(2, ">f8"), "non-native byte order"), ((1, []), "tuple whose item 1 is an empty list"),
    (np.zeros(2, [("a", "U3")]), "ndarray of dtype"),
])
def test_typeof_rejects(value, got):
    with pytest.raises(TypeError) as info:
        _core.typeof(value)
    assert got in str(info.value) and "accepted: bool, int, float" in str(info.value)


def test_typeof_int_overflow():
    with pytest.raises(OverflowError, match="does not fit in int64 or uint64"):
        _core.typeof(2**64)
    with pytest.raises(OverflowError):
        _core.typeof(-2**63 - 1)


@pytest.mark.parametrize("value", [
    True, False, 0, -7, 2**63 + 5, 2.5, -0.0, 1 - 2j, None, np.float32(1.25), np.int16(-3),
    np.uint64(2**64 - 1), np.complex64(1 + 1j), (1, 2.5, (True, None)), (),
])
def test_roundtrip_scalars(value):
    got = _core._roundtrip(value)
    assert got == value
    if not isinstance(value, np.generic):
        assert type(got) is type(value)


def test_roundtrip_arrays_are_the_same_object_or_views():
    a = np.arange(12.0).reshape(3, 4)
    before = sys.getrefcount(a)
    assert _core._roundtrip(a) is a
    assert sys.getrefcount(a) == before
    t = _core._roundtrip((a, 1))
    assert t[0] is a and t[1] == 1


@pytest.mark.parametrize("value, target, expected", [
    (1.7, "int64", 1), (-1.7, "int8", -1), (3, "float32", 3.0), (True, "complex128", 1 + 0j),
    ((1, 2), "tuple(float64, int8)", (1.0, 2)), (300, "uint8", 44), (2.5, "complex64", 2.5 + 0j),
    (float("nan"), "int64", -2**63),
])
def test_casts_of_explicit_signatures(value, target, expected):
    assert _core._roundtrip(value, target) == expected


@pytest.mark.parametrize("src, dst, rank", [
    ("int64", "int64", 0), ("int32", "int64", 1), ("float32", "float64", 1), ("int64", "float64", 2),
    ("bool", "int32", 2), ("float64", "int64", 3), ("int64", "int32", 3), ("complex128", "float64", -1),
    ("array(float64, 1d, C)", "array(float64, 1d, A)", 1), ("array(float64, 1d, A)", "array(float64, 1d, C)", -1),
    ("array(float64, 1d, C)", "array(float32, 1d, C)", -1), ("array(float64, 1d, C, readonly)", "array(float64, 1d, C)", -1),
    ("tuple(int64, float32)", "tuple(float64, float64)", 2),
])
def test_cast_ranks(src, dst, rank):
    assert _core._rank(src, dst) == rank


def test_nrt_array_owns_its_memory():
    live = _core.nrt_live()
    a = _core._nrt_array((3, 4))
    assert a.shape == (3, 4) and a.strides == (32, 8) and a.dtype == np.float64
    assert isinstance(a.base, _core.MemInfoOwner) and a.flags.writeable and a.flags.c_contiguous
    assert _core.nrt_live() == live + 1
    a[:] = 1.0
    view = a[1]
    del a
    assert _core.nrt_live() == live + 1 and view.sum() == 4.0
    del view
    assert _core.nrt_live() == live


@pytest.mark.parametrize("value", [0.1, 1.0, 1e16, 1e-5, 123456789.125, -0.0, float("nan"),
                                   float("-inf"), 1e300, 5e-324, 2.5e-4, 1e15, 9007199254740993.0])
def test_print_formats_floats_like_python(value):
    assert _core.format_float(value) == repr(value)


def test_scalar_type_called_on_an_int_wraps_as_compiled_code():
    from pyjit import int8, int32, uint8, uint64

    @pyjit.njit
    def convert(v):
        return uint64(v), int32(v), int8(v), uint8(v)

    for v in (-7, 2**31, 2**64 - 1, 300, -129):
        host = (uint64(v), int32(v), int8(v), uint8(v))
        assert host == convert(v if v < 2**63 else v - 2**64)
        assert host[0] == v % 2**64 and host[1] == np.array(v % 2**32, np.uint32).astype(np.int32)
