"""The `Estimate` artefact and the model estimator `estimate_kernel`.

An estimate says what one call of a kernel costs on a board: cycles from ap_start
to ap_done, the clock, per-loop II/depth, and LUT/FF/DSP/BRAM18. The model
estimate is computed from the static schedule (`partition.estimate.schedule`, the
same schedule the RTL backend implements), the per-operation tables
(`partition.estimate.tables`) and the board's interface figures. Other sources
(yosys on the generated RTL, Vitis csynth) produce the same artefact with
`source` set accordingly.

One call = control (phase FSM) + load (bursts into the array buffers) + init
(re-initialising written local arrays that have an initial value) + compute +
store (bursts out of the buffers).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from partition import ir
from partition.boards import RESOURCES, Board
from partition.errors import PartitionError
from partition.estimate import tables
from partition.estimate.schedule import (
    KernelSchedule,
    ScheduledOp,
    bank_geometry,
    bursts,
    control_cycles,
    schedule_kernel,
    stream_beats,
    transfer_cycles,
)
from partition.regmap import register_map

FORMAT = "partition-estimate/1"
_FLOAT_KINDS = {"fadd", "fsub", "fmul", "fdiv", "fcmp", "fneg", "fabs", "itof", "ftoi", "fext", "ftrunc"}

PIPELINE_CONTROL_SOURCE = (
    "one valid flip-flop and one enable LUT per pipeline stage (stall-free static pipeline of the "
    "microarchitecture)"
)
REGISTER_SOURCE = "scalars are registers (microarchitecture): one FF per bit"
CHAIN_SOURCE = (
    "values live across a cycle boundary of their statement or pipeline are held in registers: bits x "
    "cycles between ready and last use"
)


@dataclass
class Estimate:
    """Cost of one call of a kernel (one variant) on one board."""

    task: str
    cycles: int  # one call, ap_start to ap_done
    clock_mhz: float
    lut: int
    ff: int
    dsp: int
    bram18: int
    variant: str = "base"
    loops: dict[str, dict] = field(default_factory=dict)  # label -> trip, ii, depth, pipelined, cycles
    source: str = "model"  # model, yosys, vitis
    breakdown: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return self.cycles / (self.clock_mhz * 1e6)

    @property
    def resources(self) -> dict[str, int]:
        return {r: getattr(self, r) for r in RESOURCES}

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["format"] = FORMAT
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Estimate:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise PartitionError(f"not a {FORMAT} estimate; regenerate it with partition")
        kwargs = {k: v for k, v in data.items() if k != "format"}
        missing = [k for k in ("task", "cycles", "clock_mhz", *RESOURCES) if k not in kwargs]
        if missing:
            raise PartitionError(f"estimate is missing {', '.join(missing)}; regenerate it with partition")
        unknown = sorted(set(kwargs) - {f for f in cls.__dataclass_fields__})
        if unknown:
            raise PartitionError(f"estimate has unknown field(s) {', '.join(unknown)}")
        return cls(**kwargs)


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


def estimate_kernel(
    kernel: ir.Kernel,
    board: Board,
    *,
    array_banks: dict[str, int] | None = None,
    sequential: frozenset[str] = frozenset(),
    bus_bits: int | None = None,
    schedule: KernelSchedule | None = None,
) -> Estimate:
    """Model estimate of one call of `kernel` on `board` (variant "base").

    `array_banks`/`sequential` are the schedule's variant knobs (`schedule_kernel`'s
    `banks`/`sequential`) and `bus_bits` the m_axi width (default: the board's
    kernel_axi_bits); partition.estimate.variants sets them and names the variant.
    `schedule`: the schedule of `kernel` with those knobs when the caller has made it
    already (the RTL backend, whose schedule tells its datapath builder); it is not made
    again."""
    if bus_bits is None:
        bus_bits = int(board.interface["kernel_axi_bits"])
    sched = (
        schedule
        if schedule is not None
        else schedule_kernel(
            kernel, board.family, board.pl_mhz, bus_bits=bus_bits, banks=array_banks, sequential=sequential
        )
    )
    notes = list(sched.notes)

    # ---- cycles
    bus_bytes = bus_bits // 8
    rd_lat = int(board.interface["ddr_read_latency_cycles"])
    wr_lat = int(board.interface["ddr_write_latency_cycles"])
    dma = (("load", ("in", "inout"), rd_lat), ("store", ("out", "inout"), wr_lat))
    transfers = []
    for p in kernel.arrays:
        what = {"array": p.name}
        if p.stream:  # an AXI-Stream port of a chain: one 64-bit beat a cycle, no address phase
            phase = "stream-in" if p.direction == "in" else "stream-out"
            c = stream_beats(p.nbytes)
            transfers.append({**what, "phase": phase, "bytes": p.nbytes, "bursts": [], "cycles": c})
            continue
        for phase, directions, latency in dma:
            if p.direction in directions:
                c = transfer_cycles(p.nbytes, bus_bytes, latency)
                parts = bursts(p.nbytes, bus_bytes)
                transfers.append({**what, "phase": phase, "bytes": p.nbytes, "bursts": parts, "cycles": c})
    load_cycles = sum(t["cycles"] for t in transfers if t["phase"] in ("load", "stream-in"))
    store_cycles = sum(t["cycles"] for t in transfers if t["phase"] in ("store", "stream-out"))
    n_loads = sum(1 for t in transfers if t["phase"] == "load")
    n_stores = sum(1 for t in transfers if t["phase"] == "store")
    control = control_cycles(len(transfers))
    init_cycles = 0
    for a in kernel.locals:
        ram = sched.rams[a.name]
        if a.init is not None and ram.kind == "local":
            init_cycles += math.ceil(ram.depth / 2)
            notes.append(
                f"local array {a.name} has an initial value and is written: it is re-initialised at the "
                f"start of each call ({math.ceil(ram.depth / 2)} cycles, both RAM ports)"
            )
    cycles = control + load_cycles + init_cycles + sched.compute_cycles + store_cycles

    # ---- resources
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
        # muxes it in (the accesses of one frame share that port, `_reserve_port`), and a load
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
    totals = {r: sum(v.get(r, 0) for v in res.values()) for r in RESOURCES}

    if any(k in _FLOAT_KINDS for k in op_counts):
        notes.append(
            "floating point: costed with Vitis HLS operator latencies (HLS path only; the built-in RTL "
            "backend does not build floating point yet)"
        )
    notes.append(
        f"array buffers assumed page-aligned (pynq.allocate), {bus_bits}-bit AXI, DDR latency "
        f"{rd_lat}/{wr_lat} cycles (read/write) from the board file"
    )

    breakdown = {
        "control_cycles": control,
        "load_cycles": load_cycles,
        "init_cycles": init_cycles,
        "compute_cycles": sched.compute_cycles,
        "store_cycles": store_cycles,
        "transfers": transfers,
        "resources": {k: dict(sorted(v.items())) for k, v in sorted(res.items())},
        "rams": dict(sorted(rams.items())),
        "operators": dict(sorted(op_counts.items())),
        "fsm_states": sched.fsm_states,
        "budget_ns": round(sched.budget_ns, 4),
        "sources": {
            "operators": "partition.estimate.tables (per-entry sources; tables.table_entries())",
            "registers": REGISTER_SOURCE,
            "chain_registers": CHAIN_SOURCE,
            "fsm": tables.FSM_SOURCE,
            "pipeline_control": PIPELINE_CONTROL_SOURCE,
            "muxes": tables.MUX_SOURCE,
            "rams": f"{tables.BRAM18_SOURCE}; {tables.LUTRAM_SOURCE}; {tables.BRAM_MUX_SOURCE}",
            "shell": tables.SHELL_SOURCE,
            "clock": tables.CLOCK_UNCERTAINTY_SOURCE,
        },
    }
    loops = {
        label: {
            "trip": ls.trip,
            "ii": ls.ii,
            "depth": ls.depth,
            "pipelined": ls.pipelined,
            "cycles": ls.cycles,
            "entries": ls.entries,
            **({"ii_reasons": dict(sorted(ls.ii_reasons.items()))} if ls.pipelined else {}),
        }
        for label, ls in sched.loops.items()
    }
    return Estimate(
        task=kernel.name,
        cycles=cycles,
        clock_mhz=board.pl_mhz,
        lut=totals["lut"],
        ff=totals["ff"],
        dsp=totals["dsp"],
        bram18=totals["bram18"],
        loops=loops,
        breakdown=breakdown,
        notes=notes,
    )


def schedule_for_board(kernel: ir.Kernel, board: Board) -> KernelSchedule:
    """The schedule `estimate_kernel` uses for this board (for reports and the RTL backend)."""
    return schedule_kernel(
        kernel, board.family, board.pl_mhz, bus_bits=int(board.interface["kernel_axi_bits"])
    )
