"""Functions taking small records of numbers: tuples, namedtuples, dataclasses, lists of tuples."""

from collections import namedtuple
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

Point = namedtuple("Point", ["x", "y"])


class BiquadCoeffs(NamedTuple):
    b0: float
    b1: float
    b2: float
    a1: float
    a2: float


@dataclass(frozen=True)
class QuantParams:
    scale: float
    zero_point: int


@dataclass
class Rect:
    x: int
    y: int
    w: int
    h: int


@dataclass
class Labeled:
    label: str
    gain: int
    tone: Rect


def scaled(x, cfg: Labeled):
    """Only the numeric field is read: the string and the nested record do not matter."""
    out = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        out[i] = x[i] * cfg.gain
    return out


def reads_nested(cfg: Labeled):
    return cfg.tone.x


def rect_overlap_area(a: Rect, b: Rect) -> int:
    dx = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    dy = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    if dx <= 0 or dy <= 0:
        return 0
    return dx * dy


def triangle_area(a: Point, b: Point, c: Point) -> float:
    return abs((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)) / 2.0


def biquad_df2t(x, coeffs: BiquadCoeffs):
    out = np.empty_like(x)
    s1 = 0.0
    s2 = 0.0
    for i in range(len(x)):
        xn = x[i]
        yn = coeffs.b0 * xn + s1
        s1 = coeffs.b1 * xn - coeffs.a1 * yn + s2
        s2 = coeffs.b2 * xn - coeffs.a2 * yn
        out[i] = yn
    return out


def dequantize(q, params: QuantParams):
    return (q.astype(np.float32) - params.zero_point) * np.float32(params.scale)


def box_sum(img, kernel_size):
    """Sum of each kh x kw window (valid region), the size given as a tuple."""
    kh, kw = kernel_size
    h, w = img.shape
    out = np.zeros((h - 2, w - 2), dtype=np.int32)
    for y in range(h - kh + 1):
        for x in range(w - kw + 1):
            s = 0
            for i in range(kh):
                for j in range(kw):
                    s += int(img[y + i, x + j])
            out[y, x] = s
    return out


def horner(x, coeffs):
    """Polynomial with the coefficients as a tuple (highest first), iterated and indexed."""
    out = np.zeros(len(x), dtype=np.int64)
    for i in range(len(x)):
        acc = 0
        for c in coeffs:
            acc = acc * int(x[i]) + c
        out[i] = acc + coeffs[-1] - coeffs[0] + len(coeffs)
    return out


def pick(x, taps):
    """A tuple read at a run-time index, with enumerate, max() and negative indices."""
    out = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        out[i] = x[i] * taps[i % len(taps)] + taps[-(i % 3) - 1]
    best = max(taps)
    for k, t in enumerate(taps):
        out[k] += t * k - best
    return out


def shift_points(points, offset):
    """A list of (x, y) tuples read as rows: unpacked in a loop, indexed, unpacked by index."""
    dx, dy = offset
    sx = 0
    sy = 0
    for x, y in points:
        sx += x + dx
        sy += y + dy
    px, py = points[0]
    return sx * 1000 + sy + points[len(points) - 1][1] - px * py


def polygon_area(poly):
    """Shoelace formula over the rows of an (n, 2) array, each row unpacked."""
    s = 0.0
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        s += x1 * y2 - x2 * y1
    return s / 2


def bounding_box(points):
    """Rows of a list of tuples unpacked in a loop."""
    lo_x = points[0][0]
    hi_y = points[0][1]
    for x, y in points:
        lo_x = min(lo_x, x)
        hi_y = max(hi_y, y)
    return lo_x * 100 + hi_y


def inlined_helper(p: Point, q: Point) -> float:
    return _dot(p, q) + _dot(q, q)


def _dot(u, v):
    return u.x * v.x + u.y * v.y


def uses_mixed(r: Rect, s):
    """Fields of a dataclass next to a scalar argument with a field-like name."""
    r_x = s * 2
    return r.x * r_x + r.y


# ------------------------------------------------------------------ rejected


def mixed_index(t, i):
    return t[i]


def iterate_dataclass(r: Rect, flag):
    s = 0
    if flag:
        for v in r:
            s += v
    return s


def not_a_field(p: Point, flag):
    return p.z if flag else p.x


def break_in_unrolled(t):
    s = 0
    for v in t:
        if v < 0:
            break
        s += v
    return s


def record_as_value(p: Point):
    q = p
    return q.x


def writes_rows(points):
    points[0] = (1, 2)
    return points


def unpack_wrong_length(t, flag):
    s = 0
    if flag:
        a, b = t
        s = a + b
    return s
