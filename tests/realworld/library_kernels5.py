"""Numba code from pydata sparse and umap, run unchanged with `numba` pointed at pyjit and restated here
in our own words (tests/realworld/test_rw_libraries.py runs each case compiled and under
PYJIT_DISABLE_JIT=1 and compares): sparse's NaN check, which takes np.min of np.asarray of each
argument, a complex fill value among them (a 0-d complex array, whose NaN search walks
`a.shape[d]` for d in range(a.ndim), no index at all); and its sparse-by-dense products, which
declare `locals={"data_curr": numba.np.numpy_support.from_dtype(dt)}` and gather coordinates in
an empty list appended to under a branch, made an array by np.array after the loop; umap's
SGD epoch, a prange loop whose body reads more than 30 variables, so that the call running it
on the pool has more than 30 arguments (CPython builds them as a list made a tuple)."""
import numpy as np

import pyjit as numba
from pyjit import literal_unroll, njit

# ---------------- sparse: NaN check over mixed arguments ----------------


@njit
def _nan_check(*args):
    for i in literal_unroll(args):
        ia = np.asarray(i)
        if ia.size != 0 and np.isnan(np.min(ia)):
            return True
    return False


@njit
def _k_sum(a):
    """The shape and strides walked by a variable index: for a 0-d array the loop never runs."""
    total = 0
    for d in range(a.ndim - 1, -1, -1):
        total += a.shape[d] * abs(a.strides[d])
    return total


def case_sparse_nan_check_complex_scalar():
    data = np.array([1 + 2j, 3 - 1j, 0.5j])
    nan_data = data.copy()
    nan_data[1] = complex(np.nan, 1.0)
    return [_nan_check(0j, data), _nan_check(complex(np.nan, 0), data),
            _nan_check(1.5 + 0j, nan_data), _nan_check(2.0, np.zeros(0)),
            _k_sum(np.array(3.0)), _k_sum(np.ones((3, 4))[:, ::2]),
            _k_sum(np.array(1 + 1j))]


# ---------------- sparse: COO @ dense ----------------

def _coo_dot_dense(dtr):
    @njit(locals={"data_curr": numba.np.numpy_support.from_dtype(dtr)})
    def _dot(coords1, data1, array2, out_shape):
        out_data = []
        out_coords = []
        didx1 = 0
        while didx1 < len(data1):
            current_row = coords1[0, didx1]
            cur_didx1 = didx1
            oidx2 = 0
            while oidx2 < out_shape[1]:
                cur_didx1 = didx1
                data_curr = 0
                while cur_didx1 < len(data1) and coords1[0, cur_didx1] == current_row:
                    data_curr += data1[cur_didx1] * array2[oidx2, coords1[1, cur_didx1]]
                    cur_didx1 += 1
                if data_curr != 0:
                    out_data.append(data_curr)
                    out_coords.append((current_row, oidx2))
                oidx2 += 1
            didx1 = cur_didx1
        if len(out_data) == 0:
            return np.empty((2, 0), dtype=np.intp), np.empty((0,), dtype=dtr)
        return np.array(out_coords).T, np.array(out_data)
    return _dot


_dot_f8 = _coo_dot_dense(np.dtype(np.float64))
_dot_c16 = _coo_dot_dense(np.dtype(np.complex128))


@njit
def _empty_then_array(n):
    """An empty list nothing appends to (np.array gives it its float64), and one whose only
    append sits on a branch reached in a later round of typing."""
    never = []
    later = []
    k = 0
    while k < n:
        v = k * 0.5
        if v != 0:
            later.append((k, k + 1))
        k += 1
    return np.array(never), len(never), np.array(later)


def case_sparse_coo_dot_dense():
    rng = np.random.default_rng(11)
    coords = np.array([[0, 0, 1, 3, 3, 3], [1, 4, 2, 0, 1, 4]])
    data = rng.normal(size=6)
    dense = rng.normal(size=(3, 5))
    zero = np.zeros((2, 5))
    c, d = _dot_f8(coords, data, dense, (4, 3))
    ce, de = _dot_f8(coords, data, zero, (4, 2))
    cc, dc = _dot_c16(coords, data * (1 + 1j), dense, (4, 3))
    return [c, d, ce, de, cc, dc, _empty_then_array(4), _empty_then_array(0)[1]]


# ---------------- umap: an SGD epoch of many arguments over prange ----------------

@njit
def _rdist(x, y):
    result = 0.0
    for i in range(x.shape[0]):
        diff = x[i] - y[i]
        result += diff * diff
    return result


def _epoch(head_embedding, tail_embedding, head, tail, n_vertices, epochs_per_sample, a, b,
           gamma, dim, move_other, alpha, epoch_of_next_sample, n, densmap_flag, dens_phi_sum,
           dens_re_sum, dens_re_cov, dens_re_std, dens_re_mean, dens_lambda, dens_R, dens_mu,
           dens_mu_tot, w0, w1, w2, w3, w4, w5, w6):
    """umap's _optimize_layout_euclidean_single_epoch, whose prange body reads more than 30
    variables: the call that runs it on the pool passes them as CPython passes more than 30
    arguments (a list made a tuple and spread). Each iteration writes only its own row here."""
    for i in numba.prange(epochs_per_sample.shape[0]):
        if epoch_of_next_sample[i] <= n:
            j = head[i]
            current = head_embedding[j]
            other = tail_embedding[tail[i]]
            dist_squared = _rdist(current, other)
            grad_cor_coeff = 0.0
            if densmap_flag:
                phi = 1.0 / (1.0 + a * pow(dist_squared, b))
                grad_cor_coeff = (dens_lambda * dens_mu_tot * phi / dens_phi_sum[j] /
                                  (dens_mu[i] * dens_re_std) / n_vertices *
                                  (dens_R[j] - dens_re_cov * (dens_re_sum[j] - dens_re_mean)))
            if dist_squared > 0.0:
                grad_coeff = -2.0 * a * b * pow(dist_squared, b - 1.0)
                grad_coeff /= a * pow(dist_squared, b) + 1.0
            else:
                grad_coeff = 0.0
            for d in range(dim):
                grad_d = max(-4.0, min(4.0, grad_coeff * (current[d] - other[d])))
                grad_d += grad_cor_coeff * (w0 + w1 + w2 + w3 + w4 + w5 + w6)
                current[d] += grad_d * alpha * gamma
                if move_other:
                    current[d] += 0.0
            epoch_of_next_sample[i] += epochs_per_sample[i]


_epoch_serial = njit(_epoch, parallel=False)
_epoch_parallel = njit(_epoch, parallel=True)


def case_umap_epoch_many_arguments():
    rng = np.random.default_rng(12)
    n = 16
    emb = rng.normal(size=(n, 2)).astype(np.float32)
    tail_emb = rng.normal(size=(n, 2)).astype(np.float32)
    head = np.arange(n, dtype=np.int32)
    tail = rng.integers(0, n, n).astype(np.int32)
    eps = rng.uniform(1, 3, n)
    dens = rng.uniform(0.5, 1.5, n)
    outs = []
    for fn in (_epoch_serial, _epoch_parallel):
        for densmap in (False, True):
            e, nxt = emb.copy(), eps.copy() * 0.5
            fn(e, tail_emb, head, tail, n, eps, 1.5, 0.9, 1.0, 2, True, 0.5, nxt, 2.0, densmap,
               dens, dens, 0.3, 1.2, 0.1, 0.5, dens, dens, 2.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
            outs += [e, nxt]
    return outs
