"""gpu.libdevice (numba-cuda's cuda.libdevice): every function of the table, on both backends.

The functions are grouped by their typed form ("(float64, int32) -> float64"); each group is one
kernel calling all its functions, run by the `gpu` fixture's backends (the simulator always, the
compiled path on a GPU) and compiled to PTX for ptxas. Each result is compared with NumPy, math or
SciPy: float64 functions within a few ulps (libdevice's documented errors), float32 ones within
float32's, the fast_ approximations within 1e-3; the arithmetic with a rounding mode (dadd_rd,
float2int_ru, ll2float_rz ...) against the exact result, as Python's fractions compute it.
"""
import importlib
import math
import os
import sys
from fractions import Fraction

import numpy as np
import pytest

from pyjit import _core, _registry
from pyjit.gpu import hardware as G

sys.path.insert(0, os.path.dirname(__file__))
from util import assemble_ptx  # noqa: E402

ROWS = {}
for _row, _where, _form in _core.builtin_table():
    if _row.startswith("gpu.libdevice."):
        ROWS[_row[len("gpu.libdevice."):]] = _form

N = 32
MODES = ("_rn", "_rz", "_rd", "_ru")


def _parse(form):
    params, result = form.split(" -> ")
    params = [t.strip() for t in params.strip("()").split(",") if t.strip()]
    if result.startswith("tuple("):
        return params, [t.strip() for t in result[len("tuple("):-1].split(",")]
    return params, [result]


GROUPS = {}
for _name, _form in sorted(ROWS.items()):
    GROUPS.setdefault(_form, []).append(_name)


@pytest.fixture(params=["simulator", pytest.param("gpu", marks=pytest.mark.gpu)])
def gpu(request):
    import pyjit.gpu as g
    if request.param == "simulator":
        return g if g.SIMULATOR else importlib.import_module("pyjit.gpu.simulator")
    if g.SIMULATOR or not g.is_available():
        pytest.skip("no GPU (or PYJIT_SIMULATOR=1)")
    return g


# ---- the kernels: one per typed form, one line per function ----

def _source(form, names):
    params, results = _parse(form)
    ins = ", ".join(f"a{p}" for p in range(len(params)))
    outs = ", ".join(f"o{r}" for r in range(len(results)))
    lines = [f"def k({ins}, {outs}):", "    i = gpu.grid(1)", "    if i < a0.shape[1]:"]
    for j, name in enumerate(names):
        call = f"ld.{name}(" + ", ".join(f"a{p}[{j}, i]" for p in range(len(params))) + ")"
        if len(results) == 1:
            lines.append(f"        o0[{j}, i] = {call}")
        else:
            lines.append(f"        r = {call}")
            lines += [f"        o{r}[{j}, i] = r[{r}]" for r in range(len(results))]
    return "\n".join(lines) + "\n"


def _kernel(gpu, form, names):
    scope = {"gpu": gpu, "ld": gpu.libdevice}
    exec(compile(_source(form, names), f"<libdevice kernel {form}>", "exec"), scope)
    return scope["k"]


# ---- inputs ----

DTYPES = {"float32": np.float32, "float64": np.float64, "int16": np.int16, "int32": np.int32,
          "int64": np.int64}


def _float_inputs(name, rng, dtype):
    if name[:1] in "df" and name.endswith(MODES) and "2" not in name:   # dadd_rd, fsqrt_ru ...
        x = rng.uniform(0.5, 2, N) * 10.0 ** rng.integers(-3, 4, N) * rng.choice([-1, 1], N)
        return np.abs(x).astype(dtype) if "sqrt" in name else x.astype(dtype)
    if "2" in name and name.endswith(MODES):   # double2int_rd ...: exact halves too
        x = rng.uniform(-1000, 1000, N)
        x[:4] = [2.5, -2.5, 3.5, 0.5]
        return (np.abs(x) if "2u" in name else x).astype(dtype)
    base = name[len("fast_"):] if name.startswith("fast_") else name
    if base.startswith("acosh"):
        return (1 + rng.uniform(0.1, 3, N)).astype(dtype)
    if base.startswith(("erfcinv", "erfinv", "normcdfinv", "acos", "asin", "atanh")):
        return rng.uniform(0.05, 0.95, N).astype(dtype)
    if base.startswith(("lgamma", "tgamma")):
        return rng.uniform(0.2, 8, N).astype(dtype)
    if base.startswith(("exp", "cosh", "sinh", "pow")):
        return rng.uniform(-4, 4, N).astype(dtype)
    if base.startswith(("j", "y")):   # where libdevice's bound is in ulps (|x| < 8)
        return rng.uniform(0.1, 7.9, N).astype(dtype)
    if base.startswith(("log", "sqrt", "rsqrt", "remquo", "fmod", "remainder")):
        return rng.uniform(0.1, 20, N).astype(dtype)
    return rng.uniform(-6, 6, N).astype(dtype)


def _inputs(name, form):
    rng = np.random.default_rng(sum(map(ord, name)))
    params, _ = _parse(form)
    args = []
    for p, t in enumerate(params):
        if t.startswith("float"):
            args.append(_float_inputs(name, rng, DTYPES[t]))
        elif name in ("jn", "jnf", "yn", "ynf") or (p == 1 and name.startswith(
                ("ldexp", "scalbn", "powi"))):
            args.append(rng.integers(0, 5, N).astype(DTYPES[t]))
        elif name == "half2float":
            args.append(rng.uniform(-100, 100, N).astype(np.float16).view(np.int16))
        else:
            info = np.iinfo(DTYPES[t])
            args.append(rng.integers(info.min, info.max, N, dtype=DTYPES[t], endpoint=True))
    return args


def _run(gpu, form, names):
    params, results = _parse(form)
    per_name = [_inputs(n, form) for n in names]
    ins = [np.stack([a[p] for a in per_name]) for p in range(len(params))]
    outs = [np.zeros((len(names), N), DTYPES[t]) for t in results]
    gpu.jit(_kernel(gpu, form, names))[1, N](*ins, *outs)
    return per_name, outs


# ---- what each function should give ----

try:
    import scipy.special as _special
except ImportError:   # the GPU host may lack SciPy: the functions needing it are left out there
    _special = None
NEEDS_SCIPY = ("erfcx", "erfinv", "erfcinv", "normcdfinv", "j0", "j1", "jn", "y0", "y1", "yn")


def _scipy(name):
    return getattr(_special, name)


def _py(fn):
    """A math function over an array, element by element."""
    def f(x):
        out = []
        for v in x:
            out.append(fn(float(v)))
        return np.array(out)
    return f


def _c_round(x):
    return np.where(np.abs(x) < 2 ** 52, np.copysign(np.floor(np.abs(x) + 0.5), x), x)


def _ilogb(x):
    return np.frexp(x)[1] - 1


FLOAT = {   # float64 NumPy (or SciPy) of the float64 argument(s)
    "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atan2": np.arctan2, "atanh": np.arctanh, "cbrt": np.cbrt,
    "ceil": np.ceil, "copysign": np.copysign, "cos": np.cos, "cosh": np.cosh,
    "cospi": lambda x: np.cos(np.pi * x), "sinpi": lambda x: np.sin(np.pi * x),
    "erf": _py(math.erf), "erfc": _py(math.erfc),
    "erfcx": lambda x: _scipy("erfcx")(x), "erfinv": lambda x: _scipy("erfinv")(x),
    "erfcinv": lambda x: _scipy("erfcinv")(x),
    "normcdf": _py(lambda v: 0.5 * math.erfc(-v / math.sqrt(2))),
    "normcdfinv": lambda x: _scipy("ndtri")(x), "exp": np.exp, "exp10": lambda x: 10.0 ** x,
    "exp2": np.exp2, "expm1": np.expm1, "fabs": np.fabs, "fdim": lambda x, y: np.maximum(x - y, 0),
    "floor": np.floor, "fmax": np.fmax, "fmin": np.fmin, "fmod": np.fmod, "hypot": np.hypot,
    "j0": lambda x: _scipy("j0")(x), "j1": lambda x: _scipy("j1")(x),
    "y0": lambda x: _scipy("y0")(x), "y1": lambda x: _scipy("y1")(x),
    "jn": lambda n, x: _scipy("jv")(n, x), "yn": lambda n, x: _scipy("yv")(n, x),
    "ldexp": lambda x, n: np.ldexp(x, n), "scalbn": lambda x, n: np.ldexp(x, n),
    "lgamma": _py(math.lgamma), "tgamma": _py(math.gamma),
    "log": np.log, "log10": np.log10, "log1p": np.log1p, "log2": np.log2,
    "logb": lambda x: _ilogb(x).astype(np.float64), "ilogb": _ilogb,
    "nearbyint": np.rint, "rint": np.rint, "round": _c_round, "llrint": np.rint,
    "llround": _c_round, "nextafter": np.nextafter, "pow": np.power,
    "powi": lambda x, n: x ** n.astype(np.float64), "rcbrt": lambda x: 1 / np.cbrt(x),
    "rsqrt": lambda x: 1 / np.sqrt(x), "remainder": np.remainder_ieee
    if hasattr(np, "remainder_ieee") else lambda x, y: x - y * np.rint(x / y),
    "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt, "tan": np.tan, "tanh": np.tanh,
    "trunc": np.trunc, "fma": lambda x, y, z: x * y + z,
    "frexp": lambda x: np.frexp(x), "modf": lambda x: np.modf(x),
    "remquo": lambda x, y: (x - y * np.rint(x / y), np.rint(x / y)),
    "sincos": lambda x: (np.sin(x), np.cos(x)),
    "sincospi": lambda x: (np.sin(np.pi * x), np.cos(np.pi * x)),
    "isinf": np.isinf, "isnan": np.isnan, "isfinite": np.isfinite, "finite": np.isfinite,
    "signbit": np.signbit, "saturate": lambda x: np.clip(x, 0, 1), "fdivide": np.divide,
}
RENAMED = {"isinff": "isinf", "isnanf": "isnan", "signbitf": "signbit", "finitef": "finite",
           "isinfd": "isinf", "isnand": "isnan", "isfinited": "isfinite", "signbitd": "signbit",
           "saturatef": "saturate", "fdividef": "fdivide", "frsqrt_rn": "rsqrt"}


def _float_base(name):
    base = name[len("fast_"):] if name.startswith("fast_") else name
    base = RENAMED.get(base, base)
    if base not in FLOAT and base.endswith("f") and base[:-1] in FLOAT:
        base = base[:-1]
    return base


def _u(x, bits=32):
    return int(x) & ((1 << bits) - 1)


def _s(x, bits=32):
    x = _u(x, bits)
    return x - (1 << bits) if x >> (bits - 1) else x


INT = {   # Python ints in, the exact result (the test wraps it to the result type)
    "abs": abs, "llabs": abs, "max": max, "min": min, "llmax": max, "llmin": min,
    "brev": lambda x: int(format(_u(x), "032b")[::-1], 2),
    "brevll": lambda x: int(format(_u(x, 64), "064b")[::-1], 2),
    "clz": lambda x: 32 - _u(x).bit_length(), "clzll": lambda x: 64 - _u(x, 64).bit_length(),
    "ffs": lambda x: (_u(x) & -_u(x)).bit_length(),
    "ffsll": lambda x: (_u(x, 64) & -_u(x, 64)).bit_length(),
    "popc": lambda x: bin(_u(x)).count("1"), "popcll": lambda x: bin(_u(x, 64)).count("1"),
    "hadd": lambda x, y: (x + y) // 2, "rhadd": lambda x, y: (x + y + 1) // 2,
    "uhadd": lambda x, y: (_u(x) + _u(y)) // 2, "urhadd": lambda x, y: (_u(x) + _u(y) + 1) // 2,
    "umax": lambda x, y: max(_u(x), _u(y)), "umin": lambda x, y: min(_u(x), _u(y)),
    "ullmax": lambda x, y: max(_u(x, 64), _u(y, 64)),
    "ullmin": lambda x, y: min(_u(x, 64), _u(y, 64)),
    "mul24": lambda x, y: _s(x, 24) * _s(y, 24),
    "umul24": lambda x, y: (_u(x) & 0xFFFFFF) * (_u(y) & 0xFFFFFF),
    "mulhi": lambda x, y: (x * y) >> 32, "umulhi": lambda x, y: (_u(x) * _u(y)) >> 32,
    "mul64hi": lambda x, y: (x * y) >> 64,
    "umul64hi": lambda x, y: (_u(x, 64) * _u(y, 64)) >> 64,
    "sad": lambda x, y, z: abs(x - y) + _u(z), "usad": lambda x, y, z: abs(_u(x) - _u(y)) + _u(z),
    "byte_perm": lambda x, y, s: sum(
        ((((_u(y) << 32) | _u(x)) >> (8 * ((_u(s) >> (4 * k)) & 7))) & 0xFF) << (8 * k)
        for k in range(4)),
}

BITS = {   # bit reinterpretations, with NumPy's view
    "double_as_longlong": lambda x: x.view(np.int64),
    "longlong_as_double": lambda x: x.view(np.float64),
    "float_as_int": lambda x: x.view(np.int32), "int_as_float": lambda x: x.view(np.float32),
    "double2hiint": lambda x: (x.view(np.int64) >> 32).astype(np.int32),
    "double2loint": lambda x: x.view(np.uint64).astype(np.uint32).view(np.int32),
    "hiloint2double": lambda hi, lo: ((hi.astype(np.int64) << 32) |
                                      lo.view(np.uint32).astype(np.int64)).view(np.float64),
    "half2float": lambda h: h.view(np.float16).astype(np.float32),
    "float2half_rn": lambda x: x.astype(np.float16).view(np.int16),
}

EXACT_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
             "div": lambda a, b: a / b, "rcp": lambda a: 1 / a, "fma": lambda a, b, c: a * b + c}


def _check_mode(got, exact, mode, name):
    """got is exact rounded in mode: on the right side of it, and no representable value of got's
    type lies between them."""
    g = Fraction(float(got))
    toward = {"_rd": -math.inf, "_ru": math.inf, "_rz": 0.0}
    if mode == "_rn":
        step = Fraction(float(np.spacing(np.abs(got)))) / 2
        assert abs(g - exact) <= step, (name, got, float(exact))
        return
    if mode == "_rz":
        mode = "_rd" if exact >= 0 else "_ru"
    assert (g <= exact) if mode == "_rd" else (g >= exact), (name, got, float(exact))
    beyond = Fraction(float(np.nextafter(got, got.dtype.type(-toward[mode]))))
    assert (beyond > exact) if mode == "_rd" else (beyond < exact), (name, got, float(exact))


def _exact_of(name, args):
    """The exact value a rounding-mode function rounds (fma and fmaf: to nearest), or None when
    name is no such function."""
    if name in ("fma", "fmaf"):
        name += "_rn"
    if not name.endswith(MODES):
        return None
    base = name[:-3]
    if base in ("fma", "fmaf"):
        return EXACT_OPS["fma"](*[Fraction(float(a)) for a in args])
    if base[:1] in "df" and base[1:] in EXACT_OPS:
        return EXACT_OPS[base[1:]](*[Fraction(float(a)) for a in args])
    frm = base.split("2")[0]
    if frm in ("int", "uint", "ll", "ull"):
        bits = 64 if frm in ("ll", "ull") else 32
        v = int(args[0])
        return Fraction(v & ((1 << bits) - 1) if frm.startswith("u") else v)
    if base in ("double2float",):
        return Fraction(float(args[0]))
    return None


def _check_function(name, form, args, got):
    params, results = _parse(form)
    if name in BITS:
        np.testing.assert_array_equal(got[0], BITS[name](*args), err_msg=name)
        return
    if name.startswith("nextafter"):   # the neighbour in the arguments' own precision
        np.testing.assert_array_equal(got[0], np.nextafter(*args), err_msg=name)
        return
    if name[1:5] == "sqrt" and name.endswith(MODES):
        return _check_sqrt(name, args[0], got[0])
    exact = [_exact_of(name, [a[i] for a in args]) for i in range(N)]
    if exact[0] is not None:
        for i in range(N):
            _check_mode(got[0][i], exact[i], name[-3:] if name.endswith(MODES) else "_rn", name)
        return
    if name.endswith(MODES) and "2" in name:   # float to int in a mode
        rounding = {"_rn": np.rint, "_rd": np.floor, "_ru": np.ceil, "_rz": np.trunc}[name[-3:]]
        want = rounding(args[0].astype(np.float64))
        bits = 64 if results[0] == "int64" else 32
        unsigned = "2u" in name
        got_v = got[0].view(np.uint64 if bits == 64 else np.uint32) if unsigned else got[0]
        np.testing.assert_array_equal(got_v.astype(np.float64), want, err_msg=name)
        return
    if name in INT:
        bits = np.iinfo(DTYPES[results[0]]).bits
        want = []
        for i in range(N):
            want.append(_s(INT[name](*[int(a[i]) for a in args]), bits))
        np.testing.assert_array_equal(got[0], np.array(want, DTYPES[results[0]]), err_msg=name)
        return
    _check_float(name, args, got, results)


def _check_sqrt(name, x, got):
    for i in range(N):
        exact_sq, g = Fraction(float(x[i])), Fraction(float(got[i]))
        mode = name[-3:]
        lo = Fraction(float(np.nextafter(got[i], got.dtype.type(0))))
        hi = Fraction(float(np.nextafter(got[i], got.dtype.type(np.inf))))
        if mode in ("_rd", "_rz"):
            assert g * g <= exact_sq < hi * hi, (name, x[i], got[i])
        elif mode == "_ru":
            assert lo * lo < exact_sq <= g * g, (name, x[i], got[i])
        else:
            assert got[i] == np.sqrt(x[i]), (name, x[i], got[i])


def _check_float(name, args, got, results):
    base = _float_base(name)
    wide = []
    for a in args:
        wide.append(a.astype(np.float64) if a.dtype.kind == "f" else a)
    with np.errstate(all="ignore"):
        want = FLOAT[base](*wide)
    if len(results) == 1:
        want = (want,)
    single = name.endswith("f") or "f_" in name or name.startswith("fast_") or \
        results[0] == "float32"
    rtol = 1e-3 if name.startswith("fast_") else 2e-6 if single else 1e-13
    # libdevice's Bessel functions of order n are bounded by an absolute error (jnf: 2.2e-6)
    bessel = base in ("j0", "j1", "jn", "y0", "y1", "yn")
    for r, (g, w) in enumerate(zip(got, want)):
        if base == "remquo" and r == 1:   # the quotient's last 3 bits, and its sign unless
            w = np.asarray(w, np.int64)   # they are 0 (libdevice's quotient of 8 is 0)
            np.testing.assert_array_equal(np.abs(g) & 7, np.abs(w) & 7, err_msg=name)
            signed = g != 0
            np.testing.assert_array_equal(np.sign(g[signed]), np.sign(w[signed]), err_msg=name)
            continue
        w = np.asarray(w)
        if w.dtype.kind == "b":   # libdevice's predicates give 0 or 1
            np.testing.assert_array_equal(g != 0, w, err_msg=name)
        elif g.dtype.kind != "f":
            np.testing.assert_array_equal(g, w.astype(g.dtype), err_msg=name)
        else:
            atol = 1e-3 if name.startswith("fast_") else 1e-6 if single else 1e-14
            atol = max(atol, 5e-6 if single else 1e-13) if bessel else atol
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("form", sorted(GROUPS))
def test_libdevice(gpu, form):
    names = []
    for name in GROUPS[form]:
        if _special is not None or _float_base(name) not in NEEDS_SCIPY:
            names.append(name)
    per_name, outs = _run(gpu, form, names)
    for j, name in enumerate(names):
        _check_function(name, form, per_name[j], [o[j] for o in outs])


# ---- PTX, assembled by ptxas ----

@pytest.mark.skipif(not hasattr(_core, "cuda_compile_ptx"),
                    reason="this pyjit has no GPU code generation")
@pytest.mark.parametrize("form", sorted(GROUPS))
def test_ptx_assembles(form):
    import types
    stub = types.ModuleType("gpu_stub")
    stub.grid = G.grid
    stub.libdevice = G.libdevice
    k = _kernel(stub, form, GROUPS[form])
    params, results = _parse(form)
    types_ = [f"array({t}, 2d, C)" for t in params + results]
    _registry.populate()
    ptx, entry, _ = _core.cuda_compile_ptx(k, _registry.REGISTRY, types_)
    assert entry in ptx
    assemble_ptx(ptx)


# libdevice functions whose NVVM intrinsics LLVM 16's InstCombine would turn into operations of
# another rounding (llvm.round: halves away from zero; sitofp/uitofp: to nearest), and the PTX
# instruction each must keep
ROUNDING_PTX = {
    "rint": "cvt.rni.f64.f64", "rintf": "cvt.rni.f32.f32", "nearbyint": "cvt.rni.f64.f64",
    "nearbyintf": "cvt.rni.f32.f32", "int2float_rz": "cvt.rz.f32.s32",
    "uint2float_rz": "cvt.rz.f32.u32", "ll2float_rz": "cvt.rz.f32.s64",
    "ull2float_rz": "cvt.rz.f32.u64", "ll2double_rz": "cvt.rz.f64.s64",
    "ull2double_rz": "cvt.rz.f64.u64",
}


@pytest.mark.skipif(not hasattr(_core, "cuda_compile_ptx"),
                    reason="this pyjit has no GPU code generation")
@pytest.mark.parametrize("name", sorted(ROUNDING_PTX))
def test_ptx_keeps_the_rounding(name):
    import types
    stub = types.ModuleType("gpu_stub")
    stub.grid = G.grid
    stub.libdevice = G.libdevice
    form = ROWS[name]
    k = _kernel(stub, form, [name])
    params, results = _parse(form)
    _registry.populate()
    ptx, entry, _ = _core.cuda_compile_ptx(k, _registry.REGISTRY,
                                           [f"array({t}, 2d, C)" for t in params + results])
    body = ptx[ptx.index(".entry"):]
    assert ROUNDING_PTX[name] in body, body
    assert "cvt.rn.f" not in body and "cvt.rzi.f" not in body, body


def test_every_row_is_tested():
    tested = set(INT) | set(BITS)
    for name in ROWS:
        ones = [1.0] * len(_parse(ROWS[name])[0])
        if _exact_of(name, ones) is not None or (name.endswith(MODES) and "2" in name) or \
                (name[1:5] == "sqrt" and name.endswith(MODES)):
            tested.add(name)
        elif _float_base(name) in FLOAT:
            tested.add(name)
    assert tested >= set(ROWS), sorted(set(ROWS) - tested)


def test_wrong_arity_is_a_typing_error():
    from pyjit.errors import CompileError

    def k(x):
        x[0] = G.libdevice.sinf(x[0], x[0])

    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")
    _registry.populate()
    with pytest.raises(CompileError, match="sinf"):
        _core.cuda_compile_ptx(k, _registry.REGISTRY, ["array(float32, 1d, C)"])


IMPORTED = """
import numpy as np
from pyjit import cuda
from pyjit.cuda.libdevice import sincos, sinf
import pyjit.cuda.libdevice as ld

@cuda.jit
def k(x, out):
    i = cuda.grid(1)
    if i < x.size:
        s, c = sincos(np.float64(x[i]))
        out[i] = sinf(x[i]) + ld.cosf(x[i]) + s * c

x = np.linspace(0, 1, 64, dtype=np.float32)
out = np.zeros_like(x)
k[1, 64](x, out)
x64 = x.astype(np.float64)
np.testing.assert_allclose(out, np.sin(x) + np.cos(x) + np.sin(x64) * np.cos(x64), rtol=1e-6)
assert "sinf" in dir(ld)
print("ok")
"""


@pytest.mark.parametrize("simulator", ["1", pytest.param("0", marks=pytest.mark.gpu)])
def test_imported_by_name(simulator):
    """numba-cuda code imports the functions themselves (`from numba.cuda.libdevice import
    sinf`): run in a fresh interpreter, since the backend is chosen when pyjit.gpu is imported."""
    import pyjit.gpu as g
    if simulator == "0" and (g.SIMULATOR or not g.is_available()):
        pytest.skip("no GPU (or PYJIT_SIMULATOR=1)")
    from util import run_subprocess
    rc, out, err = run_subprocess(IMPORTED, env={"PYJIT_SIMULATOR": simulator})
    assert rc == 0 and out.strip().endswith("ok"), err
