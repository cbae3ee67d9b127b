"""Builtins on numbers computed by a few exact IR steps: round(), int.bit_length(), pow(a, b, m),
and float() of a string constant.

* `round(x)` of a float is Python's: the nearest integer, ties to even, as a
  Python int. With t = trunc(x), x - t is exact for |x| < 2**63 (Sterbenz), so
  comparing it with +-0.5 decides the rounding exactly; NaN, infinities and
  values beyond int64 raise or give big ints in Python (noted). `round(x, n)`
  rounds to a decimal digit, which CPython does through a correctly rounded
  decimal conversion: rejected. `round()` of an int or bool is the int.
* `x.bit_length()` of a Python int: the bits of |x| (0 for 0), by a binary
  search over shifts of |x| as uint64 (|INT64_MIN| = 2**63 is exact there).
* `pow(a, b, m)` of Python ints with b >= 0 and 0 < |m| < 2**31: square and
  multiply, each product reduced by Python's `%` (the sign of m), so every
  product of two residues fits in int64.
* `float("inf")` and any other string Python's float() parses: the constant.
"""

from __future__ import annotations

import ast

from partition import ir
from partition.dtypes import BOOL, DTYPES, INT64, DType
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.types import NP, PyBool, PyInt, describe, int_dtype_for, range_of

UINT64 = DTYPES["uint64"]


class Intrinsics:
    """round(), bit_length(), pow(a, b, m), float(str) (part of `Lowerer`)."""

    def intrinsic(self, node: ast.Call) -> TE | None:
        """The value of one of these calls, or None when `node` is none of them."""
        f = node.func
        line = node.lineno
        if isinstance(f, ast.Attribute) and f.attr == "bit_length" and self.numpy_attr(f) is None:
            if node.args or node.keywords:
                raise Reject(line, "bit_length() with arguments")
            return self.bit_length(self.expr(f.value), line)
        if not isinstance(f, ast.Name) or self.is_local_name(f.id) or self.numpy_attr(f) is not None:
            return None
        if f.id == "float" and len(node.args) == 1 and not node.keywords:
            a = node.args[0]
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                try:
                    return self.const_te(float(a.value), line)
                except ValueError:
                    raise Reject(line, f"float({a.value!r}) raises ValueError") from None
            return None
        if f.id == "round":
            ndigits = node.args[1:] + [k.value for k in node.keywords if k.arg == "ndigits"]
            if (
                len(node.args) + len(node.keywords) > 2
                or not node.args
                or any(k.arg != "ndigits" for k in node.keywords)
            ):
                raise Reject(line, "round() with unusual arguments")
            if ndigits and not (isinstance(ndigits[0], ast.Constant) and ndigits[0].value is None):
                raise Reject(
                    line,
                    "round(x, ndigits) (CPython rounds through a correctly rounded decimal conversion, which "
                    "the kernel does not reproduce bit for bit)",
                )
            return self.round_half_even(self.expr(node.args[0]), line)
        if f.id == "pow" and len(node.args) == 3 and not node.keywords:
            return self.pow_mod(*(self.expr(a) for a in node.args), line)
        return None

    def temp(self, base: str, dt: DType, value: ir.Expr, line: int, out: list[ir.Stmt]) -> ir.Var:
        v = self.arr.scalar_temp(base, dt)
        out.append(ir.Assign(v.name, value, line))
        return v

    def round_half_even(self, a: TE, line: int) -> TE:
        if isinstance(a.pt, (PyInt, PyBool)) or (isinstance(a.pt, NP) and not a.pt.dtype.is_float):
            if isinstance(a.pt, NP) and a.pt.dtype.is_bool:
                raise Reject(line, "round() of a numpy bool (numpy raises TypeError)")
            return self.to_int(a, line)
        dt = a.e.dtype
        if not dt.is_float:
            raise Reject(line, f"round() of {describe(a.pt)}")
        out: list[ir.Stmt] = []
        x = self.temp("x", dt, a.e, line, out)
        self.pending.extend(out)
        out.clear()
        self.check_int64_float(x, line)  # Python raises for NaN and infinities, and is exact beyond 64 bits
        t = self.temp("t", INT64, ir.Cast(x, INT64), line, out)
        frac = self.temp("frac", dt, ir.Bin("sub", x, ir.Cast(t, dt), dt), line, out)
        odd = ir.Bin("and", t, const(1, INT64), INT64)
        half, one = const(0.5, dt), const(1, INT64)
        step: ir.Expr = ir.Select(
            ir.Cmp("gt", frac, half),
            one,
            ir.Select(
                ir.Cmp("lt", frac, const(-0.5, dt)),
                const(-1, INT64),
                ir.Select(
                    ir.Cmp("eq", frac, half),
                    odd,
                    ir.Select(
                        ir.Cmp("eq", frac, const(-0.5, dt)), ir.Un("neg", odd, INT64), const(0, INT64), INT64
                    ),
                    INT64,
                ),
                INT64,
            ),
            INT64,
        )
        self.arr.emit(out, line, "round()")
        return TE(PyInt(INT64.min, INT64.max), ir.Bin("add", t, step, INT64))

    def bit_length(self, a: TE, line: int) -> TE:
        if not isinstance(a.pt, (PyInt, PyBool)):
            raise Reject(line, f"bit_length() of {describe(a.pt)} (a method of Python ints)")
        lo, hi = range_of(a.pt)
        bits = max(abs(lo).bit_length(), abs(hi).bit_length())
        least = 0 if lo <= 0 <= hi else min(abs(lo), abs(hi)).bit_length()
        pt = PyInt(least, bits)
        if lo == hi:
            return self.const_te(abs(lo).bit_length(), line)
        out: list[ir.Stmt] = []
        x = cast(a.e, INT64)
        u = cast(x, UINT64)
        neg = ir.Bin("sub", const(0, UINT64), u, UINT64)
        v = self.temp("mag", UINT64, ir.Select(ir.Cmp("lt", x, const(0, INT64)), neg, u, UINT64), line, out)
        r = self.temp("bits", INT64, const(0, INT64), line, out)
        for s in (32, 16, 8, 4, 2, 1):
            if s >= bits:
                continue
            shifted = ir.Bin("shr", v, const(s, UINT64), UINT64)
            c = self.temp("hi", BOOL, ir.Cmp("ne", shifted, const(0, UINT64)), line, out)
            out.append(ir.Assign(v.name, ir.Select(c, shifted, v, UINT64), line))
            out.append(
                ir.Assign(r.name, ir.Select(c, ir.Bin("add", r, const(s, INT64), INT64), r, INT64), line)
            )
        last = ir.Cast(ir.Cmp("ne", v, const(0, UINT64)), INT64)
        self.arr.emit(out, line, "bit_length()")
        dt = self.int_type(pt)
        return TE(pt, cast(ir.Bin("add", r, last, INT64), dt))

    def int_type(self, pt: PyInt) -> DType:
        return int_dtype_for(pt)

    def pow_mod(self, a: TE, b: TE, m: TE, line: int) -> TE:
        """pow(a, b, m) for Python ints (b >= 0, 0 < |m| < 2**31)."""
        for x, what in ((a, "base"), (b, "exponent"), (m, "modulus")):
            if not isinstance(x.pt, (PyInt, PyBool)):
                raise Reject(
                    line, f"pow() with a {what} of {describe(x.pt)} (three-argument pow is for ints)"
                )
        rb, rm = range_of(b.pt), range_of(m.pt)
        if rb[0] < 0:
            raise Reject(line, "pow(a, b, m) with an exponent that may be negative (a modular inverse)")
        if rm[0] <= 0 <= rm[1] or max(abs(rm[0]), abs(rm[1])) >= 1 << 31:
            raise Reject(line, "pow(a, b, m) with a modulus that may be 0 or reach 2**31")
        out: list[ir.Stmt] = []
        mod = self.temp("m", INT64, cast(m.e, INT64), line, out)
        base = self.temp("base", INT64, self.py_mod(cast(a.e, INT64), mod), line, out)
        e = self.temp("e", INT64, cast(b.e, INT64), line, out)
        r = self.temp("r", INT64, self.py_mod(const(1, INT64), mod), line, out)
        step = []
        odd = ir.Cmp("ne", ir.Bin("and", e, const(1, INT64), INT64), const(0, INT64))
        step.append(
            ir.If(odd, [ir.Assign(r.name, self.py_mod(ir.Bin("mul", r, base, INT64), mod), line)], [], line)
        )
        step.append(ir.Assign(base.name, self.py_mod(ir.Bin("mul", base, base, INT64), mod), line))
        step.append(ir.Assign(e.name, ir.Bin("shr", e, const(1, INT64), INT64), line))
        n = max(rb[1].bit_length(), 1)
        self.r.loop_counter += 1
        i = self.arr.scalar_temp("i", INT64)
        out.append(
            ir.For(i.name, const(0, INT64), const(n, INT64), 1, step, n, line, f"L{self.r.loop_counter}")
        )
        self.arr.emit(out, line, "pow()")
        lo, hi = (0, rm[1] - 1) if rm[0] > 0 else (rm[0] + 1, 0)
        pt = PyInt(lo, hi)
        return TE(pt, cast(r, self.int_type(pt)))

    def py_mod(self, x: ir.Expr, m: ir.Expr) -> ir.Expr:
        return ir.Bin("mod", x, m, INT64)
