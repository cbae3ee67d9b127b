"""Sonar ranging: a small interpreted consumer that pays off on the FPGA only when streamed.

Each ping's echo (49,152 int16 samples) goes through a matched filter for the transmitted
Barker-13 code (`correlate`: np.convolve with the reversed code; the hottest function, about
8 ms a ping on the A9 against 4.7 ms as a kernel with its copy, so worth moving on its own).
Its int32 output goes straight into `strongest_gate`, an interpreted loop that reads the
filter's output at the centre of each of 4 range gates and returns the gate with the strongest
echo.

What makes the decision hard: `strongest_gate` reads 4 samples, a few microseconds of Python
(160-230 us on the A9). As a kernel of its own it costs more: the call's fixed cost (about 80
us: the 31.25 us call, 31.25 us of cache maintenance for its buffer, 4-6 us per register
access) plus loading the whole correlation, 192 KB, back from DDR to read 4 samples of it (about
310 us), nearly 390 us a ping. Only as an AXI-Stream chain with `correlate` is it cheaper on
the FPGA: the correlation streams from one kernel into the other, so neither stores nor loads
it and neither buffer needs cache maintenance, which saves about 440 us a ping, more than the
consumer costs. A per-function decision keeps it on the CPU; the plan that moves both and
chains them is better.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

PING = 49152  # samples per echo
PINGS = 16
GATE = 12288  # samples per range gate

BARKER = np.array([1, 1, 1, 1, 1, -1, -1, 1, 1, -1, 1, -1, 1], dtype=np.int16)
MATCHED = 100 * BARKER[::-1].astype(np.int32)  # the matched filter: the code reversed


def correlate(x: np.ndarray, code: np.ndarray) -> np.ndarray:
    """Matched filter: the echo convolved with the reversed code, as long as the echo."""
    return np.convolve(x, code, "same")


def strongest_gate(c: np.ndarray) -> int:
    """The range gate whose centre sample has the largest |c|, as a gate number."""
    best = np.int32(-1)
    where = 0
    for g in range(GATE // 2, c.shape[0], GATE):
        v = abs(c[g])
        if v > best:
            best = v
            where = g // GATE
    return where


def echo(rng: np.random.Generator, gate: int) -> np.ndarray:
    """Noise with one target, the code centred on range gate `gate`."""
    x = rng.normal(0, 400, PING)
    at = gate * GATE + GATE // 2 - BARKER.size // 2
    x[at : at + BARKER.size] += 2000 * BARKER
    return np.clip(x, -32768, 32767).astype(np.int16)


def main() -> dict:
    rng = np.random.default_rng(3)
    hits = []
    for p in range(PINGS):
        x = echo(rng, (5 * p + 1) % (PING // GATE))
        hits.append(strongest_gate(correlate(x, MATCHED)))
    print(f"strongest range gate per ping: {hits}")
    return {"hits": hits}


if __name__ == "__main__":
    main()
