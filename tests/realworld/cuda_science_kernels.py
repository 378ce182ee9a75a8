"""Kernels of test_rw_cuda_science.py that hold assert statements: a module pytest does not
rewrite, so that the asserts reach the compiler as their authors wrote them."""


def distance_matrix(cuda):
    """The squared Euclidean distance matrix of points, one thread a pair, the grid checked to
    be the matrix's shape (a workshop's naive CUDA version)."""
    @cuda.jit
    def distance_matrix(points, result):
        number_of_points = points.shape[0]
        dimension = points.shape[1]
        assert result.shape[0] == number_of_points and result.shape[1] == number_of_points
        assert (
            cuda.gridDim.x == number_of_points
            and cuda.gridDim.y == number_of_points
            and cuda.gridDim.z == 1
        )
        row, col = cuda.grid(2)
        x = points[row]
        y = points[col]
        squared_distance = 0.0
        for index in range(0, dimension):
            squared_distance += (x[index] - y[index]) ** 2
        result[row][col] = squared_distance
    return distance_matrix


# ---- a neutron-scattering Monte Carlo package's GPU components (mcvine's accelerated code):
# neutrons are rows [x, y, z, vx, vy, vz, s1, s2, t, p], unpacked from and packed into slices of
# the row. Each factory takes the decorator for device functions, so that the same source runs
# as plain Python for the reference (`lambda f: f`) and compiled in kernels. ----

V2K = 1.58825361e-3
MAX_BOUNCES = 100000


def guide_propagate(device):
    """A tapered neutron guide: the neutron bounces off four supermirrors until it leaves."""
    from math import sqrt, tanh

    @device
    def calc_reflectivity(Q, R0, Qc, alpha, m, W):
        R = R0
        if Q > Qc:
            tmp = (Q - m * Qc) / W
            if tmp < 10:
                R *= (1 - tanh(tmp)) * (1 - alpha * (Q - Qc)) / 2
            else:
                R = 0
        return R

    @device
    def propagate(ww, hh, hw1, hh1, l, R0, Qc, alpha, m, W, in_neutron):  # noqa: E741
        x, y, z, vx, vy, vz = in_neutron[:6]
        t = in_neutron[-2]
        prob = in_neutron[-1]
        dt = -z / vz
        x += vx * dt; y += vy * dt; z = 0.; t += dt  # noqa: E702
        if (x <= -hw1 or x >= hw1 or y <= -hh1 or y >= hh1):
            in_neutron[-1] = 0
            return
        for nb in range(MAX_BOUNCES):
            av = l * vx; bv = ww * vz  # noqa: E702
            ah = l * vy; bh = hh * vz  # noqa: E702
            vdotn_v1 = bv + av;  # noqa: E703
            vdotn_v2 = bv - av;  # noqa: E703
            vdotn_h1 = bh + ah;  # noqa: E703
            vdotn_h2 = bh - ah;  # noqa: E703
            cv1 = -hw1 * l - z * ww; cv2 = x * l  # noqa: E702
            ch1 = -hh1 * l - z * hh; ch2 = y * l  # noqa: E702
            t1 = (l - z) / vz;  # noqa: E703
            i = 0
            if vdotn_v1 < 0:
                t2 = (cv1 - cv2) / vdotn_v1
                if t2 < t1:
                    t1 = t2
                    i = 1
            if vdotn_v2 < 0:
                t2 = (cv1 + cv2) / vdotn_v2
                if t2 < t1:
                    t1 = t2
                    i = 2
            if vdotn_h1 < 0:
                t2 = (ch1 - ch2) / vdotn_h1
                if t2 < t1:
                    t1 = t2
                    i = 3
            if vdotn_h2 < 0:
                t2 = (ch1 + ch2) / vdotn_h2
                if t2 < t1:
                    t1 = t2
                    i = 4
            if i == 0:
                break;  # noqa: E703
            x += vx * t1; y += vy * t1; z += vz * t1; t += t1  # noqa: E702
            if i == 1:
                nlen2 = l * l + ww * ww
                q = V2K * (-2) * vdotn_v1 / sqrt(nlen2)
                d = 2 * vdotn_v1 / nlen2
                vx = vx - d * l
                vz = vz - d * ww
            elif i == 2:
                nlen2 = l * l + ww * ww
                q = V2K * (-2) * vdotn_v2 / sqrt(nlen2)
                d = 2 * vdotn_v2 / nlen2
                vx = vx + d * l
                vz = vz - d * ww
            elif i == 3:
                nlen2 = l * l + hh * hh
                q = V2K * (-2) * vdotn_h1 / sqrt(nlen2)
                d = 2 * vdotn_h1 / nlen2
                vy = vy - d * l
                vz = vz - d * hh
            elif i == 4:
                nlen2 = l * l + hh * hh
                q = V2K * (-2) * vdotn_h2 / sqrt(nlen2)
                d = 2 * vdotn_h2 / nlen2
                vy = vy + d * l
                vz = vz - d * hh
            R = calc_reflectivity(q, R0, Qc, alpha, m, W)
            prob *= R
            if prob <= 0: break  # noqa: E701
            continue
        in_neutron[:6] = x, y, z, vx, vy, vz
        in_neutron[-2] = t
        in_neutron[-1] = prob
        return
    return propagate


def guide_kernel(cuda):
    propagate = guide_propagate(cuda.jit(device=True))

    @cuda.jit
    def process_kernel(ww, hh, hw1, hh1, l, R0, Qc, alpha, m, W, in_neutrons):  # noqa: E741
        x = cuda.grid(1)
        if x < len(in_neutrons):
            propagate(ww, hh, hw1, hh1, l, R0, Qc, alpha, m, W, in_neutrons[x])
        return
    return process_kernel


def box_intersections(device, signature_device):
    """Where a ray (x, v) enters and leaves a box centred on the origin: nan where it misses."""
    import math

    import numpy as np

    @signature_device("float32(float32, float32, float32, float32, float32, float32,\n"
                      "         float32, float32)")
    def intersect_rectangle(rx, ry, rz, vx, vy, vz, X, Y):
        t = - rz / vz
        r1x = rx + vx * t
        r1y = ry + vy * t
        if math.fabs(r1x) > X / 2 or math.fabs(r1y) > Y / 2:
            t = np.nan
        return t

    @device
    def update_intersections(t1, t2, t):
        if not math.isfinite(t): return t1, t2  # noqa: E701
        if not math.isfinite(t1): return t, t2  # noqa: E701
        if not math.isfinite(t2):
            if t > t1: return t1, t  # noqa: E701
            else: return t, t1  # noqa: E701
        if t < t1: return t, t2  # noqa: E701
        elif t < t2: return t1, t2  # noqa: E701
        return t1, t

    @device
    def intersect_box(x, y, z, vx, vy, vz, X, Y, Z):
        t1 = np.nan; t2 = np.nan  # noqa: E702
        if (vz != 0):
            t = intersect_rectangle(x, y, z - Z / 2, vx, vy, vz, X, Y)
            t1, t2 = update_intersections(t1, t2, t)
            t = intersect_rectangle(x, y, z + Z / 2, vx, vy, vz, X, Y)
            t1, t2 = update_intersections(t1, t2, t)
        if (vx != 0):
            t = intersect_rectangle(y, z, x - X / 2, vy, vz, vx, Y, Z)
            t1, t2 = update_intersections(t1, t2, t)
            t = intersect_rectangle(y, z, x + X / 2, vy, vz, vx, Y, Z)
            t1, t2 = update_intersections(t1, t2, t)
        if (vy != 0):
            t = intersect_rectangle(z, x, y - Y / 2, vz, vx, vy, Z, X);  # noqa: E703
            t1, t2 = update_intersections(t1, t2, t)
            t = intersect_rectangle(z, x, y + Y / 2, vz, vx, vy, Z, X);  # noqa: E703
            t1, t2 = update_intersections(t1, t2, t)
        return t1, t2
    return intersect_box


def box_gufunc(cuda):
    """The box intersections as a generalized ufunc for the GPU: the unused input `_` gives the
    output's second dimension, and the body asserts it and returns the output, as written."""
    intersect_box = box_intersections(cuda.jit(device=True, inline=True),
                                      lambda sig: cuda.jit(sig, device=True, inline=True))

    @cuda.guvectorize(
        ["float32[:], float32[:], float32[:], float32[:], float32[:], float32[:], float32, "
         "float32, float32, float32[:], float32[:, :]"],
        '(N), (N), (N), (N), (N), (N), (), (), (), (n) -> (N, n)',
        target='cuda')
    def cu_intersect_box(x, y, z, vx, vy, vz, sx, sy, sz, _, ts):
        N, = x.shape
        n, = _.shape
        assert n == 2
        for i in range(N):
            t1, t2 = intersect_box(x[i], y[i], z[i], vx[i], vy[i], vz[i], sx, sy, sz)
            ts[i, 0] = t1
            ts[i, 1] = t2
        return ts
    return cu_intersect_box


def psd_monitor(cuda, nb_float):
    """A position-sensitive detector: the neutron carried to z=0, its weight histogrammed into
    three planes of a 3-d array by atomics (counts, p, p^2), with typed signatures."""
    import math

    from pyjit import boolean, int64, void

    @cuda.jit(device=True, inline=True)
    def prop_z0(neutron):
        x, y, z, vx, vy, vz = neutron[:6]
        t = neutron[-2]
        dt = -z / vz
        return x + vx * dt, y + vy * dt, 0.0, t + dt

    @cuda.jit(boolean(nb_float[:]), device=True, inline=True)
    def is_absorbed(neutron):
        prob = neutron[-1]
        return prob <= 0 and not math.isnan(prob)

    @cuda.jit(void(nb_float[:], nb_float[:], int64, int64, nb_float[:, :, :]), device=True)
    def propagate(neutron, limits, nx, ny, out):
        xmin, xmax, ymin, ymax = limits
        t0 = neutron[-2]
        x, y, z, t = prop_z0(neutron)
        if t0 > t:
            return
        p = neutron[-1]
        if x <= xmin or x >= xmax or y <= ymin or y >= ymax:
            return
        ix = int(math.floor((x - xmin) / (xmax - xmin) * nx))
        iy = int(math.floor((y - ymin) / (ymax - ymin) * ny))
        cuda.atomic.add(out, (0, ix, iy), 1)
        cuda.atomic.add(out, (1, ix, iy), p)
        cuda.atomic.add(out, (2, ix, iy), p * p)
        return

    @cuda.jit
    def monitor(neutrons, limits, nx, ny, out):
        i = cuda.grid(1)
        if i < neutrons.shape[0] and not is_absorbed(neutrons[i]):
            propagate(neutrons[i], limits, nx, ny, out)
    return monitor
