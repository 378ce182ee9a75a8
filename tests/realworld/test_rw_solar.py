"""Real-world patterns: a solar-position library's Numba path, restated in our own words with
the import switched: `jcompile = jit` applied with signature strings and `nopython=True` to every
scalar step (`'float64(int64, int64, int64, int64, int64, int64, int64)'` for a Julian day from
calendar fields, `'float64(float64)'` helpers), periodic-term tables zero-padded by
`ndarray.resize(..., refcheck=False)` and stacked into module-level 3-d arrays summed row by row,
nutation over an int table times floats, a bool times a float as a switch, an equation of time
folded by comparisons multiplied in, and a `'void(float64[:], float64[:], float64[:,:])'` loop
with `nogil=True` filling one output column per time (`continue` after the early result, a
float read as a flag), run by threads over `np.array_split` chunks of the times and the output's
columns. Each is compared with CPython running the same source."""
import threading

import numpy as np
import pytest

from pyjit import jit
from util import assert_same, check


jcompile = jit

# periodic-term tables: rows of (amplitude, phase, frequency), shorter series zero-padded to one
# length with ndarray.resize so they stack into one 3-d table, as the SPA tables are
_L0 = np.array([[175347046.0, 0.0, 0.0], [3341656.0, 4.6692568, 6283.07585],
                [34894.0, 4.6261, 12566.1517], [3497.0, 2.7441, 5753.3849],
                [3418.0, 2.8289, 3.5231], [3136.0, 3.6277, 77713.7715]])
_L1 = np.array([[628331966747.0, 0.0, 0.0], [206059.0, 2.678235, 6283.07585],
                [4303.0, 2.6351, 12566.1517]])
_L2 = np.array([[52919.0, 0.0, 0.0], [8720.0, 1.0721, 6283.0758]])
_L1.resize((6, 3), refcheck=False)
_L2.resize((6, 3), refcheck=False)
LONG_TABLE = np.array([_L0, _L1, _L2])
_R0 = np.array([[100013989.0, 0.0, 0.0], [1670700.0, 3.0984635, 6283.07585],
                [13956.0, 3.05525, 12566.1517]])
_R1 = np.array([[103019.0, 1.10749, 6283.07585]])
_R1.resize((3, 3), refcheck=False)
RADIUS_TABLE = np.array([_R0, _R1])
NUT_ABCD = np.array([[-171996, -174.2, 92025, 8.9], [-13187, -1.6, 5736, -3.1],
                     [-2274, -0.2, 977, -0.5], [2062, 0.2, -895, 0.5]])
NUT_Y = np.array([[0, 0, 0, 0, 1], [-2, 0, 0, 2, 2], [0, 0, 0, 2, 2], [0, 0, 0, 0, 2]])


@jcompile('float64(int64, int64, int64, int64, int64, int64, int64)', nopython=True)
def julian_day_dt(year, month, day, hour, minute, second, microsecond):
    if month <= 2:
        year = year - 1
        month = month + 12
    a = int(year / 100)
    b = 2 - a + int(a * 0.25)
    frac = (microsecond / 1e6 + second + minute * 60 + hour * 3600) * 1.0 / (3600 * 24)
    return int(365.25 * (year + 4716)) + int(30.6001 * (month + 1)) + day + frac + b - 1524.5


@jcompile('float64(float64)', nopython=True)
def julian_day(unixtime):
    return unixtime * 1.0 / 86400 + 2440587.5


@jcompile('float64(float64, float64)', nopython=True)
def julian_ephemeris_day(jd, delta_t):
    return jd + delta_t * 1.0 / 86400


@jcompile('float64(float64)', nopython=True)
def julian_century(jd):
    return (jd - 2451545) * 1.0 / 36525


@jcompile('float64(float64)', nopython=True)
def heliocentric_longitude(jme):
    l0 = 0.0
    l1 = 0.0
    l2 = 0.0
    for row in range(LONG_TABLE.shape[1]):
        l0 += LONG_TABLE[0, row, 0] * np.cos(LONG_TABLE[0, row, 1] + LONG_TABLE[0, row, 2] * jme)
        l1 += LONG_TABLE[1, row, 0] * np.cos(LONG_TABLE[1, row, 1] + LONG_TABLE[1, row, 2] * jme)
        l2 += LONG_TABLE[2, row, 0] * np.cos(LONG_TABLE[2, row, 1] + LONG_TABLE[2, row, 2] * jme)
    l_rad = (l0 + l1 * jme + l2 * jme**2) / 10**8
    return np.rad2deg(l_rad) % 360


@jcompile('float64(float64)', nopython=True)
def radius_vector(jme):
    r0 = 0.0
    r1 = 0.0
    for row in range(RADIUS_TABLE.shape[1]):
        r0 += RADIUS_TABLE[0, row, 0] * np.cos(RADIUS_TABLE[0, row, 1] + RADIUS_TABLE[0, row, 2] * jme)
        r1 += RADIUS_TABLE[1, row, 0] * np.cos(RADIUS_TABLE[1, row, 1] + RADIUS_TABLE[1, row, 2] * jme)
    return (r0 + r1 * jme) / 10**8


@jcompile('float64(float64, float64, float64, float64, float64, float64)', nopython=True)
def longitude_nutation(jce, x0, x1, x2, x3, x4):
    total = 0
    for row in range(NUT_Y.shape[0]):
        a = NUT_ABCD[row, 0]
        b = NUT_ABCD[row, 1]
        arg = (NUT_Y[row, 0] * x0 + NUT_Y[row, 1] * x1 + NUT_Y[row, 2] * x2 +
               NUT_Y[row, 3] * x3 + NUT_Y[row, 4] * x4)
        total += (a + b * jce) * np.sin(np.radians(arg))
    return total * 1.0 / 36000000


@jcompile('float64(float64, float64, float64, float64)', nopython=True)
def refraction_correction(pressure, temp, e0, atmos_refract):
    # a bool times a float: zero below the horizon
    switch = e0 >= -1.0 * (0.26667 + atmos_refract)
    return ((pressure / 1010.0) * (283.0 / (273 + temp)) * 1.02 /
            (60 * np.tan(np.radians(e0 + 10.3 / (e0 + 5.11))))) * switch


@jcompile('float64(float64, float64, float64, float64)', nopython=True)
def equation_of_time(m, alpha, dpsi, eps):
    E = (m - 0.0057183 - alpha + dpsi * np.cos(np.radians(eps))) % 360
    E *= 4
    greater = E > 20
    less = E < -20
    other = (E <= 20) & (E >= -20)
    return greater * (E - 1440) + less * (E + 1440) + other * E


@jcompile('void(float64[:], float64[:], float64[:,:])', nopython=True, nogil=True)
def position_loop(unixtime, loc_args, out):
    lat = loc_args[0]
    delta_t = loc_args[1]
    pressure = loc_args[2]
    temp = loc_args[3]
    esd = loc_args[4]
    for i in range(unixtime.shape[0]):
        jd = julian_day(unixtime[i])
        jde = julian_ephemeris_day(jd, delta_t)
        jce = julian_century(jde)
        jme = jce / 10
        R = radius_vector(jme)
        if esd:
            out[0, i] = R
            continue
        L = heliocentric_longitude(jme)
        x = np.array([297.85 + 445267.11 * jce, 357.53 + 35999.05 * jce, 134.96 + 477198.87 * jce,
                      93.27 + 483202.02 * jce, 125.04 - 1934.14 * jce])
        dpsi = longitude_nutation(jce, x[0], x[1], x[2], x[3], x[4])
        e0 = 90.0 - abs(lat - 23.44 * np.sin(np.radians(L)))
        out[0, i] = L
        out[1, i] = dpsi
        out[2, i] = e0 + refraction_correction(pressure, temp, e0, 0.5667)
        out[3, i] = equation_of_time(280.46 + 360007.7 * jme, L, dpsi, 23.44)


def position_threaded(unixtime, loc_args, numthreads):
    """Splits the times into chunks computed by threads, the loop releasing the GIL."""
    out = np.empty((4, unixtime.shape[0]))
    split0 = np.array_split(unixtime, numthreads)
    split2 = np.array_split(out, numthreads, axis=1)
    chunks = [[a0, loc_args, split2[i]] for i, a0 in enumerate(split0)]
    threads = [threading.Thread(target=position_loop, args=chunk) for chunk in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


TIMES = np.linspace(1.5e9, 1.5e9 + 86400 * 3, 37)
LOCATION = np.array([39.7, 67.0, 820.0, 11.0, 0.0])


def test_threaded_loop_matches_python():
    out = position_threaded(TIMES, LOCATION, 3)
    want = np.empty((4, TIMES.size))
    position_loop.py_func(TIMES, LOCATION, want)
    assert_same(want, out)


def test_radius_only_flag():
    loc = LOCATION.copy()
    loc[4] = 1.0
    got, want = np.zeros((4, TIMES.size)), np.zeros((4, TIMES.size))
    position_loop(TIMES, loc, got)
    position_loop.py_func(TIMES, loc, want)
    assert_same(want, got)


@pytest.mark.parametrize("f, args", [
    (julian_day_dt, (2024, 2, 29, 12, 30, 15, 500000)),
    (julian_day_dt, (1999, 12, 31, 23, 59, 59, 0)),
    (heliocentric_longitude, (0.0231,)),
    (radius_vector, (-0.0012,)),
    (longitude_nutation, (0.23, 100.0, 200.0, 300.0, 400.0, 500.0)),
    (refraction_correction, (1010.0, 10.0, 12.5, 0.5667)),
    (refraction_correction, (1010.0, 10.0, -5.0, 0.5667)),
    (equation_of_time, (300.0, 10.0, 0.001, 23.4)),
    (equation_of_time, (10.0, 300.0, 0.001, 23.4)),
], ids=lambda v: getattr(v, "__name__", None))
def test_scalar_steps(f, args):
    check(f.py_func, *args, jit=f)
