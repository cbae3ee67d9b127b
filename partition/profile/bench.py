"""A fixed pure-Python micro-benchmark: how fast this interpreter runs app-like code.

Profiled CPU times are scaled to a board by the ratio of its `bench_ns` to the
profiling host's. The loop mixes what a numerical Python app spends its
interpreter time on: int arithmetic, float arithmetic, list indexing and
stores, and function calls. Everything is deterministic (no allocation that
grows, no randomness), so only the machine and the interpreter change the
figure. One repetition takes 20-50 ms on a current x86 core.

`python -m partition.profile.bench` prints the figure (ns per iteration).
"""

from __future__ import annotations

import time

ITERATIONS = 100_000
REPEATS = 5


def _mix(acc: int, x: int) -> int:
    return (acc * 31 + x) & 0xFFFF


def _loop(n: int) -> tuple[int, float]:
    data = list(range(64))
    acc = 0
    f = 0.5
    for i in range(n):
        j = i & 63
        acc = _mix(acc, data[j])
        f = f * 0.999 + acc * 1e-4
        data[j] = acc ^ i
    return acc, f


def bench_ns(iterations: int = ITERATIONS, repeats: int = REPEATS) -> float:
    """Median time of one loop iteration (ns) over `repeats` runs."""
    _loop(1000)  # warm up
    times = []
    for _ in range(repeats):
        t = time.perf_counter_ns()
        _loop(iterations)
        times.append((time.perf_counter_ns() - t) / iterations)
    times.sort()
    return round(times[len(times) // 2], 1)


def main() -> None:
    print(f"{bench_ns():.1f}")


if __name__ == "__main__":
    main()
