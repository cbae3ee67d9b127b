"""Typed expressions of the fuzzer: an expression's text with sample values of its type.

Every expression the generator builds carries sample values of its Python/numpy type (for a
Python int, the ends of its interval); an operation is only generated when numpy itself,
applied to the samples, neither raises nor changes type unexpectedly (`quiet`, `same_type`,
`int_interval`). Separate from the generator because it draws nothing: it is the type
system the generator's parts share.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

INT_DTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOAT_DTS = ("float32", "float64")
PYINT_LIMIT = 1 << 40  # |Python int| the generator lets an expression reach

BIN_OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
}
CMP_OPS = ("<", "<=", ">", ">=", "==", "!=")
_RAISES = (TypeError, ValueError, OverflowError, ZeroDivisionError, IndexError, DeprecationWarning)


# ------------------------------------------------------------------ typed expressions


@dataclass(frozen=True)
class Ex:
    """An expression's text and sample values of its type.

    Python ints carry their interval (`lo`, `hi`); their samples are the interval's ends
    (and 0 when inside), so probing an operation on the samples finds the OverflowError
    (value outside a numpy dtype), ZeroDivisionError or ValueError (negative shift) that
    some runtime value would raise. Python floats that are not constants may be 0.0.
    """

    text: str
    samples: tuple[Any, ...]
    lo: int = 0
    hi: int = 0
    const: bool = False

    @property
    def s(self) -> Any:
        return self.samples[0]

    @property
    def kind(self) -> str:
        """np (numpy scalar), arr (numpy array), int, float or bool (Python)."""
        v = self.s
        if isinstance(v, np.ndarray):
            return "arr"
        if isinstance(v, np.generic):
            return "np"
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, int):
            return "int"
        return "float"

    @property
    def dt(self) -> str:
        """The numpy dtype name of a numpy scalar or array ("" for Python values)."""
        v = self.s
        if isinstance(v, (np.ndarray, np.generic)):
            return "bool" if v.dtype == np.bool_ else v.dtype.name
        return ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.dt)

    @property
    def is_float(self) -> bool:
        return self.kind == "float" or self.dt in FLOAT_DTS

    @property
    def is_intlike(self) -> bool:
        """Integer or bool, Python or numpy scalar."""
        return self.kind in ("int", "bool") or (self.kind == "np" and not self.is_float)

    @property
    def is_boolean(self) -> bool:
        return self.kind == "bool" or (self.kind == "np" and self.dt == "bool")


def np_sample(dt: str) -> Any:
    return np.dtype(dt).type(1)


def arr_sample(dt: str, shape: tuple[int, ...]) -> np.ndarray:
    return np.ones(shape, dtype=dt)


def pyint(text: str, lo: int, hi: int, const: bool = False) -> Ex:
    samples = tuple(dict.fromkeys([lo, hi] + ([0] if lo <= 0 <= hi else [])))
    return Ex(text, samples, lo, hi, const)


def pyfloat(text: str, const_value: float | None = None) -> Ex:
    if const_value is not None:
        return Ex(text, (float(const_value),), const=True)
    return Ex(text, (1.0, 0.0))


def npval(text: str, dt: str) -> Ex:
    return Ex(text, (np_sample(dt),))


def pybool(text: str) -> Ex:
    return Ex(text, (True, False), 0, 1)


def np_ctor(dt: str) -> str:
    return "np.bool_" if dt == "bool" else f"np.{dt}"


def quiet(fn: Callable[[], Any]) -> Any:
    """fn() with numpy's warnings off; None when it raises what a bad operation raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            try:
                return fn()
            except _RAISES:
                return None


def same_type(results: list[Any]) -> bool:
    t0 = results[0]
    for r in results[1:]:
        if type(r) is not type(t0):
            return False
        if isinstance(r, (np.ndarray, np.generic)) and r.dtype != t0.dtype:
            return False
    return True


def _iv_bits(v: int) -> int:
    return (v if v >= 0 else ~v).bit_length()


def int_interval(op: str, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    """Interval of an exact Python int operation (None when not bounded here)."""
    alo, ahi = a
    blo, bhi = b
    corners = [(x, y) for x in (alo, ahi) for y in (blo, bhi)]
    if op in ("+", "-", "*", "min", "max"):
        fn = {"+": operator.add, "-": operator.sub, "*": operator.mul, "min": min, "max": max}[op]
        vals = [fn(x, y) for x, y in corners]
        return (min(vals), max(vals))
    if op == "//":
        if blo <= 0 <= bhi:
            return None
        vals = [x // y for x, y in corners]
        return (min(vals), max(vals))
    if op == "%":
        if blo > 0:
            return (alo, ahi) if alo >= 0 and ahi < blo else (0, bhi - 1)
        if bhi < 0:
            return (blo + 1, 0)
        return None
    if op in ("<<", ">>"):
        if blo < 0:
            return None
        fn = operator.lshift if op == "<<" else operator.rshift
        vals = [fn(x, y) for x, y in corners]
        return (min(vals), max(vals))
    if op in ("&", "|", "^"):
        if alo >= 0 and blo >= 0:
            top = (1 << max(ahi, bhi).bit_length()) - 1
            return (0, min(ahi, bhi)) if op == "&" else (0, top)
        bits = max(_iv_bits(alo), _iv_bits(ahi), _iv_bits(blo), _iv_bits(bhi))
        return (-(1 << bits), (1 << bits) - 1)
    return None
