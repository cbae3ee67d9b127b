"""Inputs of a generated kernel's calls: random values over each parameter's whole range,
the extremes (MIN, MAX, 0, -1, 1) and small values, from numpy's generator seeded by the case's
seed (not from the `Draw`, so the inputs do not change the kernel).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from partition.fuzz.parts import Param
from partition.fuzz.records import record_value
from partition.fuzz.typed import FLOAT_DTS, INT_DTS

STYLES = ["full", "extremes", "small", "full", "extremes", "full"]


WIDE = 1 << 62  # the magnitude of Python ints in unseen calls
UNSEEN_SEED = 0x0D15EA5E  # their draws come from a generator of their own


def input_value(p: Param, rng: np.random.Generator, style: str) -> Any:
    """A value of parameter p in one of the input styles: full (random over the range), extremes, small."""
    if p.what == "record":
        return record_value(p, [input_value(f, rng, style) for f in p.fields])
    if p.what in ("array", "list") and p.dt in INT_DTS:
        info = np.iinfo(p.dt)
        lo, hi = (int(info.min), int(info.max)) if p.what == "array" else (p.lo, p.hi)
        if p.what == "list" and style == "unseen":
            lo, hi = -WIDE, WIDE  # Python ints far beyond what the profile saw
        if p.what == "array" and p.mode == "small":
            lo, hi = max(lo, -20), min(hi, 20)
        elif p.what == "array" and p.mode == "bits":
            lo, hi = 0, 7
        n = math.prod(p.shape)
        if style == "extremes":
            cyc = [v for v in (lo, hi, 0, -1, 1, lo + 1, hi - 1) if lo <= v <= hi]
            flat = [cyc[i % len(cyc)] for i in range(n)]
            rng.shuffle(flat)
        elif style == "small":
            flat = [int(x) for x in rng.integers(max(lo, -9), min(hi, 9), size=n, endpoint=True)]
        else:
            big = np.uint64 if hi > np.iinfo(np.int64).max else np.int64
            flat = [int(x) for x in rng.integers(lo, hi, size=n, endpoint=True, dtype=big)]
        arr = np.array(flat, dtype=p.dt if p.what == "array" else np.int64).reshape(p.shape)
        return arr if p.what == "array" else arr.tolist()
    if p.what in ("array", "list") and p.dt in FLOAT_DTS:
        n = math.prod(p.shape)
        if style == "extremes":
            vals = np.resize(np.array([0.0, -0.0, 1.5, -2.25, 1e6, -1e6, 3.0]), n)
        elif style == "small":
            vals = rng.integers(-9, 9, size=n).astype(np.float64) / 2
        else:
            vals = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)
        arr = vals.astype(p.dt).reshape(p.shape)
        return arr if p.what == "array" else arr.astype(np.float64).tolist()
    if p.what in ("array", "list"):  # bool
        n = math.prod(p.shape)
        arr = (rng.integers(0, 2, size=n) == 1).reshape(p.shape)
        return arr if p.what == "array" else arr.tolist()
    if p.what == "npscalar":
        if p.dt in FLOAT_DTS:
            return np.dtype(p.dt).type(rng.normal() * 4)
        if p.dt == "bool":
            return np.bool_(rng.integers(0, 2) == 1)
        info = np.iinfo(p.dt)
        lo, hi = int(info.min), int(info.max)
        if p.mode == "small" or style == "small":
            lo, hi = max(lo, -9), min(hi, 9)
        if p.mode == "bits":
            lo, hi = 0, 7
        if style == "extremes":
            return np.dtype(p.dt).type([lo, hi, 0, 1][int(rng.integers(0, 4))])
        big = np.uint64 if hi > np.iinfo(np.int64).max else np.int64
        return np.dtype(p.dt).type(int(rng.integers(lo, hi, endpoint=True, dtype=big)))
    if p.what == "int":
        if style == "extremes":
            return [p.lo, p.hi][int(rng.integers(0, 2))]
        if style == "unseen":
            return int(rng.integers(-WIDE, WIDE, endpoint=True))
        return int(rng.integers(p.lo, p.hi, endpoint=True))
    if p.what == "float":
        return float(rng.uniform(p.flo, p.fhi))
    return bool(rng.integers(0, 2) == 1)


def input_calls(params: list[Param], seed: int, n: int) -> list[tuple[Any, ...]]:
    """The arguments of n calls (the styles taking turns)."""
    rng = np.random.default_rng(seed)
    return [tuple(input_value(p, rng, STYLES[k % len(STYLES)]) for p in params) for k in range(n)]


def unseen_calls(params: list[Param], seed: int, n: int) -> list[tuple[Any, ...]]:
    """n calls the profile never sees: Python ints far beyond the profiled ones, arrays over
    their whole dtypes. The kernel compiled from the profile must still compute what Python
    does on them, or hand them back to the CPU (its fallback register)."""
    rng = np.random.default_rng(seed + UNSEEN_SEED)
    return [tuple(input_value(p, rng, "unseen") for p in params) for _ in range(n)]
