"""Kernel IR -> the Verilog-2001 IP core of the built-in RTL backend.

`generate_rtl(kernel, board)` writes the whole IP: the verified shells (AXI-Lite control
block laid out by the register map, one AXI4 burst read engine and one write engine muxed
across the arrays), a RAM per array buffer and local array (ROMs initialised), and the
kernel-specific top `<task>.v` with the phase FSM and the compute FSM/datapath.

The compute part implements the estimator's static schedule
(`partition.estimate.schedule`, the single source of operator latencies and schedule
rules) state for state, so the estimated cycle count is what simulation measures:

* One call: IDLE -> START (1) -> per in/inout array a load phase (1 + its bursts) ->
  re-initialisation of written local arrays with an initial value (ceil(depth / 2)) ->
  compute -> POST (1, starts the first store) -> per out/inout array a store phase
  (1 + its bursts) -> DONE (1). That is `control_cycles` + load + init + compute + store.
* A statement outside pipelines is `length` states of its region; an FSM loop is its
  bounds states (the last one also tests the first iteration), then per iteration the
  body and one test/increment state; a pipelined loop is its bounds states and one state
  in which iterations issue every II cycles and drain through D stages (valid bits).
* Values are chained within a cycle and registered across cycles exactly as scheduled
  (see `partition.rtl.datapath`).

Implementation variants (partition.estimate.variants) are built as their estimate assumes:
the loops a variant leaves sequential become FSM loops (the schedule is told them), and the
loops it unrolls are unrolled in the IR first (`unroll_kernel`), so the simulated cycles are
again the variant's estimate. A wide burst variant (`wide64`, `wide128`) gets engines and
an m_axi_gmem of its bus width: the schedule packs the buffers into words of that width,
so one engine beat is one RAM word (elements wider than the bus, int64 on the 32-bit bus,
take two beats a word).

An array a variant cyclic-partitions by F (`unrollU`, `unrollU_wideW`) is F dual-port RAMs:
bank b holds the elements i with i mod F == b (`bank_geometry`: a buffer's bank packs the
elements of one bus beat that land in it, so a beat is one word of every bank when it holds
at least F elements, and part of the banks otherwise; a local array or ROM, one element a
word). The schedule (told the banks) gives every access a port and a bank frame: accesses
sharing a cycle on one port are in one frame with different residues, so they reach
different banks whatever the loop-invariant part of their index (fir_q15's x[n - k - m]);
the RTL drives port p of the bank the index's low bits select (the only bank, for a static
frame) and picks the read data back by the same bits one cycle later. The load phase
scatters each beat into the banks, the store phase gathers it from them (a registered bank
group selects the read data when a beat spans part of the banks), and the re-initialisation
of a partitioned local writes its even and odd elements through ports a and b of their
banks, two elements a cycle as in the base variant; so transfer and init cycles are the
base formulas and a call again takes the variant's estimate.

AXI-Stream chains: a streamed array (`ir.Param.stream`) has no pointer register and moves
through an AXI-Stream engine of its own instead of the burst engines: an input through a slave
(`<arg>_TDATA[63:0]`, `_TVALID`, `_TREADY`, the ports of a Vitis HLS hls::stream<uint64_t>)
that writes each 64-bit beat into the buffer as it is taken, an output through a master that
reads the buffer beat by beat after compute (the last beat zero padded beyond the array). The
beat layout is the HLS C++'s (`partition_ops.h` pack_beat: the array's DDR bytes,
little-endian); a beat is two words of a 32-bit buffer (ports a and b), one of a 64-bit one,
half of a 128-bit one. A phase is its setup cycle plus one cycle a beat
(`partition.estimate.schedule.stream_beats`), plus one for every cycle the other side pauses.
A kernel without an array that is not streamed has no m_axi_gmem at all (as in Vitis HLS). A
variant that cyclic-partitions a streamed array scatters (gathers) each beat into (from) the
banks as the burst engines do when its m_axi is 64 bits wide (a beat is a bus word); with
another width it is built as base (`RtlVariantUnsupported`).

Integer kernels only: `RtlUnsupported` (a PartitionError) names what cannot be built.

The backend in parts: `support` (what it builds, `RtlUnsupported`), `design` (the one
schedule with its recorder, netlist, FSM and RAM ports), `recorder` (the scheduled values
as nodes), `datapath` (the nodes as Verilog wires and registers), `fsm` (states and the
compute FSM), `rams` (RAM ports and banks), `streams` (AXI-Stream engines' ports),
`phases` (the phase FSM, burst engines' ports, initialisation), `verilog` (naming the
states and rendering the files) and `shells` (the verified interface shells).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from partition import ir
from partition.boards import Board
from partition.errors import PartitionError
from partition.estimate import BASE, Directives, KernelSchedule, estimate_variant
from partition.estimate.variants import build_kernel
from partition.regmap import RegisterMap
from partition.rtl import shells
from partition.rtl.design import Design
from partition.rtl.fsm import State
from partition.rtl.phases import build_phases
from partition.rtl.support import RtlVariantUnsupported, check
from partition.rtl.verilog import emit

BUS_BITS = 32  # m_axi data width of the base variant (every board's kernel_axi_bits)


@dataclass
class RtlKernel:
    """The generated IP: `files` (relative path -> bytes), its top module and the Verilog
    sources in compile order (top last)."""

    task: str
    top: str
    sources: list[str]
    files: dict[str, bytes]
    schedule: KernelSchedule = field(repr=False)
    regmap: RegisterMap = field(repr=False)
    variant: str = BASE  # the implementation variant built
    estimate_cycles: int | None = None  # that variant's estimated cycles per call
    data_bits: int = BUS_BITS  # m_axi_gmem data width
    gmem: bool = True  # whether it has m_axi_gmem (some array is not streamed)
    streams: dict[str, str] = field(default_factory=dict)  # AXI-Stream port -> "in" or "out"
    built: ir.Kernel | None = field(default=None, repr=False)  # the IR built (the variant's: unrolled, tiled)


def generate_rtl(kernel: ir.Kernel, board: Board, directives: Directives | None = None) -> RtlKernel:
    """The IP core of `kernel` for `board`: Verilog files, register map JSON and C header.

    `directives`: the implementation variant to build (None: base). Raises
    RtlUnsupported (a PartitionError) for kernels the backend cannot build, and
    RtlVariantUnsupported for a variant it cannot build (an m_axi width other than 32, 64
    or 128 bits)."""
    d = directives or Directives(BASE)
    check(kernel)
    bus = d.bus(board)
    if bus not in shells.ENGINE_DATA_BITS:
        raise RtlVariantUnsupported(
            f"kernel {kernel.name}: variant {d.name} has a {bus}-bit m_axi; the built-in RTL's burst "
            f"engines move {', '.join(map(str, shells.ENGINE_DATA_BITS))}-bit words"
        )
    built = build_kernel(kernel, board, d) if d.unroll or d.tile or d.permute else kernel
    State.reset()
    design = Design(built, board, frozenset(d.sequential), bus, dict(d.partition))
    try:  # the estimate of the variant, from the schedule the design was built on
        est: int | None = estimate_variant(kernel, board, d, schedule=design.sched).cycles
    except PartitionError:
        est = None
    files, sources = emit(design, build_phases(design), d.name, est)
    k = design.k
    return RtlKernel(
        k.name, k.name, sources, files, design.sched, design.rmap, d.name, est, bus,
        gmem=any(not p.stream for p in k.arrays), streams={p.name: p.direction for p in k.arrays if p.stream},
        built=k,
    )  # fmt: skip
