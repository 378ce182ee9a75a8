"""Real-world patterns: compiled helpers with explicit signatures, called from compiled code.

Numba code in public projects often declares each helper's signature (for eager compilation or
to pin float32/int32 arithmetic) and calls the helpers from other compiled functions. Written
here in the style of those projects (a pairwise Lennard-Jones energy as molecular-dynamics
tutorials write it, a 32-bit linear congruential generator as Monte Carlo codes write it, a
particle-swarm update step returning a tuple of arrays), with `from numba import njit` switched
to pyjit. Each is compared with the same source run by CPython (`py_func`) and with NumPy.
"""
import numpy as np

from pyjit import float64, njit, types, uint32


@njit("f8(f8)")
def lj_pair(r2):
    inv6 = 1.0 / (r2 * r2 * r2)
    return 4.0 * (inv6 * inv6 - inv6)


@njit("f8(f8[:, :], f8)")
def lj_energy(pos, box):
    n = pos.shape[0]
    e = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            r2 = 0.0
            for k in range(3):
                d = pos[i, k] - pos[j, k]
                d -= box * round(d / box)
                r2 += d * d
            e += lj_pair(r2)
    return e


def test_lennard_jones_energy():
    rng = np.random.default_rng(7)
    pos = rng.uniform(0.0, 5.0, size=(40, 3))
    expected = lj_energy.py_func(pos, 5.0)
    assert np.isclose(lj_energy(pos, 5.0), expected, rtol=1e-12)
    # an independent NumPy computation of the same energy
    d = pos[:, None, :] - pos[None, :, :]
    d -= 5.0 * np.round(d / 5.0)
    r2 = (d * d).sum(axis=2)[np.triu_indices(40, 1)]
    assert np.isclose(lj_energy(pos, 5.0), (4.0 * (r2 ** -6 - r2 ** -3)).sum(), rtol=1e-10)


@njit(uint32(uint32))
def lcg_next(state):
    return (state * 1664525 + 1013904223) & 0xFFFFFFFF


@njit
def lcg_uniform(seed, n):
    out = np.empty(n)
    s = seed
    for i in range(n):
        s = lcg_next(s)
        out[i] = s / 4294967296.0
    return out


def test_lcg_stream_wraps_at_32_bits():
    got = lcg_uniform(12345, 1000)
    s, expected = 12345, []
    for _ in range(1000):
        s = (s * 1664525 + 1013904223) % 2**32
        expected.append(s / 4294967296.0)
    np.testing.assert_array_equal(got, np.array(expected))
    assert 0.0 <= got.min() and got.max() < 1.0


@njit(types.UniTuple(float64[:, :], 2)(float64[:, :], float64[:, :], float64[:, :], float64,
                                         float64, float64, float64[:, :], float64[:, :]))
def pso_step(x, v, best, w, c1, c2, r1, r2):
    v_new = np.empty_like(v)
    x_new = np.empty_like(x)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            v_new[i, j] = w * v[i, j] + c1 * r1[i, j] * (best[i, j] - x[i, j]) + c2 * r2[i, j] * (best[0, j] - x[i, j])
            x_new[i, j] = x[i, j] + v_new[i, j]
    return x_new, v_new


@njit
def pso_run(x, v, best, r1, r2, steps):
    for _ in range(steps):
        x, v = pso_step(x, v, best, 0.7, 1.5, 1.5, r1, r2)
    return x, v


def test_particle_swarm_tuple_of_arrays():
    rng = np.random.default_rng(3)
    x, v, best = rng.normal(size=(3, 16, 4))
    r1, r2 = rng.uniform(size=(2, 16, 4))
    got_x, got_v = pso_run(x, v, best, r1, r2, 5)
    ex, ev = x.copy(), v.copy()
    for _ in range(5):
        ev = 0.7 * ev + 1.5 * r1 * (best - ex) + 1.5 * r2 * (best[0] - ex)
        ex = ex + ev
    np.testing.assert_allclose(got_x, ex, rtol=1e-12)
    np.testing.assert_allclose(got_v, ev, rtol=1e-12)
