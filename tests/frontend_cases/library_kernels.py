"""numpy library calls as programs write them: norms, einsum strings, covariance, keyword
arguments of functions the lowering takes positionally, tuple axes, ufunc accumulate."""

import numpy as np


def unit_vector(v):
    return v / np.linalg.norm(v)


def row_norms_keep(A):
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def column_norms(A):
    return np.linalg.norm(A, axis=0)


def frobenius(A):
    return np.linalg.norm(A)


def norm_int(v):
    """An integer vector's norm: numpy converts it to float64 first (no overflow of the squares)."""
    return np.linalg.norm(v)


def norm_l1_inf(v):
    return np.linalg.norm(v, ord=1) + np.linalg.norm(v, np.inf)


def einsum_dot(a, b):
    return np.einsum("i,i->", a, b)


def einsum_matvec(A, x):
    return np.einsum("ij,j->i", A, x)


def einsum_matmul(a, b):
    return np.einsum("ik,kj->ij", a, b)


def einsum_batched(a, b):
    return np.einsum("bij,bjk->bik", a, b)


def einsum_frobenius_inner(a, b):
    return np.einsum("ij,ij", a, b)


def einsum_outer(a, b):
    return np.einsum("i,j->ij", a, b)


def einsum_transpose(a):
    return np.einsum("ij->ji", a).copy()


def covariance_cols(X):
    return np.cov(X, rowvar=False)


def covariance_rows_biased(X):
    return np.cov(X, bias=True)


def same_after_relu(x):
    return np.array_equal(np.maximum(x, 0), x)


def clip_keywords(frame):
    f16 = frame.astype(np.int16)
    return np.clip(f16 - 7, a_min=0, a_max=255).astype(np.uint8)


def clip_lower_only(x):
    return np.clip(x, a_min=-2, a_max=None)


def channel_means(img):
    return img.mean(axis=(0, 1))


def block_sums(a):
    return np.sum(a, axis=(0, 2), keepdims=True)


def total_over_axes(a):
    return a.sum(axis=(0, 1))


def running_max(x):
    return np.maximum.accumulate(x)


def running_min_rows(a):
    return np.minimum.accumulate(a, axis=1)


def prefixed_cumsum(x):
    """np.cumsum(np.insert(x, 0, 0.0)): the running sums with a leading zero."""
    c = np.cumsum(np.insert(x, 0, 0.0))
    return c[3:] - c[:-3]


def inserted(x, v):
    return np.insert(x, 2, v), np.insert(x, -1, 7), np.insert(x, len(x), v)


def inserted_2d(a):
    return np.insert(a, 0, -1)


def convolve_modes(x, h):
    return np.convolve(x, h), np.convolve(x, h, mode="same"), np.convolve(x, h, mode="valid")


def convolve_swapped(h, x):
    """The shorter operand first: numpy swaps them."""
    return np.convolve(h, x, "same")


def moving_average(x):
    return np.convolve(x, np.ones(4) / 4, mode="valid")


def conv_patch(x, w, b):
    """A 3x3 convolution layer written with np.tensordot over three axes (HWC, HWCF)."""
    H, W, _ = x.shape
    KH, KW, _, F = w.shape
    out = np.zeros((H - KH + 1, W - KW + 1, F))
    for i in range(H - KH + 1):
        for j in range(W - KW + 1):
            out[i, j, :] = np.tensordot(x[i : i + KH, j : j + KW, :], w, axes=3) + b
    return out


def tensordot_pairs(a, b):
    return np.tensordot(a, b, axes=([0, 2], [1, 0])), np.tensordot(a, b, 0).sum()


def tensordot_default(a, b):
    return np.tensordot(a, b)


def solve_system(A, b):
    return np.linalg.solve(A, b)


def inverse(A):
    return np.linalg.inv(A)


def cholesky_factor(A):
    return np.linalg.cholesky(A)


def normal_equations(X, y):
    """Least squares by the normal equations: an inverse inside a product chain."""
    return np.linalg.inv(X.T @ X) @ X.T @ y


def inverse_times(A, v):
    return np.linalg.inv(A) @ v


def quartiles(x):
    return np.percentile(x, [0, 5, 25, 50, 75, 95, 100])


def one_percentile(x):
    return np.percentile(x, 90) - np.percentile(x, 12.5)


def median_of(x):
    return np.median(x)


def grey_histogram(img):
    return np.bincount(img.ravel(), minlength=256)


def signed_counts(x):
    """int8 values: a negative one makes numpy raise (the kernel falls back)."""
    return np.bincount(x, None, 128)


def percentile_bins(img, pct):
    """The first grey level whose cumulative count reaches pct percent (histogram stretching)."""
    cdf = np.cumsum(np.bincount(img.ravel(), minlength=256))
    return int(np.searchsorted(cdf, cdf[-1] * pct / 100.0))


def search_both_sides(a, v):
    return np.searchsorted(a, v) * 100 + np.searchsorted(a, v, side="right")


def best_first(scores, k):
    """Indices of the k largest scores, best first."""
    order = np.argsort(scores)[::-1]
    return order[:k].copy()


def stable_order(x):
    return np.argsort(x, kind="stable")


def pair_energy(pos):
    """The upper triangle of the squared distances, indexed through a name (Lennard-Jones)."""
    n = len(pos)
    diff = pos[:, None, :] - pos[None, :, :]
    r2 = (diff**2).sum(axis=-1)
    iu = np.triu_indices(n, k=1)
    return np.sum(1.0 / r2[iu]) + r2[iu].max()


def triangles(a):
    lower = np.tril_indices(3, -1, 4)
    return a[np.triu_indices(3)], a[lower], a[np.triu_indices(3, 2, 5)]


def triangle_rows(a):
    return a[np.tril_indices(a.shape[0])].copy()
