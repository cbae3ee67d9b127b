"""Edge and corner pipeline on a synthetic camera frame: blur, Sobel, direction, thinning,
double threshold, hysteresis, Harris corners."""

import math

import numpy as np

WEAK = 75
STRONG = 255


def make_frame(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A dark frame with a few bright rectangles and a disc, plus sensor noise."""
    frame = np.full((height, width), 30.0)
    for _ in range(3):
        y, x = rng.integers(0, height - 16), rng.integers(0, width - 16)
        h, w = rng.integers(8, 16), rng.integers(8, 16)
        frame[y : y + h, x : x + w] = rng.integers(120, 230)
    yy, xx = np.mgrid[0:height, 0:width]
    cy, cx = height // 2, width // 2
    frame[(yy - cy) ** 2 + (xx - cx) ** 2 < 100] = 200
    return np.clip(frame + rng.normal(0, 8, (height, width)), 0, 255).astype(np.uint8)


def gaussian_blur_3x3(img: np.ndarray) -> np.ndarray:
    """Binomial 3x3 blur with integer weights; the border is copied."""
    kernel = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]])
    h, w = img.shape
    out = img.copy()
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            acc = 0
            for ky in range(3):
                for kx in range(3):
                    acc += int(img[y + ky - 1, x + kx - 1]) * kernel[ky, kx]
            out[y, x] = (acc + 8) >> 4
    return out


def sobel(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sobel derivatives (gx, gy) as int32, border 0."""
    h, w = img.shape
    gx = np.zeros((h, w), dtype=np.int32)
    gy = np.zeros((h, w), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            p = [[int(img[y + i, x + j]) for j in (-1, 0, 1)] for i in (-1, 0, 1)]
            gx[y, x] = (p[0][2] + 2 * p[1][2] + p[2][2]) - (p[0][0] + 2 * p[1][0] + p[2][0])
            gy[y, x] = (p[2][0] + 2 * p[2][1] + p[2][2]) - (p[0][0] + 2 * p[0][1] + p[0][2])
    return gx, gy


def magnitude(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """Gradient magnitude with math.sqrt."""
    h, w = gx.shape
    mag = np.zeros((h, w))
    for y in range(h):
        for x in range(w):
            mag[y, x] = math.sqrt(gx[y, x] ** 2 + gy[y, x] ** 2)
    return mag


def quantise_direction(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """0, 45, 90, 135 degrees as 0..3."""
    h, w = gx.shape
    q = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            angle = math.degrees(math.atan2(gy[y, x], gx[y, x])) % 180.0
            if angle < 22.5 or angle >= 157.5:
                q[y, x] = 0
            elif angle < 67.5:
                q[y, x] = 1
            elif angle < 112.5:
                q[y, x] = 2
            else:
                q[y, x] = 3
    return q


def non_max_suppression(mag: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Keep only local maxima along the gradient."""
    h, w = mag.shape
    out = np.zeros_like(mag)
    offsets = [(0, 1), (-1, 1), (1, 0), (1, 1)]
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            dy, dx = offsets[direction[y, x]]
            if mag[y, x] >= mag[y + dy, x + dx] and mag[y, x] >= mag[y - dy, x - dx]:
                out[y, x] = mag[y, x]
    return out


def double_threshold(img: np.ndarray, low: float, high: float) -> np.ndarray:
    """STRONG / WEAK / 0 marks."""
    return np.where(img >= high, STRONG, np.where(img >= low, WEAK, 0)).astype(np.uint8)


def hysteresis(marks: np.ndarray, max_passes: int) -> np.ndarray:
    """Grow strong edges into weak ones, a bounded number of passes."""
    h, w = marks.shape
    out = marks.copy()
    for _ in range(max_passes):
        changed = False
        for y in range(1, h - 1):
            for x in range(1, w - 1):
                if out[y, x] == WEAK and (out[y - 1 : y + 2, x - 1 : x + 2] == STRONG).any():
                    out[y, x] = STRONG
                    changed = True
        if not changed:
            break
    return np.where(out == STRONG, STRONG, 0).astype(np.uint8)


def harris_response(img: np.ndarray, k: float) -> np.ndarray:
    """det(M) - k trace(M)^2 over 3x3 windows of the gradient products."""
    gx, gy = sobel(img)
    ixx = (gx * gx).astype(np.float64)
    iyy = (gy * gy).astype(np.float64)
    ixy = (gx * gy).astype(np.float64)
    h, w = img.shape
    r = np.zeros((h, w))
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            sxx = ixx[y - 1 : y + 2, x - 1 : x + 2].sum()
            syy = iyy[y - 1 : y + 2, x - 1 : x + 2].sum()
            sxy = ixy[y - 1 : y + 2, x - 1 : x + 2].sum()
            r[y, x] = sxx * syy - sxy * sxy - k * (sxx + syy) ** 2
    return r


def count_corners(response: np.ndarray, ratio: float) -> int:
    """Local maxima above ratio * max."""
    h, w = response.shape
    limit = ratio * response.max()
    n = 0
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            v = response[y, x]
            if v > limit and v >= response[y - 1 : y + 2, x - 1 : x + 2].max():
                n += 1
    return n


def main() -> None:
    rng = np.random.default_rng(7)
    total_edges = 0
    total_corners = 0
    for frame_no in range(3):
        frame = make_frame(rng, 64, 64)
        smooth = gaussian_blur_3x3(frame)
        gx, gy = sobel(smooth)
        mag = magnitude(gx, gy)
        direction = quantise_direction(gx, gy)
        thin = non_max_suppression(mag, direction)
        edges = hysteresis(double_threshold(thin, 60.0, 180.0), 20)
        corners = count_corners(harris_response(smooth, 0.04), 0.05)
        n_edges = int(np.count_nonzero(edges))
        total_edges += n_edges
        total_corners += corners
        print(f"frame {frame_no}: {n_edges} edge pixels, {corners} corners, max gradient {mag.max():.1f}")
    print(f"total: {total_edges} edge pixels, {total_corners} corners")


if __name__ == "__main__":
    main()
