"""Reductions along one axis, as NumPy programs write them."""

import numpy as np


def column_means(data):
    """Feature means of a data matrix (PolyBench correlation/covariance)."""
    return data.mean(axis=0)


def row_sums_int(img):
    return np.sum(img, axis=1)


def centred(data):
    mean = np.mean(data, axis=0)
    out = np.zeros_like(data)
    for i in range(data.shape[0]):
        out[i, :] = data[i, :] - mean
    return out


def channel_max(img):
    """Brightest value of each pixel over its channels (an RGB image, axis -1)."""
    return img.max(axis=-1)


def best_class(scores):
    return np.argmax(scores, axis=1)


def col_min_keep(m):
    return m - np.min(m, axis=0, keepdims=True)


def row_norms(v):
    total = 0.0
    s = np.sum(v * v, axis=1)
    for i in range(s.shape[0]):
        total += s[i]
    return s, total


def mean_over_frames(frames):
    """A 3-D stack of frames averaged over time (axis 0)."""
    return frames.mean(axis=0)


def vector_axis0(x):
    return np.sum(x, axis=0) + x.max(axis=0)
