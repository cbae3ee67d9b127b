"""Packets of three lengths through one smoothing kernel, and a 512 x 512 int16 product."""

import numpy as np


def smooth(x):
    y = np.zeros_like(x)
    for i in range(1, len(x) - 1):
        y[i] = (x[i - 1] + 2 * x[i] + x[i + 1]) // 4
    return y


def mix(a, b):
    """A 512 x 512 int16 product: b is read by rows once its reduction loop is moved outward."""
    return a @ b


def main():
    rng = np.random.default_rng(3)
    for n in (6001, 4500, 5333):
        x = rng.integers(-30000, 30000, n).astype(np.int32)
        print(int(smooth(x).sum()))
    a = rng.integers(-8, 8, (512, 512)).astype(np.int16)
    b = rng.integers(-8, 8, (512, 512)).astype(np.int16)
    print(int(mix(a, b).sum()))


if __name__ == "__main__":
    main()
