"""The statement and loop scheduler: FSM sequences, FSM loops and pipelined loops.

Statements outside pipelines are sequential FSM states of at least one cycle (an `if`
costs its condition plus its longer branch); a loop is an FSM loop (trip x (1 + body) +
its bounds) unless it is innermost, free of break/continue and not left sequential by a
variant, in which case it is pipelined: its body is one region scheduled modulo the II,
and the II grows until it covers the memory ports, the non-pipelined units, the
recurrences through registers and the read-after-write distances through arrays. This
is where the schedule's loop structure lives; placing operations is the region's job.
"""

from __future__ import annotations

import math
from collections import defaultdict

from partition import ir
from partition.estimate import tables
from partition.estimate.schedule.analysis import contains_loop, dtype_bits, has_jumps
from partition.estimate.schedule.artefacts import LoopSchedule, ScheduledOp, StmtSchedule
from partition.estimate.schedule.context import KernelContext
from partition.estimate.schedule.phases import TRANSFER_SETUP_CYCLES, transfer_cycles
from partition.estimate.schedule.ports import PortsFull
from partition.estimate.schedule.region import Region


class Scheduler:
    """Schedules a kernel's statements and loops, one region at a time, into one context."""

    def __init__(self, ctx: KernelContext):
        self.ctx = ctx
        self.loops: dict[str, LoopSchedule] = {}
        self.states = 0
        self.pipeline_stages = 0

    def block(
        self,
        stmts: list[ir.Stmt],
        path: tuple[int, ...],
        entries: int,
        parent: str,
        counter: list[int] | None = None,
    ) -> tuple[list[StmtSchedule], int]:
        """Schedule a statement sequence (FSM states in order); return it and its cycles.

        `counter` numbers unlabelled loops under `parent`; an `if`'s branches share
        their parent's counter."""
        counter = [0] if counter is None else counter
        out: list[StmtSchedule] = []
        t = 0
        for i, s in enumerate(stmts):
            ss = self.stmt(s, (*path, i), entries, parent, counter)
            ss.start = t
            t += ss.length
            out.append(ss)
        return out, t

    def _label(self, s: ir.For, parent: str, counter: list[int]) -> str:
        counter[0] += 1
        label = s.label or (f"{parent}_{counter[0]}" if parent else f"L{counter[0]}")
        base, k = label, 2
        while label in self.loops:
            label = f"{base}_{k}"
            k += 1
        return label

    def _emit(self, path: tuple[int, ...], role: str, **info):
        em = self.ctx.emitter
        return None if em is None else em.region(path, role, **info)

    def stmt(
        self, s: ir.Stmt, path: tuple[int, ...], entries: int, parent: str, counter: list[int]
    ) -> StmtSchedule:
        kind = type(s).__name__.lower()
        if isinstance(s, (ir.Assign, ir.Store, ir.Return)):
            if isinstance(s, ir.Return) and s.value is None:
                return StmtSchedule(path, kind, s, 0, 0)
            r = Region(self.ctx, emit=self._emit(path, "stmt"))
            r.stmt(s)
            if r.emit is not None:
                r.emit.close(r.length)
            self.ctx.chain_ff += r.chain_ff()
            self.states += r.length
            return StmtSchedule(path, kind, s, 0, r.length, r.ops)
        if isinstance(s, (ir.Break, ir.Continue)):
            self.ctx.note(f"{kind} at line {s.line}: the loop is costed with its full trip count")
            return StmtSchedule(path, kind, s, 0, 0)
        if isinstance(s, ir.If):
            r = Region(self.ctx, emit=self._emit(path, "cond"))
            r.condition(s.cond)
            self.ctx.chain_ff += r.chain_ff()
            cond_len = r.length
            if r.emit is not None:
                r.emit.close(cond_len)
            self.states += cond_len
            then, tl = self.block(s.then, (*path, 0), entries, parent, counter)
            orelse, el = self.block(s.orelse, (*path, 1), entries, parent, counter)
            ss = StmtSchedule(
                path,
                kind,
                s,
                0,
                cond_len + max(tl, el),
                r.ops,
                then=then,
                orelse=orelse,
                cond_cycles=cond_len,
            )
            return ss
        if isinstance(s, ir.For):
            return self.loop(s, path, entries, parent, counter)
        if isinstance(s, ir.Copy):
            return self.copy(s, path)
        raise TypeError(f"unknown statement {type(s).__name__}")

    def copy(self, s: ir.Copy, path: tuple[int, ...]) -> StmtSchedule:
        """A tile's rows moved by a burst engine (`ir.Copy`): its row and count computed (at
        least a cycle, the last starting the engine), then one transfer as a call's load or
        store phase costs it (setup plus `transfer_cycles`), at its most rows."""
        ctx = self.ctx
        if ctx.ddr_latency is None:
            raise ValueError(f"kernel {ctx.kernel.name}: a copy needs the board's DDR latency")
        r = Region(ctx, emit=self._emit(path, "copy"))
        r.condition(s.row)
        r.condition(s.count)
        ctx.chain_ff += r.chain_ff()
        entry = max(1, r.length)
        if r.emit is not None:
            r.emit.close(entry)
        p = ctx.kernel.param(s.array)
        row_bytes = p.nbytes // p.shape[0]
        nbytes = s.rows_max * row_bytes
        latency = ctx.ddr_latency[0 if s.direction == "in" else 1]
        moved = TRANSFER_SETUP_CYCLES + transfer_cycles(nbytes, ctx.bus_bits // 8, latency)
        self.states += entry + 1
        # the engine's start address and byte count: the row and the rows times the row's
        # bytes, at the engines' byte-count width, and the array's 64-bit address plus the
        # first row's bytes (an adder that wide: above it the carry runs into the address's
        # bits alone, a carry chain with no LUT of its own)
        len_w = tables.len_bits_for(max([a.nbytes for a in ctx.kernel.arrays if not a.stream] or [1]))
        fam = ctx.family
        product = tables.mul_cost(len_w, len_w, len_w, fam, ctx.clock, const=row_bytes)
        address = [
            ScheduledOp(s, "mul", len_w, product, 0, 0.0, 0, 0.0),
            ScheduledOp(s, "mul", len_w, product, 0, 0.0, 0, 0.0),
            ScheduledOp(s, "add", len_w, tables.int_cost("add", len_w, fam), 0, 0.0, 0, 0.0),
        ]
        return StmtSchedule(path, "copy", s, 0, entry + moved, r.ops + address, cond_cycles=entry)

    def loop(
        self, s: ir.For, path: tuple[int, ...], entries: int, parent: str, counter: list[int]
    ) -> StmtSchedule:
        ctx = self.ctx
        label = self._label(s, parent, counter)
        trip = max(0, int(s.trip_max))
        bounds = Region(ctx, emit=self._emit(path, "bounds"))
        for e in (s.start, s.stop):
            bounds.condition(e)
        ctx.chain_ff += bounds.chain_ff()
        entry = max(1, bounds.length)
        if bounds.emit is not None:
            bounds.emit.close(entry)
        vbits = dtype_bits(s.start.dtype)
        control = [
            ScheduledOp(s, "add", vbits, tables.int_cost("add", vbits, ctx.family), 0, 0.0, 0, 0.0),
            ScheduledOp(s, "cmp", 1, tables.int_cost("cmp", vbits, ctx.family), 0, 0.0, 0, 0.0),
        ]
        ops = bounds.ops + control
        if not contains_loop(s.body) and not has_jumps(s.body) and label not in ctx.sequential:
            ls = self.pipeline(s, label, path, trip, entries)
            ls.cycles = ((trip - 1) * ls.ii + ls.depth + 1 if trip > 0 else 1) + (entry - 1)
            self.states += 2
            self.pipeline_stages += ls.depth
        else:
            body, blen = self.block(s.body, path, entries * max(1, trip), label)
            cycles = trip * (1 + blen) + entry
            ls = LoopSchedule(label, path, s.var, trip, False, 1 + blen, blen, cycles, entries, {}, body)
            self.states += 1 + entry
        self.loops[label] = ls
        ctx.writers[s.var] += 1
        return StmtSchedule(path, "for", s, 0, ls.cycles, ops, loop=ls)

    def pipeline(self, s: ir.For, label: str, path: tuple[int, ...], trip: int, entries: int) -> LoopSchedule:
        ctx = self.ctx
        counts: dict[str, int] = defaultdict(int)
        for st in ir.walk_stmts(s.body):
            for e in ir.stmt_exprs(st):
                for x in ir.walk_expr(e):
                    if isinstance(x, ir.Load):
                        counts[x.array] += 1
            if isinstance(st, ir.Store):
                counts[st.array] += 1
        mem_ii = max([1] + [math.ceil(n / ctx.port_count(a)) for a, n in counts.items()])
        ii = mem_ii
        writers_before = dict(ctx.writers)
        for _ in range(64):
            ctx.writers = defaultdict(int, writers_before)
            r = Region(ctx, ii=ii, loop=s)
            try:
                for j, st in enumerate(s.body):
                    r.owner = j
                    r.stmt(st)
            except PortsFull:
                # the accesses of one array do not fit the ports of II cycles (their banks
                # may meet): one more cycle per iteration
                ii = mem_ii = ii + 1
                continue
            reasons = {"memory": mem_ii, "unit": r.unit_ii}
            carried: dict[str, int] = {}
            for var, first in r.first_read.items():
                final = r.avail.get(var)
                if final is not None and not (final.var == var and final.counted is False):
                    # a combinational result is latched at the end of its cycle; a registered
                    # unit output (ready_ns 0) feeds the next iteration from that register
                    carried[var] = max(1, final.cycle + (1 if final.ns > 0 else 0) - first)
            reasons["recurrence"] = max([1, *carried.values()])
            reasons["array_raw"] = self._raw_ii(r, s, trip)
            new_ii = max(1, *reasons.values())
            if new_ii <= ii:
                break
            ii = new_ii
        emit = self._emit(path, "body", ii=ii)
        if emit is not None:
            # the same (deterministic) schedule once more, told to the emitter
            ctx.writers = defaultdict(int, writers_before)
            r = Region(ctx, ii=ii, loop=s, emit=emit)
            for j, st in enumerate(s.body):
                r.owner = j
                r.stmt(st)
            emit.finish(r.first_read, r.avail)
            emit.close(r.length)
        ctx.chain_ff += r.chain_ff()
        depth = r.length
        body = [
            StmtSchedule((*path, j), type(st).__name__.lower(), st, 0, depth, r.by_owner.get(j, []))
            for j, st in enumerate(s.body)
        ]
        return LoopSchedule(
            label,
            path,
            s.var,
            trip,
            True,
            ii,
            depth,
            0,
            entries,
            reasons,
            body,
            dict(sorted(carried.items())),
        )

    def _raw_ii(self, r: Region, s: ir.For, trip: int) -> int:
        """II that keeps the accesses to one array of successive iterations in program order.

        For an access `first` of iteration i and an access `then` of iteration i + d to the
        same address (at least one a store), `then` must come at least one cycle after
        `first`: then.cycle + d x II >= first.cycle + 1. Store -> load (a value fed to a
        later iteration), store -> store (a late store overtaken by the next iteration's
        early one to the same address) and load -> store (a late load that would read the
        next iteration's value). Where the addresses are not comparable affine forms of the
        loop variable, d = 1 is assumed."""
        need = 1
        step = s.step
        for first in r.accesses:
            for then in r.accesses:
                if then.array != first.array or "store" not in (first.kind, then.kind):
                    continue
                if first.kind == "load" and then.kind == "load":
                    continue
                a, b = first.affine, then.affine
                if a is None or b is None or a[2] != b[2] or a[0] != b[0]:
                    floor = 2 if first.kind == "store" and then.kind == "load" else 1
                    need = max(need, floor, first.cycle + 1 - then.cycle)
                    continue
                stride = a[0] * step
                delta = a[1] - b[1]  # first's offset - then's offset: equal after d iterations
                if stride == 0:
                    dist = 1 if delta == 0 else 0
                elif delta % stride == 0:
                    dist = delta // stride
                else:
                    dist = 0
                if dist >= 1 and dist < max(1, trip):
                    need = max(need, math.ceil((first.cycle + 1 - then.cycle) / dist))
        return need
