"""A local helper module (profiler tests)."""

import numpy as np

OFFSET = 7
TABLE = np.array([1, 2, 3], dtype=np.int16)
COUNTER = 0
NAME = "helpers"


def double(a):
    return a * 2 + OFFSET * 0 + int(TABLE[0]) - 1


def bump():
    global COUNTER
    COUNTER += 1
    return NAME
