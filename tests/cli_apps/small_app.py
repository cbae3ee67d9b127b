"""A small app for command-line tests: one kernel-friendly function, one CPU-only one."""

import sys

import numpy as np


def scale_add(x, y):
    out = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        out[i] = np.int32(x[i]) * 3 + np.int32(y[i])
    return out


def describe(values):
    return ", ".join(str(v) for v in values[:4])


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rng = np.random.default_rng(7)
    x = rng.integers(-1000, 1000, n).astype(np.int16)
    y = rng.integers(-1000, 1000, n).astype(np.int16)
    total = 0
    for _ in range(3):
        z = scale_add(x, y)
        total += int(z.sum())
    print(describe(list(z)), total)


if __name__ == "__main__":
    main()
