"""Real-world patterns: audio effects written for Numba, restated in our own words with the
import switched: a feedback comb filter over a circular buffer and an allpass with a wrapping
index, a Schroeder reverb summing four combs (delays and gains as tuples zipped together, slices of
their outputs) through two allpasses, soft clipping as a two-signature `@vectorize` called from
compiled code, a bit crusher with sample-and-hold, tremolo by whole-array `np.sin`, a feed-forward
compressor with attack and release envelopes (`math.log10`, a conditional gain), an auto-wah
through a state-variable filter, an RMS envelope over float32 frames (`fastmath=True`) and
pitch shifting by linear resampling into float32. Each is compared with CPython running the same
source; the float32 results within float32's precision (CPython's NumPy scalars compute in
float32 where compiled code, as Numba's, computes in float64 and rounds when storing)."""
import math

import numpy as np
import pytest

import pyjit as nb  # noqa: F401
from pyjit import njit, float32, float64, vectorize
from util import check


@njit(cache=True)
def feedback_comb(x, delay, g):
    y = np.zeros(x.size + delay)
    buf = np.zeros(delay)
    idx = 0
    for n in range(y.size):
        xn = x[n] if n < x.size else 0.0
        out = xn + g * buf[idx]
        buf[idx] = out
        idx = (idx + 1) % delay
        y[n] = out
    return y

@njit(cache=True)
def allpass(x, delay, g):
    buf = np.zeros(delay)
    y = np.empty_like(x)
    k = 0
    for n in range(x.size):
        bd = buf[k]
        v = x[n] + g * bd
        y[n] = bd - g * v
        buf[k] = v
        k += 1
        if k == delay:
            k = 0
    return y

@njit
def schroeder_reverb(x, sr):
    delays = (int(0.0297 * sr), int(0.0371 * sr), int(0.0411 * sr), int(0.0437 * sr))
    gains = (0.773, 0.802, 0.753, 0.733)
    wet = np.zeros(x.size)
    for d, g in zip(delays, gains):
        wet += feedback_comb(x, d, g)[:x.size]
    wet = allpass(wet, int(0.005 * sr), 0.7)
    wet = allpass(wet, int(0.0017 * sr), 0.7)
    return 0.7 * x + 0.3 * wet / 4

@vectorize([float32(float32, float32), float64(float64, float64)])
def soft_clip(x, drive):
    return math.tanh(drive * x) / math.tanh(drive)

@njit
def bitcrush(x, bits, downsample):
    levels = 2 ** (bits - 1)
    y = np.empty_like(x)
    held = 0.0
    for n in range(x.size):
        if n % downsample == 0:
            held = np.round(x[n] * levels) / levels
        y[n] = held
    return y

@njit
def tremolo(x, sr, rate, depth):
    t = np.arange(x.size) / sr
    return x * (1.0 - depth * 0.5 * (1.0 + np.sin(2 * np.pi * rate * t)))

@njit
def compressor(x, sr, threshold_db, ratio, attack_ms, release_ms):
    a_att = math.exp(-1.0 / (sr * attack_ms * 1e-3))
    a_rel = math.exp(-1.0 / (sr * release_ms * 1e-3))
    env = 0.0
    gain = np.empty_like(x)
    for n in range(x.size):
        level = abs(x[n])
        coeff = a_att if level > env else a_rel
        env = coeff * env + (1.0 - coeff) * level
        db = 20.0 * math.log10(max(env, 1e-9))
        over = db - threshold_db
        gain[n] = 10.0 ** (-over * (1.0 - 1.0 / ratio) / 20.0) if over > 0 else 1.0
    return x * gain, gain

@njit
def wah_svf(x, sr, fmin, fmax, rate, q):
    y = np.empty_like(x)
    low = band = 0.0
    for n in range(x.size):
        fc = fmin + (fmax - fmin) * 0.5 * (1 + math.sin(2 * math.pi * rate * n / sr))
        f = 2.0 * math.sin(math.pi * fc / sr)
        high = x[n] - low - q * band
        band += f * high
        low += f * band
        y[n] = band
    return y

@njit(fastmath=True)
def rms_envelope(x, frame, hop):
    n = 1 + (x.size - frame) // hop
    out = np.empty(n, dtype=x.dtype)
    for i in range(n):
        seg = x[i * hop:i * hop + frame]
        out[i] = np.sqrt(np.mean(seg * seg))
    return out

@njit
def pitch_shift_resample(x, ratio):
    n_out = int(x.size / ratio)
    out = np.empty(n_out, dtype=np.float32)
    for i in range(n_out):
        pos = i * ratio
        j = int(pos)
        frac = pos - j
        if j + 1 < x.size:
            out[i] = (1 - frac) * x[j] + frac * x[j + 1]
        else:
            out[i] = x[-1]
    return out

sr = 8000
rng = np.random.default_rng(9)
sig = (np.sin(2 * np.pi * 220 * np.arange(2000) / sr) * np.exp(-np.arange(2000) / 800)).astype(np.float64)
def clip_call(x):
    return soft_clip(x, 3.0)
clip_j = njit(clip_call)
CASES = [
    ("comb", feedback_comb, (sig, 37, 0.6)),
    ("allpass", allpass, (sig, 23, 0.7)),
    ("reverb", schroeder_reverb, (sig, sr)),
    ("soft_clip", clip_j, (sig,)),
    ("bitcrush", bitcrush, (sig, 4, 3)),
    ("tremolo", tremolo, (sig, sr, 5.0, 0.5)),
    ("compressor", compressor, (sig, sr, -12.0, 4.0, 5.0, 50.0)),
    ("wah", wah_svf, (sig, sr, 300.0, 2000.0, 2.0, 0.5)),
    ("rms", rms_envelope, (sig.astype(np.float32), 256, 128)),
    ("pitch", pitch_shift_resample, (sig.astype(np.float32), 1.25)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_compiled_matches_python(name, f, args):
    single = name in ("rms", "pitch")
    check(f.py_func, *args, jit=f, rtol=1e-6 if single else None)
