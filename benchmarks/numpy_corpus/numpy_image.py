"""Image processing in NumPy on H x W x C arrays: colour, blending, filters, histograms.

What image-analysis scripts and computer-vision course exercises do before reaching for OpenCV:
colour conversion as `img @ M.T` with a 3x3 matrix, per-pixel alpha with `alpha[..., np.newaxis]`,
filters from shifted slices and `np.pad`, look-up tables applied by fancy indexing `lut[img]`,
reshape tricks for downscaling, `np.flip`, `np.stack` + `np.median`, and a couple of routines
whose output size depends on the picture.
"""

import numpy as np

# ITU-R BT.601 full-range RGB -> YCbCr
YCBCR_FROM_RGB = np.array(
    [
        [0.299, 0.587, 0.114],
        [-0.168736, -0.331264, 0.5],
        [0.5, -0.418688, -0.081312],
    ]
)


def rgb_to_gray(img):
    """Luma of an RGB uint8 image (BT.601 weights), rounded back to uint8."""
    gray = img @ np.array([0.299, 0.587, 0.114])
    return np.round(gray).astype(np.uint8)


def rgb_to_ycbcr(img):
    """RGB uint8 -> YCbCr uint8 with the 3x3 colour matrix and the chroma offset of 128."""
    ycc = img.astype(np.float64) @ YCBCR_FROM_RGB.T
    ycc[..., 1:] += 128.0
    return np.clip(np.round(ycc), 0, 255).astype(np.uint8)


def rgb_to_hsv(img):
    """RGB floats in [0, 1] -> HSV floats in [0, 1], vectorised with np.where."""
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    maxc = img.max(axis=-1)
    minc = img.min(axis=-1)
    delta = maxc - minc
    s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1.0), 0.0)
    safe = np.where(delta > 0, delta, 1.0)
    h = np.where(
        maxc == r,
        ((g - b) / safe) % 6.0,
        np.where(maxc == g, (b - r) / safe + 2.0, (r - g) / safe + 4.0),
    )
    h = np.where(delta > 0, h / 6.0, 0.0)
    return np.stack([h, s, maxc], axis=-1)


def alpha_blend(fg, bg, alpha):
    """Composite fg over bg with a per-pixel opacity map alpha in [0, 1]."""
    a = alpha[..., np.newaxis]
    out = a * fg + (1.0 - a) * bg
    return out.astype(np.uint8)


def channel_histograms(img):
    """256-bin histogram of each colour channel, counted pixel by pixel."""
    hist = np.zeros((3, 256), dtype=np.int64)
    h, w, _ = img.shape
    for c in range(3):
        for y in range(h):
            for x in range(w):
                hist[c, img[y, x, c]] += 1
    return hist


def sobel_magnitude(gray):
    """Gradient magnitude with the 3x3 Sobel operators; the one-pixel border stays 0."""
    g = gray.astype(np.float64)
    gx = (g[:-2, 2:] + 2 * g[1:-1, 2:] + g[2:, 2:]) - (g[:-2, :-2] + 2 * g[1:-1, :-2] + g[2:, :-2])
    gy = (g[2:, :-2] + 2 * g[2:, 1:-1] + g[2:, 2:]) - (g[:-2, :-2] + 2 * g[:-2, 1:-1] + g[:-2, 2:])
    out = np.zeros_like(g)
    out[1:-1, 1:-1] = np.sqrt(gx**2 + gy**2)
    return out


def unsharp_mask(img, amount):
    """Sharpen an RGB image: img + amount * (img - blur), blur a 3x3 box with edge padding."""
    f = img.astype(np.float64)
    p = np.pad(f, ((1, 1), (1, 1), (0, 0)), mode="edge")
    h, w = img.shape[:2]
    blur = np.zeros_like(f)
    for dy in range(3):
        for dx in range(3):
            blur += p[dy : dy + h, dx : dx + w, :]
    blur /= 9.0
    sharp = f + amount * (f - blur)
    return np.clip(sharp, 0, 255).astype(np.uint8)


def threshold_to_zero(img, t):
    """Pixels darker than t become black, the others keep their value."""
    out = img.copy()
    out[out < t] = 0
    return out


def augment_flips(img):
    """The three mirror images used for data augmentation of a square image."""
    horizontal = np.flip(img, axis=1)
    vertical = img[::-1, :, :]
    transposed = np.transpose(img, (1, 0, 2))
    return horizontal, vertical, transposed


def gamma_correct(img, gamma):
    """Gamma correction of a uint8 image through a 256-entry look-up table."""
    lut = np.round(255.0 * (np.arange(256) / 255.0) ** (1.0 / gamma)).astype(np.uint8)
    return lut[img]


def median3x3(gray):
    """3x3 median filter of the interior (output is two pixels smaller in each direction)."""
    h, w = gray.shape
    windows = np.stack([gray[dy : h - 2 + dy, dx : w - 2 + dx] for dy in range(3) for dx in range(3)])
    return np.median(windows, axis=0)


def downscale_2x(img):
    """Halve an H x W x C image by averaging 2x2 blocks (reshape trick)."""
    h, w, c = img.shape
    return img.reshape(h // 2, 2, w // 2, 2, c).mean(axis=(1, 3))


def gray_world(img):
    """Grey-world white balance: scale each channel so that the channel means agree."""
    means = img.mean(axis=(0, 1))
    gain = means.mean() / means
    return np.clip(img * gain, 0, 255).astype(np.uint8)


def crop_to_content(img, thr):
    """Bounding box crop of the pixels brighter than thr."""
    mask = img > thr
    rows = np.nonzero(np.any(mask, axis=1))[0]
    cols = np.nonzero(np.any(mask, axis=0))[0]
    return img[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


def unique_colors(img):
    """The distinct colours of an RGB image and how often each occurs."""
    colors, counts = np.unique(img.reshape(-1, 3), axis=0, return_counts=True)
    return colors, counts


# ---------------------------------------------------------------------------------------------


def _rgb(rng, h=32, w=40):
    return rng.integers(0, 256, (h, w, 3)).astype(np.uint8)


def _blob(rng):
    img = np.zeros((40, 48), dtype=np.uint8)
    y, x = rng.integers(2, 20), rng.integers(2, 24)
    img[y : y + rng.integers(3, 18), x : x + rng.integers(3, 22)] = rng.integers(100, 256)
    return img


INPUTS = {
    "rgb_to_gray": lambda rng: [
        (_rgb(rng),),
        (np.zeros((32, 40, 3), np.uint8),),
        (np.full((32, 40, 3), 255, np.uint8),),
    ],
    "rgb_to_ycbcr": lambda rng: [(_rgb(rng),) for _ in range(3)],
    "rgb_to_hsv": lambda rng: [
        (rng.random((24, 32, 3)),),
        (np.round(rng.random((24, 32, 3)) * 4) / 4,),  # ties between channels, greys
        (np.zeros((24, 32, 3)),),
    ],
    "alpha_blend": lambda rng: [(_rgb(rng), _rgb(rng), rng.random((32, 40))) for _ in range(3)],
    "channel_histograms": lambda rng: [(_rgb(rng, 24, 24),) for _ in range(3)],
    "sobel_magnitude": lambda rng: [(rng.integers(0, 256, (48, 64)).astype(np.uint8),) for _ in range(3)],
    "unsharp_mask": lambda rng: [(_rgb(rng), a) for a in (0.5, 1.0, 2.5)],
    "threshold_to_zero": lambda rng: [
        (rng.integers(0, 256, (48, 64)).astype(np.uint8), t) for t in (0, 128, 255)
    ],
    "augment_flips": lambda rng: [(_rgb(rng, 32, 32),) for _ in range(3)],
    "gamma_correct": lambda rng: [(_rgb(rng), g) for g in (0.45, 1.0, 2.2)],
    "median3x3": lambda rng: [(rng.integers(0, 256, (40, 48)).astype(np.uint8),) for _ in range(3)],
    "downscale_2x": lambda rng: [
        (rng.random((32, 40, 3)),),
        (rng.normal(size=(32, 40, 3)),),
        (np.ones((32, 40, 3)),),
    ],
    "gray_world": lambda rng: [(_rgb(rng).astype(np.float64) * [1.0, 0.8, 0.6],) for _ in range(3)],
    "crop_to_content": lambda rng: [(_blob(rng), 50) for _ in range(3)],
    "unique_colors": lambda rng: [(rng.integers(0, 3, (24, 24, 3)).astype(np.uint8),) for _ in range(3)],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE["crop_to_content"] = "out: the cropped image's shape depends on the pixel values"
SCOPE["unique_colors"] = "out: np.unique returns arrays whose length depends on the data"

# a 1080p RGB frame is 6 MB (uint8) or 50 MB (float64): beyond on-chip RAM
REALISTIC_SIZES = {name: {"img": (1080, 1920, 3)} for name in INPUTS}
REALISTIC_SIZES["alpha_blend"] = {"fg": (1080, 1920, 3), "bg": (1080, 1920, 3), "alpha": (1080, 1920)}
for _name in ("sobel_magnitude", "median3x3"):
    REALISTIC_SIZES[_name] = {"gray": (1080, 1920)}
REALISTIC_SIZES["crop_to_content"] = {"img": (1080, 1920)}


# ---------------------------------------------------------------------------------------------
# references: pixel loops and the standard library


def _within_one(exact, dtype):
    """Rounded pixel values may differ by one where the exact value sits on a .5 tie."""
    want = np.clip(np.round(exact), 0, 255)
    return lambda got: got.dtype == dtype and got.shape == want.shape and np.abs(got - want).max() <= 1


def _ref_hsv(img):
    import colorsys

    out = np.zeros_like(img)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            out[y, x] = colorsys.rgb_to_hsv(*img[y, x])
    return out, {}


def _ref_sobel(gray):
    g = gray.astype(np.float64)
    kx = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
    out = np.zeros_like(g)
    for y in range(1, g.shape[0] - 1):
        for x in range(1, g.shape[1] - 1):
            win = g[y - 1 : y + 2, x - 1 : x + 2]
            out[y, x] = np.hypot(np.sum(win * kx), np.sum(win * kx.T))
    return out, {}


def _ref_unsharp(img, amount):
    h, w, _ = img.shape
    f = img.astype(np.float64)
    out = np.zeros_like(img)
    for y in range(h):
        for x in range(w):
            ys = [min(max(y + d, 0), h - 1) for d in (-1, 0, 1)]
            xs = [min(max(x + d, 0), w - 1) for d in (-1, 0, 1)]
            blur = sum(f[yy, xx] for yy in ys for xx in xs) / 9.0
            out[y, x] = np.clip(f[y, x] + amount * (f[y, x] - blur), 0, 255)
    return out, {}


def _ref_median(gray):
    h, w = gray.shape
    out = np.zeros((h - 2, w - 2))
    for y in range(h - 2):
        for x in range(w - 2):
            out[y, x] = sorted(gray[y : y + 3, x : x + 3].ravel().tolist())[4]
    return out, {}


def _ref_crop(img, thr):
    ys, xs = zip(*[(y, x) for y in range(img.shape[0]) for x in range(img.shape[1]) if img[y, x] > thr])
    return img[min(ys) : max(ys) + 1, min(xs) : max(xs) + 1], {}


def _ref_unique(img):
    counts = {}
    for p in img.reshape(-1, 3).tolist():
        counts[tuple(p)] = counts.get(tuple(p), 0) + 1
    keys = sorted(counts)
    return (np.array(keys, dtype=np.uint8), np.array([counts[k] for k in keys])), {}


def _ref_gray_world(img):
    m = [img[:, :, c].mean() for c in range(3)]
    return np.stack([np.clip(img[:, :, c] * (sum(m) / 3 / m[c]), 0, 255) for c in range(3)], axis=2).astype(
        np.uint8
    ), {}


_REFERENCES = {
    "rgb_to_gray": lambda img: (
        _within_one(0.299 * img[..., 0] + 0.587 * img[..., 1] + 0.114 * img[..., 2], np.uint8),
        {},
    ),
    "rgb_to_ycbcr": lambda img: (
        _within_one(
            np.einsum("ij,hwj->hwi", YCBCR_FROM_RGB, img.astype(float)) + np.array([0, 128, 128]), np.uint8
        ),
        {},
    ),
    "rgb_to_hsv": _ref_hsv,
    "alpha_blend": lambda fg, bg, a: (
        np.stack([a * fg[..., c] + (1 - a) * bg[..., c] for c in range(3)], axis=2).astype(np.uint8),
        {},
    ),
    "channel_histograms": lambda img: (
        np.array([np.bincount(img[..., c].ravel(), minlength=256) for c in range(3)]),
        {},
    ),
    "sobel_magnitude": _ref_sobel,
    "unsharp_mask": _ref_unsharp,
    "threshold_to_zero": lambda img, t: (np.where(img < t, 0, img).astype(np.uint8), {}),
    "augment_flips": lambda img: ((img[:, ::-1], np.flipud(img), np.swapaxes(img, 0, 1)), {}),
    "gamma_correct": lambda img, g: (np.round(255.0 * (img / 255.0) ** (1.0 / g)).astype(np.uint8), {}),
    "median3x3": _ref_median,
    "downscale_2x": lambda img: (
        (img[::2, ::2].astype(float) + img[1::2, ::2] + img[::2, 1::2] + img[1::2, 1::2]) / 4.0,
        {},
    ),
    "gray_world": _ref_gray_world,
    "crop_to_content": _ref_crop,
    "unique_colors": _ref_unique,
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    return run_cases(globals())


if __name__ == "__main__":
    _selfcheck()
