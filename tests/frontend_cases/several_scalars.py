"""Functions returning several scalars, as people write them (min and max together, a sum and
a count, a mean and a variance): the kernel has one return register, so every scalar after the
first travels in a one-element output array the host turns back into that Python scalar."""

import numpy as np


def min_max(x):
    lo = x[0]
    hi = x[0]
    for v in x:
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


def sum_count_mean(x, threshold):
    total = 0
    count = 0
    for v in x:
        if v > threshold:
            total += int(v)
            count += 1
    if count == 0:
        return 0, 0, 0.0
    return total, count, total / count


def mean_var(xs):
    n = 0
    mean = 0.0
    m2 = 0.0
    for x in xs:
        n += 1
        delta = x - mean
        mean += delta / n
        m2 += delta * (x - mean)
    return mean, m2 / (n - 1) if n > 1 else 0.0


def peak_and_profile(x):
    out = np.zeros_like(x)
    best = 0
    where = -1
    for i in range(len(x)):
        out[i] = x[i] * 2
        if x[i] > best:
            best = x[i]
            where = i
    return out, best, where, best > 100
