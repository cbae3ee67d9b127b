"""A kernel's roofline on a board: the fewest cycles any implementation of it could take.

Why: a plan that says "fir on the FPGA, 98,443 cycles" does not say whether that is good. The
user's real alternative is the same loop compiled for the ARM, so a kernel far from what the
board allows may lose to it. The roofline says how far, and what bounds the kernel:

* DSP: every operation instance that binds DSP slices (`partition.estimate.tables`), counted
  over a typical call, occupies its slices for one cycle in a fully pipelined unit; the board's
  DSP budget (the plan's cap applied) can give no more slice-cycles per cycle than it has.
* memory: the bytes the call must move (each input array read once, each output written once,
  at the typical lengths) over one HP port at its full width (`hp_axi_bits`): the kernels have
  one m_axi bundle, and AXI reads and writes use separate channels, so the larger direction
  bounds it.
* recurrence: a value carried from one iteration of a pipelined loop to the next that cannot be
  reassociated: anything but an integer ``v = v op e`` reduction (add, sub, and, or, xor, min,
  max; wraparound arithmetic is associative), floats included (their order is Python's). One
  entry of the loop takes at least its iterations times the cycles from the value's read to its
  new value (measured on the base schedule). Only one entry is counted: whether entries chain
  through the value is not analysed, so this bound is weak for nests.

The bound is the largest of the three; `fraction` of a configuration is bound / its cycles.
Operators that need no DSP (LUT adders, comparators) and the LUT budget are not a bound here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from partition import ir
from partition.boards import Board
from partition.estimate import lengths
from partition.estimate.model import Estimate, schedule_for_board
from partition.estimate.schedule import KernelSchedule, StmtSchedule

_REASSOCIABLE = ("add", "sub", "and", "or", "xor", "min", "max")
_LIMITS = ("dsp", "memory", "recurrence")


@dataclass
class Roofline:
    """The bounds of one kernel on one board (cycles of one typical call)."""

    dsp_cycles: int
    memory_cycles: int
    recurrence_cycles: int
    dsp_budget: int
    port_bits: int
    read_bytes: int
    write_bytes: int
    dsp_ops: dict[str, int] = field(default_factory=dict)  # op kind -> executions per call
    recurrences: list[dict[str, Any]] = field(default_factory=list)

    @property
    def bound_cycles(self) -> int:
        return max(self.dsp_cycles, self.memory_cycles, self.recurrence_cycles)

    @property
    def limit(self) -> str:
        """Which bound is the roofline ("none" for a kernel that moves nothing and computes nothing)."""
        figures = dict(
            zip(_LIMITS, (self.dsp_cycles, self.memory_cycles, self.recurrence_cycles), strict=True)
        )
        best = max(figures.values())
        return "none" if best == 0 else next(k for k in _LIMITS if figures[k] == best)

    def why(self) -> str:
        """One phrase for reports: what the bound is made of."""
        if self.limit == "memory":
            moved = max(self.read_bytes, self.write_bytes)
            way = "read" if self.read_bytes >= self.write_bytes else "written"
            return f"memory: {moved:,} bytes {way} over one {self.port_bits}-bit HP port"
        if self.limit == "dsp":
            ops = ", ".join(f"{n:,} {k}" for k, n in sorted(self.dsp_ops.items()))
            return f"DSP: {ops} on {self.dsp_budget} DSP slices"
        if self.limit == "recurrence":
            r = max(self.recurrences, key=lambda r: r["cycles"])
            return (
                f"recurrence: {r['var']} in loop {r['loop']}, {r['cycles_per_iteration']} cycle(s) "
                f"per iteration x {r['iterations']:,}"
            )
        return "nothing to move or compute"

    def to_json(self) -> dict[str, Any]:
        return {
            "bound_cycles": self.bound_cycles,
            "limit": self.limit,
            "why": self.why(),
            "dsp_cycles": self.dsp_cycles,
            "memory_cycles": self.memory_cycles,
            "recurrence_cycles": self.recurrence_cycles,
            "dsp_budget": self.dsp_budget,
            "port_bits": self.port_bits,
            "read_bytes": self.read_bytes,
            "write_bytes": self.write_bytes,
            "dsp_ops": dict(sorted(self.dsp_ops.items())),
            "recurrences": self.recurrences,
        }


def roofline(kernel: ir.Kernel, board: Board, dsp_budget: int) -> Roofline:
    """The roofline of `kernel` (as translated, before any variant's transformation) on `board`
    with `dsp_budget` DSP slices available to it."""
    typical = lengths.typical_loops(kernel) if kernel.lengths else kernel
    sched = schedule_for_board(typical, board)
    slices: dict[str, int] = {}
    ops: dict[str, int] = {}
    for op, n in _executions(sched.body, 1):
        if op.cost.dsp > 0:
            ops[op.kind] = ops.get(op.kind, 0) + n
            slices[op.kind] = slices.get(op.kind, 0) + n * op.cost.dsp
    dsp_cycles = math.ceil(sum(slices.values()) / dsp_budget) if slices and dsp_budget > 0 else 0
    if slices and dsp_budget <= 0:
        dsp_cycles = 0  # no DSP at all: the operators are built in LUTs (not a bound here)
    read = sum(lengths.moved_bytes(kernel, p) for p in kernel.arrays if p.direction in ("in", "inout"))
    write = sum(lengths.moved_bytes(kernel, p) for p in kernel.arrays if p.direction in ("out", "inout"))
    port_bits = int(board.interface["hp_axi_bits"])
    memory_cycles = math.ceil(max(read, write) / (port_bits // 8))
    recurrences = _recurrences(sched, typical)
    return Roofline(
        dsp_cycles=dsp_cycles,
        memory_cycles=memory_cycles,
        recurrence_cycles=max([0, *(r["cycles"] for r in recurrences)]),
        dsp_budget=dsp_budget,
        port_bits=port_bits,
        read_bytes=read,
        write_bytes=write,
        dsp_ops=ops,
        recurrences=recurrences,
    )


def _executions(stmts: list[StmtSchedule], mult: int):
    """(operation instance, executions per call) of every operation under `stmts`, which run
    `mult` times a call. A loop's body runs entries x trip times (entries already count the
    loops around it); both sides of an `if` are counted (an upper bound on the work)."""
    for s in stmts:
        inner = mult
        if s.loop is not None:
            inner = s.loop.entries * s.loop.trip
            for op in s.ops:  # the loop's bounds and its counter: once per entry
                yield op, s.loop.entries
            yield from _executions(s.loop.body, inner)
            continue
        for op in s.ops:
            yield op, mult
        yield from _executions(s.then, mult)
        yield from _executions(s.orelse, mult)


def _recurrences(sched: KernelSchedule, kernel: ir.Kernel) -> list[dict[str, Any]]:
    """The carried values of pipelined loops that no reassociation can shorten, one entry each."""
    loops = {ls.path: ls for ls in sched.loops.values()}
    out = []
    for path, ls in sorted(loops.items()):
        if not ls.pipelined or not ls.carried:
            continue
        loop = _stmt_at(kernel.body, path)
        for var, cycles in sorted(ls.carried.items()):
            if isinstance(loop, ir.For) and _reduction(loop.body, var, kernel.scalars.get(var)):
                continue
            out.append(
                {
                    "loop": ls.label,
                    "var": var,
                    "cycles_per_iteration": cycles,
                    "iterations": ls.trip,
                    "cycles": cycles * ls.trip,
                }
            )
    return out


def _stmt_at(body: list[ir.Stmt], path: tuple[int, ...]) -> ir.Stmt | None:
    """The statement at a schedule path (see `partition.estimate.schedule`)."""
    s: ir.Stmt | None = None
    seq = body
    i = 0
    while i < len(path):
        if path[i] >= len(seq):
            return None
        s = seq[path[i]]
        i += 1
        if i == len(path):
            return s
        if isinstance(s, ir.For):
            seq = s.body
        elif isinstance(s, ir.If):
            seq = s.then if path[i] == 0 else s.orelse
            i += 1
        else:
            return None
    return s


def _strip(e: ir.Expr) -> ir.Expr:
    """An expression without its casts between integer types (wraparound add/sub/and/or/xor
    commute with truncation to the accumulator's width)."""
    while isinstance(e, ir.Cast) and e.dtype.is_int and e.operand.dtype.is_int:
        e = e.operand
    return e


def _reduction(body: list[ir.Stmt], var: str, dtype) -> bool:
    """Whether every assignment of integer scalar `var` in `body` is `var = var op e` (or
    `e op var` for a commutative op) with `e` not reading `var`, op reassociable; or every one
    sets the same constant (a flag set under a condition)."""
    if dtype is None or not dtype.is_int:
        return False
    assigns = [s for s in ir.walk_stmts(body) if isinstance(s, ir.Assign) and s.var == var]
    if not assigns:
        return False
    if all(isinstance(a.value, ir.Const) for a in assigns) and len({a.value.value for a in assigns}) == 1:
        return True  # a sticky flag (`if c: found = 1`): an or-reduction
    once = _single_assignments(body)
    for a in assigns:
        value = a.value
        for _ in range(4):  # through temporaries (`t = acc + e` checked for overflow, `acc = t`)
            if isinstance(value, ir.Var) and value.name in once and value.name != var:
                value = once[value.name]
        e = value if isinstance(value, ir.Bin) and value.op in ("min", "max") else _strip(value)
        if not (isinstance(e, ir.Bin) and e.op in _REASSOCIABLE):
            return False
        lhs, rhs = (e.lhs, e.rhs) if e.op in ("min", "max") else (_strip(e.lhs), _strip(e.rhs))
        if _is(lhs, var):
            other = rhs
        elif _is(rhs, var) and e.op != "sub":
            other = lhs
        else:
            return False
        if any(_is(x, var) for x in ir.walk_expr(other)):
            return False
    return True


def _single_assignments(body: list[ir.Stmt]) -> dict[str, ir.Expr]:
    """Scalars assigned once in `body`, with their value."""
    values: dict[str, list[ir.Expr]] = {}
    for s in ir.walk_stmts(body):
        if isinstance(s, ir.Assign):
            values.setdefault(s.var, []).append(s.value)
    return {v: es[0] for v, es in values.items() if len(es) == 1}


def _is(e: ir.Expr, var: str) -> bool:
    return isinstance(e, ir.Var) and e.name == var


def configuration(est: Estimate, rl: Roofline) -> dict[str, Any]:
    """How one configuration (variant estimate) stands against the roofline: its cycles, the
    fraction of the bound it reaches, and what limits it (transfers, or its slowest loop)."""
    b = est.breakdown
    transfers = int(b.get("load_cycles", 0)) + int(b.get("store_cycles", 0))
    compute = int(b.get("compute_cycles", 0))
    if transfers >= compute:
        limited = (
            f"load and store phases, {transfers:,} of {est.cycles:,} cycles (not overlapped with compute)"
        )
    else:
        loops = [(lp["cycles"] * lp.get("entries", 1), label, lp) for label, lp in est.loops.items()]
        inner = [x for x in loops if x[2].get("pipelined")]
        slowest = max(inner, key=lambda x: (x[0], x[1])) if inner else None
        if slowest is not None and 2 * slowest[0] >= compute:
            cycles, label, lp = slowest
            reasons = lp.get("ii_reasons", {})
            cause = max(sorted(reasons), key=lambda k: reasons[k]) if lp["ii"] > 1 and reasons else None
            per = f"II {lp['ii']} ({cause.replace('_', ' ')})" if cause else f"II {lp['ii']}"
            limited = (
                f"loop {label}: {cycles:,} of {est.cycles:,} cycles, {lp['trip'] * lp.get('entries', 1):,} "
                f"iterations at {per}"
            )
        else:
            fsm = [x for x in loops if not x[2].get("pipelined")]
            where = ""
            if fsm:
                cycles, label, _ = max(fsm, key=lambda x: (x[0], x[1]))
                where = f" (loop {label}: {cycles:,} cycles, one state after another)"
            limited = f"compute, {compute:,} of {est.cycles:,} cycles, mostly outside pipelined loops{where}"
    return {
        "variant": est.variant,
        "cycles": est.cycles,
        "fraction": rl.bound_cycles / est.cycles if est.cycles > 0 else 1.0,
        "limited_by": limited,
    }
