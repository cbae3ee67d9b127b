"""np.array of values known only at run time, as filters and controllers build small vectors
and matrices each call."""

import numpy as np


def rotate(theta, v):
    c = np.cos(theta)
    s = np.sin(theta)
    r = np.array([[c, -s], [s, c]])
    return r @ v


def pack_header(a, b, n):
    return np.array([a, b, n, 7], dtype=np.int32)


def state_step(x, k):
    return np.array([x[0] * 2, k, 1.5]) + x[:3]


def bounds(x):
    return np.array([x.min(), x.max()])


def covariance_update(p, k, h):
    return (np.eye(2) - k @ h) @ p


def shifted_identity(x):
    return x + np.eye(3, 4, 1, dtype=np.int32)[:, 1:]
