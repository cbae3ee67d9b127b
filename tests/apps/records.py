"""Small records as arguments: tuples, namedtuples, dataclasses, lists of tuples (profiler tests)."""

from collections import namedtuple
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

Point = namedtuple("Point", ["x", "y"])


class Quant(NamedTuple):
    scale: float
    zero_point: int


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int


def shift(p, dx):
    total = p.x + p.y
    return Point(p.x + dx, p.y), total


def quantise(a, q):
    return np.clip(np.round(a / q.scale) + q.zero_point, -128, 127).astype(np.int8)


def area(r):
    s = r.w * r.h
    return s


def window(shape):
    h, w = shape
    return h * w


def bbox(points):
    lo = min(x for x, _ in points)
    return lo


if __name__ == "__main__":
    for k in range(3):
        shift(Point(k, 2 * k - 1), 5)
        quantise(np.linspace(-1.0, 1.0, 8), Quant(0.05, k - 1))
        area(Rect(k, 0, 5 - k, 4))
        window((3, 5))
        bbox([(k, 1), (-k, 2), (7, 3)])
    print("ok")
