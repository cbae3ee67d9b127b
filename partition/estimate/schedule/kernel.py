"""`schedule_kernel`: the static schedule of a whole kernel, the entry point of this package.

It sets up the kernel's context (RAMs, banks, types), schedules the body statement by
statement (`loops.Scheduler`), and finishes what needs the whole schedule: the access
sites of each RAM, the lanes of packed input buffers that compute never reads, and the
scalar registers with their writers.
"""

from __future__ import annotations

from typing import Any

from partition import ir
from partition.estimate import tables
from partition.estimate.schedule.analysis import dtype_bits
from partition.estimate.schedule.artefacts import KernelSchedule, all_ops
from partition.estimate.schedule.context import KernelContext
from partition.estimate.schedule.loops import Scheduler


def schedule_kernel(
    kernel: ir.Kernel,
    family: str,
    clock_mhz: float,
    bus_bits: int = 32,
    emitter: Any = None,
    *,
    banks: dict[str, int] | None = None,
    sequential: frozenset[str] = frozenset(),
    ddr_latency: tuple[int, int] | None = None,
) -> KernelSchedule:
    """The static schedule of `kernel` on a device `family` at `clock_mhz`.

    `emitter` (optional) is told every scheduled value (see the package docstring).
    Implementation variants (partition.estimate.variants) change two things, the
    defaults being the base microarchitecture: `banks` cyclic-partitions an array into F
    banks of RAM_PORTS ports each (accesses share a cycle only on different banks, see
    `ports.PortBinder.reserve`), and the innermost loops labelled
    in `sequential` run as FSM loops instead of pipelines. `ddr_latency` (read, write
    cycles of a burst, the board's) is what a tiled kernel's copies (`ir.Copy`) cost; a
    kernel with copies needs it."""
    tables.check_family(family)
    ctx = KernelContext(kernel, family, clock_mhz, bus_bits, emitter, banks, sequential, ddr_latency)
    sch = Scheduler(ctx)
    body, compute = sch.block(kernel.body, (), 1, "")
    for op in all_ops(body):
        if op.array is not None:
            ctx.rams[op.array].sites += 1
    _narrow_read_only_buffers(ctx)
    registers: dict[str, int] = {}
    scalar_params = {p.name for p in kernel.scalar_params}
    for name, dt in sorted(ctx.var_types.items()):
        if name in scalar_params and ctx.writers.get(name, 0) == 0:
            continue  # read straight from its AXI-Lite register
        registers[name] = min(dtype_bits(dt), ctx.widths.var_bits.get(name, dtype_bits(dt)) or 1)
    return KernelSchedule(
        kernel=kernel.name,
        family=family,
        clock_mhz=clock_mhz,
        budget_ns=ctx.budget,
        bus_bits=bus_bits,
        body=body,
        loops=sch.loops,
        compute_cycles=compute,
        rams=ctx.rams,
        registers=registers,
        register_writers={k: v for k, v in sorted(ctx.writers.items()) if k in registers},
        fsm_states=sch.states,
        chain_ff=ctx.chain_ff,
        pipeline_stages=sch.pipeline_stages,
        notes=list(ctx.notes),
    )


def _narrow_read_only_buffers(ctx: KernelContext) -> None:
    """Cost an input buffer by the lanes of its packed words that compute reads.

    The load engine fills whole bus words, but nothing reads the bits of the lanes the
    kernel never selects (`a[4 * i]` of int16 reads only lane 0 of each 32-bit word), and
    synthesis removes storage whose output is unused: yosys `opt_mem` / Vivado trim the
    RAM's width to the bits read. An array the kernel also stores to is read whole by
    the write engine and keeps its width."""
    for p in ctx.kernel.arrays:
        if p.tiled:
            continue
        lanes = ctx.lanes.get(p.name)
        ram = ctx.rams[p.name]
        if p.direction != "in" or lanes is None or ram.per_word == 1 or len(lanes) == ram.per_word:
            continue
        bits = len(lanes) * ram.elem_bits
        ram.cost = tables.ram_cost(ram.depth, bits)
        ctx.note(
            f"{p.name}: compute reads {len(lanes)} of the {ram.per_word} elements packed in each "
            f"{ram.width}-bit word; synthesis keeps only those {bits} bits of its buffer"
        )
