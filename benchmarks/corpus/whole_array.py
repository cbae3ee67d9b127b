"""Whole-array numpy, the way numeric Python is usually written."""

import numpy as np


def normalize_q15(x, shift):
    y = (x.astype(np.int32) * 3) >> shift
    return np.clip(y, -32768, 32767).astype(np.int16)


def relu_layer(w, x, b):
    return np.maximum(w @ x + b, 0)


def saxpy(a, x, y):
    return a * x + y


def threshold_image(img, t):
    return np.where(img > t, 255, 0).astype(np.uint8)


def mean_energy(x):
    return np.sum(x * x) / len(x)


def best_score(scores):
    return np.argmax(scores)


def diff_signal(x):
    return x[1:] - x[:-1]


def downsample2(x):
    return x[::2] + x[1::2]


def matmul_int(a, b):
    return a.astype(np.int32) @ b.astype(np.int32)


def sad_block(a, b):
    return np.sum(np.abs(a.astype(np.int16) - b))


def scale_in_place(x, s):
    x[2:10] *= s


def blend(a, b, alpha):
    return (a.astype(np.uint16) * alpha + b.astype(np.uint16) * (256 - alpha)) >> 8


INPUTS = {
    "normalize_q15": lambda rng: [(rng.integers(-32768, 32767, 16).astype(np.int16), 2) for _ in range(3)],
    "relu_layer": lambda rng: [
        (
            rng.integers(-50, 50, (4, 6)).astype(np.int32),
            rng.integers(-50, 50, 6).astype(np.int32),
            rng.integers(-100, 100, 4).astype(np.int32),
        )
        for _ in range(3)
    ],
    "saxpy": lambda rng: [
        (float(rng.normal()), rng.normal(size=16).astype(np.float32), rng.normal(size=16).astype(np.float32))
        for _ in range(3)
    ],
    "threshold_image": lambda rng: [(rng.integers(0, 256, (6, 8)).astype(np.uint8), 100) for _ in range(3)],
    "mean_energy": lambda rng: [(rng.normal(size=32),) for _ in range(3)],
    "best_score": lambda rng: [(rng.integers(-1000, 1000, 20).astype(np.int32),) for _ in range(3)],
    "diff_signal": lambda rng: [(rng.integers(-1000, 1000, 12).astype(np.int16),) for _ in range(3)],
    "downsample2": lambda rng: [(rng.integers(0, 255, 16).astype(np.uint8),) for _ in range(3)],
    "matmul_int": lambda rng: [
        (rng.integers(-128, 127, (3, 5)).astype(np.int8), rng.integers(-128, 127, (5, 4)).astype(np.int8))
        for _ in range(3)
    ],
    "sad_block": lambda rng: [
        (rng.integers(0, 256, (4, 4)).astype(np.uint8), rng.integers(0, 256, (4, 4)).astype(np.uint8))
        for _ in range(3)
    ],
    "scale_in_place": lambda rng: [(rng.integers(-100, 100, 12).astype(np.int32), 3) for _ in range(3)],
    "blend": lambda rng: [
        (rng.integers(0, 256, 16).astype(np.uint8), rng.integers(0, 256, 16).astype(np.uint8), int(a))
        for a in rng.integers(0, 256, 3)
    ],
}
