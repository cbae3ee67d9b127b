"""Digital signal processing: filters, transforms, detectors and fixed-point helpers over
lists and 1-D numpy arrays, as written in DSP course notebooks, audio hobby projects and
algorithm collections."""

# ruff: noqa: RUF007  (the corpus keeps the style of the code it imitates)
import copy
import math
from collections import namedtuple

import numpy as np

BiquadCoeffs = namedtuple("BiquadCoeffs", ["b0", "b1", "b2", "a1", "a2"])

Q15_MAX = 32767
Q15_MIN = -32768


def fir_filter(x: list[float], h: list[float]) -> list[float]:
    """Direct-form FIR: y[n] = sum_k h[k] * x[n - k] (zero initial state)."""
    y = [0.0] * len(x)
    for n in range(len(x)):
        acc = 0.0
        for k in range(len(h)):
            if n - k >= 0:
                acc += h[k] * x[n - k]
        y[n] = acc
    return y


def fir_filter_q15(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Q15 FIR over int16 samples and taps; wide accumulator, rounding shift, saturation."""
    y = np.zeros(len(x), dtype=np.int16)
    taps = len(h)
    for n in range(len(x)):
        acc = 0
        for k in range(taps):
            if n >= k:
                acc += int(h[k]) * int(x[n - k])
        acc = (acc + (1 << 14)) >> 15
        if acc > Q15_MAX:
            acc = Q15_MAX
        elif acc < Q15_MIN:
            acc = Q15_MIN
        y[n] = acc
    return y


def biquad_filter(x: np.ndarray, b: tuple[float, float, float], a: tuple[float, float, float]) -> np.ndarray:
    """IIR biquad, direct form I, coefficients normalised by a[0]."""
    b0, b1, b2 = b[0] / a[0], b[1] / a[0], b[2] / a[0]
    a1, a2 = a[1] / a[0], a[2] / a[0]
    y = np.zeros(len(x))
    x1 = x2 = y1 = y2 = 0.0
    for n, xn in enumerate(x):
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        y[n] = yn
    return y


def biquad_df2t(x: np.ndarray, coeffs: BiquadCoeffs) -> np.ndarray:
    """IIR biquad, transposed direct form II, coefficients as a namedtuple."""
    out = np.empty_like(x)
    s1 = 0.0
    s2 = 0.0
    for i in range(len(x)):
        xn = x[i]
        yn = coeffs.b0 * xn + s1
        s1 = coeffs.b1 * xn - coeffs.a1 * yn + s2
        s2 = coeffs.b2 * xn - coeffs.a2 * yn
        out[i] = yn
    return out


def moving_average(x: list[float], window: int) -> list[float]:
    """Mean of each full window, with a running sum."""
    out = [0.0] * (len(x) - window + 1)
    running = sum(x[:window])
    out[0] = running / window
    for i in range(window, len(x)):
        running += x[i] - x[i - window]
        out[i - window + 1] = running / window
    return out


def exponential_moving_average(x: np.ndarray, alpha: float) -> np.ndarray:
    """s[0] = x[0]; s[n] = alpha * x[n] + (1 - alpha) * s[n - 1]."""
    s = np.zeros(len(x))
    s[0] = x[0]
    for n in range(1, len(x)):
        s[n] = alpha * x[n] + (1 - alpha) * s[n - 1]
    return s


def convolve_full(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Full linear convolution, length len(x) + len(h) - 1."""
    n, m = len(x), len(h)
    y = np.zeros(n + m - 1, dtype=np.int64)
    for i in range(n):
        for j in range(m):
            y[i + j] += int(x[i]) * int(h[j])
    return y


def convolve_valid(x: list[float], h: list[float]) -> list[float]:
    """'valid' convolution: only where h fully overlaps x."""
    n, m = len(x), len(h)
    out = [0.0] * (n - m + 1)
    for i in range(n - m + 1):
        s = 0.0
        for j in range(m):
            s += x[i + j] * h[m - 1 - j]
        out[i] = s
    return out


def cross_correlation(x: np.ndarray, y: np.ndarray, max_lag: int) -> np.ndarray:
    """r[lag + max_lag] = sum_n x[n] * y[n + lag] for -max_lag <= lag <= max_lag."""
    n = len(x)
    r = np.zeros(2 * max_lag + 1)
    for lag in range(-max_lag, max_lag + 1):
        s = 0.0
        for i in range(n):
            j = i + lag
            if 0 <= j < n:
                s += x[i] * y[j]
        r[lag + max_lag] = s
    return r


def autocorrelation(x: np.ndarray, max_lag: int) -> np.ndarray:
    """Normalised autocorrelation of the mean-removed signal for lags 0..max_lag."""
    n = len(x)
    mean = sum(x) / n
    centred = [v - mean for v in x]
    r = np.zeros(max_lag + 1)
    for lag in range(max_lag + 1):
        r[lag] = sum(centred[i] * centred[i + lag] for i in range(n - lag))
    if r[0] != 0:
        r = r / r[0]
    return r


def decimate(x: np.ndarray, factor: int) -> np.ndarray:
    """Average each block of `factor` samples (a boxcar anti-alias filter) and keep one."""
    n_out = len(x) // factor
    out = np.zeros(n_out)
    for i in range(n_out):
        out[i] = x[i * factor : (i + 1) * factor].mean()
    return out


def upsample(x: np.ndarray, factor: int) -> np.ndarray:
    """Zero stuffing: factor - 1 zeros after every sample."""
    out = np.zeros(len(x) * factor, dtype=x.dtype)
    for i, v in enumerate(x):
        out[i * factor] = v
    return out


def dft(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Naive O(N^2) DFT returning (real, imag)."""
    n = len(x)
    real = np.zeros(n)
    imag = np.zeros(n)
    for k in range(n):
        for t in range(n):
            angle = 2 * math.pi * k * t / n
            real[k] += x[t] * math.cos(angle)
            imag[k] -= x[t] * math.sin(angle)
    return real, imag


def dft_magnitude(x: np.ndarray) -> np.ndarray:
    """|X[k]| for the first N // 2 + 1 bins."""
    re, im = dft(x)
    half = len(x) // 2 + 1
    return np.sqrt(re[:half] ** 2 + im[:half] ** 2)


def fft_radix2(re: np.ndarray, im: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """In-place iterative radix-2 FFT (bit-reversal permutation, then butterflies)."""
    n = len(re)
    j = 0
    for i in range(1, n):
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j ^= bit
        if i < j:
            re[i], re[j] = re[j], re[i]
            im[i], im[j] = im[j], im[i]
    length = 2
    while length <= n:
        ang = -2 * math.pi / length
        for start in range(0, n, length):
            for k in range(length // 2):
                wr = math.cos(ang * k)
                wi = math.sin(ang * k)
                a = start + k
                b = a + length // 2
                tr = re[b] * wr - im[b] * wi
                ti = re[b] * wi + im[b] * wr
                re[b] = re[a] - tr
                im[b] = im[a] - ti
                re[a] += tr
                im[a] += ti
        length <<= 1
    return re, im


def goertzel(samples: np.ndarray, target_freq: float, sample_rate: float) -> float:
    """Power of one frequency bin by the Goertzel recurrence."""
    n = len(samples)
    k = int(0.5 + n * target_freq / sample_rate)
    omega = 2.0 * math.pi * k / n
    coeff = 2.0 * math.cos(omega)
    s_prev = 0.0
    s_prev2 = 0.0
    for sample in samples:
        s = sample + coeff * s_prev - s_prev2
        s_prev2 = s_prev
        s_prev = s
    return s_prev2**2 + s_prev**2 - coeff * s_prev * s_prev2


def rms(x: list[float]) -> float:
    """Root mean square."""
    return math.sqrt(sum(v * v for v in x) / len(x))


def zero_crossings(x: list[float]) -> int:
    """Sign changes between consecutive samples (zero counts as positive)."""
    count = 0
    for a, b in zip(x, x[1:]):
        if (a >= 0) != (b >= 0):
            count += 1
    return count


def count_peaks(x: np.ndarray, threshold: float) -> int:
    """Samples above threshold that are strictly greater than both neighbours."""
    peaks = 0
    for i in range(1, len(x) - 1):
        if x[i] > threshold and x[i] > x[i - 1] and x[i] > x[i + 1]:
            peaks += 1
    return peaks


def envelope(x: np.ndarray, attack: float, release: float) -> np.ndarray:
    """Peak envelope follower with separate attack and release coefficients."""
    env = np.zeros(len(x))
    level = 0.0
    for i in range(len(x)):
        v = abs(x[i])
        if v > level:
            level = attack * level + (1 - attack) * v
        else:
            level = release * level + (1 - release) * v
        env[i] = level
    return env


def saturate_q15(v: int) -> int:
    """Clamp to the int16 range."""
    return max(Q15_MIN, min(Q15_MAX, v))


def q15_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise Q15 product with rounding and saturation (-1 * -1 saturates)."""
    out = np.zeros(len(a), dtype=np.int16)
    for i in range(len(a)):
        p = (int(a[i]) * int(b[i]) + 0x4000) >> 15
        out[i] = saturate_q15(p)
    return out


def saturating_add_int16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mix two int16 signals without wrap-around."""
    out = np.empty_like(a)
    for i in range(len(a)):
        out[i] = saturate_q15(int(a[i]) + int(b[i]))
    return out


def cic_decimator(x: np.ndarray, decimation: int, stages: int) -> np.ndarray:
    """CIC decimator: `stages` integrators at the input rate, `stages` combs at the output rate."""
    integrators = [0] * stages
    delays = [0] * stages
    out = np.zeros(len(x) // decimation, dtype=np.int64)
    k = 0
    for n in range(len(x)):
        v = int(x[n])
        for s in range(stages):
            integrators[s] += v
            v = integrators[s]
        if (n + 1) % decimation == 0:
            for s in range(stages):
                diff = v - delays[s]
                delays[s] = v
                v = diff
            out[k] = v
            k += 1
    return out


def hann_window(n: int) -> list[float]:
    """Symmetric Hann window of n points."""
    return [0.5 - 0.5 * math.cos(2 * math.pi * i / (n - 1)) for i in range(n)]


def hamming_window(n: int) -> np.ndarray:
    """Symmetric Hamming window of n points."""
    k = np.arange(n)
    return 0.54 - 0.46 * np.cos(2 * np.pi * k / (n - 1))


def dot_product(a: list[float], b: list[float]) -> float:
    """Sum of the element-wise products."""
    return sum(x * y for x, y in zip(a, b))


def signal_energy(x: np.ndarray) -> int:
    """Sum of squares of an int16 signal (exact integer)."""
    energy = 0
    for v in x:
        energy += int(v) ** 2
    return energy


def normalise(x: list[float]) -> list[float]:
    """Scale to a peak of 1.0 (unchanged if silent)."""
    peak = max(abs(v) for v in x)
    if peak == 0:
        return list(x)
    return [v / peak for v in x]


def remove_dc(x: np.ndarray) -> np.ndarray:
    """Subtract the mean."""
    return x - np.mean(x)


def lms_filter(x: np.ndarray, d: np.ndarray, mu: float, taps: int) -> tuple[np.ndarray, np.ndarray]:
    """LMS adaptive FIR: returns (error signal, final weights)."""
    w = np.zeros(taps)
    e = np.zeros(len(x))
    for n in range(taps - 1, len(x)):
        window = x[n - taps + 1 : n + 1][::-1]
        y = np.dot(w, window)
        e[n] = d[n] - y
        w = w + 2 * mu * e[n] * window
    return e, w


def echo(x: list[float], delay: int, gain: float) -> list[float]:
    """Feedback echo with a circular delay line."""
    buf = [0.0] * delay
    idx = 0
    out = [0.0] * len(x)
    for i, v in enumerate(x):
        y = v + gain * buf[idx]
        buf[idx] = y
        idx = (idx + 1) % delay
        out[i] = y
    return out


def median3(x: np.ndarray) -> np.ndarray:
    """3-point running median (end samples kept)."""
    y = x.copy()
    for i in range(1, len(x) - 1):
        a, b, c = x[i - 1], x[i], x[i + 1]
        y[i] = max(min(a, b), min(max(a, b), c))
    return y


def sigma_delta(x: np.ndarray) -> np.ndarray:
    """First-order sigma-delta modulation of samples in [-1, 1] to a 0/1 bit stream."""
    bits = np.zeros(len(x), dtype=np.uint8)
    integrator = 0.0
    feedback = 0.0
    for i in range(len(x)):
        integrator += x[i] - feedback
        if integrator >= 0:
            bits[i] = 1
            feedback = 1.0
        else:
            bits[i] = 0
            feedback = -1.0
    return bits


def mu_law_encode(x: np.ndarray, mu: int = 255) -> np.ndarray:
    """mu-law companding of samples in [-1, 1] to 0..mu integer codes."""
    out = np.zeros(len(x), dtype=np.uint8)
    for i in range(len(x)):
        v = x[i]
        y = math.copysign(math.log1p(mu * abs(v)) / math.log1p(mu), v)
        out[i] = int((y + 1) / 2 * mu + 0.5)
    return out


def find_peaks(x: np.ndarray, threshold: float) -> list[int]:
    """Indices of the local maxima above threshold."""
    peaks = []
    for i in range(1, len(x) - 1):
        if x[i] > threshold and x[i - 1] < x[i] >= x[i + 1]:
            peaks.append(i)
    return peaks


def fft_recursive(x: list[complex]) -> list[complex]:
    """Cooley-Tukey radix-2 FFT by recursion on the even and odd halves."""
    n = len(x)
    if n == 1:
        return x
    even = fft_recursive(x[0::2])
    odd = fft_recursive(x[1::2])
    out = [0j] * n
    for k in range(n // 2):
        t = complex(math.cos(-2 * math.pi * k / n), math.sin(-2 * math.pi * k / n)) * odd[k]
        out[k] = even[k] + t
        out[k + n // 2] = even[k] - t
    return out


def dominant_frequencies(x: np.ndarray, sample_rate: float, count: int) -> dict[float, float]:
    """The `count` strongest bins as {frequency in Hz: magnitude}."""
    mags = dft_magnitude(x)
    order = sorted(range(len(mags)), key=lambda k: mags[k], reverse=True)
    return {k * sample_rate / len(x): float(mags[k]) for k in order[:count]}


def blocks(x: np.ndarray, size: int):
    """Yield consecutive blocks of `size` samples."""
    for start in range(0, len(x) - size + 1, size):
        yield x[start : start + size]


def block_rms(x: np.ndarray, size: int) -> np.ndarray:
    """RMS of each block, through the block generator."""
    return np.array([math.sqrt(float(np.mean(b * b))) for b in blocks(x, size)])


def _tone(rng, n, fs=8000.0):
    t = np.arange(n) / fs
    f = rng.uniform(200, 1500)
    return np.sin(2 * np.pi * f * t) + 0.3 * rng.normal(size=n)


def _floats(rng, n, scale=1.0):
    return [float(v) for v in rng.normal(0, scale, n)]


def _i16(rng, n, lo=-32768, hi=32768):
    return rng.integers(lo, hi, n).astype(np.int16)


def _lowpass_taps(m):
    h = np.array(hann_window(m)) * np.sinc(np.arange(m) / 4.0 - (m - 1) / 8.0)
    return h / h.sum()


_BQ = (0.0675, 0.135, 0.0675, -1.143, 0.4128)

N = 256  # one block length for every call, as a streaming app would have


def _extremes16(rng, n):
    """int16 samples with the corner values (-32768, 32767, 0, -1) at the start."""
    x = _i16(rng, n)
    x[:4] = (-32768, 32767, 0, -1)
    return x


def _lms_call(rng, mu):
    x = rng.normal(size=300)
    return x, np.convolve(x, [0.5, -0.3, 0.1])[: len(x)], mu, 8


INPUTS = {
    "fir_filter": lambda rng: [(_floats(rng, N), [float(v) for v in _lowpass_taps(16)]) for _ in range(3)],
    "fir_filter_q15": lambda rng: (
        [(_extremes16(rng, N), np.round(_lowpass_taps(16) * 32767).astype(np.int16)) for _ in range(3)]
        + [(np.full(N, 32767, np.int16), np.full(16, 32767, np.int16))]
    ),
    "biquad_filter": lambda rng: (
        [(_tone(rng, N), (_BQ[0], _BQ[1], _BQ[2]), (1.0, _BQ[3], _BQ[4])) for _ in range(2)]
        + [(_tone(rng, N), (1.0, 0.0, 0.0), (2.0, 0.5, 0.0))]
    ),
    "biquad_df2t": lambda rng: (
        [(_tone(rng, N), BiquadCoeffs(*_BQ)) for _ in range(2)]
        + [(np.zeros(N), BiquadCoeffs(1.0, 0.0, 0.0, 0.0, 0.0))]
    ),
    "moving_average": lambda rng: [(_floats(rng, N), 8) for _ in range(3)],
    "exponential_moving_average": lambda rng: [(_tone(rng, N), a) for a in (0.1, 1.0, 0.5)],
    "convolve_full": lambda rng: [(_i16(rng, 128, -1000, 1000), _i16(rng, 9, -100, 100)) for _ in range(3)],
    "convolve_valid": lambda rng: [(_floats(rng, 128), _floats(rng, 9)) for _ in range(3)],
    "cross_correlation": lambda rng: [(_tone(rng, 128), _tone(rng, 128), 16) for _ in range(3)],
    "autocorrelation": lambda rng: [(_tone(rng, N), 32) for _ in range(3)],
    "decimate": lambda rng: [(_tone(rng, N), 4) for _ in range(3)],
    "upsample": lambda rng: [(_extremes16(rng, 64), 4) for _ in range(3)],
    "dft": lambda rng: [(_tone(rng, 64),) for _ in range(3)],
    "dft_magnitude": lambda rng: [(_tone(rng, 64),) for _ in range(3)],
    "fft_radix2": lambda rng: (
        [(_tone(rng, N), np.zeros(N)) for _ in range(2)] + [(_tone(rng, N), _tone(rng, N))]
    ),
    "goertzel": lambda rng: [(_tone(rng, 205), f, 8000.0) for f in (697.0, 1209.0, 1000.0)],
    "rms": lambda rng: [(_floats(rng, N),) for _ in range(3)],
    "zero_crossings": lambda rng: [(_floats(rng, N),) for _ in range(3)] + [([0.0, -1.0] * (N // 2),)],
    "count_peaks": lambda rng: [(_tone(rng, N), t) for t in (0.5, 0.0, -10.0)],
    "envelope": lambda rng: [(_tone(rng, N), 0.5, 0.99) for _ in range(3)],
    "q15_multiply": lambda rng: [(_extremes16(rng, 128), _extremes16(rng, 128)) for _ in range(3)],
    "saturating_add_int16": lambda rng: [(_extremes16(rng, 128), _extremes16(rng, 128)) for _ in range(3)],
    "cic_decimator": lambda rng: [(_i16(rng, 512, -2048, 2048), 8, 3) for _ in range(3)],
    "hann_window": lambda rng: [(64,) for _ in range(3)],
    "hamming_window": lambda rng: [(64,) for _ in range(3)],
    "dot_product": lambda rng: [(_floats(rng, N), _floats(rng, N)) for _ in range(3)],
    "signal_energy": lambda rng: [(_extremes16(rng, N),) for _ in range(3)],
    "normalise": lambda rng: [(_floats(rng, 64, 5.0),) for _ in range(3)] + [([0.0] * 64,)],
    "remove_dc": lambda rng: [(_tone(rng, 64) + 3.0,) for _ in range(3)],
    "lms_filter": lambda rng: [_lms_call(rng, mu) for mu in (0.01, 0.05, 0.0)],
    "echo": lambda rng: [(_floats(rng, 400), 50, g) for g in (0.5, 0.9, -0.3)],
    "median3": lambda rng: [(_extremes16(rng, 64),) for _ in range(3)],
    "sigma_delta": lambda rng: [(np.clip(_tone(rng, N) / 2, -1, 1),) for _ in range(3)],
    "mu_law_encode": lambda rng: (
        [(np.clip(rng.normal(0, 0.4, 128), -1, 1),) for _ in range(3)] + [(np.linspace(-1.0, 1.0, 128),)]
    ),
    "find_peaks": lambda rng: [(_tone(rng, N), t) for t in (0.5, 0.0, -10.0)],
    "fft_recursive": lambda rng: [([complex(v) for v in _tone(rng, 64)],) for _ in range(3)],
    "dominant_frequencies": lambda rng: [(_tone(rng, 64), 8000.0, c) for c in (3, 1, 9)],
    "block_rms": lambda rng: [(_tone(rng, N), 32) for _ in range(3)],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE.update(
    {
        "find_peaks": "out: list.append with a data-dependent count",
        "fft_recursive": "out: recursion over list slices, complex numbers",
        "dominant_frequencies": "out: sorted() with a key lambda and a dict keyed by floats",
        "block_rms": "out: a generator (yield) consumed by a list comprehension",
    }
)


def _shape(v):
    """What must agree between the calls of one function: array dtype and shape, list structure."""
    if isinstance(v, np.ndarray):
        return ("ndarray", v.dtype.str, v.shape)
    if isinstance(v, (list, tuple)) and any(isinstance(e, (list, tuple, np.ndarray)) for e in v):
        return (type(v).__name__, tuple(_shape(e) for e in v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, len(v))
    return type(v).__name__


def _run_inputs(check=None):
    """Call every INPUTS case on copies of its arguments; check(name, args, result) when given.
    Every call of a function passes arrays and lists of the same shapes (as one app would)."""
    assert set(INPUTS) == set(SCOPE), set(INPUTS) ^ set(SCOPE)
    for k, (name, make) in enumerate(sorted(INPUTS.items())):
        calls = make(np.random.default_rng(2024 + k))
        assert len(calls) >= 3, name
        assert len({tuple(_shape(a) for a in args) for args in calls}) == 1, (
            name,
            [[_shape(a) for a in c] for c in calls],
        )
        for args in calls:
            result = globals()[name](*copy.deepcopy(args))
            if check is not None:
                check(name, args, result)


def _lfilter(b, a, x):
    y = np.zeros(len(x))
    for n in range(len(x)):
        acc = sum(b[k] * x[n - k] for k in range(len(b)) if n - k >= 0)
        acc -= sum(a[k] * y[n - k] for k in range(1, len(a)) if n - k >= 0)
        y[n] = acc / a[0]
    return y


def _selfcheck():
    def check(name, a, r):
        x = a[0]
        if name == "fir_filter":
            assert np.allclose(r, np.convolve(x, a[1])[: len(x)])
        elif name == "fir_filter_q15":
            full = np.convolve(x.astype(np.int64), a[1].astype(np.int64))[: len(x)]
            assert np.array_equal(r, np.clip((full + (1 << 14)) >> 15, -32768, 32767))
        elif name == "biquad_filter":
            assert np.allclose(r, _lfilter(a[1], a[2], x))
        elif name == "biquad_df2t":
            c = a[1]
            assert np.allclose(r, _lfilter([c.b0, c.b1, c.b2], [1.0, c.a1, c.a2], x))
        elif name == "moving_average":
            assert np.allclose(r, np.convolve(x, np.ones(a[1]) / a[1], mode="valid"))
        elif name == "exponential_moving_average":
            al = a[1]
            assert np.allclose(
                r, _lfilter([al], [1.0, al - 1.0], x) + (1 - al) ** np.arange(1, len(x) + 1) * x[0]
            )
        elif name == "convolve_full":
            assert np.array_equal(r, np.convolve(x.astype(np.int64), a[1].astype(np.int64)))
        elif name == "convolve_valid":
            assert np.allclose(r, np.convolve(x, a[1], mode="valid"))
        elif name == "cross_correlation":
            n, lag = len(x), a[2]
            full = np.correlate(a[1], x, mode="full")  # index n - 1 + l holds sum x[i] y[i + l]
            assert np.allclose(r, full[n - 1 - lag : n + lag])
        elif name == "autocorrelation":
            c = x - x.mean()
            full = np.correlate(c, c, mode="full")[len(x) - 1 : len(x) + a[1]]
            assert np.allclose(r, full / full[0])
        elif name == "decimate":
            f = a[1]
            assert np.allclose(r, x[: len(x) // f * f].reshape(-1, f).mean(axis=1))
        elif name == "upsample":
            assert np.array_equal(r[:: a[1]], x) and r.sum() == x.sum()
        elif name == "dft":
            f = np.fft.fft(x)
            assert np.allclose(r[0], f.real) and np.allclose(r[1], f.imag)
        elif name == "dft_magnitude":
            assert np.allclose(r, np.abs(np.fft.rfft(x)))
        elif name == "fft_radix2":
            f = np.fft.fft(a[0] + 1j * a[1])
            assert np.allclose(r[0], f.real) and np.allclose(r[1], f.imag)
        elif name == "goertzel":
            k = int(0.5 + len(x) * a[1] / a[2])
            assert np.isclose(r, abs(np.fft.fft(x)[k]) ** 2)
        elif name == "rms":
            assert math.isclose(r, float(np.sqrt(np.mean(np.square(x)))))
        elif name == "zero_crossings":
            s = np.array(x) >= 0
            assert r == int(np.sum(s[1:] != s[:-1]))
        elif name == "count_peaks":
            assert r == len(_find_peaks_strict(x, a[1]))
        elif name == "envelope":
            assert r.shape == x.shape and np.all(r >= 0) and r.max() <= np.abs(x).max() + 1e-12
        elif name == "q15_multiply":
            p = (a[0].astype(np.int64) * a[1].astype(np.int64) + 0x4000) >> 15
            assert np.array_equal(r, np.clip(p, -32768, 32767))
        elif name == "saturating_add_int16":
            assert np.array_equal(r, np.clip(a[0].astype(int) + a[1].astype(int), -32768, 32767))
        elif name == "cic_decimator":
            rr, s = a[1], a[2]
            h = np.ones(rr, np.int64)
            y = x.astype(np.int64)
            for _ in range(s):
                y = np.convolve(y, h)[: len(x)]
            assert np.array_equal(r, y[rr - 1 :: rr][: len(x) // rr])
        elif name == "hann_window":
            assert np.allclose(r, np.hanning(x))
        elif name == "hamming_window":
            assert np.allclose(r, np.hamming(x))
        elif name == "dot_product":
            assert math.isclose(r, float(np.dot(x, a[1])), abs_tol=1e-9)
        elif name == "signal_energy":
            assert r == int(np.sum(x.astype(np.int64) ** 2))
        elif name == "normalise":
            assert max((abs(v) for v in r), default=0) in (0.0, 1.0) and np.allclose(
                np.array(r) * max(map(abs, x), default=0), x
            )
        elif name == "remove_dc":
            assert abs(r.mean()) < 1e-9
        elif name == "lms_filter":
            _e, w = r
            if a[2] > 0:
                assert np.allclose(w[:3], [0.5, -0.3, 0.1], atol=0.05)
        elif name == "echo":
            d, g = a[1], a[2]
            ref = list(x)
            for i in range(d, len(ref)):
                ref[i] += g * ref[i - d]
            assert np.allclose(r, ref)
        elif name == "median3":
            ref = x.copy()
            if len(x) > 2:
                ref[1:-1] = np.median(np.stack([x[:-2], x[1:-1], x[2:]]), axis=0)
            assert np.array_equal(r, ref)
        elif name == "sigma_delta":
            if len(x) >= 256:
                assert abs((2.0 * r - 1).mean() - x.mean()) < 0.05
        elif name == "mu_law_encode":
            y = np.sign(x) * np.log1p(255 * np.abs(x)) / np.log1p(255)
            assert np.array_equal(r, np.floor((y + 1) / 2 * 255 + 0.5).astype(np.uint8))
        elif name == "find_peaks":
            assert all(x[i] > a[1] and x[i] > x[i - 1] and x[i] >= x[i + 1] for i in r)
        elif name == "fft_recursive":
            assert np.allclose(r, np.fft.fft(x))
        elif name == "dominant_frequencies":
            assert len(r) == min(a[2], len(x) // 2 + 1)
        elif name == "block_rms":
            b = a[1]
            ref = np.sqrt((x[: len(x) // b * b].reshape(-1, b) ** 2).mean(axis=1))
            assert np.allclose(r, ref)
        else:
            raise AssertionError(f"no check for {name}")

    _run_inputs(check)
    print(f"dsp: {len(INPUTS)} cases OK")


def _find_peaks_strict(x, threshold):
    return [i for i in range(1, len(x) - 1) if x[i] > threshold and x[i] > x[i - 1] and x[i] > x[i + 1]]


if __name__ == "__main__":
    _selfcheck()
