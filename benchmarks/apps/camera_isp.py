"""Camera ISP: an eight-stage float32 image pipeline whose kernels compete for DSP slices.

A small vision board turns each raw Bayer frame of its camera (float32, RGGB, black level
subtracted) into a sharpened, vignetting-corrected RGB image, one interpreted per-pixel loop
per stage, as image-processing code is first written in Python: bilinear demosaicing, white
balance, a 3x3 colour-correction matrix, radial vignetting correction, conversion to YCbCr,
an unsharp mask on the luma, a 3-tap chroma smoothing and the conversion back to RGB.

What makes the decision hard: every stage is floating point, and each float multiply takes
three DSP48 slices and each add two, for every operator the pipelined loop body holds. The
colour matrix and the two colour-space conversions need about 40 slices each, the unsharp mask
more, the white balance a few: together the stages need well over the PYNQ-Z2's 176 usable DSP
slices (80 % cap), so the plan is a knapsack over DSP (and LUT) whose values, the CPU seconds
each stage saves, are close. The hottest stages are also the largest in DSP; hottest-first fills
the budget with them, where several smaller stages together save more. The Ultra96-V2 (288
usable) and the KV260 (998) fit more or all of them, and the question there is how far to
unroll.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import numpy as np

H = 48  # rows per frame
W = 64  # columns
FRAMES = 3
WB = np.array([1.92, 1.0, 1.57], dtype=np.float32)  # white-balance gains (R, G, B)
CCM = np.array(
    [[1.62, -0.45, -0.17], [-0.23, 1.41, -0.18], [0.02, -0.52, 1.50]], dtype=np.float32
)  # sensor RGB -> sRGB (rows sum to 1)
K1 = np.float32(0.28)  # vignetting: gain = 1 + K1 r^2 + K2 r^4, r relative to the half-diagonal
K2 = np.float32(0.11)
SHARPEN = np.float32(0.6)


def demosaic(raw: np.ndarray) -> np.ndarray:
    """Bilinear demosaicing of an RGGB mosaic (the border rows and columns are left zero)."""
    h, w = raw.shape
    rgb = np.zeros((h, w, 3), dtype=np.float32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            c = raw[y, x]
            n4 = (raw[y - 1, x] + raw[y + 1, x] + raw[y, x - 1] + raw[y, x + 1]) * np.float32(0.25)
            d4 = (raw[y - 1, x - 1] + raw[y - 1, x + 1] + raw[y + 1, x - 1] + raw[y + 1, x + 1]) * np.float32(
                0.25
            )
            h2 = (raw[y, x - 1] + raw[y, x + 1]) * np.float32(0.5)
            v2 = (raw[y - 1, x] + raw[y + 1, x]) * np.float32(0.5)
            if y % 2 == 0 and x % 2 == 0:  # red site
                rgb[y, x, 0], rgb[y, x, 1], rgb[y, x, 2] = c, n4, d4
            elif y % 2 == 1 and x % 2 == 1:  # blue site
                rgb[y, x, 0], rgb[y, x, 1], rgb[y, x, 2] = d4, n4, c
            elif y % 2 == 0:  # green on a red row
                rgb[y, x, 0], rgb[y, x, 1], rgb[y, x, 2] = h2, c, v2
            else:  # green on a blue row
                rgb[y, x, 0], rgb[y, x, 1], rgb[y, x, 2] = v2, c, h2
    return rgb


def white_balance(rgb: np.ndarray) -> np.ndarray:
    out = np.empty_like(rgb)
    for y in range(rgb.shape[0]):
        for x in range(rgb.shape[1]):
            out[y, x, 0] = rgb[y, x, 0] * WB[0]
            out[y, x, 1] = rgb[y, x, 1] * WB[1]
            out[y, x, 2] = rgb[y, x, 2] * WB[2]
    return out


def color_correct(rgb: np.ndarray) -> np.ndarray:
    """The 3x3 colour-correction matrix, clipped to [0, 1]."""
    out = np.empty_like(rgb)
    for y in range(rgb.shape[0]):
        for x in range(rgb.shape[1]):
            r, g, b = rgb[y, x, 0], rgb[y, x, 1], rgb[y, x, 2]
            out[y, x, 0] = min(
                max(CCM[0, 0] * r + CCM[0, 1] * g + CCM[0, 2] * b, np.float32(0)), np.float32(1)
            )
            out[y, x, 1] = min(
                max(CCM[1, 0] * r + CCM[1, 1] * g + CCM[1, 2] * b, np.float32(0)), np.float32(1)
            )
            out[y, x, 2] = min(
                max(CCM[2, 0] * r + CCM[2, 1] * g + CCM[2, 2] * b, np.float32(0)), np.float32(1)
            )
    return out


def devignette(rgb: np.ndarray) -> np.ndarray:
    """Radial gain 1 + K1 r^2 + K2 r^4 about the centre."""
    h, w = rgb.shape[0], rgb.shape[1]
    cy = np.float32((h - 1) / 2)
    cx = np.float32((w - 1) / 2)
    inv = np.float32(1.0 / (cy * cy + cx * cx))
    out = np.empty_like(rgb)
    for y in range(h):
        for x in range(w):
            dy = np.float32(y) - cy
            dx = np.float32(x) - cx
            r2 = (dy * dy + dx * dx) * inv
            gain = np.float32(1) + K1 * r2 + K2 * r2 * r2
            out[y, x, 0] = rgb[y, x, 0] * gain
            out[y, x, 1] = rgb[y, x, 1] * gain
            out[y, x, 2] = rgb[y, x, 2] * gain
    return out


def to_ycbcr(rgb: np.ndarray) -> np.ndarray:
    """BT.601 full-range RGB -> YCbCr (chroma centred on 0)."""
    out = np.empty_like(rgb)
    for y in range(rgb.shape[0]):
        for x in range(rgb.shape[1]):
            r, g, b = rgb[y, x, 0], rgb[y, x, 1], rgb[y, x, 2]
            out[y, x, 0] = np.float32(0.299) * r + np.float32(0.587) * g + np.float32(0.114) * b
            out[y, x, 1] = np.float32(-0.168736) * r - np.float32(0.331264) * g + np.float32(0.5) * b
            out[y, x, 2] = np.float32(0.5) * r - np.float32(0.418688) * g - np.float32(0.081312) * b
    return out


def sharpen_luma(ycc: np.ndarray) -> np.ndarray:
    """Unsharp mask on Y: Y + SHARPEN * (Y - 3x3 Gaussian of Y); chroma passed through."""
    h, w = ycc.shape[0], ycc.shape[1]
    out = ycc.copy()
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            blur = (
                np.float32(0.0625) * ycc[y - 1, x - 1, 0]
                + np.float32(0.125) * ycc[y - 1, x, 0]
                + np.float32(0.0625) * ycc[y - 1, x + 1, 0]
                + np.float32(0.125) * ycc[y, x - 1, 0]
                + np.float32(0.25) * ycc[y, x, 0]
                + np.float32(0.125) * ycc[y, x + 1, 0]
                + np.float32(0.0625) * ycc[y + 1, x - 1, 0]
                + np.float32(0.125) * ycc[y + 1, x, 0]
                + np.float32(0.0625) * ycc[y + 1, x + 1, 0]
            )
            out[y, x, 0] = ycc[y, x, 0] + SHARPEN * (ycc[y, x, 0] - blur)
    return out


def smooth_chroma(ycc: np.ndarray) -> np.ndarray:
    """A [1 2 1] / 4 filter along each row of Cb and Cr (the end columns passed through)."""
    w = ycc.shape[1]
    out = ycc.copy()
    for y in range(ycc.shape[0]):
        for x in range(1, w - 1):
            for c in range(1, 3):
                out[y, x, c] = (
                    np.float32(0.25) * ycc[y, x - 1, c]
                    + np.float32(0.5) * ycc[y, x, c]
                    + np.float32(0.25) * ycc[y, x + 1, c]
                )
    return out


def to_rgb(ycc: np.ndarray) -> np.ndarray:
    """BT.601 full-range YCbCr -> RGB, clipped to [0, 1]."""
    out = np.empty_like(ycc)
    for y in range(ycc.shape[0]):
        for x in range(ycc.shape[1]):
            lum, cb, cr = ycc[y, x, 0], ycc[y, x, 1], ycc[y, x, 2]
            r = lum + np.float32(1.402) * cr
            g = lum - np.float32(0.344136) * cb - np.float32(0.714136) * cr
            b = lum + np.float32(1.772) * cb
            out[y, x, 0] = min(max(r, np.float32(0)), np.float32(1))
            out[y, x, 1] = min(max(g, np.float32(0)), np.float32(1))
            out[y, x, 2] = min(max(b, np.float32(0)), np.float32(1))
    return out


def capture(rng: np.random.Generator, k: int) -> np.ndarray:
    """A synthetic RGGB frame: a lit gradient with a few objects, darker towards the corners."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    scene = 0.35 + 0.3 * np.sin(xx / 9.0 + k) * np.cos(yy / 7.0)
    r2 = ((yy - (H - 1) / 2) ** 2 + (xx - (W - 1) / 2) ** 2) / (((H - 1) / 2) ** 2 + ((W - 1) / 2) ** 2)
    raw = scene / (1 + 0.3 * r2) + rng.normal(0, 0.01, (H, W))
    return np.clip(raw, 0, 1).astype(np.float32)


def main() -> dict:
    rng = np.random.default_rng(5)
    means = []
    for k in range(FRAMES):
        rgb = devignette(color_correct(white_balance(demosaic(capture(rng, k)))))
        ycc = smooth_chroma(sharpen_luma(to_ycbcr(rgb)))
        out = to_rgb(ycc)
        means.append([round(float(out[:, :, c].mean()), 4) for c in range(3)])
        print(f"frame {k}: mean RGB {means[-1]}")
    return {"means": means}


if __name__ == "__main__":
    main()
