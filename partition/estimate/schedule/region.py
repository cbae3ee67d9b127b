"""The region scheduler: straight-line code placed in cycles, operations chained within one.

A region is one FSM statement (a branch condition, loop bounds) or one iteration of a
pipelined loop. `Region` places each operation at the earliest cycle its operands allow,
chaining combinational operators while the accumulated delay fits the clock budget and
registering across cycles otherwise; it orders the accesses to one array, takes their
ports from the `PortBinder`, if-converts branches (guarded stores, merged values) and
tells an emitter (the RTL backend) every value it creates. Loops are not its business
(`loops.Scheduler` runs regions and derives a pipeline's II from what they report).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from partition import ir
from partition.estimate import tables
from partition.estimate.schedule import operators
from partition.estimate.schedule.analysis import distinct, dtype_bits, flat_affine
from partition.estimate.schedule.artefacts import ScheduledOp
from partition.estimate.schedule.context import KernelContext
from partition.estimate.schedule.ports import PortBinder
from partition.estimate.tables import OpCost


@dataclass
class Val:
    cycle: int
    ns: float
    bits: int
    counted: bool = True  # False for constants and register reads (no chain register)
    var: str | None = None  # set for reads of a variable's incoming register value
    last_use: int = -1
    srcs: tuple = ()  # values a wiring-only result passes through (uses propagate to them)
    from_dsp: bool = False  # the result of a DSP multiplier
    to_dsp: bool = False  # an operand of a DSP multiplier
    to_fabric: bool = False  # used by anything else (LUT logic, RAM ports, registers)

    def chain_cycles(self) -> int:
        """Cycles this value is held in fabric registers (`chain_ff`).

        A DSP48 has registers of its own at its inputs (AREG/BREG) and output (MREG/PREG):
        synthesis packs the first register after a DSP multiplier's result, and the last
        before an operand that only DSP multipliers read, into the DSP (UG479 "DSP48E1
        Slice"; yosys xilinx_dsp, Vivado likewise), so those cycles take no fabric FF."""
        held = max(0, self.last_use - self.cycle)
        absorbed = int(self.from_dsp) + int(self.to_dsp and not self.to_fabric)
        return max(0, held - absorbed)


@dataclass
class Access:
    kind: str  # load/store
    array: str
    cycle: int
    affine: tuple | None
    order: int


class Region:
    """Schedules straight-line code: one FSM statement, or one pipelined loop iteration."""

    def __init__(
        self, ctx: KernelContext, ii: int | None = None, loop: ir.For | None = None, emit: Any = None
    ):
        self.ctx = ctx
        self.emit = emit  # listener of the values this region creates (the RTL backend), or None
        self.ii = ii  # modulo port reservation when pipelined
        self.loop = loop
        self.ops: list[ScheduledOp] = []
        self.vals: list[Val] = []
        self.avail: dict[str, Val] = {}
        self.first_read: dict[str, int] = {}
        self.binder = PortBinder(ctx, ii, loop)
        self.accesses: list[Access] = []
        self.commit = 0
        self.guard: Val | None = None
        self.unit_ii = 1
        self.order = 0
        self.owner = 0  # index of the body statement being scheduled (pipelined loops)
        self.by_owner: dict[int, list[ScheduledOp]] = defaultdict(list)
        # Equal pure (sub)expressions of one statement are computed once: IR expressions
        # are frozen dataclasses, so equal trees are equal keys.
        self.memo: dict[Any, Val] = {}
        self.addr_memo: dict[tuple, list[Val]] = {}

    # ---- placement
    def _use(self, v: Val, cycle: int, dsp: bool = False) -> None:
        v.last_use = max(v.last_use, cycle)
        v.to_dsp |= dsp
        v.to_fabric |= not dsp
        if v.var is not None:
            prev = self.first_read.get(v.var)
            self.first_read[v.var] = cycle if prev is None else min(prev, cycle)
        for src in v.srcs:
            self._use(src, cycle, dsp)

    def _start(self, operands: list[Val]) -> tuple[int, float]:
        if not operands:
            return (0, 0.0)
        return max((v.cycle, v.ns) for v in operands)

    def _place(
        self, node: Any, kind: str, bits: int, cost: OpCost, operands: list[Val], array=None, role=None
    ) -> Val:
        """Schedule one operation. `role` tells an emitter what a node that is not an IR
        expression computes: ("addr_mul", stride), "addr_add", "guard_then", "guard_else",
        ("merge", var)."""
        budget = self.ctx.budget
        c, t = self._start(operands)
        if cost.latency == 0 and cost.delay_ns == 0:
            # wiring only: the result is its operands' bits, used where it is used
            op = ScheduledOp(node, kind, bits, cost, c, t, c, t, array)
            self.ops.append(op)
            self.by_owner[self.owner].append(op)
            v = Val(c, t, bits, counted=False, srcs=tuple(operands))
            if self.emit is not None:
                self.emit.op(node, kind, operands, v, op, role)
            return v
        if cost.latency == 0:
            if t + cost.delay_ns <= budget + 1e-9:
                rc, rt = c, t + cost.delay_ns
            else:
                if t > 0:
                    c, t = c + 1, 0.0
                spans = max(1, math.ceil(cost.delay_ns / budget - 1e-9))
                if spans > 1:
                    self.ctx.note(
                        f"{kind} ({bits} bits) takes {cost.delay_ns:.2f} ns, more than one cycle's budget "
                        f"({budget:.2f} ns): scheduled as a {spans}-cycle path"
                    )
                rc, rt = c + spans - 1, min(cost.delay_ns, budget)
        else:
            if t > 0 and t + cost.delay_ns > budget + 1e-9:
                c, t = c + 1, 0.0
            rc, rt = c + cost.latency, cost.out_ns
        v = self._record(node, kind, bits, cost, operands, c, t, rc, rt, array)
        if self.emit is not None:
            self.emit.op(node, kind, operands, v, self.ops[-1], role)
        return v

    def _record(self, node, kind, bits, cost, operands, c, t, rc, rt, array=None) -> Val:
        for v in operands:
            self._use(v, c, dsp=cost.dsp > 0)
        self.unit_ii = max(self.unit_ii, cost.ii)
        op = ScheduledOp(node, kind, bits, cost, c, t, rc, rt, array)
        self.ops.append(op)
        self.by_owner[self.owner].append(op)
        v = Val(rc, rt, bits, from_dsp=cost.dsp > 0)
        self.vals.append(v)
        return v

    def _virtual(self, node: Any, kind: str, operands: list[Val], role: str) -> Val:
        """A value that is wiring of its operands and no operation of its own in the model
        (e.g. the inverted condition guarding an else branch: absorbed into the write enable)."""
        c, t = self._start(operands)
        v = Val(c, t, 1, counted=False, srcs=tuple(operands))
        if self.emit is not None:
            self.emit.op(node, kind, operands, v, None, role)
        return v

    def _var_read(self, name: str, bits: int) -> Val:
        """The value a variable's register holds when this region starts (an incoming value)."""
        v = Val(0, 0.0, bits, counted=False, var=name)
        if self.emit is not None:
            self.emit.var(name, v)
        return v

    # ---- expressions
    def expr(self, e: ir.Expr) -> Val:
        v = self.memo.get(e)
        if v is None:
            v = self._expr(e)
            self.memo[e] = v
        return v

    def _expr(self, e: ir.Expr) -> Val:
        if isinstance(e, ir.Const):
            v = Val(0, 0.0, dtype_bits(e.dtype), counted=False)
            if self.emit is not None:
                self.emit.const(e, v)
            return v
        if isinstance(e, ir.Var):
            if e.name in self.avail:
                return self.avail[e.name]
            return self._var_read(e.name, dtype_bits(e.dtype))
        if isinstance(e, ir.Load):
            return self._load(e)
        if isinstance(e, ir.Select):
            operands = [self.expr(e.cond), self.expr(e.then), self.expr(e.orelse)]
        elif isinstance(e, (ir.Cast, ir.Un)):
            operands = [self.expr(e.operand)]
        elif isinstance(e, (ir.Logic, ir.Cmp, ir.Bin)):
            operands = [self.expr(e.lhs), self.expr(e.rhs)]
        elif isinstance(e, ir.Math):
            operands = [self.expr(a) for a in e.args]
        else:
            raise TypeError(f"unknown expression {type(e).__name__}")
        kind, bits, cost = operators.bind(self.ctx, e)
        return self._place(e, kind, bits, cost, operands)

    def _address(self, array: str, index: tuple[ir.Expr, ...]) -> list[Val]:
        """Flattened row-major address: idx_k * stride_k summed (constant strides)."""
        key = (array, index)
        if key not in self.addr_memo:
            self.addr_memo[key] = self._flat_address(array, index)
        return self.addr_memo[key]

    def _flat_address(self, array: str, index: tuple[ir.Expr, ...]) -> list[Val]:
        shape = self.ctx.kernel.array_shape(array) or (1,)
        ram = self.ctx.rams[array]
        abits = max(1, math.ceil(math.log2(max(2, ram.elems))))
        vals = [self.expr(i) for i in index]
        if len(index) <= 1:
            return vals
        fam = self.ctx.family
        terms: list[Val] = []
        stride = 1
        strides = []
        for dim in reversed(shape):
            strides.append(stride)
            stride *= dim
        strides.reverse()
        for v, s, e in zip(vals, strides, index):
            if s == 1:
                terms.append(v)
            else:
                cost = tables.mul_cost(abits, abits, abits, fam, self.ctx.clock, const=s)
                terms.append(self._place(e, "mul", abits, cost, [v], role=("addr_mul", s)))
        acc = terms[0]
        for t in terms[1:]:
            acc = self._place(
                index, "add", abits, tables.int_cost("add", abits, fam), [acc, t], role="addr_add"
            )
        return [acc]

    def _order_after(self, array: str, kind: str, aff) -> int:
        """Earliest cycle allowed by earlier accesses to the same array in this region."""
        earliest = 0
        for a in self.accesses:
            if a.array != array:
                continue
            if kind == "load" and a.kind == "store":
                if not distinct(a.affine, aff):
                    earliest = max(earliest, a.cycle + 1)
            elif kind == "store" and a.kind == "load":
                earliest = max(earliest, a.cycle)
            elif kind == "store" and a.kind == "store":
                earliest = max(earliest, a.cycle + (0 if distinct(a.affine, aff) else 1))
        return earliest

    def _load(self, e: ir.Load) -> Val:
        ram = self.ctx.rams[e.array]
        addr = self._address(e.array, e.index)
        aff = flat_affine(e.index, self.ctx.kernel.array_shape(e.array), self.loop.var if self.loop else None)
        self.ctx.read_lanes(e.array, e.index)
        c, _t = self._start(addr)
        c = max(c, self._order_after(e.array, "load", aff))
        c, port, bank = self.binder.reserve(e.array, c, aff)
        cost = operators.load_cost(self.ctx, ram)
        v = self._record(e, "load", ram.elem_bits, cost, addr, c, 0.0, c + cost.latency, cost.out_ns, e.array)
        self.ops[-1].bank_dynamic = ram.banks > 1 and (bank is None or bank[0] != ())
        if self.emit is not None:
            self.emit.load(e, addr, v, c, port=port, bank=bank)
        self.accesses.append(Access("load", e.array, c, aff, self.order))
        self.order += 1
        return v

    # ---- statements
    def stmt(self, s: ir.Stmt) -> None:
        self.memo, self.addr_memo = {}, {}  # assignments and stores end the reuse of values
        if isinstance(s, ir.Assign):
            v = self.expr(s.value)
            self.avail[s.var] = v
            self._commit(v)
            self.ctx.writers[s.var] += 1
            if self.emit is not None:
                self.emit.assign(s, v)
        elif isinstance(s, ir.Store):
            self._store(s)
        elif isinstance(s, ir.Return):
            if s.value is not None:
                v = self.expr(s.value)
                self._commit(v)
                if self.emit is not None:
                    self.emit.ret(s, v)
        elif isinstance(s, ir.If):
            self._if(s)
        elif isinstance(s, (ir.Break, ir.Continue)):
            self.ctx.note(
                f"{type(s).__name__.lower()} at line {s.line}: the loop is costed with its full trip count"
            )
        elif isinstance(s, ir.For):
            raise AssertionError("loops are not scheduled inside a region")
        else:
            raise TypeError(f"unknown statement {type(s).__name__}")

    def condition(self, e: ir.Expr) -> Val:
        """Evaluate an expression whose value is latched for control (a branch condition,
        loop bounds) as its own FSM state(s)."""
        v = self.expr(e)
        self._commit(v)
        if self.emit is not None:
            self.emit.condition(e, v)
        return v

    def _commit(self, v: Val) -> None:
        self._use(v, v.cycle)
        self.commit = max(self.commit, v.cycle + 1)

    def _store(self, s: ir.Store) -> None:
        addr = self._address(s.array, s.index)
        val = self.expr(s.value)
        deps = [*addr, val] + ([self.guard] if self.guard is not None else [])
        aff = flat_affine(s.index, self.ctx.kernel.array_shape(s.array), self.loop.var if self.loop else None)
        c, _t = self._start(deps)
        c = max(c, self._order_after(s.array, "store", aff))
        c, port, bank = self.binder.reserve(s.array, c, aff)
        cost = tables.mem_cost("store", self.ctx.family)
        ram = self.ctx.rams[s.array]
        self._record(s, "store", ram.elem_bits, cost, deps, c, 0.0, c, 0.0, s.array)
        self.ops[-1].bank_dynamic = ram.banks > 1 and (bank is None or bank[0] != ())
        if self.emit is not None:
            self.emit.store(s, addr, val, self.guard, c, port=port, bank=bank)
        self.accesses.append(Access("store", s.array, c, aff, self.order))
        self.order += 1
        self.commit = max(self.commit, c + 1)

    def _guard(self, s: ir.If, outer: Val, cond: Val, role: str) -> Val:
        """The guard of a branch inside a guarded one: the outer guard and this condition."""
        return self._place(
            s, "logic", 1, tables.int_cost("logic", 1, self.ctx.family), [outer, cond], role=role
        )

    def _if(self, s: ir.If) -> None:
        fam = self.ctx.family
        cond = self.expr(s.cond)
        saved = dict(self.avail)
        outer = self.guard
        self.guard = cond if outer is None else self._guard(s, outer, cond, "guard_then")
        for t in s.then:
            self.stmt(t)
        then_avail = self.avail
        self.avail = dict(saved)
        if s.orelse:
            self.guard = (
                self._virtual(s, "not", [cond], "guard_else")
                if outer is None
                else self._guard(s, outer, cond, "guard_else")
            )
            for t in s.orelse:
                self.stmt(t)
        else_avail = self.avail
        self.guard = outer
        merged = dict(saved)
        for var in sorted(set(then_avail) | set(else_avail)):
            tv, ev = then_avail.get(var), else_avail.get(var)
            if tv is ev:
                merged[var] = tv
                continue
            dt = self.ctx.var_types.get(var)
            bits = dtype_bits(dt) if dt is not None else max(x.bits for x in (tv, ev) if x is not None)
            ops = [x if x is not None else self._var_read(var, bits) for x in (tv, ev)]
            sel = self._place(
                s, "select", bits, tables.int_cost("select", bits, fam), [cond, *ops], role=("merge", var)
            )
            merged[var] = sel
            self._commit(sel)
        self.avail = merged

    # ---- results
    @property
    def length(self) -> int:
        end = self.commit
        for op in self.ops:
            end = max(end, op.ready_cycle + (1 if op.kind == "store" else 0))
        return max(1, end)

    def chain_ff(self) -> int:
        return sum(v.bits * v.chain_cycles() for v in self.vals if v.counted)
