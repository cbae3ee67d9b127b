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


def gemver_update(A, u1, v1, u2, v2):
    """PolyBench gemver's first step: A += u1 v1^T + u2 v2^T."""
    A += np.outer(u1, v1) + np.outer(u2, v2)
    return A


def pairwise_diff(x, y):
    return np.subtract.outer(x, y)


def pairwise_max(x, y):
    return np.maximum.outer(x, y)


def reverse_dot(r, y):
    """Levinson-Durbin's inner product with the reversed prefix."""
    return np.dot(np.flip(r), y)


def flip_rows_cols(img):
    return np.flipud(img) + np.fliplr(img) + np.flip(img, axis=1) + np.flip(img)


def flip_write_through(a):
    r = np.flip(a)
    r[0] = 7
    return a


def relu_inplace(x):
    x[x < 0] = 0
    return x


def clamp_masked(img, t):
    out = img.copy()
    out[out > t] = t
    out[img < 10] += 5
    return out


def stddev_guard(stddev, eps):
    """PolyBench correlation: a near-constant column gets a deviation of 1."""
    stddev[stddev <= eps] = 1.0
    return stddev


def masked_copy(dst, src, lo):
    dst[src > lo] = src[src > lo]
    return dst


def mask_of_other(x, y):
    m = (x > 0) & (y > 0)
    x[m] *= 2
    return x


def floyd_warshall(paths):
    """PolyBench floyd-warshall with numpy broadcasting over new axes."""
    n = paths.shape[0]
    for k in range(n):
        paths[:] = np.minimum(paths, paths[:, k, np.newaxis] + paths[np.newaxis, k, :])
    return paths


def pairwise_sq_dist(pos):
    """Squared distances between points (an N x 3 array) via broadcasting on None axes."""
    d = pos[:, None, :] - pos[None, :, :]
    return (d * d).sum(axis=-1)


def last_channel(img):
    return img[..., 0] * 2 + img[..., -1]


def scale_rows(alpha, x):
    return x * alpha[..., np.newaxis]


def running_total(x):
    return np.cumsum(x)


def column_cumsum(m):
    return m.cumsum(axis=0) + np.cumprod(m, axis=1)


def integral_image(img):
    """A summed-area table: cumulative sums down the columns, then along the rows."""
    return np.cumsum(np.cumsum(img, axis=0), axis=1)


def circular_diff(x):
    return x - np.roll(x, 1)


def roll_rows(m):
    return np.roll(m, -2, axis=1) + np.roll(m, 1, axis=0)


def in_band(x, lo, hi):
    return np.logical_and(x >= lo, x <= hi)


def either_set(a, b):
    return np.logical_or(a, b) & np.logical_not(np.logical_xor(a, b))


def rgb_to_gray(img):
    """Luma of an RGB image: an (H, W, 3) array @ a 3-vector."""
    return img @ np.array([0.299, 0.587, 0.114])


def colour_matrix(img, m):
    return img.astype(np.float64) @ m.T


def batched(a, b):
    return a @ b


def standardise(data):
    """Columns to zero mean and unit deviation (PolyBench correlation's normalisation)."""
    return (data - data.mean(axis=0)) / data.std(axis=0)


def spread(x):
    return np.var(x) + x.std(ddof=1) + np.std(x, axis=None)


def alias_writes(imgIn, k):
    """Board code's alias: the output name is the input array, written through."""
    imgOut = imgIn
    for i in range(imgOut.shape[0]):
        imgOut[i] = imgOut[i] * k
    return imgIn.sum()


def alias_of_local(n):
    buf = np.zeros(n, dtype=np.int32)
    view = buf
    for i in range(n):
        view[i] = i * i
    return buf


def rebind_params(x, w):
    """Parameters rebound to converted arrays, as board code normalises its inputs."""
    x = x * 2
    w = np.asarray(w, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    return (x * w).sum()


def astype_keywords(x):
    y = x.astype(dtype=np.float32) + np.zeros(x.shape, dtype=np.float32)
    z = np.asarray(x)
    z[0] = 1
    return y, np.array(x, dtype=np.int32)


def padded_max3(R):
    """Board code's 3x3 non-maximum suppression: pad with -inf, then the neighbourhood maximum."""
    P = np.pad(R, 1, mode="constant", constant_values=-np.inf)
    h, w = R.shape
    out = np.zeros_like(R)
    for dy in range(3):
        for dx in range(3):
            out = np.maximum(out, P[dy : dy + h, dx : dx + w])
    return out


def edge_padded_blur(f):
    p = np.pad(f, ((1, 1), (1, 1), (0, 0)), mode="edge")
    return (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]) // 4


def zero_pad_int(x):
    return np.pad(x, (2, 1))


def alias_returned(imgIn, t):
    """Board code: threshold in place through an alias, and return it (the argument itself)."""
    imgOut = imgIn
    imgOut[imgOut > t] = t
    return imgOut


def sample_grid(x0, x1, y0, y1):
    """Board code's sampling grid (a Mandelbrot baseline's coordinates)."""
    xs = np.linspace(x0, x1, 7)
    ys = np.linspace(y0, y1, 5)
    return xs[None, :] * 2.0 + ys[:, None], np.linspace(0, 1, 4, dtype=np.float32), np.linspace(x0, x0, 3)


def transposes(img, m):
    """np.transpose with axes (an image's rows and columns swapped), .transpose(), .T of 3-D."""
    t = np.transpose(img, (1, 0, 2))
    return t[:, :, 0] + m.transpose(), img.T[0] * 2 + img.transpose(2, 1, 0)[1]


def hsv_stack(h, s, v):
    """np.stack of channels into an image (axis -1), and joined rows and columns."""
    img = np.stack([h, s, v], axis=-1)
    return img, np.concatenate((h, v), axis=1) + np.hstack([s, s]), np.vstack([h[0], v[1]])


def mixed_join(a, b):
    return np.concatenate([a, b])
