"""Sonar ranging: a numpy post-processing step that pays off on the FPGA only when streamed.

Each ping's echo (int16) is correlated with the transmitted chirp by an interpreted integer loop
(`correlate`, by far the hottest function and an obvious kernel). Its int32 output goes
straight into `strongest_gate`, which looks at one sample per range gate (4 of them) and
returns the gate with the strongest echo.

What makes the decision hard: `strongest_gate` is a short interpreted loop (4 iterations a
call), cheap on the CPU; as a kernel of its own it costs more: a call's register writes and
cache maintenance plus loading the whole correlation back from DDR to read 4 samples of it. Only when it
runs as an AXI-Stream chain with `correlate` (the correlation streams from one kernel into the
other, never stored in DDR) is it cheaper on the FPGA. A per-function decision keeps it on the
CPU; the plan that moves both and chains them is better.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

PING = 8192  # samples per echo
TAPS = 8  # chirp length
PINGS = 16
GATE = 2048  # correlation samples per range gate


def correlate(x: np.ndarray, chirp: np.ndarray) -> np.ndarray:
    """Matched filter: c[n] = sum_k x[n + k] * chirp[k] (zero past the end)."""
    c = np.zeros(x.shape[0], dtype=np.int32)
    for n in range(x.shape[0]):
        acc = np.int32(0)
        for k in range(TAPS):
            if n + k < x.shape[0]:
                acc += np.int32(x[n + k]) * np.int32(chirp[k])
        c[n] = acc
    return c


def strongest_gate(c: np.ndarray) -> int:
    """The range gate (one correlation sample every GATE) with the largest |c|, as a gate number."""
    best = np.int32(-1)
    where = 0
    for g in range(0, c.shape[0], GATE):
        v = abs(c[g])
        if v > best:
            best = v
            where = g // GATE
    return where


CHIRP = np.array([100, 31, -81, -81, 31, 100, 0, -100], dtype=np.int16)


def echo(rng: np.random.Generator, chirp: np.ndarray, delay: int) -> np.ndarray:
    x = rng.normal(0, 400, PING)
    x[delay : delay + TAPS] += 20 * chirp
    return np.clip(x, -32768, 32767).astype(np.int16)


def main() -> dict:
    rng = np.random.default_rng(3)
    chirp = CHIRP
    hits = []
    for p in range(PINGS):
        delay = 500 + 400 * p
        x = echo(rng, chirp, delay)
        hits.append(strongest_gate(correlate(x, chirp)))
    print(f"strongest range gate per ping: {hits}")
    return {"hits": hits}


if __name__ == "__main__":
    main()
