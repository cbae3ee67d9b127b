"""The operator binder: which table entry (unit kind, width, cost) each IR operation becomes.

An expression node binds to one operator of the tables (`partition.estimate.tables`):
integer operators by kind and width (multipliers by their operands' significant widths,
dividers by a constant's value), floating-point cores and conversions at the clock, and a
load of a packed word to the RAM read plus its element-select multiplexer. Choosing the
unit is independent of when it is placed, so it lives apart from the region that places
it; the notes it adds go to the kernel's context.
"""

from __future__ import annotations

from partition import ir
from partition.estimate import tables
from partition.estimate.schedule.analysis import dtype_bits
from partition.estimate.schedule.context import KernelContext
from partition.estimate.schedule.memory import RamInfo, bank_geometry
from partition.estimate.tables import OpCost


def bind(ctx: KernelContext, e: ir.Expr) -> tuple[str, int, OpCost]:
    """(unit kind, result bits, cost) of a Select, Cast, Un, Logic, Cmp, Bin or Math node."""
    fam = ctx.family
    if isinstance(e, ir.Select):
        w = ctx.widths.of(e)
        return "select", w, tables.int_cost("select", w, fam)
    if isinstance(e, ir.Cast):
        return _cast(ctx, e)
    if isinstance(e, ir.Un):
        kind, cost = _un(ctx, e)
        return kind, ctx.widths.of(e), cost
    if isinstance(e, ir.Logic):
        return "logic", 1, tables.int_cost("logic", 1, fam)
    if isinstance(e, ir.Cmp):
        dt = e.lhs.dtype
        if dt.is_float:
            cost = tables.float_cost("fcmp", dt.bits, fam, ctx.clock)
            kind = "fcmp"
        elif dt.is_bool:
            cost, kind = tables.int_cost("logic", 1, fam), "logic"
        else:
            # a comparison of sign-extended operands compares their significant bits
            w = min(dt.bits, max(ctx.widths.significant(e.lhs), ctx.widths.significant(e.rhs)))
            kind = "eq" if e.op in ("eq", "ne") else "cmp"
            cost = tables.int_cost(kind, w, fam)
        return kind, 1, cost
    if isinstance(e, ir.Bin):
        kind, cost = _bin(ctx, e)
        return kind, ctx.widths.of(e), cost
    if isinstance(e, ir.Math):
        return e.fn, e.dtype.bits, tables.math_cost(e.fn, e.dtype.bits, fam, ctx.clock)
    raise TypeError(f"unknown expression {type(e).__name__}")


def _cast(ctx: KernelContext, e: ir.Cast) -> tuple[str, int, OpCost]:
    fam = ctx.family
    src, dst = e.operand.dtype, e.dtype
    if src == dst or (src.is_int and dst.is_int) or (src.is_bool and dst.is_int):
        w = ctx.widths.of(e)
        return "wire", w, tables.int_cost("wire", w, fam)
    if dst.is_bool:
        if src.is_float:
            cost, kind = tables.float_cost("fcmp", src.bits, fam, ctx.clock), "fcmp"
        else:
            cost, kind = tables.int_cost("eq", src.bits, fam), "eq"
        return kind, 1, cost
    if src.is_bool and dst.is_float:
        return "select", dst.bits, tables.int_cost("select", dst.bits, fam)
    if src.is_int and dst.is_float:
        kind = "itof"
    elif src.is_float and dst.is_int:
        kind = "ftoi"
    elif src.is_float and dst.is_float:
        kind = "fext" if dst.bits > src.bits else "ftrunc"
    else:
        raise TypeError(f"cast {src} -> {dst}")
    return kind, dst.bits, tables.convert_cost(kind, src.bits, dst.bits, fam, ctx.clock)


def _un(ctx: KernelContext, e: ir.Un) -> tuple[str, OpCost]:
    fam, dt = ctx.family, e.dtype
    if dt.is_float:
        op = {"neg": "fneg", "abs": "fabs"}.get(e.op)
        if op is None:
            raise TypeError(f"{e.op} on {dt}")
        return op, tables.float_cost(op, dt.bits, fam, ctx.clock)
    if dt.is_bool or e.op == "not":
        return "not", tables.int_cost("not", 1, fam)
    op = {"neg": "neg", "invert": "invert", "abs": "abs"}[e.op]
    return op, tables.int_cost(op, ctx.widths.of(e), fam)


def _bin(ctx: KernelContext, e: ir.Bin) -> tuple[str, OpCost]:
    fam, dt = ctx.family, e.dtype
    n = ctx.widths.of(e)
    if dt.is_float:
        if e.op in ("add", "sub"):
            return "f" + e.op, tables.float_cost("fadd", n, fam, ctx.clock)
        if e.op == "mul":
            return "fmul", tables.float_cost("fmul", n, fam, ctx.clock)
        if e.op in ("div", "floordiv", "mod"):
            if e.op != "div":
                ctx.note(f"float {e.op} is costed as a floating-point division")
            return "fdiv", tables.float_cost("fdiv", n, fam, ctx.clock)
        if e.op in ("min", "max"):
            c = tables.float_cost("fcmp", n, fam, ctx.clock)
            s = tables.int_cost("select", n, fam)
            return e.op, OpCost(
                e.op, n, fam, c.delay_ns, c.latency, s.delay_ns, 1, c.lut + s.lut, c.ff, c.dsp,
                "derived: floating-point compare then select; " + c.source + " | " + s.source,
            )  # fmt: skip
        raise TypeError(f"{e.op} on {dt}")
    if dt.is_bool:
        return "logic", tables.int_cost("logic", 1, fam)
    if e.op in ("add", "sub"):
        return e.op, tables.int_cost(e.op, n, fam)
    if e.op in ("and", "or", "xor"):
        const = next((x for x in (e.lhs, e.rhs) if isinstance(x, ir.Const)), None)
        if const is not None and e.op in ("and", "or"):
            return e.op, tables.int_cost("wire", n, fam)  # forcing bits to 0/1
        return e.op, tables.int_cost(e.op, n, fam)
    if e.op in ("min", "max"):
        return e.op, tables.int_cost(e.op, n, fam)
    if e.op in ("shl", "shr"):
        if isinstance(e.rhs, ir.Const):
            return "shift_const", tables.int_cost("shift_const", n, fam)
        return "shift_var", tables.int_cost("shift_var", n, fam)
    if e.op == "mul":
        const = None
        for x in (e.lhs, e.rhs):
            if isinstance(x, ir.Const) and not isinstance(x.value, bool):
                const = int(x.value)
        return "mul", tables.mul_cost(
            min(n, ctx.widths.significant(e.lhs)),
            min(n, ctx.widths.significant(e.rhs)),
            n,
            fam,
            ctx.clock,
            const=const,
        )
    if e.op in ("floordiv", "mod"):
        const = (
            int(e.rhs.value) if isinstance(e.rhs, ir.Const) and not isinstance(e.rhs.value, bool) else None
        )
        # the divider is built at the type's width (its latency is the RTL's divider's)
        cost = tables.div_cost(dtype_bits(dt), fam, signed=dt.kind == "int", const=const)
        if cost.latency:
            ctx.note(
                f"integer {e.op} by a non-constant (or non power-of-two) uses a {cost.latency}-cycle sequential divider"
            )
        return e.op, cost
    raise TypeError(f"{e.op} on {dt}")


def load_cost(ctx: KernelContext, ram: RamInfo) -> OpCost:
    """A RAM read of `ram`, plus the multiplexer selecting the element of a packed word."""
    cost = tables.mem_cost("load", ctx.family)
    # elements per word of the RAM the load reads: a partitioned array's bank packs Q of
    # them (`bank_geometry`), fewer than the unpartitioned word's
    per_word = bank_geometry(ram, ctx.bus_bits).q if ram.banks > 1 else ram.per_word
    if per_word > 1:
        lut_ns, _ = tables.lut_level(ctx.family)
        mux = tables.mux_luts(ram.elem_bits, per_word)
        cost = OpCost(
            "load", ram.elem_bits, cost.family, cost.delay_ns, cost.latency, cost.out_ns + lut_ns, 1, mux, 0, 0,
            cost.source + f"; element select from a packed {ram.elem_bits * per_word}-bit word: "
            + tables.MUX_SOURCE,
        )  # fmt: skip
    return cost
