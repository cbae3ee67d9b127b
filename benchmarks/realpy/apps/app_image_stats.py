"""Document-scan clean-up on an RGB photo of a page: grayscale, median denoise, Otsu
binarisation, histogram equalisation for the preview, a bilinear thumbnail, and local-mean
adaptive thresholding from an integral image."""

import math

import numpy as np


def make_page(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Uneven paper (vignetting) with dark text-like strokes and salt-and-pepper noise, RGB."""
    yy, xx = np.mgrid[0:h, 0:w]
    paper = 210 - 50 * (((yy - h / 2) / h) ** 2 + ((xx - w / 2) / w) ** 2)
    ink = np.zeros((h, w), bool)
    for row in range(6, h - 6, 9):
        x = 4
        while x < w - 8:
            length = int(rng.integers(3, 9))
            ink[row : row + 3, x : x + length] = True
            x += length + int(rng.integers(2, 5))
    gray = np.where(ink, 50.0, paper)
    noise = rng.random((h, w))
    gray[noise < 0.01] = 0
    gray[noise > 0.99] = 255
    tint = np.array([1.0, 0.97, 0.9])
    return np.clip(gray[..., None] * tint, 0, 255).astype(np.uint8)


def rgb_to_gray(rgb: np.ndarray) -> np.ndarray:
    """Integer luma (77 R + 150 G + 29 B) >> 8."""
    h, w, _ = rgb.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            r, g, b = int(rgb[y, x, 0]), int(rgb[y, x, 1]), int(rgb[y, x, 2])
            out[y, x] = (77 * r + 150 * g + 29 * b) >> 8
    return out


def median_3x3(img: np.ndarray) -> np.ndarray:
    """3x3 median; border copied."""
    h, w = img.shape
    out = img.copy()
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            window = sorted(int(v) for v in img[y - 1 : y + 2, x - 1 : x + 2].ravel())
            out[y, x] = window[4]
    return out


def histogram(img: np.ndarray) -> list[int]:
    """256-bin histogram."""
    hist = [0] * 256
    for v in img.ravel():
        hist[v] += 1
    return hist


def otsu(hist: list[int], total: int) -> int:
    """Otsu threshold from a histogram."""
    sum_all = sum(i * c for i, c in enumerate(hist))
    w_b = 0
    sum_b = 0.0
    best, best_t = -1.0, 0
    for t in range(256):
        w_b += hist[t]
        if w_b == 0:
            continue
        w_f = total - w_b
        if w_f == 0:
            break
        sum_b += t * hist[t]
        m_b = sum_b / w_b
        m_f = (sum_all - sum_b) / w_f
        between = w_b * w_f * (m_b - m_f) ** 2
        if between > best:
            best, best_t = between, t
    return best_t


def equalise(img: np.ndarray, hist: list[int]) -> np.ndarray:
    """Histogram equalisation through a LUT."""
    cdf = [0] * 256
    running = 0
    for i in range(256):
        running += hist[i]
        cdf[i] = running
    cdf_min = next(c for c in cdf if c > 0)
    total = img.size
    lut = np.array([round((c - cdf_min) * 255 / max(total - cdf_min, 1)) for c in cdf], dtype=np.uint8)
    return lut[img]


def resize_bilinear(img: np.ndarray, new_h: int, new_w: int) -> np.ndarray:
    """Bilinear thumbnail."""
    h, w = img.shape
    out = np.zeros((new_h, new_w), dtype=np.uint8)
    for i in range(new_h):
        fy = i * (h - 1) / (new_h - 1)
        y0 = math.floor(fy)
        y1 = min(y0 + 1, h - 1)
        dy = fy - y0
        for j in range(new_w):
            fx = j * (w - 1) / (new_w - 1)
            x0 = math.floor(fx)
            x1 = min(x0 + 1, w - 1)
            dx = fx - x0
            top = (1 - dx) * img[y0, x0] + dx * img[y0, x1]
            bot = (1 - dx) * img[y1, x0] + dx * img[y1, x1]
            out[i, j] = int((1 - dy) * top + dy * bot + 0.5)
    return out


def integral_image(img: np.ndarray) -> np.ndarray:
    """Zero-bordered summed-area table, (h + 1) x (w + 1)."""
    h, w = img.shape
    sat = np.zeros((h + 1, w + 1), dtype=np.int64)
    for y in range(h):
        row = 0
        for x in range(w):
            row += int(img[y, x])
            sat[y + 1, x + 1] = sat[y, x + 1] + row
    return sat


def adaptive_threshold(img: np.ndarray, window: int, offset: int) -> np.ndarray:
    """Ink where the pixel is `offset` below its local mean (clamped window)."""
    h, w = img.shape
    sat = integral_image(img)
    r = window // 2
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        y0, y1 = max(0, y - r), min(h, y + r + 1)
        for x in range(w):
            x0, x1 = max(0, x - r), min(w, x + r + 1)
            s = sat[y1, x1] - sat[y0, x1] - sat[y1, x0] + sat[y0, x0]
            mean = s / ((y1 - y0) * (x1 - x0))
            out[y, x] = 1 if img[y, x] < mean - offset else 0
    return out


def main() -> None:
    rng = np.random.default_rng(17)
    page = make_page(rng, 72, 96)
    gray = rgb_to_gray(page)
    clean = median_3x3(gray)
    hist = histogram(clean)
    t = otsu(hist, clean.size)
    ink_global = int(np.count_nonzero(clean <= t))
    preview = equalise(clean, hist)
    thumb = resize_bilinear(preview, 24, 32)
    ink_local = int(adaptive_threshold(clean, 15, 20).sum())
    print(f"page {page.shape}, Otsu threshold {t}, ink pixels: global {ink_global}, adaptive {ink_local}")
    print(f"preview range {preview.min()}..{preview.max()}, thumbnail {thumb.shape} mean {thumb.mean():.1f}")


if __name__ == "__main__":
    main()
