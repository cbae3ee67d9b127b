"""Loudness normalisation: a numpy gain stage whose best place depends on the board.

A batch job normalises recorded int16 audio clips: `measure` finds each clip's peak with an
interpreted loop (an obvious kernel), and `apply_gain` scales the clip in Q12 fixed point with
rounding and saturation, written as whole-array numpy expressions (about six passes over the
clip in numpy's compiled loops).

What makes the decision hard: `apply_gain` is numpy code, so the CPU runs it at a few ns per
element per pass; the FPGA runs it at about one element per cycle but needs the clip copied into
a device buffer first. On the PYNQ-Z2 (Cortex-A9 without double-width SIMD, numpy at ~9 ns per
element per pass) the kernel is worth it; on the KV260 (Cortex-A53 with NEON, numpy about four
times faster, while the copy into device memory is only twice as fast) the same function should
stay on the CPU. A plan made for one board is wrong on the other.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

CLIP = 1 << 14  # samples per clip
CLIPS = 16
TARGET = 24000  # peak after normalisation


def measure(x: np.ndarray) -> int:
    """The clip's peak |x| (interpreted loop over every sample)."""
    peak = 0
    for i in range(x.shape[0]):
        v = abs(int(x[i]))
        if v > peak:
            peak = v
    return peak


def apply_gain(x: np.ndarray, gain_q12: np.int32) -> np.ndarray:
    """x * gain / 4096, rounded to nearest and saturated to int16."""
    y = (x.astype(np.int32) * gain_q12 + 2048) >> 12
    return np.clip(y, -32768, 32767).astype(np.int16)


def make_clip(rng: np.random.Generator, k: int) -> np.ndarray:
    t = np.arange(CLIP)
    level = 2000 + 1500 * k
    s = level * np.sin(2 * np.pi * t / (60 + 3 * k)) + rng.normal(0, level / 20, CLIP)
    return np.clip(s, -32768, 32767).astype(np.int16)


def main() -> dict:
    rng = np.random.default_rng(17)
    peaks = []
    for k in range(CLIPS):
        x = make_clip(rng, k)
        peak = measure(x)
        gain = np.int32(min(TARGET * 4096 // max(peak, 1), 1 << 16))
        y = apply_gain(x, gain)
        peaks.append((peak, int(np.abs(y.astype(np.int32)).max())))
    print("peak before -> after: " + ", ".join(f"{a}->{b}" for a, b in peaks[:8]) + ", ...")
    return {"peaks": peaks}


if __name__ == "__main__":
    main()
