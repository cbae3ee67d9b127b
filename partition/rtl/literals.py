"""Verilog literals and bit slices as text, and reading a literal's value back.

The datapath, the FSM and the RAM ports all write sized literals (`lit`), resize and slice
identifiers (`resize`, `bit_slice`) and fold operations on literals (`is_lit`,
`lit_value`); the spelling is one, here.
"""

from __future__ import annotations

from typing import Any


def lit(value: int, bits: int) -> str:
    """A sized Verilog literal of `value` wrapped to `bits` bits (two's complement)."""
    v = int(value) & ((1 << bits) - 1)
    if bits == 1:
        return f"1'b{v}"
    return f"{bits}'h{v:x}"


def resize(name: str, frm: int, to: int, signed: bool) -> str:
    """`name` (an identifier of `frm` bits) as `to` bits: truncation or sign/zero extension."""
    if frm == to:
        return name
    if to < frm:
        return f"{name}[{to - 1}:0]" if to > 1 else f"{name}[0]"
    fill = f"{name}[{frm - 1}]" if signed else "1'b0"
    return f"{{{{{to - frm}{{{fill}}}}}, {name}}}"


def bit_slice(sig: str, hi: int, lo: int) -> str:
    return f"{sig}[{hi}:{lo}]" if hi > lo else f"{sig}[{lo}]"


def const_int(v: Any) -> int:
    return int(bool(v)) if isinstance(v, bool) else int(v)


def is_lit(s: str) -> bool:
    return "'" in s and s[0].isdigit()


def lit_value(s: str, bits: int, signed: bool) -> int:
    v = int(s.split("'")[1][1:], 16 if "'h" in s else 2)
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v
