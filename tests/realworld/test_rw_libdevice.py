"""numba-cuda kernels calling libdevice and fp16 functions by name, the import switched to pyjit:
in the simulator always, and on the GPU when there is one (the `gpu` mark).

Phonon codes ported from C to numba-cuda import libdevice's functions themselves (`from
numba.cuda.libdevice import copysign, sqrt, rsqrt, sincospi, exp`): frequencies from the
eigenvalues of dynamical matrices (a negative eigenvalue gives a negative, imaginary-mode
frequency through copysign), and the dynamical matrix at each q-point, a sum over the supercell of
force constants times the phase factors of the shortest vectors (sincospi) scaled by 1/sqrt of
the masses (rsqrt), accumulated in a thread's local complex array by device functions. numba-cuda's
own fp16 tests write comparisons of halves in device functions called from kernels (a half
predicate used in the caller and the callee). Each result is compared with NumPy.
"""
import numpy as np
import pytest

from pyjit.cuda.fp16 import hge, hlt, hmul, hsub
from pyjit.cuda.libdevice import copysign, rsqrt, sincospi, sqrt


def _simulator():
    import importlib

    import pyjit.gpu as g
    return g if g.SIMULATOR else importlib.import_module("pyjit.gpu.simulator")


@pytest.fixture(params=["simulator", pytest.param("gpu", marks=pytest.mark.gpu)])
def cuda(request):
    import pyjit.gpu as g
    if request.param == "simulator":
        return _simulator()
    if g.SIMULATOR or not g.is_available():
        pytest.skip("no GPU (or PYJIT_SIMULATOR=1)")
    return g


# ---- frequencies from eigenvalues: sqrt(|e|) with e's sign, in THz ----

def test_phonon_frequencies(cuda):
    @cuda.jit
    def frequencies_of(freqs, eigvals, factor):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if i >= eigvals.shape[0]:
            return
        j = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        if j >= eigvals.shape[1]:
            return
        freqs[i, j] = copysign(sqrt(abs(eigvals[i, j])), eigvals[i, j]) * factor

    eig = np.random.default_rng(7).normal(0, 4, (37, 12))
    freqs = np.zeros_like(eig)
    frequencies_of[(3, 2), (16, 8)](freqs, eig, 15.633302)
    np.testing.assert_allclose(freqs, np.sign(eig) * np.sqrt(np.abs(eig)) * 15.633302,
                               rtol=1e-14)


# ---- the dynamical matrix at each q-point ----

def _dynmat_kernel(cuda):
    @cuda.jit(device=True)
    def mean_phase(q, svecs, first, count):
        acc = complex(0.0)
        for m in range(count):
            phase = 0.0
            for n in range(3):
                phase += q[n] * svecs[first + m, n]
            s, c = sincospi(2 * phase)
            acc += complex(c, s)
        return acc / count

    @cuda.jit(device=True)
    def block_ij(dynmat, fc, q, svecs, multi, masses, p2s, s2p, i, j):
        inv_mass = rsqrt(masses[i] * masses[j])
        dm = cuda.local.array((3, 3), dtype=np.complex128)
        for a in range(3):
            for b in range(3):
                dm[a, b] = 0.0
        for k in range(s2p.shape[0]):
            if s2p[k] != p2s[j]:
                continue
            ph = mean_phase(q, svecs, multi[i, k, 1], multi[i, k, 0])
            for a in range(3):
                for b in range(3):
                    dm[a, b] += fc[p2s[i], k, a, b] * ph
        for a in range(3):
            for b in range(3):
                dynmat[i * 3 + a, j * 3 + b] = dm[a, b] * inv_mass

    @cuda.jit
    def dynmat_kernel(dynmat, fc, svecs, multi, masses, p2s, s2p, qpoints):
        iq = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if iq >= qpoints.shape[0]:
            return
        for i in range(p2s.shape[0]):
            for j in range(p2s.shape[0]):
                block_ij(dynmat[iq], fc, qpoints[iq], svecs, multi, masses, p2s, s2p, i, j)

    return dynmat_kernel


def _crystal(rng, n_prim=2, n_cells=4):
    n_super = n_prim * n_cells
    p2s = np.arange(0, n_super, n_cells, dtype=np.int64)
    s2p = np.repeat(p2s, n_cells)
    fc = rng.normal(size=(n_super, n_super, 3, 3))
    multi = np.zeros((n_prim, n_super, 2), np.int64)
    counts = rng.integers(1, 4, size=(n_prim, n_super))
    multi[:, :, 0] = counts
    multi[:, :, 1] = np.concatenate(([0], np.cumsum(counts.ravel())[:-1])).reshape(counts.shape)
    svecs = rng.uniform(-2, 2, size=(int(counts.sum()), 3))
    masses = rng.uniform(1, 60, n_prim)
    return fc, svecs, multi, masses, p2s, s2p


def _dynmat_reference(fc, svecs, multi, masses, p2s, s2p, q):
    n = len(p2s)
    d = np.zeros((3 * n, 3 * n), np.complex128)
    for i in range(n):
        for j in range(n):
            for k in np.nonzero(s2p == p2s[j])[0]:
                cnt, first = multi[i, k]
                ph = np.exp(2j * np.pi * (svecs[first:first + cnt] @ q)).mean()
                d[3 * i:3 * i + 3, 3 * j:3 * j + 3] += fc[p2s[i], k] * ph
            d[3 * i:3 * i + 3, 3 * j:3 * j + 3] /= np.sqrt(masses[i] * masses[j])
    return d


def test_dynamical_matrices(cuda):
    rng = np.random.default_rng(11)
    fc, svecs, multi, masses, p2s, s2p = _crystal(rng)
    qpoints = rng.uniform(-0.5, 0.5, (24, 3))
    dynmat = np.zeros((len(qpoints), 3 * len(p2s), 3 * len(p2s)), np.complex128)
    _dynmat_kernel(cuda)[1, 32](dynmat, fc, svecs, multi, masses, p2s, s2p,
                                                    qpoints)
    for iq, q in enumerate(qpoints):
        want = _dynmat_reference(fc, svecs, multi, masses, p2s, s2p, q)
        np.testing.assert_allclose(dynmat[iq], want, rtol=1e-10, atol=1e-12)


# ---- half predicates in a device function and its caller ----

def test_half_predicates_through_a_device_function(cuda):
    @cuda.jit(device=True)
    def below(x, y):
        return hlt(x, y)

    @cuda.jit
    def window(r, a, b, c):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = below(a[i], b[i]) and hge(c[i], b[i])

    @cuda.jit
    def scaled_gap(out, a, b):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = hmul(hsub(a[i], b[i]), np.float16(0.5)) if below(b[i], a[i]) else \
                np.float16(0)

    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-4, 4, 100).astype(np.float16) for _ in range(3))
    r = np.zeros(100, np.bool_)
    window[1, 128](r, a, b, c)
    np.testing.assert_array_equal(r, (a < b) & (c >= b))
    out = np.zeros(100, np.float16)
    scaled_gap[1, 128](out, a, b)
    np.testing.assert_array_equal(out, np.where(b < a, (a - b) * np.float16(0.5), 0))
