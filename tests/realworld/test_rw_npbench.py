"""Real-world patterns: the Numba versions of benchmark kernels (NPBench, dpbench).

Benchmark suites keep one Numba implementation per kernel, written with
`@nb.jit(nopython=True, parallel=False, fastmath=True)` and NumPy array expressions where Numba
accepts them, explicit loops where it does not: azimuthal integration by histogram, a CRC-16,
an n-body leapfrog with pairwise separation matrices, Stockham's FFT with a reshaped DFT, a
contour integral of complex matrix inverses, weather stencils (horizontal diffusion, a vertical
advection Thomas solve), Mandelbrot sets shrinking their work arrays with boolean masks, a
lid-driven cavity flow, DBSCAN with a queue kept as (array, head, tail) tuples, k-means, pair
counting, Black-Scholes with `math.erf` and PCA through `np.cov` and `eigh`. Restated here with
`import numba as nb` switched to `import pyjit as nb`; each runs compiled, in CPython
(`py_func`) and with Numba on private copies of its arguments, and the results and the arrays
written in place must agree.
"""
import copy
from math import erf, exp, log, sqrt

import numpy as np
import pytest

import pyjit as nb
from util import numba_or_none

FAST = dict(nopython=True, parallel=False, fastmath=True)


@nb.jit(**FAST)
def bin_edges(a, bins):
    edges = np.zeros((bins + 1,), dtype=np.float64)
    lo = a.min()
    step = (a.max() - lo) / bins
    for i in range(edges.shape[0]):
        edges[i] = lo + i * step
    edges[-1] = a.max()
    return edges


@nb.jit(**FAST)
def which_bin(x, edges):
    n = edges.shape[0] - 1
    if x == edges[-1]:
        return n - 1
    return int(n * (x - edges[0]) / (edges[-1] - edges[0]))


@nb.jit(**FAST)
def weighted_hist(a, bins, weights):
    hist = np.zeros((bins,), dtype=a.dtype)
    edges = bin_edges(a, bins)
    for i in range(a.shape[0]):
        hist[which_bin(a[i], edges)] += weights[i]
    return hist, edges


@nb.jit(**FAST)
def azimint_hist(data, radius, npt):
    counts = np.histogram(radius, npt)[0]
    sums = weighted_hist(radius, npt, data)[0]
    return sums / counts


@nb.jit(**FAST)
def azimint_naive(data, radius, npt):
    rmax = radius.max()
    res = np.zeros(npt, dtype=np.float64)
    for i in range(npt):
        r1 = rmax * i / npt
        r2 = rmax * (i + 1) / npt
        ring = np.logical_and(r1 <= radius, radius < r2)
        res[i] = data[ring].mean()
    return res


@nb.jit(**FAST)
def crc16(data, poly=0x8408):
    crc = 0xFFFF
    for b in data:
        byte = 0xFF & b
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (byte & 0x0001):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            byte >>= 1
    crc = ~crc & 0xFFFF
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return crc & 0xFFFF


@nb.jit(**FAST)
def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


@nb.jit(**FAST)
def accelerations(pos, mass, G, softening):
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r3 = dx**2 + dy**2 + dz**2 + softening**2
    positive = inv_r3 > 0
    for i in range(positive.shape[0]):
        for j in range(positive.shape[1]):
            if positive[i, j]:
                inv_r3[i, j] **= -1.5
    ax = G * (dx * inv_r3) @ mass
    ay = G * (dy * inv_r3) @ mass
    az = G * (dz * inv_r3) @ mass
    return np.hstack((ax, ay, az))


@nb.jit(**FAST)
def energies(pos, vel, mass, G):
    kinetic = 0.5 * np.sum(mass * vel**2)
    x = pos[:, 0:1]
    y = pos[:, 1:2]
    z = pos[:, 2:3]
    dx = x.T - x
    dy = y.T - y
    dz = z.T - z
    inv_r = np.sqrt(dx**2 + dy**2 + dz**2)
    positive = inv_r > 0
    for i in range(positive.shape[0]):
        for j in range(positive.shape[1]):
            if positive[i, j]:
                inv_r[i, j] = 1.0 / inv_r[i, j]
    potential = G * np.sum(np.triu(-(mass * mass.T) * inv_r, 1))
    return kinetic, potential


@nb.jit(**FAST)
def nbody(mass, pos, vel, Nt, dt, G, softening):
    vel -= (np.sum(mass * vel, axis=0) / vel.shape[0]) / np.mean(mass)
    acc = accelerations(pos, mass, G, softening)
    KE = np.empty(Nt + 1, dtype=np.float64)
    PE = np.empty(Nt + 1, dtype=np.float64)
    KE[0], PE[0] = energies(pos, vel, mass, G)
    for i in range(Nt):
        vel += acc * dt / 2.0
        pos += vel * dt
        acc = accelerations(pos, mass, G, softening)
        vel += acc * dt / 2.0
        KE[i + 1], PE[i + 1] = energies(pos, vel, mass, G)
    return KE, PE


@nb.jit(**FAST)
def index_grid(xn, yn):
    Xi = np.empty((xn, yn), dtype=np.uint32)
    Yi = np.empty((xn, yn), dtype=np.uint32)
    for i in range(xn):
        Xi[i, :] = i
    for j in range(yn):
        Yi[:, j] = j
    return Xi, Yi


@nb.jit(**FAST)
def stockham_fft(N, R, K, x, y):
    i_coord, j_coord = index_grid(R, R)
    dft_mat = np.exp(-2.0j * np.pi * i_coord * j_coord / R)
    y[:] = x[:]
    ii_coord, jj_coord = index_grid(R, R**K)
    for i in range(K):
        yv = np.reshape(y, (R**i, R, R ** (K - i - 1)))
        perm = np.transpose(yv, axes=(1, 0, 2)).copy()
        D = np.empty((R, R**i, R ** (K - i - 1)), dtype=np.complex128)
        twiddle = np.exp(-2.0j * np.pi * ii_coord[:, : R**i] * jj_coord[:, : R**i]
                         / R ** (i + 1))
        for k in range(R ** (K - i - 1)):
            D[:, :, k] = twiddle
        tw = np.reshape(perm, (N,)) * np.reshape(D, (N,))
        y[:] = np.reshape(dft_mat @ np.reshape(tw, (R, R ** (K - 1))), (N,))


@nb.jit(**FAST)
def contour_integral(NR, NM, slab_per_bc, Ham, int_pts, Y):
    P0 = np.zeros((NR, NM), dtype=np.complex128)
    P1 = np.zeros((NR, NM), dtype=np.complex128)
    for z in int_pts:
        Tz = np.zeros((NR, NR), dtype=np.complex128)
        for n in range(slab_per_bc + 1):
            Tz += np.power(z, slab_per_bc / 2 - n) * Ham[n]
        if NR == NM:
            X = np.linalg.inv(Tz)
        else:
            X = np.linalg.solve(Tz, Y)
        if abs(z) < 1.0:
            X = -X
        P0 += X
        P1 += z * X
    return P0, P1


@nb.jit(**FAST)
def scattering_self_energies(neigh_idx, dH, G, D, Sigma):
    for k in range(G.shape[0]):
        for E in range(G.shape[1]):
            for q in range(D.shape[0]):
                for w in range(D.shape[1]):
                    for i in range(D.shape[-2]):
                        for j in range(D.shape[-1]):
                            for a in range(neigh_idx.shape[0]):
                                for b in range(neigh_idx.shape[1]):
                                    if E - w >= 0:
                                        dHG = G[k, E - w, neigh_idx[a, b]] @ dH[a, b, i]
                                        dHD = dH[a, b, j] * D[q, w, a, b, i, j]
                                        Sigma[k, E, a] += dHG @ dHD


@nb.jit(**FAST)
def hdiff(in_field, out_field, coeff):
    I, J = out_field.shape[0], out_field.shape[1]
    lap = 4.0 * in_field[1:I + 3, 1:J + 3, :] - (
        in_field[2:I + 4, 1:J + 3, :] + in_field[0:I + 2, 1:J + 3, :]
        + in_field[1:I + 3, 2:J + 4, :] + in_field[1:I + 3, 0:J + 2, :])
    res = lap[1:, 1:J + 1, :] - lap[:-1, 1:J + 1, :]
    flx = np.where((res * (in_field[2:I + 3, 2:J + 2, :] - in_field[1:I + 2, 2:J + 2, :])) > 0,
                   0, res)
    res = lap[1:I + 1, 1:, :] - lap[1:I + 1, :-1, :]
    fly = np.where((res * (in_field[2:I + 2, 2:J + 3, :] - in_field[2:I + 2, 1:J + 2, :])) > 0,
                   0, res)
    out_field[:, :, :] = in_field[2:I + 2, 2:J + 2, :] - coeff[:, :, :] * (
        flx[1:, :, :] - flx[:-1, :, :] + fly[:, 1:, :] - fly[:, :-1, :])


BET_M = 0.5
BET_P = 0.5


@nb.jit(**FAST)
def vadv(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage):
    I, J, K = utens_stage.shape[0], utens_stage.shape[1], utens_stage.shape[2]
    ccol = np.empty((I, J, K), dtype=utens_stage.dtype)
    dcol = np.empty((I, J, K), dtype=utens_stage.dtype)
    data_col = np.empty((I, J), dtype=utens_stage.dtype)
    for k in range(1):
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        cs = gcv * BET_M
        ccol[:, :, k] = gcv * BET_P
        bcol = dtr_stage - ccol[:, :, k]
        correction = -cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
        dcol[:, :, k] = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] \
            + correction
        divided = 1.0 / bcol
        ccol[:, :, k] = ccol[:, :, k] * divided
        dcol[:, :, k] = dcol[:, :, k] * divided
    for k in range(1, K - 1):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        as_ = gav * BET_M
        cs = gcv * BET_M
        acol = gav * BET_P
        ccol[:, :, k] = gcv * BET_P
        bcol = dtr_stage - acol - ccol[:, :, k]
        correction = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k]) \
            - cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
        dcol[:, :, k] = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] \
            + correction
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        ccol[:, :, k] = ccol[:, :, k] * divided
        dcol[:, :, k] = (dcol[:, :, k] - (dcol[:, :, k - 1]) * acol) * divided
    for k in range(K - 1, K):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        as_ = gav * BET_M
        acol = gav * BET_P
        bcol = dtr_stage - acol
        correction = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k])
        dcol[:, :, k] = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] \
            + correction
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        dcol[:, :, k] = (dcol[:, :, k] - (dcol[:, :, k - 1]) * acol) * divided
    for k in range(K - 1, K - 2, -1):
        datacol = dcol[:, :, k]
        data_col[:] = datacol
        utens_stage[:, :, k] = dtr_stage * (datacol - u_pos[:, :, k])
    for k in range(K - 2, -1, -1):
        datacol = dcol[:, :, k] - ccol[:, :, k] * data_col[:, :]
        data_col[:] = datacol
        utens_stage[:, :, k] = dtr_stage * (datacol - u_pos[:, :, k])


@nb.jit(**FAST)
def lin_space(start, stop, num, dtype):
    X = np.empty((num,), dtype=dtype)
    dist = (stop - start) / (num - 1)
    for i in range(num):
        X[i] = start + i * dist
    return X


@nb.jit(**FAST)
def mandelbrot_masked(xmin, xmax, ymin, ymax, xn, yn, maxiter, horizon=2.0):
    X = lin_space(xmin, xmax, xn, dtype=np.float64)
    Y = lin_space(ymin, ymax, yn, dtype=np.float64)
    C = X + np.reshape(Y, (yn, 1)) * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, dtype=np.complex128)
    for n in range(maxiter):
        inside = np.less(np.absolute(Z), horizon)
        for j in range(C.shape[0]):
            for k in range(C.shape[1]):
                if inside[j, k]:
                    N[j, k] = n
                    Z[j, k] = Z[j, k] ** 2 + C[j, k]
    for j in range(C.shape[0]):
        for k in range(C.shape[1]):
            if N[j, k] == maxiter - 1:
                N[j, k] = 0
    return Z, N


@nb.jit(**FAST)
def int_grid(xn, yn):
    Xi = np.empty((xn, yn), dtype=np.int64)
    Yi = np.empty((xn, yn), dtype=np.int64)
    for i in range(xn):
        Xi[i, :] = i
    for j in range(yn):
        Yi[:, j] = j
    return Xi, Yi


@nb.jit(**FAST)
def mandelbrot_shrinking(xmin, xmax, ymin, ymax, xn, yn, itermax, horizon=2.0):
    Xi, Yi = int_grid(xn, yn)
    X = lin_space(xmin, xmax, xn, dtype=np.float64)
    Y = lin_space(ymin, ymax, yn, dtype=np.float64)
    C = np.reshape(X, (xn, 1)) + Y * 1j
    N_ = np.zeros(C.shape, dtype=np.int64)
    Z_ = np.zeros(C.shape, dtype=np.complex128)
    Xi = np.reshape(Xi, (xn * yn))
    Yi = np.reshape(Yi, (xn * yn))
    C = np.reshape(C, (xn * yn))
    Z = np.zeros(C.shape, np.complex128)
    for i in range(itermax):
        if not len(Z):
            break
        np.multiply(Z, Z, Z)
        np.add(Z, C, Z)
        out = np.absolute(Z) > horizon
        for j in range(out.shape[0]):
            if out[j]:
                N_[Xi[j], Yi[j]] = i + 1
                Z_[Xi[j], Yi[j]] = Z[j]
        np.logical_not(out, out)
        Z = Z[out]
        Xi, Yi = Xi[out], Yi[out]
        C = C[out]
    return Z_.T, N_.T


@nb.jit(**FAST)
def build_up_b(b, rho, dt, u, v, dx, dy):
    b[1:-1, 1:-1] = rho * (
        1 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))
        - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)) ** 2
        - 2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx))
        - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) ** 2)


@nb.jit(**FAST)
def pressure_poisson(nit, p, dx, dy, b):
    pn = np.empty_like(p)
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = ((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2
                         + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2) / (2 * (dx**2 + dy**2)) \
            - dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1]
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0


@nb.jit(**FAST)
def cavity_flow(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    b = np.zeros((ny, nx))
    for n in range(nt):
        un = u.copy()
        vn = v.copy()
        build_up_b(b, rho, dt, u, v, dx, dy)
        pressure_poisson(nit, p, dx, dy, b)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1]
                         - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
                         - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
                         + nu * (dt / dx**2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                                 + dt / dy**2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1]
                         - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
                         - dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
                         + nu * (dt / dx**2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                                 + dt / dy**2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u[0, :] = 0
        u[:, 0] = 0
        u[:, -1] = 0
        u[-1, :] = 1
        v[0, :] = 0
        v[-1, :] = 0
        v[:, 0] = 0
        v[:, -1] = 0


@nb.jit(**FAST)
def conv2d_bias(input, weights, bias):
    K = weights.shape[0]
    N = input.shape[0]
    H_out = input.shape[1] - K + 1
    W_out = input.shape[2] - K + 1
    C_in = input.shape[3]
    C_out = weights.shape[3]
    output = np.empty((N, H_out, W_out, C_out), dtype=np.float32)
    for i in range(H_out):
        for j in range(W_out):
            patch = input[:, i:i + K, j:j + K, :].copy()
            output[:, i, j, :] = np.sum(np.sum(np.sum(
                np.reshape(patch, (N, K, K, C_in, 1)) * np.reshape(weights, (1, K, K, C_in, C_out)),
                axis=1), axis=1), axis=1)
    return output + bias


@nb.jit(**FAST)
def relu(x):
    return np.maximum(x, 0)


@nb.jit(**FAST)
def row_softmax(x):
    new_shape = (x.shape[0], 1)
    row_max = np.empty(new_shape, dtype=x.dtype)
    for i in range(x.shape[0]):
        row_max[i, 0] = np.max(x[i])
    e = np.exp(x - row_max)
    return e / np.reshape(np.sum(e, axis=-1), new_shape)


@nb.jit(**FAST)
def mlp(input, w1, b1, w2, b2, w3, b3):
    x = relu(input @ w1 + b1)
    x = relu(x @ w2 + b2)
    return row_softmax(x @ w3 + b3)


@nb.jit(**FAST)
def arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = np.sin((theta_2 - theta_1) / 2) ** 2 \
        + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    return 2 * (np.arctan2(np.sqrt(temp), np.sqrt(1 - temp)))


@nb.jit(**FAST)
def clip_compute(array_1, array_2, a, b, c):
    return np.minimum(np.maximum(array_1, 2), 10) * a + array_2 * b + c


@nb.jit(**FAST)
def spmv(A_row, A_col, A_val, x):
    y = np.empty(A_row.size - 1, A_val.dtype)
    for i in range(A_row.size - 1):
        cols = A_col[A_row[i]:A_row[i + 1]]
        vals = A_val[A_row[i]:A_row[i + 1]]
        y[i] = vals @ x[cols]
    return y


NOISE = -1
UNDEFINED = -2


@nb.njit()
def queue_create(capacity):
    return (np.empty(capacity, dtype=np.int64), 0, 0)


@nb.njit()
def queue_resize(qu, tail, new_capacity):
    tail = min(tail, new_capacity)
    grown = np.empty(new_capacity, dtype=np.int64)
    grown[:tail] = qu[:tail]
    return grown, tail


@nb.njit()
def queue_push(qu, value, tail, capacity):
    if tail == capacity:
        capacity = 2 * capacity
        qu, tail = queue_resize(qu, tail, capacity)
    qu[tail] = value
    tail += 1
    return qu, tail, capacity


@nb.njit()
def queue_pop(qu, head, tail):
    head += 1
    return qu[head - 1], head


@nb.njit(parallel=False, fastmath=True)
def neighbourhoods(n, dim, data, eps, ind_lst, sz_lst):
    eps2 = eps * eps
    for j in range(n):
        for k in range(n):
            dist = 0.0
            for m in range(dim):
                diff = data[k * dim + m] - data[j * dim + m]
                dist += diff * diff
            if dist <= eps2:
                size = sz_lst[j]
                ind_lst[j * n + size] = k
                sz_lst[j] = size + 1


@nb.njit(parallel=False, fastmath=True)
def dbscan_clusters(n, min_pts, assignments, sizes, indices_list):
    nclusters = 0
    nnoise = 0
    for i in range(n):
        if assignments[i] != UNDEFINED:
            continue
        size = sizes[i]
        if size < min_pts:
            nnoise += 1
            assignments[i] = NOISE
            continue
        nclusters += 1
        assignments[i] = nclusters - 1
        capacity = 2
        qu, head, tail = queue_create(capacity)
        for j in range(size):
            nxt = indices_list[i * n + j]
            if assignments[nxt] == NOISE:
                nnoise -= 1
                assignments[nxt] = nclusters - 1
            elif assignments[nxt] == UNDEFINED:
                assignments[nxt] = nclusters - 1
                qu, tail, capacity = queue_push(qu, nxt, tail, capacity)
        while not head == tail:
            cur, head = queue_pop(qu, head, tail)
            size = sizes[cur]
            assignments[cur] = nclusters - 1
            if size < min_pts:
                continue
            for j in range(size):
                nxt = indices_list[cur * n + j]
                if assignments[nxt] == NOISE:
                    nnoise -= 1
                    assignments[nxt] = nclusters - 1
                elif assignments[nxt] == UNDEFINED:
                    assignments[nxt] = nclusters - 1
                    qu, tail, capacity = queue_push(qu, nxt, tail, capacity)
    return nclusters, nnoise


@nb.njit
def dbscan(data, eps, min_pts):
    n, dim = data.shape
    flat = data.ravel()
    indices = np.empty(n * n, dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    neighbourhoods(n, dim, flat, eps, indices, sizes)
    assignments = np.full(n, UNDEFINED, dtype=np.int64)
    return dbscan_clusters(n, min_pts, assignments, sizes, indices), assignments


@nb.njit(parallel=False, fastmath=True)
def kmeans(points, centroids, niters):
    labels = np.empty(points.shape[0], dtype=np.int64)
    sums = np.zeros_like(centroids)
    counts = np.zeros(centroids.shape[0], dtype=np.int64)
    for _ in range(niters):
        for i0 in nb.prange(points.shape[0]):
            best = -1.0
            for i1 in range(centroids.shape[0]):
                dx = points[i0, 0] - centroids[i1, 0]
                dy = points[i0, 1] - centroids[i1, 1]
                d = np.sqrt(dx * dx + dy * dy)
                if best > d or best == -1:
                    best = d
                    labels[i0] = i1
        sums[:] = 0
        counts[:] = 0
        for i in range(points.shape[0]):
            c = labels[i]
            sums[c, 0] += points[i, 0]
            sums[c, 1] += points[i, 1]
            counts[c] += 1
        for i in nb.prange(centroids.shape[0]):
            centroids[i, 0] = sums[i, 0] / counts[i]
            centroids[i, 1] = sums[i, 1] / counts[i]
    return labels, counts


@nb.njit(parallel=False, fastmath=True)
def gpairs(x1, y1, z1, w1, x2, y2, z2, w2, rbins, results):
    nbins = rbins.shape[0]
    for i in range(x1.shape[0]):
        px, py, pz, pw = x1[i], y1[i], z1[i], w1[i]
        for j in range(x2.shape[0]):
            dx = px - x2[j]
            dy = py - y2[j]
            dz = pz - z2[j]
            wprod = pw * w2[j]
            dsq = dx * dx + dy * dy + dz * dz
            k = nbins - 1
            while dsq <= rbins[k]:
                results[k] += wprod
                k = k - 1
                if k < 0:
                    break


@nb.njit(parallel=False, fastmath=True)
def black_scholes(price, strike, t, rate, volatility, call, put):
    mr = -rate
    sig_sig_two = volatility * volatility * 2
    for i in nb.prange(price.shape[0]):
        P = price[i]
        S = strike[i]
        T = t[i]
        a = log(P / S)
        b = T * mr
        z = T * sig_sig_two
        c = 0.25 * z
        y = 1.0 / sqrt(z)
        d1 = 0.5 + 0.5 * erf((a - b + c) * y)
        d2 = 0.5 + 0.5 * erf((a - b - c) * y)
        Se = exp(b) * S
        r = P * d1 - Se * d2
        call[i] = r
        put[i] = r - P + Se


@nb.njit(parallel=False, fastmath=True)
def rambo(C1, F1, Q1, output):
    for i in range(C1.shape[0]):
        for j in range(C1.shape[1]):
            C = 2.0 * C1[i, j] - 1.0
            S = np.sqrt(1 - np.square(C))
            F = 2.0 * np.pi * F1[i, j]
            Q = -np.log(Q1[i, j])
            output[i, j, 0] = Q
            output[i, j, 1] = Q * S * np.sin(F)
            output[i, j, 2] = Q * S * np.cos(F)
            output[i, j, 3] = Q * C


@nb.njit(parallel=False, fastmath=True)
def column_means(data):
    tdata = data.T
    m = np.empty(tdata.shape[0])
    for i in range(tdata.shape[0]):
        total = 0.0
        for j in range(tdata.shape[1]):
            total += tdata[i, j]
        m[i] = total / tdata.shape[1]
    return m


@nb.njit(parallel=False, fastmath=True)
def pca(data, dims_rescaled_data=2):
    data -= column_means(data)
    v = np.cov(data, rowvar=False)
    evalues, evectors = np.linalg.eigh(v)
    idx = np.argsort(evalues)[::-1]
    evectors = evectors[:, idx]
    evalues = evalues[idx]
    evectors = evectors[:, :dims_rescaled_data]
    # an eigenvector's sign is arbitrary: make the largest entry of each positive
    for k in range(evectors.shape[1]):
        if evectors[np.argmax(np.abs(evectors[:, k])), k] < 0:
            evectors[:, k] = -evectors[:, k]
    tdata = np.dot(evectors.T.astype(data.dtype), data.T).T
    return tdata, evalues, evectors


rng = np.random.default_rng(11)


def _csr(n, density):
    dense = np.where(rng.uniform(size=(n, n)) < density, rng.normal(size=(n, n)), 0.0)
    rows = np.zeros(n + 1, dtype=np.int64)
    cols = []
    vals = []
    for i in range(n):
        nz = np.nonzero(dense[i])[0]
        rows[i + 1] = rows[i] + nz.size
        cols.extend(nz.tolist())
        vals.extend(dense[i, nz].tolist())
    return rows, np.array(cols, dtype=np.int64), np.array(vals), rng.normal(size=n)


def _nbody_args():
    n = 12
    return (20.0 * np.ones((n, 1)) / n, rng.normal(size=(n, 3)), rng.normal(size=(n, 3)),
            10, 0.01, 1.0, 0.1)


def _fft_args():
    R, K = 2, 4
    N = R**K
    x = rng.normal(size=N) + 1j * rng.normal(size=N)
    return N, R, K, x, np.empty(N, dtype=np.complex128)


def _contour_args(NR, NM):
    slab = 2
    Ham = rng.normal(size=(slab + 1, NR, NR)) + 1j * rng.normal(size=(slab + 1, NR, NR))
    pts = np.exp(2j * np.pi * np.linspace(0, 1, 6)) * np.array([0.5, 1.5, 0.9, 1.1, 2.0, 0.7])
    return NR, NM, slab, Ham, pts, rng.normal(size=(NR, NM)) + 0j


def _scattering_args():
    Nkz, NE, Nqz, Nw, N3D, NA, NB, Norb = 2, 4, 2, 2, 2, 3, 2, 2
    neigh = rng.integers(0, NA, size=(NA, NB)).astype(np.int32)
    dH = rng.normal(size=(NA, NB, N3D, Norb, Norb)) + 1j * rng.normal(size=(NA, NB, N3D, Norb, Norb))
    G = rng.normal(size=(Nkz, NE, NA, Norb, Norb)) + 1j * rng.normal(size=(Nkz, NE, NA, Norb, Norb))
    D = rng.normal(size=(Nqz, Nw, NA, NB, N3D, N3D)) + 1j * rng.normal(size=(Nqz, Nw, NA, NB, N3D, N3D))
    return neigh, dH, G, D, np.zeros((Nkz, NE, NA, Norb, Norb), dtype=np.complex128)


def _hdiff_args():
    I, J, K = 6, 5, 3
    return rng.uniform(size=(I + 4, J + 4, K)), np.zeros((I, J, K)), rng.uniform(size=(I, J, K))


def _vadv_args():
    I, J, K = 4, 3, 6
    return (rng.uniform(size=(I, J, K)), rng.uniform(size=(I, J, K)),
            rng.uniform(size=(I + 1, J, K + 1)), rng.uniform(size=(I, J, K)),
            rng.uniform(size=(I, J, K)), 3.0)


def _cavity_args():
    nx = ny = 11
    return (nx, ny, 5, 10, np.zeros((ny, nx)), np.zeros((ny, nx)), 0.001, 2.0 / (nx - 1),
            2.0 / (ny - 1), np.zeros((ny, nx)), 1.0, 0.1)


def _mlp_args():
    def f32(*shape):
        return rng.uniform(-1, 1, size=shape).astype(np.float32)
    return f32(4, 6), f32(6, 8), f32(8), f32(8, 5), f32(5), f32(5, 3), f32(3)


def _clusters(n):
    centres = np.array([[0.0, 0.0], [3.0, 3.0], [0.0, 4.0]])
    return centres[rng.integers(0, 3, n)] + rng.normal(scale=0.4, size=(n, 2))


def _gpairs_args():
    n = 20
    p = [rng.uniform(size=n) for _ in range(8)]
    return (*p, np.linspace(0.05, 1.5, 8) ** 2, np.zeros(8))


def _bs_args():
    n = 16
    return (rng.uniform(10, 50, n), rng.uniform(10, 50, n), rng.uniform(1, 2, n), 0.1, 0.2,
            np.zeros(n), np.zeros(n))


CASES = [
    (azimint_hist, lambda: (rng.uniform(size=200), rng.uniform(size=200), 10)),
    (azimint_naive, lambda: (rng.uniform(size=200), rng.uniform(size=200), 10)),
    (crc16, lambda: (rng.integers(0, 256, 64, dtype=np.uint8),)),
    (go_fast, lambda: (rng.uniform(size=(6, 6)),)),
    (nbody, _nbody_args),
    (stockham_fft, _fft_args),
    (contour_integral, lambda: _contour_args(4, 4)),
    (contour_integral, lambda: _contour_args(4, 2)),
    (scattering_self_energies, _scattering_args),
    (hdiff, _hdiff_args),
    (vadv, _vadv_args),
    (mandelbrot_masked, lambda: (-2.0, 0.5, -1.25, 1.25, 12, 10, 20)),
    (mandelbrot_shrinking, lambda: (-2.0, 0.5, -1.25, 1.25, 12, 10, 20)),
    (cavity_flow, _cavity_args),
    (conv2d_bias, lambda: (rng.uniform(size=(2, 6, 6, 3)).astype(np.float32),
                           rng.uniform(size=(3, 3, 3, 4)).astype(np.float32),
                           rng.uniform(size=4).astype(np.float32))),
    (mlp, _mlp_args),
    (arc_distance, lambda: tuple(rng.uniform(size=(5, 5)) for _ in range(4))),
    (clip_compute, lambda: (rng.integers(0, 15, size=(4, 5)), rng.integers(0, 5, size=(4, 5)),
                            4, 3, 9)),
    (spmv, lambda: _csr(12, 0.3)),
    (dbscan, lambda: (_clusters(40), 0.6, 3)),
    (kmeans, lambda: (_clusters(40), np.array([[0.5, 0.5], [2.5, 2.0], [0.5, 3.0]]), 5)),
    (gpairs, _gpairs_args),
    (black_scholes, _bs_args),
    (rambo, lambda: (rng.uniform(size=(5, 4)), rng.uniform(size=(5, 4)), rng.uniform(size=(5, 4)),
                     np.zeros((5, 4, 4)))),
    (pca, lambda: (rng.normal(size=(20, 4)) @ rng.normal(size=(4, 4)), 2)),
]


def _same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray):
        if a.dtype == np.float32:
            return a.shape == b.shape and np.allclose(a, b, rtol=1e-4, atol=1e-5)
        return a.shape == b.shape and np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
    if isinstance(a, float):
        return np.isclose(a, b, rtol=1e-9, atol=1e-12)
    return a == b


def _run(f, args):
    args = copy.deepcopy(args)
    return f(*args), args


@pytest.mark.parametrize("f, make", CASES, ids=[f.py_func.__name__ for f, _ in CASES])
def test_same_as_cpython_and_numba(f, make):
    args = make()
    want = _run(f.py_func, args)
    assert _same(_run(f, args), want)
    nb_f = numba_or_none(f)
    if nb_f is not None:
        assert _same(_run(nb_f, args), want)
