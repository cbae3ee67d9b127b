"""Where the fuzzer's random choices come from.

The generator asks a `Draw` for every decision (an integer in a range, one item of a list),
so the same generator runs from a seed (`SeededDraw`: a case is a pure function of its seed,
which is what batches, the CLI and the report name) or from a Hypothesis `data` object
(`HypothesisDraw`: Hypothesis chooses, and shrinks a failing kernel to a small one).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

X = TypeVar("X")


class Draw:
    """Every random decision of the generator goes through `int`."""

    def int(self, lo: int, hi: int) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def choice(self, items: Sequence[X]) -> X:
        return items[self.int(0, len(items) - 1)]

    def chance(self, p: float) -> bool:
        return self.int(0, 999) < int(p * 1000)

    def weighted(self, items: Sequence[tuple[X, int]]) -> X:
        """One item, with probability proportional to its weight (weights >= 0, not all 0)."""
        total = sum(w for _, w in items)
        r = self.int(0, total - 1)
        for item, w in items:
            if r < w:
                return item
            r -= w
        raise AssertionError("unreachable")


class SeededDraw(Draw):
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class HypothesisDraw(Draw):
    """Draws through Hypothesis (`data` is what `st.data()` gives a test)."""

    def __init__(self, data: Any):
        from hypothesis import strategies as st

        self.data = data
        self.st = st

    def int(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))
