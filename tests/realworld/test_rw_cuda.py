"""Real numba-cuda programs, the import switched to pyjit: in both simulators (interpreted, and
compiled for the CPU) always, and on the GPU when there is one (those carry the `gpu` mark and skip without one).

Monte Carlo estimates of pi from per-thread xoroshiro128+ generators, in float32 and float64 (a
benchmark repository's numba-cuda version, course code); numba-cuda's documented 3-d grid filled
with uniform draws through grid-stride loops; particles as one structured array stepped by a
kernel that reads and writes fields by name and attribute with Gaussian kicks (particle-physics
and tutorial codes); a ufunc declared without a return type over int16 and the results read back
by iterating device arrays (`zip(dX, dY)`), as numba-cuda's tutorials do. Each result is compared
with the same computation in plain Python over numba-cuda's generator algorithm (gpu_kernels.py).
"""
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gpu_kernels import _ref_next, _ref_states, _ref_unit  # noqa: E402

from pyjit.cuda.random import (  # noqa: E402
    create_xoroshiro128p_states, xoroshiro128p_normal_float32, xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64,
)


def _simulator():
    import importlib

    import pyjit.gpu as g
    return g if g.SIMULATOR else importlib.import_module("pyjit.gpu.simulator")


def _gpu():
    import pyjit.gpu as g
    if g.SIMULATOR or not g.is_available():
        pytest.skip("no GPU (or PYJIT_SIMULATOR=1)")
    return g


@pytest.fixture(params=["simulator", "cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def cuda(request):
    """The interpreted simulator, the compiled one (PYJIT_SIMULATOR=cpu's backend), the GPU."""
    if request.param == "cpu":
        import importlib
        return importlib.import_module("pyjit.gpu.cpu")
    return _simulator() if request.param == "simulator" else _gpu()


def _states(cuda, n, seed):
    """create_xoroshiro128p_states of the backend under test (the simulator module's own when
    pyjit.gpu is the compiled backend)."""
    return cuda.random.create_xoroshiro128p_states(n, seed=seed)


# ---- Monte Carlo pi, float32 draws, one estimate a thread (graeme-winter/sidewinder) ----

def test_monte_carlo_pi_float32(cuda):
    @cuda.jit
    def mc_pi(states, iterations, out):
        tid = cuda.grid(1)
        inside = 0
        for i in range(iterations):
            x = xoroshiro128p_uniform_float32(states, tid)
            y = xoroshiro128p_uniform_float32(states, tid)
            if x ** 2 + y ** 2 <= 1.0:
                inside += 1
        out[tid] = 4.0 * inside / iterations

    threads, blocks, iterations = 32, 2, 50
    states = _states(cuda, threads * blocks, 42)
    out = np.zeros(threads * blocks, dtype=np.float32)
    mc_pi[blocks, threads](states, iterations, out)
    want = np.zeros_like(out)
    for tid, s in enumerate(_ref_states(threads * blocks, 42)):
        inside = 0
        for _ in range(iterations):
            x = np.float32(_ref_unit(_ref_next(s)))
            y = np.float32(_ref_unit(_ref_next(s)))
            inside += x ** 2 + y ** 2 <= 1.0
        want[tid] = 4.0 * inside / iterations
    np.testing.assert_allclose(out, want, rtol=1e-6)
    assert abs(out.mean() - math.pi) < 0.2


# ---- the same in float64, written to a device array (course code) ----

def test_monte_carlo_pi_float64_device_output(cuda):
    @cuda.jit
    def calcularpi_kernel(rng_states, iteraciones, out_d):
        ii = cuda.grid(1)
        cae_adentro = 0
        for i in range(iteraciones):
            x = xoroshiro128p_uniform_float64(rng_states, ii)
            y = xoroshiro128p_uniform_float64(rng_states, ii)
            if x ** 2 + y ** 2 <= 1.0:
                cae_adentro += 1
        out_d[ii] = 4.0 * cae_adentro / iteraciones

    n, iteraciones, seed = 64, 40, 777
    rng_states = _states(cuda, n, seed)
    out = np.zeros(n, dtype=np.float64)
    out_d = cuda.to_device(out)
    calcularpi_kernel[2, 32](rng_states, iteraciones, out_d)
    out_d.copy_to_host(out)
    want = np.zeros(n)
    for ii, s in enumerate(_ref_states(n, seed)):
        inside = 0
        for _ in range(iteraciones):
            x, y = _ref_unit(_ref_next(s)), _ref_unit(_ref_next(s))
            inside += x ** 2 + y ** 2 <= 1.0
        want[ii] = 4.0 * inside / iteraciones
    np.testing.assert_array_equal(out, want)


# ---- numba-cuda's documented 3-d grid of uniform draws, grid-stride loops ----

def test_random_3d_grid(cuda):
    @cuda.jit
    def random_3d(arr, rng_states):
        startx, starty, startz = cuda.grid(3)
        stridex, stridey, stridez = cuda.gridsize(3)
        tid = (startz * stridey * stridex) + (starty * stridex) + startx
        for i in range(startz, arr.shape[0], stridez):
            for j in range(starty, arr.shape[1], stridey):
                for k in range(startx, arr.shape[2], stridex):
                    arr[i, j, k] = xoroshiro128p_uniform_float32(rng_states, tid)

    X, Y, Z = 5, 6, 7
    bx, by, bz = 2, 2, 2
    gx, gy, gz = 2, 2, 1
    nthreads = bx * by * bz * gx * gy * gz
    rng_states = _states(cuda, nthreads, 1)
    arr = cuda.device_array((X, Y, Z), dtype=np.float32)
    random_3d[(gx, gy, gz), (bx, by, bz)](arr, rng_states)
    host = arr.copy_to_host()
    ref = _ref_states(nthreads, 1)
    sx, sy, sz = bx * gx, by * gy, bz * gz
    want = np.zeros((X, Y, Z), np.float32)
    for tid in range(nthreads):
        x0, y0, z0 = tid % sx, (tid // sx) % sy, tid // (sx * sy)
        for i in range(z0, X, sz):
            for j in range(y0, Y, sy):
                for k in range(x0, Z, sx):
                    want[i, j, k] = np.float32(_ref_unit(_ref_next(ref[tid])))
    np.testing.assert_array_equal(host, want)
    assert (host >= 0).all() and (host <= 1).all()


# ---- particles in one structured array, Gaussian kicks (particle-physics style) ----

PARTICLE = np.dtype([("x", np.float32), ("y", np.float32), ("vx", np.float32),
                     ("vy", np.float32), ("alive", np.bool_)])


def test_particles_structured_array_with_kicks(cuda):
    @cuda.jit
    def push(p, states, dt, sigma, box):
        i = cuda.grid(1)
        if i >= p.shape[0] or not p[i].alive:
            return
        p[i].vx += sigma * xoroshiro128p_normal_float32(states, i)
        p[i]['vy'] += sigma * xoroshiro128p_normal_float32(states, i)
        p[i].x += p[i].vx * dt
        p[i]['y'] = p[i]['y'] + p[i].vy * dt
        if abs(p[i].x) > box or abs(p[i].y) > box:
            p[i].alive = False

    n = 48
    p = np.zeros(n, PARTICLE)
    p["x"] = np.linspace(-1, 1, n, dtype=np.float32)
    p["vy"] = 0.5
    p["alive"] = np.arange(n) % 5 != 0
    start = p.copy()
    states = _states(cuda, n, 3)
    dt, sigma, box = np.float32(0.1), np.float32(2.0), np.float32(1.0)
    push[2, 32](p, states, dt, sigma, box)
    ref = _ref_states(n, 3)
    two_pi = np.float32(2 * math.pi)
    for i, q in enumerate(start):
        if not q["alive"]:
            assert p[i] == q
            continue
        kicks = []
        for _ in range(2):
            a = np.float32(_ref_unit(_ref_next(ref[i])))
            b = np.float32(_ref_unit(_ref_next(ref[i])))
            kicks.append(np.sqrt(np.float32(-2.0) * np.log(a)) * np.cos(two_pi * b))
        vx = q["vx"] + sigma * kicks[0]
        vy = q["vy"] + sigma * kicks[1]
        x, y = q["x"] + vx * dt, q["y"] + vy * dt
        np.testing.assert_allclose([p[i]["vx"], p[i]["vy"], p[i]["x"], p[i]["y"]],
                                   [vx, vy, x, y], rtol=1e-5, atol=1e-5)
        assert p[i]["alive"] == (abs(p[i]["x"]) <= box and abs(p[i]["y"]) <= box)


# ---- a ufunc typed by its arguments only; results read by iterating device arrays ----

def test_vectorize_int16_and_zip_of_device_arrays(cuda):
    @cuda.vectorize(['(int16, int16)'])
    def clamp_add(a, b):
        s = a + b
        if s > 1000:
            return 1000
        return s

    a = np.arange(0, 2000, 97, dtype=np.int16)
    b = np.arange(a.size, dtype=np.int16) * 11
    dX, dY = cuda.to_device(a), cuda.to_device(b)
    dZ = clamp_add(dX, dY)
    want = np.minimum(a + b, 1000)
    np.testing.assert_array_equal(dZ.copy_to_host(), want)
    pairs = []
    for x, z in zip(dX, dZ):
        pairs.append((int(x), int(z)))
    assert pairs == list(zip(a.tolist(), want.tolist()))
    assert dZ[3] == want[3]


# ---- without a GPU: each kernel above compiled to PTX (and assembled by ptxas where it is) ----

@pytest.mark.parametrize("name", ["test_monte_carlo_pi_float32",
                                  "test_monte_carlo_pi_float64_device_output",
                                  "test_random_3d_grid",
                                  "test_particles_structured_array_with_kicks"])
def test_kernels_compile_for_the_gpu(name):
    from pyjit import _core
    if not hasattr(_core, "cuda_compile_ptx"):
        pytest.skip("this pyjit has no GPU code generation")
    from test_gpu_compile import _Compiled, _gpu_stub
    stub = _gpu_stub()            # a gpu module whose launches compile the kernel, then stop
    with pytest.raises(_Compiled):
        globals()[name](stub)
    assert len(stub.compiled) == 1
