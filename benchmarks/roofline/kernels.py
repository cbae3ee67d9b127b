"""Kernels for the roofline benchmark: signal and image processing, linear algebra and stencils.

Written as their users write them, as loops and as NumPy, integer and float, at sizes whose
arrays fit in a PYNQ-Z2's block RAM. `benchmarks/bench_roofline.py` profiles this file's
`main()`, estimates every kernel in every implementation variant and sets the fastest that fits
the board against its roofline (`partition.estimate.roofline`).

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

N = 4096


# ---------------------------------------------------------------- loops, integer
def fir32_q15(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """32-tap FIR, Q15 taps, rounded and saturated to int16."""
    y = np.zeros(x.shape[0], dtype=np.int16)
    for n in range(x.shape[0]):
        acc = np.int32(1 << 14)
        for k in range(32):
            if n - k >= 0:
                acc += np.int32(x[n - k]) * np.int32(h[k])
        y[n] = min(max(acc >> 15, -32768), 32767)
    return y


def conv3x3_u8(img: np.ndarray, w: np.ndarray) -> np.ndarray:
    """3x3 integer convolution of a uint8 image, borders left zero."""
    h, wd = img.shape
    out = np.zeros((h, wd), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, wd - 1):
            s = 0
            for dy in range(3):
                for dx in range(3):
                    s += int(img[y + dy - 1, x + dx - 1]) * int(w[dy, dx])
            out[y, x] = s
    return out


def sobel_u8(img: np.ndarray) -> np.ndarray:
    """|gx| + |gy| of the Sobel operator, saturated to 255."""
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            p = img[y - 1 : y + 2, x - 1 : x + 2].astype(np.int32)
            gx = (p[0, 2] + 2 * p[1, 2] + p[2, 2]) - (p[0, 0] + 2 * p[1, 0] + p[2, 0])
            gy = (p[2, 0] + 2 * p[2, 1] + p[2, 2]) - (p[0, 0] + 2 * p[0, 1] + p[0, 2])
            out[y, x] = min(abs(gx) + abs(gy), 255)
    return out


def matvec_i32(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    n, m = a.shape
    y = np.zeros(n, dtype=np.int32)
    for i in range(n):
        s = np.int32(0)
        for j in range(m):
            s += a[i, j] * x[j]
        y[i] = s
    return y


def prefix_sum_i32(x: np.ndarray) -> np.ndarray:
    out = np.zeros(x.shape[0], dtype=np.int32)
    run = np.int32(0)
    for i in range(x.shape[0]):
        run += x[i]
        out[i] = run
    return out


def histogram_u8(x: np.ndarray) -> np.ndarray:
    hist = np.zeros(256, dtype=np.int32)
    for i in range(x.shape[0]):
        hist[x[i]] += 1
    return hist


def median3_i16(x: np.ndarray) -> np.ndarray:
    n = x.shape[0]
    y = x.copy()
    for i in range(1, n - 1):
        a, b, c = x[i - 1], x[i], x[i + 1]
        y[i] = max(min(a, b), min(max(a, b), c))
    return y


def dot_i16(a: np.ndarray, b: np.ndarray) -> int:
    s = 0
    for i in range(a.shape[0]):
        s += int(a[i]) * int(b[i])
    return s


def biquad_q14(x: np.ndarray) -> np.ndarray:
    """A Q14 low-pass biquad (direct form I): each output needs the two before it."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    x1 = x2 = y1 = y2 = 0
    for n in range(x.shape[0]):
        acc = 1081 * int(x[n]) + 2162 * x1 + 1081 * x2 + 26345 * y1 - 10286 * y2
        out = acc >> 14
        x2, x1 = x1, int(x[n])
        y2, y1 = y1, out
        y[n] = out
    return y


def popcount_u32(x: np.ndarray) -> np.ndarray:
    """Set bits of each word (the SWAR bit trick)."""
    out = np.zeros(x.shape[0], dtype=np.uint8)
    for i in range(x.shape[0]):
        v = int(x[i])
        v = v - ((v >> 1) & 0x55555555)
        v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
        v = (v + (v >> 4)) & 0x0F0F0F0F
        out[i] = ((v * 0x01010101) & 0xFFFFFFFF) >> 24
    return out


def floyd_warshall_i32(d: np.ndarray) -> None:
    """All-pairs shortest paths in place (PolyBench floyd-warshall)."""
    n = d.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i, k] + d[k, j] < d[i, j]:
                    d[i, j] = d[i, k] + d[k, j]


# ---------------------------------------------------------------- loops, float
def matmul_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n, m = a.shape[0], b.shape[1]
    c = np.zeros((n, m), dtype=np.float32)
    for i in range(n):
        for j in range(m):
            s = np.float32(0)
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s
    return c


def jacobi1d_f32(a: np.ndarray) -> np.ndarray:
    b = a.copy()
    for i in range(1, a.shape[0] - 1):
        b[i] = np.float32(0.33333) * (a[i - 1] + a[i] + a[i + 1])
    return b


def saxpy_f32(alpha: float, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty_like(y)
    a = np.float32(alpha)
    for i in range(x.shape[0]):
        out[i] = a * x[i] + y[i]
    return out


def atax_f32(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """y = A^T (A x) (PolyBench atax)."""
    n, m = a.shape
    y = np.zeros(m, dtype=np.float32)
    for i in range(n):
        t = np.float32(0)
        for j in range(m):
            t += a[i, j] * x[j]
        for j in range(m):
            y[j] += a[i, j] * t
    return y


def jacobi2d_f32(a: np.ndarray) -> np.ndarray:
    h, w = a.shape
    b = a.copy()
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            b[i, j] = np.float32(0.2) * (a[i, j] + a[i, j - 1] + a[i, j + 1] + a[i + 1, j] + a[i - 1, j])
    return b


def variance_f32(x: np.ndarray) -> float:
    """Welford's running mean and variance: each step needs the last."""
    mean = np.float32(0)
    m2 = np.float32(0)
    for i in range(x.shape[0]):
        d = x[i] - mean
        mean += d / np.float32(i + 1)
        m2 += d * (x[i] - mean)
    return float(m2 / np.float32(x.shape[0]))


# ---------------------------------------------------------------- NumPy
def np_fir_i32(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    return np.convolve(x.astype(np.int32), h.astype(np.int32), mode="valid")


def np_gemm_f32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.float32(1.5) * (a @ b) + np.float32(1.2) * c


def np_laplacian_f32(u: np.ndarray) -> np.ndarray:
    out = np.zeros_like(u)
    out[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    return out


def np_scale_u8(x: np.ndarray) -> np.ndarray:
    return np.clip(x.astype(np.int32) * 3 // 2 - 20, 0, 255).astype(np.uint8)


def np_matvec_i32(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    return a @ x


def np_cumsum_i32(x: np.ndarray) -> np.ndarray:
    return np.cumsum(x)


def main() -> dict:
    rng = np.random.default_rng(11)
    s16 = rng.integers(-20000, 20000, N, dtype=np.int16)
    taps = rng.integers(-3000, 3000, 32, dtype=np.int16)
    img = rng.integers(0, 256, (64, 64), dtype=np.uint8)
    w3 = rng.integers(-4, 5, (3, 3), dtype=np.int8)
    a64 = rng.integers(-1000, 1000, (64, 64), dtype=np.int32)
    v64 = rng.integers(-1000, 1000, 64, dtype=np.int32)
    s32 = rng.integers(-100000, 100000, N, dtype=np.int32)
    u8 = rng.integers(0, 256, 16384, dtype=np.uint8)
    w32 = rng.integers(0, 2**32, N, dtype=np.uint32)
    dist = rng.integers(1, 100, (32, 32), dtype=np.int32)
    f32 = rng.standard_normal((32, 32)).astype(np.float32)
    g32 = rng.standard_normal((32, 32)).astype(np.float32)
    line = rng.standard_normal(N).astype(np.float32)
    line2 = rng.standard_normal(N).astype(np.float32)
    grid = rng.standard_normal((64, 64)).astype(np.float32)
    vf = rng.standard_normal(64).astype(np.float32)
    results = {
        "fir32_q15": fir32_q15(s16, taps),
        "conv3x3_u8": conv3x3_u8(img, w3),
        "sobel_u8": sobel_u8(img),
        "matvec_i32": matvec_i32(a64, v64),
        "prefix_sum_i32": prefix_sum_i32(s32),
        "histogram_u8": histogram_u8(u8),
        "median3_i16": median3_i16(s16),
        "dot_i16": dot_i16(s16, s16[::-1].copy()),
        "biquad_q14": biquad_q14(s16),
        "popcount_u32": popcount_u32(w32),
        "matmul_f32": matmul_f32(f32, g32),
        "jacobi1d_f32": jacobi1d_f32(line),
        "saxpy_f32": saxpy_f32(0.75, line, line2),
        "atax_f32": atax_f32(grid, vf),
        "jacobi2d_f32": jacobi2d_f32(grid),
        "variance_f32": variance_f32(line),
        "np_fir_i32": np_fir_i32(s16, taps),
        "np_gemm_f32": np_gemm_f32(f32, g32, f32),
        "np_laplacian_f32": np_laplacian_f32(grid),
        "np_scale_u8": np_scale_u8(u8),
        "np_matvec_i32": np_matvec_i32(a64, v64),
        "np_cumsum_i32": np_cumsum_i32(s32),
    }
    floyd_warshall_i32(dist)
    results["floyd_warshall_i32"] = dist
    for name, r in results.items():
        total = float(np.sum(np.asarray(r, dtype=np.float64)))
        print(f"{name}: {total:.6g}")
    return {name: float(np.sum(np.asarray(r, dtype=np.float64))) for name, r in results.items()}


if __name__ == "__main__":
    main()
