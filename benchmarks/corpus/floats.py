"""Floating-point kernels (the Vitis HLS path; the built-in RTL builds integers only)."""

import numpy as np


def horner(coeffs, x):
    out = np.zeros(len(x), dtype=np.float64)
    for i in range(len(x)):
        acc = 0.0
        for c in coeffs:
            acc = acc * x[i] + c
        out[i] = acc
    return out


def lerp_table(t, table):
    out = np.zeros(len(t), dtype=np.float32)
    for i in range(len(t)):
        pos = t[i] * np.float32(len(table) - 1)
        k = int(pos)
        if k >= len(table) - 1:
            k = len(table) - 2
        frac = pos - np.float32(k)
        out[i] = table[k] + (table[k + 1] - table[k]) * frac
    return out


def kahan_sum(xs):
    s = 0.0
    c = 0.0
    for x in xs:
        y = x - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def biquad(x, b0, b1, b2, a1, a2):
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = np.float32(0)
    for n in range(len(x)):
        v = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, v
        y[n] = v
    return y


INPUTS = {
    "horner": lambda rng: [(np.array([0.5, -1.0, 2.0, 0.25]), rng.normal(size=10)) for _ in range(3)],
    "lerp_table": lambda rng: [
        (rng.random(12).astype(np.float32), np.linspace(0, 1, 9).astype(np.float32) ** 2) for _ in range(3)
    ],
    "kahan_sum": lambda rng: [([float(v) for v in rng.normal(size=20) * 1e3],) for _ in range(3)],
    "biquad": lambda rng: [
        (
            rng.normal(size=16).astype(np.float32),
            np.float32(0.2),
            np.float32(0.4),
            np.float32(0.2),
            np.float32(-0.3),
            np.float32(0.1),
        )
        for _ in range(3)
    ],
}
