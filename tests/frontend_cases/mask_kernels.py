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


def band_sum(freqs, psd, lo, hi):
    mask = (freqs >= lo) & (freqs < hi)
    return np.sum(freqs[mask] * psd[mask]) / np.sum(psd[mask])


def band_mean(freqs, lo, hi):
    return np.mean(freqs[(freqs >= lo) & (freqs < hi)])


def count_by_class(class_, n_classes, weights):
    totals = np.zeros(n_classes)
    for c in range(n_classes):
        totals[c] = np.sum(weights[class_ == c])
    return totals


def int_sum_above(x, t):
    return x[x > t].sum()


def spread_of_inliers(x, k):
    z = (x - x.mean()) / x.std()
    return x[np.abs(z) < k].std()


def var_ddof(x):
    return np.var(x[x > 0], ddof=1)


def max_below(x, t):
    return np.max(x[x < t])


def min_of_2d(a):
    return a[a % 3 == 1].min()


def count_selected(x, t):
    return len(x[x > t])


def argmax_selected(x):
    return np.argmax(x[x != 0])


def scaled_mean(x):
    return (x[x > 0] * 2 - 1).mean()


def embedding_bag(table, ids):
    return table[ids].sum(axis=0)


def pick_rows(table, ids):
    return table[ids]


def cross_entropy(logits, labels):
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(n), labels])


def pairs(a, rows, cols):
    return a[rows, cols]


def kept(x):
    return x[x > 0]


def named_selection(x):
    pos = x[x > 0]
    return pos.sum()


def count_nonzero_mask(x, t):
    return np.count_nonzero(x > t) + np.count_nonzero(x)


def mixed_index_slice(a, ids):
    return a[ids, 1:].sum()


def escape_counts(cr, ci, max_iter):
    """mandelbrot_masked on real and imaginary parts: the points still bounded are iterated."""
    zr = np.zeros_like(cr)
    zi = np.zeros_like(ci)
    counts = np.zeros(cr.shape, dtype=np.int32)
    for _ in range(max_iter):
        m = zr * zr + zi * zi <= 4.0
        zr_next = zr * zr - zi * zi + cr
        zi[m] = 2.0 * zr[m] * zi[m] + ci[m]
        zr[m] = zr_next[m]
        counts[m] += 1
    return counts


def scale_selected(x, y, t):
    x[x > t] = x[x > t] * 2 - y[x > t]
    return x


def other_mask_value(x, y):
    x[x > 0] = y[y > 0]
    return x


def class_centroids(X, labels, k):
    out = np.zeros((k, X.shape[1]))
    for c in range(k):
        out[c] = X[labels == c].mean(axis=0)
    return out


def row_selection_stats(X, labels):
    rows = X[labels > 0]
    return rows.sum()


def selected_rows_total(X, labels):
    return X[labels > 0].sum() + np.max(X[labels > 0], axis=0).sum() + len(X[labels > 0])


def row_entries(a, ids, j):
    return a[ids, j] + a[1, ids]


def first_positive(x):
    return x[x > 0][0]


def gathered_len(table, ids):
    return len(table[ids]) * 100 + len(table[ids[:2]])


def row_sums_of_selection(X, labels):
    return X[labels > 0].sum(axis=1).sum() + np.mean(X[labels > 0], axis=1).max()


def loop_over_gather(t, ids):
    s = 0.0
    for row in t[ids]:
        s += row[0] - row[-1]
    for i, v in enumerate(t[ids, 1]):
        s += v * i
    return s


def loop_over_selection(x):
    s = 0.0
    for v in x[x > 0]:
        s += v
    return s
