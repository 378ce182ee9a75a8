"""Kernels of test_rw_cuda_programs.py built by factories over the backend under test: programs
whose kernels close over host values (a dimension, a float type) the way their packages make
them at run time."""
import math
from math import floor, sqrt


# ---- a particle-analysis package's neighbour lists and local non-affine displacement (D2min):
# particles binned into cells, each cell's 3**d neighbours walked through Fortran-order index
# helpers; signatures as strings, rows of 2-d and 3-d arrays passed to typed device functions,
# per-thread local arrays sized by the dimension the enclosing function closes over ----

def cell_helpers(cuda):
    @cuda.jit("void(float64[:,:], float64[:], float64[:], float64[:], float64[:])", device=True)
    def mat_dot_v_pbc(a, b, c, box, ret):
        for i in range(a.shape[0]):
            tmp = 0
            for j in range(a.shape[1]):
                dc = b[j] - c[j]
                dc = dc - box[j] * floor(dc / box[j] + 0.5)
                tmp += a[i, j] * dc
            ret[i] = tmp

    @cuda.jit("void(float64[:,:], float64[:], float64[:])", device=True)
    def mat_dot_v(a, b, ret):
        for i in range(a.shape[0]):
            tmp = 0
            for j in range(a.shape[1]):
                tmp += a[i, j] * b[j]
            ret[i] = tmp

    @cuda.jit("float64(float64[:])", device=True)
    def v_mod(r):
        tmp = 0
        for i in range(r.shape[0]):
            tmp += r[i] ** 2
        return sqrt(tmp)

    @cuda.jit("int64(float64[:], float64[:], int64[:])", device=True)
    def cell_id(p, box, ibox):
        ret = floor((p[0] / box[0] + 0.5) * ibox[0])
        tmp = ibox[0]
        for i in range(1, p.shape[0]):
            ret += floor((p[i] / box[i] + 0.5) * ibox[i]) * tmp
            tmp *= ibox[i]
        return ret

    @cuda.jit("void(int64, int64[:], int64[:])", device=True)
    def unravel_index_f(i, dim, ret):
        for k in range(dim.shape[0]):
            ret[k] = int(i % dim[k])
            i = (i - ret[k]) / dim[k]

    @cuda.jit("int64(int64[:], int64[:])", device=True)
    def ravel_index_f(i, dim):
        ret = (i[0] + dim[0]) % dim[0]
        tmp = dim[0]
        for k in range(1, dim.shape[0]):
            ret += ((i[k] + dim[k]) % dim[k]) * tmp
            tmp *= dim[k]
        return ret

    @cuda.jit("void(int64[:], int64[:])", device=True)
    def add_local_arr_minus_1(a, b):
        for i in range(a.shape[0]):
            a[i] = a[i] + b[i] - 1

    @cuda.jit("void(float64[:, :], float64[:], int64[:], int64[:])")
    def cell_ind(pos, box, ibox, ret):
        i = cuda.grid(1)
        if i < pos.shape[0]:
            pi = pos[i]
            ic = cell_id(pi, box, ibox)
            ret[i] = ic

    return dict(mat_dot_v_pbc=mat_dot_v_pbc, mat_dot_v=mat_dot_v, v_mod=v_mod, cell_id=cell_id,
                unravel_index_f=unravel_index_f, ravel_index_f=ravel_index_f,
                add_local_arr_minus_1=add_local_arr_minus_1, cell_ind=cell_ind)


def neighbour_kernels(cuda, h, ndim):
    import numpy as nb_types   # the package writes nb.int64 / nb.float64: NumPy's names work too
    mat_dot_v_pbc, v_mod, cell_id = h["mat_dot_v_pbc"], h["v_mod"], h["cell_id"]
    unravel_index_f, ravel_index_f = h["unravel_index_f"], h["ravel_index_f"]
    add_local_arr_minus_1 = h["add_local_arr_minus_1"]

    @cuda.jit("void(float64[:,:],float64[:],int64[:],float64[:],float64[:,:],float64,int64[:],"
              "int64[:],int64[:,:],int64[:],int64[:])")
    def nl(_a, _box, _ibox, _da, _l0, _rc, _cl, _cc, _ret, _nc, _dim):
        i = cuda.grid(1)
        if i >= _a.shape[0]:
            return
        cell_i = cell_id(_a[i], _box, _ibox)
        cell_vec_i = cuda.local.array(ndim, nb_types.int64)
        unravel_index_f(cell_i, _ibox, cell_vec_i)
        cell_vec_j = cuda.local.array(ndim, nb_types.int64)
        _dv = cuda.local.array(ndim, nb_types.float64)
        for j in range(_a.shape[1] ** 3):
            unravel_index_f(j, _dim, cell_vec_j)
            add_local_arr_minus_1(cell_vec_j, cell_vec_i)
            cell_j = ravel_index_f(cell_vec_j, _ibox)
            start = _cc[cell_j]
            end = _cc[cell_j + 1]
            for k in range(start, end):
                pid_k = _cl[k]
                if pid_k == i:
                    continue
                mat_dot_v_pbc(_l0, _a[pid_k], _a[i], _box, _dv)
                dr = v_mod(_dv)
                delta = (_da[i] + _da[pid_k]) / 2 - 1
                if dr - delta < _rc:
                    if _ret.shape[1] > 0:
                        _ret[i, _nc[i]] = pid_k
                    _nc[i] += 1
    return nl


def d2min_kernels(cuda, h, ndim):
    from pyjit import float64
    mat_dot_v_pbc, mat_dot_v = h["mat_dot_v_pbc"], h["mat_dot_v"]

    @cuda.jit("void(float64[:,:],float64[:,:],float64[:],int64[:,:],int64[:],"
              "float64[:,:,:], float64[:,:,:], float64[:,:], float64[:,:])")
    def cu_xy(_a, _b, _box, _nl, _nc, _Xij, _Yij, _l0, _lt):
        i = cuda.grid(1)
        if i >= _a.shape[0]:
            return
        _dr0 = cuda.local.array(ndim, float64)
        _drt = cuda.local.array(ndim, float64)
        for j in range(_nc[i]):
            pj = _nl[i, j]
            mat_dot_v_pbc(_l0, _a[pj], _a[i], _box, _dr0)
            mat_dot_v_pbc(_lt, _b[pj], _b[i], _box, _drt)
            for k in range(ndim):
                for m in range(ndim):
                    _Xij[i, k, m] += _drt[k] * _dr0[m]
                    _Yij[i, k, m] += _dr0[k] * _dr0[m]

    @cuda.jit("void(float64[:,:],float64[:,:],float64[:], int64[:,:],"
              "int64[:],float64[:,:,:], float64[:,:], float64[:,:], float64[:])")
    def cu_div(_a, _b, _box, _nl, _nc, _XIY, _l0, _lt, _ret):
        i = cuda.grid(1)
        if i >= _a.shape[0]:
            return
        _dr0 = cuda.local.array(ndim, float64)
        _drt = cuda.local.array(ndim, float64)
        _dr = cuda.local.array(ndim, float64)
        for j in range(_nc[i]):
            pj = _nl[i, j]
            mat_dot_v_pbc(_l0, _a[pj], _a[i], _box, _dr0)
            mat_dot_v_pbc(_lt, _b[pj], _b[i], _box, _drt)
            mat_dot_v(_XIY[i], _dr0, _dr)
            for k in range(ndim):
                _ret[i] += (_drt[k] - _dr[k]) ** 2
        if _nc[i] != 0:
            _ret[i] = _ret[i] / _nc[i]
    return cu_xy, cu_div


# ---- a small CNN trained from scratch in numba-cuda (SqueezeNet's operators): kernels made per
# layer shape inside the function that runs them, the shapes closed over (a 3-d shared tile
# sized by them), cache=True on each ----

def conv2d_shared(cuda, x_conv, w_conv, b_conv, P=2, S=2, TPB=8):
    import numpy as np
    from pyjit import float32
    B, C, H, W = x_conv.shape
    F, _, K, _ = w_conv.shape
    H_pad, W_pad = H + 2 * P, W + 2 * P
    H_out = (H_pad - K) // S + 1
    W_out = (W_pad - K) // S + 1
    tile_h = (TPB - 1) * S + K
    tile_w = tile_h

    @cuda.jit(cache=True)
    def conv2d_cuda_shared(inp, filters, bias, out):
        shmem = cuda.shared.array((C, tile_h, tile_w), float32)
        z = cuda.blockIdx.z
        b = z // F
        f = z % F
        x_out = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        y_out = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        x0 = cuda.blockIdx.x * cuda.blockDim.x * S
        y0 = cuda.blockIdx.y * cuda.blockDim.y * S
        for c in range(C):
            for ly in range(cuda.threadIdx.y, tile_h, cuda.blockDim.y):
                gy = y0 + ly - P
                for lx in range(cuda.threadIdx.x, tile_w, cuda.blockDim.x):
                    gx = x0 + lx - P
                    if 0 <= gy < H and 0 <= gx < W:
                        shmem[c, ly, lx] = inp[b, c, gy, gx]
                    else:
                        shmem[c, ly, lx] = 0.0
        cuda.syncthreads()
        if b < B and f < F and y_out < H_out and x_out < W_out:
            acc = float32(0.0)
            for c in range(C):
                for ky in range(K):
                    for kx in range(K):
                        sy = cuda.threadIdx.y * S + ky
                        sx = cuda.threadIdx.x * S + kx
                        acc += shmem[c, sy, sx] * filters[f, c, ky, kx]
            acc += bias[f]
            out[b, f, y_out, x_out] = acc

    d_out = cuda.device_array((B, F, H_out, W_out), dtype=np.float32)
    grid_dims = ((W_out + TPB - 1) // TPB, (H_out + TPB - 1) // TPB, B * F)
    conv2d_cuda_shared[grid_dims, (TPB, TPB, 1)](x_conv, w_conv, b_conv, d_out)
    cuda.synchronize()
    return d_out


def filter_conv_backward(cuda, X, Fl, LO, S=1, P=1, TPB=64):
    import numpy as np
    from pyjit import float32
    B, C, H, W = X.shape
    B_f, C_f, H_f, W_f = Fl.shape

    @cuda.jit(cache=True)
    def filter_backward(inp, fil, lo, out):
        tid = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        total_elements = B_f * C_f * H_f * W_f
        if tid >= total_elements:
            return
        w_idx = tid % W_f
        tid //= W_f
        h_idx = tid % H_f
        tid //= H_f
        c_idx = tid % C_f
        b_idx = tid // C_f
        temp_sum = float32(0.0)
        for k in range(B):
            for i in range(lo.shape[2]):
                for j in range(lo.shape[3]):
                    sy = i * S - P + h_idx
                    sx = j * S - P + w_idx
                    if 0 <= sy < H and 0 <= sx < W:
                        temp_sum += lo[k, b_idx, i, j] * inp[k, c_idx, sy, sx]
        out[b_idx, c_idx, h_idx, w_idx] = fil[b_idx, c_idx, h_idx, w_idx] - 0.0008 * temp_sum

    d_out = cuda.device_array((B_f, C_f, H_f, W_f), dtype=np.float32)
    total = B_f * C_f * H_f * W_f
    filter_backward[(total + TPB - 1) // TPB, TPB](X, Fl, LO, d_out)
    cuda.synchronize()
    return d_out


def input_conv_backward(cuda, X, Fl, LO, S=1, P=1, TPB=8):
    import numpy as np
    from pyjit import float32
    B, C, H, W = X.shape
    H_pad, W_pad = H + 2 * P, W + 2 * P
    K = Fl.shape[2]
    B_f = Fl.shape[0]

    @cuda.jit(cache=True)
    def input_backward(filt, lo, out):
        x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        z = cuda.blockIdx.z
        b = z // C
        c = z % C
        if x < W_pad and y < H_pad:
            temp = float32(0.0)
            for b_f in range(B_f):
                for i in range(K):
                    for j in range(K):
                        if (y + i - (K - 1)) % S == 0 and (x + j - (K - 1)) % S == 0:
                            sy = (y + i - (K - 1)) // S
                            sx = (x + j - (K - 1)) // S
                            if sy >= 0 and sy < lo.shape[2] and sx >= 0 and sx < lo.shape[3]:
                                temp += lo[b, b_f, sy, sx] * filt[b_f, c, K - 1 - i, K - 1 - j]
            out[b, c, y, x] = temp

    d_out = cuda.device_array((B, C, H_pad, W_pad), dtype=np.float32)
    grid_dims = ((W_pad + TPB - 1) // TPB, (H_pad + TPB - 1) // TPB, B * C)
    input_backward[grid_dims, (TPB, TPB, 1)](Fl, LO, d_out)
    cuda.synchronize()
    return d_out[:, :, P:H_pad - P, P:W_pad - P]


def softmax(cuda, x_np):
    import math

    import numpy as np
    B = x_np.shape[0]

    @cuda.jit(cache=True)
    def softmax_cuda(inp, out):
        b_idx = cuda.blockIdx.x
        idx = cuda.threadIdx.x
        temp = cuda.shared.array(10, dtype=np.float32)
        temp[idx] = inp[b_idx, idx, 0, 0]
        cuda.syncthreads()
        sum_exp = 0.0
        for i in range(10):
            sum_exp += math.exp(temp[i])
        cuda.syncthreads()
        out[b_idx, idx] = math.exp(temp[idx]) / sum_exp

    d_out = cuda.device_array((B, 10), dtype=np.float32)
    softmax_cuda[B, 10](x_np, d_out)
    cuda.synchronize()
    return d_out


def softmax_backward(cuda, output, Y):
    import numpy as np
    B, C = output.shape

    @cuda.jit(cache=True)
    def backward(inp, y, out):
        b = cuda.blockIdx.x
        c = cuda.threadIdx.x
        out[b, c, 0, 0] = (inp[b, c] - y[b, c]) * 1 / B

    d_out = cuda.device_array((B, C, 1, 1), dtype=np.float32)
    backward[B, C](output, Y, d_out)
    cuda.synchronize()
    return d_out


# ---- an ensemble of harmonic oscillators integrated by RK4, one thread a trajectory: the
# right-hand side a device function imported under another name, each stage a device function
# over row slices of device arrays, int16 step counts, barriers inside the grid-stride loop
# (a course repository's integrator) ----

def rk4_integrator(cuda):
    @cuda.jit(device=True)
    def harm_osc_gpu(y, dydt, t):
        x, p = y[0], y[1]
        dydt[0] = p
        dydt[1] = -x

    func = harm_osc_gpu

    @cuda.jit(device=True)
    def comp_k1_term(init_conds, dydt, step, dt, k1):
        t_ = step * dt
        func(init_conds, dydt, t_)
        for i in range(len(init_conds)):
            k1[i] = dydt[i]

    @cuda.jit(device=True)
    def comp_k2_term(init_conds, dydt, step, dt, k1, k2, buffer):
        for i in range(len(init_conds)):
            buffer[i] = init_conds[i] + k1[i] / 2.
        t_ = step * dt + dt / 2
        func(buffer, dydt, t_)
        for i in range(len(init_conds)):
            k2[i] = dydt[i]

    @cuda.jit(device=True)
    def comp_k3_term(init_conds, dydt, step, dt, k2, k3, buffer):
        for i in range(len(init_conds)):
            buffer[i] = init_conds[i] + k2[i] / 2.
        func(buffer, dydt, dt)
        for i in range(len(init_conds)):
            k3[i] = dydt[i]

    @cuda.jit(device=True)
    def comp_k4_term(init_conds, dydt, step, dt, k3, k4, buffer):
        for i in range(len(init_conds)):
            buffer[i] = init_conds[i] + k3[i]
        t_ = step * dt + dt / 2
        func(init_conds, dydt, t_)
        for i in range(len(init_conds)):
            k4[i] = dydt[i]

    @cuda.jit
    def rk4_sol_cuda(init_conds, dydt, sol, dt, steps, k1, k2, k3, k4, buffer):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, init_conds.shape[0], stride):
            for step in range(1, steps):
                comp_k1_term(init_conds[i, :], dydt[i, :], step, dt, k1[i, :])
                comp_k2_term(init_conds[i, :], dydt[i, :], step, dt, k1[i, :], k2[i, :],
                             buffer[i, :])
                comp_k3_term(init_conds[i, :], dydt[i, :], step, dt, k2[i, :], k3[i, :],
                             buffer[i, :])
                comp_k4_term(init_conds[i, :], dydt[i, :], step, dt, k3[i, :], k4[i, :],
                             buffer[i, :])
                for j in range(init_conds.shape[1]):
                    sol[i, j] = init_conds[i, j] + dt * (k1[i, j] + 2 * k2[i, j] +
                                                         2 * k3[i, j] + k4[i, j]) / 6
                    init_conds[i, j] = sol[i, j]
                    cuda.syncthreads()
            cuda.syncthreads()
    return rk4_sol_cuda


# ---- a particle-in-cell code's charge deposition (FBPIC, one azimuthal mode): particles sorted
# by cell, one thread a cell summing its particles' complex contributions in registers, then
# atomics into the real and imaginary parts of a complex grid (`rho_m.real`, `rho_m.imag`); the
# shape factors are device functions returning on some paths only ----

def pic_deposition(cuda):
    import math

    import numpy as np
    from pyjit import int64

    @cuda.jit(device=True, inline=True)
    def z_shape_linear(cell_position, index):
        iz = int64(math.floor(cell_position))
        if index == 0:
            return iz + 1. - cell_position
        if index == 1:
            return cell_position - iz

    @cuda.jit(device=True, inline=True)
    def r_shape_linear(cell_position, index):
        flip_factor = 1.
        ir = int64(math.floor(cell_position))
        if index == 0:
            if ir < 0:
                flip_factor = -1.
            return flip_factor * (ir + 1. - cell_position)
        if index == 1:
            return flip_factor * (cell_position - ir)

    @cuda.jit
    def deposit_rho_gpu_linear_one_mode(x, y, z, w, q, invdz, zmin, Nz, invdr, rmin, Nr,
                                        rho_m, m, cell_idx, prefix_sum):
        i = cuda.grid(1)
        if i < prefix_sum.shape[0]:
            iz_upper = int(i / (Nr + 1))
            ir_upper = int(i - iz_upper * (Nr + 1))
            incl_offset = np.int32(prefix_sum[i])
            if i > 0:
                frequency_per_cell = np.int32(incl_offset - prefix_sum[i - 1])
            if i == 0:
                frequency_per_cell = np.int32(incl_offset)
            R_m_00 = 0. + 0.j
            R_m_01 = 0. + 0.j
            R_m_10 = 0. + 0.j
            R_m_11 = 0. + 0.j
            for j in range(frequency_per_cell):
                ptcl_idx = incl_offset - 1 - j
                xj = x[ptcl_idx]
                yj = y[ptcl_idx]
                zj = z[ptcl_idx]
                wj = q * w[ptcl_idx]
                rj = math.sqrt(xj**2 + yj**2)
                if (rj != 0.):
                    invr = 1. / rj
                    cos = xj * invr
                    sin = yj * invr
                else:
                    cos = 1.
                    sin = 0.
                exptheta_m = 1. + 0.j
                for _ in range(m):
                    exptheta_m *= (cos + 1.j * sin)
                r_cell = invdr * (rj - rmin) - 0.5
                z_cell = invdz * (zj - zmin) - 0.5
                R_m_scal = wj * exptheta_m
                R_m_00 += r_shape_linear(r_cell, 0) * z_shape_linear(z_cell, 0) * R_m_scal
                R_m_01 += r_shape_linear(r_cell, 0) * z_shape_linear(z_cell, 1) * R_m_scal
                R_m_10 += r_shape_linear(r_cell, 1) * z_shape_linear(z_cell, 0) * R_m_scal
                R_m_11 += r_shape_linear(r_cell, 1) * z_shape_linear(z_cell, 1) * R_m_scal
            iz0 = iz_upper - 1
            iz1 = iz_upper
            if iz0 < 0:
                iz0 += Nz
            ir0 = ir_upper - 1
            ir1 = min(ir_upper, Nr - 1)
            if ir0 < 0:
                ir0 = -(1 + ir0)
            if frequency_per_cell > 0:
                cuda.atomic.add(rho_m.real, (iz0, ir0), R_m_00.real)
                cuda.atomic.add(rho_m.real, (iz0, ir1), R_m_10.real)
                cuda.atomic.add(rho_m.real, (iz1, ir0), R_m_01.real)
                cuda.atomic.add(rho_m.real, (iz1, ir1), R_m_11.real)
                if m > 0:
                    cuda.atomic.add(rho_m.imag, (iz0, ir0), R_m_00.imag)
                    cuda.atomic.add(rho_m.imag, (iz0, ir1), R_m_10.imag)
                    cuda.atomic.add(rho_m.imag, (iz1, ir0), R_m_01.imag)
                    cuda.atomic.add(rho_m.imag, (iz1, ir1), R_m_11.imag)
    return deposit_rho_gpu_linear_one_mode


# ---- the same code's particle pusher: a plain Python function (shared with its CPU code)
# compiled as an inline device function by calling cuda.jit on it, physical constants as
# globals, four array elements assigned from the tuple it returns (three discarded as `_`), a
# kernel parameter with a default value (passed by every launch: numba-cuda launches with the
# arguments given) ----

C_LIGHT, Q_E, M_E = 299792458.0, 1.602176634e-19, 9.1093837015e-31


def push_p_vay(ux_i, uy_i, uz_i, inv_gamma_i, Ex, Ey, Ez, Bx, By, Bz, econst, bconst):
    """The Vay pusher for one macroparticle (as FBPIC's inline_functions.py)."""
    taux = bconst * Bx
    tauy = bconst * By
    tauz = bconst * Bz
    tau2 = taux**2 + tauy**2 + tauz**2
    uxp = ux_i + econst * Ex + inv_gamma_i * (uy_i * tauz - uz_i * tauy)
    uyp = uy_i + econst * Ey + inv_gamma_i * (uz_i * taux - ux_i * tauz)
    uzp = uz_i + econst * Ez + inv_gamma_i * (ux_i * tauy - uy_i * taux)
    sigma = 1 + uxp**2 + uyp**2 + uzp**2 - tau2
    utau = uxp * taux + uyp * tauy + uzp * tauz
    inv_gamma_f = math.sqrt(2. / (sigma + math.sqrt(sigma**2 + 4 * (tau2 + utau**2))))
    tx = inv_gamma_f * taux
    ty = inv_gamma_f * tauy
    tz = inv_gamma_f * tauz
    ut = inv_gamma_f * utau
    s = 1. / (1 + tau2 * inv_gamma_f**2)
    ux_f = s * (uxp + tx * ut + uyp * tz - uzp * ty)
    uy_f = s * (uyp + ty * ut + uzp * tx - uxp * tz)
    uz_f = s * (uzp + tz * ut + uxp * ty - uyp * tx)
    return (ux_f, uy_f, uz_f, inv_gamma_f)


def pusher(cuda):
    push = cuda.jit(push_p_vay, device=True, inline=True)

    @cuda.jit
    def push_p_gpu(ux, uy, uz, inv_gamma, Ex, Ey, Ez, Bx, By, Bz, q, m, Ntot, dt,
                   keep_momentum=True):
        econst = q * dt / (m * C_LIGHT)
        bconst = 0.5 * q * dt / m
        ip = cuda.grid(1)
        if ip < Ntot:
            if keep_momentum:
                ux[ip], uy[ip], uz[ip], inv_gamma[ip] = push(
                    ux[ip], uy[ip], uz[ip], inv_gamma[ip],
                    Ex[ip], Ey[ip], Ez[ip], Bx[ip], By[ip], Bz[ip], econst, bconst)
            else:
                _, _, _, inv_gamma[ip] = push(
                    ux[ip], uy[ip], uz[ip], inv_gamma[ip],
                    Ex[ip], Ey[ip], Ez[ip], Bx[ip], By[ip], Bz[ip], econst, bconst)

    @cuda.jit
    def push_x_gpu(x, y, z, ux, uy, uz, inv_gamma, dt, x_push, y_push, z_push):
        cdt = C_LIGHT * dt
        i = cuda.grid(1)
        if i < x.shape[0]:
            inv_g = inv_gamma[i]
            x[i] += cdt * x_push * inv_g * ux[i]
            y[i] += cdt * y_push * inv_g * uy[i]
            z[i] += cdt * z_push * inv_g * uz[i]
    return push_p_gpu, push_x_gpu
