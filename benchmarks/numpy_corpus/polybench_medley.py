"""PolyBench/C 4.2 medley in NumPy: Deriche edge filter, Floyd-Warshall, Nussinov folding.

Deriche is a recursive (IIR) image filter in double precision: the recursion runs along one
axis while the other is a whole slice, the previous outputs held in variables that are views
of the output (`ym1 = y1[:, j]`). Floyd-Warshall and Nussinov are PolyBench's integer kernels
(DATA_TYPE int): all-pairs shortest paths with a broadcast `np.minimum`, and RNA secondary
structure by dynamic programming with a helper for base pairing and a max over a slice sum.
"""

import numpy as np


def kernel_deriche(alpha, imgIn, imgOut, y1, y2):
    """Deriche recursive edge-detection filter: causal and anti-causal passes along rows, then columns."""
    w, h = imgIn.shape
    # PolyBench's constants, exp(2 * alpha) included
    k = (
        (1.0 - np.exp(-alpha))
        * (1.0 - np.exp(-alpha))
        / (1.0 + 2.0 * alpha * np.exp(-alpha) - np.exp(2.0 * alpha))
    )
    a1 = a5 = k
    a2 = a6 = k * np.exp(-alpha) * (alpha - 1.0)
    a3 = a7 = k * np.exp(-alpha) * (alpha + 1.0)
    a4 = a8 = -k * np.exp(-2.0 * alpha)
    b1 = 2.0 ** (-alpha)
    b2 = -np.exp(-2.0 * alpha)
    c1 = c2 = 1.0

    # horizontal passes, every row at once
    ym1 = np.zeros(w)
    ym2 = np.zeros(w)
    xm1 = np.zeros(w)
    for j in range(h):
        y1[:, j] = a1 * imgIn[:, j] + a2 * xm1 + b1 * ym1 + b2 * ym2
        xm1 = imgIn[:, j]
        ym2 = ym1
        ym1 = y1[:, j]
    yp1 = np.zeros(w)
    yp2 = np.zeros(w)
    xp1 = np.zeros(w)
    xp2 = np.zeros(w)
    for j in range(h - 1, -1, -1):
        y2[:, j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
        xp2 = xp1
        xp1 = imgIn[:, j]
        yp2 = yp1
        yp1 = y2[:, j]
    imgOut[:] = c1 * (y1 + y2)

    # vertical passes, every column at once
    tm1 = np.zeros(h)
    ym1 = np.zeros(h)
    ym2 = np.zeros(h)
    for i in range(w):
        y1[i, :] = a5 * imgOut[i, :] + a6 * tm1 + b1 * ym1 + b2 * ym2
        tm1 = imgOut[i, :]
        ym2 = ym1
        ym1 = y1[i, :]
    tp1 = np.zeros(h)
    tp2 = np.zeros(h)
    yp1 = np.zeros(h)
    yp2 = np.zeros(h)
    for i in range(w - 1, -1, -1):
        y2[i, :] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2
        tp2 = tp1
        tp1 = imgOut[i, :]
        yp2 = yp1
        yp1 = y2[i, :]
    imgOut[:] = c2 * (y1 + y2)


def kernel_floyd_warshall(paths):
    """All-pairs shortest paths in place; paths[i, j] is an int32 edge weight (999: no edge)."""
    n = paths.shape[0]
    for k in range(n):
        paths[:] = np.minimum(paths, paths[:, k, np.newaxis] + paths[k, :])


def match(b1, b2):
    """1 when two bases pair (A-U or C-G with bases coded 0..3), else 0."""
    return 1 if b1 + b2 == 3 else 0


def kernel_nussinov(seq, table):
    """Nussinov's maximum base-pairing of an RNA sequence (bases coded 0..3), filling table in place."""
    n = seq.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < n:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < n:
                if i < j - 1:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1] + match(seq[i], seq[j]))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            if j - i > 1:
                table[i, j] = max(table[i, j], np.max(table[i, i + 1 : j] + table[i + 2 : j + 1, j]))


# ---------------------------------------------------------------------------------------------
# inputs: call 0 is PolyBench's init_array (MINI dataset), the others random


def _args_deriche(rng, w=64, h=64):
    if rng is None:
        i, j = np.indices((w, h))
        img = ((313 * i + 991 * j) % 65536) / 65535.0
        alpha = 0.25
    else:
        img = rng.uniform(0.0, 1.0, (w, h))
        alpha = float(rng.uniform(0.1, 1.0))
    return alpha, img, np.zeros((w, h)), np.zeros((w, h)), np.zeros((w, h))


def _args_floyd(rng, n=60):
    i, j = np.indices((n, n))
    if rng is None:
        paths = i * j % 7 + 1
        none = ((i + j) % 13 == 0) | ((i + j) % 7 == 0) | ((i + j) % 11 == 0)
    else:
        paths = rng.integers(0, 50, (n, n))
        none = rng.random((n, n)) < 0.6
    paths = np.where(none, 999, paths)
    return (paths.astype(np.int32),)


def _args_nussinov(rng, n=60):
    seq = (np.arange(n) + 1) % 4 if rng is None else rng.integers(0, 4, n)
    return seq.astype(np.int32), np.zeros((n, n), dtype=np.int32)


INPUTS = {
    "kernel_deriche": lambda rng: [_args_deriche(None), _args_deriche(rng), _args_deriche(rng)],
    "kernel_floyd_warshall": lambda rng: [_args_floyd(None), _args_floyd(rng), _args_floyd(rng)],
    "kernel_nussinov": lambda rng: [_args_nussinov(None), _args_nussinov(rng), _args_nussinov(rng)],
}

SCOPE = {name: "in" for name in INPUTS}

# PolyBench's LARGE dataset: a 4096 x 2160 float64 image (four arrays of 70 MB), 2800^2 and
# 2500^2 int32 tables
REALISTIC_SIZES = {
    "kernel_deriche": {"imgIn": (4096, 2160), "imgOut": (4096, 2160), "y1": (4096, 2160), "y2": (4096, 2160)},
    "kernel_floyd_warshall": {"paths": (2800, 2800)},
    "kernel_nussinov": {"seq": (2500,), "table": (2500, 2500)},
}


# ---------------------------------------------------------------------------------------------
# references: the C loop nests, element by element


def _ref_deriche(alpha, imgIn, imgOut, y1, y2):
    w, h = imgIn.shape
    ea, e2a = np.exp(-alpha), np.exp(-2.0 * alpha)
    k = (1.0 - ea) * (1.0 - ea) / (1.0 + 2.0 * alpha * ea - np.exp(2.0 * alpha))
    a1, a2, a3, a4 = k, k * ea * (alpha - 1.0), k * ea * (alpha + 1.0), -k * e2a
    b1, b2 = 2.0 ** (-alpha), -e2a
    for i in range(w):
        ym1 = ym2 = xm1 = 0.0
        for j in range(h):
            y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2
            xm1, ym2, ym1 = imgIn[i][j], ym1, y1[i][j]
        yp1 = yp2 = xp1 = xp2 = 0.0
        for j in range(h - 1, -1, -1):
            y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
            xp2, xp1, yp2, yp1 = xp1, imgIn[i][j], yp1, y2[i][j]
    out = y1 + y2
    for j in range(h):
        tm1 = ym1 = ym2 = 0.0
        for i in range(w):
            y1[i][j] = a1 * out[i][j] + a2 * tm1 + b1 * ym1 + b2 * ym2
            tm1, ym2, ym1 = out[i][j], ym1, y1[i][j]
        tp1 = tp2 = yp1 = yp2 = 0.0
        for i in range(w - 1, -1, -1):
            y2[i][j] = a3 * tp1 + a4 * tp2 + b1 * yp1 + b2 * yp2
            tp2, tp1, yp2, yp1 = tp1, out[i][j], yp1, y2[i][j]
    return None, {2: y1 + y2, 3: y1, 4: y2}


def _ref_floyd(paths):
    d = paths.tolist()
    n = len(d)
    for k in range(n):
        dk = d[k]
        for i in range(n):
            di, dik = d[i], d[i][k]
            for j in range(n):
                if dik + dk[j] < di[j]:
                    di[j] = dik + dk[j]
    return None, {0: np.array(d, dtype=np.int32)}


def _ref_nussinov(seq, table):
    n = len(seq)
    t = table.tolist()
    s = seq.tolist()
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            best = max(t[i][j], t[i][j - 1], t[i + 1][j])
            best = max(best, t[i + 1][j - 1] + (1 if i < j - 1 and s[i] + s[j] == 3 else 0))
            for k in range(i + 1, j):
                best = max(best, t[i][k] + t[k + 1][j])
            t[i][j] = best
    return None, {1: np.array(t, dtype=np.int32)}


_REFERENCES = {
    "kernel_deriche": _ref_deriche,
    "kernel_floyd_warshall": _ref_floyd,
    "kernel_nussinov": _ref_nussinov,
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    return run_cases(globals())


if __name__ == "__main__":
    _selfcheck()
