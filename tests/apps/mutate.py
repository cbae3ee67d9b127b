"""Functions that modify their arguments in place (profiler tests)."""

import numpy as np


def fill(buf, v):
    buf[:] = v


def total(buf):
    return float(buf.sum())


def push(items, x):
    items.append(x)


def peek(items):
    return items[-1]


if __name__ == "__main__":
    out = np.zeros(16, dtype=np.float32)
    fill(out, 2.5)
    print(total(out))
    items = [1.5, 2.5]
    push(items, 3.5)
    print(peek(items))
