"""Scientists' NumPy: PDE stencils, cellular automata and small particle simulations.

The code of lecture notes, lab notebooks and research scripts: a time loop around slice
stencils (`u[1:-1, 1:-1] = ...`, often after `un = u.copy()`), `np.roll` for periodic
neighbours, broadcasting with `np.newaxis` for pairwise interactions (an (N, N, 3) temporary),
`np.triu_indices`, convergence loops with a tolerance, boolean masks on particle arrays, and a
few routines that grow Python lists or draw random numbers.
"""

import numpy as np


def diffuse_2d(u, alpha, dt, dx, steps):
    """Explicit (FTCS) 2-D diffusion with fixed boundary values."""
    r = alpha * dt / dx**2
    for _ in range(steps):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + r * (
            u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
        )
    return u


def diffuse_3d(T, kappa, dt, h, steps):
    """3-D heat conduction, seven-point stencil on a copy of the previous step."""
    c = kappa * dt / h**2
    for n in range(steps):
        Tn = T.copy()
        T[1:-1, 1:-1, 1:-1] = Tn[1:-1, 1:-1, 1:-1] + c * (
            Tn[2:, 1:-1, 1:-1]
            + Tn[:-2, 1:-1, 1:-1]
            + Tn[1:-1, 2:, 1:-1]
            + Tn[1:-1, :-2, 1:-1]
            + Tn[1:-1, 1:-1, 2:]
            + Tn[1:-1, 1:-1, :-2]
            - 6.0 * Tn[1:-1, 1:-1, 1:-1]
        )


def wave_step(u_prev, u, c, dt, dx):
    """One leapfrog step of the 2-D wave equation with zero (clamped) boundaries."""
    C2 = (c * dt / dx) ** 2
    u_next = np.zeros_like(u)
    u_next[1:-1, 1:-1] = (
        2 * u[1:-1, 1:-1]
        - u_prev[1:-1, 1:-1]
        + C2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
    )
    return u_next


def laplace_jacobi(phi, tol, max_iter):
    """Jacobi iteration of Laplace's equation until the largest change is below tol."""
    it = 0
    err = tol + 1.0
    while err > tol and it < max_iter:
        new = phi.copy()
        new[1:-1, 1:-1] = 0.25 * (phi[2:, 1:-1] + phi[:-2, 1:-1] + phi[1:-1, 2:] + phi[1:-1, :-2])
        err = np.max(np.abs(new - phi))
        phi = new
        it += 1
    return phi, it


def poisson_jacobi(u, f, h, sweeps):
    """Jacobi sweeps of the Poisson equation -lap(u) = f with Dirichlet boundaries, in place."""
    for _ in range(sweeps):
        u[1:-1, 1:-1] = 0.25 * (
            u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] + h * h * f[1:-1, 1:-1]
        )


def life_step_roll(board):
    """Conway's Game of Life on a torus: neighbour counts from eight rolled copies."""
    neighbours = sum(
        np.roll(np.roll(board, dy, axis=0), dx, axis=1)
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dy, dx) != (0, 0)
    )
    return ((neighbours == 3) | ((board == 1) & (neighbours == 2))).astype(np.uint8)


def life_step_slices(Z):
    """Game of Life with a dead border, updated in place through slices and masks."""
    N = (
        Z[:-2, :-2] + Z[:-2, 1:-1] + Z[:-2, 2:]
        + Z[1:-1, :-2] + Z[1:-1, 2:]
        + Z[2:, :-2] + Z[2:, 1:-1] + Z[2:, 2:]
    )  # fmt: skip
    birth = (N == 3) & (Z[1:-1, 1:-1] == 0)
    survive = ((N == 2) | (N == 3)) & (Z[1:-1, 1:-1] == 1)
    Z[...] = 0
    Z[1:-1, 1:-1][birth | survive] = 1
    return Z


def nbody_step(pos, vel, mass, dt, G=1.0, soft=0.01):
    """Kick-drift step of a softened gravitational N-body system (all pairs by broadcasting)."""
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]
    r2 = np.sum(d**2, axis=2) + soft**2
    inv_r3 = r2**-1.5
    acc = G * np.sum(d * (inv_r3 * mass[np.newaxis, :])[:, :, np.newaxis], axis=1)
    vel += acc * dt
    pos += vel * dt


def spring_chain_verlet(x, v, k, m, dt, steps):
    """Velocity-Verlet of a chain of equal masses and springs with fixed ends; returns the energy."""
    a = np.zeros_like(x)
    a[1:-1] = k / m * (x[2:] - 2 * x[1:-1] + x[:-2])
    for _ in range(steps):
        x += v * dt + 0.5 * a * dt**2
        a_new = np.zeros_like(x)
        a_new[1:-1] = k / m * (x[2:] - 2 * x[1:-1] + x[:-2])
        v += 0.5 * (a + a_new) * dt
        a = a_new
    return 0.5 * m * np.sum(v**2) + 0.5 * k * np.sum(np.diff(x) ** 2)


def lennard_jones_energy(pos, epsilon, sigma):
    """Total Lennard-Jones potential energy of a cluster of atoms."""
    n = len(pos)
    diff = pos[:, None, :] - pos[None, :, :]
    r2 = (diff**2).sum(axis=-1)
    iu = np.triu_indices(n, k=1)
    sr6 = (sigma**2 / r2[iu]) ** 3
    return 4 * epsilon * np.sum(sr6**2 - sr6)


def heat_1d(T, alpha, dx, dt, t_end):
    """1-D heat equation, explicit, ends held at their values, integrated up to time t_end."""
    nsteps = int(t_end / dt)
    r = alpha * dt / dx**2
    for _ in range(nsteps):
        T[1:-1] += r * (T[2:] - 2 * T[1:-1] + T[:-2])
    return T


def heat_1d_implicit(T, r, steps):
    """Backward-Euler 1-D heat equation: a tridiagonal solve (Thomas algorithm) per step."""
    n = len(T)
    a = -r
    b = 1 + 2 * r
    c = -r
    cp = np.zeros(n)
    dp = np.zeros(n)
    for _ in range(steps):
        # interior unknowns 1..n-2, boundary values fixed
        d = T.copy()
        d[1] -= a * T[0]
        d[n - 2] -= c * T[n - 1]
        cp[1] = c / b
        dp[1] = d[1] / b
        for i in range(2, n - 1):
            denom = b - a * cp[i - 1]
            cp[i] = c / denom
            dp[i] = (d[i] - a * dp[i - 1]) / denom
        T[n - 2] = dp[n - 2]
        for i in range(n - 3, 0, -1):
            T[i] = dp[i] - cp[i] * T[i + 1]
    return T


def advect_upwind(q, u, dx, dt, steps):
    """First-order upwind advection on a periodic 1-D grid with a velocity field of either sign."""
    for _ in range(steps):
        back = (q - np.roll(q, 1)) / dx
        fwd = (np.roll(q, -1) - q) / dx
        q = q - dt * u * np.where(u > 0, back, fwd)
    return q


def bounce_particles(pos, vel, lo, hi, dt, steps):
    """Particles in a box: move, reflect the velocity of those that left, clamp them back."""
    for _ in range(steps):
        pos += vel * dt
        out = (pos < lo) | (pos > hi)
        vel[out] *= -1
        pos = np.clip(pos, lo, hi)
    return pos, vel


def rule30(cells, steps):
    """Wolfram's rule 30 on a ring: the history of the 1-D automaton, one row per step."""
    n = len(cells)
    history = np.zeros((steps, n), dtype=np.uint8)
    for t in range(steps):
        history[t] = cells
        left = np.roll(cells, 1)
        right = np.roll(cells, -1)
        cells = left ^ (cells | right)
    return history


def oscillator_rk4(y0, omega, dt, steps):
    """Classical RK4 for the harmonic oscillator y'' = -omega^2 y; returns the final state."""

    def f(y):
        return np.array([y[1], -(omega**2) * y[0]])

    y = y0.copy()
    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def cluster_sizes(grid):
    """Sizes of the 4-connected clusters of occupied sites (site percolation), largest first."""
    h, w = grid.shape
    seen = np.zeros(grid.shape, dtype=bool)
    sizes = []
    for i in range(h):
        for j in range(w):
            if grid[i, j] and not seen[i, j]:
                stack = [(i, j)]
                seen[i, j] = True
                size = 0
                while stack:
                    y, x = stack.pop()
                    size += 1
                    for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                        ny, nx = y + dy, x + dx
                        if 0 <= ny < h and 0 <= nx < w and grid[ny, nx] and not seen[ny, nx]:
                            seen[ny, nx] = True
                            stack.append((ny, nx))
                sizes.append(size)
    return sorted(sizes, reverse=True)


def logistic_adaptive(y0, rate, t_end, tol):
    """Logistic growth y' = rate * y * (1 - y) by Euler/Heun with adaptive steps; the trajectory."""
    t, y, h = 0.0, y0, 0.1
    ts, ys = [t], [y]
    while t < t_end:
        h = min(h, t_end - t)
        k1 = rate * y * (1 - y)
        k2 = rate * (y + h * k1) * (1 - (y + h * k1))
        err = abs(0.5 * h * (k2 - k1))
        if err <= tol:
            t += h
            y += 0.5 * h * (k1 + k2)
            ts.append(t)
            ys.append(y)
        h *= min(2.0, max(0.2, 0.9 * np.sqrt(tol / (err + 1e-300))))
    return np.array(ts), np.array(ys)


def estimate_pi(n, seed):
    """Monte Carlo estimate of pi from n random points in the unit square."""
    rng = np.random.default_rng(seed)
    xy = rng.random((n, 2))
    inside = np.count_nonzero(np.sum(xy**2, axis=1) <= 1.0)
    return 4.0 * inside / n


# ---------------------------------------------------------------------------------------------


def _grid(rng, n):
    u = np.zeros((n, n))
    u[0, :] = rng.uniform(0, 100)
    u[n // 3 : n // 2, n // 3 : n // 2] = rng.uniform(-50, 50)
    return u


INPUTS = {
    "diffuse_2d": lambda rng: [(_grid(rng, 32), 1.0, 0.2, 1.0, s) for s in (1, 10, 40)],
    "diffuse_3d": lambda rng: [(rng.uniform(0, 1, (12, 12, 12)), 1.0, 0.1, 1.0, s) for s in (1, 5, 12)],
    "wave_step": lambda rng: [
        (rng.normal(size=(40, 40)), rng.normal(size=(40, 40)), 1.0, float(dt), 0.1)
        for dt in (0.01, 0.05, 0.07)
    ],
    "laplace_jacobi": lambda rng: [(_grid(rng, 24), tol, 500) for tol in (1e-1, 1e-3, 1e-12)],
    "poisson_jacobi": lambda rng: [
        (np.zeros((32, 32)), rng.normal(size=(32, 32)), 1 / 31, s) for s in (1, 20, 60)
    ],
    "life_step_roll": lambda rng: [((rng.random((32, 32)) < p).astype(np.uint8),) for p in (0.1, 0.3, 0.6)],
    "life_step_slices": lambda rng: [((rng.random((32, 32)) < p).astype(np.int32),) for p in (0.1, 0.3, 0.6)],
    "nbody_step": lambda rng: [
        (rng.normal(size=(32, 3)), rng.normal(0, 0.1, (32, 3)), rng.uniform(0.5, 2, 32), 0.01)
        for _ in range(3)
    ],
    "spring_chain_verlet": lambda rng: [
        (
            np.arange(48.0) + rng.normal(0, 0.2, 48) * (np.arange(48) % 47 != 0),
            np.zeros(48),
            4.0,
            1.5,
            0.05,
            s,
        )
        for s in (1, 50, 200)
    ],
    "lennard_jones_energy": lambda rng: [
        (np.indices((4, 4, 4)).reshape(3, -1).T * 1.12 + rng.normal(0, 0.05, (64, 3)), 1.0, 1.0)
        for _ in range(3)
    ],
    "heat_1d": lambda rng: [(rng.uniform(0, 100, 64), 0.01, 0.1, 0.2, t) for t in (0.2, 10.0, 40.0)],
    "heat_1d_implicit": lambda rng: [
        (rng.uniform(-10, 100, 64), r, s) for r, s in ((0.5, 1), (2.0, 10), (10.0, 30))
    ],
    "advect_upwind": lambda rng: [
        (np.exp(-((np.arange(128) - 64.0) ** 2) / 50), rng.uniform(-1, 1, 128), 1.0, 0.5, s)
        for s in (1, 20, 100)
    ],
    "bounce_particles": lambda rng: [
        (rng.uniform(0, 10, (64, 2)), rng.normal(0, 3, (64, 2)), 0.0, 10.0, 0.1, s) for s in (1, 10, 50)
    ],
    "rule30": lambda rng: [
        ((np.arange(64) == 32).astype(np.uint8), 32),
        (rng.integers(0, 2, 64).astype(np.uint8), 32),
        (np.zeros(64, np.uint8), 32),
    ],
    "oscillator_rk4": lambda rng: [
        (np.array([1.0, 0.0]), w, 0.01, s) for w, s in ((1.0, 10), (2.0, 300), (0.5, 1000))
    ],
    "cluster_sizes": lambda rng: [(rng.random((24, 24)) < p,) for p in (0.3, 0.55, 0.7)],
    "logistic_adaptive": lambda rng: [(0.01, 1.0, 10.0, 1e-3), (0.5, 2.0, 5.0, 1e-5), (0.9, -1.0, 3.0, 1e-4)],
    "estimate_pi": lambda rng: [(1000, 1), (2000, 2), (500, 3)],
}

SCOPE = {
    "diffuse_2d": "in",
    "diffuse_3d": "in",
    "wave_step": "in",
    "laplace_jacobi": "in",
    "poisson_jacobi": "in",
    "life_step_roll": "in",
    "life_step_slices": "in",
    "nbody_step": "in",
    "spring_chain_verlet": "in",
    "lennard_jones_energy": "in",
    "heat_1d": "in",
    "heat_1d_implicit": "in",
    "advect_upwind": "in",
    "bounce_particles": "in",
    "rule30": "in",
    "oscillator_rk4": "in",
    "cluster_sizes": "out: flood fill with a Python list as stack and a result list of data-dependent length",
    "logistic_adaptive": "out: adaptive step count depends on the data; the trajectory lists grow by append",
    "estimate_pi": "out: NumPy's random Generator (PCG64 state and its distributions) is a library object",
}

# sizes of real runs: a 4096^2 grid, a 256^3 volume, 10^4 bodies (a 2.4 GB pairwise temporary)
REALISTIC_SIZES = {
    "diffuse_2d": {"u": (4096, 4096), "steps": 1000},
    "diffuse_3d": {"T": (256, 256, 256), "steps": 500},
    "wave_step": {"u_prev": (2048, 2048), "u": (2048, 2048)},
    "laplace_jacobi": {"phi": (1024, 1024), "max_iter": 10000},
    "poisson_jacobi": {"u": (2048, 2048), "f": (2048, 2048), "sweeps": 1000},
    "life_step_roll": {"board": (1080, 1920)},
    "life_step_slices": {"Z": (1080, 1920)},
    "nbody_step": {"pos": (10000, 3), "vel": (10000, 3), "mass": (10000,)},
    "lennard_jones_energy": {"pos": (4000, 3)},
    "heat_1d": {"T": (1_000_000,)},
    "advect_upwind": {"q": (1_000_000,), "u": (1_000_000,)},
    "bounce_particles": {"pos": (1_000_000, 2), "vel": (1_000_000, 2)},
    "cluster_sizes": {"grid": (2048, 2048)},
}


# ---------------------------------------------------------------------------------------------
# references: plain loops or closed forms


def _lap_loop(u):
    n, m = u.shape
    out = np.zeros_like(u)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = u[i + 1, j] + u[i - 1, j] + u[i, j + 1] + u[i, j - 1] - 4 * u[i, j]
    return out


def _ref_diffuse_2d(u, alpha, dt, dx, steps):
    for _ in range(steps):
        u = u + alpha * dt / dx**2 * _lap_loop(u)
    return u, {0: u}


def _ref_diffuse_3d(T, kappa, dt, h, steps):
    for _ in range(steps):
        lap = np.zeros_like(T)
        for ax in range(3):
            lap[1:-1, 1:-1, 1:-1] += (np.roll(T, 1, ax) + np.roll(T, -1, ax) - 2 * T)[1:-1, 1:-1, 1:-1]
        T = T + kappa * dt / h**2 * lap
    return None, {0: T}


def _ref_laplace(phi, tol, max_iter):
    it, err = 0, np.inf
    while err > tol and it < max_iter:
        new = phi + 0.25 * _lap_loop(phi)
        err = np.abs(new - phi).max()
        phi, it = new, it + 1
    return (phi, it), {}


def _ref_poisson(u, f, h, sweeps):
    for _ in range(sweeps):
        new = u.copy()
        new[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.25 * (_lap_loop(u)[1:-1, 1:-1] + h * h * f[1:-1, 1:-1])
        u = new
    return None, {0: u}


def _life_loop(board, wrap):
    n, m = board.shape
    out = np.zeros_like(board)
    for i in range(n):
        for j in range(m):
            if not wrap and (i in (0, n - 1) or j in (0, m - 1)):
                continue
            s = sum(int(board[(i + a) % n, (j + b) % m]) for a in (-1, 0, 1) for b in (-1, 0, 1)) - int(
                board[i, j]
            )
            out[i, j] = 1 if s == 3 or (s == 2 and board[i, j]) else 0
    return out


def _ref_nbody(pos, vel, mass, dt, G=1.0, soft=0.01):
    acc = np.zeros_like(pos)
    for i in range(len(pos)):
        for j in range(len(pos)):
            d = pos[j] - pos[i]
            acc[i] += G * mass[j] * d / (d @ d + soft**2) ** 1.5
    vel = vel + acc * dt
    return None, {0: pos + vel * dt, 1: vel}


def _ref_verlet(x, v, k, m, dt, steps):
    e0 = 0.5 * m * np.sum(v**2) + 0.5 * k * np.sum(np.diff(x) ** 2)
    # symplectic: the energy stays within a small band of its start
    return (lambda e: abs(e - e0) <= 0.02 * e0 + 1e-12), {}


def _ref_lj(pos, eps, sigma):
    e = 0.0
    for i in range(len(pos)):
        for j in range(i + 1, len(pos)):
            r2 = np.sum((pos[i] - pos[j]) ** 2)
            e += 4 * eps * ((sigma**2 / r2) ** 6 - (sigma**2 / r2) ** 3)
    return e, {}


def _ref_heat_1d(T, alpha, dx, dt, t_end):
    for _ in range(int(t_end / dt)):
        T = np.concatenate(([T[0]], T[1:-1] + alpha * dt / dx**2 * (T[2:] - 2 * T[1:-1] + T[:-2]), [T[-1]]))
    return T, {0: T}


def _ref_heat_implicit(T, r, steps):
    n = len(T)
    M = np.eye(n)
    for i in range(1, n - 1):
        M[i, i - 1 : i + 2] = (-r, 1 + 2 * r, -r)
    for _ in range(steps):
        T = np.linalg.solve(M, T)
    return T, {0: T}


def _ref_advect(q, u, dx, dt, steps):
    n = len(q)
    for _ in range(steps):
        q = np.array(
            [
                q[i] - dt * u[i] * ((q[i] - q[i - 1]) if u[i] > 0 else (q[(i + 1) % n] - q[i])) / dx
                for i in range(n)
            ]
        )
    return q, {}


def _ref_bounce(pos, vel, lo, hi, dt, steps):
    for _ in range(steps):
        pos = pos + vel * dt
        vel = np.where((pos < lo) | (pos > hi), -vel, vel)
        pos = np.minimum(np.maximum(pos, lo), hi)
    return (pos, vel), {1: vel}


def _ref_rule30(cells, steps):
    n, rows, c = len(cells), [], [int(v) for v in cells]
    for _ in range(steps):
        rows.append(c)
        c = [(30 >> (4 * c[i - 1] + 2 * c[i] + c[(i + 1) % n])) & 1 for i in range(n)]
    return np.array(rows, dtype=np.uint8), {}


def _ref_rk4(y0, omega, dt, steps):
    t = dt * steps
    exact = np.array([np.cos(omega * t), -omega * np.sin(omega * t)])
    return (lambda y: np.allclose(y, exact, atol=1e-6)), {}


def _ref_clusters(grid):
    h, w = grid.shape
    parent = list(range(h * w))

    def find(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for i in range(h):
        for j in range(w):
            for ni, nj in ((i + 1, j), (i, j + 1)):
                if ni < h and nj < w and grid[i, j] and grid[ni, nj]:
                    parent[find(i * w + j)] = find(ni * w + nj)
    roots = [find(i * w + j) for i in range(h) for j in range(w) if grid[i, j]]
    return sorted((roots.count(r) for r in set(roots)), reverse=True), {}


def _ref_logistic(y0, rate, t_end, tol):
    exact = 1.0 / (1.0 + (1.0 / y0 - 1.0) * np.exp(-rate * t_end))
    return (lambda r: r[0][-1] == t_end and abs(r[1][-1] - exact) < 0.05), {}


def _ref_pi(n, seed):
    xy = np.random.default_rng(seed).random((n, 2))
    return 4.0 * sum(1 for x, y in xy if x * x + y * y <= 1.0) / n, {}


_REFERENCES = {
    "diffuse_2d": _ref_diffuse_2d,
    "diffuse_3d": _ref_diffuse_3d,
    "wave_step": lambda up, u, c, dt, dx: (
        np.pad((2 * u - up + (c * dt / dx) ** 2 * _lap_loop(u))[1:-1, 1:-1], 1),
        {},
    ),
    "laplace_jacobi": _ref_laplace,
    "poisson_jacobi": _ref_poisson,
    "life_step_roll": lambda b: (_life_loop(b, True), {}),
    "life_step_slices": lambda Z: (_life_loop(Z, False), {0: _life_loop(Z, False)}),
    "nbody_step": _ref_nbody,
    "spring_chain_verlet": _ref_verlet,
    "lennard_jones_energy": _ref_lj,
    "heat_1d": _ref_heat_1d,
    "heat_1d_implicit": _ref_heat_implicit,
    "advect_upwind": _ref_advect,
    "bounce_particles": _ref_bounce,
    "rule30": _ref_rule30,
    "oscillator_rk4": _ref_rk4,
    "cluster_sizes": _ref_clusters,
    "logistic_adaptive": _ref_logistic,
    "estimate_pi": _ref_pi,
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    return run_cases(globals())


if __name__ == "__main__":
    _selfcheck()
