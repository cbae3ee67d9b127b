"""Kernels that rebind array names inside loops (test_frontend_rebinding.py)."""

import numpy as np


def advect(q, u, steps):
    """A parameter rebound to a new array in every iteration."""
    for _ in range(steps):
        back = q - np.roll(q, 1)
        q = q - 0.25 * u * back
    return q


def bounce(pos, vel, lo, hi, steps):
    """Written in place before the rebinding: the caller sees the first iteration's write."""
    for _ in range(steps):
        pos += vel
        vel[(pos < lo) | (pos > hi)] *= -1
        pos = np.clip(pos, lo, hi)
    return pos, vel


def ring(cells, steps):
    """An integer automaton whose state is rebound; the history is the result."""
    history = np.zeros((steps, cells.shape[0]), dtype=np.uint8)
    for t in range(steps):
        history[t] = cells
        cells = np.roll(cells, 1) ^ (cells | np.roll(cells, -1))
    return history


def jacobi(phi, tol, max_iter):
    """A parameter rebound to another name's array (`phi = new`) in a while loop."""
    it = 0
    err = tol + 1.0
    while err > tol and it < max_iter:
        new = phi.copy()
        new[1:-1] = 0.5 * (phi[2:] + phi[:-2])
        err = np.max(np.abs(new - phi))
        phi = new
        it += 1
    return phi, it


def verlet(x, v, steps):
    """A local rebound to another local's array at the end of the body (`a = a_new`)."""
    a = np.zeros_like(x)
    a[1:-1] = x[2:] - 2 * x[1:-1] + x[:-2]
    for _ in range(steps):
        x += v + 0.5 * a
        a_new = np.zeros_like(x)
        a_new[1:-1] = x[2:] - 2 * x[1:-1] + x[:-2]
        v += 0.5 * (a + a_new)
        a = a_new
    return np.sum(v * v) + np.sum(a)


def recursive_rows(img, out):
    """Columns carried from one iteration to the next (a recursive filter)."""
    w, h = img.shape
    xm1 = np.zeros(w)
    ym1 = np.zeros(w)
    ym2 = np.zeros(w)
    for j in range(h):
        out[:, j] = img[:, j] + 0.5 * xm1 + 0.25 * ym1 - 0.125 * ym2
        xm1 = img[:, j]
        ym2 = ym1
        ym1 = out[:, j]


def aliased_write(x, steps):
    """Refused: prev refers to x's elements, which are then written in place."""
    prev = np.zeros_like(x)
    for _ in range(steps):
        prev = x
        x[0] += 1
        x[1] = prev[0]
    return prev


def branch_rebind(x, c):
    """Rebound on one path only: the write after the branch reaches the caller on the other."""
    if c > 0:
        x = x * 2
    x[0] = 7
    return x


def wrap_steps(x, steps):
    """int16 arithmetic that wraps, rebound in every iteration."""
    for _ in range(steps):
        x = x * 3 + 1
    return x


def swap_buffers(a0, b0, steps):
    """A pointer swap of two arrays in every iteration (an exchange of contents in a kernel)."""
    a = a0.copy()
    b = b0 * 2
    for _ in range(steps):
        a[1:] += b[:-1]
        a, b = b, a
    return a - b


def swap_arguments(a, b, steps):
    """Refused: after the swap, writes through `a` reach the caller's `b`."""
    for _ in range(steps):
        a[1:] += b[:-1]
        a, b = b, a
    return a - b


def unpack_views(img):
    """Views of one array unpacked to names, used in an expression."""
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    return r * 4 + g * 2 + b
