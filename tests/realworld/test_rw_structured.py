"""Real-world patterns with NumPy structured arrays (record arrays).

Numba tutorials and simulation codes keep particles as one array of records (x, y, vx, vy, ...)
rather than one array per field, and step them in place in a compiled loop; data-processing codes
read a structured array loaded from a file (trades, events) and aggregate its fields per key.
Restated here in our own words. The one source below runs three ways: with pyjit, with Numba
(the same text), and in CPython; the results must agree.
"""
import numpy as np
import pytest

import pyjit
from util import numba_or_none

PARTICLE = np.dtype([("x", "f8"), ("y", "f8"), ("vx", "f8"), ("vy", "f8"), ("mass", "f8"),
                     ("bounces", "i4")])
TRADE = np.dtype([("ticker", "i4"), ("price", "f8"), ("qty", "i8"), ("side", "i1")])
SUMMARY = np.dtype([("volume", "i8"), ("notional", "f8"), ("vwap", "f8"), ("net", "i8")],
                   align=True)

SOURCE = '''
@njit
def wall(p, lo, hi):
    """Reflects one particle off the walls of the box [lo, hi]^2; counts the bounce."""
    if p["x"] < lo or p["x"] > hi:
        p["vx"] = -p["vx"]
        p["x"] = min(max(p["x"], lo), hi)
        p["bounces"] += 1
    if p["y"] < lo or p["y"] > hi:
        p["vy"] = -p["vy"]
        p["y"] = min(max(p["y"], lo), hi)
        p["bounces"] += 1


@njit
def step(particles, dt, gravity, steps):
    for _ in range(steps):
        for i in range(particles.shape[0]):
            p = particles[i]
            p["vy"] -= gravity * dt
            p["x"] += p["vx"] * dt
            p["y"] += p["vy"] * dt
            wall(p, 0.0, 1.0)
    energy = 0.0
    for p in particles:
        energy += 0.5 * p["mass"] * (p["vx"] ** 2 + p["vy"] ** 2) + p["mass"] * gravity * p["y"]
    return energy


@njit
def summarize(trades, nticker):
    out = np.zeros(nticker, dtype=SUMMARY)
    for i in range(trades.shape[0]):
        t = trades[i]
        s = out[t["ticker"]]
        s["volume"] += t["qty"]
        s["notional"] += t["price"] * t["qty"]
        s["net"] += t["qty"] if t["side"] > 0 else -t["qty"]
    for k in range(nticker):
        if out[k]["volume"] > 0:
            out[k]["vwap"] = out[k]["notional"] / out[k]["volume"]
    return out, trades["qty"].sum()
'''


def _namespace(flavour):
    ns = {"np": np, "SUMMARY": SUMMARY}
    if flavour == "pyjit":
        ns["njit"] = pyjit.njit
    elif flavour == "numba":
        import numba
        ns["njit"] = numba.njit
    else:
        ns["njit"] = lambda f: f
    exec(compile(SOURCE, f"<structured arrays, {flavour}>", "exec"), ns)  # noqa: S102
    return ns


@pytest.fixture(scope="module")
def flavours():
    found = {"pyjit": _namespace("pyjit"), "python": _namespace("python")}
    if numba_or_none(pyjit.njit(lambda: 0)) is not None:
        found["numba"] = _namespace("numba")
    return found


def _particles(n, seed):
    rng = np.random.default_rng(seed)
    p = np.zeros(n, dtype=PARTICLE)
    p["x"], p["y"] = rng.random(n), rng.random(n)
    p["vx"], p["vy"] = rng.normal(size=n), rng.normal(size=n)
    p["mass"] = rng.random(n) + 0.5
    return p


def _trades(n, nticker, seed):
    rng = np.random.default_rng(seed)
    t = np.zeros(n, dtype=TRADE)
    t["ticker"] = rng.integers(0, nticker, n)
    t["price"] = rng.random(n) * 100
    t["qty"] = rng.integers(1, 500, n)
    t["side"] = rng.choice([-1, 1], n)
    return t


@pytest.mark.parametrize("n, steps", [(1, 10), (50, 200), (0, 3)])
def test_particles_stepped_in_place(flavours, n, steps):
    start = _particles(n, n + steps)
    expected_p = start.copy()
    expected = flavours["python"]["step"](expected_p, 0.01, 9.81, steps)
    for name in ("pyjit", "numba"):
        if name not in flavours:
            continue
        p = start.copy()
        got = flavours[name]["step"](p, 0.01, 9.81, steps)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), name
        for field in PARTICLE.names:
            np.testing.assert_allclose(p[field], expected_p[field], rtol=1e-9, atol=1e-12,
                                       err_msg=f"{name}: field {field}")


@pytest.mark.parametrize("n, nticker", [(1000, 7), (1, 3), (0, 2)])
def test_trades_summarized_per_ticker(flavours, n, nticker):
    trades = _trades(n, nticker, n)
    expected, total = flavours["python"]["summarize"](trades, nticker)
    for name in ("pyjit", "numba"):
        if name not in flavours:
            continue
        got, got_total = flavours[name]["summarize"](trades.copy(), nticker)
        assert got.dtype == SUMMARY and got_total == total, name
        assert np.array_equal(got[["volume", "net"]], expected[["volume", "net"]]), name
        for field in ("notional", "vwap"):
            np.testing.assert_allclose(got[field], expected[field], rtol=1e-12,
                                       err_msg=f"{name}: field {field}")


def test_numba_ran_the_same_source(flavours):
    """Numba is installed with the tests (outside the sanitizer runs): the comparison ran."""
    if numba_or_none(pyjit.njit(lambda: 0)) is not None:
        assert "numba" in flavours
