"""PolyBench/C 4.2 stencils in NumPy, double precision: time loops around shifted-slice updates.

Jacobi 1-D/2-D, 3-D heat, 2-D FDTD (with PolyBench's `_fict_` source array), Gauss-Seidel and
the ADI tridiagonal sweeps, written as a computational scientist vectorises them: the time loop
stays a Python loop, the space loops become offset slices (`A[2:, 1:-1]`), and where a loop
carries a dependence (Seidel's row, ADI's Thomas recursion) only that loop stays scalar while
the independent direction is a whole slice.
"""

import numpy as np


def kernel_adi(tsteps, u, v, p, q):
    """Alternating Direction Implicit solver of 2-D heat conduction (column then row sweeps)."""
    n = u.shape[0]
    DX = 1.0 / n
    DY = 1.0 / n
    DT = 1.0 / tsteps
    B1 = 2.0
    B2 = 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul1
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    for t in range(1, tsteps + 1):
        # column sweep: one tridiagonal system per column i, solved for all i at once
        v[0, 1 : n - 1] = 1.0
        p[1 : n - 1, 0] = 0.0
        q[1 : n - 1, 0] = v[0, 1 : n - 1]
        for j in range(1, n - 1):
            p[1 : n - 1, j] = -c / (a * p[1 : n - 1, j - 1] + b)
            q[1 : n - 1, j] = (
                -d * u[j, 0 : n - 2]
                + (1.0 + 2.0 * d) * u[j, 1 : n - 1]
                - f * u[j, 2:n]
                - a * q[1 : n - 1, j - 1]
            ) / (a * p[1 : n - 1, j - 1] + b)
        v[n - 1, 1 : n - 1] = 1.0
        for j in range(n - 2, 0, -1):
            v[j, 1 : n - 1] = p[1 : n - 1, j] * v[j + 1, 1 : n - 1] + q[1 : n - 1, j]
        # row sweep
        u[1 : n - 1, 0] = 1.0
        p[1 : n - 1, 0] = 0.0
        q[1 : n - 1, 0] = u[1 : n - 1, 0]
        for j in range(1, n - 1):
            p[1 : n - 1, j] = -f / (d * p[1 : n - 1, j - 1] + e)
            q[1 : n - 1, j] = (
                -a * v[0 : n - 2, j]
                + (1.0 + 2.0 * a) * v[1 : n - 1, j]
                - c * v[2:n, j]
                - d * q[1 : n - 1, j - 1]
            ) / (d * p[1 : n - 1, j - 1] + e)
        u[1 : n - 1, n - 1] = 1.0
        for j in range(n - 2, 0, -1):
            u[1 : n - 1, j] = p[1 : n - 1, j] * u[1 : n - 1, j + 1] + q[1 : n - 1, j]


def kernel_fdtd_2d(tmax, ex, ey, hz, _fict_):
    """2-D finite-difference time-domain (TE mode): E and H fields leapfrogged on a Yee grid."""
    for t in range(tmax):
        ey[0, :] = _fict_[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def kernel_heat_3d(tsteps, A, B):
    """3-D heat equation, explicit scheme, ping-ponging between A and B."""
    for t in range(1, tsteps + 1):
        B[1:-1, 1:-1, 1:-1] = (
            0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
            + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
            + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
            + A[1:-1, 1:-1, 1:-1]
        )
        A[1:-1, 1:-1, 1:-1] = (
            0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
            + 0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
            + 0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2])
            + B[1:-1, 1:-1, 1:-1]
        )


def kernel_jacobi_1d(tsteps, A, B):
    """1-D Jacobi: three-point average, alternating between A and B."""
    for t in range(tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def kernel_jacobi_2d(tsteps, A, B):
    """2-D Jacobi: five-point average, alternating between A and B."""
    for t in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def kernel_seidel_2d(tsteps, A):
    """2-D Gauss-Seidel: in-place nine-point average; rows above are already new, below still old."""
    n = A.shape[0]
    for t in range(tsteps):
        for i in range(1, n - 1):
            # everything but the left neighbour is known before the row starts
            partial = (
                A[i - 1, :-2]
                + A[i - 1, 1:-1]
                + A[i - 1, 2:]
                + A[i, 1:-1]
                + A[i, 2:]
                + A[i + 1, :-2]
                + A[i + 1, 1:-1]
                + A[i + 1, 2:]
            )
            for j in range(1, n - 1):
                A[i, j] = (partial[j - 1] + A[i, j - 1]) / 9.0


# ---------------------------------------------------------------------------------------------
# inputs: call 0 is PolyBench's init_array (MINI dataset), the others random


def _fill(rng, shape, formula):
    if rng is None:
        return np.fromfunction(formula, shape, dtype=np.int64).astype(np.float64)
    return rng.uniform(-1.0, 1.0, shape)


def _three(make):
    return lambda rng: [make(None), make(rng), make(rng)]


def _steps(rng, default):
    return default if rng is None else int(rng.integers(1, default + 1))


def _args_adi(rng, n=20):
    u = _fill(rng, (n, n), lambda i, j: (i + n - j) / n)
    return _steps(rng, 20), u, np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))


def _args_fdtd(rng, tmax=20, nx=20, ny=30):
    ex = _fill(rng, (nx, ny), lambda i, j: i * (j + 1) / nx)
    ey = _fill(rng, (nx, ny), lambda i, j: i * (j + 2) / ny)
    hz = _fill(rng, (nx, ny), lambda i, j: i * (j + 3) / nx)
    fict = _fill(rng, (tmax,), lambda t: t * 1.0)
    return _steps(rng, tmax), ex, ey, hz, fict


def _args_heat(rng, n=10):
    A = _fill(rng, (n, n, n), lambda i, j, k: (i + j + (n - k)) * 10 / n)
    return _steps(rng, 20), A, A.copy()


def _args_jacobi_1d(rng, n=30):
    return _steps(rng, 20), _fill(rng, (n,), lambda i: (i + 2) / n), _fill(rng, (n,), lambda i: (i + 3) / n)


def _args_jacobi_2d(rng, n=30):
    A = _fill(rng, (n, n), lambda i, j: (i * (j + 2) + 2) / n)
    B = _fill(rng, (n, n), lambda i, j: (i * (j + 3) + 3) / n)
    return _steps(rng, 20), A, B


def _args_seidel(rng, n=40):
    return _steps(rng, 20), _fill(rng, (n, n), lambda i, j: (i * (j + 2) + 2) / n)


INPUTS = {
    "kernel_adi": _three(_args_adi),
    "kernel_fdtd_2d": _three(_args_fdtd),
    "kernel_heat_3d": _three(_args_heat),
    "kernel_jacobi_1d": _three(_args_jacobi_1d),
    "kernel_jacobi_2d": _three(_args_jacobi_2d),
    "kernel_seidel_2d": _three(_args_seidel),
}

SCOPE = {name: "in" for name in INPUTS}

# PolyBench's LARGE dataset (float64 grids; time steps as values)
REALISTIC_SIZES = {
    "kernel_adi": {"tsteps": 500, "u": (1000, 1000), "v": (1000, 1000), "p": (1000, 1000), "q": (1000, 1000)},
    "kernel_fdtd_2d": {
        "tmax": 500,
        "ex": (1000, 1200),
        "ey": (1000, 1200),
        "hz": (1000, 1200),
        "_fict_": (500,),
    },
    "kernel_heat_3d": {"tsteps": 500, "A": (120, 120, 120), "B": (120, 120, 120)},
    "kernel_jacobi_1d": {"tsteps": 500, "A": (2000,), "B": (2000,)},
    "kernel_jacobi_2d": {"tsteps": 500, "A": (1300, 1300), "B": (1300, 1300)},
    "kernel_seidel_2d": {"tsteps": 500, "A": (2000, 2000)},
}


# ---------------------------------------------------------------------------------------------
# references: the C loop nests, element by element


def _ref_adi(tsteps, u, v, p, q):
    n = len(u)
    dx = dy = 1.0 / n
    dt = 1.0 / tsteps
    mul1, mul2 = 2.0 * dt / (dx * dx), 1.0 * dt / (dy * dy)
    a = c = -mul1 / 2.0
    b = 1.0 + mul1
    d = f = -mul2 / 2.0
    e = 1.0 + mul2
    for _ in range(tsteps):
        for i in range(1, n - 1):
            v[0][i] = 1.0
            p[i][0] = 0.0
            q[i][0] = v[0][i]
            for j in range(1, n - 1):
                p[i][j] = -c / (a * p[i][j - 1] + b)
                q[i][j] = (
                    -d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] - f * u[j][i + 1] - a * q[i][j - 1]
                ) / (a * p[i][j - 1] + b)
            v[n - 1][i] = 1.0
            for j in range(n - 2, 0, -1):
                v[j][i] = p[i][j] * v[j + 1][i] + q[i][j]
        for i in range(1, n - 1):
            u[i][0] = 1.0
            p[i][0] = 0.0
            q[i][0] = u[i][0]
            for j in range(1, n - 1):
                p[i][j] = -f / (d * p[i][j - 1] + e)
                q[i][j] = (
                    -a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] - c * v[i + 1][j] - d * q[i][j - 1]
                ) / (d * p[i][j - 1] + e)
            u[i][n - 1] = 1.0
            for j in range(n - 2, 0, -1):
                u[i][j] = p[i][j] * u[i][j + 1] + q[i][j]
    return None, {1: u, 2: v, 3: p, 4: q}


def _ref_fdtd(tmax, ex, ey, hz, fict):
    nx, ny = ex.shape
    for t in range(tmax):
        for j in range(ny):
            ey[0][j] = fict[t]
        for i in range(1, nx):
            for j in range(ny):
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j])
        for i in range(nx):
            for j in range(1, ny):
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1])
        for i in range(nx - 1):
            for j in range(ny - 1):
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j])
    return None, {1: ex, 2: ey, 3: hz}


def _heat_point(X, i, j, k):
    return (
        0.125 * (X[i + 1, j, k] - 2.0 * X[i, j, k] + X[i - 1, j, k])
        + 0.125 * (X[i, j + 1, k] - 2.0 * X[i, j, k] + X[i, j - 1, k])
        + 0.125 * (X[i, j, k + 1] - 2.0 * X[i, j, k] + X[i, j, k - 1])
        + X[i, j, k]
    )


def _ref_heat(tsteps, A, B):
    n = len(A)
    for _ in range(tsteps):
        for src, dst in ((A, B), (B, A)):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    for k in range(1, n - 1):
                        dst[i, j, k] = _heat_point(src, i, j, k)
    return None, {1: A, 2: B}


def _ref_jacobi_1d(tsteps, A, B):
    n = len(A)
    for _ in range(tsteps):
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
    return None, {1: A, 2: B}


def _ref_jacobi_2d(tsteps, A, B):
    n = len(A)
    for _ in range(tsteps):
        for src, dst in ((A, B), (B, A)):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    dst[i][j] = 0.2 * (
                        src[i][j] + src[i][j - 1] + src[i][1 + j] + src[1 + i][j] + src[i - 1][j]
                    )
    return None, {1: A, 2: B}


def _ref_seidel(tsteps, A):
    n = len(A)
    for _ in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i][j] = (
                    A[i - 1][j - 1]
                    + A[i - 1][j]
                    + A[i - 1][j + 1]
                    + A[i][j - 1]
                    + A[i][j]
                    + A[i][j + 1]
                    + A[i + 1][j - 1]
                    + A[i + 1][j]
                    + A[i + 1][j + 1]
                ) / 9.0
    return None, {1: A}


_REFERENCES = {
    "kernel_adi": _ref_adi,
    "kernel_fdtd_2d": _ref_fdtd,
    "kernel_heat_3d": _ref_heat,
    "kernel_jacobi_1d": _ref_jacobi_1d,
    "kernel_jacobi_2d": _ref_jacobi_2d,
    "kernel_seidel_2d": _ref_seidel,
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    return run_cases(globals())


if __name__ == "__main__":
    _selfcheck()
