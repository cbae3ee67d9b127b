"""Boolean-mask selections, index-array gathers and constant powers, as NumPy users write them:
kernels for tests/test_frontend_masks.py."""

import numpy as np


def q31_mul(a, b):
    prod = a.astype(np.int64) * b.astype(np.int64)
    prod = (prod + (1 << 30)) >> 31
    return np.clip(prod, -(2**31), 2**31 - 1).astype(np.int32)


def in_int32(x: int) -> int:
    if x < -(2**31) or x > 2**31 - 1:
        return 0
    return x


def power_of_array(x):
    return x**20


def power_of_int(x: int) -> int:
    return x**17
