"""Real-world patterns: sounding thermodynamics and seismogram processing as public projects write them.

Meteorology after a SHARPpy port to Numba (a mesoscale-analysis package): the Wobus function
as a polynomial in nested Horner form with `np.power`, a saturated lift by secant iteration
whose variables start as `t2 = None` ("all vars must be pre-defined for njit") and become floats
in the loop, `drylift` returning a (pressure, temperature) tuple, a default reference pressure
`theta(p, t, p2=1000.0)`, a vapour-pressure `@vectorize(["float64(float64)"])` called with a
scalar from compiled code, temperatures at a mixing ratio through `np.log10` and
`np.power(10, ...)`; then winds from speed and direction, bulk shear and storm-relative helicity
over a layer found by interpolation, CAPE/CIN over a lifted profile, the Rothfusz heat index with
its adjustments, wind chill, and precipitable water by trapezoids.

Seismology after ObsPy's pure-Python triggers (classic, recursive and delayed STA/LTA, Carl's
STA/LTA, the Z-detector, trigger onsets collected into a list of [on, off] pairs with a
`while` over `np.where` output), a cosine taper, a linear detrend, horizontal components rotated
to radial/transverse, a cross-correlation lag by `np.correlate(..., 'full')`, network coincidence
sums, and a grid-search hypocentre reporting the misfit minimum through `divmod`.
Restated in our own words with the import switched to pyjit; each is compared with CPython.
"""
import math

import numpy as np
import pytest

from pyjit import jit, njit, vectorize
from util import case_name, check_case

ZEROCNK = 273.15
ROCP = 0.28571426
EPS = 0.62197
C1, C2, C3, C4, C5, C6 = 0.0498646455, 2.4082965, 7.07475, 38.9114, 0.0915, 1.2035


# --- sounding thermodynamics -------------------------------------------------------------------

@njit
def wobf(t):
    t = t - 20
    if t <= 0:
        npol = 1.0 + t * (-8.841660499999999e-3 + t * (1.4714143e-4 + t * (
            -9.671989000000001e-7 + t * (-3.2607217e-8 + t * (-3.8598073e-10)))))
        npol = 15.13 / (np.power(npol, 4))
        return npol
    else:
        ppol = t * (4.9618922e-07 + t * (-6.1059365e-09 + t * (
            3.9401551e-11 + t * (-1.2588129e-13 + t * (1.6688280e-16)))))
        ppol = 1 + t * (3.6182989e-03 + t * (-1.3603273e-05 + ppol))
        ppol = (29.93 / np.power(ppol, 4)) + (0.96 * t) - 14.8
        return ppol


@njit
def satlift(p, thetam, conv=0.1):
    if np.fabs(p - 1000.0) - 0.001 <= 0:
        return thetam
    eor = 999
    t2 = None  # all variables must exist before the loop for njit
    e2 = None
    while np.fabs(eor) - conv > 0:
        if eor == 999:
            pwrp = np.power((p / 1000.0), ROCP)
            t1 = (thetam + ZEROCNK) * pwrp - ZEROCNK
            e1 = wobf(t1) - wobf(thetam)
            rate = 1
        else:
            rate = (t2 - t1) / (e2 - e1)
            t1 = t2
            e1 = e2
        t2 = t1 - (e1 * rate)
        e2 = (t2 + ZEROCNK) / pwrp - ZEROCNK
        e2 += wobf(t2) - wobf(e2) - thetam
        eor = e2 * rate
    return t2 - eor


@njit
def theta(p, t, p2=1000.0):
    return ((t + ZEROCNK) * np.power((p2 / p), ROCP)) - ZEROCNK


@njit
def lcltemp(t, td):
    s = t - td
    dlt = s * (1.2185 + 0.001278 * t + s * (-0.00219 + 1.173e-5 * s - 0.0000052 * t))
    return t - dlt


@njit
def thalvl(theta, t):
    t = t + ZEROCNK
    theta = theta + ZEROCNK
    return 1000.0 / (np.power((theta / t), (1.0 / ROCP)))


@njit
def drylift(p, t, td):
    t2 = lcltemp(t, td)
    p2 = thalvl(theta(p, t, 1000.0), t2)
    return p2, t2


@njit
def wetlift(p, t, p2):
    thta = theta(p, t, 1000.0)
    thetam = thta - wobf(thta) + wobf(t)
    return satlift(p2, thetam)


@vectorize(["float64(float64)"], nopython=True)
def vappres(t):
    pol = t * (1.1112018e-17 + (t * -3.0994571e-20))
    pol = t * (2.1874425e-13 + (t * (-1.789232e-15 + pol)))
    pol = t * (4.3884180e-09 + (t * (-2.988388e-11 + pol)))
    pol = t * (7.8736169e-05 + (t * (-6.111796e-07 + pol)))
    pol = 0.99999683 + (t * (-9.082695e-03 + pol))
    return 6.1078 / pol ** 8


@njit
def mixratio(p, t):
    x = 0.02 * (t - 12.5 + (7500.0 / p))
    wfw = 1.0 + (0.0000045 * p) + (0.0014 * x * x)
    fwesw = wfw * vappres(t)
    return 621.97 * (fwesw / (p - fwesw))


@njit
def virtemp(p, t, td):
    tk = t + ZEROCNK
    w = 0.001 * mixratio(p, td)
    return (tk * (1.0 + w / EPS) / (1.0 + w)) - ZEROCNK


@njit
def temp_at_mixrat(w, p):
    x = np.log10(w * p / (622.0 + w))
    x = (np.power(10.0, ((C1 * x) + C2)) - C3
         + (C4 * np.power((np.power(10, (C5 * x)) - C6), 2))) - ZEROCNK
    return x


@njit
def thetae_and_wetbulb(p, t, td):
    """Equivalent potential temperature and wet-bulb temperature of each level."""
    n = p.shape[0]
    out = np.empty((n, 2))
    for i in range(n):
        p2, t2 = drylift(p[i], t[i], td[i])
        out[i, 0] = theta(100.0, wetlift(p2, t2, 100.0), 1000.0)
        out[i, 1] = wetlift(p2, t2, p[i])
    return out


@njit
def lifted_profile(p, t, td):
    """Parcel temperatures from the surface: dry below the LCL, moist above it."""
    plcl, tlcl = drylift(p[0], t[0], td[0])
    th = theta(p[0], t[0])
    prof = np.empty_like(p)
    for i in range(p.size):
        if p[i] >= plcl:
            prof[i] = theta(1000.0, th, p[i])
        else:
            prof[i] = wetlift(plcl, tlcl, p[i])
    return plcl, tlcl, prof


@njit
def wind_components(speed, direction):
    rad = np.radians(direction)
    return -speed * np.sin(rad), -speed * np.cos(rad)


@njit
def wind_vector(u, v):
    spd = np.sqrt(u ** 2 + v ** 2)
    wdir = np.degrees(np.arctan2(-u, -v))
    wdir = np.where(wdir < 0, wdir + 360.0, wdir)
    wdir = np.where(spd == 0.0, 0.0, wdir)
    return wdir, spd


@njit
def interp_at(hght, field, z):
    return np.interp(z, hght, field)


@njit
def bulk_shear(hght, u, v, zbot, ztop):
    ub, vb = interp_at(hght, u, zbot), interp_at(hght, v, zbot)
    ut, vt = interp_at(hght, u, ztop), interp_at(hght, v, ztop)
    return ut - ub, vt - vb, math.hypot(ut - ub, vt - vb)


@njit
def helicity(hght, u, v, zbot, ztop, stu=0.0, stv=0.0):
    """Storm-relative helicity over [zbot, ztop]: positive and negative parts and the total."""
    inside = np.where((hght > zbot) & (hght < ztop))[0]
    n = inside.size + 2
    zs = np.empty(n)
    zs[0] = zbot
    zs[1:-1] = hght[inside]
    zs[-1] = ztop
    sru = np.interp(zs, hght, u) - stu
    srv = np.interp(zs, hght, v) - stv
    layers = sru[1:] * srv[:-1] - sru[:-1] * srv[1:]
    phel = layers[layers > 0].sum()
    nhel = layers[layers < 0].sum()
    return phel, nhel, phel + nhel


@njit
def cape_cin(p, t, td, z):
    """CAPE and CIN of a surface parcel by trapezoids of virtual-temperature buoyancy."""
    plcl, tlcl, parcel = lifted_profile(p, t, td)
    buoy = np.empty_like(p)
    for i in range(p.size):
        tv_env = virtemp(p[i], t[i], td[i]) + ZEROCNK
        if p[i] >= plcl:
            tdp = temp_at_mixrat(mixratio(p[0], td[0]), p[i])
        else:
            tdp = parcel[i]
        tv_par = virtemp(p[i], parcel[i], tdp) + ZEROCNK
        buoy[i] = 9.81 * (tv_par - tv_env) / tv_env
    cape = 0.0
    cin = 0.0
    for i in range(1, p.size):
        layer = 0.5 * (buoy[i] + buoy[i - 1]) * (z[i] - z[i - 1])
        if layer > 0:
            cape += layer
        elif cape == 0.0:
            cin += layer
    return cape, cin


@njit
def heat_index(temp_f, rh):
    out = np.empty_like(temp_f)
    for i in range(temp_f.size):
        t = temp_f[i]
        r = rh[i]
        hi = 0.5 * (t + 61.0 + ((t - 68.0) * 1.2) + (r * 0.094))
        if (hi + t) / 2 >= 80.0:
            hi = (-42.379 + 2.04901523 * t + 10.14333127 * r - .22475541 * t * r
                  - .00683783 * t * t - .05481717 * r * r + .00122874 * t * t * r
                  + .00085282 * t * r * r - .00000199 * t * t * r * r)
            if r < 13 and 80 <= t <= 112:
                hi -= ((13 - r) / 4) * math.sqrt((17 - abs(t - 95.)) / 17)
            elif r > 85 and 80 <= t <= 87:
                hi += ((r - 85) / 10) * ((87 - t) / 5)
        out[i] = hi
    return out


@njit
def wind_chill(temp_c, speed_kmh):
    wc = (13.12 + 0.6215 * temp_c - 11.37 * speed_kmh ** 0.16
          + 0.3965 * temp_c * speed_kmh ** 0.16)
    mask = (temp_c > 10.0) | (speed_kmh < 4.8)
    wc[mask] = np.nan
    return wc


@njit
def precipitable_water(p, td):
    w = np.empty(p.size)
    for i in range(p.size):
        w[i] = mixratio(p[i], td[i])
    pw = 0.0
    for i in range(1, p.size):
        pw += 0.5 * (w[i] + w[i - 1]) * (p[i - 1] - p[i])
    return pw * 0.00040173


# --- seismology ----------------------------------------------------------------------------------

@njit
def classic_sta_lta(a, nsta, nlta):
    sta = np.cumsum(a ** 2).astype(np.float64)
    lta = sta.copy()
    sta[nsta:] = sta[nsta:] - sta[:-nsta]
    sta /= nsta
    lta[nlta:] = lta[nlta:] - lta[:-nlta]
    lta /= nlta
    sta[:nlta - 1] = 0
    dtiny = np.finfo(0.0).tiny
    idx = lta < dtiny
    lta[idx] = dtiny
    return sta / lta


@jit(nopython=True)
def recursive_sta_lta(a, nsta, nlta):
    ndat = len(a)
    csta = 1. / nsta
    clta = 1. / nlta
    sta = 0.
    lta = 1e-99
    charfct = np.zeros(ndat, dtype=np.float64)
    icsta = 1 - csta
    iclta = 1 - clta
    for i in range(1, ndat):
        sq = a[i] ** 2
        sta = csta * sq + icsta * sta
        lta = clta * sq + iclta * lta
        charfct[i] = sta / lta
        if i < nlta:
            charfct[i] = 0.
    return charfct


@njit
def delayed_sta_lta(a, nsta, nlta):
    m = len(a)
    sta = np.zeros(m, dtype=np.float64)
    lta = np.zeros(m, dtype=np.float64)
    for i in range(m):
        sta[i] = (a[i] ** 2 + a[i - nsta] ** 2) / nsta + sta[i - 1]
        lta[i] = (a[i - nsta - 1] ** 2 + a[i - nsta - nlta - 1] ** 2) / nlta + lta[i - 1]
    sta[0:nlta + nsta + 50] = 0
    lta[0:nlta + nsta + 50] = 1
    return sta / lta


@njit
def carl_sta_trig(a, nsta, nlta, ratio, quiet):
    m = len(a)
    sta = np.zeros(m, dtype=np.float64)
    lta = np.zeros(m, dtype=np.float64)
    star = np.zeros(m, dtype=np.float64)
    ltar = np.zeros(m, dtype=np.float64)
    pad_sta = np.zeros(nsta)
    pad_lta = np.zeros(nlta)
    for i in range(nsta):
        sta += np.concatenate((pad_sta, a[i:m - nsta + i]))
        star += np.concatenate((pad_sta, np.abs(a[i:m - nsta + i])))
    for i in range(nlta):
        lta += np.concatenate((pad_lta, a[i:m - nlta + i]))
        ltar += np.concatenate((pad_lta, np.abs(a[i:m - nlta + i])))
    sta /= nsta
    lta /= nlta
    star = star / nsta - np.abs(sta)
    ltar = ltar / nlta - np.abs(lta)
    eta = star - (ratio * ltar) - np.abs(sta - lta) - quiet
    eta[:nlta] = -1.0
    return eta


@njit
def z_detect(a, nsta):
    m = len(a)
    sta = np.zeros(len(a), dtype=np.float64)
    pad_sta = np.zeros(nsta)
    for i in range(nsta):
        sta = sta + np.concatenate((pad_sta, a[i:m - nsta + i] ** 2))
    a_mean = np.mean(sta)
    a_std = np.std(sta)
    return (sta - a_mean) / a_std


@njit
def trigger_onset(charfct, thres1, thres2, max_len=9e99, max_len_delete=False):
    """[on, off] sample pairs where charfct rises above thres1 and falls below thres2."""
    ind1 = np.where(charfct > thres1)[0]
    if len(ind1) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    ind2 = np.where(charfct > thres2)[0]
    on = [ind1[0]]
    of = [-1]
    ind2_ = np.empty_like(ind2, dtype=np.bool_)
    ind2_[:-1] = np.diff(ind2) > 1
    ind2_[-1] = True
    of.extend(list(ind2[ind2_]))
    ind1_ = np.empty_like(ind1, dtype=np.bool_)
    ind1_[0] = False
    ind1_[1:] = np.diff(ind1) > 1
    on.extend(list(ind1[ind1_]))
    pick = []
    while on[-1] > of[-1]:
        of.append(len(charfct) - 1)
    while True:
        while on[0] <= of[0]:
            on.pop(0)
            if len(on) == 0:
                break
        if len(on) == 0:
            break
        while of[0] < on[0]:
            of.pop(0)
        if of[0] - on[0] > max_len:
            if max_len_delete:
                on.pop(0)
                continue
            of.insert(0, on[0] + int(max_len))
        pick.append((on[0], of[0]))
    out = np.empty((len(pick), 2), dtype=np.int64)
    for k, (a, b) in enumerate(pick):
        out[k, 0] = a
        out[k, 1] = b
    return out


@njit
def cosine_taper(npts, p=0.1, halfcosine=True):
    frac = int(npts * p / 2.0 + 0.5)
    idx1 = 0
    idx2 = frac - 1
    idx3 = npts - frac
    idx4 = npts - 1
    if idx1 == idx2:
        idx2 += 1
    if idx3 == idx4:
        idx3 -= 1
    cos_win = np.zeros(npts)
    if halfcosine:
        cos_win[idx1:idx2 + 1] = 0.5 * (
            1.0 - np.cos((np.pi * (np.arange(idx1, idx2 + 1) - float(idx1)) / (idx2 - idx1))))
        cos_win[idx2 + 1:idx3] = 1.0
        cos_win[idx3:idx4 + 1] = 0.5 * (
            1.0 + np.cos((np.pi * (float(idx3) - np.arange(idx3, idx4 + 1)) / (idx4 - idx3))))
    else:
        cos_win[idx1:idx2 + 1] = np.cos(-(np.pi / 2.0 * (float(idx2) - np.arange(idx1, idx2 + 1))
                                          / (idx2 - idx1)))
        cos_win[idx2 + 1:idx3] = 1.0
        cos_win[idx3:idx4 + 1] = np.cos((np.pi / 2.0 * (float(idx3) - np.arange(idx3, idx4 + 1))
                                         / (idx4 - idx3)))
    if idx1 == idx2:
        cos_win[idx1] = 0.0
    if idx3 == idx4:
        cos_win[idx3] = 0.0
    return cos_win


@njit
def detrend_linear(data):
    n = data.shape[0]
    x = np.arange(n, dtype=np.float64)
    xm = x.mean()
    ym = data.mean()
    sxy = ((x - xm) * (data - ym)).sum()
    sxx = ((x - xm) ** 2).sum()
    slope = sxy / sxx if sxx > 0 else 0.0
    return data - (ym + slope * (x - xm))


@njit
def rotate_ne_rt(n, e, ba):
    if ba < 0 or ba > 360:
        raise ValueError("Back Azimuth should be between 0 and 360 degrees.")
    ba = math.radians(ba)
    r = - e * math.sin(ba) - n * math.cos(ba)
    t = - e * math.cos(ba) + n * math.sin(ba)
    return r, t


@njit
def xcorr_lag(a, b, max_shift):
    cc = np.correlate(a, b, 'full')
    mid = len(b) - 1
    lo = max(mid - max_shift, 0)
    hi = min(mid + max_shift + 1, cc.size)
    window = cc[lo:hi]
    k = np.argmax(np.abs(window))
    norm = math.sqrt(np.sum(a * a) * np.sum(b * b))
    return lo + k - mid, window[k] / norm


@njit
def coincidence_sum(triggers, weights, npts, threshold):
    """Weighted count of stations triggered per sample, and the spans above the threshold."""
    total = np.zeros(npts)
    for s in range(triggers.shape[0]):
        for j in range(triggers.shape[1]):
            on, off = triggers[s, j]
            if on < 0:
                continue
            total[on:off + 1] += weights[s]
    spans = []
    i = 0
    while i < npts:
        if total[i] >= threshold:
            j = i
            while j + 1 < npts and total[j + 1] >= threshold:
                j += 1
            spans.append((i, j, total[i:j + 1].max()))
            i = j + 1
        else:
            i += 1
    return total, spans


@njit
def grid_locate(stations, arrivals, vp, xs, ys, zs):
    """Grid-search hypocentre: origin time from the mean residual, misfit the residuals' RMS."""
    nx, ny, nz = xs.size, ys.size, zs.size
    misfit = np.empty((nx, ny, nz))
    nsta = stations.shape[0]
    tt = np.empty(nsta)
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                for s in range(nsta):
                    dx = stations[s, 0] - xs[i]
                    dy = stations[s, 1] - ys[j]
                    dz = stations[s, 2] - zs[k]
                    tt[s] = math.sqrt(dx * dx + dy * dy + dz * dz) / vp
                t0 = np.mean(arrivals - tt)
                misfit[i, j, k] = math.sqrt(np.mean((arrivals - tt - t0) ** 2))
    best = np.argmin(misfit)
    ij, k = divmod(best, nz)
    i, j = divmod(ij, ny)
    return (xs[i], ys[j], zs[k]), misfit.min()


@njit
def local_magnitude(amplitudes_mm, distances_km):
    ml = np.empty(amplitudes_mm.size)
    for i in range(ml.size):
        r = distances_km[i]
        ml[i] = math.log10(amplitudes_mm[i]) + 1.11 * math.log10(r) + 0.00189 * r - 2.09
    return np.median(ml), ml.std()


# --- cases ----------------------------------------------------------------------------------------

rng = np.random.default_rng(7)


def _sounding():
    p = np.array([1000., 975., 950., 925., 900., 850., 800., 700., 600., 500., 400., 300.])
    t = np.array([30., 28., 26., 24., 22., 18., 14., 6., -3., -12., -24., -40.])
    td = np.array([22., 20.5, 19., 17., 15., 11., 5., -5., -15., -25., -38., -55.])
    z = np.array([100., 330., 560., 790., 1030., 1500., 2000., 3050., 4250., 5600., 7250., 9300.])
    return p, t, td, z


def _trace(n=600, onset=300):
    x = rng.normal(0.0, 0.2, n)
    k = min(80, n - onset)
    x[onset:onset + k] += np.sin(np.arange(k) * 0.7) * np.exp(-np.arange(k) / 30.0) * 4
    return x


_P, _T, _TD, _Z = _sounding()
_hght = np.array([0., 500., 1000., 1500., 2500., 3500., 5000., 6500.])
_u = np.array([2., 6., 10., 12., 15., 18., 22., 25.])
_v = np.array([5., 8., 9., 8., 6., 5., 3., 0.])
_char = np.concatenate((np.zeros(20), np.linspace(0, 5, 10), np.full(8, 5.0),
                        np.linspace(5, 0, 10), np.zeros(15), np.full(5, 3.5), np.zeros(4)))
_stations = np.array([[0., 0., 0.], [20., 3., 0.], [5., 25., 0.3], [-15., 10., 0.1],
                      [12., -18., 0.]])
_src = np.array([4.0, 6.0, 8.0])
_arrivals = np.sqrt(((_stations - _src) ** 2).sum(axis=1)) / 6.0 + 1.5
_triggers = np.array([[[10, 40], [70, 90]], [[15, 45], [-1, -1]], [[30, 60], [80, 99]]])

CASES = [
    (wobf, lambda: (-35.0,)),
    (wobf, lambda: (45.0,)),
    (satlift, lambda: (500.0, 20.0)),
    (satlift, lambda: (1000.0, 20.0)),
    (satlift, lambda: (700.0, 10.0, 0.01)),
    (theta, lambda: (850.0, 12.0)),
    (drylift, lambda: (1000.0, 30.0, 20.0)),
    (drylift, lambda: (900.0, 15.0, 15.0)),
    (wetlift, lambda: (900.0, 10.0, 400.0)),
    (mixratio, lambda: (850.0, 10.0)),
    (virtemp, lambda: (900.0, 20.0, 14.0)),
    (temp_at_mixrat, lambda: (12.0, 900.0)),
    (temp_at_mixrat, lambda: (np.array([2.0, 8.0, 16.0]), np.array([950.0, 850.0, 700.0]))),
    (thetae_and_wetbulb, lambda: (_P, _T, _TD)),
    (lifted_profile, lambda: (_P, _T, _TD)),
    (wind_components, lambda: (np.array([0.0, 10.0, 25.0, 5.0]),
                               np.array([0.0, 90.0, 225.0, 360.0]))),
    (wind_vector, lambda: (np.array([0.0, -10.0, 3.0, 0.0]), np.array([0.0, 0.0, 4.0, -7.0]))),
    (bulk_shear, lambda: (_hght, _u, _v, 0.0, 6000.0)),
    (helicity, lambda: (_hght, _u, _v, 0.0, 3000.0, 8.0, 2.0)),
    (helicity, lambda: (_hght, _u, _v, 0.0, 1000.0)),
    (cape_cin, lambda: (_P, _T, _TD, _Z)),
    (heat_index, lambda: (np.array([70.0, 85.0, 96.0, 90.0, 84.0, 110.0]),
                          np.array([40.0, 60.0, 10.0, 90.0, 88.0, 5.0]))),
    (wind_chill, lambda: (np.array([-20.0, 0.0, 5.0, 15.0, -5.0]),
                          np.array([30.0, 10.0, 2.0, 20.0, 60.0]))),
    (precipitable_water, lambda: (_P, _TD)),
    (classic_sta_lta, lambda: (_trace(), 10, 100)),
    (classic_sta_lta, lambda: (np.zeros(50), 5, 20)),
    (recursive_sta_lta, lambda: (_trace(), 10, 100)),
    (recursive_sta_lta, lambda: (_trace(50, 30).astype(np.float32), 5, 20)),
    (delayed_sta_lta, lambda: (_trace(), 10, 100)),
    (carl_sta_trig, lambda: (_trace(), 10, 100, 0.8, 0.8)),
    (z_detect, lambda: (_trace(), 10)),
    (trigger_onset, lambda: (_char, 3.0, 1.0)),
    (trigger_onset, lambda: (_char, 3.0, 1.0, 4, True)),
    (trigger_onset, lambda: (_char, 3.0, 1.0, 4, False)),
    (trigger_onset, lambda: (_char, 9.0, 1.0)),
    (trigger_onset, lambda: (_char[:40], 3.0, 1.0)),
    (cosine_taper, lambda: (40,)),
    (cosine_taper, lambda: (41, 0.3, False)),
    (cosine_taper, lambda: (10, 0.2)),
    (detrend_linear, lambda: (np.arange(30.0) * 0.5 + rng.normal(size=30),)),
    (detrend_linear, lambda: (np.array([4.0]),)),
    (rotate_ne_rt, lambda: (rng.normal(size=20), rng.normal(size=20), 30.0)),
    (rotate_ne_rt, lambda: (0.5, -1.5, 360.0)),
    (xcorr_lag, lambda: (np.roll(_trace(200, 60), 7), _trace(200, 60), 20)),
    (xcorr_lag, lambda: (_trace(100, 30), _trace(80, 10), 5)),
    (coincidence_sum, lambda: (_triggers, np.array([1.0, 1.0, 2.0]), 100, 2.0)),
    (grid_locate, lambda: (_stations, _arrivals, 6.0, np.linspace(-5, 15, 11),
                           np.linspace(0, 12, 7), np.linspace(2, 14, 7))),
    (local_magnitude, lambda: (np.array([1.2, 0.4, 3.3, 0.9]), np.array([20., 55., 8., 31.]))),
]


@pytest.mark.parametrize("f, make", CASES, ids=[case_name(f) for f, _ in CASES])
def test_same_as_cpython(f, make):
    check_case(f, make)


def test_rotate_refuses_a_bad_back_azimuth():
    for f in (rotate_ne_rt, rotate_ne_rt.py_func):
        with pytest.raises(ValueError, match="Back Azimuth"):
            f(1.0, 2.0, 400.0)
