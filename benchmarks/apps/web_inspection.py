"""Web inspection: a line-scan camera's ten-stage defect pipeline, one board's block RAM.

A line-scan camera over a moving web (paper, film, steel strip) delivers 12-bit lines; each
line goes through ten interpreted integer loops in a row: flat-field correction, a 3-pixel
median against dead pixels, a background tracker and a local-contrast measure, an edge
strength, two-threshold classification, hysteresis, gap closing, defect run starts and a
histogram of defect lengths. Built whole, a stage keeps its line input and output in on-chip block RAM:
24 to 72 BRAM18 a kernel, by the types of its arrays (int8 masks, int16 pixels, int32 sums).

What makes the decision hard: the PYNQ-Z2's 224 usable BRAM18 (the KV260's 230) hold five of the ten stages
with their arrays on chip. Each can also be built tiled (a few BRAM18, its line moved through DDR a tile at a
time, slower by the copies), so all fit, and the question is which keep their arrays whole. Taking the fastest
variant of the hottest first (edge strength, which writes int32, flat field, background tracker) fills the
block RAM; tiling those and keeping the despeckle median and small mask stages whole is worth more. A single
move cannot make that trade; random restarts reach the best assignment on some boards and miss it on others.
On the Ultra96-V2 more fits whole and hottest-first is nearly right, so it is not planned there.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

WIDTH = 24576  # pixels per scan line
LINES = 2
DARK = 64  # sensor black level
GAIN_Q12 = 4301  # flat-field gain in Q12


def flat_field(raw: np.ndarray) -> np.ndarray:
    """Black level and gain correction of the raw 12-bit line, saturated to 0..4095."""
    y = np.zeros(raw.shape[0], dtype=np.int16)
    for i in range(raw.shape[0]):
        v = ((np.int32(raw[i]) - DARK) * GAIN_Q12) >> 12
        y[i] = min(max(v, 0), 4095)
    return y


def despeckle(x: np.ndarray) -> np.ndarray:
    """3-pixel median against hot and dead pixels (the ends are copied)."""
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


def background(x: np.ndarray) -> np.ndarray:
    """Slowly tracked background level (a one-pole low-pass), as int32 in Q4; pixels far above
    it (bright defects) do not pull it up."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    acc = np.int32(x[0]) << 4
    for i in range(x.shape[0]):
        d = np.int32(x[i]) - (acc >> 4)
        if d < 400:
            acc += d
        y[i] = acc
    return y


def contrast(bg: np.ndarray) -> np.ndarray:
    """Local contrast: how far the background moves over 8 pixels."""
    y = np.zeros(bg.shape[0], dtype=np.int16)
    for i in range(8, bg.shape[0]):
        d = (bg[i] - bg[i - 8]) >> 4
        y[i] = min(max(d, -32768), 32767)
    return y


def edge_strength(c: np.ndarray) -> np.ndarray:
    """|c[i+1] - c[i-1]| + |c[i]|, in int32."""
    n = c.shape[0]
    y = np.zeros(n, dtype=np.int32)
    for i in range(1, n - 1):
        y[i] = abs(np.int32(c[i + 1]) - np.int32(c[i - 1])) + abs(np.int32(c[i]))
    return y


def classify(e: np.ndarray) -> np.ndarray:
    """0 background, 1 weak, 2 strong edge (two thresholds)."""
    y = np.zeros(e.shape[0], dtype=np.int8)
    for i in range(e.shape[0]):
        v = e[i]
        if v > 90:
            y[i] = 2
        elif v > 30:
            y[i] = 1
    return y


def hysteresis(c: np.ndarray) -> np.ndarray:
    """Weak pixels count as defect only next to a strong one (left to right), as 0/1."""
    y = np.zeros(c.shape[0], dtype=np.int8)
    on = 0
    for i in range(c.shape[0]):
        v = c[i]
        if v == 2:
            on = 1
        elif v == 0:
            on = 0
        y[i] = on
    return y


def close_gaps(m: np.ndarray) -> np.ndarray:
    """Fill gaps of one or two pixels between defect pixels."""
    n = m.shape[0]
    y = np.zeros(n, dtype=np.int8)
    for i in range(n):
        v = m[i]
        if v == 0 and i >= 1 and i + 2 < n and m[i - 1] == 1 and (m[i + 1] == 1 or m[i + 2] == 1):
            v = 1
        y[i] = v
    return y


def run_starts(m: np.ndarray) -> np.ndarray:
    """For each pixel, where its defect run started (-1 outside a run), as int32."""
    y = np.full(m.shape[0], -1, dtype=np.int32)
    start = -1
    for i in range(m.shape[0]):
        if m[i] == 1:
            if start < 0:
                start = i
        else:
            start = -1
        y[i] = start
    return y


def defect_sizes(s: np.ndarray) -> np.ndarray:
    """Histogram of defect lengths in 64 bins of 8 pixels."""
    h = np.zeros(64, dtype=np.int32)
    for i in range(1, s.shape[0]):
        if s[i] < 0 and s[i - 1] >= 0:
            h[min((i - s[i - 1]) >> 3, 63)] += 1
    return h


def scan_line(rng: np.random.Generator, k: int) -> np.ndarray:
    t = np.arange(WIDTH)
    s = 1800 + 300 * np.sin(2 * np.pi * t / (5000 + 700 * k)) + rng.normal(0, 40, WIDTH)
    for _ in range(60):  # defects: short dark and bright streaks
        at = int(rng.integers(0, WIDTH - 40))
        s[at : at + int(rng.integers(2, 40))] += rng.choice([-900.0, 900.0])
    return np.clip(s, 0, 4095).astype(np.uint16)


def main() -> dict:
    rng = np.random.default_rng(23)
    out = []
    for k in range(LINES):
        x = despeckle(flat_field(scan_line(rng, k)))
        e = edge_strength(contrast(background(x)))
        sizes = defect_sizes(run_starts(close_gaps(hysteresis(classify(e)))))
        out.append(sizes.tolist())
        print(
            f"line {k}: {int(sizes.sum())} defects, largest bin {int(np.flatnonzero(sizes).max(initial=0))}"
        )
    return {"sizes": out}


if __name__ == "__main__":
    main()
