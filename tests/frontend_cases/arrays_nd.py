"""Kernels for tests/test_frontend_arrays_nd.py: arrays of any rank, run-time windows, literal
arrays, np.arange, gathers, flattening and sorting, written as application code writes them."""

import numpy as np

KIRSCH3 = np.array(
    [[[5, 5, 5], [-3, 0, -3], [-3, -3, -3]], [[-3, 5, 5], [-3, 0, 5], [-3, -3, -3]]], dtype=np.int16
)
WEIGHTS = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]


def rgb_luma(rgb):
    h, w, _ = rgb.shape
    gray = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            gray[y, x] = (77 * int(rgb[y, x, 0]) + 150 * int(rgb[y, x, 1]) + 29 * int(rgb[y, x, 2])) >> 8
    return gray


def rgb_whole(rgb, gain):
    scaled = rgb.astype(np.int32) * gain + np.array([1, 2, 3])  # broadcasting over the last axis
    return np.clip(scaled, 0, 255).astype(np.uint8), rgb.sum() + rgb[1:, ::2, 0].max()


def rgb_invert_in_place(rgb):
    rgb[:, :, 1] = 255 - rgb[:, :, 1]


def conv_weights(x, w):
    c_out, _, k = w.shape
    out = np.zeros((c_out, x.shape[1] - k + 1), dtype=np.int32)
    for o in range(c_out):
        for t in range(x.shape[1] - k + 1):
            out[o, t] = np.sum(x[:, t : t + k].astype(np.int32) * w[o])
    return out


def kirsch_rom(img):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            best = -100000
            for m in range(2):
                acc = 0
                for i in range(3):
                    for j in range(3):
                        acc += int(KIRSCH3[m, i, j]) * int(img[y - 1 + i, x - 1 + j])
                best = max(best, acc)
            out[y, x] = best
    return out


def nested_list_sum(cube):
    s = 0
    for a in range(2):
        for b in range(2):
            for c in range(2):
                s += cube[a][b][c] * WEIGHTS[a][b][c]
    return s


def nested_list_update(cube):
    for a in range(len(cube)):
        cube[a][1][0] = cube[a][0][1] + 1
    return cube


def box_windows(img, k):
    h, w = img.shape
    out = np.zeros((h - k + 1, w - k + 1), dtype=np.int32)
    lo = np.zeros((h - k + 1, w - k + 1), dtype=img.dtype)
    for y in range(h - k + 1):
        for x in range(w - k + 1):
            window = img[y : y + k, x : x + k]
            out[y, x] = int(window.sum()) // (k * k)
            lo[y, x] = window.min()
    return out, lo


def stencil_product(img):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int32)
    kernel = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            out[y, x] = np.sum(img[y - 1 : y + 2, x - 1 : x + 2] * kernel)
    return out


def blocks(x, factor):
    n = len(x) // factor
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        out[i] = x[i * factor : (i + 1) * factor].sum()
    return out


def taps_window(x, taps):
    acc = np.zeros(len(x), dtype=np.int32)
    for n in range(taps - 1, len(x)):
        acc[n] = np.max(x[n - taps + 1 : n + 1][::-1] * np.arange(1, taps + 1, dtype=np.int16))
    return acc


def window_write_through(a):
    for i in range(1, len(a) - 1):
        w = a[i - 1 : i + 2]
        w += 1
    return a


def border_window(img):
    s = 0
    for y in range(img.shape[0]):
        s += int(img[y - 1 : y + 2].sum())  # numpy clips the window at the border
    return s


def past_end_window(x):
    s = 0
    for i in range(len(x)):
        s += int(x[i : i + 3].sum())
    return s


def literals(x):
    a = np.array([1, -2, 3, 40])
    b = np.array([[1.5, 2], [3, 4]])
    c = np.array((7, 8, 9, 10), dtype=np.uint8)
    d = np.arange(4) * 3 + np.arange(2, 10, 2)
    return x * a + c, b.sum(), d


def shaped_makers(img, n):
    pad = np.zeros((img.shape[0] + 2, img.shape[1] + 2), dtype=img.dtype)
    pad[1:-1, 1:-1] = img
    mask = np.zeros(img.shape[:1], dtype=np.int16)
    ones = np.ones((img.shape[0], img.shape[1], 2), np.uint8) * 7
    buf = np.zeros(n + 1, dtype=np.int64)
    acc = [0] * (len(img) + 1)
    for i in range(n + 1):
        buf[i] = i * 2
        acc[i % len(acc)] += i
    return pad, mask + 1, ones, buf, acc


def lut_gather(img, lut):
    return lut[img]


def lut_signed(idx, table):
    return table[idx] + 1


def lut_too_wide(idx, table):
    return table[idx]


def histogram_flat(img):
    hist = [0] * 256
    for v in img.flatten():
        hist[v] += 1
    return hist


def ravel_write_through(img, step):
    out = np.empty_like(img)
    src = img.ravel()
    dst = out.reshape(-1)
    for i in range(len(src)):
        dst[i] = src[i] // step * step
    return out


def flatten_and_write(img):
    s = 0
    for v in img.flatten():
        img[0, 0] = 5
        s += int(v)
    return s


def median3(img):
    out = np.zeros_like(img)
    for i in range(1, img.shape[0] - 1):
        for j in range(1, img.shape[1] - 1):
            window = np.ravel(img[i - 1 : i + 2, j - 1 : j + 2])
            out[i, j] = np.sort(window)[4]
    return out


def sort_floats(x):
    return np.sort(x)
