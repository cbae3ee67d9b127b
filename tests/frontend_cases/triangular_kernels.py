"""Slices whose bounds come from enclosing loops: the triangular and banded iteration spaces of
factorisations and triangular solves, written as PolyBench's NumPy versions write them."""

import numpy as np


def syrk(alpha, beta, C, A):
    n = C.shape[0]
    for i in range(n):
        C[i, : i + 1] *= beta
        C[i, : i + 1] += alpha * A[: i + 1] @ A[i]


def syr2k(alpha, beta, C, A, B):
    n = C.shape[0]
    for i in range(n):
        C[i, : i + 1] *= beta
        C[i, : i + 1] += alpha * (A[: i + 1, :] @ B[i, :] + B[: i + 1, :] @ A[i, :])


def trmm(alpha, A, B):
    m = B.shape[0]
    for i in range(m):
        B[i, :] += A[i + 1 :, i] @ B[i + 1 :, :]
        B[i, :] *= alpha


def cholesky(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])


def lu(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        A[i, i:] -= A[i, :i] @ A[:i, i:]


def trisolv(L, x, b):
    n = x.shape[0]
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def prefix_sums_int(x, out):
    """Every prefix sum, the slow way: a run-time slice in a reduction."""
    for i in range(x.shape[0]):
        out[i] = np.sum(x[: i + 1])


def band_update(A, k):
    n = A.shape[0]
    for i in range(n):
        A[i, i:] += A[i, : n - i] * k


def growing_window_sum(x):
    s = 0
    for i in range(len(x) // 2):
        s += np.sum(x[i : 2 * i + 1])  # its length changes with i
    return s


def durbin(r):
    """PolyBench durbin: Levinson-Durbin with np.flip of growing prefixes."""
    n = r.shape[0]
    y = np.empty_like(r)
    y[0] = -r[0]
    beta = 1.0
    alpha = -r[0]
    for k in range(1, n):
        beta = (1 - alpha * alpha) * beta
        s = np.dot(np.flip(r[:k]), y[:k])
        alpha = -(r[k] + s) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


def three_mm(E, A, B, F, C, D, G):
    np.dot(A, B, out=E)
    np.dot(C, D, out=F)
    G[:] = E @ F


def reversed_prefix_int(x, out):
    for k in range(1, x.shape[0]):
        out[:k] += np.flip(x[:k])


def nussinov_row(seq, table):
    """PolyBench nussinov's last step: the best split of table[i, j] over i < k < j, with i
    going down (the inner loop's start depends on it)."""
    n = seq.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if seq[i] + seq[j] == 3:
                table[i, j] = max(table[i, j], table[i + 1, j - 1] + 1)
            if j - i > 1:
                table[i, j] = max(table[i, j], np.max(table[i, i + 1 : j] + table[i + 2 : j + 1, j]))


def max_of_prefix(x, out):
    for i in range(x.shape[0]):
        out[i] = np.max(x[: i + 1])


def argmin_of_suffix(x, out):
    for i in range(x.shape[0]):
        out[i] = np.argmin(x[i:])
