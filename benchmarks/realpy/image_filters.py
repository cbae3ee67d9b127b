"""Image filters on uint8 grayscale (H x W) and RGB (H x W x 3) numpy images, written with
explicit pixel loops and sliding-window slices as in image-processing course notes, algorithm
collections and hobbyist computer-vision scripts."""

import copy
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def box_blur(image: np.ndarray, kernel_size: int) -> np.ndarray:
    """Mean of every kernel_size x kernel_size window (valid region only)."""
    h, w = image.shape
    out = np.zeros((h - kernel_size + 1, w - kernel_size + 1), dtype=np.uint8)
    for y in range(h - kernel_size + 1):
        for x in range(w - kernel_size + 1):
            window = image[y : y + kernel_size, x : x + kernel_size]
            out[y, x] = int(window.sum()) // (kernel_size * kernel_size)
    return out


GAUSS_3X3 = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def gaussian_blur_3x3(img: np.ndarray) -> np.ndarray:
    """3x3 binomial blur with integer weights (sum 16); the border pixels are copied."""
    height, width = img.shape
    out = img.copy()
    for y in range(1, height - 1):
        for x in range(1, width - 1):
            acc = 0
            for ky in range(3):
                for kx in range(3):
                    acc += int(img[y + ky - 1, x + kx - 1]) * GAUSS_3X3[ky, kx]
            out[y, x] = (acc + 8) >> 4
    return out


def gaussian_blur_5x5(img: np.ndarray) -> np.ndarray:
    """5x5 binomial blur (weights 1 4 6 4 1, sum 256) with edge replication."""
    kernel = np.array(
        [
            [1, 4, 6, 4, 1],
            [4, 16, 24, 16, 4],
            [6, 24, 36, 24, 6],
            [4, 16, 24, 16, 4],
            [1, 4, 6, 4, 1],
        ]
    )
    h, w = img.shape
    out = np.empty_like(img)
    for y in range(h):
        for x in range(w):
            acc = 0
            for dy in range(-2, 3):
                yy = min(max(y + dy, 0), h - 1)
                for dx in range(-2, 3):
                    xx = min(max(x + dx, 0), w - 1)
                    acc += kernel[dy + 2][dx + 2] * int(img[yy, xx])
            out[y, x] = (acc + 128) >> 8
    return out


def gaussian_kernel(size: int, sigma: float) -> np.ndarray:
    """Normalised size x size Gaussian kernel."""
    kernel = np.zeros((size, size))
    center = size // 2
    total = 0.0
    for i in range(size):
        for j in range(size):
            x, y = i - center, j - center
            kernel[i, j] = math.exp(-(x**2 + y**2) / (2 * sigma**2)) / (2 * math.pi * sigma**2)
            total += kernel[i, j]
    return kernel / total


def sort_window(values: list[int]) -> None:
    """Insertion sort of a small window, in place."""
    for i in range(1, len(values)):
        key = values[i]
        j = i - 1
        while j >= 0 and values[j] > key:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = key


def median_filter_3x3(img: np.ndarray) -> np.ndarray:
    """3x3 median by sorting the 9 neighbours; border pixels are copied."""
    h, w = img.shape
    out = img.copy()
    window = [0] * 9
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            k = 0
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    window[k] = int(img[y + dy, x + dx])
                    k += 1
            sort_window(window)
            out[y, x] = window[4]
    return out


def median_filter(gray_img: np.ndarray, mask: int = 3) -> np.ndarray:
    """Median filter with a mask x mask window taken as a slice and sorted with numpy."""
    bd = int(mask / 2)
    median_img = np.zeros_like(gray_img)
    for i in range(bd, gray_img.shape[0] - bd):
        for j in range(bd, gray_img.shape[1] - bd):
            kernel = np.ravel(gray_img[i - bd : i + bd + 1, j - bd : j + bd + 1])
            median = np.sort(kernel)[int(mask * mask / 2)]
            median_img[i, j] = median
    return median_img


def erosion(img: np.ndarray, size: int) -> np.ndarray:
    """Grayscale erosion: minimum of each size x size window (valid region)."""
    h, w = img.shape
    out = np.zeros((h - size + 1, w - size + 1), dtype=img.dtype)
    for y in range(h - size + 1):
        for x in range(w - size + 1):
            out[y, x] = img[y : y + size, x : x + size].min()
    return out


def dilation(image: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Binary dilation of a 0/1 image by a 0/1 structuring element (zero padding)."""
    output = np.zeros_like(image)
    kh, kw = kernel.shape
    image_padded = np.zeros((image.shape[0] + kh - 1, image.shape[1] + kw - 1), dtype=image.dtype)
    image_padded[kh // 2 : kh // 2 + image.shape[0], kw // 2 : kw // 2 + image.shape[1]] = image
    for x in range(image.shape[1]):
        for y in range(image.shape[0]):
            summation = (kernel * image_padded[y : y + kh, x : x + kw]).sum()
            output[y, x] = int(summation > 0)
    return output


def threshold(img: np.ndarray, t: int) -> np.ndarray:
    """255 where img > t, else 0."""
    return np.where(img > t, 255, 0).astype(np.uint8)


def otsu_threshold(img: np.ndarray) -> int:
    """Otsu's threshold from the 256-bin histogram (maximum between-class variance)."""
    hist = [0] * 256
    for v in img.flatten():
        hist[v] += 1
    total = img.size
    sum_total = 0
    for i in range(256):
        sum_total += i * hist[i]
    sum_bg = 0.0
    weight_bg = 0
    best_var = 0.0
    best_t = 0
    for t in range(256):
        weight_bg += hist[t]
        if weight_bg == 0:
            continue
        weight_fg = total - weight_bg
        if weight_fg == 0:
            break
        sum_bg += t * hist[t]
        mean_bg = sum_bg / weight_bg
        mean_fg = (sum_total - sum_bg) / weight_fg
        var_between = weight_bg * weight_fg * (mean_bg - mean_fg) ** 2
        if var_between > best_var:
            best_var = var_between
            best_t = t
    return best_t


def histogram_equalisation(img: np.ndarray) -> np.ndarray:
    """Classic histogram equalisation through a cumulative-histogram lookup table."""
    hist = np.zeros(256, dtype=np.int64)
    h, w = img.shape
    for y in range(h):
        for x in range(w):
            hist[img[y, x]] += 1
    cdf = np.zeros(256, dtype=np.int64)
    running = 0
    for i in range(256):
        running += hist[i]
        cdf[i] = running
    cdf_min = 0
    for i in range(256):
        if cdf[i] > 0:
            cdf_min = cdf[i]
            break
    lut = np.zeros(256, dtype=np.uint8)
    denom = h * w - cdf_min
    for i in range(256):
        if denom > 0:
            lut[i] = max(0, round((cdf[i] - cdf_min) * 255 / denom))
        else:
            lut[i] = i
    out = np.empty_like(img)
    for y in range(h):
        for x in range(w):
            out[y, x] = lut[img[y, x]]
    return out


def rgb_to_gray_int(rgb: np.ndarray) -> np.ndarray:
    """Luma with 8-bit integer weights (77, 150, 29) / 256."""
    h, w, _ = rgb.shape
    gray = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            r = int(rgb[y, x, 0])
            g = int(rgb[y, x, 1])
            b = int(rgb[y, x, 2])
            gray[y, x] = (77 * r + 150 * g + 29 * b) >> 8
    return gray


def rgb_to_gray(rgb: np.ndarray) -> np.ndarray:
    """ITU-R 601 luma with float weights, rounded."""
    h, w = rgb.shape[:2]
    gray = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            r, g, b = rgb[y, x]
            gray[y, x] = round(0.299 * r + 0.587 * g + 0.114 * b)
    return gray


def gamma_correction(img: np.ndarray, gamma: float) -> np.ndarray:
    """Apply gamma through a 256-entry lookup table built by a list comprehension."""
    inv_gamma = 1.0 / gamma
    lut = np.array(
        [min(255, int(255.0 * (i / 255.0) ** inv_gamma + 0.5)) for i in range(256)], dtype=np.uint8
    )
    return lut[img]


def invert(img: np.ndarray) -> np.ndarray:
    """Photographic negative."""
    return 255 - img


def adjust_brightness_contrast(img: np.ndarray, alpha: float, beta: int) -> np.ndarray:
    """out = clip(alpha * img + beta, 0, 255), truncated, pixel by pixel (RGB or gray)."""
    out = np.zeros_like(img)
    flat_in = img.reshape(-1)
    flat_out = out.reshape(-1)
    for i in range(flat_in.size):
        value = alpha * flat_in[i] + beta
        flat_out[i] = max(0, min(255, int(value)))
    return out


def convolve2d(image: np.ndarray, kernel: np.ndarray, kernel_size: tuple[int, int]) -> np.ndarray:
    """'same' 2-D correlation with zero padding; float output."""
    kh, kw = kernel_size
    h, w = image.shape
    ph, pw = kh // 2, kw // 2
    padded = np.zeros((h + kh - 1, w + kw - 1))
    padded[ph : ph + h, pw : pw + w] = image
    out = np.zeros((h, w))
    for y in range(h):
        for x in range(w):
            out[y, x] = np.sum(padded[y : y + kh, x : x + kw] * kernel)
    return out


def resize_nearest(img: np.ndarray, output_shape: tuple[int, int]) -> np.ndarray:
    """Nearest-neighbour resize of an RGB image to output_shape = (height, width)."""
    dst_h, dst_w = output_shape
    src_h, src_w = img.shape[0], img.shape[1]
    ratio_y = src_h / dst_h
    ratio_x = src_w / dst_w
    output = np.ones((dst_h, dst_w, 3), np.uint8) * 255
    for i in range(dst_h):
        for j in range(dst_w):
            output[i][j] = img[int(ratio_y * i)][int(ratio_x * j)]
    return output


def resize_bilinear(img: np.ndarray, new_h: int, new_w: int) -> np.ndarray:
    """Bilinear resize of a grayscale image (align-corners mapping)."""
    h, w = img.shape
    out = np.zeros((new_h, new_w), dtype=np.uint8)
    sy = (h - 1) / (new_h - 1) if new_h > 1 else 0.0
    sx = (w - 1) / (new_w - 1) if new_w > 1 else 0.0
    for i in range(new_h):
        fy = i * sy
        y0 = math.floor(fy)
        y1 = min(y0 + 1, h - 1)
        dy = fy - y0
        for j in range(new_w):
            fx = j * sx
            x0 = math.floor(fx)
            x1 = min(x0 + 1, w - 1)
            dx = fx - x0
            top = img[y0, x0] * (1 - dx) + img[y0, x1] * dx
            bottom = img[y1, x0] * (1 - dx) + img[y1, x1] * dx
            out[i, j] = int(top * (1 - dy) + bottom * dy + 0.5)
    return out


def flip_horizontal(img: np.ndarray) -> np.ndarray:
    """Mirror left-right with explicit loops."""
    h, w = img.shape
    out = np.empty_like(img)
    for y in range(h):
        for x in range(w):
            out[y, w - 1 - x] = img[y, x]
    return out


def rotate90_clockwise(img: np.ndarray) -> np.ndarray:
    """Rotate a grayscale image by 90 degrees clockwise."""
    h, w = img.shape
    out = np.zeros((w, h), dtype=img.dtype)
    for y in range(h):
        for x in range(w):
            out[x, h - 1 - y] = img[y, x]
    return out


def integral_image(img: np.ndarray) -> np.ndarray:
    """Summed-area table: ii[y, x] = sum of img[:y + 1, :x + 1]."""
    h, w = img.shape
    ii = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        row_sum = 0
        for x in range(w):
            row_sum += int(img[y, x])
            ii[y, x] = row_sum + (ii[y - 1, x] if y > 0 else 0)
    return ii


def local_mean(img: np.ndarray, k: int) -> np.ndarray:
    """Mean of every k x k window (valid region) from a zero-bordered summed-area table."""
    h, w = img.shape
    sat = np.zeros((h + 1, w + 1), dtype=np.int64)
    sat[1:, 1:] = integral_image(img)
    out = np.zeros((h - k + 1, w - k + 1))
    area = k * k
    for y in range(h - k + 1):
        for x in range(w - k + 1):
            s = sat[y + k, x + k] - sat[y, x + k] - sat[y + k, x] + sat[y, x]
            out[y, x] = s / area
    return out


def sepia(rgb: np.ndarray) -> np.ndarray:
    """Sepia tone: a 3x3 colour matrix per pixel, saturated at 255."""
    h, w, _ = rgb.shape
    out = np.zeros_like(rgb)
    for y in range(h):
        for x in range(w):
            r, g, b = int(rgb[y, x, 0]), int(rgb[y, x, 1]), int(rgb[y, x, 2])
            tr = int(0.393 * r + 0.769 * g + 0.189 * b)
            tg = int(0.349 * r + 0.686 * g + 0.168 * b)
            tb = int(0.272 * r + 0.534 * g + 0.131 * b)
            out[y, x] = (min(255, tr), min(255, tg), min(255, tb))
    return out


def posterize(img: np.ndarray, levels: int) -> np.ndarray:
    """Quantise each channel value to `levels` evenly spaced steps."""
    step = 256 // levels
    out = np.empty_like(img)
    flat = img.ravel()
    dst = out.ravel()
    for i in range(len(flat)):
        q = flat[i] // step
        if q >= levels:
            q = levels - 1
        dst[i] = q * step + step // 2
    return out


def channel_histograms(rgb: np.ndarray) -> np.ndarray:
    """A 256-bin histogram for each of the three channels."""
    hist = np.zeros((3, 256), dtype=np.int32)
    h, w, c = rgb.shape
    for y in range(h):
        for x in range(w):
            for ch in range(c):
                hist[ch, rgb[y, x, ch]] += 1
    return hist


def alpha_blend(foreground: np.ndarray, background: np.ndarray, alpha: float) -> np.ndarray:
    """Whole-array cross-fade of two RGB images."""
    blended = alpha * foreground.astype(np.float32) + (1.0 - alpha) * background.astype(np.float32)
    return np.clip(blended, 0, 255).astype(np.uint8)


def flood_fill(image: np.ndarray, y: int, x: int, new_value: int) -> np.ndarray:
    """Recursive 4-connected flood fill from (y, x)."""
    old_value = image[y, x]
    if old_value == new_value:
        return image

    def fill(r: int, c: int) -> None:
        if r < 0 or r >= image.shape[0] or c < 0 or c >= image.shape[1]:
            return
        if image[r, c] != old_value:
            return
        image[r, c] = new_value
        fill(r + 1, c)
        fill(r - 1, c)
        fill(r, c + 1)
        fill(r, c - 1)

    fill(y, x)
    return image


def connected_components(binary: np.ndarray) -> tuple[np.ndarray, int]:
    """Label the 4-connected foreground regions of a 0/1 image with an explicit stack."""
    h, w = binary.shape
    labels = np.zeros((h, w), dtype=np.int32)
    current = 0
    for sy in range(h):
        for sx in range(w):
            if binary[sy, sx] and labels[sy, sx] == 0:
                current += 1
                stack = [(sy, sx)]
                labels[sy, sx] = current
                while stack:
                    y, x = stack.pop()
                    for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                        if 0 <= ny < h and 0 <= nx < w and binary[ny, nx] and labels[ny, nx] == 0:
                            labels[ny, nx] = current
                            stack.append((ny, nx))
    return labels, current


def count_colours(rgb: np.ndarray) -> int:
    """Number of distinct colours (a set of pixel tuples)."""
    return len({tuple(int(c) for c in px) for px in rgb.reshape(-1, 3)})


def _gray(rng, h, w):
    """A smooth gradient with blobs and noise, like a small photo."""
    yy, xx = np.mgrid[0:h, 0:w]
    base = 60 + 120 * (xx / max(w - 1, 1)) + 40 * np.sin(yy / 3.0)
    for _ in range(3):
        cy, cx, r = rng.integers(0, h), rng.integers(0, w), rng.integers(3, 8)
        base = base + 70 * ((yy - cy) ** 2 + (xx - cx) ** 2 < r * r)
    return np.clip(base + rng.normal(0, 12, (h, w)), 0, 255).astype(np.uint8)


def _rgb(rng, h, w):
    return np.stack([_gray(rng, h, w) for _ in range(3)], axis=-1)


def _binary(rng, h, w):
    return (rng.random((h, w)) < 0.3).astype(np.uint8)


H, W = 24, 32  # one frame size for every call, as a camera app would have


def _grays(rng):
    return [(_gray(rng, H, W),) for _ in range(3)]


def _grays_and_flat(rng):
    return [*_grays(rng), (np.full((H, W), 9, np.uint8),)]


def _rgbs(rng):
    return [(_rgb(rng, H, W),) for _ in range(3)] + [(np.full((H, W, 3), 255, np.uint8),)]


INPUTS = {
    "box_blur": lambda rng: [(_gray(rng, H, W), 5) for _ in range(3)],
    "gaussian_blur_3x3": _grays_and_flat,
    "gaussian_blur_5x5": _grays_and_flat,
    "gaussian_kernel": lambda rng: [(5, sigma) for sigma in (0.8, 1.0, 1.4)],
    "median_filter_3x3": _grays,
    "median_filter": lambda rng: [(_gray(rng, H, W), 5) for _ in range(3)],
    "erosion": lambda rng: [(_gray(rng, H, W), 3) for _ in range(3)],
    "dilation": lambda rng: [
        (_binary(rng, H, W), np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=np.uint8)) for _ in range(3)
    ],
    "threshold": lambda rng: [(_gray(rng, H, W), t) for t in (127, 0, 254, 255)],
    "otsu_threshold": _grays_and_flat,
    "histogram_equalisation": _grays_and_flat,
    "rgb_to_gray_int": _rgbs,
    "rgb_to_gray": _rgbs,
    "gamma_correction": lambda rng: [(_gray(rng, H, W), g) for g in (2.2, 0.5, 1.0)],
    "invert": _grays_and_flat,
    "adjust_brightness_contrast": lambda rng: [
        (_rgb(rng, H, W), a, b) for a, b in ((1.3, 20), (0.7, -30), (2.0, 0))
    ],
    "convolve2d": lambda rng: [
        (_gray(rng, H, W), np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], dtype=np.float64), (3, 3)),
        (_gray(rng, H, W), rng.normal(size=(3, 3)), (3, 3)),
        (_gray(rng, H, W), np.ones((3, 3)) / 9.0, (3, 3)),
    ],
    "resize_nearest": lambda rng: [(_rgb(rng, H, W), (36, 48)) for _ in range(3)],
    "resize_bilinear": lambda rng: [(_gray(rng, H, W), 40, 52) for _ in range(3)],
    "flip_horizontal": _grays,
    "rotate90_clockwise": _grays,
    "integral_image": _grays_and_flat,
    "local_mean": lambda rng: [(_gray(rng, H, W), 7) for _ in range(3)],
    "sepia": _rgbs,
    "posterize": lambda rng: [(_rgb(rng, H, W), levels) for levels in (4, 2, 7)],
    "channel_histograms": _rgbs,
    "alpha_blend": lambda rng: [(_rgb(rng, H, W), _rgb(rng, H, W), a) for a in (0.25, 0.5, 1.0)],
    "flood_fill": lambda rng: [(_binary(rng, 16, 16) * np.uint8(255), 0, 0, 128) for _ in range(3)],
    "connected_components": lambda rng: [(_binary(rng, H, W),) for _ in range(3)],
    "count_colours": lambda rng: [((_rgb(rng, H, W) // 64) * 64,) for _ in range(3)],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE.update(
    {
        "flood_fill": "out: recursion (a nested recursive closure)",
        "connected_components": "out: an explicit stack (list.append/pop) whose depth depends on the data",
        "count_colours": "out: a set of tuples",
    }
)


def _shape(v):
    """What must agree between the calls of one function: array dtype and shape, list structure."""
    if isinstance(v, np.ndarray):
        return ("ndarray", v.dtype.str, v.shape)
    if isinstance(v, (list, tuple)) and any(isinstance(e, (list, tuple, np.ndarray)) for e in v):
        return (type(v).__name__, tuple(_shape(e) for e in v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, len(v))
    return type(v).__name__


def _run_inputs(check=None):
    """Call every INPUTS case on copies of its arguments; check(name, args, result) when given.
    Every call of a function passes arrays and lists of the same shapes (as one app would)."""
    assert set(INPUTS) == set(SCOPE), set(INPUTS) ^ set(SCOPE)
    for k, (name, make) in enumerate(sorted(INPUTS.items())):
        calls = make(np.random.default_rng(2024 + k))
        assert len(calls) >= 3, name
        assert len({tuple(_shape(a) for a in args) for args in calls}) == 1, (
            name,
            [[_shape(a) for a in c] for c in calls],
        )
        for args in calls:
            result = globals()[name](*copy.deepcopy(args))
            if check is not None:
                check(name, args, result)


def _windows(img, k):
    return sliding_window_view(img.astype(np.int64), (k, k))


def _interior(img, full):
    out = img.copy()
    out[1:-1, 1:-1] = full
    return out


def _selfcheck():
    def check(name, a, r):
        img = a[0]
        if name == "box_blur":
            assert np.array_equal(r, _windows(img, a[1]).sum(axis=(2, 3)) // (a[1] ** 2))
        elif name == "gaussian_blur_3x3":
            ref = (_windows(img, 3) * GAUSS_3X3).sum(axis=(2, 3))
            assert np.array_equal(r, _interior(img, (ref + 8) >> 4))
        elif name == "gaussian_blur_5x5":
            k1 = np.array([1, 4, 6, 4, 1])
            ref = (_windows(np.pad(img, 2, mode="edge"), 5) * np.outer(k1, k1)).sum(axis=(2, 3))
            assert np.array_equal(r, (ref + 128) >> 8)
        elif name == "gaussian_kernel":
            assert abs(r.sum() - 1) < 1e-12 and np.allclose(r, r.T) and r.argmax() == (a[0] * a[0]) // 2
        elif name == "median_filter_3x3":
            assert np.array_equal(
                r, _interior(img, np.median(_windows(img, 3), axis=(2, 3)).astype(np.uint8))
            )
        elif name == "median_filter":
            m = a[1]
            b = m // 2
            ref = np.zeros_like(img)
            ref[b : img.shape[0] - b, b : img.shape[1] - b] = np.median(_windows(img, m), axis=(2, 3))
            assert np.array_equal(r, ref)
        elif name == "erosion":
            assert np.array_equal(r, _windows(img, a[1]).min(axis=(2, 3)))
        elif name == "dilation":
            p = np.pad(img, 1)
            ref = p[1:-1, 1:-1] | p[:-2, 1:-1] | p[2:, 1:-1] | p[1:-1, :-2] | p[1:-1, 2:]
            assert np.array_equal(r, ref)
        elif name == "threshold":
            assert np.array_equal(r, (img > a[1]) * 255)
        elif name == "otsu_threshold":
            hist = np.bincount(img.ravel(), minlength=256).astype(float)
            best, best_t = 0.0, 0
            for t in range(256):
                w0, w1 = hist[: t + 1].sum(), hist[t + 1 :].sum()
                if w0 and w1:
                    m0 = (np.arange(t + 1) * hist[: t + 1]).sum() / w0
                    m1 = (np.arange(t + 1, 256) * hist[t + 1 :]).sum() / w1
                    v = w0 * w1 * (m0 - m1) ** 2
                    if v > best * (1 + 1e-12):
                        best, best_t = v, t
            assert r == best_t, (r, best_t)
        elif name == "histogram_equalisation":
            cdf = np.cumsum(np.bincount(img.ravel(), minlength=256))
            cmin = cdf[cdf > 0][0]
            if img.size == cmin:
                assert np.array_equal(r, img)
            else:
                lut = np.clip(np.round((cdf - cmin) * 255 / (img.size - cmin)), 0, 255).astype(np.uint8)
                assert np.array_equal(r, lut[img])
        elif name == "rgb_to_gray_int":
            c = img.astype(np.int64)
            assert np.array_equal(r, (77 * c[..., 0] + 150 * c[..., 1] + 29 * c[..., 2]) >> 8)
        elif name == "rgb_to_gray":
            ref = np.round(img.astype(float) @ np.array([0.299, 0.587, 0.114]))
            assert np.abs(r.astype(int) - ref).max() <= 1
        elif name == "gamma_correction":
            ref = np.clip(np.floor(255.0 * (img / 255.0) ** (1 / a[1]) + 0.5), 0, 255)
            assert np.array_equal(r, ref.astype(np.uint8))
        elif name == "invert":
            assert np.array_equal(r.astype(int), 255 - img.astype(int))
        elif name == "adjust_brightness_contrast":
            ref = np.clip((a[1] * img.astype(float) + a[2]).astype(int), 0, 255)
            assert np.array_equal(r, ref)
        elif name == "convolve2d":
            kh, kw = a[2]
            p = np.pad(img.astype(float), ((kh // 2, kh - 1 - kh // 2), (kw // 2, kw - 1 - kw // 2)))
            ref = (sliding_window_view(p, (kh, kw)) * a[1]).sum(axis=(2, 3))
            assert np.allclose(r, ref)
        elif name == "resize_nearest":
            dh, dw = a[1]
            ys = (np.arange(dh) * (img.shape[0] / dh)).astype(int)
            xs = (np.arange(dw) * (img.shape[1] / dw)).astype(int)
            assert np.array_equal(r, img[ys][:, xs])
        elif name == "resize_bilinear":
            assert r.shape == (a[1], a[2]) and r[0, 0] == img[0, 0] and r[-1, -1] == img[-1, -1]
            assert r.min() >= img.min() and r.max() <= img.max()
        elif name == "flip_horizontal":
            assert np.array_equal(r, img[:, ::-1])
        elif name == "rotate90_clockwise":
            assert np.array_equal(r, np.rot90(img, -1))
        elif name == "integral_image":
            assert np.array_equal(r, img.astype(np.int64).cumsum(0).cumsum(1))
        elif name == "local_mean":
            assert np.allclose(r, _windows(img, a[1]).mean(axis=(2, 3)))
        elif name == "sepia":
            m = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])
            ref = np.minimum(255, (img.astype(float) @ m.T).astype(int))
            assert np.abs(r.astype(int) - ref).max() <= 1
        elif name == "posterize":
            step = 256 // a[1]
            assert np.array_equal(r, np.minimum(img // step, a[1] - 1) * step + step // 2)
        elif name == "channel_histograms":
            assert all(
                np.array_equal(r[c], np.bincount(img[..., c].ravel(), minlength=256)) for c in range(3)
            )
        elif name == "alpha_blend":
            ref = np.clip(
                a[2] * img.astype(np.float32) + (1 - a[2]) * a[1].astype(np.float32), 0, 255
            ).astype(np.uint8)
            assert np.array_equal(r, ref)
        elif name == "flood_fill":
            labels, _ = connected_components((img == img[a[1], a[2]]).astype(np.uint8))
            region = labels == labels[a[1], a[2]]
            assert np.all(r[region] == a[3]) and np.array_equal(r[~region], img[~region])
        elif name == "connected_components":
            labels, n = r
            assert labels.max() == n and np.array_equal(labels > 0, img > 0)
            assert np.all((labels[1:] == labels[:-1]) | (labels[1:] == 0) | (labels[:-1] == 0))
            assert np.all((labels[:, 1:] == labels[:, :-1]) | (labels[:, 1:] == 0) | (labels[:, :-1] == 0))
        elif name == "count_colours":
            assert r == len(np.unique(img.reshape(-1, 3), axis=0))
        else:
            raise AssertionError(f"no check for {name}")

    _run_inputs(check)
    print(f"image_filters: {len(INPUTS)} cases OK")


if __name__ == "__main__":
    _selfcheck()
