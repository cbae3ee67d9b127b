"""conv2d.py with a small helper called once per pixel (profiler overhead benchmark, worst case).

Every pixel makes one Python function call, so the profiler's per-call cost
shows. `python conv2d_pixel.py [SIZE]`; prints a checksum of the result.
"""

import sys

import numpy as np


def make_image(n):
    y, x = np.mgrid[0:n, 0:n]
    return ((x * 7 + y * 13) % 256).astype(np.uint8)


def clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


def conv_row(img, k, y, out):
    w = img.shape[1]
    for x in range(1, w - 1):
        acc = 0
        for dy in range(3):
            for dx in range(3):
                acc += int(img[y + dy - 1, x + dx - 1]) * int(k[dy, dx])
        out[y, x] = clamp(acc // 16, 0, 255)


def conv2d(img, k):
    out = np.zeros_like(img)
    for y in range(1, img.shape[0] - 1):
        conv_row(img, k, y, out)
    return out


def checksum(a):
    return int(a.astype(np.int64).sum())


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    kernel = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=np.int16)
    image = make_image(n)
    result = conv2d(image, kernel)
    print(checksum(result))
