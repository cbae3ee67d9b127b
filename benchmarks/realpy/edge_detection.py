"""Edge and corner detection on uint8 grayscale images: gradient operators, Canny's stages,
Harris corners and the Hough accumulator, written pixel by pixel as in computer-vision course
assignments and algorithm collections."""

# ruff: noqa: RUF046  (the corpus keeps the style of the code it imitates)
import copy
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
SOBEL_Y = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])

KIRSCH = np.array(
    [
        [[5, 5, 5], [-3, 0, -3], [-3, -3, -3]],
        [[5, 5, -3], [5, 0, -3], [-3, -3, -3]],
        [[5, -3, -3], [5, 0, -3], [5, -3, -3]],
        [[-3, -3, -3], [5, 0, -3], [5, 5, -3]],
        [[-3, -3, -3], [-3, 0, -3], [5, 5, 5]],
        [[-3, -3, -3], [-3, 0, 5], [-3, 5, 5]],
        [[-3, -3, 5], [-3, 0, 5], [-3, -3, 5]],
        [[-3, 5, 5], [-3, 0, 5], [-3, -3, -3]],
    ]
)

WEAK = 75
STRONG = 255


def sobel_gx(img: np.ndarray) -> np.ndarray:
    """Horizontal Sobel derivative (interior pixels; border left 0)."""
    h, w = img.shape
    gx = np.zeros((h, w), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            right = int(img[y - 1, x + 1]) + 2 * int(img[y, x + 1]) + int(img[y + 1, x + 1])
            left = int(img[y - 1, x - 1]) + 2 * int(img[y, x - 1]) + int(img[y + 1, x - 1])
            gx[y, x] = right - left
    return gx


def sobel_gy(img: np.ndarray) -> np.ndarray:
    """Vertical Sobel derivative (interior pixels; border left 0)."""
    h, w = img.shape
    gy = np.zeros((h, w), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            bottom = int(img[y + 1, x - 1]) + 2 * int(img[y + 1, x]) + int(img[y + 1, x + 1])
            top = int(img[y - 1, x - 1]) + 2 * int(img[y - 1, x]) + int(img[y - 1, x + 1])
            gy[y, x] = bottom - top
    return gy


def sobel_magnitude_int(img: np.ndarray) -> np.ndarray:
    """|gx| + |gy| saturated to 255, the usual fixed-point approximation."""
    gx = sobel_gx(img)
    gy = sobel_gy(img)
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            m = abs(gx[y, x]) + abs(gy[y, x])
            out[y, x] = m if m < 255 else 255
    return out


def sobel_magnitude(image: np.ndarray) -> np.ndarray:
    """sqrt(gx^2 + gy^2) with the kernels applied to 3x3 slices."""
    h, w = image.shape
    mag = np.zeros((h, w))
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            window = image[y - 1 : y + 2, x - 1 : x + 2].astype(np.int32)
            gx = np.sum(window * SOBEL_X)
            gy = np.sum(window * SOBEL_Y)
            mag[y, x] = math.sqrt(gx * gx + gy * gy)
    return mag


def sobel_hypot(img: np.ndarray) -> np.ndarray:
    """Whole-array Sobel with shifted views and np.hypot; output is (h - 2) x (w - 2)."""
    f = img.astype(np.float32)
    gx = (f[:-2, 2:] + 2 * f[1:-1, 2:] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[1:-1, :-2] + f[2:, :-2])
    gy = (f[2:, :-2] + 2 * f[2:, 1:-1] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[:-2, 1:-1] + f[:-2, 2:])
    return np.hypot(gx, gy)


def prewitt(img: np.ndarray) -> np.ndarray:
    """Prewitt magnitude |gx| + |gy| as int32 (interior)."""
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            gx = 0
            gy = 0
            for d in (-1, 0, 1):
                gx += int(img[y + d, x + 1]) - int(img[y + d, x - 1])
                gy += int(img[y + 1, x + d]) - int(img[y - 1, x + d])
            out[y, x] = abs(gx) + abs(gy)
    return out


def scharr(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scharr derivatives (3, 10, 3 weights); returns (gx, gy)."""
    kx = [[-3, 0, 3], [-10, 0, 10], [-3, 0, 3]]
    ky = [[-3, -10, -3], [0, 0, 0], [3, 10, 3]]
    h, w = img.shape
    gx = np.zeros((h, w), dtype=np.int32)
    gy = np.zeros((h, w), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            sx = sy = 0
            for i in range(3):
                for j in range(3):
                    p = int(img[y + i - 1, x + j - 1])
                    sx += kx[i][j] * p
                    sy += ky[i][j] * p
            gx[y, x] = sx
            gy[y, x] = sy
    return gx, gy


def laplacian(img: np.ndarray, diagonal: bool = False) -> np.ndarray:
    """4- or 8-neighbour Laplacian (interior), int32."""
    if diagonal:
        kernel = np.array([[1, 1, 1], [1, -8, 1], [1, 1, 1]])
    else:
        kernel = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]])
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            acc = 0
            for i in range(3):
                for j in range(3):
                    acc += kernel[i, j] * int(img[y - 1 + i, x - 1 + j])
            out[y, x] = acc
    return out


def roberts_cross(img: np.ndarray) -> np.ndarray:
    """Roberts cross magnitude; output (h - 1) x (w - 1) float."""
    h, w = img.shape
    out = np.zeros((h - 1, w - 1))
    for y in range(h - 1):
        for x in range(w - 1):
            d1 = int(img[y, x]) - int(img[y + 1, x + 1])
            d2 = int(img[y, x + 1]) - int(img[y + 1, x])
            out[y, x] = math.sqrt(d1**2 + d2**2)
    return out


def kirsch(img: np.ndarray) -> np.ndarray:
    """Kirsch compass operator: maximum response over the 8 rotated masks."""
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            best = -(10**9)
            for m in range(8):
                acc = 0
                for i in range(3):
                    for j in range(3):
                        acc += KIRSCH[m, i, j] * int(img[y - 1 + i, x - 1 + j])
                best = max(best, acc)
            out[y, x] = best
    return out


def quantise_direction(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """Gradient angle quantised to 0 (0 deg), 1 (45), 2 (90), 3 (135)."""
    h, w = gx.shape
    q = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            angle = math.atan2(gy[y, x], gx[y, x]) * 180.0 / math.pi
            if angle < 0:
                angle += 180.0
            if angle < 22.5 or angle >= 157.5:
                q[y, x] = 0
            elif angle < 67.5:
                q[y, x] = 1
            elif angle < 112.5:
                q[y, x] = 2
            else:
                q[y, x] = 3
    return q


def non_max_suppression(magnitude: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Keep a pixel only if it is a maximum along its quantised gradient direction."""
    h, w = magnitude.shape
    out = np.zeros_like(magnitude)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            d = direction[y, x]
            if d == 0:
                a, b = magnitude[y, x - 1], magnitude[y, x + 1]
            elif d == 1:
                a, b = magnitude[y + 1, x - 1], magnitude[y - 1, x + 1]
            elif d == 2:
                a, b = magnitude[y - 1, x], magnitude[y + 1, x]
            else:
                a, b = magnitude[y - 1, x - 1], magnitude[y + 1, x + 1]
            if magnitude[y, x] >= a and magnitude[y, x] >= b:
                out[y, x] = magnitude[y, x]
    return out


def double_threshold(img: np.ndarray, low: float, high: float) -> np.ndarray:
    """STRONG where img >= high, WEAK where low <= img < high, 0 elsewhere."""
    h, w = img.shape
    res = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            v = img[y, x]
            if v >= high:
                res[y, x] = STRONG
            elif v >= low:
                res[y, x] = WEAK
    return res


def hysteresis(img: np.ndarray, max_passes: int = 50) -> np.ndarray:
    """Promote WEAK pixels touching STRONG ones, pass after pass (at most max_passes),
    then drop the remaining WEAK pixels."""
    h, w = img.shape
    out = img.copy()
    for _ in range(max_passes):
        changed = False
        for y in range(1, h - 1):
            for x in range(1, w - 1):
                if out[y, x] == WEAK:
                    found = False
                    for dy in (-1, 0, 1):
                        for dx in (-1, 0, 1):
                            if out[y + dy, x + dx] == STRONG:
                                found = True
                    if found:
                        out[y, x] = STRONG
                        changed = True
        if not changed:
            break
    for y in range(h):
        for x in range(w):
            if out[y, x] != STRONG:
                out[y, x] = 0
    return out


def blur3(img: np.ndarray) -> np.ndarray:
    """3x3 binomial smoothing as float (border copied)."""
    out = img.astype(np.float64)
    h, w = img.shape
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            s = 4.0 * img[y, x]
            s += 2.0 * (int(img[y - 1, x]) + int(img[y + 1, x]) + int(img[y, x - 1]) + int(img[y, x + 1]))
            s += (
                int(img[y - 1, x - 1])
                + int(img[y - 1, x + 1])
                + int(img[y + 1, x - 1])
                + int(img[y + 1, x + 1])
            )
            out[y, x] = s / 16.0
    return out


def canny(img: np.ndarray, low: float, high: float) -> np.ndarray:
    """The Canny pipeline: smooth, Sobel, direction, thinning, double threshold, hysteresis."""
    smooth = blur3(img)
    h, w = img.shape
    gx = np.zeros((h, w))
    gy = np.zeros((h, w))
    mag = np.zeros((h, w))
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            window = smooth[y - 1 : y + 2, x - 1 : x + 2]
            gx[y, x] = np.sum(window * SOBEL_X)
            gy[y, x] = np.sum(window * SOBEL_Y)
            mag[y, x] = math.hypot(gx[y, x], gy[y, x])
    direction = quantise_direction(gx, gy)
    thin = non_max_suppression(mag, direction)
    marked = double_threshold(thin, low, high)
    return hysteresis(marked, 20)


def harris_response(img: np.ndarray, k: float = 0.04, window_size: int = 3) -> np.ndarray:
    """Harris corner response det(M) - k * trace(M)^2 with a box window."""
    f = img.astype(np.float64)
    h, w = f.shape
    ix = np.zeros((h, w))
    iy = np.zeros((h, w))
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            ix[y, x] = (f[y, x + 1] - f[y, x - 1]) / 2.0
            iy[y, x] = (f[y + 1, x] - f[y - 1, x]) / 2.0
    ixx = ix**2
    iyy = iy**2
    ixy = ix * iy
    offset = window_size // 2
    response = np.zeros((h, w))
    for y in range(offset, h - offset):
        for x in range(offset, w - offset):
            wxx = ixx[y - offset : y + offset + 1, x - offset : x + offset + 1].sum()
            wyy = iyy[y - offset : y + offset + 1, x - offset : x + offset + 1].sum()
            wxy = ixy[y - offset : y + offset + 1, x - offset : x + offset + 1].sum()
            det = (wxx * wyy) - (wxy**2)
            trace = wxx + wyy
            response[y, x] = det - k * (trace**2)
    return response


def count_corners(response: np.ndarray, threshold_ratio: float) -> int:
    """Local maxima of a response map above threshold_ratio * its maximum."""
    h, w = response.shape
    limit = threshold_ratio * response.max()
    count = 0
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            v = response[y, x]
            if v <= limit:
                continue
            if v >= response[y - 1 : y + 2, x - 1 : x + 2].max():
                count += 1
    return count


def hough_accumulator(edges: np.ndarray, n_theta: int) -> np.ndarray:
    """Vote (rho, theta) for every edge pixel; rho in whole pixels, offset by the diagonal."""
    h, w = edges.shape
    diag = int(math.ceil(math.sqrt(h * h + w * w)))
    cos_t = np.zeros(n_theta)
    sin_t = np.zeros(n_theta)
    for t in range(n_theta):
        theta = math.pi * t / n_theta
        cos_t[t] = math.cos(theta)
        sin_t[t] = math.sin(theta)
    acc = np.zeros((2 * diag + 1, n_theta), dtype=np.int32)
    for y in range(h):
        for x in range(w):
            if edges[y, x]:
                for t in range(n_theta):
                    rho = int(round(x * cos_t[t] + y * sin_t[t]))
                    acc[rho + diag, t] += 1
    return acc


def log_zero_crossings(lap: np.ndarray, min_contrast: int) -> np.ndarray:
    """Mark sign changes of a Laplacian response between horizontal/vertical neighbours."""
    h, w = lap.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h - 1):
        for x in range(w - 1):
            c = lap[y, x]
            r = lap[y, x + 1]
            d = lap[y + 1, x]
            if (c * r < 0 and abs(c - r) >= min_contrast) or (c * d < 0 and abs(c - d) >= min_contrast):
                out[y, x] = 1
    return out


def edge_points(edges: np.ndarray) -> list[tuple[int, int]]:
    """Coordinates (y, x) of every edge pixel."""
    points = []
    for y in range(edges.shape[0]):
        for x in range(edges.shape[1]):
            if edges[y, x]:
                points.append((y, x))
    return points


def hough_peaks(acc: np.ndarray, num_peaks: int) -> list[tuple[int, int, int]]:
    """The strongest accumulator cells as (votes, rho_index, theta_index), best first."""
    cells = []
    for r in range(acc.shape[0]):
        for t in range(acc.shape[1]):
            if acc[r, t] > 0:
                cells.append((int(acc[r, t]), r, t))
    cells = sorted(cells, reverse=True)
    return cells[:num_peaks]


def _shapes(rng, h, w):
    """A dark field with a bright rectangle and disc, plus a little noise."""
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.full((h, w), 40.0)
    y0, x0 = rng.integers(2, h // 3), rng.integers(2, w // 3)
    img[y0 : y0 + h // 3, x0 : x0 + w // 3] = 200
    cy, cx = rng.integers(h // 2, h - 3), rng.integers(w // 2, w - 3)
    img[(yy - cy) ** 2 + (xx - cx) ** 2 < (min(h, w) // 6) ** 2] = 160
    return np.clip(img + rng.normal(0, 6, (h, w)), 0, 255).astype(np.uint8)


H, W = 24, 40  # one frame size for every call
_SIZES = ((H, W),) * 3


def _imgs(rng):
    return [(_shapes(rng, h, w),) for h, w in _SIZES] + [(np.full((H, W), 128, np.uint8),)]


def _marked(rng, h, w):
    return rng.choice(np.array([0, WEAK, STRONG], np.uint8), size=(h, w), p=[0.5, 0.35, 0.15])


INPUTS = {
    "sobel_gx": _imgs,
    "sobel_gy": _imgs,
    "sobel_magnitude_int": _imgs,
    "sobel_magnitude": _imgs,
    "sobel_hypot": _imgs,
    "prewitt": _imgs,
    "scharr": _imgs,
    "laplacian": lambda rng: [(_shapes(rng, h, w), d) for (h, w), d in zip(_SIZES, (False, True, True))],
    "roberts_cross": _imgs,
    "kirsch": _imgs,
    "quantise_direction": lambda rng: [
        (rng.integers(-500, 500, (h, w)).astype(np.int32), rng.integers(-500, 500, (h, w)).astype(np.int32))
        for h, w in _SIZES
    ],
    "non_max_suppression": lambda rng: [
        (rng.random((h, w)) * 300, rng.integers(0, 4, (h, w)).astype(np.uint8)) for h, w in _SIZES
    ],
    "double_threshold": lambda rng: [
        (rng.random((h, w)) * 300, lo, hi)
        for (h, w), (lo, hi) in zip(_SIZES, ((50.0, 150.0), (0.0, 300.0), (100.0, 100.0)))
    ],
    "hysteresis": lambda rng: [(_marked(rng, h, w), p) for (h, w), p in zip(_SIZES, (50, 50, 2))],
    "canny": lambda rng: [(_shapes(rng, h, w), 40.0, 120.0) for h, w in _SIZES],
    "harris_response": lambda rng: [(_shapes(rng, h, w), 0.04, ws) for (h, w), ws in zip(_SIZES, (3, 5, 3))],
    "count_corners": lambda rng: [
        (harris_response(_shapes(rng, h, w)), r) for (h, w), r in zip(_SIZES, (0.1, 0.01, 0.5))
    ],
    "hough_accumulator": lambda rng: [((rng.random((h, w)) < 0.05).astype(np.uint8), 36) for h, w in _SIZES],
    "log_zero_crossings": lambda rng: [
        (laplacian(_shapes(rng, h, w)), c) for (h, w), c in zip(_SIZES, (20, 5, 0))
    ],
    "edge_points": lambda rng: [((rng.random((h, w)) < 0.1).astype(np.uint8),) for h, w in _SIZES],
    "hough_peaks": lambda rng: [
        (hough_accumulator((rng.random((h, w)) < 0.05).astype(np.uint8), 18), k)
        for (h, w), k in zip(_SIZES, (5, 3, 1))
    ],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE.update(
    {
        "edge_points": "out: list.append of tuples with a data-dependent count",
        "hough_peaks": "out: a growing list of tuples and sorted() of tuples",
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


def _corr3(img, kernel):
    """3x3 correlation of the interior, zero border, int64."""
    out = np.zeros(img.shape, np.int64)
    out[1:-1, 1:-1] = (sliding_window_view(img.astype(np.int64), (3, 3)) * kernel).sum(axis=(2, 3))
    return out


def _selfcheck():
    def check(name, a, r):
        img = a[0]
        if name == "sobel_gx":
            assert np.array_equal(r, _corr3(img, SOBEL_X))
        elif name == "sobel_gy":
            assert np.array_equal(r, _corr3(img, SOBEL_Y))
        elif name == "sobel_magnitude_int":
            ref = np.minimum(255, np.abs(_corr3(img, SOBEL_X)) + np.abs(_corr3(img, SOBEL_Y)))
            assert np.array_equal(r, ref)
        elif name == "sobel_magnitude":
            assert np.allclose(r, np.hypot(_corr3(img, SOBEL_X), _corr3(img, SOBEL_Y)))
        elif name == "sobel_hypot":
            assert np.allclose(r, np.hypot(_corr3(img, SOBEL_X), _corr3(img, SOBEL_Y))[1:-1, 1:-1], rtol=1e-5)
        elif name == "prewitt":
            px = np.array([[-1, 0, 1]] * 3)
            assert np.array_equal(r, np.abs(_corr3(img, px)) + np.abs(_corr3(img, px.T)))
        elif name == "scharr":
            sx = np.array([[-3, 0, 3], [-10, 0, 10], [-3, 0, 3]])
            assert np.array_equal(r[0], _corr3(img, sx)) and np.array_equal(r[1], _corr3(img, sx.T))
        elif name == "laplacian":
            k = np.ones((3, 3), int) if a[1] else np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
            k[1, 1] = 0
            k[1, 1] = -int(k.sum())
            assert np.array_equal(r, _corr3(img, k))
        elif name == "roberts_cross":
            f = img.astype(float)
            assert np.allclose(r, np.hypot(f[:-1, :-1] - f[1:, 1:], f[:-1, 1:] - f[1:, :-1]))
        elif name == "kirsch":
            ref = np.max([_corr3(img, KIRSCH[m]) for m in range(8)], axis=0)
            ref[0, :] = ref[-1, :] = ref[:, 0] = ref[:, -1] = 0
            assert np.array_equal(r, ref)
        elif name == "quantise_direction":
            ang = np.degrees(np.arctan2(a[1], img)) % 180
            ref = np.where(
                (ang < 22.5) | (ang >= 157.5), 0, np.where(ang < 67.5, 1, np.where(ang < 112.5, 2, 3))
            )
            assert np.array_equal(r, ref)
        elif name == "non_max_suppression":
            assert np.all((r == 0) | (r == img)) and not r[0].any() and not r[:, -1].any()
        elif name == "double_threshold":
            assert np.array_equal(r, np.where(img >= a[2], STRONG, np.where(img >= a[1], WEAK, 0)))
        elif name == "hysteresis":
            assert set(np.unique(r)) <= {0, STRONG}
            assert np.all(r[img == STRONG] == STRONG) and not np.any(r[img == 0])
            if a[1] >= 50:  # converged: every WEAK pixel 8-connected (interior) to a STRONG one was promoted
                grown = r.copy()
                grown[1:-1, 1:-1] = sliding_window_view(r, (3, 3)).max(axis=(2, 3))
                inner = np.zeros_like(img, bool)
                inner[1:-1, 1:-1] = True
                assert not np.any((img == WEAK) & (grown == STRONG) & (r == 0) & inner)
        elif name == "canny":
            assert set(np.unique(r)) <= {0, STRONG}
        elif name == "harris_response":
            assert r.shape == img.shape and np.isfinite(r).all()
        elif name == "count_corners":
            assert 0 <= r <= img.size
        elif name == "hough_accumulator":
            assert r.sum() == int(img.sum()) * a[1]
        elif name == "log_zero_crossings":
            assert r.dtype == np.uint8 and set(np.unique(r)) <= {0, 1}
        elif name == "edge_points":
            assert r == [tuple(int(v) for v in p) for p in np.argwhere(img)]
        elif name == "hough_peaks":
            assert len(r) == min(a[1], int((img > 0).sum())) and r == sorted(r, reverse=True)
        else:
            raise AssertionError(f"no check for {name}")

    _run_inputs(check)
    print(f"edge_detection: {len(INPUTS)} cases OK")


if __name__ == "__main__":
    _selfcheck()
