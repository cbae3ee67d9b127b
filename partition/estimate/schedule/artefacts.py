"""The schedule as the estimator and the RTL backend read it: `KernelSchedule` and its parts.

A kernel's schedule is a tree of statement schedules (`StmtSchedule`) following the IR's
statement paths, loops (`LoopSchedule`: II, depth, cycles) and, per statement, its
operation instances (`ScheduledOp`: issue and ready cycle, bound table entry). These are
the scheduler's output only: the data types, apart from the code that fills them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from partition.estimate.schedule.memory import RamInfo
from partition.estimate.tables import OpCost


@dataclass
class ScheduledOp:
    """One operation instance. Cycles are relative to the start of its region: the
    statement (outside pipelines) or one iteration of the pipelined loop."""

    node: Any  # the IR expression or statement
    kind: str
    bits: int
    cost: OpCost
    cycle: int  # issue cycle
    start_ns: float  # operand arrival within the issue cycle
    ready_cycle: int
    ready_ns: float
    array: str | None = None
    # an access of a partitioned array whose bank the schedule cannot fix (it depends on a
    # loop-invariant symbol or is unknown): the datapath selects among the banks at run time
    bank_dynamic: bool = False


@dataclass
class LoopSchedule:
    label: str
    path: tuple[int, ...]
    var: str
    trip: int
    pipelined: bool
    ii: int  # pipelined: initiation interval; FSM loop: cycles per iteration
    depth: int  # pipelined: body schedule length D; FSM loop: body cycles
    cycles: int  # one execution of the loop (one entry)
    entries: int  # executions per call
    ii_reasons: dict[str, int] = field(default_factory=dict)
    body: list[StmtSchedule] = field(default_factory=list)
    # pipelined: each scalar carried from one iteration to the next -> cycles from its first
    # read to its new value (the recurrence it alone imposes on II)
    carried: dict[str, int] = field(default_factory=dict)


@dataclass
class StmtSchedule:
    path: tuple[int, ...]
    kind: str  # assign, store, return, if, for, break, continue
    stmt: Any
    start: int  # cycle offset in the enclosing sequence (FSM) or 0 (pipeline body)
    length: int
    ops: list[ScheduledOp] = field(default_factory=list)
    loop: LoopSchedule | None = None
    then: list[StmtSchedule] = field(default_factory=list)
    orelse: list[StmtSchedule] = field(default_factory=list)
    cond_cycles: int = 0


@dataclass
class KernelSchedule:
    kernel: str
    family: str
    clock_mhz: float
    budget_ns: float
    bus_bits: int
    body: list[StmtSchedule]
    loops: dict[str, LoopSchedule]
    compute_cycles: int
    rams: dict[str, RamInfo]
    registers: dict[str, int]  # scalar register -> bits
    register_writers: dict[str, int]  # scalar register -> assignment sites (mux inputs)
    fsm_states: int
    chain_ff: int  # registers holding intermediate values across cycles
    pipeline_stages: int  # sum of D over pipelined loops (valid bits)
    notes: list[str]

    def ops(self) -> list[ScheduledOp]:
        """Every operation instance (no sharing), in program order."""
        return all_ops(self.body)


def all_ops(stmts: list[StmtSchedule]) -> list[ScheduledOp]:
    """Every operation instance of these statements and all they contain, in program order."""
    out: list[ScheduledOp] = []
    for s in stmts:
        out.extend(s.ops)
        if s.loop is not None:
            out.extend(all_ops(s.loop.body))
        out.extend(all_ops(s.then))
        out.extend(all_ops(s.orelse))
    return out
