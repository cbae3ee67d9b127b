"""The resource model: LUT/FF/DSP/BRAM18 of the hardware one schedule describes.

Operators (every instance its own unit, except the operations the datapath builds once:
`_shared_key`), scalar and chain registers, the one-hot FSM and the pipelines' valid bits,
the register and RAM-port multiplexers, the RAMs (a partitioned array's banks, as the
built-in RTL builds them) and the interface shell, each from the tables' rules with their
sources. Resources are counted apart from cycles (partition.estimate.model): both read the
one schedule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from partition import ir
from partition.boards import RESOURCES
from partition.estimate import tables
from partition.estimate.schedule import KernelSchedule, ScheduledOp, bank_geometry
from partition.regmap import register_map

PIPELINE_CONTROL_SOURCE = (
    "one valid flip-flop and one enable LUT per pipeline stage (stall-free static pipeline of the "
    "microarchitecture)"
)
REGISTER_SOURCE = "scalars are registers (microarchitecture): one FF per bit"
CHAIN_SOURCE = (
    "values live across a cycle boundary of their statement or pipeline are held in registers: bits x "
    "cycles between ready and last use"
)
# where each part's figures come from, as the estimate's breakdown states it
SOURCES = {
    "operators": "partition.estimate.tables (per-entry sources; tables.table_entries())",
    "registers": REGISTER_SOURCE,
    "chain_registers": CHAIN_SOURCE,
    "fsm": tables.FSM_SOURCE,
    "pipeline_control": PIPELINE_CONTROL_SOURCE,
    "muxes": tables.MUX_SOURCE,
    "rams": f"{tables.BRAM18_SOURCE}; {tables.LUTRAM_SOURCE}; {tables.BRAM_MUX_SOURCE}",
    "shell": tables.SHELL_SOURCE,
}


@dataclass
class Resources:
    """What one call's hardware takes, part by part."""

    parts: dict[str, dict[str, int]]  # part (operators, registers, rams, shell, ...) -> resource -> count
    rams: dict[str, dict[str, Any]]  # RAM name -> its geometry and cost
    operators: dict[str, int]  # operation kind -> instances in the schedule

    def totals(self) -> dict[str, int]:
        return {r: sum(v.get(r, 0) for v in self.parts.values()) for r in RESOURCES}


def count_resources(
    kernel: ir.Kernel, sched: KernelSchedule, bus_bits: int, n_loads: int, n_stores: int
) -> Resources:
    """The resources of `kernel` built as `sched` says, with a `bus_bits` m_axi and burst
    engines for `n_loads` loaded and `n_stores` stored arrays."""
    res: dict[str, dict[str, int]] = {}
    op_counts: dict[str, int] = {}
    ops: dict[str, int] = {}
    built: set = set()
    stable = _stable_vars(kernel)
    for op in sched.ops():
        op_counts[op.kind] = op_counts.get(op.kind, 0) + 1
        key = _shared_key(op, stable)
        if key is not None:
            if key in built:
                continue
            built.add(key)
        _add(ops, lut=op.cost.lut, ff=op.cost.ff, dsp=op.cost.dsp)
    res["operators"] = {"lut": ops.get("lut", 0), "ff": ops.get("ff", 0), "dsp": ops.get("dsp", 0)}
    res["registers"] = {"ff": sum(sched.registers.values())}
    res["chain_registers"] = {"ff": sched.chain_ff}
    res["fsm"] = {"lut": sched.fsm_states, "ff": sched.fsm_states}
    res["pipeline_control"] = {"lut": sched.pipeline_stages, "ff": sched.pipeline_stages}
    mux = sum(
        tables.mux_luts(sched.registers[name], n) for name, n in sched.register_writers.items() if n > 1
    )
    ram_res: dict[str, int] = {"lut": 0, "ff": 0, "bram18": 0}
    rams = {}
    buffer_ports = []
    dynamic: dict[str, list[ScheduledOp]] = {}
    loads_of: dict[str, int] = {}
    for op in sched.ops():
        if op.bank_dynamic:
            dynamic.setdefault(op.array, []).append(op)
        if op.kind == "load":
            loads_of[op.array] = loads_of.get(op.array, 0) + 1
    for name, ram in sched.rams.items():
        # A cyclic-partitioned array is F RAMs of the bank geometry (what the built-in RTL
        # builds): the stacked-depth read muxes, write decodes and access-site muxes belong to
        # each bank, sized by the bank's depth and width. The schedule puts the sites of U
        # unrolled copies whose banks it can tell in U different banks, so each bank's ports
        # serve sites / F of them. An access whose bank is only known at run time (`a[k + m, j]`
        # of a partitioned `a`: the bank follows j) may reach every bank: each bank's port
        # muxes it in (the accesses of one frame share that port, `ports.PortBinder.reserve` of the schedule), and a load
        # selects its word among the F banks' read data.
        f = ram.banks
        dyn = dynamic.get(name, [])
        if f > 1:
            g = bank_geometry(ram, bus_bits)
            cost, depth, width = tables.ram_cost(g.depth, g.width), g.depth, g.width
        else:
            cost, depth, width = ram.cost, ram.depth, ram.width
        sites = math.ceil((ram.sites - len(dyn)) / f)
        ports = min(2, max(1, sites + (1 if dyn else 0)))
        loads = loads_of.get(name, 0) - sum(1 for op in dyn if op.kind == "load")
        read_ports = min(2, math.ceil(loads / f) + (1 if any(op.kind == "load" for op in dyn) else 0))
        _add(
            ram_res,
            lut=f * (cost.lut + tables.bram_mux_luts(cost, ports, ports)),
            ff=f * tables.ram_read_ff(cost, read_ports if ram.kind != "rom" else 0),
            bram18=f * cost.bram18,
        )
        if sites > 2:
            mux += f * 2 * tables.mux_luts(_abits(depth) + width, math.ceil(sites / 2))
        if dyn:  # address (and, for stores, data) of each bank's shared port; + the engine's
            bits = _abits(depth) + (width if any(op.kind == "store" for op in dyn) else 0)
            mux += f * tables.mux_luts(bits, len(dyn) + 1)
            mux += sum(tables.mux_luts(width, f) for op in dyn if op.kind == "load")
        if ram.kind == "buffer":
            buffer_ports += [(_abits(depth), width)] * f
        rams[ram.name] = {
            "array": name,
            "kind": ram.kind,
            "impl": cost.impl,
            "depth": ram.depth,
            "width": ram.width,
            "bram18": f * cost.bram18,
            "lut": f * cost.lut,
            "sites": ram.sites,
            **({"banks": f, "bank_depth": depth, "bank_width": width} if f > 1 else {}),
        }
    res["muxes"] = {"lut": mux}
    res["rams"] = ram_res
    res["shell"] = tables.shell_resources(register_map(kernel), n_loads, n_stores, buffer_ports, bus_bits)
    return Resources(res, rams, op_counts)


def _abits(n: int) -> int:
    return max(1, math.ceil(math.log2(max(2, n))))


def _stable_vars(kernel: ir.Kernel) -> frozenset[str]:
    """Variables no assignment statement writes (loop variables, scalar arguments): one
    register each, whose value an expression over them reads wherever it occurs."""
    assigned = {s.var for s in ir.walk_stmts(kernel.body) if isinstance(s, ir.Assign)}
    names = {s.var for s in ir.walk_stmts(kernel.body) if isinstance(s, ir.For)}
    names |= {p.name for p in kernel.scalar_params}
    return frozenset(names - assigned)


def _shared_key(op: Any, stable: frozenset[str]) -> tuple | None:
    """The key under which the datapath builds `op` once, or None when it is its own.

    The built-in RTL emits one wire per distinct expression over the same operands
    (partition.rtl.datapath, `wire`/`at` memoise by text), and synthesis merges equal cells
    on equal inputs likewise (yosys opt_merge; Vivado the same): an operation on constants
    and on variables that are only loop counters or arguments is one operator however often
    it occurs. That is what unrolling repeats: every copy of the body recomputes the
    loop-invariant part of its indices (`i * W` of `a[i, j + m]`), and a store to the
    element a load of the same statement read recomputes the address. Operations reading
    an array or an assigned variable keep one operator each (their operands differ by
    cycle or by copy)."""
    node = op.node
    if isinstance(node, ir.Stmt) or op.array is not None:
        return None
    exprs = node if isinstance(node, tuple) else (node,)
    for e in exprs:
        if not isinstance(e, ir.Expr):
            return None
        for x in ir.walk_expr(e):
            if isinstance(x, ir.Load) or (isinstance(x, ir.Var) and x.name not in stable):
                return None
    key = (op.kind, op.bits, node, op.cost)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _add(acc: dict[str, int], **vals: int) -> None:
    for k, v in vals.items():
        acc[k] = acc.get(k, 0) + int(v)
