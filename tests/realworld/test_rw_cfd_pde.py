"""Real-world patterns: fluid and field solvers written for Numba, restated in our own words
with the import switched: a D2Q9 lattice Boltzmann channel (the equilibrium from module-level
direction and weight arrays, streaming by `np.roll` along each axis, bounce-back on an obstacle
through a 2-d mask inside an index tuple, `f[:, obstacle] = bnd[OPP, :]`), SPH densities over a
linked cell list in a `prange` loop and pairwise pressure and viscosity accelerations (a kernel
gradient returned as a tuple), Crank-Nicolson heat diffusion through a Thomas solver called every
step (defaulted boundary values, tuple assignment of the ends), P1 finite-element stiffness
assembly (dense, with `np.outer`; and as COO triplets from `np.linalg.det`/`inv` of each element's
Jacobian, the nodes unpacked as `(x0, y0), (x1, y1), (x2, y2) = nodes[i0], ...`), an adaptive
Dormand-Prince integrator taking the right-hand side and its parameters as `fun(t, y, *args)`,
accepted steps kept in lists, and Poisson by successive over-relaxation returning early on
convergence. Each is compared with CPython running the same source."""
import math

import numpy as np
import pytest

import pyjit as numba  # noqa: F401
from pyjit import jit, njit, prange  # noqa: F401
from util import check


# ---- lattice Boltzmann D2Q9 ----
CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
W = np.array([4/9, 1/9, 1/9, 1/9, 1/9, 1/36, 1/36, 1/36, 1/36])
OPP = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])

@njit
def equilibrium(rho, ux, uy):
    nx, ny = rho.shape
    feq = np.zeros((9, nx, ny))
    usq = ux ** 2 + uy ** 2
    for i in range(9):
        cu = 3.0 * (CX[i] * ux + CY[i] * uy)
        feq[i, :, :] = rho * W[i] * (1 + cu + 0.5 * cu ** 2 - 1.5 * usq)
    return feq

@njit
def macroscopic(f):
    rho = np.sum(f, axis=0)
    ux = np.zeros_like(rho)
    uy = np.zeros_like(rho)
    for i in range(9):
        ux += CX[i] * f[i]
        uy += CY[i] * f[i]
    return rho, ux / rho, uy / rho

@njit
def stream(f):
    for i in range(9):
        f[i] = np.roll(np.roll(f[i], CX[i], axis=0), CY[i], axis=1)
    return f

@njit
def lbm_run(nx, ny, tau, steps, obstacle):
    rho = np.ones((nx, ny))
    ux = np.full((nx, ny), 0.04)
    uy = np.zeros((nx, ny))
    f = equilibrium(rho, ux, uy)
    for it in range(steps):
        rho, ux, uy = macroscopic(f)
        feq = equilibrium(rho, ux, uy)
        f += -(1.0 / tau) * (f - feq)
        # bounce back on the obstacle
        bnd = f[:, obstacle]
        f[:, obstacle] = bnd[OPP, :]
        f = stream(f)
    rho, ux, uy = macroscopic(f)
    return rho, ux, uy

# ---- SPH ----
@njit(fastmath=True)
def cubic_spline(r, h):
    q = r / h
    sigma = 10.0 / (7.0 * np.pi * h * h)
    if q <= 1.0:
        return sigma * (1.0 - 1.5 * q ** 2 + 0.75 * q ** 3)
    elif q <= 2.0:
        return sigma * 0.25 * (2.0 - q) ** 3
    return 0.0

@njit(fastmath=True)
def cubic_spline_grad(dx, dy, r, h):
    q = r / h
    sigma = 10.0 / (7.0 * np.pi * h * h)
    if r < 1e-12 or q > 2.0:
        return 0.0, 0.0
    if q <= 1.0:
        dw = sigma * (-3.0 * q + 2.25 * q * q) / h
    else:
        dw = -sigma * 0.75 * (2.0 - q) ** 2 / h
    return dw * dx / r, dw * dy / r

@njit
def build_cells(pos, h, box):
    ncell = max(1, int(box // (2 * h)))
    size = box / ncell
    head = -np.ones((ncell, ncell), dtype=np.int64)
    nxt = -np.ones(pos.shape[0], dtype=np.int64)
    for i in range(pos.shape[0]):
        cx = min(int(pos[i, 0] / size), ncell - 1)
        cy = min(int(pos[i, 1] / size), ncell - 1)
        nxt[i] = head[cx, cy]
        head[cx, cy] = i
    return head, nxt, size

@njit(parallel=True)
def sph_density(pos, mass, h, box):
    head, nxt, size = build_cells(pos, h, box)
    ncell = head.shape[0]
    n = pos.shape[0]
    rho = np.zeros(n)
    for i in prange(n):
        cx = min(int(pos[i, 0] / size), ncell - 1)
        cy = min(int(pos[i, 1] / size), ncell - 1)
        s = 0.0
        for ox in (-1, 0, 1):
            for oy in (-1, 0, 1):
                gx, gy = cx + ox, cy + oy
                if gx < 0 or gy < 0 or gx >= ncell or gy >= ncell:
                    continue
                j = head[gx, gy]
                while j != -1:
                    r = math.hypot(pos[i, 0] - pos[j, 0], pos[i, 1] - pos[j, 1])
                    s += mass[j] * cubic_spline(r, h)
                    j = nxt[j]
        rho[i] = s
    return rho

@njit
def sph_accel(pos, vel, mass, rho, h, k, rho0, mu):
    n = len(rho)
    p = k * (rho - rho0)
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            r = np.sqrt(dx * dx + dy * dy)
            if r >= 2 * h:
                continue
            gx, gy = cubic_spline_grad(dx, dy, r, h)
            pterm = p[i] / rho[i] ** 2 + p[j] / rho[j] ** 2
            acc[i, 0] -= mass[j] * pterm * gx
            acc[i, 1] -= mass[j] * pterm * gy
            acc[j, 0] += mass[i] * pterm * gx
            acc[j, 1] += mass[i] * pterm * gy
            # viscosity
            lap = mu * cubic_spline(r, h) / (rho[i] * rho[j])
            acc[i] += mass[j] * lap * (vel[j] - vel[i])
            acc[j] += mass[i] * lap * (vel[i] - vel[j])
    return acc

# ---- Crank-Nicolson heat equation with a Thomas solver ----
@njit(cache=True)
def thomas(a, b, c, d):
    n = len(d)
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x

@njit(cache=True)
def crank_nicolson(u0, alpha, dx, dt, nsteps, left=0.0, right=0.0):
    u = u0.copy()
    n = u.size - 2
    r = alpha * dt / dx ** 2
    a = np.full(n, -r / 2)
    b = np.full(n, 1 + r)
    c = np.full(n, -r / 2)
    a[0] = 0.0
    c[-1] = 0.0
    for _ in range(nsteps):
        rhs = r / 2 * u[:-2] + (1 - r) * u[1:-1] + r / 2 * u[2:]
        rhs[0] += r * left
        rhs[-1] += r * right
        u[1:-1] = thomas(a, b, c, rhs)
        u[0], u[-1] = left, right
    return u

# ---- P1 finite elements on a triangle mesh ----
@njit
def p1_stiffness(nodes, tris):
    nn = nodes.shape[0]
    K = np.zeros((nn, nn))
    F = np.zeros(nn)
    for e in range(tris.shape[0]):
        idx = tris[e]
        x = nodes[idx, 0]
        y = nodes[idx, 1]
        area = 0.5 * abs((x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]))
        b = np.array([y[1] - y[2], y[2] - y[0], y[0] - y[1]])
        c = np.array([x[2] - x[1], x[0] - x[2], x[1] - x[0]])
        ke = (np.outer(b, b) + np.outer(c, c)) / (4.0 * area)
        for a_ in range(3):
            F[idx[a_]] += area / 3.0
            for b_ in range(3):
                K[idx[a_], idx[b_]] += ke[a_, b_]
    return K, F

@njit
def p1_coo(nodes, tris):
    ne = tris.shape[0]
    rows = np.empty(9 * ne, dtype=np.int32)
    cols = np.empty(9 * ne, dtype=np.int32)
    vals = np.empty(9 * ne)
    k = 0
    for e in range(ne):
        i0, i1, i2 = tris[e]
        (x0, y0), (x1, y1), (x2, y2) = nodes[i0], nodes[i1], nodes[i2]
        J = np.array([[x1 - x0, x2 - x0], [y1 - y0, y2 - y0]])
        detJ = np.linalg.det(J)
        invJ = np.linalg.inv(J)
        dphi = np.array([[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]]) @ invJ
        ke = 0.5 * abs(detJ) * dphi @ dphi.T
        for a in range(3):
            for b in range(3):
                rows[k] = tris[e, a]
                cols[k] = tris[e, b]
                vals[k] = ke[a, b]
                k += 1
    return rows, cols, vals

def make_mesh(n):
    xs = np.linspace(0, 1, n)
    X, Y = np.meshgrid(xs, xs, indexing="ij")
    nodes = np.column_stack([X.ravel(), Y.ravel()])
    tris = []
    for i in range(n - 1):
        for j in range(n - 1):
            a = i * n + j; b = a + n; c = a + 1; d = b + 1
            tris.append((a, b, d)); tris.append((a, d, c))
    return nodes, np.array(tris, dtype=np.int64)

# ---- adaptive Dormand-Prince ----
@njit
def lorenz(t, y, sigma, rho, beta):
    return np.array([sigma * (y[1] - y[0]), y[0] * (rho - y[2]) - y[1], y[0] * y[1] - beta * y[2]])

@njit
def dopri45(fun, t0, y0, t1, args, rtol=1e-6, atol=1e-9, h0=1e-3):
    c2, c3, c4, c5 = 1/5, 3/10, 4/5, 8/9
    a21 = 1/5
    a31, a32 = 3/40, 9/40
    a41, a42, a43 = 44/45, -56/15, 32/9
    a51, a52, a53, a54 = 19372/6561, -25360/2187, 64448/6561, -212/729
    a61, a62, a63, a64, a65 = 9017/3168, -355/33, 46732/5247, 49/176, -5103/18656
    b1, b3, b4, b5, b6 = 35/384, 500/1113, 125/192, -2187/6784, 11/84
    e1, e3, e4, e5, e6, e7 = 71/57600, -71/16695, 71/1920, -17253/339200, 22/525, -1/40
    t = t0
    y = y0.copy()
    h = h0
    ts = [t]
    ys = [y.copy()]
    nrej = 0
    while t < t1:
        if t + h > t1:
            h = t1 - t
        k1 = fun(t, y, *args)
        k2 = fun(t + c2 * h, y + h * a21 * k1, *args)
        k3 = fun(t + c3 * h, y + h * (a31 * k1 + a32 * k2), *args)
        k4 = fun(t + c4 * h, y + h * (a41 * k1 + a42 * k2 + a43 * k3), *args)
        k5 = fun(t + c5 * h, y + h * (a51 * k1 + a52 * k2 + a53 * k3 + a54 * k4), *args)
        k6 = fun(t + h, y + h * (a61 * k1 + a62 * k2 + a63 * k3 + a64 * k4 + a65 * k5), *args)
        ynew = y + h * (b1 * k1 + b3 * k3 + b4 * k4 + b5 * k5 + b6 * k6)
        k7 = fun(t + h, ynew, *args)
        err = h * (e1 * k1 + e3 * k3 + e4 * k4 + e5 * k5 + e6 * k6 + e7 * k7)
        scale = atol + rtol * np.maximum(np.abs(y), np.abs(ynew))
        enorm = np.sqrt(np.mean((err / scale) ** 2))
        if enorm <= 1.0:
            t += h
            y = ynew
            ts.append(t)
            ys.append(y.copy())
        else:
            nrej += 1
        fac = 0.9 * enorm ** -0.2 if enorm > 0 else 5.0
        h *= min(5.0, max(0.2, fac))
    out = np.empty((len(ys), y0.size))
    for i in range(len(ys)):
        out[i] = ys[i]
    return np.array(ts), out, nrej

@njit
def run_lorenz():
    return dopri45(lorenz, 0.0, np.array([1.0, 1.0, 1.0]), 2.0, (10.0, 28.0, 8.0 / 3.0))

# ---- 2-d Poisson by SOR with a residual check ----
@njit
def sor_poisson(f, h, omega=1.8, tol=1e-8, maxit=10000):
    ny, nx = f.shape
    u = np.zeros_like(f)
    for it in range(maxit):
        maxdiff = 0.0
        for i in range(1, ny - 1):
            for j in range(1, nx - 1):
                new = 0.25 * (u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - h * h * f[i, j])
                d = new - u[i, j]
                u[i, j] += omega * d
                if abs(d) > maxdiff:
                    maxdiff = abs(d)
        if maxdiff < tol:
            return u, it + 1
    return u, maxit

rng = np.random.default_rng(0)
obst = np.zeros((24, 12), dtype=np.bool_)
obst[8:11, 4:8] = True
pos = rng.uniform(0, 1, (120, 2))
vel = rng.normal(size=(120, 2))
mass = np.full(120, 1 / 120)
rho = sph_density.py_func(pos, mass, 0.06, 1.0)
nodes, tris = make_mesh(6)
u0 = np.sin(np.pi * np.linspace(0, 1, 41))
CASES = [
    ("lbm_run", lbm_run, (24, 12, 0.6, 20, obst)),
    ("sph_density", sph_density, (pos, mass, 0.06, 1.0)),
    ("sph_accel", sph_accel, (pos, vel, mass, rho, 0.06, 1.0, 1.0, 0.1)),
    ("crank_nicolson", crank_nicolson, (u0, 0.5, 1 / 40, 0.001, 50)),
    ("crank_nicolson_bc", crank_nicolson, (u0, 0.5, 1 / 40, 0.001, 50, 1.0, 0.5)),
    ("p1_stiffness", p1_stiffness, (nodes, tris)),
    ("p1_coo", p1_coo, (nodes, tris)),
    ("run_lorenz", run_lorenz, ()),
    ("sor_poisson", sor_poisson, (np.ones((20, 20)), 1 / 19)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    check(f.py_func, *args, jit=f)
