"""Kernels with nested functions, lambdas and helpers called inside expressions
(test_frontend_structure.py)."""

import numpy as np


def rk4(y0, omega, dt, steps):
    """A nested function reading the enclosing function's omega, called in a time loop."""

    def f(y):
        return np.array([y[1], -(omega**2) * y[0]])

    y = y0.copy()
    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        y = y + dt / 6.0 * (k1 + 2 * k2)
    return y


def gates(z, scale):
    """A lambda and a nested def calling it; the closure is read when they are called."""
    sig = lambda v: 1.0 / (1.0 + np.exp(-v * scale))  # noqa: E731

    def both(a, b):
        return sig(a) * sig(b)

    first = both(z[:3], z[3:])
    scale = scale * 2  # the later calls see the new value, as in Python
    return first + both(z[3:], z[:3])


def int_closure(x, k):
    """An integer nested function (wrapping int16 arithmetic) and a run-time np.array."""

    def step(v):
        return v * k + np.int16(1)

    pair = np.array([x[0], x[-1]])
    return step(x) + step(x)[0] + pair[1]


def passes_nested(x):
    """Refused: the nested function is used as a value."""

    def f(v):
        return v + 1

    g = f
    return g(x)


def relu_layer(x, w):
    return np.maximum(x @ w, 0.0)


def shift(x):
    return x - np.max(x)


def two_layers(x, w1, w2):
    """Helpers returning arrays, called inside larger expressions."""
    return shift(relu_layer(x, w1) @ w2) * 2.0 + relu_layer(x, w1)[0, 0]


def int_helper(x):
    return x * np.int8(3)


def uses_int_helper(x):
    """An int8 helper (wrapping) inside an expression, and in a loop."""
    acc = x.copy()
    for _ in range(3):
        acc = int_helper(acc) + x
    return int_helper(x) - acc


def shape_parts(img, k):
    """Lengths unpacked from a slice of a shape, and tuples of ints compared."""
    h, w = img.shape[:2]
    (c,) = img.shape[2:]
    total = 0
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            if (dy, dx) != (0, k):
                total += img[(dy + h) % h, (dx + w) % w, c - 1]
    return total + ((h, w) == (k, k))


def tuple_compare_floats(a, b):
    """Refused: Python compares tuple items by identity first (a NaN equals itself there)."""
    return (a, 1) == (b, 1)


def flips(img):
    """Views of the argument returned (copies in a kernel: the same values)."""
    return np.flip(img, axis=1), img[::-1, :, 1], np.transpose(img, (1, 0, 2))


def blocks(img):
    """Row-major re-indexing: 2x2 blocks of an image, reduced one axis at a time."""
    h, w = img.shape
    b = img.reshape(h // 2, 2, w // 2, 2)
    return b.max(axis=3).max(axis=1) + np.sum(img.reshape(-1, 4)[1:, 0])


def heads(x, w):
    """A computed value split into heads and reshaped back."""
    t, d = x.shape
    q = (x @ w).reshape(t, 2, d // 2).transpose(1, 0, 2)
    return q.transpose(1, 0, 2).reshape(t, d) * 2


def reshape_then_write(x):
    """Refused: y is a view of x in numpy, and x is written afterwards."""
    y = x.reshape(2, 3)
    x[0] = 100
    return y.sum(axis=0)


def row_tuples(x):
    """A tuple display stored into a row; the items are all read before any is stored."""
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = (x[i, 1] * np.int16(3), x[i, 0] - x[i, 1])
        x[i, 0], x[i, 1] = x[i, 1], min(100, int(x[i, 0]))
    return out


def diffs(x, m, b):
    """np.diff of int8 (wrapping), along an axis of a 2-D array, and of a bool array."""
    return np.diff(x), np.diff(m, axis=0), np.diff(b)


def neighbours(board):
    """sum() of rolled copies over constant displays, the centre left out."""
    n = sum(
        np.roll(np.roll(board, dy, axis=0), dx, axis=1)
        for dy in (-1, 0, 1)
        for dx in range(-1, 2)
        if (dy, dx) != (0, 0)
    )
    return ((n == 3) | ((board == 1) & (n == 2))).astype(np.uint8), n


def float_sum(x):
    """sum() starts from the int 0: 0 + -0.0 is 0.0."""
    return sum(x * s for s in (1.0, -1.0) if s < 0)


def stacks(a, b):
    """np.stack of int8 and int16 arrays (numpy's result dtype) on a new last and first axis."""
    s = np.stack([a, b, a * 2], axis=-1)
    return s, np.stack((b, a))[1, 0] + s[0, :, 0]
