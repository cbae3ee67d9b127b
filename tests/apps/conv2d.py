"""3x3 convolution of a 128x128 uint8 image written with Python loops (profiler overhead benchmark).

The loops index numpy arrays element by element: many numpy C calls, few Python
function calls. `python conv2d.py [SIZE]`; prints a checksum of the result.
"""

import sys

import numpy as np


def make_image(n):
    y, x = np.mgrid[0:n, 0:n]
    return ((x * 7 + y * 13) % 256).astype(np.uint8)


def conv_row(img, k, y, out):
    w = img.shape[1]
    for x in range(1, w - 1):
        acc = 0
        for dy in range(3):
            for dx in range(3):
                acc += int(img[y + dy - 1, x + dx - 1]) * int(k[dy, dx])
        v = acc // 16
        out[y, x] = 0 if v < 0 else 255 if v > 255 else v


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
