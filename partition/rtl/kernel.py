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
again the variant's estimate. A variant that cyclic-partitions arrays into banks is beyond
this backend (one dual-port RAM per array): `RtlVariantUnsupported` says so, and the plan
builds the base variant instead. A wide burst variant (`wide64`, `wide128`) gets engines and
an m_axi_gmem of its bus width: the schedule packs the buffers into words of that width,
so one engine beat is one RAM word (elements wider than the bus, int64 on the 32-bit bus,
take two beats a word).

Integer kernels only: `RtlUnsupported` (a PartitionError) names what cannot be built.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field

from partition import ir
from partition.boards import Board
from partition.codegen import template_env
from partition.dtypes import DType
from partition.errors import PartitionError
from partition.estimate.schedule import KernelSchedule, RamInfo, StmtSchedule, schedule_kernel
from partition.estimate.variants import BASE, Directives, estimate_variant, unroll_kernel
from partition.regmap import RegisterMap, register_map
from partition.rtl import shells
from partition.rtl.datapath import Netlist, Node, Recorder, Region, lit, resize, word_address_bits

BUS_BITS = 32  # m_axi data width of the base variant (every board's kernel_axi_bits)
STREAM_REASON = "the built-in RTL moves arrays through m_axi burst engines only (the Vitis HLS C++ streams)"
FLOAT_REASON = "the RTL backend builds integer kernels; float32/float64 kernels use the Vitis HLS path"


class RtlUnsupported(PartitionError):
    """The built-in RTL backend cannot build this kernel; the message says why."""


class RtlVariantUnsupported(RtlUnsupported):
    """The backend builds the kernel, but not in the implementation variant asked for."""


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


# ----------------------------------------------------------------------- checks


def _check(kernel: ir.Kernel, board: Board) -> None:
    where = f"kernel {kernel.name}"
    dts: list[tuple[str, DType]] = [(p.name, p.dtype) for p in kernel.params]
    dts += list(kernel.scalars.items()) + [(a.name, a.dtype) for a in kernel.locals]
    if kernel.ret is not None:
        dts.append(("return value", kernel.ret))
    for s in ir.walk_stmts(kernel.body):
        for e in ir.stmt_exprs(s):
            for x in ir.walk_expr(e):
                dts.append((type(x).__name__.lower(), x.dtype))
                if isinstance(x, ir.Cast):
                    dts.append(("cast operand", x.operand.dtype))
    for what, dt in dts:
        if dt.is_float:
            raise RtlUnsupported(f"{where}: {what} is {dt}: {FLOAT_REASON}")
    for p in kernel.arrays:
        if p.size == 0:
            raise RtlUnsupported(f"{where}: array {p.name} has no elements; give it a non-empty shape")
        if p.stream:
            raise RtlUnsupported(f"{where}: array {p.name} is an AXI-Stream port of a chain; {STREAM_REASON}")
    for a in kernel.locals:
        if a.size == 0:
            raise RtlUnsupported(f"{where}: local array {a.name} has no elements")
    for i, s in enumerate(kernel.body):
        if isinstance(s, ir.Return) and i != len(kernel.body) - 1:
            raise RtlUnsupported(f"{where}: return at line {s.line} is not the last statement")
    for s in ir.walk_stmts(kernel.body):
        if isinstance(s, ir.Return) and s is not kernel.body[-1]:
            raise RtlUnsupported(f"{where}: return at line {s.line} inside a loop or branch")
        if isinstance(s, ir.For) and (not isinstance(s.step, int) or isinstance(s.step, bool) or s.step == 0):
            raise RtlUnsupported(f"{where}: loop at line {s.line} has step {s.step!r}; a non-zero integer")
    names = [p.name for p in kernel.params] + [a.name for a in kernel.locals] + list(kernel.scalars)
    for n in names:
        shells._check_ident("name", n)


# ------------------------------------------------------------------------ states


class State:
    _n = 0

    def __init__(self, comment: str):
        State._n += 1
        self.id = State._n
        self.comment = comment
        self.next: State | None = None
        self.branch: tuple[str, State, State] | None = None
        self.name = ""

    @property
    def ref(self) -> str:
        return f"(state == §{self.id}§)"


@dataclass
class LoopCtx:
    exit: State
    test: State


@dataclass
class Port:
    """Everything that drives one RAM port: (active, address, write lanes, write data)."""

    sources: list[tuple[str, str, str, str]] = field(default_factory=list)


class _Builder:
    def __init__(
        self,
        kernel: ir.Kernel,
        board: Board,
        sequential: frozenset[str] = frozenset(),
        bus_bits: int = BUS_BITS,
    ):
        self.k = kernel
        self.board = board
        self.bus = bus_bits
        self.rec = Recorder(kernel)
        self.sched = schedule_kernel(
            kernel, board.family, board.pl_mhz, bus_bits=bus_bits, emitter=self.rec, sequential=sequential
        )
        self.rmap = register_map(kernel)
        self.ctrl_map = self.rmap
        self.rams: dict[str, RamInfo] = self.sched.rams
        self.net = Netlist(kernel, self.rams)
        self.net.active = self.active
        self.net.var_value = self.var_value
        self.allocate_ports()
        self.states: list[State] = []
        self.region_states: dict[int, list[State]] = {}
        self.bodies: dict[int, dict] = {}  # id(region) -> pipeline info
        self.writes: dict[str, list[tuple[str, str]]] = {}
        self.reg_bits: dict[str, int] = {}
        self.ports: dict[tuple[str, str], Port] = {}
        self.accesses: list = []
        self.samples: dict[tuple[int, str], tuple[str, int]] = {}
        self.comments: list[str] = []
        params = {p.name: p for p in kernel.scalar_params}
        written = {s.var for s in ir.walk_stmts(kernel.body) if isinstance(s, (ir.Assign, ir.For))}
        self.params = params
        self.written = written
        for name in sorted(written):
            self.reg_bits[self.vreg(name)] = _bits(self.dtype_of(name))

    # ---- helpers
    def dtype_of(self, name: str) -> DType:
        from partition.rtl.datapath import _var_dtype

        return _var_dtype(self.k, name)

    @staticmethod
    def vreg(name: str) -> str:
        return f"v_{name}"

    def state(self, comment: str) -> State:
        s = State(comment)
        self.states.append(s)
        return s

    def write(self, reg: str, cond: str, value: str) -> None:
        self.writes.setdefault(reg, []).append((cond, value))

    def reg(self, name: str, bits: int) -> str:
        self.reg_bits[name] = bits
        return name

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
        bits = _bits(self.dtype_of(name))
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
        raise AssertionError(kind)

    def fsm_effects(self, region: Region) -> None:
        for var, F in region.assigns:
            c = self.avail_cycle(F)
            self.write(self.vreg(var), self.active(region, c), self.cast_to(F, c, self.dtype_of(var)))
        if region.ret is not None and self.k.ret is not None:
            F = region.ret
            c = self.avail_cycle(F)
            val = self.cast_to(F, c, self.k.ret)
            rbits = self.ctrl_map.by_name("ap_return").bits
            self.write("ret_r", self.active(region, c), self.net._sized(val, _bits(self.k.ret), rbits, False))
        self.accesses.extend(region.accesses)

    def cast_to(self, n: Node, cycle: int, dt: DType) -> str:
        v = self.net.at(n, cycle)
        if dt.is_bool:
            return v if n.bits == 1 else self.net.wire(1, f"|{v}")
        return self.net._sized(v, n.bits, dt.bits, n.signed)

    # ---- loops
    def loop(self, ss: StmtSchedule, nxt: State) -> State:
        s: ir.For = ss.stmt
        ls = ss.loop
        label = ls.label
        bounds = self.rec.regions[(ss.path, "bounds")]
        E = bounds.length
        start_n, stop_n = bounds.conditions
        cw = _counter_bits(s)
        cnt = self.reg(f"cnt_{label}", cw)
        start = self.net._sized(self.net.at(start_n, E - 1), start_n.bits, cw, start_n.signed)
        if isinstance(s.stop, ir.Const):
            stop_now = lit(int(s.stop.value), cw)
            stop_reg = stop_now
        else:
            stop_now = self.net._sized(self.net.at(stop_n, E - 1), stop_n.bits, cw, stop_n.signed)
            stop_reg = self.reg(f"stop_{label}", cw)
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
            self.write(stop_reg, cond_last, stop_now)
        if not ls.pipelined:
            test = self.state(f"{label}: test and increment")
            body = self.block(ls.body, test, LoopCtx(nxt, test))
            more = self.net.wire(
                1, f"$signed({cnt}) {rel} $signed({stop_reg})", f"{label}: another iteration"
            )
            self.write(cnt, f"{cond_last} && {enter}", self.net.wire(cw, f"{start} + {step}"))
            self.write(
                vreg,
                f"{cond_last} && {enter}",
                resize(start, cw, _bits(vdt), True)
                if not _is_literal(start)
                else lit(_lit_int(start, cw), _bits(vdt)),
            )
            self.write(cnt, f"{test.ref} && {more}", self.net.wire(cw, f"{cnt} + {step}"))
            self.write(vreg, f"{test.ref} && {more}", resize(cnt, cw, _bits(vdt), True))
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
        self.write(cnt, f"{cond_last} && {enter}", start)
        more = self.net.wire(1, f"$signed({cnt}) {rel} $signed({stop_reg})", f"{label}: iterations left")
        ph, pb = None, 1
        if ii > 1:
            pb = max(1, (ii - 1).bit_length())
            ph = self.reg(f"ph_{label}", pb)
            self.write(ph, cond_last, lit(0, pb))
            self.write(ph, pipe.ref, f"({ph} == {lit(ii - 1, pb)}) ? {lit(0, pb)} : {ph} + {lit(1, pb)}")
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
        self.write(cnt, issue, nxt_cnt)
        info["iv"] = self.net.wire(
            _bits(vdt),
            resize(cnt, cw, _bits(vdt), True),
            f"{label}: {s.var} of the issuing iteration",
            base="iv",
        )
        self.write(vreg, issue, info["iv"])
        # the body's effects (stores, register writes) at their stages
        for var, F in sorted(region.final.items()):
            if F.kind == "var" and F.value == var:
                continue
            w = self.avail_cycle(F)
            if var in region.first_read:
                w = max(w, region.first_read[var])
            self.write(self.vreg(var), self.active(region, w), self.cast_to(F, w, self.dtype_of(var)))
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

    # ---- RAM ports
    def allocate_ports(self) -> None:
        """Give every access a RAM port: at most two share a cycle (a pipeline slot)."""
        groups: dict[tuple, list] = {}
        for region in self.rec.regions.values():
            for acc in region.accesses:
                slot = acc.cycle % region.ii if region.role == "body" else acc.cycle
                groups.setdefault((acc.array, id(region), slot), []).append(acc)
        for key in sorted(groups, key=lambda k: (k[0], k[1], k[2])):
            accs = sorted(groups[key], key=lambda a: a.kind != "store")
            if len(accs) > 2:
                raise AssertionError(f"more than two accesses to {key[0]} in one cycle")
            for acc, port in zip(accs, "ab"):
                acc.port = port
                if acc.kind == "load":
                    acc.node.rdata = f"{self.ram_sig(acc.array)}_{port}_rdata"

    def ram_sig(self, array: str) -> str:
        return f"{array}_buf" if self.rams[array].kind == "buffer" else f"loc_{array}"

    def port(self, array: str, p: str) -> Port:
        return self.ports.setdefault((array, p), Port())

    def access_sources(self) -> None:
        for acc in self.accesses:
            ram = self.rams[acc.array]
            act = self.active(acc.region, acc.cycle)
            aw = word_address_bits(ram)
            nb = _lanes(ram)
            flat = acc.addr
            fl = self.net.at(flat, acc.cycle)
            if ram.per_word > 1:
                lb = (ram.per_word - 1).bit_length()
                wide = self.net.ident(self.net._sized(fl, flat.bits, lb + aw, flat.signed), lb + aw)
                addr = self.net.wire(aw, f"{wide}[{lb + aw - 1}:{lb}]" if aw > 1 else f"{wide}[{lb}]")
            else:
                lb = 0
                addr = self.net._sized(fl, flat.bits, aw, flat.signed)
            if acc.kind == "load":
                self.port(acc.array, acc.port).sources.append((act, addr, lit(0, nb), lit(0, ram.width)))
                continue
            data = self.net.at(acc.data, acc.cycle)
            eb = ram.elem_bits
            dt = acc.elem_dtype
            val = self.net._sized(data, acc.data.bits, _bits(dt), acc.data.signed)
            if dt.is_bool and acc.data.bits > 1:
                val = self.net.wire(1, f"|{data}")
            if eb != _bits(dt):
                val = self.net._sized(val, _bits(dt), eb, False)
            we_on = act if acc.guard is None else f"{act} && {self.net.truth(acc.guard, acc.cycle)}"
            if ram.per_word > 1:
                wdata = self.net.wire(ram.width, f"{{{ram.per_word}{{{val}}}}}")
                lanes_per = eb // 8
                base = lit((1 << lanes_per) - 1, nb)
                lane = self.net.ident(
                    self.net._sized(fl, flat.bits, max(flat.bits, lb), flat.signed), max(flat.bits, lb)
                )
                if max(flat.bits, lb) > 1:  # a 1-bit index is the lane itself (no bit-select of a scalar)
                    lane = self.net.wire(lb, f"{lane}[{lb - 1}:0]" if lb > 1 else f"{lane}[0]")
                sh = (
                    lane
                    if lanes_per == 1
                    else self.net.wire(
                        lb + (lanes_per - 1).bit_length(),
                        f"{{{lane}, {lit(0, (lanes_per - 1).bit_length())}}}",
                    )
                )
                we = self.net.wire(nb, f"({we_on}) ? ({base} << {sh}) : {lit(0, nb)}")
            else:
                wdata = val
                we = self.net.wire(nb, f"({we_on}) ? {lit((1 << nb) - 1, nb)} : {lit(0, nb)}")
            self.port(acc.array, acc.port).sources.append((act, addr, we, wdata))


def _slice(sig: str, hi: int, lo: int) -> str:
    return f"{sig}[{hi}:{lo}]" if hi > lo else f"{sig}[{lo}]"


def _bits(dt: DType) -> int:
    return 1 if dt.is_bool else dt.bits


def _lanes(ram: RamInfo) -> int:
    return ram.width // 8 if ram.kind == "buffer" else 1


def _is_literal(s: str) -> bool:
    return "'" in s and s[0].isdigit()


def _lit_int(s: str, bits: int) -> int:
    v = int(s.split("'")[1][1:], 16 if "'h" in s else 2)
    return v - (1 << bits) if v >> (bits - 1) else v


def _signed_width(dt: DType) -> int:
    if dt.is_bool:
        return 2
    return dt.bits + (1 if dt.kind == "uint" else 0)


def _counter_bits(s: ir.For) -> int:
    """A counter that holds start, stop and one step past the last iteration (signed)."""
    return max(_signed_width(s.start.dtype), _signed_width(s.stop.dtype), abs(s.step).bit_length() + 1) + 1


# --------------------------------------------------------------------- generate


def generate_rtl(kernel: ir.Kernel, board: Board, directives: Directives | None = None) -> RtlKernel:
    """The IP core of `kernel` for `board`: Verilog files, register map JSON and C header.

    `directives`: the implementation variant to build (None: base). Raises
    RtlUnsupported (a PartitionError) for kernels the backend cannot build, and
    RtlVariantUnsupported for a variant it cannot build (cyclic partitioning, an m_axi
    width other than 32, 64 or 128 bits)."""
    d = directives or Directives(BASE)
    _check(kernel, board)
    bus = d.bus(board)
    if bus not in shells.ENGINE_DATA_BITS:
        raise RtlVariantUnsupported(
            f"kernel {kernel.name}: variant {d.name} has a {bus}-bit m_axi; the built-in RTL's burst "
            f"engines move {', '.join(map(str, shells.ENGINE_DATA_BITS))}-bit words"
        )
    if d.partition:
        arrays = ", ".join(f"{a} (×{f})" for a, f in d.partition)
        raise RtlVariantUnsupported(
            f"kernel {kernel.name}: variant {d.name} splits {arrays} into cyclic banks; the built-in RTL "
            "keeps one dual-port RAM per array (the Vitis HLS C++ carries the partitioning)"
        )
    built = unroll_kernel(kernel, dict(d.unroll)) if d.unroll else kernel
    State._n = 0
    b = _Builder(built, board, frozenset(d.sequential), bus)
    try:
        est: int | None = estimate_variant(kernel, board, d).cycles
    except PartitionError:
        est = None
    return _assemble(b, d.name, est)


def _assemble(b: _Builder, variant: str, estimate_cycles: int | None) -> RtlKernel:
    k, net, rams = b.k, b.net, b.rams
    loads = [p for p in k.arrays if p.direction in ("in", "inout")]
    stores = [p for p in k.arrays if p.direction in ("out", "inout")]
    inits = [a for a in k.locals if a.init is not None and rams[a.name].kind == "local"]

    idle = b.state("idle: wait for ap_start")
    start = b.state("start: sample the arguments")
    done = b.state("done: ap_done, ap_ready")
    post = b.state("post: start the first store")
    idle.branch = ("ap_start", start, idle)
    done.next = idle
    ld_states = [b.state(f"load {p.name}") for p in loads]
    st_states = [b.state(f"store {p.name}") for p in stores]
    init_states = [b.state(f"initialise {a.name}") for a in inits]
    compute = b.block(b.sched.body, post, None)
    # phase chain
    after_loads = init_states[0] if init_states else compute
    start.next = ld_states[0] if ld_states else after_loads
    for i, st in enumerate(ld_states):
        st.branch = ("rd_done", ld_states[i + 1] if i + 1 < len(ld_states) else after_loads, st)
    for i, st in enumerate(init_states):
        st.branch = ("init_last", init_states[i + 1] if i + 1 < len(init_states) else compute, st)
    post.next = st_states[0] if st_states else done
    for i, st in enumerate(st_states):
        st.branch = ("wr_done", st_states[i + 1] if i + 1 < len(st_states) else done, st)
    for name_ in sorted(b.written & set(b.params)):
        p = b.params[name_]
        src = f"|arg_{name_}" if p.dtype.is_bool else f"arg_{name_}"
        b.write(b.vreg(name_), start.ref, src)

    b.access_sources()

    # ---- engines and buffer ports
    # One engine word (bus beat) is one RAM word, except for elements wider than the bus
    # (int64 on the 32-bit bus): `sub` = 2 beats a word, the low half first.
    bus = b.bus
    len_w = shells.len_bits_for(max([p.nbytes for p in k.arrays] or [1]))
    eng_aw = max([word_address_bits(rams[p.name]) + (rams[p.name].width // bus - 1) for p in k.arrays] or [1])
    engine = {"aw": eng_aw, "len_w": len_w, "loads": [], "stores": []}
    for i, p in enumerate(loads):
        ram = rams[p.name]
        sub = ram.width // bus
        assert ram.width % bus == 0 and sub in (1, 2) and (sub == 1 or bus == 32), (p.name, ram.width, bus)
        aw = word_address_bits(ram)
        act = ld_states[i].ref
        addr = _slice("rd_addr", aw + sub - 2, sub - 1)
        lanes = (
            lit((1 << (bus // 8)) - 1, bus // 8) if sub == 1 else net.wire(8, "rd_addr[0] ? 8'hf0 : 8'h0f")
        )
        we = net.wire(_lanes(ram), f"({act} && rd_we) ? {lanes} : {lit(0, _lanes(ram))}")
        wdata = "rd_wdata" if sub == 1 else net.wire(64, "{2{rd_wdata}}")
        b.port(p.name, "a").sources.append((f"{act} && rd_we", addr, we, wdata))
        prev = start if i == 0 else ld_states[i - 1]
        when = prev.ref if i == 0 else f"({prev.ref} && rd_done)"
        engine["loads"].append({"when": when, "base": f"arg_{p.name}", "nbytes": lit(p.nbytes, len_w)})
    for i, p in enumerate(stores):
        ram = rams[p.name]
        sub = ram.width // bus
        aw = word_address_bits(ram)
        prev = post if i == 0 else st_states[i - 1]
        when = prev.ref if i == 0 else f"({prev.ref} && wr_done)"
        act = f"({st_states[i].ref} || {when})"
        addr = _slice("wr_addr", aw + sub - 2, sub - 1)
        b.port(p.name, "a").sources.append((f"{act} && wr_re", addr, lit(0, _lanes(ram)), lit(0, ram.width)))
        engine["stores"].append(
            {
                "when": when,
                "base": f"arg_{p.name}",
                "nbytes": lit(p.nbytes, len_w),
                "sel": st_states[i].ref,
                "rdata": f"{b.ram_sig(p.name)}_a_rdata",
                "sub": sub,
            }
        )

    # ---- local initialisation (both ports, two words per cycle)
    init_info = []
    if inits:
        cb = max(1, max((math.ceil(rams[a.name].depth / 2) - 1).bit_length() for a in inits))
        b.reg("init_i", cb)
        lasts = []
        for a, st in zip(inits, init_states):
            ram = rams[a.name]
            aw = word_address_bits(ram)
            n2 = math.ceil(ram.depth / 2)
            lasts.append(f"({st.ref} && init_i == {lit(n2 - 1, cb)})")
            words = [_const_word(x, a.dtype) for x in a.init]
            fn = f"init_{a.name}"
            if any(words):
                init_info.append(
                    {"fn": fn, "aw": aw, "width": ram.width, "words": [lit(w, ram.width) for w in words]}
                )
            for port, off in (("a", 0), ("b", 1)):
                idx = net.wire(cb + 1, f"{{init_i, 1'b{off}}}")
                addr = net._sized(idx, cb + 1, aw, False)
                ok = net.wire(1, f"{st.ref} && ({{1'b0, {idx}}} < {lit(ram.depth, cb + 2)})")
                data = f"{fn}({addr})" if any(words) else lit(0, ram.width)
                b.port(a.name, port).sources.append((ok, addr, ok, data))
        net.assigns.append("assign init_last = " + " | ".join(lasts) + ";")
        net.decls.append("wire init_last;")
        b.write("init_i", start.ref, lit(0, cb))
        for st in init_states:
            b.write("init_i", st.ref, f"init_last ? {lit(0, cb)} : init_i + {lit(1, cb)}")

    # ---- name the states and resolve references
    order = [idle, start, *ld_states, *init_states]
    seen = {s.id for s in order}
    stack = [after_loads if not init_states else compute]
    fsm_order = []
    while stack:
        s = stack.pop()
        if s.id in seen or s in (post, done):
            continue
        seen.add(s.id)
        fsm_order.append(s)
        succ = [s.next] if s.next else [s.branch[2], s.branch[1]]
        stack.extend(x for x in succ if x is not None)
    order += [*fsm_order, post, *st_states, done]
    extra = [s for s in b.states if s.id not in {x.id for x in order}]
    order += extra  # unreachable states (e.g. after an unconditional break) keep a name
    sbits = max(1, (len(order) - 1).bit_length())
    for i, s in enumerate(order):
        s.name = f"S{i}"
    subst = {f"§{s.id}§": s.name for s in order}

    def resolve(text: str) -> str:
        while "§" in text:
            i = text.index("§")
            j = text.index("§", i + 1)
            text = text[:i] + subst[text[i : j + 1]] + text[j + 1 :]
        return text

    # ---- RAM instances
    ram_list = []
    roms = []
    for arr_name in [p.name for p in k.arrays] + [a.name for a in k.locals]:
        ram = rams[arr_name]
        sig = b.ram_sig(arr_name)
        aw = word_address_bits(ram)
        nb = _lanes(ram)
        inst = {"sig": sig, "width": ram.width, "nb": nb, "depth": ram.depth, "aw": aw, "ports": {}}
        for p in "ab":
            srcs = b.ports.get((arr_name, p), Port()).sources
            inst["ports"][p] = _port_exprs(net, srcs, aw, nb, ram.width)
        if ram.kind == "rom":
            local = next(a for a in k.locals if a.name == arr_name)
            inst["module"] = f"{k.name}_rom_{arr_name}"
            roms.append(
                {
                    "module": inst["module"],
                    "array": arr_name,
                    "dtype": local.dtype.name,
                    "shape": " x ".join(str(d) for d in local.shape),
                    "width": ram.width,
                    "depth": ram.depth,
                    "aw": aw,
                    "words": [lit(_const_word(x, local.dtype), ram.width) for x in local.init],
                }
            )
            inst["rom"] = True
        else:
            inst["module"] = f"{k.name}_ram_be"
            inst["rom"] = False
        inst["kind"] = ram.kind
        inst["impl"] = ram.cost.impl
        ram_list.append(inst)

    net.chain_registers()
    # register declarations and writes
    reg_blocks = []
    for reg, bits in sorted(b.reg_bits.items()):
        ws = b.writes.get(reg, [])
        if not ws:
            continue
        lines = [f"    if ({resolve(c)}) {reg} <= {resolve(v)};" for c, v in ws]
        reg_blocks.append({"name": reg, "bits": bits, "body": "\n".join(lines)})
    ret_bits = b.ctrl_map.by_name("ap_return").bits if k.ret is not None else 0
    if k.ret is not None:
        ws = b.writes.get("ret_r", [])
        lines = [f"    if ({resolve(c)}) ret_r <= {resolve(v)};" for c, v in ws] or [
            f"    ret_r <= {lit(0, ret_bits)};"
        ]
        reg_blocks.append({"name": "ret_r", "bits": ret_bits, "body": "\n".join(lines)})

    fsm = []
    for s in order:
        if s.branch is not None:
            cond, t, f = s.branch
            trans = f"if ({resolve(cond)}) state <= {t.name};\n                else state <= {f.name};"
        else:
            trans = f"state <= {s.next.name};"
        fsm.append({"name": s.name, "comment": s.comment, "trans": trans})

    scalars = [{"name": r.name, "bits": r.bits} for r in b.ctrl_map.registers if r.kind != "return"]
    ctx = {
        "name": k.name,
        "source": f"{k.source_file}:{k.source_line}" if k.source_file else "",
        "ctrl_aw": shells.control_address_bits(b.ctrl_map),
        "args": scalars,
        "ret_bits": ret_bits,
        "state_bits": sbits,
        "done_state": done.name,
        "states": fsm,
        "decls": [resolve(x) for x in net.decls],
        "assigns": [resolve(x) for x in net.assigns],
        "regs": [resolve(x) for x in net.regs],
        "reg_blocks": reg_blocks,
        "rams": [_resolve_ram(r, resolve) for r in ram_list],
        "units": [{**u, "start": resolve(u["start"])} for u in net.units],
        "engine": _resolve_engine(engine, resolve, loads, stores),
        "inits": init_info,
        "comments": b.comments,
        "compute_cycles": b.sched.compute_cycles,
        "estimate_cycles": estimate_cycles,
        "variant": variant,
        "clock_mhz": b.board.pl_mhz,
        "family": b.board.family,
        "data_bits": bus,
    }
    env = template_env()
    files: dict[str, str] = {}
    files.update(
        {
            s.filename: s.text
            for s in (
                shells.render_control(b.ctrl_map, k.name),
                shells.render_read_engine(k.name, eng_aw, len_w, bus),
                shells.render_write_engine(k.name, eng_aw, len_w, bus),
            )
        }
    )
    if any(not r["rom"] for r in ram_list):
        files[f"{k.name}_ram_be.v"] = env.get_template("rtl/ram_be.v.j2").render(
            module=f"{k.name}_ram_be", width=32, nb=4, depth=1024, aw=10
        )
    for rom in roms:
        files[f"{rom['module']}.v"] = env.get_template("rtl/rom.v.j2").render(kernel=k.name, **rom)
    if net.units:
        files[f"{k.name}_div.v"] = env.get_template("rtl/divider.v.j2").render(module=f"{k.name}_div")
    files[f"{k.name}.v"] = env.get_template("rtl/kernel_top.v.j2").render(**ctx)
    sources = sorted(files)
    sources.remove(f"{k.name}.v")
    sources.append(f"{k.name}.v")
    out = {n: t.encode() for n, t in files.items()}
    out[f"{k.name}_regmap.json"] = (json.dumps(b.rmap.to_json(), indent=2, sort_keys=True) + "\n").encode()
    out[f"{k.name}_regmap.h"] = _regmap_header(b.rmap).encode()
    return RtlKernel(k.name, k.name, sources, out, b.sched, b.rmap, variant, estimate_cycles, bus)


def _const_word(x, dt: DType) -> int:
    v = int(bool(x)) if dt.is_bool else int(x)
    return v & ((1 << _bits(dt)) - 1)


def _port_exprs(net: Netlist, srcs: list, aw: int, nb: int, width: int) -> dict:
    if not srcs:
        return {"en": "1'b0", "we": lit(0, nb), "addr": lit(0, aw), "wdata": lit(0, width), "used": False}
    en = " | ".join(f"({a})" for a, *_ in srcs)
    we = " | ".join(w for _a, _ad, w, _d in srcs if not w.endswith("'h0") and w != "1'b0") or lit(0, nb)
    if len(srcs) == 1:
        addr = srcs[0][1]
    else:
        addr = " | ".join(f"({{{aw}{{{a}}}}} & {ad})" for a, ad, _w, _d in srcs)
    writers = [(a, d) for a, _ad, w, d in srcs if not (w.endswith("'h0") or w == "1'b0")]
    if not writers:
        wdata = lit(0, width)
    elif len(writers) == 1:
        wdata = writers[0][1]
    else:
        wdata = " | ".join(f"({{{width}{{{a}}}}} & {d})" for a, d in writers)
    return {"en": en, "we": we, "addr": addr, "wdata": wdata, "used": True}


def _resolve_ram(r: dict, resolve) -> dict:
    out = dict(r)
    out["ports"] = {
        p: {k: resolve(v) if isinstance(v, str) else v for k, v in d.items()} for p, d in r["ports"].items()
    }
    return out


def _resolve_engine(e: dict, resolve, loads, stores) -> dict:
    out = {"aw": e["aw"], "len_w": e["len_w"], "has_load": bool(loads), "has_store": bool(stores)}
    out["loads"] = [{k: resolve(v) for k, v in x.items()} for x in e["loads"]]
    out["stores"] = [{k: resolve(v) if isinstance(v, str) else v for k, v in x.items()} for x in e["stores"]]
    return out


def _regmap_header(rmap: RegisterMap) -> str:
    env = template_env()
    return env.get_template("rtl/regmap.h.j2").render(
        kernel=rmap.kernel,
        guard=rmap.kernel.upper(),
        registers=[
            {"name": r.name.upper(), "offset": r.offset, "bits": r.bits, "kind": r.kind, "dtype": r.dtype}
            for r in rmap.registers
        ],
        size=rmap.size,
    )
