"""A logger's post-processing of one capture: a million int32 samples, one pass each stage."""

import numpy as np


def calibrate(raw, gain, offset):
    """Fixed-point gain and offset, elementwise."""
    return (raw * gain >> 8) + offset


def running_peak(x):
    """Peak hold: the largest sample so far, a scan carried from one tile to the next."""
    out = np.empty(len(x), dtype=np.int32)
    peak = -(2**31)
    for i in range(len(x)):
        if x[i] > peak:
            peak = x[i]
        out[i] = peak
    return out


def main():
    rng = np.random.default_rng(11)
    raw = rng.integers(-(2**20), 2**20, 1 << 20).astype(np.int32)
    cal = calibrate(raw, 300, -17)
    peaks = running_peak(cal)
    print(int(cal[:5].sum()), int(peaks[-1]))


if __name__ == "__main__":
    main()
