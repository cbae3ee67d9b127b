"""Full-HD greyscale frames: a 3 x 3 Laplacian in NumPy and a 3 x 3 box filter as loops."""

import numpy as np


def laplacian(img):
    x = img.astype(np.int32)
    out = np.zeros_like(x)
    out[1:-1, 1:-1] = x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:] - 4 * x[1:-1, 1:-1]
    return out


def box3(img):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            s = 0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    s += int(img[y + dy, x + dx])
            out[y, x] = s // 9
    return out


def main():
    rng = np.random.default_rng(5)
    frame = rng.integers(0, 256, (1080, 1920)).astype(np.uint8)
    edges = laplacian(frame)
    print(int(np.abs(edges).sum() % 1000003))
    # the box filter is profiled on strips of a frame (a Python loop over a whole frame takes
    # minutes); the benchmark plans it for whole frames with --max-shape box3:img=1080x1920
    for rows in (12, 20):
        print(int(box3(frame[:rows]).sum()))


if __name__ == "__main__":
    main()
