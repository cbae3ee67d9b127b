"""Helpers, tuples, while loops, break and continue."""

import numpy as np


def mac(acc, a, b):
    return acc + a * b


def fir_with_helper(x, h):
    y = np.zeros(len(x) - len(h) + 1, dtype=np.int32)
    for n in range(len(y)):
        acc = np.int32(0)
        for k in range(len(h)):
            acc = mac(acc, np.int32(x[n + k]), np.int32(h[k]))
        y[n] = acc
    return y


def min_max(x):
    lo = x[0]
    hi = x[0]
    for v in x:
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi


def split_sign(x):
    pos = np.zeros(len(x), dtype=np.int16)
    neg = np.zeros(len(x), dtype=np.int16)
    for i in range(len(x)):
        if x[i] >= 0:
            pos[i] = x[i]
        else:
            neg[i] = -x[i]
    return pos, neg


def find_first(x, target):
    for i in range(len(x)):
        if x[i] == target:
            return i
    return -1


def sum_positive(x):
    s = 0
    for i in range(len(x)):
        if x[i] <= 0:
            continue
        s += int(x[i])
    return s


def crc8(data):
    crc = 0
    for i in range(len(data)):
        crc ^= int(data[i])
        for _ in range(8):
            if crc & 0x80:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
    return crc


def gcd_pairs(a, b, out):
    for i in range(len(a)):
        x, y = int(a[i]), int(b[i])
        while y != 0:  # partition: max-iterations 48
            x, y = y, x % y
        out[i] = x


def bit_length_all(x):
    out = np.zeros(len(x), dtype=np.int8)
    for i in range(len(x)):
        v = int(x[i])
        n = 0
        while v > 0:  # partition: max-iterations 32
            v >>= 1
            n += 1
        out[i] = n
    return out


def prefix_sum(x):
    i = 1
    while i < len(x):
        x[i] += x[i - 1]
        i += 1


def bubble_sort(x):
    n = len(x)
    for i in range(n):
        for j in range(n - 1 - i):
            if x[j] > x[j + 1]:
                t = x[j]
                x[j] = x[j + 1]
                x[j + 1] = t


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


INPUTS = {
    "fir_with_helper": lambda rng: [
        (rng.integers(-3000, 3000, 24).astype(np.int16), rng.integers(-100, 100, 5).astype(np.int16))
        for _ in range(3)
    ],
    "min_max": lambda rng: [(rng.integers(-1000, 1000, 15).astype(np.int16),) for _ in range(3)],
    "split_sign": lambda rng: [(rng.integers(-1000, 1000, 10).astype(np.int16),) for _ in range(3)],
    "find_first": lambda rng: [(np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32), t) for t in (1, 9, 7)],
    "sum_positive": lambda rng: [(rng.integers(-50, 50, 20).astype(np.int8),) for _ in range(3)],
    "crc8": lambda rng: [(rng.integers(0, 256, 16).astype(np.uint8),) for _ in range(3)],
    "gcd_pairs": lambda rng: [
        (
            rng.integers(1, 10**6, 8).astype(np.int32),
            rng.integers(1, 10**6, 8).astype(np.int32),
            np.zeros(8, np.int32),
        )
        for _ in range(3)
    ],
    "bit_length_all": lambda rng: [(rng.integers(0, 2**31 - 1, 8).astype(np.int32),) for _ in range(3)],
    "prefix_sum": lambda rng: [(rng.integers(-100, 100, 12).astype(np.int32),) for _ in range(3)],
    "bubble_sort": lambda rng: [(rng.integers(-100, 100, 8).astype(np.int16),) for _ in range(3)],
    "collatz_steps": lambda rng: [(int(n),) for n in rng.integers(1, 1000, 3)],
}
