"""Every table entry enumerated, for the checks that no figure lacks its source."""

from __future__ import annotations

from partition import ir
from partition.estimate.tables.device import CHAR_WIDTHS, FAMILIES, OpCost
from partition.estimate.tables.floating import convert_cost, float_cost, math_cost
from partition.estimate.tables.integer import INT_OPS, div_cost, int_cost, mul_cost
from partition.estimate.tables.memory import mem_cost


def table_entries(clock_mhz: float = 100.0) -> list[OpCost]:
    """Every table entry for every family at the characterised widths (for checks)."""
    out: list[OpCost] = []
    for fam in FAMILIES:
        for op in INT_OPS:
            for w in CHAR_WIDTHS:
                out.append(int_cost(op, w, fam))
        for w in (8, 16, 32, 64):
            out.append(mul_cost(w, w, w, fam, clock_mhz))
            out.append(mul_cost(w, w, w, fam, clock_mhz, const=5))
            out.append(div_cost(w, fam, signed=True))
            out.append(div_cost(w, fam, signed=False, const=8))
        for bits in (32, 64):
            for op in ("fadd", "fsub", "fmul", "fdiv", "fcmp", "fneg", "fabs"):
                out.append(float_cost(op, bits, fam, clock_mhz))
            out.extend(math_cost(fn, bits, fam, clock_mhz) for fn in ir.MATH_FUNCS)
            out.append(convert_cost("itof", 32, bits, fam, clock_mhz))
            out.append(convert_cost("ftoi", bits, 32, fam, clock_mhz))
        out.append(convert_cost("fext", 32, 64, fam, clock_mhz))
        out.append(convert_cost("ftrunc", 64, 32, fam, clock_mhz))
        out.append(mem_cost("load", fam))
        out.append(mem_cost("store", fam))
    return out
