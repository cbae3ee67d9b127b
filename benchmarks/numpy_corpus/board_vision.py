"""Camera and display pipelines of embedded-vision boards (PYNQ-Z1/Z2, Ultra96) in NumPy.

The per-frame software a board user measures before writing an overlay: Mandelbrot demos with a
max-iteration `while` per pixel (float, Q4.28 fixed point, and masked complex arrays), contrast
stretching through a cumulative histogram and a look-up table, Harris corner post-processing
(threshold and 3x3 local maxima), Canny's non-maximum suppression and hysteresis, Otsu's
threshold, integer Sobel and box blur with widened accumulators, and in-place processing
through an alias of the input (`imgOut = imgIn`). Two routines return data-dependent lists.
"""

import numpy as np


def mandelbrot(width, height, max_iter, x0, x1, y0, y1):
    """Escape-time counts of the Mandelbrot set over a pixel grid, one while loop per pixel."""
    xs = np.linspace(x0, x1, width)
    ys = np.linspace(y0, y1, height)
    img = np.zeros((height, width), dtype=np.uint16)
    for py in range(height):
        for px in range(width):
            cr = xs[px]
            ci = ys[py]
            zr = zi = 0.0
            it = 0
            while zr * zr + zi * zi <= 4.0 and it < max_iter:
                zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
                it += 1
            img[py, px] = it
    return img


def mandelbrot_fixed(width, height, max_iter):
    """Mandelbrot counts over [-2, 1] x [-1.2, 1.2] in Q4.28 fixed point, as the overlay computes them."""
    FRAC = 28
    four = 4 << FRAC
    x0 = -2 << FRAC
    y0 = -int(1.2 * (1 << FRAC))
    dx = (3 << FRAC) // width
    dy = int(2.4 * (1 << FRAC)) // height
    img = np.zeros((height, width), dtype=np.uint8)
    for py in range(height):
        ci = y0 + py * dy
        for px in range(width):
            cr = x0 + px * dx
            zr = 0
            zi = 0
            n = 0
            while n < max_iter:
                zr2 = (zr * zr) >> FRAC
                zi2 = (zi * zi) >> FRAC
                if zr2 + zi2 > four:
                    break
                zi = ((2 * zr * zi) >> FRAC) + ci
                zr = zr2 - zi2 + cr
                n += 1
            img[py, px] = n
    return img


def mandelbrot_masked(c, max_iter):
    """Vectorised escape-time counts: only the points still bounded are iterated."""
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int32)
    for _ in range(max_iter):
        m = np.abs(z) <= 2.0
        z[m] = z[m] * z[m] + c[m]
        counts[m] += 1
    return counts


def histogram_stretch(img, low_pct, high_pct):
    """Contrast stretch between two percentiles of the grey levels, through a 256-entry LUT."""
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    total = cdf[-1]
    lo = int(np.searchsorted(cdf, total * low_pct / 100.0))
    hi = int(np.searchsorted(cdf, total * high_pct / 100.0))
    if hi <= lo:
        return img.copy()
    lut = np.clip((np.arange(256) - lo) * 255.0 / (hi - lo), 0, 255).astype(np.uint8)
    return lut[img]


def box_sum3(a):
    """Sum over each 3x3 neighbourhood (zero on the border)."""
    s = np.zeros_like(a)
    s[1:-1, 1:-1] = (
        a[:-2, :-2] + a[:-2, 1:-1] + a[:-2, 2:]
        + a[1:-1, :-2] + a[1:-1, 1:-1] + a[1:-1, 2:]
        + a[2:, :-2] + a[2:, 1:-1] + a[2:, 2:]
    )  # fmt: skip
    return s


def harris_response(gray, k=0.04):
    """Harris corner response from central-difference gradients and 3x3 windows, in float32."""
    I = gray.astype(np.float32)  # noqa: E741
    Ix = np.zeros_like(I)
    Iy = np.zeros_like(I)
    Ix[:, 1:-1] = (I[:, 2:] - I[:, :-2]) * 0.5
    Iy[1:-1, :] = (I[2:, :] - I[:-2, :]) * 0.5
    Sxx = box_sum3(Ix * Ix)
    Syy = box_sum3(Iy * Iy)
    Sxy = box_sum3(Ix * Iy)
    return Sxx * Syy - Sxy * Sxy - k * (Sxx + Syy) ** 2


def harris_local_maxima(R, rel_thresh):
    """Corner map: responses above rel_thresh * max that are maxima of their 3x3 neighbourhood."""
    thresh = rel_thresh * R.max()
    P = np.pad(R, 1, mode="constant", constant_values=-np.inf)
    h, w = R.shape
    is_max = R > thresh
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy == 0 and dx == 0:
                continue
            is_max &= R >= P[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
    return is_max


def harris_corner_list(R, rel_thresh):
    """(row, col) of the corners, strongest first."""
    corners = np.argwhere(harris_local_maxima(R, rel_thresh))
    order = np.argsort(-R[corners[:, 0], corners[:, 1]], kind="stable")
    return corners[order]


def hysteresis_threshold(mag, low, high, max_iter):
    """Canny hysteresis: weak pixels survive when 8-connected to a strong one (grown by dilation)."""
    weak = mag >= low
    edges = mag >= high
    for _ in range(max_iter):
        grown = edges.copy()
        grown[1:, :] |= edges[:-1, :]
        grown[:-1, :] |= edges[1:, :]
        grown[:, 1:] |= edges[:, :-1]
        grown[:, :-1] |= edges[:, 1:]
        grown[1:, 1:] |= edges[:-1, :-1]
        grown[:-1, :-1] |= edges[1:, 1:]
        grown[1:, :-1] |= edges[:-1, 1:]
        grown[:-1, 1:] |= edges[1:, :-1]
        grown &= weak
        if np.array_equal(grown, edges):
            break
        edges = grown
    return edges


def hysteresis_stack(mag, low, high):
    """Canny hysteresis by depth-first search from every strong pixel."""
    h, w = mag.shape
    edges = np.zeros((h, w), dtype=bool)
    stack = [(int(y), int(x)) for y, x in zip(*np.nonzero(mag >= high))]
    for y, x in stack:
        edges[y, x] = True
    while stack:
        y, x = stack.pop()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                ny, nx = y + dy, x + dx
                if 0 <= ny < h and 0 <= nx < w and not edges[ny, nx] and mag[ny, nx] >= low:
                    edges[ny, nx] = True
                    stack.append((ny, nx))
    return edges


def canny_nms(mag, gx, gy):
    """Non-maximum suppression along the gradient direction quantised to 0/45/90/135 degrees."""
    h, w = mag.shape
    out = np.zeros_like(mag)
    angle = np.rad2deg(np.arctan2(gy, gx)) % 180
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            a = angle[y, x]
            if a < 22.5 or a >= 157.5:
                n1, n2 = mag[y, x - 1], mag[y, x + 1]
            elif a < 67.5:
                n1, n2 = mag[y - 1, x + 1], mag[y + 1, x - 1]
            elif a < 112.5:
                n1, n2 = mag[y - 1, x], mag[y + 1, x]
            else:
                n1, n2 = mag[y - 1, x - 1], mag[y + 1, x + 1]
            if mag[y, x] >= n1 and mag[y, x] >= n2:
                out[y, x] = mag[y, x]
    return out


def otsu_threshold(img):
    """Otsu's grey-level threshold maximising the between-class variance."""
    hist = np.zeros(256, dtype=np.int64)
    for v in img.ravel():
        hist[v] += 1
    total = img.size
    sum_all = np.dot(np.arange(256), hist)
    w_b = 0
    sum_b = 0.0
    best_t = 0
    best_var = 0.0
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
        var = w_b * w_f * (m_b - m_f) ** 2
        if var > best_var:
            best_var = var
            best_t = t
    return best_t


def sobel_u8(img):
    """Integer Sobel edge strength |gx| + |gy| of a uint8 frame, saturated to 255."""
    p = img.astype(np.int16)
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    out = np.zeros_like(img)
    out[1:-1, 1:-1] = np.clip(np.abs(gx) + np.abs(gy), 0, 255)
    return out


def box_blur_u8(imgIn):
    """3x3 mean of a uint8 frame with a uint16 accumulator; the border is copied."""
    h, w = imgIn.shape
    imgOut = imgIn.copy()
    acc = np.zeros((h - 2, w - 2), dtype=np.uint16)
    for dy in range(3):
        for dx in range(3):
            acc += imgIn[dy : dy + h - 2, dx : dx + w - 2]
    imgOut[1:-1, 1:-1] = acc // 9
    return imgOut


def invert(imgIn):
    """Negative of a frame, written in place through an alias of the input."""
    imgOut = imgIn
    h, w = imgIn.shape
    for y in range(h):
        for x in range(w):
            imgOut[y, x] = 255 - imgIn[y, x]
    return imgOut


def binarize_inplace(imgIn, t):
    """Binary threshold in place: 255 from t up, 0 below, through an alias of the frame."""
    imgOut = imgIn
    mask = imgOut >= t
    imgOut[mask] = 255
    imgOut[~mask] = 0
    return imgOut


# ---------------------------------------------------------------------------------------------


def _scene(rng, h=32, w=40):
    """A dark frame with two bright rectangles and noise: corners, edges and a bimodal histogram."""
    img = rng.integers(20, 60, (h, w))
    img[4:14, 5:18] += 150
    img[18:28, 22:36] += rng.integers(80, 160)
    return np.clip(img, 0, 255).astype(np.uint8)


def _grad(rng):
    g = _scene(rng).astype(np.float64)
    gx = np.zeros_like(g)
    gy = np.zeros_like(g)
    gx[:, 1:-1] = g[:, 2:] - g[:, :-2]
    gy[1:-1, :] = g[2:, :] - g[:-2, :]
    return np.hypot(gx, gy), gx, gy


INPUTS = {
    "mandelbrot": lambda rng: [
        (32, 24, 50, -2.0, 1.0, -1.2, 1.2),
        (32, 24, 100, -0.8, -0.7, 0.05, 0.15),
        (32, 24, 1, -2.0, 1.0, -1.0, 1.0),
    ],
    "mandelbrot_fixed": lambda rng: [(32, 24, 50), (32, 24, 100), (32, 24, 1)],
    "mandelbrot_masked": lambda rng: [
        ((np.linspace(-2, 1, 40)[None, :] + 1j * np.linspace(-1.2, 1.2, 30)[:, None]), 50),
        (rng.uniform(-2, 1, (30, 40)) + 1j * rng.uniform(-1.5, 1.5, (30, 40)), 100),
        (np.zeros((30, 40), dtype=np.complex128), 10),
    ],
    "histogram_stretch": lambda rng: [
        (_scene(rng), 1.0, 99.0),
        (_scene(rng), 10.0, 90.0),
        (np.full((32, 40), 7, np.uint8), 1.0, 99.0),
    ],
    "box_sum3": lambda rng: [
        (rng.normal(size=(16, 20)),),
        (rng.integers(0, 100, (16, 20)).astype(np.float64),),
        (np.ones((16, 20)),),
    ],
    "harris_response": lambda rng: [(_scene(rng),) for _ in range(3)],
    "harris_local_maxima": lambda rng: [(harris_response(_scene(rng)), t) for t in (0.01, 0.1, 0.5)],
    "harris_corner_list": lambda rng: [(harris_response(_scene(rng)), t) for t in (0.01, 0.1, 0.5)],
    "hysteresis_threshold": lambda rng: [
        (_grad(rng)[0], lo, hi, 1280) for lo, hi in ((20.0, 100.0), (50.0, 200.0), (5.0, 400.0))
    ],
    "hysteresis_stack": lambda rng: [
        (_grad(rng)[0], lo, hi) for lo, hi in ((20.0, 100.0), (50.0, 200.0), (5.0, 400.0))
    ],
    "canny_nms": lambda rng: [_grad(rng) for _ in range(3)],
    "otsu_threshold": lambda rng: [
        (_scene(rng),),
        (rng.integers(0, 256, (32, 40)).astype(np.uint8),),
        (np.where(np.arange(40) < 10, 30, 200).astype(np.uint8)[None, :].repeat(32, axis=0),),
    ],
    "sobel_u8": lambda rng: [
        (_scene(rng),),
        (rng.integers(0, 256, (32, 40)).astype(np.uint8),),
        (np.full((32, 40), 255, np.uint8),),
    ],
    "box_blur_u8": lambda rng: [
        (_scene(rng),),
        (np.full((32, 40), 255, np.uint8),),
        (rng.integers(0, 256, (32, 40)).astype(np.uint8),),
    ],
    "invert": lambda rng: [
        (_scene(rng),),
        (np.zeros((32, 40), np.uint8),),
        (rng.integers(0, 256, (32, 40)).astype(np.uint8),),
    ],
    "binarize_inplace": lambda rng: [(_scene(rng), t) for t in (0, 100, 255)],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE["harris_corner_list"] = (
    "out: np.argwhere returns as many corners as the image has (data-dependent size)"
)
SCOPE["hysteresis_stack"] = (
    "out: depth-first search with a Python list as stack growing a data-dependent amount"
)

# a 1080p camera frame (2 MB uint8, 8 MB float32 response) and a 1080p Mandelbrot render
_FRAME = (1080, 1920)
REALISTIC_SIZES = {
    "mandelbrot": {"width": 1920, "height": 1080, "max_iter": 256},
    "mandelbrot_fixed": {"width": 1920, "height": 1080, "max_iter": 256},
    "mandelbrot_masked": {"c": _FRAME, "max_iter": 256},
    "histogram_stretch": {"img": _FRAME},
    "box_sum3": {"a": _FRAME},
    "harris_response": {"gray": _FRAME},
    "harris_local_maxima": {"R": _FRAME},
    "harris_corner_list": {"R": _FRAME},
    "hysteresis_threshold": {"mag": _FRAME},
    "hysteresis_stack": {"mag": _FRAME},
    "canny_nms": {"mag": _FRAME, "gx": _FRAME, "gy": _FRAME},
    "otsu_threshold": {"img": _FRAME},
    "sobel_u8": {"img": _FRAME},
    "box_blur_u8": {"imgIn": _FRAME},
    "invert": {"imgIn": _FRAME},
    "binarize_inplace": {"imgIn": _FRAME},
}


# ---------------------------------------------------------------------------------------------
# references: pixel loops, breadth-first search, brute force


def _escape(c, max_iter):
    z, n = 0j, 0
    while n < max_iter and abs(z) <= 2.0:
        z, n = z * z + c, n + 1
    return n


def _ref_mandel_fixed(width, height, max_iter):
    xs = -2.0 + np.arange(width) * (3 << 28) // width / 2**28
    ys = -1.2 + np.arange(height) * (int(2.4 * (1 << 28)) // height) / 2**28
    want = np.array([[_escape(complex(x, y), max_iter) for x in xs] for y in ys])
    # fixed-point rounding may move a few boundary pixels by an iteration or more
    return (lambda got: got.dtype == np.uint8 and got.shape == want.shape and np.mean(got == want) > 0.9), {}


def _ref_stretch(img, lo_pct, hi_pct):
    flat = sorted(img.ravel().tolist())
    n = len(flat)
    cum = [sum(1 for v in flat if v <= g) for g in range(256)]
    lo = next(g for g in range(256) if cum[g] >= n * lo_pct / 100.0)
    hi = next(g for g in range(256) if cum[g] >= n * hi_pct / 100.0)
    if hi <= lo:
        return img.copy(), {}
    return np.array(
        [[min(max((v - lo) * 255.0 / (hi - lo), 0), 255) for v in row] for row in img.tolist()], np.uint8
    ), {}


def _box(a):
    s = np.zeros_like(a)
    for y in range(1, a.shape[0] - 1):
        for x in range(1, a.shape[1] - 1):
            s[y, x] = a[y - 1 : y + 2, x - 1 : x + 2].sum()
    return s


def _ref_harris(gray, k=0.04):
    g = gray.astype(np.float64)
    Ix, Iy = np.zeros_like(g), np.zeros_like(g)
    Ix[:, 1:-1] = (g[:, 2:] - g[:, :-2]) / 2
    Iy[1:-1, :] = (g[2:, :] - g[:-2, :]) / 2
    Sxx, Syy, Sxy = _box(Ix * Ix), _box(Iy * Iy), _box(Ix * Iy)
    want = Sxx * Syy - Sxy**2 - k * (Sxx + Syy) ** 2
    return (
        lambda got: (
            got.dtype == np.float32 and np.allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())
        )
    ), {}


def _ref_maxima(R, t):
    h, w = R.shape
    out = np.zeros((h, w), dtype=bool)
    for y in range(h):
        for x in range(w):
            nb = R[max(y - 1, 0) : y + 2, max(x - 1, 0) : x + 2]
            out[y, x] = R[y, x] > t * R.max() and R[y, x] >= nb.max()
    return out, {}


def _ref_corner_list(R, t):
    m = _ref_maxima(R, t)[0]
    pts = sorted(
        ((y, x) for y in range(R.shape[0]) for x in range(R.shape[1]) if m[y, x]), key=lambda p: -R[p]
    )
    return np.array(pts, dtype=np.int64).reshape(-1, 2), {}


def _ref_hysteresis(mag, low, high, max_iter=None):
    from collections import deque

    h, w = mag.shape
    out = mag >= high
    queue = deque(zip(*np.nonzero(out)))
    while queue:
        y, x = queue.popleft()
        for ny in range(max(y - 1, 0), min(y + 2, h)):
            for nx in range(max(x - 1, 0), min(x + 2, w)):
                if not out[ny, nx] and mag[ny, nx] >= low:
                    out[ny, nx] = True
                    queue.append((ny, nx))
    return out, {}


def _ref_nms(mag, gx, gy):
    angle = np.rad2deg(np.arctan2(gy, gx)) % 180
    sector = np.select([(angle < 22.5) | (angle >= 157.5), angle < 67.5, angle < 112.5], [0, 1, 2], 3)
    offsets = {0: ((0, -1), (0, 1)), 1: ((-1, 1), (1, -1)), 2: ((-1, 0), (1, 0)), 3: ((-1, -1), (1, 1))}
    out = np.zeros_like(mag)
    for y in range(1, mag.shape[0] - 1):
        for x in range(1, mag.shape[1] - 1):
            (a, b), (c, d) = offsets[int(sector[y, x])]
            if mag[y, x] >= max(mag[y + a, x + b], mag[y + c, x + d]):
                out[y, x] = mag[y, x]
    return out, {}


def _ref_otsu(img):
    v = img.ravel().astype(np.float64)
    best, best_t = 0.0, 0
    for t in range(256):
        b, f = v[v <= t], v[v > t]
        if len(b) and len(f):
            score = len(b) * len(f) * (b.mean() - f.mean()) ** 2
            if score > best * (1 + 1e-12):
                best, best_t = score, t
    return best_t, {}


def _ref_sobel(img):
    p = img.astype(np.int64)
    out = np.zeros_like(img)
    kx = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
    for y in range(1, p.shape[0] - 1):
        for x in range(1, p.shape[1] - 1):
            win = p[y - 1 : y + 2, x - 1 : x + 2]
            out[y, x] = min(abs((win * kx).sum()) + abs((win * kx.T).sum()), 255)
    return out, {}


def _ref_blur(img):
    out = img.copy()
    for y in range(1, img.shape[0] - 1):
        for x in range(1, img.shape[1] - 1):
            out[y, x] = int(img[y - 1 : y + 2, x - 1 : x + 2].astype(np.int64).sum()) // 9
    return out, {}


_REFERENCES = {
    "mandelbrot": lambda w, h, n, x0, x1, y0, y1: (
        np.array(
            [[_escape(complex(x, y), n) for x in np.linspace(x0, x1, w)] for y in np.linspace(y0, y1, h)],
            np.uint16,
        ),
        {},
    ),
    "mandelbrot_fixed": _ref_mandel_fixed,
    "mandelbrot_masked": lambda c, n: (np.vectorize(lambda v: _escape(v, n))(c).astype(np.int32), {}),
    "histogram_stretch": _ref_stretch,
    "box_sum3": lambda a: (_box(a), {}),
    "harris_response": _ref_harris,
    "harris_local_maxima": _ref_maxima,
    "harris_corner_list": _ref_corner_list,
    "hysteresis_threshold": _ref_hysteresis,
    "hysteresis_stack": _ref_hysteresis,
    "canny_nms": _ref_nms,
    "otsu_threshold": _ref_otsu,
    "sobel_u8": _ref_sobel,
    "box_blur_u8": _ref_blur,
    "invert": lambda img: ((255 - img).astype(np.uint8), {0: (255 - img).astype(np.uint8)}),
    "binarize_inplace": lambda img, t: (
        np.where(img >= t, 255, 0).astype(np.uint8),
        {0: np.where(img >= t, 255, 0).astype(np.uint8)},
    ),
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    return run_cases(globals())


if __name__ == "__main__":
    _selfcheck()
