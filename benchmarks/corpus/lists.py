"""Numeric code over plain Python lists, as it is often first written."""

import numpy as np


def moving_average(xs, w):
    """Mean of each window of w samples."""
    out = [0.0] * (len(xs) - 3)
    for i in range(len(xs) - 3):
        s = 0.0
        for k in range(w):
            s += xs[i + k]
        out[i] = s / w
    return out


def histogram(values, nbins):
    counts = [0] * 8
    for v in values:
        counts[v % nbins] += 1
    return counts


def histogram_indexed(values):
    counts = [0] * 8
    for i in range(len(values)):
        counts[values[i] % 8] += 1
    return counts


def running_max(xs):
    out = [0] * len(xs)
    best = xs[0]
    for i in range(len(xs)):
        if xs[i] > best:
            best = xs[i]
        out[i] = best
    return out


def dot_lists(a, b):
    total = 0
    for i in range(len(a)):
        total += a[i] * b[i]
    return total


def transpose(m):
    rows, cols = len(m), len(m[0])
    t = [[0] * rows for _ in range(cols)]
    for i in range(rows):
        for j in range(cols):
            t[j][i] = m[i][j]
    return t


def count_above(xs, threshold):
    n = 0
    for x in xs:
        if x > threshold:
            n += 1
    return n


def clamp_in_place(xs, lo, hi):
    for i in range(len(xs)):
        if xs[i] < lo:
            xs[i] = lo
        elif xs[i] > hi:
            xs[i] = hi


def _ints(rng, n, lo, hi):
    return [int(v) for v in rng.integers(lo, hi, n)]


INPUTS = {
    "moving_average": lambda rng: [([float(v) for v in rng.normal(size=12)], 4) for _ in range(3)],
    "histogram": lambda rng: [(_ints(rng, 40, 0, 1000), 8) for _ in range(3)],
    "histogram_indexed": lambda rng: [(_ints(rng, 40, -500, 500),) for _ in range(3)],
    "running_max": lambda rng: [(_ints(rng, 16, -1000, 1000),) for _ in range(3)],
    "dot_lists": lambda rng: [(_ints(rng, 10, -100, 100), _ints(rng, 10, -100, 100)) for _ in range(3)],
    "transpose": lambda rng: [([_ints(rng, 4, -9, 9) for _ in range(3)],) for _ in range(3)],
    "count_above": lambda rng: [(_ints(rng, 20, 0, 255), int(rng.integers(0, 255))) for _ in range(3)],
    "clamp_in_place": lambda rng: [(_ints(rng, 12, -300, 300), -100, 100) for _ in range(3)],
}

__all__ = ["INPUTS", "np"]
