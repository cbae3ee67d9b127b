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
order (see `_Region`); loads and stores also get the port and the (frame, residue) bank
the schedule gave them. The estimator passes none.

Statement paths: a top-level statement i has path (i,); statement j of the body of
the loop at p has p + (j,); statement j of the then/else branch of the `if` at p has
p + (0, j) / p + (1, j).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from partition import ir
from partition.dtypes import DType
from partition.estimate import tables
from partition.estimate.tables import OpCost

# ----------------------------------------------------------- call phases

# Control overhead of one call (state transitions of the phase FSM), counted exactly:
START_CYCLES = 1  # idle -> first phase when ap_start is seen
TRANSFER_SETUP_CYCLES = 1  # per array transfer: latch base address and length
COMPUTE_ENTER_CYCLES = 1  # last load phase (or start) -> compute
DONE_CYCLES = 1  # the state asserting ap_done / ap_ready / interrupt
MAX_BURST_BEATS = 256  # AXI4 INCR burst limit
RAM_PORTS = 2  # every RAM is true dual-port (a cyclic-partitioned array: 2 per bank)
OPAQUE = "opaque"  # bank frame of an access whose bank nothing bounds (it may hit any bank)
BURST_BOUNDARY = 4096  # AXI bursts never cross a 4 KB boundary
BUFFER_ALIGNMENT = 4096  # pynq.allocate returns page-aligned CMA buffers
STREAM_BITS = 64  # TDATA of an AXI-Stream chain: the array's bytes in DDR order (partition_ops.h)


def control_cycles(transfers: int) -> int:
    """Phase-FSM overhead of one call with `transfers` array transfers (loads + stores)."""
    return START_CYCLES + transfers * TRANSFER_SETUP_CYCLES + COMPUTE_ENTER_CYCLES + DONE_CYCLES


def bursts(nbytes: int, bus_bytes: int, base: int = 0) -> list[int]:
    """Beats of each INCR burst moving `nbytes` from byte address `base`.

    Bursts have at most 256 beats and never cross a 4 KB boundary; the buffer is at
    least bus-word aligned (a partial last word is one beat with partial strobes).
    """
    if nbytes <= 0:
        return []
    if base % bus_bytes:
        raise ValueError("buffers are bus-word aligned")
    out = []
    addr, end = base, base + nbytes
    while addr < end:
        to_boundary = BURST_BOUNDARY - addr % BURST_BOUNDARY
        chunk = min(end - addr, to_boundary, MAX_BURST_BEATS * bus_bytes)
        beats = math.ceil(chunk / bus_bytes)
        out.append(beats)
        addr += beats * bus_bytes
    return out


def stream_beats(nbytes: int) -> int:
    """Beats of an array streamed through an AXI-Stream chain (one a cycle, no address phase)."""
    return -(-nbytes // (STREAM_BITS // 8))


def transfer_cycles(nbytes: int, bus_bytes: int, latency: int, base: int = 0) -> int:
    """Cycles of one array transfer: per burst, its latency plus its beats (one burst
    outstanding at a time; read: AR -> first R beat; write: last W beat -> B)."""
    return sum(latency + b for b in bursts(nbytes, bus_bytes, base))


# ------------------------------------------------------------- artefacts


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
class RamInfo:
    name: str  # the RAM's name in the design (<param>_buf for array parameters)
    array: str  # IR array name
    kind: str  # buffer, local, rom
    elem_bits: int
    elems: int
    depth: int
    width: int
    per_word: int  # elements per RAM word (> 1 when packed)
    cost: tables.RamCost
    sites: int = 0  # access operations in the compute schedule
    banks: int = 1  # cyclic partitioning factor F: bank b holds the elements i with i mod F == b


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
        out: list[ScheduledOp] = []

        def walk(stmts: list[StmtSchedule]) -> None:
            for s in stmts:
                out.extend(s.ops)
                if s.loop is not None:
                    walk(s.loop.body)
                walk(s.then)
                walk(s.orelse)

        walk(self.body)
        return out


# --------------------------------------------------------------- helpers


def _elem_bits(dt: DType, in_memory: bool) -> int:
    """Bits of one array element: host layout for buffers (bool is a byte), else the type."""
    if dt.is_bool:
        return 8 if in_memory else 1
    return dt.bits


def ram_geometry(name: str, dt: DType, elems: int, kind: str, bus_bits: int) -> RamInfo:
    """Shape of the RAM holding an array: buffers pack narrow elements into bus words."""
    eb = _elem_bits(dt, kind == "buffer")
    if kind == "buffer" and eb < bus_bits:
        per_word = bus_bits // eb
        width, depth = bus_bits, max(1, math.ceil(elems / per_word))
    else:
        per_word, width, depth = 1, eb, max(1, elems)
    ram_name = f"{name}_buf" if kind == "buffer" else name
    return RamInfo(ram_name, name, kind, eb, elems, depth, width, per_word, tables.ram_cost(depth, width))


@dataclass(frozen=True)
class BankGeometry:
    """One bank of a cyclic-partitioned array (F banks): bank b holds the elements i with
    i mod F == b, Q of them a word (buffers packed like the bus words, so one bus beat is a
    word of each bank; else one element a word): element i is lane (i / F) mod Q of word
    i / (F Q) of bank i mod F."""

    f: int
    q: int
    elem_bits: int
    width: int
    depth: int
    aw: int
    nb: int  # write lanes (bytes of a buffer word; 1 for a local array)

    @property
    def lbf(self) -> int:
        return self.f.bit_length() - 1

    @property
    def lbq(self) -> int:
        return self.q.bit_length() - 1


def bank_geometry(ram: RamInfo, bus_bits: int) -> BankGeometry:
    """The banks of `ram` (its `banks` set) with a `bus_bits` m_axi: what the built-in RTL
    builds and the variants' resource estimate costs."""
    f, eb = ram.banks, ram.elem_bits
    q = max(1, bus_bits // eb // f) if ram.kind == "buffer" else 1
    width = q * eb
    depth = max(1, math.ceil(ram.elems / (f * q)))
    nb = width // 8 if ram.kind == "buffer" else 1
    return BankGeometry(f, q, eb, width, depth, max(1, (depth - 1).bit_length()), nb)


def _contains_loop(stmts: list[ir.Stmt]) -> bool:
    return any(isinstance(s, ir.For) for s in ir.walk_stmts(stmts))


def _dtype_bits(dt: DType) -> int:
    return 1 if dt.is_bool else dt.bits


@dataclass
class _Val:
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
class _Access:
    kind: str  # load/store
    array: str
    cycle: int
    affine: tuple | None
    order: int


class _Ctx:
    """Per-kernel context: tables for the family/clock, arrays, types."""

    def __init__(
        self,
        kernel: ir.Kernel,
        family: str,
        clock_mhz: float,
        bus_bits: int,
        emitter=None,
        banks: dict[str, int] | None = None,
        sequential: frozenset[str] = frozenset(),
    ):
        self.kernel = kernel
        self.emitter = emitter
        self.banks = {a: f for a, f in (banks or {}).items() if f > 1}  # array -> cyclic factor F
        self.sequential = sequential  # labels of innermost loops that are not pipelined
        self.family = family
        self.clock = clock_mhz
        self.budget = tables.budget_ns(clock_mhz)
        self.bus_bits = bus_bits
        self.notes: list[str] = []
        self.rams: dict[str, RamInfo] = {}
        for p in kernel.arrays:
            self.rams[p.name] = ram_geometry(p.name, p.dtype, p.size, "buffer", bus_bits)
        for a in kernel.locals:
            kind = "rom" if a.init is not None and not self._stored(a.name) else "local"
            self.rams[a.name] = ram_geometry(a.name, a.dtype, a.size, kind, bus_bits)
        for a, f in self.banks.items():
            if f & (f - 1) or f > self.rams[a].elems:
                raise ValueError(
                    f"array {a}: {f} banks (a power of two, at most its {self.rams[a].elems} elements)"
                )
            self.rams[a].banks = f
        self.var_types: dict[str, DType] = dict(kernel.scalars)
        for p in kernel.scalar_params:
            self.var_types.setdefault(p.name, p.dtype)
        for s in ir.walk_stmts(kernel.body):
            if isinstance(s, ir.For):
                self.var_types.setdefault(s.var, s.start.dtype)
            elif isinstance(s, ir.Assign):
                self.var_types.setdefault(s.var, s.value.dtype)
        self.chain_ff = 0
        self.writers: dict[str, int] = defaultdict(int)
        self.narrow = _narrow_vars(kernel, self.var_types)
        # element lanes of a packed buffer word the compute phase reads (None: any lane)
        self.lanes: dict[str, set[int] | None] = {}

    def read_lanes(self, array: str, index: tuple[ir.Expr, ...]) -> None:
        """Record which element lanes of its packed word a load of `array` can select: a
        flat index whose every variable term is a multiple of the elements per word always
        lands in the same lane, whatever the variables' values."""
        ram = self.rams[array]
        if ram.kind != "buffer" or ram.per_word == 1 or (array in self.lanes and self.lanes[array] is None):
            return
        aff = flat_affine(index, self.kernel.array_shape(array), None)
        if aff is None or any(c % ram.per_word for _n, c in aff[2]):
            self.lanes[array] = None
        else:
            self.lanes.setdefault(array, set()).add(aff[1] % ram.per_word)

    def _stored(self, name: str) -> bool:
        return any(isinstance(s, ir.Store) and s.array == name for s in ir.walk_stmts(self.kernel.body))

    def port_count(self, array: str) -> int:
        """RAM ports of `array`: two, or two per bank of a partitioned array."""
        return RAM_PORTS * self.banks.get(array, 1)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


# ------------------------------------------------------- affine indices


def _affine(e: ir.Expr, loop_var: str | None) -> tuple[int, int, tuple] | None:
    """e as coef * loop_var + offset + (symbolic terms), or None when not affine."""
    if isinstance(e, ir.Const):
        if isinstance(e.value, bool) or not isinstance(e.value, int):
            return None
        return (0, int(e.value), ())
    if isinstance(e, ir.Var):
        if e.name == loop_var:
            return (1, 0, ())
        return (0, 0, ((e.name, 1),))
    if isinstance(e, ir.Cast) and e.dtype.is_int and e.operand.dtype.is_int:
        return _affine(e.operand, loop_var)
    if isinstance(e, ir.Un) and e.op == "neg":
        a = _affine(e.operand, loop_var)
        return None if a is None else _scale(a, -1)
    if isinstance(e, ir.Bin) and e.op in ("add", "sub"):
        a, b = _affine(e.lhs, loop_var), _affine(e.rhs, loop_var)
        if a is None or b is None:
            return None
        if e.op == "sub":
            b = _scale(b, -1)
        return _add(a, b)
    if isinstance(e, ir.Bin) and e.op == "mul":
        for x, y in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(y, ir.Const) and isinstance(y.value, int) and not isinstance(y.value, bool):
                a = _affine(x, loop_var)
                return None if a is None else _scale(a, int(y.value))
    return None


def _scale(a: tuple[int, int, tuple], k: int) -> tuple[int, int, tuple]:
    return (a[0] * k, a[1] * k, tuple((n, c * k) for n, c in a[2]))


def _add(a: tuple[int, int, tuple], b: tuple[int, int, tuple]) -> tuple[int, int, tuple]:
    terms: dict[str, int] = defaultdict(int)
    for n, c in a[2] + b[2]:
        terms[n] += c
    return (a[0] + b[0], a[1] + b[1], tuple(sorted((n, c) for n, c in terms.items() if c)))


def flat_affine(index: tuple[ir.Expr, ...], shape: tuple[int, ...], loop_var: str | None):
    """The row-major flat index of `index` as an affine form in `loop_var`, or None when it is not affine.

    The schedule (memory ports, RAW distances) and the variants (cyclic
    partitioning needs a uniform stride) both ask this of array accesses.
    """
    total: tuple[int, int, tuple] = (0, 0, ())
    stride = 1
    for e, dim in zip(reversed(index), reversed(shape or (1,))):
        a = _affine(e, loop_var)
        if a is None:
            return None
        total = _add(total, _scale(a, stride))
        stride *= dim
    return total


# -------------------------------------------------------------- regions


class _PortsFull(Exception):
    """Every slot of a pipeline's II has its ports on this array taken: the II must grow."""


class _Region:
    """Schedules straight-line code: one FSM statement, or one pipelined loop iteration."""

    def __init__(self, ctx: _Ctx, ii: int | None = None, loop: ir.For | None = None, emit=None):
        self.ctx = ctx
        self.emit = emit  # listener of the values this region creates (the RTL backend), or None
        self.ii = ii  # modulo port reservation when pipelined
        self.loop = loop
        self.ops: list[ScheduledOp] = []
        self.vals: list[_Val] = []
        self.avail: dict[str, _Val] = {}
        self.first_read: dict[str, int] = {}
        # per (array, cycle or pipeline slot): the RAM ports in use, each [bank frame, banks taken]
        self.ports: dict[tuple[str, int], list[list]] = defaultdict(list)
        # variables an iteration writes: a bank that depends on them is not common to the
        # iterations in flight
        self.written = (
            {x.var for x in ir.walk_stmts(loop.body) if isinstance(x, ir.Assign)} | {loop.var}
            if loop is not None
            else set()
        )
        self.accesses: list[_Access] = []
        self.commit = 0
        self.guard: _Val | None = None
        self.unit_ii = 1
        self.order = 0
        self.owner = 0  # index of the body statement being scheduled (pipelined loops)
        self.by_owner: dict[int, list[ScheduledOp]] = defaultdict(list)
        # Equal pure (sub)expressions of one statement are computed once: IR expressions
        # are frozen dataclasses, so equal trees are equal keys.
        self.memo: dict[Any, _Val] = {}
        self.addr_memo: dict[tuple, list[_Val]] = {}

    # ---- placement
    def _use(self, v: _Val, cycle: int, dsp: bool = False) -> None:
        v.last_use = max(v.last_use, cycle)
        v.to_dsp |= dsp
        v.to_fabric |= not dsp
        if v.var is not None:
            prev = self.first_read.get(v.var)
            self.first_read[v.var] = cycle if prev is None else min(prev, cycle)
        for src in v.srcs:
            self._use(src, cycle, dsp)

    def _start(self, operands: list[_Val]) -> tuple[int, float]:
        if not operands:
            return (0, 0.0)
        return max((v.cycle, v.ns) for v in operands)

    def _place(
        self, node: Any, kind: str, bits: int, cost: OpCost, operands: list[_Val], array=None, role=None
    ) -> _Val:
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
            v = _Val(c, t, bits, counted=False, srcs=tuple(operands))
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

    def _record(self, node, kind, bits, cost, operands, c, t, rc, rt, array=None) -> _Val:
        for v in operands:
            self._use(v, c, dsp=cost.dsp > 0)
        self.unit_ii = max(self.unit_ii, cost.ii)
        op = ScheduledOp(node, kind, bits, cost, c, t, rc, rt, array)
        self.ops.append(op)
        self.by_owner[self.owner].append(op)
        v = _Val(rc, rt, bits, from_dsp=cost.dsp > 0)
        self.vals.append(v)
        return v

    def _virtual(self, node: Any, kind: str, operands: list[_Val], role: str) -> _Val:
        """A value that is wiring of its operands and no operation of its own in the model
        (e.g. the inverted condition guarding an else branch: absorbed into the write enable)."""
        c, t = self._start(operands)
        v = _Val(c, t, 1, counted=False, srcs=tuple(operands))
        if self.emit is not None:
            self.emit.op(node, kind, operands, v, None, role)
        return v

    def _var_read(self, name: str, bits: int) -> _Val:
        """The value a variable's register holds when this region starts (an incoming value)."""
        v = _Val(0, 0.0, bits, counted=False, var=name)
        if self.emit is not None:
            self.emit.var(name, v)
        return v

    def _bank(self, array: str, aff, cycle: int) -> tuple[tuple, int] | None:
        """(frame, residue) of an access to `array` issued in `cycle`, None when unknown.

        A cyclic-partitioned array's bank is the flat index mod F. Accesses in one frame
        see the same unknown part (the loop-invariant symbols, the iteration count), so
        their banks are (common + residue) mod F: different residues, different banks. The
        frame () is the static one (residue = the bank). In a pipeline, an access `q`
        stages deep belongs to the iteration issued q x II cycles earlier, whose loop
        variable is q x step smaller. An unpartitioned array is one bank, frame ()."""
        f = self.ctx.banks.get(array, 1)
        if f == 1:
            return ((), 0)
        if aff is None:
            return None
        coef, off, syms = aff
        terms = []
        dyn = 0
        if self.ii and self.loop is not None:
            lp = self.loop
            if isinstance(lp.start, ir.Const) and not isinstance(lp.start.value, bool):
                off += coef * int(lp.start.value)
            elif coef % f:
                terms.append(("<start>", coef % f))
            dyn = coef * lp.step % f
            off -= coef * lp.step * (cycle // self.ii)
        elif coef % f:
            return None
        for name, c in syms:
            if c % f:
                if name in self.written:
                    return None
                terms.append((name, c % f))
        return ((dyn, tuple(terms)) if dyn or terms else (), off % f)

    def _reserve_port(self, array: str, cycle: int, aff=None) -> tuple[int, int, tuple | None]:
        """The first cycle from `cycle` with a free port for this access: (cycle, port, bank).

        Each RAM port of an array serves, in one cycle (pipeline slot), accesses of one bank
        frame with different residues (a partitioned array: up to F, each on its own bank;
        an access of unknown bank takes a port of every bank), so the accesses sharing a
        cycle never meet on one bank's port. An unpartitioned array: two accesses a cycle."""
        f = self.ctx.banks.get(array, 1)
        tries = 0
        while True:
            slot = cycle % self.ii if self.ii else cycle
            bank = self._bank(array, aff, cycle)
            ports = self.ports[(array, slot)]
            frame = OPAQUE if bank is None else bank[0]
            for p, (fr, taken) in enumerate(ports):
                if bank is not None and fr == frame and bank[1] not in taken:
                    taken.add(bank[1])
                    return cycle, p, bank
            if len(ports) < RAM_PORTS:
                ports.append([frame, set(range(f)) if bank is None else {bank[1]}])
                return cycle, len(ports) - 1, bank
            cycle += 1
            tries += 1
            if self.ii and tries >= self.ii:
                raise _PortsFull(array)

    # ---- expressions
    def expr(self, e: ir.Expr) -> _Val:
        v = self.memo.get(e)
        if v is None:
            v = self._expr(e)
            self.memo[e] = v
        return v

    def _expr(self, e: ir.Expr) -> _Val:
        ctx = self.ctx
        fam = ctx.family
        if isinstance(e, ir.Const):
            v = _Val(0, 0.0, _dtype_bits(e.dtype), counted=False)
            if self.emit is not None:
                self.emit.const(e, v)
            return v
        if isinstance(e, ir.Var):
            if e.name in self.avail:
                return self.avail[e.name]
            return self._var_read(e.name, _dtype_bits(e.dtype))
        if isinstance(e, ir.Load):
            return self._load(e)
        if isinstance(e, ir.Select):
            c, a, b = self.expr(e.cond), self.expr(e.then), self.expr(e.orelse)
            return self._place(
                e,
                "select",
                _dtype_bits(e.dtype),
                tables.int_cost("select", _dtype_bits(e.dtype), fam),
                [c, a, b],
            )
        if isinstance(e, ir.Cast):
            return self._cast(e)
        if isinstance(e, ir.Un):
            v = self.expr(e.operand)
            kind, cost = self._un_cost(e)
            return self._place(e, kind, _dtype_bits(e.dtype), cost, [v])
        if isinstance(e, ir.Logic):
            a, b = self.expr(e.lhs), self.expr(e.rhs)
            return self._place(e, "logic", 1, tables.int_cost("logic", 1, fam), [a, b])
        if isinstance(e, ir.Cmp):
            a, b = self.expr(e.lhs), self.expr(e.rhs)
            dt = e.lhs.dtype
            if dt.is_float:
                cost = tables.float_cost("fcmp", dt.bits, fam, ctx.clock)
                kind = "fcmp"
            elif dt.is_bool:
                cost, kind = tables.int_cost("logic", 1, fam), "logic"
            elif e.op in ("eq", "ne"):
                cost, kind = tables.int_cost("eq", dt.bits, fam), "eq"
            else:
                cost, kind = tables.int_cost("cmp", dt.bits, fam), "cmp"
            return self._place(e, kind, 1, cost, [a, b])
        if isinstance(e, ir.Bin):
            a, b = self.expr(e.lhs), self.expr(e.rhs)
            kind, cost = self._bin_cost(e)
            return self._place(e, kind, _dtype_bits(e.dtype), cost, [a, b])
        raise TypeError(f"unknown expression {type(e).__name__}")

    def _cast(self, e: ir.Cast) -> _Val:
        ctx, fam = self.ctx, self.ctx.family
        v = self.expr(e.operand)
        src, dst = e.operand.dtype, e.dtype
        if src == dst or (src.is_int and dst.is_int) or (src.is_bool and dst.is_int):
            return self._place(
                e, "wire", _dtype_bits(dst), tables.int_cost("wire", _dtype_bits(dst), fam), [v]
            )
        if dst.is_bool:
            if src.is_float:
                cost, kind = tables.float_cost("fcmp", src.bits, fam, ctx.clock), "fcmp"
            else:
                cost, kind = tables.int_cost("eq", src.bits, fam), "eq"
            return self._place(e, kind, 1, cost, [v])
        if src.is_bool and dst.is_float:
            return self._place(e, "select", dst.bits, tables.int_cost("select", dst.bits, fam), [v])
        if src.is_int and dst.is_float:
            return self._place(
                e, "itof", dst.bits, tables.convert_cost("itof", src.bits, dst.bits, fam, ctx.clock), [v]
            )
        if src.is_float and dst.is_int:
            return self._place(
                e, "ftoi", dst.bits, tables.convert_cost("ftoi", src.bits, dst.bits, fam, ctx.clock), [v]
            )
        if src.is_float and dst.is_float:
            kind = "fext" if dst.bits > src.bits else "ftrunc"
            return self._place(
                e, kind, dst.bits, tables.convert_cost(kind, src.bits, dst.bits, fam, ctx.clock), [v]
            )
        raise TypeError(f"cast {src} -> {dst}")

    def _un_cost(self, e: ir.Un) -> tuple[str, OpCost]:
        fam, dt = self.ctx.family, e.dtype
        if dt.is_float:
            op = {"neg": "fneg", "abs": "fabs"}.get(e.op)
            if op is None:
                raise TypeError(f"{e.op} on {dt}")
            return op, tables.float_cost(op, dt.bits, fam, self.ctx.clock)
        if dt.is_bool or e.op == "not":
            return "not", tables.int_cost("not", 1, fam)
        op = {"neg": "neg", "invert": "invert", "abs": "abs"}[e.op]
        return op, tables.int_cost(op, dt.bits, fam)

    def _bin_cost(self, e: ir.Bin) -> tuple[str, OpCost]:
        ctx, fam, dt = self.ctx, self.ctx.family, e.dtype
        n = _dtype_bits(dt)
        if dt.is_float:
            if e.op in ("add", "sub"):
                return "f" + e.op, tables.float_cost("fadd", n, fam, ctx.clock)
            if e.op == "mul":
                return "fmul", tables.float_cost("fmul", n, fam, ctx.clock)
            if e.op in ("div", "floordiv", "mod"):
                if e.op != "div":
                    ctx.note(f"float {e.op} is costed as a floating-point division")
                return "fdiv", tables.float_cost("fdiv", n, fam, ctx.clock)
            if e.op in ("min", "max"):
                c = tables.float_cost("fcmp", n, fam, ctx.clock)
                s = tables.int_cost("select", n, fam)
                return e.op, OpCost(
                    e.op, n, fam, c.delay_ns, c.latency, s.delay_ns, 1, c.lut + s.lut, c.ff, c.dsp,
                    "derived: floating-point compare then select; " + c.source + " | " + s.source,
                )  # fmt: skip
            raise TypeError(f"{e.op} on {dt}")
        if dt.is_bool:
            return "logic", tables.int_cost("logic", 1, fam)
        if e.op in ("add", "sub"):
            return e.op, tables.int_cost(e.op, n, fam)
        if e.op in ("and", "or", "xor"):
            const = next((x for x in (e.lhs, e.rhs) if isinstance(x, ir.Const)), None)
            if const is not None and e.op in ("and", "or"):
                return e.op, tables.int_cost("wire", n, fam)  # forcing bits to 0/1
            return e.op, tables.int_cost(e.op, n, fam)
        if e.op in ("min", "max"):
            return e.op, tables.int_cost(e.op, n, fam)
        if e.op in ("shl", "shr"):
            if isinstance(e.rhs, ir.Const):
                return "shift_const", tables.int_cost("shift_const", n, fam)
            return "shift_var", tables.int_cost("shift_var", n, fam)
        if e.op == "mul":
            const = None
            for x in (e.lhs, e.rhs):
                if isinstance(x, ir.Const) and not isinstance(x.value, bool):
                    const = int(x.value)
            return "mul", tables.mul_cost(
                _eff_bits(e.lhs, n, ctx.narrow),
                _eff_bits(e.rhs, n, ctx.narrow),
                n,
                fam,
                ctx.clock,
                const=const,
            )
        if e.op in ("floordiv", "mod"):
            const = (
                int(e.rhs.value)
                if isinstance(e.rhs, ir.Const) and not isinstance(e.rhs.value, bool)
                else None
            )
            cost = tables.div_cost(n, fam, signed=dt.kind == "int", const=const)
            if cost.latency:
                ctx.note(
                    f"integer {e.op} by a non-constant (or non power-of-two) uses a {cost.latency}-cycle sequential divider"
                )
            return e.op, cost
        raise TypeError(f"{e.op} on {dt}")

    def _address(self, array: str, index: tuple[ir.Expr, ...]) -> list[_Val]:
        """Flattened row-major address: idx_k * stride_k summed (constant strides)."""
        key = (array, index)
        if key not in self.addr_memo:
            self.addr_memo[key] = self._flat_address(array, index)
        return self.addr_memo[key]

    def _flat_address(self, array: str, index: tuple[ir.Expr, ...]) -> list[_Val]:
        shape = self.ctx.kernel.array_shape(array) or (1,)
        ram = self.ctx.rams[array]
        abits = max(1, math.ceil(math.log2(max(2, ram.elems))))
        vals = [self.expr(i) for i in index]
        if len(index) <= 1:
            return vals
        fam = self.ctx.family
        terms: list[_Val] = []
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
                if not _distinct(a.affine, aff):
                    earliest = max(earliest, a.cycle + 1)
            elif kind == "store" and a.kind == "load":
                earliest = max(earliest, a.cycle)
            elif kind == "store" and a.kind == "store":
                earliest = max(earliest, a.cycle + (0 if _distinct(a.affine, aff) else 1))
        return earliest

    def _load(self, e: ir.Load) -> _Val:
        ram = self.ctx.rams[e.array]
        addr = self._address(e.array, e.index)
        aff = flat_affine(e.index, self.ctx.kernel.array_shape(e.array), self.loop.var if self.loop else None)
        self.ctx.read_lanes(e.array, e.index)
        c, _t = self._start(addr)
        c = max(c, self._order_after(e.array, "load", aff))
        c, port, bank = self._reserve_port(e.array, c, aff)
        cost = tables.mem_cost("load", self.ctx.family)
        # elements per word of the RAM the load reads: a partitioned array's bank packs Q of
        # them (`bank_geometry`), fewer than the unpartitioned word's
        per_word = bank_geometry(ram, self.ctx.bus_bits).q if ram.banks > 1 else ram.per_word
        if per_word > 1:
            lut_ns, _ = tables.lut_level(self.ctx.family)
            mux = tables.mux_luts(ram.elem_bits, per_word)
            cost = OpCost(
                "load", ram.elem_bits, cost.family, cost.delay_ns, cost.latency, cost.out_ns + lut_ns, 1, mux, 0, 0,
                cost.source + f"; element select from a packed {ram.elem_bits * per_word}-bit word: "
                + tables.MUX_SOURCE,
            )  # fmt: skip
        v = self._record(e, "load", ram.elem_bits, cost, addr, c, 0.0, c + cost.latency, cost.out_ns, e.array)
        self.ops[-1].bank_dynamic = ram.banks > 1 and (bank is None or bank[0] != ())
        if self.emit is not None:
            self.emit.load(e, addr, v, c, port=port, bank=bank)
        self.accesses.append(_Access("load", e.array, c, aff, self.order))
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

    def condition(self, e: ir.Expr) -> _Val:
        """Evaluate an expression whose value is latched for control (a branch condition,
        loop bounds) as its own FSM state(s)."""
        v = self.expr(e)
        self._commit(v)
        if self.emit is not None:
            self.emit.condition(e, v)
        return v

    def _commit(self, v: _Val) -> None:
        self._use(v, v.cycle)
        self.commit = max(self.commit, v.cycle + 1)

    def _store(self, s: ir.Store) -> None:
        addr = self._address(s.array, s.index)
        val = self.expr(s.value)
        deps = [*addr, val] + ([self.guard] if self.guard is not None else [])
        aff = flat_affine(s.index, self.ctx.kernel.array_shape(s.array), self.loop.var if self.loop else None)
        c, _t = self._start(deps)
        c = max(c, self._order_after(s.array, "store", aff))
        c, port, bank = self._reserve_port(s.array, c, aff)
        cost = tables.mem_cost("store", self.ctx.family)
        ram = self.ctx.rams[s.array]
        self._record(s, "store", ram.elem_bits, cost, deps, c, 0.0, c, 0.0, s.array)
        self.ops[-1].bank_dynamic = ram.banks > 1 and (bank is None or bank[0] != ())
        if self.emit is not None:
            self.emit.store(s, addr, val, self.guard, c, port=port, bank=bank)
        self.accesses.append(_Access("store", s.array, c, aff, self.order))
        self.order += 1
        self.commit = max(self.commit, c + 1)

    def _if(self, s: ir.If) -> None:
        fam = self.ctx.family
        cond = self.expr(s.cond)
        saved = dict(self.avail)
        outer = self.guard
        self.guard = (
            cond
            if outer is None
            else self._place(
                s, "logic", 1, tables.int_cost("logic", 1, fam), [outer, cond], role="guard_then"
            )
        )
        for t in s.then:
            self.stmt(t)
        then_avail = self.avail
        self.avail = dict(saved)
        if s.orelse:
            self.guard = (
                self._virtual(s, "not", [cond], "guard_else")
                if outer is None
                else self._place(
                    s, "logic", 1, tables.int_cost("logic", 1, fam), [outer, cond], role="guard_else"
                )
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
            bits = _dtype_bits(dt) if dt is not None else max(x.bits for x in (tv, ev) if x is not None)
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


def _distinct(a, b) -> bool:
    """Provably different addresses within one iteration (same symbols, different offset)."""
    return a is not None and b is not None and a[0] == b[0] and a[2] == b[2] and a[1] != b[1]


def _eff_bits(e: ir.Expr, out_bits: int, narrow: dict[str, int] | None = None) -> int:
    """Significant signed width of a multiplier operand (a cast from a narrower integer
    keeps the narrow width, plus a sign bit when unsigned; constants their magnitude; a
    variable the width of every value assigned to it)."""
    if isinstance(e, ir.Var) and narrow and e.name in narrow:
        return min(out_bits, narrow[e.name])
    if isinstance(e, ir.Const) and not isinstance(e.value, bool) and isinstance(e.value, int):
        return min(out_bits, abs(int(e.value)).bit_length() + 1)
    if isinstance(e, ir.Cast) and e.operand.dtype.is_int and e.dtype.is_int:
        src = e.operand.dtype
        return min(out_bits, src.bits + (1 if src.kind == "uint" else 0))
    if isinstance(e, ir.Cast) and e.operand.dtype.is_bool:
        return min(out_bits, 2)
    return out_bits


# ------------------------------------------------------------ the kernel


class _Scheduler:
    def __init__(self, ctx: _Ctx):
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

    def stmt(self, s: ir.Stmt, path, entries: int, parent: str, counter: list[int]) -> StmtSchedule:
        kind = type(s).__name__.lower()
        if isinstance(s, (ir.Assign, ir.Store, ir.Return)):
            if isinstance(s, ir.Return) and s.value is None:
                return StmtSchedule(path, kind, s, 0, 0)
            r = _Region(self.ctx, emit=self._emit(path, "stmt"))
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
            r = _Region(self.ctx, emit=self._emit(path, "cond"))
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
        raise TypeError(f"unknown statement {type(s).__name__}")

    def loop(self, s: ir.For, path, entries: int, parent: str, counter: list[int]) -> StmtSchedule:
        ctx = self.ctx
        label = self._label(s, parent, counter)
        trip = max(0, int(s.trip_max))
        bounds = _Region(ctx, emit=self._emit(path, "bounds"))
        for e in (s.start, s.stop):
            bounds.condition(e)
        ctx.chain_ff += bounds.chain_ff()
        entry = max(1, bounds.length)
        if bounds.emit is not None:
            bounds.emit.close(entry)
        vbits = _dtype_bits(s.start.dtype)
        control = [
            ScheduledOp(s, "add", vbits, tables.int_cost("add", vbits, ctx.family), 0, 0.0, 0, 0.0),
            ScheduledOp(s, "cmp", 1, tables.int_cost("cmp", vbits, ctx.family), 0, 0.0, 0, 0.0),
        ]
        ops = bounds.ops + control
        if not _contains_loop(s.body) and not has_jumps(s.body) and label not in ctx.sequential:
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

    def pipeline(self, s: ir.For, label: str, path, trip: int, entries: int) -> LoopSchedule:
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
            r = _Region(ctx, ii=ii, loop=s)
            try:
                for j, st in enumerate(s.body):
                    r.owner = j
                    r.stmt(st)
            except _PortsFull:
                # the accesses of one array do not fit the ports of II cycles (their banks
                # may meet): one more cycle per iteration
                ii = mem_ii = ii + 1
                continue
            reasons = {"memory": mem_ii, "unit": r.unit_ii}
            rec = 1
            for var, first in r.first_read.items():
                final = r.avail.get(var)
                if final is not None and not (final.var == var and final.counted is False):
                    # a combinational result is latched at the end of its cycle; a registered
                    # unit output (ready_ns 0) feeds the next iteration from that register
                    rec = max(rec, final.cycle + (1 if final.ns > 0 else 0) - first)
            reasons["recurrence"] = rec
            reasons["array_raw"] = self._raw_ii(r, s, trip)
            new_ii = max(1, *reasons.values())
            if new_ii <= ii:
                break
            ii = new_ii
        emit = self._emit(path, "body", ii=ii)
        if emit is not None:
            # the same (deterministic) schedule once more, told to the emitter
            ctx.writers = defaultdict(int, writers_before)
            r = _Region(ctx, ii=ii, loop=s, emit=emit)
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
        return LoopSchedule(label, path, s.var, trip, True, ii, depth, 0, entries, reasons, body)

    def _raw_ii(self, r: _Region, s: ir.For, trip: int) -> int:
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


def has_jumps(stmts: list[ir.Stmt]) -> bool:
    """A break or continue among these statements (not inside a nested loop)."""
    for s in stmts:
        if isinstance(s, (ir.Break, ir.Continue)):
            return True
        if isinstance(s, ir.If) and (has_jumps(s.then) or has_jumps(s.orelse)):
            return True
    return False


def schedule_kernel(
    kernel: ir.Kernel,
    family: str,
    clock_mhz: float,
    bus_bits: int = 32,
    emitter: Any = None,
    *,
    banks: dict[str, int] | None = None,
    sequential: frozenset[str] = frozenset(),
) -> KernelSchedule:
    """The static schedule of `kernel` on a device `family` at `clock_mhz`.

    `emitter` (optional) is told every scheduled value (see the module docstring).
    Implementation variants (partition.estimate.variants) change two things, the
    defaults being the base microarchitecture: `banks` cyclic-partitions an array into F
    banks of RAM_PORTS ports each (accesses share a cycle only on different banks, see
    `_Region._reserve_port`), and the innermost loops labelled
    in `sequential` run as FSM loops instead of pipelines."""
    tables.check_family(family)
    ctx = _Ctx(kernel, family, clock_mhz, bus_bits, emitter, banks, sequential)
    sch = _Scheduler(ctx)
    body, compute = sch.block(kernel.body, (), 1, "")
    for op in _all_ops(body):
        if op.array is not None:
            ctx.rams[op.array].sites += 1
    _narrow_read_only_buffers(ctx)
    registers: dict[str, int] = {}
    scalar_params = {p.name for p in kernel.scalar_params}
    for name, dt in sorted(ctx.var_types.items()):
        if name in scalar_params and ctx.writers.get(name, 0) == 0:
            continue  # read straight from its AXI-Lite register
        registers[name] = _dtype_bits(dt)
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


def _narrow_vars(kernel: ir.Kernel, var_types: dict[str, DType]) -> dict[str, int]:
    """Integer variables whose every assignment is narrower than their type (`v =
    np.int32(x[i])` of an int16 `x`): their significant signed width. Synthesis sees the
    sign extension and sizes a multiplier by it (yosys `wreduce`, Vivado likewise)."""
    widths: dict[str, int] = {}
    loop_vars = set()
    for s in ir.walk_stmts(kernel.body):
        if isinstance(s, ir.For):
            loop_vars.add(s.var)
        elif isinstance(s, ir.Assign):
            dt = var_types.get(s.var)
            if dt is None or not dt.is_int:
                continue
            bits = _eff_bits(s.value, _dtype_bits(dt))
            widths[s.var] = max(widths.get(s.var, 0), bits)
    params = {p.name for p in kernel.scalar_params}
    return {
        v: b
        for v, b in widths.items()
        if v not in loop_vars and v not in params and b < _dtype_bits(var_types[v])
    }


def _narrow_read_only_buffers(ctx: _Ctx) -> None:
    """Cost an input buffer by the lanes of its packed words that compute reads.

    The load engine fills whole bus words, but nothing reads the bits of the lanes the
    kernel never selects (`a[4 * i]` of int16 reads only lane 0 of each 32-bit word), and
    synthesis removes storage whose output is unused: yosys `opt_mem` / Vivado trim the
    RAM's width to the bits read. An array the kernel also stores to is read whole by
    the write engine and keeps its width."""
    for p in ctx.kernel.arrays:
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


def _all_ops(stmts: list[StmtSchedule]) -> list[ScheduledOp]:
    out: list[ScheduledOp] = []
    for s in stmts:
        out.extend(s.ops)
        if s.loop is not None:
            out.extend(_all_ops(s.loop.body))
        out.extend(_all_ops(s.then))
        out.extend(_all_ops(s.orelse))
    return out
