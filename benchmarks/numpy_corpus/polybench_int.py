"""PolyBench/C 4.2 linear-algebra kernels on integer data (int32, some int16 inputs).

PolyBench builds every kernel with `-DDATA_TYPE_IS_INT` as well as in double; these are the
NumPy ports of that integer build, the form a hardware engineer uses for a bit-exact golden
model of an accelerator (integer arithmetic wraps like the C kernel's). Some keep PolyBench's
row-at-a-time loop structure (a running `y += tmp[i] * A[i, :]`), some are whole-matrix.
"""

import numpy as np


def kernel_gemm_int(alpha, beta, C, A, B):
    """C := alpha * A * B + beta * C on int32 matrices."""
    C[:] = alpha * (A @ B) + beta * C


def kernel_gemm_fixed(A, B, shift):
    """Q-format matrix product: int16 operands, int32 accumulation, rescaled by `shift` bits."""
    acc = A.astype(np.int32) @ B.astype(np.int32)
    return np.clip(acc >> shift, -32768, 32767).astype(np.int16)


def kernel_2mm_int(alpha, beta, tmp, A, B, C, D):
    """D := alpha * A * B * C + beta * D on int32 matrices."""
    tmp[:] = alpha * np.dot(A, B)
    D[:] = np.dot(tmp, C) + beta * D


def kernel_3mm_int(A, B, C, D):
    """G := (A * B) * (C * D), returning the intermediate products too."""
    E = np.matmul(A, B)
    F = np.matmul(C, D)
    G = np.matmul(E, F)
    return E, F, G


def kernel_atax_int(A, x, y, tmp):
    """y := A^T * (A * x), one row of A at a time as in the C kernel."""
    y[:] = 0
    for i in range(A.shape[0]):
        tmp[i] = np.dot(A[i, :], x)
        y += tmp[i] * A[i, :]


def kernel_bicg_int(A, s, q, p, r):
    """s := A^T * r and q := A * p, row by row."""
    s[:] = 0
    for i in range(A.shape[0]):
        s += r[i] * A[i, :]
        q[i] = np.sum(A[i, :] * p)


def kernel_mvt_int(x1, x2, y_1, y_2, A):
    """x1 += A * y_1 and x2 += A^T * y_2 with an int16 matrix and int32 vectors."""
    A32 = A.astype(np.int32)
    x1 += A32 @ y_1
    x2 += A32.T @ y_2


def kernel_gesummv_int(alpha, beta, A, B, x):
    """y := alpha * A * x + beta * B * x"""
    return alpha * np.dot(A, x) + beta * np.dot(B, x)


def kernel_gemver_int(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    """GEMVER on int32 data."""
    A += np.outer(u1, v1)
    A += np.outer(u2, v2)
    x += beta * (A.T @ y) + z
    w += alpha * (A @ x)


def kernel_syrk_int(alpha, beta, C, A):
    """Lower triangle of C := alpha * A * A^T + beta * C."""
    for i in range(C.shape[0]):
        C[i, : i + 1] = beta * C[i, : i + 1] + alpha * np.dot(A[: i + 1], A[i])


def kernel_syr2k_int(alpha, beta, C, A, B):
    """Lower triangle of C := alpha * (A * B^T + B * A^T) + beta * C, k loop kept as in C."""
    n, m = A.shape
    for i in range(n):
        C[i, : i + 1] *= beta
        for k in range(m):
            C[i, : i + 1] += A[: i + 1, k] * alpha * B[i, k] + B[: i + 1, k] * alpha * A[i, k]


def kernel_symm_int(alpha, beta, C, A, B):
    """C := alpha * A * B + beta * C, A symmetric from its lower triangle."""
    m, n = C.shape
    for i in range(m):
        for j in range(n):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2 = np.dot(B[:i, j], A[i, :i])
            C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * temp2


def kernel_trmm_int(alpha, A, B):
    """B := alpha * A^T * B, A unit lower triangular."""
    m, n = B.shape
    for i in range(m):
        for j in range(n):
            B[i, j] += np.dot(A[i + 1 :, i], B[i + 1 :, j])
            B[i, j] = alpha * B[i, j]


def kernel_doitgen_int(A, C4):
    """A[r, :, :] := A[r, :, :] * C4 for every r of the 3-D int32 array."""
    for r in range(A.shape[0]):
        A[r, :, :] = A[r, :, :] @ C4


# ---------------------------------------------------------------------------------------------
# inputs: call 0 is PolyBench's integer init_array, the others random with negatives


def _fill(rng, shape, formula, lo=-100, hi=100, dtype=np.int32):
    if rng is None:
        return np.fromfunction(formula, shape, dtype=np.int64).astype(dtype)
    return rng.integers(lo, hi, shape).astype(dtype)


def _scalar(rng, default):
    return default if rng is None else int(rng.integers(-4, 5))


def _three(make):
    return lambda rng: [make(None), make(rng), make(rng)]


def _args_gemm(rng, ni=20, nj=25, nk=30):
    C = _fill(rng, (ni, nj), lambda i, j: (i * j + 1) % ni)
    A = _fill(rng, (ni, nk), lambda i, k: i * (k + 1) % nk)
    B = _fill(rng, (nk, nj), lambda k, j: k * (j + 2) % nj)
    return _scalar(rng, 3), _scalar(rng, 2), C, A, B


def _args_gemm_fixed(rng, n=16, shift=8):
    A = _fill(rng, (n, n), lambda i, j: (i * j * 97) % 512 - 256, -4096, 4096, np.int16)
    B = _fill(rng, (n, n), lambda i, j: (i + 3 * j) % 256, -4096, 4096, np.int16)
    return A, B, shift if rng is None else int(rng.integers(4, 16))


def _args_2mm(rng, ni=16, nj=18, nk=22, nl=24):
    A = _fill(rng, (ni, nk), lambda i, k: (i * k + 1) % ni, -50, 50)
    B = _fill(rng, (nk, nj), lambda k, j: k * (j + 1) % nj, -50, 50)
    C = _fill(rng, (nj, nl), lambda j, c: (j * (c + 3) + 1) % nl, -50, 50)
    D = _fill(rng, (ni, nl), lambda i, c: i * (c + 2) % nk, -50, 50)
    return _scalar(rng, 3), _scalar(rng, 2), np.zeros((ni, nj), np.int32), A, B, C, D


def _args_3mm(rng, ni=16, nj=18, nk=20, nl=22, nm=24):
    A = _fill(rng, (ni, nk), lambda i, j: (i * j + 1) % 7, -10, 10)
    B = _fill(rng, (nk, nj), lambda i, j: (i * (j + 1) + 2) % 7, -10, 10)
    C = _fill(rng, (nj, nm), lambda i, j: i * (j + 3) % 7, -10, 10)
    D = _fill(rng, (nm, nl), lambda i, j: (i * (j + 2) + 2) % 7, -10, 10)
    return A, B, C, D


def _args_atax(rng, m=38, n=42):
    A = _fill(rng, (m, n), lambda i, j: (i + j) % n)
    x = _fill(rng, (n,), lambda i: 1 + i)
    return A, x, np.zeros(n, np.int32), np.zeros(m, np.int32)


def _args_bicg(rng, n=42, m=38):
    A = _fill(rng, (n, m), lambda i, j: i * (j + 1) % n)
    p = _fill(rng, (m,), lambda i: i % m)
    r = _fill(rng, (n,), lambda i: i % n)
    return A, np.zeros(m, np.int32), np.zeros(n, np.int32), p, r


def _args_mvt(rng, n=40):
    return (
        _fill(rng, (n,), lambda i: i % n),
        _fill(rng, (n,), lambda i: (i + 1) % n),
        _fill(rng, (n,), lambda i: (i + 3) % n),
        _fill(rng, (n,), lambda i: (i + 4) % n),
        _fill(rng, (n, n), lambda i, j: i * j % n - n // 2, -32768, 32768, np.int16),
    )


def _args_gesummv(rng, n=30):
    A = _fill(rng, (n, n), lambda i, j: (i * j + 1) % n)
    B = _fill(rng, (n, n), lambda i, j: (i * j + 2) % n)
    return _scalar(rng, 3), _scalar(rng, 2), A, B, _fill(rng, (n,), lambda i: i % n)


def _args_gemver(rng, n=40):
    A = _fill(rng, (n, n), lambda i, j: i * j % n, -20, 20)
    vecs = [_fill(rng, (n,), lambda i, c=c: (i + c) % 9 - 4, -20, 20) for c in range(4)]
    y = _fill(rng, (n,), lambda i: (i + 1) % 8, -20, 20)
    z = _fill(rng, (n,), lambda i: (i + 1) % 9, -20, 20)
    w, x = np.zeros(n, np.int32), np.zeros(n, np.int32)
    return (_scalar(rng, 3), _scalar(rng, 2), A, *vecs, w, x, y, z)


def _args_syrk(rng, n=30, m=20):
    A = _fill(rng, (n, m), lambda i, j: (i * j + 1) % n)
    C = _fill(rng, (n, n), lambda i, j: (i * j + 2) % m)
    return _scalar(rng, 3), _scalar(rng, 2), C, A


def _args_syr2k(rng, n=30, m=20):
    A = _fill(rng, (n, m), lambda i, j: (i * j + 1) % n)
    B = _fill(rng, (n, m), lambda i, j: (i * j + 2) % m)
    C = _fill(rng, (n, n), lambda i, j: (i * j + 3) % n)
    return _scalar(rng, 3), _scalar(rng, 2), C, A, B


def _args_symm(rng, m=20, n=30):
    C = _fill(rng, (m, n), lambda i, j: (i + j) % 100)
    B = _fill(rng, (m, n), lambda i, j: (n + i - j) % 100)
    A = _fill(rng, (m, m), lambda i, j: np.where(j <= i, (i + j) % 100, -999))
    return _scalar(rng, 3), _scalar(rng, 2), C, A, B


def _args_trmm(rng, m=20, n=30):
    A = _fill(rng, (m, m), lambda i, j: np.where(j < i, (i + j) % m, np.where(i == j, 1, 0)), -9, 10)
    B = _fill(rng, (m, n), lambda i, j: (n + (i - j)) % n, -9, 10)
    return _scalar(rng, 3), A, B


def _args_doitgen(rng, nr=10, nq=8, np_=12):
    A = _fill(rng, (nr, nq, np_), lambda r, q, p: (r * q + p) % np_)
    C4 = _fill(rng, (np_, np_), lambda i, j: i * j % np_)
    return A, C4


INPUTS = {
    "kernel_gemm_int": _three(_args_gemm),
    "kernel_gemm_fixed": _three(_args_gemm_fixed),
    "kernel_2mm_int": _three(_args_2mm),
    "kernel_3mm_int": _three(_args_3mm),
    "kernel_atax_int": _three(_args_atax),
    "kernel_bicg_int": _three(_args_bicg),
    "kernel_mvt_int": _three(_args_mvt),
    "kernel_gesummv_int": _three(_args_gesummv),
    "kernel_gemver_int": _three(_args_gemver),
    "kernel_syrk_int": _three(_args_syrk),
    "kernel_syr2k_int": _three(_args_syr2k),
    "kernel_symm_int": _three(_args_symm),
    "kernel_trmm_int": _three(_args_trmm),
    "kernel_doitgen_int": _three(_args_doitgen),
}

SCOPE = {name: "in" for name in INPUTS}

# PolyBench's LARGE dataset (int32 arrays, the int16 ones where the kernel takes int16)
REALISTIC_SIZES = {
    "kernel_gemm_int": {"C": (1000, 1100), "A": (1000, 1200), "B": (1200, 1100)},
    "kernel_gemm_fixed": {"A": (1024, 1024), "B": (1024, 1024)},
    "kernel_2mm_int": {
        "tmp": (800, 900),
        "A": (800, 1100),
        "B": (1100, 900),
        "C": (900, 1200),
        "D": (800, 1200),
    },
    "kernel_3mm_int": {"A": (800, 1000), "B": (1000, 900), "C": (900, 1200), "D": (1200, 1100)},
    "kernel_atax_int": {"A": (1900, 2100), "x": (2100,), "y": (2100,), "tmp": (1900,)},
    "kernel_bicg_int": {"A": (2100, 1900), "s": (1900,), "q": (2100,), "p": (1900,), "r": (2100,)},
    "kernel_mvt_int": {"x1": (2000,), "x2": (2000,), "y_1": (2000,), "y_2": (2000,), "A": (2000, 2000)},
    "kernel_gesummv_int": {"A": (1300, 1300), "B": (1300, 1300), "x": (1300,)},
    "kernel_gemver_int": {
        "A": (2000, 2000),
        **{v: (2000,) for v in ("u1", "v1", "u2", "v2", "w", "x", "y", "z")},
    },
    "kernel_syrk_int": {"C": (1200, 1200), "A": (1200, 1000)},
    "kernel_syr2k_int": {"C": (1200, 1200), "A": (1200, 1000), "B": (1200, 1000)},
    "kernel_symm_int": {"C": (1000, 1200), "A": (1000, 1000), "B": (1000, 1200)},
    "kernel_trmm_int": {"A": (1000, 1000), "B": (1000, 1200)},
    "kernel_doitgen_int": {"A": (150, 140, 160), "C4": (160, 160)},
}


# ---------------------------------------------------------------------------------------------
# references: whole-matrix integer mathematics in int64, wrapped to int32 at the end


def _i32(a):
    return np.asarray(a, dtype=np.int64).astype(np.int32)


def _w(a):
    return np.asarray(a, dtype=np.int64)


def _ref_fixed(A, B, shift):
    acc = _i32(_w(A) @ _w(B))
    return np.clip(acc >> shift, -32768, 32767).astype(np.int16), {}


def _ref_2mm(al, be, tmp, A, B, C, D):
    t = al * (_w(A) @ _w(B))
    return None, {2: _i32(t), 6: _i32(t @ _w(C) + be * _w(D))}


def _ref_gemver(al, be, A, u1, v1, u2, v2, w, x, y, z):
    A2 = _w(A) + np.outer(_w(u1), _w(v1)) + np.outer(_w(u2), _w(v2))
    x2 = _w(x) + be * (A2.T @ _w(y)) + _w(z)
    return None, {2: _i32(A2), 7: _i32(_w(w) + al * (A2 @ x2)), 8: _i32(x2)}


def _ref_syr2k(al, be, C, A, B):
    full = al * (_w(A) @ _w(B).T + _w(B) @ _w(A).T) + be * _w(C)
    return None, {2: _i32(np.tril(full) + np.triu(C, 1))}


def _ref_symm(al, be, C, A, B):
    S = np.tril(_w(A)) + np.tril(_w(A), -1).T
    return None, {2: _i32(al * S @ _w(B) + be * _w(C))}


def _ref_trmm(al, A, B):
    U = (np.eye(len(A), dtype=np.int64) + np.tril(_w(A), -1)).T
    return None, {2: _i32(al * U @ _w(B))}


_REFERENCES = {
    "kernel_gemm_int": lambda al, be, C, A, B: (None, {2: _i32(al * (_w(A) @ _w(B)) + be * _w(C))}),
    "kernel_gemm_fixed": _ref_fixed,
    "kernel_2mm_int": _ref_2mm,
    "kernel_3mm_int": lambda A, B, C, D: (
        (_i32(_w(A) @ _w(B)), _i32(_w(C) @ _w(D)), _i32((_w(A) @ _w(B)) @ (_w(C) @ _w(D)))),
        {},
    ),
    "kernel_atax_int": lambda A, x, y, tmp: (
        None,
        {2: _i32(_w(A).T @ (_w(A) @ _w(x))), 3: _i32(_w(A) @ _w(x))},
    ),
    "kernel_bicg_int": lambda A, s, q, p, r: (None, {1: _i32(_w(A).T @ _w(r)), 2: _i32(_w(A) @ _w(p))}),
    "kernel_mvt_int": lambda x1, x2, y1, y2, A: (
        None,
        {0: _i32(_w(x1) + _w(A) @ _w(y1)), 1: _i32(_w(x2) + _w(A).T @ _w(y2))},
    ),
    "kernel_gesummv_int": lambda al, be, A, B, x: (_i32(al * (_w(A) @ _w(x)) + be * (_w(B) @ _w(x))), {}),
    "kernel_gemver_int": _ref_gemver,
    "kernel_syrk_int": lambda al, be, C, A: (
        None,
        {2: _i32(np.tril(al * _w(A) @ _w(A).T + be * _w(C)) + np.triu(C, 1))},
    ),
    "kernel_syr2k_int": _ref_syr2k,
    "kernel_symm_int": _ref_symm,
    "kernel_trmm_int": _ref_trmm,
    "kernel_doitgen_int": lambda A, C4: (None, {0: _i32(np.einsum("rqs,sp->rqp", _w(A), _w(C4)))}),
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    return run_cases(globals())


if __name__ == "__main__":
    _selfcheck()
