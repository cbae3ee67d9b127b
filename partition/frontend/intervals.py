"""Intervals of IR values, for proving that a `math` call cannot raise.

An `Iv` bounds every value an expression of one dtype can take: integers by
Python ints (exact), floats by floats with a flag for NaN. Each operation
returns an interval holding every result the kernel can compute: integer
results that may leave their dtype wrap, so they widen to the whole dtype;
float bounds are computed in double precision and then moved outward (by
2**-20 of their magnitude, more than float32's rounding; by 2**-16 after an
approximate function, more than hls_math's few ulp), values below the dtype's
smallest normal number count as zero (the Floating-Point Operator cores flush
subnormals, PG060), and values beyond its largest as infinite.

`partition.frontend.domains` runs these over a kernel's IR.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from partition.dtypes import DType
from partition.frontend.types import iv_bin, iv_un

INF = math.inf
ROUNDING = 2.0**-20  # relative outward margin after a correctly rounded operation
APPROX = 2.0**-16  # after an approximate function (a few ulp of float32)


@dataclass(frozen=True)
class Iv:
    """lo..hi (empty when lo > hi) and whether NaN is possible (floats)."""

    lo: float
    hi: float
    nan: bool = False

    @property
    def empty(self) -> bool:
        return self.lo > self.hi

    def has_zero(self) -> bool:
        return self.lo <= 0 <= self.hi

    def magnitude(self) -> float:
        """The largest |value| (0 for an empty interval)."""
        return 0.0 if self.empty else max(abs(self.lo), abs(self.hi))

    def smallest_magnitude(self) -> float:
        if self.empty:
            return INF
        if self.has_zero():
            return 0.0
        return min(abs(self.lo), abs(self.hi))


EMPTY = Iv(INF, -INF)


def top(dt: DType) -> Iv:
    """Every value of `dt`."""
    if dt.is_float:
        return Iv(-INF, INF, True)
    return Iv(dt.min, dt.max)


def const(value: float | int | bool, dt: DType) -> Iv:
    if dt.is_float:
        v = float(value)
        return Iv(INF, -INF, True) if math.isnan(v) else Iv(v, v)
    return Iv(int(value), int(value))


def join(a: Iv, b: Iv) -> Iv:
    if a.empty:
        return Iv(b.lo, b.hi, a.nan or b.nan)
    if b.empty:
        return Iv(a.lo, a.hi, a.nan or b.nan)
    return Iv(min(a.lo, b.lo), max(a.hi, b.hi), a.nan or b.nan)


def meet(a: Iv, b: Iv) -> Iv:
    return Iv(max(a.lo, b.lo), min(a.hi, b.hi), a.nan and b.nan)


def within(a: Iv, b: Iv) -> bool:
    """a is contained in b."""
    return (a.empty or (b.lo <= a.lo and a.hi <= b.hi)) and (b.nan or not a.nan)


def widen(old: Iv, new: Iv, dt: DType) -> Iv:
    """`new` with every bound that grew past `old`'s pushed to the dtype's end (loops)."""
    if old.empty:
        return new
    wide = top(dt)
    lo = old.lo if new.lo >= old.lo else wide.lo
    hi = old.hi if new.hi <= old.hi else wide.hi
    return Iv(lo, hi, old.nan or new.nan)


def fit(iv: Iv, dt: DType, margin: float = ROUNDING) -> Iv:
    """`iv` (exact values) as the dtype holds them: integers wrap, floats round, flush, overflow."""
    if iv.empty:
        return iv
    if not dt.is_float:
        if dt.min <= iv.lo and iv.hi <= dt.max:
            return iv
        return top(dt)
    finfo = np.finfo(dt.np)
    tiny, big = float(finfo.tiny), float(finfo.max)
    lo, hi = float(iv.lo), float(iv.hi)
    lo = lo - abs(lo) * margin if math.isfinite(lo) else lo
    hi = hi + abs(hi) * margin if math.isfinite(hi) else hi
    if 0 < lo < tiny:
        lo = 0.0
    if -tiny < hi < 0:
        hi = 0.0
    if lo < -big:
        lo = -INF
    if hi > big:
        hi = INF
    if lo > big:
        lo = INF  # every value overflows
    if hi < -big:
        hi = -INF
    return Iv(lo, hi, iv.nan)


def _span(values: list[float], nan: bool) -> Iv:
    """The interval of candidate bounds; a NaN candidate (inf - inf, 0 * inf) means NaN is possible."""
    real = [v for v in values if not math.isnan(v)]
    nan = nan or len(real) < len(values)
    if not real:
        return Iv(-INF, INF, True)
    return Iv(min(real), max(real), nan)


# ---------------------------------------------------------------- integers


def int_bin(op: str, a: Iv, b: Iv, dt: DType) -> Iv:
    """An integer operation with the IR's semantics (wrapping, x // 0 == 0)."""
    if a.empty or b.empty:
        return EMPTY
    if op in ("floordiv", "mod") and b.has_zero():
        iv = iv_bin(op, (int(a.lo), int(a.hi)), (int(b.lo), int(b.hi)))
        iv = (min(iv[0], 0), max(iv[1], 0)) if iv else None
    else:
        iv = iv_bin(op, (int(a.lo), int(a.hi)), (int(b.lo), int(b.hi)))
    if iv is None:
        return top(dt)
    return fit(Iv(iv[0], iv[1]), dt)


def int_square(a: Iv) -> Iv:
    """x * x of one integer, exactly (`fit` wraps it into the dtype)."""
    if a.empty:
        return a
    m = int(max(abs(a.lo), abs(a.hi)))
    low = 0 if a.has_zero() else int(min(abs(a.lo), abs(a.hi)))
    return Iv(low * low, m * m)


def int_un(op: str, a: Iv, dt: DType) -> Iv:
    if a.empty:
        return EMPTY
    lo, hi = iv_un(op, (int(a.lo), int(a.hi)))
    return fit(Iv(min(lo, hi), max(lo, hi)), dt)


# ------------------------------------------------------------------ floats


def fadd(a: Iv, b: Iv) -> Iv:
    if a.empty or b.empty:
        return Iv(INF, -INF, a.nan or b.nan)
    return _span([a.lo + b.lo, a.hi + b.hi], a.nan or b.nan or _opposite_infinities(a, b))


def _opposite_infinities(a: Iv, b: Iv) -> bool:
    return (a.hi == INF and b.lo == -INF) or (a.lo == -INF and b.hi == INF)


def fneg(a: Iv) -> Iv:
    return Iv(-a.hi, -a.lo, a.nan)


def fabs(a: Iv) -> Iv:
    if a.empty:
        return a
    if a.lo >= 0:
        return a
    if a.hi <= 0:
        return fneg(a)
    return Iv(0.0, max(-a.lo, a.hi), a.nan)


def fmul(a: Iv, b: Iv) -> Iv:
    if a.empty or b.empty:
        return Iv(INF, -INF, a.nan or b.nan)
    return _span([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi], a.nan or b.nan)


def fsquare(a: Iv) -> Iv:
    """x * x of one value: never negative."""
    m = fabs(a)
    if m.empty:
        return m
    return Iv(m.lo * m.lo, m.hi * m.hi, a.nan)


def fdiv(a: Iv, b: Iv) -> Iv:
    if a.empty or b.empty:
        return Iv(INF, -INF, a.nan or b.nan)
    if b.has_zero():
        return Iv(-INF, INF, True)  # a signed zero divisor: either infinity, or 0 / 0
    return _span([a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi], a.nan or b.nan)


def fmin(a: Iv, b: Iv) -> Iv:
    """The IR's min: `b if b < a else a` (a NaN operand gives a)."""
    if a.empty or b.empty:
        return a
    return Iv(min(a.lo, b.lo), a.hi if b.nan else min(a.hi, b.hi), a.nan)


def fmax(a: Iv, b: Iv) -> Iv:
    """The IR's max: `b if b > a else a` (a NaN operand gives a)."""
    if a.empty or b.empty:
        return a
    return Iv(a.lo if b.nan else max(a.lo, b.lo), max(a.hi, b.hi), a.nan)


def fremainder(a: Iv, b: Iv) -> Iv:
    """Python's float % (sign of the divisor, smaller than it) or C's fmod (sign of the dividend)."""
    m = b.magnitude()
    if b.empty or not math.isfinite(m):
        return Iv(-INF, INF, True)
    return Iv(-m, m, True)


# ------------------------------------------------------------------- casts


def cast(a: Iv, src: DType, dst: DType) -> Iv:
    """The IR's Cast of every value in `a`."""
    if dst.is_bool:  # x != 0
        if a.empty:
            return Iv(1, 1) if a.nan else a
        if a.lo == a.hi == 0 and not a.nan:
            return Iv(0, 0)
        return Iv(0, 1) if a.has_zero() else Iv(1, 1)
    if a.empty:
        return a if dst.is_float else Iv(0, 0) if a.nan else a
    if dst.is_float:
        if src.is_float and src.bits <= dst.bits:
            return a
        return fit(Iv(float(a.lo), float(a.hi), a.nan), dst)
    if src.is_float:
        # trunc toward zero; NaN and infinities give 0; beyond the range wraps
        if not (dst.min - 1 < a.lo and a.hi < dst.max + 1):
            return top(dst)
        lo, hi = math.trunc(a.lo), math.trunc(a.hi)
        if a.nan:
            lo, hi = min(lo, 0), max(hi, 0)
        return Iv(lo, hi)
    return fit(a, dst)


# ---------------------------------------------------------------- functions


def _monotone(f, a: Iv, nan: bool, increasing: bool = True) -> Iv:
    if a.empty:
        return Iv(INF, -INF, nan)
    lo, hi = _safe(f, a.lo), _safe(f, a.hi)
    if not increasing:
        lo, hi = hi, lo
    return Iv(lo, hi, nan)


def _safe(f, x: float) -> float:
    try:
        return float(f(x))
    except OverflowError:
        return INF if x > 0 else -INF
    except ValueError:
        return math.nan


def math_fn(fn: str, args: list[Iv], exponent: float | None = None) -> Iv:
    """Values of the Math function `fn` (exact values, before `fit`); `exponent`: pow's constant."""
    a = args[0]
    n = a.nan
    if fn == "sqrt":
        return _monotone(math.sqrt, meet(a, Iv(0.0, INF, True)), n or a.lo < 0)
    if fn in ("exp", "expm1"):
        return _monotone(getattr(math, fn), a, n)
    if fn in ("log", "log2", "log10", "log1p"):
        edge = -1.0 if fn == "log1p" else 0.0
        inner = meet(a, Iv(edge, INF, True))
        f = getattr(math, fn)
        if inner.empty:
            return Iv(INF, -INF, True)
        lo = -INF if inner.lo <= edge else f(inner.lo)
        return Iv(lo, f(inner.hi) if inner.hi < INF else INF, n or a.lo < edge)
    if fn in ("sin", "cos"):
        return Iv(-1.0, 1.0, n or a.lo == -INF or a.hi == INF)
    if fn == "tan":
        return Iv(-INF, INF, n or a.lo == -INF or a.hi == INF)
    if fn in ("asin", "acos"):
        inner = meet(a, Iv(-1.0, 1.0, True))
        return _monotone(getattr(math, fn), inner, n or a.lo < -1 or a.hi > 1, increasing=fn == "asin")
    if fn in ("atan", "sinh", "tanh"):
        return _monotone(getattr(math, fn), a, n)
    if fn == "cosh":
        m = fabs(a)
        return _monotone(math.cosh, m, n)
    if fn in ("floor", "ceil", "trunc", "rint"):
        f = {"floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "rint": round}[fn]
        return _monotone(lambda x: x if math.isinf(x) else f(x), a, n)
    b = args[1]
    nan = n or b.nan
    if fn == "atan2":
        return Iv(-math.pi, math.pi, nan)
    if fn == "hypot":
        if a.empty or b.empty:
            return Iv(INF, -INF, nan)
        return Iv(
            max(a.smallest_magnitude(), b.smallest_magnitude()), math.hypot(a.magnitude(), b.magnitude()), nan
        )
    if fn == "copysign":
        m = a.magnitude()
        return Iv(-m, m, n)
    if fn == "fmod":
        return fremainder(a, b)
    if fn == "pow":
        return _power(a, exponent, nan)
    raise ValueError(f"no interval rule for {fn}")


def _power(a: Iv, y: float | None, nan: bool) -> Iv:
    """x ** y for a constant y (anything for an unknown one)."""
    if y is None or a.empty:
        return Iv(-INF, INF, True)
    if y == 0:
        return Iv(1.0, 1.0, False)

    def pw(x: float) -> float:
        return _safe(lambda v: math.pow(v, y), x)

    if a.lo >= 0:
        return _monotone(pw, a, nan, increasing=y > 0)
    if float(y).is_integer():
        if int(y) % 2:  # odd: the sign follows x; |x| ** y on each side
            parts = [pw(a.lo), pw(a.hi)]
            if a.has_zero():
                parts += [pw(-0.0), pw(0.0)] if y > 0 else [-INF, INF]
            return _span(parts, nan)
        m = fabs(a)  # even: the value of |x|
        return _monotone(pw, m, nan, increasing=y > 0)
    return Iv(-INF, INF, True)  # a negative base to a fractional power
