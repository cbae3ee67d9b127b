"""Python-level types the frontend reasons about before it picks IR dtypes.

A value in the accepted subset is one of:

* `NP(dtype)`   a numpy scalar (an element read from an array, `np.int32(x)`)
* `PyInt(lo, hi)` a Python int with a known interval (it has no width; the
  frontend gives it the narrowest standard width covering the interval)
* `PyFloat()`   a Python float (an IEEE double that is "weak" in numpy promotion)
* `PyBool()`    a Python bool

Which type an operation produces is decided by numpy itself (`result_kind`):
we apply the operator to representative values and look at what comes back,
so promotion follows the installed numpy's rules (NEP 50) exactly.
"""

from __future__ import annotations

import operator
import warnings
from dataclasses import dataclass

import numpy as np

from partition.dtypes import BOOL, FLOAT64, INT64, DType, dtype, narrowest_signed
from partition.frontend.syntax import PY_OPS

I64_MIN = INT64.min
I64_MAX = INT64.max


@dataclass(frozen=True)
class NP:
    dtype: DType


@dataclass(frozen=True)
class PyInt:
    lo: int
    hi: int

    def clamp(self) -> PyInt:
        return PyInt(max(self.lo, I64_MIN), min(self.hi, I64_MAX))


@dataclass(frozen=True)
class PyFloat:
    pass


@dataclass(frozen=True)
class PyBool:
    pass


PyType = NP | PyInt | PyFloat | PyBool


def _sample(t: PyType):
    if isinstance(t, NP):
        return t.dtype.np.type(1)
    if isinstance(t, PyInt):
        return 1
    if isinstance(t, PyFloat):
        return 1.0
    return True


def _classify(v) -> PyType:
    if isinstance(v, np.generic):
        return NP(dtype(v.dtype))
    if isinstance(v, bool):
        return PyBool()
    if isinstance(v, int):
        return PyInt(0, 0)  # interval filled in by the caller
    if isinstance(v, float):
        return PyFloat()
    raise TypeError(type(v))


def result_kind(op: str, a: PyType, b: PyType) -> PyType | None:
    """The type numpy/Python gives `a <op> b`, or None if the operation is invalid."""
    fn = PY_OPS[op]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with np.errstate(all="ignore"):
                r = fn(_sample(a), _sample(b))
        except (TypeError, OverflowError, ValueError, ZeroDivisionError):
            return None
    try:
        return _classify(r)
    except (TypeError, KeyError):
        return None


def unary_kind(op: str, a: PyType) -> PyType | None:
    fn = {"neg": operator.neg, "pos": operator.pos, "invert": operator.invert, "abs": abs}[op]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(_sample(a))
        except (TypeError, ValueError):
            return None
    try:
        return _classify(r)
    except (TypeError, KeyError):
        return None


def describe(t: PyType) -> str:
    if isinstance(t, NP):
        return f"numpy {t.dtype.name}"
    if isinstance(t, PyInt):
        return "Python int"
    if isinstance(t, PyFloat):
        return "Python float"
    return "Python bool"


def int_dtype_for(t: PyInt) -> DType:
    """IR dtype for a Python int with this interval (int64 when nothing narrower covers it)."""
    c = t.clamp()
    return narrowest_signed(c.lo, c.hi) or INT64


def ir_dtype(pt: PyType) -> DType:
    """The IR dtype of a value of this type (a Python float is a double, a bool a bool)."""
    if isinstance(pt, NP):
        return pt.dtype
    if isinstance(pt, PyInt):
        return int_dtype_for(pt)
    if isinstance(pt, PyFloat):
        return FLOAT64
    return BOOL


def range_of(t: PyType) -> tuple[int, int] | None:
    """Integer interval a value of this type can take (None for floats)."""
    if isinstance(t, PyInt):
        return (t.lo, t.hi)
    if isinstance(t, PyBool):
        return (0, 1)
    if isinstance(t, NP) and (t.dtype.is_int or t.dtype.is_bool):
        return (t.dtype.min, t.dtype.max)
    return None


# ------------------------------------------------------------ interval arithmetic


def iv_bin(op: str, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    """Sound interval of an exact integer operation, None when unbounded/unknown."""
    alo, ahi = a
    blo, bhi = b
    if op == "add":
        return (alo + blo, ahi + bhi)
    if op == "sub":
        return (alo - bhi, ahi - blo)
    if op == "mul":
        c = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        return (min(c), max(c))
    if op == "floordiv":
        if blo <= 0 <= bhi:
            # divisor may be zero or change sign: bound by |dividend|
            m = max(abs(alo), abs(ahi))
            return (-m, m)
        c = [alo // blo, alo // bhi, ahi // blo, ahi // bhi]
        return (min(c), max(c))
    if op == "mod":
        if blo > 0:
            if alo >= 0 and ahi < blo:
                return (alo, ahi)
            return (0, bhi - 1)
        if bhi < 0:
            return (blo + 1, 0)
        m = max(abs(blo), abs(bhi))
        return (-m, m)
    if op == "shl":
        if blo < 0 or bhi > 64:
            return None
        c = [alo << blo, alo << bhi, ahi << blo, ahi << bhi]
        return (min(c), max(c))
    if op == "shr":
        if blo < 0:
            return None
        c = [alo >> blo, alo >> bhi, ahi >> blo, ahi >> bhi]
        return (min(c), max(c))
    if op in ("and", "or", "xor"):
        if alo >= 0 and blo >= 0:
            hi = max(ahi, bhi)
            top = (1 << hi.bit_length()) - 1 if hi > 0 else 0
            if op == "and":
                return (0, min(ahi, bhi))
            return (0, top)
        bits = max(_bits(alo), _bits(ahi), _bits(blo), _bits(bhi))
        return (-(1 << bits), (1 << bits) - 1)
    if op == "min":
        return (min(alo, blo), min(ahi, bhi))
    if op == "max":
        return (max(alo, blo), max(ahi, bhi))
    if op == "pow":
        if blo < 0:
            return None
        c = [x**y for x in {alo, ahi, 0 if alo < 0 < ahi else alo} for y in {blo, bhi}]
        if alo < 0 and bhi >= 1:
            c += [alo ** max(1, bhi - 1), alo**bhi]
        return (min(c), max(c))
    return None


def _bits(v: int) -> int:
    return (v if v >= 0 else ~v).bit_length()


def iv_un(op: str, a: tuple[int, int]) -> tuple[int, int]:
    lo, hi = a
    if op == "neg":
        return (-hi, -lo)
    if op == "invert":
        return (~hi, ~lo)
    if op == "abs":
        if lo >= 0:
            return (lo, hi)
        if hi <= 0:
            return (-hi, -lo)
        return (0, max(-lo, hi))
    return a


def iv_join(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return (min(a[0], b[0]), max(a[1], b[1]))


def fits(iv: tuple[int, int], dt: DType) -> bool:
    return dt.min <= iv[0] and iv[1] <= dt.max
