"""The static schedule of a kernel: the one model the estimator and the RTL backend share.

`schedule_kernel(kernel, family, clock_mhz)` assigns every operation of the IR a
cycle (and a delay within it), following the kernel microarchitecture:

* Scalars are registers; arrays are RAMs with a synchronous read (1 cycle) and two
  ports. Array parameters get a local buffer (`<name>_buf`); elements narrower
  than the AXI bus are packed into bus words so the burst engines move one word per
  cycle, and a load picks its element out of the word with a multiplexer.
* An array a variant cyclic-partitions into F banks (`banks`) has two ports per bank.
  Each port serves, in one cycle (pipeline slot), accesses of one bank frame with
  different residues: the frame is what their indices share that the schedule cannot
  see (loop-invariant variables times a coefficient that is no multiple of F, the
  iteration count in a pipeline), the residue the known rest mod F, so two accesses on
  one port never reach one bank. An index the schedule cannot read takes a port of
  every bank. (Counting 2F ports per array, as before, let one iteration's copies put
  more than two accesses on one bank in a cycle: `p[i]` read four times by each copy.)
* Operations chain within a cycle while the accumulated delay stays within the
  clock budget (period minus 12.5 % uncertainty); otherwise a register is inserted.
* An innermost `For` is pipelined: depth D = its body's schedule length, II = max(1,
  recurrence, memory ports, non-pipelined units, RAW through an array); it takes
  (trip - 1) * II + D + 1 cycles. Its `if`s are if-converted (both sides scheduled,
  merged values selected, stores predicated).
* Other loops are FSM loops: trip * (1 + body) + 1 cycles. Statements outside
  pipelines are sequential states of at least one cycle; an `if` there costs one
  cycle for the condition plus its longer branch.
* Break/Continue are treated conservatively: loops run their full `trip_max`. An
  innermost loop containing one is an FSM loop (it can leave or skip mid-body), not a
  pipeline.
* Equal subexpressions within one statement are computed once: the first
  occurrence carries the `ScheduledOp`, equal (==) expression nodes map to it.
* No resource sharing: every operation instance is its own unit.

The call's phases (load, compute, store, done) and their control cycles are the
constants below; `bursts`/`transfer_cycles` give the AXI burst timing.

An optional `emitter` (`schedule_kernel(..., emitter=...)`) is told about every value
the schedule creates, with its cycle, so a backend (the built-in RTL) builds exactly the
scheduled datapath: `emitter.region(path, role)` returns a per-region listener (or None)
whose `const/var/op/load/store/assign/ret/condition` methods see each event in program
order (see `region.Region`); loads and stores also get the port and the (frame, residue) bank
the schedule gave them. The estimator passes none.

Statement paths: a top-level statement i has path (i,); statement j of the body of
the loop at p has p + (j,); statement j of the then/else branch of the `if` at p has
p + (0, j) / p + (1, j).

The package: `kernel.schedule_kernel` (the entry point), `loops` (statements, FSM loops,
pipelines and their II), `region` (placing straight-line code in cycles), `operators`
(the table entry each operation binds to), `ports` (the RAM port and bank of each access),
`context` (per-kernel state), `analysis` (affine indices and jumps of the IR), `widths`
(the widths synthesis keeps of each operator),
`memory` (RAM and bank geometry), `phases` (the call's control and burst timing) and
`artefacts` (the schedule's data types).
"""

from partition.estimate.schedule.analysis import flat_affine, has_jumps
from partition.estimate.schedule.artefacts import KernelSchedule, LoopSchedule, ScheduledOp, StmtSchedule
from partition.estimate.schedule.kernel import schedule_kernel
from partition.estimate.schedule.memory import (
    OPAQUE,
    RAM_PORTS,
    BankGeometry,
    RamInfo,
    bank_geometry,
    ram_geometry,
)
from partition.estimate.schedule.phases import (
    BUFFER_ALIGNMENT,
    BURST_BOUNDARY,
    COMPUTE_ENTER_CYCLES,
    DONE_CYCLES,
    MAX_BURST_BEATS,
    START_CYCLES,
    STREAM_BITS,
    TRANSFER_SETUP_CYCLES,
    burst_count,
    bursts,
    control_cycles,
    stream_beats,
    transfer_cycles,
)

__all__ = [
    "BUFFER_ALIGNMENT",
    "BURST_BOUNDARY",
    "COMPUTE_ENTER_CYCLES",
    "DONE_CYCLES",
    "MAX_BURST_BEATS",
    "OPAQUE",
    "RAM_PORTS",
    "START_CYCLES",
    "STREAM_BITS",
    "TRANSFER_SETUP_CYCLES",
    "BankGeometry",
    "KernelSchedule",
    "LoopSchedule",
    "RamInfo",
    "ScheduledOp",
    "StmtSchedule",
    "bank_geometry",
    "burst_count",
    "bursts",
    "control_cycles",
    "flat_affine",
    "has_jumps",
    "ram_geometry",
    "schedule_kernel",
    "stream_beats",
    "transfer_cycles",
]
