"""The widths synthesis keeps: what an operator costs is its significant and demanded bits.

The IR computes in its types' widths (the built-in RTL and the HLS C++ declare them so),
but synthesis builds less. yosys (`wreduce`, `opt_clean`) and Vivado alike drop the bits
of an operator that only copy its operands' sign (a 64-bit `max(t + 3, 0)` of an 8-bit
`t` is a 10-bit adder and comparator) and the bits nothing reads (an index computed in 64
bits that addresses a 4,096-word RAM keeps its low 12). Counting the full type's width
made the estimate of code whose indices run in wide types (a tiled kernel's row
arithmetic, int64 by the frontend's rules) twice what synthesis reports.

`Widths` gives each expression the width its operator is costed at:
min(type width, significant bits, demanded bits), where

* significant bits (`significant`) bound the value as a signed number from its operands'
  (a sum one bit more than the wider operand, a product their sum, a cast from a narrow
  type that type's, a constant its magnitude, a variable every value assigned to it:
  `register_bits`, a least fixed point);
* demanded bits are the low bits a RAM address needs (the RAM's address width), pushed
  down through the operators whose low result bits depend only on their operands' low
  bits (add, sub, mul, and/or/xor, neg, invert, constant shifts left, integer casts).
  An expression used anywhere else is demanded whole.
"""

from __future__ import annotations

import math

from partition import ir
from partition.dtypes import DType

_LOW_BITS_OPS = frozenset(("add", "sub", "mul", "and", "or", "xor"))


def _full(dt: DType) -> int:
    """Signed bits of every value of `dt` (an unsigned type needs one more)."""
    if dt.is_bool:
        return 1
    return dt.bits + (1 if dt.kind == "uint" else 0)


def _const_bits(v: int) -> int:
    return (v if v >= 0 else -v - 1).bit_length() + 1


def _int_const(e: ir.Expr) -> int | None:
    if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return int(e.value)
    return None


def significant(e: ir.Expr, var_bits: dict[str, int]) -> int:
    """Signed bits that hold every value `e` can take (at most its type's)."""
    dt = e.dtype
    full = _full(dt)
    if not dt.is_int:
        return full
    if isinstance(e, ir.Const):
        return min(full, _const_bits(int(e.value)))
    if isinstance(e, ir.Var):
        return min(full, var_bits.get(e.name, full))
    if isinstance(e, ir.Cast):
        src = e.operand.dtype
        if src.is_bool:
            return min(full, 2)
        if not src.is_int:
            return full
        s = significant(e.operand, var_bits)
        if dt.kind == "uint" and src.kind != "uint":
            return full  # a negative value wraps to a large one
        return min(full, s)
    if isinstance(e, ir.Select):
        return min(full, max(significant(e.then, var_bits), significant(e.orelse, var_bits)))
    if isinstance(e, ir.Un):
        s = significant(e.operand, var_bits)
        if e.op == "invert":
            return min(full, s)
        return full if dt.kind == "uint" else min(full, s + 1)
    if isinstance(e, ir.Bin):
        a, b = significant(e.lhs, var_bits), significant(e.rhs, var_bits)
        c = _int_const(e.rhs)
        if e.op == "add":
            return min(full, max(a, b) + 1)
        if e.op == "sub":
            return full if dt.kind == "uint" else min(full, max(a, b) + 1)
        if e.op == "mul":
            return min(full, a + b)
        if e.op in ("and", "or", "xor", "min", "max"):
            return min(full, max(a, b))
        if e.op == "shl" and c is not None and c >= 0:
            return min(full, a + c)
        if e.op == "shr" and c is not None and c >= 0:
            return min(full, max(1, a - c) + (1 if dt.kind == "uint" else 0))
        if e.op == "floordiv":
            return min(full, a + 1)  # |a // b| <= |a|, but -min // -1 needs one more bit
        if e.op == "mod":
            return min(full, b)  # |a % b| < |b|
        return full
    return full


def register_bits(kernel: ir.Kernel, var_types: dict[str, DType]) -> dict[str, int]:
    """Significant bits of every integer variable: the least widths such that each value
    assigned to it (a loop variable: its start and stop) fits, found by raising them until
    nothing changes (a variable that accumulates reaches its type's width). Scalar
    parameters keep their type's."""
    params = {p.name for p in kernel.scalar_params}
    defs: list[tuple[str, list[ir.Expr]]] = []
    for s in ir.walk_stmts(kernel.body):
        if isinstance(s, ir.For):
            defs.append((s.var, [s.start, s.stop]))
        elif isinstance(s, ir.Assign):
            defs.append((s.var, [s.value]))
    bits: dict[str, int] = {v: 0 for v, _ in defs if v not in params and v in var_types}
    changed = True
    while changed:
        changed = False
        for v, exprs in defs:
            if v not in bits:
                continue
            full = _full(var_types[v])
            w = min(full, max(significant(x, bits) for x in exprs))
            if w > bits[v]:
                bits[v], changed = w, True
    return bits


def _demand(e: ir.Expr, d: int, out: dict[ir.Expr, int], abits) -> None:
    """Record that `d` low bits of `e` are read, and what its operands' bits that needs."""
    if out.get(e, -1) >= d:
        return
    out[e] = d
    full = 64
    if isinstance(e, ir.Load):
        for i in e.index:
            _demand(i, abits(e.array), out, abits)
        return
    if (isinstance(e, ir.Cast) and e.dtype.is_int and e.operand.dtype.is_int) or (
        isinstance(e, ir.Un) and e.op in ("neg", "invert") and e.dtype.is_int
    ):
        _demand(e.operand, d, out, abits)
    elif isinstance(e, ir.Bin) and e.dtype.is_int and e.op in _LOW_BITS_OPS:
        _demand(e.lhs, d, out, abits)
        _demand(e.rhs, d, out, abits)
    elif isinstance(e, ir.Bin) and e.dtype.is_int and e.op == "shl" and _int_const(e.rhs) is not None:
        _demand(e.lhs, max(1, d - max(0, _int_const(e.rhs) or 0)), out, abits)
        _demand(e.rhs, full, out, abits)
    elif isinstance(e, ir.Select):
        _demand(e.cond, full, out, abits)
        _demand(e.then, d, out, abits)
        _demand(e.orelse, d, out, abits)
    else:
        for x in _children(e):
            _demand(x, full, out, abits)


def _children(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, (ir.Cast, ir.Un)):
        return [e.operand]
    if isinstance(e, (ir.Bin, ir.Cmp, ir.Logic)):
        return [e.lhs, e.rhs]
    if isinstance(e, ir.Select):
        return [e.cond, e.then, e.orelse]
    if isinstance(e, ir.Math):
        return list(e.args)
    if isinstance(e, ir.Load):
        return list(e.index)
    return []


class Widths:
    """The width each expression's operator is costed at (module doc)."""

    def __init__(self, kernel: ir.Kernel, var_types: dict[str, DType], ram_elems: dict[str, int]):
        self.var_bits = register_bits(kernel, var_types)

        def abits(array: str) -> int:
            return max(1, math.ceil(math.log2(max(2, ram_elems.get(array, 2)))))

        self.demanded: dict[ir.Expr, int] = {}
        for s in ir.walk_stmts(kernel.body):
            if isinstance(s, ir.Store):
                for i in s.index:
                    _demand(i, abits(s.array), self.demanded, abits)
            for x in ir.stmt_exprs(s):
                if not (isinstance(s, ir.Store) and any(x is i for i in s.index)):
                    _demand(x, 64, self.demanded, abits)

    def significant(self, e: ir.Expr) -> int:
        return significant(e, self.var_bits)

    def of(self, e: ir.Expr) -> int:
        """Bits of `e`'s operator: its type's, less what synthesis drops."""
        n = 1 if e.dtype.is_bool else e.dtype.bits
        if not e.dtype.is_int:
            return n
        return max(1, min(n, self.significant(e), self.demanded.get(e, n)))
