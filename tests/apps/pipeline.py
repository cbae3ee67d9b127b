"""A three-stage numpy pipeline with a known data flow (profiler tests)."""

import numpy as np

N = 64
GAIN = 3


def make(n):
    return np.arange(n, dtype=np.int16) * 3 - 5


def scale(a, k):
    return a * k


def total(a):
    s = 0
    for x in a:
        s += int(x)
    return s


if __name__ == "__main__":
    for _ in range(4):
        a = make(N)
        b = scale(a, GAIN)
        t = total(b[::2])
        print(t)
