"""numba-cuda particle and lattice codes from public projects, the import switched to pyjit:
smoothed-particle hydrodynamics (densities, pressures and forces with annotated parameters
`np.ndarray`/`np.float64`, an index helper and small vector device functions returning tuples,
constants read from module globals), a gravitational n-body step through shared tiles of float32
positions with a softening length, a D2Q9 lattice Boltzmann solver (streaming with periodic wrap
through a velocity table, moments, BGK collision with the weights as module-level tuples, bounce
back at walls), molecular dynamics with a cell list built by atomics and a Verlet neighbour list
walked for Lennard-Jones forces and energies.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy or plain Python.
"""
import math
import os
import sys

import numpy as np

from pyjit import float32, int32

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _blocks(n, tpb):
    return (n + tpb - 1) // tpb


# ---- SPH: one thread a particle over all others; Gaussian kernel, pressure from the density
# error, symmetric pressure forces along the unit direction (a fluid sandbox in numba-cuda) ----

TARGET_DENSITY = 2.0
PRESSURE_MULTIPLIER = 0.5


def test_sph_density_pressure_forces(cuda):
    @cuda.jit(device=True)
    def get_index():
        return cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x

    @cuda.jit(device=True)
    def smoothing(r, h):
        return math.exp(-(r ** 2) / (2 * h ** 2))

    @cuda.jit(device=True)
    def direction_to(xi, yi, xj, yj):
        dx = xj - xi
        dy = yj - yi
        d = math.sqrt(dx * dx + dy * dy)
        if d > 0:
            return dx / d, dy / d, d
        return 0.0, 0.0, 0.0

    @cuda.jit(device=True)
    def density_to_pressure(density):
        return (density - TARGET_DENSITY) * PRESSURE_MULTIPLIER

    @cuda.jit
    def density_kernel(density: np.ndarray, position: np.ndarray, mass: np.float64,
                       h: np.float64):
        i = get_index()
        if i >= position.shape[0]:
            return
        rho = 0.0
        for j in range(position.shape[0]):
            dx = position[i][0] - position[j][0]
            dy = position[i][1] - position[j][1]
            rho += mass * smoothing(math.sqrt(dx * dx + dy * dy), h)
        density[i] = rho

    @cuda.jit
    def force_kernel(force, position, density, mass, h):
        i = get_index()
        if i >= position.shape[0]:
            return
        fx = 0.0
        fy = 0.0
        pi = density_to_pressure(density[i])
        for j in range(position.shape[0]):
            if j == i:
                continue
            ux, uy, d = direction_to(position[i, 0], position[i, 1],
                                     position[j, 0], position[j, 1])
            shared_p = 0.5 * (pi + density_to_pressure(density[j]))
            w = smoothing(d, h) * d / (h * h)
            fx += shared_p * ux * w * mass / density[j]
            fy += shared_p * uy * w * mass / density[j]
        force[i, 0] = fx
        force[i, 1] = fy

    rng = np.random.default_rng(1)
    n = 70
    pos = rng.random((n, 2)) * 3
    mass, h = 0.8, 0.4
    dens = np.zeros(n)
    density_kernel[_blocks(n, 32), 32](dens, pos, mass, h)
    d = np.sqrt(((pos[:, None, :] - pos[None, :, :]) ** 2).sum(-1))
    w = np.exp(-d ** 2 / (2 * h * h))
    want_rho = mass * w.sum(1)
    np.testing.assert_allclose(dens, want_rho, rtol=1e-12)
    force = np.zeros((n, 2))
    force_kernel[_blocks(n, 32), 32](force, pos, dens, mass, h)
    p = (want_rho - TARGET_DENSITY) * PRESSURE_MULTIPLIER
    with np.errstate(invalid="ignore", divide="ignore"):
        u = (pos[None, :, :] - pos[:, None, :]) / d[:, :, None]
    u[d == 0] = 0
    coef = 0.5 * (p[:, None] + p[None, :]) * w * d / (h * h) * mass / want_rho[None, :]
    np.fill_diagonal(coef, 0)
    np.testing.assert_allclose(force, (coef[:, :, None] * u).sum(1), rtol=1e-9, atol=1e-12)


# ---- n-body: each block stages a tile of float32 (x, y, z, m) bodies in shared memory, every
# thread accumulates its body's acceleration from the tile with a softening length, then a
# leapfrog kernel updates velocities and positions (GPU Gems' n-body in numba-cuda) ----

NB_TILE = 32


def test_nbody_shared_tiles(cuda):
    @cuda.jit(device=True)
    def body_body(bi, bj, ax, ay, az, eps2):
        dx = bj[0] - bi[0]
        dy = bj[1] - bi[1]
        dz = bj[2] - bi[2]
        r2 = dx * dx + dy * dy + dz * dz + eps2
        inv = float32(1.0) / math.sqrt(r2 * r2 * r2)
        s = bj[3] * inv
        return ax + dx * s, ay + dy * s, az + dz * s

    @cuda.jit
    def accelerations(bodies, acc, eps2):
        tile = cuda.shared.array((NB_TILE, 4), dtype=float32)
        i = cuda.grid(1)
        tx = cuda.threadIdx.x
        n = bodies.shape[0]
        me = cuda.local.array(4, float32)
        for c in range(4):
            me[c] = bodies[i, c] if i < n else float32(0.0)
        ax = float32(0.0)
        ay = float32(0.0)
        az = float32(0.0)
        for start in range(0, n, NB_TILE):
            j = start + tx
            for c in range(4):
                tile[tx, c] = bodies[j, c] if j < n else float32(0.0)
            cuda.syncthreads()
            for k in range(NB_TILE):
                ax, ay, az = body_body(me, tile[k], ax, ay, az, eps2)
            cuda.syncthreads()
        if i < n:
            acc[i, 0] = ax
            acc[i, 1] = ay
            acc[i, 2] = az

    @cuda.jit
    def leapfrog(bodies, vel, acc, dt):
        i = cuda.grid(1)
        if i < bodies.shape[0]:
            for c in range(3):
                vel[i, c] += acc[i, c] * dt
                bodies[i, c] += vel[i, c] * dt

    rng = np.random.default_rng(2)
    n = 80
    bodies = np.empty((n, 4), np.float32)
    bodies[:, :3] = rng.standard_normal((n, 3))
    bodies[:, 3] = rng.random(n) + 0.5
    vel = np.zeros((n, 3), np.float32)
    eps2, dt = np.float32(0.01), np.float32(0.01)
    db, dv, da = cuda.to_device(bodies), cuda.to_device(vel), cuda.device_array((n, 3), np.float32)
    ref_b, ref_v = bodies.astype(np.float64), vel.astype(np.float64)
    for _ in range(2):
        accelerations[_blocks(n, NB_TILE), NB_TILE](db, da, eps2)
        leapfrog[_blocks(n, NB_TILE), NB_TILE](db, dv, da, dt)
        dxyz = ref_b[None, :, :3] - ref_b[:, None, :3]
        r2 = (dxyz ** 2).sum(-1) + 0.01
        a = (dxyz * (ref_b[None, :, 3] / r2 ** 1.5)[:, :, None]).sum(1)
        ref_v += a * 0.01
        ref_b[:, :3] += ref_v * 0.01
    np.testing.assert_allclose(db.copy_to_host(), ref_b, rtol=1e-4, atol=1e-4)


# ---- D2Q9 lattice Boltzmann: streaming pulls each population from its upwind neighbour with
# periodic wrap through a velocity table; moments; BGK collision with the weights and velocity
# components as module-level tuples; walls bounce populations back (a Poiseuille channel) ----

CX = (0, 1, 0, -1, 0, 1, -1, -1, 1)
CY = (0, 0, 1, 0, -1, 1, 1, -1, -1)
WQ = (4.0 / 9.0, 1.0 / 9.0, 1.0 / 9.0, 1.0 / 9.0, 1.0 / 9.0,
      1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0)
OPPOSITE = (0, 3, 4, 1, 2, 7, 8, 5, 6)


def test_lattice_boltzmann_d2q9(cuda):
    @cuda.jit
    def streaming(f, f_new, c, nx, ny, q):
        i, j = cuda.grid(2)
        if i < nx and j < ny:
            for iq in range(q):
                si = (i - c[iq, 0] + nx) % nx
                sj = (j - c[iq, 1] + ny) % ny
                f_new[i, j, iq] = f[si, sj, iq]

    @cuda.jit
    def moments(f, rho, ux, uy):
        i, j = cuda.grid(2)
        if i < f.shape[0] and j < f.shape[1]:
            r = 0.0
            mx = 0.0
            my = 0.0
            for q in range(9):
                r += f[i, j, q]
                mx += CX[q] * f[i, j, q]
                my += CY[q] * f[i, j, q]
            rho[i, j] = r
            ux[i, j] = mx / r
            uy[i, j] = my / r

    @cuda.jit
    def collide(f, rho, ux, uy, omega, force_x, solid):
        i, j = cuda.grid(2)
        if i >= f.shape[0] or j >= f.shape[1]:
            return
        if solid[i, j]:
            tmp = cuda.local.array(9, dtype=np.float64)
            for q in range(9):
                tmp[q] = f[i, j, q]
            for q in range(9):
                f[i, j, q] = tmp[OPPOSITE[q]]
            return
        u = ux[i, j]
        v = uy[i, j]
        usq = 1.5 * (u * u + v * v)
        for q in range(9):
            cu = 3.0 * (CX[q] * u + CY[q] * v)
            feq = WQ[q] * rho[i, j] * (1.0 + cu + 0.5 * cu * cu - usq)
            f[i, j, q] += omega * (feq - f[i, j, q]) + 3.0 * WQ[q] * CX[q] * force_x

    nx, ny = 16, 12
    cvec = np.array([CX, CY], dtype=np.int64).T.copy()
    w = np.array(WQ)
    solid = np.zeros((nx, ny), dtype=np.bool_)
    solid[:, 0] = solid[:, -1] = True
    rng = np.random.default_rng(4)
    f = w[None, None, :] * (1 + 0.01 * rng.random((nx, ny, 9)))
    omega, fx = 1.0 / 0.8, 1e-4
    df, dg = cuda.to_device(f), cuda.device_array_like(f)
    rho, ux, uy = (cuda.device_array((nx, ny)) for _ in range(3))
    dc = cuda.to_device(cvec)
    g, t = (4, 4), (_blocks(nx, 4), _blocks(ny, 4))
    ref = f.copy()
    for _ in range(3):
        streaming[t, g](df, dg, dc, nx, ny, 9)
        df, dg = dg, df
        moments[t, g](df, rho, ux, uy)
        collide[t, g](df, rho, ux, uy, omega, fx, solid)
        # NumPy
        new = np.empty_like(ref)
        for q in range(9):
            new[:, :, q] = np.roll(np.roll(ref[:, :, q], CX[q], axis=0), CY[q], axis=1)
        ref = new
        r = ref.sum(2)
        u = (ref * cvec[:, 0]).sum(2) / r
        v = (ref * cvec[:, 1]).sum(2) / r
        cu = 3 * (cvec[:, 0] * u[..., None] + cvec[:, 1] * v[..., None])
        feq = w * r[..., None] * (1 + cu + 0.5 * cu * cu - 1.5 * (u * u + v * v)[..., None])
        fluid = ref + omega * (feq - ref) + 3 * w * cvec[:, 0] * fx
        bounced = ref[:, :, list(OPPOSITE)]
        ref = np.where(solid[..., None], bounced, fluid)
    np.testing.assert_allclose(df.copy_to_host(), ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(rho.copy_to_host(), r, rtol=1e-13)
    np.testing.assert_allclose(ux.copy_to_host(), u, rtol=1e-9, atol=1e-15)


# ---- MD: particles binned into cells by atomics (count, then slot), a Verlet list built from
# the 27 neighbouring cells with periodic images, Lennard-Jones forces and per-particle energies
# walked over the list (a molecular-dynamics engine's neighbour-list path) ----

def test_md_cell_and_neighbour_lists(cuda):
    @cuda.jit(device=True)
    def wrap(d, box):
        return d - box * round(d / box)

    @cuda.jit
    def bin_particles(pos, box, ncell, cell_count, cell_members, max_per_cell, overflow):
        i = cuda.grid(1)
        if i >= pos.shape[0]:
            return
        cx = int(pos[i, 0] / box * ncell) % ncell
        cy = int(pos[i, 1] / box * ncell) % ncell
        cz = int(pos[i, 2] / box * ncell) % ncell
        slot = cuda.atomic.add(cell_count, (cx, cy, cz), 1)
        if slot < max_per_cell:
            cell_members[cx, cy, cz, slot] = i
        else:
            cuda.atomic.max(overflow, 0, slot + 1)

    @cuda.jit
    def build_neighbours(pos, box, ncell, cell_count, cell_members, rc2, nlist, ncount):
        i = cuda.grid(1)
        if i >= pos.shape[0]:
            return
        cx = int(pos[i, 0] / box * ncell) % ncell
        cy = int(pos[i, 1] / box * ncell) % ncell
        cz = int(pos[i, 2] / box * ncell) % ncell
        k = 0
        for ox in range(-1, 2):
            for oy in range(-1, 2):
                for oz in range(-1, 2):
                    a = (cx + ox) % ncell
                    b = (cy + oy) % ncell
                    c = (cz + oz) % ncell
                    for s in range(cell_count[a, b, c]):
                        j = cell_members[a, b, c, s]
                        if j == i:
                            continue
                        dx = wrap(pos[j, 0] - pos[i, 0], box)
                        dy = wrap(pos[j, 1] - pos[i, 1], box)
                        dz = wrap(pos[j, 2] - pos[i, 2], box)
                        if dx * dx + dy * dy + dz * dz < rc2 and k < nlist.shape[1]:
                            nlist[i, k] = j
                            k += 1
        ncount[i] = k

    @cuda.jit
    def lj_forces(pos, box, nlist, ncount, forces, energy):
        i = cuda.grid(1)
        if i >= pos.shape[0]:
            return
        fx = fy = fz = 0.0
        e = 0.0
        for k in range(ncount[i]):
            j = nlist[i, k]
            dx = wrap(pos[i, 0] - pos[j, 0], box)
            dy = wrap(pos[i, 1] - pos[j, 1], box)
            dz = wrap(pos[i, 2] - pos[j, 2], box)
            r2 = dx * dx + dy * dy + dz * dz
            inv6 = 1.0 / (r2 * r2 * r2)
            f = 24.0 * inv6 * (2.0 * inv6 - 1.0) / r2
            fx += f * dx
            fy += f * dy
            fz += f * dz
            e += 2.0 * inv6 * (inv6 - 1.0)
        forces[i, 0] = fx
        forces[i, 1] = fy
        forces[i, 2] = fz
        energy[i] = e

    n, box, ncell, rc = 90, 6.0, 3, 1.9
    side = round(n ** (1 / 3)) + 1
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:n]
    rng = np.random.default_rng(6)
    pos = (grid + 0.5) * (box / side) + rng.uniform(-0.1, 0.1, (n, 3))
    pos %= box
    cnt = cuda.to_device(np.zeros((ncell,) * 3, np.int32))
    members = cuda.device_array((ncell, ncell, ncell, 32), np.int32)
    overflow = np.zeros(1, np.int32)
    dpos = cuda.to_device(pos)
    bin_particles[_blocks(n, 32), 32](dpos, box, ncell, cnt, members, 32, overflow)
    assert overflow[0] == 0
    nlist = cuda.device_array((n, 64), np.int32)
    ncount = cuda.device_array(n, np.int32)
    build_neighbours[_blocks(n, 32), 32](dpos, box, ncell, cnt, members, rc * rc, nlist, ncount)
    forces = np.zeros((n, 3))
    energy = np.zeros(n)
    lj_forces[_blocks(n, 32), 32](dpos, box, nlist, ncount, forces, energy)

    d = pos[:, None, :] - pos[None, :, :]
    d -= box * np.round(d / box)
    r2 = (d ** 2).sum(-1)
    np.fill_diagonal(r2, np.inf)
    near = r2 < rc * rc
    counts = ncount.copy_to_host()
    np.testing.assert_array_equal(counts, near.sum(1))
    nl = nlist.copy_to_host()
    for i in range(n):
        assert sorted(nl[i, :counts[i]]) == list(np.nonzero(near[i])[0])
    inv6 = np.where(near, 1.0 / np.where(near, r2, 1.0) ** 3, 0.0)
    fmag = np.where(near, 24 * inv6 * (2 * inv6 - 1) / np.where(near, r2, 1.0), 0.0)
    np.testing.assert_allclose(forces, (fmag[:, :, None] * d).sum(1), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(energy, (2 * inv6 * (inv6 - 1)).sum(1), rtol=1e-9, atol=1e-12)
