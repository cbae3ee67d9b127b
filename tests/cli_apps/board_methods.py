"""Board users' classes: a Q15-style FIR with a circular delay line and a leaky peak meter,
both keeping state on self between calls (the methods become kernels)."""

import numpy as np


class FixedFir:
    def __init__(self, taps):
        self.taps = np.asarray(taps, dtype=np.int16)
        self.delay = np.zeros(len(self.taps), dtype=np.int16)
        self.pos = 0
        self.gain = 2

    def process(self, x):
        n = len(self.taps)
        out = np.zeros(len(x), dtype=np.int32)
        for k in range(len(x)):
            self.delay[self.pos] = x[k]
            acc = 0
            idx = self.pos
            for t in range(n):
                acc += int(self.taps[t]) * int(self.delay[idx])
                idx -= 1
                if idx < 0:
                    idx = n - 1
            self.pos = (self.pos + 1) % n
            out[k] = acc * self.gain
        return out


class Leaky:
    def __init__(self):
        self.level = 0.0
        self.peak = 0.0

    def feed(self, x):
        for v in x:
            self.level = 0.9 * self.level + 0.1 * float(v)
            if self.level > self.peak:
                self.peak = self.level
        return self.level


def main():
    rng = np.random.default_rng(1)
    f = FixedFir([3, -2, 5, 7, 1, -4, 2, 6])
    lk = Leaky()
    total = 0
    for _ in range(4):
        x = rng.integers(-1000, 1000, 64).astype(np.int16)
        y = f.process(x)
        total += int(y.sum())
        lk.feed(x)
    print(total, round(lk.level, 6), round(lk.peak, 6), f.pos)


if __name__ == "__main__":
    main()
