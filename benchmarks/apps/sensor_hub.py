"""Sensor hub: seven loop kernels competing for one board's block RAM.

A condition-monitoring node processes one capture of each of its sensors per cycle: a long
accelerometer record is despiked with a 3-point median; three audio channels are smoothed,
framed into energies and framed into zero-crossing counts; a strain gauge is slew-rate limited;
a temperature trace has its threshold crossings counted; a pressure trace its jumps. Every
stage is an interpreted integer loop, so each is worth hundreds of times its FPGA cost, and
each kernel built whole keeps its input and output in on-chip block RAM (BRAM18 of 2 KB each): from
24 to 176 BRAM18 per kernel, by the size of its capture.

What makes the decision hard: the PYNQ-Z2's 224 usable BRAM18 (80 % cap) hold only some kernels with their
arrays on chip: a knapsack over seven kernels whose values (CPU seconds saved) per BRAM18 are close. `despike`
is the hottest function and needs 176 BRAM18 whole; taking the hottest first (what a developer with a profiler
does) fills the block RAM with it and one small kernel. Each kernel can also be built tiled (a few BRAM18, its
capture moved through DDR a tile at a time, slower by the copies); several tiled and one small one whole are
worth more. Many assignments are within a few percent of each other, and single moves (one kernel in or out,
or another variant) do not lead from one to a better one.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

RECORD = 90112  # accelerometer samples per cycle
AUDIO = 73728  # samples per audio channel
SMOOTH = 36864  # samples of the channel that is smoothed
STRAIN = 28672  # strain-gauge samples (slew-rate limited)
TEMPERATURE = 40960  # temperature samples (threshold crossings)
PRESSURE = 24576  # pressure samples (jumps)
FRAME = 256
CYCLES = 2


def despike(x: np.ndarray) -> np.ndarray:
    """3-point median filter (the ends are copied)."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    y[0] = x[0]
    y[x.shape[0] - 1] = x[x.shape[0] - 1]
    for i in range(1, x.shape[0] - 1):
        a = x[i - 1]
        b = x[i]
        c = x[i + 1]
        y[i] = max(min(a, b), min(max(a, b), c))
    return y


def smooth3(x: np.ndarray) -> np.ndarray:
    """[1, 2, 1] / 4 smoothing in int32, rounded (the ends are copied)."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    y[0] = x[0]
    y[x.shape[0] - 1] = x[x.shape[0] - 1]
    for i in range(1, x.shape[0] - 1):
        acc = np.int32(x[i - 1]) + 2 * np.int32(x[i]) + np.int32(x[i + 1]) + 2
        y[i] = acc >> 2
    return y


def frame_energy(x: np.ndarray, frame: int) -> np.ndarray:
    """Sum of x*x >> 8 per frame."""
    out = np.zeros(x.shape[0] // frame, dtype=np.int32)
    for f in range(x.shape[0] // frame):
        acc = np.int32(0)
        for i in range(frame):
            v = np.int32(x[f * frame + i])
            acc += (v * v) >> 8
        out[f] = acc
    return out


def zero_crossings(x: np.ndarray, frame: int) -> np.ndarray:
    """Sign changes per frame."""
    out = np.zeros(x.shape[0] // frame, dtype=np.int32)
    for f in range(x.shape[0] // frame):
        count = 0
        for i in range(1, frame):
            a = x[f * frame + i - 1]
            b = x[f * frame + i]
            if (a < 0) != (b < 0):
                count += 1
        out[f] = count
    return out


def rate_limit(x: np.ndarray, max_step: int) -> np.ndarray:
    """Follow x, but move at most `max_step` per sample (a slew-rate limiter)."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    prev = np.int32(x[0])
    for i in range(x.shape[0]):
        d = np.int32(x[i]) - prev
        d = min(max(d, -max_step), max_step)
        prev = prev + d
        y[i] = prev
    return y


def hysteresis_count(x: np.ndarray, high: int, low: int) -> int:
    """How many times x, less its slowly tracked baseline, rises above `high` after having been
    below `low`."""
    armed = 1
    count = 0
    baseline = np.int32(0)
    for i in range(x.shape[0]):
        v = np.int32(x[i]) - baseline
        baseline += v >> 8
        if armed == 1 and v > high:
            count += 1
            armed = 0
        elif armed == 0 and v < low:
            armed = 1
    return count


def jump_count(x: np.ndarray, jump: int) -> int:
    """Samples that differ from the previous one by more than `jump`."""
    count = 0
    for i in range(1, x.shape[0]):
        if abs(np.int32(x[i]) - np.int32(x[i - 1])) > jump:
            count += 1
    return count


def synth(rng: np.random.Generator, n: int, period: float, amp: float) -> np.ndarray:
    t = np.arange(n)
    s = amp * np.sin(2 * np.pi * t / period) + rng.normal(0, amp / 10, n)
    return np.clip(s, -32768, 32767).astype(np.int16)


def main() -> dict:
    rng = np.random.default_rng(5)
    summary = []
    for cycle in range(CYCLES):
        record = synth(rng, RECORD, 97.0 + cycle, 6000.0)
        record[rng.integers(0, RECORD, 40)] = 32000  # spikes
        clean = despike(record)
        a = synth(rng, SMOOTH, 21.0, 3000.0)
        b, c = (synth(rng, AUDIO, p, 3000.0) for p in (40.0, 75.0))
        smoothed = smooth3(a)
        energy = frame_energy(b, FRAME)
        zc = zero_crossings(c, FRAME)
        strain = rate_limit(synth(rng, STRAIN, 300.0, 8000.0), 40)
        crossings = hysteresis_count(synth(rng, TEMPERATURE, 900.0, 5000.0), 3000, -3000)
        jumps = jump_count(synth(rng, PRESSURE, 50.0, 4000.0), 600)
        summary.append(
            (
                int(clean.max()),
                int(smoothed.max()),
                int(energy.sum()),
                int(zc.sum()),
                int(strain.max()),
                crossings,
                jumps,
            )
        )
        print(f"cycle {cycle}: " + " ".join(str(v) for v in summary[-1]))
    return {"summary": summary}


if __name__ == "__main__":
    main()
