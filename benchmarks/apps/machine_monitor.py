"""Machine monitor: four sensor chains, sixteen loop kernels, one board's block RAM.

A condition-monitoring node reads four sensors of a motor per cycle and runs each through its
own chain of four interpreted integer loops: the accelerometer is high-passed, despiked,
enveloped and reduced to frame peaks; the microphone is pre-emphasised, low-passed with an
8-tap FIR, decimated and reduced to frame energies; the motor current is calibrated,
slew-limited and turned into zero-crossing periods; the tachometer is debounced, turned into
edges, pulse widths and a width histogram. Every stage hands its whole array to the next, so
neighbouring stages can run as AXI-Stream chains, and a kernel built whole keeps its input and output
in on-chip block RAM: 12 to 108 BRAM18 a kernel, by the sizes and types of its arrays.

What makes the decision hard: sixteen kernels, and the PYNQ-Z2's 224 usable BRAM18 hold four or
five of them with their arrays on chip. Each can also be built tiled (`tiled` variants: a few
BRAM18, rows moved through DDR a tile at a time, slower by the copies), so all of them fit, and
the question is which few keep their arrays whole. Taking the fastest variant of the hottest first
puts the FIR and the pre-emphasis on chip whole and the block RAM is full; tiling a dozen stages
and keeping one or two small ones whole is several times faster. Single moves (one stage in or
out, or another variant) cannot make that trade, nor most trades between the many assignments a
few percent apart, so random-restart local search ends in one of them. The KV260 (about as much
block RAM, a faster CPU) and the Ultra96-V2 (half as much again) each want a different assignment.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

VIB = 24576  # accelerometer samples per cycle
MIC = 36864  # microphone samples
CUR = 16384  # motor-current samples
TACH = 12288  # tachometer samples
FRAME = 64
CYCLES = 2


# --- accelerometer: DC removal, 3-point median, absolute envelope, frame peaks
def vib_dc(x: np.ndarray) -> np.ndarray:
    """Subtract a running mean (a one-pole high-pass in integer arithmetic)."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    mean = np.int32(0)
    for i in range(x.shape[0]):
        v = np.int32(x[i])
        mean += (v - mean) >> 5
        y[i] = v - mean
    return y


def vib_median(x: np.ndarray) -> np.ndarray:
    """3-point median (the ends are copied)."""
    n = x.shape[0]
    y = np.zeros(n, dtype=np.int16)
    y[0] = x[0]
    y[n - 1] = x[n - 1]
    for i in range(1, n - 1):
        a = x[i - 1]
        b = x[i]
        c = x[i + 1]
        y[i] = max(min(a, b), min(max(a, b), c))
    return y


def vib_envelope(x: np.ndarray) -> np.ndarray:
    """Peak-hold envelope of |x| with an exponential release, as int32."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    env = np.int32(0)
    for i in range(x.shape[0]):
        v = abs(np.int32(x[i]))
        if v > env:
            env = v
        else:
            env -= env >> 6
        y[i] = env
    return y


def vib_peaks(x: np.ndarray) -> np.ndarray:
    """The largest envelope value per frame."""
    out = np.zeros(x.shape[0] // FRAME, dtype=np.int32)
    for f in range(x.shape[0] // FRAME):
        best = np.int32(0)
        for i in range(FRAME):
            v = x[f * FRAME + i]
            if v > best:
                best = v
        out[f] = best
    return out


# --- microphone: pre-emphasis, 8-tap low-pass, 4:1 decimation, frame energy
def mic_preemph(x: np.ndarray) -> np.ndarray:
    """y[n] = x[n] - 15/16 x[n-1], in int32 (the difference of two int16 samples can exceed int16)."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    prev = np.int32(0)
    for i in range(x.shape[0]):
        v = np.int32(x[i])
        y[i] = v - ((15 * prev) >> 4)
        prev = v
    return y


def mic_lowpass(x: np.ndarray) -> np.ndarray:
    """8-tap FIR in Q8 (zero before the start)."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    for n in range(x.shape[0]):
        acc = np.int32(0)
        for k in range(8):
            if n >= k:
                acc += np.int32(x[n - k]) * np.int32(LOWPASS[k])
        y[n] = acc >> 8
    return y


def mic_decimate(x: np.ndarray) -> np.ndarray:
    """Sum of every 4 samples."""
    y = np.zeros(x.shape[0] // 4, dtype=np.int32)
    for i in range(x.shape[0] // 4):
        y[i] = np.int32(x[4 * i]) + np.int32(x[4 * i + 1]) + np.int32(x[4 * i + 2]) + np.int32(x[4 * i + 3])
    return y


def mic_energy(x: np.ndarray) -> np.ndarray:
    """Sum of (x >> 4)^2 per frame."""
    out = np.zeros(x.shape[0] // FRAME, dtype=np.int32)
    for f in range(x.shape[0] // FRAME):
        acc = np.int32(0)
        for i in range(FRAME):
            v = x[f * FRAME + i] >> 4
            acc += v * v
        out[f] = acc
    return out


# --- motor current: offset and gain calibration, slew limiting, zero crossings, RMS per frame
def cur_calibrate(x: np.ndarray) -> np.ndarray:
    """(x - offset) * gain in Q10, saturated to int16."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    for i in range(x.shape[0]):
        v = ((np.int32(x[i]) - 37) * 1003) >> 10
        y[i] = min(max(v, -32768), 32767)
    return y


def cur_slew(x: np.ndarray) -> np.ndarray:
    """Follow x, moving at most 300 per sample."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    prev = np.int32(x[0])
    for i in range(x.shape[0]):
        d = np.int32(x[i]) - prev
        d = min(max(d, -300), 300)
        prev = prev + d
        y[i] = prev
    return y


def cur_crossings(x: np.ndarray) -> np.ndarray:
    """Index of every rising zero crossing, -1 past the last."""
    y = np.full(x.shape[0], -1, dtype=np.int32)
    k = 0
    for i in range(1, x.shape[0]):
        if x[i - 1] < 0 and x[i] >= 0:
            y[k] = i
            k += 1
    return y


def cur_periods(x: np.ndarray) -> np.ndarray:
    """Distance between successive crossings (0 where there is none)."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    for i in range(1, x.shape[0]):
        if x[i] >= 0 and x[i - 1] >= 0:
            y[i] = x[i] - x[i - 1]
    return y


# --- tachometer: debounce, edge detection, pulse widths, speed histogram
def tach_debounce(x: np.ndarray) -> np.ndarray:
    """A level that changes only after 3 equal samples."""
    y = np.zeros(x.shape[0], dtype=np.int8)
    level = 0
    run = 0
    for i in range(x.shape[0]):
        b = 1 if x[i] > 2048 else 0
        if b != level:
            run += 1
            if run >= 3:
                level = b
                run = 0
        else:
            run = 0
        y[i] = level
    return y


def tach_edges(x: np.ndarray) -> np.ndarray:
    """+1 at a rising edge, -1 at a falling one."""
    y = np.zeros(x.shape[0], dtype=np.int8)
    for i in range(1, x.shape[0]):
        y[i] = x[i] - x[i - 1]
    return y


def tach_widths(x: np.ndarray) -> np.ndarray:
    """Samples since the last rising edge, at every falling edge."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    since = 0
    for i in range(x.shape[0]):
        since += 1
        if x[i] == 1:
            since = 0
        elif x[i] == -1:
            y[i] = since
    return y


def tach_histogram(x: np.ndarray) -> np.ndarray:
    """Histogram of the pulse widths in 64 bins of 4 samples."""
    h = np.zeros(64, dtype=np.int32)
    for i in range(x.shape[0]):
        w = x[i]
        if w > 0:
            h[min(w >> 2, 63)] += 1
    return h


LOWPASS = np.array([12, 24, 36, 56, 56, 36, 24, 12], dtype=np.int16)


def synth(rng: np.random.Generator, n: int, period: float, amp: float) -> np.ndarray:
    t = np.arange(n)
    s = amp * np.sin(2 * np.pi * t / period) + rng.normal(0, amp / 10, n)
    return np.clip(s, -32768, 32767).astype(np.int16)


def main() -> dict:
    rng = np.random.default_rng(11)
    summary = []
    for cycle in range(CYCLES):
        vib = synth(rng, VIB, 37.0 + cycle, 5000.0)
        peaks = vib_peaks(vib_envelope(vib_median(vib_dc(vib))))
        mic = synth(rng, MIC, 11.0 + cycle, 3000.0)
        energy = mic_energy(mic_decimate(mic_lowpass(mic_preemph(mic))))
        cur = synth(rng, CUR, 200.0, 9000.0) + np.int16(40)
        periods = cur_periods(cur_crossings(cur_slew(cur_calibrate(cur))))
        tach = (synth(rng, TACH, 90.0 + 7 * cycle, 4000.0) > 0).astype(np.int16) * np.int16(4095)
        hist = tach_histogram(tach_widths(tach_edges(tach_debounce(tach))))
        summary.append((int(peaks.max()), int(energy.sum()), int(periods.max()), int(hist.argmax())))
        print(f"cycle {cycle}: " + " ".join(str(v) for v in summary[-1]))
    return {"summary": summary}


if __name__ == "__main__":
    main()
