"""Seismic trigger: a thirteen-stage STA/LTA event detector, one board's block RAM.

A seismometer station's data logger scans each record of its vertical channel (int16 counts
from the digitiser) the way classic event triggers do, every stage an interpreted integer
loop: spike removal, a DC tracker and its subtraction, a high-pass and a moving-average
low-pass, the signal energy, the short-term and long-term averages of the energy, their
ratio, the on/off trigger with hysteresis, the event onsets, the event durations and their
histogram. Built whole, a kernel keeps its arrays in on-chip block RAM: 16 to 80 BRAM18, by
their types (int8 trigger states, int16 samples, int32 energies and averages).

What makes the decision hard: thirteen stages, and the block RAM of each board holds only some
of them whole. Each stage can also be built tiled (a few BRAM18, its record moved through DDR
a tile at a time, slower by the copies), so all fit, and the question is which keep their
arrays whole. The six hottest (spike removal, the DC tracker and its subtraction, both filters,
the energy) built whole and unrolled fill the PYNQ-Z2's 224 usable BRAM18; the averages, trigger
and the event stages stay on the CPU: what taking the hottest first gets. Tiling nearly every
stage and keeping only the moving average and the ratio whole is over three times as fast. Unlike
the pipelines of the other apps, the stages fork and join (the two averages both read the
energy, the onsets and the durations both read the trigger), so on two cores the makespan also
depends on which of them overlap. The KV260 (as much block RAM, a faster CPU) and the
Ultra96-V2 (half as much again) each want a different assignment.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

N = 16384  # samples per record (int16 from the digitiser)
RECORDS = 2
STA = 32  # short-term window, samples
LTA_SHIFT = 8  # long-term average: one pole, 1/256 per sample
ON_Q4 = 48  # trigger on at STA/LTA 3.0 (Q4)
OFF_Q4 = 24  # trigger off at STA/LTA 1.5 (Q4)
HOLD = 4  # samples above ON_Q4 before the trigger turns on


def despike(x: np.ndarray) -> np.ndarray:
    """A sample far from the line through its neighbours (a digitiser glitch) is put back on it;
    the ends are copied."""
    n = x.shape[0]
    y = x.copy()
    for i in range(1, n - 1):
        mid = (np.int32(x[i - 1]) + np.int32(x[i + 1])) >> 1
        if abs(np.int32(x[i]) - mid) > 6000:
            y[i] = mid
    return y


def dc_track(x: np.ndarray) -> np.ndarray:
    """The sensor's DC offset and drift: a slow one-pole low-pass, int32 in Q8."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    acc = np.int32(x[0]) << 8
    for i in range(x.shape[0]):
        acc += np.int32(x[i]) - (acc >> 8)
        y[i] = acc
    return y


def remove_dc(x: np.ndarray, dc: np.ndarray) -> np.ndarray:
    """The record minus its DC estimate, saturated to int16."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    for i in range(x.shape[0]):
        v = np.int32(x[i]) - (dc[i] >> 8)
        y[i] = min(max(v, -32768), 32767)
    return y


def highpass(x: np.ndarray) -> np.ndarray:
    """First-order high-pass (pole 31/32) against microseism and tilt."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    prev_x = np.int32(0)
    prev_y = np.int32(0)
    for i in range(x.shape[0]):
        v = np.int32(x[i])
        out = v - prev_x + ((prev_y * 31) >> 5)
        out = min(max(out, -32768), 32767)
        y[i] = out
        prev_x = v
        prev_y = out
    return y


def lowpass(x: np.ndarray) -> np.ndarray:
    """Eight-sample moving average against the digitiser's high-frequency noise."""
    n = x.shape[0]
    y = np.zeros(n, dtype=np.int16)
    for i in range(7, n):
        s = np.int32(0)
        for k in range(8):
            s += x[i - k]
        y[i] = s >> 3
    return y


def energy(x: np.ndarray) -> np.ndarray:
    """Squared amplitude, scaled down by 16 to leave the averages headroom."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    for i in range(x.shape[0]):
        v = np.int32(x[i])
        y[i] = (v * v) >> 4
    return y


def sta(e: np.ndarray) -> np.ndarray:
    """Short-term average of the energy over STA samples (a running sum)."""
    n = e.shape[0]
    y = np.zeros(n, dtype=np.int32)
    s = np.int32(0)
    for i in range(n):
        s += e[i]
        if i >= STA:
            s -= e[i - STA]
        y[i] = s >> 5
    return y


def lta(e: np.ndarray) -> np.ndarray:
    """Long-term average of the energy: one pole, 1/256 per sample."""
    y = np.zeros(e.shape[0], dtype=np.int32)
    acc = np.int32(0)
    for i in range(e.shape[0]):
        acc += (e[i] - acc) >> LTA_SHIFT
        y[i] = acc
    return y


def ratio(s: np.ndarray, lt: np.ndarray) -> np.ndarray:
    """STA/LTA in Q4, saturated to int16 (the first LTA window reads as quiet)."""
    n = s.shape[0]
    y = np.zeros(n, dtype=np.int16)
    for i in range(256, n):
        r = (s[i] << 4) // (lt[i] + 1)
        y[i] = min(r, 32767)
    return y


def trigger(r: np.ndarray) -> np.ndarray:
    """On after HOLD samples in a row above ON_Q4, off at the first below OFF_Q4, as 0/1."""
    y = np.zeros(r.shape[0], dtype=np.int8)
    on = 0
    above = 0
    for i in range(r.shape[0]):
        v = r[i]
        above = above + 1 if v > ON_Q4 else 0
        if above >= HOLD:
            on = 1
        if v < OFF_Q4:
            on = 0
        y[i] = on
    return y


def onsets(t: np.ndarray) -> np.ndarray:
    """1 where the trigger switches on."""
    y = np.zeros(t.shape[0], dtype=np.int8)
    for i in range(1, t.shape[0]):
        if t[i] == 1 and t[i - 1] == 0:
            y[i] = 1
    return y


def durations(t: np.ndarray) -> np.ndarray:
    """At each sample where the trigger switches off, how long it was on (0 elsewhere)."""
    y = np.zeros(t.shape[0], dtype=np.int32)
    run = 0
    for i in range(t.shape[0]):
        if t[i] == 1:
            run += 1
        else:
            if run > 0:
                y[i] = run
            run = 0
    return y


def duration_histogram(d: np.ndarray) -> np.ndarray:
    """Histogram of event durations by octave: bin b counts durations of b significant bits."""
    h = np.zeros(16, dtype=np.int32)
    for i in range(d.shape[0]):
        v = d[i]
        b = 0
        while v > 0:
            v >>= 1
            b += 1
        h[min(b, 15)] += 1
    return h


def record(rng: np.random.Generator, k: int) -> np.ndarray:
    t = np.arange(N)
    s = 400 * np.sin(2 * np.pi * t / 3000) + 150 + 40 * k + rng.normal(0, 120, N)
    for at in rng.integers(1000, N - 2000, 5):  # local events: decaying bursts
        m = np.arange(1500)
        s[at : at + 1500] += 6000 * np.exp(-m / 300.0) * np.sin(2 * np.pi * m / 25)
    s[rng.integers(0, N, 6)] = 32000  # digitiser glitches
    return np.clip(s, -32768, 32767).astype(np.int16)


def main() -> dict:
    rng = np.random.default_rng(47)
    hists = []
    for k in range(RECORDS):
        x = despike(record(rng, k))
        x = lowpass(highpass(remove_dc(x, dc_track(x))))
        e = energy(x)
        t = trigger(ratio(sta(e), lta(e)))
        starts = onsets(t)
        h = duration_histogram(durations(t))
        hists.append(h.tolist())
        print(
            f"record {k}: {int(starts.sum())} events, {int(h[1:].sum())} ended, longest {int(np.flatnonzero(h).max())} bits"
        )
    return {"hists": hists}


if __name__ == "__main__":
    main()
