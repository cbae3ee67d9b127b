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
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field

from partition import ir
from partition.boards import Board
from partition.dtypes import DType
from partition.errors import PartitionError
from partition.estimate.schedule import (
    STREAM_BITS,
    KernelSchedule,
    RamInfo,
    StmtSchedule,
    bank_geometry,
    schedule_kernel,
    stream_beats,
)
from partition.estimate.variants import BASE, Directives, estimate_variant, unroll_kernel
from partition.regmap import RegisterMap, register_map
from partition.rtl import shells
from partition.rtl.datapath import Netlist, Node, Recorder, Region, bit_slice, lit, resize, word_address_bits
from partition.templating import template_env

BUS_BITS = 32  # m_axi data width of the base variant (every board's kernel_axi_bits)
STREAM_BYTES = STREAM_BITS // 8  # bytes of an AXI-Stream beat (TDATA)
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
    gmem: bool = True  # whether it has m_axi_gmem (some array is not streamed)
    streams: dict[str, str] = field(default_factory=dict)  # AXI-Stream port -> "in" or "out"


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
        banks: dict[str, int] | None = None,
    ):
        self.k = kernel
        self.board = board
        self.bus = bus_bits
        self.rec = Recorder(kernel)
        self.sched = schedule_kernel(
            kernel, board.family, board.pl_mhz, bus_bits=bus_bits, emitter=self.rec, banks=banks,
            sequential=sequential,
        )  # fmt: skip
        self.rmap = register_map(kernel)
        self.ctrl_map = self.rmap
        self.rams: dict[str, RamInfo] = self.sched.rams
        self.net = Netlist(kernel, self.rams)
        self.net.active = self.active
        self.net.var_value = self.var_value
        self.net.bus_bits = bus_bits
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
            if self.rams[key[0]].banks > 1:
                self.bank_ports(groups[key])
                continue
            accs = sorted(groups[key], key=lambda a: a.kind != "store")
            if len(accs) > 2:
                raise AssertionError(f"more than two accesses to {key[0]} in one cycle")
            for acc, port in zip(accs, "ab"):
                acc.port = port
                if acc.kind == "load":
                    acc.node.rdata = f"{self.ram_sig(acc.array)}_{port}_rdata"

    def bank_ports(self, accs: list) -> None:
        """The accesses of one cycle (pipeline slot) to a partitioned array take the ports the
        schedule gave them: port p of the bank the index selects. The schedule put on one
        port only accesses of one bank frame with different residues, so they never meet
        on a bank; an access whose bank is static drives that bank's port only."""
        seen: dict[int, tuple] = {}
        for acc in accs:
            frame = "any" if acc.bank is None else acc.bank[0]
            res = set(range(self.rams[acc.array].banks)) if acc.bank is None else {acc.bank[1]}
            fr, taken = seen.get(acc.plane, (frame, set()))
            if fr != frame or taken & res:
                raise AssertionError(f"two accesses to {acc.array} may meet on a bank's port {acc.plane}")
            seen[acc.plane] = (fr, taken | res)
            acc.port = "ab"[acc.plane]
            if acc.kind == "load":
                g = bank_geometry(self.rams[acc.array], self.bus)
                acc.node.bank_rdata = [f"{self.ram_sig(acc.array, b)}_{acc.port}_rdata" for b in range(g.f)]
                acc.node.bank_static = _static_bank(acc)

    def ram_sig(self, array: str, bank: int | None = None) -> str:
        base = f"{array}_buf" if self.rams[array].kind == "buffer" else f"loc_{array}"
        return base if bank is None else f"{base}_b{bank}"

    def port(self, array: str, p: str, bank: int | None = None) -> Port:
        return self.ports.setdefault((array if bank is None else f"{array}#{bank}", p), Port())

    def bank_access(self, acc) -> None:
        """Drive port acc.port of the bank(s) an access to a partitioned array may reach."""
        ram = self.rams[acc.array]
        g = bank_geometry(ram, self.bus)
        act = self.active(acc.region, acc.cycle)
        bank, word, lane = self.net.bank_fields(acc.addr, acc.cycle, g)
        addr = self.net.wire(g.aw, word) if word[-1] == "]" else word
        static = _static_bank(acc)
        if acc.kind == "load":
            we, wdata, we_on = lit(0, g.nb), lit(0, g.width), None
        else:
            val = self._store_value(acc, ram.elem_bits)
            we_on = act if acc.guard is None else f"{act} && {self.net.truth(acc.guard, acc.cycle)}"
            if g.q > 1:
                wdata = self.net.wire(g.width, f"{{{g.q}{{{val}}}}}")
                per = ram.elem_bits // 8
                sh = (
                    lane
                    if per == 1
                    else self.net.wire(
                        g.lbq + (per - 1).bit_length(), f"{{{lane}, {lit(0, (per - 1).bit_length())}}}"
                    )
                )
                we = f"({lit((1 << per) - 1, g.nb)} << {sh})"
            else:
                wdata, we = val, lit((1 << g.nb) - 1, g.nb)
        for b in range(g.f) if static is None else (static,):
            hit = act if static is not None else self.net.wire(1, f"{act} && ({bank} == {lit(b, g.lbf)})")
            if we_on is None:
                we_b = lit(0, g.nb)
            else:
                on = we_on if static is not None else f"({we_on}) && ({bank} == {lit(b, g.lbf)})"
                we_b = self.net.wire(g.nb, f"({on}) ? {we} : {lit(0, g.nb)}")
            self.port(acc.array, acc.port, b).sources.append((hit, addr, we_b, wdata))

    def _store_value(self, acc, eb: int) -> str:
        """The stored element as the `eb` bits the RAM keeps of it."""
        data = self.net.at(acc.data, acc.cycle)
        dt = acc.elem_dtype
        val = self.net._sized(data, acc.data.bits, _bits(dt), acc.data.signed)
        if dt.is_bool and acc.data.bits > 1:
            val = self.net.wire(1, f"|{data}")
        if eb != _bits(dt):
            val = self.net._sized(val, _bits(dt), eb, False)
        return val

    # ---- partitioned arrays: the phases' ports and the bank RAMs
    def engine_address_bits(self, array: str) -> int:
        """Address bits of the engines' beat counter for `array`'s transfer."""
        ram = self.rams[array]
        if ram.banks == 1:
            return word_address_bits(ram) + (ram.width // self.bus - 1)
        g = bank_geometry(ram, self.bus)
        shift, _split = self._beat_split(g)
        beats = math.ceil(ram.elems * ram.elem_bits / self.bus)
        return max(shift + g.aw, (beats - 1).bit_length(), 1)

    def _beat_split(self, g) -> tuple[int, str]:
        """How a bus beat t maps onto the banks: (low bits of t below the bank word address,
        kind): "half" (an element is two beats, low half first: bank (t / 2) mod F), "all"
        (a beat is one word of every bank), "group" (a beat holds P < F elements: the banks
        (t mod F/P) P .. + P - 1)."""
        if g.elem_bits > self.bus:
            return g.lbf + 1, "half"
        per = self.bus // g.elem_bits
        if per >= g.f:
            return 0, "all"
        return (g.f // per).bit_length() - 1, "group"

    def _beats(self, array: str, beat: str) -> tuple:
        """(bank geometry, `_beat_split`, the banks' word address from engine beat `beat`)."""
        g = bank_geometry(self.rams[array], self.bus)
        shift, kind = self._beat_split(g)
        return g, shift, kind, bit_slice(beat, shift + g.aw - 1, shift)

    def bank_load_port(
        self, array: str, act: str, beat: str = "rd_addr", we: str = "rd_we", wdata: str = "rd_wdata"
    ) -> None:
        """The load phase scatters each beat into the banks (port a): bank b takes the
        elements i with i mod F == b. `beat`, `we`, `wdata`: the engine's beat index, write
        strobe and bus word (the burst read engine's, or an AXI-Stream slave's)."""
        net, bus = self.net, self.bus
        g, shift, kind, addr = self._beats(array, beat)
        eb = g.elem_bits
        en = f"{act} && {we}"
        full = lit((1 << g.nb) - 1, g.nb)
        for b in range(g.f):
            if kind == "half":
                hit = net.wire(1, f"{en} && ({bit_slice(beat, g.lbf, 1)} == {lit(b, g.lbf)})")
                lanes = net.wire(8, f"{beat}[0] ? 8'hf0 : 8'h0f")
                data = net.wire(64, f"{{2{{{wdata}}}}}")
            elif kind == "all":
                hit, lanes = en, full
                parts = [
                    bit_slice(wdata, (b + g.f * q) * eb + eb - 1, (b + g.f * q) * eb) for q in range(g.q)
                ]
                data = net.wire(g.width, parts[0] if g.q == 1 else "{" + ", ".join(reversed(parts)) + "}")
            else:
                per = bus // eb
                hit = net.wire(1, f"{en} && ({bit_slice(beat, shift - 1, 0)} == {lit(b // per, shift)})")
                lanes = full
                data = net.wire(eb, bit_slice(wdata, (b % per) * eb + eb - 1, (b % per) * eb))
            we = net.wire(g.nb, f"({hit}) ? {lanes} : {lit(0, g.nb)}")
            self.port(array, "a", b).sources.append((hit, addr, we, data))

    def bank_store_port(
        self, array: str, act: str, beat: str = "wr_addr", re: str = "wr_re"
    ) -> tuple[str, int]:
        """The store phase reads every bank at the beat's word (port a) and gathers the beat
        from them: (its read data, beats per RAM word as `sub`). `beat`, `re`: the engine's
        beat index and read strobe (the burst write engine's, or an AXI-Stream master's)."""
        net, bus = self.net, self.bus
        g, shift, kind, addr = self._beats(array, beat)
        eb = g.elem_bits
        en = f"{act} && {re}"
        for b in range(g.f):
            self.port(array, "a", b).sources.append((en, addr, lit(0, g.nb), lit(0, g.width)))
        rd = [f"{self.ram_sig(array, b)}_a_rdata" for b in range(g.f)]
        if kind == "all":
            per = bus // eb
            parts = [bit_slice(rd[j % g.f], (j // g.f) * eb + eb - 1, (j // g.f) * eb) for j in range(per)]
            return net.wire(bus, "{" + ", ".join(reversed(parts)) + "}", f"{array}: a beat from the banks"), 1
        # the bank group of the beat being read, for the read data of the next cycle
        sel_bits = g.lbf if kind == "half" else shift
        sel = self.reg(f"wsel_{array}", sel_bits)
        self.write(sel, en, bit_slice(beat, g.lbf, 1) if kind == "half" else bit_slice(beat, shift - 1, 0))
        if kind == "half":
            options = rd
        else:
            per = bus // eb
            options = [
                "{" + ", ".join(bit_slice(rd[grp * per + j], eb - 1, 0) for j in reversed(range(per))) + "}"
                for grp in range(g.f // per)
            ]
        expr = options[-1]
        for i in range(len(options) - 2, -1, -1):
            expr = f"({sel} == {lit(i, sel_bits)}) ? {options[i]} : {expr}"
        width = 64 if kind == "half" else bus
        return net.wire(width, expr, f"{array}: a beat from the banks"), 2 if kind == "half" else 1

    def bank_init_port(self, array: str, port: str, off: int, cb: int, ok: str, data: str) -> None:
        """Initialisation of a partitioned local array: element 2 init_i + off (port a: even,
        b: odd) is in bank (2 init_i + off) mod F, word init_i / (F / 2)."""
        net = self.net
        g = bank_geometry(self.rams[array], self.bus)
        lo = g.lbf - 1  # bits of init_i that pick the bank among the even (odd) ones
        if cb > lo:
            word = net._sized(net.wire(cb - lo, bit_slice("init_i", cb - 1, lo)), cb - lo, g.aw, False)
        else:
            word = lit(0, g.aw)
        if lo:
            sel = net._sized("init_i", cb, lo, False) if cb <= lo else bit_slice("init_i", lo - 1, 0)
        for b in range(off, g.f, 2):
            hit = ok if lo == 0 else net.wire(1, f"{ok} && ({sel} == {lit(b >> 1, lo)})")
            self.port(array, port, b).sources.append((hit, word, hit, data))

    def bank_instances(self, array: str) -> tuple[list[dict], list[dict]]:
        """The bank RAMs (or ROMs) of a partitioned array: instance and ROM module records."""
        ram = self.rams[array]
        g = bank_geometry(ram, self.bus)
        insts, roms = [], []
        for b in range(g.f):
            sig = self.ram_sig(array, b)
            inst = {"sig": sig, "width": g.width, "nb": g.nb, "depth": g.depth, "aw": g.aw, "ports": {}}
            for p in "ab":
                srcs = self.ports.get((f"{array}#{b}", p), Port()).sources
                inst["ports"][p] = _port_exprs(self.net, srcs, g.aw, g.nb, g.width)
            inst["rom"] = ram.kind == "rom"
            if inst["rom"]:
                local = next(a for a in self.k.locals if a.name == array)
                inst["module"] = f"{self.k.name}_rom_{array}_b{b}"
                roms.append(
                    {
                        "module": inst["module"],
                        "array": f"{array} (bank {b} of {g.f}: elements {b}, {b + g.f}, ...)",
                        "dtype": local.dtype.name,
                        "shape": " x ".join(str(d) for d in local.shape),
                        "width": g.width,
                        "depth": g.depth,
                        "aw": g.aw,
                        "words": [lit(_const_word(x, local.dtype), g.width) for x in local.init[b :: g.f]],
                    }
                )
            else:
                inst["module"] = f"{self.k.name}_ram_be"
            inst["kind"] = f"{ram.kind}, bank {b} of {g.f} (elements i with i mod {g.f} == {b})"
            inst["impl"] = ram.cost.impl
            insts.append(inst)
        return insts, roms

    # ---- AXI-Stream ports of a chain
    def _stream_geometry(self, p: ir.Param) -> dict:
        """The engine parameters of streamed array `p`: beats, beat-index bits, the bytes of
        the last beat that belong to the array, and its buffer RAM's word width."""
        ram = self.rams[p.name]
        if ram.banks > 1 and self.bus != STREAM_BITS:
            raise RtlVariantUnsupported(
                f"kernel {self.k.name}: array {p.name} is an AXI-Stream port of a chain; the built-in RTL "
                f"scatters a {STREAM_BITS}-bit beat into the banks of a cyclic partition only with a "
                f"{STREAM_BITS}-bit m_axi (where a beat is a bus word), not {self.bus}"
            )
        if ram.width not in (32, 64, 128):
            raise AssertionError((p.name, ram.width))
        beats = stream_beats(p.nbytes)
        bw = max(1, (beats - 1).bit_length())
        if ram.banks > 1:  # the banks' word address is sliced from the beat index
            bw = max(bw, self.engine_address_bits(p.name))
        tail = p.nbytes - STREAM_BYTES * (beats - 1)
        return {
            "name": p.name,
            "bw": bw,
            "last": lit(beats - 1, bw),
            "mask": lit((1 << (8 * tail)) - 1, 64),
            "beats": beats,
            "width": ram.width,
        }

    def _beat_ports(self, p: ir.Param, g: dict, beat: str, en: str) -> list[tuple[str, str, str, str]]:
        """The RAM ports that hold beat `beat` (a beat index) of `p`'s buffer while `en`:
        (port, word address, write lanes of the beat's bytes) for each; a 32-bit RAM holds a
        beat in two words (ports a and b, the second past the buffer for an odd word count's
        last beat), a 64-bit one in one word, a 128-bit one in half a word."""
        ram, net = self.rams[p.name], self.net
        aw, bw, w = word_address_bits(ram), g["bw"], g["width"]
        if w == 64:
            return [("a", net._sized(beat, bw, aw, False), en, lit(0xFF, 8))]
        if w == 32:
            out = []
            for port, half in (("a", 0), ("b", 1)):
                addr = net._sized(net.wire(bw + 1, f"{{{beat}, 1'b{half}}}"), bw + 1, aw, False)
                on = en
                if half and ram.depth % 2:
                    on = net.wire(1, f"{en} && ({beat} != {g['last']})")
                out.append((port, addr, on, lit(0xF, 4)))
            return out
        addr = net._sized(bit_slice(beat, bw - 1, 1), bw - 1, aw, False) if bw > 1 else lit(0, aw)
        lanes = net.wire(16, f"{bit_slice(beat, 0, 0)} ? 16'hff00 : 16'h00ff")
        return [("a", addr, en, lanes)]

    def stream_in(self, p: ir.Param, when: str, act: str) -> dict:
        """The AXI-Stream slave of streamed input `p`: started by `when`, it writes each
        beat into the buffer as it arrives during its phase `act` (the load phase of an m_axi
        array); into the banks as the load phase does, when the array is partitioned."""
        g = self._stream_geometry(p)
        n = p.name
        if self.rams[n].banks > 1:
            self.bank_load_port(n, act, f"si_{n}_addr", f"si_{n}_we", f"si_{n}_wdata")
            return {**g, "dir": "in", "when": when}
        nb = _lanes(self.rams[p.name])
        for port, addr, on, lanes in self._beat_ports(p, g, f"si_{n}_addr", f"si_{n}_we"):
            if g["width"] == 32:
                data = bit_slice(f"si_{n}_wdata", 31 + 32 * (port == "b"), 32 * (port == "b"))
            elif g["width"] == 64:
                data = f"si_{n}_wdata"
            else:
                data = self.net.wire(128, f"{{2{{si_{n}_wdata}}}}")
            we = self.net.wire(nb, f"{on} ? {lanes} : {lit(0, nb)}")
            self.port(n, port).sources.append((on, addr, we, data))
        return {**g, "dir": "in", "when": when}

    def stream_out(self, p: ir.Param, when: str, act: str) -> dict:
        """The AXI-Stream master of streamed output `p`: started by `when` (after compute),
        it reads the buffer beat by beat during `act` (the store phase of an m_axi array);
        from the banks as the store phase does, when the array is partitioned."""
        g = self._stream_geometry(p)
        n, ram = p.name, self.rams[p.name]
        sig = self.ram_sig(n)
        if ram.banks > 1:
            rdata, sub = self.bank_store_port(n, act, f"so_{n}_addr", f"so_{n}_re")
            assert sub == 1 and self.bus == STREAM_BITS, (n, sub)
            return {**g, "dir": "out", "when": when, "rdata": rdata}
        for port, addr, on, _wl in self._beat_ports(p, g, f"so_{n}_addr", f"so_{n}_re"):
            self.port(n, port).sources.append((on, addr, lit(0, _lanes(ram)), lit(0, ram.width)))
        if g["width"] == 32:
            rdata = f"{{{sig}_b_rdata, {sig}_a_rdata}}"
        elif g["width"] == 64:
            rdata = f"{sig}_a_rdata"
        else:  # the half of the word read with the beat: its index's low bit, registered
            half = self.reg(f"so_{n}_half", 1)
            self.write(half, f"so_{n}_re", bit_slice(f"so_{n}_addr", 0, 0))
            rdata = f"({half} ? {sig}_a_rdata[127:64] : {sig}_a_rdata[63:0])"
        return {**g, "dir": "out", "when": when, "rdata": rdata}

    def access_sources(self) -> None:
        for acc in self.accesses:
            ram = self.rams[acc.array]
            if ram.banks > 1:
                self.bank_access(acc)
                continue
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
            eb = ram.elem_bits
            val = self._store_value(acc, eb)
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


def _static_bank(acc) -> int | None:
    """The bank an access always reaches (the schedule's static frame), else None."""
    return acc.bank[1] if acc.bank is not None and acc.bank[0] == () else None


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
    RtlVariantUnsupported for a variant it cannot build (an m_axi width other than 32, 64
    or 128 bits)."""
    d = directives or Directives(BASE)
    _check(kernel, board)
    bus = d.bus(board)
    if bus not in shells.ENGINE_DATA_BITS:
        raise RtlVariantUnsupported(
            f"kernel {kernel.name}: variant {d.name} has a {bus}-bit m_axi; the built-in RTL's burst "
            f"engines move {', '.join(map(str, shells.ENGINE_DATA_BITS))}-bit words"
        )
    built = unroll_kernel(kernel, dict(d.unroll)) if d.unroll else kernel
    State._n = 0
    b = _Builder(built, board, frozenset(d.sequential), bus, dict(d.partition))
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
    ld_states = [b.state(f"{'stream in' if p.stream else 'load'} {p.name}") for p in loads]
    st_states = [b.state(f"{'stream out' if p.stream else 'store'} {p.name}") for p in stores]
    init_states = [b.state(f"initialise {a.name}") for a in inits]
    compute = b.block(b.sched.body, post, None)
    # phase chain: each transfer phase waits for its engine's done pulse
    ld_done = [f"si_{p.name}_done" if p.stream else "rd_done" for p in loads]
    st_done = [f"so_{p.name}_done" if p.stream else "wr_done" for p in stores]
    after_loads = init_states[0] if init_states else compute
    start.next = ld_states[0] if ld_states else after_loads
    for i, st in enumerate(ld_states):
        st.branch = (ld_done[i], ld_states[i + 1] if i + 1 < len(ld_states) else after_loads, st)
    for i, st in enumerate(init_states):
        st.branch = ("init_last", init_states[i + 1] if i + 1 < len(init_states) else compute, st)
    post.next = st_states[0] if st_states else done
    for i, st in enumerate(st_states):
        st.branch = (st_done[i], st_states[i + 1] if i + 1 < len(st_states) else done, st)
    for name_ in sorted(b.written & set(b.params)):
        p = b.params[name_]
        src = f"|arg_{name_}" if p.dtype.is_bool else f"arg_{name_}"
        b.write(b.vreg(name_), start.ref, src)

    b.access_sources()

    # ---- engines and buffer ports
    # One engine word (bus beat) is one RAM word, except for elements wider than the bus
    # (int64 on the 32-bit bus): `sub` = 2 beats a word, the low half first. A streamed
    # array moves through an AXI-Stream engine of its own instead (`_stream_in`/`_stream_out`).
    bus = b.bus
    mem = [p for p in k.arrays if not p.stream]
    len_w = shells.len_bits_for(max([p.nbytes for p in mem] or [1]))
    eng_aw = max([b.engine_address_bits(p.name) for p in mem] or [1])
    engine = {"aw": eng_aw, "len_w": len_w, "loads": [], "stores": []}
    streams = []
    for i, p in enumerate(loads):
        ram = rams[p.name]
        prev = start if i == 0 else ld_states[i - 1]
        when = prev.ref if i == 0 else f"({prev.ref} && {ld_done[i - 1]})"
        if p.stream:
            streams.append(b.stream_in(p, when, ld_states[i].ref))
            continue
        if ram.banks > 1:
            b.bank_load_port(p.name, ld_states[i].ref)
            engine["loads"].append({"when": when, "base": f"arg_{p.name}", "nbytes": lit(p.nbytes, len_w)})
            continue
        sub = ram.width // bus
        assert ram.width % bus == 0 and sub in (1, 2) and (sub == 1 or bus == 32), (p.name, ram.width, bus)
        aw = word_address_bits(ram)
        act = ld_states[i].ref
        addr = bit_slice("rd_addr", aw + sub - 2, sub - 1)
        lanes = (
            lit((1 << (bus // 8)) - 1, bus // 8) if sub == 1 else net.wire(8, "rd_addr[0] ? 8'hf0 : 8'h0f")
        )
        we = net.wire(_lanes(ram), f"({act} && rd_we) ? {lanes} : {lit(0, _lanes(ram))}")
        wdata = "rd_wdata" if sub == 1 else net.wire(64, "{2{rd_wdata}}")
        b.port(p.name, "a").sources.append((f"{act} && rd_we", addr, we, wdata))
        engine["loads"].append({"when": when, "base": f"arg_{p.name}", "nbytes": lit(p.nbytes, len_w)})
    for i, p in enumerate(stores):
        ram = rams[p.name]
        sub = ram.width // bus
        aw = word_address_bits(ram)
        prev = post if i == 0 else st_states[i - 1]
        when = prev.ref if i == 0 else f"({prev.ref} && {st_done[i - 1]})"
        act = f"({st_states[i].ref} || {when})"
        if p.stream:
            streams.append(b.stream_out(p, when, act))
            continue
        if ram.banks > 1:
            rdata, sub = b.bank_store_port(p.name, act)
        else:
            addr = bit_slice("wr_addr", aw + sub - 2, sub - 1)
            b.port(p.name, "a").sources.append(
                (f"{act} && wr_re", addr, lit(0, _lanes(ram)), lit(0, ram.width))
            )
            rdata = f"{b.ram_sig(p.name)}_a_rdata"
        engine["stores"].append(
            {
                "when": when,
                "base": f"arg_{p.name}",
                "nbytes": lit(p.nbytes, len_w),
                "sel": st_states[i].ref,
                "rdata": rdata,
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
                if ram.banks > 1:
                    b.bank_init_port(a.name, port, off, cb, ok, data)
                else:
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
        if ram.banks > 1:
            insts, bank_roms = b.bank_instances(arr_name)
            ram_list += insts
            roms += bank_roms
            continue
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
        "engine": _resolve_engine(engine, resolve),
        "gmem": bool(mem),
        "streams": [{**s, "when": resolve(s["when"])} for s in streams],
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
                *(
                    (
                        shells.render_read_engine(k.name, eng_aw, len_w, bus),
                        shells.render_write_engine(k.name, eng_aw, len_w, bus),
                    )
                    if mem
                    else ()
                ),
                *(shells.render_axis_engine(d, k.name) for d in sorted({s["dir"] for s in streams})),
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
    return RtlKernel(
        k.name, k.name, sources, out, b.sched, b.rmap, variant, estimate_cycles, bus, gmem=bool(mem),
        streams={p.name: p.direction for p in k.arrays if p.stream},
    )  # fmt: skip


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


def _resolve_engine(e: dict, resolve) -> dict:
    out = {"aw": e["aw"], "len_w": e["len_w"], "has_load": bool(e["loads"]), "has_store": bool(e["stores"])}
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
