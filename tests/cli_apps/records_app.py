"""An app whose kernel takes records: a dataclass, a namedtuple, a tuple and a list of tuples.

`python records_app.py 1` adds two calls the kernel was not built for (another constant
scale, a float offset): the host runs those on the CPU.
"""

import sys
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

Point = namedtuple("Point", ["x", "y"])


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int


def box_energy(img, box: Rect, offset: Point, scale, taps):
    """A weighted sum over the pixels of img inside box; taps is a list of (row step, weight)."""
    s0, s1 = scale
    total = 0
    for y in range(box.y, box.y + box.h):
        for x in range(box.x, box.x + box.w):
            v = int(img[y, x]) * s0 + offset.x
            for dy, weight in taps:
                v += weight * int(img[(y + dy) % 16, x])
            total += v // s1 - offset.y
    return total


def main():
    extra = len(sys.argv) > 1 and sys.argv[1] == "1"
    rng = np.random.default_rng(5)
    img = rng.integers(-100, 100, (16, 16)).astype(np.int16)
    taps = [(1, 3), (-1, -2), (2, 1)]
    calls = [(Rect(k, 2 * k, 5 + k, 4), Point(3 - 2 * k, k), (2, 4)) for k in range(3)]
    if extra:
        calls += [(Rect(1, 1, 3, 4), Point(1, 1), (3, 4)), (Rect(1, 1, 3, 4), Point(0.5, 1), (2, 4))]
    for box, offset, scale in calls:
        print(box_energy(img, box, offset, scale, taps))


if __name__ == "__main__":
    main()
