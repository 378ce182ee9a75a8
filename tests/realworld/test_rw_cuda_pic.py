"""numba-cuda kernels of a particle-in-cell code's particle sorting, the import switched to pyjit:
kernels compiled on first call per argument types through the code's own decorator (a cache keyed
by dtypes and dimensions over `cuda.jit()(f).specialize(*args)`, whose `definition.entry_name`
names the PTX entry), the cell index of each macroparticle in (z, r) with periodic z and an
absorbing r edge, the particles ordered by cell on the host, a prefix sum of particles per cell
prefilled and filled between consecutive particles' cells, particle quantities gathered into
sorting buffers (float64 and uint64 ids through the same kernel), then a deposition with one
thread per cell walking its own particles and adding its 2x2 linear weights by atomics.

Each runs in the interpreted simulator; in the compiled one with every launch's kernel also
compiled to PTX and assembled by ptxas; and on the GPU when there is one (the `gpu` mark). Results
are compared with NumPy.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_rw_cuda_science import cuda  # noqa: E402,F401 - the fixture: both simulators, PTX, GPU


def _tpb_bpg_1d(x, tpb=256):
    """The code's launch helper: blocks for x threads, one block more than needed."""
    return int(x / tpb + 1), tpb


class _CompileOnCall:
    """The code's kernel decorator: the Python function compiled for the types of the arguments
    of each call (dtype and ndim of arrays, the type of scalars), each kernel kept by a hash of
    those types."""

    def __init__(self, cuda, func):
        self.cuda = cuda
        self.python_func = func
        self.kernel_dict = {}

    def __getitem__(self, bt):
        blocks, threads = bt

        def call_kernel(*args):
            types = []
            for a in args:
                if hasattr(a, "__cuda_array_interface__") or isinstance(a, np.ndarray):
                    types += [a.dtype, a.ndim]
                else:
                    types.append(np.dtype(type(a)))
            key = hash(tuple(types))
            if key not in self.kernel_dict:
                kernel = self.cuda.jit()(self.python_func).specialize(*args)
                assert kernel.definition.entry_name in kernel.ptx
                self.kernel_dict[key] = kernel
            self.kernel_dict[key][blocks, threads](*args)
        return call_kernel


def test_particle_sorting_and_sorted_deposition(cuda):
    def get_cell_idx_per_particle(cell_idx, sorted_idx, x, y, z, invdz, zmin, Nz, invdr, rmin,
                                  Nr):
        i = cuda.grid(1)
        if i < cell_idx.shape[0]:
            rj = math.sqrt(x[i] ** 2 + y[i] ** 2)
            r_cell = invdr * (rj - rmin) - 0.5
            z_cell = invdz * (z[i] - zmin) - 0.5
            ir_upper = int(math.ceil(r_cell))
            iz_upper = int(math.ceil(z_cell))
            if ir_upper > Nr:
                ir_upper = Nr
            if iz_upper < 0:
                iz_upper += Nz
            elif iz_upper > Nz - 1:
                iz_upper -= Nz
            sorted_idx[i] = i
            cell_idx[i] = ir_upper + iz_upper * (Nr + 1)

    def prefill_prefix_sum(cell_idx, prefix_sum, Ntot):
        i = cuda.grid(1)
        if i < prefix_sum.shape[0]:
            if Ntot > 0:
                if i < cell_idx[0]:
                    prefix_sum[i] = 0
                elif i >= cell_idx[Ntot - 1]:
                    prefix_sum[i] = Ntot
            else:
                prefix_sum[i] = 0

    def incl_prefix_sum(cell_idx, prefix_sum):
        i = cuda.grid(1)
        if i < cell_idx.shape[0] - 1:
            ci = cell_idx[i]
            ci_next = cell_idx[i + 1]
            while ci < ci_next:
                prefix_sum[ci] = i + 1
                ci += 1

    def write_sorting_buffer(sorted_idx, val, buf):
        i = cuda.grid(1)
        if i < val.shape[0]:
            buf[i] = val[sorted_idx[i]]

    def deposit_per_cell(prefix_sum, z, r, w, zmin, invdz, rmin, invdr, Nz, Nr, rho):
        ci = cuda.grid(1)
        if ci >= prefix_sum.shape[0]:
            return
        first = 0 if ci == 0 else prefix_sum[ci - 1]
        last = prefix_sum[ci]
        if first == last:
            return
        iz_upper = ci // (Nr + 1)
        ir_upper = ci % (Nr + 1)
        acc = cuda.local.array(4, np.float64)
        for k in range(4):
            acc[k] = 0.0
        for p in range(first, last):
            z_cell = invdz * (z[p] - zmin) - 0.5
            r_cell = invdr * (r[p] - rmin) - 0.5
            sz = z_cell - math.floor(z_cell)      # weight of the upper z cell
            sr = r_cell - math.floor(r_cell)
            acc[0] += w[p] * (1 - sz) * (1 - sr)
            acc[1] += w[p] * (1 - sz) * sr
            acc[2] += w[p] * sz * (1 - sr)
            acc[3] += w[p] * sz * sr
        iz_lower = iz_upper - 1 if iz_upper > 0 else Nz - 1
        ir_lower = ir_upper - 1
        for k in range(4):
            iz = iz_lower if k < 2 else iz_upper
            ir = ir_lower if k % 2 == 0 else ir_upper
            if 0 <= ir < Nr:
                cuda.atomic.add(rho, (iz, ir), acc[k])

    kernels = {f.__name__: _CompileOnCall(cuda, f) for f in (
        get_cell_idx_per_particle, prefill_prefix_sum, incl_prefix_sum, write_sorting_buffer,
        deposit_per_cell)}

    rng = np.random.default_rng(61)
    N, Nz, Nr = 400, 12, 6
    zmin, dz, rmin, dr = -3.0, 0.5, 0.0, 0.4
    # no particle in the lowest half cell in r: its lower neighbour would be r < 0
    r = rng.uniform(0.5 * dr + 1e-6, Nr * dr, N)
    theta = rng.uniform(0, 2 * np.pi, N)
    x, y = r * np.cos(theta), r * np.sin(theta)
    z = rng.uniform(zmin, zmin + Nz * dz, N)
    w = rng.uniform(0.5, 1.5, N)
    ids = rng.permutation(N).astype(np.uint64) + np.uint64(2 ** 40)
    dx, dy, dz_ = cuda.to_device(x), cuda.to_device(y), cuda.to_device(z)
    cell_idx = cuda.device_array(N, np.int32)
    sorted_idx = cuda.device_array(N, np.intp)
    bpg, tpb = _tpb_bpg_1d(N, 128)
    kernels["get_cell_idx_per_particle"][bpg, tpb](cell_idx, sorted_idx, dx, dy, dz_, 1 / dz,
                                                    zmin, Nz, 1 / dr, rmin, Nr)
    cells = cell_idx.copy_to_host()
    want_cells = (np.minimum(np.ceil((r - rmin) / dr - 0.5).astype(int), Nr)
                  + (np.ceil((z - zmin) / dz - 0.5).astype(int) % Nz) * (Nr + 1))
    np.testing.assert_array_equal(cells, want_cells)
    np.testing.assert_array_equal(sorted_idx.copy_to_host(), np.arange(N))

    # the code sorts on the device with thrust; here the host orders, as its CPU path does
    order = np.argsort(cells, kind="stable")
    cell_idx = cuda.to_device(cells[order].astype(np.int32))
    sorted_idx = cuda.to_device(order.astype(np.intp))
    ncells = Nz * (Nr + 1)
    prefix = cuda.device_array(ncells, np.int32)
    kernels["prefill_prefix_sum"][_tpb_bpg_1d(ncells, 64)](cell_idx, prefix, N)
    kernels["incl_prefix_sum"][bpg, tpb](cell_idx, prefix)
    np.testing.assert_array_equal(prefix.copy_to_host(),
                                  np.cumsum(np.bincount(cells, minlength=ncells)))

    buffers = {}
    for name, val in (("z", z), ("r", r), ("w", w), ("id", ids)):
        buf = cuda.device_array(N, val.dtype)
        kernels["write_sorting_buffer"][bpg, tpb](sorted_idx, cuda.to_device(val), buf)
        buffers[name] = buf
        np.testing.assert_array_equal(buf.copy_to_host(), val[order])
    assert len(kernels["write_sorting_buffer"].kernel_dict) == 2   # float64 and uint64

    rho = cuda.to_device(np.zeros((Nz, Nr)))
    kernels["deposit_per_cell"][_tpb_bpg_1d(ncells, 64)](
        prefix, buffers["z"], buffers["r"], buffers["w"], zmin, 1 / dz, rmin, 1 / dr, Nz, Nr, rho)
    want = np.zeros((Nz, Nr))
    zc = (z - zmin) / dz - 0.5
    rc = (r - rmin) / dr - 0.5
    izl, irl = np.floor(zc).astype(int), np.floor(rc).astype(int)
    sz, sr = zc - izl, rc - irl
    for dzi, wz in ((0, 1 - sz), (1, sz)):
        for dri, wr in ((0, 1 - sr), (1, sr)):
            ir = irl + dri
            ok = (ir >= 0) & (ir < Nr)
            np.add.at(want, ((izl[ok] + dzi) % Nz, ir[ok]), (w * wz * wr)[ok])
    np.testing.assert_allclose(rho.copy_to_host(), want, rtol=1e-12, atol=1e-12)
