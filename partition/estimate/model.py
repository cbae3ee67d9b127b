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
store (bursts out of the buffers). The cycles are counted here, the resources by
`partition.estimate.resources` from the same schedule.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from partition import ir
from partition.boards import RESOURCES, Board
from partition.errors import PartitionError
from partition.estimate import lengths, tables
from partition.estimate.resources import SOURCES, count_resources
from partition.estimate.schedule import (
    KernelSchedule,
    burst_count,
    control_cycles,
    schedule_kernel,
    stream_beats,
    transfer_cycles,
)

FORMAT = "partition-estimate/1"
_FLOAT_KINDS = {"fadd", "fsub", "fmul", "fdiv", "fcmp", "fneg", "fabs", "itof", "ftoi", "fext", "ftrunc"}
_FLOAT_KINDS |= set(ir.MATH_FUNCS)


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


def _transfers(kernel: ir.Kernel, bus_bits: int, rd_lat: int, wr_lat: int) -> list[dict[str, Any]]:
    """The array transfers of one call, array by array: phase (load, store, stream-in,
    stream-out), bytes, bursts and cycles, with a `bus_bits` m_axi and DDR latencies
    `rd_lat`/`wr_lat`."""
    bus_bytes = bus_bits // 8
    dma = (("load", ("in", "inout"), rd_lat), ("store", ("out", "inout"), wr_lat))
    transfers = []
    for p in kernel.arrays:
        if p.tiled:  # moved a tile at a time inside compute (its copies' cycles are compute's)
            continue
        what = {"array": p.name}
        if p.stream:  # an AXI-Stream port of a chain: one 64-bit beat a cycle, no address phase
            phase = "stream-in" if p.direction == "in" else "stream-out"
            c = stream_beats(p.nbytes)
            transfers.append({**what, "phase": phase, "bytes": p.nbytes, "bursts": 0, "cycles": c})
            continue
        moved = lengths.moved_bytes(kernel, p)
        for phase, directions, latency in dma:
            if p.direction in directions:
                c = transfer_cycles(moved, bus_bytes, latency)
                parts = burst_count(moved, bus_bytes)
                transfers.append({**what, "phase": phase, "bytes": moved, "bursts": parts, "cycles": c})
    return transfers


def estimate_kernel(
    kernel: ir.Kernel,
    board: Board,
    *,
    array_banks: dict[str, int] | None = None,
    sequential: frozenset[str] = frozenset(),
    bus_bits: int | None = None,
    schedule: KernelSchedule | None = None,
    typical: ir.Kernel | None = None,
) -> Estimate:
    """Model estimate of one call of `kernel` on `board` (variant "base").

    `array_banks`/`sequential` are the schedule's variant knobs (`schedule_kernel`'s
    `banks`/`sequential`) and `bus_bits` the m_axi width (default: the board's
    kernel_axi_bits); partition.estimate.variants sets them and names the variant.
    `schedule`: the schedule of `kernel` with those knobs when the caller has made it
    already (the RTL backend, whose schedule tells its datapath builder); it is not made
    again. `typical`: the kernel a typical call runs, when the variant made it from
    `lengths.typical_loops` of the kernel before transforming it (default: of `kernel`)."""
    if bus_bits is None:
        bus_bits = int(board.interface["kernel_axi_bits"])
    latency = ddr_latency(board)

    def scheduled(k: ir.Kernel) -> KernelSchedule:
        return schedule_kernel(
            k,
            board.family,
            board.pl_mhz,
            bus_bits=bus_bits,
            banks=array_banks,
            sequential=sequential,
            ddr_latency=latency,
        )

    sched = schedule if schedule is not None else scheduled(kernel)
    notes = list(sched.notes)
    timed = sched
    if kernel.lengths:  # run-time lengths: a call at the typical length (partition.estimate.lengths)
        timed = scheduled(typical if typical is not None else lengths.typical_loops(kernel))
        notes.append(lengths.note(kernel) or "")

    # ---- cycles
    rd_lat, wr_lat = latency
    transfers = _transfers(kernel, bus_bits, rd_lat, wr_lat)
    load_cycles = sum(t["cycles"] for t in transfers if t["phase"] in ("load", "stream-in"))
    store_cycles = sum(t["cycles"] for t in transfers if t["phase"] in ("store", "stream-out"))
    copies = [s for s in ir.walk_stmts(kernel.body) if isinstance(s, ir.Copy)]
    n_loads = sum(1 for t in transfers if t["phase"] == "load") + sum(s.direction == "in" for s in copies)
    n_stores = sum(1 for t in transfers if t["phase"] == "store") + sum(s.direction == "out" for s in copies)
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
    cycles = control + load_cycles + init_cycles + timed.compute_cycles + store_cycles

    # ---- resources
    hw = count_resources(kernel, sched, bus_bits, n_loads, n_stores)
    totals = hw.totals()

    if any(k in _FLOAT_KINDS for k in hw.operators):
        notes.append(
            "floating point: costed with Vitis HLS operator latencies (HLS path only; the built-in RTL "
            "backend does not build floating point yet)"
        )
    notes.append(
        f"array buffers assumed page-aligned (pynq.allocate), {bus_bits}-bit AXI, DDR latency "
        f"{rd_lat}/{wr_lat} cycles (read/write) from the board file"
    )
    if copies:
        notes.append(
            f"tiles move through DDR at one {bus_bits}-bit beat a cycle after each burst's latency: "
            f"{bus_bits // 8 * board.pl_mhz:,.0f} MB/s assumed each way at {board.pl_mhz:g} MHz "
            "(the board file's clock and latencies; a copy does not overlap the computation)"
        )

    breakdown = {
        "control_cycles": control,
        "load_cycles": load_cycles,
        "init_cycles": init_cycles,
        "compute_cycles": timed.compute_cycles,
        "store_cycles": store_cycles,
        "transfers": transfers,
        "resources": {k: dict(sorted(v.items())) for k, v in sorted(hw.parts.items())},
        "rams": dict(sorted(hw.rams.items())),
        "operators": dict(sorted(hw.operators.items())),
        "fsm_states": sched.fsm_states,
        "budget_ns": round(sched.budget_ns, 4),
        "sources": {**SOURCES, "clock": tables.CLOCK_UNCERTAINTY_SOURCE},
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
        for label, ls in timed.loops.items()
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
        kernel,
        board.family,
        board.pl_mhz,
        bus_bits=int(board.interface["kernel_axi_bits"]),
        ddr_latency=ddr_latency(board),
    )


def ddr_latency(board: Board) -> tuple[int, int]:
    """Cycles from a burst's address to its first read beat, and from its last write beat to
    the response, on `board` (its board file's figures)."""
    return int(board.interface["ddr_read_latency_cycles"]), int(board.interface["ddr_write_latency_cycles"])
