"""Audio filter chain: a two-tone recording with hum and noise goes through a DC-blocking
biquad, a windowed-sinc FIR low-pass, decimation, Goertzel tone detection, and a Q15 copy of
the FIR for the embedded target."""

# ruff: noqa: RUF007  (the corpus keeps the style of the code it imitates)
import math
from collections import namedtuple

import numpy as np

BiquadCoeffs = namedtuple("BiquadCoeffs", ["b0", "b1", "b2", "a1", "a2"])

SAMPLE_RATE = 8000.0


def synthesize(rng: np.random.Generator, n: int) -> np.ndarray:
    """440 Hz + 2.5 kHz tones, a DC offset and white noise."""
    t = np.arange(n) / SAMPLE_RATE
    return (
        0.6 * np.sin(2 * np.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 2500 * t) + 0.2 + rng.normal(0, 0.05, n)
    )


def highpass_coeffs(cutoff: float, q: float) -> BiquadCoeffs:
    """RBJ cookbook high-pass biquad, normalised by a0."""
    w0 = 2 * math.pi * cutoff / SAMPLE_RATE
    alpha = math.sin(w0) / (2 * q)
    cos_w0 = math.cos(w0)
    a0 = 1 + alpha
    return BiquadCoeffs(
        (1 + cos_w0) / 2 / a0, -(1 + cos_w0) / a0, (1 + cos_w0) / 2 / a0, -2 * cos_w0 / a0, (1 - alpha) / a0
    )


def biquad_df2t(x: np.ndarray, c: BiquadCoeffs) -> np.ndarray:
    """Transposed direct form II."""
    y = np.zeros(len(x))
    s1 = s2 = 0.0
    for i in range(len(x)):
        out = c.b0 * x[i] + s1
        s1 = c.b1 * x[i] - c.a1 * out + s2
        s2 = c.b2 * x[i] - c.a2 * out
        y[i] = out
    return y


def hann_window(n: int) -> list[float]:
    """Symmetric Hann window."""
    return [0.5 - 0.5 * math.cos(2 * math.pi * i / (n - 1)) for i in range(n)]


def lowpass_taps(num_taps: int, cutoff: float) -> list[float]:
    """Windowed-sinc low-pass FIR, unity DC gain."""
    fc = cutoff / SAMPLE_RATE
    window = hann_window(num_taps)
    mid = (num_taps - 1) / 2
    taps = [0.0] * num_taps
    for i in range(num_taps):
        k = i - mid
        sinc = 2 * fc if k == 0 else math.sin(2 * math.pi * fc * k) / (math.pi * k)
        taps[i] = sinc * window[i]
    total = sum(taps)
    return [t / total for t in taps]


def fir_filter(x: np.ndarray, h: list[float]) -> np.ndarray:
    """Direct-form FIR with zero initial state."""
    y = np.zeros(len(x))
    for n in range(len(x)):
        acc = 0.0
        for k in range(len(h)):
            if n >= k:
                acc += h[k] * x[n - k]
        y[n] = acc
    return y


def fir_q15(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The same FIR in Q15 with rounding and saturation."""
    y = np.zeros(len(x), dtype=np.int16)
    for n in range(len(x)):
        acc = 0
        for k in range(len(h)):
            if n >= k:
                acc += int(h[k]) * int(x[n - k])
        acc = (acc + (1 << 14)) >> 15
        y[n] = max(-32768, min(32767, acc))
    return y


def decimate(x: np.ndarray, factor: int) -> np.ndarray:
    """Keep every factor-th sample (the signal is already low-passed)."""
    out = np.zeros(len(x) // factor)
    for i in range(len(out)):
        out[i] = x[i * factor]
    return out


def goertzel_power(x: np.ndarray, freq: float, rate: float) -> float:
    """Power of the DFT bin nearest freq."""
    n = len(x)
    k = int(0.5 + n * freq / rate)
    coeff = 2 * math.cos(2 * math.pi * k / n)
    s1 = s2 = 0.0
    for v in x:
        s = v + coeff * s1 - s2
        s2, s1 = s1, s
    return s1 * s1 + s2 * s2 - coeff * s1 * s2


def rms(x: np.ndarray) -> float:
    """Root mean square."""
    return math.sqrt(sum(v * v for v in x) / len(x))


def zero_crossings(x: np.ndarray) -> int:
    """Sign changes."""
    return sum(1 for a, b in zip(x, x[1:]) if (a >= 0) != (b >= 0))


def main() -> None:
    rng = np.random.default_rng(11)
    x = synthesize(rng, 2048)
    no_dc = biquad_df2t(x, highpass_coeffs(40.0, 0.707))
    taps = lowpass_taps(31, 1000.0)
    low = fir_filter(no_dc, taps)
    slow = decimate(low, 4)
    rate = SAMPLE_RATE / 4
    p440 = goertzel_power(slow[-512:], 440.0, rate)
    p_noise = goertzel_power(slow[-512:], 800.0, rate)
    x_q15 = np.clip(np.round(no_dc * 16384), -32768, 32767).astype(np.int16)
    h_q15 = np.array([round(t * 32767) for t in taps], dtype=np.int16)
    low_q15 = fir_q15(x_q15, h_q15)
    err = np.abs(low_q15[64:] / 16384.0 - low[64:]).max()
    print(
        f"input rms {rms(x):.3f}, after DC block {rms(no_dc[256:]):.3f}, after low-pass {rms(low[256:]):.3f}"
    )
    print(f"zero crossings: input {zero_crossings(x)}, low-passed {zero_crossings(low)}")
    print(f"440 Hz / 800 Hz power ratio at {rate:.0f} Hz: {p440 / p_noise:.1f}")
    print(f"Q15 FIR max error {err:.5f}")


if __name__ == "__main__":
    main()
