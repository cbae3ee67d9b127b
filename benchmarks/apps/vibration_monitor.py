"""Vibration monitor: a big capture in, a little work on a sparse subset of it.

A data logger captures long int16 accelerometer records and checks each one cheaply: it looks at
every STEP-th sample only (the sensor is heavily oversampled, so a coarse scan finds a peak
within a few samples of the true one) and counts how many of those samples exceed a limit. A
second pass refines only around the coarse peak. The coarse scan is an interpreted Python loop,
so on the board's CPU each visited sample costs a few microseconds.

What makes the decision hard: the scan is a plain integer loop the FPGA would run at one sample
per cycle, so the kernel's compute is negligible; but the kernel needs the whole record in a
device buffer first (2 bytes per sample, 160 MB/s on the PYNQ-Z2), although it reads only one
sample in STEP. The copy and the call overhead cost about as much as the interpreter's loop:
the data movement, not the work, decides, and on this board it decides for the CPU.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

SAMPLES = 1 << 17
STEP = 2048
RECORDS = 12
LIMIT = 9000


def coarse_scan(x: np.ndarray, step: int, limit: int) -> np.ndarray:
    """Every `step`-th sample: [index of the largest |x|, its value, how many exceed `limit`]."""
    out = np.zeros(3, dtype=np.int32)
    best = 0
    where = 0
    over = 0
    for i in range(0, x.shape[0], step):
        v = abs(np.int32(x[i]))
        if v > best:
            best = v
            where = i
        if v > limit:
            over += 1
    out[0] = where
    out[1] = best
    out[2] = over
    return out


def refine(x: np.ndarray, centre: int, step: int) -> tuple[int, int]:
    """The true peak within one step either side of the coarse one (CPU: tiny)."""
    lo = max(0, centre - step)
    hi = min(len(x), centre + step + 1)
    window = np.abs(x[lo:hi].astype(np.int32))
    k = int(np.argmax(window))
    return lo + k, int(window[k])


def capture(rng: np.random.Generator, record: int) -> np.ndarray:
    t = np.arange(SAMPLES)
    base = 4000 * np.sin(2 * np.pi * t / (400 + 37 * record))
    shock = np.zeros(SAMPLES)
    at = int(rng.integers(1000, SAMPLES - 1000))
    shock[at : at + 300] = 7000 * np.exp(-np.arange(300) / 60.0)
    noise = rng.normal(0, 300, SAMPLES)
    return np.clip(base + shock + noise, -32768, 32767).astype(np.int16)


def main() -> dict:
    rng = np.random.default_rng(11)
    report = []
    for r in range(RECORDS):
        x = capture(rng, r)
        where, best, over = (int(v) for v in coarse_scan(x, STEP, LIMIT))
        peak_at, peak = refine(x, where, STEP)
        report.append((peak_at, peak, over))
        print(
            f"record {r}: peak {peak} at {peak_at} (coarse {best} at {where}), {over} coarse samples over {LIMIT}"
        )
    return {"report": report}


if __name__ == "__main__":
    main()
