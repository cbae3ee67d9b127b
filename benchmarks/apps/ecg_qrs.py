"""ECG QRS detection: a fourteen-stage Pan-Tompkins pipeline, one board's block RAM.

A patch monitor processes each ECG record (int16 from the ADC) the way the classic
Pan-Tompkins detector does, every stage an interpreted integer loop: lead-off repair,
pacemaker-spike rejection, a baseline-wander tracker and its subtraction, a mains comb, the
integer low-pass and high-pass filters, the five-point derivative, squaring, moving-window
integration, an adaptive threshold, beat onsets with a refractory period, RR intervals and
their histogram. Built whole, a kernel keeps its arrays in on-chip block RAM: 16 to 64 BRAM18, by their
types (int8 masks, int16 samples, int32 filter states).

What makes the decision hard: fourteen stages, and the PYNQ-Z2's 224 usable BRAM18 (the KV260's 230) hold five
or six of them with their arrays on chip. Each stage can also be built tiled (a few BRAM18, its rows moved
through DDR a tile at a time, slower by the copies), so all fit, and the question is which keep their arrays
whole. Four (derivative, low-pass, pace-reject, notch) carry most of the CPU time; built whole they fill the
block RAM and the rest stay on the CPU (what hottest-first gets). Tiling most stages and keeping the few that
save most per BRAM18 whole is about twice as fast; which those are is close and changes with the board.
Fourteen stages of five to eight variants are enough that random-restart single moves seldom find the best.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

N = 16384  # samples per record (int16 from the ADC)
RECORDS = 2


def lead_off(x: np.ndarray) -> np.ndarray:
    """Replace rail-clipped samples (lead off) by the last good one."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    last = np.int16(0)
    for i in range(x.shape[0]):
        v = x[i]
        if v > -32000 and v < 32000:
            last = v
        y[i] = last
    return y


def pace_reject(x: np.ndarray) -> np.ndarray:
    """Remove pacemaker spikes: a sample far from both neighbours takes their mean."""
    n = x.shape[0]
    y = np.zeros(n, dtype=np.int16)
    y[0] = x[0]
    y[n - 1] = x[n - 1]
    for i in range(1, n - 1):
        a = np.int32(x[i - 1])
        b = np.int32(x[i])
        c = np.int32(x[i + 1])
        if abs(b - a) > 2000 and abs(b - c) > 2000:
            y[i] = (a + c) >> 1
        else:
            y[i] = b
    return y


def baseline(x: np.ndarray) -> np.ndarray:
    """Baseline wander estimate: a slow one-pole low-pass, int32 in Q6."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    acc = np.int32(x[0]) << 6
    for i in range(x.shape[0]):
        acc += np.int32(x[i]) - (acc >> 6)
        y[i] = acc
    return y


def detrend(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x minus its baseline."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    for i in range(x.shape[0]):
        y[i] = np.int32(x[i]) - (b[i] >> 6)
    return y


def notch50(x: np.ndarray) -> np.ndarray:
    """Mains notch: the mean of samples 10 apart (a comb with its first zero at 50 Hz at 1 kHz)."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    for i in range(x.shape[0]):
        if i >= 10:
            y[i] = (np.int32(x[i]) + np.int32(x[i - 10])) >> 1
        else:
            y[i] = x[i]
    return y


def lowpass(x: np.ndarray) -> np.ndarray:
    """Pan-Tompkins low-pass: y[n] = 2y[n-1] - y[n-2] + x[n] - 2x[n-6] + x[n-12], int32."""
    n = x.shape[0]
    y = np.zeros(n, dtype=np.int32)
    for i in range(12, n):
        y[i] = 2 * y[i - 1] - y[i - 2] + np.int32(x[i]) - 2 * np.int32(x[i - 6]) + np.int32(x[i - 12])
    return y


def highpass(x: np.ndarray) -> np.ndarray:
    """Pan-Tompkins high-pass (all-pass minus a 32-point moving sum), scaled to int16."""
    n = x.shape[0]
    y = np.zeros(n, dtype=np.int16)
    acc = np.int32(0)
    for i in range(n):
        acc += x[i]
        if i >= 32:
            acc -= x[i - 32]
        if i >= 16:
            y[i] = (x[i - 16] - (acc >> 5)) >> 4
    return y


def derivative(x: np.ndarray) -> np.ndarray:
    """Five-point derivative (2x[n] + x[n-1] - x[n-3] - 2x[n-4]) / 8, int32."""
    n = x.shape[0]
    y = np.zeros(n, dtype=np.int32)
    for i in range(4, n):
        y[i] = (2 * np.int32(x[i]) + np.int32(x[i - 1]) - np.int32(x[i - 3]) - 2 * np.int32(x[i - 4])) >> 3
    return y


def square(x: np.ndarray) -> np.ndarray:
    """Squared derivative, saturated to 2^30."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    for i in range(x.shape[0]):
        v = min(abs(x[i]), 32767)
        y[i] = v * v
    return y


def integrate(x: np.ndarray) -> np.ndarray:
    """Moving-window integration over 30 samples."""
    n = x.shape[0]
    y = np.zeros(n, dtype=np.int32)
    acc = np.int32(0)
    for i in range(n):
        acc += x[i] >> 5
        if i >= 30:
            acc -= x[i - 30] >> 5
        y[i] = acc
    return y


def threshold(x: np.ndarray) -> np.ndarray:
    """Adaptive threshold: 1 where x exceeds a quarter of its slowly decaying peak."""
    y = np.zeros(x.shape[0], dtype=np.int8)
    peak = np.int32(0)
    for i in range(x.shape[0]):
        v = x[i]
        if v > peak:
            peak = v
        else:
            peak -= peak >> 9
        if v > (peak >> 2):
            y[i] = 1
    return y


def onsets(m: np.ndarray) -> np.ndarray:
    """1 at each rising edge of the mask after a 200-sample refractory period."""
    y = np.zeros(m.shape[0], dtype=np.int8)
    last = -1000
    for i in range(1, m.shape[0]):
        if m[i] == 1 and m[i - 1] == 0 and i - last > 200:
            y[i] = 1
            last = i
    return y


def rr_intervals(o: np.ndarray) -> np.ndarray:
    """Samples between successive onsets, at each onset (0 elsewhere), int16."""
    y = np.zeros(o.shape[0], dtype=np.int16)
    last = -1
    for i in range(o.shape[0]):
        if o[i] == 1:
            if last >= 0:
                y[i] = i - last
            last = i
    return y


def rr_histogram(r: np.ndarray) -> np.ndarray:
    """Histogram of the RR intervals in 64 bins of 32 samples."""
    h = np.zeros(64, dtype=np.int32)
    for i in range(r.shape[0]):
        v = r[i]
        if v > 0:
            h[min(v >> 5, 63)] += 1
    return h


def record(rng: np.random.Generator, k: int) -> np.ndarray:
    t = np.arange(N)
    beat = 700 + 40 * k
    s = 3000 * np.exp(-(((t % beat) - 100) ** 2) / 60.0)
    s += 800 * np.sin(2 * np.pi * t / 4000) + 300 * np.sin(2 * np.pi * t / 20) + rng.normal(0, 60, N)
    s[rng.integers(0, N, 8)] = 32767  # lead-off glitches
    return np.clip(s, -32768, 32767).astype(np.int16)


def main() -> dict:
    rng = np.random.default_rng(31)
    hists = []
    for k in range(RECORDS):
        x = pace_reject(lead_off(record(rng, k)))
        x = notch50(detrend(x, baseline(x)))
        e = integrate(square(derivative(highpass(lowpass(x)))))
        h = rr_histogram(rr_intervals(onsets(threshold(e))))
        hists.append(h.tolist())
        print(f"record {k}: {int(h.sum())} RR intervals, mode bin {int(h.argmax())}")
    return {"hists": hists}


if __name__ == "__main__":
    main()
