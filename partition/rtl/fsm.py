"""The kernel's FSM: its states, the registers it writes, and the compute part built from
the schedule.

`Fsm.block` compiles the scheduled statements into states, region by region as the
schedule laid them out: a statement outside pipelines is `length` states of its region; an
FSM loop is its bounds states (the last one also tests the first iteration), then per
iteration the body and one test/increment state; a pipelined loop is its bounds states and
one state in which iterations issue every II cycles and drain through D stages (valid
bits). `Fsm.active(region, cycle)` is the condition under which a region executes a cycle,
which gates every side effect; `Fsm.var_value` resolves variable reads (registers,
arguments, a pipeline's loop-carried values). The registers (`Registers`) are written
under conditions in priority order, by the FSM and by the RAM ports and phases alike.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from partition import ir
from partition.dtypes import DType
from partition.estimate.schedule import StmtSchedule
from partition.regmap import RegisterMap
from partition.rtl.datapath import Netlist
from partition.rtl.literals import is_lit, lit, lit_value, resize
from partition.rtl.recorder import Access, Node, Recorder, Region, dtype_bits, var_dtype
from partition.rtl.support import RtlUnsupported


class State:
    """One FSM state: its transition (`next`, or a `branch` (condition, then, else)), and
    `ref`, a placeholder for its name until the states are named in order."""

    _n = 0

    def __init__(self, comment: str):
        State._n += 1
        self.id = State._n
        self.comment = comment
        self.next: State | None = None
        self.branch: tuple[str, State, State] | None = None
        self.name = ""

    @classmethod
    def reset(cls) -> None:
        """Number the states of the next design from 1 again."""
        cls._n = 0

    @property
    def ref(self) -> str:
        return f"(state == §{self.id}§)"


@dataclass
class LoopCtx:
    """Where a break (`exit`) and a continue (`test`) of the enclosing FSM loop go."""

    exit: State
    test: State


class Registers:
    """The registers the FSM, the RAM ports and the phases write: each its width and its
    (condition, value) writes, the first true one taking effect."""

    def __init__(self) -> None:
        self.bits: dict[str, int] = {}
        self.writes: dict[str, list[tuple[str, str]]] = {}

    def reg(self, name: str, bits: int) -> str:
        self.bits[name] = bits
        return name

    def write(self, reg: str, cond: str, value: str) -> None:
        self.writes.setdefault(reg, []).append((cond, value))


class Fsm:
    """The states of one kernel and the compute FSM compiled from its schedule."""

    def __init__(self, kernel: ir.Kernel, rec: Recorder, net: Netlist, regs: Registers, rmap: RegisterMap):
        self.k = kernel
        self.rec = rec
        self.net = net
        self.regs = regs
        self.rmap = rmap
        self.states: list[State] = []
        self.region_states: dict[int, list[State]] = {}
        self.bodies: dict[int, dict] = {}  # id(region) -> pipeline info
        self.accesses: list[Access] = []  # the compute datapath's, region by region
        self.samples: dict[tuple[int, str], tuple[str, int]] = {}
        self.comments: list[str] = []
        self.copies: list[dict] = []  # a tiled kernel's copies: the burst engines' work inside compute
        params = {p.name: p for p in kernel.scalar_params}
        written = {s.var for s in ir.walk_stmts(kernel.body) if isinstance(s, (ir.Assign, ir.For))}
        self.params = params
        self.written = written
        for name in sorted(written):
            self.regs.bits[self.vreg(name)] = dtype_bits(self.dtype_of(name))

    # ---- helpers
    def dtype_of(self, name: str) -> DType:
        return var_dtype(self.k, name)

    @staticmethod
    def vreg(name: str) -> str:
        return f"v_{name}"

    def state(self, comment: str) -> State:
        s = State(comment)
        self.states.append(s)
        return s

    def active(self, region: Region, cycle: int) -> str:
        if id(region) in self.bodies:
            info = self.bodies[id(region)]
            return info["issue"] if cycle == 0 else f"{info['vs']}[{cycle}]"
        return self.region_states[id(region)][cycle].ref

    def scalar_value(self, name: str) -> str:
        """The register (or AXI-Lite argument) holding scalar `name` between its writes."""
        dt = self.dtype_of(name)
        if name in self.written:
            return self.vreg(name)
        if name in self.params:
            bits = max(8, dt.bits) if not dt.is_bool else 8
            if dt.is_bool:
                return self.net.wire(1, f"|arg_{name}")
            return (
                f"arg_{name}" if bits == dt.bits else self.net.wire(dt.bits, f"arg_{name}[{dt.bits - 1}:0]")
            )
        raise RtlUnsupported(f"kernel {self.k.name}: variable {name} is read but never assigned")

    def var_value(self, n: Node, cycle: int) -> str:
        name = n.value
        info = self.bodies.get(id(n.region))
        if info is None:
            return self.scalar_value(name)
        if name == info["loop"].var:
            return self.net.tap(info["iv"], n.bits, cycle)
        region = n.region
        if name in region.final and name in region.first_read:
            key = (id(region), name)
            if key not in self.samples:
                wire = self.net.fresh("s")
                self.samples[key] = (wire, region.first_read[name])
                self._sample(region, info, name, wire)
            wire, first = self.samples[key]
            return self.net.tap(wire, n.bits, cycle - first)
        return self.scalar_value(name)

    def _sample(self, region: Region, info: dict, name: str, wire: str) -> None:
        """The incoming value of a loop-carried variable, taken at its first read."""
        first = region.first_read[name]
        F = region.final[name]
        w = max(self.avail_cycle(F), first)
        bits = dtype_bits(self.dtype_of(name))
        reg = self.vreg(name)
        if info["ii"] < w + 1 - first:
            # the previous iteration writes the register in this very cycle: forward its value
            fwd = self.net.at(F, w)
            expr = f"{self.active(region, w)} ? {fwd} : {reg}"
        else:
            expr = reg
        rng = f"[{bits - 1}:0] " if bits > 1 else ""
        self.net.decls.append(f"wire {rng}{wire};  // {name} entering the iteration (cycle {first})")
        self.net.assigns.append(f"assign {wire} = {expr};")

    def avail_cycle(self, n: Node) -> int:
        if n.kind == "const":
            return 0
        if n.kind == "var":
            info = self.bodies.get(id(n.region))
            if info is None:
                return 0
            if n.value == info["loop"].var:
                return 0
            if n.value in n.region.final and n.value in n.region.first_read:
                return n.region.first_read[n.value]
            return 0
        if n.timing == "wiring":
            return max([self.avail_cycle(x) for x in n.operands] or [0])
        return n.ready

    # ---- compile statements
    def block(self, stmts: list[StmtSchedule], nxt: State, loop: LoopCtx | None) -> State:
        entry = nxt
        for ss in reversed(stmts):
            entry = self.stmt(ss, entry, loop)
        return entry

    def region_chain(self, region: Region, length: int, comment: str, nxt: State) -> list[State]:
        sts = [self.state(f"{comment}, cycle {c}" if length > 1 else comment) for c in range(length)]
        for a, b in itertools.pairwise(sts):
            a.next = b
        sts[-1].next = nxt
        self.region_states[id(region)] = sts
        return sts

    def stmt(self, ss: StmtSchedule, nxt: State, loop: LoopCtx | None) -> State:
        kind, s = ss.kind, ss.stmt
        line = f" (line {s.line})" if getattr(s, "line", 0) else ""
        if kind in ("assign", "store", "return"):
            if ss.length == 0:
                return nxt
            region = self.rec.regions[(ss.path, "stmt")]
            sts = self.region_chain(region, ss.length, f"{kind}{line}", nxt)
            self.fsm_effects(region)
            return sts[0]
        if kind == "break":
            assert loop is not None
            return loop.exit
        if kind == "continue":
            assert loop is not None
            return loop.test
        if kind == "if":
            region = self.rec.regions[(ss.path, "cond")]
            then = self.block(ss.then, nxt, loop)
            other = self.block(ss.orelse, nxt, loop)
            sts = self.region_chain(region, ss.cond_cycles, f"if{line}", nxt)
            self.fsm_effects(region)
            last = ss.cond_cycles - 1
            sts[-1].next = None
            sts[-1].branch = (self.net.truth(region.conditions[0], last), then, other)
            return sts[0]
        if kind == "for":
            return self.loop(ss, nxt)
        if kind == "copy":
            return self.copy(ss, nxt)
        raise AssertionError(kind)

    def copy(self, ss: StmtSchedule, nxt: State) -> State:
        """A tile's copy (`ir.Copy`): its row and count computed in `cond_cycles` states, the
        last of which starts the burst engine (as a call's start state starts its first
        load), then a state that waits for the engine's done pulse, as a load or store
        phase does. `copies` tells the phases which engine, RAM, address and length."""
        s: ir.Copy = ss.stmt
        region = self.rec.regions[(ss.path, "copy")]
        E = ss.cond_cycles
        line = f" (line {s.line})" if s.line else ""
        wait = self.state(f"copy {s.direction} {s.buffer}: wait for the engine{line}")
        sts = self.region_chain(region, E, f"copy {s.direction} {s.buffer}{line}", wait)
        self.fsm_effects(region)
        row_n, count_n = region.conditions
        done = "rd_done" if s.direction == "in" else "wr_done"
        wait.branch = (done, nxt, wait)
        self.copies.append(
            {
                "stmt": s,
                "start": sts[-1].ref,
                "wait": wait.ref,
                "row": (self.net.at(row_n, E - 1), row_n.bits),
                "count": (self.net.at(count_n, E - 1), count_n.bits),
            }
        )
        return sts[0]

    def fsm_effects(self, region: Region) -> None:
        for var, F in region.assigns:
            c = self.avail_cycle(F)
            self.regs.write(self.vreg(var), self.active(region, c), self.cast_to(F, c, self.dtype_of(var)))
        if region.ret is not None and self.k.ret is not None:
            F = region.ret
            c = self.avail_cycle(F)
            val = self.cast_to(F, c, self.k.ret)
            rbits = self.rmap.by_name("ap_return").bits
            self.regs.write(
                "ret_r", self.active(region, c), self.net.sized(val, dtype_bits(self.k.ret), rbits, False)
            )
        self.accesses.extend(region.accesses)

    def cast_to(self, n: Node, cycle: int, dt: DType) -> str:
        v = self.net.at(n, cycle)
        if dt.is_bool:
            return v if n.bits == 1 else self.net.wire(1, f"|{v}")
        return self.net.sized(v, n.bits, dt.bits, n.signed)

    # ---- loops
    def loop(self, ss: StmtSchedule, nxt: State) -> State:
        s: ir.For = ss.stmt
        ls = ss.loop
        label = ls.label
        bounds = self.rec.regions[(ss.path, "bounds")]
        E = bounds.length
        start_n, stop_n = bounds.conditions
        cw = _counter_bits(s)
        cnt = self.regs.reg(f"cnt_{label}", cw)
        start = self.net.sized(self.net.at(start_n, E - 1), start_n.bits, cw, start_n.signed)
        if isinstance(s.stop, ir.Const):
            stop_now = lit(int(s.stop.value), cw)
            stop_reg = stop_now
        else:
            stop_now = self.net.sized(self.net.at(stop_n, E - 1), stop_n.bits, cw, stop_n.signed)
            stop_reg = self.regs.reg(f"stop_{label}", cw)
        rel = "<" if s.step > 0 else ">"
        step = lit(s.step, cw)
        vdt = self.dtype_of(s.var)
        vreg = self.vreg(s.var)
        enter = self.net.wire(1, f"$signed({start}) {rel} $signed({stop_now})", f"{label}: first iteration")
        line = f" (line {s.line})" if s.line else ""
        sts = self.region_chain(bounds, E, f"{label}: bounds{line}", nxt)
        self.fsm_effects(bounds)
        last = sts[-1]
        last.next = None
        cond_last = last.ref
        if stop_reg != stop_now:
            self.regs.write(stop_reg, cond_last, stop_now)
        if not ls.pipelined:
            test = self.state(f"{label}: test and increment")
            body = self.block(ls.body, test, LoopCtx(nxt, test))
            more = self.net.wire(
                1, f"$signed({cnt}) {rel} $signed({stop_reg})", f"{label}: another iteration"
            )
            self.regs.write(cnt, f"{cond_last} && {enter}", self.net.wire(cw, f"{start} + {step}"))
            self.regs.write(
                vreg,
                f"{cond_last} && {enter}",
                resize(start, cw, dtype_bits(vdt), True)
                if not is_lit(start)
                else lit(lit_value(start, cw, True), dtype_bits(vdt)),
            )
            self.regs.write(cnt, f"{test.ref} && {more}", self.net.wire(cw, f"{cnt} + {step}"))
            self.regs.write(vreg, f"{test.ref} && {more}", resize(cnt, cw, dtype_bits(vdt), True))
            last.branch = (enter, body, nxt)
            test.branch = (more, body, nxt)
            self.comments.append(
                f"{label}{line}: FSM loop, {E} bounds cycle(s) + per iteration 1 + {ls.depth} cycles"
            )
            return sts[0]
        # pipelined
        region = self.rec.regions[(ss.path, "body")]
        ii, D = ls.ii, region.length
        pipe = self.state(f"{label}: pipeline, II {ii}, depth {D}")
        last.branch = (enter, pipe, nxt)
        self.regs.write(cnt, f"{cond_last} && {enter}", start)
        more = self.net.wire(1, f"$signed({cnt}) {rel} $signed({stop_reg})", f"{label}: iterations left")
        ph, pb = None, 1
        if ii > 1:
            pb = max(1, (ii - 1).bit_length())
            ph = self.regs.reg(f"ph_{label}", pb)
            self.regs.write(ph, cond_last, lit(0, pb))
            self.regs.write(ph, pipe.ref, f"({ph} == {lit(ii - 1, pb)}) ? {lit(0, pb)} : {ph} + {lit(1, pb)}")
        issue = self.net.wire(
            1, f"{pipe.ref} && {more}" + (f" && ({ph} == {lit(0, pb)})" if ph else ""),
            f"{label}: an iteration starts", base="issue",
        )  # fmt: skip
        vs = f"vs_{label}"
        info = {"loop": s, "ii": ii, "issue": issue, "vs": vs, "depth": D}
        self.bodies[id(region)] = info
        if D > 1:
            self.net.decls.append(f"reg  [{D - 1}:1] {vs};  // {label}: stage valid bits")
            shift = issue if D == 2 else f"{{{vs}[{D - 2}:1], {issue}}}"
            self.net.regs.append(
                f"always @(posedge ap_clk) begin\n    if (reset) {vs} <= {D - 1}'d0;\n    else {vs} <= {shift};\nend"
            )
        nxt_cnt = self.net.wire(cw, f"{cnt} + {step}")
        self.regs.write(cnt, issue, nxt_cnt)
        info["iv"] = self.net.wire(
            dtype_bits(vdt),
            resize(cnt, cw, dtype_bits(vdt), True),
            f"{label}: {s.var} of the issuing iteration",
            base="iv",
        )
        self.regs.write(vreg, issue, info["iv"])
        # the body's effects (stores, register writes) at their stages
        for var, F in sorted(region.final.items()):
            if F.kind == "var" and F.value == var:
                continue
            w = self.avail_cycle(F)
            if var in region.first_read:
                w = max(w, region.first_read[var])
            self.regs.write(self.vreg(var), self.active(region, w), self.cast_to(F, w, self.dtype_of(var)))
        self.accesses.extend(region.accesses)
        more_after = self.net.wire(1, f"{issue} ? ($signed({nxt_cnt}) {rel} $signed({stop_reg})) : {more}")
        busy = [] if D <= 1 else [issue]
        busy += [f"{vs}[{c}]" for c in range(1, D - 1)]
        exit_ = self.net.wire(1, f"~{more_after}" + "".join(f" & ~{b}" for b in busy), f"{label}: last stage")
        pipe.branch = (exit_, nxt, pipe)
        self.comments.append(
            f"{label}{line}: pipelined, II {ii} ({', '.join(f'{k} {v}' for k, v in sorted(ls.ii_reasons.items()))}), "
            f"depth {D}: {E} bounds cycle(s) + (trip - 1) * {ii} + {D}"
        )
        return sts[0]


def _signed_width(dt: DType) -> int:
    if dt.is_bool:
        return 2
    return dt.bits + (1 if dt.kind == "uint" else 0)


def _counter_bits(s: ir.For) -> int:
    """A counter that holds start, stop and one step past the last iteration (signed)."""
    return max(_signed_width(s.start.dtype), _signed_width(s.stop.dtype), abs(s.step).bit_length() + 1) + 1
