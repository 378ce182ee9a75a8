"""Real-world patterns: hydrology, climate-index and option-pricing code written for Numba,
restated in our own words with the import switched: Nash-Sutcliffe over a NaN mask, Kling-Gupta
through `np.corrcoef`, Lyne-Hollick baseflow separation alternating forward and backward passes
(a `range` chosen at run time), a linear reservoir, Muskingum routing, Hargreaves evaporation
over day-of-year arrays; consecutive dry days over (time, lat, lon) in a `prange` loop, growing
degree days by clipping and summing along time, heatwave counts by a `@guvectorize` kernel called
from compiled code with its output, an empirical SPI (rolling sums, ranks by `argsort`,
Gringorten positions, a rational inverse normal, results stored through a mask), dew points as a
`@vectorize` ufunc; American options on a CRR binomial tree (`u ** np.arange(n, -1, -1)`, early
exercise by `np.maximum`) and a trinomial tree, Black-Scholes with `math.erf`, implied volatility
by bisection over a `prange` surface, and Longstaff-Schwartz regression by `np.linalg.lstsq` on
in-the-money paths (`cash[itm[do]] = ex[do]`). Each is compared with CPython running the same
source."""
import math

import numpy as np
import pytest

import pyjit as nb  # noqa: F401
from pyjit import njit, prange, float64, int64, guvectorize, vectorize  # noqa: F401
from util import assert_same, check


# ---- hydrology ----
@njit
def nse(sim, obs):
    mask = ~(np.isnan(sim) | np.isnan(obs))
    s, o = sim[mask], obs[mask]
    return 1.0 - np.sum((s - o) ** 2) / np.sum((o - o.mean()) ** 2)

@njit
def kge(sim, obs):
    r = np.corrcoef(sim, obs)[0, 1]
    alpha = np.std(sim) / np.std(obs)
    beta = np.mean(sim) / np.mean(obs)
    return 1 - np.sqrt((r - 1) ** 2 + (alpha - 1) ** 2 + (beta - 1) ** 2)

@njit(cache=True)
def lyne_hollick(q, alpha=0.925, passes=3):
    qf = q.astype(np.float64)
    for p in range(passes):
        quick = np.zeros_like(qf)
        idx = range(1, qf.size) if p % 2 == 0 else range(qf.size - 2, -1, -1)
        prev_i = 0 if p % 2 == 0 else qf.size - 1
        quick[prev_i] = 0.0
        for i in idx:
            quick[i] = alpha * quick[prev_i] + (1 + alpha) / 2 * (qf[i] - qf[prev_i])
            if quick[i] < 0:
                quick[i] = 0.0
            prev_i = i
        qf = qf - quick
    return qf

@njit
def linear_reservoir(p, pet, k, smax, s0=0.0):
    n = p.size
    q = np.empty(n)
    et = np.empty(n)
    s = s0
    for t in range(n):
        s += p[t]
        et[t] = min(pet[t] * s / smax, s)
        s -= et[t]
        over = max(0.0, s - smax)
        s -= over
        q[t] = over + s / k
        s -= s / k
    return q, et

@njit
def muskingum(inflow, K, X, dt):
    d = 2 * K * (1 - X) + dt
    c0 = (dt - 2 * K * X) / d
    c1 = (dt + 2 * K * X) / d
    c2 = (2 * K * (1 - X) - dt) / d
    out = np.empty_like(inflow)
    out[0] = inflow[0]
    for t in range(1, inflow.size):
        out[t] = c0 * inflow[t] + c1 * inflow[t - 1] + c2 * out[t - 1]
    return out

@njit
def hargreaves(tmin, tmax, tmean, lat_deg, doy):
    lat = np.deg2rad(lat_deg)
    dr = 1 + 0.033 * np.cos(2 * np.pi / 365 * doy)
    decl = 0.409 * np.sin(2 * np.pi / 365 * doy - 1.39)
    ws = np.arccos(-np.tan(lat) * np.tan(decl))
    ra = 24 * 60 / np.pi * 0.082 * dr * (ws * np.sin(lat) * np.sin(decl) + np.cos(lat) * np.cos(decl) * np.sin(ws))
    return 0.0023 * 0.408 * ra * (tmean + 17.8) * np.sqrt(np.maximum(tmax - tmin, 0.0))

# ---- climate indices over (time, lat, lon) ----
@njit(parallel=True)
def consecutive_dry_days(pr, thresh=1.0):
    nt, ny, nx = pr.shape
    out = np.zeros((ny, nx), dtype=np.int64)
    for j in prange(ny):
        for i in range(nx):
            run = 0
            best = 0
            for t in range(nt):
                if pr[t, j, i] < thresh:
                    run += 1
                    if run > best:
                        best = run
                else:
                    run = 0
            out[j, i] = best
    return out

@njit
def growing_degree_days(tas, base=10.0, cap=30.0):
    return np.sum(np.minimum(np.maximum(tas - base, 0.0), cap - base), axis=0)

@guvectorize(["void(float64[:], float64, int64[:])"], "(n),()->()", nopython=True)
def heatwave_count(t, thresh, out):
    count = 0
    run = 0
    for v in t:
        if v > thresh:
            run += 1
            if run == 3:
                count += 1
        else:
            run = 0
    out[0] = count

@njit
def spi_empirical(precip, scale):
    n = precip.size
    acc = np.full(n, np.nan)
    for i in range(scale - 1, n):
        acc[i] = precip[i - scale + 1:i + 1].sum()
    valid = acc[~np.isnan(acc)]
    ranks = np.empty(valid.size)
    order = np.argsort(valid)
    ranks[order] = np.arange(1, valid.size + 1)
    p = (ranks - 0.44) / (valid.size + 0.12)      # Gringorten plotting position
    # inverse normal by Acklam's rational approximation (central region) / tails
    z = np.empty_like(p)
    for k in range(p.size):
        q = p[k]
        if q < 0.5:
            t = math.sqrt(-2 * math.log(q))
            z[k] = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3))
        else:
            t = math.sqrt(-2 * math.log(1 - q))
            z[k] = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3)
    out = np.full(n, np.nan)
    out[~np.isnan(acc)] = z
    return out

def dewpoint_scalar(t, rh):
    a, b = 17.625, 243.04
    g = math.log(rh / 100.0) + a * t / (b + t)
    return b * g / (a - g)


dewpoint = vectorize([float64(float64, float64)])(dewpoint_scalar)

# ---- option pricing trees ----
@njit(cache=True)
def crr_american(S, K, T, r, sigma, n, is_call):
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    ST = S * u ** np.arange(n, -1, -1) * d ** np.arange(0, n + 1)
    V = np.maximum(ST - K, 0.0) if is_call else np.maximum(K - ST, 0.0)
    for i in range(n - 1, -1, -1):
        ST = ST[:-1] / u
        V = disc * (p * V[:-1] + (1 - p) * V[1:])
        ex = ST - K if is_call else K - ST
        V = np.maximum(V, ex)
    return V[0]

@njit
def trinomial(S, K, T, r, sigma, n, american=True):
    dt = T / n
    dx = sigma * math.sqrt(3 * dt)
    nu = r - 0.5 * sigma ** 2
    pu = 0.5 * ((sigma ** 2 * dt + nu ** 2 * dt ** 2) / dx ** 2 + nu * dt / dx)
    pd = 0.5 * ((sigma ** 2 * dt + nu ** 2 * dt ** 2) / dx ** 2 - nu * dt / dx)
    pm = 1.0 - pu - pd
    disc = math.exp(-r * dt)
    j = np.arange(-n, n + 1)
    St = S * np.exp(j * dx)
    V = np.maximum(K - St, 0.0)
    for i in range(n - 1, -1, -1):
        jj = np.arange(-i, i + 1)
        Vn = disc * (pu * V[2:] + pm * V[1:-1] + pd * V[:-2])
        if american:
            Vn = np.maximum(Vn, K - S * np.exp(jj * dx))
        V = Vn
    return V[0]

@njit
def norm_cdf(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))

@njit
def bs_price(S, K, T, r, sigma, call=True):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    if call:
        return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)
    return K * math.exp(-r * T) * norm_cdf(-d2) - S * norm_cdf(-d1)

@njit
def implied_vol(price, S, K, T, r, call=True, tol=1e-10):
    lo, hi = 1e-6, 5.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if bs_price(S, K, T, r, mid, call) > price:
            hi = mid
        else:
            lo = mid
        if hi - lo < tol:
            break
    return 0.5 * (lo + hi)

@njit(parallel=True)
def iv_surface(prices, S, strikes, maturities, r):
    out = np.empty(prices.shape)
    for i in prange(strikes.size):
        for j in range(maturities.size):
            out[i, j] = implied_vol(prices[i, j], S, strikes[i], maturities[j], r)
    return out

@njit
def lsm_american_put(paths, K, r, dt):
    n_paths, n_steps = paths.shape
    cash = np.maximum(K - paths[:, -1], 0.0)
    for t in range(n_steps - 2, 0, -1):
        cash *= math.exp(-r * dt)
        itm = np.where(K - paths[:, t] > 0)[0]
        if itm.size < 3:
            continue
        x = paths[itm, t]
        A = np.empty((itm.size, 3))
        A[:, 0] = 1.0
        A[:, 1] = x
        A[:, 2] = x * x
        coef = np.linalg.lstsq(A, cash[itm])[0]
        cont = A @ coef
        ex = K - x
        do = ex > cont
        cash[itm[do]] = ex[do]
    return math.exp(-r * dt) * cash.mean()

rng = np.random.default_rng(5)
obs = np.abs(rng.normal(5, 2, 200)); sim = obs + rng.normal(0, 0.5, 200)
q = np.abs(np.cumsum(rng.normal(0, 1, 150))) + 1
pr = rng.gamma(0.5, 3.0, (90, 4, 5))
tas = rng.normal(15, 8, (60, 3, 4))
doy = np.arange(1, 366, 30.0)
gbm = 100 * np.exp(np.cumsum((0.05 - 0.02) / 50 + 0.2 * math.sqrt(1 / 50) * rng.normal(size=(300, 50)), axis=1))
strikes = np.array([90.0, 100.0, 110.0]); mats = np.array([0.25, 0.5, 1.0])
prices = np.array([[bs_price.py_func(100.0, k, t, 0.01, 0.2 + 0.05 * i) for t in mats] for i, k in enumerate(strikes)])
def heat(t):
    out = np.empty(t.shape[:-1], dtype=np.int64)
    heatwave_count(t, 20.0, out)
    return out
heat_j = njit(heat)
CASES = [
    ("nse", nse, (sim, obs)),
    ("kge", kge, (sim, obs)),
    ("lyne_hollick", lyne_hollick, (q,)),
    ("linear_reservoir", linear_reservoir, (np.abs(rng.normal(2, 3, 100)), np.full(100, 1.5), 10.0, 50.0)),
    ("muskingum", muskingum, (q, 2.0, 0.2, 1.0)),
    ("hargreaves", hargreaves, (np.full(13, 10.0), np.full(13, 25.0), np.full(13, 17.5), 45.0, doy)),
    ("cdd", consecutive_dry_days, (pr,)),
    ("gdd", growing_degree_days, (tas,)),
    ("heatwave", heat_j, (tas.transpose(1, 2, 0).copy(),)),
    ("spi", spi_empirical, (np.abs(rng.gamma(2, 20, 120)), 3)),
    ("crr_put", crr_american, (100.0, 100.0, 1.0, 0.05, 0.2, 200, False)),
    ("crr_call", crr_american, (100.0, 95.0, 1.0, 0.05, 0.2, 200, True)),
    ("trinomial", trinomial, (100.0, 100.0, 1.0, 0.05, 0.2, 100)),
    ("iv_surface", iv_surface, (prices, 100.0, strikes, mats, 0.01)),
    ("lsm", lsm_american_put, (gbm, 100.0, 0.05, 1 / 50)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    check(f.py_func, *args, jit=f)


def test_dewpoint_ufunc():
    t, rh = np.linspace(-5, 35, 9), np.linspace(20, 100, 9)
    want = np.array([dewpoint_scalar(a, b) for a, b in zip(t, rh)])
    assert_same(want, dewpoint(t, rh))
    assert_same(want[::2], dewpoint(t[::2], rh[::2]))
