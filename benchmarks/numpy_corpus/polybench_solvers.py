"""PolyBench/C 4.2 solvers and data-mining kernels in NumPy, double precision.

Cholesky, LU, LU-based solve, triangular solve, Levinson-Durbin, modified Gram-Schmidt QR,
correlation and covariance: the classic dense factorisations as a numerical-methods course or a
Python-compiler benchmark writes them, with dot products over slices whose bounds move with
the loop (`A[i, :j] @ A[:j, j]`), `np.sqrt`, `np.flip`, `np.outer` updates, and reductions along
an axis with `axis=0`.
"""

import numpy as np


def kernel_cholesky(A):
    """In-place Cholesky factorisation: the lower triangle of A becomes L with A = L * L^T."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])


def kernel_durbin(r):
    """Levinson-Durbin recursion: solves the Yule-Walker equations of autocorrelations r."""
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


def kernel_gramschmidt(A, R, Q):
    """QR decomposition by modified Gram-Schmidt; A is overwritten with the residuals."""
    n = A.shape[1]
    for k in range(n):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        R[k, k + 1 :] = Q[:, k] @ A[:, k + 1 :]
        A[:, k + 1 :] -= np.outer(Q[:, k], R[k, k + 1 :])


def kernel_lu(A):
    """In-place LU decomposition without pivoting (unit lower L below the diagonal, U on and above)."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        A[i, i:] -= A[i, :i] @ A[:i, i:]


def kernel_ludcmp(A, b, x, y):
    """Solves A * x = b by LU decomposition, forward substitution (y) and back substitution (x)."""
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            w = A[i, j] - A[i, :j] @ A[:j, j]
            A[i, j] = w / A[j, j]
        for j in range(i, n):
            w = A[i, j] - A[i, :i] @ A[:i, j]
            A[i, j] = w
    for i in range(n):
        y[i] = b[i] - A[i, :i] @ y[:i]
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1 :] @ x[i + 1 :]) / A[i, i]


def kernel_trisolv(L, x, b):
    """Forward substitution: x := L^-1 * b for a lower triangular L."""
    n = x.shape[0]
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def kernel_correlation(float_n, data, corr, mean, stddev):
    """Pearson correlation matrix of the columns of data (N observations x M attributes)."""
    eps = 0.1
    m = data.shape[1]
    mean[:] = np.sum(data, axis=0) / float_n
    stddev[:] = np.sqrt(np.sum((data - mean) ** 2, axis=0) / float_n)
    # a near-constant column would divide by zero: treat its deviation as 1
    stddev[stddev <= eps] = 1.0
    data -= mean
    data /= np.sqrt(float_n) * stddev
    for i in range(m - 1):
        corr[i, i] = 1.0
        corr[i, i + 1 :] = data[:, i] @ data[:, i + 1 :]
        corr[i + 1 :, i] = corr[i, i + 1 :]
    corr[m - 1, m - 1] = 1.0


def kernel_covariance(float_n, data, cov, mean):
    """Sample covariance matrix of the columns of data (N observations x M attributes)."""
    m = data.shape[1]
    mean[:] = data.sum(axis=0) / float_n
    data -= mean
    for i in range(m):
        cov[i, i:] = data[:, i] @ data[:, i:] / (float_n - 1.0)
        cov[i:, i] = cov[i, i:]


# ---------------------------------------------------------------------------------------------
# inputs: call 0 is PolyBench's init_array (MINI dataset), the others random


def _three(make):
    return lambda rng: [make(None), make(rng), make(rng)]


def _spd(rng, n):
    """PolyBench's positive semi-definite matrix (B * B^T of a lower triangle), or a random SPD one."""
    if rng is None:
        i, j = np.indices((n, n))
        B = np.where(j < i, 1.0 - j / n, 0.0) + np.eye(n)
        return B @ B.T
    M = rng.normal(size=(n, n))
    return M @ M.T + n * np.eye(n)


def _args_durbin(rng, n=40):
    if rng is None:
        return (np.arange(n + 1, 1, -1, dtype=np.float64),)
    rho = rng.uniform(-0.8, 0.8)
    return (rho ** np.arange(1, n + 1) * rng.uniform(0.5, 1.0),)


def _args_gramschmidt(rng, m=40, n=20):
    # PolyBench's formula on its own MINI shape (20 x 30) is rank-deficient; 40 x 20 is not
    if rng is None:
        i, j = np.indices((m, n))
        A = (i * j % m) / m * 100 + 10
    else:
        A = rng.uniform(-5, 5, (m, n))
    return A, np.zeros((n, n)), np.zeros((m, n))


def _args_ludcmp(rng, n=40):
    b = (np.arange(n) + 1) / n / 2.0 + 4 if rng is None else rng.uniform(-4, 4, n)
    return _spd(rng, n), b, np.zeros(n), np.zeros(n)


def _args_trisolv(rng, n=40):
    i, j = np.indices((n, n))
    if rng is None:
        L = np.where(j <= i, (i + n - j + 1) * 2.0 / n, 0.0)
        b = np.arange(n, dtype=np.float64)
    else:
        L = np.tril(rng.uniform(-1, 1, (n, n)), -1) + np.diag(rng.choice([-1, 1], n) * rng.uniform(1, 2, n))
        b = rng.uniform(-10, 10, n)
    return L, np.full(n, -999.0), b


def _args_correlation(rng, n=32, m=28):
    if rng is None:
        i, j = np.indices((n, m))
        data = i * j / m + i
    else:
        data = rng.normal(size=(n, m)) * rng.uniform(0.5, 3.0, m)
        data[:, 3] = 2.5  # a constant column: stddev below eps
    return float(n), data, np.zeros((m, m)), np.zeros(m), np.zeros(m)


def _args_covariance(rng, n=32, m=28):
    if rng is None:
        i, j = np.indices((n, m))
        data = i * j / m
    else:
        data = rng.normal(size=(n, m)) * 4 - 1
    return float(n), data, np.zeros((m, m)), np.zeros(m)


INPUTS = {
    "kernel_cholesky": _three(lambda rng: (_spd(rng, 40),)),
    "kernel_durbin": _three(_args_durbin),
    "kernel_gramschmidt": _three(_args_gramschmidt),
    "kernel_lu": _three(lambda rng: (_spd(rng, 40),)),
    "kernel_ludcmp": _three(_args_ludcmp),
    "kernel_trisolv": _three(_args_trisolv),
    "kernel_correlation": _three(_args_correlation),
    "kernel_covariance": _three(_args_covariance),
}

SCOPE = {name: "in" for name in INPUTS}

# PolyBench's LARGE dataset (float64): 32 MB matrices for the N = 2000 solvers
REALISTIC_SIZES = {
    "kernel_cholesky": {"A": (2000, 2000)},
    "kernel_durbin": {"r": (2000,)},
    "kernel_gramschmidt": {"A": (1000, 1200), "R": (1200, 1200), "Q": (1000, 1200)},
    "kernel_lu": {"A": (2000, 2000)},
    "kernel_ludcmp": {"A": (2000, 2000), "b": (2000,), "x": (2000,), "y": (2000,)},
    "kernel_trisolv": {"L": (2000, 2000), "x": (2000,), "b": (2000,)},
    "kernel_correlation": {"data": (1400, 1200), "corr": (1200, 1200), "mean": (1200,), "stddev": (1200,)},
    "kernel_covariance": {"data": (1400, 1200), "cov": (1200, 1200), "mean": (1200,)},
}


# ---------------------------------------------------------------------------------------------
# references: numpy.linalg and the statistics written as whole-matrix formulas


def _ref_cholesky(A):
    L = np.linalg.cholesky(A)
    return None, {0: L + np.triu(A, 1)}


def _ref_durbin(r):
    n = len(r)
    first = np.concatenate(([1.0], r[: n - 1]))
    T = first[np.abs(np.subtract.outer(np.arange(n), np.arange(n)))]
    return np.linalg.solve(T, -r), {}


def _ref_gramschmidt(A, R, Q):
    q, r = np.linalg.qr(A)
    sign = np.sign(np.diag(r))
    return None, {1: r * sign[:, None], 2: q * sign}


def _lu_nopivot(A):
    n = len(A)
    L, U = np.eye(n), A.copy()
    for k in range(n):
        L[k + 1 :, k] = U[k + 1 :, k] / U[k, k]
        U[k + 1 :, :] -= np.outer(L[k + 1 :, k], U[k, :])
    return L, U


def _ref_lu(A):
    L, U = _lu_nopivot(A)
    return None, {0: np.tril(L, -1) + np.triu(U)}


def _ref_ludcmp(A, b, x, y):
    L, U = _lu_nopivot(A)
    yy = np.linalg.solve(L, b)
    return None, {0: np.tril(L, -1) + np.triu(U), 2: np.linalg.solve(A, b), 3: yy}


def _ref_correlation(float_n, data, corr, mean, stddev):
    mu = data.mean(axis=0)
    sd = data.std(axis=0)
    sd = np.where(sd <= 0.1, 1.0, sd)
    z = (data - mu) / (np.sqrt(float_n) * sd)
    c = z.T @ z
    np.fill_diagonal(c, 1.0)
    if np.all(data.std(axis=0) > 0.1):
        assert np.allclose(c, np.corrcoef(data, rowvar=False))
    return None, {1: z, 2: c, 3: mu, 4: sd}


def _ref_covariance(float_n, data, cov, mean):
    mu = data.mean(axis=0)
    return None, {1: data - mu, 2: np.cov(data, rowvar=False), 3: mu}


_REFERENCES = {
    "kernel_cholesky": _ref_cholesky,
    "kernel_durbin": _ref_durbin,
    "kernel_gramschmidt": _ref_gramschmidt,
    "kernel_lu": _ref_lu,
    "kernel_ludcmp": _ref_ludcmp,
    "kernel_trisolv": lambda L, x, b: (None, {1: np.linalg.solve(np.tril(L), b)}),
    "kernel_correlation": _ref_correlation,
    "kernel_covariance": _ref_covariance,
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    # factorisations are compared with LAPACK: agreement to 1e-7 relative
    return run_cases(globals(), rtol=1e-7, atol=1e-7)


if __name__ == "__main__":
    _selfcheck()
