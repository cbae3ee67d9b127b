"""PolyBench/C 4.2 linear-algebra kernels (BLAS-like) in NumPy, double precision.

The way a numerical scientist ports a PolyBench kernel to NumPy: the arithmetic of the C loop
nest kept, the innermost loops turned into whole-array expressions, `@`, `np.dot`, `np.outer`,
slices whose bounds follow the outer loop (`C[i, :i + 1]`, `A[i + 1:, i]`), in-place updates of
the output arrays the C kernel receives. Such ports are common in benchmark suites for Python
compilers and in course material on HPC with Python.
"""

import numpy as np


def kernel_2mm(alpha, beta, tmp, A, B, C, D):
    """D := alpha * A * B * C + beta * D (tmp holds alpha * A * B)."""
    tmp[:] = alpha * A @ B
    D *= beta
    D += tmp @ C


def kernel_3mm(E, A, B, F, C, D, G):
    """G := (A * B) * (C * D), the two products kept in E and F."""
    np.dot(A, B, out=E)
    np.dot(C, D, out=F)
    G[:] = E @ F


def kernel_atax(A, x):
    """y := A^T * (A * x)"""
    tmp = A @ x
    y = A.T @ tmp
    return y


def kernel_bicg(A, p, r):
    """BiCG sub-kernel: s := A^T * r and q := A * p."""
    s = np.dot(r, A)
    q = np.dot(A, p)
    return s, q


def kernel_doitgen(A, C4, sum):
    """Multiresolution analysis: every A[r, q, :] := A[r, q, :] * C4 (sum is the scratch row)."""
    nr, nq, _ = A.shape
    for r in range(nr):
        for q in range(nq):
            sum[:] = A[r, q, :] @ C4
            A[r, q, :] = sum


def kernel_gemm(alpha, beta, C, A, B):
    """C := alpha * A * B + beta * C"""
    C *= beta
    C += alpha * A @ B


def kernel_gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    """Vector multiplication and matrix addition (BLAS GEMVER)."""
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A
    x += z
    w += alpha * A @ x


def kernel_gesummv(alpha, beta, A, B, x):
    """y := alpha * A * x + beta * B * x"""
    tmp = A @ x
    y = alpha * tmp + beta * (B @ x)
    return y


def kernel_mvt(x1, x2, y_1, y_2, A):
    """Two matrix-vector products: x1 += A * y_1 and x2 += A^T * y_2."""
    x1 += A @ y_1
    x2 += y_2 @ A


def kernel_symm(alpha, beta, C, A, B):
    """C := alpha * A * B + beta * C with A symmetric, only its lower triangle stored."""
    m = C.shape[0]
    for i in range(m):
        C[:i, :] += alpha * np.outer(A[i, :i], B[i, :])
        temp2 = A[i, :i] @ B[:i, :]
        C[i, :] = beta * C[i, :] + alpha * A[i, i] * B[i, :] + alpha * temp2


def kernel_syr2k(alpha, beta, C, A, B):
    """Lower triangle of C := alpha * A * B^T + alpha * B * A^T + beta * C."""
    n = C.shape[0]
    for i in range(n):
        C[i, : i + 1] *= beta
        C[i, : i + 1] += alpha * (A[: i + 1, :] @ B[i, :] + B[: i + 1, :] @ A[i, :])


def kernel_syrk(alpha, beta, C, A):
    """Lower triangle of C := alpha * A * A^T + beta * C."""
    n = C.shape[0]
    for i in range(n):
        C[i, : i + 1] *= beta
        C[i, : i + 1] += alpha * A[: i + 1] @ A[i]


def kernel_trmm(alpha, A, B):
    """B := alpha * A^T * B with A unit lower triangular (only its strict lower part is read)."""
    m = B.shape[0]
    for i in range(m):
        B[i, :] += A[i + 1 :, i] @ B[i + 1 :, :]
        B[i, :] *= alpha


# ---------------------------------------------------------------------------------------------
# inputs: call 0 is PolyBench's init_array (MINI dataset or a little larger), the others random


def _fill(rng, shape, formula, lo=-2.0, hi=2.0):
    """PolyBench's deterministic initialisation when rng is None, else uniform random values."""
    if rng is None:
        return np.fromfunction(formula, shape, dtype=np.int64).astype(np.float64)
    return rng.uniform(lo, hi, shape)


def _scalar(rng, default):
    return default if rng is None else float(np.round(rng.uniform(-2.0, 2.0), 3))


def _three(make):
    return lambda rng: [make(None), make(rng), make(rng)]


def _args_2mm(rng, ni=16, nj=18, nk=22, nl=24):
    A = _fill(rng, (ni, nk), lambda i, k: (i * k + 1) % ni / ni)
    B = _fill(rng, (nk, nj), lambda k, j: k * (j + 1) % nj / nj)
    C = _fill(rng, (nj, nl), lambda j, c: (j * (c + 3) + 1) % nl / nl)
    D = _fill(rng, (ni, nl), lambda i, c: i * (c + 2) % nk / nk)
    return _scalar(rng, 1.5), _scalar(rng, 1.2), np.zeros((ni, nj)), A, B, C, D


def _args_3mm(rng, ni=16, nj=18, nk=20, nl=22, nm=24):
    A = _fill(rng, (ni, nk), lambda i, j: (i * j + 1) % ni / (5 * ni))
    B = _fill(rng, (nk, nj), lambda i, j: (i * (j + 1) + 2) % nj / (5 * nj))
    C = _fill(rng, (nj, nm), lambda i, j: i * (j + 3) % nl / (5 * nl))
    D = _fill(rng, (nm, nl), lambda i, j: (i * (j + 2) + 2) % nk / (5 * nk))
    return np.zeros((ni, nj)), A, B, np.zeros((nj, nl)), C, D, np.zeros((ni, nl))


def _args_atax(rng, m=38, n=42):
    A = _fill(rng, (m, n), lambda i, j: (i + j) % n / (5 * m))
    return A, _fill(rng, (n,), lambda i: 1 + i / n)


def _args_bicg(rng, n=42, m=38):
    A = _fill(rng, (n, m), lambda i, j: i * (j + 1) % n / n)
    return A, _fill(rng, (m,), lambda i: i % m / m), _fill(rng, (n,), lambda i: i % n / n)


def _args_doitgen(rng, nr=10, nq=8, np_=12):
    A = _fill(rng, (nr, nq, np_), lambda r, q, p: (r * q + p) % np_ / np_)
    C4 = _fill(rng, (np_, np_), lambda i, j: i * j % np_ / np_)
    return A, C4, np.zeros(np_)


def _args_gemm(rng, ni=20, nj=25, nk=30):
    C = _fill(rng, (ni, nj), lambda i, j: (i * j + 1) % ni / ni)
    A = _fill(rng, (ni, nk), lambda i, k: i * (k + 1) % nk / nk)
    B = _fill(rng, (nk, nj), lambda k, j: k * (j + 2) % nj / nj)
    return _scalar(rng, 1.5), _scalar(rng, 1.2), C, A, B


def _args_gemver(rng, n=40):
    A = _fill(rng, (n, n), lambda i, j: i * j % n / n)
    u1 = _fill(rng, (n,), lambda i: i * 1.0)
    u2 = _fill(rng, (n,), lambda i: (i + 1) / n / 2.0)
    v1 = _fill(rng, (n,), lambda i: (i + 1) / n / 4.0)
    v2 = _fill(rng, (n,), lambda i: (i + 1) / n / 6.0)
    y = _fill(rng, (n,), lambda i: (i + 1) / n / 8.0)
    z = _fill(rng, (n,), lambda i: (i + 1) / n / 9.0)
    return _scalar(rng, 1.5), _scalar(rng, 1.2), A, u1, v1, u2, v2, np.zeros(n), np.zeros(n), y, z


def _args_gesummv(rng, n=30):
    A = _fill(rng, (n, n), lambda i, j: (i * j + 1) % n / n)
    B = _fill(rng, (n, n), lambda i, j: (i * j + 2) % n / n)
    return _scalar(rng, 1.5), _scalar(rng, 1.2), A, B, _fill(rng, (n,), lambda i: i % n / n)


def _args_mvt(rng, n=40):
    return (
        _fill(rng, (n,), lambda i: i % n / n),
        _fill(rng, (n,), lambda i: (i + 1) % n / n),
        _fill(rng, (n,), lambda i: (i + 3) % n / n),
        _fill(rng, (n,), lambda i: (i + 4) % n / n),
        _fill(rng, (n, n), lambda i, j: i * j % n / n),
    )


def _args_symm(rng, m=20, n=30):
    C = _fill(rng, (m, n), lambda i, j: (i + j) % 100 / m)
    B = _fill(rng, (m, n), lambda i, j: (n + i - j) % 100 / m)
    A = _fill(rng, (m, m), lambda i, j: np.where(j <= i, (i + j) % 100 / m, -999.0))
    return _scalar(rng, 1.5), _scalar(rng, 1.2), C, A, B


def _args_syr2k(rng, n=30, m=20):
    A = _fill(rng, (n, m), lambda i, j: (i * j + 1) % n / n)
    B = _fill(rng, (n, m), lambda i, j: (i * j + 2) % m / m)
    C = _fill(rng, (n, n), lambda i, j: (i * j + 3) % n / m)
    return _scalar(rng, 1.5), _scalar(rng, 1.2), C, A, B


def _args_syrk(rng, n=30, m=20):
    A = _fill(rng, (n, m), lambda i, j: (i * j + 1) % n / n)
    C = _fill(rng, (n, n), lambda i, j: (i * j + 2) % m / m)
    return _scalar(rng, 1.5), _scalar(rng, 1.2), C, A


def _args_trmm(rng, m=20, n=30):
    A = _fill(rng, (m, m), lambda i, j: np.where(j < i, (i + j) % m / m, np.where(i == j, 1.0, 0.0)))
    B = _fill(rng, (m, n), lambda i, j: (n + (i - j)) % n / n)
    return _scalar(rng, 1.5), A, B


INPUTS = {
    "kernel_2mm": _three(_args_2mm),
    "kernel_3mm": _three(_args_3mm),
    "kernel_atax": _three(_args_atax),
    "kernel_bicg": _three(_args_bicg),
    "kernel_doitgen": _three(_args_doitgen),
    "kernel_gemm": _three(_args_gemm),
    "kernel_gemver": _three(_args_gemver),
    "kernel_gesummv": _three(_args_gesummv),
    "kernel_mvt": _three(_args_mvt),
    "kernel_symm": _three(_args_symm),
    "kernel_syr2k": _three(_args_syr2k),
    "kernel_syrk": _three(_args_syrk),
    "kernel_trmm": _three(_args_trmm),
}

SCOPE = {name: "in" for name in INPUTS}

# PolyBench's LARGE dataset: array arguments -> shape (float64), size scalars -> value; every
# kernel's arrays then need megabytes, far beyond the 630 KB of BRAM of a Zynq-7020
REALISTIC_SIZES = {
    "kernel_2mm": {"tmp": (800, 900), "A": (800, 1100), "B": (1100, 900), "C": (900, 1200), "D": (800, 1200)},
    "kernel_3mm": {
        "E": (800, 900),
        "A": (800, 1000),
        "B": (1000, 900),
        "F": (900, 1100),
        "C": (900, 1200),
        "D": (1200, 1100),
        "G": (800, 1100),
    },
    "kernel_atax": {"A": (1900, 2100), "x": (2100,)},
    "kernel_bicg": {"A": (2100, 1900), "p": (1900,), "r": (2100,)},
    "kernel_doitgen": {"A": (150, 140, 160), "C4": (160, 160), "sum": (160,)},
    "kernel_gemm": {"C": (1000, 1100), "A": (1000, 1200), "B": (1200, 1100)},
    "kernel_gemver": {
        "A": (2000, 2000),
        **{v: (2000,) for v in ("u1", "v1", "u2", "v2", "w", "x", "y", "z")},
    },
    "kernel_gesummv": {"A": (1300, 1300), "B": (1300, 1300), "x": (1300,)},
    "kernel_mvt": {"x1": (2000,), "x2": (2000,), "y_1": (2000,), "y_2": (2000,), "A": (2000, 2000)},
    "kernel_symm": {"C": (1000, 1200), "A": (1000, 1000), "B": (1000, 1200)},
    "kernel_syr2k": {"C": (1200, 1200), "A": (1200, 1000), "B": (1200, 1000)},
    "kernel_syrk": {"C": (1200, 1200), "A": (1200, 1000)},
    "kernel_trmm": {"A": (1000, 1000), "B": (1000, 1200)},
}


# ---------------------------------------------------------------------------------------------
# references: the mathematics of each kernel written with whole matrices


def _sym_lower(A):
    return np.tril(A) + np.tril(A, -1).T


def _ref_syr2k(alpha, beta, C, A, B):
    full = alpha * (A @ B.T + B @ A.T) + beta * C
    return None, {2: np.tril(full) + np.triu(C, 1)}


def _ref_syrk(alpha, beta, C, A):
    return None, {2: np.tril(alpha * A @ A.T + beta * C) + np.triu(C, 1)}


def _ref_gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A2 = A + u1[:, None] * v1[None, :] + u2[:, None] * v2[None, :]
    x2 = x + beta * A2.T @ y + z
    return None, {2: A2, 7: w + alpha * A2 @ x2, 8: x2}


_REFERENCES = {
    "kernel_2mm": lambda al, be, tmp, A, B, C, D: (None, {2: al * A @ B, 6: al * A @ B @ C + be * D}),
    "kernel_3mm": lambda E, A, B, F, C, D, G: (None, {0: A @ B, 3: C @ D, 6: (A @ B) @ (C @ D)}),
    "kernel_atax": lambda A, x: (A.T @ (A @ x), {}),
    "kernel_bicg": lambda A, p, r: ((A.T @ r, A @ p), {}),
    "kernel_doitgen": lambda A, C4, s: (None, {0: np.einsum("rqs,sp->rqp", A, C4)}),
    "kernel_gemm": lambda al, be, C, A, B: (None, {2: al * A @ B + be * C}),
    "kernel_gemver": _ref_gemver,
    "kernel_gesummv": lambda al, be, A, B, x: (al * A @ x + be * B @ x, {}),
    "kernel_mvt": lambda x1, x2, y1, y2, A: (None, {0: x1 + A @ y1, 1: x2 + A.T @ y2}),
    "kernel_symm": lambda al, be, C, A, B: (None, {2: al * _sym_lower(A) @ B + be * C}),
    "kernel_syr2k": _ref_syr2k,
    "kernel_syrk": _ref_syrk,
    "kernel_trmm": lambda al, A, B: (None, {2: al * (np.eye(len(A)) + np.tril(A, -1)).T @ B}),
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    return run_cases(globals())


if __name__ == "__main__":
    _selfcheck()
