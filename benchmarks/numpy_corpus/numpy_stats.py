"""Statistics, small linear algebra and signal helpers in NumPy: the utilities of analysis scripts.

Reductions with `axis=` and `ddof=`, `np.cov`, moving averages by `np.convolve` and by
`np.cumsum`, `np.linalg.solve`/`cholesky`/`inv`/`norm` on small matrices, `np.outer`, `np.einsum`
strings, boolean masks assigned in place and `np.where` with `np.logical_and`, `np.linspace`,
`np.arange`, `np.flip`, `np.histogram`, `np.percentile`, ufunc `.accumulate`, and complex128
transforms: a DFT by its matrix and an iterative radix-2 FFT.
"""

import numpy as np


def column_stats(X):
    """Mean and (population) standard deviation of every column."""
    return X.mean(axis=0), X.std(axis=0)


def zscore(X):
    """Standardise every column with the sample standard deviation."""
    return (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)


def covariance_np(X):
    """Covariance matrix of the variables in the columns of X."""
    return np.cov(X, rowvar=False)


def pearson_r(x, y):
    """Pearson correlation coefficient of two samples."""
    xm = x - np.mean(x)
    ym = y - np.mean(y)
    return np.sum(xm * ym) / np.sqrt(np.sum(xm**2) * np.sum(ym**2))


def moving_average_convolve(x, w):
    """Moving average of window w ('valid' part only) by convolution with a box."""
    return np.convolve(x, np.ones(w) / w, mode="valid")


def moving_average_cumsum(x, w):
    """Moving average of window w by differences of the cumulative sum."""
    c = np.cumsum(np.insert(x, 0, 0.0))
    return (c[w:] - c[:-w]) / w


def running_max(x):
    """Running maximum (for drawdown curves)."""
    return np.maximum.accumulate(x)


def histogram_counts(x, bins, lo, hi):
    """Counts of x in `bins` equal bins over [lo, hi]."""
    counts, _ = np.histogram(x, bins=bins, range=(lo, hi))
    return counts


def percentiles(x):
    """Quartiles and the 5th/95th percentiles (linear interpolation)."""
    return np.percentile(x, [5, 25, 50, 75, 95])


def solve_4x4(A, b):
    """Solve a small dense linear system."""
    return np.linalg.solve(A, b)


def cholesky_solve(A, b):
    """Solve A x = b for symmetric positive definite A by Cholesky and two triangular solves."""
    L = np.linalg.cholesky(A)
    n = len(b)
    y = np.zeros(n)
    for i in range(n):
        y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]
    x = np.zeros(n)
    for i in reversed(range(n)):
        x[i] = (y[i] - L[i + 1 :, i] @ x[i + 1 :]) / L[i, i]
    return x


def linear_regression(X, y):
    """Least squares fit with intercept by the normal equations; returns (intercept, slopes)."""
    A = np.hstack((np.ones((X.shape[0], 1)), X))
    beta = np.linalg.inv(A.T @ A) @ A.T @ y
    return beta[0], beta[1:]


def rank1_update(P, u, v, alpha):
    """P -= alpha * u v^T in place (a Sherman-Morrison / Kalman style update)."""
    P -= alpha * np.outer(u, v)


def normalize_rows(A):
    """Scale every row to unit Euclidean norm."""
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def power_iteration(A, iters):
    """Dominant eigenvalue and eigenvector of a symmetric matrix by power iteration."""
    v = np.ones(A.shape[0])
    for _ in range(iters):
        v = A @ v
        v /= np.linalg.norm(v)
    return v @ A @ v, v


def einsum_matmul(a, b):
    """Matrix product written with einsum."""
    return np.einsum("ij,jk->ik", a, b)


def einsum_dot(a, b):
    """Dot product written with einsum."""
    return np.einsum("i,i->", a, b)


def clip_negative(x):
    """Set negative samples to zero in place (half-wave rectification)."""
    x[x < 0] = 0
    return x


def band_select(a, b, lo, hi):
    """Take a where it lies strictly inside (lo, hi), b elsewhere."""
    return np.where(np.logical_and(a > lo, a < hi), a, b)


def poly_on_grid(coeffs, x0, x1, n):
    """Evaluate a polynomial (highest power first) by Horner's rule on n points of [x0, x1]."""
    x = np.linspace(x0, x1, n)
    y = np.zeros_like(x)
    for c in coeffs:
        y = y * x + c
    return x, y


def trapezoid_sin(n, t_end):
    """Integral of sin over [0, t_end] by the trapezoid rule on n samples from np.arange."""
    dt = t_end / (n - 1)
    t = np.arange(n) * dt
    y = np.sin(t)
    return dt * (np.sum(y) - 0.5 * (y[0] + y[-1]))


def reverse_cumsum(x):
    """Sums of every suffix: out[i] = x[i] + ... + x[-1]."""
    return np.flip(np.cumsum(np.flip(x)))


def discounted_returns(rewards, gamma):
    """Discounted returns of an episode, G[t] = r[t] + gamma * G[t + 1]."""
    G = np.zeros_like(rewards)
    running = 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        G[t] = running
    return G


def dft(x):
    """Discrete Fourier transform by the DFT matrix (complex128)."""
    N = x.shape[0]
    n = np.arange(N)
    k = n.reshape((N, 1))
    M = np.exp(-2j * np.pi * k * n / N)
    return M @ x


def fft_radix2(x):
    """Iterative radix-2 decimation-in-time FFT of a power-of-two length complex signal."""
    n = x.shape[0]
    a = x.astype(np.complex128)
    # bit-reversal permutation
    j = 0
    for i in range(1, n):
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j |= bit
        if i < j:
            a[i], a[j] = a[j], a[i]
    size = 2
    while size <= n:
        half = size // 2
        w = np.exp(-2j * np.pi * np.arange(half) / size)
        for start in range(0, n, size):
            even = a[start : start + half].copy()
            odd = a[start + half : start + size] * w
            a[start : start + half] = even + odd
            a[start + half : start + size] = even - odd
        size *= 2
    return a


def remove_outliers(x, k):
    """The samples within k standard deviations of the mean."""
    z = (x - x.mean()) / x.std()
    return x[np.abs(z) < k]


# ---------------------------------------------------------------------------------------------


def _spd(rng, n):
    M = rng.normal(size=(n, n))
    return M @ M.T + n * np.eye(n)


INPUTS = {
    "column_stats": lambda rng: [(rng.normal(m, 2, (64, 8)),) for m in (-5, 0, 100)],
    "zscore": lambda rng: [(rng.normal(m, 2, (64, 8)),) for m in (-5, 0, 100)],
    "covariance_np": lambda rng: [(rng.normal(size=(50, 6)),) for _ in range(3)],
    "pearson_r": lambda rng: [
        (x, 2 * x + rng.normal(0, s, 200))
        for s, x in ((0.1, rng.normal(size=200)), (1, rng.normal(size=200)), (10, rng.normal(size=200)))
    ],
    "moving_average_convolve": lambda rng: [
        (rng.normal(size=256), 8),
        (np.ones(256), 8),
        (rng.normal(size=256), 8),
    ],
    "moving_average_cumsum": lambda rng: [
        (rng.normal(size=256), 8),
        (np.ones(256), 8),
        (rng.normal(size=256), 8),
    ],
    "running_max": lambda rng: [(np.cumsum(rng.normal(size=300)),) for _ in range(3)],
    "histogram_counts": lambda rng: [(rng.normal(0, s, 500), 16, -3.0, 3.0) for s in (0.5, 1, 4)],
    "percentiles": lambda rng: [
        (rng.normal(size=101),),
        (rng.exponential(size=101),),
        (np.arange(101.0) % 7,),
    ],
    "solve_4x4": lambda rng: [
        (rng.normal(size=(4, 4)) + 4 * np.eye(4), rng.normal(size=4)) for _ in range(3)
    ],
    "cholesky_solve": lambda rng: [(_spd(rng, 8), rng.normal(size=8)) for _ in range(3)],
    "linear_regression": lambda rng: [
        (X, X @ [1.5, -2.0, 0.5] + 3 + rng.normal(0, 0.1, 40))
        for X in (rng.normal(size=(40, 3)) for _ in range(3))
    ],
    "rank1_update": lambda rng: [
        (rng.normal(size=(8, 8)), rng.normal(size=8), rng.normal(size=8), a) for a in (0.0, 0.5, -2.0)
    ],
    "normalize_rows": lambda rng: [(rng.normal(size=(16, 6)),) for _ in range(3)],
    "power_iteration": lambda rng: [
        (_spd(rng, 6) + 20 * np.outer(v, v), 200) for v in (rng.normal(size=6) for _ in range(3))
    ],
    "einsum_matmul": lambda rng: [(rng.normal(size=(6, 5)), rng.normal(size=(5, 7))) for _ in range(3)],
    "einsum_dot": lambda rng: [(rng.normal(size=64), rng.normal(size=64)) for _ in range(3)],
    "clip_negative": lambda rng: [
        (rng.normal(size=128),),
        (-np.abs(rng.normal(size=128)),),
        (np.zeros(128),),
    ],
    "band_select": lambda rng: [(rng.normal(size=100), rng.normal(size=100), -0.5, 0.5) for _ in range(3)],
    "poly_on_grid": lambda rng: [
        (np.array([0.0, 0.0, 1.0, -3.0, 2.0]), -1.0, 3.0, 50),
        (rng.normal(size=5), 0.0, 1.0, 50),
        (np.array([0.0, 0.0, 0.0, 0.0, 4.0]), -2.0, 2.0, 50),
    ],
    "trapezoid_sin": lambda rng: [(101, t) for t in (np.pi, 2.5, 0.1)],
    "reverse_cumsum": lambda rng: [
        (rng.normal(size=200),),
        (np.ones(200),),
        (rng.integers(-5, 5, 200) * 1.0,),
    ],
    "discounted_returns": lambda rng: [(rng.normal(size=50), g) for g in (0.0, 0.9, 0.99)],
    "dft": lambda rng: [
        (rng.normal(size=32) + 1j * rng.normal(size=32),),
        (rng.normal(size=32) + 0j,),
        (np.ones(32, dtype=np.complex128),),
    ],
    "fft_radix2": lambda rng: [
        (rng.normal(size=256) + 1j * rng.normal(size=256),),
        (np.exp(2j * np.pi * 5 * np.arange(256) / 256),),
        (np.zeros(256, np.complex128),),
    ],
    "remove_outliers": lambda rng: [
        (np.concatenate([rng.normal(size=100), [15.0, -20.0]]), k) for k in (1.0, 2.0, 3.0)
    ],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE["remove_outliers"] = "out: boolean-mask selection returns an array whose length depends on the data"

# a million samples, 4k x 4k covariance inputs: megabytes, beyond on-chip RAM
REALISTIC_SIZES = {
    "column_stats": {"X": (1_000_000, 8)},
    "zscore": {"X": (1_000_000, 8)},
    "covariance_np": {"X": (100_000, 64)},
    "pearson_r": {"x": (1_000_000,), "y": (1_000_000,)},
    "moving_average_convolve": {"x": (1_000_000,)},
    "moving_average_cumsum": {"x": (1_000_000,)},
    "running_max": {"x": (1_000_000,)},
    "histogram_counts": {"x": (1_000_000,)},
    "percentiles": {"x": (1_000_000,)},
    "linear_regression": {"X": (1_000_000, 3), "y": (1_000_000,)},
    "rank1_update": {"P": (2048, 2048), "u": (2048,), "v": (2048,)},
    "normalize_rows": {"A": (100_000, 128)},
    "power_iteration": {"A": (4096, 4096)},
    "einsum_matmul": {"a": (1024, 1024), "b": (1024, 1024)},
    "einsum_dot": {"a": (1_000_000,), "b": (1_000_000,)},
    "clip_negative": {"x": (1_000_000,)},
    "band_select": {"a": (1_000_000,), "b": (1_000_000,)},
    "reverse_cumsum": {"x": (1_000_000,)},
    "discounted_returns": {"rewards": (1_000_000,)},
    "dft": {"x": (4096,)},
    "fft_radix2": {"x": (1_048_576,)},
    "remove_outliers": {"x": (1_000_000,)},
}


# ---------------------------------------------------------------------------------------------
# references: loops, sorted(), numpy.linalg, numpy.fft


def _ref_cov(X):
    n, m = X.shape
    mu = [sum(X[:, j]) / n for j in range(m)]
    C = np.array([[sum((X[:, a] - mu[a]) * (X[:, b] - mu[b])) / (n - 1) for b in range(m)] for a in range(m)])
    return C, {}


def _ref_percentiles(x):
    s = sorted(x)
    out = []
    for q in (5, 25, 50, 75, 95):
        pos = q / 100 * (len(s) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(s) - 1)
        out.append(s[lo] + (s[hi] - s[lo]) * (pos - lo))
    return np.array(out), {}


def _ref_hist(x, bins, lo, hi):
    counts = np.zeros(bins, dtype=np.int64)
    for v in x:
        if lo <= v <= hi:
            counts[min(int((v - lo) / (hi - lo) * bins), bins - 1)] += 1
    return counts, {}


def _ref_regression(X, y):
    A = np.column_stack([np.ones(len(X)), X])
    beta = np.linalg.lstsq(A, y, rcond=None)[0]
    return (beta[0], beta[1:]), {}


def _ref_power(A, iters):
    w, V = np.linalg.eigh(A)
    v = V[:, -1] * np.sign(V[:, -1].sum())
    return (
        lambda r: (
            abs(r[0] - w[-1]) < 1e-8 * abs(w[-1]) and np.allclose(r[1] * np.sign(r[1].sum()), v, atol=1e-6)
        )
    ), {}


def _trapezoid_bound(n, t):
    """The trapezoid rule's error bound for sin on [0, t]: t * h^2 / 12."""
    exact = 1 - np.cos(t)
    return lambda r: abs(r - exact) <= t * (t / (n - 1)) ** 2 / 12 + 1e-12


def _ref_clip(x):
    y = np.array([v if v >= 0 else 0 for v in x], dtype=x.dtype)
    return y, {0: y}


_REFERENCES = {
    "column_stats": lambda X: (
        (
            np.array([np.mean(c) for c in X.T]),
            np.array([np.sqrt(np.mean((c - np.mean(c)) ** 2)) for c in X.T]),
        ),
        {},
    ),
    "zscore": lambda X: (
        (X - X.sum(0) / len(X)) / np.sqrt(((X - X.sum(0) / len(X)) ** 2).sum(0) / (len(X) - 1)),
        {},
    ),
    "covariance_np": _ref_cov,
    "pearson_r": lambda x, y: (np.corrcoef(x, y)[0, 1], {}),
    "moving_average_convolve": lambda x, w: (
        np.array([sum(x[i : i + w]) / w for i in range(len(x) - w + 1)]),
        {},
    ),
    "moving_average_cumsum": lambda x, w: (
        np.array([sum(x[i : i + w]) / w for i in range(len(x) - w + 1)]),
        {},
    ),
    "running_max": lambda x: (np.array([max(x[: i + 1]) for i in range(len(x))]), {}),
    "histogram_counts": _ref_hist,
    "percentiles": _ref_percentiles,
    "solve_4x4": lambda A, b: (np.linalg.inv(A) @ b, {}),
    "cholesky_solve": lambda A, b: (np.linalg.solve(A, b), {}),
    "linear_regression": _ref_regression,
    "rank1_update": lambda P, u, v, a: (None, {0: P - a * u[:, None] * v[None, :]}),
    "normalize_rows": lambda A: (np.array([r / np.sqrt(sum(r * r)) for r in A]), {}),
    "power_iteration": _ref_power,
    "einsum_matmul": lambda a, b: (a @ b, {}),
    "einsum_dot": lambda a, b: (float(np.dot(a, b)), {}),
    "clip_negative": _ref_clip,
    "band_select": lambda a, b, lo, hi: (np.array([p if lo < p < hi else q for p, q in zip(a, b)]), {}),
    "poly_on_grid": lambda c, x0, x1, n: (
        (np.linspace(x0, x1, n), np.polyval(c, np.linspace(x0, x1, n))),
        {},
    ),
    "trapezoid_sin": lambda n, t: (_trapezoid_bound(n, t), {}),
    "reverse_cumsum": lambda x: (np.array([sum(x[i:]) for i in range(len(x))]), {}),
    "discounted_returns": lambda r, g: (
        np.array([sum(r[k] * g ** (k - t) for k in range(t, len(r))) for t in range(len(r))]),
        {},
    ),
    "dft": lambda x: (np.fft.fft(x), {}),
    "fft_radix2": lambda x: (np.fft.fft(x), {}),
    "remove_outliers": lambda x, k: (np.array([v for v in x if abs(v - x.mean()) < k * x.std()]), {}),
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    return run_cases(globals())


if __name__ == "__main__":
    _selfcheck()
