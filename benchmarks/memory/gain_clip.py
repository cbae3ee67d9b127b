"""Gain and clip a long int16 recording: the memory benchmark's app (recording size in MB from argv)."""

import sys

import numpy as np


def gain_clip(x, gain):
    y = x.astype(np.int32) * gain
    return np.clip(y, -32768, 32767).astype(np.int16)


def peak_level(y):
    return int(np.abs(y.astype(np.int32)).max())


def main():
    mb = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    n = int(mb * 1e6) // 2
    x = (np.arange(n, dtype=np.int64) * 7919 % 65536 - 32768).astype(np.int16)
    levels = []
    for g in (2, 3, 5):
        levels.append(peak_level(gain_clip(x, g)))
    print(n, levels)


if __name__ == "__main__":
    main()
