"""Real-world patterns: a detector-physics signal-processing chain of generalized ufuncs.

Waveform processors written as pygama writes them: `@guvectorize` with a list of float32 and
float64 signature strings, a layout, `nopython=True, cache=True`, each output NaN-filled first
and left so when the waveform holds a NaN, and a user-defined exception class (DSPFatal) raised
from the kernel when a parameter is out of range. A trapezoidal filter and its pick-off, a
moving-window average (a float length used as a loop bound) and its multi-pass form that swaps
buffers with `.copy()`, an averaged derivative through slices (`w_in[k:] - w_in[:-k]`, `/=`), a
peak finder whose layout has no '->' (every output passed in, counts written through 1-element
views `n_out[0] = ...`) and a histogram of the same kind; and a multi-signature `@vectorize`.
Restated in our own words. One source runs with pyjit and with Numba (the same text, its names
bound to Numba's), and against plain Python looping over the waveforms.
"""
import numpy as np
import pytest

import pyjit
from util import numba_or_none

SOURCE = '''
class DSPFatal(Exception):
    """An error the processing chain cannot continue past."""


@guvectorize(["void(float32[:], int32, int32, float32[:])",
              "void(float64[:], int32, int32, float64[:])"],
             "(n),(),()->(n)", nopython=True, cache=True)
def trap_filter(w_in, rise, flat, w_out):
    w_out[:] = np.nan
    if np.isnan(w_in).any() or np.isnan(rise) or np.isnan(flat):
        return
    if int(rise) < 0:
        raise DSPFatal("The number of samples in the rise section must be positive")
    if 2 * int(rise) + int(flat) > len(w_in):
        raise DSPFatal("The trapezoid width is wider than the waveform")
    w_out[0] = w_in[0]
    for i in range(1, rise, 1):
        w_out[i] = w_out[i - 1] + w_in[i]
    for i in range(rise, rise + flat, 1):
        w_out[i] = w_out[i - 1] + w_in[i] - w_in[i - rise]
    for i in range(rise + flat, 2 * rise + flat, 1):
        w_out[i] = w_out[i - 1] + w_in[i] - w_in[i - rise] - w_in[i - rise - flat]
    for i in range(2 * rise + flat, len(w_in), 1):
        w_out[i] = (w_out[i - 1] + w_in[i] - w_in[i - rise] - w_in[i - rise - flat]
                    + w_in[i - 2 * rise - flat])


@guvectorize(["void(float32[:], int32, int32, float32, float32[:])",
              "void(float64[:], int32, int32, float64, float64[:])"],
             "(n),(),(),()->()", nopython=True, cache=True)
def trap_pickoff(w_in, rise, flat, t_pickoff, a_out):
    a_out[0] = np.nan
    if np.isnan(w_in).any() or np.isnan(t_pickoff):
        return
    if np.floor(t_pickoff) != t_pickoff:
        raise DSPFatal("The pick-off index must be an integer")
    start_time = int(t_pickoff + 1)
    if not len(w_in) >= start_time >= 2 * rise + flat:
        return
    I_1 = 0.
    I_2 = 0.
    for i in range(start_time - rise, start_time, 1):
        I_1 += w_in[i]
    for i in range(start_time - 2 * rise - flat, start_time - rise - flat, 1):
        I_2 += w_in[i]
    a_out[0] = (I_1 - I_2) / rise


@guvectorize(["void(float32[:], float32, float32[:])", "void(float64[:], float64, float64[:])"],
             "(n),()->(n)", nopython=True, cache=True)
def moving_window_left(w_in, length, w_out):
    w_out[:] = np.nan
    if np.isnan(w_in).any():
        return
    if not length >= 0 or not length < len(w_in):
        raise DSPFatal("length is out of range, must be between 0 and the length of the waveform")
    w_out[0] = w_in[0]
    for i in range(1, int(length)):
        w_out[i] = w_out[i - 1] + (w_in[i] - w_in[0]) / length
    for i in range(int(length), len(w_in)):
        w_out[i] = w_out[i - 1] + (w_in[i] - w_in[i - int(length)]) / length


@guvectorize(["void(float32[:], float32, float32, int32, float32[:])",
              "void(float64[:], float64, float64, int32, float64[:])"],
             "(n),(),(),()->(n)", nopython=True, cache=True)
def moving_window_multi(w_in, length, num_mw, mw_type, w_out):
    w_out[:] = np.nan
    if np.isnan(w_in).any():
        return
    if np.floor(length) != length:
        raise DSPFatal("The length of the moving window must be an integer")
    w_buf = w_in.copy()
    n = len(w_buf)
    for i in range(0, int(num_mw), 1):
        if ((i % 2 == 1) & (mw_type == 0)) | (mw_type == 2):
            w_out[-1] = w_buf[-1]
            for j in range(1, int(length), 1):
                w_out[n - 1 - j] = w_out[n - j] + (w_buf[n - 1 - j] - w_out[-1]) / length
            for j in range(int(length), n, 1):
                w_out[n - 1 - j] = (w_out[n - j]
                                    + (w_buf[n - 1 - j] - w_buf[n - 1 - j + int(length)]) / length)
        else:
            w_out[0] = w_buf[0]
            for j in range(1, int(length)):
                w_out[j] = w_out[j - 1] + (w_buf[j] - w_buf[0]) / length
            for j in range(int(length), n):
                w_out[j] = w_out[j - 1] + (w_buf[j] - w_buf[j - int(length)]) / length
        w_buf = w_out.copy()


@guvectorize(["void(float32[:], float32, float32[:])", "void(float64[:], float64, float64[:])"],
             "(n),(),(m)", nopython=True, cache=True)
def avg_current(w_in, length, w_out):
    w_out[:] = np.nan
    if np.isnan(w_in).any():
        return
    w_out[:] = w_in[int(length):] - w_in[:-int(length)]
    w_out /= length


@guvectorize(["void(float64[:], float64, float64, float64, float64[:], float64[:], float64[:], "
              "float64[:], float64[:])"],
             "(n),(),(),(),(m),(m),(),(),()", nopython=True, cache=True)
def local_extrema(w_in, a_delta_in, a_abs_max_in, a_abs_min_in, vt_max_out, vt_min_out,
                  n_max_out, n_min_out, flag_out):
    vt_max_out[:] = np.nan
    vt_min_out[:] = np.nan
    n_max_out[0] = np.nan
    n_min_out[0] = np.nan
    flag_out[0] = np.nan
    n_max = 0
    n_min = 0
    if np.isnan(w_in).any() or np.isnan(a_delta_in):
        return
    if not len(vt_max_out) < len(w_in) or not len(vt_min_out) < len(w_in):
        raise DSPFatal("The return arrays must be shorter than the waveform")
    if not a_delta_in >= 0:
        raise DSPFatal("a_delta_in must be positive")
    imax, imin = 0, 0
    find_max = True
    for i in range(len(w_in)):
        if w_in[i] > w_in[imax]:
            imax = i
        if w_in[i] < w_in[imin]:
            imin = i
        if find_max:
            if (w_in[i] < w_in[imax] - a_delta_in and int(n_max) < int(len(vt_max_out))
                    and w_in[imax] > a_abs_max_in):
                vt_max_out[int(n_max)] = imax
                n_max += 1
                imin = i
                find_max = False
        else:
            if (w_in[i] > w_in[imin] + a_delta_in and int(n_min) < int(len(vt_min_out))
                    and w_in[imin] < a_abs_min_in):
                vt_min_out[int(n_min)] = imin
                n_min += 1
                imax = i
                find_max = True
    n_max_out[0] = n_max
    n_min_out[0] = n_min
    flag_out[0] = 1 if n_max_out[0] == 1 else 0


@guvectorize(["void(float32[:], float32[:], float32[:])",
              "void(float64[:], float64[:], float64[:])"],
             "(n),(m),(p)", nopython=True, cache=True)
def histogram_of(w_in, weights_out, borders_out):
    if len(weights_out) + 1 != len(borders_out):
        raise DSPFatal("length borders_out must be exactly 1 + length of weights_out")
    weights_out[:] = 0
    borders_out[:] = np.nan
    if np.isnan(w_in).any():
        return
    borders_out[0] = min(w_in)
    bin_in = len(weights_out)
    delta = (max(w_in) - min(w_in)) / bin_in
    for i in range(0, bin_in, 1):
        borders_out[i + 1] = min(w_in) + delta * (i + 1)
    for i in range(0, len(w_in), 1):
        for k in range(1, len(borders_out), 1):
            if (w_in[i] - borders_out[k]) < 0:
                weights_out[k - 1] += 1
                break


@vectorize(["float64(float64, float64)", "float32(float32, float32)"], nopython=True, cache=True)
def soft_threshold(x, t):
    if abs(x) <= t:
        return 0.0
    return x - t if x > 0 else x + t
'''


def _python_guvectorize(signatures, layout, **options):
    """guvectorize for plain Python: the kernel called waveform by waveform (the operands here
    are a 2-d batch and scalars); outputs after '->' are made, '()' ones as 1-element views."""
    ins, _, outs = layout.partition("->")
    core_in = [g.strip("()").split(",") if g.strip("()") else [] for g in ins.split("),")]
    core_out = [g.strip("()").split(",") if g.strip("()") else [] for g in outs.split("),")] \
        if outs else []

    def decorate(kernel):
        def call(*args):
            args = list(args)
            batch = args[0].shape[0]
            made = []
            for core in core_out:
                n = args[0].shape[1] if core else 1
                made.append(np.empty((batch, n), dtype=args[0].dtype))
            operands = args + made
            cores = core_in + core_out
            for b in range(batch):
                row = []
                for a, core in zip(operands, cores):
                    if not isinstance(a, np.ndarray):
                        row.append(a)
                    elif core:
                        row.append(a[b])
                    else:
                        row.append(a[b:b + 1])
                kernel(*row)
            made = [m if core else m[:, 0] for m, core in zip(made, core_out)]
            return made[0] if len(made) == 1 else (tuple(made) if made else None)
        return call
    return decorate


def _python_vectorize(signatures, **options):
    return lambda f: np.vectorize(f, otypes=[np.float64])


def _namespace(flavour):
    ns = {"np": np}
    if flavour == "pyjit":
        ns.update(guvectorize=pyjit.guvectorize, vectorize=pyjit.vectorize)
    elif flavour == "numba":
        import numba
        ns.update(guvectorize=numba.guvectorize, vectorize=numba.vectorize)
    else:
        ns.update(guvectorize=_python_guvectorize, vectorize=_python_vectorize)
    # Numba caches only functions read from a file: compiled from this text, its cache is off
    source = SOURCE.replace("cache=True", "cache=False") if flavour == "numba" else SOURCE
    exec(compile(source, f"<signal-processing chain, {flavour}>", "exec"), ns)  # noqa: S102
    return ns


@pytest.fixture(scope="module")
def flavours():
    found = {"pyjit": _namespace("pyjit"), "python": _namespace("python")}
    if numba_or_none(pyjit.njit(lambda: 0)) is not None:
        found["numba"] = _namespace("numba")
    return found


rng = np.random.default_rng(31)
WAVES = np.cumsum(rng.normal(size=(4, 60)), axis=1)


def _extrema(ns, w):
    n = w.shape[0]
    outs = [np.zeros((n, 5)), np.zeros((n, 5)), np.zeros(n), np.zeros(n), np.zeros(n)]
    ns["local_extrema"](w, 0.8, -10.0, 10.0, *outs)
    return outs


def _histogram(ns, w):
    weights, borders = np.zeros((w.shape[0], 8), w.dtype), np.zeros((w.shape[0], 9), w.dtype)
    ns["histogram_of"](w, weights, borders)
    return weights, borders


def _avg_current(ns, w):
    out = np.zeros((w.shape[0], w.shape[1] - 3), w.dtype)
    ns["avg_current"](w, 3.0, out)
    return out


RUNS = {
    "trap_filter": lambda ns, w: ns["trap_filter"](w, 5, 3),
    "trap_pickoff": lambda ns, w: ns["trap_pickoff"](w, 5, 3, 30.0),
    "moving_window_left": lambda ns, w: ns["moving_window_left"](w, 6.0),
    "moving_window_multi": lambda ns, w: ns["moving_window_multi"](w, 4.0, 3.0, 0),
    "avg_current": _avg_current,
    "local_extrema": _extrema,
    "histogram_of": _histogram,
}


def _same(a, b, rtol):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, rtol)
    else:
        assert np.asarray(b).dtype == np.asarray(a).dtype
        np.testing.assert_allclose(b, a, rtol=rtol, atol=rtol)


# local_extrema is declared for float64 only, as written
COMBOS = [(n, d) for n in sorted(RUNS) for d in (np.float64, np.float32)
          if (n, d) != ("local_extrema", np.float32)]


@pytest.mark.parametrize("name, dtype", COMBOS, ids=[f"{n}-{d.__name__}" for n, d in COMBOS])
def test_processor_same_as_python_and_numba(flavours, name, dtype):
    w = WAVES.astype(dtype)
    w[2, 7] = np.nan   # a waveform with a NaN: its outputs stay NaN
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    want = RUNS[name](flavours["python"], w.copy())
    for flavour in ("pyjit", "numba"):
        if flavour in flavours:
            _same(want, RUNS[name](flavours[flavour], w.copy()), rtol)


def test_fatal_errors_raised_from_the_kernel(flavours):
    ns = flavours["pyjit"]
    with pytest.raises(ns["DSPFatal"], match="wider than the waveform"):
        ns["trap_filter"](WAVES[:, :12].copy(), 5, 3)
    with pytest.raises(ns["DSPFatal"], match="exactly 1 \\+ length"):
        ns["histogram_of"](WAVES, np.zeros((4, 8)), np.zeros((4, 8)))


def test_layout_without_outputs_is_a_gufunc_of_no_outputs(flavours):
    uf = flavours["pyjit"]["histogram_of"]
    assert (uf.nin, uf.nout, uf.signature) == (3, 0, "(n),(m),(p)")


def test_vectorize_of_two_signatures(flavours):
    x = rng.normal(size=12)
    want = flavours["python"]["soft_threshold"](x, 0.5)
    for dtype in (np.float64, np.float32):
        got = flavours["pyjit"]["soft_threshold"](x.astype(dtype), dtype(0.5))
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
